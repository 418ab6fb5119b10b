"""A claim's sides on balls (python-flint ``arb``): evaluation on parameter balls and enclosures at exact points.

A side (:class:`dptheory.core.claims.Quantity`, data only) is one of five variants; each has ONE evaluation
entry here, :func:`evaluate` (``functools.singledispatch`` on the variant), for the four backends ``"mp"``
(mpmath at an exact point), ``"np"`` (float64 at a point), ``"np_batch"`` (float64 on whole columns) and
``"arb"`` (balls); :func:`side_mp`, :func:`side_np`, :func:`side_np_batch` and :func:`side_ball` call it.

On balls: a formula (and a constant) through its compiled arb kernel; a combination of two parts
(:func:`dptheory.core.claims.combine`) from its parts' balls; a theorem reference through the theorem's
compiled statement or its declared ``arb`` override (derived parameters compiled and, when exact integers,
passed as integers); a limit only where its declared existence condition is decided on the balls (+infinity where
it certainly fails, its closed form ``Limit.expr`` where it certainly holds); a custom side through its declared
ball evaluator (``arb``, or a ``value_arb`` method, e.g.
:class:`dptheory.papers.yeshokri22.claims_epsdelta.OrderInfimum`). Every other side raises
:class:`~dptheory.core.claims.NoBallEvaluator` with the reason (:meth:`~dptheory.core.claims.Quantity.ball_reason`).

Two enclosures of a side at an exact point are used: :func:`side_enclosure` (the ball evaluation above at a
given working precision; the point decision, :mod:`dptheory.verify.points`) and :func:`certified_enclosure`
(a theorem's certified value to ``dps`` digits, :meth:`dptheory.core.theorem.Theorem.evaluate` with
``certify=True``, else the ball evaluation; the counterexamples of the search, :mod:`dptheory.verify.search`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

import mpmath
import sympy as sp

from dptheory.core.claims import (
    Claim,
    Combination,
    Constant,
    Custom,
    Finding,
    Formula,
    NoBallEvaluator,
    Quantity,
    TheoremSide,
)
from dptheory.core.compile import informative_ball
from dptheory.core.conditions import Status
from dptheory.core.errors import DPTheoryError

__all__ = [
    "BACKENDS",
    "arb_kernel",
    "ball_of",
    "certified_enclosure",
    "mpf_to_arb",
    "rel_holds_on_ball",
    "side_ball",
    "side_ball_at",
    "side_enclosure",
    "side_mp",
    "side_np",
    "side_np_batch",
]

#: the backends of :func:`evaluate` and what each takes after the side
BACKENDS = {
    "mp": "(exact point, dps) -> mpf",
    "np": "(exact point) -> float | None",
    "np_batch": "(columns) -> array | None",
    "arb": "(balls) -> ball",
}


#: the arb kernels of compiled expressions, by object (kept with the object, so an id is never reused)
_ARB_KERNELS: dict[int, tuple[Any, Callable[[Mapping[str, Any]], Any]]] = {}


def arb_kernel(comp: Any) -> Callable[[Mapping[str, Any]], Any]:
    """The arb kernel of a :class:`~dptheory.core.compile.Compiled` (``comp.kernel("arb")``, built on first use
    and then held here): calling it is ``comp.arb``, without going through the wrapper each time (the branch
    and bound evaluates the same margin and conditions on every box)."""
    hit = _ARB_KERNELS.get(id(comp))
    if hit is None or hit[0] is not comp:
        hit = (comp, comp.kernel("arb"))
        _ARB_KERNELS[id(comp)] = hit
    return hit[1]


def side_ball(q: Quantity, balls: Mapping[str, Any]) -> Any:
    """A ball containing the side's value at every point of the parameter balls (exact integers may be given
    as ``int``), at the current ``flint.ctx.prec`` (see the module docstring for each kind of side).

    Raises:
        NoBallEvaluator: the side has no rigorous evaluator (the message says why).
        dptheory.core.compile.Undecided: a floor or branch cannot be decided on these balls.
    """
    return evaluate(q, "arb", balls)


@functools.lru_cache(maxsize=256)
def _compiled_expr(e: sp.Expr) -> Any:
    """A side's sympy expression (a limit's closed form, its existence condition's difference) compiled in its free
    symbols, integers where the symbol says so; cached per expression, as the branch and bound and the search
    evaluate the same limit at every box and batch."""
    from dptheory.core.compile import compile_expr

    syms = {s.name: s for s in sorted(e.free_symbols, key=lambda s: s.name)}
    return compile_expr(e, syms, integers=frozenset(n for n, s in syms.items() if s.is_integer))


@functools.singledispatch
def evaluate(side: Quantity, backend: str, *args: Any) -> Any:
    """The side with one backend (:data:`BACKENDS`): ``evaluate(side, "mp", exact, dps)``, ``evaluate(side,
    "np", exact)``, ``evaluate(side, "np_batch", columns)`` or ``evaluate(side, "arb", balls)``; one entry per
    variant of :class:`~dptheory.core.claims.Quantity` (registered below)."""
    raise TypeError(f"{side!r} is no side variant (TheoremSide, Formula, Combination, Constant, Custom)")


def _backend(side: Quantity, backend: str) -> None:
    if backend not in BACKENDS:
        raise ValueError(f"{side.label}: unknown backend {backend!r} (backends: {', '.join(BACKENDS)})")


def _rounded_mp(f: Callable[[int], Any], dps: int) -> mpmath.mpf:
    """``f(dps + 10)`` computed at ``dps + 10`` digits, rounded to ``dps``."""
    with mpmath.workdps(dps + 10):
        val = mpmath.mpf(f(dps + 10))
    with mpmath.workdps(dps):
        return +val


@evaluate.register
def _(side: Formula, backend: str, *args: Any) -> Any:
    _backend(side, backend)
    comp = side.compiled
    if backend == "arb":
        (balls,) = args
        return arb_kernel(comp)({k: balls[k] for k in comp.params})
    if backend == "mp":
        exact, dps = args
        return _compiled_mp(comp, exact, dps)
    if backend == "np":
        import numpy as np

        (exact,) = args
        with np.errstate(all="ignore"):
            v = comp.np({k: float(exact[k]) for k in comp.params})
        return float(v)
    return None


@evaluate.register
def _(side: Constant, backend: str, *args: Any) -> Any:
    _backend(side, backend)
    if backend == "arb":
        (balls,) = args
        comp = side.compiled
        return arb_kernel(comp)({k: balls[k] for k in comp.params})
    if backend == "mp":
        _exact, dps = args
        return _rounded_mp(lambda _d: side.value, dps)
    if backend == "np":
        return float(side.value)
    return None


@evaluate.register
def _(side: Combination, backend: str, *args: Any) -> Any:
    _backend(side, backend)
    a, b = side.parts
    if backend == "arb":
        (balls,) = args
        return side.op.sym(_as_arb(evaluate(a, "arb", balls)), _as_arb(evaluate(b, "arb", balls)))
    if backend == "mp":
        exact, dps = args
        return _rounded_mp(lambda d: side.op.sym(evaluate(a, "mp", exact, d), evaluate(b, "mp", exact, d)), dps)
    if backend == "np":
        import numpy as np

        (exact,) = args
        x, y = evaluate(a, "np", exact), evaluate(b, "np", exact)
        if x is None or y is None:
            return None
        with np.errstate(all="ignore"):
            return float(side.op.sym(np.float64(x), np.float64(y)))
    return None


@evaluate.register
def _(side: Custom, backend: str, *args: Any) -> Any:
    _backend(side, backend)
    if backend == "arb":
        (balls,) = args
        custom = side.ball_evaluator()
        if custom is None:
            raise NoBallEvaluator(side.ball_reason() or side.label)
        return custom(balls)
    if backend == "mp":
        exact, dps = args
        mp = side.mp
        assert mp is not None  # a custom side declares its mp function (__post_init__)
        return _rounded_mp(lambda d: mp(exact, d), dps)
    if backend == "np":
        (exact,) = args
        if side.np is None:
            return None
        v = side.np(exact)
        return None if v is None else float(v)
    return None


@evaluate.register
def _(side: TheoremSide, backend: str, *args: Any) -> Any:
    _backend(side, backend)
    if backend == "arb":
        return _theorem_ball(side, args[0])
    if backend == "mp":
        return _theorem_mp(side, *args)
    if backend == "np":
        (exact,) = args
        t = side.thm()
        if side.limit is not None:
            return None
        pt = side.point(exact)
        if t.kernels(side.term).np is None:
            return None
        return float(t.evaluate_np({k: float(v) for k, v in pt.items()}, term=side.term))
    return _theorem_np_batch(side, args[0])


def _theorem_ball(q: TheoremSide, balls: Mapping[str, Any]) -> Any:
    import flint

    t = q.thm()
    args: dict[str, Any] = {}
    sets = q.compiled_set
    for p in t.params:
        if p in q.set:
            comp = sets[p]
            args[p] = _int_if_exact(arb_kernel(comp)({k: balls[k] for k in comp.params}))
        elif p == q.limit:
            args[p] = 1
        else:
            args[p] = balls[p]
    if q.limit is not None:
        return _limit_ball(q, t, args)
    kern = t.kernels(q.term).arb
    if kern is None:
        raise NoBallEvaluator(q.ball_reason() or q.label)
    from dptheory.core.evaluator import ArbEvaluator

    if isinstance(kern, ArbEvaluator):  # hand-written overrides take balls only (exact integers as exact balls)
        args = {k: flint.arb(v) if isinstance(v, int) else v for k, v in args.items()}
    return kern.arb(args)


def _limit_ball(q: TheoremSide, t: Any, args: Mapping[str, Any]) -> Any:
    """+infinity where the limit's declared existence condition certainly fails on the balls; where it certainly
    holds, the limit's closed form (``Limit.expr``, compiled) on the balls; else no ball."""
    import flint

    lim = t.limits[q.limit]
    if lim.exists_when is None:  # always finite: its closed form, unless a hand-written kernel overrides it
        if lim.expr is None or lim.override:
            raise NoBallEvaluator(q.ball_reason() or q.label)
        f = _compiled_expr(lim.expr)
        return f.arb({k: args[k] for k in f.params})

    rel = lim.exists_when.relation
    g = _compiled_expr(rel.lhs - rel.rhs)
    d = g.arb({k: args[k] for k in g.params})
    exists = rel_holds_on_ball(rel, d)
    if exists is False:
        return flint.arb("inf")
    if exists is True and lim.expr is not None:
        f = _compiled_expr(lim.expr)
        return f.arb({k: args[k] for k in f.params})
    raise NoBallEvaluator(f"{q.label}: the limit of {t.key} is finite here and has no ball evaluator")


