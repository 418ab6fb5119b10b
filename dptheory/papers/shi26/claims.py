"""Claims of Shi, Wang, Zhang, Cao ("Towards Understanding Generalization in DP-GD") as data.

Two kinds:

* **Registered claims** (:class:`dptheory.core.claims.Claim`) relate encoded bounds and are decided by
  the core checker. Both are findings (pinned counterexamples, certified on arb balls):
  ``shi26.F_lemma39_sensitivity`` is data (the ``[[claim]]`` table of ``paper.toml``), ``shi26.F_thm3_privacy``
  (sympy settings and a constraint) is declared here.
* **Trained-model claims** (:class:`TrainedClaim`, *not* in the registry: the core checker evaluates
  formulas, not training runs) are per-run events checked on GD/DP-GD runs across seeds by
  :func:`check_trained_claim`, with the same verdict vocabulary and a stated confidence.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import numpy as np
import sympy as sp

from dptheory.core import paperfile
from dptheory.core.claims import Claim, Region, Relation, theorem_side
from dptheory.core.claims import Verdict as ClaimVerdict
from dptheory.core.conditions import Condition
from dptheory.core.findings import Edge, FindingMap
from dptheory.core.registry import REGISTRY
from dptheory.core.symbolic import SymbolicResult, SymbolicVerdict, all_proved, claim_states, prove_sign, prove_zero
from dptheory.numerics.binomial import clopper_pearson_lower, wilson
from dptheory.papers.shi26.theorems import NOTATION, PAPER, d, eta, m, mu, sp_
from dptheory.verify.sides import side_at_pin


class TrainedVerdict(StrEnum):
    """The verdict on a trained claim: a statement about runs, decided statistically (never ``proved``)."""

    HOLDS_IN_MOST_RUNS = "holds in most runs"
    FALSIFIED = "falsified"
    UNDECIDED = "undecided"


Verdict = TrainedVerdict  # the name used before the verdict vocabulary (kept for the trained-claims suite)

C = PAPER.item


# ----------------------------------------------------------------------------- registered claims (findings)
def _lemma39_finding_values(claim: Claim) -> dict[str, Any]:
    """The numbers shi26.F_lemma39_sensitivity's finding quotes (paper.toml): the ratio of its sides at the pin."""
    return {"ratio": side_at_pin(claim, "lhs") / side_at_pin(claim, "rhs"),
            "sigma_p": claim.counterexamples[0]["sigma_p"]}


# shi26.F_lemma39_sensitivity: the [[claim]] table of paper.toml
for _claim in paperfile.load(__name__, "paper.toml").claims(side_at_pin=side_at_pin):
    REGISTRY.add(_claim)


SHI26_MAP_NOTE = "docs/derivations/shi26_lemma39.md, section 4"


def _lemma39_holds_symbolic(claim: Claim | None = None) -> SymbolicResult:
    """shi26.F_lemma39_sensitivity_holds: where 3 sigma_p^2 d <= ||mu||^2, Lemma 39's curve minus the replace-one
    worst case is T alpha (||mu||^2 - 3 sigma_p^2 d)/(sigma_b^2 n^2 m) >= 0 (sympy, with ||mu||^2 = 3 sigma_p^2 d + v,
    v >= 0); the same identity says it fails exactly where 3 sigma_p^2 d > ||mu||^2 (the finding's map)."""
    cl = claim or REGISTRY.get("shi26.F_lemma39_sensitivity_holds")
    why = claim_states(cl, "shi26.gaussian_rdp_replace", "shi26.lemma39_rdp", Relation.LE)
    if why:
        return SymbolicResult(SymbolicVerdict.UNDECIDED, why)
    if [c.relation for c in cl.region.constraints] != [LEMMA39_HOLDS.relation]:
        return SymbolicResult(SymbolicVerdict.UNDECIDED, f"{cl.key}'s region is no longer {LEMMA39_HOLDS.gloss}")
    worst, lemma = REGISTRY.get("shi26.gaussian_rdp_replace").bound, REGISTRY.get("shi26.lemma39_rdp").bound
    if worst is None or lemma is None:
        return SymbolicResult(SymbolicVerdict.UNDECIDED, "a side has no closed form")
    v = sp.Symbol("v", nonnegative=True)
    gap = sp.factor(sp.simplify((lemma - worst).subs(mu, sp.sqrt(3 * sp_**2 * d + v))))
    steps = [prove_zero(sp.simplify(lemma - worst) - _T * _alpha * (mu**2 - 3 * sp_**2 * d) / (_sb**2 * _n**2 * m),
                        "(1) Lemma 39 - worst case - T alpha (||mu||^2 - 3 sigma_p^2 d)/(sigma_b^2 n^2 m)"),
             prove_sign(gap, "nonnegative", "(2) the difference at ||mu||^2 = 3 sigma_p^2 d + v, v >= 0")]
    return all_proved(steps, "the replace-one worst-case RDP <= Lemma 39's at every order, T, sigma_b, n, m where "
                     "3 sigma_p^2 d <= ||mu||^2", SHI26_MAP_NOTE)


