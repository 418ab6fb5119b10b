"""Scale-out on Dask (dptheory.evaluate.parallel): the same numbers whatever runs the tasks, retries, one-line errors.

One local cluster of two single-threaded worker processes serves the module (through its scheduler
address, the ``--scheduler`` path); one test starts its own through ``--workers 2``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dptheory.cli import main
from dptheory.core.errors import DPTheoryError, InvalidParameter
from dptheory.evaluate.parallel import chunk_bounds, run_tasks, task_generators, validate_cluster

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def scheduler():
    distributed = pytest.importorskip("distributed")
    import logging

    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=logging.ERROR
    )
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()


# ----------------------------------------------------------------------------- task functions (pickled by name)
def _draws(task):
    """A task whose result depends on its generator only (task 0 sleeps, so the tasks finish out of order)."""
    i, g = task
    import time

    time.sleep(0.5 if i == 0 else 0.0)
    return g.standard_normal(3)


def _flaky(task):
    """Raises the first time it runs for a given marker file, then succeeds."""
    marker, value = task
    if not os.path.exists(marker):
        Path(marker).write_text("failed once")
        raise RuntimeError(f"simulated failure of task {value}")
    return value * value


def _dies(task):
    """Kills its worker process the first time it runs for a given marker file, then succeeds."""
    marker, value = task
    if not os.path.exists(marker):
        Path(marker).write_text("worker killed once")
        os._exit(1)
    return value + 1


def _bad_parameter(task):
    raise InvalidParameter(key="test", name="x", value=task, reason="must be positive")


# ----------------------------------------------------------------------------- identical results
def test_seeds_per_task_make_results_independent_of_workers(scheduler):
    def tasks():  # fresh generators each time (a task consumes its generator)
        return list(enumerate(task_generators(np.random.default_rng(123), 12)))

    serial = run_tasks(_draws, tasks())
    threaded = run_tasks(_draws, tasks(), threads=3)
    dask = run_tasks(_draws, tasks(), scheduler=scheduler)
    assert np.array_equal(np.stack(serial), np.stack(threaded))
    assert np.array_equal(np.stack(serial), np.stack(dask))
    # and the draws are those of SeedSequence(...).spawn, task by task (not a shared stream)
    assert not np.array_equal(serial[0], serial[1])
    same = [np.random.default_rng(s).standard_normal(3) for s in np.random.SeedSequence(9).spawn(4)]
    assert all(
        np.array_equal(a, b)
        for a, b in zip(same, run_tasks(_draws, list(enumerate(task_generators(9, 4)))), strict=True)
    )


def test_chunk_bounds():
    assert chunk_bounds(10, 4) == [(0, 4), (4, 8), (8, 10)]
    assert chunk_bounds(0, 4) == []
    with pytest.raises(DPTheoryError):
        chunk_bounds(5, 0)


def test_audit_scores_are_the_same_in_process_on_threads_and_on_dask(scheduler):
    """600 models of Algorithm 1 in 3 tasks of 250: the scores are bit for bit the same however they run."""
    from dptheory.audit.empirical import scores_by_task
    from dptheory.papers.yeshokri22.audits import _quadratic_task

    X = np.linspace(0, 1, 8)[:, None]
    mask = np.zeros(600, dtype=bool)
    mask[300:] = True
    spec = {
        "X": X,
        "x2": np.array([2.0]),
        "index": 0,
        "lam": 1.0,
        "eta": 0.2,
        "sigma": 0.1,
        "b": 2,
        "K": 2,
        "scheme": "shuffle",
        "order": None,
        "mask": mask,
    }

    def scores(**kw):
        return scores_by_task(_quadratic_task, spec, 600, np.random.default_rng([5, 2]), **kw)

    serial = scores()
    assert serial.shape == (600,) and len(np.unique(serial)) == 600
    assert serial.tobytes() == scores(threads=2).tobytes() == scores(scheduler=scheduler).tobytes()
    # the D' models (record 0 moved to 2) sit higher: the scores are in model order
    assert serial[300:].mean() > serial[:300].mean() + 0.05
    assert scores(task_runs=100).tobytes() != serial.tobytes()  # the task size is part of the seed layout


def _audit_json(capsys, extra):
    args = ["yeshokri22", "audit", "empirical", "--model", "quadratic", "--scheme", "fixed", "n=8", "b=2",
            "K=1", "--runs", "600", "sigma=0.1", "S_g=1", "lam=1", "eta=0.2", "j0=3",
            "--gamma", "1e-6", "--no-progress", "--json", *extra]
    code = main(args)
    out = json.loads(capsys.readouterr().out)
    for r in out["results"]:
        r.pop("seconds")  # wall-clock time, the one field that may differ
    return code, json.dumps(out, sort_keys=True).encode()


def test_audit_command_with_a_local_cluster_of_two_workers(capsys, monkeypatch):
    """``--workers 2`` starts (and stops) its own local cluster; the JSON is byte for byte the in-process one.

    The RDP upper bounds are converted in the calling process whatever the workers, so a stub stands in
    for the (slow) conversion here; the training runs on the workers.
    """
    pytest.importorskip("distributed")
    import dptheory.papers.yeshokri22.audits as A

    monkeypatch.setattr(A, "converted_upper_bounds", lambda pts, delta: [(k, 50.0) for k, _ in pts])
    c1, serial = _audit_json(capsys, [])
    c2, dask = _audit_json(capsys, ["--workers", "2"])
    assert c1 == c2 == 0
    assert serial == dask
    assert json.loads(serial)["results"][0]["audit"]["epsilon_lower"] > 0


def test_sweep_mpmath_points_on_dask(scheduler, capsys):
    """Points beyond float64 (1e-160: an RDP beyond 1.8e308) are computed on the workers, same output."""
    argv = ["sweep", "rdp.gaussian", "z=1e-150,1e-160,1e-170,1", "alpha=10", "T=1000", "--json"]
    assert main(argv) == 0
    serial = capsys.readouterr().out
    assert main([*argv, "--scheduler", scheduler]) == 0
    assert capsys.readouterr().out == serial
    assert serial.count("exp(") + serial.count("e+3") >= 2  # the two mpmath points are in it


def test_shi26_sweep_on_dask(scheduler, capsys, tmp_path):
    """Two training pairs (q = 3, 4) of Shi et al.'s sweep, one per task: the same rows in the same order."""
    argv = [
        "shi26",
        "sweep",
        "--scale",
        "reduced",
        "--steps",
        "40",
        "--n-test",
        "100",
        "--param",
        "q",
        "--values",
        "3,4",
        "--no-progress",
        "--json",
    ]
    assert main([*argv, "--out", str(tmp_path / "a")]) == 0
    serial = capsys.readouterr().out
    assert main([*argv, "--out", str(tmp_path / "b"), "--scheduler", scheduler]) == 0
    assert capsys.readouterr().out == serial
    assert [r["value"] for r in json.loads(serial)][::3] == [3.0, 4.0]
    assert (tmp_path / "a" / "reduced_sweep.csv").read_bytes() == (tmp_path / "b" / "reduced_sweep.csv").read_bytes()


