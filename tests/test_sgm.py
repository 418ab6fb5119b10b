"""Tests of the subsampled-Gaussian RDP kernels (:mod:`dptheory.privacy.sgm`).

Independent references used here:
* the quadrature oracle ``log_a_quad_mp`` (a direct ``mpmath.quad`` of the defining integral of
  MTZ19 Sec. 3.3). It shares no code path with the series, and it is itself checked against the
  exact integer-order sum;
* dp-accounting 0.6.0 (a declared test dependency) at integer orders;
* the reference values of ``docs/peers.md``, section 2, cases A-D and B10 (independent mpmath
  computations, quoted to 12 significant digits; provenance there);
* ``tests/data/sgm_known_values.csv``: the same cases, re-derived here by quadrature at 50 digits
  (regenerate with ``python tests/test_sgm.py``).

Tolerances are relative (or in ``log A``) and stated at each assertion.

Known fault of an oracle (documented, not hidden): dp-accounting's fractional-order series
(``_compute_log_a_frac``) adds the *absolute values* of the MTZ19 series terms. It has no sign
handling, so its RDP at fractional orders is an upper bound, not the exact value: +15% at
alpha = 1.5 in case A, +0.75% at alpha = 2.5 (``docs/peers.md``, section 3). ``test_dp_accounting_fractional_fault``
shows the excess, and reproduces it by summing absolute values of our own terms with dp-accounting's
stopping rule.
"""

from __future__ import annotations

import csv
import itertools
import math
from decimal import Decimal
from pathlib import Path

import dp_accounting
import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dptheory.core.errors import NumericalFailure
from dptheory.numerics import logspace
from dptheory.privacy import sgm
from dptheory.privacy.sgm import float64 as sgm_float64
from dptheory.privacy.sgm import log_a_mp, rdp_mp, rdp_np
from dptheory.privacy.sgm import mp as sgm_mp
from dptheory.privacy.sgm import terms as sgm_terms
from dptheory.testing.oracles import log_a_quad_mp

DATA = Path(__file__).parent / "data" / "sgm_known_values.csv"

# docs/peers.md section 2: cases A-D and B10 (case B with z = 10). q and z as floats exactly as used there.
CASES = {
    "A": (0.04, 1.0, 2500),
    "B": (2 / 50, 1.118033988749895, 5000),
    "C": (2048 / 60000, 3.08, 29 * 1200),
    "D": (1.0, 2.0, 100),
    "B10": (0.04, 10.0, 5000),
}
ORDERS7 = ("1.5", "2", "2.5", "10", "15", "32", "64")
# Reference RDP after T steps (docs/peers.md section 2, mpmath at 50 digits, quoted to 12 significant digits).
PEERS_REFERENCE = {
    "A": ("4.93209138883", "6.86369661897", "8.99276191287", "3567.09543068", "10128.0646511", "31693.2236778",
          "71825.0772702"),
    "B": ("7.13401880682", "9.79472749172", "12.6312358741", "2240.83212337", "12757.7851727", "47386.4473576",
          "111650.15454"),
    "C": ("3.37395451622", "4.50711382796", "5.64458170727", "23.2473719048", "35.5871508397", "81.8538016664",
          "331.449099114"),
    "D": ("18.75", "25", "31.25", "125", "187.5", "400", "800"),
    "B10": ("0.0602888507302", "0.0804006902428", "0.100520317678", "0.403253365943", "0.606059707247",
            "1.30158211802", "2.63659874775"),
}


def _rel(a: float | mpmath.mpf | np.ndarray, b: float | mpmath.mpf) -> float:
    a = float(a) if isinstance(a, np.ndarray) else a
    return float(abs(mpmath.mpf(a) - mpmath.mpf(b)) / abs(mpmath.mpf(b)))


def _dp_accounting_rdp(orders: list[float], q: float, z: float, T: int) -> np.ndarray:
    acc = dp_accounting.rdp.RdpAccountant(orders=orders)
    acc.compose(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(z)), T)
    return acc.rdp


# ------------------------------------------------------------------------------------------------
# known values
# ------------------------------------------------------------------------------------------------


def _known_rows() -> list[dict[str, str]]:
    with DATA.open(newline="") as fh:
        return list(csv.DictReader(fh))


def _case_of(row: dict[str, str]) -> str:
    return row["source"].split()[4]  # "docs/peers.md section 2 case <X> ..."


@pytest.mark.parametrize("row", _known_rows(), ids=lambda r: f"{_case_of(r)}-a{r['alpha']}")
def test_known_values_csv(row: dict[str, str]) -> None:
    dps = int(row["dps"])
    with mpmath.workdps(dps):
        got = rdp_mp(mpmath.mpf(row["alpha"]), float(row["q"]), float(row["z"]), int(row["T"]))
        want = mpmath.mpf(row["rdp"])
        # CSV values: quadrature at 50 digits (error estimate < 1e-53 of A - 1), written with 45 significant
        # digits (rounding up to 5e-45 relative); the series kernel must agree to 1e-(dps-10) relative.
        assert _rel(got, want) < 10.0 ** (-(dps - 10))


