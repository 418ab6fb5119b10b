"""The proofs of Ye & Shokri 2022's C1a, C4, C8, C9d on the paper's general region (arXiv 2203.05363).

docs/derivations/yeshokri22_general_regions.md: every sympy step is proved; a changed statement (a side, the relation,
the region, a condition) is not proved; a changed lemma or step is noticed; and the conclusions are checked
numerically by routes that do not use the steps: the registered theorems evaluated at 40 digits at points across the
region (including its corners), eps0 from its defining sum, the termwise comparison of Thm D.6 and D.7 summed
directly.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any

import mpmath
import numpy as np
import pytest
import sympy as sp

from dptheory.core.claims import Claim, Quantity, Region, Relation, Verdict, formula
from dptheory.core.conditions import Condition
from dptheory.core.registry import REGISTRY
from dptheory.core.symbolic import SymbolicVerdict
from dptheory.papers.yeshokri22 import claims_general as CG
from dptheory.papers.yeshokri22 import theorems as TH
from dptheory.verify.checking import check_claim

KEYS = ("C1a", "C4", "C8", "C9d")
SYMBOLIC = {"C1a": CG.c1a_symbolic, "C4": CG.c4_symbolic, "C8": CG.c8_symbolic, "C9d": CG.c9d_symbolic}


def _claim(name: str) -> Claim:
    return REGISTRY.get(f"yeshokri22.{name}")


def _not_proved(steps: list) -> list[str]:
    """The labels ("(9)", ...; the claim-shape preconditions by their first word) of the steps not proved."""
    return [st.detail.split(" ", 1)[0] for st in steps if st.verdict is not SymbolicVerdict.PROVED]


# ----------------------------------------------------------------------------- the sympy steps
@pytest.mark.parametrize("name", KEYS)
def test_every_step_is_proved(name: str) -> None:
    steps = CG._registered_steps(name)
    assert len(steps) >= 9
    for st in steps:
        assert st.verdict is SymbolicVerdict.PROVED, st.detail


def _note_steps(name: str) -> set[str]:
    """The step numbers the derivation note gives the claim: its section's numbered items and the common step 1."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / CG.NOTE).read_text()
    section = text.split(f"\n## {name}:", 1)[1].split("\n## ", 1)[0]
    return {"1"} | set(re.findall(r"^(\d+)\. ", section, flags=re.M))


@pytest.mark.parametrize("name", KEYS)
def test_the_code_checks_every_step_of_the_note(name: str) -> None:
    """Each numbered step of the derivation note is checked by the code (and the code checks no unnumbered one):
    a step dropped from the proof, or a note that no longer matches it, is noticed."""
    labels = {st.detail[1:].split(")", 1)[0] for st in CG._registered_steps(name) if st.detail.startswith("(")}
    assert labels == _note_steps(name)


@pytest.mark.parametrize("name", KEYS)
def test_claims_are_proved_on_the_papers_region(name: str) -> None:
    claim = _claim(name)
    assert claim.verdict is Verdict.PROVED and claim.symbolic is SYMBOLIC[name]
    assert not claim.region.fixed and not claim.region.choices and claim.region.certify is None
    res = check_claim(claim)
    assert res.verdict is Verdict.PROVED, res
    assert CG.NOTE in res.proof
    assert res.region.startswith("every valid point") and "every real alpha > 1" in res.region


# ----------------------------------------------------------------------------- changed statements are not proved
def _thm(key: str, **sets: Any) -> Quantity:
    return Quantity(label=key, theorem=f"yeshokri22.{key}", set={k: sp.sympify(v) for k, v in sets.items()})


def _scaled(key: str, by: sp.Expr) -> Quantity:
    return formula(f"{key} x {by}", REGISTRY.get(f"yeshokri22.{key}").bound * by, parts=(_thm(key),))


