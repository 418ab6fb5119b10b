"""Figure-2 sweep: float64 vs the same points one by one at 50 digits (issue 2, performance 1).

Sweep: K = 1..200, alpha in {10, 15, 20}; Thm 4.2, Thm 4.3 and the exact composition baseline at
the paper's Figure 2 setting (600 points per theorem). Prints both times and their ratio measured
in this run; targets: ratio >= 50 and float64 sweep < 1 s. No assertion on time.

Run: python bench/bench_sweep.py
"""

from __future__ import annotations

import time

import numpy as np

import dptheory
from dptheory.evaluate.sweep import sweep
from dptheory.papers.yeshokri22.theorems import FIGURE_SETTING

KEYS = ["yeshokri22.thm4_2", "yeshokri22.thm4_3", "yeshokri22.composition"]
KS = list(range(1, 201))
ALPHAS = [10, 15, 20]


def run_float() -> dict[str, np.ndarray]:
    out = {}
    for key in KEYS:
        t = dptheory.get(key)
        fixed = {k: v for k, v in FIGURE_SETTING.items() if k in t.params}
        out[key] = sweep(t, {"K": KS, "alpha": ALPHAS}, fixed).values
    return out


def run_mp(stride: int) -> tuple[float, dict[str, list[float]]]:
    """One by one at 50 digits on every `stride`-th K (time extrapolated to the full grid)."""
    vals: dict[str, list[float]] = {k: [] for k in KEYS}
    t0 = time.perf_counter()
    n = 0
    for key in KEYS:
        t = dptheory.get(key)
        fixed = {k: v for k, v in FIGURE_SETTING.items() if k in t.params}
        for K in KS[::stride]:
            for a in ALPHAS:
                vals[key].append(float(t.evaluate({**fixed, "K": K, "alpha": a}, dps=50).value))
                n += 1
    dt = time.perf_counter() - t0
    return dt * (len(KS) * len(ALPHAS) * len(KEYS)) / n, vals


def main() -> None:
    run_float()  # warm-up (imports, caches)
    reps = []
    for _ in range(5):
        t0 = time.perf_counter()
        f = run_float()
        reps.append(time.perf_counter() - t0)
    t_float = float(np.median(reps))
    stride = 10
    t_mp, vals = run_mp(stride)
    worst = 0.0
    for key in KEYS:
        fv = f[key][::stride, :].ravel()
        mv = np.array(vals[key])
        worst = max(worst, float(np.max(np.abs(fv - mv) / np.abs(mv))))
    print(f"points: {len(KS) * len(ALPHAS)} per theorem x {len(KEYS)} theorems")
    print(f"float64 sweep (median of 5):            {t_float * 1e3:9.1f} ms   (target < 1000 ms)")
    print(f"one by one at 50 digits (extrapolated): {t_mp * 1e3:9.1f} ms   (measured on every {stride}th K)")
    print(f"ratio mp / float64:                     {t_mp / t_float:9.1f} x   (target >= 50)")
    print(f"max relative difference float64 vs mp:  {worst:9.2e}")


if __name__ == "__main__":
    main()
