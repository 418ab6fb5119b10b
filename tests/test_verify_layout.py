"""The verification package's layout: its modules use each other's public names only, stay small, take paper
facts from the theorems' declarations, and never need hypothesis at run time; the margin's one rule.

These fail on the tree before verify/ was split (search.py imported ``dptheory.testing.strategies``, hence
hypothesis; ``_SLOW_FRACTIONAL`` named paper keys; search.py had 1,454 lines; 8 private names were imported
across modules) and on mutations of the margin's rule (:mod:`dptheory.verify.margin`).
"""

from __future__ import annotations

import ast
import math
import subprocess
import sys
from pathlib import Path

import pytest

from dptheory.core.claims import Claim, Relation
from dptheory.core.registry import REGISTRY
from dptheory.verify.margin import EQ_TOL, float_margin

VERIFY = Path(__file__).resolve().parents[1] / "dptheory" / "verify"
FILES = sorted(VERIFY.glob("*.py"))
# no private name of another module is imported (the outward-rounded decimal end of a ball is
# ``dptheory.core.compile.decimal_bound``, public)
ALLOWED_PRIVATE: set[tuple[str, str]] = set()


def _imports(path: Path) -> list[tuple[str, str]]:
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dptheory"):
            out.extend((node.module or "", a.name) for a in node.names)
    return out


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_verify_imports_only_public_names(path: Path) -> None:
    private = [(m, n) for m, n in _imports(path) if n.startswith("_") and (m, n) not in ALLOWED_PRIVATE]
    assert not private, f"{path.name} imports private names: {private}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_verify_modules_and_functions_are_small(path: Path) -> None:
    text = path.read_text()
    assert text.count("\n") <= 800, f"{path.name}: {text.count(chr(10))} lines (at most 800)"
    long = [
        (n.name, n.end_lineno - n.lineno + 1)
        for n in ast.walk(ast.parse(text))
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.end_lineno - n.lineno + 1 > 100
    ]
    assert not long, f"{path.name}: functions over 100 lines: {long}"


def test_slow_fractional_orders_are_declared_by_the_theorems() -> None:
    """The search draws a Renyi order at integers only where a side's theorem declares it slow at fractional
    orders (Theorem.slow_fractional), not from a list of paper keys in the search."""
    from dptheory.verify.space import SearchSpace

    declared = {t.key for t in REGISTRY.theorems() if t.slow_fractional}
    assert declared == {"rdp.subsampled_gaussian", "yeshokri22.composition"}
    assert "yeshokri22.composition" not in (VERIFY / "space.py").read_text()
    claim = next(
        c
        for c in REGISTRY.claims()
        if any(r.theorem == "yeshokri22.composition" for q in c.sides() for r in q.theorem_refs())
        and "alpha" in c.params
        and "alpha" not in c.region.fixed
        and "alpha" not in c.region.choices
    )
    space = SearchSpace(claim)
    alpha = next(c for c in space.coords if c.name == "alpha")
    assert alpha.kind == "int"
    assert any("yeshokri22.composition" in s for s in space.snapped), space.snapped


