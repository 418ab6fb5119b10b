"""Kernels for max-information bounds (nats): classic results, our DP-SGD bounds, Lemma M, K_B(lambda).

Pure functions, no precision handling: ``*_mp`` kernels run at the caller's mpmath precision,
``*_np`` kernels are float64 and vectorised. Notation of Lampert & Zakerinia 2026 (arXiv
2605.26222, Algorithm 1): ``n`` examples, batch size ``m``, ``T = floor(n/m)`` steps per epoch,
``E`` epochs, clip norm ``zeta``, Gaussian noise ``sigma`` on the *sum* of clipped gradients,
``r = zeta^2/sigma^2``, ``n_u = T m`` examples used per epoch, ``beta`` the max-information slack.

What is whose (see ``docs/derivations/maxinfo_dpsgd.md``):

* Dwork et al. 2015 (arXiv 1506.02629) Thm 19 and Thm 20, in nats;
* Theorem A, Theorem B, Lemma M: *derived here* (``docs/derivations/maxinfo_dpsgd.md``), not results
  of Lampert & Zakerinia;
* the Gaussian-DP route (Dong, Roth & Su; Balle & Wang 2018) for the (eps, delta)-DP comparison
  (``docs/derivations/maxinfo_route.md``, section 3).

The theorems' kernels, last, take a parameter point ``p`` (name -> value) and unpack it for the functions above:
``theorem_b_mp``/``_np``/``_arb`` of ``maxinfo.thmB_derived`` (``paper.toml`` names them) and ``route_mp``/``_np``/
``_arb`` of ``maxinfo.dp_route_rogers_asymptotic`` (declared in ``theorems.py``).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from typing import Any

import mpmath
import numpy as np

from dptheory.core.errors import NumericalFailure, ParameterOutOfRange
from dptheory.core.validate import number_text
from dptheory.privacy.gaussian_dp import gdp_delta_mp, gdp_delta_np

__all__ = [
    "dp_route_arb",
    "dp_route_eps_arb",
    "dwork_product",
    "dwork_pure",
    "exact_ints",
    "gdp_delta_arb",
    "k_b_arb",
    "k_b_mp",
    "k_b_np",
    "lemma_m_mp",
    "lemma_m_np",
    "lemma_m_relaxed_mp",
    "lemma_m_relaxed_np",
    "route_arb",
    "route_mp",
    "route_np",
    "theorem_b_arb",
    "theorem_b_mp",
    "theorem_b_np",
    "thm_a_mp",
    "thm_a_np",
    "thm_b_arb",
    "thm_b_mp",
    "thm_b_np",
]


# ----------------------------------------------------------------------------- Dwork et al. 2015
def dwork_pure(eps: Any, n: Any) -> Any:
    """Thm 19: I_inf(A, n) <= eps n nats (= log2(e) eps n bits) for eps-DP A, any input law."""
    return eps * n


def dwork_product(eps: Any, n: Any, beta: Any, *, lib: Any = np) -> Any:
    """Thm 20: I^beta_inf <= eps^2 n/2 + eps sqrt(n ln(2/beta)/2) nats for eps-DP A, product inputs."""
    return eps**2 * n / 2 + eps * lib.sqrt(n * lib.log(2 / beta) / 2)


# ----------------------------------------------------------------------------- Theorem A (derived)
def thm_a_np(n_u: Any, m: Any, E: Any, r: Any, beta: Any) -> np.ndarray:
    """Theorem A (derived here): 2 E n_u m r + 2 sqrt(2 E n_u m r ln(1/beta)) nats (= 2ETm^2 r + ...)."""
    A = 2.0 * E * n_u * m * r
    return A + 2.0 * np.sqrt(A * np.log(1.0 / beta))


def thm_a_mp(n_u: Any, m: Any, E: Any, r: Any, beta: Any) -> mpmath.mpf:
    A = 2 * mpmath.mpf(E) * n_u * m * r
    return A + 2 * mpmath.sqrt(A * mpmath.log(1 / mpmath.mpf(beta)))


# ----------------------------------------------------------------------------- Lemma M (derived)
def lemma_m_mp(mu: Any, zeta: Any, m: int, v_sum: Any) -> mpmath.mpf:
    """Lemma M: ln E exp(mu ||C||^2) <= v_sum * (exp(8 zeta^2 mubar) - 1)/(8 zeta^2).

    ``mubar = mu/(1 - 4 mu zeta^2 (m-1))``; requires ``4 mu zeta^2 (m-1) < 1``.
    """
    z2 = mpmath.mpf(zeta) ** 2
    mubar = mu / (1 - 4 * mu * z2 * (m - 1))
    return v_sum * mpmath.expm1(8 * z2 * mubar) / (8 * z2)


def lemma_m_np(mu: Any, zeta: Any, m: Any, v_sum: Any) -> np.ndarray:
    z2 = np.asarray(zeta, dtype=np.float64) ** 2
    mubar = mu / (1.0 - 4.0 * mu * z2 * (m - 1.0))
    return v_sum * np.expm1(8.0 * z2 * mubar) / (8.0 * z2)


def lemma_m_relaxed_mp(mu: Any, zeta: Any, m: int) -> mpmath.mpf:
    """Lemma M with v_k <= zeta^2: m (exp(8 zeta^2 mubar) - 1)/8."""
    return lemma_m_mp(mu, zeta, m, m * mpmath.mpf(zeta) ** 2)


def lemma_m_relaxed_np(mu: Any, zeta: Any, m: Any) -> np.ndarray:
    return lemma_m_np(mu, zeta, m, m * np.asarray(zeta, dtype=np.float64) ** 2)


def k_b_mp(lam: Any, n_u: Any, m: int, E: Any, r: Any, beta: Any) -> mpmath.mpf:
    """K_B(lambda) = ln(1/beta)/lambda + n_u E r/2 + n_u (exp(8 abar) - 1)/(8 lambda); inf if 4a(m-1) >= 1."""
    lam = mpmath.mpf(lam)
    a = E * r * (lam * lam + lam) / 2
    if 4 * a * (m - 1) >= 1:
        return mpmath.inf
    abar = a / (1 - 4 * a * (m - 1))
    return mpmath.log(1 / mpmath.mpf(beta)) / lam + n_u * E * r / 2 + n_u * mpmath.expm1(8 * abar) / (8 * lam)


def k_b_np(lam: Any, n_u: Any, m: Any, E: Any, r: Any, beta: Any) -> np.ndarray:
    lam = np.asarray(lam, dtype=np.float64)
    a = E * r * (lam * lam + lam) / 2.0
    den = 1.0 - 4.0 * a * (m - 1.0)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        abar = np.where(den > 0, a / np.where(den > 0, den, 1.0), np.inf)
        val = np.log(1.0 / beta) / lam + n_u * E * r / 2.0 + n_u * np.expm1(8.0 * abar) / (8.0 * lam)
    return np.where(den > 0, val, np.inf)


def _lam_max(lib: Any, m: Any, E: Any, r: Any) -> Any:
    """The admissible end of lambda, ``lam^2 + lam = x = 1/(2 E r (m - 1))`` for m >= 2, as ``2 x/(1 + sqrt(1 + 4 x))``
    (no cancellation for small x) in ``lib`` (numpy, mpmath, or arb balls with ``lib=None``)."""
    x = 1 / (2 * E * r * (m - 1))
    return 2 * x / (1 + (1 + 4 * x).sqrt()) if lib is None else 2 * x / (1 + lib.sqrt(1 + 4 * x))


def _lam_max_np(m: Any, E: Any, r: Any) -> np.ndarray:
    """Largest admissible lambda in float64 (:func:`_lam_max`), inf when m = 1 (no limit) or where x overflows."""
    m = np.asarray(m, dtype=np.float64)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):  # x = inf: 2 inf/(1 + inf) is nan
        lam = _lam_max(np, np.maximum(m, 2.0), E, r)
    return np.where((m > 1) & np.isfinite(lam), lam, np.inf)


def _beta_out_of_range(beta: Any) -> ParameterOutOfRange:
    """beta >= 1 (only with the conditions unchecked): ln(1/beta) <= 0, so K_B(lambda) has no minimiser to search
    (its infimum is approached as lambda -> 0: -inf for beta > 1); refused in the user's terms."""
    return ParameterOutOfRange(
        key="maxinfo.thmB_derived", name="beta", value=number_text(beta),
        reason="Theorem B's infimum over lambda is evaluated for 0 < beta < 1 only (ln(1/beta) > 0)",
    )


