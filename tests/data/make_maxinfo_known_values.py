"""Regenerate tests/data/maxinfo_known_values.csv (run from the repository root).

Every value comes from a computation that does not call the kernel it tests, or from the team's
max-information survey, whose author computed them with independent scripts; those values and their
provenance are quoted in ``docs/derivations/pacbayes_maxinfo.md`` (kl inverses, xi, the worked example)
and ``docs/derivations/maxinfo_route.md`` (section 4.5: the toys, Theorems A and B):

* ``note``: the survey's stated value, with the number of digits it states (``dps``);
* ``mp-bisection``: plain bisection on the defining formula of kl at 40 digits (not the float64 Newton);
* ``binomial-sum``: xi(n) by its defining binomial sum at 40 digits (not the Q series);
* ``sympy-exact``: the theorem's sympy statement in exact arithmetic, then 40 digits;
* ``mp-findroot``: the crossing of Cor 22's route (x*), mpmath findroot at 40 digits on
  e^(x/4) - e^((1/sqrt 2 - 1/2) x) - 2 = 0.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import mpmath
import sympy as sp

OUT = Path(__file__).with_name("maxinfo_known_values.csv")
PB = "docs/derivations/pacbayes_maxinfo.md"
ROUTE = "docs/derivations/maxinfo_route.md"


def kl_mp(q, p):
    a = 0 if q == 0 else q * mpmath.log(q / p)
    b = 0 if q == 1 else (1 - q) * mpmath.log((1 - q) / (1 - p))
    return a + b


def bisect(q, c, side):
    lo, hi = (q, mpmath.mpf(1)) if side == "upper" else (mpmath.mpf(0), q)
    for _ in range(400):
        mid = (lo + hi) / 2
        inside = kl_mp(q, mid) <= c
        if side == "upper":
            lo, hi = (mid, hi) if inside else (lo, mid)
        else:
            lo, hi = (lo, mid) if inside else (mid, hi)
    return hi if side == "upper" else lo


def xi_sum(n):
    return mpmath.fsum(mpmath.binomial(n, k) * (mpmath.mpf(k) / n) ** k * (1 - mpmath.mpf(k) / n) ** (n - k)
                       for k in range(n + 1))


def main() -> None:
    rows = []

    def add(key, params, value, source, method, dps):
        rows.append({"key": key, "params": json.dumps(params), "value": value, "source": source, "method": method,
                     "dps": dps})

    note_up = [((0, "0.1"), "0.0951625820"), (("0.1", "0.05"), "0.2200786011"), (("0.05", "0.01"), "0.0869021491"),
               (("0.3", "0.2"), "0.6126327240"), (("0.5", "1.0"), "0.9649367475"), (("0.02", "0.001"), "0.0269131729")]
    note_lo = [(("0.1", "0.05"), "0.0312783963"), (("0.3", "0.2"), "0.0817714849")]
    with mpmath.workdps(40):
        for (q, c), v in note_up:
            add("pacbayes.kl_inv_upper", {"q": q, "c": c}, v, f"{PB} reference values", "note", 10)
            ref = mpmath.nstr(bisect(mpmath.mpf(q), mpmath.mpf(c), "upper"), 35)
            add("pacbayes.kl_inv_upper", {"q": q, "c": c}, ref, "defining formula of kl", "mp-bisection", 35)
        for (q, c), v in note_lo:
            add("pacbayes.kl_inv_lower", {"q": q, "c": c}, v, f"{PB} reference values", "note", 10)
            ref = mpmath.nstr(bisect(mpmath.mpf(q), mpmath.mpf(c), "lower"), 35)
            add("pacbayes.kl_inv_lower", {"q": q, "c": c}, ref, "defining formula of kl", "mp-bisection", 35)
        for n, v, d in [(1, "2", 1), (2, "2.5", 2), (8, "4.2450180", 8), (100, "13.2099606", 9),
                        (10000, "125.9991219", 10)]:
            add("xi", {"n": n}, v, f"{PB} reference values", "note", d)
            add("xi", {"n": n}, mpmath.nstr(xi_sum(n), 35), "Maurer 2004 definition", "binomial-sum", 35)
    pb = {"emp_risk": "0.03", "KL": 50, "n": 10000, "delta": "0.05"}
    add("maurer04.kl_2sqrtn:rhs", pb, "0.0058294050", f"{PB} worked example", "note", 8)
    add("maurer04.kl_2sqrtn", pb, "0.0521732", f"{PB} worked example", "note", 6)
    add("pacbayes.pinsker_derived", pb, "0.0839880", f"{PB} worked example", "note", 6)
    add("mcallester99", pb, "0.0866610", f"{PB} worked example", "note", 6)
    # the survey's reference toys: (n, m, E, sigma, beta), zeta = 1
    toys = [((200, 10, 1, 4, "0.05"), "304.7", "31.0"), ((200, 10, 4, 4, "0.05"), "1109.5", "109.8"),
            ((100, 5, 2, 2, "0.1"), "567.9", "100.4")]
    for (n, m, E, s, b), a, bb in toys:
        p = {"n": n, "m": m, "E": E, "zeta": 1, "sigma": s, "beta": b}
        add("maxinfo.thmA_derived", p, a, f"{ROUTE} section 4.5 table", "note", 4)
        add("maxinfo.thmB_derived", p, bb, f"{ROUTE} section 4.5 table", "note", 3)
    # n_u = n = 50000, m = 256 (kernel-level rows, key suffix :n_u)
    for s, a, bb in [(100, "26441", "88.6"), ("316.2277660168379332", "2826", "14.6")]:
        p = {"n_u": 50000, "m": 256, "E": 10, "zeta": 1, "sigma": s, "beta": "0.001"}
        add("maxinfo.thmA_derived:n_u", p, a, f"{ROUTE} section 4.5 (n_u = n)", "note", 5 if len(a) == 5 else 4)
        add("maxinfo.thmB_derived:n_u", p, bb, f"{ROUTE} section 4.5 (n_u = n)", "note", 3)
    # certified lower bounds and plug-in estimates of the toys (statistical; alpha = 0.01, N = 2e5)
    for (n, m, E, s, b), lb, plug, mi in [((200, 10, 1, 4, "0.05"), "8.39", "8.54", "4.85"),
                                          ((200, 10, 4, 4, "0.05"), "17.53", "17.72", "12.5"),
                                          ((100, 5, 2, 2, "0.1"), "16.07", "16.19", "12.5")]:
        p = {"n": n, "m": m, "E": E, "zeta": 1, "sigma": s, "beta": b}
        add("audit.maxinfo:certified_lb", p, lb, f"{ROUTE} section 4.5 table (Monte Carlo, N = 2e5)", "note", 3)
        add("audit.maxinfo:plugin", p, plug, f"{ROUTE} section 4.5 table (Monte Carlo, N = 2e5)", "note", 3)
        add("audit.maxinfo:mi", p, mi, f"{ROUTE} section 4.5 table (Monte Carlo, N = 2e5)", "note", 3)
    # Dwork et al. Thm 20 and Thm 19 (sympy statement, exact)
    e, n_, b = sp.Rational(1, 2), sp.Integer(100), sp.Rational(1, 20)
    v20 = e**2 * n_ / 2 + e * sp.sqrt(n_ * sp.log(2 / b) / 2)
    add("dwork15.thm20", {"eps": "0.5", "n": 100, "beta": "0.05"}, str(sp.N(v20, 35)),
        "Dwork et al. 2015 Thm 20 (nats)", "sympy-exact", 35)
    add("dwork15.thm20:bits", {"eps": "0.5", "n": 100, "beta": "0.05"}, str(sp.N(v20 / sp.log(2), 35)),
        "Dwork et al. 2015 Thm 20 as printed (bits, log2(e) factor)", "sympy-exact", 35)
    with mpmath.workdps(40):
        a = 1 / mpmath.sqrt(2) - mpmath.mpf(1) / 2
        xs = mpmath.findroot(lambda x: mpmath.exp(x / 4) - mpmath.exp(a * x) - 2, 7.8)
        add("dwork15.cor22:x_star", {}, mpmath.nstr(xs, 35), "crossing of the Cor 22 route and exp(-3x/4)",
            "mp-findroot", 35)
    with OUT.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["key", "params", "value", "source", "method", "dps"])
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {len(rows)} rows to {OUT}")


if __name__ == "__main__":
    main()
