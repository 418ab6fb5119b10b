"""Shi et al. (shi26): Lemma 39, the privacy accountings, Conditions 1-2, feasibility, experiment and CLI.

Independent computations: direct numerical minimisation over the Renyi order (scipy, and mpmath
root finding at 50 digits) for Lemma 39's closed form; the sympy statements in exact arithmetic;
quadrature of the hockey-stick divergence for the exact Gaussian accounting; the trained model's own
gradients for the worst-case sensitivity; a sympy simplification for Theorem 3's scaling.
"""

from __future__ import annotations

import json
import math

import mpmath
import numpy as np
import pytest
import scipy.optimize
import sympy as sp

import dptheory
from dptheory.core.errors import ConditionViolated
from dptheory.papers.shi26 import claims as shi_2026_claims  # noqa: F401
from dptheory.papers.shi26 import cnn as M
from dptheory.papers.shi26 import feasibility as F
from dptheory.papers.shi26 import privacy as P
from dptheory.papers.shi26 import theorems as S
from dptheory.privacy import gaussian_dp as G

POINTS = [
    {"T": 1000, "mu_norm": 1, "sigma_p": "0.5", "d": 2000, "sigma_b": "0.01", "n": 1000, "m": 100, "delta": "1e-5"},
    {"T": 7, "mu_norm": "0.3", "sigma_p": "0.01", "d": 50, "sigma_b": 3, "n": 2000, "m": 4, "delta": "0.2"},
    {"T": 1, "mu_norm": 2, "sigma_p": "1e-3", "d": 10, "sigma_b": 50, "n": 10**6, "m": 1000, "delta": "1e-12"},
]


@pytest.mark.parametrize("i", range(len(POINTS)))
def test_lemma39_closed_form_vs_direct_minimisation(i):
    p = POINTS[i]
    t = dptheory.get("shi26.lemma39")
    at = dptheory.get("shi26.lemma39_at_order")
    v = t.evaluate(p, dps=50).value
    with mpmath.workdps(60):
        f = {k: mpmath.mpf(str(x)) for k, x in p.items()}
        A = P.lemma39_A(f["T"], f["mu_norm"], f["sigma_p"], f["d"], f["sigma_b"], f["n"], f["m"])
        L = mpmath.log(2 / f["delta"])
        # stationary point of g(lam) = lam A + L/(lam-1) found by root finding (not the closed form)
        lam = mpmath.findroot(lambda x: A - L / (x - 1) ** 2, 1 + mpmath.mpf(1) / 10**3 + abs(L / A) ** 0.5 * 1.3,
                              solver="newton")
        g = lam * A + L / (lam - 1)
        assert abs(v - g) <= abs(g) * mpmath.mpf(10) ** -45  # relative 1e-45
        assert abs(P.opt_order(A, L) - lam) <= lam * mpmath.mpf(10) ** -40
        # and the same value through the at-order theorem at lam*
        v2 = at.evaluate({**p, "lam": mpmath.nstr(lam, 60)}, dps=50).value
        assert abs(v2 - v) <= abs(v) * mpmath.mpf(10) ** -40
    # float64: bounded scalar minimisation over log(lam - 1)
    fa, fl = float(A), float(L)
    res = scipy.optimize.minimize_scalar(lambda u: (1 + math.exp(u)) * fa + fl / math.exp(u), bounds=(-40, 40),
                                         method="bounded", options={"xatol": 1e-12})
    assert abs(res.fun - float(v)) <= 1e-9 * float(v)  # relative 1e-9 (optimiser tolerance)


@pytest.mark.parametrize("key", ["shi26.lemma39", "shi26.lemma39_rdp", "shi26.gaussian_rdp_replace",
                                 "shi26.gaussian_rdp_zero_out", "shi26.thm3_privacy"])
def test_kernels_match_the_sympy_statement(key):
    t = dptheory.get(key)
    base = {**POINTS[0], "alpha": 3, "lam": 2, "C4": "0.7"}
    p = {k: v for k, v in base.items() if k in t.params}
    exact = t.parse(p)
    ref = sp.N(t.bound.xreplace({t.notation.sym(k): v for k, v in exact.items()}), 60)
    got = t.evaluate(p, dps=50).value
    with mpmath.workdps(60):
        assert abs(got - mpmath.mpf(str(ref))) <= abs(mpmath.mpf(str(ref))) * mpmath.mpf(10) ** -45
    f = float(t.evaluate_np({k: float(v) for k, v in exact.items()}))
    assert abs(f - float(got)) <= 1e-12 * abs(float(got))


