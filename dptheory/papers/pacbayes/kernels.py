"""The hand-written kernels of the PAC-Bayes theorems (``paper.toml`` names them; declared overrides).

Every risk bound of a PAC-Bayes-kl statement ``kl(emp || R) <= budget`` is ``kl^-1_+(emp_risk, budget)``, an inverse
of the binary kl with no closed form (:mod:`dptheory.numerics.kl`: bisection/Newton in mpmath and float64, bisection
with certified bracket ends on arb balls); the kernels of the budget (the named term ``rhs``, nats) are the ones the
risk inverts. ``xi(n)`` (Maurer 2004, arXiv cs/0411099) is exact in mpmath (:func:`dptheory.numerics.kl.xi_mp`) and
on balls by its Q series with a rigorous tail (:func:`dptheory.numerics.kl.xi_arb`). A max-information budget
without ``KL`` (G3, a single model: no prior) reads it as 0. Budgets and their derivations:
``docs/derivations/pacbayes_maxinfo.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import mpmath
import numpy as np

from dptheory.numerics import kl as K

_Budget = Callable[[Mapping[str, Any]], Any]


def _n_arb(p: Mapping[str, Any], name: str = "n") -> int:
    return K.exact_int_arb(p[name], name)


# ----------------------------------------------------------------------------- kl inversion (q, c) -> p
def kl_inv_upper_mp(p: Mapping[str, Any]) -> mpmath.mpf:
    """``kl^-1_+(q, c)`` in mpmath: bisection at the working precision."""
    return K.kl_inv_upper_mp(p["q"], p["c"])


def kl_inv_upper_np(p: Mapping[str, np.ndarray]) -> np.ndarray:
    """``kl^-1_+(q, c)`` in float64: monotone safeguarded Newton, certified."""
    return K.kl_inv_upper_np(p["q"], p["c"])


def kl_inv_upper_arb(p: Mapping[str, Any]) -> Any:
    """``kl^-1_+(q, c)`` on arb balls: bisection with certified bracket ends."""
    return K.kl_inv_upper_arb(p["q"], p["c"])


def kl_inv_lower_mp(p: Mapping[str, Any]) -> mpmath.mpf:
    """``kl^-1_-(q, c)`` in mpmath."""
    return K.kl_inv_lower_mp(p["q"], p["c"])


def kl_inv_lower_np(p: Mapping[str, np.ndarray]) -> np.ndarray:
    """``kl^-1_-(q, c)`` in float64."""
    return K.kl_inv_lower_np(p["q"], p["c"])


def kl_inv_lower_arb(p: Mapping[str, Any]) -> Any:
    """``kl^-1_-(q, c)`` on arb balls."""
    return K.kl_inv_lower_arb(p["q"], p["c"])


# ----------------------------------------------------------------------------- the risk of a kl budget
def _risk_mp(budget: _Budget, p: Mapping[str, Any]) -> mpmath.mpf:
    return K.kl_inv_upper_mp(p["emp_risk"], budget(p))


def _risk_np(budget: _Budget, p: Mapping[str, np.ndarray]) -> np.ndarray:
    return K.kl_inv_upper_np(p["emp_risk"], budget(p))


def _risk_arb(budget: _Budget, p: Mapping[str, Any]) -> Any:
    """The certified risk bound: kl^-1_+(emp_risk, budget) on arb balls (numerics/kl.py, bisection with
    certified bracket ends)."""
    return K.kl_inv_upper_arb(p["emp_risk"], budget(p))


# ----------------------------------------------------------------------------- Maurer 2004
def maurer_budget_mp(p: Mapping[str, Any]) -> mpmath.mpf:
    """Maurer's kl budget ``(KL + ln(xi(n)/delta))/n`` in mpmath, ``xi(n)`` exact."""
    return (p["KL"] + mpmath.log(K.xi_mp(int(p["n"])) / p["delta"])) / p["n"]


def maurer_budget_np(p: Mapping[str, np.ndarray]) -> np.ndarray:
    """Maurer's kl budget in float64."""
    return (p["KL"] + np.log(K.xi_np(p["n"]) / p["delta"])) / p["n"]


def maurer_budget_arb(p: Mapping[str, Any]) -> Any:
    """Maurer's kl budget on arb balls."""
    return (p["KL"] + (K.xi_arb(_n_arb(p)) / p["delta"]).log()) / p["n"]


