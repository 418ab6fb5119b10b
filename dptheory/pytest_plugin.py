"""The pytest plugin: ``pytest --dptheory PAPER_OR_FILE`` checks a paper in the researcher's own repository.

Registered under pytest's ``pytest11`` entry point (``pyproject.toml``), so installing dptheory is enough: in any
repository, ``pytest --dptheory my26.toml`` (a paper file, docs/adding_a_paper.md) or ``pytest --dptheory lz26``
(an installed paper, by its key prefix: a shipped one such as ``yeshokri22`` or ``rdp``, or one found through
``DPTHEORY_PATH``) collects, besides the repository's own tests:

* one item per theorem, ``<target>::<key>::contract``: its contract at seeded valid points
  (:func:`dptheory.verify.contract.check_contract`: the conditions can hold, the value is finite, float64 agrees
  with mpmath to 1e-10 relative, monotone where stated, LaTeX renders);
* one item per known value, ``<target>::<key>::known value <i>``: the theorem agrees with a value computed apart
  (:func:`dptheory.core.known_values.disagreement`; a paper file's ``[[known_value]]`` tables, or the
  ``known_values.csv`` next to the module that registered the theorem: every shipped paper's folder and
  ``dptheory/privacy/`` for the generic ``rdp.*`` family ship one, as package data), and one failing item
  ``<key>::known value`` for a theorem that has none (skipped, with the reason, for an installed paper whose package
  ships no known values at all);
* one item per claim, ``<target>::<key>::verdict``: :func:`dptheory.verify.checking.check_claim` must reach the
  verdict on record (and a falsified claim's map its edge points as it says: :mod:`dptheory.core.findings`);
  otherwise the item fails with the paper's sentence, the verdict reached and the counterexample.
  ``--dptheory-fresh`` ignores pinned counterexamples (a falsified claim must be found again).

The shipped suite runs the same items for the shipped papers (``checks/test_plugin_items.py``, which collects them
with :func:`items_of`). Without ``--dptheory`` the plugin adds its two options and nothing else (it imports no part
of dptheory beyond this module). A target that is neither a readable paper file nor a known prefix is a usage error
naming it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

__all__ = ["DPTheoryFailure", "Obligation", "items_of", "objects_of", "obligations", "origin_folders", "package_rows",
           "pytest_addoption", "pytest_collection_modifyitems"]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dptheory", "dptheory: check a paper's theorems and claims")
    group.addoption("--dptheory", action="append", default=[], metavar="PAPER_OR_FILE",
                    help="check this paper file (a .toml of papers, notation, theorems and claims) or installed "
                    "paper (a key prefix such as lz26): one item per theorem contract and per claim (repeatable)")
    group.addoption("--dptheory-fresh", action="store_true",
                    help="with --dptheory: ignore pinned counterexamples (a falsified claim must be found again)")


@dataclass(frozen=True)
class Obligation:
    """One check of a paper: a theorem's contract (``what = "contract"``), a known value (``"known value"``, ``row``
    None when the theorem has none) or a claim's verdict on record (``"verdict"``). :meth:`run` raises
    :class:`DPTheoryFailure` (a one-paragraph message) when it does not hold; the plugin's items and the shipped
    suite (``checks/test_plugin_items.py``) run the same objects."""

    name: str
    obj: Any
    what: str
    row: Any = None
    fresh: bool = False
    shipped_without_values: bool = False
    #: search size of a claim check (:func:`dptheory.verify.checking.check_claim`'s default unless given)
    examples: int | None = None

    def run(self) -> Any:
        """Check it; a verdict returns the :class:`~dptheory.verify.checking.ClaimResult` (the shipped suite asserts
        more of it), the others None."""
        if self.what == "known value":
            return self._known_value()
        if self.what == "contract":
            return self._contract()
        return self._verdict()

    def _known_value(self) -> None:
        from dptheory.core.known_values import disagreement

        if self.row is None and self.shipped_without_values:
            pytest.skip(f"{self.obj.key}: the paper's package ships no known values (no known_values.csv next "
                        "to the module that registered it, no [[known_value]] table in its paper.toml)")
        if self.row is None:
            raise DPTheoryFailure(f"{self.obj.key} has no known value: add one computed apart from the bound "
                                  "(a [[known_value]] table with its method and source, docs/adding_a_paper.md)")
        failure = disagreement(self.row, self.obj)
        if failure is not None:
            raise DPTheoryFailure(failure)

    def _contract(self) -> None:
        from dptheory.verify.contract import check_contract

        report = check_contract(self.obj)
        if not report.ok:
            raise DPTheoryFailure(f"{self.obj.key}: the contract fails at {len(report.points)} valid points:\n"
                                  + "\n".join(f"  - {f}" for f in report.failures))

    def _verdict(self) -> Any:
        from dptheory.cli.output import claim_result_lines
        from dptheory.verify.checking import check_claim

        claim = self.obj
        size: dict[str, Any] = {} if self.examples is None else {"examples": self.examples}
        result = check_claim(claim, use_pinned=not self.fresh, **size)
        if claim.verdict is not None and result.verdict != claim.verdict:
            lines = claim_result_lines(result, claim.title, len(claim.key))
            raise DPTheoryFailure(f"{claim.key}: expected {claim.verdict.value}, got {result.verdict.value}\n"
                                  f"  the paper: {claim.statement}\n" + "\n".join(lines))
        if not result.agrees:  # the verdict is on record; an edge point of the claim's map is not as it says
            lines = claim_result_lines(result, claim.title, len(claim.key))
            raise DPTheoryFailure(f"{claim.key}: {result.disagreement()}\n" + "\n".join(lines))
        return result


class DPTheoryItem(pytest.Item):
    """One :class:`Obligation` as a test item."""

    def __init__(self, *, obligation: Obligation, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.obligation = obligation

    def runtest(self) -> None:
        self.obligation.run()

    def repr_failure(self, excinfo: Any, style: Any = None) -> str:
        if isinstance(excinfo.value, DPTheoryFailure):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, None, f"{self.obligation.obj.key} ({self.obligation.what})"


class DPTheoryFailure(Exception):
    """A contract or a verdict that does not hold (reported as its message, without a traceback)."""


def obligations(objects: list[Any], rows: list[Any] | None, *, fresh: bool = False,
                examples: int | None = None) -> list[Obligation]:
    """The obligations of one target's theorems and claims, in the plugin's order: the contracts, the known values
    (``rows``: None when the package ships none, then each is a skip saying so), the verdicts."""
    theorems = [o for o in objects if o.KIND == "theorem"]
    out = [Obligation(f"{obj.key}::contract", obj, "contract") for obj in theorems]
    for obj in theorems:
        mine = [r for r in rows or [] if r["key"] == obj.key]
        for i, row in enumerate(mine or [None], start=1):
            name = f"{obj.key}::known value" + (f" {i}" if row is not None else "")
            out.append(Obligation(name, obj, "known value", row=row, shipped_without_values=rows is None))
    out += [Obligation(f"{obj.key}::verdict", obj, "verdict", fresh=fresh, examples=examples)
            for obj in objects if obj.KIND == "claim"]
    return out


class _Target(pytest.Collector):
    """The theorems and claims of one ``--dptheory`` target."""

    def __init__(self, *, objects: list[Any], rows: list[Any] | None, fresh: bool, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.objects, self.rows, self.fresh = objects, rows, fresh

    def collect(self) -> Iterator[pytest.Item]:
        for ob in obligations(self.objects, self.rows, fresh=self.fresh):
            yield DPTheoryItem.from_parent(self, name=ob.name, obligation=ob)


def origin_folders(objs: list[Any]) -> dict[Path, str]:
    """The folder of each module that registered one of ``objs`` (``REGISTRY.origin``), with that module's name (the
    last in sorted order when several modules of a folder did): where the objects' known values live."""
    import sys

    from dptheory.core.registry import REGISTRY

    modules = sorted({m for o in objs if (m := REGISTRY.origin(o.key))})
    folders = {Path(getattr(sys.modules.get(m), "__file__", "") or ".").parent: m for m in modules}
    return dict(sorted(folders.items()))


