"""kl divergence, its inverses and Maurer's xi(n), each against an independent computation.

Independent computations (none calls the kernel under test):
* plain bisection on the defining formula of kl at 40 digits (written here, not the package's);
* the team survey's test vectors (``tests/data/maxinfo_known_values.csv``, 10 digits; provenance in
  ``docs/derivations/pacbayes_maxinfo.md``);
* the defining binomial sum of xi(n) at 40 digits (vs the package's Q series), and the exact
  moment E exp(n kl(p_hat||p)) of Bernoulli samples, which equals xi(n) for every p.
Tolerances: absolute 1e-14 for the float64 inverses (the stated bracket width), relative 1e-30 for
the mpmath paths at 40 digits, 5e-11 absolute against 10-digit vectors.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dptheory.numerics import kl as K
from dptheory.testing.oracles import xi_direct_mp

DATA = Path(__file__).parent / "data" / "maxinfo_known_values.csv"


def _rows(key: str) -> list[dict]:
    with DATA.open() as fh:
        return [r for r in csv.DictReader(fh) if r["key"] == key]


def _kl40(q, p):
    if (p == 0 and q > 0) or (p == 1 and q < 1):
        return mpmath.inf
    a = 0 if q == 0 else q * mpmath.log(q / p)
    b = 0 if q == 1 else (1 - q) * (mpmath.log1p(-q) - mpmath.log1p(-p))
    return a + b


def _bracket40(q: float, c: float, side: str) -> tuple[mpmath.mpf, mpmath.mpf]:
    """A bracket [lo, hi] of the inverse by bisection on the defining formula (width <= 2^-200)."""
    with mpmath.workdps(40):
        qq, cc = mpmath.mpf(q), mpmath.mpf(c)
        if cc == 0:
            return qq, qq  # {p: kl(q||p) <= 0} = {q}
        lo, hi = (qq, mpmath.mpf(1)) if side == "upper" else (mpmath.mpf(0), qq)
        if side == "lower" and qq == 1:
            return mpmath.exp(-cc), mpmath.exp(-cc)  # kl(1||p) = -ln p
        if side == "lower" and qq > 0:
            # kl(q||p) >= q ln(q/p) + (1-q) ln(1-q): the root is <= q exp(-x), x = (c + (1-q) ln(1-q))/q
            x = (cc + (1 - qq) * mpmath.log1p(-qq)) / qq
            if x > 10**4:
                return mpmath.mpf(0), qq * mpmath.exp(-(10**4))
            hi = min(qq, qq * mpmath.exp(-x) * 2)
            lo = qq * mpmath.exp(-x - 1) / 4  # kl(q||p) >= q ln(q/p) - q: below the root
            while _kl40(qq, lo) <= cc:
                lo /= 4
        for _ in range(200):
            mid = (lo + hi) / 2
            inside = _kl40(qq, mid) <= cc
            if side == "upper":
                lo, hi = (mid, hi) if inside else (lo, mid)
            else:
                lo, hi = (lo, mid) if inside else (mid, hi)
        return lo, hi


def _bisect40(q: float, c: float, side: str) -> mpmath.mpf:
    lo, hi = _bracket40(q, c, side)
    return hi if side == "upper" else lo


@pytest.mark.parametrize("side", ["upper", "lower"])
def test_known_vectors(side):
    rows = _rows(f"pacbayes.kl_inv_{side}")
    assert rows, "known values missing"
    f = K.kl_inv_upper if side == "upper" else K.kl_inv_lower
    fmp = K.kl_inv_upper_mp if side == "upper" else K.kl_inv_lower_mp
    for r in rows:
        p = json.loads(r["params"])
        got = f(float(p["q"]), float(p["c"]))
        with mpmath.workdps(40):
            ref = mpmath.mpf(r["value"])
        if r["method"] == "note":
            assert abs(got - float(ref)) <= 5e-11, (p, got, r["value"])  # 10 stated digits
        else:
            # the safe side, within the bracket width 1e-14
            assert (got >= ref if side == "upper" else got <= ref), (p, got, r["value"])
            assert abs(got - float(ref)) <= 1e-14
            with mpmath.workdps(40):
                gm = fmp(mpmath.mpf(p["q"]), mpmath.mpf(p["c"]))
                assert abs(gm - ref) <= abs(ref) * mpmath.mpf(10) ** -30


qs = st.one_of(st.floats(0, 1), st.floats(1e-12, 1e-3), st.floats(0.999, 1.0), st.sampled_from([0.0, 1.0, 0.5]))
cs = st.one_of(st.floats(0, 30), st.floats(1e-12, 1e-4), st.sampled_from([0.0, 1e-300]))


@settings(max_examples=80, deadline=None, derandomize=True)
@given(q=qs, c=cs)
def test_inverses_safe_and_within_tol(q, c):
    up, lo = K.kl_inv_upper(q, c), K.kl_inv_lower(q, c)
    (ulo, uhi), (llo, lhi) = _bracket40(q, c, "upper"), _bracket40(q, c, "lower")
    assert q <= up <= 1.0 and 0.0 <= lo <= q
    assert up >= ulo and up - uhi <= 1e-14  # safe side (bracket width <= 2^-200), within tol
    assert lo <= lhi and llo - lo <= 1e-14


def test_closed_forms_and_edges():
    assert K.kl_inv_upper(0.0, 0.1) == pytest.approx(-math.expm1(-0.1), rel=1e-15)
    assert K.kl_inv_upper(0.0, 0.1) >= -math.expm1(-0.1)  # rounded to the safe side
    assert K.kl_inv_lower(1.0, 0.7) <= math.exp(-0.7) and K.kl_inv_lower(1.0, 0.7) == pytest.approx(math.exp(-0.7))
    assert K.kl_inv_upper(0.3, 0.0) == 0.3 and K.kl_inv_lower(0.3, 0.0) == 0.3
    assert K.kl_inv_upper(0.3, math.inf) == 1.0 and K.kl_inv_lower(0.3, math.inf) == 0.0
    assert K.kl_inv_upper(1.0, 2.0) == 1.0 and K.kl_inv_lower(0.0, 2.0) == 0.0


@pytest.mark.parametrize("q, c", [(-0.1, 0.1), (1.5, 0.1), (0.2, -1.0), (0.2, float("nan"))])
def test_bad_input_is_a_clear_error(q, c):
    with pytest.raises(K.KLDomainError, match=r"q must lie in \[0, 1\]|c must be"):
        K.kl_inv_upper(q, c)
    with pytest.raises(K.KLDomainError):
        K.kl_inv_lower(q, c)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(q=st.floats(0, 1), p=st.floats(1e-9, 1 - 1e-9))
def test_kl_float_vs_mp(q, p):
    got = K.kl_bernoulli(q, p)
    with mpmath.workdps(40):
        ref = _kl40(mpmath.mpf(q), mpmath.mpf(p))
    assert abs(got - float(ref)) <= 1e-13 * max(float(ref), 1e-300) + 1e-300  # relative 1e-13, even near p = q


def test_kl_np_matches_scalar():
    rng = np.random.default_rng(0)
    q = rng.uniform(0, 1, 500)
    p = rng.uniform(0, 1, 500)
    q[:5] = [0, 1, 0.5, 0.2, 0.2]
    p[:5] = [0.3, 0.3, 0.5, 0.2000001, 1e-12]
    ref = np.array([K.kl_bernoulli(a, b) for a, b in zip(q, p, strict=True)])
    np.testing.assert_allclose(K.kl_bernoulli_np(q, p), ref, rtol=1e-12, atol=0)
    np.testing.assert_array_equal(K.kl_inv_upper_np(q, p), [K.kl_inv_upper(a, b) for a, b in zip(q, p, strict=True)])


# ----------------------------------------------------------------------------- xi(n)
def test_xi_known_values():
    for r in _rows("xi"):
        n = json.loads(r["params"])["n"]
        with mpmath.workdps(40):
            ref = mpmath.mpf(r["value"])
        d = int(r["dps"])
        # the stated digits, or float64's ~1e-15 relative for the 35-digit oracle
        assert abs(K.xi(n) - float(ref)) <= float(ref) * max(10.0 ** (-(d - 1)), 1e-14)
        with mpmath.workdps(40):
            if r["method"] == "binomial-sum":
                assert abs(K.xi_mp(n) - ref) <= ref * mpmath.mpf(10) ** -32


@pytest.mark.parametrize("n", [*range(1, 41), 97, 500, 2048])
def test_xi_q_series_equals_binomial_sum(n):
    with mpmath.workdps(40):
        a, b = K.xi_mp(n), xi_direct_mp(n)
        assert abs(a - b) <= b * mpmath.mpf(10) ** -32
    assert abs(K.xi(n) - float(b)) <= 1e-13 * float(b)


@pytest.mark.parametrize("n", [1, 3, 8, 25, 120])
@pytest.mark.parametrize("p", ["0.01", "0.3", "0.5", "0.97"])
def test_bernoulli_moment_equals_xi(n, p):
    """E exp(n kl(k/n || p)) over k ~ Bin(n, p) equals xi(n) for every p (the moment Maurer's bound uses)."""
    with mpmath.workdps(40):
        pp = mpmath.mpf(p)
        mom = mpmath.fsum(mpmath.binomial(n, k) * pp**k * (1 - pp) ** (n - k)
                          * mpmath.exp(n * _kl40(mpmath.mpf(k) / n, pp)) for k in range(n + 1))
        assert abs(mom - K.xi_mp(n)) <= mom * mpmath.mpf(10) ** -30


def test_xi_at_most_two_sqrt_n_everywhere_checked():
    """xi(n) <= 2 sqrt(n) for 1 <= n <= 20000 (Maurer proves n >= 8); equality only at n = 1; -> sqrt(pi/2)."""
    ns = np.arange(1, 20001)
    xs = K.xi_np(ns)
    ratio = xs / (2 * np.sqrt(ns))
    assert ratio[0] == 1.0 and np.all(ratio[1:] < 1.0)
    assert np.all(xs >= np.sqrt(ns))
    assert abs(xs[-1] / math.sqrt(20000) - math.sqrt(math.pi / 2)) < 0.01


def _q_series_mp(n):
    """Ramanujan's Q(n) by its defining series, no stopping shortcuts beyond the terms' size (oracle)."""
    total, t, k = mpmath.mpf(0), mpmath.mpf(1), 1
    while t > mpmath.mpf(10) ** -(mpmath.mp.dps + 10) * (total + 1):
        total += t
        t *= 1 - mpmath.mpf(k) / n
        k += 1
    return total


@pytest.mark.parametrize("n", [K.XI_SERIES_MAX + 1, 300_000, 10**6])
def test_xi_integral_form_equals_the_q_series(n):
    """Above XI_SERIES_MAX, xi_mp integrates Q(n) = int_0^inf e^-x (1 + x/n)^(n-1) dx: equal to the series."""
    with mpmath.workdps(40):
        got = K.xi_mp(n)
        ref = 1 + _q_series_mp(n)
        assert abs(got - ref) <= ref * mpmath.mpf(10) ** -36


@pytest.mark.parametrize("n", [10**9, 10**20, 10**300], ids=["1e9", "1e20", "1e300"])
def test_xi_at_huge_n_matches_ramanujans_expansion(n):
    """Q(n) = sqrt(pi n/2) - 1/3 + (1/12) sqrt(pi/(2n)) - 4/(135 n) + O(n^-3/2) (Ramanujan; Knuth, TAOCP 1.2.11.3):
    the series would need ~16 sqrt(n) terms (it hung at n = 1e20, issue 12); the integral takes 0.1 s at any n."""
    with mpmath.workdps(40):
        nn = mpmath.mpf(n)
        ref = 1 + mpmath.sqrt(mpmath.pi * nn / 2) - mpmath.mpf(1) / 3 + mpmath.sqrt(mpmath.pi / (2 * nn)) / 12 - 4 / (
            135 * nn)
        got = K.xi_mp(n)
        # the next term is (1/288) sqrt(pi/2) n^-3/2, relative ~n^-2; and 40 digits of rounding
        assert abs(got - ref) <= ref * max(10 * nn**-2, mpmath.mpf(10) ** -38)
    assert abs(K.xi(n) - float(ref)) <= 1e-15 * float(ref)
    assert K.xi_np(np.array([float(n)]))[0] == K.xi(int(float(n)))


def test_xi_rejects_bad_n():
    with pytest.raises(Exception, match="whole number n >= 1"):
        K.xi(0)
    with pytest.raises(Exception, match="whole number n >= 1"):
        K.xi_np(np.array([2.5]))
