"""LaTeX printing in the papers' notation.

:class:`DPLatexPrinter` is sympy's ``LatexPrinter`` with the symbol names of a paper's notation
table and one change of taste: in a sum, terms with a positive sign come first, so
``1 - \\eta\\lambda`` rather than ``- \\eta \\lambda + 1`` and ``\\lfloor n/b \\rfloor - j_0`` rather than
``- j_0 + \\lfloor n/b \\rfloor`` (which is how the papers write them). Nested printing goes through
``self._print`` so settings propagate (sympy's own warning).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sympy as sp
from sympy.printing.latex import LatexPrinter


class DPLatexPrinter(LatexPrinter):
    """sympy's LaTeX printer with paper notation and positive-first sums."""

    def _print_Add(self, expr: sp.Add, order: Any = None) -> str:
        terms = list(self._as_ordered_terms(expr, order=order))
        pos = [t for t in terms if not _negative(t)]
        neg = [t for t in terms if _negative(t)]
        ordered = pos + neg
        tex = ""
        for i, term in enumerate(ordered):
            if i == 0:
                pass
            elif _negative(term):
                tex += " - "
                term = -term
            else:
                tex += " + "
            term_tex = self._print(term)
            if self._needs_add_brackets(term):
                term_tex = rf"\left({term_tex}\right)"
            tex += term_tex
        return tex


def _negative(term: sp.Expr) -> bool:
    return term.could_extract_minus_sign()


def latex(expr: Any, symbol_names: Mapping[sp.Symbol, str] | None = None) -> str:
    """LaTeX of a sympy object with a paper's symbol names."""
    return DPLatexPrinter({"symbol_names": dict(symbol_names or {})}).doprint(expr)


_ESCAPES = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
}


def escape(text: str) -> str:
    """Escape user-provided text for LaTeX (every special character; non-ASCII letters kept).

    ``--`` and ``''`` would become ligatures (an en dash, a closing quote): they are broken apart.
    """
    out = "".join(_ESCAPES.get(ch, ch) for ch in str(text))
    return out.replace("--", "-{}-").replace("''", "'{}'").replace("``", "`{}`")


def param_tex(name: str, notation: Any = None) -> str:
    """A parameter name in the paper's notation (math mode), or escaped text if unknown."""
    if notation is not None and name in notation:
        return f"${notation[name].latex}$"
    return escape(name)
