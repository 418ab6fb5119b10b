"""The registry: the single store of theorems, claims, figures and composition baselines.

Registration is explicit (``REGISTRY.add(obj)`` at module import) and refuses duplicate keys; an
explicit ``replace=True`` exists for tests. There is no central dispatcher that knows every theorem:
each theorem points at its own kernels, and each paper registers its own objects.

**Finding providers is not the store's business.** The registry asks a :class:`Finder` (installed with
:meth:`Registry.install_finder` by the composition root, :mod:`dptheory.catalog`, when the ``dptheory`` package is
imported) for what it does not hold: the committed index (which module registers which key), the providers
(importable modules and packages whose import registers objects), how to load one, and which ones failed to
import. Nothing in ``core`` imports or names a provider: without a finder the registry holds exactly what was
added to it. Discovery, the index, ``DPTHEORY_PATH`` and entry points are described in :mod:`dptheory.catalog`.

**Failures.** A provider from outside ``dptheory`` that fails to import is skipped (the finder records it, with a
warning); whatever it registered is withdrawn, the other providers keep working, and :meth:`Registry.get` of one
of its keys raises :class:`PaperImportError`. A built-in provider that fails to import is a bug and propagates.

**Duplicates.** A key (or figure name) registered twice is a :class:`DuplicateKey` naming both origins (module
and file), whatever the source and whatever the order of the calls: the providers the index does not cover are
imported before the registry answers its first question (``get``, ``figure``, ``in``, ``catalog``, iteration),
and a key they register that the index gives to another module is refused at once. A conflict found while
importing a provider makes every later lookup raise it (a registry holding two meanings for one key answers
nothing).

Objects declare what they are by a ``KIND`` class attribute (``"theorem"`` or ``"claim"``), so the
registry needs neither the theorem nor the claim module (no import cycle).

**Composition baselines.** A provider may register a baseline beside the theorem of the same key: how that
theorem's parameters define a composed Poisson-subsampled Gaussian mechanism ``(q, z, steps)``, so that generic
code (``dptheory compare``) can put the tight PLD and the RDP composition beside a paper's theorems without
importing the paper.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import Any, Protocol, TypeVar

from dptheory.core.errors import (
    DPTheoryError,
    DuplicateKey,
    InvalidKey,
    PaperImportError,
    UnknownKey,
)


class _Keyed(Protocol):
    """What the registry stores: anything with a ``key`` (theorems, claims)."""

    @property
    def key(self) -> str: ...


T = TypeVar("T", bound=_Keyed)


class _Baseline(Protocol):
    """What the registry stores as a composition baseline (anything with a ``name``)."""

    @property
    def name(self) -> str: ...


B = TypeVar("B", bound=_Baseline)
R = TypeVar("R", bound=_Keyed)


class Finder(Protocol):
    """How the registry finds what it does not hold (installed by the composition root)."""

    def index(self) -> Mapping[str, Any]:
        """The committed index: ``{"items": [{"key", "module", ...}], "figures": [...], "papers": {...}}``."""
        ...

    def providers(self) -> list[str]:
        """Every provider's importable name, in the order discovery imports them."""
        ...

    def indexed_providers(self) -> set[str]:
        """The providers the index covers."""
        ...

    def load(self, provider: str) -> None:
        """Import a provider's registration modules."""
        ...

    def record_broken(self, provider: str, exc: BaseException) -> None:
        """Remember (and warn about) a provider from outside ``dptheory`` that failed to import."""
        ...

    def broken(self) -> Mapping[str, PaperImportError]:
        """The providers that failed to import, by name."""
        ...

    def catalog(self, registry: Registry) -> list[dict[str, Any]]:
        """Every object as a listing row, sorted by key (see :meth:`Registry.catalog`)."""
        ...

    def numeric_theorem(self, key: str, load: Callable[[], Any], reload: Callable[[str], Any] | None) -> Any:
        """The theorem ``key`` from the statement cache (``load()`` builds it when the cache cannot serve it;
        ``reload`` rebuilds it from its key in another process): see :meth:`Registry.numeric`."""
        ...

    def remember(self, key: str, obj: Any) -> None:
        """Write the statement cache's entry of a theorem already built."""
        ...


