"""Generalization of DP-SGD-trained logistic regression vs max-information bounds, on a real dataset.

Setting (documented in ``docs/max_information.md``): scikit-learn's bundled digits (1797 8x8 images,
pixels / 16, via :mod:`dptheory.train.data`; nothing is downloaded), binary task "digit <= 4 vs
digit >= 5", a random train/test split drawn from the caller's generator, features with a bias
coordinate, binary logistic loss, labels in {-1, +1}, 0-1 loss for the bounds.

Features: pixels/16 minus the fixed constant 0.3 (data-independent, so no privacy is spent on it).

Training: DP-SGD (Lampert & Zakerinia 2026, Algorithm 2 = last iterate of Algorithm 1): batches of
size m from a fresh shuffle per epoch (data-independent), per-example clipping to zeta, Gaussian
noise sigma on the sum, heavy-ball momentum 0.9 with learning rate ``lr/m`` (GradientUpdate sees the
data only through the noisy sums), E epochs, theta_0 = 0.

Bounds (all upper bounds with probability >= 1 - delta over the data and the algorithm):

* max-information ``k``: ``min(Theorem A, Theorem B)`` when E = 1 (Theorem B needs one pass for a
  theta-dependent gradient), Theorem A alone when E >= 2 (``maxinfo.thm*_derived``, derived here);
* single-model bound (G3, ``pacbayes.g3_single_model_derived``): risk of the DP-SGD output theta from
  its training error, ``delta = 0.05``, ``beta = delta/2``;
* PAC-Bayes with a DP-SGD prior (G2, ``pacbayes.g2_maxinfo_prior_derived``): prior
  ``N(theta, s^2 I)``, posterior ``N(theta_post, s^2 I)`` with ``theta_post`` = theta fine-tuned by
  non-private full-batch gradient descent on the training set (the posterior may depend on the data),
  ``s`` from a fixed grid of G values (union bound: ``ln(G/(delta_pb - beta))``); the empirical Gibbs
  risk is estimated with M posterior samples and upper-bounded by the Chernoff kl bound at
  ``delta_mc/G`` per scale; ``delta_pb + delta_mc = delta``.

Test error on the held-out split is reported beside each bound; "non-vacuous" means bound < 1 and
"informative" means bound < the majority-class test error.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from dptheory.core.errors import DPTheoryError
from dptheory.core.validate import check_generator
from dptheory.numerics import kl as K
from dptheory.papers.maxinfo import kernels as mx
from dptheory.train.dpsgd_stream import SGD, Momentum, dpsgd_stream, logistic_per_example_grad

__all__ = ["GeneralizationConfig", "GeneralizationResult", "GeneralizationRow", "load_task", "run_sweep"]


@dataclass(frozen=True)
class GeneralizationConfig:
    """Hyper-parameters of the sweep (defaults are the documented run)."""

    n_train: int = 1400
    m: int = 200
    zeta: float = 1.0
    lr: float = 4.0
    momentum: float = 0.9
    feature_shift: float = 0.3
    delta: float = 0.05
    delta_mc: float = 0.01
    prior_scales: tuple[float, ...] = (0.1, 0.3, 1.0, 3.0)
    gibbs_samples: int = 2000
    finetune_steps: int = 50
    finetune_lr: float = 1.0
    runs: int = 3


@dataclass(frozen=True)
class GeneralizationRow:
    """One (sigma, E) configuration: per-run values (lists of length runs) and what they mean."""

    sigma: float
    E: int
    maxinfo_theorem: str
    k: float
    train_error: list[float]
    test_error: list[float]
    single_model_bound: list[float]
    gibbs_test_error: list[float]
    gibbs_train_ucb: list[float]
    pacbayes_bound: list[float]
    pacbayes_scale: list[float]
    pacbayes_kl: list[float]
    majority_test_error: float

    def summary(self) -> dict[str, Any]:
        med = {k: float(np.median(v)) for k, v in asdict(self).items() if isinstance(v, list)}
        return {"sigma": self.sigma, "E": self.E, "theorem": self.maxinfo_theorem, "k_nats": self.k,
                "k_per_example": None, **med,
                "single_model_nonvacuous": bool(np.all(np.array(self.single_model_bound) < 1.0)),
                "single_model_informative": bool(np.all(np.array(self.single_model_bound) < self.majority_test_error)),
                "pacbayes_nonvacuous": bool(np.all(np.array(self.pacbayes_bound) < 1.0)),
                "pacbayes_informative": bool(np.all(np.array(self.pacbayes_bound) < self.majority_test_error)),
                "bounds_hold_on_test": bool(np.all(np.array(self.single_model_bound) >= np.array(self.test_error)))}


@dataclass(frozen=True)
class GeneralizationResult:
    config: GeneralizationConfig
    dataset: str
    n_train: int
    n_test: int
    rows: list[GeneralizationRow]
    seconds: float
    notes: list[str] = field(default_factory=list)

    def table(self) -> list[dict[str, Any]]:
        out = []
        for r in self.rows:
            s = r.summary()
            s["k_per_example"] = r.k / self.n_train
            out.append(s)
        return out


def load_task(rng: np.random.Generator, n_train: int, shift: float = 0.3) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                                  np.ndarray, str]:
    """Digits 0-4 vs 5-9: pixels/16 minus a fixed (data-independent) ``shift``, plus a bias feature; random split."""
    from dptheory.train.data import load_digits

    ds = load_digits()
    X = np.concatenate([ds.X - shift, np.ones((ds.n, 1))], axis=1)
    assert ds.y is not None  # the digits are labelled
    y = np.where(ds.y >= 5, 1.0, -1.0)
    if not (10 <= n_train < ds.n - 10):
        raise DPTheoryError(f"experiments.generalization: n_train must be in [10, {ds.n - 10}); got {n_train}")
    perm = rng.permutation(ds.n)
    tr, te = perm[:n_train], perm[n_train:]
    return X[tr], y[tr], X[te], y[te], f"{ds.name}, task digit>=5, {n_train} train / {ds.n - n_train} test"


def _errors(theta: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """0-1 error of each row of theta (ties count as errors)."""
    return np.mean((theta @ X.T) * y[None, :] <= 0, axis=1)


def _finetune(theta: np.ndarray, X: np.ndarray, y: np.ndarray, steps: int, lr: float) -> np.ndarray:
    th = theta.copy()
    for _ in range(steps):
        margin = y[None, :] * (th @ X.T)
        coef = -y[None, :] * np.exp(-np.logaddexp(0.0, margin))
        th = th - lr * (coef @ X) / X.shape[0]
    return th


def _maxinfo(n: int, m: int, E: int, r: float, beta: float) -> tuple[float, str]:
    n_u = m * (n // m)
    a = float(mx.thm_a_np(n_u, m, E, r, beta))
    if E == 1:
        b = float(mx.thm_b_np(n_u, m, E, r, beta))
        return (b, "maxinfo.thmB_derived") if b <= a else (a, "maxinfo.thmA_derived")
    return a, "maxinfo.thmA_derived"


def run_sweep(sigmas: list[float], epochs: list[int], *, rng: np.random.Generator,
              config: GeneralizationConfig | None = None) -> GeneralizationResult:
    """Train DP-SGD logistic regression over a (sigma, E) grid and compute the bounds (see module docstring)."""
    rng = check_generator(rng, key="experiments.generalization")
    cfg = config or GeneralizationConfig()
    t0 = time.perf_counter()
    Xtr, ytr, Xte, yte, name = load_task(rng, cfg.n_train, cfg.feature_shift)
    n = Xtr.shape[0]
    majority = float(min(np.mean(yte > 0), np.mean(yte < 0)))
    G = len(cfg.prior_scales)
    delta_pb = cfg.delta - cfg.delta_mc
    beta_pb = delta_pb / 2
    beta_sm = cfg.delta / 2
    xi_n = K.xi(n)
    rows = []
    for E in epochs:
        for sigma in sigmas:
            r = cfg.zeta**2 / sigma**2
            res = dpsgd_stream(Xtr, ytr, logistic_per_example_grad, m=cfg.m, E=E, zeta=cfg.zeta, sigma=sigma,
                               eta=cfg.lr / cfg.m, rng=rng, runs=cfg.runs, d=Xtr.shape[1],
                               update=Momentum(cfg.momentum) if cfg.momentum else SGD())
            theta = res.theta
            k_sm, thm = _maxinfo(n, cfg.m, E, r, beta_sm)
            k_pb, _ = _maxinfo(n, cfg.m, E, r, beta_pb)
            tr_err = _errors(theta, Xtr, ytr)
            te_err = _errors(theta, Xte, yte)
            c_sm = (math.log(xi_n) + math.log(1 / (cfg.delta - beta_sm)) + k_sm) / n
            sm = [K.kl_inv_upper(float(e), c_sm) for e in tr_err]
            post = _finetune(theta, Xtr, ytr, cfg.finetune_steps, cfg.finetune_lr)
            pb, pb_s, pb_kl, g_ucb, g_te = [], [], [], [], []
            for j in range(cfg.runs):
                best = (math.inf, 0.0, 0.0, 0.0, 0.0)
                for s in cfg.prior_scales:
                    kl_div = float(np.sum((post[j] - theta[j]) ** 2) / (2 * s * s))
                    W = post[j][None, :] + s * rng.standard_normal((cfg.gibbs_samples, theta.shape[1]))
                    g_hat = float(np.mean(_errors(W, Xtr, ytr)))
                    ucb = K.kl_inv_upper(g_hat, math.log(G / cfg.delta_mc) / cfg.gibbs_samples)
                    c_pb = (kl_div + math.log(xi_n) + math.log(G / (delta_pb - beta_pb)) + k_pb) / n
                    bound = K.kl_inv_upper(ucb, c_pb)
                    if bound < best[0]:
                        best = (bound, s, kl_div, ucb, float(np.mean(_errors(W[:500], Xte, yte))))
                pb.append(best[0])
                pb_s.append(best[1])
                pb_kl.append(best[2])
                g_ucb.append(best[3])
                g_te.append(best[4])
            rows.append(GeneralizationRow(
                sigma=float(sigma), E=int(E), maxinfo_theorem=thm, k=k_sm, train_error=tr_err.tolist(),
                test_error=te_err.tolist(), single_model_bound=sm, gibbs_test_error=g_te, gibbs_train_ucb=g_ucb,
                pacbayes_bound=pb, pacbayes_scale=pb_s, pacbayes_kl=pb_kl, majority_test_error=majority))
    notes = [f"single model: delta = {cfg.delta}, beta = {beta_sm}; PAC-Bayes: delta_pb = {delta_pb}, "
             f"beta = {beta_pb}, delta_mc = {cfg.delta_mc}, {G} prior scales (union bound)",
             "E >= 2 uses Theorem A only (theta-dependent gradients); Conjecture C (docs/derivations/maxinfo_dpsgd.md) "
             "is not used"]
    return GeneralizationResult(config=cfg, dataset=name, n_train=n, n_test=Xte.shape[0], rows=rows,
                                seconds=time.perf_counter() - t0, notes=notes)
