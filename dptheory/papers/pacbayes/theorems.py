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

_PAPERFILE = paperfile.load(__name__, "paper.toml")
MAURER04 = _PAPERFILE.paper("maurer04")
MCALLESTER99 = _PAPERFILE.paper("mcallester99")
DR18 = _PAPERFILE.paper("dr18")
OURS = _PAPERFILE.paper("pacbayes")

KL_INVERSE_REASON = ("the risk bound is an inverse of the binary kl (the root p of kl(q||p) = c, "
                     "by bisection/Newton; on arb balls by bisection with certified bracket ends); no closed form")

NOTATION = _PAPERFILE.notation("pacbayes")
emp, KLs, n, delta, beta, k, q, c = NOTATION.symbols("emp_risk", "KL", "n", "delta", "beta", "k", "q", "c")
_p = sp.Symbol("p", positive=True)
_j = sp.Symbol("j", integer=True, nonnegative=True)


class kl(sp.Function):
    """Binary kl divergence kl(q||p), printed as in the papers."""

    nargs = 2

    def _latex(self, printer: Any, exp: Any = None) -> str:
        a, b = (printer._print(x) for x in self.args)
        base = rf"\mathrm{{kl}}\left({a}\,\middle\|\,{b}\right)"
        return base if exp is None else rf"{base}^{{{exp}}}"


def xi_sum(size: Any) -> sp.Sum:
    """Maurer's ``xi(n) = sum_k C(n,k)(k/n)^k(1-k/n)^(n-k)`` (arXiv cs/0411099, main theorem), ``n`` = ``size``."""
    return sp.Sum(sp.binomial(size, _j) * (_j / size) ** _j * (1 - _j / size) ** (size - _j), (_j, 0, size))


def risk_conditions(emp_sym: Any, delta_sym: Any) -> tuple[Condition, Condition]:
    """The two hypotheses of every PAC-Bayes risk bound: the empirical risk of a [0, 1] loss is at most 1, and the
    confidence delta is below 1 (in the notation of ``emp_sym``, ``delta_sym``)."""
    return (Condition(sp.LessThan(emp_sym, 1, evaluate=False), "the empirical risk of a [0, 1] loss is at most 1"),
            Condition(sp.StrictLessThan(delta_sym, 1, evaluate=False), "delta is a probability below 1"))


XI_SYM = xi_sum(n)
R_SYM = sp.Symbol("R(Q)", positive=True)

C_EMP, C_DELTA = risk_conditions(emp, delta)
C_Q = Condition(sp.LessThan(q, 1, evaluate=False), "q is a probability")
C_BETA_DELTA = Condition(sp.StrictLessThan(beta, delta, evaluate=False),
                         "the max-information slack must be below the confidence level (beta < delta)")


# ----------------------------------------------------------------------------- kl inversion
def _kl_inverse(side: str, *, mp: Any, arb: Any, np_: Any, **fields: Any) -> Theorem:
    """Register the ``side`` ("upper" or "lower") kl inverse as an EXACT map of (q, c) (numerics/kl.py kernels).

    Both inverses are returned at their safe end (the ``side`` end) of a float64 bracket of width 1e-14, and both
    are nondecreasing in ``q``; in the budget ``c`` the upper one grows and the lower one shrinks."""
    sign, in_c = ("+", Monotone.NONDECREASING) if side == "upper" else ("-", Monotone.NONINCREASING)
    return REGISTRY.add(Theorem(
        key=f"pacbayes.kl_inv_{side}",
        notation=NOTATION,
        params=("q", "c"),
        conditions=(C_Q,),
        statement=(sp.Eq(kl(q, _p), c),),
        direction=Direction.EXACT,
        quantity=f"kl^-1_{sign}(q, c), returned at the {side} (safe) end of a bracket of width 1e-14 in float64",
        unit=Unit.DIMENSIONLESS,
        mp=lambda p: mp(p["q"], p["c"]),
        arb=lambda p: arb(p["q"], p["c"]),
        np=lambda p: np_(p["q"], p["c"]),
        kernel_reason=KL_INVERSE_REASON,
        monotone={"c": in_c, "q": Monotone.NONDECREASING},
        **fields,
    ))


