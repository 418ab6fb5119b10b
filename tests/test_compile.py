"""The statement compiler (dptheory.core.compile): small expressions with hand-derived values, the
rewrites, the arb backend's refusal to guess, the Ziv enclosure, and every registered closed-form
bound compiled and compared with independent values.

Independent values used here: closed forms worked out by hand (stated next to each test), sympy's own
evaluation of the uncompiled statement (``sp.N`` of the bound with the inputs substituted, 80+
digits: no code shared with the compiler's rewrites or emitted kernels), and the values of the
hand-written kernels that every closed form carried before the compiler
(``tests/data/hand_kernel_values.csv``: written separately from the statements, recorded when they
were removed). Tolerances are relative and stated at each assertion.
"""

from __future__ import annotations

import math
from fractions import Fraction

import flint
import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import assume, given, note, settings
from hypothesis import strategies as st

import dptheory
from dptheory.core import REGISTRY, Status
from dptheory.core.compile import (
    CompileError,
    Pow1p,
    Pow1pm1,
    Undecided,
    agree_mp,
    compile_expr,
    compile_theorem,
    enclose,
    expm1,
    log1p,
    stabilise,
)
from dptheory.core.errors import NumericalFailure
from dptheory.testing.strategies import theorem_strategy

x, y, z = sp.symbols("x y z", positive=True)
n, b, K = sp.symbols("n b K", integer=True, positive=True)
jj = sp.Symbol("j", integer=True, nonnegative=True)
XYZ = {"x": x, "y": y, "z": z}


def _c(expr, syms=None, integers=frozenset()):
    return compile_expr(expr, syms or XYZ, integers=frozenset(integers))


def _mp(c, **kw):
    with mpmath.workdps(50):
        return c.mp({k: (v if isinstance(v, int) else mpmath.mpf(sp.Rational(v).p) / sp.Rational(v).q)
                     for k, v in kw.items()})


def _rel(a, b_):
    with mpmath.workdps(60):
        a, b_ = mpmath.mpf(a), mpmath.mpf(b_)
        return abs(a - b_) / abs(b_) if b_ != 0 else abs(a)


# ----------------------------------------------------------------------------- rewrites


def test_rewrites_produce_the_stable_forms():
    assert stabilise(sp.log(1 + x)) == log1p(x)
    assert stabilise(sp.exp(x) - 1) == expm1(x)
    assert stabilise(1 - sp.exp(-x)) == -expm1(-x)
    assert stabilise(3 - 3 * sp.exp(y)) == -3 * expm1(y)
    assert stabilise((1 - x * y) ** (2 * n)) == Pow1p(-x * y, 2 * n)
    assert stabilise(1 - (1 - x) ** (2 * n)) == -Pow1pm1(-x, 2 * n)
    assert stabilise(1 - (1 - x) ** 2) == -Pow1pm1(-x, 2)
    # nothing to rewrite: unchanged
    assert stabilise(x**2 + sp.log(x)) == x**2 + sp.log(x)


def test_unsupported_construct_is_named():
    f = sp.Function("f")
    with pytest.raises(CompileError, match="f"):
        _c(f(x) + 1)
    with pytest.raises(CompileError, match="not parameters"):
        compile_expr(x + y, {"x": x})


# ----------------------------------------------------------------------------- values by hand


def test_log1p_and_expm1_keep_tiny_arguments():
    # log(1 + x) at x = 1e-20: x - x^2/2 + ... = 1e-20 (to 20 digits); float64 log(1 + 1e-20) = 0
    c = _c(sp.log(1 + x), {"x": x})
    assert float(c.np({"x": 1e-20})) == pytest.approx(1e-20, rel=1e-15)
    # 1 - exp(-y) at y = 1e-12: y - y^2/2 = 9.999999999995e-13
    c = _c(1 - sp.exp(-y), {"y": y})
    assert float(c.np({"y": 1e-12})) == pytest.approx(9.999999999995e-13, rel=1e-15)


