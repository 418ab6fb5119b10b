"""Without-replacement sampled Gaussian (WBK19, arXiv 1808.00087, Thm 9 / Cor 10): the mpmath kernels
:func:`log_b_mp`, :func:`rdp_mp` (package docstring: :mod:`dptheory.privacy.wor`)."""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from typing import Any

import mpmath
import numpy as np
from numpy.typing import NDArray

from dptheory.core.errors import NumericalFailure
from dptheory.numerics.logspace import LN10, kept_indices, runs
from dptheory.privacy.wor.terms import log_terms
from dptheory.privacy.wor.validate import MAX_INT_ORDER, Real, bad_parameter, order_above_cap, parse

__all__ = ["GUARD", "cgf_mp", "log_b_mp", "rdp_mp", "theorem_mp"]

GUARD = 10  # guard digits of the mp kernel
_CHUNK = 1 << 20  # float64 estimates of the mp kernel are made in chunks of this many terms


def _estimates(n: int, lg: float, lz: float, lo: int, hi: int) -> NDArray[np.float64]:
    j = np.arange(lo, hi, dtype=np.float64)
    lt, _ = log_terms(np.full(1, float(n)), np.full(1, lg), np.full(1, lz), j)
    return lt


def _kept_terms(n: int, lg: float, lz: float, digits: float) -> NDArray[np.int64]:
    """Indices ``j`` in ``2..n`` whose float64 estimate is within ``digits`` (divided by the count) of the largest."""
    return kept_indices(lambda lo, hi: _estimates(n, lg, lz, lo, hi), 2, n + 1, digits, _CHUNK)


def _log_b_int_mp(n: int, gm: mpmath.mpf, zm: mpmath.mpf, dps: int) -> mpmath.mpf:
    """``K(n) = log B_n`` (WBK19 Thm 9, Gaussian) at integer order ``n``, ``0 < gamma <= 1``, at ``dps`` digits."""
    if n < 2:
        return mpmath.mpf(0)
    with mpmath.workdps(20):
        lg, lz = float(mpmath.log(gm)), float(mpmath.log(zm))
        # size of the largest additive piece of any exponent: log Gamma(n+1) <= (n+1) log(n+1) (the log
        # binomial is a difference of log-gammas), |j log gamma| <= n |log gamma|, j(j-1)/(2z^2) <= n^2/(2z^2)
        pieces = (n + 1) * mpmath.log(n + 1) + n * abs(mpmath.log(gm)) + mpmath.mpf(n) ** 2 / (2 * zm**2) + 1
        log10_pieces = float(mpmath.log10(pieces))
    keep = _kept_terms(n, lg, lz, dps + GUARD + max(0.0, log10_pieces) + math.log10(n + 1.0) + 5)
    # an exponent error 10^-wp |E| is relative error 10^-wp |E| / K in K, and K >= max(l_max, 0)
    with np.errstate(all="ignore"):
        tops = [np.nanmax(_estimates(n, lg, lz, s, t), initial=-np.inf) for s, t in runs(keep)]
    top_est = max(tops)
    gain = math.log10(top_est) if top_est > 1 else 0.0  # +inf when float64 overflowed: then K is huge too
    extra = max(0.0, log10_pieces - min(gain, log10_pieces))
    wp = math.ceil(dps + GUARD + extra + math.log10(n + 1.0)) + 2
    with mpmath.workdps(wp):
        log_g = mpmath.log(gm)
        inv_2z2 = 1 / (2 * zm * zm)
        e2 = 2 * inv_2z2
        log_c2 = min(mpmath.log(4) + mpmath.log(mpmath.expm1(e2)), mpmath.log(2) + e2)
        lgn = mpmath.loggamma(n + 1)
        logs = []
        for start, stop in runs(keep):
            for j in range(start, stop):
                log_binom = lgn - mpmath.loggamma(j + 1) - mpmath.loggamma(n - j + 1)
                coef = log_c2 if j == 2 else mpmath.log(2) + j * (j - 1) * inv_2z2
                logs.append(log_binom + j * log_g + coef)
        top = max(logs)
        s = mpmath.fsum(mpmath.exp(v - top) for v in logs)  # in [1, number of terms]
        if not (mpmath.isfinite(s) and s >= 1):
            raise NumericalFailure(f"sampled_wor: Thm 9 sum gave {s} at alpha={n}, gamma={gm}, z={zm}")
        if top > 0:
            # exp(-top) below the working precision of s is dropped by the addition itself
            result = top + mpmath.log(s + mpmath.exp(-top)) if top < wp * LN10 + 10 else top + mpmath.log(s)
        else:
            result = mpmath.log1p(mpmath.exp(top) * s)
    return result


