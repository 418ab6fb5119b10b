"""Independent known values of the max-information bounds (``dwork15.*``, ``rogers16.*``, ``maxinfo.*``).

Imports nothing of dptheory (tests/test_known_values.py checks it): the helpers the generators share
(``dptheory/testing/known_values_gen.py``: exact inputs, formatting, the writer, routes several papers use) are loaded
by their path. Run from anywhere:

    python dptheory/papers/maxinfo/known_values.py

to rewrite ``known_values.csv`` next to this file (the tests never regenerate it).
"""

from __future__ import annotations

import importlib.util
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
DPS, F, add = kv.DPS, kv.F, kv.add
Row = dict[str, str]


DW = "Dwork et al. 2015 (arXiv 1506.02629v2)"


def dw_thm20(eps: mpmath.mpf, n: int, beta: mpmath.mpf) -> mpmath.mpf:
    """Thm 20 in nats: eps^2 n/2 + eps sqrt(n ln(2/beta)/2)."""
    return eps**2 * n / 2 + eps * mpmath.sqrt(n * mpmath.log(2 / beta) / 2)


def dw_thm13(k: mpmath.mpf, beta: mpmath.mpf, p_prod: mpmath.mpf) -> mpmath.mpf:
    return mpmath.exp(k) * p_prod + beta


def mcdiarmid(tau: mpmath.mpf, c: mpmath.mpf, n: int) -> mpmath.mpf:
    return mpmath.exp(-2 * tau**2 / (c**2 * n))


def gdp_delta(eps: mpmath.mpf, mu: mpmath.mpf) -> mpmath.mpf:
    """Balle & Wang 2018 (arXiv 1805.06530) Thm 8: delta(eps) of a mu-GDP mechanism."""
    Phi = mpmath.ncdf
    return Phi(-eps / mu + mu / 2) - mpmath.exp(eps) * Phi(-eps / mu - mu / 2)


