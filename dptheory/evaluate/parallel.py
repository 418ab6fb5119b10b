"""Run independent tasks in process, or on a Dask cluster (``dask.distributed``), with identical results.

One entry point, :func:`run_tasks`: ``fn`` is applied to every task and the results come back in task
order, whatever ran them:

* in process (the default: ``workers`` None or 1 and no ``scheduler``): a plain loop; Dask is not
  imported; with ``processes=N``, on a pool of N worker processes of this machine (``multiprocessing``: forked
  where the platform allows it, so a worker starts with everything this process has loaded; no Dask), heaviest
  tasks first when their ``costs`` are known;
* ``workers=N``: a local Dask cluster of N single-threaded worker processes, started and shut down
  around the call;
* ``scheduler="tcp://host:8786"``: an existing Dask cluster.

Results do not depend on the number of workers because every task is self-contained: its inputs,
including its random generator, are fixed before anything runs (:func:`task_generators` spawns one
child per task *index*, so neither the workers nor the order in which tasks finish enter a result),
and the caller reduces the results in task order. A task that raises is retried ``retries`` times
(``Client.map(..., retries=)``); a task whose worker dies is rescheduled by the Dask scheduler on
another worker (``distributed.scheduler.allowed-failures`` times), so a lost worker loses no task.

Dask is an existing engine (https://distributed.dask.org); nothing here schedules anything itself.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

import numpy as np

from dptheory.core.errors import DPTheoryError, DPTheoryWarning, InvalidParameter

__all__ = [
    "cap_workers",
    "chunk_bounds",
    "dask_client",
    "local_processes",
    "machine_workers",
    "run_tasks",
    "task_generators",
    "validate_cluster",
]

KEY = "parallel"
T = TypeVar("T")
R = TypeVar("R")

#: local-cluster settings: no sampling profiler, event-loop housekeeping once a second (see dask_client)
_QUIET_WORKERS = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
    # Dask sets MALLOC_TRIM_THRESHOLD_, which turns off glibc's adaptive mmap threshold: every
    # temporary array above 128 kB is then mmap'ed and faulted in anew (measured: ~1.7x the CPU
    # time per training task); one BLAS thread per worker as Dask does by default
    "distributed.nanny.pre-spawn-environ": {"OMP_NUM_THREADS": 1, "MKL_NUM_THREADS": 1, "OPENBLAS_NUM_THREADS": 1},
}

#: seconds to wait for a scheduler given by address (``Client(address, timeout=)``)
CONNECT_TIMEOUT = 10.0


def validate_cluster(workers: Any = None, scheduler: Any = None) -> tuple[int | None, str | None]:
    """``(workers, scheduler)`` checked: workers None or an integer >= 1, scheduler None or a non-empty address.

    Raises :class:`InvalidParameter` (a one-line message naming what is accepted).
    """
    if workers is not None:
        if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
            raise InvalidParameter(
                key=KEY, name="workers", value=workers, reason="must be a whole number >= 1 (Dask worker processes)"
            )
        workers = int(workers)
    if scheduler is not None:
        if not isinstance(scheduler, str) or not scheduler.strip():
            raise InvalidParameter(
                key=KEY,
                name="scheduler",
                value=scheduler,
                reason="must be a Dask scheduler address such as tcp://127.0.0.1:8786",
            )
        if workers is not None:
            raise InvalidParameter(
                key=KEY,
                name="workers",
                value=workers,
                reason="give either workers (a local cluster) or a scheduler address, not both",
            )
        scheduler = scheduler.strip()
    return workers, scheduler


#: memory one local Dask worker process needs at least (Python, numpy, sympy, distributed, a paper loaded)
WORKER_BYTES = 256 * 2**20
_WARNED: set[tuple[int, int]] = set()


def _cpus() -> int:
    """CPUs this process may run on (``os.sched_getaffinity``, else ``os.cpu_count``; at least 1)."""
    import os

    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def machine_workers() -> tuple[int, str]:
    """How many single-threaded worker processes this machine runs at once, and why: the CPUs this process may
    use, and no more than the available memory holds at :data:`WORKER_BYTES` each."""
    from dptheory.core.memory import available_bytes, human_bytes

    cpus = _cpus()
    cap, why = cpus, f"{cpus} CPU{'s' if cpus != 1 else ''} available to this process"
    free = available_bytes()
    if free is not None and free // WORKER_BYTES < cap:
        cap = max(1, free // WORKER_BYTES)
        why = f"{human_bytes(free)} of memory available, about {human_bytes(WORKER_BYTES)} per worker process"
    return cap, why


def cap_workers(workers: int | None) -> int | None:
    """``workers`` bounded by :func:`machine_workers`; a larger request is capped, with one
    :class:`~dptheory.core.errors.DPTheoryWarning` per request and cap (the command line prints it as one line,
    ``dptheory: warning: ...``). More single-threaded processes than CPUs only share them (and, far beyond, spend the
    time starting processes: 1000 asked on 2 CPUs ran no task in 100 s); the results do not depend on the
    number of workers (module docstring), so capping changes only the time."""
    if workers is None or workers <= 1:
        return workers
    cap, why = machine_workers()
    if workers <= cap:
        return workers
    if (workers, cap) not in _WARNED:
        import warnings

        _WARNED.add((workers, cap))
        warnings.warn(
            f"{workers} Dask workers asked (--workers), capped to {cap}: {why} (the results do not depend on the "
            "number of workers)",
            DPTheoryWarning,
            stacklevel=2,
        )
    return cap


def local_processes(tasks: int) -> int:
    """How many worker processes :func:`run_tasks` uses for ``tasks`` tasks on this machine when none is asked for
    (``processes``): one per CPU available (:func:`machine_workers`), no more than the tasks; 1 (in process) on one
    CPU or for one task."""
    return max(1, min(tasks, machine_workers()[0]))


def uses_dask(workers: int | None, scheduler: str | None) -> bool:
    """True when :func:`run_tasks` would go to Dask (more than one worker, or a scheduler address)."""
    return scheduler is not None or (workers is not None and workers > 1)


def chunk_bounds(n: int, size: int) -> list[tuple[int, int]]:
    """``[(lo, hi), ...]`` cutting ``range(n)`` into consecutive pieces of ``size`` (the last may be shorter)."""
    if n < 0 or size < 1:
        raise DPTheoryError(f"{KEY}: cannot cut {n} items into chunks of {size}")
    return [(lo, min(n, lo + size)) for lo in range(0, n, size)]


def task_generators(rng: np.random.Generator | int, n: int) -> list[np.random.Generator]:
    """One independent generator per task index: ``SeedSequence(seed).spawn(n)`` (or ``rng.spawn(n)``).

    The child of task ``i`` depends on the seed and on ``i`` only, so how tasks are spread over
    workers never changes a result. Spawning does not advance ``rng``'s own stream.
    """
    if isinstance(rng, np.random.Generator):
        return rng.spawn(n)
    return [np.random.default_rng(s) for s in np.random.SeedSequence(rng).spawn(n)]


@contextlib.contextmanager
def dask_client(
    workers: int | None = None, scheduler: str | None = None, *, timeout: float | None = None
) -> Iterator[Any]:
    """A ``distributed.Client``: on a new local cluster of ``workers`` processes, or on ``scheduler``.

    The local cluster (single-threaded worker processes, no dashboard) is closed on exit; a client
    of an existing cluster is closed, the cluster is left running. Errors are one line
    (:class:`DPTheoryError`): Dask missing, a scheduler that cannot be reached within ``timeout`` s.
    """
    workers, scheduler = validate_cluster(workers, scheduler)
    timeout = CONNECT_TIMEOUT if timeout is None else timeout
    import logging

    from dptheory.core.extras import require

    distributed = require("distributed", feature="--workers/--scheduler")
    Client, LocalCluster = distributed.Client, distributed.LocalCluster
    if scheduler is not None:
        try:
            client = Client(scheduler, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError, TypeError) as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise DPTheoryError(
                f"cannot reach the Dask scheduler at {scheduler!r} within {timeout:g} s: {reason} "
                "(give an address such as tcp://127.0.0.1:8786 of a running `dask scheduler`)"
            ) from None
        try:
            yield client
        finally:
            client.close()
        return
    n = cap_workers(workers) or 1
    import dask

    try:
        # a worker's event-loop thread wakes every 10-100 ms by default (sampling profiler, tick monitor,
        # memory and system monitors) and takes the GIL from the task each time; on a busy machine that
        # made our training tasks (many small numpy calls) ~1.5x slower, so the local cluster wakes rarely
        with dask.config.set(_QUIET_WORKERS):
            cluster = LocalCluster(
                n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=logging.ERROR
            )
    except (OSError, RuntimeError, TimeoutError) as exc:
        raise DPTheoryError(
            f"could not start a local Dask cluster of {n} worker processes: {exc} (a script that "
            "asks for workers must start from `if __name__ == '__main__':`)"
        ) from None
    try:
        client = Client(cluster, set_as_default=False)
        try:
            yield client
        finally:
            client.close()
    finally:
        cluster.close()


def run_tasks(
    fn: Callable[[T], R],
    tasks: Sequence[T],
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: bool = False,
    retries: int = 2,
    desc: str = "tasks",
    client: Any = None,
    threads: int = 1,
    processes: int = 1,
    costs: Sequence[float] | None = None,
) -> list[R]:
    """``[fn(t) for t in tasks]``, in process or on Dask (see the module docstring); results in task order.

    Args:
        fn: a module-level function (it is pickled to the workers) that depends only on its task.
        tasks: the tasks (picklable); each carries its own seed or generator (:func:`task_generators`).
        workers: None or 1: in process, no Dask import; N > 1: a local cluster of N processes.
        scheduler: address of an existing Dask scheduler (instead of ``workers``).
        progress: a tqdm bar on stderr counting finished tasks.
        retries: how many times Dask reruns a task that raised before giving up (its error is then
            raised here, as the task raised it).
        desc: the progress bar's label.
        client: an open ``distributed.Client`` to use (overrides ``workers`` and ``scheduler``).
        threads: in process only: run the tasks on this many threads (for numpy-heavy tasks, which
            release the GIL); the results are the same as with one.
        processes: in process only (no Dask): run the tasks on a pool of this many worker processes of this
            machine (:func:`local_processes` says how many a machine runs); the results are the same as with one.
        costs: with ``processes``, each task's expected cost (a previous run's seconds, say): the pool starts the
            costliest first, so that a long task does not start last; it changes only the time.
    """
    workers, scheduler = validate_cluster(workers, scheduler)
    workers = cap_workers(workers) if client is None and scheduler is None else workers
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise InvalidParameter(key=KEY, name="retries", value=retries, reason="must be a whole number >= 0")
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise InvalidParameter(key=KEY, name="threads", value=threads, reason="must be a whole number >= 1")
    if isinstance(processes, bool) or not isinstance(processes, int) or processes < 1:
        raise InvalidParameter(key=KEY, name="processes", value=processes, reason="must be a whole number >= 1")
    tasks = list(tasks)
    if costs is not None and len(costs) != len(tasks):
        raise InvalidParameter(key=KEY, name="costs", value=len(costs), reason=f"must give one cost per task "
                               f"({len(tasks)})")
    bar = _bar(len(tasks), desc) if progress and tasks else None
    try:
        if client is None and not uses_dask(workers, scheduler):
            if processes > 1 and len(tasks) > 1:
                return _on_processes(fn, tasks, min(processes, len(tasks)), bar, costs)
            if threads > 1 and len(tasks) > 1:
                return _on_threads(fn, tasks, threads, bar)
            out = []
            for t in tasks:
                out.append(fn(t))
                if bar is not None:
                    bar.update(1)
            return out
        if not tasks:
            return []
        if client is not None:
            return _on_client(client, fn, tasks, retries, bar)
        with dask_client(workers, scheduler) as cl:
            return _on_client(cl, fn, tasks, retries, bar)
    finally:
        if bar is not None:
            bar.close()


def _on_client(client: Any, fn: Callable[[Any], Any], tasks: list[Any], retries: int, bar: Any) -> list[Any]:
    from distributed import as_completed

    futures = client.map(_Portable(fn), tasks, pure=False, retries=retries)
    try:
        for fut in as_completed(futures, loop=client.loop):
            if fut.status == "error":
                break  # gather raises the task's own exception below
            if bar is not None:
                bar.update(1)
        return list(client.gather(futures))
    finally:
        client.cancel(futures)


class _Portable:
    """``fn`` on a worker: no false Hypothesis warning (below), and package errors made picklable (a
    :class:`DPTheoryError` whose constructor takes keywords, such as InvalidParameter, cannot be rebuilt
    from its pickle, so it travels as a plain DPTheoryError carrying the same one-line message)."""

    def __init__(self, fn: Callable[[Any], Any]) -> None:
        self.fn = fn
        self.__name__ = getattr(fn, "__name__", "task")  # Dask names the task keys after it

    def __call__(self, task: Any) -> Any:
        import warnings

        try:
            with warnings.catch_warnings():
                # Hypothesis flags any change of the global `random` state during a draw; on a Dask worker
                # the worker's own event-loop thread uses `random`, so the warning is a false alarm there
                warnings.filterwarnings("ignore", message="Do not use the `random` module inside strategies")
                return self.fn(task)
        except DPTheoryError as exc:
            raise DPTheoryError(str(exc)) from None


def _on_threads(fn: Callable[[Any], Any], tasks: list[Any], threads: int, bar: Any) -> list[Any]:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=threads) as ex:
        futures = [ex.submit(fn, t) for t in tasks]
        out = []
        for f in futures:  # in task order; the first error is raised as the task raised it
            out.append(f.result())
            if bar is not None:
                bar.update(1)
        return out


def _ignore_interrupt() -> None:
    """A pool worker ignores Ctrl-C: the command's process receives it and terminates the pool (a worker's own
    traceback would only clutter the terminal)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _on_processes(fn: Callable[[Any], Any], tasks: list[Any], processes: int, bar: Any,
                  costs: Sequence[float] | None) -> list[Any]:
    """The tasks on a pool of worker processes (forked where the platform allows it and no other thread of this
    process runs, else spawned), costliest first; results in task order, the first error (in task order) raised
    as the task raised it."""
    import multiprocessing
    import threading

    order = list(range(len(tasks)))
    if costs is not None:
        order.sort(key=lambda i: -float(costs[i]))  # stable: equal costs keep the task order
    methods = multiprocessing.get_all_start_methods()
    method = "fork" if "fork" in methods and threading.active_count() == 1 else "spawn"
    portable = _Portable(fn)
    out: dict[int, Any] = {}
    failed: dict[int, BaseException] = {}
    pool = multiprocessing.get_context(method).Pool(processes, initializer=_ignore_interrupt)
    try:
        results = pool.imap_unordered(_run_indexed_safe, [(portable, i, tasks[i]) for i in order], chunksize=1)
        for i, ok, value in results:
            if ok:
                out[i] = value
            else:
                failed[i] = value
            if bar is not None:
                bar.update(1)
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()
    if failed:
        raise failed[min(failed)]
    return [out[i] for i in range(len(tasks))]


def _run_indexed_safe(item: tuple[Callable[[Any], Any], int, Any]) -> tuple[int, bool, Any]:
    """``(index, True, result)``, or ``(index, False, exception)`` for a task that raised (the other tasks finish;
    the caller raises the first failure in task order, as the in-process loop would)."""
    fn, i, task = item
    try:
        return i, True, fn(task)
    except Exception as exc:
        return i, False, exc


def _bar(total: int, desc: str) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="task", file=sys.stderr, leave=False)
