"""Where Ye & Shokri 2022's findings fail and where they hold (arXiv 2203.05363; the paper's claims_map.py).

docs/derivations/yeshokri22_where_findings_hold.md: every sympy step of the companions' proofs is proved; a changed
expression or a weakened hypothesis is noticed; the inequalities the steps lead to are checked numerically from
their definitions (sums at 40 digits, not the sympy expressions); every edge point of every map is decided as the
map says; the numbers the maps quote are what their scans and evaluations give.
"""

from __future__ import annotations

import math
import re

import mpmath
import pytest
import sympy as sp

import dptheory  # noqa: F401  (registers the papers)
from dptheory.core.claims import Verdict
from dptheory.core.findings import edge_roles
from dptheory.core.registry import REGISTRY
from dptheory.core.symbolic import SymbolicVerdict
from dptheory.papers.yeshokri22 import claims_map as M
from dptheory.papers.yeshokri22 import theorems as TH
from dptheory.verify.points import decide_point, in_region

FIG = {"lam": 1, "beta": 4, "S_g": 4, "n": 50, "eta": "0.02", "sigma": 2, "b": 2}


def _not_proved(steps: list) -> list[str]:
    return [st.detail.split(" ", 1)[0] for st in steps if st.verdict is not SymbolicVerdict.PROVED]


# ----------------------------------------------------------------------------- the proofs
@pytest.mark.parametrize("steps", [M.limit_steps, M.small_n_steps, M.c9b_steps, M.c9c_steps, M.c2c_steps],
                         ids=lambda f: f.__name__)
def test_every_step_is_proved(steps) -> None:
    assert _not_proved(steps()) == []


@pytest.mark.parametrize("after, extra", [(1 / (TH.eta * TH.lam), 0), (1 / (TH.eta * TH.lam), 2),
                                          (1 / (TH.eta * TH.lam) + TH.n / TH.b, 0),
                                          (1 / (TH.eta * TH.lam) + TH.n / TH.b, 2)])
def test_the_threshold_step_is_proved(after, extra) -> None:
    assert M.threshold_step(after, extra).verdict is SymbolicVerdict.PROVED


def test_a_changed_first_term_or_a_weaker_hypothesis_is_noticed() -> None:
    """Mutations: the first term's exponent (K-1) read as K; the limit without its denominator; C9b's increment
    with r^(K m); N >= 3 instead of N >= 4 (h = 1: h(2h-1) < 2h+1)."""
    first = TH.FIRST_TERM_EXPR
    wrong = first.subs(TH.K, TH.K + 1)
    assert "(A1)" in _not_proved(M.limit_steps(first=wrong))
    assert "(B1)" in _not_proved(M.c9b_steps(first=wrong))
    assert "(A4)" in _not_proved(M.limit_steps(limit=TH.FIRST_TERM_LIMIT_EXPR * (1 - (1 - TH.eta * TH.lam) ** 2)))
    k = sp.Symbol("k", integer=True, nonnegative=True)
    h = k + 1  # h >= 1 only
    assert sp.expand(h * (2 * h - 1) - (2 * h + 1)).subs(k, 0) < 0


def _L(N: int, x: mpmath.mpf) -> mpmath.mpf:
    """The first term's K-limit over G, from its definition (direct sums, not the sympy expressions)."""
    r = (1 - x) ** 2
    h = N // 2
    return r ** (h - 1) / mpmath.fsum(r**s for s in range(h)) / (1 - r ** (N - h))


def test_the_first_terms_limit_is_below_g_over_n_x_from_four_batches_and_two_epochs_cover_two_and_three() -> None:
    """Steps 6-10 of part A, at 40 digits over lambda eta in (0, 1): L <= G/(N x) for N = 4..40 (with the AM-GM
    bound 1/(h(2h-1)) in between), L > G/(N x) somewhere for N = 2, 3, and L <= G/(N x) + 2G/N there."""
    with mpmath.workdps(40):
        xs = [mpmath.mpf(i) / 200 for i in range(1, 200)] + [mpmath.mpf(1) - mpmath.mpf(10) ** -6]
        for N in range(4, 41):
            h = N // 2
            for x in xs:
                L = _L(N, x)
                assert L * x <= mpmath.mpf(1) / (h * (2 * h - 1)) <= mpmath.mpf(1) / N, (N, x)
        for N in (2, 3):
            assert any(_L(N, x) > 1 / (N * x) for x in xs), N
            assert all(_L(N, x) <= 1 / (N * x) + mpmath.mpf(2) / N for x in xs), N


