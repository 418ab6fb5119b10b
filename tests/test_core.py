"""The engine: parsing, conditions, errors, value objects, the registry."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp

import dptheory
from dptheory.core import (
    REGISTRY,
    BoundValue,
    Condition,
    ConditionViolated,
    Direction,
    DuplicateKey,
    InvalidParameter,
    MissingParameter,
    Status,
    UnexpectedParameter,
    Unit,
    UnknownKey,
    parse_value,
)
from dptheory.core.notation import format_rational

FIG = {"alpha": 10, "eta": "0.02", "lam": 1, "beta": 4, "S_g": 4, "sigma": 2, "n": 50, "b": 2, "K": 50}


def thm(key: str):
    return dptheory.get(key)


# ----------------------------------------------------------------------------- parsing
@pytest.mark.parametrize(
    "raw, expected",
    [
        (3, sp.Integer(3)),
        ("0.02", sp.Rational(1, 50)),
        (0.02, sp.Rational(1, 50)),  # floats are read by their shortest decimal repr
        ("1e-5", sp.Rational(1, 100000)),
        ("1/3", sp.Rational(1, 3)),
        (Fraction(2, 7), sp.Rational(2, 7)),
        (np.int64(5), sp.Integer(5)),
        (np.float64(0.5), sp.Rational(1, 2)),
        (mpmath.mpf("0.5"), sp.Rational(1, 2)),
        (sp.Rational(3, 4), sp.Rational(3, 4)),
    ],
)
def test_parse_value_exact(raw, expected):
    assert parse_value(raw, key="k", name="x") == expected


@pytest.mark.parametrize("raw", [float("nan"), "nan", float("inf"), "-inf", "abc", "1/0", True, 1 + 2j, None, [1]])
def test_parse_value_rejects(raw):
    with pytest.raises(InvalidParameter) as ei:
        parse_value(raw, key="some.key", name="x")
    assert "some.key" in str(ei.value) and "x" in str(ei.value)


def test_format_rational():
    assert format_rational(sp.Rational(1, 50)) == "0.02"
    assert format_rational(sp.Rational(1, 3)) == "1/3"
    assert format_rational(sp.Integer(-7)) == "-7"
    assert format_rational(sp.Rational(-1, 8)) == "-0.125"


# ----------------------------------------------------------------------------- evaluation
def test_evaluate_returns_value_object():
    v = thm("yeshokri22.thm4_2").evaluate(FIG, dps=30)
    assert isinstance(v, BoundValue)
    assert isinstance(v.value, mpmath.mpf)
    assert v.unit is Unit.NATS and v.direction is Direction.UPPER and v.dps == 30
    assert v.key == "yeshokri22.thm4_2"
    assert all(c.status is Status.HOLDS for c in v.conditions)
    d = v.to_dict()
    assert set(d) >= {"key", "params", "value", "unit", "direction", "dps", "conditions"}
    assert len(d["value"].replace("0.", "", 1).lstrip("0")) >= 30


def test_precision_is_scoped_and_respected():
    before = mpmath.mp.prec
    lo = thm("yeshokri22.thm4_2").evaluate(FIG, dps=20).value
    hi = thm("yeshokri22.thm4_2").evaluate(FIG, dps=80).value
    assert mpmath.mp.prec == before
    with mpmath.workdps(80):
        assert abs(lo - hi) / hi < mpmath.mpf(10) ** -19


@pytest.mark.parametrize(
    "key, change, condition",
    [
        ("yeshokri22.thm4_2", {"alpha": 1}, "alpha > 1"),
        ("yeshokri22.thm4_2", {"alpha": "0.5"}, "alpha > 1"),
        ("yeshokri22.thm4_2", {"sigma": 0}, "sigma > 0"),
        ("yeshokri22.thm4_2", {"sigma": -2}, "sigma > 0"),
        ("yeshokri22.thm4_2", {"n": 3, "b": 2}, "n/b >= 2"),
        ("yeshokri22.thm4_2", {"K": "2.5"}, "K is an integer"),
        ("yeshokri22.thm4_2", {"K": 0}, "K >= 1"),
        ("yeshokri22.thm4_2", {"eta": "0.4"}, "eta < 2/(beta + lam)"),
        ("yeshokri22.thm4_2", {"lam": 5}, "lam <= beta"),
        ("yeshokri22.thm3_3", {"j0": 25}, "j0 <= floor(n/b) - 1"),
        ("yeshokri22.thm3_3", {"j0": -1}, "j0 >= 0"),
        ("yeshokri22.thmD_6", {"eta": "0.25"}, "eta < 1/beta"),
        ("yeshokri22.cor5_3", {"eta": 1}, "eta < 2/(L**2/2 + 2*lam + 1/2)"),
    ],
)
def test_violations_name_the_condition(key, change, condition):
    t = thm(key)
    base = {**FIG, "j0": 0, "L": 1, "sigma_mul": 2}
    params = {p: v for p, v in {**base, **change}.items() if p in t.params}
    with pytest.raises(ConditionViolated) as ei:
        t.evaluate(params)
    err = ei.value
    assert err.key == key
    assert err.condition == condition
    assert t.citation.short() in str(err)
    for name, value in change.items():
        if name in err.values:
            assert err.values[name] == format_rational(parse_value(value, key="k", name=name))


@pytest.mark.parametrize("bad", [float("nan"), "inf", "ten", None])
def test_bad_values_are_errors_not_nan(bad):
    with pytest.raises(InvalidParameter) as ei:
        thm("yeshokri22.thm4_2").evaluate({**FIG, "eta": bad})
    assert "eta" in str(ei.value) and "yeshokri22.thm4_2" in str(ei.value)


def test_missing_and_unexpected_parameters():
    t = thm("yeshokri22.thm4_2")
    with pytest.raises(MissingParameter, match="K"):
        t.evaluate({k: v for k, v in FIG.items() if k != "K"})
    with pytest.raises(UnexpectedParameter, match="j0"):
        t.evaluate({**FIG, "j0": 1})


def test_no_check_lists_the_violation():
    v = thm("yeshokri22.thm4_2").evaluate({**FIG, "eta": "0.5"}, check=False)
    assert not v.valid
    assert [c.text for c in v.violated] == ["eta < 2/(beta + lam)"]
    assert mpmath.isfinite(v.value)


def test_domain_violation_raises_even_without_check():
    with pytest.raises(ConditionViolated, match="b >= 1"):
        thm("yeshokri22.thm4_2").evaluate({**FIG, "b": 0}, check=False)


def test_condition_three_valued():
    x = sp.Symbol("x", positive=True)
    c = Condition(x < 2, "x below 2")
    assert c.evaluate({x: sp.Integer(1)}).status is Status.HOLDS
    assert c.evaluate({x: sp.Integer(3)}).status is Status.VIOLATED
    assert c.evaluate({}).status is Status.UNDECIDED
    # transcendental tie-free comparison decided numerically at two precisions
    c2 = Condition(sp.exp(x) > 2, "e^x above 2")
    assert c2.evaluate({x: sp.Rational(7, 10)}).status is Status.HOLDS
    assert c2.evaluate({x: sp.Rational(69, 100)}).status is Status.VIOLATED


def test_condition_sides_are_written_when_read():
    """The compiled decision hands its sides' texts over as functions (ConditionResult): the text is the exact
    value's, made once on first read, and a pickled result carries the texts."""
    import pickle

    x, y = sp.Symbol("x", positive=True), sp.Symbol("y", positive=True)
    r = Condition(x < 2 * y, "x below 2y").evaluate({x: sp.Rational(1, 3), y: sp.Rational(5, 7)})
    assert r.status is Status.HOLDS
    assert not isinstance(object.__getattribute__(r, "_lhs"), str)  # not written yet
    assert (r.lhs, r.rhs) == (format_rational(sp.Rational(1, 3)), format_rational(sp.Rational(10, 7)))
    assert object.__getattribute__(r, "_lhs") == r.lhs  # written once
    calls = []
    from dptheory.core.conditions import ConditionResult

    lazy = ConditionResult(r.condition, Status.HOLDS, lambda: calls.append(1) or "a", "b")
    assert lazy.lhs == lazy.lhs == "a" and calls == [1]
    back = pickle.loads(pickle.dumps(lazy))
    assert (back.status, back.lhs, back.rhs) == (Status.HOLDS, "a", "b")
    with pytest.raises(AttributeError):
        lazy.status = Status.VIOLATED  # type: ignore[misc]