def _bracket_np(n_u: Any, m: Any, E: Any, r: Any, beta: Any) -> tuple[np.ndarray, np.ndarray]:
    """[lam_lo, lam_hi] containing every minimiser of K_B (bounds from K_B >= L/lam, K_B >= n_u E r lam/2).

    The reference point lam0 keeps 8 abar <= 2 (a <= 1/(4m)), so K_B(lam0) is finite in float64.
    """
    L = np.log(1.0 / beta)
    lam_max = _lam_max_np(m, E, r)
    lam1 = (-1.0 + np.sqrt(1.0 + 4.0 / (2.0 * E * r * m))) / 2.0  # a(lam1) = 1/(4m)
    lam0 = np.minimum(np.sqrt(2.0 * L / (n_u * E * r)), lam1)
    K0 = k_b_np(lam0, n_u, m, E, r, beta)
    lo = np.minimum(L / K0, lam0)
    hi = np.maximum(np.minimum(2.0 * K0 / (n_u * E * r), lam_max), lam0)
    return lo, hi


def thm_b_np(n_u: Any, m: Any, E: Any, r: Any, beta: Any, *, return_lambda: bool = False) -> Any:
    """Theorem B (derived here): inf_lambda K_B(lambda) in nats, vectorised (grid + golden section on ln lambda).

    Any lambda gives a valid bound, so the value is an upper bound whatever the search returns; the
    search only makes it the smallest one.
    """
    n_u, m, E, r, beta = np.broadcast_arrays(*(np.asarray(x, dtype=np.float64) for x in (n_u, m, E, r, beta)))
    shape = n_u.shape
    n_u, m, E, r, beta = (x.ravel() for x in (n_u, m, E, r, beta))
    outside = ~((beta > 0) & (beta < 1))
    if outside.any():
        raise _beta_out_of_range(beta[np.flatnonzero(outside)[0]])
    # n_u = 0 (m > n: no step, only with the conditions unchecked): K_B = L/lambda, whose infimum L/lam_max is not
    # attained; the search runs with n_u = 1 there and its result is replaced below
    no_step = n_u == 0
    n_u = np.where(no_step, 1.0, n_u)
    lo, hi = _bracket_np(n_u, m, E, r, beta)
    ulo, uhi = np.log(lo), np.log(hi)
    # coarse grid (64 points, the admissible end excluded), then golden section around the best point
    g = np.linspace(0.0, 1.0, 65)[:-1]
    U = ulo[:, None] + (uhi - ulo)[:, None] * g[None, :]
    vals = k_b_np(np.exp(U), n_u[:, None], m[:, None], E[:, None], r[:, None], beta[:, None])
    j = np.argmin(vals, axis=1)
    step = (uhi - ulo) / 64.0
    a = ulo + (j - 1) * step
    b = np.minimum(ulo + (j + 1) * step, uhi - 1e-12 * np.maximum(1.0, np.abs(uhi)))
    a = np.maximum(a, ulo)
    invphi = (math.sqrt(5.0) - 1.0) / 2.0
    c = b - invphi * (b - a)
    d = a + invphi * (b - a)

    def f(u: np.ndarray) -> np.ndarray:
        return k_b_np(np.exp(u), n_u, m, E, r, beta)

    for _ in range(90):
        fc, fd = f(c), f(d)
        left = fc < fd
        b = np.where(left, d, b)
        a = np.where(left, a, c)
        c = b - invphi * (b - a)
        d = a + invphi * (b - a)
    fc, fd = f(c), f(d)
    u_gold = np.where(fc < fd, c, d)
    f_gold = np.minimum(fc, fd)
    f_grid = vals[np.arange(len(j)), j]
    best = np.minimum(f_gold, f_grid)
    u_best = np.where(f_gold <= f_grid, u_gold, U[np.arange(len(j)), j])
    if no_step.any():
        lam_max = _lam_max_np(m, E, r)
        best = np.where(no_step, np.log(1.0 / beta) / lam_max, best)
        u_best = np.where(no_step, np.log(lam_max), u_best)
    out = best.reshape(shape)
    if return_lambda:
        return out, np.exp(u_best).reshape(shape)
    return out


