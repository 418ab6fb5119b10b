"""Binary kl divergence, its inversion, and Maurer's xi(n): float64 fast paths and mpmath paths.

``kl(q||p) = q ln(q/p) + (1-q) ln((1-q)/(1-p))`` (``0 ln 0 = 0``), in nats. It is convex in ``p``,
zero at ``p = q``, increasing on ``[q, 1]`` and decreasing on ``[0, q]`` (``docs/derivations/pacbayes_maxinfo.md``,
kl inverses). The inverses used by PAC-Bayes risk certificates:

* upper: ``kl_inv_upper(q, c) = sup{p in [q, 1]: kl(q||p) <= c}``;
* lower: ``kl_inv_lower(q, c) = inf{p in [0, q]: kl(q||p) <= c}``.

Every inverse returns the *safe end* of a bracket of width ``<= tol`` that contains the root: the
upper inverse never returns a value below the true one, the lower inverse never above it, so a risk
certificate stays conservative by at most ``tol``.

Float64 path (scalar, tens of microseconds per call; bench/bench_kl.py): safeguarded Newton. On ``[q, 1)``
the function
``f(p) = kl(q||p) - c`` is convex and increasing, so Newton started at any point with ``f >= 0``
decreases monotonically to the root and never crosses it; two starting points with ``f >= 0`` are
known in closed form (Pinsker, ``p <= q + sqrt(c/2)``, and dropping ``-q ln p >= 0``). The lower
inverse mirrors this from the left. The result is then certified: ``f(p - tol) < 0`` is checked
(else bisection continues), so ``[p - tol, p]`` brackets the root. The Newton point is first moved
outward by ten times the float64 evaluation error of ``kl`` near the root (:func:`_outward`; ``kl``
is evaluated without cancellation as ``q h(d/q) + (1-q) h(-d/(1-q))`` with ``h(x) = x - log1p(x)``).

mpmath path: plain bisection on the same bracket at the caller's precision (an algorithm
independent of the float64 Newton, used as its oracle), returning the safe end.

arb path (certified; ``kl_inv_upper_arb``, ``kl_inv_lower_arb``, ``xi_arb``, ``kl_inv_enclose``): balls in, a
ball out that contains the exact inverse for every point of the input balls. Bisection whose bracket ends are
each certified by the sign of a ball evaluation of ``kl(q||p) - c``; the caller's Ziv loop
(``dptheory.core.compile.enclose``) raises the precision until the bracket is narrow enough. ``docs/compiler.md``,
"Certified kl inversions".

``xi(n) = sum_k C(n,k) (k/n)^k (1-k/n)^(n-k)`` (Maurer 2004) equals ``1 + Q(n)`` with Ramanujan's
``Q(n) = sum_{k>=1} prod_{i<k} (1 - i/n)`` (Abel's identity; checked against the direct sum in
``tests/test_kl.py``). The Q series has ``O(sqrt(n))`` significant terms; above ``n = 10^5`` (mpmath)
or ``10^7`` (float64) the integral form ``Q(n) = int_0^inf e^-x (1 + x/n)^(n-1) dx`` is used instead,
so ``xi`` is cheap at any ``n``; the direct binomial sum is kept as an oracle.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import mpmath
import numpy as np

from dptheory.core.errors import DPTheoryError, NumericalFailure
from dptheory.numerics.logspace import log1pmx_mp

__all__ = [
    "exact_int_arb",
    "kl_bernoulli",
    "kl_bernoulli_arb",
    "kl_bernoulli_mp",
    "kl_bernoulli_np",
    "kl_inv_enclose",
    "kl_inv_lower",
    "kl_inv_lower_arb",
    "kl_inv_lower_mp",
    "kl_inv_lower_np",
    "kl_inv_upper",
    "kl_inv_upper_arb",
    "kl_inv_upper_mp",
    "kl_inv_upper_np",
    "xi",
    "xi_arb",

    "xi_mp",
    "xi_np",
]

DEFAULT_TOL = 1e-14
_MAX_NEWTON = 100


class KLDomainError(DPTheoryError, ValueError):
    """An argument of kl or of its inverse outside its domain (q, p in [0, 1], c >= 0)."""


def _check_qc(q: float, c: float, what: str) -> None:
    if not (0.0 <= q <= 1.0):
        raise KLDomainError(f"{what}: q must lie in [0, 1] (an empirical risk); got q = {q!r}")
    if math.isnan(c):
        raise KLDomainError(f"{what}: c must be a number >= 0; got NaN")
    if c < 0:
        raise KLDomainError(f"{what}: c must be >= 0 (a kl budget); got c = {c!r}")


# ----------------------------------------------------------------------------- kl, float64
_H_COEF = tuple((1.0 / k if k % 2 == 0 else -1.0 / k) for k in range(2, 20))  # x^2/2 - x^3/3 + ...


def _h(x: float) -> float:
    """x - log1p(x) >= 0 for x > -1, without cancellation near 0 (series for |x| < 0.1)."""
    ax = abs(x)
    if ax < 0.1:
        # terms kept: |x|^(k-2) * 2/k < 1e-18 relative to x^2/2
        nterms = 6 if ax < 1e-3 else (9 if ax < 1e-2 else 18)
        s = 0.0
        for coef in reversed(_H_COEF[:nterms]):
            s = s * x + coef
        return s * x * x
    if x <= -1.0:
        return math.inf
    return x - math.log1p(x)


def kl_bernoulli(q: float, p: float) -> float:
    """kl(q||p) in nats, float64 (``inf`` where p is 0 or 1 and q is not).

    Reference: ``docs/derivations/pacbayes_maxinfo.md``, kl inverses; definition with 0 ln 0 = 0.
    """
    q = float(q)
    p = float(p)
    if not (0.0 <= q <= 1.0) or not (0.0 <= p <= 1.0):
        raise KLDomainError(f"kl(q||p) needs q, p in [0, 1]; got q = {q!r}, p = {p!r}")
    if q == p:
        return 0.0
    if q == 0.0:
        return -math.log1p(-p) if p < 1.0 else math.inf
    if q == 1.0:
        return -math.log(p) if p > 0.0 else math.inf
    if p == 0.0 or p == 1.0:
        return math.inf
    d = p - q
    if abs(d) > 0.1 * min(q, 1.0 - q):
        # far from q: the defining formula, each log in its accurate form (d = p - q is exact when the
        # ratio is within a factor 2, so log1p(d/q) is accurate there; a log of the ratio otherwise)
        a = -q * math.log1p(d / q) if 0.5 * q < p < 2.0 * q else q * math.log(q / p)
        b = (
            -(1.0 - q) * math.log1p(-d / (1.0 - q))
            if 0.5 * (1.0 - q) < 1.0 - p < 2.0 * (1.0 - q)
            else (1.0 - q) * (math.log1p(-q) - math.log1p(-p))
        )
        return a + b
    return q * _h(d / q) + (1.0 - q) * _h(-d / (1.0 - q))


def _h_np(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    small = np.abs(x) < 0.1
    xs = np.where(small, x, 0.0)
    s = np.zeros_like(xs)
    for k in range(19, 1, -1):
        s = s * xs + (1.0 / k if k % 2 == 0 else -1.0 / k)
    series = s * xs * xs
    with np.errstate(divide="ignore", invalid="ignore"):
        direct = x - np.log1p(np.where(small, 0.0, x))
    return np.where(small, series, direct)


def kl_bernoulli_np(q: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Vectorised kl(q||p) in nats (``inf`` where p is 0 or 1 and q is not)."""
    q, p = np.broadcast_arrays(np.asarray(q, dtype=np.float64), np.asarray(p, dtype=np.float64))
    if np.any((q < 0) | (q > 1) | (p < 0) | (p > 1) | np.isnan(q) | np.isnan(p)):
        raise KLDomainError("kl(q||p) needs q, p in [0, 1]")
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        qi = np.clip(q, 1e-300, 1 - 1e-16)
        d = p - q
        near = q * _h_np(d / qi) + (1.0 - q) * _h_np(-d / np.maximum(1.0 - q, 1e-300))
        far = q * np.log(qi / p) + (1.0 - q) * (np.log1p(-q) - np.log1p(-np.minimum(p, 1.0)))
        out = np.where(np.abs(d) > 0.1 * np.minimum(q, 1.0 - q), far, near)
        out = np.where(q == 0.0, -np.log1p(-np.minimum(p, 1.0)), out)
        out = np.where(q == 1.0, -np.log(p), out)
        out = np.where((q > 0) & (q < 1) & ((p == 0) | (p == 1)), np.inf, out)
        out = np.where(q == p, 0.0, out)
    return out


