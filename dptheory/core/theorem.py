"""Theorems as data.

A :class:`Theorem` is a frozen object that carries its citation, its parameters (from the paper's
notation table), its conditions (sympy relationals), its bound (a sympy expression, or for a
recurrence a sympy statement plus a numeric kernel), its direction and unit. Everything else (the
evaluator, the condition checker, the hypothesis strategies, the claim checks, the CLI, the reports)
reads these objects; nothing about a theorem is written twice.

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

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, TypeAlias

import mpmath
import numpy as np
import sympy as sp
from numpy.typing import NDArray

from dptheory.core.citation import Citation
from dptheory.core.conditions import Condition, ConditionResult, Status, integer_condition
from dptheory.core.errors import (
    ConditionViolated,
    InvalidParameter,
    MissingParameter,
    NumericalFailure,
    ParameterOutOfRange,
    UnexpectedParameter,
)
from dptheory.core.notation import Domain, NotationTable, Param, format_rational, parse_value, rational_to_mpf
from dptheory.core.units import Direction, Monotone, Unit
from dptheory.core.validate import shown
from dptheory.core.values import BoundValue

if TYPE_CHECKING:
    from dptheory.core.compile import ArbKernel, Compiled, Enclosure

KernelMP = Callable[[Mapping[str, Any]], Any]
KernelNP = Callable[[Mapping[str, np.ndarray]], Any]
KernelArb = Callable[[Mapping[str, Any]], Any]
# module-level: inside Theorem and Kernels the name ``np`` is the float64 kernel field, not numpy
FloatArray: TypeAlias = NDArray[np.float64]
BoolArray: TypeAlias = NDArray[np.bool_]

GUARD_DIGITS = 10
DEFAULT_DPS = 50


@dataclass(frozen=True, slots=True)
class Term:
    """A named part of a bound (e.g. the first term of Thm 4.2), evaluable on its own.

    Its ``expr`` is compiled like a theorem's bound; ``mp``/``np`` are declared overrides (the
    theorem's ``kernel_reason`` says why).
    """

    name: str
    description: str
    mp: KernelMP | None = None
    np: KernelNP | None = None
    expr: sp.Expr | None = None


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
    mp: KernelMP | None = None
    exists_when: Condition | None = None
    expr: sp.Expr | None = None
    derivation: str = ""
    sympy_subs: tuple[tuple[sp.Expr, sp.Expr], ...] = ()
    sympy_back: tuple[tuple[sp.Expr, sp.Expr], ...] = ()
    sympy_doit: bool = False
    mp_reason: str = ""

    def __post_init__(self) -> None:
        if self.mp is None and self.expr is None:
            raise ValueError(f"the limit as {self.param} -> oo needs an expression (compiled) or an mp override")
        if self.override and not self.mp_reason.strip():
            raise ValueError(
                f"the limit as {self.param} -> oo has a hand-written mp kernel, a declared override of its "
                "expression: say why in mp_reason"
            )

    @property
    def override(self) -> bool:
        """Whether ``mp`` is a hand-written kernel (not compiled from ``expr``)."""
        return self.mp is not None and not isinstance(self.mp, CompiledLimit)


class CompiledLimit:
    """The mpmath kernel of a :class:`Limit`, compiled from its ``expr`` on first use
    (:func:`dptheory.core.compile.compile_expr`, in the theorem's parameters other than the limit's)."""

    __slots__ = ("_compiled", "expr", "integers", "symbols")

    def __init__(self, expr: sp.Expr, symbols: Mapping[str, sp.Symbol], integers: frozenset[str]) -> None:
        self.expr = expr
        self.symbols = dict(symbols)
        self.integers = integers
        self._compiled: Compiled | None = None

    @property
    def compiled(self) -> Compiled:
        if self._compiled is None:
            from dptheory.core.compile import compile_expr

            self._compiled = compile_expr(self.expr, self.symbols, integers=self.integers)
        return self._compiled

    def __call__(self, args: Mapping[str, Any]) -> Any:
        return self.compiled.mp(args)


@dataclass(frozen=True, kw_only=True)
class Theorem:
    """A theorem (or any bound we encode) as data.

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

    def __post_init__(self) -> None:
        if self.bound is None and self.mp is None:
            raise ValueError(f"{self.key}: a theorem needs a closed-form bound or an mp kernel (with kernel_reason)")
        overrides = [n for n in ("mp", "np", "arb") if getattr(self, n) is not None]
        overrides += [f"{t.name}.{n}" for t in self.terms.values() for n in ("mp", "np") if getattr(t, n) is not None]
        if overrides and not self.kernel_reason.strip():
            raise ValueError(f"{self.key}: hand-written kernels ({', '.join(overrides)}) are declared overrides of "
                             "the statement: say why in kernel_reason")
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
        if lim.mp is not None:
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

    def parse(self, params: Mapping[str, Any]) -> dict[str, sp.Rational]:
        """Validate names and turn every value into an exact rational."""
        unexpected = sorted(set(params) - set(self.params))
        if unexpected:
            raise UnexpectedParameter(key=self.key, unexpected=unexpected, expected=list(self.params))
        missing = [p for p in self.params if p not in params]
        if missing:
            raise MissingParameter(key=self.key, missing=missing, expected=list(self.params))
        cite = self.citation.short()
        return {p: parse_value(params[p], key=self.key, name=p, citation=cite) for p in self.params}

    # ------------------------------------------------------------------ conditions
    def check(self, params: Mapping[str, Any], *, raise_on_violation: bool = False) -> tuple[ConditionResult, ...]:
        """Status of every condition at a point (domain conditions first)."""
        exact = params if _all_rational(params, self.params) else self.parse(params)
        return self._check_exact(exact, raise_on_violation=raise_on_violation, domain_only=False)

    def _check_exact(
        self, exact: Mapping[str, sp.Rational], *, raise_on_violation: bool, domain_only: bool
    ) -> tuple[ConditionResult, ...]:
        subs = {self.notation.sym(p): v for p, v in exact.items()}
        results: list[ConditionResult] = []
        for cond in self.domain_conditions:
            r = cond.evaluate(subs)
            results.append(r)
        domain_bad = [r for r in results if r.status is Status.VIOLATED]
        if domain_bad:
            # the formula is undefined outside the domain: always an error
            self._raise(domain_bad[0], exact)
        if domain_only:
            return tuple(results)
        for cond in self.conditions:
            r = cond.evaluate(subs)
            results.append(r)
            if raise_on_violation and r.status is Status.VIOLATED:
                self._raise(r, exact)
        return tuple(results)

    def _raise(self, r: ConditionResult, exact: Mapping[str, sp.Rational]) -> None:
        names = [p for p in self.params if self.notation.sym(p) in r.condition.symbols]
        cite = (r.condition.citation or self.citation).short()
        raise ConditionViolated(
            key=self.key,
            condition=r.text,
            gloss=r.condition.gloss,
            lhs=r.lhs,
            rhs=r.rhs,
            values={n: format_rational(exact[n]) for n in names},
            citation=cite,
        )

    # ------------------------------------------------------------------ kernels
    @property
    def compiled(self) -> Compiled | None:
        """The bound compiled to mpmath, float64 and arb (cached), or ``None`` without a closed form."""
        if self.bound is None:
            return None
        from dptheory.core.compile import compile_theorem

        return compile_theorem(self)

    def kernels(self, term: str | None = None) -> Kernels:
        """The mpmath, float64 and arb evaluators of the bound (or of a named term): the declared
        overrides where given, the compiled statement otherwise."""
        if term is not None:
            return self._term_kernels(term)
        c = self.compiled
        np_k: KernelNP | None = self.np
        if np_k is None and c is not None:
            np_k = c.np_flagged if self.np_flagged else c.np
        arb_k: ArbKernel | None = None
        if self.arb is not None:
            arb_k = ArbEvaluator(self.params, self.arb)
        elif c is not None:
            arb_k = c
        if self.mp is not None:
            mp_k: KernelMP = self.mp
        else:
            assert c is not None  # __post_init__: a theorem without a bound declares an mp kernel
            mp_k = c.mp
        return Kernels(mp=mp_k, np=np_k, arb=arb_k)

    def _term_kernels(self, name: str) -> Kernels:
        t = self._term(name)
        c = _compiled_term(self, t) if t.expr is not None else None
        if t.mp is None and c is None:
            raise ValueError(f"{self.key}: term {name} has neither an expression nor an mp kernel")
        np_k = t.np if t.np is not None else (None if c is None else (c.np_flagged if self.np_flagged else c.np))
        if t.mp is not None:
            mp_k: KernelMP = t.mp
        else:
            assert c is not None  # the check above: a term without an expression has an mp kernel
            mp_k = c.mp
        return Kernels(mp=mp_k, np=np_k, arb=c)

    @cached_property
    def overrides(self) -> tuple[str, ...]:
        """The hand-written kernels of this theorem (``mp``, ``np``, ``arb``, ``term1.mp``...)."""
        names = [n for n in ("mp", "np", "arb") if getattr(self, n) is not None]
        names += [f"{t.name}.{n}" for t in self.terms.values() for n in ("mp", "np") if getattr(t, n) is not None]
        return tuple(names)

    # ------------------------------------------------------------------ evaluation
    def evaluate(
        self,
        params: Mapping[str, Any] | None = None,
        /,
        *,
        dps: int = DEFAULT_DPS,
        check: bool = True,
        term: str | None = None,
        certify: bool = False,
        **kwargs: Any,
    ) -> BoundValue:
        """Evaluate the bound at a point to ``dps`` correct significant digits.

        Where the statement (or a declared ``arb`` override) can be evaluated on balls, the value is
        the midpoint of a certified enclosure narrow enough that its two ends round to the same
        ``dps`` digits (Ziv's strategy: raise the working precision until they do); otherwise the
        mpmath kernel runs at ``dps`` plus guard digits and again at twice the guard, and the digits
        must agree (evidence, not proof; the result then says it is not certified).

        Args:
            params: parameter values (or pass them as keyword arguments).
            dps: significant decimal digits of the result (at least 1).
            check: raise :class:`ConditionViolated` on a violated condition. With ``check=False``
                the value is computed and the violations are listed in the result (domain
                violations, where the formula itself is undefined, still raise).
            term: evaluate a named term of the bound instead of the whole bound.
            certify: require a certified enclosure; raise :class:`NumericalFailure` saying why
                when the theorem has no rigorous evaluator at this point.

        Returns:
            a :class:`BoundValue` (with ``enclosure`` when certified).
        """
        if isinstance(dps, bool) or not isinstance(dps, int) or dps < 1:
            raise InvalidParameter(key=self.key, name="dps", value=dps, reason="must be a whole number >= 1")
        merged = {**(params or {}), **kwargs}
        exact = self.parse(merged)
        conds = self._check_exact(exact, raise_on_violation=check, domain_only=False)
        try:
            value, enclosure = self._evaluate_exact(exact, dps=dps, term=term, certify=certify)
        except ParameterOutOfRange as exc:  # a kernel's range, said in the user's terms
            raise self._out_of_range(exc, merged) from None
        return BoundValue(
            key=self.key if term is None else f"{self.key}:{term}",
            value=value,
            unit=self.unit,
            direction=self.direction,
            dps=dps,
            quantity=self.quantity if term is None else self._term(term).description,
            params=exact,
            conditions=conds,
            enclosure=enclosure,
        )

    def _out_of_range(self, exc: ParameterOutOfRange, written: Mapping[str, Any]) -> ParameterOutOfRange:
        """A kernel's :class:`ParameterOutOfRange` (named by the kernel's argument, with the kernel's number)
        restated with this theorem's key and citation and the value as the user wrote it; an argument the
        kernel computes from the parameters is named as such."""
        if exc.name in self.params and exc.name in written:
            name, value = exc.name, shown(written[exc.name])
        else:
            name, value = f"{exc.name} (computed from {', '.join(self.params)})", exc.value
        return ParameterOutOfRange(key=self.key, name=name, value=value, reason=exc.reason,
                                   citation=self.citation.short())

    def _evaluate_exact(
        self, exact: Mapping[str, sp.Rational], *, dps: int, term: str | None, certify: bool
    ) -> tuple[mpmath.mpf, Enclosure | None]:
        """The value (and its certified enclosure, if any) at a parsed, checked point: :meth:`evaluate`'s work."""
        kern = self.kernels(term)
        enclosure = None
        why_not = "no rigorous evaluator (no closed-form statement and no arb override)"
        if kern.arb is not None:
            try:
                enclosure = _enclose_digits(kern.arb, exact, dps)
            except NumericalFailure as exc:
                if certify and isinstance(exc, ParameterOutOfRange):
                    raise
                why_not = str(exc)
        if certify and enclosure is None:
            raise NumericalFailure(f"{self.key}{':' + term if term else ''} cannot be certified here: {why_not}")
        if enclosure is not None:
            # the decimal rounding both ends share (rounding the mid to dps*3.33 bits can cross a decimal
            # rounding boundary and print a wrong last digit)
            with mpmath.workdps(dps):
                mid = enclosure.mid
                small = mpmath.isfinite(mid) and (mid == 0 or abs(mpmath.mag(mid)) < 10**4)  # cheap decimal conversion
                value = mpmath.mpf(mpmath.nstr(mid, dps)) if small else +mid
            if not enclosure.relative and kern.mp is not None:
                # the ball still contains 0 (only an absolute radius below 10^-dps was reached): its midpoint
                # may be 0 where the value is a tiny nonzero number, so the digits come from the mpmath
                # kernel's Ziv loop, kept only if the certified enclosure contains them
                mp_value = self._run_mp(kern.mp, exact, dps, double_check=True)
                if not enclosure.contains(mp_value):
                    raise NumericalFailure(
                        f"{self.key}: the mpmath value {mpmath.nstr(mp_value, 8)} is outside the certified enclosure "
                        f"[{enclosure.lo_str}, {enclosure.hi_str}]; please report this point"
                    )
                value = mp_value
        else:
            value = self._run_mp(kern.mp, exact, dps, double_check=True)
        return value, enclosure

    __call__ = evaluate

    def value(self, params: Mapping[str, Any] | None = None, /, *, dps: int = DEFAULT_DPS, **kw: Any) -> mpmath.mpf:
        """Shortcut: the mpf value only (conditions are still checked)."""
        return self.evaluate(params, dps=dps, **kw).value

    def _term(self, name: str) -> Term:
        try:
            return self.terms[name]
        except KeyError:
            raise KeyError(f"{self.key} has no term {name!r}; terms: {', '.join(self.terms) or 'none'}") from None

    def kernel_args(self, exact: Mapping[str, sp.Rational]) -> dict[str, Any]:
        """Kernel inputs at the current mpmath precision: int for integer parameters, mpf otherwise."""
        out: dict[str, Any] = {}
        for p in self.params:
            v = exact[p]
            if self.notation[p].domain.is_integer:
                out[p] = int(v)
            else:
                out[p] = rational_to_mpf(v)
        return out

    def _run_mp(
        self, kernel: KernelMP, exact: Mapping[str, sp.Rational], dps: int, *, double_check: bool = False
    ) -> mpmath.mpf:
        """The kernel at ``dps`` + guard digits; with ``double_check``, again with twice the guard
        digits (and more, up to 128x: an ill-conditioned point such as the kl inverse at q ~ 1e-323
        needs hundreds of digits) until two successive values round to the same ``dps`` digits: the
        non-rigorous Ziv loop for kernels without a ball evaluator (a kernel that loses the same
        digits at every precision would still agree with itself)."""
        guard = GUARD_DIGITS
        val = self._run_mp_once(kernel, exact, dps + guard)
        if not double_check or mpmath.isinf(val):
            with mpmath.workdps(dps):
                return +val
        for _ in range(7):
            guard *= 2
            val2 = self._run_mp_once(kernel, exact, dps + guard)
            with mpmath.workdps(dps):
                a, b = +val, +val2
            if a == b:
                return b
            val = val2
        raise NumericalFailure(
            f"{self.key}: the value does not settle to {dps} digits between {dps + guard // 2} and {dps + guard} "
            f"working digits at {dict(exact)}; ask for fewer digits or report it"
        )

    def _run_mp_once(self, kernel: KernelMP, exact: Mapping[str, sp.Rational], wdps: int) -> mpmath.mpf:
        with mpmath.workdps(wdps):
            args = self.kernel_args(exact)
            try:
                raw = kernel(args)
                if isinstance(raw, mpmath.mpc):
                    if raw.imag != 0:
                        raise ValueError(f"complex result {raw}")
                    raw = raw.real
            except InvalidParameter:
                raise  # a kernel's own range (ParameterOutOfRange): evaluate() says it in the user's terms
            except (ZeroDivisionError, ValueError, OverflowError, TypeError) as exc:
                bad = [
                    r
                    for r in self._check_exact(exact, raise_on_violation=False, domain_only=False)
                    if r.status is Status.VIOLATED
                ]
                why = f"; the violated condition {bad[0].text} makes it undefined" if bad else ""
                raise NumericalFailure(f"{self.key}: evaluation failed at {_point_text(exact)}{why}: {exc}") from exc
            val = mpmath.mpf(raw)
        if mpmath.isnan(val):
            raise NumericalFailure(f"{self.key}: evaluation gave NaN at {_point_text(exact)}; this is a bug, please "
                                   "report it")
        return val

    def evaluate_np(self, params: Mapping[str, Any], *, term: str | None = None) -> FloatArray:
        """Vectorised float64 evaluation (no condition checks; see :mod:`dptheory.sweep`).

        Values that overflow float64 come back as ``inf``; :func:`dptheory.sweep.sweep`
        recomputes those points in the log domain with mpmath.
        """
        kern = self.kernels(term)
        kernel = kern.np
        if kernel is None:
            raise NotImplementedError(f"{self.key}{':' + term if term else ''} has no float64 kernel")
        arrays = {p: np.asarray(params[p], dtype=np.float64) for p in self.params}
        b = np.broadcast_arrays(*arrays.values())
        arrays = dict(zip(arrays.keys(), b, strict=True))
        with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
            raw = kernel(arrays)
        if isinstance(raw, tuple):
            # (values, unreliable): the kernel flags points where float64 cancellation could cost
            # more than 1e-11 relative; those are recomputed with mpmath at 30 digits
            out, unreliable = (np.array(raw[0], dtype=np.float64), np.asarray(raw[1], dtype=bool))
            mp_kernel = kern.mp
            shape = np.broadcast_shapes(out.shape, unreliable.shape)
            out = np.broadcast_to(out, shape).copy()
            unreliable = np.broadcast_to(unreliable, shape)
            for idx in np.ndindex(shape):
                if not unreliable[idx]:
                    continue
                with mpmath.workdps(30):
                    args = {}
                    for p_name, arr in arrays.items():
                        v = float(np.broadcast_to(arr, shape)[idx])
                        args[p_name] = int(v) if self.notation[p_name].domain.is_integer else mpmath.mpf(v)
                    out[idx] = float(mp_kernel(args))
        else:
            out = np.asarray(raw, dtype=np.float64)
        if np.isnan(out).any():
            idx = np.argwhere(np.isnan(out))[0]
            point = (
                {p: float(a[tuple(idx)]) for p, a in arrays.items()}
                if out.ndim
                else {p: float(a) for p, a in arrays.items()}
            )
            raise NumericalFailure(f"{self.key}: float64 evaluation gave NaN at {point}; check the conditions there")
        return out

    def check_np(self, params: Mapping[str, Any]) -> BoolArray:
        """Vectorised float64 check of every condition: True where all hold (approximate at ties)."""
        arrays = {p: np.asarray(params[p], dtype=np.float64) for p in self.params}
        b = np.broadcast_arrays(*arrays.values())
        ok = np.ones(b[0].shape, dtype=bool)
        syms = list(self.symbols)
        for cond in self.all_conditions:
            f = _np_condition(cond, tuple(syms))
            with np.errstate(all="ignore"):
                ok &= np.asarray(f(*b), dtype=bool)
        return ok

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