def log_b_mp(alpha: int, q: Real, z: Real) -> mpmath.mpf:
    """``K(alpha) = log B_alpha`` of WBK19 (arXiv 1808.00087) Theorem 9 for the Gaussian, integer ``alpha >= 1``.

    ``B_alpha`` is the bracket of Theorem 9 with ``eps(j) = j/(2 z^2)`` and ``eps(inf) = inf``
    (package docstring); ``K(1) = 0``. Returned at the caller's ``mpmath.mp.dps``.

    Raises:
        InvalidParameter: ``alpha`` not an integer >= 1, ``q`` outside ``[0, 1]``, ``z <= 0``.
    """
    dps = mpmath.mp.dps
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Integral) or alpha < 1:
        raise bad_parameter(
            "log_b_mp", "alpha", alpha, "Theorem 9 is stated for integer orders >= 1 (here a Python int)"
        )
    if alpha > MAX_INT_ORDER:
        raise order_above_cap("log_b_mp", alpha)
    with mpmath.workdps(dps + GUARD):
        _, qm, zm, _ = parse(2, q, z, 0, "log_b_mp")
        result = mpmath.mpf(0) if qm == 0 else _log_b_int_mp(int(alpha), qm, zm, dps)
    return +result


def rdp_mp(alpha: Real, q: Real, z: Real, T: Real) -> mpmath.mpf:
    """RDP bound at order ``alpha`` of ``T`` steps of the Gaussian mechanism on WOR batches (WBK19 Thm 9, Cor. 10).

    Wang, Balle, Kasiviswanathan 2019 (arXiv 1808.00087): replace-one neighbours, batches of ``m``
    distinct records out of ``n``, ``q = gamma = m/n``, ``z`` = noise std / replace-one l2 sensitivity.
    Integer orders: ``T log(B_alpha)/(alpha - 1)`` (Theorem 9); fractional orders: the Corollary 10
    interpolation of ``K = log B`` between ``floor(alpha)`` and ``floor(alpha) + 1``.

    Args:
        alpha: Renyi order, finite and > 1 (int, float or mpf).
        q: sampling fraction ``m/n`` in ``[0, 1]``.
        z: noise multiplier, finite and > 0.
        T: number of composed steps, finite and >= 0.

    Returns:
        The bound as an mpf at the caller's ``mpmath.mp.dps`` (0 for ``q = 0`` or ``T = 0``).

    Raises:
        InvalidParameter: a parameter outside its domain (the message names it).
        NumericalFailure: an order above ``MAX_INT_ORDER`` or a non-finite internal sum.
    """
    dps = mpmath.mp.dps
    with mpmath.workdps(dps + GUARD):
        am, qm, zm, tm = parse(alpha, q, z, T, "rdp_mp")
        if qm == 0 or tm == 0:
            return mpmath.mpf(0)
        result = tm * cgf_mp(am, qm, zm, dps) / (am - 1)
    return +result


def cgf_mp(am: Any, qm: Any, zm: Any, dps: int) -> mpmath.mpf:
    """Corollary 10's bound on the CGF at order ``alpha`` (``K(alpha)`` at integer orders), at the current
    working precision, for ``0 < q <= 1`` (``dps`` is the caller's precision, as in :func:`rdp_mp`)."""
    am, qm, zm = mpmath.mpf(am), mpmath.mpf(qm), mpmath.mpf(zm)
    f = int(mpmath.floor(am))
    t = am - f
    if t == 0:
        return _log_b_int_mp(f, qm, zm, dps + 2)
    return (1 - t) * _log_b_int_mp(f, qm, zm, dps + 2) + t * _log_b_int_mp(f + 1, qm, zm, dps + 2)


def theorem_mp(p: Mapping[str, Any]) -> mpmath.mpf:
    """The mpmath kernel of ``rdp.sampled_wor_gaussian`` (WBK19 Thm 9, Cor 10): :func:`rdp_mp` on its parameters."""
    return rdp_mp(p["alpha"], p["q"], p["z"], int(p["T"]))
