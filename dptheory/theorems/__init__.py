"""Theorem families. Importing this package registers every theorem and claim."""

from ..privacy import rdp  # noqa: F401
from . import (
    ye_shokri_2022,  # noqa: F401
    ye_shokri_2022_claims,  # noqa: F401
)