LEMMA39_HOLDS = Condition(sp.LessThan(3 * sp_**2 * d, mu**2), "3 sigma_p^2 d <= ||mu||^2")
"""Where Lemma 39's RDP bounds the replace-one worst case (shi26.F_lemma39_sensitivity_holds)."""
_T, _alpha, _sb, _n, _delta = NOTATION.symbols("T", "alpha", "sigma_b", "n", "delta")
_L39 = REGISTRY.get("shi26.F_lemma39_sensitivity")
REGISTRY.add(dataclasses.replace(
    _L39, key="shi26.F_lemma39_sensitivity_holds",
    title="Lemma 39's RDP bounds DP-GD's worst-case replace-one RDP where 3 sigma_p^2 d <= ||mu||^2",
    reading="The exact worst-case RDP of T DP-GD steps for replace-one neighbours (shi26.gaussian_rdp_replace) is at "
    "most Lemma 39's curve (shi26.lemma39_rdp) at every order wherever the signal dominates the noise patches, 3 "
    "sigma_p^2 d <= ||mu||^2 (the paper's sigma_p = 0.5, d = 2000, ||mu|| = 1 is not there).",
    region=Region(constraints=(LEMMA39_HOLDS,), description="every valid point with 3 sigma_p^2 d <= ||mu||^2"),
    verdict=ClaimVerdict.PROVED, symbolic=_lemma39_holds_symbolic, counterexamples=(), finding="", failing=None,
    companion_of="shi26.F_lemma39_sensitivity", tags=("privacy",)))

#: Theorem 3's choices (Theta-constants 1): sigma_b = ||mu||^2/(eta m^3 max{||mu||^2, sigma_p^2 d}), T2 =
#: ceil(m/(eta ||mu||^2)); substituted exactly into Lemma 39 with its order optimised in closed form
#: (shi26.lemma39: min_{lam > 1} lam A + L/(lam - 1) = A + 2 sqrt(A L), docs/derivations/shi26_lemma39.md)
THM3_SETTING = {"sigma_b": mu**2 / (eta * m**3 * sp.Max(mu**2, sp_**2 * d)), "T": sp.ceiling(m / (eta * mu**2))}


