"""Certified RDP of the Poisson-subsampled Gaussian mechanism at every order, on python-flint balls.

Mironov, Talwar, Zhang 2019, "Renyi Differential Privacy of the Sampled Gaussian Mechanism"
(arXiv 1908.10530), Sec. 3.3: for an integer order ``alpha >= 2``

    A_alpha = sum_{k=0}^{alpha} C(alpha, k) (1 - q)^(alpha - k) q^k exp(k (k - 1) / (2 z^2)),

and the RDP of ``T`` compositions is ``T log(A_alpha) / (alpha - 1)`` (Mironov 2017, Prop. 1). Every
term is nonnegative for ``0 <= q <= 1``, so the sum has no cancellation and its ball stays tight;
arb's unbounded exponents make the huge terms of small ``z`` harmless (no log-domain rewrite needed).
The noise enters only through ``z^2`` (``z2`` below), so callers whose ``z`` is a square root of a
rational (the Ye & Shokri composition baseline) pass an exact ``z^2``.

Fractional orders (:func:`log_a_frac_arb`) use MTZ19's two-sided signed series: the head
(``i <= floor(alpha)``, positive terms) summed on balls, and the alternating tail summed with the
Cohen-Rodriguez Villegas-Zagier weights (exact integers here) plus the rigorous error term
``a_0 / T_n(3)``. Why that bound holds (the tail is an alternating series of Hausdorff moments) is
derived in ``docs/derivations/sgm_fractional_tail.md``; the number of tail terms follows the working
precision, so the Ziv loop of :func:`dptheory.core.compile.enclose` tightens both the rounding and the
truncation at once. :func:`rdp_arb` dispatches between the two.

This module is an independent evaluation path for ``rdp.subsampled_gaussian`` (the mpmath kernel is
:mod:`dptheory.privacy.sgm.mp`, which sums in the log domain); tests compare the two at high precision.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from typing import Any

from dptheory.core.errors import NumericalFailure
from dptheory.numerics.logspace import log1pmx_arb

__all__ = [
    "MAX_ORDER",
    "cvz_terms",
    "cvz_weights",
    "integer_order",
    "log_a_frac_arb",
    "log_a_int_arb",
    "rdp_arb",
    "rdp_int_arb",
    "theorem_arb",
]

#: largest integer order summed (alpha + 1 terms; ~3 ms at 2000 at 200 bits)
MAX_ORDER = 100_000


def integer_order(alpha: Any, where: str) -> int:
    """The order as a Python int when the ball ``alpha`` is an exact integer >= 2, else NumericalFailure."""
    k = alpha.unique_fmpz() if alpha.is_exact() else None
    if k is None:
        raise NumericalFailure(
            f"{where}: the order alpha = {alpha.str(10)} is not an integer; the exact binomial sum (MTZ19 Sec. 3.3) "
            "needs one (rdp_arb certifies fractional orders with the series)"
        )
    a = int(k)
    if a < 2:
        raise NumericalFailure(f"{where}: the order alpha = {a} must be at least 2")
    if a > MAX_ORDER:
        raise NumericalFailure(f"{where}: the order alpha = {a} is above {MAX_ORDER} (that many terms); not certified")
    return a


def _check_order(alpha: Any) -> None:
    """A fractional order's ball certainly above 1, else :class:`NumericalFailure`."""
    if not bool(alpha > 1):
        raise NumericalFailure(f"sgm_arb: the order alpha = {alpha.str(10)} is not certainly above 1")


def _check_qz2(q: Any, z2: Any) -> None:
    """The balls' domain of both sums: ``q`` certainly in ``[0, 1]`` and ``z2 = z^2`` certainly positive, else
    :class:`NumericalFailure`."""
    if not bool(q >= 0) or not bool(q <= 1):
        raise NumericalFailure(f"sgm_arb: q = {q.str(10)} is not certainly in [0, 1]")
    if not bool(z2 > 0):
        raise NumericalFailure(f"sgm_arb: z^2 = {z2.str(10)} is not certainly positive")


def log_a_int_arb(alpha: int, q: Any, z2: Any) -> Any:
    """Ball enclosing ``log A_alpha`` (module docstring) for an integer order, ``0 <= q <= 1`` and ``z2 = z^2 > 0``.

    ``q`` and ``z2`` are balls at the caller's ``flint.ctx.prec``. The binomial coefficients are exact
    integers; the terms are built by ratios from the k = 0 term to keep the cost at O(alpha) ball
    operations.
    """
    import flint

    arb = flint.arb
    _check_qz2(q, z2)
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


# ----------------------------------------------------------------------------------------- fractional
# MTZ19 Sec. 3.3, two-sided series; tail bound: docs/derivations/sgm_fractional_tail.md