def test_c9b_increment_is_below_eps0_n_after_2_plus_1_over_lambda_eta() -> None:
    """Part B: at 40 digits, from the definitions: the increment eps0^h r^((K-1)(N-h)) < eps0^N at K = ceil(2 + 1/x)
    for N = 2..30 and lambda eta in (0, 1); and at K = 1 it is not."""
    with mpmath.workdps(40):
        for N in range(2, 31):
            h = N // 2
            for i in range(1, 100, 7):
                x = mpmath.mpf(i) / 100
                r = (1 - x) ** 2
                eh, eN = (r ** (j - 1) / mpmath.fsum(r**s for s in range(j)) for j in (h, N))
                K = int(mpmath.ceil(2 + 1 / x))
                assert eh * r ** ((K - 1) * (N - h)) < eN, (N, x)
                assert eh >= eN


# ----------------------------------------------------------------------------- the companions and the maps
COMPANIONS = sorted(c.key for c in REGISTRY.claims() if c.companion_of and c.key.startswith("yeshokri22."))


def test_every_falsified_claim_of_the_paper_has_a_companion_or_fails_everywhere() -> None:
    falsified = [c for c in REGISTRY.claims() if c.key.startswith("yeshokri22.") and c.expected is Verdict.FALSIFIED]
    everywhere = {c.key for c in falsified if c.failing.everywhere}
    assert everywhere == {"yeshokri22.C15a", "yeshokri22.C15c", "yeshokri22.C18a", "yeshokri22.C18b"}
    assert {REGISTRY.get(k).companion_of for k in COMPANIONS} == {c.key for c in falsified} - everywhere


@pytest.mark.parametrize("key", [k for k in COMPANIONS if REGISTRY.get(k).expected is Verdict.PROVED])
def test_proved_companions_say_where_the_derivation_is(key: str) -> None:
    c = REGISTRY.get(key)
    res = c.symbolic(c)
    assert res.verdict is SymbolicVerdict.PROVED, res.detail
    assert M.NOTE in res.detail and M.NOTE in c.reading


def test_a_proof_does_not_prove_a_widened_region_or_another_relation() -> None:
    """Mutations: C5a_holds without N >= 4 (it fails at N = 3), C9b_holds without its epoch threshold, C5a_holds with
    <= for <: the proofs say they do not apply (and the checker's verdict is then not 'proved')."""
    import dataclasses

    from dptheory.core.claims import Region, Relation
    from dptheory.verify.checking import check_claim

    c = REGISTRY.get("yeshokri22.C5a_holds")
    wider = dataclasses.replace(c, region=Region(constraints=c.region.constraints[:2], ranges=c.region.ranges))
    res = wider.symbolic(wider)
    assert res.verdict is SymbolicVerdict.UNDECIDED and "does not state n/b >= 4" in res.detail, res.detail
    assert check_claim(wider, examples=20).verdict is not Verdict.PROVED
    other = dataclasses.replace(c, relation=Relation.LE)
    assert "does not compare the sides" in other.symbolic(other).detail
    c9b = REGISTRY.get("yeshokri22.C9b_holds")
    anywhere = dataclasses.replace(c9b, region=Region())
    assert anywhere.symbolic(anywhere).verdict is SymbolicVerdict.UNDECIDED


EDGES = [(c.key, i, role) for c in REGISTRY.claims() if c.key.startswith("yeshokri22.") and c.failing is not None
         for i, role, _pt in edge_roles(c.failing)]
SLOW_EDGES = {"yeshokri22.C7_epsdelta_rdp", "yeshokri22.C7_epsdelta_pld"}  # seconds per point (order optimisation)


@pytest.mark.parametrize("key, i, role", [
    e if e[0] not in SLOW_EDGES else pytest.param(*e, marks=pytest.mark.slow) for e in EDGES])
