"""The proof of lz26.C3 (the classical Gaussian calibration at every valid point,
docs/derivations/lz26_gaussian_calibration.md): it proves the registered claim; a changed claim or a changed
theorem is not proved by it (each mutation below stops the proof at the step it breaks).

Independent checks: the monotonicity in mu and the worst case at eps = 1 on a grid with the package's mpmath
profile (``gdp_delta_mp``, a different code path from the sympy expression the proof reads); the two arb constants
against mpmath; the calibration does fail beyond eps = 1 far enough out (so "proved" is not vacuous).
"""

from __future__ import annotations

import dataclasses
import itertools

import mpmath
import pytest
import sympy as sp

from dptheory.core.claims import Relation, combine, constant, formula
from dptheory.core.conditions import Condition
from dptheory.core.registry import REGISTRY
from dptheory.core.symbolic import SymbolicVerdict
from dptheory.papers.lz26 import claims as C
from dptheory.papers.lz26 import theorems as L
from dptheory.privacy.gaussian_dp import gdp_delta_expr, gdp_delta_mp

D, s, d = L.Delta, L.sigma, L.delta
CLAIM, THM = REGISTRY.get("lz26.C3"), REGISTRY.get("lz26.gaussian_calibration")


def test_the_claim_is_proved_by_its_steps() -> None:
    steps = C.calibration_steps(CLAIM, THM)
    assert all(st.verdict is SymbolicVerdict.PROVED for st in steps), [st.detail for st in steps]
    assert len(steps) == 20
    res = C._calibration_proof()
    assert res.verdict is SymbolicVerdict.PROVED and ">= 0.2309 (arb)" in res.detail and ">= 0.1505 (arb)" in res.detail
    assert CLAIM.symbolic is C._calibration_proof


def _theorem(**changes: object) -> object:
    return dataclasses.replace(THM, **changes)


CLAIM_MUTATIONS = {
    "relation flipped": dataclasses.replace(CLAIM, relation=Relation.GT),
    "lhs scaled by 1.01": dataclasses.replace(CLAIM, lhs=combine("x 1.01", "*", CLAIM.lhs,
                                                                 constant("101/100", "101/100"))),
    "rhs halved": dataclasses.replace(CLAIM, rhs=formula("delta/2", d / 2)),
}


@pytest.mark.parametrize("name", sorted(CLAIM_MUTATIONS))
def test_a_mutated_claim_is_not_proved(name: str) -> None:
    assert C._calibration_proof(CLAIM_MUTATIONS[name]).verdict is SymbolicVerdict.UNDECIDED


THEOREM_MUTATIONS = {
    # the constant 5/4 -> 1/2: c <= 1, no S_min (and the bound fails near delta = 1)
    "constant 1/2": ("(1)", _theorem(bound=D / s * sp.sqrt(2 * sp.log(sp.Rational(1, 2) / d)))),
    # sqrt(ln(1.25/delta)) without the 2: delta is no longer c e^(-S^2/2)
    "factor 2 dropped": ("(1)", _theorem(bound=D / s * sp.sqrt(sp.log(sp.Rational(5, 4) / d)))),
    # eps < 1 dropped: the region is larger than what the proof covers (the claim fails at large eps)
    "eps < 1 dropped": ("(3)", _theorem(conditions=THM.conditions[:1])),
    # eps < 2 instead of eps < 1
    "eps < 2": ("(3)", _theorem(conditions=(THM.conditions[0], Condition(
        sp.StrictLessThan(2 * D**2 * sp.log(sp.Rational(5, 4) / d), 4 * s**2), "eps < 2")))),
}


@pytest.mark.parametrize("name", sorted(THEOREM_MUTATIONS))
def test_a_mutated_theorem_stops_the_proof_at_its_step(name: str) -> None:
    step, thm = THEOREM_MUTATIONS[name]
    steps = C.calibration_steps(CLAIM, thm)
    assert steps[-1].verdict is not SymbolicVerdict.PROVED and steps[-1].detail.startswith(step), steps[-1].detail


