"""The phases of the counterexample search: seeded starts, targeted mutation, local optimisation and
integer moves (the strategy of :mod:`dptheory.verify.search`'s module docstring); every draw comes from
the one numpy Generator the search passes in."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy as sp

from dptheory.verify.evaluator import Evaluator
from dptheory.verify.space import SearchSpace, point_key

__all__ = ["Stop", "enumerate_finite", "run_phases"]

#: shares of the budget: seeded starts, targeted mutation, local optimisation (the rest: integer moves)
_SPLIT = (0.3, 0.4, 0.2)


class Stop(Exception):
    """A counterexample was confirmed: leave the optimiser."""


#: mixture of a coordinate's draws (non-choice coordinates), cumulative: uniform in w, within 10^-1..10^-12
#: of the lower / upper end, exactly at the lower / upper end, a simple value (small integer, an end, 1-2 digits)
_MIX = (
    ("uniform", 0.5),
    ("near lower end", 0.6),
    ("near upper end", 0.7),
    ("at lower end", 0.75),
    ("at upper end", 0.8),
    ("simple value", 1.0),
)


def _draw_coords(space: SearchSpace, rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` draws of the coordinates and of the simple-value selectors (see :meth:`SearchSpace.decode`).

    Per non-choice coordinate, independently, by :data:`_MIX`: uniform in ``w`` (50%), within
    10^-1..10^-12 of either end (10% each), exactly at either end (5% each), a simple value (20%).
    A choice is uniform over the choices. Returns ``(T, S)``, both ``(n, dim)``; ``T = -inf/+inf`` is
    an end exactly, ``S`` is NaN where the value is not replaced by a simple one.
    """
    T = np.empty((n, space.dim))
    S = np.full((n, space.dim), np.nan)
    cut = [p for _name, p in _MIX]
    for j, c in enumerate(space.coords):
        u = rng.random(n)
        kind = rng.random(n)
        depth = 10.0 ** -rng.uniform(1, 12, n)
        sel = rng.random(n)
        if c.kind == "choice":
            w = u
        else:
            w = np.select(
                [kind < cut[0], kind < cut[1], kind < cut[2], kind < cut[3], kind < cut[4]],
                [u, depth, 1 - depth, 0.0, 1.0],
                u,
            )
            S[:, j] = np.where(kind >= cut[4], sel, np.nan)
        inner = np.clip(w, 1e-15, 1 - 1e-15)
        with np.errstate(divide="ignore"):
            T[:, j] = np.where(w <= 0, -np.inf, np.where(w >= 1, np.inf, np.log(inner) - np.log1p(-inner)))
    return T, S


@dataclass
class _Start:
    """A point of the region that was evaluated, with the coordinates it was decoded from."""

    t: np.ndarray
    s: np.ndarray
    point: dict[str, sp.Rational]
    m: float


def _valid_draws(
    space: SearchSpace, ev: Evaluator, T: np.ndarray, S: np.ndarray, taken: set[tuple[Any, ...]], limit: int
) -> list[tuple[np.ndarray, np.ndarray, dict[str, sp.Rational]]]:
    """The first ``limit`` draws that decode to a new point where every condition holds (float64); the
    others are refused (they cost nothing)."""
    out: list[tuple[np.ndarray, np.ndarray, dict[str, sp.Rational]]] = []
    for t, sv in zip(T, S, strict=True):
        if len(out) >= limit:
            break
        p = space.decode(t, sv)
        if p is None:
            continue
        key = point_key(p)
        if key in taken or key in ev.seen or not space.float_ok(p):
            continue
        taken.add(key)
        out.append((t, sv, p))
    return out


def _evaluate(ev: Evaluator, cands: list[tuple[np.ndarray, np.ndarray, dict[str, sp.Rational]]]) -> list[_Start]:
    pts: list[dict[str, sp.Rational] | None] = [p for _t, _s, p in cands]
    ms = ev.margins(pts)
    if ev.maybe_confirm(pts, ms):
        raise Stop
    return [_Start(t, sv, p, float(m)) for (t, sv, p), m in zip(cands, ms, strict=True)]


def enumerate_finite(space: SearchSpace, limit: int) -> list[dict[str, sp.Rational]] | None:
    if any(c.kind != "choice" for c in space.coords):
        return None
    total = 1
    for c in space.coords:
        total *= len(c.choices)
        if total > limit:
            return None
    pts: list[dict[str, sp.Rational]] = [dict(space.fixed)]
    for c in space.coords:
        pts = [{**p, c.name: v} for p in pts for v in c.choices]
    return pts


