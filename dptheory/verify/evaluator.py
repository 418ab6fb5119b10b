"""Float64 margins of many points for the counterexample search (batched where the sides allow), with
the bookkeeping of the search: the budget meter, the best point, mpmath confirmations (see
:mod:`dptheory.verify.search`, "The strategy": float64 never decides a verdict)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from dptheory.core.claims import Claim, Quantity, Relation, TheoremSide
from dptheory.core.errors import DPTheoryError
from dptheory.verify.margin import EQ_TOL, float_margin, mp_margin
from dptheory.verify.points import PointOutcome, evaluate_point, side_text
from dptheory.verify.sides import side_mp, side_np, side_np_batch
from dptheory.verify.space import SearchSpace, float_fn, point_key, render_exact, render_point

__all__ = ["CLOSEST_DIGITS", "MP_COST", "SCREEN", "Evaluator", "closest_at", "closest_record", "flip_words"]

#: float64 margins below this are confirmed with mpmath (float64 never decides)
SCREEN = 1e-9
#: budget cost of one side evaluated with mpmath (no float64 kernel, or float64 gave NaN) instead of float64
MP_COST = 10


def flip_words(claim: Claim, m: float, lhs: Any, rhs: Any) -> str:
    """How far a point with margin ``m`` is from the relation flipping, in words."""
    if not math.isfinite(m):
        return "the relation cannot flip by a small change here (a side is infinite)"
    if claim.factor is not None:
        return (
            f"the ratio lhs/rhs would have to move by a factor {math.exp(max(m, 0.0)):.6g} "
            f"(log-margin {m:.3g}) to leave [1/{claim.factor:g}, {claim.factor:g}]"
        )
    if claim.relation is Relation.EQ:
        return f"the sides differ by {abs(m - EQ_TOL):.3g} relative (equality tolerance {EQ_TOL:g})"
    side = "lhs" if claim.relation in (Relation.LT, Relation.LE) else "rhs"
    try:
        a, b = float(lhs), float(rhs)
        big, small = (b, a) if side == "lhs" else (a, b)
        if small > 0 and big > 0:
            # near a tie, from the relative margin (computed at the point's precision: big/small - 1 in float64
            # would print 1 + 0 below 1e-16); m = (big - small)/big, so big/small - 1 = m/(1 - m)
            factor = f"1 + {m / (1 - m):.3g}" if 0 <= m < 1e-3 else f"{big / small:.6g}"
            return (
                f"{side} would have to grow by a factor {factor} (relative margin {m:.3g}) "
                f"for '{claim.relation.value}' to fail"
            )
    except (TypeError, ValueError, OverflowError, ZeroDivisionError):
        pass
    return f"relative margin {m:.3g} (the relative change of one side needed for '{claim.relation.value}' to fail)"


#: significant digits of the two sides in a closest-approach record (fewer where a side declares fewer): a side
#: evaluated at 30 digits keeps 15 digits of headroom, whatever its own error (an optimised order, a quadrature)
CLOSEST_DIGITS = 15


def closest_record(
    claim: Claim, point: Mapping[str, Any], margin: float, lhs: Any, rhs: Any, *, flip: str | None = None
) -> dict[str, Any]:
    """The closest approach at ``point`` as every result reports it (the search's, the box certifier's and the
    checker's on finite and sampled regions): the point's exact values rendered, the ``margin``, both sides'
    mpmath values ``lhs`` and ``rhs`` to :data:`CLOSEST_DIGITS` digits (:func:`dptheory.verify.points.side_text`;
    ``""`` for a side that was not evaluated) and ``flip``, how far the relation is from flipping in words
    (:func:`flip_words` unless given)."""
    return {
        "params": render_point(point, key=claim.key),
        "margin": margin,
        "lhs": "" if lhs is None else side_text(claim.lhs, lhs, CLOSEST_DIGITS),
        "rhs": "" if rhs is None else side_text(claim.rhs, rhs, CLOSEST_DIGITS),
        "flip": flip_words(claim, margin, lhs, rhs) if flip is None else flip,
    }


def closest_at(claim: Claim, point: Mapping[str, Any], *, dps: int = 30) -> dict[str, Any] | None:
    """:func:`closest_record` at ``point`` with both sides and the margin evaluated with mpmath at ``dps`` digits;
    None where a side cannot be evaluated there."""
    try:
        out = evaluate_point(claim, point, dps=dps)
    except DPTheoryError:
        return None
    return closest_record(claim, point, mp_margin(claim, out.lhs, out.rhs), out.lhs, out.rhs)


class Evaluator:
    """Float64 margins of many points (batched where the sides allow), with bookkeeping."""

    def __init__(self, claim: Claim, space: SearchSpace) -> None:
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
    def _surrogate(self) -> tuple[TheoremSide, Callable[..., Any], tuple[str, ...], bool] | None:
        """``lim X < +inf`` with a declared existence condition: margin = that condition's slack."""
        c = self.claim
        for q, other, rel_ok in ((c.lhs, c.rhs, (Relation.LT,)), (c.rhs, c.lhs, (Relation.GT,))):
            if not isinstance(q, TheoremSide) or q.limit is None or c.relation not in rel_ok:
                continue
            if isinstance(other, TheoremSide) or other.needed():
                continue
            t = q.thm()
            lim = t.limits.get(q.limit)
            if lim is None or lim.exists_when is None:
                continue
            try:
                v = float(side_mp(other, {}, 20))
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
            fn, deps = float_fn(expr / scale)
            return q, fn, deps, True
        return None

    # ------------------------------------------------------------------ float sides
    def _side_values(self, q: Quantity, pts: list[dict[str, sp.Rational]]) -> np.ndarray:
        """Float values of one side; a point the float64 path cannot do (no kernel, NaN, an error)
        is evaluated with mpmath at 20 digits (and costs MP_COST points of the budget)."""
        out = np.full(len(pts), np.nan)
        # a theorem's float64 kernel on the whole batch; a limit's where it is its closed form (its expression)
        if isinstance(q, TheoremSide) and (q.limit is None or q.expression() is not None):
            arrays = {k: np.array([float(p[k]) for p in pts]) for k in q.needed() if k != q.limit}
            try:
                vals = side_np_batch(q, arrays)
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
            if isinstance(q, TheoremSide) and q.limit is not None:
                t = q.thm()
                pt = q.point(p)
                self.cost += MP_COST
                with mpmath.workdps(20):
                    return float(t.limits[q.limit].mp(t.kernel_args(pt)))
            v = None
            if float64:
                try:
                    v = side_np(q, p)
                except DPTheoryError:
                    v = None
            if v is None or math.isnan(v):
                self.cost += MP_COST
                return float(side_mp(q, p, 20))
            return float(v)
        except (DPTheoryError, ValueError, ZeroDivisionError, OverflowError, TypeError, KeyError) as exc:
            self._err(p, exc)
            return math.nan

    def _err(self, p: Mapping[str, sp.Rational], exc: BaseException) -> None:
        if len(self.errors) < 20:
            self.errors.append(f"{render_exact(p)}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")
        else:
            self.errors.append("")

    def margins(self, pts: list[dict[str, sp.Rational] | None]) -> np.ndarray:
        """Float64 margins (NaN: outside the region or not evaluable); counts every point."""
        ms = np.full(len(pts), np.nan)
        todo: list[int] = []
        for i, p in enumerate(pts):
            if p is None:
                continue
            key = point_key(p)
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
            got = np.array([float_margin(self.claim, float(a), float(b)) for a, b in zip(lv, rv, strict=True)])
        for j, i in enumerate(todo):
            m = float(got[j])
            ms[i] = m
            p = pts[i]
            assert p is not None
            self.seen[point_key(p)] = m
            if not math.isnan(m) and m < self.best_m:
                self.best_m, self.best = m, dict(p)
        return ms

    def margin_one(self, p: dict[str, sp.Rational] | None) -> float:
        return float(self.margins([p])[0])

    # ------------------------------------------------------------------ confirmation
    def confirm(self, p: Mapping[str, sp.Rational], dps: int = 30) -> PointOutcome | None:
        """mpmath at ``dps`` digits at an exactly valid point; None if outside or not evaluable."""
        key = point_key(p)
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
        if point_key(p) in self.mp_checked:
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
        order = sorted(
            np.argsort(np.where(np.isnan(ms), np.inf, ms), kind="stable"),
            key=lambda i: (0, self._size(pts[i])) if ms[i] < -1e-6 else (1, 0.0),
        )
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
