"""Claims: the papers' stated orderings and identities, as data.

A :class:`Claim` relates two :class:`Quantity` objects over a :class:`Region` of parameters, as a
paper states it (``"Thm 4.2 is strictly smaller than composition after 1/(lambda eta) + n/b
epochs"``). The checker (:mod:`dptheory.verify.checking`) decides it with one of five verdicts
(:class:`Verdict`): *proved* (symbolically), *certified* (rigorous ball arithmetic over the claim's
box, :class:`Box`), *exhaustive* (every point of a finite set, with rigorous error bounds), *not
falsified* (a search found nothing; the closest approach is reported) or *falsified* (a
counterexample whose two sides are separated by rigorous enclosures).

Each claim records the verdict it is expected to reach (``Claim.verdict``): ``dptheory check``
exits 3 when a run reaches a different one. A claim that is false somewhere is a finding: its
counterexamples are pinned here (``counterexamples``) and the sanity suite asserts that they still
falsify it. A claim that is ours (a derived theorem, one of our notes: ``Claim.ours``) is labelled
as ours everywhere; retired keys are listed in :data:`RETIRED_CLAIMS` and never reused.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, Concatenate, ParamSpec

import mpmath
import sympy as sp

from dptheory.core.citation import Citation
from dptheory.core.conditions import Condition
from dptheory.core.errors import DPTheoryError
from dptheory.core.findings import FindingMap
from dptheory.core.registry import REGISTRY
from dptheory.core.theorem import Theorem


class Verdict(StrEnum):
    """What a check of a claim established (the words mean what they say).

    * ``proved``: a symbolic proof (the result says what was proved, under which substitutions);
    * ``certified``: rigorous ball arithmetic (python-flint arb) over an explicit region, a box of
      continuous parameters and ranges of integers, printed with the verdict;
    * ``exhaustive``: every point of a stated finite set, each decided with rigorous error bounds;
    * ``not falsified``: a search found no counterexample (the number of points, the strategy and the
      closest approach are reported); nothing decided by sampling alone is called verified;
    * ``falsified``: a counterexample whose two sides are separated by rigorous enclosures (or, where a
      side has no ball evaluator, by two agreeing high-precision evaluations: the result says which).
    """

    PROVED = "proved"
    CERTIFIED = "certified"
    EXHAUSTIVE = "exhaustive"
    NOT_FALSIFIED = "not falsified"
    FALSIFIED = "falsified"

    @property
    def holds(self) -> bool | None:
        """True when the claim was shown to hold (on the stated region), False when falsified, None
        when only a search was done."""
        if self is Verdict.FALSIFIED:
            return False
        if self is Verdict.NOT_FALSIFIED:
            return None
        return True

    @property
    def meaning(self) -> str:
        return _VERDICT_MEANING[self]


_VERDICT_MEANING = {
    Verdict.PROVED: "a symbolic proof",
    Verdict.CERTIFIED: "rigorous ball arithmetic over the stated region (every point of it)",
    Verdict.EXHAUSTIVE: "every point of the stated finite set, with rigorous error bounds",
    Verdict.NOT_FALSIFIED: "a search found no counterexample; this is not a proof",
    Verdict.FALSIFIED: "a counterexample, its two sides separated by enclosures",
}


class Relation(StrEnum):
    LT = "<"
    LE = "<="
    GT = ">"
    GE = ">="
    EQ = "=="

    def holds(self, lhs: Any, rhs: Any) -> bool:
        return {
            Relation.LT: lambda a, b: a < b,
            Relation.LE: lambda a, b: a <= b,
            Relation.GT: lambda a, b: a > b,
            Relation.GE: lambda a, b: a >= b,
            Relation.EQ: lambda a, b: a == b,
        }[self](lhs, rhs)

    @property
    def strict(self) -> bool:
        return self in (Relation.LT, Relation.GT)

    @property
    def words(self) -> str:
        return {
            Relation.LT: "is below",
            Relation.LE: "is at most",
            Relation.GT: "is above",
            Relation.GE: "is at least",
            Relation.EQ: "equals",
        }[self]


class NoBallEvaluator(DPTheoryError):
    """A side of a claim cannot be evaluated on balls (no closed form, no ``arb`` override, or a custom
    quantity given only by an mpmath function); the message says which side and why."""


class Op(StrEnum):
    """The operator of a :class:`Combination` of two sides."""

    ADD = "+"
    SUB = "-"
    MUL = "*"
    DIV = "/"

    def sym(self, a: sp.Expr, b: sp.Expr) -> sp.Expr:
        """``a OP b`` on sympy expressions (or any operands with the arithmetic operators)."""
        if self is Op.ADD:
            return a + b
        if self is Op.SUB:
            return a - b
        if self is Op.MUL:
            return a * b
        return a / b


def make_side(
    label: str,
    theorem: str | None = None,
    term: str | None = None,
    limit: str | None = None,
    set: Mapping[str, sp.Expr] | None = None,
    mp: Callable[[Mapping[str, sp.Rational], int], Any] | None = None,
    np: Callable[[Mapping[str, sp.Rational]], float | None] | None = None,
    params: tuple[str, ...] = (),
    parts: tuple[Quantity, ...] = (),
    expr: sp.Expr | None = None,
    op: str | Op | None = None,
    reason: str | None = None,
    digits: int | None = None,
) -> Quantity:
    """The side the fields name (``Quantity(...)``, whose signature this is): ``theorem`` a :class:`TheoremSide`,
    ``op`` a :class:`Combination`, ``expr`` a :class:`Formula`, ``mp`` a :class:`Custom` (its ``reason`` defaults
    to "LABEL is given by an mpmath function only"); fields of another variant are refused."""
    given = dict(
        theorem=theorem, term=term, limit=limit, set=set, mp=mp, np=np, params=params, parts=parts, expr=expr, op=op,
        digits=digits,
    )
    if theorem is not None:
        _refuse("theorem side", label, given, {"theorem", "term", "limit", "set"})
        return TheoremSide(label, theorem=theorem, term=term, limit=limit, set={} if set is None else set)
    if op is not None:
        _refuse("combination", label, given, {"op", "parts", "params"})
        return Combination(label, op=Op(op), parts=tuple(parts), params=tuple(params))
    if expr is not None:
        _refuse("formula", label, given, {"expr", "params", "parts"})
        return Formula(label, expr=expr, params=tuple(params), parts=tuple(parts))
    if mp is not None:
        _refuse("custom side", label, given, {"mp", "np", "params", "parts", "digits"})
        why = reason or f"{label} is given by an mpmath function only"
        return Custom(label, mp=mp, np=np, params=tuple(params), parts=tuple(parts), reason=why, digits=digits)
    raise ValueError(f"side {label!r}: give a theorem, an expr, an op with parts, or an mp function")


_P = ParamSpec("_P")


def _takes_the_arguments_of(
    factory: Callable[_P, Any],
) -> Callable[[Callable[..., None]], Callable[Concatenate[Any, _P], None]]:
    """Type an ``__init__`` as taking ``factory``'s arguments (for a type checker: a constructor that a
    metaclass hands to ``factory`` declares its signature by naming it, instead of writing it again)."""
    return lambda init: init


class _SideMeta(type):
    """``Quantity(...)`` builds the variant its fields name (:func:`make_side`); a variant's own class builds
    itself."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if cls is Quantity:
            return make_side(*args, **kwargs)
        return super().__call__(*args, **kwargs)