REGISTRY.add(Claim(
    key="shi26.F_thm3_privacy",
    title="Theorem 3's privacy follows from Lemma 39 at Theorem 3's sigma_b and T2 (for a fixed constant C4)",
    citation=C("Theorem 3 and Sec. C.5"),
    statement="by choosing sigma_b = Theta(||mu||^2/(eta m^3 max{..})), and T2 = Theta(m/(eta ||mu||^2)) ... DP-GD "
    "with T2 iterations satisfies (C4 m^3 max^2{..}/(n^2 ||mu||^4) log(2/delta), delta)-DP for some positive "
    "constant C4",
    reading="Theta-constants 1; C4 fixed at 1000 (any fixed value gives the same verdict); eta restricted by "
    "Condition 2's upper bound at C = 1 (eta <= m/||mu||^2). Lemma 39 (optimal order) must be at most Theorem 3's "
    "expression. The lhs is the minimum over Renyi orders in closed form, A + 2 sqrt(A log(2/delta)): by AM-GM "
    "lam A + L/(lam - 1) >= A + 2 sqrt(A L) for every lam > 1, with equality at lam* = 1 + sqrt(L/A), so its arb "
    "enclosure's lower end is a certified lower bound of Lemma 39's best epsilon (what falsifying lhs <= rhs "
    "needs).",
    lhs=theorem_side("shi26.lemma39", "Lemma 39 at Thm 3's sigma_b, T2", set=THM3_SETTING),
    rhs=theorem_side("shi26.thm3_privacy", "Theorem 3 (C4 = 1000)", set={"C4": sp.Integer(1000)}),
    relation=Relation.LE,
    region=Region(constraints=(Condition(sp.LessThan(eta, m / mu**2, evaluate=False),
                                         "eta <= m/||mu||^2 (Condition 2's upper bound, C = 1)"),),
                  description="valid points with eta <= m/||mu||^2"),
    notation=NOTATION,
    counterexamples=({"m": 100, "mu_norm": 1, "sigma_p": "0.5", "d": 2000, "n": 1000, "delta": "1e-5", "eta": 1},),
    finding="Lemma 39 at sigma_b = ||mu||^2/(eta m^3 M) and T2 = m/(eta ||mu||^2) gives A = Theta(eta m^6 M^3/(n^2 "
    "||mu||^6)): Theorem 3's expression times eta m^3 M/||mu||^2. Condition 2 allows eta up to m/(C ||mu||^2), so "
    "the ratio is unbounded and no constant C4 works; Theorem 3's privacy holds only when eta = O(||mu||^2/(m^3 M)).",
    tags=("finding", "privacy"),
    failing=FindingMap(
        fails_on="eta above a threshold eta*(m, ||mu||, sigma_p, d, n, delta): Lemma 39's best epsilon A + 2 sqrt(A L) "
        "exceeds Theorem 3's R exactly when A > (sqrt(R + L) - sqrt(L))^2 (L = log(2/delta)), and A = ceil(m/(eta "
        "||mu||^2)) (2||mu||^2 + 3 sigma_p^2 d) eta^2 m^5 M^2/(||mu||^4 n^2) grows with eta (but for the ceiling's "
        "steps). eta* = 8.1255e-6 at the paper's setting (m = 100, ||mu|| = 1, sigma_p = 0.5, d = 2000, n = 1000, "
        "delta = 1e-5), where Condition 2 allows eta up to 100; eta* = 1.5252e-4 at m = 1, sigma_p = 0.01, d = 2, "
        "n = 10^5; 0.32140 at m = 10, ||mu|| = 2, sigma_p = 0.1, d = 100, n = 1000, delta = 0.01; at m = 1, sigma_p = "
        "0.01, d = 2, n = 1000 it holds for every eta <= m/||mu||^2. eta* lies between the companion's bound and "
        "about twice it",
        evidence="the exact equivalence above (Lemma 39's order in closed form, docs/derivations/shi26_lemma39.md); "
        "eta* by bisection in log eta at 40 digits at the four settings; at each of the first three, 400 values of "
        "eta from 1.0001 eta* to m/||mu||^2 all fail and 400 from 1e-12 to 0.9999 eta* all hold (mpmath)",
        edges=(Edge(fails={"m": 100, "mu_norm": 1, "sigma_p": "0.5", "d": 2000, "n": 1000, "delta": "1e-5",
                           "eta": "0.00000813"},
                    holds={"m": 100, "mu_norm": 1, "sigma_p": "0.5", "d": 2000, "n": 1000, "delta": "1e-5",
                           "eta": "0.00000812"},
                    across="eta from 8.13e-6 to 8.12e-6 at the paper's setting"),
               Edge(fails={"m": 1, "mu_norm": 1, "sigma_p": "0.01", "d": 2, "n": 100000, "delta": "1e-5",
                           "eta": "0.0001526"},
                    holds={"m": 1, "mu_norm": 1, "sigma_p": "0.01", "d": 2, "n": 100000, "delta": "1e-5",
                           "eta": "0.0001525"},
                    across="eta from 1.526e-4 to 1.525e-4 at m = 1, n = 10^5 (R far below L)")),
    ),
))

