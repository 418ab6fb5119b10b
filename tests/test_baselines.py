"""Composition baselines written once (:mod:`dptheory.privacy.baselines`) and Ye & Shokri's G written once.

* ``yeshokri22.composition`` is ``rdp.subsampled_gaussian`` at the compiled substitution q = b/n,
  z = sqrt(2 eta sigma^2)/(eta S_g/b), T = K floor(n/b) (Ye & Shokri 2022, arXiv 2203.05363, Sec. 5.2 and E.1):
  its mp, float64 and ball values are the base theorem's at that point, its statement is the base's;
* its :class:`~dptheory.privacy.baselines.Baseline` is registered with the theorems (no CLI needed) and reads
  the same substitution;
* the kernels' G (Lemma 3.2, Eq. 70) is the compiled ``theorems.G_sym``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import mpmath
import numpy as np
import pytest
import sympy as sp

from dptheory.core.registry import REGISTRY

REPO = Path(__file__).resolve().parents[1]
FIG = {"eta": "0.02", "sigma": 2, "S_g": 4, "n": 50, "b": 2}
POINTS = [
    {"alpha": 10, "K": 5, **FIG},
    {"alpha": "2.5", "K": 7, **FIG},
    {"alpha": "37/3", "K": 3, "eta": "0.1", "sigma": "0.7", "S_g": "1.3", "n": 25, "b": 7},
]


def _base_point(p: dict) -> dict:
    """The subsampled Gaussian's (q, z, T) at a Ye & Shokri point, written out here independently."""
    eta, sigma, S_g = (mpmath.mpf(sp.Rational(str(p[x])).p) / sp.Rational(str(p[x])).q for x in ("eta", "sigma", "S_g"))
    n, b = int(p["n"]), int(p["b"])
    z = mpmath.sqrt(2 * eta * sigma**2) / (eta * S_g / b)
    return {"alpha": p["alpha"], "q": sp.Rational(b, n), "z": z, "T": int(p["K"]) * (n // b)}


@pytest.mark.parametrize("p", POINTS, ids=["fig-int", "fig-frac", "other"])
def test_composition_is_the_subsampled_gaussian_at_the_substitution(p):
    comp, base = REGISTRY.get("yeshokri22.composition"), REGISTRY.get("rdp.subsampled_gaussian")
    with mpmath.workdps(60):
        bp = _base_point(p)
        want = base.kernels().mp(
            {
                **bp,
                "alpha": mpmath.mpf(sp.Rational(str(p["alpha"])).p) / sp.Rational(str(p["alpha"])).q,
                "q": mpmath.mpf(bp["q"].p) / bp["q"].q,
            }
        )
    got = comp.evaluate(p, dps=40)
    assert got.enclosure is not None  # certified through the base's ball evaluator
    with mpmath.workdps(40):
        assert abs(got.value / want - 1) < mpmath.mpf(10) ** -38
    arrays = {k: np.array([float(sp.Rational(str(v)))]) for k, v in p.items()}
    f64 = comp.evaluate_np(arrays)[0]
    assert abs(f64 / float(want) - 1) < 1e-12


def test_composition_statement_is_the_base_statement_at_the_substitution():
    comp = REGISTRY.get("yeshokri22.composition")
    value, a_def, z_def, t_def = comp.statement
    assert isinstance(value, sp.Le) and value.lhs == sp.Symbol("varepsilon")
    assert isinstance(a_def.rhs, sp.Integral)
    eta, sigma, S_g, b, n, K = (comp.notation.sym(x) for x in ("eta", "sigma", "S_g", "b", "n", "K"))
    assert sp.simplify(z_def.rhs - sp.sqrt(2 * eta * sigma**2) / (eta * S_g / b)) == 0
    assert t_def.rhs == K * sp.floor(n / b)
    assert a_def.rhs.has(b / n) and not a_def.rhs.has(sp.Symbol("q", nonnegative=True))


def test_baseline_mechanism_reads_the_same_substitution():
    from dptheory.papers.yeshokri22.theorems import sgm_noise_multiplier

    base = REGISTRY.baseline("yeshokri22.composition")
    q, z, steps = base.mechanism({"K": 5, **FIG})
    assert (q, steps) == (2 / 50, 125)
    assert z == float(sgm_noise_multiplier("0.02", 2, 4, 2)) == 10.0
    assert set(base.needs) == {"eta", "sigma", "S_g", "b", "n", "K"}


def test_baseline_is_registered_without_the_cli():
    """Importing the theorems registers the baseline: a fresh interpreter that never builds the CLI finds it."""
    code = (
        "import sys, dptheory\n"
        "b = dptheory.REGISTRY.baseline('yeshokri22.composition')\n"
        "print(b.mechanism({'eta': '0.02', 'sigma': 2, 'S_g': 4, 'n': 50, 'b': 2, 'K': 5}))\n"
        "print(any(m.startswith('dptheory.cli') or m.endswith('yeshokri22.cli') for m in sys.modules))\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:2] == ["(0.04, 10.0, 125)", "False"]


def test_kernels_G_is_the_compiled_G_sym(monkeypatch):
    """The hand kernels' G is G_sym compiled: a point value, and changing the one definition changes them."""
    from dptheory.papers.yeshokri22 import kernels as ys
    from dptheory.papers.yeshokri22 import theorems as Y

    args = {"alpha": mpmath.mpf(3), "eta": mpmath.mpf("0.5"), "S_g": mpmath.mpf(2), "sigma": mpmath.mpf(1), "b": 2}
    want = Y.G_sym.subs({Y.NOTATION.sym(k): sp.nsimplify(v) for k, v in args.items()})
    assert ys.gaussian_step_rdp_mp(**args) == mpmath.mpf(sp.Rational(want).p) / sp.Rational(want).q
    assert float(ys.gaussian_step_rdp_np(3.0, 0.5, 2.0, 1.0, 2.0)) == float(want)
    ys.gaussian_step_rdp.cache_clear()
    monkeypatch.setattr(ys, "gaussian_step_rdp_expr", lambda a, e, s, sg, bb: 2 * a * e * s**2 / (4 * sg**2 * bb**2))
    try:
        assert ys.gaussian_step_rdp_mp(**args) == 2 * mpmath.mpf(sp.Rational(want).p) / sp.Rational(want).q
    finally:
        ys.gaussian_step_rdp.cache_clear()
