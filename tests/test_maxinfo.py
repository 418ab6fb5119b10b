"""Max-information theorems and the steps of our DP-SGD derivations, each against an independent computation.

Independent computations used here:
* sympy statements in exact arithmetic (Dwork et al. Thm 19/20, Cor 21/22, Theorem A, Lemma M);
* the team survey's values (tests/data/maxinfo_known_values.csv; computed with the survey's own scripts,
  provenance in docs/derivations/maxinfo_route.md, section 4.5);
* a dense grid over lambda for Theorem B's minimisation (the kernel uses grid + golden section);
* exact moment generating functions of binomial / enumerated vector sums (Lemma M), the exact MGF of
  Lemma G's Lambda on the toy (Theorem A and B's tower steps), pointwise i <= Lambda (Lemma G);
* the DP-SGD-stream simulator vs the toy's direct sampler (same law of the information density).
Tolerances are relative and stated at each assertion.
"""

from __future__ import annotations

import csv
import itertools
import json
import math
from pathlib import Path

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import dptheory.papers.lz26.theorems as L
import dptheory.papers.maxinfo.theorems as M
from dptheory.core.errors import ConditionViolated, DPTheoryError, RegimeNotSupported
from dptheory.core.units import Unit
from dptheory.papers.maxinfo import kernels as mx
from dptheory.papers.maxinfo.audit import GaussianToy
from dptheory.train.dpsgd_stream import Momentum, clip_per_example, dpsgd_stream, fixed_batches

DATA = Path(__file__).parent / "data" / "maxinfo_known_values.csv"


def _rows(prefix: str) -> list[dict]:
    with DATA.open() as fh:
        return [r for r in csv.DictReader(fh) if r["key"].startswith(prefix)]


def _statement(thm, params, dps=50):
    exact = thm.parse(params)
    subs = {thm.notation.sym(k): v for k, v in exact.items()}
    return mpmath.mpf(str(sp.N(thm.bound.xreplace(subs), dps)))


# ----------------------------------------------------------------------------- known values
def test_note_values_theorems_A_B():
    rows = _rows("maxinfo.thm")
    assert len(rows) >= 10
    for r in rows:
        p = json.loads(r["params"])
        ref = float(r["value"])
        tol = 0.5 * 10.0 ** (len(r["value"].split(".")[1]) * -1 if "." in r["value"] else 0)  # half the last digit
        if r["key"].endswith(":n_u"):
            rr = float(p["zeta"]) ** 2 / float(p["sigma"]) ** 2
            fn = mx.thm_a_np if "thmA" in r["key"] else mx.thm_b_np
            got = float(fn(p["n_u"], p["m"], p["E"], rr, float(p["beta"])))
        else:
            got = float(M.THM_A.value(p) if "thmA" in r["key"] else M.THM_B.value(p))
        assert abs(got - ref) <= tol + 1e-12 * ref, (r["key"], p, got, ref)


def test_dwork_thm20_exact_and_bits():
    (nats,) = [r for r in _rows("dwork15.thm20") if r["key"] == "dwork15.thm20"]
    (bits,) = _rows("dwork15.thm20:bits")
    p = json.loads(nats["params"])
    v = M.THM20.evaluate(p, dps=40)
    with mpmath.workdps(40):
        assert abs(v.value - mpmath.mpf(nats["value"])) <= mpmath.mpf(10) ** -33 * v.value
        assert abs(v.in_unit(Unit.BITS) - mpmath.mpf(bits["value"])) <= mpmath.mpf(10) ** -33 * v.in_unit(Unit.BITS)
    assert v.unit is Unit.NATS and str(v.direction) == "upper"


