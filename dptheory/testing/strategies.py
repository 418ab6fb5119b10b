"""Hypothesis strategies generated from theorem conditions.

A new theorem gets property tests for free: its parameters' domains and sampling ranges come from
the notation table, and every condition that isolates one parameter (``eta < 2/(lam + beta)``,
``j0 <= floor(n/b) - 1``, ``lam <= beta``, ``floor(n/b) >= 2``, ``tau^2/(c^2 n) >= 79/10``) becomes a
bound on that parameter given the ones drawn before it. Parameters are drawn in dependency order (fewest undrawn
dependencies first, ties broken by the notation table's order), so ``eta`` is drawn below its limit
once ``lam`` and ``beta`` are known. Every drawn point is then checked *exactly* against every
condition and rejected with ``assume`` if one fails or is undecided.

To reach the corners where theorems break (small n/b, eta*lam near its limit, large alpha, large
K, fractional alpha close to 1) each real parameter is drawn from a mixture: log-uniform over its
range, just above its lower bound, and just below its upper bound.

This module imports hypothesis and is only imported by tests (hypothesis is a test dependency); the
bounds a condition puts on one parameter (:func:`~dptheory.verify.space.isolate`), the range they leave
(:func:`~dptheory.verify.space.narrowed_range`) and the draw order (:func:`~dptheory.verify.space.draw_order`)
are the counterexample search's, imported from there.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import sympy as sp
from hypothesis import assume
from hypothesis import strategies as st

from dptheory.core.conditions import Condition, Status
from dptheory.core.notation import Param, parse_point, parse_value
from dptheory.testing.profiles import use_private_storage
from dptheory.verify.space import Bound, bounds_by_name, draw_order, multiples_of, narrowed_range

# hypothesis' files (example database, constants cache) go to a cache folder, not the working
# directory (the tests that import this module may run anywhere)
use_private_storage()


#: the bound expressions compiled to mpmath, by expression: every strategy built from the same conditions (each
#: property test builds its own) reuses them
_BOUND_FNS: dict[sp.Expr, tuple[Any, tuple[sp.Symbol, ...]]] = {}
#: the values of bounds that depend on no parameter (``j >= 0``, ``alpha > 1``: most of the bounds read at a draw), by
#: expression and kind
_CONSTANT_BOUNDS: dict[tuple[sp.Expr, str], float | None] = {}


def _bound_value(bd: Bound, vals: Mapping[str, sp.Rational]) -> float | None:
    """The bound at the drawn values, numerically (30 digits), as the float64 nearest to it whose shortest decimal
    is on the allowed side (at or above a lower bound, at or below an upper one): sympy's exact evaluation of
    powers with rational exponents can take minutes, and every drawn point is checked exactly afterwards; rounded
    inward, a draw at the end of the range (``c sqrt(7.9 n)``, irrational) is not a hair outside it, and a
    decimal end (0.001) stays itself. A bound on no parameter is computed once."""
    if not bd.deps:
        key = (bd.expr, bd.kind)
        if key not in _CONSTANT_BOUNDS:
            _CONSTANT_BOUNDS[key] = _bound_at(bd, {})
        return _CONSTANT_BOUNDS[key]
    return _bound_at(bd, vals)


def _bound_at(bd: Bound, vals: Mapping[str, sp.Rational]) -> float | None:
    """:func:`_bound_value`, computed."""
    import mpmath

    entry = _BOUND_FNS.get(bd.expr)
    if entry is None:
        syms = tuple(sorted(bd.expr.free_symbols, key=lambda x: x.name))
        entry = (sp.lambdify(syms, bd.expr, modules="mpmath"), syms)
        _BOUND_FNS[bd.expr] = entry
    f, syms = entry
    with mpmath.workdps(30):
        try:
            v = f(*(mpmath.mpf(int(vals[x.name].p)) / int(vals[x.name].q) for x in syms))
            fv = float(v)
            if math.isfinite(fv):
                # inward until the float's shortest decimal is allowed: then so is every draw's at or beyond it
                # (up to 1e-25 relative, the 30-digit evaluation's own round-off: 1/1000 * 9 is 0.009)
                lower = bd.kind == "lower"
                inward = math.inf if lower else -math.inf
                slack = abs(v) * _SLACK
                while (mpmath.mpf(repr(fv)) < v - slack) if lower else (mpmath.mpf(repr(fv)) > v + slack):
                    fv = math.nextafter(fv, inward)
        except (TypeError, ValueError, ZeroDivisionError, OverflowError):
            return None
    return fv if math.isfinite(fv) else None


#: the relative round-off of a bound computed at 30 digits
_SLACK = 1e-25

#: the closest fraction of a range that a real parameter is drawn from a strict end of it
_NEAREST = 1e-12


@functools.lru_cache(maxsize=4096)
def _mix_real(lo: float, hi: float, log: bool, lo_strict: bool, hi_strict: bool) -> st.SearchStrategy[float]:
    """Real values in [lo, hi]: log-uniform (or uniform), near lo, near hi. Cached: a draw builds one per
    parameter, and hypothesis validates every new strategy object (most of a contract test's time before)."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi < lo:
        return st.nothing()
    if hi == lo:
        return st.just(lo) if not (lo_strict or hi_strict) else st.nothing()
    width = hi - lo

    def near_lo(k: float) -> float:
        return lo + width * 10.0 ** (-k)

    def near_hi(k: float) -> float:
        return hi - width * 10.0 ** (-k)

    # the fraction of the range: at a strict end, no closer to it than 1e-12 (hypothesis favours the tiniest
    # floats, and lo + 5e-324 * width is lo itself, which the end excludes)
    unit = st.floats(_NEAREST if lo_strict else 0.0, 1.0 - _NEAREST if hi_strict else 1.0)
    if log and lo > 0 and hi / lo > 10:
        l0, l1 = math.log(lo), math.log(hi)
        # clamped: exp(log(lo)) can be a float or two below lo
        body = unit.map(lambda u: min(hi, max(lo, math.exp(l0 + u * (l1 - l0)))))
    else:
        body = unit.map(lambda u: min(hi, lo + u * width))
    edges = st.floats(1.0, 10.0)
    return st.one_of(body, edges.map(near_lo), edges.map(near_hi))


@functools.lru_cache(maxsize=4096)
def _mix_int(lo: int, hi: int, log: bool) -> st.SearchStrategy[int]:
    """Integers in [lo, hi]: uniform, or (log and a wide range) near lo, log-uniform, near hi. Cached (as
    :func:`_mix_real`)."""
    if hi < lo:
        return st.nothing()
    if not log or hi - lo <= 50:
        return st.integers(lo, hi)
    l0, l1 = math.log(max(lo, 1)), math.log(hi)
    logu = st.floats(0, 1).map(lambda u: min(hi, max(lo, round(math.exp(l0 + u * (l1 - l0))))))
    return st.one_of(st.integers(lo, min(hi, lo + 20)), logu, st.integers(max(lo, hi - 5), hi))


def _decimal_in(x: float, lo: float, hi: float, lo_strict: bool, hi_strict: bool) -> sp.Rational:
    """A drawn real as an exact decimal: to 12 significant digits, which drops binary noise (0.0010000000000000002
    -> 0.001) so shrunk counterexamples read cleanly while keeping draws 1e-10 from a bound distinct from it; the
    shortest decimal of ``x`` where the 12 digits would leave the range (1 + 1e-13 rounds to the excluded 1 of
    ``alpha > 1``). Compared in float64, as the range's ends are floats (:func:`_bound_value` rounds them inward)."""
    r = sp.Rational(f"{x:.12g}")
    f = float(r)
    if f < lo or f > hi or (lo_strict and f == lo) or (hi_strict and f == hi):
        r = sp.Rational(repr(x))
    return r


class _Spec:
    """What :func:`point_strategy` draws from, as the one argument of :func:`_draw_point`. A plain class with a short
    ``repr``: hypothesis renders the arguments of the strategy it draws from into a note on every rejected draw (an
    ``assume`` failing), once per strategy object, and a strategy is built per test; rendered field by field, the
    conditions and bounds took about a tenth of a contract test's time."""

    __slots__ = ("bounds", "choices", "conds", "fixed", "info", "key", "multiples", "order", "ranges")

    def __init__(self, key: str, order: Sequence[str], fixed: Mapping[str, sp.Rational],
                 choices: Mapping[str, Sequence[sp.Rational]], info: Mapping[str, Param],
                 ranges: Mapping[str, tuple[float, float, bool]], bounds: Mapping[str, list[Bound]],
                 multiples: Mapping[str, sp.Expr], conds: Sequence[Condition]) -> None:
        self.key, self.order, self.fixed, self.choices, self.info = key, order, fixed, choices, info
        self.ranges, self.bounds, self.multiples, self.conds = ranges, bounds, multiples, conds

    def __repr__(self) -> str:
        return f"<points of {self.key} in {', '.join(self.order)} under {len(self.conds)} conditions>"


@st.composite
def _draw_point(draw: Any, spec: _Spec) -> dict[str, sp.Rational]:
    """One point of :func:`point_strategy` (a module-level composite: hypothesis reads a composite's source when it
    is decorated, about 3 ms, so a strategy built per test must not decorate a new one)."""
    order, fixed, choices, info = spec.order, spec.fixed, spec.choices, spec.info
    ranges, bounds, multiples, conds = spec.ranges, spec.bounds, spec.multiples, spec.conds
    vals: dict[str, sp.Rational] = {}
    for name in order:
        if name in fixed:
            vals[name] = fixed[name]
            continue
        if name in choices:
            vals[name] = draw(st.sampled_from(choices[name]))
            continue
        p = info[name]
        lo, hi, log = ranges.get(name, p.sample)
        found: list[tuple[str, float, bool]] = []
        for bd in bounds.get(name, []):
            if bd.deps <= set(vals) and (fv := _bound_value(bd, vals)) is not None:
                found.append((bd.kind, fv, bd.strict))
        lo_f, hi_f, lo_strict, hi_strict = narrowed_range(float(lo), float(hi), p.domain, found)
        if p.domain.is_integer:
            lo_i = math.ceil(lo_f) + (1 if lo_strict and float(math.ceil(lo_f)) == lo_f else 0)
            hi_i = math.floor(hi_f) - (1 if hi_strict and float(math.floor(hi_f)) == hi_f else 0)
            if name in multiples and {s.name for s in multiples[name].free_symbols} <= set(vals):
                step = int(multiples[name].xreplace({s: vals[s.name] for s in multiples[name].free_symbols}))
                k = draw(_mix_int(max(1, -(-lo_i // step)), max(1, hi_i // step), log))
                vals[name] = sp.Integer(k * step)
                continue
            x = draw(_mix_int(lo_i, hi_i, log))
            vals[name] = sp.Integer(x)
        else:
            x = float(draw(_mix_real(lo_f, hi_f, log, lo_strict, hi_strict)))
            vals[name] = _decimal_in(x, lo_f, hi_f, lo_strict, hi_strict)
    subs = {}
    for c in conds:
        for s in c.symbols:
            subs[s] = vals[s.name]
    for c in conds:
        r = c.evaluate({s: subs[s] for s in c.symbols})
        assume(r.status is Status.HOLDS)
    return vals


def point_strategy(
    names: Sequence[str],
    conditions: Iterable[Condition],
    info: Mapping[str, Param],
    *,
    fixed: Mapping[str, Any] | None = None,
    choices: Mapping[str, Sequence[Any]] | None = None,
    ranges: Mapping[str, tuple[float, float, bool]] | None = None,
    order_hint: Sequence[str] | None = None,
    key: str = "strategy",
) -> st.SearchStrategy[dict[str, sp.Rational]]:
    """Points (dicts name -> exact Rational) satisfying every condition exactly."""
    fixed = parse_point(fixed or {}, key=key)
    choices = {k: [parse_value(v, key=key, name=k) for v in vs] for k, vs in (choices or {}).items()}
    ranges = dict(ranges or {})
    conds = list(conditions)
    bounds = bounds_by_name(conds)
    # "Y divides X": X is drawn as a multiple of Y, after Y (so X >= Y)
    multiples = multiples_of(conds)
    for x, y in multiples.items():
        bounds.setdefault(x, []).append(Bound("lower", y, False))
    order = draw_order(list(names), bounds, order_hint or list(info))
    return _draw_point(_Spec(key, order, fixed, choices, info, ranges, bounds, multiples, conds))


def theorem_strategy(
    thm: Any, *, fixed: Mapping[str, Any] | None = None, ranges: Mapping[str, tuple[float, float, bool]] | None = None
) -> st.SearchStrategy[dict[str, sp.Rational]]:
    """Valid points of one theorem (all its conditions hold)."""
    info = {p: thm.notation[p] for p in thm.params}
    merged = {**thm.sample, **(ranges or {})}
    return point_strategy(
        thm.params,
        thm.all_conditions,
        info,
        fixed=fixed,
        ranges=merged,
        order_hint=list(thm.notation.params),
        key=thm.key,
    )