def test_log_of_a_reciprocal_keeps_its_digits_near_one():
    # log(1/beta) at beta = 1 - 2^-53: -log1p(-2^-53) = 2^-53 + 2^-107 + ... = 1.1102230246251565e-16 (to 16
    # digits); float64 1/beta rounds to 1 + 2^-52 first, so the printed form gives 2.22e-16 (the Theorem A
    # derived bound of the max-information notes, sqrt(log(1/beta)), was 42% off there)
    b = sp.Symbol("b", positive=True)
    assert stabilise(sp.log(1 / b)) == -sp.log(b)
    c = _c(sp.log(1 / b), {"b": b})
    assert float(c.np({"b": 1 - 2.0**-53})) == pytest.approx(2.0**-53, rel=1e-15)
    assert abs(float(np.log(1 / (1 - 2.0**-53))) - 2.0**-53) > 0.5 * 2.0**-53  # the printed form is visibly wrong


def test_one_minus_r_pow_m_near_one():
    # (1 - (1-x)^(2m)) / (1 - (1-x)^2) = sum_{s<m} (1-x)^(2s) -> m as x -> 0; at x = 1e-9, m = 50:
    # m - x * m(m-1) (to first order): 50 - 2450e-9 (second order 1.9e-15)
    e = (1 - (1 - x) ** (2 * n)) / (1 - (1 - x) ** 2)
    c = compile_expr(e, {"x": x, "n": n}, integers=frozenset({"n"}))
    got = float(c.np({"x": 1e-9, "n": 50.0}))
    assert got == pytest.approx(50 - 2450e-9, rel=1e-14)
    naive = float((1 - (1 - 1e-9) ** 100) / (1 - (1 - 1e-9) ** 2))
    assert abs(naive - (50 - 2450e-9)) > 1e-9  # the printed form in float64 is visibly wrong


def test_floor_of_integer_ratio_is_exact():
    # floor(n/(2b)) with n = 10**30 + 1, b = 1: 5*10**29 exactly (float would round)
    e = sp.floor(n / (2 * b))
    c = compile_expr(e, {"n": n, "b": b}, integers=frozenset({"n", "b"}))
    with mpmath.workdps(40):
        assert c.mp({"n": 10**30 + 1, "b": 1}) == 5 * 10**29
    enc = enclose(c, {"n": 10**30 + 1, "b": 1}, dps=35)
    assert Fraction(enc.lo_str) == Fraction(enc.hi_str) == 5 * 10**29 and enc.contains(5 * 10**29)


def test_min_max_piecewise_abs():
    e = sp.Max(x, y) - sp.Min(x, y) + sp.Piecewise((x, x < y), (y, True)) + sp.Abs(x - 2 * y)
    c = _c(e)
    # x = 1, y = 3: 3 - 1 + 1 + 5 = 8; x = 5, y = 2: 5 - 2 + 2 + 1 = 6
    assert _mp(c, x=1, y=3, z=1) == 8
    assert _mp(c, x=5, y=2, z=1) == 6
    assert list(c.np({"x": np.array([1.0, 5.0]), "y": np.array([3.0, 2.0]), "z": 1.0})) == [8.0, 6.0]
    assert enclose(c, {"x": 5, "y": 2, "z": 1}, dps=30).contains(6)


def test_special_functions():
    # erf(1/2) + erfc(1/2) = 1; loggamma(5) = log 24; binomial(7, 3) = 35; sqrt(x) * sqrt(x) = x
    e = sp.erf(x) + sp.erfc(x) + sp.loggamma(5 * y) - sp.log(24) + sp.binomial(7, 3) + sp.sqrt(z) ** 2
    c = _c(e)
    pt = {"x": sp.Rational(1, 2), "y": 1, "z": 2}
    assert _rel(_mp(c, **pt), 38) < 1e-45
    assert float(c.np({k: float(v) for k, v in pt.items()})) == pytest.approx(38, rel=1e-14)
    assert enclose(c, pt, dps=40).contains(38)


def test_finite_sum_loop_and_vectorised():
    # sum_{j=1}^{K} j^2 = K(K+1)(2K+1)/6 (kept as a loop: close_sums=False); K = 30: 9455
    e = sp.Sum(jj**2 * x, (jj, 1, K))
    c = compile_expr(e, {"x": x, "K": K}, integers=frozenset({"K"}), close_sums=False)
    assert "for" in c.source["mp"]
    with mpmath.workdps(30):
        assert c.mp({"x": mpmath.mpf(1), "K": 30}) == 9455
    out = c.np({"x": 1.0, "K": np.array([1.0, 2.0, 30.0, 0.0])})
    assert list(out) == [1.0, 5.0, 9455.0, 0.0]
    assert enclose(c, {"x": 1, "K": 30}, dps=30).contains(9455)


