"""The statement cache: a theorem's numeric face kept on disk, so that a later command evaluates it without sympy.

A theorem is a sympy statement; evaluating it runs code compiled from that statement (:mod:`dptheory.core.compile`)
and its conditions compiled the same way (:class:`~dptheory.core.conditions.ConditionCode`). Building the statement
means importing sympy and the paper (about half a second) and compiling it (up to a second for a statement with
sums), on every command, for statements that do not change between commands. So the first evaluation of a
theorem writes its **record** (:func:`record_of`: the generated sources of its kernels and conditions, its
parameters, citation and the names of its hand-written kernels) to the user's cache, and later commands read the
record back as a :class:`CachedTheorem`, which evaluates exactly as the theorem does (the same evaluator,
:class:`~dptheory.core.evaluator.Evaluable`, on the same generated code) without importing sympy.

**Never a stale kernel.** An entry is found by a hash of its *key material* (:func:`material`): the theorem's
key, a hash of the contents of every source file of the ``dptheory`` package (:func:`package_fingerprint`:
every statement, and the compiler that turned it into code, is written there), and the versions of Python,
sympy and mpmath. A changed statement changes the package's files, hence the material, hence the entry read:
the old entry is never found again. (A hash of the statement itself would need the statement built, which is
the cost the cache avoids; the sources determine the statement, so hashing them is the conservative choice:
any edit of the package, not only of the statement, retires every entry.)

**Never code from elsewhere.** An entry holds the material it was written for and a SHA-256 of its record;
one whose material differs (another key, package or version), whose hash does not match (a torn or corrupt
file), or that is not valid JSON is ignored and rewritten. Every generated source is vetted before it runs
(:mod:`dptheory.core.compile.vet`: only code of the shape the compiler writes, which can compute but reach no
file, module or interpreter), and a hand-written kernel is named by ``module:qualname`` inside ``dptheory``
only, resolved by import. The cache folder must belong to the user and not be writable by others; otherwise it
is not used.

**Where.** In the user's cache folder (:mod:`dptheory.core.cache_store`: never the working folder; a folder of the
user's alone; ``DPTHEORY_NO_CACHE=1`` turns it off). Entries are written whole or not at all; a cache that cannot be
written costs speed, never a result.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import os
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dptheory.core.cache_store import CACHE_ENV, FORMAT, NO_CACHE_ENV, StatementCache, cache_dir, read_note, write_note
from dptheory.core.citation import Citation, Paper
from dptheory.core.conditions import CompiledCondition, ConditionCode
from dptheory.core.evaluator import Evaluable, KernelArb, KernelMP, KernelNP, compiled_term
from dptheory.core.notation import Domain, NotationTable, Param
from dptheory.core.units import Direction, Monotone, Unit

if TYPE_CHECKING:
    from dptheory.core.compile import Compiled

__all__ = [
    "CACHE_ENV",
    "FORMAT",
    "NO_CACHE_ENV",
    "CachedTerm",
    "CachedTheorem",
    "StatementCache",
    "cache_dir",
    "material",
    "package_fingerprint",
    "read_note",
    "record_of",
    "remember",
    "write_note",
]

PACKAGE_ROOT = Path(__file__).resolve().parents[1]
#: the files whose contents the package fingerprint hashes (every statement and the compiler are in them)
SOURCE_SUFFIXES = (".py", ".toml")


# ----------------------------------------------------------------------------------------------- the record
def _ref(fn: Any) -> str | None:
    """``module:qualname`` naming a hand-written kernel, if importing that name gives this very function and the
    module is dptheory's; else None (the theorem is then not cached)."""
    mod, qual = getattr(fn, "__module__", None), getattr(fn, "__qualname__", None)
    if not isinstance(mod, str) or not isinstance(qual, str) or "<" in qual:
        return None
    ref = f"{mod}:{qual}"
    try:  # the one reading of a reference, so a record never names what _resolve refuses
        return ref if _resolve(ref) is fn else None
    except (ImportError, AttributeError, ValueError):
        return None


