"""The stated claims of Ye & Shokri 2022 encoded in round 21 (C10b-C19, dptheory/papers/yeshokri22/claims_stated.py).

Three kinds of test:

* the proofs' steps, and each one mutated: a wrong rate, constant, limit, bound or shifted form must leave a step
  unproved (a proof that cannot fail is not a proof);
* what the findings state beyond their pins (crossings, signs by alpha, ratios), re-computed here;
* Prop 5.2's counterexample (C15a, C15c) recomputed independently: numpy finite differences of the clipped gradient
  built from the softmax, not from the sympy expressions of the claims module.

Derivations: docs/derivations/yeshokri22_stated_claims.md.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp

import dptheory  # noqa: F401  (registers the papers)
from dptheory.core.registry import REGISTRY
from dptheory.core.symbolic import SymbolicVerdict
from dptheory.papers.yeshokri22 import claims_stated as S
from dptheory.papers.yeshokri22.theorems import FIGURE_SETTING, K, N_sym, eta, h_sym, lam

FIG = dict(FIGURE_SETTING)


def _verdicts(steps: list) -> list[SymbolicVerdict]:
    return [st.verdict for st in steps]


def _all(steps: list) -> bool:
    return all(v is SymbolicVerdict.PROVED for v in _verdicts(steps))


def _ev(key: str, term: str | None = None, **p: object) -> mpmath.mpf:
    return REGISTRY.get(f"yeshokri22.{key}").evaluate(p, term=term).value


# ----------------------------------------------------------------------------- proofs, and their mutations
def test_C12a_steps_and_a_wrong_rate() -> None:
    assert _all(S.c12a_steps())
    assert not _all(S.c12a_steps(rate=(1 - eta * lam) ** (2 * (N_sym - h_sym + 1))))


def test_C12b_steps_and_a_wrong_limit() -> None:
    assert _all(S.c12b_steps())
    assert not _all(S.c12b_steps(limit=S.THM43_LIMIT_EXPR * 2))


@pytest.mark.parametrize("c", [3, 4])
def test_C13_steps_prove_the_constant(c: int) -> None:
    assert _all(S.increment_steps(c))


def test_C13_constant_3_needs_N_at_most_3h() -> None:
    """N <= 3 floor(N/2) is what c = 3 uses; with 2 instead of 3 the step N = 2h + 1 fails (and it does: N = 3)."""
    steps = S.increment_steps(3)
    assert "3h - N at N = 2h + 1" in steps[6].detail
    assert S.prove_sign(2 * S._h - (2 * S._h + 1), "nonnegative", "x").verdict is not SymbolicVerdict.PROVED


def test_C16b_proves_the_corrected_form_and_refuses_the_printed_one() -> None:
    assert _all(S.c16b_steps())
    assert not _all(S.c16b_steps(S.FOOTNOTE4_PRINTED))


def test_C19_steps() -> None:
    assert _all(S.c19_steps())


def test_C14_steps_and_wrong_constants() -> None:
    L = S.NOTATION_L
    assert _all(S.c14_lipschitz_steps()) and _all(S.c14_smoothness_steps()) and _all(S.c15b_steps())
    assert not _all(S.c14_lipschitz_steps(bound=sp.sqrt(L**2 + 1)))
    assert not _all(S.c14_smoothness_steps(bound=(L**2 + 1) / 4))


def test_C10b_identity_at_every_K_not_only_K_equal_n() -> None:
    d4 = REGISTRY.get("yeshokri22.thmD_4").bound.subs(S.b, 1)
    assert sp.simplify(d4 - S.FELDMAN18_MULTI) == 0
    assert sp.simplify(d4 - S.FELDMAN18_MULTI.subs(K, K + 1)) != 0


def test_thmD5_first_batch_is_the_figure1_baseline_per_epoch() -> None:
    """Thm D.5 at j0 = 0 composed over K epochs is the Figure 1 baseline balle_first (Sec. D.6)."""
    for Kv in (1, 7):
        p = {**FIG, "alpha": 10}
        assert _ev("thmD_5", **p, j0=0) * Kv == pytest.approx(_ev("balle_first", **p, K=Kv), rel=1e-40)


# ----------------------------------------------------------------------------- what the findings state
def test_C11b_crossings_K4960_K4951() -> None:
    """Thm 2.1 is above composition up to K = 4959 (alpha 10), 4950 (alpha 15), not at the next K; from there on
    composition (increasing in K) exceeds Thm 2.1's limit alpha S_g^2/(lambda sigma^2 b^2) = alpha."""
    for alpha, last in ((10, 4959), (15, 4950)):
        p = {k: v for k, v in FIG.items() if k != "n"} | {"alpha": alpha}
        q = {k: v for k, v in FIG.items() if k not in ("lam", "beta")} | {"alpha": alpha}
        assert _ev("thm2_1", **p, K=last) > _ev("composition", **q, K=last)
        assert _ev("thm2_1", **p, K=last + 1) <= _ev("composition", **q, K=last + 1)
        assert _ev("composition", **q, K=last + 1) > alpha  # above the limit: below for every larger K too


@pytest.mark.parametrize(("alpha", "sign"), [("1.5", 1), (2, 0), (3, -1), (10, -1)])
def test_C16_printed_form_against_the_second_term_by_alpha(alpha: object, sign: int) -> None:
    c = REGISTRY.get("yeshokri22.C16")
    p = {**FIG, "alpha": alpha, "K": 1}
    lhs, rhs = S.side_at_pin(c, "lhs", **p), S.side_at_pin(c, "rhs", **p)
    d, tol = lhs - rhs, mpmath.mpf(10) ** -25  # the sides at 30 digits
    got = 1 if d > tol else -1 if d < -tol else 0
    assert got == sign, (alpha, lhs, rhs)
    if alpha == 10:
        assert lhs < 0


