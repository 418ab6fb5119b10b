"""Shi, Wang, Zhang, Cao, "Towards Understanding Generalization in DP-GD: A Case Study in Training Two-Layer CNNs".

Theorems 1-3, Lemma 39 and its corrections (``theorems``), the claims and findings (``claims``),
Conditions 1-2 and the feasibility search (``feasibility``), exact accounting of DP-GD
(``privacy``), the Huberized-ReLU CNN (``cnn``), Figure 1 (``experiments``, ``figures``), and
``dptheory shi26 ...`` (``cli``).
"""
