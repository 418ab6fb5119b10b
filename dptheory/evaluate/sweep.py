"""Sweeps: many points at once in float64, with mpmath where float64 cannot go.

* :func:`sweep` evaluates a theorem on a grid with its vectorised float64 kernel. The conditions are
  screened first, vectorised in float64: each side of each condition is evaluated on the whole grid
  and only points where the two sides are within ``TIE_RTOL`` of each other (or not finite) are
  decided exactly (integrality exactly per axis value). Invalid points raise (naming the condition)
  unless ``skip_invalid``, and they are never evaluated. Among the valid points, every one the
  float64 kernel cannot carry is recomputed with mpmath from the exact parameters and carried in
  the log domain: the value overflows (``inf``), underflows (``0``: true zeros come back as 0 from
  mpmath too), is subnormal (fewer than 53 significant bits), is NaN, is flagged unreliable by the
  kernel, or one of its parameters is not a normal float64 (``1e-400`` would be read as 0). Those
  points are marked in ``SweepResult.log_domain``; their ``log_values`` (natural log at 20 digits)
  are authoritative, so a positive bound always has a finite log and is never reported as 0.

The crossover of two bounds along one parameter (RDP or (epsilon, delta)) is :mod:`dptheory.evaluate.crossover`.
"""

from __future__ import annotations

import itertools
import math
import numbers
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, TypeAlias

import mpmath
import numpy as np

from dptheory.core.conditions import RELATIONS, Status
from dptheory.core.errors import ConditionViolated, DPTheoryError, NumericalFailure
from dptheory.core.evaluator import GUARD_DIGITS
from dptheory.core.memory import MemoryEstimate
from dptheory.core.notation import format_rational, parse_exact, rational_to_float

if TYPE_CHECKING:
    from dptheory.core.theorem import Theorem
else:  # a Theorem or a theorem read from the statement cache (dptheory.core.snapshot): the same numeric face
    Theorem: TypeAlias = Any

_RANGE = re.compile(r"^\s*(.+?)\s*\.\.\s*([^:]+?)\s*(?::\s*(\S+))?\s*$")
TINY_NORMAL = float(np.finfo(np.float64).tiny)  # smallest normal float64; below it digits are lost
#: float64 condition screen: sides closer than this (relative) are decided exactly
TIE_RTOL = 1e-7
#: digits of the mpmath recomputation of points float64 cannot carry
LOG_DPS = 20
#: most digits spent on a value e^X with a huge |X| (its mantissa needs log10 |X| extra digits)
MAX_LOG_DPS = 1000
#: most points a range may expand to (a typo such as 1..1e9 is refused rather than allocated)
MAX_RANGE_POINTS = 1_000_000


