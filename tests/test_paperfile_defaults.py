"""The defaults of a paper file (docs/your_own_theorem.md, the table after the file): what a researcher may leave out,
what each default is, and the one-line refusals of the short forms (``citation = "Theorem 23"``, ``where = {...}``)."""

from __future__ import annotations

import re

import pytest

from dptheory.catalog import load_paper_file
from dptheory.core import paperfile
from dptheory.core.claims import Verdict
from dptheory.core.errors import DPTheoryError
from dptheory.core.notation import Domain
from dptheory.core.registry import REGISTRY

SHORT = """
[paper.toy27]
authors = "A. Toy"
year = 2027
title = "Toy"

[[notation.toy27.param]]
name = "alpha"
meaning = "Renyi order"
domain = "positive"
range = [1.0, 100.0]
[[notation.toy27.param]]
name = "S_g"
meaning = "sensitivity"
domain = "positive"
[[notation.toy27.param]]
name = "n"
meaning = "records"
domain = "positive integer"
[[notation.toy27.param]]
name = "t"
meaning = "step"
domain = "positive integer"
range = [1, 5]
[[notation.toy27.param]]
name = "unused"
meaning = "a parameter no formula names"
domain = "real"

[[theorem]]
key = "toy27.thm1"
title = "A toy bound"
citation = "Theorem 1"
conditions = [{ when = "alpha > 1", reason = "an order above 1" }, { when = "t <= n", reason = "a step of the n" }]
bound = "alpha*S_g**2/(n - t + 1)"

[[known_value]]
theorem = "toy27.thm1"
params = { alpha = 2, S_g = 1, n = 4, t = 1 }
value = "0.5"
source = "re-typed by hand: 2 * 1 / 4"

[[claim]]
key = "toy27.C1"
citation = "Section 2"
statement = "earlier steps are better protected"
lhs = { theorem = "toy27.thm1", label = "first", set = { t = 1 } }
rhs = { theorem = "toy27.thm1", label = "last", set = { t = "n" } }
relation = "<="
where = { alpha = [2, 8], S_g = ["0.5", "2"], n = [2, 500] }
verdict = "certified"
"""


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """The short file loaded as ``--paper`` loads it; its keys withdrawn afterwards."""
    monkeypatch.chdir(tmp_path)

    def load(text: str = SHORT) -> list[str]:
        (tmp_path / "toy27.toml").write_text(text, encoding="utf-8")
        loaded = load_paper_file("toy27.toml")
        keys.extend(loaded.keys)
        return loaded.keys

    keys: list[str] = []
    yield load
    REGISTRY.withdraw(keys)


def test_a_parameter_defaults_its_latex_range_and_log_scale() -> None:
    pf = paperfile.parse(SHORT, source="toy27.toml")
    params = pf.notation("toy27").params
    assert params["alpha"].latex == r"\alpha" and params["S_g"].latex == "S_{g}"  # sympy's printing of the name
    assert params["alpha"].sample == (1.0, 100.0, True)  # a given range: log since it spans two decades
    assert params["t"].sample == (1, 5, False)  # a given range of less than two decades: linear
    assert params["S_g"].sample == (0.001, 1000.0, True)  # by domain
    assert params["n"].sample == (1, 1000, True)
    assert params["unused"].sample == (-1000.0, 1000.0, False)  # not positive: never log


def test_a_theorem_defaults_its_notation_params_direction_and_quantity(toy) -> None:
    toy()
    thm = REGISTRY.get("toy27.thm1")
    assert thm.params == ("alpha", "S_g", "n", "t")  # the formulas' parameters, in the notation's order
    assert str(thm.direction) == "upper" and thm.quantity == "the bound of Theorem 1"
    assert thm.citation.short().endswith("Theorem 1")


def test_a_known_value_defaults_to_a_transcription_at_its_loosest_tolerance(toy) -> None:
    (row,) = paperfile.parse(SHORT, source="toy27.toml").known_value_rows
    assert (row["method"], row["rel_tol"]) == ("transcription", "1e-30")


