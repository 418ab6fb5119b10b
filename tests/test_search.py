"""Counterexample search (dptheory.verify.search): finds what is there, is deterministic, reports its closest approach.

The known counterexamples are the claims' pinned points (each checked independently of the search by
``checks/test_claims.py`` at 50 digits); here the search starts without them, in a box around them,
with a small budget, and must reach a violating point on its own. Every reported point is re-decided
here by the checker's own ``evaluate_point`` (a code path independent of the search's margins).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import pytest
import sympy as sp

from dptheory.core.errors import DPTheoryError, InvalidParameter
from dptheory.core.notation import parse_value
from dptheory.core.registry import REGISTRY
from dptheory.verify.points import evaluate_point, in_region
from dptheory.verify.search import Counterexample, certify_point, search_counterexample


def _claim(key: str) -> Any:
    return REGISTRY.get(key)


def _test_claim(key: str, lhs: Any, rhs: Any, relation: Any, region: Any) -> Any:
    """A claim made up for one test, ``lhs relation rhs`` on ``region``: placeholder title, statement and reading
    ("t"), the citation of maxinfo.thmA_at_most_linear, verdict not falsified."""
    from dptheory.core.claims import Claim, Verdict

    return Claim(
        key=key,
        title="t",
        citation=_claim("maxinfo.thmA_at_most_linear").citation,
        statement="t",
        reading="t",
        lhs=lhs,
        rhs=rhs,
        relation=relation,
        verdict=Verdict.NOT_FALSIFIED,
        region=region,
    )


def _neighbourhood(claim: Any, pin: dict[str, Any], spread: float = 4.0) -> Any:
    """The claim restricted to a box around a pinned point (pins removed): every free real parameter
    in ``[v/spread, v*spread]`` (log scale), every free integer in ``[max(1, v/spread), v*spread]``."""
    ranges: dict[str, tuple[float, float, bool]] = {}
    fixed = dict(claim.region.fixed)
    for name, raw in pin.items():
        if name in fixed or name in claim.region.choices:
            continue
        v = parse_value(raw, key=claim.key, name=name)
        if v == 0:
            fixed[name] = v
            continue
        lo, hi = float(v) / spread, float(v) * spread
        if v.is_integer:
            lo = max(1.0, math.floor(lo))
            hi = math.ceil(hi)
        ranges[name] = (lo, hi, True)
    region = dataclasses.replace(claim.region, ranges={**claim.region.ranges, **ranges}, fixed=fixed)
    return dataclasses.replace(claim, region=region, counterexamples=())


# claims whose pin lies in a box where a small budget must find a violation (pin index)
PINNED = [
    ("dwork15.C21_as_extracted", 0),
    ("pacbayes.C1", 1),
    ("shi26.F_lemma39_sensitivity", 0),
    ("yeshokri22.C2c", 1),
]


@pytest.mark.parametrize(("key", "i"), PINNED)
def test_finds_counterexample_near_pin_with_small_budget(key: str, i: int) -> None:
    claim = _claim(key)
    near = _neighbourhood(claim, dict(claim.counterexamples[i]))
    res = search_counterexample(near, budget=150, seed=0)
    assert res.found is not None, f"{key}: nothing found near the pin; closest {res.closest}"
    assert res.points_tried <= 150 + 40  # the budget is respected (the last batch may overshoot a little)
    cx = res.found
    exact = cx.exact()
    # independent decision by the checker (50 digits), in the ORIGINAL claim's region
    assert in_region(claim, exact)
    out = evaluate_point(claim, exact, dps=50)
    assert out.holds is False, f"{key}: the search's point {cx.params} does not violate the claim"
    assert cx.margin <= 0
    assert cx.evidence.startswith("certified") == cx.certified
    if cx.certified:
        assert cx.lhs.lo is not None and cx.rhs.hi is not None


def test_certified_counterexample_enclosures_are_separated() -> None:
    claim = _claim("pacbayes.C1")  # "<": a violation means lhs >= rhs
    cx = certify_point(claim, dict(claim.counterexamples[1]))
    assert cx is not None and cx.certified
    assert cx.lhs.lo is not None and cx.rhs.hi is not None
    assert sp.Rational(cx.lhs.lo) >= sp.Rational(cx.rhs.hi)
    out = evaluate_point(claim, claim.counterexamples[1], dps=50)
    assert float(out.lhs) == pytest.approx(float(cx.lhs.value), rel=1e-15)


def test_certify_point_where_claim_holds_and_outside_region() -> None:
    claim = _claim("pacbayes.C1")
    pin = dict(claim.counterexamples[1])
    holds = {**pin, "m": 100, "eps": "0.01"}
    assert evaluate_point(claim, holds, dps=50).holds is True  # the checker agrees the claim holds here
    assert certify_point(claim, holds) is None
    with pytest.raises(DPTheoryError):
        certify_point(claim, {**pin, "delta": 2})  # delta = 2 is outside the claim's region


def test_deterministic_for_a_seed() -> None:
    claim = _claim("pacbayes.C2")
    a = search_counterexample(claim, budget=120, seed=3).to_dict()
    b = search_counterexample(claim, budget=120, seed=3).to_dict()
    c = search_counterexample(claim, budget=120, seed=4).to_dict()
    for d in (a, b, c):
        d.pop("duration_s")
    assert a == b
    assert a["closest"] != c["closest"]  # the seed matters


def test_closest_approach_on_a_claim_that_holds() -> None:
    claim = _claim("pacbayes.C2")
    res = search_counterexample(claim, budget=300, seed=0)
    assert res.found is None
    assert res.closest is not None and res.closest.flip
    assert 150 <= res.points_tried <= 300 + 40  # most of the budget is spent (mpmath sides count 10 each)
    assert "seed 0" in res.strategy and "seeded starts" in res.strategy
    exact = {k: parse_value(v, key="t", name=k) for k, v in res.closest.params.items()}
    assert in_region(claim, exact)
    out = evaluate_point(claim, exact, dps=50)
    assert out.holds is True
    # the reported margin is the margin at the reported point (independently recomputed, relative 1e-6)
    assert res.closest.margin == pytest.approx(out.margin, rel=1e-6, abs=1e-30)
    # and it is an approach: smaller than at a plain point of the region
    plain = evaluate_point(claim, {"emp_risk": "0.1", "KL": 1, "n": 100, "delta": "0.05"}, dps=30)
    assert res.closest.margin < plain.margin


def test_finite_region_is_enumerated() -> None:
    claim = _claim("yeshokri22.C3c")
    near = dataclasses.replace(claim, counterexamples=())
    res = search_counterexample(near, budget=500, seed=0)
    assert "exhaustive enumeration" in res.strategy
    assert res.found is not None
    assert evaluate_point(claim, res.found.exact(), dps=50).holds is False


@pytest.mark.parametrize("budget", [0, -5, 1.5, True, "100", None])
def test_bad_budget_is_one_line_error(budget: Any) -> None:
    with pytest.raises(InvalidParameter) as ei:
        search_counterexample(_claim("pacbayes.C2"), budget=budget)
    msg = str(ei.value)
    assert "\n" not in msg and "budget" in msg


def test_bad_seed_is_one_line_error() -> None:
    with pytest.raises(InvalidParameter) as ei:
        search_counterexample(_claim("pacbayes.C2"), budget=10, seed="x")  # type: ignore[arg-type]
    assert "\n" not in str(ei.value) and "seed" in str(ei.value)


def test_counterexample_record_round_trips() -> None:
    claim = _claim("dwork15.C21_as_extracted")
    cx = certify_point(claim, dict(claim.counterexamples[0]))
    assert isinstance(cx, Counterexample)
    d = cx.to_dict()
    assert d["params"] == cx.params and d["certified"] is cx.certified
    assert certify_point(claim, cx.exact()) is not None


def test_same_result_in_process_and_in_a_fresh_interpreter() -> None:
    """The search's draws come from its seed alone: the same verdict, points and closest approach under
    pytest and in a plain subprocess (the earlier hypothesis fallback of the checker drew, under pytest,
    from a pool of constants collected from the loaded modules, and its record differed between the two)."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    from dptheory.verify.checking import check_claim

    key, examples, seed = "maxinfo.route_superlinear_regime", 10, 3
    here = check_claim(_claim(key), examples=examples, seed=seed).to_dict()
    code = (
        "import json; from dptheory.core.registry import REGISTRY; "
        "from dptheory.verify.checking import check_claim; "
        f"print(json.dumps(check_claim(REGISTRY.get({key!r}), examples={examples}, seed={seed}).to_dict()))"
    )
    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=root, check=True, timeout=300
    )
    there = json.loads(out.stdout.strip().splitlines()[-1])
    for d in (here, there):
        d.pop("duration_s")
    assert here["method"].startswith("search:")
    assert here["closest_margin"] is not None
    assert here["closest_margin"]["margin"] == there["closest_margin"]["margin"]
    assert here == there