def test_every_edge_point_is_decided_as_the_map_says(key: str, i: int, role: str) -> None:
    c = REGISTRY.get(key)
    edge = c.failing.edges[i]
    pt = edge.fails if role == "fails" else edge.holds
    assert in_region(c, pt), (key, pt)
    dec = decide_point(c, pt)
    assert dec.holds is (role == "holds"), (key, role, dec.evidence)
    # certified wherever both sides have ball evaluators (the PLD has none; C7_epsdelta_rdp's K = 74 is certified)
    assert dec.certified or key == "yeshokri22.C7_epsdelta_pld", dec.evidence


def test_c1b_map_quotes_the_ratios() -> None:
    c = REGISTRY.get("yeshokri22.C1b")
    text = c.failing.fails_on
    for K, want in ((1, "84.3"), (2, "44.2"), (3, "45.9")):
        exact = {k: sp.Rational(str(v)) for k, v in {**FIG, "alpha": 10, "K": K}.items()}
        from dptheory.verify.sides import side_mp

        assert f"{float(side_mp(c.lhs, exact, 30)):.1f}" == want and want in text


def test_c9c_map_quotes_the_crossing_at_n5_b2() -> None:
    """(n/b) r^(N-1) = P_N at n = 5, b = 2 (N = 2): 2.5 r = 1 + r, r = 2/3, lambda eta = 1 - sqrt(2/3)."""
    x = 1 - mpmath.sqrt(mpmath.mpf(2) / 3)
    assert f"{float(x):.4f}" == "0.1835" and "0.1835" in REGISTRY.get("yeshokri22.C9c").failing.fails_on


# ----------------------------------------------------------------------------- the scans behind the evidence
def _quoted(text: str, after: str) -> str:
    m = re.search(re.escape(after) + r"\s*([0-9.]+)", text)
    assert m, (after, text)
    return m.group(1).rstrip(".")


@pytest.mark.slow
@pytest.mark.parametrize("s", "abcd")
def test_c5_scans_give_the_numbers_the_maps_quote(s: str) -> None:
    """The scans run in about 2 s each (float64)."""
    fmap = REGISTRY.get(f"yeshokri22.C5{s}").failing
    wide, edge = M.scan(f"C5{s}"), M.scan(f"C5{s}_edge")
    failing = sorted(N for N, d in wide["by_N"].items() if d["violations"])
    assert f"N = {' and '.join(map(str, failing))} only" in fmap.evidence
    assert failing == sorted(N for N, d in edge["by_N"].items() if d["violations"])
    x = min(d["x"][0] for d in edge["by_N"].values() if d["violations"])
    quoted = _quoted(fmap.evidence, "lambda eta >=")
    assert f"{x:.{len(quoted.split('.')[1])}f}" == quoted
    offsets = max(max(d["K"]) for d in edge["by_N"].values() if d["violations"])
    assert ("no epoch past" in fmap.evidence) == (offsets == 0)
    assert ("at most one epoch past" in fmap.evidence) == (offsets == 1)


@pytest.mark.slow
def test_c5g_and_c6_scans_give_the_numbers_the_maps_quote() -> None:
    wide, by_k = M.scan("C5g"), M.scan("C5g_K")
    assert sorted(N for N, d in wide["by_N"].items() if d["violations"]) == [2, 3]
    assert max(max(d["K"]) for d in by_k["by_N"].values() if d["violations"]) == 1.5
    assert "none beyond 1.5 times it" in REGISTRY.get("yeshokri22.C5g").failing.evidence
    c6, margin = M.scan("C6"), M.scan("C6_margin")
    bad = {N: d for N, d in c6["by_N"].items() if d["violations"]}
    assert sorted(bad) == list(range(2, 8)) and all(min(d["K"]) >= 2 for d in bad.values())
    lo = min(d["x"][0] for N, d in bad.items() if N >= 4)
    hi = max(d["x"][1] for N, d in bad.items() if N >= 4)
    assert f"[{lo:.2f}, {hi:.2f}]" in REGISTRY.get("yeshokri22.C6").failing.fails_on
    worst = min(margin["by_N"].items(), key=lambda kv: kv[1]["margin"])
    assert worst[0] == 9 and f"{worst[1]['margin']:.2f}" == "0.01"


