"""The pytest plugin: ``pytest --dptheory PAPER_OR_FILE`` checks a paper in the researcher's own repository.

Registered under pytest's ``pytest11`` entry point (``pyproject.toml``), so installing dptheory is enough: in any
repository, ``pytest --dptheory my26.toml`` (a paper file, docs/adding_a_paper.md) or ``pytest --dptheory lz26``
(an installed paper, by its key prefix) collects, besides the repository's own tests:

* one item per theorem, ``<target>::<key>::contract``: its contract at seeded valid points
  (:func:`dptheory.verify.contract.check_contract`: the conditions can hold, the value is finite, float64 agrees
  with mpmath to 1e-10 relative, monotone where stated, LaTeX renders);
* one item per claim, ``<target>::<key>::verdict``: :func:`dptheory.verify.checking.check_claim` must reach the
  verdict on record; otherwise the item fails with the paper's sentence, the verdict reached and the
  counterexample. ``--dptheory-fresh`` ignores pinned counterexamples (a falsified claim must be found again).

Without ``--dptheory`` the plugin adds its two options and nothing else (it imports no part of dptheory beyond
this module). A target that is neither a readable paper file nor a known prefix is a usage error naming it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

__all__ = ["objects_of", "pytest_addoption", "pytest_collection_modifyitems"]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dptheory", "dptheory: check a paper's theorems and claims")
    group.addoption("--dptheory", action="append", default=[], metavar="PAPER_OR_FILE",
                    help="check this paper file (a .toml of papers, notation, theorems and claims) or installed "
                    "paper (a key prefix such as lz26): one item per theorem contract and per claim (repeatable)")
    group.addoption("--dptheory-fresh", action="store_true",
                    help="with --dptheory: ignore pinned counterexamples (a falsified claim must be found again)")


class DPTheoryItem(pytest.Item):
    """One theorem's contract or one claim's verdict."""

    def __init__(self, *, obj: Any, what: str, fresh: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.obj, self.what, self.fresh = obj, what, fresh

    def runtest(self) -> None:
        if self.what == "contract":
            from dptheory.verify.contract import check_contract

            report = check_contract(self.obj)
            if not report.ok:
                raise DPTheoryFailure(f"{self.obj.key}: the contract fails at {len(report.points)} valid points:\n"
                                      + "\n".join(f"  - {f}" for f in report.failures))
            return
        from dptheory.cli.output import claim_result_lines
        from dptheory.verify.checking import check_claim

        claim = self.obj
        result = check_claim(claim, use_pinned=not self.fresh)
        if claim.verdict is not None and result.verdict != claim.verdict:
            lines = claim_result_lines(result, claim.title, len(claim.key))
            raise DPTheoryFailure(f"{claim.key}: expected {claim.verdict.value}, got {result.verdict.value}\n"
                                  f"  the paper: {claim.statement}\n" + "\n".join(lines))

    def repr_failure(self, excinfo: Any, style: Any = None) -> str:
        if isinstance(excinfo.value, DPTheoryFailure):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, None, f"{self.obj.key} ({self.what})"


class DPTheoryFailure(Exception):
    """A contract or a verdict that does not hold (reported as its message, without a traceback)."""


class _Target(pytest.Collector):
    """The theorems and claims of one ``--dptheory`` target."""

    def __init__(self, *, objects: list[Any], fresh: bool, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.objects, self.fresh = objects, fresh

    def collect(self) -> Iterator[pytest.Item]:
        for obj in self.objects:
            what = "contract" if getattr(obj, "KIND", "") == "theorem" else "verdict"
            yield DPTheoryItem.from_parent(self, name=f"{obj.key}::{what}", obj=obj, what=what, fresh=self.fresh)


def objects_of(target: str) -> list[Any]:
    """The theorems then the claims of a paper file (registered for the session) or of an installed paper."""
    from dptheory.catalog import load_paper_file
    from dptheory.core.errors import DPTheoryError
    from dptheory.core.registry import REGISTRY

    try:
        if Path(target).suffix == ".toml" or Path(target).is_file():
            keys = load_paper_file(target)
            objs = [REGISTRY.get(k) for k in keys]
        else:
            REGISTRY.discover()
            objs = REGISTRY.family(target)
            if not objs:
                prefixes = sorted({o.key.split(".")[0] for o in REGISTRY})
                raise pytest.UsageError(f"--dptheory {target}: not a paper file (.toml) nor a paper key prefix; "
                                        f"prefixes: {', '.join(prefixes)}")
    except DPTheoryError as exc:
        raise pytest.UsageError(f"--dptheory {target}: {exc}") from None
    return [o for o in objs if o.KIND == "theorem"] + [o for o in objs if o.KIND == "claim"]


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    targets = config.getoption("dptheory")
    if not targets:
        return
    fresh = bool(config.getoption("dptheory_fresh"))
    for target in targets:
        collector = _Target.from_parent(session, name=target, objects=objects_of(target), fresh=fresh)
        items.extend(collector.collect())