def test_a_claim_where_is_its_box_by_domain_with_the_set_parameter_free(toy) -> None:
    toy()
    claim = REGISTRY.get("toy27.C1")
    assert claim.reading == "first <= last" and claim.title == claim.reading
    box = claim.region.certify
    assert box is not None
    assert dict(box.intervals) == {"alpha": (2, 8), "S_g": ("0.5", "2")}  # real parameters: intervals
    assert dict(box.integers) == {"n": (2, 500)}  # an integer parameter: every integer
    assert dict(box.free) == {"t": 1}  # both sides set t: free, at the low end of its range
    assert set(box.log) == {"n"}  # bisected geometrically: the one range spanning two decades
    assert claim.region.describe() == "alpha in [2, 8], S_g in [0.5, 2], n = 2..500, any t allowed by the conditions"
    from dptheory.verify.checking import check_claim

    result = check_claim(claim)
    assert result.verdict is Verdict.CERTIFIED, result


def test_where_on_a_claim_decided_otherwise_gives_ranges_and_fixed_values_not_a_box(toy) -> None:
    text = SHORT.replace('verdict = "certified"', 'verdict = "not falsified"').replace(
        'where = { alpha = [2, 8], S_g = ["0.5", "2"], n = [2, 500] }', 'where = { alpha = [2, 8], S_g = 1 }')
    toy(text)
    region = REGISTRY.get("toy27.C1").region
    assert region.certify is None and dict(region.fixed) == {"S_g": 1} and dict(region.ranges) == {
        "alpha": (2.0, 8.0, False)}


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('n = [2, 500] }', 'n = [2, 500], beta = 1 }', "field 'where' is {'beta': 1}; accepted: parameters of the "
         "theorems compared: alpha, S_g, n, t"),
        ('S_g = ["0.5", "2"]', 'S_g = [0.5, 2]', "field 'where' is {'S_g': [0.5, 2]}; accepted: a value or "
         "[low, high], each an integer or a decimal string (exact: \"0.5\", not 0.5)"),
        ('n = [2, 500]', 'n = ["2", "50"]', "field 'where' is {'n': ['2', '50']}; accepted: [low, high] of two "
         "integers (n is declared positive integer)"),
        ('alpha = [2, 8]', 'alpha = [8, 2]', "field 'where' is {'alpha': [8, 2]}; accepted: [low, high] with "
         "low <= high"),
        (', n = [2, 500] }', ' }', "field 'where' gives no value or [low, high] for n; accepted: every parameter"),
        ('alpha = [2, 8]', 'alpha = ["0.25", "0.5"]', "field 'where': alpha in [0.25, 0.5] is outside the condition "
         "alpha > 1 of toy27.thm1"),
        ('citation = "Section 2"', 'citation = 2', "field 'citation' is 2; accepted: a table { paper, item"),
    ],
)
def test_a_bad_short_form_is_refused_in_one_line_at_its_line(toy, old: str, new: str, message: str) -> None:
    assert old in SHORT
    text = SHORT.replace(old, new, 1)
    with pytest.raises(DPTheoryError) as err:
        toy(text)
    shown = str(err.value)
    assert "\n" not in shown and message in shown, shown
    head, _, _ = shown.partition(": ")
    line = int(head.removeprefix("toy27.toml:"))
    assert new.strip(" }") in text.splitlines()[line - 1] or "missing" in shown or "gives no value" in shown, shown
    assert "toy27.thm1" not in REGISTRY  # all of the file or none of it


def test_where_and_region_together_and_a_short_citation_with_two_papers_are_refused() -> None:
    both = SHORT.replace('verdict = "certified"', 'verdict = "certified"\n[claim.region]\ndescription = "x"')
    with pytest.raises(DPTheoryError, match="give one of the fields 'where'"):
        paperfile.parse(both, source="toy27.toml")
    two = SHORT.replace("[[notation.toy27.param]]", '[paper.toy28]\nauthors = "B"\nyear = 2028\ntitle = "T"\n\n'
                        "[[notation.toy27.param]]", 1)
    with pytest.raises(DPTheoryError, match=r"toy27.C1: field 'citation' is 'Section 2'; accepted: a table \{ paper = "
                       r"KEY, item = \.\.\. \} when the file declares several papers"):
        paperfile.parse(two, source="toy27.toml")


