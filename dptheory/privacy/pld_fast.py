"""Two steps of dp-accounting's privacy loss distributions as array operations: the read-off of epsilon at delta
and the self-composition.

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
rule and the window and changes two computations, 2-4x faster on the Figure 2 PLDs
(``python bench/bench_pld.py compose``):

* the library calls ``scipy.special.logsumexp`` once per order (40 passes of exponentials over the PMF); ours
  multiplies the PMF 20 times by e^{i/n} and 20 times by e^{-i/n}, summing after each (no exponent beyond 20
  in absolute value, so no scaling is needed). The bounds are ceilings and floors of the same numbers; where a
  value falls within rounding of an integer the window may differ by one point, whose mass is below ``tau``
  either way, and the mass put at infinity is ``tau`` in both;
* the PMF is real, so ours uses the real FFT (``scipy.fft.rfft``/``irfft``, half the points raised to the
  power) on a length of at least the window, as the library's complex FFT does. The two differ by the FFT's
  round-off, a few units of 1e-16 times the total mass at each point.

``tests/test_pld_fast.py`` compares both with the library on composed PLDs (the composed PMFs point by point, and
epsilon at delta, which is what the claims read).
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


def epsilon_for_delta(pld: Any, delta: float) -> float:
    """``pld.get_epsilon_for_delta(delta)`` of a dp-accounting ``PrivacyLossDistribution`` (the larger of its two
    PMFs' epsilons unless it is symmetric), computed by array scans instead of the library's Python loop."""
    eps_remove = _pmf_epsilon(pld._pmf_remove, delta)
    if pld._symmetric:
        return eps_remove
    return max(eps_remove, _pmf_epsilon(pld._pmf_add, delta))


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


def _self_convolve(probs: np.ndarray, num_times: int, tail_mass_truncation: float) -> tuple[int, np.ndarray]:
    """dp-accounting's ``common.self_convolve``, more accurately and faster: (the window's first index, the window
    of the ``num_times``-fold convolution of ``probs`` with itself).

    The PMF is real, so its real FFT, on a length of at least the window as the library's (the cyclic wrap-around
    folds at most the truncated mass into the window, as there). The library's round-off comes from the forward
    transform: a relative error e of X_j becomes k e in X_j^k. So the forward transform is taken in long double
    (extended precision where the platform has it) and the coefficients that can still matter, k log|X_j| above
    -40 (about a hundred at the Figure 2 setting), are raised to the power there; the others contribute below
    e^-40 k 1e-16 to any point and are raised in double, as is the inverse transform.
    """
    from scipy import fft

    lower, upper = _window(probs, num_times, tail_mass_truncation)
    length = upper - lower + 1
    size = fft.next_fast_len(max(length, probs.size), real=True)
    extended = fft.rfft(probs.astype(np.longdouble), size)
    coefficients = extended.astype(np.complex128)
    with np.errstate(divide="ignore"):
        significant = num_times * np.log(np.abs(coefficients)) > _SIGNIFICANT
    powered = coefficients**num_times
    powered[significant] = (extended[significant] ** num_times).astype(np.complex128)
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

    remove = _pmf_self_compose(pld._pmf_remove, num_times, tail_mass_truncation)
    if pld._symmetric:
        return PrivacyLossDistribution(remove)
    return PrivacyLossDistribution(remove, _pmf_self_compose(pld._pmf_add, num_times, tail_mass_truncation))