@pytest.mark.parametrize("case", sorted(PEERS_REFERENCE))
def test_peers_reference_values(case: str) -> None:
    q, z, T = CASES[case]
    for alpha, ref in zip(ORDERS7, PEERS_REFERENCE[case], strict=True):
        with mpmath.workdps(30):
            got = rdp_mp(mpmath.mpf(alpha), q, z, T)
        # The reference is quoted to 12 significant digits: allow one unit in its last digit.
        ulp = 10.0 ** Decimal(ref).as_tuple().exponent
        assert abs(float(got) - float(ref)) <= ulp, (case, alpha, got, ref)


def test_csv_agrees_with_peers() -> None:
    """The re-derived CSV and the docs/peers.md table are independent computations of the same numbers."""
    rows = {(_case_of(r), r["alpha"]): r["rdp"] for r in _known_rows()}
    for case, refs in PEERS_REFERENCE.items():
        for alpha, ref in zip(ORDERS7, refs, strict=True):
            ulp = 10.0 ** Decimal(ref).as_tuple().exponent
            assert abs(float(rows[(case, alpha)]) - float(ref)) <= ulp  # one unit in the 12th digit


# ------------------------------------------------------------------------------------------------
# integer orders: exact sum vs dp-accounting
# ------------------------------------------------------------------------------------------------

INT_CASES = [CASES["A"], CASES["B"], CASES["C"], CASES["B10"], (1e-3, 0.7, 1000), (0.5, 5.0, 1), (0.9, 0.5, 10)]


@pytest.mark.parametrize("q,z,T", INT_CASES)
def test_integer_orders_match_dp_accounting(q: float, z: float, T: int) -> None:
    orders = [float(a) for a in [*range(2, 129), 256, 512, 1024]]
    ref = _dp_accounting_rdp(orders, q, z, T)
    ours = rdp_np(np.array(orders), q, z, T)
    # dp-accounting's log-space binomial sum is exact up to rounding (docs/peers.md: within 6e-13): 1e-10 relative.
    np.testing.assert_allclose(ours, ref, rtol=1e-10, atol=0)
    with mpmath.workdps(30):
        for a in (2, 3, 17, 64, 1024):
            assert _rel(ref[orders.index(float(a))], rdp_mp(a, q, z, T)) < 1e-10


def test_integer_order_exact_sum_small_case() -> None:
    """alpha = 2 by hand: A - 1 = q^2 (e^{1/z^2} - 1)."""
    with mpmath.workdps(40):
        q, z = mpmath.mpf("0.25"), mpmath.mpf(3)
        want = mpmath.log1p(q**2 * mpmath.expm1(1 / z**2))
        assert _rel(log_a_mp(2, q, z), want) < 1e-38  # exact formula; only rounding at 40 digits


# ------------------------------------------------------------------------------------------------
# fractional orders vs quadrature
# ------------------------------------------------------------------------------------------------

FRAC_CASES = [
    (1.5, 0.04, 1.0),
    (2.5, 2048 / 60000, 3.08),
    (1.0001, 0.04, 1.0),
    (1.01, 1e-6, 100.0),
    (5.3, 0.6, 0.5),
    (30.5, 0.01, 2.0),
    (3.25, 0.99, 1.5),
    (100.25, 1e-3, 5.0),
    (1.5, 1e-4, 1.0),  # the dp-accounting test triple where opacus loses precision (docs/peers.md section 3)
    (9999.5, 1e-6, 100.0),  # long head (pruned), log A ~ 5e-9
    (300.5, 0.2, 50.0),
    (1.7, 1e-6, 0.3),
]


@pytest.mark.parametrize("alpha,q,z", FRAC_CASES)
def test_fractional_orders_match_quadrature(alpha: float, q: float, z: float) -> None:
    with mpmath.workdps(30):
        series = log_a_mp(alpha, q, z)
        quad = log_a_quad_mp(alpha, q, z)
    # two independent methods at 30 digits: 1e-25 relative in log A (tiny log A included)
    assert _rel(series, quad) < 1e-25, (series, quad)


@pytest.mark.parametrize("alpha,q,z", [(2, 0.04, 1.0), (7, 0.3, 0.8), (20, 1e-3, 4.0)])
def test_quadrature_oracle_matches_exact_integer_sum(alpha: int, q: float, z: float) -> None:
    with mpmath.workdps(30):
        assert _rel(log_a_quad_mp(alpha, q, z), log_a_mp(alpha, q, z)) < 1e-25  # validates the oracle


@pytest.mark.parametrize("n", [2, 3, 10])
@pytest.mark.parametrize("q,z", [(0.04, 1.0), (0.7, 0.4), (1e-5, 30.0)])
def test_integer_and_fractional_paths_meet(n: int, q: float, z: float) -> None:
    """The exact sum at alpha = n and the signed series at n -+ 1e-30 are independent formulas.

    log A is smooth in alpha: each side differs from the sum by about |d log A / d alpha| * 1e-30, and
    their midpoint only by the curvature times 1e-60.
    """
    with mpmath.workdps(45):
        exact = log_a_mp(n, q, z)
        eps = mpmath.mpf(10) ** -30
        below, above = log_a_mp(n - eps, q, z), log_a_mp(n + eps, q, z)
        assert _rel(below, exact) < 1e-28 and _rel(above, exact) < 1e-28  # first order: ~1e-30 * slope
        assert below < exact < above  # log A is increasing in alpha
        assert _rel((below + above) / 2, exact) < 1e-40  # second order, plus rounding at 45 digits


