"""The search space of the counterexample search: a claim's region as a map from real coordinates to points.

See :mod:`dptheory.verify.search` (its module docstring, "The search space") for the coordinates, the
ranges narrowed by the region's conditions (:func:`isolate`, drawn in the order of :func:`draw_order`),
integers, multiples and choices. :func:`isolate` and :func:`draw_order` are also what the hypothesis
strategies of :mod:`dptheory.testing.strategies` use, so that both draw parameters the same way.
"""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy as sp

from dptheory.core.claims import Claim
from dptheory.core.conditions import Condition, Status
from dptheory.core.errors import DPTheoryError
from dptheory.core.notation import Domain, format_rational, parse_point, parse_value
from dptheory.verify.points import region_conditions

__all__ = [
    "Bound",
    "Coord",
    "SearchSpace",
    "bounds_by_name",
    "draw_order",
    "float_fn",
    "isolate",
    "multiples_of",
    "narrowed_range",
    "point_key",
    "render_exact",
    "render_point",
]


@dataclass(frozen=True)
class Bound:
    """``param OP expr`` derived from a condition: kind is 'lower' or 'upper'."""

    kind: str
    expr: sp.Expr
    strict: bool

    @functools.cached_property
    def deps(self) -> frozenset[str]:
        """The names the bound depends on (read at every draw: computed once)."""
        return frozenset(s.name for s in self.expr.free_symbols)


def isolate(cond: Condition) -> dict[str, list[Bound]]:
    """Bounds on single parameters that a condition states directly."""
    rel = cond.relation
    out: dict[str, list[Bound]] = {}
    if not isinstance(rel, sp.core.relational.Relational) or isinstance(rel, (sp.Eq, sp.Ne)):
        return out
    strict = isinstance(rel, (sp.StrictLessThan, sp.StrictGreaterThan))
    # normalise to  small <= big
    if isinstance(rel, (sp.LessThan, sp.StrictLessThan)):
        small, big = rel.lhs, rel.rhs
    else:
        small, big = rel.rhs, rel.lhs

    def add(name: str, b: Bound) -> None:
        out.setdefault(name, []).append(b)

    if isinstance(small, sp.Symbol) and small not in big.free_symbols:
        add(small.name, Bound("upper", big, strict))
    if isinstance(big, sp.Symbol) and big not in small.free_symbols:
        add(big.name, Bound("lower", small, strict))
    # floor(A/B) >= E  <=>  A >= E*B  for integers A, B > 0 and integer E
    if isinstance(big, sp.floor):
        num, den = sp.fraction(sp.together(big.args[0]))
        if isinstance(num, sp.Symbol) and num not in (den.free_symbols | small.free_symbols) and small.is_integer:
            add(num.name, Bound("lower", small * den, strict))
    # A/B >= E  <=>  A >= E*B, and A/B <= E <=> A <= E*B, for B > 0; and for a power A = x**k of a
    # positive x (k > 0; B may be 1): x >= (E*B)**(1/k), x <= (E*B)**(1/k)
    # (Dwork et al. 2015, arXiv:1506.02629, Cor 22's tau**2/(c**2*n) >= 79/10 bounds tau below)
    for side, other, kind in ((big, small, "lower"), (small, big, "upper")):
        if isinstance(side, (sp.Mul, sp.Pow)):
            num, den = sp.fraction(side)
            if isinstance(num, sp.Symbol) and den != 1:
                x, k = num, sp.Integer(1)
            elif (
                isinstance(num, sp.Pow)
                and isinstance(num.base, sp.Symbol)
                and num.base.is_positive
                and num.exp.is_Rational
                and num.exp.is_positive
            ):
                x, k = num.base, num.exp
            else:
                continue
            if den.is_positive and x not in (den.free_symbols | other.free_symbols):
                # a power's root only of what is not negative: x**k >= E holds for every positive x where E <= 0
                add(x.name, Bound(kind, other * den if k == 1 else sp.Max(other * den, 0) ** (1 / k), strict))
    return out


def bounds_by_name(conds: Iterable[Condition]) -> dict[str, list[Bound]]:
    """Every parameter's bounds that the conditions state directly (:func:`isolate` of each, in order)."""
    out: dict[str, list[Bound]] = {}
    for c in conds:
        for name, bs in isolate(c).items():
            out.setdefault(name, []).extend(bs)
    return out