def parse_values(name: str, spec: Any, *, integer: bool) -> list[Any]:
    """Parse ``1..200`` (integers, step 1), ``1..200:5`` (step 5), ``0.01..0.1:10`` (10 points,
    log-spaced when both ends are positive and span a factor > 10, else linear), ``10,15,20``, or a
    single value. Returns exact values (int or str) so nothing is rounded before parsing. An integer
    range covers the integers in ``[lo, hi]`` (``1.5..3`` is 2, 3)."""
    if not isinstance(spec, str):
        return [spec]
    spec = spec.strip()
    if "," in spec:
        vals = [v.strip() for v in spec.split(",") if v.strip()]
        if not vals:
            raise DPTheoryError(f"no values for {name} in {spec!r} (write e.g. {name}=10,15,20)")
        return vals
    m = _RANGE.match(spec)
    if not m:
        return [spec]
    lo_s, hi_s, step = m.group(1), m.group(2), m.group(3)
    lo = parse_exact(lo_s, key="sweep", name=name)
    hi = parse_exact(hi_s, key="sweep", name=name)
    if hi < lo:
        raise DPTheoryError(f"sweep range for {name} is empty: {spec}")
    st = None
    if step is not None:
        if not re.fullmatch(r"\d+", step) or int(step) < 1:
            what = "the step" if integer else "the number of points"
            raise DPTheoryError(
                f"sweep range for {name}: {what} after ':' must be a whole number >= 1, got {step!r} "
                f"(e.g. {name}=1..200:5)"
            )
        st = int(step)
    if integer:
        a, b = math.ceil(lo), math.floor(hi)
        st = st or 1
        count = (b - a) // st + 1 if b >= a else 0
        if count <= 0:
            raise DPTheoryError(f"sweep range for {name} holds no whole number: {spec}")
        if count > MAX_RANGE_POINTS:
            raise DPTheoryError(f"sweep range for {name} has {count} points (at most {MAX_RANGE_POINTS}): {spec}")
        return list(range(a, b + 1, st))
    npts = st or 50
    if npts > MAX_RANGE_POINTS:
        raise DPTheoryError(f"sweep range for {name} asks for {npts} points (at most {MAX_RANGE_POINTS}): {spec}")
    lo_f, hi_f = rational_to_float(lo), rational_to_float(hi)
    if not (math.isfinite(lo_f) and math.isfinite(hi_f)):
        raise DPTheoryError(f"sweep range for {name} is beyond float64 ({spec}); list the values instead")
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
        values: float64 array of shape ``[len(axis) for axis in axes]``; NaN at invalid points. Where
            ``log_domain`` is set this is the float64 rounding of the mpmath value, which is ``inf``,
            ``0`` or subnormal when the value is beyond float64: read ``log_values`` (or
            :meth:`text`) there.
        log_values: natural log of the values: finite wherever the bound is positive and finite (unless
            the log itself is beyond float64, as for ``exp(-1e400)``: then ``-inf`` or ``inf``, and
            :meth:`text` still shows the value), ``-inf`` where the value is exactly 0, NaN where it is
            negative or the point invalid.
        valid: True where every condition holds (always all True unless ``skip_invalid``).
        log_domain: True where the point was recomputed with mpmath (at 20 digits) because float64
            could not carry it (overflow, underflow, subnormal, NaN, a kernel flag, or a parameter
            that is not a normal float64); False where the float64 kernel's value is used.
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
    log_domain: np.ndarray | None = None
    mp_text: dict[tuple[int, ...], str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.log_domain is None:
            self.log_domain = np.zeros(np.shape(self.values), dtype=bool)

    def computed(self, idx: tuple[int, ...]) -> str:
        """``"float64"`` or ``"log"`` (recomputed with mpmath; see ``log_domain``) at a grid index."""
        assert self.log_domain is not None
        return "log" if bool(self.log_domain[idx]) else "float64"

    def text(self, idx: tuple[int, ...], digits: int = 8) -> str:
        """The value at a grid index as a decimal string (never 0 for a positive value beyond float64).

        Float64 points print their float; log-domain points print the mpmath value, so
        ``1.7182818e-340`` is shown as such rather than as the float64 underflow ``0``. Invalid
        points give ``""``.
        """
        idx = tuple(idx)
        if not bool(self.valid[idx]):
            return ""
        if idx in self.mp_text:
            text = self.mp_text[idx]
            with mpmath.workdps(max(digits, 15)):
                if text.startswith("exp("):  # only the log is known to these digits
                    return f"exp({mpmath.nstr(mpmath.mpf(text[4:-1]), digits)})"
                return mpmath.nstr(mpmath.mpf(text), digits)
        return f"{float(self.values[idx]):.{digits}g}"

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

    def beyond_float64(self, idx: tuple[int, ...]) -> bool:
        """True where the value is not held by ``values`` (overflow, underflow to 0, subnormal)."""
        assert self.log_domain is not None
        if not bool(self.log_domain[idx]):
            return False
        v, lv = float(self.values[idx]), float(self.log_values[idx])
        if v == 0.0:
            return lv != -math.inf
        return not (math.isfinite(v) and abs(v) >= TINY_NORMAL) and not math.isnan(v)

    def rows(self) -> list[dict[str, Any]]:
        """One dict per grid point: the swept values, ``value`` (a float where float64 holds it, else the
        decimal string of :meth:`text` at 17 digits), ``log_value``, ``valid`` and ``computed``."""
        out = []
        for idx in itertools.product(*(range(len(a)) for a in self.axes)):
            row: dict[str, Any] = {n: float(self.axes[i][idx[i]]) for i, n in enumerate(self.names)}
            row["value"] = self.text(idx, 17) if self.beyond_float64(idx) else float(self.values[idx])
            row["log_value"] = float(self.log_values[idx])
            row["valid"] = bool(self.valid[idx])
            row["computed"] = self.computed(idx)
            out.append(row)
        return out


# ----------------------------------------------------------------------------- conditions, vectorised


class _Grid:
    """Exact and float64 values of a Cartesian grid, and the exact point at an index."""

    def __init__(
        self, thm: Theorem, names: list[str], exact_axes: list[list[Fraction]], exact_fixed: dict[str, Fraction]
    ) -> None:
        self.thm = thm
        self.names = names
        self.exact_axes = exact_axes
        self.exact_fixed = exact_fixed
        self.shape = tuple(len(a) for a in exact_axes)
        self.axes = [np.array([rational_to_float(v) for v in a]) for a in exact_axes]
        mesh = np.meshgrid(*self.axes, indexing="ij") if names else []
        self.arrays: dict[str, np.ndarray] = dict(zip(names, mesh, strict=True))
        for p, v in exact_fixed.items():
            self.arrays[p] = np.full(self.shape, rational_to_float(v))
        # a parameter float64 cannot hold to full precision (0 for 1e-400, inf for 1e400, subnormal)
        self.float_ok = np.ones(self.shape, dtype=bool)
        for i, a in enumerate(exact_axes):
            ok = np.array([_normal_float(v) for v in a], dtype=bool)
            self.float_ok &= ok.reshape([-1 if j == i else 1 for j in range(len(self.shape))])
        if not all(_normal_float(v) for v in exact_fixed.values()):
            self.float_ok[...] = False

    def point(self, idx: tuple[int, ...]) -> dict[str, Fraction]:
        return {**self.exact_fixed, **{n: self.exact_axes[i][idx[i]] for i, n in enumerate(self.names)}}

    def exact_of(self, name: str) -> list[Fraction] | Fraction:
        if name in self.exact_fixed:
            return self.exact_fixed[name]
        return self.exact_axes[self.names.index(name)]


def _normal_float(v: numbers.Rational) -> bool:
    f = rational_to_float(v)
    return (f == 0.0 and v == 0) or (math.isfinite(f) and abs(f) >= TINY_NORMAL)


def _screen(grid: _Grid) -> np.ndarray:
    """Validity of every grid point: float64 where the sides of a condition are well apart, exact otherwise."""
    thm = grid.thm
    valid = np.ones(grid.shape, dtype=bool)
    for cond in (*thm.domain_checks, *thm.condition_checks):
        name = cond.integrality
        if name is not None:
            vals = grid.exact_of(name)
            if isinstance(vals, list):
                ok = np.array([v.denominator == 1 for v in vals], dtype=bool)
                i = grid.names.index(name)
                valid &= ok.reshape([-1 if j == i else 1 for j in range(len(grid.shape))])
            elif vals.denominator != 1:
                valid[...] = False
            continue
        sides = cond.np_sides(grid.arrays)
        if sides is None:  # not one relation: decided exactly at every point
            holds = np.ones(grid.shape, dtype=bool)
            tie = valid.copy()
        else:
            with np.errstate(all="ignore"):
                lhs = np.broadcast_to(np.asarray(sides[0], dtype=np.float64), grid.shape)
                rhs = np.broadcast_to(np.asarray(sides[1], dtype=np.float64), grid.shape)
                holds = np.asarray(RELATIONS[cond.code.relation](lhs, rhs), dtype=bool)
                tie = ~(np.abs(lhs - rhs) > TIE_RTOL * np.maximum(np.abs(lhs), np.abs(rhs)))  # NaN/inf: a tie
        tie &= valid  # a point already invalid needs no further decision
        tie |= valid & ~grid.float_ok  # a parameter float64 cannot hold: decide exactly
        holds = np.where(tie, True, holds)
        if tie.any():
            # decide once per distinct combination of the swept values the condition involves
            names = [p for p in thm.params if p in cond.names]
            axes = [i for i, n in enumerate(grid.names) if n in names]
            sub_shape = tuple(grid.shape[i] for i in axes)
            decided = np.ones(sub_shape, dtype=bool)
            combos = np.unique(np.stack([np.nonzero(tie)[i] for i in axes], axis=1), axis=0) if axes else [()]
            for combo in combos:
                pt = dict(grid.exact_fixed)
                for i, c in zip(axes, combo, strict=True):
                    pt[grid.names[i]] = grid.exact_axes[i][int(c)]
                r = cond.decide({n: pt[n] for n in names})
                decided[tuple(int(c) for c in combo)] = r.status is not Status.VIOLATED  # undecided: no violation
            full = decided.reshape([grid.shape[i] if i in axes else 1 for i in range(len(grid.shape))])
            holds = np.where(tie, np.broadcast_to(full, grid.shape), holds)
        valid &= holds
    return valid


def _exact_valid(thm: Theorem, pt: Mapping[str, numbers.Rational]) -> bool:
    for cond in (*thm.domain_checks, *thm.condition_checks):
        if cond.decide({n: pt[n] for n in cond.names}).status is Status.VIOLATED:
            return False
    return True


# ----------------------------------------------------------------------------- sweep


def grid_memory(thm: Theorem, sizes: Sequence[int]) -> MemoryEstimate:
    """The bytes :func:`sweep` allocates on a grid with ``sizes`` values per axis, before anything is allocated.

    Per grid point: one float64 array per parameter (the mesh and the fixed values) and its selection for the
    float64 kernel, the values and their logarithms, the kernel's result and two temporaries (float64), the
    condition screen's two sides and their difference (float64), and five flag arrays (bool).
    """
    per = {"parameter arrays": 2 * 8 * len(thm.params), "values": 5 * 8, "condition screen": 3 * 8, "flags": 5}
    return MemoryEstimate(
        what=thm.key,
        units=math.prod(int(n) for n in sizes),
        unit="grid points",
        per_unit=per,
        advice="use fewer values per axis",
    )


def _valid_points(thm: Theorem, g: _Grid, exact_axes: list[list[Fraction]], skip_invalid: bool) -> np.ndarray:
    """The points of the grid that satisfy every condition (float64 screen, ties and corners exactly); an invalid
    point raises, naming the condition, unless ``skip_invalid``."""
    valid = _screen(g)
    if not valid.all() and not skip_invalid:
        for idx in zip(*np.nonzero(~valid), strict=True):
            thm.check(g.point(idx), raise_on_violation=True)  # raises, naming the condition
            valid[idx] = True  # pragma: no cover - the exact check contradicts a decided float64 screen
    # the corners of the grid, exactly (a last guard against a float64 screen that errs away from ties)
    for corner in set(itertools.product(*[(0, len(a) - 1) for a in exact_axes])):
        if valid[corner]:
            pt = g.point(corner)
            if skip_invalid:
                valid[corner] = _exact_valid(thm, pt)
            else:
                thm.check(pt, raise_on_violation=True)
    return valid


def sweep(
    thm: Theorem,
    grid: Mapping[str, Sequence[Any]],
    fixed: Mapping[str, Any],
    *,
    skip_invalid: bool = False,
    check: bool = True,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: bool = False,
) -> SweepResult:
    """Evaluate ``thm`` on the Cartesian grid ``grid`` with the other parameters ``fixed``.

    The points beyond float64 (evaluated one by one with mpmath) may run on Dask: a local cluster of
    ``workers`` processes or the cluster at ``scheduler`` (:func:`dptheory.evaluate.parallel.run_tasks`);
    each point is computed alone, so the result is the same.

    Names in ``grid`` or ``fixed`` that the theorem does not take are ignored (so one set of values
    can serve several theorems). With ``check=False`` no condition is checked and every point is
    evaluated (the domain must still hold for the kernels to be defined).
    """
    names = [n for n in grid if n in thm.params]
    missing = [p for p in thm.params if p not in grid and p not in fixed]
    if missing:
        raise DPTheoryError(f"{thm.key}: sweep needs values for {', '.join(missing)}")
    lists = {}
    for n in names:
        try:
            lists[n] = [] if isinstance(grid[n], (str, bytes)) else list(grid[n])
        except TypeError:
            lists[n] = []
        if not lists[n]:
            raise DPTheoryError(f"{thm.key}: the grid of {n} must be a non-empty list of values, got {grid[n]!r}")
    grid_memory(thm, [len(lists[n]) for n in names]).check()
    exact_axes = [[parse_exact(v, key=thm.key, name=n) for v in lists[n]] for n in names]
    exact_fixed = {p: parse_exact(fixed[p], key=thm.key, name=p) for p in thm.params if p not in names}
    g = _Grid(thm, names, exact_axes, exact_fixed)
    shape = g.shape
    valid = _valid_points(thm, g, exact_axes, skip_invalid) if check else np.ones(shape, dtype=bool)
    values = np.full(shape, np.nan)
    log_values = np.full(shape, np.nan)
    log_domain = np.zeros(shape, dtype=bool)
    need_mp = np.zeros(shape, dtype=bool)
    notes: list[str] = []
    sel = np.nonzero(valid & g.float_ok)
    need_mp |= valid & ~g.float_ok
    if sel[0].size and thm.kernels().np is not None:
        sub = {p: g.arrays[p][sel] for p in thm.params}
        try:
            vals, unreliable = _run_np(thm, sub)
        except (ArithmeticError, ValueError, TypeError, IndexError, NotImplementedError) as exc:
            # a float64 kernel that refuses a valid point is a kernel bug; the mpmath kernel still decides
            notes.append(f"float64 kernel failed ({type(exc).__name__}: {exc}); every point computed with mpmath")
            need_mp[sel] = True
        else:
            with np.errstate(all="ignore"):
                beyond = ~np.isfinite(vals) | (np.abs(vals) < TINY_NORMAL) | unreliable
            values[sel] = vals
            need_mp[sel] |= beyond
    elif sel[0].size:
        need_mp[sel] = True
    with np.errstate(divide="ignore", invalid="ignore"):
        log_values = np.where(valid & ~need_mp, np.log(values), np.nan)
    mp_text: dict[tuple[int, ...], str] = {}
    mp_idx = [tuple(int(i) for i in idx) for idx in zip(*np.nonzero(need_mp), strict=True)]
    for idx, (v, text) in zip(
        mp_idx, _mp_points(thm, [g.point(idx) for idx in mp_idx], workers, scheduler, progress), strict=True
    ):
        values[idx] = float(v)
        log_values[idx] = mp_log(v)
        log_domain[idx] = True
        mp_text[idx] = text
    mp_points = int(need_mp.sum())
    if mp_points and thm.kernels().np is None:
        notes.append(f"no float64 kernel: {mp_points} points computed with mpmath")
    elif mp_points:
        notes.append(f"{mp_points} points beyond float64 recomputed with mpmath (see log_domain and log_values)")
    if not valid.all():
        notes.append(f"{int((~valid).sum())} points violate a condition and were skipped")
    return SweepResult(
        thm.key,
        names,
        g.axes,
        {p: format_rational(v) for p, v in exact_fixed.items()},
        values,
        log_values,
        valid,
        str(thm.unit),
        str(thm.direction),
        mp_points,
        notes,
        log_domain,
        mp_text,
    )


def _run_np(thm: Theorem, arrays: Mapping[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The float64 kernel on 1-D arrays: (values, unreliable) without raising on NaN (NaN is recomputed)."""
    kernel = thm.kernels().np
    assert kernel is not None
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        raw = kernel(arrays)
    n = len(next(iter(arrays.values())))
    if isinstance(raw, tuple):
        vals = np.broadcast_to(np.asarray(raw[0], dtype=np.float64), (n,)).copy()
        unreliable = np.broadcast_to(np.asarray(raw[1], dtype=bool), (n,)).copy()
    else:
        vals = np.broadcast_to(np.asarray(raw, dtype=np.float64), (n,)).copy()
        unreliable = np.zeros(n, dtype=bool)
    return vals, unreliable


def _mp_points(
    thm: Theorem, points: list[dict[str, Fraction]], workers: int | None, scheduler: str | None, progress: bool
) -> list[tuple[mpmath.mpf, str]]:
    """:func:`_mp_point` at every point, in order: in process, or on Dask (a registered theorem travels by key)."""
    from dptheory.evaluate.parallel import run_tasks, uses_dask

    ref: Theorem | str = thm
    if uses_dask(workers, scheduler) and points:
        from dptheory.core.registry import REGISTRY

        try:
            if REGISTRY.get(thm.key) is thm:
                ref = thm.key
        except DPTheoryError:
            pass
    return run_tasks(
        _mp_task,
        [(ref, pt) for pt in points],
        workers=workers if points else None,
        scheduler=scheduler if points else None,
        progress=progress,
        desc=f"{thm.key} (mpmath)",
    )


def _mp_task(task: tuple[Theorem | str, dict[str, Fraction]]) -> tuple[mpmath.mpf, str]:
    ref, pt = task
    if isinstance(ref, str):
        from dptheory.core.registry import REGISTRY

        ref = REGISTRY.get(ref)
    return _mp_point(ref, pt)


def _mp_point(thm: Theorem, pt: Mapping[str, numbers.Rational]) -> tuple[mpmath.mpf, str]:
    """The value at an exact point with mpmath, and its text (:meth:`SweepResult.text`).

    A value ``e^X`` has an exponent whose rounding (relative ``10^-dps``) moves the mantissa by
    ``|X| 10^-dps``: when ``|X|`` is large the point is recomputed with ``log10 |X|`` more digits, so the
    digits shown are correct. Beyond ``MAX_LOG_DPS`` digits only the log is kept (text ``exp(X)``).
    The conditions are decided already (or not asked for), so the kernel runs directly.
    """
    v = thm._run_mp(thm.kernels().mp, pt, LOG_DPS)
    if not mpmath.isfinite(v) or v == 0:
        return v, mpmath.nstr(v, LOG_DPS)
    with mpmath.workdps(15):
        size = abs(mpmath.log(abs(v)))
    # the kernel ran with GUARD_DIGITS guard digits: they cover an exponent of up to ~10^(GUARD_DIGITS - 3)
    extra = math.ceil(float(mpmath.log10(size))) - GUARD_DIGITS + 3 if size > 10 else 0
    if extra <= 0:
        return v, mpmath.nstr(v, LOG_DPS)
    if LOG_DPS + extra > MAX_LOG_DPS:
        with mpmath.workdps(LOG_DPS):
            return v, f"exp({mpmath.nstr(mpmath.log(v), LOG_DPS)})"
    v = thm._run_mp(thm.kernels().mp, pt, LOG_DPS + extra)
    with mpmath.workdps(LOG_DPS):
        return +v, mpmath.nstr(v, LOG_DPS)


def mp_log(v: mpmath.mpf) -> float:
    if mpmath.isnan(v) or v < 0:
        return math.nan
    if v == 0:
        return -math.inf
    if mpmath.isinf(v):
        return math.inf
    with mpmath.workdps(LOG_DPS):
        return float(mpmath.log(v))


__all__ = [
    "TINY_NORMAL",
    "ConditionViolated",
    "NumericalFailure",
    "SweepResult",
    "mp_log",
    "parse_values",
    "sweep",
]
