"""Ye & Shokri 2022, "Differentially Private Learning Needs Hidden State (Or Much Faster Convergence)".

NeurIPS 2022, arXiv 2203.05363 (items cited by theorem, section and equation of the arXiv version).
Declarations only: numerics live in
:mod:`dptheory.papers.yeshokri22.kernels` and :mod:`dptheory.privacy.sgm`.

Notation (Algorithm 1): ``sigma`` is the noise scale of Algorithm 1 -- each update adds
``sqrt(2 eta sigma^2) N(0, I)`` -- so the figures' ``sigma^2 = 4`` is ``sigma = 2``. ``S_g`` is the
l2-sensitivity of the *total* gradient. When ``b`` does not divide ``n`` every ``n/b`` of the
fixed-order and shuffle bounds is read as ``N = floor(n/b)`` (footnote 3; ``floor(n/(2b)) =
floor(N/2)``). Sampling probabilities (Thm 4.3, the composition baseline) stay ``b/n``.

Reading decisions (also in ``docs/yeshokri22.md``):

* Sec. E.1 prints Thm 4.2's step-size condition as ``eta < 2/(lambda + eta)``; read ``2/(lambda+beta)``.
* Footnote 4's shifted log-sum-exp "to avoid overflow" is not used: the log-mean-exp is evaluated
  exactly (mpmath has no overflow; the float64 path uses a stable form).
* Thm 2.1: ``K`` is the number of epochs, as printed.
* A lambda-strongly convex, beta-smooth loss has ``lambda <= beta``; we add it as a consistency
  condition (it guarantees ``0 < eta lambda < 1``, hence ``0 < r < 1``, under every step-size
  condition of the paper).
* Thm D.4 prints ``(b/n)(K-1)``; its proof (Eq. 83) gives ``(K-1) eps_0^{n/b}(alpha) = G (K-1)/(n/b)``,
  so under footnote 3 we use ``(K-1)/N``; both agree when ``b`` divides ``n``.
* The Balle et al. baseline (Sec. D.6) uses the exponent ``n/(2b)``; read ``N/2``.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, ClassVar

import mpmath
import sympy as sp

from dptheory.core import paperfile
from dptheory.core.conditions import Condition
from dptheory.core.notation import parse_value, rational_to_mpf
from dptheory.core.registry import REGISTRY
from dptheory.core.run import RunMap, run_symbol
from dptheory.core.theorem import Limit, Term, Theorem
from dptheory.core.units import Direction, Monotone, Unit
from dptheory.papers.yeshokri22 import kernels as ys
from dptheory.privacy.baselines import Reparametrisation, baseline_of, reparametrised

_PAPERFILE = paperfile.load(__name__, "paper.toml")
PAPER = _PAPERFILE.paper("yeshokri22")

NOTATION = _PAPERFILE.notation("yeshokri22")

al, eta, lam, beta, S_g, sigma, n, b, K, j0 = NOTATION.symbols(
    "alpha", "eta", "lam", "beta", "S_g", "sigma", "n", "b", "K", "j0"
)
k_, j_, sigma_mul, Lc = NOTATION.symbols("k", "j", "sigma_mul", "L")
N_sym = sp.floor(n / b)
h_sym = sp.floor(n / (2 * b))
r_sym = (1 - eta * lam) ** 2
G_sym = ys.gaussian_step_rdp_expr(al, eta, S_g, sigma, b)
"""G(alpha), the RDP of one noisy update (Lemma 3.2, Eq. 70), from its one definition in :mod:`.kernels`."""
_s = sp.Symbol("s", integer=True, nonnegative=True)
# for sympy's limit in K: under eta < 2/(lam+beta) and lam <= beta, 0 < eta lam < 1, so 1 - eta lam = 1/(1+t)
# with t > 0; N - h = floor(n/b) - floor(n/(2b)) >= 1 is a positive integer m
_t = sp.Symbol("t", positive=True)
_m = sp.Symbol("m", positive=True, integer=True)
_LIMIT_SUBS = ((1 - eta * lam, 1 / (1 + _t)), (N_sym, h_sym + _m))
_LIMIT_BACK = ((_t, eta * lam / (1 - eta * lam)), (_m, N_sym - h_sym))


class _PaperFunction(sp.Function):
    """A function of alpha named as in the paper (eps_0^j, S_k^j): printed ``base`` in LaTeX (parenthesised
    under a power) and ``text`` in sympy's string form, both from its first ``shown`` arguments (the others, such
    as eps_0's G, are not printed)."""

    shown: ClassVar[int]

    def _base_latex(self, args: list[str]) -> str:
        raise NotImplementedError

    def _base_text(self, args: list[str]) -> str:
        raise NotImplementedError

    def _shown(self, printer: Any) -> list[str]:
        return [printer._print(a) for a in self.args[: self.shown]]

    def _latex(self, printer: Any, exp: Any = None) -> str:
        base = self._base_latex(self._shown(printer))
        return base if exp is None else rf"\left({base}\right)^{{{exp}}}"

    def _sympystr(self, printer: Any) -> str:
        return self._base_text(self._shown(printer))


