"""Counterexample search that optimises the violation margin, then shrinks and certifies what it finds.

Entry point: :func:`search_counterexample` ``(claim, *, budget, seed) -> SearchResult``.

**The margin.** For a claim ``lhs REL rhs`` the signed relative margin at a point is
``m = (rhs - lhs) / max(|lhs|, |rhs|)`` for ``<``/``<=`` (``-m`` for ``>``/``>=``); for a "within a
factor f" claim it is ``log f - |log(lhs/rhs)|``; for ``==`` it is ``tol - |rel. difference|``. The
claim holds at the point when ``m > 0`` (``m >= 0`` for non-strict relations). A claim of the form
``lim_K X < +infinity`` has a flat margin (+inf or -inf); when the limit declares the exact condition
under which it exists (``Limit.exists_when``), the relative slack of that condition is used instead
(the limit is infinite exactly where the slack is not positive).

**The search space.** Every free parameter of the claim's region is mapped to one real coordinate
``t``: the parameter's range ``[lo, hi]`` (the region's ``ranges``, else the notation's sampling
range, narrowed by the bounds that the region's conditions put on it given the parameters drawn
before it, in the order of :func:`dptheory.testing.strategies.draw_order`) is scaled to ``[0, 1]``
(in log space for scale parameters: a log-scale range or ``hi/lo >= 100``), and ``t = logit(w)``
of that fraction ``w``, so the optimiser can approach either end of a bounded parameter to within
1e-13 relative (``t = -inf``/``+inf`` is the end itself). Integers are the rounded value (in log space
for log-scale ranges); a parameter that a region condition requires to be a multiple of another is drawn
as a multiple, after it (``m | n``: ``m`` first, then ``n = k m``); a finite set of choices is indexed by
``w``. Every point is then checked exactly (rational arithmetic) against every condition before anything
is decided there.

**The strategy** (the budget counts margin evaluations, each one float64 or, for sides without a
float64 kernel, mpmath at 20 digits). Every draw comes from one ``numpy.random.Generator`` seeded with
``seed``: the result depends on ``(claim, budget, seed)`` only, not on the process (a test runner, the
CLI, a Dask worker) or on any library's global state.

1. seeded starts: ``0.3 budget`` points of the region drawn in the transformed space, per coordinate
   independently: uniform in ``w`` (50%), within 10^-1..10^-12 of either end (10% each), exactly at
   either end (5% each), or a simple value (20%: one of the four smallest integers or the largest, the
   drawn value to 1 or 2 significant digits, the nearest integer); a draw that a region condition
   refuses (checked in float64) or that repeats a point is redrawn and not counted; among clear float64
   violations the one with the smallest integer parameters is confirmed first;
2. targeted mutation (``0.4 budget``): parents are the 8 lowest-margin points so far that lie apart
   from each other (RMS distance >= 0.2 in the unit cube of the coordinates); each generation every
   parent gets one child per coordinate with that coordinate redrawn (a coordinate sweep), and up to 16
   children of rank-biased parents with one coordinate redrawn, one coordinate moved or all coordinates
   moved by a Gaussian step of random scale;
3. local optimisation (scipy Nelder-Mead, then Powell) of the float64 margin from the 6 best points
   that lie apart (``0.2 budget``);
4. integer neighbourhood moves (+-1, +-2, x2, /2 on every integer parameter) around the best point.

Any point whose float64 margin is below 1e-9 is confirmed with mpmath at 30 digits (and then 50)
before it counts: float64 never decides a verdict. A finite region no larger than the budget is
enumerated instead (strategy "exhaustive enumeration").

**Shrinking.** A confirmed counterexample is simplified one parameter at a time (small integers;
reals rounded to 1..6 significant digits or to fractions with small denominators), keeping each
change that stays in the region (and in the search box, when the point was in it) and still violates
the claim at 30 digits.

**Certifying.** Both sides of the shrunk counterexample are enclosed with arb
(:func:`dptheory.core.compile.enclose` on the theorem's compiled statement or its declared ``arb``
override; sums and quotients of sides combine the enclosures) and the violation is certified when the
enclosures are separated in the violating direction. Where a side has no rigorous evaluator, the
counterexample is reported as "confirmed at 50 digits (not certified)", with the reason.

The result never calls anything verified: a search that finds nothing reports the number of points,
the strategy, and the closest approach (smallest margin, where, and how far from the relation
flipping).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from dptheory.core.claims import Claim, Quantity, Relation
from dptheory.core.compile import informative_ball
from dptheory.core.conditions import Status
from dptheory.core.errors import DPTheoryError
from dptheory.core.notation import Domain, format_rational, parse_value
from dptheory.verify.points import PointOutcome, evaluate_point, region_conditions

__all__ = [
    "DEFAULT_BUDGET",
    "Closest",
    "Counterexample",
    "SearchResult",
    "SideValue",
    "certify_point",
    "search_counterexample",
]

#: default number of margin evaluations per claim (see the module docstring for the split)
DEFAULT_BUDGET = 1500
#: float64 margins below this are confirmed with mpmath (float64 never decides)
SCREEN = 1e-9
#: budget cost of one side evaluated with mpmath (no float64 kernel, or float64 gave NaN) instead of float64
MP_COST = 10
#: theorems whose float64 kernel is slow at fractional Renyi orders (searched at integer orders, said in the strategy)
_SLOW_FRACTIONAL = frozenset({"rdp.subsampled_gaussian", "yeshokri22.composition"})
_ORDER_NAMES = frozenset({"alpha"})
#: shares of the budget: seeded starts, targeted mutation, local optimisation (the rest: integer moves)
_SPLIT = (0.3, 0.4, 0.2)
#: relative tolerance of an "==" claim (the same as the checker's at 50 digits)
EQ_TOL = 1e-42


# ============================================================================ results


@dataclass(frozen=True)
class SideValue:
    """One side of a claim at a point.

    Attributes:
        label: the side's label.
        value: its value (decimal, 20 significant digits).
        lo, hi: a certified enclosure (decimal strings rounded outward), or ``None`` when this side
            has no rigorous evaluator (then ``why_not`` says why).
    """

    label: str
    value: str
    lo: str | None = None
    hi: str | None = None
    why_not: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "value": self.value, "lo": self.lo, "hi": self.hi, "why_not": self.why_not}


@dataclass(frozen=True)
class Counterexample:
    """A point of the claim's region where it fails.

    Attributes:
        params: the point, exact values rendered as decimals or fractions.
        lhs, rhs: both sides (with enclosures when certified).
        relation: the relation that fails (``"<"``, ``"within a factor 2"``...).
        margin: the signed relative margin there (negative or zero: violated).
        certified: both sides enclosed by arb and the enclosures separated in the violating direction.
        evidence: in words: ``"certified: ..."`` or ``"confirmed at 50 digits (not certified): <why>"``.
        found_at: the point before shrinking (rendered), if shrinking changed it.
    """

    params: dict[str, str]
    lhs: SideValue
    rhs: SideValue
    relation: str
    margin: float
    certified: bool
    evidence: str
    found_at: dict[str, str] | None = None

    def exact(self) -> dict[str, sp.Rational]:
        """The point as exact rationals (what ``params`` renders)."""
        return {k: parse_value(v, key="counterexample", name=k) for k, v in self.params.items()}

    def to_dict(self) -> dict[str, Any]:
        return {
            "params": dict(self.params),
            "lhs": self.lhs.to_dict(),
            "rhs": self.rhs.to_dict(),
            "relation": self.relation,
            "margin": self.margin,
            "certified": self.certified,
            "evidence": self.evidence,
            "found_at": self.found_at,
        }


@dataclass(frozen=True)
class Closest:
    """The closest approach of a search that found no counterexample.

    Attributes:
        params: where (rendered exact values).
        margin: the smallest signed relative margin found there (re-evaluated with mpmath at 30
            digits when possible; positive: the claim holds).
        lhs, rhs: both sides there (decimal, 20 digits).
        flip: how far the point is from the relation flipping, in words.
    """

    params: dict[str, str]
    margin: float
    lhs: str
    rhs: str
    flip: str

    def to_dict(self) -> dict[str, Any]:
        return {"params": dict(self.params), "margin": self.margin, "lhs": self.lhs, "rhs": self.rhs,
                "flip": self.flip}


@dataclass
class SearchResult:
    """What :func:`search_counterexample` found.

    Attributes:
        claim: the claim key.
        found: the (shrunk, certified when possible) counterexample, or ``None``.
        points_tried: number of margin evaluations (float64 or 20-digit mpmath) spent.
        strategy: the strategy in words, with the search box and the count per phase.
        closest: smallest margin found (also when a counterexample was found: then it is that point).
        duration_s: wall time.
        notes: anything a reader should know (points that could not be evaluated, ...).
    """

    claim: str
    found: Counterexample | None
    points_tried: int
    strategy: str
    closest: Closest | None
    duration_s: float
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "claim": self.claim,
            "found": None if self.found is None else self.found.to_dict(),
            "points_tried": self.points_tried,
            "strategy": self.strategy,
            "closest": None if self.closest is None else self.closest.to_dict(),
            "duration_s": round(self.duration_s, 3),
            "notes": list(self.notes),
        }


# ============================================================================ the search space


@dataclass
class _Coord:
    name: str
    kind: str  # "choice" | "int" | "real"
    lo: float = 0.0
    hi: float = 1.0
    log: bool = False
    positive: bool = False
    choices: tuple[sp.Rational, ...] = ()




def _float_fn(expr: sp.Expr) -> tuple[Callable[..., Any], tuple[str, ...]]:
    syms = tuple(sorted(expr.free_symbols, key=lambda s: s.name))
    return sp.lambdify(syms, expr, modules=["math"]), tuple(s.name for s in syms)


class _Space:
    """The claim's region as a map from real coordinates to points (see the module docstring)."""

    def __init__(self, claim: Claim) -> None:
        from dptheory.testing.strategies import draw_order, isolate

        self.claim = claim
        conds, info, hint = region_conditions(claim)
        self.conditions = conds
        self.info = info
        key = claim.key
        self.fixed = {k: parse_value(v, key=key, name=k) for k, v in claim.region.fixed.items()}
        self.choices = {k: tuple(parse_value(v, key=key, name=k) for v in vs) for k, vs in claim.region.choices.items()}
        names = list(claim.params)
        missing = [n for n in names if n not in info and n not in self.fixed and n not in self.choices]
        if missing:
            raise DPTheoryError(f"{key}: parameters {missing} have no notation entry (no sampling range)")
        bounds: dict[str, list[Any]] = {}
        for c in conds:
            for name, bs in isolate(c).items():
                bounds.setdefault(name, []).extend(bs)
        self.multiples: dict[str, tuple[Callable[..., Any], tuple[str, ...]]] = {}
        for c in conds:
            rel = c.relation
            if (isinstance(rel, sp.Eq) and rel.rhs == 0 and isinstance(rel.lhs, sp.Mod)
                    and isinstance(rel.lhs.args[0], sp.Symbol)):
                self.multiples[rel.lhs.args[0].name] = _float_fn(rel.lhs.args[1])
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
        self.bounds = {
            n: [(bd.kind, bd.strict, *_float_fn(bd.expr)) for bd in bs]
            for n, bs in bounds.items()
        }
        ranges = claim.region.ranges
        # Renyi orders of the subsampled Gaussian are searched at integers when a side evaluates it: its
        # float64 kernel is exact and fast there, ~1 s a point at fractional orders (the series in mpmath)
        keys = {getattr(r.thm(), "key", "") for side in claim.sides() for r in side.theorem_refs()}
        slow = sorted(keys & _SLOW_FRACTIONAL)
        self.snapped: list[str] = []
        self.coords: list[_Coord] = []
        for n in self.order:
            if n in self.fixed:
                continue
            if n in self.choices:
                self.coords.append(_Coord(n, "choice", choices=self.choices[n]))
                continue
            p = info[n]
            lo, hi, log = ranges.get(n, p.sample)
            lo, hi = float(lo), float(hi)
            log = bool(log) or (lo > 0 and hi / lo >= 100)
            kind = "int" if p.domain.is_integer else "real"
            if kind == "real" and slow and n in _ORDER_NAMES:
                kind = "int"
                self.snapped.append(f"{n} at integer values only ({', '.join(slow)}: fractional orders cost ~1 s "
                                    "each in float64)")
            self.coords.append(_Coord(n, kind, lo, hi, log, positive=p.domain is Domain.POSITIVE))
        self.dim = len(self.coords)
        # float64 condition checks (exact checks come later)
        self._cond_fns: list[tuple[Callable[..., Any], tuple[str, ...]]] = []
        for c in conds:
            try:
                self._cond_fns.append(_float_fn(c.relation))
            except Exception:  # pragma: no cover - a relation lambdify cannot print: exact check only
                continue

    # ------------------------------------------------------------------ decoding
    def _range(self, c: _Coord, vals: Mapping[str, float]) -> tuple[float, float, bool, bool]:
        lo, hi = c.lo, c.hi
        lo_strict = hi_strict = False
        if c.positive and lo <= 0:
            lo, lo_strict = 0.0, True
        for kind, strict, fn, deps in self.bounds.get(c.name, []):
            if not set(deps) <= set(vals):
                continue
            try:
                fv = float(fn(*(vals[d] for d in deps)))
            except (ValueError, ZeroDivisionError, OverflowError, TypeError):
                continue
            if not math.isfinite(fv):
                continue
            if kind == "upper" and fv <= hi:
                if fv <= lo:
                    lo, lo_strict = (fv / 10 if fv > 0 else fv - 10), False
                hi, hi_strict = fv, strict
            elif kind == "lower" and fv >= lo:
                if fv >= hi:
                    hi, hi_strict = (fv * 10 if fv > 0 else fv + 10), False
                lo, lo_strict = fv, strict
        return lo, hi, lo_strict, hi_strict

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

    def decode(self, t: Sequence[float] | np.ndarray,
               simple: Sequence[float] | np.ndarray | None = None) -> dict[str, sp.Rational] | None:
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
            if c.positive and x <= 0:
                return None
            r = sp.Rational(repr(x))
            exact[n] = r
            vals[n] = x
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

    def describe(self) -> str:
        parts = []
        for n in self.order:
            if n in self.fixed:
                continue
            c = self.coords[[x.name for x in self.coords].index(n)]
            if c.kind == "choice":
                parts.append(f"{n} in {len(c.choices)} choices")
            else:
                parts.append(f"{n} in [{c.lo:g}, {c.hi:g}]{' (log)' if c.log else ''}")
        fixed = ", ".join(f"{k}={format_rational(v)}" for k, v in self.fixed.items())
        snapped = ("; " + "; ".join(self.snapped)) if self.snapped else ""
        return ("; ".join(parts) + (f"; fixed {fixed}" if fixed else "") + snapped
                + "; narrowed by the region's conditions")


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


