"""Generic auditing: empirical lower bounds on epsilon from trained models, Renyi divergence of Gaussian mixtures.

The audits of Ye & Shokri 2022 (arXiv 2203.05363) that are the paper's own, the exact privacy loss on the
quadratic loss and the measured assumptions of Cor 5.3, are in ``dptheory/papers/yeshokri22/``
(``quadratic.py``, ``assumptions.py``). See ``docs/trained_models.md`` and
``docs/derivations/quadratic_exact_divergence.md``.
"""
