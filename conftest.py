"""Shared pytest configuration: the slow marker, mpmath precision hygiene, a statement cache of the run's own."""

from __future__ import annotations

import gc
import os
import shutil
import tempfile

import mpmath
import pytest

# The tests allocate sympy and mpmath objects by the million, most short-lived: Python's default young-generation
# threshold (700 allocations) ran about 3,000 collections in a 100-second slice of the suite (tests/test_compile.py and
# checks/test_plugin_items.py, one process): 4.6-5.0 s of garbage collection, 1.7-2.2 s with 20,000 (measured with
# gc.callbacks). Each process that runs tests (every xdist worker) reads this file; subprocesses keep the default.
gc.set_threshold(20_000, 10, 10)

#: where the run's subprocesses keep their bytecode (see pytest_configure); inherited by xdist's workers
PYCACHE_ENV = "DPTHEORY_TEST_PYCACHE"
# the folders this process made, by run (removed in pytest_unconfigure)
_MADE: dict[pytest.Config, list[tuple[str, str]]] = {}


def pytest_configure(config: pytest.Config) -> None:
    """The statement cache (:mod:`dptheory.core.snapshot`) of a test run is a fresh private folder, shared by the
    run's workers and subprocesses (they inherit the variable), never the user's own cache.

    Where the environment forbids writing bytecode (``PYTHONDONTWRITEBYTECODE``), the run's subprocesses
    (``python -m dptheory ...``, ``python -m pytest ...``) write it to a private folder (``PYTHONPYCACHEPREFIX``)
    instead of compiling the package's source anew each time, as an installed package has it (the repository gets
    no ``__pycache__``). Only the subprocesses: the variables are set in each process that runs tests
    (:func:`_subprocess_bytecode`), not before xdist starts its workers, since an interpreter started with a prefix
    reads no bytecode outside it and would compile every installed package it imports (sympy, scipy, ...) anew:
    about 8 s more per worker at start, measured.

    The process that made a folder removes it when the run ends (:func:`pytest_unconfigure`); workers inherit the
    variables and make none."""
    made = _MADE.setdefault(config, [])
    if not os.environ.get("DPTHEORY_CACHE_DIR"):
        os.environ["DPTHEORY_CACHE_DIR"] = tempfile.mkdtemp(prefix="dptheory-test-cache-")
        made.append(("DPTHEORY_CACHE_DIR", os.environ["DPTHEORY_CACHE_DIR"]))
    if (os.environ.get("PYTHONDONTWRITEBYTECODE") and not os.environ.get("PYTHONPYCACHEPREFIX")
            and not os.environ.get(PYCACHE_ENV)):
        os.environ[PYCACHE_ENV] = tempfile.mkdtemp(prefix="dptheory-test-pycache-")
        made.append((PYCACHE_ENV, os.environ[PYCACHE_ENV]))


@pytest.fixture(scope="session", autouse=True)
def _subprocess_bytecode():
    """In the process that runs the tests (a worker, or the run itself without xdist): its subprocesses write
    bytecode to the run's private folder (see :func:`pytest_configure`); restored afterwards."""
    folder = os.environ.get(PYCACHE_ENV)
    if not folder:
        yield
        return
    saved = {k: os.environ.get(k) for k in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = folder
    yield
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def pytest_unconfigure(config: pytest.Config) -> None:
    """The run's private folders are removed, and the variables naming them with them: a test run leaves nothing in
    the temporary directory."""
    for var, path in _MADE.pop(config, []):
        if os.environ.get(var) == path:
            os.environ.pop(var)
        shutil.rmtree(path, ignore_errors=True)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-slow", action="store_true", default=False, help="also run tests marked slow")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked ``heavy`` run first (a stable sort: the rest keep their order): xdist hands out the remaining
    tests as workers become free, so a long test started late would leave the other worker idle at the end (the
    two heaviest sat in the last files collected). Tests marked ``slow`` are skipped unless ``--run-slow``."""
    items[:] = sorted(items, key=lambda item: item.get_closest_marker("heavy") is None)
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason="slow: run with `pytest --run-slow`")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _restore_mpmath_precision():
    """Library code never changes global precision; this catches (and undoes) any test that does."""
    prec = mpmath.mp.prec
    yield
    changed = mpmath.mp.prec != prec
    mpmath.mp.prec = prec
    assert not changed, "a test (or the code it called) changed mpmath's global precision"


@pytest.fixture
def traced_peak():
    """``traced_peak(fn) -> (fn(), peak bytes)``: the peak of the memory tracemalloc traced while ``fn`` ran, above
    what was traced when it started (tracemalloc sees numpy's buffers): the memory estimates are held against it.

    ``fn`` runs once untraced first: a first call in a process also allocates what stays for good (modules it imports,
    caches), which depends on what ran before it in that process, not on the call. Measured cold, the maxinfo audit of
    ``tests/test_workloads_papers.py`` peaked at 58.9 MB against 35.3 MB warm when its file ran alone (it failed), and
    the trainer of ``tests/test_workloads.py`` 275 KB higher on its first call than on the 59 after it."""
    import tracemalloc

    def run(fn):
        fn()
        tracemalloc.start()
        try:
            base = tracemalloc.get_traced_memory()[0]
            out = fn()
            return out, tracemalloc.get_traced_memory()[1] - base
        finally:
            tracemalloc.stop()

    return run


from dptheory.testing import profiles as _profiles  # noqa: E402

_profiles.load()