def test_a_second_notation_table_needs_the_field_notation() -> None:
    two = SHORT + '\n[[notation.other.param]]\nname = "x"\nmeaning = "x"\ndomain = "real"\n'
    with pytest.raises(DPTheoryError, match=r"\[\[theorem\]\] toy27.thm1: missing field 'notation' \(the file "
                       r"declares 2 notation tables: other, toy27"):
        paperfile.parse(two, source="toy27.toml")


def test_domain_admits_is_the_domain_conditions_at_a_point() -> None:
    """Domain.admits (used by the training run's checks) agrees with the domain conditions a theorem renders."""
    from fractions import Fraction

    cases = {Domain.POSITIVE: [(Fraction(1, 2), True), (0, False)], Domain.POSITIVE_INTEGER: [(3, True),
             (Fraction(5, 2), False), (0, False)], Domain.NONNEGATIVE: [(0, True), (-1, False)],
             Domain.NONNEGATIVE_INTEGER: [(0, True), (Fraction(1, 2), False)], Domain.REAL: [(-7, True)],
             Domain.INTEGER: [(-7, True), (Fraction(1, 3), False)]}
    for domain, points in cases.items():
        for x, ok in points:
            assert domain.admits(x) is ok, (domain, x)


def test_a_parameter_name_formulas_cannot_use_is_refused_with_the_fix() -> None:
    """``lambda`` is a Python keyword: formulas could never name it (new-user run: accepted, then refused on the
    first formula with 'lambda' among the accepted names)."""
    for name in ("lambda", "log", "2x", "λ"):
        text = SHORT.replace('name = "S_g"', f'name = "{name}"').replace("S_g", "S")
        with pytest.raises(DPTheoryError) as err:
            paperfile.parse(text, source="toy27.toml")
        shown = str(err.value)
        assert f"field 'name' is {name!r}; accepted: a name formulas can use" in shown, shown
        assert "write lambda as name = \"lam\", latex = '\\lambda'" in shown and shown.startswith("toy27.toml:"), shown


def test_latex_reads_e_as_eulers_number_and_names_a_misspelled_command(toy) -> None:
    toy(SHORT.replace('bound = "alpha*S_g**2/(n - t + 1)"', "bound_latex = '\\alpha S_g^{2} e^{-t/n}'"))
    thm = REGISTRY.get("toy27.thm1")
    import sympy as sp

    assert thm.bound == thm.notation.sym("alpha") * thm.notation.sym("S_g") ** 2 * sp.exp(
        -thm.notation.sym("t") / thm.notation.sym("n"))
    for bad, message in (("\\farc{\\alpha}{n}", "\\farc is not a LaTeX command this reader knows nor a declared name "
                          "(did you mean \\frac?)"),
                         ("\\alpha \\sigam", "\\sigam is not a LaTeX command this reader knows nor a declared name "
                          "(did you mean \\sigma?)"),
                         ("\\alpha k", "the symbol 'k' is not declared")):
        text = SHORT.replace('bound = "alpha*S_g**2/(n - t + 1)"', f"bound_latex = '{bad}'")
        with pytest.raises(DPTheoryError) as err:
            paperfile.parse(text, source="toy27.toml").theorems()
        shown = str(err.value)
        assert message in shown, shown
        line = int(shown.partition(": ")[0].removeprefix("toy27.toml:"))
        assert text.splitlines()[line - 1].startswith("bound_latex = "), shown  # the field's line, not the header


def test_a_misspelled_name_in_sympy_text_suggests_the_declared_one() -> None:
    text = SHORT.replace('bound = "alpha*S_g**2/(n - t + 1)"', 'bound = "alpha*s_g**2/(N - t + 1)"')
    with pytest.raises(DPTheoryError, match=r"the name 's_g' is not declared \(did you mean S_g\?\)"):
        paperfile.parse(text, source="toy27.toml").theorems()


