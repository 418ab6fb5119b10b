"""Without-replacement sampled Gaussian (WBK19, arXiv 1808.00087, Thm 9): float64 log magnitudes of the terms
``l_j`` (package docstring, :mod:`dptheory.privacy.wor`), for the float64 sums and the mpmath kernel's term
selection."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from dptheory.numerics.logspace import LOG2, log_abs_binom, log_expm1

__all__ = ["log_terms"]

_LOG4 = math.log(4.0)


def log_terms(
    n: NDArray[np.float64], lg: NDArray[np.float64], lz: NDArray[np.float64], j: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``l_j = log[C(n, j) gamma^j c_j]`` (package docstring) for ``j >= 2`` and its absolute-error scale.

    ``lg = log gamma`` and ``lz = log z`` (so that ``1/z^2 = exp(-2 lz)`` never overflows before it has to).
    """
    logc, cs = log_abs_binom(n, j)
    with np.errstate(all="ignore"):
        h = np.exp(-2.0 * lz) / 2.0  # 1/(2 z^2)
        expo = j * (j - 1.0) * h  # (j-1) eps(j)
        e2 = 2.0 * h  # eps(2) = 1/z^2
        c2 = np.minimum(_LOG4 + log_expm1(e2, -2.0 * lz), LOG2 + e2)
        coef = np.where(j == 2.0, c2, LOG2 + expo)
        p1 = j * lg
        lt = logc + p1 + coef
        scale = cs + np.abs(p1) + np.abs(coef) + expo + 1.0
    return lt, scale