@dataclass(frozen=True, init=False)
class Quantity(metaclass=_SideMeta):
    """One side of a claim: a function of the region's parameters, as data (five variants).

    * :class:`TheoremSide`: a registered theorem at a substitution (``set``: parameters derived from the
      others, sympy expressions in the theorem's symbols, e.g. ``{"j0": floor(n/b) - 1}``), optionally one
      of its terms (``term``) or its limit in one parameter (``limit``);
    * :class:`Formula`: a sympy expression in the papers' notation symbols (e.g. ``eps0^N``), compiled like a
      theorem's statement into mpmath, float64 and arb evaluators (:func:`formula`);
    * :class:`Combination`: ``a OP b`` of two sides (:func:`combine`; ``op`` an :class:`Op`), whose symbolic
      form and evaluations follow from its parts;
    * :class:`Constant`: one value (:func:`constant`), e.g. +infinity for "the limit is finite";
    * :class:`Custom`: declared callables ``mp(exact_point, dps) -> mpf``, optionally
      ``np(exact_point) -> float`` and ``arb(balls) -> ball``, reading the parameters listed in ``params``,
      with the mandatory ``reason`` it has no ball evaluator when ``arb`` is not declared (a subclass may
      declare its ball evaluator as a ``value_arb`` method instead).

    Calling ``Quantity(label, theorem=..., ...)`` (the constructor the papers call) returns the variant its
    fields name (:func:`make_side`). Each variant's ``__post_init__`` refuses the fields of the others. The
    sides are evaluated (mpmath, float64, float64 batches, arb balls) by :mod:`dptheory.verify.sides`, one
    entry per variant.
    """

    label: str

    if TYPE_CHECKING:  # the metaclass calls make_side: its signature is the constructor's (stated once, there)

        @_takes_the_arguments_of(make_side)
        def __init__(self, *args: Any, **kwargs: Any) -> None: ...

    @property
    def parts(self) -> tuple[Quantity, ...]:
        """The sides this one is built from (none for a theorem reference or a constant)."""
        return self.sub_sides()

    def theorem_refs(self) -> list[TheoremSide]:
        """Every theorem reference in this side (itself, or its parts recursively).

        A point is valid for the side when every referenced theorem's conditions hold there; custom sides
        and formulas list the theorems they are built from (or whose conditions they need) in ``parts``.
        """
        out: list[TheoremSide] = []
        for p in self.sub_sides():
            out.extend(p.theorem_refs())
        return out

    def sub_sides(self) -> tuple[Quantity, ...]:
        """The sides this one is built from (``parts``; none for a theorem reference or a constant)."""
        return ()

    def thm(self) -> Theorem | None:
        """The referenced theorem (theorem references only)."""
        return None

    def needed(self) -> tuple[str, ...]:
        """Parameters this side reads from the region point."""
        return ()

    def expression(self) -> sp.Expr | None:
        """This side as a sympy expression in the notation symbols (derived parameters substituted),
        or ``None`` where it has none (a recurrence or series kept as a kernel, a limit, an mpmath
        function)."""
        return None

    def ball_reason(self) -> str | None:
        """Why this side has no ball evaluation (``None`` when it has one)."""
        return None


