"""The statement cache (issue 22): a theorem read back from it evaluates exactly as the theorem, a changed statement
is never served a stale kernel, and an entry that is corrupt, foreign or forged is never run.

Timing is measured by ``bench/bench_startup.py``; what commands import is checked by ``tests/test_cli_startup.py``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dptheory.core.cache_store import NOTES
from dptheory.core.compile import CompileError
from dptheory.core.compile.vet import vet_source
from dptheory.core.registry import REGISTRY
from dptheory.core.snapshot import (
    CACHE_ENV,
    NO_CACHE_ENV,
    CachedTheorem,
    StatementCache,
    cache_dir,
    material,
    numeric_theorem,
    record_of,
)

ROOT = Path(__file__).resolve().parents[1]


def _cached(key: str) -> tuple[object, CachedTheorem]:
    thm = REGISTRY.get(key)
    rec = record_of(thm)
    assert rec is not None, key
    return thm, CachedTheorem(json.loads(json.dumps(rec)), lambda: thm)


def _theorems() -> list[str]:
    REGISTRY.discover()
    return sorted(t.key for t in REGISTRY.theorems())


@pytest.mark.parametrize("key", _theorems())
def test_a_cached_theorem_evaluates_as_the_theorem(key):
    """Values, certified enclosures, conditions (status and both sides as printed), float64 values and screens, at
    valid points and at a point violating a condition (evaluated with check=False)."""
    import numpy as np

    from dptheory.verify.contract import valid_points

    thm = REGISTRY.get(key)
    rec = record_of(thm)
    if rec is None:
        assert thm.overrides, key  # only a theorem with a hand-written kernel that no import reaches is not cached
        return
    cached = CachedTheorem(json.loads(json.dumps(rec)), lambda: thm)
    points, _ = valid_points(thm, 2, tries=200)
    assert points, key
    for pt in points:
        assert cached.evaluate(pt, dps=20).to_dict() == thm.evaluate(pt, dps=20).to_dict(), pt
        for term in thm.terms:
            assert cached.evaluate(pt, dps=15, term=term).to_dict() == thm.evaluate(pt, dps=15, term=term).to_dict()
    arrays = {p: np.array([float(pt[p]) for pt in points]) for p in thm.params}
    assert np.array_equal(cached.check_np(arrays), thm.check_np(arrays))
    if thm.kernels().np is not None:
        assert np.array_equal(cached.evaluate_np(arrays), thm.evaluate_np(arrays), equal_nan=True)
    bad = {**points[0], **{p: 10**6 for p in thm.params if thm.notation[p].domain.value == "positive"}}
    a = [r.to_dict() for r in thm.check(bad)]
    assert [r.to_dict() for r in cached.check(bad)] == a


def test_cached_values_are_fractions_and_the_rest_is_the_theorem():
    thm, cached = _cached("yeshokri22.thm4_2")
    exact = cached.parse({"alpha": "10", "K": 5, "eta": 0.02, "lam": 1, "beta": 4, "S_g": 4, "sigma": 2, "n": 50,
                          "b": 2})
    assert {type(v).__name__ for v in exact.values()} == {"Fraction"}
    assert cached.bound is thm.bound and cached.limits is thm.limits  # not cached: read from the theorem


def test_a_changed_statement_is_never_served_a_stale_kernel(tmp_path):
    """A copy of the package: rdp.gaussian evaluated (entry written), evaluated again (read back, no sympy), its
    formula edited (T alpha / (2 z^2) -> T alpha / z^2): the next evaluation gives the new value."""
    pkg = tmp_path / "src" / "dptheory"
    shutil.copytree(ROOT / "dptheory", pkg, ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "src"), CACHE_ENV: str(tmp_path / "cache")}
    env.pop("DPTHEORY_PATH", None)
    env.pop(NO_CACHE_ENV, None)
    probe = ("import sys, json\nfrom dptheory.cli import main\ncode = main(sys.argv[1:])\n"
             "print(json.dumps({'code': code, 'sympy': 'sympy' in sys.modules}), file=sys.stderr)\n")

    def run() -> tuple[str, bool]:
        proc = subprocess.run([sys.executable, "-c", probe, "eval", "rdp.gaussian", "alpha=10", "z=2", "T=100",
                               "--json"], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
        status = json.loads(proc.stderr.strip().splitlines()[-1])
        assert status["code"] == 0, proc.stderr
        return json.loads(proc.stdout)["value"], status["sympy"]

    assert run() == ("125.00000000000000000000000000000000000000000000000", True)  # built, entry written
    assert run() == ("125.00000000000000000000000000000000000000000000000", False)  # read back
    toml = pkg / "privacy" / "rdp.toml"
    text = toml.read_text()
    assert 'bound = "T*alpha/(2*z**2)"' in text
    toml.write_text(text.replace('bound = "T*alpha/(2*z**2)"', 'bound = "T*alpha/z**2"'))
    assert run() == ("250.00000000000000000000000000000000000000000000000", True)  # never the old kernel
    assert run() == ("250.00000000000000000000000000000000000000000000000", False)
    assert not list(tmp_path.glob("*.json")) and not (tmp_path / "statements-v1").exists()  # never the working folder


def test_corrupt_and_foreign_entries_are_ignored_and_rewritten(tmp_path):
    store = StatementCache(tmp_path)
    mat = material("rdp.gaussian")
    built = []

    def full():
        built.append(1)
        return REGISTRY.get("rdp.gaussian")

    assert numeric_theorem("rdp.gaussian", full, cache=store) is REGISTRY.get("rdp.gaussian") and built  # written
    path = store.path(mat)
    assert path is not None and path.is_file()
    assert isinstance(numeric_theorem("rdp.gaussian", full, cache=store), CachedTheorem) and len(built) == 1
    good = path.read_bytes()
    entry = json.loads(good)
    cases = {
        "torn": good[: len(good) // 2],
        "not json": b"\x00\xff garbage",
        "edited record": json.dumps({**entry, "record": {**entry["record"], "title": "changed"}}).encode(),
        "other material": json.dumps({**entry, "material": {**entry["material"], "package": "0" * 64}}).encode(),
        "other key": json.dumps({**entry, "record": {**entry["record"], "key": "rdp.other"}}).encode(),
    }
    for what, data in cases.items():
        path.write_bytes(data)
        assert store.load(mat) is None, what
        n = len(built)
        assert not isinstance(numeric_theorem("rdp.gaussian", full, cache=store), CachedTheorem), what
        assert len(built) == n + 1 and store.load(mat) is not None, what  # rewritten
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".tmp-")]


def test_an_entry_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    store = StatementCache(tmp_path)
    mat = material("rdp.gaussian")
    rec = record_of(REGISTRY.get("rdp.gaussian"))
    assert rec is not None

    def broken(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken)
    assert store.store(mat, rec) is None
    folder = tmp_path / "statements-v1"
    assert folder.is_dir() and not list(folder.iterdir())


def _forge(tmp_path: Path, src: str) -> CachedTheorem:
    """An entry with a valid hash whose kernels are ``src``: what someone able to write the cache could plant."""
    import hashlib

    store = StatementCache(tmp_path)
    mat = material("rdp.gaussian")
    rec = record_of(REGISTRY.get("rdp.gaussian"))
    assert rec is not None
    rec["compiled"] = {b: src for b in rec["compiled"]}
    path = store.store(mat, rec)
    assert path is not None
    entry = json.loads(path.read_text())
    body = json.dumps(entry["record"], sort_keys=True, separators=(",", ":")).encode()
    assert entry["sha256"] == hashlib.sha256(body).hexdigest()
    got = numeric_theorem("rdp.gaussian", lambda: REGISTRY.get("rdp.gaussian"), cache=store)
    assert isinstance(got, CachedTheorem)
    return got


FORGED = {
    "import": "import os\ndef kernel(args):\n    return 1\n",
    "builtin": "def kernel(args):\n    return open('/etc/passwd')\n",
    "dunder": "def kernel(args):\n    return (1).__class__\n",
    "attribute": "def kernel(args):\n    return _m.libmp\n",
    "lambda": "def kernel(args):\n    f = lambda: 1\n    return f()\n",
    "two functions": "def kernel(args):\n    return 1\ndef other(args):\n    return 2\n",
    "signature": "def kernel(args, x=print):\n    return 1\n",
}


@pytest.mark.parametrize("what", sorted(FORGED))
def test_forged_code_in_a_valid_entry_never_runs(tmp_path, what, capsys):
    got = _forge(tmp_path, FORGED[what])
    with pytest.raises(CompileError, match="refused"):
        got.evaluate({"alpha": 10, "z": 2, "T": 100}, dps=15)


def test_the_vetting_accepts_every_kernel_the_compiler_writes():
    """Every source of every cached theorem (bounds, terms, both sides of every condition, every backend) passes the
    vetting: a cached theorem is never refused for code of our own (the test above shows what is refused)."""
    from dptheory.core.compile.backends import NAMESPACES

    n = 0
    for key in _theorems():
        rec = record_of(REGISTRY.get(key))
        if rec is None:
            continue
        sources = [(b, src) for b, src in (rec["compiled"] or {}).items()]
        sources += [(b, src) for t in rec["terms"].values() for b, src in (t["compiled"] or {}).items()]
        for c in rec["domain_checks"] + rec["condition_checks"]:
            for side in (c["code"]["lhs"], c["code"]["rhs"]):
                if side is not None:
                    sources += [("mp", side["mp"]), ("np", side["np"])] + ([("q", side["exact"])] if side["exact"]
                                                                            else [])
        for backend, src in sources:
            module, fn = NAMESPACES[backend]
            names = set(getattr(__import__(module, fromlist=[fn]), fn)())
            vet_source(src, names)
            n += 1
    assert n > 500  # every backend of every bound, term and condition side written as code


def test_the_cache_folder(tmp_path, monkeypatch):
    for var in (CACHE_ENV, NO_CACHE_ENV, "XDG_CACHE_HOME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "dptheory"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # a relative XDG path is ignored (the XDG rule)
    assert cache_dir() == tmp_path / "home" / ".cache" / "dptheory"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "dptheory"
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "mine"))
    assert cache_dir() == tmp_path / "mine"
    monkeypatch.setenv(CACHE_ENV, "here")  # never the working folder
    with pytest.warns(UserWarning, match="not an absolute path"):
        assert cache_dir() == tmp_path / "xdg" / "dptheory"
    monkeypatch.setenv(NO_CACHE_ENV, "1")
    assert cache_dir() is None
    assert numeric_theorem("rdp.gaussian", lambda: REGISTRY.get("rdp.gaussian")) is REGISTRY.get("rdp.gaussian")


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="folder owners are a POSIX notion")
def test_a_folder_others_can_write_is_not_used(tmp_path):
    store = StatementCache(tmp_path)
    rec = record_of(REGISTRY.get("rdp.gaussian"))
    assert rec is not None and store.store(material("rdp.gaussian"), rec) is not None
    (tmp_path / "statements-v1").chmod(0o777)
    with pytest.warns(UserWarning, match="statements-v1, in dptheory's cache, is not a folder of yours alone"):
        assert store.load(material("rdp.gaussian")) is None
    # the notes (check's durations, the entry points) live in the same cache folder, under the same rule and words
    notes = StatementCache(tmp_path, sub=NOTES)
    assert notes.write("n.json", b"{}") is not None
    (tmp_path / NOTES).chmod(0o777)
    with pytest.warns(UserWarning, match=f"{NOTES}, in dptheory's cache, is not a folder of yours alone"):
        assert notes.write("n.json", b"{}") is None
