"""Pure numerical kernels: recurrences, series, log-sum-exp sums, conversions; log domain, explicit precision."""
