"""What the branch and bound of :mod:`dptheory.verify.certify` reports: its outcome (:class:`BoxOutcome`) and the
certified region in words (:func:`region_text`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from dptheory.core.claims import Claim
from dptheory.verify.margin import Margin
from dptheory.verify.points import claim_conditions

__all__ = ["BoxOutcome", "region_text"]


@dataclass
class BoxOutcome:
    """Result of :func:`certify_region`.

    Attributes:
        status: ``"certified"`` (every box decided; none violated), ``"falsified"`` (a point of a box
            inside the region violates the claim, decided on balls), ``"undecided"`` (the budget ran out,
            or boxes could not be decided), ``"unavailable"`` (the claim cannot be evaluated on balls;
            ``reason`` says why).
        region: the certified region in words (box, fixed values, choices, conditions, free parameters).
        boxes: boxes examined; certified, outside: how many leaves were certified / outside the region.
        undecided: the boxes left undecided (rendered), at most 20, and ``n_undecided`` in all.
        min_margin: the smallest lower end of the margin over certified leaves (of the reduced margin
            for a symbolic one) and the box where it occurred.
        closest: the relative margin at the centre of that box (a point value, not a bound).
        counterexample: an exact point (rendered) where the claim fails, decided on balls.
        reason: for ``unavailable``, why; notes: anything else.
        duration_s: wall time.
    """

    status: str
    region: str
    boxes: int = 0
    certified: int = 0
    outside: int = 0
    undecided: list[dict[str, str]] = field(default_factory=list)
    n_undecided: int = 0
    min_margin: dict[str, Any] | None = None
    closest: dict[str, Any] | None = None
    counterexample: dict[str, Any] | None = None
    reason: str = ""
    notes: list[str] = field(default_factory=list)
    duration_s: float = 0.0


def region_text(claim: Claim, margin: Margin | None = None) -> str:
    """The certified region of a claim, in words."""
    box = claim.region.certify
    reg = claim.region
    parts: list[str] = []
    exact = [f"{k} = {v}" for k, v in reg.fixed.items()]
    exact += [
        f"{k} in {{{', '.join(str(x) for x in v)}}}" if len(v) <= 8 else f"{k} in {{{v[0]}, ..., {v[-1]}}}"
        for k, v in reg.choices.items()
    ]
    if box is not None:
        exact += [f"{k} = {sp.sstr(e)}" for k, e in box.substitute.items()]
        exact += [f"{k} in [{lo}, {hi}]" for k, (lo, hi) in box.intervals.items()]
        exact += [f"{k} = {lo}..{hi}" for k, (lo, hi) in box.integers.items()]
    cond_txt = [c.render() for c in claim_conditions(claim)]
    s = ", ".join(exact)
    if cond_txt:
        s += f"; with {', '.join(cond_txt)}"
    if box is not None and box.free:
        why = ""
        if margin is not None and margin.kind == "symbolic" and margin.factors:
            fs = " * ".join(sp.sstr(f) for f in margin.factors)
            why = f" (the margin is {fs} > 0 times a function of the others)"
        elif margin is not None:
            why = " (the margin does not depend on them)"
        s += f"; every {', '.join(box.free)} allowed by the conditions{why}"
    if reg.description and not s.startswith(reg.description.rstrip(". ")):  # a description that is not the box again
        parts.append(reg.description + ":")
    parts.append(s)
    return " ".join(p for p in parts if p)
