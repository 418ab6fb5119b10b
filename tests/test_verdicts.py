"""The verdict record of a check (dptheory.verify.verdicts.ClaimResult): agreement with the registry's
record, the --fresh rule (a search that misses a pinned finding is a miss, not a change), JSON fields."""

from __future__ import annotations

from dptheory.core.claims import Verdict
from dptheory.verify.verdicts import ClaimResult


def _r(verdict: Verdict, expected: Verdict) -> ClaimResult:
    return ClaimResult(claim="toy.C", verdict=verdict, method="m", region="x in [0, 1]", expected=expected)


def test_agreement_and_fresh_misses():
    assert _r(Verdict.CERTIFIED, Verdict.CERTIFIED).disagreement() is None
    assert _r(Verdict.NOT_FALSIFIED, Verdict.CERTIFIED).disagreement() is not None
    miss = _r(Verdict.NOT_FALSIFIED, Verdict.FALSIFIED)
    assert miss.disagreement() is not None  # without --fresh the pin must be reached
    assert miss.disagreement(fresh=True) is None and miss.missed(fresh=True)
    # a new finding is a change even with --fresh
    assert _r(Verdict.FALSIFIED, Verdict.NOT_FALSIFIED).disagreement(fresh=True) is not None


def test_json_fields_and_sentences():
    r = _r(Verdict.NOT_FALSIFIED, Verdict.NOT_FALSIFIED)
    r.examples_tried = 7
    r.closest_margin = {"margin": 0.5, "params": {"x": "1/2"}, "flip": "far"}
    d = r.to_dict()
    assert {"verdict", "method", "region", "examples_tried", "closest_margin", "counterexample"} <= set(d)
    assert d["verdict"] == "not falsified"
    text = " ".join(r.sentences())
    assert "This is not a proof" in text and "x = 1/2" in text
    assert {v.value for v in Verdict} == {"proved", "certified", "exhaustive", "not falsified", "falsified"}


def test_the_closest_approach_is_worded_by_one_function_for_every_verdict():
    """An exhaustive verdict's closest approach says how far the relation is from flipping with the same words as a
    search's (``dptheory.verify.evaluator.flip_words``, one source): before, the finite-set check had its own wording
    ('the left side would have to grow by 8.14% of the larger side ...'). A factor claim and an order claim."""
    from dptheory.core.registry import REGISTRY
    from dptheory.verify.checking import check_claim
    from dptheory.verify.evaluator import flip_words
    from dptheory.verify.points import evaluate_point

    for key in ("yeshokri22.C3a", "yeshokri22.C3c_holds"):
        claim = next(c for c in REGISTRY.claims() if c.key == key)
        res = check_claim(claim)
        assert res.verdict is Verdict.EXHAUSTIVE
        cm = res.closest_margin
        point = dict(cm["params"])
        out = evaluate_point(claim, point, dps=50)
        assert cm["flip"] == flip_words(claim, cm["margin"], out.lhs, out.rhs)
        assert "grow by a factor" in cm["flip"] or "move by a factor" in cm["flip"]
