"""The one definitions that the core and verify duplicates were folded into keep the behaviour of the copies.

* ``Quantity(...)`` is :func:`dptheory.core.claims.make_side` (its signature is stated there only);
* ``Theorem.evaluate`` (and calling a theorem) is :func:`dptheory.core.evaluator.evaluate`;
* a failing point decision's record is :func:`dptheory.verify.points.counterexample_record` (the checker adds
  the digits it decided at);
* the bounds the conditions put on single parameters and the "Y divides X" conditions are read once, in
  :mod:`dptheory.verify.space` (the hypothesis strategies import them);
* a point given as any values is read into exact rationals by :func:`dptheory.core.notation.parse_point` (it was
  written out as a comprehension in thirteen places);

The expected values are written out by hand here, from the conditions and sides stated in each test.
"""

from __future__ import annotations

import dataclasses

import mpmath
import pytest
import sympy as sp

from dptheory.core import evaluator
from dptheory.core.citation import Paper
from dptheory.core.claims import (
    Claim,
    Combination,
    Custom,
    Formula,
    Quantity,
    Region,
    Relation,
    TheoremSide,
    Verdict,
    formula,
    make_side,
)
from dptheory.core.conditions import Condition
from dptheory.core.registry import REGISTRY
from dptheory.core.theorem import Theorem
from dptheory.verify.checking import check_claim
from dptheory.verify.points import counterexample_record, decide_point
from dptheory.verify.space import Bound, bounds_by_name, multiples_of

n = sp.Symbol("n", integer=True, nonnegative=True)
_P = Paper(key="toy", authors="dptheory", year=2026, title="toy claims for the shared helpers")


def test_quantity_is_make_side():
    t = Quantity("a", theorem="yeshokri22.thm4_2")
    assert type(t) is TheoremSide and t.set == {} and t.theorem == "yeshokri22.thm4_2"
    assert Quantity(label="a", theorem="yeshokri22.thm4_2") == make_side("a", theorem="yeshokri22.thm4_2") == t
    f = Quantity("f", expr=n + 1, params=("n",))
    assert type(f) is Formula and f.params == ("n",)
    c = Quantity("c", op="+", parts=(f, f), params=["n"])
    assert type(c) is Combination and c.params == ("n",)
    u = Quantity("u", mp=lambda p, d: mpmath.mpf(1))
    assert type(u) is Custom and u.reason == "u is given by an mpmath function only"
    with pytest.raises(ValueError, match="fields mp are not fields of a theorem side"):
        Quantity("a", theorem="yeshokri22.thm4_2", mp=lambda p, d: 1)
    with pytest.raises(ValueError, match="give a theorem, an expr"):
        Quantity("nothing")
    # a variant's own class still builds itself (no detour through make_side)
    assert TheoremSide("b", theorem="k").set == {}


def test_theorem_evaluate_is_the_evaluator():
    assert Theorem.evaluate is evaluator.evaluate and Theorem.__call__ is evaluator.evaluate
    thm = REGISTRY.get("yeshokri22.thm4_2")
    # Ye & Shokri 2022's Figure 1 setting (tests/test_core.py FIG)
    fig = {"alpha": 10, "eta": "0.02", "lam": 1, "beta": 4, "S_g": 4, "sigma": 2, "n": 50, "b": 2, "K": 50}
    by_method = thm.evaluate(fig, dps=20)
    assert by_method == evaluator.evaluate(thm, fig, dps=20) == thm(fig, dps=20) == thm.evaluate(dps=20, **fig)
    assert by_method.key == "yeshokri22.thm4_2" and by_method.dps == 20


def _toy(lhs: Quantity, rhs: Quantity, values: list[int]) -> Claim:
    return Claim(key="toy.shared", title="toy", citation=_P.item("tests"), statement="toy", reading="toy",
                 lhs=lhs, rhs=rhs, relation=Relation.GT, region=Region(choices={"n": values}, description="toy"),
                 verdict=Verdict.FALSIFIED)


def test_counterexample_record_of_a_failing_point():
    # n^2 + 1 > 2 n fails at n = 1 only ((n - 1)^2 > 0)
    claim = _toy(formula("lhs", n**2 + 1), formula("rhs", 2 * n), [3, 2, 1, 0])
    dec = decide_point(claim, {"n": 1}, dps=50)
    assert dec.holds is False
    rec = counterexample_record(claim, dec)
    assert list(rec) == ["params", "lhs", "rhs", "relation", "margin", "certified", "evidence"]
    assert rec["params"] == {"n": "1"} and rec["relation"] == ">" and rec["certified"] is True
    res = check_claim(claim)
    assert res.verdict is Verdict.FALSIFIED and res.method == "exhaustive evaluation on arb balls (4 points)"
    assert res.examples_tried == 3 and res.counterexample == {**rec, "dps": 50}


