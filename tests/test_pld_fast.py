"""dptheory.privacy.pld_fast against dp-accounting, whose three steps it computes differently.

* ``epsilon_for_delta`` against the library's ``get_epsilon_for_delta`` (the loop it replaces; the independent
  computation is the library itself). Tolerance: 1e-12 relative. The two compute the same sums in the same order;
  they may differ only where numpy's exponential and the C library's differ in the last unit, which moves a sum of
  positive terms by a few units in the last place.
* ``self_compose`` against the library's ``self_compose`` (the same window, loss offset and mass at infinity,
  exactly; epsilon at delta to the library's FFT round-off) and, point by point, against the same convolution taken
  wholly in long double (forward transform, power and inverse): the independent computation of its accuracy.
* ``gaussian_privacy_buckets`` against the library's ``from_gaussian_mechanism`` with privacy buckets, and its
  inverse losses against the library's scalar ``inverse_privacy_loss``: bit for bit.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
import pytest
from dp_accounting import NeighboringRelation
from dp_accounting.pld import common
from dp_accounting.pld import privacy_loss_distribution as pld_lib
from dp_accounting.pld.pld_pmf import DensePLDPmf, SparsePLDPmf

from dptheory.privacy import pld_fast
from dptheory.privacy.pld_fast import _pmf_epsilon, epsilon_for_delta

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
    monkeypatch.setattr(pld_fast, "_CHUNK", chunk)
    rng = np.random.default_rng(20261206)
    seen: dict[str, int] = {}
    for _ in range(600):
        pmf, delta = _random_pmf(rng)
        with np.errstate(over="ignore"):  # the library's numpy scalars overflow to inf where a lower mass is tiny
            theirs = pmf.get_epsilon_for_delta(delta)
        ours = pld_fast._pmf_epsilon(pmf, delta)
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


# ------------------------------------------------------------------------------------ self-composition

#: (q, z, steps, pessimistic, grid): the Figure 2 setting of Ye & Shokri (q = 0.04, z = 10, 250 epochs; its single
#: step is sparse and made dense), the same on the claims' lower grid at 75 epochs (a 460800-point transform with 25
#: coefficients that matter: the long-double ones summed directly), a small sampling rate at z = 1 on the fine grid
#: (the claims' largest PMFs; a hundred coefficients matter: a long-double FFT), a short composition, and q = 1
#: (the Gaussian mechanism)
COMPOSITIONS = [
    (0.04, 10.0, 250 * 25, True, 1e-4),
    (0.04, 10.0, 75 * 25, False, 2.0**-17.25),
    (0.004, 1.0, 2500, True, 1e-4),
    (0.004, 1.0, 2500, False, 1e-4),
    (0.2, 2.0, 50, False, 1e-3),
    (1.0, 3.0, 10, True, 1e-3),
]


@functools.cache
def _single(q: float, z: float, pessimistic: bool, grid: float) -> pld_lib.PrivacyLossDistribution:
    """The library's one-step PLD (built once per process: the tests compose it, which leaves it unchanged)."""
    return pld_lib.from_gaussian_mechanism(
        standard_deviation=z, sensitivity=1.0, pessimistic_estimate=pessimistic, value_discretization_interval=grid,
        sampling_prob=q, use_connect_dots=pessimistic, neighboring_relation=NeighboringRelation.ADD_OR_REMOVE_ONE)


def _long_double_window(pmf: DensePLDPmf, steps: int) -> np.ndarray:
    """The library's window of the steps-fold convolution, computed wholly in long double (complex FFT)."""
    from scipy import fft

    probs = np.asarray(pmf.to_dense_pmf()._probs if isinstance(pmf, SparsePLDPmf) else pmf._probs)
    lower, upper = common.compute_self_convolve_bounds(probs, steps, 1e-15)
    size = fft.next_fast_len(max(upper - lower + 1, probs.size))
    cyclic = np.real(fft.ifft(fft.fft(probs.astype(np.longdouble), size) ** steps))
    return np.roll(cyclic, -lower)[: upper - lower + 1]