class Eps0(_PaperFunction):
    """The paper's eps_0^j(alpha) (Thm 3.3, Eq. 99), printed in the paper's notation.

    Arguments: ``(j, G, eta*lam)``; ``doit()`` expands it to ``G r^(j-1) / sum_{s<j} r^s``.
    """

    nargs = 3
    shown = 1

    def doit(self, **hints: Any) -> sp.Expr:
        jj, GG, x = (a.doit(**hints) if hints.get("deep", True) else a for a in self.args)
        rr = (1 - x) ** 2
        return GG * rr ** (jj - 1) / sp.Sum(rr**_s, (_s, 0, jj - 1)).doit()

    def _base_latex(self, args: list[str]) -> str:
        return rf"\varepsilon_{{0}}^{{{args[0]}}}(\alpha)"

    def _base_text(self, args: list[str]) -> str:
        return f"eps0[{args[0]}](alpha)"


def eps0(jj: sp.Expr, G: sp.Expr = G_sym) -> sp.Expr:
    return Eps0(jj, G, eta * lam)


def eps0_definition(G: sp.Expr) -> sp.Eq:
    """The definition of eps_0^j(alpha) (Thm 3.3, Eq. 99) for the one-step RDP ``G``, as a theorem states it."""
    return sp.Eq(
        Eps0(j_, G, eta * lam),
        G * (1 - eta * lam) ** (2 * (j_ - 1)) / sp.Sum((1 - eta * lam) ** (2 * _s), (_s, 0, j_ - 1)),
    )


EPS0_DEF = eps0_definition(G_sym)


class SRec(_PaperFunction):
    """S_k^j(alpha) of Thm 4.3 (Eq. 148-150), printed as in the paper."""

    nargs = 2
    shown = 2

    def _base_latex(self, args: list[str]) -> str:
        return rf"S_{{{args[0]}}}^{{{args[1]}}}(\alpha)"

    def _base_text(self, args: list[str]) -> str:
        return f"S[{args[0]}][{args[1]}](alpha)"


# ----------------------------------------------------------------------------- conditions
C_ALPHA = Condition(al > 1, "the Renyi order must exceed 1")
C_ETA = Condition(eta < 2 / (lam + beta), "step size below 2/(lambda + beta)")
C_LAM_BETA = Condition(lam <= beta, "a lambda-strongly convex beta-smooth loss has lambda <= beta", kind="consistency")
C_N2 = Condition(N_sym >= 2, "at least two mini-batches per epoch (n/b >= 2)")
C_N1 = Condition(N_sym >= 1, "at least one mini-batch per epoch (b <= n)")
C_J0 = Condition(j0 <= N_sym - 1, "j0 indexes a mini-batch: 0 <= j0 <= floor(n/b) - 1")
C_B_LE_N = Condition(b <= n, "a mini-batch of b distinct records needs b <= n")


def _cite(locator: str, eq: str | int | None = None, note: str = "") -> Any:
    return PAPER.item(locator, eq=eq, note=note)


def _theorem(name: str, title: str, citation: Any, params: tuple[str, ...], **fields: Any) -> Theorem:
    """Register one of the paper's statements as ``yeshokri22.<name>`` in the paper's notation; an upper bound
    unless ``direction`` says otherwise."""
    fields.setdefault("direction", Direction.UPPER)
    return REGISTRY.add(
        Theorem(key=f"yeshokri22.{name}", title=title, citation=citation, notation=NOTATION, params=params, **fields)
    )


#: the parameters of Algorithm 1 on a lambda-strongly convex, beta-smooth loss before the batch ones (each
#: theorem adds those it reads: ``n``, ``b``, ``K``, ``j0``)
_SC_PARAMS = ("alpha", "eta", "lam", "beta", "S_g", "sigma")
_SC_LOSS = "loss lambda-strongly convex and beta-smooth"
_GRADIENT_SENSITIVITY = "gradient l2-sensitivity S_g"
_LAST_ITERATE = "RDP epsilon at order alpha (last iterate)"


def _assumed(*algorithm: str, sensitivity: str = _GRADIENT_SENSITIVITY) -> tuple[str, ...]:
    """The assumptions of a bound on a lambda-strongly convex, beta-smooth loss: the loss, the gradient's
    ``sensitivity``, then what the theorem assumes of the ``algorithm`` (batches, start)."""
    return (_SC_LOSS, sensitivity, *algorithm)


def _strongly_convex(
    name: str,
    title: str,
    citation: Any,
    *,
    batch: tuple[str, ...],
    step: Condition = C_ETA,
    conditions: tuple[Condition, ...] = (),
    **fields: Any,
) -> Theorem:
    """A bound on Algorithm 1 for a lambda-strongly convex, beta-smooth loss: the parameters
    :data:`_SC_PARAMS` then ``batch``; the conditions alpha > 1, the theorem's step-size condition ``step``
    (Thm 4.2's eta < 2/(lambda + beta) unless given), lambda <= beta, then ``conditions``; by default the RDP
    of the last iterate."""
    fields.setdefault("quantity", _LAST_ITERATE)
    return _theorem(
        name, title, citation, _SC_PARAMS + batch, conditions=(C_ALPHA, step, C_LAM_BETA, *conditions), **fields
    )


