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
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from dptheory.core import paperfile
from dptheory.core.conditions import Condition
from dptheory.core.errors import RegimeNotSupported
from dptheory.core.registry import REGISTRY
from dptheory.core.theorem import Term, Theorem
from dptheory.core.units import Direction, Monotone, Unit
from dptheory.papers.maxinfo import kernels as mx
from dptheory.privacy.gaussian_dp import gdp_delta_mp, gdp_delta_np

_PAPERFILE = paperfile.load(__name__, "paper.toml")
DWORK15 = _PAPERFILE.paper("dwork15")
ROGERS16 = _PAPERFILE.paper("rogers16")
OURS = _PAPERFILE.paper("maxinfo")

NOTATION = _PAPERFILE.notation("dwork15")
eps, delta, n, beta, k, p_prod, tau, c, C, C_beta = NOTATION.symbols(
    "eps", "delta", "n", "beta", "k", "p_prod", "tau", "c", "C", "C_beta"
)

C_BETA_LT1 = Condition(sp.StrictLessThan(beta, 1, evaluate=False), "the slack beta is a probability below 1")
C_P_LE1 = Condition(sp.LessThan(p_prod, 1, evaluate=False), "p_prod is a probability")


def _dwork15(**fields: Any) -> Theorem:
    """Register an upper bound of Dwork et al. 2015 (arXiv 1506.02629) in its notation."""
    return REGISTRY.add(Theorem(notation=NOTATION, direction=Direction.UPPER, **fields))


def _tail(**fields: Any) -> Theorem:
    """Register a Dwork et al. 2015 tail bound P[f(S) - P^n[f] >= tau] (Cor 21/22 and their proof routes)."""
    return _dwork15(quantity="P[f(S) - P^n[f] >= tau]", unit=Unit.DIMENSIONLESS, **fields)


# ----------------------------------------------------------------------------- Dwork et al. 2015
THM19 = _dwork15(
    key="dwork15.thm19",
    title="Max-information of a pure eps-DP algorithm, any input distribution",
    citation=DWORK15.item("Theorem 19"),
    params=("eps", "n"),
    assumptions=("A is eps-DP (pure, delta = 0), replace-one neighbours",
                 "any distribution of S over n-element datasets (algorithm-level bound, Def. 11)"),
    bound=eps * n,
    quantity="max-information I_inf(A, n) (beta = 0)",
    unit=Unit.NATS,
    monotone={"n": Monotone.INCREASING, "eps": Monotone.INCREASING},
    notes="Dwork et al. print log2(e) eps n bits; this is the same bound in nats.",
)

THM20 = _dwork15(
    key="dwork15.thm20",
    title="beta-approximate max-information of a pure eps-DP algorithm on product inputs",
    citation=DWORK15.item("Theorem 20"),
    params=("eps", "n", "beta"),
    conditions=(C_BETA_LT1,),
    assumptions=("A is eps-DP (pure), replace-one neighbours",
                 "S ~ P^n (the proof only uses independent coordinates: any product law)"),
    bound=eps**2 * n / 2 + eps * sp.sqrt(n * sp.log(2 / beta) / 2),
    quantity="approximate max-information I^beta_inf(S; A(S))",
    monotone={"n": Monotone.INCREASING, "eps": Monotone.INCREASING, "beta": Monotone.DECREASING},
    notes="Dwork et al. print log2(e)(eps^2 n/2 + eps sqrt(n ln(2/beta)/2)) bits. Valid only for product inputs, "
    "so it is not an algorithm-level bound and may only come first in a composition (Rogers et al. 2016).",
)

THM13 = _dwork15(
    key="dwork15.thm13",
    title="Transfer theorem: an event's probability under (S, A(S)) vs under S x A(S)",
    citation=DWORK15.item("Theorem 13"),
    params=("k", "beta", "p_prod"),
    conditions=(C_BETA_LT1, C_P_LE1),
    assumptions=("I^beta_inf(S; A(S)) <= k nats", "O is any event on X^n x Y; p_prod = P[S x A(S) in O]"),
    bound=sp.exp(k) * p_prod + beta,
    quantity="P[(S, A(S)) in O]",
    unit=Unit.DIMENSIONLESS,
    monotone={"k": Monotone.INCREASING, "p_prod": Monotone.NONDECREASING},
    notes="In bits the factor is 2^k_bits = e^k_nats.",
)