def thm_b_mp(n_u: Any, m: int, E: Any, r: Any, beta: Any, *, return_lambda: bool = False) -> Any:
    """Theorem B at the current mpmath precision: the float64 minimiser refined by golden section in mp."""
    if not 0 < beta < 1:
        raise _beta_out_of_range(beta)
    if n_u == 0:  # m > n (conditions unchecked): K_B = L/lambda, infimum L/lam_max (see thm_b_np)
        lam_max = _lam_max(mpmath, mpmath.mpf(m), E, r)
        best = mpmath.log(1 / mpmath.mpf(beta)) / lam_max
        return (best, lam_max) if return_lambda else best
    _, lam_f = thm_b_np(float(n_u), float(m), float(E), float(r), float(beta), return_lambda=True)
    lam_f = float(lam_f)
    lam_max = float(_lam_max_np(float(m), float(E), float(r)))
    u0 = mpmath.log(mpmath.mpf(lam_f))
    half = mpmath.mpf("1e-3")
    a, b = u0 - half, u0 + half
    if math.isfinite(lam_max):
        umax = mpmath.log(mpmath.mpf(lam_max))
        b = min(b, umax - mpmath.mpf("1e-12"))
    invphi = (mpmath.sqrt(5) - 1) / 2

    def f(u: Any) -> mpmath.mpf:
        return k_b_mp(mpmath.exp(u), n_u, m, E, r, beta)

    c = b - invphi * (b - a)
    d = a + invphi * (b - a)
    fc, fd = f(c), f(d)
    iters = int(mpmath.mp.prec * 0.75) + 20
    for _ in range(iters):
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - invphi * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + invphi * (b - a)
            fd = f(d)
    best = min(fc, fd, f(u0))
    if return_lambda:
        return best, mpmath.exp(c if fc < fd else d)
    return best


# ----------------------------------------------------------------------------- (eps, delta)-DP route + Rogers et al.
def _route_beta(eps: Any, n: Any, mu: Any, C_beta: Any, lib: Any, delta_fn: Any) -> Any:
    d = delta_fn(eps, mu)
    return lib.exp(-eps * eps * n) + C_beta * n * lib.sqrt(d / eps)