def _G_mp(p: Mapping[str, Any]) -> mpmath.mpf:
    return ys.gaussian_step_rdp_mp(p["alpha"], p["eta"], p["S_g"], p["sigma"], p["b"])


def _N(p: Mapping[str, Any]) -> int:
    return int(p["n"]) // int(p["b"])


def _chourasia_form(size: str) -> dict:
    """Bound, K-limit and monotonicity of ``alpha S_g^2/(lam sigma^2 size^2) (1 - e^{-lam eta K/2})``.

    The full-batch bound of Chourasia et al. 2021 (Cor. 1; Thm D.7 with size = n) and its naive
    mini-batch extension (Thm 2.1, size = b) share this form; only the divisor differs.
    """
    sz = NOTATION.sym(size)

    return dict(
        bound=al * S_g**2 / (lam * sigma**2 * sz**2) * (1 - sp.exp(-lam * eta * K / 2)),
        limits={"K": Limit("K", expr=al * S_g**2 / (lam * sigma**2 * sz**2))},
        monotone={"K": Monotone.INCREASING},
    )


# ----------------------------------------------------------------------------- Thm 2.1
THM2_1 = _strongly_convex(
    "thm2_1",
    "Naive extension of Chourasia et al. 2021 to mini-batch noisy GD (shuffle and partition)",
    _cite("Theorem 2.1"),
    batch=("b", "K"),
    assumptions=_assumed("Algorithm 1, shuffle and partition"),
    **_chourasia_form("b"),
    reading="K is the number of epochs, as printed.",
)


# ----------------------------------------------------------------------------- Thm 3.3 / 4.2 pieces
def first_term_expr(G: sp.Expr = G_sym) -> sp.Expr:
    """First term of Thm 3.3 / 4.2 in the paper's notation."""
    return (
        eps0(h_sym, G)
        * (1 - (1 - eta * lam) ** (2 * (K - 1) * (N_sym - h_sym)))
        / (1 - (1 - eta * lam) ** (2 * (N_sym - h_sym)))
    )


def lme_expr(G: sp.Expr = G_sym) -> sp.Expr:
    """Second term of Thm 4.2: (1/(alpha-1)) log Avg_{j0} exp((alpha-1) eps0^{N-j0})."""
    return sp.log(sp.Sum(sp.exp((al - 1) * eps0(N_sym - j0, G)), (j0, 0, N_sym - 1)) / N_sym) / (al - 1)


FIRST_TERM_EXPR = first_term_expr()


FIRST_TERM_LIMIT_EXPR = eps0(h_sym) / (1 - (1 - eta * lam) ** (2 * (N_sym - h_sym)))


def _first_term_plus(second: sp.Expr, *, first_says: str, second_says: str, derivation: str) -> dict[str, Any]:
    """Bound, terms, definitions and K-limit of Thm 3.3 and Thm 4.2: the shared first term (it grows with K
    to :data:`FIRST_TERM_LIMIT_EXPR`) plus a ``second`` term that does not depend on K."""
    return dict(
        bound=FIRST_TERM_EXPR + second,
        definitions=(EPS0_DEF,),
        terms={
            "term1": Term("term1", first_says, expr=FIRST_TERM_EXPR),
            "term2": Term("term2", second_says, expr=second),
        },
        monotone={"K": Monotone.NONDECREASING},
        limits={
            "K": Limit(
                "K",
                expr=FIRST_TERM_LIMIT_EXPR + second,
                derivation=derivation,
                sympy_subs=_LIMIT_SUBS,
                sympy_back=_LIMIT_BACK,
            )
        },
    )


THM3_3 = _strongly_convex(
    "thm3_3",
    "Privacy dynamics of fixed-order noisy mini-batch GD, record in batch j0",
    _cite("Theorem 3.3", eq=3),
    batch=("n", "b", "K", "j0"),
    conditions=(C_N2, C_J0),
    assumptions=_assumed("fixed partition B^0..B^{N-1} reused every epoch; differing record in B^{j0}"),
    **_first_term_plus(
        eps0(N_sym - j0),
        first_says="first term eps0^h (1-r^((K-1)(N-h)))/(1-r^(N-h))",
        second_says="second term eps0^(N-j0)",
        derivation="0 < r < 1 so r^((K-1)(N-h)) -> 0; checked against large-K evaluation",
    ),
    quantity="RDP epsilon at order alpha (last iterate), record in batch j0",
    reading="n/b read as N = floor(n/b) (footnote 3); floor(n/(2b)) = floor(N/2).",
)

# ----------------------------------------------------------------------------- Thm 4.2
LME_EXPR = lme_expr()


