"""Two-layer Huberized-ReLU CNN trained by GD and DP-GD (Shi, Wang, Zhang, Cao, Sec. 3 and 4).

Paper: "Towards Understanding Generalization in DP-GD: A Case Study in Training Two-Layer CNNs"
(statements as read from the paper's text; reading decisions in ``docs/shi26.md``).

* Data (Definition 1): ``y`` Rademacher; ``xi ~ N(0, sigma_p^2 (I - mu mu^T/||mu||^2))``; one of the
  two patches, chosen uniformly at random, is ``y mu`` and the other is ``xi``. ``mu = ||mu|| e_1``
  (the model is rotation invariant: the initialisation and the noise are isotropic).
* Huberized ReLU of order ``q > 2`` and threshold ``kappa``: ``0`` for ``z <= 0``,
  ``z^q/(q kappa^(q-1))`` on ``(0, kappa]``, ``z - (1 - 1/q) kappa`` beyond.
* CNN (Sec. 3): ``f(W, x) = F_{+1} - F_{-1}``, ``F_j = (1/m) sum_r sum_p sigma(<w_{j,r}, x^(p)>)``.
  ``W`` is stored as one ``(d, 2m)`` matrix: columns ``0..m-1`` are the filters of class ``+1``,
  columns ``m..2m-1`` those of class ``-1``.
* Logistic loss ``l(z) = log(1 + e^-z)``, ``L_S = (1/n) sum_i l(y_i f(W, x_i))``.
* GD (Eq. 3.2): ``w <- w - eta grad``; DP-GD (Eq. 3.1): ``w <- w - eta (grad + b)``,
  ``b ~ N(0, sigma_b^2 I_d)`` independently for every filter and step; ``w^(0) ~ N(0, sigma_0^2 I_d)``.

One step is two BLAS matrix products on the stacked patches ``X`` of shape ``(2n, d)``:
``A = X W`` (all filters, both patches) and ``grad = X^T dA``; everything else is elementwise on the
``(2n, 2m)`` activations. The signal-noise decomposition (Definition 2) is computed exactly by least
squares on ``span{mu, xi_1..xi_n}`` (a Cholesky factor of the Gram matrix is computed once), after
removing the initialisation and, for DP-GD, the accumulated injected noise ``-eta sum_k b_k``.
"""

from __future__ import annotations

import functools
import math
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.linalg

from dptheory.core.errors import DPTheoryError, InvalidParameter
from dptheory.core.validate import check_generator, check_positive

KEY = "shi26.cnn"
CITE = "Shi et al., Sec. 3"

__all__ = [
    "CNNConfig",
    "CNNTrainResult",
    "DataModel",
    "Decomposer",
    "Decomposition",
    "History",
    "PatchData",
    "TrainConfig",
    "cnn_output",
    "huberized_relu",
    "huberized_relu_grad",
    "init_weights",
    "logistic_loss",
    "loss_and_grad",
    "per_record_grad_norms",
    "sample_data",
    "train_cnn",
]


# ----------------------------------------------------------------------------- validation helpers
def _bad(name: str, value: Any, reason: str) -> InvalidParameter:
    return InvalidParameter(key=KEY, name=name, value=value, reason=reason, citation=CITE)


def _pos(name: str, value: Any) -> float:
    return check_positive(name, value, key=KEY, citation=CITE)


def _nonneg(name: str, value: Any) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise _bad(name, value, "not a number") from None
    if not math.isfinite(v) or v < 0:
        raise _bad(name, value, f"{name} must be a finite nonnegative number (got {value!r})")
    return v