def test_log_mean_exp_is_stable_for_tiny_and_huge_exponents():
    # (1/N) sum_{j<N} exp(x * j) with log: closed form x (N-1)/2 + log(expm1(N x)/(N expm1(x)))...
    # checked against sympy's exact value at 60 digits for x = 1e-14 (tiny) and x = 900 (overflow)
    N = sp.Symbol("N", integer=True, positive=True)
    e = sp.log(sp.Sum(sp.exp(x * sp.sqrt(jj + 1)), (jj, 0, N - 1)) / N)
    c = compile_expr(e, {"x": x, "N": N}, integers=frozenset({"N"}), close_sums=False)
    for xv in (sp.Rational(1, 10**14), sp.Integer(900)):
        ref = sp.N(sp.log(sum(sp.exp(xv * sp.sqrt(k + 1)) for k in range(7)) / 7), 60)
        got = float(c.np({"x": float(xv), "N": 7.0}))
        assert got == pytest.approx(float(ref), rel=1e-13)
        assert _rel(_mp(c, x=xv, N=7), ref) < 1e-45
        assert enclose(c, {"x": xv, "N": 7}, dps=40).contains(ref)


# ----------------------------------------------------------------------------- arb: no guessing


def test_arb_branch_on_a_straddling_ball_is_undecided():
    c = _c(sp.Piecewise((x, x < 1), (2 * x, True)))
    with flint.ctx.workprec(64):
        with pytest.raises(Undecided):
            c.arb({"x": flint.arb("1 +/- 0.01"), "y": flint.arb(1), "z": flint.arb(1)})
        v = c.arb({"x": flint.arb("0.5 +/- 0.01"), "y": flint.arb(1), "z": flint.arb(1)})
        assert v.contains(flint.arb("0.5")) and not v.contains(1)


def test_arb_floor_undecided_unless_exact():
    c = _c(sp.floor(x))
    with flint.ctx.workprec(64):
        with pytest.raises(Undecided):
            c.arb({"x": flint.arb("3 +/- 1e-10"), "y": flint.arb(1), "z": flint.arb(1)})
        assert c.arb({"x": flint.arb(3), "y": flint.arb(1), "z": flint.arb(1)}) == 3
        assert c.arb({"x": flint.arb("2.5 +/- 0.1"), "y": flint.arb(1), "z": flint.arb(1)}) == 2


def test_enclose_ziv_raises_precision_for_a_near_tie():
    # x - 1/3 at x = 1/3 + 10^-80: the value 10^-80 needs ~ 80 + 30 digits of working precision
    c = _c(x - sp.Rational(1, 3))
    v = sp.Rational(1, 3) + sp.Rational(1, 10**80)
    enc = enclose(c, {"x": v, "y": 1, "z": 1}, dps=30)
    assert enc.relative and enc.contains(sp.Float(sp.Rational(1, 10**80), 120))
    assert enc.prec > 300
    lo, hi = Fraction(enc.lo_str), Fraction(enc.hi_str)
    assert lo <= Fraction(1, 10**80) <= hi and (hi - lo) <= Fraction(1, 10**80) * Fraction(1, 10**29)


def test_enclose_rounds_outward():
    # 1/3 and -1/3: not decimal, so the two strings must bracket it strictly; the mpf endpoints too
    for sign in (1, -1):
        c = _c(sign * x / 3)
        enc = enclose(c, {"x": 1, "y": 1, "z": 1}, dps=20)
        third = Fraction(sign, 3)
        assert Fraction(enc.lo_str) < third < Fraction(enc.hi_str)
        assert Fraction(enc.hi_str) - Fraction(enc.lo_str) < Fraction(1, 10**20)
        assert enc.contains(third) and enc.lo < enc.hi


def test_enclose_gives_up_with_a_clear_error():
    c = _c(x - sp.Rational(1, 3))
    with pytest.raises(NumericalFailure, match="not certified"):
        enclose(c, {"x": sp.Rational(1, 3) + sp.Rational(1, 10**500), "y": 1, "z": 1}, dps=30, max_prec=512)
    with pytest.raises(NumericalFailure, match="exact inputs"):
        enclose(c, {"x": 0.1, "y": 1, "z": 1}, dps=30)