@pytest.mark.parametrize("key, params", [
    ("dwork15.thm19", {"eps": "0.3", "n": 50}),
    ("dwork15.thm20", {"eps": "0.01", "n": 100000, "beta": "1e-6"}),
    ("dwork15.thm13", {"k": 3, "beta": "0.01", "p_prod": "1e-4"}),
    ("dwork15.cor21", {"tau": 5, "c": "0.1", "n": 1000, "beta": "0.05"}),
    ("dwork15.cor21_route", {"k": 2, "tau": 5, "c": "0.1", "n": 1000, "beta": "0.05"}),
    ("dwork15.cor22", {"tau": 30, "c": 1, "n": 10}),
    ("dwork15.cor22_route", {"tau": 3, "c": 1, "n": 1}),
    ("maxinfo.thmA_derived", {"n": 1001, "m": 10, "E": 3, "zeta": "0.5", "sigma": 7, "beta": "1e-3"}),
    ("maxinfo.lemmaM_derived", {"mu": "0.01", "zeta": 1, "m": 20, "v_sum": 7}),
    ("lz26.thm1", {"n": 1000, "E": 3, "zeta": 1, "sigma": 10, "beta": "0.01", "C": 2}),
    ("lz26.gaussian_calibration", {"Delta": 1, "sigma": 10, "delta": "1e-5"}),
    ("rogers16.approx_dp_maxinfo", {"eps": "0.1", "delta": "1e-8", "n": 1000, "C": 3, "C_beta": 1}),
])
def test_kernels_match_sympy_statement(key, params):
    from dptheory.core.registry import REGISTRY

    thm = REGISTRY.get(key)
    with mpmath.workdps(60):
        ref = _statement(thm, params, 55)
        got = thm.evaluate(params, dps=50).value
        assert abs(got - ref) <= abs(ref) * mpmath.mpf(10) ** -45
    np_val = float(thm.evaluate_np({k: float(sp.Rational(str(v))) for k, v in params.items()}))
    assert abs(np_val - float(ref)) <= 1e-12 * abs(float(ref))


def test_cor22_crossing_constant():
    """x* = 7.8019...: the route exp(-(3/2 - 1/sqrt 2) x) + 2 exp(-x) meets exp(-3x/4).

    Below x* the stated bound does not follow from the route; above it it does (single crossing).
    """
    (row,) = _rows("dwork15.cor22:x_star")
    xs = float(row["value"])
    route = M.COR22_ROUTE
    for x, holds in ((xs * 0.99, False), (xs * 1.01, True), (float(M.X22_STAR), True), (50.0, True)):
        p = {"tau": repr(math.sqrt(x)), "c": 1, "n": 1}
        r = float(route.value(p))
        b = math.exp(-0.75 * x)
        assert (r <= b) is holds, (x, r, b)
    assert float(M.X22_STAR) >= xs  # the encoded condition is on the safe side
    with pytest.raises(ConditionViolated, match="tau\\^2/\\(c\\^2 n\\)"):
        M.COR22.evaluate({"tau": 2, "c": 1, "n": 1})


# ----------------------------------------------------------------------------- Theorem B
@settings(max_examples=40, deadline=None, derandomize=True)
@given(n=st.integers(1, 10**6), m=st.integers(1, 500), E=st.integers(1, 50), lr=st.floats(-6, 2),
       lb=st.floats(-9, -0.01))
