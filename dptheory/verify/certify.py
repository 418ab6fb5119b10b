"""Certification of claims with ball arithmetic: at points, on finite sets, and on boxes (branch and bound).

**The margin.** A claim ``lhs REL rhs`` holds at a point when its margin ``rhs - lhs`` (for ``<``,
``<=``; ``lhs - rhs`` for ``>``, ``>=``) is positive (nonnegative for a non-strict relation); a "within a
factor f" claim when ``log f - |log(lhs/rhs)|`` is. Where both sides have sympy expressions
(closed-form statements, formulas, ``combine`` of those) the margin is built *symbolically*: the
difference is formed (identical sub-expressions such as the common first term of Ye & Shokri's Thm 3.3
and 4.2 cancel), the papers' shorthands are expanded, common factors are pulled out
(``sympy.factor_terms``) and every factor that sympy proves positive from the symbols' assumptions
(``alpha S_g^2/(b^2 sigma^2)``) is split off. What remains has the sign of the margin, is compiled to
arb (:func:`dptheory.core.compile.compile_expr`) and often no longer depends on some parameters at all:
the claim then holds for every value of those (the region says so). Otherwise the two sides are
evaluated on balls separately (:meth:`dptheory.core.claims.Quantity.value_arb`: theorems' compiled
statements or declared ``arb`` overrides) and subtracted.

**Points** (:func:`decide_point`): the margin is evaluated on exact inputs, raising the precision until
its sign is decided (a certified decision), else the two sides are evaluated with mpmath at ``dps``
digits twice (evidence, not proof: the result says so).

**Boxes** (:func:`certify_region`): branch and bound over the claim's :class:`~dptheory.core.claims.Box`
(continuous parameters in closed intervals, integers in ranges), its fixed values and finite choices.
For each box the claim's conditions are evaluated on balls (a box where a condition certainly fails is
outside the region and dropped); then the margin is evaluated on the box's balls: a box where its
lower end is positive (nonnegative) is certified; a box inside the region where it is certainly
violated gives a counterexample (a point of the box, decided exactly); otherwise the box is bisected in
the parameter whose collapse to its midpoint narrows the margin most (the most sensitive one), at the
geometric midpoint for log-scaled parameters. Integers inside floors, sums' limits, binomials and
``Mod`` are enumerated (split down to single values); other integers (epochs ``K`` in an exponent) are
treated as intervals. The budget counts boxes examined; when it runs out the result lists the boxes
still undecided, and the claim is not certified.

**nan never decides.** A margin, gradient or condition that comes back as a nan ball (python-flint's answer
where it has no enclosure: ``log`` or a division on a ball reaching 0) or as a ball of infinite radius bounds
nothing: the box is split (or, at the finest split, left undecided), never certified, dropped or taken as a
violation; the budget bounds the loop. Integer powers of balls with midpoint 0, which python-flint 0.9 returns
as nan (flint issue 426), are finite enclosures in the compiled kernels (:mod:`dptheory.core.compile`).
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath
import sympy as sp

from dptheory.core.claims import Box, Claim, NoBallEvaluator, Quantity, Relation, _ball_of
from dptheory.core.compile import informative_ball
from dptheory.core.conditions import Condition, Status
from dptheory.core.errors import DPTheoryError, InvalidParameter, NumericalFailure
from dptheory.core.notation import format_rational, parse_value
from dptheory.verify.points import claim_conditions

__all__ = [
    "BoxOutcome",
    "Margin",
    "PointDecision",
    "certify_region",
    "claim_conditions",
    "decide_point",
    "margin_of",
]

#: working precision (bits) of the branch and bound; raised for boxes narrower than 2^-40 relative
BOX_PREC = 64


# ============================================================================ the margin


@dataclass(frozen=True)
class Margin:
    """A function of the region's parameters whose sign decides the claim (see the module docstring).

    Attributes:
        claim: the claim.
        kind: ``"symbolic"`` (one compiled expression) or ``"sides"`` (the two sides on balls).
        expr: the reduced margin (symbolic kind).
        factors: the positive factors split off (symbolic kind), for the record.
        params: the parameters the margin depends on.
        exact_ints: integer parameters that must be exact to evaluate it (inside a floor, a sum's
            limits, a binomial or a ``Mod``): the branch and bound enumerates them.
        strict: a strict relation (the margin must be > 0, not merely >= 0).
        why_not: why the claim cannot be certified on balls (``""`` when it can).
    """

    claim: Claim
    kind: str
    expr: sp.Expr | None
    factors: tuple[sp.Expr, ...]
    params: tuple[str, ...]
    exact_ints: frozenset[str]
    strict: bool
    why_not: str = ""
    _compiled: Any = field(default=None, repr=False, compare=False)

    @property
    def certifiable(self) -> bool:
        return not self.why_not

    def grad(self, name: str) -> Any | None:
        """The compiled partial derivative of a symbolic margin in ``name`` (None where sympy or the
        compiler cannot give one, and for margins of the ``sides`` kind)."""
        if self.kind != "symbolic" or self.expr is None:
            return None
        cache = _GRADS.setdefault(id(self), {})
        if name not in cache:
            from dptheory.core.compile import CompileError, compile_expr

            sym = next((s for s in self.expr.free_symbols if s.name == name), None)
            comp = None
            # derivatives of finite sums with symbolic limits send sympy into its summation solver
            # (minutes): such margins are bounded without the derivative
            if sym is not None and not self.expr.has(sp.Sum, sp.Product):
                try:
                    g = sp.diff(self.expr, sym)
                    if g.has(sp.Derivative, sp.Subs):
                        raise CompileError("unevaluated derivative")
                    syms = {s.name: s for s in sorted(g.free_symbols, key=lambda s: s.name)}
                    comp = compile_expr(g, syms, integers=frozenset(n for n, s in syms.items() if s.is_integer))
                except (CompileError, TypeError, ValueError, NotImplementedError):
                    comp = None
            cache[name] = comp
        return cache[name]

    def ball(self, balls: Mapping[str, Any]) -> Any:
        """The margin on balls (at the current ``flint.ctx.prec``).

        Raises:
            NoBallEvaluator, dptheory.core.compile.Undecided, ZeroDivisionError, ValueError.
        """
        import flint

        if self.why_not:
            raise NoBallEvaluator(self.why_not)
        if self.kind == "symbolic":
            comp = self._compiled
            return comp.arb({k: balls[k] for k in comp.params})
        c = self.claim
        L = _arb(c.lhs.value_arb(balls))
        R = _arb(c.rhs.value_arb(balls))
        if c.factor is not None:
            f = flint.arb(c.factor).log()
            if not (L > 0 and R > 0):
                # a side that is certainly <= 0 fails the claim; one that straddles 0 is undecided
                return flint.arb(-1) if (L <= 0 or R <= 0) else flint.arb("nan")
            lr = L.log() - R.log()
            return (f - lr).min(lr + f)
        if _is_inf(L) or _is_inf(R):
            return _inf_margin(c.relation, L, R)
        return R - L if c.relation in (Relation.LT, Relation.LE) else L - R

    def describe(self) -> str:
        """What the margin is, in words (for notes)."""
        if self.why_not:
            return f"no ball evaluation: {self.why_not}"
        if self.kind == "symbolic":
            fs = ", ".join(sp.sstr(f) for f in self.factors)
            split = f"; positive factors split off: {fs}" if fs else ""
            return f"symbolic margin in {', '.join(self.params) or 'no parameters'}{split}"
        return "difference of the two sides' enclosures"


def _arb(x: Any) -> Any:
    import flint

    return x if isinstance(x, flint.arb) else flint.arb(x)


def _is_inf(x: Any) -> bool:
    return bool(x.is_exact() and not x.is_finite() and not x.is_nan())


def _inf_margin(rel: Relation, L: Any, R: Any) -> Any:
    import flint

    if _is_inf(L) and _is_inf(R):
        same = bool(L == R)
        ok = {Relation.LT: not same and bool(L < R), Relation.LE: same or bool(L < R),
              Relation.GT: not same and bool(L > R), Relation.GE: same or bool(L > R)}.get(rel, same)
    else:
        ok = rel.holds(float(L.mid()) if not _is_inf(L) else (math.inf if L > 0 else -math.inf),
                       float(R.mid()) if not _is_inf(R) else (math.inf if R > 0 else -math.inf))
        if (not _is_inf(L) and not L.is_finite()) or (not _is_inf(R) and not R.is_finite()):
            return flint.arb("nan")
    return flint.arb(1) if ok else flint.arb(-1)


def _canonical(exprs: Sequence[sp.Expr]) -> tuple[list[sp.Expr], dict[str, sp.Symbol]]:
    """Rename symbols so that one name is one symbol (notations may define a name with different
    assumptions); the first symbol met for a name wins."""
    chosen: dict[str, sp.Symbol] = {}
    for e in exprs:
        for s in sorted(e.free_symbols, key=lambda x: (x.name, str(x.assumptions0))):
            chosen.setdefault(s.name, s)
    out = []
    for e in exprs:
        rep = {s: chosen[s.name] for s in e.free_symbols if chosen[s.name] is not s}
        out.append(e.xreplace(rep) if rep else e)
    return out, chosen


def _substituted(claim: Claim, e: sp.Basic, chosen: Mapping[str, sp.Symbol] | None = None) -> sp.Basic:
    """Apply the certify box's change of variables (by parameter name) to an expression."""
    box = claim.region.certify
    if box is None or not box.substitute:
        return e
    rep = {s: box.substitute[s.name] for s in e.free_symbols if s.name in box.substitute}
    if not rep:
        return e
    out = e.xreplace(rep)
    (out,), _ = _canonical([out])
    return out


