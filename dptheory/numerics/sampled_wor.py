"""RDP of the Gaussian mechanism under fixed-size sampling without replacement: mpmath and float64 kernels.

Source: Wang, Balle and Kasiviswanathan, "Subsampled Renyi Differential Privacy and Analytical Moments
Accountant", AISTATS 2019, arXiv 1808.00087 (WBK19): Theorem 9 (the general upper bound) at integer
orders and Corollary 10 (interpolation of the cumulant generating function) at fractional orders.

Setting: a dataset of ``n`` records, a batch of ``m`` distinct records drawn uniformly without
replacement, the Gaussian mechanism applied to the batch. Neighbouring datasets have the same size and
differ in one replaced record (replace-one), so ``n`` is public. ``z`` is the noise standard deviation
divided by the l2 sensitivity of the batch query *under replace-one*. The base mechanism then has
``eps(j) = j / (2 z^2)`` at every order ``j`` (Mironov 2017, Prop. 7) and ``eps(inf) = inf``.
The sampling fraction is ``gamma = m/n``; the bound depends on ``m`` and ``n`` only through it, so the
kernels take the ratio ``q = gamma`` (pass it as an exact fraction, e.g. ``"2/50"``, for exact input).

Integer orders ``alpha >= 2`` (Theorem 9 with ``eps(inf) = inf``, so every ``min{2, (e^eps(inf) - 1)^j}``
is 2)::

    B_alpha = 1 + gamma^2 C(alpha, 2) min{4 (e^{eps(2)} - 1), 2 e^{eps(2)}}
                + sum_{j=3}^{alpha} 2 gamma^j C(alpha, j) e^{(j-1) eps(j)},

    eps(2) = 1/z^2,  (j-1) eps(j) = j (j-1) / (2 z^2),
    RDP at order alpha <= log(B_alpha) / (alpha - 1).

``K(alpha) = log B_alpha`` is a bound on the cumulant generating function ``(alpha - 1) D_alpha``.
``B_1 = 1`` (empty sum), so ``K(1) = 0``.

Fractional orders (Corollary 10): ``(alpha - 1) D_alpha`` is convex in ``alpha``, so with
``f = floor(alpha)``, ``c = f + 1`` and ``t = alpha - f``::

    RDP at order alpha <= ((1 - t) K(f) + t K(c)) / (alpha - 1).

For ``1 < alpha < 2`` this is ``K(2) = log B_2``. ``T`` steps compose linearly (Mironov 2017, Prop. 1):
the value is multiplied by ``T``.

Limits: ``q = 0`` gives 0 (every term carries ``gamma^j``, ``j >= 2``). ``q = 1`` gives Theorem 9 at
``gamma = 1``, which is *not* the plain Gaussian ``alpha / (2 z^2)``: it is larger (at ``alpha = 2`` the
bracket is ``1 + min{4 (e^{1/z^2} - 1), 2 e^{1/z^2}}`` against the exact ``e^{1/z^2}``). We keep the
theorem's value there (dp-accounting instead returns the plain Gaussian at ``q = 1``); see
``docs/privacy_baselines.md``.

Numerics. Every term is positive, so there is no cancellation: the kernels work in the log domain,
``l_j = log C(alpha, j) + j log gamma + log c_j`` with ``log c_2 = min(log 4 + log expm1(1/z^2),
log 2 + 1/z^2)`` and ``log c_j = log 2 + j (j - 1)/(2 z^2)``, and ``K = log1p(sum_j e^{l_j})``
(``log1p`` keeps the digits of a tiny sum; for a large sum ``K = l_max + log(sum_j e^{l_j - l_max} +
e^{-l_max})``). Nothing overflows in either kernel.

* :func:`rdp_mp`: mpmath at the caller's ``mp.dps`` (read, never set), inside ``workdps`` with guard
  digits for the size of the exponents (an exponent ``E`` carries absolute error ``10^-wp |E|``, which
  is relative error ``10^-wp |E| / K`` in ``K``) and the number of terms. Terms that a float64
  estimate puts more than ``wp + 5`` digits (divided by the number of terms) below the largest are
  skipped; non-finite estimates are never skipped.
* :func:`rdp_np`: float64, vectorised over any broadcast of (alpha, q, z, T); the integer orders needed
  (alpha itself, or floor and ceiling) are deduplicated and summed by a streaming log-sum-exp in
  column blocks. Log binomials use Loader's cancellation-free form (shared with :mod:`.sgm`). Each
  point carries an error estimate (``1.5 eps`` times the sum of the absolute additive pieces of every
  log term, weighted by the term's share, plus summation); points whose estimated relative error
  exceeds ``FALLBACK_RTOL = 1e-11``, or that are not finite, are recomputed with :func:`rdp_mp` at 30
  digits. ``+inf`` is returned only where the true value exceeds the float64 range.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, TypeAlias

import mpmath
import numpy as np
from numpy.typing import ArrayLike, NDArray

from dptheory.core.errors import InvalidParameter, NumericalFailure, ParameterOutOfRange
from dptheory.core.validate import number_text, order_out_of_range
from dptheory.numerics.sgm import _kept, _log_abs_binom, _runs, _stream_lse

__all__ = ["FALLBACK_DPS", "FALLBACK_RTOL", "log_b_mp", "log_b_np", "rdp_mp", "rdp_np"]

Real: TypeAlias = int | float | mpmath.mpf | str

_EPS = float(np.finfo(np.float64).eps)
_LN10 = math.log(10.0)
_LOG2 = math.log(2.0)
_LOG4 = math.log(4.0)
_GUARD = 10  # guard digits of the mp kernel
_ERR_K = 1.5  # float64 model: a log term with additive pieces p_k has absolute error <= _ERR_K eps sum |p_k|
FALLBACK_RTOL = 1e-11  # float64 points with a larger estimated relative error are recomputed in mp
FALLBACK_DPS = 30  # precision of that recomputation
MAX_INT_ORDER = 10**7  # the sum has alpha - 1 terms; larger integer orders are refused
_ROW_CHUNK = 512
_CHUNK = 1 << 20  # float64 estimates of the mp kernel are made in chunks of this many terms


# ----------------------------------------------------------------------------------------------
# validation
# ----------------------------------------------------------------------------------------------


def _bad(where: str, name: str, value: Any, reason: str) -> InvalidParameter:
    return InvalidParameter(key=f"sampled_wor.{where}", name=name, value=number_text(value), reason=reason)


def _order_out_of_range(where: str, alpha: Any) -> ParameterOutOfRange:
    return order_out_of_range(f"sampled_wor.{where}", alpha, MAX_INT_ORDER, "WBK19 Thm 9 has alpha - 1 terms")


def _to_mpf(value: Any, where: str, name: str) -> mpmath.mpf:
    if isinstance(value, (bool, np.bool_)):
        raise _bad(where, name, value, "a boolean is not a number")
    try:
        if isinstance(value, numbers.Integral):
            return mpmath.mpf(int(value))
        if isinstance(value, (float, np.floating)):
            return mpmath.mpf(float(value))
        return mpmath.mpf(value)
    except (TypeError, ValueError) as exc:
        raise _bad(where, name, value, "not a real number") from exc


def _parse(alpha: Any, q: Any, z: Any, T: Any, where: str) -> tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf, mpmath.mpf]:
    a = _to_mpf(alpha, where, "alpha")
    if not (mpmath.isfinite(a) and a > 1):
        raise _bad(where, "alpha", alpha, "the Renyi order must be finite and > 1")
    if a >= MAX_INT_ORDER + 1:
        raise _order_out_of_range(where, alpha)
    qm = _to_mpf(q, where, "q")
    if mpmath.isnan(qm) or not 0 <= qm <= 1:
        raise _bad(where, "q", q, "the sampling fraction gamma = m/n must satisfy 0 <= q <= 1")
    zm = _to_mpf(z, where, "z")
    if not (mpmath.isfinite(zm) and zm > 0):
        raise _bad(where, "z", z, "the noise multiplier must be finite and > 0")
    tm = _to_mpf(T, where, "T")
    if not (mpmath.isfinite(tm) and tm >= 0):
        raise _bad(where, "T", T, "the number of steps must be finite and >= 0")
    return a, qm, zm, tm


# ----------------------------------------------------------------------------------------------
# float64 log terms
# ----------------------------------------------------------------------------------------------


def _log_expm1(c: NDArray[np.float64], log_c: NDArray[np.float64]) -> NDArray[np.float64]:
    """``log(expm1(c))`` for ``c >= 0``; ``log_c`` (= log c) is used where ``c`` underflows."""
    with np.errstate(all="ignore"):
        return np.where(c > 0.5, c + np.log1p(-np.exp(-c)), np.where(c > 1e-280, np.log(np.expm1(c)), log_c))


def _log_terms(
    n: NDArray[np.float64], lg: NDArray[np.float64], lz: NDArray[np.float64], j: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``l_j = log[C(n, j) gamma^j c_j]`` (module docstring) for ``j >= 2`` and its absolute-error scale.

    ``lg = log gamma`` and ``lz = log z`` (so that ``1/z^2 = exp(-2 lz)`` never overflows before it has to).
    """
    logc, cs = _log_abs_binom(n, j)
    with np.errstate(all="ignore"):
        h = np.exp(-2.0 * lz) / 2.0  # 1/(2 z^2)
        expo = j * (j - 1.0) * h  # (j-1) eps(j)
        e2 = 2.0 * h  # eps(2) = 1/z^2
        c2 = np.minimum(_LOG4 + _log_expm1(e2, -2.0 * lz), _LOG2 + e2)
        coef = np.where(j == 2.0, c2, _LOG2 + expo)
        p1 = j * lg
        lt = logc + p1 + coef
        scale = cs + np.abs(p1) + np.abs(coef) + expo + 1.0
    return lt, scale