# ----------------------------------------------------------------------------- kl, mpmath
def _h_mp(x: mpmath.mpf) -> mpmath.mpf:
    """x - log1p(x) at the current precision, with extra bits against the cancellation near 0."""
    if x == 0:
        return mpmath.mpf(0)
    extra = max(0, -2 * int(mpmath.mag(x))) + 10
    with mpmath.workprec(mpmath.mp.prec + extra):
        v = x - mpmath.log1p(x)
    return +v


def kl_bernoulli_mp(q: mpmath.mpf, p: mpmath.mpf) -> mpmath.mpf:
    """kl(q||p) in nats at the current mpmath precision (0 ln 0 = 0; no cancellation near p = q)."""
    q = mpmath.mpf(q)
    p = mpmath.mpf(p)
    if not (0 <= q <= 1) or not (0 <= p <= 1):
        raise KLDomainError(f"kl(q||p) needs q, p in [0, 1]; got q = {q}, p = {p}")
    if p == q:
        return mpmath.mpf(0)
    if (p == 0 and q > 0) or (p == 1 and q < 1):
        return mpmath.inf
    if q == 0:
        return -mpmath.log1p(-p)
    if q == 1:
        return -mpmath.log(p)
    d = p - q
    if abs(d) <= min(q, 1 - q) / 2:
        # near q: q h(d/q) + (1-q) h(-d/(1-q)) with h(x) = x - log1p(x) (the first-order terms cancel exactly)
        return q * _h_mp(d / q) + (1 - q) * _h_mp(-d / (1 - q))
    return q * mpmath.log(q / p) + (1 - q) * (mpmath.log1p(-q) - mpmath.log1p(-p))