KL_INV_UPPER = _kl_inverse(
    "upper", mp=K.kl_inv_upper_mp, arb=K.kl_inv_upper_arb, np_=K.kl_inv_upper_np,
    title="Upper kl inverse sup{p in [q, 1]: kl(q||p) <= c} (the risk certificate map)",
    citation=OURS.item("docs/derivations/pacbayes_maxinfo.md, kl inverses (definition; closed forms at q = 0, 1)"),
    notes="mpmath path: bisection at the working precision; float64 path: monotone safeguarded Newton, certified.",
)

KL_INV_LOWER = _kl_inverse(
    "lower", mp=K.kl_inv_lower_mp, arb=K.kl_inv_lower_arb, np_=K.kl_inv_lower_np,
    title="Lower kl inverse inf{p in [0, q]: kl(q||p) <= c}",
    citation=OURS.item("docs/derivations/pacbayes_maxinfo.md, kl inverses"),
)


# ----------------------------------------------------------------------------- Maurer / McAllester / Pinsker
def _maurer_rhs_mp(p: Mapping[str, Any]) -> mpmath.mpf:
    return (p["KL"] + mpmath.log(K.xi_mp(int(p["n"])) / p["delta"])) / p["n"]


def _maurer_rhs_np(p: Mapping[str, np.ndarray]) -> np.ndarray:
    return (p["KL"] + np.log(K.xi_np(p["n"]) / p["delta"])) / p["n"]


def _sqrt_rhs_mp(p: Mapping[str, Any]) -> mpmath.mpf:
    return (p["KL"] + mpmath.log(2 * mpmath.sqrt(p["n"]) / p["delta"])) / p["n"]


def _sqrt_rhs_np(p: Mapping[str, np.ndarray]) -> np.ndarray:
    return (p["KL"] + np.log(2 * np.sqrt(p["n"]) / p["delta"])) / p["n"]


def _n_arb(p: Mapping[str, Any], name: str = "n") -> int:
    return K.exact_int_arb(p[name], name)


def _maurer_rhs_arb(p: Mapping[str, Any]) -> Any:
    return (p["KL"] + (K.xi_arb(_n_arb(p)) / p["delta"]).log()) / p["n"]


def _sqrt_rhs_arb(p: Mapping[str, Any]) -> Any:
    import flint

    return (p["KL"] + (2 * flint.arb(p["n"]).sqrt() / p["delta"]).log()) / p["n"]


def _risk_arb(rhs_arb: Any) -> Any:
    """The certified risk bound: kl^-1_+(emp_risk, budget) on arb balls (numerics/kl.py, bisection with
    certified bracket ends)."""
    def arb_fn(p: Mapping[str, Any]) -> Any:
        return K.kl_inv_upper_arb(p["emp_risk"], rhs_arb(p))

    return arb_fn


def _risk(rhs_mp: Any, rhs_np: Any) -> tuple[Any, Any]:
    def mp_fn(p: Mapping[str, Any]) -> mpmath.mpf:
        return K.kl_inv_upper_mp(p["emp_risk"], rhs_mp(p))

    def np_fn(p: Mapping[str, np.ndarray]) -> np.ndarray:
        return K.kl_inv_upper_np(p["emp_risk"], rhs_np(p))

    return mp_fn, np_fn


def _upper(**fields: Any) -> Theorem:
    """Register an upper risk bound (a probability): every PAC-Bayes key here is ``Direction.UPPER`` and
    dimensionless."""
    return REGISTRY.add(Theorem(direction=Direction.UPPER, unit=Unit.DIMENSIONLESS, **fields))


