"""Shrinking a confirmed counterexample: one parameter at a time to small integers, reals of 1..6
significant digits or fractions with small denominators, keeping each change that stays in the region
(and in the search box) and still violates the claim at 30 digits (see :mod:`dptheory.verify.search`)."""

from __future__ import annotations

import math
from fractions import Fraction

import sympy as sp

from dptheory.core.notation import format_rational
from dptheory.verify.evaluator import MP_COST, SCREEN, Evaluator

__all__ = ["shrink"]


def _simpler_ints(v: int, lo_hint: int = 0) -> list[int]:
    cands = {0, 1, 2, 3, 4, 5, 10, v // 2, v - 1, v - 2}
    for k in (1, 2):
        if v > 0:
            e = 10 ** max(0, len(str(v)) - k)
            cands.add(round(v / e) * e)
            cands.add((v // e) * e)
    return sorted(
        (c for c in cands if lo_hint <= c < v or (c != v and len(str(c)) < len(str(v)))), key=lambda c: (len(str(c)), c)
    )


def _simpler_reals(x: sp.Rational) -> list[sp.Rational]:
    cur = len(format_rational(x))
    f = float(x)
    cands: set[sp.Rational] = set()
    if f != 0:
        for k in range(1, 7):
            cands.add(sp.Rational(f"{f:.{k}g}"))
            e = math.floor(math.log10(abs(f))) - k + 1
            step = sp.Rational(10) ** e
            cands.add(sp.floor(x / step) * step)
            cands.add(sp.ceiling(x / step) * step)
        for den in (1, 2, 3, 4, 5, 10, 100):
            fr = Fraction(int(x.p), int(x.q)).limit_denominator(den)
            cands.add(sp.Rational(fr.numerator, fr.denominator))
    cands.discard(x)
    simpler = (c for c in cands if len(format_rational(c)) < cur)
    return sorted(simpler, key=lambda c: (len(format_rational(c)), abs(c - x)))


def shrink(ev: Evaluator, exact: dict[str, sp.Rational], max_tries: int) -> dict[str, sp.Rational]:
    """Simplify a confirmed counterexample one parameter at a time (see the module docstring)."""
    cur = dict(exact)
    tries = 0  # in budget units: the evaluator's cost (mpmath sides count MP_COST) plus MP_COST per confirmation
    start = ev.cost
    tries_mp = 0
    for _ in range(4):
        changed = False
        for c in ev.space.coords:
            v = cur[c.name]
            if c.kind == "choice":
                cands = [x for x in c.choices[:12] if x != v and len(format_rational(x)) <= len(format_rational(v))]
            elif c.kind == "int":
                cands = [sp.Integer(x) for x in _simpler_ints(int(v))]
            else:
                cands = _simpler_reals(v)
            if c.kind != "choice" and c.lo <= float(v) <= c.hi:  # stay in the search box the strategy reports
                cands = [x for x in cands if c.lo <= float(x) <= c.hi]
            for cand in cands:
                if tries >= max_tries:
                    return cur
                trial = {**cur, c.name: cand}
                m = ev.margin_one(trial)
                tries = ev.cost - start + tries_mp
                if math.isnan(m) or m > SCREEN:
                    continue
                tries_mp += MP_COST
                out = ev.confirm(trial)
                if out is not None and out.holds is False:
                    cur = trial
                    changed = True
                    break
        if not changed:
            break
    return cur
