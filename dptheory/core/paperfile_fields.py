"""The fields of every table of a paper file, and the checks that read them: the format's types and messages, once.

Each table of a paper file (``docs/adding_a_paper.md``, sections 2 and 3) has its :data:`Spec` here: ``PAPER_FIELDS``
and ``PARAM_FIELDS`` (papers, notation tables); ``CLAIM_FIELDS`` and its parts (``CITATION_FIELDS``, the sides,
``REGION_FIELDS``, ``BOX_FIELDS``, ``FINDING_FIELDS``, ``FAILING_FIELDS`` and ``EDGE_FIELDS``);
``THEOREM_FIELDS`` and its parts (``CONDITION_FIELDS``,
``KERNEL_FIELDS``, ``TERM_FIELDS``), ``SYMBOL_FIELDS``, ``KNOWN_VALUE_FIELDS``. :mod:`dptheory.core.paperfile`
(papers, notation tables, claims) and :mod:`dptheory.core.paperfile_theorems` (theorems, symbols, definitions, known
values) check their tables with :func:`check_fields` and :func:`bad`, so that every message of a paper file has one
form (``<file>:<line>: <table>: field '<field>' is <value>; accepted: <what is accepted>``), and resolve the names a
file gives (``module.name``, :data:`REF`) with :func:`resolve`, in the file's own package only.

Every message is a :class:`~dptheory.core.errors.PaperFileError` (:func:`error`): ``tomllib`` gives no positions,
so the loaders raise it with the table and the field, and :func:`locate` (called once per stage, by
:func:`located`) finds the line in the file's text: the table's header (an array's element by its ``key = "..."``
line or its number), then each part of the path (``region``, ``certify``, ``condition 2``) and the field, the first
line of each within the table's span.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping
from types import FunctionType
from typing import Any, Protocol

from dptheory.core.errors import PaperFileError
from dptheory.core.notation import Domain
from dptheory.core.units import Direction, Monotone, Unit

Spec = dict[str, tuple[tuple[type, ...], str, bool]]
"""A table's fields: field -> (accepted Python types, what the message says is accepted, required)."""

NAME = "the dotted name module.name of an object of the paper's package"
"""What a field that names an object of the package accepts (``.replace("an object", ...)`` says which object)."""

