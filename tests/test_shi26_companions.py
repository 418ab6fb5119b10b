"""Where the two Shi et al. findings hold (docs/derivations/shi26_lemma39.md, section 4): the companions
shi26.F_lemma39_sensitivity_holds and shi26.F_thm3_privacy_holds are proved; a widened region, a flipped relation or
a changed theorem is not proved. Independent check: the threshold eta* quoted by shi26.F_thm3_privacy's map, with
Lemma 39 and Theorem 3 written out here in mpmath, and the companion's eta_s below it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import mpmath
import pytest
import sympy as sp

from dptheory.core.claims import Region, Relation
from dptheory.core.conditions import Condition
from dptheory.core.registry import REGISTRY
from dptheory.core.symbolic import SymbolicVerdict
from dptheory.papers.shi26 import claims as C
from dptheory.papers.shi26.theorems import d, eta, mu, sp_


def _with(monkeypatch: pytest.MonkeyPatch, key: str, obj: Any) -> None:
    real = REGISTRY.get
    monkeypatch.setattr(REGISTRY, "get", lambda k: obj if k == key else real(k))


def test_lemma39_companion_is_proved_and_mutations_are_not(monkeypatch: pytest.MonkeyPatch) -> None:
    cl = REGISTRY.get("shi26.F_lemma39_sensitivity_holds")
    assert C._lemma39_holds_symbolic().verdict is SymbolicVerdict.PROVED
    widened = dataclasses.replace(cl, region=Region(constraints=(Condition(sp.LessThan(sp_**2 * d, mu**2), "w"),)))
    flipped = dataclasses.replace(cl, relation=Relation.GT)
    for mut in (widened, flipped):
        assert C._lemma39_holds_symbolic(mut).verdict is SymbolicVerdict.UNDECIDED
    t = REGISTRY.get("shi26.gaussian_rdp_replace")  # 7 sigma_p^2 d instead of 6: the identity no longer holds
    _with(monkeypatch, t.key, dataclasses.replace(t, bound=t.bound.subs(6 * d * sp_**2, 7 * d * sp_**2)))
    assert C._lemma39_holds_symbolic().verdict is SymbolicVerdict.UNDECIDED


def test_thm3_companion_is_proved_and_mutations_are_not() -> None:
    cl = REGISTRY.get("shi26.F_thm3_privacy_holds")
    assert C._thm3_holds_symbolic().verdict is SymbolicVerdict.PROVED
    base = REGISTRY.get("shi26.F_thm3_privacy")
    doubled = dataclasses.replace(cl, region=dataclasses.replace(cl.region, constraints=(
        *base.region.constraints, Condition(sp.LessThan(eta, 2 * C._eta_sufficient()), "eta <= 2 eta_s"))))
    no_cap = dataclasses.replace(cl, region=dataclasses.replace(cl.region, constraints=cl.region.constraints[1:]))
    flipped = dataclasses.replace(cl, relation=Relation.GE)
    for mut in (doubled, no_cap, flipped):
        assert C._thm3_holds_symbolic(mut).verdict is SymbolicVerdict.UNDECIDED


def _sides(m_: int, mu_: str, sp_v: str, d_: int, n_: int, dl: str, eta_: mpmath.mpf) -> tuple[Any, Any]:
    """Lemma 39 (best order, A + 2 sqrt(A L)) at Theorem 3's sigma_b and T2, and Theorem 3 at C4 = 1000."""
    mu_, sp_v, dl = mpmath.mpf(mu_), mpmath.mpf(sp_v), mpmath.mpf(dl)
    M, L = max(mu_**2, sp_v**2 * d_), mpmath.log(2 / dl)
    T = mpmath.ceil(m_ / (eta_ * mu_**2))
    sigma_b = mu_**2 / (eta_ * m_**3 * M)
    A = T * (2 * mu_**2 + 3 * sp_v**2 * d_) / (sigma_b**2 * n_**2 * m_)
    return A + 2 * mpmath.sqrt(A * L), 1000 * m_**3 * M**2 * L / (mu_**4 * n_**2)


@pytest.mark.parametrize(("setting", "eta_star", "eta_s"), [
    ((100, "1", "0.5", 2000, 1000, "1e-5"), "8.1255181e-6", "4.0627592e-6"),
    ((1, "1", "0.01", 2, 100000, "1e-5"), "1.5251945e-4", "7.6265071e-5"),
])
def test_thm3_threshold_against_an_independent_evaluation(setting: tuple[Any, ...], eta_star: str, eta_s: str) -> None:
    with mpmath.workdps(40):
        star = mpmath.mpf(eta_star)
        lo, hi = _sides(*setting, star * (1 - mpmath.mpf("1e-7"))), _sides(*setting, star * (1 + mpmath.mpf("1e-7")))
        assert lo[0] <= lo[1] and hi[0] > hi[1]
        pt = dict(zip(("m", "mu_norm", "sigma_p", "d", "n", "delta"), setting, strict=True))
        subs = {s: sp.Rational(str(pt[s.name])) for s in C._eta_sufficient().free_symbols}
        got = mpmath.mpf(sp.N(C._eta_sufficient().xreplace(subs), 30))
        assert mpmath.nstr(got, 8) == mpmath.nstr(mpmath.mpf(eta_s), 8) and got < star
