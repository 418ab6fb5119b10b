"""A paper's citations, notation tables and claims as data: the one loader of the TOML file next to its module.

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

A paper's claims (:class:`~dptheory.core.claims.Claim`) are ``[[claim]]`` tables of the same file, built by
:meth:`PaperFile.claims` once the theorems they compare are registered (the paper's ``claims`` module registers
them)::

    [[claim]]
    key = "toy26.C1"
    title = "..."
    citation = { paper = "toy26", item = "Section 2" }     # a [paper.*] of this file; eq, note optional
    statement = "..."
    reading = "..."
    lhs = { theorem = "toy26.thm1", label = "Thm 1", term = "rhs" }  # term, limit, set optional
    rhs = { constant = 2, label = "2" }                   # a number (inf for +infinity)
    relation = "<="                                       # a Relation value
    factor = 10.0                                         # optional: "same order" (lhs/rhs in [1/10, 10])
    verdict = "exhaustive"                                # a Verdict value; "falsified" when pins are given
    region = { description = "...", fixed = { T = 10 }, choices = { z = [1, 2] }, ranges = { n = [1, 100, true] } }
    symbolic = "claims.proof_c1"                          # optional: a function of the package (module.name)
    counterexamples = [{ alpha = 2, z = "0.5" }]          # pinned points (then the verdict is falsified)
    finding = { text = "... {lhs:.3f} at z = {z} ...", pins = [{ lhs = "lhs", z = "z" }] }
    tags = ["finding"]
    # a falsified claim: where it fails, with points across the edge of the failing part (dptheory.core.findings)
    failing = { fails_on = "z < 1", evidence = "...", edges = [{ fails = { z = "0.9" }, holds = { z = 1 } }] }
    # a claim stating where another (falsified) claim holds: same sides and relation, a narrower region
    companion_of = "toy26.C0"

A side's ``set`` gives derived parameters: an integer, or the dotted name ``module.NAME`` of a sympy expression in
the paper's package. A region's ``choices`` for a parameter is an array, or the dotted name of a list of values in the
package (``K = "claims.FIG1_K"``: a long range). ``region.certify`` is a :class:`~dptheory.core.claims.Box`
(``intervals``, ``integers``, ``log``, ``free``, ``max_boxes``). A finding is a plain string, or a template whose
fields are read at the pins (``pins[i]`` maps a field to ``"lhs"``/``"rhs"``, the side's value at the ``i``-th pin, or
to a pinned parameter) or computed by a function of the package (``values = "module.name"``, taking the claim). What
needs code (a proof, a sympy expression, a computed finding) or is too long to write (a list of values) is named,
never written, in the file: a name is resolved with :mod:`importlib` in the file's own package only (a function
must be defined there).

``[[run]]`` tables say how the file's theorems read a training run (``dptheory compare --run``; parsed by
:func:`dptheory.core.run.run_maps_from_tables`, format in ``docs/training_runs.md``).

The file's theorems (``[[theorem]]``, ``[symbols.<notation>]``, ``[define.<notation>]`` and ``[[known_value]]``
tables; ``docs/adding_a_paper.md``, section 2) are checked and built by :mod:`dptheory.core.paperfile_theorems`
(:func:`parse` and :meth:`PaperFile.theorems`, :meth:`PaperFile.names` call it). The fields of every table (the
``*_FIELDS`` specs), their checks, the form of every message and the resolution of names, which both modules use,
are :mod:`dptheory.core.paperfile_fields`.

Reading never executes code (:mod:`tomllib`). Every problem (not TOML, a missing or unknown key, a wrong
type, an unknown domain, ``lo > hi``, an unknown relation, verdict, paper or theorem, a name that does not resolve)
raises a one-line :class:`~dptheory.core.errors.DPTheoryError` that names the file, the table (the claim's key)
and the field, and says what is accepted.
"""

from __future__ import annotations

import contextlib
import functools
import re
import string
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from fractions import Fraction
from importlib import resources
from typing import TYPE_CHECKING, Any

from dptheory.core.citation import Paper
from dptheory.core.errors import DPTheoryError, PaperFileError
from dptheory.core.notation import Domain, NotationTable
from dptheory.core.paperfile_fields import (
    BOX_FIELDS,
    CLAIM_FIELDS,
    CONSTANT_SIDE_FIELDS,
    DEFAULT_RANGES,
    EDGE_FIELDS,
    FAILING_FIELDS,
    FINDING_FIELDS,
    PAPER_FIELDS,
    PARAM_FIELDS,
    REF,
    REGION_FIELDS,
    THEOREM_SIDE_FIELDS,
    bad,
    check_fields,
    citation_table,
    default_log,
    error,
    is_function,
    is_number,
    listed_keys,
    located,
    resolve,
)
from dptheory.core.paperfile_theorems import build_theorem, check_names, check_theorem, formula_names, known_value_row
from dptheory.core.run import RunMap
from dptheory.core.units import Unit

