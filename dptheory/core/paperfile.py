"""A paper's citations and notation tables as data: the one loader of the TOML file next to its module.

A module that declares papers (:class:`~dptheory.core.citation.Paper`) or notation tables
(:class:`~dptheory.core.notation.NotationTable`) keeps them in a TOML file in its package
(``papers/<paper>/paper.toml``, ``privacy/rdp.toml``) and loads it once::

    _PAPERFILE = paperfile.load(__name__, "paper.toml")
    PAPER = _PAPERFILE.paper("yeshokri22")
    NOTATION = _PAPERFILE.notation("yeshokri22")

The format (``docs/adding_a_paper.md``, section 2)::

    [paper.yeshokri22]            # the table's name is the paper's key
    authors = "Jiayuan Ye and Reza Shokri"
    year = 2022
    title = "..."
    venue = "NeurIPS 2022"        # optional, like arxiv_id and arxiv_version
    arxiv_id = "2203.05363"

    [notation.yeshokri22]         # the table's name is its paper_key
    [[notation.yeshokri22.param]] # one per parameter, in order
    name = "alpha"
    latex = '\\alpha'             # a literal string keeps the backslash
    meaning = "Renyi order"
    domain = "positive"           # a value of Domain
    range = [1.0, 1e3]            # the sample range (lo, hi); ints stay ints, floats stay floats
    log = true                    # log-scale sampling
    unit = ""                     # optional

Reading never executes code (:mod:`tomllib`). Every problem (not TOML, a missing or unknown key, a wrong
type, an unknown domain, ``lo > hi``) raises a one-line :class:`~dptheory.core.errors.DPTheoryError` that
names the file, the table and the field, and says what is accepted.
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from dptheory.core.citation import Paper
from dptheory.core.errors import DPTheoryError
from dptheory.core.notation import Domain, NotationTable

# field -> (accepted Python types, what the message says is accepted, required)
_PAPER_FIELDS: dict[str, tuple[tuple[type, ...], str, bool]] = {
    "authors": ((str,), "a string", True),
    "year": ((int,), "an integer", True),
    "title": ((str,), "a string", True),
    "venue": ((str,), "a string", False),
    "arxiv_id": ((str,), "a string", False),
    "arxiv_version": ((int,), "an integer", False),
}
_PARAM_FIELDS: dict[str, tuple[tuple[type, ...], str, bool]] = {
    "name": ((str,), "a string", True),
    "latex": ((str,), "a string", True),
    "meaning": ((str,), "a string", True),
    "domain": ((str,), "one of " + ", ".join(repr(d.value) for d in Domain), True),
    "range": ((list,), "an array [lo, hi] of two numbers", True),
    "log": ((bool,), "true or false", True),
    "unit": ((str,), "a string", False),
}
_DOMAINS = {d.value: d for d in Domain}


@dataclass(frozen=True)
class PaperFile:
    """The papers and notation tables of one file, by key (built by :func:`load`)."""

    source: str
    papers: Mapping[str, Paper]
    notations: Mapping[str, NotationTable]

    def paper(self, key: str) -> Paper:
        """The paper declared as ``[paper.<key>]``."""
        if key not in self.papers:
            raise DPTheoryError(f"{self.source}: no [paper.{key}]; the file declares {_listed(self.papers)}")
        return self.papers[key]

    def notation(self, key: str) -> NotationTable:
        """The notation table declared as ``[notation.<key>]``."""
        if key not in self.notations:
            raise DPTheoryError(f"{self.source}: no [notation.{key}]; the file declares {_listed(self.notations)}")
        return self.notations[key]


def _listed(keys: Mapping[str, Any]) -> str:
    return ", ".join(sorted(keys)) or "none"


def load(module: str, filename: str) -> PaperFile:
    """Read ``filename`` in the package of ``module`` (a module's ``__name__``), and validate it.

    Read once per file: every module of a package that loads the same file shares one :class:`PaperFile`.
    """
    return _load_package_file(module.rpartition(".")[0] or module, filename)


@functools.cache
def _load_package_file(package: str, filename: str) -> PaperFile:
    source = f"{package.replace('.', '/')}/{filename}"
    try:
        text = resources.files(package).joinpath(filename).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DPTheoryError(f"cannot read {source}: {exc}") from None
    return parse(text, source=source)


def parse(text: str, *, source: str) -> PaperFile:
    """Validate the TOML ``text`` of a paper file (``source`` names it in messages) and build its objects."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise DPTheoryError(f"{source}: not valid TOML: {exc}") from None
    _fields(source, "the file", data, {"paper": ((dict,), "tables [paper.<key>]", False),
                                       "notation": ((dict,), "tables [notation.<key>]", False)})
    papers = {key: _paper(source, key, body) for key, body in data.get("paper", {}).items()}
    notations = {key: _notation(source, key, body) for key, body in data.get("notation", {}).items()}
    return PaperFile(source, papers, notations)


def _fields(source: str, where: str, table: Any, spec: Mapping[str, tuple[tuple[type, ...], str, bool]]) -> None:
    """Check that ``table`` is a table with exactly the keys of ``spec``, each of its accepted type."""
    if not isinstance(table, dict):
        raise DPTheoryError(f"{source}: {where} must be a table")
    for name in table:
        if name not in spec:
            raise DPTheoryError(f"{source}: {where}: unknown field {name!r}; accepted: {', '.join(spec)}")
    for name, (types, accepted, required) in spec.items():
        if name not in table:
            if required:
                raise DPTheoryError(f"{source}: {where}: missing field {name!r} ({accepted})")
            continue
        value = table[name]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            raise DPTheoryError(f"{source}: {where}: field {name!r} is {value!r}; accepted: {accepted}")


def _paper(source: str, key: str, body: Any) -> Paper:
    _fields(source, f"[paper.{key}]", body, _PAPER_FIELDS)
    return Paper(key=key, **body)


def _notation(source: str, key: str, body: Any) -> NotationTable:
    _fields(source, f"[notation.{key}]", body, {"param": ((list,), "an array of tables [[param]]", True)})
    rows: list[tuple[Any, ...]] = []
    for i, row in enumerate(body["param"]):
        where = f"[[notation.{key}.param]] number {i + 1}"
        _fields(source, where, row, _PARAM_FIELDS)
        where = f"{where} ({row['name']})"
        if row["domain"] not in _DOMAINS:
            raise DPTheoryError(f"{source}: {where}: field 'domain' is {row['domain']!r}; accepted: "
                                f"{_PARAM_FIELDS['domain'][1]}")
        bounds = row["range"]
        if len(bounds) != 2 or not all(isinstance(b, int | float) and not isinstance(b, bool) for b in bounds):
            raise DPTheoryError(f"{source}: {where}: field 'range' is {bounds!r}; accepted: "
                                f"{_PARAM_FIELDS['range'][1]}")
        lo, hi = bounds
        if lo > hi:
            raise DPTheoryError(f"{source}: {where}: field 'range' is {bounds!r}; accepted: lo <= hi")
        if any(r[0] == row["name"] for r in rows):
            raise DPTheoryError(f"{source}: {where}: field 'name' repeats {row['name']!r}; accepted: distinct names")
        rows.append((row["name"], row["latex"], row["meaning"], _DOMAINS[row["domain"]], (lo, hi, row["log"]),
                     row.get("unit", "")))
    return NotationTable.build(key, rows)
