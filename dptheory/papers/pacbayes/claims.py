"""Claims about the PAC-Bayes bounds: orderings the papers (and our derivations) state.

* ``dr18.C1``: Dziugaite & Roy 2018: "an eps-differentially private prior contributes 2 eps^2 to the
  generalization error" (the term 2 max{ln(3/delta), m eps^2}/m equals 2 eps^2 once m eps^2 >= ln(3/delta)).
* ``pacbayes.C1``: the max-information route (Dwork Thm 20 + G2, derived here) gives a smaller kl budget
  than DR18 for the same eps-DP prior (``docs/derivations/pacbayes_maxinfo.md``: leading term eps^2/2 instead
  of 2 eps^2).
* ``pacbayes.C2``: the McAllester form (recalled) is implied by the Maurer bound through Pinsker.
* ``pacbayes.C3``: the exact xi(n) is never worse than 2 sqrt(n) (Maurer 2004).
* ``pacbayes.C4``: the kl bound is never worse than its Pinsker relaxation.

``dr18.C1`` (custom sides, a constraint) is declared here; ``pacbayes.C1``-``C4`` are data, the ``[[claim]]`` tables
of ``paper.toml`` (read by :mod:`dptheory.core.paperfile`), registered at the end of this module, after the proofs
of C3 and C4 they name.
"""

from __future__ import annotations

import math
from typing import Any

import mpmath
import sympy as sp

from dptheory.core import paperfile
from dptheory.core.claims import Claim, Quantity, Region, Relation, Verdict, theorem_side
from dptheory.core.conditions import Condition
from dptheory.core.notation import rational_to_mpf
from dptheory.core.registry import REGISTRY
from dptheory.core.symbolic import (
    SymbolicResult,
    SymbolicVerdict,
    all_proved,
    claim_states,
    prove_positive_polynomial,
    prove_sign,
    prove_zero,
)
from dptheory.papers.pacbayes import theorems as P
from dptheory.verify.sides import side_at_pin

empD, KLD, mD, deltaD, epsD = P.NOTATION_DR.symbols("emp_risk", "KL", "m", "delta", "eps")


def _dp_term_mp(e: Any, dps: int) -> mpmath.mpf:
    with mpmath.workdps(dps):
        m = mpmath.mpf(int(e["m"]))
        eps = rational_to_mpf(sp.Rational(e["eps"]))
        delta = rational_to_mpf(sp.Rational(e["delta"]))
        return 2 * max(mpmath.log(3 / delta), m * eps**2) / m


def _dp_term_np(e: Any) -> float:
    m, eps, delta = float(e["m"]), float(e["eps"]), float(e["delta"])
    return 2 * max(float(mpmath.log(3 / delta)), m * eps * eps) / m


def _dr18_c1_symbolic() -> SymbolicResult:
    """On the region ln(3/delta) = m eps^2 - u with u >= 0, the DP term 2 max{ln(3/delta), m eps^2}/m (the
    expression _dp_term_mp evaluates) is 2 eps^2."""
    u = sp.Symbol("u", nonnegative=True)
    term = 2 * sp.Max(sp.log(3 / deltaD), mD * epsD**2) / mD
    on_region = term.subs(sp.log(3 / deltaD), mD * epsD**2 - u)
    what = "2 max{ln(3/delta), m eps^2}/m - 2 eps^2 with ln(3/delta) = m eps^2 - u, u >= 0"
    return prove_zero(on_region - 2 * epsD**2, what)


