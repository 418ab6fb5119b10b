"""Tests of RDP -> (eps, delta) conversion (:mod:`dptheory.privacy.conversion`).

Known values come from ``docs/peers.md``, section 2 ("eps at delta = 1e-5"), with their provenance: they
were computed with an independent mpmath reference and quoted to 12 significant digits. The exact
Gaussian case D (q = 1, z = 2, T = 100, RDP = 12.5 alpha) is also checked against a closed-form
stationarity condition solved here with ``mpmath.findroot``. dp-accounting 0.6.0 (a declared test
dependency) is the oracle for the round trips. Its ``compute_epsilon`` uses the same (CKS20 Prop 12 =
BBGHS20 Thm 21) formula and clamps at 0.
"""

from __future__ import annotations

import math
from decimal import Decimal

import mpmath
import numpy as np
import pytest
from dp_accounting.rdp import rdp_privacy_accountant as dp_rdp
from hypothesis import given
from hypothesis import strategies as st

from dptheory.core.errors import NumericalFailure
from dptheory.privacy.conversion import (
    DPConversion,
    convert,
    eps_classic_mp,
    eps_classic_np,
    eps_improved_mp,
    eps_improved_np,
    optimize_order,
)
from dptheory.privacy.sgm import rdp_mp, rdp_np

ORDERS7 = [1.5, 2, 2.5, 10, 15, 32, 64]
CASES = {
    "A": (0.04, 1.0, 2500),
    "B": (2 / 50, 1.118033988749895, 5000),
    "C": (2048 / 60000, 3.08, 29 * 1200),
    "D": (1.0, 2.0, 100),
}
# docs/peers.md section 2, eps at delta = 1e-5: (BBGHS on the 7 orders, order), (classic on the 7 orders),
# (BBGHS continuous optimum, order to 4-5 significant digits)
PEERS_EPS = {
    "A": (("15.5463594445", 2.5), "16.6680455562", ("15.5429869870", "2.5306")),
    "B": (("19.1848334057", 2.5), "20.3065195174", ("19.1005872939", "2.3605")),
    "C": (("12.1981792389", 2.5), "13.3198653506", ("11.5684957146", "3.1281")),
    "D": (("35.1266311039", 2), "36.512925465", ("35.0673409674", "1.9319")),
}


def _ulp(text: str) -> float:
    """One unit in the last quoted digit of a reference value."""
    return 10.0 ** Decimal(text).as_tuple().exponent


def _sgm(case: str):
    q, z, T = CASES[case]
    return (lambda a: rdp_mp(a, q, z, T)), (lambda a: rdp_np(a, q, z, T))


# ------------------------------------------------------------------------------------------------
# the formulas
# ------------------------------------------------------------------------------------------------


def test_formulas_by_hand() -> None:
    with mpmath.workdps(40):
        r, a, d = mpmath.mpf(3), mpmath.mpf(5), mpmath.mpf("1e-6")
        assert eps_classic_mp(r, a, d) == +(r + mpmath.log(1 / d) / (a - 1))
        want = r + mpmath.log(mpmath.mpf(4) / 5) - (mpmath.log(d) + mpmath.log(a)) / 4
        assert abs(eps_improved_mp(r, a, d) - want) < mpmath.mpf(10) ** -39


def test_cks_form_is_the_same_bound() -> None:
    """CKS20 Prop 12: delta = exp((a-1)(r-eps))/(a-1) * (1-1/a)^a. Plugging in BBGHS eps gives delta back."""
    with mpmath.workdps(50):
        for r, a, d in [(1, 2, "1e-5"), (0.3, "1.01", "1e-9"), (50, 64, "0.01")]:
            r, a, d = mpmath.mpf(r), mpmath.mpf(a), mpmath.mpf(d)
            eps = eps_improved_mp(r, a, d)
            back = mpmath.exp((a - 1) * (r - eps)) / (a - 1) * (1 - 1 / a) ** a
            assert abs(back / d - 1) < mpmath.mpf(10) ** -45


