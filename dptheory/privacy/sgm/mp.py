"""Poisson-subsampled Gaussian (MTZ19, arXiv 1908.10530, Sec. 3.3): the mpmath kernels :func:`log_a_mp`, :func:`rdp_mp`.

Integer orders: the exact positive-term binomial sum; fractional orders: the signed two-sided series with
adaptive precision; huge noise: the moment series. "Item n" refers to the package docstring
(:mod:`dptheory.privacy.sgm`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from typing import Any

import mpmath
import numpy as np
from numpy.typing import NDArray

from dptheory.core.errors import NumericalFailure
from dptheory.numerics.logspace import LN10, LOG2, kept, kept_indices, runs
from dptheory.privacy.sgm.terms import cvz_weights_mp, frac_log_terms, int_log_terms
from dptheory.privacy.sgm.validate import HUGE_NOISE_MIN_Z, HUGE_NOISE_RATIO, Real, check_steps, parse_point

__all__ = ["GUARD", "log_a_mp", "rdp_mp", "theorem_mp"]

_LOG_CVZ_RATE = math.log(3.0 + math.sqrt(8.0))
GUARD = 10  # base guard digits of the mp kernels
_MAX_EXTRA_DIGITS = 1500  # cap on adaptive precision above the caller's dps


def _float_params(qm: mpmath.mpf, zm: mpmath.mpf) -> tuple[float, float, float, float]:
    """``(log q, log1p(-q), z, log z)`` as floats (for term-size estimates only)."""
    with mpmath.workdps(20):
        return float(mpmath.log(qm)), float(mpmath.log1p(-qm)), float(zm), float(mpmath.log(zm))


def _int_estimates(n: int, lq: float, l1q: float, zf: float, lz: float, lo: int, hi: int) -> NDArray[np.float64]:
    i = np.arange(lo, hi, dtype=np.float64)
    lt, _ = int_log_terms(np.full(1, float(n)), np.full(1, lq), np.full(1, l1q), np.full(1, zf), np.full(1, lz), i)
    return lt


def _log_a_int_mp(n: int, qm: mpmath.mpf, zm: mpmath.mpf, dps: int) -> mpmath.mpf:
    """log A at integer order n: ``log1p(sum_{i>=2} C(n,i)(1-q)^(n-i) q^i expm1((i^2-i)/(2z^2)))``.

    All terms are positive, so no cancellation occurs. The binomials are exact Python integers.
    Terms that a float64 estimate puts more than ``dps + 60`` digits (divided by the number of
    terms) below the largest are skipped.
    """
    lq, l1q, zf, lz = _float_params(qm, zm)
    keep = kept_indices(lambda lo, hi: _int_estimates(n, lq, l1q, zf, lz, lo, hi), 2, n + 1, dps + 60)
    imax = int(keep.max())
    # exponent size: expm1(c) with c = (i^2 - i)/(2 z^2) carries relative error 10^-wp * c (log10 via lz: no overflow)
    log10_c = (math.log(imax * imax - imax) - LOG2 - 2.0 * lz) / LN10
    wp = dps + GUARD + math.ceil(max(log10_c, 0.0) + math.log10(n + 2.0)) + 1
    with mpmath.workdps(wp):
        one_m_q = 1 - qm
        two_z2 = 2 * zm * zm
        terms = []
        for start, stop in runs(keep):
            binom = math.comb(n, start)
            for i in range(start, stop):
                if i > start:
                    binom = binom * (n - i + 1) // i
                terms.append(mpmath.mpf(binom) * one_m_q ** (n - i) * qm**i * mpmath.expm1((i * i - i) / two_z2))
        s = mpmath.fsum(terms)
        if not mpmath.isfinite(s) or s < 0:
            raise NumericalFailure(f"log_a_mp: integer-order sum gave {s} at alpha={n}, q={qm}, z={zm}")
        result = mpmath.log1p(s)
    return result


def _log_ncdf(x: mpmath.mpf) -> mpmath.mpf:
    """``log Phi(x)`` (standard normal CDF) at the current precision.

    For ``x > 3`` this is ``log1p(-Phi(-x))``. ``Phi(-x) < exp(-x^2/2)`` is then computed only to the
    digits that matter, which avoids mpmath's slow ``1 - erfc`` path.
    """
    if x > 3:
        digits = mpmath.mp.dps - float(x * x) / (2 * LN10) + 5
        if digits < 1:
            return mpmath.mpf(0)  # |log Phi(x)| < 10^-(dps+5)
        with mpmath.workdps(max(15, math.ceil(digits))):
            t = mpmath.ncdf(-x)
        return mpmath.log1p(-t)
    return mpmath.log(mpmath.ncdf(x))


def _frac_series_mp(
    am: mpmath.mpf,
    qm: mpmath.mpf,
    zm: mpmath.mpf,
    i0: int,
    head: NDArray[np.int64],
    wp: int,
    estimate: Callable[[NDArray[np.float64]], tuple[NDArray[np.float64], NDArray[np.float64]]],
) -> tuple[mpmath.mpf, mpmath.mpf, float, int]:
    """One evaluation of ``A - 1`` from the signed MTZ19 series at ``wp`` digits (package docstring, item 4).

    ``A - 1 = S - (1 - s0_0 - s0_1)`` where ``S`` is the series without its two terms of size 1
    (``s0_0``, ``s0_1``), and ``1 - s0_0 - s0_1`` is summed from its three positive closed-form parts
    (:func:`_am1_constant_mp`). ``estimate(i)`` gives float64 log magnitudes of ``s0_i`` and ``s1_i``
    (``-inf`` for ``s0_0`` and ``s0_1``). A piece more than ``wp + 3`` digits (divided by the number of
    terms) below the largest head term of ``S`` is skipped. Other pieces are computed with as many
    digits as their size relative to that term requires. The CVZ sum stays within its error bound plus
    the sum of the skipped pieces. Returns ``(A - 1, sum of |contributions|, largest exponent
    magnitude, number of terms)``.
    """
    with mpmath.workdps(wp):
        lq = mpmath.log(qm)
        l1q = mpmath.log1p(-qm)
        z2 = zm * zm
        two_z2 = 2 * z2
        z0 = z2 * (l1q - lq) + mpmath.mpf(1) / 2
        comp_max = 0.0
        e0h, e1h = estimate(np.arange(i0, dtype=np.float64))
        e0x, e1x = estimate(np.arange(i0, i0 + 3, dtype=np.float64))  # the first tail terms (s0_2 when i0 = 2)
        with np.errstate(all="ignore"):
            sizes = np.concatenate([np.logaddexp(e0h, e1h)[head], np.logaddexp(e0x, e1x)])
            sizes = sizes[np.isfinite(sizes)]
            top = float(sizes.max()) if sizes.size else math.inf
        if not math.isfinite(top):
            top = math.inf  # no usable estimate: skip nothing, full precision everywhere
        n_guess = head.size + math.ceil((wp + 2) * LN10 / _LOG_CVZ_RATE) + 2
        floor_log = top - (wp + 3) * LN10 - math.log(n_guess)

        def piece(i: int, j: mpmath.mpf, log_abs_c: mpmath.mpf, est: float, right: bool) -> mpmath.mpf:
            nonlocal comp_max
            if not right and i < 2:  # s0_0 and s0_1 are in the closed-form constant part
                return mpmath.mpf(0)
            if math.isfinite(est) and est < floor_log:  # -inf/NaN estimates (float rounding of alpha) are kept
                return mpmath.mpf(0)
            drop = int((top - est) / LN10) - 1 if math.isfinite(top) and math.isfinite(est) else 0
            with mpmath.workdps(max(20, wp - max(drop, 0))):
                if right:  # s1: C q^(a-i) (1-q)^i exp((j^2-j)/(2z^2)) Phi((j - z0)/z)
                    x = (j - z0) / zm
                    e1, e2, c = j * lq, i * l1q, (j * j - j) / two_z2
                else:  # s0: C (1-q)^(a-i) q^i exp((i^2-i)/(2z^2)) Phi((z0 - i)/z)
                    x = (z0 - i) / zm
                    e1, e2, c = i * lq, j * l1q, mpmath.mpf(i * i - i) / two_z2
                lphi = _log_ncdf(x)
                comp_max = max(comp_max, min(1e300, float(abs(log_abs_c) + abs(e1) + abs(e2) + abs(c) + abs(lphi))))
                return mpmath.exp(log_abs_c + e1 + e2 + c + lphi)

        def pair(i: int, log_abs_c: mpmath.mpf, est0: float, est1: float) -> mpmath.mpf:
            j = am - i
            return piece(i, j, log_abs_c, est0, False) + piece(i, j, log_abs_c, est1, True)

        head_terms = []
        for start, stop in runs(head):
            binom = mpmath.binomial(am, start)
            for i in range(start, stop):
                if i > start:
                    binom = binom * (am - (i - 1)) / i
                head_terms.append(pair(i, mpmath.log(binom), float(e0h[i]), float(e1h[i])))
        head_sum = mpmath.fsum(head_terms)
        floor_abs = mpmath.exp(mpmath.mpf(floor_log)) if math.isfinite(floor_log) else mpmath.mpf(0)
        const, const_parts = _am1_constant_mp(am, qm, zm, z0, wp, floor_abs)
        scale = max(head_sum, const)

        # tail: alternating from i0 on; n from the CVZ bound 2 a_0 / (3 + sqrt 8)^n <= 10^-(wp+2) scale
        binom = mpmath.binomial(am, i0)  # > 0
        e0t, e1t = estimate(np.array([float(i0)]))
        a0 = pair(i0, mpmath.log(binom), float(e0t[0]), float(e1t[0]))
        ratio = float(mpmath.log(a0) - mpmath.log(scale)) if scale > 0 and a0 > 0 else 0.0
        n = math.ceil(((wp + 2) * LN10 + LOG2 + max(0.0, ratio)) / _LOG_CVZ_RATE) + 1
        e0t, e1t = estimate(np.arange(i0, i0 + n, dtype=np.float64))
        weights = cvz_weights_mp(n)
        tail = weights[0] * a0
        tail_abs = abs(weights[0]) * a0
        for k in range(1, n):
            i = i0 + k
            binom = binom * (am - (i - 1)) / i
            ak = pair(i, mpmath.log(abs(binom)), float(e0t[k]), float(e1t[k]))
            tail += weights[k] * ak
            tail_abs += abs(weights[k]) * ak
        total = head_sum + tail - const
        return total, head_sum + tail_abs + const_parts, comp_max, len(head_terms) + n


def _difference_mp(f: Callable[[], tuple[mpmath.mpf, mpmath.mpf]], wp: int) -> mpmath.mpf:
    """``a - b`` from ``f() = (a, b)`` (``a >= b >= 0``) to ``wp`` digits: recomputed with as many extra
    digits as the two cancel (``log10(a / (a - b))``), so the difference keeps its relative precision."""
    extra = 10
    for _ in range(6):
        with mpmath.workdps(wp + extra):
            a, b = f()
            d = a - b
            if d > 0 and a <= d * mpmath.mpf(10) ** (extra - 5):
                return d
            lost = float(mpmath.log10(a / d)) if d > 0 else float(wp + extra)
        extra = max(2 * extra, math.ceil(lost) + 15)
    raise NumericalFailure(f"sgm: a difference of {mpmath.nstr(a, 5)} and {mpmath.nstr(b, 5)} did not separate")


def _am1_constant_mp(
    am: mpmath.mpf, qm: mpmath.mpf, zm: mpmath.mpf, z0: mpmath.mpf, wp: int, floor_abs: mpmath.mpf
) -> tuple[mpmath.mpf, mpmath.mpf]:
    """``1 - s0_0 - s0_1`` at ``wp`` digits from its three positive parts (package docstring, item 3), and their sum.

    ``(1 - (1-q)^(a-1) (1 + (a-1) q)) Phi(a0) + Phi(-a0) + a q (1-q)^(a-1) (Phi(a0) - Phi(b1))`` with
    ``a0 = z0/z``, ``b1 = (z0 - 1)/z``. The first factor is ``-expm1(lam)``,
    ``lam = (a-1) log1p(-q) + log1p((a-1) q)``, whose two parts cancel to ``O(q^2)``; it and the
    normal-CDF difference are formed with the extra digits their cancellation needs
    (:func:`_difference_mp`), so tiny ``q`` or large ``z`` cost no global precision. The third part is
    dropped when its bound ``a q (1-q)^(a-1) Phi(-b1)`` is below ``floor_abs`` (the series' skip
    threshold); it is then ``exp(-b1^2/2)`` small, with exponents no working precision could resolve.
    """
    with mpmath.workdps(wp):
        a0 = z0 / zm
        b1 = (z0 - 1) / zm
        am1 = am - 1

        def lam_parts() -> tuple[mpmath.mpf, mpmath.mpf]:
            # -(a-1) log1p(-q) >= (a-1) q >= log1p((a-1) q): the difference is -lam >= 0
            return -am1 * mpmath.log1p(-qm), mpmath.log1p(am1 * qm)

        neg_lam = _difference_mp(lam_parts, wp)
        p1 = -mpmath.expm1(-neg_lam) * mpmath.ncdf(a0)
        p2 = mpmath.ncdf(-a0)
        coef3 = am * qm * mpmath.exp(am1 * mpmath.log1p(-qm))
        if b1 >= 0 and coef3 * mpmath.ncdf(-b1) < floor_abs:
            delta = mpmath.mpf(0)  # Delta <= Phi(-b1): the part is below the skip threshold of the series
        elif b1 >= 0:
            delta = _difference_mp(lambda: (mpmath.ncdf(-b1), mpmath.ncdf(-a0)), wp)
        elif a0 <= 0:
            delta = _difference_mp(lambda: (mpmath.ncdf(a0), mpmath.ncdf(b1)), wp)
        else:
            delta = (mpmath.erf(a0 / mpmath.sqrt(2)) + mpmath.erf(-b1 / mpmath.sqrt(2))) / 2
        p3 = coef3 * delta
        total = p1 + p2 + p3
    return total, total


@functools.lru_cache(maxsize=2048)
def _log_a_frac_mp(am: mpmath.mpf, qm: mpmath.mpf, zm: mpmath.mpf, dps: int) -> mpmath.mpf:
    """log A at a fractional order as ``log1p(A - 1)``, adaptive precision (package docstring, items 1, 2, 4).

    Cached on the exact values and the digits (a pure function of them; an mpf is immutable): an order
    optimisation over the epochs of one training setting asks for the same grid orders at every epoch."""
    i0 = int(mpmath.floor(am)) + 1
    lq, l1q, zf, _ = _float_params(qm, zm)
    af = float(am)
    one = np.ones(1)

    def estimate(i: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        e0, e1, _ = frac_log_terms(af * one, lq * one, l1q * one, zf * one, i)
        return np.where(i < 2, -np.inf, e0), e1  # s0_0, s0_1: in the closed-form constant part

    l0, l1 = estimate(np.arange(i0, dtype=np.float64))
    with np.errstate(all="ignore"):
        lh = np.logaddexp(l0, l1)
    wp = dps + GUARD + math.ceil(math.log10(i0 + 200)) + 5
    for _attempt in range(12):
        head = np.nonzero(kept(lh, wp + 5))[0]
        total, abs_sum, comp_max, nterms = _frac_series_mp(am, qm, zm, i0, head, wp, estimate)
        with mpmath.workdps(wp):
            if not (mpmath.isfinite(total) and total > -1):
                raise NumericalFailure(
                    f"log_a_mp: fractional series gave A-1={total} at alpha={am}, q={qm}, z={zm} ({wp} digits)"
                )
            # A > 1 (Jensen): a difference that is not positive has cancelled below the working precision
            log_a = mpmath.log1p(total) if total > 0 else mpmath.mpf(0)
            kappa = abs_sum / ((1 + total) * log_a) if total > 0 else mpmath.inf
        need = dps + GUARD + math.log10(1.0 + comp_max) + math.log10(nterms + 1.0)
        need = need + float(mpmath.log10(kappa)) if mpmath.isfinite(kappa) else max(need, 2.0 * wp)
        if wp >= need:
            return log_a
        new_wp = max(wp + 10, math.ceil(need) + 5)
        if new_wp > dps + _MAX_EXTRA_DIGITS:
            raise NumericalFailure(
                f"log_a_mp: cancellation in the MTZ19 series at alpha={am}, q={qm}, z={zm} would need "
                f"{math.ceil(need)} working digits (cap {dps + _MAX_EXTRA_DIGITS})"
            )
        wp = new_wp
    raise NumericalFailure(f"log_a_mp: precision did not settle at alpha={am}, q={qm}, z={zm}")


def log_a_mp(alpha: Real, q: Real, z: Real) -> mpmath.mpf:
    """``log A_alpha(q, z)`` of the sampled Gaussian mechanism, at the caller's mpmath precision.

    MTZ19 (arXiv 1908.10530) Sec. 3.3. Integer orders (including integer-valued mpf or float)
    use the exact positive-term sum of ``A - 1`` with exact integer binomials, then ``log1p``.
    Fractional orders use the signed two-sided series. Its head is summed directly; its
    alternating tail uses the Cohen-Villegas-Zagier acceleration with its proven error bound
    (package docstring). The working precision rises until the measured cancellation leaves
    ``mp.dps`` digits.

    Args:
        alpha: Rényi order, > 1 (int, float or mpf).
        q: Poisson sampling probability, ``0 <= q <= 1``.
        z: noise multiplier (noise std / l2 sensitivity), > 0.

    Returns:
        ``log A_alpha`` as an mpf rounded to ``mpmath.mp.dps`` digits. It is 0 for ``q = 0`` and
        ``alpha (alpha - 1) / (2 z^2)`` for ``q = 1``.

    Raises:
        ValueError: a parameter outside the domain.
        NumericalFailure: the series cannot reach the requested precision within
            ``dps + 1500`` working digits, or an order above 1e8.
    """
    dps = mpmath.mp.dps
    with mpmath.workdps(dps + GUARD):
        n, am, qm, zm = parse_point(alpha, q, z, "log_a_mp")
        if qm == 0:
            return mpmath.mpf(0)
        if qm == 1:
            result = am * (am - 1) / (2 * zm * zm)
        elif zm >= HUGE_NOISE_MIN_Z and am * qm <= HUGE_NOISE_RATIO * zm:
            result = _log_a_huge_noise_mp(am, qm, zm, dps)
        elif n is not None:
            result = _log_a_int_mp(n, qm, zm, dps)
        else:
            result = _log_a_frac_mp(am, qm, zm, dps)
    return +result


def _log_a_huge_noise_mp(am: mpmath.mpf, qm: mpmath.mpf, zm: mpmath.mpf, dps: int) -> mpmath.mpf:
    """``log A`` in the huge-noise regime (package docstring, item 5) by the moment series
    ``A - 1 = sum_{j >= 2} C(alpha, j) q^j E[w^j]``, ``E[w^j] = sum_i C(j, i) (-1)^(j-i) e^{i(i-1)/(2 z^2)}``
    (exact: ``E[e^{i(2x-1)/(2 z^2)}] = e^{i(i-1)/(2 z^2)}`` for ``x ~ N(0, z^2)``). Each term is at most
    ``(alpha q / z)^2`` (< 1e-20) times the one two before it; the sum stops when two successive terms are
    below ``10^-(dps + 10)`` of the sum (finite for an integer order: the terms vanish beyond ``j = alpha``).
    ``E[w^j]`` is ``O(z^-2 ceil(j/2))``: it is formed with that many extra digits (cancellation of its
    alternating sum)."""
    s = 1 / (zm * zm)
    lost = int(mpmath.ceil(-mpmath.log10(s))) + 1  # digits lost per power of s in E[w^j]
    total = mpmath.mpf(0)
    small = 0
    j = 2
    coef = am * (am - 1) / 2 * qm * qm  # C(alpha, j) q^j
    while True:
        with mpmath.workdps(dps + GUARD + lost * ((j + 1) // 2) + 10):
            m = mpmath.fsum(
                mpmath.binomial(j, i) * (-1) ** (j - i) * mpmath.exp(mpmath.mpf(i * (i - 1)) / 2 * s)
                for i in range(j + 1)
            )
            term = coef * m
        total += term
        if abs(term) <= mpmath.mpf(10) ** -(dps + 10) * abs(total):
            small += 1
            if small == 2:
                break
        else:
            small = 0
        coef = coef * (am - j) / (j + 1) * qm
        j += 1
        if coef == 0:  # an integer order: the polynomial (1 + q w)^alpha has ended
            break
        if j > 10 * dps + 40:  # pragma: no cover - the ratio bound makes this unreachable in the regime
            raise NumericalFailure(f"log_a_mp: huge-noise series did not settle at alpha={am}, q={qm}, z={zm}")
    return mpmath.log1p(total)


def rdp_mp(alpha: Real, q: Real, z: Real, T: Real) -> mpmath.mpf:
    """RDP at order ``alpha`` of ``T`` steps of the sampled Gaussian mechanism: ``T log A / (alpha - 1)``.

    MTZ19 (arXiv 1908.10530) Sec. 3.3 with linear composition (Mironov 2017, Prop. 1). ``q = 1``
    gives ``T alpha / (2 z^2)`` (Mironov 2017, Prop. 7).

    Args:
        alpha: Rényi order, > 1.
        q: sampling probability in ``[0, 1]``.
        z: noise multiplier, > 0.
        T: number of composed steps, finite and >= 0.

    Returns:
        The RDP as an mpf at the caller's precision.

    Raises:
        ValueError: a parameter outside the domain.
        NumericalFailure: see :func:`log_a_mp`.
    """
    dps = mpmath.mp.dps
    with mpmath.workdps(dps + GUARD):
        t = check_steps(T, "rdp_mp")
        _, am, qm, zm = parse_point(alpha, q, z, "rdp_mp")
        if qm == 1:
            result = t * am / (2 * zm * zm)
        else:
            result = t * log_a_mp(alpha, q, z) / (am - 1)
    return +result


def theorem_mp(p: Mapping[str, Any]) -> mpmath.mpf:
    """The mpmath kernel of ``rdp.subsampled_gaussian`` (MTZ19 Sec. 3.3): :func:`rdp_mp` on its parameters."""
    return rdp_mp(p["alpha"], p["q"], p["z"], int(p["T"]))
