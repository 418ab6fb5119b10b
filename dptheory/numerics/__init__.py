"""DP-free numerical math: log-domain helpers, KL inverses, binomial tails; explicit precision.

``logspace`` (log1pmx, streamed log-sum-exp, log-binomials for mp/float64/arb), ``kl``, ``binomial``. Each DP
mechanism's kernels live with it in :mod:`dptheory.privacy`."""