DR18_C1 = REGISTRY.add(Claim(
    key="dr18.C1",
    title="An eps-DP prior contributes 2 eps^2 to the kl budget (once m eps^2 >= ln(3/delta))",
    citation=P.DR18.item("remark after the DP-prior theorem"),
    statement="an eps-differentially private prior contributes 2 eps^2 to the generalization error",
    reading="The DP term 2 max{ln(3/delta), m eps^2}/m of dr18.dp_prior's kl budget equals 2 eps^2 wherever "
    "m eps^2 >= ln(3/delta) (below that it is 2 ln(3/delta)/m).",
    lhs=Quantity(label="2 max{ln(3/delta), m eps^2}/m", mp=_dp_term_mp, np=_dp_term_np, params=("m", "eps", "delta"),
                 parts=(theorem_side("dr18.dp_prior", set={"emp_risk": sp.Integer(0), "KL": sp.Integer(0)}),)),
    rhs=Quantity(label="2 eps^2", mp=lambda e, d: 2 * rational_to_mpf(sp.Rational(e["eps"])) ** 2,
                 np=lambda e: 2 * float(e["eps"]) ** 2, params=("eps",)),
    relation=Relation.EQ,
    verdict=Verdict.PROVED,
    symbolic=_dr18_c1_symbolic,
    region=Region(constraints=(Condition(mD * epsD**2 >= sp.log(3 / deltaD), "m eps^2 >= ln(3/delta)"),),
                  ranges={"eps": (0.05, 2.0, True), "m": (100, 1_000_000, True)},
                  description="m eps^2 >= ln(3/delta)"),
))

# ----------------------------------------------------------------------------- proofs of C3 and C4
# docs/derivations/pacbayes_c3_c4.md has the argument in words; each function below re-derives it from the
# *registered* statements (so a changed theorem, or a changed claim, is not proved by a stale proof) and
# returns UNDECIDED, with the failing step, as soon as one step does not go through. Given a claim (e.g. a
# mutated copy), the proof checks that claim's sides and relation instead of the registered one's.

_N0 = 8  # from n = 8 on, the analytic bound; below, exact rational values of xi(n)


def _undecided(what: str) -> SymbolicResult:
    return SymbolicResult(SymbolicVerdict.UNDECIDED, what)


def _xi_canonical(nn: sp.Symbol) -> sp.Sum:
    """Maurer's xi(n) = sum_{j=0}^{n} C(n, j) (j/n)^j (1 - j/n)^(n-j), written here independently of theorems.py."""
    j = sp.Symbol("j", integer=True, nonnegative=True)
    return sp.Sum(sp.binomial(nn, j) * (j / nn) ** j * (1 - j / nn) ** (nn - j), (j, 0, nn))


