"""Sanity suite for the max-information / PAC-Bayes families: claims, contracts, conditions.

* falsified iff a counterexample is pinned, exactly the expected ones (each claim's verdict on record is the
  plugin's verdict item, checks/test_plugin_items.py; each pin is re-verified in checks/test_claims.py);
* contract of every theorem of the family (the registry-wide contract suite may not know them yet):
  float64 and mpmath kernels agree to 1e-10 relative on hypothesis-drawn valid points (1e-14 absolute
  more for the kl-inverse risk bounds, whose float64 path returns the safe end of a 1e-14 bracket), and
  a violated condition raises ConditionViolated naming the theorem.
"""

from __future__ import annotations

import math

import mpmath
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dptheory.papers.lz26.theorems as L
import dptheory.papers.maxinfo.theorems as M
import dptheory.papers.pacbayes.claims as pac_bayes_claims  # noqa: F401
import dptheory.papers.pacbayes.theorems as P
from dptheory.core.errors import ConditionViolated, DPTheoryError
from dptheory.core.registry import REGISTRY
from dptheory.testing.profiles import claim_examples
from dptheory.testing.strategies import theorem_strategy
from dptheory.verify.checking import Verdict, check_claim
from dptheory.verify.sides import side_mp

PREFIXES = ("dwork15.", "rogers16.", "maxinfo.", "lz26.", "maurer04.", "mcallester99", "dr18.", "pacbayes.")
CLAIMS = [c for c in REGISTRY.claims() if c.key.startswith(PREFIXES)]
THEOREMS = [t for t in REGISTRY.theorems() if t.key.startswith(PREFIXES)]
EXPECTED_FALSIFIED = {"dwork15.C21_as_extracted", "maxinfo.C1", "maxinfo.route_superlinear", "pacbayes.C1"}


def test_retired_keys_are_documented_and_not_reused():
    from dptheory.core.claims import RETIRED_CLAIMS

    keys = {c.key for c in REGISTRY.claims()}
    assert {"lz26.C1a", "lz26.C1b", "lz26.C2", "lz26.C2b"} <= set(RETIRED_CLAIMS)
    assert not keys & set(RETIRED_CLAIMS)
    assert all(REGISTRY.get(k).ours for k in ("maxinfo.thmB_at_most_linear", "maxinfo.route_superlinear"))
    assert not REGISTRY.get("lz26.C3").ours


def test_family_is_registered():
    keys = {c.key for c in CLAIMS}
    assert EXPECTED_FALSIFIED <= keys
    assert {"maxinfo.thmB_at_most_linear", "maxinfo.route_superlinear_regime", "pacbayes.C1", "dr18.C1"} <= keys
    assert len(THEOREMS) >= 25


def test_the_falsified_claims_are_the_expected_ones():
    """Falsified iff a counterexample is pinned, and exactly the expected ones (each claim's verdict on record is
    the plugin's verdict item, checks/test_plugin_items.py)."""
    assert {c.key for c in CLAIMS if c.counterexamples} == EXPECTED_FALSIFIED
    assert all((c.verdict is Verdict.FALSIFIED) == bool(c.counterexamples) for c in CLAIMS)


def _close(thm, a: float, b: float) -> bool:
    if not (math.isfinite(a) and math.isfinite(b)):
        return a == b
    slack = 2e-14 if "kl^-1" in thm.quantity or "kl^-1" in thm.title or thm.key.endswith("kl_inv_upper") else 0.0
    return abs(a - b) <= 1e-10 * max(abs(a), abs(b)) + slack


