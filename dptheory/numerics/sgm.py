"""Rényi DP of the Poisson-subsampled Gaussian mechanism (SGM): arbitrary-precision and float64 kernels.

Definitions (Mironov, Talwar, Zhang 2019, "Rényi Differential Privacy of the Sampled Gaussian
Mechanism", arXiv 1908.10530, Sec. 3.3; sensitivity 1, noise multiplier ``z``, Poisson sampling
probability ``q``)::

    A_alpha(q, z) = E_{x ~ N(0, z^2)} [((1 - q) + q exp((2x - 1) / (2 z^2)))^alpha]
    RDP of T steps at order alpha = T log(A_alpha) / (alpha - 1)

``q = 1`` is the plain Gaussian, ``T alpha / (2 z^2)`` (Mironov 2017, Prop. 7); ``q = 0`` gives 0.

Integer orders use the exact binomial sum, rewritten without cancellation. Because the binomial
weights sum to 1,

    A_alpha - 1 = sum_{i=2}^{alpha} C(alpha, i) (1-q)^(alpha-i) q^i expm1((i^2 - i) / (2 z^2)),

and every term is positive. ``log A`` is then ``log1p`` of that sum.

Fractional orders use the MTZ19 Sec. 3.3 two-sided series. Split the integral at
``z0 = z^2 log(1/q - 1) + 1/2``, where ``q e^u = 1 - q``, and expand each side binomially:

    s0_i = C(alpha, i) (1-q)^(alpha-i) q^i exp((i^2-i)/(2z^2)) * erfc((i - z0)/(sqrt(2) z)) / 2
    s1_i = C(alpha, i) q^(alpha-i) (1-q)^i exp((j^2-j)/(2z^2)) * erfc((z0 - j)/(sqrt(2) z)) / 2,  j = alpha - i
    A_alpha = sum_{i >= 0} (s0_i + s1_i).

The binomial coefficients are signed. Terms with ``i <= floor(alpha)`` are positive (the *head*). From
``i0 = floor(alpha) + 1`` on, the signs alternate (the *tail*). This module adds two things, both
derived here and checked against quadrature in the tests:

1. **The tail decays only polynomially.** Substituting ``t = (x - z0)/z^2`` gives
   ``s0_i = C(alpha, i) (1-q)^alpha E[e^{i t}; t <= 0]`` and
   ``s1_i = C(alpha, i) (1-q)^alpha E[e^{alpha t} e^{-i t}; t > 0]``. For ``i >> z0`` both
   expectations behave like ``const / i`` (Laplace's method at ``t = 0``), so
   ``|s_i| ~ i^(-alpha-2)``. A plain partial sum therefore needs of order ``10^14`` terms for 50
   digits at ``alpha = 1.5``. (The TF-Privacy-derived codes stop once terms fall ``e^-30`` below
   the sum; that is why ``docs/peers.md`` measures opacus and prv-accountant at about 1e-10 relative.)
2. **The tail is an alternating series of Hausdorff moments.** For ``i > alpha``,
   ``|C(alpha, i)| = |sin(pi alpha)|/pi * B(i - alpha, alpha + 1) = int_0^1 x^(i-i0) dmu(x)`` with a
   positive measure. The two expectations above are moments of ``e^t`` on ``(0, 1]`` and ``e^-t`` on
   ``(0, 1)`` under positive measures. Products and sums of moment sequences are moment sequences.
   So ``a_k = |s0_{i0+k}| + |s1_{i0+k}|`` satisfies ``a_k = int_0^1 x^k dnu(x)`` with ``nu >= 0``,
   and the tail equals ``sum_k (-1)^k a_k``. For such series the Cohen-Rodriguez Villegas-Zagier
   algorithm (Exp. Math. 9 (2000), Algorithm 1 and Prop. 1) with ``n`` terms has a *proven*
   error of at most ``2 S / (3 + sqrt 8)^n``, where ``S = tail <= a_0``. This is the stopping rule:
   ``n`` is chosen so that this bound is below the working precision times the head. The algorithm is
   numerically stable: its weights lie in ``[-1, 1]``, and the sum of ``|weight * term|`` is tracked.
3. **Small log A without cancellation against 1 (float64 kernel).** ``log A = log1p(A - 1)`` needs
   ``A - 1`` to relative precision, but when ``A`` is close to 1 (small ``q``, large ``z``) the two
   largest terms, ``s0_0 = (1-q)^alpha Phi(a0)`` and ``s0_1 = alpha q (1-q)^(alpha-1) Phi(b1)`` with
   ``a0 = z0/z`` and ``b1 = (z0 - 1)/z``, are of size 1. With ``Delta = Phi(a0) - Phi(b1)`` and
   ``Phi(a0) + Phi(-a0) = 1`` they combine with the 1 in closed form::

       1 - s0_0 - s0_1 = (1 - (1-q)^(alpha-1) (1 + (alpha-1) q)) Phi(a0) + Phi(-a0) + alpha q (1-q)^(alpha-1) Delta,

   three positive parts. The first coefficient is ``-expm1(lam)`` with
   ``lam = (alpha-1) log1pmx(-q) + log1pmx((alpha-1) q) <= 0`` and ``log1pmx(x) = log1p(x) - x``: the
   linear parts of ``(alpha-1) log1p(-q) + log1p((alpha-1) q)`` cancel exactly, and the two remaining
   parts have the same sign. ``Delta`` is a normal probability over an interval of width ``1/z``,
   computed from the tail on its side (or from two ``erf`` values when it straddles 0). So

       A - 1 = sum_{i>=2} s0_i + sum_{i>=0} s1_i - (1 - s0_0 - s0_1)

   holds no term of size 1. That still leaves a cancellation between ``s0_2`` and the first part,
   by a factor of about ``e^(1/z^2) / (e^(1/z^2) - 1) ~ z^2`` (``log A ~ q^2/z^2`` while both are
   ``~ q^2``). For ``q < 1/2`` the first part is therefore spread over the terms: with
   ``t_i = C(alpha,i) (1-q)^(alpha-i) q^i``, the binomial series gives ``sum_{i>=2} t_i =
   1 - (1-q)^(alpha-1)(1 + (alpha-1) q)`` (it converges because ``q/(1-q) < 1``), so

       A - 1 = sum_{i>=2} t_i (expm1(c_i) Phi(x0_i) - (Phi(a0) - Phi(x0_i))) + sum_{i>=0} s1_i
               - Phi(-a0) - alpha q (1-q)^(alpha-1) Delta,

   with ``c_i = (i^2 - i)/(2z^2)`` and ``x0_i = (z0 - i)/z``. For large ``z`` the first bracket is
   ``~ c_i`` and the second ``~ (i/z) phi(a0)``, so nothing cancels. In the alternating tail the
   bracket is the difference of two moment sequences (``|t_i| e^{c_i} Phi(x0_i)`` and
   ``|t_i| Phi(a0)``), so the CVZ sum keeps a proven bound, ``2 (A_0 + B_0)/(3 + sqrt 8)^n``. What
   cancellation remains (``alpha`` very close to 1; ``q >= 1/2`` with large ``z``) enters the error
   estimate.

4. **The mp kernel sums ``A - 1`` as well.** Summing ``A`` itself needs ``log10(1/(A - 1))`` digits
   more than the answer (800 extra digits at ``q = 1e-400``). The mp series instead leaves out
   ``s0_0`` and ``s0_1`` and subtracts ``1 - s0_0 - s0_1`` in the closed form of item 3, whose two
   cancelling pieces (``lam`` and ``Delta``) are formed on their own with the extra digits their
   cancellation needs; what cancellation remains (between ``s0_2`` and the first part, of order
   ``z^2``) enters ``kappa`` below. ``log A = log1p(A - 1)``.

5. **Huge noise (float64 kernel).** With ``w = e^{(2x-1)/(2 z^2)} - 1`` under ``x ~ N(0, z^2)``,
   ``A = E[(1 + q w)^alpha] = sum_j C(alpha, j) q^j E[w^j]`` with ``E[w] = 0``,
   ``E[w^2] = expm1(s)`` and, ``s = 1/z^2``, ``E[w^j] = O(s^ceil(j/2))`` (the j-th finite difference of
   ``i -> e^{i(i-1)s/2}`` vanishes on every power of ``s`` below ``j/2``): ``E[w^3] = 3 s^2 + O(s^3)``,
   ``E[w^4] = 3 s^2 + O(s^3)``. Relative to the leading term ``C(alpha, 2) q^2 expm1(s)`` the j = 3 term
   is ``(alpha - 2) q s`` and the j = 4 term ``(alpha - 2)(alpha - 3) q^2 s / 4``; both are below
   ``(alpha q / z)^2 + alpha q s <= 2e-20`` when ``z >= 1e4`` and ``alpha q <= 1e-10 z`` (the regime
   ``HUGE_NOISE``; ``z >= 1e4`` also puts the Gaussian tail where ``q w > 1`` beyond ``e^{-1e7}``, so the
   binomial series of a fractional power converges where it matters). There the float64 kernel takes
   ``A - 1 = C(alpha, 2) q^2 expm1(1/z^2)`` (relative error below 1e-19 plus rounding) instead of a series
   of about ``alpha`` terms at 30 digits (``alpha = 1e4``, ``z = 1.2e19`` took seconds per order, and an
   order search minutes). Checked against the mp series in tests/test_sgm.py.

Precision policy (mp kernels): a kernel reads the caller's ``mpmath.mp.dps``, works inside
``mpmath.workdps`` with guard digits, and returns a value rounded to the caller's precision. It never
sets precision globally. Guard digits cover three things:

(a) the magnitude of the exponents (an exponent ``E`` carries absolute error ``10^-wp |E|``);
(b) the number of terms;
(c) for the signed fractional series, the measured cancellation
    ``kappa = sum |contributions| / (A |log A|)`` (contributions to ``A - 1``, item 4).

If the first pass shows that (c) needs more digits, the series is re-evaluated at the higher precision, up to
``dps + 1500`` digits; beyond that the kernel raises :class:`~dptheory.core.errors.NumericalFailure`.
A term (or one of the two pieces of a fractional term) is skipped only when a float64 estimate of its
logarithm puts it below ``10^-(working digits + 3)`` of the largest term divided by the number of
terms, so all skipped terms together are below the rounding error. Those float64 logs are accurate
to far better than the margin. Estimates that are not finite never cause a skip.

float64 kernel (:func:`rdp_np`): the same two formulas in log space (log-sum-exp), vectorised with
numpy and scipy over orders and terms at once; fractional orders are summed as ``A - 1`` (item 3).
Each point carries a rounding-error estimate: relative error of each log-term about
``1.5 eps * (sum of |additive pieces|)``, plus summation, cancellation and CVZ-truncation terms. Every
point whose estimated relative error in ``log A`` exceeds ``1e-11`` (integer orders) or ``1e-12``
(fractional orders) is recomputed with :func:`rdp_mp` at 30 digits. This hybrid is what lets
``rdp_np`` agree with ``rdp_mp`` to 1e-10 relative over the whole parameter range (1e-12 at
fractional orders). Points that still fall back (about 5% of fractional orders drawn log-uniformly
from ``q`` in ``[1e-6, 1]``, ``z`` in ``[0.3, 100]``, ``alpha - 1`` in ``[1e-4, 1e4]``; 70% before item
3) are those where ``A - 1`` itself is a difference of much larger parts: ``alpha`` very close to 1,
or ``q >= 1/2`` together with large ``z``. (The previous fractional kernel, :func:`_log_a_frac_np`, sums ``A``
itself; it is kept as a second float64 method for the tests.)
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Callable
from typing import Any, TypeAlias

import mpmath
import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from dptheory.core.errors import NumericalFailure, ParameterOutOfRange
from dptheory.core.validate import number_text as _num
from dptheory.core.validate import order_out_of_range

__all__ = ["log_a_mp", "log_a_quad_mp", "rdp_mp", "rdp_np"]

Real: TypeAlias = int | float | mpmath.mpf

_EPS = float(np.finfo(np.float64).eps)
_LN10 = math.log(10.0)
_LOG2 = math.log(2.0)
_LOG_PI = math.log(math.pi)
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
_SQRT2 = math.sqrt(2.0)
_CVZ_RATE = 3.0 + math.sqrt(8.0)
_LOG_CVZ_RATE = math.log(_CVZ_RATE)

_GUARD = 10  # base guard digits of the mp kernels
_MAX_EXTRA_DIGITS = 1500  # cap on adaptive precision above the caller's dps
_ERR_K = 1.5  # float64 model: a log-term with additive pieces p_j has abs. error <= _ERR_K * eps * sum |p_j|
FALLBACK_RTOL = 1e-11  # float64 points with a larger estimated relative error are recomputed in mp
# Stricter for the fractional A - 1 kernel, which now serves points the mp fallback used to serve: its
# estimate exceeded the measured error by at least 2.8x at 1000 random points (q in [1e-6, 1], z in
# [0.3, 100], alpha in (1, 1e4]), so the float64 values it accepts stay below 1e-12 relative error.
FALLBACK_RTOL_FRAC = 1e-12
FALLBACK_DPS = 30  # precision of that recomputation
_CVZ_N_FLOAT = 26  # CVZ terms in float64: truncation 2/(3+sqrt 8)^26 < 3e-20 of the tail
HUGE_NOISE_MIN_Z = 1e4  # item 5: the huge-noise regime needs z >= this ...
HUGE_NOISE_RATIO = 1e-10  # ... and alpha q <= HUGE_NOISE_RATIO z
_MAX_INT_ORDER = 10**8  # the kernels refuse larger orders (the cost of the series grows like alpha)
_ROW_CHUNK = 512
_BLOCK_ELEMS = 1 << 19

# Stirling series coefficients B_{2k} / (2k (2k-1)), k = 1..8
_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156, -3617 / 122400)


# ----------------------------------------------------------------------------------------------
# validation
# ----------------------------------------------------------------------------------------------


def _to_mpf(value: Any) -> mpmath.mpf:
    if isinstance(value, bool):
        raise ValueError(f"expected a number, got {_num(value)}")
    if isinstance(value, numbers.Integral):
        return mpmath.mpf(int(value))
    if isinstance(value, (float, np.floating)):
        return mpmath.mpf(float(value))
    return mpmath.mpf(value)


def _parse_order(alpha: Any, where: str) -> tuple[int | None, mpmath.mpf]:
    """Return ``(n, alpha)`` with ``n`` the exact integer order when alpha is integer-valued."""
    try:
        a = _to_mpf(alpha)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: order alpha must be a real number > 1, got alpha={_num(alpha)}") from exc
    if not mpmath.isfinite(a) or not a > 1:
        raise ValueError(f"{where}: order alpha must be finite and > 1, got alpha={_num(alpha)}")
    if a > _MAX_INT_ORDER:
        raise _order_out_of_range(where, alpha)
    if mpmath.isint(a):
        return int(a), a
    return None, a


def _order_out_of_range(where: str, alpha: Any) -> ParameterOutOfRange:
    return order_out_of_range(where, alpha, _MAX_INT_ORDER, "the exact binomial sum at integer orders, and its "
                              "head at fractional ones, needs about alpha terms")


def _check_qz(q: Any, z: Any, where: str) -> tuple[mpmath.mpf, mpmath.mpf]:
    try:
        qm, zm = _to_mpf(q), _to_mpf(z)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: q and z must be real numbers, got q={_num(q)}, z={_num(z)}") from exc
    if mpmath.isnan(qm) or not 0 <= qm <= 1:
        raise ValueError(f"{where}: sampling probability q must satisfy 0 <= q <= 1, got q={_num(q)}")
    if not mpmath.isfinite(zm) or not zm > 0:
        raise ValueError(f"{where}: noise multiplier z must be finite and > 0, got z={_num(z)}")
    return qm, zm


def _check_steps(T: Any, where: str) -> mpmath.mpf:
    try:
        t = _to_mpf(T)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: number of steps T must be a real number >= 0, got T={_num(T)}") from exc
    if not mpmath.isfinite(t) or not t >= 0:
        raise ValueError(f"{where}: number of steps T must be finite and >= 0, got T={_num(T)}")
    return t


# ----------------------------------------------------------------------------------------------
# float64 building blocks (log magnitudes with an error scale)
# ----------------------------------------------------------------------------------------------


def _stirlerr(x: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``log Gamma(x+1) - [(x + 1/2) log x - x + log(2 pi)/2]`` for ``x > 0`` and its error scale.

    For ``x >= 10``: the Stirling series to ``x^-15``, with truncation below 3e-17. Below 10: the
    direct difference. Its absolute error is a few ulps of the largest piece, which is the
    returned scale.
    """
    with np.errstate(all="ignore"):
        r = 1.0 / (x * x)
        acc = np.full_like(x, _STIRLING[-1])
        for c in _STIRLING[-2::-1]:
            acc = acc * r + c
        series = acc / x
        g = special.gammaln(x + 1.0)
        xl = (x + 0.5) * np.log(x)
        direct = g - xl + x - _HALF_LOG_2PI
        big = x >= 10.0
        val = np.where(big, series, direct)
        scale = np.where(big, 0.1, np.abs(g) + np.abs(xl) + x + 1.0)
    return val, scale


