"""Independent known values of Ye & Shokri 2022's theorems (``yeshokri22.*``).

Imports nothing of dptheory (tests/test_known_values.py checks it): the helpers the generators share
(``dptheory/testing/known_values_gen.py``: exact inputs, formatting, the writer, routes several papers use) are loaded
by their path. Run from anywhere:

    python dptheory/papers/yeshokri22/known_values.py

to rewrite ``known_values.csv`` next to this file (the tests never regenerate it).
"""

from __future__ import annotations

import importlib.util
from importlib.metadata import version
from pathlib import Path
from typing import Any

import mpmath


def _common() -> Any:
    """The generators' shared helpers, by path (as ``dptheory.testing.known_values_gen`` it would import dptheory)."""
    spec = importlib.util.spec_from_file_location(
        "known_values_gen", Path(__file__).resolve().parents[2] / "testing" / "known_values_gen.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


kv = _common()
F, add, dpacc_poisson_gaussian_rdp, sgm_log_a_quad = kv.F, kv.add, kv.dpacc_poisson_gaussian_rdp, kv.sgm_log_a_quad
Row = dict[str, str]


# ============================================================================ Ye & Shokri 2022
YS = "Ye & Shokri 2022 (arXiv 2203.05363)"
FIG = {"alpha": 10, "eta": "0.02", "lam": 1, "beta": 4, "S_g": 4, "sigma": 2, "n": 50, "b": 2}
OTHER = {"alpha": "2.5", "eta": "0.1", "lam": "0.5", "beta": 2, "S_g": 1, "sigma": "0.7", "n": 11, "b": 2}
SMALL = {"alpha": 3, "eta": "0.1", "lam": "0.5", "beta": 2, "S_g": 1, "sigma": "0.7", "n": 12, "b": 3}


def _ys(p: dict) -> dict:
    out = {k: (int(v) if k in ("n", "b", "K", "j0", "k", "j") else F(v)) for k, v in p.items()}
    return out


def ys_G(a: dict) -> mpmath.mpf:
    """Notation: G(alpha) = alpha eta S_g^2/(4 sigma^2 b^2), one Gaussian update's RDP (Sec. 3)."""
    return a["alpha"] * a["eta"] * a["S_g"] ** 2 / (4 * a["sigma"] ** 2 * a["b"] ** 2)


def ys_eps0(j: int, G: mpmath.mpf, eta_lam: mpmath.mpf) -> mpmath.mpf:
    """eps0^j by the product of Eq. 98 (eps0^1 = G; each further step multiplies by r S_{j-1}/S_j with
    S_j = sum_{s<j} r^s), not the closed form of Eq. 99."""
    r = (1 - eta_lam) ** 2
    out = G
    for jj in range(1, j):
        out *= r * mpmath.fsum(r**s for s in range(jj)) / mpmath.fsum(r**s for s in range(jj + 1))
    return out


def ys_first_term(a: dict, G: mpmath.mpf) -> mpmath.mpf:
    """First term of Eq. 3/5 as the sum the proof's recursion (Eq. 101-108) accumulates:
    sum_{i=0}^{K-2} eps0^h r^(i (N - h)), h = floor(n/(2b)), N = floor(n/b)."""
    N, h, K = a["n"] // a["b"], a["n"] // (2 * a["b"]), a["K"]
    r = (1 - a["eta"] * a["lam"]) ** 2
    e0h = ys_eps0(h, G, a["eta"] * a["lam"])
    return mpmath.fsum(e0h * r ** (i * (N - h)) for i in range(K - 1))


def ys_lme(a: dict, G: mpmath.mpf) -> mpmath.mpf:
    """Second term of Eq. 5: (1/(alpha-1)) log((1/N) sum_{j0=0}^{N-1} exp((alpha-1) eps0^{N-j0})), summed
    term by term (no log-sum-exp shift)."""
    N = a["n"] // a["b"]
    s = mpmath.fsum(mpmath.exp((a["alpha"] - 1) * ys_eps0(N - j0, G, a["eta"] * a["lam"])) for j0 in range(N))
    return mpmath.log(s / N) / (a["alpha"] - 1)


def ys_thm43(a: dict) -> mpmath.mpf:
    """Thm 4.3 by the plain recurrence on S (not log S), K N steps, at the working precision."""
    q = mpmath.mpf(a["b"]) / a["n"]
    G = ys_G(a)
    r = (1 - a["eta"] * a["lam"]) ** 2
    S = mpmath.mpf(1)
    for _ in range(a["K"] * (a["n"] // a["b"])):
        S = q * mpmath.exp((a["alpha"] - 1) * G) * S + (1 - q) * S**r
    return mpmath.log(S) / (a["alpha"] - 1)


def only(keys: tuple, p: dict) -> dict:
    """``p`` restricted to ``keys``, in ``p``'s order."""
    return {k: v for k, v in p.items() if k in keys}


def generate() -> list[Row]:
    fam: list[Row] = []

    TH21 = ("alpha", "eta", "lam", "beta", "S_g", "sigma", "b", "K")
    for base, K in [(FIG, 1), (FIG, 200), (OTHER, 7)]:
        p = only(TH21, {**base, "K": K})
        a = _ys(p)
        v = (
            a["alpha"]
            * a["S_g"] ** 2
            / (a["lam"] * a["sigma"] ** 2 * a["b"] ** 2)
            * (1 - mpmath.exp(-a["lam"] * a["eta"] * a["K"] / 2))
        )
        add(fam, "yeshokri22.thm2_1", p, v, "transcription", f"{YS}, Theorem 2.1 as printed (K = epochs)")

    for base, K, j0 in [(FIG, 1, 0), (FIG, 7, 3), (FIG, 50, 24), (OTHER, 4, 1), (OTHER, 9, 4), (SMALL, 3, 3)]:
        p = {**base, "K": K, "j0": j0}
        a = _ys(p)
        G = ys_G(a)
        t1 = ys_first_term(a, G)
        t2 = ys_eps0(a["n"] // a["b"] - a["j0"], G, a["eta"] * a["lam"])
        src = f"{YS}, Theorem 3.3: first term as the sum built by the proof's recursion (Eq. 101-108), eps0 by Eq. 98"
        add(fam, "yeshokri22.thm3_3", p, t1 + t2, "second-derivation", src)
        if K > 1:
            add(fam, "yeshokri22.thm3_3", p, t1, "second-derivation", src, term="term1")
        add(fam, "yeshokri22.thm3_3", p, t2, "second-derivation", src, term="term2")

    for base, K in [(FIG, 1), (FIG, 30), (FIG, 200), (OTHER, 1), (OTHER, 50), (SMALL, 5)]:
        p = {**base, "K": K}
        a = _ys(p)
        G = ys_G(a)
        t1, t2 = ys_first_term(a, G), ys_lme(a, G)
        src = (
            f"{YS}, Theorem 4.2: first term summed as in Eq. 101-108, second term (log-mean-exp) summed term by "
            "term, eps0 by Eq. 98"
        )
        add(fam, "yeshokri22.thm4_2", p, t1 + t2, "second-derivation", src)
        add(fam, "yeshokri22.thm4_2", p, t1, "second-derivation", src, term="term1")
        add(fam, "yeshokri22.thm4_2", p, t2, "second-derivation", src, term="term2")

    for base, K in [
        (FIG, 1),
        (FIG, 50),
        ({**FIG, "alpha": 15}, 20),
        ({**FIG, "alpha": 20}, 50),
        (SMALL, 4),
        (OTHER, 3),
    ]:
        p = {**base, "K": K}
        a = _ys(p)
        add(
            fam,
            "yeshokri22.thm4_3",
            p,
            ys_thm43(a),
            "brute-force",
            f"{YS}, Theorem 4.3 (Eq. 6; Eq. 148-150): the plain recurrence on S (not log S) at 60 digits",
        )

    THD4 = ("alpha", "eta", "beta", "S_g", "sigma", "n", "b", "K", "j0")
    for p in [
        only(THD4, {**FIG, "K": 3, "j0": 5}),
        only(THD4, {**SMALL, "K": 2, "j0": 3}),
        only(THD4, {**FIG, "b": 1, "K": 1, "j0": 7}),
    ]:
        a = _ys(p)
        G = ys_G(a)
        v = G * (mpmath.mpf(a["b"]) / a["n"]) * (a["K"] - 1) + G / (a["n"] // a["b"] - a["j0"])
        add(
            fam,
            "yeshokri22.thmD_4",
            p,
            v,
            "transcription",
            f"{YS}, Theorem D.4 (Eq. 80) as printed, G (b/n)(K-1) + G/(n/b - j0), at points with b | n",
        )
        if a["K"] == 1 and a["b"] == 1:
            # Feldman et al. 2018, Thm 23: 2 alpha L^2/(sigma_F^2 (n - t + 1)), t = j0 + 1, L = S_g/2,
            # eta sigma_F = sqrt(2 eta sigma^2) (Sec. D.4's translation)
            L = a["S_g"] / 2
            sF = mpmath.sqrt(2 * a["eta"] * a["sigma"] ** 2) / a["eta"]
            v2 = 2 * a["alpha"] * L**2 / (sF**2 * (a["n"] - (a["j0"] + 1) + 1))
            add(
                fam,
                "yeshokri22.thmD_4",
                p,
                v2,
                "second-derivation",
                "Feldman, Mironov, Talwar, Thakurta 2018 (arXiv 1808.06651) Thm 23 translated as in Sec. D.4 of "
                f"{YS} (K = 1, b = 1: the paper says D.4 coincides with it)",
            )

    TH_B = ("alpha", "eta", "lam", "beta", "S_g", "sigma", "n", "b", "K")
    for base, K in [(FIG, 1), (FIG, 10), (OTHER, 10), (SMALL, 3)]:
        p = only(TH_B, {**base, "K": K})
        a = _ys(p)
        N = a["n"] // a["b"]
        L = a["eta"] * a["S_g"] / 2  # L -> eta S_g/2 ...
        Lb = L / a["b"]  # ... -> L/b (averaging over the batch)
        s2 = 2 * a["eta"] * a["sigma"] ** 2  # sigma^2 -> 2 eta sigma^2
        contraction = 1 - 2 * a["eta"] * a["beta"] * a["lam"] / (a["beta"] + a["lam"])
        first_one_epoch = a["alpha"] * 2 * Lb**2 / ((N - 0 - 1) * s2) * contraction ** (mpmath.mpf(N - 0) / 2)
        last_one_epoch = a["alpha"] * 2 * Lb**2 / s2
        src = (
            f"{YS}, Sec. D.6: Balle et al. 2019 Thm 5 as translated in Eq. 111 (L -> L/b, n -> n/b, "
            "sigma^2 -> 2 eta sigma^2, L -> eta S_g/2), composed over K epochs as the paper does"
        )
        add(fam, "yeshokri22.balle_first", p, first_one_epoch * a["K"], "second-derivation", src)
        add(fam, "yeshokri22.balle_last", p, first_one_epoch * (a["K"] - 1) + last_one_epoch, "second-derivation", src)

    THD6 = ("alpha", "eta", "lam", "beta", "S_g", "sigma", "n", "K")
    for p in [
        {"alpha": 10, "eta": "0.2", "lam": "0.7", "beta": 3, "S_g": 2, "sigma": "1.5", "n": 30, "K": 25},
        {"alpha": 2, "eta": "0.5", "lam": 1, "beta": "1.5", "S_g": 1, "sigma": 1, "n": 1, "K": 3},
    ]:
        a = _ys(p)
        s = mpmath.fsum((1 - a["eta"] * a["lam"] / 2) ** k for k in range(1, a["K"] + 1))
        add(
            fam,
            "yeshokri22.thmD_6",
            p,
            a["alpha"] * a["eta"] * a["S_g"] ** 2 / (2 * a["sigma"] ** 2 * a["n"] ** 2) * s,
            "brute-force",
            f"{YS}, Theorem D.6 (Eq. 112): the sum over k = 1..K added term by term",
        )
        add(
            fam,
            "yeshokri22.thmD_7",
            p,
            a["alpha"]
            * a["S_g"] ** 2
            / (a["lam"] * a["sigma"] ** 2 * a["n"] ** 2)
            * (1 - mpmath.exp(-a["lam"] * a["eta"] * a["K"] / 2)),
            "transcription",
            f"{YS}, Theorem D.7 (Eq. 127; Chourasia et al. 2021 Cor. 1) as printed",
        )
        assert only(THD6, p) == p

    for p in [
        {"alpha": 8, "eta": "0.05", "lam": "0.01", "L": 1, "sigma_mul": "1.1", "n": 600, "b": 16, "K": 30},
        {"alpha": 2, "eta": "0.1", "lam": "0.5", "L": 2, "sigma_mul": 3, "n": 12, "b": 3, "K": 4},
    ]:
        # Cor 5.3 = Thm 4.2 with sigma = sqrt(eta/2) sigma_mul S_g/(2b) (Sec. F.1); any S_g > 0 gives the same
        a = _ys({k: v for k, v in p.items() if k not in ("L", "sigma_mul")})
        S_g = mpmath.mpf(3)
        a.update(S_g=S_g, sigma=mpmath.sqrt(a["eta"] / 2) * F(p["sigma_mul"]) * S_g / (2 * a["b"]))
        G = ys_G(a)
        add(
            fam,
            "yeshokri22.cor5_3",
            p,
            ys_first_term(a, G) + ys_lme(a, G),
            "second-derivation",
            f"{YS}, Corollary 5.3 via Sec. F.1: Theorem 4.2 with sigma = sqrt(eta/2) (1/b) sigma_mul S_g/2 "
            "(S_g = 3, which cancels)",
        )

    TC = ("alpha", "eta", "S_g", "sigma", "n", "b", "K")
    for base, K in [(FIG, 1), (FIG, 50), ({**FIG, "alpha": 20}, 50), ({**OTHER, "n": 10}, 3), (OTHER, 3)]:
        p = only(TC, {**base, "K": K})
        a = _ys(p)
        q = mpmath.mpf(a["b"]) / a["n"]
        z = a["b"] * mpmath.sqrt(2) * a["sigma"] / (a["S_g"] * mpmath.sqrt(a["eta"]))  # sqrt(2 eta s^2)/(eta S_g/b)
        steps = a["K"] * (a["n"] // a["b"])
        src = (
            f"{YS}, Sec. 5.2/E.1 composition baseline: K floor(n/b) Poisson-subsampled Gaussian steps, q = b/n, "
            "z = sqrt(2 eta sigma^2)/(eta S_g/b)"
        )
        v = steps * sgm_log_a_quad(a["alpha"], q, z) / (a["alpha"] - 1)
        add(
            fam,
            "yeshokri22.composition",
            p,
            v,
            "brute-force",
            src + "; A_alpha by mpmath.quad at 60 digits",
            rel_tol="1e-30",
        )
        if a["alpha"] == int(a["alpha"]):  # dp-accounting is not exact at fractional orders (see gen_rdp)
            add(
                fam,
                "yeshokri22.composition",
                p,
                dpacc_poisson_gaussian_rdp(float(a["alpha"]), float(q), float(z), steps),
                "peer",
                src + f"; dp-accounting {version('dp-accounting')} RdpAccountant (PoissonSampledDpEvent), float64",
                rel_tol="1e-9",
            )
        add(
            fam,
            "yeshokri22.composition_approx",
            p,
            q * ys_G(a) * a["K"],
            "transcription",
            f"{YS}, Figure 2 caption: (b/n) alpha eta S_g^2/(4 sigma^2 b^2) K",
        )

    TLD3 = ("eta", "lam", "beta", "sigma", "n", "b", "k", "j")
    for p in [
        only(TLD3, {**FIG, "k": 3, "j": 5}),
        only(TLD3, {**OTHER, "k": 0, "j": 1}),
        only(TLD3, {**OTHER, "k": 2, "j": 0}),
    ]:
        a = _ys(p)
        r = (1 - a["eta"] * a["lam"]) ** 2
        steps = a["k"] * (a["n"] // a["b"]) + a["j"]
        s = mpmath.fsum(r**s for s in range(steps))
        add(
            fam,
            "yeshokri22.lemmaD_3",
            p,
            1 / (2 * a["eta"] * a["sigma"] ** 2 * s),
            "brute-force",
            f"{YS}, Lemma D.3 (Eq. 76): 1/(2 eta sigma^2 sum_(s=0)^(kN+j-1) r^s), the sum added term by term",
        )

    # Prop 5.1 by hand: the multi-class logistic loss on x~ = (x, 1), ||x|| <= L, has gradient (p - e_y) (x) x~ with
    # ||p - e_y|| <= sqrt(2) (sup at p -> e_y', y' != y), so Lipschitz constant sqrt(2) sqrt(L^2 + 1); Hessian
    # (diag p - p p^T) (x) x~ x~^T whose first factor has largest eigenvalue <= 1/2 (sup at p = (1/2, 1/2, 0, ...)),
    # so smoothness (L^2 + 1)/2.
    for L in (1, 3, "0.5"):
        lf = F(L)
        add(
            fam,
            "yeshokri22.prop5_1_lipschitz",
            {"L": L},
            mpmath.sqrt(2) * mpmath.sqrt(lf**2 + 1),
            "second-derivation",
            f"{YS}, Prop 5.1 re-derived by hand: ||(p - e_y) (x) (x, 1)|| <= sqrt(2) sqrt(L^2 + 1)",
        )
        add(
            fam,
            "yeshokri22.prop5_1_smoothness",
            {"L": L},
            (lf**2 + 1) / 2,
            "second-derivation",
            f"{YS}, Prop 5.1 re-derived by hand: lambda_max(diag p - p p^T) <= 1/2 times ||(x, 1)||^2 <= L^2 + 1",
        )
    fam += lemma_rows()
    return fam


def _gauss_rdp(alpha: mpmath.mpf, shift: mpmath.mpf, var: mpmath.mpf) -> mpmath.mpf:
    """R_alpha(N(m, var) || N(m + shift, var)) = alpha shift^2/(2 var), one coordinate (Mironov 2017, Prop. 7)."""
    return alpha * shift**2 / (2 * var)


def _lsi_info_ratio_quad(alpha: mpmath.mpf, shift: mpmath.mpf, var: mpmath.mpf) -> mpmath.mpf:
    """I_alpha(mu || nu)/E_alpha(mu || nu) for mu = N(shift, var), nu = N(0, var) in one dimension, both integrals of
    Lemma D.1's definitions (E_alpha = E_nu[(mu/nu)^alpha], I_alpha = E_nu[(mu/nu)^alpha |d/dx log(mu/nu)|^2]) by
    mpmath.quad."""
    s = mpmath.sqrt(var)

    def nu(x: mpmath.mpf) -> mpmath.mpf:
        return mpmath.npdf(x, 0, s)

    def ratio(x: mpmath.mpf) -> mpmath.mpf:
        return mpmath.npdf(x, shift, s) / nu(x)

    def dlog(x: mpmath.mpf) -> mpmath.mpf:
        return mpmath.diff(lambda t: mpmath.log(mpmath.npdf(t, shift, s)) - mpmath.log(nu(t)), x)

    pts = [-mpmath.inf, -20 * s, alpha * shift, 20 * s + alpha * shift, mpmath.inf]
    E = mpmath.quad(lambda x: ratio(x) ** alpha * nu(x), pts)
    integral = mpmath.quad(lambda x: ratio(x) ** alpha * dlog(x) ** 2 * nu(x), pts)
    return integral / E


def lemma_rows() -> list[Row]:
    """Lemma 3.2 (both cases), Lemma D.1, Lemma D.2 and Thm D.5 at every batch position."""
    fam: list[Row] = []
    # Lemma 3.2, record off the batch: Gaussian laws N(m, s^2) vs N(m + D, s^2) satisfy LSI with c = 1/s^2; through
    # f(theta) = L theta plus N(0, 2 eta sigma^2) they become N(L m, L^2 s^2 + 2 eta sigma^2) vs the same shifted by
    # L D: the exact divergence after the step. eps_prev is R_{alpha'} before it, alpha' as Eq. 2 defines it.
    points = [(6, 2, "0.25", 1, "0.5", 1), (3, 1, "0.5", 1, 1, 1), (11, 4, "0.5", 1, 1, "0.5")]
    for alpha, c, eta, sigma, Lf, D in points:
        a, cc, e, sg, lf, d = (F(v) for v in (alpha, c, eta, sigma, Lf, D))
        shrink = 1 + cc * 2 * e * sg**2 / lf**2
        alpha_prev = (a - 1) / shrink + 1
        eps_prev = _gauss_rdp(alpha_prev, d, 1 / cc)
        p = {"alpha": alpha, "eta": eta, "sigma": sigma, "c_lsi": c, "L_f": Lf, "eps_prev": kv.fmt(eps_prev)}
        assert F(p["eps_prev"]) == eps_prev, "choose points where eps_prev is an exact decimal"
        add(fam, "yeshokri22.lemma3_2_out", p, _gauss_rdp(a, lf * d, lf**2 / cc + 2 * e * sg**2), "second-derivation",
            f"{YS}, Lemma 3.2 (Eq. 2, record off the batch) on Gaussian laws: the exact Renyi divergence after "
            "theta -> L theta + N(0, 2 eta sigma^2) (the lemma is tight there)")
    # Lemma 3.2, record in the batch (Eq. 69-70): composition with the Gaussian mechanism of sensitivity eta S_g/b and
    # variance 2 eta sigma^2, written as that mechanism's RDP
    for base, eps in [(FIG, "0.3"), (OTHER, 0), (SMALL, "1.25")]:
        p = {k: base[k] for k in ("alpha", "eta", "S_g", "sigma", "b")} | {"eps_prev": eps}
        a = _ys(p)
        v = F(eps) + _gauss_rdp(a["alpha"], a["eta"] * a["S_g"] / a["b"], 2 * a["eta"] * a["sigma"] ** 2)
        add(fam, "yeshokri22.lemma3_2_in", p, v, "second-derivation",
            f"{YS}, Lemma 3.2 (Eq. 2, record in the batch; Eq. 69-70): eps_prev plus the Gaussian mechanism's RDP "
            "alpha (eta S_g/b)^2/(2 * 2 eta sigma^2)")
    # Lemma D.1 on a Gaussian location pair mu = N(D, s^2), nu = N(0, s^2): c = 1/s^2, R_alpha = alpha D^2/(2 s^2),
    # dR_alpha = D^2/(2 s^2); the value is I_alpha/E_alpha by quadrature (the lemma holds with equality there)
    for alpha_text, var, D in [("2.5", "0.5", 1), (3, 1, 1), ("1.5", 2, "0.5")]:
        order, v2, d = F(alpha_text), F(var), F(D)
        R, dR = _gauss_rdp(order, d, v2), _gauss_rdp(1, d, v2)
        p = {"alpha": alpha_text, "c_lsi": kv.fmt(1 / v2), "R_alpha": kv.fmt(R), "dR_alpha": kv.fmt(dR)}
        assert (F(p["c_lsi"]), F(p["R_alpha"]), F(p["dR_alpha"])) == (1 / v2, R, dR)
        add(fam, "yeshokri22.lemmaD_1", p, _lsi_info_ratio_quad(order, d, v2), "brute-force",
            f"{YS}, Lemma D.1 (Eq. 17) on a Gaussian location pair: I_alpha/E_alpha by mpmath.quad of both "
            "integrals (equality case)", rel_tol="1e-30")
    # Lemma D.2 by the recursion of its proof, 1/c_k^j = 1/c_k^{j-1} + 2 eta sigma^2 (Eq. 72), from 1/c_0^0 = 0
    TLD2 = ("eta", "beta", "sigma", "n", "b", "k", "j")
    for p in [only(TLD2, {**FIG, "k": 3, "j": 5}), only(TLD2, {**OTHER, "k": 0, "j": 1}),
              only(TLD2, {**SMALL, "k": 2, "j": 0})]:
        a = _ys(p)
        inv = mpmath.mpf(0)
        for _ in range(a["k"] * (a["n"] // a["b"]) + a["j"]):
            inv += 2 * a["eta"] * a["sigma"] ** 2
        add(fam, "yeshokri22.lemmaD_2", p, 1 / inv, "brute-force",
            f"{YS}, Lemma D.2 (Eq. 71) by its recursion Eq. 72: 2 eta sigma^2 added once per iteration")
    # Thm D.5 (Eq. 111) re-typed with the replacements of Sec. D.6, at first, middle, second-to-last and last batches
    TD5 = ("alpha", "eta", "lam", "beta", "S_g", "sigma", "n", "b", "j0")
    for base, j0 in [(FIG, 0), (FIG, 11), (FIG, 23), (FIG, 24), (OTHER, 3), (SMALL, 1)]:
        p = only(TD5, {**base, "j0": j0})
        a = _ys(p)
        N = a["n"] // a["b"]
        Lb = a["eta"] * a["S_g"] / 2 / a["b"]  # L -> eta S_g/2, then L -> L/b
        s2 = 2 * a["eta"] * a["sigma"] ** 2  # sigma^2 -> 2 eta sigma^2
        contraction = 1 - 2 * a["eta"] * a["beta"] * a["lam"] / (a["beta"] + a["lam"])
        if j0 == N - 1:
            v = a["alpha"] * 2 * Lb**2 / s2
        else:
            v = a["alpha"] * 2 * Lb**2 / ((N - j0 - 1) * s2) * contraction ** (mpmath.mpf(N - j0) / 2)
        add(fam, "yeshokri22.thmD_5", p, v, "transcription",
            f"{YS}, Theorem D.5 (Eq. 111; Balle et al. 2019 Thm 5) re-typed with L -> eta S_g/2, L -> L/b, n -> n/b, "
            "sigma^2 -> 2 eta sigma^2 (Sec. D.6)")
    return fam


if __name__ == "__main__":
    kv.main(generate, __file__)
