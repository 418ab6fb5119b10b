"""Certified evaluators of maxinfo.thmB_derived (an infimum over lambda) and maxinfo.dp_route_rogers_asymptotic
(a root of the Gaussian delta(eps) slack equation): docs/derivations/maxinfo_arb.md.

Independent references (none calls the code under test):

* Theorem B: the statement's K_B(lambda) (``dptheory.papers.maxinfo.theorems.KB_SYM``, sympy) differentiated by
  sympy and solved with ``mpmath.findroot`` at twice the digits, started from a dense grid on ln lambda (mpmath only);
  the infimum's value is checked against that, and against K_B on a grid (every K_B(lambda) is >= the
  enclosure's lower end: the lower bound is never above the function it bounds).
* the route: eps solved with ``mpmath.findroot`` on the slack with delta(eps) by quadrature
  (``gdp_delta_quad_mp``, the hockey-stick integral, not the erfc formula), the value from the printed form
  C (eps^2 n + n sqrt(delta/eps)) (the arb kernel uses the identity at the root instead), at twice the digits.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import flint
import mpmath
import pytest
import sympy as sp

import dptheory.papers.maxinfo.theorems as M
from dptheory.core.errors import RegimeNotSupported
from dptheory.core.registry import REGISTRY
from dptheory.papers.maxinfo import kernels as mx
from dptheory.testing.oracles import gdp_delta_quad_mp
from dptheory.verify.points import decide_point

DPS = 30

THM_B_POINTS = [
    {"n": 1, "m": 1, "E": 1, "zeta": 1, "sigma": 1000, "beta": "1e-9"},  # maxinfo.C1's first pin
    {"n": 10, "m": 1, "E": 1, "zeta": 1, "sigma": "0.1", "beta": "0.05"},  # its second pin
    {"n": 1000, "m": 10, "E": 3, "zeta": 1, "sigma": 4, "beta": "0.01"},
    {"n": 200_000, "m": 200, "E": 1, "zeta": 1, "sigma": 100, "beta": "1e-6"},
    {"n": 2, "m": 2, "E": 1, "zeta": 1, "sigma": 1, "beta": "0.5"},  # near the admissible end lambda_max
    {"n": 1_000_000, "m": 1, "E": 100, "zeta": "0.5", "sigma": 500, "beta": "1e-9"},
]


def _q(v: object) -> sp.Rational:
    return sp.Rational(str(v))


def _kb_reference(p: dict, dps: int) -> mpmath.mpf:
    """inf_lambda K_B from the sympy statement: grid on ln lambda, then findroot on dK_B/dlambda = 0."""
    lam = sp.Symbol("lambda", positive=True)
    n, m, E = int(p["n"]), int(p["m"]), int(p["E"])
    subs = {M.NOTATION_OURS.sym("n"): n, M.NOTATION_OURS.sym("m"): m, M.NOTATION_OURS.sym("E"): E,
            M.NOTATION_OURS.sym("zeta"): _q(p["zeta"]), M.NOTATION_OURS.sym("sigma"): _q(p["sigma"]),
            M.NOTATION_OURS.sym("beta"): _q(p["beta"])}
    kb = M.KB_SYM.xreplace({s: v for s, v in subs.items()}).xreplace({sp.Symbol("lambda", positive=True): lam})
    kb = kb.subs(next(s for s in M.KB_SYM.free_symbols if s.name == "lambda"), lam)
    f = sp.lambdify(lam, kb, "mpmath")
    df = sp.lambdify(lam, sp.diff(kb, lam), "mpmath")
    r = _q(p["zeta"]) ** 2 / _q(p["sigma"]) ** 2
    with mpmath.workdps(15):  # the grid only brackets the minimiser
        lam_max = mpmath.inf if m == 1 else (-1 + mpmath.sqrt(1 + 4 / (2 * E * mpmath.mpf(r) * (m - 1)))) / 2
        top = min(lam_max * (1 - mpmath.mpf(10) ** -12), mpmath.mpf(10) ** 4)
        grid = [mpmath.mpf(10) ** -8 * (top / mpmath.mpf(10) ** -8) ** (mpmath.mpf(i) / 600) for i in range(600)]
        vals = [f(x) for x in grid]
        i = min(range(len(grid)), key=lambda j: vals[j])
        a, b = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    with mpmath.workdps(dps):
        root = mpmath.findroot(df, (mpmath.mpf(a), mpmath.mpf(b)), solver="anderson")
        return f(root)


def _assert_certified_value(key: str, p: dict, ref: mpmath.mpf) -> None:
    """``evaluate(certify=True)`` at DPS digits encloses ``ref`` (computed at 2 DPS) and rounds to it."""
    v = REGISTRY.get(key).evaluate(p, dps=DPS, certify=True)
    assert v.enclosure is not None
    with mpmath.workdps(2 * DPS):
        assert v.enclosure.lo <= ref <= v.enclosure.hi, (v.enclosure, ref)
        assert abs(v.value - ref) <= abs(ref) * mpmath.mpf(10) ** (1 - DPS)


@pytest.mark.parametrize("p", THM_B_POINTS, ids=lambda p: f"n{p['n']}-m{p['m']}-b{p['beta']}")
def test_thm_b_certified_value_matches_the_statement_at_twice_the_digits(p: dict) -> None:
    ref = _kb_reference(p, 2 * DPS)
    _assert_certified_value("maxinfo.thmB_derived", p, ref)
    with mpmath.workdps(2 * DPS):
        # the mpmath kernel (golden section) agrees too: a third evaluation
        mp_val = mx.thm_b_mp(int(p["m"]) * (int(p["n"]) // int(p["m"])), int(p["m"]), int(p["E"]),
                             mpmath.mpf(_q(p["zeta"]) ** 2 / _q(p["sigma"]) ** 2), mpmath.mpf(_q(p["beta"])))
        assert abs(mp_val - ref) <= abs(ref) * mpmath.mpf(10) ** (-20)


def test_thm_b_lower_end_is_below_k_b_everywhere_and_narrows_with_precision() -> None:
    p = THM_B_POINTS[2]
    n_u, m, E, r, beta = 1000, 10, 3, Fraction(1, 16), Fraction(1, 100)
    widths = []
    for prec in (64, 128, 256):
        with flint.ctx.workprec(prec):
            rb = flint.arb(r.numerator) / r.denominator
            bb = flint.arb(beta.numerator) / beta.denominator
            ball = mx.thm_b_arb(n_u, m, E, rb, bb)
            widths.append(float(ball.rad() / ball.mid()))
            L = -bb.log()
            lo = ball.lower()
            for i in range(1, 400):
                lam = flint.arb(i) / 1000  # up to 0.399 < lambda_max
                k = mx.k_b_arb(lam, n_u, m, E, rb, L)
                assert not (k < lo), f"K_B({i / 1000}) = {k} is below the certified lower end {lo}"
    assert widths[0] < 1e-15 and widths[1] < 1e-33 and widths[2] < 1e-70, widths
    assert p["m"] == m


def test_thm_b_ball_parameters_enclose_every_point() -> None:
    """A box (as the branch and bound passes): the ball contains the value at the box's corners and centre."""
    with flint.ctx.workprec(96):
        r = flint.arb("0.0625").union(flint.arb("0.07"))
        beta = flint.arb("0.01").union(flint.arb("0.011"))
        ball = mx.thm_b_arb(1000, 10, 3, r, beta)
    for rv in ("0.0625", "0.066", "0.07"):
        for bv in ("0.01", "0.0105", "0.011"):
            with mpmath.workdps(40):
                val = mx.thm_b_mp(1000, 10, 3, mpmath.mpf(rv), mpmath.mpf(bv))
            assert ball.lower() <= flint.arb(mpmath.nstr(val, 35)) <= ball.upper()


