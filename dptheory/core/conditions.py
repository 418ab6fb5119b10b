"""Conditions: a sympy relational plus a short gloss, decided exactly at a point.

A condition is evaluated three-valued (HOLDS / VIOLATED / UNDECIDED, the semantics of sympy's
``_value_check``). Parameter values are exact rationals (see :mod:`.notation`), so for the
algebraic conditions of the papers (ratios, floors, integer powers) the comparison is decided
exactly. Where a side is transcendental, both sides are compared with mpmath at 60 digits; where they
cannot be separated there, sympy decides (exactly, else at two precisions); if they still cannot be
separated the status is UNDECIDED and nothing is assumed.

**Compiled decisions.** A condition is decided by its compiled form
(:class:`~dptheory.core.compile.checks.ConditionCode`, built once per condition by
:func:`dptheory.core.compile.compile_condition`): each side as generated code on exact rationals
(when it is a rational function of the parameters with floors) and in mpmath (60 digits) and float64. That code
needs no sympy, so a theorem loaded from the statement cache (:mod:`dptheory.core.snapshot`) decides its
conditions without importing it; sympy is consulted only where the code cannot decide (a near-tie between
transcendental sides, a side undefined at the point, a condition that is not one relation).
:class:`CompiledCondition` is that sympy-free face of a condition.

The message of a violation is rendered from the relational itself (plus its gloss), so the check
and the message cannot drift apart.
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

import mpmath

from dptheory.core.citation import Citation
from dptheory.core.compile.checks import RELATIONS, CheckKernels, ConditionCode, decide, np_sides

if TYPE_CHECKING:
    import sympy as sp


@functools.lru_cache(maxsize=4096)
def _free_symbols(relation: sp.Basic) -> frozenset[sp.Symbol]:
    """A relation's free symbols, once per relation (a point search asks for them at every draw)."""
    return frozenset(relation.free_symbols)


class Status(StrEnum):
    HOLDS = "holds"
    VIOLATED = "violated"
    UNDECIDED = "undecided"


@dataclass(frozen=True, slots=True)
class Condition:
    """A condition of a theorem.

    Attributes:
        relation: a sympy relational (``eta < 2/(lam + beta)``) or ``Eq(K, floor(K))`` for
            integrality.
        gloss: what the condition means, in words.
        text: display text overriding ``str(relation)`` (used for integrality).
        latex: LaTeX overriding ``sympy.latex(relation)``.
        citation: where the condition is stated, when it differs from the theorem's citation.
        kind: ``"domain"`` (what kind of number a parameter is) or ``"hypothesis"`` (a condition of
            the theorem as printed) or ``"consistency"`` (implied by the theorem's assumptions, e.g.
            a lambda-strongly convex beta-smooth loss has lambda <= beta).
    """

    relation: sp.Basic
    gloss: str
    text: str | None = None
    latex: str | None = None
    citation: Citation | None = None
    kind: str = "hypothesis"

    @property
    def symbols(self) -> frozenset[sp.Symbol]:
        return _free_symbols(self.relation)

    @property
    def names(self) -> frozenset[str]:
        """The names of the parameters the condition reads."""
        return frozenset(s.name for s in _free_symbols(self.relation))

    def render(self) -> str:
        if self.text is not None:
            return self.text
        import sympy as sp

        return str(sp.sstr(self.relation))

    def render_latex(self, symbol_names: Mapping[sp.Symbol, str]) -> str:
        if self.latex is not None:
            return self.latex
        from dptheory.core.latex import latex

        return latex(self.relation, symbol_names)

    @property
    def code(self) -> ConditionCode:
        """The compiled decision (built on first use, shared by equal conditions)."""
        return _compiled(self)[0]

    def compiled(self) -> CompiledCondition:
        """This condition's sympy-free face (its compiled decision; sympy where that cannot decide)."""
        code, kernels = _compiled(self)
        return CompiledCondition(text=self.render(), gloss=self.gloss, kind=self.kind, citation=self.citation,
                                 latex=self.latex, code=code, symbolic=lambda: self, owner=self, _kernels=kernels)

    def evaluate(self, values: Mapping[sp.Symbol, numbers.Rational]) -> ConditionResult:
        """Decide the condition at a point given as exact values of its symbols.

        The compiled decision first (exact for rational sides; mpmath at 60 digits where a side is
        transcendental and the sides differ by more than 1e-40 relative: a few operations at 60 digits cannot
        be off by that much). Otherwise (near-ties between transcendental sides, a side undefined at the
        point) sympy decides exactly in rational arithmetic, else at two precisions. The compiled pass also
        avoids sympy's exact evaluation of powers such as ``m**(2q/(q-2))`` with rational ``q``, which can
        take minutes.
        """
        code, kernels = _compiled(self)
        fast = decide(code, kernels, {s.name: v for s, v in values.items()})
        if fast is not None:
            return ConditionResult(self, Status.HOLDS if fast[0] else Status.VIOLATED, fast[1], fast[2])
        return self.evaluate_symbolic(values)

    def evaluate_symbolic(self, values: Mapping[sp.Symbol, numbers.Rational]) -> ConditionResult:
        """sympy's decision (see :meth:`evaluate`), where the compiled one leaves off."""
        import sympy as sp

        from dptheory.core.compile.conditions import value_text

        rel = self.relation
        vals = {s: sp.Rational(int(v.numerator), int(v.denominator)) for s, v in values.items()}
        if isinstance(rel, sp.Rel):
            # a side undefined at this point (m**(2q/(q - 2)) at q = 2, a Max of it: sympy raises on its NaN) says
            # nothing here: UNDECIDED, and another condition (q > 2) is the one violated
            try:
                lhs = rel.lhs.xreplace(vals)
                rhs = rel.rhs.xreplace(vals)
            except (TypeError, ValueError, ZeroDivisionError):
                return ConditionResult(self, Status.UNDECIDED, "undefined", "undefined")
            if lhs.free_symbols or rhs.free_symbols or lhs.has(sp.nan, sp.zoo) or rhs.has(sp.nan, sp.zoo):
                return ConditionResult(self, Status.UNDECIDED, value_text(lhs), value_text(rhs))
            decided = rel.func(lhs, rhs)
            if decided is sp.true:
                return ConditionResult(self, Status.HOLDS, value_text(lhs), value_text(rhs))
            if decided is sp.false:
                return ConditionResult(self, Status.VIOLATED, value_text(lhs), value_text(rhs))
            return ConditionResult(self, _numeric_decide(rel.func, lhs, rhs), value_text(lhs), value_text(rhs))
        decided = rel.xreplace(vals)
        if decided is sp.true:
            return ConditionResult(self, Status.HOLDS, "true", "true")
        if decided is sp.false:
            return ConditionResult(self, Status.VIOLATED, "false", "true")
        return ConditionResult(self, Status.UNDECIDED, sp.sstr(decided), "true")