def _kl_risk(*, rhs: tuple[Any, Any, Any], rhs_sym: Any, rhs_desc: str, emp_sym: Any = emp,
             quantity: str = "true risk R(Q) (via kl^-1_+)", **fields: Any) -> Theorem:
    """Register a PAC-Bayes-kl bound ``kl(emp || R) <= rhs``: the risk is ``kl^-1_+(emp_risk, rhs)`` (mp, arb,
    float64 kernels from the budget's ``rhs = (mp, np, arb)``), the budget is the named term ``rhs``."""
    rhs_mp, rhs_np, rhs_arb = rhs
    mp_fn, np_fn = _risk(rhs_mp, rhs_np)
    return _upper(statement=(sp.LessThan(kl(emp_sym, R_SYM), rhs_sym),), quantity=quantity, mp=mp_fn,
                  arb=_risk_arb(rhs_arb), np=np_fn, kernel_reason=KL_INVERSE_REASON,
                  terms={"rhs": Term("rhs", rhs_desc, rhs_mp, rhs_np, rhs_sym)}, **fields)


_PB_ASSUMPTIONS = ("loss in [0, 1]", "S ~ D^n i.i.d.", "prior P chosen before seeing S",
                   "holds with probability >= 1 - delta simultaneously for every posterior Q")

#: The fields every fixed-prior PAC-Bayes key (Maurer, its relaxations, McAllester) shares.
_PB: dict[str, Any] = {"notation": NOTATION, "params": ("emp_risk", "KL", "n", "delta"),
                       "conditions": (C_EMP, C_DELTA), "assumptions": _PB_ASSUMPTIONS}


def _fixed_prior_kl(**fields: Any) -> Theorem:
    """Register a fixed-prior PAC-Bayes-kl bound (Maurer's main theorem and its ``2 sqrt(n)`` relaxation): the
    fields ``_PB``, nondecreasing in ``KL`` and ``emp_risk`` (the risk is ``kl^-1_+`` of a growing budget)."""
    return _kl_risk(**_PB, monotone={"KL": Monotone.NONDECREASING, "emp_risk": Monotone.NONDECREASING}, **fields)


def _fixed_prior_sqrt(**fields: Any) -> Theorem:
    """Register a fixed-prior square-root bound ``emp_risk + sqrt(...)`` on the true risk R(Q) (Pinsker's relaxation
    of Maurer, McAllester): the fields ``_PB``, increasing in ``KL`` and ``emp_risk``."""
    return _upper(**_PB, quantity="true risk R(Q)",
                  monotone={"KL": Monotone.INCREASING, "emp_risk": Monotone.INCREASING}, **fields)


MAURER = _fixed_prior_kl(
    key="maurer04.kl",
    title="PAC-Bayes-kl bound with the exact xi(n) (Maurer 2004)",
    citation=MAURER04.item("main theorem (PAC-Bayes-kl with xi(n))", note="attribution and item number recalled [R]; "
                           "the moment E exp(n kl) = xi(n) is checked exactly in tests/test_kl.py"),
    rhs=(_maurer_rhs_mp, _maurer_rhs_np, _maurer_rhs_arb),
    rhs_sym=(KLs + sp.log(XI_SYM / delta)) / n,
    rhs_desc="kl budget (KL + ln(xi(n)/delta))/n, nats",
)

MAURER_2SQRT = _fixed_prior_kl(
    key="maurer04.kl_2sqrtn",
    title="PAC-Bayes-kl bound with the relaxation xi(n) <= 2 sqrt(n)",
    citation=MAURER04.item("main theorem with xi(n) <= 2 sqrt(n)", note="Maurer proves xi(n) <= 2 sqrt(n) for n >= 8; "
                           "proved here for every n >= 1 (claim pacbayes.C3)"),
    rhs=(_sqrt_rhs_mp, _sqrt_rhs_np, _sqrt_rhs_arb),
    rhs_sym=(KLs + sp.log(2 * sp.sqrt(n) / delta)) / n,
    rhs_desc="kl budget (KL + ln(2 sqrt(n)/delta))/n, nats",
)

