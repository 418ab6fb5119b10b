"""Validators shared by every layer: one home for the checks that turn a user's value into a trusted one.

Each raises :class:`~dptheory.core.errors.InvalidParameter` (or :class:`DPTheoryError` for a
Generator) whose message names the object (``key``), the parameter, the value and what is accepted.

**Size limits** (:data:`MAX_DIGITS`, :data:`MAX_EXPONENT`): every number a user gives, through the Python API
(:func:`dptheory.core.notation.parse_value`, called by ``Theorem.evaluate``, ``value``, ``check``, the sweeps
and the claim checks) or on the command line (:func:`dptheory.cli.params.exact_number`), is refused at once
when it is beyond them, before any big integer is built: ``"1e999999999"``, ``10**10**6``,
``Decimal("1e-999999999")`` or ``mpf("1e-999999999")`` would otherwise stall the exact arithmetic (Python
refuses int <-> str beyond 4300 digits, and a rational with a billion-digit denominator takes minutes).
The rule, for a number x = p/q: x == 0 or 10^-MAX_EXPONENT <= |x| < 10^MAX_EXPONENT, a decimal string has at
most MAX_DIGITS significant digits, and p and q have at most :data:`MAX_BITS` bits (what the longest accepted
decimal, MAX_DIGITS digits at exponent -MAX_EXPONENT, needs). This module is light (numpy is imported where
it is used), so the command line's parser can use it.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from dptheory.core.errors import DPTheoryError, InvalidParameter, ParameterOutOfRange

if TYPE_CHECKING:
    import mpmath
    import numpy as np

#: a number may have at most this many significant decimal digits ...
MAX_DIGITS = 4000
#: ... and a magnitude 10^-MAX_EXPONENT <= |x| < 10^MAX_EXPONENT (or be 0)
MAX_EXPONENT = 1000
#: the numerator and the denominator of an exact rational have at most this many bits
MAX_BITS = math.ceil((MAX_DIGITS + MAX_EXPONENT + 1) * math.log2(10))
#: what is accepted, for messages
SIZE_RANGE = (
    f"numbers may have at most {MAX_DIGITS} digits and a magnitude between 1e-{MAX_EXPONENT} and 1e{MAX_EXPONENT}"
)

_DECIMAL = re.compile(r"^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$")
_FRACTION = re.compile(r"^([+-]?\d+)\s*/\s*(\d+)$")


#: the number forms :func:`exact_number` accepts, for messages
NUMBER_FORMS = "a decimal such as 0.02 or 1e-5, or a fraction such as 1/3"


class NumberTooLarge(ValueError):
    """A number beyond the size limits (:data:`MAX_DIGITS` digits, magnitude within 1e+-:data:`MAX_EXPONENT`)."""


def exact_number(text: str, *, forms: str = NUMBER_FORMS) -> Fraction:
    """The one parser of number text: ``"0.02"`` -> Fraction(1, 50), ``"1/3"``, ``"1e-400"`` exactly.

    Used by the command line (:mod:`dptheory.cli.params`) and the Python API (``dptheory.core.notation.parse_value``).
    Raises ValueError (one sentence) for NaN, infinities and text (``not a number (write FORMS)``), and
    :class:`NumberTooLarge` for numbers beyond the size limits, decided before the number is built (so nothing ever
    builds a 10^(10^6) integer)."""
    s = str(text).strip()
    low = s.lower().lstrip("+-")
    if low == "nan":
        raise ValueError("NaN is not a number")
    if low in ("inf", "infinity", "oo"):
        raise ValueError("infinity is not allowed here")
    problem = text_size_problem(s)
    if problem is not None:
        raise NumberTooLarge(problem)
    m = _FRACTION.match(s)
    if m:
        if int(m.group(2)) == 0:
            raise ValueError("division by zero")
        value = Fraction(int(m.group(1)), int(m.group(2)))
    else:
        m = _DECIMAL.match(s)
        if not m or not (m.group(2) or m.group(3)):
            raise ValueError(f"not a number (write {forms})")
        value = Fraction(s)
    problem = rational_size_problem(value.numerator, value.denominator)
    if problem is not None:
        raise NumberTooLarge(problem)
    return value


def text_size_problem(text: str) -> str | None:
    """Why the decimal (``"1e-5"``) or fraction (``"1/3"``) ``text`` is too large to handle, or ``None``.

    Decided from the digits and the exponent as written, without building the number (other text is not
    this function's business: ``None``)."""
    s = text.strip()
    if len(s) > MAX_DIGITS + 20:
        return f"more than {MAX_DIGITS} digits"
    m = _FRACTION.match(s)
    if m:
        num, den = m.group(1).lstrip("+-").lstrip("0"), m.group(2).lstrip("0")
        if len(num) > MAX_DIGITS or len(den) > MAX_DIGITS:
            return f"more than {MAX_DIGITS} digits"
        if num and den and abs(len(num) - len(den)) > MAX_EXPONENT + 1:
            return f"the magnitude is beyond 1e+-{MAX_EXPONENT}"
        return None
    m = _DECIMAL.match(s)
    if not m or not (m.group(2) or m.group(3)):
        return None
    whole, frac, exp = m.group(2), m.group(3) or "", m.group(4)
    digits = (whole + frac).lstrip("0")
    if len(digits) > MAX_DIGITS:
        return f"more than {MAX_DIGITS} digits"
    e = 0
    if exp is not None:
        # an exponent this long is refused even on a zero (0e999999999 would build 10^999999999 to multiply by 0)
        if len(exp.lstrip("+-").lstrip("0")) > 6 or abs(int(exp)) > MAX_EXPONENT + MAX_DIGITS + 1:
            return f"the magnitude is beyond 1e+-{MAX_EXPONENT}"
        e = int(exp)
    if not digits:
        return None  # zero
    lead = whole.lstrip("0")
    # floor(log10 |x|): the position of the first significant digit
    mag = e + len(lead) - 1 if lead else e - (len(frac) - len(frac.lstrip("0"))) - 1
    if not -MAX_EXPONENT <= mag < MAX_EXPONENT:
        return f"the magnitude is beyond 1e+-{MAX_EXPONENT}"
    return None


def rational_size_problem(num: int, den: int) -> str | None:
    """Why the exact rational ``num/den`` (``den > 0``) is too large to handle, or ``None`` (cheap: bit lengths
    first, then one comparison with a power of ten)."""
    if num == 0:
        return None
    a = abs(num)
    if den == 1 and a.bit_length() > MAX_DIGITS * math.log2(10) and a >= 10**MAX_DIGITS:
        return f"more than {MAX_DIGITS} digits"  # as the same integer written out in decimal
    if a.bit_length() > MAX_BITS or den.bit_length() > MAX_BITS:
        diff = (a.bit_length() - den.bit_length()) * math.log10(2)
        if abs(diff) > MAX_EXPONENT + 2:
            return f"the magnitude is beyond 1e+-{MAX_EXPONENT}"
        return f"the numerator or denominator has more than {MAX_BITS} bits"
    p = 10**MAX_EXPONENT
    if a >= p * den or a * p < den:
        return f"the magnitude is beyond 1e+-{MAX_EXPONENT}"
    return None


def binary_size_problem(man: int, exp: int) -> str | None:
    """Why ``man * 2**exp`` (an mpmath or sympy binary float) is too large to handle, or ``None``, decided before
    ``2**exp`` is built."""
    if man == 0:
        return None
    top = abs(man).bit_length() + exp
    if top > MAX_BITS or exp < -MAX_BITS:
        return (
            f"the magnitude is beyond 1e+-{MAX_EXPONENT}"
            if abs(top) * math.log10(2) > MAX_EXPONENT + 2
            else f"the numerator or denominator has more than {MAX_BITS} bits"
        )
    if exp >= 0:
        return rational_size_problem(man << exp, 1)
    return rational_size_problem(man, 1 << -exp)


def decimal_size_problem(value: Decimal) -> str | None:
    """Why the finite ``decimal.Decimal`` ``value`` is too large to handle, or ``None`` (from its digits and
    exponent, before the rational is built)."""
    t = value.as_tuple()
    if not any(t.digits):
        return None
    assert isinstance(t.exponent, int)  # finite
    ndigits = len(t.digits) - next(i for i, d in enumerate(t.digits) if d)
    if ndigits > MAX_DIGITS:
        return f"more than {MAX_DIGITS} digits"
    if not -MAX_EXPONENT <= value.adjusted() < MAX_EXPONENT:
        return f"the magnitude is beyond 1e+-{MAX_EXPONENT}"
    return None


def shown(value: Any) -> Any:
    """``value`` as the user wrote it, short enough for a one-line message: long text is cut, and an integer or
    fraction too long to print (Python refuses int -> str beyond 4300 digits) is described by its size."""
    from fractions import Fraction

    if isinstance(value, str):
        return value if len(value) <= 60 else f"{value[:20]}...({len(value)} characters)"
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value.bit_length() > 200:
        return f"an integer of about {_digits(value)} digits"
    if isinstance(value, Fraction) and max(abs(value.numerator), value.denominator).bit_length() > 200:
        return f"a fraction of about {_digits(value.numerator)} / {_digits(value.denominator)} digits"
    return value


def number_text(x: Any) -> str:
    """A number for a message, as a person reads it: an mpmath or numpy float to 17 significant digits and a
    numpy scalar by its value (never an ``mpf('9.99...')`` or ``np.float64(...)`` repr from inside a kernel)."""
    mod = type(x).__module__ or ""
    if isinstance(x, str):
        return str(shown(x))
    if mod.startswith("numpy") and hasattr(x, "item"):
        return number_text(x.item())  # before float: np.float64 is a float subclass whose repr is np.float64(...)
    if isinstance(x, (bool, int, float)):
        return str(shown(x)) if isinstance(x, int) and not isinstance(x, bool) else repr(x)
    if mod.startswith("mpmath"):
        import mpmath

        return str(mpmath.nstr(x, 17))
    return repr(x)


def to_mpf(value: Any) -> mpmath.mpf:
    """``value`` as an mpmath number: an integer exactly, a float (Python or numpy) by its value; a bool is
    refused (``ValueError``); anything else goes to ``mpmath.mpf`` (``TypeError``/``ValueError`` on non-numbers)."""
    import numbers

    import mpmath
    import numpy as np

    if isinstance(value, bool):
        raise ValueError(f"expected a number, got {number_text(value)}")
    if isinstance(value, numbers.Integral):
        return mpmath.mpf(int(value))
    if isinstance(value, (float, np.floating)):
        return mpmath.mpf(float(value))
    return mpmath.mpf(value)


def order_out_of_range(key: str, alpha: Any, max_order: int, why: str) -> ParameterOutOfRange:
    """A Renyi order beyond what an evaluator's series can serve (it needs about ``alpha`` terms): the accepted
    range ``1 < alpha <= max_order`` and ``why``, in the user's terms (the theorem that called the kernel re-raises
    it with the value as the user wrote it, :meth:`dptheory.core.theorem.Theorem.evaluate`)."""
    return ParameterOutOfRange(
        key=key,
        name="alpha",
        value=number_text(alpha),
        reason=f"this evaluator accepts Renyi orders 1 < alpha <= 1e{round(math.log10(max_order))} ({why})",
    )


def _digits(n: int) -> int:
    return max(1, math.floor(max(abs(n).bit_length() - 1, 0) * math.log10(2)) + 1)


def check_size(problem: str | None, *, key: str, name: str, value: Any, citation: str = "") -> None:
    """Raise the one-line :class:`InvalidParameter` for a size ``problem`` (from the functions above), naming the
    parameter, the value as written and :data:`SIZE_RANGE`; nothing when ``problem`` is ``None``."""
    if problem is not None:
        raise InvalidParameter(
            key=key, name=name, value=shown(value), reason=f"{problem}; {SIZE_RANGE}", citation=citation
        )


def check_positive(name: str, value: Any, *, key: str, citation: str = "") -> float:
    """``value`` as a finite float > 0, or an :class:`InvalidParameter` naming the condition."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InvalidParameter(key=key, name=name, value=value, reason="must be a number", citation=citation) from None
    if not math.isfinite(v) or v <= 0:
        raise InvalidParameter(
            key=key, name=name, value=value, reason=f"must be finite and > 0 (got {v!r})", citation=citation
        )
    return v


def check_int(name: str, value: Any, *, low: int = 1, key: str, citation: str = "") -> int:
    """``value`` as an int >= ``low``, or an :class:`InvalidParameter` naming the condition."""
    import numpy as np

    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise InvalidParameter(key=key, name=name, value=value, reason="must be a whole number", citation=citation)
    v = int(value)
    if v < low:
        raise InvalidParameter(key=key, name=name, value=value, reason=f"must be >= {low}", citation=citation)
    return v


def check_generator(rng: Any, *, key: str) -> np.random.Generator:
    """``rng`` itself if it is a ``numpy.random.Generator``, else an error naming ``key`` (randomness is explicit)."""
    import numpy as np

    if not isinstance(rng, np.random.Generator):
        raise DPTheoryError(
            f"{key}: rng must be a numpy.random.Generator (e.g. numpy.random.default_rng(seed)), "
            f"got {type(rng).__name__}; randomness is always passed explicitly"
        )
    return rng
