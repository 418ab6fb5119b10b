"""A paper file's theorems as data: the ``[[theorem]]``, ``[symbols.*]``, ``[define.*]`` and ``[[known_value]]`` tables.

:func:`dptheory.core.paperfile.parse` checks these tables as data here (:func:`check_names`, :func:`check_theorem`,
:func:`known_value_row`); :meth:`PaperFile.theorems <dptheory.core.paperfile.PaperFile.theorems>` and
:meth:`PaperFile.names <dptheory.core.paperfile.PaperFile.names>` build them here (:func:`build_theorem`,
:func:`formula_names`): formulas parsed by :mod:`dptheory.core.expressions` (no code runs), kernels and terms
resolved as functions of the file's package. The format is ``docs/adding_a_paper.md``, section 2 ("Theorems as
data"); the tables' fields (``THEOREM_FIELDS`` ...), their checks and the form of every message are
:mod:`dptheory.core.paperfile_fields`, shared with the papers, notation tables and claims of
:mod:`dptheory.core.paperfile`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from dptheory.core.citation import Paper
from dptheory.core.notation import NotationTable
from dptheory.core.paperfile_fields import (
    CONDITION_FIELDS,
    FORMULA,
    KERNEL_FIELDS,
    KNOWN_VALUE_FIELDS,
    REF,
    SYMBOL_FIELDS,
    TERM_FIELDS,
    THEOREM_FIELDS,
    PackageFile,
    bad,
    check_fields,
    citation_table,
    error,
    is_function,
    listed_keys,
    resolve,
)
from dptheory.core.units import Direction, Monotone, Unit

if TYPE_CHECKING:
    from dptheory.core.theorem import Theorem


class TheoremFile(PackageFile, Protocol):
    """What this module reads of a :class:`~dptheory.core.paperfile.PaperFile` (a protocol: ``paperfile`` imports
    this module, and ``tests/test_architecture.py`` counts an import under ``TYPE_CHECKING`` in a cycle too)."""

    @property
    def papers(self) -> Mapping[str, Paper]: ...

    @property
    def symbol_tables(self) -> Mapping[str, Mapping[str, Any]]: ...

    @property
    def define_tables(self) -> Mapping[str, Mapping[str, Any]]: ...

    def notation(self, key: str) -> NotationTable: ...

    def names(self, notation: str) -> dict[str, Any]: ...


def check_names(source: str, notations: Mapping[str, NotationTable], symbols: Mapping[str, Any],
                 defines: Mapping[str, Any]) -> None:
    """``[symbols.<notation>]`` and ``[define.<notation>]``: of a declared notation, new names, valid fields."""
    for table, kind in ((symbols, "symbols"), (defines, "define")):
        for key, body in table.items():
            where = f"[{kind}.{key}]"
            if key not in notations:
                raise error(source, where, None, f"no [notation.{key}] in the file; declared: {listed_keys(notations)}")
            if not isinstance(body, dict):
                raise error(source, where, None, "must be a table")
            for name, value in body.items():
                if name in notations[key] or (kind == "define" and name in symbols.get(key, {})):
                    raise bad(source, where, name, value, "a name that is not a parameter or a symbol already")
                if kind == "symbols":
                    check_fields(source, f"{where}: {name}", value, SYMBOL_FIELDS)
                elif not isinstance(value, str) and not (isinstance(value, dict) and set(value) == {"latex"}):
                    raise bad(source, where, name, value, FORMULA + ", or a table { latex = '...' }")


def check_theorem(source: str, i: int, table: Any, papers: Mapping[str, Paper],
                   notations: Mapping[str, NotationTable], earlier: list[str]) -> None:
    """Validate one ``[[theorem]]`` table as data (its formulas are parsed by :meth:`PaperFile.theorems`)."""
    key = table.get("key") if isinstance(table, dict) else None
    where = f"[[theorem]] {key}" if isinstance(key, str) else f"[[theorem]] number {i + 1}"
    check_fields(source, where, table, THEOREM_FIELDS)
    if table["key"] in earlier:
        raise bad(source, where, "key", table["key"], "a key no other [[theorem]] of the file has")
    table["citation"] = citation_table(source, where, table["citation"], papers)
    if "notation" not in table and len(notations) == 1:
        table["notation"] = next(iter(notations))
    table.setdefault("direction", Direction.UPPER.value)
    table.setdefault("quantity", f"the bound of {table['citation']['item']}")
    if "notation" not in table:
        raise error(source, where, None, "missing field 'notation' (the file declares "
                    f"{len(notations)} notation tables: {listed_keys(notations)}; the default is the only one)")
    if table["notation"] not in notations:
        raise bad(source, where, "notation", table["notation"], f"a notation of this file: {listed_keys(notations)}")
    notation = notations[table["notation"]]
    for field in ("params", "slow_fractional"):
        for name in table.get(field, []):
            if not isinstance(name, str) or name not in notation:
                raise bad(source, where, field, name, f"a parameter of [notation.{table['notation']}]: "
                          f"{', '.join(notation.params)}")
    for field, enum in (("direction", Direction), ("unit", Unit)):
        if field in table and table[field] not in {e.value for e in enum}:
            raise bad(source, where, field, table[field], THEOREM_FIELDS[field][1])
    for name, sense in table.get("monotone", {}).items():
        if name not in table.get("params", notation.params) or sense not in {m.value for m in Monotone}:
            raise bad(source, where, "monotone", {name: sense}, "a table parameter (of params) = one of "
                      + ", ".join(repr(m.value) for m in Monotone))
    if ("bound" in table) + ("bound_latex" in table) > 1:
        raise error(source, where, "bound_latex", "give at most one of the fields 'bound' and 'bound_latex'")
    for j, cond in enumerate(table.get("conditions", [])):
        check_fields(source, f"{where}: condition {j + 1}", cond, CONDITION_FIELDS)
        if ("when" in cond) == ("when_latex" in cond):
            raise error(source, f"{where}: condition {j + 1}", None, "give exactly one of 'when' and 'when_latex'")
    for field in ("assumptions", "statement", "definitions"):
        if not all(isinstance(x, str) for x in table.get(field, [])):
            raise bad(source, where, field, table[field], THEOREM_FIELDS[field][1])
    if "kernels" in table:
        check_fields(source, f"{where}: kernels", table["kernels"], KERNEL_FIELDS)
    for name, term in table.get("terms", {}).items():
        check_fields(source, f"{where}: terms: {name}", term, TERM_FIELDS)
    for name, limit in table.get("limits", {}).items():
        if name not in notation or not isinstance(limit, str):
            raise bad(source, where, "limits", {name: limit}, "a table parameter (of the notation) = a formula")


def formula_names(pf: TheoremFile, notation: str) -> dict[str, Any]:
    import sympy as sp

    from dptheory.core.expressions import ExpressionError

    names: dict[str, Any] = {p.name: p.symbol for p in pf.notation(notation).params.values()}
    for name, spec in pf.symbol_tables.get(notation, {}).items():
        printed, function = spec.get("name", name), spec.get("function", False)
        if isinstance(function, str):
            names[name] = resolve(pf, f"[symbols.{notation}]: {name}", "function", function,
                                  lambda f: isinstance(f, sp.FunctionClass), "a sympy function class of the package")
        else:
            names[name] = (sp.Function(printed) if function else
                           sp.Symbol(printed, **{k: v for k, v in spec.items() if k not in ("name", "function")}))
    for name, formula in pf.define_tables.get(notation, {}).items():
        try:
            names[name] = _parse(formula, names, pf.notation(notation))
        except ExpressionError as exc:
            raise error(pf.source, f"[define.{notation}]", name, f"{name}: {exc}") from None
    return names


def _parse(formula: str | Mapping[str, str], names: Mapping[str, Any], notation: NotationTable) -> Any:
    """A formula as sympy text, or as ``{latex = ...}`` (LaTeX), in ``names``."""
    from dptheory.core.expressions import parse_latex, parse_text

    if isinstance(formula, str):
        return parse_text(formula, names)
    return parse_latex(formula["latex"], names, {p.name: p.latex for p in notation.params.values()})


def build_theorem(pf: TheoremFile, table: Mapping[str, Any]) -> Theorem:
    """Build one validated ``[[theorem]]`` table: formulas parsed in the notation's names, kernels resolved."""
    from dptheory.core.conditions import Condition
    from dptheory.core.expressions import ExpressionError
    from dptheory.core.theorem import Limit, Term, Theorem

    where = f"[[theorem]] {table['key']}"
    notation = pf.notation(table["notation"])
    names = pf.names(table["notation"])

    def formula(field: str, text: str | Mapping[str, str]) -> Any:
        try:
            return _parse(text, names, notation)
        except ExpressionError as exc:
            raise error(pf.source, where, field, f"field {field!r}: {exc}") from None

    def function(field: str, name: str) -> Any:
        return resolve(pf, where, field, name, is_function, "a function of the package")

    cit = table["citation"]
    written = [c["when"] if "when" in c else c["when_latex"] for c in table.get("conditions", [])]
    relations = [formula(f"conditions {j + 1}", c["when"] if "when" in c else {"latex": c["when_latex"]})
                 for j, c in enumerate(table.get("conditions", []))]
    check_conditions(pf.source, where, written, relations, notation)
    fields: dict[str, Any] = {
        "citation": pf.papers[cit["paper"]].item(cit["item"], eq=cit.get("eq"), note=cit.get("note", "")),
        "conditions": tuple(Condition(rel, c["reason"]) for rel, c in zip(relations, table.get("conditions", []),
                                                                           strict=True)),
        "statement": tuple(formula(f"statement {j + 1}", s) for j, s in enumerate(table.get("statement", []))),
        "definitions": tuple(formula(f"definitions {j + 1}", s) for j, s in enumerate(table.get("definitions", []))),
        "direction": Direction(table["direction"]),
        "monotone": {k: Monotone(v) for k, v in table.get("monotone", {}).items()},
        "params": tuple(table["params"]) if "params" in table else (),
        "assumptions": tuple(table.get("assumptions", ())),
        "slow_fractional": tuple(table.get("slow_fractional", ())),
    }
    if "bound" in table or "bound_latex" in table:
        fields["bound"] = (formula("bound", table["bound"]) if "bound" in table else
                           formula("bound_latex", {"latex": table["bound_latex"]}))
    if "params" not in table:  # the notation's parameters the formulas use, in the notation's order
        used = set().union(*(e.free_symbols for e in (fields.get("bound"), *relations, *fields["statement"],
                                                      *fields["definitions"]) if e is not None))
        fields["params"] = tuple(p.name for p in notation.params.values() if p.symbol in used)
        for name in table.get("monotone", {}):
            if name not in fields["params"]:
                raise bad(pf.source, where, "monotone", {name: table["monotone"][name]},
                          f"a parameter the formulas use: {', '.join(fields['params'])}")
    if "unit" in table:
        fields["unit"] = Unit(table["unit"])
    kernels = table.get("kernels", {})
    for backend in ("mp", "np", "arb"):
        if backend in kernels:
            fields[backend] = function(f"kernels: {backend}", kernels[backend])
    if "reason" in kernels:
        reason = kernels["reason"]
        fields["kernel_reason"] = (resolve(pf, f"{where}: kernels", "reason", reason, lambda r: isinstance(r, str),
                                           "a string of the package") if REF.fullmatch(reason) else reason)
    fields["terms"] = {
        name: Term(name, t["description"], function(f"terms: {name}: mp", t["mp"]) if "mp" in t else None,
                   function(f"terms: {name}: np", t["np"]) if "np" in t else None,
                   formula(f"terms: {name}: expr", t["expr"]) if "expr" in t else None,
                   function(f"terms: {name}: arb", t["arb"]) if "arb" in t else None)
        for name, t in table.get("terms", {}).items()}
    fields["limits"] = {name: Limit(name, expr=formula(f"limits: {name}", text),
                                    derivation=f"the limit as the paper states it ({pf.source})")
                        for name, text in table.get("limits", {}).items()}
    for name in fields["limits"]:
        if name not in fields["params"]:
            raise bad(pf.source, where, "limits", {name: table["limits"][name]},
                      f"a parameter of the theorem: {', '.join(fields['params'])}")
    plain = ("key", "title", "quantity", "np_flagged", "infinite_when", "reading", "notes")
    try:
        return Theorem(notation=notation, **{k: table[k] for k in plain if k in table}, **fields)
    except ValueError as exc:
        raise error(pf.source, where, None, str(exc)) from None