_X = tau**2 / (c**2 * n)


def _cor21(max_information: str, **fields: Any) -> Theorem:
    """Register a tail bound in the setting of Cor 21 (its statement and its proof route): A outputs a c-sensitive
    statistic f of S ~ P^n with ``I^beta_inf(S; f) <= max_information``; the slack beta is below 1."""
    hypotheses = ("A outputs a c-sensitive f: X^n -> R", "S ~ P^n", f"I^beta_inf(S; f) <= {max_information}")
    return _tail(conditions=(C_BETA_LT1,), assumptions=hypotheses, **fields)


def _cor22(**fields: Any) -> Theorem:
    """Register a tail bound in the setting of Cor 22 (its statement and its proof route): a tau/(cn)-DP algorithm
    outputs a c-sensitive statistic of S ~ P^n; the parameters are ``tau, c, n``."""
    return _tail(params=("tau", "c", "n"), assumptions=("A is tau/(cn)-DP and outputs a c-sensitive f", "S ~ P^n"),
                 **fields)


COR21_ROUTE = _cor21(
    "k nats",
    key="dwork15.cor21_route",
    title="Tail of a c-sensitive statistic via the transfer theorem and McDiarmid (the proof of Cor 21)",
    citation=DWORK15.item("Corollary 21 (its proof: Theorem 13 + McDiarmid)"),
    params=("k", "beta", "tau", "c", "n"),
    bound=sp.exp(k) * sp.exp(-2 * _X) + beta,
    notes="McDiarmid: P[f(S) - E f >= tau] <= exp(-2 tau^2/(c^2 n)) for a fixed c-sensitive f; Thm 13 multiplies "
    "by e^k and adds beta.",
)

COR21 = _cor21(
    "tau^2/(c^2 n) nats (e.g. A is tau^2/(c^2 n^2)-DP)",
    key="dwork15.cor21",
    title="Generalization of a low-sensitivity statistic chosen with bounded max-information",
    citation=DWORK15.item("Corollary 21", note="hypothesis read as tau^2/(c^2 n) nats; the extracted text's "
                          "log(e) tau^2/c^2 is inconsistent with the conclusion (see dwork15.C21_as_extracted)"),
    params=("tau", "c", "n", "beta"),
    bound=sp.exp(-_X) + beta,
    reading="Hypothesis tau^2/(c^2 n) nats (corrected; docs/derivations/maxinfo_route.md, section 1).",
)

_A22 = sp.Rational(3, 2) - 1 / sp.sqrt(2)  # 2 - (1/2 + 1/sqrt 2)
X22_STAR = sp.Rational(79, 10)  # rounded up from the crossing x* = 7.80... (claim dwork15.C22, tests)


COR22_ROUTE = _cor22(
    key="dwork15.cor22_route",
    title="Tail of a c-sensitive statistic output by a tau/(cn)-DP algorithm (the proof of Cor 22, exact)",
    citation=DWORK15.item("Corollary 22 (its proof: Thm 20 with beta = 2 exp(-tau^2/(c^2 n)), Thm 13, McDiarmid)"),
    bound=sp.exp(-_A22 * _X) + 2 * sp.exp(-_X),
    notes="With eps = tau/(cn) and beta = 2 exp(-x), x = tau^2/(c^2 n), Thm 20 gives k = x (1/2 + 1/sqrt 2); "
    "then e^k exp(-2x) + beta. Derived here from the printed proof sketch.",
)

COR22 = _cor22(
    key="dwork15.cor22",
    title="Generalization of a low-sensitivity statistic output by a tau/(cn)-DP algorithm",
    citation=DWORK15.item("Corollary 22"),
    conditions=(Condition(_X >= X22_STAR, "tau^2/(c^2 n) at least the constant of the proof's route (x* = 7.80..., "
                          "computed here; the paper: 'larger than a fixed constant')"),),
    bound=sp.exp(-sp.Rational(3, 4) * _X),
    reading="'larger than a fixed constant' made explicit: x >= 79/10, where the route dwork15.cor22_route drops "
    "below exp(-3x/4) from x* = 7.80... on (claim dwork15.C22; single crossing, proved in docs/max_information.md).",
)