@functools.cache
def _compiled(cond: Condition) -> tuple[ConditionCode, CheckKernels]:
    """A condition's compiled code and kernels, once per distinct condition (equal conditions share them)."""
    from dptheory.core.compile.conditions import compile_condition

    code = compile_condition(cond.relation)
    return code, CheckKernels(code, vet=False)


@dataclass(frozen=True, eq=False)
class CompiledCondition:
    """A condition as the evaluator reads it, without sympy: what it says and its compiled decision.

    Built from a :class:`Condition` (:meth:`Condition.compiled`) or loaded from the statement cache. Where the
    compiled code cannot decide, ``symbolic()`` gives the sympy :class:`Condition` (for a cached theorem, by
    loading the theorem: rare, and sympy is imported then).

    Attributes:
        text: the condition as printed (``eta < 2/(beta + lam)``; ``K is an integer``).
        gloss, kind, citation, latex: as :class:`Condition`'s.
        code: the compiled decision.
        symbolic: the sympy condition, on demand.
        owner: what a result names as its condition (a theorem's own :class:`Condition`, so that results are the
            same whichever way they were decided); ``None``: this object.
    """

    text: str
    gloss: str
    kind: str
    citation: Citation | None
    latex: str | None
    code: ConditionCode
    symbolic: Callable[[], Condition] = field(repr=False)
    owner: Any = field(default=None, repr=False)
    _kernels: CheckKernels | None = field(default=None, repr=False)
    vet: bool = field(default=True, repr=False)

    def __post_init__(self) -> None:
        if self._kernels is None:
            object.__setattr__(self, "_kernels", CheckKernels(self.code, vet=self.vet))

    @property
    def names(self) -> frozenset[str]:
        return frozenset(self.code.names)

    @property
    def symbols(self) -> frozenset[sp.Symbol]:
        return self.symbolic().symbols

    @property
    def integrality(self) -> str | None:
        return self.code.integrality

    def render(self) -> str:
        return self.text

    def decide(self, values: Mapping[str, numbers.Rational]) -> ConditionResult:
        """The status at exact values by name (the compiled decision; sympy where it cannot decide)."""
        assert self._kernels is not None
        owner = self if self.owner is None else self.owner
        fast = decide(self.code, self._kernels, values)
        if fast is not None:
            return ConditionResult(owner, Status.HOLDS if fast[0] else Status.VIOLATED, fast[1], fast[2])
        cond = self.symbolic()
        res = cond.evaluate_symbolic({cond_sym: values[cond_sym.name] for cond_sym in cond.symbols})
        return ConditionResult(owner, res.status, res.lhs, res.rhs)

    def np_sides(self, arrays: Mapping[str, Any]) -> tuple[Any, Any] | None:
        """Both sides in float64 on arrays by name (``None`` for a condition that is not one relation)."""
        assert self._kernels is not None
        return np_sides(self.code, self._kernels, arrays)

    def holds_np(self, arrays: Mapping[str, Any]) -> Any:
        """Whether the condition holds, in float64 (approximate at ties) on arrays by name. A condition that is
        not one relation is decided point by point."""
        import numpy as np

        sides = self.np_sides(arrays)
        if sides is not None:
            with np.errstate(all="ignore"):
                return np.asarray(RELATIONS[self.code.relation](*sides), dtype=bool)
        from fractions import Fraction

        b = np.broadcast_arrays(*(np.asarray(arrays[n], dtype=np.float64) for n in self.code.names))
        out = np.ones(b[0].shape if b else (), dtype=bool)
        for idx in np.ndindex(out.shape):
            pt = {n: Fraction(float(a[idx])) for n, a in zip(self.code.names, b, strict=True)}
            out[idx] = self.decide(pt).status is not Status.VIOLATED
        return out


