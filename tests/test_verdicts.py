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


def _toy_factor_claim():
    """(2x + 1)/(x + 1) lies in [1, 3/2] on x in [0, 1], so 'lhs within a factor 3 of rhs' holds with a smallest
    log-margin of ln 3 - ln(3/2) = ln 2 (at x = 1), decided by hand."""
    import sympy as sp

    from dptheory.core.citation import Paper
    from dptheory.core.claims import Box, Claim, Region, Relation, formula

    x = sp.Symbol("x", positive=True)
    paper = Paper(key="toy", authors="dptheory", year=2026, title="toy claims for the verdict sentences")
    return Claim(key="toy.factor", title="factor", citation=paper.item("tests"), statement="factor", reading="factor",
                 lhs=formula("lhs", 2 * x + 1), rhs=formula("rhs", x + 1), relation=Relation.LE, factor=3.0,
                 region=Region(certify=Box(intervals={"x": (0, 1)}, max_boxes=2000), description="toy box"),
                 verdict=Verdict.CERTIFIED)


def test_a_factor_claims_log_margin_is_not_called_a_relative_margin():
    """The sentences name the margin by its kind: a factor claim's margin is log f - |log(lhs/rhs)|, not a relative
    margin (before, every closest approach was printed as 'relative margin X', so a factor claim's log-margin 2.14
    read as 214%). Both paths: a search's closest approach and a certified verdict's box with the smallest bound,
    whose record now carries the flip words too."""
    import math

    from dptheory.verify.checking import check_claim
    from dptheory.verify.evaluator import flip_words
    from dptheory.verify.points import evaluate_point

    claim = _toy_factor_claim()
    res = check_claim(claim)
    assert res.verdict is Verdict.CERTIFIED
    cm = res.closest_margin
    out = evaluate_point(claim, dict(cm["params"]), dps=30)
    assert cm["flip"] == flip_words(claim, cm["margin"], out.lhs, out.rhs)
    assert 0 < cm["margin"] <= math.log(3) + 1e-12  # a log-margin: ln 3 - |ln(lhs/rhs)|, at most ln 3
    text = " ".join(res.sentences())
    assert "Smallest margin" in text and cm["flip"] in text and "log-margin" in text
    assert "relative margin" not in text

    searched = ClaimResult(claim="toy.factor", verdict=Verdict.NOT_FALSIFIED, method="m", region="x in [0, 1]",
                           closest_margin={**cm, "lower_bound": None})
    text = " ".join(searched.sentences())
    assert f"Closest approach at x = {cm['params']['x']}: {cm['flip']}." in text
    assert "relative margin" not in text


def test_a_closest_approach_without_flip_words_prints_the_bare_margin():
    r = _r(Verdict.NOT_FALSIFIED, Verdict.NOT_FALSIFIED)
    r.closest_margin = {"margin": 0.25, "params": {"x": "1/2"}}
    assert "Closest approach at x = 1/2: the margin is 0.25." in r.sentences()
