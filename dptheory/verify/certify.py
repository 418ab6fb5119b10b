"""Certification of claims with ball arithmetic: at points, on finite sets, and on boxes (branch and bound).

**The margin.** A claim ``lhs REL rhs`` holds at a point when its margin ``rhs - lhs`` (for ``<``,
``<=``; ``lhs - rhs`` for ``>``, ``>=``) is positive (nonnegative for a non-strict relation); a "within a
factor f" claim when ``log f - |log(lhs/rhs)|`` is. Where both sides have sympy expressions
(closed-form statements, formulas, ``combine`` of those) the margin is built *symbolically*: the
difference is formed (identical sub-expressions such as the common first term of Ye & Shokri's Thm 3.3
and 4.2 cancel), the papers' shorthands are expanded, common factors are pulled out
(``sympy.factor_terms``) and every factor that sympy proves positive from the symbols' assumptions
(``alpha S_g^2/(b^2 sigma^2)``) is split off. What remains has the sign of the margin, is compiled to
arb (:func:`dptheory.core.compile.compile_expr`) and often no longer depends on some parameters at all:
the claim then holds for every value of those (the region says so). Otherwise the two sides are
evaluated on balls separately (:func:`dptheory.verify.sides.side_ball`: theorems' compiled
statements or declared ``arb`` overrides) and subtracted.

**Points** (:func:`decide_point`): the margin is evaluated on exact inputs, raising the precision until
its sign is decided (a certified decision), else the two sides are evaluated with mpmath at ``dps``
digits twice (evidence, not proof: the result says so).

**Boxes** (:func:`certify_region`): branch and bound over the claim's :class:`~dptheory.core.claims.Box`
(continuous parameters in closed intervals, integers in ranges), its fixed values and finite choices.
For each box the claim's conditions are evaluated on balls (a box where a condition certainly fails is
outside the region and dropped); then the margin is evaluated on the box's balls: a box where its
lower end is positive (nonnegative) is certified; a box inside the region where it is certainly
violated gives a counterexample (a point of the box, decided exactly); otherwise the box is bisected in
the parameter whose collapse to its midpoint narrows the margin most (the most sensitive one), at the
geometric midpoint for log-scaled parameters. Integers inside floors, sums' limits, binomials and
``Mod`` are enumerated (split down to single values); other integers (epochs ``K`` in an exponent) are
treated as intervals. The budget counts boxes examined; when it runs out the result lists the boxes
still undecided, and the claim is not certified.

**Recording** (certificates, :mod:`dptheory.verify.certificates`): given ``record``, :func:`certify_region` calls
it once with the root boxes (``{"kind": "roots", ...}``) and once per leaf as it is decided: ``"holds"`` (the
box and the margin's decided enclosure on it), ``"outside"`` (a condition certainly fails on the box) and
the parts that narrowing by a condition ``p <= g(others)`` cut off (``"outside"``, with the end of ``p``'s
range that is open). The leaves partition the roots; nothing else changes.

**nan never decides.** A margin, gradient or condition that comes back as a nan ball (python-flint's answer
where it has no enclosure: ``log`` or a division on a ball reaching 0) or as a ball of infinite radius bounds
nothing: the box is split (or, at the finest split, left undecided), never certified, dropped or taken as a
violation; the budget bounds the loop. Integer powers of balls with midpoint 0, which python-flint 0.9 returns
as nan (flint issue 426), are finite enclosures in the compiled kernels (:mod:`dptheory.core.compile`).
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import sympy as sp

from dptheory.core.claims import Box, Claim, NoBallEvaluator
from dptheory.core.conditions import Condition, Status
from dptheory.core.errors import DPTheoryError, InvalidParameter, NumericalFailure
from dptheory.core.notation import format_rational, parse_value
from dptheory.verify.evaluator import closest_at
from dptheory.verify.margin import Margin, as_arb, margin_of, substituted
from dptheory.verify.outcome import BoxOutcome, region_text
from dptheory.verify.points import BOX_PREC, claim_conditions, counterexample_record, decide_point, in_region
from dptheory.verify.sides import arb_kernel, rel_holds_on_ball

__all__ = ["BoxOutcome", "Recorder", "certify_region", "region_text"]

#: receives the branch and bound's decisions, one dict per event (see "Recording" in the module docstring)
Recorder = Callable[[dict[str, Any]], None]


# ============================================================================ conditions on balls


@dataclass(frozen=True)
class _Cond:
    cond: Condition
    names: frozenset[str]
    compiled: Any  # compiled lhs - rhs, or None (decided exactly once every symbol is exact)
    bound: tuple[str, str, bool, Any] | None = None  # (p, "upper"/"lower", strict, compiled other side)


def _compile_conditions(claim: Claim) -> list[_Cond]:
    from dptheory.core.compile import CompileError, compile_expr

    out = []
    for c0 in claim_conditions(claim):
        rel = substituted(claim, c0.relation)
        if rel is sp.true:
            continue
        c = c0 if rel is c0.relation else Condition(rel, c0.gloss, kind=c0.kind)
        names = frozenset(s.name for s in c.symbols)
        comp = None
        if isinstance(rel, (sp.StrictLessThan, sp.LessThan, sp.StrictGreaterThan, sp.GreaterThan)):
            g = rel.lhs - rel.rhs
            syms = {s.name: s for s in sorted(g.free_symbols, key=lambda s: s.name)}
            try:
                comp = compile_expr(g, syms, integers=frozenset(n for n, s in syms.items() if s.is_integer))
            except CompileError:
                comp = None
        out.append(_Cond(c, names, comp, _bound_form(rel)))
    return out


def _bound_form(rel: sp.Basic) -> tuple[str, str, bool, Any] | None:
    """``p <= g`` / ``p >= g`` (either way round) with ``p`` a symbol not in ``g``: (p, upper/lower,
    strict, compiled g), used to narrow p's range on a box (constraint propagation)."""
    from dptheory.core.compile import CompileError, compile_expr

    if not isinstance(rel, (sp.StrictLessThan, sp.LessThan, sp.StrictGreaterThan, sp.GreaterThan)):
        return None
    upper = isinstance(rel, (sp.StrictLessThan, sp.LessThan))
    strict = isinstance(rel, (sp.StrictLessThan, sp.StrictGreaterThan))
    for p, g, up in ((rel.lhs, rel.rhs, upper), (rel.rhs, rel.lhs, not upper)):
        if isinstance(p, sp.Symbol) and p not in g.free_symbols:
            syms = {s.name: s for s in sorted(g.free_symbols, key=lambda s: s.name)}
            try:
                comp = compile_expr(g, syms, integers=frozenset(n for n, s in syms.items() if s.is_integer))
            except CompileError:
                return None
            return (p.name, "upper" if up else "lower", strict, comp)
    return None


