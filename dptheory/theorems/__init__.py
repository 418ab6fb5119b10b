"""Theorem families. Importing this package registers every theorem and claim."""

from ..privacy import rdp, rdp_wor  # noqa: F401
from . import (  # noqa: F401
    lampert_zakerinia_2026,
    lampert_zakerinia_2026_claims,
    max_information,
    max_information_claims,
    pac_bayes,
    pac_bayes_claims,
    shi_2026,
    shi_2026_claims,
    ye_shokri_2022,
    ye_shokri_2022_claims,
)
