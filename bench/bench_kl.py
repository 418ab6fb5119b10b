"""Benchmark: kl inversion in float64 (target: 1e-14 in under 50 microseconds per call).

Prints the time per call measured in this run (no asserts on time), and checks every result
against the mpmath bisection path on a subsample (accuracy is asserted: the safe side, within 1e-14).
Run: ``python bench/bench_kl.py``.
"""

from __future__ import annotations

import time

import mpmath
import numpy as np

from dptheory.numerics import kl as K


def main() -> None:
    rng = np.random.default_rng(0)
    N = 20_000
    qs = np.concatenate([rng.uniform(0, 1, N // 2), 10 ** rng.uniform(-12, 0, N // 4),
                         1 - 10 ** rng.uniform(-12, -1, N // 4)])
    cs = 10 ** rng.uniform(-8, 1.3, N)
    pairs = list(zip(qs.tolist(), cs.tolist(), strict=True))
    for name, f in (("kl_inv_upper", K.kl_inv_upper), ("kl_inv_lower", K.kl_inv_lower)):
        f(0.1, 0.05)
        t0 = time.perf_counter()
        for q, c in pairs:
            f(q, c)
        dt = (time.perf_counter() - t0) / N
        print(f"{name}: {dt * 1e6:.2f} microseconds per call (N = {N}, float64, tol = 1e-14)")
    worst = 0.0
    with mpmath.workdps(40):
        for q, c in pairs[:: N // 400]:
            up, ref = K.kl_inv_upper(q, c), K.kl_inv_upper_mp(mpmath.mpf(q), mpmath.mpf(c))
            assert up >= ref - mpmath.mpf(10) ** -35 and up - ref <= 1e-14
            worst = max(worst, float(up - ref))
    print(f"largest (float64 - mpmath) on 400 checked points: {worst:.3g} (must be in [0, 1e-14])")
    t0 = time.perf_counter()
    with mpmath.workdps(30):
        for q, c in pairs[:200]:
            K.kl_inv_upper_mp(mpmath.mpf(q), mpmath.mpf(c))
    print(f"mpmath path (bisection, 30 digits): {(time.perf_counter() - t0) / 200 * 1e3:.2f} ms per call")
    t0 = time.perf_counter()
    K.kl_inv_upper_np(qs, cs)
    print(f"kl_inv_upper_np on {N} points: {(time.perf_counter() - t0) * 1e6 / N:.2f} microseconds per point")


if __name__ == "__main__":
    main()