class _NoFinder:
    """The finder of a registry nobody installed one into: nothing beyond what was added."""

    def index(self) -> Mapping[str, Any]:
        return {"items": [], "figures": [], "papers": {}}

    def providers(self) -> list[str]:
        return []

    def indexed_providers(self) -> set[str]:
        return set()

    def load(self, provider: str) -> None:  # pragma: no cover - it lists no provider
        raise DPTheoryError(f"no finder is installed: cannot load {provider!r}")

    def record_broken(self, provider: str, exc: BaseException) -> None:  # pragma: no cover - no provider
        raise exc

    def broken(self) -> Mapping[str, PaperImportError]:
        return {}

    def catalog(self, registry: Registry) -> list[dict[str, Any]]:
        return []

    def numeric_theorem(self, key: str, load: Callable[[], Any], reload: Callable[[str], Any] | None) -> Any:
        return load()  # no cache without a composition root

    def remember(self, key: str, obj: Any) -> None:
        return None


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
        self._baselines: dict[str, Any] = {}
        self._run_maps: dict[str, Any] = {}
        self._origin: dict[str, str] = {}
        self._discovered = False
        self._discovering = False
        self._extras_loaded = False
        self._loaded: set[str] = set()
        self._loading = 0
        self._conflict: str | None = None
        self._finder: Finder = _NoFinder()

    def install_finder(self, finder: Finder) -> None:
        """Install how the registry finds providers (the composition root does this once, at import)."""
        self._finder = finder

    # ------------------------------------------------------------------ adding
    def add(self, obj: T, *, replace: bool = False, origin: str | None = None) -> T:
        """Register ``obj`` under its key; ``origin`` is where it is declared (default: the calling module; a paper
        file read from disk gives ``file:PATH``)."""
        key = obj.key
        module = _calling_module() if origin is None else origin
        if not replace:
            self._refuse_duplicate(key, f"key {key!r}", module)
        self._items[key] = obj
        self._origin[key] = module
        return obj

    def add_figure(self, fig: Figure, *, replace: bool = False) -> Figure:
        module = _calling_module()
        if not replace:
            self._refuse_duplicate("figure:" + fig.name, f"figure {fig.name!r}", module)
        self._figures[fig.name] = fig
        self._origin["figure:" + fig.name] = module
        return fig

    def _refuse_duplicate(self, slot: str, what: str, module: str) -> None:
        """Raise :class:`DuplicateKey` naming both origins if ``slot`` (a key or ``figure:NAME``) is taken: by a
        registered object, or, for a registration from outside ``dptheory``, by the index (the built-in module
        that owns it may not be imported yet: the order of the calls must not decide which one wins)."""
        if slot.startswith("figure:"):
            taken = slot[len("figure:") :] in self._figures
        else:
            taken = slot in self._items
        first = self._origin.get(slot, "") if taken else ""
        if not taken and not is_builtin(module):
            owner = self._index_modules().get(slot, "")
            if owner and owner != module:
                taken, first = True, owner
        if not taken:
            return
        message = f"{what} is registered twice: by {_describe_module(first)} and by {_describe_module(module)}"
        if self._loading:
            self._conflict = message  # found while importing a provider: every later lookup raises it
        raise DuplicateKey(message)

    def check_conflict(self) -> None:
        if self._conflict is not None:
            raise DuplicateKey(self._conflict)

    def add_baseline(self, base: B, *, replace: bool = True) -> B:
        """Register a composition baseline (re-registering the same name replaces it: modules may be reloaded)."""
        if base.name in self._baselines and not replace:
            raise DuplicateKey(f"baseline {base.name!r} is already registered")
        self._baselines[base.name] = base
        return base

    def baselines(self) -> list[Any]:
        """The registered composition baselines (registered by the papers' modules that define them)."""
        return [self._baselines[k] for k in sorted(self._baselines)]

    def baseline(self, name: str) -> Any:
        """The composition baseline ``name``: a baseline is registered with its theorem of the same key, so that
        key's module is imported first (then, if still unknown, every provider)."""
        if name not in self._baselines and isinstance(name, str):
            try:
                self.get(name)
            except UnknownKey:
                pass
        if name not in self._baselines:
            self.discover()
        try:
            return self._baselines[name]
        except KeyError:
            raise DPTheoryError(
                f"unknown composition baseline {name!r}; known: {', '.join(sorted(self._baselines)) or 'none'}"
            ) from None

    def add_run_map(self, rmap: R) -> R:
        """Register how theorem ``rmap.key`` reads a training run (:class:`dptheory.core.run.RunMap`; re-registering
        replaces it: modules may be reloaded)."""
        self._run_maps[rmap.key] = rmap
        return rmap

    def run_maps(self) -> list[Any]:
        """Every registered run map (each paper's, once discovered), by theorem key."""
        self.discover()
        return [self._run_maps[k] for k in sorted(self._run_maps)]

    def withdraw(self, keys: Iterable[str]) -> None:
        """Remove the theorems and claims under ``keys`` (what a broken plugin registered; a paper file's keys when
        a test is done with them), and their run maps. Keys not registered are ignored."""
        for k in list(keys):
            self._items.pop(k, None)
            self._origin.pop(k, None)
            self._run_maps.pop(k, None)

    def origin(self, key: str) -> str:
        """The module whose import registered ``key`` (``figure:NAME`` for a figure), or ``file:PATH`` for a paper
        file read from disk; '' if unknown."""
        return self._origin.get(key, "")

    # ------------------------------------------------------------------ lookup
    def _find(self, store: str, name: str, indexed: str, paper: str) -> None:
        """Make ``name`` present in the store ``self.<store>`` if it can be: the extras, then the index entry
        ``indexed``, then (a broken ``paper`` raises) discovery; conflicts are checked in any case."""
        self.load_extras()
        if name not in getattr(self, store):
            self._load_indexed(indexed)
        if name not in getattr(self, store):
            self._raise_if_broken(paper)
            self.discover()
        self.check_conflict()

    def get(self, key: str) -> Any:
        if not isinstance(key, str):
            raise InvalidKey(key)
        self._find("_items", key, key, key.split(".", 1)[0])
        try:
            return self._items[key]
        except KeyError:
            raise UnknownKey(key, list(dict.fromkeys([*self._items, *self.index_keys()]))) from None

    def numeric(self, key: str) -> Any:
        """The theorem ``key`` for evaluation (``eval``, ``convert``, ``sweep``, ``compare``, ``crossover``): read
        from the statement cache (:mod:`dptheory.core.snapshot`, through the installed finder: no sympy, its paper
        not imported) when the index
        names it as a theorem of a built-in provider and the cache holds a valid entry; otherwise :meth:`get`'s
        object, whose entry is then written (also when it was registered already, by the module the index names:
        its paper registers its other theorems with it). An object registered by anything else (a test's
        replacement, a provider outside the index) is :meth:`get`'s and never written. A claim or an unknown key is
        :meth:`get`'s answer too."""
        if not isinstance(key, str):
            return self.get(key)
        rows = [r for r in self.index().get("items", []) if r.get("key") == key]
        module = str(rows[0].get("module", "")) if len(rows) == 1 else ""
        cacheable = bool(module) and rows[0].get("kind") == "theorem" and is_builtin(module)
        if key not in self._items:
            self.load_extras()  # providers outside the index register first: a duplicate key is found as by get
        if key in self._items or self._discovered or not cacheable:
            obj = self.get(key)
            if cacheable and self._origin.get(key) == module:
                self._finder.remember(key, obj)
            return obj
        return self._finder.numeric_theorem(key, lambda: self.get(key), numeric if self is REGISTRY else None)

    def figure(self, name: str) -> Figure:
        if not isinstance(name, str):
            raise InvalidKey(name, what="figure name", example="<paper>-fig<N>")
        self._find("_figures", name, "figure:" + name, name.split("-", 1)[0])
        try:
            return self._figures[name]
        except KeyError:
            raise DPTheoryError(
                f"unknown figure {name!r}; known: {', '.join(sorted(self._figures)) or 'none'}"
            ) from None

    def figures(self) -> list[Figure]:
        self.discover()
        return [self._figures[k] for k in sorted(self._figures)]

    def broken(self) -> dict[str, PaperImportError]:
        """The paper packages discovery skipped because they fail to import, by package name."""
        return dict(self._finder.broken())

    def _raise_if_broken(self, prefix: str) -> None:
        """A key whose prefix is a paper package that failed to import: raise its :class:`PaperImportError`."""
        for pkg, err in self._finder.broken().items():
            if pkg.rsplit(".", 1)[-1] == prefix:
                raise PaperImportError(package=err.package, file=err.file, line=err.line, cause=err.cause)

    def __contains__(self, key: object) -> bool:
        self.load_extras()
        if key not in self._items and isinstance(key, str):
            self._load_indexed(key)
        if key not in self._items:
            self.discover()
        self.check_conflict()
        return key in self._items

    def __iter__(self) -> Iterator[Any]:
        self.discover()
        self.check_conflict()
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

    # ------------------------------------------------------------------ index
    def index(self) -> Mapping[str, Any]:
        """The committed index (``{"items": [...], "figures": [...], "papers": {...}}``), from the finder."""
        return self._finder.index()

    def index_keys(self) -> list[str]:
        return [row["key"] for row in self.index().get("items", [])]

    def _index_modules(self) -> dict[str, str]:
        """Key (or ``figure:NAME``) -> the built-in module the index says registers it."""
        data = self.index()
        out = {r["key"]: r["module"] for r in data.get("items", []) if "module" in r}
        out.update({"figure:" + r["name"]: r["module"] for r in data.get("figures", []) if "module" in r})
        return out

    def _indexed_packages(self) -> set[str]:
        return self._finder.indexed_providers()

    @contextmanager
    def _importing(self) -> Iterator[None]:
        """Around the import of a provider: a duplicate found meanwhile becomes the registry's standing conflict."""
        self._loading += 1
        try:
            yield
        finally:
            self._loading -= 1

    def load_extras(self) -> None:
        """Import the providers the index does not cover (``DPTHEORY_PATH``, entry points, a built-in paper missing
        from a stale index), once, before the registry answers: their keys are unknown until they are imported, so
        a duplicate among them and the built-ins is found whatever the order of the calls."""
        self.check_conflict()
        if self._extras_loaded or self._discovering:
            return
        self._extras_loaded = True
        if not self.index().get("items"):
            return  # no index: every lookup falls back to full discovery
        indexed = self._indexed_packages()
        for pkg in self._finder.providers():
            if pkg not in indexed:
                self._load_provider(pkg)

    def _load_provider(self, pkg: str) -> None:
        """Import one paper package's registration modules. A package from outside ``dptheory`` that fails is
        skipped (:class:`PaperImportWarning`; what it registered is withdrawn), except for a duplicate key."""
        if pkg in self._loaded or pkg in self._finder.broken():
            return
        if is_builtin(pkg):
            with self._importing():
                self._finder.load(pkg)
            self._loaded.add(pkg)
            return
        items, figures = set(self._items), set(self._figures)
        try:
            with self._importing():
                self._finder.load(pkg)
        except DuplicateKey:
            raise
        except Exception as exc:
            self.withdraw(set(self._items) - items)
            for k in set(self._figures) - figures:
                del self._figures[k]
                self._origin.pop("figure:" + k, None)
            self._finder.record_broken(pkg, exc)
            return
        self._loaded.add(pkg)

    def _load_indexed(self, key: str) -> None:
        """Import the one module the index names for ``key`` (a theorem/claim key or ``figure:NAME``)."""
        if self._discovered:
            return
        if key.startswith("figure:"):
            rows = [r for r in self.index().get("figures", []) if r["name"] == key[len("figure:") :]]
        else:
            rows = [r for r in self.index().get("items", []) if r["key"] == key]
        for r in rows:
            try:
                with self._importing():
                    importlib.import_module(r["module"])
            except ImportError:
                return  # an out-of-date index: full discovery decides

    def catalog(self) -> list[dict[str, Any]]:
        """Every theorem, claim and figure as rows (key, kind, title, direction, source, verdict), sorted by key,
        as the finder lists them (from the index, without importing the built-in providers)."""
        return self._finder.catalog(self)

    def registered(self) -> list[Any]:
        """The objects registered so far (no discovery)."""
        return list(self._items.values())

    # ------------------------------------------------------------------ discovery
    def discover(self) -> None:
        """Import every provider's registration modules (once; re-entrant calls are no-ops)."""
        self.check_conflict()
        if self._discovered or self._discovering:
            return
        self._discovering = True
        try:
            for pkg in self._finder.providers():
                self._load_provider(pkg)
            self._discovered = True
        finally:
            self._discovering = False
        self.check_conflict()


