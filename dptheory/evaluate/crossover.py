"""One crossover engine: where bound A starts to stay below bound B along one parameter, in RDP at a given
order (``delta`` None) or in (epsilon, delta)-DP with the order optimised per bound and point.

* RDP: both sides are screened in float64 along the parameter (values, or logs where a point is in the log
  domain: :func:`dptheory.evaluate.sweep.sweep`) and ties and both neighbours of the crossover are confirmed at
  ``dps`` digits; a real parameter is scanned on a 2000-point grid and the crossover refined by bisection.
* (epsilon, delta): every grid point is screened by the float route of the (epsilon, delta) service
  (:func:`dptheory.privacy.conversion.epsilon_screen`: float64, the order minimised over ``SCREEN_ORDERS`` orders
  ``1 + 10^(-4..4)``; any order gives a valid bound, so each screened value is an upper bound on the optimised
  one); then the crossover and the point before it are confirmed with the mp route
  (:func:`dptheory.privacy.conversion.convert`, continuous order optimisation at ``dps`` digits), walking along
  the grid if the screen was off, and a real-valued crossover is refined by bisection.

Both use :func:`winning_tail` (the start of the trailing run of wins), as do the paper-level crossovers of
epoch curves (``dptheory.papers.yeshokri22.epsdelta.crossovers``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, TypeAlias

import mpmath
import numpy as np

from dptheory.core.errors import DPTheoryError
from dptheory.core.notation import format_rational, parse_exact, rational_to_float
from dptheory.core.units import ConversionMethod
from dptheory.evaluate.sweep import LOG_DPS, MAX_RANGE_POINTS, TINY_NORMAL, mp_log, sweep

if TYPE_CHECKING:
    from dptheory.core.theorem import Theorem
else:  # a Theorem or a theorem read from the statement cache (dptheory.core.snapshot): the same numeric face
    Theorem: TypeAlias = Any

__all__ = [
    "CROSS_TIE",
    "EPS_GRID_POINTS",
    "CrossoverResult",
    "EpsilonDeltaCrossover",
    "crossover",
    "winning_tail",
]


def winning_tail(wins: Sequence[bool] | np.ndarray) -> int | None:
    """The index from which every entry of ``wins`` is true up to the end (None when the last one is not)."""
    if not len(wins) or not wins[-1]:
        return None
    i = len(wins) - 1
    while i > 0 and wins[i - 1]:
        i -= 1
    return i


def crossover(
    a: Theorem,
    b: Theorem,
    param: str,
    start: Any,
    stop: Any,
    fixed: Mapping[str, Any],
    *,
    dps: int = 50,
    delta: Any = None,
    method: ConversionMethod | str = ConversionMethod.IMPROVED,
    preflight: Callable[[Theorem, dict[str, str]], None] | None = None,
) -> Any:
    """The smallest value v in [start, stop] such that A < B at every grid value in [v, stop].

    Without ``delta``: the RDP crossover (every parameter of both theorems in ``fixed``, ``alpha`` included),
    a :class:`CrossoverResult`. With ``delta`` (``0 < delta < 1``; a string for an exact decimal): the
    (epsilon, delta) crossover, the order optimised per theorem and point with ``method``, an
    :class:`EpsilonDeltaCrossover`; ``fixed`` has no ``alpha``, and ``preflight(theorem, params)`` (if given)
    is called on each side before screening (the command line checks there the conditions that do not involve
    alpha). Integer parameters are scanned at every integer.
    """
    if param not in a.params and param not in b.params:
        raise DPTheoryError(
            f"crossover: neither {a.key} nor {b.key} takes {param!r}; "
            f"parameters: {', '.join(dict.fromkeys((*a.params, *b.params)))}"
        )
    integer = a.notation[param].domain.is_integer if param in a.params else b.notation[param].domain.is_integer
    if delta is None:
        return _rdp_crossover(a, b, param, start, stop, fixed, integer, dps)
    return _eps_crossover(a, b, param, start, stop, fixed, integer, delta, str(method), dps, preflight)


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
            return (
                f"<p>{self.lower} is not below {self.upper} at the end of {self.param} in "
                f"[{self.start}, {self.stop}]</p>"
            )
        return (
            f"<p>{self.lower} stays below {self.upper} for {self.param} &ge; {self.value} "
            f"(confirmed at {self.confirmed_dps} digits; order changes {self.changes} times)</p>"
        )


#: crossover: float64 comparisons closer than this (relative, or absolute in log) are decided at ``dps`` digits
CROSS_TIE = 1e-9
_CROSS_REAL_POINTS = 2000


def _rdp_crossover(
    a: Theorem, b: Theorem, param: str, start: Any, stop: Any, fixed: Mapping[str, Any], integer: bool, dps: int
) -> CrossoverResult:
    """The RDP crossover (:func:`crossover` without ``delta``)."""
    lo = parse_exact(start, key="crossover", name=param)
    hi = parse_exact(stop, key="crossover", name=param)
    if hi < lo:
        raise DPTheoryError(f"crossover: the range of {param} is empty ({format_rational(lo)} > {format_rational(hi)})")
    if integer:
        i0, i1 = math.ceil(lo), math.floor(hi)
        if i1 < i0:
            raise DPTheoryError(f"crossover: no whole number {param} in [{format_rational(lo)}, {format_rational(hi)}]")
        if i1 - i0 + 1 > MAX_RANGE_POINTS:
            raise DPTheoryError(f"crossover: {param} in [{i0}, {i1}] has more than {MAX_RANGE_POINTS} integers")
        grid: list[Any] = list(range(i0, i1 + 1))
    else:
        lo_f, hi_f = rational_to_float(lo), rational_to_float(hi)
        if not (math.isfinite(lo_f) and math.isfinite(hi_f)):
            raise DPTheoryError(f"crossover: the range of {param} is beyond float64")
        xs = (
            np.geomspace(lo_f, hi_f, _CROSS_REAL_POINTS)
            if lo_f > 0 and hi_f / lo_f > 10
            else np.linspace(lo_f, hi_f, _CROSS_REAL_POINTS)
        )
        grid = [f"{x:.15g}" for x in xs]
        grid = list(dict.fromkeys(grid))  # lo == hi (or a range narrower than 15 digits): no repeated points
    fa = {p: v for p, v in fixed.items() if p in a.params and p != param}
    fb = {p: v for p, v in fixed.items() if p in b.params and p != param}
    va, la, ma = _line(a, param, grid, fa)
    vb, lb, mb = _line(b, param, grid, fb)
    below, tie = _compare(va, la, ma, vb, lb, mb)
    changes = int(np.count_nonzero(below[1:] != below[:-1]))
    for i in np.flatnonzero(tie):
        below[i] = _below_mp(a, b, param, grid[i], fa, fb, dps)
    if not below[-1]:
        return CrossoverResult(a.key, b.key, param, float(lo), float(hi), None, False, dps, changes=changes)
    idx = winning_tail(below)
    assert idx is not None
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


def _line(t: Theorem, param: str, grid: list[Any], f: Mapping[str, Any]) -> tuple[np.ndarray, ...]:
    """(values, logs, log-domain mask) of ``t`` along the grid (constant if ``t`` does not take ``param``)."""
    if param in t.params:
        r = sweep(t, {param: grid}, f)
        assert r.log_domain is not None
        return r.values, r.log_values, r.log_domain
    v = t.evaluate(f, dps=LOG_DPS).value
    fv = float(v)
    in_log = not ((fv == 0.0 and v == 0) or (math.isfinite(fv) and abs(fv) >= TINY_NORMAL))
    n = len(grid)
    return np.full(n, fv), np.full(n, mp_log(v)), np.full(n, in_log)


def _compare(
    va: np.ndarray, la: np.ndarray, ma: np.ndarray, vb: np.ndarray, lb: np.ndarray, mb: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """A < B along the line, and where float64 cannot tell (ties, values beyond float64 that logs cannot order)."""
    with np.errstate(all="ignore"):
        by_value = ~ma & ~mb
        below_v = va < vb
        tie_v = ~(np.abs(va - vb) > CROSS_TIE * np.maximum(np.abs(va), np.abs(vb)))
        below_l = la < lb
        tie_l = ~(np.abs(la - lb) > CROSS_TIE) | np.isnan(la) | np.isnan(lb)
        tie_l &= ~((la == -np.inf) & (lb > -np.inf)) & ~((lb == -np.inf) & (la > -np.inf))
    return np.where(by_value, below_v, below_l), np.where(by_value, tie_v, tie_l)


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
    lo, hi = Fraction(str(x0)), Fraction(str(x1))
    for _ in range(60):
        mid = (lo + hi) / 2
        if _below_mp(a, b, param, mid, fa, fb, dps):
            hi = mid
        else:
            lo = mid
    return format_rational(hi) if hi.denominator < 10**20 else f"{float(hi):.17g}"


# ----------------------------------------------------------------------------- (epsilon, delta)

#: grid points of a real parameter in the (epsilon, delta) crossover (each needs an order screen)
EPS_GRID_POINTS = 400
_BISECT_STEPS = 24
_WALK_STEPS = 400


@dataclass
class EpsilonDeltaCrossover:
    """Where A's (epsilon, delta) starts to stay below B's along one parameter (orders optimised).

    ``at_value`` / ``before``: both sides (20 digits) at the crossover and at the grid point before it (at the
    end of the range when there is no crossover); ``screen``: what the float64 screen did.
    """

    lower: str
    upper: str
    param: str
    start: str
    stop: str
    delta: Any
    method: str
    confirmed_dps: int
    changes: int
    screen: str
    value: int | str | None
    always_below: bool
    at_value: dict[str, str]
    before: dict[str, str] | None = None

    def to_dict(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        if self.value is None:
            del d["before"]
        return d


def _eps_grid(lo: Fraction, hi: Fraction, integer: bool) -> list[Any]:
    if integer:
        return list(range(math.ceil(lo), math.floor(hi) + 1))
    lo_f, hi_f = float(lo), float(hi)
    xs = (
        np.geomspace(lo_f, hi_f, EPS_GRID_POINTS)
        if lo_f > 0 and hi_f / lo_f > 10
        else np.linspace(lo_f, hi_f, EPS_GRID_POINTS)
    )
    return [f"{x:.15g}" for x in xs]


def _eps_crossover(
    a: Theorem,
    b: Theorem,
    over: str,
    start: Any,
    stop: Any,
    params: Mapping[str, Any],
    integer: bool,
    delta: Any,
    method: str,
    dps: int,
    preflight: Callable[[Theorem, dict[str, str]], None] | None,
) -> EpsilonDeltaCrossover:
    """The (epsilon, delta) crossover (:func:`crossover` with ``delta``; module docstring)."""
    from dptheory.privacy.conversion import SCREEN_ORDERS, convert, epsilon_screen

    grid = _eps_grid(Fraction(str(start)), Fraction(str(stop)), integer)
    fa = {k: v for k, v in params.items() if k in a.params}
    fb = {k: v for k, v in params.items() if k in b.params}
    for t, f in ((a, fa), (b, fb)):
        missing = [p for p in t.params if p not in f and p not in ("alpha", over)]
        if missing:
            raise DPTheoryError(f"crossover: {t.key} needs {', '.join(missing)}; it takes {', '.join(t.params)}")
        probe = dict(f)
        if over in t.params:
            probe[over] = str(grid[-1])
        if preflight is not None:
            preflight(t, probe)
    d = float(Fraction(str(delta)))
    below = epsilon_screen(a, fa, over, grid, d, method) < epsilon_screen(b, fb, over, grid, d, method)
    changes = int(np.count_nonzero(below[1:] != below[:-1]))
    cache: dict[tuple[str, str], Any] = {}

    def exact(t: Theorem, f: Mapping[str, Any], x: Any) -> Any:
        key = (t.key, str(x))
        if key not in cache:
            pt = dict(f)
            if over in t.params:
                pt[over] = str(x)
            cache[key] = convert(t, pt, delta=delta, method=method, dps=dps).epsilon
        return cache[key]

    def exact_below(x: Any) -> bool:
        return bool(exact(a, fa, x) < exact(b, fb, x))

    def sides(x: Any) -> dict[str, str]:
        return {over: str(x), a.key: mpmath.nstr(exact(a, fa, x), 20), b.key: mpmath.nstr(exact(b, fb, x), 20)}

    screen = (
        f"float64 at every {over} ({len(grid)} points), the order minimised over {SCREEN_ORDERS} orders 1 + 10^(-4..4)"
    )
    base = (a.key, b.key, over, str(start), str(stop), delta, method, dps, changes, screen)
    if not exact_below(grid[-1]):
        return EpsilonDeltaCrossover(*base, value=None, always_below=False, at_value=sides(grid[-1]))
    idx = _confirm(grid, winning_tail(below), exact_below)
    value: Any = grid[idx]
    before = sides(grid[idx - 1]) if idx > 0 else None
    if not integer and idx > 0:
        left, right = Fraction(str(grid[idx - 1])), Fraction(str(grid[idx]))
        for _ in range(_BISECT_STEPS):
            mid = (left + right) / 2
            if exact_below(f"{float(mid):.17g}"):
                right = mid
            else:
                left = mid
        value = f"{float(right):.12g}"
    return EpsilonDeltaCrossover(
        *base, value=int(value) if integer else value, always_below=idx == 0, at_value=sides(value), before=before
    )


def _confirm(grid: Sequence[Any], screened: int | None, exact_below: Callable[[Any], bool]) -> int:
    """The grid index of the crossover confirmed at full precision, walking from the screened one."""
    idx = min(len(grid) - 1 if screened is None else screened, len(grid) - 1)
    for _ in range(_WALK_STEPS):
        if not exact_below(grid[idx]):
            idx += 1
            if idx >= len(grid):
                raise DPTheoryError(
                    "crossover --delta: the float64 screen and the exact conversions disagree; rerun with another range"
                )
        elif idx > 0 and exact_below(grid[idx - 1]):
            idx -= 1
        else:
            return idx
    raise DPTheoryError("crossover --delta: could not confirm the crossover near the screened one")
