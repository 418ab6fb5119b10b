"""Sweeps and crossovers: many points at once in float64, with mpmath where float64 cannot go.

* :func:`sweep` evaluates a theorem on a grid with its vectorised float64 kernel. Points whose
  float64 value overflows (``inf``) are recomputed with mpmath and carried in the log domain
  (``log_values`` is always finite where the bound is finite). Every point is checked against the
  theorem's conditions first; invalid points raise (naming the condition) unless ``skip_invalid``.
* :func:`crossover` finds the value of one parameter after which theorem A stays below theorem B
  on a stated range (e.g. the epoch after which the hidden-state bound stays below composition),
  screening in float64 and confirming both neighbours of the crossover at 50 digits.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from dptheory.core.errors import ConditionViolated, DPTheoryError
from dptheory.core.notation import format_rational, parse_value
from dptheory.core.theorem import Theorem

_RANGE = re.compile(r"^\s*(.+?)\s*\.\.\s*([^:]+?)\s*(?::\s*(\S+))?\s*$")


def parse_values(name: str, spec: str, *, integer: bool) -> list[Any]:
    """Parse ``1..200`` (integers, step 1), ``1..200:5`` (step 5), ``0.01..0.1:10`` (10 points,
    log-spaced when both ends are positive and span a factor > 10, else linear), ``10,15,20``, or a
    single value. Returns exact values (int or str) so nothing is rounded before parsing."""
    spec = spec.strip()
    if "," in spec:
        return [v.strip() for v in spec.split(",") if v.strip()]
    m = _RANGE.match(spec)
    if not m:
        return [spec]
    lo_s, hi_s, step = m.group(1), m.group(2), m.group(3)
    lo = parse_value(lo_s, key="sweep", name=name)
    hi = parse_value(hi_s, key="sweep", name=name)
    if hi < lo:
        raise DPTheoryError(f"sweep range for {name} is empty: {spec}")
    if integer:
        st = int(step) if step else 1
        return list(range(int(lo), int(hi) + 1, st))
    npts = int(step) if step else 50
    lo_f, hi_f = float(lo), float(hi)
    if lo_f > 0 and hi_f / lo_f > 10:
        xs = np.geomspace(lo_f, hi_f, npts)
    else:
        xs = np.linspace(lo_f, hi_f, npts)
    return [f"{x:.15g}" for x in xs]


@dataclass
class SweepResult:
    """Values of one theorem on a grid.

    Attributes:
        key: theorem key.
        names: swept parameter names (grid axes, in order).
        axes: the values along each axis (floats).
        fixed: parameters held fixed.
        values: float64 array of shape ``[len(axis) for axis in axes]`` (``inf`` where float64 overflows).
        log_values: natural log of the values, finite wherever the bound is finite.
        valid: True where every condition holds (always all True unless ``skip_invalid``).
        mp_points: number of points recomputed with mpmath.
    """

    key: str
    names: list[str]
    axes: list[np.ndarray]
    fixed: dict[str, Any]
    values: np.ndarray
    log_values: np.ndarray
    valid: np.ndarray
    unit: str = "nats"
    direction: str = "upper"
    mp_points: int = 0
    notes: list[str] = field(default_factory=list)

    def _repr_html_(self) -> str:
        rows = self.rows()
        if not rows:
            return "<p>empty sweep</p>"
        head = "".join(f"<th>{k}</th>" for k in rows[0])
        body = "".join(
            "<tr>"
            + "".join(f"<td>{v:.8g}</td>" if isinstance(v, float) else f"<td>{v}</td>" for v in r.values())
            + "</tr>"
            for r in rows[:200]
        )
        more = f"<p>... {len(rows) - 200} more rows</p>" if len(rows) > 200 else ""
        return (
            f"<p><b>{self.key}</b> ({self.direction} bound, {self.unit})</p><table><tr>{head}</tr>{body}</table>{more}"
        )

    def rows(self) -> list[dict[str, Any]]:
        out = []
        for idx in itertools.product(*(range(len(a)) for a in self.axes)):
            row = {n: float(self.axes[i][idx[i]]) for i, n in enumerate(self.names)}
            row["value"] = float(self.values[idx])
            row["log_value"] = float(self.log_values[idx])
            row["valid"] = bool(self.valid[idx])
            out.append(row)
        return out


def sweep(
    thm: Theorem,
    grid: Mapping[str, Sequence[Any]],
    fixed: Mapping[str, Any],
    *,
    skip_invalid: bool = False,
    check: bool = True,
) -> SweepResult:
    """Evaluate ``thm`` on the Cartesian grid ``grid`` with the other parameters ``fixed``."""
    names = [n for n in grid if n in thm.params]
    missing = [p for p in thm.params if p not in grid and p not in fixed]
    if missing:
        raise DPTheoryError(f"{thm.key}: sweep needs values for {', '.join(missing)}")
    exact_axes = [[parse_value(v, key=thm.key, name=n) for v in grid[n]] for n in names]
    exact_fixed = {p: parse_value(fixed[p], key=thm.key, name=p) for p in thm.params if p not in names}
    shape = tuple(len(a) for a in exact_axes)
    axes = [np.array([float(v) for v in a]) for a in exact_axes]
    mesh = np.meshgrid(*axes, indexing="ij") if names else []
    arrays: dict[str, Any] = {n: m for n, m in zip(names, mesh, strict=True)}
    for p, v in exact_fixed.items():
        arrays[p] = np.full(shape, float(v))
    valid = thm.check_np(arrays) if check else np.ones(shape, dtype=bool)
    # exact re-check of the points float64 calls invalid or borderline: the vectorised check is only a screen
    if check and not valid.all():
        for idx in zip(*np.nonzero(~valid), strict=True):
            pt = {**exact_fixed, **{n: exact_axes[i][idx[i]] for i, n in enumerate(names)}}
            res = thm.check(pt)
            if not any(r.status.value == "violated" for r in res):
                valid[idx] = True
                continue
            if not skip_invalid:
                thm.check(pt, raise_on_violation=True)
    if check and valid.all():
        # one exact check per distinct combination of the parameters appearing in conditions
        # would be ideal; the corners of the grid catch ties the float screen may miss
        for corner in itertools.product(*[(0, len(a) - 1) for a in exact_axes]):
            pt = {**exact_fixed, **{n: exact_axes[i][corner[i]] for i, n in enumerate(names)}}
            thm.check(pt, raise_on_violation=not skip_invalid)
    values = thm.evaluate_np(arrays) if thm.kernels().np is not None else None
    mp_points = 0
    if values is None:
        values = np.empty(shape)
        for idx in itertools.product(*(range(s) for s in shape)):
            pt = {**exact_fixed, **{n: exact_axes[i][idx[i]] for i, n in enumerate(names)}}
            values[idx] = float(thm.evaluate(pt, dps=20, check=False).value) if valid[idx] else np.nan
            mp_points += 1
    values = np.where(valid, values, np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_values = np.log(values)
    overflow = valid & ~np.isfinite(values)
    for idx in zip(*np.nonzero(overflow), strict=True):
        pt = {**exact_fixed, **{n: exact_axes[i][idx[i]] for i, n in enumerate(names)}}
        v = thm.evaluate(pt, dps=20).value
        mp_points += 1
        if mpmath.isinf(v):
            log_values[idx] = np.inf
        else:
            with mpmath.workdps(20):
                log_values[idx] = float(mpmath.log(v))
    notes = []
    if mp_points:
        notes.append(f"{mp_points} points beyond float64 recomputed with mpmath (see log_values)")
    if not valid.all():
        notes.append(f"{int((~valid).sum())} points violate a condition and were skipped")
    return SweepResult(
        thm.key,
        names,
        axes,
        {p: format_rational(v) for p, v in exact_fixed.items()},
        values,
        log_values,
        valid,
        str(thm.unit),
        str(thm.direction),
        mp_points,
        notes,
    )


@dataclass
class CrossoverResult:
    """Where theorem A starts to stay below theorem B along one parameter."""

    lower: str
    upper: str
    param: str
    start: float
    stop: float
    value: int | float | None  # the crossover, None if A is not below B at the end of the range
    always_below: bool
    confirmed_dps: int
    at_value: dict[str, str] | None = None  # both sides at the crossover (50 digits)
    before: dict[str, str] | None = None  # both sides just before it
    changes: int = 0  # how many times the order flips along the range

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def _repr_html_(self) -> str:
        if self.value is None:
            return (f"<p>{self.lower} is not below {self.upper} at the end of {self.param} in "
                    f"[{self.start}, {self.stop}]</p>")
        return (
            f"<p>{self.lower} stays below {self.upper} for {self.param} &ge; {self.value} "
            f"(confirmed at {self.confirmed_dps} digits; order changes {self.changes} times)</p>"
        )


def crossover(
    a: Theorem,
    b: Theorem,
    param: str,
    start: Any,
    stop: Any,
    fixed: Mapping[str, Any],
    *,
    dps: int = 50,
) -> CrossoverResult:
    """The smallest value v in [start, stop] such that A < B at every grid value in [v, stop].

    Integer parameters are scanned at every integer; real ones on a 2000-point grid, then the
    crossover is refined by bisection at ``dps`` digits.
    """
    integer = a.notation[param].domain.is_integer if param in a.params else b.notation[param].domain.is_integer
    lo = parse_value(start, key="crossover", name=param)
    hi = parse_value(stop, key="crossover", name=param)
    if integer:
        grid: list[Any] = list(range(int(lo), int(hi) + 1))
    else:
        lo_f, hi_f = float(lo), float(hi)
        xs = np.geomspace(lo_f, hi_f, 2000) if lo_f > 0 and hi_f / lo_f > 10 else np.linspace(lo_f, hi_f, 2000)
        grid = [f"{x:.15g}" for x in xs]
    fa = {p: v for p, v in fixed.items() if p in a.params}
    fb = {p: v for p, v in fixed.items() if p in b.params}
    ra = sweep(a, {param: grid}, fa) if param in a.params else None
    rb = sweep(b, {param: grid}, fb) if param in b.params else None
    va = ra.log_values if ra is not None else np.full(len(grid), np.log(float(a.evaluate(fa, dps=20).value)))
    vb = rb.log_values if rb is not None else np.full(len(grid), np.log(float(b.evaluate(fb, dps=20).value)))
    below = va < vb
    changes = int(np.count_nonzero(below[1:] != below[:-1]))
    # confirm at high precision near ties
    close = np.abs(va - vb) < 1e-9
    for i in np.flatnonzero(close):
        below[i] = _below_mp(a, b, param, grid[i], fa, fb, dps)
    if not below[-1]:
        return CrossoverResult(a.key, b.key, param, float(lo), float(hi), None, False, dps, changes=changes)
    not_below = np.flatnonzero(~below)
    if not_below.size == 0:
        idx = 0
    else:
        idx = int(not_below[-1]) + 1
    # confirm the two neighbours at dps digits
    if not _below_mp(a, b, param, grid[idx], fa, fb, dps):
        raise DPTheoryError(
            f"crossover of {a.key} and {b.key} could not be confirmed at {dps} digits at {param}={grid[idx]}"
        )
    before = None
    if idx > 0:
        if _below_mp(a, b, param, grid[idx - 1], fa, fb, dps):
            raise DPTheoryError(
                f"crossover of {a.key} and {b.key}: float64 and {dps}-digit comparisons disagree "
                f"at {param}={grid[idx - 1]}"
            )
        before = _sides(a, b, param, grid[idx - 1], fa, fb, dps)
    value: Any = grid[idx]
    if not integer and idx > 0:
        value = _bisect(a, b, param, grid[idx - 1], grid[idx], fa, fb, dps)
    return CrossoverResult(
        a.key,
        b.key,
        param,
        float(lo),
        float(hi),
        int(value) if integer else float(value),
        idx == 0,
        dps,
        _sides(a, b, param, value, fa, fb, dps),
        before,
        changes,
    )


def _val(t: Theorem, param: str, x: Any, f: Mapping[str, Any], dps: int) -> mpmath.mpf:
    pt = dict(f)
    if param in t.params:
        pt[param] = x
    return t.evaluate(pt, dps=dps).value


def _below_mp(
    a: Theorem, b: Theorem, param: str, x: Any, fa: Mapping[str, Any], fb: Mapping[str, Any], dps: int
) -> bool:
    return bool(_val(a, param, x, fa, dps) < _val(b, param, x, fb, dps))


def _sides(
    a: Theorem, b: Theorem, param: str, x: Any, fa: Mapping[str, Any], fb: Mapping[str, Any], dps: int
) -> dict[str, str]:
    return {
        param: str(x),
        a.key: mpmath.nstr(_val(a, param, x, fa, dps), 20),
        b.key: mpmath.nstr(_val(b, param, x, fb, dps), 20),
    }


def _bisect(
    a: Theorem, b: Theorem, param: str, x0: Any, x1: Any, fa: Mapping[str, Any], fb: Mapping[str, Any], dps: int
) -> str:
    lo, hi = sp.Rational(str(x0)), sp.Rational(str(x1))
    for _ in range(60):
        mid = (lo + hi) / 2
        if _below_mp(a, b, param, mid, fa, fb, dps):
            hi = mid
        else:
            lo = mid
    return format_rational(hi) if hi.q < 10**20 else f"{float(hi):.17g}"


__all__ = ["ConditionViolated", "CrossoverResult", "SweepResult", "crossover", "parse_values", "sweep"]
