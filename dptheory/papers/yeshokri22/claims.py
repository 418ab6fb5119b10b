"""The claims of Ye & Shokri 2022 (arXiv 2203.05363; C1-C10, each with the paper's words and section) as data.

Each claim records the paper's words, our reading (what is compared, on which region, what a vague
word such as "approximately" or "same order" is taken to mean), and, when the checks found it false,
its pinned counterexamples and the finding in words. Regions follow where the paper states the
claim: a sentence about Figure 1 or 2 is checked on the figure's setting (exhaustively), a general
sentence on the whole valid region (by property-based search).

The claims that compare registered theorems on a region given by values (C1a, C2a-C4, C6b-C9a) are the
``[[claim]]`` tables of ``paper.toml`` (read by :mod:`dptheory.core.paperfile`; the proofs, finding values, derived
parameters and long choice lists they name are defined here); the claims with sides built from formulas or
combinations, or regions with constraints (C1b, C5, C6, C9b-C10), are declared here. Both are registered in the
paper's order.
"""

from __future__ import annotations

from typing import Any

import mpmath
import sympy as sp

from dptheory.core import paperfile
from dptheory.core.claims import Claim, Finding, Quantity, Region, Relation, Verdict, combine, formula
from dptheory.core.conditions import Condition
from dptheory.core.registry import REGISTRY
from dptheory.core.symbolic import SymbolicResult, SymbolicVerdict, prove_finite_limit, prove_zero
from dptheory.papers.yeshokri22.claims_map import MAPS
from dptheory.papers.yeshokri22.theorems import (
    C_N2,
    FIGURE_SETTING,
    FIRST_TERM_EXPR,
    LME_EXPR,
    NOTATION,
    PAPER,
    Eps0,
    G_sym,
    K,
    N_sym,
    S_g,
    al,
    b,
    eps0,
    eta,
    h_sym,
    j0,
    lam,
    n,
    sigma,
)
from dptheory.verify.sides import side_at_pin

FIG = {k: v for k, v in FIGURE_SETTING.items()}
FIG1_K = list(range(1, 201))
"""K = 1..200, the epochs of Figures 1 and 2 (a region's choices: ``claims.FIG1_K`` in paper.toml)."""
FIG1_K_FROM_2 = FIG1_K[1:]
"""K = 2..200: Figure 1's epochs after the first (C3c, C3d)."""
FIG2B_K = list(range(50, 501))
"""K = 50..500: Figure 2b's epochs from 50 on, to 500 (C7)."""
J0_LAST = N_sym - 1
"""j0 = N - 1: the differing record in the last batch (a derived parameter: ``set = { j0 = "claims.J0_LAST" }``)."""
NEXT_K = K + 1
"""K + 1: a side one epoch later (C9a, C9b)."""


def T(key: str, label: str | None = None, **kw: Any) -> Quantity:
    """A side that is a registered theorem (optionally a term, a limit, derived parameters)."""
    return Quantity(label=label or key.split(".")[-1], theorem=f"yeshokri22.{key}", **kw)


def _add(c: Claim) -> Claim:
    return REGISTRY.add(c)


def _G_at(p: dict[str, sp.Rational]) -> sp.Rational:
    """G = alpha eta S_g^2/(4 sigma^2 b^2) (the theorems' shorthand G_sym) at an exact point."""
    return G_sym.xreplace({s: p[s.name] for s in G_sym.free_symbols})


def _c2c_finding_values(c: Claim) -> dict[str, Any]:
    """C2c's finding from its second pin (the Figure 2 setting): alpha, G/alpha and n/b."""
    p = Finding.pin(c, 1)
    return {"alpha": p["alpha"], "g": _G_at(p) / p["alpha"], "nb": p["n"] / p["b"]}


# ----------------------------------------------------------------------------- symbolic helpers
_t = sp.Symbol("t", positive=True)
_m = sp.Symbol("m", positive=True, integer=True)
_A = sp.Symbol("A", positive=True)


