"""docs/adding_a_paper.md, followed literally: a toy paper package, found by discovery, outside the tree and in it.

Every code block of the page whose first line is ``# file: <path>`` is written to a temporary folder;
``DPTHEORY_PATH`` points there; then, in fresh processes (discovery happens once per process), the
contract suite runs on the toy's theorem and ``dptheory show / eval / check / figure`` run on it. The
registry-wide tests (known values, the claim table) run on the toy found through ``DPTHEORY_PATH`` and on the
toy added in-tree, to a temporary copy of the repository in which only ``dptheory/papers/toy26/`` is new: a
paper's obligations live in its folder, so adding one touches no central file.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "adding_a_paper.md"
BLOCK = re.compile(r"```(?:python|toml|csv)\n# file: (?P<path>[\w/.]+)\n(?P<body>.*?)```", re.S)
TOY_FILES = {"toy26/__init__.py", "toy26/theorems.py", "toy26/claims.py", "toy26/figures.py", "toy26/known_values.py",
             "toy26/known_values.csv", "toy26/sentences.toml"}
#: the registry-wide tests, the toy's rows and sentences, and the coverage tests that a paper without its files fails
REGISTRY_WIDE = ["tests/test_known_values.py", "tests/test_claim_table.py", "-k",
                 "toy26 or every_registered or fast_row or generator_does_not or accounted"]


@pytest.fixture(scope="module")
def toy(tmp_path_factory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("papers")
    blocks = list(BLOCK.finditer(DOC.read_text()))
    assert {m["path"] for m in blocks} == TOY_FILES
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


def pytest_run(args: list[str], env: dict[str, str], cwd: Path) -> tuple[int, str]:
    r = run(["-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", *args], env, cwd)
    return r.returncode, r.stdout[-3000:] + r.stderr[-2000:]


def test_the_toys_known_values_are_its_generators_output(toy, tmp_path):
    """The page's known_values.csv is what its known_values.py writes (byte for byte)."""
    folder = Path(toy["DPTHEORY_PATH"]) / "toy26"
    shutil.copy(folder / "known_values.py", tmp_path / "known_values.py")
    r = run([str(tmp_path / "known_values.py")], toy, tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "known_values.csv").read_text() == (folder / "known_values.csv").read_text()


def test_registry_wide_tests_cover_the_toy_out_of_tree(toy):
    code, out = pytest_run(REGISTRY_WIDE, toy, REPO)
    assert code == 0, out
    assert int(re.search(r"(\d+) passed", out).group(1)) >= 7, out  # 2 rows, coverage, fast row, generators, ...


@pytest.fixture(scope="module")
def in_tree(toy, tmp_path_factory) -> Path:
    """A temporary copy of the repository with the toy added in-tree (``dptheory/papers/toy26/``, the page's
    files with in-tree imports), and nothing else changed."""
    root = tmp_path_factory.mktemp("repo")
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")
    for name in ("dptheory", "tests", "checks"):
        shutil.copytree(REPO / name, root / name, ignore=skip)
    for name in ("conftest.py", "pyproject.toml"):
        shutil.copy(REPO / name, root / name)
    src = Path(toy["DPTHEORY_PATH"]) / "toy26"
    dest = root / "dptheory" / "papers" / "toy26"
    dest.mkdir()
    for f in src.iterdir():
        if f.is_file():
            (dest / f.name).write_text(f.read_text().replace("from toy26.", "from dptheory.papers.toy26."))
    added = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()} - {
        p.relative_to(REPO).as_posix() for p in REPO.rglob("*") if p.is_file()}
    assert {a for a in added if "__pycache__" not in a} == {f"dptheory/papers/{f}" for f in TOY_FILES}
    return root


def _env(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "DPTHEORY_PATH"}
    return {**env, "PYTHONPATH": str(root)}


def test_registry_wide_tests_and_contracts_cover_the_toy_in_tree(in_tree):
    code, out = pytest_run([*REGISTRY_WIDE, "checks/test_contracts.py"], _env(in_tree), in_tree)
    assert code == 0, out
    assert int(re.search(r"(\d+) passed", out).group(1)) >= 13, out  # the registry-wide ones and the contracts
    assert "dptheory.papers.toy26" in run(["-c", "import dptheory.papers.toy26.claims as m; print(m.__name__)"],
                                          _env(in_tree), in_tree).stdout


def test_a_toy_without_its_obligations_fails_the_registry_wide_tests(in_tree, tmp_path):
    """Without known_values.csv and sentences.toml in its folder, the toy fails coverage and the claim table."""
    bare = tmp_path / "bare"
    shutil.copytree(in_tree, bare, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("known_values.csv", "known_values.py", "sentences.toml"):
        (bare / "dptheory" / "papers" / "toy26" / name).unlink()
    code, out = pytest_run(REGISTRY_WIDE, _env(bare), bare)
    assert code == 1, out
    assert "test_every_registered_theorem_has_an_independent_value" in out and "toy26.thm1" in out, out
    assert "test_every_registered_claim_is_accounted_for" in out and "toy26.C1" in out, out