# ============================================================================ margins


def _rel_slack(small: float, big: float) -> float:
    """(big - small)/max(|small|, |big|): positive when small < big."""
    scale = max(abs(small), abs(big), 1e-300)
    return (big - small) / scale


def _float_margin(claim: Claim, lhs: float, rhs: float) -> float:
    """Signed relative margin (> 0: holds) from float values; NaN where it cannot be told."""
    if math.isnan(lhs) or math.isnan(rhs):
        return math.nan
    if claim.factor is not None:
        if lhs <= 0 or rhs <= 0 or math.isinf(lhs) or math.isinf(rhs):
            return -math.inf if (lhs <= 0) != (rhs <= 0) or math.isinf(lhs) != math.isinf(rhs) else math.nan
        lr = math.log(lhs) - math.log(rhs)
        lf = math.log(claim.factor)
        return lf - abs(lr)
    if math.isinf(lhs) or math.isinf(rhs):
        if math.isinf(lhs) and math.isinf(rhs) and (lhs > 0) == (rhs > 0):
            return 0.0 if claim.relation in (Relation.LE, Relation.GE, Relation.EQ) else -0.0
        return math.inf if claim.relation.holds(lhs, rhs) else -math.inf
    d = _rel_slack(lhs, rhs)
    if claim.relation is Relation.EQ:
        return EQ_TOL - abs(d)
    return d if claim.relation in (Relation.LT, Relation.LE) else -d