def _exact_int_names(expr: sp.Basic) -> set[str]:
    """Integer symbols that appear inside floors, ceilings, Mod, binomials or sum limits."""
    out: set[str] = set()
    for node in sp.preorder_traversal(expr):
        if isinstance(node, (sp.floor, sp.ceiling, sp.Mod, sp.binomial)):
            out |= {s.name for s in node.free_symbols if s.is_integer}
        elif isinstance(node, (sp.Sum, sp.Product)):
            for lim in node.limits:
                for b in lim[1:]:
                    out |= {s.name for s in sp.sympify(b).free_symbols if s.is_integer}
    return out


def _split_positive(expr: sp.Expr) -> tuple[sp.Expr, tuple[sp.Expr, ...]]:
    """``expr = positive * rest``: pull common factors out of sums and split off every factor sympy
    proves positive from the symbols' assumptions."""
    try:
        ft = sp.factor_terms(expr)
    except Exception:  # pragma: no cover - sympy failure: keep the expression as it is
        return expr, ()
    if not isinstance(ft, sp.Mul):
        return ft, ()
    keep: list[sp.Expr] = []
    pos: list[sp.Expr] = []
    for f in ft.args:
        (pos if f.is_positive is True else keep).append(f)
    return sp.Mul(*keep), tuple(pos)


_MARGINS: dict[str, Margin] = {}
_GRADS: dict[int, dict[str, Any]] = {}


def margin_of(claim: Claim) -> Margin:
    """The claim's margin (cached per claim key and object)."""
    hit = _MARGINS.get(claim.key)
    if hit is not None and hit.claim is claim:
        return hit
    m = _build_margin(claim)
    _MARGINS[claim.key] = m
    return m


