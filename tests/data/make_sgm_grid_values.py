"""Regenerate tests/data/sgm_grid_values.csv (run from the repository root; about an hour on one core).

Reference values of ``log A_alpha(q, z)`` of the Poisson-subsampled Gaussian mechanism (Mironov,
Talwar, Zhang 2019, arXiv 1908.10530, Sec. 3.3) on the benchmark grids of ``bench/bench_sgm_peers.py``
and of the float64 grid test in ``tests/test_sgm.py``:

* fractional orders: ``n + 1/4`` and ``n + 3/4`` for ``n = 1..18``, and ``n + 1/2`` for ``n = 1..64``
  (100 orders in ``[1.25, 64.5]``, none an integer, quarter steps where accountants usually pick
  the optimum);
* integer orders: ``2..101``;
* cases ``(q, z)``: ``(0.001, 0.8)`` small q, ``(0.04, 1)``, ``(2048/60000, 3.08)``,
  ``(0.8, 2)`` large q, ``(0.01, 0.4)`` small z.

Fractional orders: ``log_a_quad_mp`` (``mpmath.quad`` of ``E[(1+w)^alpha - 1 - alpha w]``, a
nonnegative integrand; it shares no code with the series kernels) at ``DPS`` digits, accepted only
when mpmath's error estimate is below ``10^-(DPS+3)`` of ``A - 1``. As a second method every
fractional value is compared with the mp series kernel ``log_a_mp`` at 30 digits (signed series with
CVZ tail) in ``check_rel_diff``.

Integer orders: the defining finite sum ``A = sum_i C(n,i) (1-q)^(n-i) q^i exp((i^2-i)/(2z^2))``
(MTZ19 Sec. 3.3), evaluated here at 60 digits with exact integer binomials and no code from
``dptheory``. Every tenth order (2, 12, ..., 92) and 101 is also checked by ``log_a_quad_mp``
(``check_rel_diff``); quadrature of all 500 integer points would take hours on a shared machine.

The script refuses to write the file if any check differs by more than 1e-18.

The file is written whole or not at all; an interrupted run resumes from ``<name>.partial``.
"""

from __future__ import annotations

import csv
import math
import os
import sys
from pathlib import Path

import mpmath

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from dptheory.privacy.sgm import log_a_mp  # noqa: E402
from dptheory.testing.oracles import log_a_quad_mp  # noqa: E402

OUT = Path(__file__).with_name("sgm_grid_values.csv")
DPS = 20
CASES = ((0.001, 0.8), (0.04, 1.0), (2048 / 60000, 3.08), (0.8, 2.0), (0.01, 0.4))
CASE_NAMES = ("small q", "peers case A", "peers case C", "large q", "small z")
FRACTIONAL = sorted([n + f for n in range(1, 19) for f in (0.25, 0.75)] + [n + 0.5 for n in range(1, 65)])
INTEGER = [float(n) for n in range(2, 102)]
FIELDS = ["grid", "case", "alpha", "q", "z", "log_a", "method", "dps", "check_method", "check_rel_diff"]
QUAD = f"log_a_quad_mp at {DPS} digits (mpmath.quad, error estimate < 1e-{DPS + 3} of A-1)"
SERIES = "log_a_mp (mp series kernel) at 30 digits"
EXACT_DPS = 60
EXACT = f"defining finite sum with exact integer binomials at {EXACT_DPS} digits (this script)"
QUAD_CHECKED_INTEGERS = {*range(2, 102, 10), 101}


def exact_integer_log_a(n: int, q: float, z: float) -> mpmath.mpf:
    """log of sum_i C(n,i) (1-q)^(n-i) q^i exp((i^2-i)/(2z^2)), straight from the definition."""
    with mpmath.workdps(EXACT_DPS):
        qm, zm = mpmath.mpf(q), mpmath.mpf(z)
        terms = [math.comb(n, i) * (1 - qm) ** (n - i) * qm**i * mpmath.exp(mpmath.mpf(i * i - i) / (2 * zm * zm))
                 for i in range(n + 1)]
        return mpmath.log(mpmath.fsum(terms))


def compute(row: dict[str, str]) -> dict[str, str]:
    a, q, z = float(row["alpha"]), float(row["q"]), float(row["z"])
    check: mpmath.mpf | None = None
    if row["grid"] == "integer":
        value, method, dps = exact_integer_log_a(int(a), q, z), EXACT, EXACT_DPS
        if int(a) in QUAD_CHECKED_INTEGERS:
            with mpmath.workdps(DPS):
                check, check_method = log_a_quad_mp(a, q, z), QUAD
    else:
        with mpmath.workdps(DPS):
            value, method, dps = log_a_quad_mp(a, q, z), QUAD, DPS
        with mpmath.workdps(30):
            check, check_method = log_a_mp(a, q, z), SERIES
    out = dict(row, log_a=mpmath.nstr(value, DPS, strip_zeros=False), method=method, dps=str(dps))
    if check is None:
        return dict(out, check_method="", check_rel_diff="")
    with mpmath.workdps(40):
        diff = abs(mpmath.mpf(check) - value) / abs(value)
    if diff > mpmath.mpf("1e-18"):
        raise SystemExit(f"{method} and {check_method} disagree by {mpmath.nstr(diff, 3)} at {row}")
    return dict(out, check_method=check_method, check_rel_diff=mpmath.nstr(diff, 2))


def rows_to_compute() -> list[dict[str, str]]:
    out = []
    for (q, z), name in zip(CASES, CASE_NAMES, strict=True):
        for grid, orders in (("fractional", FRACTIONAL), ("integer", INTEGER)):
            for a in orders:
                out.append({"grid": grid, "case": name, "alpha": repr(a), "q": repr(q), "z": repr(z)})
    return out


def main() -> None:
    partial = OUT.with_suffix(".csv.partial")
    done: dict[tuple[str, str, str], dict[str, str]] = {}
    if partial.exists():
        with partial.open(newline="") as fh:
            for r in csv.DictReader(fh):
                if "series_rel_diff" in r:  # first version of this script: keep its (same-method) fractional rows
                    if r["grid"] == "integer":
                        continue
                    r = dict(r, check_method=SERIES, check_rel_diff=r.pop("series_rel_diff"))
                done[(r["alpha"], r["q"], r["z"])] = r
    todo = rows_to_compute()
    tmp_partial = partial.with_suffix(".tmp")
    with tmp_partial.open("w", newline="") as fh:  # rewrite in the current format, then append
        writer = csv.DictWriter(fh, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows({k: r[k] for k in FIELDS} for r in done.values())
    os.replace(tmp_partial, partial)
    with partial.open("a", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS)
        for k, row in enumerate(todo):
            key = (row["alpha"], row["q"], row["z"])
            if key in done:
                continue
            out = compute(row)
            writer.writerow(out)
            fh.flush()
            done[key] = out
            print(f"{k + 1}/{len(todo)} {row['case']} {row['grid']} alpha={row['alpha']}: {out['log_a']}", flush=True)
    ordered = [done[(r["alpha"], r["q"], r["z"])] for r in todo]
    tmp = OUT.with_suffix(".csv.tmp")
    with tmp.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(ordered)
    os.replace(tmp, OUT)
    partial.unlink()
    print(f"wrote {OUT} ({len(ordered)} rows)")


if __name__ == "__main__":
    main()