def dp_route_eps(n: float, mu: float, C_beta: float, beta: float) -> float:
    """The eps at which Rogers et al.'s slack e^(-eps^2 n) + C_beta n sqrt(delta(eps)/eps) equals beta (float64).

    delta(eps) is the exact delta of mu-GDP; the slack decreases in eps, so bisection (safe upper end).
    """
    root = _decreasing_root(lambda e: float(_route_beta(e, n, mu, C_beta, np, gdp_delta_np)) - beta)
    if root is None:
        raise NumericalFailure(
            f"the (eps, delta) route cannot reach beta = {beta:g}: Rogers et al.'s slack "
            f"e^(-eps^2 n) + C_beta n sqrt(delta(eps)/eps) stays above it for every eps up to 1e6 "
            f"(n = {n:g}, mu = {mu:g}, C_beta = {C_beta:g})"
        )
    return root


def _decreasing_root(f: Callable[[float], float]) -> float | None:
    """The root of a decreasing ``f`` on (0, 1e6] (float64): the upper end doubles from 1 until ``f`` <= 0
    there, then bisection to a relative width of 1e-15; None when ``f`` stays > 0 up to 1e6."""
    lo, hi = 1e-12, 1.0
    while f(hi) > 0:
        hi *= 2.0
        if hi > 1e6:
            return None
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-15 * hi:
            break
    return hi


def dp_route_eps_mp(n: Any, mu: Any, C_beta: Any, beta: Any) -> mpmath.mpf:
    """:func:`dp_route_eps` at the current mpmath precision (bisection started from the float64 bracket)."""
    e0 = dp_route_eps(float(n), float(mu), float(C_beta), float(beta))

    def slack(e: Any) -> Any:
        return _route_beta(e, n, mu, C_beta, mpmath, gdp_delta_mp)

    lo, hi = mpmath.mpf(e0) * (1 - mpmath.mpf("1e-6")), mpmath.mpf(e0) * (1 + mpmath.mpf("1e-6"))
    while slack(lo) <= beta:
        lo /= 2
    while slack(hi) > beta:
        hi *= 2
    for _ in range(mpmath.mp.prec + 10):
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        if slack(mid) > beta:
            lo = mid
        else:
            hi = mid
    return hi


# ----------------------------------------------------------------------------- certified (python-flint arb)
# Balls in, ball out, at the caller's flint.ctx.prec. Integer parameters are Python ints; the others
# are arb balls, possibly wide (a box of the branch and bound): every result encloses the value at
# every point of the balls. docs/derivations/maxinfo_arb.md gives the arguments (monotone pieces,
# Taylor bound, bracketing).

#: most lambda-intervals examined by one lower bound of Theorem B's infimum
THM_B_ARB_MAX_INTERVALS = 2000


def _k_b_series(lam: Any, n_u: int, m: int, E: int, r: Any, L: Any, order: int) -> Any:
    """K_B(lambda + x) as a truncated power series in x (coefficients enclose K_B^(k)(xi)/k! for xi in the
    ball ``lam``): K_B = L/lambda + n_u E r/2 + n_u (exp(8 abar) - 1)/(8 lambda)."""
    from flint import arb_series

    x = arb_series([lam, 1], prec=order + 1)
    a = E * r * (x * x + x) / 2
    den = 1 - 4 * (m - 1) * a
    g = (8 * a / den).exp()
    return L / x + (n_u * E * r / 2 + n_u * (g - 1) / (8 * x))


def k_b_arb(lam: Any, n_u: int, m: int, E: int, r: Any, L: Any) -> Any:
    """K_B(lambda) on balls (``L = ln(1/beta)``); +inf when 4 a (m - 1) >= 1 certainly, NaN when undecided."""
    import flint

    a = E * r * (lam * lam + lam) / 2
    den = 1 - 4 * (m - 1) * a
    if den <= 0:
        return flint.arb("inf")
    if not den > 0:
        return flint.arb("nan")
    return L / lam + n_u * E * r / 2 + n_u * (8 * a / den).expm1() / (8 * lam)


def _k_b_lower_mono(lo: Any, hi: Any, n_u: int, m: int, E: int, r: Any, L: Any) -> Any:
    """A lower bound of K_B on [lo, hi] (exact ends, lo > 0): L/lambda decreases and
    (exp(8 abar) - 1)/lambda increases in lambda (abar/lambda and expm1(t)/t both increase), so
    K_B >= L/hi + n_u E r/2 + n_u expm1(8 abar(lo))/(8 lo). ``hi`` may be the admissible end."""
    import flint

    a = E * r * (lo * lo + lo) / 2
    den = 1 - 4 * (m - 1) * a
    if den <= 0:
        return flint.arb("inf")
    if not den > 0:
        return None
    return (L / hi + n_u * E * r / 2 + n_u * (8 * a / den).expm1() / (8 * lo)).lower()


