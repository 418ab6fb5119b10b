"""The proofs of pacbayes.C2 (the recalled McAllester bound is above Maurer + Pinsker), pacbayes.C3 (xi(n) <= 2
sqrt(n) for every n) and pacbayes.C4 (Pinsker): they prove the registered claims, and a changed claim or a changed
theorem is not proved by them (the proof functions read the registry; here the registry answers with mutated
copies).

Independent checks of the derivation (docs/derivations/pacbayes_c3_c4.md): the analytic bound
xi(n) < 2 + sqrt(pi n/2) against xi(n) computed by the package's float64 Q series (n <= 20000) and by the
defining binomial sum in exact rationals (small n); Pinsker's inequality kl(q||p) >= 2 (p - q)^2 on a grid
with kl written out here.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import sympy as sp

from dptheory.core.claims import Relation
from dptheory.core.registry import REGISTRY
from dptheory.core.symbolic import SymbolicVerdict
from dptheory.numerics import kl as K
from dptheory.papers.pacbayes import claims as C
from dptheory.papers.pacbayes import theorems as P

PROOFS = {"C2": C._mcallester_proof, "C3": C._xi_le_2sqrt_proof, "C4": C._pinsker_proof}


def test_the_claims_are_proved() -> None:
    for which, fn in PROOFS.items():
        res = fn()
        assert res.verdict is SymbolicVerdict.PROVED, res.detail
        assert REGISTRY.get(f"pacbayes.{which}").symbolic is fn


def _with(monkeypatch: pytest.MonkeyPatch, key: str, obj: Any) -> None:
    """Make REGISTRY.get(key) return ``obj`` (a mutated copy) for the proof functions."""
    real = REGISTRY.get

    def fake(k: str) -> Any:
        return obj if k == key else real(k)

    monkeypatch.setattr(REGISTRY, "get", fake)


def _term(t: Any, expr: sp.Expr) -> Any:
    return dataclasses.replace(t, terms={"rhs": dataclasses.replace(t.terms["rhs"], expr=expr)})


n, KLs, delta, emp = P.n, P.KLs, P.delta, P.emp
MUTATIONS: list[tuple[str, Callable[[], Any], Callable[[], Any]]] = [
    # (claim proof, key, mutated object)
    ("C2", lambda: "pacbayes.C2",
     lambda: dataclasses.replace(REGISTRY.get("pacbayes.C2"), relation=Relation.LE)),
    ("C2", lambda: "mcallester99",  # ln n + 0 instead of ln n + 2: false at n = 1, KL + ln(1/delta) < ln 2
     lambda: dataclasses.replace(REGISTRY.get("mcallester99"),
                                 bound=emp + sp.sqrt((KLs + sp.log(1 / delta) + sp.log(n)) / (2 * n - 1)))),
    ("C2", lambda: "mcallester99",  # 2n + 1 instead of 2n - 1: false for large KL
     lambda: dataclasses.replace(REGISTRY.get("mcallester99"),
                                 bound=emp + sp.sqrt((KLs + sp.log(1 / delta) + sp.log(n) + 2) / (2 * n + 1)))),
    ("C2", lambda: "pacbayes.pinsker_derived",  # sqrt(B/1.9): no longer Maurer + Pinsker
     lambda: dataclasses.replace(REGISTRY.get("pacbayes.pinsker_derived"),
                                 bound=emp + sp.sqrt((KLs + sp.log(2 * sp.sqrt(n) / delta))
                                                     / (sp.Rational(19, 10) * n)))),
    ("C3", lambda: "pacbayes.C3",
     lambda: dataclasses.replace(REGISTRY.get("pacbayes.C3"), relation=Relation.GT)),
    ("C3", lambda: "maurer04.kl_2sqrtn",  # 1.9 sqrt(n): fails at n = 1 (xi(1) = 2)
     lambda: _term(REGISTRY.get("maurer04.kl_2sqrtn"), (KLs + sp.log(sp.Rational(19, 10) * sp.sqrt(n) / delta)) / n)),
    ("C3", lambda: "maurer04.kl",  # a different sum in place of xi(n)
     lambda: _term(REGISTRY.get("maurer04.kl"), (KLs + sp.log(P.XI_SYM.replace(
         lambda e: isinstance(e, sp.Pow) and e.exp == P._j, lambda e: e.base ** (e.exp + 1)) / delta)) / n)),
    ("C4", lambda: "pacbayes.C4",
     lambda: dataclasses.replace(REGISTRY.get("pacbayes.C4"), relation=Relation.GE)),
    ("C4", lambda: "pacbayes.pinsker_derived",  # sqrt(B/2.1) instead of sqrt(B/2)
     lambda: dataclasses.replace(REGISTRY.get("pacbayes.pinsker_derived"),
                                 bound=emp + sp.sqrt((KLs + sp.log(2 * sp.sqrt(n) / delta))
                                                     / (sp.Rational(21, 10) * n)))),
    ("C4", lambda: "maurer04.kl_2sqrtn",  # the statement's budget no longer the term's
     lambda: dataclasses.replace(REGISTRY.get("maurer04.kl_2sqrtn"), statement=(
         sp.LessThan(P.kl(emp, P.R_SYM), (KLs + sp.log(3 * sp.sqrt(n) / delta)) / n),))),
]


@pytest.mark.parametrize(("which", "key", "mutated"), MUTATIONS, ids=[f"{m[0]}-{i}" for i, m in enumerate(MUTATIONS)])
def test_a_mutated_claim_or_theorem_is_not_proved(monkeypatch: pytest.MonkeyPatch, which: str,
                                                  key: Callable[[], str], mutated: Callable[[], Any]) -> None:
    obj = mutated()
    _with(monkeypatch, key(), obj)
    res = PROOFS[which]()
    assert res.verdict is SymbolicVerdict.UNDECIDED, res.detail


def test_xi_below_the_analytic_bound_and_2_sqrt_n() -> None:
    """xi(n) < 2 + sqrt(pi n/2) for 2 <= n <= 20000 (the bound of step 3, with a float64 margin far above the
    1e-13 relative error of xi), and <= 2 sqrt(n) there; exact rationals for n <= 40."""
    ns = np.arange(2, 20001)
    xs = K.xi_np(ns)
    bound = 2 + np.sqrt(np.pi * ns / 2)
    assert np.all(xs < bound - 0.5)  # the slack is about 4/3
    assert np.all(xs <= 2 * np.sqrt(ns))
    for m in range(1, 41):
        exact = sum(sp.binomial(m, j) * sp.Rational(j, m) ** j * sp.Rational(m - j, m) ** (m - j) for j in range(m + 1))
        assert exact**2 <= 4 * m and (m == 1) == (exact**2 == 4 * m)
        if m >= 2:
            assert float(exact) < 2 + math.sqrt(math.pi * m / 2)


def test_pinsker_inequality_on_a_grid() -> None:
    """kl(q||p) >= 2 (p - q)^2, kl written out here, on a 200 x 200 grid of (q, p) in (0, 1)^2."""
    g = np.linspace(0.0025, 0.9975, 200)
    q, p = np.meshgrid(g, g)
    kl = q * np.log(q / p) + (1 - q) * np.log((1 - q) / (1 - p))
    assert np.all(kl - 2 * (p - q) ** 2 >= -1e-15)


@pytest.mark.parametrize(("key", "fn"), [(f"pacbayes.{k}", fn) for k, fn in PROOFS.items()])
def test_a_proof_given_a_mutated_copy_does_not_prove_it(key: str, fn: Callable[..., Any]) -> None:
    """The copies the mutation contract builds (relation flipped, a side scaled by 1.01) are not proved when the
    proof is handed the copy."""
    from dptheory.core.claims import combine, constant

    cl = REGISTRY.get(key)
    assert fn(cl).verdict is SymbolicVerdict.PROVED
    flipped = dataclasses.replace(cl, relation=Relation.LE if cl.relation is Relation.GT else Relation.GT)
    scaled = dataclasses.replace(cl, lhs=combine("x 1.01", "*", cl.lhs, constant("101/100", "101/100")))
    for mut in (flipped, scaled):
        assert fn(mut).verdict is SymbolicVerdict.UNDECIDED


# ----------------------------------------------------------------------------- where pacbayes.C1 holds
@pytest.mark.parametrize("where", ["below", "above"])
def test_the_companions_of_c1_are_proved_and_a_widened_region_is_not(where: str) -> None:
    """pacbayes.C1_holds_below/above are proved; their region widened into the band (where C1 fails), their
    relation flipped, or DR18's budget changed (2 max -> max) is not proved."""
    from dptheory.core.claims import Region
    from dptheory.core.conditions import Condition

    cl = REGISTRY.get(f"pacbayes.C1_holds_{where}")
    fn = C._c1_below if where == "below" else C._c1_above
    assert fn().verdict is SymbolicVerdict.PROVED and cl.companion_of == "pacbayes.C1"
    m, eps, dl = C.mD, C.epsD, C.deltaD
    wide = {"below": sp.LessThan(m * eps**2, sp.log(1 / dl)), "above": sp.GreaterThan(m * eps**2, sp.log(3 / dl))}
    widened = dataclasses.replace(cl, region=Region(constraints=(Condition(wide[where], "wider"),)))
    flipped = dataclasses.replace(cl, relation=Relation.GE)
    for mut in (widened, flipped):
        assert fn(mut).verdict is SymbolicVerdict.UNDECIDED