def _compile(e: sp.Expr) -> Any:
    from dptheory.core.compile import compile_expr

    syms = {s.name: s for s in sorted(e.free_symbols, key=lambda s: s.name)}
    return compile_expr(e, syms, integers=frozenset(n for n, s in syms.items() if s.is_integer))


def _refuse(kind: str, label: str, given: Mapping[str, Any], allowed: set[str]) -> None:
    extra = sorted(k for k, v in given.items() if k not in allowed and v not in (None, (), {}))
    if extra:
        raise ValueError(f"{kind} {label!r}: fields {', '.join(extra)} are not fields of a {kind}")


@dataclass(frozen=True)
class TheoremSide(Quantity):
    """A registered theorem at a substitution: ``set`` derives parameters from the others (sympy expressions
    in the theorem's symbols); ``term`` picks one of its terms, ``limit`` its limit as that parameter grows."""

    theorem: str = ""
    term: str | None = None
    limit: str | None = None
    set: Mapping[str, sp.Expr] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.theorem:
            raise ValueError(f"theorem side {self.label!r}: a theorem key is required")
        if self.term is not None and self.limit is not None:
            raise ValueError(f"theorem side {self.label!r}: a term or a limit, not both")

    def theorem_refs(self) -> list[TheoremSide]:
        return [self]

    def thm(self) -> Theorem:
        return REGISTRY.get(self.theorem)

    def needed(self) -> tuple[str, ...]:
        t = self.thm()
        names = [p for p in t.params if p not in self.set]
        if self.limit is not None:
            names = [p for p in names if p != self.limit]
        extra = {s.name for e in self.set.values() for s in e.free_symbols}
        return tuple(dict.fromkeys([*names, *sorted(extra)]))

    def point(self, exact: Mapping[str, sp.Rational]) -> dict[str, sp.Rational]:
        """The theorem's parameters at a region point (derived parameters filled in exactly)."""
        t = self.thm()
        out: dict[str, sp.Rational] = {}
        for p in t.params:
            if p in self.set:
                e = self.set[p]
                out[p] = sp.Rational(e.xreplace({s: exact[s.name] for s in e.free_symbols}))
            elif self.limit == p:
                out[p] = sp.Integer(1)  # placeholder: the limit kernel does not read it
            else:
                out[p] = exact[p]
        return out

    def expression(self) -> sp.Expr | None:
        return self._expression

    @cached_property
    def _expression(self) -> sp.Expr | None:
        t = self.thm()
        if self.limit is not None:
            return None
        base = t.terms[self.term].expr if self.term is not None else t.bound
        if base is None:
            return None
        if self.set:
            base = base.xreplace({t.notation.sym(p): e for p, e in self.set.items()})
        return base

    def ball_reason(self) -> str | None:
        t = self.thm()
        if self.limit is not None:
            lim = t.limits[self.limit]
            if lim.exists_when is None:
                return f"{self.label}: the limit of {t.key} has no ball evaluator"
            return None
        if t.kernels(self.term).arb is None:
            return f"{self.label}: {t.key} has no closed-form statement and no arb override"
        return None

    @cached_property
    def compiled_set(self) -> dict[str, Any]:
        """The derived parameters (``set``) compiled, one :class:`~dptheory.core.compile.Compiled` each."""
        return {p: _compile(sp.sympify(e)) for p, e in self.set.items()}


