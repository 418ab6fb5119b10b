"""The README is executable: its set-up commands, its tour and its Python example are run here."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from dptheory.cli import main
from dptheory.docs_gen import LAYOUT_BEGIN, LAYOUT_END, layout_markdown, render, summary_line

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
CONSOLE = re.findall(r"```console\n(.*?)```", README, flags=re.S)
TOUR = [line[2:] for block in CONSOLE for line in block.splitlines() if line.startswith("$ dptheory ")]
PYTHON = re.findall(r"```python\n(.*?)```", README, flags=re.S)


def test_setup_commands_are_the_two_documented_ones():
    blocks = [b.strip() for b in CONSOLE if not b.lstrip().startswith("$")]
    assert blocks[0] == "pip install -e '.[dev]' && dptheory check"
    assert blocks[1] == "pytest"
    ci = (ROOT / ".ci" / "run").read_text()
    assert "pip install -e '.[dev]'" in ci and re.search(r"^pytest\s*$", ci, flags=re.M)


def test_registry_tables_are_current():
    assert render(README) == README, "README tables are stale: run `python -m dptheory.docs_gen`"


def test_layout_is_generated_and_lists_every_folder_of_the_package():
    """README "Layout and conventions": one line per subpackage (its docstring's first line), between the markers."""
    assert LAYOUT_BEGIN in README and LAYOUT_END in README, "README.md has no layout markers"
    block = README.split(LAYOUT_BEGIN, 1)[1].split(LAYOUT_END, 1)[0].strip()
    assert block == layout_markdown(), "README layout is stale: run `python -m dptheory.docs_gen`"
    listed = re.findall(r"^- `dptheory/(\w+)/`: (.+)$", block, flags=re.M)
    folders = sorted(p.parent.name for p in (ROOT / "dptheory").glob("*/__init__.py"))
    assert [name for name, _ in listed] == folders
    for name, line in listed:
        doc = ((ROOT / "dptheory" / name / "__init__.py").read_text().split('"""')[1]).splitlines()[0]
        assert line == doc.replace("``", "`")


def test_a_package_without_a_docstring_is_refused(tmp_path):
    init = tmp_path / "__init__.py"
    init.write_text("x = 1\n")
    with pytest.raises(SystemExit, match="has no docstring"):
        summary_line(init)


@pytest.mark.parametrize("line", TOUR)
def test_tour_command(line, tmp_path, monkeypatch, capsys):
    # commands run from a scratch directory holding the repository files they name
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "example_params.toml").write_text((ROOT / "reports" / "example_params.toml").read_text())
    monkeypatch.chdir(tmp_path)
    expect = 1 if "# exits 1" in line else 0
    argv = shlex.split(line.split("#")[0])[1:]
    for arg in argv:  # a repository file the command reads (dptheory/examples/my26.toml)
        if "/" in arg and "=" not in arg and (ROOT / arg).is_file():
            (tmp_path / arg).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / arg).write_bytes((ROOT / arg).read_bytes())
    assert main(argv) == expect, capsys.readouterr().err
    for arg in argv:
        if arg.endswith((".png", ".csv")):
            assert (tmp_path / arg).stat().st_size > 0


@pytest.mark.parametrize("code", PYTHON)
def test_python_example(code, capsys):
    exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out
    for comment in re.findall(r"#\s*(.+)$", code, flags=re.M):
        assert comment.strip() in out


def _console_script() -> list[str]:
    exe = Path(sys.executable).with_name("dptheory")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "dptheory.cli"]


@pytest.mark.slow
def test_main_job_runs_as_written(tmp_path):
    """`dptheory check` (the README's main job) as an installed console script: every claim, about 90 s on 2
    loaded cores, so --run-slow; .ci/run runs the same command after the tests."""
    proc = subprocess.run([*_console_script(), "check", "--no-progress"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "claims:" in proc.stdout and "not falsified" in proc.stdout and "certified" in proc.stdout


def test_main_job_command_runs_as_an_installed_script(tmp_path):
    """The fast equivalent of the main job in the default run: the same console script and the same `check`
    summary, on two quick claims with different verdicts (an exhaustive and a proved one)."""
    proc = subprocess.run([*_console_script(), "check", "--no-progress", "--claim", "maxinfo.route_superlinear_holds",
                           "yeshokri22.C3b"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "2 claims: 1 proved, 0 certified, 1 exhaustive" in proc.stdout
    assert list(tmp_path.iterdir()) == [], "the main job left files in the working directory"


def test_registry_index_is_current():
    from dptheory.catalog import INDEX_PATH
    from dptheory.docs_gen import index_text

    stale = "dptheory/papers/index.json is stale: run `python -m dptheory.docs_gen`"
    assert INDEX_PATH.read_text() == index_text(), stale
