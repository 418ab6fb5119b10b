"""Generic contracts every registered theorem must satisfy (a new theorem gets these for free).

* finite on its valid region (+inf only where the theorem says it is the true value);
* the float64 kernel agrees with the mpmath kernel to 1e-10 relative wherever both are finite;
* every declared hand-written kernel (override) agrees with the compiled statement where both exist;
* monotone in every parameter where the theorem states it;
* the mpmath kernel agrees with the sympy statement evaluated exactly (closed forms);
* out-of-domain points are rejected with the violated condition named;
* LaTeX renders for the bound and every condition; declared limits agree with far-out evaluation.

Points are drawn by strategies generated from each theorem's own conditions.
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import assume, given, note, settings
from hypothesis import strategies as st

import dptheory
from dptheory.core import REGISTRY, ConditionViolated, Status
from dptheory.core.conditions import Condition
from dptheory.testing.strategies import point_strategy, theorem_strategy

THEOREMS = sorted(REGISTRY.theorems(), key=lambda t: t.key)
KEYS = [t.key for t in THEOREMS]
# one test per condition of every theorem (hundreds): a dozen examples each keeps the suite fast
VIOLATION_EXAMPLES = min(12, settings().max_examples)
#: values put in place of a parameter to leave its domain (positive, nonnegative, at least 1), where a domain condition
#: is tested (a whole-number condition gets the valid value plus 1/2 instead)
OUT_OF_DOMAIN = ("0", "-1", "-1/2", "1/2")
# keep mpmath work per example bounded (Thm 4.3 iterates K*floor(n/b) steps at 40 digits)
SMALL = {"n": (2, 300, True), "m": (1, 300, True), "K": (1, 300, True), "T": (1, 10_000, True)}  # sums run O(n), O(m)


def _ranges(t):
    return {**SMALL, **t.sample}


def _points(t, ranges=None):
    """Valid points of a theorem: its witnesses when it declares them (thin valid regions), else the
    strategy generated from its conditions."""
    if t.witnesses:
        return st.sampled_from([t.parse(w) for w in t.witnesses])
    return theorem_strategy(t, ranges=ranges if ranges is not None else _ranges(t))


def test_a_point_strategy_renders_in_one_short_line():
    """Hypothesis renders the strategy a test draws from into a note on every rejected draw (once per strategy
    object), and each test here builds its own: the rendering must be one short line naming the theorem, not its
    conditions and bounds field by field (which took about a tenth of an out-of-domain test's time)."""
    text = repr(_points(dptheory.get("yeshokri22.thm4_2")))
    assert "yeshokri22.thm4_2" in text and "\n" not in text and len(text) < 200, text


@pytest.mark.parametrize("key", [t.key for t in THEOREMS if t.witnesses])
def test_witnesses_are_valid(key):
    t = dptheory.get(key)
    for w in t.witnesses:
        assert all(r.status is Status.HOLDS for r in t.check(w)), (key, w)


def _floats(p):
    return {k: float(v) for k, v in p.items()}


@pytest.mark.parametrize("key", KEYS)
def test_finite_on_valid_region(key):
    t = dptheory.get(key)

    @given(_points(t))
    def run(p):
        note(str(p))
        v = t.evaluate(p, dps=30).value
        assert not mpmath.isnan(v)
        if mpmath.isinf(v):
            assert t.infinite_when, f"{key} returned infinity at {p} but declares no such case"
        else:
            assert mpmath.isfinite(v)

    run()


@pytest.mark.parametrize("key", [t.key for t in THEOREMS if t.kernels().np is not None])
def test_float64_agrees_with_mpmath(key):
    t = dptheory.get(key)

    @given(_points(t))
    def run(p):
        # compare at the same inputs: the exact binary values of the float64 inputs (a decimal such
        # as 0.1 is already rounded before the float path sees it; that is input rounding, not the kernel)
        fl = _floats(p)
        binary = {k: Fraction(v) for k, v in fl.items()}
        assume(all(r.status is Status.HOLDS for r in t.check(binary)))
        ref = t.evaluate(binary, dps=30).value
        f = float(t.evaluate_np(fl))
        note(f"{p}: mp {ref}, float64 {f!r}")
        if mpmath.isinf(ref) or not mpmath.isfinite(mpmath.mpf(f)) or abs(float(ref)) > 1e300:
            return  # only where both are finite (overflowing points go to the log domain in sweeps)
        if float(ref) == 0.0:
            assert f == 0.0
            return
        # 1e-10 relative; below the smallest normal float64 (2.2e-308) the format has no relative precision (a
        # subnormal keeps fewer bits), so there the error is measured against the smallest normal: a value of
        # 1.7e-318 may come out 0 (found by hypothesis: kl_inv at inputs near 1e-308), never a wrong normal number
        assert abs(f - float(ref)) <= 1e-10 * max(abs(float(ref)), sys.float_info.min)

    run()


def _override_cases():
    cases = []
    for t in THEOREMS:
        for name in t.overrides:
            term, _, backend = name.rpartition(".")
            expr = t.bound if not term else t.terms[term].expr
            if expr is not None:
                cases.append(pytest.param(t.key, term or None, backend, id=f"{t.key}:{name}"))
    return cases


@pytest.mark.parametrize("key, term, backend", _override_cases())
def test_override_agrees_with_the_compiled_statement(key, term, backend):
    """A hand-written kernel beside a statement is a declared override: it must agree with the compiled
    statement (mpmath at 50 digits: 1e-40 relative; float64: 1e-10 relative; an arb kernel's certified enclosure at
    40 digits must contain the statement's mpmath value at 60 digits, widened by 1e-38 relative) at strategy
    points."""
    from dptheory.core.compile import compile_expr, enclose
    from dptheory.core.evaluator import ArbEvaluator

    t = dptheory.get(key)
    own = t if term is None else t.terms[term]  # the theorem's bound or the term: its statement and its overrides
    expr = t.bound if term is None else own.expr
    syms = {p: t.notation.sym(p) for p in t.params}
    ints = frozenset(p for p in t.params if t.notation[p].domain.is_integer)
    comp = compile_expr(expr, syms, integers=ints)
    hand, hand_np, hand_arb = own.mp, own.np, own.arb

    @given(_points(t))
    def run(p):
        if backend == "mp":
            with mpmath.workdps(60):
                args = t.kernel_args(p)
                a, b = mpmath.mpf(hand(args)), mpmath.mpf(comp.mp(args))
                note(f"{p}: override {a}, statement {b}")
                assert a == b or abs(a - b) <= abs(b) * mpmath.mpf(10) ** -40
        elif backend == "arb":
            with mpmath.workdps(60):
                b = mpmath.mpf(comp.mp(t.kernel_args(p)))
            ball = enclose(ArbEvaluator(t.params, hand_arb), p, dps=40)
            note(f"{p}: override [{ball.lo}, {ball.hi}], statement {b}")
            with mpmath.workdps(60):
                slack = abs(b) * mpmath.mpf(10) ** -38
                assert ball.lo - slack <= b <= ball.hi + slack
        else:
            fl = {k: float(v) for k, v in p.items()}
            raw = hand_np({k: np.asarray(v) for k, v in fl.items()})
            a = float(raw[0] if isinstance(raw, tuple) else raw)
            b = float(comp.np(fl))
            note(f"{p}: override {a!r}, statement {b!r}")
            if math.isfinite(a) and math.isfinite(b) and abs(b) < 1e300:
                assert abs(a - b) <= 1e-10 * abs(b) or a == b

    run()


MONO = [(t.key, name, sense) for t in THEOREMS for name, sense in t.monotone.items()]


@pytest.mark.parametrize("key, name, sense", MONO)
def test_monotone_where_stated(key, name, sense):
    t = dptheory.get(key)
    integer = t.notation[name].domain.is_integer

    @given(_points(t), st.floats(0.001, 1.0))
    def run(p, frac):
        q = dict(p)
        q[name] = p[name] + (1 if integer else p[name] * sp.Rational(repr(frac)))
        res = t.check(q)
        assume(all(r.status is Status.HOLDS for r in res))
        a = t.evaluate(p, dps=40).value
        b = t.evaluate(q, dps=40).value
        note(f"{name}: {p[name]} -> {q[name]}: {a} -> {b}")
        if sense in ("increasing", "decreasing") and a == b:
            # strictness below 40 digits: look again at 120 digits; a tie there (e.g. a change of
            # e^-10000) is accepted as the non-strict relation, which is still asserted below
            a, b = t.evaluate(p, dps=120).value, t.evaluate(q, dps=120).value
        with mpmath.workdps(40):
            slack = mpmath.mpf(10) ** -35 * max(abs(a), abs(b))
            if sense == "increasing":
                assert b > a or (b == a)
                assert b >= a
            elif sense == "nondecreasing":
                assert b >= a - slack
            elif sense == "decreasing":
                assert b < a or (b == a)
                assert b <= a
            elif sense == "nonincreasing":
                assert b <= a + slack
            else:  # pragma: no cover
                raise AssertionError(sense)

    run()


CLOSED = [t.key for t in THEOREMS if t.bound is not None]


@pytest.mark.parametrize("key", CLOSED)
def test_kernel_matches_statement(key):
    """The sympy statement, evaluated independently at 80 digits, is an oracle for the kernel.

    Integers are substituted exactly, other values as 80-digit floats (exact rational powers such as
    x^q with rational q would make sympy factor huge integers)."""
    t = dptheory.get(key)
    small = {**_ranges(t), "n": (2, 40, False), "K": (1, 40, False), "b": (1, 8, False)}

    @given(_points(t, small))
    def run(p):
        subs = {t.notation.sym(k): (v if v.q == 1 else sp.Float(v, 80)) for k, v in p.items()}
        ref = sp.N(t.bound.xreplace(subs).doit(), 60)
        got = t.evaluate(p, dps=40).value
        note(f"{p}: statement {ref}, kernel {got}")
        if ref in (sp.oo, sp.zoo) or ref.has(sp.oo):
            assert mpmath.isinf(got)
            return
        with mpmath.workdps(50):
            r = mpmath.mpf(str(ref))
            assert abs(got - r) <= abs(r) * mpmath.mpf(10) ** -35

    run()


def _violating(t, cond, ranges):
    """Points of theorem ``t`` where the (non-domain) condition ``cond`` fails and every domain condition holds (the
    others free)."""
    rel = cond.relation
    negated = Condition(rel.negated if isinstance(rel, sp.core.relational.Relational) else sp.Not(rel), "negation")
    domain = [c for c in t.all_conditions if c.kind == "domain"]
    return point_strategy(t.params, [*domain, negated], {p: t.notation[p] for p in t.params}, ranges=ranges,
                          order_hint=list(t.notation.params), key=t.key)


def _violation_cases():
    cases = []
    for t in THEOREMS:
        for i, c in enumerate(t.all_conditions):
            cases.append(pytest.param(t.key, i, id=f"{t.key}[{c.render()}]"))
    return cases


@pytest.mark.parametrize("key, idx", _violation_cases())
def test_out_of_domain_rejected_naming_the_condition(key, idx):
    """Points violating this condition are refused, and the error names the first violated condition.

    Points are drawn with every domain condition but this one holding, this one negated and the
    others free; the evaluation must raise ConditionViolated, and the condition it names must be
    violated there and be the first violated one in the theorem's order (so when only this
    condition fails, it is the one named). Domain conditions are violated by moving one parameter
    out of its domain from a valid point.
    """
    t = dptheory.get(key)
    cond = t.all_conditions[idx]

    def first_violated(p):
        subs = {t.notation.sym(k): v for k, v in p.items()}
        for c in t.all_conditions:
            r = c.evaluate({s: subs[s] for s in c.symbols})
            if r.status is Status.VIOLATED:
                return c
        return None

    if cond.kind == "domain":
        name = sorted(s.name for s in cond.symbols)[0]
        integer_cond = "integer" in cond.render()
        # the values put in the parameter's place: those that violate this condition (a domain condition is on the
        # one parameter); drawing one that holds (1/2 for "> 0"; 0 and 1/2 for ">= 0") would only make hypothesis
        # reject the example and draw a whole valid point again
        bad_values = [] if integer_cond else [
            v for v in OUT_OF_DOMAIN if cond.evaluate({t.notation.sym(name): sp.Rational(v)}).status is Status.VIOLATED]
        assert integer_cond or bad_values, f"{key}: none of {OUT_OF_DOMAIN} violates {cond.render()}"

        @settings(max_examples=VIOLATION_EXAMPLES)
        @given(_points(t), st.just(None) if integer_cond else st.sampled_from(bad_values))
        def run_domain(p, bad):
            q = dict(p)
            q[name] = p[name] + sp.Rational(1, 2) if integer_cond else sp.Rational(bad)
            r = cond.evaluate({t.notation.sym(k): v for k, v in q.items() if t.notation.sym(k) in cond.symbols})
            assert r.status is Status.VIOLATED, (q, r)  # by construction (the values above violate it)
            with pytest.raises(ConditionViolated) as ei:
                t.evaluate(q, dps=20)
            assert ei.value.key == key
            assert ei.value.condition == first_violated(q).render()

        run_domain()
        return
    strat = _violating(t, cond, _ranges(t))

    @settings(max_examples=VIOLATION_EXAMPLES)
    @given(strat)
    def run(p):
        with pytest.raises(ConditionViolated) as ei:
            t.evaluate(p, dps=20)
        expected = first_violated(p)
        assert expected is not None and ei.value.condition == expected.render()
        assert ei.value.citation

    run()


@pytest.mark.parametrize("key", KEYS)
def test_latex_renders(key):
    t = dptheory.get(key)
    tex = t.latex()
    assert (tex and "\\" in tex) or tex.isprintable()
    for c in t.conditions_latex():
        assert c
    assert t.key in t.explain()


LIMITS = [(t.key, name) for t in THEOREMS for name in t.limits]


@pytest.mark.parametrize("key, name", LIMITS)
def test_declared_limits_bound_and_are_approached(key, name):
    t = dptheory.get(key)
    lim = t.limits[name]

    @given(_points(t, {**_ranges(t), "n": (2, 60, False)}))
    def run(p):
        exact = dict(p)
        if lim.exists_when is not None:
            subs = {t.notation.sym(k): v for k, v in exact.items()}
            finite = lim.exists_when.evaluate(subs).status is Status.HOLDS
        else:
            finite = True
        with mpmath.workdps(40):
            L = lim.mp(t.kernel_args(exact))
        assert mpmath.isfinite(L) is finite
        v = t.evaluate(p, dps=40).value
        if finite:
            with mpmath.workdps(40):
                assert v <= L * (1 + mpmath.mpf(10) ** -30)  # nondecreasing in K up to its limit
        else:
            assert mpmath.isinf(L)

    run()


SYMBOLIC_LIMITS = [(t.key, name) for t in THEOREMS for name in t.limits if t.bound is not None]


@pytest.mark.parametrize("key, name", SYMBOLIC_LIMITS)
def test_sympy_limit_agrees_with_declared_limit(key, name):
    """sympy's limit of the statement (under the declared, justified substitutions) equals the
    declared limit kernel at random valid points."""
    from dptheory.core.symbolic import SymbolicVerdict, symbolic_limit

    t = dptheory.get(key)
    res, value = symbolic_limit(t, name)
    assert res.verdict is SymbolicVerdict.PROVED, res.detail
    lim = t.limits[name]

    @given(_points(t, {**_ranges(t), "n": (2, 40, False)}))
    def run(p):
        subs = {t.notation.sym(k): v for k, v in p.items()}
        ref = sp.N(value.xreplace(subs).doit(), 40)
        with mpmath.workdps(40):
            got = lim.mp(t.kernel_args(p))
            r = mpmath.mpf(str(ref))
            assert abs(got - r) <= abs(r) * mpmath.mpf(10) ** -30

    run()


def _outside_cases():
    """(theorem, condition) for every hand-written kernel's theorem and every condition that is not a domain one."""
    return [pytest.param(t.key, i, id=f"{t.key}[{c.render()}]") for t in THEOREMS if t.overrides
            for i, c in enumerate(t.all_conditions) if c.kind != "domain"]


@pytest.mark.slow
@pytest.mark.parametrize("key, idx", _outside_cases())
def test_hand_written_kernels_agree_outside_the_conditions(key, idx):
    """With ``check=False`` a theorem is evaluated where one of its conditions fails (its domain holding). A
    hand-written kernel's shortcuts are often proved under the conditions only; outside them the kernels must still
    compute the same formula or refuse in one line. At points with this condition negated: ``evaluate`` either
    raises a :class:`dptheory.DPTheoryError` or returns a value; then the mpmath kernel at 60 digits (1e-15
    relative), the float64 kernel (1e-9 relative, where it and the value are normal floats) and a certified
    enclosure (which must contain the mpmath value) agree with it. Found this way: Thm 4.3 at alpha < 1 (its a < 1
    shortcut) and Theorem B at m > n and beta >= 1 (``docs/derivations/thm4_3_recurrence.md``,
    ``docs/derivations/maxinfo_arb.md``). Slow (about a minute): run by ``.ci/run``."""
    from dptheory.core.errors import DPTheoryError

    t = dptheory.get(key)
    strat = _violating(t, t.all_conditions[idx], {**_ranges(t), "K": (1, 60, True)})
    kern = t.kernels()

    @settings(max_examples=25)
    @given(strat)
    def run(p):
        try:
            bv = t.evaluate(p, dps=20, check=False)
        except DPTheoryError:
            return
        v = bv.value
        note(f"{p}: value {v}")
        assert not mpmath.isnan(v)
        with mpmath.workdps(60):
            ref = +kern.mp(t.kernel_args(p))
        note(f"mpmath at 60 digits {ref}")
        if mpmath.isinf(v) or mpmath.isinf(ref):
            assert v == ref
        else:
            with mpmath.workdps(30):
                assert abs(v - ref) <= abs(ref) * mpmath.mpf(10) ** -15
        if bv.enclosure is not None and mpmath.isfinite(ref):
            with mpmath.workdps(60):
                slack = abs(ref) * mpmath.mpf(10) ** -18
                assert bv.enclosure.lo - slack <= ref <= bv.enclosure.hi + slack
        if kern.np is not None:
            with np.errstate(all="ignore"):  # log(0) at a boundary of the negated condition: -inf, compared below
                raw = kern.np({k: np.asarray([float(x)]) for k, x in p.items()})
            f = float((raw[0] if isinstance(raw, tuple) else raw)[0])
            note(f"float64 {f!r}")
            if sys.float_info.min <= abs(float(ref)) <= sys.float_info.max:
                assert f == pytest.approx(float(ref), rel=1e-9)

    run()