def test_tasks_on_a_local_pool_give_the_in_process_results():
    def tasks():  # fresh generators each time (a run advances them)
        return list(zip(range(6), task_generators(7, 6), strict=True))

    serial = run_tasks(_draws, tasks())
    pooled = run_tasks(_draws, tasks(), processes=2, costs=[0, 5, 1, 1, 9, 0])  # out of order, back in order
    assert all(np.array_equal(a, b) for a, b in zip(serial, pooled, strict=True))


def test_a_failing_task_on_a_local_pool_raises_as_in_process():
    with pytest.raises(DPTheoryError, match="x = 1"):
        run_tasks(_bad_parameter, [1, 2], processes=2)
    with pytest.raises(InvalidParameter, match="processes"):
        run_tasks(_draws, [], processes=0)


def test_check_runs_several_claims_on_a_local_pool_by_default(capsys, monkeypatch):
    """Without --workers, more than one claim runs on a pool of the machine's CPUs (two here), with the verdicts of
    the in-process run (--workers 1), durations aside."""
    pools = _spy_on_the_pool(monkeypatch)
    pooled, serial = _pooled_and_serial(capsys, "pacbayes.C1", "yeshokri22.C2a")
    assert [p for p, _tasks in pools] == [2] and pooled == serial and len(serial) == 2


