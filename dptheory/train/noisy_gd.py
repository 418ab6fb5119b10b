"""Algorithm 1 of Ye & Shokri 2022 (noisy mini-batch gradient descent), vectorised over independent runs.

Algorithm 1 (Ye & Shokri 2022, arXiv 2203.05363, Sec. 2)::

    theta_k^{j+1} = theta_k^j - eta * (1/b) * sum_{i in B_k^j} grad l(theta_k^j; x_i) + sqrt(2 eta sigma^2) N(0, I_d)
    theta_{k+1}^0 = theta_k^N,   N = floor(n/b) iterations per epoch (footnote 3), K epochs,

and only the last iterate ``theta_K^0`` is released. Three batch schemes:

* ``shuffle``: shuffle and partition -- one uniformly random partition ``B^0..B^{N-1}`` of the
  indices, drawn once per run and reused in every epoch; when ``b`` does not divide ``n`` the
  ``n - N b`` records left over by the shuffle are not used (footnote 3);
* ``without_replacement``: a fresh set of ``b`` distinct indices, uniform, at every iteration
  (Sec. 4.2);
* ``fixed``: a fixed partition (``order[j*b:(j+1)*b]`` is batch ``j``; default ``order = 0..n-1``),
  the same in every run and every epoch (Sec. 3, Thm 3.3: the differing record is in ``B^{j0}``).

``R`` independent runs are trained at once: parameters are an ``(R, d)`` array, the runs are split
into chunks (each with its own child generator spawned from the caller's generator, so the result
depends on the seed and on ``chunk_size`` but not on the number of worker threads) and the chunks
may run on several threads (numpy releases the GIL in its kernels).

Neighbouring datasets in one call: a :class:`Replacement` replaces record ``index`` by another
record in the runs it selects, so ``D`` and ``D'`` models come from one vectorised call.

Coupled runs: batches and noise are drawn from the generator in an order that does not depend on
the parameters, so two calls with generators in the same state and different ``theta0`` share
their batches and noise exactly (used by :mod:`dptheory.papers.yeshokri22.assumptions`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeGuard, runtime_checkable

import numpy as np

from dptheory.core.errors import DPTheoryError, InvalidParameter
from dptheory.core.memory import MemoryEstimate, array_bytes
from dptheory.core.units import BatchScheme
from dptheory.core.validate import check_generator, check_int, check_positive

__all__ = [
    "FunctionLoss",
    "Loss",
    "QuadraticLoss",
    "Replacement",
    "TrainResult",
    "batches_per_epoch",
    "memory_estimate",
    "train_noisy_gd",
]

KEY = "train.noisy_gd"
CITE = "Ye & Shokri 2022, Algorithm 1"


def batches_per_epoch(n: int, b: int) -> int:
    """N = floor(n/b), the iterations per epoch (Ye & Shokri 2022, footnote 3)."""
    n = check_int("n", n, key=KEY, citation=CITE)
    b = check_int("b", b, key=KEY, citation=CITE)
    if b > n:
        raise InvalidParameter(key=KEY, name="b", value=b, reason=f"a mini-batch of b distinct records needs b <= n "
                               f"(n = {n})", citation=CITE)
    return n // b


# ----------------------------------------------------------------------------- losses
@runtime_checkable
class Loss(Protocol):
    """A loss given by its mini-batch mean gradient, vectorised over runs.

    ``mean_grad(theta, X, y)`` receives ``theta`` of shape ``(R, d)``, the batch features ``X`` of
    shape ``(R, b, p)`` and labels ``y`` of shape ``(R, b)`` (or ``None``), and returns
    ``(1/b) sum_i grad l(theta; x_i)`` of shape ``(R, d)``.
    """

    @property
    def dim(self) -> int: ...

    def mean_grad(self, theta: np.ndarray, X: np.ndarray, y: np.ndarray | None) -> np.ndarray: ...


class AuxLoss(Loss, Protocol):
    """A :class:`Loss` that also reads a per-record array (``record_aux(X)``, shape ``(n, ...)``), which the
    trainer gathers with each batch and passes to ``mean_grad`` as ``aux`` (e.g. squared feature norms)."""

    def record_aux(self, X: np.ndarray) -> np.ndarray: ...

    def mean_grad(
        self, theta: np.ndarray, X: np.ndarray, y: np.ndarray | None, aux: np.ndarray | None = None
    ) -> np.ndarray: ...


def _has_aux(loss: Loss) -> TypeGuard[AuxLoss]:
    return hasattr(loss, "record_aux")


@dataclass(frozen=True)
class FunctionLoss:
    """Any loss given by its per-example gradient ``grad(theta (R,d), X (R,b,p), y) -> (R, b, d)``."""

    grad: Callable[[np.ndarray, np.ndarray, np.ndarray | None], np.ndarray]
    dim: int

    def mean_grad(self, theta: np.ndarray, X: np.ndarray, y: np.ndarray | None) -> np.ndarray:
        g = np.asarray(self.grad(theta, X, y), dtype=np.float64)
        if g.shape != (theta.shape[0], X.shape[1], self.dim):
            raise DPTheoryError(f"{KEY}: the per-example gradient returned shape {g.shape}, expected "
                                f"{(theta.shape[0], X.shape[1], self.dim)} (runs, batch, dim)")
        return g.mean(axis=1)


@dataclass(frozen=True)
class QuadraticLoss:
    """``l(theta; x) = (lam/2) ||theta - x||^2``: lam-strongly convex and lam-smooth (beta = lam).

    Its gradient ``lam (theta - x)`` makes Algorithm 1 affine in the parameters, so the last iterate
    is Gaussian given the batch sequence (see ``docs/derivations/quadratic_exact_divergence.md``).
    Its total-gradient sensitivity over a data domain of diameter ``Delta`` is ``S_g = lam * Delta``.
    """

    lam: float
    dim: int

    def __post_init__(self) -> None:
        check_positive("lam", self.lam, key="train.QuadraticLoss")
        check_int("dim", self.dim, key="train.QuadraticLoss")

    def mean_grad(self, theta: np.ndarray, X: np.ndarray, y: np.ndarray | None) -> np.ndarray:
        return self.lam * (theta - X.mean(axis=1))

    def per_example_grad(self, theta: np.ndarray, X: np.ndarray) -> np.ndarray:
        return self.lam * (theta[:, None, :] - X)


# ----------------------------------------------------------------------------- neighbouring datasets
@dataclass(frozen=True)
class Replacement:
    """Replace record ``index`` by ``x`` (and label ``y``) in the runs where ``runs`` is True.

    This turns the dataset D of a call into its neighbour D' (one record replaced) in the selected
    runs, so models on D and on D' are trained in one vectorised call.
    """

    index: int
    x: np.ndarray
    runs: np.ndarray
    y: int | None = None


@dataclass
class TrainResult:
    """Output of :func:`train_noisy_gd`.

    Attributes:
        theta: last iterates theta_K^0, shape ``(R, d)``.
        trajectory: ``(R, K+1, d)`` (``record="epoch"``: theta_k^0) or ``(R, K*N+1, d)``
            (``record="step"``), or None.
        batches: ``(R, K*N, b)`` indices of every mini-batch (``record_batches=True``), or None.
        inclusion: ``(R, K*N)`` bool, whether the tracked record was in each mini-batch, or None.
        scheme, eta, sigma, b, K, n, N: the configuration (N = floor(n/b) iterations per epoch).
        runs: R.
        seconds: wall-clock training time.
    """

    theta: np.ndarray
    scheme: BatchScheme
    eta: float
    sigma: float
    b: int
    K: int
    n: int
    N: int
    runs: int
    seconds: float
    trajectory: np.ndarray | None = None
    batches: np.ndarray | None = None
    inclusion: np.ndarray | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def steps(self) -> int:
        return self.K * self.N

    def batch_position(self) -> np.ndarray:
        """For the tracked record: index j0 of its batch in the first epoch (-1 if never used).

        Under shuffle-and-partition and fixed order the record sits in the same batch every epoch.
        """
        if self.inclusion is None:
            raise DPTheoryError("batch_position needs the run to track a record (track=index)")
        first = self.inclusion[:, : self.N]
        pos = np.argmax(first, axis=1)
        return np.where(first.any(axis=1), pos, -1)

    def summary(self) -> dict[str, Any]:
        return {"scheme": str(self.scheme), "eta": self.eta, "sigma": self.sigma, "b": self.b, "K": self.K,
                "n": self.n, "N": self.N, "runs": self.runs, "steps": self.steps, "seconds": self.seconds,
                "theta_mean": self.theta.mean(axis=0).tolist(), "theta_std": self.theta.std(axis=0, ddof=1).tolist()
                if self.runs > 1 else None, **self.extra}


# ----------------------------------------------------------------------------- memory
#: bytes of one child generator (``Generator`` + ``PCG64`` + ``SeedSequence`` objects; measured ~1.2 kB)
GENERATOR_BYTES = 2048


def memory_estimate(
    *,
    runs: int,
    d: int,
    n: int,
    p: int,
    b: int,
    K: int,
    scheme: BatchScheme | str,
    record: str | None = None,
    record_batches: bool = False,
    track: int | None = None,
    chunk_size: int = 1024,
    workers: int = 1,
    labels: bool = False,
    aux: bool = False,
) -> MemoryEstimate:
    """The bytes :func:`train_noisy_gd` allocates, from the shapes alone (nothing is allocated).

    Per run: the last iterates and the initial parameters ``(R, d)`` float64, the trajectory ``(R, K+1, d)``
    or ``(R, K N + 1, d)``, the batches ``(R, K N, b)`` int32, the inclusion flags ``(R, K N)`` bool and the
    child generators (one per chunk). Fixed: the working arrays of the chunks that run at once
    (``min(workers, chunks)`` of ``min(chunk_size, R)`` runs): the gathered records of a partition
    ``(Rc, N b, p)`` (with labels and per-record values), the shuffled indices ``(Rc, n)`` (or, without
    replacement, the draws and their argpartition), and the iterate, noise and gradient temporaries.
    """
    sch = BatchScheme.parse(scheme, key=KEY, citation=CITE)
    N = n // b
    T = K * N
    per = {"theta": 8 * d, "initial theta": 8 * d}
    if record == "epoch":
        per["trajectory"] = array_bytes((K + 1, d))
    elif record == "step":
        per["trajectory"] = array_bytes((T + 1, d))
    if record_batches:
        per["batches"] = array_bytes((T, b), 4)
    if track is not None:
        per["inclusion"] = array_bytes((T,), 1)
    per["generators"] = -(-GENERATOR_BYTES // max(1, chunk_size))
    rc = min(chunk_size, runs)
    side = 8 * (int(labels) + int(aux))  # a label and a per-record value gathered with each record
    if sch is BatchScheme.WITHOUT_REPLACEMENT:
        records = rc * (n * 8 + n * 8 + b * (8 * p + side + 2))
    else:
        records = rc * (N * b * (8 * p + side + 2) + (4 * n if sch is BatchScheme.SHUFFLE_PARTITION else 0))
    grads = rc * 8 * (4 * d + b * (d + 2 * p + 4))  # iterate, noise, gradient; per-example temporaries of the loss
    chunks = -(-runs // chunk_size)
    return MemoryEstimate(what=KEY, units=runs, unit="runs", per_unit=per, advice="use fewer runs (--runs)",
                          fixed={"working arrays of the running chunks": min(workers, chunks) * (records + grads)})


# ----------------------------------------------------------------------------- the trainer
Theta0 = np.ndarray | Callable[[np.random.Generator, int], np.ndarray] | None


def train_noisy_gd(
    loss: Loss,
    X: np.ndarray,
    *,
    eta: float,
    sigma: float,
    b: int,
    K: int,
    scheme: BatchScheme | str,
    runs: int,
    rng: np.random.Generator,
    y: np.ndarray | None = None,
    theta0: Theta0 = None,
    order: np.ndarray | None = None,
    replacement: Replacement | None = None,
    track: int | None = None,
    record: str | None = None,
    record_batches: bool = False,
    noise_std: float | None = None,
    chunk_size: int = 1024,
    workers: int = 1,
    progress: bool = False,
    desc: str = "training",
    blas_threads: int | None = 1,
    extra_per_run: Mapping[str, int] | None = None,
) -> TrainResult:
    """Run Algorithm 1 (Ye & Shokri 2022) ``runs`` times independently.

    Args:
        loss: the loss, by its mini-batch mean gradient (:class:`Loss`; see :class:`FunctionLoss`
            to give a per-example gradient, :class:`QuadraticLoss`).
        X: features of the n records, ``(n, p)``.
        eta: step size. sigma: noise scale (each update adds ``sqrt(2 eta sigma^2) N(0, I)``).
        b: mini-batch size (``1 <= b <= n``). K: epochs (N = floor(n/b) iterations each).
        scheme: ``shuffle`` | ``without_replacement`` | ``fixed`` (:class:`BatchScheme`).
        runs: number R of independent runs.
        rng: the generator all randomness is drawn from (partitions, batches, noise, theta0).
        y: integer labels ``(n,)`` passed to the loss, or None.
        theta0: initial parameters: ``(d,)`` (a point, the same in every run), ``(R, d)``, a
            callable ``(rng, R) -> (R, d)`` drawing them, or None (zeros).
        order: for ``fixed``: the record order (a permutation of ``0..n-1``); batch j is
            ``order[j*b:(j+1)*b]``.
        replacement: records replaced in some runs (neighbouring datasets), see :class:`Replacement`.
        track: index of a record whose inclusion in every mini-batch is returned.
        record: None, ``"epoch"`` (theta_k^0 for k = 0..K) or ``"step"`` (every iterate).
        record_batches: return every mini-batch's indices.
        noise_std: override the per-step noise standard deviation ``sqrt(2 eta sigma^2)`` (used by
            Algorithm 2, whose noise is written ``eta sigma_mul S_g/(2b)``); sigma is then reported
            as ``noise_std / sqrt(2 eta)``.
        chunk_size: runs per chunk (each chunk has its own child generator).
        workers: threads over chunks.
        progress: tqdm progress bar on stderr.
        blas_threads: BLAS threads during training (None: leave as is). The per-run matrices are
            small, and a multi-threaded BLAS is about twice slower on them than one thread per
            worker (measured by ``bench/bench_trainer.py``); needs ``threadpoolctl`` (ignored
            without it).
        extra_per_run: bytes per run the caller will allocate from the result (e.g. output rows), by name:
            added to :func:`memory_estimate`, which is checked against the available memory before anything
            is allocated (:class:`~dptheory.core.errors.InsufficientMemory` says how many runs fit).

    Returns:
        a :class:`TrainResult`.
    """
    t_start = time.perf_counter()
    rng = check_generator(rng, key=KEY)
    c = _checked(X, eta=eta, sigma=sigma, b=b, K=K, runs=runs, chunk_size=chunk_size, workers=workers, scheme=scheme,
                 noise_std=noise_std, y=y, record=record, order=order, track=track, replacement=replacement)
    d = check_int("loss.dim", loss.dim, key=KEY, citation=CITE)
    memory_estimate(runs=c.R, d=d, n=c.n, p=c.X.shape[1], b=c.b, K=c.K, scheme=c.sch, record=record,
                    record_batches=record_batches, track=c.track, chunk_size=c.chunk_size, workers=c.workers,
                    labels=c.y is not None, aux=_has_aux(loss)).with_per_unit(extra_per_run).check()
    th0 = _initial(theta0, rng, c.R, d)
    job = _Job.start(c, loss, th0, rng, d, record=record, record_batches=record_batches, replacement=replacement)

    bar = None
    if progress:
        import sys

        from tqdm import tqdm

        bar = tqdm(total=job.n_chunks * c.K, desc=desc, unit="chunk-epoch", file=sys.stderr, leave=False)
    job.bar = bar
    try:
        with _blas_threads(blas_threads):
            _run_all(job.run_chunk, job.n_chunks, c.workers)
    finally:
        if bar is not None:
            bar.close()
    return TrainResult(theta=job.theta, scheme=c.sch, eta=c.eta, sigma=c.sigma, b=c.b, K=c.K, n=c.n, N=c.N, runs=c.R,
                       seconds=time.perf_counter() - t_start, trajectory=job.traj, batches=job.batches,
                       inclusion=job.inclusion)


@dataclass
class _Checked:
    """The validated inputs of :func:`train_noisy_gd` (sigma and the per-step noise std resolved)."""

    X: np.ndarray
    n: int
    eta: float
    b: int
    K: int
    R: int
    chunk_size: int
    workers: int
    N: int
    sch: BatchScheme
    sigma: float
    std: float
    y: np.ndarray | None
    order: np.ndarray | None
    track: int | None
    rep_x: np.ndarray | None
    rep_runs: np.ndarray | None


def _checked(X: np.ndarray, *, eta: float, sigma: float, b: int, K: int, runs: int, chunk_size: int, workers: int,
             scheme: BatchScheme | str, noise_std: float | None, y: np.ndarray | None, record: str | None,
             order: np.ndarray | None, track: int | None, replacement: Replacement | None) -> _Checked:
    """Validate :func:`train_noisy_gd`'s inputs, in the order of its arguments' checks (the first bad one is named)."""
    X = np.ascontiguousarray(np.asarray(X, dtype=np.float64))
    if X.ndim != 2:
        raise InvalidParameter(key=KEY, name="X", value=f"array of shape {X.shape}", reason="features must be (n, p)",
                               citation=CITE)
    if not np.isfinite(X).all():
        raise InvalidParameter(key=KEY, name="X", value="array", reason="features contain NaN or inf", citation=CITE)
    n = X.shape[0]
    eta = check_positive("eta", eta, key=KEY, citation=CITE)
    b = check_int("b", b, key=KEY, citation=CITE)
    K = check_int("K", K, key=KEY, citation=CITE)
    R = check_int("runs", runs, key=KEY, citation=CITE)
    chunk_size = check_int("chunk_size", chunk_size, key=KEY, citation=CITE)
    workers = check_int("workers", workers, key=KEY, citation=CITE)
    N = batches_per_epoch(n, b)
    sch = BatchScheme.parse(scheme, key=KEY, citation=CITE)
    if noise_std is None:
        sigma = check_positive("sigma", sigma, key=KEY, citation=CITE)
        std = math.sqrt(2.0 * eta * sigma * sigma)
    else:
        std = check_positive("noise_std", noise_std, key=KEY, citation=CITE)
        sigma = std / math.sqrt(2.0 * eta)
    if y is not None:
        y = np.asarray(y)
        if y.shape != (n,) or not np.issubdtype(y.dtype, np.integer):
            raise InvalidParameter(key=KEY, name="y", value=f"array {y.shape} {y.dtype}",
                                   reason=f"labels must be integers of shape ({n},)", citation=CITE)
    if record not in (None, "epoch", "step"):
        raise InvalidParameter(key=KEY, name="record", value=record, reason="use None, 'epoch' or 'step'",
                               citation=CITE)
    if order is not None:
        order = np.asarray(order)
        if sch is not BatchScheme.FIXED_ORDER:
            raise DPTheoryError(f"{KEY}: 'order' is only used by the fixed-order scheme (got scheme {sch})")
        if order.shape != (n,) or not np.array_equal(np.sort(order), np.arange(n)):
            raise InvalidParameter(key=KEY, name="order", value=f"array {order.shape}",
                                   reason=f"must be a permutation of 0..{n - 1}", citation=CITE)
    if track is not None:
        track = check_int("track", track, low=0, key=KEY, citation=CITE)
        if track >= n:
            raise InvalidParameter(key=KEY, name="track", value=track, reason=f"must be < n = {n}", citation=CITE)
    rep_x, rep_runs = _checked_replacement(replacement, X, y, R)
    return _Checked(X=X, n=n, eta=eta, b=b, K=K, R=R, chunk_size=chunk_size, workers=workers, N=N, sch=sch,
                    sigma=sigma, std=std, y=y, order=order, track=track, rep_x=rep_x, rep_runs=rep_runs)


def _checked_replacement(replacement: Replacement | None, X: np.ndarray, y: np.ndarray | None, R: int
                         ) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The replacement record and its run mask, validated (``(None, None)`` without a replacement)."""
    if replacement is None:
        return None, None
    n = X.shape[0]
    idx = check_int("replacement.index", replacement.index, low=0, key=KEY, citation=CITE)
    if idx >= n:
        raise InvalidParameter(key=KEY, name="replacement.index", value=idx, reason=f"must be < n = {n}",
                               citation=CITE)
    rep_x = np.asarray(replacement.x, dtype=np.float64)
    if rep_x.shape != (X.shape[1],) or not np.isfinite(rep_x).all():
        raise InvalidParameter(key=KEY, name="replacement.x", value=f"array {rep_x.shape}",
                               reason=f"must be a finite record of shape ({X.shape[1]},)", citation=CITE)
    rep_runs = np.asarray(replacement.runs, dtype=bool)
    if rep_runs.shape != (R,):
        raise InvalidParameter(key=KEY, name="replacement.runs", value=f"array {rep_runs.shape}",
                               reason=f"must be a bool mask of shape ({R},)", citation=CITE)
    if y is not None and replacement.y is None:
        raise InvalidParameter(key=KEY, name="replacement.y", value=None,
                               reason="the dataset has labels, so the replacement record needs one", citation=CITE)
    return rep_x, rep_runs


