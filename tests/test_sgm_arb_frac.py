"""Certified subsampled Gaussian RDP at fractional orders (dptheory/privacy/sgm/arb.py, log_a_frac_arb).

MTZ19 (arXiv 1908.10530) Sec. 3.3 two-sided series with the CVZ tail bound of
docs/derivations/sgm_fractional_tail.md. Independent values:

* the CVZ weights against the polynomial identity done in sympy, and against the CVZ (2000) Algorithm 1
  recurrence (the mpmath kernel's weights, a different construction);
* the bound |S - S_n| <= a_0 / T_n(3) on moment sequences whose alternating sums are known in closed form;
* the enclosure against the mpmath series kernel at twice the digits, against mpmath quadrature of the
  defining integral (a second method), and against the exact integer-order sum as alpha -> integer;
* a deliberately truncated tail (3 terms): the ball must widen and still contain the value (the bound is used).
"""

from __future__ import annotations

from typing import Any

import mpmath
import pytest
import sympy as sp

from dptheory.core.compile import Undecided
from dptheory.core.errors import NumericalFailure
from dptheory.core.registry import REGISTRY

flint = pytest.importorskip("flint")

from dptheory.privacy import sgm  # noqa: E402
from dptheory.privacy.sgm import arb as sgm_arb  # noqa: E402
from dptheory.privacy.sgm import terms as sgm_terms  # noqa: E402
from dptheory.testing import oracles  # noqa: E402


def _mp(x: str) -> mpmath.mpf:
    r = sp.Rational(x)
    return mpmath.mpf(r.p) / r.q


def _ball(x: str) -> Any:
    r = sp.Rational(x)
    return flint.arb(int(r.p)) / int(r.q)


def _log_a_ball(alpha: str, q: str, z: str, prec: int) -> Any:
    """``log_a_frac_arb`` at working precision ``prec`` bits, the inputs the exact rationals ``alpha``, ``q`` and
    ``z^2`` as balls."""
    with flint.ctx.workprec(prec):
        return sgm_arb.log_a_frac_arb(_ball(alpha), _ball(q), _ball(z) ** 2)


def _contains(ball: Any, ref: mpmath.mpf, rel: mpmath.mpf) -> bool:
    """ref in the ball, up to ``rel`` relative (the reference's own rounding)."""
    with mpmath.workdps(200), flint.ctx.workprec(1000):  # lower()/upper() round at the current precision
        lo = mpmath.mpf(ball.lower().str(120, radius=False, more=True).strip("[]"))
        hi = mpmath.mpf(ball.upper().str(120, radius=False, more=True).strip("[]"))
        slack = abs(ref) * rel
        return lo - slack <= ref <= hi + slack


# ------------------------------------------------------------------------------------------- CVZ weights


@pytest.mark.parametrize("n", [1, 2, 5, 12])
def test_cvz_weights_are_the_polynomial_identity(n: int) -> None:
    x = sp.Symbol("x")
    Q, d = sgm_arb.cvz_weights(n)
    P = sp.chebyshevt(n, 1 - 2 * x)
    assert d == sp.chebyshevt(n, 3)
    quo = sp.Poly(sp.cancel((d - P) / (1 + x)), x)
    want = [int(c) for c in reversed(quo.all_coeffs())]
    assert list(Q) == want + [0] * (n - len(want))


@pytest.mark.parametrize("n", [3, 10, 40])
def test_cvz_weights_match_algorithm_1(n: int) -> None:
    Q, d = sgm_arb.cvz_weights(n)
    with mpmath.workdps(80):
        alg = sgm_terms.cvz_weights_mp(n)
        for k in range(n):
            assert abs(mpmath.mpf(Q[k]) / d - alg[k]) <= mpmath.mpf(10) ** -70


