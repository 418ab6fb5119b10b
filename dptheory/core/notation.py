"""Notation tables: the one place where a paper's symbols are decided.

Parameters use the paper's notation spelled in ASCII (``alpha, eta, lam, beta, S_g, sigma, n, b,
K, j0``) because users read the paper beside the tool. Notation is *scoped per paper*: ``sigma`` is
a noise scale in Ye & Shokri and an activation in Shi et al., so every paper has its own
:class:`NotationTable` and every theorem points at one.

Parameter values enter the package through :func:`parse_exact`, which turns them into exact
rationals (``fractions.Fraction``; :func:`parse_value` gives the same number as a sympy
``Rational``). Conditions are then decided exactly, and the mpmath kernels see the
same number at any precision. Python floats are read by their shortest decimal representation
(``0.02`` means 1/50, not the binary double nearest to it), which is what a user who typed the number
meant; pass a ``fractions.Fraction`` or an ``mpmath.mpf`` to give an exact binary value instead. A
``decimal.Decimal`` is read exactly (``Decimal("0.02")`` is 1/50, like the string ``"0.02"``).
"""

from __future__ import annotations

import functools
import math
import numbers
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from fractions import Fraction
from numbers import Integral
from typing import TYPE_CHECKING, Any

import mpmath

from dptheory.core.errors import InvalidParameter
from dptheory.core.validate import (
    NumberTooLarge,
    binary_size_problem,
    check_size,
    decimal_size_problem,
    exact_number,
    rational_size_problem,
    shown,
)

if TYPE_CHECKING:
    import sympy as sp


