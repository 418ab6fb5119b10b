"""The runtime of compiled conditions (:class:`ConditionCode`): a condition's two sides as generated code, decided
at exact points without sympy.

A condition is compiled by :func:`dptheory.core.compile.conditions.compile_condition` (with sympy); the code it
produces (sources and names, plain data) is run here: a parameter against a rational constant, or an integrality
condition, needs no code (compared exactly here); else exactly on Fractions when both sides are rational functions
of the parameters with floors, else in mpmath at :data:`DECIDE_DPS` digits, where sides closer than
``10^-TIE_DIGITS`` relative are left undecided (``None``: the caller asks sympy,
:meth:`dptheory.core.conditions.Condition.evaluate`). :class:`dptheory.core.conditions.CompiledCondition` is the
condition object built on it.
"""

from __future__ import annotations

import functools
import math
import numbers
import operator
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath

from dptheory.core.compile.backends import execute
from dptheory.core.errors import DPTheoryError
from dptheory.core.notation import format_rational

__all__ = ["DECIDE_DPS", "RELATIONS", "TIE_DIGITS", "CheckKernels", "ConditionCode", "SideCode", "decide",
           "np_sides"]

#: the relations a compiled condition decides, by the operator its code applies
RELATIONS: dict[str, Callable[[Any, Any], Any]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}
#: digits of the numeric decision; sides closer than 10^-TIE_DIGITS relative are left to sympy
DECIDE_DPS = 60
TIE_DIGITS = 40


@dataclass(frozen=True, slots=True)
class SideCode:
    """One side of a compiled condition: generated sources (:mod:`dptheory.core.compile`) of its value in mpmath
    (``mp``) and float64 (``np``), on exact rationals (``exact``, when the side is a rational function of the
    parameters with floors: it then decides ties exactly and is printed exactly), and, for a side without
    parameters, its text (``shown``)."""

    mp: str
    np: str
    exact: str | None = None
    shown: str | None = None


@dataclass(frozen=True, slots=True)
class ConditionCode:
    """A condition compiled (sympy-free data: sources and names, written to the statement cache as JSON).

    Attributes:
        relation: the operator (a key of :data:`RELATIONS`), or ``""`` for a condition that is not one
            relation between two sides (sympy alone decides it).
        names: the parameters it reads, sorted.
        integers: those that are integers (their kernels read Python ints).
        lhs, rhs: the two sides as code (``None`` with ``relation == ""`` and for the two forms below, which need
            no code).
        integrality: the parameter ``x`` of an integrality condition ``x = floor(x)``, else ``None``.
        bound: for a condition ``x OP c`` between one parameter and a rational constant (``alpha > 1``, ``q <= 1``,
            every domain condition), ``c`` as ``"p/q"``, else ``None``.
    """

    relation: str
    names: tuple[str, ...]
    integers: tuple[str, ...] = ()
    lhs: SideCode | None = None
    rhs: SideCode | None = None
    integrality: str | None = None
    bound: str | None = None

    def __post_init__(self) -> None:
        if self.relation and self.relation not in RELATIONS:
            raise ValueError(f"unknown relation {self.relation!r}")
        if (self.integrality is not None or self.bound is not None) and len(self.names) != 1:
            raise ValueError("an integrality or bound condition reads one parameter")
        if self.bound is not None:
            Fraction(self.bound)  # a rational, or ValueError

    def to_dict(self) -> dict[str, Any]:
        side = (lambda s: None if s is None else {"mp": s.mp, "np": s.np, "exact": s.exact, "shown": s.shown})
        return {"relation": self.relation, "names": list(self.names), "integers": list(self.integers),
                "lhs": side(self.lhs), "rhs": side(self.rhs), "integrality": self.integrality, "bound": self.bound}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ConditionCode:
        side = (lambda s: None if s is None else SideCode(s["mp"], s["np"], s.get("exact"), s.get("shown")))
        text = (lambda v: None if v is None else str(v))
        return cls(str(d["relation"]), tuple(map(str, d["names"])), tuple(map(str, d["integers"])), side(d["lhs"]),
                   side(d["rhs"]), text(d.get("integrality")), text(d.get("bound")))