K, N = TH.K, TH.N_sym
SLOW = pytest.mark.slow  # a few seconds each: the failing identities are large expressions sympy cannot zero
MUTATIONS = [
    # each mutated statement is false somewhere on the region (see the comments); the proof must not pass
    pytest.param("C1a", lambda c: dataclasses.replace(c, relation=Relation.GT), ["yeshokri22.C1a"], id="C1a: >"),
    # Thm 2.1 at K - 1 is 0 at K = 1, below Thm 3.3
    pytest.param("C1a", lambda c: dataclasses.replace(c, rhs=_thm("thm2_1", K=K - 1)), ["(9)", "(10)", "(12)"],
                 id="C1a: Thm 2.1 one epoch earlier", marks=SLOW),
    # half of Thm 2.1 at K = 1 is 2 (1 - e^(-x/2)) G -> 0.79 G < G = Thm 3.3 (j0 = N - 1) as x -> 1
    pytest.param("C1a", lambda c: dataclasses.replace(c, rhs=_scaled("thm2_1", sp.Rational(1, 2))),
                 ["(9)", "(10)", "(12)"], id="C1a: half of Thm 2.1", marks=SLOW),
    # Thm 3.3 at K + 1 = 2 is e(h) + e(N - j0) = 2 G > c G at x -> 1
    pytest.param("C1a", lambda c: dataclasses.replace(c, lhs=_thm("thm3_3", K=K + 1)), ["(9)", "(10)", "(11)", "(12)"],
                 id="C1a: Thm 3.3 one epoch later", marks=SLOW),
    # j0 = 0: Thm 3.3's second term eps0^N is below the log-mean-exp of Thm 4.2
    pytest.param("C4", lambda c: dataclasses.replace(c, rhs=_thm("thm3_3", j0=0)), ["(2)"], id="C4: first batch"),
    pytest.param("C4", lambda c: dataclasses.replace(c, lhs=_thm("thm4_2", K=K + 1)), ["(2)"],
                 id="C4: Thm 4.2 one epoch later", marks=SLOW),
    pytest.param("C8", lambda c: dataclasses.replace(c, relation=Relation.EQ), ["yeshokri22.C8"], id="C8: =="),
    # D.6 and D.7 agree to first order in u: half of D.7 is below D.6 for small eta lambda
    pytest.param("C8", lambda c: dataclasses.replace(c, rhs=_scaled("thmD_7", sp.Rational(1, 2))), ["(4)"],
                 id="C8: half of Thm D.7"),
    pytest.param("C8", lambda c: dataclasses.replace(c, lhs=_thm("thmD_6", K=K + 1)), ["(3)"],
                 id="C8: Thm D.6 one step later"),
    # without b | n the inequality is C9c, falsified
    pytest.param("C9d", lambda c: dataclasses.replace(c, region=Region(description="all valid points")),
                 ["yeshokri22.C9d's"], id="C9d: b need not divide n"),
    # eps0^(N-1) ~ G/(N-1) > G/N for small eta lambda
    pytest.param("C9d", lambda c: dataclasses.replace(c, lhs=formula("eps0^(N-1)", TH.eps0(N - 1), parts=c.lhs.parts)),
                 ["(2)"], id="C9d: eps0^(N-1)", marks=SLOW),
]


@pytest.mark.parametrize(("name", "mutate", "failing"), MUTATIONS)
def test_a_changed_statement_is_not_proved(name: str, mutate: Callable[[Claim], Claim], failing: list[str]) -> None:
    mutated = mutate(_claim(name))
    steps = CG._STEPS[name](mutated)
    assert _not_proved(steps) == failing, [st.detail[:160] for st in steps if st.verdict is not SymbolicVerdict.PROVED]
    assert SYMBOLIC[name](mutated).verdict is SymbolicVerdict.UNDECIDED


def test_a_changed_step_size_condition_is_noticed() -> None:
    """eta < 4/(lambda + beta) does not give eta lambda < 1: step 1 is not proved (nor is a condition of another
    form); the theorems' own conditions are."""
    weak = Condition(TH.eta < 4 / (TH.lam + TH.beta), "a weaker step size")
    assert _not_proved(CG._x_in_unit_interval(weak, TH.C_LAM_BETA)) == ["1"]
    assert _not_proved(CG._x_in_unit_interval(TH.C_ETA, Condition(TH.lam <= 2 * TH.beta, "lambda <= 2 beta"))) == ["1"]
    assert not _not_proved(CG._x_in_unit_interval(TH.C_ETA_GD, TH.C_LAM_BETA))


def test_the_proofs_use_only_conditions_the_theorems_carry() -> None:
    """The hypotheses a proof reads (step size, lambda <= beta, n/b >= 2, j0 <= N - 1) must be conditions of the
    theorems it compares: Thm 2.1 has no n/b >= 2, the (b/n) G K approximation no step-size condition."""
    c1a = _claim("C1a")
    assert CG._assumes(c1a.lhs, TH.C_ETA, TH.C_LAM_BETA, TH.C_N2, TH.C_J0).verdict is SymbolicVerdict.PROVED
    assert CG._assumes(c1a.rhs, TH.C_N2).verdict is SymbolicVerdict.UNDECIDED
    assert CG._assumes(_thm("composition_approx"), TH.C_ETA).verdict is SymbolicVerdict.UNDECIDED
    assert CG._assumes(_claim("C8"), TH.C_ETA).verdict is SymbolicVerdict.UNDECIDED  # D.6, D.7: eta < 1/beta