def _first_term_converges() -> SymbolicResult:
    """The K-dependence of the first term is (1 - u^(K-1)) with 0 < u < 1.

    Under the theorems' conditions, eta < 2/(lam+beta) and lam <= beta give 0 < eta lam < 1, so
    1 - eta lam = 1/(1+t) with t > 0; N - h = floor(n/b) - floor(n/(2b)) >= 1 is a positive integer m;
    eps0^h does not depend on K. Substituting these, sympy computes the limit.
    """
    expr = FIRST_TERM_EXPR.xreplace({Eps0(h_sym, G_sym, eta * lam): _A})
    expr = expr.xreplace({N_sym: _m + h_sym}).subs(1 - eta * lam, 1 / (1 + _t))
    expr = sp.simplify(expr.subs(h_sym, 0)) if expr.has(h_sym) else expr
    res = prove_finite_limit(expr, K, "first term of Thm 3.3/4.2 with 1-eta*lam = 1/(1+t), t > 0")
    return res


def _thm42_converges() -> SymbolicResult:
    first = _first_term_converges()
    second = prove_zero(sp.diff(LME_EXPR, K), "d/dK of the second term")
    if first.verdict is SymbolicVerdict.PROVED and second.verdict is SymbolicVerdict.PROVED:
        return SymbolicResult(SymbolicVerdict.PROVED, first.detail + "; " + second.detail)
    return SymbolicResult(SymbolicVerdict.UNDECIDED, first.detail + "; " + second.detail)


def _second_term_constant_in_K() -> SymbolicResult:
    return prove_zero(sp.diff(LME_EXPR, K), "d/dK of Thm 4.2's second term")


# ----------------------------------------------------------------------------- Feldman et al. 2018
_FELDMAN_RHS = 2 * al * (S_g / 2) ** 2 / ((sp.sqrt(2 * eta * sigma**2) / eta) ** 2 * (n - j0))


FELDMAN18_THM23 = formula(
    "Feldman et al. 2018 Thm 23, translated",
    _FELDMAN_RHS,
    parts=(Quantity(label="Thm D.4 validity", theorem="yeshokri22.thmD_4"),),
)
"""Feldman, Mironov, Talwar, Thakurta 2018 ("Privacy amplification by iteration", arXiv 1808.06651),
Thm 23: one pass of projected noisy SGD (step eta, noise N(0, sigma_F^2) added to the gradient,
L-Lipschitz convex beta-smooth losses) is (alpha, 2 alpha L^2/(sigma_F^2 (n - t + 1)))-RDP for its
t-th record. Translation to Algorithm 1 with b = 1 (Sec. D.4): record t = j0 + 1; a replace-one
gradient difference of 2L is S_g, so L = S_g/2; parameter-space noise eta sigma_F = sqrt(2 eta
sigma^2). The statement of Thm 23 is taken from our reading of that paper (we do not have its
text); the constant 2 alpha L^2/sigma_F^2 is the Gaussian RDP of a 2 eta L shift under
noise eta sigma_F, which is the structure any such statement has."""


def _c10_symbolic() -> SymbolicResult:
    lhs = REGISTRY.get("yeshokri22.thmD_4").bound.subs({K: 1, b: 1})
    return prove_zero(lhs - _FELDMAN_RHS, "Thm D.4 at K = 1, b = 1 minus Feldman et al. Thm 23 (translated)")


def _c3b_symbolic() -> SymbolicResult:
    from dptheory.core.compile import expand_shorthands

    t33, balle = REGISTRY.get("yeshokri22.thm3_3"), REGISTRY.get("yeshokri22.balle_last")
    lhs = expand_shorthands(t33.bound.subs({K: 1}).subs({j0: J0_LAST}))
    rhs = expand_shorthands(balle.bound.subs({K: 1}))
    return prove_zero(lhs - rhs, "Thm 3.3 (j0 = N - 1) minus Balle et al. (last batch), both at K = 1")