def test_enclose_exact_zero_and_absolute():
    c = _c(x - x * 1)  # sympy folds to 0
    enc = enclose(c, {"x": 1, "y": 1, "z": 1}, dps=20)
    assert enc.lo == 0 and enc.hi == 0 and enc.relative
    c = _c(sp.sin(x) if False else sp.exp(x) - sp.exp(x * y))  # e^x - e^{xy} at y = 1 is 0, ball around 0
    enc = enclose(c, {"x": sp.Rational(1, 3), "y": 1, "z": 1}, dps=20)
    assert enc.contains(0) and not enc.relative


def test_agree_mp_is_not_rigorous():
    # a kernel computing (1 + 10^-40) - 1 with float inputs agrees with itself at every precision
    # and is wrong: agreement is not correctness (this is why enclose exists)
    def kern(a):
        return (a["u"] + 1) - 1

    v = agree_mp(kern, lambda: {"u": mpmath.mpf(1e-40)}, dps=20)
    assert v == mpmath.mpf(1e-40)  # the float 1e-40, not 10^-40
    assert v != mpmath.mpf(10) ** -40 or mpmath.mpf(1e-40) == mpmath.mpf(10) ** -40


# ----------------------------------------------------------------------------- the registry

SMALL = {"n": (2, 300, True), "K": (1, 300, True), "T": (1, 10_000, True)}  # as checks/test_contracts.py
CLOSED = sorted((t for t in REGISTRY.theorems() if t.bound is not None), key=lambda t: t.key)

# Theorems whose plain compiled float64 kernel is not (yet) within tolerance everywhere, with
# the backend in brackets and the reason. Their hypothesis tests are xfail (not strict: the failing
# region is thin and a random search may miss it); each entry also has a deterministic witness in
# OVERRIDE_WITNESSES that must still fail, so an improvement shows up as a failing witness test.
EXPECTED_OVERRIDES: dict[str, str] = {
    # 1 - 2 eta beta lam/(beta + lam) cancels near the step-size limit (lam = beta, eta -> 2/(lam + beta)):
    # float64 cannot form it to 1e-10 from rounded products; the theorem therefore declares np_flagged:
    # flagged points are recomputed with mpmath (Theorem.evaluate_np handles a (values, unreliable) pair)
    "yeshokri22.balle_first": "[np] float64 cancellation in the Balle factor base near the step-size limit",
    # Thm D.5 for any batch position (the same factor base, raised to n/(2b) and more)
    "yeshokri22.thmD_5": "[np] float64 cancellation in the Balle factor base near the step-size limit",
}
OVERRIDE_WITNESSES = {
    ("yeshokri22.balle_first", "np"): {"alpha": 1000, "S_g": "0.01", "sigma": "0.1", "b": 1, "n": 2, "K": 1,
                                        "lam": 10, "beta": 10, "eta": "0.09999999001"},
    ("yeshokri22.thmD_5", "np"): {"alpha": 1000, "S_g": "0.01", "sigma": "0.1", "b": 1, "n": 10, "j0": 3,
                                   "lam": 10, "beta": 10, "eta": "0.09999999001"},
}


def compiled(key):
    return compile_theorem(dptheory.get(key))


def oracle(t, p, expr=None, digits=80):
    """sympy's own value of the statement (or ``expr``) at the exact point ``p``: integers exactly,
    other inputs as ``digits``-digit floats (exact rational powers make sympy factor huge integers),
    evaluated with ``sp.N`` at ``digits`` digits; +inf as mpmath inf. Independent of the compiler."""
    expr = t.bound if expr is None else expr
    subs = {t.notation.sym(k): (v if v.q == 1 else sp.Float(v, digits + 20)) for k, v in p.items()}
    ref = sp.N(expr.xreplace(subs).doit(), digits)
    if ref in (sp.oo, sp.zoo) or ref.has(sp.oo):
        return mpmath.inf
    with mpmath.workdps(digits):
        return mpmath.mpf(str(ref))


def settled_oracle(t, p, expr=None):
    """The oracle at 80 and 160 digits (and more) until two agree to 10^-60 relative."""
    digits = 80
    ref = oracle(t, p, expr, digits)
    for _ in range(3):
        ref2 = oracle(t, p, expr, 2 * digits)
        with mpmath.workdps(2 * digits):
            if mpmath.isinf(ref) or ref2 == 0 or abs(ref2 - ref) <= abs(ref2) * mpmath.mpf(10) ** -60:
                return ref2
        digits *= 2
        ref = ref2
    raise AssertionError(f"sympy's evaluation of {t.key} does not settle at {p}")