def test_folded_condition_is_refused():
    from dptheory.core.theorem import Theorem
    from dptheory.papers.yeshokri22.theorems import NOTATION, PAPER

    s = NOTATION.sym("sigma")
    with pytest.raises(ValueError, match="folded"):
        Theorem(
            key="t.folded",
            title="t",
            citation=PAPER.item("x"),
            notation=NOTATION,
            params=("sigma",),
            conditions=(Condition(s > 0, "folded by the positive assumption"),),
            direction=Direction.UPPER,
            quantity="q",
            mp=lambda p: p["sigma"],
        )


# ----------------------------------------------------------------------------- registry
def test_registry_rejects_duplicates_and_unknown_keys():
    t = thm("yeshokri22.thm4_2")
    with pytest.raises(DuplicateKey):
        REGISTRY.add(t)
    with pytest.raises(UnknownKey, match=r"yeshokri22\.thm4_2"):
        REGISTRY.get("yeshokri22.thm4_9")


def test_required_keys_exist():
    required = [
        "yeshokri22.thm2_1",
        "yeshokri22.thm3_3",
        "yeshokri22.thm4_2",
        "yeshokri22.thm4_3",
        "yeshokri22.thmD_4",
        "yeshokri22.balle_first",
        "yeshokri22.balle_last",
        "yeshokri22.thmD_6",
        "yeshokri22.thmD_7",
        "yeshokri22.cor5_3",
        "yeshokri22.composition_approx",
        "yeshokri22.composition",
        "yeshokri22.lemmaD_3",
        "yeshokri22.prop5_1_lipschitz",
        "yeshokri22.prop5_1_smoothness",
        "rdp.subsampled_gaussian",
        "rdp.gaussian",
    ]
    for k in required:
        assert k in REGISTRY, k
    claims = {c.key.split(".")[1] for c in REGISTRY.claims()}
    for i in range(1, 11):
        assert any(k == f"C{i}" or (k.startswith(f"C{i}") and not k[len(f"C{i}") :].isdigit()) for k in claims), i


