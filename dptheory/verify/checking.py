"""Deciding claims: symbolic first, then exhaustive on finite regions, then property-based search.

Verdicts:

* ``verified``: the claim held at every point tried (or was proved symbolically; the result says
  which). A property-based "verified" is a statement about the tested region, not a proof.
* ``falsified``: a counterexample was found (a pinned one, or one found by the search and shrunk by
  hypothesis) and re-verified at >= 50 significant digits; both sides are reported.
* ``undecided``: the two sides could not be separated at the working precision, or the search hit
  points it could not evaluate.

The search evaluates both sides in float64 where a float64 kernel exists (fast), steers toward
violations with ``hypothesis.target`` on the relative margin, and confirms anything closer than
1e-9 relative with mpmath at 30 digits before calling it a violation.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import mpmath
import sympy as sp

from dptheory.core.claims import Claim, Relation
from dptheory.core.errors import DPTheoryError
from dptheory.core.notation import format_rational, parse_value


class Verdict(StrEnum):
    VERIFIED = "verified"
    FALSIFIED = "falsified"
    UNDECIDED = "undecided"

    def __str__(self) -> str:
        return self.value


@dataclass
class ClaimResult:
    """Outcome of checking one claim."""

    claim: str
    verdict: Verdict
    method: str
    examples_tried: int = 0
    counterexample: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)
    duration_s: float = 0.0
    closest: dict[str, Any] | None = None

    def _repr_html_(self) -> str:
        import html

        ce = ""
        if self.counterexample:
            c = self.counterexample
            pts = ", ".join(f"{k}={v}" for k, v in c["params"].items())
            ce = (
                f"<br>counterexample: {html.escape(pts)}: {html.escape(c['lhs']['label'])} = "
                f"{html.escape(c['lhs']['value'])} vs {html.escape(c['rhs']['label'])} = "
                f"{html.escape(c['rhs']['value'])}"
            )
        return (
            f"<p><b>{html.escape(self.claim)}</b>: {self.verdict.value} ({html.escape(self.method)}, "
            f"{self.examples_tried} points){ce}</p>"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "claim": self.claim,
            "verdict": self.verdict.value,
            "method": self.method,
            "counterexample": self.counterexample,
            "examples_tried": self.examples_tried,
            "notes": self.notes,
        }


@dataclass(frozen=True)
class PointOutcome:
    holds: bool | None  # None: cannot decide at this precision
    lhs: mpmath.mpf
    rhs: mpmath.mpf
    margin: float  # signed relative margin, > 0 when the claim holds


def _margin(claim: Claim, lhs: float, rhs: float) -> float:
    """Signed relative margin (> 0: holds) from float values."""
    if claim.factor is not None:
        if lhs <= 0 or rhs <= 0:
            return -math.inf
        lr = math.log(lhs) - math.log(rhs)
        lf = math.log(claim.factor)
        return min(lf - lr, lr + lf)
    if math.isinf(lhs) or math.isinf(rhs):
        if math.isinf(lhs) and math.isinf(rhs):
            return 0.0
        return math.inf if claim.relation.holds(lhs, rhs) else -math.inf
    scale = max(abs(lhs), abs(rhs), 1e-300)
    d = (rhs - lhs) / scale
    return {
        Relation.LT: d,
        Relation.LE: d,
        Relation.GT: -d,
        Relation.GE: -d,
        Relation.EQ: 1e-12 - abs(d),
    }[claim.relation]


def evaluate_point(claim: Claim, point: Mapping[str, Any], *, dps: int = 50) -> PointOutcome:
    """Both sides at ``dps`` digits and whether the claim holds there."""
    exact = {k: parse_value(v, key=claim.key, name=k) for k, v in point.items()}
    lhs = claim.lhs.value_mp(exact, dps)
    rhs = claim.rhs.value_mp(exact, dps)
    tol = mpmath.mpf(10) ** (-(dps - 8))
    with mpmath.workdps(dps):
        if claim.factor is not None:
            if lhs <= 0 or rhs <= 0:
                return PointOutcome(False, lhs, rhs, -math.inf)
            ratio = lhs / rhs
            f = mpmath.mpf(claim.factor)
            m = float(min(mpmath.log(f) - mpmath.log(ratio), mpmath.log(ratio) + mpmath.log(f)))
            holds = None if abs(m) < float(tol) else m > 0
            return PointOutcome(holds, lhs, rhs, m)
        if mpmath.isinf(lhs) or mpmath.isinf(rhs):
            if mpmath.isinf(lhs) and mpmath.isinf(rhs) and (lhs > 0) == (rhs > 0):
                holds_inf: bool | None = claim.relation in (Relation.LE, Relation.GE, Relation.EQ)
            else:
                holds_inf = claim.relation.holds(lhs, rhs)
            return PointOutcome(holds_inf, lhs, rhs, math.inf if holds_inf else -math.inf)
        scale = max(abs(lhs), abs(rhs))
        diff = rhs - lhs
        rel = float(diff / scale) if scale else 0.0
        if claim.relation is Relation.EQ:
            holds_eq = abs(diff) <= tol * max(scale, mpmath.mpf(1e-300))
            return PointOutcome(holds_eq, lhs, rhs, float(tol) - abs(rel))
        if abs(diff) <= tol * scale:
            # a tie at working precision: strict relations fail on an exact tie, but we cannot
            # tell a tie from a tiny difference here
            return PointOutcome(None, lhs, rhs, rel if claim.relation in (Relation.LT, Relation.LE) else -rel)
        holds = claim.relation.holds(lhs, rhs)
        m = rel if claim.relation in (Relation.LT, Relation.LE) else -rel
        return PointOutcome(holds, lhs, rhs, m)


def _render_point(point: Mapping[str, Any]) -> dict[str, str]:
    return {k: format_rational(parse_value(v, key="point", name=k)) for k, v in point.items()}


def counterexample_record(claim: Claim, point: Mapping[str, Any], out: PointOutcome, dps: int) -> dict[str, Any]:
    return {
        "params": _render_point(point),
        "lhs": {"label": claim.lhs.label, "value": mpmath.nstr(out.lhs, min(dps, 30))},
        "rhs": {"label": claim.rhs.label, "value": mpmath.nstr(out.rhs, min(dps, 30))},
        "relation": f"within a factor {claim.factor}" if claim.factor else claim.relation.value,
        "dps": dps,
    }


def region_strategy(claim: Claim) -> Any:
    """Hypothesis strategy of the claim's region (sides' conditions with derived parameters, constraints)."""
    from dptheory.core.conditions import Condition
    from dptheory.testing.strategies import point_strategy

    conds: list[Condition] = []
    info: dict[str, Any] = {}
    order: list[str] = []
    for q in (r for side in claim.sides() for r in side.theorem_refs()):
        t = q.thm()
        for p in t.notation.params.values():
            info.setdefault(p.name, p)
            order.append(p.name)
        subs = {t.notation.sym(p): e for p, e in q.set.items()}
        for c in t.all_conditions:
            if q.limit is not None and t.notation.sym(q.limit) in c.symbols:
                continue
            rel = c.relation.xreplace(subs) if subs else c.relation
            if rel is sp.true:
                continue
            conds.append(Condition(rel, c.gloss, kind=c.kind) if subs else c)
    if claim.notation is not None:
        for p in claim.notation.params.values():
            info.setdefault(p.name, p)
            order.append(p.name)
    conds.extend(claim.region.constraints)
    # de-duplicate conditions (same relation from both sides)
    seen: set[Any] = set()
    uniq = []
    for c in conds:
        if c.relation in seen:
            continue
        seen.add(c.relation)
        uniq.append(c)
    return point_strategy(
        claim.params,
        uniq,
        info,
        fixed=claim.region.fixed,
        choices=claim.region.choices,
        ranges=claim.region.ranges,
        order_hint=list(dict.fromkeys(order)),
        key=claim.key,
    )


def _finite_points(claim: Claim) -> list[dict[str, Any]] | None:
    """All points of a finite region (every parameter fixed or a finite choice), else None."""
    names = claim.params
    fixed, choices = claim.region.fixed, claim.region.choices
    if not all(n in fixed or n in choices for n in names):
        return None
    pts: list[dict[str, Any]] = [{}]
    for n in names:
        vals = [fixed[n]] if n in fixed else list(choices[n])
        pts = [{**p, n: v} for p in pts for v in vals]
    return pts


def _screen(claim: Claim, points: list[dict[str, Any]]) -> list[float]:
    """float64 margins of a list of points (-inf where float64 cannot tell: mp decides those)."""
    import numpy as np

    exact = [{k: parse_value(v, key=claim.key, name=k) for k, v in pt.items()} for pt in points]
    arrays = {k: np.array([float(e[k]) for e in exact]) for k in exact[0]}
    sides = []
    for q in claim.sides():
        vals = q.value_np_batch(arrays)
        if vals is None:
            vals = np.array([_or_nan(q.value_np(e)) for e in exact])
        sides.append(vals)
    out = []
    for lf, rf in zip(sides[0], sides[1], strict=True):
        if not (math.isfinite(lf) and math.isfinite(rf)):
            out.append(-math.inf)
        else:
            out.append(_margin(claim, float(lf), float(rf)))
    return out


def _or_nan(v: float | None) -> float:
    return math.nan if v is None else v


def _in_region(claim: Claim, point: Mapping[str, Any]) -> bool:
    exact = {k: parse_value(v, key=claim.key, name=k) for k, v in point.items()}
    for q in (r for side in claim.sides() for r in side.theorem_refs()):
        t = q.thm()
        pt = q.point(exact)
        res = t.check(pt)
        if any(
            r.status.value != "holds" for r in res if not (q.limit and t.notation.sym(q.limit) in r.condition.symbols)
        ):
            return False
    for c in claim.region.constraints:
        subs = {s: exact[s.name] for s in c.symbols}
        if c.evaluate(subs).status.value != "holds":
            return False
    return True


def check_claim(
    claim: Claim,
    *,
    examples: int = 200,
    seed: int = 0,
    dps: int = 50,
    use_pinned: bool = True,
    progress: Any = None,
) -> ClaimResult:
    """Decide a claim; see the module docstring for the meaning of each verdict."""
    t0 = time.perf_counter()
    dps = max(dps, 50)
    notes: list[str] = []

    # 1. pinned counterexamples
    if use_pinned and claim.counterexamples:
        for pt in claim.counterexamples:
            out = evaluate_point(claim, pt, dps=dps)
            if out.holds is False:
                if not _in_region(claim, pt):
                    notes.append("pinned counterexample is outside the claim's region; ignored")
                    continue
                return ClaimResult(
                    claim.key,
                    Verdict.FALSIFIED,
                    "pinned counterexample",
                    1,
                    counterexample_record(claim, pt, out, dps),
                    notes,
                    time.perf_counter() - t0,
                )
        notes.append("no pinned counterexample falsifies the claim any more")

    # 2. symbolic
    if claim.symbolic is not None:
        from dptheory.core.symbolic import SymbolicVerdict

        res = claim.symbolic()
        notes.append(f"symbolic: {res.verdict.value}: {res.detail}")
        if res.verdict is SymbolicVerdict.PROVED:
            return ClaimResult(claim.key, Verdict.VERIFIED, "symbolic proof", 0, None, notes, time.perf_counter() - t0)

    # 3. finite region: every point, screened in float64 (one vectorised call per side), every
    #    point closer than 1e-6 relative (and every reported point) evaluated at `dps` digits
    pts = _finite_points(claim)
    if pts is not None:
        valid = [pt for pt in pts if _in_region(claim, pt)]
        if not valid:
            notes.append("no point of the finite region satisfies the conditions")
            return ClaimResult(claim.key, Verdict.UNDECIDED, "exhaustive", 0, None, notes, time.perf_counter() - t0)
        margins = _screen(claim, valid)
        undecided = 0
        worst_i = min(range(len(valid)), key=lambda i: margins[i])
        for i, pt in enumerate(valid):
            if progress is not None:
                progress(i + 1, len(valid))
            if margins[i] > 1e-6:
                continue
            out = evaluate_point(claim, pt, dps=dps)
            if out.holds is False:
                return ClaimResult(
                    claim.key,
                    Verdict.FALSIFIED,
                    f"exhaustive ({len(valid)} points)",
                    i + 1,
                    counterexample_record(claim, pt, out, dps),
                    notes,
                    time.perf_counter() - t0,
                )
            if out.holds is None:
                undecided += 1
        wp = valid[worst_i]
        closest = counterexample_record(claim, wp, evaluate_point(claim, wp, dps=dps), dps)
        if undecided:
            notes.append(f"{undecided} points tied at {dps} digits")
            return ClaimResult(
                claim.key, Verdict.UNDECIDED, "exhaustive", len(valid), None, notes, time.perf_counter() - t0, closest
            )
        return ClaimResult(
            claim.key,
            Verdict.VERIFIED,
            f"exhaustive ({len(valid)} points)",
            len(valid),
            None,
            notes,
            time.perf_counter() - t0,
            closest,
        )

    # 4. property-based search
    from hypothesis import HealthCheck, find, settings, target
    from hypothesis.errors import NoSuchExample, Unsatisfiable

    strategy = region_strategy(claim)
    tried = 0
    errors: list[str] = []
    worst_holder: dict[str, Any] = {}

    def fails(point: dict[str, sp.Rational]) -> bool:
        nonlocal tried
        tried += 1
        if progress is not None:
            progress(tried, examples)
        try:
            lf = claim.lhs.value_np(point)
            rf = claim.rhs.value_np(point)
        except (DPTheoryError, OverflowError, ZeroDivisionError) as exc:
            errors.append(f"{_render_point(point)}: {exc}")
            lf = rf = None
        if lf is not None and rf is not None and math.isfinite(lf) and math.isfinite(rf):
            m = _margin(claim, lf, rf)
            target(max(-m, -1e6), label="violation")
            if worst_holder.get("m", math.inf) > m:
                worst_holder.update(m=m, point=point)
            if m > 1e-9:
                return False
        try:
            out = evaluate_point(claim, point, dps=30)
        except DPTheoryError as exc:
            errors.append(f"{_render_point(point)}: {exc}")
            return False
        if worst_holder.get("m", math.inf) > out.margin:
            worst_holder.update(m=out.margin, point=point)
        return out.holds is False

    cfg = settings(
        max_examples=examples, database=None, deadline=None, suppress_health_check=list(HealthCheck), derandomize=False
    )
    try:
        found = find(strategy, fails, settings=cfg, random=random.Random(seed))
    except NoSuchExample:
        found = None
    except Unsatisfiable:
        notes.append("could not draw valid points from the region (conditions too restrictive?)")
        return ClaimResult(
            claim.key, Verdict.UNDECIDED, "property search", tried, None, notes, time.perf_counter() - t0
        )
    if errors:
        notes.append(f"{len(errors)} points could not be evaluated; first: {errors[0]}")
    closest = None
    if "point" in worst_holder:
        wp = worst_holder["point"]
        try:
            closest = counterexample_record(claim, wp, evaluate_point(claim, wp, dps=dps), dps)
        except DPTheoryError:
            closest = None
    if found is None:
        return ClaimResult(
            claim.key, Verdict.VERIFIED, "property search", tried, None, notes, time.perf_counter() - t0, closest
        )
    out = evaluate_point(claim, found, dps=dps)
    if out.holds is False:
        return ClaimResult(
            claim.key,
            Verdict.FALSIFIED,
            f"property search (shrunk, re-verified at {dps} digits)",
            tried,
            counterexample_record(claim, found, out, dps),
            notes,
            time.perf_counter() - t0,
        )
    notes.append(f"search flagged {_render_point(found)} but it does not fail at {dps} digits")
    return ClaimResult(
        claim.key, Verdict.UNDECIDED, "property search", tried, None, notes, time.perf_counter() - t0, closest
    )