def test_compile_theorem_caches_and_refuses_recurrences():
    t = dptheory.get("yeshokri22.thm4_2")
    assert compile_theorem(t) is compile_theorem(t)
    assert compile_theorem(t).integers == frozenset({"n", "b", "K"})
    with pytest.raises(CompileError, match="not certified"):
        compile_theorem(dptheory.get("yeshokri22.thm4_3"))


def _points(t):
    if t.witnesses:
        return st.sampled_from([t.parse(w) for w in t.witnesses])
    return theorem_strategy(t, ranges={**SMALL, **t.sample})


def _param(t, *backends):
    """The theorem's key, xfail (not strict) when an expected override names one of ``backends``."""
    marks = []
    reason = EXPECTED_OVERRIDES.get(t.key)
    if reason is not None and any(f"[{backend}]" in reason for backend in backends):
        marks.append(pytest.mark.xfail(strict=False, reason=reason))
    return pytest.param(t.key, marks=marks, id=t.key)


@pytest.mark.parametrize("key", [t.key for t in CLOSED])
def test_every_closed_form_compiles(key):
    c = compiled(key)
    assert c.params == dptheory.get(key).params


@pytest.mark.parametrize("key, backend", sorted(OVERRIDE_WITNESSES))
def test_override_witness_still_needs_the_override(key, backend):
    """The documented failure is real (if this fails, the compiler improved: drop the override)."""
    t = dptheory.get(key)
    p = t.parse(OVERRIDE_WITNESSES[key, backend])
    fl = {k: float(v) for k, v in p.items()}
    ref = t.evaluate({k: Fraction(v) for k, v in fl.items()}, dps=30).value
    got = float(compiled(key).np(fl))
    assert abs(got - float(ref)) > 1e-10 * abs(float(ref))
    # the theorem's flag-and-recompute path (np_flagged) gets it right
    assert float(t.evaluate_np(fl)) == pytest.approx(float(ref), rel=1e-10)


def _binary_point(t, p):
    """``(fl, binary)``: the float64 inputs of point ``p`` and their exact binary values (a decimal such as 0.1
    is rounded before a float64 path sees it: comparing at ``binary`` leaves that input rounding out). The
    example is discarded (``assume``) unless every condition of ``t`` holds at ``binary``."""
    fl = {k: float(v) for k, v in p.items()}
    binary = {k: Fraction(v) for k, v in fl.items()}
    assume(all(r.status is Status.HOLDS for r in t.check(binary)))
    return fl, binary


def _assert_float64_agrees(got, ref):
    """A float64 value ``got`` against the certified value ``ref`` (mpmath) at the same inputs: ``+inf`` where
    ``ref`` is; not compared where ``|ref| > 1e300`` (float64 overflow: sweeps recompute such points in the log
    domain); exactly 0 where ``ref`` is 0; else within 1e-10 relative."""
    if mpmath.isinf(ref):
        assert got == float(ref)
        return
    if abs(float(ref)) > 1e300:
        return
    if float(ref) == 0.0:
        assert got == 0.0
        return
    assert abs(got - float(ref)) <= 1e-10 * abs(float(ref))


def _declared_infinite(t, p):
    """The statement's value is +inf at a point the theorem declares infinite (t.infinite_when)."""
    return bool(t.infinite_when) and mpmath.isinf(oracle(t, p, digits=30))


@pytest.mark.parametrize("key", [_param(t, "np") for t in CLOSED])
def test_compiled_np_agrees_with_the_certified_value(key):
    """float64 compiled statement vs the theorem's certified value at 30 digits (the arb backend):
    1e-10 relative, at the exact binary values of the float64 inputs. Where the theorem declares
    +inf, the compiled value must be +inf too."""
    t = dptheory.get(key)
    c = compiled(key)

    @given(_points(t))
    def run(p):
        fl, binary = _binary_point(t, p)
        ref = t.evaluate(binary, dps=30).value
        got = float(c.np(fl))
        note(f"{p}: certified {ref}, compiled np {got!r}")
        _assert_float64_agrees(got, ref)

    run()


