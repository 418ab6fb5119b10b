"""Theorems as data.

A :class:`Theorem` is a frozen object that carries its citation, its parameters (from the paper's
notation table), its conditions (sympy relationals), its bound (a sympy expression, or for a
recurrence a sympy statement plus a numeric kernel), its direction and unit. Everything else (the
evaluator, the condition checker, the hypothesis strategies, the claim checks, the CLI, the reports)
reads these objects; nothing about a theorem is written twice.

Numerics are separate from declarations (``dptheory/numerics``): a theorem points at two kernels,

* ``mp``: ``dict -> mpf``, evaluated inside a scoped ``mpmath.workdps`` (never global precision),
  receiving Python ``int`` for integer parameters and ``mpf`` for the others;
* ``np``: ``dict of float64 arrays -> float64 array`` for sweeps, required to agree with ``mp`` to
  1e-10 relative wherever both are finite (checked for every theorem in ``checks/``).

Design note (differs from the original design, where the evaluators were compiled from the sympy
formula): the sympy ``bound`` is the *statement* and is used for LaTeX, symbolic limits and as an
independent oracle for the kernels (the contract suite lambdifies it at high precision and compares),
but it is not what the evaluator runs. The papers'
formulas are written for reading, not for floating point (``1 - r**m`` for ``r`` near 1, the
log-mean-exp of footnote 4); kernels are written for stability and the statement keeps them honest.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import mpmath
import numpy as np
import sympy as sp

from dptheory.core.citation import Citation
from dptheory.core.conditions import Condition, ConditionResult, Status, integer_condition
from dptheory.core.errors import (
    ConditionViolated,
    MissingParameter,
    NumericalFailure,
    UnexpectedParameter,
)
from dptheory.core.notation import Domain, NotationTable, Param, format_rational, parse_value, rational_to_mpf
from dptheory.core.units import Direction, Unit
from dptheory.core.values import BoundValue

KernelMP = Callable[[Mapping[str, Any]], Any]
KernelNP = Callable[[Mapping[str, np.ndarray]], np.ndarray]

GUARD_DIGITS = 10
DEFAULT_DPS = 50


@dataclass(frozen=True, slots=True)
class Term:
    """A named part of a bound (e.g. the first term of Thm 4.2), evaluable on its own."""

    name: str
    description: str
    mp: KernelMP
    np: KernelNP | None = None
    expr: sp.Expr | None = None


@dataclass(frozen=True, slots=True)
class Limit:
    """The limit of a bound as one parameter tends to infinity.

    Attributes:
        param: the parameter (``"K"``).
        exists_when: the exact condition under which the limit is finite, or ``None`` if always.
        mp: kernel for the limit value (same inputs as the theorem minus ``param``).
        expr: the limit as a sympy expression, for LaTeX.
        derivation: where the derivation is written down (docs path) and how it is checked.
        sympy_subs: substitutions that put the bound in a form sympy's ``limit`` can decide (e.g.
            ``1 - eta*lam -> 1/(1+t)`` with ``t > 0``, valid under the theorem's conditions), applied
            before ``sympy.limit``; ``sympy_back`` undoes them in the result. ``sympy_doit`` expands
            sums first. See :func:`dptheory.core.symbolic.symbolic_limit`.
    """

    param: str
    mp: KernelMP
    exists_when: Condition | None = None
    expr: sp.Expr | None = None
    derivation: str = ""
    sympy_subs: tuple[tuple[sp.Expr, sp.Expr], ...] = ()
    sympy_back: tuple[tuple[sp.Expr, sp.Expr], ...] = ()
    sympy_doit: bool = False


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
        mp: the high-precision kernel.
        np: the float64 kernel (vectorised), or ``None`` when there is none. It may return a pair
            ``(values, unreliable_mask)``: flagged points (where float64 cancellation could cost
            more than 1e-11 relative) are then recomputed with mpmath at 30 digits.
        terms: named parts of the bound.
        monotone: parameters in which the bound is stated (or proved) monotone, with the sense
            (``"nondecreasing"``, ``"nonincreasing"``, ``"increasing"``, ``"decreasing"``).
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
    mp: KernelMP
    np: KernelNP | None = None
    terms: Mapping[str, Term] = field(default_factory=dict)
    monotone: Mapping[str, str] = field(default_factory=dict)
    limits: Mapping[str, Limit] = field(default_factory=dict)
    reading: str = ""
    notes: str = ""
    sample: Mapping[str, tuple[float, float, bool]] = field(default_factory=dict)
    infinite_when: str = ""
    witnesses: tuple[Mapping[str, Any], ...] = ()

    def __post_init__(self) -> None:
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

    # ------------------------------------------------------------------ parameters
    @property
    def param_objects(self) -> tuple[Param, ...]:
        return tuple(self.notation[p] for p in self.params)

    @property
    def symbols(self) -> tuple[sp.Symbol, ...]:
        return tuple(self.notation.sym(p) for p in self.params)

    def symbol_names(self) -> dict[sp.Symbol, str]:
        return self.notation.symbol_names()

    @property
    def domain_conditions(self) -> tuple[Condition, ...]:
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

    # ------------------------------------------------------------------ evaluation
    def evaluate(
        self,
        params: Mapping[str, Any] | None = None,
        /,
        *,
        dps: int = DEFAULT_DPS,
        check: bool = True,
        term: str | None = None,
        **kwargs: Any,
    ) -> BoundValue:
        """Evaluate the bound at a point with mpmath at ``dps`` significant digits.

        Args:
            params: parameter values (or pass them as keyword arguments).
            dps: significant decimal digits of the result (guard digits are added internally).
            check: raise :class:`ConditionViolated` on a violated condition. With ``check=False``
                the value is computed and the violations are listed in the result (domain
                violations, where the formula itself is undefined, still raise).
            term: evaluate a named term of the bound instead of the whole bound.

        Returns:
            a :class:`BoundValue`.
        """
        merged = {**(params or {}), **kwargs}
        exact = self.parse(merged)
        conds = self._check_exact(exact, raise_on_violation=check, domain_only=False)
        kernel = self.mp if term is None else self._term(term).mp
        value = self._run_mp(kernel, exact, dps)
        return BoundValue(
            key=self.key if term is None else f"{self.key}:{term}",
            value=value,
            unit=self.unit,
            direction=self.direction,
            dps=dps,
            quantity=self.quantity if term is None else self._term(term).description,
            params=exact,
            conditions=conds,
        )

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

    def _run_mp(self, kernel: KernelMP, exact: Mapping[str, sp.Rational], dps: int) -> mpmath.mpf:
        with mpmath.workdps(dps + GUARD_DIGITS):
            args = self.kernel_args(exact)
            try:
                raw = kernel(args)
                if isinstance(raw, mpmath.mpc):
                    if raw.imag != 0:
                        raise ValueError(f"complex result {raw}")
                    raw = raw.real
            except (ZeroDivisionError, ValueError, OverflowError, TypeError) as exc:
                bad = [
                    r
                    for r in self._check_exact(exact, raise_on_violation=False, domain_only=False)
                    if r.status is Status.VIOLATED
                ]
                why = f"; the violated condition {bad[0].text} makes it undefined" if bad else ""
                raise NumericalFailure(f"{self.key}: evaluation failed at {dict(args)}{why}: {exc}") from exc
            val = mpmath.mpf(raw)
        if mpmath.isnan(val):
            raise NumericalFailure(f"{self.key}: evaluation gave NaN at {exact}; this is a bug, please report it")
        with mpmath.workdps(dps):
            return +val

    def evaluate_np(self, params: Mapping[str, Any], *, term: str | None = None) -> np.ndarray:
        """Vectorised float64 evaluation (no condition checks; see :mod:`dptheory.sweep`).

        Values that overflow float64 come back as ``inf``; :func:`dptheory.sweep.sweep`
        recomputes those points in the log domain with mpmath.
        """
        kernel = self.np if term is None else self._term(term).np
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
            mp_kernel = self.mp if term is None else self._term(term).mp
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

    def check_np(self, params: Mapping[str, Any]) -> np.ndarray:
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

    def explicit_bound(self) -> sp.Expr | None:
        """The bound with every paper-notation shorthand expanded (``doit``), for oracles."""
        return None if self.bound is None else self.bound.doit()

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