# ----------------------------------------------------------------------------- Rogers et al. 2016
ROGERS = REGISTRY.add(Theorem(
    key="rogers16.approx_dp_maxinfo",
    title="Approximate max-information of an (eps, delta)-DP algorithm on product inputs (asymptotic form)",
    citation=ROGERS16.item("main theorem (product distributions)", note="constants recalled, not verified "
                           "(docs/derivations/maxinfo_route.md, section 2 [R]); encoded as O(.) with the hidden "
                           "constants as parameters"),
    notation=NOTATION,
    params=("eps", "delta", "n", "C", "C_beta"),
    conditions=(Condition(sp.LessThan(eps, sp.Rational(1, 2), evaluate=False), "eps in (0, 1/2]"),
                Condition(sp.StrictLessThan(delta, eps, evaluate=False), "delta in (0, eps)")),
    assumptions=("A is (eps, delta)-DP", "S drawn from a product distribution (the result holds only there)"),
    bound=C * (eps**2 * n + n * sp.sqrt(delta / eps)),
    direction=Direction.ASYMPTOTIC,
    quantity="I^beta_inf,Pi(A, n) at beta = e^(-eps^2 n) + C_beta n sqrt(delta/eps) (see term 'beta')",
    terms={"beta": Term("beta", "the slack beta at which the bound holds (dimensionless)",
                        expr=sp.exp(-eps**2 * n) + C_beta * n * sp.sqrt(delta / eps))},
    notes="ASYMPTOTIC: refused wherever an upper bound is required. Rogers et al.'s explicit constants were not "
    "checked against the paper, so they are not hard-coded.",
))

# ----------------------------------------------------------------------------- ours (L&Z notation)
NOTATION_OURS = _PAPERFILE.notation("maxinfo")
nO, mO, EO, zetaO, sigmaO, betaO, muO, vO = NOTATION_OURS.symbols("n", "m", "E", "zeta", "sigma", "beta", "mu", "v_sum")
R_O = zetaO**2 / sigmaO**2
NU_O = mO * sp.floor(nO / mO)
C_BETA_O = Condition(sp.StrictLessThan(betaO, 1, evaluate=False), "the slack beta is a probability below 1")
C_M_LE_N = Condition(sp.LessThan(mO, nO, evaluate=False), "a batch of m distinct examples needs m <= n")


def _ours(**fields: Any) -> Theorem:
    """Register an upper bound derived here (docs/derivations/maxinfo_dpsgd.md) in L&Z's notation."""
    return REGISTRY.add(Theorem(notation=NOTATION_OURS, direction=Direction.UPPER, **fields))


def _stream(**fields: Any) -> Theorem:
    """Register a max-information bound of DP-SGD-stream (Theorems A and B, derived here)."""
    return _ours(params=("n", "m", "E", "zeta", "sigma", "beta"), conditions=(C_BETA_O, C_M_LE_N),
                 quantity="approximate max-information I^beta_inf(S; DP-SGD-stream(S))", **fields)


_A_SYM = 2 * EO * NU_O * mO * R_O


