"""Benchmark: float64 SGM RDP (`rdp.subsampled_gaussian`, `dptheory.privacy.sgm.rdp_np`) against its peers.

Run with ``python bench/bench_sgm_peers.py`` from the repository root (``--quick`` for fewer repeats).
Issue 14, item 3: at least as fast as the fastest peer on 100 fractional orders and on 100 integer
orders, T = 1e5, and within 1e-12 relative of the reference value at every order.

Inputs, all read from ``tests/data/sgm_grid_values.csv`` (made by ``tests/data/make_sgm_grid_values.py``,
which documents the grids and the reference values):

* fractional orders ``n + 1/4``, ``n + 3/4`` (``n = 1..18``) and ``n + 1/2`` (``n = 1..64``): 100
  orders in ``[1.25, 64.5]``; integer orders ``2..101``;
* five ``(q, z)`` cases: small q ``(0.001, 0.8)``, ``(0.04, 1)``, ``(2048/60000, 3.08)``, large q
  ``(0.8, 2)``, small z ``(0.01, 0.4)``;
* reference ``log A``: direct quadrature (``log_a_quad_mp``) at 20 digits at fractional orders, the
  defining finite sum at 60 digits at integer orders (quadrature-checked at every tenth order); the
  RDP reference ``T log A / (alpha - 1)`` is exact to far below 1e-15.

Peers (optional, the ``bench`` extra; a missing one is skipped with a message):

* Opacus: ``opacus.accountants.analysis.rdp.compute_rdp(q, noise_multiplier, steps, orders)``;
* dp-accounting: ``RdpAccountant(orders).compose(PoissonSampledDpEvent(q, GaussianDpEvent(z)), T).rdp``;
* prv-accountant: ``other_accountants.RDP([PoissonSubsampledGaussianMechanism(q, z)], orders).rdps[0] * T``.

Each timing is the median over 11 rounds in this process on the same inputs, after one warm-up call;
every round calls every tool once, in rotating order, so that all see the same load on the shared
machine. The script prints the times, the ratios peer/dptheory (above 1: dptheory is faster) and, for
every tool, the largest relative difference from the reference over the grid (so it shows
who is inexact: dp-accounting sums absolute values of the signed series at fractional orders, which
overstates the RDP). It asserts nothing about time.
"""

from __future__ import annotations

import argparse
import csv
import functools
import importlib
import logging
import os
import pathlib
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dptheory.privacy.sgm import rdp_np  # noqa: E402

DATA = ROOT / "tests" / "data" / "sgm_grid_values.csv"
T = 100_000

Fn = Callable[[np.ndarray, float, float], np.ndarray]


def load_reference() -> dict[tuple[str, str, float, float], tuple[np.ndarray, np.ndarray]]:
    """``(grid, case, q, z) -> (orders, RDP reference at T steps)`` from the CSV."""
    if not DATA.exists():
        raise SystemExit(f"missing {DATA.relative_to(ROOT)}: run python tests/data/make_sgm_grid_values.py")
    groups: dict[tuple[str, str, float, float], list[tuple[float, float]]] = {}
    with DATA.open(newline="") as fh:
        for r in csv.DictReader(fh):
            a = float(r["alpha"])
            key = (r["grid"], r["case"], float(r["q"]), float(r["z"]))
            groups.setdefault(key, []).append((a, T * float(r["log_a"]) / (a - 1.0)))
    return {k: (np.array([a for a, _ in v]), np.array([x for _, x in v])) for k, v in groups.items()}


def dptheory_rdp(orders: np.ndarray, q: float, z: float) -> np.ndarray:
    return rdp_np(orders, q, z, T)


def load_peers() -> dict[str, Fn]:
    peers: dict[str, Fn] = {}
    try:
        opacus_rdp = importlib.import_module("opacus.accountants.analysis.rdp")

        def opacus(orders: np.ndarray, q: float, z: float) -> np.ndarray:
            return np.asarray(opacus_rdp.compute_rdp(q=q, noise_multiplier=z, steps=T, orders=list(orders)), float)

        peers["opacus"] = opacus
    except ImportError as exc:
        print(f"skipping Opacus (not importable: {exc}); pip install 'dptheory[bench]'")
    try:
        dp_accounting = importlib.import_module("dp_accounting")

        def dp_acc(orders: np.ndarray, q: float, z: float) -> np.ndarray:
            acc = dp_accounting.rdp.RdpAccountant(orders=list(orders))
            acc.compose(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(z)), T)
            return np.asarray(acc.rdp, dtype=float)

        peers["dp-accounting"] = dp_acc
    except ImportError as exc:
        print(f"skipping dp-accounting (not importable: {exc}); pip install 'dptheory[bench]'")
    try:
        prv_other = importlib.import_module("prv_accountant.other_accountants")
        prv_vars = importlib.import_module("prv_accountant.privacy_random_variables")

        def prv(orders: np.ndarray, q: float, z: float) -> np.ndarray:
            mech = prv_vars.PoissonSubsampledGaussianMechanism(sampling_probability=q, noise_multiplier=z)
            return np.asarray(prv_other.RDP([mech], orders=list(orders)).rdps[0], dtype=float) * T

        peers["prv-accountant"] = prv
    except ImportError as exc:
        print(f"skipping prv-accountant (not importable: {exc}); pip install 'dptheory[bench]'")
    return peers