class CheckKernels:
    """The executed kernels of a :class:`ConditionCode`, built on first use (a lock: threads build them once);
    ``vet``: the sources were read back from disk and are vetted before they run."""

    def __init__(self, code: ConditionCode, vet: bool) -> None:
        self.code = code
        self.vet = vet
        self._built: dict[tuple[str, str], Callable[..., Any] | None] = {}
        self._lock = threading.Lock()

    def get(self, side: str, backend: str) -> Callable[..., Any] | None:
        k = (side, backend)
        if k not in self._built:
            with self._lock:
                if k not in self._built:
                    sc = self.code.lhs if side == "lhs" else self.code.rhs
                    src = None if sc is None else {"mp": sc.mp, "np": sc.np, "q": sc.exact}[backend]
                    if src is None:
                        self._built[k] = None
                    else:
                        self._built[k] = execute(backend, src, vet=self.vet)
        return self._built[k]


def decide(code: ConditionCode, kernels: CheckKernels, values: Mapping[str, numbers.Rational]
           ) -> tuple[bool, Callable[[], str], Callable[[], str]] | None:
    """The compiled decision of a condition at exact values of its parameters (by name): whether it holds and
    functions making the text of its two sides (most callers only ask whether it holds: the text is made when it
    is read, :class:`~dptheory.core.conditions.ConditionResult`); or ``None`` where only sympy can decide (see the
    module docstring)."""
    if code.integrality is not None or code.bound is not None:
        try:
            v = values[code.names[0]]
        except KeyError:
            return None
        x = v if type(v) is Fraction else Fraction(int(v.numerator), int(v.denominator))
        if code.bound is None:
            c = Fraction(math.floor(x))
            return bool(RELATIONS[code.relation](x, c)), lambda: format_rational(x), lambda: format_rational(c)
        c, c_text = _constant(code.bound)
        return bool(RELATIONS[code.relation](x, c)), lambda: format_rational(x), lambda: c_text
    if not code.relation or code.lhs is None or code.rhs is None:
        return None
    try:
        parts = {n: (int(values[n].numerator), int(values[n].denominator)) for n in code.names}
    except KeyError:
        return None
    exact_args = {n: Fraction(*parts[n]) for n in code.names}
    exact = {}
    for side in ("lhs", "rhs"):
        k = kernels.get(side, "q")
        if k is not None:
            try:
                exact[side] = k(exact_args)
            except (ZeroDivisionError, ValueError, OverflowError):
                return None
    op = RELATIONS[code.relation]

    def text(side: str, sc: SideCode, numeric: Any) -> Callable[[], str]:
        if sc.shown is not None:
            shown = sc.shown
            return lambda: shown
        if side in exact:
            value = exact[side]
            return lambda: format_rational(value)
        return lambda: str(mpmath.nstr(numeric, 20))

    if len(exact) == 2:
        return bool(op(exact["lhs"], exact["rhs"])), text("lhs", code.lhs, None), text("rhs", code.rhs, None)
    if code.relation in ("==", "!=") or any(parts[n][1] != 1 for n in code.integers):
        return None  # sympy decides: an equation between transcendental sides; an integer parameter at a fraction
    f_l, f_r = kernels.get("lhs", "mp"), kernels.get("rhs", "mp")
    assert f_l is not None and f_r is not None  # every side has an mp source
    with mpmath.workdps(DECIDE_DPS):
        args = {n: (p if n in code.integers else mpmath.mpf(p) / q) for n, (p, q) in parts.items()}
        try:
            a = mpmath.mpf(f_l(args))
            b = mpmath.mpf(f_r(args))
        except (ZeroDivisionError, ValueError, TypeError, OverflowError, DPTheoryError):
            return None
        if not (mpmath.isfinite(a) and mpmath.isfinite(b)):
            return None
        scale = max(abs(a), abs(b))
        if scale == 0 or abs(a - b) <= scale * mpmath.mpf(10) ** -TIE_DIGITS:
            return None
        return bool(op(a, b)), text("lhs", code.lhs, a), text("rhs", code.rhs, b)


@functools.lru_cache(maxsize=4096)
def _constant(text: str) -> tuple[Fraction, str]:
    """A bound condition's constant and its text, read once."""
    c = Fraction(text)
    return c, format_rational(c)


def np_sides(code: ConditionCode, kernels: CheckKernels, arrays: Mapping[str, Any]) -> tuple[Any, Any] | None:
    """The two sides in float64 on arrays (by name; broadcasting), or ``None`` for a condition without sides."""
    if code.integrality is not None or code.bound is not None:
        import numpy as np

        x = np.asarray(arrays[code.names[0]], dtype=np.float64)
        return x, (np.floor(x) if code.bound is None else float(Fraction(code.bound)))
    if not code.relation:
        return None
    f_l, f_r = kernels.get("lhs", "np"), kernels.get("rhs", "np")
    assert f_l is not None and f_r is not None
    args = {n: arrays[n] for n in code.names}
    return f_l(args), f_r(args)