def _k_b_lower_taylor(lo: Any, hi: Any, c: Any, n_u: int, m: int, E: int, r: Any, L: Any) -> Any:
    """A lower bound of K_B on [lo, hi] from K(c) + K'(c) t + K''(I) t^2/2 (Taylor with Lagrange remainder,
    t = lambda - c): K(c) - K'(c)^2/(2 min K'') when K'' > 0 on I, else its bound at the ends."""
    import flint

    if not (1 - 4 * (m - 1) * E * r * (hi * hi + hi) / 2) > 0:
        return None
    Kc = k_b_arb(c, n_u, m, E, r, L)
    d1 = _k_b_series(c, n_u, m, E, r, L, 1).coeffs()[1]
    iv = flint.arb(lo).union(flint.arb(hi))
    d2 = 2 * _k_b_series(iv, n_u, m, E, r, L, 2).coeffs()[2]
    if not (Kc.is_finite() and d1.is_finite() and d2.is_finite()):
        return None
    m2 = d2.lower()
    if m2 > 0:
        return (Kc - d1 * d1 / (2 * m2)).lower()
    h = (flint.arb(hi) - c).abs_upper().max((c - lo).abs_upper())
    return (Kc - d1.abs_upper() * h + m2 * h * h / 2).lower()


def _newton_minimiser(lam0: float, n_u: int, m: int, E: int, r: Any, L: Any) -> Any:
    """The minimiser of K_B at the balls' midpoints, refined from ``lam0`` by Newton's method on K_B'
    (an exact arb number; only its accuracy, not the validity of the enclosure, depends on it)."""
    import flint

    rm, Lm = r.mid(), L.mid()
    c = flint.arb(lam0)
    for _ in range(2 * max(1, int(math.log2(max(flint.ctx.prec, 53) / 40.0))) + 6):
        s = _k_b_series(c, n_u, m, E, rm, Lm, 2).coeffs()
        d1, d2 = s[1], 2 * s[2]
        if not (d1.is_finite() and d2.is_finite() and d2 > 0):
            break
        step = (d1 / d2).mid()
        new = (c - step).mid()
        if not new > 0 or not (1 - 4 * (m - 1) * E * rm * (new * new + new) / 2) > 0:
            break
        if new == c:
            break
        c = new
    return c