def side_ball_at(q: Quantity, point: Mapping[str, Any]) -> Any:
    """A ball containing the side's exact value at ``point`` (exact values: int, sympy Rational, Fraction, or
    balls), at the current ``flint.ctx.prec``; see :func:`side_ball`."""
    return side_ball(q, {k: ball_of(v) for k, v in point.items()})


def ball_of(v: Any) -> Any:
    """An exact value as a ball (ints stay ints: the kernels treat them as exact integers)."""
    from fractions import Fraction

    import flint

    if isinstance(v, bool):
        raise NoBallEvaluator(f"{v!r} is not a number")
    if isinstance(v, (int, flint.arb)):
        return v
    if isinstance(v, sp.Integer):
        return int(v)
    if isinstance(v, sp.Rational):
        return flint.arb(int(v.p)) / int(v.q)
    if isinstance(v, Fraction):
        return int(v.numerator) if v.denominator == 1 else flint.arb(v.numerator) / v.denominator
    raise NoBallEvaluator(f"{v!r}: a ball needs an exact value (int, Rational, Fraction) or a ball")


def _as_arb(x: Any) -> Any:
    import flint

    return x if isinstance(x, flint.arb) else flint.arb(x)


def _int_if_exact(x: Any) -> Any:
    if x.is_exact() and x.is_integer():
        return int(x.unique_fmpz())
    return x