def test_the_papers_doc_names_every_finding_and_companion() -> None:
    """docs/yeshokri22.md, 'Where the findings fail and where they hold': a row per finding, every companion named."""
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "yeshokri22.md").read_text()
    section = doc.split("## Where the findings fail and where they hold", 1)[1].split("\n## ", 1)[0]
    for key in COMPANIONS:
        assert f"`{key}`" in section, key
        base = REGISTRY.get(key).companion_of.removeprefix("yeshokri22.")
        assert re.search(rf"^\| [^|]*\b{re.escape(base)}\b", section, flags=re.M), base


# ----------------------------------------------------------------------------- the stated findings (claims_map_stated)
from dptheory.papers.yeshokri22 import claims_map_stated as MS  # noqa: E402


@pytest.mark.parametrize("steps", [MS.c15a_everywhere_steps, MS.c15c_everywhere_steps, MS.c15_two_classes_steps,
                                   lambda: MS.c18_everywhere_steps("yeshokri22.C18a"),
                                   lambda: MS.c18_everywhere_steps("yeshokri22.C18b"),
                                   lambda: MS.c17_small_n_steps(2), lambda: MS.c17_small_n_steps(3)],
                         ids=["C15a", "C15c", "two_classes", "C18a", "C18b", "C17_n2", "C17_n3"])
def test_every_step_of_the_stated_maps_is_proved(steps) -> None:
    assert _not_proved(steps()) == []


def test_a_fails_everywhere_proof_notices_a_changed_side() -> None:
    """Mutations: C18a/C18b with e^(-lambda eta K/2) restored in the printed quotient (then the sides are equal: the
    claim would hold); C15a's quotient with +S_g/100 (the clipped part no longer negative); C15c's right side 1 - eta
    lambda/2; the two-class step and the N = 2, 3 steps against a doubled Eq. 146."""
    import dataclasses

    from dptheory.core.claims import formula

    x, K = TH.eta * TH.lam, TH.K
    c18a, c18b = REGISTRY.get("yeshokri22.C18a"), REGISTRY.get("yeshokri22.C18b")
    fixed_a = dataclasses.replace(c18a, rhs=formula("corrected", (1 - sp.exp(-x * K / 2)) / (1 - sp.exp(-x / 2))))
    assert "(G9)" in _not_proved(MS.c18_everywhere_steps("yeshokri22.C18a", fixed_a))
    corrected = TH.al * TH.S_g**2 / (TH.lam * TH.sigma**2 * TH.n**2) * (1 - sp.exp(-x * K / 2))
    assert "(G9)" in _not_proved(MS.c18_everywhere_steps("yeshokri22.C18b", dataclasses.replace(
        c18b, lhs=formula("corrected", corrected))))
    c15a = REGISTRY.get("yeshokri22.C15a")
    up = dataclasses.replace(c15a, lhs=formula("shifted", c15a.lhs.expression() + TH.S_g / 100))
    assert "(G2)" in _not_proved(MS.c15a_everywhere_steps(up))
    c15c = REGISTRY.get("yeshokri22.C15c")
    half = dataclasses.replace(c15c, rhs=formula("1 - eta lambda/2", 1 - x / 2))
    assert "(G4)" in _not_proved(MS.c15c_everywhere_steps(half))
    eq146 = REGISTRY.get("yeshokri22.C17").rhs.expression()
    for N in (2, 3):
        assert f"(F{N}a)" in _not_proved(MS.c17_small_n_steps(N, rhs=2 * eq146))
    assert "(F1)" in _not_proved(MS.c17_holds_steps(rhs=2 * eq146))