def _declared(text: str, notation: NotationTable) -> str:
    """What the parameters a condition names are declared to be (``alpha is declared positive``)."""
    named = [p for p in notation.params.values() if re.search(rf"(?<![\w\\]){re.escape(p.name)}(?!\w)", text)
             or (p.latex.startswith("\\") and p.latex.strip() in text)]
    return ", ".join(f"{p.name} is declared {p.domain.value}" for p in named) or "its numbers decide it"


def _domain_set(param: Any) -> Any:
    """The set of values a parameter's domain allows (:class:`~dptheory.core.notation.Domain`), as a sympy set."""
    import sympy as sp

    from dptheory.core.notation import Domain

    low = {Domain.POSITIVE: sp.Interval.open(0, sp.oo), Domain.NONNEGATIVE: sp.Interval(0, sp.oo),
           Domain.POSITIVE_INTEGER: sp.Interval(1, sp.oo), Domain.NONNEGATIVE_INTEGER: sp.Interval(0, sp.oo)}
    values = low.get(param.domain, sp.Reals)
    return sp.Intersection(values, sp.Integers) if param.domain.is_integer else values


def check_conditions(source: str, where: str, written: list[str], relations: list[Any],
                     notation: NotationTable) -> None:
    """Refuse a condition that the parameters' domains decide (sympy folds it to True or False when it is built),
    and conditions on one parameter that no value of its domain satisfies together (decided symbolically:
    the intersection of their solution sets, :meth:`sympy.core.relational.Relational.as_set`, with the domain)."""
    import sympy as sp

    for j, (text, rel) in enumerate(zip(written, relations, strict=True)):
        if rel is sp.false or rel is sp.true:
            problem = (f"'{text}' can never hold ({_declared(text, notation)}); accepted: a condition that holds at "
                       "some point of the parameters' domains" if rel is sp.false else
                       f"'{text}' always holds ({_declared(text, notation)}), so it says nothing at a point; "
                       "accepted: a condition the domains do not decide (drop this one)")
            raise error(source, where, f"conditions {j + 1}", f"field 'conditions': {problem}")
    by_param: dict[str, list[int]] = {}
    for j, rel in enumerate(relations):
        free = rel.free_symbols
        if len(free) == 1 and (name := next(iter(free)).name) in notation.params:
            by_param.setdefault(name, []).append(j)
    for name, js in by_param.items():
        if len(js) < 2:  # one condition alone against the domain: sympy decided it above, when it could
            continue
        try:
            together = sp.Intersection(_domain_set(notation.params[name]), *(relations[j].as_set() for j in js))
        except (NotImplementedError, TypeError, ValueError):  # not a condition sympy can solve: not decided here
            continue
        if together is sp.EmptySet:
            listed = " and ".join(f"'{written[j]}'" for j in js)
            raise error(source, where, f"conditions {js[-1] + 1}",
                        f"field 'conditions': {listed} can never hold together for {name} (declared "
                        f"{notation.params[name].domain.value}; decided symbolically); accepted: conditions that "
                        "hold together at some point of the domains")


