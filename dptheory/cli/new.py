"""``dptheory new KEY [--dir DIR]``: an installable paper package of your own, ready for ``pip install -e``.

The scaffold (written whole or not at all: built in a temporary folder beside ``DIR``, then renamed into place)::

    DIR/                      (default: ./KEY)
      pyproject.toml          the distribution dptheory-KEY; entry point dptheory.papers: KEY = "KEY" (discovery);
                              pytest's addopts run the paper's checks (--dptheory KEY)
      KEY, the package:
        __init__.py           the paper's one-line description
        paper.toml            paper, notation, theorems, known values and claims as data (docs/adding_a_paper.md)
        theorems.py           registers the file's theorems
        claims.py             registers the file's claims
      tests/test_<key>.py     a test of your own beside the generated ones (the Python API on a known value)

``paper.toml`` starts as the example ``dptheory/examples/my26.toml`` with its key replaced (two theorems, two known
values, a certified claim): edit it into your paper. After ``pip install -e DIR`` (or with ``DPTHEORY_PATH=DIR``,
without installing), ``dptheory list KEY`` finds it and ``pytest`` in ``DIR`` checks it.
"""

from __future__ import annotations

import argparse
import keyword
import os
import re
from importlib import resources
from pathlib import Path

from dptheory.core.errors import DPTheoryError, OutputPathError

__all__ = ["KEY_PATTERN", "cmd_new", "scaffold"]

#: a paper key: a lowercase Python identifier (it is the package's name), e.g. fmtt18
KEY_PATTERN = re.compile(r"[a-z][a-z0-9_]{0,39}")
EXAMPLE_KEY = "my26"

PYPROJECT = '''[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "dptheory-{key}"
version = "0.1.0"
description = "{key}: a paper's theorems and claims, checked by dptheory"
requires-python = ">=3.11"
dependencies = ["dptheory"]

# dptheory finds the paper through this entry point once the package is installed (pip install -e .)
[project.entry-points."dptheory.papers"]
{key} = "{key}"

[tool.setuptools]
packages = ["{key}"]

[tool.setuptools.package-data]
{key} = ["paper.toml"]

# `pytest` checks the paper: one test per theorem contract, per known value and per claim (dptheory's plugin)
[tool.pytest.ini_options]
addopts = "--dptheory {key}"
'''

THEOREMS = '''"""Registers the theorems declared in paper.toml (format: dptheory's docs/adding_a_paper.md)."""

from dptheory.core import REGISTRY, paperfile

THEOREMS = {{t.key: REGISTRY.add(t) for t in paperfile.load(__name__, "paper.toml").theorems()}}
'''

CLAIMS = '''"""Registers the claims declared in paper.toml, once the theorems they compare are registered."""

from dptheory.core import REGISTRY, paperfile
from dptheory.verify.sides import side_at_pin

from {key} import theorems  # noqa: F401  (the theorems the claims compare)

CLAIMS = [REGISTRY.add(c) for c in paperfile.load(__name__, "paper.toml").claims(side_at_pin=side_at_pin)]
'''

TEST = '''"""A test of your own, beside the ones `pytest --dptheory {key}` generates (pyproject.toml's addopts)."""

from fractions import Fraction

import dptheory


def test_thm1_at_a_point_computed_by_hand():
    value = dptheory.get("{key}.thm1").value({{"alpha": 10, "z": 2, "T": 3}})
    assert value == Fraction(3 * 10, 2 * 2**2)  # T alpha / (2 z^2), exact: the printed digits are correct digits
'''


def _check_key(key: str) -> None:
    from dptheory.core.registry import REGISTRY

    if not KEY_PATTERN.fullmatch(key) or keyword.iskeyword(key):
        raise DPTheoryError(f"new: the key {key!r} is not a lowercase Python identifier (it names the package); "
                            "accepted: a letter then letters, digits or _, at most 40, e.g. fmtt18")
    taken = {k.split(".")[0] for k in REGISTRY.index_keys()}
    if key in taken:
        raise DPTheoryError(f"new: {key!r} is the key of a shipped paper; choose a key of your own paper")
    import importlib.util

    if importlib.util.find_spec(key) is not None:
        raise DPTheoryError(f"new: {key!r} is already an importable module here; choose another key")


def scaffold(key: str, folder: str | os.PathLike[str] | None = None) -> list[Path]:
    """Write the package of paper ``key`` into ``folder`` (default ``./key``; it must not exist or be empty) and
    return the files written. Raises :class:`~dptheory.core.errors.DPTheoryError` (a bad key) or
    :class:`~dptheory.core.errors.OutputPathError` (the folder), one line each."""
    from dptheory.core.io import raise_dropped_interrupt, temporary_folder

    _check_key(key)
    target = Path(folder if folder is not None else key)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise OutputPathError(f"new: {target} exists and is not an empty folder; give --dir a new folder")
    parent = target.resolve().parent
    if not parent.is_dir():
        raise OutputPathError(f"new: the folder {target.parent} does not exist")
    example = resources.files("dptheory").joinpath("examples", f"{EXAMPLE_KEY}.toml").read_text(encoding="utf-8")
    body = "\n".join(line for line in example.splitlines() if not line.startswith("#   ")) + "\n"
    spec = body.replace(EXAMPLE_KEY, key).replace(
        "outside any package", f"in the package {key} (dptheory new)", 1)
    files = {
        "pyproject.toml": PYPROJECT.format(key=key),
        f"{key}/__init__.py": f'"""{key}: a paper of my own, checked by dptheory (edit paper.toml)."""\n',
        f"{key}/paper.toml": spec,
        f"{key}/theorems.py": THEOREMS.format(key=key),
        f"{key}/claims.py": CLAIMS.format(key=key),
        f"tests/test_{key}.py": TEST.format(key=key),
    }
    with temporary_folder(f".{target.name}.", parent) as tmp:
        for name, text in files.items():
            path = tmp / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        os.chmod(tmp, 0o777 & ~_umask())
        raise_dropped_interrupt()  # as before every output put in place (dptheory.core.io.INTERRUPTS)
        if target.exists():
            target.rmdir()  # empty: checked above
        os.replace(tmp, target)
    return [target / name for name in files]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def cmd_new(args: argparse.Namespace) -> int:
    written = scaffold(args.key, args.dir)
    root = written[0].parent
    print(f"wrote {len(written)} files in {root}/: {', '.join(str(p.relative_to(root)) for p in written)}")
    print(f"  next: pip install -e {root}  (or DPTHEORY_PATH={root} without installing), then "
          f"`dptheory list {args.key}`, and `pytest` in {root}")
    return 0
