"""The runtime of the float64 kernels (vectorised, broadcasting; sums in chunks of the summation index)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dptheory.core.compile.base import check_sum_terms
from dptheory.core.errors import NumericalFailure

__all__ = ["np_namespace", "one_minus_product_np"]


_SPLIT = 134217729.0  # 2**27 + 1, Veltkamp splitting


def one_minus_product_np(a: Any, b: Any) -> np.ndarray:
    """1 - a*b in float64 without losing the digits of a*b when a*b is close to 1.

    Dekker's TwoProduct gives p + e == a*b exactly; then 1 - p is exact (Sterbenz, p in [1/2, 2])
    and 1 - a*b = (1 - p) - e to within one rounding. Near the step-size limits (eta*lam -> 1) the
    naive 1 - eta*lam loses up to all of its digits.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    p = a * b
    ca, cb = _SPLIT * a, _SPLIT * b
    ah = ca - (ca - a)
    al = a - ah
    bh = cb - (cb - b)
    bl = b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return (1.0 - p) - e


class _LazySpecial:
    """``scipy.special``, imported on first use: most compiled float64 kernels need none of it, and a
    closed-form ``dptheory eval`` should not pay for importing scipy (tests/test_cli_startup.py)."""

    def __getattr__(self, name: str) -> Any:
        import scipy.special

        return getattr(scipy.special, name)


def np_namespace() -> dict[str, Any]:
    sps = _LazySpecial()

    def _log1p_negprod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """log(1 - a b): log1p for a b < 1/2, log of the exact 1 - a b above (near a b = 1)."""
        x = a * b
        return np.where(x < 0.5, np.log1p(-x), np.log(one_minus_product_np(a, b)))

    def _fdiv(p: np.ndarray, q: np.ndarray) -> np.ndarray:
        return np.floor_divide(p, q)

    def _pow1p(t: np.ndarray, L: np.ndarray, E: np.ndarray) -> np.ndarray:
        return np.where(t > -1, np.exp(E * L), (1 + t) ** E)

    def _pow1pm1(t: np.ndarray, L: np.ndarray, E: np.ndarray) -> np.ndarray:
        return np.where(t > -1, np.expm1(E * L), (1 + t) ** E - 1)

    def _nmin(*xs: Any) -> np.ndarray:
        out = xs[0]
        for x in xs[1:]:
            out = np.minimum(out, x)
        return out

    def _nmax(*xs: Any) -> np.ndarray:
        out = xs[0]
        for x in xs[1:]:
            out = np.maximum(out, x)
        return out

    def _nchunks(lo: Any, hi: Any, shape: tuple[int, ...]) -> Any:
        lo_a, hi_a = np.asarray(lo), np.asarray(hi)
        if lo_a.size == 0 or hi_a.size == 0:
            return
        start, stop = int(np.min(lo_a)), int(np.max(hi_a))
        check_sum_terms(start, stop)
        width = max(1, (1 << 20) // max(1, math.prod(shape)))
        for c in range(start, stop + 1, width):
            yield np.arange(c, min(stop, c + width - 1) + 1, dtype=np.float64)

    def _lse_update(m: np.ndarray, s: np.ndarray, k: np.ndarray, g: np.ndarray, mask: np.ndarray) -> tuple:
        """One chunk of the online shifted sum: m = max g, s = sum expm1(g - m), k = count."""
        g = np.where(mask, g, -np.inf)
        gm = np.max(g, axis=-1)
        m_new = np.maximum(m, gm)
        finite = np.isfinite(m_new)
        shift = np.where(finite & np.isfinite(m), m - np.where(finite, m_new, 0.0), 0.0)
        # rescale: expm1(g - m') = (1 + expm1(g - m)) e^{-(m'-m)} - 1, summed over the k old terms
        s = np.where(k > 0, s * np.exp(shift) + k * np.expm1(shift), 0.0)
        d = g - np.where(finite, m_new, 0.0)[..., None]
        s = s + np.sum(np.where(mask, np.expm1(d), 0.0), axis=-1)
        k = k + np.sum(mask, axis=-1)
        return m_new, s, k

    return {
        "_np": np,
        "_sps": sps,
        "_fdiv": _fdiv,
        "_pow1p": _pow1p,
        "_pow1pm1": _pow1pm1,
        "_nmin": _nmin,
        "_nmax": _nmax,
        "_nchunks": _nchunks,
        "_lse_update": _lse_update,
        "_log1p_negprod": _log1p_negprod,
        "_NF": NumericalFailure,
    }
