"""Theorems as data.

A :class:`Theorem` is a frozen object that carries its citation, its parameters (from the paper's
notation table), its conditions (sympy relationals), its bound (a sympy expression, or for a
recurrence a sympy statement plus a numeric kernel), its direction and unit. Everything else (the
evaluator, the condition checker, the hypothesis strategies, the claim checks, the CLI, the reports)
reads these objects; nothing about a theorem is written twice. A theorem is data: its evaluation (parsing,
exact condition checks, kernels, Ziv's loop, the float64 path) is :mod:`dptheory.core.evaluator`'s, and the
methods users call (``evaluate``, ``evaluate_np``, ``check``, ``kernels``, ...) delegate there.

**The statement is the kernel.** A theorem's sympy ``bound`` is compiled once
(:mod:`dptheory.core.compile`, cached) into three evaluators:

* ``mp``: ``dict -> mpf`` at the caller's scoped ``mpmath.workdps`` (never global precision), with
  Python ``int`` for integer parameters and ``mpf`` for the others;
* ``np``: ``dict of float64 arrays -> float64 array`` for sweeps (stable rewrites: ``log1p``,
  ``expm1``, log-sum-exp; agrees with ``mp`` to 1e-10 relative, checked by the contract suite);
* ``arb``: rigorous balls (python-flint); :meth:`Theorem.evaluate` takes its value from a certified
  enclosure whenever the statement has one, so the printed digits are correct digits.

A hand-written kernel (``mp=``, ``np=``, ``arb=``) is a *declared override* with a stated reason
(``kernel_reason``): recurrences and symbolic sums that have no closed form, series with a rigorous
tail, overflow-prone forms. Where a theorem also has a ``bound``, the contract suite checks the
override against the compiled statement; otherwise the ``statement`` (recurrence) is what it
implements and an independent known value checks it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

import sympy as sp

from dptheory.core import evaluator
from dptheory.core.citation import Citation
from dptheory.core.conditions import CompiledCondition, Condition, integer_condition
from dptheory.core.evaluator import (
    CompiledLimit,
    Evaluable,
    KernelArb,
    KernelMP,
    KernelNP,
)
from dptheory.core.notation import Domain, NotationTable, Param
from dptheory.core.units import Direction, Monotone, Unit

if TYPE_CHECKING:
    from dptheory.core.compile import Compiled

#: the evaluator's names (DEFAULT_DPS, GUARD_DIGITS, ArbEvaluator, the kernel types) are defined and exported
#: once, by :mod:`dptheory.core.evaluator`; import them from there
__all__ = ["Limit", "Term", "Theorem"]


@dataclass(frozen=True, slots=True)
class Term:
    """A named part of a bound (e.g. the first term of Thm 4.2), evaluable on its own.

    Its ``expr`` is compiled like a theorem's bound; ``mp``/``np``/``arb`` are declared overrides (the
    theorem's ``kernel_reason`` says why; ``arb`` encloses the term for its certified digits, where the compiled
    expression would be slow, e.g. Maurer's xi(n) as a sum of n terms).
    """

    name: str
    description: str
    mp: KernelMP | None = None
    np: KernelNP | None = None
    expr: sp.Expr | None = None
    arb: KernelArb | None = None


def from_expr(args: Mapping[str, Any]) -> Any:
    """:attr:`Limit.mp`'s default: the kernel is compiled from the limit's ``expr`` by the theorem that declares
    it (``theorem.limits[param].mp``); a limit not attached to a theorem has no kernel yet."""
    raise TypeError(
        "this limit's kernel is compiled from its expression by the theorem that declares it; "
        "call theorem.limits[param].mp"
    )


@dataclass(frozen=True, slots=True)
class Limit:
    """The limit of a bound as one parameter tends to infinity.

    Attributes:
        param: the parameter (``"K"``).
        exists_when: the exact condition under which the limit is finite, or ``None`` if always.
        mp: the kernel of the limit value (same inputs as the theorem minus ``param``): compiled from
            ``expr`` like a bound (a :class:`CompiledLimit`, filled in by the theorem) unless a hand-written
            kernel is given, a declared override whose ``mp_reason`` says why (e.g. a case split the
            expression does not state).
        expr: the limit as a sympy expression (the statement of the limit: LaTeX, the compiled kernel).
        derivation: where the derivation is written down (docs path) and how it is checked.
        sympy_subs: substitutions that put the bound in a form sympy's ``limit`` can decide (e.g.
            ``1 - eta*lam -> 1/(1+t)`` with ``t > 0``, valid under the theorem's conditions), applied
            before ``sympy.limit``; ``sympy_back`` undoes them in the result. ``sympy_doit`` expands
            sums first. See :func:`dptheory.core.symbolic.symbolic_limit`.
    """

    param: str
    mp: KernelMP = from_expr
    exists_when: Condition | None = None
    expr: sp.Expr | None = None
    derivation: str = ""
    sympy_subs: tuple[tuple[sp.Expr, sp.Expr], ...] = ()
    sympy_back: tuple[tuple[sp.Expr, sp.Expr], ...] = ()
    sympy_doit: bool = False
    mp_reason: str = ""

    def __post_init__(self) -> None:
        if self.mp is from_expr and self.expr is None:
            raise ValueError(f"the limit as {self.param} -> oo needs an expression (compiled) or an mp override")
        if self.override and not self.mp_reason.strip():
            raise ValueError(
                f"the limit as {self.param} -> oo has a hand-written mp kernel, a declared override of its "
                "expression: say why in mp_reason"
            )

    @property
    def override(self) -> bool:
        """Whether ``mp`` is a hand-written kernel (not compiled from ``expr``)."""
        return self.mp is not from_expr and not isinstance(self.mp, CompiledLimit)


@dataclass(frozen=True, kw_only=True)
class Theorem(Evaluable):
    """A theorem (or any bound we encode) as data; its evaluation (``evaluate``, ``check``, ``kernels``,
    ``evaluate_np``, ...) is :class:`~dptheory.core.evaluator.Evaluable`'s.

    Attributes:
        key: stable key naming the paper and item (``yeshokri22.thm4_2``).
        title: descriptive title.
        citation: paper item, with arXiv id.
        notation: the paper's notation table (parameters are looked up there).
        params: parameter names, in the order they are shown.
        conditions: the theorem's conditions as printed (plus consistency conditions implied by
            its assumptions); domain conditions (positivity, integrality) are added automatically
            from the notation table.
        assumptions: hypotheses that cannot be checked at a parameter point (on the loss function).
        bound: the bound as a sympy expression in the paper's notation, when it has a closed form.
        statement: for recurrences, a sequence of sympy relations (``Eq``) that state it.
        definitions: auxiliary definitions used by ``bound`` (e.g. the paper's eps_0^j), as ``Eq``.
        direction: upper / lower / exact / asymptotic.
        quantity: what is bounded, in words.
        unit: unit of the value.
        mp: a hand-written high-precision kernel (a declared override; default: compiled from
            ``bound``). Required when there is no ``bound``.
        np: a hand-written float64 kernel (vectorised; a declared override), or ``None``: the
            compiled one is used when there is a ``bound``. A kernel may return a pair
            ``(values, unreliable_mask)``: flagged points (where float64 cancellation could cost
            more than 1e-11 relative) are then recomputed with mpmath at 30 digits.
        arb: a hand-written rigorous kernel on python-flint balls (a declared override, e.g. for a
            recurrence); default: compiled from ``bound``.
        kernel_reason: why hand-written kernels are needed (required whenever one is given).
        np_flagged: use the compiled float64 kernel in its flagged form (points whose inputs are
            ill-conditioned are recomputed with mpmath; see ``Compiled.np_flagged``).
        terms: named parts of the bound.
        monotone: parameters in which the bound is stated (or proved) monotone, with the sense
            (a :class:`~dptheory.core.units.Monotone`).
        limits: limits as a parameter tends to infinity.
        reading: our reading decisions where the text is ambiguous.
        notes: anything else a user should know (known typos, what is derived here).
        sample: per-theorem overrides of the sampling ranges used by property tests.
        infinite_when: where +infinity is the true value (e.g. an LSI constant of a point mass);
            everywhere else on the valid region the value must be finite.
        witnesses: valid points (every condition holds) for theorems whose valid region is too
            thin for the generic strategies to reach (e.g. found by a feasibility search); property
            tests draw from these instead. Each is checked to be valid by the contract suite.
        slow_fractional: parameters (Renyi orders) at whose fractional values the float64 kernel is slow
            (~1 s a point: a series in mpmath) while it is exact and fast at integers; the counterexample
            search (:mod:`dptheory.verify.space`) draws them at integer values only and says so in its
            strategy.
    """

    KIND: ClassVar[str] = "theorem"

    key: str
    title: str
    citation: Citation
    notation: NotationTable
    params: tuple[str, ...]
    conditions: tuple[Condition, ...] = ()
    assumptions: tuple[str, ...] = ()
    bound: sp.Expr | None = None
    statement: tuple[sp.Basic, ...] = ()
    definitions: tuple[sp.Basic, ...] = ()
    direction: Direction
    quantity: str
    unit: Unit = Unit.NATS
    mp: KernelMP | None = None
    np: KernelNP | None = None
    arb: KernelArb | None = None
    kernel_reason: str = ""
    np_flagged: bool = False
    terms: Mapping[str, Term] = field(default_factory=dict)
    monotone: Mapping[str, Monotone] = field(default_factory=dict)
    limits: Mapping[str, Limit] = field(default_factory=dict)
    reading: str = ""
    notes: str = ""
    sample: Mapping[str, tuple[float, float, bool]] = field(default_factory=dict)
    infinite_when: str = ""
    witnesses: tuple[Mapping[str, Any], ...] = ()
    slow_fractional: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.bound is None and self.mp is None:
            raise ValueError(f"{self.key}: a theorem needs a closed-form bound or an mp kernel (with kernel_reason)")
        if self.overrides and not self.kernel_reason.strip():
            raise ValueError(
                f"{self.key}: hand-written kernels ({', '.join(self.overrides)}) are declared overrides of "
                "the statement: say why in kernel_reason"
            )
        senses = {}
        for k, v in self.monotone.items():
            try:
                senses[k] = Monotone(v)  # the enum, or its plain name ("increasing", ...)
            except ValueError:
                senses[k] = v
        object.__setattr__(self, "monotone", senses)
        bad = {k: v for k, v in self.monotone.items() if not isinstance(v, Monotone) or k not in self.params}
        if bad:
            raise ValueError(f"{self.key}: monotone needs Monotone senses of its own parameters; got {bad}")
        missing = [p for p in self.params if p not in self.notation]
        if missing:
            raise ValueError(
                f"{self.key}: parameters {missing} are not in the {self.notation.paper_key} notation table"
            )
        params_syms = {self.notation.sym(p) for p in self.params}
        for c in self.conditions:
            if c.relation in (sp.true, sp.false):
                raise ValueError(
                    f"{self.key}: a condition ({c.gloss}) was folded to {c.relation} by sympy at "
                    "construction (the symbols' assumptions decide it); build it with evaluate=False"
                )
            extra = c.symbols - params_syms
            if extra:
                raise ValueError(f"{self.key}: condition {c.render()} uses {extra}, which are not parameters")
        object.__setattr__(self, "limits", {k: self._limit_kernel(lim) for k, lim in self.limits.items()})

    def _limit_kernel(self, lim: Limit) -> Limit:
        """The limit with its mp kernel: the declared override, or compiled from its expression."""
        if lim.mp is not from_expr:
            return lim
        assert lim.expr is not None  # Limit.__post_init__
        others = [p for p in self.params if p != lim.param]
        syms = {p: self.notation.sym(p) for p in others}
        ints = frozenset(p for p in others if self.notation[p].domain.is_integer)
        return replace(lim, mp=CompiledLimit(lim.expr, syms, ints))

    # ------------------------------------------------------------------ parameters
    @property
    def param_objects(self) -> tuple[Param, ...]:
        return tuple(self.notation[p] for p in self.params)

    @property
    def symbols(self) -> tuple[sp.Symbol, ...]:
        return tuple(self.notation.sym(p) for p in self.params)

    def symbol_names(self) -> dict[sp.Symbol, str]:
        return self.notation.symbol_names()

    @cached_property
    def domain_conditions(self) -> tuple[Condition, ...]:
        """The conditions implied by the parameters' domains (built once: the fast condition decider caches
        its compiled checks by the condition objects, so new objects on every call would recompile them)."""
        out: list[Condition] = []
        for p in self.param_objects:
            s = p.symbol
            if p.domain.is_integer:
                out.append(integer_condition(s, p.latex, f"{p.meaning} must be a whole number"))
            # evaluate=False: the symbols carry these facts as assumptions, so sympy would otherwise
            # fold the relation to True at construction and the value would never be checked
            if p.domain in (Domain.POSITIVE,):
                out.append(
                    Condition(
                        sp.StrictGreaterThan(s, 0, evaluate=False), f"{p.meaning} must be positive", kind="domain"
                    )
                )
            elif p.domain is Domain.POSITIVE_INTEGER:
                out.append(
                    Condition(sp.GreaterThan(s, 1, evaluate=False), f"{p.meaning} must be at least 1", kind="domain")
                )
            elif p.domain in (Domain.NONNEGATIVE, Domain.NONNEGATIVE_INTEGER):
                out.append(
                    Condition(sp.GreaterThan(s, 0, evaluate=False), f"{p.meaning} must be nonnegative", kind="domain")
                )
        return tuple(out)

    @property
    def all_conditions(self) -> tuple[Condition, ...]:
        return self.domain_conditions + tuple(self.conditions)

    @cached_property
    def domain_checks(self) -> tuple[CompiledCondition, ...]:
        """The domain conditions compiled (:meth:`Condition.compiled`): what the evaluator decides."""
        return tuple(c.compiled() for c in self.domain_conditions)

    @cached_property
    def condition_checks(self) -> tuple[CompiledCondition, ...]:
        """The theorem's conditions compiled, in order."""
        return tuple(c.compiled() for c in self.conditions)

    def parse(self, params: Mapping[str, Any]) -> dict[str, sp.Rational]:
        """Validate names and turn every value into an exact rational (a sympy Rational)."""
        return evaluator.parse(self, params)

    # ------------------------------------------------------------------ kernels
    @property
    def compiled(self) -> Compiled | None:
        """The bound compiled to mpmath, float64 and arb (cached), or ``None`` without a closed form."""
        return evaluator.compiled(self)

    def compiled_term(self, name: str) -> Compiled | None:
        """A named term's expression compiled (cached), or ``None`` when the term has only an mp kernel."""
        return evaluator.compiled_term(self, name)

    # the evaluation methods (evaluate, __call__, check, check_np, kernels, value, kernel_args, evaluate_np) are
    # inherited from Evaluable, shared with a theorem read from the statement cache

    @cached_property
    def overrides(self) -> tuple[str, ...]:
        """The hand-written kernels of this theorem (``mp``, ``np``, ``arb``, ``term1.mp``...)."""
        names = [n for n in ("mp", "np", "arb") if getattr(self, n) is not None]
        names += [f"{t.name}.{n}" for t in self.terms.values() for n in ("mp", "np", "arb")
                      if getattr(t, n) is not None]
        return tuple(names)

    # ------------------------------------------------------------------ symbolic side
    def latex(self) -> str:
        """The bound (or the recurrence that defines it) in LaTeX, in the paper's notation."""
        from dptheory.core.latex import latex

        names = self.symbol_names()
        if self.bound is not None:
            return latex(self.bound, names)
        return r" \\ ".join(latex(s, names) for s in self.statement)

    def definitions_latex(self) -> list[str]:
        from dptheory.core.latex import latex

        names = self.symbol_names()
        return [latex(d, names) for d in self.definitions]

    def conditions_latex(self) -> list[str]:
        names = self.symbol_names()
        return [c.render_latex(names) for c in self.all_conditions]

    def explain(self) -> str:
        """Statement, conditions and citation, as text (rendered by :mod:`dptheory.core.describe`)."""
        from dptheory.core import describe

        return describe.explain(self)

    def __repr__(self) -> str:
        from dptheory.core import describe

        return describe.theorem_repr(self)

    def _repr_latex_(self) -> str:
        from dptheory.core import describe

        return describe.theorem_latex(self)