def test_a_search_never_imports_hypothesis() -> None:
    """hypothesis is a test dependency: a claim search in a fresh interpreter does not load it."""
    code = (
        "import sys\n"
        "from dptheory.core.registry import REGISTRY\n"
        "from dptheory.verify.search import search_counterexample\n"
        "search_counterexample(REGISTRY.get('maxinfo.route_superlinear_regime'), budget=12)\n"
        "assert 'hypothesis' not in sys.modules, 'hypothesis was imported'\n"
        "assert not [m for m in sys.modules if m.startswith('dptheory.testing')]\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=600)


def _claim(relation: Relation, factor: float | None = None) -> Claim:
    import dataclasses

    base = next(iter(REGISTRY.claims()))
    return dataclasses.replace(base, relation=relation, factor=factor, counterexamples=(), verdict=base.verdict)


@pytest.mark.parametrize(
    ("relation", "lhs", "rhs", "expected"),
    [
        (Relation.LT, 1.0, 2.0, 0.5),
        (Relation.GE, 1.0, 2.0, -0.5),
        (Relation.LE, math.inf, math.inf, 0.0),
        (Relation.LT, 1.0, math.inf, math.inf),
        (Relation.GT, 1.0, math.inf, -math.inf),
        (Relation.EQ, 2.0, 2.0, EQ_TOL),
        (Relation.EQ, 1.0, 2.0, EQ_TOL - 0.5),
    ],
)
def test_the_float_margin_rule(relation: Relation, lhs: float, rhs: float, expected: float) -> None:
    assert float_margin(_claim(relation), lhs, rhs) == expected


def test_the_float_margin_of_nan_and_factor_claims() -> None:
    assert math.isnan(float_margin(_claim(Relation.LT), math.nan, 1.0))
    f = _claim(Relation.LT, factor=2.0)
    assert float_margin(f, 1.0, 1.0) == math.log(2.0)
    assert float_margin(f, -1.0, 1.0) == -math.inf
    assert math.isnan(float_margin(f, -1.0, -1.0))  # both sides <= 0: the float64 screen cannot tell


@pytest.mark.parametrize(
    ("relation", "lhs", "rhs", "factor"),
    [
        (Relation.LT, 1.0, 2.0, None),
        (Relation.GE, 1.0, 2.0, None),
        (Relation.LE, math.inf, math.inf, None),  # two equal infinities: a tie, margin 0 (it was +inf here)
        (Relation.LT, math.inf, math.inf, None),  # the same tie fails '<': margin 0 all the same (it was -inf)
        (Relation.LT, 1.0, math.inf, None),
        (Relation.GT, 1.0, math.inf, None),
        (Relation.EQ, 2.0, 2.0, None),
        (Relation.EQ, 1.0, 2.0, None),
        (Relation.LT, 1.0, 3.0, 2.0),
        (Relation.LT, 1.0, 1.5, 2.0),
    ],
)
def test_the_mp_decision_and_the_float_screen_share_the_margin_rule(
    relation: Relation, lhs: float, rhs: float, factor: float | None
) -> None:
    """The mpmath decision at 50 digits (equality tolerance 10^-42 = EQ_TOL) gives the float64 screen's margin,
    through the one rule (:func:`dptheory.verify.margin.mp_margin`); its decision agrees with the margin's sign
    except at a tie, which the decision settles."""
    import dataclasses

    from dptheory.core.claims import constant
    from dptheory.verify.margin import mp_margin
    from dptheory.verify.points import evaluate_point

    claim = dataclasses.replace(_claim(relation, factor), lhs=constant("lhs", lhs), rhs=constant("rhs", rhs))
    out = evaluate_point(claim, {}, dps=50)
    expected = float_margin(claim, lhs, rhs)
    assert out.margin == pytest.approx(expected, rel=1e-15, abs=0), (out, expected)  # float64 rounding
    assert mp_margin(claim, out.lhs, out.rhs, tol=EQ_TOL) == pytest.approx(expected, rel=1e-15, abs=0)
    if expected != 0:
        assert out.holds is (expected > 0)
    else:  # a tie of two infinities: the decision is the relation's at a tie
        assert out.holds is (relation in (Relation.LE, Relation.GE, Relation.EQ))


# ============================================================================ a side is one of five variants


def test_quantity_builds_the_variant_its_fields_name() -> None:
    """``Quantity(...)`` (the constructor the papers call) returns the frozen variant its fields name, and each
    variant refuses the fields of another (fails on the one 11-field dataclass, which took any mix)."""
    import dataclasses

    import sympy as sp

    from dptheory.core.claims import (
        Combination,
        Constant,
        Custom,
        Formula,
        Op,
        Quantity,
        TheoremSide,
        combine,
        constant,
        formula,
    )

    x = sp.Symbol("x", positive=True)
    thm = Quantity("t", theorem="yeshokri22.composition")
    assert type(thm) is TheoremSide and thm.thm().key == "yeshokri22.composition"
    f = formula("x^2", x**2)
    assert type(f) is Formula and f.needed() == ("x",)
    c = combine("t + x^2", "+", thm, f)
    assert type(c) is Combination and c.op is Op.ADD and c.parts == (thm, f)
    k = constant("inf", "inf")
    assert type(k) is Constant and k.expression() == sp.oo
    cu = Quantity("mp only", mp=lambda e, d: 1, params=("x",))
    assert type(cu) is Custom and cu.ball_reason() == "mp only is given by an mpmath function only"
    with pytest.raises(ValueError, match="fields mp are not fields of a theorem side"):
        Quantity("t", theorem="yeshokri22.composition", mp=lambda e, d: 1)
    with pytest.raises(ValueError, match="op must be an Op"):
        Combination("bad", op="+", parts=(thm, f))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="a reason is required"):
        Custom("no reason", mp=lambda e, d: 1)
    with pytest.raises(ValueError, match="unknown operator"):
        combine("bad", "^", thm, f)
    with pytest.raises(dataclasses.FrozenInstanceError):
        thm.label = "other"  # type: ignore[misc]


def test_each_variant_has_one_evaluation_entry_for_every_backend() -> None:
    """``evaluate(side, backend, ...)`` is registered per variant; the side_* functions call it (a backend
    outside the four is a one-line error naming the four)."""
    import mpmath
    import sympy as sp

    from dptheory.core.claims import Combination, Constant, Custom, Formula, TheoremSide, combine, constant, formula
    from dptheory.verify.sides import BACKENDS, evaluate

    assert set(BACKENDS) == {"mp", "np", "np_batch", "arb"}
    for cls in (TheoremSide, Formula, Combination, Constant, Custom):
        assert evaluate.dispatch(cls) is not evaluate.dispatch(object), cls
    x = sp.Symbol("x", positive=True)
    side = combine("x^2 + 1", "+", formula("x^2", x**2), constant("1", 1))
    exact = {"x": sp.Rational(1, 3)}
    with mpmath.workdps(40):
        assert abs(evaluate(side, "mp", exact, 30) - mpmath.mpf(10) / 9) < mpmath.mpf(10) ** -29
    assert evaluate(side, "np", exact) == pytest.approx(10 / 9, rel=1e-15)
    assert evaluate(side, "np_batch", {"x": [1.0]}) is None
    with pytest.raises(ValueError, match="unknown backend 'float' \\(backends: mp, np, np_batch, arb\\)"):
        evaluate(side, "float", exact)
