"""Privacy kernels for Shi, Wang, Zhang, Cao (Sec. C.4): Lemma 39 and exact Gaussian accounting.

Pure functions (no classes, no global precision). ``mp`` functions run at the caller's mpmath
precision; ``np`` functions are float64 and vectorised.

Lemma 39 (Sec. C.4): noisy GD with T iterations is
``(T lam (2||mu||^2 + 3 sigma_p^2 d)/(sigma_b^2 n^2 m) + log(2/delta)/(lam - 1), delta)``-DP for every
``lam > 1``. Writing ``A = T (2||mu||^2 + 3 sigma_p^2 d)/(sigma_b^2 n^2 m)`` and ``L = log(2/delta)``,
``g(lam) = lam A + L/(lam - 1)`` is strictly convex on ``lam > 1`` with ``g'(lam) = A - L/(lam-1)^2``,
so ``lam* = 1 + sqrt(L/A)`` and ``g(lam*) = A + 2 sqrt(A L)`` (derivation:
``docs/derivations/shi26_lemma39.md``).

Exact accounting of a composition of Gaussian mechanisms: T adaptive Gaussian mechanisms with
l2-sensitivities ``Delta_t`` and noise ``sigma`` compose exactly to a single Gaussian mechanism with
``mu_GDP = sqrt(sum_t Delta_t^2)/sigma`` (Dong, Roth, Su 2022, "Gaussian differential privacy",
Cor. 3.3); its tight delta at epsilon is (Balle & Wang 2018, Thm 8)
``delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)`` (kernels: ``privacy.gaussian_dp``).
"""

from __future__ import annotations

from typing import Any

import mpmath


def lemma39_A(T: Any, mu_norm: Any, sigma_p: Any, d: Any, sigma_b: Any, n: Any, m: Any) -> Any:
    """``T (2||mu||^2 + 3 sigma_p^2 d)/(sigma_b^2 n^2 m)`` (works for mpf and float64 arrays)."""
    return T * (2 * mu_norm**2 + 3 * sigma_p**2 * d) / (sigma_b**2 * n**2 * m)


def opt_order(A: Any, L: Any, sqrt: Any = mpmath.sqrt) -> Any:
    """The minimising Renyi order ``1 + sqrt(L/A)`` of ``lam A + L/(lam-1)``."""
    return 1 + sqrt(L / A)


def opt_epsilon(A: Any, L: Any, sqrt: Any = mpmath.sqrt) -> Any:
    """``min_{lam > 1} lam A + L/(lam - 1) = A + 2 sqrt(A L)``."""
    return A + 2 * sqrt(A * L)


def sup_sensitivity_sq(mu_norm: Any, sigma_p: Any, d: Any, n: Any, m: Any, *, neighbour: str) -> Any:
    """Worst-case squared l2-sensitivity of the full DP-GD gradient (all 2m filters) on the restricted domain.

    Domain: records ``(y mu, xi)`` with ``<xi, mu> = 0`` and ``||xi||^2 <= R^2 = 1.5 sigma_p^2 d`` (the
    event Lemma 39's proof conditions on). One record's gradient with respect to filter ``(j, r)`` is
    ``(1/(nm)) l' y j (sigma'(<w, y mu>) y mu + sigma'(<w, xi>) xi)``, with ``|l'|, sigma' <= 1`` and
    ``mu`` orthogonal to ``xi``.

    * ``"zero-out"`` (one record's term removed): ``2m (||mu||^2 + R^2)/(n m)^2``.
    * ``"replace"`` (one record replaced): the ``mu`` parts have the same sign for any two records, so
      they differ by at most ``||mu||``; the ``xi`` parts ``y xi - y' xi'`` reach ``2R`` (opposite labels,
      ``xi' = xi``). Hence ``2m (||mu||^2 + 4 R^2)/(n m)^2``, approached by weights for which both records
      are badly misclassified (``l' -> -1``); every ``W`` is reachable because the DP-GD noise has full
      support, so this supremum is the sensitivity of every step.
    """
    R2 = 3 * sigma_p**2 * d / 2
    if neighbour == "zero-out":
        return 2 * m * (mu_norm**2 + R2) / (n * m) ** 2
    if neighbour == "replace":
        return 2 * m * (mu_norm**2 + 4 * R2) / (n * m) ** 2
    raise ValueError(f"neighbour must be 'zero-out' or 'replace', got {neighbour!r}")


