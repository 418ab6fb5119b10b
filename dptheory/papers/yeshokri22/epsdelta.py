"""Ye & Shokri 2022's hidden-state bounds in (epsilon, delta) against the composition baselines, per epoch.

The paper compares its RDP bounds with RDP composition of the Poisson-subsampled Gaussian; here each
hidden-state bound is converted to (epsilon, delta) with its order optimised
(:func:`dptheory.privacy.pld.theorem_epsilon`) and held against (a) RDP composition with the best
conversion and (b) the tight privacy-loss-distribution (PLD) composition of the same mechanism
(:func:`dptheory.privacy.pld.pld_epsilon`, with its [lower, upper] bracket). Method and numbers:
``docs/privacy_baselines_pld.md``.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dptheory.core.errors import DPTheoryError, InvalidParameter
from dptheory.core.units import ConversionMethod
from dptheory.privacy.pld import (
    DEFAULT_NEIGHBOURING,
    PLDResult,
    check_delta,
    check_neighbouring,
    check_rel_width,
    pld_epsilon,
    rdp_epsilon_best,
    theorem_epsilon,
)

_KEY = "yeshokri22.epsdelta"
BASELINES = ("rdp", "pld", "wor")
"""``rdp``: RDP composition of the paper's Poisson baseline, best conversion; ``pld``: its tight PLD
composition (bracketed); ``wor``: WBK19's without-replacement RDP composition (``rdp.sampled_wor_gaussian``,
replace-one, the scheme of Thm 4.3), best conversion."""
_BASELINE_PARAMS = ("eta", "sigma", "S_g", "b", "n")


def baseline_mechanism(params: Mapping[str, Any]) -> tuple[float, float, int]:
    """Ye & Shokri's composition baseline at ``params``: ``(q, z, steps per epoch)``.

    ``q = b/n``, ``z = sqrt(2 eta sigma^2) / (eta S_g / b)`` (``yeshokri22.sgm_noise_multiplier``,
    Sec. E.1 item 1) and ``floor(n/b)`` steps per epoch (footnote 3), as in ``yeshokri22.composition``.
    """
    from dptheory.core.notation import parse_value
    from dptheory.papers.yeshokri22.theorems import sgm_noise_multiplier

    missing = [p for p in _BASELINE_PARAMS if p not in params]
    if missing:
        raise DPTheoryError(
            f"the composition baseline needs {', '.join(_BASELINE_PARAMS)}; missing {', '.join(missing)}"
        )
    n = parse_value(params["n"], key="yeshokri22.composition", name="n")
    b = parse_value(params["b"], key="yeshokri22.composition", name="b")
    if not (n.is_integer and b.is_integer and 1 <= b <= n):
        raise InvalidParameter(
            key="yeshokri22.composition",
            name="b",
            value=params["b"],
            reason="n and b must be integers with 1 <= b <= n",
        )
    z = sgm_noise_multiplier(params["eta"], params["sigma"], params["S_g"], params["b"])
    return float(b / n), float(z), int(n // b)


def _plain(value: Any) -> Any:
    """A value as JSON-ready data: a tuple as a list (of plain values), an object with ``to_dict`` as its dict."""
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value.to_dict() if hasattr(value, "to_dict") else value


def _plain_fields(obj: Any, *names: str) -> dict[str, Any]:
    """The attributes ``names`` of ``obj`` by name, in that order, each :func:`_plain` (the ``to_dict`` of this
    module's result types)."""
    return {x: _plain(getattr(obj, x)) for x in names}


@dataclass(frozen=True)
class CurvePoint:
    """One epoch count K: the hidden-state bound and the two composition baselines (all in nats)."""

    K: int
    steps: int
    hidden: float
    hidden_order: float
    hidden_at_edge: bool
    rdp: float
    rdp_order: float
    pld: PLDResult
    wor: float | None = None

    @property
    def vs_rdp(self) -> str:
        """``"below"`` if the hidden-state bound is below the RDP baseline, else ``"above"`` (ties: above)."""
        return "below" if self.hidden < self.rdp else "above"

    @property
    def vs_pld(self) -> str:
        """Against the PLD bracket: ``"below"`` (below its lower end), ``"above"`` (at or above its upper
        end) or ``"undecided"``."""
        return self.pld.compare(self.hidden)

    @property
    def vs_wor(self) -> str | None:
        """Against the without-replacement RDP baseline (None when not computed): "below" or "above"."""
        if self.wor is None:
            return None
        return "below" if self.hidden < self.wor else "above"

    def to_dict(self) -> dict[str, Any]:
        pld = {"pld": self.pld.epsilon_upper, "pld_lower": self.pld.epsilon_lower, "pld_rel_width": self.pld.rel_width}
        return {
            **_plain_fields(self, "K", "steps", "hidden", "hidden_order", "hidden_at_edge", "rdp", "rdp_order"),
            **pld,
            **_plain_fields(self, "vs_rdp", "vs_pld", "wor", "vs_wor"),
        }


@dataclass(frozen=True)
class EpsilonDeltaCurve:
    """The hidden-state bound and both baselines per K, at one delta."""

    key: str
    params: dict[str, str]
    delta: float
    method: ConversionMethod
    neighbouring: str
    q: float
    z: float
    z_pld: float
    steps_per_epoch: int
    points: tuple[CurvePoint, ...]

    def wins(self, baseline: str) -> list[int]:
        """The K at which the hidden-state bound is certainly below ``baseline`` ("rdp" or "pld")."""
        attr = _baseline_attr(baseline)
        return [p.K for p in self.points if getattr(p, attr) == "below"]

    def baselines(self) -> tuple[str, ...]:
        """The baselines computed: "rdp", "pld" and, when asked for, "wor"."""
        has_wor = bool(self.points) and all(p.wor is not None for p in self.points)
        return ("rdp", "pld", "wor") if has_wor else ("rdp", "pld")

    def undecided(self) -> list[int]:
        """The K at which the PLD bracket could not decide the comparison."""
        return [p.K for p in self.points if p.vs_pld == "undecided"]

    def first_win(self, baseline: str) -> int | None:
        w = self.wins(baseline)
        return w[0] if w else None

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {"key": self.key, "K_range": [self.points[0].K, self.points[-1].K] if self.points else []}
        for b in self.baselines():
            w = self.wins(b)
            ks = [p.K for p in self.points]
            contiguous_tail = bool(w) and w == ks[ks.index(w[0]) :]
            out[b] = {"first_win": w[0] if w else None, "wins": len(w), "wins_from_first_on": contiguous_tail}
        out["pld_undecided"] = self.undecided()
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            **_plain_fields(self, "key", "params", "delta"),
            "method": str(self.method),
            **_plain_fields(self, "neighbouring", "q", "z", "z_pld", "steps_per_epoch", "points"),
            "summary": self.summary(),
            "unit": "nats",
        }