CITATION = ("a table { paper, item, eq, note }, or a string: the item of the file's only paper (\"Theorem 23\")")
"""What a ``citation`` of a theorem or a claim accepts."""
PAPER_FIELDS: Spec = {
    "authors": ((str,), "a string", True),
    "year": ((int,), "an integer", True),
    "title": ((str,), "a string", True),
    "venue": ((str,), "a string", False),
    "arxiv_id": ((str,), "a string", False),
    "arxiv_version": ((int,), "an integer", False),
}
PARAM_FIELDS: Spec = {
    "name": ((str,), "a string", True),
    "latex": ((str,), "a string (default: sympy's LaTeX of the name, e.g. \\alpha for alpha)", False),
    "meaning": ((str,), "a string", True),
    "domain": ((str,), "one of " + ", ".join(repr(d.value) for d in Domain), True),
    "range": ((list,), "an array [lo, hi] of two numbers (default: by domain, DEFAULT_RANGES)", False),
    "log": ((bool,), "true or false (default: true when 0 < lo and hi >= 100 lo)", False),
    "unit": ((str,), "a string", False),
}
CLAIM_FIELDS: Spec = {
    "key": ((str,), "a string", True),
    "title": ((str,), "a string (default: the reading)", False),
    "citation": ((str, dict), CITATION, True),
    "statement": ((str,), "a string", True),
    "reading": ((str,), "a string (default: 'lhs relation rhs' in the sides' labels)", False),
    "lhs": ((dict,), "a side: a table { theorem, label, term, limit, set } or { constant, label }", True),
    "rhs": ((dict,), "a side: a table { theorem, label, term, limit, set } or { constant, label }", True),
    "relation": ((str,), "one of '<', '<=', '>', '>=', '=='", True),
    "factor": ((int, float), "a number > 0 (a 'same order' claim: lhs/rhs in [1/factor, factor])", False),
    "verdict": ((str,), "one of 'proved', 'certified', 'exhaustive', 'not falsified', 'falsified'", False),
    "region": ((dict,), "a table { description, fixed, choices, ranges, certify }", False),
    "where": ((dict,), "a table parameter = a value, or [low, high] (exact: integers or decimal strings)", False),
    "symbolic": ((str,), NAME.replace("an object", "a function"), False),
    "counterexamples": ((list,), "an array of tables (parameter = value)", False),
    "finding": ((str, dict), "a string, or a table { text, pins } or { text, values }", False),
    "tags": ((list,), "an array of strings", False),
    "failing": ((dict,), "a table { fails_on, evidence, edges, everywhere } (where a falsified claim fails)", False),
    "companion_of": ((str,), "the key of the falsified claim whose holding part this claim states", False),
}
CITATION_FIELDS: Spec = {
    "paper": ((str,), "the key of a [paper.<key>] of this file", True),
    "item": ((str,), "a string", True),
    "eq": ((str, int), "a string or an integer", False),
    "note": ((str,), "a string", False),
}
"""A ``citation = { paper, item, eq, note }`` of a claim or a theorem."""
THEOREM_SIDE_FIELDS: Spec = {
    "theorem": ((str,), "a registered theorem key", True),
    "label": ((str,), "a string", False),
    "term": ((str,), "the name of one of the theorem's terms", False),
    "limit": ((str,), "the parameter of one of the theorem's limits", False),
    "set": ((dict,), "a table parameter = an integer, a formula in the theorem's parameters, or " +
            NAME.replace("an object", "a sympy expression"), False),
}
CONSTANT_SIDE_FIELDS: Spec = {
    "constant": ((int, float), "a number (inf for +infinity)", True),
    "label": ((str,), "a string", True),
    "unit": ((str,), "one of " + ", ".join(repr(u.value) for u in Unit) + " (the claim's sides must agree)", False),
}
REGION_FIELDS: Spec = {
    "description": ((str,), "a string", False),
    "fixed": ((dict,), "a table parameter = value", False),
    "choices": ((dict,), "a table parameter = an array of values or " +
                NAME.replace("an object", "a list of values"), False),
    "ranges": ((dict,), "a table parameter = [low, high, log]", False),
    "certify": ((dict,), "a table { intervals, integers, log, free, max_boxes }", False),
}
BOX_FIELDS: Spec = {
    "intervals": ((dict,), "a table parameter = [low, high] (exact: integers or decimal strings)", False),
    "integers": ((dict,), "a table parameter = [low, high] (integers)", False),
    "log": ((list,), "an array of parameter names", False),
    "free": ((dict,), "a table parameter = value", False),
    "max_boxes": ((int,), "an integer", False),
}
FAILING_FIELDS: Spec = {
    "fails_on": ((str,), "a string (the failing part: parameter ranges in words)", True),
    "evidence": ((str,), "a string (how the failing part was found: the search or grid, its counts)", True),
    "edges": ((list,), "an array of tables { fails, holds, across }", True),
    "everywhere": ((bool,), "true or false (the claim fails at every point of its region)", False),
}
"""A falsified claim's ``failing = { ... }``: where it fails (:class:`~dptheory.core.findings.FindingMap`)."""
EDGE_FIELDS: Spec = {
    "fails": ((dict,), "a table parameter = value (a point where the claim fails)", True),
    "holds": ((dict,), "a table parameter = value (a point just outside the failing part where it holds)", False),
    "across": ((str,), "a string (what changes between the two points)", False),
}
"""One edge of a failing part (:class:`~dptheory.core.findings.Edge`)."""
FINDING_FIELDS: Spec = {
    "text": ((str,), "a string (a template: {field:spec})", True),
    "pins": ((list,), "an array with, per pin, a table field = 'lhs', 'rhs' or a pinned parameter", False),
    "values": ((str,), NAME.replace("an object", "a function of the claim"), False),
}
FORMULA = "a formula: sympy text (e.g. \"T*alpha/(2*z**2)\") in the declared names"
THEOREM_FIELDS: Spec = {
    "key": ((str,), "a string", True),
    "title": ((str,), "a string", True),
    "citation": ((str, dict), CITATION, True),
    "notation": ((str,), "the key of a [notation.<key>] of this file (default: the file's only one)", False),
    "params": ((list,), "an array of parameter names of the notation table (default: those its formulas use)", False),
    "conditions": ((list,), "an array of tables { when, reason } (when: a comparison, or when_latex)", False),
    "assumptions": ((list,), "an array of strings", False),
    "bound": ((str,), FORMULA, False),
    "bound_latex": ((str,), "a formula in LaTeX (read by sympy's parse_latex)", False),
    "statement": ((list,), "an array of formulas (relations, e.g. \"Eq(A, B)\" or \"a <= b\")", False),
    "definitions": ((list,), "an array of formulas Eq(name, value)", False),
    "direction": ((str,), "one of " + ", ".join(repr(d.value) for d in Direction) + " (default: 'upper')", False),
    "quantity": ((str,), "a string (default: \"the bound of\" the citation's item)", False),
    "unit": ((str,), "one of " + ", ".join(repr(u.value) for u in Unit), False),
    "monotone": ((dict,), "a table parameter = one of " + ", ".join(repr(m.value) for m in Monotone), False),
    "kernels": ((dict,), "a table { mp, np, arb, reason }: functions of the package (module.name) and why", False),
    "terms": ((dict,), "a table name = { description, expr, mp, np, arb }", False),
    "limits": ((dict,), "a table parameter = the formula of the bound's limit as it tends to infinity (as the paper "
               "states it; a claim's side reads it with limit = \"K\")", False),
    "np_flagged": ((bool,), "true or false", False),
    "slow_fractional": ((list,), "an array of parameter names", False),
    "infinite_when": ((str,), "a string", False),
    "reading": ((str,), "a string", False),
    "notes": ((str,), "a string", False),
}
CONDITION_FIELDS: Spec = {
    "when": ((str,), "a comparison in sympy text (e.g. \"beta < 1\")", False),
    "when_latex": ((str,), "a comparison in LaTeX", False),
    "reason": ((str,), "a string (why it is needed, as the paper says)", True),
}
KERNEL_FIELDS: Spec = {
    "mp": ((str,), NAME.replace("an object", "a function p -> mpf"), False),
    "np": ((str,), NAME.replace("an object", "a function p -> float64 array"), False),
    "arb": ((str,), NAME.replace("an object", "a function p -> arb ball"), False),
    "reason": ((str,), "a string, or " + NAME.replace("an object", "a string"), True),
}
TERM_FIELDS: Spec = {
    "description": ((str,), "a string", True),
    "expr": ((str,), FORMULA, False),
    "mp": ((str,), NAME.replace("an object", "a function p -> mpf"), False),
    "np": ((str,), NAME.replace("an object", "a function p -> float64 array"), False),
    "arb": ((str,), NAME.replace("an object", "a function p -> arb ball"), False),
}
SYMBOL_FIELDS: Spec = {
    "name": ((str,), "a string (the printed name; default: the table's name)", False),
    "function": ((bool, str), "true (an undefined function, e.g. kl), or " +
                 NAME.replace("an object", "a sympy function class (one that prints itself)"), False),
    "positive": ((bool,), "true or false", False),
    "nonnegative": ((bool,), "true or false", False),
    "integer": ((bool,), "true or false", False),
    "real": ((bool,), "true or false", False),
}
KNOWN_VALUE_FIELDS: Spec = {
    "theorem": ((str,), "a theorem key", True),
    "term": ((str,), "the name of one of the theorem's terms", False),
    "params": ((dict,), "a table parameter = an integer or a decimal string (exact inputs)", True),
    "value": ((str, int, float), "the independent value: a decimal string (or inf), or a formula of numbers "
              "(\"0.08*(1 - exp(-1))\", evaluated at 60 digits)", True),
    "rel_tol": ((float,), "a relative tolerance > 0 (default and loosest: 1e-30 for a transcription, 1e-20 for a "
                "second derivation or brute force, 1e-9 for a peer)", False),
    "method": ((str,), "one of transcription, second-derivation, brute-force, peer (default: transcription)", False),
    "source": ((str,), "a string: how the value was obtained, independently of the bound as written here", True),
}
REF = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+")
"""A dotted name ``module.name`` (a string that is not one is a value: a formula, a text)."""