# ----------------------------------------------------------------------------- where shi26.F_thm3_privacy holds
_Tc, _Mx = sp.Symbol("T", positive=True), sp.Symbol("M", positive=True)  # ceil(m/(eta ||mu||^2)), max{..}
_THM3 = REGISTRY.get("shi26.F_thm3_privacy")


def _eta_sufficient() -> sp.Expr:
    """(sqrt(R + L) - sqrt(L))^2 ||mu||^6 n^2/(2 (2||mu||^2 + 3 sigma_p^2 d) m^6 M^2): the step size below which
    shi26.F_thm3_privacy holds (R = its rhs, Theorem 3 at C4 = 1000; L = log(2/delta); M = max{||mu||^2, sigma_p^2
    d})."""
    R = _THM3.rhs.expression()
    assert R is not None  # a closed form
    L = sp.log(2 / _delta)
    return ((sp.sqrt(R + L) - sp.sqrt(L)) ** 2 * mu**6 * _n**2
            / (2 * (2 * mu**2 + 3 * sp_**2 * d) * m**6 * sp.Max(mu**2, sp_**2 * d) ** 2))


def _thm3_holds_symbolic(claim: Claim | None = None) -> SymbolicResult:
    """shi26.F_thm3_privacy_holds: with T = ceil(m/(eta ||mu||^2)) and M = max{..} kept as positive symbols, the lhs
    is A + 2 sqrt(A L) with A = T (2||mu||^2 + 3 sigma_p^2 d) eta^2 m^5 M^2/(||mu||^4 n^2), increasing in T;
    ceil(x) < x + 1 <= 2x for x = m/(eta ||mu||^2) >= 1 (eta <= m/||mu||^2); at T = 2x, A = 2 eta (..) m^6 M^2/
    (||mu||^6 n^2) = t Q^2 with Q = sqrt(R + L) - sqrt(L) and t = eta/eta_s <= 1; and at t = 1 the lhs equals R."""
    cl = claim or REGISTRY.get("shi26.F_thm3_privacy_holds")
    if cl.sides() != _THM3.sides() or cl.relation is not Relation.LE or cl.factor is not None:
        return SymbolicResult(SymbolicVerdict.UNDECIDED, f"{cl.key} no longer states shi26.F_thm3_privacy's relation")
    want = [c.relation for c in _THM3.region.constraints] + [sp.LessThan(eta, _eta_sufficient())]
    if [c.relation for c in cl.region.constraints] != want:
        return SymbolicResult(SymbolicVerdict.UNDECIDED, f"{cl.key}'s region is no longer eta <= eta_s")
    lhs, R = cl.lhs.expression(), cl.rhs.expression()
    if lhs is None or R is None:
        return SymbolicResult(SymbolicVerdict.UNDECIDED, "a side has no closed form")
    x = m / (eta * mu**2)
    ell = sp.Symbol("L", positive=True)  # log(2/delta) > log 2 > 0 (delta < 1)
    keep = {sp.ceiling(x): _Tc, sp.Max(mu**2, sp_**2 * d): _Mx, sp.log(2 / _delta): ell}

    def sym(e: sp.Expr) -> sp.Expr:
        return e.xreplace(keep)

    A = _Tc * (2 * mu**2 + 3 * sp_**2 * d) * eta**2 * m**5 * _Mx**2 / (mu**4 * _n**2)
    Rs, eta_s = sym(R), sym(_eta_sufficient())
    Q, t, xx = sp.sqrt(Rs + ell) - sp.sqrt(ell), sp.Symbol("t", positive=True), sp.Symbol("x", positive=True)
    Qp = sp.Symbol("Q", positive=True)
    lhs_T = A + 2 * sp.sqrt(A * ell)
    A_up = A.subs(_Tc, 2 * x)
    steps = [
        prove_zero(sym(lhs) - lhs_T, "(1) the lhs - (A + 2 sqrt(A L)), T = ceil(m/(eta ||mu||^2)), M = max{||mu||^2, "
                   "sigma_p^2 d}, L = log(2/delta)"),
        prove_sign(sp.diff(lhs_T, _Tc), "positive", "(2) d lhs/dT"),
        prove_zero(lhs_T - ((sp.sqrt(A) + sp.sqrt(ell)) ** 2 - ell),
                   "(2) A + 2 sqrt(A L) - ((sqrt(A) + sqrt(L))^2 - L)"),
        prove_zero(sp.ceiling(xx).rewrite(sp.frac) - xx - sp.frac(-xx), "(3) ceil(x) - x - frac(-x)"),
        SymbolicResult(SymbolicVerdict.PROVED if (sp.frac(-xx) < 1) is sp.true
                       else SymbolicVerdict.UNDECIDED, "(3) frac(-x) < 1 (sympy), so ceil(x) < x + 1 <= 2x for x >= 1"),
        prove_zero(A_up - eta / eta_s * Q**2, "(4) A at T = 2x - (eta/eta_s) (sqrt(R + L) - sqrt(L))^2"),
        prove_sign(Rs, "positive", "(5) R, so Q = sqrt(R + L) - sqrt(L) > 0"),
        prove_sign(sp.diff((sp.sqrt(t) * Qp + sp.sqrt(ell)) ** 2 - ell, t), "positive",
                   "(5) d/dt of (sqrt(t) Q + sqrt(L))^2 - L (Q > 0), the lhs at A = t Q^2"),
        prove_zero(((sp.sqrt(t) * Q + sp.sqrt(ell)) ** 2 - ell).subs(t, 1) - Rs,
                   "(6) the lhs at A = Q^2 (t = 1) minus Theorem 3's R"),
    ]
    return all_proved(steps, "Lemma 39 at Theorem 3's sigma_b, T2 <= Theorem 3 (C4 = 1000) at every valid point with "
                     "eta <= eta_s = (sqrt(R + L) - sqrt(L))^2 ||mu||^6 n^2/(2 (2||mu||^2 + 3 sigma_p^2 d) m^6 M^2) "
                     "(and eta <= m/||mu||^2)", SHI26_MAP_NOTE)


