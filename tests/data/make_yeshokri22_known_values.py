"""Regenerate tests/data/yeshokri22_known_values.csv (run from the repository root).

Every value here comes from a computation that does not call the kernel it will test:
* closed forms: the theorem's sympy statement evaluated in exact rational arithmetic, then to 60
  digits (``sympy-exact``);
* Thm 4.3: the plain recurrence of Eq. 148-150 on S (not log S) at 90 digits (``plain-recurrence``);
* the composition baseline at integer orders: dp-accounting 0.6.0's RdpAccountant
  (``dp-accounting``), agreeing with our exact binomial sum to ~1e-15 (its float64 limit).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import mpmath
import sympy as sp

import dptheory
from dptheory.papers.yeshokri22 import kernels as ys

OUT = Path(__file__).with_name("yeshokri22_known_values.csv")
FIG = {"alpha": 10, "eta": "0.02", "lam": 1, "beta": 4, "S_g": 4, "sigma": 2, "n": 50, "b": 2}
OTHER = {"alpha": "2.5", "eta": "0.1", "lam": "0.5", "beta": 2, "S_g": 1, "sigma": "0.7", "n": 11, "b": 2}


def statement(key: str, params: dict, term: str = "") -> str:
    t = dptheory.get(key)
    exact = t.parse(params)
    subs = {t.notation.sym(k): v for k, v in exact.items()}
    expr = t.bound if not term else t.terms[term].expr
    return sp.N(expr.xreplace(subs).doit(), 60).__str__()


def plain43(params: dict) -> str:
    t = dptheory.get("yeshokri22.thm4_3")
    with mpmath.workdps(90):
        a = t.kernel_args(t.parse(params))
        q = mpmath.mpf(a["b"]) / a["n"]
        G = ys.gaussian_step_rdp_mp(a["alpha"], a["eta"], a["S_g"], a["sigma"], a["b"])
        r = (1 - a["eta"] * a["lam"]) ** 2
        S = mpmath.mpf(1)
        for _ in range(a["K"] * (a["n"] // a["b"])):
            S = q * mpmath.exp((a["alpha"] - 1) * G) * S + (1 - q) * S**r
        return mpmath.nstr(mpmath.log(S) / (a["alpha"] - 1), 60)


def dp_accounting_composition(params: dict) -> str:
    import dp_accounting

    t = dptheory.get("yeshokri22.composition")
    a = t.kernel_args(t.parse(params))
    q = float(a["b"]) / a["n"]
    z = float(mpmath.sqrt(2 * a["eta"] * a["sigma"] ** 2) / (a["eta"] * a["S_g"] / a["b"]))
    acc = dp_accounting.rdp.RdpAccountant(orders=[float(a["alpha"])])
    acc.compose(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(z)), a["K"] * (a["n"] // a["b"]))
    return repr(float(acc._rdp[0]))  # the accountant's composed RDP at the one order


def main() -> None:
    rows = []
    for key, extra in [
        ("thm2_1", {"K": 1}),
        ("thm2_1", {"K": 200}),
        ("thm3_3", {"K": 1, "j0": 0}),
        ("thm3_3", {"K": 50, "j0": 0}),
        ("thm3_3", {"K": 50, "j0": 24}),
        ("thm4_2", {"K": 1}),
        ("thm4_2", {"K": 50}),
        ("thm4_2", {"K": 200}),
        ("thmD_4", {"K": 3, "j0": 5}),
        ("balle_first", {"K": 10}),
        ("balle_last", {"K": 10}),
        ("composition_approx", {"K": 50}),
    ]:
        t = dptheory.get(f"yeshokri22.{key}")
        for base, tag in ((FIG, "Figures 1-2 setting"), (OTHER, "second setting (N = 5, n/b not an integer)")):
            p = {k: v for k, v in {**base, **extra}.items() if k in t.params}
            if any(r.status.value == "violated" for r in t.check(p)):
                continue
            rows.append(
                [
                    t.key,
                    "",
                    json.dumps(p),
                    statement(t.key, p),
                    f"{tag}; sympy statement of {t.citation.short()}",
                    "sympy-exact",
                    60,
                ]
            )
    for term in ("term1", "term2"):
        p = {**FIG, "K": 30}
        rows.append(
            [
                "yeshokri22.thm4_2",
                term,
                json.dumps(p),
                statement("yeshokri22.thm4_2", p, term),
                "Figures setting; sympy statement of the term",
                "sympy-exact",
                60,
            ]
        )
    for key in ("thmD_6", "thmD_7"):
        p = {"alpha": 10, "eta": "0.2", "lam": "0.7", "beta": 3, "S_g": 2, "sigma": "1.5", "n": 30, "K": 25}
        rows.append(
            [
                f"yeshokri22.{key}",
                "",
                json.dumps(p),
                statement(f"yeshokri22.{key}", p),
                "full-batch setting; sympy statement",
                "sympy-exact",
                60,
            ]
        )
    p = {"alpha": 8, "eta": "0.05", "lam": "0.01", "L": 1, "sigma_mul": "1.1", "n": 600, "b": 16, "K": 30}
    rows.append(
        [
            "yeshokri22.cor5_3",
            "",
            json.dumps(p),
            statement("yeshokri22.cor5_3", p),
            "DP-SGD-like setting; sympy statement",
            "sympy-exact",
            60,
        ]
    )
    for extra in ({"K": 1}, {"K": 50}, {"alpha": 15, "K": 20}):
        p = {**FIG, **extra}
        rows.append(
            [
                "yeshokri22.thm4_3",
                "",
                json.dumps(p),
                plain43(p),
                "Figure 2b setting; Eq. 148-150 on S at 90 digits",
                "plain-recurrence",
                90,
            ]
        )
    with OUT.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["key", "term", "params", "value", "source", "method", "dps"])
        w.writerows(rows)
    print(f"wrote {len(rows)} rows to {OUT}")


if __name__ == "__main__":
    main()
