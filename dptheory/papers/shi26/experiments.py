"""Shi et al., Section 5 / Figure 1: GD vs DP-GD on two-layer Huberized-ReLU CNNs, and its privacy.

The paper (Shi, Wang, Zhang, Cao, Sec. 5) sets ``||mu|| = 1``, ``d = 2000``,
``m = 100``, ``n = 1000``, ``sigma_b = 0.01``, ``eta = 0.1``, ``sigma_p in {0.1, 0.3, 0.5}`` and reports
final test accuracies (GD, DP-GD): ~100%/~100% at 0.1, 95%/100% at 0.3, 75%/95% at 0.5. It does not
report ``q``, ``kappa``, ``sigma_0``, the number of iterations or the test-set size; our choices
(:data:`CHOSEN`) and a sensitivity sweep over them are documented in ``docs/shi26.md``.

Every run is deterministic given the seed: the data, the initialisation and the DP noise come from
three independent generators ``default_rng([seed, k, ...])``; GD and DP-GD share the data and the
initialisation (a paired comparison).
"""

from __future__ import annotations

import csv
import json
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import mpmath
import numpy as np

from dptheory.core.registry import REGISTRY
from dptheory.numerics.binomial import wilson
from dptheory.papers.shi26 import privacy as sp26
from dptheory.papers.shi26 import theorems as shi_2026  # noqa: F401  (registers the shi26 theorems)
from dptheory.papers.shi26.cnn import (
    CNNConfig,
    CNNTrainResult,
    DataModel,
    PatchData,
    TrainConfig,
    init_weights,
    sample_data,
    train_cnn,
)
from dptheory.privacy.gaussian_dp import gdp_epsilon_mp

SIGMA_PS = (0.1, 0.3, 0.5)
CHOSEN = {"q": 3.0, "kappa": 0.05, "sigma_0": 0.001}
"""Our choice of the unreported hyper-parameters (see docs/shi26.md for why)."""


@dataclass(frozen=True)
class Fig1Config:
    """One Figure-1 setting. ``steps``, ``n_test``, ``q``, ``kappa``, ``sigma_0`` are our choices."""

    d: int = 2000
    m: int = 100
    n: int = 1000
    mu_norm: float = 1.0
    sigma_b: float = 0.01
    eta: float = 0.1
    sigma_ps: tuple[float, ...] = SIGMA_PS
    q: float = CHOSEN["q"]
    kappa: float = CHOSEN["kappa"]
    sigma_0: float = CHOSEN["sigma_0"]
    steps: int = 3000
    n_test: int = 2000
    eval_every: int = 50
    seed: int = 0
    delta: float = 1e-5
    name: str = "paper"

    def cnn(self) -> CNNConfig:
        return CNNConfig(m=self.m, q=self.q, kappa=self.kappa, sigma_0=self.sigma_0)


PAPER = Fig1Config()
REDUCED = Fig1Config(d=500, m=25, n=250, sigma_b=0.02, steps=750, n_test=1000, eval_every=25, name="reduced")
"""Reduced scale: n/d and n||mu||^2/(sigma_p^2 d) as in the paper; 4x fewer records and filters make every
learning rate ``eta ||xi||^2/(n m)`` 4x larger, so the horizon is 4x shorter and ``sigma_b`` is doubled
(the injected noise grows like sqrt(t)) to keep the noise-vs-learning time scales of the paper."""