def rel_holds_on_ball(rel: sp.Rel, d: Any) -> bool | None:
    """Whether ``lhs REL rhs`` holds given a ball ``d`` containing lhs - rhs (None: undecided)."""
    if isinstance(rel, sp.StrictLessThan):
        return True if d < 0 else False if d >= 0 else None
    if isinstance(rel, sp.LessThan):
        return True if d <= 0 else False if d > 0 else None
    if isinstance(rel, sp.StrictGreaterThan):
        return True if d > 0 else False if d <= 0 else None
    if isinstance(rel, sp.GreaterThan):
        return True if d >= 0 else False if d < 0 else None
    return None


def side_enclosure(q: Quantity, exact: Mapping[str, sp.Rational], prec: int) -> tuple[Any | None, str]:
    """The ball of :func:`side_ball_at` at ``prec`` bits, or (None, why not)."""
    import flint

    from dptheory.core.compile import Undecided

    try:
        with flint.ctx.workprec(prec):
            return side_ball_at(q, exact), ""
    except NoBallEvaluator as exc:
        return None, str(exc)
    except (Undecided, ZeroDivisionError, ValueError) as exc:
        return None, f"{q.label}: {exc}"
    except DPTheoryError as exc:
        return None, f"{q.label}: {str(exc).splitlines()[0]}"