REGISTRY.add(dataclasses.replace(
    _THM3, key="shi26.F_thm3_privacy_holds",
    title="Theorem 3's privacy follows from Lemma 39 at Theorem 3's sigma_b and T2 for small enough eta (C4 = 1000)",
    reading="As shi26.F_thm3_privacy, on the step sizes eta <= eta_s = (sqrt(R + L) - sqrt(L))^2 ||mu||^6 n^2/(2 "
    "(2||mu||^2 + 3 sigma_p^2 d) m^6 M^2) (R: Theorem 3's expression at C4 = 1000, L = log(2/delta), M = max{||mu||^2, "
    "sigma_p^2 d}); about C4 log(2/delta) ||mu||^2/(2 (2||mu||^2 + 3 sigma_p^2 d) m^3) when R >> L, i.e. eta = "
    "O(||mu||^2/(m^3 M)) as the finding says.",
    region=Region(constraints=(*_THM3.region.constraints, Condition(sp.LessThan(eta, _eta_sufficient()),
                                                                    "eta <= eta_s (the companion's step sizes)")),
                  ranges={"eta": (1e-12, 10.0, True)},
                  description="valid points with eta <= m/||mu||^2 and eta <= eta_s = (sqrt(R + L) - sqrt(L))^2 "
                  "||mu||^6 n^2/(2 (2||mu||^2 + 3 sigma_p^2 d) m^6 M^2)"),
    verdict=ClaimVerdict.PROVED, symbolic=_thm3_holds_symbolic, counterexamples=(), finding="", failing=None,
    companion_of="shi26.F_thm3_privacy", tags=("privacy",)))


