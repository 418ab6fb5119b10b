"""Thm 4.3's recurrence at n/b = 1e5, K = 1e3 (1e8 steps) (issue 2, performance 2).

Two regimes, measured in this run:
* the paper-like step size (eta*lambda = 0.02): the exact fixed-point shortcut
  (docs/derivations/thm4_3_recurrence.md) applies after a few thousand steps, at 50 digits and in
  float64 alike;
* a tiny step size (eta*lambda = 1e-7): the shortcut cannot trigger before ~1e8 steps, so all 1e8
  steps run: in the optional C loop (built by setup.py) and, for comparison, the pure-Python loop
  (extrapolated from 2e6 steps). The 50-digit path has no compiled loop; it is not run here.
Target: < 10 s. Prints times and ratios; no assertion on time.

Run: python bench/bench_thm43.py
"""

from __future__ import annotations

import time

import mpmath

import dptheory
from dptheory.papers.yeshokri22 import kernels as ys

N_OVER_B = 100_000
K = 1_000


def params(eta: str) -> dict:
    return {"alpha": 10, "eta": eta, "lam": 1, "beta": 4, "S_g": 4, "sigma": 2, "n": 2 * N_OVER_B, "b": 2, "K": K}


def qcr(p: dict) -> tuple[float, float, float]:
    t = dptheory.get("yeshokri22.thm4_3")
    with mpmath.workdps(30):
        a = t.kernel_args(t.parse(p))
        c = (a["alpha"] - 1) * ys.gaussian_step_rdp_mp(a["alpha"], a["eta"], a["S_g"], a["sigma"], a["b"])
        return 2 / (2 * N_OVER_B), float(c), float(a["eta"] * a["lam"] * (2 - a["eta"] * a["lam"]))


def main() -> None:
    t = dptheory.get("yeshokri22.thm4_3")
    print(f"n/b = {N_OVER_B:.0e}, K = {K}: T = {N_OVER_B * K:.0e} steps")
    p = params("0.02")
    t0 = time.perf_counter()
    v50 = t.evaluate(p, dps=50).value
    d50 = time.perf_counter() - t0
    t0 = time.perf_counter()
    v64 = float(t.evaluate_np({k: float(v) for k, v in t.parse(p).items()}))
    d64 = time.perf_counter() - t0
    print(
        f"eta*lambda = 0.02 (fixed-point shortcut): 50 digits {d50:.3f} s, float64 {d64:.3f} s; "
        f"eps = {mpmath.nstr(v50, 15)} / {v64:.15g}"
    )
    p = params("0.0000001")
    q, c, omr = qcr(p)
    built = ys._thm43_c is not None
    if built:
        t0 = time.perf_counter()
        out = ys._thm43_scalar_epochs(K, N_OVER_B, q, c, omr)
        dc = time.perf_counter() - t0
        print(
            f"eta*lambda = 1e-7 (no shortcut applies), C loop: {dc:.2f} s for all 1e8 steps "
            f"(target < 10 s); eps = {out[-1] / 9:.15g}"
        )
    else:
        print("optional C loop not built (no C compiler at install): pure Python only")
    steps = 2_000_000
    t0 = time.perf_counter()
    ys._thm43_scalar_epochs(1, steps, q, c, omr, compiled=False)
    dp = (time.perf_counter() - t0) * (N_OVER_B * K / steps)
    print(f"pure-Python loop, same run: {dp:.1f} s for 1e8 steps (extrapolated from {steps:.0e})")
    if built:
        print(f"ratio Python / C: {dp / dc:.1f} x")


if __name__ == "__main__":
    main()
