"""Three steps of dp-accounting's privacy loss distributions as array operations: the read-off of epsilon at delta,
the self-composition, and the optimistic (privacy-buckets) single-step PLD of the Gaussian mechanism.

**Epsilon at delta** (:func:`epsilon_for_delta`). dp-accounting 0.6.0's ``PrivacyLossDistribution.
get_epsilon_for_delta`` walks the losses of each PMF from the largest down in a Python loop
(``pld_pmf._get_epsilon_for_delta``): about 20 ms per call on the composed PLDs of the Ye & Shokri Figure 2 setting,
half the cost of a PLD bracket, and the claims over every epoch call it hundreds of times. Ours computes the same
number with the same floating-point operations in the same order (sequential cumulative sums, ``numpy.cumsum``), so
it returns dp-accounting's value (equal to the last bit but for the exponential, where numpy's and the C library's
may differ in the last unit; ``tests/test_pld_fast.py`` compares the two on composed PLDs and on PMFs built to reach
each of the loop's exits).

The rule (dp-accounting's, Sommer, Meiser & Mohammadi 2019; Doroshenko et al. 2022, arXiv 2207.04380, Obs. 1):
with losses l_0 > l_1 > ... and their probabilities p_i, before loss i the upper mass is
U_i = infinity mass + sum_{j<i} p_j and the lower mass W_i = sum_{j<i} exp(-l_j) p_j; epsilon is the first
log((U_i - delta) / W_i) that is at least l_i (with U_i > delta, W_i > 0; 0 when U_i <= W_i + delta), else
``max(0, l_i)`` at the first i with U_{i+1} >= delta and W_{i+1} == 0 (exp(-l_i) underflowed), else the same
log of the totals (0 when U <= W + delta).

**Self-composition** (:func:`self_compose`). dp-accounting's ``DensePLDPmf.self_compose`` (``common.
self_convolve``) keeps the window [L, U] of the ``k``-fold convolution outside which a Chernoff bound puts at most
the truncated mass ``tau``: with the PMF p_0..p_{n-1} and its moment generating function M(t) = sum_i p_i e^{t i},
U = min ceil((k log M(t) + log(2 / tau)) / t) over t = 1/n, ..., 20/n and L = max floor(...) over t = -20/n, ...,
-1/n (its equation (5), Doroshenko et al. 2022). It then takes the window of the cyclic convolution from one
complex FFT raised to the ``k``-th power, and puts ``tau + 1 - (1 - infinity mass)^k`` at infinity. Ours keeps the
rule, the window and the mass at infinity and changes two computations, 2.7-4.7x faster on the claims' PLDs and
with about a thousandth of the library's round-off (``python bench/bench_pld.py compose``):

* the library calls ``scipy.special.logsumexp`` once per order (40 passes of exponentials over the PMF); ours
  multiplies the PMF 20 times by e^{i/n} and 20 times by e^{-i/n}, summing after each (no exponent beyond 20
  in absolute value, so no scaling is needed). The bounds are ceilings and floors of the same numbers; where a
  value fell within rounding of an integer the window could differ by one point, whose mass is below ``tau``
  either way (on every tested PMF the windows are the same);
* the PMF is real, so ours uses the real FFT (``scipy.fft.rfft``/``irfft``) on a length of at least the window, as
  the library's complex FFT does, with the coefficients that matter and their power in long double (summed directly
  when they are few, 25 of 230k-630k at the Figure 2 setting) and the powers that underflow in double not computed
  (:func:`_self_convolve`). Its error is the inverse transform's round-off, 1.5-2.8 units of the double epsilon times
  the largest point, against 500-1300 for the library's.

``tests/test_pld_fast.py`` compares both with the library on composed PLDs (the window, the mass at infinity and
epsilon at delta, which is what the claims read) and, point by point, with the convolution taken wholly in long
double.

**Privacy buckets** (:func:`gaussian_privacy_buckets`). dp-accounting's ``from_gaussian_mechanism`` with
``use_connect_dots=False`` (the optimistic estimate) walks the grid of losses from the top, calling
``inverse_privacy_loss`` once per grid loss in Python: about 1.7 million calls for the lower end of the README's
``compare --run`` example (9 s of its 15). Ours computes the same points with the same operations on arrays
(``numpy`` where the library calls ``numpy``, the C library's ``math`` functions element by element where it calls
``math``), then the library's own CDF differences and sums: bit for bit the same PLD in every tested setting
(``tests/test_pld_fast.py``), 11-46x faster (``python bench/bench_pld.py buckets``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

_CHUNK = 4096
"""Losses scanned at a time, from the largest down (doubling): the loop stops at epsilon, usually near the top."""


def _pmf_epsilon(pmf: Any, delta: float) -> float:
    """dp-accounting's ``DensePLDPmf.get_epsilon_for_delta``, vectorised (other PMF kinds: the library's own)."""
    from dp_accounting.pld.pld_pmf import DensePLDPmf

    if not isinstance(pmf, DensePLDPmf):
        return float(pmf.get_epsilon_for_delta(delta))
    infinity_mass = float(pmf._infinity_mass)
    if infinity_mass > delta:
        return math.inf
    probs = np.flip(np.asarray(pmf._probs, dtype=np.float64))
    n, h = probs.size, float(pmf._discretization)
    # the library's losses come from itertools.count(top, -h): repeated addition, which cumsum reproduces; the
    # masses too are sums in the loop's order, carried from one chunk to the next
    loss, upper, lower = (pmf._lower_loss + n - 1) * h, infinity_mass, 0.0
    start, chunk = 0, _CHUNK
    while start < n:
        stop_at = min(n, start + chunk)
        p = probs[start:stop_at]
        losses = np.cumsum(np.concatenate(([loss], np.full(p.size - 1, -h))))
        ups = np.cumsum(np.concatenate(([upper], p)))  # U_i .. U_{i+len}
        with np.errstate(over="ignore"):
            lows = np.cumsum(np.concatenate(([lower], np.exp(-losses) * p)))  # W_i .. W_{i+len}
        if not math.isfinite(lows[-1]):  # a loss below about -709: the library's loop raises OverflowError there
            return float(pmf.get_epsilon_for_delta(delta))
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            ok = (ups[:-1] > delta) & (lows[:-1] > 0)
            logs = np.where(ok, np.log((ups[:-1] - delta) / np.where(ok, lows[:-1], 1.0)), -np.inf)
        stop = ok & (logs >= losses)  # the loop breaks before adding this loss
        zero_lower = (ups[1:] >= delta) & (lows[1:] == 0)  # after adding it: exp(-loss) underflowed to 0
        first_stop = int(np.argmax(stop)) if stop.any() else p.size
        first_zero = int(np.argmax(zero_lower)) if zero_lower.any() else p.size
        if first_zero < first_stop:
            return max(0.0, float(losses[first_zero]))
        if first_stop < p.size:  # broken off: the masses reached there decide
            return _final(ups[first_stop], lows[first_stop], delta)
        loss, upper, lower = losses[-1] - h, ups[-1], lows[-1]
        start, chunk = stop_at, 2 * chunk
    return _final(upper, lower, delta)


def _final(upper: Any, lower: Any, delta: float) -> float:
    """The loop's last lines: 0 when the upper mass is within delta of the lower one, else the log ratio."""
    if upper <= lower + delta:
        return 0.0
    with np.errstate(over="ignore"):  # a lower mass below 1e-308: inf, as the library's numpy scalars give
        return math.log((upper - delta) / lower)