def generate() -> list[Row]:
    fam: list[Row] = []
    for e, n in [("0.5", 100), ("0.01", 7)]:
        add(
            fam,
            "dwork15.thm19",
            {"eps": e, "n": n},
            F(e) * n,
            "transcription",
            f"{DW} Thm 19 (log2(e) eps n bits = eps n nats)",
        )
    for e, n, b in [("0.5", 100, "0.05"), ("0.01", 1000, "0.000001")]:
        add(
            fam,
            "dwork15.thm20",
            {"eps": e, "n": n, "beta": b},
            dw_thm20(F(e), n, F(b)),
            "transcription",
            f"{DW} Thm 20 in nats",
        )
    for k, b, pp in [("2", "0.1", "0.01"), ("0", "0.5", "1")]:
        add(
            fam,
            "dwork15.thm13",
            {"k": k, "beta": b, "p_prod": pp},
            dw_thm13(F(k), F(b), F(pp)),
            "transcription",
            f"{DW} Thm 13 in nats (2^k bits = e^k nats)",
        )
    for tau, c, n, b in [("1", "1", 2, "0.1"), ("30", "0.5", 1000, "0.001")]:
        x = F(tau) ** 2 / (F(c) ** 2 * n)
        add(
            fam,
            "dwork15.cor21",
            {"tau": tau, "c": c, "n": n, "beta": b},
            dw_thm13(x, F(b), mcdiarmid(F(tau), F(c), n)),
            "second-derivation",
            f"{DW} Cor 21 re-derived: Thm 13 at k = tau^2/(c^2 n) nats applied to McDiarmid's exp(-2 tau^2/(c^2 n))",
        )
    for k, b, tau, c, n in [("0.5", "0.1", "1", "1", 2), ("3", "0.01", "20", "1", 100)]:
        add(
            fam,
            "dwork15.cor21_route",
            {"k": k, "beta": b, "tau": tau, "c": c, "n": n},
            dw_thm13(F(k), F(b), mcdiarmid(F(tau), F(c), n)),
            "second-derivation",
            f"{DW} Thm 13 applied to McDiarmid's inequality (the proof of Cor 21)",
        )
    for tau, c, n in [("3", "1", 1), ("79", "1", 790), ("100", "0.2", 1000)]:
        x = F(tau) ** 2 / (F(c) ** 2 * n)
        add(
            fam,
            "dwork15.cor22",
            {"tau": tau, "c": c, "n": n},
            mpmath.exp(-3 * x / 4),
            "transcription",
            f"{DW} Cor 22: exp(-3 tau^2/(4 c^2 n))",
        )
    for tau, c, n in [("3", "1", 1), ("1", "1", 2), ("100", "0.2", 1000)]:
        x = F(tau) ** 2 / (F(c) ** 2 * n)
        eps = F(tau) / (F(c) * n)  # the algorithm is tau/(cn)-DP
        beta = 2 * mpmath.exp(-x)
        add(
            fam,
            "dwork15.cor22_route",
            {"tau": tau, "c": c, "n": n},
            dw_thm13(dw_thm20(eps, n, beta), beta, mcdiarmid(F(tau), F(c), n)),
            "second-derivation",
            f"{DW} Cor 22's proof composed from the printed theorems: Thm 20 at eps = tau/(cn), beta = "
            "2 exp(-tau^2/(c^2 n)), then Thm 13 on McDiarmid",
        )
    R16 = "Rogers, Roth, Smith, Thakkar 2016 (arXiv 1604.03924), asymptotic form with hidden constants C, C_beta"
    for e, d, n, C, Cb in [("0.5", "0.001", 100, 1, 1), ("0.1", "0.00001", 10000, "2.5", "0.5")]:
        p = {"eps": e, "delta": d, "n": n, "C": C, "C_beta": Cb}
        add(
            fam,
            "rogers16.approx_dp_maxinfo",
            p,
            F(C) * (F(e) ** 2 * n + n * mpmath.sqrt(F(d) / F(e))),
            "transcription",
            R16,
        )
        add(
            fam,
            "rogers16.approx_dp_maxinfo",
            p,
            mpmath.exp(-(F(e) ** 2) * n) + F(Cb) * n * mpmath.sqrt(F(d) / F(e)),
            "transcription",
            R16,
            term="beta",
        )

    OURS = "docs/derivations/maxinfo_dpsgd.md, {} as written there"
    for mu, zeta, m, v in [("0.01", "1", 5, "3"), ("0.1", "0.5", 1, "0.25"), ("0.001", "2", 50, "100")]:
        p = {"mu": mu, "zeta": zeta, "m": m, "v_sum": v}
        mubar = F(mu) / (1 - 4 * F(mu) * F(zeta) ** 2 * (m - 1))
        add(
            fam,
            "maxinfo.lemmaM_derived",
            p,
            F(v) * mpmath.expm1(8 * F(zeta) ** 2 * mubar) / (8 * F(zeta) ** 2),
            "transcription",
            OURS.format("Lemma M"),
        )
        add(
            fam,
            "maxinfo.lemmaM_derived",
            p,
            m * mpmath.expm1(8 * F(zeta) ** 2 * mubar) / 8,
            "transcription",
            OURS.format("Lemma M (relaxed, v_k <= zeta^2)"),
            term="relaxed",
        )
    PTS = [
        (200, 10, 1, "1", "4", "0.05"),
        (200, 10, 4, "1", "4", "0.05"),
        (100, 5, 2, "1", "2", "0.1"),
        (1, 1, 1, "1", "1000", "0.000000001"),
        (10, 1, 1, "1", "0.1", "0.05"),
        (100, 1, 1, "1", "1000", "0.000001"),
        (1003, 7, 3, "0.5", "30", "0.01"),
    ]
    for n, m, E, zeta, sigma, beta in PTS:
        p = {"n": n, "m": m, "E": E, "zeta": zeta, "sigma": sigma, "beta": beta}
        r = F(zeta) ** 2 / F(sigma) ** 2
        T = n // m
        A = 2 * E * T * m**2 * r
        add(
            fam,
            "maxinfo.thmA_derived",
            p,
            A + 2 * mpmath.sqrt(A * mpmath.log(1 / F(beta))),
            "transcription",
            OURS.format("Theorem A") + " (T = floor(n/m))",
        )
        add(
            fam,
            "maxinfo.thmB_derived",
            p,
            thm_b_by_root(n, m, E, r, F(beta)),
            "second-derivation",
            OURS.format("Theorem B") + ": inf over lambda of K_B by a root of dK_B/dlambda (mpmath.findroot, "
            "bracketed) at 60 digits",
            rel_tol="1e-30",
        )

    # the (eps, delta)-DP route through Rogers et al. (docs/derivations/maxinfo_route.md, section 3)
    for n, E, zeta, sigma, beta, C, Cb in [
        (10_000, 1, "1", "100", "0.01", 1, 1),
        (100, 1, "1", "1000", "0.000001", 1, 1),
        (200, 1, "1", "1000", "0.000001", 1, 1),
        (100_000, 2, "1", "300", "0.000001", 2, "0.5"),
    ]:
        p = {"n": n, "E": E, "zeta": zeta, "sigma": sigma, "beta": beta, "C": C, "C_beta": Cb}
        mu = 2 * F(zeta) * mpmath.sqrt(E) / F(sigma)

        def slack(e: mpmath.mpf, n: int = n, mu: mpmath.mpf = mu, Cb: Any = Cb, beta: str = beta) -> mpmath.mpf:
            return mpmath.exp(-(e**2) * n) + F(Cb) * n * mpmath.sqrt(gdp_delta(e, mu) / e) - F(beta)

        lo, hi = mpmath.mpf("1e-6"), mpmath.mpf("0.5")
        assert slack(lo) > 0 > slack(hi)
        for _ in range(300):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if slack(mid) > 0 else (lo, mid)
        e = (lo + hi) / 2
        d = gdp_delta(e, mu)
        # peer check of the GDP delta (dp-accounting's analytic Gaussian privacy loss, float64)
        from dp_accounting.pld import privacy_loss_mechanism as plm

        peer = plm.GaussianPrivacyLoss(standard_deviation=1.0, sensitivity=float(mu)).get_delta_for_epsilon(float(e))
        assert abs(peer - float(d)) <= 1e-9 * float(d), (peer, d)
        add(
            fam,
            "maxinfo.dp_route_rogers_asymptotic",
            p,
            F(C) * (e**2 * n + n * mpmath.sqrt(d / e)),
            "second-derivation",
            "docs/derivations/maxinfo_route.md section 3 re-done: mu = 2 zeta sqrt(E)/sigma, Balle & Wang's delta(eps) "
            "(checked against dp-accounting's GaussianPrivacyLoss), eps by bisection on the slack equation",
            rel_tol="1e-30",
        )
    return fam