# ------------------------------------------------------------------------------------------------
# special cases, monotonicity, precision, domain
# ------------------------------------------------------------------------------------------------


def test_q1_is_the_gaussian_closed_form() -> None:
    alphas = [mpmath.mpf("1.5"), 2, mpmath.mpf("2.75"), 64]
    with mpmath.workdps(40):
        for a in alphas:
            want = mpmath.mpf(100) * a / (2 * mpmath.mpf(2) ** 2)  # Mironov 2017 Prop 7: T alpha / (2 z^2)
            assert rdp_mp(a, 1.0, 2.0, 100) == want
            assert _rel(log_a_quad_mp(a, 1.0, 2.0) / (a - 1) * 100, want) < 1e-38
    np.testing.assert_array_equal(rdp_np([1.5, 2.0, 2.75, 64.0], 1.0, 2.0, 100), [18.75, 25.0, 34.375, 800.0])
    # continuity at q -> 1: q = 1 - 2^-40 differs from the Gaussian by O(1e-12) relative
    with mpmath.workdps(30):
        for a in (1.5, 2, 10):
            near = rdp_mp(a, 1 - 2.0**-40, 2.0, 100)
            assert 0 < _rel(near, rdp_mp(a, 1.0, 2.0, 100)) < 1e-10


def test_q0_is_zero() -> None:
    assert rdp_mp(mpmath.mpf("2.5"), 0, 1.0, 10) == 0
    assert log_a_quad_mp(3, 0.0, 1.0) == 0
    np.testing.assert_array_equal(rdp_np([1.5, 2.0, 100.0], 0.0, 1.0, 10), 0.0)


def test_q0_through_the_registry_is_zero_like_the_peers() -> None:
    """q = 0 is accepted by rdp.subsampled_gaussian (issue 12, item 4): dp-accounting gives 0 there too."""
    import dptheory
    from dptheory.core import ConditionViolated

    t = dptheory.get("rdp.subsampled_gaussian")
    orders = [1.5, 2.0, 10.0, 64.0]
    np.testing.assert_array_equal(_dp_accounting_rdp(orders, 0.0, 1.0, 10), 0.0)
    for a in orders:
        assert t.evaluate(alpha=a, q=0, z=1, T=10).value == 0
        assert t.evaluate_np({"alpha": a, "q": 0.0, "z": 1.0, "T": 10.0}) == 0.0
    with pytest.raises(ConditionViolated, match="q >= 0"):
        t.evaluate(alpha=2, q="-1e-30", z=1, T=1)


def _small_q_series(a: mpmath.mpf, q: mpmath.mpf, z: mpmath.mpf, kmax: int) -> mpmath.mpf:
    """log(1 + sum_{k=2}^{kmax} C(a, k) q^k E[w^k]), ``w = e^Y - 1`` with ``E[e^{jY}] = e^{j(j-1)/(2 z^2)}``.

    The binomial expansion of ``E[(1 + q w)^a]`` (``E[w] = 0``); asymptotic as ``q -> 0`` with an error of the
    size of the first left-out term (the region ``q w > 1`` has probability ``exp(-z^2 log(1/q)^2/2)``). An
    oracle independent of the series and of the quadrature, for q far below what the quadrature can take.
    """
    total = mpmath.mpf(0)
    for k in range(2, kmax + 1):
        # sum_j C(k, j) (-1)^(k-j) = 0, so expm1 in place of exp keeps the digits of E[w^2] = expm1(1/z^2)
        moment = mpmath.fsum(mpmath.binomial(k, j) * (-1) ** (k - j) * mpmath.expm1(j * (j - 1) / (2 * z * z))
                             for j in range(k + 1))
        total += mpmath.binomial(a, k) * q**k * moment
    return mpmath.log1p(total)


@pytest.mark.parametrize("alpha", ["1.0000001", "1.5", "2.5", "7.3", "40.5"])
@pytest.mark.parametrize("q, z", [("1e-40", "0.5"), ("1e-300", "1"), ("1e-400", "0.3"), ("1e-700", "2"),
                                  ("0.04", "1e150"), ("1e-300", "1e100")])
def test_fractional_orders_at_tiny_q_and_huge_z(alpha: str, q: str, z: str) -> None:
    """Where A - 1 is below 1e-80 the quadrature oracle fails and the old mp kernel needed log10(1/(A - 1))
    extra digits (8 s and more at q = 1e-400); the kernel sums A - 1 (module docstring, item 4): 30 digits
    against the small-q series (first left-out term below 1e-37 relative at these points)."""
    with mpmath.workdps(30):
        am, qm, zm = mpmath.mpf(alpha), mpmath.mpf(q), mpmath.mpf(z)  # the oracle uses the same (rounded) inputs
        got = log_a_mp(am, qm, zm)
    with mpmath.workdps(60):
        # for huge z the k-th term is (q/z)^(k-2) smaller than the second: the second alone is exact to 1e-150
        ref = _small_q_series(am, qm, zm, 2 if zm > 1e10 else 8)
        assert abs(got - ref) <= mpmath.mpf(10) ** -29 * ref