_SLOW = pytest.mark.slow  # a 60-digit quadrature reference takes ~5 s a point
ROUTE_POINTS = [
    {"n": 10_000, "E": 1, "zeta": 1, "sigma": 100, "beta": "0.01", "C": 1, "C_beta": 1},
    pytest.param({"n": 100_000, "E": 2, "zeta": 1, "sigma": 300, "beta": "1e-6", "C": 2, "C_beta": "0.5"},
                 marks=_SLOW),
    pytest.param({"n": 1000, "E": 1, "zeta": "0.5", "sigma": 200, "beta": "0.05", "C": 1, "C_beta": 1}, marks=_SLOW),
    {"n": 100, "E": 1, "zeta": 1, "sigma": 1000, "beta": "1e-6", "C": 1, "C_beta": 1},  # route_superlinear's pin
    pytest.param({"n": 200, "E": 1, "zeta": 1, "sigma": 1000, "beta": "1e-6", "C": 1, "C_beta": 1}, marks=_SLOW),
]


def _route_reference(p: dict, dps: int) -> mpmath.mpf:
    def slack(e: mpmath.mpf) -> mpmath.mpf:
        n = mpmath.mpf(int(p["n"]))
        mu = 2 * mpmath.mpf(_q(p["zeta"])) * mpmath.sqrt(int(p["E"])) / mpmath.mpf(_q(p["sigma"]))
        cb, beta = (mpmath.mpf(_q(p[k])) for k in ("C_beta", "beta"))
        return mpmath.exp(-e * e * n) + cb * n * mpmath.sqrt(gdp_delta_quad_mp(e, mu) / e) - beta

    with mpmath.workdps(15):  # bracket by bisection on [1e-4, 1] (the slack decreases in eps)
        a, b = mpmath.mpf("1e-4"), mpmath.mpf(1)
        assert slack(a) > 0 > slack(b)
        for _ in range(30):
            c = (a + b) / 2
            a, b = (c, b) if slack(c) > 0 else (a, c)
    with mpmath.workdps(dps):
        e = mpmath.findroot(slack, (mpmath.mpf(a), mpmath.mpf(b)), solver="anderson")
        n = mpmath.mpf(int(p["n"]))
        mu = 2 * mpmath.mpf(_q(p["zeta"])) * mpmath.sqrt(int(p["E"])) / mpmath.mpf(_q(p["sigma"]))
        return mpmath.mpf(_q(p["C"])) * (e * e * n + n * mpmath.sqrt(gdp_delta_quad_mp(e, mu) / e))