def thm_b_by_root(n: int, m: int, E: int, r: mpmath.mpf, beta: mpmath.mpf) -> mpmath.mpf:
    """inf_{lambda > 0, 4 a (m-1) < 1} K_B(lambda), with n_u = m floor(n/m): K_B is convex in lambda on its
    domain (docs); the minimiser is the root of K_B'(lambda), bracketed between a point where K_B' < 0 and one
    where K_B' > 0 and polished by mpmath.findroot (anderson, then secant)."""
    nu = m * (n // m)
    L = mpmath.log(1 / beta)

    def KB(lam: mpmath.mpf) -> mpmath.mpf:
        a = E * r * (lam**2 + lam) / 2
        abar = a / (1 - 4 * a * (m - 1))
        return L / lam + nu * E * r / 2 + nu * mpmath.expm1(8 * abar) / (8 * lam)

    def dKB(lam: mpmath.mpf) -> mpmath.mpf:
        return mpmath.diff(KB, lam)

    # lambda_max: 4 a (m-1) = 1
    if m > 1:
        lmax = (-1 + mpmath.sqrt(1 + 4 * 2 / (4 * E * r * (m - 1)))) / 2
    else:
        lmax = mpmath.inf
    lo = mpmath.mpf("1e-30")
    hi = lmax * (1 - mpmath.mpf(10) ** -20) if lmax != mpmath.inf else mpmath.mpf(1)
    while lmax == mpmath.inf and dKB(hi) < 0:
        hi *= 2
    assert dKB(lo) < 0 < dKB(hi), (n, m, E, r, beta)
    for _ in range(200):  # bisection to ~1e-60 relative, then findroot polishes
        mid = mpmath.sqrt(lo * hi) if hi / lo > 4 else (lo + hi) / 2
        lo, hi = (mid, hi) if dKB(mid) < 0 else (lo, mid)
    lam = mpmath.findroot(dKB, ((lo + hi) / 2), tol=mpmath.mpf(10) ** -(DPS - 5))
    v = KB(lam)
    # a grid in ln(lambda) finds nothing lower (a brute-force guard on the root)
    for t in mpmath.linspace(-8, 8, 401):
        lg = lam * mpmath.exp(t)
        if lg < lmax:
            assert KB(lg) >= v * (1 - mpmath.mpf(10) ** -45)
    return v


if __name__ == "__main__":
    kv.main(generate, __file__)
