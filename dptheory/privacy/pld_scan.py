"""Epsilon at delta of a dp-accounting privacy loss distribution, as one array scan.

dp-accounting 0.6.0's ``PrivacyLossDistribution.get_epsilon_for_delta`` walks the losses of each PMF from the
largest down in a Python loop (``pld_pmf._get_epsilon_for_delta``): about 20 ms per call on the composed PLDs of
the Ye & Shokri Figure 2 setting, half the cost of a PLD bracket, and the claims over every epoch call it hundreds
of times. :func:`epsilon_for_delta` computes the same number with the same floating-point operations in the same
order (sequential cumulative sums, ``numpy.cumsum``), so it returns dp-accounting's value (equal to the last bit but
for the exponential, where numpy's and the C library's may differ in the last unit; ``tests/test_pld_scan.py``
compares the two on composed PLDs and on PMFs built to reach each of the loop's exits).

The rule (dp-accounting's, Sommer, Meiser & Mohammadi 2019; Doroshenko et al. 2022, arXiv 2207.04380, Obs. 1):
with losses l_0 > l_1 > ... and their probabilities p_i, before loss i the upper mass is
U_i = infinity mass + sum_{j<i} p_j and the lower mass W_i = sum_{j<i} exp(-l_j) p_j; epsilon is the first
log((U_i - delta) / W_i) that is at least l_i (with U_i > delta, W_i > 0; 0 when U_i <= W_i + delta), else
``max(0, l_i)`` at the first i with U_{i+1} >= delta and W_{i+1} == 0 (exp(-l_i) underflowed), else the same
log of the totals (0 when U <= W + delta).
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
