"""Poisson-subsampled Gaussian (MTZ19, arXiv 1908.10530, Sec. 3.3): the float64 kernel :func:`rdp_np`.

Vectorised sums in the log domain with an error estimate per point; points above ``FALLBACK_RTOL`` are
recomputed with the mpmath kernel (:func:`dptheory.privacy.sgm.mp.log_a_mp`). "Item n" refers to the package
docstring (:mod:`dptheory.privacy.sgm`). scipy is imported inside the functions that use it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping
from typing import TYPE_CHECKING, Any

import mpmath
import numpy as np
from numpy.typing import ArrayLike, NDArray

from dptheory.core.errors import NumericalFailure
from dptheory.numerics.logspace import HALF_LOG_2PI, LOG2, SQRT2, log1pmx, stream_lse, stream_lse_multi
from dptheory.privacy.sgm.mp import GUARD, log_a_mp
from dptheory.privacy.sgm.terms import (
    cvz_weights_float,
    frac_log_terms,
    frac_pieces,
    int_log_terms,
    mixed_scale,
    split_point,
)
from dptheory.privacy.sgm.validate import HUGE_NOISE_MIN_Z, HUGE_NOISE_RATIO, validate_np

if TYPE_CHECKING:
    from dptheory.core.evaluator import BoolArray, FloatArray

__all__ = [
    "FALLBACK_DPS",
    "FALLBACK_RTOL",
    "FALLBACK_RTOL_FRAC",
    "log1p_streamed_sum",
    "rdp_np",
    "recompute_mp",
    "refuse_nan",
    "theorem_np",
]

_CVZ_RATE = 3.0 + math.sqrt(8.0)
_ROW_CHUNK = 512
_CVZ_N_FLOAT = 26  # CVZ terms in float64: truncation 2/(3+sqrt 8)^26 < 3e-20 of the tail
FALLBACK_RTOL = 1e-11  # float64 points with a larger estimated relative error are recomputed in mp
# Stricter for the fractional A - 1 kernel, which now serves points the mp fallback used to serve: its
# estimate exceeded the measured error by at least 2.8x at 1000 random points (q in [1e-6, 1], z in
# [0.3, 100], alpha in (1, 1e4]), so the float64 values it accepts stay below 1e-12 relative error.
FALLBACK_RTOL_FRAC = 1e-12
FALLBACK_DPS = 30  # precision of that recomputation
_EPS = float(np.finfo(np.float64).eps)
_ERR_K = 1.5  # float64 model: a log-term with additive pieces p_j has abs. error <= _ERR_K * eps * sum |p_j|


def _log_a_int_np(n: FloatArray, lq: FloatArray, l1q: FloatArray, z: FloatArray) -> tuple[FloatArray, FloatArray]:
    """float64 ``log A`` at integer orders ``n`` (sorted) with estimated relative error."""
    la = np.empty_like(n)
    rel = np.empty_like(n)
    lz = np.log(z)
    for r0 in range(0, n.size, _ROW_CHUNK):
        sl = slice(r0, min(n.size, r0 + _ROW_CHUNK))
        nn, qq, q1, zz, zl = n[sl, None], lq[sl, None], l1q[sl, None], z[sl, None], lz[sl, None]
        ncols = int(nn.max()) - 1  # i = 2 .. max n

        def block(lo: int, hi: int, nn=nn, qq=qq, q1=q1, zz=zz, zl=zl) -> tuple[NDArray, NDArray]:
            i = np.arange(2 + lo, 2 + hi, dtype=np.float64)[None, :]
            lt, sc = int_log_terms(nn, qq, q1, zz, zl, i)
            inside = i <= nn
            return np.where(inside, lt, -np.inf), np.where(inside, sc, 0.0)

        la[sl], rel[sl] = log1p_streamed_sum(nn.shape[0], ncols, block)
    return la, rel


def log1p_streamed_sum(
    rows: int, ncols: int, block: Callable[[int, int], tuple[NDArray, NDArray]]
) -> tuple[FloatArray, FloatArray]:
    """``log(1 + S)`` per row for a positive series ``S`` of ``ncols`` terms, and its estimated relative error.

    ``block(lo, hi)`` gives the log terms ``lo .. hi - 1`` and their absolute-error scales (``-inf`` and 0 for
    terms past a row's end); :func:`~dptheory.numerics.logspace.stream_lse` sums them. The error is ``inf``
    where the value is not finite or not above ``1e-280``. The integer-order sums of this module (MTZ19
    ``log A = log(1 + (A - 1))``) and of :mod:`dptheory.privacy.wor` (WBK19 Thm 9, ``log B``) both end so.
    """
    m, s, e = stream_lse(rows, ncols, block)
    with np.errstate(all="ignore"):
        log_s = m + np.log(s)
        rel_s = _ERR_K * _EPS * (e / s + np.abs(m) + math.log2(ncols + 2) + 5.0)
        la_c = np.logaddexp(0.0, log_s)
        sig = np.exp(log_s - la_c)  # S / (1 + S)
        rel_c = rel_s * sig / la_c
    return la_c, np.where(np.isfinite(la_c) & (la_c > 1e-280), rel_c, np.inf)


def _log_a_frac_np(a: FloatArray, lq: FloatArray, l1q: FloatArray, z: FloatArray) -> tuple[FloatArray, FloatArray]:
    """float64 ``log A`` at fractional orders ``a`` (sorted) with estimated relative error, summing ``A`` itself.

    Not used by the kernels (see :func:`_log_a_frac_am1_np`; the mp kernel sums ``A - 1`` too, item 4):
    a second float64 method with its own error estimate, kept for the tests.
    """
    la = np.empty_like(a)
    rel = np.empty_like(a)
    w = cvz_weights_float(_CVZ_N_FLOAT)
    wabs = np.abs(w)
    for r0 in range(0, a.size, _ROW_CHUNK):
        sl = slice(r0, min(a.size, r0 + _ROW_CHUNK))
        aa, qq, q1, zz = a[sl, None], lq[sl, None], l1q[sl, None], z[sl, None]
        i0 = np.floor(aa) + 1.0
        ncols = int(i0.max())

        def block(lo: int, hi: int, aa=aa, qq=qq, q1=q1, zz=zz, i0=i0) -> tuple[NDArray, NDArray]:
            i = np.arange(lo, hi, dtype=np.float64)[None, :]
            l0, l1, sc = frac_log_terms(aa, qq, q1, zz, i)
            inside = i < i0
            with np.errstate(all="ignore"):
                return np.where(inside, np.logaddexp(l0, l1), -np.inf), np.where(inside, sc, 0.0)

        mh, sh, eh = stream_lse(aa.shape[0], ncols, block)
        it = i0 + np.arange(_CVZ_N_FLOAT, dtype=np.float64)[None, :]
        t0, t1, tsc = frac_log_terms(aa, qq, q1, zz, it)
        with np.errstate(all="ignore"):
            lat = np.logaddexp(t0, t1)
            mt = np.maximum(mh, lat[:, 0])
            ref = np.where(np.isfinite(mt), mt, 0.0)
            hscale = np.exp(mh - ref)
            head = sh * hscale
            head_e = eh * hscale
            wt = np.exp(lat - ref[:, None])
            tail = wt @ w
            tail_abs = wt @ wabs
            tail_e = (wt * wabs * tsc).sum(axis=1)
            tot = head + tail
            log_a = ref + np.log(tot)
            err = (
                _ERR_K * _EPS * (head_e + tail_e + (math.log2(ncols + 2) + 5.0) * (head + tail_abs))
                + 2.0 * wt[:, 0] / _CVZ_RATE**_CVZ_N_FLOAT
            ) / tot + _ERR_K * _EPS * (np.abs(ref) + np.abs(np.log(tot)) + 1.0)
            rel_c = err / np.abs(log_a)
        ok = np.isfinite(log_a) & (tot > 0) & (np.abs(log_a) > 1e-280)
        la[sl] = np.where(ok, log_a, np.nan)
        rel[sl] = np.where(ok, rel_c, np.inf)
    return la, rel


def _log_ndtr_scaled(x: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``log Phi(x)`` and its absolute-error scale: the value's ulps plus the argument's rounding.

    A relative rounding ``eps`` of ``x`` moves ``log Phi`` by ``eps |x| phi(x)/Phi(x)``.
    """
    from scipy import special

    with np.errstate(all="ignore"):
        v = special.log_ndtr(x)
        ratio = np.exp(-0.5 * x * x - HALF_LOG_2PI - v)  # phi(x) / Phi(x)
        return v, np.abs(v) + np.abs(x) * ratio + 1.0


def _log_ndtr_diff(hi: FloatArray, lo: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``log(Phi(hi) - Phi(lo))`` for ``hi > lo``, and its absolute-error scale, without cancellation.

    Both in the upper tail (``lo >= 0``): ``Phi(-lo) (1 - Phi(-hi)/Phi(-lo))`` with the ratio from
    ``log_ndtr`` and ``expm1``; both in the lower tail (``hi <= 0``): the mirror image. Straddling 0:
    ``(erf(hi/sqrt 2) + erf(-lo/sqrt 2))/2``, a sum of two nonnegative parts.
    """
    from scipy import special

    with np.errstate(all="ignore"):
        upper = lo >= 0.0
        tails = upper | (hi <= 0.0)
        lb, sb = _log_ndtr_scaled(np.where(upper, -lo, hi))  # the larger tail probability
        ls, ss = _log_ndtr_scaled(np.where(upper, -hi, lo))  # the smaller one
        d = ls - lb  # < 0
        tail = lb + np.log(-np.expm1(d))
        tail_s = sb + (sb + ss) / np.expm1(-d)
        mid = 0.5 * (special.erf(hi / SQRT2) + special.erf(-lo / SQRT2))
        dens = (np.abs(hi) * np.exp(-0.5 * hi * hi) + np.abs(lo) * np.exp(-0.5 * lo * lo)) / math.sqrt(2.0 * math.pi)
        mid_s = 4.0 + dens / mid
        return np.where(tails, tail, np.log(mid)), np.where(tails, tail_s, mid_s)


def _am1_constant_pieces(
    a: FloatArray, lq: FloatArray, l1q: FloatArray, z: FloatArray, q: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Logs (last axis, 3 entries) and error scales of the positive parts of ``1 - s0_0 - s0_1``.

    With ``a0 = z0/z``, ``b1 = (z0 - 1)/z`` and ``Delta = Phi(a0) - Phi(b1)`` (package docstring, item 3)::

        1 - s0_0 - s0_1 = (1 - (1-q)^(a-1) (1 + (a-1) q)) Phi(a0) + Phi(-a0) + a q (1-q)^(a-1) Delta.

    The first factor is ``-expm1(lam)`` with ``lam = (a-1) log1pmx(-q) + log1pmx((a-1) q) <= 0``: the
    linear parts of the two logarithms cancel exactly, so both remaining parts are negative and
    ``lam`` has a small relative error.
    """
    with np.errstate(all="ignore"):
        z0 = split_point(lq, l1q, z)
        a0 = z0 / z
        b1 = (z0 - 1.0) / z
        am1 = a - 1.0
        lam = am1 * log1pmx(-q) + log1pmx(am1 * q)
        lphi, sphi = _log_ndtr_scaled(a0)
        p1 = np.log(-np.expm1(lam)) + lphi
        # lam has relative error <= ~12 eps (two log1pmx, the products, q itself); d log(-expm1(lam)) / d lam
        # = 1/expm1(-lam), so its absolute error is 12 eps |lam| / expm1(-lam) (about 12 eps for small lam)
        p1_s = 12.0 * np.abs(lam) / np.expm1(-lam) + sphi + 1.0
        p2, p2_s = _log_ndtr_scaled(-a0)
        ld, ld_s = _log_ndtr_diff(a0, b1)
        la = np.log(a)
        t = am1 * l1q
        p3 = la + lq + t + ld
        p3_s = np.abs(la) + np.abs(lq) + np.abs(t) + ld_s + 1.0
        shape = np.broadcast_shapes(p1.shape, p2.shape, p3.shape)
        logs = np.stack([np.broadcast_to(v, shape) for v in (p1, p2, p3)], axis=-1)
        scales = np.stack([np.broadcast_to(v, shape) for v in (p1_s, p2_s, p3_s)], axis=-1)
    return logs, scales


def _am1_left_pieces(
    a: FloatArray, lq: FloatArray, l1q: FloatArray, z: FloatArray, split: BoolArray, i: FloatArray, branch: str
) -> tuple[FloatArray, ...]:
    """Pieces of term ``i >= 2`` of the ``A - 1`` sum (package docstring, item 3), logs with error scales.

    Returns ``(log|C|, scale, log s0-part, scale, log subtracted part, scale, log s1-part / C, scale,
    log |s0_i / C|)``. Where ``split`` (``q < 1/2``) the ``s0`` part is
    ``(1-q)^(a-i) q^i expm1(c_i) Phi(x0)`` and the subtracted part ``(1-q)^(a-i) q^i (Phi(a0) - Phi(x0))``
    (their difference is ``s0_i - (1-q)^(a-i) q^i Phi(a0)``); elsewhere the ``s0`` part is ``s0_i / C``
    itself and nothing is subtracted.
    """
    logc, cs, s0, e0, s1, e1 = frac_pieces(a, lq, l1q, z, i, branch)
    with np.errstate(all="ignore"):
        z0 = split_point(lq, l1q, z)
        c = (i * i - i) / (2.0 * z * z)
        lfac = np.log(-np.expm1(-c))  # expm1(c) = e^c (1 - e^-c); relative error of c ~2 eps -> ~2 eps here
        lpos = np.where(split, s0 + lfac, s0)
        epos = np.where(split, e0 + 2.0, e0)
        ld, ld_s = _log_ndtr_diff(z0 / z, (z0 - i) / z)
        p1, p2 = i * lq, (a - i) * l1q
        lneg = np.where(split, p1 + p2 + ld, -np.inf)
        eneg = np.abs(p1) + np.abs(p2) + ld_s + 1.0
    return logc, cs, lpos, epos, lneg, eneg, s1, e1, s0


def _log_a_frac_am1_np(a: FloatArray, lq: FloatArray, l1q: FloatArray, z: FloatArray) -> tuple[FloatArray, FloatArray]:
    """float64 ``log A`` at fractional orders ``a`` (sorted) via ``A - 1`` (package docstring, item 3).

    ``A - 1 = sum_{i>=2} s0_i + sum_{i>=0} s1_i - (1 - s0_0 - s0_1)``, with ``1 - s0_0 - s0_1`` in the
    positive parts of :func:`_am1_constant_pieces`. For ``q < 1/2`` the first part is further spread over
    the terms (item 3): each ``s0_i`` becomes ``t_i (e^{c_i} Phi(x0_i) - Phi(a0)) = t_i (expm1(c_i)
    Phi(x0_i) - (Phi(a0) - Phi(x0_i)))`` with ``t_i = C(a,i) (1-q)^(a-i) q^i``. The head (``i < i0``)
    is summed by log-sum-exp per sign, the alternating tail by the 26-term CVZ sum. Nothing of size 1
    (nor, for ``q < 1/2``, of the size of ``q^2``) is added to or taken from ``A - 1``, so small
    ``log A = log1p(A - 1)`` keep their relative precision. Returns ``(log A, estimated relative
    error)``; the estimate is ``inf`` where the sum is not positive. Rows sharing one ``(q, z)`` share
    the order-independent work (the normal-CDF factors of ``s0_i``).
    """
    from scipy import special

    la = np.empty_like(a)
    rel = np.empty_like(a)
    n_cvz = _CVZ_N_FLOAT
    w = cvz_weights_float(n_cvz)
    wabs = np.abs(w)
    with np.errstate(all="ignore"):
        q = np.where(l1q > -LOG2, -np.expm1(l1q), np.exp(lq))
    for r0 in range(0, a.size, _ROW_CHUNK):
        sl = slice(r0, min(a.size, r0 + _ROW_CHUNK))
        aa = a[sl, None]
        cols = [x[sl, None] for x in (lq, l1q, z, q)]
        if all(np.all(c == c[0]) for c in cols[:3]):
            cols = [c[:1] for c in cols]  # one (q, z): broadcast (1, 1), so i-only factors are computed once
        qq, q1, zz, qv = cols
        split = qv < 0.5
        rows = aa.shape[0]
        i0 = np.floor(aa) + 1.0
        ncols = int(i0.max())
        lc, csc = (x.reshape(rows, 3) for x in _am1_constant_pieces(aa, qq, q1, zz, qv))
        with np.errstate(all="ignore"):
            # with the split the first part of 1 - s0_0 - s0_1 is spread over the terms
            lc[:, 0] = np.where(np.broadcast_to(split, (rows, 1))[:, 0], -np.inf, lc[:, 0])

        def block(lo: int, hi: int, aa=aa, qq=qq, q1=q1, zz=zz, i0=i0, split=split) -> list[tuple[NDArray, NDArray]]:
            i = np.arange(lo, hi, dtype=np.float64)[None, :]
            logc, cs, lpos, epos, lneg, eneg, s1, e1, _ = _am1_left_pieces(aa, qq, q1, zz, split, i, "below")
            with np.errstate(all="ignore"):
                left = i >= 2.0  # s0_0 and s0_1 are in the constant part
                lpos = np.where(left, lpos, -np.inf)
                pos = logc + np.logaddexp(lpos, s1)
                pos_s = cs + 1.0 + mixed_scale(lpos, epos, s1, e1)
                inside = i < i0
                neg_in = inside & left
                return [
                    (np.where(inside, pos, -np.inf), np.where(inside, pos_s, 0.0)),
                    (np.where(neg_in, logc + lneg, -np.inf), np.where(neg_in, cs + eneg, 0.0)),
                ]

        (mp_, sp_, ep_), (mn_, sn_, en_) = stream_lse_multi(rows, ncols, 2, block)
        it = i0 + np.arange(n_cvz, dtype=np.float64)[None, :]
        logc, cs, lpos, epos, lneg, eneg, s1, e1, s0 = _am1_left_pieces(aa, qq, q1, zz, split, it, "above")
        with np.errstate(all="ignore"):
            lat = logc + np.logaddexp(lpos, s1)
            tsc = cs + 1.0 + mixed_scale(lpos, epos, s1, e1)
            latn = logc + lneg
            tscn = cs + eneg
            # CVZ bound for the tail of a difference of two moment sequences: 2 (A_0 + B_0) / (3 + sqrt 8)^n,
            # A_0 = |s0| + |s1| and B_0 = |t_i0| Phi(a0) at i0
            z0 = split_point(qq, q1, zz)
            lb0 = np.where(
                split, logc[:, :1] + it[:, :1] * qq + (aa - it[:, :1]) * q1 + special.log_ndtr(z0 / zz), -np.inf
            )[:, 0]
            la0 = (logc[:, :1] + np.logaddexp(s0[:, :1], s1[:, :1]))[:, 0]
            mt = np.maximum(np.maximum(mp_, lat[:, 0]), lc.max(axis=-1))
            ref = np.where(np.isfinite(mt), mt, 0.0)
            hp, hn = np.exp(mp_ - ref), np.exp(mn_ - ref)
            wt = np.exp(lat - ref[:, None])
            wn = np.exp(latn - ref[:, None])
            tail = (wt - wn) @ w
            tail_abs = (wt + wn) @ wabs
            tail_e = (wabs * (wt * tsc + wn * tscn)).sum(axis=1)
            cw = np.exp(lc - ref[:, None])
            const = cw.sum(axis=1)
            const_e = (cw * csc).sum(axis=1)
            tot = sp_ * hp - sn_ * hn + tail - const
            abs_sum = sp_ * hp + sn_ * hn + tail_abs + const
            bound = 2.0 * (np.exp(la0 - ref) + np.exp(lb0 - ref)) / _CVZ_RATE**n_cvz
            err = (
                _ERR_K
                * _EPS
                * (ep_ * hp + en_ * hn + tail_e + const_e + (math.log2(ncols + n_cvz + 3) + 5.0) * abs_sum)
                + bound
            )
            log_am1 = ref + np.log(tot)
            log_a = np.logaddexp(0.0, log_am1)
            err_log_am1 = err / tot + _ERR_K * _EPS * (np.abs(ref) + np.abs(np.log(tot)) + 1.0)
            rel_c = err_log_am1 * np.exp(log_am1 - log_a) / log_a + _EPS
        ok = np.isfinite(log_a) & (tot > 0) & (log_a > 1e-280)
        la[sl] = np.where(ok, log_a, np.nan)
        rel[sl] = np.where(ok, rel_c, np.inf)
    return la, rel


def rdp_np(alpha: ArrayLike, q: ArrayLike, z: ArrayLike, T: ArrayLike) -> FloatArray:
    """float64 RDP ``T log A_alpha(q, z) / (alpha - 1)`` of the sampled Gaussian mechanism, broadcast.

    MTZ19 (arXiv 1908.10530) Sec. 3.3. Integer orders: the positive-term sum of ``A - 1`` as a
    streaming log-sum-exp (numpy and scipy; log binomials in Loader's cancellation-free form). This
    never overflows, and ``log A = logaddexp(0, log(A - 1))``. Fractional orders: the signed series
    in log space (head by log-sum-exp, alternating tail by 26-term CVZ acceleration), summed as
    ``A - 1`` with the terms of size 1 combined in closed form (package docstring, item 3), and
    again ``log A = logaddexp(0, log(A - 1))``.

    Hybrid: each point carries an estimate of its relative error (package docstring). Points whose
    estimate exceeds ``FALLBACK_RTOL = 1e-11`` (integer orders) or ``FALLBACK_RTOL_FRAC = 1e-12``
    (fractional orders), or that are not finite, are recomputed with
    :func:`rdp_mp` at ``FALLBACK_DPS = 30`` digits and rounded to float64. ``+inf`` is returned
    only where the true value exceeds the float64 range.

    Args:
        alpha: orders, > 1.
        q: sampling probabilities in ``[0, 1]``.
        z: noise multipliers, > 0.
        T: step counts, >= 0.

    Returns:
        float64 array of the broadcast shape.

    Raises:
        ValueError: a parameter outside the domain (the message names it and its flat index).
        NumericalFailure: from the mp fallback, see :func:`log_a_mp`.
    """
    arrays = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (alpha, q, z, T)))
    shape = arrays[0].shape
    a, qq, zz, tt = (np.ascontiguousarray(x).ravel() for x in arrays)
    validate_np(a, qq, zz, tt)
    out = np.zeros(a.shape)
    with np.errstate(over="ignore"):
        full = qq == 1.0
        out[full] = tt[full] * (a[full] / (2.0 * zz[full] * zz[full]))
    work = np.nonzero((qq > 0) & (qq < 1) & (tt > 0))[0]
    if work.size:
        # log A depends on (alpha, q, z) only: compute it once per distinct triple (a sweep over T or K
        # repeats each triple, and a triple that needs the mp fallback costs tens of milliseconds)
        triples, inv = np.unique(np.stack([a[work], qq[work], zz[work]], axis=1), axis=0, return_inverse=True)
        inv = inv.ravel()
        au, qu, zu = triples[:, 0], triples[:, 1], triples[:, 2]
        with np.errstate(all="ignore"):
            lq = np.log(qu)
            l1q = np.log1p(-qu)
        la_u = np.empty(au.size)
        rel_u = np.empty(au.size)
        is_int_u = au == np.floor(au)
        # huge noise (package docstring, item 5): the leading term is exact to float64 rounding, and the
        # series (about alpha terms) is not needed
        huge = (zu >= HUGE_NOISE_MIN_Z) & (au * qu <= HUGE_NOISE_RATIO * zu)
        if huge.any():
            ah, qh, zh = au[huge], qu[huge], zu[huge]
            la_u[huge] = np.log1p(0.5 * ah * (ah - 1.0) * qh * qh * np.expm1(1.0 / (zh * zh)))
            rel_u[huge] = 0.0
        for sel, fn in (
            (np.nonzero(is_int_u & ~huge)[0], _log_a_int_np),
            (np.nonzero(~is_int_u & ~huge)[0], _log_a_frac_am1_np),
        ):
            if sel.size == 0:
                continue
            order = sel[np.argsort(au[sel], kind="stable")]
            la_s, rel_s = fn(au[order], lq[order], l1q[order], zu[order])
            if fn is _log_a_frac_am1_np:
                # a large log A near alpha = 1 (tiny z) is assembled from exponents ~ i (i - 1) / (2 z^2) around
                # i = alpha: their rounding is amplified by alpha / (alpha - 1) (measured: 1.2e-9 relative at
                # alpha - 1 = 5.9e-8, z = 1.4e-79, found by tests/test_fuzz_api.py); count it in the estimate
                ao = au[order]
                with np.errstate(all="ignore"):
                    rel_s = np.where(la_s > 1.0, np.maximum(rel_s, 2.2e-16 * ao / (ao - 1.0)), rel_s)
            la_u[order] = la_s
            rel_u[order] = rel_s
        tol_u = np.where(is_int_u, FALLBACK_RTOL, FALLBACK_RTOL_FRAC)
        bad_u = ~(rel_u <= tol_u) | ~np.isfinite(la_u)
        aw, la = a[work], la_u[inv]
        with np.errstate(all="ignore"):
            vals = tt[work] * (la / (aw - 1.0))
        bad = bad_u[inv] | np.isnan(vals)
        # the same arithmetic as rdp_mp at FALLBACK_DPS digits, with log A computed once per triple
        recompute_mp(
            vals,
            bad,
            key_of=lambda k: int(inv[k]),
            log_of=lambda u: log_a_mp(float(au[u]), float(qu[u]), float(zu[u])),
            alpha_of=lambda u: float(au[u]),
            steps_of=lambda k: float(tt[work[k]]),
            dps=FALLBACK_DPS,
            guard=GUARD,
        )
        out[work] = vals
    refuse_nan(out, "rdp_np", a, qq, zz, tt)
    return out.reshape(shape)