def _spy_on_the_pool(monkeypatch) -> list[tuple[int, list[tuple[str, ...]]]]:
    """A machine of two CPUs whose pool records each run: (processes, the claim keys of each task)."""
    from dptheory.evaluate import parallel

    runs: list[tuple[int, list[tuple[str, ...]]]] = []
    real = parallel._on_processes

    def spy(fn, tasks, processes, bar, costs):
        runs.append((processes, [t[0] for t in tasks]))
        return real(fn, tasks, processes, bar, costs)

    monkeypatch.setattr(parallel, "machine_workers", lambda: (2, "two CPUs (test)"))
    monkeypatch.setattr(parallel, "_on_processes", spy)
    return runs


def _pooled_and_serial(capsys, *keys: str) -> tuple[list[dict], list[dict]]:
    """``check --json`` of the claims by default (the pool) and with --workers 1, durations dropped."""
    argv = ["check", "--claim", *keys, "--examples", "20", "--json", "--no-progress"]
    assert main(argv) == 0
    pooled = json.loads(capsys.readouterr().out)
    assert main([*argv, "--workers", "1"]) == 0
    serial = json.loads(capsys.readouterr().out)
    for r in (*serial, *pooled):
        r.pop("duration_s")
    return pooled, serial


def test_claims_sharing_a_custom_side_run_as_one_task_with_the_same_verdicts(capsys, monkeypatch):
    """Claims sharing a custom side (Thm 4.3 in (epsilon, delta) with its per-point caches) are one task of the
    pool, checked one after the other in one process; the others stay one task each. A group's results come back
    to their claims, in the order asked, with the in-process run's verdicts (durations aside): shown on two cheap
    claims grouped by force (the real groups' claims take seconds each)."""
    from dptheory.cli import commands
    from dptheory.core.registry import REGISTRY

    shared = ["yeshokri22.C7_epsdelta_rdp_holds", "pacbayes.C1", "yeshokri22.C7_epsdelta_pld_holds"]
    assert commands._sharing_groups([REGISTRY.get(k) for k in shared]) == [[0, 2], [1]]
    assert commands._sharing_groups([REGISTRY.get(k) for k in ("pacbayes.C1", "yeshokri22.C2a")]) == [[0], [1]]
    pools = _spy_on_the_pool(monkeypatch)
    monkeypatch.setattr(commands, "_sharing_groups", lambda claims: [[0, 2], [1]])
    keys = ["yeshokri22.C2a", "pacbayes.C3", "pacbayes.C1"]
    pooled, serial = _pooled_and_serial(capsys, *keys)
    assert pools == [(2, [(keys[0], keys[2]), (keys[1],)])] and pooled == serial
    assert [r["claim"] for r in pooled] == keys


def test_check_claims_on_dask(scheduler, capsys):
    argv = ["check", "--claim", "maxinfo.route_superlinear", "lz26.C3", "--examples", "20", "--json", "--no-progress"]
    assert main([*argv, "--workers", "1"]) == 0
    serial = json.loads(capsys.readouterr().out)
    assert main([*argv, "--scheduler", scheduler]) == 0
    dask = json.loads(capsys.readouterr().out)
    for r in (*serial, *dask):
        r.pop("duration_s")  # wall time: the one field that may differ
    assert serial == dask and len(serial) >= 2