def pmfs(pld: Any) -> list[Any]:
    """The PMFs of a dp-accounting ``PrivacyLossDistribution``: REMOVE's, then ADD's unless it is symmetric."""
    return [pld._pmf_remove] + ([] if pld._symmetric else [pld._pmf_add])


def epsilon_for_delta(pld: Any, delta: float) -> float:
    """``pld.get_epsilon_for_delta(delta)`` of a dp-accounting ``PrivacyLossDistribution`` (the largest of its
    PMFs' epsilons), computed by array scans instead of the library's Python loop."""
    return max(_pmf_epsilon(pmf, delta) for pmf in pmfs(pld))


_CHERNOFF_ORDERS = 20
"""dp-accounting's orders of the truncation bound: t = k / n for k = +-1, ..., +-20
(``compute_self_convolve_bounds``)."""


def _window(probs: np.ndarray, num_times: int, tail_mass_truncation: float) -> tuple[int, int]:
    """dp-accounting's ``common.compute_self_convolve_bounds`` at its default orders: the indices [lower, upper] of the
    ``num_times``-fold convolution outside which at most ``tail_mass_truncation`` lies (Chernoff)."""
    n = probs.size
    lower, upper = 0, (n - 1) * num_times
    if tail_mass_truncation == 0:
        return lower, upper
    log_two_over_tau = math.log(2 / tail_mass_truncation)
    steps = np.arange(n, dtype=np.float64) / n
    for sign in (1, -1):
        factor = np.exp(sign * steps)  # e^{+-i/n}; its k-th power is e^{t i} at t = +-k/n, within [e^-20, e^20]
        terms = probs.copy()
        for k in range(1, _CHERNOFF_ORDERS + 1):
            terms *= factor
            order = sign * k / n
            with np.errstate(divide="ignore"):
                log_mgf = math.log(s) if (s := float(terms.sum())) > 0 else -math.inf
            bound = (num_times * log_mgf + log_two_over_tau) / order
            if not math.isfinite(bound):
                continue
            if sign > 0:
                upper = min(upper, math.ceil(bound))
            else:
                lower = max(lower, math.floor(bound))
    return lower, upper


