"""Max-information: Dwork et al. 2015, Rogers et al. 2016, and the DP-SGD bounds derived here.

Sources:

* Dwork, Feldman, Hardt, Pitassi, Reingold, Roth, "Generalization in adaptive data analysis and
  holdout reuse", NeurIPS 2015, arXiv 1506.02629v2 (items checked by the team against the full text;
  the corrected reading of Cor 21 is derived in ``docs/derivations/maxinfo_route.md``, section 1).
  Dwork et al. write ``log`` for the binary logarithm, so their bounds are in bits; here every value
  is in **nats** (``k_bits = k_nats log2(e)``; their transfer factor ``2^k_bits = e^k_nats``). Ask
  for bits with ``BoundValue.in_unit(Unit.BITS)`` or ``--unit bits``.
* Rogers, Roth, Smith, Thakkar, "Max-information, differential privacy, and post-selection
  hypothesis testing", FOCS 2016, arXiv 1604.03924: the product-distribution bound for (eps,
  delta)-DP, encoded in its asymptotic form only (its explicit constants are recalled, not verified:
  ``docs/derivations/maxinfo_route.md``, section 2 [R]); direction ASYMPTOTIC, hidden constants as parameters.
* Theorem A, Theorem B and Lemma M for DP-SGD-stream (Algorithm 1 of Lampert & Zakerinia 2026,
  arXiv 2605.26222) are **our own results**, *not* statements of Lampert & Zakerinia, whose Section 3
  is not in our source text. Keys carry the suffix ``_derived``; proofs with a numerical check of every
  step are in ``docs/derivations/maxinfo_dpsgd.md``.

Notation: one table ``dwork15`` serves Dwork et al. and Rogers et al. (their notation coincides:
``eps, delta, n, beta``); the derived DP-SGD results use the notation of Lampert & Zakerinia
(``n, m, E, zeta, sigma, beta``) in the table ``maxinfo`` (L&Z's ``m`` is a batch size).

Reading decisions:

* Cor 21: the extracted text gives the hypothesis ``I^beta <= log(e) tau^2/c^2`` (bits); the
  conclusion ``exp(-tau^2/(c^2 n)) + beta`` follows from Thm 13 and McDiarmid only with
  ``tau^2/(c^2 n)`` nats. We encode the corrected hypothesis and pin the extracted one as a finding
  (claim ``dwork15.C21_as_extracted``).
* Cor 22 holds "when tau^2/(c^2 n) is larger than a fixed constant"; we computed the constant of the
  proof's route (``x* = 7.80...``, claim ``dwork15.C22``) and use the condition ``x >= 79/10``.
* Theorems A and B: ``T = floor(n/m)`` steps per epoch, ``n_u = m floor(n/m)``; both bounds increase
  with ``T``, so the value is also valid for every ``T <= floor(n/m)`` (L&Z's Algorithm 1 allows that).

Ten of the twelve theorems are declared as data, in ``paper.toml`` (``[[theorem]]`` tables): bounds, conditions and
statements are formulas in the notation's names (shared parts as ``[define.*]``), parsed without running code
(:mod:`dptheory.core.expressions`); Theorem B's kernels are :mod:`.kernels`. Two stay Python declarations here, because
a ``[[theorem]]`` table has no field for what they give: Lemma M (``maxinfo.lemmaM_derived``) its sample ranges and a
condition of kind ``consistency``, the (eps, delta)-DP route (``maxinfo.dp_route_rogers_asymptotic``) its witness
points. This module registers all twelve in their former order (the ten tables in file order, then Lemma M,
then the route) and names them for Python users.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sympy as sp

from dptheory.core import paperfile
from dptheory.core.conditions import Condition
from dptheory.core.errors import RegimeNotSupported
from dptheory.core.registry import REGISTRY
from dptheory.core.theorem import Term, Theorem
from dptheory.core.units import Direction, Monotone
from dptheory.papers.maxinfo import kernels as mx

_PAPERFILE = paperfile.load(__name__, "paper.toml")
DWORK15 = _PAPERFILE.paper("dwork15")
ROGERS16 = _PAPERFILE.paper("rogers16")
OURS = _PAPERFILE.paper("maxinfo")

NOTATION = _PAPERFILE.notation("dwork15")
eps, delta, n, beta, k, p_prod, tau, c, C, C_beta = NOTATION.symbols(
    "eps", "delta", "n", "beta", "k", "p_prod", "tau", "c", "C", "C_beta"
)
NOTATION_OURS = _PAPERFILE.notation("maxinfo")
nO, mO, EO, zetaO, sigmaO, betaO, muO, vO = NOTATION_OURS.symbols("n", "m", "E", "zeta", "sigma", "beta", "mu", "v_sum")

# ----------------------------------------------------------------------------- declared in paper.toml
_THEOREMS = {t.key: REGISTRY.add(t) for t in _PAPERFILE.theorems()}
# Dwork et al. 2015
THM19 = _THEOREMS["dwork15.thm19"]
THM20 = _THEOREMS["dwork15.thm20"]
THM13 = _THEOREMS["dwork15.thm13"]
COR21_ROUTE = _THEOREMS["dwork15.cor21_route"]
COR21 = _THEOREMS["dwork15.cor21"]
COR22_ROUTE = _THEOREMS["dwork15.cor22_route"]
COR22 = _THEOREMS["dwork15.cor22"]
# Rogers et al. 2016
ROGERS = _THEOREMS["rogers16.approx_dp_maxinfo"]
# ours (L&Z notation)
THM_A = _THEOREMS["maxinfo.thmA_derived"]
THM_B = _THEOREMS["maxinfo.thmB_derived"]

C_BETA_LT1 = THM20.conditions[0]
"""beta < 1 (the slack beta is a probability below 1): the condition of Thm 20, Thm 13 and Cor 21 (with its route)."""
X22_STAR = COR22.conditions[0].relation.rhs
"""79/10: the constant of Cor 22's condition x >= X22_STAR, rounded up from the crossing x* = 7.80... (claim
dwork15.C22, tests)."""

_NAMES = _PAPERFILE.names("maxinfo")
KB_SYM = _NAMES["K_B"]
"""Theorem B's K_B(lambda) (``[define.maxinfo]``; its free ``lambda`` is positive)."""
_a_sym = _NAMES["a"]
"""Theorem B's a = E r (lambda^2 + lambda)/2 (its admissible set is 4 a (m - 1) < 1)."""
C_BETA_O = THM_A.conditions[0]

