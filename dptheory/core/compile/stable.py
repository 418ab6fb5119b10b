"""Stage 2 of the compiler: rewrite for floating-point stability (exact identities only)."""

from __future__ import annotations

import sympy as sp

from dptheory.core.compile.functions import Pow1p, Pow1pm1, expm1, log1p

__all__ = ["stabilise"]


def _one_plus(b: sp.Expr) -> sp.Expr | None:
    """t if b is written 1 + t (an Add with the constant term 1), else None."""
    if isinstance(b, sp.Add):
        c, rest = b.as_coeff_Add()
        if c == 1 and rest != 0:
            return rest
    return None


def _stab_add(e: sp.Add) -> sp.Expr:
    const, rest = e.as_coeff_Add()
    if const == 0:
        return e
    terms = list(sp.Add.make_args(rest))
    for i, term in enumerate(terms):
        coeff, core = term.as_coeff_Mul()
        if coeff != -const:
            continue
        new: sp.Expr | None = None
        if isinstance(core, sp.exp):
            new = coeff * expm1(core.args[0])  # c - c e^y = -c expm1(y)
        elif isinstance(core, Pow1p):
            new = coeff * Pow1pm1(*core.args)
        elif isinstance(core, sp.Pow) and core.exp.is_Number and _one_plus(core.base) is not None:
            new = coeff * Pow1pm1(_one_plus(core.base), core.exp)
        if new is not None:
            return sp.Add(*terms[:i], new, *terms[i + 1 :])
    return e


def stabilise(expr: sp.Expr) -> sp.Expr:
    """Rewrite for floating-point stability (exact identities only; see the module docstring)."""

    def rec(e: sp.Basic) -> sp.Basic:
        if e.is_Atom or isinstance(e, sp.core.relational.Relational) or not e.args:
            return e
        if isinstance(e, sp.Sum):
            return sp.Sum(rec(e.function), *e.limits)
        args = [rec(a) for a in e.args]
        if isinstance(e, sp.Piecewise):
            e = sp.Piecewise(*[(a.expr, a.cond) for a in args], evaluate=False)
        else:
            e = e.func(*args)
        if isinstance(e, sp.log):
            t = _one_plus(e.args[0])
            if t is not None:
                return log1p(t)
            a = e.args[0]
            if isinstance(a, sp.Pow) and a.exp == -1 and a.base.is_positive:
                # log(1/x) = -log(x) for x > 0: 1/x rounds first, so log(1/beta) near beta = 1 lost half its digits
                return -sp.log(a.base)
        if isinstance(e, sp.Pow) and not e.exp.is_Number:
            t = _one_plus(e.base)
            if t is not None:
                return Pow1p(t, e.exp)
        if isinstance(e, sp.Add):
            return _stab_add(e)
        return e

    return rec(expr)