def _violated_float(claim: Claim, m: float) -> bool:
    """Whether a margin says 'violated' (strict relations fail at m = 0)."""
    if math.isnan(m):
        return False
    if claim.factor is None and claim.relation in (Relation.LE, Relation.GE):
        return m < 0
    return m <= 0


def _flip_words(claim: Claim, m: float, lhs: Any, rhs: Any) -> str:
    """How far a point with margin ``m`` is from the relation flipping, in words."""
    if not math.isfinite(m):
        return "the relation cannot flip by a small change here (a side is infinite)"
    if claim.factor is not None:
        return (f"the ratio lhs/rhs would have to move by a factor {math.exp(max(m, 0.0)):.6g} "
                f"(log-margin {m:.3g}) to leave [1/{claim.factor:g}, {claim.factor:g}]")
    if claim.relation is Relation.EQ:
        return f"the sides differ by {abs(m - EQ_TOL):.3g} relative (equality tolerance {EQ_TOL:g})"
    side = "lhs" if claim.relation in (Relation.LT, Relation.LE) else "rhs"
    try:
        a, b = float(lhs), float(rhs)
        big, small = (b, a) if side == "lhs" else (a, b)
        if small > 0 and big > 0:
            factor = f"1 + {big / small - 1:.3g}" if big / small < 1.001 else f"{big / small:.6g}"
            return (f"{side} would have to grow by a factor {factor} (relative margin {m:.3g}) "
                    f"for '{claim.relation.value}' to fail")
    except (TypeError, ValueError, OverflowError, ZeroDivisionError):
        pass
    return f"relative margin {m:.3g} (the relative change of one side needed for '{claim.relation.value}' to fail)"


def _nstr(x: Any, n: int = 20) -> str:
    return mpmath.nstr(x, n) if isinstance(x, mpmath.mpf) else str(x)


def _render(exact: Mapping[str, sp.Rational]) -> dict[str, str]:
    return {k: format_rational(v) for k, v in exact.items()}


# ============================================================================ evaluation