# ----------------------------------------------------------------------------- trained-model claims
@dataclass(frozen=True)
class RunOutcome:
    """Whether a claim's event happened in one run: True, False or None (not decidable in this run)."""

    holds: bool | None
    evidence: str


@dataclass(frozen=True)
class TrainedClaim:
    """A per-run event the paper predicts, checked on GD/DP-GD pairs across seeds.

    ``event(pair, cfg) -> RunOutcome``; ``sigma_p`` selects which runs it is evaluated on.
    """

    key: str
    title: str
    citation: Any
    statement: str
    reading: str
    sigma_p: float
    event: Callable[[Any, Any], RunOutcome]
    finding: str = ""


@dataclass
class TrainedClaimResult:
    """Verdict on a trained claim.

    Rule (confidence 95%, one-sided Clopper-Pearson on the k runs): HOLDS_IN_MOST_RUNS if the lower bound on the
    probability that the event holds exceeds 1/2 (it holds in most runs); FALSIFIED if the lower bound on
    the probability that it fails exceeds 1/2 (the falsifying runs are listed); otherwise UNDECIDED.
    Events measured on a finite test set count as holding/failing only when a 95% interval decides them.
    """

    claim: str
    verdict: Verdict
    confidence: float
    holds: int
    fails: int
    undecided: int
    lower_hold: float
    lower_fail: float
    runs: list[dict[str, Any]] = field(default_factory=list)
    falsifying_runs: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"claim": self.claim, "verdict": self.verdict.value, "confidence": self.confidence,
                "holds": self.holds, "fails": self.fails, "undecided": self.undecided,
                "lower_bound_P_holds": self.lower_hold, "lower_bound_P_fails": self.lower_fail, "runs": self.runs,
                "falsifying_runs": self.falsifying_runs}


def check_trained_claim(claim: TrainedClaim, pairs: Sequence[Any], cfg: Any, *, confidence: float = 0.95
                        ) -> TrainedClaimResult:
    """Decide ``claim`` on the pairs at its sigma_p (see :class:`TrainedClaimResult` for the rule)."""
    sel = [p for p in pairs if abs(p.sigma_p - claim.sigma_p) < 1e-12]
    runs, bad = [], []
    h = f = u = 0
    for p in sel:
        o = claim.event(p, cfg)
        row = {"seed": p.seed, "sigma_p": p.sigma_p, "holds": o.holds, "evidence": o.evidence,
               "setting": getattr(cfg, "name", "")}
        runs.append(row)
        if o.holds is True:
            h += 1
        elif o.holds is False:
            f += 1
            bad.append(row)
        else:
            u += 1
    k = len(sel)
    lh, lf = ((clopper_pearson_lower(h, k, 1 - confidence), clopper_pearson_lower(f, k, 1 - confidence)) if k
              else (0.0, 0.0))
    verdict = Verdict.HOLDS_IN_MOST_RUNS if lh > 0.5 else Verdict.FALSIFIED if lf > 0.5 else Verdict.UNDECIDED
    return TrainedClaimResult(claim.key, verdict, confidence, h, f, u, lh, lf, runs, bad if verdict is
                              Verdict.FALSIFIED else [])


Z95 = 1.959963984540054


def _acc_ci(correct: np.ndarray) -> tuple[float, float, float]:
    p = float(np.mean(correct))
    lo, hi = wilson(p, len(correct))
    return p, lo, hi


def _dp_beats_gd(pair: Any, cfg: Any) -> RunOutcome:
    a = pair.gd.history.final_test_correct.astype(float)
    b = pair.dp.history.final_test_correct.astype(float)
    diff = b - a
    mean = float(diff.mean())
    se = float(diff.std(ddof=1) / math.sqrt(len(diff))) if len(diff) > 1 else math.inf
    lo, hi = mean - Z95 * se, mean + Z95 * se
    ev = f"acc GD {a.mean():.4f}, DP-GD {b.mean():.4f}, paired difference {mean:+.4f} [95% CI {lo:+.4f}, {hi:+.4f}]"
    return RunOutcome(True if lo > 0 else False if hi < 0 else None, ev)