# ----------------------------------------------------------------------------- declared here (no TOML field yet)
_mubar_sym = muO / (1 - 4 * muO * zetaO**2 * (mO - 1))

LEMMA_M = REGISTRY.add(Theorem(
    key="maxinfo.lemmaM_derived",
    title="Exponential moment of the squared norm of a centred bounded sum (Lemma M, derived here)",
    citation=OURS.item("Lemma M (proof in docs/derivations/maxinfo_dpsgd.md)"),
    notation=NOTATION_OURS,
    params=("mu", "zeta", "m", "v_sum"),
    conditions=(Condition(4 * muO * zetaO**2 * (mO - 1) < 1, "4 mu zeta^2 (m - 1) < 1"),
                Condition(sp.LessThan(vO, mO * zetaO**2, evaluate=False),
                          "each variance v_k = E||c_k||^2 is at most zeta^2", kind="consistency")),
    assumptions=("c_1..c_m independent, c_k = g_k - E g_k with ||g_k|| <= zeta in a Hilbert space",
                 "v_sum = sum_k E||c_k||^2; C = sum_k c_k"),
    bound=vO * (sp.exp(8 * zetaO**2 * _mubar_sym) - 1) / (8 * zetaO**2),
    direction=Direction.UPPER,
    quantity="ln E exp(mu ||C||^2)",
    terms={"relaxed": Term("relaxed", "with v_k <= zeta^2: m (exp(8 zeta^2 mubar) - 1)/8",
                           expr=mO * (sp.exp(8 * zetaO**2 * _mubar_sym) - 1) / 8)},
    monotone={"mu": Monotone.INCREASING, "v_sum": Monotone.NONDECREASING},
    # keep property tests away from float64 subnormals (values below 1e-300 cannot agree to 1e-10)
    sample={"mu": (1e-6, 1.0, True), "v_sum": (1e-6, 100.0, True), "zeta": (1e-2, 10.0, True)},
    notes="DERIVED HERE. Dimension-free; tight as mu -> 0 (~ mu sum_k v_k).",
))