def _resolve(ref: str) -> Callable[..., Any]:
    """The function a record names (``module:qualname`` inside dptheory)."""
    mod, _, qual = ref.partition(":")
    if not mod.startswith("dptheory.") or not qual or "__" in qual:
        raise ValueError(f"kernel reference {ref!r} is not a function of dptheory")
    obj: Any = importlib.import_module(mod)
    for part in qual.split("."):
        obj = getattr(obj, part)
    if not callable(obj):
        raise ValueError(f"kernel reference {ref!r} is not callable")
    fn: Callable[..., Any] = obj
    return fn


def _citation(c: Citation | None) -> dict[str, Any] | None:
    if c is None:
        return None
    p = c.paper
    return {"paper": {"key": p.key, "authors": p.authors, "year": p.year, "title": p.title, "venue": p.venue,
                      "arxiv_id": p.arxiv_id, "arxiv_version": p.arxiv_version},
            "locator": c.locator, "equation": c.equation, "note": c.note}


def _citation_from(d: Mapping[str, Any] | None) -> Citation | None:
    if d is None:
        return None
    return Citation(paper=Paper(**d["paper"]), locator=d["locator"], equation=d["equation"], note=d["note"])


def _sources(c: Compiled | None) -> dict[str, str] | None:
    if c is None:
        return None
    from dptheory.core.compile import BACKENDS

    return {b: c.source[b] for b in BACKENDS}


def _check(c: CompiledCondition) -> dict[str, Any]:
    return {"text": c.text, "gloss": c.gloss, "kind": c.kind, "citation": _citation(c.citation), "latex": c.latex,
            "code": c.code.to_dict()}


def record_of(thm: Any) -> dict[str, Any] | None:
    """A theorem's record (plain JSON data; see the module docstring), or ``None`` if it cannot be cached: a
    hand-written kernel that is not a function of dptheory importable by its name (a closure, a method), or a
    statement the compiler refuses. Compiles every backend of the statement and every condition."""
    from dptheory.core.compile import CompileError

    refs: dict[str, str | None] = {}
    for name in ("mp", "np", "arb"):
        fn = getattr(thm, name)
        if fn is not None:
            refs[name] = _ref(fn)
            if refs[name] is None:
                return None
    terms = {}
    try:
        compiled = _sources(thm.compiled)
        for t in thm.terms.values():
            tr: dict[str, Any] = {"description": t.description, "compiled": _sources(compiled_term(thm, t.name))}
            for name in ("mp", "np", "arb"):
                fn = getattr(t, name)
                tr[name] = None if fn is None else _ref(fn)
                if fn is not None and tr[name] is None:
                    return None
            terms[t.name] = tr
        checks = [_check(c) for c in thm.domain_checks], [_check(c) for c in thm.condition_checks]
    except CompileError:
        return None
    params = [{"name": p.name, "latex": p.latex, "meaning": p.meaning, "domain": p.domain.value,
               "sample": list(p.sample), "unit": p.unit} for p in thm.param_objects]
    return {
        "key": thm.key, "title": thm.title, "citation": _citation(thm.citation), "paper_key": thm.notation.paper_key,
        "params": params, "direction": thm.direction.value, "quantity": thm.quantity, "unit": thm.unit.value,
        "assumptions": list(thm.assumptions), "np_flagged": bool(thm.np_flagged), "kernel_reason": thm.kernel_reason,
        "monotone": {k: v.value for k, v in thm.monotone.items()}, "slow_fractional": list(thm.slow_fractional),
        "infinite_when": thm.infinite_when, "overrides": list(thm.overrides), "kernels": refs,
        "compiled": compiled, "terms": terms, "domain_checks": checks[0], "condition_checks": checks[1],
    }


# ----------------------------------------------------------------------------------------------- the view
@dataclass(frozen=True)
class CachedTerm:
    """A named term of a cached theorem: its description and hand-written kernels (its expression compiled is
    ``CachedTheorem.compiled_term(name)``)."""

    name: str
    description: str
    mp: KernelMP | None = None
    np: KernelNP | None = None
    arb: KernelArb | None = None


