"""Time of the mixture-divergence quadrature at 30 digits (Issue 3, item 5: target < 1 s for n/b <= 100).

Shuffle and partition on the quadratic loss at the paper's Figure setting (alpha = 10, lam = 1,
S_g = 4, eta = 0.02, sigma = 2, b = 2) with n/b up to 100, and at a large order (alpha = 200). One
divergence is one direction (one pair t); ``shuffle_divergence`` computes two. Prints times, the
number of integrand evaluations and the error estimate; asserts nothing about time.

    python bench/bench_quadrature.py
"""

from __future__ import annotations

import time

import mpmath

from dptheory.papers.yeshokri22 import quadratic as Q


def main() -> None:
    worst = 0.0
    for alpha in (10, 200):
        for N in (2, 10, 25, 50, 100):
            st = Q.QuadraticSetting(alpha=alpha, eta="0.02", lam=1, S_g=4, sigma=2, n=2 * N, b=2, K=20)
            with mpmath.workdps(40):
                g = st.u() / mpmath.sqrt(Q.noise_variance(st))
                w, W = Q._shuffle_components(st)
                mp_ = [g * x for x in W]
            t0 = time.perf_counter()
            r = Q.mixture_renyi_1d(st.mp("alpha"), w, mp_, [1], [0], dps=30)
            dt = time.perf_counter() - t0
            worst = max(worst, dt)
            print(f"alpha = {alpha:>3}, n/b = {N:>3}: {dt:.3f} s, {r.evaluations} evaluations, {r.panels} panels, "
                  f"D = {mpmath.nstr(r.value, 30)} nats, estimated error {mpmath.nstr(r.error, 2)}")
    print(f"WORST time per 30-digit divergence for n/b <= 100: {worst:.3f} s (target < 1 s)")


if __name__ == "__main__":
    main()
