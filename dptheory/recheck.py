"""The independent checker of certificates (``dptheory recheck DIR``): the trusted base of a verdict.

A certificate (:mod:`dptheory.verify.certificates`, ``docs/certificates.md``) states what ``dptheory check``
decided. This module re-verifies it with code that shares nothing with the statement compiler or the branch
and bound: it imports only the standard library, sympy and mpmath (``tests/test_certificates.py`` enforces
it). What it trusts: sympy's constructors and its ``expand``/``simplify``/``factor_terms`` and assumptions
(``is_positive``), mpmath's interval context ``mpmath.iv`` (outward-rounded arithmetic, ``exp``, ``log``,
``sqrt``, powers), Python's ``Fraction`` and ``ast``. It checks:

* **parsing is data**: every expression is ``sympy.srepr`` text read by :func:`parse`: Python's parser builds
  a tree (running nothing), and only calls of an allow-list of sympy classes with literal arguments are built;
* **the margin**: ``rhs - lhs`` (``lhs - rhs`` for ``>``, ``>=``; ``log f - |log(lhs/rhs)|`` for "within a
  factor f") after the box's change of variables; where the certificate decided a *reduced* margin, that every
  split-off factor is positive (sympy, from the symbols' assumptions, which are checked against the region's
  ranges) and that ``margin - (product of factors) * reduced`` is 0 (sympy);
* **boxes**: that the leaves cover every root box of the region (exact rational and integer arithmetic, ends
  shared or open as recorded); that on every ``holds`` leaf its own interval evaluation of the margin has the
  sign the relation needs (bisecting the leaf if its enclosure is too wide; no other trick), that the recorded
  enclosure does too and meets its own; that on every ``outside`` leaf a condition certainly fails (a cut part,
  open at one end, against a condition ``p <= g(others)`` whose bound ``g`` it evaluates);
* **finite sets**: every point of the set is recorded, decided with the right sign or shown outside;
* **counterexamples**: the exact point satisfies every condition it can be evaluated on and the margin there
  is an interval that excludes 0 on the failing side (exact rational arithmetic where sympy evaluates the
  margin to a rational: an exact tie fails a strict relation and holds a non-strict one).

Anything it cannot evaluate (a side without closed form, a function outside its walker, a sum whose limits are
not fixed integers on a box it cannot split) makes the certificate *not independently checkable*, never passed.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import json
import math
import time
from collections.abc import Callable, Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import mpmath
import sympy as sp
from mpmath.libmp import mpf_ceil, mpf_cmp, mpf_floor, to_int

iv = mpmath.iv
_KEY = functools.cmp_to_key(mpf_cmp)  # order of exact endpoints (mpmath's raw binary floats)

__all__ = ["NotCheckable", "Refused", "check_certificate", "parse", "recheck"]

RESULTS = ("re-verified", "not independently checkable", "REFUSED")
#: interval evaluations allowed per leaf (bisections of a leaf whose enclosure does not decide it)
LEAF_BUDGET = 64
PRECS = (64, 256, 1024, 4096)  # bits tried at an exact point


class Refused(Exception):
    """The certificate is wrong or incomplete (the message says where)."""


class NotCheckable(Exception):
    """The certificate uses something the checker does not evaluate."""


class _Undecided(Exception):
    """An interval too wide to decide (a log of an interval reaching 0, a sum limit not fixed, ...)."""


# ------------------------------------------------------------------------------------------ parsing
_CLASSES = {n: getattr(sp, n) for n in (
    "Add", "Mul", "Pow", "Symbol", "Integer", "Rational", "Float", "Tuple", "exp", "log", "Abs", "Max", "Min",
    "floor", "ceiling", "Mod", "binomial", "factorial", "Piecewise", "Sum", "Equality",
    "Unequality", "StrictLessThan", "LessThan", "StrictGreaterThan", "GreaterThan", "And", "Or", "Not",
    "erf", "erfc", "gamma", "loggamma", "Integral", "Product", "sin", "cos", "LambertW")}
_CLASSES["ExprCondPair"] = sp.functions.elementary.piecewise.ExprCondPair
_NAMES = {"pi": sp.pi, "E": sp.E, "true": sp.true, "false": sp.false, "oo": sp.oo, "nan": sp.nan, "zoo": sp.zoo}


def parse(text: str) -> Any:
    """A sympy object from its ``srepr`` text, built only from allow-listed classes and literals."""
    try:
        tree = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        raise Refused(f"not an expression: {text[:60]!r}") from None
    return _build(tree)


def _build(n: ast.AST) -> Any:
    if isinstance(n, ast.Constant) and type(n.value) in (int, str, bool):
        if (isinstance(n.value, int) and abs(n.value) > 10**1000) or (isinstance(n.value, str) and len(n.value) > 200):
            raise Refused("a literal too large")
        return n.value
    if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub) and isinstance(n.operand, ast.Constant):
        return -_build(n.operand)
    if isinstance(n, ast.Name) and n.id in _NAMES:
        return _NAMES[n.id]
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
        if n.func.id not in _CLASSES:
            raise NotCheckable(f"uses {n.func.id}, which the checker does not know")
        if any(k.arg is None for k in n.keywords):
            raise Refused("a ** argument")
        kw = {str(k.arg): _build(k.value) for k in n.keywords}
        if any(not isinstance(v, (bool, int)) for v in kw.values()):
            raise Refused("a keyword argument that is not a flag")
        args = [_build(a) for a in n.args]
        if n.func.id == "Pow" and len(args) == 2 and getattr(args[1], "is_Integer", False) and abs(args[1]) > 10**5:
            raise Refused("an exponent too large")
        return _CLASSES[n.func.id](*args, **kw)
    raise Refused(f"not a sympy srepr construct: {ast.dump(n)[:60]}")


# ------------------------------------------------------------------------------------------ intervals
def _num(q: Fraction | int) -> Any:
    q = Fraction(q)
    return iv.mpf(q.numerator) if q.denominator == 1 else iv.mpf(q.numerator) / q.denominator


def _mk(lo: Any, hi: Any) -> Any:
    """The interval of two exact endpoints."""
    return iv.make_mpf((lo, hi))


def _exact_int(x: Any) -> int:
    a, b = x._mpi_
    if a == b and mpf_floor(a) == a:
        return int(to_int(a))
    raise _Undecided("an integer argument that is a range")


def _hull(*xs: Any) -> Any:
    return _mk(min((x._mpi_[0] for x in xs), key=_KEY), max((x._mpi_[1] for x in xs), key=_KEY))


@contextlib.contextmanager
def _workprec(bits: int) -> Iterator[None]:
    old, iv.prec = iv.prec, bits
    try:
        yield
    finally:
        iv.prec = old


def ev(e: Any, env: dict[str, Any]) -> Any:
    """An interval enclosing the value of sympy expression ``e`` for every value of the symbols in ``env``."""
    if e.is_Rational:
        return _num(Fraction(int(e.p), int(e.q)))
    if e.is_Float:
        r = sp.Rational(e)  # exact: a Float is a binary fraction
        return _num(Fraction(int(r.p), int(r.q)))
    if e.is_Symbol:
        if e.name not in env:
            raise NotCheckable(f"no value for {e.name}")
        return env[e.name]
    if e is sp.pi:
        return iv.pi
    if e is sp.E:
        return iv.e
    f = _FUNCS.get(type(e).__name__)
    if f is None:
        raise NotCheckable(f"the checker does not evaluate {type(e).__name__}")
    return f(e, env)


def _pow(e: Any, env: dict[str, Any]) -> Any:
    b, x = e.args
    if x.is_Integer:
        return ev(b, env) ** int(x)
    B, X = ev(b, env), ev(x, env)
    a, z = X._mpi_
    if a == z and mpf_floor(a) == a:  # an exact integer exponent (a summation index): 0^0 = 1 as in sympy
        k = int(to_int(a))
        return iv.mpf(1) if k == 0 else B**k
    if x == sp.S.Half and B.a >= 0:
        return iv.sqrt(B)
    if B.a > 0:
        return iv.exp(X * iv.log(B))
    raise _Undecided("a non-integer power of an interval reaching 0")


def _log(e: Any, env: dict[str, Any]) -> Any:
    x = ev(e.args[0], env)
    if not x.a > 0:
        raise _Undecided("a log of an interval reaching 0")
    return iv.log(x)


def _sum(e: Any, env: dict[str, Any]) -> Any:
    (j, a, b), = e.limits
    lo, hi = _exact_int(ev(a, env)), _exact_int(ev(b, env))
    sign, (lo, hi) = (1, (lo, hi)) if hi >= lo - 1 else (-1, (hi + 1, lo - 1))  # sympy's (Karr) convention
    if hi - lo > 10**5:
        raise NotCheckable("a sum of more than 10^5 terms")
    tot = iv.mpf(0)
    for k in range(lo, hi + 1):
        tot += ev(e.function, {**env, j.name: iv.mpf(k)})
    return tot * sign


def _piecewise(e: Any, env: dict[str, Any]) -> Any:
    out = None
    for expr, cond in e.args:
        t = truth(cond, env)
        if t is False:
            continue
        v = ev(expr, env)
        out = v if out is None else _hull(out, v)
        if t is True:
            return out
    if out is None:
        raise Refused("a Piecewise with no branch that applies")
    raise _Undecided("a Piecewise whose condition is undecided")


def _floor(up: bool) -> Callable[[Any, dict[str, Any]], Any]:
    def f(e: Any, env: dict[str, Any]) -> Any:
        a, b = ev(e.args[0], env)._mpi_
        g = mpf_ceil if up else mpf_floor
        return _mk(g(a), g(b))
    return f


_FUNCS: dict[str, Callable[[Any, dict[str, Any]], Any]] = {
    "Add": lambda e, env: sum((ev(a, env) for a in e.args[1:]), ev(e.args[0], env)),
    "Mul": lambda e, env: math.prod((ev(a, env) for a in e.args[1:]), start=ev(e.args[0], env)),
    "Pow": _pow, "log": _log, "Sum": _sum, "Piecewise": _piecewise,
    "exp": lambda e, env: iv.exp(ev(e.args[0], env)),
    "Abs": lambda e, env: abs(ev(e.args[0], env)),
    "Max": lambda e, env: _reduce(e, env, max), "Min": lambda e, env: _reduce(e, env, min),
    "floor": _floor(False), "ceiling": _floor(True),
    "Mod": lambda e, env: iv.mpf(_exact_int(ev(e.args[0], env)) % _exact_int(ev(e.args[1], env))),
    "binomial": lambda e, env: iv.mpf(math.comb(_exact_int(ev(e.args[0], env)), _exact_int(ev(e.args[1], env)))),
    "factorial": lambda e, env: iv.mpf(math.factorial(_exact_int(ev(e.args[0], env)))),
}


def _reduce(e: Any, env: dict[str, Any], pick: Callable[..., Any]) -> Any:
    vals = [ev(a, env)._mpi_ for a in e.args]
    return _mk(pick((v[0] for v in vals), key=_KEY), pick((v[1] for v in vals), key=_KEY))


def truth(c: Any, env: dict[str, Any]) -> bool | None:
    """A condition on intervals: True (holds for every value), False (fails for every value) or None."""
    if c is sp.true or c is sp.false:
        return bool(c)
    if isinstance(c, (sp.And, sp.Or)):
        ts = [truth(a, env) for a in c.args]
        want = isinstance(c, sp.Or)
        return want if want in ts else (None if None in ts else not want)
    if isinstance(c, sp.Not):
        t = truth(c.args[0], env)
        return None if t is None else not t
    if not isinstance(c, sp.core.relational.Relational):
        raise NotCheckable(f"the checker does not decide {type(c).__name__}")
    d = ev(c.lhs, env) - ev(c.rhs, env)
    rules = {"==": (d.a == 0 and d.b == 0, d.a > 0 or d.b < 0), "!=": (d.a > 0 or d.b < 0, d.a == 0 and d.b == 0),
             "<": (d.b < 0, d.a >= 0), "<=": (d.b <= 0, d.a > 0), ">": (d.a > 0, d.b <= 0), ">=": (d.a >= 0, d.b < 0)}
    yes, no = rules[c.rel_op]
    return True if yes else False if no else None


# ------------------------------------------------------------------------------------------ the claim
class Cert:
    """A parsed certificate: the sides, the margin to evaluate, the conditions."""

    def __init__(self, d: dict[str, Any]) -> None:
        if d.get("format") != "dptheory-certificate" or d.get("version") != 1:
            raise Refused("not a dptheory certificate of version 1")
        self.d = d
        self.rel, self.factor = d["relation"], None if d.get("factor") is None else Fraction(d["factor"])
        self.strict = self.rel in ("<", ">") and self.factor is None
        subs = {k: parse(v) for k, v in d.get("substitute", {}).items()}
        self.raw: list[Any] = [None if d.get(s) is None else parse(d[s]) for s in ("lhs", "rhs")]
        self.sides: list[Any] = [
            None if e is None else e.xreplace({s: subs[s.name] for s in e.free_symbols if s.name in subs})
            for e in self.raw]
        self.conditions = [parse(c) for c in d.get("conditions", [])]
        self.conditions = [c.xreplace({s: subs[s.name] for s in c.free_symbols if s.name in subs})
                           for c in self.conditions]
        m = d.get("margin", {})
        self.reduced = parse(m["reduced"]) if m.get("kind") == "reduced" else None
        self.factors = [parse(f) for f in m.get("factors", [])]

    def need_sides(self, sides: list[Any]) -> None:
        for e, s in zip(sides, ("lhs", "rhs"), strict=True):
            if e is None:
                raise NotCheckable(f"the {s} has no closed form ({self.d.get(s + '_why', '')})")

    def margin(self, env: dict[str, Any], sides: bool = False, exact: tuple[tuple[str, Fraction], ...] = ()) -> Any:
        """The margin on intervals: the reduced one where the certificate decided it (unless ``sides``); the
        parameters of ``exact`` are substituted by sympy first (``floor(n/b)`` is then exact)."""
        if self.reduced is not None and not sides:
            return ev(_fix(self.reduced, exact), env)
        for_sides = self.raw if sides else self.sides
        self.need_sides(for_sides)
        L, R = (ev(_fix(e, exact), env) for e in for_sides)
        if self.factor is not None:
            if not (L.a > 0 and R.a > 0):
                raise _Undecided("a side of a factor claim reaching 0")
            lr, lf = iv.log(L) - iv.log(R), iv.log(_num(self.factor))
            (a1, b1), (a2, b2) = (lf - lr)._mpi_, (lr + lf)._mpi_
            return _mk(min(a1, a2, key=_KEY), min(b1, b2, key=_KEY))
        return R - L if self.rel in ("<", "<=") else L - R

    def decided(self, m: Any) -> tuple[bool, bool]:
        """(certainly holds, certainly fails) from a margin interval."""
        if self.strict:
            return bool(m.a > 0), bool(m.b <= 0)
        return bool(m.a >= 0), bool(m.b < 0)

    def verify_reduction(self, env: dict[str, Any]) -> None:
        """margin = (product of factors) * reduced, each factor positive (sympy)."""
        if self.reduced is None:
            return
        self.need_sides(self.sides)
        le, re_ = self.sides
        d = re_ - le if self.rel in ("<", "<=") else le - re_
        for f in self.factors:
            if f.is_positive is not True:
                raise Refused(f"the factor {f} is not positive by its symbols' assumptions")
        prod = sp.Mul(*self.factors) * self.reduced
        if sp.factor_terms(d) == prod or sp.expand(d - prod) == 0 or sp.simplify(d - prod) == 0:
            return
        try:  # a wrong factorisation shows at a point of the region; an unproved one is not checkable
            with _workprec(128):
                gap = ev(d - prod, env)
        except (_Undecided, NotCheckable, ZeroDivisionError):
            gap = None
        if gap is not None and (gap.a > 0 or gap.b < 0):
            raise Refused(f"margin != factors * reduced (their difference is in {gap} at a point of the region)")
        raise NotCheckable("sympy does not prove margin = factors * reduced")

    def symbols(self) -> dict[str, Any]:
        exprs = [e for e in (*self.sides, *self.raw, self.reduced, *self.conditions) if e is not None]
        return {s.name: s for e in exprs for s in e.free_symbols}


@functools.lru_cache(maxsize=4096)
def _fix(e: Any, exact: tuple[tuple[str, Fraction], ...]) -> Any:
    """``e`` with the exact values substituted (sympy evaluates what becomes exact)."""
    vals = dict(exact)
    return e.xreplace({s: sp.Rational(vals[s.name].numerator, vals[s.name].denominator)
                       for s in e.free_symbols if s.name in vals})


def _exact(box: dict[str, Range]) -> tuple[tuple[str, Fraction], ...]:
    return tuple(sorted((k, Fraction(a)) for k, (a, _ao, z, _zo) in box.items() if a == z))


def _check_assumptions(c: Cert, values: dict[str, list[Fraction]]) -> None:
    """Every value a symbol takes in the region agrees with its assumptions (positive, integer...)."""
    for name, s in c.symbols().items():
        for v in values.get(name, ()):
            for word, ok in (("positive", v > 0), ("nonnegative", v >= 0), ("integer", v.denominator == 1)):
                if getattr(s, f"is_{word}") and not ok:
                    raise Refused(f"{name} = {v} contradicts its assumption {word}")


# ------------------------------------------------------------------------------------------ points
def _point_env(point: dict[str, str]) -> dict[str, Fraction]:
    try:
        return {k: Fraction(v) for k, v in point.items()}
    except (ValueError, ZeroDivisionError, TypeError):
        raise Refused(f"a point that is not exact rationals: {point}") from None


def decide_point(c: Cert, pt: dict[str, Fraction], sides: bool = False) -> tuple[bool, bool, str]:
    """(holds, fails, margin as text) at an exact point: exactly where sympy gives a rational, else intervals."""
    exact = None
    if c.factor is None:
        subs = {s: sp.Rational(pt[s.name].numerator, pt[s.name].denominator)
                for e in (c.raw if sides else [c.reduced, *c.sides]) if e is not None
                for s in e.free_symbols if s.name in pt}
        expr = c.reduced if c.reduced is not None and not sides else None
        if expr is None and all(e is not None for e in (c.raw if sides else c.sides)):
            le, re_ = c.raw if sides else c.sides
            expr = re_ - le if c.rel in ("<", "<=") else le - re_
        v = None if expr is None else expr.xreplace(subs)
        exact = v if v is not None and v.is_Rational else None
    if exact is not None:
        return (exact > 0 if c.strict else exact >= 0), (exact <= 0 if c.strict else exact < 0), str(exact)
    m = None
    for prec in PRECS:
        with _workprec(prec):
            try:
                m = c.margin({}, sides, tuple(sorted(pt.items())))
            except (_Undecided, ZeroDivisionError):
                continue
            ok, bad = c.decided(m)
            if ok or bad:
                return ok, bad, str(m)
    return False, False, f"{m} (contains 0 at {PRECS[-1]} bits)"


def _in_region(c: Cert, pt: dict[str, Fraction]) -> bool | None:
    """False when a condition certainly fails at the point, True when every one certainly holds (exactly where
    sympy evaluates the condition to true or false on rationals, else on intervals at rising precision)."""
    subs = {s: sp.Rational(pt[s.name].numerator, pt[s.name].denominator) for s in c.symbols().values() if s.name in pt}
    ts = []
    for cond in (q for q in c.conditions if {s.name for s in q.free_symbols} <= set(pt)):
        d = (cond.lhs - cond.rhs).xreplace(subs) if isinstance(cond, sp.core.relational.Relational) else None
        t: bool | None = None
        if d is not None and d.is_Rational:  # exact
            t = {"==": d == 0, "!=": d != 0, "<": d < 0, "<=": d <= 0, ">": d > 0, ">=": d >= 0}[cond.rel_op]
        for prec in PRECS if t is None else ():
            with _workprec(prec):
                t = truth(cond, {k: _num(x) for k, x in pt.items()})
            if t is not None:
                break
        ts.append(t)
    return False if False in ts else (True if all(ts) else None)


# ------------------------------------------------------------------------------------------ boxes
Range = tuple[Any, bool, Any, bool]  # lo, lo open, hi, hi open


def _box(rec: dict[str, Any], ints: set[str]) -> dict[str, Range]:
    out = {}
    for k, (lo, hi) in rec["box"].items():
        a, z = (int(lo), int(hi)) if k in ints else (Fraction(lo), Fraction(hi))
        op = rec.get("open", {}).get(k)
        if a > z or (op is not None and k in ints):
            raise Refused(f"a box with an empty or open integer range: {k} in [{lo}, {hi}]")
        out[k] = (a, op == "lo", z, op == "hi")
    return out


def _contains(leaf: dict[str, Range], box: dict[str, Range]) -> bool:
    for k, (a, ao, z, zo) in box.items():
        la, lao, lz, lzo = leaf[k]
        if not ((la < a or (la == a and (not lao or ao))) and (lz > z or (lz == z and (not lzo or zo)))):
            return False
    return True


def _meets(leaf: dict[str, Range], box: dict[str, Range]) -> bool:
    for k, (a, ao, z, zo) in box.items():
        la, lao, lz, lzo = leaf[k]
        lo, lo_open = max((a, ao), (la, lao), key=lambda t: (t[0], t[1]))
        hi, hi_open = min((z, -zo), (lz, -lzo), key=lambda t: (t[0], t[1]))
        if lo > hi or (lo == hi and (lo_open or hi_open)):
            return False
    return True


def _halves(box: dict[str, Range], k: str, cut: Any, is_int: bool) -> Iterator[dict[str, Range]]:
    a, ao, z, zo = box[k]
    yield {**box, k: (a, ao, cut, False)}
    yield {**box, k: (cut + 1, False, z, zo) if is_int else (cut, True, z, zo)}


def _cut(box: dict[str, Range], leaves: list[dict[str, Range]], ints: set[str]) -> tuple[str, Any] | None:
    """A cut of the box along a leaf's end, one that no leaf straddles if there is one (a guillotine cut)."""
    fallback = None
    for k, (a, _ao, z, _zo) in box.items():
        if a == z:
            continue
        i = k in ints
        ends = {e for lf in leaves for e in ((lf[k][0] - 1, lf[k][2]) if i else (lf[k][0], lf[k][2]))
                if a <= e < z and (i or a < e)}
        for e in sorted(ends, key=lambda e: abs(2 * Fraction(e) - a - z)):
            if not any(lf[k][0] <= e < lf[k][2] if i else lf[k][0] < e < lf[k][2] for lf in leaves):
                return k, e
            fallback = fallback or (k, e)
    return fallback