# ============================================================================ boxes


@dataclass
class _B:
    """A box: per parameter (lo, hi) as Fractions (continuous) or ints (integers), lo <= hi."""

    iv: dict[str, tuple[Any, Any]]
    prec: int = BOX_PREC

    def exact(self, name: str) -> bool:
        lo, hi = self.iv[name]
        return lo == hi

    def balls(self) -> dict[str, Any]:
        import flint

        out = {}
        for k, (lo, hi) in self.iv.items():
            if isinstance(lo, int) and isinstance(hi, int) and not isinstance(lo, bool):
                out[k] = lo if lo == hi else flint.arb(lo).union(flint.arb(hi))
            else:
                a = _frac_ball(lo)
                out[k] = a if lo == hi else a.union(_frac_ball(hi))
        return out

    def collapsed(self, name: str) -> dict[str, Any]:
        b = dict(self.iv)
        lo, hi = b[name]
        b[name] = (_mid(lo, hi, False),) * 2
        return _B(b, self.prec).balls()

    def render(self) -> dict[str, str]:
        out = {}
        for k, (lo, hi) in self.iv.items():
            out[k] = _fmt(lo) if lo == hi else (f"{lo}..{hi}" if isinstance(lo, int) else f"[{_fmt(lo)}, {_fmt(hi)}]")
        return out

    def point(self) -> dict[str, Any]:
        """An exact point of the box (midpoints; integers rounded down)."""
        return {k: _mid(lo, hi, False) for k, (lo, hi) in self.iv.items()}


