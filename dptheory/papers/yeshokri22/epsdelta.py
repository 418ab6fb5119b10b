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
    _check_delta,
    _check_neighbouring,
    _check_rel_width,
    pld_epsilon,
    rdp_epsilon_best,
    theorem_epsilon,
)

_KEY = "yeshokri22.epsdelta"
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

    @property
    def vs_rdp(self) -> str:
        """``"below"`` if the hidden-state bound is below the RDP baseline, else ``"above"`` (ties: above)."""
        return "below" if self.hidden < self.rdp else "above"

    @property
    def vs_pld(self) -> str:
        """Against the PLD bracket: ``"below"`` (below its lower end), ``"above"`` (at or above its upper
        end) or ``"undecided"``."""
        return self.pld.compare(self.hidden)

    def to_dict(self) -> dict[str, Any]:
        return {
            "K": self.K,
            "steps": self.steps,
            "hidden": self.hidden,
            "hidden_order": self.hidden_order,
            "hidden_at_edge": self.hidden_at_edge,
            "rdp": self.rdp,
            "rdp_order": self.rdp_order,
            "pld": self.pld.epsilon_upper,
            "pld_lower": self.pld.epsilon_lower,
            "pld_rel_width": self.pld.rel_width,
            "vs_rdp": self.vs_rdp,
            "vs_pld": self.vs_pld,
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

    def undecided(self) -> list[int]:
        """The K at which the PLD bracket could not decide the comparison."""
        return [p.K for p in self.points if p.vs_pld == "undecided"]

    def first_win(self, baseline: str) -> int | None:
        w = self.wins(baseline)
        return w[0] if w else None

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {"key": self.key, "K_range": [self.points[0].K, self.points[-1].K] if self.points else []}
        for b in ("rdp", "pld"):
            w = self.wins(b)
            ks = [p.K for p in self.points]
            contiguous_tail = bool(w) and w == ks[ks.index(w[0]) :]
            out[b] = {"first_win": w[0] if w else None, "wins": len(w), "wins_from_first_on": contiguous_tail}
        out["pld_undecided"] = self.undecided()
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "params": self.params,
            "delta": self.delta,
            "method": str(self.method),
            "neighbouring": self.neighbouring,
            "q": self.q,
            "z": self.z,
            "z_pld": self.z_pld,
            "steps_per_epoch": self.steps_per_epoch,
            "points": [p.to_dict() for p in self.points],
            "summary": self.summary(),
            "unit": "nats",
        }


def _baseline_attr(baseline: str) -> str:
    if baseline not in ("rdp", "pld"):
        raise DPTheoryError(f"baseline must be 'rdp' or 'pld'; got {baseline!r}")
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

    Returns:
        An :class:`EpsilonDeltaCurve` (``wins("pld")``, ``first_win("rdp")``, ``summary()``).
    """
    if "alpha" in params or "K" in params:
        raise DPTheoryError("give the parameters without alpha and K: alpha is optimised and K is swept")
    ks = _check_K_values(K_values)
    d = _check_delta(delta)
    rel = _check_neighbouring(neighbouring)
    rw0, rw_min = _check_rel_width(rel_width), _check_rel_width(refine_to, "refine_to")
    q, z, per_epoch = baseline_mechanism(params)
    z_pld = 2.0 * z if rel == "replace_one" else z
    points: list[CurvePoint] = []
    conv = None
    for K in ks:
        conv = theorem_epsilon(thm_key, {**params, "K": K}, delta, method=method, dps=dps)
        steps = K * per_epoch
        rdp = rdp_epsilon_best(q, z, steps, d, method=method, dps=dps)
        hidden = float(conv.epsilon)
        rw = rw0
        pld = pld_epsilon(q, z_pld, steps, d, rel_width=rw, neighbouring=rel)
        while pld.compare(hidden) == "undecided" and rw > rw_min * (1 + 1e-12):
            rw = max(rw / 10.0, rw_min)
            finer = pld_epsilon(q, z_pld, steps, d, rel_width=rw, neighbouring=rel)
            if finer.lower_interval >= pld.lower_interval:  # the point cap stops refinement
                break
            pld = finer
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