def _known_number(source: str, where: str, value: Any) -> Any:
    """A known value as a number: a decimal string, ``inf``, a TOML number, or a formula of numbers in sympy text
    (``"0.08*(1 - exp(-1))"``, ``"2*2/(16*1000)"``: read by :mod:`dptheory.core.expressions`, no names) evaluated
    at 60 significant digits."""
    if not isinstance(value, str) or value == "inf":
        return value
    try:
        float(value)
        return value
    except ValueError:
        pass
    import sympy as sp

    from dptheory.core.expressions import ExpressionError, parse_text

    try:
        expr = parse_text(value, {})
    except ExpressionError as exc:
        raise error(source, where, "value", f"field 'value': {value!r} is neither a number nor a formula of numbers "
                    f"({exc})") from None
    number = sp.N(expr, 60)
    if not (isinstance(number, sp.Float) and number.is_finite):
        raise bad(source, where, "value", value, "a number, or a formula of numbers with a finite real value")
    return str(number)


def known_value_row(source: str, i: int, table: Any) -> dict[str, str]:
    """One ``[[known_value]]`` table as a known-value row (the CSV's columns), checked as data."""
    import json

    from dptheory.core.known_values import MAX_TOL, row_problems

    key = table.get("theorem") if isinstance(table, dict) else None
    where = f"[[known_value]] number {i + 1}" + (f" ({key})" if isinstance(key, str) else "")
    check_fields(source, where, table, KNOWN_VALUE_FIELDS)
    value, method = _known_number(source, where, table["value"]), table.get("method", "transcription")
    rel_tol = table.get("rel_tol", MAX_TOL.get(method, MAX_TOL["transcription"]))
    row = {"key": table["theorem"], "term": table.get("term", ""), "params": json.dumps(table["params"]),
           "value": value if isinstance(value, str) else repr(value), "rel_tol": repr(rel_tol),
           "method": method, "source": table["source"], "where": f"{source}: {where}"}
    problems = row_problems(row)
    if problems:
        problem = problems[0].removeprefix(f"{source}: {where}: ")
        field = next((f for f in ("params", "rel_tol", "method", "value", "source")
                      if re.match(rf"(the |a peer )?{f[:5]}", problem)), None)
        raise error(source, where, "source" if problem.startswith("a peer") else field, problem)
    return row
