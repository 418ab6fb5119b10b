"""Lazy module attributes (PEP 562) shared by ``dptheory`` and ``dptheory.core``.

Both packages re-export names that live in heavier modules (sympy, numpy). ``lazy_module_attributes``
returns the module-level ``__getattr__`` and ``__dir__`` that import such a name on first use and cache it
in the package's namespace, so that ``import dptheory`` stays light.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_module_attributes(
    package: str, namespace: dict[str, Any], lazy: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: ``lazy`` maps an exported name to the module defining it."""

    def __getattr__(name: str) -> Any:
        module = lazy.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(lazy))

    return __getattr__, __dir__
