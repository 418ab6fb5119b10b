"""Evaluated values: never a bare float.

A :class:`BoundValue` carries the number (an mpmath ``mpf`` rounded to the requested number of
significant digits), what it is (theorem key, quantity), which way it errs (direction), its unit,
the precision it was computed at, the exact parameters, and the status of every condition.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import mpmath

from dptheory.core.conditions import ConditionResult, Status
from dptheory.core.notation import format_rational
from dptheory.core.units import Direction, Unit


@dataclass(frozen=True, slots=True)
class BoundValue:
    """One evaluated bound.

    Attributes:
        key: theorem key (``yeshokri22.thm4_2``), with ``:term`` appended for a named term.
        value: the value as an mpf, rounded to ``dps`` significant digits.
        unit: unit of the value.
        direction: what the value says about the true quantity.
        dps: significant decimal digits the value is good to.
        quantity: what is bounded (``"RDP epsilon at order alpha"``).
        params: the exact parameter values used (sympy Rationals; Fractions for a theorem read from the statement
            cache).
        conditions: status of each condition at these parameters.
        enclosure: a certified enclosure of the exact value (``dptheory.core.compile.Enclosure``), when
            the statement could be evaluated on balls; ``None`` means the digits come from mpmath at two
            precisions (not certified).
    """

    key: str
    value: mpmath.mpf
    unit: Unit
    direction: Direction
    dps: int
    quantity: str
    params: Mapping[str, numbers.Rational] = field(default_factory=dict)
    conditions: tuple[ConditionResult, ...] = ()
    enclosure: Any = None

    @property
    def certified(self) -> bool:
        return self.enclosure is not None

    def __float__(self) -> float:
        return float(self.value)

    def __str__(self) -> str:
        return f"{self.decimal()} {self.unit} ({self.direction} bound, {self.key})"

    def __repr__(self) -> str:
        from dptheory.core import describe

        return describe.value_repr(self)

    def decimal(self, digits: int | None = None) -> str:
        """The value as a decimal string with ``digits`` (default: dps) significant digits."""
        return mpmath.nstr(self.value, digits or self.dps, strip_zeros=False, min_fixed=-5, max_fixed=25)

    @property
    def violated(self) -> list[ConditionResult]:
        return [c for c in self.conditions if c.status is Status.VIOLATED]

    @property
    def valid(self) -> bool:
        """True when no condition is violated (undecided conditions are reported, not assumed)."""
        return not self.violated

    def in_unit(self, unit: Unit) -> mpmath.mpf:
        """The value in another information unit (nats <-> bits)."""
        if unit == self.unit:
            return self.value
        with mpmath.workdps(self.dps + 5):
            if self.unit is Unit.NATS and unit is Unit.BITS:
                return +(self.value / mpmath.log(2))
            if self.unit is Unit.BITS and unit is Unit.NATS:
                return +(self.value * mpmath.log(2))
        raise ValueError(f"cannot convert {self.unit} to {unit}")

    def to_dict(self, digits: int | None = None) -> dict[str, Any]:
        """The JSON object printed by ``dptheory eval --json``."""
        return {
            "key": self.key,
            "params": {k: format_rational(v) for k, v in self.params.items()},
            "value": self.decimal(digits),
            "unit": str(self.unit),
            "direction": str(self.direction),
            "quantity": self.quantity,
            "dps": self.dps,
            "certified": self.certified,
            **({"enclosure": [self.enclosure.lo_str, self.enclosure.hi_str]} if self.enclosure is not None else {}),
            "conditions": [c.to_dict() for c in self.conditions],
        }

    def _repr_latex_(self) -> str:
        text = f"{self.unit} ({self.direction} bound, {self.key})"
        return rf"$\varepsilon = {self.decimal(min(self.dps, 12))}\ \text{{{text}}}$"

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td><code>{c.text}</code></td><td>{c.status}</td><td>{c.lhs}</td><td>{c.rhs}</td></tr>"
            for c in self.conditions
        )
        return (
            f"<p><b>{self.key}</b>: {self.decimal(min(self.dps, 15))} {self.unit} "
            f"({self.direction} bound, {self.dps} digits)</p>"
            f"<table><tr><th>condition</th><th>status</th><th>lhs</th><th>rhs</th></tr>{rows}</table>"
        )