def _baseline_attr(baseline: str) -> str:
    if baseline not in BASELINES:
        raise DPTheoryError(f"baseline must be one of {', '.join(repr(b) for b in BASELINES)}; got {baseline!r}")
    return f"vs_{baseline}"


def _check_K_values(K_values: Iterable[Any]) -> list[int]:
    ks = list(K_values)
    if not ks:
        raise InvalidParameter(
            key=_KEY, name="K_values", value=ks, reason="must be a non-empty list of positive integers"
        )
    for k in ks:
        if isinstance(k, bool) or not isinstance(k, numbers.Integral) or int(k) < 1:
            raise InvalidParameter(key=_KEY, name="K_values", value=k, reason="every K must be a positive integer")
    return sorted({int(k) for k in ks})


def epsilon_delta_curve(
    thm_key: str,
    params: Mapping[str, Any],
    K_values: Sequence[Any] | Iterable[Any],
    delta: Any,
    *,
    method: ConversionMethod | str = ConversionMethod.IMPROVED,
    neighbouring: str = DEFAULT_NEIGHBOURING,
    rel_width: float = 5e-2,
    refine_to: float = 1e-3,
    dps: int = 30,
    wor: bool = False,
) -> EpsilonDeltaCurve:
    """Per epoch count K: a hidden-state RDP bound in (epsilon, delta) and the two composition baselines.

    Args:
        thm_key: a registered RDP theorem with parameters ``alpha`` and ``K`` (e.g. ``yeshokri22.thm4_2``,
            ``yeshokri22.thm4_3``); converted by :func:`theorem_epsilon` (order optimised per K).
        params: the theorem's parameters without ``alpha`` and ``K``; must include ``eta, sigma, S_g, b, n``
            for the baseline (:func:`baseline_mechanism`).
        K_values: epoch counts (positive integers; sorted, duplicates dropped).
        delta: target delta in (0, 1).
        method: RDP -> (epsilon, delta) conversion for both RDP quantities ("improved" or "classic").
        neighbouring: PLD relation. ``"add_or_remove"``: the paper's baseline (noise multiplier ``z``).
            ``"replace_one"``: the replace-one reading of ``S_g`` (clip at ``S_g/2``), noise multiplier ``2z``
            (module docstring). The RDP baseline is the paper's (add/remove at ``z``) either way.
        rel_width: relative width of the PLD bracket computed at every K; where it cannot decide whether
            the hidden-state bound is below the PLD value, it is refined tenfold at a time down to
            ``refine_to`` (or the point cap), and a K left undecided is reported as such.
        dps: digits of the final evaluation of both RDP quantities (the Thm 4.3 recurrence costs about
            linearly in it).
        wor: also compute the without-replacement baseline (``rdp.sampled_wor_gaussian`` at ``q = b/n``
            exactly, noise multiplier ``z``, ``K floor(n/b)`` steps; replace-one, the batch scheme of
            Thm 4.3) with the order optimised (``theorem_epsilon``).

    Returns:
        An :class:`EpsilonDeltaCurve` (``wins("pld")``, ``first_win("rdp")``, ``summary()``).
    """
    if "alpha" in params or "K" in params:
        raise DPTheoryError("give the parameters without alpha and K: alpha is optimised and K is swept")
    ks = _check_K_values(K_values)
    d = check_delta(delta)
    rel = check_neighbouring(neighbouring)
    rw0, rw_min = check_rel_width(rel_width), check_rel_width(refine_to, "refine_to")
    q, z, per_epoch = baseline_mechanism(params)
    z_pld = 2.0 * z if rel == "replace_one" else z
    q_exact = f"{params['b']}/{params['n']}"
    points: list[CurvePoint] = []
    conv = None
    for K in ks:
        conv = theorem_epsilon(thm_key, {**params, "K": K}, delta, method=method, dps=dps)
        steps = K * per_epoch
        rdp = rdp_epsilon_best(q, z, steps, d, method=method, dps=dps)
        hidden = float(conv.epsilon)
        pld = pld_against(hidden, q, z_pld, steps, d, neighbouring=rel, rel_width=rw0, refine_to=rw_min)
        wor_eps = None
        if wor:
            wor_eps = float(
                theorem_epsilon(
                    "rdp.sampled_wor_gaussian", {"q": q_exact, "z": z, "T": steps}, delta, method=method, dps=dps
                ).epsilon
            )
        points.append(
            CurvePoint(
                K=K,
                steps=steps,
                hidden=hidden,
                hidden_order=float(conv.order),
                hidden_at_edge=bool(conv.at_edge),
                rdp=float(rdp.epsilon),
                rdp_order=float(rdp.order),
                pld=pld,
                wor=wor_eps,
            )
        )
    assert conv is not None
    return EpsilonDeltaCurve(
        key=thm_key,
        params={k: v for k, v in conv.params.items() if k != "K"},
        delta=d,
        method=ConversionMethod.parse(method, key=thm_key),
        neighbouring=rel,
        q=q,
        z=z,
        z_pld=z_pld,
        steps_per_epoch=per_epoch,
        points=tuple(points),
    )


