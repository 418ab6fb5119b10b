"""``dptheory.core.symbolic.prove_zero``: a rational identity is proved by ``sympy.cancel`` alone (the cheap route most
derivation steps take), anything else by ``sympy.simplify`` as before, and a nonzero difference is never proved."""

from __future__ import annotations

import pytest
import sympy as sp

from dptheory.core import symbolic
from dptheory.core.symbolic import SymbolicVerdict, prove_zero

x, y = sp.symbols("x y", positive=True)


def _no_simplify(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("simplify called")

    monkeypatch.setattr(symbolic.sp, "simplify", refuse)


def test_a_rational_identity_is_proved_without_simplify(monkeypatch: pytest.MonkeyPatch) -> None:
    _no_simplify(monkeypatch)
    # a telescoping difference of fractions, with an exponential as one of the atoms
    expr = 1 / (x * (x + 1)) - (1 / x - 1 / (x + 1)) + sp.exp(y) * (x**2 - y**2) / (x - y) - sp.exp(y) * (x + y)
    res = prove_zero(expr, "telescoping")
    assert res.verdict is SymbolicVerdict.PROVED and res.detail == "telescoping: simplifies to 0"


def test_an_identity_beyond_rational_functions_goes_to_simplify() -> None:
    calls = []
    simplify = sp.simplify

    def spy(e: sp.Expr) -> sp.Expr:
        calls.append(e)
        return simplify(e)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(symbolic.sp, "simplify", spy)
        res = prove_zero(sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1, "Pythagoras")
    assert res.verdict is SymbolicVerdict.PROVED and len(calls) == 1


@pytest.mark.parametrize("expr", [1 / (x * (x + 1)) - 1 / x + 1 / (x + 2), x**2 - y**2 - (x - y) ** 2])
def test_a_nonzero_difference_is_not_proved(expr: sp.Expr) -> None:
    assert prove_zero(expr, "not an identity").verdict is not SymbolicVerdict.PROVED


def test_when_cancel_cannot_treat_the_expression_simplify_decides(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(e: sp.Expr) -> sp.Expr:
        raise sp.PolynomialError("not a rational function")

    monkeypatch.setattr(symbolic.sp, "cancel", fail)
    assert prove_zero((x + 1) ** 2 - x**2 - 2 * x - 1, "square").verdict is SymbolicVerdict.PROVED
    assert prove_zero((x + 1) ** 2 - x**2, "not a square").verdict is SymbolicVerdict.DISPROVED
