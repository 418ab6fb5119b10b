"""C5 of Ye & Shokri 2022 (arXiv 2203.05363, Sec. 4.1 and E.1): "Theorem 4.2 is strictly smaller than
composition-based privacy bound for DP-SGD after 1/(lambda eta) + n/b epochs", as data for
:mod:`dptheory.papers.yeshokri22.claims` (which registers the claims, in the paper's order): the regions, the pinned
counterexamples with their finding templates, and the sympy-checked steps of the proofs of C5e, C5f and C5h
(docs/derivations/yeshokri22_c5_second_term.md; tests/test_c5_proofs.py). This module registers nothing.
"""

from __future__ import annotations

import functools
from typing import Any

import sympy as sp

from dptheory.core.claims import Claim, Finding, Region
from dptheory.core.conditions import Condition
from dptheory.core.registry import REGISTRY
from dptheory.core.symbolic import SymbolicResult, all_proved, prove_zero
from dptheory.core.symbolic import prove_sign as _sign
from dptheory.papers.yeshokri22.theorems import LME_EXPR, Eps0, G_sym, K, N_sym, al, b, eta, j0, lam, n
from dptheory.verify.sides import side_at_pin

DIVIDES = Condition(sp.Eq(sp.Mod(n, b), 0), "b divides n (the paper's standing assumption, footnote 3)")
C5_RANGES = {"eta": (1e-2, 1.0, True), "lam": (1e-1, 10.0, True)}
C5_REGION = Region(
    constraints=(Condition(K >= 1 / (lam * eta) + n / b, "after 1/(lambda eta) + n/b epochs"), DIVIDES),
    ranges=C5_RANGES,
    description="valid points with b | n and K >= 1/(lambda eta) + n/b",
)
C5_T1_REGION = Region(
    constraints=(Condition(K >= 1 / (lam * eta), "after 1/(lambda eta) epochs"), DIVIDES),
    ranges=C5_RANGES,
    description="valid points with b | n and K >= 1/(lambda eta)",
)
C5_T2_REGION = Region(
    constraints=(Condition(K >= n / b, "after n/b epochs"), DIVIDES),
    description="every valid point of Thm 4.2 (n/b >= 2) with b | n and K >= n/b, every real alpha > 1",
)
C5_STATEMENT = (
    "Theorem 4.2 is strictly smaller than composition-based privacy bound for DP-SGD after 1/(lambda eta) "
    "+ n/b epochs. This is because the first term in Equation 5 is strictly smaller than the "
    "composition-based privacy bound after 1/(lambda eta) epochs, and the second term ... after n/b "
    "epochs."
)
# first term at K = 2 equals eps0^h; with N = 3 (h = 1) that is G, above the 2/3 G of two epochs of
# composition: the inequality (1-x)^a <= 1 - a x used in Eq. 145 is Bernoulli's inequality reversed
C5_T1_CE = {
    "alpha": 1000,
    "S_g": "0.01",
    "sigma": "0.1",
    "b": 995,
    "n": 2985,
    "lam": 10,
    "beta": 10,
    "eta": "0.091",
    "K": 2,
}
# at the pin: N = n/b, lambda eta, K, and (b/n) K, the approximation (b/n) G K over G; "eps0^1" is the batch
# count h = floor(N/2) = 1, "two epochs" is K = 2 in words (tests/test_findings.py::test_C5cd_...)
C5_T1_FINDING = Finding(
    "False when 1/(lambda eta) is small: with N = {N} and lambda eta = {lam_eta:g} the first term at K = {K} is "
    "eps0^1 = G, while two epochs of composition give about ({approx:frac}) G. The paper's Eq. 145 uses "
    "(1-x)^a <= 1 - a x, which is Bernoulli's inequality reversed ((1-x)^a >= 1 - a x for a >= 1), so "
    "the chain (144)-(146) bounding the first term by G/((n/b) lambda eta) is invalid; the first "
    "term's limit is eps0^h/(1 - r^(N-h)), which can exceed that.",
    lambda c: (lambda p: {"N": p["n"] / p["b"], "lam_eta": p["lam"] * p["eta"], "K": p["K"],
                          "approx": p["b"] * p["K"] / p["n"]})(Finding.pin(c)),
)
C5A_CE = {"alpha": 999, "S_g": "0.01", "sigma": "0.1", "b": 4, "n": 8, "lam": 2, "beta": 5, "eta": "8/29", "K": 4}


def _c5_small_n(c: Claim) -> dict[str, Any]:
    """C5a/C5b's pin: N = n/b, lambda eta, K, the epoch threshold 1/(lambda eta) + n/b, and the two sides."""
    p = Finding.pin(c)
    return {"N": p["n"] / p["b"], "lam_eta": p["lam"] * p["eta"], "K": p["K"],
            "threshold": 1 / (p["lam"] * p["eta"]) + p["n"] / p["b"],
            "lhs": side_at_pin(c, "lhs"), "rhs": side_at_pin(c, "rhs")}


