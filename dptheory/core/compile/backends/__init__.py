"""The runtimes of the generated kernels: one namespace per backend, in which :func:`execute` runs the
emitted source (:mod:`dptheory.core.compile.emit`; the exact rational sides of conditions,
:mod:`dptheory.core.compile.conditions`). Only the arb namespace imports python-flint, only the float64 one numpy;
none imports sympy."""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from dptheory.core.compile.base import CompileError

__all__ = ["NAMESPACES", "execute", "q_namespace"]

#: backend -> (module, function) of its namespace (imported on first use: numpy and flint only when needed)
NAMESPACES = {
    "mp": ("dptheory.core.compile.backends.mp", "mp_namespace"),
    "np": ("dptheory.core.compile.backends.np", "np_namespace"),
    "arb": ("dptheory.core.compile.backends.arb", "arb_namespace"),
    "q": ("dptheory.core.compile.backends", "q_namespace"),
}


def q_namespace() -> dict[str, Any]:
    """Exact rationals: the sides of conditions that are rational functions of the parameters with floors."""

    def _floor(x: Fraction) -> Fraction:
        return Fraction(math.floor(x))

    return {"_Q": Fraction, "_floor": _floor}


def execute(backend: str, src: str, *, vet: bool = False) -> Callable[..., Any]:
    """The kernel of generated source, run in its backend's namespace (the arb one imports python-flint).

    ``vet``: the source was read back from the statement cache (:mod:`dptheory.core.snapshot`), so before it runs
    it is checked to be code this compiler writes (:func:`dptheory.core.compile.vet.vet_source`; raises
    :class:`CompileError` otherwise)."""
    if backend not in NAMESPACES:
        raise CompileError(f"unknown backend {backend!r} (backends: {', '.join(NAMESPACES)})")
    module, fn = NAMESPACES[backend]
    ns = getattr(importlib.import_module(module), fn)()
    if vet:
        from dptheory.core.compile.vet import vet_source

        vet_source(src, ns)
    try:
        exec(compile(src, f"<compiled {backend}>", "exec"), ns)
    except SyntaxError as exc:  # pragma: no cover - a bug in the emitter
        raise CompileError(f"internal: generated {backend} code does not parse: {exc}\n{src}") from exc
    kernel: Callable[..., Any] = ns["kernel"]
    return kernel