@pytest.mark.parametrize("p", ROUTE_POINTS, ids=["n1e4", "n1e5", "n1e3", "n100", "n200"])
def test_route_certified_value_matches_quadrature_at_twice_the_digits(p: dict) -> None:
    _assert_certified_value("maxinfo.dp_route_rogers_asymptotic", p, _route_reference(p, 2 * DPS))


def test_route_bracket_is_certified_and_outside_rogers_conditions_is_refused() -> None:
    with flint.ctx.workprec(128):
        mu = 2 * flint.arb(1) / 100
        lo, hi = mx.dp_route_eps_arb(10_000, mu, flint.arb(1), flint.arb("0.01"))
        assert mx._route_slack_arb(lo, 10_000, mu, flint.arb(1), flint.arb("0.01")) > 0
        assert mx._route_slack_arb(hi, 10_000, mu, flint.arb(1), flint.arb("0.01")) < 0
        assert hi - lo < hi * flint.arb(2) ** -110
        # n = 10, sigma = 1: eps far above 1/2
        with pytest.raises(RegimeNotSupported):
            mx.dp_route_arb(10, 1, flint.arb(1), flint.arb(1), flint.arb("0.01"), flint.arb(1), flint.arb(1))


@pytest.mark.parametrize("key", ["maxinfo.C1", "maxinfo.route_superlinear"])
def test_every_pinned_counterexample_is_certified(key: str) -> None:
    claim = REGISTRY.get(key)
    for pin in claim.counterexamples:
        dec = decide_point(claim, pin, dps=50)
        assert dec.holds is False and dec.certified, (pin, dec.evidence)


def test_taylor_lower_bound_holds_away_from_the_minimiser() -> None:
    """The second-order bound about a centre that is *not* the minimiser must stay below K_B on the interval
    (sampled): the K'(c)^2/(2 min K'') correction is what makes it a bound there."""
    with flint.ctx.workprec(96):
        r, L = flint.arb(1) / 16, -(flint.arb(1) / 100).log()
        lo, hi, c = flint.arb("0.069"), flint.arb("0.071"), flint.arb("0.0705")  # K'' > 0 certainly here
        lb = mx._k_b_lower_taylor(lo, hi, c, 1000, 10, 3, r, L)
        assert lb is not None
        for i in range(201):
            lam = lo + (hi - lo) * i / 200
            assert not (mx.k_b_arb(lam, 1000, 10, 3, r, L) < lb)
        mono = mx._k_b_lower_mono(lo, hi, 1000, 10, 3, r, L)
        assert mono is not None and not (mx.k_b_arb(flint.arb("0.0696"), 1000, 10, 3, r, L) < mono)


# ----------------------------------------------------------------------------- the linearity proofs