def test_a_changed_lemma_is_noticed() -> None:
    z = sp.Symbol("z", positive=True)
    # 1 - e^(-z) - z + z^2/3 is negative near 0 (its z^2 coefficient is 1/3 - 1/2): the chain breaks at its first
    # derivative
    bad = [(1 - sp.exp(-z) - z + z**2 / 3, sp.Integer(1)), (sp.exp(-z) - 1 + z, sp.Integer(1)),
           (1 - sp.exp(-z), sp.Integer(1)), (sp.exp(-z), None)]
    assert _not_proved(CG.from_zero("E3'", z, bad)) == ["E3'"]
    # a chain ending in a function that is not positive
    assert _not_proved(CG.from_zero("E0", z, [(sp.exp(-z) - 1, -sp.Integer(1)), (sp.exp(-z), None)])) == ["E0"]
    good = CG.exp_lemmas()["E3"][1]
    assert not _not_proved(list(good))


def test_the_helpers_do_not_guess() -> None:
    x = sp.Symbol("x", real=True)
    z = sp.Symbol("z", positive=True)
    assert CG.decide(x, "positive", "x").verdict is SymbolicVerdict.UNDECIDED
    assert CG.decide(sp.exp(z) - 1, "positive", "e^z - 1").verdict is SymbolicVerdict.UNDECIDED  # a lemma's job
    assert CG.identity(sp.exp(z) - 1 - z, "not an identity").verdict is not SymbolicVerdict.PROVED
    assert CG.identity(sp.log(2 * z) - sp.log(z) - sp.log(2), "log split").verdict is SymbolicVerdict.PROVED


def test_one_unproved_step_leaves_the_claim_undecided() -> None:
    steps = list(CG._registered_steps("C8"))
    steps[5] = CG.decide(sp.Symbol("x", real=True), "positive", "(2) a step that cannot be decided")
    res = CG.all_proved(steps, "test", CG.NOTE)
    assert res.verdict is SymbolicVerdict.UNDECIDED and "(2) a step" in res.detail


# ----------------------------------------------------------------------------- the conclusions, numerically
def _value(key: str, p: dict[str, Any]) -> mpmath.mpf:
    thm = REGISTRY.get(f"yeshokri22.{key}")
    return thm.evaluate({k: v for k, v in p.items() if k in thm.params}, dps=40).value