def _numeric_decide(func: type, lhs: sp.Expr, rhs: sp.Expr) -> Status:
    """Compare two closed numbers at two precisions; UNDECIDED if they cannot be separated."""
    import sympy as sp

    verdicts = []
    for dps in (60, 120):
        with mpmath.workdps(dps):
            a = mpmath.mpf(sp.N(lhs, dps))
            b = mpmath.mpf(sp.N(rhs, dps))
            scale = max(abs(a), abs(b), mpmath.mpf(1))
            if abs(a - b) <= scale * mpmath.mpf(10) ** (-(dps - 10)):
                return Status.UNDECIDED
            ok = bool(func(sp.Float(str(a), dps), sp.Float(str(b), dps)))
            verdicts.append(ok)
    if verdicts[0] != verdicts[1]:
        return Status.UNDECIDED
    return Status.HOLDS if verdicts[0] else Status.VIOLATED


class ConditionResult:
    """The status of one condition at one point, with both sides evaluated. ``condition`` is the
    :class:`Condition` (or, for a theorem loaded from the statement cache, its :class:`CompiledCondition`).

    ``lhs`` and ``rhs`` are the sides' texts. They may be given as functions that make them: the compiled decision
    (:func:`~dptheory.core.compile.checks.decide`) passes those, since most decisions are only asked whether they
    hold (every evaluation decides its theorem's domain) and the text (an exact fraction or 20 digits) is made
    on first use. Immutable; pickled with its texts made."""

    __slots__ = ("_lhs", "_rhs", "condition", "status")

    condition: Any
    status: Status

    def __init__(self, condition: Any, status: Status, lhs: str | Callable[[], str],
                 rhs: str | Callable[[], str]) -> None:
        for name, value in (("condition", condition), ("status", status), ("_lhs", lhs), ("_rhs", rhs)):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"ConditionResult is immutable (cannot set {name!r})")

    def _side(self, slot: str) -> str:
        v = getattr(self, slot)
        if not isinstance(v, str):
            v = str(v())
            object.__setattr__(self, slot, v)
        return v

    @property
    def lhs(self) -> str:
        return self._side("_lhs")

    @property
    def rhs(self) -> str:
        return self._side("_rhs")

    def _key(self) -> tuple[Any, ...]:
        return (self.condition, self.status, self.lhs, self.rhs)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ConditionResult) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"ConditionResult(condition={self.condition!r}, status={self.status!r}, lhs={self.lhs!r}, "
                f"rhs={self.rhs!r})")

    def __reduce__(self) -> tuple[Any, ...]:
        return (ConditionResult, self._key())

    @property
    def text(self) -> str:
        return str(self.condition.render())

    def to_dict(self) -> dict[str, str]:
        return {
            "text": self.text,
            "gloss": self.condition.gloss,
            "status": self.status.value,
            "lhs": self.lhs,
            "rhs": self.rhs,
        }


def integer_condition(symbol: sp.Symbol, latex_name: str, gloss: str | None = None) -> Condition:
    """Condition that a parameter is an integer (rendered as ``K is an integer``)."""
    import sympy as sp

    return Condition(
        sp.Eq(symbol, sp.floor(symbol, evaluate=False), evaluate=False),
        gloss or f"{symbol} must be a whole number",
        text=f"{symbol} is an integer",
        latex=rf"{latex_name} \in \mathbb{{Z}}",
        kind="domain",
    )

