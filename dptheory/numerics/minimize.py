"""Bounded scalar minimisation (Brent's method), step for step SciPy's ``minimize_scalar(method="bounded")``.

The order search of every (epsilon, delta) conversion (:func:`dptheory.privacy.conversion.optimize_order`) refines the
best grid order with a bounded Brent search. SciPy's implementation is the reference, but importing
``scipy.optimize`` costs about 0.25 s of CPU (it loads ``scipy.linalg`` and ``scipy.sparse``), a third of a whole
``dptheory convert``; so :func:`fminbound` is a transcription of SciPy's ``_minimize_scalar_bounded`` (scipy 1.17,
module ``scipy.optimize._optimize``; itself after Forsythe, Malcolm & Moler's FMIN, 1977): the same operations on the
same numbers in the same order, hence the same iterates and result (``tests/test_minimize.py`` compares the two on
objectives of every shape the search meets, and the conversions' outputs are unchanged).

SciPy's licence (BSD 3-clause) applies to this transcription: Copyright (c) 2001-2002 Enthought, Inc.
2003-2024, SciPy Developers. All rights reserved. Redistribution and use in source and binary forms, with or without
modification, are permitted provided that the following conditions are met: (1) redistributions of source code
must retain the above copyright notice, this list of conditions and the following disclaimer; (2) redistributions
in binary form must reproduce the above copyright notice, this list of conditions and the following disclaimer in
the documentation and/or other materials provided with the distribution; (3) neither the name of the copyright
holder nor the names of its contributors may be used to endorse or promote products derived from this software
without specific prior written permission. THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS
IS" AND ANY EXPRESS OR IMPLIED WARRANTIES ARE DISCLAIMED.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

__all__ = ["Minimum", "fminbound"]


class Minimum(NamedTuple):
    """The result of :func:`fminbound`: the abscissa, the value there, the number of evaluations and whether the
    search converged (SciPy's ``x``, ``fun``, ``nfev`` and ``success``)."""

    x: float
    fun: float
    nfev: int
    success: bool


def fminbound(func: Callable[[float], float], lo: float, hi: float, *, xatol: float = 1e-5,
              maxiter: int = 500) -> Minimum:
    """A local minimum of ``func`` on ``[lo, hi]`` by Brent's method (golden section and parabolic steps), to an
    absolute tolerance ``xatol``: SciPy's ``minimize_scalar(func, bounds=(lo, hi), method="bounded",
    options={"xatol": xatol, "maxiter": maxiter})`` (see the module docstring).

    Raises:
        ValueError: bounds that are not finite or not in order.
    """
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise ValueError("Optimization bounds must be finite scalars.")
    if lo > hi:
        raise ValueError("The lower bound exceeds the upper bound.")
    flag = 0
    sqrt_eps = np.sqrt(2.2e-16)
    golden_mean = 0.5 * (3.0 - np.sqrt(5.0))
    a, b = lo, hi
    fulc = a + golden_mean * (b - a)
    nfc, xf = fulc, fulc
    rat = e = 0.0
    x = xf
    fx = func(x)
    num = 1
    fu = np.inf
    ffulc = fnfc = fx
    xm = 0.5 * (a + b)
    tol1 = sqrt_eps * np.abs(xf) + xatol / 3.0
    tol2 = 2.0 * tol1
    while np.abs(xf - xm) > (tol2 - 0.5 * (b - a)):
        golden = 1
        if np.abs(e) > tol1:  # a parabolic fit
            golden = 0
            r = (xf - nfc) * (fx - ffulc)
            q = (xf - fulc) * (fx - fnfc)
            p = (xf - fulc) * q - (xf - nfc) * r
            q = 2.0 * (q - r)
            if q > 0.0:
                p = -p
            q = np.abs(q)
            r = e
            e = rat
            if (np.abs(p) < np.abs(0.5 * q * r)) and (p > q * (a - xf)) and (p < q * (b - xf)):  # acceptable
                rat = (p + 0.0) / q
                x = xf + rat
                if ((x - a) < tol2) or ((b - x) < tol2):
                    si = np.sign(xm - xf) + ((xm - xf) == 0)
                    rat = tol1 * si
            else:
                golden = 1
        if golden:  # a golden-section step
            e = a - xf if xf >= xm else b - xf
            rat = golden_mean * e
        si = np.sign(rat) + (rat == 0)
        x = xf + si * np.maximum(np.abs(rat), tol1)
        fu = func(x)
        num += 1
        if fu <= fx:
            if x >= xf:
                a = xf
            else:
                b = xf
            fulc, ffulc = nfc, fnfc
            nfc, fnfc = xf, fx
            xf, fx = x, fu
        else:
            if x < xf:
                a = x
            else:
                b = x
            if (fu <= fnfc) or (nfc == xf):
                fulc, ffulc = nfc, fnfc
                nfc, fnfc = x, fu
            elif (fu <= ffulc) or (fulc == xf) or (fulc == nfc):
                fulc, ffulc = x, fu
        xm = 0.5 * (a + b)
        tol1 = sqrt_eps * np.abs(xf) + xatol / 3.0
        tol2 = 2.0 * tol1
        if num >= maxiter:
            flag = 1
            break
    if np.isnan(xf) or np.isnan(fx) or np.isnan(fu):
        flag = 2
    return Minimum(x=float(xf), fun=float(fx), nfev=num, success=flag == 0)