CO, CbO = NOTATION_OURS.symbols("C", "C_beta")
ROUTE = REGISTRY.add(Theorem(
    key="maxinfo.dp_route_rogers_asymptotic",
    title="DP-SGD max-information via (eps, delta)-DP and Rogers et al. (the comparison route, asymptotic)",
    citation=OURS.item("docs/derivations/maxinfo_route.md, section 3 (derived here; Rogers et al.'s constants "
                       "recalled [R])"),
    notation=NOTATION_OURS,
    params=("n", "E", "zeta", "sigma", "beta", "C", "C_beta"),
    conditions=(C_BETA_O,),
    assumptions=("DP-SGD-stream is mu-GDP with mu = 2 zeta sqrt(E)/sigma (replace-one, Delta = 2 zeta per use)",
                 "eps solves e^(-eps^2 n) + C_beta n sqrt(delta(eps)/eps) = beta with delta(eps) the exact mu-GDP "
                 "delta (Balle & Wang 2018); Rogers et al. need eps <= 1/2 and delta < eps (else RegimeNotSupported)"),
    statement=(sp.Eq(sp.Symbol("I^beta"),
                     CO * (sp.Symbol("epsilon") ** 2 * nO + nO * sp.sqrt(sp.Symbol("delta") / sp.Symbol("epsilon")))),),
    direction=Direction.ASYMPTOTIC,
    quantity="I^beta_inf of DP-SGD-stream via the (eps, delta)-DP route, up to Rogers et al.'s constants",
    # Rogers et al.'s eps <= 1/2 is a condition on the *computed* eps, not on the parameters: these points meet it
    witnesses=({"n": 10_000, "E": 1, "zeta": 1, "sigma": 100, "beta": "0.01", "C": 1, "C_beta": 1},
               {"n": 100_000, "E": 2, "zeta": 1, "sigma": 300, "beta": "1e-6", "C": 2, "C_beta": "0.5"},
               {"n": 1000, "E": 1, "zeta": "0.5", "sigma": 200, "beta": "0.05", "C": 1, "C_beta": 1},
               {"n": 500_000, "E": 4, "zeta": 1, "sigma": 150, "beta": "0.001", "C": "0.5", "C_beta": 3}),
    mp=mx.route_mp,
    np=mx.route_np,
    arb=mx.route_arb,
    kernel_reason="eps is the root of the Gaussian mechanism's delta(eps) equation, then Rogers et al.'s slack; "
    "no closed form. The arb kernel brackets eps by bisection with certified signs of the slack "
    "(docs/derivations/maxinfo_arb.md)",
    notes="ASYMPTOTIC (Rogers et al.'s constants unverified). Used only for the scaling claim lz26.C2: its per-example "
    "value grows with n (eps^2 carries ln(n/beta)), unlike maxinfo.thmB_derived.",
))


def maxinfo_guarantee(key: str, params: Mapping[str, Any], *, dps: int = 30) -> Any:
    """Evaluate a max-information bound where a *guarantee* is required (PAC-Bayes, transfer).

    Raises:
        RegimeNotSupported: the theorem is ASYMPTOTIC (hidden constants) or a lower bound.
    """
    thm = REGISTRY.get(key)
    if not isinstance(thm, Theorem) or not thm.direction.is_guarantee:
        what = thm.direction.value if isinstance(thm, Theorem) else "not a theorem"
        raise RegimeNotSupported(f"{key} is {what}: it cannot be used where an upper bound on the max-information is "
                                 "required (a guarantee); use maxinfo.thmA_derived or maxinfo.thmB_derived")
    return thm.evaluate(params, dps=dps)


__all__ = ["COR21", "COR22", "LEMMA_M", "NOTATION", "NOTATION_OURS", "ROGERS", "ROUTE", "THM13", "THM19", "THM20",
           "THM_A", "THM_B", "maxinfo_guarantee"]
