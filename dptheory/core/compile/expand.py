"""Stage 1 of the compiler: expand the paper's shorthands and close the finite sums sympy sums exactly."""

from __future__ import annotations

import sympy as sp

from dptheory.core.compile.base import CompileError
from dptheory.core.compile.functions import INTERNAL_MODULE

__all__ = ["expand_shorthands"]


def _is_shorthand(e: sp.Basic) -> bool:
    """An application of a paper-notation function: an sp.Function subclass from outside sympy that
    defines its own ``doit`` (e.g. ``Eps0`` of the Ye & Shokri module)."""
    if not isinstance(e, sp.Function):
        return False
    cls = type(e)
    mod = cls.__module__ or ""
    if isinstance(e, sp.core.function.AppliedUndef) or mod.startswith("sympy") or mod == INTERNAL_MODULE:
        return False
    return any("doit" in vars(c) for c in cls.__mro__ if not (c.__module__ or "sympy").startswith("sympy"))


_CLOSED_SUM_FUNCS = (sp.exp, sp.log, sp.Piecewise, sp.floor, sp.Min, sp.Max, sp.Abs)


def expand_shorthands(expr: sp.Expr, *, close_sums: bool = True) -> sp.Expr:
    """Expand the paper's shorthands (their ``doit``) and, if ``close_sums``, replace each finite sum
    that sympy sums in closed form (geometric sums) by that form; other sums stay as ``Sum``."""
    out = expr
    for _ in range(10):  # shorthands may expand into shorthands
        if not any(_is_shorthand(a) for a in out.atoms(sp.Function)):
            break
        out = out.replace(_is_shorthand, lambda e: e.doit())
    else:  # pragma: no cover - defensive
        raise CompileError("paper shorthands did not finish expanding after 10 rounds")
    if close_sums:

        def close(s: sp.Sum) -> sp.Expr:
            try:
                d = s.doit()
            except Exception:
                return s
            funcs = {type(f) for f in d.atoms(sp.Function)}
            if d.has(sp.Sum) or d.has(sp.Product) or any(not issubclass(f, _CLOSED_SUM_FUNCS) for f in funcs):
                return s
            return d

        # innermost sums first
        for s in sorted(out.atoms(sp.Sum), key=lambda x: sp.count_ops(x)):
            if s in out.atoms(sp.Sum):
                out = out.xreplace({s: close(s)})
    return out