class _Evaluator:
    """Float64 margins of many points (batched where the sides allow), with bookkeeping."""

    def __init__(self, claim: Claim, space: _Space) -> None:
        self.claim = claim
        self.space = space
        self.tried = 0
        self.cost = 0  # budget spent: 1 per point, plus MP_COST per side evaluated with mpmath
        self.errors: list[str] = []
        self.best_m = math.inf
        self.best: dict[str, sp.Rational] | None = None
        self.confirmed: dict[str, sp.Rational] | None = None
        self.seen: dict[tuple[Any, ...], float] = {}
        self.mp_checked: set[tuple[Any, ...]] = set()
        self.surrogate = self._surrogate()
        # mpmath confirmations: float64 margins below SCREEN are confirmed, lowest first, but a point
        # is skipped when a point with a lower float margin already held at 30 digits (near exact
        # ties float64 noise would otherwise send every point to mpmath), and at most max_confirm
        self.max_confirm = 40
        self.n_confirm = 0
        self.held_floor = math.inf  # lowest float margin of a point that held at 30 digits
        self.mp_best_m = math.inf  # lowest 30-digit margin seen, and where
        self.mp_best: dict[str, sp.Rational] | None = None

    # ------------------------------------------------------------------ the limit surrogate
    def _surrogate(self) -> tuple[Quantity, Callable[..., Any], tuple[str, ...], bool] | None:
        """``lim X < +inf`` with a declared existence condition: margin = that condition's slack."""
        c = self.claim
        for q, other, rel_ok in ((c.lhs, c.rhs, (Relation.LT,)), (c.rhs, c.lhs, (Relation.GT,))):
            if q.limit is None or c.relation not in rel_ok or other.theorem is not None or other.params:
                continue
            t = q.thm()
            lim = t.limits.get(q.limit) if t is not None else None
            if lim is None or lim.exists_when is None:
                continue
            try:
                v = float(other.value_mp({}, 20))
            except Exception:
                continue
            if v != math.inf:
                continue
            rel = lim.exists_when.relation
            if not isinstance(rel, (sp.StrictLessThan, sp.LessThan, sp.StrictGreaterThan, sp.GreaterThan)):
                continue
            lt = isinstance(rel, (sp.StrictLessThan, sp.LessThan))
            expr = (rel.rhs - rel.lhs) if lt else (rel.lhs - rel.rhs)
            scale = sp.Max(sp.Abs(rel.lhs), sp.Abs(rel.rhs))
            fn, deps = _float_fn(expr / scale)
            return q, fn, deps, True
        return None

    # ------------------------------------------------------------------ float sides
    def _side_values(self, q: Quantity, pts: list[dict[str, sp.Rational]]) -> np.ndarray:
        """Float values of one side; a point the float64 path cannot do (no kernel, NaN, an error)
        is evaluated with mpmath at 20 digits (and costs MP_COST points of the budget)."""
        out = np.full(len(pts), np.nan)
        if q.theorem is not None and q.limit is None:
            arrays = {k: np.array([float(p[k]) for p in pts]) for k in q.needed()}
            try:
                vals = q.value_np_batch(arrays)
            except (DPTheoryError, ValueError, ZeroDivisionError, OverflowError, FloatingPointError):
                vals = None  # one bad point spoils the batch: do them one by one
            if vals is not None:
                out = np.asarray(vals, dtype=np.float64).reshape(len(pts)).copy()
                for j in np.flatnonzero(np.isnan(out)):
                    out[j] = self._side_one(q, pts[int(j)], float64=False)
                return out
        for i, p in enumerate(pts):
            out[i] = self._side_one(q, p)
        return out

    def _side_one(self, q: Quantity, p: Mapping[str, sp.Rational], *, float64: bool = True) -> float:
        try:
            if q.limit is not None:
                t = q.thm()
                assert t is not None
                pt = q.point(p)
                self.cost += MP_COST
                with mpmath.workdps(20):
                    return float(t.limits[q.limit].mp(t.kernel_args(pt)))
            v = None
            if float64:
                try:
                    v = q.value_np(p)
                except DPTheoryError:
                    v = None
            if v is None or math.isnan(v):
                self.cost += MP_COST
                return float(q.value_mp(p, 20))
            return float(v)
        except (DPTheoryError, ValueError, ZeroDivisionError, OverflowError, TypeError, KeyError) as exc:
            self._err(p, exc)
            return math.nan

    def _err(self, p: Mapping[str, sp.Rational], exc: BaseException) -> None:
        if len(self.errors) < 20:
            self.errors.append(f"{_render(p)}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")
        else:
            self.errors.append("")

    def margins(self, pts: list[dict[str, sp.Rational] | None]) -> np.ndarray:
        """Float64 margins (NaN: outside the region or not evaluable); counts every point."""
        ms = np.full(len(pts), np.nan)
        todo: list[int] = []
        for i, p in enumerate(pts):
            if p is None:
                continue
            key = _key(p)
            if key in self.seen:
                ms[i] = self.seen[key]
                continue
            if not self.space.float_ok(p):
                self.seen[key] = math.nan
                continue
            todo.append(i)
        if not todo:
            return ms
        self.tried += len(todo)
        self.cost += len(todo)
        batch = [pts[i] for i in todo]
        assert all(b is not None for b in batch)
        bb: list[dict[str, sp.Rational]] = [b for b in batch if b is not None]
        if self.surrogate is not None:
            q, fn, deps, _ = self.surrogate
            vals = []
            for p in bb:
                t = q.thm()
                assert t is not None
                pt = q.point(p)
                try:
                    vals.append(float(fn(*(float(pt[d]) for d in deps))))
                except (ValueError, ZeroDivisionError, OverflowError):
                    vals.append(math.nan)
            got = np.array(vals)
        else:
            with np.errstate(all="ignore"):
                lv = self._side_values(self.claim.lhs, bb)
                rv = self._side_values(self.claim.rhs, bb)
            got = np.array([_float_margin(self.claim, float(a), float(b)) for a, b in zip(lv, rv, strict=True)])
        for j, i in enumerate(todo):
            m = float(got[j])
            ms[i] = m
            p = pts[i]
            assert p is not None
            self.seen[_key(p)] = m
            if not math.isnan(m) and m < self.best_m:
                self.best_m, self.best = m, dict(p)
        return ms

    def margin_one(self, p: dict[str, sp.Rational] | None) -> float:
        return float(self.margins([p])[0])

    # ------------------------------------------------------------------ confirmation
    def confirm(self, p: Mapping[str, sp.Rational], dps: int = 30) -> PointOutcome | None:
        """mpmath at ``dps`` digits at an exactly valid point; None if outside or not evaluable."""
        key = _key(p)
        if not self.space.exact_ok(p):
            self.mp_checked.add(key)
            return None
        try:
            out = evaluate_point(self.claim, p, dps=dps)
        except (DPTheoryError, ValueError, ZeroDivisionError, OverflowError) as exc:
            self._err(p, exc)
            self.mp_checked.add(key)
            return None
        self.mp_checked.add(key)
        if out.holds is False and self.confirmed is None:
            self.confirmed = dict(p)
        if not math.isnan(out.margin) and out.margin < self.mp_best_m:
            self.mp_best_m, self.mp_best = out.margin, dict(p)
        return out

    def screen(self, p: Mapping[str, sp.Rational] | None, m: float) -> bool:
        """Confirm ``p`` (float margin ``m``) with mpmath if the rules above say so; True if it fails there."""
        if p is None or math.isnan(m) or m > SCREEN or m >= self.held_floor or self.n_confirm >= self.max_confirm:
            return False
        if _key(p) in self.mp_checked:
            return False
        self.n_confirm += 1
        out = self.confirm(p)
        if out is None:
            return False
        if out.holds is False:
            return True
        self.held_floor = min(self.held_floor, m)
        return False

    def maybe_confirm(self, pts: Sequence[dict[str, sp.Rational] | None], ms: np.ndarray) -> bool:
        """Screen a batch; True once a point fails at 30 digits. Clear float64 violations (margin below
        -1e-6) go first, the one with the smallest integer parameters first (the product of their sizes:
        a smaller point reads better and costs less to decide, e.g. a sum over m terms), then the rest
        lowest margin first."""
        order = sorted(np.argsort(np.where(np.isnan(ms), np.inf, ms), kind="stable"),
                       key=lambda i: (0, self._size(pts[i])) if ms[i] < -1e-6 else (1, 0.0))
        for i in order:
            m = float(ms[i])
            if math.isnan(m) or m > SCREEN:
                break
            if self.screen(pts[i], m):
                return True
        return False


    def _size(self, p: Mapping[str, sp.Rational] | None) -> float:
        """log10 of the product of the integer parameters' sizes (0 for a point without any)."""
        if p is None:
            return math.inf
        return sum(math.log10(max(1.0, abs(float(p[c.name])))) for c in self.space.coords if c.kind == "int")


def _key(p: Mapping[str, sp.Rational]) -> tuple[Any, ...]:
    return tuple(sorted((k, int(v.p), int(v.q)) for k, v in p.items()))


# ============================================================================ certification


def _mpf_to_arb(x: mpmath.mpf) -> Any:
    import flint

    if mpmath.isinf(x):
        return flint.arb.pos_inf() if x > 0 else flint.arb.neg_inf()
    man, exp = x.man_exp
    with flint.ctx.workprec(max(64, int(man).bit_length() + 8)):
        return flint.arb(int(man)) * flint.arb(2) ** int(exp)


