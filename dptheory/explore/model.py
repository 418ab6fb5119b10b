"""The explorer's model: a parameter point in, values, conditions, curves, crossovers and (eps, delta) out.

Pure Python (no panel, no bokeh), so every number the page shows is unit-testable without a browser.
Nothing here computes a bound: values come from :meth:`Theorem.evaluate` through
:class:`dptheory.probe.Probe` (mpmath, the same call as ``dptheory eval --no-check``), curves from
:func:`dptheory.evaluate.sweep.sweep` (float64 kernels, mpmath beyond float64), crossovers from
:meth:`Probe.crossovers` (:func:`dptheory.evaluate.crossover.crossover`, confirmed at ``CROSSOVER_DPS`` digits),
(eps, delta) from :func:`dptheory.privacy.conversion.convert` (order optimised).

Ranges of the controls are the notation table's sampling ranges (``Param.sample``, narrowed by a
theorem's own ``Theorem.sample``; for a parameter shared by several theorems, the intersection).
They are not conditions: a value outside is still evaluated, and the conditions decide validity.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import mpmath
import numpy as np

from dptheory.core.conditions import Status
from dptheory.core.errors import DPTheoryError, InvalidParameter
from dptheory.core.notation import format_rational, parse_value
from dptheory.core.registry import REGISTRY
from dptheory.core.theorem import Theorem
from dptheory.probe import Probe


def _declared() -> list[Any]:
    """The papers' ``[explorer]`` declarations (:func:`dptheory.report.config.explorer_defaults`)."""
    from dptheory.report.config import explorer_defaults

    return explorer_defaults()


#: the theorems shown when none is named: the first paper's declaration (``[explorer] keys`` in its report.toml)
DEFAULT_KEYS: tuple[str, ...] = next((d.keys for d in _declared() if d.keys), ())
READOUT_DPS = 12  # the readout is `dptheory eval KEY ... --dps 12`
CROSSOVER_DPS = 30  # crossovers are confirmed at this many digits (both neighbours)
DEFAULT_DELTA = "1e-5"
MAX_AXIS_POINTS = 2000  # integer axes with more values are subsampled (the crossover still scans every integer)
REAL_AXIS_POINTS = 200
MAX_STRIP_POINTS = 2000
CACHE_SIZE = 256  # memoised results (curves, crossovers, (eps, delta), validity strips) per page


def theorem(key: str) -> Theorem:
    """The registered theorem ``key``; a claim or an unknown key is a one-line :class:`DPTheoryError`."""
    obj = REGISTRY.get(key)
    if not isinstance(obj, Theorem):
        raise DPTheoryError(f"{key} is a claim, not a theorem; the explorer plots theorems (see `dptheory list`)")
    return obj


# ----------------------------------------------------------------------------- controls
@dataclass(frozen=True)
class Control:
    """One parameter control, shared by every selected theorem that takes the parameter.

    Attributes:
        name: ASCII name (``eta``).
        latex: the paper's symbol in LaTeX.
        meaning: one-line meaning (from the notation table).
        integer: integer domain (slider steps by 1).
        lo, hi: slider range (sampling range of the notation table, see the module docstring).
        log: log-scaled slider (the sampling range says log and the parameter is real).
        keys: the selected theorems that take the parameter.
    """

    name: str
    latex: str
    meaning: str
    integer: bool
    lo: float
    hi: float
    log: bool
    keys: tuple[str, ...]

    def options(self) -> list[str]:
        """Exact decimal values at evenly spaced slider positions.

        Integers: every integer of the range (subsampled evenly above ``MAX_STRIP_POINTS``).
        Log-scaled reals: the two-significant-digit values 1.0, 1.1, ..., 9.9 times powers of ten
        in the range (90 per decade). Linear reals: 201 evenly spaced values, 6 significant digits.
        """
        if self.integer:
            lo, hi = math.ceil(self.lo), math.floor(self.hi)
            if hi - lo + 1 <= MAX_STRIP_POINTS:
                return [str(i) for i in range(lo, hi + 1)]
            return [str(int(np.rint(x))) for x in np.linspace(lo, hi, MAX_STRIP_POINTS)]
        if self.log and self.lo > 0:
            out: list[str] = []
            for e in range(math.floor(math.log10(self.lo)) - 1, math.ceil(math.log10(self.hi)) + 1):
                for m in range(10, 100):
                    d = Decimal(m).scaleb(e - 1)
                    if Decimal(repr(self.lo)) <= d <= Decimal(repr(self.hi)):
                        out.append(_plain(d))
            return out
        return [f"{x:.6g}" for x in np.linspace(self.lo, self.hi, 201)]


