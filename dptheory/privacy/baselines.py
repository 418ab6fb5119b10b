"""Composition baselines: a generic mechanism's theorem restated in a paper's parameters.

A paper often compares its bound with "the composition baseline": ``T`` steps of the Poisson-subsampled
Gaussian mechanism (``rdp.subsampled_gaussian``; Mironov, Talwar & Zhang 2019, arXiv 1908.10530, Sec. 3.3)
at a sampling probability ``q``, a noise multiplier ``z`` and a step count ``T`` that are functions of the
paper's parameters. :class:`Reparametrisation` writes that map once (sympy expressions, compiled to mpmath,
float64 and arb by :func:`dptheory.core.compile.compile_expr`); :func:`reparametrised` builds the paper's
:class:`~dptheory.core.theorem.Theorem` whose kernels are the base theorem's kernels at the compiled
substitution, and :func:`baseline_of` the :class:`Baseline` (``params -> (q, z, steps)``) that generic code
(``dptheory compare``) uses for the tight PLD and the RDP composition. The base theorem is looked up in the
registry by key when first needed, never imported by module.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from dptheory.core.errors import NumericalFailure
from dptheory.core.notation import NotationTable
from dptheory.core.registry import REGISTRY
from dptheory.core.theorem import Theorem
from dptheory.core.units import Direction

__all__ = ["Baseline", "Reparametrisation", "baseline_of", "reparametrised"]

#: working digits of :meth:`Reparametrisation.mechanism` (then rounded to 50 digits and to float64)
MECHANISM_DPS = 50


@dataclass(frozen=True)
class Baseline:
    """A composition baseline a paper's parameters define: ``mechanism(params) -> (q, z, steps)``.

    ``q`` is the Poisson sampling probability, ``z`` the noise multiplier, ``steps`` the number of composed
    steps of the subsampled Gaussian mechanism (Abadi et al. 2016; Mironov, Talwar & Zhang 2019, arXiv
    1908.10530). ``needs`` are the parameter names it reads; ``paper`` the registry prefix it belongs to
    (``compare`` shows it only beside that paper's theorems).
    """

    name: str
    title: str
    needs: tuple[str, ...]
    mechanism: Callable[[Mapping[str, Any]], tuple[float, float, int]]
    paper: str


@dataclass(frozen=True)
class Reparametrisation:
    """The base theorem ``base`` (a registry key) with each of its parameters replaced by an expression in
    ``params`` (symbols of ``notation``): ``substitution`` maps every base parameter to its expression.

    ``shown`` maps the base parameters the statement keeps as symbols to the symbol it prints (each followed by
    its defining equation, e.g. ``z = sqrt(2 eta sigma^2)/(eta S_g/b)``); the others are substituted inline.
    """

    base: str
    notation: NotationTable
    params: tuple[str, ...]
    substitution: Mapping[str, sp.Expr]
    shown: Mapping[str, sp.Symbol] = field(default_factory=dict)
    _compiled: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @functools.cached_property
    def base_theorem(self) -> Theorem:
        thm: Theorem = REGISTRY.get(self.base)
        missing = set(thm.params) - set(self.substitution)
        if missing:
            raise ValueError(f"substitution for {self.base} misses {sorted(missing)}")
        return thm

    def expr(self, name: str) -> sp.Expr:
        """The expression of base parameter ``name`` in this notation's symbols."""
        return sp.sympify(self.substitution[name])

    def compiled(self, name: str) -> Any:
        """Base parameter ``name`` compiled over the parameters it reads (in the order of ``params``)."""
        hit = self._compiled.get(name)
        if hit is None:
            from dptheory.core.compile import compile_expr

            free = self.expr(name).free_symbols
            used = [p for p in self.params if self.notation.sym(p) in free]
            syms = {p: self.notation.sym(p) for p in used}
            ints = frozenset(p for p in used if self.notation[p].domain.is_integer)
            hit = compile_expr(self.expr(name), syms, integers=ints)
            self._compiled[name] = hit
        return hit

    def _args(self, backend: str, p: Mapping[str, Any]) -> dict[str, Any]:
        base = self.base_theorem
        out: dict[str, Any] = {}
        for name in base.params:
            c = self.compiled(name)
            sub = {k: p[k] for k in c.params}
            if backend == "mp":
                v = c.mp(sub)
                out[name] = int(v) if base.notation[name].domain.is_integer else v
            elif backend == "np":
                out[name] = c.np(sub)
            else:
                out[name] = c.arb(sub)
        return out

    def mp(self, p: Mapping[str, Any]) -> Any:
        """The base theorem's mpmath kernel at the substitution (the caller's precision)."""
        return self.base_theorem.kernels().mp(self._args("mp", p))

    def np(self, p: Mapping[str, np.ndarray]) -> Any:
        """The base theorem's float64 kernel at the substitution."""
        kern = self.base_theorem.kernels().np
        if kern is None:  # pragma: no cover - every base used here has one
            raise NumericalFailure(f"{self.base} has no float64 kernel")
        return kern(self._args("np", p))

    def arb(self, key: str, p: Mapping[str, Any]) -> Any:
        """The base theorem's ball evaluator at the substitution; a failure naming the base is said for ``key``."""
        kern = self.base_theorem.kernels().arb
        if kern is None:  # pragma: no cover - every base used here has one
            raise NumericalFailure(f"{self.base} has no ball evaluator")
        try:
            return kern.arb(self._args("arb", p))
        except NumericalFailure as exc:
            prefix = f"{self.base}: "
            if type(exc) is not NumericalFailure or not str(exc).startswith(prefix):
                raise  # Undecided (the Ziv loop retries) or another kernel's own message
            raise NumericalFailure(f"{key}: {str(exc)[len(prefix) :]}") from None

    def statement(self, direction: Direction) -> tuple[sp.Basic, ...]:
        """The base statement at the substitution: its value relation first (``<=`` for an upper bound,
        ``>=`` for a lower one), then its definitions, then the equation of each ``shown`` parameter."""
        base = self.base_theorem
        inline = {base.notation.sym(k): self.shown.get(k, self.expr(k)) for k in base.params}
        rel: Any = {Direction.UPPER: sp.Le, Direction.LOWER: sp.Ge}.get(direction, sp.Eq)
        value: list[sp.Basic] = []
        defs: list[sp.Basic] = []
        for s in base.statement:
            s2 = s.xreplace(inline)
            if isinstance(s2, sp.Eq) and s2.lhs == sp.Symbol("varepsilon"):
                value.append(rel(s2.lhs, s2.rhs))
            else:
                defs.append(s2)
        eqs = [sp.Eq(sym, self.expr(k)) for k, sym in self.shown.items()]
        return (*value, *defs, *eqs)

    def mechanism(self, key: str, params: Mapping[str, Any]) -> tuple[float, float, int]:
        """``(q, z, T)`` at ``params`` (the conditions of theorem ``key`` checked at alpha = 2, where the
        mechanism is defined), as float64 and int: each computed at 60 digits, rounded to 50, then to float."""
        thm: Theorem = REGISTRY.get(key)
        exact = thm.parse({**{k: params[k] for k in thm.params if k != "alpha"}, "alpha": 2})
        thm.check(exact, raise_on_violation=True)
        vals = {}
        with mpmath.workdps(MECHANISM_DPS + 10):
            args = thm.kernel_args(exact)
            for name in ("q", "z", "T"):
                c = self.compiled(name)
                vals[name] = c.mp({k: args[k] for k in c.params})
        with mpmath.workdps(MECHANISM_DPS):
            return float(+vals["q"]), float(+vals["z"]), int(vals["T"])


def reparametrised(
    reparam: Reparametrisation, *, key: str, kernel_reason: str, direction: Direction, **fields: Any
) -> Theorem:
    """A :class:`~dptheory.core.theorem.Theorem` ``key`` whose value is ``reparam.base`` at the substitution:
    its statement is the base's (:meth:`Reparametrisation.statement`) and its mp, float64 and arb kernels are
    the base's at the compiled substitution (declared overrides: ``kernel_reason`` says why the base needs
    hand kernels). The base's orders that are slow at fractional values (``slow_fractional``) stay slow here
    unless ``fields`` says otherwise, when the substitution leaves them as they are."""
    if "slow_fractional" not in fields:
        fields["slow_fractional"] = tuple(
            name
            for name in reparam.base_theorem.slow_fractional
            if name in reparam.params and reparam.expr(name) == reparam.notation.sym(name)
        )
    return Theorem(
        key=key,
        notation=reparam.notation,
        params=reparam.params,
        statement=reparam.statement(direction),
        direction=direction,
        mp=reparam.mp,
        np=reparam.np,
        arb=functools.partial(reparam.arb, key),
        kernel_reason=kernel_reason,
        **fields,
    )


def baseline_of(reparam: Reparametrisation, *, key: str, title: str, paper: str) -> Baseline:
    """The :class:`Baseline` named ``key`` of a reparametrised subsampled-Gaussian theorem ``key``: it reads
    the parameters the substitution uses (``alpha`` aside) and returns ``(q, z, T)``."""
    free = set().union(*(reparam.expr(k).free_symbols for k in ("q", "z", "T")))
    needs = tuple(p for p in reparam.params if reparam.notation.sym(p) in free)
    return Baseline(
        name=key, title=title, needs=needs, mechanism=functools.partial(reparam.mechanism, key), paper=paper
    )
