"""Poisson-subsampled Gaussian (MTZ19, arXiv 1908.10530, Sec. 3.3): float64 log magnitudes of the series terms.

Used by both the float64 sums (:mod:`.float64`) and the mpmath kernel's term selection (:mod:`.mp`). Items
cited as "item n" are those of the package docstring (:mod:`dptheory.privacy.sgm`). Also the CVZ weights
(Cohen, Rodriguez Villegas, Zagier 2000, Algorithm 1) in float64 and mpmath.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import mpmath
import numpy as np

from dptheory.numerics.logspace import LOG2, SQRT2, log_abs_binom, log_expm1

if TYPE_CHECKING:
    from dptheory.core.evaluator import FloatArray

__all__ = [
    "cvz_weights_float",
    "cvz_weights_mp",
    "frac_log_terms",
    "frac_pieces",
    "int_log_terms",
    "mixed_scale",
    "split_point",
]



def int_log_terms(
    n: FloatArray, lq: FloatArray, l1q: FloatArray, z: FloatArray, lz: FloatArray, i: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Log of ``C(n,i) (1-q)^(n-i) q^i expm1((i^2-i)/(2z^2))`` (``i >= 2``) and its error scale."""
    logc, cs = log_abs_binom(n, i)
    with np.errstate(all="ignore"):
        c = (i * i - i) / (2.0 * z * z)
        lem = log_expm1(c, np.log(i * i - i) - LOG2 - 2.0 * lz)
        p1 = i * lq
        p2 = (n - i) * l1q
        lt = logc + p1 + p2 + lem
        scale = cs + np.abs(p1) + np.abs(p2) + np.abs(lem) + c
    return lt, scale


def frac_log_terms(
    a: FloatArray, lq: FloatArray, l1q: FloatArray, z: FloatArray, i: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Log magnitudes of ``s0_i`` and ``s1_i`` (package docstring) and a common error scale.

    The pieces come from :func:`frac_pieces`; the scale is each piece's error weighted by its
    share of ``s0 + s1`` (a negligible piece cannot spoil the sum).
    """
    logc, cs, s0, e0, s1, e1 = frac_pieces(a, lq, l1q, z, i)
    return logc + s0, logc + s1, cs + 1.0 + mixed_scale(s0, e0, s1, e1)


def mixed_scale(s0: FloatArray, e0: FloatArray, s1: FloatArray, e1: FloatArray) -> FloatArray:
    """Error scale of ``exp(s0) + exp(s1)``: each piece's scale weighted by its share of the sum."""
    with np.errstate(all="ignore"):
        top = np.maximum(s0, s1)
        top = np.where(np.isfinite(top), top, 0.0)
        w0 = np.exp(s0 - top)
        w1 = np.exp(s1 - top)
        return (np.where(w0 > 0, w0 * e0, 0.0) + np.where(w1 > 0, w1 * e1, 0.0)) / (w0 + w1)


def split_point(lq: FloatArray, l1q: FloatArray, z: FloatArray) -> FloatArray:
    """``z0 = z^2 log((1-q)/q) + 1/2`` (``lq = log q``, ``l1q = log(1-q)``): where the two one-sided integrands
    of ``A`` agree, the split point of the two-sided series (MTZ19 Sec. 3.3; package docstring)."""
    return z * z * (l1q - lq) + 0.5


def frac_pieces(
    a: FloatArray, lq: FloatArray, l1q: FloatArray, z: FloatArray, i: FloatArray, branch: str = "both"
) -> tuple[FloatArray, ...]:
    """``(log|C(a,i)|, its scale, log|s0_i / C|, its scale, log|s1_i / C|, its scale)``.

    Each ``exp(c) * Phi(x)`` factor is evaluated in whichever of two equivalent forms avoids
    cancellation. For ``x >= 0``, ``log_ndtr(x)`` lies in ``[-0.7, 0]`` and is used directly. For
    ``x < 0``, the Mills-ratio identity ``Phi(x) = phi(x) sqrt(pi/2) erfcx(-x/sqrt 2)`` makes the
    geometric factors collapse to ``(1-q)^alpha exp(-z0^2/(2z^2)) erfcx(-x/sqrt 2)/2``. That form
    has no large pieces of opposite sign. ``branch`` is passed to :func:`log_abs_binom`.
    """
    from scipy import special

    logc, cs = log_abs_binom(a, i, branch)
    with np.errstate(all="ignore"):
        z2 = z * z
        z0 = split_point(lq, l1q, z)
        hz = z0 * z0 / (2.0 * z2)
        mills_base = a * l1q - hz - LOG2
        # Error model. The rounding of z0 itself needs no term: A does not depend on the split point
        # (the two one-sided integrands agree at z0), so a consistently shifted z0 moves the s0 and
        # s1 sums in opposite directions. The Mills form uses i lq + (a-i) l1q + i L = a l1q, which
        # holds only for the exact L = l1q - lq; the mismatch is |i| eps (|lq| + |l1q|).
        ql = np.abs(lq) + np.abs(l1q)
        mills_err = np.abs(a * l1q) + 3.0 * hz

        x0 = (z0 - i) / z
        c0 = (i * i - i) / (2.0 * z2)
        lphi0 = special.log_ndtr(x0)
        d0 = i * lq + (a - i) * l1q + c0 + lphi0
        lx0 = np.log(special.erfcx(-x0 / SQRT2))
        m0 = mills_base + lx0
        s0 = np.where(x0 >= 0, d0, m0)
        e0 = np.where(
            x0 >= 0,
            np.abs(i * lq) + np.abs((a - i) * l1q) + c0 + np.abs(lphi0),
            mills_err + np.abs(lx0) + (np.abs(i) + 1.0) * ql,
        )

        j = a - i
        x1 = (j - z0) / z
        c1 = (j * j - j) / (2.0 * z2)
        lphi1 = special.log_ndtr(x1)
        d1 = j * lq + i * l1q + c1 + lphi1
        lx1 = np.log(special.erfcx(-x1 / SQRT2))
        m1 = mills_base + lx1
        s1 = np.where(x1 >= 0, d1, m1)
        e1 = np.where(
            x1 >= 0,
            np.abs(j * lq) + np.abs(i * l1q) + np.abs(c1) + np.abs(lphi1),
            mills_err + np.abs(lx1) + (np.abs(j) + 1.0) * ql,
        )
    return logc, cs, s0, e0, s1, e1


@functools.lru_cache(maxsize=64)
def cvz_weights_float(n: int) -> FloatArray:
    """Weights ``w_k`` (k < n) with ``sum_k w_k a_k ~ sum_k (-1)^k a_k`` (CVZ 2000, Algorithm 1)."""
    with mpmath.workdps(40):
        return np.array([float(w) for w in cvz_weights_mp(n)])


def cvz_weights_mp(n: int) -> list[mpmath.mpf]:
    """CVZ (2000) Algorithm 1 weights ``c_k / d_n`` at the current precision (signs included)."""
    d = (3 + mpmath.sqrt(8)) ** n
    d = (d + 1 / d) / 2
    b = mpmath.mpf(-1)
    c = -d
    out = []
    for k in range(n):
        c = b - c
        out.append(c / d)
        b = (k + n) * (k - n) * b / ((k + mpmath.mpf(1) / 2) * (k + 1))
    return out
