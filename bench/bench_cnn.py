"""Benchmark: one GD / DP-GD step of Shi et al.'s CNN at the paper's scale vs bare float64 matrix products.

Prints, from measurements taken in this one run (interleaved, medians of repeated timings):

* the GEMM-throughput ratio: time of the two bare matrix products of one step (``(2n, d) @ (d, 2m)`` and
  ``(d, 2n) @ (2n, 2m)``, the same shapes and memory layouts) divided by the time of one full training
  step (``loss_and_grad`` + update, plus the DP noise for DP-GD). 1.0 means the step runs at the
  machine's matrix-multiply throughput; the target is >= 0.5;
* a projected wall-clock time of the full six-run Figure 1 reproduction (``dptheory.papers.shi26.experiments.PAPER``:
  3 x (GD + DP-GD), 3000 steps each, test set and decomposition every 50 steps), from a timed partial
  run of ``train_cnn`` (so evaluation overheads are included).

No assertion on time: the numbers depend on the machine and its load.

    python bench/bench_cnn.py [--partial-steps 100]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from _common import median_time

from dptheory.papers.shi26 import cnn as M
from dptheory.papers.shi26 import experiments as E


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--partial-steps", type=int, default=100)
    args = ap.parse_args()
    cfg = E.PAPER
    rng = np.random.default_rng(0)
    dm = M.DataModel(d=cfg.d, mu_norm=cfg.mu_norm, sigma_p=0.5)
    tr = M.sample_data(dm, cfg.n, rng)
    te = M.sample_data(dm, cfg.n_test, rng)
    cnn = cfg.cnn()
    W = M.init_weights(cfg.d, cnn, rng)
    ws = M._Workspace(cfg.n, cnn.m)
    A = np.empty((2 * cfg.n, 2 * cnn.m))
    G = np.empty_like(W)
    D = rng.standard_normal((2 * cfg.n, 2 * cnn.m))
    X = tr.X_flat
    noise_rng = np.random.default_rng(1)
    buf = np.empty_like(W)

    def gemms() -> None:
        np.matmul(X, W, out=A)
        np.matmul(X.T, D, out=G)

    def gd_step() -> None:
        g = M.loss_and_grad(W, tr, cnn, ws=ws, out=G).grad
        g *= cfg.eta
        W[...] -= 0.0 * g  # the update's memory traffic without moving W (keeps timings stationary)

    def dp_step() -> None:
        g = M.loss_and_grad(W, tr, cnn, ws=ws, out=G).grad
        b = noise_rng.standard_normal(out=buf)
        b *= cfg.sigma_b
        g += b
        g *= cfg.eta
        W[...] -= 0.0 * g

    rows = []
    for _ in range(3):  # interleave to share the machine's load between the measurements
        rows.append((median_time(gemms, args.reps), median_time(gd_step, args.reps),
                     median_time(dp_step, args.reps)))
    t_gemm = statistics.median(r[0] for r in rows)
    t_gd = statistics.median(r[1] for r in rows)
    t_dp = statistics.median(r[2] for r in rows)
    flops = 2 * 2 * (2 * cfg.n) * cfg.d * (2 * cnn.m)
    print(f"shapes: (2n, d) @ (d, 2m) = ({2 * cfg.n}, {cfg.d}) @ ({cfg.d}, {2 * cnn.m}) and its transpose product")
    print(f"bare GEMMs of one step: {t_gemm * 1e3:.1f} ms ({flops / t_gemm / 1e9:.1f} GFLOP/s)")
    print(f"GD step:    {t_gd * 1e3:.1f} ms -> GEMM-throughput ratio {t_gemm / t_gd:.3f} (target >= 0.5)")
    print(f"DP-GD step: {t_dp * 1e3:.1f} ms -> GEMM-throughput ratio {t_gemm / t_dp:.3f}")

    # projected full Figure 1 from timed partial runs of two lengths: time = setup + steps * per_step
    # (setup: the decomposition's Cholesky and the first evaluation; evaluations every eval_every steps
    # are inside the per-step slope because both lengths are multiples of eval_every)
    W0 = M.init_weights(cfg.d, cnn, np.random.default_rng(2))
    lengths = (cfg.eval_every, (args.partial_steps // cfg.eval_every + 1) * cfg.eval_every)
    total = 0.0
    for method, sb in (("GD", 0.0), ("DP-GD", cfg.sigma_b)):
        t_len = []
        for steps in lengths:
            tc = M.TrainConfig(eta=cfg.eta, steps=steps, sigma_b=sb, eval_every=cfg.eval_every,
                               track_sensitivity=sb > 0)
            t = time.perf_counter()
            M.train_cnn(tr, te, cnn, tc, W0=W0, noise_rng=np.random.default_rng(3) if sb else None,
                        keep_weights=False)
            t_len.append(time.perf_counter() - t)
        per_step = (t_len[1] - t_len[0]) / (lengths[1] - lengths[0])
        setup = t_len[0] - per_step * lengths[0]
        total += len(cfg.sigma_ps) * (setup + per_step * cfg.steps)
        print(f"partial runs {lengths} steps, {method}: {per_step * 1e3:.1f} ms/step (incl. evaluation), "
              f"setup {setup:.2f} s")
    print(f"projected full Figure 1 (6 runs x {cfg.steps} steps, measured in this run): {total / 60:.1f} min "
          "(target < 30 min)")


if __name__ == "__main__":
    main()
