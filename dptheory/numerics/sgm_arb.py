"""Certified RDP of the Poisson-subsampled Gaussian mechanism at integer orders, on python-flint balls.

Mironov, Talwar, Zhang 2019, "Renyi Differential Privacy of the Sampled Gaussian Mechanism"
(arXiv 1908.10530), Sec. 3.3: for an integer order ``alpha >= 2``

    A_alpha = sum_{k=0}^{alpha} C(alpha, k) (1 - q)^(alpha - k) q^k exp(k (k - 1) / (2 z^2)),

and the RDP of ``T`` compositions is ``T log(A_alpha) / (alpha - 1)`` (Mironov 2017, Prop. 1). Every
term is nonnegative for ``0 <= q <= 1``, so the sum has no cancellation and its ball stays tight;
arb's unbounded exponents make the huge terms of small ``z`` harmless (no log-domain rewrite needed).
The noise enters only through ``z^2`` (``z2`` below), so callers whose ``z`` is a square root of a
rational (the Ye & Shokri composition baseline) pass an exact ``z^2``.

Fractional orders (MTZ19's two-sided series or the defining integral) are not certified here: the
functions raise :class:`~dptheory.core.errors.NumericalFailure` saying so, and
:meth:`Theorem.evaluate` then falls back to the mpmath kernel and reports the value as not certified.

This module is an independent evaluation path for ``rdp.subsampled_gaussian`` (the mpmath kernel is
:mod:`dptheory.numerics.sgm`, which sums in the log domain); tests compare the two at high precision.
"""

from __future__ import annotations

from typing import Any

from dptheory.core.errors import NumericalFailure

__all__ = ["MAX_ORDER", "integer_order", "log_a_int_arb", "log_b_wor_arb", "rdp_int_arb", "rdp_wor_arb"]

#: largest integer order summed (alpha + 1 terms; ~3 ms at 2000 at 200 bits)
MAX_ORDER = 100_000


def integer_order(alpha: Any, where: str) -> int:
    """The order as a Python int when the ball ``alpha`` is an exact integer >= 2, else NumericalFailure."""
    k = alpha.unique_fmpz() if alpha.is_exact() else None
    if k is None:
        raise NumericalFailure(
            f"{where}: the order alpha = {alpha.str(10)} is not an integer; only integer orders are certified "
            "(exact binomial sum, MTZ19 Sec. 3.3); fractional orders are evaluated without certification"
        )
    a = int(k)
    if a < 2:
        raise NumericalFailure(f"{where}: the order alpha = {a} must be at least 2")
    if a > MAX_ORDER:
        raise NumericalFailure(f"{where}: the order alpha = {a} is above {MAX_ORDER} (that many terms); not certified")
    return a


def log_a_int_arb(alpha: int, q: Any, z2: Any) -> Any:
    """Ball enclosing ``log A_alpha`` (module docstring) for an integer order, ``0 <= q <= 1`` and ``z2 = z^2 > 0``.

    ``q`` and ``z2`` are balls at the caller's ``flint.ctx.prec``. The binomial coefficients are exact
    integers; the terms are built by ratios from the k = 0 term to keep the cost at O(alpha) ball
    operations.
    """
    import flint

    arb = flint.arb
    if not bool(q >= 0) or not bool(q <= 1):
        raise NumericalFailure(f"sgm_arb: q = {q.str(10)} is not certainly in [0, 1]")
    if not bool(z2 > 0):
        raise NumericalFailure(f"sgm_arb: z^2 = {z2.str(10)} is not certainly positive")
    if q.is_zero():
        return arb(0)
    one_minus_q = 1 - q
    if one_minus_q.is_zero():  # q = 1: A = exp(alpha (alpha - 1) / (2 z^2))
        return arb(alpha * (alpha - 1)) / (2 * z2)
    inv2z2 = 1 / (2 * z2)
    ratio_q = q / one_minus_q
    # term_k = C(alpha, k) (1-q)^alpha (q/(1-q))^k exp(k(k-1)/(2 z^2)); the sum is taken with the
    # factor (1-q)^alpha pulled out (added back in the log), and exp(k(k-1)/(2z^2)) = prod_{j<k} exp(j/z^2)
    total = arb(1)
    term = arb(1)
    step = arb(1)  # exp((k-1)/z^2) at step k: multiplies exp((k-1)k/(2z^2)) from k-1 to k
    e1 = (2 * inv2z2).exp()
    for k in range(1, alpha + 1):
        if k >= 2:
            step = step * e1
        term = term * ratio_q * arb(alpha - k + 1) / arb(k) * step
        total = total + term
    return arb(alpha) * one_minus_q.log() + total.log()


def rdp_int_arb(alpha: Any, q: Any, z2: Any, T: Any, where: str = "rdp.subsampled_gaussian") -> Any:
    """Ball enclosing ``T log A_alpha / (alpha - 1)`` for an integer order (balls in, ball out)."""
    a = integer_order(alpha, where)
    return T * log_a_int_arb(a, q, z2) / (a - 1)


# ---------------------------------------------------------------------------------------------- WOR
# Wang, Balle, Kasiviswanathan 2019, "Subsampled Renyi Differential Privacy and Analytical Moments
# Accountant" (arXiv 1808.00087), Theorem 9 with the Gaussian's eps(j) = j/(2 z^2), eps(inf) = inf, and
# Corollary 10 (fractional orders): a finite sum, certified at every order.


def log_b_wor_arb(k: int, q: Any, z2: Any) -> Any:
    """Ball enclosing ``log B(k)`` of WBK19 Thm 9 for an integer ``k >= 1`` (``B(1) = 1``):

    ``B(k) = 1 + q^2 C(k,2) min(4 (e^{1/z^2} - 1), 2 e^{1/z^2}) + sum_{j=3}^{k} 2 q^j C(k,j) e^{j(j-1)/(2 z^2)}``.
    """
    import flint

    arb = flint.arb
    if k <= 1:
        return arb(0)
    e1 = (1 / z2).exp()
    total = 1 + q * q * arb(k * (k - 1) // 2) * (4 * (1 / z2).expm1()).min(2 * e1)
    # term_j = 2 C(k, j) q^j exp(j(j-1)/(2 z^2)), built by ratios from j = 2
    term = 2 * arb(k * (k - 1) // 2) * q * q * e1
    step = e1
    for j in range(3, k + 1):
        step = step * e1  # exp((j-1)/z^2)
        term = term * q * arb(k - j + 1) / arb(j) * step
        total = total + term
    return total.log()


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
