"""Tests of the PLD composition baseline and its RDP counterpart (:mod:`dptheory.privacy.pld`).

Independent values:

* q = 1 is the plain Gaussian mechanism composed ``steps`` times: mu-GDP with mu = sqrt(steps)/z
  (add/remove) or 2 sqrt(steps)/z (replace-one: the contribution moves by 2), whose exact profile is
  Balle & Wang 2018, Thm 8 (``dptheory.privacy.gaussian_dp``, itself checked against quadrature in
  ``tests/test_gaussian_dp.py``). The bracket must contain it; the upper end must be within 5e-5
  relative (connect-the-dots is second order in the grid, measured <= 5e-6 at the default grid); the
  lower end within ``steps * h_lo`` (each step's loss is rounded down by less than one grid step, so
  the optimistic epsilon is at most ``steps * h_lo`` low: a proven bound, not a tolerance).
* prv-accountant 0.2.0 (Gopi, Lee & Wutschitz 2021) brackets the same epsilon with its own error
  analysis; the two brackets must overlap (no further tolerance: each side is a bound).
* dp-accounting's RDP accountant at integer orders (exact binomial sums there, and the same
  conversion formula) for the RDP route.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import pytest

from dptheory.core.errors import DPTheoryError, InvalidParameter
from dptheory.papers.yeshokri22 import epsdelta as YE
from dptheory.privacy import pld as P
from dptheory.privacy.gaussian_dp import gdp_delta_mp, gdp_eps_for_delta
from dptheory.testing.peers import prv_epsilon_bracket as prv_bracket

DELTA = 1e-5
FIG2 = {"eta": "0.02", "lam": 1, "beta": 4, "S_g": 4, "sigma": 2, "n": 50, "b": 2}


# ------------------------------------------------------------------------------------ q = 1: closed form


@pytest.mark.parametrize(
    ("z", "steps", "relation", "factor"),
    [
        (1.0, 1, "add_or_remove", 1.0),
        (10.0, 100, "add_or_remove", 1.0),
        (50.0, 5000, "add_or_remove", 1.0),
        (20.0, 250, "replace_one", 2.0),
    ],
)
def test_q1_is_the_composed_gaussian(z: float, steps: int, relation: str, factor: float) -> None:
    mu = factor * math.sqrt(steps) / z
    exact = gdp_eps_for_delta(DELTA, mu)
    r = P.pld_epsilon(1.0, z, steps, DELTA, neighbouring=relation)
    assert r.epsilon_lower <= exact <= r.epsilon_upper
    assert (r.epsilon_upper - exact) / exact <= 5e-5
    assert exact - r.epsilon_lower <= steps * r.lower_interval
    assert r.epsilon == r.epsilon_upper


def test_q1_delta_bracket() -> None:
    z, steps, eps = 10.0, 100, 0.5
    exact = float(gdp_delta_mp(eps, math.sqrt(steps) / z))
    r = P.pld_delta(1.0, z, steps, eps)
    assert r.delta_lower <= exact <= r.delta_upper
    assert r.delta == r.delta_upper
    # the optimistic delta is at least the true delta steps * h_lo further out
    assert r.delta_lower >= float(gdp_delta_mp(eps + steps * r.lower_interval, math.sqrt(steps) / z))


def test_delta_and_epsilon_are_inverse() -> None:
    r = P.pld_epsilon(0.04, 10.0, 250, DELTA)
    d = P.pld_delta(0.04, 10.0, 250, r.epsilon_upper)
    # dp-accounting's epsilon is the smallest grid loss with delta(eps) <= target
    assert d.delta_upper <= DELTA * (1 + 1e-9)
    assert d.delta_lower <= d.delta_upper


# ------------------------------------------------------------------------------------ wiring


@pytest.mark.parametrize("composition", ["library", "ours"])
@pytest.mark.parametrize("relation", ["add_or_remove", "replace_one"])
def test_upper_end_is_the_pld_accountant(relation: str, composition: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The upper end is what PLDAccountant gives for PoissonSampledDpEvent(q, GaussianDpEvent(z)) x steps: to
    1e-12 relative with the library's own self-composition in place of ours (the rest of the pipeline, single step
    and read-off, is the accountant's), and to 1e-9 with ours, which differs from the library's by the library's
    FFT round-off (measured: up to 7.4e-10 relative at delta = 1e-5 and 2500 steps, its error against a long-double
    reference; ours is within 2e-14 of that reference, ``tests/test_pld_fast.py``)."""
    import dp_accounting
    from dp_accounting.pld import PLDAccountant

    if composition == "library":
        monkeypatch.setattr(P, "self_compose", lambda pld, steps: pld.self_compose(steps))
    P.clear_caches()
    q, z, steps = 0.04, 10.0, 250
    nr = {
        "add_or_remove": dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE,
        "replace_one": dp_accounting.NeighboringRelation.REPLACE_ONE,
    }[relation]
    acc = PLDAccountant(neighboring_relation=nr, value_discretization_interval=1e-4)
    acc.compose(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(z)), steps)
    r = P.pld_epsilon(q, z, steps, DELTA, neighbouring=relation, value_discretization_interval=1e-4)
    P.clear_caches()
    assert r.epsilon_upper == pytest.approx(acc.get_epsilon(DELTA), rel=1e-12 if composition == "library" else 1e-9)


