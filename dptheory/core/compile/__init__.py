"""The statement is the kernel: compile a theorem's sympy bound into mpmath, numpy and arb code.

A theorem's ``bound`` (a sympy expression in the paper's notation) is compiled once into three
backends that share one pipeline (see ``docs/compiler.md``):

1. **expand** the paper's shorthands (``sp.Function`` subclasses defined outside sympy that define
   ``doit``, e.g. Ye & Shokri's ``eps_0^j``, arXiv 2203.05363 Eq. 99) and close finite sums that sympy
   sums exactly (geometric sums, e.g. Thm D.6 and Lemma D.3 of the same paper);
2. **stabilise** for floating point: ``log(1 + t) -> log1p(t)``, ``log(1/x) -> -log(x)`` (x > 0),
   ``c - c exp(y) -> -c expm1(y)``,
   ``(1 + t)^E -> exp(E log1p(t))`` for symbolic ``E`` and ``c - c (1 + t)^E -> -c expm1(E log1p(t))``
   (the ``1 - r^m`` of Thm 3.3 / 4.2 with ``r = (1 - eta lam)^2`` near 1), and the logarithm of a sum
   (or mean) of exponentials as a log-sum-exp (Thm 4.2's second term);
3. **emit** straight-line Python for each backend, with common subexpressions evaluated once
   (structural CSE by hash-consing) and loop-invariant parts of a summand hoisted out of the loop.

Backends:

* ``mp``: mpmath at the caller's precision (``mpmath.workdps``); integer parameters are Python ints and
  every integer-valued subexpression (``floor(n/b)``, ``(K-1)(N-h)``) is computed exactly.
* ``np``: float64, vectorised and broadcasting; finite sums are vectorised over chunks of the summation
  index (bounded memory); ``1 - a b`` inside ``log1p`` uses Dekker's exact product near ``a b = 1``.
* ``arb``: python-flint balls at the current ``flint.ctx.prec``; every operation is rigorous, a branch
  or floor that a ball cannot decide raises :class:`Undecided`, never picks a side. A nan ball (python-flint's
  answer where it has no enclosure, e.g. ``log`` of a ball reaching 0) or a ball of infinite radius decides
  no comparison. Integer powers go through ``_ipow``: python-flint 0.9 returns nan for ``ball ** n`` when the
  ball's midpoint is 0 (``arb(0, 1)**2``, flint issue 426), so there the power is taken from the ball's ends.

Each backend is generated and executed on first use (:class:`Compiled`): a float64 sweep builds only the
float64 kernel, and only the arb backend imports python-flint (:func:`require_flint`).

:func:`enclose` runs the arb backend with exact rational inputs under a Ziv loop (raise precision
until the ball is narrow enough) and returns a certified enclosure rounded outward.
:func:`agree_mp` is the non-rigorous alternative (two mpmath precisions agree) and says so.

The package's modules follow the pipeline: :mod:`.base` (errors, python-flint on demand), :mod:`.functions`
(the internal stable forms), :mod:`.expand`, :mod:`.stable` (stage 2, :func:`stabilise`), :mod:`.emit`,
:mod:`.backends` (the runtime namespaces ``mp``, ``np``, ``arb``), :mod:`.compiled` (:class:`Compiled`,
:func:`compile_expr`), :mod:`.enclose`, :mod:`.conditions` (a condition's sides) and :mod:`.vet` (the check
that generated source read back from the statement cache is code this compiler writes). This ``__init__`` is the
compiler's public face: import from ``dptheory.core.compile``. The names of the stages that need sympy are
imported on first use (PEP 562), so that running generated kernels (:mod:`.backends`, :class:`Compiled`,
:func:`enclose`) imports no sympy: only compiling does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dptheory.core.compile.base import (
    MAX_SUM_TERMS,
    CompileError,
    MissingBackend,
    Undecided,
    informative_ball,
    require_flint,
)
from dptheory.core.compile.compiled import BACKENDS, ArbKernel, Compiled, compile_expr, compile_theorem
from dptheory.core.compile.enclose import Enclosure, agree_mp, decimal_bound, enclose
from dptheory.core.lazy import lazy_module_attributes

#: the names whose modules import sympy (or numpy), imported on first use
_LAZY = {
    "one_minus_product_np": "dptheory.core.compile.backends.np",
    "compile_condition": "dptheory.core.compile.conditions",
    "expand_shorthands": "dptheory.core.compile.expand",
    "Pow1p": "dptheory.core.compile.functions",
    "Pow1pm1": "dptheory.core.compile.functions",
    "expm1": "dptheory.core.compile.functions",
    "log1p": "dptheory.core.compile.functions",
    "stabilise": "dptheory.core.compile.stable",
}

__all__ = [
    "BACKENDS",
    "MAX_SUM_TERMS",
    "ArbKernel",
    "CompileError",
    "Compiled",
    "Enclosure",
    "MissingBackend",
    "Pow1p",
    "Pow1pm1",
    "Undecided",
    "agree_mp",
    "compile_condition",
    "compile_expr",
    "compile_theorem",
    "decimal_bound",
    "enclose",
    "expand_shorthands",
    "expm1",
    "informative_ball",
    "log1p",
    "one_minus_product_np",
    "require_flint",
    "stabilise",
]

if TYPE_CHECKING:
    from dptheory.core.compile.backends.np import one_minus_product_np
    from dptheory.core.compile.conditions import compile_condition
    from dptheory.core.compile.expand import expand_shorthands
    from dptheory.core.compile.functions import Pow1p, Pow1pm1, expm1, log1p
    from dptheory.core.compile.stable import stabilise

__getattr__, __dir__ = lazy_module_attributes("dptheory.core.compile", globals(), _LAZY)
