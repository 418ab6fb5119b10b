"""dptheory.core.paperfile and dptheory.core.expressions: theorems as data (``[[theorem]]`` tables), formulas parsed
without running code, and the refusals (one line naming the file, the theorem and the field, and what is accepted)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest
import sympy as sp

from dptheory.core import paperfile
from dptheory.core.errors import DPTheoryError
from dptheory.core.expressions import ExpressionError, parse_latex, parse_text
from dptheory.core.known_values import disagreement
from dptheory.core.registry import REGISTRY
from dptheory.core.theorem import Theorem
from dptheory.core.units import Direction, Monotone

PACKAGE = "dptheory.papers.lz26"  # where the kernels a toy theorem names resolve

#: the toy paper file the tests edit (data, read as text)
GOOD = (Path(__file__).parent / "data" / "paperfile_theorems_toy.toml").read_text(encoding="utf-8")

def _toy(text: str = GOOD) -> paperfile.PaperFile:
    return paperfile.parse(text, source="toy.toml", package=PACKAGE)


def _line_of(text: str, start: str, after: str = "") -> int:
    """The number of the first line of ``text`` that starts with ``start`` (after the first line starting with
    ``after``): the line a message must name, found apart from the locator."""
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith(after)) if after else 0
    return next(i + 1 for i, line in enumerate(lines) if i >= first and line.lstrip().startswith(start))


def _named(message: str, text: str, source: str = "toy.toml") -> str:
    """The line of ``text`` that the one-line ``message`` (``FILE:LINE: ...``) names."""
    head, _, _ = message.partition(": ")
    assert head.startswith(source + ":"), message
    return text.splitlines()[int(head.removeprefix(source + ":")) - 1]


def test_a_theorem_table_builds_the_theorem_python_would() -> None:
    """The table gives the Theorem a Python declaration builds (same sympy trees, same fields), and its value is the
    closed form computed apart, in exact rationals."""
    thm1, thm2 = _toy().theorems()
    alpha, sigma, T = thm1.notation.symbols("alpha", "sigma", "T")
    assert isinstance(thm1, Theorem) and thm1.key == "toy26.thm1" and thm1.citation.equation == "3"
    assert sp.srepr(thm1.bound) == sp.srepr(T * (alpha / (2 * sigma**2)))
    assert sp.srepr(thm1.conditions[0].relation) == sp.srepr(alpha > 1) and thm1.conditions[0].gloss
    assert thm1.direction is Direction.EXACT and thm1.monotone == {"T": Monotone.INCREASING,
                                                                   "sigma": Monotone.DECREASING}
    assert sp.srepr(thm1.terms["rate"].expr) == sp.srepr(alpha / (2 * sigma**2))
    # LaTeX and sympy text of the same formula give the same tree
    assert sp.srepr(thm2.bound) == sp.srepr(thm1.bound)
    assert sp.srepr(thm2.conditions[0].relation) == sp.srepr(thm1.conditions[0].relation)
    assert sp.srepr(thm2.statement[0].lhs) == sp.srepr(T / 2)
    # the value, against exact arithmetic: T alpha / (2 sigma^2) at alpha = 7/2, sigma = 3/2, T = 10
    expected = Fraction(10) * Fraction(7, 2) / (2 * Fraction(3, 2) ** 2)
    value = thm1.evaluate({"alpha": "3.5", "sigma": "1.5", "T": 10}, dps=30).value
    with mpmath.workdps(40):  # relative 1e-28: the 30 digits asked for, less two
        assert abs(value - mpmath.mpf(expected.numerator) / expected.denominator) < mpmath.mpf(10) ** -28 * value


def test_the_shipped_theorems_declared_as_data_come_from_their_files() -> None:
    """lz26 and the RDP baselines are declared in their TOML files; the registered objects are the files' theorems
    (mutation: a theorem declared again in Python would be another object, with its own fields)."""
    from dptheory.papers.lz26 import theorems as L
    from dptheory.privacy import rdp

    for module, filename in ((L, "paper.toml"), (rdp, "rdp.toml")):
        declared = paperfile.load(module.__name__, filename).theorems()
        assert declared, module.__name__
        for thm in declared:
            registered = REGISTRY.get(thm.key)
            assert sp.srepr(registered.bound) == sp.srepr(thm.bound)
            assert [sp.srepr(c.relation) for c in registered.conditions] == [sp.srepr(c.relation)
                                                                            for c in thm.conditions]
            assert registered.notes == thm.notes and registered.params == thm.params
    # an independent value of a data theorem: rdp.gaussian is T alpha / (2 z^2) (Mironov 2017, Prop. 7)
    assert REGISTRY.get("rdp.gaussian").value({"alpha": 10, "z": 2, "T": 3}) == mpmath.mpf(30) / 8


@pytest.mark.parametrize(
    "formula",
    [
        "__import__('os').system('touch PWNED')",
        "alpha.__class__.__bases__",
        "getattr(alpha, 'x')",
        "eval('1')",
        "(lambda: 1)()",
        "[x for x in (1, 2)]",
        "alpha[0]",
        "'text'",
        "f'{alpha}'",
        "alpha if T else sigma",
        "log(alpha, base=2)",
        "log(*T)",
        "alpha == 2",
        "1 < alpha < 2",
        "x + 1",
        "alpha; import os",
    ],
)
def test_a_formula_that_is_not_arithmetic_in_the_declared_names_is_refused_and_runs_nothing(
        formula: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    text = GOOD.replace('bound = "T*RATE"', f"bound = {formula!r}".replace("\\'", "'"))
    assert formula in text or formula.replace("'", '"') in text
    with pytest.raises(DPTheoryError) as info:
        _toy(text).theorems()
    message = str(info.value)
    assert message.startswith(f"toy.toml:{_line_of(text, 'bound = ')}: [[theorem]] toy26.thm1: field 'bound': ")
    assert "\n" not in message
    assert "accepted: " in message
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("latex", "message"),
    [
        ("\\hat R + \\alpha", "the symbol 'R' is not declared"),
        ("f(\\alpha)", "the function f is not allowed"),
        ("\\sin(\\alpha)", "the function sin is not allowed"),
        ("\\frac{1}{", "not LaTeX sympy can read"),
    ],
)
def test_a_latex_formula_outside_the_declared_names_is_refused(latex: str, message: str) -> None:
    with pytest.raises(DPTheoryError, match="field 'bound_latex': " + message):
        _toy(GOOD.replace("bound_latex = '\\frac{T \\alpha}{2 \\sigma^{2}}'", f"bound_latex = '{latex}'")).theorems()


def test_parse_text_and_parse_latex_use_only_the_names_given() -> None:
    a = sp.Symbol("a", positive=True)
    assert parse_text("a**2/2 + log(a)", {"a": a}) == a**2 / 2 + sp.log(a)
    assert parse_latex("\\frac{a^{2}}{2} + \\ln(a)", {"a": a}) == a**2 / 2 + sp.log(a)
    for bad in ("b", "open('f')", "a.real"):
        with pytest.raises(ExpressionError):
            parse_text(bad, {"a": a})
    with pytest.raises(ExpressionError, match="empty formula"):
        parse_text("  ", {"a": a})


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('quantity = "RDP"\nmonotone', 'quantity = "RDP"\ncolour = "red"\nmonotone',
         "[[theorem]] toy26.thm1: unknown field 'colour'; accepted: key, title"),
        ('direction = "exact"', 'direction = "tight"',
         "[[theorem]] toy26.thm1: field 'direction' is 'tight'; accepted: one of 'upper', 'lower'"),
        ('monotone = { T = "increasing"', 'monotone = { T = "up"',
         "[[theorem]] toy26.thm1: field 'monotone' is {'T': 'up'}; accepted: a table parameter"),
        ('params = ["alpha", "sigma", "T"]\nconditions = [{ when = "alpha',
         'params = ["alpha", "s", "T"]\nconditions = [{ when = "alpha',
         "[[theorem]] toy26.thm1: field 'params' is 's'; accepted: a parameter of [notation.toy26]: alpha, sigma, T"),
        ('notation = "toy26"\nparams = ["alpha", "sigma", "T"]\nconditions = [{ when = "alpha',
         'notation = "toy99"\nparams = ["alpha", "sigma", "T"]\nconditions = [{ when = "alpha',
         "[[theorem]] toy26.thm1: field 'notation' is 'toy99'; accepted: a notation of this file: toy26"),
        ('{ when = "alpha > 1", reason = "the order exceeds 1" }', '{ when = "alpha > 1" }',
         "[[theorem]] toy26.thm1: condition 1: missing field 'reason'"),
        ('{ when = "alpha > 1", reason', '{ when = "alpha > 1", when_latex = "x", reason',
         "[[theorem]] toy26.thm1: condition 1: give exactly one of 'when' and 'when_latex'"),
        ('bound = "T*RATE"', 'bound = "T*RATE"\nbound_latex = "T"',
         "[[theorem]] toy26.thm1: give at most one of the fields 'bound' and 'bound_latex'"),
        ('key = "toy26.thm2"', 'key = "toy26.thm1"',
         "[[theorem]] toy26.thm1: field 'key' is 'toy26.thm1'; accepted: a key no other [[theorem]]"),
        ('RATE = "alpha/(2*sigma**2)"', 'RATE = "alpha/(2*tau**2)"',
         "[define.toy26]: RATE: the name 'tau' is not declared"),
        ('RATE = "alpha/(2*sigma**2)"', 'alpha = "2"',
         "[define.toy26]: field 'alpha' is '2'; accepted: a name that is not a parameter or a symbol already"),
        ("j = { integer = true", "j = { integr = true",
         "[symbols.toy26]: j: unknown field 'integr'; accepted: name, function, positive"),
        ('bound = "T*RATE"', 'bound = "T*RATE"\nkernels = { mp = "os.system", reason = "r" }',
         "[[theorem]] toy26.thm1: field 'kernels: mp' is 'os.system'; accepted: a function of the package "
         "(module.name in dptheory.papers.lz26)"),
        ('bound = "T*RATE"', 'bound = "T*RATE"\nkernels = { mp = "kernels.REASON", reason = "r" }',
         "field 'kernels: mp' is 'kernels.REASON'; accepted: a function of the package"),
        # a condition that sympy decides from the domains alone is refused (it says nothing at a point)
        ('{ when = "alpha > 1", reason', '{ when = "alpha > 0", reason',
         "[[theorem]] toy26.thm1: field 'conditions': 'alpha > 0' always holds (alpha is declared positive)"),
        # one that can never hold, in the researcher's terms (not sympy's folding)
        ('{ when = "alpha > 1", reason', '{ when = "alpha < 0", reason',
         "[[theorem]] toy26.thm1: field 'conditions': 'alpha < 0' can never hold (alpha is declared positive); "
         "accepted: a condition that holds at some point"),
        ("{ when_latex = '\\alpha > 1', reason", "{ when_latex = '\\alpha \\leq 0', reason",
         "[[theorem]] toy26.thm2: field 'conditions': '\\alpha \\leq 0' can never hold (alpha is declared positive)"),
        ('{ when = "alpha > 1", reason', '{ when = "T < 1", reason',
         "field 'conditions': 'T < 1' can never hold (T is declared positive integer)"),
        # conditions on one parameter that cannot hold together, decided symbolically (the second line names it)
        ('reason = "the order exceeds 1" }]\nbound = ', 'reason = "the order exceeds 1" },\n'
         '  { when = "alpha < 1/2", reason = "a slip" }]\nbound = ',
         "[[theorem]] toy26.thm1: field 'conditions': 'alpha > 1' and 'alpha < 1/2' can never hold together for "
         "alpha (declared positive; decided symbolically)"),
        ('reason = "the order exceeds 1" }]\nbound = ', 'reason = "the order exceeds 1" },\n'
         '  { when = "T > 3/2", reason = "two steps" }, { when = "T < 2", reason = "a slip" }]\nbound = ',
         "'T > 3/2' and 'T < 2' can never hold together for T (declared positive integer; decided symbolically)"),
    ],
)
def test_a_bad_theorem_is_refused_in_one_line_naming_file_theorem_and_field(old: str, new: str, message: str) -> None:
    assert old in GOOD
    text = GOOD.replace(old, new, 1)
    with pytest.raises(DPTheoryError) as info:
        _toy(text).theorems()
    assert message in str(info.value) and "\n" not in str(info.value)
    # the line named is one edited (mutation: a message without its line, or naming the table's header, fails)
    named = _named(str(info.value), text)
    assert any(part.strip() in named for part in new.splitlines() if part.strip() and part not in old), named


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('theorem = "toy26.thm1"\nparams = { alpha = "2" }\nvalue = "1"\nrel_tol = 1e-40\nmethod = "guess"\n'
         'source = "typed by hand here"', "method 'guess' is not one of transcription"),
        ('theorem = "toy26.thm1"\nparams = { alpha = 2.5 }\nvalue = "1"\nrel_tol = 1e-40\nmethod = "transcription"\n'
         'source = "typed by hand here"', "parameter alpha = 2.5 must be an integer or a decimal string"),
        ('theorem = "toy26.thm1"\nparams = { alpha = "2" }\nvalue = "1"\nrel_tol = 1e-3\nmethod = "transcription"\n'
         'source = "typed by hand here"', "rel_tol 0.001 is not in (0, 1e-30]"),
        ('theorem = "toy26.thm1"\nparams = { alpha = "2" }\nvalue = "1"\nmethod = "transcription"\n',
         "[[known_value]] number 1 (toy26.thm1): missing field 'source'"),
    ],
)
def test_a_bad_known_value_is_refused_in_one_line(table: str, message: str) -> None:
    text = GOOD + "\n[[known_value]]\n" + table + "\n"
    with pytest.raises(DPTheoryError) as info:
        _toy(text)
    assert message in str(info.value) and "\n" not in str(info.value)
    # the field's line (the table's header for a missing field), found apart from the locator
    field = "[[known_value]]" if "missing field" in message else message.split()[0]
    assert _named(str(info.value), text).startswith(field if field != "parameter" else "params"), str(info.value)


def test_a_known_value_table_is_the_row_a_csv_would_give() -> None:
    pf = _toy(GOOD + '\n[[known_value]]\ntheorem = "toy26.thm1"\nparams = { alpha = "3.5", sigma = "1.5", T = 10 }\n'
              'value = "7.7777777777777777777777777777777777777777777777778"\nrel_tol = 1e-40\n'
              'method = "transcription"\nsource = "T alpha/(2 sigma^2) = 35/4.5, by hand"\n')
    [row] = pf.known_value_rows
    assert row["key"] == "toy26.thm1" and row["term"] == "" and row["rel_tol"] == "1e-40"
    assert json.loads(row["params"]) == {"alpha": "3.5", "sigma": "1.5", "T": 10}
    thm = pf.theorems()[0]
    assert disagreement(row, thm) is None
    assert "relative error" in (disagreement({**row, "value": "7.78"}, thm) or "")


def test_a_notations_names_are_built_once_and_handed_out_as_copies(monkeypatch: pytest.MonkeyPatch) -> None:
    """``PaperFile.names`` parses a notation's definitions once for all the file's theorems (it was once per theorem),
    and each caller gets its own dict: a caller adding a name does not change what the next caller reads."""
    from dptheory.core import paperfile_theorems

    pf = _toy()
    calls: list[str] = []
    real = paperfile_theorems.formula_names
    monkeypatch.setattr(paperfile, "formula_names", lambda f, n: calls.append(n) or real(f, n))
    first = pf.names("toy26")
    first["extra"] = sp.Symbol("extra")
    second = pf.names("toy26")
    assert "extra" not in second and second == real(pf, "toy26")
    assert pf.theorems() and calls == ["toy26"]
