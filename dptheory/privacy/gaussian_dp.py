"""The Gaussian mechanism's tight privacy profile (Gaussian DP) and its inverse, float64 and mpmath.

A mechanism whose two output laws are N(0, 1) and N(mu, 1) (mu = l2 sensitivity / noise std; for T
composed Gaussian mechanisms mu = sqrt(sum_t Delta_t^2)/sigma, Dong, Roth & Su 2022, Cor. 3.3) has the
tight profile (Balle & Wang 2018, Thm 8)

    delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2),

continuous and strictly decreasing in eps. One home for the profile used by the Shi et al. exact
accounting (``papers.shi26.privacy``), the (eps, delta)-DP route of the max-information bounds
(``papers.maxinfo.kernels``) and the audits (``audit.empirical``). Its quadrature oracle (test-only) is
:func:`dptheory.testing.oracles.gdp_delta_quad_mp`.
"""

from __future__ import annotations

import math
from typing import Any

import mpmath
import numpy as np

from dptheory.core.errors import NumericalFailure

__all__ = ["gdp_delta_expr", "gdp_delta_mp", "gdp_delta_np", "gdp_eps_for_delta", "gdp_epsilon_mp"]


def gdp_delta_np(eps: Any, mu: Any) -> np.ndarray:
    """delta(eps) of mu-GDP: Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) (Balle & Wang 2018, Thm 8).

    For a = eps/mu - mu/2 > 0 it is evaluated as e^(-a^2/2) (erfcx(a/sqrt 2) - erfcx(b/sqrt 2))/2 with
    b = a + mu (using b^2/2 - eps = a^2/2), which neither underflows nor subtracts two underflowed terms.
    """
    from scipy.special import erfcx, ndtr  # here: at module level, registering the papers imported it (about 0.1 s)

    eps = np.asarray(eps, dtype=np.float64)
    mu = np.asarray(mu, dtype=np.float64)
    a = eps / mu - mu / 2.0
    b = eps / mu + mu / 2.0
    direct = ndtr(-a) - np.exp(np.minimum(eps, 700.0)) * ndtr(-b)
    r2 = math.sqrt(2.0)
    pos = a > 0
    ap = np.where(pos, a, 1.0)
    bp = np.where(pos, b, 1.0 + mu)
    scaled = 0.5 * np.exp(-ap * ap / 2.0) * (erfcx(ap / r2) - erfcx(bp / r2))
    return np.where(pos, scaled, direct)


def gdp_delta_expr(eps: Any, mu: Any) -> Any:
    """delta(eps) of mu-GDP as a sympy expression, Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu) with
    Phi(x) = erfc(-x/sqrt 2)/2 (Balle & Wang 2018, Thm 8): the profile that claims compare and prove
    statements about (it compiles to arb like any claim side)."""
    import sympy as sp

    eps, mu = sp.sympify(eps), sp.sympify(mu)
    return normal_cdf_expr(mu / 2 - eps / mu) - sp.exp(eps) * normal_cdf_expr(-mu / 2 - eps / mu)


def normal_cdf_expr(x: Any) -> Any:
    """The standard normal CDF as a sympy expression, Phi(x) = erfc(-x/sqrt 2)/2 (erfc compiles to arb)."""
    import sympy as sp

    return sp.erfc(-x / sp.sqrt(2)) / 2


def gdp_delta_mp(eps: Any, mu: Any) -> mpmath.mpf:
    """Tight delta(eps) of the Gaussian mechanism with ``mu = sensitivity/sigma`` (Balle & Wang 2018, Thm 8)."""
    eps, mu = mpmath.mpf(eps), mpmath.mpf(mu)
    a = mpmath.ncdf(-eps / mu + mu / 2)
    b = mpmath.exp(eps + mpmath.log(mpmath.ncdf(-eps / mu - mu / 2)))
    return a - b


def gdp_epsilon_mp(mu: Any, delta: Any) -> mpmath.mpf:
    """The smallest eps with ``delta(eps) <= delta`` for the mu-GDP (Gaussian) mechanism.

    ``delta(eps)`` is continuous and strictly decreasing in ``eps``; solved by bisection on a bracket
    whose upper end is the classic RDP conversion ``mu^2/2 + mu sqrt(2 log(1/delta))`` (always valid).
    """
    mu, delta = mpmath.mpf(mu), mpmath.mpf(delta)
    if not (0 < delta < 1):
        raise ValueError(f"delta must be in (0, 1), got {delta}")
    if mu <= 0:
        return mpmath.mpf(0)
    if gdp_delta_mp(0, mu) <= delta:
        return mpmath.mpf(0)
    lo, hi = mpmath.mpf(0), mu**2 / 2 + mu * mpmath.sqrt(2 * mpmath.log(1 / delta))
    if gdp_delta_mp(hi, mu) > delta:
        raise NumericalFailure(f"GDP epsilon: upper bracket {hi} does not satisfy delta({hi}) <= {delta}")
    tol = mpmath.mpf(2) ** (-mpmath.mp.prec + 8) * max(hi, 1)
    for _ in range(4 * mpmath.mp.prec):
        mid = (lo + hi) / 2
        if gdp_delta_mp(mid, mu) > delta:
            lo = mid
        else:
            hi = mid
        if hi - lo <= tol:
            break
    return hi


def gdp_eps_for_delta(delta: float, mu: float) -> float:
    """Smallest eps >= 0 with delta(eps) <= delta for mu-GDP (bisection, safe upper end, rel. 1e-13)."""
    if not (0.0 < delta < 1.0) or not (mu > 0):
        raise ValueError(f"gdp_eps_for_delta needs 0 < delta < 1 and mu > 0; got delta = {delta}, mu = {mu}")
    if float(gdp_delta_np(0.0, mu)) <= delta:
        return 0.0
    lo, hi = 0.0, max(1.0, mu * mu / 2 + mu * math.sqrt(2 * math.log(1 / delta)) + 1.0)
    while float(gdp_delta_np(hi, mu)) > delta:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if float(gdp_delta_np(mid, mu)) > delta:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-13 * hi:
            break
    return hi
