"""Fast start (issue 13, item 1): ``--help``, ``--version`` and ``list`` import no sympy, scipy or numpy, and a
command imports only the paper it needs (through the registry index, ``dptheory/papers/index.json``). Issue 22: a
theorem read back from the statement cache (:mod:`dptheory.core.snapshot`) is evaluated without sympy or its paper.

Each case runs in a fresh interpreter and reads ``sys.modules`` after the command; timing is measured by
``bench/bench_startup.py``, not here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("sympy", "scipy", "numpy", "mpmath", "matplotlib", "hypothesis", "dp_accounting")
PROBE = (
    "import sys\n"
    "from dptheory.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "print('CODE=%d' % code, file=sys.stderr)\n"
    f"print('MODULES=' + ','.join(sorted(m for m in sys.modules if m.split('.')[0] in {set(HEAVY)!r}"
    " or m.startswith('dptheory.papers.') or m == 'importlib.metadata')), file=sys.stderr)\n"
)


def modules_after(*argv: str, cache: Path | None = None) -> tuple[int, set[str]]:
    """Exit code and heavy modules of a command in a fresh interpreter; without ``cache`` the statement cache is off
    (the command builds its theorem), else ``cache`` is the cache's folder."""
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env.pop("DPTHEORY_PATH", None)
    if cache is None:
        env["DPTHEORY_NO_CACHE"] = "1"
    else:
        env.pop("DPTHEORY_NO_CACHE", None)
        env["DPTHEORY_CACHE_DIR"] = str(cache)
    proc = subprocess.run([sys.executable, "-c", PROBE, *argv], env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    lines = proc.stderr.splitlines()
    code = int(next(x for x in lines if x.startswith("CODE="))[5:])
    mods = next(x for x in lines if x.startswith("MODULES="))[8:]
    return code, set(filter(None, mods.split(",")))


@pytest.mark.parametrize("argv", [
    ["--help"], ["--version"], ["list"], ["list", "--claims"], ["list", "--all", "yeshokri22"], ["list", "--figures"],
    ["yeshokri22", "--help"], ["explore", "--help"], ["compare", "--help"], ["figure", "--help"],
    ["shi26", "fig1", "--help"], ["maxinfo", "bounds", "--help"],
])
def test_fast_commands_import_no_heavy_library(argv):
    code, mods = modules_after(*argv)
    heavy = sorted(m for m in mods if m.split(".")[0] in HEAVY)
    assert code == 0 and not heavy, heavy
    loaded = sorted(m for m in mods if m.startswith("dptheory.papers.") and not m.endswith((".cli",))
                    and m.count(".") > 2)
    assert not loaded, loaded  # no paper's theorems, claims or figures


def test_eval_loads_only_its_paper():
    code, mods = modules_after("eval", "yeshokri22.thm4_2", "alpha=10", "K=5", "eta=0.02", "lam=1", "beta=4",
                               "S_g=4", "sigma=2", "n=50", "b=2")
    assert code == 0 and "dptheory.papers.yeshokri22.theorems" in mods
    others = sorted(m for m in mods if m.startswith("dptheory.papers.") and m.count(".") > 2
                    and not m.startswith("dptheory.papers.yeshokri22.") and not m.endswith(".cli"))
    assert not others, others
    assert "scipy" not in mods  # a closed-form theorem needs neither scipy.stats nor scipy.special


EVAL_42 = ("eval", "yeshokri22.thm4_2", "alpha=10", "K=5", "eta=0.02", "lam=1", "beta=4", "S_g=4", "sigma=2", "n=50",
           "b=2")


@pytest.mark.parametrize("argv", [
    EVAL_42,
    ("eval", "rdp.subsampled_gaussian", "alpha=2.5", "q=0.04", "z=1", "T=2500"),
    ("convert", "rdp.subsampled_gaussian", "q=0.04", "z=1", "T=2500", "--delta", "1e-5"),
    ("sweep", "rdp.gaussian", "alpha=2..10:5", "z=2", "T=100"),
    ("compare", "rdp.gaussian", "rdp.subsampled_gaussian", "alpha=10", "z=2", "T=100", "q=0.01"),
    ("crossover", "rdp.subsampled_gaussian", "rdp.gaussian", "--over", "q", "--from", "0.01", "--to", "1", "alpha=10",
     "z=2", "T=100"),
])
def test_a_cached_theorem_is_evaluated_without_sympy_or_its_paper(argv, tmp_path):
    """The first run builds the theorem and writes its entry; the second reads it back: no sympy, no paper module
    (eval: not even numpy), and the installed distributions' entry points are not read again."""
    code, first = modules_after(*argv, cache=tmp_path)
    assert code == 0 and "sympy" in first
    code, mods = modules_after(*argv, cache=tmp_path)
    papers = sorted(m for m in mods if m.startswith("dptheory.papers.") and m.count(".") > 2 and not m.endswith(".cli")
                    and not m.endswith((".kernels",)))
    assert code == 0 and "sympy" not in mods and not papers, (sorted(m for m in mods if "sympy" in m)[:3], papers)
    if "scipy.special" not in mods:  # (which imports importlib.metadata itself)
        assert "importlib.metadata" not in mods  # the entry points are kept in the cache too (dptheory.catalog)
    if argv[0] == "eval" and argv[1].startswith("yeshokri22"):
        assert not {"numpy", "scipy"} & mods


def test_a_generic_key_loads_no_paper():
    code, mods = modules_after("eval", "rdp.gaussian", "alpha=2", "z=1", "T=1")
    papers = sorted(m for m in mods if m.startswith("dptheory.papers.") and m.count(".") > 2
                    and not m.endswith(".cli"))
    assert code == 0 and not papers, papers


def test_an_unknown_key_falls_back_to_discovery():
    """A key missing from the index is still found by full discovery (papers found through DPTHEORY_PATH)."""
    code, mods = modules_after("show", "no.such_key")
    assert code == 1 and "dptheory.papers.shi26.theorems" in mods  # it looked everywhere before giving up


def test_list_shows_papers_outside_the_index(tmp_path):
    """A paper found through DPTHEORY_PATH is not in the index: `list` imports it and lists it with the rest."""
    import re

    doc = (ROOT / "docs" / "adding_a_paper.md").read_text()
    for m in re.finditer(r"```python\n# file: (?P<path>[\w/.]+)\n(?P<body>.*?)```", doc, flags=re.S):
        f = tmp_path / m["path"]
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(m["body"])
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DPTHEORY_PATH": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "dptheory", "list", "--all", "--json"], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    rows = {r["key"]: r for r in json.loads(proc.stdout)}
    assert rows["toy26.thm1"]["kind"] == "theorem" and "yeshokri22.thm4_2" in rows
    assert rows["toy26.C1"]["kind"] == "claim" and rows["toy26.C1"]["verdict"]
    assert rows["toy26-fig1"]["kind"] == "figure"


def _commands(parser) -> dict:
    import argparse

    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return sub.choices


def _described(parser) -> list:
    """Everything a parser (and its sub-parsers) reads and prints: help, and each action's kind, options, default,
    choices and help, recursively."""
    import argparse

    out = [parser.prog, parser.format_help()]
    for a in parser._actions:
        out.append((type(a).__name__, a.dest, tuple(a.option_strings), repr(a.default), a.help, a.nargs, a.metavar))
        if isinstance(a, argparse._SubParsersAction):
            out += [(name, _described(p)) for name, p in a.choices.items()]
    return out


def test_a_command_line_builds_the_parser_of_its_command_as_the_whole_parser_has_it():
    """``build_parser(argv)`` builds only the command ``argv`` names (the others are skipped, see
    :func:`dptheory.cli.build_parser`); that command's parser is the whole parser's, option for option, for every
    command; a word that is no command gets the whole parser (its error lists every command)."""
    from dptheory.cli import UsageError, build_parser

    whole = _commands(build_parser())
    assert {"eval", "check", "figure", "explore", "yeshokri22", "shi26"} <= set(whole)
    for name, full in whole.items():
        built = _commands(build_parser([name, "--json"]))
        assert list(built) == [name], (name, list(built))
        assert _described(built[name]) == _described(full), name
    for argv in (["evl"], ["--debug"], []):
        assert list(_commands(build_parser(argv))) == list(whole), argv
    with pytest.raises(UsageError, match="invalid choice: 'evl' \\(choose from 'list', 'show', 'eval'"):
        build_parser(["evl"]).parse_args(["evl"])