def _xi_le_2sqrt_proof(claim: Claim | None = None) -> SymbolicResult:
    """pacbayes.C3 for every n >= 1 (and every KL >= 0, delta in (0, 1)): the two kl budgets differ by
    (ln(2 sqrt n) - ln xi(n))/n, and xi(n) <= 2 sqrt(n) (docs/derivations/pacbayes_c3_c4.md):

    1. sympy: rhs - lhs == (ln(2 sqrt n) - ln X)/n with X = xi(n) > 0 (KL and delta cancel);
    2. n = 1..7: xi(n) as an exact rational (the statement's own sum, summed by sympy), xi(n)^2 <= 4n exactly;
    3. n >= 8: xi(n) < 2 + sqrt(pi n/2) (Robbins' Stirling bounds; the sympy-checked identity of the Stirling
       main terms, the sign of Robbins' remainder, the convexity of 1/sqrt(x(n-x)) and its integral pi), and
       2 + sqrt(pi n/2) <= 2 sqrt(n) for n >= 8 (arb: 2 - sqrt(pi/2) > 0 and the value at n = 8 is positive).
    """
    import flint

    why = claim_states(claim or REGISTRY.get("pacbayes.C3"), "maurer04.kl", "maurer04.kl_2sqrtn", Relation.LE,
                    "rhs", "rhs")
    if why:
        return _undecided(why)
    n = P.n
    lhs, rhs = REGISTRY.get("maurer04.kl").terms["rhs"].expr, REGISTRY.get("maurer04.kl_2sqrtn").terms["rhs"].expr
    if lhs is None or rhs is None:
        return _undecided("a budget has no sympy expression")
    sums = list(lhs.atoms(sp.Sum))
    if len(sums) != 1 or not sums[0].dummy_eq(_xi_canonical(n)):
        return _undecided("maurer04.kl's budget does not contain Maurer's xi(n) as the proof knows it")
    X = sp.Symbol("X", positive=True)
    diff = sp.expand_log(rhs - lhs.xreplace({sums[0]: X}), force=False)
    target = (sp.log(2) + sp.log(n) / 2 - sp.log(X)) / n
    if sp.simplify(diff - target) != 0:
        return _undecided(f"step 1: rhs - lhs = {sp.sstr(diff)} is not (ln(2 sqrt n) - ln xi(n))/n")
    # step 2: exact values below N0
    small = []
    for N in range(1, _N0):
        xi_n = sums[0].subs(n, N).doit()
        if not (xi_n.is_Rational and 0 < xi_n and xi_n**2 <= 4 * N):
            return _undecided(f"step 2: xi({N}) = {xi_n} is not <= 2 sqrt({N})")
        small.append(f"xi({N}) = {xi_n}")
    # step 3a: Stirling main terms: S(n)/(S(k) S(m)) k^k m^m / n^n = sqrt(n/(2 pi k m)), n = k + m
    k, m = sp.symbols("k m", positive=True)

    def S(x: sp.Expr) -> sp.Expr:
        return sp.sqrt(2 * sp.pi) * x ** (x + sp.Rational(1, 2)) * sp.exp(-x)

    ratio = S(k + m) / (S(k) * S(m)) * k**k * m**m / (k + m) ** (k + m)
    if sp.simplify(sp.expand_log(sp.log(ratio) - sp.log(sp.sqrt((k + m) / (2 * sp.pi * k * m))), force=True)) != 0:
        return _undecided("step 3a: the Stirling main terms do not give sqrt(n/(2 pi k (n-k)))")
    # step 3b: Robbins' remainders: 1/(12 n) - 1/(12 k + 1) - 1/(12 (n-k) + 1) < 0 for k, n - k >= 1
    a, b = sp.symbols("a b", nonnegative=True)
    rem = sp.Rational(1, 12) / (a + b + 2) - 1 / (12 * (a + 1) + 1) - 1 / (12 * (b + 1) + 1)
    if sp.factor(sp.together(rem)).is_negative is not True:
        return _undecided("step 3b: the sign of Robbins' remainder is not decided")
    # step 3c: g(t) = (t (1-t))^(-1/2) is convex on (0, 1): g'' = (3/4 (1-2t)^2 + t(1-t)) / (t(1-t))^(5/2)
    s_ = sp.Symbol("s", positive=True)
    t = s_ / (1 + s_)  # t in (0, 1)
    tt = sp.Symbol("t", positive=True)
    g = (tt * (1 - tt)) ** sp.Rational(-1, 2)
    num = sp.Rational(3, 4) * (1 - 2 * tt) ** 2 + tt * (1 - tt)
    g2 = sp.diff(g, tt, 2).subs(tt, t)
    if sp.simplify(g2 - (num / (tt * (1 - tt)) ** sp.Rational(5, 2)).subs(tt, t)) != 0 \
            or sp.simplify(num.subs(tt, t)).is_positive is not True:
        return _undecided("step 3c: the convexity of 1/sqrt(x(n-x)) is not shown")
    # step 3d: int_0^n dx/sqrt(x(n-x)) = pi: F(x) = 2 asin(sqrt(x/n)) has F' = 1/sqrt(x(n-x)) on (0, n)
    nn = sp.Symbol("n", positive=True)
    x = nn * t
    xs = sp.Symbol("x", positive=True)
    F = 2 * sp.asin(sp.sqrt(xs / nn))
    dF = sp.diff(F, xs).subs(xs, x)
    if sp.simplify(dF - 1 / sp.sqrt(x * (nn - x))) != 0 or sp.simplify(F.subs(xs, nn) - F.subs(xs, 0) - sp.pi) != 0:
        return _undecided("step 3d: the integral of 1/sqrt(x(n-x)) over (0, n) is not pi")
    # step 3e: 2 + sqrt(pi n/2) <= 2 sqrt(n) for n >= N0 (linear in sqrt(n) with a positive slope), on arb balls
    with flint.ctx.workprec(128):
        slope = 2 - (flint.arb.pi() / 2).sqrt()
        at_n0 = 2 * flint.arb(_N0).sqrt() - 2 - (flint.arb.pi() * _N0 / 2).sqrt()
        if not (slope > 0 and at_n0 > 0):
            return _undecided(f"step 3e: 2 + sqrt(pi n/2) <= 2 sqrt(n) not certified at n = {_N0}")
        margin = f"{math.floor(float(at_n0.lower()) * 10**4) / 10**4}"  # rounded down
    return SymbolicResult(
        SymbolicVerdict.PROVED,
        "maurer04.kl's budget <= maurer04.kl_2sqrtn's for every n >= 1, KL, delta: (1) sympy: their difference is "
        "(ln(2 sqrt n) - ln xi(n))/n (KL and delta cancel), so the claim is xi(n) <= 2 sqrt(n); (2) n = 1..7 exactly: "
        f"{', '.join(small)} (equality at n = 1); (3) n >= 8: xi(n) < 2 + sqrt(pi n/2) by Robbins' Stirling bounds "
        "(H. Robbins, 'A remark on Stirling's formula', Amer. Math. Monthly 62, 1955), the convexity of 1/sqrt(x(n-x)) "
        "and its integral pi over (0, n) (each identity and sign checked by sympy), and 2 + sqrt(pi n/2) <= 2 sqrt(n) "
        f"for n >= 8 (arb: 2 - sqrt(pi/2) > 0; 2 sqrt(8) - 2 - sqrt(4 pi) >= {margin}); "
        "docs/derivations/pacbayes_c3_c4.md",
    )