class Domain(StrEnum):
    """The kind of number a parameter is."""

    REAL = "real"
    POSITIVE = "positive"
    NONNEGATIVE = "nonnegative"
    INTEGER = "integer"
    POSITIVE_INTEGER = "positive integer"
    NONNEGATIVE_INTEGER = "nonnegative integer"

    @property
    def is_integer(self) -> bool:
        return self in (Domain.INTEGER, Domain.POSITIVE_INTEGER, Domain.NONNEGATIVE_INTEGER)

    @property
    def lower_end(self) -> tuple[int, bool] | None:
        """The lower end of this kind of number as ``(0, strict)``: ``> 0`` for the positive kinds, ``>= 0`` for
        the nonnegative ones; None for the real numbers and the integers."""
        if self in (Domain.POSITIVE, Domain.POSITIVE_INTEGER):
            return (0, True)
        return (0, False) if self in (Domain.NONNEGATIVE, Domain.NONNEGATIVE_INTEGER) else None

    def admits(self, x: Fraction | int) -> bool:
        """Whether the exact number ``x`` is of this kind (what a theorem's domain conditions,
        :attr:`~dptheory.core.theorem.Theorem.domain_conditions`, decide at a point)."""
        x = Fraction(x)
        if self.is_integer and x.denominator != 1:
            return False
        end = self.lower_end
        return True if end is None else (x > end[0] if end[1] else x >= end[0])

    def assumptions(self) -> dict[str, bool]:
        """sympy assumptions for a Symbol of this domain."""
        return {
            Domain.REAL: {"real": True},
            Domain.POSITIVE: {"positive": True},
            Domain.NONNEGATIVE: {"nonnegative": True},
            Domain.INTEGER: {"integer": True},
            Domain.POSITIVE_INTEGER: {"positive": True, "integer": True},
            Domain.NONNEGATIVE_INTEGER: {"nonnegative": True, "integer": True},
        }[self]


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter of a paper's notation.

    Attributes:
        name: ASCII name used in the API and on the command line (``lam``).
        latex: LaTeX in the paper's notation (``\\lambda``).
        meaning: one-line meaning.
        domain: the kind of number.
        sample: (low, high, log_scale) range that property tests draw from when no condition
            bounds the parameter more tightly. Not a condition: values outside are still valid.
        unit: unit of the parameter, if any.
    """

    name: str
    latex: str
    meaning: str
    domain: Domain
    sample: tuple[float, float, bool]
    unit: str = ""

    @property
    def symbol(self) -> sp.Symbol:
        """The sympy Symbol (with the domain's assumptions), made on first use: a table is built, and a parameter
        read, without importing sympy (a command that only evaluates never needs it)."""
        return _symbol(self.name, self.domain)


@functools.cache
def _symbol(name: str, domain: Domain) -> sp.Symbol:
    import sympy as sp

    return sp.Symbol(name, **domain.assumptions())


@dataclass(frozen=True)
class NotationTable:
    """The parameters of one paper, by ASCII name."""

    paper_key: str
    params: Mapping[str, Param] = field(default_factory=dict)

    @classmethod
    def build(cls, paper_key: str, rows: Iterable[tuple[Any, ...]]) -> NotationTable:
        """Build a table from rows ``(name, latex, meaning, domain, (lo, hi, log))``."""
        params: dict[str, Param] = {}
        for row in rows:
            name, latex, meaning, domain, sample = row[:5]
            unit = row[5] if len(row) > 5 else ""
            params[name] = Param(name, latex, meaning, domain, sample, unit)
        return cls(paper_key, params)

    def __getitem__(self, name: str) -> Param:
        return self.params[name]

    def __contains__(self, name: object) -> bool:
        return name in self.params

    def symbols(self, *names: str) -> tuple[sp.Symbol, ...]:
        return tuple(self.params[n].symbol for n in names)

    def sym(self, name: str) -> sp.Symbol:
        return self.params[name].symbol

    def symbol_names(self) -> dict[sp.Symbol, str]:
        """Map for ``sympy.latex(..., symbol_names=...)``."""
        return {p.symbol: p.latex for p in self.params.values()}




def parse_exact(raw: Any, *, key: str, name: str, citation: str = "") -> Fraction:
    """Turn a user value into an exact rational (a ``fractions.Fraction``), or raise :class:`InvalidParameter`.

    Accepts int, Fraction, ``decimal.Decimal`` (exactly, like the same decimal string), float (read by its
    shortest decimal repr), decimal strings (``"0.02"``, ``"1e-5"``), fractions (``"1/3"``), mpmath mpf (exact
    binary value), numpy scalars and sympy rationals. Rejects bool, NaN, infinities, complex numbers and text,
    and (at once, before any big integer is built) numbers beyond the size limits of
    :mod:`dptheory.core.validate` (the same limits as the command line's). This is the one entry of user
    values into the package: ``Theorem.evaluate``, ``value``, ``check`` and the CLI all pass through it. It
    imports neither sympy nor numpy: a sympy or numpy value can only come from a caller that has loaded them.
    """

    def bad(reason: str) -> InvalidParameter:
        return InvalidParameter(key=key, name=name, value=shown(raw), reason=reason, citation=citation)

    def sized(problem: str | None) -> None:
        check_size(problem, key=key, name=name, value=raw, citation=citation)

    def rational(num: int, den: int) -> Fraction:
        sized(rational_size_problem(num, den))
        return Fraction(num, den)

    value = raw
    np = sys.modules.get("numpy")
    if isinstance(value, bool) or (np is not None and isinstance(value, np.bool_)):
        raise bad("a boolean is not a number")
    if np is not None and isinstance(value, np.generic):
        value = value.item()
    sp = sys.modules.get("sympy")
    if sp is not None and isinstance(value, sp.Basic):
        if value.is_Rational:
            return rational(int(value.p), int(value.q))
        if value.is_Float:
            value = mpmath.mpf(value._mpf_)  # exact binary value of the sympy Float
        elif value.is_number and value.is_finite and value.is_real:
            raise bad("an irrational sympy number; pass a decimal or a fraction")
        else:
            raise bad("not a finite real number")
    if isinstance(value, Integral):
        return rational(int(value), 1)
    if isinstance(value, Fraction):
        return rational(value.numerator, value.denominator)
    if isinstance(value, Decimal):
        if value.is_nan():
            raise bad("NaN is not a number")
        if value.is_infinite():
            raise bad("infinity is not allowed here")
        sized(decimal_size_problem(value))
        return Fraction(value)  # exact: a Decimal is a finite decimal fraction
    if isinstance(value, float):
        if math.isnan(value):
            raise bad("NaN is not a number")
        if math.isinf(value):
            raise bad("infinity is not allowed here")
        return Fraction(repr(value))
    if isinstance(value, mpmath.mpf):
        if mpmath.isnan(value):
            raise bad("NaN is not a number")
        if mpmath.isinf(value):
            raise bad("infinity is not allowed here")
        man, exp = value.man_exp
        sized(binary_size_problem(int(man), int(exp)))
        return Fraction(int(man)) * Fraction(2) ** int(exp)
    if isinstance(value, str):
        s = value.strip()
        try:
            f = exact_number(s, forms="e.g. 0.02, 1e-5 or 1/3")  # the one number-text parser, sized before built
        except NumberTooLarge as exc:
            sized(str(exc))
            raise  # pragma: no cover  (sized raises)
        except ValueError as exc:
            raise bad(str(exc)) from None
        return Fraction(f.numerator, f.denominator)
    if isinstance(value, complex):
        raise bad("complex numbers are not allowed")
    raise bad(f"unsupported type {type(value).__name__} (pass an int, a Fraction, a Decimal, a float, a decimal "
              "or fraction string, or an mpmath mpf)")


def parse_value(raw: Any, *, key: str, name: str, citation: str = "") -> sp.Rational:
    """:func:`parse_exact`'s number as a sympy ``Rational`` (for the symbolic side: conditions decided by sympy,
    substitutions into a statement)."""
    import sympy as sp

    f = parse_exact(raw, key=key, name=name, citation=citation)
    return sp.Rational(f.numerator, f.denominator)


def parse_point(point: Mapping[str, Any], *, key: str) -> dict[str, sp.Rational]:
    """A point (parameter name -> any value :func:`parse_value` reads) as exact sympy ``Rational`` values, in its
    order; ``key`` names the claim, theorem or file in the :class:`~dptheory.core.errors.InvalidParameter` a bad value
    raises (with the parameter's name)."""
    return {k: parse_value(v, key=key, name=k) for k, v in point.items()}


def _parts(x: numbers.Rational) -> tuple[int, int]:
    """Numerator and denominator of an exact rational (a Fraction, an int or a sympy Rational)."""
    return int(x.numerator), int(x.denominator)


def rational_to_mpf(x: numbers.Rational) -> mpmath.mpf:
    """An exact rational (Fraction, int or sympy Rational) at the current mpmath precision (one rounding)."""
    p, q = _parts(x)
    if q == 1:
        return mpmath.mpf(p)
    return mpmath.mpf(p) / q


def rational_to_float(x: numbers.Rational) -> float:
    """The float64 nearest an exact rational; ``inf`` (with its sign) beyond float64's range, as sympy's ``float``
    gives (``float`` of a huge Fraction raises instead)."""
    try:
        return float(x)
    except OverflowError:
        return math.inf if int(x.numerator) > 0 else -math.inf


#: integers longer than this many decimal digits are rendered in scientific notation (exact digits would
#: be unreadable, and Python refuses int -> str beyond 4300 digits by default)
MAX_EXACT_DIGITS = 4000


def format_rational(x: numbers.Rational) -> str:
    """A short, exact-if-possible decimal rendering of a rational (Fraction, int or sympy Rational) for messages
    and JSON.

    Numbers whose numerator or denominator has more than ``MAX_EXACT_DIGITS`` digits are rendered to
    30 significant digits (``~1.23...e+5000``, marked with ``~``: not exact)."""
    p, q = _parts(x)
    if max(abs(p), q).bit_length() > MAX_EXACT_DIGITS * 3.32:
        with mpmath.workdps(40):
            v = mpmath.mpf(p) / q
            return "~" + mpmath.nstr(v, 30)
    if q == 1:
        return str(p)
    # terminating decimal?
    den = q
    twos = fives = 0
    while den % 2 == 0:
        den //= 2
        twos += 1
    while den % 5 == 0:
        den //= 5
        fives += 1
    if den == 1:
        digits = max(twos, fives)
        if digits <= 60:
            scaled = p * 10**digits // q  # exact: q divides 10**digits
            sign = "-" if scaled < 0 else ""
            text = str(abs(scaled)).rjust(digits + 1, "0")
            whole, frac = text[:-digits], text[-digits:]
            return f"{sign}{whole}.{frac}".rstrip("0").rstrip(".")
    return f"{p}/{q}"
