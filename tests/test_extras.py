"""A missing extra (or a lazily imported dependency) is one line naming what to install, never an internal error.

The table of :mod:`dptheory.core.extras` is checked against ``pyproject.toml``, and the CLI is run in a
subprocess in which the extra's module cannot be imported (``sys.modules[name] = None`` makes ``import name``
raise ``ModuleNotFoundError`` as a missing package does).
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from dptheory.core.errors import DPTheoryError, MissingOptionalDependency
from dptheory.core.extras import CORE_LAZY, EXTRA_OF, install_hint, require

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _dist(requirement: str) -> str:
    return re.split(r"[\[<>=!~ ;]", requirement, maxsplit=1)[0].lower()


@pytest.mark.parametrize("module", sorted(EXTRA_OF))
def test_extra_table_matches_pyproject(module):
    extra, dist = EXTRA_OF[module]
    listed = {_dist(r) for r in PROJECT["optional-dependencies"][extra]}
    assert dist.lower() in listed, f"{dist} is not in the [{extra}] extra of pyproject.toml"


@pytest.mark.parametrize("module", sorted(CORE_LAZY))
def test_lazy_core_modules_are_runtime_dependencies(module):
    assert CORE_LAZY[module].lower() in {_dist(r) for r in PROJECT["dependencies"]}


def test_require_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(MissingOptionalDependency, match=r"pip install 'dptheory\[dask\]'") as err:
        require("distributed", feature="--workers")
    assert isinstance(err.value, DPTheoryError) and isinstance(err.value, ImportError)
    assert install_hint("not_a_module_of_ours") is None


def _cli_without(modules: list[str], argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    code = ("import sys\n"
            f"for m in {modules!r}: sys.modules[m] = None\n"
            "from dptheory.cli import main\n"
            f"sys.exit(main({argv!r}))\n")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=cwd)


@pytest.mark.parametrize(("modules", "argv", "hint"), [
    (["distributed"], ["check", "--claim", "yeshokri22.C10", "--workers", "2", "--no-progress"], "dptheory[dask]"),
    (["panel"], ["explore", "--port", "0", "--no-browser"], "dptheory[explore]"),
    (["flint"], ["eval", "rdp.gaussian", "alpha=2", "z=1", "T=1", "--certify"], "python-flint"),
])
def test_cli_names_the_missing_package(modules, argv, hint, tmp_path):
    proc = _cli_without(modules, argv, tmp_path)
    err = proc.stderr.strip()
    assert proc.returncode == 1, err
    assert len(err.splitlines()) == 1 and hint in err, err
    assert "internal error" not in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_readme_extras_table_is_the_table():
    readme = (ROOT / "README.md").read_text()
    table = readme.split("<!-- extras:begin -->", 1)[1].split("<!-- extras:end -->", 1)[0]
    rows = [line for line in table.strip().splitlines()[2:]]
    documented = {}
    for row in rows:
        extra, _, modules = (c.strip() for c in row.strip("|").split("|"))
        documented[extra.strip("`")] = {m.strip(" `") for m in modules.split(",")}
    expected: dict[str, set[str]] = {}
    for module, (extra, _) in EXTRA_OF.items():
        expected.setdefault(extra, set()).add(module)
    assert documented == expected
    runtime_extras = set(PROJECT["optional-dependencies"]) - {"dev", "test", "bench"}
    assert set(documented) == runtime_extras, "every runtime extra of pyproject.toml is in the README table"
