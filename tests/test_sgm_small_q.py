"""The float64 subsampled-Gaussian kernel at tiny sampling rates q (issue 21, item 6).

* against the mpmath kernel (``rdp_mp``) at q = 1e-6, 1e-10, 1e-14, relative 1e-12: the point alpha = 1e5,
  z = 200, q = 1e-6 is where ``log(1 - q)`` in place of ``log1p(-q)`` (float64.py, ``l1q``) shows (2.9e-12
  relative; 6.9e-15 with ``log1p``); at the other points both are within 1e-14;
* against an independent value that uses none of our code: the small-q expansion of
  A_alpha = E[(1 + q (L - 1))^alpha] with L = exp((2x - 1)/(2 z^2)), x ~ N(0, z^2) (Mironov, Talwar, Zhang 2019,
  arXiv 1908.10530, Sec. 3.3): E[L - 1] = 0, E[(L - 1)^2] = e^{1/z^2} - 1, E[(L - 1)^3] = e^{3/z^2} - 3 e^{1/z^2} + 2,
  so log A = s - s^2/2 + O(q^4) with
  s = C(alpha, 2) q^2 (e^{1/z^2} - 1) + C(alpha, 3) q^3 (e^{3/z^2} - 3 e^{1/z^2} + 2),
  at 60 digits; its truncation error is O(q^2) relative (below 1e-18 at q <= 1e-10 for these orders and z).
"""

from __future__ import annotations

import mpmath
import pytest

from dptheory.privacy.sgm.float64 import rdp_np
from dptheory.privacy.sgm.mp import rdp_mp

RTOL = 1e-12  # relative


def _expansion(alpha: float, q: float, z: float) -> mpmath.mpf:
    """RDP of one step, alpha-th order, from the third-order small-q expansion (module docstring)."""
    with mpmath.workdps(60):
        a, q, z = mpmath.mpf(alpha), mpmath.mpf(q), mpmath.mpf(z)
        m2 = mpmath.expm1(1 / z**2)
        m3 = mpmath.exp(3 / z**2) - 3 * mpmath.exp(1 / z**2) + 2
        s = a * (a - 1) / 2 * q**2 * m2 + a * (a - 1) * (a - 2) / 6 * q**3 * m3
        return (s - s**2 / 2) / (a - 1)


@pytest.mark.parametrize("alpha,z", [(2, 1.0), (10, 0.7), (32, 4.0), (1.5, 0.7), (10.5, 1.0), (1e5, 200.0)])
@pytest.mark.parametrize("q", [1e-6, 1e-10, 1e-14])
def test_float64_kernel_agrees_with_mpmath_at_tiny_q(alpha, z, q):
    f, m = float(rdp_np(alpha, q, z, 1)), float(rdp_mp(alpha, q, z, 1))
    assert abs(f / m - 1) <= RTOL, (f, m)


@pytest.mark.parametrize("alpha,z", [(2, 1.0), (10, 0.7), (32, 4.0), (1.5, 0.7), (10.5, 1.0), (2.5, 4.0)])
@pytest.mark.parametrize("q", [1e-10, 1e-14])
def test_float64_kernel_agrees_with_the_small_q_expansion(alpha, z, q):
    f, e = float(rdp_np(alpha, q, z, 1)), float(_expansion(alpha, q, z))
    assert abs(f / e - 1) <= RTOL, (f, e)
