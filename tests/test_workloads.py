"""Hostile workloads (issue 18, item 5): report parameter sets checked against the theorems they feed, a
``--paper`` that disagrees with the file, workloads larger than the machine's memory refused up front with the
figures (:mod:`dptheory.core.memory`), and ``--workers`` capped to what the machine runs
(:func:`dptheory.evaluate.parallel.cap_workers`)."""

from __future__ import annotations

import subprocess
import sys
import time

import numpy as np
import pytest

from dptheory.cli import main
from dptheory.core.errors import DPTheoryError, DPTheoryWarning

SET = ('[report]\npaper = "yeshokri22"\nclaims = false\n\n[[sets]]\nname = "Figure 2"\n'
       'params = {{ alpha = 10, eta = "0.02", lam = 1, beta = 4, S_g = 4, {sigma} = 2, n = 50, b = 2, K = 5, '
       'j0 = 0 }}\n')


# ----------------------------------------------------------------------------- report parameter sets
def test_misspelt_set_parameter_is_an_error_naming_the_set_and_the_closest_name(tmp_path, capsys):
    f = tmp_path / "sets.toml"
    f.write_text(SET.format(sigma="sigam"))
    rc = main(["report", "--params", str(f), "--out", str(tmp_path / "r"), "--no-pdf", "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 1
    assert len(err.strip().splitlines()) == 1
    assert "sets.toml" in err and "[[sets]] number 1 ('Figure 2')" in err
    assert "unknown parameter 'sigam'" in err and "did you mean sigma?" in err
    assert "alpha, b, beta" in err  # the accepted names
    assert not (tmp_path / "r").exists()  # refused before any work


def test_correct_set_still_reports(tmp_path):
    f = tmp_path / "sets.toml"
    f.write_text(SET.format(sigma="sigma"))
    assert main(["report", "--params", str(f), "--out", str(tmp_path / "r"), "--no-pdf", "--no-progress"]) == 0
    tex = (tmp_path / "r" / "report.tex").read_text()
    assert "Figure 2" in tex


def test_report_config_built_in_python_is_checked_too(tmp_path):
    from dptheory.report.build import build
    from dptheory.report.config import ParamSet, ReportConfig

    cfg = ReportConfig(paper="yeshokri22", title="t", claims=False, source="python",
                       sets=(ParamSet(name="s", params={"sigam": 2, "alpha": 10}),))
    with pytest.raises(DPTheoryError, match=r"sigam.*did you mean sigma"):
        build(cfg, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_misspelt_crossover_parameter_is_an_error():
    from dptheory.report.config import from_dict

    data = {"report": {"paper": "yeshokri22", "claims": False},
            "crossovers": [{"lower": "yeshokri22.thm4_3", "upper": "yeshokri22.composition", "over": "K",
                            "params": {"alpha": 10, "eta": "0.02", "lam": 1, "beta": 4, "S_g": 4, "sgima": 2,
                                       "n": 50, "b": 2}}]}
    with pytest.raises(DPTheoryError, match=r"\[\[crossovers\]\] number 1 .*'sgima' \(did you mean sigma\?\)"):
        from_dict(data, source="x.toml")


def test_paper_option_disagreeing_with_the_file_is_an_error(tmp_path, capsys):
    f = tmp_path / "sets.toml"
    f.write_text(SET.format(sigma="sigma"))
    rc = main(["report", "--paper", "lz26", "--params", str(f), "--out", str(tmp_path / "r"), "--no-pdf",
               "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 1
    assert "--paper lz26" in err and "'yeshokri22'" in err and "sets.toml" in err
    assert not (tmp_path / "r").exists()
    # the same paper on both sides is fine
    assert main(["report", "--paper", "yeshokri22", "--params", str(f), "--out", str(tmp_path / "r"), "--no-pdf",
                 "--no-progress"]) == 0


# ----------------------------------------------------------------------------- memory of a workload
@pytest.mark.parametrize("extra", [[], ["--model", "quadratic", "n=50", "b=2", "--csv", "x.csv"]],
                         ids=["logistic", "quadratic-csv"])
def test_train_refuses_runs_beyond_memory_at_once(tmp_path, extra):
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "dptheory", "yeshokri22", "train", "--runs", "100000000", *extra],
                          cwd=tmp_path, capture_output=True, text=True, timeout=30)
    elapsed = time.perf_counter() - t0
    err = proc.stderr.strip()
    assert proc.returncode == 1, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert "100,000,000 runs need about" in err and "available" in err and "fewer runs (--runs)" in err
    assert "at most about" in err
    assert elapsed < 20  # start-up and the dataset; nothing is trained
    assert not (tmp_path / "x.csv").exists()


@pytest.mark.parametrize("scheme", ["shuffle", "fixed", "without_replacement"])
@pytest.mark.parametrize("record", [None, "epoch", "step"])
def test_train_estimate_counts_the_arrays_allocated(scheme, record, traced_peak):
    from dptheory.train import QuadraticLoss, train_noisy_gd
    from dptheory.train.noisy_gd import memory_estimate

    R, n, d, b, K = 1500, 60, 3, 5, 4
    X = np.random.default_rng(0).standard_normal((n, d))
    est = memory_estimate(runs=R, d=d, n=n, p=d, b=b, K=K, scheme=scheme, record=record, record_batches=True,
                          track=0, chunk_size=512)
    res, peak = traced_peak(lambda: train_noisy_gd(QuadraticLoss(lam=1.0, dim=d), X, eta=0.1, sigma=1.0, b=b, K=K,
                                             scheme=scheme, runs=R, rng=np.random.default_rng(1), record=record,
                                             record_batches=True, track=0, chunk_size=512))
    # the per-run arrays of the result, exactly
    assert res.theta.nbytes == R * est.per_unit["theta"]
    assert res.batches.nbytes == R * est.per_unit["batches"]
    assert res.inclusion.nbytes == R * est.per_unit["inclusion"]
    assert (0 if res.trajectory is None else res.trajectory.nbytes) == R * est.per_unit.get("trajectory", 0)
    # and everything the call allocated (tracemalloc sees numpy's buffers): not under-, not grossly over-estimated
    assert 0.95 * peak <= est.total <= 2 * peak, (est.total, peak)


def test_dp_sgd_estimate_against_what_is_allocated(traced_peak):
    from dptheory.train import load_dataset, train_dp_sgd
    from dptheory.train.noisy_gd import memory_estimate

    data = load_dataset("synthetic", n=200, rng=np.random.default_rng(0))
    R, p, c = 1000, data.X.shape[1] + 1, data.n_classes
    est = memory_estimate(runs=R, d=p * c, n=200, p=p, b=10, K=2, scheme="shuffle", chunk_size=512, labels=True,
                          aux=True)
    res, peak = traced_peak(lambda: train_dp_sgd(data, eta=0.1, lam=0.01, sigma_mul=1, S_g=2, L=1, b=10, K=2, runs=R,
                                           rng=np.random.default_rng(2)))
    assert res.theta.nbytes == R * est.per_unit["theta"]
    assert 0.95 * peak <= est.total <= 2 * peak, (est.total, peak)


def test_dpsgd_stream_estimate_against_what_is_allocated(traced_peak):
    from dptheory.train.dpsgd_stream import dpsgd_stream, logistic_per_example_grad, memory_estimate

    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((100, 5)), np.sign(rng.standard_normal(100))
    est = memory_estimate(runs=1000, d=5, n=100, p=5, m=10, T=10, E=2, record_stream=True)
    res, peak = traced_peak(lambda: dpsgd_stream(X, y, logistic_per_example_grad, m=10, E=2, zeta=1, sigma=1, eta=0.1,
                                           rng=rng, runs=1000, d=5, record_stream=True))
    assert res.stream.nbytes == 1000 * est.per_unit["stream"] and res.batches.nbytes == 1000 * est.per_unit["batches"]
    assert 0.95 * peak <= est.total <= 2 * peak, (est.total, peak)


def test_estimate_message_and_fitting_count():
    from dptheory.core.errors import InsufficientMemory
    from dptheory.core.memory import MemoryEstimate

    est = MemoryEstimate("w", 1000, "runs", per_unit={"a": 3000, "b": 1000}, fixed={"chunk": 10_000})
    assert est.total == 1000 * 4000 + 10_000
    fit = est.fitting_units(1_000_000)
    assert fit == (1_000_000 - 10_000) // 4000
    assert MemoryEstimate("w", fit, "runs", est.per_unit, est.fixed).total <= 1_000_000
    assert MemoryEstimate("w", fit + 1, "runs", est.per_unit, est.fixed).total > 1_000_000
    est.check(available=est.total)  # exactly fits
    with pytest.raises(InsufficientMemory) as info:
        est.check(available=1_000_000)
    msg = str(info.value)
    assert "1,000 runs need about 4.01 MB" in msg and "a 3 MB" in msg and "1 MB available" in msg
    assert f"at most about {fit:,} runs fit" in msg
    assert isinstance(info.value, MemoryError) and isinstance(info.value, DPTheoryError)


def test_available_memory_is_read(tmp_path):
    from pathlib import Path

    from dptheory.core import memory

    meminfo = Path("/proc/meminfo")
    if meminfo.exists():  # Linux: MemAvailable, within the machine's memory
        total = next(int(line.split()[1]) * 1024 for line in meminfo.read_text().splitlines()
                     if line.startswith("MemTotal:"))
        assert 0 < memory.available_bytes() <= total
    fake = tmp_path / "meminfo"
    fake.write_text("MemTotal:  1000 kB\nMemFree:  10 kB\nMemAvailable:  600 kB\n")
    assert memory._meminfo_available(str(fake)) == 600 * 1024
    assert memory._meminfo_available(str(tmp_path / "missing")) is None
    (tmp_path / "memory.max").write_text("5000\n")
    (tmp_path / "memory.current").write_text("1200\n")
    assert memory._cgroup_available(tmp_path) == 3800
    (tmp_path / "memory.max").write_text("max\n")
    assert memory._cgroup_available(tmp_path) is None


def test_trainer_refuses_before_allocating(monkeypatch):
    from dptheory.core import memory
    from dptheory.core.errors import InsufficientMemory
    from dptheory.train import QuadraticLoss, train_noisy_gd

    monkeypatch.setattr(memory, "available_bytes", lambda: 4_000_000)
    X = np.zeros((10, 1))
    kw = dict(eta=0.1, sigma=1.0, b=2, K=1, scheme="shuffle", rng=np.random.default_rng(0))
    with pytest.raises(InsufficientMemory, match=r"train.noisy_gd: 1,000,000 runs need about .* 4 MB available"):
        train_noisy_gd(QuadraticLoss(lam=1.0, dim=1), X, runs=10**6, **kw)
    assert train_noisy_gd(QuadraticLoss(lam=1.0, dim=1), X, runs=1000, **kw).theta.shape == (1000, 1)


def test_audit_refuses_models_beyond_memory(monkeypatch):
    from dptheory.audit.empirical import scores_by_task
    from dptheory.core import memory
    from dptheory.core.errors import InsufficientMemory

    monkeypatch.setattr(memory, "available_bytes", lambda: 1_000_000)
    with pytest.raises(InsufficientMemory, match=r"audit.empirical: 1,000,000 models need .*fewer models \(--runs\)"):
        scores_by_task(_zeros_task, None, 10**6, np.random.default_rng(0))
    assert scores_by_task(_zeros_task, None, 1000, np.random.default_rng(0)).shape == (1000,)


def _zeros_task(task):
    _, lo, hi, _ = task
    return np.zeros(hi - lo)


def test_sweep_refuses_a_grid_beyond_memory():
    import dptheory
    from dptheory.core.errors import InsufficientMemory
    from dptheory.evaluate.sweep import sweep

    t0 = time.perf_counter()
    with pytest.raises(InsufficientMemory, match=r"rdp.gaussian: 20,000,000,000 grid points need about .*TB"):
        sweep(dptheory.get("rdp.gaussian"), {"alpha": list(range(2, 2002)), "z": list(range(1, 1001)),
                                             "T": list(range(1, 10_001))}, {})
    assert time.perf_counter() - t0 < 5


def test_accuracy_in_chunks_equals_at_once(monkeypatch):
    from dptheory.train import load_dataset, logistic

    data = load_dataset("synthetic", n=50, rng=np.random.default_rng(0))
    theta = np.random.default_rng(1).standard_normal((7, (data.X.shape[1] + 1) * data.n_classes))
    whole = logistic.accuracy(theta, data, 1.0)
    monkeypatch.setattr(logistic, "ACCURACY_CHUNK_BYTES", 1)  # one run per chunk
    assert np.array_equal(logistic.accuracy(theta, data, 1.0), whole)


# ----------------------------------------------------------------------------- workers
def _caps(parallel, workers):
    """``cap_workers(workers)`` and the messages of the warnings it gave (each a DPTheoryWarning), nothing printed."""
    import warnings

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        cap = parallel.cap_workers(workers)
    assert all(issubclass(w.category, DPTheoryWarning) for w in seen)
    return cap, [str(w.message) for w in seen]


def test_cap_workers_by_cpus_and_memory(monkeypatch, capsys):
    from dptheory.core import memory
    from dptheory.evaluate import parallel

    monkeypatch.setattr(parallel, "_cpus", lambda: 2)
    monkeypatch.setattr(memory, "available_bytes", lambda: 10**12)
    monkeypatch.setattr(parallel, "_WARNED", set())
    assert _caps(parallel, None) == (None, []) and _caps(parallel, 1) == (1, []) and _caps(parallel, 2) == (2, [])
    cap, msgs = _caps(parallel, 1000)
    assert cap == 2 and len(msgs) == 1
    assert msgs[0].startswith("1000 Dask workers asked (--workers), capped to 2: 2 CPUs available")
    assert _caps(parallel, 1000) == (2, [])  # warned once
    monkeypatch.setattr(parallel, "_cpus", lambda: 64)
    monkeypatch.setattr(memory, "available_bytes", lambda: 3 * parallel.WORKER_BYTES + 1)
    cap, msgs = _caps(parallel, 1000)
    assert cap == 3 and len(msgs) == 1 and "of memory available" in msgs[0]
    assert capsys.readouterr().err == ""  # a warning, not a print


def test_run_tasks_with_many_workers_is_capped_and_gives_the_same_results(monkeypatch, capsys):
    import distributed

    from dptheory.evaluate import parallel

    monkeypatch.setattr(parallel, "_cpus", lambda: 1)  # first: the old module has no _cpus (fails before any start)
    monkeypatch.setattr(parallel, "_WARNED", set())

    def no_cluster(*a, **k):
        raise AssertionError("a Dask cluster was started")

    monkeypatch.setattr(distributed, "LocalCluster", no_cluster)
    tasks = list(range(10))
    with pytest.warns(DPTheoryWarning, match="capped to 1"):
        assert parallel.run_tasks(_square, tasks, workers=1000) == [t * t for t in tasks]


def test_check_with_1000_workers_warns_and_caps(monkeypatch, capsys):
    import distributed

    from dptheory.evaluate import parallel

    monkeypatch.setattr(parallel, "_cpus", lambda: 1)
    monkeypatch.setattr(parallel, "_WARNED", set())

    def no_cluster(*a, **k):
        raise AssertionError("a Dask cluster was started")

    monkeypatch.setattr(distributed, "LocalCluster", no_cluster)
    rc = main(["check", "--claim", "dr18.C1", "--workers", "1000", "--examples", "5", "--no-progress"])
    out, err = capsys.readouterr()
    assert rc == 0 and "1 claim: " in out
    assert "dptheory: warning: 1000 Dask workers asked (--workers), capped to 1" in err


def _square(x):
    return x * x