def _log_abs_binom(
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


def _log_expm1(c: NDArray[np.float64], log_c: NDArray[np.float64]) -> NDArray[np.float64]:
    """``log(expm1(c))`` for ``c >= 0``; ``log_c`` is used where ``c`` underflows."""
    with np.errstate(all="ignore"):
        return np.where(c > 0.5, c + np.log1p(-np.exp(-c)), np.where(c > 1e-280, np.log(np.expm1(c)), log_c))


def _int_log_terms(
    n: NDArray[np.float64],
    lq: NDArray[np.float64],
    l1q: NDArray[np.float64],
    z: NDArray[np.float64],
    lz: NDArray[np.float64],
    i: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Log of ``C(n,i) (1-q)^(n-i) q^i expm1((i^2-i)/(2z^2))`` (``i >= 2``) and its error scale."""
    logc, cs = _log_abs_binom(n, i)
    with np.errstate(all="ignore"):
        c = (i * i - i) / (2.0 * z * z)
        lem = _log_expm1(c, np.log(i * i - i) - _LOG2 - 2.0 * lz)
        p1 = i * lq
        p2 = (n - i) * l1q
        lt = logc + p1 + p2 + lem
        scale = cs + np.abs(p1) + np.abs(p2) + np.abs(lem) + c
    return lt, scale


def _frac_log_terms(
    a: NDArray[np.float64],
    lq: NDArray[np.float64],
    l1q: NDArray[np.float64],
    z: NDArray[np.float64],
    i: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Log magnitudes of ``s0_i`` and ``s1_i`` (module docstring) and a common error scale.

    The pieces come from :func:`_frac_pieces`; the scale is each piece's error weighted by its
    share of ``s0 + s1`` (a negligible piece cannot spoil the sum).
    """
    logc, cs, s0, e0, s1, e1 = _frac_pieces(a, lq, l1q, z, i)
    return logc + s0, logc + s1, cs + 1.0 + _mixed_scale(s0, e0, s1, e1)


def _mixed_scale(
    s0: NDArray[np.float64], e0: NDArray[np.float64], s1: NDArray[np.float64], e1: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Error scale of ``exp(s0) + exp(s1)``: each piece's scale weighted by its share of the sum."""
    with np.errstate(all="ignore"):
        top = np.maximum(s0, s1)
        top = np.where(np.isfinite(top), top, 0.0)
        w0 = np.exp(s0 - top)
        w1 = np.exp(s1 - top)
        return (np.where(w0 > 0, w0 * e0, 0.0) + np.where(w1 > 0, w1 * e1, 0.0)) / (w0 + w1)


def _frac_pieces(
    a: NDArray[np.float64],
    lq: NDArray[np.float64],
    l1q: NDArray[np.float64],
    z: NDArray[np.float64],
    i: NDArray[np.float64],
    branch: str = "both",
) -> tuple[NDArray[np.float64], ...]:
    """``(log|C(a,i)|, its scale, log|s0_i / C|, its scale, log|s1_i / C|, its scale)``.

    Each ``exp(c) * Phi(x)`` factor is evaluated in whichever of two equivalent forms avoids
    cancellation. For ``x >= 0``, ``log_ndtr(x)`` lies in ``[-0.7, 0]`` and is used directly. For
    ``x < 0``, the Mills-ratio identity ``Phi(x) = phi(x) sqrt(pi/2) erfcx(-x/sqrt 2)`` makes the
    geometric factors collapse to ``(1-q)^alpha exp(-z0^2/(2z^2)) erfcx(-x/sqrt 2)/2``. That form
    has no large pieces of opposite sign. ``branch`` is passed to :func:`_log_abs_binom`.
    """
    logc, cs = _log_abs_binom(a, i, branch)
    with np.errstate(all="ignore"):
        z2 = z * z
        L = l1q - lq
        z0 = z2 * L + 0.5
        hz = z0 * z0 / (2.0 * z2)
        mills_base = a * l1q - hz - _LOG2
        # Error model. The rounding of z0 itself needs no term: A does not depend on the split point
        # (the two one-sided integrands agree at z0), so a consistently shifted z0 moves the s0 and
        # s1 sums in opposite directions. The Mills form uses i lq + (a-i) l1q + i L = a l1q, which
        # holds only for the exact L; the mismatch is |i| eps (|lq| + |l1q|).
        ql = np.abs(lq) + np.abs(l1q)
        mills_err = np.abs(a * l1q) + 3.0 * hz

        x0 = (z0 - i) / z
        c0 = (i * i - i) / (2.0 * z2)
        lphi0 = special.log_ndtr(x0)
        d0 = i * lq + (a - i) * l1q + c0 + lphi0
        lx0 = np.log(special.erfcx(-x0 / _SQRT2))
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
        lx1 = np.log(special.erfcx(-x1 / _SQRT2))
        m1 = mills_base + lx1
        s1 = np.where(x1 >= 0, d1, m1)
        e1 = np.where(
            x1 >= 0,
            np.abs(j * lq) + np.abs(i * l1q) + np.abs(c1) + np.abs(lphi1),
            mills_err + np.abs(lx1) + (np.abs(j) + 1.0) * ql,
        )
    return logc, cs, s0, e0, s1, e1


@functools.lru_cache(maxsize=64)
def _cvz_weights(n: int) -> NDArray[np.float64]:
    """Weights ``w_k`` (k < n) with ``sum_k w_k a_k ~ sum_k (-1)^k a_k`` (CVZ 2000, Algorithm 1)."""
    with mpmath.workdps(40):
        return np.array([float(w) for w in _cvz_weights_mp(n)])


def _cvz_weights_mp(n: int) -> list[mpmath.mpf]:
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


# ----------------------------------------------------------------------------------------------
# float64 vectorised log A with error estimates
# ----------------------------------------------------------------------------------------------


def _stream_lse(
    rows: int, ncols: int, block: Callable[[int, int], tuple[NDArray[np.float64], NDArray[np.float64]]]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Streaming log-sum-exp over column blocks.

    Returns ``(m, s, e)`` with ``sum_j exp(lt_j) = e^m s`` and ``e^m e = sum_j exp(lt_j) scale_j``.
    """
    m = np.full(rows, -np.inf)
    s = np.zeros(rows)
    e = np.zeros(rows)
    width = max(64, _BLOCK_ELEMS // max(rows, 1))
    with np.errstate(all="ignore"):
        for lo in range(0, ncols, width):
            lt, sc = block(lo, min(ncols, lo + width))
            newm = np.maximum(m, lt.max(axis=1))
            ref = np.where(np.isfinite(newm), newm, 0.0)
            scale = np.exp(m - ref)
            w = np.exp(lt - ref[:, None])
            s = s * scale + w.sum(axis=1)
            e = e * scale + np.where(w > 0, w * sc, 0.0).sum(axis=1)
            m = newm
    return m, s, e


def _log_a_int_np(
    n: NDArray[np.float64], lq: NDArray[np.float64], l1q: NDArray[np.float64], z: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
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
            lt, sc = _int_log_terms(nn, qq, q1, zz, zl, i)
            inside = i <= nn
            return np.where(inside, lt, -np.inf), np.where(inside, sc, 0.0)

        m, s, e = _stream_lse(nn.shape[0], ncols, block)
        with np.errstate(all="ignore"):
            log_s = m + np.log(s)
            rel_s = _ERR_K * _EPS * (e / s + np.abs(m) + math.log2(ncols + 2) + 5.0)
            la_c = np.logaddexp(0.0, log_s)
            sig = np.exp(log_s - la_c)
            rel_c = rel_s * sig / la_c
        rel_c = np.where(np.isfinite(la_c) & (la_c > 1e-280), rel_c, np.inf)
        la[sl] = la_c
        rel[sl] = rel_c
    return la, rel


def _log_a_frac_np(
    a: NDArray[np.float64], lq: NDArray[np.float64], l1q: NDArray[np.float64], z: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """float64 ``log A`` at fractional orders ``a`` (sorted) with estimated relative error, summing ``A`` itself.

    Not used by the kernels (see :func:`_log_a_frac_am1_np`; the mp kernel sums ``A - 1`` too, item 4):
    a second float64 method with its own error estimate, kept for the tests.
    """
    la = np.empty_like(a)
    rel = np.empty_like(a)
    w = _cvz_weights(_CVZ_N_FLOAT)
    wabs = np.abs(w)
    for r0 in range(0, a.size, _ROW_CHUNK):
        sl = slice(r0, min(a.size, r0 + _ROW_CHUNK))
        aa, qq, q1, zz = a[sl, None], lq[sl, None], l1q[sl, None], z[sl, None]
        i0 = np.floor(aa) + 1.0
        ncols = int(i0.max())

        def block(lo: int, hi: int, aa=aa, qq=qq, q1=q1, zz=zz, i0=i0) -> tuple[NDArray, NDArray]:
            i = np.arange(lo, hi, dtype=np.float64)[None, :]
            l0, l1, sc = _frac_log_terms(aa, qq, q1, zz, i)
            inside = i < i0
            with np.errstate(all="ignore"):
                return np.where(inside, np.logaddexp(l0, l1), -np.inf), np.where(inside, sc, 0.0)

        mh, sh, eh = _stream_lse(aa.shape[0], ncols, block)
        it = i0 + np.arange(_CVZ_N_FLOAT, dtype=np.float64)[None, :]
        t0, t1, tsc = _frac_log_terms(aa, qq, q1, zz, it)
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


_LOG1PMX_COEFFS = tuple(1.0 / (2 * k + 3) for k in range(18))


def _log1pmx(x: NDArray[np.float64]) -> NDArray[np.float64]:
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


def _log_ndtr_scaled(x: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``log Phi(x)`` and its absolute-error scale: the value's ulps plus the argument's rounding.

    A relative rounding ``eps`` of ``x`` moves ``log Phi`` by ``eps |x| phi(x)/Phi(x)``.
    """
    with np.errstate(all="ignore"):
        v = special.log_ndtr(x)
        ratio = np.exp(-0.5 * x * x - _HALF_LOG_2PI - v)  # phi(x) / Phi(x)
        return v, np.abs(v) + np.abs(x) * ratio + 1.0


def _log_ndtr_diff(
    hi: NDArray[np.float64], lo: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``log(Phi(hi) - Phi(lo))`` for ``hi > lo``, and its absolute-error scale, without cancellation.

    Both in the upper tail (``lo >= 0``): ``Phi(-lo) (1 - Phi(-hi)/Phi(-lo))`` with the ratio from
    ``log_ndtr`` and ``expm1``; both in the lower tail (``hi <= 0``): the mirror image. Straddling 0:
    ``(erf(hi/sqrt 2) + erf(-lo/sqrt 2))/2``, a sum of two nonnegative parts.
    """
    with np.errstate(all="ignore"):
        upper = lo >= 0.0
        tails = upper | (hi <= 0.0)
        lb, sb = _log_ndtr_scaled(np.where(upper, -lo, hi))  # the larger tail probability
        ls, ss = _log_ndtr_scaled(np.where(upper, -hi, lo))  # the smaller one
        d = ls - lb  # < 0
        tail = lb + np.log(-np.expm1(d))
        tail_s = sb + (sb + ss) / np.expm1(-d)
        mid = 0.5 * (special.erf(hi / _SQRT2) + special.erf(-lo / _SQRT2))
        dens = (np.abs(hi) * np.exp(-0.5 * hi * hi) + np.abs(lo) * np.exp(-0.5 * lo * lo)) / math.sqrt(2.0 * math.pi)
        mid_s = 4.0 + dens / mid
        return np.where(tails, tail, np.log(mid)), np.where(tails, tail_s, mid_s)


def _am1_constant_pieces(
    a: NDArray[np.float64],
    lq: NDArray[np.float64],
    l1q: NDArray[np.float64],
    z: NDArray[np.float64],
    q: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Logs (last axis, 3 entries) and error scales of the positive parts of ``1 - s0_0 - s0_1``.

    With ``a0 = z0/z``, ``b1 = (z0 - 1)/z`` and ``Delta = Phi(a0) - Phi(b1)`` (module docstring, item 3)::

        1 - s0_0 - s0_1 = (1 - (1-q)^(a-1) (1 + (a-1) q)) Phi(a0) + Phi(-a0) + a q (1-q)^(a-1) Delta.

    The first factor is ``-expm1(lam)`` with ``lam = (a-1) log1pmx(-q) + log1pmx((a-1) q) <= 0``: the
    linear parts of the two logarithms cancel exactly, so both remaining parts are negative and
    ``lam`` has a small relative error.
    """
    with np.errstate(all="ignore"):
        z0 = z * z * (l1q - lq) + 0.5  # the same expression as in _frac_pieces
        a0 = z0 / z
        b1 = (z0 - 1.0) / z
        am1 = a - 1.0
        lam = am1 * _log1pmx(-q) + _log1pmx(am1 * q)
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


def _stream_lse_multi(
    rows: int, ncols: int, k: int, block: Callable[[int, int], list[tuple[NDArray[np.float64], NDArray[np.float64]]]]
) -> list[tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]]:
    """:func:`_stream_lse` for ``k`` streams of log-terms produced by the same column blocks."""
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


def _am1_left_pieces(
    a: NDArray[np.float64],
    lq: NDArray[np.float64],
    l1q: NDArray[np.float64],
    z: NDArray[np.float64],
    split: NDArray[np.bool_],
    i: NDArray[np.float64],
    branch: str,
) -> tuple[NDArray[np.float64], ...]:
    """Pieces of term ``i >= 2`` of the ``A - 1`` sum (module docstring, item 3), logs with error scales.

    Returns ``(log|C|, scale, log s0-part, scale, log subtracted part, scale, log s1-part / C, scale,
    log |s0_i / C|)``. Where ``split`` (``q < 1/2``) the ``s0`` part is
    ``(1-q)^(a-i) q^i expm1(c_i) Phi(x0)`` and the subtracted part ``(1-q)^(a-i) q^i (Phi(a0) - Phi(x0))``
    (their difference is ``s0_i - (1-q)^(a-i) q^i Phi(a0)``); elsewhere the ``s0`` part is ``s0_i / C``
    itself and nothing is subtracted.
    """
    logc, cs, s0, e0, s1, e1 = _frac_pieces(a, lq, l1q, z, i, branch)
    with np.errstate(all="ignore"):
        z0 = z * z * (l1q - lq) + 0.5  # the same expression as in _frac_pieces
        c = (i * i - i) / (2.0 * z * z)
        lfac = np.log(-np.expm1(-c))  # expm1(c) = e^c (1 - e^-c); relative error of c ~2 eps -> ~2 eps here
        lpos = np.where(split, s0 + lfac, s0)
        epos = np.where(split, e0 + 2.0, e0)
        ld, ld_s = _log_ndtr_diff(z0 / z, (z0 - i) / z)
        p1, p2 = i * lq, (a - i) * l1q
        lneg = np.where(split, p1 + p2 + ld, -np.inf)
        eneg = np.abs(p1) + np.abs(p2) + ld_s + 1.0
    return logc, cs, lpos, epos, lneg, eneg, s1, e1, s0


def _log_a_frac_am1_np(
    a: NDArray[np.float64], lq: NDArray[np.float64], l1q: NDArray[np.float64], z: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """float64 ``log A`` at fractional orders ``a`` (sorted) via ``A - 1`` (module docstring, item 3).

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
    la = np.empty_like(a)
    rel = np.empty_like(a)
    n_cvz = _CVZ_N_FLOAT
    w = _cvz_weights(n_cvz)
    wabs = np.abs(w)
    with np.errstate(all="ignore"):
        q = np.where(l1q > -_LOG2, -np.expm1(l1q), np.exp(lq))
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
                pos_s = cs + 1.0 + _mixed_scale(lpos, epos, s1, e1)
                inside = i < i0
                neg_in = inside & left
                return [
                    (np.where(inside, pos, -np.inf), np.where(inside, pos_s, 0.0)),
                    (np.where(neg_in, logc + lneg, -np.inf), np.where(neg_in, cs + eneg, 0.0)),
                ]

        (mp_, sp_, ep_), (mn_, sn_, en_) = _stream_lse_multi(rows, ncols, 2, block)
        it = i0 + np.arange(n_cvz, dtype=np.float64)[None, :]
        logc, cs, lpos, epos, lneg, eneg, s1, e1, s0 = _am1_left_pieces(aa, qq, q1, zz, split, it, "above")
        with np.errstate(all="ignore"):
            lat = logc + np.logaddexp(lpos, s1)
            tsc = cs + 1.0 + _mixed_scale(lpos, epos, s1, e1)
            latn = logc + lneg
            tscn = cs + eneg
            # CVZ bound for the tail of a difference of two moment sequences: 2 (A_0 + B_0) / (3 + sqrt 8)^n,
            # A_0 = |s0| + |s1| and B_0 = |t_i0| Phi(a0) at i0
            z0 = zz * zz * (q1 - qq) + 0.5
            lb0 = np.where(split, logc[:, :1] + it[:, :1] * qq + (aa - it[:, :1]) * q1 + special.log_ndtr(z0 / zz),
                           -np.inf)[:, 0]
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
                _ERR_K * _EPS
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


# ----------------------------------------------------------------------------------------------
# mp kernels
# ----------------------------------------------------------------------------------------------


def _float_params(qm: mpmath.mpf, zm: mpmath.mpf) -> tuple[float, float, float, float]:
    """``(log q, log1p(-q), z, log z)`` as floats (for term-size estimates only)."""
    with mpmath.workdps(20):
        return float(mpmath.log(qm)), float(mpmath.log1p(-qm)), float(zm), float(mpmath.log(zm))


def _kept(lt: NDArray[np.float64], digits: float) -> NDArray[np.bool_]:
    """Terms within ``digits`` decimal digits (divided by their number) of the largest; non-finite kept."""
    finite = np.isfinite(lt)
    if not finite.any():
        return np.ones(lt.shape, dtype=bool)
    top = lt[finite].max()
    thr = top - digits * _LN10 - math.log(lt.size + 1) - 5.0
    return ~finite | (lt >= thr) | np.isnan(lt)


def _runs(idx: NDArray[np.int64]) -> list[tuple[int, int]]:
    """Contiguous runs ``[start, stop)`` of a sorted index array."""
    if idx.size == 0:
        return []
    breaks = np.nonzero(np.diff(idx) != 1)[0]
    starts = np.concatenate(([idx[0]], idx[breaks + 1]))
    stops = np.concatenate((idx[breaks] + 1, [idx[-1] + 1]))
    return [(int(s), int(t)) for s, t in zip(starts, stops, strict=True)]


def _int_estimates(n: int, lq: float, l1q: float, zf: float, lz: float, lo: int, hi: int) -> NDArray[np.float64]:
    i = np.arange(lo, hi, dtype=np.float64)
    lt, _ = _int_log_terms(
        np.full(1, float(n)), np.full(1, lq), np.full(1, l1q), np.full(1, zf), np.full(1, lz), i
    )
    return lt


def _log_a_int_mp(n: int, qm: mpmath.mpf, zm: mpmath.mpf, dps: int) -> mpmath.mpf:
    """log A at integer order n: ``log1p(sum_{i>=2} C(n,i)(1-q)^(n-i) q^i expm1((i^2-i)/(2z^2)))``.

    All terms are positive, so no cancellation occurs. The binomials are exact Python integers.
    Terms that a float64 estimate puts more than ``dps + 60`` digits (divided by the number of
    terms) below the largest are skipped.
    """
    lq, l1q, zf, lz = _float_params(qm, zm)
    digits = dps + 60
    chunk = 1 << 20
    if n - 1 <= chunk:
        lt = _int_estimates(n, lq, l1q, zf, lz, 2, n + 1)
        keep = np.nonzero(_kept(lt, digits))[0] + 2
    else:  # two passes in chunks: bounded memory
        tops = [np.nanmax(_int_estimates(n, lq, l1q, zf, lz, lo, min(n + 1, lo + chunk)), initial=-np.inf)
                for lo in range(2, n + 1, chunk)]
        top = max(tops)
        parts = []
        for lo in range(2, n + 1, chunk):
            e = _int_estimates(n, lq, l1q, zf, lz, lo, min(n + 1, lo + chunk))
            thr = top - digits * _LN10 - math.log(n) - 5.0 if np.isfinite(top) else -np.inf
            parts.append(np.nonzero(~np.isfinite(e) | (e >= thr))[0] + lo)
        keep = np.concatenate(parts)
    imax = int(keep.max())
    # exponent size: expm1(c) with c = (i^2 - i)/(2 z^2) carries relative error 10^-wp * c (log10 via lz: no overflow)
    log10_c = (math.log(imax * imax - imax) - _LOG2 - 2.0 * lz) / _LN10
    wp = dps + _GUARD + math.ceil(max(log10_c, 0.0) + math.log10(n + 2.0)) + 1
    with mpmath.workdps(wp):
        one_m_q = 1 - qm
        two_z2 = 2 * zm * zm
        terms = []
        for start, stop in _runs(keep):
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
        digits = mpmath.mp.dps - float(x * x) / (2 * _LN10) + 5
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
    """One evaluation of ``A - 1`` from the signed MTZ19 series at ``wp`` digits (module docstring, item 4).

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
        n_guess = head.size + math.ceil((wp + 2) * _LN10 / _LOG_CVZ_RATE) + 2
        floor_log = top - (wp + 3) * _LN10 - math.log(n_guess)

        def piece(i: int, j: mpmath.mpf, log_abs_c: mpmath.mpf, est: float, right: bool) -> mpmath.mpf:
            nonlocal comp_max
            if not right and i < 2:  # s0_0 and s0_1 are in the closed-form constant part
                return mpmath.mpf(0)
            if math.isfinite(est) and est < floor_log:  # -inf/NaN estimates (float rounding of alpha) are kept
                return mpmath.mpf(0)
            drop = int((top - est) / _LN10) - 1 if math.isfinite(top) and math.isfinite(est) else 0
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
        for start, stop in _runs(head):
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
        n = math.ceil(((wp + 2) * _LN10 + _LOG2 + max(0.0, ratio)) / _LOG_CVZ_RATE) + 1
        e0t, e1t = estimate(np.arange(i0, i0 + n, dtype=np.float64))
        weights = _cvz_weights_mp(n)
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
    """``1 - s0_0 - s0_1`` at ``wp`` digits from its three positive parts (module docstring, item 3), and their sum.

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


def _log_a_frac_mp(am: mpmath.mpf, qm: mpmath.mpf, zm: mpmath.mpf, dps: int) -> mpmath.mpf:
    """log A at a fractional order as ``log1p(A - 1)``, adaptive precision (module docstring, items 1, 2, 4)."""
    i0 = int(mpmath.floor(am)) + 1
    lq, l1q, zf, _ = _float_params(qm, zm)
    af = float(am)
    one = np.ones(1)

    def estimate(i: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        e0, e1, _ = _frac_log_terms(af * one, lq * one, l1q * one, zf * one, i)
        return np.where(i < 2, -np.inf, e0), e1  # s0_0, s0_1: in the closed-form constant part

    l0, l1 = estimate(np.arange(i0, dtype=np.float64))
    with np.errstate(all="ignore"):
        lh = np.logaddexp(l0, l1)
    wp = dps + _GUARD + math.ceil(math.log10(i0 + 200)) + 5
    for _attempt in range(12):
        head = np.nonzero(_kept(lh, wp + 5))[0]
        total, abs_sum, comp_max, nterms = _frac_series_mp(am, qm, zm, i0, head, wp, estimate)
        with mpmath.workdps(wp):
            if not (mpmath.isfinite(total) and total > -1):
                raise NumericalFailure(
                    f"log_a_mp: fractional series gave A-1={total} at alpha={am}, q={qm}, z={zm} ({wp} digits)"
                )
            # A > 1 (Jensen): a difference that is not positive has cancelled below the working precision
            log_a = mpmath.log1p(total) if total > 0 else mpmath.mpf(0)
            kappa = abs_sum / ((1 + total) * log_a) if total > 0 else mpmath.inf
        need = dps + _GUARD + math.log10(1.0 + comp_max) + math.log10(nterms + 1.0)
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
    (module docstring). The working precision rises until the measured cancellation leaves
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
    with mpmath.workdps(dps + _GUARD):
        n, am = _parse_order(alpha, "log_a_mp")
        qm, zm = _check_qz(q, z, "log_a_mp")
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
    """``log A`` in the huge-noise regime (module docstring, item 5) by the moment series
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
        with mpmath.workdps(dps + _GUARD + lost * ((j + 1) // 2) + 10):
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
    with mpmath.workdps(dps + _GUARD):
        t = _check_steps(T, "rdp_mp")
        _, am = _parse_order(alpha, "rdp_mp")
        qm, zm = _check_qz(q, z, "rdp_mp")
        if qm == 1:
            result = t * am / (2 * zm * zm)
        else:
            result = t * log_a_mp(alpha, q, z) / (am - 1)
    return +result


# ----------------------------------------------------------------------------------------------
# independent oracle: quadrature of the defining integral
# ----------------------------------------------------------------------------------------------


def _stationary_points(a: float, z0: float, z: float) -> list[float]:
    """Maxima of the integrand's log: fixed points of ``x = a * sigmoid((x - z0)/z^2)``, from 0 and from a."""
    out = []
    for x in (0.0, a):
        for _ in range(400):
            x = a * float(special.expit((x - z0) / (z * z)))
        out.append(x)
    return out


def log_a_quad_mp(alpha: Real, q: Real, z: Real) -> mpmath.mpf:
    """``log A_alpha(q, z)`` by ``mpmath.quad`` of the defining integral (MTZ19 Sec. 3.3). Test oracle only.

    With ``w(x) = q expm1((2x - 1)/(2 z^2))`` and ``E[w] = 0`` (because ``E[e^{(2x-1)/(2z^2)}] = 1``),

        A - 1 = E[(1 + w)^alpha - 1 - alpha w],

    and the integrand ``g(w) = (1+w)^alpha - 1 - alpha w`` is >= 0 for ``alpha > 1`` (convexity). So the
    integral has no cancellation and small ``log A`` come out to full relative precision. Subtracting
    only 1 would leave a zero-mean ``O(q)`` part around an ``O(q^2)`` result. Near ``w = 0``, ``g``
    is evaluated with extra digits (about ``log10(2/((alpha - 1)|w|))``). The breakpoints are
    ``0, 1/2, +-3z, +-6z, +-12z`` around 0 and around ``alpha``, the crossover ``z0`` with ``+-6z``,
    and the integrand's maxima with ``+-6z`` (tanh-sinh on each piece). The result is accepted only
    if mpmath's error estimate is below ``10^-(dps+3)`` of the integral. Otherwise the quadrature is
    repeated with a higher degree and 20, then 40, more digits; if it still fails, it raises.
    Library code never calls this; tests and checks do.

    Args:
        alpha: Rényi order, > 1.
        q: sampling probability in ``[0, 1]``.
        z: noise multiplier, > 0.

    Returns:
        ``log A_alpha`` at the caller's precision.

    Raises:
        ValueError: a parameter outside the domain.
        NumericalFailure: the quadrature error estimate is too large.
    """
    dps = mpmath.mp.dps
    wp = dps + 15
    with mpmath.workdps(wp):
        _, am = _parse_order(alpha, "log_a_quad_mp")
        qm, zm = _check_qz(q, z, "log_a_quad_mp")
        if qm == 0:
            return mpmath.mpf(0)
        if qm == 1:
            result = am * (am - 1) / (2 * zm * zm)
        else:
            result = _quad_log_a(am, qm, zm, dps, wp)
    return +result


def _quad_log_a(am: mpmath.mpf, qm: mpmath.mpf, zm: mpmath.mpf, dps: int, wp: int) -> mpmath.mpf:
    """The quadrature of :func:`log_a_quad_mp` for ``0 < q < 1`` (at ``wp`` digits, result unrounded)."""
    with mpmath.workdps(wp):
        am1 = am - 1
        base_extra = max(0, math.ceil(-float(mpmath.log10(am1))))
        two_z2 = 2 * zm * zm

        def g(w: mpmath.mpf) -> mpmath.mpf:
            if w == 0:
                return mpmath.mpf(0)
            extra = base_extra + max(0, math.ceil(-0.30103 * mpmath.mag(w))) + 5
            cur = mpmath.mp.dps
            with mpmath.workdps(cur + min(extra, cur)):
                return mpmath.expm1(am * mpmath.log1p(w)) - am * w

        def f(x: mpmath.mpf) -> mpmath.mpf:
            w = qm * mpmath.expm1((2 * x - 1) / two_z2)
            return mpmath.npdf(x, 0, zm) * g(w)

        z0 = zm * zm * (mpmath.log1p(-qm) - mpmath.log(qm)) + mpmath.mpf(1) / 2
        af, zf, z0f = float(am), float(zm), float(z0)
        pts = {0.0, 0.5, af, z0f}
        for c in (0.0, af):
            for k in (3, 6, 12):
                pts.update((c - k * zf, c + k * zf))
        for k in (-6, 6):
            pts.add(z0f + k * zf)
        for s in _stationary_points(af, z0f, zf):
            pts.update((s - 6 * zf, s, s + 6 * zf))
        finite = sorted(p for p in pts if math.isfinite(p))
        merged: list[float] = []
        for p in finite:
            if not merged or p - merged[-1] > 1e-9 * zf:
                merged.append(p)
        points = [mpmath.ninf] + [mpmath.mpf(p) for p in merged] + [mpmath.inf]
        value = err = mpmath.mpf(0)
        for extra_digits, degree in ((0, 8), (0, 10), (20, 10), (40, 12)):
            with mpmath.workdps(wp + extra_digits):
                value, err = mpmath.quad(f, points, error=True, maxdegree=degree)
            if err <= mpmath.mpf(10) ** (-(dps + 3)) * abs(value):
                break
        else:
            raise NumericalFailure(
                f"log_a_quad_mp: quadrature error estimate {mpmath.nstr(err, 3)} too large for "
                f"A-1={mpmath.nstr(value, 5)} at alpha={am}, q={qm}, z={zm}, dps={dps}"
            )
        if not (mpmath.isfinite(value) and value >= 0):
            raise NumericalFailure(f"log_a_quad_mp: quadrature gave A-1={value} at alpha={am}, q={qm}, z={zm}")
        return mpmath.log1p(value)


# ----------------------------------------------------------------------------------------------
# float64 public kernel
# ----------------------------------------------------------------------------------------------


def _validate_np(a: NDArray, q: NDArray, z: NDArray, t: NDArray) -> None:
    for name, arr, ok, what in (
        ("alpha", a, np.isfinite(a) & (a > 1), "finite and > 1"),
        ("q", q, (q >= 0) & (q <= 1), "in [0, 1]"),
        ("z", z, np.isfinite(z) & (z > 0), "finite and > 0"),
        ("T", t, np.isfinite(t) & (t >= 0), "finite and >= 0"),
    ):
        if not ok.all():
            k = int(np.argmin(ok))
            raise ValueError(f"rdp_np: {name} must be {what}; got {name}={_num(arr.flat[k])} at flat index {k}")
    if (a > _MAX_INT_ORDER).any():
        k = int(np.argmax(a > _MAX_INT_ORDER))
        raise _order_out_of_range(f"rdp_np (flat index {k})", a.flat[k])


def rdp_np(alpha: ArrayLike, q: ArrayLike, z: ArrayLike, T: ArrayLike) -> NDArray[np.float64]:
    """float64 RDP ``T log A_alpha(q, z) / (alpha - 1)`` of the sampled Gaussian mechanism, broadcast.

    MTZ19 (arXiv 1908.10530) Sec. 3.3. Integer orders: the positive-term sum of ``A - 1`` as a
    streaming log-sum-exp (numpy and scipy; log binomials in Loader's cancellation-free form). This
    never overflows, and ``log A = logaddexp(0, log(A - 1))``. Fractional orders: the signed series
    in log space (head by log-sum-exp, alternating tail by 26-term CVZ acceleration), summed as
    ``A - 1`` with the terms of size 1 combined in closed form (module docstring, item 3), and
    again ``log A = logaddexp(0, log(A - 1))``.

    Hybrid: each point carries an estimate of its relative error (module docstring). Points whose
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
    _validate_np(a, qq, zz, tt)
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
        # huge noise (module docstring, item 5): the leading term is exact to float64 rounding, and the
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
        la_mp: dict[int, mpmath.mpf] = {}
        for k in np.nonzero(bad)[0]:
            u = int(inv[k])
            # the same arithmetic as rdp_mp at FALLBACK_DPS digits, with log A computed once per triple
            with mpmath.workdps(FALLBACK_DPS + _GUARD):
                if u not in la_mp:
                    la_mp[u] = log_a_mp(float(au[u]), float(qu[u]), float(zu[u]))
                res = mpmath.mpf(float(tt[work[k]])) * la_mp[u] / (mpmath.mpf(float(au[u])) - 1)
            with mpmath.workdps(FALLBACK_DPS):
                vals[k] = float(+res)
        out[work] = vals
    if np.isnan(out).any():  # cannot happen; never return NaN silently
        kn = int(np.argmax(np.isnan(out)))
        raise NumericalFailure(f"rdp_np: NaN at alpha={a[kn]}, q={qq[kn]}, z={zz[kn]}, T={tt[kn]}")
    return out.reshape(shape)
