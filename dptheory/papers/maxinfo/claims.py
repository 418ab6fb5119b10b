"""Claims about the classic max-information results and our derived DP-SGD bounds.

Dwork et al. 2015 (arXiv 1506.02629v2): Corollaries 21 and 22 follow from Theorem 13 (and Thm 20);
we check that the stated conclusions follow from the stated hypotheses through the printed route,
and pin where they do not. Our own results (``docs/derivations/maxinfo_dpsgd.md``): its summary table
suggests Theorem B is the sharper bound; we check that ordering.
"""

from __future__ import annotations

from typing import Any

from dptheory.core.claims import Claim, Finding, Region, Relation, Verdict, theorem_side
from dptheory.core.registry import REGISTRY
from dptheory.core.symbolic import prove_zero
from dptheory.papers.maxinfo import theorems as M
from dptheory.verify.sides import side_at_pin

tau, c, n, k = M.NOTATION.symbols("tau", "c", "n", "k")




_X = tau**2 / (c**2 * n)


def _c21_symbolic() -> Any:
    assert M.COR21_ROUTE.bound is not None and M.COR21.bound is not None  # both are closed forms
    route = M.COR21_ROUTE.bound.subs(k, _X)
    return prove_zero(route - M.COR21.bound, "Cor 21 route at k = tau^2/(c^2 n) minus Cor 21")


def _cor21_claim(*, locator: str, k_label: str, k_value: Any, **fields: Any) -> Claim:
    """Register a reading of Dwork et al.'s Corollary 21 (arXiv 1506.02629): its proof route (Thm 13 + McDiarmid)
    at the hypothesis k = ``k_label`` against the stated bound, for all tau, c, n and beta in (0, 1)."""
    return REGISTRY.add(Claim(
        citation=M.DWORK15.item(locator),
        lhs=theorem_side("dwork15.cor21_route", f"Thm 13 + McDiarmid at k = {k_label}", set={"k": k_value}),
        rhs=theorem_side("dwork15.cor21", "Cor 21"),
        region=Region(description="all tau, c, n, beta in (0, 1)"),
        **fields,
    ))


C21 = _cor21_claim(
    key="dwork15.C21",
    title="Cor 21 follows from Thm 13 + McDiarmid with the hypothesis tau^2/(c^2 n) nats",
    locator="Corollary 21",
    statement="If I^beta_inf(S; f) <= log e tau^2/(c^2 n) then P[f(S) - P^n[f] >= tau] <= exp(-tau^2/(c^2 n)) + beta.",
    reading="The transfer route e^k exp(-2 tau^2/(c^2 n)) + beta at k = tau^2/(c^2 n) equals the stated bound.",
    k_label="tau^2/(c^2 n)",
    k_value=_X,
    relation=Relation.EQ,
    verdict=Verdict.PROVED,
    symbolic=_c21_symbolic,
)

C21_EXTRACTED = _cor21_claim(
    key="dwork15.C21_as_extracted",
    title="Cor 21 with the hypothesis as extracted (log e tau^2/c^2) does not give the stated conclusion",
    locator="Corollary 21 (text as extracted)",
    statement="If I^beta_inf(S; f) <= log e tau^2/c^2 then P[f(S) - P^n[f] >= tau] <= exp(-tau^2/(c^2 n)) + beta.",
    reading="Route at k = tau^2/c^2 nats is <= exp(-tau^2/(c^2 n)) + beta (what the extracted hypothesis would need).",
    k_label="tau^2/c^2",
    k_value=tau**2 / c**2,
    relation=Relation.LE,
    counterexamples=({"tau": 1, "c": 1, "n": 2, "beta": "0.1"},),
    # from the pin: tau = c = 1, n = 2, beta and the two sides; "n >= 3", "tau = 1/2" and exp(-n/4) belong to the
    # construction in words (any n >= 3), not to the pin
    finding=Finding("With the extracted hypothesis 'log e tau^2/c^2' (bits) the statement is false for n >= 3, not "
    "merely unproved. Counterexample: S uniform on {{0,1}}^n, A(S) = S, so I_inf(S; A(S)) = n bits; the analyst asks "
    "f(x) = fraction of coordinates where x agrees with A(S) (sensitivity c = 1/n), so f(S) - P^n[f] = 1/2 always. "
    "At tau = 1/2 the hypothesis n <= log2(e) tau^2/c^2 = log2(e) n^2/4 holds for n >= 3, while the conclusion "
    "1 <= exp(-n/4) + beta fails for beta < 1 - exp(-n/4). At n = 2 this construction does not apply and only "
    "the route through Thm 13 + McDiarmid fails: at tau = c = {tau}, n = {n}, beta = {beta} the route gives "
    "e^1 e^-1 + {beta} = {lhs:.1f} > exp(-1/2) + {beta} = {rhs:.3f}, so the corollary is unprovable by that route "
    "there. The "
    "conclusion needs tau^2/(c^2 n) nats (docs/derivations/maxinfo_route.md, section 1: a typo in the source or "
    "the extraction; which one we cannot tell without the PDF).",
    lambda c: {**{k: c.counterexamples[0][k] for k in ("tau", "n", "beta")}, "lhs": side_at_pin(c, "lhs"),
               "rhs": side_at_pin(c, "rhs")}),
)

