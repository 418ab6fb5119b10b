"""The proofs of Ye & Shokri 2022's C5e, C5f, C5h (arXiv 2203.05363, Sec. 4.1 and E.1).

docs/derivations/yeshokri22_c5_second_term.md: every sympy step is proved; a changed theorem or a changed step
is noticed; and the facts the steps lead to are checked numerically by routes that do not use the steps:
the Gaussian integral by quadrature (not our subsampled-Gaussian kernel), the binomial expansion at integer
orders, a finite difference of the heat-flow derivative, the second term from its definition.
"""

from __future__ import annotations

import math
import types

import mpmath
import numpy as np
import pytest
import sympy as sp

from dptheory.core.claims import Verdict
from dptheory.core.registry import REGISTRY
from dptheory.core.symbolic import SymbolicVerdict
from dptheory.papers.yeshokri22 import claims_c5 as C
from dptheory.papers.yeshokri22 import theorems as TH
from dptheory.verify.checking import check_claim
from dptheory.verify.points import in_region

FIG = {"lam": 1, "beta": 4, "S_g": 4, "n": 50, "eta": "0.02", "sigma": 2, "b": 2}


# ----------------------------------------------------------------------------- the sympy steps
@pytest.mark.parametrize("part", ["second term", "sgm"])
def test_every_step_is_proved(part: str) -> None:
    steps = C.c5_steps(part)
    assert len(steps) >= 7
    for st in steps:
        assert st.verdict is SymbolicVerdict.PROVED, st.detail


@pytest.mark.parametrize("key", ["yeshokri22.C5e", "yeshokri22.C5f", "yeshokri22.C5h"])
def test_claims_are_proved_and_say_where(key: str) -> None:
    claim = REGISTRY.get(key)
    res = check_claim(claim)
    assert res.verdict is Verdict.PROVED and claim.verdict is Verdict.PROVED
    assert C.C5_NOTE in res.proof
    assert "every real alpha > 1" in res.region and "b | n" in res.region


def _not_proved(steps: list) -> list[str]:
    """The labels ("(4)", ...) of the steps that are not proved."""
    return [st.detail.split(" ", 1)[0] for st in steps if st.verdict is not SymbolicVerdict.PROVED]


def test_a_changed_second_term_is_noticed() -> None:
    lme = TH.LME_EXPR
    # the mean over N positions replaced by a sum (log-sum-exp): step 4 no longer holds
    assert _not_proved(C.c5_second_term_steps(lme=lme + sp.log(TH.N_sym) / (TH.al - 1))) == ["(4)"]
    # the order alpha - 1 replaced by alpha in the exponent
    wrong = lme.replace(lambda e: isinstance(e, sp.exp), lambda e: sp.exp(e.args[0] * TH.al / (TH.al - 1)))
    assert _not_proved(C.c5_second_term_steps(lme=wrong)) == ["(4)"]


def test_a_changed_approximation_is_noticed() -> None:
    approx = REGISTRY.get("yeshokri22.composition_approx").bound
    assert _not_proved(C.c5_second_term_steps(approx=approx / 2)) == ["(7)"]  # (b/n) G K / 2 < G at K = n/b
    assert _not_proved(C.c5_sgm_steps(approx=approx * sp.Rational(101, 100))) == ["(9)"]


def test_a_changed_composition_statement_is_noticed() -> None:
    comp = REGISTRY.get("yeshokri22.composition")
    z = sp.Symbol("z", positive=True)

    def mutated(old: sp.Expr, new: sp.Expr) -> types.SimpleNamespace:
        return types.SimpleNamespace(statement=tuple(e.xreplace({old: new}) for e in comp.statement))

    x = next(e for e in comp.statement if isinstance(e, sp.Eq) and isinstance(e.rhs, sp.Integral)).rhs.limits[0][0]
    # the likelihood ratio's shift sign (exp((2x + 1)/(2 z^2)) is not a likelihood ratio of mean 1): step 1
    assert _not_proved(C.c5_sgm_steps(composition=mutated(2 * x - 1, 2 * x + 1))) == ["(1)"]
    # the noise multiplier doubled: step 2 (alpha/(2 z^2) is no longer G)
    z_rhs = next(e for e in comp.statement if isinstance(e, sp.Eq) and e.lhs == z).rhs
    assert _not_proved(C.c5_sgm_steps(composition=mutated(z_rhs, 2 * z_rhs))) == ["(2)"]
    # T = K floor(n/b) replaced by K (one step per epoch): step 9
    Kf = TH.K * TH.N_sym
    assert _not_proved(C.c5_sgm_steps(composition=mutated(Kf, TH.K))) == ["(9)"]


def test_the_sign_helper_does_not_guess() -> None:
    x = sp.Symbol("x", real=True)
    assert C._sign(x, "positive", "x").verdict is SymbolicVerdict.UNDECIDED
    assert C._sign(-C._w, "positive", "-w").verdict is SymbolicVerdict.UNDECIDED
    assert C._sign(C._w, "positive", "w").verdict is SymbolicVerdict.PROVED


