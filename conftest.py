"""Shared pytest configuration: the slow marker, mpmath precision hygiene, a statement cache of the run's own."""

from __future__ import annotations

import os
import tempfile

import mpmath
import pytest


def pytest_configure(config: pytest.Config) -> None:
    """The statement cache (:mod:`dptheory.core.snapshot`) of a test run is a fresh private folder, shared by the
    run's workers and subprocesses (they inherit the variable), never the user's own cache. Where the environment
    forbids writing bytecode (``PYTHONDONTWRITEBYTECODE``), the run's subprocesses (``python -m dptheory ...``) write
    it to a private folder instead of compiling the package's source anew each time, as an installed package has it
    (the repository gets no ``__pycache__``)."""
    if not os.environ.get("DPTHEORY_CACHE_DIR"):
        os.environ["DPTHEORY_CACHE_DIR"] = tempfile.mkdtemp(prefix="dptheory-test-cache-")
    if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) and not os.environ.get("PYTHONPYCACHEPREFIX"):
        os.environ["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="dptheory-test-pycache-")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-slow", action="store_true", default=False, help="also run tests marked slow")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
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
    what was traced when it started (tracemalloc sees numpy's buffers): the memory estimates are held against it."""
    import tracemalloc

    def run(fn):
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