_SIGNIFICANT = -40.0
"""Fourier coefficients X_j with k log|X_j| above this are raised to the k-th power in long double (see
:func:`_self_convolve`)."""
_UNDERFLOW = -760.0
"""Fourier coefficients X_j with k log|X_j| at or below this have X_j^k = 0 in double (its smallest subnormal is
e^-744.4), so their power is not computed (:func:`_self_convolve`)."""
_TWO_PI = np.longdouble("6.2831853071795864769252867665590057683943")
"""2 pi to the precision of long double (``np.longdouble(2 * np.pi)`` would be the double's 2 pi)."""
_DIRECT_COST = 7.0
"""Long-double work of one term of a direct coefficient relative to one ``size log2 size`` unit of a long-double
real FFT (measured on x86-64: about 25 ns against 6 ns; 7 leaves the FFT where the two are close); it only chooses
between two computations of the same numbers (:func:`_long_double_coefficients`)."""


_ANCHOR = 8
"""Consecutive coefficients :func:`_long_double_coefficients` takes by the recurrence from one row of exact phases."""


def _long_double_coefficients(probs: np.ndarray, indices: np.ndarray, size: int) -> np.ndarray:
    """The real FFT's coefficients X_j = sum_t p_t e^(-2 pi i j t / size) at ``indices``, in long double, each summed
    directly (pairwise, as numpy sums): ``len(indices) * probs.size`` terms instead of a long-double transform of
    ``size`` points.

    A row of terms with exact phases: (j t) mod size in integers, split as hi * B + lo with B a power of 2 about
    sqrt(size), and e^(-2 pi i m / size) the product of two tabulated exponentials (cosines and sines of long-double
    angles), within a few units of long double whatever j. The next index's row is this row times
    e^(-2 pi i t / size), one product per term; after ``_ANCHOR`` such rows (or at an index that does not follow)
    the row is taken at exact phases again, so the recurrence's rounding never builds up over more than 8 products.
    """
    t = np.arange(probs.size, dtype=np.int64)
    shift = max(1, (int(size).bit_length() + 1) // 2)
    block = 1 << shift
    low = np.arange(block, dtype=np.longdouble) * (-_TWO_PI / size)
    high = np.arange(-(-size // block), dtype=np.longdouble) * (-_TWO_PI * block / size)
    low_table = np.cos(low) + 1j * np.sin(low)
    high_table = np.cos(high) + 1j * np.sin(high)

    def exact(j: int) -> np.ndarray:  # e^(-2 pi i j t / size) for every t, in long double
        phase = (j * t) % size
        return high_table[phase >> shift] * low_table[phase & (block - 1)]

    step = exact(1)
    out = np.empty(indices.size, dtype=np.clongdouble)
    terms, previous, taken = None, -2, 0
    for i, j in enumerate(indices.tolist()):
        if terms is not None and j == previous + 1 and taken < _ANCHOR:
            terms *= step
            taken += 1
        else:
            terms = probs * exact(j)  # the double PMF is promoted to long double
            taken = 1
        previous = j
        out[i] = np.sum(terms)
    return out


def _raised(coefficients: np.ndarray, num_times: int) -> tuple[np.ndarray, np.ndarray]:
    """The indices of the coefficients whose ``num_times``-th power is computed (k log|X_j| above ``_UNDERFLOW``)
    and, among them, of those raised in long double (above ``_SIGNIFICANT``)."""
    with np.errstate(divide="ignore"):
        log_power = num_times * np.log(np.abs(coefficients))
    alive = np.flatnonzero(log_power > _UNDERFLOW)
    return alive, alive[log_power[alive] > _SIGNIFICANT]


def _self_convolve(probs: np.ndarray, num_times: int, tail_mass_truncation: float) -> tuple[int, np.ndarray]:
    """dp-accounting's ``common.self_convolve``, more accurately and faster: (the window's first index, the window
    of the ``num_times``-fold convolution of ``probs`` with itself).

    The PMF is real, so its real FFT, on a length of at least the window as the library's (the cyclic wrap-around
    folds at most the truncated mass into the window, as there). The library's round-off comes from the forward
    transform: a relative error e of X_j becomes k e in X_j^k. So the coefficients that can still matter, k log|X_j|
    above -40 (25 to about a hundred on the claims' PLDs, the lowest frequencies), are taken in long double
    (extended precision where the platform has it) and raised to the power there; the others contribute below
    e^-40 k 1e-16 to any point and are raised in double, as is the inverse transform. Coefficients whose power
    underflows to 0 in double (k log|X_j| <= -760: all but about a hundred of up to 630k on the claims' PLDs) are
    not raised at all.

    The long-double coefficients come from a long-double real FFT of the whole length, or, when there are few of
    them against that length (``len * probs.size * 7 < size log2 size``: the claims' long compositions of a
    short PMF), from direct sums (:func:`_long_double_coefficients`); the two agree to a few units of long double.
    Which coefficients matter is read from a double FFT first (its error, about 1e-16, moves only coefficients
    within rounding of the thresholds, whose powers are below e^-40 either way).
    """
    from scipy import fft

    lower, upper = _window(probs, num_times, tail_mass_truncation)
    length = upper - lower + 1
    size = fft.next_fast_len(max(length, probs.size), real=True)
    coefficients = fft.rfft(probs, size)
    alive, significant = _raised(coefficients, num_times)
    if significant.size * probs.size * _DIRECT_COST < size * math.log2(size):
        extended = _long_double_coefficients(probs, significant, size)
    else:
        whole = fft.rfft(probs.astype(np.longdouble), size)
        coefficients = whole.astype(np.complex128)
        alive, significant = _raised(coefficients, num_times)
        extended = whole[significant]
    powered = np.zeros_like(coefficients)
    powered[alive] = coefficients[alive] ** num_times
    powered[significant] = (extended**num_times).astype(np.complex128)
    cyclic = fft.irfft(powered, size)
    return lower, np.roll(cyclic, -lower)[:length]


def _pmf_self_compose(pmf: Any, num_times: int, tail_mass_truncation: float) -> Any:
    """dp-accounting's ``PLDPmf.self_compose``: a dense PMF (or a sparse one the library would make dense) by
    :func:`_self_convolve`; other PMFs by the library's own method."""
    from dp_accounting.pld import pld_pmf

    if isinstance(pmf, pld_pmf.SparsePLDPmf) and num_times > 1 and pmf.size ** num_times > pld_pmf._MAX_PMF_SPARSE_SIZE:
        pmf = pmf.to_dense_pmf()
    if not isinstance(pmf, pld_pmf.DensePLDPmf):
        return pmf.self_compose(num_times, tail_mass_truncation)
    if num_times <= 0:
        raise ValueError(f"num_times should be >= 1, num_times={num_times}")
    lower, probs = _self_convolve(np.asarray(pmf._probs, dtype=np.float64), num_times, tail_mass_truncation)
    # at infinity: tau + 1 - (1 - infinity mass)^k, in the library's stable form
    infinity_mass = tail_mass_truncation - math.expm1(num_times * math.log1p(-pmf._infinity_mass))
    return pld_pmf.DensePLDPmf(pmf._discretization, pmf._lower_loss * num_times + lower, probs, infinity_mass,
                               pmf._pessimistic_estimate)


def self_compose(pld: Any, num_times: int, tail_mass_truncation: float = 1e-15) -> Any:
    """``pld.self_compose(num_times)`` of a dp-accounting ``PrivacyLossDistribution`` (each of its PMFs composed
    ``num_times`` times with itself, the library's default truncated mass 1e-15), with dense PMFs composed as
    described in the module docstring."""
    from dp_accounting.pld.privacy_loss_distribution import PrivacyLossDistribution

    return PrivacyLossDistribution(*(_pmf_self_compose(pmf, num_times, tail_mass_truncation) for pmf in pmfs(pld)))


# ----------------------------------------------------------------------------- single step: privacy buckets
def _inverse_losses(loss: Any, values: np.ndarray) -> np.ndarray:
    """``loss.inverse_privacy_loss(v)`` for every ``v`` of ``values`` (a dp-accounting ``GaussianPrivacyLoss``; REPLACE
    by :func:`_inverse_losses_replace`), with the library's operations on arrays:
    ``common.log_a_times_exp_b_plus_c(1/q, +-v, 1 - 1/q)`` (for q < 1: b + log a, then ``_log_sub`` with log(-c);
    log(a + c) where b = 0), the edge at +-log(1 - q) (``math.isclose``: the inverse of an infinite loss), and the
    Gaussian's ``-s/2 - v sigma^2/s`` (``+ s`` for ADD).
    Values past that edge raise in the library; the caller never asks for them (they lie beyond the truncation)."""
    from dp_accounting.pld.privacy_loss_mechanism import AdjacencyType

    if loss.adjacency_type == AdjacencyType.REPLACE:
        return _inverse_losses_replace(loss, values)
    s, sigma2 = float(loss.sensitivity), float(loss._standard_deviation) ** 2
    q = float(loss.sampling_prob)
    add = loss.adjacency_type == AdjacencyType.ADD
    if q == 1.0:
        without = values
    else:
        sign = -1.0 if add else 1.0
        edge = sign * math.log(1 - q)  # REMOVE: log(1 - q); ADD: -log(1 - q)
        b = sign * values
        a, c = 1 / q, 1 - 1 / q
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            d = b + np.log(a)
            sub = d + np.log1p(-np.exp(np.log(-c) - d))
            logs = np.where(b == 0, np.log(a + c), sub)
        without = sign * logs
        # math.isclose (relative 1e-9) decided exactly on the few values within twice its tolerance
        near = np.flatnonzero(np.abs(values - edge) <= 2e-9 * np.maximum(np.abs(values), abs(edge)))
        near = near[[math.isclose(float(values[i]), edge) for i in near]] if near.size else near
        if near.size:  # the inverse of the largest (ADD) or smallest (REMOVE) loss: an infinite x
            without = without.copy()
            without[near] = math.inf if add else -math.inf
    x = -0.5 * s - without * sigma2 / s  # the Gaussian's inverse for REMOVE without subsampling
    return s + x if add else x


def _inverse_losses_replace(loss: Any, values: np.ndarray) -> np.ndarray:
    """``GaussianPrivacyLoss._inverse_privacy_loss_replace`` on an array: x = sigma^2/s (asinh(-sign(v) sinh(|v|/2)
    alpha) - v/2), alpha = e^{s^2/(2 sigma^2)} (1-q)/q, with the library's ``log_sinh`` (``math``, element by element:
    its exponential and log1p are the C library's) and ``asinh_exp`` (``numpy.logaddexp``); 0 at v = 0."""
    s, sd = float(loss.sensitivity), float(loss._standard_deviation)
    q = float(loss.sampling_prob)
    if q == 1.0:
        return np.where(values == 0, 0.0, -values * sd**2 / s / 2)
    sign = np.where(values >= 0, 1.0, -1.0)
    half = np.abs(values) / 2
    log_alpha = 0.5 * (s / sd) ** 2 + math.log1p(-q) - math.log(q)
    log_sinh = np.fromiter((a + math.log1p(-math.exp(-2 * a)) - math.log(2) if a != 0 else 0.0 for a in half.tolist()),
                           dtype=np.float64, count=half.size)
    log_abs_b_times_exp_a = log_alpha + log_sinh  # asinh_exp(a, b) with b = -sign: log|b| = 0
    asinh = -sign * np.logaddexp(0.5 * np.logaddexp(0, 2 * log_abs_b_times_exp_a), log_abs_b_times_exp_a)
    return np.where(values == 0, 0.0, sd**2 / s * (asinh - values / 2))


def privacy_buckets_pmf(loss: Any, value_discretization_interval: float, pessimistic_estimate: bool) -> Any:
    """dp-accounting's ``_create_pld_pmf_from_monotone_privacy_loss`` with ``use_connect_dots=False`` (privacy
    buckets) for a continuous Gaussian privacy loss (ADD, REMOVE or REPLACE): the same grid of losses, the same points x
    (``inverse_privacy_loss`` of every grid loss, here on arrays), the same CDF differences (the library's vectorised
    ``mu_upper_cdf``) and the same sums; the library calls ``inverse_privacy_loss`` once per grid loss in Python
    (about 1.7 million times for the optimistic PLD of the README's ``compare --run`` example)."""
    from dp_accounting.pld import pld_pmf

    h = value_discretization_interval
    round_fn = math.ceil if pessimistic_estimate else math.floor
    tail = loss.privacy_loss_tail()
    lower_x, upper_x = tail.lower_x_truncation, tail.upper_x_truncation
    masses: dict[int, float] = {}
    infinity_mass = tail.tail_probability_mass_function.get(math.inf, 0)
    for privacy_loss, mass in tail.tail_probability_mass_function.items():
        if privacy_loss != math.inf:
            key = round_fn(privacy_loss / h)
            masses[key] = masses.get(key, 0) + mass
    top = math.floor(loss.privacy_loss(lower_x) / h)
    bottom_loss = loss.privacy_loss(upper_x)
    # the library's loop: from k = top down, x = inverse(h k) while h k is above the loss at upper_x, then upper_x;
    # it stops after the first x >= upper_x
    ks = np.arange(top, math.floor(bottom_loss / h) - 2, -1, dtype=np.int64)
    values = h * ks.astype(np.float64)
    last = int(np.argmax(values <= bottom_loss)) if (values <= bottom_loss).any() else ks.size - 1
    ks, values = ks[: last + 1], values[: last + 1]
    xs = np.empty(ks.size)
    xs[:-1] = _inverse_losses(loss, values[:-1])
    xs[-1] = upper_x if values[-1] <= bottom_loss else _inverse_losses(loss, values[-1:])[0]
    reached = np.flatnonzero(~(xs < upper_x))  # the loop appends x, then goes on while x < upper_x
    if lower_x >= upper_x:
        ks, xs = ks[:0], xs[:0]
    elif reached.size:
        ks, xs = ks[: reached[0] + 1], xs[: reached[0] + 1]
    cdf = np.asarray(loss.mu_upper_cdf(np.concatenate(([lower_x], xs))), dtype=np.float64)
    probs = cdf[1:] - cdf[:-1]
    rounded = ks + 1 if pessimistic_estimate else ks  # round_fn(k + 0.5) for an integer k: distinct keys
    keys = set(masses) | set(rounded.tolist()) if rounded.size <= pld_pmf._MAX_PMF_SPARSE_SIZE else None
    if keys is not None and len(keys) <= pld_pmf._MAX_PMF_SPARSE_SIZE:  # the library's sparse PMF, built as it does
        for key, mass in zip(rounded.tolist(), probs.tolist(), strict=True):
            masses[key] = masses.get(key, 0) + mass
        return pld_pmf.SparsePLDPmf(masses, h, infinity_mass, pessimistic_estimate)
    lo = min(int(rounded.min()), *masses) if masses else int(rounded.min())
    hi = max(int(rounded.max()), *masses) if masses else int(rounded.max())
    dense = np.zeros(hi - lo + 1)
    for key, mass in masses.items():  # the tail first, as the library adds it first (0 + mass, then + prob)
        dense[key - lo] = mass
    dense[rounded - lo] += probs
    return pld_pmf.DensePLDPmf(h, lo, dense, infinity_mass, pessimistic_estimate)


def gaussian_privacy_buckets(standard_deviation: float, sampling_prob: float, value_discretization_interval: float,
                             pessimistic_estimate: bool, *, replace_one: bool = False) -> Any:
    """dp-accounting's ``from_gaussian_mechanism`` with ``use_connect_dots=False`` (privacy buckets), sensitivity 1
    and its default truncation (log mass -50): for ADD_OR_REMOVE_ONE the REMOVE and ADD PMFs (one symmetric PMF when
    ``sampling_prob`` is 1, as the library's), for REPLACE_ONE (``replace_one``) the REPLACE PMF, each by
    :func:`privacy_buckets_pmf`."""
    from dp_accounting.pld.privacy_loss_distribution import PrivacyLossDistribution
    from dp_accounting.pld.privacy_loss_mechanism import AdjacencyType, GaussianPrivacyLoss

    def pmf(adjacency: Any) -> Any:
        loss = GaussianPrivacyLoss(standard_deviation, sensitivity=1.0, pessimistic_estimate=pessimistic_estimate,
                                   log_mass_truncation_bound=-50, sampling_prob=sampling_prob,
                                   adjacency_type=adjacency)
        return privacy_buckets_pmf(loss, value_discretization_interval, pessimistic_estimate)

    if replace_one:
        return PrivacyLossDistribution(pmf(AdjacencyType.REPLACE))
    remove = pmf(AdjacencyType.REMOVE)
    if sampling_prob == 1.0:
        return PrivacyLossDistribution(remove)
    return PrivacyLossDistribution(remove, pmf(AdjacencyType.ADD))