def _plain(d: Decimal) -> str:
    """A Decimal without exponent or trailing zeros (``0.020`` -> ``0.02``, ``1E+2`` -> ``100``)."""
    s = format(d.normalize(), "f")
    return s


def _sample(thm: Theorem, name: str) -> tuple[float, float, bool]:
    lo, hi, log = thm.sample.get(name, thm.notation[name].sample)
    return float(lo), float(hi), bool(log)


def build_controls(theorems: Sequence[Theorem]) -> list[Control]:
    """One control per parameter, in order of first appearance; shared parameters get one control."""
    order: list[str] = []
    owners: dict[str, list[Theorem]] = {}
    for t in theorems:
        for p in t.params:
            if p not in owners:
                order.append(p)
                owners[p] = []
            owners[p].append(t)
    out = []
    for p in order:
        ts = owners[p]
        par = ts[0].notation[p]
        ranges = [_sample(t, p) for t in ts]
        lo, hi = max(r[0] for r in ranges), min(r[1] for r in ranges)
        if lo >= hi:  # disjoint ranges: the union
            lo, hi = min(r[0] for r in ranges), max(r[1] for r in ranges)
        integer = par.domain.is_integer
        log = all(r[2] for r in ranges) and not integer and lo > 0
        out.append(Control(p, par.latex, par.meaning, integer, lo, hi, log, tuple(t.key for t in ts)))
    return out


# ----------------------------------------------------------------------------- results
@dataclass(frozen=True)
class ConditionRow:
    """One condition at the current point (``dptheory eval`` prints the same four columns)."""

    text: str
    status: str  # holds / violated / undecided
    lhs: str
    rhs: str
    gloss: str
    kind: str


@dataclass(frozen=True)
class Readout:
    """One theorem at the current point.

    ``value`` is ``mpmath.nstr(value, READOUT_DPS, strip_zeros=False)``: the digits
    ``dptheory eval KEY ... --dps 12`` prints (it needs ``--no-check`` when a condition is violated,
    then the value is not a guarantee). ``error`` is set instead when the formula is undefined at the
    point (a domain violation, a numerical failure) and names the cause.
    """

    key: str
    title: str
    citation: str
    value: str | None
    unit: str
    direction: str
    quantity: str
    conditions: tuple[ConditionRow, ...] = ()
    error: str | None = None

    @property
    def violated(self) -> list[ConditionRow]:
        return [c for c in self.conditions if c.status == Status.VIOLATED.value]

    @property
    def valid(self) -> bool:
        return self.error is None and not self.violated


@dataclass
class Curves:
    """Bounds along one parameter (float64; NaN where a condition fails or the value is beyond float64)."""

    axis: str
    x: np.ndarray
    y: dict[str, np.ndarray]
    valid: dict[str, np.ndarray]
    errors: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def invalid_spans(self) -> list[tuple[float, float, tuple[str, ...]]]:
        """Runs of grid points where some theorem's conditions fail: (x_from, x_to, keys that fail)."""
        if not self.valid:
            return []
        bad = [tuple(k for k, m in self.valid.items() if not m[i]) for i in range(len(self.x))]
        spans: list[tuple[float, float, tuple[str, ...]]] = []
        i = 0
        while i < len(bad):
            if not bad[i]:
                i += 1
                continue
            j = i
            while j + 1 < len(bad) and bad[j + 1] == bad[i]:
                j += 1
            spans.append((float(self.x[i]), float(self.x[j]), bad[i]))
            i = j + 1
        return spans


