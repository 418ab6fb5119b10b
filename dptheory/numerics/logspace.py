"""Log-domain arithmetic without cancellation, DP-free: the one home of each helper (mpmath, float64, arb).

* ``log1pmx`` (``log1p(x) - x``): :func:`log1pmx` (float64 arrays), :func:`log1pmx_mp` (mpmath, extra bits),
  :func:`log1pmx_arb` (python-flint balls, series with a rigorous tail radius).
* log-sum-exp: :func:`stream_lse` / :func:`stream_lse_multi` (float64, streamed over column blocks, with a
  summed error scale).
* log-binomials: :func:`log_abs_binom` (float64, Loader's 2000 cancellation-free saddle-point form, with an
  error scale); :func:`log_expm1`.
* term selection for log-domain sums: :func:`kept` (terms that can matter at a given precision) and
  :func:`runs` (contiguous runs of their indices).

scipy and python-flint are imported inside the functions that need them (``import dptheory`` stays light).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import mpmath
import numpy as np
from numpy.typing import NDArray

__all__ = [
    "HALF_LOG_2PI",
    "LN10",
    "LOG2",
    "SQRT2",
    "kept",
    "kept_indices",
    "log1pmx",
    "log1pmx_arb",
    "log1pmx_mp",
    "log_abs_binom",
    "log_expm1",
    "runs",
    "stream_lse",
    "stream_lse_multi",
]

#: float64 constants of the log-domain kernels (here and in :mod:`dptheory.privacy`), written once
LOG2 = math.log(2.0)
LN10 = math.log(10.0)
SQRT2 = math.sqrt(2.0)
HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
_LOG_PI = math.log(math.pi)
_BLOCK_ELEMS = 1 << 19  # cells of one column block of a streamed log-sum-exp

# Stirling series coefficients B_{2k} / (2k (2k-1)), k = 1..8
_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156, -3617 / 122400)


def _stirlerr(x: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``log Gamma(x+1) - [(x + 1/2) log x - x + log(2 pi)/2]`` for ``x > 0`` and its error scale.

    For ``x >= 10``: the Stirling series to ``x^-15``, with truncation below 3e-17. Below 10: the
    direct difference. Its absolute error is a few ulps of the largest piece, which is the
    returned scale.
    """
    from scipy import special

    with np.errstate(all="ignore"):
        r = 1.0 / (x * x)
        acc = np.full_like(x, _STIRLING[-1])
        for c in _STIRLING[-2::-1]:
            acc = acc * r + c
        series = acc / x
        g = special.gammaln(x + 1.0)
        xl = (x + 0.5) * np.log(x)
        direct = g - xl + x - HALF_LOG_2PI
        big = x >= 10.0
        val = np.where(big, series, direct)
        scale = np.where(big, 0.1, np.abs(g) + np.abs(xl) + x + 1.0)
    return val, scale


