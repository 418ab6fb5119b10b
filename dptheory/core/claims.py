"""Claims: the papers' stated orderings and identities, as data.

A :class:`Claim` relates two :class:`Quantity` objects over a :class:`Region` of parameters, as a
paper states it (``"Thm 4.2 is strictly smaller than composition after 1/(lambda eta) + n/b
epochs"``). The checker (:mod:`dptheory.core.checking`) decides it: *verified* on the tested
region (symbolically, exhaustively on a finite grid, or by property-based search), *falsified*
with a minimal counterexample re-verified at >= 50 digits, or *undecided*.

A claim that is false somewhere is a finding: its counterexamples are pinned here
(``counterexamples``) and the sanity suite asserts that they still falsify it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar

import mpmath
import numpy as np
import sympy as sp

from dptheory.core.citation import Citation
from dptheory.core.conditions import Condition
from dptheory.core.registry import REGISTRY
from dptheory.core.theorem import Theorem


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


@dataclass(frozen=True)
class Quantity:
    """One side of a claim: a function of the region's parameters.

    Either a theorem reference (``theorem`` key, optional ``term`` or ``limit``, and ``set``:
    parameters derived from the others, as sympy expressions in the theorem's symbols, e.g.
    ``{"j0": floor(n/b) - 1}``), or a custom quantity: ``mp(exact_point, dps) -> mpf`` and optionally
    ``np(exact_point) -> float``, reading the parameters listed in ``params``. Custom quantities are
    built from theorem references (see :func:`combine`) so that no formula is written twice.
    """

    label: str
    theorem: str | None = None
    term: str | None = None
    limit: str | None = None
    set: Mapping[str, sp.Expr] = field(default_factory=dict)
    mp: Callable[[Mapping[str, sp.Rational], int], Any] | None = None
    np: Callable[[Mapping[str, sp.Rational]], float | None] | None = None
    params: tuple[str, ...] = ()
    parts: tuple[Quantity, ...] = ()

    def theorem_refs(self) -> list[Quantity]:
        """Every theorem reference in this quantity (itself, or its parts recursively).

        A point is valid for the quantity when every referenced theorem's conditions hold there;
        custom quantities list the theorems they are built from (or whose conditions they need)
        in ``parts``.
        """
        if self.theorem is not None:
            return [self]
        out: list[Quantity] = []
        for p in self.parts:
            out.extend(p.theorem_refs())
        return out

    def thm(self) -> Theorem | None:
        return None if self.theorem is None else REGISTRY.get(self.theorem)

    def needed(self) -> tuple[str, ...]:
        """Parameters this side reads from the region point."""
        t = self.thm()
        if t is None:
            return self.params
        names = [p for p in t.params if p not in self.set]
        if self.limit is not None:
            names = [p for p in names if p != self.limit]
        extra = {s.name for e in self.set.values() for s in e.free_symbols}
        return tuple(dict.fromkeys([*names, *sorted(extra)]))

    def point(self, exact: Mapping[str, sp.Rational]) -> dict[str, sp.Rational]:
        """The theorem's parameters at a region point (derived parameters filled in exactly)."""
        t = self.thm()
        if t is None:
            raise TypeError(f"{self.label} is not a theorem reference")
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

    def value_mp(self, exact: Mapping[str, sp.Rational], dps: int) -> mpmath.mpf:
        t = self.thm()
        if t is None:
            if self.mp is None:
                raise TypeError(f"quantity {self.label} has neither a theorem nor an mp function")
            with mpmath.workdps(dps + 10):
                val = mpmath.mpf(self.mp(exact, dps + 10))
            with mpmath.workdps(dps):
                return +val
        pt = self.point(exact)
        if self.limit is not None:
            lim = t.limits[self.limit]
            t.check(pt, raise_on_violation=True)
            with mpmath.workdps(dps + 10):
                val = mpmath.mpf(lim.mp(t.kernel_args(pt)))
            with mpmath.workdps(dps):
                return +val
        return t.evaluate(pt, dps=dps, term=self.term).value

    def value_np(self, exact: Mapping[str, sp.Rational]) -> float | None:
        """float64 value at a point, or None if this side has no float64 path."""
        t = self.thm()
        if t is None:
            if self.np is None:
                return None
            v = self.np(exact)
            return None if v is None else float(v)
        if self.limit is not None:
            return None
        pt = self.point(exact)
        kern = t.kernels(self.term).np
        if kern is None:
            return None
        return float(t.evaluate_np({k: float(v) for k, v in pt.items()}, term=self.term))

    def value_np_batch(self, arrays: Mapping[str, np.ndarray]) -> np.ndarray | None:
        """float64 values on a whole grid at once (theorem references without limits only)."""
        t = self.thm()
        if t is None or self.limit is not None:
            return None
        kern = t.kernels(self.term).np
        if kern is None:
            return None
        cols: dict[str, np.ndarray] = {}
        for p in t.params:
            if p in self.set:
                e = self.set[p]
                syms = sorted(e.free_symbols, key=lambda s: s.name)
                f = sp.lambdify(syms, e, modules="numpy")
                cols[p] = np.asarray(f(*(arrays[s.name] for s in syms)), dtype=np.float64)
            else:
                cols[p] = np.asarray(arrays[p], dtype=np.float64)
        return t.evaluate_np(cols, term=self.term)