def _frac_ball(x: Any) -> Any:
    import flint

    if isinstance(x, int):
        return flint.arb(x)
    f = Fraction(x)
    return flint.arb(f.numerator) if f.denominator == 1 else flint.arb(f.numerator) / f.denominator


def _fmt(x: Any) -> str:
    if isinstance(x, int):
        return str(x)
    return format_rational(sp.Rational(x.numerator, x.denominator))


def _mid(lo: Any, hi: Any, geometric: bool) -> Any:
    if isinstance(lo, int) and isinstance(hi, int):
        if geometric and lo > 0 and hi > 2 * lo + 2:
            return min(max(math.isqrt(lo * hi), lo), hi - 1)
        return (lo + hi) // 2
    if geometric and lo > 0:
        g = math.sqrt(float(lo) * float(hi))
        m = Fraction(g).limit_denominator(1 << 40)
        if lo < m < hi:
            return m
    return (Fraction(lo) + Fraction(hi)) / 2


def _width(lo: Any, hi: Any, log: bool) -> float:
    if lo == hi:
        return 0.0
    if isinstance(lo, int):
        return float(hi - lo + 1) / max(abs(lo), abs(hi), 1)
    if log and lo > 0:
        return math.log(float(hi) / float(lo))
    return float(hi - lo) / max(abs(float(lo)), abs(float(hi)), 1e-300)


def _roots(claim: Claim, box: Box, margin: Margin) -> tuple[list[_B], set[str]]:
    """The root boxes (one per combination of finite choices) and the log-scaled parameters."""
    reg = claim.region
    base: dict[str, tuple[Any, Any]] = {}
    info = _param_info(claim)
    for k, v in reg.fixed.items():
        base[k] = (_exact_val(claim, k, v, info),) * 2
    for k, (lo, hi) in box.intervals.items():
        a = Fraction(str(parse_value(lo, key=claim.key, name=k)))
        b = Fraction(str(parse_value(hi, key=claim.key, name=k)))
        if a > b:
            raise InvalidParameter(
                key=claim.key, name=k, value=(lo, hi), reason="the interval's low end exceeds its high end"
            )
        base[k] = (a, b)
    for k, (lo, hi) in box.integers.items():
        if int(lo) > int(hi):
            raise InvalidParameter(
                key=claim.key, name=k, value=(lo, hi), reason="the range's low end exceeds its high end"
            )
        base[k] = (int(lo), int(hi))
    missing = [p for p in margin.params if p not in base and p not in reg.choices]
    if missing:
        raise DPTheoryError(
            f"{claim.key}: the certify box gives no range for {', '.join(missing)}, on which the claim's margin depends"
        )
    bad_free = [p for p in box.free if p in margin.params]
    if bad_free:
        raise DPTheoryError(
            f"{claim.key}: {', '.join(bad_free)} declared free, but the claim's margin depends on "
            f"{'it' if len(bad_free) == 1 else 'them'}"
        )
    for k, (lo, hi) in base.items():
        p = info.get(k)
        if p is None:
            continue
        dom = p.domain
        if dom.is_integer and not (isinstance(lo, int) or Fraction(lo).denominator == 1):
            raise InvalidParameter(
                key=claim.key, name=k, value=lo, reason="an integer parameter needs an integer range"
            )
        if str(dom.value).startswith("positive") and not Fraction(lo) > 0:
            raise InvalidParameter(key=claim.key, name=k, value=lo, reason="must be positive on the whole box")
        if dom.is_integer and not isinstance(lo, int):
            base[k] = (int(Fraction(lo)), int(Fraction(hi)))
    roots = [dict(base)]
    for k, vals in reg.choices.items():
        roots = [{**r, k: (_exact_val(claim, k, v, info),) * 2} for r in roots for v in vals]
    return [_B(r) for r in roots], set(box.log)