def _build_margin(claim: Claim) -> Margin:
    from dptheory.core.compile import CompileError, compile_expr, expand_shorthands

    strict = claim.relation.strict if claim.factor is None else False
    if claim.factor is None and claim.relation is Relation.EQ:
        return Margin(claim, "none", None, (), (), frozenset(), False,
                      why_not="an equality is decided by a proof, not by interval arithmetic")
    le, re_ = claim.lhs.expression(), claim.rhs.expression()
    if claim.factor is None and le is not None and re_ is not None and not (le.has(sp.oo) or re_.has(sp.oo)):
        (le, re_), chosen = _canonical([le, re_])
        d = re_ - le if claim.relation in (Relation.LT, Relation.LE) else le - re_
        d = _substituted(claim, d, chosen)
        try:
            d = expand_shorthands(d)
            reduced, factors = _split_positive(d)
            syms = {s.name: s for s in sorted(reduced.free_symbols, key=lambda s: s.name)}
            int_syms = frozenset(n for n, s in syms.items() if s.is_integer)
            comp = compile_expr(reduced, syms, integers=int_syms)
            return Margin(claim, "symbolic", reduced, factors, tuple(syms), frozenset(_exact_int_names(reduced)),
                          strict, _compiled=comp)
        except CompileError:
            pass
    reasons = [r for r in (claim.lhs.ball_reason(), claim.rhs.ball_reason()) if r]
    names = tuple(dict.fromkeys([*claim.lhs.needed(), *claim.rhs.needed()]))
    ints: set[str] = set()
    for q in (claim.lhs, claim.rhs):
        for r in q.theorem_refs():
            t = r.thm()
            assert t is not None  # theorem_refs() yields theorem references only (an unknown key raises)
            e = r.expression()
            if e is not None:
                ints |= _exact_int_names(e)
            else:  # a kernel: every integer parameter is taken as needing an exact value
                ints |= {p for p in t.params if t.notation[p].domain.is_integer}
            for ex in r.set.values():
                ints |= {s.name for s in ex.free_symbols if s.is_integer}
        e = q.expression()
        if e is not None:
            ints |= _exact_int_names(e)
    return Margin(claim, "sides", None, (), names, frozenset(ints), strict, why_not="; ".join(reasons))


# ============================================================================ conditions on balls


@dataclass(frozen=True)
class _Cond:
    cond: Condition
    names: frozenset[str]
    compiled: Any  # compiled lhs - rhs, or None (decided exactly once every symbol is exact)
    bound: tuple[str, str, bool, Any] | None = None  # (p, "upper"/"lower", strict, compiled other side)


def _compile_conditions(claim: Claim) -> list[_Cond]:
    from dptheory.core.compile import CompileError, compile_expr

    out = []
    for c0 in claim_conditions(claim):
        rel = _substituted(claim, c0.relation)
        if rel is sp.true:
            continue
        c = c0 if rel is c0.relation else Condition(rel, c0.gloss, kind=c0.kind)
        names = frozenset(s.name for s in c.symbols)
        comp = None
        if isinstance(rel, (sp.StrictLessThan, sp.LessThan, sp.StrictGreaterThan, sp.GreaterThan)):
            g = rel.lhs - rel.rhs
            syms = {s.name: s for s in sorted(g.free_symbols, key=lambda s: s.name)}
            try:
                comp = compile_expr(g, syms, integers=frozenset(n for n, s in syms.items() if s.is_integer))
            except CompileError:
                comp = None
        out.append(_Cond(c, names, comp, _bound_form(rel)))
    return out


def _bound_form(rel: sp.Basic) -> tuple[str, str, bool, Any] | None:
    """``p <= g`` / ``p >= g`` (either way round) with ``p`` a symbol not in ``g``: (p, upper/lower,
    strict, compiled g), used to narrow p's range on a box (constraint propagation)."""
    from dptheory.core.compile import CompileError, compile_expr

    if not isinstance(rel, (sp.StrictLessThan, sp.LessThan, sp.StrictGreaterThan, sp.GreaterThan)):
        return None
    upper = isinstance(rel, (sp.StrictLessThan, sp.LessThan))
    strict = isinstance(rel, (sp.StrictLessThan, sp.StrictGreaterThan))
    for p, g, up in ((rel.lhs, rel.rhs, upper), (rel.rhs, rel.lhs, not upper)):
        if isinstance(p, sp.Symbol) and p not in g.free_symbols:
            syms = {s.name: s for s in sorted(g.free_symbols, key=lambda s: s.name)}
            try:
                comp = compile_expr(g, syms, integers=frozenset(n for n, s in syms.items() if s.is_integer))
            except CompileError:
                return None
            return (p.name, "upper" if up else "lower", strict, comp)
    return None


# ============================================================================ points


@dataclass(frozen=True)
class PointDecision:
    """Whether a claim holds at one exact point.

    Attributes:
        holds: True / False, or None when the two sides cannot be separated.
        certified: the decision rests on ball arithmetic (the margin's sign at exact inputs).
        lhs, rhs: the two sides: ``{"label", "value", "lo", "hi", "why_not"}`` (enclosure ends rounded
            outward when available).
        margin: the signed relative margin (rhs - lhs)/max(|lhs|, |rhs|) oriented so that > 0 holds
            (log-ratio slack for a factor claim); a float.
        evidence: in words.
    """

    holds: bool | None
    certified: bool
    lhs: dict[str, Any]
    rhs: dict[str, Any]
    margin: float
    evidence: str


def _ball_str(x: Any, digits: int = 22) -> tuple[str, str]:
    from dptheory.core.compile import _decimal_bound

    if _is_inf(x):
        return ("inf", "inf") if x > 0 else ("-inf", "-inf")
    return _decimal_bound(x.lower(), digits, down=True), _decimal_bound(x.upper(), digits, down=False)


def _side_enclosure(q: Quantity, exact: Mapping[str, sp.Rational], prec: int) -> tuple[Any | None, str]:
    import flint

    from dptheory.core.compile import Undecided

    try:
        with flint.ctx.workprec(prec):
            return q.arb(exact), ""
    except NoBallEvaluator as exc:
        return None, str(exc)
    except (Undecided, ZeroDivisionError, ValueError) as exc:
        return None, f"{q.label}: {exc}"
    except DPTheoryError as exc:
        return None, f"{q.label}: {str(exc).splitlines()[0]}"


