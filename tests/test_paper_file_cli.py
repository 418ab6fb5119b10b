"""``--paper FILE``: a researcher's paper file outside any package, read by every command (theorems as formulas,
claims checked), and the refusals (one line, exit 1 for a bad file, 2 for a malformed command line)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import mpmath
import pytest

from dptheory.cli import main
from dptheory.core.registry import REGISTRY

DATA = Path(__file__).parents[1] / "dptheory" / "examples" / "my26.toml"  # the example the README runs


@pytest.fixture
def spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The paper file copied into an empty working folder."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(DATA, tmp_path / "my26.toml")
    return tmp_path / "my26.toml"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_eval_show_list_and_check_read_the_file(spec: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "eval", "--paper", "my26.toml", "my26.thm1", "alpha=10", "z=2", "T=3", "--json")
    assert code == 0
    # T alpha / (2 z^2) = 30/8, computed apart (the bound is written in LaTeX in the file)
    assert mpmath.mpf(json.loads(out)["value"]) == mpmath.mpf(30) / 8
    code, out, _ = _run(capsys, "show", "my26.thm2", "--paper=my26.toml")
    assert code == 0 and "A looser bound" in out and "defined in: my26.toml" in out
    code, out, _ = _run(capsys, "list", "my26", "--paper", "my26.toml")
    assert code == 0 and "my26.thm1" in out and "my26.thm2" in out
    code, out, _ = _run(capsys, "check", "--paper", "my26.toml", "--json")
    assert code == 0
    [row] = json.loads(out)["claims"] if isinstance(json.loads(out), dict) else json.loads(out)
    assert row["claim"] == "my26.C1" and row["verdict"] == "certified"
    assert sorted(p.name for p in spec.parent.iterdir()) == ["my26.toml"]  # nothing left behind
    # the file is read for one command: its keys are gone afterwards (another command may read another version)
    assert not [obj.key for obj in REGISTRY.registered() if obj.key.startswith("my26.")]


def test_a_claim_the_file_gets_wrong_is_a_finding(spec: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Reversing the claim (Thm 2 below Thm 1) is falsified, against the verdict on record: exit 3."""
    spec.write_text(spec.read_text().replace('relation = ">"', 'relation = "<"'))
    code, out, err = _run(capsys, "check", "--paper", "my26.toml")
    assert code == 3 and "falsified" in out and "my26.C1" in err


@pytest.mark.parametrize(
    ("edit", "argv", "code", "message"),
    [
        (None, ["check", "--paper", "absent.toml"], 1, "cannot read paper file absent.toml: No such file"),
        (('key = "my26.thm1"', 'key = "rdp.gaussian"'), ["list", "--paper", "my26.toml"], 1,
         "my26.toml: [[theorem]] rdp.gaussian: the key is already declared"),
        (('bound = "T*alpha/z**2"', 'bound = "__import__(\'os\').getcwd()"'), ["list", "--paper", "my26.toml"], 1,
         "my26.toml: [[theorem]] my26.thm2: field 'bound': \"__import__('os').getcwd\" is not an allowed function"),
        (("[[claim]]", "[[claims]]"), ["list", "--paper", "my26.toml"], 1,
         "my26.toml: the file: unknown field 'claims'"),
        (None, ["check", "--paper"], 2, "--paper needs a FILE"),
        (None, ["check", "--paper", "my26.toml", "--workers", "2"], 1, "drop --workers/--scheduler"),
    ],
)
def test_a_bad_paper_file_is_one_line(spec: Path, capsys: pytest.CaptureFixture[str],
                                      edit: tuple[str, str] | None, argv: list[str], code: int, message: str) -> None:
    if edit is not None:
        assert edit[0] in spec.read_text()
        spec.write_text(spec.read_text().replace(*edit, 1))
    got, _, err = _run(capsys, *argv)
    assert got == code and message in err and err.count("\n") == 1, err


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (('{ when = "alpha > 1", reason = "the order exceeds 1" }',
          '{ when = "alpha > 1000", reason = "the order exceeds 1000" }'),
         "[[theorem]] my26.thm1: field 'conditions': no point of the sample ranges satisfies them in 200 draws "
         "(most refused by: alpha > 1000)"),
        (('bound = "T*alpha/z**2"', 'bound = "T*log(1 - alpha)"'),
         "[[theorem]] my26.thm2: field 'bound': cannot be evaluated (the expression is complex here"),
    ],
)
def test_a_theorem_that_can_never_be_evaluated_is_a_one_line_warning(
        spec: Path, capsys: pytest.CaptureFixture[str], edit: tuple[str, str], message: str) -> None:
    """Conditions no sampled point satisfies, or a bound that is complex where they hold: the file still loads (a
    search is not a proof), with a one-line warning naming the file, the theorem and the field."""
    assert edit[0] in spec.read_text()
    spec.write_text(spec.read_text().replace(*edit, 1))
    code, _, err = _run(capsys, "list", "my26", "--paper", "my26.toml")
    warned = [line for line in err.splitlines() if line.startswith("dptheory: warning: my26.toml: ")]
    assert code == 0 and len(warned) == 1 and message in warned[0], err