def _log_b_int_np(
    n: NDArray[np.float64], lg: NDArray[np.float64], lz: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """float64 ``K(n) = log B_n`` at integer orders ``n >= 2`` (any order of rows) and its estimated relative error."""
    order = np.argsort(n, kind="stable")
    out = np.empty_like(n)
    rel = np.empty_like(n)
    for r0 in range(0, n.size, _ROW_CHUNK):
        idx = order[r0:r0 + _ROW_CHUNK]
        nn, gg, zz = n[idx, None], lg[idx, None], lz[idx, None]
        ncols = int(nn.max()) - 1  # j = 2 .. max n

        def block(lo: int, hi: int, nn=nn, gg=gg, zz=zz) -> tuple[NDArray, NDArray]:
            j = np.arange(2 + lo, 2 + hi, dtype=np.float64)[None, :]
            lt, sc = _log_terms(nn, gg, zz, j)
            inside = j <= nn
            return np.where(inside, lt, -np.inf), np.where(inside, sc, 0.0)

        m, s, e = _stream_lse(nn.shape[0], ncols, block)
        with np.errstate(all="ignore"):
            log_s = m + np.log(s)
            rel_s = _ERR_K * _EPS * (e / s + np.abs(m) + math.log2(ncols + 2) + 5.0)
            k = np.logaddexp(0.0, log_s)
            share = np.exp(log_s - k)  # S / (1 + S)
            rel_k = rel_s * share / k + 2.0 * _EPS
        rel_k = np.where(np.isfinite(k) & (k > 1e-280), rel_k, np.inf)
        out[idx] = k
        rel[idx] = rel_k
    return out, rel


def log_b_np(alpha: ArrayLike, q: ArrayLike, z: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """float64 ``K(alpha) = log B_alpha`` of WBK19 Thm 9 at integer orders, with an estimated relative error.

    No validation and no fallback (building block of :func:`rdp_np`; exposed for tests): ``alpha``
    integer-valued ``>= 1``, ``0 < q <= 1``, ``z > 0``. Order 1 gives 0.
    """
    arrays = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (alpha, q, z)))
    shape = arrays[0].shape
    n, qq, zz = (np.ascontiguousarray(x).ravel() for x in arrays)
    out = np.zeros(n.shape)
    rel = np.zeros(n.shape)
    work = np.nonzero(n >= 2)[0]
    if work.size:
        with np.errstate(all="ignore"):
            k, r = _log_b_int_np(n[work], np.log(qq[work]), np.log(zz[work]))
        out[work] = k
        rel[work] = r
    return out.reshape(shape), rel.reshape(shape)


