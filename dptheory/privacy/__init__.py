"""General DP machinery shared by many papers: Gaussian and subsampled-Gaussian RDP, conversions."""
