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

    @property
    def strict(self) -> bool:
        return self in (Monotone.INCREASING, Monotone.DECREASING)

    @property
    def up(self) -> bool:
        return self in (Monotone.INCREASING, Monotone.NONDECREASING)


class BatchScheme(StrEnum):
    """How noisy (S)GD forms its mini-batches (Ye & Shokri 2022, arXiv 2203.05363, Algorithm 1, line 2).

    SHUFFLE_PARTITION: a uniformly random partition of the records into ``N = floor(n/b)`` batches,
        drawn once and reused every epoch.
    WITHOUT_REPLACEMENT: every step draws ``b`` distinct records uniformly at random, independently.
    FIXED_ORDER: a fixed, public partition, visited in the same order every epoch.
    """

    SHUFFLE_PARTITION = "shuffle"
    WITHOUT_REPLACEMENT = "without_replacement"
    FIXED_ORDER = "fixed"

    @classmethod
    def parse(cls, value: BatchScheme | str, *, key: str = "batch scheme", citation: str = "") -> BatchScheme:
        """The scheme named by ``value`` (a member, its value, or a spelling in :data:`BATCH_SCHEME_ALIASES`).

        Raises:
            InvalidParameter: an unknown name (the message lists the accepted ones).
        """
        if isinstance(value, BatchScheme):
            return value
        try:
            return cls(BATCH_SCHEME_ALIASES[str(value).lower()])
        except KeyError:
            from dptheory.core.errors import InvalidParameter

            raise InvalidParameter(key=key, name="scheme", value=value,
                                   reason=f"unknown batch scheme; use one of {sorted(BATCH_SCHEME_ALIASES)}",
                                   citation=citation) from None


#: accepted spellings of each :class:`BatchScheme` (command line, configuration files)
BATCH_SCHEME_ALIASES: dict[str, str] = {
    "shuffle": "shuffle", "shuffle_partition": "shuffle", "shuffle-and-partition": "shuffle",
    "without_replacement": "without_replacement", "without-replacement": "without_replacement",
    "wor": "without_replacement",
    "fixed": "fixed", "fixed_order": "fixed", "fixed-order": "fixed",
}


class ConversionMethod(StrEnum):
    """How an RDP curve is converted into an (epsilon, delta) guarantee.

    IMPROVED: ``eps = rdp + log((alpha-1)/alpha) - (log delta + log alpha)/(alpha - 1)`` (Balle et al. 2020,
        "Hypothesis Testing Interpretations and Renyi Differential Privacy", arXiv 1905.09982, Thm 21).
    CLASSIC: ``eps = rdp + log(1/delta)/(alpha - 1)`` (Mironov 2017, "Renyi Differential Privacy",
        arXiv 1702.07476, Prop. 3).
    """

    IMPROVED = "improved"
    CLASSIC = "classic"

    @classmethod
    def parse(cls, value: ConversionMethod | str, *, key: str = "conversion") -> ConversionMethod:
        """The method named by ``value``.

        Raises:
            InvalidParameter: anything but 'improved' or 'classic'.
        """
        if isinstance(value, ConversionMethod):
            return value
        try:
            return cls(value)
        except ValueError:
            from dptheory.core.errors import InvalidParameter

            raise InvalidParameter(key=key, name="method", value=value, reason="must be 'improved' or 'classic'") \
                from None
