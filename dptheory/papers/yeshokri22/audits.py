"""Empirical audits of Ye & Shokri 2022's two algorithms (Algorithm 1 on the quadratic loss, Algorithm 2 on
regularized logistic regression), against the exact epsilon(delta) where computable and the paper's bounds.

The generic machinery (threshold tests, Clopper-Pearson limits, exact epsilon(delta) of Gaussian mixtures,
conversion of RDP upper bounds) is :mod:`dptheory.audit.empirical`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dptheory.audit.empirical import TaskOptions, converted_upper_bounds, exact_epsilon, run_audit, scores_by_task
from dptheory.core.units import BatchScheme
from dptheory.train.logistic import Algorithm2Setting


def audit_quadratic(
    setting: Any,
    scheme: BatchScheme | str,
    *,
    runs: int,
    rng: np.random.Generator,
    delta: float,
    gamma: float = 0.05,
    j0: int = 0,
    t: float = 0.0,
    diameter: float = 1.0,
    tasks: TaskOptions = TaskOptions(),
) -> dict[str, Any]:
    """Audit Algorithm 1 on the quadratic loss: lower bound, exact epsilon(delta), converted upper bounds.

    ``runs/2`` models on D and ``runs/2`` on D' (:func:`~dptheory.train.data.quadratic_neighbours`
    with ``S_g = lam * diameter``; ``setting.S_g`` is ignored in favour of it); the statistic is the
    projection of the last iterate on ``x - x'`` (the likelihood ratio is monotone in it, so this is
    the most powerful test). Returns a dict with ``audit`` (:class:`AuditResult`), ``exact_epsilon``
    (of the pair, nats) and ``upper`` (list of (key, epsilon)).

    The models are trained where ``tasks`` says (:class:`~dptheory.audit.empirical.TaskOptions`); the numbers are
    the same in every case.
    """
    from dptheory.papers.yeshokri22.quadratic import (
        COMPARED,
        FULL_BATCH,
        QuadraticSetting,
        last_iterate_law,
        parse_scheme,
        theorem_point,
    )
    from dptheory.train.data import quadratic_neighbours

    sch = parse_scheme(scheme)
    # full batch (b = n) trains with the fixed order: with one batch every scheme is the same
    train_sch = sch if isinstance(sch, BatchScheme) else BatchScheme.FIXED_ORDER
    st = setting if isinstance(setting, QuadraticSetting) else QuadraticSetting(**setting)
    lam = float(st.lam)
    st = QuadraticSetting(alpha=st.alpha, eta=st.eta, lam=st.lam, S_g=st.lam * _frac(diameter), sigma=st.sigma, n=st.n,
                          b=st.b, K=st.K)
    index = 0
    order = None
    if sch is BatchScheme.FIXED_ORDER:
        # put the differing record in batch j0
        order = np.arange(st.n)
        order[[0, j0 * st.b]] = order[[j0 * st.b, 0]]
    D, D2 = quadratic_neighbours(st.n, 1, diameter, t=t, index=index)
    mask = np.zeros(runs, dtype=bool)
    mask[runs // 2:] = True
    import time

    t0 = time.perf_counter()
    spec = {"X": D.X, "x2": D2.X[index], "index": index, "lam": lam, "eta": float(st.eta), "sigma": float(st.sigma),
            "b": st.b, "K": st.K, "scheme": train_sch, "order": order, "split": runs // 2}
    score = scores_by_task(_quadratic_task, spec, runs, rng, **tasks.as_kwargs(), desc="audit (quadratic)")
    seconds = time.perf_counter() - t0
    # mask selects the D' runs (record replaced by x'); scores of D first
    audit = run_audit(score[~mask], score[mask], delta=delta, gamma=gamma, rng=rng,
                      statistic="projection of the last iterate on x - x'")
    jj = j0 if sch is BatchScheme.FIXED_ORDER else 0
    law_p = last_iterate_law(st, train_sch, diameter=diameter, t=t, dataset="D", j0=jj)
    law_q = last_iterate_law(st, train_sch, diameter=diameter, t=t, dataset="D'", j0=jj)
    exact = exact_epsilon(law_p, law_q, delta)

    pts = []
    for key in COMPARED[sch]:
        pt = theorem_point(key, st.with_alpha(2),
                           j0 if sch is BatchScheme.FIXED_ORDER else (0 if sch == FULL_BATCH else None))
        if pt is not None:
            pts.append((key, pt))
    upper = converted_upper_bounds(pts, delta)
    return {"audit": audit, "exact_epsilon": exact, "upper": upper, "setting": st.describe(), "scheme": str(sch),
            "seconds": seconds}


def _quadratic_task(task: tuple[dict[str, Any], int, int, np.random.Generator]) -> np.ndarray:
    """Scores (projection on x - x') of models ``lo..hi-1`` of :func:`audit_quadratic` (one Dask task)."""
    from dptheory.train.noisy_gd import QuadraticLoss, Replacement, train_noisy_gd

    sp, lo, hi, g = task
    res = train_noisy_gd(QuadraticLoss(lam=sp["lam"], dim=1), sp["X"], eta=sp["eta"], sigma=sp["sigma"], b=sp["b"],
                         K=sp["K"], scheme=sp["scheme"], runs=hi - lo, rng=g, order=sp["order"],
                         replacement=Replacement(index=sp["index"], x=sp["x2"], runs=_second_half(sp, lo, hi)),
                         chunk_size=hi - lo)
    return res.theta[:, 0]


def _second_half(sp: dict[str, Any], lo: int, hi: int) -> np.ndarray:
    """``mask[lo:hi]`` of the audit's (runs,) mask (True from ``sp["split"] = runs // 2`` on: the D' models).

    The spec that every task carries holds only the split, so what is shipped to each Dask task is the same
    whatever the number of runs (a (runs,) mask in it made the data shipped grow as runs^2 / task_runs). A spec
    built by hand with a ``"mask"`` (a bool array over all runs) is still read: its slice.
    """
    if "mask" in sp:
        return np.asarray(sp["mask"], dtype=bool)[lo:hi]
    return np.arange(lo, hi) >= sp["split"]


def _frac(x: Any) -> Any:
    from fractions import Fraction

    return Fraction(str(x)) if isinstance(x, float) else x


def pick_canary(X: np.ndarray, L: float) -> tuple[np.ndarray, int]:
    """A canary feature vector of norm L along the feature with the least total mass in the data, and its index."""
    k = int(np.argmin(np.abs(X).sum(axis=0)))
    x = np.zeros(X.shape[1])
    x[k] = L
    return x, k


def audit_logistic(
    data: Any,
    setting: Algorithm2Setting,
    *,
    runs: int,
    rng: np.random.Generator,
    delta: float,
    gamma: float = 0.05,
    canary_label: int = 0,
    tasks: TaskOptions = TaskOptions(),
) -> dict[str, Any]:
    """Audit Algorithm 2 (DP-SGD on regularized logistic regression, shuffle and partition) at ``setting``.

    The canary replaces record 0 in the D' runs: features ``L e_k`` on the feature k with the least
    mass in the data, label ``canary_label``. Statistic: ``<theta, (e_y - 1/c) kron x_c>`` (the
    canary's logit margin from its own features; its clipped gradient pushes exactly along it).
    Upper bounds: Cor 5.3 and the composition baseline (sigma = sqrt(eta/2) sigma_mul S_g/(2b)),
    converted at ``delta``.

    The models are trained where ``tasks`` says (:class:`~dptheory.audit.empirical.TaskOptions`); the numbers are
    the same in every case.
    """
    from dptheory.papers.yeshokri22.theorems import sigma_from_sigma_mul

    eta, lam, sigma_mul, S_g, L, b, K = setting.as_kwargs().values()
    x_c, k = pick_canary(data.X, L)
    mask = np.zeros(runs, dtype=bool)
    mask[runs // 2:] = True
    import time

    t0 = time.perf_counter()
    spec = {"data": data, "setting": setting, "canary_x": x_c, "canary_feature": k, "canary_label": canary_label,
            "split": runs // 2}
    score = scores_by_task(_logistic_task, spec, runs, rng, **tasks.as_kwargs(), desc="audit (Algorithm 2)")
    seconds = time.perf_counter() - t0
    # mask selects the D' runs (with the canary); scores of D first
    audit = run_audit(score[~mask], score[mask], delta=delta, gamma=gamma, rng=rng,
                      statistic=f"canary logit margin from feature {k}")
    n = data.n
    pts: list[tuple[str, dict[str, Any]]] = []
    cor = {"eta": eta, "lam": lam, "L": L, "sigma_mul": sigma_mul, "n": n, "b": b, "K": K}
    from dptheory.core.conditions import Status
    from dptheory.core.registry import REGISTRY

    if all(r.status is Status.HOLDS for r in REGISTRY.get("yeshokri22.cor5_3").check({**cor, "alpha": 2})):
        pts.append(("yeshokri22.cor5_3", cor))
    sigma = float(sigma_from_sigma_mul(sigma_mul, eta, S_g, b))
    comp = {"eta": eta, "S_g": S_g, "sigma": sigma, "n": n, "b": b, "K": K}
    pts.append(("yeshokri22.composition", comp))
    upper = converted_upper_bounds(pts, delta)
    return {"audit": audit, "upper": upper, "seconds": seconds, "canary_feature": k,
            "setting": {**setting.as_kwargs(), "n": n, "runs": runs, "dataset": data.name}}


def _logistic_task(task: tuple[dict[str, Any], int, int, np.random.Generator]) -> np.ndarray:
    """Scores (canary logit margin) of models ``lo..hi-1`` of :func:`audit_logistic` (one Dask task)."""
    from dptheory.train.logistic import Canary, train_dp_sgd

    sp, lo, hi, g = task
    data, k, L, y = sp["data"], sp["canary_feature"], sp["setting"].L, sp["canary_label"]
    res = train_dp_sgd(data, **sp["setting"].as_kwargs(), runs=hi - lo, rng=g,
                       canary=Canary(index=0, x=sp["canary_x"], y=y), canary_runs=_second_half(sp, lo, hi),
                       chunk_size=hi - lo)
    col = res.theta.reshape(hi - lo, data.n_classes, data.d + 1)[:, :, k] * L
    return col[:, y] - col.mean(axis=1)