class CachedTheorem(Evaluable):
    """A theorem read back from the statement cache: evaluates as the :class:`~dptheory.core.theorem.Theorem` it was
    written from (the same evaluator on the same generated code) without sympy.

    It holds the numeric face (``key``, ``params``, ``notation`` of its parameters, ``citation``, ``direction``,
    ``unit``, ``quantity``, the compiled conditions and statement, the hand-written kernels, the terms). Anything
    else (the sympy ``bound``, ``conditions``, ``limits``, LaTeX, ...) is the theorem's: asking for it loads the
    theorem (``full``), which imports sympy. Its values are Fractions where the theorem's are sympy Rationals (the
    same numbers)."""

    KIND = "theorem"

    def __init__(self, record: Mapping[str, Any], full: Callable[[], Any],
                 reload: Callable[[str], Any] | None = None) -> None:
        r = record
        self._full = full
        self._reload = reload
        self.key = str(r["key"])
        self.title = str(r["title"])
        citation = _citation_from(r["citation"])
        assert citation is not None
        self.citation = citation
        self.notation = NotationTable.build(
            str(r["paper_key"]),
            [(p["name"], p["latex"], p["meaning"], Domain(p["domain"]), tuple(p["sample"]), p["unit"])
             for p in r["params"]])
        self.params = tuple(p["name"] for p in r["params"])
        self.direction = Direction(r["direction"])
        self.quantity = str(r["quantity"])
        self.unit = Unit(r["unit"])
        self.assumptions = tuple(r["assumptions"])
        self.np_flagged = bool(r["np_flagged"])
        self.kernel_reason = str(r["kernel_reason"])
        self.monotone = {k: Monotone(v) for k, v in r["monotone"].items()}
        self.slow_fractional = tuple(r["slow_fractional"])
        self.infinite_when = str(r["infinite_when"])
        self.overrides = tuple(r["overrides"])
        refs = r["kernels"]
        self._refs = {k: str(v) for k, v in refs.items() if v is not None}
        self._compiled_sources = r["compiled"]
        self._term_sources = {k: t["compiled"] for k, t in r["terms"].items()}
        self.terms = {k: CachedTerm(k, t["description"],
                                    None if t["mp"] is None else _Lazy(str(t["mp"])),
                                    None if t["np"] is None else _Lazy(str(t["np"])),
                                    None if t["arb"] is None else _Lazy(str(t["arb"])))
                      for k, t in r["terms"].items()}
        self._memo: dict[Any, Any] = {}
        self.domain_checks = tuple(self._condition(c, i, "domain") for i, c in enumerate(r["domain_checks"]))
        self.condition_checks = tuple(self._condition(c, i, "own") for i, c in enumerate(r["condition_checks"]))
        self.mp: KernelMP | None = _Lazy(self._refs["mp"]) if "mp" in self._refs else None
        self.np: KernelNP | None = _Lazy(self._refs["np"]) if "np" in self._refs else None
        self.arb: KernelArb | None = _Lazy(self._refs["arb"]) if "arb" in self._refs else None

    def _condition(self, c: Mapping[str, Any], i: int, which: str) -> CompiledCondition:
        def symbolic() -> Any:
            full = self.full
            return (full.domain_conditions if which == "domain" else full.conditions)[i]

        return CompiledCondition(text=str(c["text"]), gloss=str(c["gloss"]), kind=str(c["kind"]),
                                 citation=_citation_from(c["citation"]), latex=c["latex"],
                                 code=ConditionCode.from_dict(c["code"]), symbolic=symbolic)

    @property
    def full(self) -> Any:
        """The :class:`~dptheory.core.theorem.Theorem` itself (imports its paper, and sympy)."""
        if "full" not in self._memo:
            self._memo["full"] = self._full()
        return self._memo["full"]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("_memo", "_full", "_reload"):
            raise AttributeError(name)
        return getattr(self.full, name)

    def __reduce__(self) -> tuple[Any, ...]:
        # a worker process reads the theorem again by its key (from its own cache, or from the registry)
        if self._reload is None:
            raise TypeError(f"{self.key}: a theorem read from the statement cache of a registry other than the global "
                            "one cannot be sent to another process")
        return (self._reload, (self.key,))

    def __repr__(self) -> str:
        return f"<{self.key}: {self.title} (read from the statement cache)>"

    @property
    def param_objects(self) -> tuple[Param, ...]:
        return tuple(self.notation[p] for p in self.params)

    def parse(self, params: Mapping[str, Any]) -> dict[str, Fraction]:
        """Validate names and turn every value into an exact rational (a Fraction)."""
        from dptheory.core.evaluator import parse

        return parse(self, params, symbolic=False)

    @property
    def compiled(self) -> Compiled | None:
        """The statement compiled (read back: each source vetted before it runs), or None without a closed form."""
        return self._compiled("", self._compiled_sources)

    def compiled_term(self, name: str) -> Compiled | None:
        if name not in self._term_sources:
            raise KeyError(f"{self.key} has no term {name!r}; terms: {', '.join(self.terms) or 'none'}")
        return self._compiled(name, self._term_sources[name])

    def _compiled(self, slot: str, sources: Mapping[str, str] | None) -> Compiled | None:
        if sources is None:
            return None
        if ("compiled", slot) not in self._memo:
            from dptheory.core.compile.compiled import Compiled

            ints = frozenset(p for p in self.params if self.notation[p].domain.is_integer)
            self._memo[("compiled", slot)] = Compiled.from_sources(self.params, ints, sources)
        out: Compiled = self._memo[("compiled", slot)]
        return out