@given(
    r=st.floats(0, 1e6),
    a=st.floats(1.0001, 1e5),
    d=st.floats(1e-300, 0.999),
)
def test_classic_is_never_below_improved(r: float, a: float, d: float) -> None:
    with mpmath.workdps(30):
        c, i = eps_classic_mp(r, a, d), eps_improved_mp(r, a, d)
        assert c > i  # difference -log(1 - 1/a) + log(a)/(a - 1) > 0
        gap = -mpmath.log1p(-1 / mpmath.mpf(a)) + mpmath.log(a) / (a - 1)
        # c and i are each rounded to 30 digits: the error of c - i is relative to the larger of the two (i < 0 and
        # |i| >> c happens: r = 0, a = 90, d = 0.99609375 gives c = 4.4e-5, i = -0.062)
        assert abs((c - i) - gap) < 1e-28 * max(abs(c), abs(i))
    cn, in_ = eps_classic_np(r, a, d), eps_improved_np(r, a, d)
    assert cn >= in_
    # float64 vs mp: 1e-12 relative (the improved form has cancellation only where |eps| is small)
    assert abs(cn - float(c)) <= 1e-12 * abs(float(c))
    assert abs(in_ - float(i)) <= 1e-12 * max(abs(float(i)), float(c) - float(i))


def test_np_broadcasting_and_inf() -> None:
    out = eps_improved_np(np.array([[1.0], [np.inf]]), np.array([2.0, 10.0, 100.0]), 1e-5)
    assert out.shape == (2, 3)
    assert np.all(np.isinf(out[1]))
    assert eps_classic_mp(mpmath.inf, 2, 1e-5) == mpmath.inf


@pytest.mark.parametrize("fn", [eps_classic_mp, eps_improved_mp, eps_classic_np, eps_improved_np])
def test_conversion_errors(fn) -> None:
    with pytest.raises(NumericalFailure, match="NaN"):
        fn(math.nan, 2.0, 1e-5)
    for bad in [(-1.0, 2.0, 1e-5), (1.0, 1.0, 1e-5), (1.0, math.inf, 1e-5), (1.0, 2.0, 0.0), (1.0, 2.0, 1.0)]:
        with pytest.raises(ValueError):
            fn(*bad)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: eps_classic_mp(1.0, 1, 1e-5), "eps_classic_mp: order alpha must be finite and > 1, got alpha=1"),
        (lambda: eps_improved_mp(1.0, math.inf, 1e-5),
         "eps_improved_mp: order alpha must be finite and > 1, got alpha=inf"),
        (lambda: optimize_order(lambda a: a, delta=1e-5, orders=[2, "x"]),
         "optimize_order: every order must be a real number > 1, got x"),
        (lambda: optimize_order(lambda a: a, delta=1e-5, orders=[2, 0.5]),
         "optimize_order: every order must be finite and > 1, got 0.5"),
        (lambda: optimize_order(lambda a: a, delta=1e-5, orders=[True]),
         "optimize_order: every order must be a real number > 1, got True"),
    ],
)
def test_order_errors_name_the_function_and_the_argument(call, message) -> None:
    """A bad Rényi order (dptheory.privacy.orders.renyi_order) is refused in one line naming the function, the
    argument, what is accepted and the value."""
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value) == message


# ------------------------------------------------------------------------------------------------
# known cases (docs/peers.md section 2)
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", ["A", "B", "C", "D"])
def test_discrete_grid_known_values(case: str) -> None:
    f_mp, _ = _sgm(case)
    (eps_ref, order_ref), classic_ref, _ = PEERS_EPS[case]
    res = optimize_order(f_mp, delta=1e-5, orders=ORDERS7)
    assert isinstance(res, DPConversion)
    assert abs(float(res.epsilon) - float(eps_ref)) <= _ulp(eps_ref)  # one unit in the 12th digit
    assert res.order == order_ref and res.method == "improved" and not res.at_edge and not res.clamped
    assert res.orders_searched.startswith("discrete: 7 orders")
    with mpmath.workdps(50):
        assert res.rdp_at_order == rdp_mp(res.order, *CASES[case])
    classic = optimize_order(f_mp, delta=1e-5, orders=ORDERS7, method="classic")
    assert abs(float(classic.epsilon) - float(classic_ref)) <= _ulp(classic_ref)
    assert classic.epsilon > res.epsilon


def test_case_b_with_z10_known_value() -> None:
    """docs/peers.md section 2, case B10 (z = 10): 1.16598649747 at order 15 on the 7-order grid."""
    res = optimize_order(lambda a: rdp_mp(a, 0.04, 10.0, 5000), delta=1e-5, orders=ORDERS7)
    assert abs(float(res.epsilon) - 1.16598649747) <= _ulp("1.16598649747") and res.order == 15


