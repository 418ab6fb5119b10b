"""The result of checking a claim, and how it reads (text sentences, JSON, notebook HTML).

The verdict words are :class:`dptheory.core.claims.Verdict` (proved / certified / exhaustive / not
falsified / falsified); a result also says how it was reached (``method``), on which region
(``region``, printed with every certified or exhaustive verdict), how many points or boxes were
examined, the closest approach (the smallest margin found and where) and, for a falsified claim, the
counterexample with both sides (their enclosures when certified).
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

from dptheory.core.claims import Verdict
from dptheory.core.findings import map_sentences, stale_edges
from dptheory.core.words import plural

__all__ = ["ClaimResult", "Verdict"]


@dataclass
class ClaimResult:
    """Outcome of checking one claim.

    Attributes:
        claim: the claim's key.
        verdict: one of the five verdicts.
        method: how it was reached, in words ("branch and bound with arb balls", "pinned
            counterexample", "symbolic proof", "search", "exhaustive evaluation").
        region: the region the verdict is about (for certified/exhaustive: exactly what was covered).
        examples_tried: points evaluated (searches, finite sets) or boxes examined (branch and bound).
        counterexample: for a falsified claim: ``params``, ``lhs``/``rhs`` (``label``, ``value``, ``lo``,
            ``hi``, ``why_not``), ``relation``, ``margin``, ``certified``, ``evidence``.
        closest_margin: the closest approach: ``margin`` (signed relative margin, > 0: holds), ``params``
            (where), ``lhs``/``rhs`` values there, ``flip`` (in words), and for a branch and bound the
            certified lower bound (``lower_bound``) of the margin over the region.
        notes: anything else a reader should know.
        duration_s: wall time.
        expected: the verdict on record (``Claim.verdict``).
        undecided: for a branch and bound that ran out of budget: the boxes left undecided (at most 20).
        proof: for a proved claim, what was proved.
        statement: ``lhs REL rhs`` in words (the claim's labels).
        ours: whether the claim is ours (not a paper's).
        certificate: when asked for (``check_claim(certificate=True)``), the certificate of a certified,
            exhaustive or falsified verdict (:mod:`dptheory.verify.certificates`), else None; not in
            :meth:`to_dict`.
        map: where a falsified claim fails and holds (:func:`dptheory.core.findings.map_record`, its edge points
            decided by this check), or, for a companion, the claim it narrows (``companion_of``).
    """

    claim: str
    verdict: Verdict
    method: str
    region: str = ""
    examples_tried: int = 0
    counterexample: dict[str, Any] | None = None
    closest_margin: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)
    duration_s: float = 0.0
    expected: Verdict | None = None
    undecided: list[dict[str, str]] = field(default_factory=list)
    proof: str = ""
    statement: str = ""
    ours: bool = False
    certificate: dict[str, Any] | None = field(default=None, repr=False, compare=False)
    map: dict[str, Any] | None = None

    # ------------------------------------------------------------------ comparisons with the record
    @property
    def agrees(self) -> bool:
        """The verdict is the one on record, and the claim is as its map says at every edge point."""
        return (self.expected is None or self.verdict is self.expected) and not stale_edges(self.map)

    def disagreement(self, *, fresh: bool = False) -> str | None:
        """Why this result differs from the record (None when it agrees, or when, with ``fresh``, a
        search merely did not reach a finding on record: that is reported as a miss, not a change): a verdict
        other than the one on record, or an edge point of the claim's map that is not as the map says."""
        stale = stale_edges(self.map)
        if stale:
            return f"the map on record is stale: the claim is not as the map says at {'; '.join(stale)}"
        if self.expected is None or self.verdict is self.expected:
            return None
        if fresh and self.expected is Verdict.FALSIFIED and self.verdict is Verdict.NOT_FALSIFIED:
            return None
        return f"expected {self.expected.value} (the verdict on record), got {self.verdict.value}"

    def missed(self, *, fresh: bool = False) -> bool:
        """With ``fresh``: a finding on record that the search did not reach."""
        return fresh and self.expected is Verdict.FALSIFIED and self.verdict is Verdict.NOT_FALSIFIED

    # ------------------------------------------------------------------ renderings
    def sentences(self) -> list[str]:
        """The result as a few plain sentences (the text output of ``dptheory check``)."""
        what = self.statement or "the claim"
        v = self.verdict
        out: list[str] = []
        if v is Verdict.PROVED:
            proof = self.proof or ""
            out.append(f"Proved: {what}. {proof[:1].upper()}{proof[1:]}".rstrip())
        elif v is Verdict.CERTIFIED:
            out.append(
                f"Certified: {what} at every point of the region {self.region} ({self.method}; "
                f"{plural(self.examples_tried, 'box')} examined)."
            )
        elif v is Verdict.EXHAUSTIVE:
            out.append(
                f"Exhaustive: {what} at every one of the {self.examples_tried} points of {self.region}, each "
                "decided with rigorous error bounds."
            )
        elif v is Verdict.NOT_FALSIFIED:
            out.append(
                f"Not falsified: {self.method} ({self.examples_tried} points) found no point where "
                f"{what} fails, on {self.region}. This is not a proof."
            )
        else:
            ce = self.counterexample or {}
            pts = ", ".join(f"{k} = {val}" for k, val in (ce.get("params") or {}).items())
            lhs, rhs = ce.get("lhs") or {}, ce.get("rhs") or {}
            out.append(f"Falsified: at {pts}, {_side(lhs)} and {_side(rhs)}, so '{ce.get('relation', '')}' fails.")
            if ce.get("evidence"):
                out.append(f"Evidence: {ce['evidence']}.")
        cm = self.closest_margin
        if cm and v is not Verdict.FALSIFIED:
            where = ", ".join(f"{k} = {val}" for k, val in (cm.get("params") or {}).items())
            if cm.get("lower_bound") is not None:
                out.append(
                    f"Smallest margin: {cm['of']} is at least {cm['lower_bound']} on every box; the box with the "
                    f"smallest bound is {_box(cm['box'])}" + (f", and at its centre ({where}) {_flip(cm)}."
                                                               if where and cm.get("box") else ".")
                )
            elif where:
                out.append(f"Closest approach at {where}: {_flip(cm)}.")
        if self.undecided:
            out.append(f"Boxes left undecided include {_box(self.undecided[0])} (the note says how many).")
        return out + map_sentences(self.map)

    def _repr_html_(self) -> str:
        colour = {
            Verdict.PROVED: "#1a7f37",
            Verdict.CERTIFIED: "#1a7f37",
            Verdict.EXHAUSTIVE: "#1a7f37",
            Verdict.NOT_FALSIFIED: "#9a6700",
            Verdict.FALSIFIED: "#cf222e",
        }[self.verdict]
        body = "<br>".join(html.escape(s) for s in self.sentences()[1:])
        head = html.escape(self.sentences()[0])
        return (
            f"<p><b>{html.escape(self.claim)}</b>: <span style='color:{colour}'><b>{self.verdict.value}</b></span>"
            f" &mdash; {head}{'<br>' + body if body else ''}<br><small>{html.escape(self.method)}, "
            f"{self.duration_s:.1f} s</small></p>"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "claim": self.claim,
            "verdict": self.verdict.value,
            "method": self.method,
            "region": self.region,
            "examples_tried": self.examples_tried,
            "closest_margin": self.closest_margin,
            "counterexample": self.counterexample,
            "expected": None if self.expected is None else self.expected.value,
            "agrees": self.agrees,
            "proof": self.proof,
            "undecided": self.undecided,
            "notes": self.notes,
            "ours": self.ours,
            "map": self.map,
            "duration_s": round(self.duration_s, 3),
        }


def _flip(cm: dict[str, Any]) -> str:
    """How far a closest point is from the relation flipping: the record's ``flip`` words (``flip_words`` of
    :mod:`dptheory.verify.evaluator`, which name the margin's kind: relative, or a log-margin for a factor claim),
    else the bare margin."""
    return str(cm["flip"]) if cm.get("flip") else f"the margin is {_g(cm.get('margin'))}"


def _g(x: Any) -> str:
    if isinstance(x, float):
        return f"{x:.4g}"
    return str(x)


def _side(s: dict[str, Any]) -> str:
    lab, val = s.get("label", "?"), s.get("value", "?")
    if s.get("lo") is not None and s.get("hi") is not None:
        return f"{lab} = {val} (in [{s['lo']}, {s['hi']}])"
    return f"{lab} = {val}"


def _box(b: dict[str, str]) -> str:
    return ", ".join(f"{k} {'in ' if v.startswith('[') or '..' in v else '= '}{v}" for k, v in b.items())
