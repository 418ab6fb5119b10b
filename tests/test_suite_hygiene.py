"""The suite's own machinery (conftest.py): the heavy tests are scheduled first, and a run's private folders (the
statement cache, the subprocesses' bytecode) exist while it runs and are gone when it ends."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def test_heavy_tests_are_scheduled_first(request: pytest.FixtureRequest) -> None:
    heavy = [item.get_closest_marker("heavy") is not None for item in request.session.items]
    if not any(heavy):
        pytest.skip("no test marked heavy was selected")
    first_light = heavy.index(False) if False in heavy else len(heavy)
    assert not any(heavy[first_light:]), "a heavy test is collected after a light one"


INNER = '''
import json, os, subprocess, sys

def test_records_the_folders():
    env = {k: os.environ.get(k) for k in ("DPTHEORY_CACHE_DIR", "PYTHONPYCACHEPREFIX", "PYTHONDONTWRITEBYTECODE")}
    env["exists"] = [os.path.isdir(env[k]) for k in ("DPTHEORY_CACHE_DIR", "PYTHONPYCACHEPREFIX")]
    # a subprocess writes its bytecode to the private folder
    subprocess.run([sys.executable, "-c", "import inner_helper"], check=True, env=os.environ,
                   cwd=os.path.dirname(__file__))
    env["bytecode"] = sorted(os.listdir(os.environ["PYTHONPYCACHEPREFIX"]))
    with open(os.environ["RECORD_FILE"], "w") as fh:
        json.dump(env, fh)
'''


def test_a_run_leaves_no_folder_in_the_temporary_directory(tmp_path: Path) -> None:
    tests, tmp = tmp_path / "tests", tmp_path / "tmp"
    tests.mkdir()
    tmp.mkdir()
    (tests / "test_inner.py").write_text(INNER)
    (tests / "inner_helper.py").write_text("X = 1\n")
    record = tmp_path / "record.json"
    env = {k: v for k, v in os.environ.items()
           if k not in ("DPTHEORY_CACHE_DIR", "PYTHONPYCACHEPREFIX", "DPTHEORY_TEST_PYCACHE")}
    env.update(TMPDIR=str(tmp), PYTHONDONTWRITEBYTECODE="1", RECORD_FILE=str(record),
               PYTHONPATH=os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    # the repository's conftest as a plugin, on a test folder of its own (no xdist: the run is the worker)
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "conftest", "-p", "no:cacheprovider", "-p", "no:xdist",
                          "-q", "-o", "addopts=", "--rootdir", str(tests), str(tests)],
                         cwd=tests, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    seen = json.loads(record.read_text())
    assert seen["exists"] == [True, True] and seen["PYTHONDONTWRITEBYTECODE"] is None, seen
    assert all(str(seen[k]).startswith(str(tmp)) for k in ("DPTHEORY_CACHE_DIR", "PYTHONPYCACHEPREFIX")), seen
    assert seen["bytecode"], "the subprocess wrote no bytecode to the private folder"
    assert not list(tmp.iterdir()), f"left in the temporary directory: {sorted(p.name for p in tmp.iterdir())}"
    assert not (tests / "__pycache__").exists()