# ------------------------------------------------------------------------------------ prv-accountant


@pytest.mark.parametrize(
    ("q", "z", "steps"),
    [(0.04, 10.0, 250), (0.04, 10.0, 2500), (0.01, 1.0, 1000), (0.1, 2.0, 100)],
)
def test_brackets_overlap_prv_accountant(q: float, z: float, steps: int) -> None:
    lo, _est, up = prv_bracket(q, z, steps, DELTA, eps_error=1e-2)
    r = P.pld_epsilon(q, z, steps, DELTA)
    assert r.epsilon_lower <= r.epsilon_upper
    assert max(lo, r.epsilon_lower) <= min(up, r.epsilon_upper)


@pytest.mark.slow
def test_figure2_crossing_of_thm42_against_prv() -> None:
    """Independent check of the PLD side of a decision: Thm 4.2 (order optimised) is above the true
    composition epsilon at K = 21 and below it at K = 22 (Figure 2 setting), by prv-accountant's bracket."""
    q, z, per_epoch = YE.baseline_mechanism(FIG2)
    for K, expected in ((21, "above"), (22, "below")):
        hidden = float(P.theorem_epsilon("yeshokri22.thm4_2", {**FIG2, "K": K}, DELTA, dps=30).epsilon)
        lo, _est, up = prv_bracket(q, z, K * per_epoch, DELTA, eps_error=2e-3)
        prv_says = "below" if hidden < lo else "above" if hidden >= up else "undecided"
        assert prv_says == expected
        assert P.pld_epsilon(q, z, K * per_epoch, DELTA, rel_width=1e-3).compare(hidden) == expected


# ------------------------------------------------------------------------------------ properties


def test_monotone_in_steps() -> None:
    ups = [P.pld_epsilon(0.04, 10.0, t, DELTA).epsilon_upper for t in (1, 10, 100, 1000)]
    assert all(a < b for a, b in itertools.pairwise(ups))
    deltas = [P.pld_delta(0.04, 10.0, t, 0.3).delta_upper for t in (10, 100, 1000)]
    assert all(a < b for a, b in itertools.pairwise(deltas))


@pytest.mark.parametrize(
    ("q", "z", "steps"), [(0.04, 10.0, 25), (0.04, 10.0, 5000), (0.01, 1.0, 1000), (0.1, 2.0, 300)]
)
def test_pld_below_rdp(q: float, z: float, steps: int) -> None:
    """RDP conversion bounds the true profile from above, so the PLD epsilon is below it."""
    rdp = float(P.rdp_epsilon_best(q, z, steps, DELTA).epsilon)
    r = P.pld_epsilon(q, z, steps, DELTA)
    assert r.epsilon_lower <= r.epsilon_upper < rdp


def test_q_zero_is_zero() -> None:
    r = P.pld_epsilon(0, 10.0, 100, DELTA)
    assert (r.epsilon_lower, r.epsilon_upper) == (0.0, 0.0)
    assert P.pld_delta(0.0, 10.0, 100, 0.0).delta == 0.0
    assert P.rdp_epsilon_best(0.0, 10.0, 100, DELTA).epsilon == 0


