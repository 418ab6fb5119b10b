"""The runtimes of the generated kernels: one namespace per backend, in which :func:`execute` runs the
emitted source (:mod:`dptheory.core.compile.emit`). Only the arb namespace imports python-flint."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dptheory.core.compile.backends.arb import arb_namespace
from dptheory.core.compile.backends.mp import mp_namespace
from dptheory.core.compile.backends.np import np_namespace, one_minus_product_np
from dptheory.core.compile.base import CompileError

__all__ = ["arb_namespace", "execute", "mp_namespace", "np_namespace", "one_minus_product_np"]


def execute(backend: str, src: str) -> Callable[..., Any]:
    """The kernel of generated source, run in its backend's namespace (the arb one imports python-flint)."""
    ns = {"mp": mp_namespace, "arb": arb_namespace, "np": np_namespace}[backend]()
    try:
        exec(compile(src, f"<compiled {backend}>", "exec"), ns)
    except SyntaxError as exc:  # pragma: no cover - a bug in the emitter
        raise CompileError(f"internal: generated {backend} code does not parse: {exc}\n{src}") from exc
    kernel: Callable[..., Any] = ns["kernel"]
    return kernel