def maurer_risk_mp(p: Mapping[str, Any]) -> mpmath.mpf:
    """``kl^-1_+(emp_risk, Maurer's budget)`` in mpmath."""
    return _risk_mp(maurer_budget_mp, p)


def maurer_risk_np(p: Mapping[str, np.ndarray]) -> np.ndarray:
    """``kl^-1_+(emp_risk, Maurer's budget)`` in float64."""
    return _risk_np(maurer_budget_np, p)


def maurer_risk_arb(p: Mapping[str, Any]) -> Any:
    """``kl^-1_+(emp_risk, Maurer's budget)`` on arb balls."""
    return _risk_arb(maurer_budget_arb, p)


# ----------------------------------------------------------------------------- xi(n) <= 2 sqrt(n)
def sqrt_budget_mp(p: Mapping[str, Any]) -> mpmath.mpf:
    """The kl budget ``(KL + ln(2 sqrt(n)/delta))/n`` in mpmath."""
    return (p["KL"] + mpmath.log(2 * mpmath.sqrt(p["n"]) / p["delta"])) / p["n"]


def sqrt_budget_np(p: Mapping[str, np.ndarray]) -> np.ndarray:
    """The ``2 sqrt(n)`` kl budget in float64."""
    return (p["KL"] + np.log(2 * np.sqrt(p["n"]) / p["delta"])) / p["n"]


def sqrt_budget_arb(p: Mapping[str, Any]) -> Any:
    """The ``2 sqrt(n)`` kl budget on arb balls."""
    import flint

    return (p["KL"] + (2 * flint.arb(p["n"]).sqrt() / p["delta"]).log()) / p["n"]


def sqrt_risk_mp(p: Mapping[str, Any]) -> mpmath.mpf:
    """``kl^-1_+(emp_risk, the 2 sqrt(n) budget)`` in mpmath."""
    return _risk_mp(sqrt_budget_mp, p)


def sqrt_risk_np(p: Mapping[str, np.ndarray]) -> np.ndarray:
    """``kl^-1_+(emp_risk, the 2 sqrt(n) budget)`` in float64."""
    return _risk_np(sqrt_budget_np, p)


def sqrt_risk_arb(p: Mapping[str, Any]) -> Any:
    """``kl^-1_+(emp_risk, the 2 sqrt(n) budget)`` on arb balls."""
    return _risk_arb(sqrt_budget_arb, p)


# ----------------------------------------------------------------------------- (G2), (G3)
def maxinfo_budget_mp(p: Mapping[str, Any]) -> mpmath.mpf:
    """The kl budget of (G2) ``(KL + ln xi(n) + ln(1/(delta - beta)) + k)/n`` in mpmath (of (G3) without ``KL``)."""
    kl_term = p.get("KL", 0)
    return (kl_term + mpmath.log(K.xi_mp(int(p["n"]))) - mpmath.log(p["delta"] - p["beta"]) + p["k"]) / p["n"]


def maxinfo_budget_np(p: Mapping[str, np.ndarray]) -> np.ndarray:
    """The kl budget of (G2)/(G3) in float64."""
    kl_term = p.get("KL", 0.0)
    return (kl_term + np.log(K.xi_np(p["n"])) - np.log(p["delta"] - p["beta"]) + p["k"]) / p["n"]


def maxinfo_budget_arb(p: Mapping[str, Any]) -> Any:
    """The kl budget of (G2)/(G3) on arb balls."""
    kl_term = p.get("KL", 0)
    return (kl_term + K.xi_arb(_n_arb(p)).log() - (p["delta"] - p["beta"]).log() + p["k"]) / p["n"]


def maxinfo_risk_mp(p: Mapping[str, Any]) -> mpmath.mpf:
    """``kl^-1_+(emp_risk, the (G2)/(G3) budget)`` in mpmath."""
    return _risk_mp(maxinfo_budget_mp, p)


def maxinfo_risk_np(p: Mapping[str, np.ndarray]) -> np.ndarray:
    """``kl^-1_+(emp_risk, the (G2)/(G3) budget)`` in float64."""
    return _risk_np(maxinfo_budget_np, p)


def maxinfo_risk_arb(p: Mapping[str, Any]) -> Any:
    """``kl^-1_+(emp_risk, the (G2)/(G3) budget)`` on arb balls."""
    return _risk_arb(maxinfo_budget_arb, p)