def pld_against(
    value: float,
    q: float,
    z: float,
    steps: int,
    delta: float,
    *,
    neighbouring: str = DEFAULT_NEIGHBOURING,
    rel_width: float = 5e-2,
    refine_to: float = 1e-3,
) -> PLDResult:
    """The PLD bracket of the composition, refined until it decides ``value`` against the true epsilon.

    Starts at ``rel_width`` and refines tenfold at a time down to ``refine_to`` while ``value`` lies
    inside the bracket (``PLDResult.compare(value) == "undecided"``); stops early when the point cap
    (``MAX_LOWER_POINTS``) stops the lower grid from getting finer. The result may still be undecided.
    """
    rw, rw_min = check_rel_width(rel_width), check_rel_width(refine_to, "refine_to")
    pld = pld_epsilon(q, z, steps, delta, rel_width=rw, neighbouring=neighbouring)
    while pld.compare(value) == "undecided" and rw > rw_min * (1 + 1e-12):
        rw = max(rw / 10.0, rw_min)
        finer = pld_epsilon(q, z, steps, delta, rel_width=rw, neighbouring=neighbouring)
        if finer.lower_interval >= pld.lower_interval:  # the point cap stops refinement
            break
        pld = finer
    return pld


@dataclass(frozen=True)
class Crossover:
    """Where a hidden-state bound wins against one baseline on a range of epochs.

    Attributes:
        baseline: "rdp", "pld" or "wor" (:data:`BASELINES`).
        first_win: the first K of the range from which the bound is below the baseline at every later K
            of the range (against "pld": certainly below, i.e. below the bracket's lower end); None when it
            is not below at the last K ("never" from some epoch on within the range).
        first_any: the first K at which it is below at all (None: never within the range).
        undecided: the K at which the PLD bracket could not decide (always empty for the RDP baselines).
        last_not_win: the largest K before ``first_win`` at which the bound is not certainly below (None
            when it wins from the start of the range).
        K_range: (first, last) K of the range.
    """

    baseline: str
    first_win: int | None
    first_any: int | None
    undecided: tuple[int, ...]
    last_not_win: int | None
    K_range: tuple[int, int]

    @property
    def never(self) -> bool:
        return self.first_any is None

    def describe(self) -> str:
        lo, hi = self.K_range
        if self.first_win is None:
            tail = "never" if self.never else f"not from some epoch on (first below at K = {self.first_any})"
            return f"{self.baseline}: {tail} within K = {lo}..{hi}"
        und = f"; undecided at K = {', '.join(map(str, self.undecided))}" if self.undecided else ""
        return f"{self.baseline}: below from K = {self.first_win} on (K = {lo}..{hi}){und}"

    def to_dict(self) -> dict[str, Any]:
        names = ("baseline", "first_win", "first_any", "never", "undecided", "last_not_win", "K_range")
        return _plain_fields(self, *names)


