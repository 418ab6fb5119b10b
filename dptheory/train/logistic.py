"""Algorithm 2 of Ye & Shokri 2022 (Sec. 5, pseudocode in Sec. F.1): DP-SGD on regularized logistic regression.

Model: multi-class softmax regression with a per-class bias, ``theta = (theta_1..theta_c)`` in
``R^{(d+1) c}`` (class-major, as in Eq. 8: run ``r``'s parameters reshape to a ``(c, d+1)`` matrix
whose last column is the bias); ``xbar = (x, 1)``.
Loss (Eq. 7-8): ``l_lam(theta; x, y) = l_0(theta; x, y) + (lam/2) ||theta||^2`` with ``l_0`` the
cross-entropy of ``softmax(xbar^T theta)``.

One step of Algorithm 2 on mini-batch ``B`` (Sec. F.1)::

    g_0 = (1/b) sum_{i in B} clip(grad l_0(theta; x_i, y_i), S_g/2)      (clip: scale to norm <= S_g/2)
    g   = g_0 + lam * theta
    theta <- theta - eta g + eta (1/b) sigma_mul (S_g/2) N(0, I)

with features clipped to ``||x|| <= L`` beforehand and batches from shuffle-and-partition. This is
Algorithm 1 with noise scale ``sigma = sqrt(eta/2) sigma_mul S_g/(2b)`` (Sec. F.1, Cor. 5.3), which
:func:`train_dp_sgd` checks against
:func:`dptheory.papers.yeshokri22.theorems.sigma_from_sigma_mul`.

The per-example gradient of ``l_0`` is ``xbar (p - y)^T`` (p the softmax probabilities, y one-hot),
so its norm is ``||xbar|| ||p - y||`` and clipping needs no per-example matrices: the clipped mean
gradient is ``(P - Y)^T diag(s) Xbar_B / b`` (two batched matrix products per step).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from dptheory.core.errors import DPTheoryError, InvalidParameter
from dptheory.core.units import BatchScheme
from dptheory.core.validate import check_int, check_positive
from dptheory.train.data import Dataset, clip_features
from dptheory.train.noisy_gd import (
    Replacement,
    Theta0,
    TrainResult,
    train_noisy_gd,
)

__all__ = [
    "Canary",
    "ClippedLogisticLoss",
    "accuracy",
    "add_bias",
    "logistic_noise_std",
    "train_dp_sgd",
]

KEY = "train.dp_sgd"
CITE = "Ye & Shokri 2022, Algorithm 2 (Sec. F.1)"


def add_bias(X: np.ndarray) -> np.ndarray:
    """``xbar = (x, 1)`` for every row."""
    X = np.asarray(X, dtype=np.float64)
    return np.concatenate([X, np.ones((*X.shape[:-1], 1))], axis=-1)


@dataclass(frozen=True)
class ClippedLogisticLoss:
    """Mini-batch gradient of Algorithm 2: per-example clipped cross-entropy gradient + lam * theta.

    Features given to :meth:`mean_grad` already carry the bias column (``(R, b, d+1)``).

    Attributes:
        n_features: d (without the bias).
        n_classes: c.
        lam: l2 regularization (strong convexity) constant.
        clip: per-example clipping norm of the unregularized gradient, ``S_g/2`` (Prop. 5.2);
            ``None`` for no clipping.
    """

    n_features: int
    n_classes: int
    lam: float
    clip: float | None

    def __post_init__(self) -> None:
        check_int("n_features", self.n_features, key=KEY, citation=CITE)
        check_int("n_classes", self.n_classes, low=2, key=KEY, citation=CITE)
        if self.lam < 0 or not math.isfinite(self.lam):
            raise InvalidParameter(key=KEY, name="lam", value=self.lam, reason="must be finite and >= 0",
                                   citation=CITE)
        if self.clip is not None:
            check_positive("clip", self.clip, key=KEY, citation=CITE)

    @property
    def dim(self) -> int:
        return (self.n_features + 1) * self.n_classes

    def _residuals(self, theta: np.ndarray, Xb: np.ndarray, yb: np.ndarray) -> np.ndarray:
        """``P - Y`` in class-major layout ``(R, c, b)`` (reductions over classes stay vectorised)."""
        R, b = Xb.shape[0], Xb.shape[1]
        c = self.n_classes
        W = theta.reshape(R, c, self.n_features + 1)
        P = np.matmul(W, Xb.transpose(0, 2, 1))
        P -= P.max(axis=1, keepdims=True)
        np.exp(P, out=P)
        P /= P.sum(axis=1, keepdims=True)
        flat = P.reshape(-1)
        flat[(np.arange(R)[:, None] * (c * b) + np.arange(b)[None, :]) + yb * b] -= 1.0
        return P

    def record_aux(self, X: np.ndarray) -> np.ndarray:
        """Per-record squared norm ``||xbar||^2``, gathered by the trainer with the batch."""
        return np.einsum("ni,ni->n", X, X)

    def clip_scale(self, Xb: np.ndarray, E: np.ndarray, sq_norms: np.ndarray | None = None) -> np.ndarray:
        """min(1, (S_g/2) / ||grad l_0||) per example ``(R, b)``, with ||grad l_0|| = ||xbar|| ||p - y||."""
        if self.clip is None:
            return np.ones((E.shape[0], E.shape[2]))
        xn = np.einsum("rbi,rbi->rb", Xb, Xb) if sq_norms is None else sq_norms
        en = E[:, 0] * E[:, 0]
        for k in range(1, E.shape[1]):
            en += E[:, k] * E[:, k]
        norm = np.sqrt(xn * en)
        out = np.ones_like(norm)
        np.divide(self.clip, norm, out=out, where=norm > self.clip)
        return out

    def mean_grad(self, theta: np.ndarray, Xb: np.ndarray, yb: np.ndarray | None,
                  aux: np.ndarray | None = None) -> np.ndarray:
        if yb is None:
            raise DPTheoryError(f"{KEY}: logistic regression needs labels")
        E = self._residuals(theta, Xb, yb)
        E *= self.clip_scale(Xb, E, aux)[:, None, :]
        G = np.matmul(E, Xb)
        G *= 1.0 / Xb.shape[1]
        out = G.reshape(theta.shape[0], -1)
        if self.lam:
            out += self.lam * theta
        return out

    def per_example_grads(self, theta: np.ndarray, Xb: np.ndarray, yb: np.ndarray, *, clipped: bool = True
                          ) -> np.ndarray:
        """Per-example gradients of the unregularized loss, ``(R, b, c (d+1))`` (clipped or not)."""
        E = self._residuals(theta, Xb, yb)
        if clipped:
            E *= self.clip_scale(Xb, E)[:, None, :]
        G = E.transpose(0, 2, 1)[..., :, None] * Xb[..., None, :]
        return G.reshape(theta.shape[0], Xb.shape[1], -1)

    def loss(self, theta: np.ndarray, Xb: np.ndarray, yb: np.ndarray) -> np.ndarray:
        """Per-example regularized loss ``l_lam``, shape ``(R, b)``."""
        R = theta.shape[0]
        W = theta.reshape(R, self.n_classes, self.n_features + 1)
        logits = np.matmul(Xb, W.transpose(0, 2, 1))
        m = logits.max(axis=2, keepdims=True)
        lse = (m + np.log(np.exp(logits - m).sum(axis=2, keepdims=True)))[..., 0]
        ly = np.take_along_axis(logits, yb[..., None].astype(np.intp), axis=2)[..., 0]
        return lse - ly + 0.5 * self.lam * np.einsum("rd,rd->r", theta, theta)[:, None]


@dataclass(frozen=True)
class Canary:
    """A record that replaces record ``index`` of the dataset in the D' runs of an audit."""

    index: int
    x: np.ndarray
    y: int