C5A_FINDING = Finding(
    "The full C5 also fails when N = n/b is small and lambda eta is not: with N = {N}, lambda eta = {lam_eta:frac} "
    "and K = {K} >= 1/(lambda eta) + n/b = {threshold:.2f}, Thm 4.2 = {lhs:.5f} exceeds exact composition = "
    "{rhs:.5f} (b | n holds; both sides enclosed by arb and separated). Found by the margin-optimising search "
    "(search_counterexample), not by the earlier random search; the same mechanism as C5c (Eq. 145's reversed "
    "Bernoulli inequality). It holds on the Figure setting against the approximation (b/n) G K (C5b, certified "
    "there).",
    _c5_small_n,
)
C5B_CE = {"alpha": 999, "S_g": 2, "sigma": "1/9", "b": 2, "n": 4, "lam": "32/5", "beta": 7, "eta": "3/73", "K": 6}
C5B_FINDING = Finding(
    "Also false against the approximation (b/n) G K: with N = {N}, lambda eta = {lam_eta:frac} and K = {K} >= "
    "1/(lambda eta) + n/b = {threshold:.2f}, Thm 4.2 = {lhs:.2f} exceeds (b/n) G K = {rhs:.2f} (both sides enclosed "
    "by arb and separated). "
    "Found by the margin-optimising search without a pin; the same small-N mechanism as C5a. On the Figure "
    "setting box (alpha in [2, 32], eta in [0.01, 0.04], K = 1..200) the inequality holds (certified while this "
    "claim was narrowed to that box; the claim is about the paper's general statement, so it is falsified).",
    _c5_small_n,
)
# ----------------------------------------------------------------------------- C5e, C5f, C5h: the proofs
# docs/derivations/yeshokri22_c5_second_term.md, one sympy check per step (tests/test_c5_proofs.py)
C5_NOTE = "docs/derivations/yeshokri22_c5_second_term.md"
_a1 = sp.Symbol("a1", positive=True)  # alpha - 1 > 0
_P = sp.Symbol("P", positive=True)
_u = sp.Symbol("u", nonnegative=True)
_w = sp.Symbol("w", positive=True)
_kk = sp.Symbol("k", positive=True)
_dl = sp.Symbol("delta", positive=True)
_s_int = sp.Symbol("s", integer=True, nonnegative=True)
_v = sp.Symbol("v", real=True)
_y = sp.Symbol("y", real=True)
_sn = sp.Symbol("s", positive=True)  # s = 1/z, the Gaussian's sensitivity-to-noise ratio
_q = sp.Symbol("q", positive=True)
_Nb = sp.Symbol("N_b", positive=True, integer=True)  # n = b N_b when b divides n
_D = sp.Function("D")
_F_SGM = (1 - _q + _q * sp.exp(_v)) ** al
"""F(v) = (1 - q + q e^v)^alpha: the subsampled Gaussian's A_alpha is E[F(s Y - s^2/2)], Y ~ N(0, 1)."""
_P_SGM = _q * sp.exp(_v) / (1 - _q + _q * sp.exp(_v))