def _relative(claim: Claim, lhs: mpmath.mpf, rhs: mpmath.mpf) -> float:
    if claim.factor is not None:
        if lhs <= 0 or rhs <= 0:
            return -math.inf
        lr = float(mpmath.log(lhs) - mpmath.log(rhs))
        lf = math.log(claim.factor)
        return min(lf - lr, lr + lf)
    if mpmath.isinf(lhs) or mpmath.isinf(rhs):
        if mpmath.isinf(lhs) and mpmath.isinf(rhs) and (lhs > 0) == (rhs > 0):
            return 0.0
        return math.inf if claim.relation.holds(lhs, rhs) else -math.inf
    scale = max(abs(lhs), abs(rhs))
    d = float((rhs - lhs) / scale) if scale else 0.0
    if claim.relation is Relation.EQ:
        return -abs(d)
    return d if claim.relation in (Relation.LT, Relation.LE) else -d


def decide_point(claim: Claim, point: Mapping[str, Any], *, dps: int = 50) -> PointDecision:
    """Decide the claim at an exact point: by the margin's sign on balls when it has a ball evaluation
    (raising the precision up to about ``16 dps`` digits), else by two mpmath evaluations (``dps`` and
    ``dps + 20`` digits) that must agree on the side of the relation (not certified)."""
    import flint

    from dptheory.core.compile import Undecided

    exact = {k: parse_value(v, key=claim.key, name=k) for k, v in point.items()}
    m = margin_of(claim)
    digits = min(dps, 20)
    # the two sides with mpmath (the values shown), at dps digits
    from dptheory.verify.points import evaluate_point

    out = evaluate_point(claim, exact, dps=dps)
    rel = _relative(claim, out.lhs, out.rhs)
    sides = []
    why_sides = []
    for q, v in ((claim.lhs, out.lhs), (claim.rhs, out.rhs)):
        ball, why = _side_enclosure(q, exact, int(dps * 3.33) + 64)
        rec: dict[str, Any] = {"label": q.label, "value": mpmath.nstr(v, digits), "lo": None, "hi": None,
                               "why_not": why}
        if ball is not None and (ball.is_finite() or _is_inf(ball)):
            rec["lo"], rec["hi"] = _ball_str(ball, digits + 2)
        else:
            why_sides.append(why or f"{q.label}: the ball is not finite")
        sides.append(rec)
    if m.certifiable:
        prec = max(BOX_PREC, int(dps * 3.33) + 32)
        last = ""
        while prec <= 16 * (int(dps * 3.33) + 32):
            try:
                with flint.ctx.workprec(prec):
                    d = m.ball({k: _ball_of(v) for k, v in exact.items()})
                ok, bad = _decide(d, m.strict)
                if ok or bad:
                    word = "holds" if ok else "fails"
                    return PointDecision(bool(ok), True, sides[0], sides[1], rel,
                                         f"certified: the margin ({m.describe()}) is {_sign_words(d)} on balls at "
                                         f"{prec} bits, so '{_relation_text(claim)}' {word}")
                last = f"the margin's ball {d.str(5, radius=True)} contains 0"
            except (Undecided, ZeroDivisionError, ValueError) as exc:
                last = str(exc)
            except NoBallEvaluator as exc:
                last = str(exc)
                break
            prec *= 2
        why = f"the margin could not be decided on balls ({last})"
    else:
        why = m.why_not
    holds = out.holds
    if holds is None:
        return PointDecision(None, False, sides[0], sides[1], rel, f"a tie at {dps} digits; {why}")
    word = "holds" if holds else "fails"
    return PointDecision(holds, False, sides[0], sides[1], rel,
                         f"confirmed at {dps} digits (not certified): '{_relation_text(claim)}' {word}; {why}")


def _sign_words(d: Any) -> str:
    if d > 0:
        return "positive"
    if d >= 0:
        return "nonnegative"
    if d < 0:
        return "negative"
    return "nonpositive"


def _decide(d: Any, strict: bool) -> tuple[bool, bool]:
    """(certainly holds, certainly fails) from a margin ball; a nan ball (python-flint's "no enclosure") or one
    of infinite radius decides neither (an exact infinity is a value and decides)."""
    if not informative_ball(d):
        return False, False
    if strict:
        return bool(d > 0), bool(d <= 0)
    return bool(d >= 0), bool(d < 0)


def _relation_text(claim: Claim) -> str:
    return f"within a factor {claim.factor:g}" if claim.factor else claim.relation.value


# ============================================================================ boxes


@dataclass
class _B:
    """A box: per parameter (lo, hi) as Fractions (continuous) or ints (integers), lo <= hi."""

    iv: dict[str, tuple[Any, Any]]
    prec: int = BOX_PREC

    def exact(self, name: str) -> bool:
        lo, hi = self.iv[name]
        return lo == hi

    def balls(self) -> dict[str, Any]:
        import flint

        out = {}
        for k, (lo, hi) in self.iv.items():
            if isinstance(lo, int) and isinstance(hi, int) and not isinstance(lo, bool):
                out[k] = lo if lo == hi else flint.arb(lo).union(flint.arb(hi))
            else:
                a = _frac_ball(lo)
                out[k] = a if lo == hi else a.union(_frac_ball(hi))
        return out

    def collapsed(self, name: str) -> dict[str, Any]:
        b = dict(self.iv)
        lo, hi = b[name]
        b[name] = (_mid(lo, hi, False),) * 2
        return _B(b, self.prec).balls()

    def render(self) -> dict[str, str]:
        out = {}
        for k, (lo, hi) in self.iv.items():
            out[k] = _fmt(lo) if lo == hi else (f"{lo}..{hi}" if isinstance(lo, int) else f"[{_fmt(lo)}, {_fmt(hi)}]")
        return out

    def point(self) -> dict[str, Any]:
        """An exact point of the box (midpoints; integers rounded down)."""
        return {k: _mid(lo, hi, False) for k, (lo, hi) in self.iv.items()}


