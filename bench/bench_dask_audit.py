"""Scale-out of the 1e4-model empirical audit on Dask: serial (in process, one thread) vs a local cluster.

Issue 14, item 4: a 2-worker local cluster on 2 cores should reach at least 1.6x the serial throughput
on the 1e4-model audit, with the same numbers. The setting is ``bench/bench_audit.py``'s (Algorithm 2
of Ye & Shokri 2022, arXiv 2203.05363, on 500 records of scikit-learn's digits, b = 50, K = 20 epochs,
half of the models with a canary). Both runs train the same tasks of 250 models with the same seeds;
the script prints both times, the throughput ratio, and whether the audit results are identical (they
must be: it exits 1 otherwise). The Dask time includes starting and stopping the local cluster; the
start-up alone is timed once more and subtracted for the "without start-up" ratio. Asserts nothing
about time.

    python bench/bench_dask_audit.py [--runs 10000] [--K 20] [--workers 2]
"""

from __future__ import annotations

import json
import sys
import time

from _common import audit_digits, bench_digits, training_parser


def main() -> int:
    ap = training_parser(runs=10_000, K=20)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()

    from dptheory.evaluate.parallel import dask_client, run_tasks

    ds = bench_digits()
    serial, t_serial = audit_digits(ds, args, threads=1)
    print(f"serial (in process, 1 thread): {args.runs} models audited in {t_serial:.1f} s")

    t0 = time.perf_counter()
    with dask_client(args.workers) as client:
        run_tasks(abs, [1] * args.workers, client=client)  # the workers are up and answering
    t_start = time.perf_counter() - t0
    dask, t_dask = audit_digits(ds, args, workers=args.workers)  # starts (and stops) its own cluster
    same = json.dumps(serial["audit"].to_dict(), sort_keys=True) == json.dumps(dask["audit"].to_dict(),
                                                                               sort_keys=True)
    same = same and serial["upper"] == dask["upper"]
    print(f"Dask local cluster ({args.workers} workers): {args.runs} models in {t_dask:.1f} s including its own "
          f"cluster start-up; a cluster starts in {t_start:.1f} s here")
    tr_serial, tr_dask = serial["seconds"], dask["seconds"]  # the training alone (the bounds are converted in process)
    print(f"training: serial {tr_serial:.1f} s, Dask {tr_dask:.1f} s with start-up")
    print(f"throughput ratio Dask / serial, training: {tr_serial / tr_dask:.2f}x with start-up, "
          f"{tr_serial / max(tr_dask - t_start, 1e-9):.2f}x without; whole audit: {t_serial / t_dask:.2f}x with "
          f"start-up (target >= 1.6x on 2 idle cores)")
    print(f"numbers identical: {same}; epsilon lower bound {serial['audit'].epsilon_lower!r} (serial) vs "
          f"{dask['audit'].epsilon_lower!r} (Dask)")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
