"""Sweeps (float64 with an mpmath log-domain fallback) and crossovers."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

import dptheory
from dptheory.core import ConditionViolated
from dptheory.evaluate.crossover import crossover
from dptheory.evaluate.sweep import parse_values, sweep


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


# ----------------------------------------------------------------------------- values beyond float64


def _sgm_order2(q: str, z: str) -> mpmath.mpf:
    """RDP at alpha = 2, T = 1 of the sampled Gaussian: log(1 + q^2 (e^{1/z^2} - 1)) (the binomial sum at
    order 2 has one term; independent of the package's kernels)."""
    with mpmath.workdps(40):
        qm, zm = mpmath.mpf(q), mpmath.mpf(z)
        return mpmath.log1p(qm**2 * mpmath.expm1(1 / zm**2))


def test_underflow_and_subnormal_points_go_to_the_log_domain():
    """Measured in issue 12: q = 1e-170 printed 0 for a true 1.718e-340, q = 1e-160 lost 5 digits."""
    t = dptheory.get("rdp.subsampled_gaussian")
    qs = ["1e-100", "1e-170", "1e-160", "0.5"]
    r = sweep(t, {"q": qs}, {"alpha": 2, "z": 1, "T": 1})
    assert r.log_domain.tolist() == [False, True, True, False] and r.mp_points == 2
    for i, q in enumerate(qs):
        exact = _sgm_order2(q, "1")
        with mpmath.workdps(40):
            assert abs(r.log_values[i] - float(mpmath.log(exact))) <= 1e-13 * abs(float(mpmath.log(exact)))
        if not r.log_domain[i]:
            assert abs(r.values[i] - float(exact)) <= 1e-10 * float(exact)
    assert np.all(np.isfinite(r.log_values))
    assert r.text((1,)) == "1.7182818e-340" and r.text((2,)) == "1.7182818e-320"
    rows = r.rows()
    assert rows[1]["value"] == "1.7182818284590452e-340" and rows[1]["computed"] == "log"
    assert isinstance(rows[0]["value"], float) and rows[0]["computed"] == "float64"


def test_gaussian_at_huge_z_is_not_zero():
    """rdp.gaussian at z = 1e160 gave 0 and log -inf: T alpha / (2 z^2) = 1e-320."""
    t = dptheory.get("rdp.gaussian")
    r = sweep(t, {"z": ["1e160", "1e200", "1"]}, {"alpha": 2, "T": 1})
    assert r.log_domain.tolist() == [True, True, False]
    assert r.log_values[0] == pytest.approx(-320 * math.log(10), rel=1e-15)
    assert r.log_values[1] == pytest.approx(-400 * math.log(10), rel=1e-15)
    assert r.text((1,)) == "1.0e-400"


def test_parameters_beyond_float64_are_never_rounded_to_zero():
    """q = 1e-400 is 0 in float64 (the kernel would return 0); the point is computed from the exact q."""
    t = dptheory.get("rdp.subsampled_gaussian")
    r = sweep(t, {"q": ["1e-400", "0.01"]}, {"alpha": 2, "z": 1, "T": 1})
    assert r.log_domain.tolist() == [True, False]
    with mpmath.workdps(40):
        assert r.log_values[0] == pytest.approx(float(mpmath.log(_sgm_order2("1e-400", "1"))), rel=1e-14)
    g = sweep(dptheory.get("rdp.gaussian"), {"z": ["1e-400"]}, {"alpha": 2, "T": 3})
    assert g.log_values[0] == pytest.approx(math.log(3) + 800 * math.log(10), rel=1e-15)  # 3 * 2 / (2 z^2)


def test_true_zero_stays_zero():
    """q = 0 gives exactly 0 (log -inf) for the subsampled mechanisms: the peers' convention (issue 12, item 4)."""
    for key in ("rdp.subsampled_gaussian", "rdp.sampled_wor_gaussian"):
        r = sweep(dptheory.get(key), {"q": [0, "1e-3"]}, {"alpha": "2.5", "z": 1, "T": 3})
        assert r.values[0] == 0.0 and r.log_values[0] == -math.inf and r.valid.all()
        assert r.values[1] > 0 and math.isfinite(r.log_values[1])


def test_crossover_with_both_sides_beyond_float64():
    """Before issue 12 both sides were 0 in float64 (log -inf) and -inf < -inf decided 'not below'."""
    a, b = dptheory.get("rdp.subsampled_gaussian"), dptheory.get("rdp.gaussian")
    res = crossover(a, b, "q", "1e-170", "0.5", {"alpha": 2, "z": "1e200", "T": 1})
    assert res.value == pytest.approx(1e-170) and res.always_below
    # and a real crossing in the log domain: q^2 (e^{1/z^2} - 1) ~ q^2 / z^2 crosses a constant c at q = c^(1/2) z
    c = dptheory.get("rdp.sampled_wor_gaussian")
    res = crossover(c, b, "T", 1, 50, {"alpha": 2, "q": "1e-200", "z": "1e150"})
    assert res.always_below and res.value == 1


# ----------------------------------------------------------------------------- conditions first


def _spy_theorem(key, seen):
    import dataclasses

    t = dptheory.get(key)
    real = t.np

    def spy(p):
        seen.append({k: np.asarray(v).copy() for k, v in p.items()})
        return real(p)

    return dataclasses.replace(t, np=spy)


def test_skip_invalid_never_evaluates_an_invalid_point():
    """The composition baseline's float64 kernel raises at alpha = 1, and maxinfo's Thm B gives NaN for n < m:
    with skip_invalid those points are skipped before any kernel sees them."""
    seen = []
    t = _spy_theorem("yeshokri22.composition", seen)
    fixed = {"eta": "0.02", "S_g": 4, "sigma": 2, "n": 50, "b": 2, "K": 3}
    r = sweep(t, {"alpha": [1, "1.5", 2, "0.5"]}, fixed, skip_invalid=True)
    assert r.valid.tolist() == [False, True, True, False] and np.isnan(r.values[~r.valid]).all()
    assert all((p["alpha"] > 1).all() for p in seen) and sum(p["alpha"].size for p in seen) == 2
    for i, a in ((1, "1.5"), (2, 2)):
        ref = float(t.evaluate({**fixed, "alpha": a}, dps=30).value)
        assert abs(r.values[i] - ref) <= 1e-10 * ref
    seen.clear()
    tb = _spy_theorem("maxinfo.thmB_derived", seen)
    r = sweep(
        tb, {"n": list(range(1, 21))}, {"m": 10, "E": 1, "zeta": 1, "sigma": 100, "beta": "0.05"}, skip_invalid=True
    )
    assert r.valid.sum() == 11 and not np.isnan(r.values[r.valid]).any()
    assert all((p["n"] >= 10).all() for p in seen)


def test_invalid_points_are_screened_without_exact_checks_away_from_ties(monkeypatch):
    """200 invalid points far from the boundary cost no exact check each (issue 12: 2-9 s before)."""
    from dptheory.core.conditions import Condition

    calls = []
    real = Condition.evaluate

    def count(self, values):
        calls.append(self)
        return real(self, values)

    monkeypatch.setattr(Condition, "evaluate", count)
    t = dptheory.get("yeshokri22.thm3_3")
    fixed = {"alpha": 10, "eta": "0.02", "lam": 1, "beta": 4, "S_g": 4, "sigma": 2, "n": 50, "b": 2}
    r = sweep(t, {"j0": list(range(0, 225)), "K": [1, 2, 3, 4, 5, 6, 7, 8]}, fixed, skip_invalid=True)
    assert r.valid.sum() == 25 * 8
    # corners (4 points x every condition) and the integer tie of j0 <= floor(n/b) - 1 along j0, not 1800 points
    assert len(calls) < 300


def test_ties_are_decided_exactly():
    """eta < 2/(lam + beta) at eta = 0.4 - 1e-18 holds, though float64 rounds eta to the double of 0.4 (where the
    float64 comparison fails); at 0.4 it fails."""
    t = dptheory.get("yeshokri22.thm4_2")
    fixed = {"alpha": 10, "lam": 1, "beta": 4, "S_g": 4, "sigma": 2, "n": 50, "b": 2, "K": 3}
    assert float("0.399999999999999999") == 0.4
    r = sweep(t, {"eta": ["0.2", "0.399999999999999999", "0.4", "0.3"]}, fixed, skip_invalid=True)
    assert r.valid.tolist() == [True, True, False, True]
    with pytest.raises(ConditionViolated, match="eta"):
        sweep(t, {"eta": ["0.2", "0.4"]}, fixed)


def test_parse_values_errors_and_integer_ranges():
    from dptheory.core.errors import DPTheoryError

    assert parse_values("K", "1.5..3", integer=True) == [2, 3]
    for spec in ("1..10:x", "1..10:0", "1..10:-2", "2.2..2.8", "1..1e12"):
        with pytest.raises(DPTheoryError):
            parse_values("K", spec, integer=True)
    with pytest.raises(DPTheoryError):
        parse_values("eta", "0.1..1e400", integer=False)
    with pytest.raises(DPTheoryError, match="empty"):
        parse_values("eta", "1..0.5", integer=False)


def test_sweep_and_crossover_refuse_bad_names_and_ranges():
    from dptheory.core.errors import DPTheoryError

    a, b = dptheory.get("rdp.gaussian"), dptheory.get("rdp.subsampled_gaussian")
    with pytest.raises(DPTheoryError, match="needs values for"):
        sweep(a, {"z": [1]}, {"alpha": 2})
    with pytest.raises(DPTheoryError, match="non-empty"):
        sweep(a, {"z": []}, {"alpha": 2, "T": 1})
    with pytest.raises(DPTheoryError, match="neither"):
        crossover(a, b, "sigma", 1, 2, {"alpha": 2, "z": 1, "T": 1, "q": "0.1"})
    with pytest.raises(DPTheoryError, match="empty"):
        crossover(a, b, "T", 5, 1, {"alpha": 2, "z": 1, "q": "0.1"})


def test_plot_of_points_beyond_float64_draws_their_logs(monkeypatch, tmp_path):
    """A curve with values beyond float64 is drawn as log10 of the bound (0 or inf cannot be drawn)."""
    from dptheory.report import plotting

    drawn = {}

    def capture(fig, path):
        ax = fig.axes[0]
        drawn["y"] = ax.lines[0].get_ydata()
        drawn["label"] = ax.get_ylabel()

    monkeypatch.setattr(plotting, "save", capture)
    t = dptheory.get("rdp.gaussian")
    r = sweep(t, {"z": ["1", "1e100", "1e200"]}, {"alpha": 2, "T": 1})
    plotting.plot_sweep([r], ["z"], str(tmp_path / "p.png"))
    assert drawn["label"].startswith("log10") and np.allclose(drawn["y"], [0.0, -200.0, -400.0], rtol=1e-14)
    r = sweep(t, {"z": ["1", "2"]}, {"alpha": 2, "T": 1})
    plotting.plot_sweep([r], ["z"], str(tmp_path / "p.png"))
    assert drawn["label"].startswith("bound") and np.allclose(drawn["y"], [1.0, 0.25])
