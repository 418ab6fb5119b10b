"""Known values: a theorem's value at a point, computed independently of its statement and kernels, with provenance.

A paper keeps them with itself: a ``known_values.csv`` in its package (columns :data:`COLUMNS`, written by a
``known_values.py`` that imports nothing of dptheory), or ``[[known_value]]`` tables in its paper file
(``theorem``, ``term``, ``params``, ``value``, ``rel_tol``, ``method``, ``source``; docs/adding_a_paper.md). Both
are read into the same rows (dicts with the CSV's columns, ``params`` as JSON text, and ``where``: file and line or
table) and checked by the same two rules, used by ``tests/test_known_values.py`` for the shipped papers and by
``pytest --dptheory`` for a researcher's:

* :func:`row_problems`, the row as data: a method of :data:`METHODS`, a source that says how the value was obtained,
  a tolerance no looser than the method allows (:data:`MAX_TOL`), exact inputs (integers or decimal strings, never
  binary floats), a number or ``inf`` as the value;
* :func:`disagreement`, the theorem against the row: ``Theorem.evaluate`` at the row's point (at enough digits for
  the tolerance) agrees within ``rel_tol`` relative; ``inf`` must be +infinity; a point the theorem refuses
  (a violated condition) is a failure naming the condition, never a skip.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import mpmath

__all__ = ["COLUMNS", "MAX_TOL", "METHODS", "disagreement", "read_csv", "row_problems"]

COLUMNS = ["key", "term", "params", "value", "rel_tol", "method", "source"]
#: how an independent value may be obtained: the paper's formula re-typed at 60 digits, a different route to the same
#: number, a direct enumeration or quadrature of the definition, a peer library in float64
METHODS = ("transcription", "second-derivation", "brute-force", "peer")
#: the loosest tolerance a row may state, per method (float64 peers lose a few ulps per step; the 60-digit routes
#: are compared at 1e-30 or tighter)
MAX_TOL: Mapping[str, float] = {"transcription": 1e-30, "second-derivation": 1e-20, "brute-force": 1e-20,
                                "peer": 1e-9}


def read_csv(path: Path, label: str) -> list[dict[str, str]]:
    """The rows of one known-values CSV, each with ``where`` (``label:line``).

    Raises:
        ValueError: the columns are not :data:`COLUMNS`.
    """
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        if reader.fieldnames != COLUMNS:
            raise ValueError(f"{label}: columns {reader.fieldnames}, expected {COLUMNS}")
        return [{**row, "where": f"{label}:{i}"} for i, row in enumerate(reader, start=2)]


def row_problems(row: Mapping[str, str]) -> list[str]:
    """What is wrong with a row as data (empty: nothing); each problem one line starting with the row's ``where``."""
    where, out = row["where"], []
    if row["method"] not in METHODS:
        out.append(f"{where}: method {row['method']!r} is not one of {', '.join(METHODS)}")
    if len(row["source"]) <= 10:
        out.append(f"{where}: the source must say how the value was obtained (more than 10 characters)")
    try:
        tol = float(row["rel_tol"])
    except ValueError:
        tol = float("nan")
    limit = MAX_TOL.get(row["method"], 1e-30)  # an unknown method is reported above; its tolerance as a transcription
    if not 0 < tol <= limit:
        out.append(f"{where}: rel_tol {row['rel_tol']} is not in (0, {limit:g}] (the loosest for {row['method']})")
    try:
        params = json.loads(row["params"])
    except ValueError:
        params = None
    if not isinstance(params, dict) or not params:
        out.append(f"{where}: params must be a table of parameter = value")
    else:
        for k, v in params.items():
            if not isinstance(v, int | str) or isinstance(v, bool):
                out.append(f"{where}: parameter {k} = {v!r} must be an integer or a decimal string (exact)")
    if row["value"] != "inf":
        try:
            mpmath.mpf(row["value"])
        except (ValueError, TypeError):
            out.append(f"{where}: value {row['value']!r} is not a number (or inf)")
    if row["method"] == "peer" and not ("dp-accounting" in row["source"] or "autodp" in row["source"]):
        out.append(f"{where}: a peer value names its library (dp-accounting or autodp) in the source")
    return out


def dps_for(tol: Any) -> int:
    """Digits to evaluate at for a relative tolerance ``tol`` (6 guard digits, at most 50)."""
    return min(50, int(-mpmath.log10(mpmath.mpf(tol))) + 6)


def disagreement(row: Mapping[str, str], theorem: Any) -> str | None:
    """Why ``theorem`` disagrees with the known-value ``row`` (one line starting with ``where``), or None."""
    from dptheory.core.errors import ConditionViolated

    params = json.loads(row["params"])
    tol = mpmath.mpf(row["rel_tol"])
    dps = dps_for(tol)
    label = f"{row['key']}{':' + row['term'] if row['term'] else ''}"
    try:
        got = theorem.evaluate(params, dps=dps, term=row["term"] or None).value
    except ConditionViolated as exc:
        return f"{row['where']}: the hand-picked valid point {params} of {row['key']} is refused: {exc}"
    with mpmath.workdps(60):
        if row["value"] == "inf":
            return None if mpmath.isinf(got) and got > 0 else f"{row['where']}: expected +inf, got {got}"
        want, got = mpmath.mpf(row["value"]), mpmath.mpf(got)
        if not mpmath.isfinite(got):
            return f"{row['where']}: expected {row['value']}, got {got}"
        err = abs(got - want)
        if err <= tol * abs(want) or (want == 0 and err == 0):
            return None
        rel = mpmath.nstr(err / abs(want), 3) if want else mpmath.nstr(err, 3)
        digits = int(mpmath.ceil(-mpmath.log10(tol) - mpmath.mpf(10) ** -9)) + 1
        return (f"{row['where']}: {label} at {params} = {mpmath.nstr(got, dps)}, independent value "
                f"({row['method']}: {row['source']}) {row['value']}, relative error {rel} > {row['rel_tol']} (a "
                f"{row['method']} is compared to {row['rel_tol']}: give the value to {digits} significant digits, or "
                "exactly as a formula of numbers in a paper file)")