# ----------------------------------------------------------------------------- the claims
C = PAPER.item

_DATA = iter(paperfile.load(__name__, "paper.toml").claims(side_at_pin=side_at_pin))
"""The ``[[claim]]`` tables of paper.toml, built once the code they name (above) is defined."""


def _add_data(through: str | None = None) -> None:
    """Register the next claims of paper.toml, up to and including ``yeshokri22.<through>`` (``None``: the rest)."""
    for c in _DATA:
        _add(c)
        if c.key == f"yeshokri22.{through}":
            return
    if through is not None:
        raise ValueError(f"paper.toml declares no claim yeshokri22.{through} after those registered")


_add_data(through="C1a")

_add(
    Claim(
        key="yeshokri22.C1b",
        title="For the first batch, Thm 3.3 is smaller than Thm 2.1 by a factor of about n/b (Figure 1)",
        citation=C("Section 3.2, Figure 1"),
        statement="In Figure 1, we observe that for data points in the first batch B^0, our new privacy dynamics "
        "bound is smaller by a multiplicative factor of approximately n/b.",
        reading="'approximately n/b' read as: the ratio Thm 2.1 / Thm 3.3(j0 = 0) lies within a factor 2 of "
        "floor(n/b), on the Figure 1 setting (alpha in {10, 15}, K = 1..200).",
        lhs=combine("Thm 2.1 / Thm 3.3 (first batch)", "/", T("thm2_1"), T("thm3_3", set={"j0": sp.Integer(0)})),
        rhs=formula("floor(n/b)", N_sym),
        relation=Relation.EQ,
        factor=2.0,
        region=Region(fixed=FIG, choices={"alpha": [10, 15], "K": FIG1_K}, description="Figure 1 setting"),
        counterexamples=({**FIG, "alpha": 10, "K": 1},),
        # the pin is K = 1; K = 2 and 200 are the pin with K moved. Not from the pin: "its minimum" (at K = 2),
        # "10 and 15" (the region's alpha choices) and "1.7" (a bound below min_K ratio/(n/b) = 1.77): the scans
        # of tests/test_findings.py::test_C1b_ratio_84_at_K1_44_at_K2_933_at_K200_never_near_n_over_b check them
        finding=Finding(
            "The improvement is much larger than n/b = {nb} and grows with K: Thm 2.1 / Thm 3.3(first batch) is "
            "{r1:.1f} at K = {K}, {r2:.1f} at K = 2 (its minimum), and {r200:.0f} at K = 200, for alpha = 10 and 15 "
            "alike (both bounds are proportional to alpha). 'A factor of approximately n/b' understates the gap; it "
            "is never within a factor 1.7 of n/b on K = 1..200.",
            lambda c: {"nb": Finding.pin(c)["n"] / Finding.pin(c)["b"], "K": Finding.pin(c)["K"],
                       "r1": side_at_pin(c, "lhs"), "r2": side_at_pin(c, "lhs", K=2),
                       "r200": side_at_pin(c, "lhs", K=200)},
        ),
        failing=MAPS["C1b"],
    )
)


_add_data(through="C4")

# C5 (Sec. 4.1 and E.1): regions, pins, finding templates and the proofs are in claims_c5.py
from dptheory.papers.yeshokri22.claims_c5 import (  # noqa: E402  (after T: claims_c5 registers nothing)
    C5_RANGES,
    C5_REGION,
    C5_STATEMENT,
    C5_SYMBOLIC,
    C5_T1_CE,
    C5_T1_FINDING,
    C5_T1_REGION,
    C5_T2_REGION,
    C5A_CE,
    C5A_FINDING,
    C5B_CE,
    C5B_FINDING,
    DIVIDES,
    c5h_symbolic,
)
from dptheory.papers.yeshokri22.claims_general import c9d_symbolic  # noqa: E402  (registers nothing)

