"""Evaluation of a :class:`~dptheory.core.theorem.Theorem`: parsing and exact condition checks, the kernels
(declared overrides or the compiled statement, :mod:`dptheory.core.compile`), the certified value (Ziv's loop
on the arb kernel) or the mpmath value checked at two precisions, and the vectorised float64 path.

A theorem is data; this module is what evaluates it. :class:`~dptheory.core.theorem.Theorem`'s methods
(``parse``, ``check``, ``kernels``, ``evaluate``, ``evaluate_np``, ...) are :class:`Evaluable`'s, which calls
this module's functions, and so are those of a theorem loaded from the statement cache
(:class:`dptheory.core.snapshot.CachedTheorem`). What this module reads of a theorem is its numeric face, the
same for both: ``key``, ``params``, ``notation`` (domains), ``citation``, ``domain_checks`` and
``condition_checks`` (its conditions compiled, :class:`~dptheory.core.conditions.CompiledCondition`),
``compiled`` and ``compiled_term(name)`` (the statement compiled), the declared overrides (``mp``, ``np``,
``arb``, the terms'), ``parse``. So this module imports neither sympy nor numpy: evaluating a cached theorem
loads neither (numpy only for the float64 path).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, TypeAlias

import mpmath

from dptheory.core.conditions import ConditionResult, Status
from dptheory.core.errors import (
    ConditionViolated,
    InvalidParameter,
    MissingParameter,
    NumericalFailure,
    ParameterOutOfRange,
    UnexpectedParameter,
)
from dptheory.core.notation import format_rational, parse_exact, parse_value, rational_to_mpf
from dptheory.core.validate import shown
from dptheory.core.values import BoundValue

if TYPE_CHECKING:
    import numpy as np
    import sympy as sp
    from numpy.typing import NDArray

    from dptheory.core.compile import ArbKernel, Compiled, Enclosure

__all__ = [
    "DEFAULT_DPS",
    "GUARD_DIGITS",
    "ArbEvaluator",
    "CompiledLimit",
    "Evaluable",
    "Kernels",
    "check",
    "check_exact",
    "check_np",
    "compiled",
    "compiled_term",
    "evaluate",
    "evaluate_exact",
    "evaluate_np",
    "get_term",
    "kernel_args",
    "kernels",
    "out_of_range",
    "parse",
    "raise_violation",
    "run_mp",
    "run_mp_once",
    "term_kernels",
]

KernelMP = Callable[[Mapping[str, Any]], Any]
KernelNP = Callable[[Mapping[str, Any]], Any]
KernelArb = Callable[[Mapping[str, Any]], Any]
FloatArray: TypeAlias = "NDArray[np.float64]"
BoolArray: TypeAlias = "NDArray[np.bool_]"

GUARD_DIGITS = 10
DEFAULT_DPS = 50

#: a :class:`dptheory.core.theorem.Theorem` (and its :class:`~dptheory.core.theorem.Term`), not imported here: the
#: theorem module imports this one (as :mod:`dptheory.core.symbolic` does)
Theorem: TypeAlias = Any
Term: TypeAlias = Any


class CompiledLimit:
    """The mpmath kernel of a :class:`Limit`, compiled from its ``expr`` on first use
    (:func:`dptheory.core.compile.compile_expr`, in the theorem's parameters other than the limit's)."""

    __slots__ = ("_compiled", "expr", "integers", "symbols")

    def __init__(self, expr: sp.Expr, symbols: Mapping[str, sp.Symbol], integers: frozenset[str]) -> None:
        self.expr = expr
        self.symbols = dict(symbols)
        self.integers = integers
        self._compiled: Compiled | None = None

    @property
    def compiled(self) -> Compiled:
        if self._compiled is None:
            from dptheory.core.compile import compile_expr

            self._compiled = compile_expr(self.expr, self.symbols, integers=self.integers)
        return self._compiled

    def __call__(self, args: Mapping[str, Any]) -> Any:
        return self.compiled.mp(args)


def parse(thm: Theorem, params: Mapping[str, Any], *, symbolic: bool = True) -> dict[str, Any]:
    """:meth:`Theorem.parse` (its docstring says what it does): sympy Rationals, or with ``symbolic=False``
    Fractions (the same numbers; a cached theorem's, which imports no sympy)."""
    unexpected = sorted(set(params) - set(thm.params))
    if unexpected:
        raise UnexpectedParameter(key=thm.key, unexpected=unexpected, expected=list(thm.params))
    missing = [p for p in thm.params if p not in params]
    if missing:
        raise MissingParameter(key=thm.key, missing=missing, expected=list(thm.params))
    cite = thm.citation.short()
    one = parse_value if symbolic else parse_exact
    return {p: one(params[p], key=thm.key, name=p, citation=cite) for p in thm.params}


def check(thm: Theorem, params: Mapping[str, Any], *, raise_on_violation: bool = False) -> tuple[ConditionResult, ...]:
    """:meth:`Theorem.check` (its docstring says what it does)."""
    exact = params if _all_rational(params, thm.params) else thm.parse(params)
    return check_exact(thm, exact, raise_on_violation=raise_on_violation, domain_only=False)


def check_exact(
    thm: Theorem, exact: Mapping[str, numbers.Rational], *, raise_on_violation: bool, domain_only: bool
) -> tuple[ConditionResult, ...]:
    """The status of the conditions at exact values (domain conditions first, then the theorem's; a violated
    domain condition always raises, a violated hypothesis with ``raise_on_violation``)."""
    results = [c.decide(exact) for c in thm.domain_checks]
    domain_bad = [r for r in results if r.status is Status.VIOLATED]
    if domain_bad:
        # the formula is undefined outside the domain: always an error
        raise_violation(thm, domain_bad[0], exact)
    if domain_only:
        return tuple(results)
    for c in thm.condition_checks:
        r = c.decide(exact)
        results.append(r)
        if raise_on_violation and r.status is Status.VIOLATED:
            raise_violation(thm, r, exact)
    return tuple(results)


def raise_violation(thm: Theorem, r: ConditionResult, exact: Mapping[str, numbers.Rational]) -> None:
    names = [p for p in thm.params if p in r.condition.names]
    cite = (r.condition.citation or thm.citation).short()
    raise ConditionViolated(
        key=thm.key,
        condition=r.text,
        gloss=r.condition.gloss,
        lhs=r.lhs,
        rhs=r.rhs,
        values={n: format_rational(exact[n]) for n in names},
        citation=cite,
    )


def compiled(thm: Theorem) -> Compiled | None:
    """:meth:`Theorem.compiled` (its docstring says what it does): the statement compiled (cached)."""
    if thm.bound is None:
        return None
    from dptheory.core.compile import compile_theorem

    return compile_theorem(thm)


def kernels(thm: Theorem, term: str | None = None) -> Kernels:
    """:meth:`Theorem.kernels` (its docstring says what it does)."""
    if term is not None:
        return term_kernels(thm, term)
    return _kernels_of(thm, thm, thm.compiled)


def term_kernels(thm: Theorem, name: str) -> Kernels:
    t = get_term(thm, name)
    c = thm.compiled_term(name)
    if t.mp is None and c is None:
        raise ValueError(f"{thm.key}: term {name} has neither an expression nor an mp kernel")
    return _kernels_of(thm, t, c)


def _kernels_of(thm: Theorem, own: Theorem | Term, c: Compiled | None) -> Kernels:
    """The kernels of the theorem's bound or of one of its terms (``own``): each declared override (``own.mp``,
    ``own.np``, ``own.arb``), else the compiled expression ``c``'s (its flagged float64 kernel when the theorem says
    ``np_flagged``)."""
    np_k: KernelNP | None = own.np
    if np_k is None and c is not None:
        np_k = c.np_flagged if thm.np_flagged else c.np
    arb_k: ArbKernel | None = ArbEvaluator(thm.params, own.arb) if own.arb is not None else c
    if own.mp is not None:
        mp_k: KernelMP = own.mp
    else:
        assert c is not None  # Theorem.__post_init__ and term_kernels: without an expression there is an mp kernel
        mp_k = c.mp
    return Kernels(mp=mp_k, np=np_k, arb=arb_k)


def evaluate(
    thm: Theorem,
    params: Mapping[str, Any] | None = None,
    /,
    *,
    dps: int = DEFAULT_DPS,
    check: bool = True,
    term: str | None = None,
    certify: bool = False,
    **kwargs: Any,
) -> BoundValue:
    """Evaluate a theorem's bound at a point to ``dps`` correct significant digits (``Theorem.evaluate``, and
    calling a theorem, are this function).

    Where the statement (or a declared ``arb`` override) can be evaluated on balls, the value is
    the midpoint of a certified enclosure narrow enough that its two ends round to the same
    ``dps`` digits (Ziv's strategy: raise the working precision until they do); otherwise the
    mpmath kernel runs at ``dps`` plus guard digits and again at twice the guard, and the digits
    must agree (evidence, not proof; the result then says it is not certified).

    Args:
        thm: the theorem (``self`` of ``Theorem.evaluate``).
        params: parameter values (or pass them as keyword arguments).
        dps: significant decimal digits of the result (at least 1).
        check: raise :class:`ConditionViolated` on a violated condition. With ``check=False``
            the value is computed and the violations are listed in the result (domain
            violations, where the formula itself is undefined, still raise).
        term: evaluate a named term of the bound instead of the whole bound.
        certify: require a certified enclosure; raise :class:`NumericalFailure` saying why
            when the theorem has no rigorous evaluator at this point.

    Returns:
        a :class:`BoundValue` (with ``enclosure`` when certified).
    """
    if isinstance(dps, bool) or not isinstance(dps, int) or dps < 1:
        raise InvalidParameter(key=thm.key, name="dps", value=dps, reason="must be a whole number >= 1")
    merged = {**(params or {}), **kwargs}
    exact = thm.parse(merged)
    conds = check_exact(thm, exact, raise_on_violation=check, domain_only=False)
    try:
        value, enclosure = evaluate_exact(thm, exact, dps=dps, term=term, certify=certify)
    except ParameterOutOfRange as exc:  # a kernel's range, said in the user's terms
        raise out_of_range(thm, exc, merged) from None
    return BoundValue(
        key=thm.key if term is None else f"{thm.key}:{term}",
        value=value,
        unit=thm.unit,
        direction=thm.direction,
        dps=dps,
        quantity=thm.quantity if term is None else get_term(thm, term).description,
        params=exact,
        conditions=conds,
        enclosure=enclosure,
    )


def out_of_range(thm: Theorem, exc: ParameterOutOfRange, written: Mapping[str, Any]) -> ParameterOutOfRange:
    """A kernel's :class:`ParameterOutOfRange` (named by the kernel's argument, with the kernel's number)
    restated with this theorem's key and citation and the value as the user wrote it; an argument the
    kernel computes from the parameters is named as such."""
    if exc.name in thm.params and exc.name in written:
        name, value = exc.name, shown(written[exc.name])
    else:
        name, value = f"{exc.name} (computed from {', '.join(thm.params)})", exc.value
    return ParameterOutOfRange(key=thm.key, name=name, value=value, reason=exc.reason, citation=thm.citation.short())


def evaluate_exact(
    thm: Theorem, exact: Mapping[str, numbers.Rational], *, dps: int, term: str | None, certify: bool
) -> tuple[mpmath.mpf, Enclosure | None]:
    """The value (and its certified enclosure, if any) at a parsed, checked point: :meth:`evaluate`'s work."""
    kern = kernels(thm, term)
    enclosure = None
    why_not = "no rigorous evaluator (no closed-form statement and no arb override)"
    if kern.arb is not None:
        try:
            enclosure = _enclose_digits(kern.arb, exact, dps)
        except NumericalFailure as exc:
            if certify and isinstance(exc, ParameterOutOfRange):
                raise
            why_not = str(exc)
    if certify and enclosure is None:
        raise NumericalFailure(f"{thm.key}{':' + term if term else ''} cannot be certified here: {why_not}")
    if enclosure is not None:
        # the decimal rounding both ends share (rounding the mid to dps*3.33 bits can cross a decimal
        # rounding boundary and print a wrong last digit)
        with mpmath.workdps(dps):
            mid = enclosure.mid
            small = mpmath.isfinite(mid) and (mid == 0 or abs(mpmath.mag(mid)) < 10**4)  # cheap decimal conversion
            value = mpmath.mpf(mpmath.nstr(mid, dps)) if small else +mid
        if not enclosure.relative and kern.mp is not None:
            # the ball still contains 0 (only an absolute radius below 10^-dps was reached): its midpoint
            # may be 0 where the value is a tiny nonzero number, so the digits come from the mpmath
            # kernel's Ziv loop, kept only if the certified enclosure contains them
            mp_value = run_mp(thm, kern.mp, exact, dps, double_check=True)
            if not enclosure.contains(mp_value):
                raise NumericalFailure(
                    f"{thm.key}: the mpmath value {mpmath.nstr(mp_value, 8)} is outside the certified enclosure "
                    f"[{enclosure.lo_str}, {enclosure.hi_str}]; please report this point"
                )
            value = mp_value
    else:
        value = run_mp(thm, kern.mp, exact, dps, double_check=True)
    return value, enclosure


def get_term(thm: Theorem, name: str) -> Term:
    try:
        return thm.terms[name]
    except KeyError:
        raise KeyError(f"{thm.key} has no term {name!r}; terms: {', '.join(thm.terms) or 'none'}") from None


def kernel_args(thm: Theorem, exact: Mapping[str, numbers.Rational]) -> dict[str, Any]:
    """:meth:`Theorem.kernel_args` (its docstring says what it does)."""
    out: dict[str, Any] = {}
    for p in thm.params:
        v = exact[p]
        if thm.notation[p].domain.is_integer:
            out[p] = int(v.numerator) // int(v.denominator)
        else:
            out[p] = rational_to_mpf(v)
    return out


def run_mp(
    thm: Theorem, kernel: KernelMP, exact: Mapping[str, numbers.Rational], dps: int, *, double_check: bool = False
) -> mpmath.mpf:
    """The kernel at ``dps`` + guard digits; with ``double_check``, again with twice the guard
    digits (and more, up to 128x: an ill-conditioned point such as the kl inverse at q ~ 1e-323
    needs hundreds of digits; up to 4x the inputs' digits when those are more: an input of 1e400 squared in an
    exponent) until two successive values round to the same ``dps`` digits: the
    non-rigorous Ziv loop for kernels without a ball evaluator (a kernel that loses the same
    digits at every precision would still agree with itself)."""
    guard = GUARD_DIGITS
    val = run_mp_once(thm, kernel, exact, dps + guard)
    if not double_check or mpmath.isinf(val):
        with mpmath.workdps(dps):
            return +val
    # up to 128x the guard digits, or (for inputs of huge magnitude, whose squares or products sit in an exponent:
    # e^(tau^2) at tau = 1e400 needs ~800 digits for its argument alone) 4x the inputs' decimal digits
    cap = max(GUARD_DIGITS * 128, 4 * _input_digits(exact))
    while guard < cap:
        guard *= 2
        val2 = run_mp_once(thm, kernel, exact, dps + guard)
        with mpmath.workdps(dps):
            a, b = +val, +val2
        if a == b:
            return b
        val = val2
    raise NumericalFailure(
        f"{thm.key}: the value does not settle to {dps} digits between {dps + guard // 2} and {dps + guard} "
        f"working digits at {dict(exact)}; ask for fewer digits or report it"
    )


def _input_digits(exact: Mapping[str, numbers.Rational]) -> int:
    """The most decimal digits of a numerator or denominator among the exact inputs."""
    bits = max((max(int(v.numerator).bit_length(), int(v.denominator).bit_length()) for v in exact.values()),
               default=0)
    return int(bits * 0.30103) + 1


def run_mp_once(thm: Theorem, kernel: KernelMP, exact: Mapping[str, numbers.Rational], wdps: int) -> mpmath.mpf:
    with mpmath.workdps(wdps):
        args = kernel_args(thm, exact)
        try:
            raw = kernel(args)
            if isinstance(raw, mpmath.mpc):
                if raw.imag != 0:
                    raise ValueError(f"complex result {raw}")
                raw = raw.real
        except InvalidParameter:
            raise  # a kernel's own range (ParameterOutOfRange): evaluate() says it in the user's terms
        except (ZeroDivisionError, ValueError, OverflowError, TypeError) as exc:
            bad = [
                r
                for r in check_exact(thm, exact, raise_on_violation=False, domain_only=False)
                if r.status is Status.VIOLATED
            ]
            why = f"; the violated condition {bad[0].text} makes it undefined" if bad else ""
            raise NumericalFailure(f"{thm.key}: evaluation failed at {_point_text(exact)}{why}: {exc}") from exc
        val = mpmath.mpf(raw)
    if mpmath.isnan(val):
        raise NumericalFailure(
            f"{thm.key}: evaluation gave NaN at {_point_text(exact)}; this is a bug, please report it"
        )
    return val


def evaluate_np(thm: Theorem, params: Mapping[str, Any], *, term: str | None = None) -> FloatArray:
    """:meth:`Theorem.evaluate_np` (its docstring says what it does)."""
    import numpy as np

    kern = kernels(thm, term)
    kernel = kern.np
    if kernel is None:
        raise NotImplementedError(f"{thm.key}{':' + term if term else ''} has no float64 kernel")
    arrays = {p: np.asarray(params[p], dtype=np.float64) for p in thm.params}
    b = np.broadcast_arrays(*arrays.values())
    arrays = dict(zip(arrays.keys(), b, strict=True))
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        raw = kernel(arrays)
    if isinstance(raw, tuple):
        # (values, unreliable): the kernel flags points where float64 cancellation could cost
        # more than 1e-11 relative; those are recomputed with mpmath at 30 digits
        out, unreliable = (np.array(raw[0], dtype=np.float64), np.asarray(raw[1], dtype=bool))
        mp_kernel = kern.mp
        shape = np.broadcast_shapes(out.shape, unreliable.shape)
        out = np.broadcast_to(out, shape).copy()
        unreliable = np.broadcast_to(unreliable, shape)
        for idx in np.ndindex(shape):
            if not unreliable[idx]:
                continue
            with mpmath.workdps(30):
                args = {}
                for p_name, arr in arrays.items():
                    v = float(np.broadcast_to(arr, shape)[idx])
                    args[p_name] = int(v) if thm.notation[p_name].domain.is_integer else mpmath.mpf(v)
                out[idx] = float(mp_kernel(args))
    else:
        out = np.asarray(raw, dtype=np.float64)
    if np.isnan(out).any():
        idx = np.argwhere(np.isnan(out))[0]
        point = (
            {p: float(a[tuple(idx)]) for p, a in arrays.items()}
            if out.ndim
            else {p: float(a) for p, a in arrays.items()}
        )
        raise NumericalFailure(f"{thm.key}: float64 evaluation gave NaN at {point}; check the conditions there")
    return out


def check_np(thm: Theorem, params: Mapping[str, Any]) -> BoolArray:
    """:meth:`Theorem.check_np` (its docstring says what it does)."""
    import numpy as np

    arrays = {p: np.asarray(params[p], dtype=np.float64) for p in thm.params}
    b = np.broadcast_arrays(*arrays.values())
    arrays = dict(zip(arrays, b, strict=True))
    ok = np.ones(b[0].shape, dtype=bool)
    for c in (*thm.domain_checks, *thm.condition_checks):
        ok &= c.holds_np(arrays)
    return ok


def _point_text(exact: Mapping[str, numbers.Rational]) -> str:
    """``alpha = 10, q = 0.01`` (exact values as decimals or fractions, never ``mpf('...')`` reprs)."""
    return ", ".join(f"{k} = {format_rational(v)}" for k, v in exact.items())


def _all_rational(params: Mapping[str, Any], names: tuple[str, ...]) -> bool:
    """Every value already an exact rational (parsed): a Fraction or a sympy Rational."""
    import sys

    sp = sys.modules.get("sympy")
    kinds: tuple[type, ...] = (Fraction,) if sp is None else (Fraction, sp.Rational)
    return set(params) == set(names) and all(isinstance(params[p], kinds) for p in names)


@dataclass(frozen=True)
class ArbEvaluator:
    """A hand-written arb kernel in the shape :func:`dptheory.core.compile.enclose` expects."""

    params: tuple[str, ...]
    fn: KernelArb

    def arb(self, args: Mapping[str, Any]) -> Any:
        return self.fn(args)


@dataclass(frozen=True)
class Kernels:
    """The three evaluators of a bound or term (``np``/``arb`` may be missing)."""

    mp: KernelMP
    np: KernelNP | None
    arb: ArbKernel | None  # Compiled or ArbEvaluator


_TERM_CACHE: dict[tuple[str, str], tuple[sp.Expr, Compiled]] = {}


def compiled_term(thm: Theorem, name: str) -> Compiled | None:
    """:meth:`Theorem.compiled_term`: a named term's expression compiled (cached), ``None`` without one."""
    term = get_term(thm, name)
    return None if term.expr is None else _compiled_term(thm, term)


def _compiled_term(thm: Theorem, term: Term) -> Compiled:
    from dptheory.core.compile import compile_expr

    hit = _TERM_CACHE.get((thm.key, term.name))
    if hit is not None and hit[0] is term.expr:
        return hit[1]
    syms = {p: thm.notation.sym(p) for p in thm.params}
    ints = frozenset(p for p in thm.params if thm.notation[p].domain.is_integer)
    out = compile_expr(term.expr, syms, integers=ints)
    _TERM_CACHE[(thm.key, term.name)] = (term.expr, out)
    return out


def _enclose_digits(evaluator: ArbKernel, exact: Mapping[str, numbers.Rational], dps: int) -> Enclosure:
    """A certified enclosure whose ends round to the same ``dps`` significant digits (Ziv's loop:
    ask for a few more digits each time the ends straddle a rounding boundary)."""
    from dptheory.core.compile import enclose

    last = None
    for extra in (3, 12, 40):
        e = enclose(evaluator, exact, dps=dps + extra)
        if mpmath.isinf(e.mid) or e.lo == e.hi:
            return e
        if abs(mpmath.mag(e.mid)) >= 10**4:  # huge exponents: compare binary roundings (no slow decimal conversion)
            with mpmath.workdps(dps):
                if +e.lo == +e.hi:
                    return e
        elif mpmath.nstr(e.lo, dps) == mpmath.nstr(e.hi, dps):  # the ends print the same dps digits
            return e
        last = e
    assert last is not None
    return last  # a value on a rounding boundary to within 10^-(dps+40): the last digit may be off by one


class Evaluable:
    """The evaluation methods of a theorem, each a call of this module's function of the same name with the theorem
    first: :class:`~dptheory.core.theorem.Theorem` and a theorem read from the statement cache
    (:class:`dptheory.core.snapshot.CachedTheorem`) share them, so both evaluate by the same code. A subclass
    provides the numeric face (see the module docstring), ``parse`` included."""

    key: str
    params: tuple[str, ...]

    def parse(self, params: Mapping[str, Any]) -> dict[str, Any]:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def check(self, params: Mapping[str, Any], *, raise_on_violation: bool = False) -> tuple[ConditionResult, ...]:
        """Status of every condition at a point (domain conditions first)."""
        return check(self, params, raise_on_violation=raise_on_violation)

    def check_np(self, params: Mapping[str, Any]) -> BoolArray:
        """Vectorised float64 check of every condition: True where all hold (approximate at ties)."""
        return check_np(self, params)

    def kernels(self, term: str | None = None) -> Kernels:
        """The mpmath, float64 and arb evaluators of the bound (or of a named term): the declared
        overrides where given, the compiled statement otherwise."""
        return kernels(self, term)

    #: :func:`dptheory.core.evaluator.evaluate` (the bound at a point to ``dps`` correct digits; its docstring
    #: says how), this theorem its first argument
    evaluate = evaluate
    __call__ = evaluate

    def value(self, params: Mapping[str, Any] | None = None, /, *, dps: int = DEFAULT_DPS, **kw: Any) -> mpmath.mpf:
        """Shortcut: the mpf value only (conditions are still checked)."""
        return self.evaluate(params, dps=dps, **kw).value

    def kernel_args(self, exact: Mapping[str, numbers.Rational]) -> dict[str, Any]:
        """Kernel inputs at the current mpmath precision: int for integer parameters, mpf otherwise."""
        return kernel_args(self, exact)

    def _run_mp(
        self, kernel: KernelMP, exact: Mapping[str, numbers.Rational], dps: int, *, double_check: bool = False
    ) -> mpmath.mpf:
        """:func:`dptheory.core.evaluator.run_mp` (the mpmath kernel at ``dps`` + guard digits; ``sweep`` uses it)."""
        return run_mp(self, kernel, exact, dps, double_check=double_check)

    def evaluate_np(self, params: Mapping[str, Any], *, term: str | None = None) -> FloatArray:
        """Vectorised float64 evaluation (no condition checks; see :mod:`dptheory.evaluate.sweep`).

        Values that overflow float64 come back as ``inf``; :func:`dptheory.evaluate.sweep.sweep`
        recomputes those points in the log domain with mpmath.
        """
        return evaluate_np(self, params, term=term)