@pytest.mark.parametrize("case,eps_ref,order_ref", [("C", "11.5693953151544", 3.1), ("D", "35.0817540190563", 1.9)])
def test_dp_accounting_default_grid_known_values(case: str, eps_ref: str, order_ref: float) -> None:
    """docs/peers.md section 2: the reference minimum over dp-accounting's 156 default orders (1.1..10.9, 11..63,
    128..1024; mostly fractional) - exact RDP at every order, so this exercises the fractional kernel."""
    f_mp, _ = _sgm(case)
    res = optimize_order(f_mp, delta=1e-5, orders=dp_rdp.DEFAULT_RDP_ORDERS, dps=30)
    assert abs(float(res.epsilon) - float(eps_ref)) <= _ulp(eps_ref)  # one unit in the 15th digit
    assert abs(float(res.order) - order_ref) < 1e-12


@pytest.mark.parametrize("case", ["A", "B", "C", "D"])
def test_continuous_optimum_known_values(case: str) -> None:
    f_mp, f_np = _sgm(case)
    _, _, (eps_ref, order_ref) = PEERS_EPS[case]
    res = optimize_order(f_mp, delta=1e-5, rdp_np=f_np)
    # eps is flat at the optimum, so it matches the 12-digit reference (one unit in the last digit) even
    # though the order is known to only ~1e-9 relative; the order matches the 5-digit reference
    assert abs(float(res.epsilon) - float(eps_ref)) <= _ulp(eps_ref), res
    assert abs(float(res.order) - float(order_ref)) <= _ulp(order_ref) / 2, res
    assert not res.at_edge
    assert res.orders_searched.startswith("continuous [1.0001, 10000]")
    # any order is a valid upper bound: the optimum is below the 7-order grid minimum
    assert res.epsilon <= optimize_order(f_mp, delta=1e-5, orders=ORDERS7).epsilon


def test_continuous_case_d_against_stationarity() -> None:
    """Case D is the Gaussian (RDP = 12.5 alpha): solve d eps/d alpha = 0 with findroot at 50 digits."""
    with mpmath.workdps(50):
        d = mpmath.mpf(1e-5)  # the float 1e-5, exactly as optimize_order receives it

        def eps(a):
            return eps_improved_mp(mpmath.mpf("12.5") * a, a, d)

        a_star = mpmath.findroot(lambda a: mpmath.diff(eps, a), mpmath.mpf("1.93"))
        eps_star = eps(a_star)
    f_mp, f_np = _sgm("D")
    for kwargs in ({"rdp_np": f_np}, {}):  # with the float64 scan, and mp-only
        res = optimize_order(f_mp, delta=1e-5, **kwargs)
        assert abs(float(res.order) - float(a_star)) < 1e-6  # Brent tolerance 1e-10 in log(alpha - 1)
        assert 0 <= float((res.epsilon - eps_star) / eps_star) < 1e-13  # quadratic in the order error
    assert abs(float(eps_star) - 35.0673409674) <= 1e-10  # docs/peers.md value


# ------------------------------------------------------------------------------------------------
# round trips with dp-accounting
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", ["A", "B", "C", "D"])
@pytest.mark.parametrize("delta", [1e-5, 1e-9])
def test_round_trip_with_dp_accounting(case: str, delta: float) -> None:
    """Same RDP vector at integer orders -> same eps and order as dp_rdp.compute_epsilon;
    and dp-accounting's compute_delta at our eps gives delta back."""
    q, z, T = CASES[case]
    orders = list(range(2, 65))
    rdp = rdp_np(np.array(orders, dtype=float), q, z, T)
    eps_ref, order_ref = dp_rdp.compute_epsilon(orders, rdp, delta)
    res = optimize_order(lambda a: rdp_mp(a, q, z, T), delta=delta, orders=orders)
    assert res.order == order_ref
    assert abs(float(res.epsilon) / eps_ref - 1) < 1e-10  # float64 formula in dp-accounting
    delta_back, order_back = dp_rdp.compute_delta(orders, rdp, float(res.epsilon))
    assert order_back == order_ref
    assert abs(delta_back / delta - 1) < 1e-8  # exp() amplifies eps's float rounding by (alpha - 1) * eps


