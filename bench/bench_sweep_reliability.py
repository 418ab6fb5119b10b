"""Sweeps on awkward grids (issue 12): ratios measured in this run against the naive reference.

1. An invalid grid: Thm 3.3 at the Figure setting over j0 = 0..224 and K = 1..8 (1800 points, 1600 of
   them violate j0 <= floor(n/b) - 1) with skip_invalid. Reference: one exact condition check per point
   (what sweep did before). Target: ratio >= 20.
2. A grid where float64 needs the mp fallback: the composition baseline at a fractional order with a
   large z (alpha = 2.5, sigma = 200, n = 4, b = 2: q = 1/2) over K = 1..200. Reference: the fallback once
   per point (rdp_mp at 30 digits, what rdp_np did before). Target: ratio >= 20.
3. Points beyond float64 (log domain): rdp.subsampled_gaussian at alpha = 2.5 over q = 1e-400..1e-200
   (50 points). Reference: Theorem.evaluate per point (conditions checked again each time).

No assertion on time. Run: python bench/bench_sweep_reliability.py
"""

from __future__ import annotations

import mpmath
import numpy as np
from _common import median_time

import dptheory
from dptheory.evaluate.sweep import sweep
from dptheory.privacy import sgm


def _compare(label: str, ours, naive, naive_label: str, target: str = "") -> None:
    """Print ``label``: the median of 3 timed calls of ``ours`` (after one warm-up call) against one timed call of
    ``naive``, and their ratio (naive / ours)."""
    a, b = median_time(ours, 3), median_time(naive, 1, warm_up=False)
    print(f"{label}: sweep {a * 1e3:8.1f} ms, {naive_label} {b * 1e3:8.1f} ms, ratio {b / a:6.1f} x{target}")


def invalid_grid() -> None:
    t = dptheory.get("yeshokri22.thm3_3")
    fixed = {"alpha": 10, "eta": "0.02", "lam": 1, "beta": 4, "S_g": 4, "sigma": 2, "n": 50, "b": 2}
    grid = {"j0": list(range(225)), "K": list(range(1, 9))}

    def ours() -> None:
        sweep(t, grid, fixed, skip_invalid=True)

    def naive() -> None:
        for j0 in grid["j0"]:
            for K in grid["K"]:
                t.check({**fixed, "j0": j0, "K": K})

    _compare("1. invalid grid (1800 points, 1600 invalid)", ours, naive, "one exact check per point",
             " (target >= 20)")


def fallback_grid() -> None:
    t = dptheory.get("yeshokri22.composition")
    fixed = {"alpha": "2.5", "eta": "0.02", "S_g": 4, "sigma": 200, "n": 4, "b": 2}
    ks = list(range(1, 201))
    z = float(np.sqrt(2 * 0.02 * 200**2) / (0.02 * 4 / 2))

    def ours() -> None:
        sweep(t, {"K": ks}, fixed)

    def naive() -> None:
        with mpmath.workdps(30):
            for k in ks:
                float(sgm.rdp_mp(2.5, 0.5, z, 2 * k))

    _compare(f"2. mp fallback grid (200 K at alpha = 2.5, q = 1/2, z = {z:.0f})", ours, naive, "fallback per point",
             " (target >= 20)")


def log_domain_grid() -> None:
    t = dptheory.get("rdp.subsampled_gaussian")
    qs = [f"1e-{k}" for k in range(200, 401, 4)]
    fixed = {"alpha": "2.5", "z": 1, "T": 1}

    def ours() -> None:
        sweep(t, {"q": qs}, fixed)

    def naive() -> None:
        for q in qs:
            t.evaluate({**fixed, "q": q}, dps=20)

    _compare(f"3. log-domain grid ({len(qs)} points, q = 1e-400..1e-200)", ours, naive, "evaluate per point")


if __name__ == "__main__":
    invalid_grid()
    fallback_grid()
    log_domain_grid()