def interleaved_medians(fns: dict[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    """Median time of each function over ``repeats`` rounds; each round calls every function once, in a
    rotating order, so that all tools see the same machine load (the machine is shared)."""
    names = list(fns)
    for name in names:
        fns[name]()  # warm up (imports, caches)
    times: dict[str, list[float]] = {name: [] for name in names}
    for r in range(repeats):
        for name in names[r % len(names):] + names[: r % len(names)]:
            t0 = time.perf_counter()
            fns[name]()
            times[name].append(time.perf_counter() - t0)
    return {name: statistics.median(v) for name, v in times.items()}


def max_rel(got: np.ndarray, ref: np.ndarray) -> tuple[float, int]:
    """Largest relative difference over the finite values, and the number of non-finite values."""
    finite = np.isfinite(got)
    with np.errstate(all="ignore"):
        r = np.abs(got[finite] - ref[finite]) / np.abs(ref[finite])
    return (float(r.max()) if r.size else np.nan), int((~finite).sum())


def fmt_err(err: tuple[float, int]) -> str:
    """``1.2e-15``, or ``1.2e-15+2inf`` when two orders gave no finite value."""
    return f"{err[0]:.1e}" + (f"+{err[1]}inf" if err[1] else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 rounds instead of 11")
    args = parser.parse_args()
    repeats = 3 if args.quick else 11
    reference = load_reference()
    peers = load_peers()
    logging.disable(logging.WARNING)  # dp-accounting logs each order it gives up on; counted as "+n inf" instead
    print(f"load average at start (1, 5, 15 min): {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    names = ["dptheory", *peers]
    print(f"T = {T}; times are medians of {repeats} interleaved rounds (every tool once per round);\n"
          "ratio = peer time / dptheory time; err = largest relative difference from the reference")
    worst_ratio: dict[tuple[str, str], float] = {}
    worst_err: dict[tuple[str, str], tuple[float, int]] = {}
    grids = ("fractional", "integer")
    for grid in grids:
        print(f"\n{grid} orders (100 per case)")
        head = f"{'case':>13} {'q':>8} {'z':>5} | {'dptheory':>9} {'err':>8}"
        for name in peers:
            head += f" | {name:>14} {'ratio':>6} {'err':>8}"
        print(head)
        for (g, case, q, z), (orders, ref) in reference.items():
            if g != grid:
                continue
            calls: dict[str, Callable[[], object]] = {"dptheory": functools.partial(dptheory_rdp, orders, q, z)}
            errs = {"dptheory": max_rel(dptheory_rdp(orders, q, z), ref)}
            failed: dict[str, str] = {}
            for name, fn in peers.items():
                try:
                    errs[name] = max_rel(fn(orders, q, z), ref)
                    calls[name] = functools.partial(fn, orders, q, z)
                except Exception as exc:  # a peer failing on an input is a finding, not a crash
                    failed[name] = type(exc).__name__
            times = interleaved_medians(calls, repeats)
            t_ours = times["dptheory"]
            worst_err[grid, "dptheory"] = max(worst_err.get((grid, "dptheory"), (0.0, 0)), errs["dptheory"])
            line = f"{case:>13} {q:8.5f} {z:5.2f} | {t_ours * 1e3:6.2f} ms {fmt_err(errs['dptheory']):>8}"
            for name in peers:
                if name in failed:
                    line += f" | {'failed: ' + failed[name]:>30}"
                    continue
                t_peer, e_peer = times[name], errs[name]
                worst_ratio[grid, name] = min(worst_ratio.get((grid, name), np.inf), t_peer / t_ours)
                prev = worst_err.get((grid, name), (0.0, 0))
                worst_err[grid, name] = (max(prev[0], e_peer[0]), prev[1] + e_peer[1])
                line += f" | {t_peer * 1e3:11.2f} ms {t_peer / t_ours:5.1f}x {fmt_err(e_peer):>8}"
            print(line)
    print()
    for grid in grids:
        ratios = ", ".join(f"{name} {worst_ratio[grid, name]:.1f}x" for name in peers if (grid, name) in worst_ratio)
        err_text = ", ".join(f"{name} {fmt_err(worst_err[grid, name])}" for name in names if (grid, name) in worst_err)
        print(f"{grid}: slowest ratio peer/dptheory over the cases: {ratios or 'no peer'}")
        print(f"{grid}: largest relative difference from the reference (+n inf: n orders without a value): {err_text}")
    print(f"load average at end (1, 5, 15 min): {', '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