@dataclass(frozen=True)
class Algorithm2Setting:
    """Algorithm 2's parameters (Ye & Shokri 2022, arXiv 2203.05363, Sec. F.1), written once for its audit and
    its assumption measurement: step size, regularization, noise multiplier, sensitivity (per-example clip
    ``S_g/2``), feature clip, batch size, epochs. Validated where they are used (:func:`train_dp_sgd`)."""

    eta: float
    lam: float
    sigma_mul: float
    S_g: float
    L: float
    b: int
    K: int

    def as_kwargs(self) -> dict[str, Any]:
        """The parameters by name, in declaration order (the keyword arguments of :func:`train_dp_sgd`)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def logistic_noise_std(eta: float, sigma_mul: float, S_g: float, b: int) -> float:
    """Per-step noise standard deviation of Algorithm 2: ``eta * sigma_mul * (S_g/2) / b`` (Sec. F.1)."""
    return eta * sigma_mul * (S_g / 2.0) / b


def train_dp_sgd(
    data: Dataset,
    *,
    eta: float,
    lam: float,
    sigma_mul: float,
    S_g: float,
    L: float,
    b: int,
    K: int,
    runs: int,
    rng: np.random.Generator,
    theta0: Theta0 = None,
    canary: Canary | None = None,
    canary_runs: np.ndarray | None = None,
    track: int | None = None,
    record: str | None = None,
    record_batches: bool = False,
    scheme: BatchScheme | str = BatchScheme.SHUFFLE_PARTITION,
    chunk_size: int = 512,
    workers: int = 1,
    progress: bool = False,
    blas_threads: int | None = 1,
    extra_per_run: Mapping[str, int] | None = None,
) -> TrainResult:
    """Run Algorithm 2 (Ye & Shokri 2022, Sec. F.1) ``runs`` times independently.

    Args:
        data: a labelled :class:`~dptheory.train.data.Dataset` (features are clipped to ``L`` here).
        eta, lam, sigma_mul, S_g, L, b, K: Algorithm 2's step size, regularization, noise
            multiplier, sensitivity (per-example clip ``S_g/2``), feature clip, batch size, epochs.
        canary: replace ``canary.index`` by ``(canary.x, canary.y)`` in the runs where
            ``canary_runs`` is True (D' runs of an audit); the canary's features are clipped too.
        scheme: shuffle-and-partition is Algorithm 2; the other schemes are available for
            experiments (Cor. 5.3 covers only shuffle-and-partition).
        extra_per_run: the caller's bytes per run, added to the trainer's memory check
            (:func:`dptheory.train.noisy_gd.memory_estimate`).

    Returns:
        a :class:`TrainResult` whose ``extra`` records ``lam, sigma_mul, S_g, L, n_classes`` and
        the Algorithm 1 noise scale ``sigma = sqrt(eta/2) sigma_mul S_g/(2b)``.
    """
    if data.y is None:
        raise DPTheoryError(f"{KEY}: Algorithm 2 needs a labelled dataset")
    eta = check_positive("eta", eta, key=KEY, citation=CITE)
    sigma_mul = check_positive("sigma_mul", sigma_mul, key=KEY, citation=CITE)
    S_g = check_positive("S_g", S_g, key=KEY, citation=CITE)
    L = check_positive("L", L, key=KEY, citation=CITE)
    if not (math.isfinite(float(lam)) and float(lam) >= 0):
        raise InvalidParameter(key=KEY, name="lam", value=lam, reason="must be finite and >= 0", citation=CITE)
    b = check_int("b", b, key=KEY, citation=CITE)
    Xc = add_bias(clip_features(data.X, L))
    loss = ClippedLogisticLoss(n_features=data.X.shape[1], n_classes=data.n_classes, lam=float(lam), clip=S_g / 2.0)
    rep = None
    if canary is not None:
        if canary_runs is None:
            raise DPTheoryError(f"{KEY}: a canary needs canary_runs (bool mask of the runs trained on D')")
        cy = int(canary.y)
        if not 0 <= cy < data.n_classes:
            raise InvalidParameter(key=KEY, name="canary.y", value=canary.y,
                                   reason=f"must be a class in 0..{data.n_classes - 1}", citation=CITE)
        cx = add_bias(clip_features(np.asarray(canary.x, dtype=np.float64)[None, :], L))[0]
        rep = Replacement(index=canary.index, x=cx, y=cy, runs=np.asarray(canary_runs, dtype=bool))
    std = logistic_noise_std(eta, sigma_mul, S_g, b)
    res = train_noisy_gd(loss, Xc, y=data.y, eta=eta, sigma=1.0, noise_std=std, b=b, K=K, scheme=scheme, runs=runs,
                         rng=rng, theta0=theta0, replacement=rep, track=track, record=record,
                         record_batches=record_batches, chunk_size=chunk_size, workers=workers, progress=progress,
                         desc="Algorithm 2", blas_threads=blas_threads, extra_per_run=extra_per_run)
    res.extra.update({"algorithm": "ye_shokri_2022.algorithm2", "lam": float(lam), "sigma_mul": sigma_mul,
                      "S_g": S_g, "L": L, "n_classes": data.n_classes, "n_features": data.X.shape[1],
                      "dataset": data.name})
    return res


#: bytes of the logits of one chunk of runs in :func:`accuracy` (its memory does not grow with the runs)
ACCURACY_CHUNK_BYTES = 32 * 2**20


def accuracy(theta: np.ndarray, data: Dataset, L: float) -> np.ndarray:
    """Training accuracy of each run's model (features clipped to L as in training), shape ``(R,)``.

    The ``(runs, n, c)`` logits are formed for chunks of runs of at most :data:`ACCURACY_CHUNK_BYTES`, so the
    memory beyond the result is bounded whatever the number of runs.
    """
    if data.y is None:
        raise DPTheoryError("accuracy needs a labelled dataset")
    Xc = add_bias(clip_features(data.X, L))
    W = np.asarray(theta).reshape(theta.shape[0], data.n_classes, Xc.shape[1])
    out = np.empty(W.shape[0])
    step = max(1, ACCURACY_CHUNK_BYTES // (8 * Xc.shape[0] * data.n_classes))
    for lo in range(0, W.shape[0], step):
        pred = np.argmax(np.einsum("ni,rci->rnc", Xc, W[lo:lo + step]), axis=2)
        out[lo:lo + step] = (pred == data.y[None, :]).mean(axis=1)
    return out