def _param_info(claim: Claim) -> dict[str, Any]:
    info: dict[str, Any] = {}
    for q in (r for side in claim.sides() for r in side.theorem_refs()):
        t = q.thm()
        assert t is not None  # theorem_refs() yields theorem references only (an unknown key raises)
        for p in t.notation.params.values():
            info.setdefault(p.name, p)
    if claim.notation is not None:
        for p in claim.notation.params.values():
            info.setdefault(p.name, p)
    return info


def _exact_val(claim: Claim, name: str, v: Any, info: Mapping[str, Any]) -> Any:
    r = parse_value(v, key=claim.key, name=name)
    p = info.get(name)
    if r.q == 1 and (p is None or p.domain.is_integer):
        return int(r.p)
    return Fraction(int(r.p), int(r.q))


@dataclass
class _Eval:
    """The margin's range on a box: ``lo``/``hi`` arb endpoints (None when it could not be evaluated),
    the gradient balls by parameter (symbolic margins), and the parameters it is monotone in."""

    lo: Any | None
    hi: Any | None
    grads: dict[str, Any]
    monotone: set[str]


def _evaluate_box(m: Margin, b: _B, varying: Sequence[str]) -> _Eval:
    ev = _evaluate_box_full(m, b, varying, lazy=True)
    return ev


def _decided(m: Margin, lo: Any, hi: Any) -> bool:
    if lo is not None and (bool(lo > 0) if m.strict else bool(lo >= 0)):
        return True
    return hi is not None and (bool(hi <= 0) if m.strict else bool(hi < 0))


def _evaluate_box_full(m: Margin, b: _B, varying: Sequence[str], *, lazy: bool) -> _Eval:
    """Bounds of the margin on a box: the naive ball; for a symbolic margin also (1) the ball with every
    parameter in which the margin is certainly monotone on the box set to its minimising (maximising)
    end, which bounds the minimum (maximum) over the box, and (2) the mean-value form
    ``D(c) + sum_p D_p(box) (box_p - c_p)`` about the box's centre; the best of these is kept."""
    import flint

    from dptheory.core.compile import Undecided

    errs = (Undecided, ZeroDivisionError, ValueError, NumericalFailure, NoBallEvaluator)
    lo = hi = None
    grads: dict[str, Any] = {}
    mono: set[str] = set()
    with flint.ctx.workprec(b.prec):
        balls = b.balls()
        try:
            d = m.ball(balls)
            if not d.is_nan() and d.is_finite():  # a nan or infinite ball bounds nothing: the box stays open
                lo, hi = d.lower(), d.upper()
        except errs:
            pass
        if m.kind != "symbolic" or not varying or (lazy and _decided(m, lo, hi)):
            return _Eval(lo, hi, grads, mono)
        for p in varying:
            comp = m.grad(p)
            if comp is None:
                continue
            try:
                g = as_arb(arb_kernel(comp)({k: balls[k] for k in comp.params}))
            except errs:
                continue
            if g.is_finite():
                grads[p] = g
        ends_lo, ends_hi = dict(balls), dict(balls)
        for p, g in grads.items():
            a, z = b.iv[p]
            ea, ez = _exact_ball(a), _exact_ball(z)
            if g >= 0:
                ends_lo[p], ends_hi[p] = ea, ez
                mono.add(p)
            elif g <= 0:
                ends_lo[p], ends_hi[p] = ez, ea
                mono.add(p)
        if mono:
            for which, ends in (("lo", ends_lo), ("hi", ends_hi)):
                try:
                    e = m.ball(ends)
                except errs:
                    continue
                if e.is_nan() or not e.is_finite():
                    continue
                if which == "lo":
                    lo = e.lower() if lo is None else lo.max(e.lower())
                else:
                    hi = e.upper() if hi is None else hi.min(e.upper())
        if lazy and _decided(m, lo, hi):
            return _Eval(lo, hi, grads, mono)
        if len(grads) == len(varying):
            centre = dict(balls)
            cpt = b.point()
            for p in varying:
                centre[p] = _exact_ball(cpt[p])
            try:
                dc = m.ball(centre)
                mv = dc
                for p in varying:
                    mv = mv + grads[p] * (balls[p] - centre[p])
                if mv.is_finite() and not mv.is_nan():
                    lo = mv.lower() if lo is None else lo.max(mv.lower())
                    hi = mv.upper() if hi is None else hi.min(mv.upper())
            except errs:
                pass
    return _Eval(lo, hi, grads, mono)


