"""The margin of a claim: one function of the region's parameters whose sign decides it, on float64 values,
on mpmath values and on balls.

**The rule.** For a claim ``lhs REL rhs`` the margin is the signed relative difference
``d = (rhs - lhs) / max(|lhs|, |rhs|)`` oriented so that it is positive where the claim holds: ``d`` for
``<`` and ``<=``, ``-d`` for ``>`` and ``>=``; the claim holds where the margin is positive (nonnegative
for a non-strict relation). A "within a factor f" claim has the margin ``log f - |log(lhs/rhs)|`` and a
side at or below 0 fails it (margin ``-inf``). An equality ``==`` has the margin ``tol - |d|``, where
``tol`` is the relative tolerance of the precision at which the two sides were computed: ``EQ_TOL``
(1e-42, the checker's at 50 digits) for float64 screens, which only decide which points mpmath
confirms; ``10^-(dps - 8)`` for the mpmath decision at ``dps`` digits
(:func:`dptheory.verify.points.evaluate_point`); 0 for the margins reported next to a decision made on
balls. **Infinities**: one infinite side gives ``+inf`` where the relation holds and ``-inf`` where it
fails; two equal infinities are a tie: margin 0 (the decision, not the margin, says whether a tie
holds). **NaN**: a side that is NaN gives a NaN margin, which decides nothing (float64 screens then ask
mpmath; a ball that is nan or of infinite radius is no enclosure, :func:`decide_ball`).

On balls (:class:`Margin`, :func:`margin_of`) the margin is the difference ``rhs - lhs`` (``lhs - rhs``
for ``>``, ``>=``) itself, not divided by the scale: its sign is what a ball decides. Where both sides
have sympy expressions the difference is built *symbolically* and reduced (see
:mod:`dptheory.verify.certify`'s module docstring); otherwise the two sides are evaluated on balls and
subtracted.

Where the old rules disagreed (none of them is reached by a registered claim; the verdicts are kept):
the float64 screen of finite regions used an equality tolerance of 1e-12 and gave ``-inf`` to a factor
claim whose sides are both <= 0, the search's screen 1e-42 and NaN; both now use :func:`float_margin`. The
mpmath decision at a point (:func:`dptheory.verify.points.evaluate_point`) wrote its own copy of the rule, which gave
two equal infinities ``+inf`` or ``-inf`` by its decision instead of the tie's 0; it now takes :func:`mp_margin`'s.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import mpmath
import sympy as sp

from dptheory.core.claims import Claim, NoBallEvaluator, Relation
from dptheory.core.compile import informative_ball
from dptheory.verify.sides import arb_kernel, side_ball

__all__ = [
    "EQ_TOL",
    "Margin",
    "as_arb",
    "decide_ball",
    "float_margin",
    "is_inf",
    "margin_of",
    "mp_margin",
    "rel_slack",
    "substituted",
    "symbolic_sides",
]

#: relative tolerance of an "==" claim in float64 screens (the same as the checker's at 50 digits)
EQ_TOL = 1e-42


def rel_slack(small: float, big: float) -> float:
    """(big - small)/max(|small|, |big|): positive when small < big."""
    scale = max(abs(small), abs(big), 1e-300)
    return (big - small) / scale


def float_margin(claim: Claim, lhs: float, rhs: float) -> float:
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
    d = rel_slack(lhs, rhs)
    if claim.relation is Relation.EQ:
        return EQ_TOL - abs(d)
    return d if claim.relation in (Relation.LT, Relation.LE) else -d


def mp_margin(claim: Claim, lhs: mpmath.mpf, rhs: mpmath.mpf, *, tol: Any = 0) -> float:
    """The margin (the module docstring's rule) of mpmath values of the two sides, computed at the current mpmath
    precision. ``tol`` is an equality's relative tolerance: ``10^-(dps - 8)`` where the sides were computed at
    ``dps`` digits and the margin goes with that decision (:func:`dptheory.verify.points.evaluate_point`), 0 (the
    default) for a margin reported next to a decision made elsewhere (a closest approach)."""
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
        return float(tol) - abs(d)
    return d if claim.relation in (Relation.LT, Relation.LE) else -d


def decide_ball(d: Any, strict: bool) -> tuple[bool, bool]:
    """(certainly holds, certainly fails) from a margin ball; a nan ball (python-flint's "no enclosure") or one
    of infinite radius decides neither (an exact infinity is a value and decides)."""
    if not informative_ball(d):
        return False, False
    if strict:
        return bool(d > 0), bool(d <= 0)
    return bool(d >= 0), bool(d < 0)


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
            return arb_kernel(comp)({k: balls[k] for k in comp.params})
        c = self.claim
        L = as_arb(side_ball(c.lhs, balls))
        R = as_arb(side_ball(c.rhs, balls))
        if c.factor is not None:
            f = flint.arb(c.factor).log()
            if not (L > 0 and R > 0):
                # a side that is certainly <= 0 fails the claim; one that straddles 0 is undecided
                return flint.arb(-1) if (L <= 0 or R <= 0) else flint.arb("nan")
            lr = L.log() - R.log()
            return (f - lr).min(lr + f)
        if is_inf(L) or is_inf(R):
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


def as_arb(x: Any) -> Any:
    import flint

    return x if isinstance(x, flint.arb) else flint.arb(x)


def is_inf(x: Any) -> bool:
    return bool(x.is_exact() and not x.is_finite() and not x.is_nan())


def _inf_margin(rel: Relation, L: Any, R: Any) -> Any:
    import flint

    if is_inf(L) and is_inf(R):
        same = bool(L == R)
        ok = {
            Relation.LT: not same and bool(L < R),
            Relation.LE: same or bool(L < R),
            Relation.GT: not same and bool(L > R),
            Relation.GE: same or bool(L > R),
        }.get(rel, same)
    else:
        ok = rel.holds(
            float(L.mid()) if not is_inf(L) else (math.inf if L > 0 else -math.inf),
            float(R.mid()) if not is_inf(R) else (math.inf if R > 0 else -math.inf),
        )
        if (not is_inf(L) and not L.is_finite()) or (not is_inf(R) and not R.is_finite()):
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


def substituted(claim: Claim, e: sp.Basic) -> sp.Basic:
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


def symbolic_sides(claim: Claim) -> tuple[sp.Expr, sp.Expr] | None:
    """The claim's two sides as sympy expressions, one symbol per name (:func:`_canonical`), as the symbolic
    margin is built from them; None when a side has no expression (a kernel, a custom side)."""
    le, re_ = claim.lhs.expression(), claim.rhs.expression()
    if le is None or re_ is None:
        return None
    (le, re_), _chosen = _canonical([le, re_])
    return le, re_


def _build_margin(claim: Claim) -> Margin:
    from dptheory.core.compile import CompileError, compile_expr, expand_shorthands

    strict = claim.relation.strict if claim.factor is None else False
    if claim.factor is None and claim.relation is Relation.EQ:
        return Margin(
            claim,
            "none",
            None,
            (),
            (),
            frozenset(),
            False,
            why_not="an equality is decided by a proof, not by interval arithmetic",
        )
    sides = symbolic_sides(claim)
    if claim.factor is None and sides is not None and not (sides[0].has(sp.oo) or sides[1].has(sp.oo)):
        le, re_ = sides
        d = re_ - le if claim.relation in (Relation.LT, Relation.LE) else le - re_
        d = substituted(claim, d)
        try:
            d = expand_shorthands(d)
            reduced, factors = _split_positive(d)
            syms = {s.name: s for s in sorted(reduced.free_symbols, key=lambda s: s.name)}
            int_syms = frozenset(n for n, s in syms.items() if s.is_integer)
            comp = compile_expr(reduced, syms, integers=int_syms)
            return Margin(
                claim,
                "symbolic",
                reduced,
                factors,
                tuple(syms),
                frozenset(_exact_int_names(reduced)),
                strict,
                _compiled=comp,
            )
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
