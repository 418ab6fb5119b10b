"""What several benchmarks share: the median timing of a call, and the digits training set-up.

The scripts are run as ``python bench/bench_x.py``, so ``bench/`` is first on ``sys.path`` and they import this
module as ``_common``. It asserts nothing about time.

* ``median_time``: the median wall time of repeated calls (after one untimed warm-up call, unless told not to).
* ``child_times``: the wall time of a call that runs child processes, and the CPU time of those children.
* ``training_parser``, ``bench_digits``, ``audit_digits``: the command line (``--runs``, ``--K``, ``--b``), the
  500 records of scikit-learn's digits (seed 0) and the Algorithm 2 audit of Ye & Shokri 2022 (arXiv 2203.05363)
  that ``bench_audit.py``, ``bench_dask_audit.py`` and ``bench_trainer.py`` time.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np


def median_time(fn: Callable[[], object], repeats: int, *, warm_up: bool = True) -> float:
    """The median of ``repeats`` wall times of ``fn()`` (``time.perf_counter``), after one untimed call of ``fn``
    when ``warm_up`` (imports, caches)."""
    if warm_up:
        fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


T = TypeVar("T")


def child_times(fn: Callable[[], T]) -> tuple[T, float, float]:
    """``fn()`` (which runs child processes), its wall time and the CPU time (user + system) of the children it
    waited for, from ``resource.getrusage(RUSAGE_CHILDREN)`` before and after."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = fn()
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return out, wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def training_parser(*, runs: int, K: int) -> argparse.ArgumentParser:
    """The training benchmarks' command line: ``--runs`` (models trained), ``--K`` (epochs) and ``--b`` (batch
    size, 50), with the given defaults; a script adds its own options to it."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=runs)
    ap.add_argument("--K", type=int, default=K)
    ap.add_argument("--b", type=int, default=50)
    return ap


def bench_digits() -> Any:
    """500 records of scikit-learn's bundled digits (64 features, 10 classes), drawn with seed 0."""
    from dptheory.train import load_digits

    return load_digits(n=500, rng=np.random.default_rng(0))


def audit_digits(ds: Any, args: argparse.Namespace, **task_options: Any) -> tuple[dict[str, Any], float]:
    """The empirical audit of Algorithm 2 (logistic regression; eta = 0.5, lambda = 0.05, sigma_mul = 0.5,
    S_g = 2, L = 1, b and K from ``args``) over ``args.runs`` models of ``ds`` (seed 1, delta = 1e-5,
    gamma = 0.05), the tasks run with ``TaskOptions(**task_options)``: (the audit's result, its wall time)."""
    from dptheory.audit.empirical import TaskOptions
    from dptheory.papers.yeshokri22.audits import audit_logistic
    from dptheory.train.logistic import Algorithm2Setting

    t0 = time.perf_counter()
    r = audit_logistic(ds, Algorithm2Setting(eta=0.5, lam=0.05, sigma_mul=0.5, S_g=2.0, L=1.0, b=args.b, K=args.K),
                       runs=args.runs,
                       rng=np.random.default_rng(1), delta=1e-5, gamma=0.05,
                       tasks=TaskOptions(**task_options))
    return r, time.perf_counter() - t0