def _exact_ball(x: Any) -> Any:
    return x if isinstance(x, int) else _frac_ball(x)


def certify_region(
    claim: Claim,
    *,
    max_boxes: int | None = None,
    max_seconds: float | None = None,
    dps: int = 50,
    progress: Callable[[int, int], None] | None = None,
    record: Recorder | None = None,
) -> BoxOutcome:
    """Branch and bound of the claim's margin over its certify box (see the module docstring).

    Args:
        claim: a claim whose ``region.certify`` is set.
        max_boxes: budget in boxes examined (default: the box's ``max_boxes``); deterministic.
        max_seconds: optional wall-clock cap (the verdict may then depend on the machine's load).
        dps: digits of the confirmation of a counterexample.
        progress: called as ``progress(boxes, max_boxes)``.
        record: called with each decision (see "Recording" in the module docstring).
    """

    t0 = time.perf_counter()
    box = claim.region.certify
    if box is None:
        return BoxOutcome("unavailable", "", reason="the claim has no certify box")
    m = margin_of(claim)
    region = region_text(claim, m)
    if not m.certifiable:
        return BoxOutcome("unavailable", region, reason=m.why_not)
    from dptheory.core.compile import require_flint

    require_flint()  # the boxes are balls: without python-flint, one line naming it (MissingBackend)
    budget = int(max_boxes if max_boxes is not None else box.max_boxes)
    roots, log = _roots(claim, box, m)
    if record is not None:
        ints = sorted(k for k, (lo, _hi) in roots[0].iv.items() if isinstance(lo, int)) if roots else []
        record({"kind": "roots", "boxes": [_box_record(r) for r in roots], "integers": ints})
    conds = _compile_conditions(claim)
    box_names = set(roots[0].iv) if roots else set()
    active = [c for c in conds if c.names <= box_names]
    queue = _Queue(roots, log)
    out = BoxOutcome("certified", region)
    worst: tuple[Any, _B] | None = None
    undecided: list[_B] = []
    ex_ints = [p for p in m.exact_ints if p in box_names]
    split = queue.split

    while queue:
        if out.boxes >= budget or (max_seconds is not None and time.perf_counter() - t0 > max_seconds):
            break
        b = queue.pop()
        out.boxes += 1
        if progress is not None and out.boxes % 50 == 0:
            progress(out.boxes, budget)
        # enumerate the integers the margin needs exactly
        ni = next((n for n in ex_ints if not b.exact(n)), None)
        if ni is not None:
            split(b, ni)
            continue
        status = _box_status(b, active, record)
        if status == "out":
            out.outside += 1
            continue
        varying = [n for n in m.params if n in b.iv and not b.exact(n)]
        ev = _evaluate_box(m, b, varying)
        bound = ev.lo if ev.lo is not None else ev.hi
        queue.key_of[id(b)] = _float_key(bound)
        ok, bad = _signs(m, ev)
        if ok:
            out.certified += 1
            if record is not None:
                record({"kind": "holds", "box": _box_record(b), "margin": (ev.lo, ev.hi), "prec": b.prec})
            if worst is None or ev.lo < worst[0]:
                worst = (ev.lo, b)
            continue
        if bad and status == "in" and (rec := _confirm_counterexample(claim, b, dps)) is not None:
            out.status, out.counterexample = "falsified", rec
            break
        tiny = all(_width(*b.iv[n], n in log) < 1e-12 for n in m.params if n in b.iv)
        if tiny:
            if b.prec < 4 * BOX_PREC * 4:
                b.prec *= 4
                queue.push(b)
                continue
            if status == "in" and (rec := _confirm_counterexample(claim, b, dps)) is not None:
                out.status, out.counterexample = "falsified", rec
                break
            undecided.append(b)
            continue
        name = _split_choice(b, ev, varying, log) if ev.lo is not None else _widest(b, varying, log)
        if name is None:
            undecided.append(b)
            continue
        if max(_width(*b.iv[n], n in log) for n in m.params if n in b.iv) < 2.0**-40 and b.prec == BOX_PREC:
            b.prec = 4 * BOX_PREC
        split(b, name)
    _summarise(claim, m, out, queue, undecided, worst)
    out.duration_s = time.perf_counter() - t0
    return out


