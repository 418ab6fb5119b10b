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

A side's ``set`` gives derived parameters: an integer, or the dotted name ``module.NAME`` of a sympy expression in
the paper's package. A region's ``choices`` for a parameter is an array, or the dotted name of a list of values in the
package (``K = "claims.FIG1_K"``: a long range). ``region.certify`` is a :class:`~dptheory.core.claims.Box`
(``intervals``, ``integers``, ``log``, ``free``, ``max_boxes``). A finding is a plain string, or a template whose
fields are read at the pins (``pins[i]`` maps a field to ``"lhs"``/``"rhs"``, the side's value at the ``i``-th pin, or
to a pinned parameter) or computed by a function of the package (``values = "module.name"``, taking the claim). What
needs code (a proof, a sympy expression, a computed finding) or is too long to write (a list of values) is named,
never written, in the file: a name is resolved with :mod:`importlib` in the file's own package only (a function
must be defined there).

Reading never executes code (:mod:`tomllib`). Every problem (not TOML, a missing or unknown key, a wrong
type, an unknown domain, ``lo > hi``, an unknown relation, verdict, paper or theorem, a name that does not resolve)
raises a one-line :class:`~dptheory.core.errors.DPTheoryError` that names the file, the table (the claim's key)
and the field, and says what is accepted.
"""

from __future__ import annotations

import functools
import importlib
import re
import string
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from importlib import resources
from types import FunctionType
from typing import TYPE_CHECKING, Any

from dptheory.core.citation import Paper
from dptheory.core.errors import DPTheoryError
from dptheory.core.notation import Domain, NotationTable
from dptheory.core.units import Direction, Monotone, Unit

if TYPE_CHECKING:
    from dptheory.core.claims import Claim, Quantity, Region
    from dptheory.core.theorem import Theorem

_Spec = dict[str, tuple[tuple[type, ...], str, bool]]
"""A table's fields: field -> (accepted Python types, what the message says is accepted, required)."""

_PAPER_FIELDS: _Spec = {
    "authors": ((str,), "a string", True),
    "year": ((int,), "an integer", True),
    "title": ((str,), "a string", True),
    "venue": ((str,), "a string", False),
    "arxiv_id": ((str,), "a string", False),
    "arxiv_version": ((int,), "an integer", False),
}
_PARAM_FIELDS: _Spec = {
    "name": ((str,), "a string", True),
    "latex": ((str,), "a string", True),
    "meaning": ((str,), "a string", True),
    "domain": ((str,), "one of " + ", ".join(repr(d.value) for d in Domain), True),
    "range": ((list,), "an array [lo, hi] of two numbers", True),
    "log": ((bool,), "true or false", True),
    "unit": ((str,), "a string", False),
}
_DOMAINS = {d.value: d for d in Domain}
_NAME = "the dotted name module.name of an object of the paper's package"
_CLAIM_FIELDS: _Spec = {
    "key": ((str,), "a string", True),
    "title": ((str,), "a string", True),
    "citation": ((dict,), "a table { paper, item, eq, note }", True),
    "statement": ((str,), "a string", True),
    "reading": ((str,), "a string", True),
    "lhs": ((dict,), "a side: a table { theorem, label, term, limit, set } or { constant, label }", True),
    "rhs": ((dict,), "a side: a table { theorem, label, term, limit, set } or { constant, label }", True),
    "relation": ((str,), "one of '<', '<=', '>', '>=', '=='", True),
    "factor": ((int, float), "a number > 0 (a 'same order' claim: lhs/rhs in [1/factor, factor])", False),
    "verdict": ((str,), "one of 'proved', 'certified', 'exhaustive', 'not falsified', 'falsified'", False),
    "region": ((dict,), "a table { description, fixed, choices, ranges, certify }", False),
    "symbolic": ((str,), _NAME.replace("an object", "a function"), False),
    "counterexamples": ((list,), "an array of tables (parameter = value)", False),
    "finding": ((str, dict), "a string, or a table { text, pins } or { text, values }", False),
    "tags": ((list,), "an array of strings", False),
}
_CITATION_FIELDS: _Spec = {
    "paper": ((str,), "the key of a [paper.<key>] of this file", True),
    "item": ((str,), "a string", True),
    "eq": ((str, int), "a string or an integer", False),
    "note": ((str,), "a string", False),
}
_THEOREM_SIDE_FIELDS: _Spec = {
    "theorem": ((str,), "a registered theorem key", True),
    "label": ((str,), "a string", False),
    "term": ((str,), "the name of one of the theorem's terms", False),
    "limit": ((str,), "the parameter of one of the theorem's limits", False),
    "set": ((dict,), "a table parameter = an integer, a formula in the theorem's parameters, or " +
            _NAME.replace("an object", "a sympy expression"), False),
}
_CONSTANT_SIDE_FIELDS: _Spec = {
    "constant": ((int, float), "a number (inf for +infinity)", True),
    "label": ((str,), "a string", True),
}
_REGION_FIELDS: _Spec = {
    "description": ((str,), "a string", False),
    "fixed": ((dict,), "a table parameter = value", False),
    "choices": ((dict,), "a table parameter = an array of values or " +
                _NAME.replace("an object", "a list of values"), False),
    "ranges": ((dict,), "a table parameter = [low, high, log]", False),
    "certify": ((dict,), "a table { intervals, integers, log, free, max_boxes }", False),
}
_BOX_FIELDS: _Spec = {
    "intervals": ((dict,), "a table parameter = [low, high] (exact: integers or decimal strings)", False),
    "integers": ((dict,), "a table parameter = [low, high] (integers)", False),
    "log": ((list,), "an array of parameter names", False),
    "free": ((dict,), "a table parameter = value", False),
    "max_boxes": ((int,), "an integer", False),
}
_FINDING_FIELDS: _Spec = {
    "text": ((str,), "a string (a template: {field:spec})", True),
    "pins": ((list,), "an array with, per pin, a table field = 'lhs', 'rhs' or a pinned parameter", False),
    "values": ((str,), _NAME.replace("an object", "a function of the claim"), False),
}
_FORMULA = "a formula: sympy text (e.g. \"T*alpha/(2*z**2)\") in the declared names"
_THEOREM_FIELDS: _Spec = {
    "key": ((str,), "a string", True),
    "title": ((str,), "a string", True),
    "citation": ((dict,), "a table { paper, item, eq, note }", True),
    "notation": ((str,), "the key of a [notation.<key>] of this file", True),
    "params": ((list,), "an array of parameter names of the notation table", True),
    "conditions": ((list,), "an array of tables { when, reason } (when: a comparison, or when_latex)", False),
    "assumptions": ((list,), "an array of strings", False),
    "bound": ((str,), _FORMULA, False),
    "bound_latex": ((str,), "a formula in LaTeX (read by sympy's parse_latex)", False),
    "statement": ((list,), "an array of formulas (relations, e.g. \"Eq(A, B)\" or \"a <= b\")", False),
    "definitions": ((list,), "an array of formulas Eq(name, value)", False),
    "direction": ((str,), "one of " + ", ".join(repr(d.value) for d in Direction), True),
    "quantity": ((str,), "a string", True),
    "unit": ((str,), "one of " + ", ".join(repr(u.value) for u in Unit), False),
    "monotone": ((dict,), "a table parameter = one of " + ", ".join(repr(m.value) for m in Monotone), False),
    "kernels": ((dict,), "a table { mp, np, arb, reason }: functions of the package (module.name) and why", False),
    "terms": ((dict,), "a table name = { description, expr, mp, np }", False),
    "np_flagged": ((bool,), "true or false", False),
    "slow_fractional": ((list,), "an array of parameter names", False),
    "infinite_when": ((str,), "a string", False),
    "reading": ((str,), "a string", False),
    "notes": ((str,), "a string", False),
}
_CONDITION_FIELDS: _Spec = {
    "when": ((str,), "a comparison in sympy text (e.g. \"beta < 1\")", False),
    "when_latex": ((str,), "a comparison in LaTeX", False),
    "reason": ((str,), "a string (why it is needed, as the paper says)", True),
}
_KERNEL_FIELDS: _Spec = {
    "mp": ((str,), _NAME.replace("an object", "a function p -> mpf"), False),
    "np": ((str,), _NAME.replace("an object", "a function p -> float64 array"), False),
    "arb": ((str,), _NAME.replace("an object", "a function p -> arb ball"), False),
    "reason": ((str,), "a string, or " + _NAME.replace("an object", "a string"), True),
}
_TERM_FIELDS: _Spec = {
    "description": ((str,), "a string", True),
    "expr": ((str,), _FORMULA, False),
    "mp": ((str,), _NAME.replace("an object", "a function p -> mpf"), False),
    "np": ((str,), _NAME.replace("an object", "a function p -> float64 array"), False),
}
_SYMBOL_FIELDS: _Spec = {
    "name": ((str,), "a string (the printed name; default: the table's name)", False),
    "function": ((bool, str), "true (an undefined function, e.g. kl), or " +
                 _NAME.replace("an object", "a sympy function class (one that prints itself)"), False),
    "positive": ((bool,), "true or false", False),
    "nonnegative": ((bool,), "true or false", False),
    "integer": ((bool,), "true or false", False),
    "real": ((bool,), "true or false", False),
}
_KNOWN_VALUE_FIELDS: _Spec = {
    "theorem": ((str,), "a theorem key", True),
    "term": ((str,), "the name of one of the theorem's terms", False),
    "params": ((dict,), "a table parameter = an integer or a decimal string (exact inputs)", True),
    "value": ((str, int, float), "the independent value: a decimal string (or inf)", True),
    "rel_tol": ((float,), "a relative tolerance > 0 (at most 1e-30 for a transcription)", True),
    "method": ((str,), "one of transcription, second-derivation, brute-force, peer", True),
    "source": ((str,), "a string: how the value was obtained, independently of the bound as written here", True),
}
_REF = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+")
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

    def claims(self, *, side_at_pin: Callable[[Claim, str, int], Any] | None = None) -> list[Claim]:
        """The file's ``[[claim]]`` tables as :class:`~dptheory.core.claims.Claim` objects, in order (not registered:
        the paper's claims module registers them, after the theorems they compare and the code they name).

        ``side_at_pin(claim, "lhs" | "rhs", i)`` evaluates a side at the ``i``-th pin, for the findings that quote
        a side (:func:`dptheory.verify.sides.side_at_pin`; the store does not import the checker).
        """
        return [_claim(self, table, side_at_pin) for table in self.claim_tables]

    def theorems(self) -> list[Theorem]:
        """The file's ``[[theorem]]`` tables as :class:`~dptheory.core.theorem.Theorem` objects, in order (not
        registered: the paper's theorems module registers them). Formulas are parsed by
        :mod:`dptheory.core.expressions` (no code runs); kernels are functions of the package, named."""
        return [_theorem(self, table) for table in self.theorem_tables]

    def names(self, notation: str) -> dict[str, Any]:
        """What a formula written in ``notation`` may name: its parameters' symbols, then ``[symbols.<notation>]``,
        then ``[define.<notation>]`` (each definition may use the ones before it)."""
        return _names(self, notation)


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
    return parse(text, source=source, package=package)


def parse(text: str, *, source: str, package: str = "") -> PaperFile:
    """Validate the TOML ``text`` of a paper file (``source`` names it in messages) and build its objects (its claims
    are validated as data; names in them resolve in ``package``)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise DPTheoryError(f"{source}: not valid TOML: {exc}") from None
    _fields(source, "the file", data, {"paper": ((dict,), "tables [paper.<key>]", False),
                                       "notation": ((dict,), "tables [notation.<key>]", False),
                                       "symbols": ((dict,), "tables [symbols.<notation>]", False),
                                       "define": ((dict,), "tables [define.<notation>]", False),
                                       "theorem": ((list,), "tables [[theorem]]", False),
                                       "known_value": ((list,), "tables [[known_value]]", False),
                                       "claim": ((list,), "tables [[claim]]", False)})
    papers = {key: _paper(source, key, body) for key, body in data.get("paper", {}).items()}
    notations = {key: _notation(source, key, body) for key, body in data.get("notation", {}).items()}
    tables = data.get("claim", [])
    for i, table in enumerate(tables):
        _check_claim(source, i, table, papers, [t["key"] for t in tables[:i]])
    symbols, defines = data.get("symbols", {}), data.get("define", {})
    _check_names(source, notations, symbols, defines)
    theorems = data.get("theorem", [])
    for i, table in enumerate(theorems):
        _check_theorem(source, i, table, papers, notations, [t["key"] for t in theorems[:i]])
    rows = tuple(_known_value(source, i, t) for i, t in enumerate(data.get("known_value", [])))
    return PaperFile(source, papers, notations, tuple(tables), package, tuple(theorems), symbols, defines, rows)


def _known_value(source: str, i: int, table: Any) -> dict[str, str]:
    """One ``[[known_value]]`` table as a known-value row (the CSV's columns), checked as data."""
    import json

    from dptheory.core.known_values import row_problems

    key = table.get("theorem") if isinstance(table, dict) else None
    where = f"[[known_value]] number {i + 1}" + (f" ({key})" if isinstance(key, str) else "")
    _fields(source, where, table, _KNOWN_VALUE_FIELDS)
    value = table["value"]
    row = {"key": table["theorem"], "term": table.get("term", ""), "params": json.dumps(table["params"]),
           "value": value if isinstance(value, str) else repr(value), "rel_tol": repr(table["rel_tol"]),
           "method": table["method"], "source": table["source"], "where": f"{source}: {where}"}
    problems = row_problems(row)
    if problems:
        raise DPTheoryError(problems[0])
    return row


def _fields(source: str, where: str, table: Any, spec: _Spec) -> None:
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


# ----------------------------------------------------------------------------- claims


def _claim_where(i: int, table: Any) -> str:
    key = table.get("key") if isinstance(table, dict) else None
    return f"[[claim]] {key}" if isinstance(key, str) else f"[[claim]] number {i + 1}"


def _bad(source: str, where: str, field: str, value: Any, accepted: str) -> DPTheoryError:
    return DPTheoryError(f"{source}: {where}: field {field!r} is {value!r}; accepted: {accepted}")


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _check_claim(source: str, i: int, table: Any, papers: Mapping[str, Paper], earlier: list[str]) -> None:
    """Validate one ``[[claim]]`` table as data (what needs the registry or the package is checked by
    :meth:`PaperFile.claims`)."""
    from dptheory.core.claims import Relation, Verdict

    where = _claim_where(i, table)
    _fields(source, where, table, _CLAIM_FIELDS)
    if table["key"] in earlier:
        raise _bad(source, where, "key", table["key"], "a key no other [[claim]] of the file has")
    if table["relation"] not in {r.value for r in Relation}:
        raise _bad(source, where, "relation", table["relation"], _CLAIM_FIELDS["relation"][1])
    if "factor" in table and not table["factor"] > 0:
        raise _bad(source, where, "factor", table["factor"], _CLAIM_FIELDS["factor"][1])
    if "verdict" in table and table["verdict"] not in {v.value for v in Verdict}:
        raise _bad(source, where, "verdict", table["verdict"], _CLAIM_FIELDS["verdict"][1])
    if "counterexamples" in table and table.get("verdict", Verdict.FALSIFIED.value) != Verdict.FALSIFIED.value:
        raise _bad(source, where, "verdict", table["verdict"], "'falsified' (or none) when counterexamples are pinned")
    if "counterexamples" not in table and "verdict" not in table:
        raise DPTheoryError(f"{source}: {where}: missing field 'verdict' (the verdict the check must reach: "
                            f"{_CLAIM_FIELDS['verdict'][1]}; none only when counterexamples are pinned)")
    _fields(source, f"{where}: citation", table["citation"], _CITATION_FIELDS)
    if table["citation"]["paper"] not in papers:
        raise _bad(source, where, "citation", table["citation"],
                   f"a paper declared in this file ({_listed(papers)}), as {{ paper = KEY, item = ... }}")
    for side in _SIDES:
        _check_side(source, f"{where}: {side}", table[side])
    if "region" in table:
        _check_region(source, f"{where}: region", table["region"])
    if "symbolic" in table and not _REF.fullmatch(table["symbolic"]):
        raise _bad(source, where, "symbolic", table["symbolic"], _CLAIM_FIELDS["symbolic"][1])
    pins = table.get("counterexamples", [])
    for j, pin in enumerate(pins):
        if not isinstance(pin, dict) or not all(isinstance(v, str) or _number(v) for v in pin.values()):
            raise _bad(source, where, "counterexamples", pin, f"(pin {j + 1}) a table parameter = number or string")
    if not all(isinstance(t, str) for t in table.get("tags", [])):
        raise _bad(source, where, "tags", table["tags"], _CLAIM_FIELDS["tags"][1])
    if isinstance(table.get("finding"), dict):
        _check_finding(source, f"{where}: finding", table["finding"], pins)


def _check_side(source: str, where: str, side: dict[str, Any]) -> None:
    if "constant" in side:
        _fields(source, where, side, _CONSTANT_SIDE_FIELDS)
        return
    _fields(source, where, side, _THEOREM_SIDE_FIELDS)
    for name, value in side.get("set", {}).items():
        if not ((isinstance(value, int) and not isinstance(value, bool)) or isinstance(value, str)):
            raise _bad(source, where, "set", {name: value}, _THEOREM_SIDE_FIELDS["set"][1])


def _check_pairs(source: str, where: str, field: str, table: dict[str, Any], n: int, accepted: str,
                 ok: Callable[[Any], bool]) -> None:
    """Each value of ``table`` is an array of ``n`` items (``n`` = 0: any length) that ``ok`` accepts."""
    for name, value in table.items():
        if not isinstance(value, list) or (n and len(value) != n) or not ok(value):
            raise _bad(source, where, field, {name: value}, accepted)


def _check_region(source: str, where: str, region: dict[str, Any]) -> None:
    _fields(source, where, region, _REGION_FIELDS)
    for name, value in region.get("fixed", {}).items():
        if not (isinstance(value, str) or _number(value)):
            raise _bad(source, where, "fixed", {name: value}, "a table parameter = a number or a string")
    listed = {k: v for k, v in region.get("choices", {}).items() if not (isinstance(v, str) and _REF.fullmatch(v))}
    _check_pairs(source, where, "choices", listed, 0, _REGION_FIELDS["choices"][1],
                 lambda v: all(isinstance(x, str) or _number(x) for x in v))
    _check_pairs(source, where, "ranges", region.get("ranges", {}), 3, _REGION_FIELDS["ranges"][1],
                 lambda v: _number(v[0]) and _number(v[1]) and isinstance(v[2], bool) and v[0] <= v[1])
    if "certify" in region:
        box, bwhere = region["certify"], f"{where}: certify"
        _fields(source, bwhere, box, _BOX_FIELDS)
        _check_pairs(source, bwhere, "intervals", box.get("intervals", {}), 2, _BOX_FIELDS["intervals"][1],
                     lambda v: all(isinstance(x, str) or (isinstance(x, int) and not isinstance(x, bool)) for x in v))
        _check_pairs(source, bwhere, "integers", box.get("integers", {}), 2, _BOX_FIELDS["integers"][1],
                     lambda v: all(isinstance(x, int) and not isinstance(x, bool) for x in v))
        if not all(isinstance(x, str) for x in box.get("log", [])):
            raise _bad(source, bwhere, "log", box["log"], _BOX_FIELDS["log"][1])


def _check_finding(source: str, where: str, finding: dict[str, Any], pins: list[Any]) -> None:
    _fields(source, where, finding, _FINDING_FIELDS)
    if ("pins" in finding) == ("values" in finding):
        raise DPTheoryError(f"{source}: {where}: give exactly one of the fields 'pins' and 'values' (a plain text "
                            "is a string: finding = \"...\")")
    try:
        fields = {f for _, f, _, _ in string.Formatter().parse(finding["text"]) if f is not None}
    except ValueError as exc:
        raise _bad(source, where, "text", finding["text"], f"a format template ({exc})") from None
    if "values" in finding:
        if not _REF.fullmatch(finding["values"]):
            raise _bad(source, where, "values", finding["values"], _FINDING_FIELDS["values"][1])
        return
    accepted = _FINDING_FIELDS["pins"][1] + f" (at most one per pinned counterexample: {len(pins)})"
    if len(finding["pins"]) > len(pins):
        raise _bad(source, where, "pins", finding["pins"], accepted)
    declared: list[str] = []
    for j, reads in enumerate(finding["pins"]):
        if not isinstance(reads, dict):
            raise _bad(source, where, "pins", reads, accepted)
        for name, what in reads.items():
            if not (isinstance(what, str) and (what in _SIDES or what in pins[j])) or name in declared:
                raise _bad(source, where, "pins", {name: what},
                           f"(pin {j + 1}) a new field = 'lhs', 'rhs' or one of {', '.join(pins[j])}")
            declared.append(name)
    if fields != set(declared):
        raise _bad(source, where, "pins", finding["pins"],
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
            values = _resolve(pf, f"{where}: finding", "values", finding["values"], _is_function,
                              "a function of the package")
        elif side_at_pin is None:
            raise DPTheoryError(f"{pf.source}: {where}: field 'finding' quotes the sides at the pins: "
                                "PaperFile.claims needs side_at_pin")
        else:
            values = _pin_reader(finding["pins"], side_at_pin)
        finding = Finding(finding["text"], values)
    symbolic = None
    if "symbolic" in table:
        symbolic = _resolve(pf, where, "symbolic", table["symbolic"], _is_function, "a function of the package")
    try:
        return Claim(
            key=table["key"], title=table["title"], citation=citation, statement=table["statement"],
            reading=table["reading"], lhs=_side(pf, where, "lhs", table["lhs"]),
            rhs=_side(pf, where, "rhs", table["rhs"]), relation=Relation(table["relation"]),
            region=_region(pf, where, table.get("region", {})), factor=float(table["factor"]) if "factor" in table
            else None, symbolic=symbolic,
            counterexamples=tuple(dict(p) for p in table.get("counterexamples", [])), finding=finding,
            tags=tuple(table.get("tags", [])), verdict=Verdict(table["verdict"]) if "verdict" in table else None,
        )
    except ValueError as exc:
        raise DPTheoryError(f"{pf.source}: {where}: {exc}") from None


def _pin_reader(pins: list[dict[str, str]], side_at_pin: Callable[[Claim, str, int], Any]
                ) -> Callable[[Claim], dict[str, Any]]:
    """The values of a finding's template read at the pins: ``pins[i]`` maps a field to a side (its value at the
    ``i``-th pin) or to a pinned parameter."""

    def values(claim: Claim) -> dict[str, Any]:
        return {name: side_at_pin(claim, what, i) if what in _SIDES else claim.counterexamples[i][what]
                for i, reads in enumerate(pins) for name, what in reads.items()}

    return values


def _resolve(pf: PaperFile, where: str, field: str, name: str, ok: Callable[[Any], bool], what: str) -> Any:
    """The object ``module.NAME`` of the file's package that ``ok`` accepts (a function must be defined in the
    package, not imported into it)."""
    module, _, attr = name.rpartition(".")
    accepted = f"{what} (module.name in {pf.package or 'the package of a loaded file'})"
    if not pf.package or any(part.startswith("__") for part in name.split(".")):
        raise _bad(pf.source, where, field, name, accepted)
    try:
        obj = getattr(importlib.import_module(f"{pf.package}.{module}"), attr)
    except (ImportError, AttributeError) as exc:
        raise _bad(pf.source, where, field, name, f"{accepted}; {exc}") from None
    defined_in = obj.__module__ if isinstance(obj, FunctionType) else f"{pf.package}.{module}"
    if not ok(obj) or not defined_in.startswith(pf.package + "."):
        raise _bad(pf.source, where, field, name, f"{accepted}; it is {type(obj).__name__} from {defined_in}")
    return obj


def _is_function(obj: Any) -> bool:
    return isinstance(obj, FunctionType)


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
        raise _bad(pf.source, where, field, dict(side), f"a registered theorem key, not {key!r}")
    for part, names in (("term", thm.terms), ("limit", thm.limits)):
        if part in side and side[part] not in names:
            raise _bad(pf.source, where, field, dict(side), f"a {part} of {key}: {_listed(names)}")
    derived: dict[str, Any] = {}
    for name, value in side.get("set", {}).items():
        if name not in thm.params:
            raise _bad(pf.source, where, field, dict(side), f"set: parameters of {key}: {', '.join(thm.params)}")
        if isinstance(value, int):
            derived[name] = sp.Integer(value)
        elif _REF.fullmatch(value):
            derived[name] = _resolve(pf, f"{where}: {field}", "set", value, lambda e: isinstance(e, sp.Basic),
                                     "a sympy expression of the package")
        else:  # a formula in the theorem's parameters (t = "n": the last record)
            from dptheory.core.expressions import ExpressionError, parse_text

            try:
                derived[name] = parse_text(value, {p: thm.notation.sym(p) for p in thm.params})
            except ExpressionError as exc:
                raise DPTheoryError(f"{pf.source}: {where}: field {field!r}: set {name}: {exc}") from None
    return theorem_side(key, side.get("label"), term=side.get("term"), limit=side.get("limit"), set=derived)


def _values(obj: Any) -> bool:
    return isinstance(obj, list | tuple | range) and all(isinstance(x, str) or _number(x) for x in obj)


def _region(pf: PaperFile, where: str, region: Mapping[str, Any]) -> Region:
    from dptheory.core.claims import Box, Region

    choices = {k: list(_resolve(pf, f"{where}: region", "choices", v, _values, "a list of values of the package")
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


# ----------------------------------------------------------------------------- theorems
def _check_names(source: str, notations: Mapping[str, NotationTable], symbols: Mapping[str, Any],
                 defines: Mapping[str, Any]) -> None:
    """``[symbols.<notation>]`` and ``[define.<notation>]``: of a declared notation, new names, valid fields."""
    for table, kind in ((symbols, "symbols"), (defines, "define")):
        for key, body in table.items():
            where = f"[{kind}.{key}]"
            if key not in notations:
                raise DPTheoryError(f"{source}: {where}: no [notation.{key}] in the file; declared: "
                                    f"{_listed(notations)}")
            if not isinstance(body, dict):
                raise DPTheoryError(f"{source}: {where} must be a table")
            for name, value in body.items():
                if name in notations[key] or (kind == "define" and name in symbols.get(key, {})):
                    raise _bad(source, where, name, value, "a name that is not a parameter or a symbol already")
                if kind == "symbols":
                    _fields(source, f"{where}: {name}", value, _SYMBOL_FIELDS)
                elif not isinstance(value, str) and not (isinstance(value, dict) and set(value) == {"latex"}):
                    raise _bad(source, where, name, value, _FORMULA + ", or a table { latex = '...' }")


def _check_theorem(source: str, i: int, table: Any, papers: Mapping[str, Paper],
                   notations: Mapping[str, NotationTable], earlier: list[str]) -> None:
    """Validate one ``[[theorem]]`` table as data (its formulas are parsed by :meth:`PaperFile.theorems`)."""
    key = table.get("key") if isinstance(table, dict) else None
    where = f"[[theorem]] {key}" if isinstance(key, str) else f"[[theorem]] number {i + 1}"
    _fields(source, where, table, _THEOREM_FIELDS)
    if table["key"] in earlier:
        raise _bad(source, where, "key", table["key"], "a key no other [[theorem]] of the file has")
    _fields(source, f"{where}: citation", table["citation"], _CITATION_FIELDS)
    if table["citation"]["paper"] not in papers:
        raise _bad(source, where, "citation", table["citation"],
                   f"a paper declared in this file ({_listed(papers)}), as {{ paper = KEY, item = ... }}")
    if table["notation"] not in notations:
        raise _bad(source, where, "notation", table["notation"], f"a notation of this file: {_listed(notations)}")
    notation = notations[table["notation"]]
    for field in ("params", "slow_fractional"):
        for name in table.get(field, []):
            if not isinstance(name, str) or name not in notation:
                raise _bad(source, where, field, name, f"a parameter of [notation.{table['notation']}]: "
                           f"{', '.join(notation.params)}")
    for field, enum in (("direction", Direction), ("unit", Unit)):
        if field in table and table[field] not in {e.value for e in enum}:
            raise _bad(source, where, field, table[field], _THEOREM_FIELDS[field][1])
    for name, sense in table.get("monotone", {}).items():
        if name not in table["params"] or sense not in {m.value for m in Monotone}:
            raise _bad(source, where, "monotone", {name: sense}, "a table parameter (of params) = one of "
                       + ", ".join(repr(m.value) for m in Monotone))
    if ("bound" in table) + ("bound_latex" in table) > 1:
        raise DPTheoryError(f"{source}: {where}: give at most one of the fields 'bound' and 'bound_latex'")
    for j, cond in enumerate(table.get("conditions", [])):
        _fields(source, f"{where}: condition {j + 1}", cond, _CONDITION_FIELDS)
        if ("when" in cond) == ("when_latex" in cond):
            raise DPTheoryError(f"{source}: {where}: condition {j + 1}: give exactly one of 'when' and 'when_latex'")
    for field in ("assumptions", "statement", "definitions"):
        if not all(isinstance(x, str) for x in table.get(field, [])):
            raise _bad(source, where, field, table[field], _THEOREM_FIELDS[field][1])
    if "kernels" in table:
        _fields(source, f"{where}: kernels", table["kernels"], _KERNEL_FIELDS)
    for name, term in table.get("terms", {}).items():
        _fields(source, f"{where}: terms: {name}", term, _TERM_FIELDS)


def _names(pf: PaperFile, notation: str) -> dict[str, Any]:
    import sympy as sp

    from dptheory.core.expressions import ExpressionError

    names: dict[str, Any] = {p.name: p.symbol for p in pf.notation(notation).params.values()}
    for name, spec in pf.symbol_tables.get(notation, {}).items():
        printed, function = spec.get("name", name), spec.get("function", False)
        if isinstance(function, str):
            names[name] = _resolve(pf, f"[symbols.{notation}]: {name}", "function", function,
                                   lambda f: isinstance(f, sp.FunctionClass), "a sympy function class of the package")
        else:
            names[name] = (sp.Function(printed) if function else
                           sp.Symbol(printed, **{k: v for k, v in spec.items() if k not in ("name", "function")}))
    for name, formula in pf.define_tables.get(notation, {}).items():
        try:
            names[name] = _parse(formula, names, pf.notation(notation))
        except ExpressionError as exc:
            raise DPTheoryError(f"{pf.source}: [define.{notation}]: {name}: {exc}") from None
    return names


def _parse(formula: str | Mapping[str, str], names: Mapping[str, Any], notation: NotationTable) -> Any:
    """A formula as sympy text, or as ``{latex = ...}`` (LaTeX), in ``names``."""
    from dptheory.core.expressions import parse_latex, parse_text

    if isinstance(formula, str):
        return parse_text(formula, names)
    return parse_latex(formula["latex"], names, {p.name: p.latex for p in notation.params.values()})


def _theorem(pf: PaperFile, table: Mapping[str, Any]) -> Theorem:
    """Build one validated ``[[theorem]]`` table: formulas parsed in the notation's names, kernels resolved."""
    from dptheory.core.conditions import Condition
    from dptheory.core.expressions import ExpressionError
    from dptheory.core.theorem import Term, Theorem

    where = f"[[theorem]] {table['key']}"
    notation = pf.notation(table["notation"])
    names = pf.names(table["notation"])

    def formula(field: str, text: str | Mapping[str, str]) -> Any:
        try:
            return _parse(text, names, notation)
        except ExpressionError as exc:
            raise DPTheoryError(f"{pf.source}: {where}: field {field!r}: {exc}") from None

    def function(field: str, name: str) -> Any:
        return _resolve(pf, where, field, name, _is_function, "a function of the package")

    cit = table["citation"]
    fields: dict[str, Any] = {
        "citation": pf.papers[cit["paper"]].item(cit["item"], eq=cit.get("eq"), note=cit.get("note", "")),
        "conditions": tuple(
            Condition(formula(f"conditions {j + 1}", c["when"] if "when" in c else {"latex": c["when_latex"]}),
                      c["reason"]) for j, c in enumerate(table.get("conditions", []))),
        "statement": tuple(formula(f"statement {j + 1}", s) for j, s in enumerate(table.get("statement", []))),
        "definitions": tuple(formula(f"definitions {j + 1}", s) for j, s in enumerate(table.get("definitions", []))),
        "direction": Direction(table["direction"]),
        "monotone": {k: Monotone(v) for k, v in table.get("monotone", {}).items()},
        "params": tuple(table["params"]),
        "assumptions": tuple(table.get("assumptions", ())),
        "slow_fractional": tuple(table.get("slow_fractional", ())),
    }
    if "bound" in table or "bound_latex" in table:
        fields["bound"] = formula("bound", table["bound"] if "bound" in table else {"latex": table["bound_latex"]})
    if "unit" in table:
        fields["unit"] = Unit(table["unit"])
    kernels = table.get("kernels", {})
    for backend in ("mp", "np", "arb"):
        if backend in kernels:
            fields[backend] = function(f"kernels: {backend}", kernels[backend])
    if "reason" in kernels:
        reason = kernels["reason"]
        fields["kernel_reason"] = (_resolve(pf, f"{where}: kernels", "reason", reason, lambda r: isinstance(r, str),
                                            "a string of the package") if _REF.fullmatch(reason) else reason)
    fields["terms"] = {
        name: Term(name, t["description"], function(f"terms: {name}: mp", t["mp"]) if "mp" in t else None,
                   function(f"terms: {name}: np", t["np"]) if "np" in t else None,
                   formula(f"terms: {name}: expr", t["expr"]) if "expr" in t else None)
        for name, t in table.get("terms", {}).items()}
    plain = ("key", "title", "quantity", "np_flagged", "infinite_when", "reading", "notes")
    try:
        return Theorem(notation=notation, **{k: table[k] for k in plain if k in table}, **fields)
    except ValueError as exc:
        raise DPTheoryError(f"{pf.source}: {where}: {exc}") from None