@pytest.mark.parametrize(("q", "z", "steps", "pessimistic", "grid"), COMPOSITIONS)
def test_self_compose_is_the_librarys_and_closer_to_long_double(
    q: float, z: float, steps: int, pessimistic: bool, grid: float
) -> None:
    if np.finfo(np.longdouble).eps >= np.finfo(np.float64).eps:
        pytest.skip("this platform's long double is double: no extended-precision reference")
    single = _single(q, z, pessimistic, grid)
    theirs, ours = single.self_compose(steps), pld_fast.self_compose(single, steps)
    for pmf, lib, mine in zip(pld_fast.pmfs(single), pld_fast.pmfs(theirs), pld_fast.pmfs(ours), strict=True):
        # the same window (the Chernoff bounds), loss offset and mass at infinity as the library
        assert (mine._lower_loss, len(mine._probs)) == (lib._lower_loss, len(lib._probs))
        assert mine._infinity_mass == lib._infinity_mass
        assert (mine._discretization, mine._pessimistic_estimate) == (lib._discretization, lib._pessimistic_estimate)
        reference = _long_double_window(pmf, steps)
        ours_error, their_error = _error(mine, reference), _error(lib, reference)
        # in units of the double epsilon times the largest point, measured: ours 1.5 to 2.5 (the inverse transform's
        # round-off in double), the library's 4.7 to 1284 (its forward transform's round-off raised to the power)
        assert ours_error <= 8, ours_error
        assert ours_error < their_error, (ours_error, their_error)


def _error(pmf: DensePLDPmf, reference: np.ndarray) -> float:
    """The largest difference from the reference, in units of the double epsilon times its largest point."""
    scale = np.finfo(np.float64).eps * float(np.max(reference))
    return float(np.max(np.abs(np.asarray(pmf._probs) - reference))) / scale


def _dense_probs(pmf: Any) -> np.ndarray:
    return np.asarray(pmf.to_dense_pmf()._probs if isinstance(pmf, SparsePLDPmf) else pmf._probs)