@pytest.mark.parametrize("key", [t.key for t in CLOSED])
def test_compiled_np_with_flags_agrees_everywhere(key):
    """np_flagged + mpmath at 30 digits on the flagged points (what Theorem.evaluate_np does with a
    (values, unreliable) pair) agrees with the certified value to 1e-10 relative for EVERY closed form,
    the Balle factor near the step-size limit included."""
    t = dptheory.get(key)
    c = compiled(key)

    # the plain np test above covers the same ground for the unflagged points: fewer examples here
    @settings(max_examples=min(20, settings().max_examples))
    @given(_points(t))
    def run(p):
        fl, binary = _binary_point(t, p)
        ref = t.evaluate(binary, dps=30).value
        vals, flagged = c.np_flagged(fl)
        got = float(vals)
        if bool(flagged):
            with mpmath.workdps(30):
                got = float(c.mp(t.kernel_args(t.parse(binary))))
        note(f"{p}: certified {ref}, compiled {got!r}, flagged {bool(flagged)}")
        _assert_float64_agrees(got, ref)

    run()


def test_flags_catch_the_balle_witness_and_spare_ordinary_points():
    t = dptheory.get("yeshokri22.balle_first")
    c = compiled("yeshokri22.balle_first")
    bad = {k: float(v) for k, v in t.parse(OVERRIDE_WITNESSES["yeshokri22.balle_first", "np"]).items()}
    ok = {**bad, "eta": 0.05}
    _, flags = c.np_flagged({k: np.array([bad[k], ok[k]]) for k in bad})
    assert list(flags) == [True, False]


@pytest.mark.parametrize("key", [_param(t, "mp", "arb") for t in CLOSED])
def test_compiled_mp_and_arb_agree_with_the_statement(key):
    """At each drawn point, sympy's own value of the statement (settled to 10^-60, so up to that slack) against
    both compiled backends: one oracle value serves both, as it is nearly all of the time (sympy sums a Thm 4.2
    statement term by term at 80 and 160 digits).

    * mpmath: the compiled kernel at 60 working digits within 1e-45 relative. (Without guard digits a huge
      exponent, e.g. Dwork et al. Cor. 2.2 with tau^2/(c^2 n) ~ 1e12, amplifies the last-place roundings; see
      test_dwork_cor22_huge_exponent_gets_correct_digits for why only enclose settles such points.) Where the
      theorem declares +inf (Lemma D.3 at k = j = 0, stated as a Piecewise), the compiled kernel returns +inf.
    * arb: enclose(dps=50) contains the value and is as narrow as asked; at a declared-infinite point it is +inf.
    """
    t = dptheory.get(key)
    c = compiled(key)

    @given(_points(t))
    def run(p):
        ref = settled_oracle(t, p)
        with mpmath.workdps(60):
            got = c.mp(t.kernel_args(p))
        enc = enclose(c, p, dps=50)
        note(f"{p}: statement {ref}, compiled {got}, enclosure {enc}")
        if mpmath.isinf(ref):
            assert mpmath.isinf(got) and got == ref
            assert mpmath.isinf(enc.lo) and enc.lo == enc.hi == ref
            return
        with mpmath.workdps(80):
            assert abs(got - ref) <= abs(ref) * mpmath.mpf(10) ** -45
            slack = abs(ref) * mpmath.mpf(10) ** -58
            assert enc.lo - slack <= ref <= enc.hi + slack
            if enc.relative:
                assert enc.hi - enc.lo <= 2 * mpmath.mpf(10) ** -50 * abs(ref) * (1 + mpmath.mpf(10) ** -10)

    run()


# ----------------------------------------------------------------------------- independent known values


def _known_rows():
    import csv
    import json
    from pathlib import Path

    rows = []
    with open(Path(__file__).parent / "data" / "yeshokri22_known_values.csv") as fh:
        for r in csv.DictReader(fh):
            t = dptheory.get(r["key"])
            if r["method"] == "sympy-exact" and not r["term"] and t.bound is not None:
                rows.append(pytest.param(r["key"], json.loads(r["params"]), r["value"], id=f"{r['key']}:{r['params']}"))
    return rows


@pytest.mark.parametrize("key, params, value", _known_rows())
def test_enclosure_contains_tabulated_exact_values(key, params, value):
    """tests/data/yeshokri22_known_values.csv: the statements evaluated in exact rational arithmetic by
    sympy, then to 60 digits (provenance column). The certified enclosure must contain the value
    (up to its 60-digit rounding) and agree with it to 50 digits."""
    t = dptheory.get(key)
    p = t.parse(params)
    enc = enclose(compiled(key), p, dps=50)
    with mpmath.workdps(80):
        v = mpmath.mpf(value)
        slack = abs(v) * mpmath.mpf(10) ** -58
        assert enc.lo - slack <= v <= enc.hi + slack
    # the float64 compiled value too (inputs rounded to float64 first: 1e-10 relative covers it here)
    assert float(compiled(key).np({k: float(x) for k, x in p.items()})) == pytest.approx(float(value), rel=1e-10)


