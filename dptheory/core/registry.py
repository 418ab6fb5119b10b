"""The registry: the single source of theorems, claims and figures for checks, reports and the CLI.

Registration is explicit (``REGISTRY.add(obj)`` at module import) and refuses duplicate keys; an
explicit ``replace=True`` exists for tests. There is no central dispatcher that knows every theorem:
each theorem points at its own kernels, and each paper registers its own objects.

**Discovery.** Papers are found, not listed. A paper is a package under ``dptheory/papers/`` (or a
package in a folder named by the ``DPTHEORY_PATH`` environment variable, or one advertised by an
installed distribution under the entry-point group ``dptheory.papers``). Its registration modules
``theorems``, ``claims`` and ``figures`` (whichever exist) are imported, in that order, the first
time the registry is asked for something it does not hold. The generic mechanisms of the privacy
layer (``rdp.*`` keys) are registered by :mod:`dptheory.privacy.theorems` the same way. Nothing in
``core`` imports a paper by name: the registry imports whatever discovery finds.

Objects declare what they are by a ``KIND`` class attribute (``"theorem"`` or ``"claim"``), so the
registry needs neither the theorem nor the claim module (no import cycle).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import pkgutil
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from dptheory.core.errors import DPTheoryError, DuplicateKey, UnknownKey

T = TypeVar("T")

#: registration modules of a paper package, imported in this order when present
REGISTRATION_MODULES = ("theorems", "claims", "figures")
#: generic (paper-free) registrations made by the layers themselves
GENERIC_PROVIDERS = ("dptheory.privacy.theorems",)
#: environment variable: extra folders holding paper packages (os.pathsep-separated)
PATH_ENV = "DPTHEORY_PATH"
ENTRY_POINT_GROUP = "dptheory.papers"


@dataclass(frozen=True)
class Figure:
    """A paper figure reproduced from the registered theorems.

    ``make(out_path, csv_path=None) -> list[str]`` writes the figure (and optionally the plotted
    values) and returns lines describing what it shows.
    """

    name: str
    title: str
    make: Callable[..., list[str]]
    paper: str = ""


class Registry:
    """Keyed store of theorems and claims, plus the figures, filled by discovery on demand."""

    def __init__(self) -> None:
        self._items: dict[str, Any] = {}
        self._figures: dict[str, Figure] = {}
        self._discovered = False
        self._discovering = False

    # ------------------------------------------------------------------ adding
    def add(self, obj: T, *, replace: bool = False) -> T:
        key = obj.key  # type: ignore[attr-defined]
        if key in self._items and not replace:
            raise DuplicateKey(f"key {key!r} is already registered ({type(self._items[key]).__name__})")
        self._items[key] = obj
        return obj

    def add_figure(self, fig: Figure, *, replace: bool = False) -> Figure:
        if fig.name in self._figures and not replace:
            raise DuplicateKey(f"figure {fig.name!r} is already registered")
        self._figures[fig.name] = fig
        return fig

    # ------------------------------------------------------------------ lookup
    def get(self, key: str) -> Any:
        if key not in self._items:
            self.discover()
        try:
            return self._items[key]
        except KeyError:
            raise UnknownKey(key, list(self._items)) from None

    def figure(self, name: str) -> Figure:
        if name not in self._figures:
            self.discover()
        try:
            return self._figures[name]
        except KeyError:
            raise DPTheoryError(
                f"unknown figure {name!r}; known: {', '.join(sorted(self._figures)) or 'none'}"
            ) from None

    def figures(self) -> list[Figure]:
        self.discover()
        return [self._figures[k] for k in sorted(self._figures)]

    def __contains__(self, key: object) -> bool:
        if key not in self._items:
            self.discover()
        return key in self._items

    def __iter__(self) -> Iterator[Any]:
        self.discover()
        return iter(list(self._items.values()))

    def keys(self) -> list[str]:
        self.discover()
        return list(self._items)

    def theorems(self) -> list[Any]:
        return [v for v in self if getattr(v, "KIND", "") == "theorem"]

    def claims(self) -> list[Any]:
        return [v for v in self if getattr(v, "KIND", "") == "claim"]

    def family(self, prefix: str) -> list[Any]:
        return [v for v in self if v.key.startswith(prefix + ".")]

    # ------------------------------------------------------------------ discovery
    def discover(self) -> None:
        """Import every provider's registration modules (once; re-entrant calls are no-ops)."""
        if self._discovered or self._discovering:
            return
        self._discovering = True
        try:
            for provider in GENERIC_PROVIDERS:
                importlib.import_module(provider)
            for pkg in paper_packages():
                load_paper(pkg)
            self._discovered = True
        finally:
            self._discovering = False


def paper_packages() -> list[str]:
    """Importable names of every paper package: ``dptheory.papers.*``, ``DPTHEORY_PATH``, entry points."""
    import dptheory.papers as papers_pkg

    names = [
        f"{papers_pkg.__name__}.{m.name}"
        for m in sorted(pkgutil.iter_modules(papers_pkg.__path__), key=lambda m: m.name)
        if m.ispkg
    ]
    for folder in filter(None, os.environ.get(PATH_ENV, "").split(os.pathsep)):
        if not os.path.isdir(folder):
            raise DPTheoryError(f"{PATH_ENV} names {folder!r}, which is not a folder")
        if folder not in sys.path:
            sys.path.insert(0, folder)
        names.extend(m.name for m in sorted(pkgutil.iter_modules([folder]), key=lambda m: m.name) if m.ispkg)
    from importlib.metadata import entry_points

    names.extend(ep.value for ep in entry_points(group=ENTRY_POINT_GROUP))
    return list(dict.fromkeys(names))


def load_paper(package: str) -> None:
    """Import a paper package's registration modules (``theorems``, ``claims``, ``figures``)."""
    for mod in REGISTRATION_MODULES:
        name = f"{package}.{mod}"
        if importlib.util.find_spec(name) is not None:
            importlib.import_module(name)


REGISTRY = Registry()


def get(key: str) -> Any:
    """Look a key up in the global registry (discovering the papers on first use)."""
    return REGISTRY.get(key)