# ----------------------------------------------------------------------------------------------
# mpmath kernel
# ----------------------------------------------------------------------------------------------


def _estimates(n: int, lg: float, lz: float, lo: int, hi: int) -> NDArray[np.float64]:
    j = np.arange(lo, hi, dtype=np.float64)
    lt, _ = _log_terms(np.full(1, float(n)), np.full(1, lg), np.full(1, lz), j)
    return lt


def _kept_terms(n: int, lg: float, lz: float, digits: float) -> NDArray[np.int64]:
    """Indices ``j`` in ``2..n`` whose float64 estimate is within ``digits`` (divided by the count) of the largest."""
    if n - 1 <= _CHUNK:
        return np.nonzero(_kept(_estimates(n, lg, lz, 2, n + 1), digits))[0] + 2
    tops = [np.nanmax(_estimates(n, lg, lz, lo, min(n + 1, lo + _CHUNK)), initial=-np.inf)
            for lo in range(2, n + 1, _CHUNK)]
    top = max(tops)
    parts = []
    for lo in range(2, n + 1, _CHUNK):
        e = _estimates(n, lg, lz, lo, min(n + 1, lo + _CHUNK))
        thr = top - digits * _LN10 - math.log(n) - 5.0 if np.isfinite(top) else -np.inf
        parts.append(np.nonzero(~np.isfinite(e) | (e >= thr))[0] + lo)
    return np.concatenate(parts)


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
    keep = _kept_terms(n, lg, lz, dps + _GUARD + max(0.0, log10_pieces) + math.log10(n + 1.0) + 5)
    # an exponent error 10^-wp |E| is relative error 10^-wp |E| / K in K, and K >= max(l_max, 0)
    with np.errstate(all="ignore"):
        tops = [np.nanmax(_estimates(n, lg, lz, s, t), initial=-np.inf) for s, t in _runs(keep)]
    top_est = max(tops)
    gain = math.log10(top_est) if top_est > 1 else 0.0  # +inf when float64 overflowed: then K is huge too
    extra = max(0.0, log10_pieces - min(gain, log10_pieces))
    wp = math.ceil(dps + _GUARD + extra + math.log10(n + 1.0)) + 2
    with mpmath.workdps(wp):
        log_g = mpmath.log(gm)
        inv_2z2 = 1 / (2 * zm * zm)
        e2 = 2 * inv_2z2
        log_c2 = min(mpmath.log(4) + mpmath.log(mpmath.expm1(e2)), mpmath.log(2) + e2)
        lgn = mpmath.loggamma(n + 1)
        logs = []
        for start, stop in _runs(keep):
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
            result = top + mpmath.log(s + mpmath.exp(-top)) if top < wp * _LN10 + 10 else top + mpmath.log(s)
        else:
            result = mpmath.log1p(mpmath.exp(top) * s)
    return result