def _frac_ball(x: Any) -> Any:
    import flint

    if isinstance(x, int):
        return flint.arb(x)
    f = Fraction(x)
    return flint.arb(f.numerator) if f.denominator == 1 else flint.arb(f.numerator) / f.denominator


def _fmt(x: Any) -> str:
    if isinstance(x, int):
        return str(x)
    return format_rational(sp.Rational(x.numerator, x.denominator))


def _mid(lo: Any, hi: Any, geometric: bool) -> Any:
    if isinstance(lo, int) and isinstance(hi, int):
        if geometric and lo > 0 and hi > 2 * lo + 2:
            return min(max(math.isqrt(lo * hi), lo), hi - 1)
        return (lo + hi) // 2
    if geometric and lo > 0:
        g = math.sqrt(float(lo) * float(hi))
        m = Fraction(g).limit_denominator(1 << 40)
        if lo < m < hi:
            return m
    return (Fraction(lo) + Fraction(hi)) / 2


def _width(lo: Any, hi: Any, log: bool) -> float:
    if lo == hi:
        return 0.0
    if isinstance(lo, int):
        return float(hi - lo + 1) / max(abs(lo), abs(hi), 1)
    if log and lo > 0:
        return math.log(float(hi) / float(lo))
    return float(hi - lo) / max(abs(float(lo)), abs(float(hi)), 1e-300)


@dataclass
class BoxOutcome:
    """Result of :func:`certify_region`.

    Attributes:
        status: ``"certified"`` (every box decided; none violated), ``"falsified"`` (a point of a box
            inside the region violates the claim, decided on balls), ``"undecided"`` (the budget ran out,
            or boxes could not be decided), ``"unavailable"`` (the claim cannot be evaluated on balls;
            ``reason`` says why).
        region: the certified region in words (box, fixed values, choices, conditions, free parameters).
        boxes: boxes examined; certified, outside: how many leaves were certified / outside the region.
        undecided: the boxes left undecided (rendered), at most 20, and ``n_undecided`` in all.
        min_margin: the smallest lower end of the margin over certified leaves (of the reduced margin
            for a symbolic one) and the box where it occurred.
        closest: the relative margin at the centre of that box (a point value, not a bound).
        counterexample: an exact point (rendered) where the claim fails, decided on balls.
        reason: for ``unavailable``, why; notes: anything else.
        duration_s: wall time.
    """

    status: str
    region: str
    boxes: int = 0
    certified: int = 0
    outside: int = 0
    undecided: list[dict[str, str]] = field(default_factory=list)
    n_undecided: int = 0
    min_margin: dict[str, Any] | None = None
    closest: dict[str, Any] | None = None
    counterexample: dict[str, Any] | None = None
    reason: str = ""
    notes: list[str] = field(default_factory=list)
    duration_s: float = 0.0


def region_text(claim: Claim, margin: Margin | None = None) -> str:
    """The certified region of a claim, in words."""
    box = claim.region.certify
    reg = claim.region
    parts: list[str] = []
    if reg.description:
        parts.append(reg.description + ":")
    exact = [f"{k} = {v}" for k, v in reg.fixed.items()]
    exact += [f"{k} in {{{', '.join(str(x) for x in v)}}}" if len(v) <= 8
              else f"{k} in {{{v[0]}, ..., {v[-1]}}}" for k, v in reg.choices.items()]
    if box is not None:
        exact += [f"{k} = {sp.sstr(e)}" for k, e in box.substitute.items()]
        exact += [f"{k} in [{lo}, {hi}]" for k, (lo, hi) in box.intervals.items()]
        exact += [f"{k} = {lo}..{hi}" for k, (lo, hi) in box.integers.items()]
    cond_txt = [c.render() for c in claim_conditions(claim)]
    s = ", ".join(exact)
    if cond_txt:
        s += f"; with {', '.join(cond_txt)}"
    if box is not None and box.free:
        why = ""
        if margin is not None and margin.kind == "symbolic" and margin.factors:
            fs = " * ".join(sp.sstr(f) for f in margin.factors)
            why = f" (the margin is {fs} > 0 times a function of the others)"
        elif margin is not None:
            why = " (the margin does not depend on them)"
        s += f"; every {', '.join(box.free)} allowed by the conditions{why}"
    parts.append(s)
    return " ".join(p for p in parts if p)


def _roots(claim: Claim, box: Box, margin: Margin) -> tuple[list[_B], set[str]]:
    """The root boxes (one per combination of finite choices) and the log-scaled parameters."""
    reg = claim.region
    base: dict[str, tuple[Any, Any]] = {}
    info = _param_info(claim)
    for k, v in reg.fixed.items():
        base[k] = (_exact_val(claim, k, v, info),) * 2
    for k, (lo, hi) in box.intervals.items():
        a = Fraction(str(parse_value(lo, key=claim.key, name=k)))
        b = Fraction(str(parse_value(hi, key=claim.key, name=k)))
        if a > b:
            raise InvalidParameter(key=claim.key, name=k, value=(lo, hi),
                                   reason="the interval's low end exceeds its high end")
        base[k] = (a, b)
    for k, (lo, hi) in box.integers.items():
        if int(lo) > int(hi):
            raise InvalidParameter(key=claim.key, name=k, value=(lo, hi),
                                   reason="the range's low end exceeds its high end")
        base[k] = (int(lo), int(hi))
    missing = [p for p in margin.params if p not in base and p not in reg.choices]
    if missing:
        raise DPTheoryError(f"{claim.key}: the certify box gives no range for {', '.join(missing)}, on which the "
                            "claim's margin depends")
    bad_free = [p for p in box.free if p in margin.params]
    if bad_free:
        raise DPTheoryError(f"{claim.key}: {', '.join(bad_free)} declared free, but the claim's margin depends on "
                            f"{'it' if len(bad_free) == 1 else 'them'}")
    for k, (lo, hi) in base.items():
        p = info.get(k)
        if p is None:
            continue
        dom = p.domain
        if dom.is_integer and not (isinstance(lo, int) or Fraction(lo).denominator == 1):
            raise InvalidParameter(key=claim.key, name=k, value=lo,
                                   reason="an integer parameter needs an integer range")
        if str(dom.value).startswith("positive") and not Fraction(lo) > 0:
            raise InvalidParameter(key=claim.key, name=k, value=lo, reason="must be positive on the whole box")
        if dom.is_integer and not isinstance(lo, int):
            base[k] = (int(Fraction(lo)), int(Fraction(hi)))
    roots = [dict(base)]
    for k, vals in reg.choices.items():
        roots = [{**r, k: (_exact_val(claim, k, v, info),) * 2} for r in roots for v in vals]
    return [_B(r) for r in roots], set(box.log)