PINSKER = _fixed_prior_sqrt(
    key="pacbayes.pinsker_derived",
    title="Square-root (Pinsker) relaxation of the PAC-Bayes-kl bound",
    citation=OURS.item("docs/derivations/pacbayes_maxinfo.md, Pinsker relaxation: kl(q||p) >= 2 (p - q)^2 applied to "
                       "maurer04.kl_2sqrtn"),
    bound=emp + sp.sqrt((KLs + sp.log(2 * sp.sqrt(n) / delta)) / (2 * n)),
)


MCALLESTER = _fixed_prior_sqrt(
    key="mcallester99",
    title="McAllester's square-root PAC-Bayes bound (form as recalled; validity checked via Maurer + Pinsker)",
    citation=MCALLESTER99.item("Theorem 1", note="constants recalled [R], not checked against the paper; the "
                               "encoded form is implied by maurer04.kl + Pinsker for every n (claim pacbayes.C2)"),
    bound=emp + sp.sqrt((KLs + sp.log(1 / delta) + sp.log(n) + 2) / (2 * n - 1)),
)


# ----------------------------------------------------------------------------- max-information priors (ours)
def _g2_rhs_mp(p: Mapping[str, Any]) -> mpmath.mpf:
    kl_term = p.get("KL", 0)
    return (kl_term + mpmath.log(K.xi_mp(int(p["n"]))) - mpmath.log(p["delta"] - p["beta"]) + p["k"]) / p["n"]


def _g2_rhs_np(p: Mapping[str, np.ndarray]) -> np.ndarray:
    kl_term = p.get("KL", 0.0)
    return (kl_term + np.log(K.xi_np(p["n"])) - np.log(p["delta"] - p["beta"]) + p["k"]) / p["n"]


def _g2_rhs_arb(p: Mapping[str, Any]) -> Any:
    kl_term = p.get("KL", 0)
    return (kl_term + K.xi_arb(_n_arb(p)).log() - (p["delta"] - p["beta"]).log() + p["k"]) / p["n"]


_MI_ASSUMPTIONS = ("loss in [0, 1]", "S ~ D^n i.i.d.",
                   "the prior (or the model) is the output A(S) of an algorithm with I^beta_inf(S; A(S)) <= k nats, "
                   "e.g. maxinfo.thmA_derived / maxinfo.thmB_derived for DP-SGD, dwork15.thm20 for pure DP",
                   "holds with probability >= 1 - delta over S (and A's randomness)")

#: The fields every max-information key (G1, G2, G3) shares.
_MI: dict[str, Any] = {"notation": NOTATION, "conditions": (C_EMP, C_DELTA, C_BETA_DELTA),
                       "assumptions": _MI_ASSUMPTIONS}
#: The parameters of a bound on one trained model (G1, G3): no prior, so no KL.
_SINGLE_MODEL_PARAMS = ("emp_risk", "n", "delta", "beta", "k")


def _maxinfo_kl(**fields: Any) -> Theorem:
    """Register a PAC-Bayes-kl bound with G2's budget ``(KL + ln xi(n) + ln(1/(delta - beta)) + k)/n`` under bounded
    max-information (G2; G3 is the same budget without a prior: its kernels read the absent KL as 0)."""
    return _kl_risk(**_MI, rhs=(_g2_rhs_mp, _g2_rhs_np, _g2_rhs_arb), **fields)