class PackageFile(Protocol):
    """What :func:`resolve` reads of a :class:`~dptheory.core.paperfile.PaperFile`: its name in messages and its
    package (a protocol: this module is below ``paperfile``, which imports it)."""

    @property
    def source(self) -> str: ...

    @property
    def package(self) -> str: ...


def listed_keys(keys: Mapping[str, Any]) -> str:
    return ", ".join(sorted(keys)) or "none"


def check_fields(source: str, where: str, table: Any, spec: Spec) -> None:
    """Check that ``table`` is a table with exactly the keys of ``spec``, each of its accepted type."""
    if not isinstance(table, dict):
        raise PaperFileError(source, where, None, "must be a table")
    for name in table:
        if name not in spec:
            raise error(source, where, name, f"unknown field {name!r}; accepted: {', '.join(spec)}")
    for name, (types, accepted, required) in spec.items():
        if name not in table:
            if required:
                raise error(source, where, None, f"missing field {name!r} ({accepted})")
            continue
        value = table[name]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            raise bad(source, where, name, value, accepted)


def error(source: str, where: str, field: str | None, problem: str) -> PaperFileError:
    """The one error of a paper file: ``problem`` (what is wrong, what is accepted) in ``field`` of the table
    ``where`` (its line is found by :func:`located`)."""
    return PaperFileError(source, where, field, problem)