@pytest.mark.parametrize(
    ("q", "z", "steps", "target"),
    [(0.04, 10.0, 250, 1e-2), (0.04, 10.0, 250, 1e-3), (0.001, 10.0, 100, 1e-2)],
)
def test_bracket_width_follows_the_target(q: float, z: float, steps: int, target: float) -> None:
    """Automatic grids: the lower end's bias is about steps * h_lo / 2 = target * epsilon, and the upper grid
    is refined when the upper end is the loose one (at q = 0.001 the default 1e-4 grid is 10 % high), so the
    width is about the target."""
    r = P.pld_epsilon(q, z, steps, DELTA, rel_width=target)
    assert r.lower_points < P.MAX_LOWER_POINTS
    assert 0.5 * target <= r.rel_width <= 1.3 * target


def test_results_are_cached() -> None:
    a = P.pld_epsilon(0.04, 10.0, 75, DELTA)
    b = P.pld_epsilon(0.04, 10, 75, DELTA)
    assert a is b
    P.clear_caches()
    c = P.pld_epsilon(0.04, 10.0, 75, DELTA)
    assert c is not a and c == a


# ------------------------------------------------------------------------------------ RDP route


def test_rdp_route_against_dp_accounting_integer_orders() -> None:
    """At integer orders the SGM RDP is an exact binomial sum and dp-accounting uses the same conversion
    (BBGHS20 Thm 21 = CKS20 Prop 12), so its optimum over integer orders equals ours over the same orders,
    and our continuous optimum is at most that."""
    import dp_accounting

    from dptheory.privacy.conversion import optimize_order
    from dptheory.privacy.sgm import rdp_mp

    q, z, steps = 0.04, 10.0, 1250
    orders = list(range(2, 257))
    acc = dp_accounting.rdp.RdpAccountant(orders=orders)
    acc.compose(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(z)), steps)
    eps_dp, order_dp = acc.get_epsilon_and_optimal_order(DELTA)
    with mpmath.workdps(30):
        ours_int = optimize_order(lambda a: rdp_mp(a, q, z, steps), delta=DELTA, orders=orders, dps=30)
    assert float(ours_int.order) == order_dp
    assert float(ours_int.epsilon) == pytest.approx(eps_dp, rel=1e-10)
    best = P.rdp_epsilon_best(q, z, steps, DELTA)
    assert float(best.epsilon) <= eps_dp * (1 + 1e-12)
    assert not best.at_edge


def test_rdp_route_is_the_registered_composition_baseline() -> None:
    """rdp_epsilon_best at the baseline's (q, z, K floor(n/b)) is convert(yeshokri22.composition)."""
    q, z, per_epoch = YE.baseline_mechanism(FIG2)
    assert (q, z, per_epoch) == (0.04, 10.0, 25)
    params = {k: v for k, v in FIG2.items() if k not in ("lam", "beta")}
    conv = P.theorem_epsilon("yeshokri22.composition", {**params, "K": 10}, DELTA)
    ours = P.rdp_epsilon_best(q, z, 10 * per_epoch, DELTA)
    assert float(ours.epsilon) == pytest.approx(float(conv.epsilon), rel=1e-9)


def test_classic_is_never_below_improved() -> None:
    a = P.rdp_epsilon_best(0.04, 10.0, 250, DELTA, method="improved").epsilon
    b = P.rdp_epsilon_best(0.04, 10.0, 250, DELTA, method="classic").epsilon
    assert a < b


# ------------------------------------------------------------------------------------ curve


def test_curve_points_are_the_parts() -> None:
    c = YE.epsilon_delta_curve("yeshokri22.thm4_2", FIG2, [3, 1, 3], DELTA, rel_width=5e-2)
    assert [p.K for p in c.points] == [1, 3]
    assert (c.q, c.z, c.z_pld, c.steps_per_epoch) == (0.04, 10.0, 10.0, 25)
    assert "K" not in c.params and "alpha" not in c.params
    for p in c.points:
        hidden = P.theorem_epsilon("yeshokri22.thm4_2", {**FIG2, "K": p.K}, DELTA, dps=30)
        assert p.hidden == float(hidden.epsilon)
        assert p.rdp == float(P.rdp_epsilon_best(0.04, 10.0, 25 * p.K, DELTA, dps=30).epsilon)
        assert p.pld.steps == 25 * p.K
        assert p.vs_rdp == ("below" if p.hidden < p.rdp else "above")
        assert p.vs_pld == p.pld.compare(p.hidden)
    assert c.wins("rdp") == [p.K for p in c.points if p.hidden < p.rdp]
    assert c.summary()["key"] == "yeshokri22.thm4_2"


