"""Feasibility of Shi et al.'s Conditions 1 and 2: is there any parameter point where all hold?

Every inequality ``small <= big`` of a condition set is turned into its log-slack
``s_k(x) = log(big) - log(small)`` (nats), a smooth function of the *log* parameters ``x`` (up to the
``max``/``min`` terms). The search maximises ``min_k s_k(x)`` inside a box of log-parameters, in
epigraph form (maximise ``t`` subject to ``s_k(x) >= t``) with SLSQP from many seeded random starts.
A positive optimum is a feasible point; it is rounded (integers ``d, n, m, T``) and re-checked
*exactly* with the conditions' own sympy relationals (``dptheory.core.conditions``), so a reported
witness never rests on the optimiser's floating point. A negative optimum is reported with the
binding inequalities (those whose slack equals the minimum at the optimum, including active box
bounds): the optimiser is a local method, so "no feasible point found" is evidence, not proof; for
Condition 1 the obstruction is also proved in closed form in ``docs/shi26.md``.

Every inequality of Condition 2 carries exactly one factor ``C`` on its restrictive side, so its
log-slack at ``C`` is its log-slack at ``C = 1`` minus ``log C``; the search runs at the requested C.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.optimize
import sympy as sp

from dptheory.core.conditions import Condition

# default box (natural values, not logs) for every parameter the conditions use
DEFAULT_BOX: dict[str, tuple[float, float]] = {
    "mu_norm": (1e-3, 1e3), "sigma_p": (1e-8, 1e3), "d": (2.0, 1e40), "n": (1.0, 1e12), "m": (1.0, 1e12),
    "kappa": (1e-12, 1e2), "sigma_0": (1e-60, 1.0), "eta": (1e-40, 1e10), "sigma_b": (1e-80, 1e2),
    "delta": (1e-12, 0.5), "T": (3.0, 1e40), "q": (2.05, 20.0), "eps": (1e-6, 1.0), "C3": (1e-6, 1.0),
}
INTEGERS = ("d", "n", "m", "T")


@dataclass
class FeasibilityResult:
    """Outcome of one search.

    Attributes:
        level: which inequalities were searched (e.g. ``"condition2"``).
        C: the constant.
        min_slack: the best ``min_k s_k`` found (nats; > 0 means every inequality holds strictly).
        point: the continuous optimum (natural values).
        slacks: every inequality's log-slack at ``point``.
        binding: the inequalities within 1e-3 nats of the minimum (and box bounds that are active).
        witness: a rounded point at which the exact check found every condition to hold, or None.
        witness_failures: conditions that the exact check found violated at the rounded point.
        starts, seed: the multistart setting.
    """

    level: str
    C: float
    min_slack: float
    point: dict[str, float]
    slacks: dict[str, float]
    binding: list[str]
    witness: dict[str, str] | None
    witness_failures: list[str] = field(default_factory=list)
    starts: int = 0
    seed: int = 0
    fixed: dict[str, float] = field(default_factory=dict)

    @property
    def feasible(self) -> bool:
        return self.witness is not None

    def to_dict(self) -> dict[str, Any]:
        return {"level": self.level, "C": self.C, "min_slack_nats": self.min_slack, "feasible": self.feasible,
                "point": self.point, "slacks_nats": self.slacks, "binding": self.binding, "witness": self.witness,
                "witness_failures": self.witness_failures, "starts": self.starts, "seed": self.seed,
                "fixed": self.fixed}


def _ident(c: Condition) -> str:
    return c.gloss.partition("] ")[0].lstrip("[")


def _sides(c: Condition) -> tuple[sp.Expr, sp.Expr]:
    rel = c.relation
    if isinstance(rel, (sp.LessThan, sp.StrictLessThan)):
        return rel.lhs, rel.rhs
    return rel.rhs, rel.lhs


def slack_functions(conditions: Sequence[Condition], variables: Sequence[str], fixed: Mapping[str, float]) -> Any:
    """Vectorised log-slacks ``x (log variables) -> array of s_k`` and the inequality names."""
    syms = {s.name: s for c in conditions for s in c.symbols}
    logs = {v: sp.Symbol(f"log_{v}", real=True) for v in variables}
    rules: dict[sp.Symbol, sp.Expr] = {}
    for name, s in syms.items():
        if name in logs:
            rules[s] = sp.exp(logs[name])
        elif name in fixed:
            rules[s] = sp.Float(fixed[name], 30)
        else:
            raise ValueError(f"parameter {name} is neither searched nor fixed")
    exprs, names = [], []
    for c in conditions:
        small, big = _sides(c)
        e = sp.expand_log(sp.log(big.xreplace(rules)), force=True) - sp.expand_log(sp.log(small.xreplace(rules)),
                                                                                     force=True)
        exprs.append(sp.simplify(e) if e.count_ops() < 40 else e)
        names.append(_ident(c))
    f = sp.lambdify([list(logs.values())], exprs, modules="numpy")

    def slacks(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            out = np.array([float(v) for v in f(list(x))], dtype=np.float64)
        return np.where(np.isnan(out), -1e6, out)

    return slacks, names


def search(
    conditions: Sequence[Condition],
    *,
    level: str,
    C: float = 1.0,
    fixed: Mapping[str, float] | None = None,
    box: Mapping[str, tuple[float, float]] | None = None,
    starts: int = 24,
    seed: int = 0,
) -> FeasibilityResult:
    """Maximise the minimum log-slack of ``conditions`` over the log-parameter box (multistart SLSQP).

    Args:
        conditions: the inequalities (conditions on delta < 1 and q > 2 are enforced by the box).
        level: a name for the report.
        C: the constant C.
        fixed: parameters held fixed (natural values), e.g. hidden Theta-constants, q.
        box: overrides of :data:`DEFAULT_BOX`.
        starts: number of random starts (uniform in the log box), drawn from ``default_rng(seed)``.
    """
    fixed = {"C": float(C), **{k: float(v) for k, v in (fixed or {}).items()}}
    bx = {**DEFAULT_BOX, **(box or {})}
    ineq = [c for c in conditions if _ident(c) not in ("c1.q", "c1.delta", "c2.delta")]
    names_all = sorted({s.name for c in ineq for s in c.symbols} - set(fixed))
    variables = [v for v in names_all]
    f, labels = slack_functions(ineq, variables, fixed)
    lo = np.array([math.log(bx[v][0]) for v in variables])
    hi = np.array([math.log(bx[v][1]) for v in variables])
    rng = np.random.default_rng(seed)
    nv = len(variables)

    def neg_t(z: np.ndarray) -> float:
        return -z[-1]

    def cons(z: np.ndarray) -> np.ndarray:
        return f(z[:-1]) - z[-1]

    best_z, best_val = None, -np.inf
    for _ in range(starts):
        x0 = lo + rng.random(nv) * (hi - lo)
        t0 = float(np.min(f(x0)))
        z0 = np.concatenate([x0, [t0]])
        try:
            # (the ignore below: scipy-stubs' overloads do not infer the old-style constraint dict as their TypedDict)
            res = scipy.optimize.minimize(  # type: ignore[call-overload]
                neg_t, z0, method="SLSQP", constraints=[{"type": "ineq", "fun": cons}],
                bounds=[*zip(lo, hi, strict=True), (None, None)], options={"maxiter": 500, "ftol": 1e-10},
            )
            z = res.x
        except (ValueError, FloatingPointError):
            continue
        z[:-1] = np.clip(z[:-1], lo, hi)
        val = float(np.min(f(z[:-1])))
        if val > best_val:
            best_val, best_z = val, z
    assert best_z is not None
    x = best_z[:-1]
    s = f(x)
    point = {v: float(math.exp(x[i])) for i, v in enumerate(variables)}
    slacks = {labels[k]: float(s[k]) for k in range(len(labels))}
    binding = [labels[k] for k in range(len(labels)) if s[k] <= best_val + 1e-3]
    for i, v in enumerate(variables):
        if x[i] <= lo[i] + 1e-6:
            binding.append(f"box: {v} at its lower end {bx[v][0]:g}")
        elif x[i] >= hi[i] - 1e-6:
            binding.append(f"box: {v} at its upper end {bx[v][1]:g}")
    witness: dict[str, str] | None = None
    failures: list[str] = []
    if best_val > 0:
        witness, failures = _witness(conditions, point, fixed)
    return FeasibilityResult(level=level, C=float(C), min_slack=best_val, point=point, slacks=slacks,
                             binding=binding, witness=witness, witness_failures=failures, starts=starts, seed=seed,
                             fixed=dict(fixed))


def _round_point(point: Mapping[str, float], fixed: Mapping[str, float]) -> dict[str, str]:
    out: dict[str, str] = {}
    for k, v in {**point, **fixed}.items():
        if k in INTEGERS:
            out[k] = str(max(1, round(v)))
        else:
            out[k] = f"{v:.6g}"
    return out


def _witness(conditions: Sequence[Condition], point: Mapping[str, float],
             fixed: Mapping[str, float]) -> tuple[dict[str, str] | None, list[str]]:
    """Round and check every condition exactly; return the point if all hold."""
    from dptheory.core.notation import parse_point

    rp = _round_point(point, fixed)
    exact = parse_point(rp, key="shi26.feasibility")
    failures = []
    for c in conditions:
        r = c.evaluate({s: exact[s.name] for s in c.symbols})
        if r.status.value != "holds":
            failures.append(f"{c.render()}: {r.status.value} (lhs {r.lhs}, rhs {r.rhs})")
    return (rp if not failures else None), failures


