"""Clopper-Pearson and Wilson limits (dptheory.numerics.binomial) against independent computations."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dptheory.core.errors import InvalidParameter
from dptheory.numerics.binomial import clopper_pearson_lower, clopper_pearson_upper, wilson

CASES = [(1, 5, 0.05), (7, 50, 0.01), (49, 50, 1e-6), (500, 1000, 0.025)]


@pytest.mark.parametrize(("k", "n", "alpha"), CASES)
def test_limits_solve_their_defining_equations(k, n, alpha):
    """p_u: P(Bin(n, p_u) <= k) = alpha; p_l: P(Bin(n, p_l) >= k) = alpha (the binomial CDF, not the beta)."""
    pu, pl = clopper_pearson_upper(k, n, alpha), clopper_pearson_lower(k, n, alpha)
    assert math.isclose(stats.binom.cdf(k, n, pu), alpha, rel_tol=1e-8)
    assert math.isclose(stats.binom.sf(k - 1, n, pl), alpha, rel_tol=1e-8)
    assert pl < k / n < pu


def test_edges_and_arrays():
    assert clopper_pearson_upper(10, 10, 0.05) == 1.0
    assert clopper_pearson_lower(0, 10, 0.05) == 0.0
    # the upper limit at k = 0 has the closed form 1 - alpha^(1/n)
    assert math.isclose(clopper_pearson_upper(0, 20, 0.05), 1 - 0.05 ** (1 / 20), rel_tol=1e-12)
    k = np.array([0, 3, 10])
    up, lo = clopper_pearson_upper(k, 10, 0.05), clopper_pearson_lower(k, 10, 0.05)
    assert list(up) == [clopper_pearson_upper(int(i), 10, 0.05) for i in k]
    assert list(lo) == [clopper_pearson_lower(int(i), 10, 0.05) for i in k]


@pytest.mark.parametrize(("k", "n", "alpha", "name"), [(-1, 10, 0.05, "k"), (11, 10, 0.05, "k"), (0, 0, 0.05, "k"),
                                                       (3, 10, 0.0, "alpha"), (3, 10, 1.0, "alpha")])
def test_bad_input_names_the_parameter(k, n, alpha, name):
    with pytest.raises(InvalidParameter) as ei:
        clopper_pearson_upper(k, n, alpha)
    assert ei.value.name == name and "Clopper" in str(ei.value)


def test_wilson_matches_scipy():
    """Our Wilson interval (from a proportion) equals scipy's binomtest(...).proportion_ci(method='wilson')."""
    for k, n in [(3, 10), (95, 100), (1000, 2000)]:
        ci = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
        lo, hi = wilson(k / n, n)
        assert math.isclose(lo, ci.low, rel_tol=1e-9) and math.isclose(hi, ci.high, rel_tol=1e-9)
