"""Digits at ``dps = N`` are correct digits (issue 11, item 3).

For every registered theorem, at its witness points and a few seeded strategy points, the value that
``Theorem.evaluate(dps=N)`` returns (N in 15, 30, 50), printed to N significant digits, must equal the
N-digit rounding of

* the value enclosed by arb at 2N digits (``core.compile.enclose`` on the theorem's rigorous evaluator:
  its compiled statement or its declared ``arb`` override) - a certified reference; or, where the
  theorem has no rigorous evaluator at that point,
* the mpmath kernel run at 4N digits - a reference that is NOT certified (the test id says ``mp4N``).

A reference whose own ends round to different N-digit strings (a value within 10^-2N of a rounding
boundary) accepts either string. Valid points that ``evaluate`` refuses fail the test (they are valid by
construction). The default run takes a theorem's witnesses when it has some, else 2 strategy points;
the ``slow`` variant adds 8 strategy points per theorem.
"""

from __future__ import annotations

from typing import Any

import mpmath
import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable

from dptheory.core.errors import NumericalFailure, RegimeNotSupported
from dptheory.core.registry import REGISTRY
from dptheory.testing.strategies import theorem_strategy

SMALL = {"n": (2, 300, True), "K": (1, 300, True), "T": (1, 10_000, True)}
DPS = (15, 30, 50)


def _points(t: Any, n: int) -> list[dict[str, sp.Rational]]:
    pts: list[dict[str, sp.Rational]] = [t.parse(w) for w in t.witnesses]
    if n <= 0 or (pts and n < 8):  # witnesses stand for regions the strategy draws poorly (default run)
        return pts
    drawn: list[dict[str, sp.Rational]] = []

    @settings(max_examples=n, derandomize=True, database=None, suppress_health_check=list(HealthCheck),
              deadline=None)
    @given(theorem_strategy(t, ranges={**SMALL, **t.sample}))
    def collect(p: dict[str, sp.Rational]) -> None:
        drawn.append(p)

    try:
        collect()
    except Unsatisfiable:  # the strategy cannot draw this theorem's region: its witnesses only
        assert pts, f"{t.key}: no witness and no drawable point"
    seen: set[tuple[Any, ...]] = set()
    out: list[dict[str, sp.Rational]] = []
    for p in [*pts, *drawn]:
        k = tuple(sorted((a, str(b)) for a, b in p.items()))
        if k not in seen:
            seen.add(k)
            out.append(p)
    return out[: len(t.witnesses) + n]


def _reference(t: Any, exact: dict[str, sp.Rational], N: int) -> tuple[set[str], str]:
    """N-digit strings the value may round to, and the kind of reference (``arb2N`` or ``mp4N``)."""
    from dptheory.core.compile import enclose

    kern = t.kernels()
    if kern.arb is not None:
        try:
            e = enclose(kern.arb, exact, dps=2 * N)
        except NumericalFailure:
            e = None
        if e is not None:
            with mpmath.workdps(2 * N + 10):
                return {mpmath.nstr(e.lo, N), mpmath.nstr(e.hi, N)}, "arb2N"
    with mpmath.workdps(4 * N):
        v = kern.mp(t.kernel_args(exact))
        return {mpmath.nstr(mpmath.mpf(v), N)}, "mp4N"


def _cases(n_strategy: int) -> list[Any]:
    out = []
    for t in sorted(REGISTRY.theorems(), key=lambda t: t.key):
        out.append(pytest.param(t.key, n_strategy, id=t.key))
    return out


def _check_theorem(key: str, n_strategy: int) -> None:
    t = REGISTRY.get(key)
    pts = _points(t, n_strategy)
    assert pts, f"{key}: no valid point drawn"
    for exact in pts:
        for N in DPS:
            try:
                got = t.evaluate(exact, dps=N)
            except (NumericalFailure, RegimeNotSupported) as exc:
                # a kernel that refuses honestly (a step-count limit, a regime the source excludes) prints no digit
                assert "\n" not in str(exc)
                continue
            if mpmath.isinf(got.value) or mpmath.isnan(got.value):
                continue
            refs, kind = _reference(t, exact, N)
            with mpmath.workdps(N + 10):
                s = mpmath.nstr(got.value, N)
            assert s in refs, f"{key} at {exact}, dps={N}: printed {s}, reference ({kind}) {sorted(refs)}"


@pytest.mark.parametrize(("key", "n"), _cases(2))
def test_digits_correct_at_witness_and_strategy_points(key: str, n: int) -> None:
    _check_theorem(key, n)


@pytest.mark.slow
@pytest.mark.parametrize(("key", "n"), _cases(8))
def test_digits_correct_more_points(key: str, n: int) -> None:
    _check_theorem(key, n)


def test_the_ziv_loop_reaches_the_digits_a_huge_input_needs() -> None:
    """dwork15.cor22_route at tau = 1e400 (found by tests/test_fuzz_api.py): the exponent tau^2 (-3/2 + 1/sqrt 2)
    / (c^2 n) is ~4e805, so its argument alone needs ~840 working digits; the loop's cap grows with the inputs'
    digits instead of stopping at 128x the guard digits. Checked against the exponent computed apart (base 10)."""
    import mpmath

    import dptheory

    value = dptheory.get("dwork15.cor22_route").evaluate({"tau": "1e400", "c": "1/1000", "n": 2}, dps=30).value
    with mpmath.workdps(900):
        tau, c, n = mpmath.mpf(10) ** 400, mpmath.mpf(1) / 1000, 2
        x = tau**2 * (mpmath.mpf(-3) / 2 + 1 / mpmath.sqrt(2)) / (c**2 * n)
        # the second term 2 e^(-tau^2/(c^2 n)) is below the first by a factor e^(-1e805): only e^x counts
        want = mpmath.exp(x)
        assert abs(value / want - 1) <= mpmath.mpf(10) ** -29  # the 30 digits asked for, relative
