"""Findings mapped, not pinned at one point (dptheory/core/findings.py; docs/verdicts.md, "Companions").

A falsified claim carries where it fails (``Claim.failing``: the failing part, how it was found, points across its
edge decided at every check); a companion claim (``Claim.companion_of``) states where it holds, with its own
verdict. Here: the mechanism on a toy claim (check, show, the paper-file tables and their refusals, the report's
table), the README's generated table, and the obligations of the shipped papers: every finding is mapped (a
companion, or "fails everywhere"), every companion keeps the sides and relation of the claim it narrows.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest
import sympy as sp

import dptheory  # noqa: F401  (registers the papers)
from dptheory.core import paperfile
from dptheory.core.citation import Paper
from dptheory.core.claims import Claim, Region, Relation, Verdict, formula
from dptheory.core.describe import claim_text
from dptheory.core.errors import DPTheoryError
from dptheory.core.findings import Edge, FindingMap, companions, map_record
from dptheory.core.registry import REGISTRY
from dptheory.verify.checking import check_claim

#: falsified claims whose map is not written yet, each removed when its map lands (none left: every finding is
#: mapped); a finding added anywhere without a map fails test_every_finding_is_mapped
PENDING: set[str] = set()

X = sp.Symbol("x", positive=True)
TOY = Paper(key="toy26", authors="A. Toy", year=2026, title="Toy")
SIDES = dict(lhs=formula("x^2", X**2), rhs=formula("x", X), relation=Relation.LT)
TOY_MAP = FindingMap(fails_on="x >= 1", evidence="a grid x = k/10, k = 1..20: fails from k = 10 on",
                     edges=(Edge(fails={"x": "11/10"}, holds={"x": "9/10"}, across="x from 11/10 to 9/10"),))


def toy(**changes: Any) -> tuple[Claim, Claim]:
    """A toy finding ('x^2 < x' on x in {1/2, 3/2}, pinned at 3/2, mapped by TOY_MAP) and its companion (x in
    {1/4, 1/2, 3/4}, exhaustive); ``changes`` replace fields of the finding."""
    finding = Claim(key="toy26.C1", title="x^2 below x", citation=TOY.item("Sec. 1"), statement="x^2 < x",
                    reading="r", region=Region(choices={"x": ["1/2", "3/2"]}), counterexamples=({"x": "3/2"},),
                    failing=TOY_MAP, finding="fails from x = 1 on", **SIDES)
    companion = Claim(key="toy26.C1_holds", title="x^2 below x for x < 1", citation=TOY.item("Sec. 1"),
                      statement="x^2 < x", reading="r", region=Region(choices={"x": ["1/4", "1/2", "3/4"]}),
                      verdict=Verdict.EXHAUSTIVE, companion_of="toy26.C1", **SIDES)
    return dataclasses.replace(finding, **changes), companion


@pytest.fixture
def registered() -> Iterator[tuple[Claim, Claim]]:
    finding, companion = toy()
    REGISTRY.add(finding)
    REGISTRY.add(companion)
    try:
        yield finding, companion
    finally:
        REGISTRY.withdraw([finding.key, companion.key])


# ----------------------------------------------------------------------------- the mechanism, on a toy claim
def test_check_decides_the_edges_and_names_the_companion(registered: tuple[Claim, Claim]) -> None:
    finding, companion = registered
    res = check_claim(finding)
    assert res.verdict is Verdict.FALSIFIED and res.agrees and res.disagreement() is None
    edge = res.map["edges"][0]
    assert edge["fails"]["decision"]["holds"] is False and edge["fails"]["decision"]["certified"]
    assert edge["holds"]["decision"]["holds"] is True and edge["holds"]["decision"]["certified"]
    shown = "x in {1/4, 1/2, 3/4}"
    assert res.map["companions"] == [{"key": "toy26.C1_holds", "title": companion.title, "region": shown,
                                      "description": shown, "verdict": "exhaustive"}]
    text = "\n".join(res.sentences())
    assert "Fails on: x >= 1." in text
    assert "Edge (x from 11/10 to 9/10): fails at x = 11/10 (certified); holds at x = 9/10 (certified)." in text
    assert "Holds on: x in {1/4, 1/2, 3/4} (toy26.C1_holds, exhaustive)." in text
    assert res.to_dict()["map"] == res.map
    # the companion is ours, says whose holding part it states, and is checked as any claim
    assert companion.ours and companion.source_label == "Our claim"
    res2 = check_claim(companion)
    assert res2.verdict is Verdict.EXHAUSTIVE and res2.map == {"companion_of": "toy26.C1"}
    assert companions(finding) == [companion]


def test_an_edge_not_as_the_map_says_is_a_disagreement(registered: tuple[Claim, Claim]) -> None:
    """Mutations: the two points of the edge swapped, and a 'fails' point moved where the claim holds."""
    swapped = dataclasses.replace(TOY_MAP, edges=(Edge(fails={"x": "9/10"}, holds={"x": "11/10"}),))
    finding, _ = toy(failing=swapped)
    res = check_claim(finding)
    assert res.verdict is Verdict.FALSIFIED and not res.agrees
    assert res.disagreement() == ("the map on record is stale: the claim is not as the map says at fails at x = 9/10; "
                                  "holds at x = 11/10")
    assert "STALE: the claim holds here" in "\n".join(res.sentences())
    inside = dataclasses.replace(TOY_MAP, edges=(Edge(fails={"x": "1/2"}, holds={"x": "9/10"}),))
    assert check_claim(toy(failing=inside)[0]).disagreement() is not None


def test_show_prints_the_map_without_deciding_it(registered: tuple[Claim, Claim]) -> None:
    finding, companion = registered
    text = claim_text(finding)
    assert "map (its edge points are decided by `dptheory check`):" in text
    assert "    Edge (x from 11/10 to 9/10): fails at x = 11/10; holds at x = 9/10." in text
    assert "    Holds on: x in {1/4, 1/2, 3/4} (toy26.C1_holds, exhaustive)." in text
    assert "Companion of toy26.C1: this claim states where toy26.C1 holds." in claim_text(companion)
    assert map_record(finding)["edges"][0]["fails"] == {"point": {"x": "11/10"}}


def test_a_map_is_refused_where_it_means_nothing() -> None:
    with pytest.raises(ValueError, match="for a falsified claim"):
        toy(counterexamples=(), verdict=Verdict.NOT_FALSIFIED)
    with pytest.raises(ValueError, match="cannot be on record as falsified"):
        dataclasses.replace(toy()[0], companion_of="toy26.C0")
    with pytest.raises(ValueError, match="names the falsified claim"):
        dataclasses.replace(toy()[1], companion_of="toy26.C1_holds")
    with pytest.raises(ValueError, match="no holding point"):
        FindingMap(fails_on="x", evidence="e", edges=(Edge(fails={"x": 1}, holds={"x": 2}),), everywhere=True)
    with pytest.raises(ValueError, match="give the point just outside"):
        FindingMap(fails_on="x", evidence="e", edges=(Edge(fails={"x": 1}),))
    with pytest.raises(ValueError, match="at least one edge"):
        FindingMap(fails_on="x", evidence="e")
    with pytest.raises(ValueError, match="an exact number"):
        Edge(fails={"x": 1.5})


PAPER_FILE = """
[paper.toy26]
authors = "A. Toy"
year = 2026
title = "Toy"