def narrowed_range(
    lo: float, hi: float, domain: Domain, bounds: Iterable[tuple[str, float, bool]], *, box: bool = False
) -> tuple[float, float, bool, bool]:
    """The range ``(lo, hi, lo_strict, hi_strict)`` a parameter is drawn from: its sampling range
    ``[lo, hi]`` cut by the bounds its conditions put on it at the values drawn before it (``(kind,
    value, strict)``, kind ``'lower'`` or ``'upper'``) and by its domain's lower end
    (:attr:`~dptheory.core.notation.Domain.lower_end`: ``> 0``, ``>= 0``).

    The tightest lower and upper bound of the conditions always hold. Where they miss the sampling
    range (an upper bound at or below ``lo``, a lower bound at or above ``hi``) the sampling range is
    first moved to meet them: down to a tenth of the upper bound (or 10 below it), up to ten times the
    lower bound (or 10 above it). A condition's bound is never widened away: ``0 <= j0 <= floor(n/b) - 1``
    with ``floor(n/b) = 1`` gives ``[0, 0]``, whatever the sampling range. Conditions that contradict each
    other give ``lo > hi`` (nothing to draw). With ``box`` (a claim region's own range: the box its search
    states) the range never moves: bounds outside it leave nothing to draw there. Shared by the claim search
    (:class:`SearchSpace`) and the hypothesis strategies (:mod:`dptheory.testing.strategies`), so that both draw
    the same ranges.
    """
    end = domain.lower_end
    c_lo, c_lo_s = (float(end[0]), end[1]) if end is not None else (-math.inf, False)
    c_hi, c_hi_s = math.inf, False
    for kind, fv, strict in bounds:
        if kind == "upper":
            if fv < c_hi or (fv == c_hi and strict):
                c_hi, c_hi_s = fv, strict
        elif fv > c_lo or (fv == c_lo and strict):
            c_lo, c_lo_s = fv, strict
    lo_s = hi_s = False  # the sampling range's ends are drawn
    if c_hi <= lo and not box:  # an upper bound at or below the sampling range: move its lower end below the bound
        lo = c_hi / 10 if c_hi > 0 else c_hi - 10
    if c_lo >= hi and not box:  # a lower bound at or above the sampling range: move its upper end above the bound
        hi = min(c_lo * 10, sys.float_info.max) if c_lo > 0 else c_lo + 10
    if c_hi <= hi:
        hi, hi_s = c_hi, c_hi_s
    if c_lo >= lo:
        lo, lo_s = c_lo, c_lo_s
    return lo, hi, lo_s, hi_s


def multiples_of(conds: Iterable[Condition]) -> dict[str, sp.Expr]:
    """The conditions "Y divides X" (``Eq(Mod(X, Y), 0)`` with X a parameter), as X -> Y: X is drawn as a
    multiple of Y, after Y."""
    out: dict[str, sp.Expr] = {}
    for c in conds:
        rel = c.relation
        if (
            isinstance(rel, sp.Eq)
            and rel.rhs == 0
            and isinstance(rel.lhs, sp.Mod)
            and isinstance(rel.lhs.args[0], sp.Symbol)
        ):
            out[rel.lhs.args[0].name] = rel.lhs.args[1]
    return out


_BOUND_FNS: dict[int, tuple[Any, tuple[sp.Symbol, ...]]] = {}
_BOUND_KEEP: list[Bound] = []


def draw_order(names: Sequence[str], bounds: Mapping[str, list[Bound]], order_hint: Sequence[str]) -> list[str]:
    """Fewest undrawn dependencies first; ties by ``order_hint``."""
    rank = {n: i for i, n in enumerate(order_hint)}
    remaining = list(names)
    done: list[str] = []
    while remaining:

        def undrawn(n: str) -> int:
            deps = set().union(*(b.deps for b in bounds.get(n, []))) if bounds.get(n) else set()
            return len((deps & set(names)) - set(done) - {n})

        remaining.sort(key=lambda n: (undrawn(n), rank.get(n, 10**6)))
        done.append(remaining.pop(0))
    return done


@dataclass
class Coord:
    name: str
    kind: str  # "choice" | "int" | "real"
    lo: float = 0.0
    hi: float = 1.0
    log: bool = False
    domain: Domain = Domain.REAL
    box: bool = False  # the range is the claim region's own (``Region.ranges``): a box the search stays in
    choices: tuple[sp.Rational, ...] = ()


def float_fn(expr: sp.Expr) -> tuple[Callable[..., Any], tuple[str, ...]]:
    syms = tuple(sorted(expr.free_symbols, key=lambda s: s.name))
    return sp.lambdify(syms, expr, modules=["math"]), tuple(s.name for s in syms)