def _pinsker_proof(claim: Claim | None = None) -> SymbolicResult:
    """pacbayes.C4: kl^-1_+(q, B) <= q + sqrt(B/2) with the same budget B on both sides
    (docs/derivations/pacbayes_c3_c4.md):

    1. the registered statements: maurer04.kl_2sqrtn is kl(emp||R) <= B with B its term ``rhs``;
       pacbayes.pinsker_derived's bound equals emp + sqrt(B/2) (sympy); B > 0 on the valid region;
    2. Pinsker's binary inequality: f(d) = kl(q||q+d) - 2 d^2 has f(0) = 0 and f'(d) = d (1 - 2p)^2/(p (1-p)) >= 0
       (p = q + d), both checked by sympy (the sign on q in (0, 1), p in (q, 1) through a positive
       parametrisation, and at q = 0 separately);
    3. kl(q||.) is increasing on [q, 1) (its derivative (p - q)/(p (1 - p)) >= 0, sympy), so the inverse
       p* (where kl(q||p*) = B, or p* = 1 when q = 1) satisfies 2 (p* - q)^2 <= B.
    """
    why = claim_states(claim or REGISTRY.get("pacbayes.C4"), "maurer04.kl_2sqrtn", "pacbayes.pinsker_derived",
                    Relation.LE, None, None)
    if why:
        return _undecided(why)
    lhs_t, rhs_t = REGISTRY.get("maurer04.kl_2sqrtn"), REGISTRY.get("pacbayes.pinsker_derived")
    B = lhs_t.terms["rhs"].expr
    st = lhs_t.statement[0] if len(lhs_t.statement) == 1 else None
    if B is None or not isinstance(st, sp.LessThan) or st.lhs != P.kl(P.emp, P.R_SYM) or sp.simplify(st.rhs - B) != 0:
        return _undecided("step 1: maurer04.kl_2sqrtn is no longer kl(emp||R) <= its budget rhs")
    if rhs_t.bound is None or sp.simplify(rhs_t.bound - (P.emp + sp.sqrt(B / 2))) != 0:
        return _undecided("step 1: pacbayes.pinsker_derived is not emp + sqrt(B/2) with maurer04.kl_2sqrtn's budget B")
    # B > 0 where delta < 1, n >= 1, KL >= 0: with delta = 1/(1+u), n = (1+w)^2 (u > 0, w >= 0),
    # B n - KL = ln(2 (1+w) (1+u)), the logarithm of a number > 1
    u, w = sp.Symbol("u", positive=True), sp.Symbol("w", nonnegative=True)
    inner = sp.exp(sp.expand(B * P.n) - P.KLs).subs({P.delta: 1 / (1 + u), P.n: (1 + w) ** 2})
    if sp.expand(sp.simplify(inner) - 1).is_positive is not True:
        return _undecided("step 1: the budget's logarithm is not shown positive")
    # step 2: Pinsker's binary inequality
    q, d = sp.symbols("q d", nonnegative=True)
    p = q + d
    kl_qp = q * sp.log(q / p) + (1 - q) * sp.log((1 - q) / (1 - p))
    f = kl_qp - 2 * d**2
    fprime = d * (1 - 2 * p) ** 2 / (p * (1 - p))
    if sp.simplify(f.subs(d, 0)) != 0 or sp.simplify(sp.diff(f, d) - fprime) != 0:
        return _undecided("step 2: f(0) = 0 or f'(d) = d (1-2p)^2/(p(1-p)) fails")
    f0 = -sp.log(1 - d) - 2 * d**2  # q = 0 (0 ln 0 = 0)
    if sp.simplify(sp.diff(f0, d) - fprime.subs(q, 0)) != 0:
        return _undecided("step 2: the derivative at q = 0 differs")
    a, b = sp.Symbol("a", positive=True), sp.Symbol("b", nonnegative=True)
    on_domain = {q: a / (1 + a + b), d: b / (1 + a + b)}  # 0 < q < 1, 0 <= d, p = q + d < 1
    if sp.factor(sp.simplify(fprime.subs(on_domain))).is_nonnegative is not True:
        return _undecided("step 2: the sign of f' on 0 < q <= p < 1 is not decided")
    c_ = sp.Symbol("c", positive=True)  # q = 0: 0 <= d < 1 as d = c/(1+c)
    if sp.factor(sp.simplify(fprime.subs(q, 0).subs(d, c_ / (1 + c_)))).is_nonnegative is not True:
        return _undecided("step 2: the sign of f' at q = 0 is not decided")
    # step 3: kl(q||.) increasing on [q, 1)
    pp = sp.Symbol("p", positive=True)
    dkl = sp.diff(q * sp.log(q / pp) + (1 - q) * sp.log((1 - q) / (1 - pp)), pp)
    if sp.simplify(dkl - (pp - q) / (pp * (1 - pp))) != 0 or \
            sp.factor(sp.simplify(((pp - q) / (pp * (1 - pp))).subs(pp, p).subs(on_domain))).is_nonnegative is not True:
        return _undecided("step 3: kl(q||.) is not shown increasing on [q, 1)")
    return SymbolicResult(
        SymbolicVerdict.PROVED,
        "maurer04.kl_2sqrtn <= pacbayes.pinsker_derived at every valid point: both use the same budget B = "
        "(KL + ln(2 sqrt(n)/delta))/n > 0 (sympy: the Pinsker bound is emp + sqrt(B/2)); Pinsker's binary inequality "
        "kl(q||q+d) >= 2 d^2 (sympy: f(0) = 0, f'(d) = d (1-2p)^2/(p(1-p)) >= 0 on 0 <= q <= p < 1) and kl(q||.) "
        "increasing on [q, 1) give kl^-1_+(q, B) <= q + sqrt(B/2) (q = 1: the inverse is 1); "
        "docs/derivations/pacbayes_c3_c4.md",
    )