def _param_info(claim: Claim) -> dict[str, Any]:
    info: dict[str, Any] = {}
    for q in (r for side in claim.sides() for r in side.theorem_refs()):
        t = q.thm()
        assert t is not None  # theorem_refs() yields theorem references only (an unknown key raises)
        for p in t.notation.params.values():
            info.setdefault(p.name, p)
    if claim.notation is not None:
        for p in claim.notation.params.values():
            info.setdefault(p.name, p)
    return info


def _exact_val(claim: Claim, name: str, v: Any, info: Mapping[str, Any]) -> Any:
    r = parse_value(v, key=claim.key, name=name)
    p = info.get(name)
    if r.q == 1 and (p is None or p.domain.is_integer):
        return int(r.p)
    return Fraction(int(r.p), int(r.q))


@dataclass
class _Eval:
    """The margin's range on a box: ``lo``/``hi`` arb endpoints (None when it could not be evaluated),
    the gradient balls by parameter (symbolic margins), and the parameters it is monotone in."""

    lo: Any | None
    hi: Any | None
    grads: dict[str, Any]
    monotone: set[str]


def _evaluate_box(m: Margin, b: _B, varying: Sequence[str]) -> _Eval:
    ev = _evaluate_box_full(m, b, varying, lazy=True)
    return ev


def _decided(m: Margin, lo: Any, hi: Any) -> bool:
    if lo is not None and (bool(lo > 0) if m.strict else bool(lo >= 0)):
        return True
    return hi is not None and (bool(hi <= 0) if m.strict else bool(hi < 0))


def _evaluate_box_full(m: Margin, b: _B, varying: Sequence[str], *, lazy: bool) -> _Eval:
    """Bounds of the margin on a box: the naive ball; for a symbolic margin also (1) the ball with every
    parameter in which the margin is certainly monotone on the box set to its minimising (maximising)
    end, which bounds the minimum (maximum) over the box, and (2) the mean-value form
    ``D(c) + sum_p D_p(box) (box_p - c_p)`` about the box's centre; the best of these is kept."""
    import flint

    from dptheory.core.compile import Undecided

    errs = (Undecided, ZeroDivisionError, ValueError, NumericalFailure, NoBallEvaluator)
    lo = hi = None
    grads: dict[str, Any] = {}
    mono: set[str] = set()
    with flint.ctx.workprec(b.prec):
        balls = b.balls()
        try:
            d = m.ball(balls)
            if not d.is_nan() and d.is_finite():  # a nan or infinite ball bounds nothing: the box stays open
                lo, hi = d.lower(), d.upper()
        except errs:
            pass
        if m.kind != "symbolic" or not varying or (lazy and _decided(m, lo, hi)):
            return _Eval(lo, hi, grads, mono)
        for p in varying:
            comp = m.grad(p)
            if comp is None:
                continue
            try:
                g = _arb(comp.arb({k: balls[k] for k in comp.params}))
            except errs:
                continue
            if g.is_finite():
                grads[p] = g
        ends_lo, ends_hi = dict(balls), dict(balls)
        for p, g in grads.items():
            a, z = b.iv[p]
            ea, ez = _exact_ball(a), _exact_ball(z)
            if g >= 0:
                ends_lo[p], ends_hi[p] = ea, ez
                mono.add(p)
            elif g <= 0:
                ends_lo[p], ends_hi[p] = ez, ea
                mono.add(p)
        if mono:
            for which, ends in (("lo", ends_lo), ("hi", ends_hi)):
                try:
                    e = m.ball(ends)
                except errs:
                    continue
                if e.is_nan() or not e.is_finite():
                    continue
                if which == "lo":
                    lo = e.lower() if lo is None else lo.max(e.lower())
                else:
                    hi = e.upper() if hi is None else hi.min(e.upper())
        if lazy and _decided(m, lo, hi):
            return _Eval(lo, hi, grads, mono)
        if len(grads) == len(varying):
            centre = dict(balls)
            cpt = b.point()
            for p in varying:
                centre[p] = _exact_ball(cpt[p])
            try:
                dc = m.ball(centre)
                mv = dc
                for p in varying:
                    mv = mv + grads[p] * (balls[p] - centre[p])
                if mv.is_finite() and not mv.is_nan():
                    lo = mv.lower() if lo is None else lo.max(mv.lower())
                    hi = mv.upper() if hi is None else hi.min(mv.upper())
            except errs:
                pass
    return _Eval(lo, hi, grads, mono)


def _exact_ball(x: Any) -> Any:
    return x if isinstance(x, int) else _frac_ball(x)


