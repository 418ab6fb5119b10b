"""Ye & Shokri 2022, "Differentially Private Learning Needs Hidden State (Or Much Faster Convergence)".

NeurIPS 2022, arXiv 2203.05363.

Theorems 2.1, 3.3, 4.2, 4.3, D.4, D.6, D.7, Cor 5.3, the composition baselines (``theorems``), the
paper's claims C1-C10 (``claims``), Figures 1 and 2 (``figures``), the trained models and audits
(``quadratic``, ``audits``, ``assumptions``), and ``dptheory yeshokri22 train|audit`` (``cli``).
"""
