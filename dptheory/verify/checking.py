"""Deciding claims, strongest method first.

1. **Pinned counterexamples** (unless ``use_pinned=False``): each is decided exactly
   (:func:`dptheory.verify.points.decide_point`: the claim's margin on balls); one that still fails
   makes the claim *falsified* (certified when both sides have ball evaluators; the record says).
2. **Symbolic proof** (``Claim.symbolic``): *proved*, with what was proved.
3. **A finite region** (every parameter fixed or a finite choice): every point decided on balls:
   *exhaustive*; where a side has no ball evaluator every point is still evaluated (float64 screen,
   mpmath at ``dps`` digits near the boundary) but the verdict is only *not falsified*.
4. **A certify box** (``Region.certify``): branch and bound with arb
   (:func:`dptheory.verify.certify.certify_region`): *certified* on the box, or *falsified* at a point
   of it, or (budget exhausted, or no ball evaluator) on to the search with the undecided boxes noted.
5. **Search** (:func:`dptheory.verify.search.search_counterexample`, seeded draws, margin optimisation):
   *falsified* with a counterexample re-decided exactly, else *not falsified* with the number of points,
   the strategy and the closest approach.

A falsified claim that maps where it fails (``Claim.failing``, :mod:`dptheory.core.findings`) has the points at
the edge of its failing part decided too, whatever the verdict (:func:`decide_map`); the result carries the map
with the decisions, and one that is not as the map says is a disagreement with the record.

Verdict words: :class:`dptheory.core.claims.Verdict`; results: :class:`~.verdicts.ClaimResult`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from dptheory.core.claims import Claim, Verdict
from dptheory.core.errors import DPTheoryError, EmptyRegion
from dptheory.core.findings import edge_roles, map_record
from dptheory.core.notation import parse_point
from dptheory.core.words import plural
from dptheory.verify.evaluator import closest_at
from dptheory.verify.margin import float_margin, margin_of
from dptheory.verify.points import (
    PointOutcome,
    claim_conditions,
    counterexample_record,
    decide_point,
    evaluate_point,
    in_region,
    margin_sign,
)
from dptheory.verify.sides import side_np, side_np_batch
from dptheory.verify.space import render_point
from dptheory.verify.verdicts import ClaimResult

__all__ = ["ClaimResult", "PointOutcome", "Verdict", "check_claim", "decide_map", "evaluate_point", "finite_points"]


def finite_points(claim: Claim) -> list[dict[str, Any]] | None:
    """All points of a finite region (every parameter fixed or a finite choice), else None."""
    names = claim.params
    fixed, choices = claim.region.fixed, claim.region.choices
    if not all(n in fixed or n in choices for n in names):
        return None
    pts: list[dict[str, Any]] = [{}]
    for n in names:
        vals = [fixed[n]] if n in fixed else list(choices[n])
        pts = [{**p, n: v} for p in pts for v in vals]
    return pts


def _screen(claim: Claim, points: list[dict[str, Any]]) -> list[float]:
    """float64 margins of a list of points (-inf where float64 cannot tell: mp decides those)."""
    import numpy as np

    exact = [parse_point(pt, key=claim.key) for pt in points]
    arrays = {k: np.array([float(e[k]) for e in exact]) for k in exact[0]}
    sides = []
    for q in claim.sides():
        vals = side_np_batch(q, arrays)
        if vals is None:
            vals = np.array([_or_nan(side_np(q, e)) for e in exact])
        sides.append(vals)
    out = []
    for lf, rf in zip(sides[0], sides[1], strict=True):
        if not (math.isfinite(lf) and math.isfinite(rf)):
            out.append(-math.inf)
        else:
            out.append(float_margin(claim, float(lf), float(rf)))
    return out


def _or_nan(v: float | None) -> float:
    return math.nan if v is None else v


def _statement(claim: Claim) -> str:
    rel = f"is within a factor {claim.factor:g} of" if claim.factor else claim.relation.words
    return f"{claim.lhs.label} {rel} {claim.rhs.label}"


def _ce_record(claim: Claim, point: Mapping[str, Any], dps: int) -> dict[str, Any] | None:
    """A counterexample record for a point where the claim fails (decided exactly), else None."""
    dec = decide_point(claim, point, dps=dps)
    if dec.holds is not False:
        return None
    return {**counterexample_record(claim, dec), "dps": dps}


def check_claim(
    claim: Claim,
    *,
    examples: int = 200,
    seed: int = 0,
    dps: int = 50,
    use_pinned: bool = True,
    progress: Callable[[int, int], None] | None = None,
    max_boxes: int | None = None,
    max_seconds: float | None = None,
    certificate: bool = False,
) -> ClaimResult:
    """Decide a claim (see the module docstring for the order of methods and the verdicts).

    Args:
        claim: the claim.
        examples: size of the search: :func:`search_counterexample` gets ``examples * DEFAULT_BUDGET // 100`` margin
            evaluations (the default 100 gives DEFAULT_BUDGET).
        seed: seed of the search.
        dps: digits of point decisions that are not certified, and of counterexample values (>= 50).
        use_pinned: try the pinned counterexamples first.
        progress: called as ``progress(done, total)``.
        max_boxes: budget of the branch and bound (default: the claim's box's ``max_boxes``).
        max_seconds: optional wall-clock cap of the branch and bound.
        certificate: also build the certificate of a certified, exhaustive or falsified verdict
            (``ClaimResult.certificate``; :mod:`dptheory.verify.certificates`): the boxes or points as they are
            decided, for the independent checker (:mod:`dptheory.recheck`).
    """
    events: list[dict[str, Any]] | None = [] if certificate else None
    t0 = time.perf_counter()
    dps = max(dps, 50)
    res = _check(claim, examples, seed, dps, use_pinned, progress, max_boxes, max_seconds, events)
    res.map = decide_map(claim, dps=dps)
    res.duration_s = time.perf_counter() - t0
    if events is not None:
        from dptheory.verify.certificates import certificate_of

        res.certificate = certificate_of(claim, res, events)
    return res


def decide_map(claim: Claim, *, dps: int = 50) -> dict[str, Any] | None:
    """The claim's map record (:func:`dptheory.core.findings.map_record`) with every edge point decided exactly
    (:func:`dptheory.verify.points.decide_point`: on arb balls where both sides have ball evaluators, else two
    agreeing mpmath evaluations, said in the evidence); ``None`` for a claim without a map or companion link."""
    if claim.failing is None:
        return map_record(claim)
    decided = []
    for _i, _role, pt in edge_roles(claim.failing):
        if not in_region(claim, pt):
            decided.append({"holds": None, "certified": False, "evidence": "outside the claim's region"})
            continue
        try:
            dec = decide_point(claim, pt, dps=dps)
        except DPTheoryError as exc:
            decided.append({"holds": None, "certified": False, "evidence": f"not decided: {exc}"})
            continue
        decided.append({"holds": dec.holds, "certified": dec.certified, "evidence": dec.evidence,
                        "lhs": dec.lhs["value"], "rhs": dec.rhs["value"]})
    return map_record(claim, decided)


def _check(
    claim: Claim,
    examples: int,
    seed: int,
    dps: int,
    use_pinned: bool,
    progress: Callable[[int, int], None] | None,
    max_boxes: int | None,
    max_seconds: float | None,
    events: list[dict[str, Any]] | None,
) -> ClaimResult:
    """:func:`check_claim` without the map (the steps of the module docstring; ``events`` receives the decisions a
    certificate states)."""
    t0 = time.perf_counter()
    notes: list[str] = []
    base: dict[str, Any] = dict(claim=claim.key, expected=claim.verdict, statement=_statement(claim), ours=claim.ours)

    def done(verdict: Verdict, method: str, **kw: Any) -> ClaimResult:
        return ClaimResult(
            verdict=verdict, method=method, notes=notes, duration_s=time.perf_counter() - t0, **base, **kw
        )

    # 1. pinned counterexamples
    if use_pinned and claim.counterexamples:
        for pt in claim.counterexamples:
            if not in_region(claim, pt):
                notes.append(f"pinned point {render_point(pt)} is outside the claim's region; ignored")
                continue
            rec = _ce_record(claim, pt, dps)
            if rec is not None:
                how = "certified" if rec["certified"] else f"confirmed at {dps} digits, not certified"
                return done(
                    Verdict.FALSIFIED,
                    f"pinned counterexample ({how})",
                    region=claim.region.describe(),
                    examples_tried=1,
                    counterexample=rec,
                )
        notes.append("no pinned counterexample falsifies the claim any more")

    # 2. symbolic
    if claim.symbolic is not None:
        from dptheory.core.symbolic import SymbolicVerdict

        res = _run_symbolic(claim)
        if res.verdict is SymbolicVerdict.PROVED:
            clash = _spot_check(claim, seed, dps)
            if clash is None:
                return done(Verdict.PROVED, "symbolic proof (sympy)", region=claim.region.describe(), proof=res.detail)
            notes.append(
                f"the symbolic proof ({res.detail}) does not match the claim as stated: the point below "
                "violates it (a proof written for another claim, or a claim changed after its proof)"
            )
            return done(
                Verdict.FALSIFIED,
                "symbolic proof contradicted by a point check",
                region=claim.region.describe(),
                examples_tried=SPOT_CHECK_BUDGET,
                counterexample=clash,
            )
        notes.append(f"symbolic: {res.verdict.value}: {res.detail}")

    # 3. finite region
    pts = finite_points(claim)
    if pts is not None:
        return _exhaustive(claim, pts, dps, notes, done, progress, events)

    # 4. branch and bound on the certify box
    undecided: list[dict[str, str]] = []
    if claim.region.certify is not None:
        bb = _branch_and_bound(claim, max_boxes, max_seconds, dps, notes, done, progress, events)
        if isinstance(bb, ClaimResult):
            return bb
        undecided = bb

    # 5. search
    res = _search(claim, examples, seed, dps, notes, progress)
    res.duration_s = time.perf_counter() - t0
    res.undecided = undecided
    return res


def _branch_and_bound(
    claim: Claim,
    max_boxes: int | None,
    max_seconds: float | None,
    dps: int,
    notes: list[str],
    done: Callable[..., ClaimResult],
    progress: Callable[[int, int], None] | None,
    events: list[dict[str, Any]] | None = None,
) -> ClaimResult | list[dict[str, str]]:
    """Step 4 of the module docstring: the verdict (certified, or falsified at a point of the box), else the
    boxes left undecided (the search then decides; the notes say why)."""
    from dptheory.verify.certify import certify_region

    out = certify_region(claim, max_boxes=max_boxes, max_seconds=max_seconds, dps=dps, progress=progress,
                         record=None if events is None else events.append)
    closest = None
    if out.min_margin is not None:
        closest = {
            **(out.closest or {}),
            "lower_bound": out.min_margin["lower_bound"],
            "of": out.min_margin["of"],
            "box": out.min_margin["box"],
        }
    method = f"branch and bound with arb balls: {plural(out.certified, 'box')} certified" + (
        f", {out.outside} outside the region" if out.outside else "")
    if out.status == "certified" and not out.certified:  # every box outside: a claim about no point
        raise empty_region(claim, f"its box examined in {plural(out.outside, 'part')}, every one outside",
                           _box_centre(claim))
    if out.status == "certified":
        return done(Verdict.CERTIFIED, method, region=out.region, examples_tried=out.boxes, closest_margin=closest)
    if out.status == "falsified":
        assert out.counterexample is not None
        return done(
            Verdict.FALSIFIED,
            "branch and bound with arb balls (a violating box)",
            region=out.region,
            examples_tried=out.boxes,
            counterexample=out.counterexample,
        )
    if out.status == "unavailable":
        notes.append(f"not certified: {out.reason}")
    else:
        notes.extend(out.notes)
        notes.append("not certified on the box: the search below decides the verdict")
    return out.undecided


def _exhaustive(
    claim: Claim,
    pts: list[dict[str, Any]],
    dps: int,
    notes: list[str],
    done: Callable[..., ClaimResult],
    progress: Callable[[int, int], None] | None,
    events: list[dict[str, Any]] | None = None,
) -> ClaimResult:
    """Every point of a finite region: decided on balls when the claim's margin has a ball evaluation
    (exhaustive), else screened in float64 with mpmath near the boundary (not rigorous). ``events`` receives
    each point decided on balls and each point outside the region."""
    region = claim.region.describe()
    valid: list[dict[str, Any]] = []
    outside: list[dict[str, Any]] = []
    for pt in pts:
        (valid if in_region(claim, pt) else outside).append(pt)
    if events is not None:
        events.extend({"kind": "outside", "point": pt} for pt in outside)
    if not valid:
        raise empty_region(claim, f"its {plural(len(pts), 'point')}, every one outside", pts[0] if pts else None)

    def falsified_at(i: int, pt: dict[str, Any], how: str) -> ClaimResult | None:
        """*falsified* at the ``i``-th valid point when the exact decision there confirms the claim fails
        (:func:`_ce_record`), else None; ``how`` names the evaluation in the method."""
        rec = _ce_record(claim, pt, dps)
        if rec is None:
            return None
        return done(
            Verdict.FALSIFIED,
            f"exhaustive evaluation{how} ({len(valid)} points)",
            region=region,
            examples_tried=i + 1,
            counterexample=rec,
        )

    m = margin_of(claim)
    if m.certifiable:
        worst: tuple[Any, dict[str, Any]] | None = None
        unsettled = []
        for i, pt in enumerate(valid):
            if progress is not None:
                progress(i + 1, len(valid))
            exact = parse_point(pt, key=claim.key)
            ok, bad, d, prec, _why = margin_sign(
                m, exact, (64, 256, 1024), catch=(DPTheoryError, ZeroDivisionError, ValueError)
            )
            if bad and (res := falsified_at(i, pt, " on arb balls")) is not None:
                return res
            if not ok:
                unsettled.append(pt)
                continue
            if events is not None:
                events.append({"kind": "holds", "point": pt, "margin": (d.lower(), d.upper()), "prec": prec})
            if d is not None and (worst is None or d.lower() < worst[0]):
                worst = (d.lower(), pt)
        closest = closest_at(claim, worst[1], dps=dps) if worst is not None else None
        if not unsettled:
            return done(
                Verdict.EXHAUSTIVE,
                f"exhaustive evaluation on arb balls ({len(valid)} points)",
                region=region,
                examples_tried=len(valid),
                closest_margin=closest,
            )
        notes.append(f"{len(unsettled)} points could not be decided on balls, e.g. {render_point(unsettled[0])}")
    else:
        notes.append(f"not rigorous: {m.why_not}")
    # every point in float64, mpmath at dps digits where float64 is within 1e-6 (not rigorous)
    margins = _screen(claim, valid)
    worst_i = min(range(len(valid)), key=lambda i: margins[i])
    ties = 0
    for i, pt in enumerate(valid):
        if progress is not None:
            progress(i + 1, len(valid))
        if margins[i] > 1e-6:
            continue
        out = evaluate_point(claim, pt, dps=dps)
        if out.holds is False and (res := falsified_at(i, pt, "")) is not None:
            return res
        if out.holds is None:
            ties += 1
    if ties:
        notes.append(f"{ties} points tied at {dps} digits")
    return done(
        Verdict.NOT_FALSIFIED,
        f"every point of the finite region evaluated (float64, mpmath at {dps} digits near the boundary; not rigorous)",
        region=region,
        examples_tried=len(valid),
        closest_margin=closest_at(claim, valid[worst_i], dps=dps),
    )


#: margin evaluations of the point check that runs after a symbolic proof (see :func:`_spot_check`)
SPOT_CHECK_BUDGET = 24


def empty_region(claim: Claim, what: str, point: Mapping[str, Any] | None) -> EmptyRegion:
    """The refusal of a claim whose region holds no point where its conditions hold, naming the conditions that
    fail at ``point`` (a point of the region's box or set, exact)."""
    failing: list[str] = []
    if point is not None:
        exact = parse_point(point, key=claim.key)
        for c in claim_conditions(claim, domain=True):
            if {s.name for s in c.symbols} <= set(exact):
                if c.evaluate({s: exact[s.name] for s in c.symbols}).status.value == "violated":
                    failing.append(c.render())
    shown = ", ".join(f"{k} = {v}" for k, v in render_point(point or {}).items())
    at = f"; at {shown}: {' and '.join(failing)} fails" if failing else ""
    return EmptyRegion(f"{claim.key}: no point of its region satisfies the conditions of the theorems it compares "
                       f"({what}{at}); accepted: a region that meets them (a claim about no point would hold "
                       f"vacuously): {claim.region.describe()}")


def _box_centre(claim: Claim) -> dict[str, Any] | None:
    """The centre of the claim's certification box with its fixed values (exact), or None (its free parameters are
    left out: the sides set them)."""
    box = claim.region.certify
    if box is None:
        return None
    pt: dict[str, Any] = dict(claim.region.fixed)
    for name, (lo, hi) in box.intervals.items():
        pt[name] = str((Fraction(str(lo)) + Fraction(str(hi))) / 2)
    for name, (ilo, ihi) in box.integers.items():
        pt[name] = (ilo + ihi) // 2
    return pt


def _run_symbolic(claim: Claim) -> Any:
    """``claim.symbolic``, given the claim when it takes an argument (proofs that rebuild their steps from the
    claim's sides and relation then prove exactly the claim being checked, not the registered one)."""
    import inspect

    fn: Callable[..., Any] | None = claim.symbolic
    assert fn is not None
    try:
        takes_claim = bool(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        takes_claim = False
    return fn(claim) if takes_claim else fn()


def _spot_check(claim: Claim, seed: int, dps: int) -> dict[str, Any] | None:
    """A proof is a statement about the registered claim; this re-decides the claim object actually being
    checked at a few searched points (``SPOT_CHECK_BUDGET`` margin evaluations, 50-digit decisions) so that a
    proof attached to a claim it does not prove (a mutated relation or side, a proof of another statement)
    cannot report ``proved``. Returns the counterexample record of a violating point, or None."""
    try:
        from dptheory.verify import search as _s
    except ImportError:  # pragma: no cover - the search is part of the package
        return None
    sr = _s.search_counterexample(claim, budget=SPOT_CHECK_BUDGET, seed=seed, dps=dps)
    if sr.found is None:
        return None
    rec: dict[str, Any] = sr.found.to_dict()
    rec["dps"] = dps
    return rec


def _search(
    claim: Claim, examples: int, seed: int, dps: int, notes: list[str], progress: Callable[[int, int], None] | None
) -> ClaimResult:
    """The margin-optimising search (:func:`dptheory.verify.search.search_counterexample`): every draw
    comes from a numpy Generator seeded with ``seed``, so the verdict and the record are the same in
    every process (CLI, test runner, Dask worker)."""
    from dptheory.verify.search import DEFAULT_BUDGET, search_counterexample

    t0 = time.perf_counter()
    base: dict[str, Any] = dict(
        claim=claim.key,
        expected=claim.verdict,
        statement=_statement(claim),
        ours=claim.ours,
        region=claim.region.describe(),
    )
    # --examples scales the search: the default 100 gives DEFAULT_BUDGET (1500) margin evaluations
    budget = max(1, examples * DEFAULT_BUDGET // 100)
    sr = search_counterexample(claim, budget=budget, seed=seed, dps=dps, progress=progress)
    notes.extend(sr.notes)
    if sr.points_tried == 0 and sr.found is None:
        notes.append("the search drew no point of the region (its conditions refused every draw): nothing was tested")
    # a counterexample (re-decided exactly) falsifies the claim; else the closest approach is reported
    rec = None if sr.found is None else {**sr.found.to_dict(), "dps": dps}
    return ClaimResult(
        verdict=Verdict.NOT_FALSIFIED if rec is None else Verdict.FALSIFIED,
        method=f"search: {sr.strategy}",
        examples_tried=sr.points_tried,
        counterexample=rec,
        closest_margin=None if rec is not None or sr.closest is None else sr.closest.to_dict(),
        notes=notes,
        duration_s=time.perf_counter() - t0,
        **base,
    )
