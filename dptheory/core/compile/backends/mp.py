"""The runtime of the mpmath kernels (the caller's precision; integer parameters are Python ints)."""

from __future__ import annotations

import math
from typing import Any

import mpmath

from dptheory.core.compile.base import check_sum_terms
from dptheory.core.errors import NumericalFailure

__all__ = ["mp_namespace"]


def mp_namespace() -> dict[str, Any]:
    m = mpmath

    def _R(x: Any) -> Any:
        return m.mpf(x)

    def _fdiv(p: int, q: int) -> int:
        return int(p) // int(q)

    def _pow1p(t: Any, L: Any, E: Any) -> Any:
        return m.exp(E * L) if t > -1 else (1 + t) ** E

    def _pow1pm1(t: Any, L: Any, E: Any) -> Any:
        return m.expm1(E * L) if t > -1 else (1 + t) ** E - 1

    def _out(x: Any) -> Any:
        if isinstance(x, m.mpc):
            if x.imag != 0:
                raise NumericalFailure(f"the expression is complex here ({x})")
            x = x.real
        return +m.mpf(x)

    def _mrange(lo: int, hi: int) -> range:
        check_sum_terms(lo, hi)
        return range(lo, hi + 1)

    return {
        "_m": m,
        "_R": _R,
        "_fdiv": _fdiv,
        "_mrange": _mrange,
        "_pow1p": _pow1p,
        "_pow1pm1": _pow1pm1,
        "_out": _out,
        "_comb": math.comb,
        "_NF": NumericalFailure,
    }
