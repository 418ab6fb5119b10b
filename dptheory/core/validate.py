"""Validators shared by every layer: one home for the checks that turn a user's value into a trusted one.

Each raises :class:`~dptheory.core.errors.InvalidParameter` (or :class:`DPTheoryError` for a
Generator) whose message names the object (``key``), the parameter, the value and what is accepted.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dptheory.core.errors import DPTheoryError, InvalidParameter


def check_positive(name: str, value: Any, *, key: str, citation: str = "") -> float:
    """``value`` as a finite float > 0, or an :class:`InvalidParameter` naming the condition."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InvalidParameter(key=key, name=name, value=value, reason="must be a number", citation=citation) from None
    if not math.isfinite(v) or v <= 0:
        raise InvalidParameter(key=key, name=name, value=value, reason=f"must be finite and > 0 (got {v!r})",
                               citation=citation)
    return v


def check_int(name: str, value: Any, *, low: int = 1, key: str, citation: str = "") -> int:
    """``value`` as an int >= ``low``, or an :class:`InvalidParameter` naming the condition."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise InvalidParameter(key=key, name=name, value=value, reason="must be a whole number",
                                   citation=citation)
    v = int(value)
    if v < low:
        raise InvalidParameter(key=key, name=name, value=value, reason=f"must be >= {low}", citation=citation)
    return v


def check_generator(rng: Any, *, key: str) -> np.random.Generator:
    """``rng`` itself if it is a ``numpy.random.Generator``, else an error naming ``key`` (randomness is explicit)."""
    if not isinstance(rng, np.random.Generator):
        raise DPTheoryError(f"{key}: rng must be a numpy.random.Generator (e.g. numpy.random.default_rng(seed)), "
                            f"got {type(rng).__name__}; randomness is always passed explicitly")
    return rng