# ----------------------------------------------------------------------------- privacy of a DP-GD run
@dataclass
class PrivacyReport:
    """(epsilon, delta) of one DP-GD run, by every accounting we have (all in nats).

    Attributes:
        lemma39: Lemma 39 as printed, order optimised in closed form (``lemma39_order``).
        lemma39_rdp_improved: Lemma 39's RDP curve converted with the improved conversion at the full delta.
        restricted_replace: exact (GDP) epsilon of the worst case over records with
            ``||xi||^2 <= 1.5 sigma_p^2 d``, replace-one neighbours: a DP guarantee on that restricted domain.
        restricted_zero_out: the same for zero-out neighbours.
        realised_zero_out / realised_replace: exact (GDP) epsilon of a Gaussian mechanism whose per-step
            sensitivity is the *realised* max_i ||grad l_i/n|| of this run (replace: twice that). These are
            data- and trajectory-dependent descriptions of this run, NOT DP guarantees.
        frac_train_in_domain: fraction of training records with ``||xi||^2 <= 1.5 sigma_p^2 d``.
        unrestricted: what holds over all of R^d.
    """

    T: int
    delta: float
    lemma39: float
    lemma39_order: float
    lemma39_rdp_improved: float
    restricted_replace: float
    restricted_zero_out: float
    realised_zero_out: float
    realised_replace: float
    realised_sensitivity_ratio: float
    frac_train_in_domain: float
    unrestricted: str = ("no finite epsilon for any delta < 1: without clipping the gradient of one record "
                         "grows linearly with ||xi||, so the sensitivity over R^d is unbounded")
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def privacy_report(run: CNNTrainResult, cfg: Fig1Config, sigma_p: float, train: PatchData,
                   delta: float | None = None, dps: int = 30) -> PrivacyReport:
    """All accountings of one DP-GD run (see :class:`PrivacyReport`)."""
    from dptheory.privacy.conversion import convert

    delta = cfg.delta if delta is None else delta
    T = int(run.train.steps)
    sb = float(run.train.sigma_b)
    p = {"T": T, "mu_norm": cfg.mu_norm, "sigma_p": sigma_p, "d": cfg.d, "sigma_b": sb, "n": cfg.n, "m": cfg.m}
    with mpmath.workdps(dps):
        L = mpmath.log(2 / mpmath.mpf(delta))
        thm = REGISTRY.get("shi26.lemma39")
        e39 = thm.evaluate({**p, "delta": delta}, dps=dps).value
        A = sp26.lemma39_A(*(mpmath.mpf(x) for x in (T, cfg.mu_norm, sigma_p, cfg.d, sb, cfg.n, cfg.m)))
        lam = sp26.opt_order(A, L)
        conv = convert(REGISTRY.get("shi26.lemma39_rdp"), p, delta=delta, method="improved", dps=dps)

        def gdp(mu2: Any) -> float:
            return float(gdp_epsilon_mp(mpmath.sqrt(mu2), delta))

        args = [mpmath.mpf(x) for x in (cfg.mu_norm, sigma_p, cfg.d, cfg.n, cfg.m)]
        rep = gdp(T * sp26.sup_sensitivity_sq(*args, neighbour="replace") / mpmath.mpf(sb) ** 2)
        zo = gdp(T * sp26.sup_sensitivity_sq(*args, neighbour="zero-out") / mpmath.mpf(sb) ** 2)
        g = run.history.max_record_grad
        notes = []
        if g is None:
            real_zo = real_rep = math.nan
            ratio = math.nan
            notes.append("sensitivity not tracked in this run")
        else:
            s2 = mpmath.fsum(mpmath.mpf(float(x)) ** 2 for x in g)
            real_zo = gdp(s2 / mpmath.mpf(sb) ** 2)
            real_rep = gdp(4 * s2 / mpmath.mpf(sb) ** 2)
            sup_zo = mpmath.sqrt(sp26.sup_sensitivity_sq(*args, neighbour="zero-out"))
            ratio = float(mpmath.mpf(float(np.max(g))) / sup_zo)
    R2 = 1.5 * sigma_p**2 * cfg.d
    frac = float(np.mean((train.xi**2).sum(1) <= R2))
    return PrivacyReport(T=T, delta=float(delta), lemma39=float(e39), lemma39_order=float(lam),
                         lemma39_rdp_improved=float(conv.epsilon), restricted_replace=rep, restricted_zero_out=zo,
                         realised_zero_out=real_zo, realised_replace=real_rep, realised_sensitivity_ratio=ratio,
                         frac_train_in_domain=frac, notes=notes)


# ----------------------------------------------------------------------------- memory of a run
KEY = "shi26.experiments"
#: bytes of one evaluation step while its list is built (a Python int, its set slot and list entry: measured
#: about 100 bytes); the test-set size and the number of steps are user options (``--n-test``, ``--steps``)
EVAL_BUILD_BYTES = 128