# ----------------------------------------------------------------------------- part 2, numerically
def _A_quad(alpha: mpmath.mpf, q: mpmath.mpf, s: mpmath.mpf) -> mpmath.mpf:
    """A_alpha = E[(1 - q + q exp(sY - s^2/2))^alpha], Y ~ N(0, 1), by quadrature (the statement's integral)."""
    f = lambda y: mpmath.npdf(y) * (1 - q + q * mpmath.exp(s * y - s * s / 2)) ** alpha
    return mpmath.quad(f, [-mpmath.inf, -8, 0, alpha * s, alpha * s + 8, mpmath.inf])


POINTS = [("1.05", "0.5", "0.3"), ("1.5", "0.02", "2"), ("2.7", "0.9", "1"), ("10.3", "0.1", "0.25"),
          ("3", "0.999", "0.05"), ("40", "0.04", "0.5"), ("1.0001", "0.7", "3")]


@pytest.mark.parametrize("a,q,s", POINTS)
def test_one_step_exceeds_q2_G_by_quadrature(a: str, q: str, s: str) -> None:
    """log(A_alpha)/(alpha-1) > q^2 alpha s^2/2 (step 8), at fractional orders too; and our kernel agrees with
    the quadrature (relative 1e-20)."""
    from dptheory.privacy import sgm

    with mpmath.workdps(40):
        al, qq, ss = mpmath.mpf(a), mpmath.mpf(q), mpmath.mpf(s)
        eps = mpmath.log(_A_quad(al, qq, ss)) / (al - 1)
        lower = qq**2 * al * ss**2 / 2
        assert eps > lower
        kern = sgm.rdp_mp(al, qq, 1 / ss, 1)
        assert abs(kern - eps) <= mpmath.mpf(10) ** -20 * eps


@pytest.mark.parametrize("a,q,s", [("2.5", "0.3", "0.8"), ("7.25", "0.05", "1.5")])
def test_heat_flow_derivative_by_finite_difference(a: str, q: str, s: str) -> None:
    """d/dtau log A_alpha (tau = s^2) = (alpha(alpha-1)/2) <p^2> (steps 4-5), and <p> > q (steps 6-7)."""
    with mpmath.workdps(30):
        al, qq, ss = mpmath.mpf(a), mpmath.mpf(q), mpmath.mpf(s)
        lhs = mpmath.diff(lambda tau: mpmath.log(_A_quad(al, qq, mpmath.sqrt(tau))), ss**2)

        def weighted(h):  # E[h(X) F(X)] with X = sY - s^2/2
            def f(y):
                v = ss * y - ss**2 / 2
                base = 1 - qq + qq * mpmath.exp(v)
                return mpmath.npdf(y) * h(qq * mpmath.exp(v) / base) * base**al
            return mpmath.quad(f, [-mpmath.inf, -8, 0, al * ss, al * ss + 8, mpmath.inf])

        A = weighted(lambda p: 1)
        rhs = al * (al - 1) / 2 * weighted(lambda p: p * p) / A
        assert abs(lhs - rhs) <= mpmath.mpf(10) ** -15 * rhs
        assert weighted(lambda p: p) / A > qq


@pytest.mark.parametrize("alpha", [2, 3, 10, 32])
def test_integer_orders_by_the_binomial_expansion(alpha: int) -> None:
    """At integer alpha, A_alpha = E[exp(s^2 k(k-1)/2)], k ~ Binomial(alpha, q); Jensen gives the same bound."""
    rng = np.random.default_rng(20220310 + alpha)
    with mpmath.workdps(40):
        for _ in range(3):
            q, s = mpmath.mpf(float(rng.uniform(0.01, 0.99))), mpmath.mpf(float(rng.uniform(0.05, 2.0)))
            binom = mpmath.fsum(mpmath.binomial(alpha, k) * (1 - q) ** (alpha - k) * q**k
                                * mpmath.exp(s * s * k * (k - 1) / 2) for k in range(alpha + 1))
            assert abs(binom - _A_quad(mpmath.mpf(alpha), q, s)) <= mpmath.mpf(10) ** -25 * binom
            assert mpmath.log(binom) > alpha * (alpha - 1) * q * q * s * s / 2