@pytest.mark.parametrize(("name", "a", "exact"), [
    ("Lebesgue: 1/(k+1)", lambda k: mpmath.mpf(1) / (k + 1), lambda: mpmath.log(2)),
    ("point mass at 0.9", lambda k: mpmath.mpf("0.9") ** k, lambda: 1 / mpmath.mpf("1.9")),
    ("point mass at 0.999", lambda k: mpmath.mpf("0.999") ** k, lambda: 1 / mpmath.mpf("1.999")),
    ("beta(1/2, 3/2)", lambda k: mpmath.beta(k + mpmath.mpf(1) / 2, mpmath.mpf(3) / 2),
     lambda: mpmath.quad(lambda t: t ** -0.5 * (1 - t) ** 0.5 / (1 + t), [0, 1])),
])
def test_cvz_bound_holds_on_known_moment_sequences(name: str, a: Any, exact: Any) -> None:
    with mpmath.workdps(60):
        S = exact()
        for n in (1, 2, 3, 5, 8, 13, 21, 34):
            Q, d = sgm_arb.cvz_weights(n)
            Sn = mpmath.fsum(Q[k] * a(k) for k in range(n)) / d
            err = abs(S - Sn)
            assert err <= a(0) / d * (1 + mpmath.mpf(10) ** -40), (name, n)
        # the bound is not vacuous: at n = 8 the error is far below the plain partial sum's a_8
        Q, d = sgm_arb.cvz_weights(8)
        assert abs(S - mpmath.fsum(Q[k] * a(k) for k in range(8)) / d) < a(0) / 1000


# ------------------------------------------------------------------------------------------- enclosures

POINTS = [
    ("5/2", "1/100", "11/10"),
    ("3/2", "1/25", "10"),
    ("29/4", "3/10", "1/2"),
    ("513/2", "1/1000", "4/5"),
    ("10001/10000", "1/2", "3"),
    ("1688/100", "1/25", "10"),  # near Ye & Shokri's Figure 2 optimal order
    ("7/2", "1/1000000", "20000"),  # huge noise, log A ~ 1e-20
    ("11/10", "99/100", "2/5"),  # q near 1, small z
    ("3/2", "1e-300", "1"),  # log A ~ 1e-600: the closed form of 1 - s0_0 - s0_1 keeps it relative
    ("5/2", "1/100", "1000000"),  # s0_2 and the closed form cancel by about z^2 = 1e12
]


@pytest.mark.parametrize(("alpha", "q", "z"), POINTS)
def test_frac_enclosure_contains_mp_series_at_twice_the_digits(alpha: str, q: str, z: str) -> None:
    ball = _log_a_ball(alpha, q, z, 400)
    with mpmath.workdps(200):
        ref = sgm.log_a_mp(_mp(alpha), _mp(q), _mp(z))
        assert _contains(ball, ref, mpmath.mpf(10) ** -190)
        # tight: 400 bits leave at least 80 correct digits even where log A ~ 1e-20 costs 20 of them
        mid = mpmath.mpf(ball.mid().str(120, radius=False, more=True).strip("[]"))
        assert abs(mid - ref) <= mpmath.mpf(10) ** -80 * abs(ref)
        rad = mpmath.mpf(ball.rad().str(30, radius=False, more=True).strip("[]"))
        assert rad <= mpmath.mpf(10) ** -80 * abs(ref)


@pytest.mark.parametrize(("alpha", "q", "z"), [("5/2", "1/100", "11/10"), ("29/4", "3/10", "1/2"),
                                               ("10001/10000", "1/2", "3"), ("1688/100", "1/25", "10")])
def test_frac_enclosure_contains_quadrature(alpha: str, q: str, z: str) -> None:
    """A second method: mpmath quadrature of E[(1 + w)^alpha - 1 - alpha w] (no series, no CVZ)."""
    ball = _log_a_ball(alpha, q, z, 200)
    with mpmath.workdps(40):
        ref = oracles.log_a_quad_mp(_mp(alpha), _mp(q), _mp(z))
    assert _contains(ball, ref, mpmath.mpf(10) ** -37)


def test_plain_integral_brute_force() -> None:
    """The defining integral written out here (npdf times the base to the power alpha), 30 digits."""
    a, q, z = _mp("5/2"), _mp("1/4"), _mp("3/2")
    with mpmath.workdps(40):
        A = mpmath.quad(lambda x: mpmath.npdf(x, 0, z) * ((1 - q) + q * mpmath.exp((2 * x - 1) / (2 * z * z))) ** a,
                        [-mpmath.inf, -10 * z, 0, a, a + 10 * z, mpmath.inf])
        ref = mpmath.log(A)
    ball = _log_a_ball("5/2", "1/4", "3/2", 200)
    assert _contains(ball, ref, mpmath.mpf(10) ** -30)


