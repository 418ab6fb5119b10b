"""DP-SGD-stream (Algorithm 1 of Lampert & Zakerinia 2026, arXiv 2605.26222), vectorised over runs.

Algorithm 1 (Lampert & Zakerinia 2026, arXiv 2605.26222, Section 2)::

    theta_0 <- init
    for e = 1..E:
        I_1..I_T <- CreateBatches()            # disjoint index sets of size m, independent of the data values
        for t = 1..T:                          # T <= floor(n/m)
            z ~ N(0, I_d)
            u_t = sum_{i in I_t} clip(grad l(x_i, theta_{t-1}), zeta) + sigma z
            theta_t = GradientUpdate(u_t, eta_t; theta_1..theta_{t-1})
            yield theta_t
        theta_0 <- theta_T

Algorithm 2 (DP-SGD) returns the last iterate. ``clip(g, zeta) = g min(1, zeta/||g||)``. The source
text's SGD rule "theta_t <- theta_{t-1} - (eta/u)_t" is read as ``theta_{t-1} - eta_t u_t``
(``docs/derivations/maxinfo_dpsgd.md``, Setting). ``GradientUpdate`` may be any deterministic rule that
sees the data only through
``u_t`` (SGD, momentum, weight decay, Adam): here :class:`SGD` and :class:`Momentum`, or any object
with the :class:`GradientUpdate` protocol.

``R`` independent runs are trained at once: parameters are ``(R, d)``, each run has its own batches
and noise, all drawn from the caller's ``numpy.random.Generator``. The data is shared by all runs
(``X`` of shape ``(n, p)``) or given per run (``(R, n, p)``, e.g. fresh datasets for audits).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from dptheory.core.errors import DPTheoryError, InvalidParameter
from dptheory.core.memory import MemoryEstimate, array_bytes
from dptheory.core.validate import check_generator

__all__ = [
    "SGD", "CreateBatches", "GradientUpdate", "Momentum", "StreamResult", "clip_per_example", "dpsgd_stream",
    "fixed_batches", "logistic_per_example_grad", "memory_estimate", "shuffle_batches",
]

KEY = "train.dpsgd_stream"
CITE = "Lampert & Zakerinia 2026, Algorithm 1, arXiv 2605.26222"

PerExampleGrad = Callable[[np.ndarray, np.ndarray, np.ndarray | None], np.ndarray]
"""(theta (R, d), X_batch (R, m, p), y_batch (R, m) or None) -> per-example gradients (R, m, d)."""


def _bad(name: str, value: Any, reason: str) -> InvalidParameter:
    return InvalidParameter(key=KEY, name=name, value=value, reason=reason, citation=CITE)


# ----------------------------------------------------------------------------- CreateBatches
@runtime_checkable
class CreateBatches(Protocol):
    """Returns ``(R, T, m)`` indices: for each run, T disjoint batches of size m (data-independent)."""

    def __call__(self, rng: np.random.Generator, runs: int, n: int, m: int, T: int, epoch: int) -> np.ndarray: ...


def shuffle_batches(rng: np.random.Generator, runs: int, n: int, m: int, T: int, epoch: int) -> np.ndarray:
    """A fresh uniform permutation per run and epoch, cut into T consecutive batches of size m."""
    perm = np.argsort(rng.random((runs, n)), axis=1)
    return perm[:, : T * m].reshape(runs, T, m)


def fixed_batches(rng: np.random.Generator, runs: int, n: int, m: int, T: int, epoch: int) -> np.ndarray:
    """Batch t is ``t*m .. (t+1)*m - 1`` in every run and epoch (no randomness used)."""
    return np.broadcast_to(np.arange(T * m).reshape(1, T, m), (runs, T, m)).copy()


# ----------------------------------------------------------------------------- GradientUpdate
@runtime_checkable
class GradientUpdate(Protocol):
    """A deterministic update rule that sees the data only through the noisy update vector u_t."""

    def init(self, theta: np.ndarray) -> Any: ...

    def step(self, theta: np.ndarray, u: np.ndarray, eta: float, state: Any) -> tuple[np.ndarray, Any]: ...


@dataclass(frozen=True)
class SGD:
    """theta <- theta - eta (u + weight_decay * theta)."""

    weight_decay: float = 0.0

    def init(self, theta: np.ndarray) -> Any:
        return None

    def step(self, theta: np.ndarray, u: np.ndarray, eta: float, state: Any) -> tuple[np.ndarray, Any]:
        return theta - eta * (u + self.weight_decay * theta), None


@dataclass(frozen=True)
class Momentum:
    """Heavy ball: v <- momentum v + u + weight_decay theta; theta <- theta - eta v."""

    momentum: float = 0.9
    weight_decay: float = 0.0

    def init(self, theta: np.ndarray) -> Any:
        return np.zeros_like(theta)

    def step(self, theta: np.ndarray, u: np.ndarray, eta: float, state: Any) -> tuple[np.ndarray, Any]:
        v = self.momentum * state + u + self.weight_decay * theta
        return theta - eta * v, v


# ----------------------------------------------------------------------------- gradients
def clip_per_example(g: np.ndarray, zeta: float) -> np.ndarray:
    """``g min(1, zeta/||g||)`` along the last axis."""
    norms = np.linalg.norm(g, axis=-1, keepdims=True)
    scale = np.minimum(1.0, zeta / np.maximum(norms, 1e-300))
    return g * scale


def logistic_per_example_grad(theta: np.ndarray, Xb: np.ndarray, yb: np.ndarray | None) -> np.ndarray:
    """Binary logistic loss log(1 + exp(-y theta.x)) with labels y in {-1, +1}: -y sigmoid(-y theta.x) x."""
    if yb is None:
        raise DPTheoryError(f"{KEY}: the logistic loss needs labels")
    margin = yb * np.einsum("rd,rmd->rm", theta, Xb)
    coef = -yb * np.exp(-np.logaddexp(0.0, margin))  # -y sigmoid(-margin), stable
    return coef[..., None] * Xb


# ----------------------------------------------------------------------------- memory
def memory_estimate(*, runs: int, d: int, n: int, p: int, m: int, T: int, E: int,
                    record_stream: bool = False, record_updates: bool = False) -> MemoryEstimate:
    """The bytes :func:`dpsgd_stream` allocates, from the shapes alone (nothing is allocated).

    Per run: the iterate, the update rule's state and the noise ``(R, d)`` float64 (twice each: old and new),
    every batch ``(R, E, T, m)`` int64, the stream and the updates ``(R, E T, d)`` when recorded; one epoch's
    batches and their sorted copy ``(R, T m)``, the shuffle's draws and argsort ``(R, n)``; one step's records
    ``(R, m, p)`` and per-example gradients and their clipped copy ``(R, m, d)``. The data given per run
    (``(R, n, p)``) is the caller's.
    """
    per = {"theta and state": 6 * 8 * d, "batches": array_bytes((E, T, m)), "epoch batches": 3 * 8 * T * m,
           "shuffle": 2 * 8 * n, "step records": 8 * m * (p + 1), "gradients": 3 * 8 * m * d}
    if record_stream:
        per["stream"] = array_bytes((E * T, d))
    if record_updates:
        per["updates"] = array_bytes((E * T, d))
    return MemoryEstimate(what=KEY, units=int(runs), unit="runs", per_unit=per, advice="use fewer runs")


# ----------------------------------------------------------------------------- the algorithm
@dataclass(frozen=True)
class StreamResult:
    """Outcome of R runs of DP-SGD-stream.

    Attributes:
        theta: last iterates ``(R, d)`` (Algorithm 2's output).
        stream: every iterate ``(R, E*T, d)`` when ``record_stream`` (Algorithm 1's output), else None.
        updates: every noisy update ``u_t`` ``(R, E*T, d)`` when ``record_updates``, else None.
        batches: the index sets used, ``(R, E, T, m)``.
        config: the hyper-parameters (n, m, T, E, zeta, sigma, runs).
    """

    theta: np.ndarray
    stream: np.ndarray | None
    updates: np.ndarray | None
    batches: np.ndarray
    config: dict[str, Any] = field(default_factory=dict)


def dpsgd_stream(
    X: np.ndarray,
    y: np.ndarray | None,
    grad: PerExampleGrad,
    *,
    m: int,
    E: int,
    zeta: float,
    sigma: float,
    eta: float | Sequence[float],
    rng: np.random.Generator,
    runs: int = 1,
    T: int | None = None,
    theta0: np.ndarray | None = None,
    d: int | None = None,
    update: GradientUpdate | None = None,
    create_batches: CreateBatches = shuffle_batches,
    record_stream: bool = False,
    record_updates: bool = False,
) -> StreamResult:
    """Run DP-SGD-stream (Lampert & Zakerinia 2026, Algorithm 1) R times at once.

    Args:
        X: features ``(n, p)`` shared by all runs, or ``(R, n, p)`` per run.
        y: labels ``(n,)`` / ``(R, n)`` or None.
        grad: per-example gradient function (see :data:`PerExampleGrad`).
        m: batch size; T: steps per epoch (default ``floor(n/m)``; must satisfy ``T m <= n``).
        E: epochs; zeta: clipping norm; sigma: std of the noise added to the *sum* of clipped gradients.
        eta: learning rate, or one per step of an epoch (L&Z's eta_1..eta_T).
        rng: the only source of randomness (batches and noise).
        theta0: initial parameters ``(d,)`` or ``(R, d)`` (default zeros of dimension ``d``).
        update: GradientUpdate rule (default plain SGD).
        create_batches: CreateBatches procedure (default: fresh shuffle per epoch).

    Returns:
        :class:`StreamResult`.
    """
    rng = check_generator(rng, key=KEY)
    X = np.asarray(X, dtype=np.float64)
    shared = X.ndim == 2
    if X.ndim not in (2, 3):
        raise _bad("X", f"array of shape {X.shape}", "features must be (n, p) or (runs, n, p)")
    runs = int(runs)
    if runs < 1:
        raise _bad("runs", runs, "at least one run")
    if not shared and X.shape[0] != runs:
        raise _bad("X", f"array of shape {X.shape}", f"per-run features need a first axis of length runs = {runs}")
    n = X.shape[-2]
    m, E, T, etas = _checked_schedule(n, m=m, E=E, T=T, zeta=zeta, sigma=sigma, eta=eta)
    if theta0 is not None:
        dim0 = int(np.shape(theta0)[-1])
    elif d is not None:
        dim0 = int(d)
    else:
        raise DPTheoryError(f"{KEY}: give theta0 or the parameter dimension d")
    memory_estimate(runs=runs, d=dim0, n=n, p=X.shape[-1], m=m, T=T, E=E, record_stream=record_stream,
                    record_updates=record_updates).check()
    theta = _initial_theta(theta0, dim0, runs)
    dim = theta.shape[1]
    upd = update if update is not None else SGD()
    state = upd.init(theta)
    Y = None if y is None else np.asarray(y)
    stream = np.empty((runs, E * T, dim)) if record_stream else None
    updates = np.empty((runs, E * T, dim)) if record_updates else None
    all_batches = np.empty((runs, E, T, m), dtype=np.int64)
    rows = np.arange(runs)[:, None]
    step = 0
    for e in range(E):
        batches = _epoch_batches(create_batches, rng, runs, n, m, T, e)
        all_batches[:, e] = batches
        for t in range(T):
            idx = batches[:, t, :]
            Xb = X[idx] if shared else X[rows, idx]
            yb = None if Y is None else (Y[idx] if Y.ndim == 1 else Y[rows, idx])
            g = clip_per_example(np.asarray(grad(theta, Xb, yb), dtype=np.float64), zeta)
            u = g.sum(axis=1) + sigma * rng.standard_normal((runs, dim))
            theta, state = upd.step(theta, u, float(etas[t]), state)
            if stream is not None:
                stream[:, step] = theta
            if updates is not None:
                updates[:, step] = u
            step += 1
    return StreamResult(theta=theta, stream=stream, updates=updates, batches=all_batches,
                        config={"n": n, "m": m, "T": T, "E": E, "zeta": float(zeta), "sigma": float(sigma),
                                "runs": runs, "update": type(upd).__name__})


def _checked_schedule(n: int, *, m: int, E: int, T: int | None, zeta: float, sigma: float,
                      eta: float | Sequence[float]) -> tuple[int, int, int, np.ndarray]:
    """Validated batch size m, epochs E, steps per epoch T and the T learning rates of an epoch."""
    for name, v in (("m", m), ("E", E)):
        if int(v) != v or v < 1:
            raise _bad(name, v, "must be a whole number >= 1")
    m, E = int(m), int(E)
    if m > n:
        raise _bad("m", m, f"a batch of m distinct examples needs m <= n = {n}")
    T = n // m if T is None else int(T)
    if T < 1 or T * m > n:
        raise _bad("T", T, f"T disjoint batches of size m = {m} need 1 <= T <= floor(n/m) = {n // m}")
    if not (zeta > 0) or not np.isfinite(zeta):
        raise _bad("zeta", zeta, "the clipping norm must be positive and finite")
    if not (sigma >= 0) or not np.isfinite(sigma):
        raise _bad("sigma", sigma, "the noise std must be >= 0 and finite")
    etas = np.asarray(eta, dtype=np.float64)
    etas = np.full(T, float(etas)) if etas.ndim == 0 else etas
    if etas.shape != (T,):
        raise _bad("eta", f"sequence of length {len(etas)}", f"one learning rate per step of an epoch (T = {T})")
    return m, E, T, etas


def _initial_theta(theta0: np.ndarray | None, dim0: int, runs: int) -> np.ndarray:
    """The runs' initial parameters ``(runs, d)``: zeros, one point for every run, or one per run."""
    if theta0 is None:
        return np.zeros((runs, int(dim0)))
    th = np.asarray(theta0, dtype=np.float64)
    theta = np.broadcast_to(th, (runs, th.shape[-1])).copy() if th.ndim == 1 else th.copy()
    if theta.shape[0] != runs:
        raise _bad("theta0", f"array of shape {th.shape}", f"must be (d,) or (runs = {runs}, d)")
    return theta


def _epoch_batches(create_batches: CreateBatches, rng: np.random.Generator, runs: int, n: int, m: int, T: int,
                   e: int) -> np.ndarray:
    """Epoch ``e``'s batches ``(runs, T, m)`` from CreateBatches, checked to be disjoint valid indices."""
    batches = np.asarray(create_batches(rng, runs, n, m, T, e))
    if batches.shape != (runs, T, m):
        raise DPTheoryError(f"{KEY}: CreateBatches returned shape {batches.shape}, expected {(runs, T, m)}")
    flat = np.sort(batches.reshape(runs, T * m), axis=1)
    if np.any(np.diff(flat, axis=1) == 0) or flat.min() < 0 or flat.max() >= n:
        raise DPTheoryError(f"{KEY}: CreateBatches must return disjoint batches of valid indices (epoch {e})")
    return batches
