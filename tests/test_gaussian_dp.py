"""The Gaussian mechanism's privacy profile (dptheory.privacy.gaussian_dp): float64 vs mpmath vs quadrature."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from dptheory.privacy import gaussian_dp as G
from dptheory.testing import oracles

# (eps, mu): ordinary points, a tail point where the direct float64 form would cancel to 0 (delta ~ 1e-60),
# and eps below the crossing a = eps/mu - mu/2 <= 0
POINTS = [(0.5, 1.0), (3.0, 0.5), (40.0, 2.0), (0.1, 5.0), (0.0, 0.3)]


@pytest.mark.parametrize(("mu", "eps"), [("0.3", "0"), ("1", "0.5"), ("4", "3"), ("15", "100"), ("2", "40"),
                                         ("3", "200"), ("0.01", "1")])
def test_closed_form_vs_quadrature(mu, eps):
    """Including deep tails (delta down to 1e-2178), where an unscaled quadrature stops early and is wrong."""
    with mpmath.workdps(50):
        a = G.gdp_delta_mp(eps, mu)
        b = oracles.gdp_delta_quad_mp(eps, mu)
        assert abs(a - b) <= abs(b) * mpmath.mpf(10) ** -40  # relative 1e-40


@pytest.mark.parametrize(("eps", "mu"), POINTS)
def test_float64_profile_matches_mpmath(eps, mu):
    with mpmath.workdps(50):
        ref = G.gdp_delta_mp(eps, mu)
    got = float(G.gdp_delta_np(eps, mu))
    assert got > 0 and math.isclose(got, float(ref), rel_tol=1e-10)


@pytest.mark.parametrize(("mu", "delta"), [(0.5, 1e-5), (2.0, 1e-10), (8.0, 0.01)])
def test_float64_inverse_matches_mpmath(mu, delta):
    e64 = G.gdp_eps_for_delta(delta, mu)
    with mpmath.workdps(40):
        emp = G.gdp_epsilon_mp(mu, delta)
    assert math.isclose(e64, float(emp), rel_tol=1e-12)
    assert float(G.gdp_delta_np(e64, mu)) <= delta  # the safe end


def test_vectorised():
    eps = np.array([p[0] for p in POINTS])
    mu = np.array([p[1] for p in POINTS])
    assert np.array_equal(G.gdp_delta_np(eps, mu), [float(G.gdp_delta_np(e, m)) for e, m in POINTS])