def _enclosure_to_arb(enc: Any) -> Any:
    lo, hi = _mpf_to_arb(enc.lo), _mpf_to_arb(enc.hi)
    if mpmath.isinf(enc.lo) and enc.lo == enc.hi:
        return lo
    return lo.union(hi)


def _combine_op(q: Quantity) -> str | None:
    """The operator of a quantity built by :func:`dptheory.core.claims.combine` (``op`` when the
    quantity records it; otherwise read from the closure of ``combine``'s mp function)."""
    op = getattr(q, "op", None)
    if isinstance(op, str) and op in "+-*/":
        return op
    fn = q.mp
    if fn is None or len(q.parts) != 2 or not getattr(fn, "__qualname__", "").startswith("combine."):
        return None
    import operator

    names = ((operator.add, "+"), (operator.sub, "-"), (operator.mul, "*"), (operator.truediv, "/"))
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            v = cell.cell_contents
        except ValueError:  # pragma: no cover - empty cell
            continue
        for f, sym in names:
            if v is f:
                return sym
    return None


def _enclose_side(q: Quantity, exact: Mapping[str, sp.Rational], dps: int) -> tuple[Any | None, str]:
    """An arb ball containing the side's exact value, or (None, why not); a nan ball or one of infinite radius
    (python-flint's "no enclosure", e.g. a division by a ball containing 0) is no enclosure."""
    ball, why = _enclose_side_raw(q, exact, dps)
    if ball is not None and not informative_ball(ball):
        return None, f"{q.label}: the arb ball {ball} encloses nothing (a singularity or a ball reaching 0)"
    return ball, why


def _enclose_side_raw(q: Quantity, exact: Mapping[str, sp.Rational], dps: int) -> tuple[Any | None, str]:
    import flint

    t = q.thm()
    if t is not None:
        pt = q.point(exact)
        if q.limit is not None:
            lim = t.limits[q.limit]
            if lim.exists_when is not None:
                subs = {s: pt[s.name] for s in lim.exists_when.symbols}
                if lim.exists_when.evaluate(subs).status is Status.VIOLATED:
                    return flint.arb.pos_inf(), ""
            return None, f"the limit of {t.key} as {q.limit} -> oo has no rigorous evaluator"
        try:
            bv = t.evaluate(pt, dps=dps, term=q.term, certify=True)
        except DPTheoryError as exc:
            return None, str(exc).splitlines()[0]
        return _enclosure_to_arb(bv.enclosure), ""
    arb_fn = getattr(q, "arb", None)
    if callable(arb_fn):
        try:
            with flint.ctx.workprec(int(dps * 3.33) + 64):
                return arb_fn(exact), ""
        except DPTheoryError as exc:
            return None, str(exc).splitlines()[0]
    op = _combine_op(q)
    if op is not None:
        a, why_a = _enclose_side(q.parts[0], exact, dps)
        b, why_b = _enclose_side(q.parts[1], exact, dps)
        if a is None or b is None:
            return None, why_a or why_b
        with flint.ctx.workprec(int(dps * 3.33) + 64):
            val = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a / b}[op]()
        return val, ""
    if not q.params and not q.parts and q.mp is not None:
        # a constant (``constant()``): the same mpf at two precisions is taken as its exact value
        v1, v2 = q.value_mp({}, dps), q.value_mp({}, 2 * dps)
        if v1 == v2 and (mpmath.isinf(v1) or v1 == mpmath.mpf(v1)):
            return _mpf_to_arb(v2), ""
    return None, f"the quantity {q.label!r} has no rigorous evaluator (a custom mpmath function)"


def _violation_certified(claim: Claim, L: Any, R: Any) -> bool:
    """Whether the balls prove the relation false (every value in them violates it)."""
    import flint

    if claim.factor is not None:
        if bool(L <= 0) or bool(R <= 0):
            return bool(L <= 0) != bool(R <= 0) or bool(L <= 0)
        if not (L.is_finite() and R.is_finite()):
            return False
        ratio = L / R
        f = flint.arb(claim.factor)
        return bool(ratio > f) or bool(ratio < 1 / f)
    inf_l = L.is_exact() and not L.is_finite()
    inf_r = R.is_exact() and not R.is_finite()
    if inf_l and inf_r:
        same = bool(L == R)
        return {Relation.LT: same, Relation.GT: same, Relation.LE: not same and bool(L > R),
                Relation.GE: not same and bool(L < R), Relation.EQ: not same}[claim.relation]
    return {
        Relation.LT: lambda: bool(L >= R),
        Relation.LE: lambda: bool(L > R),
        Relation.GT: lambda: bool(L <= R),
        Relation.GE: lambda: bool(L < R),
        Relation.EQ: lambda: not L.overlaps(R),
    }[claim.relation]()


def _ball_strings(x: Any, digits: int) -> tuple[str, str]:
    from dptheory.core.compile import _decimal_bound

    if x.is_exact() and not x.is_finite():
        return ("inf", "inf") if bool(x > 0) else ("-inf", "-inf")
    return _decimal_bound(x.lower(), digits, down=True), _decimal_bound(x.upper(), digits, down=False)


def _relation_text(claim: Claim) -> str:
    return f"within a factor {claim.factor:g}" if claim.factor else claim.relation.value


def certify_point(claim: Claim, point: Mapping[str, Any], *, dps: int = 50) -> Counterexample | None:
    """Decide whether ``point`` falsifies ``claim`` and, if so, certify it.

    The point must lie in the claim's region (every condition holds exactly; otherwise
    :class:`DPTheoryError` names the first violated condition). Both sides are evaluated with mpmath
    at ``dps`` digits; if the claim holds there (or the sides tie at that precision) the result is
    ``None``. Otherwise both sides are enclosed with arb and the counterexample is ``certified`` when
    the enclosures are separated in the violating direction; else its ``evidence`` reads
    "confirmed at {dps} digits (not certified): <why>".

    Usable for pinned counterexamples as well as for points found by the search.
    """
    exact = {k: parse_value(v, key=claim.key, name=k) for k, v in point.items()}
    space = _Space(claim)
    for c in space.conditions:
        r = c.evaluate({s: exact[s.name] for s in c.symbols})
        if r.status is not Status.HOLDS:
            raise DPTheoryError(f"{claim.key}: the point {_render(exact)} is outside the claim's region: "
                                f"{r.text} is {r.status.value} ({c.gloss})")
    out = evaluate_point(claim, exact, dps=dps)
    if out.holds is not False:
        return None
    L, why_l = _enclose_side(claim.lhs, exact, dps)
    R, why_r = _enclose_side(claim.rhs, exact, dps)
    digits = min(dps, 20)
    lhs = SideValue(claim.lhs.label, _nstr(out.lhs, digits), why_not=why_l)
    rhs = SideValue(claim.rhs.label, _nstr(out.rhs, digits), why_not=why_r)
    if L is not None:
        lhs = SideValue(claim.lhs.label, lhs.value, *_ball_strings(L, digits + 2))
    if R is not None:
        rhs = SideValue(claim.rhs.label, rhs.value, *_ball_strings(R, digits + 2))
    certified = False
    if L is not None and R is not None:
        certified = _violation_certified(claim, L, R)
        if certified:
            evidence = (f"certified: both sides enclosed by arb (lhs in [{lhs.lo}, {lhs.hi}], rhs in "
                        f"[{rhs.lo}, {rhs.hi}]) and separated: '{_relation_text(claim)}' fails")
        else:
            evidence = (f"confirmed at {dps} digits (not certified): the arb enclosures of the two sides overlap "
                        f"(lhs in [{lhs.lo}, {lhs.hi}], rhs in [{rhs.lo}, {rhs.hi}])")
    else:
        evidence = f"confirmed at {dps} digits (not certified): {why_l or why_r}"
    return Counterexample(
        params=_render(exact),
        lhs=lhs,
        rhs=rhs,
        relation=_relation_text(claim),
        margin=out.margin,
        certified=certified,
        evidence=evidence,
    )


