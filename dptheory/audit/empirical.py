"""Empirical privacy audits: lower bounds on epsilon from trained models, with stated confidence.

Black box, last iterate only: train models on D and on D' (D with one record replaced by a canary),
compute a test statistic of each released model, and turn the error rates of a threshold test into
a lower bound on epsilon at a given delta (the hypothesis-testing view of DP, Kairouz, Oh, Viswanath
2015, Thm 2.1; the auditing recipe of Jagielski, Ullman, Oprea 2020, "Auditing Differentially Private
Machine Learning: How Private is Private SGD?", NeurIPS, Sec. 3, and Nasr, Song, Thakurta, Papernot,
Carlini 2021, "Adversary Instantiation", IEEE S&P, Sec. 3):

An (epsilon, delta)-DP mechanism forces every test between D and D' to satisfy
``FPR + e^eps FNR >= 1 - delta`` and ``FNR + e^eps FPR >= 1 - delta``, hence

    eps >= max( log((1 - delta - FNR)/FPR), log((1 - delta - FPR)/FNR) ).

The threshold (and the side of the test) is chosen on a *selection* split of the models; the rates
are measured on the disjoint *evaluation* split and replaced by Clopper-Pearson upper limits at
level ``gamma/2`` each (``numerics.binomial``), so the stated lower bound holds with probability at
least ``1 - gamma`` (union bound over the two limits; the selection split is independent of the
evaluation split). "Positive" means "trained on D'". Everything in nats.

For the quadratic loss the exact epsilon(delta) of the pair is computable
(:func:`exact_epsilon`); an audit lower bound must sit below it and every valid upper bound above.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np
from scipy import optimize
from scipy.special import log_ndtr, logsumexp

from dptheory.audit.mixture import MixtureLaw
from dptheory.core.errors import DPTheoryError, InvalidParameter, NumericalFailure
from dptheory.core.units import Direction, Unit
from dptheory.numerics.binomial import clopper_pearson_upper
from dptheory.privacy.gaussian_dp import gdp_delta_np

__all__ = [
    "AuditResult",
    "clopper_pearson_upper",
    "converted_upper_bounds",
    "delta_of_epsilon",
    "epsilon_from_rates",
    "exact_epsilon",
    "gaussian_delta",
    "run_audit",
    "scores_by_task",
    "summarize_gap",
]

KEY = "audit.empirical"
REFERENCE = ("Kairouz, Oh, Viswanath 2015 (Thm 2.1); Jagielski, Ullman, Oprea 2020 (Sec. 3); "
             "Nasr et al. 2021 (Sec. 3); Clopper-Pearson limits")


def epsilon_from_rates(fpr: float, fnr: float, delta: float) -> float:
    """``max(log((1-delta-FNR)/FPR), log((1-delta-FPR)/FNR), 0)`` in nats (0 when no bound follows)."""
    out = 0.0
    for a, b in ((fnr, fpr), (fpr, fnr)):
        num = 1.0 - delta - a
        if num > 0 and b < 1:
            out = max(out, math.inf if b <= 0 else math.log(num / b))
    return out


@dataclass(frozen=True)
class AuditResult:
    """A lower bound on epsilon at ``delta``, holding with probability at least ``confidence``.

    Attributes:
        epsilon_lower: the lower bound (nats); 0 means the audit found nothing.
        delta: the delta of the bound.
        confidence: 1 - gamma.
        statistic: what was measured on each released model.
        threshold, side: the test "guess D' when score > threshold" (side = ">") or "<".
        fpr, fnr: error rates on the evaluation split.
        fpr_upper, fnr_upper: their Clopper-Pearson upper limits (level gamma/2 each).
        n_d, n_dprime: evaluation-split sizes; n_selection: models used to choose the threshold.
        direction: LOWER (what the number says about the true epsilon).
    """

    epsilon_lower: float
    delta: float
    confidence: float
    statistic: str
    threshold: float
    side: str
    fpr: float
    fnr: float
    fpr_upper: float
    fnr_upper: float
    n_d: int
    n_dprime: int
    n_selection: int
    direction: Direction = Direction.LOWER
    unit: Unit = Unit.NATS
    reference: str = REFERENCE
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"epsilon_lower": self.epsilon_lower, "delta": self.delta, "confidence": self.confidence,
                "statistic": self.statistic, "threshold": self.threshold, "side": self.side, "fpr": self.fpr,
                "fnr": self.fnr, "fpr_upper": self.fpr_upper, "fnr_upper": self.fnr_upper, "n_d": self.n_d,
                "n_dprime": self.n_dprime, "n_selection": self.n_selection, "direction": str(self.direction),
                "unit": str(self.unit), "reference": self.reference, **dict(self.extra)}


def _best_threshold(s0: np.ndarray, s1: np.ndarray, delta: float, level: float) -> tuple[float, str, float]:
    """Threshold and side maximising the Clopper-Pearson epsilon lower bound on a (selection) split."""
    best = (float(np.median(np.concatenate([s0, s1]))), ">", -1.0)
    cand = np.unique(np.quantile(np.concatenate([s0, s1]), np.linspace(0.001, 0.999, 999)))
    s0s, s1s = np.sort(s0), np.sort(s1)
    n0, n1 = len(s0), len(s1)
    for side in (">", "<"):
        if side == ">":
            fp = n0 - np.searchsorted(s0s, cand, side="right")   # D models with score > thr
            fn = np.searchsorted(s1s, cand, side="right")         # D' models with score <= thr
        else:
            fp = np.searchsorted(s0s, cand, side="left")
            fn = n1 - np.searchsorted(s1s, cand, side="left")
        fpu, fnu = clopper_pearson_upper(fp, n0, level), clopper_pearson_upper(fn, n1, level)
        with np.errstate(divide="ignore", invalid="ignore"):
            e1 = np.where((1 - delta - fnu > 0) & (fpu > 0), np.log((1 - delta - fnu) / fpu), 0.0)
            e2 = np.where((1 - delta - fpu > 0) & (fnu > 0), np.log((1 - delta - fpu) / fnu), 0.0)
        e = np.maximum(e1, e2)
        i = int(np.argmax(e))
        if e[i] > best[2]:
            best = (float(cand[i]), side, float(e[i]))
    return best


def run_audit(
    scores_d: np.ndarray,
    scores_dprime: np.ndarray,
    *,
    delta: float,
    gamma: float = 0.05,
    rng: np.random.Generator,
    selection_fraction: float = 0.5,
    statistic: str = "score",
) -> AuditResult:
    """Lower bound on epsilon from scores of models trained on D and on D' (see the module docstring).

    Args:
        scores_d, scores_dprime: the statistic of each model trained on D (negatives) and D'.
        delta: the delta of the (epsilon, delta) statement, in [0, 1).
        gamma: the bound fails with probability at most gamma.
        rng: used only to split the models into selection and evaluation sets.
        selection_fraction: share of each side used to choose the threshold.
    """
    s0 = np.asarray(scores_d, dtype=np.float64)
    s1 = np.asarray(scores_dprime, dtype=np.float64)
    if s0.ndim != 1 or s1.ndim != 1 or len(s0) < 4 or len(s1) < 4:
        raise InvalidParameter(key=KEY, name="scores", value=f"{s0.shape}, {s1.shape}",
                               reason="need two 1-D arrays of at least 4 scores each", citation=REFERENCE)
    if not (np.isfinite(s0).all() and np.isfinite(s1).all()):
        raise InvalidParameter(key=KEY, name="scores", value="array", reason="scores contain NaN or inf",
                               citation=REFERENCE)
    if not 0 <= delta < 1:
        raise InvalidParameter(key=KEY, name="delta", value=delta, reason="must be in [0, 1)", citation=REFERENCE)
    if not 0 < gamma < 1:
        raise InvalidParameter(key=KEY, name="gamma", value=gamma, reason="must be in (0, 1)", citation=REFERENCE)
    if not 0 < selection_fraction < 1:
        raise InvalidParameter(key=KEY, name="selection_fraction", value=selection_fraction,
                               reason="must be in (0, 1)", citation=REFERENCE)
    p0, p1 = rng.permutation(len(s0)), rng.permutation(len(s1))
    k0, k1 = int(len(s0) * selection_fraction), int(len(s1) * selection_fraction)
    sel0, ev0 = s0[p0[:k0]], s0[p0[k0:]]
    sel1, ev1 = s1[p1[:k1]], s1[p1[k1:]]
    level = gamma / 2
    thr, side, _ = _best_threshold(sel0, sel1, delta, level)
    if side == ">":
        fp, fn = int((ev0 > thr).sum()), int((ev1 <= thr).sum())
    else:
        fp, fn = int((ev0 < thr).sum()), int((ev1 >= thr).sum())
    n0, n1 = len(ev0), len(ev1)
    fpu, fnu = clopper_pearson_upper(fp, n0, level), clopper_pearson_upper(fn, n1, level)
    eps = epsilon_from_rates(fpu, fnu, delta)
    return AuditResult(epsilon_lower=eps, delta=float(delta), confidence=1 - gamma, statistic=statistic,
                       threshold=thr, side=side, fpr=fp / n0, fnr=fn / n1, fpr_upper=fpu, fnr_upper=fnu, n_d=n0,
                       n_dprime=n1, n_selection=k0 + k1)


# ----------------------------------------------------------------------------- exact epsilon(delta)
class _Profile:
    """``delta(eps) = int max(0, p - e^eps q)`` for two 1-D Gaussian mixtures with a common s (float64).

    Gauss-Legendre (48 points) on panels of width s/2 over the union of the components' +-40 s
    ranges (the mass outside is below e^-800). The densities at the nodes are computed once; for
    each eps the panels containing a point where ``p = e^eps q`` (a kink of the integrand, located
    on the node grid and refined by Brent's method) are split there and re-integrated.
    """

    def __init__(self, p: MixtureLaw, q: MixtureLaw) -> None:
        if abs(p.s - q.s) > 1e-12 * p.s:
            raise DPTheoryError(f"{KEY}: the two laws must share their component variance")
        self.p, self.q, self.s = p, q, p.s
        lo = min(p.means.min(), q.means.min()) - 40 * self.s
        hi = max(p.means.max(), q.means.max()) + 40 * self.s
        P = max(1, math.ceil((hi - lo) / (self.s / 2)))
        self.edges = np.linspace(lo, hi, P + 1)
        self.xg, self.wg = np.polynomial.legendre.leggauss(48)
        c, h = (self.edges[:-1] + self.edges[1:]) / 2, (self.edges[1:] - self.edges[:-1]) / 2
        X = c[:, None] + h[:, None] * self.xg[None, :]
        self.W = h[:, None] * self.wg[None, :]
        self.lp = self.logpdf(p, X.ravel()).reshape(X.shape)
        self.lq = self.logpdf(q, X.ravel()).reshape(X.shape)
        self.lr_edges = self.logpdf(p, self.edges) - self.logpdf(q, self.edges)

    def logpdf(self, law: MixtureLaw, X: np.ndarray) -> np.ndarray:
        out = np.empty(len(X))
        step = max(1, 2_000_000 // len(law.means))
        for i in range(0, len(X), step):
            z = (X[i:i + step, None] - law.means[None, :]) / self.s
            out[i:i + step] = logsumexp(-0.5 * z * z, b=law.weights[None, :], axis=1)
        return out - math.log(self.s * math.sqrt(2 * math.pi))

    def _panel(self, a: float, b: float, eps: float) -> float:
        x = (a + b) / 2 + (b - a) / 2 * self.xg
        d = np.exp(self.logpdf(self.p, x)) - np.exp(eps + self.logpdf(self.q, x))
        return float(np.sum((b - a) / 2 * self.wg * np.maximum(d, 0.0)))

    def delta(self, eps: float) -> float:
        d = np.exp(self.lp) - np.exp(eps + self.lq)
        per_panel = np.sum(self.W * np.maximum(d, 0.0), axis=1)
        g = self.lr_edges - eps
        # panels whose ends differ in sign, or whose nodes change sign inside, hold a kink
        node_sign = np.sign(self.lp - self.lq - eps)
        mixed = (node_sign.min(axis=1) != node_sign.max(axis=1)) | (np.sign(g[:-1]) != np.sign(g[1:]))
        for i in np.nonzero(mixed)[0]:
            a, b = self.edges[i], self.edges[i + 1]
            xs = np.linspace(a, b, 65)
            lr = self.logpdf(self.p, xs) - self.logpdf(self.q, xs) - eps
            cuts = [a]
            for k in np.nonzero(np.sign(lr[:-1]) * np.sign(lr[1:]) < 0)[0]:
                f = lambda x: float(self.logpdf(self.p, np.array([x]))[0] - self.logpdf(self.q, np.array([x]))[0] - eps)
                cuts.append(optimize.brentq(f, xs[k], xs[k + 1], xtol=1e-14 * self.s, rtol=1e-15))
            cuts.append(b)
            per_panel[i] = sum(self._panel(u, v, eps) for u, v in itertools.pairwise(cuts))
        return float(per_panel.sum())


def delta_of_epsilon(p: MixtureLaw, q: MixtureLaw, eps: float) -> float:
    """``delta(eps) = int max(0, p - e^eps q)`` for two 1-D Gaussian mixtures with a common s (float64)."""
    return _Profile(p, q).delta(eps)


def exact_epsilon(p: MixtureLaw, q: MixtureLaw, delta: float) -> float:
    """Smallest eps with ``delta(eps) <= delta`` in both directions (the pair's exact epsilon(delta)), nats.

    A single Gaussian pair (one component each) uses the closed form of the Gaussian mechanism's
    privacy profile, ``delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu)``, mu = |gap|/s
    (Balle & Wang 2018, Thm 8); mixtures use :func:`delta_of_epsilon`.
    """
    if not 0 < delta < 1:
        raise InvalidParameter(key=KEY, name="delta", value=delta, reason="must be in (0, 1)", citation=REFERENCE)
    if len(p.means) == 1 and len(q.means) == 1:
        mu = abs(float(p.means[0] - q.means[0])) / p.s
        if mu == 0:
            return 0.0

        def f(e: float) -> float:
            a = log_ndtr(mu / 2 - e / mu)
            b = e + log_ndtr(-mu / 2 - e / mu)
            return float(np.exp(a) * -np.expm1(b - a)) - delta if b < a else -delta
        fd = [f]
    else:
        pq, qp = _Profile(p, q), _Profile(q, p)
        fd = [lambda e: pq.delta(e) - delta, lambda e: qp.delta(e) - delta]
    out = 0.0
    for f in fd:
        if f(0.0) <= 0:
            continue
        hi = 1.0
        while f(hi) > 0:
            hi *= 2
            if hi > 1e4:
                raise NumericalFailure(f"{KEY}: epsilon(delta = {delta}) above 1e4 nats")
        out = max(out, float(optimize.brentq(f, 0.0, hi, xtol=1e-12, rtol=1e-12)))
    return out


def gaussian_delta(mu: float, eps: float) -> float:
    """Privacy profile of the Gaussian mechanism with mean gap / std = mu (Balle & Wang 2018, Thm 8)."""
    return float(gdp_delta_np(eps, mu))


def summarize_gap(lower: float, uppers: Sequence[tuple[str, float]]) -> list[dict[str, Any]]:
    """For each (key, upper epsilon): whether it is >= the audit lower bound, and the gap (upper - lower, ratio)."""
    rows = []
    for key, up in uppers:
        rows.append({"key": key, "epsilon_upper": up, "epsilon_lower": lower, "consistent": bool(up >= lower),
                     "gap_nats": up - lower, "ratio": (up / lower) if lower > 0 else math.inf})
    return rows


# ----------------------------------------------------------------------------- training in tasks
#: models per task when an audit's training is cut into tasks (fixed, so the result never depends on workers)
TASK_RUNS = 250


#: bytes of one task besides its models: its generator (``Generator``, ``PCG64``, ``SeedSequence``), the task
#: tuple and its bounds (measured ~1.3 kB)
TASK_BYTES = 2048


def memory_estimate(runs: int, task_runs: int = TASK_RUNS, *, task_payload: int = 0) -> Any:
    """Bytes an audit of ``runs`` models allocates per model, from the shapes (nothing is allocated).

    Per model: the D / D' mask (bool), the scores of the tasks and their concatenation (float64), and in
    :func:`run_audit` the two permutations (int64) and the selection / evaluation copies (float64); per task
    (``ceil(runs / task_runs)`` of them): its generator and tuple, and ``task_payload`` bytes (the pickled
    spec that each Dask task carries). Each task's training checks its own arrays
    (:func:`dptheory.train.noisy_gd.memory_estimate`).
    """
    from dptheory.core.memory import MemoryEstimate

    per_task = TASK_BYTES + int(task_payload)
    per = {"mask": 1, "scores": 8 + 8, "threshold split": 8 + 8, "tasks": -(-per_task // max(1, task_runs))}
    return MemoryEstimate(what=KEY, units=int(runs), unit="models", per_unit=per, advice="use fewer models (--runs)")


@dataclass(frozen=True)
class TaskOptions:
    """Where and how the models of an audit are trained (:func:`scores_by_task`): ``workers`` processes of a
    local Dask cluster or the Dask ``scheduler``, else in process with ``threads`` threads; ``task_runs`` models a
    task; ``progress`` shows a bar. The numbers do not depend on them."""

    workers: int | None = None
    scheduler: str | None = None
    threads: int = 1
    task_runs: int = TASK_RUNS
    progress: bool = False

    def as_kwargs(self) -> dict[str, Any]:
        """The options by name (the keyword arguments of :func:`scores_by_task`)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def scores_by_task(
    fn: Any,
    spec: Any,
    runs: int,
    rng: np.random.Generator,
    *,
    task_runs: int = TASK_RUNS,
    workers: int | None = None,
    scheduler: str | None = None,
    threads: int = 1,
    progress: bool = False,
    desc: str = "audit",
) -> np.ndarray:
    """The statistic of ``runs`` models trained in tasks of ``task_runs`` models, in model order.

    Task ``i`` is ``fn((spec, lo, hi, generator_i))`` -> the scores of models ``lo..hi-1``, with
    ``generator_i`` the ``i``-th child spawned from ``rng`` (:func:`dptheory.evaluate.parallel.task_generators`),
    so the scores depend on ``rng``'s seed and ``task_runs`` only: the same in process, on threads,
    or on any number of Dask workers (:func:`dptheory.evaluate.parallel.run_tasks`). ``fn`` must be a
    module-level function (Dask pickles it).

    Before any task is made, the memory of the per-model arrays (:func:`memory_estimate`) is checked against
    the available memory (:class:`~dptheory.core.errors.InsufficientMemory` says how many models fit).
    """
    from dptheory.evaluate.parallel import chunk_bounds, run_tasks, task_generators, uses_dask

    payload = 0
    if uses_dask(workers, scheduler):  # every task carries its own pickled copy of spec
        import pickle

        payload = len(pickle.dumps(spec, protocol=pickle.HIGHEST_PROTOCOL))
    memory_estimate(runs, task_runs, task_payload=payload).check()
    bounds = chunk_bounds(runs, task_runs)
    gens = task_generators(rng, len(bounds))
    tasks = [(spec, lo, hi, g) for (lo, hi), g in zip(bounds, gens, strict=True)]
    parts = run_tasks(fn, tasks, workers=workers, scheduler=scheduler, threads=threads, progress=progress, desc=desc)
    out = np.concatenate([np.asarray(p, dtype=np.float64) for p in parts])
    if out.shape != (runs,):
        raise DPTheoryError(f"{KEY}: the tasks returned {out.shape[0]} scores for {runs} models")
    return out


# ----------------------------------------------------------------------------- audits of the two models
def converted_upper_bounds(points: Sequence[tuple[str, Mapping[str, Any]]], delta: float, *, dps: int = 20
                           ) -> list[tuple[str, float]]:
    """(key, epsilon) for each RDP upper bound at its parameters (without alpha), optimised over alpha.

    Uses :func:`dptheory.privacy.conversion.convert` (``improved`` conversion, Balle et al. 2020 Thm 21).
    """
    from dptheory.core.registry import REGISTRY
    from dptheory.privacy.conversion import convert

    out = []
    for key, params in points:
        res = convert(REGISTRY.get(key), {k: v for k, v in params.items() if k != "alpha"}, delta=delta,
                      method="improved", dps=dps)
        out.append((key, float(res.epsilon)))
    return out