def _mcallester_proof(claim: Claim | None = None) -> SymbolicResult:
    """pacbayes.C2 at every valid point (docs/derivations/pacbayes_c3_c4.md, section C2): with n = 1 + w (w >= 0),
    delta = 1/(1 + u) (u > 0), KL >= 0 (the whole valid region; emp_risk cancels):

    1. the registered bounds are emp + sqrt(X) (mcallester99) and emp + sqrt(Y) (pacbayes.pinsker_derived, with
       maurer04.kl_2sqrtn's budget: Y = B/2), X and Y their squared excesses over emp, both roots nonnegative;
    2. X - Y = (2n P1 + P2)/(2n (2n - 1)) with P1 = ln(n)/2 + 2 - ln 2 and P2 = KL + ln(1/delta) + ln 2 + ln(n)/2
       (sympy identity);
    3. P1 > 0, P2 > 0 and 2n (2n - 1) > 0 (signs), so X > Y = P2/(2n) > 0 and sqrt(X) > sqrt(Y).
    """
    why = claim_states(claim or REGISTRY.get("pacbayes.C2"), "mcallester99", "pacbayes.pinsker_derived", Relation.GT,
                    None, None)
    if why:
        return _undecided(why)
    mc, pin, kl2 = (REGISTRY.get(k) for k in ("mcallester99", "pacbayes.pinsker_derived", "maurer04.kl_2sqrtn"))
    B = kl2.terms["rhs"].expr
    if mc.bound is None or pin.bound is None or B is None:
        return _undecided("a bound or the budget has no sympy expression")
    if sp.simplify(pin.bound - (P.emp + sp.sqrt(B / 2))) != 0:
        return _undecided("step 1: pacbayes.pinsker_derived is not emp + sqrt(B/2) with maurer04.kl_2sqrtn's budget B")
    u, w = sp.Symbol("u", positive=True), sp.Symbol("w", nonnegative=True)
    region = {P.delta: 1 / (1 + u), P.n: 1 + w}  # n >= 1, 0 < delta < 1
    n_ = 1 + w
    excess = [sp.expand_log((b - P.emp).subs(region), force=True) for b in (mc.bound, pin.bound)]
    if any(e.has(P.emp) or e.is_nonnegative is not True for e in excess):
        return _undecided("step 1: a bound minus emp_risk is not a nonnegative expression free of emp_risk")
    X, Y = (e**2 for e in excess)
    P1 = sp.log(n_) / 2 + 2 - sp.log(2)
    P2 = P.KLs + sp.log(1 + u) + sp.log(2) + sp.log(n_) / 2
    step2 = prove_zero(sp.expand_log(X - Y - (2 * n_ * P1 + P2) / (2 * n_ * (2 * n_ - 1)), force=True),
                       "step 2: X - Y - (2n P1 + P2)/(2n (2n - 1))")
    if step2.verdict is not SymbolicVerdict.PROVED:
        return _undecided(step2.detail)
    p1_rest = sp.simplify(P1 - sp.log(n_) / 2)  # the constant 2 - ln 2
    signs = [prove_sign(sp.log(n_), "nonnegative", "step 3: ln n"), prove_sign(p1_rest, "positive", "step 3: 2 - ln 2"),
             prove_sign(P2, "positive", "step 3: P2"),
             prove_sign(2 * n_ * (2 * n_ - 1), "positive", "step 3: 2n (2n - 1)")]
    bad = [st.detail for st in signs if st.verdict is not SymbolicVerdict.PROVED]
    if bad:
        return _undecided(bad[0])
    return SymbolicResult(
        SymbolicVerdict.PROVED,
        "the recalled McAllester bound (mcallester99) > pacbayes.pinsker_derived at every valid point (every emp_risk "
        "in [0, 1], KL >= 0, n >= 1, delta in (0, 1)): both are emp_risk + a square root (sympy; the Pinsker form "
        "with maurer04.kl_2sqrtn's budget), and the radicands differ by (2n P1 + P2)/(2n (2n - 1)) with P1 = "
        "ln(n)/2 + 2 - ln 2 > 0 and P2 = KL + ln(2 sqrt(n)/delta) > 0 (sympy identity and signs, with n = 1 + w, "
        "delta = 1/(1 + u)); "
        "docs/derivations/pacbayes_c3_c4.md",
    )