def _point_text(exact: Mapping[str, sp.Rational]) -> str:
    """``alpha = 10, q = 0.01`` (exact values as decimals or fractions, never ``mpf('...')`` reprs)."""
    return ", ".join(f"{k} = {format_rational(v)}" for k, v in exact.items())


def _all_rational(params: Mapping[str, Any], names: tuple[str, ...]) -> bool:
    return set(params) == set(names) and all(isinstance(params[p], sp.Rational) for p in names)


_NP_COND_CACHE: dict[tuple[Condition, tuple[sp.Symbol, ...]], Callable[..., Any]] = {}


def _np_condition(cond: Condition, syms: tuple[sp.Symbol, ...]) -> Callable[..., Any]:
    key = (cond, syms)
    f = _NP_COND_CACHE.get(key)
    if f is None:
        f = sp.lambdify(syms, cond.relation, modules="numpy")
        _NP_COND_CACHE[key] = f
    return f


@dataclass(frozen=True)
class ArbEvaluator:
    """A hand-written arb kernel in the shape :func:`dptheory.core.compile.enclose` expects."""

    params: tuple[str, ...]
    fn: KernelArb

    def arb(self, args: Mapping[str, Any]) -> Any:
        return self.fn(args)


@dataclass(frozen=True)
class Kernels:
    """The three evaluators of a bound or term (``np``/``arb`` may be missing)."""

    mp: KernelMP
    np: KernelNP | None
    arb: ArbKernel | None  # Compiled or ArbEvaluator