# ----------------------------------------------------------------------------- Dziugaite & Roy 2018
def dr18_budget_mp(p: Mapping[str, Any]) -> mpmath.mpf:
    """Dziugaite & Roy's kl budget ``(KL + ln 2 sqrt(m) + 2 max{ln(3/delta), m eps^2})/m`` in mpmath."""
    mm = mpmath.mpf(p["m"])
    return (p["KL"] + mpmath.log(2 * mpmath.sqrt(mm)) + 2 * max(mpmath.log(3 / p["delta"]), mm * p["eps"] ** 2)) / mm


def dr18_budget_np(p: Mapping[str, np.ndarray]) -> np.ndarray:
    """Dziugaite & Roy's kl budget in float64."""
    mm = p["m"]
    return (p["KL"] + np.log(2 * np.sqrt(mm)) + 2 * np.maximum(np.log(3 / p["delta"]), mm * p["eps"] ** 2)) / mm


def dr18_budget_arb(p: Mapping[str, Any]) -> Any:
    """Dziugaite & Roy's kl budget on arb balls."""
    import flint

    mm = flint.arb(p["m"])
    return (p["KL"] + (2 * mm.sqrt()).log() + 2 * (3 / p["delta"]).log().max(mm * p["eps"] ** 2)) / mm


def dr18_risk_mp(p: Mapping[str, Any]) -> mpmath.mpf:
    """``kl^-1_+(emp_risk, Dziugaite & Roy's budget)`` in mpmath."""
    return _risk_mp(dr18_budget_mp, p)


def dr18_risk_np(p: Mapping[str, np.ndarray]) -> np.ndarray:
    """``kl^-1_+(emp_risk, Dziugaite & Roy's budget)`` in float64."""
    return _risk_np(dr18_budget_np, p)


def dr18_risk_arb(p: Mapping[str, Any]) -> Any:
    """``kl^-1_+(emp_risk, Dziugaite & Roy's budget)`` on arb balls."""
    return _risk_arb(dr18_budget_arb, p)


# ----------------------------------------------------------------------------- DR18 max-information variant
def dr18_maxinfo_budget_mp(p: Mapping[str, Any]) -> mpmath.mpf:
    """The kl budget of the max-information variant ``(KL + ln(2 xi(m)/delta))/m + eps^2/2 + eps
    sqrt(ln(4/delta)/(2m))`` in mpmath, ``xi(m)`` exact."""
    mm = mpmath.mpf(p["m"])
    return ((p["KL"] + mpmath.log(2 * K.xi_mp(int(p["m"])) / p["delta"])) / mm + p["eps"] ** 2 / 2
            + p["eps"] * mpmath.sqrt(mpmath.log(4 / p["delta"]) / (2 * mm)))


def dr18_maxinfo_budget_np(p: Mapping[str, np.ndarray]) -> np.ndarray:
    """The kl budget of the max-information variant in float64."""
    mm = p["m"]
    return ((p["KL"] + np.log(2 * K.xi_np(mm) / p["delta"])) / mm + p["eps"] ** 2 / 2
            + p["eps"] * np.sqrt(np.log(4 / p["delta"]) / (2 * mm)))


def dr18_maxinfo_budget_arb(p: Mapping[str, Any]) -> Any:
    """The kl budget of the max-information variant on arb balls."""
    import flint

    mm = flint.arb(p["m"])
    return ((p["KL"] + (2 * K.xi_arb(_n_arb(p, "m")) / p["delta"]).log()) / mm + p["eps"] ** 2 / 2
            + p["eps"] * ((4 / p["delta"]).log() / (2 * mm)).sqrt())


def dr18_maxinfo_risk_mp(p: Mapping[str, Any]) -> mpmath.mpf:
    """``kl^-1_+(emp_risk, the max-information variant's budget)`` in mpmath."""
    return _risk_mp(dr18_maxinfo_budget_mp, p)


def dr18_maxinfo_risk_np(p: Mapping[str, np.ndarray]) -> np.ndarray:
    """``kl^-1_+(emp_risk, the max-information variant's budget)`` in float64."""
    return _risk_np(dr18_maxinfo_budget_np, p)


def dr18_maxinfo_risk_arb(p: Mapping[str, Any]) -> Any:
    """``kl^-1_+(emp_risk, the max-information variant's budget)`` on arb balls."""
    return _risk_arb(dr18_maxinfo_budget_arb, p)
