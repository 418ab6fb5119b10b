"""Plugin discovery under hostile folders (issue 18, item 5; :mod:`dptheory.catalog`, "What DPTHEORY_PATH
loads", "Failures"; :mod:`dptheory.core.registry`, "Duplicates").

* a ``DPTHEORY_PATH`` folder holding ``scipy/``, ``json/`` or ``numpy/`` never shadows the installed module (the
  fake's import side effect never happens), while a real paper package beside them is still found;
* an entry of ``DPTHEORY_PATH`` that is not a folder is a warning naming it;
* a paper package that fails to import (a syntax error, ``import nosuchmodule``, an exception in ``__init__``) is
  a warning naming the package, its file and line; ``dptheory list`` lists the rest and exits 0, and asking for
  one of its keys is an error naming it;
* a key registered twice (a ``DPTHEORY_PATH`` plugin or an entry-point package re-registering ``rdp.gaussian``,
  two plugins registering one key, a figure name) is a ``DuplicateKey`` naming both origins whatever the first
  call (``catalog``, ``get``, ``in``, ``figure``, iteration, ``dptheory list``, ``dptheory eval``), and the
  plugin's value is never returned;
* ``dptheory.get(None)`` is the package's own exception.

Discovery happens once per process: every case runs in a fresh interpreter with ``DPTHEORY_PATH`` set.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "adding_a_paper.md"
BLOCK = re.compile(r"```python\n# file: (?P<path>[\w/.]+)\n(?P<body>.*?)```", re.S)

SIDE_EFFECT = "import os\nopen(os.environ['SIDE_EFFECT_FILE'], 'a').write(__name__ + ' imported\\n')\n"

# a paper that registers `KEY` again (with the value alpha / (100 z^2 T), 0.0002 at alpha=2, z=1, T=10)
DUP_THEOREMS = '''
from dptheory.core import REGISTRY, Direction, Paper, Theorem
from dptheory.core.notation import Domain, NotationTable

PAPER = Paper(key="{name}", authors="A. Dup", year=2026, title="dup", arxiv_id="2601.00002")
NOTATION = NotationTable.build("{name}", [
    ("alpha", r"\\alpha", "Renyi order", Domain.POSITIVE, (1.0, 1e3, True)),
    ("z", "z", "noise multiplier", Domain.POSITIVE, (0.1, 100.0, True)),
    ("T", "T", "iterations", Domain.POSITIVE_INTEGER, (1, 10_000, True)),
])
alpha, z, T = NOTATION.symbols("alpha", "z", "T")
REGISTRY.add(Theorem(key="{key}", title="a second meaning", citation=PAPER.item("Theorem 1"), notation=NOTATION,
                     params=("alpha", "z", "T"), bound=alpha / (100 * z**2 * T), direction=Direction.UPPER,
                     quantity="RDP epsilon"))
'''

DUP_FIGURE = '''
from dptheory.core import REGISTRY
from dptheory.core.registry import Figure

REGISTRY.add_figure(Figure("{figure}", "a second figure of that name", lambda out, csv_path=None: []))
'''


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        f = root / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text)
    return root


def toy_files() -> dict[str, str]:
    """The toy paper of docs/adding_a_paper.md (a well-formed plugin, found beside the hostile folders)."""
    return {m["path"]: m["body"] for m in BLOCK.finditer(DOC.read_text())}


def env_for(path: str, tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "DPTHEORY_PATH": path, "SIDE_EFFECT_FILE": str(tmp_path / "side_effect.txt"), **extra}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [extra.get("PYTHONPATH"), str(REPO)]))
    return env


def run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=300)


def dptheory(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run(["-m", "dptheory", *args], env, cwd)


# ----------------------------------------------------------------------------- shadowing
@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """A DPTHEORY_PATH folder with fake scipy/, json/ (paper-looking: they hold a theorems.py), numpy/ (a plain
    package), a top-level module, and the toy paper."""
    root = tmp_path / "plugins"
    files = {
        "scipy/__init__.py": SIDE_EFFECT, "scipy/theorems.py": SIDE_EFFECT,
        "json/__init__.py": SIDE_EFFECT, "json/theorems.py": SIDE_EFFECT,
        "numpy/__init__.py": SIDE_EFFECT, "mpmath.py": SIDE_EFFECT,
        **toy_files(),
    }
    return write(root, files)


def test_fake_libraries_in_dptheory_path_shadow_nothing(hostile, tmp_path):
    env = env_for(str(hostile), tmp_path)
    r = dptheory(env, tmp_path, "convert", "rdp.subsampled_gaussian", "q=0.01", "z=1", "T=10", "--delta", "1e-5")
    assert r.returncode == 0, r.stderr
    assert "-DP" in r.stdout and "internal error" not in r.stderr
    assert not (tmp_path / "side_effect.txt").exists()  # no fake module was ever imported
    # the paper-looking fakes are named as skipped, with the installed module that keeps its name
    for name in ("scipy", "json"):
        line = next(x for x in r.stderr.splitlines() if f"paper package '{name}'" in x)
        assert str(hostile / name) in line and "already importable from" in line
    assert "numpy" not in r.stderr  # not a paper package: ignored, never imported


def test_a_paper_beside_fake_libraries_still_works(hostile, tmp_path):
    env = env_for(str(hostile), tmp_path)
    r = dptheory(env, tmp_path, "eval", "toy26.thm1", "alpha=2", "z=1", "T=10", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["value"].startswith("10.000000")
    probe = textwrap.dedent("""
        import json, sys
        import dptheory
        from dptheory.core.registry import REGISTRY
        rows = {r["key"] for r in REGISTRY.catalog()}
        dptheory.get("toy26.thm1"); list(REGISTRY)
        import json as j, mpmath, numpy, scipy, scipy.optimize
        print(json.dumps({"toy": "toy26.thm1" in rows, "files": [m.__file__ for m in (j, mpmath, numpy, scipy)],
                          "sys_path": sys.path}))
    """)
    r = run(["-W", "ignore", "-c", probe], env, tmp_path)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["toy"]
    assert not any(f.startswith(str(hostile)) for f in out["files"]), out["files"]
    assert str(hostile) not in out["sys_path"]  # the folder is never put on sys.path
    assert not (tmp_path / "side_effect.txt").exists()


def test_a_dptheory_path_entry_that_is_not_a_folder_is_a_warning(tmp_path):
    a_file = tmp_path / "afile.txt"
    a_file.write_text("x")
    missing = tmp_path / "no_such_folder"
    env = env_for(os.pathsep.join([str(missing), str(a_file)]), tmp_path)
    r = dptheory(env, tmp_path, "list")
    assert r.returncode == 0, r.stderr
    assert "yeshokri22.thm4_2" in r.stdout
    assert re.search(rf"{re.escape(str(missing))}'?, which does not exist", r.stderr), r.stderr
    assert re.search(rf"{re.escape(str(a_file))}'?, which is not a folder", r.stderr), r.stderr
    assert "internal error" not in r.stderr


# ----------------------------------------------------------------------------- broken paper packages
@pytest.fixture
def broken(tmp_path: Path) -> Path:
    root = tmp_path / "plugins"
    return write(root, {
        "mypaper/__init__.py": '"""A paper with a syntax error."""\n',
        "mypaper/theorems.py": "x = 1\n\ndef f(:\n    pass\n",
        "impfail/__init__.py": '"""A paper importing a missing module."""\n',
        "impfail/theorems.py": '"""doc"""\nimport nosuchmodule\n',
        # registers a theorem, then fails: what it registered is withdrawn
        "halfway/__init__.py": '"""A paper failing halfway."""\n',
        "halfway/theorems.py": DUP_THEOREMS.format(name="halfway", key="halfway.thm1")
        + "\n\nraise RuntimeError('boom')\n",
        "badinit/__init__.py": '"""A paper whose __init__ fails."""\nraise ValueError("bad init")\n',
        "badinit/theorems.py": "",
        **toy_files(),
    })


def _line_of(text: str, needle: str) -> int:
    return next(i for i, x in enumerate(text.splitlines(), 1) if needle in x)


def expected_warnings(root: Path) -> dict[str, str]:
    halfway = (root / "halfway" / "theorems.py").read_text()
    return {
        "mypaper": f"paper package 'mypaper' ({root / 'mypaper' / 'theorems.py'}, line 3) failed to import: "
                   "SyntaxError: invalid syntax",
        "impfail": f"paper package 'impfail' ({root / 'impfail' / 'theorems.py'}, line 2) failed to import: "
                   "ModuleNotFoundError: No module named 'nosuchmodule'",
        "halfway": f"paper package 'halfway' ({root / 'halfway' / 'theorems.py'}, line "
                   f"{_line_of(halfway, 'RuntimeError')}) failed to import: RuntimeError: boom",
        "badinit": f"paper package 'badinit' ({root / 'badinit' / '__init__.py'}, line 2) failed to import: "
                   "ValueError: bad init",
    }


@pytest.mark.parametrize("argv", [["list", "--all", "--json"], ["--help"]])
def test_broken_papers_are_named_and_the_rest_works(broken, tmp_path, argv):
    env = env_for(str(broken), tmp_path)
    r = dptheory(env, tmp_path, *argv)
    assert r.returncode == 0, r.stderr
    assert "internal error" not in r.stderr and "Traceback" not in r.stderr
    want = expected_warnings(broken)
    if argv[0] == "list":
        keys = {row["key"] for row in json.loads(r.stdout)}
        assert {"toy26.thm1", "toy26.C1", "yeshokri22.thm4_2", "rdp.gaussian"} <= keys
        assert not any(k.split(".")[0] in want for k in keys), keys
    else:
        want = {"badinit": want["badinit"]}  # --help imports the packages, not their theorems
    for name, message in want.items():
        assert r.stderr.count(message) == 1, (name, r.stderr)


def test_a_key_of_a_broken_paper_is_an_error_naming_it(broken, tmp_path):
    env = env_for(str(broken), tmp_path)
    want = expected_warnings(broken)
    for key, name in [("mypaper.thm1", "mypaper"), ("impfail.x", "impfail"), ("halfway.thm1", "halfway")]:
        r = dptheory(env, tmp_path, "eval", key, "alpha=2", "z=1", "T=10")
        assert r.returncode == 1, r.stderr
        assert f"dptheory: error: {want[name]}" in r.stderr.splitlines(), r.stderr
    r = dptheory(env, tmp_path, "eval", "toy26.thm1", "alpha=2", "z=1", "T=10")
    assert r.returncode == 0 and r.stdout.startswith("toy26.thm1"), r.stderr


def test_broken_papers_in_the_python_api(broken, tmp_path):
    """The API: a PaperImportWarning per broken package, REGISTRY.broken(), PaperImportError for its keys."""
    probe = textwrap.dedent("""
        import json, warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            import dptheory
            from dptheory.core.errors import DPTheoryError, PaperImportError, PaperImportWarning
            from dptheory.core.registry import REGISTRY
            keys = [r["key"] for r in REGISTRY.catalog()] + REGISTRY.keys()
        out = {"warnings": sorted(str(w.message) for w in caught if issubclass(w.category, PaperImportWarning)),
               "broken": sorted(REGISTRY.broken()), "keys": sorted(set(keys)), "errors": {}}
        for key in ("mypaper.thm1", "halfway.thm1"):
            try:
                dptheory.get(key)
            except PaperImportError as exc:
                out["errors"][key] = [str(exc), isinstance(exc, DPTheoryError), isinstance(exc, ImportError),
                                      exc.package, exc.file, exc.line]
        print(json.dumps(out))
    """)
    r = run(["-c", probe], env_for(str(broken), tmp_path), tmp_path)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    want = expected_warnings(broken)
    assert out["warnings"] == sorted(want.values())
    assert out["broken"] == sorted(want)
    assert "toy26.thm1" in out["keys"] and not any(k.startswith(tuple(want)) for k in out["keys"])
    msg, is_ours, is_import, package, file, line = out["errors"]["mypaper.thm1"]
    assert (msg, is_ours, is_import, package) == (want["mypaper"], True, True, "mypaper")
    assert (file, line) == (str(broken / "mypaper" / "theorems.py"), 3)
    assert out["errors"]["halfway.thm1"][0] == want["halfway"]  # its registration before the failure is withdrawn


# ----------------------------------------------------------------------------- duplicate keys
RDP_FILE = str(REPO / "dptheory" / "privacy" / "rdp.py")

FIRST_CALLS = {
    "catalog": "REGISTRY.catalog()",
    "get": "dptheory.get('rdp.gaussian').evaluate(alpha=2, z=1, T=10)",
    "get_other": "dptheory.get('yeshokri22.thm4_2')",
    "contains": "'rdp.gaussian' in REGISTRY",
    "figure": "REGISTRY.figure('yeshokri22-fig1')",
    "iterate": "list(REGISTRY)",
    "discover": "REGISTRY.discover()",
}

DUP_PROBE = """
import json
import dptheory
from dptheory.core.errors import DuplicateKey
from dptheory.core.registry import REGISTRY
out = []
for call in ({first!r}, "REGISTRY.catalog()", "dptheory.get('rdp.gaussian').evaluate(alpha=2, z=1, T=10)"):
    try:
        value = eval(call)
        out.append(["no error", str(value)[:80]])
    except DuplicateKey as exc:
        out.append(["DuplicateKey", str(exc)])