def test_lemma39_rejects_bad_delta_naming_the_condition():
    with pytest.raises(ConditionViolated) as ei:
        dptheory.get("shi26.lemma39").evaluate({**POINTS[0], "delta": "1.5"})
    assert "delta < 1" in str(ei.value) and ei.value.values == {"delta": "1.5"}


@pytest.mark.parametrize("mu", ["0.05", "1", "30"])
def test_gdp_epsilon_is_the_tight_inverse_and_below_rdp_conversions(mu):
    delta = mpmath.mpf("1e-5")
    with mpmath.workdps(30):
        e = G.gdp_epsilon_mp(mu, delta)
        assert G.gdp_delta_mp(e, mu) <= delta
        if e > 0:
            assert G.gdp_delta_mp(e * (1 - mpmath.mpf(10) ** -15), mu) > delta
        # the classic RDP conversion of the same Gaussian, optimised over alpha in closed form, is an upper bound
        m = mpmath.mpf(mu)
        classic = m**2 / 2 + m * mpmath.sqrt(2 * mpmath.log(1 / delta))
        assert e <= classic


def test_worst_case_replace_sensitivity_is_approached_by_the_model():
    """Build W and two records as in the derivation; the realised gradient difference approaches the sup."""
    d, n, m, sig = 40, 5, 3, 0.5
    mu_norm = 1.0
    R = math.sqrt(1.5 * sig**2 * d)
    cfg = M.CNNConfig(m=m, q=3, kappa=0.1, sigma_0=0.0)
    mu = np.zeros(d)
    mu[0] = mu_norm
    xi = np.zeros(d)
    xi[1] = R
    big = 1e3
    W = np.zeros((d, 2 * m))
    W[0, :m] = -big  # class +1 filters: <w, mu> << 0
    W[0, m:] = big  # class -1 filters: <w, mu> >> 0
    W[1, :] = 1.0  # <w, xi> = R > kappa for every filter

    def rec(y):
        X = np.empty((1, 2, d))
        X[0, 0], X[0, 1] = y * mu, xi
        return M.PatchData(X=X, y=np.array([y]), xi=xi[None, :], signal_patch=np.array([0]), mu=mu)

    g1 = M.loss_and_grad(W, rec(1.0), cfg).grad / n
    g2 = M.loss_and_grad(W, rec(-1.0), cfg).grad / n
    got = float(np.sum((g1 - g2) ** 2))
    sup = float(P.sup_sensitivity_sq(mu_norm, sig, d, n, m, neighbour="replace"))
    assert got <= sup * (1 + 1e-12)
    assert got >= sup * (1 - 1e-6)  # l' -> -1 up to e^-(margin), margin ~ big R / m
    # the proof's per-filter bound (||mu|| + ||xi||)/(nm), summed over the 2m filters, is exceeded
    assert got > 2 * m * ((mu_norm + R) / (n * m)) ** 2 * 2


def test_random_states_never_exceed_the_worst_case_sensitivity():
    rng = np.random.default_rng(2)
    d, n, m, sig = 30, 4, 3, 0.7
    cfg = M.CNNConfig(m=m, q=3, kappa=0.2, sigma_0=2.0)
    dm = M.DataModel(d=d, mu_norm=1.0, sigma_p=sig)
    sup = float(P.sup_sensitivity_sq(1.0, sig, d, n, m, neighbour="replace"))
    for _ in range(200):
        W = M.init_weights(d, cfg, rng)
        a, b = M.sample_data(dm, 1, rng), M.sample_data(dm, 1, rng)
        for x in (a, b):  # project into the restricted domain
            nrm = np.linalg.norm(x.xi)
            if nrm**2 > 1.5 * sig**2 * d:
                x.X[0, 1 - x.signal_patch[0]] *= math.sqrt(1.5 * sig**2 * d) / nrm
        diff = M.loss_and_grad(W, a, cfg).grad - M.loss_and_grad(W, b, cfg).grad
        assert float(np.sum(diff**2)) / n**2 <= sup * (1 + 1e-12)


