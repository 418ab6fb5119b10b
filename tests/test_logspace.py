"""The DP-free log-domain helpers of :mod:`dptheory.numerics.logspace`: one ``log1pmx`` for three backends, one
streamed log-sum-exp.

Independent values: ``log1p(x) - x`` at 60 digits in mpmath with enough extra bits for the cancellation (for
the float64 and arb versions), the float64 log-sum-exp of scipy (for the streamed one, fed in several column blocks).
"""

from __future__ import annotations

import flint
import mpmath
import numpy as np
import pytest
from scipy.special import logsumexp

from dptheory.numerics import logspace as L

XS = [-0.9, -0.5, -1e-3, -1e-9, 1e-12, 3e-6, 0.25, 1.0, 7.5]


def _ref(x: float) -> mpmath.mpf:
    with mpmath.workdps(200):
        return mpmath.log1p(mpmath.mpf(x)) - mpmath.mpf(x)


def test_log1pmx_float64_is_accurate_to_a_few_ulps_near_zero_and_away() -> None:
    got = L.log1pmx(np.array(XS))
    for x, g in zip(XS, got, strict=True):
        assert abs(g / float(_ref(x)) - 1) < 4e-16, x


@pytest.mark.parametrize("x", [x for x in XS if x >= 0])
def test_log1pmx_mp_keeps_relative_precision(x: float) -> None:
    with mpmath.workdps(60):
        assert abs(L.log1pmx_mp(mpmath.mpf(x)) / _ref(x) - 1) < mpmath.mpf(10) ** -58


@pytest.mark.parametrize("x", XS)
def test_log1pmx_arb_encloses_the_value_with_a_relative_radius(x: float) -> None:
    with flint.ctx.workprec(200):
        ball = L.log1pmx_arb(flint.arb(x))
        ref = flint.arb(mpmath.nstr(_ref(x), 70))
        assert ball.overlaps(ref)
        assert float(ball.rad()) <= 1e-50 * abs(float(ball.mid()))


def test_stream_lse_matches_logsumexp_across_blocks() -> None:
    rng = np.random.default_rng(3)
    rows, ncols = 3, (2**19 // 3) * 2 + 17  # several column blocks (2^19 cells each), the last one short
    lt = rng.normal(0, 30, (rows, ncols))
    lt[1, : ncols // 2] = -np.inf
    sc = np.abs(rng.normal(size=(rows, ncols)))

    def block(lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
        return lt[:, lo:hi], sc[:, lo:hi]

    m, s, e = L.stream_lse(rows, ncols, block)
    np.testing.assert_allclose(m + np.log(s), logsumexp(lt, axis=1), rtol=1e-13)
    np.testing.assert_allclose(m + np.log(e), logsumexp(lt, b=sc, axis=1), rtol=1e-13)
    streams = L.stream_lse_multi(rows, ncols, 2, lambda lo, hi: [block(lo, hi), block(lo, hi)])
    for got in streams:  # each stream of the multi-stream sum is the one-stream sum, bit for bit
        assert all(np.array_equal(a, b) for a, b in zip(got, (m, s, e), strict=True))


def test_kept_and_runs_select_the_terms_that_matter() -> None:
    lt = np.array([0.0, -1.0, -400.0, -2.0, -np.inf, np.nan, -3.0])
    keep = L.kept(lt, 15)  # non-finite estimates are kept (the exact sum decides)
    assert keep.tolist() == [True, True, False, True, True, True, True]
    assert L.runs(np.nonzero(keep)[0]) == [(0, 2), (3, 7)]
    assert L.runs(np.array([2, 3, 4, 9, 11, 12])) == [(2, 5), (9, 10), (11, 13)] and L.runs(np.array([])) == []