class _WithExpression(Quantity):
    """A side that is its sympy expression ``expr`` (a field of the variant: a formula, a constant), compiled
    like a theorem's statement."""

    expr: sp.Expr

    def expression(self) -> sp.Expr | None:
        return self.expr

    @cached_property
    def compiled(self) -> Any:
        """``expr`` compiled into mpmath, float64 and arb kernels (:func:`dptheory.core.compile.compile_expr`)."""
        return _compile(self.expr)


class _WithParts(Quantity):
    """A side built from ``parts`` and reading the parameters ``params`` (fields of the variant: a formula, a
    combination, a custom side)."""

    params: tuple[str, ...]

    def sub_sides(self) -> tuple[Quantity, ...]:
        return self.parts

    def needed(self) -> tuple[str, ...]:
        return self.params


@dataclass(frozen=True)
class Formula(_WithExpression, _WithParts):
    """A sympy expression in the papers' notation symbols (their names are the parameter names); ``params``
    also lists what the ``parts``' conditions read, ``parts`` the theorems whose conditions a point must
    satisfy (see :func:`formula`)."""

    expr: sp.Expr = sp.S.Zero
    params: tuple[str, ...] = ()
    parts: tuple[Quantity, ...] = ()


@dataclass(frozen=True)
class Combination(_WithParts):
    """``a OP b`` of two sides (``parts = (a, b)``, ``op`` an :class:`Op`); ``params``: what the parts read."""

    op: Op = Op.ADD
    parts: tuple[Quantity, ...] = ()
    params: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.op, Op):
            raise ValueError(f"combination {self.label!r}: op must be an Op (+ - * /), not {self.op!r}")
        if len(self.parts) != 2:
            raise ValueError(f"combination {self.label!r}: two parts are required, not {len(self.parts)}")

    def expression(self) -> sp.Expr | None:
        return self._expression

    @cached_property
    def _expression(self) -> sp.Expr | None:
        a, b = (p.expression() for p in self.parts)
        return None if a is None or b is None else self.op.sym(a, b)

    def ball_reason(self) -> str | None:
        for p in self.parts:
            r = p.ball_reason()
            if r is not None:
                return r
        return None