def _posint(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or int(value) < 1:
        raise _bad(name, value, f"{name} must be a positive integer (got {value!r})")
    return int(value)


def _check_q_kappa(q: Any, kappa: Any) -> tuple[float, float]:
    qv = float(q)
    if not math.isfinite(qv) or qv <= 2:
        raise _bad("q", q, f"the Huberized ReLU needs order q > 2 (Shi et al., Sec. 3); got q = {q!r}")
    return qv, _pos("kappa", kappa)


# ----------------------------------------------------------------------------- activation and loss
def huberized_relu(z: Any, q: float, kappa: float) -> np.ndarray:
    """Huberized ReLU (Shi et al., Sec. 3): 0, ``z^q/(q kappa^(q-1))`` on (0, kappa], ``z - (1-1/q) kappa``."""
    qv, k = _check_q_kappa(q, kappa)
    z = np.asarray(z, dtype=np.float64)
    t = np.power(np.clip(z, 0.0, k) / k, qv - 1.0)
    return z * t / qv + (1.0 - 1.0 / qv) * np.maximum(z - k, 0.0)


def huberized_relu_grad(z: Any, q: float, kappa: float) -> np.ndarray:
    """Derivative of the Huberized ReLU: 0, ``(z/kappa)^(q-1)`` on (0, kappa], 1 beyond."""
    qv, k = _check_q_kappa(q, kappa)
    z = np.asarray(z, dtype=np.float64)
    return np.power(np.clip(z, 0.0, k) / k, qv - 1.0)


def _act_inplace(A: np.ndarray, q: float, kappa: float, S: np.ndarray, dS: np.ndarray) -> None:
    """S = sigma(A), dS = sigma'(A) into preallocated arrays (one pass of a few vector ops).

    With ``t = (clip(A, 0, kappa)/kappa)^(q-1)`` (so ``t = 1`` beyond kappa):
    ``sigma'(A) = t`` and ``sigma(A) = A t/q + (1 - 1/q) max(A - kappa, 0)`` on every piece.
    """
    np.clip(A, 0.0, kappa, out=dS)
    dS *= 1.0 / kappa
    e = q - 1.0
    if e == 2.0:
        np.multiply(dS, dS, out=dS)
    elif e == 1.0:
        pass
    elif e == 3.0:
        np.multiply(dS, dS, out=S)
        np.multiply(S, dS, out=dS)
    else:
        np.power(dS, e, out=dS)
    np.subtract(A, kappa, out=S)
    np.maximum(S, 0.0, out=S)
    S *= 1.0 - 1.0 / q
    S += (A * dS) * (1.0 / q)


def logistic_loss(z: Any) -> np.ndarray:
    """``log(1 + exp(-z))`` computed stably."""
    return np.logaddexp(0.0, -np.asarray(z, dtype=np.float64))


def _logistic_deriv(z: np.ndarray) -> np.ndarray:
    """``l'(z) = -1/(1 + e^z)``, stable for large |z|."""
    return -np.exp(-np.logaddexp(0.0, z))


# ----------------------------------------------------------------------------- data (Definition 1)
@dataclass(frozen=True)
class DataModel:
    """The distribution of Definition 1.

    Attributes:
        d: patch dimension.
        mu_norm: ``||mu||_2`` (the signal is ``mu = mu_norm e_1``).
        sigma_p: noise scale; ``xi ~ N(0, sigma_p^2 (I - mu mu^T/||mu||^2))``.
    """

    d: int
    mu_norm: float
    sigma_p: float

    def __post_init__(self) -> None:
        _posint("d", self.d)
        if self.d < 2:
            raise _bad("d", self.d, "the patch dimension must be at least 2 (the noise lives orthogonal to mu)")
        _pos("mu_norm", self.mu_norm)
        _nonneg("sigma_p", self.sigma_p)

    @property
    def mu(self) -> np.ndarray:
        v = np.zeros(self.d)
        v[0] = float(self.mu_norm)
        return v

    @property
    def snr(self) -> float:
        """``||mu|| / (sigma_p sqrt(d))`` (our reading, ``docs/shi26.md``; the extraction prints ``sigma_p d``)."""
        return float(self.mu_norm) / (float(self.sigma_p) * math.sqrt(self.d)) if self.sigma_p > 0 else math.inf


@dataclass(frozen=True)
class PatchData:
    """n records of Definition 1.

    Attributes:
        X: patches ``(n, 2, d)``; ``X[i, signal_patch[i]] = y_i mu``, the other patch is ``xi_i``.
        y: labels in {-1, +1}, float64 ``(n,)``.
        xi: the noise patches ``(n, d)`` (a view of ``X``'s noise rows is not kept; this is a copy).
        signal_patch: 0 or 1, which patch carries the signal.
        mu: the signal vector ``(d,)``.
    """

    X: np.ndarray
    y: np.ndarray
    xi: np.ndarray
    signal_patch: np.ndarray
    mu: np.ndarray

    @property
    def n(self) -> int:
        return int(self.y.shape[0])

    @property
    def d(self) -> int:
        return int(self.mu.shape[0])

    @property
    def X_flat(self) -> np.ndarray:
        """``(2n, d)`` C-contiguous view: rows ``2i, 2i+1`` are the patches of record ``i``."""
        return self.X.reshape(2 * self.n, self.d)

    @functools.cached_property
    def layout(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The rows of :attr:`X_flat` holding the signal and the noise patches, when the records are laid out as
        :func:`sample_data` draws them: ``mu`` on the first axis (``mu = ||mu|| e_1``), ``X[i, signal_patch[i]]``
        exactly ``y_i mu`` and the other patch exactly ``xi_i``; ``None`` otherwise (checked once, exactly)."""
        n = self.n
        sp_ = np.asarray(self.signal_patch)
        if (self.X.shape != (n, 2, self.d) or self.xi.shape != (n, self.d) or sp_.shape != (n,)
                or not np.isin(sp_, (0, 1)).all() or np.any(self.mu[1:] != 0)):
            return None
        rows = np.arange(n)
        for a in range(0, n, 16):  # in blocks of 16 records: the copies compared are a few d-vectors
            r, s = rows[a:a + 16], sp_[a:a + 16]
            if not (np.array_equal(self.X[r, s], self.y[r, None] * self.mu[None, :])
                    and np.array_equal(self.X[r, 1 - s], self.xi[r])):
                return None
        return 2 * rows + sp_, 2 * rows + 1 - sp_


def sample_data(model: DataModel, n: int, rng: np.random.Generator) -> PatchData:
    """Draw n records of Definition 1 with the generator ``rng`` (labels, patch order, noise)."""
    n = _posint("n", n)
    rng = check_generator(rng, key=KEY)
    d = model.d
    y = rng.choice(np.array([-1.0, 1.0]), size=n)
    first = rng.integers(0, 2, size=n)
    g = rng.standard_normal((n, d))
    mu = model.mu
    u = mu / np.linalg.norm(mu)
    g -= np.outer(g @ u, u)  # exact projection for mu = ||mu|| e_1 (g[:, 0] becomes 0)
    xi = float(model.sigma_p) * g
    X = np.empty((n, 2, d))
    rows = np.arange(n)
    X[rows, first] = y[:, None] * mu[None, :]
    X[rows, 1 - first] = xi
    return PatchData(X=X, y=y, xi=xi, signal_patch=first, mu=mu)


# ----------------------------------------------------------------------------- the CNN
@dataclass(frozen=True)
class CNNConfig:
    """The two-layer CNN: ``m`` filters per class, Huberized ReLU (q, kappa), init scale sigma_0."""

    m: int
    q: float
    kappa: float
    sigma_0: float

    def __post_init__(self) -> None:
        _posint("m", self.m)
        _check_q_kappa(self.q, self.kappa)
        _nonneg("sigma_0", self.sigma_0)

    @property
    def signs(self) -> np.ndarray:
        """``j`` of every column of W: +1 for the first m, -1 for the last m."""
        return np.concatenate([np.ones(self.m), -np.ones(self.m)])


def init_weights(d: int, cfg: CNNConfig, rng: np.random.Generator) -> np.ndarray:
    """``W^(0)``: ``(d, 2m)`` with iid ``N(0, sigma_0^2)`` entries."""
    return float(cfg.sigma_0) * check_generator(rng, key=KEY).standard_normal((_posint("d", d), 2 * cfg.m))


class _Workspace:
    """Preallocated arrays for one data set and one CNN (no allocation in the training loop)."""

    def __init__(self, n: int, m: int) -> None:
        self.A = np.empty((2 * n, 2 * m))
        self.S = np.empty((2 * n, 2 * m))
        self.dS = np.empty((2 * n, 2 * m))
        self.noise = np.empty((n, 2 * m))


def _forward(W: np.ndarray, data: PatchData, cfg: CNNConfig, ws: _Workspace) -> np.ndarray:
    """``f(W, x_i)`` of every record; ``ws.A`` holds the pre-activations ``<w_{j,r}, x_i^(p)>``, ``ws.S`` and
    ``ws.dS`` the activation and its derivative.

    In Definition 1's layout (:attr:`PatchData.layout`) a signal patch is ``y_i ||mu|| e_1``, so its row of
    ``X W`` is ``y_i ||mu|| W[0]``: one product per entry, the only nonzero term of BLAS's sum, hence the same
    number. Only the noise patches take a matrix product (``xi W``, half of ``X W``): within one rounding of BLAS's
    rows of ``X W`` (tests/test_cnn.py), and the same bits on the shapes of the reduced and paper-scale runs where
    this was written (whole GD and DP-GD trajectories compared). A pair of reduced-scale runs is about 15% faster."""
    layout = data.layout
    if layout is None:
        np.matmul(data.X_flat, W, out=ws.A)
    else:
        sig, noise = layout
        np.matmul(data.xi, W, out=ws.noise)
        ws.A[noise] = ws.noise
        ws.A[sig] = (data.y * data.mu[0])[:, None] * W[0][None, :]
    _act_inplace(ws.A, float(cfg.q), float(cfg.kappa), ws.S, ws.dS)
    n = data.n
    s = ws.S.reshape(n, 2, 2 * cfg.m).sum(axis=1)
    return (s[:, : cfg.m].sum(axis=1) - s[:, cfg.m :].sum(axis=1)) / cfg.m


def cnn_output(W: np.ndarray, data: PatchData, cfg: CNNConfig) -> np.ndarray:
    """``f(W, x_i)`` for every record (Sec. 3)."""
    _check_W(W, data.d, cfg)
    return _forward(W, data, cfg, _Workspace(data.n, cfg.m))


def _check_W(W: np.ndarray, d: int, cfg: CNNConfig) -> None:
    if W.shape != (d, 2 * cfg.m):
        raise DPTheoryError(f"{KEY}: W must have shape (d, 2m) = ({d}, {2 * cfg.m}); got {W.shape}")


@dataclass(frozen=True)
class LossGrad:
    """Training loss, its gradient ``(d, 2m)`` and per-record quantities at one W."""

    loss: float
    grad: np.ndarray
    margins: np.ndarray  # y_i f(W, x_i)
    lprime: np.ndarray  # l'(y_i f(W, x_i))


def loss_and_grad(W: np.ndarray, data: PatchData, cfg: CNNConfig, *, ws: _Workspace | None = None,
                  out: np.ndarray | None = None) -> LossGrad:
    """``L_S(W)`` and ``grad_W L_S(W)`` (two matrix products; the rest elementwise)."""
    _check_W(W, data.d, cfg)
    ws = ws or _Workspace(data.n, cfg.m)
    n, m = data.n, cfg.m
    f = _forward(W, data, cfg, ws)
    z = data.y * f
    loss = float(np.mean(logistic_loss(z)))
    lp = _logistic_deriv(z)
    coef = (lp * data.y / (n * m))[:, None] * cfg.signs[None, :]  # (n, 2m)
    dA = ws.dS.reshape(n, 2, 2 * m)
    dA *= coef[:, None, :]  # ws.dS now holds dL/dA
    grad = out if out is not None else np.empty((data.d, 2 * m))
    np.matmul(data.X_flat.T, ws.dS, out=grad)
    return LossGrad(loss, grad, z, lp)


def per_record_grad_norms(data: PatchData, dA: np.ndarray, patch_gram: np.ndarray) -> np.ndarray:
    """``||grad_W l(y_i f(W, x_i))/n||_F`` for every record, from ``dL/dA`` (no d-dimensional work).

    With ``dA[i, p, c] = l'_i y_i j_c sigma'(A[i,p,c])/(n m)`` the gradient of record i with respect
    to column c is ``dA[i,0,c] x_i^(1) + dA[i,1,c] x_i^(2)``, whose squared norm is
    ``dA0^2 ||x1||^2 + dA1^2 ||x2||^2 + 2 dA0 dA1 <x1, x2>``; ``patch_gram`` is ``(n, 3)`` with
    ``||x1||^2, ||x2||^2, <x1, x2>``.
    """
    n = data.n
    D = dA.reshape(n, 2, -1)
    sq = (D[:, 0] ** 2).sum(1) * patch_gram[:, 0] + (D[:, 1] ** 2).sum(1) * patch_gram[:, 1] \
        + 2.0 * (D[:, 0] * D[:, 1]).sum(1) * patch_gram[:, 2]
    return np.sqrt(np.maximum(sq, 0.0))


def patch_gram(data: PatchData) -> np.ndarray:
    """``(n, 3)``: ``||x^(1)||^2, ||x^(2)||^2, <x^(1), x^(2)>`` of every record."""
    X = data.X
    return np.stack([(X[:, 0] ** 2).sum(1), (X[:, 1] ** 2).sum(1), (X[:, 0] * X[:, 1]).sum(1)], axis=1)


# ----------------------------------------------------------------------------- decomposition (Definition 2)
@dataclass(frozen=True)
class Decomposition:
    """Signal-noise decomposition of every filter (Definition 2, and its DP-GD form, Sec. 4.2).

    ``w_{j,r} = w_{j,r}^(0) + j gamma_{j,r} mu/||mu||^2 + sum_i rho_{j,r,i} xi_i/||xi_i||^2 [- eta sum_k b_{j,r,k}]``.

    Attributes:
        gamma: ``(2, m)``: ``gamma[0]`` for class +1, ``gamma[1]`` for class -1.
        rho: ``(2, m, n)``.
        residual: relative norm of what the span does not explain (0 up to rounding for GD/DP-GD iterates).
    """

    gamma: np.ndarray
    rho: np.ndarray
    residual: float

    @property
    def rho_bar(self) -> np.ndarray:
        return np.maximum(self.rho, 0.0)

    @property
    def rho_under(self) -> np.ndarray:
        return np.minimum(self.rho, 0.0)


class Decomposer:
    """Least squares on ``span{mu, xi_1, ..., xi_n}`` (Cholesky of the ``(n+1) x (n+1)`` Gram matrix)."""

    def __init__(self, data: PatchData) -> None:
        self.P = np.concatenate([data.mu[None, :], data.xi], axis=0)  # (n+1, d)
        G = self.P @ self.P.T
        self.chol = scipy.linalg.cho_factor(G, lower=True)
        self.scale = np.diag(G).copy()  # ||mu||^2, ||xi_i||^2
        self.n = data.n

    def __call__(self, delta_W: np.ndarray, m: int) -> Decomposition:
        """Decompose ``delta_W = W - W^(0) [- accumulated DP noise]`` (shape ``(d, 2m)``)."""
        rhs = self.P @ delta_W  # (n+1, 2m)
        c = scipy.linalg.cho_solve(self.chol, rhs)
        fit = self.P.T @ c
        res = float(np.linalg.norm(delta_W - fit) / max(float(np.linalg.norm(delta_W)), 1e-300))
        coef = c * self.scale[:, None]  # gamma (up to j) and rho
        j = np.concatenate([np.ones(m), -np.ones(m)])
        gamma = (coef[0] * j).reshape(2, m)
        rho = coef[1:].T.reshape(2, m, self.n)
        return Decomposition(gamma=gamma, rho=rho, residual=res)


# ----------------------------------------------------------------------------- training
@dataclass(frozen=True)
class TrainConfig:
    """GD (``sigma_b = 0``) or DP-GD (``sigma_b > 0``).

    Attributes:
        eta: step size.
        steps: number of iterations T.
        sigma_b: std of the Gaussian noise added to every filter's gradient (0: plain GD).
        eval_every: test loss/error and the decomposition every this many steps (and at 0 and T).
        track_sensitivity: record the realised per-record gradient norms every step (for the
            data-dependent privacy accounting; O(n m) per step).
        progress: tqdm progress bar on stderr.
        label: shown in the progress bar.
    """

    eta: float
    steps: int
    sigma_b: float = 0.0
    eval_every: int = 50
    track_sensitivity: bool = True
    progress: bool = False
    label: str = ""

    def __post_init__(self) -> None:
        _pos("eta", self.eta)
        if isinstance(self.steps, bool) or not isinstance(self.steps, (int, np.integer)) or self.steps < 0:
            raise _bad("steps", self.steps, "the number of iterations must be a nonnegative integer")
        _nonneg("sigma_b", self.sigma_b)
        _posint("eval_every", self.eval_every)

    @property
    def private(self) -> bool:
        return self.sigma_b > 0


@dataclass
class History:
    """Recorded trajectory.

    Per step (length ``steps + 1``, index t = iterate W^(t)): ``train_loss``, and with
    ``track_sensitivity`` ``max_record_grad`` = max_i ||grad_W l_i/n||_F (the gradient of one record's
    term of ``L_S``; length ``steps``, at the iterates used for the updates).

    At the evaluation steps ``eval_steps``: test loss and error, and the decomposition summaries:
    ``gamma_mean``/``gamma_max`` (2, K): mean/max over r of gamma_{j,r}; ``signal_max`` (2, K):
    max_r <w_{j,r}, j mu> (the full inner product, init and DP noise included); ``rho_bar_max`` (K,):
    max over j, r, i of rho_bar; ``rho_under_min`` (K,); ``memorised`` (K,): fraction of training
    records i with max_r rho_bar_{y_i,r,i} >= kappa; ``rho_own_mean`` (K,): mean over i of
    (1/m) sum_r rho_bar_{y_i,r,i}; ``train_error`` (K,); ``residual`` (K,): least-squares residual.
    """

    train_loss: np.ndarray
    eval_steps: np.ndarray
    test_loss: np.ndarray
    test_error: np.ndarray
    train_error: np.ndarray
    gamma_mean: np.ndarray
    gamma_max: np.ndarray
    signal_max: np.ndarray
    rho_bar_max: np.ndarray
    rho_under_min: np.ndarray
    memorised: np.ndarray
    rho_own_mean: np.ndarray
    residual: np.ndarray
    max_record_grad: np.ndarray | None = None
    final_test_correct: np.ndarray | None = None


@dataclass
class CNNTrainResult:
    """One training run (GD or DP-GD)."""

    cnn: CNNConfig
    train: TrainConfig
    history: History
    final_decomposition: Decomposition
    W: np.ndarray
    W0: np.ndarray
    noise_sum: np.ndarray | None
    seconds: float
    notes: list[str] = field(default_factory=list)

    @property
    def method(self) -> str:
        return "DP-GD" if self.train.private else "GD"


def _errors(f: np.ndarray, y: np.ndarray) -> float:
    """Fraction with ``y f <= 0`` (a tie f = 0 counts as an error)."""
    return float(np.mean(y * f <= 0))


def _blas_threads(flops_per_step: float) -> Any:
    """Limit BLAS to one thread for small problems (threads only add synchronisation cost there)."""
    import contextlib

    if flops_per_step >= 2e8:
        return contextlib.nullcontext()
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # optional: without it the default BLAS threading is used
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def train_cnn(
    train_data: PatchData,
    test_data: PatchData,
    cnn: CNNConfig,
    cfg: TrainConfig,
    *,
    W0: np.ndarray,
    noise_rng: np.random.Generator | None = None,
    keep_weights: bool = True,
) -> CNNTrainResult:
    """Run GD or DP-GD from ``W0`` and record the trajectory.

    Args:
        train_data, test_data: records of Definition 1 (the test set is only evaluated).
        cnn: the network.
        cfg: the algorithm (``sigma_b = 0`` is GD).
        W0: the initialisation (``init_weights``), shared between paired GD and DP-GD runs.
        noise_rng: generator of the DP-GD noise (required when ``sigma_b > 0``).
        keep_weights: keep ``W``, ``W0`` and the accumulated noise in the result.
    """
    with _blas_threads(8.0 * train_data.n * train_data.d * cnn.m):
        return _train(train_data, test_data, cnn, cfg, W0, noise_rng, keep_weights)


def _train(train_data: PatchData, test_data: PatchData, cnn: CNNConfig, cfg: TrainConfig, W0: np.ndarray,
           noise_rng: np.random.Generator | None, keep_weights: bool) -> CNNTrainResult:
    d, n, m = train_data.d, train_data.n, cnn.m
    _check_W(W0, d, cnn)
    if test_data.d != d:
        raise DPTheoryError(f"{KEY}: test data has d = {test_data.d}, training data d = {d}")
    if cfg.private:
        noise_rng = check_generator(noise_rng, key=KEY)
    T, every = int(cfg.steps), int(cfg.eval_every)
    eval_steps = np.array(sorted(set(range(0, T + 1, every)) | {T}), dtype=np.int64)
    K = len(eval_steps)
    W = W0.copy()
    noise_sum = np.zeros_like(W) if cfg.private else None  # -eta sum_k b_k
    buf = np.empty_like(W) if cfg.private else None
    grad = np.empty_like(W)
    ws = _Workspace(n, m)
    ws_test = _Workspace(test_data.n, m)
    gram = patch_gram(train_data) if cfg.track_sensitivity else None
    dec = Decomposer(train_data)
    eta, sb = float(cfg.eta), float(cfg.sigma_b)

    train_loss = np.empty(T + 1)
    max_g = np.empty(T) if cfg.track_sensitivity else None
    rec = {k: np.empty(K) for k in ("test_loss", "test_error", "train_error", "rho_bar_max", "rho_under_min",
                                    "memorised", "rho_own_mean", "residual")}
    rec2 = {k: np.empty((2, K)) for k in ("gamma_mean", "gamma_max", "signal_max")}
    bar = None
    if cfg.progress:
        from tqdm import tqdm

        bar = tqdm(total=T, desc=cfg.label or ("DP-GD" if cfg.private else "GD"), unit="step", file=sys.stderr,
                   leave=False, mininterval=1.0)
    t0 = time.perf_counter()
    k = 0
    last_dec: Decomposition | None = None
    test_correct: np.ndarray | None = None
    for t in range(T + 1):
        lg = loss_and_grad(W, train_data, cnn, ws=ws, out=grad)
        train_loss[t] = lg.loss
        if k < K and eval_steps[k] == t:
            ft = _forward(W, test_data, cnn, ws_test)
            if t == T:
                test_correct = test_data.y * ft > 0
            delta = W - W0 if noise_sum is None else W - W0 - noise_sum
            last_dec = dec(delta, m)
            _record_eval(rec, rec2, k, ft=ft, lg=lg, dec=last_dec, W=W, train_data=train_data, test_data=test_data,
                         cnn=cnn)
            k += 1
        if t == T:
            break
        if max_g is not None:
            assert gram is not None  # both are set when cfg.track_sensitivity
            max_g[t] = float(per_record_grad_norms(train_data, ws.dS, gram).max())
        if cfg.private:
            assert noise_rng is not None and buf is not None and noise_sum is not None  # set above when cfg.private
            noise_rng.standard_normal(out=buf)
            buf *= sb
            grad += buf
            noise_sum -= eta * buf
        grad *= eta
        W -= grad
        if not np.isfinite(train_loss[t]):
            raise DPTheoryError(f"{KEY}: training diverged at step {t} (loss {train_loss[t]}); reduce eta")
        if bar is not None:
            bar.update(1)
            if t % 200 == 0:
                bar.set_postfix_str(f"loss {lg.loss:.4f}")
    if bar is not None:
        bar.close()
    seconds = time.perf_counter() - t0
    hist = History(train_loss=train_loss, eval_steps=eval_steps, max_record_grad=max_g,
                   final_test_correct=test_correct, **rec, **rec2)
    assert last_dec is not None
    return CNNTrainResult(cnn=cnn, train=cfg, history=hist, final_decomposition=last_dec,
                          W=W if keep_weights else np.empty((0, 0)), W0=W0 if keep_weights else np.empty((0, 0)),
                          noise_sum=noise_sum if keep_weights else None, seconds=seconds)


def _record_eval(rec: dict[str, np.ndarray], rec2: dict[str, np.ndarray], k: int, *, ft: np.ndarray, lg: LossGrad,
                 dec: Decomposition, W: np.ndarray, train_data: PatchData, test_data: PatchData, cnn: CNNConfig
                 ) -> None:
    """Record evaluation ``k`` of :func:`train_cnn`: test loss and error (test outputs ``ft``), training error, and
    the signal-noise decomposition's coefficients (gamma: signal, rho: noise memorisation; Definition 2)."""
    n, m = train_data.n, cnn.m
    rec["test_loss"][k] = float(np.mean(logistic_loss(test_data.y * ft)))
    rec["test_error"][k] = _errors(ft, test_data.y)
    rec["train_error"][k] = float(np.mean(lg.margins <= 0))
    g, rho = dec.gamma, dec.rho
    rec2["gamma_mean"][:, k] = g.mean(axis=1)
    rec2["gamma_max"][:, k] = g.max(axis=1)
    rec2["signal_max"][:, k] = (W.T @ train_data.mu * cnn.signs).reshape(2, m).max(axis=1)
    rb = np.maximum(rho, 0.0)
    rec["rho_bar_max"][k] = float(rb.max())
    rec["rho_under_min"][k] = float(np.minimum(rho, 0.0).min())
    y_idx = (train_data.y < 0).astype(np.int64)  # class index 0 (+1) or 1 (-1)
    own = rb[y_idx, :, np.arange(n)]  # (n, m): rho_bar_{y_i, r, i}
    rec["memorised"][k] = float(np.mean(own.max(axis=1) >= float(cnn.kappa)))
    rec["rho_own_mean"][k] = float(own.mean())
    rec["residual"][k] = dec.residual
