"""Independent known values of Lampert & Zakerinia 2026's theorems (``lz26.*``).

Imports nothing of dptheory (tests/test_known_values.py checks it): the helpers the generators share
(``dptheory/testing/known_values_gen.py``: exact inputs, formatting, the writer, routes several papers use) are loaded
by their path. Run from anywhere:

    python dptheory/papers/lz26/known_values.py

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
    add(
        fam,
        "lz26.thm1",
        {"n": 1000, "E": 3, "zeta": "0.5", "sigma": 10, "beta": "0.01", "C": 2},
        F(2) * 3 * 1000 * F("0.25") / 100 * mpmath.log(3 / F("0.01")),
        "transcription",
        "Lampert & Zakerinia 2026, Theorem 1, Eq. (1): C E n zeta^2/sigma^2 ln(E/beta)",
    )
    for D, s, d in [("1", "2", "0.625"), ("0.3", "5", "0.00001")]:
        add(
            fam,
            "lz26.gaussian_calibration",
            {"Delta": D, "sigma": s, "delta": d},
            F(D) / F(s) * mpmath.sqrt(2 * mpmath.log(F("1.25") / F(d))),
            "transcription",
            "Lampert & Zakerinia 2026 Sec. 2 (Dwork & Roth 2014 Thm A.1): eps = (Delta/sigma) sqrt(2 ln(1.25/delta))",
        )

    LZ = "Lampert & Zakerinia 2026 (arXiv 2605.26222), Theorem 1's O(.) with hidden constant C"
    for e, KL, n, E, zeta, sigma, d, beta, C in [
        ("0.05", 10, 5000, 2, 1, 100, "0.05", "0.01", 1),
        ("0", 0, 1, 1, "0.5", 2, "0.5", "0.25", "0.1"),
    ]:
        kk = F(C) * E * n * F(zeta) ** 2 / F(sigma) ** 2 * mpmath.log(E / F(beta))
        p2 = {"emp_risk": e, "KL": KL, "n": n, "E": E, "zeta": zeta, "sigma": sigma, "delta": d, "beta": beta, "C": C}
        c2 = (F(KL) + kk + mpmath.log(1 / (F(d) - F(beta))) + mpmath.log(xi(n))) / n
        src = LZ + " as k, inserted in (G{}) of docs/derivations/pacbayes_maxinfo.md"
        add(fam, "lz26.thm2_pacbayes_asymptotic", p2, kl_inv(F(e), c2), "second-derivation", src.format(2) + "; " + DEF)
        add(fam, "lz26.thm2_pacbayes_asymptotic", p2, c2, "second-derivation", src.format(2), term="rhs")
        p3 = {x: v for x, v in p2.items() if x != "KL"}
        c3 = (kk + mpmath.log(1 / (F(d) - F(beta))) + mpmath.log(xi(n))) / n
        add(fam, "lz26.single_model_asymptotic", p3, kl_inv(F(e), c3), "second-derivation", src.format(3) + "; " + DEF)
    return fam


if __name__ == "__main__":
    kv.main(generate, __file__)