for suffix, lhs, rhs, region, what, ces, finding in [
    (
        "a",
        T("thm4_2", "Thm 4.2"),
        T("composition", "composition (exact)"),
        C5_REGION,
        "Thm 4.2 vs exact composition",
        (C5A_CE,),
        C5A_FINDING,
    ),
    (
        "b",
        T("thm4_2", "Thm 4.2"),
        T("composition_approx", "composition (approx.)"),
        C5_REGION,
        "Thm 4.2 vs the approximation (b/n) G K",
        (C5B_CE,),
        C5B_FINDING,
    ),
    (
        "c",
        T("thm4_2", "Thm 4.2 term 1", term="term1"),
        T("composition", "composition (exact)"),
        C5_T1_REGION,
        "first term vs exact composition, after 1/(lambda eta) epochs",
        (C5_T1_CE,),
        C5_T1_FINDING,
    ),
    (
        "d",
        T("thm4_2", "Thm 4.2 term 1", term="term1"),
        T("composition_approx", "composition (approx.)"),
        C5_T1_REGION,
        "first term vs the approximation, after 1/(lambda eta) epochs",
        (C5_T1_CE,),
        C5_T1_FINDING,
    ),
    (
        "e",
        T("thm4_2", "Thm 4.2 term 2", term="term2"),
        T("composition", "composition (exact)"),
        C5_T2_REGION,
        "second term vs exact composition, after n/b epochs",
        (),
        "",
    ),
    (
        "f",
        T("thm4_2", "Thm 4.2 term 2", term="term2"),
        T("composition_approx", "composition (approx.)"),
        C5_T2_REGION,
        "second term vs the approximation, after n/b epochs",
        (),
        "",
    ),
]:
    _add(
        Claim(
            key=f"yeshokri22.C5{suffix}",
            title=f"C5{suffix}: {what}",
            citation=C("Section 4.1 and E.1"),
            statement=C5_STATEMENT,
            reading=f"{what}: strict inequality at every valid point of the region ({region.description}).",
            lhs=lhs,
            rhs=rhs,
            relation=Relation.LT,
            region=region,
            counterexamples=ces,
            finding=finding,
            verdict=Verdict.PROVED if suffix in C5_SYMBOLIC else None,
            symbolic=C5_SYMBOLIC.get(suffix),
            failing=MAPS.get(f"C5{suffix}"),
        )
    )

_add(
    Claim(
        key="yeshokri22.C5g",
        title="C5a when b does not divide n (footnote 3: n/b read as floor(n/b))",
        citation=C("Section 4.1, footnote 3"),
        statement=C5_STATEMENT + " (Footnote 3: the bounds hold replacing n/b by floor(n/b).)",
        reading="as C5a, on valid points where b need not divide n, epochs counted from 1/(lambda eta) + n/b.",
        lhs=T("thm4_2", "Thm 4.2"),
        rhs=T("composition", "composition (exact)"),
        relation=Relation.LT,
        region=Region(
            constraints=(Condition(K >= 1 / (lam * eta) + n / b, "after 1/(lambda eta) + n/b epochs"),),
            ranges=C5_RANGES,
            description="valid points, K >= 1/(lambda eta) + n/b",
        ),
        counterexamples=(
            {
                "alpha": 1000,
                "S_g": "0.01",
                "sigma": "0.1",
                "b": 7,
                "n": 25,
                "lam": "0.1",
                "beta": "0.1",
                "eta": "0.01",
                "K": 1004,
            },
        ),
        finding=Finding(
            "With b not dividing n the shuffle bound runs floor(n/b) < n/b iterations per epoch while the baseline "
            "samples with probability b/n, so floor(n/b) b/n < 1 and the composition grows more slowly than (b/n) G "
            "K: C5a fails (n = {n}, b = {b}: Thm 4.2 = {lhs:.4f} > composition = {rhs:.4f} at K = {K} >= {inv} + "
            "{nb:frac}).",
            lambda c: (lambda p: {"n": p["n"], "b": p["b"], "K": p["K"], "inv": 1 / (p["lam"] * p["eta"]),
                                  "nb": p["n"] / p["b"], "lhs": side_at_pin(c, "lhs"),
                                  "rhs": side_at_pin(c, "rhs")})(Finding.pin(c)),
        ),
        failing=MAPS["C5g"],
    )
)