def thm_b_arb(n_u: int, m: int, E: int, r: Any, beta: Any) -> Any:
    """A ball containing Theorem B's inf_lambda K_B(lambda) (derived here), for every r and beta in their balls.

    Upper end: K_B at the minimiser (any lambda gives an upper bound). Lower end: a branch and bound over
    lambda: below ``L/U`` K_B >= L/lambda >= U, above ``2U/(n_u E r)`` K_B >= n_u E r lambda/2 >= U (or the
    admissible end ``4 a (m - 1) = 1``), in between monotone pieces and a second-order Taylor bound at the
    minimiser (docs/derivations/maxinfo_arb.md). The ball narrows with the working precision.

    Raises:
        NumericalFailure: a parameter ball is not certainly in the theorem's domain (r > 0, 0 < beta < 1).
    """
    import flint

    arb = flint.arb
    if beta >= 1:
        raise _beta_out_of_range(beta.mid())
    if not (r > 0 and beta > 0 and beta < 1):
        raise NumericalFailure(f"thm_b_arb: needs r > 0 and 0 < beta < 1 certainly (r = {r.str(5)}, "
                               f"beta = {beta.str(5)})")
    if n_u == 0 and m >= 2 and E >= 1:  # m > n (see thm_b_np)
        return -beta.log() / _lam_max(None, arb(m), arb(E), r)
    if n_u < 1 or m < 1 or E < 1:
        raise NumericalFailure(f"thm_b_arb: n_u, m, E must be positive integers (got {n_u}, {m}, {E})")
    prec = flint.ctx.prec
    L = -beta.log()
    _, lam_f = thm_b_np(float(n_u), float(m), float(E), float(r.mid()), float(beta.mid()), return_lambda=True)
    c = _newton_minimiser(float(lam_f), n_u, m, E, r, L)
    U = k_b_arb(c, n_u, m, E, r, L)
    if not U.is_finite():
        raise NumericalFailure(f"thm_b_arb: K_B is not finite at the numerical minimiser lambda = {c.str(5)}")
    Uh = U.upper()
    tol = Uh * arb(2) ** (-(prec - 6))
    target = Uh - tol
    lam_lo = (L.lower() / Uh).lower()
    lam_top = (2 * Uh / (n_u * E * r.lower())).upper()
    if m > 1:
        lam_max = ((-1 + (1 + 4 / (2 * E * r.lower() * (m - 1))).sqrt()) / 2).upper()
        lam_top = lam_top.min(lam_max)
    if not lam_top > lam_lo:
        return arb(lam_lo).union(Uh)  # cannot happen for valid balls; the bound then rests on the cut-offs only
    # geometric start grid, c (where the Taylor bound is tight) as one of the breakpoints
    pts = [lam_lo, lam_top]
    if lam_lo < c < lam_top:
        pts.insert(1, c)
    stack: list[tuple[Any, Any]] = []
    for a, b in itertools.pairwise(pts):
        ratio = (b / a).log()
        k = max(1, min(64, int(float(ratio.mid()) * 8)))
        step = (ratio / k).exp().mid()
        x = a
        for _ in range(k - 1):
            y = (x * step).mid()
            stack.append((x, y))
            x = y
        stack.append((x, b))
    lower = Uh
    seen = 0
    min_width = arb(2) ** (-(prec // 2 + 8))
    while stack:
        a, b = stack.pop()
        seen += 1
        lb = _k_b_lower_mono(a, b, n_u, m, E, r, L)
        if lb is None or lb < target:
            near = (b - a) < (b + a) / 64
            if near:
                cc = c if a <= c <= b else ((a + b) / 2).mid()
                lt = _k_b_lower_taylor(a, b, cc, n_u, m, E, r, L)
                if lt is not None and (lb is None or lt > lb):
                    lb = lt
        if lb is not None and lb >= target:
            lower = lower.min(lb)
            continue
        if seen > THM_B_ARB_MAX_INTERVALS or (b - a) < min_width * b:
            if lb is None:
                raise NumericalFailure(f"thm_b_arb: K_B could not be bounded below on [{a.str(5)}, {b.str(5)}]")
            lower = lower.min(lb)
            continue
        mid = (a * b).sqrt().mid() if b > 2 * a else ((a + b) / 2).mid()
        if a <= c <= b and not (c == a or c == b):
            mid = c
        stack.append((a, mid))
        stack.append((mid, b))
    half = arb(2) ** (-(prec // 2))
    at_a_point = bool(r.rad() <= r.abs_lower() * half) and bool(beta.rad() <= beta.abs_lower() * half)
    if at_a_point and lower < Uh - Uh * half:  # (wide parameter balls have a true spread of values)
        # the branch and bound ran out of intervals before its lower bound met K_B at the minimiser (seen at
        # n = m = 10, E = 5, r ~ 1e4, beta ~ 0.998: [5.38e5, 5.42e5] at every precision); more precision does
        # not help, so say so at once instead of letting the Ziv loop double the precision up to 65536 bits
        raise NumericalFailure(
            f"thm_b_arb: the infimum's certified lower bound {arb(lower).str(8)} did not close on K_B at the "
            f"minimiser {arb(Uh).str(8)} within {THM_B_ARB_MAX_INTERVALS} intervals; not certified here"
        )
    return arb(lower).union(arb(Uh))


def gdp_delta_arb(eps: Any, mu: Any) -> Any:
    """delta(eps) of mu-GDP on balls (Balle & Wang 2018, Thm 8): (erfc(a/sqrt 2) - e^eps erfc(b/sqrt 2))/2 with
    a = eps/mu - mu/2, b = a + mu (Phi(-x) = erfc(x/sqrt 2)/2); arb keeps the cancellation rigorous."""
    import flint

    s2 = flint.arb(2).sqrt()
    a = eps / mu - mu / 2
    b = eps / mu + mu / 2
    return ((a / s2).erfc() - eps.exp() * (b / s2).erfc()) / 2


def _route_slack_arb(eps: Any, n: int, mu: Any, C_beta: Any, beta: Any) -> Any:
    """e^(-eps^2 n) + C_beta n sqrt(delta(eps)/eps) - beta (strictly decreasing in eps)."""
    d = gdp_delta_arb(eps, mu)
    if not d > 0:
        d = d.max(0)  # delta(eps) > 0 for every finite eps; a ball reaching below 0 is clipped, not trusted
    return (-(eps * eps) * n).exp() + C_beta * n * (d / eps).sqrt() - beta


def _route_eps_float(n: float, mu: float, C_beta: float, beta: float) -> float:
    """:func:`dp_route_eps` on Python floats (scalar ufunc calls, ~50x faster than the array kernel): only the
    starting point of the certified bracket, so a float64 error there costs time, not correctness."""
    from scipy.special import erfcx, ndtr

    r2 = math.sqrt(2.0)

    def slack(e: float) -> float:
        a = e / mu - mu / 2.0
        b = e / mu + mu / 2.0
        if a > 0:
            d = 0.5 * math.exp(-a * a / 2.0) * (float(erfcx(a / r2)) - float(erfcx(b / r2)))
        else:
            d = float(ndtr(-a)) - math.exp(min(e, 700.0)) * float(ndtr(-b))
        return math.exp(-e * e * n) + C_beta * n * math.sqrt(max(d, 0.0) / e) - beta

    root = _decreasing_root(slack)
    # unreachable beta: dp_route_eps raises NumericalFailure with the full message
    return dp_route_eps(n, mu, C_beta, beta) if root is None else root


def _route_root_bracket(n: int, mu: Any, C_beta: Any, beta: Any, e0: float, width: float = 0.0) -> tuple[Any, Any]:
    """[lo, hi] (exact) with the slack certainly > 0 at lo and < 0 at hi, for exact-valued mu, C_beta, beta;
    ``e0`` the float64 root; the bisection stops at a relative width 2^-(prec - 8) or ``width`` (absolute)."""
    import flint

    arb = flint.arb
    prec = flint.ctx.prec
    lo, hi = arb(e0 * (1 - 1e-12)).mid(), arb(e0 * (1 + 1e-12)).mid()

    def sign(e: Any) -> int:
        s = _route_slack_arb(e, n, mu, C_beta, beta)
        return 1 if s > 0 else -1 if s < 0 else 0

    for _ in range(200):
        if sign(lo) > 0:
            break
        lo = (lo * (1 - (hi - lo) / hi * 16)).mid() if lo > 0 else lo
    else:
        raise NumericalFailure(f"dp_route_eps_arb: the slack is not certainly above beta near eps = {e0:g}")
    for _ in range(200):
        if sign(hi) < 0:
            break
        hi = (hi * (1 + (hi - lo) / hi * 16)).mid()
    else:
        raise NumericalFailure(f"dp_route_eps_arb: the slack is not certainly below beta near eps = {e0:g}")
    rel = arb(2) ** (-(prec - 8))
    for _ in range(4 * prec):
        if hi - lo <= rel * hi or hi - lo <= width:
            break
        mid = ((lo + hi) / 2).mid()
        s = sign(mid)
        if s > 0:
            lo = mid
        elif s < 0:
            hi = mid
        else:
            break  # rounding at this precision limits the bracket here
    return lo, hi


def dp_route_eps_arb(n: int, mu: Any, C_beta: Any, beta: Any) -> tuple[Any, Any]:
    """A bracket [lo, hi] (exact arb numbers) of the eps solving e^(-eps^2 n) + C_beta n sqrt(delta(eps)/eps) = beta,
    valid for every mu, C_beta, beta in their balls.

    The slack decreases in eps and increases in mu (delta(eps) of mu-GDP increases in mu), in C_beta and in -beta,
    so the root increases in mu and C_beta and decreases in beta: over the balls it lies between the root at the
    corner (mu, C_beta, beta) = (low, low, high) and the one at (high, high, low). Each corner's root is bracketed
    by bisection from the float64 root with the slack's sign certified on balls at both ends, down to a relative
    width of 2^-(prec - 8) (or where the sign is no longer decided).

    Raises:
        NumericalFailure: no certified bracket.
    """
    import flint

    arb = flint.arb
    lo_corner = (arb(mu.lower()), arb(C_beta.lower()), arb(beta.upper()))
    hi_corner = (arb(mu.upper()), arb(C_beta.upper()), arb(beta.lower()))
    e_lo, e_hi = (_route_eps_float(float(n), *(float(x.mid()) for x in corner)) for corner in (lo_corner, hi_corner))
    # on a box the roots at the two corners differ by (e_hi - e_lo): brackets much narrower than that are wasted
    width = (e_hi - e_lo) / 32 if e_hi - e_lo > 1e-10 * e_hi else 0.0
    lo, hi = _route_root_bracket(n, *lo_corner, e_lo, width)
    if width > 0:
        _, hi = _route_root_bracket(n, *hi_corner, e_hi, width)
    return lo, hi


def dp_route_arb(n: int, E: int, zeta: Any, sigma: Any, beta: Any, C: Any, C_beta: Any) -> Any:
    """The route's value C (eps^2 n + n sqrt(delta(eps)/eps)) on balls, eps the root of the slack equation.

    At the root n sqrt(delta/eps) = (beta - e^(-eps^2 n))/C_beta, so the value is C (x + (beta - e^(-x))/C_beta)
    with x = eps^2 n: increasing in x, hence enclosed by its values at the bracket's ends.

    Raises:
        RegimeNotSupported: eps > 1/2 or delta(eps) >= eps certainly (outside Rogers et al.'s conditions).
        NumericalFailure: those conditions cannot be decided on these balls.
    """
    import flint

    from dptheory.core.errors import RegimeNotSupported

    arb = flint.arb
    mu = 2 * zeta * arb(E).sqrt() / sigma
    lo, hi = dp_route_eps_arb(n, mu, C_beta, beta)
    eps = arb(lo).union(arb(hi))
    # delta(eps) decreases in eps and increases in mu: its largest value on the balls is at (lo, mu high)
    d_hi = gdp_delta_arb(arb(lo), arb(mu.upper()))
    d_lo = gdp_delta_arb(arb(hi), arb(mu.lower()))
    d = d_lo.union(d_hi)
    half = arb(1) / 2
    if arb(lo) > half or d_lo >= arb(hi):
        raise RegimeNotSupported(f"maxinfo.dp_route_rogers_asymptotic: Rogers et al. need eps <= 1/2 and 0 < delta < "
                                 f"eps; the route gives eps = {eps.str(5)}, delta = {d.str(5)}")
    if not (arb(hi) <= half and d_hi < arb(lo)):
        raise NumericalFailure(f"dp_route_arb: eps <= 1/2 and delta < eps cannot be decided on these balls "
                               f"(eps = {eps.str(5)}, delta = {d.str(5)})")
    x = eps * eps * n
    return C * (x + (beta - (-x).exp()) / C_beta)


# ----------------------------------------------------------------------------- the theorems' kernels (a point p)
# The hand-written kernels of maxinfo.thmB_derived (named by paper.toml) and of maxinfo.dp_route_rogers_asymptotic
# (theorems.py): a parameter point p (name -> value) in, the value out; they unpack p for the kernels above.
def _n_u(p: Mapping[str, Any]) -> Any:
    """``n_u = m floor(n/m)``, the examples used per epoch (T = floor(n/m) steps of m)."""
    return int(p["m"]) * (int(p["n"]) // int(p["m"]))


def _r(p: Mapping[str, Any]) -> Any:
    return p["zeta"] ** 2 / p["sigma"] ** 2


def exact_ints(p: Mapping[str, Any], names: tuple[str, ...], where: str) -> tuple[int, ...]:
    """Integer parameters given as balls, as Python ints (Undecided when a ball is not one integer)."""
    from dptheory.core.compile import Undecided

    out = []
    for x in names:
        v = p[x]
        k = v.unique_fmpz() if v.is_exact() else None
        if k is None:
            raise Undecided(f"{where}: the integer {x} must be exact on balls (got {v.str(5)})")
        out.append(int(k))
    return tuple(out)


def theorem_b_mp(p: Mapping[str, Any]) -> mpmath.mpf:
    """Theorem B (derived here) at ``p`` in mpmath: :func:`thm_b_mp`."""
    return thm_b_mp(_n_u(p), int(p["m"]), p["E"], _r(p), p["beta"])


def theorem_b_np(p: Mapping[str, np.ndarray]) -> np.ndarray:
    """Theorem B (derived here) at ``p`` in float64, vectorised: :func:`thm_b_np`."""
    return thm_b_np(p["m"] * np.floor(p["n"] / p["m"]), p["m"], p["E"], _r(p), p["beta"])


def theorem_b_arb(p: Mapping[str, Any]) -> Any:
    """Certified Theorem B (:func:`thm_b_arb`: K_B at the minimiser, branch and bound below)."""
    n_, m_, E_ = exact_ints(p, ("n", "m", "E"), "maxinfo.thmB_derived")
    return thm_b_arb(m_ * (n_ // m_), m_, E_, _r(p), p["beta"])


def _route_parts(p: Mapping[str, Any], hp: bool) -> tuple[Any, Any, Any]:
    """eps (from the slack equation), delta(eps) of mu-GDP with mu = 2 zeta sqrt(E)/sigma, and n."""
    from dptheory.core.errors import RegimeNotSupported

    mu = 2 * p["zeta"] * (mpmath.sqrt(p["E"]) if hp else np.sqrt(p["E"])) / p["sigma"]
    if hp:
        e = dp_route_eps_mp(p["n"], mu, p["C_beta"], p["beta"])
        d = gdp_delta_mp(e, mu)
    else:
        e = dp_route_eps(float(p["n"]), float(mu), float(p["C_beta"]), float(p["beta"]))
        d = float(gdp_delta_np(e, mu))
    if e > 0.5 or not (0 < d < e):
        raise RegimeNotSupported(f"maxinfo.dp_route_rogers_asymptotic: Rogers et al. need eps <= 1/2 and "
                                 f"0 < delta < eps; the route gives eps = {float(e):.4g}, delta = {float(d):.3g} "
                                 f"at {({k: float(v) for k, v in p.items()})}")
    return e, d, p["n"]


def route_mp(p: Mapping[str, Any]) -> mpmath.mpf:
    """The (eps, delta)-DP route at ``p`` in mpmath: C (eps^2 n + n sqrt(delta/eps))."""
    e, d, nn = _route_parts(p, True)
    return p["C"] * (e**2 * nn + nn * mpmath.sqrt(d / e))


def route_arb(p: Mapping[str, Any]) -> Any:
    """Certified route (:func:`dp_route_arb`: eps bracketed by certified signs of the slack)."""
    n_, E_ = exact_ints(p, ("n", "E"), "maxinfo.dp_route_rogers_asymptotic")
    return dp_route_arb(n_, E_, p["zeta"], p["sigma"], p["beta"], p["C"], p["C_beta"])


def route_np(p: Mapping[str, np.ndarray]) -> np.ndarray:
    """The route at ``p`` in float64, point by point (eps is a root at each point)."""
    arrs = np.broadcast_arrays(*(np.asarray(p[k], dtype=np.float64) for k in ("n", "E", "zeta", "sigma", "beta", "C",
                                                                                "C_beta")))
    out = np.empty(arrs[0].shape)
    for idx in np.ndindex(out.shape):
        q = dict(zip(("n", "E", "zeta", "sigma", "beta", "C", "C_beta"), (float(a[idx]) for a in arrs), strict=True))
        e, d, nn = _route_parts(q, False)
        out[idx] = q["C"] * (e * e * nn + nn * np.sqrt(d / e))
    return out
