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


#: a region line of the example, edited to put the claim's region outside a domain or a condition
REGION = 'description = "alpha in [1.5, 64], z in [0.5, 8], T = 1..100"'


@pytest.mark.parametrize(
    ("edit", "argv", "code", "message"),
    [
        (None, ["check", "--paper", "absent.toml"], 1, "cannot read paper file absent.toml: No such file"),
        (('key = "my26.thm1"', 'key = "rdp.gaussian"'), ["list", "--paper", "my26.toml"], 1,
         "my26.toml: [[theorem]] rdp.gaussian: the key is already declared"),
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
    ("edit", "at", "message"),
    [
        # an unknown symbol
        (('bound = "T*alpha/z**2"', 'bound = "T*w"'), 'bound = "T*w"',
         "[[theorem]] my26.thm2: field 'bound': the name 'w' is not declared; accepted: the declared names"),
        (('bound = "T*alpha/z**2"', 'bound = "__import__(\'os\').getcwd()"'), "bound = ",
         "[[theorem]] my26.thm2: field 'bound': \"__import__('os').getcwd\" is not an allowed function"),
        (("[[claim]]", "[[claims]]"), "[[claims]]", "the file: unknown field 'claims'"),
        # a condition that can never hold: decided by the domains, or symbolically with the others
        (('when = "alpha > 1", reason = "the order exceeds 1" }]\nbound_latex',
          'when = "alpha < 0", reason = "the order exceeds 1" }]\nbound_latex'), 'when = "alpha < 0"',
         "[[theorem]] my26.thm1: field 'conditions': 'alpha < 0' can never hold (alpha is declared positive); "
         "accepted: a condition that holds at some point"),
        (('when = "alpha > 1", reason = "the order exceeds 1" }]\nbound_latex',
          'when = "alpha > 1", reason = "the order exceeds 1" },\n  { when = "alpha < 1/2", reason = "r" }]\n'
          'bound_latex'), 'when = "alpha < 1/2"',
         "[[theorem]] my26.thm1: field 'conditions': 'alpha > 1' and 'alpha < 1/2' can never hold together for alpha "
         "(declared positive; decided symbolically)"),
        # a bound that is complex or NaN where the conditions hold
        (('bound = "T*alpha/z**2"', 'bound = "sqrt(-T*alpha)"'), 'bound = "sqrt',
         "[[theorem]] my26.thm2: field 'bound': 'sqrt(-T*alpha)' is complex: sympy reads it as I*sqrt(T)*sqrt(alpha) "
         "(at alpha = "),
        (('bound = "T*alpha/z**2"', 'bound = "T*log(1 - alpha)"'), 'bound = "T*log',
         "[[theorem]] my26.thm2: field 'bound': 'T*log(1 - alpha)' is complex (69.62"),
        (('bound = "T*alpha/z**2"', 'bound = "0*log(0)"'), 'bound = "0*log',
         "[[theorem]] my26.thm2: field 'bound': '0*log(0)' is not a number (NaN)"),
        # a claim comparing two units
        (('rhs = { theorem = "my26.thm1", label = "Thm 1" }',
          'rhs = { constant = 2, label = "2 bits", unit = "bits" }'), "rhs = ",
         "[[claim]] my26.C1: field 'rhs': the sides have different units: lhs (my26.thm2 is in nats) and rhs "
         "(the constant is in bits)"),
        # a region outside a domain or a condition
        ((REGION, REGION + "\nfixed = { z = -1 }"), "fixed = ",
         "[[claim]] my26.C1: region: field 'fixed': z = -1 is outside the domain of z (declared positive); "
         "accepted: values where z > 0"),
        ((REGION, REGION + "\nfixed = { T = 2.5 }"), "fixed = ",
         "field 'fixed': T = 2.5 is outside the domain of T (declared positive integer)"),
        ((REGION, REGION + "\nranges = { z = [-1, 8, false] }"), "ranges = ",
         "field 'ranges': z = -1 (an end of the range) is outside the domain of z (declared positive)"),
        ((REGION, REGION + '\nfixed = { alpha = "0.5" }'), "fixed = ",
         "field 'fixed': alpha = 0.5 is outside the condition alpha > 1 of my26.thm2 (the order exceeds 1)"),
        ((REGION, REGION + '\nchoices = { alpha = [0.5, "0.9"] }'), "choices = ",
         "field 'choices': alpha = 0.5 is outside the condition alpha > 1 of my26.thm2"),
        (('intervals = { alpha = ["1.5", "64"]', 'intervals = { alpha = ["0.1", "0.9"]'), "intervals = ",
         "[[claim]] my26.C1: region: certify: field 'intervals': alpha in [0.1, 0.9] is outside the condition "
         "alpha > 1 of my26.thm2"),
    ],
)
def test_a_bad_paper_file_names_its_line_and_field(spec: Path, capsys: pytest.CaptureFixture[str],
                                                   edit: tuple[str, str], at: str, message: str) -> None:
    """Each refusal is one line ``FILE:LINE: TABLE: field ...; accepted: ...``, exit 1; the line is the first
    that contains ``at`` in the edited file (found here, apart from the locator)."""
    assert edit[0] in spec.read_text()
    text = spec.read_text().replace(*edit, 1)
    spec.write_text(text)
    line = next(i + 1 for i, ln in enumerate(text.splitlines()) if at in ln)
    got, _, err = _run(capsys, "list", "--paper", "my26.toml")
    assert got == 1 and err.count("\n") == 1 and err.startswith(f"dptheory: error: my26.toml:{line}: "), err
    assert message in err, err


def test_conditions_no_draw_satisfies_are_a_one_line_warning(spec: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Conditions no sampled point satisfies (sympy cannot decide a product): the file still loads (a search is
    not a proof, and the warning says so), with one line naming the file, the line, the theorem and the field."""
    edit = ('{ when = "alpha > 1", reason = "the order exceeds 1" }',
            '{ when = "alpha*z > 100000", reason = "a large product" }')
    text = spec.read_text().replace(*edit, 1)
    spec.write_text(text)
    line = next(i + 1 for i, ln in enumerate(text.splitlines()) if "alpha*z > 100000" in ln)
    code, _, err = _run(capsys, "list", "my26", "--paper", "my26.toml")
    warned = [ln for ln in err.splitlines() if ln.startswith(f"dptheory: warning: my26.toml:{line}: ")]
    assert code == 0 and len(warned) == 1, err
    assert ("[[theorem]] my26.thm1: field 'conditions': no point of the sample ranges satisfies them in 200 draws "
            "(most refused by: alpha*z > 100000)") in warned[0] and "a quick search, not a proof" in warned[0]