G2 = _maxinfo_kl(
    key="pacbayes.g2_maxinfo_prior_derived",
    title="PAC-Bayes-kl bound with a data-dependent prior of bounded max-information (G2, derived here)",
    citation=OURS.item("docs/derivations/pacbayes_maxinfo.md, (G2): Maurer's event + the transfer theorem "
                       "(Dwork et al. Thm 13)"),
    params=("emp_risk", "KL", "n", "delta", "beta", "k"),
    rhs_sym=(KLs + sp.log(XI_SYM) + sp.log(1 / (delta - beta)) + k) / n,
    rhs_desc="kl budget (KL + ln xi(n) + ln(1/(delta - beta)) + k)/n, nats",
    quantity="true risk R(Q) of every posterior Q (via kl^-1_+)",
    monotone={"k": Monotone.NONDECREASING, "KL": Monotone.NONDECREASING},
    notes="DERIVED HERE. Event O = {(S, P): exists Q with kl(emp||R) > (KL(Q||P) + ln(xi(n)/delta'))/n} has product "
    "probability <= delta' (Maurer, any fixed P); Thm 13 with delta' = (delta - beta) e^-k.",
)


G3 = _maxinfo_kl(
    key="pacbayes.g3_single_model_derived",
    title="Generalization of a single trained model of bounded max-information, no prior (G3, derived here)",
    citation=OURS.item("docs/derivations/pacbayes_maxinfo.md, (G3)"),
    params=_SINGLE_MODEL_PARAMS,
    rhs_sym=(sp.log(XI_SYM) + sp.log(1 / (delta - beta)) + k) / n,
    rhs_desc="kl budget (ln xi(n) + ln(1/(delta - beta)) + k)/n, nats",
    quantity="true risk R(theta) of the trained model theta = A(S) (via kl^-1_+)",
    monotone={"k": Monotone.NONDECREASING},
    notes="DERIVED HERE. For fixed theta, E exp(n kl(emp||R)) <= xi(n) (Maurer) and Markov; then Thm 13.",
)

G1 = _upper(
    key="pacbayes.g1_hoeffding_maxinfo_derived",
    title="Hoeffding-form generalization of a single model of bounded max-information (G1, derived here)",
    citation=OURS.item("docs/derivations/pacbayes_maxinfo.md, (G1)"),
    params=_SINGLE_MODEL_PARAMS,
    **_MI,
    bound=emp + sp.sqrt((k + sp.log(2 / (delta - beta))) / (2 * n)),
    quantity="true risk R(theta) (two-sided deviation |emp - R| <= the square root)",
    monotone={"k": Monotone.INCREASING},
)

# ----------------------------------------------------------------------------- Dziugaite & Roy 2018
NOTATION_DR = _PAPERFILE.notation("dr18")
empD, KLD, mD, deltaD, epsD = NOTATION_DR.symbols("emp_risk", "KL", "m", "delta", "eps")
C_EMP_D, C_DELTA_D = risk_conditions(empD, deltaD)
DR_RHS_SYM = (KLD + sp.log(2 * sp.sqrt(mD)) + 2 * sp.Max(sp.log(3 / deltaD), mD * epsD**2)) / mD
XI_M_SYM = xi_sum(mD)
DRV_RHS_SYM = (KLD + sp.log(2 * XI_M_SYM / deltaD)) / mD + epsD**2 / 2 + epsD * sp.sqrt(sp.log(4 / deltaD) / (2 * mD))


def _dr_rhs_mp(p: Mapping[str, Any]) -> mpmath.mpf:
    mm = mpmath.mpf(p["m"])
    return (p["KL"] + mpmath.log(2 * mpmath.sqrt(mm)) + 2 * max(mpmath.log(3 / p["delta"]), mm * p["eps"] ** 2)) / mm


def _dr_rhs_np(p: Mapping[str, np.ndarray]) -> np.ndarray:
    mm = p["m"]
    return (p["KL"] + np.log(2 * np.sqrt(mm)) + 2 * np.maximum(np.log(3 / p["delta"]), mm * p["eps"] ** 2)) / mm


def _drv_rhs_mp(p: Mapping[str, Any]) -> mpmath.mpf:
    mm = mpmath.mpf(p["m"])
    return ((p["KL"] + mpmath.log(2 * K.xi_mp(int(p["m"])) / p["delta"])) / mm + p["eps"] ** 2 / 2
            + p["eps"] * mpmath.sqrt(mpmath.log(4 / p["delta"]) / (2 * mm)))