# ----------------------------------------------------------------------------- failures
def test_a_task_that_fails_once_is_retried(scheduler, tmp_path):
    tasks = [(str(tmp_path / f"m{i}"), i) for i in range(4)]
    assert run_tasks(_flaky, tasks, scheduler=scheduler, retries=1) == [0, 1, 4, 9]
    assert len(list(tmp_path.iterdir())) == 4  # every task did fail once


def test_without_retries_the_failure_is_raised(scheduler, tmp_path):
    with pytest.raises(RuntimeError, match="simulated failure"):
        run_tasks(_flaky, [(str(tmp_path / "m"), 3)], scheduler=scheduler, retries=0)


def test_a_dead_worker_loses_no_task(scheduler, tmp_path):
    """The first attempt kills its worker process; the scheduler reruns the task on a live worker."""
    tasks = [(str(tmp_path / "m0"), 10), (str(tmp_path / "none"), 20)]
    (tmp_path / "none").write_text("never dies")
    assert run_tasks(_dies, tasks, scheduler=scheduler) == [11, 21]
    assert (tmp_path / "m0").exists()


def test_package_errors_come_back_as_one_line(scheduler):
    with pytest.raises(DPTheoryError, match="parameter x = 5 is invalid: must be positive"):
        run_tasks(_bad_parameter, [5], scheduler=scheduler, retries=0)


@pytest.mark.parametrize(
    ("workers", "scheduler_", "match"),
    [
        (0, None, "workers"),
        (-1, None, "workers"),
        (2.5, None, "workers"),
        (True, None, "workers"),
        (None, "", "scheduler"),
        (2, "tcp://127.0.0.1:8786", "not both"),
    ],
)
def test_bad_cluster_arguments(workers, scheduler_, match):
    with pytest.raises(InvalidParameter, match=match):
        validate_cluster(workers, scheduler_)


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "--workers", "0"],
        ["check", "--workers", "two"],
        ["check", "--scheduler", "not an address"],
        ["check", "--workers", "2", "--scheduler", "tcp://127.0.0.1:8786"],
        ["sweep", "rdp.gaussian", "z=1,2", "alpha=10", "T=1", "--workers", "0"],
        ["yeshokri22", "audit", "empirical", "--scheduler", "localhost"],
    ],
)
def test_bad_options_are_one_line_usage_errors(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("dptheory: usage error:") and "\n" not in err
    assert "--workers" in err or "--scheduler" in err


def test_unreachable_scheduler_is_a_one_line_error(capsys, monkeypatch):
    pytest.importorskip("distributed")
    import socket

    import dptheory.evaluate.parallel as P

    monkeypatch.setattr(P, "CONNECT_TIMEOUT", 2.0)
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert main(["check", "--claim", "lz26.C3", "--scheduler", f"tcp://127.0.0.1:{port}"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("dptheory: error: cannot reach the Dask scheduler") and "\n" not in err


# ----------------------------------------------------------------------------- no Dask unless asked
def test_default_paths_do_not_import_dask():
    code = (
        "import sys\n"
        "import dptheory\n"
        "from dptheory.cli import main\n"
        "assert main(['sweep', 'rdp.gaussian', 'z=1e-160,1', 'alpha=10', 'T=1000', '--json']) == 0\n"
        "import numpy as np\n"
        "from dptheory.audit.empirical import scores_by_task\n"
        "from dptheory.papers.yeshokri22.audits import _quadratic_task\n"
        "spec = {'X': np.zeros((4, 1)), 'x2': np.ones(1), 'index': 0, 'lam': 1.0, 'eta': 0.1, 'sigma': 0.1, 'b': 2,"
        " 'K': 1, 'scheme': 'shuffle', 'order': None, 'mask': np.arange(600) >= 300}\n"
        "assert scores_by_task(_quadratic_task, spec, 600, np.random.default_rng(0), threads=2).shape == (600,)\n"
        "assert main(['yeshokri22', 'audit', 'empirical', '--help']) == 0\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed'))\n"
        "print('DASK', bad)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "DASK []" in out.stdout