# ----------------------------------------------------------------------------- inverses, float64
def _upper_start(q: float, c: float) -> float:
    """A point p in [q, 1] with kl(q||p) >= c (both candidates are valid; take the smaller)."""
    pinsker = q + math.sqrt(c / 2.0)
    # kl(q||p) >= q ln q + (1-q) ln((1-q)/(1-p)) since -q ln p >= 0, so 1 - p = (1-q) e^-x works,
    # x = (c - q ln q)/(1-q); computed as -expm1(log1p(-q) - x) to keep tiny values exact
    x = (c - q * math.log(q)) / (1.0 - q)
    drop = -math.expm1(math.log1p(-q) - x)
    start = min(pinsker, drop)
    return start if start > q else max(pinsker, drop)


def _lower_start(q: float, c: float) -> float:
    """A point p in [0, q] with kl(q||p) >= c (both candidates are valid; take the larger)."""
    pinsker = q - math.sqrt(c / 2.0)
    # kl(q||p) >= q ln(q/p) + (1-q) ln(1-q) since -(1-q) ln(1-p) >= 0
    drop = q * math.exp(-(c - (1.0 - q) * math.log1p(-q)) / q)
    return max(pinsker, drop)


def kl_inv_upper(q: float, c: float, tol: float = DEFAULT_TOL) -> float:
    """sup{p in [q, 1]: kl(q||p) <= c}, returned at the safe (upper) end of a bracket of width <= tol.

    Args:
        q: empirical risk in [0, 1].
        c: kl budget in nats (>= 0; ``inf`` gives 1).
        tol: bracket width (default 1e-14).

    Returns:
        p >= the true inverse, with p - tol below it.

    Reference: ``docs/derivations/pacbayes_maxinfo.md``, kl inverses (closed forms at q = 0, q = 1, c = 0); Maurer 2004.
    """
    return _kl_inv_float(q, c, tol, True)


def _kl_inv_float(q: float, c: float, tol: float, upper: bool) -> float:
    """:func:`kl_inv_upper` (``upper``) or :func:`kl_inv_lower`: the domain check, the closed-form ends (c = 0,
    c = inf, q at either end; the float64 twin of :func:`_kl_inv_mp`), then Newton from the closed-form start
    and the certified bracket."""
    q = float(q)
    c = float(c)
    _check_qc(q, c, "kl_inv_upper" if upper else "kl_inv_lower")
    far = 1.0 if upper else 0.0  # the end of [0, 1] on the searched side
    if c == 0.0 or q == far:
        return q if c == 0.0 else far
    if math.isinf(c):
        return far
    if q == 1.0 - far:  # closed forms, rounded outward by 2 ulp
        return min(1.0, -math.expm1(-c) * (1.0 + 4e-16)) if upper else max(0.0, math.exp(-c) * (1.0 - 4e-16))
    p = _upper_start(q, c) if upper else _lower_start(q, c)
    if (p >= 1.0) if upper else (p <= 0.0):
        # the start reached the far end (for the lower inverse it underflowed: the root is below the smallest
        # positive double's neighbourhood)
        return far
    root = _newton_toward_root(q, c, p, upper)
    return _certify_upper(q, c, root, tol) if upper else _certify_lower(q, c, root, tol)


def _newton_toward_root(q: float, c: float, p: float, upper: bool) -> float:
    """Newton's iteration on ``kl(q||p) - c`` from a start ``p`` with kl >= c, the shared loop of
    :func:`kl_inv_upper` (``upper``: p in (q, 1], moving down) and :func:`kl_inv_lower` (p in [0, q), moving
    up); kl(q||.) is convex, so the iterates stay on the start's side of the root but for rounding."""
    f = kl_bernoulli(q, p) - c
    for _ in range(_MAX_NEWTON):
        if f <= 0.0:
            break
        if upper:
            step = f * (p / (p - q)) * (1.0 - p)  # ratio first: f * p underflows for tiny p
            p_new = p - step
            crossed = p_new <= q  # cannot happen in exact arithmetic (convexity); guard rounding
        else:
            step = f * (p / (q - p)) * (1.0 - p)
            p_new = p + step
            crossed = p_new >= q
        if crossed:
            p_new = 0.5 * (p + q)
        f_new = kl_bernoulli(q, p_new) - c
        if f_new < 0.0:
            # past the root: impossible in exact arithmetic (convexity), so this is rounding and p_new is
            # within the evaluation error of the root; the certification moves it outward
            p = p_new
            break
        p, f = p_new, f_new
        if step <= 4e-16 * p_new:  # converged to float64 resolution (relative), well inside tol
            break
    return p


