"""Counterexample search that optimises the violation margin, then shrinks and certifies what it finds.

Entry point: :func:`search_counterexample` ``(claim, *, budget, seed) -> SearchResult``.

**The margin.** For a claim ``lhs REL rhs`` the signed relative margin at a point is
``m = (rhs - lhs) / max(|lhs|, |rhs|)`` for ``<``/``<=`` (``-m`` for ``>``/``>=``); for a "within a
factor f" claim it is ``log f - |log(lhs/rhs)|``; for ``==`` it is ``tol - |rel. difference|``. The
claim holds at the point when ``m > 0`` (``m >= 0`` for non-strict relations). A claim of the form
``lim_K X < +infinity`` has a flat margin (+inf or -inf); when the limit declares the exact condition
under which it exists (``Limit.exists_when``), the relative slack of that condition is used instead
(the limit is infinite exactly where the slack is not positive).

**The search space.** Every free parameter of the claim's region is mapped to one real coordinate
``t``: the parameter's range ``[lo, hi]`` (the region's ``ranges``, else the notation's sampling
range, narrowed by the bounds that the region's conditions put on it given the parameters drawn
before it, in the order of :func:`dptheory.verify.space.draw_order`, and by its domain; a sampling
range is moved to meet a bound that lies outside it, never beyond a bound, and a region's own range is
a box that never moves: :func:`dptheory.verify.space.narrowed_range`) is scaled to ``[0, 1]``
(in log space for scale parameters: a log-scale range or ``hi/lo >= 100``), and ``t = logit(w)``
of that fraction ``w``, so the optimiser can approach either end of a bounded parameter to within
1e-13 relative (``t = -inf``/``+inf`` is the end itself). Integers are the rounded value (in log space
for log-scale ranges); a parameter that a region condition requires to be a multiple of another is drawn
as a multiple, after it (``m | n``: ``m`` first, then ``n = k m``); a finite set of choices is indexed by
``w``. Every point is then checked exactly (rational arithmetic) against every condition before anything
is decided there.

**The strategy** (the budget counts margin evaluations, each one float64 or, for sides without a
float64 kernel, mpmath at 20 digits). Every draw comes from one ``numpy.random.Generator`` seeded with
``seed``: the result depends on ``(claim, budget, seed)`` only, not on the process (a test runner, the
CLI, a Dask worker) or on any library's global state.

1. seeded starts: ``0.3 budget`` points of the region drawn in the transformed space, per coordinate
   independently: uniform in ``w`` (50%), within 10^-1..10^-12 of either end (10% each), exactly at
   either end (5% each), or a simple value (20%: one of the four smallest integers or the largest, the
   drawn value to 1 or 2 significant digits, the nearest integer); a draw that a region condition
   refuses (checked in float64) or that repeats a point is redrawn and not counted; among clear float64
   violations the one with the smallest integer parameters is confirmed first;
2. targeted mutation (``0.4 budget``): parents are the 8 lowest-margin points so far that lie apart
   from each other (RMS distance >= 0.2 in the unit cube of the coordinates); each generation every
   parent gets one child per coordinate with that coordinate redrawn (a coordinate sweep), and up to 16
   children of rank-biased parents with one coordinate redrawn, one coordinate moved or all coordinates
   moved by a Gaussian step of random scale;
3. local optimisation (scipy Nelder-Mead, then Powell) of the float64 margin from the 6 best points
   that lie apart (``0.2 budget``);
4. integer neighbourhood moves (+-1, +-2, x2, /2 on every integer parameter) around the best point.

Any point whose float64 margin is below 1e-9 is confirmed with mpmath at 30 digits (and then 50)
before it counts: float64 never decides a verdict. A finite region no larger than the budget is
enumerated instead (strategy "exhaustive enumeration").

**Shrinking.** A confirmed counterexample is simplified one parameter at a time (small integers;
reals rounded to 1..6 significant digits or to fractions with small denominators), keeping each
change that stays in the region (and in the search box, when the point was in it) and still violates
the claim at 30 digits.

**Certifying.** Both sides of the shrunk counterexample are enclosed with arb
(:func:`dptheory.core.compile.enclose` on the theorem's compiled statement or its declared ``arb``
override; sums and quotients of sides combine the enclosures) and the violation is certified when the
enclosures are separated in the violating direction. Where a side has no rigorous evaluator, the
counterexample is reported as "confirmed at 50 digits (not certified)", with the reason.

The result never calls anything verified: a search that finds nothing reports the number of points,
the strategy, and the closest approach (smallest margin, where, and how far from the relation
flipping).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy as sp

from dptheory.core.claims import Claim
from dptheory.core.conditions import Status
from dptheory.core.errors import DPTheoryError
from dptheory.core.notation import parse_point
from dptheory.verify.evaluator import SCREEN, Evaluator, closest_record
from dptheory.verify.points import point_decision, relation_text
from dptheory.verify.shrink import shrink
from dptheory.verify.space import SearchSpace, point_key, render_exact
from dptheory.verify.strategy import Stop, enumerate_finite, run_phases

__all__ = [
    "DEFAULT_BUDGET",
    "Closest",
    "Counterexample",
    "SearchResult",
    "SideValue",
    "certify_point",
    "search_counterexample",
]

#: default number of margin evaluations per claim (see the module docstring for the split)
DEFAULT_BUDGET = 1500


# ============================================================================ results


@dataclass(frozen=True)
class SideValue:
    """One side of a claim at a point.

    Attributes:
        label: the side's label.
        value: its value (decimal, 20 significant digits).
        lo, hi: a certified enclosure (decimal strings rounded outward), or ``None`` when this side
            has no rigorous evaluator (then ``why_not`` says why).
    """

    label: str
    value: str
    lo: str | None = None
    hi: str | None = None
    why_not: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "value": self.value, "lo": self.lo, "hi": self.hi, "why_not": self.why_not}


@dataclass(frozen=True)
class Counterexample:
    """A point of the claim's region where it fails.

    Attributes:
        params: the point, exact values rendered as decimals or fractions.
        lhs, rhs: both sides (with enclosures when certified).
        relation: the relation that fails (``"<"``, ``"within a factor 2"``...).
        margin: the signed relative margin there (negative or zero: violated).
        certified: both sides enclosed by arb and the enclosures separated in the violating direction.
        evidence: in words: ``"certified: ..."`` or ``"confirmed at 50 digits (not certified): <why>"``.
        found_at: the point before shrinking (rendered), if shrinking changed it.
    """

    params: dict[str, str]
    lhs: SideValue
    rhs: SideValue
    relation: str
    margin: float
    certified: bool
    evidence: str
    found_at: dict[str, str] | None = None

    def exact(self) -> dict[str, sp.Rational]:
        """The point as exact rationals (what ``params`` renders)."""
        return parse_point(self.params, key="counterexample")

    def to_dict(self) -> dict[str, Any]:
        return {
            "params": dict(self.params),
            "lhs": self.lhs.to_dict(),
            "rhs": self.rhs.to_dict(),
            "relation": self.relation,
            "margin": self.margin,
            "certified": self.certified,
            "evidence": self.evidence,
            "found_at": self.found_at,
        }


@dataclass(frozen=True)
class Closest:
    """The closest approach of a search that found no counterexample.

    Attributes:
        params: where (rendered exact values).
        margin: the smallest signed relative margin found there (re-evaluated with mpmath at 30
            digits when possible; positive: the claim holds).
        lhs, rhs: both sides there (decimal, :data:`dptheory.verify.evaluator.CLOSEST_DIGITS` significant digits;
            the record is :func:`dptheory.verify.evaluator.closest_record`'s, as every result's closest approach).
        flip: how far the point is from the relation flipping, in words.
    """

    params: dict[str, str]
    margin: float
    lhs: str
    rhs: str
    flip: str

    def to_dict(self) -> dict[str, Any]:
        return {"params": dict(self.params), "margin": self.margin, "lhs": self.lhs, "rhs": self.rhs, "flip": self.flip}


@dataclass
class SearchResult:
    """What :func:`search_counterexample` found.

    Attributes:
        claim: the claim key.
        found: the (shrunk, certified when possible) counterexample, or ``None``.
        points_tried: number of margin evaluations (float64 or 20-digit mpmath) spent.
        strategy: the strategy in words, with the search box and the count per phase.
        closest: smallest margin found (also when a counterexample was found: then it is that point).
        duration_s: wall time.
        notes: anything a reader should know (points that could not be evaluated, ...).
    """

    claim: str
    found: Counterexample | None
    points_tried: int
    strategy: str
    closest: Closest | None
    duration_s: float
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "claim": self.claim,
            "found": None if self.found is None else self.found.to_dict(),
            "points_tried": self.points_tried,
            "strategy": self.strategy,
            "closest": None if self.closest is None else self.closest.to_dict(),
            "duration_s": round(self.duration_s, 3),
            "notes": list(self.notes),
        }


# ============================================================================ certification


def certify_point(claim: Claim, point: Mapping[str, Any], *, dps: int = 50) -> Counterexample | None:
    """Decide whether ``point`` falsifies ``claim`` and, if so, certify it.

    The point must lie in the claim's region (every condition holds exactly; otherwise
    :class:`DPTheoryError` names the first violated condition). Both sides are evaluated with mpmath
    at ``dps`` digits; if the claim holds there (or the sides tie at that precision) the result is
    ``None``. Otherwise both sides are enclosed with arb and the counterexample is ``certified`` when
    the enclosures are separated in the violating direction; else its ``evidence`` reads
    "confirmed at {dps} digits (not certified): <why>" (:func:`dptheory.verify.points.point_decision`,
    rule ``"separation"``).

    Usable for pinned counterexamples as well as for points found by the search.
    """
    exact = parse_point(point, key=claim.key)
    space = SearchSpace(claim)
    for c in space.conditions:
        r = c.evaluate({s: exact[s.name] for s in c.symbols})
        if r.status is not Status.HOLDS:
            raise DPTheoryError(
                f"{claim.key}: the point {render_exact(exact)} is outside the claim's region: "
                f"{r.text} is {r.status.value} ({c.gloss})"
            )
    dec = point_decision(claim, exact, dps=dps, rule="separation")
    if dec.holds is not False:
        return None
    return Counterexample(
        params=render_exact(exact),
        lhs=SideValue(**dec.lhs),
        rhs=SideValue(**dec.rhs),
        relation=relation_text(claim),
        margin=dec.margin,
        certified=dec.certified,
        evidence=dec.evidence,
    )


# ============================================================================ the search


def search_counterexample(
    claim: Claim,
    *,
    budget: int = DEFAULT_BUDGET,
    seed: int = 0,
    dps: int = 50,
    progress: Callable[[int, int], None] | None = None,
) -> SearchResult:
    """Search the claim's region for a point where it fails; shrink and certify what is found.

    Args:
        claim: the claim (its region gives the parameters, ranges, choices and constraints).
        budget: number of margin evaluations (float64, or mpmath at 20 digits for sides without a
            float64 kernel) to spend; the split between phases is in the module docstring.
            Deterministic for a given ``(claim, budget, seed)``.
        seed: seed of the numpy Generator that makes every draw (nothing else is random).
        dps: digits of the final confirmation (at least 50) and of the certification.
        progress: called as ``progress(points_tried, budget)`` now and then.

    Returns:
        a :class:`SearchResult`; ``found`` is a :class:`Counterexample` (certified when both sides
        have rigorous evaluators) or ``None`` with the closest approach in ``closest``.
    """
    from dptheory.core.errors import InvalidParameter

    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise InvalidParameter(key=claim.key, name="budget", value=budget, reason="must be a whole number >= 1")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InvalidParameter(key=claim.key, name="seed", value=seed, reason="must be a whole number")
    dps = max(int(dps), 50)
    t0 = time.perf_counter()
    space = SearchSpace(claim)
    ev = Evaluator(claim, space)
    rng = np.random.default_rng(seed)
    phases: list[str] = []
    notes: list[str] = []

    def tick() -> None:
        if progress is not None:
            progress(min(ev.cost, budget), budget)

    finite = enumerate_finite(space, budget)
    if finite is not None:
        for lo in range(0, len(finite), 512):
            chunk: list[dict[str, sp.Rational] | None] = list(finite[lo : lo + 512])
            ms = ev.margins(chunk)
            tick()
            if ev.maybe_confirm(chunk, ms):
                break
        phases.append(f"exhaustive enumeration of the {len(finite)} points of the finite region")
    else:
        try:
            run_phases(space, ev, rng, budget, phases, tick)
        except Stop:
            pass
    if ev.confirmed is None and ev.best is not None and ev.best_m <= SCREEN and point_key(ev.best) not in ev.mp_checked:
        ev.confirm(ev.best)

    found: Counterexample | None = None
    closest: Closest | None = None
    if ev.confirmed is not None:
        start = ev.confirmed
        shrunk = shrink(ev, start, max_tries=max(60, budget // 10))
        found = _certified_record(claim, shrunk, start, dps)
        if found is None and shrunk != start:  # pragma: no cover - shrinking checks each step at 30 digits
            found = _certified_record(claim, start, start, dps)
        if found is None:
            notes.append(f"the point {render_exact(start)} fails at 30 digits but not at {dps}: a tie; not reported")
    if found is not None:
        closest = Closest(found.params, found.margin, found.lhs.value, found.rhs.value, "violated here")
    elif ev.best is not None:
        p = ev.best
        if ev.mp_best is not None and ev.surrogate is None:
            p = ev.mp_best  # the lowest margin confirmed at 30 digits (float64 may misjudge near ties)
        closest = _closest(claim, ev, p)
    bad = [e for e in ev.errors if e]
    if ev.errors:
        notes.append(f"{len(ev.errors)} points could not be evaluated" + (f"; first: {bad[0]}" if bad else ""))
    strategy = (
        f"margin optimisation over {space.describe()}: " + "; ".join(phases) + f" ({ev.tried} points, seed {seed})"
    )
    return SearchResult(claim.key, found, ev.tried, strategy, closest, time.perf_counter() - t0, notes)


def _certified_record(
    claim: Claim, point: dict[str, sp.Rational], start: dict[str, sp.Rational], dps: int
) -> Counterexample | None:
    rec = certify_point(claim, point, dps=dps)
    if rec is None:
        return None
    if point != start:
        rec = Counterexample(
            rec.params,
            rec.lhs,
            rec.rhs,
            rec.relation,
            rec.margin,
            rec.certified,
            rec.evidence,
            found_at=render_exact(start),
        )
    return rec


def _closest(claim: Claim, ev: Evaluator, p: dict[str, sp.Rational]) -> Closest:
    out = ev.confirm(p, 30)
    if out is None:
        return Closest(**closest_record(claim, p, ev.best_m, None, None))
    if ev.surrogate is not None:
        m = ev.best_m  # the flat margin (+inf) says nothing: report the existence condition's slack
        flip = (
            f"the existence condition of the limit holds with relative slack {m:.3g} (the limit becomes "
            "infinite where the slack reaches 0)"
        )
        return Closest(**closest_record(claim, p, m, out.lhs, out.rhs, flip=flip))
    return Closest(**closest_record(claim, p, out.margin, out.lhs, out.rhs))