def _nu(p: Mapping[str, Any]) -> Any:
    return int(p["m"]) * (int(p["n"]) // int(p["m"]))


def _nu_np(p: Mapping[str, np.ndarray]) -> np.ndarray:
    return p["m"] * np.floor(p["n"] / p["m"])


def _r(p: Mapping[str, Any]) -> Any:
    return p["zeta"] ** 2 / p["sigma"] ** 2


_DPSGD_ASSUMPTIONS = (
    "(A1) S = (x_1..x_n) has independent coordinates (any product distribution)",
    "(A2) batches (CreateBatches), theta_0 and all randomness except the noise are independent of S",
    "(A3) clipped per-example gradients have norm <= zeta",
    "(A4) fresh noise z_t ~ N(0, I_d) at every step; u_t = sum of clipped gradients + sigma z_t",
    "(A5) output: the whole update stream (the last iterate, a post-processing, is covered)",
    "T = floor(n/m) disjoint batches of size m per epoch (valid for any T <= floor(n/m))",
)

THM_A = _stream(
    key="maxinfo.thmA_derived",
    title="Max-information of DP-SGD-stream, any E and any batch size (Theorem A, derived here)",
    citation=OURS.item("Theorem A (proof in docs/derivations/maxinfo_dpsgd.md)"),
    assumptions=_DPSGD_ASSUMPTIONS,
    bound=_A_SYM + 2 * sp.sqrt(_A_SYM * sp.log(1 / betaO)),
    monotone={"E": Monotone.INCREASING, "sigma": Monotone.DECREASING, "zeta": Monotone.INCREASING,
              "beta": Monotone.DECREASING},
    notes="DERIVED HERE (not a statement of Lampert & Zakerinia). 2 E T m^2 r + 2 sqrt(2 E T m^2 r ln(1/beta)) with "
    "r = zeta^2/sigma^2 and T = floor(n/m); linear in n E with a factor m (a worst case over gradient maps).",
)

_lam = sp.Symbol("lambda", positive=True)
_a_sym = EO * R_O * (_lam**2 + _lam) / 2
_abar_sym = _a_sym / (1 - 4 * _a_sym * (mO - 1))
KB_SYM = sp.log(1 / betaO) / _lam + NU_O * EO * R_O / 2 + NU_O * (sp.exp(8 * _abar_sym) - 1) / (8 * _lam)


def _thm_b_mp(p: Mapping[str, Any]) -> mpmath.mpf:
    return mx.thm_b_mp(_nu(p), int(p["m"]), p["E"], _r(p), p["beta"])


def _thm_b_np(p: Mapping[str, np.ndarray]) -> np.ndarray:
    return mx.thm_b_np(_nu_np(p), p["m"], p["E"], p["zeta"] ** 2 / p["sigma"] ** 2, p["beta"])


def _exact_ints(p: Mapping[str, Any], names: tuple[str, ...], where: str) -> tuple[int, ...]:
    """Integer parameters given as balls, as Python ints (Undecided when a ball is not one integer)."""
    from dptheory.core.compile import Undecided

    out = []
    for x in names:
        v = p[x]
        k = v.unique_fmpz() if v.is_exact() else None
        if k is None:
            raise Undecided(f"{where}: the integer {x} must be exact on balls (got {v.str(5)})")
        out.append(int(k))
    return tuple(out)


def _thm_b_arb(p: Mapping[str, Any]) -> Any:
    """Certified Theorem B (:func:`kernels.thm_b_arb`: K_B at the minimiser, branch and bound below)."""
    n_, m_, E_ = _exact_ints(p, ("n", "m", "E"), "maxinfo.thmB_derived")
    return mx.thm_b_arb(m_ * (n_ // m_), m_, E_, p["zeta"] ** 2 / p["sigma"] ** 2, p["beta"])


THM_B = _stream(
    key="maxinfo.thmB_derived",
    title="Max-information of DP-SGD-stream, one epoch or theta-independent gradients (Theorem B, derived here)",
    citation=OURS.item("Theorem B (proof in docs/derivations/maxinfo_dpsgd.md)"),
    assumptions=(*_DPSGD_ASSUMPTIONS,
                 "EITHER E = 1 (one pass) OR the clipped gradient does not depend on theta (linear losses, mean "
                 "estimation); for E >= 2 with theta-dependent gradients this is Conjecture C "
                 "(docs/derivations/maxinfo_dpsgd.md) and is NOT established: use maxinfo.thmA_derived"),
    statement=(sp.Eq(sp.Symbol("K_B(lambda)"), KB_SYM),
               sp.Eq(sp.Symbol("I^beta_inf"), sp.Symbol("inf_{lambda > 0, 4a(m-1) < 1} K_B(lambda)"))),
    mp=_thm_b_mp,
    np=_thm_b_np,
    arb=_thm_b_arb,
    kernel_reason=(
        'an infimum over lambda of K_B(lambda), found by a bracketed one-dimensional search; no closed '
        'form. The arb kernel encloses it: K_B at the minimiser above, a branch and bound over lambda below '
        '(docs/derivations/maxinfo_arb.md)'
    ),
    monotone={"E": Monotone.INCREASING, "sigma": Monotone.DECREASING, "beta": Monotone.DECREASING},
    notes="DERIVED HERE. Any fixed lambda gives a valid bound; the kernels minimise over lambda (float64: grid + "
    "golden section on ln lambda; mpmath: golden section refinement). Leading order n E r + sqrt(2 n E r ln(1/beta)), "
    "no factor m.",
)

_mubar_sym = muO / (1 - 4 * muO * zetaO**2 * (mO - 1))

LEMMA_M = _ours(
    key="maxinfo.lemmaM_derived",
    title="Exponential moment of the squared norm of a centred bounded sum (Lemma M, derived here)",
    citation=OURS.item("Lemma M (proof in docs/derivations/maxinfo_dpsgd.md)"),
    params=("mu", "zeta", "m", "v_sum"),
    conditions=(Condition(4 * muO * zetaO**2 * (mO - 1) < 1, "4 mu zeta^2 (m - 1) < 1"),
                Condition(sp.LessThan(vO, mO * zetaO**2, evaluate=False),
                          "each variance v_k = E||c_k||^2 is at most zeta^2", kind="consistency")),
    assumptions=("c_1..c_m independent, c_k = g_k - E g_k with ||g_k|| <= zeta in a Hilbert space",
                 "v_sum = sum_k E||c_k||^2; C = sum_k c_k"),
    bound=vO * (sp.exp(8 * zetaO**2 * _mubar_sym) - 1) / (8 * zetaO**2),
    quantity="ln E exp(mu ||C||^2)",
    terms={"relaxed": Term("relaxed", "with v_k <= zeta^2: m (exp(8 zeta^2 mubar) - 1)/8",
                           expr=mO * (sp.exp(8 * zetaO**2 * _mubar_sym) - 1) / 8)},
    monotone={"mu": Monotone.INCREASING, "v_sum": Monotone.NONDECREASING},
    # keep property tests away from float64 subnormals (values below 1e-300 cannot agree to 1e-10)
    sample={"mu": (1e-6, 1.0, True), "v_sum": (1e-6, 100.0, True), "zeta": (1e-2, 10.0, True)},
    notes="DERIVED HERE. Dimension-free; tight as mu -> 0 (~ mu sum_k v_k).",
)

def _route_parts(p: Mapping[str, Any], hp: bool) -> tuple[Any, Any, Any]:
    """eps (from the slack equation), delta(eps) of mu-GDP with mu = 2 zeta sqrt(E)/sigma, and n."""
    mu = 2 * p["zeta"] * (mpmath.sqrt(p["E"]) if hp else np.sqrt(p["E"])) / p["sigma"]
    if hp:
        e = mx.dp_route_eps_mp(p["n"], mu, p["C_beta"], p["beta"])
        d = gdp_delta_mp(e, mu)
    else:
        e = mx.dp_route_eps(float(p["n"]), float(mu), float(p["C_beta"]), float(p["beta"]))
        d = float(gdp_delta_np(e, mu))
    if e > 0.5 or not (0 < d < e):
        raise RegimeNotSupported(f"maxinfo.dp_route_rogers_asymptotic: Rogers et al. need eps <= 1/2 and "
                                 f"0 < delta < eps; the route gives eps = {float(e):.4g}, delta = {float(d):.3g} "
                                 f"at {({k: float(v) for k, v in p.items()})}")
    return e, d, p["n"]


def _route_mp(p: Mapping[str, Any]) -> mpmath.mpf:
    e, d, nn = _route_parts(p, True)
    return p["C"] * (e**2 * nn + nn * mpmath.sqrt(d / e))


def _route_arb(p: Mapping[str, Any]) -> Any:
    """Certified route (:func:`kernels.dp_route_arb`: eps bracketed by certified signs of the slack)."""
    n_, E_ = _exact_ints(p, ("n", "E"), "maxinfo.dp_route_rogers_asymptotic")
    return mx.dp_route_arb(n_, E_, p["zeta"], p["sigma"], p["beta"], p["C"], p["C_beta"])


def _route_np(p: Mapping[str, np.ndarray]) -> np.ndarray:
    arrs = np.broadcast_arrays(*(np.asarray(p[k], dtype=np.float64) for k in ("n", "E", "zeta", "sigma", "beta", "C",
                                                                                "C_beta")))
    out = np.empty(arrs[0].shape)
    for idx in np.ndindex(out.shape):
        q = dict(zip(("n", "E", "zeta", "sigma", "beta", "C", "C_beta"), (float(a[idx]) for a in arrs), strict=True))
        e, d, nn = _route_parts(q, False)
        out[idx] = q["C"] * (e * e * nn + nn * np.sqrt(d / e))
    return out


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
    mp=_route_mp,
    np=_route_np,
    arb=_route_arb,
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
