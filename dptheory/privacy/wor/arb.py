"""Certified WBK19 bound (arXiv 1808.00087, Theorem 9 with the Gaussian's eps(j) = j/(2 z^2), eps(inf) = inf, and
Corollary 10 at fractional orders) on python-flint balls: a finite sum of positive terms, certified at every order.

Wang, Balle, Kasiviswanathan 2019, "Subsampled Renyi Differential Privacy and Analytical Moments Accountant".
python-flint is imported inside the functions.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dptheory.core.errors import NumericalFailure
from dptheory.privacy.sgm.arb import MAX_ORDER

__all__ = ["log_b_wor_arb", "rdp_wor_arb", "theorem_arb"]


def log_b_wor_arb(k: int, q: Any, z2: Any) -> Any:
    """Ball enclosing ``log B(k)`` of WBK19 Thm 9 for an integer ``k >= 1`` (``B(1) = 1``):

    ``B(k) = 1 + q^2 C(k,2) min(4 (e^{1/z^2} - 1), 2 e^{1/z^2}) + sum_{j=3}^{k} 2 q^j C(k,j) e^{j(j-1)/(2 z^2)}``.
    """
    import flint

    arb = flint.arb
    if k <= 1:
        return arb(0)
    e1 = (1 / z2).exp()
    # B(k) - 1, summed without the 1 so that log1p keeps its relative accuracy when it is tiny (e.g.
    # 4e-330 at q = 1e-5, z = 1e160, k = 2: log(1 + x) on balls would only give an absolute radius)
    excess = q * q * arb(k * (k - 1) // 2) * (4 * (1 / z2).expm1()).min(2 * e1)
    # term_j = 2 C(k, j) q^j exp(j(j-1)/(2 z^2)), built by ratios from j = 2
    term = 2 * arb(k * (k - 1) // 2) * q * q * e1
    step = e1
    for j in range(3, k + 1):
        step = step * e1  # exp((j-1)/z^2)
        term = term * q * arb(k - j + 1) / arb(j) * step
        excess = excess + term
    return excess.log1p()


def rdp_wor_arb(alpha: Any, q: Any, z2: Any, T: Any, where: str = "rdp.sampled_wor_gaussian") -> Any:
    """Ball enclosing WBK19's bound ``T K(alpha)/(alpha - 1)`` (Thm 9; Cor 10 between integer orders).

    ``alpha`` may be any exact ball > 1 (the interpolation weight ``alpha - floor(alpha)`` is exact).
    """
    import flint

    if not bool(alpha > 1):
        raise NumericalFailure(f"{where}: the order alpha = {alpha.str(10)} must exceed 1")
    if not bool(q >= 0) or not bool(q <= 1) or not bool(z2 > 0):
        raise NumericalFailure(f"{where}: q must be in [0, 1] and z^2 > 0")
    if q.is_zero() or T.is_zero():
        return flint.arb(0)
    fl = alpha.floor()
    f = fl.unique_fmpz() if fl.is_exact() else None
    if f is None:
        raise NumericalFailure(f"{where}: floor(alpha) is not decided at this precision")
    f = int(f)
    if f + 1 > MAX_ORDER:
        raise NumericalFailure(f"{where}: the order alpha = {f} is above {MAX_ORDER} (that many terms); not certified")
    t = alpha - fl
    if t.is_zero():
        K = log_b_wor_arb(f, q, z2)
    else:
        K = (1 - t) * log_b_wor_arb(f, q, z2) + t * log_b_wor_arb(f + 1, q, z2)
    return T * K / (alpha - 1)


def theorem_arb(p: Mapping[str, Any]) -> Any:
    """The arb kernel of ``rdp.sampled_wor_gaussian`` (WBK19 Thm 9, Cor 10): :func:`rdp_wor_arb` on its parameters
    (``z2 = z^2``)."""
    return rdp_wor_arb(p["alpha"], p["q"], p["z"] * p["z"], p["T"])
