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
def _risks(family: str, label: str, budgets: tuple[_Budget, _Budget, _Budget]) -> tuple[_Budget, _Budget, _Budget]:
    """The risk kernels ``kl^-1_+(emp_risk, budget)`` of one family, from its budget kernels ``(mp, np, arb)``: in
    mpmath, in float64, and on arb balls (numerics/kl.py, bisection with certified bracket ends). Each is named
    ``<family>_risk_<backend>`` (the name ``paper.toml`` gives it)."""
    mp_budget, np_budget, arb_budget = budgets

    def risk_mp(p: Mapping[str, Any]) -> mpmath.mpf:
        return K.kl_inv_upper_mp(p["emp_risk"], mp_budget(p))

    def risk_np(p: Mapping[str, np.ndarray]) -> np.ndarray:
        return K.kl_inv_upper_np(p["emp_risk"], np_budget(p))

    def risk_arb(p: Mapping[str, Any]) -> Any:
        return K.kl_inv_upper_arb(p["emp_risk"], arb_budget(p))

    for fn, backend, where in ((risk_mp, "mp", "in mpmath"), (risk_np, "np", "in float64"),
                               (risk_arb, "arb", "on arb balls")):
        fn.__name__ = fn.__qualname__ = f"{family}_risk_{backend}"
        fn.__doc__ = f"``kl^-1_+(emp_risk, {label})`` {where}."
    return risk_mp, risk_np, risk_arb


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


maurer_risk_mp, maurer_risk_np, maurer_risk_arb = _risks(
    "maurer", "Maurer's budget", (maurer_budget_mp, maurer_budget_np, maurer_budget_arb))


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


sqrt_risk_mp, sqrt_risk_np, sqrt_risk_arb = _risks(
    "sqrt", "the 2 sqrt(n) budget", (sqrt_budget_mp, sqrt_budget_np, sqrt_budget_arb))


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


maxinfo_risk_mp, maxinfo_risk_np, maxinfo_risk_arb = _risks(
    "maxinfo", "the (G2)/(G3) budget", (maxinfo_budget_mp, maxinfo_budget_np, maxinfo_budget_arb))


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


dr18_risk_mp, dr18_risk_np, dr18_risk_arb = _risks(
    "dr18", "Dziugaite & Roy's budget", (dr18_budget_mp, dr18_budget_np, dr18_budget_arb))


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


dr18_maxinfo_risk_mp, dr18_maxinfo_risk_np, dr18_maxinfo_risk_arb = _risks(
    "dr18_maxinfo", "the max-information variant's budget",
    (dr18_maxinfo_budget_mp, dr18_maxinfo_budget_np, dr18_maxinfo_budget_arb))
