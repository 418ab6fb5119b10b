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

Non-asymptotic DP-SGD bounds derived by the team live in :mod:`.max_information`
(``maxinfo.thmA_derived``, ``maxinfo.thmB_derived``) and are ours, not L&Z's.

Notation (Algorithm 1, DP-SGD-stream): ``n`` examples, batch size ``m`` (L&Z's ``m`` is a batch size;
Shi et al.'s is a filter count), ``T <= floor(n/m)`` steps per epoch, ``E`` epochs, clip norm
``zeta``, noise std ``sigma`` on the sum of clipped gradients, slack ``beta``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from dptheory.core import paperfile
from dptheory.core.conditions import Condition
from dptheory.core.registry import REGISTRY
from dptheory.core.theorem import Term, Theorem
from dptheory.core.units import Direction, Monotone, Unit
from dptheory.numerics import kl as K
from dptheory.papers.pacbayes.theorems import KL_INVERSE_REASON, risk_conditions, xi_sum

_PAPERFILE = paperfile.load(__name__, "paper.toml")
PAPER = _PAPERFILE.paper("lz26")

NOTATION = _PAPERFILE.notation("lz26")
n, m, E, zeta, sigma, beta, C, emp, KLs, delta, Delta = NOTATION.symbols(
    "n", "m", "E", "zeta", "sigma", "beta", "C", "emp_risk", "KL", "delta", "Delta"
)
C_BETA = Condition(sp.StrictLessThan(beta, 1, evaluate=False), "the slack beta is a probability below 1")
C_EMP, C_DELTA = risk_conditions(emp, delta)
C_BETA_DELTA = Condition(sp.StrictLessThan(beta, delta, evaluate=False), "beta < delta")

K1_SYM = C * E * n * zeta**2 / sigma**2 * sp.log(E / beta)


def _k1(p: Mapping[str, Any], lib: Any) -> Any:
    return p["C"] * p["E"] * p["n"] * p["zeta"] ** 2 / p["sigma"] ** 2 * lib.log(p["E"] / p["beta"])


THM1 = REGISTRY.add(Theorem(
    key="lz26.thm1",
    title="Max-information of DP-SGD, published asymptotic form (hidden constant C as a parameter)",
    citation=PAPER.item("Theorem 1", eq=1, note="asymptotic form of the introduction; the non-asymptotic statement "
                        "(Section 3) is not in our source text"),
    notation=NOTATION,
    params=("n", "E", "zeta", "sigma", "beta", "C"),
    conditions=(C_BETA,),
    assumptions=("S has n independent elements", "DP-SGD (Algorithm 2) / DP-SGD-stream (Algorithm 1): disjoint "
                 "data-independent batches, per-example clipping to zeta, Gaussian noise sigma on the sum"),
    bound=K1_SYM,
    direction=Direction.ASYMPTOTIC,
    quantity="I^beta_inf(DP-SGD(S), S) up to the constant C",
    monotone={"n": Monotone.INCREASING, "E": Monotone.INCREASING, "sigma": Monotone.DECREASING},
    reading="log read as the natural logarithm (a base change is a constant factor absorbed by C).",
    notes="ASYMPTOTIC: never a guarantee. The batch size m does not appear in the published form.",
))


def _pb_rhs(p: Mapping[str, Any], lib: Any, xi: Any) -> Any:
    kl_term = p.get("KL", 0)
    return (kl_term + lib.log(xi(p["n"])) - lib.log(p["delta"] - p["beta"]) + _k1(p, lib)) / p["n"]


def _pb_mp(p: Mapping[str, Any]) -> mpmath.mpf:
    return K.kl_inv_upper_mp(p["emp_risk"], _pb_rhs(p, mpmath, lambda x: K.xi_mp(int(x))))


def _pb_np(p: Mapping[str, np.ndarray]) -> np.ndarray:
    return K.kl_inv_upper_np(p["emp_risk"], _pb_rhs(p, np, K.xi_np))


def _pb_arb(p: Mapping[str, Any]) -> Any:
    """Certified value on arb balls: the kl budget with xi(n) on balls, then the bisection of
    numerics/kl.py whose bracket ends are certified by ball signs."""
    kl_term = p.get("KL", 0)
    k1 = p["C"] * p["E"] * p["n"] * p["zeta"] ** 2 / p["sigma"] ** 2 * (p["E"] / p["beta"]).log()
    rhs = (kl_term + K.xi_arb(K.exact_int_arb(p["n"], "n")).log() - (p["delta"] - p["beta"]).log() + k1) / p["n"]
    return K.kl_inv_upper_arb(p["emp_risk"], rhs)


_kl = sp.Function("kl")
_R = sp.Symbol("R(Q)", positive=True)
_XI = xi_sum(n)


def _asymptotic_risk(**fields: Any) -> Theorem:
    """Register a Theorem 2 shape (Thm 1 inserted into (G2)/(G3) of docs/derivations/pacbayes_maxinfo.md): a risk
    kl^-1_+(emp_risk, budget), ASYMPTOTIC (hidden constant C)."""
    return REGISTRY.add(Theorem(notation=NOTATION, conditions=(C_EMP, C_DELTA, C_BETA_DELTA),
                                direction=Direction.ASYMPTOTIC, unit=Unit.DIMENSIONLESS, mp=_pb_mp, np=_pb_np,
                                arb=_pb_arb, kernel_reason=KL_INVERSE_REASON, **fields))


THM2 = _asymptotic_risk(
    key="lz26.thm2_pacbayes_asymptotic",
    title="PAC-Bayes bound with a DP-SGD-learned prior: shape from Thm 1 + (G2) (our reading; asymptotic)",
    citation=PAPER.item("Theorem 2 (announced in the introduction)", note="exact statement not in our source; "
                        "shape = (G2) of docs/derivations/pacbayes_maxinfo.md with k = Thm 1's O(.)"),
    params=("emp_risk", "KL", "n", "E", "zeta", "sigma", "delta", "beta", "C"),
    assumptions=("loss in [0, 1]", "S ~ D^n i.i.d.", "prior = DP-SGD(S) output (e.g. a Gaussian centred at it)"),
    statement=(sp.LessThan(_kl(emp, _R), (KLs + sp.log(_XI) + sp.log(1 / (delta - beta)) + K1_SYM) / n),),
    quantity="true risk R(Q) for every posterior Q, up to the constant C",
    terms={"rhs": Term("rhs", "kl budget with k = C E n zeta^2/sigma^2 ln(E/beta) (nats)",
                       lambda p: _pb_rhs(p, mpmath, lambda x: K.xi_mp(int(x))), lambda p: _pb_rhs(p, np, K.xi_np))},
    notes="ASYMPTOTIC and our reading of an announced theorem; for a guarantee use pacbayes.g2_maxinfo_prior_derived "
    "with k from maxinfo.thmA_derived / maxinfo.thmB_derived.",
)

THM2_SINGLE = _asymptotic_risk(
    key="lz26.single_model_asymptotic",
    title="Prior-free generalization bound for a DP-SGD-trained model: shape from Thm 1 + (G3) (our reading)",
    citation=PAPER.item("Theorem 2, prior-free consequence (announced in the introduction)",
                        note="exact statement not in our source; shape = (G3) of "
                        "docs/derivations/pacbayes_maxinfo.md with Thm 1's O(.)"),
    params=("emp_risk", "n", "E", "zeta", "sigma", "delta", "beta", "C"),
    assumptions=("loss in [0, 1]", "S ~ D^n i.i.d.", "the model is the DP-SGD output"),
    statement=(sp.LessThan(_kl(emp, _R), (sp.log(_XI) + sp.log(1 / (delta - beta)) + K1_SYM) / n),),
    quantity="true risk of the DP-SGD-trained model, up to the constant C",
    notes="ASYMPTOTIC; for a guarantee use pacbayes.g3_single_model_derived with k from maxinfo.thm*_derived.",
)

CALIBRATION = REGISTRY.add(Theorem(
    key="lz26.gaussian_calibration",
    title="Classical calibration of the Gaussian mechanism as quoted by L&Z (Dwork & Roth 2014, Thm A.1)",
    citation=PAPER.item("Section 2 (Differential privacy)", note="quoted from Dwork & Roth 2014, Theorem A.1"),
    notation=NOTATION,
    params=("Delta", "sigma", "delta"),
    conditions=(C_DELTA,
                # eps < 1 written without the square root, so that it stays real (and decidable) for any delta
                Condition(2 * Delta**2 * sp.log(sp.Rational(5, 4) / delta) < sigma**2,
                          "the calibrated eps = (Delta/sigma) sqrt(2 ln(1.25/delta)) must lie in (0, 1)")),
    assumptions=("M(S) = Psi(S) + sigma Z, Z ~ N(0, I), Psi of l2 sensitivity Delta",),
    bound=Delta / sigma * sp.sqrt(2 * sp.log(sp.Rational(5, 4) / delta)),
    direction=Direction.UPPER,
    quantity="eps such that the Gaussian mechanism is (eps, delta)-DP",
    monotone={"sigma": Monotone.DECREASING, "delta": Monotone.DECREASING},
))

__all__ = ["CALIBRATION", "NOTATION", "PAPER", "THM1", "THM2", "THM2_SINGLE"]