def test_C17_holds_at_the_figure_setting_fails_at_n_over_b_2_for_every_eta_lambda() -> None:
    G = mpmath.mpf(10) * mpmath.mpf("0.02") * 16 / (4 * 4 * 4)
    lim = REGISTRY.get("yeshokri22.thm4_2").limits["K"]
    t1_lim = _ev("thm4_2", "term1", **FIG, alpha=10, K=10**6)
    assert t1_lim / G == pytest.approx(0.1617, abs=5e-4) and t1_lim < 2 * G and lim is not None
    for x in ("0.01", "0.3", "0.9"):  # n/b = 2: G/(1 - r) > G/(2 x)
        xr = mpmath.mpf(x)
        assert 1 / (1 - (1 - xr) ** 2) > 1 / (2 * xr)


def test_C18_printed_over_true_is_one_plus_exp_minus_half() -> None:
    a = REGISTRY.get("yeshokri22.C18a")
    for Kv in (1, 5, 300):
        p = {**S._D7, "K": Kv}
        ratio = S.side_at_pin(a, "rhs", **p) / S.side_at_pin(a, "lhs", **p)
        x = mpmath.mpf("0.02")
        assert ratio == pytest.approx(float((1 - mpmath.exp(-x * Kv)) / (1 - mpmath.exp(-x * Kv / 2))), rel=1e-12)
        assert ratio > 1
    b = REGISTRY.get("yeshokri22.C18b")
    assert S.side_at_pin(b, "lhs") / S.side_at_pin(b, "rhs") == pytest.approx(1 + float(mpmath.exp(-0.01)), rel=1e-12)


def test_C19_factor_1_69_at_the_figure_setting() -> None:
    p = {**FIG, "alpha": 10, "K": 30, "j0": 0}
    stated = _ev("thm3_3", "term1", **p)
    r = (1 - mpmath.mpf("0.02")) ** 2
    assert stated / (stated * r**13) == pytest.approx(1.691, abs=1e-3)  # N - h = 25 - 12 = 13


# ----------------------------------------------------------------------------- Prop 5.2, independently
def _g0(theta: np.ndarray, C: float) -> np.ndarray:
    """The clipped gradient of -log softmax(theta)_1 (Eq. 8 at x = 0, y = class 1), clipped to norm C."""
    p = np.exp(theta - theta.max())
    p /= p.sum()
    grad = p - np.eye(len(theta))[0]
    return grad * min(1.0, C / np.linalg.norm(grad))


def test_C15_quadratic_form_by_finite_differences_matches_and_is_negative() -> None:
    theta, v = np.array([0.0, 8.0, 6.0]), np.array([3.0, -2.0, -1.0])
    C, h = 1.0, 1e-6
    jv = (_g0(theta + h * v, C) - _g0(theta - h * v, C)) / (2 * h)
    q = float(v @ jv / (v @ v))
    lam_ = 0.01
    exact = float(S.RAYLEIGH.subs({S.lam: sp.Rational(1, 100), S.S_g: 2})) - lam_
    assert q == pytest.approx(exact, rel=1e-6) and q == pytest.approx(-0.00603, abs=1e-5)


def test_C15_rayleigh_is_sympys_derivative_in_tau() -> None:
    """The side is built by the chain rule at the point; sympy's derivative of v . g(theta + tau v) as a whole, at
    tau = 0, is the independent computation: equal to 50 digits at two (lambda, S_g)."""
    direct = sp.diff(sum(v * gk for v, gk in zip(S.V_DIR, S.clipped_g(S._tt), strict=True)), S._tt).subs(S._tt, 0)
    direct = direct / S._V2
    for at in ({S.lam: sp.Rational(1, 100), S.S_g: 2}, {S.lam: sp.Rational(3, 7), S.S_g: sp.Rational(5, 3)}):
        a, b = sp.N(S.RAYLEIGH.subs(at), 50), sp.N(direct.subs(at), 50)
        assert abs(a - b) <= sp.Float(10, 50) ** -48 * abs(b), (at, a, b)


def test_C15_with_two_classes_the_clipped_jacobian_vanishes() -> None:
    """With c = 2 the Hessian is rank one along the gradient, so the clipped Jacobian is 0 (the finding's remark)."""
    rng = np.random.default_rng(0)
    for _ in range(5):
        theta, C, h = rng.normal(size=2) * 3, 0.1, 1e-6
        J = np.array([(_g0(theta + h * e, C) - _g0(theta - h * e, C)) / (2 * h) for e in np.eye(2)]).T
        assert np.abs(J).max() < 1e-8


def test_C15c_step_ratio_by_numpy() -> None:
    theta, v = np.array([0.0, 8.0, 6.0]), np.array([3.0, -2.0, -1.0])
    eta_, lam_, C = 0.01, 0.01, 1.0

    def f(t: np.ndarray) -> np.ndarray:
        return t - eta_ * (_g0(t, C) + lam_ * t)

    ratio = np.linalg.norm(f(theta + 0.1 * v) - f(theta)) / np.linalg.norm(0.1 * v)
    exact = float(S.STEP_RATIO.subs({S.eta: sp.Rational(1, 100), S.lam: sp.Rational(1, 100), S.S_g: 2}))
    assert ratio == pytest.approx(exact, rel=1e-12) and ratio > 1 - eta_ * lam_ + 5e-5