def mpf_to_arb(x: mpmath.mpf) -> Any:
    """An mpf (binary, or an infinity) as an exact ball."""
    import flint

    if mpmath.isinf(x):
        return flint.arb.pos_inf() if x > 0 else flint.arb.neg_inf()
    man, exp = x.man_exp
    with flint.ctx.workprec(max(64, int(man).bit_length() + 8)):
        return flint.arb(int(man)) * flint.arb(2) ** int(exp)


def _enclosure_to_arb(enc: Any) -> Any:
    lo, hi = mpf_to_arb(enc.lo), mpf_to_arb(enc.hi)
    if mpmath.isinf(enc.lo) and enc.lo == enc.hi:
        return lo
    return lo.union(hi)


def certified_enclosure(q: Quantity, exact: Mapping[str, sp.Rational], dps: int) -> tuple[Any | None, str]:
    """An arb ball containing the side's exact value (a theorem's certified value to ``dps`` digits, else
    :func:`side_ball_at`), or (None, why not); a nan ball or one of infinite radius
    (python-flint's "no enclosure", e.g. a division by a ball containing 0) is no enclosure."""
    ball, why = _enclose_side_raw(q, exact, dps)
    if ball is not None and not informative_ball(ball):
        return None, f"{q.label}: the arb ball {ball} encloses nothing (a singularity or a ball reaching 0)"
    return ball, why


def _enclose_side_raw(q: Quantity, exact: Mapping[str, sp.Rational], dps: int) -> tuple[Any | None, str]:
    import flint

    if isinstance(q, TheoremSide):
        t = q.thm()
        pt = q.point(exact)
        if q.limit is not None:
            lim = t.limits[q.limit]
            if lim.exists_when is not None:
                subs = {s: pt[s.name] for s in lim.exists_when.symbols}
                if lim.exists_when.evaluate(subs).status is Status.VIOLATED:
                    return flint.arb.pos_inf(), ""
            try:  # the closed form on exact balls (where it is the limit's statement)
                with flint.ctx.workprec(max(64, int(dps * 3.33) + 32)):
                    return _limit_ball(q, t, {k: ball_of(v) for k, v in pt.items()}), ""
            except (NoBallEvaluator, DPTheoryError, ZeroDivisionError, ValueError):
                return None, f"the limit of {t.key} as {q.limit} -> oo has no rigorous evaluator"
        try:
            bv = t.evaluate(pt, dps=dps, term=q.term, certify=True)
        except DPTheoryError as exc:
            return None, str(exc).splitlines()[0]
        return _enclosure_to_arb(bv.enclosure), ""
    try:
        with flint.ctx.workprec(int(dps * 3.33) + 64):
            return side_ball_at(q, exact), ""
    except DPTheoryError as exc:
        return None, str(exc).splitlines()[0]


