"""Lampert & Zakerinia 2026, "From Privacy to Generalization: Linear Max-Information Bounds for DP-SGD".

arXiv 2605.26222. Our source text (a Chinese translation of the arXiv HTML version) covers
the introduction and background only; it ends before Section 3, so the paper's non-asymptotic
statements are **not** available to us. What is encoded from the paper itself:

* Theorem 1 in its published asymptotic form (Eq. 1): ``I^beta_inf(DP-SGD(S), S) = O(E n zeta^2/sigma^2
  log(E/beta))``, direction ASYMPTOTIC with the hidden constant ``C`` as a parameter (refused
  wherever an upper bound is required). The base of L&Z's ``log`` is not visible in the source; since
  their DP definition uses ``e^eps`` we read natural logarithms (a constant factor, absorbed by C).
* The PAC-Bayes consequences announced as Theorem 2 ("a PAC-Bayes bound whose prior is learned by
  DP-SGD, with an additive correction of the same form as (1)", and "a prior-free bound for
  DP-SGD-trained models"): exact statements are not in the text. We encode the *shape* obtained by
  inserting Theorem 1 into our derived (G2)/(G3) (``docs/derivations/pacbayes_maxinfo.md``), ASYMPTOTIC, so that
  the hidden constant and the splitting of delta and beta are explicit; these are our reading,
  labelled as such, not the paper's statement.
* The Gaussian-mechanism calibration quoted in Section 2 (Dwork & Roth 2014, Thm A.1):
  ``sigma >= (Delta/eps) sqrt(2 log(1.25/delta))`` gives (eps, delta)-DP for eps, delta in (0, 1);
  encoded as the eps it certifies (claim ``lz26.C3`` checks it against the exact Gaussian delta).

The four theorems are declared as data, in ``paper.toml`` (``[[theorem]]`` tables; format:
``docs/adding_a_paper.md``): bounds and conditions are formulas in the notation's names, parsed without running code
(:mod:`dptheory.core.expressions`); the kl-inverse kernels of the Theorem 2 shapes are :mod:`.kernels`. This module
registers them and names them for Python users.

Non-asymptotic DP-SGD bounds derived by the team live in :mod:`.max_information`
(``maxinfo.thmA_derived``, ``maxinfo.thmB_derived``) and are ours, not L&Z's.

Notation (Algorithm 1, DP-SGD-stream): ``n`` examples, batch size ``m`` (L&Z's ``m`` is a batch size;
Shi et al.'s is a filter count), ``T <= floor(n/m)`` steps per epoch, ``E`` epochs, clip norm
``zeta``, noise std ``sigma`` on the sum of clipped gradients, slack ``beta``.
"""

from __future__ import annotations

from dptheory.core import paperfile
from dptheory.core.registry import REGISTRY

_PAPERFILE = paperfile.load(__name__, "paper.toml")
PAPER = _PAPERFILE.paper("lz26")
NOTATION = _PAPERFILE.notation("lz26")
n, m, E, zeta, sigma, beta, C, emp, KLs, delta, Delta = NOTATION.symbols(
    "n", "m", "E", "zeta", "sigma", "beta", "C", "emp_risk", "KL", "delta", "Delta"
)

_THEOREMS = {t.key: REGISTRY.add(t) for t in _PAPERFILE.theorems()}
THM1 = _THEOREMS["lz26.thm1"]
THM2 = _THEOREMS["lz26.thm2_pacbayes_asymptotic"]
THM2_SINGLE = _THEOREMS["lz26.single_model_asymptotic"]
CALIBRATION = _THEOREMS["lz26.gaussian_calibration"]

__all__ = ["CALIBRATION", "NOTATION", "PAPER", "THM1", "THM2", "THM2_SINGLE"]