def log_abs_binom(
    a: NDArray[np.float64], i: NDArray[np.float64], branch: str = "both"
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``log |C(a, i)|`` for real ``a > 0`` and integer ``i >= 0``, with an absolute-error scale.

    ``i < a`` uses Loader's (2000) entropy form, a sum of nonnegative pieces without cancellation:
    ``k log1p(m/k) + m log1p(k/m) + log(a/(2 pi k m))/2 + se(a) - se(k) - se(m)``, with
    ``k = i``, ``m = a - i`` and ``se`` the Stirling remainder. ``i > a`` (``a`` not an integer) uses
    ``|C(a, i)| = |sin(pi a)|/pi * Gamma(a+1) Gamma(i-a) / Gamma(i+1)`` in the same form. This gives
    ``-inf`` for integer ``a < i``. It agrees with mpmath to about 1e-16 * (1 + |log C|), while
    ``gammaln`` and ``betaln`` differences are off by up to 1e-9 absolute at ``a = 1e6``.

    ``branch="below"`` (``"above"``) evaluates only the ``i < a`` (``i > a``) form: a caller that
    knows which side every cell it uses lies on saves half the work. Cells on the other side then
    hold meaningless values (``i = 0`` still gives 0 with ``"below"``).
    """
    k = i
    m = a - i
    with np.errstate(all="ignore"):
        sa, sa_s = _stirlerr(a)
        if branch != "above":
            kk = np.where(k > 0, k, 1.0)
            mm = np.where(m > 0, m, 1.0)
            t1 = kk * np.log1p(mm / kk)
            t2 = mm * np.log1p(kk / mm)
            t3 = 0.5 * np.log(a / (2.0 * np.pi * kk * mm))
            sk, sk_s = _stirlerr(kk)
            sm, sm_s = _stirlerr(mm)
            below = t1 + t2 + t3 + sa - sk - sm
            below_s = t1 + t2 + np.abs(t3) + sa_s + sk_s + sm_s
            if branch == "below":
                inner = k > 0
                return np.where(inner, below, 0.0), np.where(inner, below_s, 0.0) + 1.0
        # above: i > a, a not an integer
        mp_ = np.where(m < 0, -m, 1.0)
        kp = np.where(m < 0, k, a + 1.0)
        f = a - np.floor(a)
        f = np.minimum(f, 1.0 - f)
        lsin = np.log(np.sin(np.pi * f))
        u1 = a * np.log1p(mp_ / a)
        u2 = mp_ * np.log1p(a / mp_)
        u3 = 0.5 * np.log(2.0 * np.pi * a * mp_ / kp)
        smp, smp_s = _stirlerr(mp_)
        skp, skp_s = _stirlerr(kp)
        lm = np.log(mp_)
        above = lsin - _LOG_PI - lm - u1 - u2 + u3 + sa + smp - skp
        above_s = np.abs(lsin) + 2.0 + np.abs(lm) + u1 + u2 + np.abs(u3) + sa_s + smp_s + skp_s
        if branch == "above":
            return above, above_s + 1.0
        inner = (k > 0) & (m > 0)
        val = np.where(inner, below, np.where(m < 0, above, 0.0))
        scale = np.where(inner, below_s, np.where(m < 0, above_s, 0.0)) + 1.0
    return val, scale


def log_expm1(c: NDArray[np.float64], log_c: NDArray[np.float64]) -> NDArray[np.float64]:
    """``log(expm1(c))`` for ``c >= 0``; ``log_c`` is used where ``c`` underflows."""
    with np.errstate(all="ignore"):
        return np.where(c > 0.5, c + np.log1p(-np.exp(-c)), np.where(c > 1e-280, np.log(np.expm1(c)), log_c))


def stream_lse(
    rows: int, ncols: int, block: Callable[[int, int], tuple[NDArray[np.float64], NDArray[np.float64]]]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Streaming log-sum-exp over column blocks.

    Returns ``(m, s, e)`` with ``sum_j exp(lt_j) = e^m s`` and ``e^m e = sum_j exp(lt_j) scale_j``
    (the one-stream case of :func:`stream_lse_multi`, the same arithmetic).
    """
    return stream_lse_multi(rows, ncols, 1, lambda lo, hi: [block(lo, hi)])[0]


def stream_lse_multi(
    rows: int, ncols: int, k: int, block: Callable[[int, int], list[tuple[NDArray[np.float64], NDArray[np.float64]]]]
) -> list[tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]]:
    """Streaming log-sum-exp (:func:`stream_lse`) for ``k`` streams of log-terms produced by the same column blocks."""
    m = [np.full(rows, -np.inf) for _ in range(k)]
    s = [np.zeros(rows) for _ in range(k)]
    e = [np.zeros(rows) for _ in range(k)]
    width = max(64, _BLOCK_ELEMS // max(rows, 1))
    with np.errstate(all="ignore"):
        for lo in range(0, ncols, width):
            for j, (lt, sc) in enumerate(block(lo, min(ncols, lo + width))):
                newm = np.maximum(m[j], lt.max(axis=1))
                ref = np.where(np.isfinite(newm), newm, 0.0)
                scale = np.exp(m[j] - ref)
                w = np.exp(lt - ref[:, None])
                s[j] = s[j] * scale + w.sum(axis=1)
                e[j] = e[j] * scale + np.where(w > 0, w * sc, 0.0).sum(axis=1)
                m[j] = newm
    return list(zip(m, s, e, strict=True))


_LOG1PMX_COEFFS = tuple(1.0 / (2 * k + 3) for k in range(18))


def log1pmx(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """``log1p(x) - x`` for ``x > -1``, to a few ulps relative (no cancellation near 0).

    On ``[-1/2, 1]``, with ``y = x/(2+x)`` (so ``|y| <= 1/3``), ``log1p(x) = 2 atanh(y)`` gives
    ``log1p(x) - x = -x^2/(2+x) + 2 y^3 sum_{k>=0} y^(2k)/(2k+3)``. For ``x < 0`` both parts are
    negative; for ``x > 0`` the second is at most ``x/6`` of the first. 18 series terms leave a
    truncation below ``9^-18`` relative. Outside that interval the direct difference loses at most
    two bits (``|log1p(x) - x| >= |x|/4`` there).
    """
    with np.errstate(all="ignore"):
        y = x / (2.0 + x)
        y2 = y * y
        acc = np.full_like(y2, _LOG1PMX_COEFFS[-1])
        for c in _LOG1PMX_COEFFS[-2::-1]:
            acc = acc * y2 + c
        series = -x * x / (2.0 + x) + 2.0 * y * y2 * acc
        return np.where((x >= -0.5) & (x <= 1.0), series, np.log1p(x) - x)


def log1pmx_mp(u: mpmath.mpf) -> mpmath.mpf:
    """``log1p(u) - u`` for ``u >= 0`` at the current precision: the difference of two numbers of size
    ``u`` that agree to about ``log2(1/u)`` bits, so it is formed with that many extra bits."""
    extra = max(0, -int(mpmath.mag(u))) + 16 if u != 0 else 0
    with mpmath.workprec(mpmath.mp.prec + extra):
        d = mpmath.log1p(u) - u
    return +d


def log1pmx_arb(x: Any) -> Any:
    """``log(1 + x) - x`` on a ball without cancellation for small ``|x|``: the series
    ``sum_{k >= 2} (-1)^(k+1) x^k / k``, stopped once the bound ``|x|^(K+1) / ((K+1)(1 - |x|))`` of the terms
    left out is below the working precision of the sum, and that bound added as a radius."""
    import flint

    arb = flint.arb
    if not bool(abs(x) < arb(1) / 2):
        return x.log1p() - x
    prec = flint.ctx.prec
    ax = abs(x).upper()
    total = arb(0)
    power = x * x  # x^k
    k = 2
    while True:
        total += -power / k if k % 2 == 0 else power / k
        power = power * x
        bound = (abs(power).upper() / ((k + 1) * (1 - ax))).upper()
        if bool(bound <= abs(total).lower() * arb(2) ** (-prec - 4)) or k > 4 * prec + 10:
            return total + arb(0, bound)
        k += 1


def kept(lt: NDArray[np.float64], digits: float) -> NDArray[np.bool_]:
    """Terms within ``digits`` decimal digits (divided by their number) of the largest; non-finite kept."""
    finite = np.isfinite(lt)
    if not finite.any():
        return np.ones(lt.shape, dtype=bool)
    top = lt[finite].max()
    thr = top - digits * LN10 - math.log(lt.size + 1) - 5.0
    return ~finite | (lt >= thr) | np.isnan(lt)


def kept_indices(
    estimate: Callable[[int, int], NDArray[np.float64]], lo: int, hi: int, digits: float, chunk: int = 1 << 20
) -> NDArray[np.int64]:
    """Indices ``lo <= i < hi`` of the terms :func:`kept` keeps, from float64 log estimates ``estimate(a, b)`` of
    the terms ``a .. b - 1``. Above ``chunk`` terms the estimates are made twice, chunk by chunk (the largest
    first, then the threshold), so memory stays bounded at any number of terms."""
    if hi - lo <= chunk:
        return np.nonzero(kept(estimate(lo, hi), digits))[0] + lo
    top = max(np.nanmax(estimate(a, min(hi, a + chunk)), initial=-np.inf) for a in range(lo, hi, chunk))
    thr = top - digits * LN10 - math.log(hi - lo + 1) - 5.0 if np.isfinite(top) else -np.inf
    parts = []
    for a in range(lo, hi, chunk):
        e = estimate(a, min(hi, a + chunk))
        parts.append(np.nonzero(~np.isfinite(e) | (e >= thr))[0] + a)
    return np.concatenate(parts)


def runs(idx: NDArray[np.int64]) -> list[tuple[int, int]]:
    """Contiguous runs ``[start, stop)`` of a sorted index array."""
    if idx.size == 0:
        return []
    breaks = np.nonzero(np.diff(idx) != 1)[0]
    starts = np.concatenate(([idx[0]], idx[breaks + 1]))
    stops = np.concatenate((idx[breaks] + 1, [idx[-1] + 1]))
    return [(int(s), int(t)) for s, t in zip(starts, stops, strict=True)]