# pacbayes.C1 - C4 are data: the [[claim]] tables of paper.toml (C3 and C4 name their proofs above)
for _claim in paperfile.load(__name__, "paper.toml").claims(side_at_pin=side_at_pin):
    REGISTRY.add(_claim)


# ----------------------------------------------------------------------------- where pacbayes.C1 holds
# pacbayes.C1 fails in a band around m eps^2 = ln(3/delta) (its [claim.failing] map in paper.toml); below and above
# the band it holds, proved here (docs/derivations/pacbayes_maxinfo.md, "Where the variant is smaller")
_u, _L = sp.Symbol("u", positive=True), sp.Symbol("L", positive=True)  # u = m eps^2, L = ln(1/delta) > 0
C1_NOTE = "docs/derivations/pacbayes_maxinfo.md, 'Where the variant is smaller'"
C1_BELOW = sp.Rational(3, 4) * sp.log(1 / deltaD)
"""pacbayes.C1 holds where m eps^2 <= (3/4) ln(1/delta) (pacbayes.C1_holds_below)."""
C1_ABOVE = sp.Rational(5, 4) * sp.log(3 / deltaD)
"""pacbayes.C1 holds where m eps^2 >= (5/4) ln(3/delta) (pacbayes.C1_holds_above)."""


def c1_gap(claim: Claim) -> tuple[list[SymbolicResult], sp.Expr | None]:
    """The common steps of both companions of pacbayes.C1: m (DR18 budget - variant budget) >= G(u, L) with
    u = m eps^2, L = ln(1/delta), where G is the difference with xi(m) replaced by 2 sqrt(m) (xi(m) <= 2 sqrt(m):
    pacbayes.C3's proof) and the Max left in place. Returns the steps and G (None when a step fails)."""
    why = claim_states(claim, "pacbayes.dr18_maxinfo_variant_derived", "dr18.dp_prior", Relation.LT, "rhs", "rhs")
    if why:
        return [_undecided(why)], None
    variant = REGISTRY.get("pacbayes.dr18_maxinfo_variant_derived").terms["rhs"].expr
    dr18 = REGISTRY.get("dr18.dp_prior").terms["rhs"].expr
    if variant is None or dr18 is None:
        return [_undecided("a budget has no sympy expression")], None
    sums = list(variant.atoms(sp.Sum))
    if len(sums) != 1 or not sums[0].dummy_eq(_xi_canonical(mD)):
        return [_undecided("the variant's budget does not contain Maurer's xi(m) as the proof knows it")], None
    xi_bound = REGISTRY.get("pacbayes.C3").symbolic
    lemma = xi_bound() if xi_bound is not None else _undecided("pacbayes.C3 has no proof")
    X = sp.Symbol("X", positive=True)
    relaxed = variant.xreplace({sums[0]: 2 * sp.sqrt(mD)})
    steps = [
        SymbolicResult(lemma.verdict, f"(1) xi(m) <= 2 sqrt(m) for every m >= 1 (pacbayes.C3): {lemma.verdict.value}"),
        prove_zero(sp.expand_log(variant.xreplace({sums[0]: X}) - relaxed, force=True)
                   - (sp.log(X) - sp.log(2 * sp.sqrt(mD))) / mD,
                   "(2) variant - variant with 2 sqrt(m) for xi(m) - (ln xi(m) - ln(2 sqrt m))/m"),
    ]
    on = {epsD: sp.sqrt(_u / mD), deltaD: sp.exp(-_L)}
    G = (-sp.log(2) - _L + 2 * sp.Max(sp.log(3) + _L, _u) - _u / 2 - sp.sqrt(_u * (sp.log(4) + _L) / 2))
    steps.append(prove_zero(sp.expand_log(sp.expand(mD * (dr18 - relaxed)).xreplace(on), force=True) - G,
                            "(3) m (DR18 - relaxed variant) - G(u, L) at eps = sqrt(u/m), delta = e^-L"))
    return steps, G