_TAUS = ["2.811", "2.82", "2.85", "2.9", "3", "3.1", "3.25", "3.5", "3.75", "4", "4.5", "5", "6", "7", "8", "10",
         "12", "15", "20", "30", "50", "100"]

C22 = REGISTRY.add(Claim(
    key="dwork15.C22",
    title="Cor 22: the printed route gives exp(-3 tau^2/(4 c^2 n)) once tau^2/(c^2 n) >= 7.9",
    citation=M.DWORK15.item("Corollary 22"),
    statement="If A is tau/(cn)-DP then P[f(S) - P^n[f] >= tau] <= exp(-3 tau^2/(4 c^2 n)) when tau^2/(c^2 n) is "
    "larger than a fixed constant.",
    reading="Both sides depend only on x = tau^2/(c^2 n); checked exhaustively on x = tau^2 (c = n = 1) for tau in "
    "[2.811, 100] (x in [7.90, 10^4]); the crossing x* = 7.80... and the single-crossing argument are in "
    "docs/max_information.md and tests/test_maxinfo.py.",
    lhs=theorem_side("dwork15.cor22_route", "Thm 20 + Thm 13 + McDiarmid"),
    rhs=theorem_side("dwork15.cor22", "exp(-3x/4)"),
    relation=Relation.LE,
    verdict=Verdict.EXHAUSTIVE,
    region=Region(fixed={"c": 1, "n": 1}, choices={"tau": _TAUS}, description="x = tau^2 from 7.90 to 10^4"),
))

B_LE_A = REGISTRY.add(Claim(
    key="maxinfo.C1",
    title="Theorem B is at most Theorem A (the summary of our derivations suggests Theorem B is the sharper bound)",
    citation=M.OURS.item("docs/derivations/maxinfo_dpsgd.md, Summary of the bounds"),
    statement="Theorem B: inf_lambda K_B(lambda) ~ n E zeta^2/sigma^2 + (zeta/sigma) sqrt(2 n E ln(1/beta)); "
    "Theorem A: 2 n E m zeta^2/sigma^2 + (2 zeta/sigma) sqrt(2 n E m ln(1/beta)).",
    reading="maxinfo.thmB_derived <= maxinfo.thmA_derived at every valid point (where Theorem B applies).",
    lhs=theorem_side("maxinfo.thmB_derived", "Theorem B"),
    rhs=theorem_side("maxinfo.thmA_derived", "Theorem A"),
    relation=Relation.LE,
    region=Region(description="all valid points"),
    counterexamples=({"n": 1, "m": 1, "E": 1, "zeta": 1, "sigma": 1000, "beta": "1e-9"},
                     {"n": 10, "m": 1, "E": 1, "zeta": 1, "sigma": "0.1", "beta": "0.05"}),
    # "8" and "~" describe the Lemma M relaxation's growth (docs/derivations/maxinfo_dpsgd.md), not the pins
    finding=Finding("Theorem B is not uniformly sharper than Theorem A. Its Lemma M relaxation grows like exp(8 abar) "
    "with abar ~ E zeta^2 lambda^2/(2 sigma^2) at the optimal lambda ~ sqrt(2 ln(1/beta)/(n E r)), i.e. "
    "exp(~8 ln(1/beta)/n): "
    "when n is not large against ln(1/beta) (n = {n}, beta = {beta}: B = {lhs:.5f} > A = {rhs:.5f} nats) or when E m "
    "zeta^2/sigma^2 is large (n = {n2}, sigma = {sigma2}: B > A), Theorem A is smaller. Both are valid; use the "
    "minimum where Theorem B applies (the CLI and the experiments do).",
    lambda c: {"n": c.counterexamples[0]["n"], "beta": c.counterexamples[0]["beta"], "lhs": side_at_pin(c, "lhs"),
               "rhs": side_at_pin(c, "rhs"), "n2": c.counterexamples[1]["n"],
               "sigma2": c.counterexamples[1]["sigma"]}),
))

__all__ = ["B_LE_A", "C21", "C21_EXTRACTED", "C22"]