THM4_2 = _strongly_convex(
    "thm4_2",
    "Privacy dynamics of noisy mini-batch GD under shuffle and partition",
    _cite("Theorem 4.2", eq=5),
    batch=("n", "b", "K"),
    conditions=(C_N2,),
    assumptions=_assumed("Algorithm 1, shuffle and partition (one random partition reused every epoch)"),
    **_first_term_plus(
        LME_EXPR,
        first_says="first term (grows with K)",
        second_says="second term: log-mean-exp over the batch position",
        derivation="the second term does not depend on K; the first converges as 0 < r < 1",
    ),
    reading="Sec. E.1's condition eta < 2/(lambda+eta) read as eta < 2/(lambda+beta); footnote 4 not used: "
    "the log-mean-exp is exact; n/b read as N = floor(n/b).",
)

# ----------------------------------------------------------------------------- Thm 4.3


def _thm43_qcr(p: Mapping[str, Any]) -> tuple[Any, Any, Any]:
    q = mpmath.mpf(p["b"]) / p["n"]
    c = (p["alpha"] - 1) * _G_mp(p)
    r = (1 - p["eta"] * p["lam"]) ** 2
    return q, c, r


def _thm43_mp(p: Mapping[str, Any]) -> mpmath.mpf:
    q, c, r = _thm43_qcr(p)
    T = int(p["K"]) * _N(p)
    L, _how = ys.thm43_log_S_mp(T, q, c, r)
    return L / (p["alpha"] - 1)