def test_divisibility_condition_is_drawn() -> None:
    """``m | n`` where a bound on m needs n (m <= n), so that n would be drawn first: m is drawn first and n
    as a multiple k m (the search drew no point of such a region before). The claim is our derived
    Theorem A's linearity written with n itself (the registered claim now writes n = k m)."""
    from dptheory.core.claims import Region, Relation
    from dptheory.core.claims import theorem_side as T
    from dptheory.core.conditions import Condition
    from dptheory.papers.lz26.claims import _times2, mO, nO

    claim = _test_claim(
        key="test.thmA_linear_with_n",
        lhs=T("maxinfo.thmA_derived", "A at 2n", set={"n": 2 * nO}),
        rhs=_times2(T("maxinfo.thmA_derived", "A at n"), "2 A at n"),
        relation=Relation.LE,
        region=Region(
            constraints=(Condition(sp.Eq(sp.Mod(nO, mO), 0), "m divides n"),),
            ranges={"n": (1, 200_000, True), "m": (1, 200, True)},
            description="m | n",
        ),
    )
    res = search_counterexample(claim, budget=120, seed=0)
    assert res.points_tried >= 60
    assert res.closest is not None
    p = {k: parse_value(v, key="t", name=k) for k, v in res.closest.params.items()}
    assert p["n"] % p["m"] == 0 and in_region(claim, p)