@dataclass(frozen=True)
class Constant(_WithExpression):
    """One value (an mpf, possibly an infinity) with its sympy form ``expr`` (see :func:`constant`)."""

    value: Any = None
    expr: sp.Expr = sp.S.Zero

    def __post_init__(self) -> None:
        if not isinstance(self.value, mpmath.mpf):
            raise ValueError(f"constant {self.label!r}: the value must be an mpf, not {self.value!r}")


@dataclass(frozen=True)
class Custom(_WithParts):
    """A side given by declared callables: ``mp(exact_point, dps) -> mpf`` (required), ``np(exact_point) ->
    float | None`` and ``arb(balls) -> ball`` (optional), reading ``params``; ``parts`` lists the theorems it is
    built from (or whose conditions it needs). ``reason`` (mandatory) says why it has no ball evaluator when
    none is declared (``arb``, or a ``value_arb`` method of a subclass)."""

    mp: Callable[[Mapping[str, sp.Rational], int], Any] | None = None
    np: Callable[[Mapping[str, sp.Rational]], float | None] | None = None
    params: tuple[str, ...] = ()
    parts: tuple[Quantity, ...] = ()
    reason: str = ""
    arb: Callable[[Mapping[str, Any]], Any] | None = None
    #: significant digits the value is reproducible to, for a floating-point computation (dp-accounting's PLD
    #: moves at the 11th digit between machines); a decision shows at most this many. None: as many as computed
    digits: int | None = None

    def __post_init__(self) -> None:
        if self.digits is not None and not (isinstance(self.digits, int) and self.digits >= 1):
            raise ValueError(f"custom side {self.label!r}: digits must be a positive integer, got {self.digits!r}")
        if self.mp is None:
            raise ValueError(f"custom side {self.label!r}: an mp function is required")
        if not self.reason:
            raise ValueError(f"custom side {self.label!r}: a reason is required (why it has no ball evaluator)")

    def ball_evaluator(self) -> Callable[[Mapping[str, Any]], Any] | None:
        """The declared ball evaluator: ``arb``, else a subclass's ``value_arb`` method, else None."""
        return self.arb if self.arb is not None else getattr(self, "value_arb", None)

    def ball_reason(self) -> str | None:
        return None if self.ball_evaluator() is not None else self.reason


def theorem_side(
    key: str,
    label: str | None = None,
    *,
    prefix: str = "",
    term: str | None = None,
    limit: str | None = None,
    set: Mapping[str, sp.Expr] | None = None,
) -> TheoremSide:
    """A side that is the registered theorem ``prefix + key`` (labelled ``label``, default ``key``), optionally
    one of its terms, its limit in a parameter, or at derived parameters ``set``: the one spelling every paper's
    claims module uses (``functools.partial(theorem_side, prefix="yeshokri22.")`` for a paper's own keys)."""
    return TheoremSide(label or key, theorem=prefix + key, term=term, limit=limit, set={} if set is None else set)


def formula(label: str, expr: sp.Expr, *, parts: tuple[Quantity, ...] = ()) -> Formula:
    """A side given by a sympy expression in the papers' notation symbols (their names are the
    parameter names), compiled into mpmath, float64 and arb evaluators like a theorem's statement.
    ``parts`` lists the theorems whose conditions a point must satisfy."""
    expr = sp.sympify(expr)
    # a point must also give the parameters the parts' conditions read (e.g. beta for Thm 4.2's validity)
    names = {s.name for s in expr.free_symbols} | {p for q in parts for p in q.needed()}
    return Formula(label, expr=expr, params=tuple(sorted(names)), parts=parts)


def combine(label: str, op: str, a: Quantity, b: Quantity) -> Combination:
    """A side ``a OP b`` (OP in ``+ - * /``) of two sides, evaluated every way its parts can be (mpmath,
    float64, arb, and symbolically when both parts have expressions: see :mod:`dptheory.verify.sides`)."""
    if op not in ("+", "-", "*", "/"):
        raise ValueError(f"combine: unknown operator {op!r} (operators: + - * /)")
    params = tuple(dict.fromkeys([*a.needed(), *b.needed()]))
    return Combination(label, op=Op(op), parts=(a, b), params=params)