@dataclass(frozen=True)
class Segment:
    """A run of slider positions with the same validity: which theorems' conditions fail there, and which."""

    first: int  # index into Control.options()
    last: int
    lo: str
    hi: str
    failing: tuple[tuple[str, str], ...]  # (theorem key, condition text) violated at the run's middle

    @property
    def valid(self) -> bool:
        return not self.failing


@dataclass(frozen=True)
class EpsDelta:
    """(epsilon, delta)-DP from one RDP bound at the current point, order alpha optimised."""

    key: str
    delta: str
    epsilon: str | None
    order: str | None
    rdp_at_order: str | None
    at_edge: bool = False
    searched: str = ""
    error: str | None = None


# ----------------------------------------------------------------------------- the model
class Explorer:
    """State of the explorer page: selected theorems, the parameter point, the plot axis, delta.

    Args:
        keys: theorem keys (default: the Ye & Shokri comparison of Figure 2).
        values: parameter values (exact: strings or ints); missing ones come from :func:`default_values`.
    """

    def __init__(self, keys: Sequence[str] = (), values: Mapping[str, Any] | None = None) -> None:
        keys = tuple(keys) or DEFAULT_KEYS
        if not keys:
            raise DPTheoryError(
                "explore: no theorem named and no paper declares default ones ([explorer] keys in a report.toml); "
                "name theorem keys, e.g. `dptheory explore rdp.gaussian` (see `dptheory list`)"
            )
        if len(set(keys)) != len(keys):
            raise DPTheoryError(f"explore: a theorem is given twice in {', '.join(keys)}")
        self.theorems: list[Theorem] = [theorem(k) for k in keys]
        self.keys = keys
        self.controls = build_controls(self.theorems)
        self.control = {c.name: c for c in self.controls}
        self.values: dict[str, str] = {}
        for name, v in default_values(self.theorems).items():
            self.values[name] = self._validated(name, v)
        for name, v in (values or {}).items():
            self.set(name, v)
        self.axis = "K" if "K" in self.control else ("alpha" if "alpha" in self.control else self.controls[0].name)
        self.axis_lo, self.axis_hi = self.default_range(self.axis)
        declared = next((d.baseline for d in _declared() if d.baseline in keys), None)
        self.baseline: str | None = declared or (keys[-1] if len(keys) > 1 else None)
        self.delta = DEFAULT_DELTA
        self._cache: dict[tuple[Any, ...], Any] = {}

    def snapshot(self) -> Explorer:
        """A copy of the state (values, axis, delta) sharing the cache, for a worker thread."""
        other = copy.copy(self)
        other.values = dict(self.values)
        return other

    def _memo(self, key: tuple[Any, ...], compute: Callable[[], Any]) -> Any:
        """Results depend only on the state in ``key``: recompute only what a change affects."""
        if key in self._cache:
            return self._cache[key]
        value = compute()
        if len(self._cache) >= CACHE_SIZE:
            self._cache.pop(next(iter(self._cache)))
        self._cache[key] = value
        return value

    def _state(self, *, without: str | None = None) -> tuple[tuple[str, str], ...]:
        return tuple(sorted((k, v) for k, v in self.values.items() if k != without))

    # -------------------------------------------------------------- state
    def _validated(self, name: str, raw: Any) -> str:
        if name not in self.control:
            raise DPTheoryError(
                f"explore: no selected theorem takes {name!r}; parameters: {', '.join(self.control)}"
            )
        x = parse_value(raw, key="explore", name=name)
        if self.control[name].integer and x.q != 1:
            raise InvalidParameter(key="explore", name=name, value=raw, reason="must be a whole number")
        return format_rational(x)

    def set(self, name: str, raw: Any) -> str:
        """Set one parameter (exact; raises :class:`InvalidParameter` naming what is wrong). Returns the value."""
        self.values[name] = self._validated(name, raw)
        return self.values[name]

    def set_axis(self, axis: str, lo: Any = None, hi: Any = None) -> None:
        """Choose the plotted parameter and its range (default: the control's range; K: 1..200, Figure 2)."""
        if axis not in self.control:
            raise DPTheoryError(f"explore: cannot plot against {axis!r}; parameters: {', '.join(self.control)}")
        dlo, dhi = self.default_range(axis)
        lo_s = dlo if lo is None else self._validated(axis, lo)
        hi_s = dhi if hi is None else self._validated(axis, hi)
        if parse_value(lo_s, key="explore", name=axis) >= parse_value(hi_s, key="explore", name=axis):
            raise DPTheoryError(f"explore: plot range of {axis} is empty: from {lo_s} to {hi_s}")
        self.axis, self.axis_lo, self.axis_hi = axis, lo_s, hi_s

    def set_delta(self, raw: Any) -> str:
        d = parse_value(raw, key="explore", name="delta")
        if not 0 < d < 1:
            raise InvalidParameter(key="explore", name="delta", value=raw, reason="must be in (0, 1)")
        self.delta = str(raw).strip()
        return self.delta

    def default_range(self, axis: str) -> tuple[str, str]:
        c = self.control[axis]
        owner = next(t for t in self.theorems if axis in t.params)
        n_lo, n_hi, _ = owner.notation[axis].sample
        paper = owner.key.split(".", 1)[0]
        for d in _declared():
            if axis in d.ranges and any(k.split(".", 1)[0] == paper for k in d.keys):
                lo, hi = d.ranges[axis]  # declared by the paper (e.g. the epochs of its figures)
                if n_lo <= float(lo) and float(hi) <= n_hi:
                    return lo, hi
        if c.integer:
            return str(math.ceil(c.lo)), str(math.floor(c.hi))
        return f"{c.lo:g}", f"{c.hi:g}"

    def own(self, thm: Theorem) -> dict[str, str]:
        return {p: self.values[p] for p in thm.params}

    def command(self, key: str) -> str:
        """The `dptheory eval` command line that prints the readout's number."""
        t = theorem(key)
        args = " ".join(f"{p}={self.values[p]}" for p in t.params)
        return f"dptheory eval {key} {args} --dps {READOUT_DPS}"

    # -------------------------------------------------------------- values
    def readouts(self) -> list[Readout]:
        return [self.readout(t.key) for t in self.theorems]

    def readout(self, key: str) -> Readout:
        """The bound at the current point with every condition (violations listed, not raised)."""
        t = theorem(key)
        base = dict(key=t.key, title=t.title, citation=t.citation.short(), unit=str(t.unit),
                    direction=str(t.direction), quantity=t.quantity)
        try:
            v = Probe(key, dps=READOUT_DPS, **self.own(t)).bound
        except DPTheoryError as exc:
            conds: tuple[ConditionRow, ...] = ()
            try:
                conds = tuple(_row(c) for c in t.check(self.own(t)) if c.condition.kind != "domain")
            except DPTheoryError:
                pass
            return Readout(value=None, conditions=conds, error=str(exc), **base)
        rows = tuple(_row(c) for c in v.conditions if c.condition.kind != "domain")
        return Readout(value=mpmath.nstr(v.value, READOUT_DPS, strip_zeros=False), conditions=rows, **base)

    # -------------------------------------------------------------- curves
    def axis_grid(self, axis: str | None = None, lo: Any = None, hi: Any = None) -> list[str]:
        """Exact grid along the axis: every integer (subsampled past MAX_AXIS_POINTS); for a log-scaled real
        parameter the slider's two-significant-digit values in the range (at most 200 and the ends), else
        200 evenly spaced points (log-spaced over more than a decade)."""
        axis = axis or self.axis
        c = self.control[axis]
        lo_q = parse_value(self.axis_lo if lo is None else lo, key="explore", name=axis)
        hi_q = parse_value(self.axis_hi if hi is None else hi, key="explore", name=axis)
        if c.integer:
            a, b = -(-int(lo_q.p) // int(lo_q.q)), int(hi_q.p) // int(hi_q.q)  # ceiling, floor (exact)
            if b - a + 1 <= MAX_AXIS_POINTS:
                return [str(i) for i in range(a, b + 1)]
            xs = np.geomspace(a, b, MAX_AXIS_POINTS) if a > 0 else np.linspace(a, b, MAX_AXIS_POINTS)
            return [str(i) for i in sorted({int(np.rint(x)) for x in xs})]
        lo_f, hi_f = float(lo_q), float(hi_q)
        log = lo_f > 0 and (c.log or hi_f / lo_f > 10)
        if log:
            # the slider's two-significant-digit values: integer orders where the range allows, which
            # the float64 kernels evaluate fast (the composition baseline needs mpmath at fractional ones)
            wide = Control(c.name, c.latex, c.meaning, False, lo_f, hi_f, True, c.keys).options()
            inner = [v for v in wide if lo_q < parse_value(v, key="explore", name=axis) < hi_q]
            if len(inner) >= 8:
                step = max(1, -(-len(inner) // REAL_AXIS_POINTS))
                return [format_rational(lo_q), *inner[::step], format_rational(hi_q)]
        xs = np.geomspace(lo_f, hi_f, REAL_AXIS_POINTS) if log else np.linspace(lo_f, hi_f, REAL_AXIS_POINTS)
        return [format_rational(lo_q)] + [f"{x:.6g}" for x in xs[1:-1]] + [format_rational(hi_q)]

    def curves(self) -> Curves:
        """Every selected bound along the axis (float64 via :func:`dptheory.evaluate.sweep.sweep`)."""
        key = ("curves", self.axis, self.axis_lo, self.axis_hi, self._state(without=self.axis))
        result: Curves = self._memo(key, self._curves)
        return result

    def _curves(self) -> Curves:
        grid = self.axis_grid()
        x = np.array([float(parse_value(g, key="explore", name=self.axis)) for g in grid])
        out = Curves(self.axis, x, {}, {})
        for t in self.theorems:
            fixed = {p: v for p, v in self.own(t).items() if p != self.axis}
            try:
                vals, valid = self._line(t, grid, fixed, x.shape)
            except (DPTheoryError, NotImplementedError) as exc:
                out.errors[t.key] = str(exc)
                continue
            big = valid & ~np.isfinite(vals)
            if big.any():
                out.notes.append(f"{t.key}: {int(big.sum())} points beyond float64 are not drawn")
            vals[~valid | ~np.isfinite(vals)] = np.nan
            out.y[t.key] = vals
            out.valid[t.key] = valid
        return out

    def _line(self, t: Theorem, grid: list[str], fixed: dict[str, str],
              shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
        """:func:`dptheory.evaluate.sweep.sweep` along the axis, invalid points skipped (NaN)."""
        from dptheory.evaluate.sweep import sweep

        g = {self.axis: grid} if self.axis in t.params else {}
        if self._fails_everywhere(t):
            return np.full(shape, np.nan), np.zeros(shape, dtype=bool)
        try:
            r = sweep(t, g, fixed, skip_invalid=True)
            return (np.broadcast_to(np.asarray(r.values, dtype=float), shape).copy(),
                    np.broadcast_to(np.asarray(r.valid, dtype=bool), shape).copy())
        except (DPTheoryError, ValueError, ArithmeticError):
            # sweep hands the float64 kernel every grid point, and some kernels refuse a point outside
            # their conditions (the composition baseline at alpha = 1: ValueError) or return NaN there
            # (NumericalFailure): sweep again on the points the conditions' float64 screen accepts;
            # an error there (e.g. a domain violation at the current point) is the curve's error
            if not g:
                raise
        vals, valid = np.full(shape, np.nan), np.zeros(shape, dtype=bool)
        floats = {p: np.full(len(grid), float(parse_value(v, key="explore", name=p))) for p, v in fixed.items()}
        floats[self.axis] = np.array([float(parse_value(v, key="explore", name=self.axis)) for v in grid])
        keep = np.flatnonzero(t.check_np(floats))
        if keep.size:
            r = sweep(t, {self.axis: [grid[i] for i in keep]}, fixed, skip_invalid=True)
            vals[keep], valid[keep] = r.values, r.valid
        return vals, valid

    # -------------------------------------------------------------- crossovers
    def crossovers(self) -> list[tuple[str, Any]]:
        """For each theorem but the baseline: where it starts to stay below the baseline along the axis.

        Each entry is ``(key, CrossoverResult)`` or ``(key, message)`` (from :meth:`Probe.crossovers`).
        """
        key = ("crossovers", self.axis, self.axis_lo, self.axis_hi, self.baseline, self._state(without=self.axis))
        result: list[tuple[str, Any]] = self._memo(key, self._crossovers)
        return result

    def _crossovers(self) -> list[tuple[str, Any]]:
        if self.baseline is None:
            return []
        out: list[tuple[str, Any]] = []
        for t in self.theorems:
            if t.key == self.baseline:
                continue
            p = Probe(t.key, compare=[self.baseline], over=self.axis, start=self.axis_lo, stop=self.axis_hi,
                      dps=CROSSOVER_DPS, **self.values)
            ((_, res),) = p.crossovers()
            out.append((t.key, res))
        return out

    # -------------------------------------------------------------- (eps, delta)
    def epsilon_delta(self) -> list[EpsDelta]:
        """(eps, delta) at ``self.delta`` for every selected RDP bound (improved conversion, order optimised).

        The digits are those of ``dptheory convert KEY ... --delta D --dps 12``.
        """
        result: list[EpsDelta] = self._memo(("eps", self.delta, self._state(without="alpha")), self._epsilon_delta)
        return result

    def _epsilon_delta(self) -> list[EpsDelta]:
        from dptheory.privacy.conversion import convert

        out = []
        for t in self.theorems:
            if "alpha" not in t.params:
                out.append(EpsDelta(t.key, self.delta, None, None, None,
                                    error="no Renyi order alpha: not an RDP bound"))
                continue
            params = {p: v for p, v in self.own(t).items() if p != "alpha"}
            # a condition that does not involve alpha fails at every order: convert then reports
            # (+inf, delta) rather than the condition, so it is checked here first
            bad = self._violated_without_alpha(t)
            if bad:
                out.append(EpsDelta(t.key, self.delta, None, None, None,
                                    error=f"condition violated at every order: {bad}"))
                continue
            try:
                r = convert(t, params, delta=self.delta, dps=READOUT_DPS)
            except DPTheoryError as exc:
                out.append(EpsDelta(t.key, self.delta, None, None, None, error=str(exc)))
                continue
            if not mpmath.isfinite(r.epsilon):
                out.append(EpsDelta(t.key, self.delta, None, None, None,
                                    error=f"no finite epsilon over the searched orders ({r.orders_searched})"))
                continue
            out.append(EpsDelta(t.key, self.delta, mpmath.nstr(r.epsilon, READOUT_DPS), mpmath.nstr(r.order, 8),
                                mpmath.nstr(r.rdp_at_order, READOUT_DPS), r.at_edge, r.orders_searched))
        return out

    def _fails_everywhere(self, t: Theorem) -> bool:
        """A condition without the axis parameter fails at the current point: it fails along the whole
        axis (decided exactly once here, instead of at every grid point by the sweep)."""
        ax = t.notation.sym(self.axis) if self.axis in t.params else None
        try:
            res = t.check(self.own(t))
        except DPTheoryError:
            return ax is None
        return any(r.status is Status.VIOLATED and ax not in r.condition.symbols for r in res)

    def _violated_without_alpha(self, t: Theorem) -> str:
        alpha = t.notation.sym("alpha")
        try:
            res = t.check(self.own(t))
        except DPTheoryError as exc:
            return str(exc)
        return "; ".join(f"{r.text} ({r.condition.gloss}): lhs = {r.lhs}, rhs = {r.rhs}" for r in res
                         if r.status is Status.VIOLATED and alpha not in r.condition.symbols)

    # -------------------------------------------------------------- validity along a slider
    def validity(self, name: str, options: Sequence[str] | None = None) -> list[Segment]:
        """Where along the control's slider the selected theorems' conditions hold, the others fixed.

        ``options`` are the slider's positions (default :meth:`Control.options`), exact values.

        Screened in float64 (:meth:`Theorem.check_np`) at every slider position; the two positions
        around each change and the middle of each invalid run are decided exactly
        (:meth:`Theorem.check`), so every boundary drawn lies between two exactly-checked positions.
        """
        opts = tuple(options) if options is not None else tuple(self.control[name].options())
        result: list[Segment] = self._memo(("validity", name, opts, self._state(without=name)),
                                           lambda: self._validity(name, opts))
        return result

    def _validity(self, name: str, opts: Sequence[str]) -> list[Segment]:
        c = self.control[name]
        xs = np.array([float(parse_value(o, key="explore", name=name)) for o in opts])
        masks: dict[str, np.ndarray] = {}
        for key in c.keys:
            t = theorem(key)
            arrays = {p: (xs if p == name else np.full(xs.shape, float(parse_value(self.values[p], key="explore",
                                                                                       name=p))))
                      for p in t.params}
            ok = np.asarray(t.check_np(arrays), dtype=bool)
            for i in _edges(ok):
                ok[i] = self._holds(t, name, opts[i])
            masks[key] = ok
        bad = [tuple(k for k in c.keys if not masks[k][i]) for i in range(len(opts))]
        segs: list[Segment] = []
        for first, last in _runs(bad):
            failing: list[tuple[str, str]] = []
            mid = (first + last) // 2
            for key in bad[first]:
                t = theorem(key)
                try:
                    res = t.check({**self.own(t), name: opts[mid]})
                    failing.extend((key, r.text) for r in res if r.status is Status.VIOLATED)
                except DPTheoryError as exc:
                    failing.append((key, str(exc)))
            segs.append(Segment(first, last, opts[first], opts[last], tuple(failing)))
        return segs

    def _holds(self, t: Theorem, name: str, value: str) -> bool:
        try:
            return not any(r.status is Status.VIOLATED for r in t.check({**self.own(t), name: value}))
        except DPTheoryError:
            return False


def _edges(ok: np.ndarray) -> list[int]:
    idx = np.flatnonzero(ok[1:] != ok[:-1])
    return sorted({int(i) for i in idx} | {int(i) + 1 for i in idx})


def _runs(labels: Sequence[tuple[str, ...]]) -> Iterable[tuple[int, int]]:
    i = 0
    while i < len(labels):
        j = i
        while j + 1 < len(labels) and labels[j + 1] == labels[i]:
            j += 1
        yield i, j
        i = j + 1


def _row(c: Any) -> ConditionRow:
    return ConditionRow(c.text, c.status.value, c.lhs, c.rhs, c.condition.gloss, c.condition.kind)


def default_values(theorems: Sequence[Theorem]) -> dict[str, Any]:
    """A starting point: each theorem's first witness, then its paper's report defaults (the set named
    by ``explore`` in the paper's ``report.toml``, then the other sets: for Ye & Shokri, Figure 2 at
    alpha = 10, K = 50), then the middle of the sampling range. Conditions may fail at the result; the
    page shows which."""
    out: dict[str, Any] = {}
    names = [p for t in theorems for p in t.params]
    for t in theorems:
        src: dict[str, Any] = {}
        if t.witnesses:
            src = {**dict(t.witnesses[0]), **src}
        src = {**_report_defaults(t.key.split(".")[0]), **src}
        for p in t.params:
            if p not in out and p in src:
                out[p] = src[p]
    for t in theorems:
        for p in t.params:
            if p not in out:
                lo, hi, log = _sample(t, p)
                mid = math.sqrt(lo * hi) if log and lo > 0 else (lo + hi) / 2
                out[p] = int(np.rint(mid)) if t.notation[p].domain.is_integer else f"{mid:.3g}"
    return {p: out[p] for p in dict.fromkeys(names)}


def _report_defaults(paper: str) -> dict[str, Any]:
    try:
        from dptheory.report.config import defaults
    except ImportError:  # pragma: no cover - the report package is part of dptheory
        return {}
    try:
        cfg = defaults(paper)
    except DPTheoryError:
        return {}
    merged: dict[str, Any] = {}
    for s in reversed(cfg.sets):  # the first set wins
        merged.update(s.params)
    for s in cfg.sets:  # ... unless the paper names the explorer's starting set
        if s.name == cfg.explore:
            merged.update(s.params)
    return merged