def _both_near_perfect(pair: Any, cfg: Any) -> RunOutcome:
    out = []
    verdicts = []
    for name, r in (("GD", pair.gd), ("DP-GD", pair.dp)):
        p, lo, hi = _acc_ci(r.history.final_test_correct)
        out.append(f"{name} {p:.4f} [{lo:.4f}, {hi:.4f}]")
        verdicts.append(True if lo >= 0.95 else False if hi < 0.95 else None)
    holds = False if False in verdicts else (None if None in verdicts else True)
    return RunOutcome(holds, "accuracy (Wilson 95%): " + ", ".join(out) + "; 'almost 100%' read as >= 95%")


def _losses_small(pair: Any, cfg: Any) -> RunOutcome:
    g, d_ = float(pair.gd.history.train_loss[-1]), float(pair.dp.history.train_loss[-1])
    return RunOutcome(g <= 0.1 and d_ <= 0.1, f"final training loss GD {g:.4f}, DP-GD {d_:.4f} after "
                      f"{pair.gd.train.steps} steps (small read as <= 0.1)")


def _gd_error_after_T2(pair: Any, cfg: Any) -> RunOutcome:
    h = pair.gd.history
    full = np.nonzero(h.memorised >= 1.0)[0]
    if len(full) == 0:
        return RunOutcome(None, "Stage 1 not reached (not every record memorised) within the run: T1, T2 undefined")
    t1 = int(h.eval_steps[full[0]])
    t2 = t1 + 36 * cfg.n * cfg.m**2 / (cfg.eta * pair.sigma_p**2 * cfg.d)
    if t2 > h.eval_steps[-1]:
        return RunOutcome(None, f"empirical T1 = {t1}, T2 = T1 + 36 n m^2/(eta sigma_p^2 d) = {t2:.4g} is beyond "
                          f"the horizon {int(h.eval_steps[-1])}: not checkable")
    ks = np.nonzero(h.eval_steps >= t2)[0]
    errs = h.test_error[ks]
    return RunOutcome(bool(np.all(errs >= 0.11)), f"T2 = {t2:.4g}; min test error after T2 = {errs.min():.4f}")


def _dp_signal_exceeds_kappa(pair: Any, cfg: Any) -> RunOutcome:
    h = pair.dp.history
    t1 = cfg.kappa**2 / (cfg.eta**2 * cfg.sigma_b**2 * min(cfg.mu_norm**2, pair.sigma_p**2 * cfg.d))
    if t1 > h.eval_steps[-1]:
        return RunOutcome(None, f"T1 (c_T1 = 1) = {t1:.4g} beyond the horizon")
    g = float(h.gamma_mean[:, -1].min())
    return RunOutcome(g > cfg.kappa, f"T1 (c_T1 = 1) = {t1:.4g}; at t = {int(h.eval_steps[-1])} min_j mean_r "
                      f"gamma_(j,r) = {g:.4g} vs kappa = {cfg.kappa}")


GAMMA_CONST = 10.0
"""The hidden constant of 'max gamma = O(sigma_0 ||mu||)' (Lemma, Stage 1) in our reading."""


def _gd_signal_small(pair: Any, cfg: Any) -> RunOutcome:
    h = pair.gd.history
    g = float(h.gamma_max.max())
    bound = GAMMA_CONST * cfg.sigma_0 * cfg.mu_norm
    return RunOutcome(g <= bound, f"max over t, j, r of gamma = {g:.4g}; bound {GAMMA_CONST:g} sigma_0 ||mu|| = "
                      f"{bound:.4g}")


def _gd_memorises(pair: Any, cfg: Any) -> RunOutcome:
    h = pair.gd.history
    fr = float(h.memorised[-1])
    return RunOutcome(fr >= 1.0, f"fraction of training records with max_r rho_bar_(y_i,r,i) >= kappa at the end: "
                      f"{fr:.4f}")