@pytest.mark.parametrize(("q", "z"), [("1/100", "11/10"), ("1/4", "2"), ("1/1000", "1/2")])
@pytest.mark.parametrize("m", [2, 3, 10])
def test_frac_brackets_integer_order_sum(m: int, q: str, z: str) -> None:
    """RDP is nondecreasing in the order, so the series at m -+ h must bracket the exact integer sum at m,
    and the gap must be of order h (h = 1e-25: far above the 300-bit radii)."""
    h = sp.Rational(1, 10**25)
    with flint.ctx.workprec(300):
        Q, Z2 = _ball(q), _ball(z) ** 2
        T = flint.arb(1)
        lo = sgm_arb.rdp_arb(_ball(str(m - h)), Q, Z2, T)
        mid = sgm_arb.rdp_arb(flint.arb(m), Q, Z2, T)
        hi = sgm_arb.rdp_arb(_ball(str(m + h)), Q, Z2, T)
        assert bool(lo < mid) and bool(mid < hi)
        assert bool((hi - lo) < 1000 * _ball(str(h)) * (1 + mid))


def test_truncated_tail_still_contains_the_value() -> None:
    """With 3 tail terms the CVZ error term (a_0 / T_3(3) = a_0/99) dominates: the ball is wide and still
    contains the full value. Dropping the error term from the code makes this test fail."""
    args = (_ball("5/2"), _ball("1/2"), _ball("1/2") ** 2)
    with flint.ctx.workprec(200):
        full = sgm_arb.log_a_frac_arb(*args)
        short = sgm_arb.log_a_frac_arb(*args, terms=3)
    assert short.contains(full)
    assert bool(short.rad() > 1e-10 * abs(full.mid()))  # vs ~1e-58 for the full sum


# ------------------------------------------------------------------------------------------- edges


def test_ball_straddling_an_integer_is_undecided() -> None:
    with flint.ctx.workprec(64):
        alpha = flint.arb(3) + flint.arb(0, 1e-10)
        with pytest.raises(Undecided, match="floor"):
            sgm_arb.log_a_frac_arb(alpha, _ball("1/10"), flint.arb(1))


def test_q_edges_and_bad_input() -> None:
    with flint.ctx.workprec(100):
        assert sgm_arb.log_a_frac_arb(_ball("5/2"), flint.arb(0), flint.arb(1)).is_zero()
        one = sgm_arb.log_a_frac_arb(_ball("5/2"), flint.arb(1), flint.arb(4))
        assert one.overlaps(flint.arb("2.5") * flint.arb("1.5") / 8)
        with pytest.raises(NumericalFailure, match="alpha"):
            sgm_arb.log_a_frac_arb(_ball("1/2"), _ball("1/10"), flint.arb(1))
        with pytest.raises(NumericalFailure, match="z\\^2"):
            sgm_arb.log_a_frac_arb(_ball("5/2"), _ball("1/10"), flint.arb(-1))


# ------------------------------------------------------------------------------------------- wiring


def test_theorem_certifies_fractional_orders() -> None:
    thm = REGISTRY.get("rdp.subsampled_gaussian")
    p = dict(alpha="2.5", q="0.01", z=1, T=1)
    bv = thm.evaluate(p, dps=30, certify=True)
    assert bv.enclosure is not None
    with mpmath.workdps(60):
        ref = sgm.rdp_mp(_mp("5/2"), _mp("1/100"), 1, 1)
        assert mpmath.mpf(bv.enclosure.lo_str) <= ref <= mpmath.mpf(bv.enclosure.hi_str)


