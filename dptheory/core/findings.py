"""A finding mapped: where a falsified claim fails, where it holds, and the certified points between the two.

A falsified claim is reported with one certified counterexample; a researcher also wants to know *where* the
sentence fails and where it holds. The map has two halves, each owned by one object:

* the **failing part** is a field of the falsified claim (``Claim.failing``, a :class:`FindingMap`): the
  parameter ranges a search found it failing on, in words (``fails_on``), how they were found (``evidence``: the
  search, the grid, its counts), and its **edges** (:class:`Edge`): a point just inside the failing part (the
  claim fails there) and a point just outside it (the claim holds there), both decided exactly by the one point
  decision (:func:`dptheory.verify.points.decide_point`, on arb balls where the sides have ball evaluators)
  every time the claim is checked. A claim that fails at every point of its region says so (``everywhere``),
  with the evidence (a proof, a scan), and has no holding part;
* the **holding part** is a claim of its own, a *companion* (``Claim.companion_of`` = the falsified claim's
  key): the same two sides and relation on a narrower region, decided with the strongest verdict available
  (proved, certified, exhaustive; not falsified only when nothing stronger is possible, saying why). A
  companion is ours (the paper did not state the narrower sentence): it is labelled "Our claim" everywhere and
  tied to the sentence it narrows (``tests/test_claim_table.py``; ``docs/verdicts.md``, "Companions").

A companion is registered by the same paper package as the claim it narrows, so that loading the falsified
claim registers its companions (:func:`companions`). :func:`map_record` puts both halves into one record (with
the edges' decisions when a check made them) and :func:`map_sentences` renders it: ``dptheory show`` and
``check``, reports (:mod:`dptheory.report.build`) and the README's table (:mod:`dptheory.docs_gen`) all read
these two functions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = [
    "Edge",
    "FindingMap",
    "companions",
    "edge_roles",
    "holding_part",
    "map_record",
    "map_sentences",
    "point_text",
    "stale_edges",
]


@dataclass(frozen=True)
class Edge:
    """Two points across the edge of a finding's failing part: ``fails`` just inside it (the claim fails there)
    and ``holds`` just outside it (the claim holds there; ``None`` for a claim that fails everywhere, whose edges
    are points of its region where it fails), with what changes between them in words (``across``, e.g.
    ``"N = n/b from 3 to 4"``). Points are exact values (integers, decimal or fraction strings)."""

    fails: Mapping[str, Any]
    holds: Mapping[str, Any] | None = None
    across: str = ""

    def __post_init__(self) -> None:
        for role, pt in (("fails", self.fails), ("holds", self.holds)):
            if pt is None:
                continue
            if not isinstance(pt, Mapping) or not pt:
                raise ValueError(f"edge {self.across!r}: the point {role!r} must be a non-empty table parameter = "
                                 "value")
            bad = [k for k, v in pt.items() if isinstance(v, bool) or not isinstance(v, int | str)]
            if bad:
                raise ValueError(f"edge {self.across!r}: {role} {bad[0]} = {pt[bad[0]]!r}; accepted: an integer or a "
                                 "string holding an exact number (decimal or fraction)")


@dataclass(frozen=True)
class FindingMap:
    """Where a falsified claim fails: the failing part in words (``fails_on``, parameter ranges), how it was found
    (``evidence``: the search or grid, its size and counts, or the proof that it fails everywhere), the
    :class:`Edge` points decided at every check, and whether it fails at every point of the claim's region
    (``everywhere``: then no companion states a holding part, and the edges carry no holding point)."""

    fails_on: str
    evidence: str
    edges: tuple[Edge, ...] = ()
    everywhere: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "edges", tuple(self.edges))
        if not self.fails_on.strip() or not self.evidence.strip():
            raise ValueError("a finding's map needs the failing part in words (fails_on) and how it was found "
                             "(evidence)")
        if not self.edges:
            raise ValueError(f"the map of {self.fails_on!r} needs at least one edge (a point where the claim fails"
                             ", and one just outside the failing part where it holds)")
        for e in self.edges:
            if self.everywhere and e.holds is not None:
                raise ValueError(f"edge {e.across!r}: a claim that fails everywhere has no holding point")
            if not self.everywhere and e.holds is None:
                raise ValueError(f"edge {e.across!r}: give the point just outside the failing part where the claim "
                                 "holds (holds = {...}), or say that the claim fails everywhere")


class Mapped(Protocol):
    """What the map reads of a claim (:class:`dptheory.core.claims.Claim`, which imports this module)."""

    @property
    def key(self) -> str: ...

    @property
    def failing(self) -> FindingMap | None: ...

    @property
    def companion_of(self) -> str | None: ...


def companions(claim: Mapped) -> list[Any]:
    """The companions of ``claim`` (claims whose ``companion_of`` is its key), in key order: those registered, and
    those the committed index lists (a companion may be registered by another module of the claim's paper package
    than the claim itself; :meth:`~dptheory.core.registry.Registry.get` imports that one module)."""
    from dptheory.core.registry import REGISTRY

    keys = {c.key for c in REGISTRY.registered() if getattr(c, "companion_of", None) == claim.key}
    keys |= {row["key"] for row in REGISTRY.index().get("items", []) if row.get("companion_of") == claim.key}
    return [REGISTRY.get(k) for k in sorted(keys)]


def point_text(point: Mapping[str, Any]) -> str:
    """A point as the map prints it: ``n = 8, b = 4, K = 4``."""
    return ", ".join(f"{k} = {v}" for k, v in point.items())


def edge_roles(fmap: FindingMap) -> list[tuple[int, str, Mapping[str, Any]]]:
    """Every point of the map's edges with its role: ``(edge index, "fails" | "holds", point)``."""
    out: list[tuple[int, str, Mapping[str, Any]]] = []
    for i, e in enumerate(fmap.edges):
        out.append((i, "fails", e.fails))
        if e.holds is not None:
            out.append((i, "holds", e.holds))
    return out


