"""Independent known values of the PAC-Bayes bounds (``pacbayes.*``, ``maurer04.*``, ``mcallester99``, ``dr18.*``).

Imports nothing of dptheory (tests/test_known_values.py checks it): the helpers the generators share
(``dptheory/testing/known_values_gen.py``: exact inputs, formatting, the writer, routes several papers use) are loaded
by their path. Run from anywhere:

    python dptheory/papers/pacbayes/known_values.py

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
F, add, kl_inv, xi = kv.F, kv.add, kv.kl_inv, kv.xi
Row = dict[str, str]


def generate() -> list[Row]:
    fam: list[Row] = []
    DEF = kv.KL_INV_SOURCE
    for q, c in [("0", "0.1"), ("0.1", "0.05"), ("0.3", "0.2"), ("0.5", "1"), ("1", "0.5"), ("0.02", "0.001")]:
        add(fam, "pacbayes.kl_inv_upper", {"q": q, "c": c}, kl_inv(F(q), F(c)), "brute-force", DEF)
    for q, c in [("0.1", "0.05"), ("0.3", "0.2"), ("1", "0.5"), ("0", "2")]:
        add(fam, "pacbayes.kl_inv_lower", {"q": q, "c": c}, kl_inv(F(q), F(c), upper=False), "brute-force", DEF)

    M04 = "Maurer 2004 (arXiv cs/0411099): kl(emp||R) <= (KL + ln(xi(n)/delta))/n, xi(n) summed exactly"
    for e, KL, n, d in [
        ("0.03", 50, 10000, "0.05"),
        ("0.1", 5, 1000, "0.01"),
        ("0", 0, 2, "0.5"),
        ("0.5", 1, 37, "0.1"),
    ]:
        p = {"emp_risk": e, "KL": KL, "n": n, "delta": d}
        c = (F(KL) + mpmath.log(xi(n) / F(d))) / n
        add(fam, "maurer04.kl", p, kl_inv(F(e), c), "brute-force", M04 + "; " + DEF)
        add(fam, "maurer04.kl", p, c, "transcription", M04, term="rhs")
        c2 = (F(KL) + mpmath.log(2 * mpmath.sqrt(n) / F(d))) / n
        add(
            fam, "maurer04.kl_2sqrtn", p, kl_inv(F(e), c2), "brute-force", "Maurer 2004 with xi(n) <= 2 sqrt(n); " + DEF
        )
        add(fam, "maurer04.kl_2sqrtn", p, c2, "transcription", "Maurer 2004 with xi(n) <= 2 sqrt(n)", term="rhs")
        add(
            fam,
            "pacbayes.pinsker_derived",
            p,
            F(e) + mpmath.sqrt(c2 / 2),
            "transcription",
            "Pinsker kl(q||p) >= 2 (p - q)^2 applied to Maurer's 2 sqrt(n) budget: emp + sqrt(c/2)",
        )
        add(
            fam,
            "mcallester99",
            p,
            F(e) + mpmath.sqrt((F(KL) + mpmath.log(1 / F(d)) + mpmath.log(n) + 2) / (2 * n - 1)),
            "transcription",
            "McAllester 1999 Thm 1 (as recalled in docs/derivations/pacbayes_maxinfo.md)",
        )

    DRS = "Dziugaite & Roy 2018 (arXiv 1802.09583), the eps-DP prior bound (m examples)"
    for e, KL, m, d, eps in [
        ("0", 0, 100, "0.000000001", "0.5"),
        ("0", 0, 5, "0.000000001", 2),
        ("0.1", 3, 1000, "0.05", "0.1"),
        ("0.2", 10, 50000, "0.01", "0.05"),
    ]:
        p = {"emp_risk": e, "KL": KL, "m": m, "delta": d, "eps": eps}
        c = (F(KL) + mpmath.log(2 * mpmath.sqrt(m)) + 2 * max(F(eps) ** 2 * m, mpmath.log(3 / F(d)))) / m
        add(fam, "dr18.dp_prior", p, kl_inv(F(e), c), "brute-force", DRS + "; " + DEF)
        add(fam, "dr18.dp_prior", p, c, "transcription", DRS, term="rhs")
        # the max-information variant: Dwork Thm 20 at beta = delta/2 (k = eps^2 m/2 + eps sqrt(m ln(4/delta)/2))
        # plugged into G2 at confidence delta: (KL + k + ln(1/(delta - delta/2)) + ln xi(m))/m
        k = F(eps) ** 2 * m / 2 + F(eps) * mpmath.sqrt(m * mpmath.log(2 / (F(d) / 2)) / 2)
        cv = (F(KL) + k + mpmath.log(1 / (F(d) - F(d) / 2)) + mpmath.log(xi(m))) / m
        src = (
            "second derivation of the DR18 max-information variant: Dwork et al. 2015 Thm 20 at beta = delta/2, "
            "then (G2) of docs/derivations/pacbayes_maxinfo.md at confidence delta"
        )
        add(fam, "pacbayes.dr18_maxinfo_variant_derived", p, kl_inv(F(e), cv), "second-derivation", src + "; " + DEF)
        add(fam, "pacbayes.dr18_maxinfo_variant_derived", p, cv, "second-derivation", src, term="rhs")

    G_SRC = "docs/derivations/pacbayes_maxinfo.md, (G{}) as written there"
    for e, KL, n, d, beta, k in [
        ("0.05", 20, 5000, "0.05", "0.01", 30),
        ("0", 0, 1, "0.5", "0.25", 1),
        ("0.3", 2, 64, "0.1", "0.0001", "7.5"),
    ]:
        p2 = {"emp_risk": e, "KL": KL, "n": n, "delta": d, "beta": beta, "k": k}
        c2 = (F(KL) + F(k) + mpmath.log(1 / (F(d) - F(beta))) + mpmath.log(xi(n))) / n
        add(fam, "pacbayes.g2_maxinfo_prior_derived", p2, kl_inv(F(e), c2), "brute-force", G_SRC.format(2) + "; " + DEF)
        add(fam, "pacbayes.g2_maxinfo_prior_derived", p2, c2, "transcription", G_SRC.format(2), term="rhs")
        p3 = {kk: v for kk, v in p2.items() if kk != "KL"}
        c3 = (F(k) + mpmath.log(1 / (F(d) - F(beta))) + mpmath.log(xi(n))) / n
        add(fam, "pacbayes.g3_single_model_derived", p3, kl_inv(F(e), c3), "brute-force", G_SRC.format(3) + "; " + DEF)
        add(fam, "pacbayes.g3_single_model_derived", p3, c3, "transcription", G_SRC.format(3), term="rhs")
        add(
            fam,
            "pacbayes.g1_hoeffding_maxinfo_derived",
            p3,
            F(e) + mpmath.sqrt((F(k) + mpmath.log(2 / (F(d) - F(beta)))) / (2 * n)),
            "transcription",
            G_SRC.format(1) + " (Hoeffding + the transfer theorem)",
        )
    return fam


if __name__ == "__main__":
    kv.main(generate, __file__)
