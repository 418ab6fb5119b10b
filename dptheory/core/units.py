"""Units and directions carried by every bound and every evaluated value.

Everything is computed in nats; bits appear only at the boundary (report, CLI ``--unit bits``).
"""

from __future__ import annotations

from enum import StrEnum


class Unit(StrEnum):
    """Unit of an information quantity (privacy loss, divergence, max-information)."""

    NATS = "nats"
    BITS = "bits"
    DIMENSIONLESS = "dimensionless"  # probabilities, deltas, ratios

    def __str__(self) -> str:
        return self.value


class Direction(StrEnum):
    """What a number says about the true quantity.

    UPPER: the true quantity is at most this value (a guarantee).
    LOWER: the true quantity is at least this value.
    EXACT: the value is the quantity itself (up to the stated precision).
    ASYMPTOTIC: an order-of-magnitude statement with hidden constants; never a guarantee, and refused
        wherever an upper bound is required.
    """

    UPPER = "upper"
    LOWER = "lower"
    EXACT = "exact"
    ASYMPTOTIC = "asymptotic"

    def __str__(self) -> str:
        return self.value

    @property
    def is_guarantee(self) -> bool:
        """True when the number can be used as a privacy guarantee (an upper bound on the loss)."""
        return self in (Direction.UPPER, Direction.EXACT)


class Monotone(StrEnum):
    """The sense in which a bound is stated (or proved) monotone in a parameter."""

    INCREASING = "increasing"
    DECREASING = "decreasing"
    NONDECREASING = "nondecreasing"
    NONINCREASING = "nonincreasing"

    def __str__(self) -> str:
        return self.value

    @property
    def strict(self) -> bool:
        return self in (Monotone.INCREASING, Monotone.DECREASING)

    @property
    def up(self) -> bool:
        return self in (Monotone.INCREASING, Monotone.NONDECREASING)