def map_record(claim: Mapped, decided: Sequence[Mapping[str, Any]] | None = None) -> dict[str, Any] | None:
    """The map of a claim as one record (``None`` when it has none), as ``show --json``, ``check --json``, reports
    and the README read it.

    For a falsified claim with a :class:`FindingMap`: ``fails_on``, ``evidence``, ``everywhere``, ``edges`` (per
    edge: ``across`` and, per role ``fails``/``holds``, the point and, when a check decided it, its decision:
    ``holds``, ``certified``, ``evidence``, as ``decided`` gives them in the order of :func:`edge_roles`) and
    ``companions`` (key, title, region as covered, its description in words, verdict on record). For a companion:
    ``companion_of`` only.
    """
    if claim.failing is None:
        return {"companion_of": claim.companion_of} if claim.companion_of else None
    fmap = claim.failing
    edges: list[dict[str, Any]] = [{"across": e.across} for e in fmap.edges]
    for j, (i, role, pt) in enumerate(edge_roles(fmap)):
        entry: dict[str, Any] = {"point": {k: str(v) for k, v in pt.items()}}
        if decided is not None:
            entry["decision"] = dict(decided[j])
        edges[i][role] = entry
    return {
        "fails_on": fmap.fails_on,
        "evidence": fmap.evidence,
        "everywhere": fmap.everywhere,
        "edges": edges,
        "companions": [{"key": c.key, "title": c.title, "region": c.region.describe(),
                        "description": c.region.description or c.region.describe(), "verdict": c.expected.value}
                       for c in companions(claim)],
    }


def holding_part(record: Mapping[str, Any]) -> str:
    """The holding part of a map record in a few words: the companions' regions and verdicts on record, or that
    the claim fails everywhere (or has no companion yet)."""
    if record.get("everywhere"):
        return "nowhere on the claim's region (it fails everywhere there)"
    comps = record.get("companions") or []
    if not comps:
        return "not stated yet (no companion claim)"
    return "; ".join(f"{c['region']} ({c['key']}, {c['verdict']})" for c in comps)


def map_sentences(record: Mapping[str, Any] | None) -> list[str]:
    """A map record (:func:`map_record`) as plain sentences: where the claim fails and how that was found, each
    edge's points (with their decisions when a check made them), and where it holds (its companions)."""
    if not record:
        return []
    if "fails_on" not in record:
        return [f"Companion of {record['companion_of']}: this claim states where {record['companion_of']} holds."]
    where = "Fails everywhere on the claim's region" if record["everywhere"] else "Fails on"
    out = [f"{where}: {record['fails_on']}.", f"How the failing part was found: {record['evidence']}."]
    for e in record["edges"]:
        parts = []
        for role in ("fails", "holds"):
            if role not in e:
                continue
            entry = e[role]
            said = f"{role} at {point_text(entry['point'])}"
            dec = entry.get("decision")
            if dec is not None:
                said += f" ({_decision_words(role, dec)})"
            parts.append(said)
        across = f" ({e['across']})" if e.get("across") else ""
        out.append(f"Edge{across}: " + "; ".join(parts) + ".")
    if not record["everywhere"]:
        out.append(f"Holds on: {holding_part(record)}.")
    return out


def _decision_words(role: str, dec: Mapping[str, Any]) -> str:
    """A decided edge point in words: whether it is as the map says, and how it was decided."""
    want = role == "holds"
    got = dec.get("holds")
    how = "certified" if dec.get("certified") else "not certified"
    if got is want:
        return how
    found = "undecided" if got is None else ("holds" if got else "fails")
    return f"STALE: the claim {found} here ({dec.get('evidence', '')})"


def stale_edges(record: Mapping[str, Any] | None) -> list[str]:
    """The decided edge points of a map record that are not as the map says (a point listed where the claim fails
    at which it holds, or is undecided, and the converse), as ``ROLE at POINT`` texts."""
    out = []
    for e in (record or {}).get("edges", []):
        for role in ("fails", "holds"):
            dec = (e.get(role) or {}).get("decision")
            if dec is not None and dec.get("holds") is not (role == "holds"):
                out.append(f"{role} at {point_text(e[role]['point'])}")
    return out
