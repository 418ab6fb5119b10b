"""Audits of Algorithm 1/2: exact privacy loss (quadratic loss), empirical lower bounds, measured assumptions.

Ye & Shokri 2022 (arXiv 2203.05363). See ``docs/trained_models.md`` and
``docs/derivations/quadratic_exact_divergence.md``.
"""
