"""Deciding a claim at one point, and region membership.

One point decision, :func:`point_decision`, with three rules: ``"mp"`` (both sides with mpmath at ``dps``
digits and the relation there; ties at working precision are undecided), ``"margin"`` (that, then rigorously
where it can: the claim's margin on balls at the exact inputs, :mod:`dptheory.verify.margin`, else two mpmath
evaluations) and ``"separation"`` (a point where the relation fails at ``dps`` digits, certified when the two
sides' certified enclosures are separated in the violating direction). :func:`evaluate_point` (rule ``"mp"``),
:func:`decide_point` (rule ``"margin"``) and :func:`dptheory.verify.search.certify_point` (rule
``"separation"``, after its region check) are its thin callers.

**How inputs become balls** (one rule, :func:`exact_balls`): an exact input (int, Rational, Fraction) becomes a
ball at the working precision in force when it is evaluated, rounded anew at every precision a decision tries;
integers stay exact ``int``. The margin's sign (:func:`margin_sign`) builds its balls this way at each precision
for the point decision and for the exhaustive evaluation of finite regions (:mod:`dptheory.verify.checking`);
the sides' enclosures (:func:`dptheory.verify.sides.side_enclosure`,
:func:`dptheory.verify.sides.certified_enclosure`) build theirs the same way at their precision.

Shared by the search (:mod:`dptheory.verify.checking`, :mod:`dptheory.verify.search`), exhaustive sets,
pinned counterexamples and the branch and bound (:mod:`dptheory.verify.certify`); it sits below all of
them so that none imports another.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import mpmath
import sympy as sp

from dptheory.core.claims import Claim, NoBallEvaluator, Relation
from dptheory.core.conditions import Condition
from dptheory.core.notation import Param, format_rational, parse_point
from dptheory.verify.margin import Margin, decide_ball, is_inf, margin_of, mp_margin
from dptheory.verify.sides import ball_of, certified_enclosure, side_enclosure, side_mp

__all__ = [
    "BOX_PREC",
    "PointDecision",
    "PointOutcome",
    "ball_text",
    "claim_conditions",
    "counterexample_record",
    "decide_point",
    "evaluate_point",
    "exact_balls",
    "in_region",
    "margin_sign",
    "point_decision",
    "region_conditions",
    "relation_text",
    "sign_words",
    "violation_certified",
]

#: working precision (bits) of the branch and bound and the lowest of a point decision on balls
BOX_PREC = 64


@dataclass(frozen=True)
class PointOutcome:
    holds: bool | None  # None: cannot decide at this precision
    lhs: mpmath.mpf
    rhs: mpmath.mpf
    margin: float  # signed relative margin, > 0 when the claim holds


def evaluate_point(claim: Claim, point: Mapping[str, Any], *, dps: int = 50) -> PointOutcome:
    """Both sides at ``dps`` digits and whether the claim holds there (:func:`point_decision`, rule ``"mp"``)."""
    return point_decision(claim, point, dps=dps, rule="mp").outcome


def _mp_outcome(claim: Claim, exact: Mapping[str, sp.Rational], dps: int) -> PointOutcome:
    """Both sides with mpmath at ``dps`` digits, their margin (:func:`~dptheory.verify.margin.mp_margin`, an
    equality's tolerance ``10^-(dps - 8)``) and the relation there: ``None`` where the two sides tie at working
    precision (a tie of two equal infinities is decided: it holds for ``<=``, ``>=``, ``==``)."""
    lhs = side_mp(claim.lhs, exact, dps)
    rhs = side_mp(claim.rhs, exact, dps)
    tol = mpmath.mpf(10) ** (-(dps - 8))
    with mpmath.workdps(dps):
        m = mp_margin(claim, lhs, rhs, tol=tol)
        if claim.factor is not None:
            if lhs <= 0 or rhs <= 0 or mpmath.isinf(lhs) or mpmath.isinf(rhs):
                return PointOutcome(False, lhs, rhs, m)
            return PointOutcome(None if abs(m) < float(tol) else m > 0, lhs, rhs, m)
        if mpmath.isinf(lhs) or mpmath.isinf(rhs):
            if mpmath.isinf(lhs) and mpmath.isinf(rhs) and (lhs > 0) == (rhs > 0):
                holds_inf: bool | None = claim.relation in (Relation.LE, Relation.GE, Relation.EQ)
            else:
                holds_inf = claim.relation.holds(lhs, rhs)
            return PointOutcome(holds_inf, lhs, rhs, m)
        scale = max(abs(lhs), abs(rhs))
        diff = rhs - lhs
        if claim.relation is Relation.EQ:
            return PointOutcome(abs(diff) <= tol * max(scale, mpmath.mpf(1e-300)), lhs, rhs, m)
        if abs(diff) <= tol * scale:
            # a tie at working precision: strict relations fail on an exact tie, but we cannot
            # tell a tie from a tiny difference here
            return PointOutcome(None, lhs, rhs, m)
        return PointOutcome(claim.relation.holds(lhs, rhs), lhs, rhs, m)


def in_region(claim: Claim, point: Mapping[str, Any]) -> bool:
    """Whether an exact point lies in the claim's region: every referenced theorem's conditions hold there
    (derived parameters filled in; a limit's own parameter excepted) and every region constraint holds."""
    exact = parse_point(point, key=claim.key)
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


# ============================================================================ the point decision


#: how a point is decided (see the module docstring)
Rule = Literal["mp", "margin", "separation"]


@dataclass(frozen=True)
class PointDecision:
    """Whether a claim holds at one exact point.

    Attributes:
        holds: True / False, or None when the two sides cannot be separated.
        certified: the decision rests on ball arithmetic (the margin's sign at exact inputs, or separated
            enclosures of the two sides).
        lhs, rhs: the two sides: ``{"label", "value", "lo", "hi", "why_not"}`` (enclosure ends rounded
            outward when available).
        margin: the signed relative margin (rhs - lhs)/max(|lhs|, |rhs|) oriented so that > 0 holds
            (log-ratio slack for a factor claim); a float.
        evidence: in words ("" for the rule ``"mp"``, and for ``"separation"`` where the relation does not fail).
        outcome: the mpmath evaluation at ``dps`` digits the decision starts from.
        exact: the point as exact values.
    """

    holds: bool | None
    certified: bool
    lhs: dict[str, Any]
    rhs: dict[str, Any]
    margin: float
    evidence: str
    outcome: PointOutcome = field(repr=False, compare=False, default=None)  # type: ignore[assignment]
    exact: Mapping[str, sp.Rational] = field(repr=False, compare=False, default_factory=dict)


def ball_text(x: Any, digits: int = 22) -> tuple[str, str]:
    """A ball's ends as decimal strings rounded outward (``"inf"``/``"-inf"`` for an exact infinity)."""
    from dptheory.core.compile import decimal_bound

    if is_inf(x):
        return ("inf", "inf") if x > 0 else ("-inf", "-inf")
    return decimal_bound(x.lower(), digits, down=True), decimal_bound(x.upper(), digits, down=False)


def exact_balls(exact: Mapping[str, Any]) -> dict[str, Any]:
    """The point's balls at the working precision in force (the one rule of the module docstring)."""
    return {k: ball_of(v) for k, v in exact.items()}


def margin_sign(
    m: Margin,
    exact: Mapping[str, Any],
    precs: Sequence[int],
    *,
    catch: tuple[type[BaseException], ...],
) -> tuple[bool, bool, Any, int, str]:
    """The sign of the claim's margin on balls, at each working precision of ``precs`` in turn until it is
    decided: ``(certainly holds, certainly fails, the last ball, its precision, why undecided)``.

    The exact point's balls are built at each precision (:func:`exact_balls`); an error of ``catch`` at one
    precision moves on to the next, :class:`NoBallEvaluator` stops (the margin has no ball there at any
    precision). Used by :func:`point_decision` (exact points: pins, counterexamples, closest approaches) and
    by the exhaustive evaluation of finite regions (:mod:`dptheory.verify.checking`).
    """
    import flint

    d: Any = None
    prec = 0
    last = ""
    for prec in precs:
        try:
            with flint.ctx.workprec(prec):
                d = m.ball(exact_balls(exact))
            ok, bad = decide_ball(d, m.strict)
            if ok or bad:
                return ok, bad, d, prec, ""
            last = f"the margin's ball {d.str(5, radius=True)} contains 0"
        except NoBallEvaluator as exc:
            return False, False, d, prec, str(exc)
        except catch as exc:
            last = str(exc)
    return False, False, d, prec, last


def decide_point(claim: Claim, point: Mapping[str, Any], *, dps: int = 50) -> PointDecision:
    """Decide the claim at an exact point: by the margin's sign on balls when it has a ball evaluation
    (raising the precision up to about ``16 dps`` digits), else by two mpmath evaluations (``dps`` and
    ``dps + 20`` digits) that must agree on the side of the relation (not certified): :func:`point_decision`,
    rule ``"margin"``."""
    return point_decision(claim, point, dps=dps, rule="margin")


def counterexample_record(claim: Claim, dec: PointDecision) -> dict[str, Any]:
    """The record of a point where the claim fails (``dec.holds is False``), as a result reports it: the point
    (exact values, rendered), the two sides, the relation, the margin, whether the decision is certified and its
    evidence."""
    return {
        "params": {k: format_rational(v) for k, v in dec.exact.items()},
        "lhs": dec.lhs,
        "rhs": dec.rhs,
        "relation": relation_text(claim),
        "margin": dec.margin,
        "certified": dec.certified,
        "evidence": dec.evidence,
    }


def point_decision(claim: Claim, point: Mapping[str, Any], *, dps: int = 50, rule: Rule = "margin") -> PointDecision:
    """The one point decision (the rules are in the module docstring): the two sides with mpmath at ``dps``
    digits, then, for ``"margin"``, the margin's sign on balls, for ``"separation"`` (where the relation fails
    at ``dps`` digits) the sides' certified enclosures."""
    exact = parse_point(point, key=claim.key)
    out = _mp_outcome(claim, exact, dps)
    digits = min(dps, 20)
    if rule == "mp":
        return _mp_only(claim, out, exact, digits)
    if rule == "separation":
        return _by_separation(claim, exact, out, dps)
    return _by_margin(claim, exact, out, dps)


def _mp_only(claim: Claim, out: PointOutcome, exact: Mapping[str, sp.Rational], digits: int) -> PointDecision:
    """The mpmath outcome as a decision (no enclosures, no evidence)."""
    lhs, rhs = (
        _side_record(q, v, digits) for q, v in ((claim.lhs, out.lhs), (claim.rhs, out.rhs))
    )
    return PointDecision(out.holds, False, lhs, rhs, out.margin, "", out, exact)


def _side_record(q: Any, value: Any, digits: int, ball: Any = None, why: str = "") -> dict[str, Any]:
    """A side as a decision shows it: its label, its mpmath ``value`` to ``digits`` significant digits (fewer
    if the side declares fewer: :func:`shown_digits`), the ends of its enclosure ``ball`` rounded outward to
    ``digits + 2`` digits (when given), and why it has none."""
    text = side_text(q, value, digits)
    rec: dict[str, Any] = {"label": q.label, "value": text, "lo": None, "hi": None, "why_not": why}
    if ball is not None:
        rec["lo"], rec["hi"] = ball_text(ball, digits + 2)
    return rec


def shown_digits(q: Any, digits: int) -> int:
    """How many significant digits of side ``q``'s value a decision shows: ``digits``, or fewer when the side
    declares that its value is reproducible to fewer (``Custom.digits``: a floating-point computation). Printed
    digits are correct digits."""
    own = getattr(q, "digits", None)
    return digits if own is None else min(digits, own)


def side_text(q: Any, v: Any, digits: int) -> str:
    """Side ``q``'s mpmath value ``v`` to ``digits`` significant digits, or fewer when the side declares fewer
    (:func:`shown_digits`); anything else as ``str``. Every record of a side's value (a decision, a closest approach)
    prints it with this function."""
    return mpmath.nstr(v, shown_digits(q, digits)) if isinstance(v, mpmath.mpf) else str(v)


def _by_margin(claim: Claim, exact: Mapping[str, sp.Rational], out: PointOutcome, dps: int) -> PointDecision:
    from dptheory.core.compile import Undecided

    m = margin_of(claim)
    digits = min(dps, 20)
    rel = mp_margin(claim, out.lhs, out.rhs)
    sides = []
    for q, v in ((claim.lhs, out.lhs), (claim.rhs, out.rhs)):
        ball, why = side_enclosure(q, exact, int(dps * 3.33) + 64)
        shown = ball is not None and (ball.is_finite() or is_inf(ball))
        sides.append(_side_record(q, v, digits, ball if shown else None, why))
    if m.certifiable:
        base = int(dps * 3.33) + 32
        precs = [max(BOX_PREC, base) * 2**k for k in range(8) if max(BOX_PREC, base) * 2**k <= 16 * base]
        errors = (Undecided, ZeroDivisionError, ValueError)
        ok, bad, d, prec, last = margin_sign(m, exact, precs, catch=errors)
        if ok or bad:
            word = "holds" if ok else "fails"
            evidence = (
                f"certified: the margin ({m.describe()}) is {sign_words(d)} on balls at "
                f"{prec} bits, so '{relation_text(claim)}' {word}"
            )
            return PointDecision(bool(ok), True, sides[0], sides[1], rel, evidence, out, exact)
        why = f"the margin could not be decided on balls ({last})"
    else:
        why = m.why_not
    tie = _exact_tie(claim, exact)
    if tie is not None:
        said = f"'{relation_text(claim)}' {'holds' if tie else 'fails'}"
        return PointDecision(tie, True, sides[0], sides[1], rel, "exact: the two sides are equal at this point (sympy: "
                             f"lhs - rhs simplifies to 0), so {said}", out, exact)
    if out.holds is None:
        return PointDecision(None, False, sides[0], sides[1], rel, f"a tie at {dps} digits; {why}", out, exact)
    word = "holds" if out.holds else "fails"
    evidence = f"confirmed at {dps} digits (not certified): '{relation_text(claim)}' {word}; {why}"
    return PointDecision(out.holds, False, sides[0], sides[1], rel, evidence, out, exact)


def _exact_tie(claim: Claim, exact: Mapping[str, sp.Rational]) -> bool | None:
    """Where balls cannot separate the sides, an exact tie: when both sides are sympy expressions and their
    difference at the exact point simplifies to 0, a non-strict relation (or ``==``) holds and a strict one fails;
    None otherwise (no expression, a factor claim, or not shown equal)."""
    a, b = claim.lhs.expression(), claim.rhs.expression()
    orders = (Relation.LE, Relation.GE, Relation.EQ, Relation.LT, Relation.GT)
    if a is None or b is None or claim.factor is not None or claim.relation not in orders:
        return None
    at = {s: exact[s.name] for s in (a - b).free_symbols if s.name in exact}
    if sp.simplify((a - b).xreplace(at)) != 0:
        return None
    return claim.relation in (Relation.LE, Relation.GE, Relation.EQ)


def _by_separation(claim: Claim, exact: Mapping[str, sp.Rational], out: PointOutcome, dps: int) -> PointDecision:
    digits = min(dps, 20)
    if out.holds is not False:
        return _mp_only(claim, out, exact, digits)
    L, why_l = certified_enclosure(claim.lhs, exact, dps)
    R, why_r = certified_enclosure(claim.rhs, exact, dps)
    lhs = _side_record(claim.lhs, out.lhs, digits, L, "" if L is not None else why_l)
    rhs = _side_record(claim.rhs, out.rhs, digits, R, "" if R is not None else why_r)
    certified = False
    if L is not None and R is not None:
        certified = violation_certified(claim, L, R)
        if certified:
            evidence = (
                f"certified: both sides enclosed by arb (lhs in [{lhs['lo']}, {lhs['hi']}], rhs in "
                f"[{rhs['lo']}, {rhs['hi']}]) and separated: '{relation_text(claim)}' fails"
            )
        else:
            evidence = (
                f"confirmed at {dps} digits (not certified): the arb enclosures of the two sides overlap "
                f"(lhs in [{lhs['lo']}, {lhs['hi']}], rhs in [{rhs['lo']}, {rhs['hi']}])"
            )
    else:
        evidence = f"confirmed at {dps} digits (not certified): {why_l or why_r}"
    return PointDecision(False, certified, lhs, rhs, out.margin, evidence, out, exact)


def violation_certified(claim: Claim, L: Any, R: Any) -> bool:
    """Whether the balls of the two sides prove the relation false (every value in them violates it)."""
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
        return {
            Relation.LT: same,
            Relation.GT: same,
            Relation.LE: not same and bool(L > R),
            Relation.GE: not same and bool(L < R),
            Relation.EQ: not same,
        }[claim.relation]
    return {
        Relation.LT: lambda: bool(L >= R),
        Relation.LE: lambda: bool(L > R),
        Relation.GT: lambda: bool(L <= R),
        Relation.GE: lambda: bool(L < R),
        Relation.EQ: lambda: not L.overlaps(R),
    }[claim.relation]()


def sign_words(d: Any) -> str:
    if d > 0:
        return "positive"
    if d >= 0:
        return "nonnegative"
    if d < 0:
        return "negative"
    return "nonpositive"


def relation_text(claim: Claim) -> str:
    """The relation as printed with a decision: ``"<"``, ``"<="``, ... or ``"within a factor 2"``."""
    return f"within a factor {claim.factor:g}" if claim.factor else claim.relation.value