@functools.lru_cache(maxsize=64)
def cvz_weights(n: int) -> tuple[tuple[int, ...], int]:
    """Exact CVZ weights for ``n`` terms: integers ``Q_0..Q_{n-1}`` and ``d = T_n(3)`` with
    ``(d - T_n(1 - 2x)) / (1 + x) = sum_k Q_k x^k`` (Cohen, Rodriguez Villegas, Zagier 2000, "Convergence
    acceleration of alternating series", Exp. Math. 9, Algorithm 1 and Prop. 1, with the Chebyshev
    polynomial T_n). For ``a_k = int_0^1 x^k dnu(x)``, ``nu >= 0``: ``|sum_k (-1)^k a_k - sum_k Q_k a_k / d|
    <= a_0 / d`` (docs/derivations/sgm_fractional_tail.md)."""
    import flint

    if n < 1:
        raise NumericalFailure(f"sgm_arb: the CVZ sum needs at least 1 term, got {n}")
    x = flint.fmpz_poly([0, 1])
    p = flint.fmpz_poly.chebyshev_t(n)(1 - 2 * x)
    d = int(flint.fmpz_poly.chebyshev_t(n)(3))
    quo, rem = divmod(d - p, 1 + x)
    if rem != 0:  # pragma: no cover - x = -1 is a root of d - P by construction
        raise NumericalFailure("sgm_arb: CVZ polynomial division left a remainder")
    coeffs = [int(c) for c in quo.coeffs()]
    coeffs += [0] * (n - len(coeffs))
    return tuple(coeffs[:n]), d


def cvz_terms(prec: int) -> int:
    """Tail terms for a truncation below ``2^-(prec + 4)`` of ``A``: ``a_0 <= 2 A`` and ``d >= (3 + sqrt 8)^n / 2``."""
    return math.ceil((prec + 6) * math.log(2) / math.log(3 + math.sqrt(8))) + 1


def _undecided(msg: str) -> Exception:
    from dptheory.core.compile import Undecided

    return Undecided(msg)


def log_a_frac_arb(alpha: Any, q: Any, z2: Any, terms: int | None = None) -> Any:
    """Ball enclosing ``log A_alpha`` at a fractional order ``alpha > 1`` (MTZ19 Sec. 3.3); ``0 <= q <= 1``, ``z2 > 0``.

    With ``z0 = z^2 log((1-q)/q) + 1/2`` (where ``q e^{(2x-1)/(2z^2)} = 1 - q``), ``j = alpha - i`` and
    ``Phi`` the standard normal CDF, ``A = sum_{i >= 0} (s0_i + s1_i)``::

        s0_i = C(alpha, i) (1-q)^(alpha-i) q^i e^{(i^2-i)/(2z^2)} Phi((z0 - i)/z)
        s1_i = C(alpha, i) q^(alpha-i) (1-q)^i e^{(j^2-j)/(2z^2)} Phi((j - z0)/z)

    Terms ``i <= floor(alpha)`` are positive; from ``i0 = floor(alpha) + 1`` on they alternate in sign and
    ``a_k = |s0_{i0+k}| + |s1_{i0+k}|`` is a Hausdorff moment sequence, so the tail is the CVZ sum of
    :func:`cvz_weights` with ``n = cvz_terms(prec)`` terms plus a ball of radius ``a_0 / T_n(3)``.
    ``alpha`` may be a ball (e.g. 11/10 rounded); a floor that the ball does not decide raises
    :class:`~dptheory.core.compile.Undecided` (the Ziv loop then raises the precision). ``terms`` overrides
    ``n`` (tests: the ball must still contain the value, only wider).
    """
    import flint

    arb = flint.arb
    prec = flint.ctx.prec
    _check_order(alpha)
    _check_qz2(q, z2)
    fl = alpha.floor()
    m = fl.unique_fmpz() if fl.is_exact() else None
    if m is None or bool(alpha == fl) or alpha.contains(fl):
        raise _undecided(f"sgm_arb: floor(alpha) is not decided on the ball alpha = {alpha.str(10)}")
    i0 = int(m) + 1
    if i0 > MAX_ORDER:
        raise NumericalFailure(f"sgm_arb: the order alpha = {alpha.str(10)} is above {MAX_ORDER}; not certified")
    if q.is_zero():
        return arb(0)
    if (1 - q).is_zero():
        return alpha * (alpha - 1) / (2 * z2)
    if q.contains(0) or q.contains(1):
        raise _undecided(f"sgm_arb: q = {q.str(10)} is not separated from 0 and 1")
    lq = q.log()
    l1q = (-q).log1p()
    z0 = z2 * (l1q - lq) + arb(1) / 2
    inv_sqrt2z = 1 / (2 * z2).sqrt()
    inv2z2 = 1 / (2 * z2)

    def pair(i: int, abs_c: Any) -> Any:
        j = alpha - i
        s1 = (j * lq + i * l1q + (j * j - j) * inv2z2).exp() * ((z0 - j) * inv_sqrt2z).erfc()
        if i < 2:  # s0_0 and s0_1 enter through the closed form of 1 - s0_0 - s0_1 below
            return abs_c * s1 / 2
        s0 = (j * l1q + i * lq + arb(i * i - i) * inv2z2).exp() * ((i - z0) * inv_sqrt2z).erfc()
        return abs_c * (s0 + s1) / 2

    binom = arb(1)
    head = arb(0)
    for i in range(i0):
        if i > 0:
            binom = binom * (alpha - (i - 1)) / i
        head += pair(i, binom)
    n = cvz_terms(prec) if terms is None else terms
    coeffs, d = cvz_weights(n)
    tail = arb(0)
    a0 = arb(0)
    for k in range(n):
        i = i0 + k
        binom = binom * (alpha - (i - 1)) / i
        ak = pair(i, abs(binom))
        if k == 0:
            a0 = ak
        tail += arb(coeffs[k]) * ak
    tail = tail / d + arb(0, (a0.upper() / d).upper())
    return (head + tail - _one_minus_s00_s01(alpha, q, z0, z2)).log1p()