def test_linearity_proofs_are_proofs_of_the_registered_statements(monkeypatch: pytest.MonkeyPatch) -> None:
    """maxinfo.thm{A,B}_at_most_linear are proved from the theorems' own sympy statements: a statement made
    superlinear in n (an extra n^2 term) is no longer proved."""
    from dptheory.core.symbolic import SymbolicVerdict
    from dptheory.papers.lz26 import claims as LC

    assert LC._thm_a_linear_symbolic().verdict is SymbolicVerdict.PROVED
    assert LC._thm_b_linear_symbolic().verdict is SymbolicVerdict.PROVED
    n = M.NOTATION_OURS.sym("n")
    assert M.THM_A.bound is not None
    monkeypatch.setattr(M, "THM_A", __import__("dataclasses").replace(M.THM_A, bound=M.THM_A.bound + n**2))
    assert LC._thm_a_linear_symbolic().verdict is not SymbolicVerdict.PROVED
    monkeypatch.setattr(M, "KB_SYM", M.KB_SYM + n**2 / 1000)
    assert LC._thm_b_linear_symbolic().verdict is not SymbolicVerdict.PROVED


@pytest.mark.parametrize("key", ["maxinfo.thmA_at_most_linear", "maxinfo.thmB_at_most_linear"])
def test_linearity_holds_at_certified_points_with_the_expected_margin(key: str) -> None:
    """The proved margins at a point, on balls: Theorem A's 2 A(n) - A(2n) = 4 (sqrt 2 - 1) zeta/sigma
    sqrt(E k ln(1/beta)) m; Theorem B's is at least ln(1/beta)/lambda* (lambda* the minimiser at n)."""
    claim = REGISTRY.get(key)
    pt = {"k": 50, "m": 4, "E": 2, "zeta": 1, "sigma": 3, "beta": "0.01"}
    dec = decide_point(claim, pt, dps=50)
    assert dec.holds is True and dec.certified
    with mpmath.workdps(40):
        lhs, rhs = mpmath.mpf(dec.lhs["value"]), mpmath.mpf(dec.rhs["value"])
        margin = rhs - lhs
        if key.startswith("maxinfo.thmA"):
            want = 4 * (mpmath.sqrt(2) - 1) / 3 * mpmath.sqrt(2 * 50 * mpmath.log(100)) * 4
            assert abs(margin - want) < want * mpmath.mpf(10) ** -15
        else:
            _, lam = mx.thm_b_mp(200, 4, 2, mpmath.mpf(1) / 9, mpmath.mpf("0.01"), return_lambda=True)
            assert margin >= mpmath.log(100) / lam * (1 - mpmath.mpf(10) ** -15)


# ----------------------------------------------------------------------------- the route on boxes


def _regime_slice(relation: object = None) -> object:
    """maxinfo.route_superlinear_regime on the slice n = 500000, E = 4, sigma in [150, 155], beta in [1e-3, 2e-3]
    (inside its region: n E/sigma^2 >= 83 >= ln(1/beta), eps about 0.2 at 2n)."""
    import dataclasses

    from dptheory.core.claims import Box

    c = REGISTRY.get("maxinfo.route_superlinear_regime")
    reg = dataclasses.replace(c.region, fixed={**c.region.fixed, "n": 500_000, "E": 4},
                              certify=Box(intervals={"sigma": ("150", "155"), "beta": ("0.001", "0.002")},
                                          log=("sigma", "beta"), max_boxes=2000))
    return dataclasses.replace(c, region=reg, **({"relation": relation} if relation is not None else {}))


def test_route_superlinear_regime_is_certified_on_a_slice_and_its_flip_is_falsified() -> None:
    """Evidence for the claim (its verdict stays 'not falsified': the whole region does not fit the budget,
    docs/derivations/maxinfo_arb.md, section 4): the route's arb kernel encloses boxes, so the branch and
    bound certifies a slice, and the flipped relation is falsified there."""
    from dptheory.core.claims import Relation
    from dptheory.verify.certify import certify_region

    out = certify_region(_regime_slice())
    assert out.status == "certified", (out.status, out.notes, out.undecided[:2])
    flipped = certify_region(_regime_slice(Relation.LE))
    assert flipped.status == "falsified" and flipped.counterexample is not None
    assert flipped.counterexample["certified"]