_TERM_CACHE: dict[tuple[str, str], tuple[sp.Expr, Compiled]] = {}


def _compiled_term(thm: Theorem, term: Term) -> Compiled:
    from dptheory.core.compile import compile_expr

    hit = _TERM_CACHE.get((thm.key, term.name))
    if hit is not None and hit[0] is term.expr:
        return hit[1]
    syms = {p: thm.notation.sym(p) for p in thm.params}
    ints = frozenset(p for p in thm.params if thm.notation[p].domain.is_integer)
    out = compile_expr(term.expr, syms, integers=ints)
    _TERM_CACHE[(thm.key, term.name)] = (term.expr, out)
    return out


def _enclose_digits(evaluator: ArbKernel, exact: Mapping[str, sp.Rational], dps: int) -> Enclosure:
    """A certified enclosure whose ends round to the same ``dps`` significant digits (Ziv's loop:
    ask for a few more digits each time the ends straddle a rounding boundary)."""
    from dptheory.core.compile import enclose

    last = None
    for extra in (3, 12, 40):
        e = enclose(evaluator, exact, dps=dps + extra)
        if mpmath.isinf(e.mid) or e.lo == e.hi:
            return e
        if abs(mpmath.mag(e.mid)) >= 10**4:  # huge exponents: compare binary roundings (no slow decimal conversion)
            with mpmath.workdps(dps):
                if +e.lo == +e.hi:
                    return e
        elif mpmath.nstr(e.lo, dps) == mpmath.nstr(e.hi, dps):  # the ends print the same dps digits
            return e
        last = e
    assert last is not None
    return last  # a value on a rounding boundary to within 10^-(dps+40): the last digit may be off by one
