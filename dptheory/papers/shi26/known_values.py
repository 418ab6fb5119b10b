"""Independent known values of Shi, Wang, Zhang, Cao 2026's theorems (``shi26.*``).

Imports nothing of dptheory (tests/test_known_values.py checks it): the helpers the generators share
(``dptheory/testing/known_values_gen.py``: exact inputs, formatting, the writer, routes several papers use) are loaded
by their path. Run from anywhere:

    python dptheory/papers/shi26/known_values.py

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
F, add, dpacc_poisson_gaussian_rdp = kv.F, kv.add, kv.dpacc_poisson_gaussian_rdp
Row = dict[str, str]


SHI = "Shi, Wang, Zhang, Cao 2026 (DP-GD on two-layer CNNs)"
SHI_W1 = {
    "C": 1,
    "T": 3,
    "d": "22093898494317162397696",
    "delta": "0.99",
    "eta": "3.15655e-10",
    "kappa": "0.609054",
    "m": 2,
    "mu_norm": "0.453437",
    "n": 1,
    "q": 3,
    "sigma_0": "0.000151995",
    "sigma_p": "1e-08",
}
SHI_W2 = {
    "C": 1,
    "T": 3,
    "c_T1": 1,
    "d": "397743308376983033872384",
    "delta": "0.5",
    "eta": "7.2636e-06",
    "kappa": "2.38144e-06",
    "m": 274,
    "mu_norm": 1000,
    "n": 238,
    "sigma_0": "2.02677e-19",
    "sigma_b": "0.0011628",
    "sigma_p": "1e-08",
}
SHI_W3 = {
    "C": 1,
    "T": 100,
    "c_T1": 1,
    "c_T2": 1,
    "d": "783137182737267291062272",
    "delta": "0.5",
    "eta": "3.01876e-05",
    "kappa": "1.46783e-06",
    "m": 302,
    "mu_norm": 1000,
    "n": 88,
    "sigma_0": "2.29738e-35",
    "sigma_b": "1.53761e-05",
    "sigma_p": "1e-08",
}


def generate() -> list[Row]:
    fam: list[Row] = []
    P: dict[str, Any] = {"T": 1000, "mu_norm": 1, "sigma_p": "0.5", "d": 2000, "sigma_b": "0.01", "n": 1000, "m": 100}
    P2: dict[str, Any] = {"T": 7, "mu_norm": "2.5", "sigma_p": "0.1", "d": 50, "sigma_b": "0.3", "n": 20, "m": 3}
    for base in (P, P2):
        a = {k: F(v) for k, v in base.items()}
        R2 = F("1.5") * a["sigma_p"] ** 2 * a["d"]  # ||xi||^2 <= 1.5 sigma_p^2 d (the proof's event)
        nm = a["n"] * a["m"]
        # one step is a Gaussian mechanism on the 2m filters, each with noise N(0, sigma_b^2 I): RDP alpha D^2/(2 s^2)
        # with D^2 = 2m * (per-filter sensitivity)^2 (Mironov 2017, Prop. 7), composed over T steps
        lemma_D2 = 2 * a["m"] * (a["mu_norm"] + mpmath.sqrt(R2)) ** 2 / nm**2  # as the proof bounds it ...
        lemma_D2_relaxed = 2 * a["m"] * (2 * a["mu_norm"] ** 2 + 2 * R2) / nm**2  # ... then (x+y)^2 <= 2x^2 + 2y^2
        zero_D2 = 2 * a["m"] * (a["mu_norm"] ** 2 + R2) / nm**2  # one record removed, mu orthogonal to xi
        repl_D2 = 2 * a["m"] * (a["mu_norm"] ** 2 + 4 * R2) / nm**2  # signal parts differ <= ||mu||, noise <= 2R
        for alpha in ("2", "7.5"):
            p = {"alpha": alpha, **base}
            al = F(alpha)
            src = (
                f"{SHI}, Lemma 39's proof re-done: 2m filters with independent N(0, sigma_b^2 I) noise, Gaussian "
                "RDP alpha Delta^2/(2 sigma_b^2) per step (Mironov 2017 Prop. 7), T steps; "
            )
            add(
                fam,
                "shi26.lemma39_rdp",
                p,
                a["T"] * al * lemma_D2_relaxed / (2 * a["sigma_b"] ** 2),
                "second-derivation",
                src + "Delta^2 = 2m (2||mu||^2 + 2 R^2)/(nm)^2, R^2 = 1.5 sigma_p^2 d",
            )
            add(
                fam,
                "shi26.gaussian_rdp_zero_out",
                p,
                a["T"] * al * zero_D2 / (2 * a["sigma_b"] ** 2),
                "second-derivation",
                src + "zero-out Delta^2 = 2m (||mu||^2 + R^2)/(nm)^2 (docs/derivations/shi26_lemma39.md 3(a))",
            )
            add(
                fam,
                "shi26.gaussian_rdp_replace",
                p,
                a["T"] * al * repl_D2 / (2 * a["sigma_b"] ** 2),
                "second-derivation",
                src + "replace-one Delta^2 = 2m (||mu||^2 + 4 R^2)/(nm)^2 (docs/derivations/shi26_lemma39.md 3(a))",
            )
            z = float(a["sigma_b"] / mpmath.sqrt(lemma_D2_relaxed))
            add(
                fam,
                "shi26.lemma39_rdp",
                p,
                dpacc_poisson_gaussian_rdp(float(al), 1.0, z, int(base["T"])),
                "peer",
                f"dp-accounting {version('dp-accounting')} GaussianDpEvent(sigma_b/Delta) composed T times, with "
                "Lemma 39's Delta^2 = 2m (2||mu||^2 + 3 sigma_p^2 d)/(nm)^2",
                rel_tol="1e-12",
            )
            assert lemma_D2 <= lemma_D2_relaxed
        for d_ in ("0.00001", "0.5"):
            p = {**base, "delta": d_}
            A = a["T"] * (2 * a["mu_norm"] ** 2 + 3 * a["sigma_p"] ** 2 * a["d"]) / (a["sigma_b"] ** 2 * nm * a["n"])
            Lg = mpmath.log(2 / F(d_))

            def g(lam: mpmath.mpf, A: mpmath.mpf = A, Lg: mpmath.mpf = Lg) -> mpmath.mpf:
                return lam * A + Lg / (lam - 1)

            lam = mpmath.findroot(lambda x: mpmath.diff(g, x), 1 + mpmath.sqrt(Lg / A) * mpmath.mpf("1.3"))
            add(
                fam,
                "shi26.lemma39",
                p,
                g(lam),
                "second-derivation",
                f"{SHI}, Lemma 39 as printed, minimised over the order lambda > 1 numerically (findroot on g'), not "
                "by the closed form",
                rel_tol="1e-40",
            )
            for lam_ in ("1.5", "40"):
                add(
                    fam,
                    "shi26.lemma39_at_order",
                    {"lam": lam_, **p},
                    g(F(lam_)),
                    "transcription",
                    f"{SHI}, Lemma 39 as printed: T lam (2||mu||^2 + 3 sigma_p^2 d)/(sigma_b^2 n^2 m) + log(2/delta)/"
                    "(lam - 1)",
                )
    for C4, m, mu, sp_, d, n, dl in [(1000, 100, 1, "0.5", 2000, 1000, "0.00001"), (1, 2, 3, "1", 1, 4, "0.5")]:
        M = max(F(mu) ** 2, F(sp_) ** 2 * d)
        add(
            fam,
            "shi26.thm3_privacy",
            {"C4": C4, "m": m, "mu_norm": mu, "sigma_p": sp_, "d": d, "n": n, "delta": dl},
            F(C4) * m**3 * M**2 / (n**2 * F(mu) ** 4) * mpmath.log(2 / F(dl)),
            "transcription",
            f"{SHI}, Theorem 3: C4 m^3 max^2{{||mu||^2, sigma_p^2 d}}/(n^2 ||mu||^4) log(2/delta)",
        )
    G = {
        "sigma_p": "0.5",
        "sigma_0": "0.001",
        "kappa": "0.05",
        "q": 3,
        "m": 100,
        "n": 1000,
        "d": 2000,
        "eta": "0.1",
        "c_T1": 1,
    }
    a = {k: F(v) for k, v in G.items()}
    T1 = (
        a["c_T1"]
        * a["kappa"] ** (a["q"] - 1)
        * a["m"]
        * a["n"]
        / (a["eta"] * a["sigma_0"] ** (a["q"] - 2) * (a["sigma_p"] * mpmath.sqrt(a["d"])) ** a["q"])
    )
    add(
        fam,
        "shi26.T1_gd",
        G,
        T1,
        "transcription",
        f"{SHI}, Theorem 1 / Stage 1: T1 = kappa^(q-1) m n/(eta sigma_0^(q-2) (sigma_p sqrt d)^q) (sqrt reading, F4)",
    )
    T2 = T1 + 36 * a["n"] * a["m"] ** 2 / (a["eta"] * a["sigma_p"] ** 2 * a["d"])
    add(fam, "shi26.T2_gd", G, T2, "transcription", f"{SHI}, Theorem 1: T2 = T1 + 36 n m^2/(eta sigma_p^2 d)")
    Gs = {"mu_norm": 1, **G, "eps": "0.01", "c_Ts": 2}
    Ts = T1 + 2 * a["m"] ** 3 * a["n"] / (a["eta"] * F("0.01") * 1)
    add(fam, "shi26.Tstar_gd", Gs, Ts, "transcription", f"{SHI}, Theorem 1: T* = T1 + c m^3 n/(eta eps ||mu||^2)")
    Dp = {"mu_norm": 1, "sigma_p": "0.5", "sigma_b": "0.01", "kappa": "0.05", "d": 2000, "eta": "0.1", "c_T1": 1}
    b = {k: F(v) for k, v in Dp.items()}
    T1d = b["kappa"] ** 2 / (b["eta"] ** 2 * b["sigma_b"] ** 2 * min(b["mu_norm"] ** 2, b["sigma_p"] ** 2 * b["d"]))
    add(
        fam,
        "shi26.T1_dp",
        Dp,
        T1d,
        "transcription",
        f"{SHI}, Theorem 2: T1 = kappa^2/(eta^2 sigma_b^2 min{{||mu||^2, sigma_p^2 d}})",
    )
    Dps = {**Dp, "m": 100, "n": 1000, "eps": "0.1", "c_Ts": 3}
    add(
        fam,
        "shi26.Tstar_dp",
        Dps,
        T1d + 3 * 100**2 * 1000 / (b["eta"] * F("0.1") * max(b["mu_norm"] ** 2, b["sigma_p"] ** 2 * b["d"])),
        "transcription",
        f"{SHI}, Theorem 2: T* = T1 + c n m^2/(eta eps max{{||mu||^2, sigma_p^2 d}})",
    )
    add(
        fam,
        "shi26.T2_dp",
        {"mu_norm": 2, "m": 100, "eta": "0.1", "c_T2": 3},
        F(3) * 100 / (F("0.1") * 4),
        "transcription",
        f"{SHI}, Theorem 3: T2 = c m/(eta ||mu||^2)",
    )

    # the bounds that are printed constants (Theorems 1-3): the points satisfy Condition 1 (GD) or Condition 2
    # (DP-GD) with C = 1 (found by a feasibility search and typed in here; the test fails if the theorem refuses
    # them); the value is the constant printed in the theorem
    add(
        fam,
        "shi26.thm1_test_loss",
        SHI_W1,
        F("0.1"),
        "transcription",
        f"{SHI}, Theorem 1: test loss L_D >= 0.1 for all t <= T* (constant printed in the theorem)",
    )
    add(
        fam,
        "shi26.thm1_test_error",
        {**SHI_W1, "C3": "1e19"},
        F("0.11"),
        "transcription",
        f"{SHI}, Theorem 1: test error R_D >= 0.11 for T2 <= t <= T* (constant printed in the theorem)",
    )
    add(
        fam,
        "shi26.thm2_train_loss",
        {**SHI_W2, "eps": "0.1"},
        F("0.1"),
        "transcription",
        f"{SHI}, Theorem 2: L_S(W^(T*)) <= eps (here eps = 0.1) with probability >= 1 - 6 delta",
    )
    add(
        fam,
        "shi26.thm3_test_error",
        SHI_W3,
        F("0.01"),
        "transcription",
        f"{SHI}, Theorem 3: R_D(W^(T2)) <= 0.01 (constant printed in the theorem)",
    )
    return fam


if __name__ == "__main__":
    kv.main(generate, __file__)