def test_every_theorem_has_direction_unit_citation_and_latex():
    for t in REGISTRY.theorems():
        assert isinstance(t.direction, Direction)
        assert isinstance(t.unit, Unit)
        assert t.citation.short()
        assert t.latex()
        assert all(t.conditions_latex())
        assert t.key in t.explain()


def test_units_conversion():
    v = thm("yeshokri22.thm4_2").evaluate(FIG, dps=30)
    with mpmath.workdps(30):
        assert abs(v.in_unit(Unit.BITS) * mpmath.log(2) - v.value) < mpmath.mpf(10) ** -28


def test_float_path_never_returns_nan():
    t = thm("yeshokri22.thm4_2")
    out = t.evaluate_np({**{k: float(parse_value(v, key="k", name=k)) for k, v in FIG.items()}, "K": np.arange(1, 5)})
    assert np.all(np.isfinite(out))
    assert not math.isnan(float(out[0]))


def test_format_rational_renders_huge_numbers_without_pythons_int_str_limit():
    from dptheory.core.notation import format_rational

    huge = format_rational(sp.Integer(10) ** 5000 + 1)
    assert huge.startswith("~1") and huge.endswith("e+5000")
    assert format_rational(sp.Rational(3, 4)) == "0.75" and format_rational(sp.Integer(-12)) == "-12"


# ----------------------------------------------------------------------------- limits
def test_a_limit_is_compiled_from_its_expression_unless_overridden():
    """The Ye & Shokri limits are compiled from ``expr`` (no hand lambda); Thm 4.3's is a declared override."""
    from dptheory.core.evaluator import CompiledLimit

    kinds = {k: thm(f"yeshokri22.{k}").limits["K"] for k in ("thm2_1", "thm3_3", "thm4_2", "thmD_6", "thmD_7")}
    assert all(isinstance(lim.mp, CompiledLimit) and not lim.override for lim in kinds.values())
    wor = thm("yeshokri22.thm4_3").limits["K"]
    assert wor.override and wor.mp_reason


def test_compiled_limit_gives_the_hand_derived_value():
    """Chourasia et al. (Thm D.7, arXiv 2203.05363 Eq. 127) as K -> oo: alpha S_g^2/(lam sigma^2 n^2); and
    Thm D.6: alpha S_g^2 (2 - eta lam)/(2 lam sigma^2 n^2), at a point where both are exact decimals."""
    p = {"alpha": 2, "eta": "0.05", "lam": "0.5", "beta": 1, "S_g": 3, "sigma": 1, "n": 10, "K": 1}
    for key, (num, den) in (("thmD_7", (2 * 9, 50)), ("thmD_6", (2 * 9 * 79, 40 * 100))):
        t = thm(f"yeshokri22.{key}")
        with mpmath.workdps(40):
            want = mpmath.mpf(num) / den
            got = t.limits["K"].mp(t.kernel_args(t.parse({k: v for k, v in p.items() if k in t.params})))
            assert abs(got - want) <= abs(want) * mpmath.mpf(10) ** -38


def test_a_limit_needs_an_expression_or_a_reasoned_override():
    from dptheory.core.theorem import Limit

    with pytest.raises(ValueError, match="needs an expression"):
        Limit("K")
    with pytest.raises(ValueError, match="mp_reason"):
        Limit("K", mp=lambda p: 0, expr=sp.Integer(1))
    assert Limit("K", mp=lambda p: 0, mp_reason="a case split").override


def test_a_condition_undefined_at_a_point_is_undecided_and_another_one_is_named() -> None:
    """shi26.thm1_test_error at q = 2 (found by the contract suite's random draws): the sides of Condition 2 contain
    m**(2q/(q - 2)) and a Max of it, undefined at q = 2; sympy raised TypeError (NaN comparison) and ValueError (a
    Max of NaN). Now those conditions are undecided there, and the evaluation names a condition that is violated."""
    import dptheory
    from dptheory.core.conditions import Status
    from dptheory.core.errors import ConditionViolated

    t = dptheory.get("shi26.thm1_test_error")
    p = {"mu_norm": "1/10", "sigma_p": 10, "sigma_0": "1e-6", "kappa": "1e-3", "q": 2, "m": 1, "n": 2, "d": 2,
         "eta": "1e-4", "delta": "1e-12", "T": 1, "C": 1, "C3": "1e-3"}
    results = t.check(p)
    assert any(r.status is Status.UNDECIDED for r in results)
    assert [r.text for r in results if r.status is Status.VIOLATED][-1] == "q > 2"
    with pytest.raises(ConditionViolated, match="requires"):
        t.evaluate(p)
