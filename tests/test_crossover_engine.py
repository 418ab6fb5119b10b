"""The one crossover engine (dptheory.evaluate.crossover) and the float and ball routes of the (epsilon, delta)
service (dptheory.privacy.conversion), called from Python as the command line calls them."""

from __future__ import annotations

import mpmath
import pytest

import dptheory
from dptheory.core.errors import DPTheoryError
from dptheory.evaluate.crossover import EpsilonDeltaCrossover, crossover, winning_tail
from dptheory.privacy.conversion import convert, epsilon_ball, epsilon_screen

FIG = {"eta": "0.02", "lam": "1", "beta": "4", "S_g": "4", "sigma": "2", "n": "50", "b": "2"}


@pytest.mark.parametrize(
    ("wins", "start"),
    [
        ([], None),
        ([False], None),
        ([True], 0),
        ([True, True], 0),
        ([False, True, True], 1),
        ([True, False], None),
        ([True, False, True], 2),
        ([False, False, True], 2),
    ],
)
def test_winning_tail_is_the_start_of_the_trailing_run_of_wins(wins: list[bool], start: int | None) -> None:
    assert winning_tail(wins) == start


def test_python_epsilon_delta_crossover_is_where_the_converted_values_change_order() -> None:
    """The engine, called from Python with delta, returns the epoch from which Thm 4.2's (epsilon, delta) stays
    below the composition baseline's, each side converted independently with its order optimised."""
    a, b = dptheory.get("yeshokri22.thm4_2"), dptheory.get("yeshokri22.composition")
    res = crossover(a, b, "K", 1, 30, FIG, dps=20, delta="1e-5")
    assert isinstance(res, EpsilonDeltaCrossover) and isinstance(res.value, int)

    def eps(t, K):
        return convert(t, {k: v for k, v in {**FIG, "K": K}.items() if k in t.params}, delta="1e-5", dps=30).epsilon

    K = res.value
    assert eps(a, K) < eps(b, K) and eps(a, K - 1) >= eps(b, K - 1)
    d = res.to_dict()
    assert list(d)[:10] == [
        "lower",
        "upper",
        "param",
        "start",
        "stop",
        "delta",
        "method",
        "confirmed_dps",
        "changes",
        "screen",
    ]
    assert d["before"][a.key] == mpmath.nstr(eps(a, K - 1), 20)


def test_rdp_crossover_without_delta_is_unchanged_by_the_delta_keyword() -> None:
    a, b = dptheory.get("yeshokri22.thm4_3"), dptheory.get("yeshokri22.composition")
    res = crossover(a, b, "K", 1, 500, {**FIG, "alpha": "20"}, dps=30)
    assert type(res).__name__ == "CrossoverResult" and isinstance(res.value, int)
    at = {k: v for k, v in {**FIG, "alpha": "20", "K": res.value}.items()}
    assert (
        a.evaluate({k: v for k, v in at.items() if k in a.params}, dps=30).value
        < b.evaluate({k: v for k, v in at.items() if k in b.params}, dps=30).value
    )


def test_float_route_is_an_upper_bound_on_the_optimised_epsilon_and_close_to_it() -> None:
    """Any order gives a valid bound: the 65-order screen is never below the continuous optimum (mp route)."""
    t = dptheory.get("rdp.subsampled_gaussian")
    Ts = [10, 100, 1000, 2500]
    screened = epsilon_screen(t, {"q": "0.04", "z": "1"}, "T", Ts, 1e-5, "improved")
    for T, s in zip(Ts, screened, strict=True):
        best = float(convert(t, {"q": "0.04", "z": "1", "T": T}, delta="1e-5", dps=30).epsilon)
        assert best <= s * (1 + 1e-12)
        assert s <= best * 1.02
    classic = epsilon_screen(t, {"q": "0.04", "z": "1"}, "T", Ts, 1e-5, "classic")
    assert (classic > screened).all()  # the improved conversion is strictly below the classic one


def test_ball_route_encloses_the_infimum_over_orders_of_a_gaussian() -> None:
    """rdp.gaussian (RDP = T alpha / (2 z^2), nondecreasing in alpha as the theorem declares): the ball's lower end
    is below the mp route's epsilon (an order's value), its upper end (an order's value) within 1e-3 of it. (The
    lower end is not tight here: below order 3/2 it is the closed form with R >= 0, about 21.1 at delta = 1e-5.)"""
    t = dptheory.get("rdp.gaussian")
    ball = epsilon_ball(t, {"z": 2, "T": 100}, "1/100000")
    lo, up = float(ball.lower()), float(ball.upper())
    mp = float(convert(t, {"z": "2", "T": "100"}, delta="1/100000", dps=30).epsilon)
    assert lo <= mp <= up * (1 + 1e-3)
    assert lo > 21


def test_ball_route_needs_the_order_bound_of_a_theorem_that_declares_none() -> None:
    with pytest.raises(DPTheoryError, match="order_bound must be one of nondecreasing, cumulant"):
        epsilon_ball(dptheory.get("yeshokri22.thm4_2"), {**FIG, "K": 5}, "1/100000")
    with pytest.raises(DPTheoryError, match="give tail"):
        epsilon_ball(dptheory.get("yeshokri22.thm4_2"), {**FIG, "K": 5}, "1/100000", order_bound="cumulant")
