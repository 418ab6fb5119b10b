"""dptheory.verify.contract (a theorem's contract at seeded valid points) and the pytest plugin that runs it with
the claims of a paper (``pytest --dptheory PAPER_OR_FILE``, dptheory/pytest_plugin.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from dptheory.core import paperfile
from dptheory.core.registry import REGISTRY
from dptheory.verify.contract import MAX_FAILURES, check_contract, valid_points

EXAMPLE = Path(__file__).parents[1] / "dptheory" / "examples" / "my26.toml"


def _theorem(edit: tuple[str, str] | None = None, key: str = "my26.thm1"):
    text = EXAMPLE.read_text()
    if edit is not None:
        assert edit[0] in text
        text = text.replace(*edit, 1)
    return {t.key: t for t in paperfile.parse(text, source="my26.toml").theorems()}[key]


@pytest.mark.parametrize("key", ["lz26.thm1", "lz26.gaussian_calibration", "rdp.gaussian", "maurer04.kl_2sqrtn"])
def test_shipped_theorems_keep_their_contract(key: str) -> None:
    report = check_contract(REGISTRY.get(key))
    assert report.ok, report.failures
    assert len(report.points) == 12  # seeded: the same points on every machine
    assert report.points == check_contract(REGISTRY.get(key)).points


def test_the_example_paper_keeps_its_contract_and_each_slip_is_reported() -> None:
    """Mutations of the example file, one at a time, each caught by the contract (and the unmutated file passes)."""
    assert check_contract(_theorem()).ok
    wrong_sense = check_contract(_theorem(('z = "decreasing"', 'z = "increasing"')))
    assert not wrong_sense.ok and wrong_sense.failures[0].startswith("not increasing in z: ")
    assert len(wrong_sense.failures) == MAX_FAILURES + 1 and wrong_sense.failures[-1].startswith("... and ")
    never = _theorem(('{ when = "alpha > 1", reason = "the order exceeds 1" }',
                      '{ when = "alpha > 1000", reason = "the order exceeds 1000" }'))
    assert valid_points(never)[0] == [] and "alpha > 1000" in next(iter(valid_points(never)[1]))
    report = check_contract(never)
    assert report.failures == ("no valid point in 400 draws from the sample ranges: the conditions may never hold "
                               "there (most refused by: alpha > 1000)",)
    nan = check_contract(_theorem(('bound = "T*alpha/z**2"', 'bound = "T*log(1 - alpha)"'), key="my26.thm2"))
    assert not nan.ok and ("is nan" in nan.failures[0] or "no value at" in nan.failures[0]), nan.failures


def _pytest(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rf", *args],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)


@pytest.mark.heavy
def test_pytest_dptheory_collects_contracts_and_claims_of_a_paper_file(tmp_path: Path) -> None:
    """In a folder of its own (a researcher's repository), ``pytest --dptheory FILE`` runs one item per theorem
    contract, per known value and per claim; a claim the file gets wrong fails with the sentence and the verdict
    reached, a known value the theorem disagrees with fails with both numbers."""
    good = tmp_path / "my26.toml"
    good.write_text(EXAMPLE.read_text())
    bad = tmp_path / "bad.toml"
    bad.write_text(EXAMPLE.read_text().replace("my26", "bad26").replace('relation = ">"', 'relation = "<"')
                   .replace('value = "40"', 'value = "40.001"'))
    run = _pytest(tmp_path, "--dptheory", "my26.toml", "--dptheory", "bad.toml")
    out = run.stdout
    assert run.returncode == 1, out + run.stderr
    # per file: 2 contracts, 2 known values, 1 claim
    assert "2 failed, 8 passed" in out
    assert "FAILED bad.toml::bad26.C1::verdict" in out  # the file holds its items: an id pytest can run again
    assert "FAILED bad.toml::bad26.thm2::known value 1" in out and "relative error 2.5e-5 > 1e-40" in out
    assert "bad26.C1: expected certified, got falsified" in out and "the paper: Theorem 2 never improves" in out
    # one item again by its id, as pytest printed it (without --dptheory: a paper file given as a path is collected)
    again = _pytest(tmp_path, "-p", "no:xdist", "bad.toml::bad26.C1::verdict")
    assert again.returncode == 1 and "1 failed in" in again.stdout, again.stdout + again.stderr
    assert "FAILED bad.toml::bad26.C1::verdict" in again.stdout
    one = _pytest(tmp_path, "-p", "no:xdist", "--dptheory", "my26.toml", "my26.toml::my26.thm1")
    assert one.returncode == 0 and "2 passed in" in one.stdout, one.stdout  # the theorem's contract and known value
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml", "my26.toml"]  # nothing left behind


def test_a_paper_file_outside_the_collected_paths_keeps_its_items(tmp_path: Path) -> None:
    """``--dptheory`` names a file that pytest does not walk (outside ``testpaths``): its items are added all the same,
    once, under the target's name."""
    (tmp_path / "papers").mkdir()
    (tmp_path / "papers" / "my26.toml").write_text(EXAMPLE.read_text())
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_nothing.py").write_text("def test_one():\n    assert True\n")
    (tmp_path / "pytest.ini").write_text("[pytest]\ntestpaths = tests\n")
    run = _pytest(tmp_path, "-p", "no:xdist", "--dptheory", "papers/my26.toml")
    assert run.returncode == 0 and "6 passed in" in run.stdout, run.stdout + run.stderr


def test_an_unknown_target_is_a_usage_error_naming_it() -> None:
    from dptheory.pytest_plugin import objects_of

    with pytest.raises(pytest.UsageError, match=r"--dptheory nope26: not a paper file \(.toml\) nor a paper key "
                       "prefix; prefixes: dr18, "):
        objects_of("nope26")
    with pytest.raises(pytest.UsageError, match=r"--dptheory absent\.toml: cannot read paper file absent\.toml"):
        objects_of("absent.toml")


def test_a_shipped_prefix_runs_its_known_values(tmp_path: Path) -> None:
    """``pytest --dptheory rdp`` (a shipped family, from outside the repository) runs one item per row of the
    ``known_values.csv`` next to the modules that register it; none is skipped."""
    from dptheory.core.known_values import read_csv
    from dptheory.pytest_plugin import objects_of

    csv_path = Path(__file__).parents[1] / "dptheory" / "privacy" / "known_values.csv"
    rows = read_csv(csv_path, "privacy/known_values.csv")
    objs, got = objects_of("rdp")
    assert got is not None and [r["value"] for r in got] == [r["value"] for r in rows]
    assert [o.key for o in objects_of("mcallester99")[0]] == ["mcallester99"]  # a dotless key is its own prefix
    run = _pytest(tmp_path, "-p", "no:xdist", "--dptheory", "rdp", "-k", "known and value")
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"{len(rows)} passed, {len(objs)} deselected" in run.stdout, run.stdout