def test_route_ball_parameters_enclose_every_point() -> None:
    """On a box of (sigma, beta, C_beta) the route's ball contains its value at the corners and the centre."""
    with flint.ctx.workprec(96):
        ball = mx.dp_route_arb(100_000, 2, flint.arb(1), flint.arb(150).union(flint.arb(152)),
                               flint.arb("0.001").union(flint.arb("0.0012")), flint.arb(1),
                               flint.arb("0.9").union(flint.arb("1.1")))
    for s in ("150", "151", "152"):
        for b in ("0.001", "0.0011", "0.0012"):
            for cb in ("0.9", "1", "1.1"):
                p = {"n": 100_000, "E": 2, "zeta": 1, "sigma": s, "beta": b, "C": 1, "C_beta": cb}
                v = REGISTRY.get("maxinfo.dp_route_rogers_asymptotic").evaluate(p, dps=20).value
                assert ball.lower() <= flint.arb(mpmath.nstr(v, 20)) <= ball.upper(), (p, ball, v)


def test_thm_b_point_where_the_lower_bound_does_not_close_fails_fast() -> None:
    """Found by the contract suite (the default test run stalled for minutes): at this point the branch and
    bound's lower bound stays at 5.39e5 against K_B = 5.416e5 at the minimiser at every precision, and the Ziv
    loop doubled the precision up to 65536 bits. The ball evaluator now says at once that it cannot certify;
    ``evaluate`` then takes the mpmath kernel's value (agreeing with the float64 kernel), and ``certify=True``
    is a one-line refusal."""
    import numpy as np

    from dptheory.core.errors import NumericalFailure

    t = REGISTRY.get("maxinfo.thmB_derived")
    p = {"n": 10, "m": 10, "E": 5, "zeta": 1, "sigma": "100000000/9996959900", "beta": "0.998375641345"}
    v = t.evaluate(p, dps=15)
    assert v.enclosure is None
    ref = float(t.evaluate_np({k: np.asarray([float(sp.Rational(x))]) for k, x in p.items()})[0])
    assert abs(float(v.value) / ref - 1) < 1e-9
    with pytest.raises(NumericalFailure, match="did not close"):
        t.evaluate(p, dps=15, certify=True)


def test_lam_max_at_m_1_is_infinite_without_a_warning() -> None:
    """m = 1 has no upper limit on lambda; the float kernel must say inf quietly (it printed a numpy overflow
    warning during `dptheory check`)."""
    import warnings

    import numpy as np

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = mx._lam_max_np(np.array([1.0, 2.0]), 5.0, 1e-20)  # 1/(2 E r 1e-300) is beyond float64 at m = 1
    assert out[0] == np.inf and out[1] == pytest.approx(np.sqrt(1e19), rel=1e-6)


@pytest.mark.parametrize("prec", [24, 32])
def test_kernels_on_coarse_balls_contain_the_high_precision_values(prec: int) -> None:
    """At 24 and 32 bits every rounding shows (at the 128 bits of an evaluation the decimal ends of an enclosure
    would hide a radius left out): Theorem B's ball, the GDP delta and the route's eps bracket must still contain
    the mpmath values at 50 digits (the GDP delta: quadrature of its defining integral, a second method)."""
    from dptheory.testing import oracles

    def ball(x: str) -> flint.arb:
        r = _q(x)
        return flint.arb(int(r.p)) / int(r.q)

    def mpq(x: str) -> mpmath.mpf:
        r = _q(x)
        return mpmath.mpf(int(r.p)) / int(r.q)

    def ends(lo: flint.arb, hi: flint.arb) -> tuple[mpmath.mpf, mpmath.mpf]:
        return mpmath.mpf(lo.lower().str(50, radius=False)), mpmath.mpf(hi.upper().str(50, radius=False))

    with mpmath.workdps(50):
        for n_u, m, E, r, beta in [(1000, 2, 5, "1/10", "1/20"), (100000, 1, 20, "1/1000", "1/100")]:
            ref = mx.thm_b_mp(n_u, m, E, mpq(r), mpq(beta))
            with flint.ctx.workprec(prec):
                b = mx.thm_b_arb(n_u, m, E, ball(r), ball(beta))
                lo, hi = ends(b, b)
            assert lo <= ref <= hi, ("thm B", n_u, m, E, r, beta, b)
        for eps, mu in [("1/2", "1"), ("3", "2"), ("1/10", "1/5")]:
            ref = oracles.gdp_delta_quad_mp(mpq(eps), mpq(mu))
            with flint.ctx.workprec(prec):
                b = mx.gdp_delta_arb(ball(eps), ball(mu))
                lo, hi = ends(b, b)
            assert lo <= ref <= hi, ("GDP delta", eps, mu, b)
        for n, mu, C_beta, beta in [(10000, "1/2", "1", "1/20"), (100000, "1/10", "2", "1/100")]:
            ref = mx.dp_route_eps_mp(n, mpq(mu), mpq(C_beta), mpq(beta))
            with flint.ctx.workprec(prec):
                lo, hi = ends(*mx.dp_route_eps_arb(n, ball(mu), ball(C_beta), ball(beta)))
            assert lo <= ref <= hi, ("route eps", n, mu, C_beta, beta)