if TYPE_CHECKING:
    from dptheory.core.claims import Claim, Quantity, Region
    from dptheory.core.theorem import Theorem

_DOMAINS = {d.value: d for d in Domain}
_SIDES = ("lhs", "rhs")


@dataclass(frozen=True)
class PaperFile:
    """The papers and notation tables of one file, by key, and its claim tables (built by :func:`load`)."""

    source: str
    papers: Mapping[str, Paper]
    notations: Mapping[str, NotationTable]
    claim_tables: tuple[Mapping[str, Any], ...] = ()
    """The ``[[claim]]`` tables, validated as data (:meth:`claims` builds them)."""
    package: str = ""
    """The package the file is in: where the names a claim gives (``symbolic``, ``set``, ``values``) resolve."""
    theorem_tables: tuple[Mapping[str, Any], ...] = ()
    """The ``[[theorem]]`` tables, validated as data (:meth:`theorems` builds them)."""
    symbol_tables: Mapping[str, Mapping[str, Any]] = dataclass_field(default_factory=dict)
    """``[symbols.<notation>]``: names a formula may use besides the parameters (bound variables, functions)."""
    define_tables: Mapping[str, Mapping[str, Any]] = dataclass_field(default_factory=dict)
    """``[define.<notation>]``: named formulas (shared parts of bounds), in order."""
    known_value_rows: tuple[Mapping[str, str], ...] = ()
    """The ``[[known_value]]`` tables as known-value rows (:mod:`dptheory.core.known_values`), validated as data."""
    text: str = dataclass_field(default="", repr=False, compare=False)
    """The file's source text: where a message finds the line of the field it names (:func:`located`)."""
    run_maps: tuple[RunMap, ...] = ()
    """The ``[[run]]`` tables: how the file's theorems read a training run (:mod:`dptheory.core.run`)."""
    _names: dict[str, dict[str, Any]] = dataclass_field(default_factory=dict, repr=False, compare=False)
    """:meth:`names` by notation, built once (every theorem of a file asks for its notation's names)."""

    def paper(self, key: str) -> Paper:
        """The paper declared as ``[paper.<key>]``."""
        if key not in self.papers:
            raise DPTheoryError(f"{self.source}: no [paper.{key}]; the file declares {listed_keys(self.papers)}")
        return self.papers[key]

    def notation(self, key: str) -> NotationTable:
        """The notation table declared as ``[notation.<key>]``."""
        if key not in self.notations:
            raise DPTheoryError(f"{self.source}: no [notation.{key}]; the file declares {listed_keys(self.notations)}")
        return self.notations[key]

    def claims(self, *, side_at_pin: Callable[[Claim, str, int], Any] | None = None) -> list[Claim]:
        """The file's ``[[claim]]`` tables as :class:`~dptheory.core.claims.Claim` objects, in order (not registered:
        the paper's claims module registers them, after the theorems they compare and the code they name).

        ``side_at_pin(claim, "lhs" | "rhs", i)`` evaluates a side at the ``i``-th pin, for the findings that quote
        a side (:func:`dptheory.verify.sides.side_at_pin`; the store does not import the checker).
        """
        with self.lines():
            return [_claim(self, table, side_at_pin) for table in self.claim_tables]

    def theorems(self) -> list[Theorem]:
        """The file's ``[[theorem]]`` tables as :class:`~dptheory.core.theorem.Theorem` objects, in order (not
        registered: the paper's theorems module registers them). Formulas are parsed by
        :mod:`dptheory.core.expressions` (no code runs); kernels are functions of the package, named."""
        with self.lines():
            return [build_theorem(self, table) for table in self.theorem_tables]

    def names(self, notation: str) -> dict[str, Any]:
        """What a formula written in ``notation`` may name: its parameters' symbols, then ``[symbols.<notation>]``,
        then ``[define.<notation>]`` (each definition may use the ones before it). Built once per notation (the
        definitions are parsed once, not once per theorem); each call returns a new dict."""
        if notation not in self._names:
            with self.lines():
                self._names[notation] = formula_names(self, notation)
        return dict(self._names[notation])

    @contextlib.contextmanager
    def lines(self) -> Iterator[None]:
        """Every :class:`~dptheory.core.errors.PaperFileError` raised inside gets the line of its field in this file
        (the one place a message learns its line: :func:`~dptheory.core.paperfile_fields.located`)."""
        try:
            yield
        except PaperFileError as exc:
            raise located(exc, self.text) from None


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
    return parse(text, source=source, package=package)


