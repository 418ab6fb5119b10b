"""Time of an empirical audit of 1e4 logistic-regression models (Issue 3, item 5: target < 2 minutes on 2 cores).

Algorithm 2 on 500 records of scikit-learn's bundled digits (64 features, 10 classes), 20 epochs,
b = 50, half of the models with a canary in place of record 0; then the Clopper-Pearson lower bound
and the converted upper bounds (Cor 5.3, composition). Prints the times and the result; asserts
nothing about time.

    python bench/bench_audit.py [--runs 10000] [--threads 2]

(in process; ``bench/bench_dask_audit.py`` times the same audit on a Dask cluster)
"""

from __future__ import annotations

import json

from _common import audit_digits, bench_digits, training_parser

from dptheory.audit.empirical import summarize_gap


def main() -> None:
    ap = training_parser(runs=10_000, K=20)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    ds = bench_digits()
    r, total = audit_digits(ds, args, threads=args.threads)
    print(f"training {args.runs} models: {r['seconds']:.1f} s; audit total (training + bounds + conversions): "
          f"{total:.1f} s (target < 120 s on 2 cores)")
    print(json.dumps({"audit": r["audit"].to_dict(), "upper": r["upper"],
                      "gap": summarize_gap(r["audit"].epsilon_lower, r["upper"]), "setting": r["setting"]},
                     indent=1, default=str))


if __name__ == "__main__":
    main()