[[claim]]
key = "toy26.C1"
title = "t"
citation = { paper = "toy26", item = "Section 2" }
statement = "s"
reading = "r"
lhs = { theorem = "mcallester99", label = "McAllester" }
rhs = { constant = 1, label = "one" }
relation = "<"
counterexamples = [{ emp_risk = "0.1", n = 10, delta = "0.5", KL = 50 }]
[claim.failing]
fails_on = "small n"
evidence = "a grid"
[[claim.failing.edges]]
fails = { emp_risk = "0.1", n = 10, delta = "0.5", KL = 50 }
holds = { emp_risk = "0.1", n = 100000, delta = "0.5", KL = 50 }
across = "n from 10 to 10^5"

[[claim]]
key = "toy26.C1_holds"
title = "t"
citation = { paper = "toy26", item = "Section 2" }
statement = "s"
reading = "r"
lhs = { theorem = "mcallester99", label = "McAllester" }
rhs = { constant = 1, label = "one" }
relation = "<"
verdict = "not falsified"
companion_of = "toy26.C1"
"""


def _paper_claims(text: str) -> list[Claim]:
    from dptheory.papers.pacbayes import theorems  # noqa: F401  (registers mcallester99)
    from dptheory.verify.sides import side_at_pin

    return paperfile.parse(text, source="toy26/paper.toml", package="dptheory.papers.pacbayes").claims(
        side_at_pin=side_at_pin)


def test_a_paper_file_declares_a_map_and_a_companion() -> None:
    finding, companion = _paper_claims(PAPER_FILE)
    assert finding.failing == FindingMap(
        fails_on="small n", evidence="a grid",
        edges=(Edge(fails={"emp_risk": "0.1", "n": 10, "delta": "0.5", "KL": 50},
                    holds={"emp_risk": "0.1", "n": 100000, "delta": "0.5", "KL": 50}, across="n from 10 to 10^5"),))
    assert companion.companion_of == "toy26.C1" and companion.ours
    res = check_claim(finding)
    assert res.agrees, res.disagreement()


@pytest.mark.parametrize("edit, said", [
    (("counterexamples = [{ emp_risk = \"0.1\", n = 10, delta = \"0.5\", KL = 50 }]\n", 'verdict = "falsified"\n'),
     "field 'failing' maps where a falsified claim fails"),
    (('across = "n from 10 to 10^5"\n', 'across = "x"\n[claim.failing.extra]\n'), "extra"),
    (('fails_on = "small n"\n', 'fails_on = "small n"\neverywhere = true\n'), "no holding point when everywhere"),
    (('holds = { emp_risk = "0.1", n = 100000', 'holds = { emp_risk = 0.1, n = 100000'),
     "a table parameter = an integer or a string"),
    (('companion_of = "toy26.C1"', 'companion_of = "toy26.C1_holds"'), "the key of another claim"),
])
def test_a_paper_file_map_is_refused_naming_the_field(edit: tuple[str, str], said: str) -> None:
    text = PAPER_FILE.replace(*edit, 1)
    assert text != PAPER_FILE
    with pytest.raises(DPTheoryError, match=said):
        _paper_claims(text)


def test_the_report_tabulates_each_finding_with_its_holding_part(registered: tuple[Claim, Claim]) -> None:
    from dptheory.report.build import findings_map_table
    from dptheory.report.config import defaults

    finding, companion = registered
    cfg = dataclasses.replace(defaults("yeshokri22"), include=("toy26",))
    results = [check_claim(finding), check_claim(companion)]
    lines = findings_map_table([finding, companion], results, cfg)
    rows = [ln for ln in lines if ln.startswith(r"\texttt")]
    assert rows == [r"\texttt{toy26.C1} & x $\ge$ 1 (edge points certified) & toy26.C1\_holds: x in \{1/4, 1/2, 3/4\} "
                    r"& exhaustive \\"], rows
    assert findings_map_table([companion], results[1:], cfg) == []  # no finding: no table


# ----------------------------------------------------------------------------- the README and the shipped papers
def test_the_readme_lists_every_finding_with_its_holding_part() -> None:
    from pathlib import Path

    from dptheory.docs_gen import FINDINGS_BEGIN, FINDINGS_END, findings_markdown

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    block = readme.split(FINDINGS_BEGIN, 1)[1].split(FINDINGS_END, 1)[0].strip()
    assert block == findings_markdown(), "README's findings table is stale: run `python -m dptheory.docs_gen`"
    falsified = [c for c in REGISTRY.claims() if c.expected is Verdict.FALSIFIED]
    for c in falsified:
        assert f"| `{c.key}` |" in block
        for comp in companions(c):
            assert f"`{comp.key}`: " in block


def _falsified() -> list[Claim]:
    return sorted((c for c in REGISTRY.claims() if c.expected is Verdict.FALSIFIED), key=lambda c: c.key)


def test_every_finding_is_mapped() -> None:
    """Every claim on record as falsified has a map with a companion (where it holds) or says it fails
    everywhere (then no companion); PENDING lists the ones not mapped yet, and only those."""
    unmapped, bad = [], []
    for c in _falsified():
        if c.failing is None:
            unmapped.append(c.key)
            continue
        comps = companions(c)
        if c.failing.everywhere and comps:
            bad.append(f"{c.key}: fails everywhere, yet {comps[0].key} states a holding part")
        if not c.failing.everywhere and not comps:
            bad.append(f"{c.key}: no companion states where it holds, and the map does not say it fails everywhere")
    assert not bad, bad
    new = sorted(set(unmapped) - PENDING)
    assert not new, f"findings without a map (failing=FindingMap(...) and a companion, or everywhere): {new}"
    landed = sorted(PENDING - set(unmapped))
    assert not landed, f"mapped (or no longer findings): remove from PENDING: {landed}"


def test_every_companion_keeps_the_sides_and_relation_of_the_claim_it_narrows() -> None:
    """A companion is the sentence on a narrower region: same sides, relation and factor, the same fixed values,
    choices among the claim's, registered by the same paper package."""
    claims = {c.key: c for c in REGISTRY.claims()}
    comps = [c for c in claims.values() if c.companion_of is not None]
    for comp in comps:
        assert comp.companion_of in claims, f"{comp.key}: companion of an unknown claim {comp.companion_of}"
        base = claims[comp.companion_of]
        assert base.expected is Verdict.FALSIFIED and base.failing is not None, (comp.key, base.key)
        assert not base.failing.everywhere, f"{comp.key}: {base.key} fails everywhere"
        assert comp.expected is not Verdict.FALSIFIED and comp.ours
        for q, p in ((comp.lhs, base.lhs), (comp.rhs, base.rhs)):
            assert q == p or (q.label, q.expression(), [r.theorem for r in q.theorem_refs()]) == (
                p.label, p.expression(), [r.theorem for r in p.theorem_refs()]), f"{comp.key}: a side differs"
        assert (comp.relation, comp.factor) == (base.relation, base.factor), comp.key
        for name, v in base.region.fixed.items():
            assert str(comp.region.fixed.get(name)) == str(v), f"{comp.key}: {name} is fixed to {v} in {base.key}"
        for name, vals in comp.region.choices.items():
            if name in base.region.choices:
                assert {str(v) for v in vals} <= {str(v) for v in base.region.choices[name]}, (comp.key, name)
        pkg = REGISTRY.origin(base.key).rsplit(".", 1)[0]
        assert REGISTRY.origin(comp.key).startswith(pkg), f"{comp.key}: registered outside {pkg}"
