"""dptheory.privacy.pld_scan.epsilon_for_delta against dp-accounting's own ``get_epsilon_for_delta`` (the loop it
replaces; the independent computation here is the library itself).

Tolerance: 1e-12 relative. The two compute the same sums in the same order; they may differ only where numpy's
exponential and the C library's differ in the last unit, which moves a sum of positive terms by a few units in
the last place.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from dp_accounting import NeighboringRelation
from dp_accounting.pld import privacy_loss_distribution as pld_lib
from dp_accounting.pld.pld_pmf import DensePLDPmf

from dptheory.privacy import pld_scan
from dptheory.privacy.pld_scan import _pmf_epsilon, epsilon_for_delta

REL = 1e-12


def _same(ours: float, theirs: float) -> bool:
    if math.isinf(theirs) or theirs == 0.0:
        return ours == theirs
    return abs(ours - theirs) <= REL * abs(theirs)


@pytest.mark.parametrize(
    ("q", "z", "steps", "pessimistic", "relation"),
    [
        (0.04, 10.0, 25 * 75, True, NeighboringRelation.ADD_OR_REMOVE_ONE),
        (0.04, 10.0, 25 * 200, False, NeighboringRelation.ADD_OR_REMOVE_ONE),
        (0.01, 1.0, 1000, True, NeighboringRelation.ADD_OR_REMOVE_ONE),
        (0.2, 2.0, 50, False, NeighboringRelation.REPLACE_ONE),
        (1.0, 3.0, 10, True, NeighboringRelation.ADD_OR_REMOVE_ONE),
    ],
)
def test_composed_plds_agree_with_dp_accounting(
    q: float, z: float, steps: int, pessimistic: bool, relation: NeighboringRelation
) -> None:
    single = pld_lib.from_gaussian_mechanism(
        standard_deviation=z,
        sensitivity=1.0,
        pessimistic_estimate=pessimistic,
        value_discretization_interval=1e-3,
        sampling_prob=q,
        use_connect_dots=pessimistic,
        neighboring_relation=relation,
    )
    composed = single.self_compose(steps)
    for delta in (1e-3, 1e-5, 1e-9, 1e-12):
        theirs = composed.get_epsilon_for_delta(delta)
        ours = epsilon_for_delta(composed, delta)
        assert _same(ours, theirs), (delta, ours, theirs)


def _exit(pmf: DensePLDPmf, delta: float) -> str:
    """Which exit of dp-accounting's loop a PMF takes (recomputed with the loop's own arithmetic)."""
    if pmf._infinity_mass > delta:
        return "infinite"
    upper_loss = (pmf._lower_loss + len(pmf._probs) - 1) * pmf._discretization
    mass_upper, mass_lower, loss = pmf._infinity_mass, 0.0, upper_loss
    for prob in (float(p) for p in np.flip(pmf._probs)):
        if mass_upper > delta and mass_lower > 0 and math.log((mass_upper - delta) / mass_lower) >= loss:
            return "break"
        mass_upper += prob
        mass_lower += math.exp(-loss) * prob
        if mass_upper >= delta and mass_lower == 0:
            return "underflow"
        loss -= pmf._discretization
    return "zero" if mass_upper <= mass_lower + delta else "total"


def _random_pmf(rng: np.random.Generator) -> tuple[DensePLDPmf, float]:
    size = int(rng.integers(1, 400))
    h = float(rng.choice([1e-3, 1e-2, 0.5, 3.0]))
    lower = int(rng.integers(max(-300, math.ceil(-700 / h)), 300))  # losses >= -700: exp(-loss) stays finite
    probs = rng.dirichlet(np.full(size, float(rng.choice([0.05, 1.0]))))
    infinity = float(rng.choice([0.0, 10.0 ** rng.uniform(-12, -1)]))
    probs = probs * (1.0 - infinity)
    delta = float(10.0 ** rng.uniform(-12, -0.1))
    return DensePLDPmf(h, lower, probs, infinity, True), delta


@pytest.mark.parametrize("chunk", [3, 4096])
def test_every_exit_of_the_loop_agrees(chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # chunk 3: the scan carries losses and masses across many chunk boundaries; 4096: one chunk per PMF
    monkeypatch.setattr(pld_scan, "_CHUNK", chunk)
    rng = np.random.default_rng(20261206)
    seen: dict[str, int] = {}
    for _ in range(600):
        pmf, delta = _random_pmf(rng)
        with np.errstate(over="ignore"):  # the library's numpy scalars overflow to inf where a lower mass is tiny
            theirs = pmf.get_epsilon_for_delta(delta)
        ours = pld_scan._pmf_epsilon(pmf, delta)
        assert _same(ours, theirs), (pmf._lower_loss, pmf._discretization, delta, ours, theirs)
        way = _exit(pmf, delta)
        seen[way] = seen.get(way, 0) + 1
    # the random PMFs reach every exit of the loop (so each branch of the scan is compared above)
    assert set(seen) == {"infinite", "break", "underflow", "zero", "total"}, seen


def test_losses_far_out_underflow_exit() -> None:
    # losses 800, 801, 802 with masses 0.2, 0.3, 0.5: exp(-loss) is 0, so the loop returns the first loss, from the
    # top, at which the mass reaches delta: 802 (0.5) for delta = 0.4, 801 (0.8) for delta = 0.6
    pmf = DensePLDPmf(1.0, 800, np.array([0.2, 0.3, 0.5]), 0.0, True)
    assert _pmf_epsilon(pmf, 0.4) == pmf.get_epsilon_for_delta(0.4) == 802.0
    assert _pmf_epsilon(pmf, 0.6) == pmf.get_epsilon_for_delta(0.6) == 801.0
