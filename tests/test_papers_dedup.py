"""The members of a family of the pacbayes and maxinfo theorems carry the family's fields.

``pacbayes/paper.toml`` declares the kl inverses, the fixed-prior kl bounds (Maurer and its ``2 sqrt(n)``
relaxation), the fixed-prior square-root bounds (Pinsker, McAllester) and the max-information bounds (G1, G2, G3),
each table with the fields of its family (the G2 and G3 tables name the same budget kernels of
``pacbayes/kernels.py``); ``maxinfo/theorems.py`` states once the settings of Dwork et al.'s Cor 21 and Cor 22
(each with its proof route). These tests pin the fields the members carry (the text is the text the declarations
carried before they were built), so that a family cannot drift apart or change its wording silently.
"""

from __future__ import annotations

import pytest

import dptheory.papers.maxinfo.theorems as M
import dptheory.papers.pacbayes.kernels as PK
import dptheory.papers.pacbayes.theorems as P
from dptheory.core.units import Monotone


@pytest.mark.parametrize(("thm", "side", "sign", "in_c"), [
    (P.KL_INV_UPPER, "upper", "+", Monotone.NONDECREASING),
    (P.KL_INV_LOWER, "lower", "-", Monotone.NONINCREASING),
])
def test_kl_inverses_are_returned_at_their_safe_end(thm, side, sign, in_c) -> None:
    assert thm.key == f"pacbayes.kl_inv_{side}"
    assert thm.quantity == (f"kl^-1_{sign}(q, c), returned at the {side} (safe) end of a bracket of width 1e-14 "
                            "in float64")
    assert thm.monotone == {"c": in_c, "q": Monotone.NONDECREASING}


def test_fixed_prior_families_share_the_pac_bayes_setting() -> None:
    kl_bounds, sqrt_bounds = (P.MAURER, P.MAURER_2SQRT), (P.PINSKER, P.MCALLESTER)
    for thm in (*kl_bounds, *sqrt_bounds):
        assert thm.params == ("emp_risk", "KL", "n", "delta")
        assert thm.conditions == (P.C_EMP, P.C_DELTA)
        assert thm.assumptions == ("loss in [0, 1]", "S ~ D^n i.i.d.", "prior P chosen before seeing S",
                                   "holds with probability >= 1 - delta simultaneously for every posterior Q")
    for thm in kl_bounds:
        assert thm.monotone == {"KL": Monotone.NONDECREASING, "emp_risk": Monotone.NONDECREASING}
        assert thm.quantity == "true risk R(Q) (via kl^-1_+)"
    for thm in sqrt_bounds:
        assert thm.monotone == {"KL": Monotone.INCREASING, "emp_risk": Monotone.INCREASING}
        assert thm.quantity == "true risk R(Q)"


def test_maxinfo_kl_bounds_share_the_g2_budget() -> None:
    assert P.G2.terms["rhs"].mp is PK.maxinfo_budget_mp and P.G3.terms["rhs"].mp is PK.maxinfo_budget_mp
    assert P.G2.terms["rhs"].np is PK.maxinfo_budget_np and P.G3.terms["rhs"].np is PK.maxinfo_budget_np
    assert P.G1.params == P.G3.params == ("emp_risk", "n", "delta", "beta", "k")
    for thm in (P.G1, P.G2, P.G3):
        assert thm.conditions == (P.C_EMP, P.C_DELTA, P.C_BETA_DELTA)
        assert thm.assumptions == (
            "loss in [0, 1]", "S ~ D^n i.i.d.",
            "the prior (or the model) is the output A(S) of an algorithm with I^beta_inf(S; A(S)) <= k nats, "
            "e.g. maxinfo.thmA_derived / maxinfo.thmB_derived for DP-SGD, dwork15.thm20 for pure DP",
            "holds with probability >= 1 - delta over S (and A's randomness)")


def test_dwork15_cor21_and_cor22_share_their_settings() -> None:
    setting = ("A outputs a c-sensitive f: X^n -> R", "S ~ P^n")
    assert M.COR21_ROUTE.assumptions == (*setting, "I^beta_inf(S; f) <= k nats")
    assert M.COR21.assumptions == (*setting, "I^beta_inf(S; f) <= tau^2/(c^2 n) nats (e.g. A is tau^2/(c^2 n^2)-DP)")
    assert M.COR21_ROUTE.conditions == M.COR21.conditions == (M.C_BETA_LT1,)
    for thm in (M.COR22_ROUTE, M.COR22):
        assert thm.params == ("tau", "c", "n")
        assert thm.assumptions == ("A is tau/(cn)-DP and outputs a c-sensitive f", "S ~ P^n")
        assert thm.quantity == "P[f(S) - P^n[f] >= tau]"