def test_a_changed_dr18_budget_stops_the_companions(monkeypatch: pytest.MonkeyPatch) -> None:
    t = REGISTRY.get("dr18.dp_prior")
    m, eps, dl = C.mD, C.epsD, C.deltaD
    half = (C.KLD + sp.log(2 * sp.sqrt(m)) + sp.Max(sp.log(3 / dl), m * eps**2)) / m
    _with(monkeypatch, "dr18.dp_prior", dataclasses.replace(t, terms={"rhs": dataclasses.replace(t.terms["rhs"],
                                                                                                  expr=half)}))
    assert C._c1_below().verdict is SymbolicVerdict.UNDECIDED and C._c1_above().verdict is SymbolicVerdict.UNDECIDED


def test_c1_band_against_an_independent_evaluation() -> None:
    """The band's ends quoted by pacbayes.C1's map (m = 100, delta = 1e-9: eps from 0.41810573 to 0.50107787),
    with both budgets written out here (xi(100) as a rational sum) and the companions' bounds on either side."""
    import mpmath

    with mpmath.workdps(40):
        m, dl = 100, mpmath.mpf("1e-9")
        xi = mpmath.fsum(mpmath.binomial(m, j) * (mpmath.mpf(j) / m) ** j * (1 - mpmath.mpf(j) / m) ** (m - j)
                         for j in range(m + 1))

        def gap(e: mpmath.mpf) -> mpmath.mpf:  # DR18 - variant (KL = 0)
            dr18 = (mpmath.log(2 * mpmath.sqrt(m)) + 2 * max(mpmath.log(3 / dl), m * e**2)) / m
            var = mpmath.log(2 * xi / dl) / m + e**2 / 2 + e * mpmath.sqrt(mpmath.log(4 / dl) / (2 * m))
            return dr18 - var

        lo = mpmath.findroot(gap, (mpmath.mpf("0.40"), mpmath.mpf("0.43")), solver="bisect")
        hi = mpmath.findroot(gap, (mpmath.mpf("0.48"), mpmath.mpf("0.52")), solver="bisect")
        assert mpmath.nstr(lo, 8) == "0.41810573" and mpmath.nstr(hi, 8) == "0.50107787"
        below, above = mpmath.sqrt(0.75 * mpmath.log(1 / dl) / m), mpmath.sqrt(1.25 * mpmath.log(3 / dl) / m)
        assert below < lo < hi < above and gap(below) > 0 and gap(above) > 0