def constant(label: str, value: Any) -> Constant:
    """A constant side (e.g. +infinity for "the limit is finite")."""
    v = mpmath.mpf(value)
    e = sp.oo if mpmath.isinf(v) and v > 0 else -sp.oo if mpmath.isinf(v) else sp.nsimplify(value)
    return Constant(label, value=v, expr=e)


@dataclass(frozen=True)
class Box:
    """The region on which a claim is certified by branch and bound (:mod:`dptheory.verify.certify`).

    The certified region is the set of points with every continuous parameter of ``intervals`` in its
    closed interval, every integer parameter of ``integers`` in its range, the region's ``fixed``
    values and ``choices``, and every condition of the claim (the theorems' and the region's
    constraints) satisfied. Parameters listed in ``free`` may take *any* value the conditions allow:
    the checker verifies symbolically that the claim's margin does not depend on them (they cancel,
    or appear only in a positive factor that is split off); their value here is used only to complete
    a counterexample.

    Attributes:
        intervals: continuous parameters: ``name -> (low, high)`` (exact values: int, decimal string).
        integers: integer parameters: ``name -> (low, high)``, every integer in between.
        log: parameters bisected at the geometric midpoint (ranges over several orders of magnitude).
        free: parameters the margin does not depend on, with a representative value.
        substitute: a change of variables, ``name -> expression`` in new symbols (positive sympy
            symbols whose ranges ``intervals`` give) and the other parameters, e.g. ``{"eta": x/lam}``
            to certify over ``x = eta lambda``; the region is then stated in the new variables.
        max_boxes: default budget (boxes examined) of the branch and bound.
    """

    intervals: Mapping[str, tuple[Any, Any]] = field(default_factory=dict)
    integers: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    log: tuple[str, ...] = ()
    free: Mapping[str, Any] = field(default_factory=dict)
    substitute: Mapping[str, sp.Expr] = field(default_factory=dict)
    max_boxes: int = 2000

    def describe(self) -> str:
        parts = [f"{k} = {sp.sstr(e)}" for k, e in self.substitute.items()]
        parts += [f"{k} in [{lo}, {hi}]" for k, (lo, hi) in self.intervals.items()]
        parts += [f"{k} = {lo}..{hi}" for k, (lo, hi) in self.integers.items()]
        if self.free:
            parts.append(f"any {', '.join(self.free)} allowed by the conditions")
        return ", ".join(parts)


@dataclass(frozen=True)
class Region:
    """Where a claim is stated.

    A point is in the region when every condition of the theorems on both sides of the claim holds
    there (with derived parameters filled in) and every extra constraint holds.

    Attributes:
        fixed: parameters fixed to one value (the figure settings).
        choices: parameters restricted to a finite set.
        ranges: (low, high, log_scale) sampling ranges overriding the notation's for this claim
            (searches only).
        constraints: extra conditions (sympy relationals in the parameters), e.g. ``K >= 1/(lam eta) + n/b``.
        description: the region in words.
        certify: the box on which the claim is certified (with ``fixed``, ``choices`` and the
            conditions); ``None`` for claims decided otherwise (symbolically, on a finite set, or by
            search only).
    """

    fixed: Mapping[str, Any] = field(default_factory=dict)
    choices: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    ranges: Mapping[str, tuple[float, float, bool]] = field(default_factory=dict)
    constraints: tuple[Condition, ...] = ()
    description: str = ""
    certify: Box | None = None

    def describe(self) -> str:
        """The region as printed with a verdict: the description, then the exact box if any."""
        parts = [f"{k} = {v}" for k, v in self.fixed.items()]
        parts += [
            f"{k} in {{{', '.join(str(x) for x in v)}}}"
            if len(v) <= 8
            else f"{k} in {{{v[0]}, ..., {v[-1]}}} ({len(v)} values)"
            for k, v in self.choices.items()
        ]
        if self.certify is not None:
            parts.append(self.certify.describe())
        parts += [c.render() for c in self.constraints]
        exact = "; ".join(parts)
        if self.description and exact:
            return f"{self.description} ({exact})"
        return self.description or exact or "all valid points"