_add(
    Claim(
        key="yeshokri22.C5h",
        title="One epoch of composition exceeds (b/n) G (Sec. E.1, item 1)",
        citation=C("Section E.1, item 1"),
        statement="the composition-based privacy bound for one iteration is larger than (b^2/n^2) alpha eta S_g^2/"
        "(4 sigma^2 b^2) ... for one epoch is larger than (b/n) alpha eta S_g^2/(4 sigma^2 b^2).",
        reading="exact composition > (b/n) G K at every valid point with b | n and n/b >= 2 (both are linear in K), "
        "at every real alpha > 1. The sentence explains the terms of Thm 4.2, whose hypothesis and the paragraph "
        "itself say n/b >= 2; at b = n (q = 1, outside that) the two sides are equal (one step of composition is "
        "the Gaussian's G), so a strict inequality there would fail.",
        lhs=T("composition", "composition (exact)"),
        rhs=T("composition_approx", "(b/n) G K"),
        relation=Relation.GT,
        verdict=Verdict.PROVED,
        region=Region(constraints=(DIVIDES, C_N2),
                      description="every valid point with b | n and n/b >= 2 (Thm 4.2's hypothesis; the sides tie "
                      "at b = n), every real alpha > 1"),
        symbolic=c5h_symbolic,
    )
)

_add(
    Claim(
        key="yeshokri22.C6",
        title="Thm 4.3 (without replacement) is larger than Thm 4.2 (shuffle and partition)",
        citation=C("Section 4.2"),
        statement="our privacy bound under 'sample without replacement' ... is larger than our privacy bound under "
        "'shuffle and partition'.",
        reading="Thm 4.3 > Thm 4.2 at every point where both are valid.",
        lhs=T("thm4_3", "Thm 4.3"),
        rhs=T("thm4_2", "Thm 4.2"),
        relation=Relation.GT,
        region=Region(
            constraints=(DIVIDES,),
            ranges={"n": (2, 400, True), "K": (1, 400, True)},
            description="valid points of both with b | n (n <= 400, K <= 400 to keep the recurrence short)",
        ),
        counterexamples=(
            {
                "alpha": 1000,
                "S_g": "0.01",
                "sigma": "0.1",
                "K": 3,
                "lam": 10,
                "beta": 10,
                "eta": "0.01009",
                "b": 995,
                "n": 1990,
            },
        ),
        finding=Finding(
            "False in general: with N = n/b = {N} and eta lambda = {lam_eta:.1f} (q = {q:frac}, small G) the "
            "without-replacement bound (about {lhs:.2f} G) is below the shuffle bound (about {rhs:.1f} G). "
            "Linearising for small G, Thm 4.3 ~ (b/n) G (1 - r^(KN))/(1 - r) while Thm 4.2 ~ first term + mean_j "
            "eps0^j; the latter is larger when N is small and r is not close to 1. It holds at the paper's Figure 2 "
            "setting (C6b).",
            lambda c: (lambda p: {"N": p["n"] / p["b"], "lam_eta": p["lam"] * p["eta"], "q": p["b"] / p["n"],
                                  "lhs": side_at_pin(c, "lhs") / _G_at(p), "rhs": side_at_pin(c, "rhs") / _G_at(p)})(
                Finding.pin(c)),
        ),
        failing=MAPS["C6"],
    )
)

_add_data(through="C9a")