def log_b_mp(alpha: int, q: Real, z: Real) -> mpmath.mpf:
    """``K(alpha) = log B_alpha`` of WBK19 (arXiv 1808.00087) Theorem 9 for the Gaussian, integer ``alpha >= 1``.

    ``B_alpha`` is the bracket of Theorem 9 with ``eps(j) = j/(2 z^2)`` and ``eps(inf) = inf``
    (module docstring); ``K(1) = 0``. Returned at the caller's ``mpmath.mp.dps``.

    Raises:
        InvalidParameter: ``alpha`` not an integer >= 1, ``q`` outside ``[0, 1]``, ``z <= 0``.
    """
    dps = mpmath.mp.dps
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Integral) or alpha < 1:
        raise _bad("log_b_mp", "alpha", alpha, "Theorem 9 is stated for integer orders >= 1 (here a Python int)")
    if alpha > MAX_INT_ORDER:
        raise _order_out_of_range("log_b_mp", alpha)
    with mpmath.workdps(dps + _GUARD):
        _, qm, zm, _ = _parse(2, q, z, 0, "log_b_mp")
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
    with mpmath.workdps(dps + _GUARD):
        am, qm, zm, tm = _parse(alpha, q, z, T, "rdp_mp")
        if qm == 0 or tm == 0:
            return mpmath.mpf(0)
        result = tm * _cgf_mp(am, qm, zm, dps) / (am - 1)
    return +result


def _cgf_mp(am: Any, qm: Any, zm: Any, dps: int) -> mpmath.mpf:
    """Corollary 10's bound on the CGF at order ``alpha`` (``K(alpha)`` at integer orders), at the current
    working precision, for ``0 < q <= 1`` (``dps`` is the caller's precision, as in :func:`rdp_mp`)."""
    am, qm, zm = mpmath.mpf(am), mpmath.mpf(qm), mpmath.mpf(zm)
    f = int(mpmath.floor(am))
    t = am - f
    if t == 0:
        return _log_b_int_mp(f, qm, zm, dps + 2)
    return (1 - t) * _log_b_int_mp(f, qm, zm, dps + 2) + t * _log_b_int_mp(f + 1, qm, zm, dps + 2)


