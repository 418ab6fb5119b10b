"""C1a, C4, C8 and C9d of Ye & Shokri 2022 (arXiv 2203.05363) proved on the paper's general region.

The paper states four comparisons without restricting the parameters: Thm 3.3 is below the naive Thm 2.1
(Sec. 3.2, C1a), Thm 4.2 is "always smaller" than Thm 3.3 for the last batch (Sec. 4.1, C4), Thm D.6 is
"strictly tighter" than Thm D.7 (Sec. D.7, C8) and eps0^{n/b} < (b/n) G (Sec. 4.1, C9d, when b divides n).
Each is proved here at every valid point, every K and every real alpha > 1, by steps that are each a sympy
identity or a sign that sympy decides from assumptions on positive symbols; the steps, and the few facts argued in
words that join them, are numbered in docs/derivations/yeshokri22_general_regions.md (tests:
tests/test_general_proofs.py).

The proofs read the claim they are attached to: its two sides as sympy expressions (so a changed theorem or a
changed side fails an identity step), its relation, and the conditions of the theorems it compares (each proof
derives what it needs, e.g. 0 < eta lambda < 1, from the conditions' own relationals). Two devices recur:

* a function that vanishes at 0 and whose derivative is a positive multiple of a function that is positive, is
  positive for z > 0 (:func:`from_zero`); the elementary bounds on exp and log are chains of this;
* a comparison is an identity ``difference == template`` in which ``template`` has *gap symbols* (positive
  symbols standing for quantities a lemma proved positive) and whose sign sympy decides (:func:`via_gaps`).

This module registers nothing: paper.toml and claims.py name its ``*_symbolic`` functions.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Mapping, Sequence

import sympy as sp

from dptheory.core.claims import Claim, Quantity, Relation
from dptheory.core.conditions import Condition
from dptheory.core.registry import REGISTRY
from dptheory.core.symbolic import SymbolicResult, SymbolicVerdict, all_proved, prove_sign, prove_zero
from dptheory.papers.yeshokri22.claims_c5 import DIVIDES, c5_second_term_steps
from dptheory.papers.yeshokri22.theorems import (
    C_ETA,
    C_ETA_GD,
    C_J0,
    C_LAM_BETA,
    C_N2,
    LME_EXPR,
    Eps0,
    G_sym,
    K,
    N_sym,
    S_g,
    al,
    b,
    beta,
    eta,
    h_sym,
    j0,
    lam,
    n,
    sigma,
)

NOTE = "docs/derivations/yeshokri22_general_regions.md"

_z = sp.Symbol("z", positive=True)  # the variable of the lemmas on exp
_y = sp.Symbol("y", positive=True)  # 1 - x = e^(-y): y = -log(1 - x) > 0 for 0 < x < 1
_v = sp.Symbol("v", positive=True)  # a point of (0, 1) as 1/(1+v), or eta = bound/(1+v) strictly below a bound
_d = sp.Symbol("d", nonnegative=True)  # beta = lambda + d (lambda <= beta)
_t = sp.Symbol("t", positive=True)  # 1 - eta lambda = 1/(1+t)
_u = sp.Symbol("u", positive=True)  # u = eta lambda/2 (Thm D.6, D.7)
_w = sp.Symbol("w", nonnegative=True)  # n = b (2 + w): n/b >= floor(n/b) >= 2
_m = sp.Symbol("m", integer=True, nonnegative=True)
_s = sp.Symbol("s", integer=True, nonnegative=True)
_k = sp.Symbol("k", integer=True, positive=True)  # a summation index of Thm D.6, D.7 (k >= 1)
_kk = sp.Symbol("k", integer=True, nonnegative=True)  # K = 2 + k (the induction in K starts at 2)
_M = sp.Symbol("M", positive=True)  # N = 1 + M, N >= 2
_Nb = sp.Symbol("N_b", integer=True, positive=True)  # n = b N_b when b divides n
_hh = sp.Symbol("h", integer=True, positive=True)  # floor(n/(2b)) (>= 1)
_mm = sp.Symbol("m_h", integer=True, positive=True)  # floor(n/b) - floor(n/(2b)) (>= 1)
_e = sp.Function("e")  # e(j) = eps0^j / G
# gap symbols: a quantity a lemma proved positive (or nonnegative), named where it is used
_gap = {name: sp.Symbol(name, positive=True) for name in ("delta", "gamma", "ell", "p", "phi", "psi", "omega", "eps")}
_kappa = {name: sp.Symbol(name, nonnegative=True) for name in ("kappa_h", "kappa_j", "mu")}

X = eta * lam
"""x = eta lambda, the contraction of one step (r = (1 - x)^2)."""


# ----------------------------------------------------------------------------- the two devices
@functools.cache
def decide(expr: sp.Expr, want: str, what: str) -> SymbolicResult:
    """:func:`~dptheory.core.symbolic.prove_sign` on ``expr`` or one of its equivalent normal forms (expanded;
    over a common denominator, factored), the first that sympy decides (cached: a changed claim recomputes only the
    steps its change reaches)."""
    res = prove_sign(expr, want, what)
    for form in (sp.expand, lambda e: sp.factor(sp.together(sp.expand(e)))):
        if res.verdict is SymbolicVerdict.PROVED:
            break
        res = prove_sign(form(expr), want, what)
    return res


@functools.cache
def identity(expr: sp.Expr, what: str) -> SymbolicResult:
    """``expr == 0`` (:func:`~dptheory.core.symbolic.prove_zero`) as written, or after logarithms of products and
    powers are split (every logarithm in the proofs is of a positive quantity on the region, which makes the split
    valid), or after that with powers combined (their bases are positive too): the first form that sympy simplifies
    to 0 (cached, as :func:`decide`)."""
    res = prove_zero(expr, what)
    if res.verdict is not SymbolicVerdict.PROVED:
        split = sp.expand_log(sp.expand(expr), force=True)
        res = prove_zero(split, what)
        if res.verdict is not SymbolicVerdict.PROVED:
            res = prove_zero(sp.powsimp(split, force=True), what)
    return res


def from_zero(what: str, z: sp.Symbol, chain: Sequence[tuple[sp.Expr, sp.Expr | None]]) -> list[SymbolicResult]:
    """``phi_0(z) > 0`` for every z > 0, by repeated differentiation.

    ``chain`` is ``[(phi_0, w_0), ..., (phi_k, None)]``: sympy checks ``phi_i(0) = 0``, ``phi_i' = w_i phi_{i+1}``
    and ``w_i > 0`` for i < k, and ``phi_k > 0``. Then (words, the mean value theorem from i = k - 1 down to 0)
    ``phi_i' > 0`` on z > 0 and ``phi_i(0) = 0`` give ``phi_i > 0`` on z > 0.
    """
    steps = []
    for i, ((phi, w), (nxt, _)) in enumerate(itertools.pairwise(chain)):
        assert w is not None
        steps += [
            prove_zero(phi.subs(z, 0), f"{what} [{i}a] phi_{i}(0) with phi_{i} = {sp.sstr(phi)}"),
            prove_zero(sp.diff(phi, z) - w * nxt, f"{what} [{i}b] phi_{i}' - ({sp.sstr(w)}) phi_{i + 1}"),
            decide(w, "positive", f"{what} [{i}c] the factor"),
        ]
    steps.append(decide(chain[-1][0], "positive", f"{what} [{len(chain) - 1}] phi_{len(chain) - 1}"))
    return steps


def via_gaps(what: str, diff: sp.Expr, template: sp.Expr, gaps: Mapping[sp.Symbol, sp.Expr], want: str = "positive",
             *, prepare: Callable[[sp.Expr], sp.Expr] = lambda e: e) -> list[SymbolicResult]:
    """``diff == template`` once each gap symbol is replaced by the quantity it stands for (``gaps``), and
    ``template`` is ``want`` with the gap symbols as positive (nonnegative) symbols: so ``diff`` is ``want``
    wherever the gaps' lemmas hold. ``prepare`` rewrites both first: a parametrisation of the region (e.g. a point
    of (0, 1) as 1/(1+v), v > 0) or symbols for integer parts, under which the sign is decided for every value."""
    return [
        identity(prepare(diff) - prepare(template.xreplace(dict(gaps))), f"{what}: identity"),
        decide(prepare(template), want, f"{what}: sign"),
    ]


def label(steps: list[SymbolicResult], tag: str) -> list[SymbolicResult]:
    """The steps with ``(tag)`` in front of their details (the numbering of the derivation note)."""
    return [SymbolicResult(st.verdict, f"({tag}) {st.detail}") for st in steps]


def _given(ok: bool, what: str) -> SymbolicResult:
    """A precondition on the claim as data (its relation, the conditions its theorems carry), not a sympy step."""
    return SymbolicResult(SymbolicVerdict.PROVED if ok else SymbolicVerdict.UNDECIDED,
                          f"{what}: {'yes' if ok else 'no: the proof does not apply'}")


# ----------------------------------------------------------------------------- lemmas (claim-independent)
@functools.cache
def exp_lemmas() -> dict[str, tuple[sp.Expr, tuple[SymbolicResult, ...]]]:
    """Three bounds on exp, each ``(phi(z), steps proving phi(z) > 0 for z > 0)``:

    * ``E1``: e^z - 1 - z > 0;
    * ``E2``: e^(-z) - 1 + z > 0 (so -log(1 - x) - x > 0 for 0 < x < 1: 1 - x = e^(-z));
    * ``E3``: 1 - e^(-z) - z + z^2/2 > 0.
    """
    z = _z
    e2 = [(sp.exp(-z) - 1 + z, sp.Integer(1)), (1 - sp.exp(-z), sp.Integer(1)), (sp.exp(-z), None)]
    chains = {
        "E1": [(sp.exp(z) - 1 - z, sp.Integer(1)), (sp.exp(z) - 1, sp.Integer(1)), (sp.exp(z), None)],
        "E2": e2,
        "E3": [(1 - sp.exp(-z) - z + z**2 / 2, sp.Integer(1)), *e2],
    }
    return {k: (ch[0][0], tuple(from_zero(k, z, ch))) for k, ch in chains.items()}


def _lemma(name: str, at: sp.Expr) -> sp.Expr:
    return exp_lemmas()[name][0].subs(_z, at)


def _lemma_steps(*names: str) -> list[SymbolicResult]:
    return [st for nm in names for st in exp_lemmas()[nm][1]]


@functools.cache
def _log_gap_steps() -> tuple[SymbolicResult, ...]:
    """ell(x) = -log(1 - x) - x is E2 at z = y where 1 - x = e^(-y), y > 0 (0 < x < 1)."""
    ell = -sp.log(1 - _v) - _v
    return (identity(ell.subs(_v, 1 - sp.exp(-_y)) - _lemma("E2", _y), "ell(1 - e^(-y)) - E2(y)"),)


def _ell(x: sp.Expr) -> sp.Expr:
    return -sp.log(1 - x) - x


@functools.cache
def eps0_ratio_steps() -> tuple[SymbolicResult, ...]:
    """e(j) = eps0^j/G lies in (0, 1]: 1/e(j) - 1 = kappa_j >= 0 (Thm 3.3's eps0^j, Eq. 99).

    j = 1: 1/e(1) - 1 = 0; j = m + 2 >= 2: 1/e(j) - 1 = P/r^(m+1) with P = sum_{s=0}^{m} r^s, which sympy decides
    positive (1 - eta lambda = 1/(1+t), t > 0).
    """
    r = (1 / (1 + _t)) ** 2
    P = sp.Sum(r**_s, (_s, 0, _m))
    ratio = (G_sym / Eps0(_m + 2, G_sym, X)).doit().subs(1 - X, 1 / (1 + _t))
    return (
        identity(G_sym / Eps0(sp.Integer(1), G_sym, X).doit() - 1, "G/eps0^1 - 1"),
        identity(ratio - 1 - P.doit() / r ** (_m + 1), "G/eps0^(m+2) - 1 - P/r^(m+1), P = sum_{s=0}^{m} r^s"),
        decide(P / r ** (_m + 1), "positive", "P/r^(m+1)"),
    )


def _x_in_unit_interval(bound: Condition, lam_beta: Condition) -> list[SymbolicResult]:
    """0 < eta lambda < 1 from the step-size condition ``eta < bound`` and lambda <= beta: with eta = bound/(1+v)
    (v > 0) and beta = lambda + d (d >= 0), 1 - eta lambda is positive (eta lambda > 0: positive symbols)."""
    rel = bound.relation
    ok = isinstance(rel, sp.StrictLessThan) and rel.lhs == eta and lam_beta.relation == (lam <= beta)
    one_minus = (1 - X).subs(eta, rel.rhs / (1 + _v)).subs(beta, lam + _d) if ok else sp.Symbol("undecided")
    return [decide(one_minus, "positive", f"1 - eta lambda at eta = ({sp.sstr(rel.rhs)})/(1+v), beta = lambda + d")]


def _assumes(of: Claim | Quantity, *conds: Condition) -> SymbolicResult:
    """Every theorem that ``of`` (a claim: both sides; or one side) refers to carries ``conds`` (the proof derives
    its facts from them)."""
    sides = of.sides() if isinstance(of, Claim) else (of,)
    thms = [ref.thm() for q in sides for ref in q.theorem_refs()]
    ok = bool(thms) and all(c in t.conditions for t in thms for c in conds)
    names = ", ".join(sorted({t.key for t in thms}))
    return _given(ok, f"{names} assume {'; '.join(str(c.relation) for c in conds)}")


def _strict(claim: Claim) -> SymbolicResult:
    return _given(claim.relation is Relation.LT and claim.factor is None, f"{claim.key} states lhs < rhs")


def _sides(claim: Claim) -> tuple[sp.Expr, sp.Expr]:
    lhs, rhs = claim.lhs.expression(), claim.rhs.expression()
    undecided = sp.Symbol("no_expression")
    return (undecided if lhs is None else lhs), (undecided if rhs is None else rhs)


# ----------------------------------------------------------------------------- C1a
def _per_G(expr: sp.Expr) -> sp.Expr:
    """Every eps0^j (of the one-step RDP G and contraction eta lambda) written G e(j); floor(n/(2b)) and
    floor(n/b) as the integer symbols h and h + m_h; 1 - eta lambda = 1/(1+t)."""
    expr = expr.replace(lambda a: isinstance(a, Eps0) and a.args[1:] == (G_sym, X), lambda a: G_sym * _e(a.args[0]))
    expr = expr.xreplace({h_sym: _hh}).xreplace({N_sym: _hh + _mm})
    return expr.subs(1 - X, 1 / (1 + _t))


def c1a_steps(claim: Claim | None = None) -> list[SymbolicResult]:
    """Thm 3.3 (any j0) < Thm 2.1 at every valid point and every K >= 1 (C1a, Sec. 3.2): the derivation note,
    section C1a. With x = eta lambda in (0, 1), e(j) = eps0^j/G in (0, 1], c = (4/x)(1 - e^(-x/2)):

    Thm 2.1 - Thm 3.3 > 0 at K = 1 and K = 2, and for K >= 2 Thm 2.1 grows by exp(T) > 1 times what Thm 3.3 grows
    (T > 0), so by induction at every K.
    """
    claim = claim or REGISTRY.get("yeshokri22.C1a")
    L, R = _sides(claim)
    x, G = X, G_sym
    c = 4 / x * (1 - sp.exp(-x / 2))
    kh, kj, mu = _kappa["kappa_h"], _kappa["kappa_j"], _kappa["mu"]
    delta, gamma, ell, phi, eps = (_gap[k] for k in ("delta", "gamma", "ell", "phi", "eps"))
    e_h, e_j = _e(h_sym), _e(N_sym - j0)
    kappa = {kh: 1 / e_h - 1, kj: 1 / e_j - 1}
    x01 = {eta: 1 / ((1 + _v) * lam)}  # x = eta lambda = 1/(1+v): a point of (0, 1)
    n_w = {n: b * (2 + _w)}
    dR, dL = R.subs(K, K + 1) - R, L.subs(K, K + 1) - L
    T = sp.log(1 + delta) + sp.log(1 + kh) + 2 * (1 + _kk) * (1 + mu) * (x + ell) - x * (2 + _kk) / 2
    T_gaps = {delta: c - 1, kh: kappa[kh], ell: _ell(x), _kk: K - 2, mu: N_sym - h_sym - 1}
    return [
        _strict(claim),
        _assumes(claim.lhs, C_ETA, C_LAM_BETA, C_N2, C_J0),
        *label(_x_in_unit_interval(C_ETA, C_LAM_BETA), "1"),
        *label([decide(G, "positive", "G")], "2"),
        *label(list(eps0_ratio_steps()), "3"),
        *label([decide((h_sym.subs(n_w) - 1), "nonnegative", "floor(n/(2b)) - 1 at n = b (2 + w)")], "4"),
        *label(via_gaps("floor(n/b) - floor(n/(2b)) at n = b (2 + w), phi = 1 - frac(w) > 0",
                        (N_sym - h_sym).subs(n_w).rewrite(sp.frac), _w / 2 + sp.frac(_w / 2) + phi,
                        {phi: 1 - sp.frac(_w)}), "5"),
        *label(_lemma_steps("E1", "E2", "E3") + list(_log_gap_steps()), "6"),
        *label(via_gaps("c - 1 = (4/x) E3(x/2) + 1 - x/2 at x = 1/(1+v)", c - 1, 4 / x * eps + 1 - x / 2,
                        {eps: _lemma("E3", x / 2)}, prepare=lambda e: e.subs(x01)), "7"),
        *label(via_gaps("(4/x)(1 - e^(-x)) - 2 = (4/x) E3(x) + 2 - 2x at x = 1/(1+v)",
                        4 / x * (1 - sp.exp(-x)) - 2, 4 / x * eps + 2 - 2 * x, {eps: _lemma("E3", x)},
                        prepare=lambda e: e.subs(x01)), "8"),
        *label(via_gaps("K = 1: Thm 2.1 - Thm 3.3 = G (c - e(N - j0))", R.subs(K, 1) - L.subs(K, 1),
                        G * (1 + delta - 1 / (1 + kj)), {delta: c - 1, **kappa}, prepare=_per_G), "9"),
        *label(via_gaps("K = 2: Thm 2.1 - Thm 3.3 = G ((4/x)(1 - e^(-x)) - e(h) - e(N - j0))",
                        R.subs(K, 2) - L.subs(K, 2), G * (2 + gamma - 1 / (1 + kh) - 1 / (1 + kj)),
                        {gamma: 4 / x * (1 - sp.exp(-x)) - 2, **kappa}, prepare=_per_G), "10"),
        *label([identity(_per_G(dL - G * e_h * (1 - x) ** (2 * (K - 1) * (N_sym - h_sym))),
                         "Thm 3.3(K+1) - Thm 3.3(K) - G e(h) r^((K-1)(N-h))")], "11"),
        *label([identity(_per_G(dR - dL * sp.exp(T.xreplace(T_gaps))),
                         "K >= 2: Thm 2.1(K+1) - Thm 2.1(K) - (Thm 3.3(K+1) - Thm 3.3(K)) exp(T), K = 2 + k, "
                         "N - h = 1 + mu")], "12"),
        *label([decide(T, "positive", "T = log c + log(1/e(h)) + 2 (K-1)(N-h)(x + ell) - x K/2")], "13"),
    ]


# ----------------------------------------------------------------------------- C4
@functools.cache
def _second_term_below_G() -> tuple[SymbolicResult, ...]:
    """Steps 1-5 of part 1 of docs/derivations/yeshokri22_c5_second_term.md (C5f's proof): Thm 4.2's second term is
    below eps0^1 = G, for N >= 2 and 0 < eta lambda < 1 (b | n is not used)."""
    wanted = {"(1)", "(2)", "(3)", "(4)", "(5)"}
    return tuple(st for st in c5_second_term_steps() if st.detail.split(" ", 1)[0] in wanted)


def c4_steps(claim: Claim | None = None) -> list[SymbolicResult]:
    """Thm 4.2 < Thm 3.3(j0 = N - 1) at every valid point and every K (C4, Sec. 4.1): the two share the first
    term, so rhs - lhs = eps0^1 - term2 (sympy), and eps0^1 = G > term2 is part 1, steps 1-5, of
    docs/derivations/yeshokri22_c5_second_term.md (:func:`~.claims_c5.c5_second_term_steps`, which needs N >= 2 and
    0 < eta lambda < 1 only)."""
    claim = claim or REGISTRY.get("yeshokri22.C4")
    L, R = _sides(claim)
    return [
        _strict(claim),
        _assumes(claim.lhs, C_ETA, C_LAM_BETA, C_N2),
        *label(_x_in_unit_interval(C_ETA, C_LAM_BETA), "1"),
        *label([identity(R - L - (Eps0(sp.Integer(1), G_sym, X) - LME_EXPR), "rhs - lhs - (eps0^1 - term2)")], "2"),
        *label(list(_second_term_below_G()), "3"),
    ]


# ----------------------------------------------------------------------------- C8
def c8_steps(claim: Claim | None = None) -> list[SymbolicResult]:
    """Thm D.6 < Thm D.7 at every valid point and every K >= 1 (C8, Sec. D.7): with u = eta lambda/2 in (0, 1/2)
    and A = alpha S_g^2/(lambda sigma^2 n^2), D.6 = A sum_{k=1}^K u (1-u)^k and D.7 = A sum_{k=1}^K (1 - e^(-u))
    e^(-u(k-1)); termwise, the D.7 term is the D.6 term times exp(log(1 + p/u) + k ell) with p = e^u - 1 - u > 0
    and ell = -log(1-u) - u > 0."""
    claim = claim or REGISTRY.get("yeshokri22.C8")
    L, R = _sides(claim)
    A = al * S_g**2 / (lam * sigma**2 * n**2)
    u = _u
    p, ell = _gap["p"], _gap["ell"]
    to_u = {eta: 2 * u / lam}
    t6, t7 = u * (1 - u) ** _k, (1 - sp.exp(-u)) * sp.exp(-u * (_k - 1))
    tau = sp.log(1 + p / u) + _k * ell
    return [
        _strict(claim),
        _assumes(claim, C_ETA_GD, C_LAM_BETA),
        *label(_x_in_unit_interval(C_ETA_GD, C_LAM_BETA), "1"),
        *label([decide(A, "positive", "A")], "2"),
        *label([identity((L.subs(to_u) - A * sp.Sum(t6, (_k, 1, K))).doit(), "Thm D.6 - A sum_k u (1-u)^k")], "3"),
        *label([identity((R.subs(to_u) - A * sp.Sum(t7, (_k, 1, K))).doit(),
                         "Thm D.7 - A sum_k (1 - e^(-u)) e^(-u(k-1))")], "4"),
        *label(_lemma_steps("E1", "E2") + list(_log_gap_steps()), "5"),
        *label([decide(t6.subs(u, 1 / (1 + _v)), "positive", "u (1-u)^k at u = 1/(1+v)")], "6"),
        *label(via_gaps("term k: D.7's = D.6's times exp(tau), at u = 1/(1+v)", t7, t6 * sp.exp(tau),
                        {p: _lemma("E1", u), ell: _ell(u)}, prepare=lambda e: e.subs(u, 1 / (1 + _v)))[:1], "7"),
        *label([decide(tau, "positive", "tau = log(1 + p/u) + k ell, k >= 1")], "8"),
    ]


# ----------------------------------------------------------------------------- C9d
def c9d_steps(claim: Claim | None = None) -> list[SymbolicResult]:
    """eps0^N < (b/n) G when b divides n, N = n/b >= 2 (C9d, Sec. 4.1): with n = b N, 1 - eta lambda = 1/(1+t)
    (t > 0) and rho = (1+t)^2 = 1/r, (b/n) G - eps0^N = G psi/(N omega) with psi = rho^N - 1 - N (rho - 1) > 0 and
    omega = rho^N - 1 > 0 (each by :func:`from_zero` in t, N = 1 + M)."""
    claim = claim or REGISTRY.get("yeshokri22.C9d")
    L, R = _sides(claim)
    psi, omega = _gap["psi"], _gap["omega"]
    Nb, t, M = _Nb, _t, _M
    rho = (1 + t) ** 2

    def psi_of(N_: sp.Expr) -> sp.Expr:
        return rho**N_ - 1 - N_ * (rho - 1)

    return [
        _strict(claim),
        _given(DIVIDES in claim.region.constraints, f"{claim.key}'s region requires b | n"),
        _assumes(claim.lhs, C_ETA, C_LAM_BETA, C_N2),
        *label(_x_in_unit_interval(C_ETA, C_LAM_BETA), "1"),
        *label(via_gaps("(b/n) G - eps0^N at n = b N, 1 - eta lambda = 1/(1+t)", (R - L.doit()).subs(n, b * Nb),
                        G_sym * psi / (Nb * omega), {psi: psi_of(Nb), omega: rho**Nb - 1},
                        prepare=lambda e: e.subs(1 - X, 1 / (1 + t))), "2"),
        *label(from_zero("psi at N = 1 + M", t, [(psi_of(1 + M), 2 * (1 + M) * (1 + t)),
                                                 ((1 + t) ** (2 * M) - 1, 2 * M * (1 + t) ** (2 * M - 1)),
                                                 (sp.Integer(1), None)]), "3"),
        *label(from_zero("omega", t, [(rho**Nb - 1, 2 * Nb * (1 + t) ** (2 * Nb - 1)), (sp.Integer(1), None)]), "4"),
    ]


# ----------------------------------------------------------------------------- the claims' proofs
_WHAT = {
    "C1a": "Thm 3.3 (any j0) < Thm 2.1 at every valid point, every K >= 1 and every real alpha > 1",
    "C4": "Thm 4.2 < Thm 3.3 (j0 = N - 1) at every valid point, every K >= 1 and every real alpha > 1",
    "C8": "Thm D.6 < Thm D.7 at every valid point (eta < 1/beta), every K >= 1 and every real alpha > 1",
    "C9d": "with b | n, eps0^(n/b) < (b/n) G at every valid point of Thm 4.2 and every real alpha > 1",
}
_STEPS: dict[str, Callable[[Claim | None], list[SymbolicResult]]] = {
    "C1a": c1a_steps, "C4": c4_steps, "C8": c8_steps, "C9d": c9d_steps,
}


@functools.cache
def _registered_steps(name: str) -> tuple[SymbolicResult, ...]:
    """The steps for the registered claim, computed once per process."""
    return tuple(_STEPS[name](None))


def _proof(name: str, claim: Claim | None) -> SymbolicResult:
    registered = claim is None or claim is REGISTRY.get(f"yeshokri22.{name}")
    steps = list(_registered_steps(name)) if registered else _STEPS[name](claim)
    return all_proved(steps, _WHAT[name], NOTE)


def c1a_symbolic(claim: Claim | None = None) -> SymbolicResult:
    return _proof("C1a", claim)


def c4_symbolic(claim: Claim | None = None) -> SymbolicResult:
    return _proof("C4", claim)


def c8_symbolic(claim: Claim | None = None) -> SymbolicResult:
    return _proof("C8", claim)


def c9d_symbolic(claim: Claim | None = None) -> SymbolicResult:
    return _proof("C9d", claim)


__all__ = ["NOTE", "c1a_steps", "c1a_symbolic", "c4_steps", "c4_symbolic", "c8_steps", "c8_symbolic", "c9d_steps",
           "c9d_symbolic", "decide", "exp_lemmas", "from_zero", "identity", "via_gaps"]