# ============================================================================ mpmath and float64


def side_mp(q: Quantity, exact: Mapping[str, sp.Rational], dps: int) -> mpmath.mpf:
    """The side's value at an exact point with mpmath at ``dps`` digits (computed at ``dps + 10``, rounded):
    a theorem reference through :meth:`~dptheory.core.theorem.Theorem.evaluate` (a limit through its mpmath
    kernel, the theorem's conditions checked), a combination from its parts, a custom side through its
    ``mp`` function, a formula through its compiled mpmath kernel."""
    return evaluate(q, "mp", exact, dps)


def side_at_pin(claim: Claim, which: str, i: int = 0, dps: int = 30, **changes: Any) -> mpmath.mpf:
    """A side (``"lhs"``/``"rhs"``) of ``claim`` at its ``i``-th pinned counterexample (``changes`` replace some
    of its values), at ``dps`` digits: what a :class:`~dptheory.core.claims.Finding` template quotes."""
    return side_mp(getattr(claim, which), Finding.pin(claim, i, **changes), dps)


def _theorem_mp(q: TheoremSide, exact: Mapping[str, sp.Rational], dps: int) -> mpmath.mpf:
    t = q.thm()
    pt = q.point(exact)
    if q.limit is not None:
        lim = t.limits[q.limit]
        t.check(pt, raise_on_violation=True)
        return _rounded_mp(lambda _d: lim.mp(t.kernel_args(pt)), dps)
    return t.evaluate(pt, dps=dps, term=q.term).value


def _compiled_mp(comp: Any, exact: Mapping[str, sp.Rational], dps: int) -> mpmath.mpf:
    from dptheory.core.notation import rational_to_mpf

    with mpmath.workdps(dps + 10):
        args = {k: (int(exact[k]) if k in comp.integers else rational_to_mpf(exact[k])) for k in comp.params}
        val = mpmath.mpf(comp.mp(args))
    with mpmath.workdps(dps):
        return +val


def side_np(q: Quantity, exact: Mapping[str, sp.Rational]) -> float | None:
    """The side's float64 value at a point, or None where it has no float64 path."""
    return evaluate(q, "np", exact)


def side_np_batch(q: Quantity, arrays: Mapping[str, Any]) -> Any | None:
    """float64 values on a whole grid at once (theorem references; a limit only where it is its closed form);
    None otherwise."""
    return evaluate(q, "np_batch", arrays)


def _limit_np_batch(q: TheoremSide, t: Any, arrays: Mapping[str, Any]) -> Any | None:
    """float64 values of a limit that is finite everywhere and is its closed form (the expression the side states,
    :meth:`~dptheory.core.claims.TheoremSide.expression`), compiled like a statement; None for any other limit."""
    import numpy as np

    e = q.expression()
    if e is None:
        return None
    f = _compiled_expr(e)
    if f.np is None:
        return None
    return np.asarray(f.np({k: np.asarray(arrays[k], dtype=np.float64) for k in f.params}), dtype=np.float64)


def _theorem_np_batch(q: TheoremSide, arrays: Mapping[str, Any]) -> Any | None:
    import numpy as np

    t = q.thm()
    if q.limit is not None:
        return _limit_np_batch(q, t, arrays)
    kern = t.kernels(q.term).np
    if kern is None:
        return None
    cols: dict[str, Any] = {}
    for p in t.params:
        if p in q.set:
            e = q.set[p]
            syms = sorted(e.free_symbols, key=lambda s: s.name)
            f = sp.lambdify(syms, e, modules="numpy")
            cols[p] = np.asarray(f(*(arrays[s.name] for s in syms)), dtype=np.float64)
        else:
            cols[p] = np.asarray(arrays[p], dtype=np.float64)
    return t.evaluate_np(cols, term=q.term)