def test_thm_b_is_the_minimum_over_lambda(n, m, E, lr, lb):
    m = min(m, n)
    n_u = m * (n // m)
    r, beta = 10.0**lr, 10.0**lb
    val, lam = mx.thm_b_np(n_u, m, E, r, beta, return_lambda=True)
    assert math.isfinite(float(val))
    # the value is K_B at the returned lambda (so it is a valid bound) ...
    assert abs(float(mx.k_b_np(lam, n_u, m, E, r, beta)) - float(val)) <= 1e-12 * float(val)
    # ... and no point of a dense grid is lower (relative 1e-9)
    lam_max = float(mx._lam_max_np(m, E, r))
    hi = math.log(lam_max) - 1e-9 if math.isfinite(lam_max) else 12.0
    grid = np.exp(np.linspace(-30.0, hi, 40001))
    assert np.min(mx.k_b_np(grid, n_u, m, E, r, beta)) >= float(val) * (1 - 1e-9)


@pytest.mark.parametrize("p", [
    {"n": 200, "m": 10, "E": 1, "zeta": 1, "sigma": 4, "beta": "0.05"},
    {"n": 50000, "m": 256, "E": 10, "zeta": "0.1", "sigma": 3, "beta": "1e-9"},
    {"n": 7, "m": 7, "E": 2, "zeta": 2, "sigma": "0.5", "beta": "0.3"},
])
def test_thm_b_mp_agrees_with_float64(p):
    mpv = M.THM_B.evaluate(p, dps=40).value
    npv = float(M.THM_B.evaluate_np({k: float(sp.Rational(str(v))) for k, v in p.items()}))
    assert abs(npv - float(mpv)) <= 1e-10 * float(mpv)


# ----------------------------------------------------------------------------- Lemma M
def _lemma_m(mu, zeta, m, v_sum):
    """Lemma M's bound; arguments are passed exactly (sympy Rationals or decimal strings)."""
    return float(M.LEMMA_M.value({"mu": mu, "zeta": zeta, "m": m, "v_sum": v_sum}))


@pytest.mark.parametrize("m", [1, 2, 5, 20, 60, 200])
@pytest.mark.parametrize("frac", [0.01, 0.3, 0.9])
def test_lemma_m_vs_exact_binomial_mgf(m, frac):
    """Rademacher (+-zeta) and asymmetric Bernoulli summands: exact ln E exp(mu ||C||^2) <= Lemma M."""
    zeta = sp.Rational(13, 10)
    mu = sp.Rational(str(frac)) / (4 * zeta**2 * max(m - 1, 1))
    with mpmath.workdps(40):
        for p in (sp.Rational(1, 2), sp.Rational(1, 10)):
            # g in {-zeta, +zeta} with P(+zeta) = p; c = g - E g; exact binomial sum
            mean = zeta * (2 * p - 1)
            pp, zz, mm, muf = (mpmath.mpf(x.p) / x.q for x in (p, zeta, mean, mu))
            terms = [mpmath.binomial(m, k) * pp**k * (1 - pp) ** (m - k)
                     * mpmath.exp(muf * (zz * (2 * k - m) - m * mm) ** 2) for k in range(m + 1)]
            exact = mpmath.log(mpmath.fsum(terms))
            v_sum = m * (zeta**2 - mean**2)
            bound = _lemma_m(mu, zeta, m, v_sum)
            assert float(exact) <= bound * (1 + 1e-12), (m, frac, p, float(exact), bound)
            if frac == 0.01 and m <= 20:
                assert bound <= 1.2 * float(exact)  # tight as mu -> 0 (~ mu sum v_k)


def test_lemma_m_vs_enumerated_vector_sums():
    """2-d summands uniform on 3 fixed vectors of norm <= zeta; exact enumeration of all 3^m outcomes."""
    vecs = np.array([[1.0, 0.0], [-0.5, 0.8], [0.1, -0.6]])
    mean = vecs.mean(axis=0)
    c = vecs - mean
    v = float(np.mean(np.sum(c**2, axis=1)))
    for m in (1, 2, 4, 6):
        mu = sp.Rational(1, 8 * max(m - 1, 1))
        sums = np.array([c[list(idx)].sum(axis=0) for idx in itertools.product(range(3), repeat=m)])
        exact = float(np.log(np.mean(np.exp(float(mu) * np.sum(sums**2, axis=1)))))
        assert exact <= _lemma_m(mu, 1, m, sp.Rational(repr(m * v))) * (1 + 1e-12)


def test_lemma_m_condition_is_enforced():
    with pytest.raises(ConditionViolated, match=r"4\*mu\*zeta\*\*2\*\(m - 1\) < 1"):
        M.LEMMA_M.evaluate({"mu": 1, "zeta": 1, "m": 3, "v_sum": 1})
    with pytest.raises(ConditionViolated, match="zeta\\^2"):
        M.LEMMA_M.evaluate({"mu": "0.01", "zeta": 1, "m": 3, "v_sum": 4})


# ----------------------------------------------------------------------------- Lemma G and the proof steps on the toy
TOYS = [(200, 10, 1, 4.0, 0.05), (200, 10, 4, 4.0, 0.05), (100, 5, 2, 2.0, 0.1)]


@pytest.mark.parametrize("cfg", TOYS)
def test_lemma_g_pointwise(cfg):
    n, m, E, s, _ = cfg
    out = GaussianToy(n, m, E, s).joint(np.random.default_rng(7), 50_000)
    gap = out["Lambda"] - out["i"]
    assert np.all(gap >= -1e-9 * (1 + np.abs(out["Lambda"])))  # Jensen: i <= Lambda at every sample


@pytest.mark.parametrize("cfg", TOYS)
def test_mgf_steps_of_theorems_a_and_b(cfg):
    """Exact ln E exp(lam Lambda) on the toy <= the bounds used in the proofs (Thm A: 2ETm^2 r (lam + lam^2);
    Thm B: lam n_u E r/2 + n_u (exp(8 abar) - 1)/8)."""
    n, m, E, s, _ = cfg
    toy = GaussianToy(n, m, E, s)
    r = toy.r
    lam_max = float(mx._lam_max_np(m, E, r))
    for lam in np.geomspace(1e-3, 0.95 * lam_max, 12):
        exact = toy.log_mgf_lambda(float(lam))
        a_bound = 2 * E * toy.T * m**2 * r * (lam + lam**2)
        a = E * r * (lam**2 + lam) / 2
        abar = a / (1 - 4 * a * (m - 1))
        b_bound = lam * n * E * r / 2 + n * math.expm1(8 * abar) / 8
        assert exact <= a_bound * (1 + 1e-12)
        assert exact <= b_bound * (1 + 1e-12)


@pytest.mark.parametrize("cfg", TOYS)
def test_chernoff_step(cfg):
    """P[Lambda >= K_B(lambda*)] <= beta: Clopper-Pearson lower bound (99.9 %) of the frequency must not exceed beta."""
    from dptheory.numerics.binomial import clopper_pearson_lower

    n, m, E, s, beta = cfg
    toy = GaussianToy(n, m, E, s)
    kb = float(mx.thm_b_np(n, m, E, toy.r, beta))
    lam_hits = toy.joint(np.random.default_rng(3), 100_000)["Lambda"] >= kb
    assert clopper_pearson_lower(int(lam_hits.sum()), len(lam_hits), 1e-3) <= beta


def test_simulator_and_toy_sampler_agree():
    """The toy's sampler and DP-SGD-stream (theta-independent gradient = x, fixed batches) give the same law of i."""
    n, m, E, sigma = 20, 5, 2, 2.0
    toy = GaussianToy(n, m, E, sigma)
    rng = np.random.default_rng(11)
    R = 20000
    X = rng.choice([-1.0, 1.0], size=(R, n, 1))
    res = dpsgd_stream(X, None, lambda th, Xb, yb: Xb, m=m, E=E, zeta=1.0, sigma=sigma, eta=0.0, rng=rng, runs=R,
                       d=1, create_batches=fixed_batches, record_updates=True)
    u = res.updates[:, :, 0].reshape(R, E, toy.T).mean(axis=1)  # ubar_b
    s = X[:, :, 0].reshape(R, toy.T, m).sum(axis=2)
    i_sim = toy.density(s, u)
    i_toy = toy.joint(np.random.default_rng(12), R)["i"]
    se = math.sqrt(i_sim.var() / R + i_toy.var() / R)
    assert abs(i_sim.mean() - i_toy.mean()) <= 5 * se  # 5 standard errors (failure probability < 1e-6)


# ----------------------------------------------------------------------------- DP-SGD-stream
def test_dpsgd_stream_clips_and_adds_the_stated_noise():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3)) * 5
    res = dpsgd_stream(X, None, lambda th, Xb, yb: Xb, m=6, E=3, zeta=0.7, sigma=2.0, eta=0.1, rng=rng, runs=400,
                       d=3, record_updates=True)
    # reconstruct the clipped sums from the recorded batches: the residual is sigma * N(0, I)
    clipped = clip_per_example(X, 0.7)
    sums = clipped[res.batches].sum(axis=3).reshape(400, -1, 3)
    z = (res.updates - sums) / 2.0
    assert abs(z.mean()) < 5 / math.sqrt(z.size) and abs(z.var() - 1) < 5 * math.sqrt(2 / z.size)
    assert np.all(np.linalg.norm(clipped, axis=1) <= 0.7 * (1 + 1e-12))
    # disjoint batches of size m in every epoch, a fresh shuffle per epoch
    flat = res.batches.reshape(400, 3, -1)
    assert all(len(set(row)) == row.size for row in flat.reshape(-1, flat.shape[-1]))
    assert not np.array_equal(res.batches[:, 0], res.batches[:, 1])