def _drv_rhs_np(p: Mapping[str, np.ndarray]) -> np.ndarray:
    mm = p["m"]
    return ((p["KL"] + np.log(2 * K.xi_np(mm) / p["delta"])) / mm + p["eps"] ** 2 / 2
            + p["eps"] * np.sqrt(np.log(4 / p["delta"]) / (2 * mm)))


def _dr_rhs_arb(p: Mapping[str, Any]) -> Any:
    import flint

    mm = flint.arb(p["m"])
    return (p["KL"] + (2 * mm.sqrt()).log() + 2 * (3 / p["delta"]).log().max(mm * p["eps"] ** 2)) / mm


def _drv_rhs_arb(p: Mapping[str, Any]) -> Any:
    import flint

    mm = flint.arb(p["m"])
    return ((p["KL"] + (2 * K.xi_arb(_n_arb(p, "m")) / p["delta"]).log()) / mm + p["eps"] ** 2 / 2
            + p["eps"] * ((4 / p["delta"]).log() / (2 * mm)).sqrt())


_DR_ASSUMPTIONS = ("loss in [0, 1]", "S ~ D^m i.i.d.", "the prior P(S) is eps-differentially private (pure DP)",
                   "holds with probability >= 1 - delta for every posterior Q")

#: The fields both eps-DP-prior keys (in DR18's notation) share.
_DR: dict[str, Any] = {"notation": NOTATION_DR, "params": ("emp_risk", "KL", "m", "delta", "eps"),
                       "conditions": (C_EMP_D, C_DELTA_D), "assumptions": _DR_ASSUMPTIONS, "emp_sym": empD}

DR18_THM = _kl_risk(
    key="dr18.dp_prior",
    title="PAC-Bayes-kl bound with an eps-DP data-dependent prior (Dziugaite & Roy 2018)",
    citation=DR18.item("Theorem 4.2", note="NeurIPS numbering recalled [R]; form checked against arXiv 1712.09376 "
                       "Thm 5.4 and re-derived here (Dwork et al. Thm 6/11 with delta = 3 sqrt(beta), plus Maurer)"),
    **_DR,
    rhs=(_dr_rhs_mp, _dr_rhs_np, _dr_rhs_arb),
    rhs_sym=DR_RHS_SYM,
    rhs_desc="kl budget (KL + ln 2 sqrt(m) + 2 max{ln(3/delta), m eps^2})/m, nats",
    monotone={"eps": Monotone.NONDECREASING, "KL": Monotone.NONDECREASING},
    notes="'an eps-differentially private prior contributes 2 eps^2 to the generalization error' (claim dr18.C1).",
)

DR18_MI = _kl_risk(
    key="pacbayes.dr18_maxinfo_variant_derived",
    title="eps-DP prior via max-information (Dwork Thm 20 + G2, beta = delta/2), derived here",
    citation=OURS.item("docs/derivations/pacbayes_maxinfo.md, DR18 max-information variant"),
    **_DR,
    rhs=(_drv_rhs_mp, _drv_rhs_np, _drv_rhs_arb),
    rhs_sym=DRV_RHS_SYM,
    rhs_desc="kl budget (KL + ln(2 xi(m)/delta))/m + eps^2/2 + eps sqrt(ln(4/delta)/(2m)), nats",
    monotone={"eps": Monotone.INCREASING, "KL": Monotone.NONDECREASING},
    notes="DERIVED HERE. Leading DP term eps^2/2 instead of DR18's 2 eps^2 (claim pacbayes.C1).",
)

__all__ = ["DR18_MI", "DR18_THM", "G1", "G2", "G3", "KL_INV_LOWER", "KL_INV_UPPER", "MAURER", "MAURER_2SQRT",
           "MCALLESTER", "NOTATION", "NOTATION_DR", "PINSKER", "risk_conditions", "xi_sum"]
