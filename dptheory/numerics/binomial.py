"""Confidence limits for a binomial proportion: one-sided Clopper-Pearson (exact) and Wilson (score).

One home for the limits that the empirical audits (``audit.empirical``), the certified max-information
lower bounds (``papers.maxinfo.audit``) and the trained-model claims (``papers.shi26.claims``,
``papers.shi26.experiments``) all use. Clopper & Pearson 1934: with k successes in n trials, the upper limit
p_u solves P(Binomial(n, p_u) <= k) = alpha, i.e. p_u is the (1 - alpha) quantile of Beta(k + 1, n - k)
(1 when k = n); the lower limit p_l solves P(Binomial(n, p_l) >= k) = alpha, the alpha quantile of
Beta(k, n - k + 1) (0 when k = 0). scipy's beta quantile does the work.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dptheory.core.errors import InvalidParameter

__all__ = ["clopper_pearson_lower", "clopper_pearson_upper", "wilson"]

KEY = "clopper_pearson"
CITE = "Clopper and Pearson 1934, one-sided exact binomial limits"


def _checked(k: Any, n: Any, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    k, n = np.asarray(k), np.asarray(n)
    if np.any(n <= 0) or np.any(k < 0) or np.any(k > n):
        raise InvalidParameter(key=KEY, name="k", value=k.tolist(), reason=f"need 0 <= k <= n with n >= 1 "
                               f"(n = {n.tolist()})", citation=CITE)
    if not 0 < alpha < 1:
        raise InvalidParameter(key=KEY, name="alpha", value=alpha, reason="must be in (0, 1)", citation=CITE)
    return k, n


def _out(x: np.ndarray) -> Any:
    return float(x) if np.ndim(x) == 0 else x


def clopper_pearson_upper(k: Any, n: Any, alpha: float) -> Any:
    """Upper limit at level 1 - alpha: P(true rate > limit) <= alpha for k successes in n trials.

    Scalars give a float, arrays (broadcast) an array."""
    from scipy.stats import beta as beta_dist  # here: scipy.stats takes about 0.4 s to import

    k, n = _checked(k, n, alpha)
    return _out(np.where(k >= n, 1.0, beta_dist.ppf(1.0 - alpha, k + 1, np.maximum(n - k, 1))))


def clopper_pearson_lower(k: Any, n: Any, alpha: float) -> Any:
    """Lower limit at level 1 - alpha: P(true rate < limit) <= alpha for k successes in n trials."""
    from scipy.stats import beta as beta_dist

    k, n = _checked(k, n, alpha)
    return _out(np.where(k <= 0, 0.0, beta_dist.ppf(alpha, np.maximum(k, 1), n - k + 1)))


def wilson(p: float, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (95% two-sided by default)."""
    den = 1 + z * z / n
    c = (p + z * z / (2 * n)) / den
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, c - h), min(1.0, c + h)