def test_tie_at_b_equal_n_is_certified() -> None:
    """b = n (q = 1): K steps of composition are exactly K G = (b/n) G K (step 8b), on arb balls; this is why
    C5h's region keeps Thm 4.2's n/b >= 2."""
    comp, approx = REGISTRY.get("yeshokri22.composition"), REGISTRY.get("yeshokri22.composition_approx")
    for alpha, K in ((10, 3), (2, 1), (31, 7)):
        p = {"alpha": alpha, "eta": "0.02", "S_g": 4, "sigma": 2, "n": 2, "b": 2, "K": K}
        # G K with G = alpha eta S_g^2/(4 sigma^2 b^2) = alpha (2/100) 16/(4 * 4 * 4)
        exact = sp.Rational(alpha) * sp.Rational(2, 100) * 16 / (4 * 4 * 4) * K
        for thm in (comp, approx):
            enc = thm.evaluate(p, dps=40, certify=True).enclosure
            assert enc is not None and enc.contains(exact), thm.key
    claim = REGISTRY.get("yeshokri22.C5h")
    at = {"alpha": 10, "eta": "0.02", "S_g": 4, "sigma": 2, "K": 3}
    assert not in_region(claim, {**at, "n": 2, "b": 2})
    assert in_region(claim, {**at, "n": 4, "b": 2})


# ----------------------------------------------------------------------------- part 1, numerically
def _term2_direct(alpha: mpmath.mpf, G: mpmath.mpf, r: mpmath.mpf, N: int) -> mpmath.mpf:
    eps = [G * r ** (j - 1) / mpmath.fsum(r**s for s in range(j)) for j in range(1, N + 1)]
    top = max(eps)
    return top + mpmath.log(mpmath.fsum(mpmath.exp((alpha - 1) * (e - top)) for e in eps) / N) / (alpha - 1)


def test_second_term_between_G_minus_logN_over_alpha_minus_1_and_G() -> None:
    """G - log(N)/(alpha-1) <= term2 < G (part 1), with the registered term2 checked against its definition."""
    thm = REGISTRY.get("yeshokri22.thm4_2")
    rng = np.random.default_rng(7)
    with mpmath.workdps(50):
        for _ in range(25):
            b = int(rng.integers(1, 5))
            N = int(rng.integers(2, 40))
            lam = sp.Rational(int(rng.integers(1, 100)), 10)
            beta = lam + sp.Rational(int(rng.integers(0, 100)), 10)
            eta = sp.Rational(2, 1) / (lam + beta) * sp.Rational(int(rng.integers(1, 999)), 1000)
            alpha = sp.Rational(int(rng.integers(1001, 200000)), 1000)
            S_g, sigma = sp.Rational(int(rng.integers(1, 400)), 100), sp.Rational(int(rng.integers(10, 400)), 100)
            p = {"alpha": alpha, "eta": eta, "lam": lam, "beta": beta, "S_g": S_g, "sigma": sigma,
                 "n": N * b, "b": b, "K": N}
            t2 = thm.evaluate(p, dps=40, term="term2").value
            G = mpmath.mpf(alpha * eta * S_g**2 / (4 * sigma**2 * b**2))
            r = (1 - mpmath.mpf(eta) * mpmath.mpf(lam)) ** 2
            a = mpmath.mpf(alpha)
            assert abs(t2 - _term2_direct(a, G, r, N)) <= mpmath.mpf(10) ** -35 * G
            assert G - mpmath.log(N) / (a - 1) - mpmath.mpf(10) ** -35 * G <= t2 < G


def test_search_closest_approach_is_the_limit_not_a_tie() -> None:
    """The 2.8e-12 relative margin of the C5f search (alpha -> 1000, G -> 2.5e8, n/b = 2, K = 2) is log(2)/((alpha-1)
    G): the log-mean-exp tends to its largest term; the margin is positive."""
    p = {"alpha": 1000, "S_g": 100, "sigma": "0.1", "b": 1, "n": 2, "K": 2, "lam": "0.001", "beta": "0.001",
         "eta": "0.99999"}
    lhs = REGISTRY.get("yeshokri22.thm4_2").evaluate(p, dps=60, term="term2").value
    with mpmath.workdps(60):
        G = mpmath.mpf(1000) * mpmath.mpf("0.99999") * 10**4 / (4 * mpmath.mpf("0.01"))
        rel = 1 - lhs / G
        predicted = mpmath.log(2) / (999 * G)
        assert rel > 0
        assert abs(rel / predicted - 1) < mpmath.mpf(10) ** -30  # exp(-(alpha-1) G/(1+r)) is far below
    assert math.isclose(float(predicted), 2.775e-12, rel_tol=2e-3)


def test_c5h_region_and_reading_name_the_tie() -> None:
    c = REGISTRY.get("yeshokri22.C5h")
    assert "b = n" in c.reading and "n/b >= 2" in c.region.description
    assert c.symbolic is C.c5h_symbolic


def test_one_unproved_step_leaves_the_claim_undecided() -> None:
    steps = list(C.c5_steps("second term"))
    steps[3] = C._sign(sp.Symbol("x", real=True), "positive", "(4) a step that cannot be decided")
    res = C._all_proved(steps, "test")
    assert res.verdict is SymbolicVerdict.UNDECIDED and "(4) a step" in res.detail
    assert C._all_proved(list(C.c5_steps("second term")), "test").verdict is SymbolicVerdict.PROVED