@pytest.mark.parametrize("q,z", [(0.04, 1.0), (2048 / 60000, 3.08), (1e-5, 50.0), (0.6, 0.35)])
def test_monotone_in_alpha(q: float, z: float) -> None:
    """RDP is nondecreasing in alpha (van Erven and Harremoes 2014, Thm 3), across both paths."""
    alphas = np.unique(np.concatenate([1 + np.geomspace(1e-3, 199, 50), np.arange(2.0, 201.0, 7.0)]))
    r = rdp_np(alphas, q, z, 1000)
    assert np.all(np.diff(r) >= -1e-12 * r[1:])  # float64 slack: 1e-12 relative
    with mpmath.workdps(30):
        vals = [rdp_mp(mpmath.mpf(a), q, z, 1000) for a in ("1.001", "1.5", "2", "2.5", "3", "7.5", "40")]
    assert all(b > a for a, b in itertools.pairwise(vals))


def test_precision_is_read_and_scoped() -> None:
    with mpmath.workdps(20):
        low = rdp_mp(mpmath.mpf("2.5"), 0.04, 1.0, 2500)
        assert mpmath.mp.dps == 20
    with mpmath.workdps(60):
        high = rdp_mp(mpmath.mpf("2.5"), 0.04, 1.0, 2500)
        high_int = log_a_mp(37, 0.04, 1.0)
    with mpmath.workdps(20):
        assert _rel(low, high) < 1e-19  # the 20-digit result is good to 20 digits
        assert _rel(log_a_mp(37, 0.04, 1.0), high_int) < 1e-19


@pytest.mark.parametrize(
    "args",
    [(1.0, 0.1, 1.0), (0.5, 0.1, 1.0), (math.inf, 0.1, 1.0), (math.nan, 0.1, 1.0), (2, -0.1, 1.0), (2, 1.1, 1.0),
     (2, math.nan, 1.0), (2, 0.1, 0.0), (2, 0.1, -1.0), (2, 0.1, math.inf)],
)
def test_domain_errors(args: tuple[float, float, float]) -> None:
    with pytest.raises(ValueError):
        log_a_mp(*args)
    with pytest.raises(ValueError):
        rdp_mp(*args, 10)
    with pytest.raises(ValueError):
        rdp_np(*args, 10)


def test_domain_errors_name_the_argument() -> None:
    with pytest.raises(ValueError, match="T must be finite and >= 0"):
        rdp_np(2.0, 0.1, 1.0, [10, -1])
    with pytest.raises(ValueError, match="alpha"):
        rdp_np([2.0, 0.9], 0.1, 1.0, 1)
    with pytest.raises(ValueError, match="steps T"):
        rdp_mp(2, 0.1, 1.0, math.nan)
    # the Rényi order (dptheory.privacy.orders.renyi_order): the function, the argument, what is accepted
    for call, message in [
        (lambda: log_a_mp("x", 0.1, 1.0), "log_a_mp: order alpha must be a real number > 1, got alpha=x"),
        (lambda: log_a_mp(1, 0.1, 1.0), "log_a_mp: order alpha must be finite and > 1, got alpha=1"),
        (lambda: rdp_mp(math.nan, 0.1, 1.0, 1), "rdp_mp: order alpha must be finite and > 1, got alpha=nan"),
    ]:
        with pytest.raises(ValueError) as info:
            call()
        assert str(info.value) == message


def test_huge_integer_order_refused() -> None:
    with pytest.raises(NumericalFailure, match=r"accepts Renyi orders 1 < alpha <= 1e8"):
        log_a_mp(10**9, 0.1, 1.0)


def test_infinity_only_on_true_overflow() -> None:
    with mpmath.workdps(20):
        assert rdp_mp(2, 1.0, 1e-160, 1) > mpmath.mpf("1.8e308")  # true value 1e320
        assert rdp_mp(2, 0.5, 1e-160, 1) > mpmath.mpf("1.8e308")
    assert np.isinf(rdp_np(2.0, 1.0, 1e-160, 1.0))
    assert np.isinf(rdp_np(2.0, 0.5, 1e-160, 1.0))
    big = rdp_np(1e4, 0.5, 0.3, 1e9)  # large but finite
    with mpmath.workdps(30):
        assert np.isfinite(big) and _rel(big, rdp_mp(10**4, 0.5, 0.3, 10**9)) < 1e-10


def test_broadcasting() -> None:
    alphas = np.array([[1.5], [2.0], [7.25]])
    qs = np.array([0.01, 0.1, 1.0, 0.0])
    out = rdp_np(alphas, qs, 2.0, 10)
    assert out.shape == (3, 4)
    with mpmath.workdps(30):
        for i in range(3):
            for j in range(4):
                want = rdp_mp(float(alphas[i, 0]), float(qs[j]), 2.0, 10)
                assert (want == 0 and out[i, j] == 0) or _rel(out[i, j], want) < 1e-10


# ------------------------------------------------------------------------------------------------
# float64 vs mp (hypothesis) and the hybrid fallback
# ------------------------------------------------------------------------------------------------


@st.composite
def sgm_points(draw: st.DrawFn) -> tuple[float, float, float, float]:
    q = 10.0 ** draw(st.floats(-6, 0))
    z = 10.0 ** draw(st.floats(math.log10(0.3), 2))
    T = 10.0 ** draw(st.floats(0, 9))
    if draw(st.booleans()):
        alpha = float(draw(st.integers(2, 10_000)))
    else:
        alpha = min(1.0 + 10.0 ** draw(st.floats(-4, 4)), 1e4)
    return alpha, q, z, T


