"""Mutation contract over every registered claim (issue 11, item 6): a wrong claim must be noticed.

Each claim is mutated and the checking machinery (the counterexample search of
:mod:`dptheory.verify.search`, whose points are re-decided by :func:`dptheory.verify.checking.evaluate_point`
at 50 digits) must notice:

* **relation flipped** (``<`` -> ``>=``, ``<=`` -> ``>``, ...; a "within a factor f" claim gets factor
  ``1 + 1e-9`` when it holds, ``1e9`` when it is falsified; ``==`` gets one side scaled by ``1 + 1e-2``):
  - a claim with pinned counterexamples: every pin satisfies the flipped claim (the falsification is gone);
  - any other claim: a small-budget search of the flipped claim finds a counterexample (every point where
    the original holds strictly is one), confirmed at 50 digits.
* **one side scaled by 1 -/+ 1e-2** (towards failing for a claim that holds, towards holding for a falsified
  one; ``<``/``<=``/``>``/``>=`` claims): at the pins, or else at the point a small search of the claim
  reports (its counterexample, or its closest approach), the 50-digit margin moves the right way, and
  where the original margin is below 0.5e-2 in size, the verdict there flips.

Claims for which a mutation cannot change anything by design are listed in ``EXEMPT`` with the reason.
The default run uses budget ``BUDGET`` per claim; the ``slow`` variant a larger budget.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import mpmath
import pytest

from dptheory.core.claims import Relation, combine, constant
from dptheory.core.notation import parse_value
from dptheory.core.registry import REGISTRY
from dptheory.verify.checking import evaluate_point
from dptheory.verify.search import search_counterexample

BUDGET = 120

FLIP = {Relation.LT: Relation.GE, Relation.LE: Relation.GT, Relation.GT: Relation.LE, Relation.GE: Relation.LT}

#: claim -> (mutation, reason it cannot be noticed by design)
EXEMPT: dict[tuple[str, str], str] = {
    ("yeshokri22.C9b_holds", "scale"): "the first term's increment per epoch, term1(K+1) - term1(K), is r^((N-h)(K-1)) "
    "times a constant: at the search's closest approach (n = 10000, K = 19) it is about 1e-5857 against term1's 1e-5, "
    "below the 50 digits the point is evaluated at, so the side is 0 with or without the 1% (the proof is mutated in "
    "tests/test_yeshokri22_maps.py; the flip is noticed)",
    ("yeshokri22.C3b", "flip"): "both sides are the same number on the whole region (Thm 3.3 and Balle et al. for the "
    "last batch coincide at K = 1, the region's only K): no relation between them can be falsified; the check "
    "cannot fail and is being rewritten (issue 11, item 6)",
    ("yeshokri22.C2a", "scale"): "lim_K X < +infinity: scaling the limit by 1.01 keeps it finite (or infinite); the "
    "relation flip is the mutation that matters",
    ("yeshokri22.C2b", "scale"): "as yeshokri22.C2a",
    ("dwork15.C21_as_extracted_holds", "flip"): "both sides are the same number on the whole region (n = 1: the "
    "route at k = tau^2/c^2 equals Cor 21's bound, proved): the flipped '>' fails everywhere by a tie, which a search "
    "at 50 digits cannot decide (ties are decided exactly only at a point: tests/test_exact_tie.py); the scaled "
    "mutation is noticed",
    ("dwork15.C22", "scale"): "the search's closest approach is at x = tau^2/(c^2 n) ~ 1.5e6 (both sides below "
    "1e-480000, relative margin 1 - 1e-27606): a 1% change of a side cannot move it. The smallest relative margin, "
    "0.0099 at x = 79/10, is not reached by the search (over tau, c, n the band of moderate x is thin and the float64 "
    "sides underflow elsewhere); the claim is proved and tests/test_c22_proof.py mutates its theorems. The relation "
    "flip is noticed",
}


def _claims() -> list[Any]:
    return sorted(REGISTRY.claims(), key=lambda c: c.key)


def _scaled(q: Any, factor: str) -> Any:
    return combine(f"{q.label} x {factor}", "*", q, constant(factor, factor))


def _flipped(claim: Any) -> Any:
    falsified = bool(claim.counterexamples)
    if claim.factor is not None:
        return dataclasses.replace(claim, factor=1e9 if falsified else 1 + 1e-9, counterexamples=())
    if claim.relation is Relation.EQ:
        return dataclasses.replace(claim, lhs=_scaled(claim.lhs, "101/100"), counterexamples=())
    return dataclasses.replace(claim, relation=FLIP[claim.relation], counterexamples=())


@functools.cache
def _flip_check(key: str, budget: int) -> dict[str, Any] | None:
    """Returns the point where the original claim holds (for the scale check), or None (cached: the scale
    test reuses the flip test's search)."""
    claim = REGISTRY.get(key)
    mut = _flipped(claim)
    if claim.counterexamples:
        for pin in claim.counterexamples:
            out = evaluate_point(mut, pin, dps=50)
            assert out.holds is True, f"{key}: flipped claim still fails at the pin {pin} (margin {out.margin})"
        return None
    res = search_counterexample(mut, budget=budget, seed=0)
    assert res.found is not None, f"{key}: the flipped claim was not falsified ({res.points_tried} points)"
    p = res.found.exact()
    assert evaluate_point(mut, p, dps=50).holds is False
    return p


@functools.cache
def _approach(key: str, budget: int) -> tuple[bool, list[dict[str, Any]]]:
    """(falsified?, [point]): a small-budget search of the unpinned claim; its counterexample if it finds
    one, else its closest approach (the point of smallest margin: where a 1% change matters most)."""
    claim = dataclasses.replace(REGISTRY.get(key), counterexamples=())
    res = search_counterexample(claim, budget=budget, seed=0)
    if res.found is not None:
        return True, [res.found.exact()]
    assert res.closest is not None, f"{key}: the search evaluated no point"
    return False, [{k: parse_value(v, key=key, name=k) for k, v in res.closest.params.items()}]


@pytest.mark.parametrize("key", [c.key for c in _claims()])
def test_flipped_relation_is_noticed(key: str) -> None:
    if (key, "flip") in EXEMPT:
        pytest.skip(EXEMPT[key, "flip"])
    _flip_check(key, BUDGET)


@pytest.mark.parametrize("key", [c.key for c in _claims() if c.factor is None and c.relation is not Relation.EQ])
def test_side_scaled_by_one_percent_is_noticed(key: str) -> None:
    if (key, "scale") in EXEMPT:
        pytest.skip(EXEMPT[key, "scale"])
    claim = REGISTRY.get(key)
    if claim.counterexamples:
        falsified, points = True, [dict(p) for p in claim.counterexamples]
    else:
        falsified, points = _approach(key, BUDGET)
    upper = claim.relation in (Relation.LT, Relation.LE)  # lhs must stay below rhs
    # towards failing (holding claim) or towards holding (falsified claim)
    grow = upper != falsified
    mut = dataclasses.replace(claim, lhs=_scaled(claim.lhs, "101/100" if grow else "99/100"), counterexamples=())
    for p in points:
        assert p is not None
        before = evaluate_point(claim, p, dps=50)
        m0 = before.margin
        out = evaluate_point(mut, p, dps=50)
        if mpmath.isinf(before.lhs) or mpmath.isinf(before.rhs):
            continue  # a side is infinite there: scaling a side cannot move the margin (+-inf, or 0 at a tie of two)
        if falsified:
            assert out.margin > m0, f"{key}: scaling towards holding did not raise the margin at {p}"
            if abs(m0) < 0.5e-2:
                assert out.holds is True, f"{key}: margin {m0} at the pin, but the 1% mutation still fails"
        else:
            assert out.margin < m0, f"{key}: scaling towards failing did not lower the margin at {p}"
            if m0 < 0.5e-2:
                assert out.holds is False, f"{key}: margin {m0} there, but the 1% mutation still holds"


@pytest.mark.slow
@pytest.mark.parametrize("key", [c.key for c in _claims()])
def test_flipped_relation_is_noticed_thorough(key: str) -> None:
    if (key, "flip") in EXEMPT:
        pytest.skip(EXEMPT[key, "flip"])
    _flip_check(key, 1000)


@pytest.mark.parametrize("key", [c.key for c in _claims() if c.symbolic is not None])
def test_a_proof_does_not_prove_a_mutated_claim(key: str) -> None:
    """``check_claim`` on the relation-flipped claim (``==``: one side scaled by 1.01) must not say ``proved``:
    the proof is either rebuilt from the claim it is given, or contradicted by the point check that follows
    every symbolic proof (``verify.checking._spot_check``)."""
    from dptheory.core.claims import Verdict
    from dptheory.core.symbolic import SymbolicVerdict
    from dptheory.verify.checking import _run_symbolic, check_claim

    claim = REGISTRY.get(key)
    # that check_claim(claim) says ``proved`` is checks/test_claims.py::test_claim_reaches_recorded_verdict, which
    # runs the same check on every claim without pins (a proved claim's check is its proof and the point check
    # with seed 0, whatever the number of examples), and its point check costs seconds where a sum has n/b terms
    # (yeshokri22.C2b): here the recorded verdict and the proof, so the mutated claim below has a proof that holds
    assert claim.verdict is Verdict.PROVED and not claim.counterexamples, f"{key}: not a proved claim without pins"
    assert _run_symbolic(claim).verdict is SymbolicVerdict.PROVED, f"{key}: the registered claim is no longer proved"
    out = check_claim(_flipped(claim))
    assert out.verdict is not Verdict.PROVED, f"{key}: a mutated claim was reported proved ({out.method})"