def test_composition_certifies_fractional_orders() -> None:
    """yeshokri22.composition at a fractional order is rdp.subsampled_gaussian at q = b/n, z^2 = 2 sigma^2 b^2 /
    (eta S_g^2) = 100, T = K floor(n/b) = 1250 (Figure 2 setting, K = 50)."""
    p = dict(alpha="16.88", eta="1/50", S_g=4, sigma=2, n=50, b=2, K=50)
    comp = REGISTRY.get("yeshokri22.composition").evaluate(p, dps=40, certify=True)
    assert comp.enclosure is not None
    with mpmath.workdps(90):
        ref = 1250 * sgm.log_a_mp(_mp("16.88"), _mp("1/25"), mpmath.mpf(10)) / (_mp("16.88") - 1)
        assert mpmath.mpf(comp.enclosure.lo_str) <= ref <= mpmath.mpf(comp.enclosure.hi_str)


@pytest.mark.parametrize(("key", "args"), [
    ("rdp.subsampled_gaussian", ["alpha=2.5", "q=0.01", "z=1.1", "T=1000"]),
    ("yeshokri22.composition", ["alpha=16.88", "eta=0.02", "S_g=4", "sigma=2", "n=50", "b=2", "K=50"]),
])
def test_cli_eval_certify_at_fractional_order(key: str, args: list[str], capsys: Any) -> None:
    import json

    from dptheory.cli import main

    assert main(["eval", key, *args, "--certify", "--json", "--dps", "20"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["certified"] is True
    lo, hi = (mpmath.mpf(x) for x in out["enclosure"])
    assert lo <= mpmath.mpf(out["value"]) <= hi or abs(mpmath.mpf(out["value"]) - lo) <= lo * 1e-19


@pytest.mark.parametrize("prec", [20, 32])
def test_log_a_on_coarse_balls_contains_the_high_precision_values(prec: int) -> None:
    """At 20 and 32 bits every rounding shows (at working precision the decimal ends of an enclosure would hide a
    radius left out): log A at fractional orders must still contain the mpmath series at 50 digits (the tests above
    hold that against quadrature), and at integer orders the exact binomial sum (``sgm.log_a_mp``)."""
    with mpmath.workdps(50):
        for a, q, z in [("5/2", "1/100", "1"), ("29/4", "3/10", "1/2"), ("41/2", "1/1000", "1/2")]:
            ref = sgm.log_a_mp(_mp(a), _mp(q), _mp(z))
            with flint.ctx.workprec(prec):
                b = sgm_arb.log_a_frac_arb(_ball(a), _ball(q), _ball(z) ** 2)
                lo, hi = (mpmath.mpf(x.str(50, radius=False)) for x in (b.lower(), b.upper()))
            assert lo <= ref <= hi, (a, q, z, b)
        for alpha in (2, 7, 20):
            ref = sgm.log_a_mp(alpha, _mp("1/20"), _mp("3/4"))  # the exact binomial sum at an integer order
            with flint.ctx.workprec(prec):
                b = sgm_arb.log_a_int_arb(alpha, _ball("1/20"), _ball("3/4") ** 2)
                lo, hi = (mpmath.mpf(x.str(50, radius=False)) for x in (b.lower(), b.upper()))
            assert lo <= ref <= hi, (alpha, b)


@pytest.mark.parametrize(("alpha", "q"), [("1/10", "1/2"), ("5/2", "3/2"), ("3", "3/2")])
def test_no_steps_of_an_undefined_mechanism_are_refused_not_zero(alpha: str, q: str) -> None:
    """T = 0 steps at an order below 1 or a q above 1 (yeshokri22.composition with n < b, only with check=False:
    T = K floor(n/b) = 0, q = b/n > 1). The ball kernel returned 0 there while the mpmath kernel refused; now both
    refuse (the domain is checked before the T = 0 shortcut), and ``evaluate`` says which condition makes it
    undefined."""
    import flint

    with pytest.raises(NumericalFailure, match="certainly"):
        sgm_arb.rdp_arb(flint.arb(sp.Rational(alpha).p) / sp.Rational(alpha).q,
                        flint.arb(sp.Rational(q).p) / sp.Rational(q).q, flint.arb(2), 0)
    p = dict(alpha=alpha, eta="1/10000", S_g="1/100", sigma="1/10", b=int(sp.Rational(q) * 2), n=2, K=1)  # q = b/n
    for certify in (False, True):
        with pytest.raises(NumericalFailure, match=r"alpha|q"):
            REGISTRY.get("yeshokri22.composition").evaluate(p, dps=15, check=False, certify=certify)