def _outward(q: float, p: float, tol: float) -> float:
    """Ten times the float64 error of p as a root of kl(q||.) = c: 10 err(kl)/|kl'(p)|, at least 2 ulp.

    err(kl) <= 4e-16 (|q ln(q/p)| + |(1-q) ln((1-q)/(1-p))|) (a few roundings of each term) and
    kl'(p) = (p - q)/(p (1 - p)); capped at tol/4 so that the bracket stays within tol.
    """
    if p <= 0.0 or p >= 1.0 or p == q:
        return 2.0 * math.ulp(p)
    a = abs(q * math.log(q / p)) if q > 0 else 0.0
    b = abs((1.0 - q) * (math.log1p(-q) - math.log1p(-p))) if q < 1 else 0.0
    err = 4e-16 * (a + b) + 1e-300
    slope = abs(p - q) / (p * (1.0 - p))
    return min(max(10.0 * err / slope, 2.0 * math.ulp(p)), tol / 4)


def _certify_upper(q: float, c: float, hi: float, tol: float) -> float:
    hi = min(1.0, hi + _outward(q, hi, tol))
    lo = max(q, hi - tol)
    if (kl_bernoulli(q, hi) - c >= 0.0 or hi == 1.0) and (kl_bernoulli(q, lo) - c < 0.0 or lo == q):
        return hi
    # fallback (not expected): bisection from the closed-form bracket [q, start], start having kl >= c
    return _bisect_float(q, c, q, min(1.0, _upper_start(q, c)), tol, True)


def kl_inv_lower(q: float, c: float, tol: float = DEFAULT_TOL) -> float:
    """inf{p in [0, q]: kl(q||p) <= c}, returned at the safe (lower) end of a bracket of width <= tol.

    Reference: ``docs/derivations/pacbayes_maxinfo.md``, kl inverses (closed forms at q = 0, q = 1, c = 0).
    """
    return _kl_inv_float(q, c, tol, False)


def _certify_lower(q: float, c: float, lo: float, tol: float) -> float:
    lo = max(0.0, lo - _outward(q, lo, tol))
    hi = min(q, lo + tol)
    if (kl_bernoulli(q, lo) - c >= 0.0 or lo == 0.0) and (kl_bernoulli(q, hi) - c < 0.0 or hi == q):
        return lo
    return _bisect_float(q, c, max(0.0, _lower_start(q, c)), q, tol, False)


def _elementwise(
    inverse: Callable[[float, float, float], float], q: np.ndarray, c: np.ndarray, tol: float
) -> np.ndarray:
    """``inverse`` (a float64 kl inverse) applied element by element to broadcast arrays ``q`` and ``c``."""
    q, c = np.broadcast_arrays(np.asarray(q, dtype=np.float64), np.asarray(c, dtype=np.float64))
    out = np.empty(q.shape, dtype=np.float64)
    for idx in np.ndindex(q.shape):
        out[idx] = inverse(float(q[idx]), float(c[idx]), tol)
    return out


def kl_inv_upper_np(q: np.ndarray, c: np.ndarray, tol: float = DEFAULT_TOL) -> np.ndarray:
    """Vectorised :func:`kl_inv_upper` (element by element; same algorithm, same guarantees)."""
    return _elementwise(kl_inv_upper, q, c, tol)


def kl_inv_lower_np(q: np.ndarray, c: np.ndarray, tol: float = DEFAULT_TOL) -> np.ndarray:
    """Vectorised :func:`kl_inv_lower`."""
    return _elementwise(kl_inv_lower, q, c, tol)


# ----------------------------------------------------------------------------- inverses, mpmath
def _bisect_float(q: float, c: float, lo: float, hi: float, tol: float, upper: bool) -> float:
    """The float64 fallback of :func:`kl_inv_upper` (``upper``: the root in [q, 1], returned from above) or
    :func:`kl_inv_lower` (the root in [0, q], returned from below): bisection of ``kl(q||p) - c`` on [lo, hi]."""
    for _ in range(2000):
        if hi - lo <= tol:
            return hi if upper else lo
        mid = 0.5 * (lo + hi)
        if (kl_bernoulli(q, mid) - c >= 0.0) == upper:
            hi = mid
        else:
            lo = mid
    which = "upper" if upper else "lower"
    raise NumericalFailure(f"kl_inv_{which} did not converge at q = {q!r}, c = {c!r}")  # pragma: no cover


def _bisect_mp(q: mpmath.mpf, c: mpmath.mpf, lo: mpmath.mpf, hi: mpmath.mpf, upper: bool) -> mpmath.mpf:
    """Bisection for kl(q||p) = c on [lo, hi]: geometric steps while hi/lo > 4 (relative accuracy for tiny
    roots), then arithmetic ones until the bracket is below 2^-(prec+4) relative. Returns the safe end."""
    eps = mpmath.ldexp(1, -(mpmath.mp.prec + 4))
    for _ in range(100_000):
        if lo > 0 and hi / lo > 4:
            mid = mpmath.sqrt(lo * hi)
        else:
            mid = (lo + hi) / 2
        if mid in (lo, hi) or hi - lo <= eps * hi:
            break
        above = kl_bernoulli_mp(q, mid) >= c  # outside the sublevel set {kl <= c}
        if upper:
            lo, hi = (lo, mid) if above else (mid, hi)
        else:
            lo, hi = (mid, hi) if above else (lo, mid)
    return hi if upper else lo


