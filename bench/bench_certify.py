"""Benchmark: cost of a certified value (arb enclosure of the compiled statement, dps = 50) relative to
the current mpmath evaluation on the same points (issue 11 target: at most 10x).

For every registered theorem with a closed-form bound, a few valid points are drawn with the
hypothesis strategy of the contract suite (derandomised: the same points every run, SMALL ranges);
then, on the same points, this run times

* ``t.evaluate(p, dps=50)`` (conditions + hand-written mpmath kernel; what users call today),
* ``t.mp`` alone at 60 working digits (the bare kernel),
* ``enclose(compiled, p, dps=50)`` (arb, Ziv loop, outward-rounded result).

Per theorem family (the key's prefix) it prints the summed times and the ratio enclose / evaluate
and enclose / bare kernel. A second table times the hand-written ``arb=`` overrides (recurrences,
finite sums and kl inversions: Thm 4.3, the subsampled Gaussian at integer orders and, rows "frac", at
fractional orders (series with the CVZ tail bound), the composition baseline, WBK19, the ten kl-inversion keys;
xi(n) on balls is cached per (n, precision), so repeats reuse it) at
fixed points (paper settings and each kernel's regimes) against their mpmath kernel at 60 digits
(``--overrides``: that table only). Every enclosure is also checked to contain the mpmath value (to
its own 60-digit rounding). No assertion on time. Run: ``PYTHONPATH=. python bench/bench_certify.py``.
"""

from __future__ import annotations

import math
import sys
import time
from collections import defaultdict

import mpmath
import sympy as sp

from dptheory.core import REGISTRY
from dptheory.core.compile import compile_expr, enclose
from dptheory.core.errors import NumericalFailure

SMALL = {"n": (2, 300, True), "K": (1, 300, True), "T": (1, 10_000, True)}
POINTS_PER_THEOREM = 4
REPEAT = 3