class _Queue:
    """The boxes still to examine, best first: the box whose parent had the smallest lower bound of the margin
    is examined next (a violation is reached quickly; certification still needs every box, so the order does
    not change it); ties in the order of pushing."""

    def __init__(self, roots: Sequence[_B], log: set[str]) -> None:
        self.heap: list[tuple[float, int, _B]] = []
        self.tick = itertools.count()
        self.key_of: dict[int, float] = {}
        self.log = log
        for r in roots:
            heapq.heappush(self.heap, (0.0, next(self.tick), r))

    def __bool__(self) -> bool:
        return bool(self.heap)

    def pop(self) -> _B:
        return heapq.heappop(self.heap)[2]

    def push(self, b: _B) -> None:
        heapq.heappush(self.heap, (self.key_of.get(id(b), 0.0), next(self.tick), b))

    def split(self, b: _B, name: str) -> None:
        """Bisect ``b`` in ``name`` (at the geometric midpoint for a log-scaled parameter) and queue both halves."""
        lo, hi = b.iv[name]
        mid = _mid(lo, hi, name in self.log)
        if isinstance(lo, int):
            left, right = (lo, mid), (mid + 1, hi)
        else:
            left, right = (lo, mid), (mid, hi)
        for part in (left, right):
            iv = dict(b.iv)
            iv[name] = part
            heapq.heappush(self.heap, (self.key_of.get(id(b), 0.0), next(self.tick), _B(iv, b.prec)))

    def remaining(self) -> list[_B]:
        return [e[2] for e in sorted(self.heap)]


def _signs(m: Margin, ev: _Eval) -> tuple[bool, bool]:
    """(certainly holds, certainly fails) on the box from the margin's bounds there."""
    ok = bad = False
    if ev.lo is not None:
        ok = bool(ev.lo > 0) if m.strict else bool(ev.lo >= 0)
    if ev.hi is not None:
        bad = bool(ev.hi <= 0) if m.strict else bool(ev.hi < 0)
    return ok, bad


def _widest(b: _B, names: Sequence[str], log: set[str]) -> str | None:
    cands = [(n, _width(*b.iv[n], n in log)) for n in names if not b.exact(n)]
    cands = [c for c in cands if c[1] > 0]
    return max(cands, key=lambda c: c[1])[0] if cands else None


def _summarise(
    claim: Claim, m: Margin, out: BoxOutcome, queue: _Queue, undecided: list[_B], worst: tuple[Any, _B] | None
) -> None:
    """The undecided boxes, the smallest margin over certified boxes and the closest point, into ``out``."""
    if out.status != "falsified":
        left = queue.remaining() + undecided
        out.n_undecided = len(left)
        out.undecided = [x.render() for x in left[:20]]
        if left:
            out.status = "undecided"
            why = "the budget ran out" if queue else "boxes could not be decided at the finest split"
            out.notes.append(f"{len(left)} boxes undecided ({why}; {out.boxes} boxes examined)")
    if worst is not None:
        out.min_margin = {
            "lower_bound": mpmath.nstr(mpmath.mpf(worst[0].mid().str(30, radius=False)), 6)
            if worst[0].is_finite()
            else str(worst[0]),
            "box": worst[1].render(),
            "of": "the reduced margin" if m.kind == "symbolic" and m.factors else "the margin",
        }
        try:
            out.closest = closest_at(claim, _full_point(claim, worst[1].point()), dps=30)
        except DPTheoryError:
            out.closest = None


