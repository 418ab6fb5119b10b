"""Ye & Shokri 2022: every kernel against an independent computation.

Independent computations used here (none of them calls the kernel under test):
* the sympy statement of the theorem evaluated exactly (rational arithmetic, then 60 digits);
* the recursions in the paper's proofs (Eq. 98 for eps0, Eq. 101-104 for Thm 3.3's first term,
  Eq. 77 for Lemma D.3);
* brute-force sums (Thm D.6, the log-mean-exp of Thm 4.2) and the plain (not log-domain)
  recurrence of Thm 4.3 at 80 digits.
Tolerances are relative and stated at each assertion.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import mpmath
import numpy as np
import pytest
import sympy as sp

import dptheory
from dptheory.core.notation import parse_value, rational_to_mpf
from dptheory.core.registry import REGISTRY
from dptheory.papers.yeshokri22 import kernels as ys
from dptheory.papers.yeshokri22 import theorems as Y

DATA = Path(__file__).parent / "data" / "yeshokri22_known_values.csv"
FIG = {"alpha": 10, "eta": "0.02", "lam": 1, "beta": 4, "S_g": 4, "sigma": 2, "n": 50, "b": 2}
POINTS = [
    {**FIG, "K": 1, "j0": 0},
    {**FIG, "K": 7, "j0": 3},
    {**FIG, "alpha": "1.5", "K": 50, "j0": 24},
    {"alpha": 3, "eta": "0.1", "lam": "0.5", "beta": 2, "S_g": 1, "sigma": "0.7", "n": 11, "b": 2, "K": 4, "j0": 1},
    {"alpha": 40, "eta": "0.3", "lam": 3, "beta": 3, "S_g": 2, "sigma": 1, "n": 9, "b": 4, "K": 3, "j0": 1},
]


def _only(t, p):
    extra = {"L": 2, "sigma_mul": 3, "k": 2, "j": 1, "c_lsi": 2, "L_f": "0.5", "eps_prev": "0.3", "R_alpha": "1.5",
             "dR_alpha": "0.5"}  # the parameters of Cor 5.3, Lemma D.2/D.3, Lemma 3.2 and D.1
    return {k: v for k, v in {**p, **extra}.items() if k in t.params}


def _statement_value(t, p, dps=60):
    exact = t.parse(p)
    subs = {t.notation.sym(k): v for k, v in exact.items()}
    val = t.bound.xreplace(subs).doit()
    return mpmath.mpf(str(sp.N(val, dps)))


# Hand-picked points that lie outside a theorem's conditions (the test asserts the refusal).
OUTSIDE = {
    ("cor5_3", 4): "eta = 0.3 >= 2/((L^2 + 1)/2 + 2 lambda) = 2/8.5 at L = 2, lambda = 3 (Cor 5.3's step size)",
}

#: Ye & Shokri's theorems in the registry, by name (``thm2_1``); the tests below select from it by what each
#: theorem declares, so a theorem added or changed is tested without retyping a list
THEOREMS = {t.key.removeprefix("yeshokri22."): t for t in REGISTRY.family("yeshokri22") if t.KIND == "theorem"}
#: the theorems with a closed-form bound (``Theorem.bound``, a sympy statement to evaluate exactly)
CLOSED = sorted(name for name, t in THEOREMS.items() if t.bound is not None)
#: the bounds over K epochs (a parameter K: evaluated on the figures' grid of K)
EPOCH_BOUNDS = sorted(name for name, t in THEOREMS.items() if "K" in t.params)


def test_every_theorem_is_selected():
    """Every theorem is in CLOSED or EPOCH_BOUNDS (neither selection is empty by accident, and a theorem with
    neither a closed form nor K, which both tests below would pass over, fails here)."""
    assert THEOREMS and CLOSED and EPOCH_BOUNDS
    assert sorted(set(THEOREMS) - set(CLOSED) - set(EPOCH_BOUNDS)) == []


@pytest.mark.parametrize("name", CLOSED)
@pytest.mark.parametrize("point", range(len(POINTS)))
def test_kernel_matches_sympy_statement(name, point):
    t = dptheory.get(f"yeshokri22.{name}")
    p = _only(t, POINTS[point])
    refused = [r for r in t.check(p) if r.status.value == "violated"]
    if (name, point) in OUTSIDE:
        # a hand-picked point outside the theorem's conditions must be refused, never silently skipped
        assert refused, f"{name} at POINTS[{point}] should be refused: {OUTSIDE[(name, point)]}"
        return
    assert not refused, f"{name} refuses the hand-picked valid point POINTS[{point}]: {refused}"
    with mpmath.workdps(60):
        ref = _statement_value(t, p)
        got = t.evaluate(p, dps=50).value
        assert abs(got - ref) <= abs(ref) * mpmath.mpf(10) ** -45  # relative 1e-45 at 50 digits


def _eps0_product(j, G, x):
    """Eq. 98: eps0^j = G prod_{j'=1}^{j-1} r (sum_{s<j'} r^s)/(sum_{s<=j'} r^s)."""
    r = (1 - x) ** 2
    out = G
    for jj in range(1, j):
        out *= r * sum(r**s for s in range(jj)) / sum(r**s for s in range(jj + 1))
    return out


@pytest.mark.parametrize("j", [1, 2, 5, 25, 60])
@pytest.mark.parametrize("x", ["0.02", "0.5", "1e-6"])
def test_eps0_closed_form_vs_product(j, x):
    with mpmath.workdps(60):
        G = mpmath.mpf("0.3")
        xm = mpmath.mpf(x)
        ref = _eps0_product(j, G, xm)
        got = ys.eps0_mp(j, G, xm, mpmath.mpf(1))
        assert abs(got - ref) <= ref * mpmath.mpf(10) ** -50


@pytest.mark.parametrize("point", range(len(POINTS)))
def test_first_term_vs_recursion_in_proof(point):
    """Eq. 101-104: e_{k+1} = (e_k + eps0^h/alpha) r^(N-h), e_0 = 0 (eps/alpha is alpha-free).

    The recursion gives eps_{K-1}^0 = first term * r^(N-h); Eq. 108 then drops the factor
    r^(N-h) <= 1, so the theorem's first term is the recursion's value divided by r^(N-h).
    """
    t = dptheory.get("yeshokri22.thm3_3")
    p = _only(t, POINTS[point])
    exact = t.parse(p)
    with mpmath.workdps(70):
        a = t.kernel_args(exact)
        N, K = a["n"] // a["b"], a["K"]
        h = N // 2
        G = ys.gaussian_step_rdp_mp(a["alpha"], a["eta"], a["S_g"], a["sigma"], a["b"])
        r = (1 - a["eta"] * a["lam"]) ** 2
        e = mpmath.mpf(0)
        e0h = _eps0_product(h, G, a["eta"] * a["lam"]) / a["alpha"]
        for _ in range(K - 1):
            e = (e + e0h) * r ** (N - h)
        recursion = a["alpha"] * e
        first = t.evaluate(p, dps=60, term="term1").value
        assert abs(first * r ** (N - h) - recursion) <= max(recursion, mpmath.mpf(10) ** -60) * mpmath.mpf(10) ** -50


@pytest.mark.parametrize("K", [1, 2, 17, 400])
def test_d6_sum_vs_closed_form(K):
    t = dptheory.get("yeshokri22.thmD_6")
    p = {"alpha": 10, "eta": "0.2", "lam": "0.7", "beta": 3, "S_g": 2, "sigma": "1.5", "n": 30, "K": K}
    exact = t.parse(p)
    with mpmath.workdps(60):
        a = t.kernel_args(exact)
        x = a["eta"] * a["lam"] / 2
        ref = (
            a["alpha"]
            * a["eta"]
            * a["S_g"] ** 2
            / (2 * a["sigma"] ** 2 * a["n"] ** 2)
            * mpmath.fsum((1 - x) ** k for k in range(1, K + 1))
        )
        got = t.evaluate(p, dps=50).value
        assert abs(got - ref) <= ref * mpmath.mpf(10) ** -45


@pytest.mark.parametrize("alpha", ["1.0001", "2", "10", "1e4", "1e7"])
@pytest.mark.parametrize("n", [4, 50, 3001])
def test_log_mean_exp_exact(alpha, n):
    """Second term of Thm 4.2 against log(mean(exp)) at 100 digits (no shift, no overflow in mpmath)."""
    t = dptheory.get("yeshokri22.thm4_2")
    p = {**FIG, "alpha": alpha, "n": n, "K": 3}
    exact = t.parse(p)
    with mpmath.workdps(100):
        a = t.kernel_args(exact)
        N = a["n"] // a["b"]
        G = ys.gaussian_step_rdp_mp(a["alpha"], a["eta"], a["S_g"], a["sigma"], a["b"])
        xs = [(a["alpha"] - 1) * _eps0_closed(jj, G, a["eta"] * a["lam"]) for jj in range(1, N + 1)]
        ref = mpmath.log(mpmath.fsum(mpmath.exp(v) for v in xs) / N) / (a["alpha"] - 1)
    got = t.evaluate(p, dps=50, term="term2").value
    with mpmath.workdps(60):
        assert abs(got - ref) <= ref * mpmath.mpf(10) ** -45
    # float64 path: 1e-10 relative, including where exp((alpha-1) G) overflows a double
    f = float(t.evaluate_np({k: float(v) for k, v in exact.items()}, term="term2"))
    assert abs(f - float(ref)) <= 1e-10 * float(ref)


def _eps0_closed(j, G, x):
    r = (1 - x) ** 2
    return G * r ** (j - 1) * (1 - r) / (1 - r**j)


def _thm43_naive(a, T):
    """Eq. 148-150 iterated on S itself (not its log), at the caller's (high) precision."""
    q = mpmath.mpf(a["b"]) / a["n"]
    G = ys.gaussian_step_rdp_mp(a["alpha"], a["eta"], a["S_g"], a["sigma"], a["b"])
    r = (1 - a["eta"] * a["lam"]) ** 2
    S = mpmath.mpf(1)
    for _ in range(T):
        S = q * mpmath.exp((a["alpha"] - 1) * G) * S + (1 - q) * S**r
    return mpmath.log(S) / (a["alpha"] - 1)


@pytest.mark.parametrize(
    "point",
    [
        {**FIG, "K": 1},
        {**FIG, "K": 40},
        {**FIG, "alpha": 30, "K": 20},  # alpha = 30: beyond the limit condition
        {"alpha": "1.01", "eta": "0.001", "lam": "0.01", "beta": 1, "S_g": 3, "sigma": 1, "n": 10, "b": 3, "K": 6},
        {"alpha": 200, "eta": "0.3", "lam": 1, "beta": 2, "S_g": 5, "sigma": 1, "n": 7, "b": 7, "K": 5},
    ],
)
def test_thm43_log_domain_vs_plain_recurrence(point):
    t = dptheory.get("yeshokri22.thm4_3")
    exact = t.parse(point)
    with mpmath.workdps(90):
        a = t.kernel_args(exact)
        ref = _thm43_naive(a, a["K"] * (a["n"] // a["b"]))
    got = t.evaluate(point, dps=50).value
    with mpmath.workdps(60):
        assert abs(got - ref) <= ref * mpmath.mpf(10) ** -45
    f = float(t.evaluate_np({k: float(v) for k, v in exact.items()}))
    assert abs(f - float(ref)) <= 1e-10 * float(ref)


@pytest.mark.parametrize("alpha, regime", [(10, "fixed point"), (40, "linear regime")])
def test_thm43_shortcut_matches_full_iteration(alpha, regime):
    """The exact shortcut (docs/derivations/thm4_3_recurrence.md) against all T steps iterated."""
    with mpmath.workdps(40):
        q, c, r = mpmath.mpf(2) / 50, (alpha - 1) * alpha * mpmath.mpf("0.005"), (1 - mpmath.mpf("0.02")) ** 2
        T = 40_000
        short, how = ys.thm43_log_S_mp(T, q, c, r)
        assert how == regime
        L = mpmath.mpf(0)
        la = mpmath.log(q) + c
        for _ in range(T):
            L = L + la + mpmath.log1p(mpmath.exp(mpmath.log1p(-q) - (1 - r) * L - la))
        assert short >= L * (1 - mpmath.mpf(10) ** -38)  # the shortcut returns the safe (upper) end
        assert abs(short - L) <= L * mpmath.mpf(10) ** -35


#: (K_max, N, q, c, 1 - r) of Thm 4.3 combinations: below the fixed point's threshold (a = q e^c < 1, the fixed-point
#: shortcut), above it (a > 1, the linear regime), near it, a slow contraction that iterates every step, and
#: 1 - r < 0 (eta lam = 3, only with the conditions unchecked: no shortcut, the iterates grow without bound)
THM43_COMBOS = [
    (40, 25, 0.04, 9 * 10 * 0.005, 0.0396),
    (40, 25, 0.04, 39 * 40 * 0.005, 0.0396),
    (30, 10, 0.1, 2.3, 0.0396),
    (12, 7, 3 / 7, 0.2, 0.0199),
    (6, 3, 1 / 3, 0.001, 1e-5),
    (90, 25, 0.04, 0.5, 0.0396),
    (3, 50, 0.02, 4.0, 0.5),
    (20, 2, 0.5, 0.69, 0.0396),
    (4, 25, 0.04, 3 / 32, -3.0),
]


@pytest.mark.skipif(ys._thm43_c is None, reason="the compiled Thm 4.3 loop is not built (no C compiler)")
def test_thm43_compiled_loop_is_the_python_loop() -> None:
    """The C loop (``_thm43.c``) against the Python loop it replaces: the same steps and shortcuts, so the same
    values to the last bit but for the C library's and Python's math functions (1e-15 relative)."""
    for K, N, q, c, omr in THM43_COMBOS:
        compiled = ys._thm43_scalar_epochs(K, N, q, c, omr)
        python = ys._thm43_scalar_epochs(K, N, q, c, omr, compiled=False)
        np.testing.assert_allclose(compiled, python, rtol=1e-15, atol=0, err_msg=str((K, N, q, c, omr)))


def test_thm43_every_combination_path_agrees(monkeypatch: pytest.MonkeyPatch) -> None:
    """Many combinations at once: the array loop (used without the compiled loop) and the per-combination loop
    (compiled, or Python) agree to 1e-13 relative (their shortcuts are checked at different steps: every 64 steps
    against every epoch, each within 4e-16 of the iterate it replaces)."""
    K_max, N, q, c, omr = (np.array(col, dtype=float) for col in zip(*THM43_COMBOS, strict=True))
    K_max, N = K_max.astype(np.int64), N.astype(np.int64)
    per_combination = ys.thm43_log_S_np_epochs(K_max, N, q, c, 1 - omr, omr)
    monkeypatch.setattr(ys, "_thm43_c", None)
    arrays = ys.thm43_log_S_np_epochs(K_max, N, q, c, 1 - omr, omr)
    for combo, one, other in zip(THM43_COMBOS, per_combination, arrays, strict=True):
        np.testing.assert_allclose(one, other, rtol=1e-13, atol=0, err_msg=str(combo))


def test_thm43_limit_and_its_condition():
    t = dptheory.get("yeshokri22.thm4_3")
    lim = t.limits["K"]
    # (alpha-1) G < log(n/b) <=> alpha(alpha-1) 0.005 < log 25 <=> alpha < 25.87 at the figure setting
    for alpha, finite in [(10, True), (25, True), (26, False), (40, False)]:
        p = {**FIG, "alpha": alpha, "K": 1}
        exact = t.parse(p)
        subs = {t.notation.sym(k): v for k, v in exact.items()}
        assert (lim.exists_when.evaluate(subs).status.value == "holds") is finite
        with mpmath.workdps(50):
            L = lim.mp(t.kernel_args(exact))
        assert mpmath.isfinite(L) is finite
        if finite:
            far = t.evaluate({**p, "K": 5000}, dps=30).value
            with mpmath.workdps(50):
                # far was rounded to 30 digits: it may exceed L by that rounding, never by more
                assert far <= L * (1 + mpmath.mpf(10) ** -28) and far >= L * (1 - mpmath.mpf(10) ** -20)
        else:
            v1, v2 = (t.evaluate({**p, "K": k}, dps=30).value for k in (1000, 2000))
            assert v2 > v1 * mpmath.mpf("1.5")  # grows without limit (linearly)


def test_lemma_d3_recursion_and_point_mass():
    t = dptheory.get("yeshokri22.lemmaD_3")
    base = {"eta": "0.02", "lam": 1, "beta": 4, "sigma": 2, "n": 50, "b": 2}
    assert mpmath.isinf(t.evaluate({**base, "k": 0, "j": 0}).value)
    with mpmath.workdps(60):
        inv = mpmath.mpf(0)  # 1/c_0^0 = 0
        r = (1 - mpmath.mpf("0.02")) ** 2
        for m in range(1, 60):
            inv = r * inv + 2 * mpmath.mpf("0.02") * 4  # Eq. 77
            k, j = divmod(m, 25)
            got = t.evaluate({**base, "k": k, "j": j}, dps=50).value
            assert abs(1 / got - inv) <= inv * mpmath.mpf(10) ** -45


def test_cor53_is_thm42_with_converted_sigma():
    """Cor 5.3 = Thm 4.2 with sigma = sqrt(eta/2) sigma_mul S_g/(2b), beta = (L^2+1)/2 + lambda (Sec. F.1)."""
    cor = dptheory.get("yeshokri22.cor5_3")
    t42 = dptheory.get("yeshokri22.thm4_2")
    p = {"alpha": 8, "eta": "0.05", "lam": "0.01", "L": 1, "sigma_mul": "1.1", "n": 600, "b": 16, "K": 30}
    S_g = 3
    with mpmath.workdps(80):
        sigma = Y.sigma_from_sigma_mul(p["sigma_mul"], p["eta"], S_g, p["b"], dps=70)
        beta = (1 + 1) / mpmath.mpf(2) + mpmath.mpf("0.01")
    q = {**{k: v for k, v in p.items() if k in t42.params}, "sigma": sigma, "S_g": S_g, "beta": beta}
    a = cor.evaluate(p, dps=50).value
    b = t42.evaluate(q, dps=50).value
    with mpmath.workdps(50):
        assert abs(a - b) <= a * mpmath.mpf(10) ** -40


def test_noise_conversions_round_trip_and_figure_value():
    # the figures' composition baseline: z = sqrt(2 * 0.02 * 4)/(0.02 * 4 / 2) = 10 exactly
    z = Y.sgm_noise_multiplier("0.02", 2, 4, 2, dps=40)
    assert z == mpmath.mpf(10)
    s = Y.sigma_from_sgm_noise_multiplier(z, "0.02", 4, 2, dps=40)
    assert abs(s - 2) < mpmath.mpf(10) ** -38
    sm = Y.sigma_mul_from_sigma("0.7", "0.05", 3, 16, dps=40)
    back = Y.sigma_from_sigma_mul(sm, "0.05", 3, 16, dps=40)
    with mpmath.workdps(40):
        assert abs(back - mpmath.mpf("0.7")) < mpmath.mpf(10) ** -38


def test_known_values_with_provenance():
    rows = list(csv.DictReader(DATA.open()))
    assert len(rows) >= 20
    for row in rows:
        assert row["source"] and row["method"] and int(row["dps"]) >= 50
        t = dptheory.get(row["key"])
        params = json.loads(row["params"])
        got = t.evaluate(params, dps=50, term=row["term"] or None).value
        with mpmath.workdps(60):
            ref = mpmath.mpf(row["value"])
            assert abs(got - ref) <= abs(ref) * mpmath.mpf(10) ** -40, row["key"]


@pytest.mark.parametrize("name", EPOCH_BOUNDS)
def test_float64_path_on_figure_grid(name):
    """float64 vs mpmath at the figures' setting (the contract suite does the same on random points)."""
    t = dptheory.get(f"yeshokri22.{name}")
    base = _only(t, {**FIG, "j0": 24, "L": 1, "sigma_mul": 2, "eta": "0.02"})
    Ks = [1, 2, 3, 10, 50, 200]
    f = t.evaluate_np({**{k: float(parse_value(v, key="k", name=k)) for k, v in base.items()}, "K": np.array(Ks)})
    for K, fv in zip(Ks, f, strict=True):
        ref = float(t.evaluate({**base, "K": K}, dps=30).value)
        assert abs(fv - ref) <= 1e-10 * abs(ref), (K, fv, ref)


def test_rational_to_mpf_is_one_rounding():
    with mpmath.workdps(50):
        assert rational_to_mpf(sp.Rational(1, 3)) == mpmath.mpf(1) / 3