def bad(source: str, where: str, field: str, value: Any, accepted: str) -> PaperFileError:
    return error(source, where, field, f"field {field!r} is {value!r}; accepted: {accepted}")


DEFAULT_RANGES: Mapping[Domain, tuple[int | float, int | float]] = {
    Domain.REAL: (-1000.0, 1000.0), Domain.POSITIVE: (0.001, 1000.0), Domain.NONNEGATIVE: (0.0, 1000.0),
    Domain.INTEGER: (-1000, 1000), Domain.POSITIVE_INTEGER: (1, 1000), Domain.NONNEGATIVE_INTEGER: (0, 1000),
}
"""A parameter's sample range when its ``[[notation.*.param]]`` gives none (where property tests and searches draw;
not a condition: values outside stay valid)."""


def default_log(lo: float, hi: float) -> bool:
    """A sample range is drawn on a log scale by default when it is positive and spans two decades or more."""
    return 0 < lo and hi >= 100 * lo


def citation_table(source: str, where: str, value: Any, papers: Mapping[str, Any]) -> dict[str, Any]:
    """A ``citation`` as a table ``{ paper, item, eq, note }`` of a paper of the file: a string is the item of the
    file's only paper (``citation = "Theorem 23"``)."""
    if isinstance(value, str):
        if len(papers) != 1:
            raise bad(source, where, "citation", value, "a table { paper = KEY, item = ... } when the file declares "
                      f"several papers, or none ({listed_keys(papers)})")
        return {"paper": next(iter(papers)), "item": value}
    check_fields(source, f"{where}: citation", value, CITATION_FIELDS)
    if value["paper"] not in papers:
        raise bad(source, where, "citation", value,
                  f"a paper declared in this file ({listed_keys(papers)}), as {{ paper = KEY, item = ... }}")
    return dict(value)


def located(exc: PaperFileError, text: str) -> PaperFileError:
    """``exc`` with the line of its field in ``text`` (the file's source), when it has none yet and it is found."""
    if exc.line is not None or not text:
        return exc
    line = locate(text, exc.where, exc.field)
    return exc if line is None else PaperFileError(exc.source, exc.where, exc.field, exc.problem, line)


_STRING = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:\\.|[^"\\\n])*"|\'[^\'\n]*\'|#[^\n]*')
_ARRAY_ITEM = re.compile(r"\[\[([^\]]+)\]\] (?:number (\d+)|(\S+))")
_TABLE = re.compile(r"\[([^\[\]]+)\]")
_NUMBERED = re.compile(r"(condition|conditions|statement|definitions) (\d+)$")


def _masked(text: str) -> list[str]:
    """The lines of ``text`` with every string's and comment's characters blanked (a key is never matched inside
    a value); line breaks kept, so line numbers are unchanged."""
    def blank(m: re.Match[str]) -> str:
        return re.sub(r"[^\n]", " ", m.group(0))

    return _STRING.sub(blank, text).split("\n")


