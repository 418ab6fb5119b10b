"""A decision shows a side's value only to the digits that side is reproducible to (printed digits are correct
digits): a floating-point side declares ``Custom.digits`` and a decision never prints more.

The PLD side of Ye & Shokri's C7 in (epsilon, delta) is dp-accounting's float64 FFT result, whose 11th digit
differs between machines; with 20 digits printed, the committed report differed from a regeneration elsewhere.
"""

from __future__ import annotations

import mpmath
import pytest

import dptheory  # noqa: F401  (installs discovery)
from dptheory.core.claims import Claim, Custom, Region, Relation, Verdict, constant
from dptheory.core.registry import REGISTRY
from dptheory.verify.points import decide_point, shown_digits


def _significant(text: str) -> int:
    mantissa = text.lstrip("-").split("e")[0].replace(".", "").lstrip("0")
    return len(mantissa)


def _claim(digits: int | None) -> Claim:
    side = Custom("float side", mp=lambda e, dps: mpmath.mpf(1) / 3, params=("x",), reason="a float", digits=digits)
    return Claim(key="ours.digits_probe", title="1/3 below 1/4", citation=REGISTRY.get("yeshokri22.C7").citation,
                 statement="s", reading="r", lhs=side, rhs=constant("a quarter", "0.25"), relation=Relation.LT,
                 region=Region(fixed={"x": 1}, description="one point"), verdict=Verdict.FALSIFIED)


def test_a_declared_side_shows_at_most_its_digits() -> None:
    d = decide_point(_claim(5), {"x": 1})
    assert _significant(d.lhs["value"]) == 5, d.lhs
    assert _significant(decide_point(_claim(None), {"x": 1}).lhs["value"]) == 20  # undeclared: the usual 20


def test_shown_digits_never_exceeds_what_is_asked() -> None:
    assert shown_digits(_claim(30).lhs, 20) == 20
    assert shown_digits(_claim(3).lhs, 20) == 3


@pytest.mark.parametrize("digits", [0, -1, 2.5])
def test_a_bad_digits_declaration_is_refused(digits: object) -> None:
    with pytest.raises(ValueError, match="digits must be a positive integer"):
        Custom("s", mp=lambda e, dps: 1, reason="r", digits=digits)  # type: ignore[arg-type]


def test_the_pld_sides_declare_their_reproducible_digits() -> None:
    from dptheory.papers.yeshokri22.claims_epsdelta import PLD_DIGITS

    for key in ("yeshokri22.C5_epsdelta_pld", "yeshokri22.C7_epsdelta_pld"):
        assert REGISTRY.get(key).rhs.digits == PLD_DIGITS <= 10, key


def test_quantity_passes_digits_to_a_custom_side_only() -> None:
    from dptheory.core.claims import Quantity

    assert Quantity(label="s", mp=lambda e, dps: 1, digits=3).digits == 3
    with pytest.raises(ValueError, match="digits"):
        Quantity(label="s", theorem="rdp.gaussian", digits=3)



#: the other parameters of McAllester's bound, fixed (its conditions give KL's sampling range)
_OTHERS = {"emp_risk": "0.1", "n": 100, "delta": "0.05"}


def _holding(digits: int | None, region: Region) -> Claim:
    """1/3 < 1/2 over ``KL``, a side that declares ``digits`` against a constant."""
    like = REGISTRY.get("pacbayes.C2")
    side = Custom("float side", mp=lambda e, dps: mpmath.mpf(1) / 3, np=lambda e: 1 / 3, params=("KL",),
                  parts=(like.lhs,), reason="a float", digits=digits)
    return Claim(key="ours.digits_probe_holds", title="1/3 below 1/2", citation=like.citation, statement="s",
                 reading="r", lhs=side, rhs=constant("a half", "0.5"), relation=Relation.LT, region=region,
                 verdict=Verdict.NOT_FALSIFIED, notation=like.notation)


@pytest.mark.parametrize("digits", [5, None])
def test_the_closest_approach_shows_at_most_the_sides_digits(digits: int | None) -> None:
    # a claim that holds reports its closest approach; the declared side there is shown to its digits too, both from
    # a check over a finite set and from a search (undeclared: 15 digits in both, one record:
    # dptheory.verify.evaluator.closest_record; before, 20 digits from a search)
    from dptheory.verify.checking import check_claim
    from dptheory.verify.search import search_counterexample

    finite = Region(fixed=_OTHERS, choices={"KL": [1, 2]}, description="two points")
    closest = check_claim(_holding(digits, finite)).to_dict()["closest_margin"]
    assert _significant(closest["lhs"]) == (digits or 15), closest
    box = Region(fixed=_OTHERS, ranges={"KL": (1.0, 2.0, False)}, description="KL in [1, 2]")
    searched = search_counterexample(_holding(digits, box), budget=50, seed=0)
    assert searched.closest is not None
    assert _significant(searched.closest.lhs) == (digits or 15), searched.closest
