"""Deciding a claim at one point (both sides at a given precision) and region membership.

Shared by the search (:mod:`dptheory.verify.checking`, :mod:`dptheory.verify.search`) and the branch and
bound (:mod:`dptheory.verify.certify`); it sits below both so that neither imports the other.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import mpmath
import sympy as sp

from dptheory.core.claims import Claim, Relation
from dptheory.core.conditions import Condition
from dptheory.core.notation import Param, parse_value

__all__ = ["PointOutcome", "claim_conditions", "evaluate_point", "region_conditions"]


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
            if lhs <= 0 or rhs <= 0 or mpmath.isinf(lhs) or mpmath.isinf(rhs):
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


def _in_region(claim: Claim, point: Mapping[str, Any]) -> bool:
    exact = {k: parse_value(v, key=claim.key, name=k) for k, v in point.items()}
    for q in (r for side in claim.sides() for r in side.theorem_refs()):
        t = q.thm()
        assert t is not None  # theorem_refs() yields theorem references only (an unknown key raises)
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


def claim_conditions(claim: Claim, *, domain: bool = False) -> list[Condition]:
    """Every condition a point of the claim's region must satisfy: both sides' theorems' conditions with
    derived parameters substituted (their domain conditions too when ``domain``), then the region's
    constraints; each relation once."""
    conds: list[Condition] = []
    seen: set[str] = set()

    def add(c: Condition) -> None:
        key = sp.srepr(c.relation)
        if key not in seen:
            seen.add(key)
            conds.append(c)

    for q in (r for side in claim.sides() for r in side.theorem_refs()):
        t = q.thm()
        assert t is not None  # theorem_refs() yields theorem references only (an unknown key raises)
        subs = {t.notation.sym(p): e for p, e in q.set.items()}
        for c in t.all_conditions if domain else t.conditions:
            if q.limit is not None and t.notation.sym(q.limit) in c.symbols:
                continue
            rel = c.relation.xreplace(subs) if subs else c.relation
            if rel is sp.true:
                continue
            add(Condition(rel, c.gloss, kind=c.kind) if subs else c)
    for c in claim.region.constraints:
        add(c)
    return conds


def region_conditions(claim: Claim) -> tuple[list[Condition], dict[str, Param], list[str]]:
    """The conditions of the claim's region (:func:`claim_conditions` with the domain conditions), the
    parameter table and a name-order hint."""
    info: dict[str, Param] = {}
    order: list[str] = []
    tables = []
    for q in (r for side in claim.sides() for r in side.theorem_refs()):
        t = q.thm()
        assert t is not None
        tables.append(t.notation)
    if claim.notation is not None:
        tables.append(claim.notation)
    for table in tables:
        for p in table.params.values():
            info.setdefault(p.name, p)
            order.append(p.name)
    return claim_conditions(claim, domain=True), info, list(dict.fromkeys(order))