def test_clamp_matches_dp_accounting() -> None:
    """Tiny RDP and large delta: the formula is negative; we report 0 (clamped), as dp-accounting does."""
    rdp = lambda a: mpmath.mpf("1e-6") * a
    res = optimize_order(rdp, delta=0.5, orders=[2, 3, 4])
    assert res.clamped and res.epsilon == 0
    with mpmath.workdps(30):
        assert eps_improved_mp(rdp(2), 2, 0.5) < 0  # the raw formula is negative
    eps_ref, _ = dp_rdp.compute_epsilon([2, 3, 4], [2e-6, 3e-6, 4e-6], 0.5)
    assert eps_ref == 0


# ------------------------------------------------------------------------------------------------
# search behaviour
# ------------------------------------------------------------------------------------------------


def test_at_edge_is_reported() -> None:
    f_mp, f_np = _sgm("D")  # optimum at alpha ~ 1.93
    res = optimize_order(f_mp, delta=1e-5, rdp_np=f_np, alpha_min=2.5, alpha_max=100)
    assert res.at_edge and float(res.order) == 2.5
    assert res.orders_searched.startswith("continuous [2.5, 100]")
    res = optimize_order(f_mp, delta=1e-5, rdp_np=f_np, alpha_min=1.01, alpha_max=1.5)
    assert res.at_edge and float(res.order) == 1.5
    res = optimize_order(f_mp, delta=1e-5, orders=[3, 4, 5])
    assert res.at_edge and res.order == 3
    res = optimize_order(f_mp, delta=1e-5, orders=[1.5, 2, 3])
    assert not res.at_edge and res.order == 2


def test_infinite_rdp_is_excluded_and_nan_raises() -> None:
    def rdp(a: mpmath.mpf) -> mpmath.mpf:
        return mpmath.inf if a > 10 else 12.5 * a

    res = optimize_order(rdp, delta=1e-5, orders=[1.5, 2, 64])
    assert res.order == 2 and mpmath.isfinite(res.epsilon)
    res = optimize_order(rdp, delta=1e-5)  # continuous, mp scan; inf above 10 excluded
    assert abs(float(res.order) - 1.9319) < 1e-4
    res = optimize_order(lambda a: mpmath.inf, delta=1e-5, orders=[2, 3])
    assert res.epsilon == mpmath.inf
    with pytest.raises(NumericalFailure, match="NaN"):
        optimize_order(lambda a: mpmath.nan, delta=1e-5, orders=[2, 3])
    with pytest.raises(NumericalFailure, match="NaN"):
        optimize_order(lambda a: 12.5 * a, delta=1e-5, rdp_np=lambda a: np.full(a.shape, np.nan))


@pytest.mark.parametrize("case,continuous", [("D", True), ("A", False)])
def test_final_value_is_exact_at_the_chosen_order(case: str, continuous: bool) -> None:
    f_mp, f_np = _sgm(case)
    kwargs = {"rdp_np": f_np} if continuous else {"orders": ORDERS7}
    res = optimize_order(f_mp, delta=1e-5, dps=40, **kwargs)
    with mpmath.workdps(40):
        want = eps_improved_mp(rdp_mp(res.order, *CASES[case]), res.order, mpmath.mpf(1e-5))
        assert res.epsilon == want and mpmath.mp.dps == 40  # recomputed at the same 40 digits: identical


@pytest.mark.parametrize(
    "kwargs",
    [
        {"method": "basic"},
        {"delta": 0},
        {"delta": 1.5},
        {"orders": [1.0, 2]},
        {"orders": []},
        {"orders": [2], "alpha_min": 1.5},
        {"alpha_min": 1.0},
        {"alpha_min": 5, "alpha_max": 4},
    ],
)
def test_optimize_order_argument_errors(kwargs: dict) -> None:
    kwargs = {"delta": 1e-5, **kwargs}
    with pytest.raises(ValueError):
        optimize_order(lambda a: 12.5 * a, **kwargs)


def test_convert_takes_parameters_beyond_float64_range() -> None:
    """A parameter beyond float64's range (z = 1e400) is inf on the float64 scan, as everywhere else; float() of the
    exact value raised OverflowError (an internal error) before. The mp route still decides: epsilon is tiny."""
    from dptheory.core.registry import REGISTRY

    res = convert(REGISTRY.get("rdp.gaussian"), {"z": "1e400", "T": 1}, delta="1e-5")
    assert 0 < res.epsilon < 1e-3