def test_non_rigorous_exhaustive_falsification():
    # the left side only by an mpmath function: every point in float64, mpmath near the boundary
    lhs = Quantity("lhs", mp=lambda p, d: mpmath.mpf(int(p["n"])) ** 2, np=lambda p: float(p["n"]) ** 2,
                   params=("n",))
    # n^2 > 2 n: n = 3 holds; n = 2 ties (4 = 4, which mpmath cannot separate: no counterexample); n = 1 fails
    res = check_claim(_toy(lhs, formula("rhs", 2 * n), [3, 2, 1, 0]))
    assert res.verdict is Verdict.FALSIFIED and res.method == "exhaustive evaluation (4 points)"
    assert res.examples_tried == 3 and res.counterexample is not None
    assert res.counterexample["params"] == {"n": "1"} and res.counterexample["dps"] == 50


def test_bounds_and_multiples_of_conditions():
    b, m = sp.symbols("b m", positive=True, integer=True)
    K = sp.Symbol("K", positive=True)
    conds = [
        Condition(sp.StrictLessThan(b, m), "b < m"),
        Condition(sp.GreaterThan(K, 1), "K >= 1"),
        Condition(sp.Eq(sp.Mod(m, b), 0), "b divides m"),
    ]
    assert bounds_by_name(conds) == {
        "b": [Bound("upper", m, True)],
        "m": [Bound("lower", b, True)],
        "K": [Bound("lower", sp.Integer(1), False)],
    }
    assert multiples_of(conds) == {"m": b}


def test_one_closest_approach_record() -> None:
    # n^2 + 2 > 2 n holds everywhere ((n - 1)^2 + 1 > 0): the closest approach is at n = 1, margin (3 - 2)/3
    from dptheory.core.claims import Region
    from dptheory.verify.evaluator import closest_at
    from dptheory.verify.search import search_counterexample

    claim = _toy(formula("lhs", n**2 + 2), formula("rhs", 2 * n), [4, 3, 2, 1])
    closest = check_claim(claim).to_dict()["closest_margin"]
    assert closest == closest_at(claim, {"n": 1}, dps=50)
    assert closest["params"] == {"n": "1"} and (mpmath.mpf(closest["lhs"]), mpmath.mpf(closest["rhs"])) == (3, 2)
    assert abs(closest["margin"] - 1 / 3) < 1e-15
    # the search's record at its closest point is the same record (its sides confirmed at 30 digits)
    box = Region(ranges={"n": (1, 40, False)}, description="1 <= n <= 40")
    with_n = REGISTRY.get("yeshokri22.thm4_2").notation  # n: a positive integer
    searched = search_counterexample(dataclasses.replace(claim, region=box, notation=with_n), budget=60, seed=0)
    assert searched.closest is not None and searched.closest.params == {"n": "1"}
    assert searched.closest.to_dict() == closest_at(claim, {"n": 1}, dps=30)


def test_one_reader_of_a_point() -> None:
    """parse_point reads every value exactly, keeps the point's order, names the key and the parameter of a bad
    value, and no module of the package writes the comprehension out again."""
    import re
    from fractions import Fraction
    from pathlib import Path

    from dptheory.core.errors import InvalidParameter
    from dptheory.core.notation import parse_point

    got = parse_point({"z": "1/3", "a": 0.5, "n": 7, "q": Fraction(2, 7)}, key="toy.claim")
    assert list(got) == ["z", "a", "n", "q"]
    assert got == {"z": sp.Rational(1, 3), "a": sp.Rational(1, 2), "n": sp.Integer(7), "q": sp.Rational(2, 7)}
    with pytest.raises(InvalidParameter, match=r"toy\.claim.*\bq\b|\bq\b.*toy\.claim"):
        parse_point({"n": 1, "q": "one"}, key="toy.claim")
    copy = re.compile(r"parse_value\(\w+, key=[^)]*, name=(\w+)\) for \1, \w+ in")
    root = Path(__file__).resolve().parents[1] / "dptheory"
    copies = [f"{f.relative_to(root.parent)}:{i}" for f in sorted(root.rglob("*.py"))
              for i, line in enumerate(f.read_text().splitlines(), 1) if copy.search(line)]
    assert [c.split(":")[0] for c in copies] == ["dptheory/core/notation.py"], copies
