"""Benchmark: float64 SGM RDP (`dptheory.privacy.sgm.rdp_np`) against dp-accounting 0.6.0, measured in one run.

Run with ``python bench/bench_sgm.py`` from the repository root. The task is 100 integer orders
(2..101) and T = 1e5 at (q = 0.04, z = 1.0) and (q = 2048/60000, z = 3.08). The dp-accounting call
is ``RdpAccountant(orders).compose(PoissonSampledDpEvent(q, GaussianDpEvent(z)), T).rdp``. Each
timing is the median of several repeats in this process. The script prints the times, the ratio
(dp-accounting / dptheory; above 1 means dptheory is faster) and the largest relative difference
of the RDP vectors. It does not assert on time.
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np
from _common import median_time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import dp_accounting

from dptheory.privacy.sgm import rdp_np

ORDERS = np.arange(2, 102, dtype=np.float64)
T = 100_000
CASES = ((0.04, 1.0), (2048 / 60000, 3.08))
REPEATS = 15


def dp_accounting_rdp(q: float, z: float) -> np.ndarray:
    event = dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(z))
    accountant = dp_accounting.rdp.RdpAccountant(orders=list(ORDERS))
    accountant.compose(event, T)
    return np.asarray(accountant.rdp, dtype=np.float64)


def dptheory_rdp(q: float, z: float) -> np.ndarray:
    return rdp_np(ORDERS, q, z, T)


def main() -> None:
    print(f"100 integer orders 2..101, T = {T}, median of {REPEATS} repeats")
    print(f"{'q':>10} {'z':>6} {'dp-accounting':>14} {'dptheory':>10} {'ratio':>8} {'max rel diff':>13}")
    for q, z in CASES:
        ref = dp_accounting_rdp(q, z)
        ours = dptheory_rdp(q, z)
        rel = float(np.max(np.abs(ours - ref) / np.abs(ref)))
        t_ref = median_time(lambda q=q, z=z: dp_accounting_rdp(q, z), REPEATS)
        t_ours = median_time(lambda q=q, z=z: dptheory_rdp(q, z), REPEATS)
        print(f"{q:10.6f} {z:6.2f} {t_ref * 1e3:11.2f} ms {t_ours * 1e3:7.3f} ms {t_ref / t_ours:7.1f}x {rel:13.2e}")


if __name__ == "__main__":
    main()
