"""A theorem's contract at deterministic points: what ``pytest --dptheory`` checks for every theorem of a paper.

No hypothesis, no randomness beyond a seeded generator: the points are drawn from the notation table's sample ranges
(log scale where the table says so; integers rounded), kept where every condition holds exactly
(:meth:`~dptheory.core.theorem.Theorem.check`), and at each the contract is:

* **satisfiable**: some point of the sample ranges satisfies the conditions (else the conditions may never hold,
  or hold only outside the ranges the notation declares; the message says which conditions refused most points);
* **finite**: the value is a number, +inf only where the theorem declares it (``infinite_when``), never NaN;
* **float64 agrees with mpmath** to 1e-10 relative wherever both are finite (the tolerance of the shipped papers'
  contract suite, ``checks/test_contracts.py``);
* **monotone where stated**: moving one parameter up by a factor (1 for integers) moves the value the stated way
  (checked at the points where the moved point is valid; a difference within 1e-12 relative counts as a tie);
* **LaTeX renders** for the bound and every condition.

The shipped papers' suite (``checks/test_contracts.py``) checks the same properties with hypothesis strategies built
from the conditions, over many more points; this module is the deterministic subset a researcher's repository runs
without the test extras.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import mpmath

from dptheory.core.conditions import Status
from dptheory.core.errors import DPTheoryError
from dptheory.core.units import Monotone

__all__ = ["FLOAT64_RTOL", "MAX_FAILURES", "TIE_RTOL", "ContractReport", "check_contract", "valid_points"]

#: float64 against mpmath, relative (the contract suite's tolerance)
FLOAT64_RTOL = 1e-10
#: a tie of a monotone sense, relative (a strict sense cannot be told from a tie within the working precision)
TIE_RTOL = 1e-12
#: failures listed in a report (the rest are counted)
MAX_FAILURES = 4


@dataclass(frozen=True)
class ContractReport:
    """What :func:`check_contract` found: the points used and one line per failure (empty: the contract holds)."""

    key: str
    points: tuple[Mapping[str, Any], ...]
    failures: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.failures


def _draw(theorem: Any, rng: Any) -> dict[str, Any]:
    point: dict[str, Any] = {}
    for name in theorem.params:
        param = theorem.notation[name]
        lo, hi, log = theorem.sample.get(name, param.sample)
        lo, hi = float(lo), float(hi)
        if log and lo > 0:
            x = math.exp(rng.uniform(math.log(lo), math.log(hi)))
        else:
            x = rng.uniform(lo, hi)
        point[name] = round(x) if param.domain.is_integer else float(f"{x:.6g}")
    return point


def valid_points(theorem: Any, n: int = 12, *, seed: int = 0, tries: int = 400) -> tuple[list[dict[str, Any]],
                                                                                       dict[str, int]]:
    """Up to ``n`` points of the sample ranges where every condition of ``theorem`` holds (exact check), from
    ``tries`` seeded draws (the theorem's ``witnesses`` instead, when it declares them); with, per condition, how
    many draws it refused (the most refusing one first)."""
    import random

    if theorem.witnesses:  # a thin valid region: the theorem's own valid points (as the contract suite does)
        return [dict(w) for w in theorem.witnesses][:n], {}
    rng = random.Random(seed)
    points: list[dict[str, Any]] = []
    refused: dict[str, int] = {}
    for _ in range(tries):
        if len(points) >= n:
            break
        p = _draw(theorem, rng)
        results = theorem.check(p)
        bad = [r for r in results if r.status is not Status.HOLDS]
        if not bad:
            if p not in points:
                points.append(p)
            continue
        for r in bad:
            refused[r.text] = refused.get(r.text, 0) + 1
    return points, dict(sorted(refused.items(), key=lambda kv: -kv[1]))


def _rel(a: float, b: float) -> float:
    return abs(a - b) / max(abs(a), abs(b), 1e-300)


def check_contract(theorem: Any, n: int = 12, *, seed: int = 0, dps: int = 30) -> ContractReport:
    """The contract of ``theorem`` (module docstring) at up to ``n`` seeded valid points."""
    import numpy as np

    points, refused = valid_points(theorem, n, seed=seed)
    failures: list[str] = []
    if not points:
        worst = next(iter(refused), "none")
        failures.append(f"no valid point in 400 draws from the sample ranges: the conditions may never hold there "
                        f"(most refused by: {worst})")
        return ContractReport(theorem.key, (), tuple(failures))
    values: list[mpmath.mpf] = []
    for p in points:
        try:
            v = theorem.evaluate(p, dps=dps).value
        except DPTheoryError as exc:
            failures.append(f"no value at {p}, where every condition holds: {exc}")
            values.append(mpmath.mpf("nan"))  # keeps the points and values aligned; NaN is skipped below
            continue
        values.append(v)
        if mpmath.isnan(v) or (mpmath.isinf(v) and not theorem.infinite_when):
            failures.append(f"the value is {v} at {p} (finite expected inside the conditions)")
    np_kernel = theorem.kernels().np
    if np_kernel is not None:
        arrays = {k: np.array([float(p[k]) for p in points]) for k in theorem.params}
        try:
            got = np.atleast_1d(theorem.evaluate_np(arrays))
        except DPTheoryError as exc:
            failures.append(f"float64: {exc}")
            got = np.full(len(points), np.nan)
        for p, v, g in zip(points, values, got, strict=True):
            if mpmath.isfinite(v) and math.isfinite(float(g)) and _rel(float(v), float(g)) > FLOAT64_RTOL:
                failures.append(f"float64 gives {float(g)!r} and mpmath {mpmath.nstr(v, 17)} at {p} "
                                f"(relative {_rel(float(v), float(g)):.1e} > {FLOAT64_RTOL:g})")
    for name, sense in theorem.monotone.items():
        failures += _monotone_failures(theorem, name, sense, points, values, dps)
    try:
        if not theorem.latex() or not all(theorem.conditions_latex()):
            failures.append("LaTeX renders empty for the bound or a condition")
    except Exception as exc:  # a printer error is a contract failure, reported, not raised
        failures.append(f"LaTeX does not render: {type(exc).__name__}: {exc}")
    if len(failures) > MAX_FAILURES:  # the first ones say what is wrong; the count says how often
        failures = [*failures[:MAX_FAILURES], f"... and {len(failures) - MAX_FAILURES} more"]
    return ContractReport(theorem.key, tuple(points), tuple(failures))


def _monotone_failures(theorem: Any, name: str, sense: Monotone, points: list[dict[str, Any]],
                       values: list[mpmath.mpf], dps: int) -> list[str]:
    up = sense in (Monotone.INCREASING, Monotone.NONDECREASING)
    integer = theorem.notation[name].domain.is_integer
    out: list[str] = []
    for p, v in zip(points, values, strict=True):
        q = dict(p)
        q[name] = p[name] + 1 if integer else p[name] * 1.5
        if any(r.status is not Status.HOLDS for r in theorem.check(q)) or not mpmath.isfinite(v):
            continue
        w = theorem.evaluate(q, dps=dps).value
        if not mpmath.isfinite(w):
            continue
        gap = (w - v) if up else (v - w)
        tie = TIE_RTOL * max(abs(v), abs(w))
        if gap < -tie:  # a strict sense cannot be told from a tie within the working precision either
            out.append(f"not {sense.value} in {name}: {mpmath.nstr(v, 12)} at {p}, {mpmath.nstr(w, 12)} at "
                       f"{name} = {q[name]:.6g}")
    return out