def is_builtin(module: str) -> bool:
    """A module of this package (its providers' failures propagate; its registrations are never refused by the
    index)."""
    return module == "dptheory" or module.startswith("dptheory.")


def _describe_module(module: str) -> str:
    """``module (file)`` for a message; the file from the imported module, else from its spec."""
    if not module:
        return "an unknown module"
    file = getattr(sys.modules.get(module), "__file__", None)
    if file is None:
        try:
            spec = importlib.util.find_spec(module)
        except (ImportError, ValueError):
            spec = None
        file = spec.origin if spec is not None else None
    return f"{module} ({file})" if file else module


def _calling_module() -> str:
    """The first module up the stack outside ``dptheory.core`` (the one registering an object)."""
    frame: FrameType | None = sys._getframe(2)
    while frame is not None:
        name = str(frame.f_globals.get("__name__", ""))
        if not name.startswith("dptheory.core."):
            return name
        frame = frame.f_back
    return ""


REGISTRY = Registry()


def get(key: str) -> Any:
    """Look a key up in the global registry (discovering the papers on first use).

    Raises :class:`~dptheory.core.errors.UnknownKey` for a key nobody registers (:class:`InvalidKey`, also a
    ``TypeError``, for one that is not a string), :class:`PaperImportError` for a key of a paper package that
    failed to import, :class:`DuplicateKey` if two providers register one key.
    """
    return REGISTRY.get(key)


def numeric(key: str) -> Any:
    """:meth:`Registry.numeric` of the global registry (how a worker process reads a theorem sent to it by key)."""
    return REGISTRY.numeric(key)
