"""Every data file the package reads ships with it.

A file under ``dptheory/`` that is not Python source must match a ``[tool.setuptools.package-data]`` glob in
``pyproject.toml``, or a non-editable install (``pip install .``, the wheel) silently lacks it: a missing
``report.toml`` once made ``dptheory explore`` crash and reports fall back to minimal settings on a bare
install, while the editable install used by the tests read the file from the checkout.
"""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "dptheory"
#: suffixes that are not package data: Python source, build products, the C extension's source (setup.py
#: compiles it; setuptools puts an extension's sources in the sdist itself)
NOT_DATA = {".py", ".pyc", ".so", ".pyd", ".c"}


def _globs() -> list[str]:
    with open(ROOT / "pyproject.toml", "rb") as fh:
        config = tomllib.load(fh)
    return list(config["tool"]["setuptools"]["package-data"]["dptheory"])


def _data_files() -> list[str]:
    return sorted(
        p.relative_to(PACKAGE).as_posix()
        for p in PACKAGE.rglob("*")
        if p.is_file() and p.suffix not in NOT_DATA and "__pycache__" not in p.parts
    )


def test_every_data_file_is_declared_package_data() -> None:
    globs = _globs()
    missing = [f for f in _data_files() if not any(fnmatch.fnmatchcase(f, g) for g in globs)]
    assert not missing, f"add to [tool.setuptools.package-data] in pyproject.toml: {missing}"


def test_the_files_a_run_reads_are_among_them() -> None:
    # the registry index and the report defaults are read at run time (catalog.INDEX_PATH, report.config)
    files = set(_data_files())
    assert "papers/index.json" in files
    assert {"papers/yeshokri22/report.toml", "papers/shi26/report.toml"} <= files


def test_every_glob_matches_a_file() -> None:
    # a glob that matches nothing is a stale declaration (a renamed or removed file)
    files = _data_files()
    stale = [g for g in _globs() if not any(fnmatch.fnmatchcase(f, g) for f in files)]
    assert not stale, f"package-data globs that match no file: {stale}"
