"""API fuzzing of every registered theorem: Theorem.evaluate, sweep (the float64 kernels) and crossover.

Hypothesis draws, for a theorem of the registry, a valid point (its witnesses, or the strategy generated
from its conditions) and then perturbs it: the same values written as ints, floats and strings; one
parameter replaced by an edge value (0, +-1, 1/2, subnormal, tiny and huge magnitudes, integers just
outside the domain); one replaced by something that is not a number (text, NaN, infinity, None, a
bool, a list, a complex number); a parameter left out or an unknown one added. At every point:

* only :class:`~dptheory.core.errors.DPTheoryError` (and its subclasses) is raised: never a bare
  ValueError, KeyError, ZeroDivisionError, OverflowError, TypeError, ...;
* no NaN is ever returned, by ``evaluate`` or at a valid point of a sweep;
* a sweep's float64 value agrees with mpmath (30 digits, at the same binary inputs) to 1e-10 relative,
  or the point is in the log domain, where its log agrees with mpmath at the exact inputs to 1e-10;
* a crossover of a theorem with itself finds none (A < A never holds; ties are decided at 50 digits).

Default run: one test drawing the theorem too, ``FUZZ_EXAMPLES`` examples (derandomised under the
``dptheory-ci`` profile, as every hypothesis test is there); about 30-60 s. ``--run-slow`` adds one
test per theorem with ``SLOW_EXAMPLES`` examples each (the thorough run).
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

import dptheory
from dptheory.core import REGISTRY, Status
from dptheory.core.errors import DPTheoryError
from dptheory.evaluate.crossover import crossover
from dptheory.evaluate.sweep import sweep
from dptheory.testing.strategies import theorem_strategy

THEOREMS = sorted(REGISTRY.theorems(), key=lambda t: t.key)
KEYS = [t.key for t in THEOREMS]
FUZZ_EXAMPLES = 600
SLOW_EXAMPLES = 60
# keep one example's mpmath work bounded (Thm 4.3 iterates K floor(n/b) steps; orders cost ~alpha terms)
RANGES = {"n": (2, 60, True), "K": (1, 30, True), "T": (1, 1000, True), "E": (1, 5, False),
          "alpha": (1.0, 64.0, True), "m": (1, 20, True)}
EDGE = ["0", "1", "-1", "1/2", "2", "3", "1e-5", "1e-320", "5e-324", "1e-400", "1e300", "1e400", "1e20",
        "0.9999999999999999", "1.0000000000000002"]
# magnitudes where float64 overflows, underflows or goes subnormal (inputs, or values computed from them)
EXTREME = ["1e-320", "5e-324", "1e-400", "1e-300", "1e-160", "1e150", "1e160", "1e300", "1e400"]
GARBAGE: list[Any] = ["abc", "", "nan", "-inf", float("nan"), float("inf"), None, True, [1], 1j, "1..2", "1/0"]
_SETTINGS = {"deadline": None,
             "suppress_health_check": [HealthCheck.too_slow, HealthCheck.filter_too_much,
                                       HealthCheck.data_too_large]}


def _points(t: Any) -> st.SearchStrategy[dict[str, sp.Rational]]:
    """Valid points of ``t``, one strategy per theorem (built once: hypothesis validates every new strategy)."""
    return _points_of(t.key)


@functools.cache
def _points_of(key: str) -> st.SearchStrategy[dict[str, sp.Rational]]:
    t = dptheory.get(key)
    if t.witnesses:
        return st.sampled_from([t.parse(w) for w in t.witnesses])
    return theorem_strategy(t, ranges={**RANGES, **t.sample})


def _spellings(v: sp.Rational) -> st.SearchStrategy[Any]:
    """The same exact value as a user might write it."""
    out: list[Any] = [v, str(v)]
    if v.q == 1:
        i = int(v)
        out += [i, f"{i}.0", f"{i}e0", np.int64(i) if abs(i) < 2**62 else i]
        if abs(i) < 2**53:
            out.append(float(i))
    else:
        f = float(v)
        if Fraction(f) == Fraction(int(v.p), int(v.q)):
            out += [f, repr(f)]
        out.append(Fraction(int(v.p), int(v.q)))
    return st.sampled_from(out)


@st.composite
def _cases(draw: Any, t: Any) -> tuple[str, dict[str, Any]]:
    base = draw(_points(t))
    point: dict[str, Any] = {k: draw(_spellings(v)) for k, v in base.items()}
    mode = draw(st.sampled_from(["valid", "valid", "edge", "edge", "garbage", "missing", "extra"]))
    name = draw(st.sampled_from(list(t.params)))
    if mode == "edge":
        point[name] = draw(st.sampled_from(EDGE))
    elif mode == "garbage":
        point[name] = draw(st.sampled_from(GARBAGE))
    elif mode == "missing":
        del point[name]
    elif mode == "extra":
        point["not_a_parameter"] = 1
    return mode, point


def _only_ours(exc: BaseException, what: str) -> None:
    assert isinstance(exc, DPTheoryError), f"{what} raised {type(exc).__name__}: {exc}"


def _binary(point: dict[str, Any]) -> dict[str, Fraction]:
    """The exact values float64 sees (the sweep's float path reads float(value))."""
    out = {}
    for k, v in point.items():
        f = float(dptheory.core.parse_value(v, key="fuzz", name=k))
        out[k] = Fraction(f)
    return out


def _check_sweep_point(t: Any, r: Any, idx: tuple[int, ...], exact: dict[str, Any]) -> None:
    v = float(r.values[idx])
    assert not math.isnan(v), f"NaN at a valid point {exact}"
    if r.log_domain[idx]:
        ref = t.evaluate(exact, dps=30).value
        lv = float(r.log_values[idx])
        if ref == 0:
            assert v == 0.0 and lv == -math.inf
        elif mpmath.isinf(ref):
            assert t.infinite_when and v == lv == float(ref)
        elif ref > 0:
            with mpmath.workdps(30):
                lr = float(mpmath.log(ref))
            if math.isinf(lr):  # even the log is beyond float64 (e.g. exp(-1e400)): r.text() still shows it
                assert lv == lr and r.text(idx)
            else:
                assert math.isfinite(lv) and abs(lv - lr) <= 1e-10 * max(1.0, abs(lr)), (lv, lr)
        return
    assert math.isfinite(v) and (v == 0.0 or abs(v) >= 2.2250738585072014e-308), v  # else it is in the log domain
    binary = _binary(exact)
    if any(r_.status is Status.VIOLATED for r_ in t.check(binary)):
        return  # float64 rounding of the inputs crosses a condition: nothing to compare at those inputs
    ref = t.evaluate(binary, dps=30).value
    if mpmath.isinf(ref) or abs(ref) > 1e300:
        return
    with mpmath.workdps(30):  # in mpmath: float(ref) would itself underflow to 0 below 5e-324
        assert abs(mpmath.mpf(v) - ref) <= mpmath.mpf("1e-10") * abs(ref), f"float64 {v!r} vs mpmath {ref} at {binary}"


def _fuzz_one(t: Any, mode: str, point: dict[str, Any], data: Any) -> None:
    note(f"{t.key} {mode}: {point}")
    # 1. evaluate
    try:
        val = t.evaluate(point, dps=20)
    except Exception as exc:
        _only_ours(exc, "evaluate")
        val = None
    if val is not None:
        assert not mpmath.isnan(val.value)
    # 2. sweep over one parameter (the float64 kernel), the others fixed
    if not t.params:
        return
    name = data.draw(st.sampled_from(list(t.params)), label="swept")
    extra = data.draw(st.lists(st.sampled_from(EXTREME + EDGE[:6]), max_size=3), label="more grid values")
    grid = {name: [point[name], *extra]} if name in point else {name: extra or ["1"]}
    fixed = {k: v for k, v in point.items() if k != name}
    skip = data.draw(st.booleans(), label="skip_invalid")
    try:
        r = sweep(t, grid, fixed, skip_invalid=skip)
    except Exception as exc:
        _only_ours(exc, "sweep")
        r = None
    if r is not None:
        for i, g in enumerate(grid[name]):
            if r.valid[i]:  # sweep ignores names the theorem does not take (one set of values, several theorems)
                _check_sweep_point(t, r, (i,), {k: v for k, v in {**fixed, name: g}.items() if k in t.params})
            else:
                assert skip and math.isnan(r.values[i])
    # 3. crossover of the theorem with itself on one or two grid values: never below itself
    if mode == "valid" and name in point:
        integer = t.notation[name].domain.is_integer
        v = dptheory.core.parse_value(point[name], key="fuzz", name=name)
        stop = v + 1 if integer else v
        try:
            res = crossover(t, t, name, v, stop, fixed, dps=30)
        except Exception as exc:
            _only_ours(exc, "crossover")
            # these two mean that the float64 screen and the 50-digit confirmation contradict each other
            assert "could not be confirmed" not in str(exc) and "disagree" not in str(exc), str(exc)
            return
        assert res.value is None and not res.always_below


@pytest.mark.heavy
@settings(max_examples=FUZZ_EXAMPLES, **_SETTINGS)
@given(st.data())
def test_api_fuzz(data: Any) -> None:
    t = dptheory.get(data.draw(st.sampled_from(KEYS), label="theorem"))
    mode, point = data.draw(_cases(t), label="point")
    _fuzz_one(t, mode, point, data)


@pytest.mark.slow
@pytest.mark.parametrize("key", KEYS)
def test_api_fuzz_thorough(key: str) -> None:
    t = dptheory.get(key)

    @settings(max_examples=SLOW_EXAMPLES, **_SETTINGS)
    @given(st.data())
    def run(data: Any) -> None:
        mode, point = data.draw(_cases(t), label="point")
        _fuzz_one(t, mode, point, data)

    run()


# ----------------------------------------------------------------------------- what the fuzzing found (regressions)


def test_found_huge_sample_sizes_no_longer_hang():
    """xi(n) summed ~16 sqrt(n) terms (n = 1e20 never returned); Thm 4.2's log-mean-exp term sums floor(n/b)
    terms (now refused above 1e7 with a DPTheoryError instead of running for hours)."""
    t = dptheory.get("maurer04.kl")
    v = t.evaluate({"emp_risk": "0.1", "KL": 1, "n": 10**20, "delta": "0.05"}, dps=20).value
    assert 0.1 < v < 0.11
    s42 = dptheory.get("yeshokri22.thm4_2")
    p = {"alpha": 10, "eta": "0.02", "lam": 1, "beta": 4, "S_g": 4, "sigma": 2, "n": 2 * 10**20, "b": 2, "K": 3}
    with pytest.raises(DPTheoryError, match="exceeds"):
        s42.evaluate(p, dps=20)
    with pytest.raises(DPTheoryError, match="exceeds"):
        sweep(s42, {"K": [1, 2]}, {k: v for k, v in p.items() if k != "K"})


def test_found_float_kernel_value_error_is_ours():
    """maxinfo's (eps, delta) route raised a bare ValueError from its float64 kernel where no eps reaches beta."""
    t = dptheory.get("maxinfo.dp_route_rogers_asymptotic")
    p = {"n": 1000, "E": 1, "zeta": 1, "sigma": "1e-10", "beta": "0.05", "C": 1, "C_beta": 1}
    with pytest.raises(DPTheoryError, match="cannot reach beta"):
        t.evaluate_np({k: float(v) for k, v in p.items()})
    with pytest.raises(DPTheoryError, match="cannot reach beta"):
        t.evaluate(p, dps=20)


def test_found_tiny_q_fractional_order_is_fast_and_right():
    """rdp.subsampled_gaussian at a fractional order and q = 1e-400 took over 8 s (800 working digits); the mp
    kernel now sums A - 1. Value against the leading term C(a, 2) q^2 (e^{1/z^2} - 1) (relative error O(q))."""
    t = dptheory.get("rdp.subsampled_gaussian")
    v = t.evaluate({"alpha": "1.5", "q": "1e-400", "z": 1, "T": 1}, dps=30).value
    with mpmath.workdps(40):
        lead = mpmath.binomial(mpmath.mpf("1.5"), 2) * mpmath.mpf("1e-800") * mpmath.expm1(1) / mpmath.mpf("0.5")
        assert abs(v - lead) <= mpmath.mpf(10) ** -29 * lead