@dataclass
class _Job:
    """The runs of one :func:`train_noisy_gd` call: inputs, per-chunk generators and the output arrays, which
    :meth:`run_chunk` fills for one chunk of runs (chunks are independent: each has its own child generator)."""

    c: _Checked
    loss: Loss
    aux_loss: Any
    aux_full: np.ndarray | None
    rep_aux: Any
    replacement: Replacement | None
    th0: np.ndarray
    fixed_partition: np.ndarray
    children: list[np.random.Generator]
    record: str | None
    theta: np.ndarray
    traj: np.ndarray | None
    batches: np.ndarray | None
    inclusion: np.ndarray | None
    bar: Any = None

    @property
    def n_chunks(self) -> int:
        return len(self.children)

    @classmethod
    def start(cls, c: _Checked, loss: Loss, th0: np.ndarray, rng: np.random.Generator, d: int, *,
              record: str | None, record_batches: bool, replacement: Replacement | None) -> _Job:
        """Spawn the chunks' generators and allocate the outputs (in this order: the generator's stream)."""
        base_order = np.arange(c.n) if c.order is None else c.order
        fixed_partition = base_order[: c.N * c.b].reshape(c.N, c.b)
        n_chunks = -(-c.R // c.chunk_size)
        children = rng.spawn(n_chunks)
        T = c.K * c.N
        theta = np.empty((c.R, d))
        traj = None
        if record == "epoch":
            traj = np.empty((c.R, c.K + 1, d))
        elif record == "step":
            traj = np.empty((c.R, T + 1, d))
        batches = np.empty((c.R, T, c.b), dtype=np.int32) if record_batches else None
        inclusion = np.zeros((c.R, T), dtype=bool) if c.track is not None else None
        aux_loss = loss if _has_aux(loss) else None
        aux_full = np.asarray(aux_loss.record_aux(c.X)) if aux_loss is not None else None
        rep_aux = None
        if aux_loss is not None and c.rep_x is not None:
            rep_aux = np.asarray(aux_loss.record_aux(c.rep_x[None, :]))[0]
        return cls(c=c, loss=loss, aux_loss=aux_loss, aux_full=aux_full, rep_aux=rep_aux, replacement=replacement,
                   th0=th0, fixed_partition=fixed_partition, children=children, record=record, theta=theta,
                   traj=traj, batches=batches, inclusion=inclusion)

    def _gather(self, idx: np.ndarray, rep_mask: np.ndarray | None
                ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
        return _gather(idx, self.c.X, self.c.y, self.aux_full, rep_mask, self.replacement, self.c.rep_x, self.rep_aux)

    def run_chunk(self, ci: int) -> None:
        c, traj, batches, inclusion = self.c, self.traj, self.batches, self.inclusion
        n, N, b, K, R, sch = c.n, c.N, c.b, c.K, c.R, c.sch
        lo, hi = ci * c.chunk_size, min(R, (ci + 1) * c.chunk_size)
        g = self.children[ci]
        Rc = hi - lo
        th = self.th0[lo:hi].copy()
        rep_mask = None if c.rep_runs is None else c.rep_runs[lo:hi]
        if traj is not None:
            traj[lo:hi, 0] = th
        if sch is BatchScheme.WITHOUT_REPLACEMENT:
            part = None
        else:
            # the partition is fixed for the whole run: gather each run's records once, in batch order
            if sch is BatchScheme.SHUFFLE_PARTITION:
                perm = g.permuted(np.broadcast_to(np.arange(n, dtype=np.int32), (Rc, n)), axis=1)[:, : N * b]
            else:
                perm = np.broadcast_to(self.fixed_partition.reshape(1, N * b), (Rc, N * b))
            part = perm.reshape(Rc, N, b)
            Xp, yp, ap = self._gather(perm, rep_mask)
        noise = np.empty((Rc, th.shape[1]))
        t = 0
        for k in range(K):
            for j in range(N):
                if part is None:
                    idx = np.argpartition(g.random((Rc, n)), b - 1, axis=1)[:, :b]
                    Xb, yb, ab = self._gather(idx, rep_mask)
                else:
                    idx = part[:, j, :]
                    sl = slice(j * b, (j + 1) * b)
                    Xb = Xp[:, sl]
                    yb = None if yp is None else yp[:, sl]
                    ab = None if ap is None else ap[:, sl]
                if ab is None or self.aux_loss is None:
                    grad = self.loss.mean_grad(th, Xb, yb)
                else:
                    grad = self.aux_loss.mean_grad(th, Xb, yb, aux=ab)
                g.standard_normal(out=noise)
                th -= c.eta * grad
                noise *= c.std
                th += noise
                if batches is not None:
                    batches[lo:hi, t] = idx
                if inclusion is not None:
                    inclusion[lo:hi, t] = (idx == c.track).any(axis=1)
                t += 1
                if traj is not None and self.record == "step":
                    traj[lo:hi, t] = th
            if traj is not None and self.record == "epoch":
                traj[lo:hi, k + 1] = th
            if self.bar is not None:
                self.bar.update(1)
            if not np.isfinite(th).all():
                raise DPTheoryError(f"{KEY}: the iterates diverged (non-finite values in epoch {k}) with eta = "
                                    f"{c.eta}; the step size is probably too large for this loss (the theorems need "
                                    "eta < 2/(lam + beta))")
        self.theta[lo:hi] = th


def _blas_threads(n: int | None) -> Any:
    import contextlib

    if n is None:
        return contextlib.nullcontext()
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # optional: only a speed difference
        return contextlib.nullcontext()
    return threadpool_limits(limits=n, user_api="blas")


def _run_all(run_chunk: Callable[[int], None], n_chunks: int, workers: int) -> None:
    def guarded(ci: int) -> None:
        with np.errstate(over="ignore", invalid="ignore"):  # thread-local; divergence is checked per epoch
            run_chunk(ci)

    if workers == 1 or n_chunks == 1:
        for ci in range(n_chunks):
            guarded(ci)
    else:
        with ThreadPoolExecutor(max_workers=workers) as ex:
            for f in [ex.submit(guarded, ci) for ci in range(n_chunks)]:
                f.result()


def _gather(
    idx: np.ndarray,
    X: np.ndarray,
    y: np.ndarray | None,
    aux: np.ndarray | None,
    rep_mask: np.ndarray | None,
    replacement: Replacement | None,
    rep_x: np.ndarray | None,
    rep_aux: Any,
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """Records ``X[idx]`` (and labels, per-record auxiliary values), with the replacement applied."""
    Xb = X[idx]
    yb = None if y is None else y[idx]
    ab = None if aux is None else aux[idx]
    if rep_mask is not None and replacement is not None:
        hit = (idx == replacement.index) & rep_mask[:, None]
        if hit.any():
            Xb[hit] = rep_x
            if yb is not None:
                yb[hit] = replacement.y
            if ab is not None:
                ab[hit] = rep_aux
    return Xb, yb, ab


def _initial(theta0: Theta0, rng: np.random.Generator, R: int, d: int) -> np.ndarray:
    if theta0 is None:
        return np.zeros((R, d))
    if callable(theta0):
        th = np.asarray(theta0(rng, R), dtype=np.float64)
    else:
        th = np.asarray(theta0, dtype=np.float64)
        if th.shape == (d,):
            th = np.broadcast_to(th, (R, d))
    if th.shape != (R, d) or not np.isfinite(th).all():
        raise InvalidParameter(key=KEY, name="theta0", value=f"array {th.shape}",
                               reason=f"initial parameters must be finite, of shape ({d},) or ({R}, {d})",
                               citation=CITE)
    return np.array(th, dtype=np.float64)
