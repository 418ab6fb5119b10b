"""docs/adding_a_paper.md, followed literally: a toy paper package outside the tree, found by discovery.

Every code block of the page whose first line is ``# file: <path>`` is written to a temporary folder;
``DPTHEORY_PATH`` points there; then, in fresh processes (discovery happens once per process), the
contract suite runs on the toy's theorem and ``dptheory show / eval / check / figure`` run on it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "adding_a_paper.md"
BLOCK = re.compile(r"```python\n# file: (?P<path>[\w/.]+)\n(?P<body>.*?)```", re.S)


@pytest.fixture(scope="module")
def toy(tmp_path_factory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("papers")
    blocks = list(BLOCK.finditer(DOC.read_text()))
    assert {m["path"] for m in blocks} == {"toy26/__init__.py", "toy26/theorems.py", "toy26/claims.py",
                                           "toy26/figures.py"}
    for m in blocks:
        f = root / m["path"]
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(m["body"])
    env = {**os.environ, "DPTHEORY_PATH": str(root)}
    return env


def run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=600)


def test_cli_show_eval_check_figure(toy, tmp_path):
    r = run(["-m", "dptheory", "show", "toy26.thm1"], toy, tmp_path)
    assert r.returncode == 0, r.stderr
    assert "Toy & Example 2026" in r.stdout and "Theorem 1" in r.stdout
    r = run(["-m", "dptheory", "eval", "toy26.thm1", "alpha=2", "z=1", "T=10", "--json"], toy, tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["value"].startswith("10.000000")  # T alpha / (2 z^2) = 10
    r = run(["-m", "dptheory", "check", "--claim", "toy26.C1", "--json", "--no-progress"], toy, tmp_path)
    assert r.returncode == 0, r.stderr
    (res,) = json.loads(r.stdout)
    assert res["claim"] == "toy26.C1" and res["counterexample"] is None
    r = run(["-m", "dptheory", "figure", "toy26-fig1", "--out", str(tmp_path / "f.png")], toy, tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "f.png").stat().st_size > 1000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.png"]  # nothing else left behind


def test_contract_suite_runs_on_the_toy(toy, tmp_path):
    r = run(["-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", "-k", "toy26", str(REPO / "checks" /
             "test_contracts.py")], toy, REPO)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    passed = int(re.search(r"(\d+) passed", r.stdout).group(1))
    assert passed >= 6, r.stdout[-2000:]  # finite, float64 vs mpmath, statement, monotone (2), LaTeX, ...


def test_a_broken_toy_is_caught(toy, tmp_path):
    """The contract suite is not vacuous on the toy: a declared float64 override that disagrees with
    the statement fails it."""
    src = Path(toy["DPTHEORY_PATH"]) / "toy26" / "theorems.py"
    broken = tmp_path / "broken"
    (broken / "toy26").mkdir(parents=True)
    for f in src.parent.iterdir():
        if f.suffix == ".py":
            text = f.read_text()
            if f.name == "theorems.py":
                text = text.replace('    monotone={"T": "increasing", "z": "decreasing"},',
                                    '    np=lambda p: p["T"] * p["alpha"] / (3 * p["z"] ** 2),\n'
                                    '    kernel_reason="a deliberately wrong override",\n'
                                    '    monotone={"T": "increasing", "z": "decreasing"},')
                assert text != f.read_text()
            (broken / "toy26" / f.name).write_text(text)
    env = {**toy, "DPTHEORY_PATH": str(broken)}
    r = run(["-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", "-k", "toy26 and (float64 or override)",
             str(REPO / "checks" / "test_contracts.py")], env, REPO)
    assert r.returncode == 1 and "failed" in r.stdout, r.stdout[-2000:]
