"""A paper file's formulas as data: sympy text or LaTeX, parsed in a restricted namespace.

A bound, a condition or a definition in ``paper.toml`` is a string. It becomes a sympy object without
executing anything the file could choose:

* **sympy text** (``"C*E*n*zeta**2/sigma**2*log(E/beta)"``): first read by Python's own parser
  (:func:`ast.parse`, which builds a tree and runs nothing; a decimal such as ``0.1`` is the exact rational
  1/10); every node must be arithmetic (``+ - * / **``,
  unary minus), one comparison (``< <= > >=``; an equation is ``Eq(a, b)``), a number, a declared name (a
  parameter of the notation table, a definition of the file), or a call of an allowed function
  (:data:`FUNCTIONS`) by name with positional arguments. Attribute access, subscripts, keywords, strings,
  lambdas, comprehensions and every other name are refused. Only then does sympy's
  :func:`~sympy.parsing.sympy_parser.parse_expr` build the expression, with exactly these names and no
  builtins: the tree is the one a Python declaration ``C*E*n*zeta**2/sigma**2*sp.log(E/beta)`` builds.
* **LaTeX** (``'\\frac{T \\alpha}{2 z^{2}}'``): sympy's :func:`~sympy.parsing.latex.parse_latex` (the ANTLR
  grammar shipped with sympy; it builds an expression and evaluates nothing), then every symbol must be a
  declared name (matched by its name or by its LaTeX in the notation table) and every function an allowed one.

Either way a problem is one :class:`ExpressionError` line naming what was wrong and what is accepted; the
caller (:mod:`dptheory.core.paperfile`) prefixes the file and field.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from typing import Any

import sympy as sp

from dptheory.core.errors import DPTheoryError

__all__ = ["FUNCTIONS", "ExpressionError", "parse_latex", "parse_text"]

#: the functions a formula may call, by the name it calls them (sympy's functions of the same name)
FUNCTIONS: Mapping[str, Any] = {
    "log": sp.log, "exp": sp.exp, "sqrt": sp.sqrt, "Max": sp.Max, "Min": sp.Min, "Abs": sp.Abs,
    "floor": sp.floor, "ceiling": sp.ceiling, "binomial": sp.binomial, "factorial": sp.factorial,
    "Rational": sp.Rational, "Sum": sp.Sum, "Integral": sp.Integral, "Eq": sp.Eq,
}
#: constants a formula may name (a parameter of the same name wins: ``E`` is often a count of epochs, so Euler's
#: number is ``exp(1)``)
CONSTANTS: Mapping[str, Any] = {"pi": sp.pi, "oo": sp.oo}

_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)
_UNARY = (ast.USub, ast.UAdd)
_COMPARE = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
#: what parse_expr's generated code calls (numbers and names), and nothing else
_PARSER_GLOBALS = {"__builtins__": {}, "Integer": sp.Integer, "Float": sp.Float, "Rational": sp.Rational,
                   "Symbol": sp.Symbol}


class ExpressionError(DPTheoryError, ValueError):
    """A formula of a paper file that is not an allowed expression (one line: what was wrong, what is accepted)."""


def _accepted(names: Mapping[str, Any]) -> str:
    return (f"the declared names ({', '.join(names) or 'none'}), numbers, + - * / **, one comparison, and the "
            f"functions {', '.join(FUNCTIONS)} (and the declared ones)")


def _declared_function(obj: Any) -> bool:
    """A declared name that may be called: a sympy function class (e.g. an undefined ``kl``)."""
    return isinstance(obj, sp.FunctionClass)


def _check_node(node: ast.AST, names: Mapping[str, Any], top: bool) -> None:
    """Refuse any node that is not arithmetic, a number, a declared name or an allowed call."""
    what: str | None = None
    if isinstance(node, ast.BinOp) and isinstance(node.op, _ARITHMETIC):
        children: list[ast.AST] = [node.left, node.right]
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, _UNARY):
        children = [node.operand]
    elif isinstance(node, ast.Compare) and top and len(node.ops) == 1 and isinstance(node.ops[0], _COMPARE):
        children = [node.left, *node.comparators]
    elif isinstance(node, ast.Constant) and type(node.value) in (int, float):
        children = []
    elif isinstance(node, ast.Name):
        if node.id not in names and node.id not in CONSTANTS:
            what = f"the name {node.id!r} is not declared{_did_you_mean(node.id, names)}"
        children = []
    elif isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or not (node.func.id in FUNCTIONS or _declared_function(
                names.get(node.func.id))):
            called = node.func.id if isinstance(node.func, ast.Name) else ast.unparse(node.func)
            what = f"{called!r} is not an allowed function"
        elif node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            what = f"{node.func.id}() takes positional arguments only"
        children = list(node.args)
    elif isinstance(node, ast.Tuple) and not top:  # the (variable, low, high) of a Sum or an Integral
        children = list(node.elts)
    elif isinstance(node, ast.Compare):
        what = "only one comparison < <= > >= is allowed, as the whole formula (an equation is Eq(a, b))"
        children = []
    else:
        what = f"{type(node).__name__.lower()} {ast.unparse(node)!r} is not allowed"
        children = []
    if what is not None:
        raise ExpressionError(f"{what}; accepted: {_accepted(names)}")
    for child in children:
        _check_node(child, names, False)


def parse_text(text: str, names: Mapping[str, Any]) -> sp.Basic:
    """The sympy object that ``text`` (sympy syntax) states, with ``names`` (name -> sympy object) as its only
    names besides :data:`FUNCTIONS` and :data:`CONSTANTS`.

    Raises:
        ExpressionError: ``text`` is not Python syntax, or uses anything outside the allow-list (module docstring).
    """
    from sympy.parsing.sympy_parser import parse_expr, rationalize, standard_transformations

    if not isinstance(text, str) or not text.strip():
        raise ExpressionError(f"an empty formula; accepted: {_accepted(names)}")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"not a formula ({exc.msg} at column {exc.offset}); accepted: "
                              f"{_accepted(names)}") from None
    _check_node(tree.body, names, True)
    local = {**CONSTANTS, **FUNCTIONS, **names}
    try:
        # decimals are exact (0.1 is 1/10, as a parameter's value is), never binary floats
        return parse_expr(text.strip(), local_dict=local, global_dict=dict(_PARSER_GLOBALS),
                          transformations=(*standard_transformations, rationalize))
    except (TypeError, ValueError, SyntaxError, sp.SympifyError) as exc:
        raise ExpressionError(f"sympy cannot build it: {exc}".splitlines()[0]) from None


def _rebuild(expr: sp.Basic) -> sp.Basic:
    """The expression rebuilt bottom up with sympy's automatic evaluation (the LaTeX parser builds unevaluated
    nodes, ``(T*alpha)/((2*z**2))``; the rebuilt tree is the one the same formula in sympy text gives)."""
    if not expr.args or isinstance(expr, sp.Symbol):
        return expr
    return expr.func(*(_rebuild(a) for a in expr.args))


def _refuse_letter_runs(text: str, names: Mapping[str, Any], latex_names: Mapping[str, str]) -> None:
    """Refuse two or more letters in a row outside a LaTeX command: ``parse_latex`` reads ``nn`` as ``n*n`` and
    ``alpha`` as ``a*l*p*h*a``, silently; a product must be written apart (``n \\cdot n``, ``n t``) and a Greek
    name as its command (``\\alpha``)."""
    bare = re.sub(r"\\[A-Za-z]+", " ", text)  # commands (\frac, \alpha, \log) are not runs of letters
    for run in re.findall(r"[A-Za-z]{2,}", bare):
        if run in names:
            tex = latex_names.get(run, "")
            how = f"write it as {tex}" if tex.startswith("\\") else "write it in sympy text (bound = ..., when = ...)"
            raise ExpressionError(f"{run!r} is read by LaTeX as the product of the letters {' '.join(run)}; {how}")
        raise ExpressionError(f"{run!r} is read by LaTeX as the product of the letters {' '.join(run)}: write the "
                              f"factors apart ({' '.join(run)}, or with \\cdot) if you mean a product; accepted "
                              f"names: {', '.join(names) or 'none'}")


#: the LaTeX commands parse_latex reads besides the Greek letters (what a misspelled command is compared with)
LATEX_COMMANDS = ("frac", "dfrac", "tfrac", "sqrt", "log", "ln", "exp", "max", "min", "binom", "sum", "prod", "int",
                  "cdot", "times", "left", "right", "le", "leq", "ge", "geq", "lt", "gt", "infty", "lfloor", "rfloor",
                  "lceil", "rceil", "mathrm", "operatorname", "alpha", "beta", "gamma", "delta", "epsilon",
                  "varepsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu", "nu", "xi", "pi", "rho",
                  "sigma", "tau", "upsilon", "phi", "varphi", "chi", "psi", "omega", "Gamma", "Delta", "Theta",
                  "Lambda", "Xi", "Pi", "Sigma", "Phi", "Psi", "Omega")


def _undeclared_latex(text: str, symbol: str, names: Mapping[str, Any], latex_names: Mapping[str, str]) -> str:
    """Why a symbol of a LaTeX formula is refused: a command this reader does not know (``\\farc``: did you mean
    ``\\frac``?) or a name that is not declared (with the closest declared one)."""
    import difflib

    declared = f"accepted: the names {', '.join(names) or 'none'} (or their LaTeX)"
    if re.search(rf"\\{re.escape(symbol)}(?![A-Za-z])", text):
        known = [*LATEX_COMMANDS, *(t.strip().lstrip("\\") for t in latex_names.values() if t.strip().startswith("\\"))]
        close = difflib.get_close_matches(symbol, known, n=1)
        hint = f" (did you mean \\{close[0]}?)" if close else ""
        return f"\\{symbol} is not a LaTeX command this reader knows nor a declared name{hint}; {declared}"
    return f"the symbol {symbol!r} is not declared{_did_you_mean(symbol, names)}; {declared}"


def _did_you_mean(name: str, names: Mapping[str, Any]) -> str:
    """`` (did you mean K?)`` for the declared name closest to ``name`` (a case slip first), or nothing."""
    import difflib

    by_lower = {n.lower(): n for n in names}
    close = difflib.get_close_matches(name.lower(), list(by_lower), n=1)
    return f" (did you mean {by_lower[close[0]]}?)" if close else ""


def parse_latex(text: str, names: Mapping[str, Any], latex_names: Mapping[str, str] | None = None) -> sp.Basic:
    """The sympy object that the LaTeX ``text`` states; its symbols must be ``names`` (matched by name, or by the
    LaTeX of ``latex_names``: name -> LaTeX, e.g. ``{"alpha": "\\alpha"}``) and its functions allowed ones.

    Raises:
        ExpressionError: the LaTeX does not parse, or uses an undeclared symbol or a function not allowed.
    """
    from sympy.parsing.latex import LaTeXParsingError
    from sympy.parsing.latex import parse_latex as sympy_parse_latex

    if not isinstance(text, str) or not text.strip():
        raise ExpressionError(f"an empty formula; accepted: {_accepted(names)}")
    _refuse_letter_runs(text, names, latex_names or {})
    try:
        raw = sympy_parse_latex(text.strip())
    except (LaTeXParsingError, TypeError, ValueError) as exc:
        raise ExpressionError(f"not LaTeX sympy can read ({str(exc).splitlines()[0]}); accepted: "
                              "arithmetic, \\frac, \\sqrt, \\log, \\ln, \\exp, \\max, \\min, \\binom, \\sum, "
                              "one comparison, and the declared symbols") from None
    by_latex = {tex.strip().lstrip("\\"): name for name, tex in (latex_names or {}).items()}
    mapping: dict[sp.Basic, sp.Basic] = {}
    for sym in sorted(raw.free_symbols, key=lambda s: s.name):
        name = sym.name if sym.name in names else by_latex.get(sym.name.lstrip("\\"))
        if name is None and sym.name == "e":  # e^{x} as papers write it: Euler's number, unless a name is e
            mapping[sym] = sp.E
            continue
        if name is None or name not in names:
            raise ExpressionError(_undeclared_latex(text, sym.name, names, latex_names or {}))
        mapping[sym] = names[name]
    allowed = {f for f in FUNCTIONS.values() if isinstance(f, type)} | {sp.Pow, sp.Mul, sp.Add}
    for fn in raw.atoms(sp.Function):
        if isinstance(fn, sp.core.function.AppliedUndef) or (type(fn) not in allowed and fn.func not in allowed):
            raise ExpressionError(f"the function {fn.func} is not allowed; accepted: {', '.join(FUNCTIONS)}")
    return _rebuild(raw.xreplace(mapping))