def kl_inv_upper_mp(q: mpmath.mpf, c: mpmath.mpf) -> mpmath.mpf:
    """sup{p in [q, 1]: kl(q||p) <= c} by bisection at the current precision (safe upper end)."""
    return _kl_inv_mp(q, c, True)


def kl_inv_lower_mp(q: mpmath.mpf, c: mpmath.mpf) -> mpmath.mpf:
    """inf{p in [0, q]: kl(q||p) <= c} by bisection at the current precision (safe lower end)."""
    return _kl_inv_mp(q, c, False)


def _kl_inv_mp(q: mpmath.mpf, c: mpmath.mpf, upper: bool) -> mpmath.mpf:
    """:func:`kl_inv_upper_mp` (``upper``) or :func:`kl_inv_lower_mp`: the domain check, the closed-form ends
    (c = 0, c = inf, q at either end) and the bracket the bisection starts from."""
    q = mpmath.mpf(q)
    c = mpmath.mpf(c)
    if not (0 <= q <= 1) or c < 0 or mpmath.isnan(c):
        which = "upper" if upper else "lower"
        raise KLDomainError(f"kl_inv_{which} needs q in [0, 1] and c >= 0; got q = {q}, c = {c}")
    if c == 0:
        return q
    far = 1 if upper else 0  # the end of [0, 1] on the searched side
    if q == far or mpmath.isinf(c):
        return mpmath.mpf(far)
    if q == 1 - far:
        return -mpmath.expm1(-c) if upper else mpmath.exp(-c)
    if upper:
        # the same closed-form starting points as the float64 path (both have kl >= c)
        x = (c - q * mpmath.log(q)) / (1 - q)
        hi = min(q + mpmath.sqrt(c / 2), -mpmath.expm1(mpmath.log1p(-q) - x), mpmath.mpf(1))
        return _bisect_mp(q, c, q, hi, True)
    # kl(q||p) >= q ln(q/p) + (1-q) ln(1-q)  ->  root <= q exp(-(c + (1-q) ln(1-q))/q)
    # kl(q||p) >= q ln(q/p) - q               ->  root >= q exp(-(c + q)/q)
    hi = min(q, q * mpmath.exp(-(c + (1 - q) * mpmath.log1p(-q)) / q) * 2)
    lo = q * mpmath.exp(-(c + q) / q) / 2
    return _bisect_mp(q, c, lo, hi, False)


# ----------------------------------------------------------------------------- Maurer's xi(n)
def check_n(n: int) -> int:
    if isinstance(n, bool) or int(n) != n or n < 1:
        raise DPTheoryError(f"xi(n) needs a whole number n >= 1 (a sample size); got n = {n!r}")
    return int(n)


#: above this n, xi_mp uses the integral form (the Q series needs O(sqrt(n) * digits) terms)
XI_SERIES_MAX = 10**5
#: above this n, the float64 xi uses xi_mp's integral form at 20 digits (one quadrature per distinct n)
XI_FLOAT_SERIES_MAX = 10**7


def xi_mp(n: int) -> mpmath.mpf:
    """Maurer's xi(n) = 1 + Q(n) at the current precision.

    Up to ``XI_SERIES_MAX``: Ramanujan's Q series with a rigorous tail stop. The terms
    ``t_k = prod_{i<k} (1 - i/n)`` decrease and ``t_{k+j} <= t_k (1 - k/n)^j``, so the tail after term
    k is at most ``t_k n / k``; the sum stops once that is below ``2^-(prec+8)`` times the partial sum.
    Above (the series would need about ``16 sqrt(n)`` terms at 50 digits, unbounded in ``n``): the
    integral ``Q(n) = int_0^inf e^-x (1 + x/n)^(n-1) dx`` (Flajolet, Grabner, Kirschenhofer and
    Prodinger, "On Ramanujan's Q-function", J. Comput. Appl. Math. 58 (1995)), see :func:`_q_integral_mp`.
    """
    n = check_n(n)
    if n > XI_SERIES_MAX:
        return 1 + _q_integral_mp(n)
    eps = mpmath.ldexp(1, -(mpmath.mp.prec + 8))
    total = mpmath.mpf(1)
    t = mpmath.mpf(1)
    nn = mpmath.mpf(n)
    for k in range(1, n + 1):
        total += t
        t *= 1 - k / nn
        if t == 0 or t * nn / k < eps * total:
            break
    return total


