"""The enums that replace option strings (dptheory.core.units): batch schemes and RDP -> (eps, delta) conversions.

Each has a validating constructor (``parse``) that accepts a member or one of its documented spellings and turns
anything else into a one-line InvalidParameter naming what is accepted.
"""

from __future__ import annotations

import json

import mpmath
import pytest

from dptheory.core.errors import InvalidParameter
from dptheory.core.units import BATCH_SCHEME_ALIASES, BatchScheme, ConversionMethod


@pytest.mark.parametrize(
    ("text", "member"),
    [
        ("shuffle", BatchScheme.SHUFFLE_PARTITION),
        ("Shuffle-and-Partition", BatchScheme.SHUFFLE_PARTITION),
        ("shuffle_partition", BatchScheme.SHUFFLE_PARTITION),
        ("without_replacement", BatchScheme.WITHOUT_REPLACEMENT),
        ("without-replacement", BatchScheme.WITHOUT_REPLACEMENT),
        ("wor", BatchScheme.WITHOUT_REPLACEMENT),
        ("fixed", BatchScheme.FIXED_ORDER),
        ("fixed_order", BatchScheme.FIXED_ORDER),
        ("fixed-order", BatchScheme.FIXED_ORDER),
    ],
)
def test_batch_scheme_spellings(text: str, member: BatchScheme) -> None:
    assert BatchScheme.parse(text) is member
    assert BatchScheme.parse(member) is member


def test_every_alias_names_a_member_and_every_member_its_own_value() -> None:
    assert {BatchScheme(v) for v in BATCH_SCHEME_ALIASES.values()} == set(BatchScheme)
    for m in BatchScheme:
        assert BATCH_SCHEME_ALIASES[m.value] == m.value
        assert str(m) == m.value  # printed, written to CSV/JSON and compared as the plain name


@pytest.mark.parametrize("bad", ["poisson", "", "shuffled", 3, None])
def test_batch_scheme_rejects_unknown_names(bad: object) -> None:
    with pytest.raises(InvalidParameter, match=r"unknown batch scheme; use one of .*'wor'") as exc:
        BatchScheme.parse(bad, key="train.noisy_gd", citation="Ye & Shokri 2022, Algorithm 1")  # type: ignore[arg-type]
    assert str(exc.value).startswith("train.noisy_gd (Ye & Shokri 2022, Algorithm 1): parameter scheme")


def test_conversion_method() -> None:
    assert ConversionMethod.parse("improved") is ConversionMethod.IMPROVED
    assert ConversionMethod.parse("classic") is ConversionMethod.CLASSIC
    assert ConversionMethod.parse(ConversionMethod.CLASSIC) is ConversionMethod.CLASSIC
    assert json.dumps({"method": ConversionMethod.IMPROVED}) == '{"method": "improved"}'
    for bad in ("Improved", "both", "", None, 1):
        with pytest.raises(InvalidParameter, match=r"parameter method = .* must be 'improved' or 'classic'"):
            ConversionMethod.parse(bad)  # type: ignore[arg-type]


def test_optimize_order_takes_the_enum_or_its_name_and_refuses_others() -> None:
    from dptheory.privacy.conversion import optimize_order

    def rdp(a: mpmath.mpf) -> mpmath.mpf:  # Gaussian mechanism, sensitivity 1, sigma 2: alpha / 8
        return a / 8

    orders = [2, 4, 8, 16, 32]
    with mpmath.workdps(60):
        delta = mpmath.mpf(1) / 10**5
    by_name = optimize_order(rdp, delta=delta, orders=orders, method="classic", dps=50)
    by_member = optimize_order(rdp, delta=delta, orders=orders, method=ConversionMethod.CLASSIC, dps=50)
    assert by_name.method is ConversionMethod.CLASSIC and by_member == by_name
    # classic at order a: a/8 + log(1e5)/(a - 1); the best listed order is 8 (independent closed form)
    with mpmath.workdps(50):
        want = min(mpmath.mpf(a) / 8 + mpmath.log(10**5) / (a - 1) for a in orders)
    assert mpmath.almosteq(by_name.epsilon, want, rel_eps=mpmath.mpf(10) ** -40)
    with pytest.raises(ValueError, match="method"):  # InvalidParameter is a ValueError, as documented
        optimize_order(rdp, delta=1e-5, orders=orders, method="clasic")


def test_pld_rdp_epsilon_accepts_the_enum() -> None:
    from dptheory.privacy.pld import rdp_epsilon_best

    a = rdp_epsilon_best(0.01, 1.0, 100, 1e-5, method="classic", dps=15)
    b = rdp_epsilon_best(0.01, 1.0, 100, 1e-5, method=ConversionMethod.CLASSIC, dps=15)
    assert a.epsilon == b.epsilon and a.method is ConversionMethod.CLASSIC
    with pytest.raises(InvalidParameter, match="must be 'improved' or 'classic'"):
        rdp_epsilon_best(0.01, 1.0, 100, 1e-5, method="tight", dps=15)


def test_quadratic_schemes() -> None:
    from dptheory.papers.yeshokri22.quadratic import COMPARED, FULL_BATCH, parse_scheme

    assert parse_scheme("wor") is BatchScheme.WITHOUT_REPLACEMENT
    assert parse_scheme("full_batch") == FULL_BATCH
    assert set(COMPARED) == {*BatchScheme, FULL_BATCH}
    assert COMPARED["shuffle"] == COMPARED[BatchScheme.SHUFFLE_PARTITION]  # the plain name still looks up
    with pytest.raises(InvalidParameter, match="use one of fixed, full_batch, shuffle, without_replacement"):
        parse_scheme("poisson")
    with pytest.raises(InvalidParameter, match="use one of fixed, shuffle, without_replacement"):
        parse_scheme("full_batch", tuple(BatchScheme))
