"""Describing theorems, claims and values to people: pretty formulas, short reprs, LaTeX with definitions.

The rendering of every object lives here, not in the objects' modules: :func:`explain` (``Theorem.explain``,
``dptheory show``), :func:`latex_block` (``dptheory show --latex``: the bound, then the definitions it uses,
e.g. Ye & Shokri's eps_0^j, then the conditions), :func:`claim_text` and the one-line reprs
(:func:`theorem_repr`, :func:`claim_repr`, :func:`value_repr`) that notebooks show.

Formulas are printed with sympy's unicode pretty printer in the paper's notation (``lam`` is shown as λ,
``S_g`` as S_g with a subscript), sums with their positive terms first (``1 - ηλ``, as the papers write
them), and an equation as ``a = b``. A formula wider than the terminal is printed one term per block
(``+ term``), and one that is still too wide falls back to one line.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Mapping
from typing import Any

import sympy as sp
from sympy.printing.pretty.pretty import PrettyPrinter
from sympy.printing.pretty.stringpict import prettyForm
from sympy.printing.str import StrPrinter

_GREEK = {
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu", "nu",
    "xi", "omicron", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi", "omega", "Gamma", "Delta",
    "Theta", "Lambda", "Xi", "Pi", "Sigma", "Upsilon", "Phi", "Psi", "Omega",
}
_VARIANTS = {"varepsilon": "epsilon", "vartheta": "theta", "varphi": "phi", "varrho": "rho", "varsigma": "sigma"}


def display_name(name: str, latex: str) -> str:
    """A sympy-printable name for a parameter from its LaTeX (``\\lambda`` -> ``lambda``, ``S_{g}`` -> ``S_g``);
    the ASCII name when the LaTeX is more than a letter with a subscript."""
    s = latex.strip()
    s = re.sub(r"_\{([A-Za-z0-9]+)\}", r"_\1", s)
    s = re.sub(r"\\([A-Za-z]+)", lambda m: _VARIANTS.get(m.group(1), m.group(1)) if (
        _VARIANTS.get(m.group(1), m.group(1)) in _GREEK) else "\0", s)
    if "\0" in s or not re.fullmatch(r"[A-Za-z]+(_[A-Za-z0-9]+)?", s):
        return name
    if s == "lambda":
        return "lamda"  # sympy's spelling (lambda is a Python keyword); printed λ
    return s


def _renaming(names: Mapping[sp.Symbol, str] | None, expr: Any = None) -> dict[sp.Symbol, sp.Symbol]:
    out = {}
    for sym, latex in (names or {}).items():
        shown = display_name(sym.name, latex)
        if shown != sym.name:
            out[sym] = sp.Symbol(shown, **sym.assumptions0)
    for sym in getattr(expr, "free_symbols", ()):  # e.g. the statement's varepsilon, printed as epsilon
        if isinstance(sym, sp.Symbol) and sym.name in _VARIANTS and sym not in out:
            out[sym] = sp.Symbol(_VARIANTS[sym.name], **sym.assumptions0)
    return out


class _Str(StrPrinter):
    """One-line form: ``a = b`` for equations, positive terms first."""

    def _print_Equality(self, expr: Any) -> str:
        return f"{self._print(expr.lhs)} = {self._print(expr.rhs)}"

    def _as_ordered_terms(self, expr: Any, order: Any = None) -> list[Any]:
        return _positive_first(super()._as_ordered_terms(expr, order=order))


class _Pretty(PrettyPrinter):
    """sympy's unicode pretty printer, positive terms first, custom functions as their one-line form."""

    def __init__(self, width: int) -> None:
        super().__init__({"use_unicode": True, "num_columns": 10_000, "wrap_line": False})
        self._str = _Str()
        self.width = width

    def _as_ordered_terms(self, expr: Any, order: Any = None) -> list[Any]:
        return _positive_first(super()._as_ordered_terms(expr, order=order))

    def _print_Function(self, e: Any, sort: bool = False, func_name: Any = None, left: str = "(",
                        right: str = ")") -> Any:
        # a paper's own notation (eps_0^j, S_k^j), its class or a base of the paper's declaring it: its one-line form
        if any("_sympystr" in c.__dict__ for c in type(e).__mro__ if not (c.__module__ or "").startswith("sympy")):
            return prettyForm(e._sympystr(self._str))
        return super()._print_Function(e, sort=sort, func_name=func_name, left=left, right=right)


def _positive_first(terms: list[Any]) -> list[Any]:
    pos = [t for t in terms if not t.could_extract_minus_sign()]
    neg = [t for t in terms if t.could_extract_minus_sign()]
    return pos + neg