def combine(label: str, op: str, a: Quantity, b: Quantity) -> Quantity:
    """A custom quantity ``a OP b`` (OP in ``+ - * /``) of two quantities, evaluated both ways."""
    import operator

    f = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}[op]
    params = tuple(dict.fromkeys([*a.needed(), *b.needed()]))

    def mp_fn(exact: Mapping[str, sp.Rational], dps: int) -> mpmath.mpf:
        return f(a.value_mp(exact, dps), b.value_mp(exact, dps))

    def np_fn(exact: Mapping[str, sp.Rational]) -> float | None:
        x, y = a.value_np(exact), b.value_np(exact)
        if x is None or y is None:
            return None
        with np.errstate(all="ignore"):
            return float(f(np.float64(x), np.float64(y)))

    return Quantity(label=label, mp=mp_fn, np=np_fn, params=params, parts=(a, b))


def constant(label: str, value: Any) -> Quantity:
    """A constant quantity (e.g. +infinity for "the limit is finite")."""
    v = mpmath.mpf(value)
    return Quantity(label=label, mp=lambda _e, _d: v, np=lambda _e: float(v), params=())


@dataclass(frozen=True)
class Region:
    """Where a claim is stated.

    A point is in the region when every condition of the theorems on both sides of the claim holds
    there (with derived parameters filled in) and every extra constraint holds.

    Attributes:
        fixed: parameters fixed to one value (the figure settings).
        choices: parameters restricted to a finite set.
        ranges: (low, high, log_scale) sampling ranges overriding the notation's for this claim.
        constraints: extra conditions (sympy relationals in the parameters), e.g. ``K >= 1/(lam eta) + n/b``.
        description: the region in words.
    """

    fixed: Mapping[str, Any] = field(default_factory=dict)
    choices: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    ranges: Mapping[str, tuple[float, float, bool]] = field(default_factory=dict)
    constraints: tuple[Condition, ...] = ()
    description: str = ""


@dataclass(frozen=True)
class Claim:
    """A claimed relation ``lhs REL rhs`` over a region, as a paper states it.

    Attributes:
        key: ``yeshokri22.C5a``.
        title: short statement.
        citation: where the paper states it.
        statement: the paper's words (quoted or closely paraphrased).
        reading: how we read it (what is compared, on which region, what "approximately" means).
        lhs, rhs: the two quantities.
        relation: the relation claimed.
        region: where it is claimed.
        factor: for "same order" claims, ``lhs/rhs`` must lie in [1/factor, factor]; the relation is
            then ignored.
        symbolic: optional function returning a symbolic verdict (see :mod:`.symbolic`).
        counterexamples: pinned counterexamples (exact parameter values) that falsify the claim;
            the sanity suite asserts each still does.
        finding: for a falsified claim, what we found, in words.
        notation: the paper's notation table, for parameters read only by custom quantities.
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
    finding: str = ""
    tags: tuple[str, ...] = ()
    notation: Any = None

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
