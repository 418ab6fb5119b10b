"""The compiled object: a statement's three backends, each generated and executed on first use.

A :class:`Compiled` is made by :func:`compile_expr` (from a sympy expression: sympy is imported then) or, with its
sources already generated, by :meth:`Compiled.from_sources` (the statement cache: no sympy)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from dptheory.core.compile.backends import execute
from dptheory.core.compile.base import CompileError
from dptheory.core.errors import NumericalFailure

if TYPE_CHECKING:
    import mpmath
    import numpy as np
    import sympy as sp

__all__ = ["BACKENDS", "ArbKernel", "Compiled", "compile_expr", "compile_theorem"]


class ArbKernel(Protocol):
    """What :func:`enclose` evaluates: a :class:`Compiled` bound or a hand-written arb kernel
    (:class:`dptheory.core.evaluator.ArbEvaluator`)."""

    @property
    def params(self) -> tuple[str, ...]: ...

    def arb(self, args: Mapping[str, Any]) -> Any: ...


BACKENDS = ("mp", "np", "arb")


class _Sources(Mapping[str, str]):
    """``Compiled.source``: the generated code per backend, emitted on first access."""

    def __init__(self, owner: Compiled) -> None:
        self._owner = owner

    def __getitem__(self, backend: str) -> str:
        if backend not in BACKENDS:
            raise KeyError(backend)
        return self._owner._source(backend)

    def __iter__(self) -> Any:
        return iter(BACKENDS)

    def __len__(self) -> int:
        return len(BACKENDS)

    def __repr__(self) -> str:
        return f"<generated source of the {', '.join(BACKENDS)} backends>"


@dataclass(frozen=True, eq=False)
class Compiled:
    """A bound compiled to three backends (see the module docstring), each built on first use.

    :func:`compile_expr` checks that the statement compiles (it emits the mpmath source, which imports
    nothing); a backend's kernel is generated and executed the first time it is called (``mp``, ``np``,
    ``np_flagged``, ``arb``) and kept. So a float64 sweep never builds the arb kernel, and only the arb
    backend imports python-flint. Building is guarded by a lock: threads that share a ``Compiled`` build
    each backend once.

    Attributes:
        params: parameter names, in order.
        integers: the integer parameters.
        expr: the expression that was compiled (shorthands expanded, stabilised); ``None`` for one read back from
            the statement cache (its sources are given).
        source: the generated code per backend (a read-only mapping, emitted on access), for inspection.
        vet: the sources were read back from disk: each is vetted (:mod:`dptheory.core.compile.vet`) before it
            runs.
    """

    params: tuple[str, ...]
    integers: frozenset[str]
    expr: sp.Expr | None
    symbols: Mapping[str, sp.Symbol] = field(repr=False)
    _sources: dict[str, str] = field(default_factory=dict, repr=False)
    _kernels: dict[str, Callable[..., Any]] = field(default_factory=dict, repr=False)
    _lock: Any = field(default_factory=threading.RLock, repr=False)
    vet: bool = field(default=False, repr=False)

    @classmethod
    def from_sources(cls, params: tuple[str, ...], integers: frozenset[str], sources: Mapping[str, str]) -> Compiled:
        """A compiled statement from its generated sources (every backend's), read back from the statement cache:
        no expression, and each source is vetted before it runs."""
        missing = [b for b in BACKENDS if b not in sources]
        if missing:
            raise CompileError(f"the sources of the backends {missing} are missing")
        return cls(params=tuple(params), integers=frozenset(integers), expr=None, symbols={},
                   _sources={b: str(sources[b]) for b in BACKENDS}, vet=True)

    @property
    def source(self) -> Mapping[str, str]:
        return _Sources(self)

    @property
    def built(self) -> frozenset[str]:
        """The backends whose kernels have been built so far."""
        return frozenset(self._kernels)

    def _source(self, backend: str) -> str:
        src = self._sources.get(backend)
        if src is None:
            with self._lock:
                src = self._sources.get(backend)
                if src is None:
                    from dptheory.core.compile.emit import emit_source

                    if self.expr is None:  # pragma: no cover - from_sources gives every backend's source
                        raise CompileError(f"the {backend} source is missing")
                    src = emit_source(backend, self.expr, self.params, self.symbols, self.integers)
                    self._sources[backend] = src
        return src

    def kernel(self, backend: str) -> Callable[..., Any]:
        """The kernel of one backend (``"mp"``, ``"np"`` or ``"arb"``), built on first use.

        Raises:
            CompileError: the statement uses something this backend does not handle.
            MissingBackend: the arb backend, without python-flint.
        """
        k = self._kernels.get(backend)
        if k is None:
            if backend not in BACKENDS:
                raise CompileError(f"unknown backend {backend!r} (backends: {', '.join(BACKENDS)})")
            with self._lock:
                k = self._kernels.get(backend)
                if k is None:
                    k = execute(backend, self._source(backend), vet=self.vet)
                    self._kernels[backend] = k
        return k

    def mp(self, args: Mapping[str, Any]) -> mpmath.mpf:
        """Value at the current mpmath precision; ints for integer parameters, numbers otherwise."""
        try:
            return self.kernel("mp")(args)
        except ZeroDivisionError as exc:
            raise NumericalFailure(
                f"division by zero: the statement is undefined at {dict(args)} (state the value there "
                "explicitly, e.g. Piecewise((oo, ...), ...))"
            ) from exc

    def np(self, arrays: Mapping[str, Any]) -> np.ndarray:
        """float64 values, vectorised with broadcasting (no condition checks)."""
        import numpy as np

        with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
            return self.kernel("np")(arrays)

    def np_flagged(self, arrays: Mapping[str, Any], *, tol: float = 1e-11) -> tuple[Any, Any]:
        """float64 values and a mask of points where they may be off by more than ``tol`` relative.

        The mask is a conditioning estimate, not a bound: the kernel is re-run twice with every real
        input moved by 8 units in the last place (alternating signs across parameters, then the
        opposite signs); a point is flagged when a value moves by more than ``tol`` relative or
        changes finiteness. With the stable forms emitted here, rounding errors act like input
        perturbations of a few units, so an ill-conditioned point (the Balle factor's base
        ``1 - 2 eta beta lam/(beta + lam)`` near 0) is flagged. The pair is the form
        ``Theorem.np`` may return: flagged points are recomputed with mpmath.
        """
        import numpy as np

        base = self.np(arrays)
        arrs = {k: np.asarray(arrays[k], dtype=np.float64) for k in self.params}
        unreliable = np.zeros(base.shape, dtype=bool)
        step = 8 * 2.0**-53
        for first in (1.0, -1.0):
            moved = {}
            for i, p in enumerate(self.params):
                a = arrs[p]
                moved[p] = a if p in self.integers else a * (1 + first * (-1) ** i * step)
            v = self.np(moved)
            fin = np.isfinite(base) & np.isfinite(v)
            with np.errstate(invalid="ignore", over="ignore"):
                off = np.where(fin, np.abs(v - base) > tol * np.abs(base), np.isfinite(base) != np.isfinite(v))
            unreliable |= off
        return base, unreliable

    def arb(self, args: Mapping[str, Any]) -> Any:
        """A ball containing the exact value at every point of the input balls, at the current
        ``flint.ctx.prec``; raises :class:`Undecided` when a branch or floor cannot be decided."""
        return self.kernel("arb")(args)


def compile_expr(
    expr: sp.Expr, symbols: Mapping[str, sp.Symbol], *, integers: frozenset[str] = frozenset(), close_sums: bool = True
) -> Compiled:
    """Compile a sympy expression in the given parameters (``name -> Symbol``).

    Raises:
        CompileError: naming the construct that is not supported.
    """
    import sympy as sp

    from dptheory.core.compile.expand import expand_shorthands
    from dptheory.core.compile.stable import stabilise

    params = tuple(symbols)
    unknown = set(integers) - set(params)
    if unknown:
        raise CompileError(f"integer parameters {sorted(unknown)} are not among the parameters {list(params)}")
    expanded = expand_shorthands(sp.sympify(expr), close_sums=close_sums)
    free = expanded.free_symbols - set(symbols.values())
    if free:
        raise CompileError(f"symbols {sorted(map(str, free))} are not parameters ({', '.join(params)})")
    stable = stabilise(expanded)
    out = Compiled(params=params, integers=frozenset(integers), expr=stable, symbols=dict(symbols))
    out._source("mp")  # an unsupported construct is named here, not at the first evaluation (emitting imports nothing)
    return out


_THEOREM_CACHE: dict[str, tuple[sp.Expr, Compiled]] = {}


def compile_theorem(theorem: Any) -> Compiled:
    """Compile a :class:`~dptheory.core.theorem.Theorem`'s closed-form ``bound`` (cached per key and
    bound object): its parameters in order, integer parameters from the notation table."""
    bound = getattr(theorem, "bound", None)
    if bound is None:
        raise CompileError(
            f"{theorem.key} has no closed-form bound (it is stated as a recurrence or definition); it keeps "
            "its hand-written kernel and its values are not certified"
        )
    hit = _THEOREM_CACHE.get(theorem.key)
    if hit is not None and hit[0] is bound:
        return hit[1]
    syms = {p: theorem.notation.sym(p) for p in theorem.params}
    ints = frozenset(p for p in theorem.params if theorem.notation[p].domain.is_integer)
    out = compile_expr(bound, syms, integers=ints)
    _THEOREM_CACHE[theorem.key] = (bound, out)
    return out