def uncovered(roots: list[dict[str, Range]], leaves: list[dict[str, Range]], ints: set[str]) -> Any:
    """A part of a root box that no leaf covers, or None (exact: every point of every root is covered)."""
    stack = [(r, leaves) for r in roots]
    while stack:
        box, ls = stack.pop()
        ls = [lf for lf in ls if _meets(lf, box)]
        if any(_contains(lf, box) for lf in ls):
            continue
        cut = _cut(box, ls, ints)
        if cut is None:
            return box
        stack += [(h, ls) for h in _halves(box, cut[0], cut[1], cut[0] in ints)]
    return None


def _env(box: dict[str, Range]) -> dict[str, Any]:
    return {k: _num(a) if a == z else _hull(_num(a), _num(z)) for k, (a, _ao, z, _zo) in box.items()}


def _bisect(box: dict[str, Range], ints: set[str], names: set[str]) -> list[dict[str, Range]]:
    wide = [(float(z - a) / max(abs(float(a)), abs(float(z)), 1e-300), k) for k, (a, _, z, _) in box.items()
            if a != z and k in names]
    if not wide:
        return []
    k = max(wide)[1]
    a, z = box[k][0], box[k][2]
    return list(_halves(box, k, (a + z) // 2 if k in ints else (a + z) / 2, k in ints))


def _on_pieces(box: dict[str, Range], ints: set[str], prec: int, test: Callable[..., Any],
               names: set[str]) -> list[Any]:
    """``test(intervals, piece)`` on the box, bisecting (in ``names``) where it returns None (LEAF_BUDGET
    evaluations)."""
    todo, out, n = [box], [], 0
    while todo:
        b = todo.pop()
        n += 1
        if n > LEAF_BUDGET:
            raise Refused(f"the checker could not decide the box {_show(box)} in {LEAF_BUDGET} evaluations")
        with _workprec(prec + 4 * min(n, 16)):
            try:
                r = test(_env(b), b)
            except (_Undecided, ZeroDivisionError):
                r = None
        if r is None:
            halves = _bisect(b, ints, names)
            if not halves:
                raise Refused(f"the checker could not decide the box {_show(box)}")
            todo += halves
        else:
            out.append(r)
    return out


def _show(box: dict[str, Range]) -> str:
    return ", ".join(f"{k} = {a}" if a == z else f"{k} in {'(' if ao else '['}{a}, {z}{')' if zo else ']'}"
                     for k, (a, ao, z, zo) in box.items())


_NONSMOOTH = (sp.floor, sp.ceiling, sp.Mod, sp.Abs, sp.Max, sp.Min, sp.binomial, sp.factorial)


@functools.lru_cache(maxsize=512)
def _diff(f: Any, p: Any) -> Any:
    return sp.diff(f, p)


def _lower(f: Any, env: dict[str, Any], box: dict[str, Range]) -> Any | None:
    """A lower end of ``f`` on the box better than the naive one where ``f`` is smooth in the varying
    parameters (its Piecewise branches decided on the box, none inside floor, Mod, ... or a sum's limits): the
    monotone parameters at their minimising ends, and the mean-value form about the box's centre (sympy's
    derivatives on intervals). None where neither applies."""
    try:
        f = f.replace(lambda x: isinstance(x, sp.Piecewise), lambda x: _branch(x, env))
    except (_Undecided, NotCheckable, ZeroDivisionError):
        return None
    syms = {s.name: s for s in f.free_symbols if s.name in box and box[s.name][0] != box[s.name][2]}
    for node in sp.preorder_traversal(f):
        lim = [b for lm in node.limits for b in lm[1:]] if isinstance(node, sp.Sum) else []
        if (isinstance(node, _NONSMOOTH) and node.free_symbols & set(syms.values())) or \
                any(sp.sympify(b).free_symbols & set(syms.values()) for b in lim) or isinstance(node, sp.Piecewise):
            return None
    grads = {p: ev(_diff(f, s), env) for p, s in syms.items()}
    ends = dict(env)
    mids = dict(env)
    for p, g in grads.items():
        a, _, z, _ = box[p]
        if g.a >= 0 or g.b <= 0:
            ends[p] = _num(a if g.a >= 0 else z)
        mids[p] = _num((Fraction(a) + Fraction(z)) / 2)
    mvf = ev(f, mids) + sum((g * (env[p] - mids[p]) for p, g in grads.items()), iv.mpf(0))
    return max(ev(f, ends)._mpi_[0], mvf._mpi_[0], key=_KEY)


def _branch(pw: Any, env: dict[str, Any]) -> Any:
    for expr, cond in pw.args:
        t = truth(cond, env)
        if t is None:
            raise _Undecided("an undecided branch")
        if t:
            return expr
    raise _Undecided("no branch")


def _holds_leaf(c: Cert, box: dict[str, Range], rec: dict[str, Any], ints: set[str]) -> None:
    lo, hi = (Fraction(x) for x in rec["margin"])
    if not (lo > 0 if c.strict else lo >= 0) or lo > hi:
        raise Refused(f"the recorded margin {rec.get('margin')} does not decide the box {_show(box)}")

    def test(env: dict[str, Any], piece: dict[str, Range]) -> Any:
        m = c.margin(env, exact=_exact(piece))
        if c.decided(m)[0]:
            return m
        low = _lower(_fix(c.reduced, _exact(piece)), env, piece) if c.reduced is not None and m.b >= 0 else None
        return m if low is not None and c.decided(_mk(max(low, m._mpi_[0], key=_KEY), m._mpi_[1]))[0] else None

    exprs = [c.reduced] if c.reduced is not None else c.sides
    names = {s.name for e in exprs if e is not None for s in e.free_symbols}
    h = _hull(*_on_pieces(box, ints, max(int(rec.get("prec", 64)), 64), test, names))
    if h > _num(hi) or h < _num(lo):  # certainly above, or below, the recorded enclosure
        raise Refused(f"the recorded margin {rec['margin']} and the checker's {h} are disjoint on {_show(box)}")


def _outside_leaf(c: Cert, box: dict[str, Range], rec: dict[str, Any], ints: set[str]) -> None:
    names = set(box)
    conds = [q for q in c.conditions if {s.name for s in q.free_symbols} <= names]
    if rec.get("open"):
        (p, end), = rec["open"].items()
        a, _ao, z, _zo = box[p]
        cut = a if end == "lo" else z
        for q in conds:  # p <= g / p < g with the cut part above g (open at "lo"), or p >= g / p > g below it
            for lhs, rhs, op in ((q.lhs, q.rhs, q.rel_op), (q.rhs, q.lhs, q.rel_op[::-1].replace("=<", "<=")
                                                             .replace("=>", ">="))):
                if lhs != sp.Symbol(p, **lhs.assumptions0) or p in {s.name for s in rhs.free_symbols}:
                    continue
                upper = op in ("<", "<=")
                if upper != (end == "lo"):
                    continue
                env = _env({k: v for k, v in box.items() if k != p})
                with _workprec(128):
                    g = ev(rhs, env)
                if (g.b <= _num(cut).a) if upper else (g.a >= _num(cut).b):
                    return
        raise Refused(f"the cut part {_show(box)} is not shown outside the region")
    names = {s.name for q in conds for s in q.free_symbols}
    _on_pieces(box, ints, 64, lambda env, _b: True if any(truth(q, env) is False for q in conds) else None, names)


def _roots(region: dict[str, Any]) -> tuple[list[dict[str, Range]], set[str], dict[str, list[Fraction]]]:
    ints = {k for k, p in region["params"].items() if p.get("integer")}
    roots: list[dict[str, Range]] = [{}]
    values: dict[str, list[Fraction]] = {}
    for k, p in region["params"].items():
        conv = int if k in ints else Fraction
        opts = [(conv(v), conv(v)) for v in p["choices"]] if "choices" in p else [tuple(conv(v) for v in p["range"])]
        values[k] = [Fraction(v) for o in opts for v in o]
        roots = [{**r, k: (a, False, z, False)} for r in roots for a, z in opts]
    return roots, ints, values


def _check_boxes(c: Cert) -> None:
    roots, ints, values = _roots(c.d["region"])
    _check_assumptions(c, values)
    c.verify_reduction(_env(roots[0]))
    if c.reduced is not None and {s.name for s in c.reduced.free_symbols} & set(c.d.get("free", [])):
        raise Refused("a parameter declared free appears in the reduced margin")
    leaves = []
    for rec in c.d["boxes"]:
        box = _box(rec, ints)
        if rec["decision"] == "holds":
            _holds_leaf(c, box, rec, ints)
        elif rec["decision"] == "outside":
            _outside_leaf(c, box, rec, ints)
        else:
            raise Refused(f"unknown decision {rec['decision']!r}")
        leaves.append(box)
    gap = uncovered(roots, leaves, ints)
    if gap is not None:
        raise Refused(f"the boxes do not cover the region: nothing covers {_show(gap)}")


def _check_points(c: Cert) -> None:
    region = c.d["region"]["params"]
    pts: list[dict[str, Fraction]] = [{}]
    for k, p in region.items():
        pts = [{**q, k: Fraction(v)} for q in pts for v in (p["choices"] if "choices" in p else p["range"][:1])]
    _check_assumptions(c, {k: [q[k] for q in pts] for k in region})
    recs = {tuple(sorted(_point_env(r["point"]).items())): r for r in c.d["points"]}
    c.verify_reduction({k: _num(v) for k, v in pts[0].items()})
    for pt in pts:
        r = recs.get(tuple(sorted(pt.items())))
        if r is None:
            raise Refused(f"the point {pt} of the finite region is not in the certificate")
        if r["decision"] == "outside":
            if _in_region(c, pt) is not False:
                raise Refused(f"the point {pt} is not shown outside the region")
            continue
        ok, _bad, m = decide_point(c, pt)
        if not ok:
            raise Refused(f"the margin at {pt} is {m}: the claim is not shown to hold there")


def _check_counterexample(c: Cert) -> None:
    pt = _point_env(c.d["counterexample"]["point"])
    _check_assumptions(c, {k: [v] for k, v in pt.items()})
    c.need_sides(c.raw)
    missing = {s.name for e in c.raw for s in e.free_symbols} - set(pt)
    if missing:
        raise NotCheckable(f"the sides depend on {', '.join(sorted(missing))}, not given at the point")
    if _in_region(c, pt) is not True:
        raise Refused(f"the counterexample {c.d['counterexample']['point']} is not shown to be in the region")
    _ok, bad, m = decide_point(c, pt, sides=True)
    if not bad:
        raise Refused(f"the margin at the counterexample is {m}: the claim is not shown to fail there")


def check_certificate(d: dict[str, Any]) -> None:
    """Re-verify one certificate (a parsed JSON document); raises Refused or NotCheckable."""
    c = Cert(d)
    verdict = d.get("verdict")
    if verdict == "falsified" and "counterexample" in d:
        return _check_counterexample(c)
    if verdict == "certified" and "boxes" in d:
        return _check_boxes(c)
    if verdict == "exhaustive" and "points" in d:
        return _check_points(c)
    raise Refused(f"a {verdict!r} certificate without its boxes, points or counterexample")


def recheck(folder: str | Path) -> list[dict[str, Any]]:
    """Check every ``*.json`` certificate of ``folder``: one row each (file, claim, verdict, result, reason,
    seconds), in file name order."""
    rows = []
    for path in sorted(Path(folder).glob("*.json")):
        t0, d = time.perf_counter(), {}
        try:
            d = json.loads(path.read_text(encoding="utf-8"))
            check_certificate(d)
            result, reason = RESULTS[0], ""
        except NotCheckable as exc:
            result, reason = RESULTS[1], str(exc)
        except (Refused, ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
            result, reason = RESULTS[2], str(exc) or type(exc).__name__
        rows.append({"file": path.name, "claim": d.get("claim", "?") if isinstance(d, dict) else "?",
                     "verdict": d.get("verdict", "?") if isinstance(d, dict) else "?", "result": result,
                     "reason": reason, "seconds": round(time.perf_counter() - t0, 3)})
    return rows
