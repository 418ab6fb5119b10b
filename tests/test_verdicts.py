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
