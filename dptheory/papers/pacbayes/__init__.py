"""PAC-Bayes: Maurer 2004 (arXiv cs/0411099), McAllester 1999, Dziugaite & Roy 2018 (arXiv 1802.09583), and ours.

The classic bounds (``maurer04.*``, ``mcallester99``, ``dr18.*``) and our derived bounds with a
max-information prior (``pacbayes.*``: G1-G3, kl inversion, Pinsker relaxation) share one notation
table (``theorems``; the theorems are the ``[[theorem]]`` tables of ``paper.toml``, their hand-written kernels
``kernels``); claims (``claims``); ``dptheory pacbayes bound`` (``cli``).
"""