def crossovers(curve: EpsilonDeltaCurve) -> dict[str, Crossover]:
    """The crossover epochs of a curve against every baseline it holds (:class:`Crossover`).

    A K counts as a win only when the comparison is decided: below the RDP value, below the PLD
    bracket's lower end, below the WOR value. "First win" is the start of the winning tail of the range
    (:func:`dptheory.evaluate.crossover.winning_tail`, the crossover engine's).
    """
    from dptheory.evaluate.crossover import winning_tail

    out: dict[str, Crossover] = {}
    if not curve.points:
        raise DPTheoryError("the curve has no points")
    ks = [p.K for p in curve.points]
    for b in curve.baselines():
        attr = _baseline_attr(b)
        won = [getattr(p, attr) == "below" for p in curve.points]
        first_any = next((k for k, w in zip(ks, won, strict=True) if w), None)
        i = winning_tail(won)
        first_win = None if i is None else ks[i]
        last_not = ks[i - 1] if i else None
        undecided = tuple(p.K for p in curve.points if getattr(p, attr) == "undecided")
        out[b] = Crossover(b, first_win, first_any, undecided, last_not, (ks[0], ks[-1]))
    return out


def crossover_epochs(
    thm_key: str,
    params: Mapping[str, Any],
    K_values: Sequence[Any] | Iterable[Any],
    delta: Any,
    **kwargs: Any,
) -> dict[str, Crossover]:
    """First epoch at which a hidden-state bound (in (epsilon, delta), order optimised) wins against each
    composition baseline, on the epochs ``K_values``: :func:`crossovers` of :func:`epsilon_delta_curve`
    (``kwargs`` go to it, e.g. ``wor=True``)."""
    return crossovers(epsilon_delta_curve(thm_key, params, K_values, delta, **kwargs))