def _one_minus_s00_s01(alpha: Any, q: Any, z0: Any, z2: Any) -> Any:
    """``1 - s0_0 - s0_1`` as a sum of three nonnegative parts (the O(q) cancellation done by hand):

    ``(1-q)^(alpha-1) (1 + (alpha-1) q) = e^lam`` with ``lam = (alpha-1) log1pmx(-q) + log1pmx((alpha-1) q) <= 0``
    (the linear parts cancel exactly), ``a0 = z0/z``, ``b1 = (z0 - 1)/z``, ``Delta = Phi(a0) - Phi(b1) >= 0``::

        1 - s0_0 - s0_1 = Phi(-a0) + (-expm1(lam)) Phi(a0) + alpha q (1-q)^(alpha-1) Delta

    (from ``(1-q) Phi(a0) + alpha q Phi(b1) = (1 + (alpha-1) q) Phi(a0) - alpha q Delta``). Without it,
    ``log A`` near 0 (tiny ``q``, large ``z``) would need ``log2(1/(A-1))`` extra bits.
    """
    import flint

    arb = flint.arb
    inv_sqrt2 = 1 / arb(2).sqrt()
    z = z2.sqrt()
    a0 = z0 / z
    b1 = (z0 - 1) / z
    lam = (alpha - 1) * log1pmx_arb(-q) + log1pmx_arb((alpha - 1) * q)
    phi_a0 = (-a0 * inv_sqrt2).erfc() / 2
    phi_neg_a0 = (a0 * inv_sqrt2).erfc() / 2
    if bool(b1 > 0):
        delta = ((b1 * inv_sqrt2).erfc() - (a0 * inv_sqrt2).erfc()) / 2
    elif bool(a0 < 0):
        delta = ((-a0 * inv_sqrt2).erfc() - (-b1 * inv_sqrt2).erfc()) / 2
    else:
        delta = ((a0 * inv_sqrt2).erf() - (b1 * inv_sqrt2).erf()) / 2
    coef = alpha * q * ((alpha - 1) * (-q).log1p()).exp()
    return phi_neg_a0 + (-lam.expm1()) * phi_a0 + coef * delta


def rdp_arb(alpha: Any, q: Any, z2: Any, T: Any, where: str = "rdp.subsampled_gaussian") -> Any:
    """Ball enclosing ``T log A_alpha / (alpha - 1)`` at any order ``alpha > 1``: the exact binomial sum at an
    integer order (:func:`log_a_int_arb`), the signed series with its CVZ tail bound otherwise
    (:func:`log_a_frac_arb`)."""
    import flint

    k = alpha.unique_fmpz() if alpha.is_exact() else None
    if k is not None:
        return rdp_int_arb(alpha, q, z2, T, where)
    T = flint.arb(T)
    _check_order(alpha)  # before the shortcut: no steps of an undefined mechanism are not 0 (as in rdp_mp)
    _check_qz2(q, z2)
    if q.is_zero() or T.is_zero():
        return flint.arb(0)
    try:
        return T * log_a_frac_arb(alpha, q, z2) / (alpha - 1)
    except NumericalFailure as exc:
        if type(exc) is not NumericalFailure:  # Undecided: the Ziv loop retries at higher precision
            raise
        raise NumericalFailure(f"{where}: {exc}") from None


def theorem_arb(p: Mapping[str, Any]) -> Any:
    """The arb kernel of ``rdp.subsampled_gaussian`` (MTZ19 Sec. 3.3): :func:`rdp_arb` on its parameters
    (``z2 = z^2``)."""
    return rdp_arb(p["alpha"], p["q"], p["z"] * p["z"], p["T"])