def _c1_holds_symbolic(claim: Claim, where: str) -> SymbolicResult:
    steps, G = c1_gap(claim)
    if G is None or any(st.verdict is not SymbolicVerdict.PROVED for st in steps):
        return all_proved(steps, "pacbayes.C1's budgets", C1_NOTE)
    bound = claim.region.constraints[0].relation if len(claim.region.constraints) == 1 else None
    want = {"below": sp.LessThan(mD * epsD**2, C1_BELOW), "above": sp.GreaterThan(mD * epsD**2, C1_ABOVE)}[where]
    if bound != want:
        return _undecided(f"the region is no longer {sp.sstr(want)}")
    ell3 = sp.log(3) + _L
    if where == "below":  # u <= 3L/4 < ln 3 + L: the Max is ln 3 + L; G decreases in u; G(3L/4) > 0
        g = G.subs(sp.Max(ell3, _u), ell3)
        root = sp.sqrt(3 * _L * (sp.log(4) + _L) / 8)
        rest = 5 * _L / 8 + 2 * sp.log(3) - sp.log(2)
        steps += [
            prove_sign(sp.expand(ell3 - 3 * _L / 4), "positive", "(4) ln 3 + L - 3L/4 (so the Max is ln 3 + L)"),
            prove_sign(sp.diff(g, _u), "negative", "(5) dG/du below the band"),
            prove_zero(g.subs(_u, 3 * _L / 4) - (rest - root),
                       "(6) G(3L/4) - (5L/8 + 2 ln 3 - ln 2 - sqrt(3L(ln 4 + L)/8))"),
            prove_positive_polynomial(rest, _L, "(6) 5L/8 + 2 ln 3 - ln 2"),
            prove_positive_polynomial(rest**2 - root**2, _L, "(6) (5L/8 + 2 ln 3 - ln 2)^2 - 3L(ln 4 + L)/8"),
        ]
        what = "m eps^2 <= (3/4) ln(1/delta)"
    else:  # u >= (5/4)(ln 3 + L) >= ln 3 + L: the Max is u; AM-GM on sqrt(u b); then u - 5L/4 - 3/2 ln 2 > 0
        U, B, _w = sp.Symbol("U", positive=True), sp.Symbol("B", positive=True), sp.Symbol("w", positive=True)
        b = (sp.log(4) + _L) / 2
        g = G.subs(sp.Max(ell3, _u), _u)
        lower = _u - sp.Rational(5, 4) * _L - sp.Rational(3, 2) * sp.log(2)
        steps += [
            prove_sign(sp.expand(sp.Rational(5, 4) * ell3 - ell3), "positive",
                       "(4) (5/4)(ln 3 + L) - (ln 3 + L) (so the Max is u)"),
            prove_zero(sp.expand(sp.expand_log(g - lower - ((_u + b) / 2 - sp.sqrt(_u * b)), force=True)),
                       "(5) G - (u - 5L/4 - 3/2 ln 2) - ((u + b)/2 - sqrt(u b)), b = (ln 4 + L)/2"),
            prove_zero((U**2 + B**2) / 2 - U * B - (U - B) ** 2 / 2, "(5) AM-GM: (U^2 + B^2)/2 - U B - (U - B)^2/2"),
            prove_positive_polynomial(lower.subs(_u, sp.Rational(5, 4) * ell3 + _w), _w,
                                      "(6) u - 5L/4 - 3/2 ln 2 at u = (5/4)(ln 3 + L) + w, w > 0"),
        ]
        what = "m eps^2 >= (5/4) ln(3/delta)"
    return all_proved(steps, "the variant's budget (pacbayes.dr18_maxinfo_variant_derived) < dr18.dp_prior's "
                     f"wherever {what} (every m >= 1, eps > 0, delta in (0, 1), KL): with xi(m) <= 2 sqrt(m), "
                     "u = m eps^2 and L = ln(1/delta) the difference is G(u, L)/m, positive there", C1_NOTE)