def _float_key(x: Any) -> float:
    """A float ordering key of an arb endpoint (0 when unknown or not finite)."""
    try:
        v = float(x.mid()) if x is not None else 0.0
    except (TypeError, ValueError, OverflowError):
        return 0.0
    return v if math.isfinite(v) else 0.0


def _box_record(b: _B) -> dict[str, tuple[str, str]]:
    """A box's ranges as exact strings (ints, ``p/q``), as a certificate states them."""
    return {k: (str(lo), str(hi)) for k, (lo, hi) in b.iv.items()}


def _record_cut(b: _B, p: str, lo: Any, hi: Any, record: Recorder | None) -> None:
    """Record the part of ``b`` that narrowing ``p`` to ``[lo, hi]`` cuts off (an empty new range: all of it;
    a continuous cut part is open where it meets the kept range)."""
    if record is None:
        return
    a, z = b.iv[p]
    if lo > hi:  # empty: the whole box fails the condition
        record({"kind": "outside", "box": _box_record(b)})
        return
    for part, open_end in (((a, lo - 1), None) if isinstance(a, int) else ((a, lo), "hi"),
                           ((hi + 1, z), None) if isinstance(a, int) else ((hi, z), "lo")):
        if part[0] > part[1] or (part[0] == part[1] and open_end is not None):
            continue
        iv = dict(b.iv)
        iv[p] = part
        rec: dict[str, Any] = {"kind": "outside", "box": _box_record(_B(iv, b.prec))}
        if open_end is not None:
            rec["open"] = {p: open_end}
        record(rec)


def _narrow(b: _B, conds: Sequence[_Cond], record: Recorder | None = None) -> bool:
    """Narrow the box's ranges by the conditions of the form ``p <= g(others)`` (``g`` evaluated on the
    box's balls); False when a range becomes empty (the box is outside the region). ``record`` receives the
    parts cut off (see "Recording" in the module docstring)."""
    import flint

    from dptheory.core.compile import Undecided

    for c in conds:
        if c.bound is None:
            continue
        p, side, strict, comp = c.bound
        if p not in b.iv or b.exact(p) or not set(comp.params) <= set(b.iv):
            continue
        try:
            with flint.ctx.workprec(b.prec):
                balls = b.balls()
                g = as_arb(arb_kernel(comp)({k: balls[k] for k in comp.params}))
        except (Undecided, ZeroDivisionError, ValueError, NumericalFailure):
            continue
        if not g.is_finite():
            continue
        lo, hi = b.iv[p]
        if isinstance(lo, int):
            if side == "upper":
                top = g.upper()
                t = int(top.floor().unique_fmpz()) if top.is_finite() else hi
                if strict and top.is_exact() and top.is_integer():
                    t -= 1
                hi = min(hi, t)
            else:
                bot = g.lower()
                t = int(bot.ceil().unique_fmpz()) if bot.is_finite() else lo
                if strict and bot.is_exact() and bot.is_integer():
                    t += 1
                lo = max(lo, t)
        else:
            if side == "upper":
                t = _arb_to_fraction(g.upper(), up=True)
                hi = min(hi, t)
            else:
                t = _arb_to_fraction(g.lower(), up=False)
                lo = max(lo, t)
        if (lo, hi) != b.iv[p]:
            _record_cut(b, p, lo, hi, record)
        if lo > hi:
            return False
        b.iv[p] = (lo, hi)
    return True


def _arb_to_fraction(x: Any, *, up: bool) -> Fraction:
    """An exact arb endpoint as a Fraction (rounded outward to 64 bits if it is long)."""
    man, exp = x.mid().man_exp()
    man, exp = int(man), int(exp)
    f = Fraction(man) * (Fraction(2) ** exp)
    if f.denominator.bit_length() > 256 or f.numerator.bit_length() > 256:
        g = Fraction(float(f)).limit_denominator(1 << 60)
        if (up and g < f) or (not up and g > f):
            g = f
        return g
    return f


