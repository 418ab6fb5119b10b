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
"""

from __future__ import annotations

import math
from typing import Any

import mpmath
import numpy as np

from dptheory.core.errors import NumericalFailure
from dptheory.numerics.gaussian_dp import gdp_delta_mp, gdp_delta_np, gdp_eps_for_delta

__all__ = [
    "dwork_product",
    "dwork_pure",
    "gdp_delta_np",
    "gdp_eps_for_delta",
    "k_b_mp",
    "k_b_np",
    "lemma_m_mp",
    "lemma_m_np",
    "lemma_m_relaxed_mp",
    "lemma_m_relaxed_np",
    "thm_a_mp",
    "thm_a_np",
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


def _lam_max_np(m: Any, E: Any, r: Any) -> np.ndarray:
    """Largest admissible lambda: lam^2 + lam < 1/(2 E r (m-1)) (inf when m = 1)."""
    m = np.asarray(m, dtype=np.float64)
    with np.errstate(divide="ignore"):
        rhs = np.where(m > 1, 1.0 / (2.0 * E * r * np.maximum(m - 1.0, 1e-300)), np.inf)
    return np.where(np.isinf(rhs), np.inf, (-1.0 + np.sqrt(1.0 + 4.0 * rhs)) / 2.0)


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
    out = best.reshape(shape)
    if return_lambda:
        return out, np.exp(u_best).reshape(shape)
    return out


def thm_b_mp(n_u: Any, m: int, E: Any, r: Any, beta: Any, *, return_lambda: bool = False) -> Any:
    """Theorem B at the current mpmath precision: the float64 minimiser refined by golden section in mp."""
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
    def slack(e: float) -> float:
        return float(_route_beta(e, n, mu, C_beta, np, gdp_delta_np))

    lo, hi = 1e-12, 1.0
    while slack(hi) > beta:
        hi *= 2.0
        if hi > 1e6:
            raise NumericalFailure(
                f"the (eps, delta) route cannot reach beta = {beta:g}: Rogers et al.'s slack "
                f"e^(-eps^2 n) + C_beta n sqrt(delta(eps)/eps) stays above it for every eps up to 1e6 "
                f"(n = {n:g}, mu = {mu:g}, C_beta = {C_beta:g})"
            )
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if slack(mid) > beta:
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
