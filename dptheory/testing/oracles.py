"""Independent oracles for tests, checks and benchmarks: direct quadrature of the defining integrals.

Nothing in the runtime package imports this module (``tests/test_architecture.py`` checks it). Each oracle
shares no series, recurrence or closed form with the kernel it checks:

* :func:`log_a_quad_mp`: ``log A_alpha`` of the Poisson-subsampled Gaussian (MTZ19, arXiv 1908.10530,
  Sec. 3.3) by ``mpmath.quad`` of ``E[(1 + w)^alpha - 1 - alpha w]``; checks
  :func:`dptheory.privacy.sgm.log_a_mp`.
* :func:`gdp_delta_quad_mp`: the Gaussian mechanism's hockey-stick divergence (Balle & Wang 2018, Thm 8)
  by quadrature; checks :func:`dptheory.privacy.gaussian_dp.gdp_delta_mp`.
"""

from __future__ import annotations

import math
from typing import Any

import mpmath

from dptheory.core.errors import NumericalFailure
from dptheory.numerics.kl import check_n
from dptheory.privacy.sgm.validate import Real, parse_point

__all__ = ["gdp_delta_quad_mp", "log_a_quad_mp"]


def _stationary_points(a: float, z0: float, z: float) -> list[float]:
    """Maxima of the integrand's log: fixed points of ``x = a * sigmoid((x - z0)/z^2)``, from 0 and from a."""
    from scipy import special

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
    Library code never calls this; tests, checks and bench do.

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
        _, am, qm, zm = parse_point(alpha, q, z, "log_a_quad_mp")
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


def gdp_delta_quad_mp(eps: Any, mu: Any) -> mpmath.mpf:
    """Independent check of :func:`gdp_delta_mp`: the hockey-stick divergence by quadrature.

    ``delta(eps) = int max(0, phi(x - mu) - e^eps phi(x)) dx``; the integrand is positive exactly for
    ``x > x0 = eps/mu + mu/2``, where it equals ``phi(x - mu) (1 - e^{-mu (x - x0)})`` (no cancellation
    near x0), and decays on the scale ``1/x0`` beyond it, so the breakpoints sit on that scale. The
    integrand is divided by ``phi(x0 - mu)`` before integrating: mpmath's quadrature stops on an
    *absolute* error estimate, which an integral of 1e-80 meets at once with a wrong answer.
    """
    eps, mu = mpmath.mpf(eps), mpmath.mpf(mu)
    x0 = eps / mu + mu / 2
    u0 = x0 - mu

    def f(x: Any) -> Any:
        u = x - mu
        return mpmath.exp(-(u - u0) * (u + u0) / 2) * -mpmath.expm1(-mu * (x - x0))

    h = 1 / (1 + x0)
    pts = [x0 + k * h for k in (0, 1, 2, 4, 8, 16, 32, 64)] + [mpmath.inf]
    return mpmath.npdf(x0, mu, 1) * mpmath.quad(f, pts)


def xi_direct_mp(n: int) -> mpmath.mpf:
    """xi(n) by its definition, the binomial sum (oracle for :func:`dptheory.numerics.kl.xi_mp`; O(n) terms)."""
    n = check_n(n)
    nn = mpmath.mpf(n)
    terms = []
    for k in range(n + 1):
        pk = k / nn
        a = mpmath.mpf(1) if k == 0 else pk**k
        b = mpmath.mpf(1) if k == n else (1 - pk) ** (n - k)
        terms.append(mpmath.binomial(n, k) * a * b)
    return mpmath.fsum(terms)
