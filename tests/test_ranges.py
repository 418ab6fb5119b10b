"""The range a parameter is drawn from, shared by the claim search and the hypothesis strategies.

:func:`dptheory.verify.space.narrowed_range` cuts a parameter's sampling range by the bounds its conditions put
on it (:func:`dptheory.verify.space.isolate`) and by its domain. The expected ranges are worked out by hand
from the bounds stated in each test. The strategy tests count the draws that the exact condition check
rejects: a range that contains only valid values rejects none.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings

from dptheory.core.conditions import Condition
from dptheory.core.notation import Domain
from dptheory.core.registry import REGISTRY
from dptheory.testing import strategies
from dptheory.verify import space
from dptheory.verify.space import Bound, SearchSpace, isolate, narrowed_range

UP, LO = "upper", "lower"


def test_a_conditions_bound_is_never_widened_away() -> None:
    # 0 <= j <= floor(n/b) - 1 with floor(n/b) = 1: j = 0 only, whatever the sampling range, in either order of the
    # two bounds (before, the upper bound 0 at the sampling range's lower end moved that end to -10, and the lower
    # bound 0 at the new upper end moved that end to 10)
    assert narrowed_range(0, 1000, Domain.NONNEGATIVE_INTEGER, [(UP, 0.0, False)]) == (0, 0, False, False)
    assert narrowed_range(0, 1000, Domain.INTEGER, [(UP, 0.0, False), (LO, 0.0, False)]) == (0, 0, False, False)
    assert narrowed_range(0, 1000, Domain.INTEGER, [(LO, 0.0, False), (UP, 0.0, False)]) == (0, 0, False, False)


def test_the_sampling_range_moves_to_meet_bounds_outside_it() -> None:
    # an upper bound below the sampling range [1, 100]: drawn from a tenth of it up to it
    assert narrowed_range(1, 100, Domain.POSITIVE, [(UP, 0.5, True)]) == (0.05, 0.5, False, True)
    # a lower bound above the sampling range: drawn from it up to ten times it
    assert narrowed_range(1, 100, Domain.REAL, [(LO, 2000.0, False)]) == (2000.0, 20000.0, False, False)
    # nonpositive bounds outside the range move it by 10
    assert narrowed_range(1, 100, Domain.REAL, [(UP, -3.0, False)]) == (-13.0, -3.0, False, False)
    assert narrowed_range(-100, -50, Domain.REAL, [(LO, -2.0, True)]) == (-2.0, 8.0, True, False)
    # bounds inside the range cut it; the tightest of several wins, and a strict bound at a tie
    assert narrowed_range(0, 10, Domain.REAL, [(UP, 5.0, False), (UP, 3.0, False), (LO, 1.0, False)]) == (
        1.0, 3.0, False, False)
    assert narrowed_range(0, 10, Domain.REAL, [(UP, 3.0, False), (UP, 3.0, True)]) == (0, 3.0, False, True)
    # never beyond float64 (a lower bound of 1e308 does not make the upper end infinite)
    assert narrowed_range(1, 100, Domain.REAL, [(LO, 1e308, False)]) == (1e308, sys.float_info.max, False, False)
    # bounds beyond the sampling range leave it as it is
    assert narrowed_range(1, 10, Domain.REAL, [(UP, 50.0, True), (LO, -5.0, True)]) == (1, 10, False, False)


def test_the_domain_is_a_lower_bound() -> None:
    assert narrowed_range(-5, 5, Domain.POSITIVE, []) == (0.0, 5, True, False)
    assert narrowed_range(-5, 5, Domain.NONNEGATIVE, []) == (0.0, 5, False, False)
    assert narrowed_range(-5, 5, Domain.REAL, []) == (-5, 5, False, False)
    # an upper bound at or below a positive domain's end leaves nothing to draw
    lo, hi, lo_s, _ = narrowed_range(1, 5, Domain.POSITIVE, [(UP, -1.0, False)])
    assert lo > hi
    lo, hi, lo_s, _ = narrowed_range(1, 5, Domain.POSITIVE_INTEGER, [(UP, 0.0, False)])
    assert (lo, hi, lo_s) == (0.0, 0.0, True)


def test_contradicting_bounds_leave_nothing() -> None:
    lo, hi, _, _ = narrowed_range(0, 10, Domain.REAL, [(LO, 6.0, False), (UP, 4.0, False)])
    assert lo > hi


def test_a_power_of_a_positive_parameter_is_isolated() -> None:
    tau, c = sp.symbols("tau c", positive=True)
    n = sp.Symbol("n", positive=True, integer=True)
    # Dwork et al. 2015 (arXiv:1506.02629), Cor 22's condition tau^2/(c^2 n) >= 79/10: tau >= c sqrt(7.9 n)
    [bound] = isolate(Condition(sp.GreaterThan(tau**2 / (c**2 * n), sp.Rational(79, 10)), "cor22"))["tau"]
    assert bound.kind == LO and not bound.strict
    assert sp.simplify(bound.expr - c * sp.sqrt(sp.Rational(79, 10) * n)) == 0
    # a power alone, as an upper bound: kappa^2 <= c  ->  kappa <= sqrt(c)
    kappa = sp.Symbol("kappa", positive=True)
    assert isolate(Condition(sp.StrictLessThan(kappa**2, c), "k"))["kappa"] == [Bound(UP, sp.sqrt(c), True)]
    # tau^2 >= y holds for every tau > 0 where y <= 0: the bound is sqrt(max(y, 0)), not a root of a negative number
    y = sp.Symbol("y", real=True)
    [root] = isolate(Condition(sp.GreaterThan(tau**2, y), "y"))["tau"]
    assert (root.expr.subs(y, -4), root.expr.subs(y, 4)) == (0, 2)
    # a square of a parameter that may be negative bounds |x|, not x: not isolated
    x = sp.Symbol("x", real=True)
    assert "x" not in isolate(Condition(sp.GreaterThan(x**2 / c, 2), "x"))
    # nor a power whose base also appears on the other side
    assert "tau" not in isolate(Condition(sp.GreaterThan(tau**2 / c, tau + 1), "t"))


def _rejections(monkeypatch: pytest.MonkeyPatch, strategy: Any, examples: int) -> tuple[int, list[dict[str, Any]]]:
    """How many draws of ``strategy`` the exact condition check rejects while ``examples`` valid points are drawn."""
    rejected = [0]
    real = strategies.assume

    def counting(ok: bool) -> bool:
        rejected[0] += not ok
        return real(ok)

    monkeypatch.setattr(strategies, "assume", counting)
    points: list[dict[str, Any]] = []

    @settings(max_examples=examples, database=None, derandomize=True, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def draw(p: dict[str, Any]) -> None:
        points.append(p)

    draw()
    return rejected[0], points


def test_an_index_with_one_valid_value_is_drawn_at_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # Ye & Shokri 2022 (arXiv:2203.05363), Lemma D.3: 0 <= j <= floor(n/b) - 1; with n = b, j = 0 only
    thm = REGISTRY.get("yeshokri22.lemmaD_3")
    rejected, points = _rejections(monkeypatch, strategies.theorem_strategy(thm, fixed={"n": 16, "b": 16}), 30)
    assert points and {p["j"] for p in points} == {0}
    assert rejected == 0


def test_cor22s_condition_is_drawn_not_filtered(monkeypatch: pytest.MonkeyPatch) -> None:
    # tau is drawn at or above c sqrt(7.9 n); before, tau was drawn from its whole sampling range and filtered
    thm = REGISTRY.get("dwork15.cor22")
    rejected, points = _rejections(monkeypatch, strategies.theorem_strategy(thm), 40)
    assert len(points) >= 30 and rejected == 0
    assert all(p["tau"] ** 2 / (p["c"] ** 2 * p["n"]) >= sp.Rational(79, 10) for p in points)


def test_a_strict_end_is_never_drawn(monkeypatch: pytest.MonkeyPatch) -> None:
    # alpha > 1 with alpha's range starting at 1: hypothesis favours the tiniest fractions of a range, which
    # put alpha at exactly 1 (1 + 5e-324 * width), or at 1 after rounding to 12 digits
    thm = REGISTRY.get("rdp.gaussian")
    assert thm.notation["alpha"].sample[0] == 1
    rejected, points = _rejections(monkeypatch, strategies.theorem_strategy(thm), 200)
    assert len(points) >= 150 and rejected == 0
    assert min(p["alpha"] for p in points) > 1


@pytest.mark.parametrize("kind", [LO, UP])
def test_an_irrational_bound_is_rounded_inward(kind: str) -> None:
    # c sqrt(7.9 n) at c = 1/1000 (Cor 22's bound on tau): the shortest decimal of its float64 lies on the allowed
    # side of the exact value, a float or two from it; a decimal bound stays as it is
    c, m = sp.symbols("c n", positive=True)
    bound = Bound(kind, c * sp.sqrt(sp.Rational(79, 10) * m), False)
    inside = (lambda v, e: v >= e) if kind == LO else (lambda v, e: v <= e)
    moved = 0
    for n in range(1, 40):
        vals = {"c": sp.Rational(1, 1000), "n": sp.Integer(n)}
        f = strategies._bound_value(bound, vals)
        assert f is not None
        exact = bound.expr.subs({c: vals["c"], m: vals["n"]})
        assert inside(sp.Rational(repr(f)), exact)
        assert abs(sp.Rational(f) / exact - 1) < sp.Rational(1, 2**50)
        moved += f != float(sp.N(exact, 30))
        assert strategies._bound_value(Bound(kind, c * m, False), vals) == n / 1000
    assert moved  # some nearest floats were on the wrong side


def test_a_draw_keeps_the_digits_that_keep_it_in_range() -> None:
    decimal_in = strategies._decimal_in
    # 12 significant digits where they stay in the range
    assert decimal_in(0.0010000000000000002, 0.001, 1.0, False, False) == sp.Rational(1, 1000)
    assert decimal_in(2.5000000000001, 1.0, 10.0, True, True) == sp.Rational(5, 2)
    # at a strict end, and below a lower end, the shortest decimal of the draw
    assert decimal_in(1 + 1e-13, 1.0, 256.0, True, False) == sp.Rational("1.0000000000001")
    assert decimal_in(0.0028106938645110395, 0.0028106938645110395, 1.0, False, False) == sp.Rational(
        "0.0028106938645110395")
    assert decimal_in(7.99999999999991, 1.0, 7.99999999999995, False, True) == sp.Rational("7.99999999999991")


def test_the_search_and_the_strategies_share_one_range() -> None:
    assert strategies.narrowed_range is space.narrowed_range


def test_a_log_uniform_draw_stays_in_its_range() -> None:
    # the lower end of tau's range at c = 1/1000, n = 595 (Cor 22): exp(log(lo)) is a float below lo, and a draw
    # there was rejected by the exact check
    lo = 0.06856019253181835
    assert math.exp(math.log(lo)) < lo
    drawn: list[float] = []

    @settings(max_examples=100, database=None, derandomize=True, deadline=None)
    @given(strategies._mix_real(lo, 1000.0, True, False, False))
    def draw(x: float) -> None:
        drawn.append(x)
        assert lo <= x <= 1000.0

    draw()
    assert min(drawn) == lo  # the end itself is drawn


def test_a_bound_on_no_parameter_is_computed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    bound = Bound(LO, sp.Rational(1, 3), True)  # a fresh expression: not in the cache yet
    first = strategies._bound_value(bound, {})
    assert first is not None and sp.Rational(repr(first)) >= sp.Rational(1, 3)

    def computed(*_: Any) -> None:
        raise AssertionError("computed again")

    monkeypatch.setattr(strategies, "_bound_at", computed)
    assert strategies._bound_value(bound, {"x": sp.Integer(5)}) == first


def test_a_claims_own_range_is_a_box() -> None:
    # a region's own range never moves: a bound beyond it leaves nothing to draw
    assert narrowed_range(8, 100, Domain.POSITIVE_INTEGER, [(LO, 480.0, False)], box=True)[:2] == (480.0, 100)
    assert narrowed_range(8, 100, Domain.POSITIVE_INTEGER, [(LO, 480.0, False)])[:2] == (480.0, 4800.0)
    assert narrowed_range(8, 100, Domain.POSITIVE_INTEGER, [(LO, 50.0, False)], box=True) == (50.0, 100, False, False)


def test_the_search_stays_in_the_box_a_claim_states() -> None:
    # yeshokri22.C6_holds searches n <= 100 ("to keep the search within the check's budget") with n/b >= 8: with b
    # above 12 no n of the box is valid; before, n's range moved up to [8 b, 80 b], and the closest approach the
    # check reported was at n = 540
    import numpy as np

    claim = REGISTRY.get("yeshokri22.C6_holds")
    assert claim.region.ranges["n"][1] == 100
    space = SearchSpace(claim)
    rng = np.random.default_rng(0)
    drawn = [p for p in (space.decode(rng.normal(0, 3, space.dim)) for _ in range(300)) if p is not None]
    assert len(drawn) > 30
    assert max(p["n"] for p in drawn) <= 100


def test_the_method_says_how_far_the_draws_left_a_sampling_range() -> None:
    # yeshokri22.C5a's K >= 1/(lambda eta) + n/b reaches 10^3 + 10^4 where K's sampling range ends at 10^4: K's range
    # moves to meet it and the method text names the largest K drawn (before, it printed the sampling range only);
    # yeshokri22.C6_holds' own box on n is never left, and its text says nothing of the kind
    import numpy as np

    for key, name, moved in (("yeshokri22.C5a", "K", True), ("yeshokri22.C6_holds", "n", False)):
        space = SearchSpace(REGISTRY.get(key))
        c = next(x for x in space.coords if x.name == name)
        rng = np.random.default_rng(0)
        drawn = [p for p in (space.decode(rng.normal(0, 3, space.dim)) for _ in range(3000)) if p is not None]
        top = max(p[name] for p in drawn)
        text = space.describe()
        if moved:
            assert top > c.hi, top
            assert f"{name} in [{c.lo:g}, {c.hi:g}] (log) (drawn up to {float(top):g} to meet the" in text, text
        else:
            assert top <= c.hi and "drawn" not in text, text