def test_refused_draws_are_redrawn_not_counted() -> None:
    """yeshokri22.C5e's region (K >= 1/(lambda eta) + n/b, b | n) refuses many draws: the seeded starts are
    0.3 budget points of the region (the refused ones redrawn), and every evaluated point lies in the region."""
    import re

    claim = _claim("yeshokri22.C5e")
    res = search_counterexample(claim, budget=400, seed=0)
    m = re.search(r"(\d+) seeded starts in the region \((\d+) drawn", res.strategy)
    assert m is not None, res.strategy
    starts, drawn = int(m.group(1)), int(m.group(2))
    assert starts == 120 and drawn > starts
    assert res.closest is not None
    exact = {k: parse_value(v, key="t", name=k) for k, v in res.closest.params.items()}
    assert in_region(claim, exact)


def test_inputs_become_balls_at_each_precision_tried() -> None:
    """One rule for inputs (verify.points.exact_balls): an exact input is rounded to a ball at the working
    precision in force, anew at each precision tried. ``x < 1/3 + 10^-30`` at ``x = 1/3`` cannot be decided on
    a 53- or 64-bit ball of 1/3 but is at 256 bits; building the balls once (at 53 bits, as the exhaustive loop
    did) never decides it."""
    from dptheory.core.claims import Region, Relation, formula
    from dptheory.verify.margin import margin_of
    from dptheory.verify.points import margin_sign

    x = sp.Symbol("x", positive=True)
    claim = _test_claim(
        key="test.third",
        lhs=formula("x", x),
        rhs=formula("1/3 + 1e-30", sp.Rational(1, 3) + sp.Rational(1, 10**30)),
        relation=Relation.LT,
        region=Region(fixed={"x": sp.Rational(1, 3)}),
    )
    m = margin_of(claim)
    ok, bad, _d, prec, why = margin_sign(m, {"x": sp.Rational(1, 3)}, (64,), catch=(ValueError,))
    assert not ok and not bad and "contains 0" in why
    ok, bad, _d, prec, _why = margin_sign(m, {"x": sp.Rational(1, 3)}, (64, 256), catch=(ValueError,))
    assert ok and not bad and prec == 256


def test_the_three_point_decisions_are_one() -> None:
    """evaluate_point, decide_point and certify_point are the rules mp, margin and separation of
    point_decision: same mpmath outcome, and certify_point's record is the separation decision's."""
    from dptheory.verify.points import decide_point, point_decision

    claim = _claim("yeshokri22.C1b")
    pin = claim.counterexamples[0]
    sep = point_decision(claim, pin, dps=50, rule="separation")
    rec = certify_point(claim, pin, dps=50)
    assert rec is not None and sep.holds is False
    assert (rec.lhs.to_dict(), rec.rhs.to_dict(), rec.evidence, rec.certified, rec.margin) == (
        sep.lhs,
        sep.rhs,
        sep.evidence,
        sep.certified,
        sep.margin,
    )
    mp = evaluate_point(claim, pin, dps=50)
    assert (mp.holds, mp.lhs, mp.rhs, mp.margin) == (sep.outcome.holds, sep.outcome.lhs, sep.outcome.rhs, sep.margin)
    dec = decide_point(claim, pin, dps=50)
    assert dec.holds is False and dec.outcome.lhs == mp.lhs and dec.evidence.startswith("certified: the margin")