class SearchSpace:
    """The claim's region as a map from real coordinates to points (see the module docstring)."""

    def __init__(self, claim: Claim) -> None:
        self.claim = claim
        conds, info, hint = region_conditions(claim)
        self.conditions = conds
        self.info = info
        key = claim.key
        self.fixed = parse_point(claim.region.fixed, key=key)
        self.choices = {k: tuple(parse_value(v, key=key, name=k) for v in vs) for k, vs in claim.region.choices.items()}
        names = list(claim.params)
        missing = [n for n in names if n not in info and n not in self.fixed and n not in self.choices]
        if missing:
            raise DPTheoryError(f"{key}: parameters {missing} have no notation entry (no sampling range)")
        bounds = bounds_by_name(conds)
        self.multiples: dict[str, tuple[Callable[..., Any], tuple[str, ...]]] = {
            x: float_fn(y) for x, y in multiples_of(conds).items()
        }
        order = draw_order(names, bounds, hint)
        # a multiple is drawn after what it is a multiple of ("m divides n": n = k m, with m drawn first);
        # a bound on m that needs n (m <= n) is then not applied to the draw, the exact check still applies it
        for x, (_fn, deps) in self.multiples.items():
            if x in order and all(d in order for d in deps):
                last = max(order.index(d) for d in deps)
                if order.index(x) < last:
                    order.remove(x)
                    order.insert(last, x)
        self.order = order
        self.bounds = {n: [(bd.kind, bd.strict, *float_fn(bd.expr)) for bd in bs] for n, bs in bounds.items()}
        ranges = claim.region.ranges
        # parameters a side's theorem declares slow at fractional values (Theorem.slow_fractional: the Renyi
        # orders of the subsampled Gaussian, whose float64 kernel is exact and fast at integers, ~1 s a point
        # at fractional orders, the series in mpmath) are searched at integer values only
        slow: dict[str, set[str]] = {}  # parameter -> theorems that declare it slow at fractional values
        for ref in (r for side in claim.sides() for r in side.theorem_refs()):
            thm = ref.thm()
            assert thm is not None  # theorem_refs() yields theorem references only (an unknown key raises)
            for name in thm.slow_fractional:
                slow.setdefault(name, set()).add(thm.key)
        self.snapped: list[str] = []
        self.coords: list[Coord] = []
        for n in self.order:
            if n in self.fixed:
                continue
            if n in self.choices:
                self.coords.append(Coord(n, "choice", choices=self.choices[n]))
                continue
            p = info[n]
            lo, hi, log = ranges.get(n, p.sample)
            lo, hi = float(lo), float(hi)
            log = bool(log) or (lo > 0 and hi / lo >= 100)
            kind = "int" if p.domain.is_integer else "real"
            if kind == "real" and n in slow:
                kind = "int"
                who = ", ".join(sorted(slow[n]))
                self.snapped.append(f"{n} at integer values only ({who}: fractional orders cost ~1 s each in float64)")
            self.coords.append(Coord(n, kind, lo, hi, log, domain=p.domain, box=n in ranges))
        self.dim = len(self.coords)
        #: parameter -> the smallest and largest value drawn, where a draw left the parameter's sampling range
        #: (moved to meet a condition's bound beyond it, :func:`narrowed_range`): what :meth:`describe` prints
        self.beyond: dict[str, tuple[float, float]] = {}
        # float64 condition checks (exact checks come later)
        self._cond_fns: list[tuple[Callable[..., Any], tuple[str, ...]]] = []
        for c in conds:
            try:
                self._cond_fns.append(float_fn(c.relation))
            except Exception:  # pragma: no cover - a relation lambdify cannot print: exact check only
                continue

    # ------------------------------------------------------------------ decoding
    def _range(self, c: Coord, vals: Mapping[str, float]) -> tuple[float, float, bool, bool]:
        found: list[tuple[str, float, bool]] = []
        for kind, strict, fn, deps in self.bounds.get(c.name, []):
            if not set(deps) <= set(vals):
                continue
            try:
                fv = float(fn(*(vals[d] for d in deps)))
            except (ValueError, ZeroDivisionError, OverflowError, TypeError):
                continue
            if math.isfinite(fv):
                found.append((kind, fv, strict))
        return narrowed_range(c.lo, c.hi, c.domain, found, box=c.box)

    @staticmethod
    def _warp(w: float, lo: float, hi: float, log: bool) -> float:
        if w <= 0 or hi <= lo:
            return lo
        if w >= 1:
            return hi
        if log and lo > 0:
            return min(hi, max(lo, math.exp(math.log(lo) + w * (math.log(hi) - math.log(lo)))))
        return min(hi, max(lo, lo + w * (hi - lo)))

    @staticmethod
    def _unwarp(x: float, lo: float, hi: float, log: bool) -> float:
        if hi <= lo:
            return 0.5
        if log and lo > 0 and x > 0:
            return (math.log(x) - math.log(lo)) / (math.log(hi) - math.log(lo))
        return (x - lo) / (hi - lo)

    def decode(
        self, t: Sequence[float] | np.ndarray, simple: Sequence[float] | np.ndarray | None = None
    ) -> dict[str, sp.Rational] | None:
        """The point of coordinates ``t`` (exact values), or None when a range is empty there.

        ``t = -inf`` / ``+inf`` is the lower / upper end of the coordinate's range exactly. ``simple``
        (optional, one number per coordinate, NaN for none) replaces a coordinate's value by a simple
        value in its narrowed range, chosen by the number in [0, 1) (see :func:`_simple_int` and
        :func:`_simple_real`): small integers, the ends, 1 or 2 significant digits.
        """
        vals: dict[str, float] = {}
        exact: dict[str, sp.Rational] = {}
        i = 0
        for n in self.order:
            if n in self.fixed:
                exact[n] = self.fixed[n]
                vals[n] = float(self.fixed[n])
                continue
            c = self.coords[i]
            w = _sigmoid(float(t[i]))
            u = math.nan if simple is None else float(simple[i])
            i += 1
            if c.kind == "choice":
                k = min(len(c.choices) - 1, int(w * len(c.choices)))
                exact[n] = c.choices[k]
                vals[n] = float(exact[n])
                continue
            lo, hi, lo_s, hi_s = self._range(c, vals)
            if c.kind == "int":
                lo_i = math.ceil(lo) + (1 if lo_s and float(math.ceil(lo)) == lo else 0)
                hi_i = math.floor(hi) - (1 if hi_s and float(math.floor(hi)) == hi else 0)
                if n in self.multiples:
                    fn, deps = self.multiples[n]
                    if not set(deps) <= set(vals):
                        return None
                    step = round(float(fn(*(vals[d] for d in deps))))
                    if step < 1:
                        return None
                    k_lo, k_hi = max(1, -(-lo_i // step)), max(1, hi_i // step)
                    if k_hi < k_lo:
                        return None
                    k = _round_in(self._warp(w, k_lo, k_hi, c.log and k_hi / max(k_lo, 1) > 2), k_lo, k_hi)
                    if not math.isnan(u):
                        k = _simple_int(k, k_lo, k_hi, u)
                    x_i = k * step
                else:
                    if hi_i < lo_i:
                        return None
                    x_i = _round_in(self._warp(w, max(lo_i, 0), hi_i, c.log and lo_i >= 1), lo_i, hi_i)
                    if not math.isnan(u):
                        x_i = _simple_int(x_i, lo_i, hi_i, u)
                exact[n] = sp.Integer(x_i)
                vals[n] = float(x_i)
                continue
            if not (math.isfinite(lo) and math.isfinite(hi)) or hi < lo:
                return None
            x = self._warp(w, lo, hi, c.log and lo > 0)
            if not math.isnan(u):
                x = _simple_real(x, lo, hi, lo_s, hi_s, u)
            if (lo_s and x <= lo) or (hi_s and x >= hi):
                return None
            r = sp.Rational(repr(x))
            exact[n] = r
            vals[n] = x
        for c in self.coords:
            if c.kind != "choice" and not c.lo <= vals[c.name] <= c.hi:
                a, b = self.beyond.get(c.name, (vals[c.name], vals[c.name]))
                self.beyond[c.name] = (min(a, vals[c.name]), max(b, vals[c.name]))
        return exact

    def encode(self, exact: Mapping[str, sp.Rational]) -> np.ndarray:
        """Coordinates of a point (approximately: the inverse of :meth:`decode` on its ranges)."""
        t = np.zeros(self.dim)
        vals: dict[str, float] = {}
        for n in self.order:
            vals[n] = float(exact[n])
        for i, c in enumerate(self.coords):
            x = float(exact[c.name])
            if c.kind == "choice":
                k = min(range(len(c.choices)), key=lambda j: abs(float(c.choices[j]) - x))
                w = (k + 0.5) / len(c.choices)
            else:
                prev = {n: vals[n] for n in self.order[: self.order.index(c.name)]}
                lo, hi, _a, _b = self._range(c, prev)
                if c.kind == "int" and c.name in self.multiples:
                    fn, deps = self.multiples[c.name]
                    step = max(1, round(float(fn(*(vals[d] for d in deps)))))
                    lo, hi, x = max(1, math.ceil(lo / step)), max(1, math.floor(hi / step)), x / step
                w = self._unwarp(x, lo, hi, c.log and lo > 0)
            t[i] = _logit(min(max(w, 1e-15), 1 - 1e-15))
        return t

    # ------------------------------------------------------------------ checks
    def float_ok(self, exact: Mapping[str, sp.Rational]) -> bool:
        """Every condition holds in float64 (approximate at ties; exact checks come later)."""
        vals = {k: float(v) for k, v in exact.items()}
        for fn, deps in self._cond_fns:
            try:
                if not bool(fn(*(vals[d] for d in deps))):
                    return False
            except (ValueError, ZeroDivisionError, OverflowError, TypeError, KeyError):
                return False
        return True

    def exact_ok(self, exact: Mapping[str, sp.Rational]) -> bool:
        """Every condition holds, decided exactly."""
        for c in self.conditions:
            subs = {s: exact[s.name] for s in c.symbols}
            if c.evaluate(subs).status is not Status.HOLDS:
                return False
        return True

    def _moved(self, n: str, c: Coord) -> str:
        """How far the draws of ``n`` left its sampling range (``""`` where none did)."""
        if n not in self.beyond:
            return ""
        lo, hi = self.beyond[n]
        ends = ([f"down to {lo:g}"] if lo < c.lo else []) + ([f"up to {hi:g}"] if hi > c.hi else [])
        return f" (drawn {' and '.join(ends)} to meet the conditions)"

    def describe(self) -> str:
        """The search space in words: each parameter's sampling range (and how far the draws left it to meet a
        condition's bound beyond it), the fixed values, the parameters snapped to integers."""
        parts = []
        for n in self.order:
            if n in self.fixed:
                continue
            c = self.coords[[x.name for x in self.coords].index(n)]
            if c.kind == "choice":
                parts.append(f"{n} in {len(c.choices)} choices")
            else:
                parts.append(f"{n} in [{c.lo:g}, {c.hi:g}]{' (log)' if c.log else ''}{self._moved(n, c)}")
        fixed = ", ".join(f"{k}={format_rational(v)}" for k, v in self.fixed.items())
        snapped = ("; " + "; ".join(self.snapped)) if self.snapped else ""
        return (
            "; ".join(parts) + (f"; fixed {fixed}" if fixed else "") + snapped + "; narrowed by the region's conditions"
        )


def _sigmoid(t: float) -> float:
    if t >= 0:
        return 1.0 / (1.0 + math.exp(-t))
    e = math.exp(t)
    return e / (1.0 + e)


def _logit(w: float) -> float:
    return math.log(w) - math.log1p(-w)


def _round_in(x: float, lo: int, hi: int) -> int:
    return int(min(hi, max(lo, round(x))))


def _sig(x: float, digits: int) -> float:
    return float(f"{x:.{digits}g}")


def _simple_int(x: int, lo: int, hi: int, u: float) -> int:
    """A simple integer in ``[lo, hi]`` chosen by ``u`` in [0, 1): the smallest four, the largest, ``x``
    to one significant digit (what a property-based search mixes in: small values and ends)."""
    k = int(u * 6)
    cand = lo + k if k < 4 else (hi if k == 4 else int(_sig(x, 1)))
    return cand if lo <= cand <= hi else x


def _simple_real(x: float, lo: float, hi: float, lo_s: bool, hi_s: bool, u: float) -> float:
    """A simple value near ``x`` in the range chosen by ``u`` in [0, 1): ``x`` to 1 or 2 significant
    digits, or the nearest integer; ``x`` itself when that leaves the range."""
    k = int(u * 3)
    cand = _sig(x, 1) if k == 0 else (_sig(x, 2) if k == 1 else float(round(x)))
    if cand < lo or cand > hi or (lo_s and cand <= lo) or (hi_s and cand >= hi):
        return x
    return cand


def point_key(p: Mapping[str, sp.Rational]) -> tuple[Any, ...]:
    """A hashable key of an exact point (name, numerator, denominator), for bookkeeping of seen points."""
    return tuple(sorted((k, int(v.p), int(v.q)) for k, v in p.items()))


def render_exact(exact: Mapping[str, sp.Rational]) -> dict[str, str]:
    """An exact point as decimals or fractions (:func:`dptheory.core.notation.format_rational`)."""
    return {k: format_rational(v) for k, v in exact.items()}


def render_point(point: Mapping[str, Any], *, key: str = "point") -> dict[str, str]:
    """:func:`render_exact` of a point given as any values :func:`~dptheory.core.notation.parse_value` reads (``key``
    names the claim in its error)."""
    return render_exact(parse_point(point, key=key))