def _q_integral_mp(n: int) -> mpmath.mpf:
    """``Q(n) = int_0^inf exp(n log1pmx(x/n) - log1p(x/n)) dx`` by tanh-sinh quadrature at the current precision.

    The exponent is ``(n-1) log1p(x/n) - x`` written with ``log1pmx(u) = log1p(u) - u`` (a series for
    small ``u``), so the two large parts never cancel. The integrand is log-concave with its maximum at
    0 and decays like ``exp(-x^2/(2n))``: the interval is split at ``s, 2s, 4s, ..., 64s`` with
    ``s = sqrt(n)`` (beyond ``64 s`` it is below ``e^-2000``). The result is accepted when mpmath's
    error estimate is below ``10^-(dps+3)`` of it (else more digits and a higher degree, twice); it
    agrees with the Q series where both run (tests/test_kl.py).
    """
    dps = mpmath.mp.dps
    err = mpmath.inf
    for extra, degree in ((10, 8), (25, 10), (45, 12)):
        with mpmath.workdps(dps + extra):
            nn = mpmath.mpf(n)
            s = mpmath.sqrt(nn)
            pts = [mpmath.mpf(0)] + [s * 2**k for k in range(7)] + [mpmath.inf]

            def f(x: mpmath.mpf, nn: mpmath.mpf = nn) -> mpmath.mpf:
                u = x / nn
                return mpmath.exp(nn * log1pmx_mp(u) - mpmath.log1p(u))

            val, err = mpmath.quad(f, pts, error=True, maxdegree=degree)
            if mpmath.isfinite(val) and val > 0 and err <= mpmath.mpf(10) ** (-(dps + 3)) * val:
                return +val
    raise NumericalFailure(f"xi(n): the quadrature of Q({n}) did not reach {dps} digits (error estimate {err})")


def _xi_float(n: int) -> float:
    # float64 Q series, chunked cumulative products
    total = 1.0
    start = 1
    t0 = 1.0
    chunk = 4096
    while start <= n:
        ks = np.arange(start, min(n, start + chunk - 1) + 1, dtype=np.float64)
        factors = 1.0 - ks / n
        ts = t0 * np.concatenate(([1.0], np.cumprod(factors)[:-1]))
        total += float(np.sum(ts))
        t0 = ts[-1] * factors[-1]
        if t0 * n / ks[-1] < 1e-18 * total or t0 == 0.0:
            break
        start = int(ks[-1]) + 1
    return total


def xi(n: int) -> float:
    """Maurer's xi(n) in float64 (relative error ~1e-15)."""
    n = check_n(n)
    if n > XI_FLOAT_SERIES_MAX:
        with mpmath.workdps(20):
            return float(xi_mp(n))
    return _xi_float(n)


def xi_np(n: np.ndarray) -> np.ndarray:
    """Vectorised :func:`xi` (one Q series per distinct n)."""
    arr = np.asarray(n, dtype=np.float64)
    out = np.empty(arr.shape, dtype=np.float64)
    cache: dict[int, float] = {}
    for idx in np.ndindex(arr.shape):
        v = arr[idx]
        if not (v >= 1 and v == math.floor(v)):
            raise DPTheoryError(f"xi(n) needs a whole number n >= 1; got n = {v!r}")
        iv = int(v)
        if iv not in cache:
            cache[iv] = xi(iv)
        out[idx] = cache[iv]
    return out


# ----------------------------------------------------------------------------- certified: arb balls
# Every function below takes python-flint ``arb`` balls and returns a ball that contains the exact value
# for *every* point of the input balls, at the current ``flint.ctx.prec``. The inverses are bisections
# whose bracket ends are each certified by the sign of a ball evaluation of kl(q||p) - c: kl(q||.) is
# strictly decreasing on [0, q] and strictly increasing on [q, 1] (its derivative is (p - q)/(p (1 - p))),
# so one certified sign at a point p tells on which side of the root p lies. A midpoint whose sign the
# ball cannot decide stops the bisection: the returned ball is then the bracket reached, and the caller
# (``dptheory.core.compile.enclose``, Ziv's loop) raises the precision until it is narrow enough.


def exact_int_arb(x: Any, name: str) -> int:
    """The Python int of an exact integer ball (or an int), else :class:`~dptheory.core.compile.Undecided`
    (a ball of several integers: a branch and bound splits it down to single values)."""
    from dptheory.core.compile import Undecided

    if isinstance(x, int) and not isinstance(x, bool):
        return x
    is_exact = getattr(x, "is_exact", None)
    k = x.unique_fmpz() if is_exact is not None and is_exact() else None
    if k is None:
        raise Undecided(f"{name} = {x} is not an exact integer ball (xi(n) needs an exact n)")
    return int(k)


def _qc_arb(q: Any, c: Any, what: str) -> tuple[Any, Any]:
    import flint

    q = flint.arb(q)
    c = flint.arb(c)
    if not (q.is_finite() and c.is_finite()):
        raise NumericalFailure(f"{what}: q = {q} and c = {c} must be finite balls")
    if q < 0 or q > 1 or c < 0:
        raise KLDomainError(f"{what} needs q in [0, 1] and c >= 0; got the balls q = {q}, c = {c}")
    if not (q >= 0 and q <= 1 and c >= 0):
        # a ball straddling 0 or 1 (not an exact input): more precision narrows it
        from dptheory.core.compile import Undecided

        raise Undecided(f"{what}: the balls q = {q}, c = {c} are not certainly in q in [0, 1], c >= 0")
    return q, c


def kl_bernoulli_arb(q: Any, p: Any) -> Any:
    """Ball enclosing kl(q||p) (nats) for every q, p in the balls, both certainly in [0, 1] with p < 1 unless
    q = 1 and p > 0 unless q = 0 (the caller's bisection only evaluates strictly inside (0, 1))."""
    import flint

    q = flint.arb(q)
    p = flint.arb(p)
    if q.is_zero():
        return -(-p).log1p()
    if q.is_exact() and q == 1:
        return -p.log()
    return q * (q / p).log() + (1 - q) * ((-q).log1p() - (-p).log1p())


