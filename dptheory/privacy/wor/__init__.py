"""RDP of the Gaussian mechanism under fixed-size sampling without replacement: the mechanism with all its backends.

Source: Wang, Balle and Kasiviswanathan, "Subsampled Renyi Differential Privacy and Analytical Moments
Accountant", AISTATS 2019, arXiv 1808.00087 (WBK19): Theorem 9 (the general upper bound) at integer
orders and Corollary 10 (interpolation of the cumulant generating function) at fractional orders.

Setting: a dataset of ``n`` records, a batch of ``m`` distinct records drawn uniformly without
replacement, the Gaussian mechanism applied to the batch. Neighbouring datasets have the same size and
differ in one replaced record (replace-one), so ``n`` is public. ``z`` is the noise standard deviation
divided by the l2 sensitivity of the batch query *under replace-one*. The base mechanism then has
``eps(j) = j / (2 z^2)`` at every order ``j`` (Mironov 2017, Prop. 7) and ``eps(inf) = inf``.
The sampling fraction is ``gamma = m/n``; the bound depends on ``m`` and ``n`` only through it, so the
kernels take the ratio ``q = gamma`` (pass it as an exact fraction, e.g. ``"2/50"``, for exact input).

Integer orders ``alpha >= 2`` (Theorem 9 with ``eps(inf) = inf``, so every ``min{2, (e^eps(inf) - 1)^j}``
is 2)::

    B_alpha = 1 + gamma^2 C(alpha, 2) min{4 (e^{eps(2)} - 1), 2 e^{eps(2)}}
                + sum_{j=3}^{alpha} 2 gamma^j C(alpha, j) e^{(j-1) eps(j)},

    eps(2) = 1/z^2,  (j-1) eps(j) = j (j-1) / (2 z^2),
    RDP at order alpha <= log(B_alpha) / (alpha - 1).

``K(alpha) = log B_alpha`` is a bound on the cumulant generating function ``(alpha - 1) D_alpha``.
``B_1 = 1`` (empty sum), so ``K(1) = 0``.

Fractional orders (Corollary 10): ``(alpha - 1) D_alpha`` is convex in ``alpha``, so with
``f = floor(alpha)``, ``c = f + 1`` and ``t = alpha - f``::

    RDP at order alpha <= ((1 - t) K(f) + t K(c)) / (alpha - 1).

For ``1 < alpha < 2`` this is ``K(2) = log B_2``. ``T`` steps compose linearly (Mironov 2017, Prop. 1):
the value is multiplied by ``T``.

Limits: ``q = 0`` gives 0 (every term carries ``gamma^j``, ``j >= 2``). ``q = 1`` gives Theorem 9 at
``gamma = 1``, which is *not* the plain Gaussian ``alpha / (2 z^2)``: it is larger (at ``alpha = 2`` the
bracket is ``1 + min{4 (e^{1/z^2} - 1), 2 e^{1/z^2}}`` against the exact ``e^{1/z^2}``). We keep the
theorem's value there (dp-accounting instead returns the plain Gaussian at ``q = 1``); see
``docs/privacy_baselines.md``.

Numerics. Every term is positive, so there is no cancellation: the kernels work in the log domain,
``l_j = log C(alpha, j) + j log gamma + log c_j`` with ``log c_2 = min(log 4 + log expm1(1/z^2),
log 2 + 1/z^2)`` and ``log c_j = log 2 + j (j - 1)/(2 z^2)``, and ``K = log1p(sum_j e^{l_j})``
(``log1p`` keeps the digits of a tiny sum; for a large sum ``K = l_max + log(sum_j e^{l_j - l_max} +
e^{-l_max})``). Nothing overflows in either kernel.

* :func:`rdp_mp`: mpmath at the caller's ``mp.dps`` (read, never set), inside ``workdps`` with guard
  digits for the size of the exponents (an exponent ``E`` carries absolute error ``10^-wp |E|``, which
  is relative error ``10^-wp |E| / K`` in ``K``) and the number of terms. Terms that a float64
  estimate puts more than ``wp + 5`` digits (divided by the number of terms) below the largest are
  skipped; non-finite estimates are never skipped.
* :func:`rdp_np`: float64, vectorised over any broadcast of (alpha, q, z, T); the integer orders needed
  (alpha itself, or floor and ceiling) are deduplicated and summed by a streaming log-sum-exp in
  column blocks. Log binomials use Loader's cancellation-free form (shared with :mod:`.sgm`). Each
  point carries an error estimate (``1.5 eps`` times the sum of the absolute additive pieces of every
  log term, weighted by the term's share, plus summation); points whose estimated relative error
  exceeds ``FALLBACK_RTOL = 1e-11``, or that are not finite, are recomputed with :func:`rdp_mp` at 30
  digits. ``+inf`` is returned only where the true value exceeds the float64 range.

Layout (the statement ``rdp.sampled_wor_gaussian`` is declared in :mod:`dptheory.privacy.rdp_wor` and points
at the ``theorem_*`` kernels here): :mod:`.validate` (parameter checks, order cap), :mod:`.terms` (float64 log
magnitudes of the terms), :mod:`.float64` (:func:`log_b_np`, :func:`rdp_np`), :mod:`.mp` (:func:`log_b_mp`,
:func:`rdp_mp`), :mod:`.arb` (:func:`rdp_wor_arb`, certified at every order).
"""

from __future__ import annotations

from dptheory.privacy.wor.arb import log_b_wor_arb, rdp_wor_arb, theorem_arb
from dptheory.privacy.wor.float64 import FALLBACK_DPS, FALLBACK_RTOL, log_b_np, rdp_np, theorem_np
from dptheory.privacy.wor.mp import log_b_mp, rdp_mp, theorem_mp
from dptheory.privacy.wor.validate import MAX_INT_ORDER

__all__ = [
    "FALLBACK_DPS",
    "FALLBACK_RTOL",
    "MAX_INT_ORDER",
    "log_b_mp",
    "log_b_np",
    "log_b_wor_arb",
    "rdp_mp",
    "rdp_np",
    "rdp_wor_arb",
    "theorem_arb",
    "theorem_mp",
    "theorem_np",
]
