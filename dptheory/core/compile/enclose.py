"""Certified evaluation: :func:`enclose` runs an arb kernel with exact rational inputs under a Ziv loop (raise
precision until the ball is narrow enough) and returns an outward-rounded :class:`Enclosure`; :func:`agree_mp`
is the non-rigorous alternative (two mpmath precisions agree) and says so."""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import mpmath

from dptheory.core.compile.base import Undecided, require_flint
from dptheory.core.compile.compiled import ArbKernel
from dptheory.core.errors import NumericalFailure, ParameterOutOfRange

__all__ = ["Enclosure", "agree_mp", "decimal_bound", "enclose"]


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


def decimal_bound(v: Any, digits: int, down: bool) -> str:
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
    if isinstance(v, numbers.Rational):  # int, Fraction, sympy Rational
        p, q = int(v.numerator), int(v.denominator)
        with mpmath.workprec(max(53, abs(p).bit_length() + 1)):
            return mpmath.mpf(p), q
    if isinstance(v, mpmath.mpf):
        return v, 1
    if hasattr(v, "_mpf_") and hasattr(v, "_prec"):  # a sympy Float
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
    if isinstance(v, numbers.Rational):  # Fraction, sympy Rational
        p, q = int(v.numerator), int(v.denominator)
        return flint.arb(p) if q == 1 else flint.arb(p) / flint.arb(q)
    raise NumericalFailure(f"parameter {name} = {v!r}: enclose needs exact inputs (int, sympy Rational or Fraction)")


def enclose(
    compiled: ArbKernel, exact: Mapping[str, Any], *, dps: int, max_prec: int = 1 << 16, zero_prec: int | None = None
) -> Enclosure:
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
            except ParameterOutOfRange:  # a kernel's accepted range, said in the user's terms: passed on as it is
                raise
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
                    lo_str=decimal_bound(lo, digits, down=True),
                    hi_str=decimal_bound(hi, digits, down=False),
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


def agree_mp(
    kernel: Callable[[Mapping[str, Any]], Any],
    args: Callable[[], Mapping[str, Any]],
    *,
    dps: int,
    guard: int = 10,
    max_dps: int = 2000,
) -> mpmath.mpf:
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
