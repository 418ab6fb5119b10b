"""docs/your_own_theorem.md followed literally, in a folder of its own: the file it shows is written as shown, and
every command it shows runs there (``dptheory`` in-process, ``pytest --dptheory`` as a subprocess); the value is
checked against the theorem computed apart, and nothing outside the folder is touched."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest

from dptheory.cli import main

DOC = Path(__file__).parents[1] / "docs" / "your_own_theorem.md"
TEXT = DOC.read_text(encoding="utf-8")
FILES = dict(re.findall(r"```toml\n# file: (\S+)\n(.*?)```", TEXT, re.S))
COMMANDS = re.findall(r"^\$ (.+)$", TEXT, re.M)


def test_the_tutorial_is_one_file_and_its_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert list(FILES) == ["fmtt18.toml"]  # one file
    assert [c.split()[0] for c in COMMANDS] == ["dptheory"] * 4 + ["pytest"]
    monkeypatch.chdir(tmp_path)
    for name, text in FILES.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    for command in COMMANDS:
        argv = shlex.split(command)
        if argv[0] == "pytest":
            run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *argv[1:]],
                                 cwd=tmp_path, capture_output=True, text=True, timeout=600)
            assert run.returncode == 0, run.stdout + run.stderr
            assert "3 passed" in run.stdout  # the contract, the known value, the claim
            continue
        assert main(argv[1:]) == 0, (command, capsys.readouterr().err)
        out = capsys.readouterr().out
        if argv[1] == "eval":
            # Theorem 23 computed apart: 2 alpha L^2 / (sigma^2 (n - t + 1)) at alpha=2, L=1, sigma=4, n=1000, t=1
            p = dict(a.split("=") for a in argv if "=" in a)
            want = 2 * Fraction(p["alpha"]) * Fraction(p["L"]) ** 2 / (
                Fraction(p["sigma"]) ** 2 * (int(p["n"]) - int(p["t"]) + 1))
            assert main([*argv[1:], "--json"]) == 0
            value = json.loads(capsys.readouterr().out)["value"]
            with mpmath.workdps(60):
                got = mpmath.mpf(value)
                assert abs(got - mpmath.mpf(want.numerator) / want.denominator) <= mpmath.mpf(10) ** -48 * got
        if argv[1] == "check":
            assert "fmtt18.C1  certified" in out
    assert (tmp_path / "report" / "report.tex").is_file()
    tex = (tmp_path / "report" / "report.tex").read_text()
    assert "fmtt18.thm23" in tex and "dptheory report -{}-paper fmtt18.toml" in tex
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fmtt18.toml", "report"]


def test_the_tutorial_condition_refuses_a_record_after_the_last_step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """What the tutorial says `eval` does at t=2000, n=1000: exit 1 naming the condition."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "fmtt18.toml").write_text(FILES["fmtt18.toml"], encoding="utf-8")
    assert "`t=2000 n=1000` exits 1 naming `t <= n`" in TEXT
    code = main(["eval", "--paper", "fmtt18.toml", "fmtt18.thm23", "alpha=2", "L=1", "sigma=4", "n=1000", "t=2000"])
    assert code == 1 and "t <= n" in capsys.readouterr().err