def certify_region(
    claim: Claim,
    *,
    max_boxes: int | None = None,
    max_seconds: float | None = None,
    dps: int = 50,
    progress: Callable[[int, int], None] | None = None,
) -> BoxOutcome:
    """Branch and bound of the claim's margin over its certify box (see the module docstring).

    Args:
        claim: a claim whose ``region.certify`` is set.
        max_boxes: budget in boxes examined (default: the box's ``max_boxes``); deterministic.
        max_seconds: optional wall-clock cap (the verdict may then depend on the machine's load).
        dps: digits of the confirmation of a counterexample.
        progress: called as ``progress(boxes, max_boxes)``.
    """

    t0 = time.perf_counter()
    box = claim.region.certify
    if box is None:
        return BoxOutcome("unavailable", "", reason="the claim has no certify box")
    m = margin_of(claim)
    region = region_text(claim, m)
    if not m.certifiable:
        return BoxOutcome("unavailable", region, reason=m.why_not)
    from dptheory.core.compile import require_flint

    require_flint()  # the boxes are balls: without python-flint, one line naming it (MissingBackend)
    budget = int(max_boxes if max_boxes is not None else box.max_boxes)
    roots, log = _roots(claim, box, m)
    conds = _compile_conditions(claim)
    box_names = set(roots[0].iv) if roots else set()
    active = [c for c in conds if c.names <= box_names]
    # best first: the box whose parent had the smallest lower bound of the margin is examined next (a
    # violation is reached quickly; certification still needs every box, so the order does not change it)
    queue: list[tuple[float, int, _B]] = []
    tick = itertools.count()
    for r in roots:
        heapq.heappush(queue, (0.0, next(tick), r))
    key_of: dict[int, float] = {}
    out = BoxOutcome("certified", region)
    worst: tuple[Any, _B] | None = None
    undecided: list[_B] = []
    ex_ints = [p for p in m.exact_ints if p in box_names]

    def split(b: _B, name: str) -> None:
        lo, hi = b.iv[name]
        mid = _mid(lo, hi, name in log)
        if isinstance(lo, int):
            left, right = (lo, mid), (mid + 1, hi)
        else:
            left, right = (lo, mid), (mid, hi)
        for part in (left, right):
            iv = dict(b.iv)
            iv[name] = part
            heapq.heappush(queue, (key_of.get(id(b), 0.0), next(tick), _B(iv, b.prec)))

    def widest(b: _B, names: Sequence[str]) -> str | None:
        cands = [(n, _width(*b.iv[n], n in log)) for n in names if not b.exact(n)]
        cands = [c for c in cands if c[1] > 0]
        return max(cands, key=lambda c: c[1])[0] if cands else None

    while queue:
        if out.boxes >= budget or (max_seconds is not None and time.perf_counter() - t0 > max_seconds):
            break
        _, _, b = heapq.heappop(queue)
        out.boxes += 1
        if progress is not None and out.boxes % 50 == 0:
            progress(out.boxes, budget)
        # enumerate the integers the margin needs exactly
        ni = next((n for n in ex_ints if not b.exact(n)), None)
        if ni is not None:
            split(b, ni)
            continue
        status = _box_status(b, active)
        if status == "out":
            out.outside += 1
            continue
        varying = [n for n in m.params if n in b.iv and not b.exact(n)]
        ev = _evaluate_box(m, b, varying)
        bound = ev.lo if ev.lo is not None else ev.hi
        key_of[id(b)] = _float_key(bound)
        ok = bad = False
        if ev.lo is not None:
            ok = bool(ev.lo > 0) if m.strict else bool(ev.lo >= 0)
        if ev.hi is not None:
            bad = bool(ev.hi <= 0) if m.strict else bool(ev.hi < 0)
        if ok:
            out.certified += 1
            if worst is None or ev.lo < worst[0]:
                worst = (ev.lo, b)
            continue
        if bad and status == "in":
            rec = _confirm_counterexample(claim, b, dps)
            if rec is not None:
                out.status = "falsified"
                out.counterexample = rec
                break
        tiny = all(_width(*b.iv[n], n in log) < 1e-12 for n in m.params if n in b.iv)
        if tiny:
            if b.prec < 4 * BOX_PREC * 4:
                b.prec *= 4
                heapq.heappush(queue, (key_of.get(id(b), 0.0), next(tick), b))
                continue
            if status == "in":
                rec = _confirm_counterexample(claim, b, dps)
                if rec is not None:
                    out.status = "falsified"
                    out.counterexample = rec
                    break
            undecided.append(b)
            continue
        name = _split_choice(b, ev, varying, log) if ev.lo is not None else widest(b, varying)
        if name is None:
            undecided.append(b)
            continue
        if max(_width(*b.iv[n], n in log) for n in m.params if n in b.iv) < 2.0 ** -40 and b.prec == BOX_PREC:
            b.prec = 4 * BOX_PREC
        split(b, name)
    if out.status != "falsified":
        left = [e[2] for e in sorted(queue)] + undecided
        out.n_undecided = len(left)
        out.undecided = [x.render() for x in left[:20]]
        if left:
            out.status = "undecided"
            why = "the budget ran out" if queue else "boxes could not be decided at the finest split"
            out.notes.append(f"{len(left)} boxes undecided ({why}; {out.boxes} boxes examined)")
    if worst is not None:
        out.min_margin = {"lower_bound": mpmath.nstr(mpmath.mpf(worst[0].mid().str(30, radius=False)), 6)
                          if worst[0].is_finite() else str(worst[0]), "box": worst[1].render(),
                          "of": "the reduced margin" if m.kind == "symbolic" and m.factors else "the margin"}
        try:
            pt = _full_point(claim, worst[1].point())
            dec = decide_point(claim, pt, dps=30)
            out.closest = {"params": {k: _fmt(v) for k, v in pt.items()}, "margin": dec.margin,
                           "lhs": dec.lhs["value"], "rhs": dec.rhs["value"]}
        except DPTheoryError:
            out.closest = None
    out.duration_s = time.perf_counter() - t0
    return out


def _float_key(x: Any) -> float:
    """A float ordering key of an arb endpoint (0 when unknown or not finite)."""
    try:
        v = float(x.mid()) if x is not None else 0.0
    except (TypeError, ValueError, OverflowError):
        return 0.0
    return v if math.isfinite(v) else 0.0


