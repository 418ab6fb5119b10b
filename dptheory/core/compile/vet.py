"""The check that generated source read back from disk is code this compiler writes, before it runs.

The statement cache (:mod:`dptheory.core.snapshot`) keeps the kernels of a theorem as the source the emitter
wrote, so that a later command runs them without sympy. A cache entry is verified by its hash before use, but a
hash shows only that the entry is the one written, not who wrote it; so every source is also read here, as a
syntax tree, and refused unless it has the shape of the emitter's output (:mod:`dptheory.core.compile.emit`,
:func:`dptheory.core.compile.conditions.exact_source`):

* one function ``kernel(args)`` and nothing else at the top level;
* statements: assignments, ``if``, ``for``, ``return``, ``raise``, expression statements (``acc.append(x)``);
  no import, ``def`` beyond the kernel, ``class``, ``lambda``, ``with``, ``try``, ``global``, ``del``;
* names read: the function's own locals, ``args``, the backend's namespace (:func:`execute`'s) and the builtins
  :data:`BUILTINS`; no name with a double underscore;
* attributes: only the mathematical names of :data:`ATTRIBUTES` (``_m.log1p``, ``x.sqrt()``, ``acc.append``),
  never one starting with an underscore.

Such code can compute, allocate and raise, but cannot reach a file, a module or the interpreter.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from dptheory.core.compile.base import CompileError

__all__ = ["ATTRIBUTES", "BUILTINS", "vet_source"]

#: the builtins generated code calls
BUILTINS = frozenset({"int", "float", "max", "min", "abs", "len", "sum", "range"})
#: every attribute the emitter writes: functions and constants of mpmath (``_m``), numpy (``_np``), scipy.special
#: (``_sps``) and python-flint (``_arb``), ball and list methods
ATTRIBUTES = frozenset({
    "binomial", "ceil", "e", "erf", "erfc", "exp", "expm1", "floor", "fsum", "gamma", "inf", "ldexp", "log", "log1p",
    "loggamma", "pi", "sqrt", "abs", "array", "asarray", "broadcast_shapes", "broadcast_to", "float64",
    "logical_and", "logical_not", "logical_or", "nan", "shape", "sum", "where", "binom", "gammaln", "const_e",
    "pos_inf", "append", "index", "lgamma", "rsqrt", "reduce",
})
_NODES = frozenset({
    ast.Module, ast.FunctionDef, ast.arguments, ast.arg, ast.Assign, ast.AugAssign, ast.Expr, ast.Return, ast.If,
    ast.For, ast.Raise, ast.Pass, ast.Name, ast.Load, ast.Store, ast.Constant, ast.BinOp, ast.UnaryOp, ast.BoolOp,
    ast.Compare, ast.Call, ast.keyword, ast.Attribute, ast.Subscript, ast.Slice, ast.Tuple, ast.List, ast.ListComp,
    ast.comprehension, ast.Starred, ast.IfExp,
    ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.USub, ast.UAdd, ast.Not, ast.BitAnd,
    ast.BitOr, ast.And, ast.Or, ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE,
})
_CONSTANTS = (str, int, float, bool, type(None), type(Ellipsis))


def vet_source(src: str, namespace: Iterable[str]) -> None:
    """Refuse (:class:`CompileError`, naming what was found) a source that is not of the emitter's shape (see the
    module docstring); ``namespace`` holds the names the backend provides."""

    def refuse(what: str, node: ast.AST | None = None) -> CompileError:
        line = f" (line {node.lineno})" if node is not None and hasattr(node, "lineno") else ""
        return CompileError(f"generated code read from the statement cache was refused: {what}{line}; this is "
                            "not code dptheory writes (remove the cache folder, or set DPTHEORY_NO_CACHE=1)")

    try:
        tree = ast.parse(src, mode="exec")
    except (SyntaxError, ValueError) as exc:
        raise refuse(f"it does not parse ({exc})") from None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.FunctionDef) or tree.body[0].name != "kernel":
        raise refuse("it is not one function named kernel")
    fn = tree.body[0]
    a = fn.args
    if (fn.decorator_list or fn.returns is not None or a.posonlyargs or a.kwonlyargs or a.vararg or a.kwarg
            or a.defaults or a.kw_defaults or [x.arg for x in a.args] != ["args"]):
        raise refuse("the kernel's signature is not kernel(args)")
    local = {"args"}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            local.add(node.id)
    provided = set(namespace)
    for node in ast.walk(tree):
        if type(node) not in _NODES:
            raise refuse(f"it contains {type(node).__name__}", node)
        if isinstance(node, ast.Name):
            if "__" in node.id or not (node.id in local or node.id in provided or node.id in BUILTINS):
                raise refuse(f"it reads the name {node.id!r}", node)
        elif isinstance(node, ast.Attribute):
            if node.attr.startswith("_") or node.attr not in ATTRIBUTES:
                raise refuse(f"it reads the attribute {node.attr!r}", node)
        elif isinstance(node, ast.Constant) and not isinstance(node.value, _CONSTANTS):
            raise refuse(f"it holds a constant of type {type(node.value).__name__}", node)
        elif isinstance(node, ast.FunctionDef) and node is not fn:
            raise refuse("it defines a function inside the kernel", node)
