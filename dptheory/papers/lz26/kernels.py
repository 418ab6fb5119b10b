"""The hand-written kernels of the Theorem 2 shapes (``paper.toml`` names them; declared overrides).

The risk of a Theorem 2 shape is ``kl^-1_+(emp_risk, budget)`` (an inverse of the binary kl, no closed form:
:mod:`dptheory.numerics.kl`), with the budget of (G2)/(G3) (``docs/derivations/pacbayes_maxinfo.md``) in which
``k`` is Theorem 1's ``C E n zeta^2/sigma^2 ln(E/beta)`` (Lampert & Zakerinia 2026, arXiv 2605.26222, Eq. 1).
A budget without ``KL`` (the prior-free shape) reads it as 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import mpmath
import numpy as np

from dptheory.numerics import kl as K
from dptheory.papers.pacbayes.theorems import KL_INVERSE_REASON

#: why the shapes have hand-written kernels: the risk is pacbayes' kl inverse (one sentence, pacbayes')
REASON = KL_INVERSE_REASON


def _k1(p: Mapping[str, Any], lib: Any) -> Any:
    return p["C"] * p["E"] * p["n"] * p["zeta"] ** 2 / p["sigma"] ** 2 * lib.log(p["E"] / p["beta"])


def _budget(p: Mapping[str, Any], lib: Any, xi: Any) -> Any:
    kl_term = p.get("KL", 0)
    return (kl_term + lib.log(xi(p["n"])) - lib.log(p["delta"] - p["beta"]) + _k1(p, lib)) / p["n"]


def budget_mp(p: Mapping[str, Any]) -> mpmath.mpf:
    """The kl budget (nats) in mpmath, ``xi(n)`` exact (:func:`dptheory.numerics.kl.xi_mp`)."""
    return _budget(p, mpmath, lambda x: K.xi_mp(int(x)))


def budget_np(p: Mapping[str, np.ndarray]) -> np.ndarray:
    """The kl budget (nats) in float64."""
    return _budget(p, np, K.xi_np)


def risk_mp(p: Mapping[str, Any]) -> mpmath.mpf:
    """``kl^-1_+(emp_risk, budget)`` in mpmath."""
    return K.kl_inv_upper_mp(p["emp_risk"], budget_mp(p))


def risk_np(p: Mapping[str, np.ndarray]) -> np.ndarray:
    """``kl^-1_+(emp_risk, budget)`` in float64."""
    return K.kl_inv_upper_np(p["emp_risk"], budget_np(p))


def risk_arb(p: Mapping[str, Any]) -> Any:
    """Certified value on arb balls: the kl budget with xi(n) on balls, then the bisection of
    numerics/kl.py whose bracket ends are certified by ball signs."""
    kl_term = p.get("KL", 0)
    k1 = p["C"] * p["E"] * p["n"] * p["zeta"] ** 2 / p["sigma"] ** 2 * (p["E"] / p["beta"]).log()
    rhs = (kl_term + K.xi_arb(K.exact_int_arb(p["n"], "n")).log() - (p["delta"] - p["beta"]).log() + k1) / p["n"]
    return K.kl_inv_upper_arb(p["emp_risk"], rhs)
