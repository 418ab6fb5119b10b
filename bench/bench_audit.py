"""Time of an empirical audit of 1e4 logistic-regression models (Issue 3, item 5: target < 2 minutes on 2 cores).

Algorithm 2 on 500 records of scikit-learn's bundled digits (64 features, 10 classes), 20 epochs,
b = 50, half of the models with a canary in place of record 0; then the Clopper-Pearson lower bound
and the converted upper bounds (Cor 5.3, composition). Prints the times and the result; asserts
nothing about time.

    python bench/bench_audit.py [--runs 10000] [--threads 2]

(in process; ``bench/bench_dask_audit.py`` times the same audit on a Dask cluster)
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from dptheory.audit.empirical import TaskOptions, summarize_gap
from dptheory.papers.yeshokri22.audits import audit_logistic
from dptheory.train import load_digits
from dptheory.train.logistic import Algorithm2Setting


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10_000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--K", type=int, default=20)
    ap.add_argument("--b", type=int, default=50)
    args = ap.parse_args()
    ds = load_digits(n=500, rng=np.random.default_rng(0))
    t0 = time.perf_counter()
    r = audit_logistic(ds, Algorithm2Setting(eta=0.5, lam=0.05, sigma_mul=0.5, S_g=2.0, L=1.0, b=args.b, K=args.K),
                       runs=args.runs,
                       rng=np.random.default_rng(1), delta=1e-5, gamma=0.05,
                       tasks=TaskOptions(threads=args.threads))
    total = time.perf_counter() - t0
    print(f"training {args.runs} models: {r['seconds']:.1f} s; audit total (training + bounds + conversions): "
          f"{total:.1f} s (target < 120 s on 2 cores)")
    print(json.dumps({"audit": r["audit"].to_dict(), "upper": r["upper"],
                      "gap": summarize_gap(r["audit"].epsilon_lower, r["upper"]), "setting": r["setting"]},
                     indent=1, default=str))


if __name__ == "__main__":
    main()