def test_dpsgd_stream_sgd_and_momentum_match_a_manual_loop():
    X = np.arange(24, dtype=float).reshape(12, 2) / 10
    for upd in (None, Momentum(0.5, weight_decay=0.1)):
        res = dpsgd_stream(X, None, lambda th, Xb, yb: th[:, None, :] - Xb, m=3, E=2, zeta=10.0, sigma=0.0,
                           eta=0.2, rng=np.random.default_rng(0), theta0=np.ones(2), create_batches=fixed_batches,
                           update=upd)
        th, v = np.ones(2), np.zeros(2)
        for _ in range(2):
            for t in range(4):
                u = (th - X[3 * t:3 * t + 3]).sum(axis=0)  # norms stay below zeta = 10: no clipping
                if upd is None:
                    th = th - 0.2 * u
                else:
                    v = 0.5 * v + u + 0.1 * th
                    th = th - 0.2 * v
        np.testing.assert_allclose(res.theta[0], th, rtol=1e-13)


def test_dpsgd_stream_bad_input():
    X = np.zeros((10, 2))
    with pytest.raises(DPTheoryError, match="m <= n"):
        dpsgd_stream(X, None, lambda t, a, b: a, m=11, E=1, zeta=1, sigma=1, eta=1, rng=np.random.default_rng(0), d=2)
    with pytest.raises(DPTheoryError, match=r"numpy\.random\.Generator"):
        dpsgd_stream(X, None, lambda t, a, b: a, m=2, E=1, zeta=1, sigma=1, eta=1, rng=0, d=2)
    with pytest.raises(DPTheoryError, match="disjoint"):
        dpsgd_stream(X, None, lambda t, a, b: a, m=2, E=1, zeta=1, sigma=1, eta=1, rng=np.random.default_rng(0), d=2,
                     create_batches=lambda rng, R, n, m, T, e: np.zeros((R, T, m), dtype=int))