def terminal_width() -> int:
    return max(60, min(shutil.get_terminal_size((100, 24)).columns, 160))


def pretty(expr: Any, names: Mapping[sp.Symbol, str] | None = None, *, width: int | None = None,
           indent: str = "") -> str:
    """A formula in the paper's notation, unicode, at most ``width`` columns (see the module docstring)."""
    width = width or terminal_width()
    ren = _renaming(names, expr)
    e = expr.xreplace(ren) if ren and hasattr(expr, "xreplace") else expr
    printer = _Pretty(width)
    text = printer.doprint(e)
    avail = width - len(indent)
    if _width(text) <= avail:
        return _indent(text, indent)
    if isinstance(e, sp.Add) or (isinstance(e, sp.Rel) and isinstance(e.rhs, sp.Add)):
        head = ""
        add = e
        if isinstance(e, sp.Rel):
            head = printer.doprint(e.lhs) + " " + {"==": "=", "<=": "≤", ">=": "≥"}.get(e.rel_op, e.rel_op)
            add = e.rhs
        blocks = [printer.doprint(t) for t in _positive_first(list(sp.Add.make_args(add)))]
        if all(_width(b) + 2 <= avail for b in blocks) and (not head or _width(head) <= avail):
            out = [head] if head and "\n" not in head else ([head] if head else [])
            for i, b in enumerate(blocks):
                neg = i > 0 and b.lstrip().startswith("-")
                lead = ("- " if neg else "+ ") if i else "  "
                body = b.replace("-", " ", 1) if neg and b.lstrip().startswith("-") and "\n" not in b else b
                out.append(_prefix(body, lead))
            return _indent("\n".join(out), indent)
    return _indent(_Str().doprint(e), indent)


def one_line(expr: Any, names: Mapping[sp.Symbol, str] | None = None) -> str:
    """The formula on one line (``a = b``, positive terms first) in the paper's notation."""
    ren = _renaming(names, expr)
    e = expr.xreplace(ren) if ren and hasattr(expr, "xreplace") else expr
    return _Str().doprint(e)


def _width(text: str) -> int:
    return max((len(line) for line in text.splitlines()), default=0)


def _indent(text: str, indent: str) -> str:
    return "\n".join(indent + line if line.strip() else line for line in text.splitlines())


def _prefix(block: str, lead: str) -> str:
    """Put ``lead`` on the baseline-ish (middle) line of a multi-line block, spaces elsewhere."""
    lines = block.splitlines()
    mid = len(lines) // 2
    return "\n".join((lead if i == mid else " " * len(lead)) + line for i, line in enumerate(lines))


# ----------------------------------------------------------------------------- theorems
def theorem_repr(thm: Any) -> str:
    return f"<Theorem {thm.key}: {thm.title}>"


def claim_repr(claim: Any) -> str:
    return f"<Claim {claim.key}: {claim.title}>"


def value_repr(v: Any) -> str:
    return f"<BoundValue {v.key} = {v.decimal(min(v.dps, 15))} {v.unit} ({v.direction} bound, {v.dps} digits)>"


#: the longest formula line :func:`explain` prints unless asked for the full form (``dptheory show KEY --full``)
FORMULA_BUDGET = 200


def clipped(line: str, *, full: bool = False, whole: str = "--full", budget: int = FORMULA_BUDGET) -> str:
    """``line`` cut to ``budget`` characters unless ``full``, saying how long it was and how to see it whole
    (``whole``: e.g. ``dptheory show KEY --full``)."""
    if full or len(line) <= budget:
        return line
    return line[: budget - 1] + f"… ({len(line)} characters in all; `{whole}` prints it whole)"