def recompute_mp(
    vals: FloatArray,
    bad: BoolArray,
    *,
    key_of: Callable[[int], Hashable],
    log_of: Callable[[Any], mpmath.mpf],
    alpha_of: Callable[[Any], float],
    steps_of: Callable[[int], float],
    dps: int,
    guard: int,
) -> None:
    """The mpmath fallback of a float64 RDP kernel (this module's and ``privacy.wor``'s): ``vals[k]`` where
    ``bad[k]`` becomes ``T log_of(key) / (alpha - 1)`` at ``dps + guard`` digits, rounded to ``dps`` digits and
    then to float64; ``log_of`` runs once per ``key_of(k)``."""
    cache: dict[Hashable, mpmath.mpf] = {}
    for k in np.nonzero(bad)[0]:
        key = key_of(int(k))
        with mpmath.workdps(dps + guard):
            if key not in cache:
                cache[key] = log_of(key)
            res = mpmath.mpf(steps_of(int(k))) * cache[key] / (mpmath.mpf(alpha_of(key)) - 1)
        with mpmath.workdps(dps):
            vals[k] = float(+res)


def refuse_nan(out: FloatArray, where: str, *params: FloatArray) -> None:
    """Raise :class:`NumericalFailure` naming the first NaN of ``out`` and its ``alpha, q, z, T`` (``params``):
    it cannot happen, and a NaN is never returned silently."""
    if np.isnan(out).any():
        i = int(np.argmax(np.isnan(out)))
        a, q, z, t = (p[i] for p in params)
        raise NumericalFailure(f"{where}: NaN at alpha={a}, q={q}, z={z}, T={t}")


def theorem_np(p: Mapping[str, FloatArray]) -> FloatArray:
    """The float64 kernel of ``rdp.subsampled_gaussian`` (MTZ19 Sec. 3.3): :func:`rdp_np` on its parameters."""
    return rdp_np(p["alpha"], p["q"], p["z"], p["T"])