TRAINED_CLAIMS: dict[str, TrainedClaim] = {c.key: c for c in (
    TrainedClaim("shi26.E_train_small", "Both training losses become small (sigma_p = 0.5)",
                 C("Theorems 1, 2; Section 5"), "Figure 1 shows that both GD and DP-GD achieve fast training loss "
                 "decay across all noise levels", "final training loss <= 0.1 for GD and for DP-GD within the run's "
                 "horizon", 0.5, _losses_small),
    TrainedClaim("shi26.E_dp_beats_gd_05", "At sigma_p = 0.5 DP-GD's test accuracy exceeds GD's",
                 C("Section 5"), "for sigma_p = 0.5, DP-GD maintains strong generalization (test loss < 0.2, 95% "
                 "accuracy), while GD largely fails, reaching only 75% accuracy", "paired (same data, same init) "
                 "final test accuracy difference DP-GD - GD > 0, decided per run by a 95% CI on the test set", 0.5,
                 _dp_beats_gd),
    TrainedClaim("shi26.E_dp_beats_gd_03", "At sigma_p = 0.3 DP-GD's test accuracy exceeds GD's",
                 C("Section 5"), "for sigma_p = 0.3, DP-GD attains lower test loss (by about 0.2) and slightly higher "
                 "accuracy (100% vs. 95%)", "as for sigma_p = 0.5", 0.3, _dp_beats_gd),
    TrainedClaim("shi26.E_both_perfect_01", "At sigma_p = 0.1 both reach almost 100% test accuracy",
                 C("Section 5"), "for sigma_p = 0.1, both methods achieve near-zero test loss and almost 100% accuracy",
                 "both final accuracies >= 95% (Wilson 95% interval decides)", 0.1, _both_near_perfect),
    TrainedClaim("shi26.E_gd_error_after_T2", "GD's test error stays >= 0.11 after T2 (Theorem 1)",
                 C("Theorem 1"), "For any T2 <= t <= T*, we have that R_D(W^(t)) >= 0.11",
                 "T1 read as the first evaluation step at which every training record is memorised (max_r rho_bar >= "
                 "kappa, Stage 1); T2 = T1 + 36 n m^2/(eta sigma_p^2 d); every evaluated test error after T2 >= 0.11",
                 0.5, _gd_error_after_T2),
    TrainedClaim("shi26.E_dp_signal", "DP-GD's signal learning exceeds kappa after T1 (Theorem 2, Sec. 4.2)",
                 C("Section 4.2, 'Training loss' and Theorem 2"),
                 "the injected Gaussian noise in DP-GD facilitates the "
                 "signal learning component in surpassing the threshold kappa of the Huberized ReLU when t >= T1",
                 "T1 = kappa^2/(eta^2 sigma_b^2 min{||mu||^2, sigma_p^2 d}) (c_T1 = 1); at the end of the run (after "
                 "T1) min_j (1/m) sum_r gamma_(j,r) > kappa", 0.5, _dp_signal_exceeds_kappa),
    TrainedClaim("shi26.E_gd_signal_small", "GD's signal learning stays at its initial order (Stage 1, Theorem 1)",
                 C("Section 4.1, Stage 1 and 2"), "max_{j,r} gamma_{j,r} = O(sigma_0 ||mu||_2) ... the learning of the "
                 "signal is always small and around the initialization values",
                 f"max over evaluated t, j, r of gamma <= {GAMMA_CONST:g} sigma_0 ||mu|| (hidden constant "
                 f"{GAMMA_CONST:g})", 0.5, _gd_signal_small),
    TrainedClaim("shi26.E_gd_memorises", "GD memorises the noise: rho_bar reaches kappa for every record",
                 C("Section 4.1, Stage 1"), "max_{j,r} rho_bar_{j,r,i}^(T1) >= kappa, for all i in [n]",
                 "at the end of the run every training record has max_r rho_bar_(y_i,r,i) >= kappa", 0.5,
                 _gd_memorises),
)}