def _split_choice(b: _B, ev: _Eval, varying: Sequence[str], log: set[str]) -> str | None:
    """The most sensitive parameter: largest |D_p| times the parameter's width among those the margin is
    not monotone in (then among all); the widest (in its scale) when no gradient is known."""
    if not varying:
        return None
    # every varying parameter competes: a margin monotone in p is bounded at p's ends, but the box is
    # undecided, so p may still be the one to split (x y < 3/4 on [0, 1]^2 is monotone in both)
    cands = list(varying)
    scored = []
    for p in cands:
        g = ev.grads.get(p)
        lo, hi = b.iv[p]
        if g is None:
            continue
        w = float(Fraction(hi) - Fraction(lo))
        mag = max(abs(float(g.lower())), abs(float(g.upper()))) if g.is_finite() else math.inf
        scored.append((mag * w, p))
    if len(scored) == len(cands) and scored:
        return max(scored)[1]
    return max(cands, key=lambda p: _width(*b.iv[p], p in log))


def _box_status(b: _B, conds: Sequence[_Cond], record: Recorder | None = None) -> str:
    """ "in" (every condition certainly holds on the box), "out" (one certainly fails) or "edge"; ``record``
    receives the parts that narrowing cuts off."""
    import flint

    from dptheory.core.compile import Undecided

    if not _narrow(b, conds, record):
        return "out"  # recorded by _narrow
    status = "in"
    balls: dict[str, Any] | None = None
    for c in conds:
        rel = c.cond.relation
        if rel is sp.false:
            return _out(b, record)
        res: bool | None = None
        if c.compiled is not None:
            try:
                with flint.ctx.workprec(b.prec):
                    balls = balls if balls is not None else b.balls()
                    g = arb_kernel(c.compiled)({k: balls[k] for k in c.compiled.params})
                res = rel_holds_on_ball(rel, g)
            except (Undecided, ZeroDivisionError, ValueError, NumericalFailure):
                res = None
        elif all(b.exact(n) for n in c.names):
            vals = {s: _rat(b.iv[s.name][0]) for s in c.cond.symbols}
            st = c.cond.evaluate(vals).status
            res = True if st is Status.HOLDS else False if st is Status.VIOLATED else None
        if res is False:
            return _out(b, record)
        if res is None:
            status = "edge"
    return status


def _out(b: _B, record: Recorder | None) -> str:
    """ "out", recording the box as outside the region."""
    if record is not None:
        record({"kind": "outside", "box": _box_record(b)})
    return "out"


def _rat(x: Any) -> sp.Rational:
    if isinstance(x, int):
        return sp.Integer(x)
    return sp.Rational(x.numerator, x.denominator)


def _full_point(claim: Claim, pt: Mapping[str, Any]) -> dict[str, Any]:
    """A full region point: the box's point plus the free parameters' representative values."""
    box = claim.region.certify
    out = {k: _rat(v) for k, v in pt.items()}
    if box is not None:
        for k, v in box.free.items():
            out.setdefault(k, parse_value(v, key=claim.key, name=k))
        for k, e in box.substitute.items():
            val = sp.sympify(e).xreplace({s: out[s.name] for s in sp.sympify(e).free_symbols if s.name in out})
            if val.free_symbols:
                raise DPTheoryError(f"{claim.key}: cannot map the box point back to {k} ({val})")
            out[k] = sp.Rational(val)
    return {k: out[k] for k in claim.params if k in out} | {k: v for k, v in out.items() if k not in claim.params}


def _confirm_counterexample(claim: Claim, b: _B, dps: int) -> dict[str, Any] | None:
    """A point of a violating box, decided exactly; None if it is not a counterexample."""

    pt = _full_point(claim, b.point())
    pt = {k: v for k, v in pt.items() if k in claim.params}
    try:
        if not in_region(claim, pt):
            return None
        dec = decide_point(claim, pt, dps=dps)
    except DPTheoryError:
        return None
    if dec.holds is not False:
        return None
    return counterexample_record(claim, dec)