def package_rows(objs: list[Any]) -> list[Mapping[str, str]] | None:
    """The known-value rows shipped with the modules that registered ``objs``: each folder's ``known_values.csv``
    and the ``[[known_value]]`` tables of its ``paper.toml`` (a package made by ``dptheory new``); None when they
    ship none at all. Rows of other keys in the same files are included (the caller picks its keys)."""
    from dptheory.core import paperfile
    from dptheory.core.known_values import read_csv

    folders = origin_folders(objs)
    files = [folder / "known_values.csv" for folder in folders if (folder / "known_values.csv").is_file()]
    rows: list[Mapping[str, str]] = [r for f in files for r in read_csv(f, f"{f.parent.name}/known_values.csv")]
    rows += [r for folder, m in folders.items() if (folder / "paper.toml").is_file()
             for r in paperfile.load(m, "paper.toml").known_value_rows]
    return rows if files or rows else None


def objects_of(target: str) -> tuple[list[Any], list[Any] | None]:
    """The theorems and claims of a paper file (registered for the session) or of an installed paper, and their
    known-value rows (the file's ``[[known_value]]`` tables; :func:`package_rows` for an installed paper: None
    when its package ships none)."""
    from dptheory.catalog import load_paper_file
    from dptheory.core.errors import DPTheoryError
    from dptheory.core.registry import REGISTRY

    try:
        if Path(target).suffix == ".toml" or Path(target).is_file():
            loaded = load_paper_file(target)
            return [REGISTRY.get(k) for k in loaded.keys], loaded.known_values
        REGISTRY.discover()
        # a key without a dot (mcallester99) is its own prefix: the error below lists it as one
        objs = REGISTRY.family(target) or [o for o in REGISTRY if o.key == target]
        if not objs:
            prefixes = sorted({o.key.split(".")[0] for o in REGISTRY})
            raise pytest.UsageError(f"--dptheory {target}: not a paper file (.toml) nor a paper key prefix; "
                                    f"prefixes: {', '.join(prefixes)}")
        return objs, package_rows(objs)
    except (DPTheoryError, ValueError) as exc:
        raise pytest.UsageError(f"--dptheory {target}: {exc}") from None


def items_of(parent: pytest.Session | pytest.Collector, target: str, *, fresh: bool = False) -> list[pytest.Item]:
    """The items of one ``--dptheory`` target under ``parent`` (contracts, known values, verdicts)."""
    objects, rows = objects_of(target)
    collector = _Target.from_parent(parent, name=target, objects=objects, rows=rows, fresh=fresh)
    return list(collector.collect())


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    targets = config.getoption("dptheory")
    if not targets:
        return
    fresh = bool(config.getoption("dptheory_fresh"))
    for target in targets:
        items.extend(items_of(session, target, fresh=fresh))
