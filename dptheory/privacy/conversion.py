"""RDP bound -> (epsilon, delta)-DP, optimised over the Renyi order.

Works for any registered theorem whose bound is an RDP epsilon as a function of ``alpha`` and is a
guarantee (direction UPPER or EXACT); ASYMPTOTIC bounds are refused. Two conversions:

* ``classic``: eps = RDP(alpha) + log(1/delta)/(alpha - 1) (Mironov 2017, Prop. 3);
* ``improved``: eps = RDP(alpha) + log((alpha-1)/alpha) - (log delta + log alpha)/(alpha - 1)
  (Balle et al. 2020, Thm 21; identical to Canonne, Kamath, Steinke 2020, Prop. 12).

The order is optimised over a continuous range (or a given list of orders); every order gives a
valid bound, so the result is valid whatever the optimiser does, and it reports the order used and
whether it sits at the edge of the searched range (then widen the range).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np

from dptheory.core.errors import DPTheoryError, RegimeNotSupported
from dptheory.core.notation import format_rational, parse_value
from dptheory.core.theorem import Theorem
from dptheory.core.units import ConversionMethod


@dataclass(frozen=True)
class DPConversion:
    """An (epsilon, delta)-DP guarantee derived from an RDP bound."""

    key: str
    params: dict[str, str]
    delta: float
    method: ConversionMethod
    epsilon: mpmath.mpf
    order: mpmath.mpf
    at_edge: bool
    rdp_at_order: mpmath.mpf
    orders_searched: str
    dps: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "params": self.params,
            "delta": self.delta,
            "method": str(self.method),
            "epsilon": mpmath.nstr(self.epsilon, min(self.dps, 20)),
            "order": mpmath.nstr(self.order, 12),
            "at_edge": self.at_edge,
            "rdp_at_order": mpmath.nstr(self.rdp_at_order, min(self.dps, 20)),
            "orders_searched": self.orders_searched,
            "direction": "upper",
            "unit": "nats",
        }

    def describe(self) -> str:
        edge = "  (optimum at the edge of the searched orders: widen --alpha-min/--alpha-max)" if self.at_edge else ""
        return (
            f"{self.key}: ({mpmath.nstr(self.epsilon, 12)}, {self.delta:g})-DP [{self.method} conversion, "
            f"order alpha = {mpmath.nstr(self.order, 8)}, RDP there {mpmath.nstr(self.rdp_at_order, 12)} nats; "
            f"searched {self.orders_searched}]{edge}"
        )


def convert(
    thm: Theorem,
    params: Mapping[str, Any],
    *,
    delta: float | str,
    method: ConversionMethod | str = ConversionMethod.IMPROVED,
    orders: Sequence[Any] | None = None,
    alpha_min: Any = None,
    alpha_max: Any = None,
    dps: int = 50,
) -> DPConversion:
    """(epsilon, delta) from the RDP bound ``thm`` at ``params`` (all parameters but ``alpha``)."""
    from dptheory.numerics.conversion import optimize_order

    if "alpha" not in thm.params:
        raise DPTheoryError(f"{thm.key} has no Renyi order alpha; it is not an RDP bound")
    method = ConversionMethod.parse(method, key=thm.key)
    if not thm.direction.is_guarantee:
        raise RegimeNotSupported(
            f"{thm.key} is {thm.direction}: not a guarantee, so it cannot be converted "
            "into an (epsilon, delta) guarantee"
        )
    if "alpha" in params:
        raise DPTheoryError("do not give alpha: the conversion optimises over it (use --orders to fix orders)")
    d = parse_value(delta, key=thm.key, name="delta")
    if not (0 < d < 1):
        raise DPTheoryError(f"delta must be in (0, 1); got {delta}")
    base = {k: v for k, v in params.items()}
    probe = thm.parse({**base, "alpha": 2})  # validates names/values early, with a clear error
    del probe

    def rdp_mp(a: Any) -> mpmath.mpf:
        return thm.evaluate({**base, "alpha": a}, dps=dps).value

    floats = {k: float(parse_value(v, key=thm.key, name=k)) for k, v in base.items()}

    def rdp_np(a: np.ndarray) -> np.ndarray:
        arrays = {**{k: np.full(np.shape(a), v) for k, v in floats.items()}, "alpha": np.asarray(a, dtype=float)}
        ok = thm.check_np(arrays)
        vals = thm.evaluate_np(arrays)
        return np.where(ok, vals, np.inf)

    with mpmath.workdps(dps + 10):
        delta_mp = mpmath.mpf(int(d.p)) / int(d.q)
    res = optimize_order(
        rdp_mp,
        delta=delta_mp,
        method=method,
        alpha_min=None if alpha_min is None else mpmath.mpf(str(alpha_min)),
        alpha_max=None if alpha_max is None else mpmath.mpf(str(alpha_max)),
        rdp_np=rdp_np if thm.kernels().np is not None else None,
        orders=None if orders is None else [mpmath.mpf(str(o)) for o in orders],
        dps=dps,
    )
    return DPConversion(
        key=thm.key,
        params={k: format_rational(parse_value(v, key=thm.key, name=k)) for k, v in base.items()},
        delta=float(d),
        method=method,
        epsilon=res.epsilon,
        order=res.order,
        at_edge=res.at_edge,
        rdp_at_order=res.rdp_at_order,
        orders_searched=res.orders_searched,
        dps=dps,
    )
