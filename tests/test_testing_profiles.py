"""Where hypothesis keeps its files: never the user's working directory (issue 12, item 3).

Hypothesis writes ``.hypothesis/`` into the current directory: its example database and (hypothesis
>= 6.13x) a cache of the constants it collects from local source files, the latter even with
``database=None``. ``dptheory check`` ran property searches and left that folder behind.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from dptheory.testing import profiles

ROOT = Path(__file__).resolve().parents[1]


def test_dptheory_check_leaves_no_hypothesis_folder(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    cache = tmp_path / "cache"
    env = {k: v for k, v in os.environ.items() if k not in (profiles.STORAGE_ENV, "HYPOTHESIS_PROFILE")}
    env.update(XDG_CACHE_HOME=str(cache), PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, "-m", "dptheory", "check", "--claim", "maxinfo.route_superlinear_regime", "--examples", "5",
         "--no-progress"],
        cwd=work, env=env, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    assert list(work.iterdir()) == []  # no .hypothesis/ in the working directory
    # the counterexample search draws its own points (verify.space) and never imports hypothesis, so a check
    # writes no hypothesis database anywhere (tests/test_verify_layout.py checks the import itself)
    assert not (cache / "dptheory" / "hypothesis").exists()


def test_storage_dir_honours_hypothesis_variable_and_falls_back(tmp_path, monkeypatch):
    monkeypatch.setenv(profiles.STORAGE_ENV, str(tmp_path / "h"))
    assert profiles.storage_dir() == tmp_path / "h" and (tmp_path / "h").is_dir()
    monkeypatch.delenv(profiles.STORAGE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "c"))
    assert profiles.storage_dir() == tmp_path / "c" / "dptheory" / "hypothesis"
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        monkeypatch.setenv("XDG_CACHE_HOME", str(ro))
        d = profiles.storage_dir()
        if os.access(ro, os.W_OK):  # running as root: permissions do not bind
            assert d == ro / "dptheory" / "hypothesis"
        else:
            assert not str(d).startswith(str(ro)) and os.access(d, os.W_OK)
    finally:
        ro.chmod(0o700)


def test_the_test_suite_does_not_write_into_the_repository():
    from hypothesis import configuration

    home = configuration.storage_directory("examples", intent_to_write=False).path
    assert ROOT not in home.parents and Path.cwd() not in home.parents
