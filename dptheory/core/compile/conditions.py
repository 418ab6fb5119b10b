"""Conditions compiled: each side of a relation as generated code
(a :class:`~dptheory.core.compile.checks.ConditionCode`).

A parameter against a rational constant (``alpha > 1``, every domain condition) and an integrality condition
(``K = floor(K)``) need no code: their code names the parameter and the constant. Any other side is compiled like a
bound (:func:`~dptheory.core.compile.compiled.compile_expr`: mpmath and float64 kernels), and, when it is a rational
function of the parameters with floors (sums, products, integer powers, ``floor``), also into code on exact
rationals (``fractions.Fraction``), which decides ties exactly and gives the side's exact value for messages. The
runtime that runs this code is :mod:`dptheory.core.compile.checks` (no sympy); a relation this module cannot compile
(not one relation, a construct the compiler refuses) gets ``relation=""`` and is decided by sympy alone
(:meth:`dptheory.core.conditions.Condition.evaluate`).
"""

from __future__ import annotations

from typing import Any

import mpmath
import sympy as sp

from dptheory.core.compile.base import CompileError
from dptheory.core.compile.checks import ConditionCode, SideCode
from dptheory.core.compile.compiled import compile_expr
from dptheory.core.notation import format_rational

__all__ = ["compile_condition", "exact_source", "value_text"]

_OPS = {sp.StrictLessThan: "<", sp.LessThan: "<=", sp.StrictGreaterThan: ">", sp.GreaterThan: ">=",
        sp.Equality: "==", sp.Unequality: "!="}


def _exact_expr(e: sp.Basic) -> str | None:
    """Python code of ``e`` on Fractions (``p_<name>`` for a parameter), or None if ``e`` is not a rational function
    of the parameters with floors (the sides that sympy would print exactly: see :func:`exact_source`)."""
    if e.is_Symbol:
        return f"p_{e.name}"
    if e.is_Integer:
        return f"_Q({int(e)})"
    if e.is_Rational:
        return f"_Q({int(e.p)}, {int(e.q)})"
    if isinstance(e, (sp.Add, sp.Mul)):
        parts = [_exact_expr(a) for a in e.args]
        if any(p is None for p in parts):
            return None
        return "(" + (" + " if isinstance(e, sp.Add) else " * ").join(p for p in parts if p is not None) + ")"
    if isinstance(e, sp.Pow) and e.exp.is_Integer:
        base = _exact_expr(e.base)
        return None if base is None else f"({base} ** {int(e.exp)})"
    if isinstance(e, sp.floor):
        arg = _exact_expr(e.args[0])
        return None if arg is None else f"_floor({arg})"
    return None


def exact_source(expr: sp.Basic, names: tuple[str, ...]) -> str | None:
    """The source of a kernel ``kernel(args) -> Fraction`` computing ``expr`` exactly from Fraction arguments (by
    name), or None when ``expr`` is not a rational function of its parameters with floors. These are exactly the
    sides whose value at a rational point sympy prints as a rational (integer powers, ``floor``, no other
    function), so a compiled condition prints the same text as sympy would."""
    body = _exact_expr(expr)
    if body is None:
        return None
    lines = ["def kernel(args):"]
    lines += [f"    p_{n} = args['{n}']" for n in names]
    lines.append(f"    return _Q({body})")
    return "\n".join(lines) + "\n"


def value_text(x: sp.Basic) -> str:
    """A side's value as printed: exact for a rational, 20 digits for another number, sympy's text otherwise (the
    text a condition's result gives; a side without parameters is printed once, when it is compiled)."""
    if isinstance(x, sp.Rational):
        return format_rational(x)
    if x.free_symbols:
        return str(sp.sstr(x))
    if x.is_number:
        try:
            return str(mpmath.nstr(mpmath.mpf(sp.N(x, 30)), 20))
        except (TypeError, ValueError):
            return str(sp.sstr(x))
    return str(sp.sstr(x))



def _side(expr: sp.Expr, syms: dict[str, sp.Symbol], ints: frozenset[str], names: tuple[str, ...]) -> SideCode:
    compiled = compile_expr(expr, syms, integers=ints)
    return SideCode(
        mp=compiled.source["mp"],
        np=compiled.source["np"],
        exact=exact_source(expr, names),
        shown=None if expr.free_symbols else value_text(expr),
    )


def compile_condition(relation: sp.Basic) -> ConditionCode:
    """The compiled form of a condition's relation (see the module docstring); never raises for a well-formed
    relation: what cannot be compiled is left to sympy."""
    rel: Any = relation
    ordered = sorted(rel.free_symbols, key=lambda s: s.name)
    names = tuple(s.name for s in ordered)
    ints = tuple(s.name for s in ordered if s.is_integer)
    op = _OPS.get(type(rel))
    if op is None:
        return ConditionCode("", names, ints)
    if op == "==" and rel.lhs.is_Symbol and isinstance(rel.rhs, sp.floor) and rel.rhs.args[0] == rel.lhs:
        return ConditionCode(op, names, ints, integrality=rel.lhs.name)
    if rel.lhs.is_Symbol and rel.rhs.is_Rational:
        return ConditionCode(op, names, ints, bound=f"{int(rel.rhs.p)}/{int(rel.rhs.q)}")
    syms = {s.name: s for s in ordered}
    try:
        lhs = _side(rel.lhs, syms, frozenset(ints), names)
        rhs = _side(rel.rhs, syms, frozenset(ints), names)
    except CompileError:
        return ConditionCode("", names, ints)
    return ConditionCode(op, names, ints, lhs, rhs)
