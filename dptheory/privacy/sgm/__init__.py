"""Rényi DP of the Poisson-subsampled Gaussian mechanism (SGM): the mechanism with all its backends.

Definitions (Mironov, Talwar, Zhang 2019, "Rényi Differential Privacy of the Sampled Gaussian
Mechanism", arXiv 1908.10530, Sec. 3.3; sensitivity 1, noise multiplier ``z``, Poisson sampling
probability ``q``)::

    A_alpha(q, z) = E_{x ~ N(0, z^2)} [((1 - q) + q exp((2x - 1) / (2 z^2)))^alpha]
    RDP of T steps at order alpha = T log(A_alpha) / (alpha - 1)

``q = 1`` is the plain Gaussian, ``T alpha / (2 z^2)`` (Mironov 2017, Prop. 7); ``q = 0`` gives 0.

Integer orders use the exact binomial sum, rewritten without cancellation. Because the binomial
weights sum to 1,

    A_alpha - 1 = sum_{i=2}^{alpha} C(alpha, i) (1-q)^(alpha-i) q^i expm1((i^2 - i) / (2 z^2)),

and every term is positive. ``log A`` is then ``log1p`` of that sum.

Fractional orders use the MTZ19 Sec. 3.3 two-sided series. Split the integral at
``z0 = z^2 log(1/q - 1) + 1/2``, where ``q e^u = 1 - q``, and expand each side binomially:

    s0_i = C(alpha, i) (1-q)^(alpha-i) q^i exp((i^2-i)/(2z^2)) * erfc((i - z0)/(sqrt(2) z)) / 2
    s1_i = C(alpha, i) q^(alpha-i) (1-q)^i exp((j^2-j)/(2z^2)) * erfc((z0 - j)/(sqrt(2) z)) / 2,  j = alpha - i
    A_alpha = sum_{i >= 0} (s0_i + s1_i).

The binomial coefficients are signed. Terms with ``i <= floor(alpha)`` are positive (the *head*). From
``i0 = floor(alpha) + 1`` on, the signs alternate (the *tail*). This package adds two things, both
derived here and checked against quadrature in the tests:

1. **The tail decays only polynomially.** Substituting ``t = (x - z0)/z^2`` gives
   ``s0_i = C(alpha, i) (1-q)^alpha E[e^{i t}; t <= 0]`` and
   ``s1_i = C(alpha, i) (1-q)^alpha E[e^{alpha t} e^{-i t}; t > 0]``. For ``i >> z0`` both
   expectations behave like ``const / i`` (Laplace's method at ``t = 0``), so
   ``|s_i| ~ i^(-alpha-2)``. A plain partial sum therefore needs of order ``10^14`` terms for 50
   digits at ``alpha = 1.5``. (The TF-Privacy-derived codes stop once terms fall ``e^-30`` below
   the sum; that is why ``docs/peers.md`` measures opacus and prv-accountant at about 1e-10 relative.)
2. **The tail is an alternating series of Hausdorff moments.** For ``i > alpha``,
   ``|C(alpha, i)| = |sin(pi alpha)|/pi * B(i - alpha, alpha + 1) = int_0^1 x^(i-i0) dmu(x)`` with a
   positive measure. The two expectations above are moments of ``e^t`` on ``(0, 1]`` and ``e^-t`` on
   ``(0, 1)`` under positive measures. Products and sums of moment sequences are moment sequences.
   So ``a_k = |s0_{i0+k}| + |s1_{i0+k}|`` satisfies ``a_k = int_0^1 x^k dnu(x)`` with ``nu >= 0``,
   and the tail equals ``sum_k (-1)^k a_k``. For such series the Cohen-Rodriguez Villegas-Zagier
   algorithm (Exp. Math. 9 (2000), Algorithm 1 and Prop. 1) with ``n`` terms has a *proven*
   error of at most ``2 S / (3 + sqrt 8)^n``, where ``S = tail <= a_0``. This is the stopping rule:
   ``n`` is chosen so that this bound is below the working precision times the head. The algorithm is
   numerically stable: its weights lie in ``[-1, 1]``, and the sum of ``|weight * term|`` is tracked.
3. **Small log A without cancellation against 1 (float64 kernel).** ``log A = log1p(A - 1)`` needs
   ``A - 1`` to relative precision, but when ``A`` is close to 1 (small ``q``, large ``z``) the two
   largest terms, ``s0_0 = (1-q)^alpha Phi(a0)`` and ``s0_1 = alpha q (1-q)^(alpha-1) Phi(b1)`` with
   ``a0 = z0/z`` and ``b1 = (z0 - 1)/z``, are of size 1. With ``Delta = Phi(a0) - Phi(b1)`` and
   ``Phi(a0) + Phi(-a0) = 1`` they combine with the 1 in closed form::

       1 - s0_0 - s0_1 = (1 - (1-q)^(alpha-1) (1 + (alpha-1) q)) Phi(a0) + Phi(-a0) + alpha q (1-q)^(alpha-1) Delta,

   three positive parts. The first coefficient is ``-expm1(lam)`` with
   ``lam = (alpha-1) log1pmx(-q) + log1pmx((alpha-1) q) <= 0`` and ``log1pmx(x) = log1p(x) - x``: the
   linear parts of ``(alpha-1) log1p(-q) + log1p((alpha-1) q)`` cancel exactly, and the two remaining
   parts have the same sign. ``Delta`` is a normal probability over an interval of width ``1/z``,
   computed from the tail on its side (or from two ``erf`` values when it straddles 0). So

       A - 1 = sum_{i>=2} s0_i + sum_{i>=0} s1_i - (1 - s0_0 - s0_1)

   holds no term of size 1. That still leaves a cancellation between ``s0_2`` and the first part,
   by a factor of about ``e^(1/z^2) / (e^(1/z^2) - 1) ~ z^2`` (``log A ~ q^2/z^2`` while both are
   ``~ q^2``). For ``q < 1/2`` the first part is therefore spread over the terms: with
   ``t_i = C(alpha,i) (1-q)^(alpha-i) q^i``, the binomial series gives ``sum_{i>=2} t_i =
   1 - (1-q)^(alpha-1)(1 + (alpha-1) q)`` (it converges because ``q/(1-q) < 1``), so

       A - 1 = sum_{i>=2} t_i (expm1(c_i) Phi(x0_i) - (Phi(a0) - Phi(x0_i))) + sum_{i>=0} s1_i
               - Phi(-a0) - alpha q (1-q)^(alpha-1) Delta,

   with ``c_i = (i^2 - i)/(2z^2)`` and ``x0_i = (z0 - i)/z``. For large ``z`` the first bracket is
   ``~ c_i`` and the second ``~ (i/z) phi(a0)``, so nothing cancels. In the alternating tail the
   bracket is the difference of two moment sequences (``|t_i| e^{c_i} Phi(x0_i)`` and
   ``|t_i| Phi(a0)``), so the CVZ sum keeps a proven bound, ``2 (A_0 + B_0)/(3 + sqrt 8)^n``. What
   cancellation remains (``alpha`` very close to 1; ``q >= 1/2`` with large ``z``) enters the error
   estimate.

4. **The mp kernel sums ``A - 1`` as well.** Summing ``A`` itself needs ``log10(1/(A - 1))`` digits
   more than the answer (800 extra digits at ``q = 1e-400``). The mp series instead leaves out
   ``s0_0`` and ``s0_1`` and subtracts ``1 - s0_0 - s0_1`` in the closed form of item 3, whose two
   cancelling pieces (``lam`` and ``Delta``) are formed on their own with the extra digits their
   cancellation needs; what cancellation remains (between ``s0_2`` and the first part, of order
   ``z^2``) enters ``kappa`` below. ``log A = log1p(A - 1)``.

5. **Huge noise (float64 kernel).** With ``w = e^{(2x-1)/(2 z^2)} - 1`` under ``x ~ N(0, z^2)``,
   ``A = E[(1 + q w)^alpha] = sum_j C(alpha, j) q^j E[w^j]`` with ``E[w] = 0``,
   ``E[w^2] = expm1(s)`` and, ``s = 1/z^2``, ``E[w^j] = O(s^ceil(j/2))`` (the j-th finite difference of
   ``i -> e^{i(i-1)s/2}`` vanishes on every power of ``s`` below ``j/2``): ``E[w^3] = 3 s^2 + O(s^3)``,
   ``E[w^4] = 3 s^2 + O(s^3)``. Relative to the leading term ``C(alpha, 2) q^2 expm1(s)`` the j = 3 term
   is ``(alpha - 2) q s`` and the j = 4 term ``(alpha - 2)(alpha - 3) q^2 s / 4``; both are below
   ``(alpha q / z)^2 + alpha q s <= 2e-20`` when ``z >= 1e4`` and ``alpha q <= 1e-10 z`` (the regime
   ``HUGE_NOISE``; ``z >= 1e4`` also puts the Gaussian tail where ``q w > 1`` beyond ``e^{-1e7}``, so the
   binomial series of a fractional power converges where it matters). There the float64 kernel takes
   ``A - 1 = C(alpha, 2) q^2 expm1(1/z^2)`` (relative error below 1e-19 plus rounding) instead of a series
   of about ``alpha`` terms at 30 digits (``alpha = 1e4``, ``z = 1.2e19`` took seconds per order, and an
   order search minutes). Checked against the mp series in tests/test_sgm.py.

Precision policy (mp kernels): a kernel reads the caller's ``mpmath.mp.dps``, works inside
``mpmath.workdps`` with guard digits, and returns a value rounded to the caller's precision. It never
sets precision globally. Guard digits cover three things:

(a) the magnitude of the exponents (an exponent ``E`` carries absolute error ``10^-wp |E|``);
(b) the number of terms;
(c) for the signed fractional series, the measured cancellation
    ``kappa = sum |contributions| / (A |log A|)`` (contributions to ``A - 1``, item 4).

If the first pass shows that (c) needs more digits, the series is re-evaluated at the higher precision, up to
``dps + 1500`` digits; beyond that the kernel raises :class:`~dptheory.core.errors.NumericalFailure`.
A term (or one of the two pieces of a fractional term) is skipped only when a float64 estimate of its
logarithm puts it below ``10^-(working digits + 3)`` of the largest term divided by the number of
terms, so all skipped terms together are below the rounding error. Those float64 logs are accurate
to far better than the margin. Estimates that are not finite never cause a skip.

float64 kernel (:func:`rdp_np`): the same two formulas in log space (log-sum-exp), vectorised with
numpy and scipy over orders and terms at once; fractional orders are summed as ``A - 1`` (item 3).
Each point carries a rounding-error estimate: relative error of each log-term about
``1.5 eps * (sum of |additive pieces|)``, plus summation, cancellation and CVZ-truncation terms. Every
point whose estimated relative error in ``log A`` exceeds ``1e-11`` (integer orders) or ``1e-12``
(fractional orders) is recomputed with :func:`rdp_mp` at 30 digits. This hybrid is what lets
``rdp_np`` agree with ``rdp_mp`` to 1e-10 relative over the whole parameter range (1e-12 at
fractional orders). Points that still fall back (about 5% of fractional orders drawn log-uniformly
from ``q`` in ``[1e-6, 1]``, ``z`` in ``[0.3, 100]``, ``alpha - 1`` in ``[1e-4, 1e4]``; 70% before item
3) are those where ``A - 1`` itself is a difference of much larger parts: ``alpha`` very close to 1,
or ``q >= 1/2`` together with large ``z``. (The previous fractional kernel, :func:`_log_a_frac_np`, sums ``A``
itself; it is kept as a second float64 method for the tests.)

Layout (one backend a module; the statement ``rdp.subsampled_gaussian`` is declared in
:mod:`dptheory.privacy.rdp` and points at the ``theorem_*`` kernels here):

* :mod:`.validate`: parameter checks, the order cap and the huge-noise regime limits;
* :mod:`.terms`: float64 log magnitudes of the series terms (shared by float64 sums and mp term selection);
* :mod:`.float64`: :func:`rdp_np` (vectorised, with the mp fallback), ``theorem_np``;
* :mod:`.mp`: :func:`log_a_mp`, :func:`rdp_mp`, ``theorem_mp``;
* :mod:`.arb`: certified balls at every order (:func:`rdp_arb`), ``theorem_arb``.

The quadrature oracle of the defining integral is test-only (:func:`dptheory.testing.oracles.log_a_quad_mp`).
DP-free log-domain helpers (log1pmx, streamed log-sum-exp, log-binomials) are in :mod:`dptheory.numerics.logspace`.
"""

from __future__ import annotations

from dptheory.privacy.sgm import arb
from dptheory.privacy.sgm.arb import *  # noqa: F403 (the arb backend's names are its __all__)
from dptheory.privacy.sgm.float64 import FALLBACK_DPS, FALLBACK_RTOL, FALLBACK_RTOL_FRAC, rdp_np, theorem_np
from dptheory.privacy.sgm.mp import log_a_mp, rdp_mp, theorem_mp
from dptheory.privacy.sgm.validate import HUGE_NOISE_MIN_Z, HUGE_NOISE_RATIO, MAX_INT_ORDER

#: the package exports each backend module's names (the arb module's list is its own ``__all__``) and these
__all__ = [
    "FALLBACK_DPS",
    "FALLBACK_RTOL",
    "FALLBACK_RTOL_FRAC",
    "HUGE_NOISE_MIN_Z",
    "HUGE_NOISE_RATIO",
    "MAX_INT_ORDER",
    "log_a_mp",
    "rdp_mp",
    "rdp_np",
    "theorem_mp",
    "theorem_np",
]
__all__ += arb.__all__