# ---------------------------------------------------------------------------------------------- certified
# The best (epsilon, delta) over all Renyi orders, enclosed on arb balls: the ball route of the (epsilon, delta)
# service (dptheory.privacy.conversion.epsilon_ball; docs/derivations/epsdelta_order_bounds.md). What the paper adds
# is how each of its RDP curves is bounded below on order intervals and above ORDER_HI.


def _thm43_tail(top: Any, P: Mapping[str, Any]) -> Any:
    """A lower bound of Thm 4.3's RDP at every order >= ``top``: ``L_T >= T (log q + c)`` with
    ``c = (alpha - 1) G(alpha)``, G Ye & Shokri's one-step RDP (:func:`kernels.gaussian_step_rdp`, its one
    definition) (Ye & Shokri 2022, arXiv 2203.05363, Thm 4.3; docs/derivations/epsdelta_order_bounds.md), so
    ``R >= T (G(alpha) + log q/(alpha - 1))``, increasing in alpha (G is linear in alpha)."""
    import flint

    from dptheory.papers.yeshokri22 import kernels as ys

    n, b, K = (int(P[x].unique_fmpz()) for x in ("n", "b", "K"))
    G_top = ys.gaussian_step_rdp().arb({**{x: P[x] for x in ys.G_ARGS[1:]}, "alpha": top})  # G at alpha = top
    q = flint.arb(b) / n
    return K * (n // b) * (G_top + q.log() / (top - 1))


#: per theorem, how its RDP is bounded below on an order interval and above ORDER_HI (None: the service's default
#: for an RDP nondecreasing in alpha, which yeshokri22.composition declares)
ORDER_BOUNDS: dict[str, tuple[str | None, Any]] = {
    # (alpha - 1) R = L_T is nondecreasing in alpha (a cumulant of the privacy loss)
    "yeshokri22.thm4_3": ("cumulant", _thm43_tail),
    "yeshokri22.composition": (None, None),
}


def best_epsilon_ball(thm_key: str, params: Mapping[str, Any], delta: Any) -> Any:
    """A ball ``[lower, upper]`` containing ``inf_{alpha > 1} eps(alpha)``, ``eps`` the improved conversion (Balle
    et al. 2020, Thm 21) of ``thm_key``'s RDP at ``params`` (exact values) and ``delta`` (exact rational): the ball
    route :func:`dptheory.privacy.conversion.epsilon_ball` with the theorem's arb kernel and its order bounds
    (:data:`ORDER_BOUNDS`: ``yeshokri22.thm4_3`` or ``yeshokri22.composition``)."""
    from dptheory.core.registry import REGISTRY
    from dptheory.privacy.conversion import epsilon_ball

    if thm_key not in ORDER_BOUNDS:
        raise DPTheoryError(f"{_KEY}: no order bounds for {thm_key!r}; use one of {', '.join(ORDER_BOUNDS)}")
    order_bound, tail = ORDER_BOUNDS[thm_key]
    return epsilon_ball(REGISTRY.get(thm_key), params, delta, order_bound=order_bound, tail=tail)