def draw_points(t, k: int) -> list[dict[str, sp.Rational]]:
    """Valid points from the contract suite's strategy, derandomised (same points every run)."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from dptheory.testing.strategies import theorem_strategy

    if t.witnesses:
        strat = st.sampled_from([t.parse(w) for w in t.witnesses])
    else:
        strat = theorem_strategy(t, ranges={**SMALL, **t.sample})
    pts: list[dict[str, sp.Rational]] = []

    @settings(max_examples=k, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(strat)
    def collect(p: dict[str, sp.Rational]) -> None:
        if p not in pts:
            pts.append(p)

    collect()
    return pts[:k]


def best_time(f, repeat: int = REPEAT) -> float:
    best = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return best


OVERRIDE_POINTS = {
    "yeshokri22.thm4_3": [
        dict(alpha=15, eta="1/50", lam=1, beta=4, S_g=4, sigma=2, n=50, b=2, K=4),  # Figure 2, a < 1
        dict(alpha=10, eta="1/50", lam=1, beta=4, S_g=4, sigma=2, n=50, b=2, K=200),  # fixed-point shortcut
        dict(alpha=30, eta="1/50", lam=1, beta=4, S_g=4, sigma=2, n=50, b=2, K=200),  # a > 1, linear regime
        dict(alpha=2, eta="1/1000", lam="1/2", beta=4, S_g=4, sigma=2, n=400, b=1, K=5),  # 2000 steps iterated
    ],
    "yeshokri22.composition": [
        dict(alpha=15, eta="1/50", S_g=4, sigma=2, n=50, b=2, K=4),
        dict(alpha=256, eta="1/50", S_g=4, sigma=2, n=50, b=2, K=200),
    ],
    "rdp.subsampled_gaussian": [dict(alpha=2, q="1/100", z="11/10", T=1000), dict(alpha=64, q="1/1000", z="1/2", T=10),
                                dict(alpha=1024, q="1/256", z=1, T=10**4)],
    "rdp.subsampled_gaussian frac": [dict(alpha="2.5", q="1/100", z="11/10", T=1000),
                                     dict(alpha="1.0001", q="1/100000", z=50, T=1),
                                     dict(alpha="256.5", q="1/1000", z="4/5", T=10),
                                     dict(alpha="1000.5", q="1/256", z=1, T=10**4),
                                     dict(alpha="3.5", q="1/1000000", z=20000, T=1)],
    "yeshokri22.composition frac": [dict(alpha="16.88", eta="1/50", S_g=4, sigma=2, n=50, b=2, K=50)],
    "rdp.sampled_wor_gaussian": [dict(alpha=2, q="1/100", z="11/10", T=1000), dict(alpha="7.25", q="1/20", z=1, T=7),
                                 dict(alpha=1024, q="1/256", z=1, T=10**4)],
    # kl inversions (bisection with certified bracket ends; numerics/kl.py): interior, tiny and huge budgets
    "pacbayes.kl_inv_upper": [dict(q="1/10", c="1/2"), dict(q="1/3", c="1/10000"), dict(q="1/1000", c=20)],
    "pacbayes.kl_inv_lower": [dict(q="1/10", c="1/2"), dict(q="1/2", c=1000), dict(q="3/4", c="1/10000")],
    "maurer04.kl": [dict(emp_risk="1/10", KL=5, n=1000, delta="1/20"),
                    dict(emp_risk=0, KL=50, n=100000, delta="1/1000")],
    "maurer04.kl_2sqrtn": [dict(emp_risk="1/10", KL=5, n=1000, delta="1/20")],
    "dr18.dp_prior": [dict(emp_risk="1/10", KL=5, m=1000, delta="1/20", eps="1/10")],
    "pacbayes.dr18_maxinfo_variant_derived": [dict(emp_risk="1/10", KL=5, m=1000, delta="1/20", eps="1/10")],
    "pacbayes.g2_maxinfo_prior_derived": [dict(emp_risk="1/10", KL=5, n=1000, delta="1/20", beta="1/100", k=3)],
    "pacbayes.g3_single_model_derived": [dict(emp_risk="1/10", n=1000, delta="1/20", beta="1/100", k=3)],
    "lz26.thm2_pacbayes_asymptotic": [dict(emp_risk="1/10", KL=5, n=1000, E=2, zeta=1, sigma=100, delta="1/20",
                                           beta="1/100", C=1)],
    "lz26.single_model_asymptotic": [dict(emp_risk="1/10", n=1000, E=2, zeta=1, sigma=100, delta="1/20",
                                          beta="1/100", C=1)],
}


def overrides() -> int:
    """Certified cost of the arb overrides relative to their mpmath kernels (same points, dps 50)."""
    bad = 0
    print(f"{'override':<38} {'points':>6} {'bare mp ms':>11} {'enclose ms':>11} {'enc/bare':>9}")
    for key, raw in OVERRIDE_POINTS.items():
        t = REGISTRY.get(key.split()[0])  # "frac": the same theorem at fractional orders
        kern = t.kernels()
        tb = tc = 0.0
        for r in raw:
            p = t.parse(r)

            def bare(p=p, t=t, kern=kern):
                with mpmath.workdps(60):
                    return kern.mp(t.kernel_args(p))

            tb += best_time(bare)
            tc += best_time(lambda p=p, kern=kern: enclose(kern.arb, p, dps=50))
            enc = enclose(kern.arb, p, dps=50)
            with mpmath.workdps(80):
                ref = bare()
                slack = abs(ref) * mpmath.mpf(10) ** -55
                if not (enc.lo - slack <= ref <= enc.hi + slack):
                    bad += 1
                    print(f"  MISMATCH {key} at {r}: enclosure {enc.lo_str}..{enc.hi_str}, mpmath {ref}")
        n = len(raw)
        print(f"{key:<38} {n:>6} {1e3 * tb / n:>11.3f} {1e3 * tc / n:>11.3f} {tc / tb:>9.2f}")
    return bad


def main() -> int:
    if "--overrides" in sys.argv:
        return 1 if overrides() else 0
    fam_eval: dict[str, float] = defaultdict(float)
    fam_bare: dict[str, float] = defaultdict(float)
    fam_enc: dict[str, float] = defaultdict(float)
    fam_n: dict[str, int] = defaultdict(int)
    worst: list[tuple[float, str]] = []
    bad = 0
    for t in sorted(REGISTRY.theorems(), key=lambda t: t.key):
        if t.bound is None:
            continue
        syms = {p: t.notation.sym(p) for p in t.params}
        ints = frozenset(p for p in t.params if t.notation[p].domain.is_integer)
        c = compile_expr(t.bound, syms, integers=ints)
        pts = draw_points(t, POINTS_PER_THEOREM)
        if not pts:
            print(f"  {t.key}: no valid point drawn, skipped")
            continue
        fam = t.key.split(".")[0]
        te = tb = tc = 0.0
        timed = 0
        for p in pts:
            try:
                enclose(c, p, dps=50)
            except NumericalFailure as exc:  # e.g. Lemma D.3 at k = j = 0: 1/0 in the statement
                print(f"  {t.key} at {p}: not certified ({str(exc)[:60]}...), point skipped")
                continue
            timed += 1
            te += best_time(lambda p=p, t=t: t.evaluate(p, dps=50))

            def bare(p=p, t=t):
                with mpmath.workdps(60):
                    return t.mp(t.kernel_args(p))

            tb += best_time(bare)
            tc += best_time(lambda p=p, c=c: enclose(c, p, dps=50))
            enc = enclose(c, p, dps=50)
            ref = t.evaluate(p, dps=60).value
            with mpmath.workdps(80):
                slack = abs(ref) * mpmath.mpf(10) ** -58
                if not (enc.lo - slack <= ref <= enc.hi + slack):
                    bad += 1
                    print(f"  MISMATCH {t.key} at {p}: enclosure {enc}, mpmath {ref}")
        fam_eval[fam] += te
        fam_bare[fam] += tb
        fam_enc[fam] += tc
        fam_n[fam] += timed
        if timed:
            worst.append((tc / te, t.key))
    print(f"{'family':<14} {'points':>6} {'evaluate ms':>12} {'bare mp ms':>11} {'enclose ms':>11} "
          f"{'enc/eval':>9} {'enc/bare':>9}")
    for fam in sorted(fam_n):
        n = fam_n[fam]
        print(f"{fam:<14} {n:>6} {1e3 * fam_eval[fam] / n:>12.3f} {1e3 * fam_bare[fam] / n:>11.3f} "
              f"{1e3 * fam_enc[fam] / n:>11.3f} {fam_enc[fam] / fam_eval[fam]:>9.2f} "
              f"{fam_enc[fam] / fam_bare[fam]:>9.2f}")
    worst.sort(reverse=True)
    print("largest enclose/evaluate ratios per theorem: " + ", ".join(f"{k} {r:.2f}" for r, k in worst[:5]))
    print("target (issue 11): enclose at most 10x the mpmath evaluation; every enclosure contains the "
          f"mpmath value: {'yes' if not bad else f'NO ({bad} mismatches)'}")
    bad += overrides()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
