"""Poisson-subsampled Gaussian (MTZ19, arXiv 1908.10530, Sec. 3.3): parameter checks and limits of the mpmath and
float64 kernels (one-line errors naming the parameter and what is accepted)."""

from __future__ import annotations

from typing import Any, TypeAlias

import mpmath
import numpy as np
from numpy.typing import NDArray

from dptheory.core.errors import ParameterOutOfRange
from dptheory.core.validate import number_text as _num
from dptheory.core.validate import order_out_of_range, to_mpf
from dptheory.privacy.orders import renyi_order

__all__ = [
    "HUGE_NOISE_MIN_Z",
    "HUGE_NOISE_RATIO",
    "MAX_INT_ORDER",
    "Real",
    "check_qz",
    "check_steps",
    "order_above_cap",
    "parse_order",
    "parse_point",
    "validate_np",
]

Real: TypeAlias = int | float | mpmath.mpf

MAX_INT_ORDER = 10**8  # the kernels refuse larger orders (the cost of the series grows like alpha)
HUGE_NOISE_MIN_Z = 1e4  # item 5: the huge-noise regime needs z >= this ...
HUGE_NOISE_RATIO = 1e-10  # ... and alpha q <= HUGE_NOISE_RATIO z


def parse_order(alpha: Any, where: str) -> tuple[int | None, mpmath.mpf]:
    """Return ``(n, alpha)`` with ``n`` the exact integer order when alpha is integer-valued: a Rényi order
    (:func:`~dptheory.privacy.orders.renyi_order`) up to :data:`MAX_INT_ORDER`."""
    a = renyi_order(alpha, where)
    if a > MAX_INT_ORDER:
        raise order_above_cap(where, alpha)
    if mpmath.isint(a):
        return int(a), a
    return None, a


def order_above_cap(where: str, alpha: Any) -> ParameterOutOfRange:
    return order_out_of_range(
        where,
        alpha,
        MAX_INT_ORDER,
        "the exact binomial sum at integer orders, and its head at fractional ones, needs about alpha terms",
    )


def check_qz(q: Any, z: Any, where: str) -> tuple[mpmath.mpf, mpmath.mpf]:
    try:
        qm, zm = to_mpf(q), to_mpf(z)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: q and z must be real numbers, got q={_num(q)}, z={_num(z)}") from exc
    if mpmath.isnan(qm) or not 0 <= qm <= 1:
        raise ValueError(f"{where}: sampling probability q must satisfy 0 <= q <= 1, got q={_num(q)}")
    if not mpmath.isfinite(zm) or not zm > 0:
        raise ValueError(f"{where}: noise multiplier z must be finite and > 0, got z={_num(z)}")
    return qm, zm


def parse_point(alpha: Any, q: Any, z: Any, where: str) -> tuple[int | None, mpmath.mpf, mpmath.mpf, mpmath.mpf]:
    """``(n, alpha, q, z)`` of a point of ``A_alpha(q, z)`` (MTZ19 Sec. 3.3): :func:`parse_order` (``n`` the
    exact integer order or None), then :func:`check_qz`, with their errors in that order."""
    n, am = parse_order(alpha, where)
    qm, zm = check_qz(q, z, where)
    return n, am, qm, zm


def check_steps(T: Any, where: str) -> mpmath.mpf:
    try:
        t = to_mpf(T)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: number of steps T must be a real number >= 0, got T={_num(T)}") from exc
    if not mpmath.isfinite(t) or not t >= 0:
        raise ValueError(f"{where}: number of steps T must be finite and >= 0, got T={_num(T)}")
    return t


def validate_np(a: NDArray, q: NDArray, z: NDArray, t: NDArray) -> None:
    for name, arr, ok, what in (
        ("alpha", a, np.isfinite(a) & (a > 1), "finite and > 1"),
        ("q", q, (q >= 0) & (q <= 1), "in [0, 1]"),
        ("z", z, np.isfinite(z) & (z > 0), "finite and > 0"),
        ("T", t, np.isfinite(t) & (t >= 0), "finite and >= 0"),
    ):
        if not ok.all():
            k = int(np.argmin(ok))
            raise ValueError(f"rdp_np: {name} must be {what}; got {name}={_num(arr.flat[k])} at flat index {k}")
    if (a > MAX_INT_ORDER).any():
        k = int(np.argmax(a > MAX_INT_ORDER))
        raise order_above_cap(f"rdp_np (flat index {k})", a.flat[k])