def _key_at(line: str, key: str) -> bool:
    """``line`` (masked) gives the key ``key``: ``key =``, ``key.sub =``, ``{ key = ``, a header ``[a.key]``."""
    return re.search(rf"(^|[\s{{,.\[]){re.escape(key)}\s*(=|\.|\])", line) is not None


def locate(text: str, where: str, field: str | None) -> int | None:
    """The line (1-based) of ``field`` of the table ``where`` in ``text``, or of the table when the field is not
    written there (a missing field); ``None`` when the table itself cannot be found."""
    lines, raw = _masked(text), text.split("\n")
    headers = [i for i, ln in enumerate(lines) if ln.lstrip().startswith("[")]
    head, *path = where.split(": ")
    start: int | None = None
    keyed: int | None = None  # an array's element: its key = "..." line
    if head == "the file":
        start, end = 0, len(lines)
        path = []
    elif m := _ARRAY_ITEM.match(head):
        name, number, key = m.group(1), m.group(2), m.group(3)
        items = [i for i in headers if lines[i].strip() == f"[[{name}]]"]
        for n, i in enumerate(items):
            nxt = next((h for h in headers if h > i and not re.match(
                rf"\s*\[\[?{re.escape(name)}\.", lines[h])), len(lines))
            hit = (number is not None and n + 1 == int(number)) or (key is not None and any(
                re.match(r"\s*key\s*=", lines[j]) and re.search(rf"[\"']{re.escape(key)}[\"']", raw[j])
                for j in range(i, nxt)))
            if hit:
                start, end = i, nxt
                keyed = next((j for j in range(i, nxt) if re.match(r"\s*key\s*=", lines[j])), None)
                break
    elif m := _TABLE.fullmatch(head):
        name = m.group(1)
        for i in headers:
            if lines[i].strip() in (f"[{name}]", f"[[{name}]]"):
                start = i
                end = next((h for h in headers if h > i and not re.match(
                    rf"\s*\[\[?{re.escape(name)}\.", lines[h])), len(lines))
                break
    if start is None:
        return None
    found_any = False
    for part in [*path, *(field.split(": ") if field else [])]:
        part = re.sub(r" \(.*\)$", "", part)
        numbered = _NUMBERED.match(part)
        key, nth = (("conditions", int(numbered.group(2))) if numbered and numbered.group(1).startswith("condition")
                    else (numbered.group(1), 0) if numbered else (part, 0))
        found = next((i for i in range(start, end) if _key_at(lines[i], key)), None)
        if found is None:
            continue
        start, found_any = found, True
        if nth:  # the nth { when = ... } of the conditions
            whens = [i for i in range(found, end) for _ in re.finditer(r"\bwhen(_latex)?\s*=", lines[i])]
            if len(whens) >= nth:
                start = whens[nth - 1]
    if head == "the file" and not found_any:
        return None
    if not found_any and keyed is not None:
        return keyed + 1  # a problem of the table itself: its key = "..." line
    return start + 1


def resolve(pf: PackageFile, where: str, field: str, name: str, ok: Callable[[Any], bool], what: str) -> Any:
    """The object ``module.NAME`` of the file's package that ``ok`` accepts (a function must be defined in the
    package, not imported into it)."""
    module, _, attr = name.rpartition(".")
    accepted = f"{what} (module.name in {pf.package or 'the package of a loaded file'})"
    if not pf.package or any(part.startswith("__") for part in name.split(".")):
        raise bad(pf.source, where, field, name, accepted)
    try:
        obj = getattr(importlib.import_module(f"{pf.package}.{module}"), attr)
    except (ImportError, AttributeError) as exc:
        raise bad(pf.source, where, field, name, f"{accepted}; {exc}") from None
    defined_in = obj.__module__ if isinstance(obj, FunctionType) else f"{pf.package}.{module}"
    if not ok(obj) or not defined_in.startswith(pf.package + "."):
        raise bad(pf.source, where, field, name, f"{accepted}; it is {type(obj).__name__} from {defined_in}")
    return obj


def is_function(obj: Any) -> bool:
    return isinstance(obj, FunctionType)


def is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)
