"""LaTeX formulas of a paper file: letters in a row are refused, not read as a silent product.

sympy's ``parse_latex`` reads ``nn`` as ``n*n`` and ``alpha`` (no backslash) as ``a*l*p*h*a``; a researcher who
typed ``t \\le nn`` for ``t \\le n`` would get a different theorem with no error (found by a new-user run of
docs/your_own_theorem.md). :func:`dptheory.core.expressions.parse_latex` refuses such runs naming them.
"""

from __future__ import annotations

import pytest
import sympy as sp

from dptheory.core.expressions import ExpressionError, parse_latex

n, t, alpha, L = sp.symbols("n t alpha L", positive=True)
NAMES = {"n": n, "t": t, "alpha": alpha, "L": L}
LATEX = {"n": "n", "t": "t", "alpha": r"\alpha", "L": "L"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (r"t \le nn", "'nn' is read by LaTeX as the product of the letters n n: write the factors apart"),
        (r"\frac{2 \alpha LL^{2}}{n}", "'LL' is read by LaTeX as the product of the letters L L"),
        (r"(nt + 1)", "'nt' is read by LaTeX as the product of the letters n t"),
        (r"alpha > 1", "'alpha' is read by LaTeX as the product of the letters a l p h a; write it as \\alpha"),
    ],
)
def test_letters_in_a_row_are_refused(text: str, message: str) -> None:
    with pytest.raises(ExpressionError) as exc:
        parse_latex(text, NAMES, LATEX)
    assert str(exc.value).startswith(message)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (r"\frac{2 \alpha L^{2}}{n - t + 1}", 2 * alpha * L**2 / (n - t + 1)),
        (r"n t + 1", n * t + 1),
        (r"n \cdot n", n**2),
        (r"t \leq n", sp.Le(t, n)),
        (r"\log(n) + \sqrt{t}", sp.log(n) + sp.sqrt(t)),
    ],
)
def test_commands_and_spaced_products_still_parse(text: str, expected: sp.Basic) -> None:
    assert sp.simplify(parse_latex(text, NAMES, LATEX) - expected) == 0 if not isinstance(expected, sp.Rel) \
        else parse_latex(text, NAMES, LATEX) == expected