def _c1_below(claim: Claim | None = None) -> SymbolicResult:
    return _c1_holds_symbolic(claim or REGISTRY.get("pacbayes.C1_holds_below"), "below")


def _c1_above(claim: Claim | None = None) -> SymbolicResult:
    return _c1_holds_symbolic(claim or REGISTRY.get("pacbayes.C1_holds_above"), "above")


_C1 = REGISTRY.get("pacbayes.C1")
for _where, _bound, _rel, _proof, _words in (
        ("below", C1_BELOW, sp.LessThan, _c1_below, "m eps^2 <= (3/4) ln(1/delta)"),
        ("above", C1_ABOVE, sp.GreaterThan, _c1_above, "m eps^2 >= (5/4) ln(3/delta)")):
    REGISTRY.add(_C1.companion(
        f"pacbayes.C1_holds_{_where}",
        f"Max-information route beats DR18 for an eps-DP prior where {_words} (kl budget)",
        Region(constraints=(Condition(_rel(mD * epsD**2, _bound), _words),),
               ranges={"eps": (0.001, 2.0, True), "m": (1, 1_000_000, True)},
               description=f"every valid point with {_words}"),
        verdict=Verdict.PROVED, symbolic=_proof,
        reading=f"pacbayes.dr18_maxinfo_variant_derived's kl budget < dr18.dp_prior's at every valid point with "
        f"{_words}: {_where} the band around m eps^2 = ln(3/delta) where pacbayes.C1 fails."))

__all__ = ["DR18_C1"]