def _random_points(seed: int, count: int) -> list[dict[str, Any]]:
    """Valid points of Thm 2.1, 3.3, 4.2 across the region: eta lambda from 1e-4 to just below 1, N from 2 to 400
    (b dividing n or not), K up to 10^4, fractional orders."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        lam = sp.Rational(int(rng.integers(1, 1000)), 100)
        beta = lam + sp.Rational(int(rng.integers(0, 1000)), 100)
        frac = sp.Rational(int(rng.integers(1, 10**6)), 10**6)
        b = int(rng.integers(1, 6))
        n = int(rng.integers(2 * b, 400 * b))
        out.append({"alpha": sp.Rational(int(rng.integers(1001, 100000)), 1000), "eta": 2 / (lam + beta) * frac,
                    "lam": lam, "beta": beta, "S_g": sp.Rational(int(rng.integers(1, 1000)), 100),
                    "sigma": sp.Rational(int(rng.integers(10, 1000)), 100), "n": n, "b": b,
                    "K": int(rng.choice([1, 2, 3, int(rng.integers(4, 10**4))]))})
    return out


def test_c1a_and_c4_at_random_points() -> None:
    """Thm 3.3 (every j0) < Thm 2.1 and Thm 4.2 < Thm 3.3 (last batch); Thm 3.3/G <= 1 + sum_{i<K-1} r^i, the bound
    the proof reduces to, from eps0's defining sum (not the steps)."""
    for p in _random_points(2203, 12):
        N = p["n"] // p["b"]
        t21, t42 = _value("thm2_1", p), _value("thm4_2", p)
        with mpmath.workdps(40):
            G = mpmath.mpf(p["alpha"] * p["eta"] * p["S_g"] ** 2 / (4 * p["sigma"] ** 2 * p["b"] ** 2))
            r = (1 - mpmath.mpf(p["eta"] * p["lam"])) ** 2
            reduced = 1 + mpmath.fsum(r**i for i in range(min(p["K"] - 1, 5000)))  # r^5000 is negligible
        for j0 in sorted({0, N // 2, N - 1}):
            t33 = _value("thm3_3", {**p, "j0": j0})
            assert t33 < t21 and t33 <= G * reduced * (1 + mpmath.mpf(10) ** -30)
        assert t42 < _value("thm3_3", {**p, "j0": N - 1})


def test_c1a_worst_ratio_is_0_791_at_the_corner() -> None:
    """The proof's base case K = 2 is tight at N = 2, j0 = 1, eta lambda -> 1 (r -> 0): Thm 3.3/Thm 2.1 -> 2/(4 (1 -
    e^-1)) = 0.7910, the independent audit's worst ratio over the region; below it, and close, at eta lambda = 1 -
    1e-6."""
    p = {"alpha": 10, "lam": 1, "beta": 1, "S_g": 4, "sigma": 2, "n": 2, "b": 1, "j0": 1, "K": 2,
         "eta": 1 - sp.Rational(1, 10**6)}
    ratio = _value("thm3_3", p) / _value("thm2_1", p)
    with mpmath.workdps(40):
        limit = 2 / (4 * (1 - mpmath.exp(-1)))
    assert limit - mpmath.mpf("1e-5") < ratio < limit
    assert mpmath.nstr(limit, 4) == "0.791"
    for K in (1, 3, 50):
        assert _value("thm3_3", {**p, "K": K}) / _value("thm2_1", {**p, "K": K}) < ratio


def test_c8_termwise_and_summed() -> None:
    """Each term (1 - e^-u) e^(-u(k-1)) of D.7 exceeds u (1-u)^k of D.6; the theorems' values agree with those sums."""
    rng = np.random.default_rng(7)
    with mpmath.workdps(40):
        for _ in range(10):
            lam = sp.Rational(int(rng.integers(1, 1000)), 100)
            beta = lam + sp.Rational(int(rng.integers(0, 1000)), 100)
            eta = sp.Rational(int(rng.integers(1, 10**6)), 10**6) / beta
            K = int(rng.choice([1, 2, int(rng.integers(3, 300))]))
            p = {"alpha": sp.Rational(int(rng.integers(1001, 100000)), 1000), "eta": eta, "lam": lam, "beta": beta,
                 "S_g": 4, "sigma": 2, "n": int(rng.integers(1, 1000)), "K": K}
            u = mpmath.mpf(eta * lam) / 2
            t6 = [u * (1 - u) ** k for k in range(1, K + 1)]
            t7 = [(1 - mpmath.exp(-u)) * mpmath.exp(-u * (k - 1)) for k in range(1, K + 1)]
            assert all(a < b for a, b in zip(t6, t7, strict=True))
            A = mpmath.mpf(p["alpha"] * p["S_g"] ** 2 / (lam * p["sigma"] ** 2 * p["n"] ** 2))
            d6, d7 = _value("thmD_6", p), _value("thmD_7", p)
            assert abs(d6 - A * mpmath.fsum(t6)) <= mpmath.mpf(10) ** -30 * d6
            assert abs(d7 - A * mpmath.fsum(t7)) <= mpmath.mpf(10) ** -30 * d7
            assert d6 < d7


@pytest.mark.parametrize(("N", "x"), [(2, "0.999999"), (2, "1e-6"), (3, "0.5"), (25, "0.02"), (400, "0.9"),
                                      (1, "0.3")])
def test_c9d_from_the_defining_sum(N: int, x: str) -> None:
    """eps0^N = G r^(N-1)/sum_{s<N} r^s < G/N for N >= 2 (N r^(N-1) < sum_{s<N} r^s); equal at N = 1, which Thm
    4.2's n/b >= 2 excludes."""
    with mpmath.workdps(40):
        r = (1 - mpmath.mpf(x)) ** 2
        ratio = N * r ** (N - 1) / mpmath.fsum(r**s for s in range(N))  # eps0^N / (G/N)
        assert ratio < 1 if N >= 2 else ratio == 1
    claim = _claim("C9d")
    p = {"alpha": 10, "eta": sp.Rational(x), "lam": 1, "beta": 1, "S_g": 4, "sigma": 2, "n": 2 * N, "b": 2}
    from dptheory.verify.points import in_region

    assert in_region(claim, p) is (N >= 2)
