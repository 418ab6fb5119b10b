"""The compiler's internal sympy functions: stable forms the stabiliser writes (:mod:`.stable`) and the
emitter turns into each backend's accurate call (:mod:`.emit`)."""

from __future__ import annotations

import sympy as sp

__all__ = ["INTERNAL_MODULE", "Pow1p", "Pow1pm1", "expm1", "log1p"]

#: the module that defines the internal functions (they are not paper shorthands, see :mod:`.expand`)
INTERNAL_MODULE = __name__


class log1p(sp.Function):
    """log(1 + t), kept apart from log so the backends call their accurate log1p."""

    nargs = 1

    @classmethod
    def eval(cls, t: sp.Expr) -> sp.Expr | None:
        return sp.S.Zero if t == 0 else None


class expm1(sp.Function):
    """exp(y) - 1."""

    nargs = 1

    @classmethod
    def eval(cls, y: sp.Expr) -> sp.Expr | None:
        return sp.S.Zero if y == 0 else None


class Pow1p(sp.Function):
    """(1 + t)^E evaluated as exp(E log1p(t)) where 1 + t > 0 (else as the power itself)."""

    nargs = 2


class Pow1pm1(sp.Function):
    """(1 + t)^E - 1 evaluated as expm1(E log1p(t)) where 1 + t > 0 (else as written)."""

    nargs = 2