@given(sgm_points())
def test_rdp_np_matches_rdp_mp(point: tuple[float, float, float, float]) -> None:
    alpha, q, z, T = point
    got = rdp_np(alpha, q, z, T)
    with mpmath.workdps(30):
        want = rdp_mp(alpha, q, z, T)
    if want > mpmath.mpf(np.finfo(np.float64).max):
        assert np.isinf(got)
    else:
        assert _rel(got, want) <= 1e-10, (point, got, want)  # the documented float64 accuracy


@given(sgm_points())
def test_float_path_error_estimate_is_honest(point: tuple[float, float, float, float]) -> None:
    """Where the float64 path says it is good to 1e-11 (and is used without fallback), it is good to 1e-10."""
    alpha, q, z, _ = point
    if q == 1.0:
        return
    args = (np.array([alpha]), np.array([math.log(q)]), np.array([math.log1p(-q)]), np.array([z]))
    fn = sgm_float64._log_a_int_np if alpha == int(alpha) else sgm_float64._log_a_frac_np
    la, rel = fn(*args)
    if not rel[0] <= sgm.FALLBACK_RTOL:
        return
    with mpmath.workdps(30):
        assert _rel(la[0], log_a_mp(alpha, q, z)) <= 1e-10


def test_no_fallback_on_benchmark_inputs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The vectorised path alone serves the benchmark inputs and moderate fractional orders."""

    def forbidden(*args: object) -> None:
        raise AssertionError(f"unexpected mp fallback at {args}")

    monkeypatch.setattr(sgm_float64, "log_a_mp", forbidden)
    rdp_np(np.arange(2, 102), 0.04, 1.0, 1e5)
    rdp_np(np.arange(2, 102), 2048 / 60000, 3.08, 1e5)
    rdp_np(np.array([10.5, 20.25, 63.5, 500.5]), 0.04, 1.0, 1e5)


def test_fallback_is_used_where_float_cancels() -> None:
    """q = 1e-6, alpha = 1.5: log A ~ 1e-13, so float64 would lose ~3 digits; rdp_np still agrees with mp."""
    _, rel = sgm_float64._log_a_frac_np(np.array([1.5]), np.log([1e-6]), np.log1p([-1e-6]), np.array([1.0]))
    assert rel[0] > sgm.FALLBACK_RTOL
    with mpmath.workdps(30):
        assert _rel(rdp_np(1.5, 1e-6, 1.0, 1), rdp_mp(1.5, 1e-6, 1.0, 1)) < 1e-12


# ------------------------------------------------------------------------------------------------
# the known dp-accounting fault at fractional orders
# ------------------------------------------------------------------------------------------------


def _abs_sum_like_dp_accounting(alpha: float, q: float, z: float) -> float:
    """Sum |s0_i| + |s1_i| with dp-accounting 0.6.0's stopping rule (both decreasing, 30 nats below the total)."""
    total = last0 = last1 = -math.inf
    for i in range(1000):
        l0, l1, _ = sgm_terms.frac_log_terms(
            np.array([alpha]), np.array([math.log(q)]), np.array([math.log1p(-q)]), np.array([z]),
            np.array([float(i)]),
        )
        s0, s1 = float(l0[0]), float(l1[0])
        total = float(np.logaddexp(total, np.logaddexp(s0, s1)))
        if s0 < last0 and s1 < last1 and max(s0, s1) < total - 30:
            return total
        last0, last1 = s0, s1
    raise AssertionError("no convergence")


@pytest.mark.parametrize(
    "case,alpha,dp_acc_peers,excess",
    [("A", 1.5, "5.67158439054", (0.14, 0.16)), ("A", 2.5, "9.06035975506", (0.007, 0.008)),
     ("B10", 1.5, "0.147960495871", (1.4, 1.5))],
)
def test_dp_accounting_fractional_fault(
    case: str, alpha: float, dp_acc_peers: str, excess: tuple[float, float]
) -> None:
    """Known fault of the oracle, recorded: dp-accounting is *above* the exact RDP at fractional orders."""
    q, z, T = CASES[case]
    dp_acc = float(_dp_accounting_rdp([alpha], q, z, T)[0])
    assert abs(dp_acc / float(dp_acc_peers) - 1) < 1e-10  # the value docs/peers.md quotes
    with mpmath.workdps(30):
        exact = rdp_mp(alpha, q, z, T)
        assert _rel(exact, T * log_a_quad_mp(alpha, q, z) / (alpha - 1)) < 1e-25
    lo, hi = excess
    assert lo < dp_acc / float(exact) - 1 < hi
    # the cause: summing absolute values of the signed terms reproduces dp-accounting (1e-8 relative)
    assert abs(T * _abs_sum_like_dp_accounting(alpha, q, z) / (alpha - 1) / dp_acc - 1) < 1e-8


# ------------------------------------------------------------------------------------------------
# fractional orders in float64 via A - 1 (package docstring of privacy.sgm, item 3; issue 14)
# ------------------------------------------------------------------------------------------------