def test_curve_replace_one_doubles_z() -> None:
    c = YE.epsilon_delta_curve("yeshokri22.thm4_2", FIG2, [1], DELTA, neighbouring="replace_one")
    assert c.z_pld == 2 * c.z
    assert c.points[0].pld.neighbouring == "replace_one"
    assert c.points[0].pld.z == 20.0


def test_curve_refines_until_decided() -> None:
    """K = 22: a 20 % bracket cannot decide Thm 4.2 against the PLD value (about 1 % apart); the refined one can."""
    c = YE.epsilon_delta_curve("yeshokri22.thm4_2", FIG2, [22], DELTA, rel_width=0.2, refine_to=1e-3)
    p = c.points[0]
    coarse = P.pld_epsilon(0.04, 10.0, 550, DELTA, rel_width=0.2)
    assert coarse.compare(p.hidden) == "undecided"
    assert p.vs_pld != "undecided"
    assert p.pld.rel_width < coarse.rel_width


# ------------------------------------------------------------------------------------ validation


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"q": 1.5}, "q"),
        ({"q": -0.1}, "q"),
        ({"q": float("nan")}, "q"),
        ({"q": "0.1"}, "q"),
        ({"z": 0.0}, "z"),
        ({"z": -1.0}, "z"),
        ({"z": float("inf")}, "z"),
        ({"steps": 0}, "steps"),
        ({"steps": 2.5}, "steps"),
        ({"steps": 10.0}, "steps"),
        ({"steps": True}, "steps"),
        ({"delta": 0.0}, "delta"),
        ({"delta": 1.0}, "delta"),
        ({"delta": None}, "delta"),
        ({"neighbouring": "replace"}, "neighbouring"),
        ({"value_discretization_interval": 0.0}, "value_discretization_interval"),
        ({"rel_width": 2.0}, "rel_width"),
    ],
)
def test_pld_epsilon_rejects_bad_input(kwargs: dict, name: str) -> None:
    args = {"q": 0.04, "z": 10.0, "steps": 10, "delta": DELTA, **kwargs}
    with pytest.raises(InvalidParameter) as err:
        P.pld_epsilon(**args)
    msg = str(err.value)
    assert f"parameter {name} =" in msg and "\n" not in msg


@pytest.mark.parametrize(("epsilon", "ok"), [(-0.1, False), (float("inf"), False), (0.0, True)])
def test_pld_delta_validates_epsilon(epsilon: float, ok: bool) -> None:
    if ok:
        assert P.pld_delta(0.04, 10.0, 10, epsilon).delta_upper > 0
    else:
        with pytest.raises(InvalidParameter, match="parameter epsilon"):
            P.pld_delta(0.04, 10.0, 10, epsilon)


def test_rdp_best_rejects_bad_input() -> None:
    with pytest.raises(InvalidParameter, match="parameter q"):
        P.rdp_epsilon_best(2.0, 1.0, 10, DELTA)
    with pytest.raises(InvalidParameter, match="parameter method"):
        P.rdp_epsilon_best(0.1, 1.0, 10, DELTA, method="best")
    with pytest.raises(InvalidParameter, match="alpha_min/alpha_max"):
        P.rdp_epsilon_best(0.1, 1.0, 10, DELTA, alpha_min=5, alpha_max=2)


def test_curve_rejects_bad_input() -> None:
    with pytest.raises(DPTheoryError, match="without alpha and K"):
        YE.epsilon_delta_curve("yeshokri22.thm4_2", {**FIG2, "K": 3}, [1], DELTA)
    with pytest.raises(InvalidParameter, match="K_values"):
        YE.epsilon_delta_curve("yeshokri22.thm4_2", FIG2, [0], DELTA)
    with pytest.raises(InvalidParameter, match="K_values"):
        YE.epsilon_delta_curve("yeshokri22.thm4_2", FIG2, [], DELTA)
    with pytest.raises(DPTheoryError, match="missing sigma"):
        YE.epsilon_delta_curve("yeshokri22.thm4_2", {k: v for k, v in FIG2.items() if k != "sigma"}, [1], DELTA)
    with pytest.raises(DPTheoryError, match="baseline must be"):
        YE.epsilon_delta_curve("yeshokri22.thm4_2", FIG2, [1], DELTA).wins("gdp")


def test_import_dptheory_stays_light() -> None:
    import subprocess
    import sys

    code = "import sys, dptheory, dptheory.privacy.pld; print('dp_accounting' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