def test_dwork_cor22_huge_exponent_gets_correct_digits():
    """Dwork et al. 2015 Cor. 2.2 (arXiv 1506.02629) at n = 18234, tau = 9999900,
    c = 178222513243/250000000000000: exp(-3 tau^2/(4 c^2 n)) with an exponent ~ 1.4e15.
    Independent value: the exponent formed exactly as a fraction, then exp at 200 digits (its
    argument is known to 200 digits, so the result to ~185)."""
    t = dptheory.get("dwork15.cor22")
    p = {"n": 18234, "tau": 9999900, "c": sp.Rational(178222513243, 250000000000000)}
    X = Fraction(3) * Fraction(9999900) ** 2 / (4 * Fraction(178222513243, 250000000000000) ** 2 * 18234)
    with mpmath.workdps(200):
        ref = mpmath.exp(-(mpmath.mpf(X.numerator) / X.denominator))
    enc = enclose(compiled("dwork15.cor22"), p, dps=50)
    assert enc.relative and enc.contains(ref)
    with mpmath.workdps(80):
        assert abs(enc.hi - enc.lo) <= abs(ref) * mpmath.mpf(10) ** -49
    # plain mpmath at 30 digits (the compiled mp kernel, like the hand one) is wrong from the ~25th
    # digit: its exponent carries only 30 digits and e^{x(1+d)} = e^x e^{x d}
    with mpmath.workdps(30):
        plain = compiled("dwork15.cor22").mp(t.kernel_args(t.parse(p)))
    with mpmath.workdps(80):
        assert abs(plain - ref) > abs(ref) * mpmath.mpf(10) ** -27


# ----------------------------------------------------------------------------- mutation checks


def test_comparison_detects_a_perturbed_statement():
    """The registry comparison can fail: compile a statement perturbed by one part in 10^12 and the
    float64 and 50-digit checks both see it."""
    t = dptheory.get("yeshokri22.thm4_2")
    syms = {p: t.notation.sym(p) for p in t.params}
    ints = frozenset(p for p in t.params if t.notation[p].domain.is_integer)
    bad = compile_expr(t.bound * (1 + sp.Rational(1, 10**12)), syms, integers=ints)
    p = t.parse({"alpha": 10, "eta": "0.02", "lam": 1, "beta": 4, "S_g": 4, "sigma": 2, "n": 50, "b": 2, "K": 7})
    with mpmath.workdps(50):
        ref = compiled("yeshokri22.thm4_2").mp(t.kernel_args(p))
        assert abs(bad.mp(t.kernel_args(p)) - ref) > abs(ref) * mpmath.mpf(10) ** -45
    assert not enclose(bad, p, dps=50).contains(ref)
    good = enclose(compiled("yeshokri22.thm4_2"), p, dps=50)
    assert good.contains(ref) or abs(good.mid - ref) <= abs(ref) * mpmath.mpf(10) ** -49


# the PAC-Bayes right-hand sides hold the binomial sum xi(n) and kl-type terms; drawing their points
# and evaluating the statements at 80 digits is slow, so they run with --run-slow
_SLOW_TERMS = ("maurer04.", "pacbayes.", "dr18.")
TERMS = [
    pytest.param(t.key, name, marks=[pytest.mark.slow] if t.key.startswith(_SLOW_TERMS) else [], id=f"{t.key}:{name}")
    for t in sorted(REGISTRY.theorems(), key=lambda t: t.key)
    for name, term in t.terms.items()
    if term.expr is not None
]