# ============================================================================ shrinking


def _simpler_ints(v: int, lo_hint: int = 0) -> list[int]:
    cands = {0, 1, 2, 3, 4, 5, 10, v // 2, v - 1, v - 2}
    for k in (1, 2):
        if v > 0:
            e = 10 ** max(0, len(str(v)) - k)
            cands.add(round(v / e) * e)
            cands.add((v // e) * e)
    return sorted((c for c in cands if lo_hint <= c < v or (c != v and len(str(c)) < len(str(v)))),
                  key=lambda c: (len(str(c)), c))


def _simpler_reals(x: sp.Rational) -> list[sp.Rational]:
    cur = len(format_rational(x))
    f = float(x)
    cands: set[sp.Rational] = set()
    if f != 0:
        for k in range(1, 7):
            cands.add(sp.Rational(f"{f:.{k}g}"))
            e = math.floor(math.log10(abs(f))) - k + 1
            step = sp.Rational(10) ** e
            cands.add(sp.floor(x / step) * step)
            cands.add(sp.ceiling(x / step) * step)
        for den in (1, 2, 3, 4, 5, 10, 100):
            fr = Fraction(int(x.p), int(x.q)).limit_denominator(den)
            cands.add(sp.Rational(fr.numerator, fr.denominator))
    cands.discard(x)
    simpler = (c for c in cands if len(format_rational(c)) < cur)
    return sorted(simpler, key=lambda c: (len(format_rational(c)), abs(c - x)))


def _shrink(ev: _Evaluator, exact: dict[str, sp.Rational], max_tries: int) -> dict[str, sp.Rational]:
    """Simplify a confirmed counterexample one parameter at a time (see the module docstring)."""
    cur = dict(exact)
    tries = 0  # in budget units: the evaluator's cost (mpmath sides count MP_COST) plus MP_COST per confirmation
    start = ev.cost
    tries_mp = 0
    for _ in range(4):
        changed = False
        for c in ev.space.coords:
            v = cur[c.name]
            if c.kind == "choice":
                cands = [x for x in c.choices[:12] if x != v and len(format_rational(x)) <= len(format_rational(v))]
            elif c.kind == "int":
                cands = [sp.Integer(x) for x in _simpler_ints(int(v))]
            else:
                cands = _simpler_reals(v)
            if c.kind != "choice" and c.lo <= float(v) <= c.hi:  # stay in the search box the strategy reports
                cands = [x for x in cands if c.lo <= float(x) <= c.hi]
            for cand in cands:
                if tries >= max_tries:
                    return cur
                trial = {**cur, c.name: cand}
                m = ev.margin_one(trial)
                tries = ev.cost - start + tries_mp
                if math.isnan(m) or m > SCREEN:
                    continue
                tries_mp += MP_COST
                out = ev.confirm(trial)
                if out is not None and out.holds is False:
                    cur = trial
                    changed = True
                    break
        if not changed:
            break
    return cur


# ============================================================================ the phases


class _Stop(Exception):
    """A counterexample was confirmed: leave the optimiser."""


#: mixture of a coordinate's draws (non-choice coordinates), cumulative: uniform in w, within 10^-1..10^-12
#: of the lower / upper end, exactly at the lower / upper end, a simple value (small integer, an end, 1-2 digits)
_MIX = (("uniform", 0.5), ("near lower end", 0.6), ("near upper end", 0.7), ("at lower end", 0.75),
        ("at upper end", 0.8), ("simple value", 1.0))


def _draw_coords(space: _Space, rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` draws of the coordinates and of the simple-value selectors (see :meth:`_Space.decode`).

    Per non-choice coordinate, independently, by :data:`_MIX`: uniform in ``w`` (50%), within
    10^-1..10^-12 of either end (10% each), exactly at either end (5% each), a simple value (20%).
    A choice is uniform over the choices. Returns ``(T, S)``, both ``(n, dim)``; ``T = -inf/+inf`` is
    an end exactly, ``S`` is NaN where the value is not replaced by a simple one.
    """
    T = np.empty((n, space.dim))
    S = np.full((n, space.dim), np.nan)
    cut = [p for _name, p in _MIX]
    for j, c in enumerate(space.coords):
        u = rng.random(n)
        kind = rng.random(n)
        depth = 10.0 ** -rng.uniform(1, 12, n)
        sel = rng.random(n)
        if c.kind == "choice":
            w = u
        else:
            w = np.select([kind < cut[0], kind < cut[1], kind < cut[2], kind < cut[3], kind < cut[4]],
                          [u, depth, 1 - depth, 0.0, 1.0], u)
            S[:, j] = np.where(kind >= cut[4], sel, np.nan)
        inner = np.clip(w, 1e-15, 1 - 1e-15)
        with np.errstate(divide="ignore"):
            T[:, j] = np.where(w <= 0, -np.inf, np.where(w >= 1, np.inf, np.log(inner) - np.log1p(-inner)))
    return T, S


@dataclass
class _Start:
    """A point of the region that was evaluated, with the coordinates it was decoded from."""

    t: np.ndarray
    s: np.ndarray
    point: dict[str, sp.Rational]
    m: float


def _valid_draws(space: _Space, ev: _Evaluator, T: np.ndarray, S: np.ndarray, taken: set[tuple[Any, ...]],
                 limit: int) -> list[tuple[np.ndarray, np.ndarray, dict[str, sp.Rational]]]:
    """The first ``limit`` draws that decode to a new point where every condition holds (float64); the
    others are refused (they cost nothing)."""
    out: list[tuple[np.ndarray, np.ndarray, dict[str, sp.Rational]]] = []
    for t, sv in zip(T, S, strict=True):
        if len(out) >= limit:
            break
        p = space.decode(t, sv)
        if p is None:
            continue
        key = _key(p)
        if key in taken or key in ev.seen or not space.float_ok(p):
            continue
        taken.add(key)
        out.append((t, sv, p))
    return out


def _evaluate(ev: _Evaluator, cands: list[tuple[np.ndarray, np.ndarray, dict[str, sp.Rational]]]) -> list[_Start]:
    pts: list[dict[str, sp.Rational] | None] = [p for _t, _s, p in cands]
    ms = ev.margins(pts)
    if ev.maybe_confirm(pts, ms):
        raise _Stop
    return [_Start(t, sv, p, float(m)) for (t, sv, p), m in zip(cands, ms, strict=True)]


def _finite_points(space: _Space, limit: int) -> list[dict[str, sp.Rational]] | None:
    if any(c.kind != "choice" for c in space.coords):
        return None
    total = 1
    for c in space.coords:
        total *= len(c.choices)
        if total > limit:
            return None
    pts: list[dict[str, sp.Rational]] = [dict(space.fixed)]
    for c in space.coords:
        pts = [{**p, c.name: v} for p in pts for v in c.choices]
    return pts


def search_counterexample(
    claim: Claim,
    *,
    budget: int = DEFAULT_BUDGET,
    seed: int = 0,
    dps: int = 50,
    progress: Callable[[int, int], None] | None = None,
) -> SearchResult:
    """Search the claim's region for a point where it fails; shrink and certify what is found.

    Args:
        claim: the claim (its region gives the parameters, ranges, choices and constraints).
        budget: number of margin evaluations (float64, or mpmath at 20 digits for sides without a
            float64 kernel) to spend; the split between phases is in the module docstring.
            Deterministic for a given ``(claim, budget, seed)``.
        seed: seed of the numpy Generator that makes every draw (nothing else is random).
        dps: digits of the final confirmation (at least 50) and of the certification.
        progress: called as ``progress(points_tried, budget)`` now and then.

    Returns:
        a :class:`SearchResult`; ``found`` is a :class:`Counterexample` (certified when both sides
        have rigorous evaluators) or ``None`` with the closest approach in ``closest``.
    """
    from dptheory.core.errors import InvalidParameter

    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise InvalidParameter(key=claim.key, name="budget", value=budget, reason="must be a whole number >= 1")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InvalidParameter(key=claim.key, name="seed", value=seed, reason="must be a whole number")
    dps = max(int(dps), 50)
    t0 = time.perf_counter()
    space = _Space(claim)
    ev = _Evaluator(claim, space)
    rng = np.random.default_rng(seed)
    phases: list[str] = []
    notes: list[str] = []

    def tick() -> None:
        if progress is not None:
            progress(min(ev.cost, budget), budget)

    finite = _finite_points(space, budget)
    if finite is not None:
        for lo in range(0, len(finite), 512):
            chunk: list[dict[str, sp.Rational] | None] = list(finite[lo:lo + 512])
            ms = ev.margins(chunk)
            tick()
            if ev.maybe_confirm(chunk, ms):
                break
        phases.append(f"exhaustive enumeration of the {len(finite)} points of the finite region")
    else:
        try:
            _run_phases(space, ev, rng, budget, phases, tick)
        except _Stop:
            pass
    if ev.confirmed is None and ev.best is not None and ev.best_m <= SCREEN and _key(ev.best) not in ev.mp_checked:
        ev.confirm(ev.best)

    found: Counterexample | None = None
    closest: Closest | None = None
    if ev.confirmed is not None:
        start = ev.confirmed
        shrunk = _shrink(ev, start, max_tries=max(60, budget // 10))
        found = _certified_record(claim, shrunk, start, dps)
        if found is None and shrunk != start:  # pragma: no cover - shrinking checks each step at 30 digits
            found = _certified_record(claim, start, start, dps)
        if found is None:
            notes.append(f"the point {_render(start)} fails at 30 digits but not at {dps}: a tie; not reported")
    if found is not None:
        closest = Closest(found.params, found.margin, found.lhs.value, found.rhs.value, "violated here")
    elif ev.best is not None:
        p = ev.best
        if ev.mp_best is not None and ev.surrogate is None:
            p = ev.mp_best  # the lowest margin confirmed at 30 digits (float64 may misjudge near ties)
        closest = _closest(claim, ev, p)
    bad = [e for e in ev.errors if e]
    if ev.errors:
        notes.append(f"{len(ev.errors)} points could not be evaluated" + (f"; first: {bad[0]}" if bad else ""))
    strategy = (f"margin optimisation over {space.describe()}: " + "; ".join(phases)
                + f" ({ev.tried} points, seed {seed})")
    return SearchResult(claim.key, found, ev.tried, strategy, closest, time.perf_counter() - t0, notes)


def _certified_record(claim: Claim, point: dict[str, sp.Rational], start: dict[str, sp.Rational],
                      dps: int) -> Counterexample | None:
    rec = certify_point(claim, point, dps=dps)
    if rec is None:
        return None
    if point != start:
        rec = Counterexample(rec.params, rec.lhs, rec.rhs, rec.relation, rec.margin, rec.certified, rec.evidence,
                             found_at=_render(start))
    return rec


def _closest(claim: Claim, ev: _Evaluator, p: dict[str, sp.Rational]) -> Closest:
    m, lhs, rhs = ev.best_m, "", ""
    out = ev.confirm(p, 30)
    if out is not None:
        m, lhs, rhs = out.margin, _nstr(out.lhs), _nstr(out.rhs)
        if ev.surrogate is not None:
            m = ev.best_m  # the flat margin (+inf) says nothing: report the existence condition's slack
            flip = (f"the existence condition of the limit holds with relative slack {m:.3g} (the limit becomes "
                    "infinite where the slack reaches 0)")
            return Closest(_render(p), m, lhs, rhs, flip)
        return Closest(_render(p), m, lhs, rhs, _flip_words(claim, m, out.lhs, out.rhs))
    return Closest(_render(p), m, lhs, rhs, _flip_words(claim, m, None, None))


def _run_phases(space: _Space, ev: _Evaluator, rng: np.random.Generator, budget: int,
                phases: list[str], tick: Callable[[], None]) -> None:
    """The four phases of the module docstring; ``ev.cost`` is the budget meter."""
    # 1. seeded starts in the transformed space; draws the region's conditions refuse are redrawn
    n_starts = max(8, int(_SPLIT[0] * budget))
    starts: list[_Start] = []
    taken: set[tuple[Any, ...]] = set()
    drawn = empty = 0
    try:
        while len(starts) < n_starts and drawn < 20 * n_starts and empty < 8:
            if ev.cost >= _SPLIT[0] * budget and starts:
                break
            T, S = _draw_coords(space, rng, 128)
            drawn += 128
            cands = _valid_draws(space, ev, T, S, taken, n_starts - len(starts))
            empty = 0 if cands else empty + 1
            if cands:
                starts.extend(_evaluate(ev, cands))
            tick()
    except _Stop:
        phases.append(f"{len(taken)} seeded starts in the region (found; {drawn} drawn)")
        raise
    phases.append(f"{len(starts)} seeded starts in the region ({drawn} drawn, the others refused by the "
                  "region's conditions or repeated)")
    if space.dim == 0 or not starts:
        return

    # 2. targeted mutation of the best starts (what a property-based search's target phase does)
    before = ev.tried
    try:
        _mutate(space, ev, rng, starts, stop_at=ev.cost + max(10.0, _SPLIT[1] * budget), tick=tick)
    finally:
        phases.append(f"targeted mutation of the best points ({ev.tried - before} points)")

    # 3. local optimisation from the best distinct starts
    from scipy.optimize import minimize

    pool = [st for st in starts if not math.isnan(st.m)]
    if ev.best is not None:
        pool.append(_Start(space.encode(ev.best), np.full(space.dim, np.nan), ev.best, ev.best_m))
    picks = [space.encode(st.point) for st in _diverse(space, pool, 6)]
    local_stop = ev.cost + max(20.0, _SPLIT[2] * budget)
    per = max(10, int(_SPLIT[2] * budget) // max(1, len(picks)))
    before = ev.tried

    class _Spent(Exception):
        pass

    def f(t: np.ndarray) -> float:
        if ev.cost >= local_stop:
            raise _Spent
        p = space.decode(t)
        m = ev.margin_one(p)
        if ev.screen(p, m):
            raise _Stop
        tick()
        if math.isnan(m):
            return 1e3
        return max(min(m, 1e3), -1e3)

    try:
        for t0 in picks:
            simplex = np.vstack([t0] + [t0 + np.eye(space.dim)[k] * 1.5 for k in range(space.dim)])
            res = minimize(f, t0, method="Nelder-Mead",
                           options={"maxfev": per // 2, "initial_simplex": simplex, "xatol": 1e-6, "fatol": 1e-14})
            minimize(f, res.x, method="Powell", options={"maxfev": per // 2, "xtol": 1e-6, "ftol": 1e-14})
    except _Spent:
        pass
    phases.append(f"Nelder-Mead + Powell from {len(picks)} starts ({ev.tried - before} points)")

    # 4. integer neighbourhood moves around the best point
    before = ev.tried
    _integer_moves(space, ev, stop_at=max(ev.cost + 10, budget))
    phases.append(f"integer neighbourhood moves ({ev.tried - before} points)")


def _integer_moves(space: _Space, ev: _Evaluator, stop_at: float) -> None:
    ints = [c for c in space.coords if c.kind in ("int", "choice")]
    if not ints or ev.best is None:
        return
    cur, cur_m = dict(ev.best), ev.best_m
    improved = True
    while improved and ev.cost < stop_at:
        improved = False
        for c in ints:
            v = cur[c.name]
            if c.kind == "choice":
                k = list(c.choices).index(v) if v in c.choices else 0
                cands = [c.choices[j] for j in (k - 1, k + 1, k - 5, k + 5) if 0 <= j < len(c.choices)]
            else:
                iv = int(v)
                top = max(iv, int(c.hi))  # moves stay in the search box (or where the point already is)
                moves = {iv - 1, iv + 1, iv - 2, iv + 2, 2 * iv, iv // 2}
                cands = [sp.Integer(x) for x in sorted(moves) if x != iv and x <= top]
                step = space.multiples.get(c.name)
                if step is not None:
                    fn, deps = step
                    s = max(1, round(float(fn(*(float(cur[d]) for d in deps)))))
                    moves = {iv - s, iv + s, 2 * iv, iv - iv % s}
                    cands = [sp.Integer(x) for x in sorted(moves) if 0 < x <= top and x != iv]
            pts: list[dict[str, sp.Rational] | None] = [{**cur, c.name: x} for x in cands]
            ms = ev.margins(pts)
            if ev.maybe_confirm(pts, ms):
                raise _Stop
            j = int(np.nanargmin(ms)) if not np.all(np.isnan(ms)) else -1
            if j >= 0 and ms[j] < cur_m:
                p = pts[j]
                assert p is not None
                cur, cur_m = p, float(ms[j])
                improved = True


#: the targeted mutation keeps this many parents: the lowest-margin points that are pairwise at RMS distance
#: >= _RADIUS in the unit cube of the coordinates (so one basin of low margins cannot take every place)
_ELITE = 8
_RADIUS = 0.2


def _diverse(space: _Space, pop: list[_Start], k: int) -> list[_Start]:
    """The ``k`` lowest-margin points that are pairwise apart: each at RMS distance >= _RADIUS from the
    ones taken before it in the unit cube of the coordinates (``w``), lowest margin first; fewer when
    the population has fewer such points."""
    out: list[_Start] = []
    ws: list[np.ndarray] = []
    for st in sorted(pop, key=lambda st: st.m):
        if len(out) >= k:
            break
        w = 1.0 / (1.0 + np.exp(-np.clip(space.encode(st.point), -40.0, 40.0)))
        if all(float(np.sqrt(np.mean((w - v) ** 2))) >= _RADIUS for v in ws):
            out.append(st)
            ws.append(w)
    return out


def _mutate(space: _Space, ev: _Evaluator, rng: np.random.Generator, starts: list[_Start], stop_at: float,
            tick: Callable[[], None]) -> None:
    """Targeted mutation of the best points (phase 2 of the module docstring).

    Parents: :func:`_diverse` (the ``_ELITE`` lowest-margin points of everything evaluated so far, pairwise
    apart). Each generation, every parent gets one child per coordinate with that coordinate redrawn from
    the mixture of :func:`_draw_coords` (a coordinate sweep), then up to 16 children of rank-biased
    parents with one coordinate redrawn (40%), one coordinate moved (30%) or every coordinate moved (30%)
    by a Gaussian step of random scale 10^-2..10^0.5 in the transformed space. Children outside the
    region or already evaluated are refused, not counted.
    """
    pop = [st for st in starts if not math.isnan(st.m)]
    elite = _diverse(space, pop, _ELITE)
    if not elite:
        return
    taken: set[tuple[Any, ...]] = set()
    fails = 0
    d = space.dim
    while ev.cost < stop_at and fails < 8:
        n_sweep = len(elite) * d
        n = n_sweep + 64
        T = np.empty((n, d))
        S = np.empty((n, d))
        fresh_t, fresh_s = _draw_coords(space, rng, n)
        for r in range(n):
            if r < n_sweep:
                par, j, move = elite[r // d], r % d, 0.0
            else:
                par = elite[min(int(rng.exponential(2.0)), len(elite) - 1)]
                j, move = int(rng.integers(d)), float(rng.random())
            t = np.clip(par.t, -35.0, 35.0)
            sv = par.s.copy()
            if move < 0.4:
                t[j], sv[j] = fresh_t[r, j], fresh_s[r, j]
            elif move < 0.7:
                t[j] += rng.normal(0.0, 10.0 ** rng.uniform(-2.0, 0.5))
                sv[j] = np.nan
            else:
                t = t + rng.normal(0.0, 10.0 ** rng.uniform(-2.0, 0.5), d)
                sv[:] = np.nan
            T[r], S[r] = t, sv
        cands = _valid_draws(space, ev, T, S, taken, min(n_sweep + 16, max(1, math.ceil(stop_at - ev.cost))))
        if not cands:
            fails += 1
            continue
        fails = 0
        kids = _evaluate(ev, cands)
        tick()
        pop.extend(k for k in kids if not math.isnan(k.m))
        elite = _diverse(space, pop, _ELITE)
