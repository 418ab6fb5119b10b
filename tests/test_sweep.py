"""Sweeps (float64 with an mpmath log-domain fallback) and crossovers."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

import dptheory
from dptheory.core import ConditionViolated
from dptheory.core.sweep import crossover, parse_values, sweep


def test_parse_values():
    assert parse_values("K", "1..5", integer=True) == [1, 2, 3, 4, 5]
    assert parse_values("K", "1..9:4", integer=True) == [1, 5, 9]
    assert parse_values("alpha", "10,15", integer=False) == ["10", "15"]
    xs = [float(x) for x in parse_values("eta", "0.001..0.1:3", integer=False)]
    assert xs == pytest.approx([0.001, 0.01, 0.1], rel=1e-12)  # log-spaced (a factor > 10)
    xs = [float(x) for x in parse_values("eta", "0.1..0.5:5", integer=False)]
    assert xs == pytest.approx([0.1, 0.2, 0.3, 0.4, 0.5], rel=1e-12)


def test_overflowing_points_go_to_the_log_domain():
    """T alpha/(2 z^2) beyond 1.8e308: float64 gives inf, the sweep carries the exact log."""
    t = dptheory.get("rdp.gaussian")
    r = sweep(t, {"z": ["1e-150", "1e-160", "1"]}, {"alpha": 10, "T": 1000})
    assert math.isfinite(r.values[0]) and math.isinf(r.values[1]) and r.mp_points == 1
    with mpmath.workdps(30):
        exact = mpmath.log(1000 * 10 / (2 * mpmath.mpf("1e-160") ** 2))
    assert abs(r.log_values[1] - float(exact)) <= 1e-12 * float(exact)
    assert np.all(np.isfinite(r.log_values))
    assert r.log_values[2] == pytest.approx(math.log(1000 * 10 / 2), rel=1e-14)


def test_sweep_matches_pointwise_mpmath():
    t = dptheory.get("yeshokri22.thm4_3")
    fixed = {"eta": "0.02", "lam": 1, "beta": 4, "S_g": 4, "sigma": 2, "n": 50, "b": 2}
    r = sweep(t, {"K": [1, 3, 40], "alpha": ["1.5", "30"]}, fixed)
    for i, K in enumerate([1, 3, 40]):
        for j, a in enumerate(["1.5", "30"]):
            ref = float(t.evaluate({**fixed, "K": K, "alpha": a}, dps=30).value)
            assert abs(r.values[i, j] - ref) <= 1e-10 * ref


def test_sweep_refuses_invalid_points_naming_the_condition():
    t = dptheory.get("yeshokri22.thm3_3")
    fixed = {"alpha": 10, "eta": "0.02", "lam": 1, "beta": 4, "S_g": 4, "sigma": 2, "n": 50, "b": 2, "K": 3}
    with pytest.raises(ConditionViolated, match="j0 <= floor"):
        sweep(t, {"j0": list(range(0, 30))}, fixed)
    r = sweep(t, {"j0": list(range(0, 30))}, fixed, skip_invalid=True)
    assert r.valid.sum() == 25 and np.isnan(r.values[~r.valid]).all()


def test_crossover_real_parameter_bisection():
    """Along eta (real), Thm 4.2 against exact composition at K = 20: one crossing, bisected at 50 digits."""
    a, b = dptheory.get("yeshokri22.thm4_2"), dptheory.get("yeshokri22.composition")
    fixed = {"alpha": 10, "lam": 1, "beta": 4, "S_g": 4, "sigma": 2, "n": 50, "b": 2, "K": 20}
    res = crossover(a, b, "eta", "0.001", "0.39", fixed)
    assert res.changes == 1 and not res.always_below
    x = float(res.value)
    assert 0.001 < x < 0.39
    eps = mpmath.mpf(10) ** -12
    with mpmath.workdps(50):
        for e, below in ((mpmath.mpf(x) * (1 + eps), True), (mpmath.mpf(x) * (1 - eps), False)):
            va = a.evaluate({**fixed, "eta": e}, dps=50).value
            vb = b.evaluate({k: v for k, v in {**fixed, "eta": e}.items() if k in b.params}, dps=50).value
            assert (va < vb) is below
