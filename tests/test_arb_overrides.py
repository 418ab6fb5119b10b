"""Certified (arb) overrides: Thm 4.3's recurrence, the subsampled Gaussian at integer orders (fractional orders:
tests/test_sgm_arb_frac.py), the composition
baseline, and WBK19's sampled-without-replacement bound.

Each enclosure must contain a value computed independently at high precision (direct iteration of
S <- q e^c S + (1-q) S^r without the log domain; the MTZ19 defining integral by mpmath quadrature; the WBK19
Theorem 9 sum written out here term by term) and be tight (relative width below 10^-dps).
"""

from __future__ import annotations

import sys
import time
from typing import Any

import mpmath
import pytest
import sympy as sp

from dptheory.core.errors import NumericalFailure
from dptheory.core.registry import REGISTRY


def _get(key: str) -> Any:
    return REGISTRY.get(key)


def _check_enclosure(bv: Any, ref: mpmath.mpf, dps: int) -> None:
    enc = bv.enclosure
    assert enc is not None
    with mpmath.workdps(dps + 30):
        lo, hi = mpmath.mpf(enc.lo_str), mpmath.mpf(enc.hi_str)
        assert lo <= ref <= hi, f"{enc.lo_str} .. {enc.hi_str} misses {mpmath.nstr(ref, dps + 5)}"
        assert (hi - lo) <= mpmath.mpf(10) ** (-dps + 1) * abs(ref)


# ----------------------------------------------------------------------------------------------- Thm 4.3


def _log_S_literal(T: int, q: mpmath.mpf, a: mpmath.mpf, r: mpmath.mpf) -> mpmath.mpf:
    """log S_T of S <- a S + (1-q) S^r from S = 1 (Eq. 148-150 on S: no log domain, no shortcut), at the caller's
    precision."""
    S = mpmath.mpf(1)
    for _ in range(T):
        S = a * S + (1 - q) * S**r
    return mpmath.log(S)