def _kl_minus_c(q: Any, c: Any, p: Any) -> Any:
    return kl_bernoulli_arb(q, p) - c


def _prec_eps() -> Any:
    import flint

    return flint.arb(2) ** (-(flint.ctx.prec + 2))


def _bisect_arb(q: Any, c: Any, lo: Any, hi: Any, upper: bool) -> Any:
    """Bisection on exact ends ``lo < hi`` (each already certified): geometric midpoints while hi > 2 lo > 0
    (relative accuracy for tiny roots), arithmetic ones after; stops at relative width 2^-(prec+2), at a
    midpoint the ball cannot decide, or when no exact midpoint lies strictly between the ends."""
    import flint

    eps = _prec_eps()
    qlo, qhi = q.lower(), q.upper()
    for _ in range(8 * flint.ctx.prec + 4000):
        if lo > 0 and hi > 2 * lo:
            m = (lo * hi).sqrt().mid()
        else:
            m = ((lo + hi) / 2).mid()
        if not (m > lo and m < hi) or hi - lo <= eps * hi:
            break
        d = _kl_minus_c(q, c, m)
        if upper:
            # kl(q'||m) >= c for every q' <= m: the root (of every q' in the ball) is at most m
            if d >= 0 and m > qhi:
                hi = m
            elif d <= 0:  # kl(q'||m) <= c: m is in the sublevel set (or below q'), so the root is >= m
                lo = m
            else:
                break
        else:
            if d >= 0 and m < qlo:
                lo = m
            elif d <= 0:
                hi = m
            else:
                break
    if lo > 0 and hi > 2 * lo:
        # not even within a factor 2 (a huge c/q at low precision): as a midpoint-radius ball the bracket would
        # contain 0 and lose its relative meaning; ask the caller for more precision instead
        from dptheory.core.compile import Undecided

        raise Undecided(f"kl inverse: the bracket [{lo.str(3)}, {hi.str(3)}] is not resolved at {flint.ctx.prec} bits")
    return lo.union(hi)


def kl_inv_upper_arb(q: Any, c: Any) -> Any:
    """Ball enclosing ``sup{p in [q, 1]: kl(q||p) <= c}`` for every q, c in the balls (Maurer 2004's risk
    certificate map), at the current ``flint.ctx.prec``.

    Exact closed forms: ``c = 0`` gives q, ``q = 1`` gives 1, ``q = 0`` gives ``1 - e^-c``. Otherwise the
    bracket starts at ``[q, 1]`` (both trivially valid: the root is in [q, 1]; ``p = 1`` is never evaluated),
    narrowed by two closed-form points that have kl >= c (Pinsker: ``q + sqrt(c/2)``; dropping ``-q ln p >= 0``:
    ``1 - (1-q) e^{-(c - q ln q)/(1-q)}``), each accepted only when its ball sign certifies it.
    """
    import flint

    arb = flint.arb
    q, c = _qc_arb(q, c, "kl_inv_upper_arb")
    if c.is_zero():
        return q
    if q.is_exact() and q == 1:
        return arb(1)
    if q.is_zero():
        return -(-c).expm1()
    lo, hi = q.lower(), arb(1)
    qhi = q.upper()
    if qhi >= 1:  # q's ball touches 1: only the trivial bracket
        return lo.union(hi)
    pinsker = q + (c / 2).sqrt()
    drop = -((-q).log1p() - (c - q * q.log()) / (1 - q)).expm1()
    for cand in (pinsker, drop):
        top = cand.upper()
        if top < hi and top > qhi and _kl_minus_c(q, c, top) >= 0:
            hi = top
    return _bisect_arb(q, c, lo, hi, True)


def kl_inv_lower_arb(q: Any, c: Any) -> Any:
    """Ball enclosing ``inf{p in [0, q]: kl(q||p) <= c}`` for every q, c in the balls.

    Exact closed forms: ``c = 0`` gives q, ``q = 0`` gives 0, ``q = 1`` gives ``e^-c``. Otherwise the bracket
    is ``[p0, q]`` with ``p0`` the exact power of two ``2^-K <= q e^{-(c+q)/q}/2`` (kl(q||p) >= q ln(q/p) - q on
    [0, q], so kl(q||p0) >= c + q ln 2; certified by its ball sign) or Pinsker's ``q - sqrt(c/2)`` when it is
    positive, certified and larger. A positive lower end lets the bisection take geometric steps, so tiny roots
    (``e^{-20000}``, ``e^{-10^450}``) get relative accuracy; without one (too little precision to certify it)
    :class:`~dptheory.core.compile.Undecided` asks the caller for more precision.
    """
    import flint

    arb = flint.arb
    q, c = _qc_arb(q, c, "kl_inv_lower_arb")
    if c.is_zero():
        return q
    if q.is_zero():
        return arb(0)
    if q.is_exact() and q == 1:
        return (-c).exp()
    qlo = q.lower()
    lo, hi = arb(0), q.upper()
    if not qlo > 0:  # q's ball touches 0: only the trivial bracket
        return lo.union(hi)
    # p0 as an exact power of two 2^-K <= q e^{-(c+q)/q}/2: exp of the huge argument (c/q ~ 1e450) would be a
    # ball around 0, while 2^-K is exact and kl at it is an ordinary ball (q ln(q/2^-K) is about K q ln 2)
    cands = []
    log2_inv_p0 = ((c + q) / q - q.log()) / arb(2).log() + 1
    big_k = log2_inv_p0.upper().ceil().unique_fmpz() if log2_inv_p0.is_finite() else None
    if big_k is not None:
        cands.append(arb(flint.arf((1, -big_k))))
    cands.append((q - (c / 2).sqrt()).lower())  # Pinsker
    for cand in cands:
        if cand > lo and cand < qlo and _kl_minus_c(q, c, cand) >= 0:
            lo = cand
    if not lo > 0:
        from dptheory.core.compile import Undecided

        # the root is positive (q > 0, c finite): a bracket from 0 has no relative accuracy; more precision
        # certifies 2^-K (kl(q||2^-K) >= c + q ln 2)
        raise Undecided(f"kl_inv_lower_arb: no positive lower end certified at {flint.ctx.prec} bits")
    return _bisect_arb(q, c, lo, hi, False)