@pytest.mark.parametrize(("n", "size"), [(899, 54675), (3637, 16200), (5000, 2**14 * 3 + 6)])
def test_long_double_coefficients_are_the_long_double_transform(n: int, size: int) -> None:
    # the direct sums against scipy's long-double real FFT at the 1000 lowest, 20 random and the highest frequencies;
    # measured at most 2.0 units of long double (relative to the PMF's total 1; the recurrence between consecutive
    # frequencies without its re-anchoring drifts to 11-18 units over the 1000); the tolerance 4 units
    from scipy import fft

    rng = np.random.default_rng(7)
    probs = rng.exponential(size=n)
    probs /= probs.sum()
    indices = np.unique(np.concatenate([np.arange(1000), rng.integers(0, size // 2 + 1, 20), [size // 2]]))
    whole = fft.rfft(probs.astype(np.longdouble), size)
    direct = pld_fast._long_double_coefficients(probs, indices, size)
    assert direct.dtype == np.clongdouble
    difference = float(np.max(np.abs(direct - whole[indices])))
    assert difference <= 4 * float(np.finfo(np.longdouble).eps), difference


@pytest.mark.parametrize("way", ["direct", "fft"])
@pytest.mark.parametrize(("q", "z", "steps", "pessimistic", "grid"), [COMPOSITIONS[0], COMPOSITIONS[2]])
def test_either_way_to_the_long_double_coefficients_is_as_accurate(
    way: str, q: float, z: float, steps: int, pessimistic: bool, grid: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the choice between direct sums and a long-double FFT changes only the time: each, forced, within 8 units of the
    # long-double reference on a composition where the default takes the direct sums and on one where it takes the FFT
    if np.finfo(np.longdouble).eps >= np.finfo(np.float64).eps:
        pytest.skip("this platform's long double is double: no extended-precision reference")
    monkeypatch.setattr(pld_fast, "_DIRECT_COST", 0.0 if way == "direct" else math.inf)
    pmf = pld_fast.pmfs(_single(q, z, pessimistic, grid))[0]
    probs = _dense_probs(pmf)
    lower, window = pld_fast._self_convolve(probs, steps, 1e-15)
    reference = _long_double_window(pmf, steps)
    assert lower == common.compute_self_convolve_bounds(probs, steps, 1e-15)[0]
    assert window.shape == reference.shape
    scale = np.finfo(np.float64).eps * float(np.max(reference))
    assert float(np.max(np.abs(window - reference))) / scale <= 8


@pytest.mark.parametrize("way", ["direct", "fft"])
@pytest.mark.parametrize(("q", "z", "steps", "pessimistic", "grid"), [COMPOSITIONS[1], COMPOSITIONS[4]])
def test_powers_that_underflow_are_skipped_without_changing_a_bit(
    way: str, q: float, z: float, steps: int, pessimistic: bool, grid: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    # coefficients with k log|X_j| <= -760 are not raised to the power: each such power is 0 in double, and the window
    # is the same, bit for bit, as when every coefficient is raised
    from scipy import fft

    monkeypatch.setattr(pld_fast, "_DIRECT_COST", 0.0 if way == "direct" else math.inf)
    probs = _dense_probs(pld_fast.pmfs(_single(q, z, pessimistic, grid))[0])
    lower, upper = pld_fast._window(probs, steps, 1e-15)
    coefficients = fft.rfft(probs, fft.next_fast_len(max(upper - lower + 1, probs.size), real=True))
    with np.errstate(divide="ignore"):
        skip = steps * np.log(np.abs(coefficients)) <= pld_fast._UNDERFLOW
    assert skip.any() and not np.any(coefficients[skip] ** steps)
    skipped = pld_fast._self_convolve(probs, steps, 1e-15)
    monkeypatch.setattr(pld_fast, "_UNDERFLOW", -math.inf)
    every = pld_fast._self_convolve(probs, steps, 1e-15)
    assert skipped[0] == every[0]
    assert np.array_equal(skipped[1], every[1])


@pytest.mark.parametrize(("q", "z", "steps", "pessimistic", "grid"), COMPOSITIONS)
def test_composed_epsilon_agrees_with_the_library(
    q: float, z: float, steps: int, pessimistic: bool, grid: float
) -> None:
    # to the library's FFT round-off: measured at most 7.4e-10 relative at these deltas (the library's error against
    # the long-double reference; ours is within 2e-14 of it)
    single = _single(q, z, pessimistic, grid)
    theirs, ours = single.self_compose(steps), pld_fast.self_compose(single, steps)
    for delta in (1e-3, 1e-5):
        assert epsilon_for_delta(ours, delta) == pytest.approx(theirs.get_epsilon_for_delta(delta), rel=2e-9)


@pytest.mark.parametrize("steps", [1, 2, 7, 1000])
def test_window_is_the_librarys(steps: int) -> None:
    for q, z, _, pessimistic, grid in COMPOSITIONS:
        for pmf in pld_fast.pmfs(_single(q, z, pessimistic, grid)):
            probs = _dense_probs(pmf)
            for tau in (0.0, 1e-15, 1e-6):
                assert pld_fast._window(probs, steps, tau) == common.compute_self_convolve_bounds(probs, steps, tau)


def test_sparse_pmfs_the_library_keeps_sparse_are_its_own() -> None:
    # two compositions of a three-point PMF stay sparse in the library (3^2 points): composed by the library itself
    pmf = SparsePLDPmf({-1: 0.2, 0: 0.5, 2: 0.3}, 0.5, 0.0, True)
    ours, theirs = pld_fast._pmf_self_compose(pmf, 2, 1e-15), pmf.self_compose(2, 1e-15)
    assert isinstance(ours, SparsePLDPmf)
    assert ours._loss_probs == theirs._loss_probs


def test_sparse_pmfs_the_library_makes_dense_are_composed_by_ours(monkeypatch: pytest.MonkeyPatch) -> None:
    # 40 compositions of a three-point PMF: 3^40 points, past the library's sparse limit, so it goes dense (ours)
    calls = []
    convolve = pld_fast._self_convolve
    monkeypatch.setattr(pld_fast, "_self_convolve", lambda *a: calls.append(a[1:]) or convolve(*a))
    pmf = SparsePLDPmf({-1: 0.2, 0: 0.5, 2: 0.3}, 0.5, 0.0, True)
    ours, theirs = pld_fast._pmf_self_compose(pmf, 40, 1e-15), pmf.self_compose(40, 1e-15)
    assert calls == [(40, 1e-15)]
    assert isinstance(ours, DensePLDPmf) and isinstance(theirs, DensePLDPmf)
    assert (ours._lower_loss, ours._infinity_mass) == (theirs._lower_loss, theirs._infinity_mass)
    if np.finfo(np.longdouble).eps < np.finfo(np.float64).eps:  # measured: ours 1.0, the library's 13
        assert _error(ours, _long_double_window(pmf, 40)) <= 8


# ------------------------------------------------------------------------------------ single step: privacy buckets

#: (z, q, grid, pessimistic): the README's run example (z = 1.1, q = 0.01) and a replace-one setting at 2z, the
#: Figure 2 setting on the claims' lower grid, q = 1, a coarse grid, and one the library keeps sparse
BUCKETS = [
    (1.1, 0.01, 1e-4, False),
    (2.2, 0.01, 1e-4, False),
    (10.0, 0.04, 2.0**-15.5, False),
    (2.0, 0.2, 1e-3, True),
    (3.0, 1.0, 1e-3, False),
    (1.0, 0.5, 1e-2, False),
    (50.0, 0.001, 1e-4, False),
]


def _library_buckets(z: float, q: float, grid: float, pessimistic: bool, relation: NeighboringRelation) -> Any:
    return pld_lib.from_gaussian_mechanism(
        standard_deviation=z, sensitivity=1.0, pessimistic_estimate=pessimistic, value_discretization_interval=grid,
        sampling_prob=q, use_connect_dots=False, neighboring_relation=relation)


@pytest.mark.parametrize("relation", [NeighboringRelation.ADD_OR_REMOVE_ONE, NeighboringRelation.REPLACE_ONE])
@pytest.mark.parametrize(("z", "q", "grid", "pessimistic"), BUCKETS)
def test_privacy_buckets_are_the_librarys_bit_for_bit(
    z: float, q: float, grid: float, pessimistic: bool, relation: NeighboringRelation
) -> None:
    theirs = _library_buckets(z, q, grid, pessimistic, relation)
    ours = pld_fast.gaussian_privacy_buckets(z, q, grid, pessimistic,
                                             replace_one=relation is NeighboringRelation.REPLACE_ONE)
    assert ours._symmetric == theirs._symmetric
    for mine, lib in zip(pld_fast.pmfs(ours), pld_fast.pmfs(theirs), strict=True):
        assert type(mine) is type(lib)
        assert (mine._infinity_mass, mine._discretization, mine._pessimistic_estimate) == (
            lib._infinity_mass, lib._discretization, lib._pessimistic_estimate)
        if isinstance(lib, SparsePLDPmf):
            assert list(mine._loss_probs.items()) == list(lib._loss_probs.items())  # the same sums, in the same order
        else:
            assert mine._lower_loss == lib._lower_loss
            assert np.array_equal(mine._probs, np.asarray(lib._probs))


@pytest.mark.parametrize("adjacency", ["ADD", "REMOVE", "REPLACE"])
@pytest.mark.parametrize("q", [0.01, 0.3, 1.0])
def test_inverse_losses_are_the_librarys(adjacency: str, q: float) -> None:
    """Every grid loss the construction asks for, and the edge of the subsampled loss (where the library's
    ``math.isclose`` returns the inverse of an infinite loss), against the library's scalar inverse, exactly."""
    from dp_accounting.pld.privacy_loss_mechanism import AdjacencyType, GaussianPrivacyLoss

    loss = GaussianPrivacyLoss(1.3, sensitivity=1.0, pessimistic_estimate=False, log_mass_truncation_bound=-50,
                               sampling_prob=q, adjacency_type=getattr(AdjacencyType, adjacency))
    tail = loss.privacy_loss_tail()
    hi, lo = loss.privacy_loss(tail.lower_x_truncation), loss.privacy_loss(tail.upper_x_truncation)
    values = np.concatenate((np.linspace(lo, hi, 2001), [0.0]))
    if q < 1 and adjacency != "REPLACE":
        edge = -math.log(1 - q) if adjacency == "ADD" else math.log(1 - q)
        inside = 1.0 if adjacency == "REMOVE" else -1.0
        values = np.concatenate((values, [edge, edge * (1 + 5e-10), edge + inside * abs(edge) * 2e-9]))
    theirs = np.array([loss.inverse_privacy_loss(float(v)) for v in values])
    ours = pld_fast._inverse_losses(loss, values)
    assert np.array_equal(ours, theirs), values[ours != theirs][:5]