def _thm43_arb(p: Mapping[str, Any]) -> Any:
    """Certified Thm 4.3 on balls (:func:`kernels.thm43_log_S_arb`); integer inputs are exact balls."""
    n, b, K = (int(p[x].unique_fmpz()) for x in ("n", "b", "K"))
    q = p["b"] / p["n"]
    alpha = p["alpha"]
    c = (alpha - 1) * ys.gaussian_step_rdp().arb({x: p[x] for x in ys.G_ARGS})
    el = p["eta"] * p["lam"]
    return ys.thm43_log_S_arb(K * (n // b), q, c, el * (2 - el)) / (alpha - 1)


def _thm43_limit_mp(p: Mapping[str, Any]) -> mpmath.mpf:
    q, c, r = _thm43_qcr(p)
    return ys.thm43_limit_mp(q, c, r) / (p["alpha"] - 1)


THM4_3_LIMIT_CONDITION = Condition(
    (al - 1) * G_sym < sp.log(n / b),
    "the recurrence converges iff (b/n) exp((alpha-1) G) < 1",
    kind="hypothesis",
)

THM4_3 = _strongly_convex(
    "thm4_3",
    "Recursive amplification by sampling mini-batches without replacement",
    _cite("Theorem 4.3", eq=6),
    batch=("n", "b", "K"),
    conditions=(C_B_LE_N,),
    assumptions=_assumed("Algorithm 1, each mini-batch b distinct indices resampled every iteration"),
    statement=(
        sp.Eq(SRec(0, 0), 1),
        sp.Eq(
            SRec(k_, j_ + 1),
            (b / n) * sp.exp((al - 1) * G_sym) * SRec(k_, j_)
            + (1 - b / n) * SRec(k_, j_) ** ((1 - eta * lam) ** 2),
        ),
        sp.Eq(SRec(k_ + 1, 0), SRec(k_, N_sym)),
        sp.Le(sp.Symbol("varepsilon"), sp.log(SRec(K, 0)) / (al - 1)),
    ),
    mp=_thm43_mp,
    np=ys.thm43_np,
    arb=_thm43_arb,
    kernel_reason=(
        "a recurrence of K floor(n/b) steps (Eq. 148-150), iterated in the log domain with the exact "
        "fixed-point shortcut of docs/derivations/thm4_3_recurrence.md; no closed form. The arb kernel "
        "carries a lower and an upper exact iterate (the step is increasing) with rigorous shortcuts"
    ),
    monotone={"K": Monotone.NONDECREASING},
    limits={
        "K": Limit(
            "K",
            mp=_thm43_limit_mp,
            mp_reason="a case split the expression does not state: +inf where the existence condition fails "
            "(there the logarithm's argument is negative), and log1p(q expm1(c)/(1 - q e^c)) for full relative "
            "precision when c is tiny",
            exists_when=THM4_3_LIMIT_CONDITION,
            expr=sp.log((1 - b / n) / (1 - (b / n) * sp.exp((al - 1) * G_sym)))
            / ((1 - (1 - eta * lam) ** 2) * (al - 1)),
            derivation="docs/derivations/thm4_3_recurrence.md; checked against long iteration in tests",
        )
    },
    reading="Iterated in the log domain, L <- L + log1p(q expm1(c) + (1-q) expm1(-(1-r) L)); "
    "N = floor(n/b) steps per epoch, q = b/n.",
    notes="The K -> infinity limit is finite iff (alpha-1) alpha eta S_g^2/(4 sigma^2 b^2) < log(n/b); "
    "otherwise the bound grows without limit (linearly in K when the inequality is strict the other way).",
    sample={"n": (2, 120, True), "K": (1, 120, True)},
)

# ----------------------------------------------------------------------------- Thm D.4
C_ETA_CONVEX = Condition(eta < 2 / beta, "step size below 2/beta")

THMD_4 = _theorem(
    "thmD_4",
    "Privacy dynamics of fixed-order noisy mini-batch GD, convex smooth loss",
    _cite("Theorem D.4", eq=80),
    ("alpha", "eta", "beta", "S_g", "sigma", "n", "b", "K", "j0"),
    conditions=(C_ALPHA, C_ETA_CONVEX, C_N1, C_J0),
    assumptions=(
        "loss convex and beta-smooth",
        _GRADIENT_SENSITIVITY,
        "fixed partition reused every epoch; differing record in B^{j0}",
    ),
    bound=G_sym * (K - 1) / N_sym + G_sym / (N_sym - j0),
    quantity="RDP epsilon at order alpha (last iterate), record in batch j0",
    monotone={"K": Monotone.NONDECREASING},
    reading="(b/n)(K-1) read as (K-1)/floor(n/b), which is what the proof (Eq. 83) gives under footnote 3.",
)

# ----------------------------------------------------------------------------- Balle et al. 2019 baseline
C_ETA_BALLE = Condition(eta <= 2 / (beta + lam), "step size at most 2/(beta + lambda)")
BALLE_FACTOR = (
    al * eta * S_g**2 / (4 * (N_sym - 1) * b**2 * sigma**2) * (1 - 2 * eta * beta * lam / (beta + lam)) ** (N_sym / 2)
)


def _balle(batch: str, bound: sp.Expr, monotone: Monotone) -> Theorem:
    """Balle et al. 2019 (Thm 5) composed over the K epochs (Sec. D.6, Eq. 111), the differing record in the
    ``batch`` ("first" or "last") mini-batch: Figure 1's baselines."""
    return _strongly_convex(
        f"balle_{batch}",
        f"Balle et al. 2019 (Thm 5) + composition over epochs, record in the {batch} batch (Figure 1 baseline)",
        _cite("Section D.6", eq=111, note="Balle, Barthe, Gaboardi, Geumlek 2019, Theorem 5, translated"),
        batch=("n", "b", "K"),
        step=C_ETA_BALLE,
        conditions=(C_N2,),
        assumptions=(
            "loss L-Lipschitz, beta-smooth, lambda-strongly convex (L replaced by eta S_g / 2, Sec. D.6)",
            "fixed partition; RDP composition over the K epochs",
        ),
        bound=bound,
        np_flagged=True,  # 1 - 2 eta beta lam/(beta + lam) cancels near the step-size limit
        quantity=f"RDP epsilon at order alpha, record in the {batch} batch",
        monotone={"K": monotone},
        reading="exponent n/(2b) read as floor(n/b)/2.",
    )


BALLE_FIRST = _balle("first", BALLE_FACTOR * K, Monotone.INCREASING)
BALLE_LAST = _balle("last", BALLE_FACTOR * (K - 1) + G_sym, Monotone.NONDECREASING)

# ----------------------------------------------------------------------------- Thm D.6, D.7 (full batch)
C_ETA_GD = Condition(eta < 1 / beta, "step size below 1/beta")
_k_sum = sp.Symbol("k", integer=True, positive=True)


def _full_batch(name: str, title: str, citation: Any, *, algorithm: tuple[str, ...], **fields: Any) -> Theorem:
    """A bound on noisy full-batch GD (Algorithm 1 with b = n, K iterations; Thm D.6, D.7): step size below
    1/beta, the total gradient's sensitivity S_g; ``algorithm`` says what else the theorem assumes."""
    return _strongly_convex(
        name,
        title,
        citation,
        batch=("n", "K"),
        step=C_ETA_GD,
        assumptions=_assumed(*algorithm, sensitivity="total gradient sensitivity S_g"),
        **fields,
    )


THMD_6 = _full_batch(
    "thmD_6",
    "Noisy full-batch GD (b = n): privacy dynamics via randomized post-processing",
    _cite("Theorem D.6", eq=112),
    algorithm=("full-batch noisy GD (Algorithm 1 with b = n), K iterations",),
    bound=al * eta * S_g**2 / (2 * sigma**2 * n**2) * sp.Sum((1 - eta * lam / 2) ** _k_sum, (_k_sum, 1, K)),
    monotone={"K": Monotone.INCREASING},
    limits={
        "K": Limit(
            "K",
            expr=al * S_g**2 * (2 - eta * lam) / (2 * lam * sigma**2 * n**2),
            # eta < 1/beta and lam <= beta give 0 < eta lam / 2 < 1/2: 1 - eta lam/2 = 1/(1+t), t > 0
            sympy_subs=((1 - eta * lam / 2, 1 / (1 + _t)),),
            sympy_back=((_t, eta * lam / (2 - eta * lam)),),
            sympy_doit=True,
        )
    },
)

THMD_7 = _full_batch(
    "thmD_7",
    "Chourasia, Ye, Shokri 2021, Corollary 1: noisy full-batch GD",
    _cite("Theorem D.7", eq=127, note="restates Chourasia et al. 2021, Corollary 1"),
    algorithm=("start theta_0 ~ N(0, (2 sigma^2/lambda) I)", "full-batch noisy GD, K iterations"),
    **_chourasia_form("n"),
)

# ----------------------------------------------------------------------------- Cor 5.3
G_COR = 2 * al / sigma_mul**2
C_ETA_COR = Condition(eta < 2 / ((Lc**2 + 1) / 2 + 2 * lam), "step size below 2/((L^2+1)/2 + 2 lambda)")


COR5_3 = _theorem(
    "cor5_3",
    "DP-SGD (Algorithm 2) on regularized logistic regression, shuffle and partition",
    _cite("Corollary 5.3", eq=12),
    ("alpha", "eta", "lam", "L", "sigma_mul", "n", "b", "K"),
    conditions=(C_ALPHA, C_ETA_COR, C_N2),
    assumptions=(
        "regularized multi-class logistic regression, features clipped to ||x|| <= L",
        "unregularized per-example gradients clipped to S_g/2",
        "no private feature normalization (epsilon_norm = 0); with one, add its epsilon_norm",
    ),
    bound=first_term_expr(G_COR) + lme_expr(G_COR),
    definitions=(eps0_definition(G_COR),),
    quantity="RDP epsilon at order alpha (last iterate), excluding epsilon_norm",
    monotone={"K": Monotone.NONDECREASING},
    reading="Thm 4.2 with sigma = sqrt(eta/2) sigma_mul S_g/(2b) (Sec. F.1), which makes G = 2 alpha/sigma_mul^2 "
    "independent of S_g; smoothness (L^2+1)/2 + lambda (Props 5.1, 5.2).",
)

# ----------------------------------------------------------------------------- composition baselines
#: the composition baseline (Sec. 5.2, E.1 item 1): rdp.subsampled_gaussian at q = b/n, z = sqrt(2 eta sigma^2)/
#: (eta S_g/b) (update noise sqrt(2 eta sigma^2), replace-one update sensitivity eta S_g/b), T = K floor(n/b)
COMPOSITION_MAP = Reparametrisation(
    base="rdp.subsampled_gaussian",
    notation=NOTATION,
    params=("alpha", "eta", "S_g", "sigma", "n", "b", "K"),
    substitution={"alpha": al, "q": b / n, "z": sp.sqrt(2 * eta * sigma**2) / (eta * S_g / b), "T": K * N_sym},
    shown={"z": sp.Symbol("z", positive=True), "T": sp.Symbol("T")},
)
_Z_EXPR = COMPOSITION_MAP.expr("z")
_z = COMPOSITION_MAP.shown["z"]
_SIGMA_OF_SIGMA_MUL = sp.sqrt(eta / 2) * sigma_mul * S_g / (2 * b)  # Sec. F.1, Cor. 5.3


def _solved(equation: sp.Eq, x: sp.Symbol) -> sp.Expr:
    """The one solution of ``equation`` for ``x`` (solved when a conversion is first compiled, not at import:
    ``sympy.solve`` and the modules it imports took about 0.3 s of every process that loads this paper)."""
    (sol,) = sp.solve(equation, x)
    return sol


@functools.cache
def _conversion(name: str) -> Any:
    """A conversion compiled over real arguments (``b`` need not be whole here)."""
    from dptheory.core.compile import compile_expr

    expr, args = {
        "z": (lambda: _Z_EXPR, ("eta", "sigma", "S_g", "b")),
        "sigma_of_z": (lambda: _solved(sp.Eq(_z, _Z_EXPR), sigma), ("z", "eta", "S_g", "b")),
        "sigma_of_sigma_mul": (lambda: _SIGMA_OF_SIGMA_MUL, ("sigma_mul", "eta", "S_g", "b")),
        "sigma_mul_of_sigma": (
            lambda: _solved(sp.Eq(sigma, _SIGMA_OF_SIGMA_MUL), sigma_mul),
            ("sigma", "eta", "S_g", "b"),
        ),
    }[name]
    return compile_expr(expr(), {a: _z if a == "z" else NOTATION.sym(a) for a in args})


def _convert(name: str, values: Mapping[str, Any], dps: int) -> mpmath.mpf:
    with mpmath.workdps(dps + 10):
        out = _conversion(name).mp({k: _mpf(v, k) for k, v in values.items()})
    with mpmath.workdps(dps):
        return +out


def sgm_noise_multiplier(eta: Any, sigma: Any, S_g: Any, b: Any, *, dps: int = 50) -> mpmath.mpf:
    """Noise multiplier z of the subsampled Gaussian baseline: z = sqrt(2 eta sigma^2)/(eta S_g/b).

    Each update of Algorithm 1 adds N(0, 2 eta sigma^2 I) to a mini-batch gradient step whose
    replace-one sensitivity is eta S_g / b (Sec. E.1, item 1), so z = sqrt(2/eta) sigma b / S_g.
    The formula is the one of :data:`COMPOSITION_MAP`.
    """
    return _convert("z", {"eta": eta, "sigma": sigma, "S_g": S_g, "b": b}, dps)


def sigma_from_sgm_noise_multiplier(z: Any, eta: Any, S_g: Any, b: Any, *, dps: int = 50) -> mpmath.mpf:
    """Inverse of :func:`sgm_noise_multiplier`: sigma = z eta S_g / (b sqrt(2 eta))."""
    return _convert("sigma_of_z", {"z": z, "eta": eta, "S_g": S_g, "b": b}, dps)


def sigma_from_sigma_mul(sigma_mul: Any, eta: Any, S_g: Any, b: Any, *, dps: int = 50) -> mpmath.mpf:
    """Algorithm 2 -> Algorithm 1: sigma = sqrt(eta/2) sigma_mul S_g / (2b) (Sec. F.1, Cor. 5.3)."""
    return _convert("sigma_of_sigma_mul", {"sigma_mul": sigma_mul, "eta": eta, "S_g": S_g, "b": b}, dps)


def sigma_mul_from_sigma(sigma: Any, eta: Any, S_g: Any, b: Any, *, dps: int = 50) -> mpmath.mpf:
    """Algorithm 1 -> Algorithm 2: sigma_mul = 2 b sigma / (S_g sqrt(eta/2)) (inverse of Sec. F.1)."""
    return _convert("sigma_mul_of_sigma", {"sigma": sigma, "eta": eta, "S_g": S_g, "b": b}, dps)


def _mpf(v: Any, name: str) -> mpmath.mpf:
    return rational_to_mpf(parse_value(v, key="yeshokri22.conversion", name=name))


COMPOSITION = REGISTRY.add(
    reparametrised(
        COMPOSITION_MAP,
        key="yeshokri22.composition",
        title="Composition baseline: K*N steps of the Poisson-subsampled Gaussian mechanism (Abadi et al. 2016; "
        "Mironov et al. 2019)",
        citation=_cite(
            "Section 5.2 and E.1 (composition baseline)",
            note="q = b/n, z = sqrt(2 eta sigma^2)/(eta S_g/b), T = K floor(n/b); RDP exact via "
            "rdp.subsampled_gaussian",
        ),
        conditions=(C_ALPHA, C_N1),
        assumptions=(
            "every intermediate iterate released (no hidden state)",
            "Poisson subsampling accounting applied to shuffle-and-partition batches, as in the paper",
        ),
        direction=Direction.UPPER,
        quantity="RDP epsilon at order alpha of the composed mechanism (all iterates released)",
        kernel_reason=(
            "T = K floor(n/b) steps of rdp.subsampled_gaussian, whose A_alpha is an integral (exact "
            "binomial sum at integer orders, signed series with a tail bound otherwise); the arb kernel "
            "(privacy/sgm/arb.py) certifies every order"
        ),
        monotone={"K": Monotone.INCREASING, "alpha": Monotone.NONDECREASING},
        reading="the paper's baseline accounts shuffle-and-partition batches as Poisson sampling with q = b/n "
        "(Sec. 5.2 argues they match in order); we reproduce that baseline, exactly.",
    )
)
REGISTRY.add_baseline(
    baseline_of(COMPOSITION_MAP, key="yeshokri22.composition", title="composition", paper="yeshokri22")
)

COMPOSITION_APPROX = _theorem(
    "composition_approx",
    "The paper's approximation of the composition baseline, (b/n) G K (Figure 2 caption)",
    _cite("Figure 2 caption", note="'approximately equals (b/n) alpha eta S_g^2/(4 sigma^2 b^2) K'"),
    COMPOSITION_MAP.params,  # the baseline's parameters
    conditions=(C_ALPHA, C_N1),
    bound=(b / n) * G_sym * K,
    direction=Direction.ASYMPTOTIC,
    quantity="small-q leading-order approximation of the composition RDP (not a guarantee)",
    monotone={"K": Monotone.INCREASING},
    notes="Leading term of K N steps of q^2 G each (with N q = 1 when b divides n); an approximation, "
    "not an upper bound, so it is ASYMPTOTIC and refused where a guarantee is required.",
)

# ----------------------------------------------------------------------------- Lemma D.3, Prop 5.1


C_J = Condition(j_ <= N_sym - 1, "j indexes an iteration: 0 <= j <= N - 1")
THETA0_POINT_MASS = "theta_0^0 a point mass (c_0^0 = +infinity)"


def lsi_sequence(steps_sum: sp.Expr) -> dict[str, Any]:
    """Bound, direction, unit and sampling of an LSI constant sequence of Algorithm 1's iterates (Lemma D.2 and D.3):
    c_k^j = 1/(2 eta sigma^2 ``steps_sum``) over the k N + j steps so far, +infinity at k = j = 0 (a point mass)."""
    return dict(
        bound=sp.Piecewise((sp.oo, sp.Eq(k_ * N_sym + j_, 0)), (1 / (2 * eta * sigma**2 * steps_sum), True)),
        direction=Direction.LOWER,
        unit=Unit.DIMENSIONLESS,
        quantity="log-Sobolev constant c_k^j of the law of theta_k^j (the best constant is at least this; "
        "units 1/theta^2)",
        monotone={"k": Monotone.NONINCREASING},
        notes="+infinity at k = j = 0 is the true value (a point mass satisfies LSI with every constant).",
        infinite_when="k = j = 0 (theta_0^0 is a point mass)",
        sample={"k": (0, 20, False)},
    )


LEMMAD_3 = _theorem(
    "lemmaD_3",
    "LSI constant of the iterates of Algorithm 1 (strongly convex smooth loss)",
    _cite("Lemma D.3", eq=76),
    ("eta", "lam", "beta", "sigma", "n", "b", "k", "j"),
    conditions=(C_ETA, C_LAM_BETA, C_N1, C_J),
    assumptions=(_SC_LOSS, THETA0_POINT_MASS),
    **lsi_sequence(sp.Sum((1 - eta * lam) ** (2 * _s), (_s, 0, k_ * N_sym + j_ - 1))),
)


def _logistic_constant(name: str, eq: int, bound: sp.Expr, quantity: str) -> Theorem:
    """A constant of the unregularized logistic loss with features clipped to ||x|| <= L (Prop 5.1, Eq.
    ``eq``): a dimensionless upper bound in ``L``."""
    return _theorem(
        f"prop5_1_{name.lower()}",
        f"{name} constant of the logistic loss with ||x|| <= L",
        _cite("Proposition 5.1", eq=eq),
        ("L",),
        bound=bound,
        unit=Unit.DIMENSIONLESS,
        quantity=quantity,
    )


PROP5_1_LIPSCHITZ = _logistic_constant(
    "Lipschitz",
    9,
    sp.sqrt(2 * (Lc**2 + 1)),
    "Lipschitz constant of the unregularized multi-class logistic loss in theta",
)
PROP5_1_SMOOTHNESS = _logistic_constant(
    "Smoothness",
    10,
    (Lc**2 + 1) / 2,
    "smoothness constant beta of the unregularized multi-class logistic loss (Hessian <= beta I)",
)

FIGURE_SETTING: dict[str, Any] = {
    "lam": 1,
    "beta": 4,
    "S_g": 4,
    "n": 50,
    "eta": "0.02",
    "sigma": 2,
    "b": 2,
}
"""Figures 1-2 (Sec. 3.2, 4.1): lambda=1, beta=4, S_g=4, n=50, eta=0.02, sigma^2=4 (sigma=2), b=2."""

# ----------------------------------------------------------------------------- training runs (dptheory compare --run)
# How each theorem reads a DP-SGD run described once (dptheory.core.run). Conversions, each written once:
#: Prop 5.2 (Sec. F.4): per-example gradients clipped to C = S_g/2, so one replaced record moves the summed gradient
#: by at most S_g = 2 C
_RUN = {name: run_symbol(name) for name in ("n", "b", "z", "T", "K", "C", "eta", "lam", "beta", "L")}
_RUN_S_G = 2 * _RUN["C"]
#: Sec. F.1: Algorithm 2's noise (multiplier sigma_mul = the run's z, on the summed clipped gradients) is Algorithm 1's
#: at sigma = sqrt(eta/2) sigma_mul S_g/(2b)
_RUN_SIGMA = _SIGMA_OF_SIGMA_MUL.xreplace({sigma_mul: _RUN["z"], S_g: _RUN_S_G, eta: _RUN["eta"], b: _RUN["b"]})
_RUN_NOTE = ("S_g = 2C (Prop 5.2: clipping to S_g/2), sigma = sqrt(eta/2) z S_g/(2b) (Sec. F.1), K = T/floor(n/b) "
             "epochs")
_RUN_ALG1 = {"eta": _RUN["eta"], "lam": _RUN["lam"], "beta": _RUN["beta"], "S_g": _RUN_S_G, "sigma": _RUN_SIGMA,
             "n": _RUN["n"], "b": _RUN["b"], "K": _RUN["K"]}
_HIDDEN = {"loss": ("strongly-convex",), "release": ("last",)}
for _key, _params, _requires, _note in (
    ("thm4_2", _RUN_ALG1, {"batches": ("shuffle",), **_HIDDEN}, _RUN_NOTE),
    ("thm2_1", {k: v for k, v in _RUN_ALG1.items() if k != "n"}, {"batches": ("shuffle",), **_HIDDEN}, _RUN_NOTE),
    ("thm4_3", _RUN_ALG1, {"batches": ("wor",), **_HIDDEN}, _RUN_NOTE.replace("floor(n/b)", "(n/b)")),
    ("thmD_6", {k: v for k, v in _RUN_ALG1.items() if k != "b"}, {"batches": ("full",), **_HIDDEN},
     "b = n, K = T iterations; " + _RUN_NOTE.split(", K")[0]),
    ("cor5_3", {"eta": _RUN["eta"], "lam": _RUN["lam"], "L": _RUN["L"], "sigma_mul": _RUN["z"], "n": _RUN["n"],
                "b": _RUN["b"], "K": _RUN["K"]}, {"batches": ("shuffle",), "loss": ("logistic",), "release": ("last",)},
     "sigma_mul = z (Algorithm 2), K = T/floor(n/b) epochs"),
    ("composition", {k: v for k, v in _RUN_ALG1.items() if k not in ("lam", "beta")}, {"batches": ("poisson",)},
     "the paper's composition baseline: z_SGM = sqrt(2 eta sigma^2)/(eta S_g/b) = z/2 (replace-one, S_g = 2C)"),
):
    REGISTRY.add_run_map(RunMap(f"yeshokri22.{_key}", _params, _requires, "replace-one", _note))