class Finding(str):
    """A finding's text as a template over its claim's pinned counterexamples, rendered when shown.

    The string is the template: ``{name:spec}`` fields (:meth:`str.format`) are filled from
    ``values(claim)``, which computes them from ``claim.counterexamples`` (:meth:`pin`; a side's value there by
:func:`dptheory.verify.sides.side_at_pin`), so that moving a
    pin changes the text. A field's spec ``frac`` prints an exact value as ``p/q``; a float spec (``.4f``,
    ``.3g``) rounds it to those digits (a ``g`` exponent unpadded: ``1e-9``); no spec prints ``str(value)``.
    """

    values: Callable[[Claim], Mapping[str, Any]]

    def __new__(cls, template: str, values: Callable[[Claim], Mapping[str, Any]]) -> Finding:
        self = super().__new__(cls, template)
        self.values = values
        return self

    def render(self, claim: Claim) -> str:
        return self.format_map({k: _Shown(v) for k, v in self.values(claim).items()})

    @staticmethod
    def pin(claim: Claim, i: int = 0, **changes: Any) -> dict[str, sp.Rational]:
        """The claim's ``i``-th pinned counterexample as exact values (``changes`` replace some of them)."""
        return {k: sp.Rational(str(v)) for k, v in {**claim.counterexamples[i], **changes}.items()}


class _Shown:
    """A value as a finding prints it (see :class:`Finding`)."""

    def __init__(self, v: Any) -> None:
        self.v = v

    def __format__(self, spec: str) -> str:
        if spec == "frac":
            return str(sp.Rational(str(self.v)))
        if not spec:
            return str(self.v)
        out = format(float(self.v), spec)  # "g": the exponent unpadded, as the texts write it (1e-9, not 1e-09)
        return re.sub(r"e([+-])0*(\d)", lambda m: f"e{m[1].replace('+', '')}{m[2]}", out) if spec[-1] == "g" else out


RETIRED_CLAIMS: dict[str, str] = {}
"""Claim keys that were retired, with why and what replaced them (a retired key is never reused)."""


def retire_claim(key: str, why: str) -> None:
    """Record that ``key`` was retired (and why); registering a claim under it afterwards fails."""
    if key in RETIRED_CLAIMS and RETIRED_CLAIMS[key] != why:
        raise ValueError(f"claim key {key} is already retired ({RETIRED_CLAIMS[key]})")
    RETIRED_CLAIMS[key] = why