def test_theorem3_scaling_finding_symbolically():
    """Lemma 39's A at Theorem 3's sigma_b and T2 divided by Theorem 3's m^3 M^2/(n^2 ||mu||^4) = eta m^3 (2u+3v)/u."""
    u, v, eta, m, n = sp.symbols("u v eta m n", positive=True)
    M_ = sp.Symbol("M", positive=True)
    T2 = m / (eta * u)
    sb = u / (eta * m**3 * M_)
    A = T2 * (2 * u + 3 * v) / (sb**2 * n**2 * m)
    ratio = sp.simplify(A / (m**3 * M_**2 / (n**2 * u**2)))
    assert sp.simplify(ratio - eta * m**3 * (2 * u + 3 * v) / u) == 0


def test_regime_report_at_the_paper_setting():
    pt = {**S.PAPER_SETTING, "sigma_p": "0.5", "sigma_0": "0.001", "kappa": "0.05", "delta": "1e-5", "T": 3000,
          "C": 1}
    rows = {r.ident: r for r in S.regime_report(S.condition2(), pt)}
    assert rows["c2.d_poly"].status == "violated" and rows["c2.d_poly"].rhs == "100000000000000"
    assert abs(rows["c2.d_poly"].log_slack - math.log(2000 / 1e14)) < 1e-12
    assert rows["c2.eta_hi"].status == "holds"
    # SNR^-1 = sigma_p sqrt(d)/||mu|| under the sqrt reading, sigma_p d under the literal one
    sq = {r.ident: r for r in S.regime_report(S.condition2("sqrt"), pt)}["c2.snr_n"]
    li = {r.ident: r for r in S.regime_report(S.condition2("literal"), pt)}["c2.snr_n"]
    assert float(sq.lhs) == pytest.approx(0.5 * math.sqrt(2000), rel=1e-15) and float(li.lhs) == 1000
    with pytest.raises(ConditionViolated) as ei:
        S.THM3_TEST_ERROR.evaluate({**pt, "c_T1": 1, "c_T2": 1})
    assert ei.value.condition.startswith("kappa**2")
    with pytest.raises(ConditionViolated, match=r"c2\.kappa"):
        S.require(S.condition2(), pt, key="shi26.thm3_test_error")


def test_condition2_feasible_at_C1_with_an_exactly_checked_witness():
    res = F.search(S.condition2(), level="condition2", C=1.0, starts=6, seed=0)
    assert res.min_slack > 0 and res.feasible
    rows = S.regime_report(S.condition2(), res.witness)
    assert all(r.status == "holds" for r in rows)


def test_condition1_sigma0_window_obstruction():
    """Derived (docs/shi26.md): with q = 3, c1.kappa, c1.sigma0_lo and c1.sigma0_hi imply n log(n^2/delta) log T <= 1.

    Checked on 20000 seeded log-uniform points: the three conditions are evaluated by the lambdified
    log-slacks (the feasibility module's evaluator), the implication by plain float arithmetic."""
    conds = [c for c in S.condition1() if c.gloss.split("]")[0][1:] in ("c1.kappa", "c1.sigma0_lo", "c1.sigma0_hi")]
    names = ["C", "T", "d", "delta", "kappa", "m", "mu_norm", "n", "sigma_0", "sigma_p"]
    f, _ = F.slack_functions(conds, names, {"q": 3.0})
    rng = np.random.default_rng(0)
    found = 0
    for _ in range(20000):
        # the box is biased toward where the window can open (kappa near C, small n, T, m, ||mu||)
        x = {"C": 0.0, "T": rng.uniform(0.01, 3), "d": rng.uniform(2, 18), "delta": rng.uniform(-6, -0.7),
             "kappa": rng.uniform(-2, 0.5), "m": rng.uniform(0, 2), "mu_norm": rng.uniform(-8, 0),
             "n": rng.uniform(0, 2),
             "sigma_0": rng.uniform(-8, 1), "sigma_p": rng.uniform(-3, 2)}
        if np.min(f(np.array([x[k] for k in names]))) >= 0:
            found += 1
            n, T, dl = math.exp(x["n"]), math.exp(x["T"]), math.exp(x["delta"])
            assert n * math.log(n**2 / dl) * math.log(T) <= 1 + 1e-9
    assert found > 0