@pytest.mark.parametrize("p", [
    {"n": 2, "m": 3, "E": 1, "zeta": "1/100", "sigma": "1/10", "beta": "1e-9"},
    {"n": 9, "m": 30, "E": 95, "zeta": 9, "sigma": "1/10", "beta": "0.99"},  # lambda_max 2.2e-8: cancellation
], ids=["n2-m3", "n9-m30"])
def test_thm_b_with_no_step_is_ln_over_lambda_max(p: dict) -> None:
    """m > n (only with check=False): T = floor(n/m) = 0 steps, n_u = 0, so K_B(lambda) = ln(1/beta)/lambda on the
    admissible lambda^2 + lambda < 1/(2 E r (m - 1)), whose infimum ln(1/beta)/lambda_max is approached at the end and
    not attained. Reference: lambda_max from the quadratic formula at 60 digits. Every kernel gives it (mpmath and the
    certified enclosure to DPS digits, float64 to 1e-12 relative); before, the search returned 4.5913 for 4.5798 at
    the first point (not certified) and float64 NaN."""
    import numpy as np

    t = REGISTRY.get("maxinfo.thmB_derived")
    r = _q(p["zeta"]) ** 2 / _q(p["sigma"]) ** 2
    with mpmath.workdps(2 * DPS):
        x = 1 / (2 * int(p["E"]) * mpmath.mpf(r) * (int(p["m"]) - 1))
        ref = mpmath.log(1 / mpmath.mpf(_q(p["beta"]))) / ((-1 + mpmath.sqrt(1 + 4 * x)) / 2)
    v = t.evaluate(p, dps=DPS, check=False, certify=True)
    with mpmath.workdps(2 * DPS):
        assert v.enclosure is not None and v.enclosure.lo <= ref <= v.enclosure.hi
        assert abs(v.value - ref) <= abs(ref) * mpmath.mpf(10) ** (1 - DPS)
        mp_val = mx.thm_b_mp(0, int(p["m"]), int(p["E"]), mpmath.mpf(r), mpmath.mpf(_q(p["beta"])))
        assert abs(mp_val - ref) <= abs(ref) * mpmath.mpf(10) ** (-2 * DPS + 5)
    f64 = t.kernels().np({k: np.asarray([float(_q(x)), float(_q(x))]) for k, x in p.items()})
    assert list(f64) == pytest.approx([float(ref)] * 2, rel=1e-12)


def test_thm_b_at_beta_one_or_more_is_refused_naming_beta() -> None:
    """beta >= 1 (only with check=False): ln(1/beta) <= 0, K_B has no minimiser (its infimum is approached as
    lambda -> 0, -inf for beta > 1). Every kernel refuses with a one-line ParameterOutOfRange naming beta and the
    accepted range; before, evaluate said "evaluation gave NaN ... this is a bug" and numpy printed warnings."""
    import warnings

    import numpy as np

    from dptheory.core.errors import ParameterOutOfRange

    t = REGISTRY.get("maxinfo.thmB_derived")
    for beta, n in itertools.product(("1", "2"), (100, 2)):  # n = 2 < m: no step (see above)
        p = {"n": n, "m": 10, "E": 1, "zeta": 1, "sigma": 1, "beta": beta}
        for certify in (True, False):
            with pytest.raises(ParameterOutOfRange, match="beta") as ei:
                t.evaluate(p, dps=15, check=False, certify=certify)
            assert "0 < beta < 1" in str(ei.value) and "\n" not in str(ei.value)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(ParameterOutOfRange, match="0 < beta < 1"):
                t.kernels().np({k: np.asarray([float(_q(x)), 0.5]) if k == "beta" else np.asarray([float(_q(x))] * 2)
                                for k, x in p.items()})