@pytest.mark.heavy
@pytest.mark.parametrize("key, name", TERMS)
def test_compiled_terms_agree_with_their_statements(key, name):
    """Named parts of bounds (Term.expr, e.g. Thm 4.2's log-mean-exp) compile too: mpmath at 60
    working digits within 1e-45 of sympy's own value of the term, the enclosure containing it, and
    flagged float64 within 1e-10 of the certified value. Where a term keeps a declared hand kernel
    (the kl-inverse theorems' budgets), that kernel must agree with the compiled term too."""
    t = dptheory.get(key)
    term = t.terms[name]
    syms = {p: t.notation.sym(p) for p in t.params}
    ints = frozenset(p for p in t.params if t.notation[p].domain.is_integer)
    c = compile_expr(term.expr, syms, integers=ints)

    @given(_points(t))
    def run(p):
        ref = settled_oracle(t, p, term.expr)
        with mpmath.workdps(60):
            got = c.mp(t.kernel_args(p))
        note(f"{p}: statement {ref}, compiled {got}")
        with mpmath.workdps(80):
            assert abs(got - ref) <= abs(ref) * mpmath.mpf(10) ** -45
            enc = enclose(c, p, dps=50)
            slack = abs(ref) * mpmath.mpf(10) ** -58
            assert enc.lo - slack <= ref <= enc.hi + slack
        if term.mp is not None:
            hand = t.evaluate(p, dps=50, term=name).value
            with mpmath.workdps(80):
                assert abs(hand - ref) <= abs(ref) * mpmath.mpf(10) ** -45
        fl = {k: float(v) for k, v in p.items()}
        binary = t.parse({k: Fraction(v) for k, v in fl.items()})
        assume(all(r.status is Status.HOLDS for r in t.check(binary)))
        vals, flagged = c.np_flagged(fl)
        fref = float(t.evaluate(binary, dps=30, term=name).value)
        f = float(vals)
        if bool(flagged):
            with mpmath.workdps(30):
                f = float(c.mp(t.kernel_args(binary)))
        if fref == 0.0 or abs(fref) > 1e300:
            assert f == fref or abs(fref) > 1e300
        else:
            assert abs(f - fref) <= 1e-10 * abs(fref)

    run()


# ----------------------------------------------------------------------------- the removed hand kernels


def _hand_rows():
    import csv
    from pathlib import Path

    with open(Path(__file__).parent / "data" / "hand_kernel_values.csv") as fh:
        return [pytest.param(r, id=f"{r['key']}{':' + r['term'] if r['term'] else ''}#{i}")
                for i, r in enumerate(csv.DictReader(fh))]


@pytest.mark.parametrize("row", _hand_rows())
def test_compiled_statements_reproduce_the_removed_hand_kernels(row):
    """Every closed form's hand-written kernels were replaced by the compiled statement; their values at
    seeded points were recorded first (tests/data/hand_kernel_values.csv, provenance there). The
    certified value must match the hand mpmath value to 1e-45 relative (it was computed at 70 working
    digits) and the compiled float64 kernel the hand float64 kernel to 1e-10 relative."""
    t = dptheory.get(row["key"])
    term = row["term"] or None
    point = dict(item.split("=", 1) for item in row["params"].split(";"))
    exact = {k: Fraction(v) for k, v in point.items()}
    got = t.evaluate(exact, dps=50, term=term, check=False).value
    with mpmath.workdps(80):
        ref = mpmath.mpf(row["mp60"])
        if mpmath.isinf(ref):
            assert got == ref
        else:
            assert abs(got - ref) <= abs(ref) * mpmath.mpf(10) ** -45, (got, ref)
    if row["np_float64"] and not row["np_float64"].startswith("error"):
        fref = float(row["np_float64"])
        f = float(t.evaluate_np({k: float(v) for k, v in exact.items()}, term=term))
        if math.isinf(fref) or fref == 0.0:
            assert f == fref
        else:
            assert abs(f - fref) <= 1e-10 * abs(fref), (f, fref)


def test_decimal_ends_stay_tight_for_huge_exponents():
    """exp(10^40 + 1/3): the decimal ends of the enclosure must agree to the requested digits (the
    decimal scaling by 10^k with |k| ~ 4e39 needs ~130 more bits; without them the ends are correct
    but only ~45 digits tight, as seen on maxinfo.lemmaM_derived at zeta = 1.1e20)."""
    x = sp.Symbol("x", positive=True)
    c = compile_expr(sp.exp(x), {"x": x})
    enc = enclose(c, {"x": sp.Integer(10) ** 40 + sp.Rational(1, 3)}, dps=50)
    lo, hi = enc.lo_str.split("e"), enc.hi_str.split("e")
    assert lo[1] == hi[1]
    digits = lambda m: m.replace(".", "")[:50]
    assert digits(lo[0]) == digits(hi[0]) or int(digits(hi[0])) - int(digits(lo[0])) == 1
