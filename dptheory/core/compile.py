"""The statement is the kernel: compile a theorem's sympy bound into mpmath, numpy and arb code.

A theorem's ``bound`` (a sympy expression in the paper's notation) is compiled once into three
backends that share one pipeline (see ``docs/compiler.md``):

1. **expand** the paper's shorthands (``sp.Function`` subclasses defined outside sympy that define
   ``doit``, e.g. Ye & Shokri's ``eps_0^j``, arXiv 2203.05363 Eq. 99) and close finite sums that sympy
   sums exactly (geometric sums, e.g. Thm D.6 and Lemma D.3 of the same paper);
2. **stabilise** for floating point: ``log(1 + t) -> log1p(t)``, ``c - c exp(y) -> -c expm1(y)``,
   ``(1 + t)^E -> exp(E log1p(t))`` for symbolic ``E`` and ``c - c (1 + t)^E -> -c expm1(E log1p(t))``
   (the ``1 - r^m`` of Thm 3.3 / 4.2 with ``r = (1 - eta lam)^2`` near 1), and the logarithm of a sum
   (or mean) of exponentials as a log-sum-exp (Thm 4.2's second term);
3. **emit** straight-line Python for each backend, with common subexpressions evaluated once
   (structural CSE by hash-consing) and loop-invariant parts of a summand hoisted out of the loop.

Backends:

* ``mp``: mpmath at the caller's precision (``mpmath.workdps``); integer parameters are Python ints and
  every integer-valued subexpression (``floor(n/b)``, ``(K-1)(N-h)``) is computed exactly.
* ``np``: float64, vectorised and broadcasting; finite sums are vectorised over chunks of the summation
  index (bounded memory); ``1 - a b`` inside ``log1p`` uses Dekker's exact product near ``a b = 1``.
* ``arb``: python-flint balls at the current ``flint.ctx.prec``; every operation is rigorous, a branch
  or floor that a ball cannot decide raises :class:`Undecided`, never picks a side. A nan ball (python-flint's
  answer where it has no enclosure, e.g. ``log`` of a ball reaching 0) or a ball of infinite radius decides
  no comparison. Integer powers go through ``_ipow``: python-flint 0.9 returns nan for ``ball ** n`` when the
  ball's midpoint is 0 (``arb(0, 1)**2``, flint issue 426), so there the power is taken from the ball's ends.

Each backend is generated and executed on first use (:class:`Compiled`): a float64 sweep builds only the
float64 kernel, and only the arb backend imports python-flint (:func:`require_flint`).

:func:`enclose` runs the arb backend with exact rational inputs under a Ziv loop (raise precision
until the ball is narrow enough) and returns a certified enclosure rounded outward.
:func:`agree_mp` is the non-rigorous alternative (two mpmath precisions agree) and says so.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Protocol

import mpmath
import numpy as np
import sympy as sp

from dptheory.core.errors import DPTheoryError, MissingOptionalDependency, NumericalFailure

__all__ = [
    "BACKENDS",
    "CompileError",
    "Compiled",
    "Enclosure",
    "MissingBackend",
    "Undecided",
    "agree_mp",
    "compile_expr",
    "compile_theorem",
    "enclose",
    "expand_shorthands",
    "informative_ball",
    "require_flint",
    "stabilise",
]


class CompileError(DPTheoryError):
    """The expression uses something the compiler does not handle (the message says what)."""


class MissingBackend(NumericalFailure, MissingOptionalDependency):
    """The library of a backend cannot be imported: the arb backend (certified values, ``--certify``, the
    branch and bound of ``check``) needs python-flint. The message names the package to install
    (:func:`dptheory.core.extras.install_hint`). A :class:`NumericalFailure`, so that where a certified value
    is optional (``Theorem.evaluate`` without ``certify``) the mpmath kernel is used instead, as for any point
    without a certified enclosure."""


def require_flint() -> Any:
    """The ``flint`` module (python-flint), imported on first use; the float64 and mpmath backends never
    import it.

    Raises:
        MissingBackend: python-flint cannot be imported (one line naming what to install).
    """
    try:
        import flint
    except ImportError as exc:
        from dptheory.core.extras import install_hint

        raise MissingBackend(
            f"certified (arb ball) evaluation needs python-flint, which cannot be imported here ({exc}): "
            f"{install_hint('flint')}; values without --certify do not need it"
        ) from exc
    return flint


def informative_ball(x: Any) -> bool:
    """Whether an arb ball says anything about its value: finite, or an exact infinity; not a nan ball
    (python-flint's "no enclosure", e.g. ``log`` of a ball reaching 0) and not one of infinite radius. The one
    test behind "nan never decides": the compiled comparisons, the branch and bound's margin decisions
    (:mod:`dptheory.verify.certify`) and the search's side enclosures (:mod:`dptheory.verify.search`)."""
    return bool(not x.is_nan() and (x.is_finite() or x.is_exact()))


MAX_SUM_TERMS = 10**7  # a compiled sum is evaluated term by term: more terms would not finish


def _check_sum_terms(lo: Any, hi: Any) -> None:
    """Refuse a sum of more than MAX_SUM_TERMS terms at once (a Thm 4.2 mean over floor(n/b) = 1e20 batches
    would otherwise run for ever) with a one-line error."""
    n = int(hi) - int(lo) + 1
    if n > MAX_SUM_TERMS:
        raise DPTheoryError(
            f"a sum in the statement has {n} terms here, which exceeds the {MAX_SUM_TERMS} terms the compiled "
            "kernels evaluate one by one; use smaller parameters"
        )


class Undecided(NumericalFailure):
    """A branch condition or a floor could not be decided on a ball (the ball straddles the point)."""


# ----------------------------------------------------------------------------- internal functions


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


# ----------------------------------------------------------------------------- stage 1: expand


def _is_shorthand(e: sp.Basic) -> bool:
    """An application of a paper-notation function: an sp.Function subclass from outside sympy that
    defines its own ``doit`` (e.g. ``Eps0`` of the Ye & Shokri module)."""
    if not isinstance(e, sp.Function):
        return False
    cls = type(e)
    mod = cls.__module__ or ""
    if isinstance(e, sp.core.function.AppliedUndef) or mod.startswith("sympy") or mod == __name__:
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


# ----------------------------------------------------------------------------- stage 2: stabilise


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
        if isinstance(e, sp.Pow) and not e.exp.is_Number:
            t = _one_plus(e.base)
            if t is not None:
                return Pow1p(t, e.exp)
        if isinstance(e, sp.Add):
            return _stab_add(e)
        return e

    return rec(expr)


# ----------------------------------------------------------------------------- stage 3: emit


@dataclass
class _If:
    cond: str
    then: _Scope
    other: _Scope


@dataclass
class _Block:
    header: str
    body: _Scope
    after: list[str] = field(default_factory=list)


@dataclass(eq=False)
class _Scope:
    parent: _Scope | None
    kind: str  # root | loop | branch
    var: sp.Symbol | None = None
    body: list[Any] = field(default_factory=list)
    memo: dict[Any, tuple[str, int]] = field(default_factory=dict)

    @property
    def depth(self) -> int:
        d, s = 0, self
        while True:
            d += s.kind == "loop"
            if s.parent is None:
                return d
            s = s.parent

    def lines(self, indent: int) -> list[str]:
        pad = "    " * indent
        out: list[str] = []
        for item in self.body:
            if isinstance(item, str):
                out.append(pad + item)
            elif isinstance(item, _If):
                out.append(f"{pad}if {item.cond}:")
                out.extend(item.then.lines(indent + 1) or [pad + "    pass"])
                out.append(f"{pad}else:")
                out.extend(item.other.lines(indent + 1) or [pad + "    pass"])
            else:
                out.append(pad + item.header)
                out.extend(item.body.lines(indent + 1) or [pad + "    pass"])
                out.extend(pad + a for a in item.after)
        return out


_UNARY = {
    # sympy class: (mp, arb, np)
    sp.exp: ("_m.exp({})", "({}).exp()", "_np.exp({})"),
    sp.log: ("_m.log({})", "({}).log()", "_np.log({})"),
    log1p: ("_m.log1p({})", "({}).log1p()", "_np.log1p({})"),
    expm1: ("_m.expm1({})", "({}).expm1()", "_np.expm1({})"),
    sp.Abs: ("abs({})", "abs({})", "_np.abs({})"),
    sp.erf: ("_m.erf({})", "({}).erf()", "_sps.erf({})"),
    sp.erfc: ("_m.erfc({})", "({}).erfc()", "_sps.erfc({})"),
    sp.loggamma: ("_m.loggamma({})", "({}).lgamma()", "_sps.gammaln({})"),
    sp.gamma: ("_m.gamma({})", "({}).gamma()", "_sps.gamma({})"),
    sp.floor: ("_m.floor({})", "_afloor({})", "_np.floor({})"),
    sp.ceiling: ("_m.ceil({})", "_aceil({})", "_np.ceil({})"),
}
_REL = {
    sp.StrictLessThan: ("<", "_lt"),
    sp.LessThan: ("<=", "_le"),
    sp.StrictGreaterThan: (">", "_gt"),
    sp.GreaterThan: (">=", "_ge"),
    sp.Equality: ("==", "_eq"),
    sp.Unequality: ("!=", "_ne"),
}


class _Emitter:
    def __init__(self, backend: str, params: tuple[str, ...], symbols: Mapping[str, sp.Symbol],
                 integers: frozenset[str]) -> None:
        self.backend = backend
        self.params = params
        self.sym_name = {s: n for n, s in symbols.items()}
        self.int_syms: set[sp.Symbol] = {symbols[n] for n in integers}
        self.loop_vars: dict[sp.Symbol, str] = {}
        self.root = _Scope(None, "root")
        self.n = 0
        self.uses_sum = False
        self.consts: list[str] = []

    # ---------------------------------------------------------------- helpers
    def tmp(self, prefix: str = "t") -> str:
        self.n += 1
        return f"_{prefix}{self.n}"

    def is_int(self, e: sp.Basic) -> bool:
        if e.is_Integer:
            return True
        if isinstance(e, sp.Symbol):
            return e in self.int_syms or e in self.loop_vars
        if isinstance(e, sp.floor):
            return self.ratio(e.args[0]) is not None
        if isinstance(e, (sp.Add, sp.Mul)):
            return all(self.is_int(a) for a in e.args)
        if isinstance(e, sp.Pow):
            return self.is_int(e.base) and e.exp.is_Integer and e.exp >= 0
        return False

    def ratio(self, e: sp.Expr) -> tuple[sp.Expr, sp.Expr] | None:
        num, den = sp.fraction(sp.together(e))
        if self.is_int(num) and self.is_int(den):
            return num, den
        return None

    def target(self, e: sp.Basic, cur: _Scope) -> _Scope:
        fs = e.free_symbols
        s = cur
        while s.parent is not None:
            if s.kind == "branch" or (s.kind == "loop" and s.var in fs):
                break
            s = s.parent
        return s

    def ref(self, name: str, depth: int, cur: _Scope) -> str:
        """A name defined at loop depth ``depth``, used at ``cur`` (numpy: add trailing axes)."""
        if self.backend != "np" or cur.depth == depth or _is_literal(name):
            return name
        return f"_np.asarray({name})[(...,) + (None,) * {cur.depth - depth}]"

    def lookup(self, key: Any, cur: _Scope) -> str | None:
        s: _Scope | None = cur
        while s is not None:
            if key in s.memo:
                name, depth = s.memo[key]
                return self.ref(name, depth, cur)
            s = s.parent
        return None

    # ---------------------------------------------------------------- entry
    def emit(self, e: sp.Basic, cur: _Scope, ctx: str = "real") -> str:
        """Code for ``e`` valid in scope ``cur``; ``ctx`` is "real" or "int" (exact integer)."""
        if ctx == "int" and not self.is_int(e):
            raise CompileError(f"{e} is used where an integer is needed but is not integer-valued")
        if ctx == "real" and self.is_int(e) and self.backend != "np":
            if e.is_Integer:
                return self.const_int(int(e), cur)
            key = ("R", e)
            got = self.lookup(key, cur)
            if got is not None:
                return got
            tgt = self.target(e, cur)
            inner = self.emit(e, tgt, "int")
            return self.define(key, f"_R({inner})", tgt, cur)
        key = (ctx, e)
        got = self.lookup(key, cur)
        if got is not None:
            return got
        if isinstance(e, sp.Symbol):
            return self.symbol(e, cur, ctx)
        tgt = self.target(e, cur)
        code = self.code(e, tgt, ctx)
        return self.define(key, code, tgt, cur)

    def define(self, key: Any, code: str, tgt: _Scope, cur: _Scope) -> str:
        if code.isidentifier() or _is_literal(code):
            tgt.memo[key] = (code, tgt.depth)
            return self.ref(code, tgt.depth, cur)
        name = self.tmp()
        tgt.body.append(f"{name} = {code}")
        tgt.memo[key] = (name, tgt.depth)
        return self.ref(name, tgt.depth, cur)

    def const_int(self, k: int, cur: _Scope) -> str:
        if self.backend == "np":
            return repr(float(k))
        key = ("c", k)
        got = self.lookup(key, self.root)
        if got is None:
            # constants go to the top of the function: a later branch may need one after an `if`
            # block has already been placed in the root scope
            got = self.tmp("c")
            self.consts.append(f"{got} = _R({k})")
            self.root.memo[key] = (got, 0)
        return got

    def symbol(self, s: sp.Symbol, cur: _Scope, ctx: str) -> str:
        if s in self.loop_vars:
            return self.lookup(("int" if self.backend != "np" else "real", s), cur) or self.loop_vars[s]
        name = self.sym_name.get(s)
        if name is None:
            raise CompileError(f"symbol {s} is not a parameter (parameters: {', '.join(self.params)})")
        key = (ctx, s)
        got = self.lookup(key, cur)
        if got is not None:
            return got
        raise CompileError(f"internal: parameter {name} was not bound")  # pragma: no cover

    # ---------------------------------------------------------------- nodes
    def code(self, e: sp.Basic, sc: _Scope, ctx: str) -> str:
        b = self.backend
        if ctx == "int":
            return self.int_code(e, sc)
        if e.is_Number:
            return self.number(e)
        if isinstance(e, sp.NumberSymbol):
            if e is sp.pi:
                return {"mp": "(+_m.pi)", "arb": "_arb.pi()", "np": repr(math.pi)}[b]
            if e is sp.E:
                return {"mp": "_m.e()", "arb": "_arb.const_e()", "np": repr(math.e)}[b]
            if b == "np":
                return repr(float(e))
            raise CompileError(f"constant {e} is not supported")
        if isinstance(e, sp.Add):
            return self.add(e, sc)
        if isinstance(e, sp.Mul):
            return self.mul(e, sc)
        if isinstance(e, sp.Pow):
            return self.pow(e, sc)
        if isinstance(e, sp.log):
            special = self.log_of_sum(e.args[0], sc)
            if special is not None:
                return special
        if isinstance(e, log1p) and b == "np":
            t = e.args[0]
            coeff, core = t.as_coeff_Mul()
            factors = sp.Mul.make_args(core)
            if coeff == -1 and len(factors) == 2:
                x, y = (self.emit(f, sc) for f in factors)
                return f"_log1p_negprod({x}, {y})"
        if isinstance(e, sp.floor):
            rt = self.ratio(e.args[0])
            if rt is not None:  # pragma: no cover - integer-valued, handled by emit's int path
                return self.int_code(e, sc)
        for cls, forms in _UNARY.items():
            if isinstance(e, cls):
                a = self.emit(e.args[0], sc)
                return forms[("mp", "arb", "np").index(b)].format(a)
        if isinstance(e, (sp.Min, sp.Max)):
            args = [self.emit(a, sc) for a in e.args]
            fn = {"mp": ("min", "max"), "arb": ("_amin", "_amax"), "np": ("_nmin", "_nmax")}[b][
                isinstance(e, sp.Max)
            ]
            return f"{fn}({', '.join(args)})"
        if isinstance(e, (Pow1p, Pow1pm1)):
            t, E = e.args
            tc = self.emit(t, sc)
            lc = self.emit(log1p(t), sc)
            ec = self.emit(E, sc)
            fn = "_pow1p" if isinstance(e, Pow1p) else "_pow1pm1"
            return f"{fn}({tc}, {lc}, {ec})"
        if isinstance(e, sp.Piecewise):
            return self.piecewise(e, sc)
        if isinstance(e, sp.Sum):
            return self.sum(e, sc)
        if isinstance(e, sp.binomial):
            n_, k_ = e.args
            if self.is_int(k_) and b != "np":
                kc = self.emit(k_, sc, "int")
                if self.is_int(n_):
                    # at the working precision (a ball for arb); the exact big integer costs O(n) digits per term
                    fn = "_acomb" if b == "arb" else "_m.binomial"
                    return f"{fn}({self.emit(n_, sc, 'int')}, {kc})"
                nc = self.emit(n_, sc)
                return f"_m.binomial({nc}, {kc})" if b == "mp" else f"_abin({nc}, {kc})"
            nc, kc = self.emit(n_, sc), self.emit(k_, sc)
            return {"mp": "_m.binomial({}, {})", "arb": "_abinr({}, {})", "np": "_sps.binom({}, {})"}[b].format(nc, kc)
        raise CompileError(f"cannot compile {type(e).__name__}: {e}")

    def number(self, e: sp.Number) -> str:
        b = self.backend
        if e in (sp.oo, -sp.oo):
            sign = "" if e is sp.oo else "-"
            return {"mp": f"({sign}_m.inf)", "arb": f"({sign}_arb.pos_inf())", "np": f"({sign}_np.inf)"}[b]
        if e is sp.nan or e is sp.zoo:
            raise CompileError(f"the expression contains {e} (undefined); state the value explicitly (Piecewise)")
        if e.is_Integer:
            return {"mp": f"_R({int(e)})", "arb": f"_R({int(e)})", "np": repr(float(e))}[b]
        if e.is_Rational:
            p, q = int(e.p), int(e.q)
            return {"mp": f"(_R({p}) / {q})", "arb": f"(_R({p}) / {q})", "np": repr(p / q)}[b]
        if isinstance(e, sp.Float):
            # a Float is taken as the binary number it holds
            m = mpmath.mpf(e._mpf_)
            sign, man, exp_, _bc = m._mpf_
            man = -int(man) if sign else int(man)
            return {"mp": f"_m.ldexp(_R({man}), {exp_})", "arb": f"(_R({man}) * _R(2) ** {exp_})",
                    "np": repr(float(m))}[b]
        raise CompileError(f"number {e} is not supported")

    def int_code(self, e: sp.Basic, sc: _Scope) -> str:
        """Exact integer arithmetic (Python ints in mp/arb, float64 in np)."""
        b = self.backend
        if e.is_Integer:
            return str(int(e)) if b != "np" else repr(float(e))
        if isinstance(e, sp.Symbol):
            return self.symbol(e, sc, "int")
        if isinstance(e, sp.Add):
            parts = [self.emit(a, sc, "int") for a in e.args]
            return "(" + " + ".join(parts) + ")"
        if isinstance(e, sp.Mul):
            parts = [self.emit(a, sc, "int") for a in e.args]
            return "(" + " * ".join(parts) + ")"
        if isinstance(e, sp.Pow):
            return f"({self.emit(e.base, sc, 'int')} ** {int(e.exp)})"
        if isinstance(e, sp.floor):
            rat = self.ratio(e.args[0])
            if rat is None:  # pragma: no cover - the integer check that routed e here found a ratio of integers
                raise CompileError(f"internal: floor({e.args[0]}) is not a ratio of integer expressions")
            num, den = rat
            nc, dc = self.emit(num, sc, "int"), self.emit(den, sc, "int")
            return f"_fdiv({nc}, {dc})"
        raise CompileError(f"integer expression {e} is not supported")  # pragma: no cover

    def add(self, e: sp.Add, sc: _Scope) -> str:
        pos: list[str] = []
        neg: list[str] = []
        for a in e.args:
            coeff, _core = a.as_coeff_Mul()
            if coeff.is_negative:
                neg.append(self.emit(-a, sc))
            else:
                pos.append(self.emit(a, sc))
        if not pos:
            return "-(" + " + ".join(neg) + ")"
        out = " + ".join(pos)
        if neg:
            out += " - " + " - ".join(neg)
        return f"({out})"

    def mul(self, e: sp.Mul, sc: _Scope) -> str:
        coeff, core = e.as_coeff_Mul()
        num: list[sp.Expr] = []
        den: list[sp.Expr] = []
        for f in sp.Mul.make_args(core):
            if isinstance(f, sp.Pow) and f.exp.is_Number and f.exp < 0:
                den.append(f.base if f.exp == -1 else sp.Pow(f.base, -f.exp))
            else:
                num.append(f)
        inum = [f for f in num if self.is_int(f)]
        rnum = [f for f in num if not self.is_int(f)]
        iden = [f for f in den if self.is_int(f)]
        rden = [f for f in den if not self.is_int(f)]
        b = self.backend
        parts: list[str] = []
        if inum and b != "np":
            parts.append(self.emit(sp.Mul(*inum), sc))
        else:
            rnum = inum + rnum
        parts += [self.emit(f, sc) for f in rnum]
        dparts: list[str] = []
        if iden and b != "np":
            dparts.append(self.emit(sp.Mul(*iden), sc))
        else:
            rden = iden + rden
        dparts += [self.emit(f, sc) for f in rden]
        p, q = (int(coeff.p), int(coeff.q)) if coeff.is_Rational else (None, None)
        if p is None:
            parts.insert(0, self.number(coeff))
            p = q = 1
        if not parts:
            parts = [self.number(sp.Integer(p))]
            p = 1
        out = " * ".join(parts)
        if b == "np":
            if p != 1 or q != 1:
                out = f"{out} * {float(sp.Rational(p, q))!r}" if (p, q) != (-1, 1) else f"-({out})"
        else:
            if p != 1:
                out = f"{out} * {p}" if p != -1 else f"-({out})"
            if q != 1:
                dparts.append(str(q))
        if dparts:
            out = f"({out}) / ({' * '.join(dparts)})"
        return f"({out})"

    def pow(self, e: sp.Pow, sc: _Scope) -> str:
        base, ex = e.base, e.exp
        b = self.backend
        if ex == sp.Rational(1, 2):
            return {"mp": "_m.sqrt({})", "arb": "_R({}).sqrt()", "np": "_np.sqrt({})"}[b].format(self.emit(base, sc))
        if ex == sp.Rational(-1, 2):
            return {"mp": "(1 / _m.sqrt({}))", "arb": "_R({}).rsqrt()", "np": "(1.0 / _np.sqrt({}))"}[b].format(
                self.emit(base, sc)
            )
        if ex.is_Integer:
            bc = self.emit(base, sc)
            if b == "arb":
                # not ``ball ** n``: python-flint 0.9 returns nan for a ball with midpoint 0 (flint issue 426)
                return f"_ipow({bc}, {int(ex)})"
            if ex < 0:
                return f"(1 / {bc} ** {-int(ex)})" if b != "np" else f"(1.0 / {bc} ** {float(-ex)!r})"
            return f"({bc} ** {int(ex)})" if b != "np" else f"({bc} ** {float(ex)!r})"
        if isinstance(base, sp.exp) or base is sp.E:
            arg = base.args[0] if isinstance(base, sp.exp) else sp.S.One
            return self.code(sp.exp(arg * ex, evaluate=False), sc, "real")
        bc = self.emit(base, sc)
        if self.is_int(ex) and b != "np":
            ic = self.emit(ex, sc, "int")
            return f"_apow({bc}, {ic})" if b == "arb" else f"({bc} ** {ic})"
        if b == "arb":
            return f"_apow({bc}, {self.emit(ex, sc)})"
        return f"({bc} ** {self.emit(ex, sc)})"

    # ---------------------------------------------------------------- conditions
    def cond(self, c: sp.Basic, sc: _Scope) -> str:
        b = self.backend
        if c is sp.true:
            return "True"
        if c is sp.false:
            return "False"
        if isinstance(c, sp.core.relational.Relational):
            op, fn = _REL[type(c)]
            if self.is_int(c.lhs) and self.is_int(c.rhs) and b != "np":
                lc, rc = self.emit(c.lhs, sc, "int"), self.emit(c.rhs, sc, "int")
                if b == "arb":
                    return f"{fn}({lc}, {rc})"
                return f"({lc} {op} {rc})"
            lc, rc = self.emit(c.lhs, sc), self.emit(c.rhs, sc)
            return f"{fn}({lc}, {rc})" if b == "arb" else f"({lc} {op} {rc})"
        if isinstance(c, sp.And):
            parts = [self.cond(a, sc) for a in c.args]
            if b == "np":
                return "_np.logical_and.reduce([" + ", ".join(parts) + "])"
            return "(" + " and ".join(parts) + ")"
        if isinstance(c, sp.Or):
            parts = [self.cond(a, sc) for a in c.args]
            if b == "np":
                return "_np.logical_or.reduce([" + ", ".join(parts) + "])"
            return "(" + " or ".join(parts) + ")"
        if isinstance(c, sp.Not):
            inner = self.cond(c.args[0], sc)
            return f"_np.logical_not({inner})" if b == "np" else f"(not {inner})"
        raise CompileError(f"condition {c} is not supported")

    def piecewise(self, e: sp.Piecewise, sc: _Scope) -> str:
        if self.backend == "np":
            out = "_np.nan"
            for pair in reversed(e.args):
                v = self.emit(pair.expr, sc)
                c = self.cond(pair.cond, sc)
                out = v if c == "True" else f"_np.where({c}, {v}, {out})"
            return out
        name = self.tmp("pw")
        scope = sc
        for i, pair in enumerate(e.args):
            c = self.cond(pair.cond, scope)
            then = _Scope(scope, "branch")
            v = self.emit(pair.expr, then)
            then.body.append(f"{name} = {v}")
            other = _Scope(scope, "branch")
            if c == "True":
                scope.body.extend(then.body)  # unconditional: no if
                break
            scope.body.append(_If(c, then, other))
            scope = other
            if i == len(e.args) - 1:
                other.body.append("raise _NF('no branch of the piecewise expression applies')")
        return name

    # ---------------------------------------------------------------- sums
    def loop(self, e: sp.Sum, sc: _Scope) -> tuple[sp.Symbol, _Scope, str, str, str]:
        if len(e.limits) != 1:
            inner = sp.Sum(e.function, *e.limits[:-1])
            e = sp.Sum(inner, e.limits[-1])
        var, lo, hi = e.limits[0]
        if not (self.is_int(lo) and self.is_int(hi)):
            raise CompileError(f"sum limits {lo}, {hi} must be integer expressions of integer parameters")
        self.uses_sum = True
        loc, hic = self.emit(lo, sc, "int"), self.emit(hi, sc, "int")
        body = _Scope(sc, "loop", var)
        jname = self.tmp("j")
        self.loop_vars[var] = jname
        body.memo[("int" if self.backend != "np" else "real", var)] = (jname, body.depth)
        return var, body, loc, hic, jname

    def mask(self, j: str, loc: str, hic: str, sc: _Scope, body: _Scope) -> str:
        """numpy: which entries of the index chunk lie in each point's summation range."""
        return f"_mask = ({j} >= {self.ref(loc, sc.depth, body)}) & ({j} <= {self.ref(hic, sc.depth, body)})"

    def sum(self, e: sp.Sum, sc: _Scope) -> str:
        b = self.backend
        var, body, loc, hic, j = self.loop(e, sc)
        f = e.function if len(e.limits) == 1 else sp.Sum(e.function, *e.limits[:-1])
        v = self.emit(f, body)
        acc = self.tmp("acc")
        if b == "mp":
            sc.body.append(f"{acc} = []")
            body.body.append(f"{acc}.append({v})")
            sc.body.append(_Block(f"for {j} in _mrange({loc}, {hic}):", body))
            self.loop_vars.pop(var)
            return f"_m.fsum({acc})"
        if b == "arb":
            sc.body.append(f"{acc} = _R(0)")
            body.body.append(f"{acc} += {v}")
            sc.body.append(_Block(f"for {j} in _irange({loc}, {hic}):", body))
            self.loop_vars.pop(var)
            return acc
        # numpy: chunks of the index along a new trailing axis, masked to each point's range
        sc.body.append(f"{acc} = 0.0")
        body.body.insert(0, self.mask(j, loc, hic, sc, body))
        body.body.append(f"{acc} = {acc} + _np.sum(_np.where(_mask, {v}, 0.0), axis=-1)")
        sc.body.append(_Block(f"for {j} in _nchunks({loc}, {hic}, _SHAPE):", body))
        self.loop_vars.pop(var)
        return acc

    def log_of_sum(self, a: sp.Expr, sc: _Scope) -> str | None:
        """log(c * Sum(exp(g))) as a log-sum-exp; the mean (c = 1/count) as m + log1p(mean expm1(g - m))."""
        factors = sp.Mul.make_args(a)
        sums = [f for f in factors if isinstance(f, sp.Sum)]
        if len(sums) != 1 or len(sums[0].limits) != 1:
            return None
        s = sums[0]
        c = sp.Mul(*[f for f in factors if f is not s])
        g = _exp_arg(s.function)
        if g is None:
            return None
        _, lo, hi = s.limits[0]
        mean = sp.simplify(c * (hi - lo + 1) - 1) == 0
        b = self.backend
        _var, body, loc, hic, j = self.loop(sp.Sum(g, s.limits[0]), sc)
        gc = self.emit(g, body)
        acc = self.tmp("acc")
        cnt = f"({hic} - {loc} + 1)"
        if b in ("mp", "arb"):
            self.loop_vars.pop(_var)
            fn = "expm1" if mean else "exp"
            if b == "mp":
                sc.body.append(f"{acc} = []")
                body.body.append(f"{acc}.append(_m.{fn}({gc}))")
                sc.body.append(_Block(f"for {j} in _mrange({loc}, {hic}):", body))
                total = f"_m.fsum({acc})"
                if mean:
                    return f"_m.log1p({total} / {cnt})"
                return f"(_m.log({self.emit(c, sc)}) + _m.log({total}))"
            sc.body.append(f"{acc} = _R(0)")
            body.body.append(f"{acc} += ({gc}).{fn}()")
            sc.body.append(_Block(f"for {j} in _irange({loc}, {hic}):", body))
            if mean:
                return f"({acc} / _R({cnt})).log1p()"
            return f"(({self.emit(c, sc)}).log() + ({acc}).log())"
        # numpy: online shifted sum  m = running max, s = sum expm1(g - m), k = count
        m, s1, k = self.tmp("m"), self.tmp("s"), self.tmp("k")
        sc.body.append(f"{m}, {s1}, {k} = -_np.inf, 0.0, 0.0")
        body.body.insert(0, self.mask(j, loc, hic, sc, body))
        body.body.append(f"{m}, {s1}, {k} = _lse_update({m}, {s1}, {k}, {gc}, _mask)")
        sc.body.append(_Block(f"for {j} in _nchunks({loc}, {hic}, _SHAPE):", body))
        self.loop_vars.pop(_var)
        if mean:
            return f"({m} + _np.log1p({s1} / {k}))"
        return f"({m} + _np.log({self.emit(c, sc)}) + _np.log({k} + {s1}))"


def _is_literal(code: str) -> bool:
    try:
        float(code)
    except ValueError:
        return code in ("True", "False")
    return True


def _exp_arg(f: sp.Expr) -> sp.Expr | None:
    """g if f is exp(g), or a Piecewise whose branches are all exponentials (then a Piecewise g)."""
    if isinstance(f, sp.exp):
        return f.args[0]
    if isinstance(f, sp.Piecewise) and all(isinstance(p.expr, sp.exp) for p in f.args):
        return sp.Piecewise(*[(p.expr.args[0], p.cond) for p in f.args], evaluate=False)
    return None


# ----------------------------------------------------------------------------- runtime helpers


def _mp_namespace() -> dict[str, Any]:
    m = mpmath

    def _R(x: Any) -> Any:
        return m.mpf(x)

    def _fdiv(p: int, q: int) -> int:
        return int(p) // int(q)

    def _pow1p(t: Any, L: Any, E: Any) -> Any:
        return m.exp(E * L) if t > -1 else (1 + t) ** E

    def _pow1pm1(t: Any, L: Any, E: Any) -> Any:
        return m.expm1(E * L) if t > -1 else (1 + t) ** E - 1

    def _out(x: Any) -> Any:
        if isinstance(x, m.mpc):
            if x.imag != 0:
                raise NumericalFailure(f"the expression is complex here ({x})")
            x = x.real
        return +m.mpf(x)

    def _mrange(lo: int, hi: int) -> range:
        _check_sum_terms(lo, hi)
        return range(lo, hi + 1)

    return {"_m": m, "_R": _R, "_fdiv": _fdiv, "_mrange": _mrange, "_pow1p": _pow1p, "_pow1pm1": _pow1pm1, "_out": _out,
            "_comb": math.comb, "_NF": NumericalFailure}


def _arb_namespace() -> dict[str, Any]:
    """The runtime of the arb kernels. Every comparison, floor and branch raises :class:`Undecided` unless the
    balls decide it; a nan ball (python-flint's "no information", e.g. ``log`` of a ball reaching 0) or a ball
    of infinite radius never decides anything (only an exact infinity compares)."""
    flint = require_flint()

    arb = flint.arb

    def _R(x: Any) -> Any:
        return x if isinstance(x, arb) else arb(x)

    def _undecided(what: str, *balls: Any) -> Undecided:
        return Undecided(f"{what} is undecided on the balls {', '.join(str(b) for b in balls)}")

    def _informative(what: str, a: Any, b: Any) -> None:
        """Refuse to compare a nan ball or one of infinite radius (an exact +-inf is a value and compares)."""
        if not (informative_ball(a) and informative_ball(b)):
            raise _undecided(what, a, b)

    def _lt(a: Any, b: Any) -> bool:
        if isinstance(a, int) and isinstance(b, int):
            return a < b
        a, b = _R(a), _R(b)
        _informative("a < b", a, b)
        if a < b:
            return True
        if a >= b:
            return False
        raise _undecided("a < b", a, b)

    def _le(a: Any, b: Any) -> bool:
        if isinstance(a, int) and isinstance(b, int):
            return a <= b
        a, b = _R(a), _R(b)
        _informative("a <= b", a, b)
        if a <= b:
            return True
        if a > b:
            return False
        raise _undecided("a <= b", a, b)

    def _gt(a: Any, b: Any) -> bool:
        return _lt(b, a)

    def _ge(a: Any, b: Any) -> bool:
        return _le(b, a)

    def _eq(a: Any, b: Any) -> bool:
        if isinstance(a, int) and isinstance(b, int):
            return a == b
        a, b = _R(a), _R(b)
        _informative("a == b", a, b)
        if not a.overlaps(b):
            return False
        if a.is_exact() and b.is_exact():
            return bool(a == b)
        raise _undecided("a == b", a, b)

    def _ne(a: Any, b: Any) -> bool:
        return not _eq(a, b)

    def _as_int(x: Any) -> Any:
        """An exact integer ball as a Python int; other balls stay balls."""
        if isinstance(x, int):
            return x
        x = _R(x)
        if x.is_exact() and x.is_integer():
            return int(x.unique_fmpz())
        return x

    def _afloor(x: Any) -> Any:
        if isinstance(x, int):
            return x
        if x.is_exact():
            return int(x.floor().unique_fmpz())
        if not x.is_finite() or x.contains_integer():
            raise _undecided("floor", x)
        return int(x.floor().unique_fmpz())

    def _aceil(x: Any) -> Any:
        return -_afloor(-_R(x))

    def _fdiv(p: Any, q: Any) -> Any:
        if isinstance(p, int) and isinstance(q, int):
            return p // q
        return _afloor(_R(p) / _R(q))

    def _irange(lo: Any, hi: Any) -> range:
        if not (isinstance(lo, int) and isinstance(hi, int)):
            raise _undecided("a summation limit (not an exact integer)", _R(lo), _R(hi))
        _check_sum_terms(lo, hi)
        return range(lo, hi + 1)

    def _ipow(x: Any, n: int) -> Any:
        """x^n for an integer n, rigorous on every ball. ``ball ** n`` is used where it is finite; python-flint
        0.9 returns nan for a ball with midpoint 0 (``arb(0, 1)**2``, flint issue 426), where the power is
        taken from the ends instead: x^n is increasing in x for odd n, and in |x| for even n, so with exact
        ends L <= x <= U (odd) or |x| <= U (even) the range lies in [L^n, U^n] (odd) or [0, U^n] (even)."""
        if not isinstance(x, arb):
            return x**n if n >= 0 else 1 / _R(x) ** -n
        if n < 0:
            return 1 / _ipow(x, -n)  # a ball containing 0 gives a nan (undecided), never a number
        y = x**n
        if y.is_finite() or not x.is_finite() or n == 0:
            return y
        if n % 2:
            return (x.lower() ** n).union(x.upper() ** n)
        return arb(0).union(x.abs_upper() ** n)

    def _apow(x: Any, e: Any) -> Any:
        """x^e: an exact integer exponent (a Python int or an exact integer ball) through :func:`_ipow`;
        otherwise the ball power (nan, i.e. undecided, where x reaches 0 or below)."""
        if isinstance(e, arb) and e.is_exact() and e.is_integer():
            e = int(e.unique_fmpz())
        if isinstance(e, int):
            return _ipow(_R(x), e)
        return _R(x) ** e

    def _pow1p(t: Any, L: Any, E: Any) -> Any:
        if _R(t) > -1:
            return (E * L).exp()
        return _apow(1 + t, E)  # rigorous for every ball; only the accuracy differs

    def _pow1pm1(t: Any, L: Any, E: Any) -> Any:
        if _R(t) > -1:
            return (E * L).expm1()
        return _apow(1 + t, E) - 1

    def _amin(*xs: Any) -> Any:
        out = _R(xs[0])
        for x in xs[1:]:
            out = out.min(_R(x))
        return out

    def _amax(*xs: Any) -> Any:
        out = _R(xs[0])
        for x in xs[1:]:
            out = out.max(_R(x))
        return out

    def _abin(x: Any, k: int) -> Any:
        if k < 0:
            return arb(0)
        return _R(x).bin(int(k))

    def _acomb(n: int, k: int) -> Any:
        # a ball around C(n, k) at the working precision (the exact big integer costs O(n) digits per term)
        if 0 <= k <= n < 2**62:
            return arb.bin_uiui(n, k)
        return _R(math.comb(n, k))

    def _abinr(x: Any, k: Any) -> Any:
        x, k = _R(x), _R(k)
        return ((x + 1).lgamma() - (k + 1).lgamma() - (x - k + 1).lgamma()).exp()

    return {"_arb": arb, "_R": _R, "_lt": _lt, "_le": _le, "_gt": _gt, "_ge": _ge, "_eq": _eq, "_ne": _ne,
            "_as_int": _as_int, "_afloor": _afloor, "_aceil": _aceil, "_fdiv": _fdiv, "_irange": _irange,
            "_pow1p": _pow1p, "_pow1pm1": _pow1pm1, "_ipow": _ipow, "_apow": _apow, "_amin": _amin, "_amax": _amax,
            "_abin": _abin,
            "_abinr": _abinr, "_acomb": _acomb, "_comb": math.comb, "_NF": NumericalFailure}


_SPLIT = 134217729.0  # 2**27 + 1, Veltkamp splitting


def one_minus_product_np(a: Any, b: Any) -> np.ndarray:
    """1 - a*b in float64 without losing the digits of a*b when a*b is close to 1.

    Dekker's TwoProduct gives p + e == a*b exactly; then 1 - p is exact (Sterbenz, p in [1/2, 2])
    and 1 - a*b = (1 - p) - e to within one rounding. Near the step-size limits (eta*lam -> 1) the
    naive 1 - eta*lam loses up to all of its digits.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    p = a * b
    ca, cb = _SPLIT * a, _SPLIT * b
    ah = ca - (ca - a)
    al = a - ah
    bh = cb - (cb - b)
    bl = b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return (1.0 - p) - e


class _LazySpecial:
    """``scipy.special``, imported on first use: most compiled float64 kernels need none of it, and a
    closed-form ``dptheory eval`` should not pay for importing scipy (tests/test_cli_startup.py)."""

    def __getattr__(self, name: str) -> Any:
        import scipy.special

        return getattr(scipy.special, name)


def _np_namespace() -> dict[str, Any]:
    sps = _LazySpecial()

    def _log1p_negprod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """log(1 - a b): log1p for a b < 1/2, log of the exact 1 - a b above (near a b = 1)."""
        x = a * b
        return np.where(x < 0.5, np.log1p(-x), np.log(one_minus_product_np(a, b)))

    def _fdiv(p: np.ndarray, q: np.ndarray) -> np.ndarray:
        return np.floor_divide(p, q)

    def _pow1p(t: np.ndarray, L: np.ndarray, E: np.ndarray) -> np.ndarray:
        return np.where(t > -1, np.exp(E * L), (1 + t) ** E)

    def _pow1pm1(t: np.ndarray, L: np.ndarray, E: np.ndarray) -> np.ndarray:
        return np.where(t > -1, np.expm1(E * L), (1 + t) ** E - 1)

    def _nmin(*xs: Any) -> np.ndarray:
        out = xs[0]
        for x in xs[1:]:
            out = np.minimum(out, x)
        return out

    def _nmax(*xs: Any) -> np.ndarray:
        out = xs[0]
        for x in xs[1:]:
            out = np.maximum(out, x)
        return out

    def _nchunks(lo: Any, hi: Any, shape: tuple[int, ...]) -> Any:
        lo_a, hi_a = np.asarray(lo), np.asarray(hi)
        if lo_a.size == 0 or hi_a.size == 0:
            return
        start, stop = int(np.min(lo_a)), int(np.max(hi_a))
        _check_sum_terms(start, stop)
        width = max(1, (1 << 20) // max(1, math.prod(shape)))
        for c in range(start, stop + 1, width):
            yield np.arange(c, min(stop, c + width - 1) + 1, dtype=np.float64)

    def _lse_update(m: np.ndarray, s: np.ndarray, k: np.ndarray, g: np.ndarray, mask: np.ndarray) -> tuple:
        """One chunk of the online shifted sum: m = max g, s = sum expm1(g - m), k = count."""
        g = np.where(mask, g, -np.inf)
        gm = np.max(g, axis=-1)
        m_new = np.maximum(m, gm)
        finite = np.isfinite(m_new)
        shift = np.where(finite & np.isfinite(m), m - np.where(finite, m_new, 0.0), 0.0)
        # rescale: expm1(g - m') = (1 + expm1(g - m)) e^{-(m'-m)} - 1, summed over the k old terms
        s = np.where(k > 0, s * np.exp(shift) + k * np.expm1(shift), 0.0)
        d = g - np.where(finite, m_new, 0.0)[..., None]
        s = s + np.sum(np.where(mask, np.expm1(d), 0.0), axis=-1)
        k = k + np.sum(mask, axis=-1)
        return m_new, s, k

    return {"_np": np, "_sps": sps, "_fdiv": _fdiv, "_pow1p": _pow1p, "_pow1pm1": _pow1pm1,
            "_nmin": _nmin, "_nmax": _nmax, "_nchunks": _nchunks, "_lse_update": _lse_update,
            "_log1p_negprod": _log1p_negprod, "_NF": NumericalFailure}


# ----------------------------------------------------------------------------- the compiled object


def _emit(backend: str, expr: sp.Expr, params: tuple[str, ...], symbols: Mapping[str, sp.Symbol],
          integers: frozenset[str]) -> str:
    """The generated source of one backend (pure Python: imports nothing, raises :class:`CompileError`)."""
    em = _Emitter(backend, params, symbols, integers)
    root = em.root
    prologue: list[str] = []
    for name in params:
        s = symbols[name]
        var = f"p_{name}"
        if backend == "np":
            prologue.append(f"{var} = _np.asarray(args[{name!r}], dtype=_np.float64)")
            root.memo[("real", s)] = (var, 0)
            root.memo[("int", s)] = (var, 0)
        elif name in integers:
            conv = "int" if backend == "mp" else "_as_int"
            prologue.append(f"{var} = {conv}(args[{name!r}])")
            root.memo[("int", s)] = (var, 0)
        else:
            prologue.append(f"{var} = _R(args[{name!r}])")
            root.memo[("real", s)] = (var, 0)
    if backend == "np":
        vars_ = "".join(f"p_{n}, " for n in params)
        prologue.append(f"_SHAPE = _np.broadcast_shapes(*[_np.shape(v) for v in ({vars_})])")
    result = em.emit(expr, root)
    body = root.lines(1)
    lines = ["def kernel(args):", *("    " + p for p in prologue), *("    " + c for c in em.consts), *body]
    if backend == "np":
        lines.append(f"    return _np.array(_np.broadcast_to(_np.asarray({result}, dtype=_np.float64), _SHAPE))")
    elif backend == "mp":
        lines.append(f"    return _out({result})")
    else:
        lines.append(f"    return _R({result})")
    return "\n".join(lines) + "\n"


def _exec(backend: str, src: str) -> Callable[..., Any]:
    """The kernel of generated source, run in its backend's namespace (the arb one imports python-flint)."""
    ns = {"mp": _mp_namespace, "arb": _arb_namespace, "np": _np_namespace}[backend]()
    try:
        exec(compile(src, f"<compiled {backend}>", "exec"), ns)
    except SyntaxError as exc:  # pragma: no cover - a bug in the emitter
        raise CompileError(f"internal: generated {backend} code does not parse: {exc}\n{src}") from exc
    kernel: Callable[..., Any] = ns["kernel"]
    return kernel


class ArbKernel(Protocol):
    """What :func:`enclose` evaluates: a :class:`Compiled` bound or a hand-written arb kernel
    (:class:`dptheory.core.theorem.ArbEvaluator`)."""

    @property
    def params(self) -> tuple[str, ...]: ...

    def arb(self, args: Mapping[str, Any]) -> Any: ...


BACKENDS = ("mp", "np", "arb")


class _Sources(Mapping[str, str]):
    """``Compiled.source``: the generated code per backend, emitted on first access."""

    def __init__(self, owner: Compiled) -> None:
        self._owner = owner

    def __getitem__(self, backend: str) -> str:
        if backend not in BACKENDS:
            raise KeyError(backend)
        return self._owner._source(backend)

    def __iter__(self) -> Any:
        return iter(BACKENDS)

    def __len__(self) -> int:
        return len(BACKENDS)

    def __repr__(self) -> str:
        return f"<generated source of the {', '.join(BACKENDS)} backends>"


@dataclass(frozen=True, eq=False)
class Compiled:
    """A bound compiled to three backends (see the module docstring), each built on first use.

    :func:`compile_expr` checks that the statement compiles (it emits the mpmath source, which imports
    nothing); a backend's kernel is generated and executed the first time it is called (``mp``, ``np``,
    ``np_flagged``, ``arb``) and kept. So a float64 sweep never builds the arb kernel, and only the arb
    backend imports python-flint. Building is guarded by a lock: threads that share a ``Compiled`` build
    each backend once.

    Attributes:
        params: parameter names, in order.
        integers: the integer parameters.
        expr: the expression that was compiled (shorthands expanded, stabilised).
        source: the generated code per backend (a read-only mapping, emitted on access), for inspection.
    """

    params: tuple[str, ...]
    integers: frozenset[str]
    expr: sp.Expr
    symbols: Mapping[str, sp.Symbol] = field(repr=False)
    _sources: dict[str, str] = field(default_factory=dict, repr=False)
    _kernels: dict[str, Callable[..., Any]] = field(default_factory=dict, repr=False)
    _lock: Any = field(default_factory=threading.RLock, repr=False)

    @property
    def source(self) -> Mapping[str, str]:
        return _Sources(self)

    @property
    def built(self) -> frozenset[str]:
        """The backends whose kernels have been built so far."""
        return frozenset(self._kernels)

    def _source(self, backend: str) -> str:
        src = self._sources.get(backend)
        if src is None:
            with self._lock:
                src = self._sources.get(backend)
                if src is None:
                    src = _emit(backend, self.expr, self.params, self.symbols, self.integers)
                    self._sources[backend] = src
        return src

    def kernel(self, backend: str) -> Callable[..., Any]:
        """The kernel of one backend (``"mp"``, ``"np"`` or ``"arb"``), built on first use.

        Raises:
            CompileError: the statement uses something this backend does not handle.
            MissingBackend: the arb backend, without python-flint.
        """
        k = self._kernels.get(backend)
        if k is None:
            if backend not in BACKENDS:
                raise CompileError(f"unknown backend {backend!r} (backends: {', '.join(BACKENDS)})")
            with self._lock:
                k = self._kernels.get(backend)
                if k is None:
                    k = _exec(backend, self._source(backend))
                    self._kernels[backend] = k
        return k

    def mp(self, args: Mapping[str, Any]) -> mpmath.mpf:
        """Value at the current mpmath precision; ints for integer parameters, numbers otherwise."""
        try:
            return self.kernel("mp")(args)
        except ZeroDivisionError as exc:
            raise NumericalFailure(
                f"division by zero: the statement is undefined at {dict(args)} (state the value there "
                "explicitly, e.g. Piecewise((oo, ...), ...))"
            ) from exc

    def np(self, arrays: Mapping[str, Any]) -> np.ndarray:
        """float64 values, vectorised with broadcasting (no condition checks)."""
        with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
            return self.kernel("np")(arrays)

    def np_flagged(self, arrays: Mapping[str, Any], *, tol: float = 1e-11) -> tuple[Any, Any]:
        """float64 values and a mask of points where they may be off by more than ``tol`` relative.

        The mask is a conditioning estimate, not a bound: the kernel is re-run twice with every real
        input moved by 8 units in the last place (alternating signs across parameters, then the
        opposite signs); a point is flagged when a value moves by more than ``tol`` relative or
        changes finiteness. With the stable forms emitted here, rounding errors act like input
        perturbations of a few units, so an ill-conditioned point (the Balle factor's base
        ``1 - 2 eta beta lam/(beta + lam)`` near 0) is flagged. The pair is the form
        ``Theorem.np`` may return: flagged points are recomputed with mpmath.
        """
        base = self.np(arrays)
        arrs = {k: np.asarray(arrays[k], dtype=np.float64) for k in self.params}
        unreliable = np.zeros(base.shape, dtype=bool)
        step = 8 * 2.0**-53
        for first in (1.0, -1.0):
            moved = {}
            for i, p in enumerate(self.params):
                a = arrs[p]
                moved[p] = a if p in self.integers else a * (1 + first * (-1) ** i * step)
            v = self.np(moved)
            fin = np.isfinite(base) & np.isfinite(v)
            with np.errstate(invalid="ignore", over="ignore"):
                off = np.where(fin, np.abs(v - base) > tol * np.abs(base), np.isfinite(base) != np.isfinite(v))
            unreliable |= off
        return base, unreliable

    def arb(self, args: Mapping[str, Any]) -> Any:
        """A ball containing the exact value at every point of the input balls, at the current
        ``flint.ctx.prec``; raises :class:`Undecided` when a branch or floor cannot be decided."""
        return self.kernel("arb")(args)


def compile_expr(expr: sp.Expr, symbols: Mapping[str, sp.Symbol], *,
                 integers: frozenset[str] = frozenset(), close_sums: bool = True) -> Compiled:
    """Compile a sympy expression in the given parameters (``name -> Symbol``).

    Raises:
        CompileError: naming the construct that is not supported.
    """
    params = tuple(symbols)
    unknown = set(integers) - set(params)
    if unknown:
        raise CompileError(f"integer parameters {sorted(unknown)} are not among the parameters {list(params)}")
    expanded = expand_shorthands(sp.sympify(expr), close_sums=close_sums)
    free = expanded.free_symbols - set(symbols.values())
    if free:
        raise CompileError(f"symbols {sorted(map(str, free))} are not parameters ({', '.join(params)})")
    stable = stabilise(expanded)
    out = Compiled(params=params, integers=frozenset(integers), expr=stable, symbols=dict(symbols))
    out._source("mp")  # an unsupported construct is named here, not at the first evaluation (emitting imports nothing)
    return out


_THEOREM_CACHE: dict[str, tuple[sp.Expr, Compiled]] = {}


def compile_theorem(theorem: Any) -> Compiled:
    """Compile a :class:`~dptheory.core.theorem.Theorem`'s closed-form ``bound`` (cached per key and
    bound object): its parameters in order, integer parameters from the notation table."""
    bound = getattr(theorem, "bound", None)
    if bound is None:
        raise CompileError(
            f"{theorem.key} has no closed-form bound (it is stated as a recurrence or definition); it keeps "
            "its hand-written kernel and its values are not certified"
        )
    hit = _THEOREM_CACHE.get(theorem.key)
    if hit is not None and hit[0] is bound:
        return hit[1]
    syms = {p: theorem.notation.sym(p) for p in theorem.params}
    ints = frozenset(p for p in theorem.params if theorem.notation[p].domain.is_integer)
    out = compile_expr(bound, syms, integers=ints)
    _THEOREM_CACHE[theorem.key] = (bound, out)
    return out


# ----------------------------------------------------------------------------- certified evaluation


@dataclass(frozen=True)
class Enclosure:
    """A certified enclosure lo <= value <= hi (endpoints rounded outward).

    Attributes:
        lo, hi: mpmath numbers (binary, rounded outward from the ball's endpoints).
        mid: the ball's midpoint as an mpf (not itself certified to all digits).
        lo_str, hi_str: decimal strings rounded outward (``dps + 2`` significant digits).
        dps: the requested accuracy; ``relative`` is False when the ball contains 0 and only an
            absolute radius below 10^-dps was reached.
        prec: the arb working precision (bits) that succeeded.
    """

    lo: mpmath.mpf
    hi: mpmath.mpf
    mid: mpmath.mpf
    lo_str: str
    hi_str: str
    dps: int
    prec: int
    relative: bool = True

    def contains(self, x: Any) -> bool:
        """Whether the exact value of ``x`` (int, Fraction, sympy Rational/Float, mpf) is in [lo, hi]."""
        m, q = _exact_mpf(x)
        return _le_exact(self.lo, m, 1, q) and _le_exact(m, self.hi, q, 1)

    def __str__(self) -> str:
        return f"[{self.lo_str}, {self.hi_str}]"


def _decimal_bound(v: Any, digits: int, down: bool) -> str:
    """A decimal string d with d <= v (``down``) or d >= v, for an exact arb ``v``, with about ``digits``
    significant digits. Works for any exponent (exp(-10^15) included): the scaling by 10^k is done
    with balls and the rounding is applied to the ball's outer endpoint."""
    flint = require_flint()

    if v.is_zero():
        return "0"
    negative = bool(v < 0)
    a = abs(v)
    # the exponent's own size costs bits: 10^k with |k| ~ 10^40 carries a relative error ~ k 2^-prec, so
    # the working precision grows with the bit length of k (else the digits come out correct but loose)
    mag = abs(int(a.mid().man_exp()[1])).bit_length() if a.is_finite() else 0
    with flint.ctx.workprec(int(digits * 3.33) + 96 + 2 * mag):
        e10 = int(a.log_base(10).mid().floor().unique_fmpz())
        k = digits - 1 - e10
        y = a * flint.arb(10) ** k if k >= 0 else a / flint.arb(10) ** (-k)
        # the digits of |v| rounded toward zero (lo) or away from zero (hi)
        toward_zero = down != negative
        m = int((y.lower().floor() if toward_zero else y.upper().ceil()).unique_fmpz())
    text = str(m)
    exp10 = -k + len(text) - 1
    mant = text[0] + ("." + text[1:].rstrip("0") if text[1:].rstrip("0") else "")
    return f"{'-' if negative else ''}{mant}e{exp10:+d}"


def _to_mpf(x: Any, rnd: str, bits: int) -> mpmath.mpf:
    man, exp_ = x.man_exp()
    with mpmath.workprec(bits):  # mpf() rounds a raw value to the current precision
        return mpmath.mpf(mpmath.libmp.from_man_exp(int(man), int(exp_), bits, rnd))


def _exact_mpf(v: Any) -> tuple[mpmath.mpf, int]:
    """(m, q) with v = m / q exactly, m an mpf holding all its bits, q a positive int."""
    if isinstance(v, bool):
        raise NumericalFailure("a boolean is not a number")
    if isinstance(v, (int, Fraction, sp.Rational)):
        p, q = (int(v.p), int(v.q)) if isinstance(v, sp.Rational) else (Fraction(v).numerator, Fraction(v).denominator)
        with mpmath.workprec(max(53, abs(p).bit_length() + 1)):
            return mpmath.mpf(p), q
    if isinstance(v, mpmath.mpf):
        return v, 1
    if isinstance(v, sp.Float):
        with mpmath.workprec(v._prec + 10):
            return mpmath.mpf(v._mpf_), 1
    if isinstance(v, float):
        with mpmath.workprec(64):
            return mpmath.mpf(v), 1
    raise NumericalFailure(f"{v!r} is not a number of a supported type")


def _le_exact(a: mpmath.mpf, b: mpmath.mpf, qa: int = 1, qb: int = 1) -> bool:
    """a/qa <= b/qb exactly (products formed at a precision that holds them)."""
    bits = max(int(mpmath.mpf(a)._mpf_[3]), 1) + max(int(b._mpf_[3]), 1) + qa.bit_length() + qb.bit_length() + 64
    with mpmath.workprec(bits):
        return bool(a * qb <= b * qa)


def _to_arb(v: Any, name: str) -> Any:
    flint = require_flint()

    if isinstance(v, bool):
        raise NumericalFailure(f"parameter {name}: a boolean is not a number")
    if isinstance(v, int):
        return flint.arb(v)
    if isinstance(v, (sp.Rational, Fraction)):
        p, q = (int(v.p), int(v.q)) if isinstance(v, sp.Rational) else (v.numerator, v.denominator)
        return flint.arb(p) if q == 1 else flint.arb(p) / flint.arb(q)
    raise NumericalFailure(
        f"parameter {name} = {v!r}: enclose needs exact inputs (int, sympy Rational or Fraction)"
    )


def enclose(compiled: ArbKernel, exact: Mapping[str, Any], *, dps: int, max_prec: int = 1 << 16,
            zero_prec: int | None = None) -> Enclosure:
    """Certified value of a compiled bound at exact inputs (Ziv loop on the arb backend).

    The working precision starts at about ``dps`` digits plus guard bits and doubles until the ball's
    radius is below ``10^-dps`` times the smallest absolute value in the ball (or, for a ball that
    contains 0, below ``10^-dps`` absolutely). Undecided branches or floors are retried at higher
    precision too. A ball that still contains 0 at ``zero_prec`` bits (default: four times the starting
    precision) is accepted once its radius is below 10^-dps; the result then says ``relative=False``.
    Raises :class:`NumericalFailure` once ``max_prec`` bits are exceeded.
    """
    flint = require_flint()

    if dps < 1:
        raise NumericalFailure(f"dps = {dps} is invalid: enclose needs at least 1 significant digit")
    missing = [p for p in compiled.params if p not in exact]
    if missing:
        raise NumericalFailure(f"enclose: parameters {missing} are missing (expected {list(compiled.params)})")
    prec = int(dps * 3.33) + 32
    zero_prec = 4 * prec if zero_prec is None else zero_prec
    last: str = ""
    nonfinite = 0
    while prec <= max_prec:
        with flint.ctx.workprec(prec):
            args = {p: _to_arb(exact[p], p) for p in compiled.params}
            try:
                y = compiled.arb(args)
            except Undecided as exc:
                last = str(exc)
                prec *= 2
                continue
            except (ZeroDivisionError, ValueError, OverflowError) as exc:
                raise NumericalFailure(f"enclose: evaluation failed at {dict(exact)}: {exc}") from exc
            if y.is_exact() and not y.is_finite() and not y.is_nan():
                inf = mpmath.inf if y > 0 else -mpmath.inf
                text = "inf" if y > 0 else "-inf"
                return Enclosure(lo=inf, hi=inf, mid=inf, lo_str=text, hi_str=text, dps=dps, prec=prec)
            if not y.is_finite():
                # a NaN or infinite ball: more precision helps when a ball merely touched a singularity,
                # not at an exact one (1/0 of an empty sum): stop after three doublings
                nonfinite += 1
                last = f"the ball {y} is not finite"
                if nonfinite >= 3:
                    raise NumericalFailure(
                        f"enclose: the value is not finite at {dict(exact)} at {prec} bits (a division by zero or "
                        "a singularity of the statement there); the value is not certified"
                    )
                prec *= 2
                continue
            tol = flint.arb(10) ** (-dps)
            rad = y.rad()
            if y.contains(0):
                # the value may be 0 (then no precision gives a relative radius) or tiny: keep
                # raising precision up to zero_prec bits, then accept an absolute radius below 10^-dps
                relative = y.is_zero()
                ok = relative or (prec >= zero_prec and bool(rad < tol))
            else:
                ok = bool(rad <= tol * y.abs_lower())
                relative = True
            if ok:
                lo, hi, mid = y.lower(), y.upper(), y.mid()
                bits = prec + 64
                digits = dps + 2
                return Enclosure(
                    lo=_to_mpf(lo, "f", bits),
                    hi=_to_mpf(hi, "c", bits),
                    mid=_to_mpf(mid, "n", bits),
                    lo_str=_decimal_bound(lo, digits, down=True),
                    hi_str=_decimal_bound(hi, digits, down=False),
                    dps=dps,
                    prec=prec,
                    relative=relative,
                )
            last = f"the ball {y.str(5, radius=True)} is too wide at {prec} bits"
            prec *= 2
        if prec > max_prec and prec < 2 * max_prec:
            prec = max_prec  # one last try at the cap
    raise NumericalFailure(
        f"enclose: no enclosure to {dps} digits within {max_prec} bits of working precision ({last}); "
        "the value is not certified"
    )


def agree_mp(kernel: Callable[[Mapping[str, Any]], Any], args: Callable[[], Mapping[str, Any]], *, dps: int,
             guard: int = 10, max_dps: int = 2000) -> mpmath.mpf:
    """NOT rigorous: evaluate an mpmath kernel at increasing precision until two successive results
    agree to ``dps + guard`` digits. Agreement is evidence, not proof (a kernel that loses the same
    digits at both precisions agrees with itself); use :func:`enclose` for a certified value. ``args``
    is called inside each precision (so rational inputs are rounded at that precision).
    """
    work = dps + guard
    prev: mpmath.mpf | None = None
    while work <= max_dps:
        with mpmath.workdps(work):
            v = +mpmath.mpf(kernel(args()))
        if prev is not None:
            with mpmath.workdps(work):
                if v == prev or abs(v - prev) <= abs(v) * mpmath.mpf(10) ** (-(dps + guard)):
                    with mpmath.workdps(dps):
                        return +v
        prev = v
        work *= 2
    raise NumericalFailure(f"agree_mp: no agreement to {dps + guard} digits up to {max_dps} digits")