def c5_second_term_steps(lme: sp.Expr | None = None, approx: sp.Expr | None = None) -> list[SymbolicResult]:
    """Thm 4.2's second term is below G, and G <= (b/n) G K once K >= n/b (C5f; Sec. 4.1 and E.1 item 3).

    Steps of part 1 of the derivation note: eps0^1 = G; G - eps0^j = G P/(P + r^(j-1)) > 0 for j >= 2
    (P = sum_{s<j-1} r^s >= 1); the second term is G + log(M)/(alpha-1), M = mean_j exp(-(alpha-1)(G -
    eps0^j)), with 1/N <= M < 1; (b/n) G K - G = G b w/n >= 0 at K = n/b + w. ``lme`` and ``approx``
    default to the registered Thm 4.2 second term and (b/n) G K (overridable to test that a change is noticed).
    """
    lme = LME_EXPR if lme is None else lme
    approx = REGISTRY.get("yeshokri22.composition_approx").bound if approx is None else approx
    G1 = G_sym.subs(al, 1 + _a1)
    t = sp.Symbol("t", positive=True)  # 1 - eta lam = 1/(1+t): 0 < eta lam < 1 under the conditions
    r = (1 / (1 + t)) ** 2
    m = sp.Symbol("m", integer=True, nonnegative=True)  # j = m + 2 >= 2
    eps_j = Eps0(m + 2, G_sym, eta * lam).doit().subs(1 - eta * lam, 1 / (1 + t))
    geo = sp.Sum(r**_s_int, (_s_int, 0, m)).doit()
    term2 = lme.replace(lambda e: isinstance(e, Eps0), lambda e: G_sym - _D(e.args[0])).subs(al, 1 + _a1)
    mean = sp.Sum(sp.exp(-_a1 * _D(N_sym - j0)), (j0, 0, N_sym - 1)) / N_sym
    # exp(a1 (G - D_j)) = exp(a1 G) exp(-a1 D_j); the constant leaves the sum; then log of the product
    term2_split = sp.expand_log(sp.factor_terms(sp.expand(term2 - (G1 + sp.log(mean) / _a1))), force=True)
    w = sp.Symbol("w", nonnegative=True)
    return [
        prove_zero(Eps0(sp.Integer(1), G_sym, eta * lam).doit() - G_sym, "(1) eps0^1 - G"),
        prove_zero((G_sym - eps_j - G_sym * _P / (_P + r ** (m + 1))).subs(_P, geo),
                   "(2) G - eps0^(m+2) - G P/(P + r^(m+1)) with P = sum_{s=0}^{m} r^s, 1 - eta lam = 1/(1+t), t > 0"),
        _sign(G_sym * _P / (_P + r ** (m + 1)), "positive", "(3) G P/(P + r^(m+1)) with P > 0"),
        prove_zero(term2_split,
                   "(4) second term - (G + log(M)/(alpha-1)), eps0^j = G - D_j, alpha = 1 + a1, "
                   "M = mean_j exp(-a1 D_j)"),
        _sign(-sp.log(1 / (1 + _kk)) / _a1, "positive", "(5) G - second term at M = 1/(1+k), k > 0 (M < 1)"),
        _sign(sp.expand(sp.expand_log(sp.log(N_sym) / _a1 + sp.log((1 + _u) / N_sym) / _a1, force=True)),
              "nonnegative",
              "(6) log(N)/(alpha-1) - (G - second term) at M = (1+u)/N, u >= 0 (M >= 1/N)"),
        _sign(sp.simplify(approx.subs(K, n / b + w) - G_sym), "nonnegative",
              "(7) (b/n) G K - G at K = n/b + w, w >= 0"),
    ]


