"""Lampert & Zakerinia 2026, "From Privacy to Generalization: Linear Max-Information Bounds for DP-SGD".

arXiv 2605.26222.

Theorem 1 in its published asymptotic form, the shapes of Theorem 2, the Gaussian calibration they
quote (``theorems``) and their claims (``claims``). The non-asymptotic DP-SGD bounds we derived
ourselves live in :mod:`dptheory.papers.maxinfo` (keys ``maxinfo.*``), labelled as ours.
"""