_XI_ARB_CACHE: dict[tuple[int, int], Any] = {}
#: largest n whose xi(n) is certified (the Q series needs about sqrt(2 n ln 2 prec) terms: ~2e5 at n = 1e8)
XI_ARB_MAX = 10**8


def xi_arb(n: int) -> Any:
    """Ball enclosing Maurer's ``xi(n) = 1 + Q(n)`` at the current ``flint.ctx.prec``.

    Ramanujan's ``Q(n) = sum_{k>=1} t_k``, ``t_1 = 1``, ``t_{k+1} = t_k (1 - k/n)`` (Abel's identity; the
    package checks it against the binomial sum in ``tests/test_kl.py``), summed on balls until the rigorous
    tail bound ``sum_{j>K} t_j <= t_K n/K`` (``t_{K+j} <= t_K (1 - K/n)^j``) is below ``2^-(prec+8)`` of the sum;
    the tail ``[0, t_K n/K]`` is then added as a ball, so the result contains xi(n) whatever the truncation.
    """
    import flint

    arb = flint.arb
    n = check_n(n)
    if n > XI_ARB_MAX:
        raise NumericalFailure(f"xi(n) at n = {n} is above {XI_ARB_MAX} (too many series terms); not certified")
    key = (n, flint.ctx.prec)
    hit = _XI_ARB_CACHE.get(key)
    if hit is not None:
        return hit
    eps = arb(2) ** (-(flint.ctx.prec + 8))
    total = arb(1)
    t = arb(1)  # t_k
    nn = arb(n)
    for k in range(1, n + 1):
        total += t
        if k == n:
            break  # t_{n+1} = 0: the sum is finite
        t = t * (n - k) / nn  # t_{k+1}
        if k % 32 == 0:
            tail = t * nn / (k + 1)  # bound on sum_{j >= k+1} t_j
            if tail < eps * total:
                total += arb(0).union(tail.upper())
                break
    if len(_XI_ARB_CACHE) > 256:
        _XI_ARB_CACHE.clear()
    _XI_ARB_CACHE[key] = total
    return total


class _ArbFn:
    """A one-function arb kernel in the shape :func:`dptheory.core.compile.enclose` expects."""

    def __init__(self, params: tuple[str, ...], fn: Any) -> None:
        self.params = params
        self.fn = fn

    def arb(self, args: Mapping[str, Any]) -> Any:
        return self.fn(args["q"], args["c"])


def kl_inv_enclose(q: Any, c: Any, *, dps: int = 30, upper: bool = True) -> Any:
    """Certified enclosure (a :class:`dptheory.core.compile.Enclosure`) of the upper (or lower) kl inverse at
    exact inputs ``q`` in [0, 1] and ``c >= 0`` (int, ``fractions.Fraction`` or sympy Rational), with relative
    width below ``10^-dps``: Ziv's loop of :func:`dptheory.core.compile.enclose` (the precision doubles until
    the bisection's bracket is that narrow)."""
    from fractions import Fraction

    import sympy as sp

    from dptheory.core.compile import enclose

    vals = {}
    for name, v in (("q", q), ("c", c)):
        if isinstance(v, bool) or not isinstance(v, (int, Fraction, sp.Rational)):
            raise KLDomainError(f"kl_inv_enclose: {name} must be exact (int, Fraction or sympy Rational); got {v!r}")
        vals[name] = sp.Rational(v) if not isinstance(v, Fraction) else sp.Rational(v.numerator, v.denominator)
    if not (0 <= vals["q"] <= 1) or vals["c"] < 0:
        raise KLDomainError(f"kl_inv_enclose needs q in [0, 1] and c >= 0; got q = {q}, c = {c}")
    fn = kl_inv_upper_arb if upper else kl_inv_lower_arb
    return enclose(_ArbFn(("q", "c"), fn), vals, dps=dps)