print(json.dumps(out))
"""


def dup_message(key: str, first: tuple[str, str], second: tuple[str, str]) -> str:
    return f"key {key!r} is registered twice: by {first[0]} ({first[1]}) and by {second[0]} ({second[1]})"


@pytest.fixture
def dup_plugin(tmp_path: Path) -> Path:
    return write(tmp_path / "plugins", {
        "dupplug/__init__.py": '"""A plugin re-registering rdp.gaussian."""\n',
        "dupplug/theorems.py": DUP_THEOREMS.format(name="dupplug", key="rdp.gaussian"),
    })


@pytest.mark.parametrize("first", sorted(FIRST_CALLS))
def test_a_plugin_redefining_a_builtin_key_is_an_error_in_every_order(dup_plugin, tmp_path, first):
    probe = DUP_PROBE.format(first=FIRST_CALLS[first])
    r = run(["-c", probe], env_for(str(dup_plugin), tmp_path), tmp_path)
    assert r.returncode == 0, r.stderr
    want = dup_message("rdp.gaussian", ("dptheory.privacy.rdp", RDP_FILE),
                       ("dupplug.theorems", str(dup_plugin / "dupplug" / "theorems.py")))
    assert json.loads(r.stdout) == [["DuplicateKey", want]] * 3


@pytest.mark.parametrize("argv", [["list"], ["eval", "rdp.gaussian", "alpha=2", "z=1", "T=10"],
                                  ["eval", "yeshokri22.thm4_2", "alpha=10", "K=5", "eta=0.02", "lam=1", "beta=4",
                                   "S_g=4", "sigma=2", "n=50", "b=2"]])
def test_a_plugin_redefining_a_builtin_key_fails_the_cli(dup_plugin, tmp_path, argv):
    r = dptheory(env_for(str(dup_plugin), tmp_path), tmp_path, *argv)
    want = dup_message("rdp.gaussian", ("dptheory.privacy.rdp", RDP_FILE),
                       ("dupplug.theorems", str(dup_plugin / "dupplug" / "theorems.py")))
    assert (r.returncode, r.stdout, r.stderr) == (1, "", f"dptheory: error: {want}\n")


@pytest.mark.parametrize("first", ["catalog", "get", "iterate"])
def test_an_entry_point_redefining_a_builtin_key_is_an_error(tmp_path, first):
    """The same through the entry-point group ``dptheory.papers`` (a distribution installed on PYTHONPATH)."""
    site = write(tmp_path / "site", {
        "eppaper/__init__.py": '"""An installed paper re-registering rdp.gaussian."""\n',
        "eppaper/theorems.py": DUP_THEOREMS.format(name="eppaper", key="rdp.gaussian"),
        "eppaper_dist-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: eppaper-dist\nVersion: 0.1\n",
        "eppaper_dist-0.1.dist-info/entry_points.txt": "[dptheory.papers]\neppaper = eppaper\n",
    })
    probe = DUP_PROBE.format(first=FIRST_CALLS[first])
    r = run(["-c", probe], env_for("", tmp_path, PYTHONPATH=str(site)), tmp_path)
    assert r.returncode == 0, r.stderr
    want = dup_message("rdp.gaussian", ("dptheory.privacy.rdp", RDP_FILE),
                       ("eppaper.theorems", str(site / "eppaper" / "theorems.py")))
    assert json.loads(r.stdout) == [["DuplicateKey", want]] * 3


# ----------------------------------------------------------------------------- entry points kept in the cache
EP_PROBE = """
import json, sys
from dptheory.catalog import paper_packages
names = paper_packages()
print(json.dumps({"listed": "eppaper" in names, "read": "importlib.metadata" in sys.modules}))
"""


def test_entry_points_are_kept_in_the_cache_and_never_served_stale(tmp_path):
    """:func:`dptheory.catalog._entry_point_packages` keeps the entry points in the cache folder: a second command
    with the same distributions does not import :mod:`importlib.metadata`; a distribution removed, its
    ``entry_points.txt`` edited in place, or put back, is seen by the next command (the cache is shared)."""
    site = write(tmp_path / "site", {
        "eppaper/__init__.py": '"""An installed paper."""\n',
        "eppaper_dist-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: eppaper-dist\nVersion: 0.1\n",
        "eppaper_dist-0.1.dist-info/entry_points.txt": "[dptheory.papers]\neppaper = eppaper\n",
    })
    env = env_for("", tmp_path, PYTHONPATH=str(site), DPTHEORY_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("DPTHEORY_NO_CACHE", None)

    def probe() -> dict[str, bool]:
        r = run(["-c", EP_PROBE], env, tmp_path)
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)

    assert probe() == {"listed": True, "read": True}  # first: read, and kept
    assert probe() == {"listed": True, "read": False}  # the same distributions: from the cache
    info = site / "eppaper_dist-0.1.dist-info"
    (info / "entry_points.txt").write_text("[dptheory.papers]\n")  # edited in place: the group is empty
    assert probe() == {"listed": False, "read": True}
    (info / "entry_points.txt").write_text("[dptheory.papers]\neppaper = eppaper\n")
    assert probe() == {"listed": True, "read": True}
    (tmp_path / "attic").mkdir()  # not on sys.path (the working folder is)
    info.rename(tmp_path / "attic" / info.name)  # the distribution removed
    assert probe() == {"listed": False, "read": True}
    (tmp_path / "attic" / info.name).rename(info)  # and installed again
    assert probe() == {"listed": True, "read": True}
    assert probe() == {"listed": True, "read": False}


def test_the_distributions_stamp_covers_what_entry_points_are_read_from(tmp_path, monkeypatch):
    """:func:`dptheory.catalog.distributions_stamp` changes with a distribution added, an ``entry_points.txt``
    rewritten with the same size (its time), a folder of ``sys.path`` holding one and its place; not with a folder
    that does not exist; and is None under a distribution finder other than the standard one (the entry points are
    then always read)."""
    from dptheory.catalog import distributions_stamp

    site = write(tmp_path / "site", {"a_dist-1.0.dist-info/entry_points.txt": "[dptheory.papers]\na = a\n"})
    monkeypatch.setattr(sys, "path", [str(site)])
    # the importlib_metadata backport (dask imports it) replaces the standard finder by its own, which searches
    # sys.path the same way: the stamp stays, whichever of the two a process has
    monkeypatch.setattr(sys, "meta_path", [f for f in sys.meta_path if type(f).__module__ != "importlib_metadata"])
    first = distributions_stamp()
    assert first is not None and distributions_stamp() == first
    ep = site / "a_dist-1.0.dist-info" / "entry_points.txt"
    st = ep.stat()
    ep.write_text("[dptheory.papers]\nb = b\n")  # same size
    os.utime(ep, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    second = distributions_stamp()
    assert second != first
    write(site, {"b_dist-1.0.dist-info/entry_points.txt": "[dptheory.papers]\nb = b\n"})
    assert distributions_stamp() not in (first, second)
    third = distributions_stamp()
    other = write(tmp_path / "other", {"a_dist-1.0.dist-info/entry_points.txt": "[dptheory.papers]\nb = b\n"})
    monkeypatch.setattr(sys, "path", [str(site), str(other)])  # another folder: the same names, first one wins
    assert distributions_stamp() not in (first, second, third)
    monkeypatch.setattr(sys, "path", [str(other), str(site)])  # the other one first
    assert distributions_stamp() not in (first, second, third)
    monkeypatch.setattr(sys, "path", [str(site), str(tmp_path / "absent")])
    assert distributions_stamp() == third

    class Finder:
        @staticmethod
        def find_distributions(context=None):
            return iter(())

    standard = list(sys.meta_path)
    Finder.__module__, Finder.__qualname__ = "importlib_metadata", "MetadataPathFinder"
    monkeypatch.setattr(sys, "meta_path", [*standard, Finder()])
    assert distributions_stamp() == third
    Finder.__module__, Finder.__qualname__ = "zipapp_hook", "Finder"
    assert distributions_stamp() is None


@pytest.mark.parametrize("first", ["catalog", "get", "iterate"])
def test_two_plugins_registering_one_key_is_an_error(tmp_path, first):
    root = write(tmp_path / "plugins", {
        "dupa/__init__.py": '"""A."""\n', "dupa/theorems.py": DUP_THEOREMS.format(name="dupa", key="shared.thm1"),
        "dupb/__init__.py": '"""B."""\n', "dupb/theorems.py": DUP_THEOREMS.format(name="dupb", key="shared.thm1"),
    })
    probe = DUP_PROBE.format(first={"catalog": "REGISTRY.catalog()", "get": "dptheory.get('shared.thm1')",
                                    "iterate": "list(REGISTRY)"}[first])
    r = run(["-c", probe], env_for(str(root), tmp_path), tmp_path)
    assert r.returncode == 0, r.stderr
    want = dup_message("shared.thm1", ("dupa.theorems", str(root / "dupa" / "theorems.py")),
                       ("dupb.theorems", str(root / "dupb" / "theorems.py")))
    assert json.loads(r.stdout) == [["DuplicateKey", want]] * 3


@pytest.mark.parametrize("first", ["figure", "figures"])
def test_a_plugin_redefining_a_builtin_figure_is_an_error(tmp_path, first):
    root = write(tmp_path / "plugins", {
        "figplug/__init__.py": '"""A plugin re-registering a figure."""\n',
        "figplug/figures.py": DUP_FIGURE.format(figure="yeshokri22-fig1"),
    })
    call = "REGISTRY.figure('yeshokri22-fig1').title" if first == "figure" else "REGISTRY.figures()"
    probe = DUP_PROBE.format(first=call)
    r = run(["-c", probe], env_for(str(root), tmp_path), tmp_path)
    assert r.returncode == 0, r.stderr
    figures = str(REPO / "dptheory" / "papers" / "yeshokri22" / "figures.py")
    want = (f"figure 'yeshokri22-fig1' is registered twice: by dptheory.papers.yeshokri22.figures ({figures}) and "
            f"by figplug.figures ({root / 'figplug' / 'figures.py'})")
    assert json.loads(r.stdout) == [["DuplicateKey", want]] * 3


# ----------------------------------------------------------------------------- keys that are not strings
@pytest.mark.parametrize("key", [None, 3, ("rdp", "gaussian"), b"rdp.gaussian"])
def test_a_key_that_is_not_a_string_is_our_error(key):
    import dptheory
    from dptheory.core.errors import DPTheoryError, InvalidKey, UnknownKey

    with pytest.raises(InvalidKey) as info:
        dptheory.get(key)
    exc = info.value
    assert isinstance(exc, UnknownKey) and isinstance(exc, DPTheoryError)
    assert isinstance(exc, KeyError) and isinstance(exc, TypeError)
    assert str(exc) == (f"a registry key is a string such as 'rdp.gaussian' (see `dptheory list`); got {key!r} "
                        f"({type(key).__name__})")
    with pytest.raises(InvalidKey, match="a registry figure name is a string"):
        dptheory.REGISTRY.figure(key)


# ----------------------------------------------------------------------------- the command line's display
def test_cli_showwarning_prints_one_line(capsys):
    import warnings

    from dptheory.catalog import cli_showwarning
    from dptheory.core.errors import PaperImportWarning

    cli_showwarning(PaperImportWarning("paper package 'p' (/x/p/theorems.py, line 3) failed to import:\n  boom"),
                    PaperImportWarning, "/x/p/theorems.py", 3)
    cli_showwarning(UserWarning("other"), UserWarning, "f.py", 1)
    err = capsys.readouterr().err
    first = "dptheory: warning: paper package 'p' (/x/p/theorems.py, line 3) failed to import: boom"
    assert err.splitlines()[0] == first
    assert err.splitlines()[1:] == warnings.formatwarning("other", UserWarning, "f.py", 1).splitlines()


def test_cli_a_broken_paper_cli_module_is_a_one_line_warning(tmp_path):
    """A paper's broken cli.py is imported only when its command (or the whole help) is asked for, and is then a
    one-line warning naming it; a command of another paper never imports it."""
    root = write(tmp_path / "plugins", {"clibad/__init__.py": '"""A paper whose cli fails."""\n',
                                        "clibad/theorems.py": "", "clibad/cli.py": '"""cli"""\nimport nosuch_cli_dep\n',
                                        "mypaper/__init__.py": '"""x"""\n', "mypaper/theorems.py": "def f(:\n"})
    cli_warning = (f"dptheory: warning: paper package 'clibad' ({root / 'clibad' / 'cli.py'}, line 2) failed to "
                   "import: ModuleNotFoundError: No module named 'nosuch_cli_dep'")
    theorems_warning = (f"dptheory: warning: paper package 'mypaper' ({root / 'mypaper' / 'theorems.py'}, line 1) "
                        "failed to import: SyntaxError: invalid syntax")
    r = dptheory(env_for(str(root), tmp_path), tmp_path, "list")
    assert r.returncode == 0 and "yeshokri22.thm4_2" in r.stdout, r.stderr
    assert r.stderr.splitlines() == [theorems_warning], r.stderr
    r = dptheory(env_for(str(root), tmp_path), tmp_path, "--help")
    assert r.returncode == 0 and "yeshokri22" in r.stdout, r.stderr
    assert r.stderr.splitlines() == [cli_warning], r.stderr