# ----------------------------------------------------------------------------- conditions, directions, refusal
def test_conditions_name_theorem_and_values():
    with pytest.raises(ConditionViolated) as exc:
        M.THM_A.evaluate({"n": 5, "m": 10, "E": 1, "zeta": 1, "sigma": 1, "beta": "0.1"})
    assert "maxinfo.thmA_derived" in str(exc.value) and "m <= n" in str(exc.value) and "m = 10" in str(exc.value)
    with pytest.raises(ConditionViolated, match="beta < 1"):
        M.THM20.evaluate({"eps": 1, "n": 10, "beta": 2})
    with pytest.raises(ConditionViolated, match="eps <= 1/2"):
        M.ROGERS.evaluate({"eps": 1, "delta": "0.1", "n": 10, "C": 1, "C_beta": 1})


def test_asymptotic_bounds_refused_where_a_guarantee_is_needed():
    assert str(L.THM1.direction) == "asymptotic" and str(M.ROGERS.direction) == "asymptotic"
    with pytest.raises(RegimeNotSupported, match="asymptotic"):
        M.maxinfo_guarantee("lz26.thm1", {"n": 10, "E": 1, "zeta": 1, "sigma": 1, "beta": "0.1", "C": 1})
    with pytest.raises(RegimeNotSupported):
        M.maxinfo_guarantee("rogers16.approx_dp_maxinfo", {"eps": "0.1", "delta": "1e-5", "n": 10, "C": 1,
                                                           "C_beta": 1})
    v = M.maxinfo_guarantee("maxinfo.thmA_derived", {"n": 10, "m": 1, "E": 1, "zeta": 1, "sigma": 1, "beta": "0.1"})
    assert str(v.direction) == "upper"
    with pytest.raises(RegimeNotSupported, match="eps <= 1/2"):
        M.ROUTE.evaluate({"n": 100, "E": 1, "zeta": 1, "sigma": 1, "beta": "0.1", "C": 1, "C_beta": 1})


# ----------------------------------------------------------------------------- CLI
def _parser():
    from dptheory.cli import build_parser

    return build_parser()


def test_cli_maxinfo_json_and_plot(tmp_path, capsys):
    p = _parser()
    out = tmp_path / "mi.png"
    args = p.parse_args(["maxinfo", "bounds", "n=200", "m=10", "E=1", "sigma=4", "beta=0.05",
                         "--json",
                         "--plot", str(out), "--vs", "E", "--range", "1,2,4"])
    assert args.func(args) == 0
    d = json.loads(capsys.readouterr().out)
    vals = {b["key"]: b for b in d["bounds"]}
    assert abs(vals["maxinfo.thmA_derived"]["value_nats"] - 304.7332830511197) <= 1e-9 * 304.7
    assert vals["lz26.thm1"]["direction"] == "asymptotic"
    assert out.exists() and out.stat().st_size > 1000
    args = p.parse_args(["maxinfo", "bounds", "n=200", "m=10", "E=2", "sigma=4", "--unit", "bits",
                         "--bound", "thmA,thmB", "--json"])
    assert args.func(args) == 0
    d = json.loads(capsys.readouterr().out)
    assert [b["key"] for b in d["bounds"]] == ["maxinfo.thmA_derived"]  # Thm B refused for E >= 2
    assert abs(d["bounds"][0]["value"] - d["bounds"][0]["value_nats"] / math.log(2)) <= 1e-12 * d["bounds"][0]["value"]


def test_cli_audit_maxinfo(tmp_path, capsys):
    p = _parser()
    out = tmp_path / "audit.png"
    args = p.parse_args(["maxinfo", "audit", "n=40", "m=4", "E=2", "sigma=1,2", "--N", "20000",
                         "--N-pilot", "5000", "--json", "--plot", str(out)])
    assert args.func(args) == 0
    d = json.loads(capsys.readouterr().out)
    assert len(d["audits"]) == 2 and all(a["consistent"] for a in d["audits"]) and out.exists()