def test_the_stated_companions_do_not_prove_a_widened_region() -> None:
    """Mutations: C11b_holds_alpha10 up to K = 4960 (fails there: the proof's last step is not proved) or with both
    alphas; C16_holds without alpha <= 2; C17_holds with n/b >= 3; C17_holds_n2 without its K condition; the C16 proof
    applied to the corrected form (its step E1 then fails)."""
    import dataclasses

    from dptheory.core.claims import Region
    from dptheory.core.conditions import Condition

    c = REGISTRY.get("yeshokri22.C11b_holds_alpha10")
    for region, said in (
        (dataclasses.replace(c.region, constraints=(Condition(TH.K <= 4960, "K <= 4960"),)), "(D9) D at K = 4960"),
        (dataclasses.replace(c.region, choices={"alpha": [10, 15]}), "does not fix alpha"),
        (dataclasses.replace(c.region, constraints=()), "state K <= K_max"),
    ):
        wider = dataclasses.replace(c, region=region)
        res = wider.symbolic(wider)
        assert res.verdict is SymbolicVerdict.UNDECIDED and said in res.detail, res.detail
    for key, keep in (("yeshokri22.C16_holds", ()), ("yeshokri22.C17_holds", (0,)),
                      ("yeshokri22.C17_holds_n2", (0, 1))):
        comp = REGISTRY.get(key)
        wider = dataclasses.replace(comp, region=Region(constraints=tuple(comp.region.constraints[i] for i in keep)))
        res = wider.symbolic(wider)
        assert res.verdict is SymbolicVerdict.UNDECIDED and "does not state" in res.detail, (key, res.detail)
    corrected = REGISTRY.get("yeshokri22.C16b").lhs.expression()
    assert "(E1)" in _not_proved(MS.c16_holds_steps(printed=corrected))


def _softmax_grad(theta: list) -> list:
    """grad l_0 = p - e_1 at x = 0 (only the biases enter), from Eq. 8's definition."""
    z = [mpmath.exp(t) for t in theta]
    p = [zi / mpmath.fsum(z) for zi in z]
    return [p[0] - 1, p[1], p[2]]


def _clipped(theta: list, s: mpmath.mpf) -> list:
    """Prop 5.2's g_0 with clipping active: (S_g/2) u/|u| at S_g = 2 s."""
    u = _softmax_grad(theta)
    norm = mpmath.sqrt(mpmath.fsum(ui**2 for ui in u))
    return [s * ui / norm for ui in u]


def test_the_c15_maps_quote_the_constants_computed_from_the_definitions() -> None:
    """At 40 digits from Eq. 8's softmax (not the sympy sides): the quotient is lambda + kappa S_g with kappa =
    -0.003017..., the clipping threshold is 1.3311, and the step ratio squared is a^2 + C11 a s + C02 s^2 with C11 =
    0.0123, C02 = 0.000803 (the numbers C15a's and C15c's maps quote)."""
    with mpmath.workdps(40):
        th, v = [mpmath.mpf(0), mpmath.mpf(8), mpmath.mpf(6)], [3, -2, -1]
        vv = sum(vi**2 for vi in v)

        def at(tau: mpmath.mpf) -> list:
            return [t + tau * vi for t, vi in zip(th, v, strict=True)]

        kappa = mpmath.diff(lambda tau: mpmath.fsum(vi * gi for vi, gi in zip(v, _clipped(at(tau), mpmath.mpf(1) / 2),
                                                                               strict=True)), 0) / vv
        norms = [mpmath.sqrt(mpmath.fsum(u**2 for u in _softmax_grad(at(tau)))) for tau in (0, mpmath.mpf(1) / 10)]
        d = [vi / mpmath.mpf(10) for vi in v]
        w = [a - b for a, b in zip(_clipped(at(mpmath.mpf(1) / 10), 1), _clipped(th, 1), strict=True)]
        dd = mpmath.fsum(di**2 for di in d)
        c11 = -2 * mpmath.fsum(a * b for a, b in zip(w, d, strict=True)) / dd
        c02 = mpmath.fsum(a**2 for a in w) / dd
    kappa, c11, c02, norms = float(kappa), float(c11), float(c02), [float(x) for x in norms]
    a_map, c_map = REGISTRY.get("yeshokri22.C15a").failing, REGISTRY.get("yeshokri22.C15c").failing
    assert f"lambda - {-kappa:.4g} S_g" in a_map.fails_on and f"below -{-kappa:.4g}" in a_map.evidence
    assert f"below {min(norms):.5g}" in a_map.fails_on
    assert f"a^2 + {c11:.3g} a s + {c02:.3g} s^2" in c_map.fails_on
    assert f"above {math.floor(c11 * 10**4) / 10**4:g} and {math.floor(c02 * 10**6) / 10**6:g}" in c_map.evidence