def explain(thm: Any, *, width: int | None = None, full: bool = False) -> str:
    """Statement, parameters, conditions, limits and citation of a theorem, for people.

    Every formula is rendered by :func:`pretty` in the paper's notation (the limit sympy found too, by
    :func:`one_line`); a formula line longer than :data:`FORMULA_BUDGET` characters is cut (:func:`clipped`)
    unless ``full``."""
    names = thm.symbol_names()
    whole = f"dptheory show {thm.key} --full"

    def _clip_block(text: str, full: bool) -> str:
        return "\n".join(clipped(line, full=full, whole=whole) for line in text.split("\n"))

    lines = [f"{thm.key}: {thm.title}", f"  source: {thm.citation.short()}"]
    if thm.citation.note:
        lines.append(f"  note on source: {thm.citation.note}")
    lines.append(f"  bounds: {thm.quantity} [{thm.direction} bound, {thm.unit}]")
    lines.append("  parameters:")
    shown = []
    for p in thm.param_objects:
        glyph = pretty(sp.Symbol(display_name(p.name, p.latex))).strip()
        shown.append((p, "" if glyph == p.name or "\n" in glyph else f"({glyph})"))
    pw = max((len(p.name) for p, _ in shown), default=5)
    gw = max((len(g) for _, g in shown), default=0)
    for p, g in shown:
        glyph = f" {g:<{gw}}" if gw else ""
        lines.append(f"    {p.name:<{pw}}{glyph}  {p.meaning} ({p.domain.value})")
    if thm.bound is not None:
        lines.append("  bound:")
        lines.append(_clip_block(pretty(thm.bound, names, width=width, indent="    "), full))
    elif thm.statement:
        lines.append("  defined by:")
        for s in thm.statement:
            lines.append(_clip_block(pretty(s, names, width=width, indent="    "), full))
    if thm.definitions:
        lines.append("  where:")
        for d in thm.definitions:
            lines.append(_clip_block(pretty(d, names, width=width, indent="    "), full))
    if thm.assumptions:
        lines.append("  assumptions (not checkable at a point):")
        lines.extend(f"    - {a}" for a in thm.assumptions)
    lines.append("  conditions:")
    for c in thm.all_conditions:
        lines.append(f"    - {c.render():<32} {c.gloss}")
    if thm.terms:
        lines.append("  terms: " + ", ".join(f"{t.name} ({t.description})" for t in thm.terms.values()))
    if thm.monotone:
        lines.append("  monotone: " + ", ".join(f"{k}: {v}" for k, v in thm.monotone.items()))
    for lim in thm.limits.values():
        cond = f" (finite iff {lim.exists_when.render()})" if lim.exists_when else ""
        if lim.expr is not None:
            lines.append(f"  limit as {lim.param} -> oo{cond}:")
            lines.append(_clip_block(pretty(lim.expr, names, width=width, indent="    "), full))
        else:
            lines.append(f"  limit as {lim.param} -> oo: available{cond}")
        if thm.bound is not None:
            from dptheory.core.symbolic import symbolic_limit

            res, value = symbolic_limit(thm, lim.param)
            detail = res.detail if value is None else f"limit as {lim.param} -> oo: {one_line(value)}"
            lines.append(clipped(f"    sympy: {res.verdict.value}: {detail}", full=full, whole=whole))
    if thm.reading:
        lines.append("  reading decisions: " + thm.reading)
    if thm.notes:
        lines.append("  notes: " + thm.notes)
    return "\n".join(lines)


def theorem_latex(thm: Any) -> str:
    """A theorem's LaTeX for notebooks: the bound, then ``where`` and the definitions it uses."""
    body = rf"\varepsilon \le {thm.latex()}" if thm.bound is not None else thm.latex()
    defs = thm.definitions_latex()
    where = (r",\quad\text{where}\quad " + r",\quad ".join(defs)) if defs else ""
    return f"${body}{where}$"


def latex_block(thm: Any) -> str:
    """``dptheory show --latex``: the bound (or its defining recurrence), the definitions it uses, the conditions."""
    lines = [thm.latex()]
    for d in thm.definitions_latex():
        lines.append(r"\quad\text{where}\quad " + d)
    for c in thm.conditions_latex():
        lines.append("% condition: " + c)
    return "\n".join(lines)


# ----------------------------------------------------------------------------- claims
def claim_text(c: Any) -> str:
    """``dptheory show CLAIM``."""
    lines = [
        f"{c.key}: {c.title}",
        f"  source: {c.citation.short()}",
        f'  paper: "{c.statement}"',
        f"  reading: {c.reading}",
        f"  checks: {c.describe()}",
        f"  region: {c.region.description or 'all valid points'}",
    ]
    if c.counterexamples:
        lines.append("  pinned counterexamples:")
        for pt in c.counterexamples:
            lines.append("    " + ", ".join(f"{k}={v}" for k, v in pt.items()))
    if c.finding_text:
        lines.append("  finding: " + c.finding_text)
    from dptheory.core.findings import map_record, map_sentences

    sentences = map_sentences(map_record(c))
    if sentences and c.failing is not None:
        lines.append("  map (its edge points are decided by `dptheory check`):")
    lines += [("    " if c.failing is not None else "  ") + s for s in sentences]
    return "\n".join(lines)


__all__ = [
    "FORMULA_BUDGET",
    "claim_repr",
    "claim_text",
    "clipped",
    "display_name",
    "explain",
    "latex_block",
    "one_line",
    "pretty",
    "theorem_latex",
    "theorem_repr",
    "value_repr",
]