def memory_estimate(cfg: Fig1Config, *, pairs: int = 1, concurrent: int = 1) -> Any:
    """Bytes that ``pairs`` (GD, DP-GD) pairs of ``cfg`` allocate, from the shapes (nothing is allocated).

    Kept per pair (:class:`PairResult`): the training losses of both runs and DP-GD's per-step sensitivities
    (8 bytes per step each), 14 float64 summaries per evaluation and run and the evaluation steps
    (:class:`~dptheory.papers.shi26.cnn.History`), the final test predictions (a bool per test example and run)
    and the final decompositions (``(2, m, n)`` floats per run). Working, for each of ``concurrent`` pairs
    trained at once: the training and test sets (:func:`~dptheory.papers.shi26.cnn.sample_data`: 24 d + 40
    bytes per record kept, and 16 d more while one is drawn) or, while training, the forward workspaces (128 m
    bytes per record), the least-squares decomposition (an (n+1, d) and two (n+1, n+1) arrays), five (d, 2m)
    weight arrays and the list of evaluation steps while it is built. The units of the estimate are the test
    examples or the steps, whichever takes more, so that the message names the option to change.
    """
    from dptheory.core.memory import MemoryEstimate

    d, m, n, n_test, T, every = (int(cfg.d), int(cfg.m), int(cfg.n), int(cfg.n_test), int(cfg.steps),
                                 max(1, int(cfg.eval_every)))
    evals = T // every + 1 + (1 if T % every else 0)
    record = 24 * d + 40
    per_test = {"test set": concurrent * record, "test workspace": concurrent * max(16 * d, 128 * m),
                "final predictions": 2 * pairs}
    per_eval = 2 * 8 * 15
    per_step = {"losses and sensitivities": pairs * 24}
    train = {"training set": concurrent * n * (record + max(16 * d, 128 * m)),
             "decomposition": concurrent * 8 * ((n + 1) * d + 2 * (n + 1) ** 2),
             "weights": concurrent * 5 * 16 * d * m, "final decompositions": pairs * 2 * 16 * m * n}
    evals_bytes = {"evaluations": pairs * per_eval * evals, "evaluation steps": EVAL_BUILD_BYTES * evals}
    test_total = n_test * sum(per_test.values())
    step_total = T * sum(per_step.values()) + sum(evals_bytes.values())
    if test_total >= step_total:
        return MemoryEstimate(what=KEY, units=n_test, unit="test examples", per_unit=per_test,
                              fixed={**train, "losses and sensitivities": T * per_step["losses and sensitivities"],
                                     **evals_bytes}, advice="give fewer test examples (--n-test)")
    per_step["evaluations"] = -(-(pairs * per_eval + EVAL_BUILD_BYTES) // every)
    return MemoryEstimate(what=KEY, units=T, unit="steps", per_unit=per_step,
                          fixed={**train, **{k: n_test * v for k, v in per_test.items()}},
                          advice="give fewer iterations (--steps) or evaluate less often (--eval-every)")


# ----------------------------------------------------------------------------- one pair of runs
@dataclass
class PairResult:
    """GD and DP-GD on the same data and initialisation at one sigma_p."""

    sigma_p: float
    seed: int
    gd: CNNTrainResult
    dp: CNNTrainResult
    privacy: PrivacyReport | None
    n_test: int

    def final(self, method: str) -> dict[str, float]:
        r = self.gd if method == "GD" else self.dp
        h = r.history
        return {"train_loss": float(h.train_loss[-1]), "test_loss": float(h.test_loss[-1]),
                "test_accuracy": float(1 - h.test_error[-1]), "gamma_mean": float(h.gamma_mean[:, -1].mean()),
                "memorised": float(h.memorised[-1]), "seconds": float(r.seconds)}


def _rngs(seed: int, sigma_p: float) -> tuple[np.random.Generator, np.random.Generator, np.random.Generator]:
    tag = round(sigma_p * 1000)
    return (np.random.default_rng([seed, 0, tag]), np.random.default_rng([seed, 1, tag]),
            np.random.default_rng([seed, 2, tag]))


def run_pair(cfg: Fig1Config, sigma_p: float, *, seed: int | None = None, progress: bool = False,
             keep_weights: bool = False, privacy: bool = True) -> PairResult:
    """Train GD and DP-GD (same data, same W^(0)) at one sigma_p; privacy of the DP-GD run.

    The memory of the pair (:func:`memory_estimate`) is checked first
    (:class:`~dptheory.core.errors.InsufficientMemory` with the figures)."""
    memory_estimate(cfg).check()
    seed = cfg.seed if seed is None else seed
    r_data, r_init, r_noise = _rngs(seed, sigma_p)
    dm = DataModel(d=cfg.d, mu_norm=cfg.mu_norm, sigma_p=sigma_p)
    train = sample_data(dm, cfg.n, r_data)
    test = sample_data(dm, cfg.n_test, r_data)
    cnn = cfg.cnn()
    W0 = init_weights(cfg.d, cnn, r_init)
    out = {}
    for method, sb in (("GD", 0.0), ("DP-GD", cfg.sigma_b)):
        tc = TrainConfig(eta=cfg.eta, steps=cfg.steps, sigma_b=sb, eval_every=cfg.eval_every, progress=progress,
                         label=f"{method} sigma_p={sigma_p}", track_sensitivity=sb > 0)
        out[method] = train_cnn(train, test, cnn, tc, W0=W0, noise_rng=r_noise if sb > 0 else None,
                                keep_weights=keep_weights)
    priv = privacy_report(out["DP-GD"], cfg, sigma_p, train) if privacy else None
    return PairResult(sigma_p=sigma_p, seed=seed, gd=out["GD"], dp=out["DP-GD"], privacy=priv, n_test=cfg.n_test)


# ----------------------------------------------------------------------------- Figure 1
@dataclass
class Fig1Result:
    config: Fig1Config
    pairs: list[PairResult]
    seconds: float
    files: dict[str, str]
    summary: dict[str, Any]


PAPER_REPORTED = {0.1: {"GD": 1.00, "DP-GD": 1.00}, 0.3: {"GD": 0.95, "DP-GD": 1.00}, 0.5: {"GD": 0.75, "DP-GD": 0.95}}
"""Section 5's final test accuracies ("almost 100%", "100% vs 95%", "95% ... only 75%")."""
REPRO_TOL = 0.05
"""A reported accuracy is called reproduced when our final accuracy is within 5 percentage points."""

CSV_FIELDS = ("sigma_p", "method", "step", "train_loss", "test_loss", "test_accuracy", "gamma_mean_pos",
              "gamma_mean_neg", "signal_max_pos", "signal_max_neg", "rho_bar_max", "rho_under_min", "memorised",
              "rho_own_mean")


def curve_rows(pair: PairResult) -> list[dict[str, Any]]:
    rows = []
    for method, r in (("GD", pair.gd), ("DP-GD", pair.dp)):
        h = r.history
        for k, t in enumerate(h.eval_steps):
            rows.append({"sigma_p": pair.sigma_p, "method": method, "step": int(t),
                         "train_loss": float(h.train_loss[t]), "test_loss": float(h.test_loss[k]),
                         "test_accuracy": float(1 - h.test_error[k]), "gamma_mean_pos": float(h.gamma_mean[0, k]),
                         "gamma_mean_neg": float(h.gamma_mean[1, k]), "signal_max_pos": float(h.signal_max[0, k]),
                         "signal_max_neg": float(h.signal_max[1, k]), "rho_bar_max": float(h.rho_bar_max[k]),
                         "rho_under_min": float(h.rho_under_min[k]), "memorised": float(h.memorised[k]),
                         "rho_own_mean": float(h.rho_own_mean[k])})
    return rows


def summarise(cfg: Fig1Config, pairs: Sequence[PairResult]) -> dict[str, Any]:
    out: dict[str, Any] = {"config": asdict(cfg), "chosen_unreported": dict(CHOSEN, steps=cfg.steps,
                                                                            n_test=cfg.n_test),
                           "paper_reported_accuracy": {str(k): v for k, v in PAPER_REPORTED.items()},
                           "reproduction_tolerance": REPRO_TOL, "runs": []}
    for pr in pairs:
        row: dict[str, Any] = {"sigma_p": pr.sigma_p, "seed": pr.seed}
        for method in ("GD", "DP-GD"):
            f: dict[str, Any] = pr.final(method)  # gains a CI pair and the paper's value below
            lo, hi = wilson(f["test_accuracy"], pr.n_test)
            f["test_accuracy_ci95"] = [lo, hi]
            rep = PAPER_REPORTED.get(round(pr.sigma_p, 3), {}).get(method)
            if rep is not None and cfg.name == "paper":
                f["paper_reported"] = rep
                f["reproduced"] = bool(abs(f["test_accuracy"] - rep) <= REPRO_TOL)
            row[method] = f
        row["dp_minus_gd_accuracy"] = row["DP-GD"]["test_accuracy"] - row["GD"]["test_accuracy"]
        if pr.privacy is not None:
            row["privacy"] = pr.privacy.to_dict()
        out["runs"].append(row)
    return out


def plot_fig1(pairs: Sequence[PairResult], path: str) -> None:
    from dptheory.report.plotting import pyplot, save

    rows = len(pairs)
    plt = pyplot()

    fig, axes = plt.subplots(rows, 3, figsize=(13, 3.2 * rows), squeeze=False)
    for i, pr in enumerate(pairs):
        for method, r, style in (("GD", pr.gd, "-"), ("DP-GD", pr.dp, "--")):
            h = r.history
            axes[i, 0].plot(np.arange(len(h.train_loss)), h.train_loss, style, label=method)
            axes[i, 1].plot(h.eval_steps, h.test_loss, style, label=method)
            axes[i, 2].plot(h.eval_steps, 1 - h.test_error, style, label=method)
        for j, lab in enumerate(("training loss", "test loss", "test accuracy")):
            axes[i, j].set_title(f"{lab}, sigma_p = {pr.sigma_p:g}")
            axes[i, j].set_xlabel("iteration")
            axes[i, j].legend()
    fig.tight_layout()
    save(fig, path)


def check_memory(cfg: Fig1Config, *, pairs: int, workers: int | None = None, scheduler: str | None = None) -> None:
    """Refuse (:class:`~dptheory.core.errors.InsufficientMemory`) before any work when ``pairs`` pairs of ``cfg``
    do not fit: one pair trained at a time in process, ``workers`` at once on a local Dask cluster (on a
    ``scheduler``'s machines each task checks its own pair in :func:`run_pair`)."""
    concurrent = 1 if scheduler or not workers else max(1, min(int(workers), pairs))
    memory_estimate(cfg, pairs=pairs, concurrent=concurrent).check()


def _pair_task(task: tuple[Fig1Config, float, bool]) -> PairResult:
    """One (GD, DP-GD) pair of Figure 1 (a Dask task: everything it draws comes from its seed)."""
    cfg, sigma_p, progress = task
    return run_pair(cfg, sigma_p, progress=progress)


def run_fig1(cfg: Fig1Config, out_dir: str | Path, *, progress: bool = False,
             sigma_ps: Sequence[float] | None = None, workers: int | None = None,
             scheduler: str | None = None) -> Fig1Result:
    """Train all pairs and write ``<name>_fig1.png``, ``<name>_fig1.csv``, ``<name>_fig1.json`` to ``out_dir``.

    The pairs run in process, on a local Dask cluster of ``workers`` processes or on the Dask
    ``scheduler`` (:func:`dptheory.evaluate.parallel.run_tasks`); each pair draws from its own seeds, so
    the results are the same in every case.
    """
    from dptheory.evaluate.parallel import run_tasks, uses_dask

    sps = tuple(sigma_ps or cfg.sigma_ps)
    check_memory(cfg, pairs=len(sps), workers=workers, scheduler=scheduler)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    remote = uses_dask(workers, scheduler)
    tasks = [(cfg, sp_, progress and not remote) for sp_ in sps]
    pairs = run_tasks(_pair_task, tasks, workers=workers, scheduler=scheduler, progress=progress and remote,
                      desc="Figure 1 pairs")
    seconds = time.perf_counter() - t0
    stem = out / f"{cfg.name}_fig1"
    with open(f"{stem}.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(CSV_FIELDS))
        w.writeheader()
        for pr in pairs:
            w.writerows(curve_rows(pr))
    plot_fig1(pairs, f"{stem}.png")
    summary = summarise(cfg, pairs)
    summary["seconds"] = seconds
    with open(f"{stem}.json", "w") as fh:
        json.dump(summary, fh, indent=1, sort_keys=True)
    files = {"png": f"{stem}.png", "csv": f"{stem}.csv", "json": f"{stem}.json"}
    return Fig1Result(cfg, pairs, seconds, files, summary)


# ----------------------------------------------------------------------------- sensitivity sweep
@dataclass(frozen=True)
class SweepRow:
    param: str
    value: float
    seed: int
    sigma_p: float
    step: int
    gd_accuracy: float
    dp_accuracy: float
    gap: float
    gd_train_loss: float
    dp_train_loss: float
    gd_gamma_mean: float
    dp_gamma_mean: float


SWEEP_GRID: dict[str, tuple[float, ...]] = {
    "q": (2.5, 3.0, 4.0),
    "kappa": (0.02, 0.05, 0.1),
    "sigma_0": (1e-4, 1e-3, 1e-2),
}


def sweep(base: Fig1Config, grid: Mapping[str, Sequence[float]] | None = None, *, sigma_p: float = 0.5,
          seeds: Sequence[int] = (0,), checkpoints: Sequence[float] = (0.25, 0.5, 1.0),
          progress: bool = False, workers: int | None = None, scheduler: str | None = None) -> list[SweepRow]:
    """One-at-a-time sweep around ``base``: the final GD-vs-DP-GD accuracy gap per value.

    Every (value, seed) is a task of :func:`dptheory.evaluate.parallel.run_tasks` (in process, or on Dask
    with ``workers``/``scheduler``); the rows come back in grid order whatever ran them.

    The horizon (number of iterations) is swept for free by reading every run at the fractions
    ``checkpoints`` of ``base.steps``; the test-set size only changes the confidence intervals.
    """
    from dptheory.evaluate.parallel import run_tasks

    check_memory(base, pairs=1, workers=workers, scheduler=scheduler)  # every task keeps its rows only
    grid = SWEEP_GRID if grid is None else grid
    tasks = [(replace(base, **{param: type(getattr(base, param))(v)}), param, float(v), s, sigma_p, tuple(checkpoints))
             for param, values in grid.items() for v in values for s in seeds]
    parts = run_tasks(_sweep_task, tasks, workers=workers, scheduler=scheduler, progress=progress, desc="sweep")
    return [row for part in parts for row in part]


def _sweep_task(task: tuple[Fig1Config, str, float, int, float, tuple[float, ...]]) -> list[SweepRow]:
    """The rows of one (value, seed) of :func:`sweep` (a Dask task: everything it draws comes from its seed)."""
    cfg, param, v, s, sigma_p, checkpoints = task
    pr = run_pair(cfg, sigma_p, seed=s, privacy=False)
    rows = []
    for frac in checkpoints:
        t = round(frac * cfg.steps)
        hg, hd = pr.gd.history, pr.dp.history
        k = int(np.searchsorted(hg.eval_steps, t))
        k = min(k, len(hg.eval_steps) - 1)
        t = int(hg.eval_steps[k])
        rows.append(SweepRow(param, float(v), s, sigma_p, t, float(1 - hg.test_error[k]),
                             float(1 - hd.test_error[k]), float(hg.test_error[k] - hd.test_error[k]),
                             float(hg.train_loss[t]), float(hd.train_loss[t]),
                             float(hg.gamma_mean[:, k].mean()), float(hd.gamma_mean[:, k].mean())))
    return rows


def write_sweep(rows: Sequence[SweepRow], path: str | Path) -> None:
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(SweepRow.__dataclass_fields__))
        w.writeheader()
        for r in rows:
            w.writerow(asdict(r))


def plot_sweep(rows: Sequence[SweepRow], path: str) -> None:
    from dptheory.report.plotting import pyplot, save

    plt = pyplot()

    params = list(dict.fromkeys(r.param for r in rows))
    fig, axes = plt.subplots(1, len(params), figsize=(4.5 * len(params), 3.5), squeeze=False)
    for ax, p in zip(axes[0], params, strict=True):
        steps = sorted({r.step for r in rows if r.param == p})
        for st in steps:
            sel = [r for r in rows if r.param == p and r.step == st]
            vals = sorted({r.value for r in sel})
            gaps = [np.mean([r.gap for r in sel if r.value == v]) for v in vals]
            ax.plot(vals, gaps, "o-", label=f"t = {st}")
        ax.set_xscale("log")
        ax.axhline(0, color="grey", lw=0.5)
        ax.set_xlabel(p)
        ax.set_ylabel("DP-GD minus GD test accuracy")
        ax.legend()
    fig.tight_layout()
    save(fig, path)
