"""The papers' claims, decided and kept decided.

* A claim with pinned counterexamples is a *finding*: each pinned point must lie in the claim's
  region and must still falsify the claim at 50 digits (so a change in a kernel that "fixes" a
  finding is caught, and so is a pin that drifted out of the region).
* Every claim must reach the verdict on record (``Claim.verdict``: proved, certified on its box, exhaustive on
  its finite region, not falsified by a search of the profile's size, or falsified by its pins): the pytest
  plugin's verdict item, run for every shipped claim in checks/test_plugin_items.py (one source of truth).
* The numbers quoted in the findings (crossover epochs) are recomputed here.
"""

from __future__ import annotations

import mpmath
import pytest

import dptheory
from dptheory.core import REGISTRY
from dptheory.evaluate.crossover import crossover
from dptheory.papers.yeshokri22.theorems import FIGURE_SETTING
from dptheory.verify.checking import Verdict, check_claim, evaluate_point
from dptheory.verify.points import in_region

CLAIMS = sorted(REGISTRY.claims(), key=lambda c: c.key)
PINNED = [(c.key, i) for c in CLAIMS for i in range(len(c.counterexamples))]


@pytest.mark.parametrize("key, i", PINNED)
def test_pinned_counterexample_still_falsifies(key, i):
    claim = dptheory.get(key)
    point = claim.counterexamples[i]
    assert in_region(claim, point), f"{key}: pinned point {point} is outside the claim's region"
    out = evaluate_point(claim, point, dps=50)
    assert out.holds is False, f"{key}: {point} no longer falsifies the claim ({out.lhs} vs {out.rhs})"


def test_every_claim_on_record_as_falsified_has_pins():
    assert all(c.counterexamples for c in CLAIMS if c.verdict is Verdict.FALSIFIED)


def test_every_falsified_claim_has_a_finding():
    for c in CLAIMS:
        if c.counterexamples:
            assert len(c.finding) > 40, c.key


def test_search_rediscovers_a_finding_without_its_pin():
    """The search itself (not only the pin) finds C9b's counterexample and shrinks it."""
    res = check_claim(dptheory.get("yeshokri22.C9b"), examples=200, seed=1, use_pinned=False)
    assert res.verdict is Verdict.FALSIFIED
    assert res.counterexample is not None and res.counterexample["dps"] >= 50


FIG = dict(FIGURE_SETTING)


@pytest.mark.parametrize("alpha", [10, 15])
@pytest.mark.parametrize("batch, j0", [("balle_first", 0), ("balle_last", 24)])
def test_finding_c3_crossover_is_epoch_7(alpha, batch, j0):
    res = crossover(
        dptheory.get("yeshokri22.thm3_3"),
        dptheory.get(f"yeshokri22.{batch}"),
        "K",
        1,
        200,
        {**FIG, "alpha": alpha, "j0": j0},
    )
    assert res.value == 7


@pytest.mark.parametrize("alpha, epoch", [(10, 34), (15, 48), (20, 89)])
def test_finding_c7_crossovers(alpha, epoch):
    res = crossover(
        dptheory.get("yeshokri22.thm4_3"), dptheory.get("yeshokri22.composition"), "K", 1, 500, {**FIG, "alpha": alpha}
    )
    assert res.value == epoch


def test_finding_c2c_threshold_at_figure_setting():
    lim = dptheory.get("yeshokri22.thm4_3").limits["K"]
    t = dptheory.get("yeshokri22.thm4_3")
    for alpha, finite in [(25, True), (26, False)]:
        exact = t.parse({**FIG, "alpha": alpha, "K": 1})
        with mpmath.workdps(30):
            assert bool(mpmath.isfinite(lim.mp(t.kernel_args(exact)))) is finite
