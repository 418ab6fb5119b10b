"""What a paper package keeps next to its code for the registry-wide tests, found from the registry.

A paper's obligations live in its own folder (``dptheory/papers/<key>/``, or a package found through
``DPTHEORY_PATH``), so that adding a paper touches no central file:

* ``known_values.csv``: independent values of its theorems (tests/test_known_values.py), written by the
  folder's ``known_values.py``, which imports nothing of dptheory (the generic ``rdp.*`` family's are in
  ``dptheory/privacy/``, next to the modules that register it: :func:`known_value_files`);
* ``sentences.toml``: the papers' sentences its claims encode, typed from the papers, and the claims that are
  ours (tests/test_claim_table.py).

For the sentences, a folder is a paper's when a module in it registered a theorem or a claim (``REGISTRY.origin``)
and that module is not one of dptheory's layers (``dptheory.privacy`` declares the generic ``rdp.*`` family itself).
"""

from __future__ import annotations

import sys
from pathlib import Path

import dptheory  # noqa: F401  (registers the papers)
from dptheory.core.registry import REGISTRY
from dptheory.pytest_plugin import origin_folders


def paper_folders() -> dict[str, Path]:
    """Each paper package's folder, by package name (``dptheory.papers.yeshokri22``, ``toy26``)."""
    out: dict[str, Path] = {}
    for obj in [*REGISTRY.theorems(), *REGISTRY.claims()]:
        mod = REGISTRY.origin(obj.key)
        if not mod or (mod.startswith("dptheory.") and not mod.startswith("dptheory.papers.")):
            continue
        path = Path(sys.modules[mod].__file__ or "").parent
        out[mod.rsplit(".", 1)[0]] = path
    return dict(sorted(out.items()))


def paper_files(name: str) -> list[Path]:
    """The paper folders' files called ``name`` (each folder at most one), in package order."""
    return [p / name for p in paper_folders().values() if (p / name).is_file()]


def known_value_files() -> list[Path]:
    """The ``known_values.csv`` next to every module that registered a theorem (papers and the generic layers alike:
    the folders ``pytest --dptheory PREFIX`` reads, :func:`dptheory.pytest_plugin.origin_folders`), in path order."""
    return [p / "known_values.csv" for p in origin_folders(REGISTRY.theorems()) if (p / "known_values.csv").is_file()]
