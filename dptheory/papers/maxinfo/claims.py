"""Claims about the classic max-information results and our derived DP-SGD bounds.

Dwork et al. 2015 (arXiv 1506.02629v2): Corollaries 21 and 22 follow from Theorem 13 (and Thm 20);
we check that the stated conclusions follow from the stated hypotheses through the printed route,
and pin where they do not. Our own results (``docs/derivations/maxinfo_dpsgd.md``): its summary table
suggests Theorem B is the sharper bound; we check that ordering.

The claims are data, the ``[[claim]]`` tables of ``paper.toml`` (read by :mod:`dptheory.core.paperfile`),
registered at the end of this module; what they need as code is here: Corollary 21's two readings of the
hypothesis k (sympy expressions) and the proof of ``dwork15.C21``.
"""

from __future__ import annotations

from typing import Any

from dptheory.core import paperfile
from dptheory.core.registry import REGISTRY
from dptheory.core.symbolic import prove_zero
from dptheory.papers.maxinfo import theorems as M
from dptheory.verify.sides import side_at_pin

tau, c, n, k = M.NOTATION.symbols("tau", "c", "n", "k")

K_CONCLUSION = tau**2 / (c**2 * n)
"""Corollary 21's hypothesis k (nats) as its conclusion needs it (``dwork15.C21``)."""
K_EXTRACTED = tau**2 / c**2
"""Corollary 21's hypothesis k as the text was extracted, log e tau^2/c^2 (``dwork15.C21_as_extracted``)."""


def _c21_symbolic() -> Any:
    assert M.COR21_ROUTE.bound is not None and M.COR21.bound is not None  # both are closed forms
    route = M.COR21_ROUTE.bound.subs(k, K_CONCLUSION)
    return prove_zero(route - M.COR21.bound, "Cor 21 route at k = tau^2/(c^2 n) minus Cor 21")


# dwork15.C21, dwork15.C21_as_extracted, dwork15.C22 and maxinfo.C1: the [[claim]] tables of paper.toml
for _claim in paperfile.load(__name__, "paper.toml").claims(side_at_pin=side_at_pin):
    REGISTRY.add(_claim)
