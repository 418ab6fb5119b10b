"""``dptheory.numerics.minimize.fminbound`` is SciPy's bounded Brent search step for step: the same abscissa, value
and number of evaluations (bit for bit) on objectives of the shapes the order search meets."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from dptheory.numerics.minimize import fminbound

OBJECTIVES = {
    "parabola": (lambda x: (x - 0.3) ** 2, -1.0, 2.0),
    "epsilon-like": (lambda s: 9.0 * math.exp(s) + 11.5 / math.exp(s) + math.log1p(-1 / (1 + math.exp(s))), -2.0, 3.0),
    "flat": (lambda x: 1.0, 0.0, 1.0),
    "at an end": (lambda x: x, 0.5, 4.0),
    "kink": (lambda x: abs(x - 1.234567), 0.0, 3.0),
    "two minima": (lambda x: math.sin(3 * x) + 0.1 * x, -2.0, 2.0),
    "infinite": (lambda x: math.inf if x < 0.2 else (x - 0.5) ** 2, 0.0, 1.0),
    "narrow": (lambda x: (x - 1e-3) ** 2, 0.0, 2e-3),
}


@pytest.mark.parametrize("name", sorted(OBJECTIVES))
@pytest.mark.parametrize("xatol", [1e-5, 1e-9])
def test_fminbound_is_scipys_bounded_search(name, xatol):
    f, lo, hi = OBJECTIVES[name]
    ours = fminbound(f, lo, hi, xatol=xatol)
    ref = minimize_scalar(f, bounds=(lo, hi), method="bounded", options={"xatol": xatol})
    assert (ours.x, ours.nfev, ours.success) == (float(ref.x), int(ref.nfev), bool(ref.success))
    assert ours.fun == float(ref.fun) or (np.isnan(ours.fun) and np.isnan(ref.fun))


def test_fminbound_refuses_bad_bounds():
    with pytest.raises(ValueError):
        fminbound(abs, 1.0, 0.0)
    with pytest.raises(ValueError):
        fminbound(abs, 0.0, math.inf)