def run_phases(
    space: SearchSpace,
    ev: Evaluator,
    rng: np.random.Generator,
    budget: int,
    phases: list[str],
    tick: Callable[[], None],
) -> None:
    """The four phases of the module docstring; ``ev.cost`` is the budget meter."""
    # 1. seeded starts in the transformed space; draws the region's conditions refuse are redrawn
    n_starts = max(8, int(_SPLIT[0] * budget))
    starts: list[_Start] = []
    taken: set[tuple[Any, ...]] = set()
    drawn = empty = 0
    try:
        while len(starts) < n_starts and drawn < 20 * n_starts and empty < 8:
            if ev.cost >= _SPLIT[0] * budget and starts:
                break
            T, S = _draw_coords(space, rng, 128)
            drawn += 128
            cands = _valid_draws(space, ev, T, S, taken, n_starts - len(starts))
            empty = 0 if cands else empty + 1
            if cands:
                starts.extend(_evaluate(ev, cands))
            tick()
    except Stop:
        phases.append(f"{len(taken)} seeded starts in the region (found; {drawn} drawn)")
        raise
    phases.append(
        f"{len(starts)} seeded starts in the region ({drawn} drawn, the others refused by the "
        "region's conditions or repeated)"
    )
    if space.dim == 0 or not starts:
        return

    # 2. targeted mutation of the best starts (what a property-based search's target phase does)
    before = ev.tried
    try:
        _mutate(space, ev, rng, starts, stop_at=ev.cost + max(10.0, _SPLIT[1] * budget), tick=tick)
    finally:
        phases.append(f"targeted mutation of the best points ({ev.tried - before} points)")

    # 3. local optimisation from the best distinct starts
    from scipy.optimize import minimize

    pool = [st for st in starts if not math.isnan(st.m)]
    if ev.best is not None:
        pool.append(_Start(space.encode(ev.best), np.full(space.dim, np.nan), ev.best, ev.best_m))
    picks = [space.encode(st.point) for st in _diverse(space, pool, 6)]
    local_stop = ev.cost + max(20.0, _SPLIT[2] * budget)
    per = max(10, int(_SPLIT[2] * budget) // max(1, len(picks)))
    before = ev.tried

    class _Spent(Exception):
        pass

    def f(t: np.ndarray) -> float:
        if ev.cost >= local_stop:
            raise _Spent
        p = space.decode(t)
        m = ev.margin_one(p)
        if ev.screen(p, m):
            raise Stop
        tick()
        if math.isnan(m):
            return 1e3
        return max(min(m, 1e3), -1e3)

    try:
        for t0 in picks:
            simplex = np.vstack([t0] + [t0 + np.eye(space.dim)[k] * 1.5 for k in range(space.dim)])
            res = minimize(
                f,
                t0,
                method="Nelder-Mead",
                options={"maxfev": per // 2, "initial_simplex": simplex, "xatol": 1e-6, "fatol": 1e-14},
            )
            minimize(f, res.x, method="Powell", options={"maxfev": per // 2, "xtol": 1e-6, "ftol": 1e-14})
    except _Spent:
        pass
    phases.append(f"Nelder-Mead + Powell from {len(picks)} starts ({ev.tried - before} points)")

    # 4. integer neighbourhood moves around the best point
    before = ev.tried
    _integer_moves(space, ev, stop_at=max(ev.cost + 10, budget))
    phases.append(f"integer neighbourhood moves ({ev.tried - before} points)")


def _integer_moves(space: SearchSpace, ev: Evaluator, stop_at: float) -> None:
    ints = [c for c in space.coords if c.kind in ("int", "choice")]
    if not ints or ev.best is None:
        return
    cur, cur_m = dict(ev.best), ev.best_m
    improved = True
    while improved and ev.cost < stop_at:
        improved = False
        for c in ints:
            v = cur[c.name]
            if c.kind == "choice":
                k = list(c.choices).index(v) if v in c.choices else 0
                cands = [c.choices[j] for j in (k - 1, k + 1, k - 5, k + 5) if 0 <= j < len(c.choices)]
            else:
                iv = int(v)
                top = max(iv, int(c.hi))  # moves stay in the search box (or where the point already is)
                moves = {iv - 1, iv + 1, iv - 2, iv + 2, 2 * iv, iv // 2}
                cands = [sp.Integer(x) for x in sorted(moves) if x != iv and x <= top]
                step = space.multiples.get(c.name)
                if step is not None:
                    fn, deps = step
                    s = max(1, round(float(fn(*(float(cur[d]) for d in deps)))))
                    moves = {iv - s, iv + s, 2 * iv, iv - iv % s}
                    cands = [sp.Integer(x) for x in sorted(moves) if 0 < x <= top and x != iv]
            pts: list[dict[str, sp.Rational] | None] = [{**cur, c.name: x} for x in cands]
            ms = ev.margins(pts)
            if ev.maybe_confirm(pts, ms):
                raise Stop
            j = int(np.nanargmin(ms)) if not np.all(np.isnan(ms)) else -1
            if j >= 0 and ms[j] < cur_m:
                p = pts[j]
                assert p is not None
                cur, cur_m = p, float(ms[j])
                improved = True


#: the targeted mutation keeps this many parents: the lowest-margin points that are pairwise at RMS distance
#: >= _RADIUS in the unit cube of the coordinates (so one basin of low margins cannot take every place)
_ELITE = 8
_RADIUS = 0.2


def _diverse(space: SearchSpace, pop: list[_Start], k: int) -> list[_Start]:
    """The ``k`` lowest-margin points that are pairwise apart: each at RMS distance >= _RADIUS from the
    ones taken before it in the unit cube of the coordinates (``w``), lowest margin first; fewer when
    the population has fewer such points."""
    out: list[_Start] = []
    ws: list[np.ndarray] = []
    for st in sorted(pop, key=lambda st: st.m):
        if len(out) >= k:
            break
        w = 1.0 / (1.0 + np.exp(-np.clip(space.encode(st.point), -40.0, 40.0)))
        if all(float(np.sqrt(np.mean((w - v) ** 2))) >= _RADIUS for v in ws):
            out.append(st)
            ws.append(w)
    return out


def _mutate(
    space: SearchSpace,
    ev: Evaluator,
    rng: np.random.Generator,
    starts: list[_Start],
    stop_at: float,
    tick: Callable[[], None],
) -> None:
    """Targeted mutation of the best points (phase 2 of the module docstring).

    Parents: :func:`_diverse` (the ``_ELITE`` lowest-margin points of everything evaluated so far, pairwise
    apart). Each generation, every parent gets one child per coordinate with that coordinate redrawn from
    the mixture of :func:`_draw_coords` (a coordinate sweep), then up to 16 children of rank-biased
    parents with one coordinate redrawn (40%), one coordinate moved (30%) or every coordinate moved (30%)
    by a Gaussian step of random scale 10^-2..10^0.5 in the transformed space. Children outside the
    region or already evaluated are refused, not counted.
    """
    pop = [st for st in starts if not math.isnan(st.m)]
    elite = _diverse(space, pop, _ELITE)
    if not elite:
        return
    taken: set[tuple[Any, ...]] = set()
    fails = 0
    d = space.dim
    while ev.cost < stop_at and fails < 8:
        n_sweep = len(elite) * d
        n = n_sweep + 64
        T = np.empty((n, d))
        S = np.empty((n, d))
        fresh_t, fresh_s = _draw_coords(space, rng, n)
        for r in range(n):
            if r < n_sweep:
                par, j, move = elite[r // d], r % d, 0.0
            else:
                par = elite[min(int(rng.exponential(2.0)), len(elite) - 1)]
                j, move = int(rng.integers(d)), float(rng.random())
            t = np.clip(par.t, -35.0, 35.0)
            sv = par.s.copy()
            if move < 0.4:
                t[j], sv[j] = fresh_t[r, j], fresh_s[r, j]
            elif move < 0.7:
                t[j] += rng.normal(0.0, 10.0 ** rng.uniform(-2.0, 0.5))
                sv[j] = np.nan
            else:
                t = t + rng.normal(0.0, 10.0 ** rng.uniform(-2.0, 0.5), d)
                sv[:] = np.nan
            T[r], S[r] = t, sv
        cands = _valid_draws(space, ev, T, S, taken, min(n_sweep + 16, max(1, math.ceil(stop_at - ev.cost))))
        if not cands:
            fails += 1
            continue
        fails = 0
        kids = _evaluate(ev, cands)
        tick()
        pop.extend(k for k in kids if not math.isnan(k.m))
        elite = _diverse(space, pop, _ELITE)