GRID_DATA = Path(__file__).parent / "data" / "sgm_grid_values.csv"


def _grid_groups() -> dict[tuple[str, float, float], list[tuple[float, str]]]:
    groups: dict[tuple[str, float, float], list[tuple[float, str]]] = {}
    with GRID_DATA.open(newline="") as fh:
        for r in csv.DictReader(fh):
            # the generator's second method (quadrature or mp series, where recorded) agrees to 1e-18
            assert r["check_rel_diff"] == "" or float(r["check_rel_diff"]) <= 1e-18
            assert int(r["dps"]) >= 20
            groups.setdefault((r["grid"], float(r["q"]), float(r["z"])), []).append((float(r["alpha"]), r["log_a"]))
    return groups


def test_benchmark_grids_match_quadrature_without_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every order of the bench_sgm_peers grids (100 fractional in [1.25, 64.5], 2..101; five (q, z)).

    Reference: tests/data/sgm_grid_values.csv (made by make_sgm_grid_values.py without the float64
    code): quadrature at 20 digits at fractional orders, the defining finite sum at 60 digits at
    integer orders (quadrature-checked at every tenth order).
    The float64 kernels alone must serve these points (the mp fallback is what made fractional orders
    slow), and agree to 1e-12 relative (issue 14, item 3).
    """

    def forbidden(*args: object) -> None:
        raise AssertionError(f"unexpected mp fallback at {args}")

    monkeypatch.setattr(sgm_float64, "log_a_mp", forbidden)
    groups = _grid_groups()
    assert sorted(len(v) for v in groups.values()) == [100] * 10
    for (grid, q, z), rows in groups.items():
        alphas = np.array([a for a, _ in rows])
        assert np.all((alphas == np.floor(alphas)) == (grid == "integer"))
        got = rdp_np(alphas, q, z, 1e5)
        for a, g, ref in zip(alphas, got, (r for _, r in rows), strict=True):
            want = 1e5 * mpmath.mpf(ref) / (mpmath.mpf(a) - 1)
            assert _rel(g, want) <= 1e-12, (grid, q, z, a, g, want)


@pytest.mark.parametrize(
    "alpha,q,z",
    [(1.25, 1e-3, 0.8), (2.75, 1e-6, 1.0), (1.5, 1e-3, 5.0), (3.25, 0.8, 2.0), (5.5, 0.04, 1.0), (1.75, 0.01, 0.4),
     (1.5, 1e-3, 10.0), (2.5, 1e-4, 30.0), (7.25, 0.04, 10.0), (2.25, 0.45, 3.0)],
)
def test_am1_kernel_matches_quadrature(alpha: float, q: float, z: float) -> None:
    """The float64 A - 1 kernel at fractional orders where log A is small (1e-14 .. 1e-1), vs live quadrature.

    Large z (10, 30) is where A - 1 ~ q^2/z^2 is much smaller than its terms ~ q^2: only the termwise
    form for q < 1/2 keeps those digits (package docstring of privacy.sgm, item 3).
    """
    la, rel = sgm_float64._log_a_frac_am1_np(np.array([alpha]), np.log([q]), np.log1p([-q]), np.array([z]))
    with mpmath.workdps(20):
        want = log_a_quad_mp(alpha, q, z)  # error estimate < 1e-23 of A - 1
    assert rel[0] <= sgm.FALLBACK_RTOL_FRAC  # served in float64, no fallback
    err = _rel(la[0], want)
    assert err <= 1e-12 and err <= rel[0], (err, rel[0])  # the estimate bounds the actual error


@st.composite
def frac_points(draw: st.DrawFn) -> tuple[float, float, float]:
    q = 10.0 ** draw(st.floats(-6, 0, exclude_max=True))
    z = 10.0 ** draw(st.floats(math.log10(0.3), 2))
    alpha = 1.0 + 10.0 ** draw(st.floats(-4, 3))
    if alpha == math.floor(alpha):
        alpha += 0.5
    return alpha, min(q, 0.999), z


@given(frac_points())
def test_am1_kernel_against_old_implementation(point: tuple[float, float, float]) -> None:
    """New fractional float64 kernel vs the previous implementation at random points.

    The previous ``rdp_np`` served a fractional point with the float64 kernel that sums ``A``
    (``_log_a_frac_np``) where its estimate was <= 1e-11, and with the mp series otherwise. Both are
    unchanged. The new kernel must (1) be within its own error estimate of the 30-digit mp series,
    and within 1e-12 where it is accepted (estimate <= FALLBACK_RTOL_FRAC); (2) agree with the
    previous float64 kernel within the sum of their estimates where that one was accepted.
    """
    alpha, q, z = point
    args = (np.array([alpha]), np.array([math.log(q)]), np.array([math.log1p(-q)]), np.array([z]))
    new, rel_new = sgm_float64._log_a_frac_am1_np(*args)
    old, rel_old = sgm_float64._log_a_frac_np(*args)
    with mpmath.workdps(30):
        exact = log_a_mp(alpha, q, z)
    if np.isfinite(rel_new[0]):
        assert _rel(new[0], exact) <= rel_new[0], (point, new[0], exact, rel_new[0])
    if rel_new[0] <= sgm.FALLBACK_RTOL_FRAC:
        assert _rel(new[0], exact) <= 1e-12
    if rel_old[0] <= sgm.FALLBACK_RTOL and np.isfinite(rel_new[0]):
        assert abs(new[0] - old[0]) <= (rel_new[0] + rel_old[0]) * abs(old[0]), (point, new[0], old[0])
    # and the public function, whichever path it takes: 1e-12 relative of the 30-digit series
    with mpmath.workdps(30):
        assert _rel(rdp_np(alpha, q, z, 1.0), rdp_mp(alpha, q, z, 1)) <= 1e-12


@pytest.mark.parametrize(
    "alpha,q,z",
    [(1.0002, 3.2e-6, 55.45), (1.001, 0.5, 30.0), (1.76, 0.92, 28.05), (3.2336, 4.3633e-3, 20.78), (2.5, 0.999, 50.0),
     (1.5, 1e-6, 100.0), (64.5, 0.5, 0.3), (9999.5, 1e-6, 100.0),
     (1.0001484947194599, 0.20282859846251064, 1.888043986437231)],  # float64 error 3e-12, estimate 9e-11
)
def test_am1_kernel_estimate_under_cancellation(alpha: float, q: float, z: float) -> None:
    """Where A - 1 is itself a difference of larger parts (alpha near 1, large z, q near 1) the estimate
    still bounds the error, and rdp_np (falling back to mp where the estimate is too large) stays at 1e-12."""
    la, rel = sgm_float64._log_a_frac_am1_np(np.array([alpha]), np.log([q]), np.log1p([-q]), np.array([z]))
    with mpmath.workdps(30):
        exact = log_a_mp(alpha, q, z)
        if np.isfinite(rel[0]):
            assert _rel(la[0], exact) <= rel[0], (la[0], exact, rel[0])
        assert _rel(rdp_np(alpha, q, z, 1.0), exact / (alpha - 1)) <= 1e-12


@pytest.mark.parametrize("q", [1e-6, 1e-3, 0.04, 0.5, 0.8, 0.99])
@pytest.mark.parametrize("z", [0.3, 1.0, 3.08, 30.0])
def test_am1_constant_part_identity(q: float, z: float) -> None:
    """``1 - s0_0 - s0_1`` from its definition at 40 digits vs the three positive float64 parts."""
    for alpha in (1.25, 2.5, 30.5):
        logs, scales = sgm_float64._am1_constant_pieces(
            np.array(alpha), np.array(math.log(q)), np.array(math.log1p(-q)), np.array(z), np.array(q)
        )
        with mpmath.workdps(40):
            a, qm, zm = mpmath.mpf(alpha), mpmath.mpf(q), mpmath.mpf(z)
            z0 = zm**2 * mpmath.log((1 - qm) / qm) + mpmath.mpf(1) / 2
            s00 = (1 - qm) ** a * mpmath.ncdf(z0 / zm)
            s01 = a * qm * (1 - qm) ** (a - 1) * mpmath.ncdf((z0 - 1) / zm)
            want = 1 - s00 - s01
            got = mpmath.fsum(mpmath.exp(mpmath.mpf(float(v))) for v in logs)
        # positive parts, each good to 1.5 eps * scale in log: the sum is good to the largest of those
        assert _rel(got, want) <= 1.5 * 2.0**-52 * float(np.max(scales)) + 1e-15, (alpha, got, want)


def test_log1pmx() -> None:
    xs = [-0.999, -0.9, -0.5000001, -0.5, -0.4999999, -0.3, -1e-3, -1e-9, -1e-150, 1e-150, 1e-9, 1e-3, 0.3, 0.999,
          1.0, 1.0000001, 1.5, 7.0, 1e3, 1e12]
    got = logspace.log1pmx(np.array(xs))
    with mpmath.workdps(400):  # log1p(x) - x cancels about log10(1/|x|) digits
        for x, g in zip(xs, got, strict=True):
            want = mpmath.log1p(mpmath.mpf(x)) - x
            assert _rel(g, want) <= 4 * 2.0**-52, (x, g, want)  # a few ulps: no cancellation anywhere


@pytest.mark.parametrize(
    "hi,lo",
    [(3.68, 2.68), (40.0, 39.0), (6.1, 4.85), (1e-3, -1e-3), (0.5, -0.5), (2.0, -3.0), (-2.0, -3.0), (-30.0, -31.5),
     (0.3, 0.0), (0.0, -0.3), (30.01, 30.0), (8.0, 7.9), (-7.9, -8.0), (5.0, 5.0 - 1e-6)],
)
def test_log_ndtr_diff(hi: float, lo: float) -> None:
    """log(Phi(hi) - Phi(lo)) vs mpmath (upper-tail form for lo >= 0, where Phi rounds to 1)."""
    val, scale = sgm_float64._log_ndtr_diff(np.array(hi), np.array(lo))
    with mpmath.workdps(60):
        diff = mpmath.ncdf(-lo) - mpmath.ncdf(-hi) if lo >= 0 else mpmath.ncdf(hi) - mpmath.ncdf(lo)
        want = mpmath.log(diff)
    err = abs(mpmath.mpf(float(val)) - want)
    assert err <= 1.5 * 2.0**-52 * float(scale), (hi, lo, val, want, scale)  # within its error scale
    if hi - lo >= 0.1 and max(abs(hi), abs(lo)) <= 10:  # moderate arguments: 1e-14 relative of the difference
        assert err <= 1e-14


# ------------------------------------------------------------------------------------------------
# regeneration of tests/data/sgm_known_values.csv (run: python tests/test_sgm.py)
# ------------------------------------------------------------------------------------------------


def _regenerate_known_values(path: Path = DATA, dps: int = 50) -> None:
    rows = []
    for case in ("A", "B", "C", "D", "B10"):
        q, z, T = CASES[case]
        for alpha in ORDERS7:
            with mpmath.workdps(dps):
                a = mpmath.mpf(alpha)
                if q == 1.0:
                    value = T * a / (2 * mpmath.mpf(z) ** 2)
                    method = "closed form T*alpha/(2 z^2) (Mironov 2017 Prop 7)"
                else:
                    value = T * log_a_quad_mp(a, q, z) / (a - 1)
                    method = "mpmath.quad of E[(1+w)^alpha - 1 - alpha w] (log_a_quad_mp)"
                rows.append({
                    "alpha": alpha, "q": repr(q), "z": repr(z), "T": str(T),
                    "rdp": mpmath.nstr(value, 45, strip_zeros=False),
                    "source": f"docs/peers.md section 2 case {case} (12-digit reference there); re-derived here",
                    "method": method, "dps": str(dps),
                })
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=["alpha", "q", "z", "T", "rdp", "source", "method", "dps"])
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    _regenerate_known_values()


@pytest.mark.parametrize(
    ("alpha", "q", "z"),
    [(100.5, 0.355, 1e14), (100.0, 0.355, 1e14), (2.5, 0.9, 1e11), (1000.25, 1e-3, 1e11), (7.0, 0.5, 3e12)],
)
def test_huge_noise_regime_matches_the_mp_series(alpha: float, q: float, z: float) -> None:
    """Module docstring item 5: where z >= 1e4 and alpha q <= 1e-10 z the float64 kernel takes the leading term
    C(alpha, 2) q^2 expm1(1/z^2) of A - 1. Oracle: the mp series (fractional) or exact binomial sum (integer) at
    40 digits, independent of that shortcut; relative tolerance 1e-13 (the neglected terms are below 2e-20)."""
    assert z >= sgm.HUGE_NOISE_MIN_Z and alpha * q <= sgm.HUGE_NOISE_RATIO * z  # the points are in the regime
    got = sgm.rdp_np(alpha, q, z, 1)
    with mpmath.workdps(40):
        ref = sgm.log_a_mp(alpha, q, z) / (mpmath.mpf(alpha) - 1)
    assert abs(got - float(ref)) <= 1e-13 * float(ref)


def test_huge_noise_order_search_is_fast() -> None:
    """An order search at z = 1.2e19 (found by the API fuzzer) evaluated the ~alpha-term mp series at every
    scanned fractional order (minutes); with the huge-noise regime the scan needs no fallback."""
    calls = []
    orig = sgm.log_a_mp

    def counting(*a: object, **k: object) -> mpmath.mpf:
        calls.append(a)
        return orig(*a, **k)

    a = np.exp(np.linspace(np.log(1e-4), np.log(1e4), 65)) + 1.0
    try:
        sgm.log_a_mp = counting  # type: ignore[assignment]
        v = sgm.rdp_np(a, 0.355, 1.2e19, 310)
    finally:
        sgm.log_a_mp = orig  # type: ignore[assignment]
    assert not calls and np.all(v > 0) and np.all(np.isfinite(v))


@pytest.mark.parametrize(("alpha", "q", "z"), [(100.5, 0.355, 1e14), (2.5, 0.9, 1e11), (37, 0.2, 1e12)])
def test_huge_noise_mp_series_matches_the_general_mp_kernels(alpha: float, q: float, z: float) -> None:
    """The mp moment series of the huge-noise regime against the general kernels (two-sided series for a
    fractional order, exact binomial sum for an integer order), which know nothing of the regime: 1e-45 relative
    at 50 digits."""
    with mpmath.workdps(50):
        a, qm, zm = mpmath.mpf(alpha), mpmath.mpf(q), mpmath.mpf(z)
        got = sgm.log_a_mp(alpha, q, z)
    with mpmath.workdps(60):
        n = int(alpha) if float(alpha).is_integer() else None
        ref = sgm_mp._log_a_int_mp(n, qm, zm, 50) if n is not None else sgm_mp._log_a_frac_mp(a, qm, zm, 50)
    assert abs(got - ref) <= mpmath.mpf(10) ** -45 * abs(ref)


def test_large_log_a_near_order_one_is_recomputed() -> None:
    """Found by the API fuzzer: at alpha - 1 = 5.9e-8 and z = 1.4e-79 the float64 fractional path lost 1.2e-9
    (rounding amplified by alpha / (alpha - 1)) without flagging it. Oracle: rdp_mp at 40 digits; 1e-12 relative."""
    a, q, z = 2251799946541437 / 2251799813685248, 0.5, 1.4129419146499102e-79
    got = sgm.rdp_np(a, q, z, 1)
    with mpmath.workdps(40):
        ref = sgm.rdp_mp(a, q, z, 1)
    assert abs(got - float(ref)) <= 1e-12 * float(ref)