def _term1_over_G(N: int, x: mpmath.mpf, K: int) -> mpmath.mpf:
    """Thm 4.2's first term over G from its definition (direct sums): eps0^h sum_{i<K-1} r^(m i)/G."""
    r, h = (1 - x) ** 2, N // 2
    eps_h = r ** (h - 1) / mpmath.fsum(r**s for s in range(h))
    return eps_h * mpmath.fsum(r ** ((N - h) * i) for i in range(K - 1))


def test_c17_holds_exactly_where_its_companions_say() -> None:
    """At 40 digits from the definitions: Eq. 146 (term1 <= G/(N lambda eta)) at N = 2, 3 holds exactly where the
    companions' conditions hold (grid of lambda eta and K), and at N = 4..12 at every K; the map's 0.1895 is the root
    of t^3 + t^2 + t = 2, t = 1 - lambda eta."""
    with mpmath.workdps(40):
        xs = [mpmath.mpf(i) / 47 for i in range(1, 47)]
        for N, cond in ((2, lambda x, K: (1 - x) ** (2 * (K - 1)) >= x / 2),
                        (3, lambda x, K: (1 - x) ** (4 * (K - 1)) >= 1 - (2 - x) * (1 + (1 - x) ** 2) / 3)):
            for x in xs:
                for K in range(1, 31):
                    assert (_term1_over_G(N, x, K) <= 1 / (N * x)) == cond(x, K), (N, x, K)
        for N in range(4, 13):
            assert all(_term1_over_G(N, x, 40) <= 1 / (N * x) for x in xs), N
        t3 = mpmath.findroot(lambda t: t**3 + t**2 + t - 2, 0.8)
    assert f"lambda eta > {float(1 - t3):.4f}" in REGISTRY.get("yeshokri22.C17").failing.fails_on


def test_c16_printed_minus_second_term_has_the_sign_of_2_minus_alpha() -> None:
    """At 40 digits from the definitions (footnote 4 as printed, Eq. 5's second term): printed >= second term exactly
    where alpha <= 2, at N = 2, 3, 25 and several lambda eta, G (the map's 'exactly alpha > 2')."""
    with mpmath.workdps(40):
        for N in (2, 3, 25):
            for x in (mpmath.mpf("0.05"), mpmath.mpf("0.5"), mpmath.mpf("0.95")):
                r = (1 - x) ** 2
                for G in (mpmath.mpf("0.01"), mpmath.mpf(3)):
                    eps = {j: G * r ** (j - 1) / mpmath.fsum(r**s for s in range(j)) for j in range(1, N + 1)}
                    for a in (mpmath.mpf("1.1"), mpmath.mpf("1.9"), mpmath.mpf("2.1"), mpmath.mpf(10)):
                        terms = [mpmath.exp((a - 1) * (eps[N - j] - eps[1])) for j in range(N)]
                        printed = eps[1] + mpmath.log(mpmath.fsum(terms) / N)
                        second = mpmath.log(mpmath.fsum(mpmath.exp((a - 1) * eps[N - j]) for j in range(N)) / N)
                        second /= a - 1
                        assert (printed >= second) == (a <= 2), (N, x, G, a)


def test_c18_maps_quote_the_relative_excess() -> None:
    """The printed quotient over the geometric sum, from the sum itself: 1 + e^(-lambda eta K/2) (0.99 at K = 1, 2e-9
    at K = 2000 on the Figure setting, lambda eta = 0.02), as the maps of C18a and C18b quote."""
    with mpmath.workdps(30):
        x = mpmath.mpf("0.02")
        got = {}
        for K in (1, 2000):
            total = mpmath.fsum(mpmath.exp(-x * k / 2) for k in range(K))
            excess = (1 - mpmath.exp(-x * K)) / (1 - mpmath.exp(-x / 2)) / total - 1
            assert excess == pytest.approx(mpmath.exp(-x * K / 2), rel=1e-25)
            got[K] = float(excess)
    a_map, b_map = REGISTRY.get("yeshokri22.C18a").failing, REGISTRY.get("yeshokri22.C18b").failing
    assert f"({got[1]:.2f} too large at K = 1" in a_map.fails_on
    small = f"{got[2000]:.0e}".replace("e-0", "e-")
    assert f"{small} relative at K = 2000" in a_map.fails_on and f"{small} relative above it at K = 2000" in \
        b_map.fails_on
