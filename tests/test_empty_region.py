"""A claim about no point is refused, never certified or found exhaustive vacuously (found by a new-user run: a
``where`` box outside a theorem's condition was "certified" with 0 boxes certified, exit 0)."""

from __future__ import annotations

import pytest

from dptheory.catalog import load_paper_file
from dptheory.core.errors import EmptyRegion
from dptheory.core.registry import REGISTRY
from dptheory.verify.checking import check_claim

FILE = """
[paper.toy29]
authors = "A. Toy"
year = 2029
title = "Toy"

[[notation.toy29.param]]
name = "x"
meaning = "a step"
domain = "positive integer"
[[notation.toy29.param]]
name = "n"
meaning = "steps"
domain = "positive integer"

[[theorem]]
key = "toy29.thm1"
title = "one over the steps left"
citation = "Theorem 1"
conditions = [{ when = "x <= n", reason = "a step of the n" }]
bound = "1/(n - x + 1)"

[[claim]]
key = "toy29.C1"
citation = "Section 1"
statement = "a late step is worse"
lhs = { theorem = "toy29.thm1", set = { x = 20 } }
rhs = { theorem = "toy29.thm1", set = { x = 30 } }
relation = "<="
"""


@pytest.fixture
def load(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    keys: list[str] = []

    def _load(tail: str) -> None:
        (tmp_path / "toy29.toml").write_text(FILE + tail, encoding="utf-8")
        keys.extend(load_paper_file("toy29.toml").keys)

    yield _load
    REGISTRY.withdraw(keys)


def test_a_box_outside_the_conditions_is_refused_naming_the_condition(load) -> None:
    # both sides need x <= n with x = 20 and 30: n = 2..10 holds no point (n is the only parameter left)
    load('where = { n = [2, 10] }\nverdict = "certified"\n')
    with pytest.raises(EmptyRegion) as err:
        check_claim(REGISTRY.get("toy29.C1"))
    shown = str(err.value)
    assert "\n" not in shown and shown.startswith("toy29.C1: no point of its region satisfies the conditions")
    assert "at n = 6: 20 <= n and 30 <= n fails" in shown
    assert shown.endswith("n = 2..10, any x allowed by the conditions")


def test_a_box_that_meets_the_conditions_is_certified(load) -> None:
    """The same claim where the box meets the conditions (n = 25..40 holds n >= 30 from 30 on) is decided."""
    load('where = { n = [25, 40] }\nverdict = "certified"\n')
    assert check_claim(REGISTRY.get("toy29.C1")).verdict.value == "certified"


def test_a_finite_set_outside_the_conditions_is_refused(load) -> None:
    load('region = { choices = { n = [3, 5] } }\nverdict = "exhaustive"\n')
    with pytest.raises(EmptyRegion, match=r"\(its 2 points, every one outside; at n = 3: 20 <= n and 30 <= n fails\)"):
        check_claim(REGISTRY.get("toy29.C1"))
