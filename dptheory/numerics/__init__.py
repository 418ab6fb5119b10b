"""DP-free numerical math: log-domain helpers (``logspace``), KL inverses (``kl``), binomial tails (``binomial``),
conversions; log domain, explicit precision. Each DP mechanism's kernels live with it in :mod:`dptheory.privacy`."""