def c5_sgm_steps(composition: Any = None, approx: sp.Expr | None = None) -> list[SymbolicResult]:
    """One step of the Poisson-subsampled Gaussian has RDP > q^2 G at every real alpha > 1 when 0 < q < 1, and
    exactly G at q = 1; so K n/b steps exceed (b/n) G K when b | n and b < n (C5h; Sec. E.1 item 1).

    Steps of part 2 of the derivation note (a heat-flow argument in s = 1/z): the statement's A_alpha is
    E[F(sY - s^2/2)] with F(v) = (1 - q + q e^v)^alpha; alpha/(2 z^2) = G; the Gaussian moment generating
    function; Gaussian integration by parts (for any smooth F); F'' - F' = alpha(alpha-1) p^2 F; (p - q) F =
    q(1-q)(e^v - 1)(1-q+qe^v)^(alpha-1) and its sign; the tie at q = 1; the count of steps. ``composition``
    (the registered theorem) and ``approx`` ((b/n) G K) are overridable to test that a change is noticed.
    """
    comp = REGISTRY.get("yeshokri22.composition") if composition is None else composition
    approx = REGISTRY.get("yeshokri22.composition_approx").bound if approx is None else approx
    A_def = next(e for e in comp.statement if isinstance(e, sp.Eq) and isinstance(e.rhs, sp.Integral))
    z_def = next(e for e in comp.statement if isinstance(e, sp.Eq) and e.lhs == sp.Symbol("z", positive=True))
    T_def = next(e for e in comp.statement if isinstance(e, sp.Eq) and e.lhs == sp.Symbol("T"))
    integrand, (x, lo, hi) = A_def.rhs.function, A_def.rhs.limits[0]
    z = z_def.lhs
    phi = sp.exp(-_y**2 / 2) / sp.sqrt(2 * sp.pi)
    X = _sn * _y - _sn**2 / 2
    # x = z y, dx = z dy, s = 1/z, q = b/n; the integral runs over the whole line
    pulled = (integrand.subs(x, z * _y) * z).subs(z, 1 / _sn).subs(b, _q * n)
    whole_line = sp.Integer(0) if (lo, hi) == (-sp.oo, sp.oo) else sp.Integer(1)
    c = sp.Symbol("c", positive=True)
    mgf = sp.integrate(phi * sp.exp(c * _y), (_y, -sp.oo, sp.oo))
    Fg = sp.Function("F")
    F1X = sp.Subs(sp.Derivative(Fg(_v), _v), _v, X)
    F2X = sp.Subs(sp.Derivative(Fg(_v), (_v, 2)), _v, X)
    heat = (phi * sp.diff(Fg(X), _sn) - _sn * phi * (F2X - F1X) + sp.diff(phi * F1X, _y)) / phi
    F1, F2 = _F_SGM.diff(_v), _F_SGM.diff(_v, 2)
    one = {al: 1 + _a1}
    T = T_def.rhs.subs(n, b * _Nb)
    per_step = (b / n) ** 2 * G_sym + _dl
    return [
        prove_zero(pulled - phi * _F_SGM.subs(_v, X) + whole_line,
                   "(1) the statement's A_alpha integrand at x = z y, times dx/dy = z, minus phi(y) F(s y - s^2/2) "
                   "(s = 1/z, q = b/n; the integral is over the whole line)"),
        prove_zero(al / (2 * z_def.rhs**2) - G_sym, "(2) alpha/(2 z^2) - G with the statement's z"),
        prove_zero(mgf - sp.exp(c**2 / 2), "(3) E[exp(c Y)] - exp(c^2/2), Y ~ N(0, 1), c > 0"),
        prove_zero(mgf.subs(c, _sn) * sp.exp(-_sn**2 / 2) - 1, "(3a) E[exp(s Y - s^2/2)] - 1 (by (3) at c = s)"),
        prove_zero(sp.expand(heat), "(4) [phi d/ds F(X) - s phi (F'' - F')(X) + d/dy (phi F'(X))]/phi for any "
                   "smooth F, X = s y - s^2/2"),
        prove_zero(F2 - F1 - al * (al - 1) * _P_SGM**2 * _F_SGM, "(5) F'' - F' - alpha (alpha-1) p^2 F"),
        prove_zero((_P_SGM - _q) * _F_SGM - _q * (1 - _q) * (sp.exp(_v) - 1) * (1 - _q + _q * sp.exp(_v)) ** (al - 1),
                   "(6) (p - q) F - q (1-q) (e^v - 1) (1 - q + q e^v)^(alpha-1)"),
        _sign(((al - 1) * sp.log(1 + _q * _w)).subs(one), "positive",
              "(7a) (alpha-1) log(1 - q + q e^v) for v > 0 (e^v - 1 = w > 0)"),
        _sign(((al - 1) * sp.log(1 / (1 + _kk))).subs(one), "negative",
              "(7b) (alpha-1) log(1 - q + q e^v) for v < 0 (1 - q + q e^v = 1/(1+k), k > 0)"),
        prove_zero(_P_SGM.subs(_q, 1) - 1, "(8a) p - 1 at q = 1"),
        prove_zero(mgf.subs(c, al * _sn) * sp.exp(-al * _sn**2 / 2) - sp.exp(al * (al - 1) * _sn**2 / 2),
                   "(8b) E[exp(alpha X)] - exp(alpha (alpha-1) s^2/2) (by (3) at c = alpha s): F at q = 1, the tie "
                   "at b = n"),
        _sign(sp.simplify((T * per_step - approx).subs(n, b * _Nb)), "positive",
              "(9) T (q^2 G + delta) - (b/n) G K with T from the statement, n = b N_b (b | n), delta > 0"),
    ]


def _all_proved(steps: list[SymbolicResult], what: str) -> SymbolicResult:
    return all_proved(steps, what, C5_NOTE)


@functools.cache
def c5_steps(part: str) -> tuple[SymbolicResult, ...]:
    """The steps on the registered theorems (``"second term"`` or ``"sgm"``), computed once per process (C5e reuses
    C5f's and C5h's; the findings maps and C13c reuse them too)."""
    return tuple(c5_second_term_steps() if part == "second term" else c5_sgm_steps())


def _c5f_symbolic() -> SymbolicResult:
    return _all_proved(list(c5_steps("second term")), "second term < G <= (b/n) G K for K >= n/b, every alpha > 1, "
                       "0 < eta lam < 1 (1 - eta lam = 1/(1+t), t > 0), N = n/b >= 2")


def c5h_symbolic() -> SymbolicResult:
    return _all_proved(list(c5_steps("sgm")), "one step of the subsampled Gaussian has RDP > q^2 G for 0 < q < 1 and "
                       "every real alpha > 1 (integrated along s = 1/z); K n/b steps > (b/n) G K when b | n, b < n")


def _c5e_symbolic() -> SymbolicResult:
    return _all_proved(list(c5_steps("second term") + c5_steps("sgm")), "second term < G <= (b/n) G K < exact "
                       "composition for K >= n/b, b | n, N = n/b >= 2, every alpha > 1")


C5_SYMBOLIC = {"e": _c5e_symbolic, "f": _c5f_symbolic}