@pytest.mark.parametrize("thm", [t for t in THEOREMS if t.kernels().np is not None], ids=lambda t: t.key)
def test_float64_agrees_with_mpmath_on_valid_points(thm):
    @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck), database=None,
              derandomize=True)
    @given(theorem_strategy(thm))
    def run(point):
        # compare at the float64 point itself (exact binary values for mpmath), so that the conditioning of
        # the inputs (e.g. delta - beta when beta is close to delta) is not charged to the kernel
        fpt = {k: float(v) for k, v in point.items()}
        exact = {k: (int(v) if thm.notation[k].domain.is_integer else mpmath.mpf(v)) for k, v in fpt.items()}
        try:
            if any(r.status.value == "violated" for r in thm.check(exact)):
                return  # rounding to float64 left the region
            mpv = float(thm.evaluate(exact, dps=30).value)
            npv = float(thm.evaluate_np(fpt))
        except DPTheoryError:  # RegimeNotSupported of the (eps, delta) route outside eps <= 1/2 (either path)
            return
        assert _close(thm, npv, mpv), (thm.key, point, npv, mpv)

    run()


@pytest.mark.parametrize("key, point, needle", [
    ("maxinfo.thmA_derived", {"n": 3, "m": 4, "E": 1, "zeta": 1, "sigma": 1, "beta": "0.1"}, "m <= n"),
    ("maxinfo.thmB_derived", {"n": 30, "m": 4, "E": 1, "zeta": 1, "sigma": 1, "beta": "1.5"}, "beta < 1"),
    ("dwork15.thm20", {"eps": 1, "n": 3, "beta": 1}, "beta < 1"),
    ("dwork15.thm13", {"k": 1, "beta": "0.1", "p_prod": 2}, "p_prod <= 1"),
    ("pacbayes.g3_single_model_derived", {"emp_risk": "0.1", "n": 9, "delta": "0.1", "beta": "0.2", "k": 1},
     "beta < delta"),
    ("lz26.gaussian_calibration", {"Delta": 1, "sigma": "0.5", "delta": "0.01"}, "in (0, 1)"),
    ("rogers16.approx_dp_maxinfo", {"eps": "0.1", "delta": "0.2", "n": 9, "C": 1, "C_beta": 1}, "delta < eps"),
])
def test_violated_condition_names_theorem(key, point, needle):
    with pytest.raises(ConditionViolated) as exc:
        REGISTRY.get(key).evaluate(point)
    msg = str(exc.value)
    assert key in msg and needle in (msg + exc.value.gloss)


def test_directions_and_units():
    assert all(str(t.direction) == "asymptotic" for t in (L.THM1, L.THM2, L.THM2_SINGLE, M.ROGERS, M.ROUTE))
    assert all(str(t.direction) == "upper" for t in (M.THM_A, M.THM_B, M.THM19, M.THM20, P.G2, P.G3, P.DR18_THM))
    assert str(M.THM_A.unit) == "nats" and str(P.G2.unit) == "dimensionless"
    assert all(k.key.endswith("_derived") for k in (M.THM_A, M.THM_B, M.LEMMA_M, P.G1, P.G2, P.G3, P.DR18_MI))


def test_claim_strategy_reaches_route_regime():
    """The (eps, delta)-route claims are decided on evaluable points (not all skipped)."""
    res = check_claim(REGISTRY.get("maxinfo.route_superlinear_regime"), examples=40, seed=1)
    assert res.verdict is Verdict.NOT_FALSIFIED and res.examples_tried >= 20


@given(st.just(None))
def test_hypothesis_profile_loaded(_):
    assert claim_examples() > 0


@pytest.mark.parametrize("pt", [("1", "5", "1/1000"), ("1/3", "2", "1/10"), ("7", "30", "1/1000000"),
                                ("1", "50", "1/2")])
def test_lz26_c3_formula_agrees_with_the_kernel(pt):
    """lz26.C3's certified side (a sympy formula of Balle & Wang's Thm 8) against the max-information kernel
    (dptheory.papers.maxinfo.kernels.gdp_delta_mp): two derivations of the exact delta, 1e-25 relative."""
    import sympy as sp

    from dptheory.papers.lz26.claims import EXACT_DELTA_FORMULA, exact_delta_mp

    e = {"Delta": sp.Rational(pt[0]), "sigma": sp.Rational(pt[1]), "delta": sp.Rational(pt[2])}
    a, b = side_mp(EXACT_DELTA_FORMULA, e, 40), exact_delta_mp(e, 40)
    assert abs(a - b) <= 1e-25 * abs(b) and b > 0