def test_a_constant_beyond_the_crude_bound_of_step_9_is_not_proved() -> None:
    """With c = 21/20 (delta = 1.05 e^(-S^2/2)) steps (1)-(8) still go through but step (9)'s constant fails:
    S_min = sqrt(2 ln 1.05) = 0.31, Phi(1/(2 S_min) - S_min) = 0.92 > 1.05 e^(-0.605) = 0.57."""
    thm = _theorem(bound=D / s * sp.sqrt(2 * sp.log(sp.Rational(21, 20) / d)),
                   conditions=(THM.conditions[0], Condition(
                       sp.StrictLessThan(2 * D**2 * sp.log(sp.Rational(21, 20) / d), s**2), "eps < 1")))
    claim = dataclasses.replace(CLAIM, lhs=formula("profile", gdp_delta_expr(thm.bound, D / s)))
    steps = C.calibration_steps(claim, thm)
    assert steps[-1].verdict is not SymbolicVerdict.PROVED and steps[-1].detail.startswith("(9) c e^"), steps[-1].detail


def _profile_at(mu: mpmath.mpf, delta: mpmath.mpf) -> mpmath.mpf:
    S = mpmath.sqrt(2 * mpmath.log(mpmath.mpf(5) / 4 / delta))
    return gdp_delta_mp(mu * S, mu)


@pytest.mark.parametrize("delta", ["0.999", "0.9", "0.5", "0.1", "1e-3", "1e-10", "1e-40"])
def test_monotone_in_mu_and_below_delta_at_eps_1(delta: str) -> None:
    """Steps 6-9 numerically, with the mpmath kernel (30 digits): the exact delta at the calibrated eps increases
    along mu = t/S (t = eps in (0, 1]) and is below delta at eps = 1, by a relative margin of at least 65% (0.32
    delta at delta = 0.999)."""
    with mpmath.workdps(30):
        dl = mpmath.mpf(delta)
        S = mpmath.sqrt(2 * mpmath.log(mpmath.mpf(5) / 4 / dl))
        vals = [_profile_at(t / S, dl) for t in (mpmath.mpf(k) / 20 for k in range(1, 21))]
        assert all(a < b for a, b in itertools.pairwise(vals))
        assert vals[-1] < 0.35 * dl


def test_the_arb_constants_against_mpmath() -> None:
    with mpmath.workdps(30):
        c, S1 = mpmath.mpf(5) / 4, mpmath.mpf(11) / 10
        Smin = mpmath.sqrt(2 * mpmath.log(c))
        k8 = c - mpmath.e**0.5 / (mpmath.sqrt(2 * mpmath.pi) * (S1 - 1 / (2 * S1)))
        k9 = c * mpmath.exp(-S1**2 / 2) - mpmath.ncdf(1 / (2 * Smin) - Smin)
        assert 0.2309 <= k8 < 0.2310 and 0.1505 <= k9 < 0.1506


@pytest.mark.parametrize(("delta", "holds_at", "fails_at"), [("0.9", "3.7", "3.9"), ("0.5", "4.4", "4.6"),
                                                              ("1e-10", "9.8", "9.9")])
def test_beyond_eps_1_the_calibration_eventually_fails(delta: str, holds_at: str, fails_at: str) -> None:
    """The derivation note's eps*(delta) (3.79 at 0.9, 4.47 at 0.5, 9.85 at 1e-10): the restriction eps < 1 is
    sufficient, not necessary, and the statement is not true for every eps."""
    with mpmath.workdps(30):
        dl = mpmath.mpf(delta)
        S = mpmath.sqrt(2 * mpmath.log(mpmath.mpf(5) / 4 / dl))
        assert _profile_at(mpmath.mpf(holds_at) / S, dl) < dl < _profile_at(mpmath.mpf(fails_at) / S, dl)