def parse(text: str, *, source: str, package: str = "") -> PaperFile:
    """Validate the TOML ``text`` of a paper file (``source`` names it in messages) and build its objects (its claims
    are validated as data; names in them resolve in ``package``)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        at = re.search(r"at line (\d+)", str(exc))
        raise PaperFileError(source, "", None, f"not valid TOML: {exc}", int(at.group(1)) if at else None) from None
    try:
        return _parse(data, text, source, package)
    except PaperFileError as exc:
        raise located(exc, text) from None


def _parse(data: dict[str, Any], text: str, source: str, package: str) -> PaperFile:
    check_fields(source, "the file", data, {"paper": ((dict,), "tables [paper.<key>]", False),
                                            "notation": ((dict,), "tables [notation.<key>]", False),
                                            "symbols": ((dict,), "tables [symbols.<notation>]", False),
                                            "define": ((dict,), "tables [define.<notation>]", False),
                                            "theorem": ((list,), "tables [[theorem]]", False),
                                            "known_value": ((list,), "tables [[known_value]]", False),
                                            "claim": ((list,), "tables [[claim]]", False),
                                            "run": ((list,), "tables [[run]]", False)})
    papers = {key: _paper(source, key, body) for key, body in data.get("paper", {}).items()}
    notations = {key: _notation(source, key, body) for key, body in data.get("notation", {}).items()}
    tables = data.get("claim", [])
    for i, table in enumerate(tables):
        _check_claim(source, i, table, papers, [t["key"] for t in tables[:i]])
    symbols, defines = data.get("symbols", {}), data.get("define", {})
    check_names(source, notations, symbols, defines)
    theorems = data.get("theorem", [])
    for i, table in enumerate(theorems):
        check_theorem(source, i, table, papers, notations, [t["key"] for t in theorems[:i]])
    rows = tuple(known_value_row(source, i, t) for i, t in enumerate(data.get("known_value", [])))
    from dptheory.core.run import run_maps_from_tables

    runs = tuple(run_maps_from_tables(source, data.get("run", [])))
    return PaperFile(source, papers, notations, tuple(tables), package, tuple(theorems), symbols, defines, rows, text,
                     runs)


def _paper(source: str, key: str, body: Any) -> Paper:
    check_fields(source, f"[paper.{key}]", body, PAPER_FIELDS)
    return Paper(key=key, **body)


def _notation(source: str, key: str, body: Any) -> NotationTable:
    check_fields(source, f"[notation.{key}]", body, {"param": ((list,), "an array of tables [[param]]", True)})
    rows: list[tuple[Any, ...]] = []
    for i, row in enumerate(body["param"]):
        where = f"[[notation.{key}.param]] number {i + 1}"
        check_fields(source, where, row, PARAM_FIELDS)
        where = f"{where} ({row['name']})"
        if row["domain"] not in _DOMAINS:
            raise bad(source, where, "domain", row["domain"], PARAM_FIELDS["domain"][1])
        domain = _DOMAINS[row["domain"]]
        bounds = row.get("range", list(DEFAULT_RANGES[domain]))
        if len(bounds) != 2 or not all(isinstance(b, int | float) and not isinstance(b, bool) for b in bounds):
            raise bad(source, where, "range", bounds, PARAM_FIELDS["range"][1])
        lo, hi = bounds
        if lo > hi:
            raise bad(source, where, "range", bounds, "lo <= hi")
        if not _usable_name(row["name"]):
            raise bad(source, where, "name", row["name"], "a name formulas can use: letters, digits and _, starting "
                      "with a letter, not a Python keyword nor a function of formulas (write lambda as name = \"lam\", "
                      "latex = '\\lambda')")
        if any(r[0] == row["name"] for r in rows):
            raise error(source, where, "name", f"field 'name' repeats {row['name']!r}; accepted: distinct names")
        latex = row["latex"] if "latex" in row else _latex_of(row["name"])
        rows.append((row["name"], latex, row["meaning"], domain, (lo, hi, row.get("log", default_log(lo, hi))),
                     row.get("unit", "")))
    return NotationTable.build(key, rows)


def _usable_name(name: str) -> bool:
    """Whether a parameter name can be written in a formula (:mod:`dptheory.core.expressions` reads formulas with
    Python's parser: ``lambda`` is a keyword there, ``log`` a function)."""
    import keyword

    from dptheory.core.expressions import FUNCTIONS

    return name.isidentifier() and name.isascii() and not keyword.iskeyword(name) and name not in FUNCTIONS


def _latex_of(name: str) -> str:
    """A parameter's LaTeX when its table gives none: sympy's printing of the name (``alpha`` -> ``\\alpha``,
    ``S_g`` -> ``S_{g}``)."""
    import sympy as sp

    return str(sp.latex(sp.Symbol(name)))


# ----------------------------------------------------------------------------- claims


def _claim_where(i: int, table: Any) -> str:
    key = table.get("key") if isinstance(table, dict) else None
    return f"[[claim]] {key}" if isinstance(key, str) else f"[[claim]] number {i + 1}"


def _check_claim(source: str, i: int, table: Any, papers: Mapping[str, Paper], earlier: list[str]) -> None:
    """Validate one ``[[claim]]`` table as data (what needs the registry or the package is checked by
    :meth:`PaperFile.claims`)."""
    from dptheory.core.claims import Relation, Verdict

    where = _claim_where(i, table)
    check_fields(source, where, table, CLAIM_FIELDS)
    if table["key"] in earlier:
        raise bad(source, where, "key", table["key"], "a key no other [[claim]] of the file has")
    if table["relation"] not in {r.value for r in Relation}:
        raise bad(source, where, "relation", table["relation"], CLAIM_FIELDS["relation"][1])
    if "factor" in table and not table["factor"] > 0:
        raise bad(source, where, "factor", table["factor"], CLAIM_FIELDS["factor"][1])
    if "verdict" in table and table["verdict"] not in {v.value for v in Verdict}:
        raise bad(source, where, "verdict", table["verdict"], CLAIM_FIELDS["verdict"][1])
    if "counterexamples" in table and table.get("verdict", Verdict.FALSIFIED.value) != Verdict.FALSIFIED.value:
        raise bad(source, where, "verdict", table["verdict"], "'falsified' (or none) when counterexamples are pinned")
    if "counterexamples" not in table and "verdict" not in table:
        raise error(source, where, None, "missing field 'verdict' (the verdict the check must reach: "
                    f"{CLAIM_FIELDS['verdict'][1]}; none only when counterexamples are pinned)")
    table["citation"] = citation_table(source, where, table["citation"], papers)
    for side in _SIDES:
        _check_side(source, f"{where}: {side}", table[side])
    table.setdefault("reading", " ".join((_label(table["lhs"]), table["relation"], _label(table["rhs"]))))
    table.setdefault("title", table["reading"])
    if "region" in table and "where" in table:
        raise error(source, where, "where", "give one of the fields 'where' (a box: parameter = value or "
                    "[low, high]) and 'region' (a table { description, fixed, choices, ranges, certify })")
    if "region" in table:
        _check_region(source, f"{where}: region", table["region"])
    for name, value in table.get("where", {}).items():
        if not (_exact(value) or (isinstance(value, list) and len(value) == 2 and all(map(_exact, value)))):
            raise bad(source, where, "where", {name: value}, "a value or [low, high], each an integer or a decimal "
                      "string (exact: \"0.5\", not 0.5)")
        if isinstance(value, list):
            try:
                ordered = Fraction(value[0]) <= Fraction(value[1])
            except ValueError:
                raise bad(source, where, "where", {name: value}, "[low, high] of integers or decimal strings") from None
            if not ordered:
                raise bad(source, where, "where", {name: value}, "[low, high] with low <= high")
    if "symbolic" in table and not REF.fullmatch(table["symbolic"]):
        raise bad(source, where, "symbolic", table["symbolic"], CLAIM_FIELDS["symbolic"][1])
    pins = table.get("counterexamples", [])
    for j, pin in enumerate(pins):
        if not isinstance(pin, dict) or not all(isinstance(v, str) or is_number(v) for v in pin.values()):
            raise bad(source, where, "counterexamples", pin, f"(pin {j + 1}) a table parameter = number or string")
    if not all(isinstance(t, str) for t in table.get("tags", [])):
        raise bad(source, where, "tags", table["tags"], CLAIM_FIELDS["tags"][1])
    if isinstance(table.get("finding"), dict):
        _check_finding(source, f"{where}: finding", table["finding"], pins)
    if "failing" in table:
        if not pins:
            raise error(source, where, "failing", "field 'failing' maps where a falsified claim fails; accepted: "
                        "with counterexamples pinned (verdict 'falsified')")
        _check_failing(source, f"{where}: failing", table["failing"])
    if "companion_of" in table and (pins or table["companion_of"] in ("", table["key"])):
        raise bad(source, where, "companion_of", table["companion_of"], "the key of another claim, the falsified "
                  "one this claim narrows (a companion has no counterexamples pinned)")


def _check_failing(source: str, where: str, failing: dict[str, Any]) -> None:
    check_fields(source, where, failing, FAILING_FIELDS)
    everywhere = failing.get("everywhere", False)
    if not failing["edges"]:
        raise bad(source, where, "edges", failing["edges"], "at least one table { fails, holds, across }")
    for j, edge in enumerate(failing["edges"]):
        ewhere = f"{where}: edge {j + 1}"
        if not isinstance(edge, dict):
            raise bad(source, where, "edges", edge, FAILING_FIELDS["edges"][1])
        check_fields(source, ewhere, edge, EDGE_FIELDS)
        for role in ("fails", "holds"):
            pt = edge.get(role, {})
            if not all(map(_exact, pt.values())):
                raise bad(source, ewhere, role, pt, "a table parameter = an integer or a string (an exact number)")
        if everywhere == ("holds" in edge):
            raise bad(source, ewhere, "holds", edge.get("holds"), "no holding point when everywhere = true, and "
                      "one (the point just outside the failing part) otherwise")


def _label(side: Mapping[str, Any]) -> str:
    """How a side is named in a default reading: its label, its theorem, its constant."""
    return str(side.get("label") or side.get("theorem") or side.get("constant"))


def _exact(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _check_side(source: str, where: str, side: dict[str, Any]) -> None:
    if "constant" in side:
        check_fields(source, where, side, CONSTANT_SIDE_FIELDS)
        if "unit" in side and side["unit"] not in {u.value for u in Unit}:
            raise bad(source, where, "unit", side["unit"], CONSTANT_SIDE_FIELDS["unit"][1])
        return
    check_fields(source, where, side, THEOREM_SIDE_FIELDS)
    for name, value in side.get("set", {}).items():
        if not ((isinstance(value, int) and not isinstance(value, bool)) or isinstance(value, str)):
            raise bad(source, where, "set", {name: value}, THEOREM_SIDE_FIELDS["set"][1])


def _check_pairs(source: str, where: str, field: str, table: dict[str, Any], n: int, accepted: str,
                 ok: Callable[[Any], bool]) -> None:
    """Each value of ``table`` is an array of ``n`` items (``n`` = 0: any length) that ``ok`` accepts."""
    for name, value in table.items():
        if not isinstance(value, list) or (n and len(value) != n) or not ok(value):
            raise bad(source, where, field, {name: value}, accepted)


def _check_region(source: str, where: str, region: dict[str, Any]) -> None:
    check_fields(source, where, region, REGION_FIELDS)
    for name, value in region.get("fixed", {}).items():
        if not (isinstance(value, str) or is_number(value)):
            raise bad(source, where, "fixed", {name: value}, "a table parameter = a number or a string")
    listed = {k: v for k, v in region.get("choices", {}).items() if not (isinstance(v, str) and REF.fullmatch(v))}
    _check_pairs(source, where, "choices", listed, 0, REGION_FIELDS["choices"][1],
                 lambda v: all(isinstance(x, str) or is_number(x) for x in v))
    _check_pairs(source, where, "ranges", region.get("ranges", {}), 3, REGION_FIELDS["ranges"][1],
                 lambda v: is_number(v[0]) and is_number(v[1]) and isinstance(v[2], bool) and v[0] <= v[1])
    if "certify" in region:
        box, bwhere = region["certify"], f"{where}: certify"
        check_fields(source, bwhere, box, BOX_FIELDS)
        _check_pairs(source, bwhere, "intervals", box.get("intervals", {}), 2, BOX_FIELDS["intervals"][1],
                     lambda v: all(map(_exact, v)))
        _check_pairs(source, bwhere, "integers", box.get("integers", {}), 2, BOX_FIELDS["integers"][1],
                     lambda v: all(isinstance(x, int) and not isinstance(x, bool) for x in v))
        if not all(isinstance(x, str) for x in box.get("log", [])):
            raise bad(source, bwhere, "log", box["log"], BOX_FIELDS["log"][1])


def _check_finding(source: str, where: str, finding: dict[str, Any], pins: list[Any]) -> None:
    check_fields(source, where, finding, FINDING_FIELDS)
    if ("pins" in finding) == ("values" in finding):
        raise error(source, where, None, "give exactly one of the fields 'pins' and 'values' (a plain text is a "
                    "string: finding = \"...\")")
    try:
        fields = {f for _, f, _, _ in string.Formatter().parse(finding["text"]) if f is not None}
    except ValueError as exc:
        raise bad(source, where, "text", finding["text"], f"a format template ({exc})") from None
    if "values" in finding:
        if not REF.fullmatch(finding["values"]):
            raise bad(source, where, "values", finding["values"], FINDING_FIELDS["values"][1])
        return
    accepted = FINDING_FIELDS["pins"][1] + f" (at most one per pinned counterexample: {len(pins)})"
    if len(finding["pins"]) > len(pins):
        raise bad(source, where, "pins", finding["pins"], accepted)
    declared: list[str] = []
    for j, reads in enumerate(finding["pins"]):
        if not isinstance(reads, dict):
            raise bad(source, where, "pins", reads, accepted)
        for name, what in reads.items():
            if not (isinstance(what, str) and (what in _SIDES or what in pins[j])) or name in declared:
                raise bad(source, where, "pins", {name: what},
                          f"(pin {j + 1}) a new field = 'lhs', 'rhs' or one of {', '.join(pins[j])}")
            declared.append(name)
    if fields != set(declared):
        raise bad(source, where, "pins", finding["pins"],
                  f"exactly the template's fields: {', '.join(sorted(fields)) or 'none'}")


def _claim(pf: PaperFile, table: Mapping[str, Any], side_at_pin: Callable[[Claim, str, int], Any] | None) -> Claim:
    """Build one validated ``[[claim]]`` table (theorem keys looked up, names resolved)."""
    from dptheory.core.claims import Claim, Finding, Relation, Verdict

    where = f"[[claim]] {table['key']}"
    cit = table["citation"]
    citation = pf.papers[cit["paper"]].item(cit["item"], eq=cit.get("eq"), note=cit.get("note", ""))
    finding: str | Finding = table.get("finding", "")
    if isinstance(finding, dict):
        if "values" in finding:
            values = resolve(pf, f"{where}: finding", "values", finding["values"], is_function,
                             "a function of the package")
        elif side_at_pin is None:
            raise error(pf.source, where, "finding", "field 'finding' quotes the sides at the pins: "
                        "PaperFile.claims needs side_at_pin")
        else:
            values = _pin_reader(finding["pins"], side_at_pin)
        finding = Finding(finding["text"], values)
    symbolic = None
    if "symbolic" in table:
        symbolic = resolve(pf, where, "symbolic", table["symbolic"], is_function, "a function of the package")
    lhs, rhs = _side(pf, where, "lhs", table["lhs"]), _side(pf, where, "rhs", table["rhs"])
    _check_units(pf.source, where, table)
    _check_region_values(pf.source, where, table)
    try:
        return Claim(
            key=table["key"], title=table["title"], citation=citation, statement=table["statement"],
            reading=table["reading"], lhs=lhs, rhs=rhs, relation=Relation(table["relation"]),
            region=_where_region(pf, where, table) if "where" in table else _region(pf, where, table.get("region", {})),
            factor=float(table["factor"]) if "factor" in table
            else None, symbolic=symbolic,
            counterexamples=tuple(dict(p) for p in table.get("counterexamples", [])), finding=finding,
            tags=tuple(table.get("tags", [])), verdict=Verdict(table["verdict"]) if "verdict" in table else None,
            failing=_failing(table["failing"]) if "failing" in table else None,
            companion_of=table.get("companion_of"),
        )
    except PaperFileError:
        raise
    except ValueError as exc:
        raise error(pf.source, where, None, str(exc)) from None


def _failing(table: Mapping[str, Any]) -> Any:
    """A validated ``failing`` table as a :class:`~dptheory.core.findings.FindingMap`."""
    from dptheory.core.findings import Edge, FindingMap

    edges = tuple(Edge(fails=dict(e["fails"]), holds=dict(e["holds"]) if "holds" in e else None,
                       across=e.get("across", "")) for e in table["edges"])
    return FindingMap(fails_on=table["fails_on"], evidence=table["evidence"], edges=edges,
                      everywhere=table.get("everywhere", False))


def _pin_reader(pins: list[dict[str, str]], side_at_pin: Callable[[Claim, str, int], Any]
                ) -> Callable[[Claim], dict[str, Any]]:
    """The values of a finding's template read at the pins: ``pins[i]`` maps a field to a side (its value at the
    ``i``-th pin) or to a pinned parameter."""

    def values(claim: Claim) -> dict[str, Any]:
        return {name: side_at_pin(claim, what, i) if what in _SIDES else claim.counterexamples[i][what]
                for i, reads in enumerate(pins) for name, what in reads.items()}

    return values


def _side(pf: PaperFile, where: str, field: str, side: Mapping[str, Any]) -> Quantity:
    import sympy as sp

    from dptheory.core.claims import constant, theorem_side
    from dptheory.core.errors import UnknownKey
    from dptheory.core.registry import REGISTRY

    if "constant" in side:
        return constant(side["label"], side["constant"])
    key = side["theorem"]
    try:
        thm = REGISTRY.get(key)
    except UnknownKey:
        thm = None
    if getattr(thm, "KIND", "") != "theorem":
        raise bad(pf.source, where, field, dict(side), f"a registered theorem key, not {key!r}")
    for part, names in (("term", thm.terms), ("limit", thm.limits)):
        if part in side and side[part] not in names:
            raise bad(pf.source, where, field, dict(side), f"a {part} of {key}: {listed_keys(names)}")
    derived: dict[str, Any] = {}
    for name, value in side.get("set", {}).items():
        if name not in thm.params:
            raise bad(pf.source, where, field, dict(side), f"set: parameters of {key}: {', '.join(thm.params)}")
        if isinstance(value, int):
            derived[name] = sp.Integer(value)
        elif REF.fullmatch(value):
            derived[name] = resolve(pf, f"{where}: {field}", "set", value, lambda e: isinstance(e, sp.Basic),
                                    "a sympy expression of the package")
        else:  # a formula in the theorem's parameters (t = "n": the last record)
            from dptheory.core.expressions import ExpressionError, parse_text

            try:
                derived[name] = parse_text(value, {p: thm.notation.sym(p) for p in thm.params})
            except ExpressionError as exc:
                raise error(pf.source, where, f"{field}: set: {name}", f"field {field!r}: set {name}: {exc}") from None
    return theorem_side(key, side.get("label"), term=side.get("term"), limit=side.get("limit"), set=derived)


def _side_theorems(table: Mapping[str, Any]) -> list[Any]:
    """The registered theorems the two sides of a (built) claim table compare."""
    from dptheory.core.registry import REGISTRY

    return [REGISTRY.get(table[side]["theorem"]) for side in _SIDES if "theorem" in table[side]]


def _check_units(source: str, where: str, table: Mapping[str, Any]) -> None:
    """The two sides of a claim are in one unit (a theorem's ``unit``, a constant's optional ``unit``): an RDP
    epsilon in nats is never compared with a number of bits."""
    from dptheory.core.registry import REGISTRY

    units = {side: (str(REGISTRY.get(table[side]["theorem"]).unit), f"{table[side]['theorem']} is in")
             if "theorem" in table[side] else (table[side].get("unit"), "the constant is in") for side in _SIDES}
    (lu, lwhat), (ru, rwhat) = units["lhs"], units["rhs"]
    if lu is not None and ru is not None and lu != ru:
        raise error(source, where, "rhs", f"field 'rhs': the sides have different units: lhs ({lwhat} {lu}) and rhs "
                    f"({rwhat} {ru}); accepted: two sides in one unit (convert one: 1 bit = log(2) nats)")


def _check_region_values(source: str, where: str, table: Mapping[str, Any]) -> None:
    """Every value a claim's region gives a parameter of a compared theorem is in the parameter's domain, and the
    region is not outside a condition of the theorem: a fixed value (or every choice) that violates a condition
    on the parameters it fixes, a range or interval where a condition on its one parameter never holds (decided
    by sympy: :meth:`~sympy.core.relational.Relational.as_set`)."""
    import sympy as sp

    from dptheory.core.conditions import Status
    from dptheory.core.errors import InvalidParameter
    from dptheory.core.notation import parse_value

    region = table.get("region", {})
    box = region.get("certify", {})
    given = [(f"{where}: region", name, field, field, values) for field in ("fixed", "choices", "ranges")
             for name, values in region.get(field, {}).items()]
    given += [(f"{where}: region: certify", name, field, field, values) for field in ("intervals", "integers", "free")
              for name, values in box.get(field, {}).items()]
    given += [(where, name, "ranges" if isinstance(values, list) else "fixed", "where", values)
              for name, values in table.get("where", {}).items()]
    point = {**region.get("fixed", {}), **box.get("free", {}),
             **{n: v for n, v in table.get("where", {}).items() if not isinstance(v, list)}}
    def exact(name: str, raw: Any) -> Any:
        try:
            return parse_value(raw, key=table["key"], name=name)
        except InvalidParameter:
            return None  # not a number (a list's dotted name, inf): not checked here

    for thm in _side_theorems(table):
        fixed = {thm.notation.sym(n): v for n, raw in point.items()
                 if n in thm.params and (v := exact(n, raw)) is not None}
        for at, name, field, shown_field, values in given:
            if name not in thm.params or (field == "choices" and isinstance(values, str)):
                continue
            sym, param = thm.notation.sym(name), thm.notation[name]
            points = [values] if field in ("fixed", "free") else values[:2] if field != "choices" else values
            numbers = [(raw, v) for raw in points if (v := exact(name, raw)) is not None]
            ranged = field in ("ranges", "intervals", "integers")
            for cond in thm.all_conditions:
                if cond.symbols != {sym} and not (field in ("fixed", "free") and cond.symbols <= set(fixed)):
                    continue
                violated = [raw for raw, v in numbers if cond.evaluate({**fixed, sym: v}).status is Status.VIOLATED]
                if cond.kind == "domain" or not ranged:
                    if not violated or (field == "choices" and len(violated) < len(numbers) and cond.kind != "domain"):
                        continue  # some choices are inside the condition: the checker skips the others
                    shown = f"{name} = {violated[0]}" + (" (an end of the range)" if ranged else "")
                elif len(numbers) == 2:  # a range: refused only when the condition holds nowhere in it
                    try:
                        inside = sp.Intersection(sp.Interval(numbers[0][1], numbers[1][1]), cond.relation.as_set())
                    except (NotImplementedError, TypeError, ValueError):
                        continue
                    if inside is not sp.EmptySet:
                        continue
                    shown = f"{name} in [{numbers[0][0]}, {numbers[1][0]}]"
                else:
                    continue
                what = (f"the domain of {name} (declared {param.domain.value})" if cond.kind == "domain" else
                        f"the condition {cond.render()} of {thm.key} ({cond.gloss})")
                raise error(source, at, shown_field, f"field {shown_field!r}: {shown} is outside {what}; accepted: "
                            f"values where {cond.render()}")


def _values(obj: Any) -> bool:
    return isinstance(obj, list | tuple | range) and all(isinstance(x, str) or is_number(x) for x in obj)


def _region(pf: PaperFile, where: str, region: Mapping[str, Any]) -> Region:
    from dptheory.core.claims import Box, Region

    choices = {k: list(resolve(pf, f"{where}: region", "choices", v, _values, "a list of values of the package")
                       if isinstance(v, str) else v) for k, v in region.get("choices", {}).items()}
    certify = None
    if "certify" in region:
        box = region["certify"]
        certify = Box(intervals={k: tuple(v) for k, v in box.get("intervals", {}).items()},
                      integers={k: tuple(v) for k, v in box.get("integers", {}).items()},
                      log=tuple(box.get("log", ())), free=dict(box.get("free", {})),
                      max_boxes=box.get("max_boxes", Box.max_boxes))
    return Region(fixed=dict(region.get("fixed", {})),
                  choices=choices,
                  ranges={k: tuple(v) for k, v in region.get("ranges", {}).items()},
                  description=region.get("description", ""), certify=certify)


def _where_region(pf: PaperFile, where: str, table: Mapping[str, Any]) -> Region:
    """A claim's ``where = { parameter = value or [low, high] }`` as its region: a value is fixed, a pair is an
    interval of a real parameter or every integer of an integer one (by the parameter's domain), searched and
    certified on that box; a parameter that every side comparing a theorem with it sets (``set = { t = "n" }``) is
    free (the margin cannot depend on it; the box needs a value only to complete a point: the low end of its sample
    range). For a claim the check certifies, every other parameter must be given."""
    from dptheory.core.claims import Box, Region, Verdict

    params: dict[str, Any] = {}
    for thm in _side_theorems(table):
        for name in thm.params:
            params.setdefault(name, thm.notation[name])
    fixed: dict[str, Any] = {}
    intervals: dict[str, tuple[Any, Any]] = {}
    integers: dict[str, tuple[int, int]] = {}
    ranges: dict[str, tuple[float, float, bool]] = {}
    for name, value in table["where"].items():
        if name not in params:
            raise bad(pf.source, where, "where", {name: value}, f"parameters of the theorems compared: "
                      f"{', '.join(params)}")
        if not isinstance(value, list):
            fixed[name] = value
            continue
        lo, hi = value
        param = params[name]
        if param.domain.is_integer:
            if not (isinstance(lo, int) and isinstance(hi, int)):
                raise bad(pf.source, where, "where", {name: value}, f"[low, high] of two integers ({name} is declared "
                          f"{param.domain.value})")
            integers[name] = (lo, hi)
        else:
            intervals[name] = (lo, hi)
        ranges[name] = (float(lo), float(hi), default_log(float(lo), float(hi)))
    sets = [set(table[s].get("set", {})) for s in _SIDES if "theorem" in table[s]]
    free = {name: p.sample[0] for name, p in params.items()
            if name not in table["where"] and sets and all(name in s for s in sets)}
    missing = [n for n in params if n not in table["where"] and n not in free]
    certified = table.get("verdict") == Verdict.CERTIFIED.value
    if missing and certified:
        raise error(pf.source, where, "where", f"field 'where' gives no value or [low, high] for {', '.join(missing)}; "
                    "accepted: every parameter of the theorems compared that the sides do not set (the box the "
                    "claim is certified on)")
    box = Box(intervals=intervals, integers=integers, free=free,
              log=tuple(n for n in (*intervals, *integers) if ranges[n][2]))
    return Region(fixed=fixed, ranges=ranges, certify=box if certified else None)