@dataclass(frozen=True)
class Claim:
    """A claimed relation ``lhs REL rhs`` over a region, as a paper (or we) state it.

    Attributes:
        key: ``yeshokri22.C5a``; claims that are ours live under our namespaces (``maxinfo.``,
            ``pacbayes.``), never under a paper's.
        title: short statement.
        citation: where it is stated (a paper's item, or our derivation notes: then ``ours``).
        statement: the paper's (or our) words, quoted or closely paraphrased.
        reading: how we read it (what is compared, on which region, what "approximately" means).
        lhs, rhs: the two quantities.
        relation: the relation claimed.
        region: where it is claimed (and, with ``region.certify``, the box it is certified on).
        factor: for "same order" claims, ``lhs/rhs`` must lie in [1/factor, factor]; the relation is
            then ignored.
        symbolic: optional function returning a symbolic verdict (see :mod:`.symbolic`).
        counterexamples: pinned counterexamples (exact parameter values) that falsify the claim;
            the sanity suite asserts each still does.
        finding: for a falsified claim, what we found, in words: a :class:`Finding` when it quotes numbers
            (rendered from the pins when shown: :attr:`finding_text`).
        notation: the paper's notation table, for parameters read only by custom quantities.
        verdict: the verdict on record (what ``dptheory check`` must reach with the default budget);
            ``falsified`` whenever counterexamples are pinned, and required otherwise.
        failing: for a falsified claim, where it fails (:class:`~dptheory.core.findings.FindingMap`: the failing
            part found by a search, with points at its edge decided at every check).
        companion_of: the key of the falsified claim whose holding part this claim states (a *companion*: the
            same sides and relation on a narrower region; ours: :mod:`dptheory.core.findings`).
    """

    KIND: ClassVar[str] = "claim"

    key: str
    title: str
    citation: Citation
    statement: str
    reading: str
    lhs: Quantity
    rhs: Quantity
    relation: Relation
    region: Region
    factor: float | None = None
    symbolic: Callable[[], Any] | None = None
    counterexamples: tuple[Mapping[str, Any], ...] = ()
    finding: str | Finding = ""
    tags: tuple[str, ...] = ()
    notation: Any = None
    verdict: Verdict | None = None
    failing: FindingMap | None = None
    companion_of: str | None = None

    def __post_init__(self) -> None:
        if self.key in RETIRED_CLAIMS:
            raise ValueError(f"claim key {self.key} was retired ({RETIRED_CLAIMS[self.key]}); use a new key")
        if self.counterexamples and self.verdict not in (None, Verdict.FALSIFIED):
            raise ValueError(f"{self.key}: counterexamples are pinned, so the verdict on record is falsified")
        if self.verdict is None:
            if not self.counterexamples:
                raise ValueError(f"{self.key}: record the verdict the claim is expected to reach (verdict=...)")
            object.__setattr__(self, "verdict", Verdict.FALSIFIED)
        if self.failing is not None and self.verdict is not Verdict.FALSIFIED:
            raise ValueError(f"{self.key}: a map of where the claim fails (failing) is for a falsified claim; the "
                             f"verdict on record is {self.verdict}")
        if self.companion_of is not None:
            if self.companion_of == self.key or not self.companion_of:
                raise ValueError(f"{self.key}: companion_of names the falsified claim this one narrows, not "
                                 f"{self.companion_of!r}")
            if self.verdict is Verdict.FALSIFIED:
                raise ValueError(f"{self.key}: a companion states where {self.companion_of} holds; it cannot be on "
                                 "record as falsified (narrow its region)")
        # (a registered claim on record as falsified has pins: checks/test_claims.py; a mutated copy, as the
        # mutation contract makes, may drop them)

    def companion(
        self,
        key: str,
        title: str,
        region: Region,
        *,
        verdict: Verdict,
        reading: str,
        symbolic: Callable[..., Any] | None = None,
    ) -> Claim:
        """A companion of this falsified claim (:mod:`dptheory.core.findings`): the same statement, sides, relation
        and factor on the narrower ``region`` where it holds, ours, with its own verdict on record (and proof)."""
        return replace(self, key=key, title=title, reading=reading, region=region, verdict=verdict,
                       symbolic=symbolic, counterexamples=(), finding="", failing=None, companion_of=self.key)

    @cached_property
    def finding_text(self) -> str:
        """The finding as shown: a :class:`Finding` rendered from the pins, a plain text as it is."""
        return self.finding.render(self) if isinstance(self.finding, Finding) else self.finding

    @property
    def expected(self) -> Verdict:
        """The verdict on record."""
        assert self.verdict is not None
        return self.verdict

    @property
    def ours(self) -> bool:
        """Whether the statement is ours (a derived theorem, one of our notes, our restatement of a paper's claim,
        tagged "ours", or a companion: where a paper's falsified claim holds), not a paper's."""
        return self.citation.paper.authors == "dptheory" or "ours" in self.tags or self.companion_of is not None

    @property
    def source_label(self) -> str:
        """ "Our claim" or "Paper", as printed before the statement."""
        return "Our claim" if self.ours else "Paper"

    @property
    def params(self) -> tuple[str, ...]:
        """Every parameter a region point must give (derived parameters are not drawn)."""
        names: list[str] = [*self.region.fixed, *self.region.choices]
        for q in (self.lhs, self.rhs):
            names.extend(q.needed())
        for c in self.region.constraints:
            names.extend(sorted(s.name for s in c.symbols))
        return tuple(dict.fromkeys(names))

    def sides(self) -> tuple[Quantity, Quantity]:
        return (self.lhs, self.rhs)

    def describe(self) -> str:
        rel = f"within a factor {self.factor} of" if self.factor else self.relation.value
        return f"{self.lhs.label} {rel} {self.rhs.label}"

    def __repr__(self) -> str:
        from dptheory.core import describe

        return describe.claim_repr(self)