def _narrow(b: _B, conds: Sequence[_Cond]) -> bool:
    """Narrow the box's ranges by the conditions of the form ``p <= g(others)`` (``g`` evaluated on the
    box's balls); False when a range becomes empty (the box is outside the region)."""
    import flint

    from dptheory.core.compile import Undecided

    for c in conds:
        if c.bound is None:
            continue
        p, side, strict, comp = c.bound
        if p not in b.iv or b.exact(p) or not set(comp.params) <= set(b.iv):
            continue
        try:
            with flint.ctx.workprec(b.prec):
                balls = b.balls()
                g = _arb(comp.arb({k: balls[k] for k in comp.params}))
        except (Undecided, ZeroDivisionError, ValueError, NumericalFailure):
            continue
        if not g.is_finite():
            continue
        lo, hi = b.iv[p]
        if isinstance(lo, int):
            if side == "upper":
                top = g.upper()
                t = int(top.floor().unique_fmpz()) if top.is_finite() else hi
                if strict and top.is_exact() and top.is_integer():
                    t -= 1
                hi = min(hi, t)
            else:
                bot = g.lower()
                t = int(bot.ceil().unique_fmpz()) if bot.is_finite() else lo
                if strict and bot.is_exact() and bot.is_integer():
                    t += 1
                lo = max(lo, t)
        else:
            if side == "upper":
                t = _arb_to_fraction(g.upper(), up=True)
                hi = min(hi, t)
            else:
                t = _arb_to_fraction(g.lower(), up=False)
                lo = max(lo, t)
        if lo > hi:
            return False
        b.iv[p] = (lo, hi)
    return True


def _arb_to_fraction(x: Any, *, up: bool) -> Fraction:
    """An exact arb endpoint as a Fraction (rounded outward to 64 bits if it is long)."""
    man, exp = x.mid().man_exp()
    man, exp = int(man), int(exp)
    f = Fraction(man) * (Fraction(2) ** exp)
    if f.denominator.bit_length() > 256 or f.numerator.bit_length() > 256:
        g = Fraction(float(f)).limit_denominator(1 << 60)
        if (up and g < f) or (not up and g > f):
            g = f
        return g
    return f


def _split_choice(b: _B, ev: _Eval, varying: Sequence[str], log: set[str]) -> str | None:
    """The most sensitive parameter: largest |D_p| times the parameter's width among those the margin is
    not monotone in (then among all); the widest (in its scale) when no gradient is known."""
    if not varying:
        return None
    # every varying parameter competes: a margin monotone in p is bounded at p's ends, but the box is
    # undecided, so p may still be the one to split (x y < 3/4 on [0, 1]^2 is monotone in both)
    cands = list(varying)
    scored = []
    for p in cands:
        g = ev.grads.get(p)
        lo, hi = b.iv[p]
        if g is None:
            continue
        w = float(Fraction(hi) - Fraction(lo))
        mag = max(abs(float(g.lower())), abs(float(g.upper()))) if g.is_finite() else math.inf
        scored.append((mag * w, p))
    if len(scored) == len(cands) and scored:
        return max(scored)[1]
    return max(cands, key=lambda p: _width(*b.iv[p], p in log))


def _box_status(b: _B, conds: Sequence[_Cond]) -> str:
    """"in" (every condition certainly holds on the box), "out" (one certainly fails) or "edge"."""
    import flint

    from dptheory.core.claims import _rel_holds_on_ball
    from dptheory.core.compile import Undecided

    if not _narrow(b, conds):
        return "out"
    status = "in"
    balls: dict[str, Any] | None = None
    for c in conds:
        rel = c.cond.relation
        if rel is sp.false:
            return "out"
        res: bool | None = None
        if c.compiled is not None:
            try:
                with flint.ctx.workprec(b.prec):
                    balls = balls if balls is not None else b.balls()
                    g = c.compiled.arb({k: balls[k] for k in c.compiled.params})
                res = _rel_holds_on_ball(rel, g)
            except (Undecided, ZeroDivisionError, ValueError, NumericalFailure):
                res = None
        elif all(b.exact(n) for n in c.names):
            vals = {s: _rat(b.iv[s.name][0]) for s in c.cond.symbols}
            st = c.cond.evaluate(vals).status
            res = True if st is Status.HOLDS else False if st is Status.VIOLATED else None
        if res is False:
            return "out"
        if res is None:
            status = "edge"
    return status


def _rat(x: Any) -> sp.Rational:
    if isinstance(x, int):
        return sp.Integer(x)
    return sp.Rational(x.numerator, x.denominator)


def _full_point(claim: Claim, pt: Mapping[str, Any]) -> dict[str, Any]:
    """A full region point: the box's point plus the free parameters' representative values."""
    box = claim.region.certify
    out = {k: _rat(v) for k, v in pt.items()}
    if box is not None:
        for k, v in box.free.items():
            out.setdefault(k, parse_value(v, key=claim.key, name=k))
        for k, e in box.substitute.items():
            val = sp.sympify(e).xreplace({s: out[s.name] for s in sp.sympify(e).free_symbols if s.name in out})
            if val.free_symbols:
                raise DPTheoryError(f"{claim.key}: cannot map the box point back to {k} ({val})")
            out[k] = sp.Rational(val)
    return {k: out[k] for k in claim.params if k in out} | {k: v for k, v in out.items() if k not in claim.params}


def _confirm_counterexample(claim: Claim, b: _B, dps: int) -> dict[str, Any] | None:
    """A point of a violating box, decided exactly; None if it is not a counterexample."""
    from dptheory.verify.points import _in_region

    pt = _full_point(claim, b.point())
    pt = {k: v for k, v in pt.items() if k in claim.params}
    try:
        if not _in_region(claim, pt):
            return None
        dec = decide_point(claim, pt, dps=dps)
    except DPTheoryError:
        return None
    if dec.holds is not False:
        return None
    return {"params": {k: format_rational(v) for k, v in pt.items()}, "lhs": dec.lhs, "rhs": dec.rhs,
            "relation": _relation_text(claim), "margin": dec.margin, "certified": dec.certified,
            "evidence": dec.evidence}
