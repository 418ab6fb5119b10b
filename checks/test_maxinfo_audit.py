"""Trained-model / Monte-Carlo checks of the max-information bounds.

Statistical statements and their failure probabilities:
* a certified lower bound holds with probability >= 1 - alpha over the Monte-Carlo draws (union bound
  over its two confidence bounds); the check "every applicable upper bound >= certified lower bound"
  can therefore fail by bad luck with probability <= alpha per configuration even if everything is
  right. alpha = 1e-3 per configuration here; the draws are seeded, so the outcome is reproducible.
* the survey's reference values (docs/derivations/maxinfo_route.md, section 4.5) are Monte-Carlo results
  too; they are compared within 0.1 nats (the spread over seeds is about 0.02 nats at N = 2e5).
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dptheory.papers.lz26.theorems as L
from dptheory.papers.maxinfo.audit import GaussianToy, LaplaceCountToy, audit_toy, certified_lower_bound, plugin_d_beta

DATA = Path(__file__).parents[1] / "tests" / "data" / "maxinfo_known_values.csv"
NOTE_TOYS = [(200, 10, 1, 4.0, 0.05), (200, 10, 4, 4.0, 0.05), (100, 5, 2, 2.0, 0.1)]


def _note(kind: str, cfg) -> float:
    n, m, E, s, b = cfg
    with DATA.open() as fh:
        for r in csv.DictReader(fh):
            p = json.loads(r["params"])
            if r["key"] == f"audit.maxinfo:{kind}" and (p["n"], p["m"], p["E"], float(p["sigma"]), float(p["beta"])) \
                    == (n, m, E, s, b):
                return float(r["value"])
    raise KeyError(kind)


@pytest.mark.parametrize("cfg", NOTE_TOYS)
def test_note_toys_full_size(cfg):
    """N = 2e5 joint samples (the survey's setting); every proven upper bound >= the certified lower bound."""
    n, m, E, s, beta = cfg
    a = audit_toy(GaussianToy(n, m, E, s), beta, rng=np.random.default_rng(20260), N=200_000, alpha=0.01)
    lb = a.lower
    assert lb.certified and a.consistent
    assert abs(lb.value - _note("certified_lb", cfg)) <= 0.1
    assert abs(lb.plugin - _note("plugin", cfg)) <= 0.1
    assert abs(lb.mi_estimate - _note("mi", cfg)) <= 0.1
    assert lb.value <= lb.plugin  # a certified bound sits below its plug-in estimate
    assert a.lemma_g_violations == 0
    for key, ub in a.upper.items():
        assert ub >= lb.value, key
        assert a.ratios[key] >= 1
    # L&Z Thm 1's hidden constant must be at least this on the toy (the toy meets Algorithm 1's assumptions)
    assert a.lz26_constant_lower is not None and 0 < a.lz26_constant_lower < 1
    c = a.lz26_constant_lower
    val = float(L.THM1.value({"n": n, "E": E, "zeta": 1, "sigma": repr(s), "beta": repr(beta), "C": repr(c)}))
    assert math.isclose(val, lb.value, rel_tol=1e-12)


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), database=None,
              derandomize=True)
@given(T=st.integers(1, 8), m=st.integers(1, 12), E=st.integers(1, 5), sigma=st.floats(0.5, 10.0),
       beta=st.floats(0.01, 0.3), seed=st.integers(0, 2**31))
def test_upper_bounds_dominate_certified_lower_bound(T, m, E, sigma, beta, seed):
    toy = GaussianToy(T * m, m, E, sigma)
    a = audit_toy(toy, beta, rng=np.random.default_rng(seed), N=20_000, N_pilot=5_000, alpha=1e-3)
    assert a.consistent, a.to_dict()
    assert a.lemma_g_violations == 0


@pytest.mark.parametrize("n, eps", [(50, 0.5), (100, 0.2), (20, 2.0)])
def test_dwork_bounds_dominate_on_a_pure_dp_toy(n, eps):
    a = audit_toy(LaplaceCountToy(n, eps), 0.05, rng=np.random.default_rng(n), N=50_000, N_pilot=10_000, alpha=1e-3)
    assert a.consistent and set(a.upper) == {"dwork15.thm19", "dwork15.thm20"}
    if a.lower.value is not None:
        assert a.upper["dwork15.thm20"] >= a.lower.value


def test_kl_method_is_at_least_as_tight_as_hoeffding():
    toy = GaussianToy(200, 10, 1, 4.0)
    h = certified_lower_bound(toy, 0.05, rng=np.random.default_rng(1), N=100_000, method="hoeffding")
    k = certified_lower_bound(toy, 0.05, rng=np.random.default_rng(1), N=100_000, method="kl")
    assert k.tau == h.tau and k.q_ucb <= h.q_ucb and k.value >= h.value


def test_plugin_matches_exact_level_set_computation():
    rng = np.random.default_rng(0)
    i = rng.normal(1.0, 1.0, 5000)
    val, tau = plugin_d_beta(i, 0.1)
    P = np.mean(i > tau)
    Q = np.mean(np.exp(-i) * (i > tau))
    assert math.isclose(val, math.log((P - 0.1) / Q), rel_tol=1e-12)


def test_generalization_sweep_bounds_hold_on_the_test_split():
    """DP-SGD logistic regression on digits: every single-model and PAC-Bayes bound is above the held-out
    error (a 397-example test split: a bound can sit below it by sampling error with small probability)."""
    pytest.importorskip("sklearn")
    from dptheory.papers.maxinfo.generalization import run_sweep

    res = run_sweep([3.0, 10.0], [1, 2], rng=np.random.default_rng(2026))
    for row in res.rows:
        assert all(b >= t - 0.05 for b, t in zip(row.single_model_bound, row.test_error, strict=True))
        assert all(b >= t - 0.05 for b, t in zip(row.pacbayes_bound, row.gibbs_test_error, strict=True))
    assert any(r.summary()["single_model_informative"] for r in res.rows if r.E == 1)
