"""PAC-Bayes bounds: known values, kernels vs statements, float64 vs mpmath, reductions, conditions, CLI.

Independent computations: the team survey's worked example (tests/data/maxinfo_known_values.csv;
docs/derivations/pacbayes_maxinfo.md),
the sympy statements of the closed forms (exact arithmetic), kl inverses by bisection in mpmath
(the package's mp path is itself a bisection; the float64 path is Newton), and an end-to-end
Monte-Carlo check of the single-model bound (G3) on an algorithm whose max-information is known.
Tolerances are relative and stated at each assertion.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import dptheory.papers.lz26.theorems as lampert_zakerinia_2026  # noqa: F401  (registers lz26.*)
import dptheory.papers.maxinfo.theorems as M
import dptheory.papers.pacbayes.theorems as P
from dptheory.core.errors import ConditionViolated, RegimeNotSupported
from dptheory.numerics import kl as K

DATA = Path(__file__).parent / "data" / "maxinfo_known_values.csv"
EX = {"emp_risk": "0.03", "KL": 50, "n": 10000, "delta": "0.05"}


def test_note_worked_example():
    with DATA.open() as fh:
        rows = {r["key"]: r for r in csv.DictReader(fh) if json.loads(r["params"]) == EX}
    assert len(rows) == 4
    for key, r in rows.items():
        thm_key, _, term = key.partition(":")
        thm = {"maurer04.kl_2sqrtn": P.MAURER_2SQRT, "pacbayes.pinsker_derived": P.PINSKER,
               "mcallester99": P.MCALLESTER}[thm_key]
        got = float(thm.evaluate(EX, dps=30, term=term or None).value)
        digits = len(r["value"].split(".")[1])
        assert abs(got - float(r["value"])) <= 0.5 * 10.0**-digits, (key, got, r["value"])  # half the last digit


@pytest.mark.parametrize("thm, params", [
    (P.PINSKER, EX),
    (P.MCALLESTER, EX),
    (P.G1, {"emp_risk": "0.1", "n": 500, "delta": "0.05", "beta": "0.01", "k": 7}),
])
def test_closed_forms_match_statement(thm, params):
    exact = thm.parse(params)
    ref = sp.N(thm.bound.xreplace({thm.notation.sym(k): v for k, v in exact.items()}), 60)
    with mpmath.workdps(60):
        assert abs(thm.evaluate(params, dps=50).value - mpmath.mpf(str(ref))) <= mpmath.mpf(10) ** -45


@pytest.mark.parametrize("thm", [P.MAURER, P.MAURER_2SQRT, P.G2, P.G3, P.DR18_THM, P.DR18_MI])
def test_kl_budget_term_matches_statement(thm):
    params = {"emp_risk": "0.2", "KL": 3, "n": 40, "m": 40, "delta": "0.1", "beta": "0.02", "k": 5, "eps": "0.3"}
    params = {k: v for k, v in params.items() if k in thm.params}
    exact = thm.parse(params)
    expr = thm.terms["rhs"].expr.xreplace({thm.notation.sym(k): v for k, v in exact.items()}).doit()
    with mpmath.workdps(50):
        ref = mpmath.mpf(str(sp.N(expr, 50)))
        got = thm.evaluate(params, dps=45, term="rhs").value
        assert abs(got - ref) <= abs(ref) * mpmath.mpf(10) ** -40
        risk = thm.evaluate(params, dps=45).value
        # the risk bound is the upper kl inverse of that budget
        assert abs(risk - K.kl_inv_upper_mp(mpmath.mpf("0.2"), ref)) <= mpmath.mpf(10) ** -40


pts = st.fixed_dictionaries({
    "emp_risk": st.floats(0, 1), "KL": st.floats(0, 1e3), "n": st.integers(1, 10**6),
    "delta": st.floats(1e-9, 0.99), "bfrac": st.floats(1e-6, 0.99), "k": st.floats(0, 1e4), "eps": st.floats(1e-4, 3),
})


@settings(max_examples=40, deadline=None, derandomize=True)
@given(pts)
def test_float64_agrees_with_mpmath(d):
    d = {k: float(f"{v:.12g}") if isinstance(v, float) else v for k, v in d.items()}
    d["beta"] = float(f"{d['delta'] * d['bfrac']:.12g}")
    for thm in (P.MAURER, P.MAURER_2SQRT, P.PINSKER, P.MCALLESTER, P.G1, P.G2, P.G3, P.DR18_THM, P.DR18_MI):
        p = {k: (d["n"] if k == "m" else d[k]) for k in thm.params}
        mpv = float(thm.evaluate(p, dps=30).value)
        npv = float(thm.evaluate_np(p))
        # float64 kl inverses return the safe end within 1e-14; closed forms agree to 1e-12 relative
        assert npv >= mpv - 1e-12 * abs(mpv) and npv - mpv <= 2e-14 + 1e-12 * abs(mpv), (thm.key, p, npv, mpv)


def test_reductions():
    # G2 with k = 0 and beta -> 0 is Maurer's bound
    base = {"emp_risk": "0.1", "KL": 10, "n": 1000, "delta": "0.05"}
    g2 = P.G2.value({**base, "beta": "1e-30", "k": 0}, dps=30)
    assert abs(g2 - P.MAURER.value(base, dps=30)) <= mpmath.mpf(10) ** -25
    # G3 is G2 at KL = 0
    p3 = {"emp_risk": "0.1", "n": 1000, "delta": "0.05", "beta": "0.01", "k": 9}
    assert P.G3.value(p3) == P.G2.value({**p3, "KL": 0})
    # DR18 for small eps: budget (KL + ln 2 sqrt m + 2 ln(3/delta))/m
    p = {"emp_risk": "0.1", "KL": 10, "m": 1000, "delta": "0.05", "eps": "1e-6"}
    with mpmath.workdps(40):
        ref = (10 + mpmath.log(2 * mpmath.sqrt(1000)) + 2 * mpmath.log(3 / mpmath.mpf("0.05"))) / 1000
        assert abs(P.DR18_THM.evaluate(p, term="rhs", dps=35).value - ref) <= mpmath.mpf(10) ** -30


def test_conditions_and_refusals():
    with pytest.raises(ConditionViolated, match="beta < delta"):
        P.G2.evaluate({"emp_risk": "0.1", "KL": 0, "n": 10, "delta": "0.05", "beta": "0.05", "k": 1})
    with pytest.raises(ConditionViolated, match="emp_risk <= 1"):
        P.MAURER.evaluate({"emp_risk": "1.5", "KL": 0, "n": 10, "delta": "0.05"})
    with pytest.raises(ConditionViolated, match="delta < 1"):
        P.DR18_THM.evaluate({"emp_risk": "0.1", "KL": 0, "m": 10, "delta": 1, "eps": 1})
    with pytest.raises(RegimeNotSupported):
        M.maxinfo_guarantee("lz26.thm2_pacbayes_asymptotic", {})


def test_g3_holds_empirically_for_an_eps_dp_model_selection():
    """End-to-end: the exponential mechanism over K threshold classifiers is eps-DP (replace-one, score
    sensitivity 1); Dwork Thm 20 gives its max-information; G3 must then hold with probability >= 1 - delta.

    Data: x ~ U[0, 1], y = 1{x > 0.5} flipped w.p. 0.2; classifiers h_j(x) = 1{x > j/K}; loss 0-1.
    The violation frequency over 4000 datasets must not exceed delta beyond a 99.9 % Clopper-Pearson margin.
    """
    from dptheory.numerics.binomial import clopper_pearson_lower

    rng = np.random.default_rng(2026)
    n, K_, eps, delta = 200, 21, 0.05, 0.1
    beta = delta / 2
    k = float(M.THM20.value({"eps": eps, "n": n, "beta": beta}))
    thr = np.arange(K_) / (K_ - 1)
    true_risk = 0.2 + 0.6 * np.abs(thr - 0.5)  # R(h_j) for this distribution
    c = (math.log(K.xi(n)) + math.log(1 / (delta - beta)) + k) / n
    R = 4000
    x = rng.random((R, n))
    y = (x > 0.5) ^ (rng.random((R, n)) < 0.2)
    errs = ((x[:, :, None] > thr[None, None, :]) != y[:, :, None]).mean(axis=1)  # (R, K)
    logits = -eps * n * errs / 2  # exponential mechanism with score -n*err (sensitivity 1): eps-DP
    g = rng.gumbel(size=logits.shape)
    j = np.argmax(logits + g, axis=1)
    emp = errs[np.arange(R), j]
    bounds = np.array([K.kl_inv_upper(float(e), c) for e in emp])
    viol = int(np.sum(true_risk[j] > bounds))
    assert clopper_pearson_lower(viol, R, 1e-3) <= delta


# ----------------------------------------------------------------------------- CLI
def _parser():
    from dptheory.cli import build_parser

    return build_parser()


def test_cli_pacbayes(capsys):
    p = _parser()
    args = p.parse_args(["pacbayes", "bound", "emp_risk=0.03", "n=10000", "KL=50", "--json"])
    assert args.func(args) == 0
    d = json.loads(capsys.readouterr().out)
    vals = {b["key"]: b["value"] for b in d["bounds"]}
    assert abs(vals["maurer04.kl_2sqrtn"] - 0.0521732) <= 5e-8 and abs(vals["mcallester99"] - 0.0866610) <= 5e-8
    args = p.parse_args(["pacbayes", "bound", "emp_risk=0.1", "n=1400", "m=200", "sigma=5", "--maxinfo-from", "thmB",
                         "--json"])
    assert args.func(args) == 0
    d = json.loads(capsys.readouterr().out)
    assert [b["key"] for b in d["bounds"]] == ["pacbayes.g2_maxinfo_prior_derived", "pacbayes.g3_single_model_derived"]
    assert d["params"]["k_source"].startswith("maxinfo.thmB_derived")
    args = p.parse_args(["pacbayes", "bound", "emp_risk=0.1", "n=1400", "sigma=5", "--maxinfo-from", "lz26"])
    with pytest.raises(RegimeNotSupported):
        args.func(args)
    args = p.parse_args(["pacbayes", "bound", "emp_risk=0.1", "n=1400", "E=3", "--maxinfo-from", "thmB"])
    with pytest.raises(RegimeNotSupported, match="theta-independent"):
        args.func(args)
