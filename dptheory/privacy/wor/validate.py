"""Without-replacement sampled Gaussian (WBK19, arXiv 1808.00087, Thm 9 / Cor 10): parameter checks and the
order limit of the mpmath and float64 kernels (one-line errors naming the parameter and what is accepted)."""

from __future__ import annotations

import numbers
from typing import Any, TypeAlias

import mpmath
import numpy as np
from numpy.typing import NDArray

from dptheory.core.errors import InvalidParameter, ParameterOutOfRange
from dptheory.core.validate import number_text, order_out_of_range

__all__ = ["MAX_INT_ORDER", "Real", "bad_parameter", "order_above_cap", "parse", "to_mpf", "validate_np"]

Real: TypeAlias = int | float | mpmath.mpf | str

MAX_INT_ORDER = 10**7  # the sum has alpha - 1 terms; larger integer orders are refused


def bad_parameter(where: str, name: str, value: Any, reason: str) -> InvalidParameter:
    return InvalidParameter(key=f"sampled_wor.{where}", name=name, value=number_text(value), reason=reason)


def order_above_cap(where: str, alpha: Any) -> ParameterOutOfRange:
    return order_out_of_range(f"sampled_wor.{where}", alpha, MAX_INT_ORDER, "WBK19 Thm 9 has alpha - 1 terms")


def to_mpf(value: Any, where: str, name: str) -> mpmath.mpf:
    if isinstance(value, (bool, np.bool_)):
        raise bad_parameter(where, name, value, "a boolean is not a number")
    try:
        if isinstance(value, numbers.Integral):
            return mpmath.mpf(int(value))
        if isinstance(value, (float, np.floating)):
            return mpmath.mpf(float(value))
        return mpmath.mpf(value)
    except (TypeError, ValueError) as exc:
        raise bad_parameter(where, name, value, "not a real number") from exc


def parse(alpha: Any, q: Any, z: Any, T: Any, where: str) -> tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf, mpmath.mpf]:
    a = to_mpf(alpha, where, "alpha")
    if not (mpmath.isfinite(a) and a > 1):
        raise bad_parameter(where, "alpha", alpha, "the Renyi order must be finite and > 1")
    if a >= MAX_INT_ORDER + 1:
        raise order_above_cap(where, alpha)
    qm = to_mpf(q, where, "q")
    if mpmath.isnan(qm) or not 0 <= qm <= 1:
        raise bad_parameter(where, "q", q, "the sampling fraction gamma = m/n must satisfy 0 <= q <= 1")
    zm = to_mpf(z, where, "z")
    if not (mpmath.isfinite(zm) and zm > 0):
        raise bad_parameter(where, "z", z, "the noise multiplier must be finite and > 0")
    tm = to_mpf(T, where, "T")
    if not (mpmath.isfinite(tm) and tm >= 0):
        raise bad_parameter(where, "T", T, "the number of steps must be finite and >= 0")
    return a, qm, zm, tm


def validate_np(a: NDArray, q: NDArray, z: NDArray, t: NDArray) -> None:
    for name, arr, ok, what in (
        ("alpha", a, np.isfinite(a) & (a > 1) & (a < MAX_INT_ORDER + 1), f"finite, > 1 and <= {MAX_INT_ORDER}"),
        ("q", q, (q >= 0) & (q <= 1), "in [0, 1] (the sampling fraction m/n)"),
        ("z", z, np.isfinite(z) & (z > 0), "finite and > 0"),
        ("T", t, np.isfinite(t) & (t >= 0), "finite and >= 0"),
    ):
        if not ok.all():
            k = int(np.argmin(ok))
            raise bad_parameter("rdp_np", name, float(arr[k]), f"must be {what} (flat index {k})")
