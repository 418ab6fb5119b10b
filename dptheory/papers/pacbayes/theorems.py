"""PAC-Bayes bounds with exact constants, kl inversion, DP priors and max-information priors.

Bounded loss in [0, 1], ``S ~ D^n`` i.i.d.; ``emp_risk`` is the empirical (Gibbs) risk of the
posterior Q, ``KL`` = KL(Q||P) in nats. Every risk bound returns an upper bound on R(Q) (a
probability, dimensionless); the named term ``rhs`` gives the kl budget ``c`` (nats) so that
``R(Q) <= kl_inv_upper(emp_risk, c)``.

Sources and status (derivations and checks in ``docs/derivations/pacbayes_maxinfo.md``):

* Maurer 2004 ("A note on the PAC Bayesian theorem", arXiv cs/0411099): ``kl(emp||R) <= (KL +
  ln(xi(n)/delta))/n`` with ``xi(n) = sum_k C(n,k)(k/n)^k(1-k/n)^(n-k)``. Attribution [R]. What we
  checked (tests/test_kl.py): ``E exp(n kl(p_hat||p)) = xi(n)`` exactly for Bernoulli samples at every
  p (the moment the proof needs; Maurer shows Bernoulli is the worst case on [0, 1]); ``xi(n) = 1 +
  Q(n)``; ``xi(n) <= 2 sqrt(n)`` for every n >= 1 (Maurer proves it for n >= 8; claim ``pacbayes.C3``
  proves every n: exact values for n <= 7, Robbins' Stirling bounds above, ``docs/derivations/pacbayes_c3_c4.md``),
  so the ``2 sqrt(n)`` relaxation is valid for every n.
* Certified values: every kl-inversion key declares an ``arb=`` kernel (``numerics/kl.py``: the budget on
  balls, ``xi(n)`` by its Q series with a rigorous tail, the inverse by bisection with certified bracket ends).
* McAllester 1999 ("PAC-Bayesian model averaging", COLT): the square-root bound with ``ln n + 2``
  and ``2n - 1`` is *recalled* [R], not checked against the paper. We encode it because its validity
  is established here independently: it is implied by Maurer's bound through Pinsker for every n
  (claim ``pacbayes.C2``), whatever McAllester's original constants were.
* Dziugaite & Roy 2018 (NeurIPS; arXiv 1802.09583): the eps-DP prior bound. Form checked by the team
  against the precursor arXiv 1712.09376 (Thm 5.4 and its proof); NeurIPS theorem numbering [R], so
  the key does not carry a number. Re-derived from Dwork et al.'s Thm 6/11 plus Maurer (see
  ``docs/derivations/pacbayes_maxinfo.md``); written in DR18's notation (``m`` = number of examples).
* G1, G2, G3 and the max-information variant of DR18: **derived here** (proofs in
  ``docs/derivations/pacbayes_maxinfo.md``); keys carry ``_derived``.

The eleven theorems are declared as data, in ``paper.toml`` (``[[theorem]]`` tables; format:
``docs/adding_a_paper.md``): bounds, conditions, statements and budgets are formulas in the notation's names, parsed
without running code (:mod:`dptheory.core.expressions`); the hand-written kernels (the kl inverses, the risks
``kl^-1_+(emp_risk, budget)`` and their budgets) are :mod:`.kernels`. This module defines the printing ``kl`` the
statements use, registers the theorems and names them for Python users.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from dptheory.core import paperfile
from dptheory.core.conditions import Condition
from dptheory.core.registry import REGISTRY

_PAPERFILE = paperfile.load(__name__, "paper.toml")
MAURER04 = _PAPERFILE.paper("maurer04")
MCALLESTER99 = _PAPERFILE.paper("mcallester99")
DR18 = _PAPERFILE.paper("dr18")
OURS = _PAPERFILE.paper("pacbayes")

KL_INVERSE_REASON = ("the risk bound is an inverse of the binary kl (the root p of kl(q||p) = c, "
                     "by bisection/Newton; on arb balls by bisection with certified bracket ends); no closed form")
KL_BUDGET_REASON = (KL_INVERSE_REASON + "; the kl budget term's arb kernel encloses Maurer's xi(n) by Ramanujan's "
                    "series with a rigorous tail bound (about 16 sqrt(n) terms at 50 digits) where the statement sums "
                    "n terms")

NOTATION = _PAPERFILE.notation("pacbayes")
emp, KLs, n, delta, beta, k, q, c = NOTATION.symbols("emp_risk", "KL", "n", "delta", "beta", "k", "q", "c")


class kl(sp.Function):
    """Binary kl divergence kl(q||p), printed as in the papers."""

    nargs = 2

    def _latex(self, printer: Any, exp: Any = None) -> str:
        a, b = (printer._print(x) for x in self.args)
        base = rf"\mathrm{{kl}}\left({a}\,\middle\|\,{b}\right)"
        return base if exp is None else rf"{base}^{{{exp}}}"


def xi_sum(size: Any) -> sp.Basic:
    """Maurer's ``xi(n) = sum_k C(n,k)(k/n)^k(1-k/n)^(n-k)`` (arXiv cs/0411099, main theorem), ``n`` = ``size``: the
    ``XI`` of ``[define.pacbayes]`` (:data:`XI_SYM`) with ``size`` for ``n`` (an unevaluated sum)."""
    return XI_SYM.xreplace({n: sp.sympify(size)})


def risk_conditions(emp_sym: Any, delta_sym: Any) -> tuple[Condition, Condition]:
    """The two hypotheses of every PAC-Bayes risk bound: the empirical risk of a [0, 1] loss is at most 1, and the
    confidence delta is below 1 (in the notation of ``emp_sym``, ``delta_sym``)."""
    return (Condition(sp.LessThan(emp_sym, 1, evaluate=False), "the empirical risk of a [0, 1] loss is at most 1"),
            Condition(sp.StrictLessThan(delta_sym, 1, evaluate=False), "delta is a probability below 1"))


#: the names of the file's formulas in this notation: R(Q), the summation index j, Maurer's xi(n) ([symbols.pacbayes],
#: [define.pacbayes])
_NAMES = _PAPERFILE.names("pacbayes")
R_SYM = _NAMES["R"]
_j = _NAMES["j"]
XI_SYM = _NAMES["XI"]

C_EMP, C_DELTA = risk_conditions(emp, delta)

_THEOREMS = {t.key: REGISTRY.add(t) for t in _PAPERFILE.theorems()}
KL_INV_UPPER = _THEOREMS["pacbayes.kl_inv_upper"]
KL_INV_LOWER = _THEOREMS["pacbayes.kl_inv_lower"]
MAURER = _THEOREMS["maurer04.kl"]
MAURER_2SQRT = _THEOREMS["maurer04.kl_2sqrtn"]
PINSKER = _THEOREMS["pacbayes.pinsker_derived"]
MCALLESTER = _THEOREMS["mcallester99"]
G2 = _THEOREMS["pacbayes.g2_maxinfo_prior_derived"]
G3 = _THEOREMS["pacbayes.g3_single_model_derived"]
G1 = _THEOREMS["pacbayes.g1_hoeffding_maxinfo_derived"]
DR18_THM = _THEOREMS["dr18.dp_prior"]
DR18_MI = _THEOREMS["pacbayes.dr18_maxinfo_variant_derived"]

#: the conditions as paper.toml declares them: q of a kl inverse is a probability; beta < delta (G1, G2, G3)
C_Q = KL_INV_UPPER.conditions[0]
C_BETA_DELTA = G1.conditions[2]

NOTATION_DR = _PAPERFILE.notation("dr18")

__all__ = ["DR18_MI", "DR18_THM", "G1", "G2", "G3", "KL_INV_LOWER", "KL_INV_UPPER", "MAURER", "MAURER_2SQRT",
           "MCALLESTER", "NOTATION", "NOTATION_DR", "PINSKER", "risk_conditions", "xi_sum"]
