"""``dptheory new KEY``: the scaffold of a paper package of one's own, found by discovery (``DPTHEORY_PATH``, as an
installed entry point would be) and checked by ``pytest`` in its folder; the refusals are one line each."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from dptheory.cli import main


@pytest.mark.heavy
def test_the_scaffold_is_a_package_pytest_checks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["new", "fmtt99"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("wrote 6 files in fmtt99/: pyproject.toml, fmtt99/__init__.py, fmtt99/paper.toml")
    root = tmp_path / "fmtt99"
    project = tomllib.loads((root / "pyproject.toml").read_text())
    assert project["project"]["entry-points"]["dptheory.papers"] == {"fmtt99": "fmtt99"}
    assert project["tool"]["pytest"]["ini_options"]["addopts"] == "--dptheory fmtt99"
    assert "my26" not in (root / "fmtt99" / "paper.toml").read_text()
    env = {**os.environ, "DPTHEORY_PATH": str(root)}
    listed = subprocess.run([sys.executable, "-m", "dptheory", "list", "fmtt99"], cwd=root, env=env,
                            capture_output=True, text=True, timeout=300)
    assert listed.returncode == 0 and "fmtt99.thm1" in listed.stdout, listed.stderr
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q"], cwd=root, env=env,
                         capture_output=True, text=True, timeout=600)
    # its own test, and per theorem a contract and a known value, and the claim
    assert run.returncode == 0 and "6 passed" in run.stdout, run.stdout + run.stderr


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["new", "Fmtt"], "new: the key 'Fmtt' is not a lowercase Python identifier"),
        (["new", "class"], "new: the key 'class' is not a lowercase Python identifier"),
        (["new", "lz26"], "new: 'lz26' is the key of a shipped paper"),
        (["new", "json"], "new: 'json' is already an importable module here"),
        (["new", "ok27", "--dir", "full"], "new: full exists and is not an empty folder"),
        (["new", "ok27", "--dir", "absent/ok27"], "new: the folder absent does not exist"),
    ],
)
def test_a_bad_key_or_folder_is_one_line(argv: list[str], message: str, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full"]  # nothing else written