# ----------------------------------------------------------------------------------------------
# float64 public kernel
# ----------------------------------------------------------------------------------------------


def _validate_np(a: NDArray, q: NDArray, z: NDArray, t: NDArray) -> None:
    for name, arr, ok, what in (
        ("alpha", a, np.isfinite(a) & (a > 1) & (a < MAX_INT_ORDER + 1), f"finite, > 1 and <= {MAX_INT_ORDER}"),
        ("q", q, (q >= 0) & (q <= 1), "in [0, 1] (the sampling fraction m/n)"),
        ("z", z, np.isfinite(z) & (z > 0), "finite and > 0"),
        ("T", t, np.isfinite(t) & (t >= 0), "finite and >= 0"),
    ):
        if not ok.all():
            k = int(np.argmin(ok))
            raise _bad("rdp_np", name, float(arr[k]), f"must be {what} (flat index {k})")


def rdp_np(alpha: ArrayLike, q: ArrayLike, z: ArrayLike, T: ArrayLike) -> NDArray[np.float64]:
    """float64 RDP bound of WBK19 Thm 9 / Cor. 10 (Gaussian, WOR batches, replace-one), broadcast over inputs.

    Same quantity as :func:`rdp_mp`. The integer orders needed (``alpha`` or ``floor``/``floor + 1``)
    are deduplicated per ``(order, q, z)`` and summed by a streaming log-sum-exp. Points whose estimated
    relative error exceeds ``FALLBACK_RTOL``, or whose float64 value is not finite, are recomputed with
    :func:`rdp_mp` at ``FALLBACK_DPS`` digits; ``+inf`` only where the true value overflows float64.

    Raises:
        InvalidParameter: a parameter outside its domain (the message names it and its flat index).
    """
    arrays = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (alpha, q, z, T)))
    shape = arrays[0].shape
    a, qq, zz, tt = (np.ascontiguousarray(x).ravel() for x in arrays)
    _validate_np(a, qq, zz, tt)
    out = np.zeros(a.shape)
    work = np.nonzero((qq > 0) & (tt > 0))[0]
    if work.size:
        aw, qw, zw, tw = a[work], qq[work], zz[work], tt[work]
        f = np.floor(aw)
        frac = aw - f
        # integer orders needed: f, and f + 1 where alpha is fractional (order 1 contributes K = 0)
        need = np.concatenate([np.stack([f, qw, zw], axis=1), np.stack([f + 1.0, qw, zw], axis=1)[frac > 0]])
        uniq, inverse = np.unique(need, axis=0, return_inverse=True)
        inverse = inverse.ravel()
        k_u, rel_u = log_b_np(uniq[:, 0], uniq[:, 1], uniq[:, 2])
        k_f, rel_f = k_u[inverse[: work.size]], rel_u[inverse[: work.size]]
        k_c = np.zeros(work.size)
        rel_c = np.zeros(work.size)
        k_c[frac > 0] = k_u[inverse[work.size:]]
        rel_c[frac > 0] = rel_u[inverse[work.size:]]
        with np.errstate(all="ignore"):
            cgf = (1.0 - frac) * k_f + frac * k_c
            vals = tw * (cgf / (aw - 1.0))
            rel = np.maximum(rel_f, rel_c) + 4.0 * _EPS
        bad = ~(rel <= FALLBACK_RTOL) | ~np.isfinite(vals)
        cgf_mp: dict[tuple[float, float, float], mpmath.mpf] = {}
        for k in np.nonzero(bad)[0]:
            # rdp_mp's arithmetic at FALLBACK_DPS digits, with the bound on the CGF computed once per (alpha, q, z)
            key = (float(aw[k]), float(qw[k]), float(zw[k]))
            with mpmath.workdps(FALLBACK_DPS + _GUARD):
                if key not in cgf_mp:
                    cgf_mp[key] = _cgf_mp(*key, FALLBACK_DPS)
                am = mpmath.mpf(key[0])
                res = mpmath.mpf(float(tw[k])) * cgf_mp[key] / (am - 1)
            with mpmath.workdps(FALLBACK_DPS):
                vals[k] = float(+res)
        out[work] = vals
    if np.isnan(out).any():  # cannot happen; never return NaN silently
        i = int(np.argmax(np.isnan(out)))
        raise NumericalFailure(f"sampled_wor.rdp_np: NaN at alpha={a[i]}, q={qq[i]}, z={zz[i]}, T={tt[i]}")
    return out.reshape(shape)
