"""Pure numerical kernels: recurrences, series, log-sum-exp sums; log domain, explicit precision. The RDP ->
(epsilon, delta) conversion is the privacy layer's (:mod:`dptheory.privacy.conversion`)."""