class _Lazy:
    """A hand-written kernel named in a record, imported on its first call (``eval`` of one theorem imports only the
    kernels it runs)."""

    __slots__ = ("_fn", "ref")

    def __init__(self, ref: str) -> None:
        self.ref = ref
        self._fn: Callable[..., Any] | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._fn is None:
            self._fn = _resolve(self.ref)
        return self._fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<kernel {self.ref}>"


@functools.cache
def package_fingerprint(root: Path = PACKAGE_ROOT) -> str:
    """SHA-256 of the contents of every ``.py`` and ``.toml`` file under ``root`` (the dptheory package), with
    their relative paths, in a fixed order (a few milliseconds)."""
    h = hashlib.sha256()
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for f in sorted(files):
            if f.endswith(SOURCE_SUFFIXES):
                path = Path(folder) / f
                data = path.read_bytes()
                h.update(path.relative_to(root).as_posix().encode() + b"\0" + str(len(data)).encode() + b"\0")
                h.update(data)
    return h.hexdigest()


@functools.cache
def _sympy_version() -> str:
    """sympy's version read from its ``release.py`` (importing sympy to ask would cost what the cache saves)."""
    import importlib.util

    spec = importlib.util.find_spec("sympy")
    if spec is None or spec.origin is None:
        return "absent"
    try:
        text = (Path(spec.origin).parent / "release.py").read_text()
    except OSError:
        return "unknown"
    m = re.search(r"""__version__\s*=\s*["']([^"']+)["']""", text)
    return m.group(1) if m else "unknown"


def material(key: str) -> dict[str, Any]:
    """What an entry for ``key`` is valid for (see the module docstring): its hash names the entry's file."""
    import mpmath

    return {"format": FORMAT, "key": key, "package": package_fingerprint(),
            "python": f"{sys.version_info[0]}.{sys.version_info[1]}", "sympy": _sympy_version(),
            "mpmath": str(mpmath.__version__)}


def remember(key: str, thm: Any, *, cache: StatementCache | None = None) -> None:
    """Write the entry of a theorem already built (registered by the module the index names for it), if the cache
    has none valid for it: a paper registers all its theorems at once, so those not asked for are written too."""
    store = StatementCache() if cache is None else cache
    if store.root is None or getattr(thm, "KIND", "") != "theorem" or isinstance(thm, CachedTheorem):
        return
    mat = material(key)
    if store.load(mat) is None:
        rec = record_of(thm)
        if rec is not None:
            store.store(mat, rec)


def numeric_theorem(key: str, full: Callable[[], Any], *, cache: StatementCache | None = None,
                    reload: Callable[[str], Any] | None = None) -> Any:
    """The theorem ``key`` for evaluation: read from the statement cache when an entry is valid for it (no sympy),
    else ``full()`` (the registry's theorem), whose record is then written for the next command. An entry of the
    right material that does not read back (another layout) is ignored and rewritten the same way. ``reload``
    (a module-level function of the key) is how a pickled cached theorem is read again in another process."""
    store = StatementCache() if cache is None else cache
    if store.root is None:
        return full()
    mat = material(key)
    record = store.load(mat)
    if record is not None:
        try:
            return CachedTheorem(record, full, reload)
        except (KeyError, TypeError, ValueError, AttributeError):
            pass
    thm = full()
    if getattr(thm, "KIND", "") == "theorem":
        rec = record_of(thm)
        if rec is not None:
            store.store(mat, rec)
    return thm