def _eps0N_mp(e: Any, dps: int) -> mpmath.mpf:
    from dptheory.papers.yeshokri22 import kernels as ys

    thm = REGISTRY.get("yeshokri22.thm4_2")
    with mpmath.workdps(dps):
        args = thm.kernel_args({p: e.get(p, sp.Integer(1)) for p in thm.params})  # K is not read
        G = ys.gaussian_step_rdp_mp(args["alpha"], args["eta"], args["S_g"], args["sigma"], args["b"])
        return ys.eps0_mp(int(e["n"]) // int(e["b"]), G, args["eta"], args["lam"])


def _eps0N_np(e: Any) -> float:
    from dptheory.papers.yeshokri22 import kernels as ys

    f = {k: float(v) for k, v in e.items()}
    G = ys.gaussian_step_rdp_np(f["alpha"], f["eta"], f["S_g"], f["sigma"], f["b"])
    return float(ys.eps0_np(float(int(e["n"]) // int(e["b"])), G, f["eta"], f["lam"]))


EPS0_N = Quantity(
    label="eps0^N",
    mp=_eps0N_mp,
    np=_eps0N_np,
    params=("alpha", "eta", "lam", "beta", "S_g", "sigma", "n", "b"),
    parts=(Quantity(label="Thm 4.2 validity", theorem="yeshokri22.thm4_2", set={"K": sp.Integer(1)}),),
)
EPS0_N_FORMULA = formula("eps0^N", eps0(N_sym), parts=EPS0_N.parts)
"""eps0^N from the same sympy expression as Thm 3.3's eps0^j (compiled to mpmath, float64 and arb)."""
_T1 = T("thm4_2", term="term1")
_T1_NEXT = T("thm4_2", term="term1", set={"K": NEXT_K})

_add(
    Claim(
        key="yeshokri22.C9b",
        title="The first term of Thm 4.2 grows by less than eps0^N per epoch",
        citation=C("Section 4.1"),
        statement="its growth rate is strictly smaller than eps0^{floor(n/b)} < (b/n) alpha eta S_g^2/(4 sigma^2 b^2)",
        reading="per-epoch increment term1(K+1) - term1(K) < eps0^N at every valid point and every K >= 1.",
        lhs=combine("term1(K+1) - term1(K)", "-", _T1_NEXT, _T1),
        rhs=EPS0_N_FORMULA,
        relation=Relation.LT,
        region=Region(description="all valid points"),
        counterexamples=(
            {
                "alpha": 1000,
                "S_g": "0.01",
                "sigma": "0.1",
                "b": 1,
                "n": 2,
                "K": 1,
                "lam": "0.001",
                "beta": "0.001",
                "eta": "0.0001",
            },
            {**FIG, "alpha": 10, "K": 1},
        ),
        finding=Finding(
            "The first term's increment from epoch K to K+1 is eps0^h r^((K-1)(N-h)), h = floor(N/2); at K = {K} "
            "it is eps0^h, which exceeds eps0^N because eps0^j decreases in j. The per-epoch growth is below eps0^N "
            "only after enough epochs; the paper's 'strictly smaller than eps0^{{floor(n/b)}}' may intend "
            "eps0^{{floor(n/(2b))}}, "
            "which is the exact supremum of the increments (not strictly smaller than it).",
            lambda c: {"K": Finding.pin(c)["K"]},
        ),
        failing=MAPS["C9b"],
    )
)

_add(
    Claim(
        key="yeshokri22.C9c",
        title="eps0^N < (b/n) G",
        citation=C("Section 4.1"),
        statement="eps0^{floor(n/b)} < (b/n) alpha eta S_g^2/(4 sigma^2 b^2)",
        reading="at every valid point, with N = floor(n/b) when b does not divide n (footnote 3).",
        lhs=EPS0_N_FORMULA,
        rhs=Quantity(label="(b/n) G", theorem="yeshokri22.composition_approx", set={"K": sp.Integer(1)}),
        relation=Relation.LT,
        region=Region(description="all valid points of Thm 4.2"),
        counterexamples=(
            {
                "alpha": 1000,
                "S_g": "0.01",
                "sigma": "0.1",
                "b": 2,
                "n": 5,
                "lam": "0.001",
                "beta": "0.001",
                "eta": "0.0001",
            },
        ),
        finding=Finding(
            "Only when b divides n (C9d verifies that case): with N = floor(n/b) < n/b, eps0^N ~ G/N can exceed "
            "(b/n) G (n = {n}, b = {b}: eps0^{N} ~ G/{N} > {q:g} G).",
            lambda c: (lambda p: {"n": p["n"], "b": p["b"], "N": p["n"] // p["b"], "q": p["b"] / p["n"]})(
                Finding.pin(c)),
        ),
        failing=MAPS["C9c"],
    )
)

_add(
    Claim(
        key="yeshokri22.C9d",
        title="eps0^N < (b/n) G when b divides n",
        citation=C("Section 4.1"),
        statement="eps0^{floor(n/b)} < (b/n) alpha eta S_g^2/(4 sigma^2 b^2)",
        reading="as C9c, on the paper's main-text region where b divides n (N = n/b), at every valid point of Thm "
        "4.2 and every real alpha > 1; proved: with n = b N and r = (1 + t)^(-2), (b/n) G - eps0^N = G psi/(N omega), "
        "psi = r^(-N) - 1 - N (1/r - 1) > 0 and omega = r^(-N) - 1 > 0 for N >= 2 "
        "(docs/derivations/yeshokri22_general_regions.md).",
        lhs=EPS0_N_FORMULA,
        rhs=Quantity(label="(b/n) G", theorem="yeshokri22.composition_approx", set={"K": sp.Integer(1)}),
        relation=Relation.LT,
        verdict=Verdict.PROVED,
        region=Region(constraints=(DIVIDES,),
                      description="every valid point of Thm 4.2 (eta < 2/(lambda + beta), lambda <= beta, n/b >= 2) "
                      "with b | n, every real alpha > 1"),
        symbolic=c9d_symbolic,
    )
)

_add(
    Claim(
        key="yeshokri22.C10",
        title="Thm D.4 coincides with Feldman et al. 2018 Thm 23 for K = 1, b = 1",
        citation=C("Section D.4, after Theorem D.4"),
        statement="Theorem D.4 is equivalent to Theorem 23 in Feldman et al. 2018 for Algorithm 1 under single-epoch "
        "setting (where K = 1) with batch-size b = 1.",
        reading="Thm D.4 at K = 1, b = 1 equals 2 alpha L^2/(sigma_F^2 (n - j0)) with L = S_g/2 and "
        "eta sigma_F = sqrt(2 eta sigma^2) (record t = j0 + 1).",
        lhs=T("thmD_4", "Thm D.4 (K=1, b=1)"),
        rhs=FELDMAN18_THM23,
        relation=Relation.EQ,
        verdict=Verdict.PROVED,
        region=Region(fixed={"K": 1, "b": 1}, description="K = 1, b = 1"),
        symbolic=_c10_symbolic,
    )
)

_add_data()

__all__ = ["NOTATION"]
from dptheory.papers.yeshokri22 import claims_epsdelta as _claims_epsdelta  # noqa: E402, F401  (our (epsilon, delta) restatements of C5, C7)
from dptheory.papers.yeshokri22 import claims_stated as _claims_stated  # noqa: E402, F401  (round 21: C10b, C12-C19)
from dptheory.papers.yeshokri22 import theorems_lemmas as _theorems_lemmas  # noqa: E402, F401  (Lemma 3.2, D.1, D.2, Thm D.5)
from dptheory.papers.yeshokri22.claims_map import register_companions  # noqa: E402

register_companions(_add)