def _thm43_direct(p: dict[str, Any], dps: int = 80) -> mpmath.mpf:
    """Thm 4.3 at ``p`` by the literal iteration of S, at 80 digits."""
    with mpmath.workdps(dps):
        R = {k: mpmath.mpf(sp.Rational(v).p) / sp.Rational(v).q for k, v in p.items()}
        G = R["alpha"] * R["eta"] * R["S_g"] ** 2 / (4 * R["sigma"] ** 2 * R["b"] ** 2)
        q = R["b"] / R["n"]
        a = q * mpmath.exp((R["alpha"] - 1) * G)
        r = (1 - R["eta"] * R["lam"]) ** 2
        return _log_S_literal(int(p["K"]) * (int(p["n"]) // int(p["b"])), q, a, r) / (R["alpha"] - 1)


THM43_POINTS = [
    # Figure 2 setting (a < 1, fixed-point regime reached after a few hundred steps)
    dict(alpha=15, eta="1/50", lam=1, beta=4, S_g=4, sigma=2, n=50, b=2, K=4),
    dict(alpha=10, eta="1/50", lam=1, beta=4, S_g=4, sigma=2, n=50, b=2, K=60),
    # a > 1 (alpha (alpha - 1) > 200 log 25): linear regime
    dict(alpha=30, eta="1/50", lam=1, beta=4, S_g=4, sigma=2, n=50, b=2, K=40),
    # slow contraction (eta lam small), every step iterated
    dict(alpha=2, eta="1/1000", lam="1/2", beta=4, S_g=4, sigma=2, n=40, b=1, K=3),
]


@pytest.mark.parametrize("p", THM43_POINTS)
@pytest.mark.parametrize("dps", [15, 40])
def test_thm43_certified_contains_direct_iteration(p: dict[str, Any], dps: int) -> None:
    bv = _get("yeshokri22.thm4_3").evaluate(p, dps=dps, certify=True)
    _check_enclosure(bv, _thm43_direct(p), dps)


def _thm43_log_direct(T: int, q: Any, c: Any, one_minus_r: Any) -> mpmath.mpf:
    """log S_T by the literal iteration of S at 60 digits, from the exact rationals q, c and 1 - r."""
    with mpmath.workdps(60):
        q, c, r = (mpmath.mpf(x.p) / x.q for x in (q, c, 1 - one_minus_r))
        return _log_S_literal(T, q, q * mpmath.exp(c), r)


@pytest.mark.parametrize(
    "T, q, c, one_minus_r",
    [
        # a = q e^c < 1 far from its fixed point; a > 1 (the linear regime's shortcut); a < 1 contracting slowly
        (3000, sp.Rational(1, 25), sp.Rational(1, 100), sp.Rational(3, 10000)),
        (2000, sp.Rational(1, 25), sp.Rational(7, 2), sp.Rational(1, 100)),
        (2000, sp.Rational(1, 2), sp.Rational(1, 1000), sp.Rational(1, 1000)),
        # 1 - r < 0 (eta lam > 2, reachable with the conditions unchecked): f' > 1, two iterates, no shortcut
        (40, sp.Rational(1, 25), sp.Rational(1, 100), sp.Rational(-1, 10)),
    ],
)
def test_thm43_recurrence_on_coarse_balls_contains_the_literal_iteration(T, q, c, one_minus_r) -> None:
    """The recurrence on 24-bit balls (each step rounds at 6e-8 relative, thousands of times): its enclosure must
    still contain the literal iteration at 60 digits. This is the test of the rounding the enclosure carries from
    step to step (at the 128 bits of an evaluation the decimal ends of a point would hide a radius left out), and of
    the case where a radius may not be carried (1 - r < 0)."""
    import flint

    from dptheory.papers.yeshokri22.kernels import thm43_log_S_arb

    with flint.ctx.workprec(24):
        ball = thm43_log_S_arb(T, *(flint.arb(x.p) / x.q for x in (q, c, one_minus_r)))
        lo, hi = mpmath.mpf(ball.lower().str(30, radius=False)), mpmath.mpf(ball.upper().str(30, radius=False))
    ref = _thm43_log_direct(T, q, c, one_minus_r)
    with mpmath.workdps(60):
        assert lo <= ref <= hi, (lo, ref, hi)
        assert hi - lo <= T * 2 * mpmath.mpf(2) ** -20 * abs(ref)  # about one rounding per step, not a blow-up


@pytest.mark.parametrize("eta, K", [("3", 1), ("5/2", 2), ("3", 50)])
def test_thm43_outside_its_conditions_every_kernel_follows_the_literal_iteration(
    eta: str, K: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """eta lam > 2 (only with check=False): 1 - r < 0, the iterates grow without bound and none of the shortcuts
    holds (they assume 0 < f' < 1). Each kernel must still give the recurrence's value: mpmath's and the certified
    enclosure's equal to the literal iteration of S; float64's too, or +inf where the value is beyond float64 (K = 50:
    about 4e749). Before, the mpmath and float64 kernels returned L* of the a < 1 shortcut, negative (-0.00137 at
    K = 50), and the ball kernel an enclosure missing the value."""
    import numpy as np

    thm = _get("yeshokri22.thm4_3")
    p = dict(alpha=2, eta=eta, lam=1, beta=4, S_g=1, sigma=2, n=50, b=2, K=K)
    ref = _thm43_direct(p)
    bv = thm.evaluate(p, dps=20, check=False)
    _check_enclosure(bv, ref, 20)
    with mpmath.workdps(30):
        assert abs(bv.value - ref) <= mpmath.mpf(10) ** -19 * abs(ref)
    got = _thm43_float64_loops(p, monkeypatch)  # as the theorem calls it, the pure-Python loop, the array loop
    if ref < mpmath.mpf(sys.float_info.max):
        assert got == pytest.approx([float(ref)] * 3, rel=1e-12)
    else:
        assert got == [np.inf] * 3
    from dptheory.papers.yeshokri22.kernels import thm43_limit_mp

    assert thm43_limit_mp(mpmath.mpf(1) / 25, mpmath.mpf(3) / 32, (1 - sp.Rational(eta)) ** 2) == mpmath.inf


def _thm43_float64_loops(p: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """log S_T / (alpha - 1) by the float64 kernel as the theorem calls it, by the pure-Python loop, and by the array
    loop (five copies of the combination, the compiled loop hidden), in that order."""
    import numpy as np

    from dptheory.papers.yeshokri22 import kernels as ys

    fl = {k: float(sp.Rational(v)) for k, v in p.items()}
    kernel = float(_get("yeshokri22.thm4_3").kernels().np({k: np.array([v]) for k, v in fl.items()})[0])
    N = int(p["n"]) // int(p["b"])
    q, one_minus_r = fl["b"] / fl["n"], fl["eta"] * fl["lam"] * (2 - fl["eta"] * fl["lam"])
    c = float((fl["alpha"] - 1) * ys.gaussian_step_rdp_np(fl["alpha"], fl["eta"], fl["S_g"], fl["sigma"], fl["b"]))
    python = ys._thm43_scalar_epochs(int(p["K"]), N, q, c, one_minus_r, compiled=False)[-1]
    with monkeypatch.context() as m:
        m.setattr(ys, "_thm43_c", None)
        five = [np.full(5, x) for x in (int(p["K"]), N, q, c, 1 - one_minus_r, one_minus_r)]
        arrays = ys.thm43_log_S_np_epochs(five[0].astype(np.int64), five[1].astype(np.int64), *five[2:])
    assert len({a[-1] for a in arrays}) == 1
    return [kernel, python / (fl["alpha"] - 1), arrays[0][-1] / (fl["alpha"] - 1)]


def test_thm43_outside_its_conditions_small_increments_stay_accurate_in_float64(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """eta lam = 10 (1 - r = -80, only with check=False) with a tiny c: log S grows from 1e-7 to about 1 in five
    steps. A log-sum-exp step loses the increment's relative accuracy while it is small (found by the slow contract
    of checks/test_contracts.py: 1.1e-9 relative); the float64 loops use the accurate forms until the exponent
    reaches 700. Every loop within 1e-13 of the literal iteration at 80 digits."""
    p = dict(alpha="316227766017/10000000000", eta=1, lam=10, beta="1/1000", S_g="1/100", sigma=100, b=3, n=16, K=1)
    ref = float(_thm43_direct(p))
    assert _thm43_float64_loops(p, monkeypatch) == pytest.approx([ref] * 3, rel=1e-13)


def test_thm43_with_no_step_is_zero_in_every_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """n < b (only with check=False): floor(n/b) = 0 steps, S stays 1, so the value is 0 (here also alpha < 1 and
    q = b/n > 1, so that no formula of a step may be evaluated). The float64 Python loop raised 'math domain error'
    from its linear-regime test (found by the slow contract of checks/test_contracts.py), and the array loop left
    such a combination's epochs unwritten (np.empty) beside combinations with steps."""
    import numpy as np

    from dptheory.papers.yeshokri22 import kernels as ys

    p = dict(alpha="1/10", eta="1/1000", lam="1/1000", beta="1/1000", S_g=100, sigma="1/10", b=5, n=2, K=1)
    bv = _get("yeshokri22.thm4_3").evaluate(p, dps=20, check=False, certify=True)
    assert bv.value == 0 and bv.enclosure is not None and bv.enclosure.lo == bv.enclosure.hi == 0
    assert _thm43_float64_loops(p, monkeypatch) == [0.0, 0.0, 0.0]
    monkeypatch.setattr(ys, "_thm43_c", None)
    rng = np.random.default_rng(5)
    for _ in range(20):  # beside combinations with steps, the no-step ones' epochs are still 0 (not leftover memory)
        N = np.where(rng.random(8) < 0.5, 0, 25)
        logS = ys.thm43_log_S_np_epochs(np.full(8, 3), N, np.full(8, 0.04), np.full(8, 0.2), np.full(8, 0.998),
                                        np.full(8, 0.002))
        assert all((a == 0).all() for a, n in zip(logS, N, strict=True) if n == 0)


THM43_BELOW_ORDER_ONE = [
    dict(alpha="1/10", eta="1/1000", lam=10, beta=4, S_g=100, sigma=3, b=21, n=98, K=14),
    dict(alpha="1/4", eta="1/10000", lam="1/3", beta=4, S_g="1/10", sigma="1/10", b=1, n=118, K=1),
    dict(alpha="999/1000", eta=1, lam="1/10", beta=6, S_g=100, sigma="1/5", b=7, n=14, K=3),
    dict(alpha="1/2", eta="1/100", lam=1, beta=4, S_g=4, sigma=2, b=2, n=50, K=40),
]


@pytest.mark.parametrize("p", THM43_BELOW_ORDER_ONE)
def test_thm43_below_order_one_every_kernel_follows_the_literal_iteration(
    p: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """alpha < 1 (only with check=False): c = (alpha - 1) G < 0, so L* < 0 and the iterates fall to it from 0, more
    slowly than the contraction factor rho of the a < 1 shortcut says; no shortcut holds, though 0 < f' < 1 still
    does. Every kernel must give the recurrence's value (the literal iteration of S at 80 digits): mpmath and the
    certified enclosure to 19 digits; float64 to 1e-12 relative by each of its loops (compiled or per-combination,
    pure Python, the array loop). Before, the a < 1 shortcut fired: mpmath gave 8.0e-4 for 6.2e-6 (the second
    point), float64 2855 for 1844 (the third), and the enclosure could not be narrowed."""


    thm = _get("yeshokri22.thm4_3")
    ref = _thm43_direct(p)
    bv = thm.evaluate(p, dps=20, check=False, certify=True)
    _check_enclosure(bv, ref, 20)
    with mpmath.workdps(30):
        assert abs(bv.value - ref) <= mpmath.mpf(10) ** -19 * abs(ref)
        assert abs(thm.evaluate(p, dps=20, check=False).value - ref) <= mpmath.mpf(10) ** -19 * abs(ref)
        assert abs(thm.kernels().mp(thm.kernel_args(thm.parse(p))) - ref) <= mpmath.mpf(10) ** -25 * abs(ref)
    assert _thm43_float64_loops(p, monkeypatch) == pytest.approx([float(ref)] * 3, rel=1e-12)


def test_thm43_below_order_one_too_long_to_iterate_is_refused() -> None:
    """alpha < 1 and K floor(n/b) = 2.5e9 steps: no shortcut holds (see above), so every kernel refuses (one-line
    NumericalFailure naming its step limit); before, float64 returned the a < 1 shortcut's L* unproved."""
    import numpy as np

    thm = _get("yeshokri22.thm4_3")
    p = dict(alpha="1/2", eta="1/100", lam=1, beta=4, S_g=4, sigma=2, b=2, n=50, K=10**8)
    with pytest.raises(NumericalFailure, match="limit of"):
        thm.evaluate(p, dps=20, check=False)
    with pytest.raises(NumericalFailure, match="limit of"):
        thm.kernels().np({k: np.array([float(sp.Rational(v))]) for k, v in p.items()})


def test_thm43_long_recurrence_fixed_point_shortcut_all_kernels() -> None:
    """eta = 1e-9, K = 1e12: 2.5e13 steps; the contraction bound rho^T L* puts L_T within rounding of L*
    from t = 0, so every kernel answers at once with the limit (independently: the closed-form limit)."""
    thm = _get("yeshokri22.thm4_3")
    p = dict(alpha=2, eta="1e-9", lam=1, beta=4, S_g=4, sigma=2, n=50, b=2, K=10**12)
    t0 = time.perf_counter()
    bv = thm.evaluate(p, dps=30, certify=True)
    mp_val = thm.evaluate(p, dps=30).value
    np_val = thm.kernels().np({k: __import__("numpy").array([float(sp.Rational(v))]) for k, v in p.items()})[0]
    assert time.perf_counter() - t0 < 30
    with mpmath.workdps(60):
        G = mpmath.mpf(2) * mpmath.mpf("1e-9") * 16 / (4 * 4 * 4)
        q = mpmath.mpf(2) / 50
        one_minus_r = mpmath.mpf("1e-9") * (2 - mpmath.mpf("1e-9"))
        limit = mpmath.log((1 - q) / (1 - q * mpmath.exp(G))) / one_minus_r
    _check_enclosure(bv, limit, 30)
    assert mp_val == pytest.approx(float(limit), rel=1e-25)
    assert np_val == pytest.approx(float(limit), rel=1e-12)


def test_thm43_step_guard_refuses_with_the_limit_named() -> None:
    """a = q e^c within 1e-7 of 1 and eta lam = 1e-9: neither shortcut applies; the kernels refuse instead of
    looping for 2.5e13 steps (the TODO's eta = 1e-9, K = 1e12 case)."""
    thm = _get("yeshokri22.thm4_3")
    # c = (alpha - 1) alpha eta S_g^2/(4 sigma^2 b^2) = S_g^2 1e-9/32 ~ log(n/b) = log 25 at S_g ~ 320942.4035
    p = dict(alpha=2, eta="1e-9", lam=1, beta=4, S_g="320942.4035", sigma=2, n=50, b=2, K=10**12)
    for certify in (True, False):
        with pytest.raises(NumericalFailure) as ei:
            thm.evaluate(p, dps=20, certify=certify)
        msg = str(ei.value)
        assert "\n" not in msg and "limit of" in msg and "steps" in msg


# ------------------------------------------------------------------------------ subsampled Gaussian (MTZ19)


def _sgm_integral(alpha: int, q: mpmath.mpf, z: mpmath.mpf) -> mpmath.mpf:
    """MTZ19's defining integral by mpmath quadrature (independent of both kernels)."""

    def f(x: mpmath.mpf) -> mpmath.mpf:
        return mpmath.npdf(x, 0, z) * ((1 - q) + q * mpmath.exp((2 * x - 1) / (2 * z**2))) ** alpha

    peak = alpha * 1.0  # the integrand's mass sits between 0 and about alpha (for q not tiny, z ~ 1)
    return mpmath.quad(f, [-mpmath.inf, -10 * z, 0, peak / 2, peak + 10 * z, mpmath.inf])


@pytest.mark.parametrize(("alpha", "q", "z", "T"),
                         [(2, "1/100", "11/10", 1000), (8, "1/4", "2", 3), (20, "1/2", "3", 1)])
def test_sgm_integer_orders_contain_quadrature(alpha: int, q: str, z: str, T: int) -> None:
    thm = _get("rdp.subsampled_gaussian")
    bv = thm.evaluate(dict(alpha=alpha, q=q, z=z, T=T), dps=30, certify=True)
    with mpmath.workdps(50):
        qm, zm = mpmath.mpf(sp.Rational(q).p) / sp.Rational(q).q, mpmath.mpf(sp.Rational(z).p) / sp.Rational(z).q
        A = _sgm_integral(alpha, qm, zm)
        ref = T * mpmath.log(A) / (alpha - 1)
    enc = bv.enclosure
    # quadrature is a second method, accurate to ~40 digits here: the 30-digit enclosure must contain it
    with mpmath.workdps(60):
        assert mpmath.mpf(enc.lo_str) - abs(ref) * mpmath.mpf(10) ** -38 <= ref
        assert ref <= mpmath.mpf(enc.hi_str) + abs(ref) * mpmath.mpf(10) ** -38
        assert mpmath.mpf(enc.hi_str) - mpmath.mpf(enc.lo_str) <= abs(ref) * mpmath.mpf(10) ** -29


@pytest.mark.parametrize("alpha", [2, 63, 256])
def test_sgm_arb_agrees_with_mp_kernel_at_60_digits(alpha: int) -> None:
    from dptheory.privacy import sgm

    p = dict(alpha=alpha, q="1/1000", z="1/2", T=10)
    bv = _get("rdp.subsampled_gaussian").evaluate(p, dps=50, certify=True)
    with mpmath.workdps(60):
        ref = sgm.rdp_mp(alpha, mpmath.mpf(1) / 1000, mpmath.mpf(1) / 2, 10)
    _check_enclosure(bv, ref, 50)


def test_sgm_order_above_the_term_cap_is_not_certified_and_says_why() -> None:
    """Fractional orders are certified (tests/test_sgm_arb_frac.py); an order above MAX_ORDER is not."""
    from dptheory.privacy.sgm import arb as sgm_arb

    thm = _get("rdp.subsampled_gaussian")
    big = sgm_arb.MAX_ORDER + sp.Rational(1, 2)
    with pytest.raises(NumericalFailure, match="above"):
        thm.evaluate(dict(alpha=str(big), q="0.01", z=1000, T=1), dps=20, certify=True)


def test_composition_baseline_certified_equals_sgm_at_its_z() -> None:
    """yeshokri22.composition is rdp.subsampled_gaussian at q = b/n, z^2 = 2 sigma^2 b^2/(eta S_g^2),
    T = K floor(n/b)."""
    p = dict(alpha=15, eta="1/50", S_g=4, sigma=2, n=50, b=2, K=4)
    comp = _get("yeshokri22.composition").evaluate(p, dps=40, certify=True)
    z = sp.sqrt(sp.Rational(2) * 4 * 4 / (sp.Rational(1, 50) * 16))  # = sqrt(10), exact
    with mpmath.workdps(80):
        A = mpmath.fsum(
            mpmath.binomial(15, k) * (1 - mpmath.mpf(1) / 25) ** (15 - k) * (mpmath.mpf(1) / 25) ** k
            * mpmath.exp(k * (k - 1) / (2 * mpmath.mpf(sp.N(z**2, 90))))
            for k in range(16)
        )
        ref = 4 * 25 * mpmath.log(A) / 14
    _check_enclosure(comp, ref, 40)


# ------------------------------------------------------------------------------------------- WBK19 (WOR)


def _wor_direct(alpha: int, q: mpmath.mpf, z: mpmath.mpf) -> mpmath.mpf:
    """log B(alpha) of WBK19 Thm 9 written out term by term (Gaussian eps(j) = j/(2 z^2))."""
    e2 = 2 / (2 * z**2)
    B = 1 + q**2 * mpmath.binomial(alpha, 2) * min(4 * (mpmath.exp(e2) - 1), 2 * mpmath.exp(e2))
    for j in range(3, alpha + 1):
        B += 2 * q**j * mpmath.binomial(alpha, j) * mpmath.exp(j * (j - 1) / (2 * z**2))
    return mpmath.log(B)


@pytest.mark.parametrize(("alpha", "q", "z", "T"), [(2, "1/100", "11/10", 1000), (40, "1/1000", "1/2", 10),
                                                     ("5/2", "1/3", "3", 1), ("7.25", "1/20", "1", 7)])
def test_wor_certified_contains_direct_sum(alpha: Any, q: str, z: str, T: int) -> None:
    bv = _get("rdp.sampled_wor_gaussian").evaluate(dict(alpha=alpha, q=q, z=z, T=T), dps=40, certify=True)
    with mpmath.workdps(80):
        a = sp.Rational(alpha)
        qm = mpmath.mpf(sp.Rational(q).p) / sp.Rational(q).q
        zm = mpmath.mpf(sp.Rational(z).p) / sp.Rational(z).q
        f = int(sp.floor(a))
        t = mpmath.mpf(a.p) / a.q - f
        K = _wor_direct(f, qm, zm) if t == 0 else (1 - t) * _wor_direct(f, qm, zm) + t * _wor_direct(f + 1, qm, zm)
        ref = T * K / (mpmath.mpf(a.p) / a.q - 1)
    _check_enclosure(bv, ref, 40)


# -------------------------------------------------------------- tiny values keep their relative digits
_TINY_WOR = {"T": 1, "alpha": "2", "q": "1/100000", "z": "1e160"}


def _tiny_wor_reference() -> mpmath.mpf:
    """WBK19 Thm 9 at alpha = 2 has the single j = 2 term: log(1 + q^2 min(4 (e^{1/z^2} - 1), 2 e^{1/z^2})),
    here 4 q^2 expm1(1/z^2) ~ 4e-330 (written out with mpmath at 60 digits, independent of the kernels)."""
    with mpmath.workdps(60):
        q, z = mpmath.mpf(1) / 100000, mpmath.mpf(10) ** 160
        return mpmath.log1p(4 * q**2 * mpmath.expm1(1 / z**2))


def test_wor_tiny_value_is_certified_with_relative_digits() -> None:
    """Found by the API fuzz suite: the ball kernel summed 1 + 4e-330 and took log, so the enclosure only had
    an absolute radius and ``evaluate`` printed 0.0. It now sums B - 1 and takes log1p."""
    v = REGISTRY.get("rdp.sampled_wor_gaussian").evaluate(_TINY_WOR, dps=30)
    assert v.enclosure is not None and v.enclosure.relative
    ref = _tiny_wor_reference()
    assert v.enclosure.contains(ref)
    assert abs(v.value / ref - 1) < mpmath.mpf("1e-29")


def test_absolute_only_enclosure_takes_the_mpmath_digits(monkeypatch: pytest.MonkeyPatch) -> None:
    """When the ball still contains 0 (only an absolute radius reached), ``evaluate`` must not print the
    ball's midpoint 0: the digits come from the mpmath kernel, kept only inside the certified enclosure.
    Simulated with the old ``log(1 + x)`` ball kernel."""
    from dptheory.privacy.wor import arb as wor_arb

    real = wor_arb.log_b_wor_arb

    def lossy(k: int, q: Any, z2: Any) -> Any:
        return (1 + real(k, q, z2).expm1()).log()  # the same value, summed as 1 + x: absolute radius only

    monkeypatch.setattr(wor_arb, "log_b_wor_arb", lossy)
    v = REGISTRY.get("rdp.sampled_wor_gaussian").evaluate(_TINY_WOR, dps=30)
    assert v.enclosure is not None and not v.enclosure.relative
    assert abs(v.value / _tiny_wor_reference() - 1) < mpmath.mpf("1e-29")