def test_a_known_value_may_be_a_formula_of_numbers_with_exact_decimals(toy) -> None:
    """A value computed by hand is written as the hand computation (evaluated at 60 digits; 0.5 is exactly 1/2):
    the theorem agrees to 1e-30 (a 16-digit decimal would not)."""
    from dptheory.core.known_values import disagreement

    text = SHORT.replace('params = { alpha = 2, S_g = 1, n = 4, t = 1 }\nvalue = "0.5"',
                         'params = { alpha = 3, S_g = "0.1", n = 7, t = 1 }\nvalue = "3*0.1**2/7"')
    toy(text)
    (row,) = paperfile.parse(text, source="toy27.toml").known_value_rows
    assert row["value"].startswith("0.0042857142857142857142857142857142857142857142857142857142857")
    assert disagreement(row, REGISTRY.get("toy27.thm1")) is None
    short = {**row, "value": "0.004285714285714286"}  # the float64 digits: 1e-16 off, refused with the fix
    shown = disagreement(short, REGISTRY.get("toy27.thm1"))
    assert shown is not None and "relative error" in shown and "give the value to 31 significant digits, or exactly " \
        "as a formula of numbers" in shown, shown
    for value, message in (("x + 1", "'x + 1' is neither a number nor a formula of numbers"),
                           ("log(-1)", "accepted: a number, or a formula of numbers with a finite real value")):
        with pytest.raises(DPTheoryError, match=re.escape(message)):
            paperfile.parse(text.replace('"3*0.1**2/7"', f'"{value}"'), source="toy27.toml")


LIMIT = """
[paper.toy30]
authors = "A. Toy"
year = 2030
title = "Toy"

[[notation.toy30.param]]
name = "alpha"
meaning = "Renyi order"
domain = "positive"
[[notation.toy30.param]]
name = "lam"
latex = '\\lambda'
meaning = "strong convexity"
domain = "positive"
[[notation.toy30.param]]
name = "eta"
meaning = "step size"
domain = "positive"
[[notation.toy30.param]]
name = "K"
meaning = "epochs"
domain = "positive integer"

[[theorem]]
key = "toy30.thm1"
title = "a bound that converges in K"
citation = "Theorem 1"
conditions = [{ when = "alpha > 1", reason = "an order above 1" }]
bound = "alpha/lam*(1 - exp(-lam*eta*K/2))"
limits = { K = "alpha/lam" }

[[claim]]
key = "toy30.C1"
citation = "Section 1"
statement = "the bound stays below its limit"
lhs = { theorem = "toy30.thm1", label = "Theorem 1" }
rhs = { theorem = "toy30.thm1", label = "its limit", limit = "K" }
relation = "<"
where = { alpha = [2, 8], lam = ["0.1", "1"], eta = ["0.01", "0.1"], K = [1, 1000] }
verdict = "certified"
"""


def test_a_theorem_states_its_limit_and_a_claim_compares_the_bound_with_it(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "toy30.toml").write_text(LIMIT, encoding="utf-8")
    keys = load_paper_file("toy30.toml").keys
    try:
        thm = REGISTRY.get("toy30.thm1")
        assert thm.limits["K"].expr == thm.notation.sym("alpha") / thm.notation.sym("lam")
        from dptheory.verify.checking import check_claim

        assert check_claim(REGISTRY.get("toy30.C1")).verdict is Verdict.CERTIFIED
    finally:
        REGISTRY.withdraw(keys)
    for old, new, message in (('limits = { K = "alpha/lam" }', 'limits = { T = "alpha/lam" }',
                               "field 'limits' is {'T': 'alpha/lam'}; accepted: a table parameter (of the notation)"),
                              ('limits = { K = "alpha/lam" }', 'limits = { K = "alpha/mu" }',
                               "field 'limits: K': the name 'mu' is not declared")):
        with pytest.raises(DPTheoryError, match=re.escape(message)):
            paperfile.parse(LIMIT.replace(old, new), source="toy30.toml").theorems()