def test_condition1_no_feasible_point_found_at_q3():
    res = F.search(S.condition1(), level="condition1", C=1.0, fixed={"q": 3.0}, starts=6, seed=0)
    assert res.min_slack < 0 and not res.feasible


def _parser():
    from dptheory.cli import build_parser

    return build_parser()


def test_cli_regime_and_privacy(capsys):
    p = _parser()
    args = p.parse_args(["shi26", "regime", "mu_norm=1", "sigma_p=0.5", "d=2000", "n=1000", "m=100", "kappa=0.05",
                         "sigma_0=0.001", "sigma_b=0.01", "eta=0.1", "delta=1e-5", "T=3000", "C=1", "--json"])
    assert args.func(args) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["id"] for r in rows} >= {"c2.kappa", "c2.sigma_b"}
    args = p.parse_args(["shi26", "privacy", "T=1000", "mu_norm=1", "sigma_p=0.5", "d=2000", "sigma_b=0.01",
                         "n=1000", "m=100"])
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert "Lemma 39" in out and "replace-one" in out


def test_cli_fig1_reduced_writes_outputs_deterministically(tmp_path, capsys):
    p = _parser()
    outs = []
    for k in range(2):
        args = p.parse_args(["shi26", "fig1", "--scale", "reduced", "--steps", "60", "--sigma-p", "0.5",
                             "--n-test", "200", "--out", str(tmp_path / str(k)), "--no-progress"])
        assert args.func(args) == 0
        outs.append((tmp_path / str(k) / "reduced_fig1.csv").read_bytes())
        assert (tmp_path / str(k) / "reduced_fig1.png").stat().st_size > 1000
    assert outs[0] == outs[1]
    summary = json.loads((tmp_path / "0" / "reduced_fig1.json").read_text())
    priv = summary["runs"][0]["privacy"]
    # the restricted-domain replace-one accounting exceeds zero-out, realised is below the worst case
    assert priv["restricted_replace"] > priv["restricted_zero_out"] >= priv["realised_zero_out"]
    assert priv["realised_sensitivity_ratio"] <= 1.0


@pytest.mark.parametrize("q", [3, "5/2", 4])
def test_gd_time_scales_kernel_vs_statement(q):
    p = {"c_T1": 1, "c_Ts": 2, "kappa": "0.05", "eta": "0.1", "sigma_0": "0.001", "q": q, "m": 100, "n": 1000,
         "sigma_p": "0.5", "d": 2000, "mu_norm": 1, "eps": "0.1"}
    for t in (S.T1_GD, S.TSTAR_GD, S.T2_GD):
        pt = {k: v for k, v in p.items() if k in t.params}
        exact = t.parse(pt)
        ref = sp.N(t.bound.xreplace({t.notation.sym(k): v for k, v in exact.items()}), 40)
        got = t.evaluate(pt, dps=30).value
        assert abs(float(got) - float(ref)) <= 1e-25 * float(ref) or abs(got - mpmath.mpf(str(ref))) <= abs(got) * 1e-25
    # T2 - T1 = 36 n m^2/(eta sigma_p^2 d) exactly (Theorem 1)
    pt = {k: v for k, v in p.items() if k in S.T2_GD.params}
    diff = S.T2_GD.evaluate(pt, dps=40).value - S.T1_GD.evaluate(pt, dps=40).value
    assert abs(diff - mpmath.mpf(36 * 1000 * 100**2) / (mpmath.mpf("0.1") * mpmath.mpf("0.25") * 2000)) < 1e-20


def test_cli_feasibility(capsys):
    p = _parser()
    args = p.parse_args(["shi26", "feasibility", "--level", "condition2", "--starts", "3", "--json"])
    assert args.func(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out[0]["level"] == "condition2" and out[0]["feasible"] is True and out[0]["min_slack_nats"] > 0
