"""Regenerate tests/data/hand_kernel_values.csv: the hand-written kernels' values, kept as known values.

Until the statement compiler (dptheory.core.compile), every closed-form theorem carried hand-written
mpmath and float64 kernels beside its sympy statement. They were written separately from the
statements and are an independent computation of the same numbers; when they were removed their
values were recorded here, at seeded strategy points (10 per theorem, the contract suite's ranges),
so that the compiled statements must keep reproducing them (tests/test_compile.py). This script only
works in a checkout of commit 9d9c639 (``git worktree add /tmp/old 9d9c639``), run from there::

    PYTHONPATH=/tmp/old python tests/data/make_hand_kernel_values.py out.csv

(the ``source`` column is then appended). Do not regenerate it from the current tree: that would
compare the compiled kernels with themselves.
"""
import csv
import sys
from fractions import Fraction

import mpmath
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dptheory.core import REGISTRY, Status
from dptheory.testing.strategies import theorem_strategy

SMALL = {"n": (2, 300, True), "K": (1, 300, True), "T": (1, 10_000, True)}
out = csv.writer(open(sys.argv[1], "w", newline=""))
out.writerow(["key", "term", "params", "mp60", "np_float64"])
for t in sorted(REGISTRY.theorems(), key=lambda t: t.key):
    if t.bound is None:
        continue
    strat = st.sampled_from([t.parse(w) for w in t.witnesses]) if t.witnesses \
        else theorem_strategy(t, ranges={**SMALL, **t.sample})
    pts: list = []

    @settings(max_examples=10, derandomize=True, database=None, suppress_health_check=list(HealthCheck), deadline=None)
    @given(strat)
    def collect(p, pts=pts):
        pts.append(p)

    collect()
    seen = set()
    for p in pts:
        fl = {k: float(v) for k, v in p.items()}
        binary = {k: Fraction(v) for k, v in fl.items()}
        if not all(r.status is Status.HOLDS for r in t.check(binary)):
            continue
        key = tuple(sorted((k, str(v)) for k, v in binary.items()))
        if key in seen:
            continue
        seen.add(key)
        ex = t.parse(binary)
        for term in [None, *t.terms]:
            k = t if term is None else t.terms[term]
            if k.mp is None:
                continue
            with mpmath.workdps(70):
                v = k.mp(t.kernel_args(ex))
                mp60 = mpmath.nstr(mpmath.mpf(v), 60) if not isinstance(v, mpmath.mpc) else mpmath.nstr(v.real, 60)
            npv = ""
            if k.np is not None:
                try:
                    r = t.evaluate_np(fl, term=term)
                    npv = repr(float(r))
                except Exception as exc:
                    npv = f"error: {exc}"
            out.writerow([t.key, term or "", ";".join(f"{a}={b}" for a, b in key), mp60, npv])
    print(t.key, len(seen), file=sys.stderr)
