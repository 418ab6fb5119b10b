"""Notation tables: the one place where a paper's symbols are decided.

Parameters use the paper's notation spelled in ASCII (``alpha, eta, lam, beta, S_g, sigma, n, b,
K, j0``) because users read the paper beside the tool. Notation is *scoped per paper*: ``sigma`` is
a noise scale in Ye & Shokri and an activation in Shi et al., so every paper has its own
:class:`NotationTable` and every theorem points at one.

Parameter values enter the package through :func:`parse_value`, which turns them into exact
rationals (sympy ``Rational``). Conditions are then decided exactly, and the mpmath kernels see the
same number at any precision. Python floats are read by their shortest decimal representation
(``0.02`` means 1/50, not the binary double nearest to it), which is what a user who typed the number
meant; pass a ``fractions.Fraction`` or an ``mpmath.mpf`` to give an exact binary value instead. A
``decimal.Decimal`` is read exactly (``Decimal("0.02")`` is 1/50, like the string ``"0.02"``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from fractions import Fraction
from numbers import Integral
from typing import Any

import mpmath
import numpy as np
import sympy as sp

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

    def admits(self, x: Fraction | int) -> bool:
        """Whether the exact number ``x`` is of this kind (what a theorem's domain conditions,
        :attr:`~dptheory.core.theorem.Theorem.domain_conditions`, decide at a point)."""
        x = Fraction(x)
        if self.is_integer and x.denominator != 1:
            return False
        if self in (Domain.POSITIVE, Domain.POSITIVE_INTEGER):
            return x > 0
        return x >= 0 if self in (Domain.NONNEGATIVE, Domain.NONNEGATIVE_INTEGER) else True

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
        symbol: the sympy Symbol (with the domain's assumptions).
        sample: (low, high, log_scale) range that property tests draw from when no condition
            bounds the parameter more tightly. Not a condition: values outside are still valid.
        unit: unit of the parameter, if any.
    """

    name: str
    latex: str
    meaning: str
    domain: Domain
    symbol: sp.Symbol
    sample: tuple[float, float, bool]
    unit: str = ""


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
            sym = sp.Symbol(name, **domain.assumptions())
            params[name] = Param(name, latex, meaning, domain, sym, sample, unit)
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




def parse_value(raw: Any, *, key: str, name: str, citation: str = "") -> sp.Rational:
    """Turn a user value into an exact sympy Rational, or raise :class:`InvalidParameter`.

    Accepts int, Fraction, ``decimal.Decimal`` (exactly, like the same decimal string), float (read by its
    shortest decimal repr), decimal strings (``"0.02"``, ``"1e-5"``), fractions (``"1/3"``), mpmath mpf (exact
    binary value), numpy scalars and sympy rationals. Rejects bool, NaN, infinities, complex numbers and text,
    and (at once, before any big integer is built) numbers beyond the size limits of
    :mod:`dptheory.core.validate` (the same limits as the command line's). This is the one entry of user
    values into the package: ``Theorem.evaluate``, ``value``, ``check`` and the CLI all pass through it.
    """

    def bad(reason: str) -> InvalidParameter:
        return InvalidParameter(key=key, name=name, value=shown(raw), reason=reason, citation=citation)

    def sized(problem: str | None) -> None:
        check_size(problem, key=key, name=name, value=raw, citation=citation)

    def rational(num: int, den: int) -> sp.Rational:
        sized(rational_size_problem(num, den))
        return sp.Rational(num, den)

    value = raw
    if isinstance(value, (bool, np.bool_)):
        raise bad("a boolean is not a number")
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, sp.Basic):
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
        f = Fraction(value)  # exact: a Decimal is a finite decimal fraction
        return rational(f.numerator, f.denominator)
    if isinstance(value, float):
        if math.isnan(value):
            raise bad("NaN is not a number")
        if math.isinf(value):
            raise bad("infinity is not allowed here")
        return sp.Rational(repr(value))
    if isinstance(value, mpmath.mpf):
        if mpmath.isnan(value):
            raise bad("NaN is not a number")
        if mpmath.isinf(value):
            raise bad("infinity is not allowed here")
        man, exp = value.man_exp
        sized(binary_size_problem(int(man), int(exp)))
        return sp.Integer(man) * sp.Integer(2) ** exp
    if isinstance(value, str):
        s = value.strip()
        try:
            f = exact_number(s, forms="e.g. 0.02, 1e-5 or 1/3")  # the one number-text parser, sized before built
        except NumberTooLarge as exc:
            sized(str(exc))
            raise  # pragma: no cover  (sized raises)
        except ValueError as exc:
            raise bad(str(exc)) from None
        return sp.Rational(f.numerator, f.denominator)
    if isinstance(value, complex):
        raise bad("complex numbers are not allowed")
    raise bad(f"unsupported type {type(value).__name__} (pass an int, a Fraction, a Decimal, a float, a decimal "
              "or fraction string, or an mpmath mpf)")


def rational_to_mpf(x: sp.Rational) -> mpmath.mpf:
    """An exact rational at the current mpmath precision (one rounding)."""
    p, q = int(x.p), int(x.q)
    if q == 1:
        return mpmath.mpf(p)
    return mpmath.mpf(p) / q


#: integers longer than this many decimal digits are rendered in scientific notation (exact digits would
#: be unreadable, and Python refuses int -> str beyond 4300 digits by default)
MAX_EXACT_DIGITS = 4000


def format_rational(x: sp.Rational) -> str:
    """A short, exact-if-possible decimal rendering of a rational for messages and JSON.

    Numbers whose numerator or denominator has more than ``MAX_EXACT_DIGITS`` digits are rendered to
    30 significant digits (``~1.23...e+5000``, marked with ``~``: not exact)."""
    if max(abs(int(x.p)), int(x.q)).bit_length() > MAX_EXACT_DIGITS * 3.32:
        with mpmath.workdps(40):
            v = mpmath.mpf(int(x.p)) / int(x.q)
            return "~" + mpmath.nstr(v, 30)
    if x.q == 1:
        return str(int(x.p))
    # terminating decimal?
    q = int(x.q)
    twos = fives = 0
    while q % 2 == 0:
        q //= 2
        twos += 1
    while q % 5 == 0:
        q //= 5
        fives += 1
    if q == 1:
        digits = max(twos, fives)
        if digits <= 60:
            scaled = int(x.p) * 10**digits // int(x.q)  # exact: x.q divides 10**digits
            sign = "-" if scaled < 0 else ""
            text = str(abs(scaled)).rjust(digits + 1, "0")
            whole, frac = text[:-digits], text[-digits:]
            return f"{sign}{whole}.{frac}".rstrip("0").rstrip(".")
    return f"{int(x.p)}/{int(x.q)}"
