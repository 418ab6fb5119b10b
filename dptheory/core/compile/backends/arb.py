"""The runtime of the arb kernels (python-flint balls at the current ``flint.ctx.prec``)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from dptheory.core.compile.base import Undecided, check_sum_terms, informative_ball, require_flint
from dptheory.core.errors import NumericalFailure

__all__ = ["arb_namespace"]


def arb_namespace() -> dict[str, Any]:
    """The runtime of the arb kernels. Every comparison, floor and branch raises :class:`Undecided` unless the
    balls decide it; a nan ball (python-flint's "no information", e.g. ``log`` of a ball reaching 0) or a ball
    of infinite radius never decides anything (only an exact infinity compares)."""
    flint = require_flint()

    arb = flint.arb

    def _R(x: Any) -> Any:
        return x if isinstance(x, arb) else arb(x)

    return {
        "_arb": arb,
        "_R": _R,
        **_comparisons(_R),
        **_integers(_R),
        **_powers(arb, _R),
        **_reductions(arb, _R),
        "_comb": math.comb,
        "_NF": NumericalFailure,
    }


def _undecided(what: str, *balls: Any) -> Undecided:
    return Undecided(f"{what} is undecided on the balls {', '.join(str(b) for b in balls)}")


def _informative(what: str, a: Any, b: Any) -> None:
    """Refuse to compare a nan ball or one of infinite radius (an exact +-inf is a value and compares)."""
    if not (informative_ball(a) and informative_ball(b)):
        raise _undecided(what, a, b)


def _comparisons(_R: Callable[[Any], Any]) -> dict[str, Callable[..., Any]]:
    """The comparisons of the emitted conditions (two Python ints compare exactly)."""

    def _lt(a: Any, b: Any) -> bool:
        if isinstance(a, int) and isinstance(b, int):
            return a < b
        a, b = _R(a), _R(b)
        _informative("a < b", a, b)
        if a < b:
            return True
        if a >= b:
            return False
        raise _undecided("a < b", a, b)

    def _le(a: Any, b: Any) -> bool:
        if isinstance(a, int) and isinstance(b, int):
            return a <= b
        a, b = _R(a), _R(b)
        _informative("a <= b", a, b)
        if a <= b:
            return True
        if a > b:
            return False
        raise _undecided("a <= b", a, b)

    def _gt(a: Any, b: Any) -> bool:
        return _lt(b, a)

    def _ge(a: Any, b: Any) -> bool:
        return _le(b, a)

    def _eq(a: Any, b: Any) -> bool:
        if isinstance(a, int) and isinstance(b, int):
            return a == b
        a, b = _R(a), _R(b)
        _informative("a == b", a, b)
        if not a.overlaps(b):
            return False
        if a.is_exact() and b.is_exact():
            return bool(a == b)
        raise _undecided("a == b", a, b)

    def _ne(a: Any, b: Any) -> bool:
        return not _eq(a, b)

    return {"_lt": _lt, "_le": _le, "_gt": _gt, "_ge": _ge, "_eq": _eq, "_ne": _ne}


def _integers(_R: Callable[[Any], Any]) -> dict[str, Callable[..., Any]]:
    """Exact integers from balls: conversions, floors, integer division, summation ranges."""

    def _as_int(x: Any) -> Any:
        """An exact integer ball as a Python int; other balls stay balls."""
        if isinstance(x, int):
            return x
        x = _R(x)
        if x.is_exact() and x.is_integer():
            return int(x.unique_fmpz())
        return x

    def _afloor(x: Any) -> Any:
        if isinstance(x, int):
            return x
        if x.is_exact():
            return int(x.floor().unique_fmpz())
        if not x.is_finite() or x.contains_integer():
            raise _undecided("floor", x)
        return int(x.floor().unique_fmpz())

    def _aceil(x: Any) -> Any:
        return -_afloor(-_R(x))

    def _fdiv(p: Any, q: Any) -> Any:
        if isinstance(p, int) and isinstance(q, int):
            return p // q
        return _afloor(_R(p) / _R(q))

    def _irange(lo: Any, hi: Any) -> range:
        if not (isinstance(lo, int) and isinstance(hi, int)):
            raise _undecided("a summation limit (not an exact integer)", _R(lo), _R(hi))
        check_sum_terms(lo, hi)
        return range(lo, hi + 1)

    return {"_as_int": _as_int, "_afloor": _afloor, "_aceil": _aceil, "_fdiv": _fdiv, "_irange": _irange}


def _powers(arb: Any, _R: Callable[[Any], Any]) -> dict[str, Callable[..., Any]]:
    """Powers, rigorous on every ball (see :func:`arb_namespace` for flint issue 426)."""

    def _ipow(x: Any, n: int) -> Any:
        """x^n for an integer n, rigorous on every ball. ``ball ** n`` is used where it is finite; python-flint
        0.9 returns nan for a ball with midpoint 0 (``arb(0, 1)**2``, flint issue 426), where the power is
        taken from the ends instead: x^n is increasing in x for odd n, and in |x| for even n, so with exact
        ends L <= x <= U (odd) or |x| <= U (even) the range lies in [L^n, U^n] (odd) or [0, U^n] (even)."""
        if not isinstance(x, arb):
            return x**n if n >= 0 else 1 / _R(x) ** -n
        if n < 0:
            return 1 / _ipow(x, -n)  # a ball containing 0 gives a nan (undecided), never a number
        y = x**n
        if y.is_finite() or not x.is_finite() or n == 0:
            return y
        if n % 2:
            return (x.lower() ** n).union(x.upper() ** n)
        return arb(0).union(x.abs_upper() ** n)

    def _apow(x: Any, e: Any) -> Any:
        """x^e: an exact integer exponent (a Python int or an exact integer ball) through :func:`_ipow`;
        otherwise the ball power (nan, i.e. undecided, where x reaches 0 or below)."""
        if isinstance(e, arb) and e.is_exact() and e.is_integer():
            e = int(e.unique_fmpz())
        if isinstance(e, int):
            return _ipow(_R(x), e)
        return _R(x) ** e

    def _pow1p(t: Any, L: Any, E: Any) -> Any:
        if _R(t) > -1:
            return (E * L).exp()
        return _apow(1 + t, E)  # rigorous for every ball; only the accuracy differs

    def _pow1pm1(t: Any, L: Any, E: Any) -> Any:
        if _R(t) > -1:
            return (E * L).expm1()
        return _apow(1 + t, E) - 1

    return {"_ipow": _ipow, "_apow": _apow, "_pow1p": _pow1p, "_pow1pm1": _pow1pm1}


def _reductions(arb: Any, _R: Callable[[Any], Any]) -> dict[str, Callable[..., Any]]:
    """min, max and binomial coefficients of balls."""

    def _amin(*xs: Any) -> Any:
        out = _R(xs[0])
        for x in xs[1:]:
            out = out.min(_R(x))
        return out

    def _amax(*xs: Any) -> Any:
        out = _R(xs[0])
        for x in xs[1:]:
            out = out.max(_R(x))
        return out

    def _abin(x: Any, k: int) -> Any:
        if k < 0:
            return arb(0)
        return _R(x).bin(int(k))

    def _acomb(n: int, k: int) -> Any:
        # a ball around C(n, k) at the working precision (the exact big integer costs O(n) digits per term)
        if 0 <= k <= n < 2**62:
            return arb.bin_uiui(n, k)
        return _R(math.comb(n, k))

    def _abinr(x: Any, k: Any) -> Any:
        x, k = _R(x), _R(k)
        return ((x + 1).lgamma() - (k + 1).lgamma() - (x - k + 1).lgamma()).exp()

    return {"_amin": _amin, "_amax": _amax, "_abin": _abin, "_acomb": _acomb, "_abinr": _abinr}
