"""The registry: the single source of theorems and claims for checks, reports and the CLI.

Registration is explicit (``REGISTRY.add(obj)`` at module import) and refuses duplicate keys; an
explicit ``replace=True`` exists for tests. ``dptheory.theorems`` imports every family, so the
registry is complete once ``dptheory`` is imported. There is no central dispatcher that knows every
theorem: each theorem points at its own kernels (the dp_accounting ``_maybe_compose`` ladder is
what this avoids; see ``shared/anchors.md``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TypeVar

from .errors import DuplicateKey, UnknownKey

T = TypeVar("T")


class Registry:
    """Keyed store of theorems and claims."""

    def __init__(self) -> None:
        self._items: dict[str, Any] = {}

    def add(self, obj: T, *, replace: bool = False) -> T:
        key = obj.key  # type: ignore[attr-defined]
        if key in self._items and not replace:
            raise DuplicateKey(f"key {key!r} is already registered ({type(self._items[key]).__name__})")
        self._items[key] = obj
        return obj

    def remove(self, key: str) -> None:
        self._items.pop(key, None)

    def get(self, key: str) -> Any:
        try:
            return self._items[key]
        except KeyError:
            raise UnknownKey(key, list(self._items)) from None

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __iter__(self) -> Iterator[Any]:
        return iter(self._items.values())

    def keys(self) -> list[str]:
        return list(self._items)

    def theorems(self) -> list[Any]:
        from .theorem import Theorem

        return [v for v in self._items.values() if isinstance(v, Theorem)]

    def claims(self) -> list[Any]:
        from .claims import Claim

        return [v for v in self._items.values() if isinstance(v, Claim)]

    def family(self, prefix: str) -> list[Any]:
        return [v for k, v in self._items.items() if k.startswith(prefix + ".")]


REGISTRY = Registry()


def get(key: str) -> Any:
    """Look a key up in the global registry."""
    return REGISTRY.get(key)
