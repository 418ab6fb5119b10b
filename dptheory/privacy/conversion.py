"""The (epsilon, delta) service: RDP -> (epsilon, delta)-DP, the closed-form bounds and the search over the
Rényi order, by three routes.

* Classic (Mironov 2017, "Rényi Differential Privacy", Prop. 3): an (alpha, r)-RDP mechanism is
  (eps, delta)-DP with ``eps = r + log(1/delta) / (alpha - 1)``.
* Improved (Balle, Barthe, Gaboardi, Hsu, Sato 2020, "Hypothesis testing interpretations and Rényi
  differential privacy", Thm 21; equally Canonne, Kamath, Steinke 2020, Prop. 12):
  ``eps = r + log((alpha - 1)/alpha) - (log delta + log alpha) / (alpha - 1)``.
  CKS write ``delta = exp((alpha-1)(r - eps)) / (alpha-1) * (1 - 1/alpha)^alpha``. Solving for eps
  gives the BBGHS expression, so the two are algebraically identical (``docs/peers.md``, section 1). The
  improved bound is never above the classic one: their difference is
  ``-log(1 - 1/alpha) + log(alpha)/(alpha - 1) > 0``.

Any order alpha gives a valid bound, so every route's result stays valid however well its search went:

* **float** (:func:`epsilon_screen`): float64, the smallest over ``SCREEN_ORDERS`` orders ``1 + 10^(-4..4)``
  at every point of a line of parameter values (the screen of the (epsilon, delta) crossover);
* **mp** (:func:`optimize_order`, and :func:`convert` for a registered theorem): continuous (or discrete)
  search, the final value at the requested mpmath precision; one result record, :class:`DPConversion`;
* **ball** (:func:`epsilon_ball`): an arb ball ``[lower, upper]`` containing the infimum over every order
  alpha > 1, from a theorem's arb kernel (``docs/derivations/epsdelta_order_bounds.md``).

**Clamp at 0.** The formulas can give ``eps < 0`` (tiny RDP, large delta). (eps, delta)-DP with
``eps < 0`` implies (0, delta)-DP, and a negative privacy loss carries no extra meaning, so
:func:`optimize_order` reports ``max(eps, 0)`` and sets ``DPConversion.clamped``. dp-accounting's
``compute_epsilon`` returns ``max(eps, 0)`` too. The formula functions ``eps_*`` do *not* clamp; they
return the formula's value.

:func:`convert` works for any registered theorem whose bound is an RDP epsilon as a function of ``alpha``
and is a guarantee (direction UPPER or EXACT); ASYMPTOTIC bounds are refused. It reports the order used and
whether it sits at the edge of the searched range (then widen the range).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any, TypeAlias

import mpmath
import numpy as np
from numpy.typing import ArrayLike, NDArray

from dptheory.core.errors import DPTheoryError, NumericalFailure, RegimeNotSupported
from dptheory.core.notation import format_rational, parse_exact, rational_to_float
from dptheory.core.units import ConversionMethod, Monotone
from dptheory.core.validate import number_text as _num
from dptheory.core.validate import to_mpf
from dptheory.privacy.orders import renyi_order

if TYPE_CHECKING:
    from dptheory.core.theorem import Theorem
else:  # a Theorem or a theorem read from the statement cache (dptheory.core.snapshot): the same numeric face
    Theorem: TypeAlias = Any

__all__ = [
    "DEFAULT_ALPHA_MAX",
    "DEFAULT_ALPHA_MIN",
    "SCREEN_ORDERS",
    "DPConversion",
    "convert",
    "eps_classic_mp",
    "eps_classic_np",
    "eps_improved_mp",
    "eps_improved_np",
    "epsilon_ball",
    "epsilon_screen",
    "optimize_order",
]

Real: TypeAlias = int | float | mpmath.mpf

_GUARD = 10
DEFAULT_ALPHA_MIN = 1 + 1e-4
DEFAULT_ALPHA_MAX = 1e4
GRID_PER_DECADE_NP = 8  # grid density in log(alpha - 1) when a float64 RDP function is given
GRID_PER_DECADE_MP = 4  # ... when only the mp function is available (evaluated at 15 digits)
SCAN_DPS = 15
SCREEN_ORDERS = 65  # the float route's orders: 1 + 10^(-4..4), 8 per decade
SCREEN_MAX_MP_POINTS = 2000  # the float route without a float64 kernel: at most this many points (mp each)


def _guarded(
    rdp: Any, alpha: Any, delta: Any, where: str, formula: Callable[[mpmath.mpf, mpmath.mpf, mpmath.mpf], mpmath.mpf]
) -> mpmath.mpf:
    """``formula(rdp, alpha, delta)`` on the checked arguments (:func:`_check_mp`) at ``_GUARD`` more digits
    than the caller's precision, rounded back to it."""
    with mpmath.workdps(mpmath.mp.dps + _GUARD):
        value = formula(*_check_mp(rdp, alpha, delta, where))
    return +value


def _check_mp(rdp: Any, alpha: Any, delta: Any, where: str) -> tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf]:
    try:  # all three are numbers (one message); alpha is then checked as an order below
        r, _, d = to_mpf(rdp), to_mpf(alpha), to_mpf(delta)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"{where}: rdp, alpha, delta must be real numbers; got {_num(rdp)}, {_num(alpha)}, {_num(delta)}"
        ) from exc
    if mpmath.isnan(r):
        raise NumericalFailure(f"{where}: RDP is NaN at alpha={_num(alpha)}, delta={_num(delta)}")
    if r < 0:
        raise ValueError(f"{where}: RDP must be >= 0, got rdp={_num(rdp)} at alpha={_num(alpha)}")
    a = renyi_order(alpha, where)
    if mpmath.isnan(d) or not 0 < d < 1:
        raise ValueError(f"{where}: delta must satisfy 0 < delta < 1, got delta={_num(delta)}")
    return r, a, d


def eps_classic_mp(rdp: Real, alpha: Real, delta: Real) -> mpmath.mpf:
    """Classic conversion ``eps = rdp + log(1/delta) / (alpha - 1)`` (Mironov 2017, Prop. 3).

    Args:
        rdp: RDP at order ``alpha`` (>= 0; ``+inf`` gives ``+inf``).
        alpha: Rényi order, finite and > 1.
        delta: target delta, ``0 < delta < 1``.

    Returns:
        eps at the caller's mpmath precision. It is not clamped and is always > 0 here.

    Raises:
        NumericalFailure: rdp is NaN.
        ValueError: an argument outside its domain.
    """
    return _guarded(rdp, alpha, delta, "eps_classic_mp", lambda r, a, d: r - mpmath.log(d) / (a - 1))


def eps_improved_mp(rdp: Real, alpha: Real, delta: Real) -> mpmath.mpf:
    """Improved conversion ``eps = rdp + log((alpha-1)/alpha) - (log delta + log alpha)/(alpha - 1)``.

    Balle et al. 2020, Thm 21. This is the same expression as Canonne-Kamath-Steinke 2020, Prop. 12,
    solved for eps (module docstring).

    Args:
        rdp: RDP at order ``alpha`` (>= 0; ``+inf`` gives ``+inf``).
        alpha: Rényi order, finite and > 1.
        delta: target delta, ``0 < delta < 1``.

    Returns:
        eps at the caller's mpmath precision, not clamped (it can be negative; see the module docstring).

    Raises:
        NumericalFailure: rdp is NaN.
        ValueError: an argument outside its domain.
    """
    return _guarded(
        rdp,
        alpha,
        delta,
        "eps_improved_mp",
        lambda r, a, d: r + mpmath.log((a - 1) / a) - (mpmath.log(d) + mpmath.log(a)) / (a - 1),
    )


def _check_np(rdp: ArrayLike, alpha: ArrayLike, delta: ArrayLike, where: str) -> tuple[NDArray, NDArray, NDArray]:
    r, a, d = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (rdp, alpha, delta)))
    if np.isnan(r).any():
        k = tuple(int(i) for i in np.unravel_index(int(np.argmax(np.isnan(r))), r.shape))
        raise NumericalFailure(f"{where}: RDP is NaN at alpha={_num(a[k])} (index {k})")
    for name, arr, ok, what in (
        ("rdp", r, r >= 0, ">= 0"),
        ("alpha", a, np.isfinite(a) & (a > 1), "finite and > 1"),
        ("delta", d, (d > 0) & (d < 1), "in (0, 1)"),
    ):
        if not ok.all():
            k = tuple(int(i) for i in np.unravel_index(int(np.argmin(ok)), arr.shape))
            raise ValueError(f"{where}: {name} must be {what}; got {name}={_num(arr[k])} at index {k}")
    return r, a, d


def _log_1m_inv(a: NDArray) -> NDArray:
    """``log((a-1)/a)`` without cancellation: ``log(a-1) - log a`` below 2 (``a - 1`` is exact there), else log1p."""
    with np.errstate(all="ignore"):
        return np.where(a < 2.0, np.log(a - 1.0) - np.log(a), np.log1p(-1.0 / a))


def eps_classic_np(rdp: ArrayLike, alpha: ArrayLike, delta: ArrayLike) -> NDArray[np.float64]:
    """float64, broadcasting version of :func:`eps_classic_mp` (Mironov 2017, Prop. 3)."""
    r, a, d = _check_np(rdp, alpha, delta, "eps_classic_np")
    return r - np.log(d) / (a - 1.0)


def eps_improved_np(rdp: ArrayLike, alpha: ArrayLike, delta: ArrayLike) -> NDArray[np.float64]:
    """float64, broadcasting version of :func:`eps_improved_mp` (Balle et al. 2020, Thm 21; not clamped)."""
    r, a, d = _check_np(rdp, alpha, delta, "eps_improved_np")
    return r + _log_1m_inv(a) - (np.log(d) + np.log(a)) / (a - 1.0)


@dataclass(frozen=True)
class DPConversion:
    """An (epsilon, delta)-DP guarantee derived from an RDP bound: the result of the mp route
    (:func:`optimize_order`, :func:`convert`).

    Attributes:
        epsilon: ``max(eps(order), 0)`` at ``order``, computed with the mp RDP at the requested precision.
        delta: the target delta (the float of the given delta from :func:`convert`; the mpf used from
            :func:`optimize_order`).
        order: the Rényi order used.
        at_edge: the best order is the first or last of a discrete set, or (continuous search) within
            one grid step of ``alpha_min`` or ``alpha_max``. The optimum may then lie outside the
            searched range. The bound is still valid.
        method: ``"improved"`` (Balle et al. 2020 Thm 21 = CKS20 Prop 12) or ``"classic"`` (Mironov 2017 Prop 3).
        rdp_at_order: the RDP at ``order`` (mp).
        orders_searched: a description of the search (discrete orders or the continuous range and grid).
        clamped: the unclamped eps was negative and ``epsilon`` was set to 0 (module docstring).
        key, params: the theorem and its parameters (exact, as text) when it came from :func:`convert`
            (empty from :func:`optimize_order`).
        dps: decimal digits of the final evaluation.
    """

    epsilon: mpmath.mpf
    delta: Any
    order: mpmath.mpf
    at_edge: bool
    method: ConversionMethod
    rdp_at_order: mpmath.mpf
    orders_searched: str
    clamped: bool = False
    key: str = ""
    params: dict[str, str] = field(default_factory=dict)
    dps: int = 50

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


_EPS_MP: dict[ConversionMethod, Callable[[Real, Real, Real], mpmath.mpf]] = {
    ConversionMethod.IMPROVED: eps_improved_mp,
    ConversionMethod.CLASSIC: eps_classic_mp,
}
_EPS_NP: dict[ConversionMethod, Callable[[ArrayLike, ArrayLike, ArrayLike], NDArray[np.float64]]] = {
    ConversionMethod.IMPROVED: eps_improved_np,
    ConversionMethod.CLASSIC: eps_classic_np,
}


def _rdp_at(rdp_mp: Callable[[mpmath.mpf], Any], alpha: mpmath.mpf, dps: int) -> mpmath.mpf:
    """``rdp_mp(alpha)`` at ``dps`` digits as an mpf; NaN raises, +inf is passed through."""
    with mpmath.workdps(dps):
        value = rdp_mp(alpha)
        try:
            r = to_mpf(value)
        except (TypeError, ValueError) as exc:
            raise NumericalFailure(f"optimize_order: rdp function returned {_num(value)} at alpha={alpha}") from exc
        if mpmath.isnan(r):
            raise NumericalFailure(f"optimize_order: rdp function returned NaN at alpha={mpmath.nstr(alpha, 17)}")
        return r


def _eps_at(
    rdp_mp: Callable[[mpmath.mpf], Any], alpha: mpmath.mpf, delta: mpmath.mpf, method: ConversionMethod, dps: int
) -> tuple[mpmath.mpf, mpmath.mpf]:
    r = _rdp_at(rdp_mp, alpha, dps)
    with mpmath.workdps(dps):
        if mpmath.isinf(r) and r > 0:
            return mpmath.inf, r
        return _EPS_MP[method](r, alpha, delta), r


def _finish(
    eps: mpmath.mpf,
    r: mpmath.mpf,
    order: mpmath.mpf,
    delta: mpmath.mpf,
    at_edge: bool,
    method: ConversionMethod,
    searched: str,
) -> DPConversion:
    clamped = bool(eps < 0)
    return DPConversion(
        epsilon=mpmath.mpf(0) if clamped else eps,
        delta=delta,
        order=order,
        at_edge=at_edge,
        method=method,
        rdp_at_order=r,
        orders_searched=searched,
        clamped=clamped,
    )


def _describe_orders(orders: list[mpmath.mpf]) -> str:
    shown = [mpmath.nstr(o, 8) for o in orders]
    if len(shown) > 12:
        shown = [*shown[:6], "...", *shown[-3:]]
    return f"discrete: {len(orders)} orders [{', '.join(shown)}]"


def optimize_order(
    rdp_mp: Callable[[mpmath.mpf], Any],
    *,
    delta: Real,
    method: ConversionMethod | str = ConversionMethod.IMPROVED,
    alpha_min: Real | None = None,
    alpha_max: Real | None = None,
    rdp_np: Callable[[NDArray[np.float64]], NDArray[np.float64]] | None = None,
    orders: Sequence[Real] | None = None,
    dps: int = 50,
    nondecreasing: bool = False,
) -> DPConversion:
    """Minimise the RDP -> (eps, delta) bound over the Rényi order.

    Discrete (``orders`` given): eps is computed exactly (``rdp_mp`` at ``dps`` digits) at every order,
    and the smallest is taken. Ties go to the smallest order.

    Continuous (default): the search runs over ``[alpha_min, alpha_max]`` (defaults ``1 + 1e-4`` and
    ``1e4``) in three steps:

    1. a scan on a grid equally spaced in ``log(alpha - 1)``: 8 points per decade with the float64
       ``rdp_np``, or 4 per decade with ``rdp_mp`` at 15 digits when ``rdp_np`` is not given. Only orders
       that can hold the minimum are computed (:func:`_scan`): eps increases with the RDP (which is >= 0),
       so eps at RDP 0 bounds it from below at every order, and with ``nondecreasing`` (the RDP bound is
       nondecreasing in the order) so does the RDP at any smaller order; a grid order whose lower bound is
       above the smallest eps found is skipped, as it cannot be the minimum. The result is the one of the
       full scan; orders near 1 (where eps ~ log(1/delta)/(alpha - 1) and RDP kernels are slowest) and far
       above the optimum are not computed;
    2. a bounded Brent search on ``log(alpha - 1)`` between the best grid point's two neighbours
       (:func:`dptheory.numerics.minimize.fminbound`: SciPy's ``minimize_scalar(method="bounded")`` step for
       step, without the cost of importing ``scipy.optimize``);
    3. eps at the refined order and at the best grid point, both with ``rdp_mp`` at ``dps`` digits.
       The smaller is kept.

    Any order yields a valid bound (Mironov 2017 Prop 3; Balle et al. 2020 Thm 21), so the result is
    valid even where the search is imperfect. Orders where the RDP is ``+inf`` are excluded; if every
    order is excluded, eps is ``+inf``. A NaN from either RDP function raises.

    Args:
        rdp_mp: order (mpf) -> RDP (mpf), evaluated inside ``mpmath.workdps``.
        delta: target delta, ``0 < delta < 1``. A float is taken at its exact binary value (``1e-5`` is
            ``1.0000000000000001e-5``, which moves eps in the 18th digit); pass a string or mpf for a decimal.
        method: ``"improved"`` (Balle et al. 2020 Thm 21 = CKS20 Prop 12) or ``"classic"`` (Mironov 2017 Prop 3).
        alpha_min: smallest order of the continuous search (> 1).
        alpha_max: largest order of the continuous search (> alpha_min, finite).
        rdp_np: optional float64 vectorised RDP (order array -> RDP array) for the scan.
        orders: a discrete set of orders (each finite, > 1). It cannot be combined with alpha_min or alpha_max.
        dps: decimal digits of the final evaluation.
        nondecreasing: the RDP is nondecreasing in the order (a Rényi divergence is, van Erven & Harremoës
            2014, Thm 3; a theorem says so with ``monotone={"alpha": ...}``): the scan then skips the orders above
            those where the RDP alone exceeds the best eps found.

    Returns:
        A :class:`DPConversion`.

    Raises:
        ValueError: invalid method, delta, orders or range.
        NumericalFailure: an RDP function returned NaN.
    """
    m = ConversionMethod.parse(method, key="optimize_order")
    if not isinstance(dps, numbers.Integral) or dps < 5:
        raise ValueError(f"optimize_order: dps must be an integer >= 5, got {_num(dps)}")
    with mpmath.workdps(dps):
        d = to_mpf(delta)
    if mpmath.isnan(d) or not 0 < d < 1:
        raise ValueError(f"optimize_order: delta must satisfy 0 < delta < 1, got delta={_num(delta)}")
    if orders is not None:
        if alpha_min is not None or alpha_max is not None:
            raise ValueError("optimize_order: give either orders or alpha_min/alpha_max, not both")
        return _optimize_discrete(rdp_mp, d, m, orders, dps)
    return _optimize_continuous(rdp_mp, d, m, alpha_min, alpha_max, rdp_np, dps, nondecreasing)


def _optimize_discrete(
    rdp_mp: Callable[[mpmath.mpf], Any], d: mpmath.mpf, method: ConversionMethod, orders: Sequence[Real], dps: int
) -> DPConversion:
    with mpmath.workdps(dps):
        parsed = []
        for o in orders:
            parsed.append(renyi_order(o, "optimize_order", what="every order", name=None))
    if not parsed:
        raise ValueError("optimize_order: orders is empty")
    grid = sorted(set(parsed))
    evaluated = [_eps_at(rdp_mp, a, d, method, dps) for a in grid]
    best = min(range(len(grid)), key=lambda k: evaluated[k][0])
    eps, r = evaluated[best]
    at_edge = len(grid) > 1 and best in (0, len(grid) - 1) and mpmath.isfinite(eps)
    return _finish(eps, r, grid[best], d, at_edge, method, _describe_orders(grid))


#: relative margin by which a lower bound must exceed the best eps for an order to be skipped (float64 rounding of
#: the two ways of computing eps)
SKIP_RTOL = 1e-9


def _scan(
    alphas: NDArray[np.float64],
    s: NDArray[np.float64],
    delta: float,
    eps_np: Callable[[ArrayLike, ArrayLike, ArrayLike], NDArray[np.float64]],
    rdp_float: Callable[[NDArray[np.float64]], NDArray[np.float64]],
    nondecreasing: bool,
) -> NDArray[np.float64]:
    """eps at every grid order (ascending ``alphas``, ``s = log(alpha - 1)``) that can be the minimum; ``+inf`` at the
    others (see :func:`optimize_order`, step 1). The orders are computed a decade of ``alpha - 1`` at a time: first
    the decade [1, 10) (or the one nearest it), then outward; before each decade, the orders whose lower bound is
    above the best eps so far (with a margin of :data:`SKIP_RTOL`) are dropped."""
    n = alphas.size
    floor = eps_np(np.zeros(n), alphas, delta)  # eps at RDP 0: below eps at every order
    lower = floor.copy()
    grid_eps = np.full(n, np.inf)
    rdp = np.full(n, np.nan)
    decade = np.floor(s / math.log(10)).astype(int)
    first = int(decade[np.argmin(np.abs(decade))])
    for d in sorted(set(decade.tolist()), key=lambda x: (abs(x - first), x)):
        best = float(grid_eps.min())
        idx = np.nonzero(decade == d)[0]
        if math.isfinite(best):
            idx = idx[~(lower[idx] > best + SKIP_RTOL * abs(best))]
        if idx.size == 0:
            continue
        r = rdp_float(alphas[idx])
        rdp[idx] = r
        fin = np.isfinite(r)
        if fin.any():
            grid_eps[idx[fin]] = eps_np(r[fin], alphas[idx[fin]], delta)
        if nondecreasing:
            # the RDP at every order is at least the largest finite RDP computed at an order below it
            known = np.where(np.isfinite(rdp), rdp, -np.inf)
            below = np.maximum.accumulate(known)
            lower = np.where(np.isfinite(below), np.maximum(floor, below + floor), floor)
    return grid_eps


def _optimize_continuous(
    rdp_mp: Callable[[mpmath.mpf], Any],
    d: mpmath.mpf,
    method: ConversionMethod,
    alpha_min: Real | None,
    alpha_max: Real | None,
    rdp_np: Callable[[NDArray[np.float64]], NDArray[np.float64]] | None,
    dps: int,
    nondecreasing: bool = False,
) -> DPConversion:
    amin = float(DEFAULT_ALPHA_MIN if alpha_min is None else alpha_min)
    amax = float(DEFAULT_ALPHA_MAX if alpha_max is None else alpha_max)
    if not (math.isfinite(amin) and math.isfinite(amax) and 1 < amin < amax):
        raise ValueError(
            "optimize_order: need 1 < alpha_min < alpha_max < inf, "
            f"got alpha_min={_num(alpha_min)}, alpha_max={_num(alpha_max)}"
        )
    d_f = float(d)
    eps_np = _EPS_NP[method]
    s_lo, s_hi = math.log(amin - 1), math.log(amax - 1)
    per_decade = GRID_PER_DECADE_NP if rdp_np is not None else GRID_PER_DECADE_MP
    n = max(3, math.ceil((s_hi - s_lo) / math.log(10) * per_decade) + 1)
    s = np.linspace(s_lo, s_hi, n)
    step = s[1] - s[0]
    alphas = 1.0 + np.exp(s)
    alphas[0], alphas[-1] = amin, amax

    def rdp_float(a: NDArray[np.float64]) -> NDArray[np.float64]:
        if rdp_np is not None:
            with np.errstate(all="ignore"):
                r = np.asarray(rdp_np(a), dtype=np.float64)
            r = np.broadcast_to(r, a.shape)
        else:
            r = np.array([float(_rdp_at(rdp_mp, mpmath.mpf(float(x)), SCAN_DPS)) for x in a])
        if np.isnan(r).any():
            k = int(np.argmax(np.isnan(r)))
            raise NumericalFailure(f"optimize_order: rdp_np returned NaN at alpha={_num(a[k])}")
        return r

    def eps_float(a: NDArray[np.float64]) -> NDArray[np.float64]:
        r = rdp_float(a)
        out = np.full(a.shape, np.inf)
        fin = np.isfinite(r)
        if fin.any():
            out[fin] = eps_np(r[fin], a[fin], d_f)
        return out

    grid_eps = _scan(alphas, s, d_f, eps_np, rdp_float, nondecreasing)
    searched = (
        f"continuous [{amin:.10g}, {amax:.10g}]: {n}-point grid in log(alpha-1) ({per_decade}/decade, "
        f"{'float64 rdp_np' if rdp_np is not None else f'rdp_mp at {SCAN_DPS} digits'}), then bounded Brent"
    )
    if not np.isfinite(grid_eps).any():
        with mpmath.workdps(dps):
            return _finish(mpmath.inf, mpmath.inf, mpmath.mpf(amin), d, False, method, searched)
    k = int(np.argmin(grid_eps))
    lo, hi = s[max(k - 1, 0)], s[min(k + 1, n - 1)]

    def objective(sv: float) -> float:
        a = min(max(1.0 + math.exp(sv), amin), amax)
        return float(eps_float(np.array([a]))[0])

    from dptheory.numerics.minimize import fminbound

    res = fminbound(objective, float(lo), float(hi), xatol=1e-9)
    refined = min(max(1.0 + math.exp(float(res.x)), amin), amax)
    candidates = [float(alphas[k])] + ([refined] if refined != float(alphas[k]) else [])
    best_eps = best_r = best_a = None
    for a in candidates:
        am = mpmath.mpf(a)
        eps, r = _eps_at(rdp_mp, am, d, method, dps)
        if best_eps is None or eps < best_eps:
            best_eps, best_r, best_a = eps, r, am
    assert best_a is not None  # candidates is never empty
    s_best = math.log(float(best_a) - 1)
    tol = step * (1 + 1e-9)
    at_edge = bool((s_best - s_lo) <= tol or (s_hi - s_best) <= tol)
    return _finish(best_eps, best_r, best_a, d, at_edge, method, searched)


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
    """(epsilon, delta) from the RDP bound ``thm`` at ``params`` (all parameters but ``alpha``): the mp route
    (:func:`optimize_order`) on the theorem's mp kernel, its float64 kernel (when it has one) for the scan."""
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
    d = parse_exact(delta, key=thm.key, name="delta")
    if not (0 < d < 1):
        raise DPTheoryError(f"delta must be in (0, 1); got {delta}")
    base = {k: v for k, v in params.items()}
    probe = thm.parse({**base, "alpha": 2})  # validates names/values early, with a clear error
    del probe

    def rdp_mp(a: Any) -> mpmath.mpf:
        return thm.evaluate({**base, "alpha": a}, dps=dps).value

    floats = {k: rational_to_float(parse_exact(v, key=thm.key, name=k)) for k, v in base.items()}

    def rdp_np(a: np.ndarray) -> np.ndarray:
        arrays = {**{k: np.full(np.shape(a), v) for k, v in floats.items()}, "alpha": np.asarray(a, dtype=float)}
        ok = thm.check_np(arrays)
        vals = thm.evaluate_np(arrays)
        return np.where(ok, vals, np.inf)

    with mpmath.workdps(dps + 10):
        delta_mp = mpmath.mpf(d.numerator) / d.denominator
    res = optimize_order(
        rdp_mp,
        delta=delta_mp,
        method=method,
        alpha_min=None if alpha_min is None else mpmath.mpf(str(alpha_min)),
        alpha_max=None if alpha_max is None else mpmath.mpf(str(alpha_max)),
        rdp_np=rdp_np if thm.kernels().np is not None else None,
        orders=None if orders is None else [mpmath.mpf(str(o)) for o in orders],
        dps=dps,
        nondecreasing=(m := thm.monotone.get("alpha")) is not None and Monotone(m).up,
    )
    return replace(
        res,
        key=thm.key,
        params={k: format_rational(parse_exact(v, key=thm.key, name=k)) for k, v in base.items()},
        delta=float(d),
        dps=dps,
    )


# ----------------------------------------------------------------------------------------------
# float route: a line of parameter values, the order minimised over SCREEN_ORDERS orders
# ----------------------------------------------------------------------------------------------


def epsilon_screen(
    thm: Theorem,
    fixed: Mapping[str, Any],
    over: str,
    values: Sequence[Any],
    delta: float,
    method: ConversionMethod | str = ConversionMethod.IMPROVED,
) -> NDArray[np.float64]:
    """float64 (epsilon, delta) of ``thm`` at every value of ``over`` (the other parameters ``fixed``, without
    ``alpha``): the smallest over ``SCREEN_ORDERS`` orders ``1 + 10^(-4..4)`` (8 per decade), clamped at 0,
    ``inf`` where no order satisfies the conditions.

    Any order gives a valid bound (Mironov 2017 Prop. 3; Balle et al. 2020 Thm 21), so each value is an upper
    bound on the optimised one. A theorem without a float64 kernel is converted point by point by
    :func:`convert` at 20 digits (at most ``SCREEN_MAX_MP_POINTS`` points). Values and ``fixed`` are exact
    numbers or their text (``"0.02"``, ``"1/3"``, ints).
    """
    conv = eps_improved_np if str(method) == "improved" else eps_classic_np
    xs = np.array([float(Fraction(str(x))) for x in values])
    alphas = 1.0 + 10.0 ** np.linspace(-4, 4, SCREEN_ORDERS)
    if thm.kernels().np is None:
        if len(values) > SCREEN_MAX_MP_POINTS:
            raise DPTheoryError(
                f"crossover --delta: {thm.key} has no float64 kernel; at most {SCREEN_MAX_MP_POINTS} points (got "
                f"{len(values)})"
            )
        out = []
        for x in values:
            pt = dict(fixed)
            if over in thm.params:
                pt[over] = str(x)
            out.append(float(convert(thm, pt, delta=repr(delta), method=method, dps=20).epsilon))
        return np.array(out)
    X, A = np.meshgrid(xs, alphas, indexing="ij")
    arrays = {p: np.full(X.shape, float(Fraction(str(v)))) for p, v in fixed.items()}
    if over in thm.params:
        arrays[over] = X
    arrays["alpha"] = A
    ok = thm.check_np(arrays)
    eps = np.full(X.shape, np.inf)
    if ok.any():
        sub = {p: arr[ok] for p, arr in arrays.items()}
        vals = thm.evaluate_np(sub)
        with np.errstate(all="ignore"):
            e = conv(np.where(np.isfinite(vals), vals, np.inf), sub["alpha"], delta)
        eps[ok] = np.maximum(np.where(np.isnan(e), np.inf, e), 0.0)
    return eps.min(axis=1)


# ----------------------------------------------------------------------------------------------
# ball route: the infimum over every order, enclosed on arb balls (docs/derivations/epsdelta_order_bounds.md)
# ----------------------------------------------------------------------------------------------

#: orders below ``ORDER_LO`` and above ``ORDER_HI`` are bounded in closed form; in between, branch and bound
ORDER_LO = (3, 2)
ORDER_HI = 64
BALL_PREC = 128
BALL_MAX_INTERVALS = 200
BALL_RTOL = 1e-3
#: how the RDP is bounded below on an order interval [lo, hi] from its value at lo
ORDER_BOUNDS = ("nondecreasing", "cumulant")


def _arb_q(x: Any) -> Any:
    import flint

    r = x if isinstance(x, numbers.Rational) else Fraction(x)  # an exact value (a float at its binary value)
    return flint.arb(int(r.numerator)) / int(r.denominator)


def _improved_lower(key: str, R_lo: Any, a: Any, b: Any, log_inv_delta: Any) -> Any:
    """Lower bound of ``R + log(1 - 1/alpha) + (log(1/delta) - log alpha)/(alpha - 1)`` (Balle et al. 2020, Thm 21)
    over ``alpha`` in ``[a, b]`` given ``R >= R_lo`` there: the log term increases in alpha, the last one decreases
    while ``log alpha <= log(1/delta)`` (checked)."""
    if not bool(b.log() <= log_inv_delta):
        raise DPTheoryError(f"{key}: order {b} above 1/delta: the conversion's last term is not monotone there")
    return R_lo + (1 - 1 / a).log() + (log_inv_delta - b.log()) / (b - 1)


def _ball_rdp(thm: Theorem, base: Mapping[str, Any], order_bound: str) -> Callable[[Fraction, Fraction], Any]:
    """``R_on(lo, hi)``: at ``lo == hi`` the theorem's arb value at that order; otherwise a ball whose lower end
    bounds R on [lo, hi] from below: R(lo) when R is nondecreasing in alpha (a Renyi divergence is nondecreasing
    in its order, van Erven & Harremoes 2014, Thm 3), ``(lo - 1) R(lo) / (hi - 1)`` when ``(alpha - 1) R`` is."""
    import flint

    arb = flint.arb
    kern = thm.kernels().arb
    if kern is None:
        raise DPTheoryError(f"{thm.key} has no arb kernel: no certified (epsilon, delta) over every order")
    memo: dict[Fraction, Any] = {}

    def R_on(lo: Fraction, hi: Fraction) -> Any:
        a = arb(lo.numerator) / lo.denominator
        if lo not in memo:
            memo[lo] = kern.arb({**base, "alpha": a})
        r = memo[lo]
        if lo == hi or order_bound == "nondecreasing":
            return r
        return r * (a - 1) / (arb(hi.numerator) / hi.denominator - 1)

    return R_on


def _branch_and_bound(
    a0: Fraction, lower_on: Callable[[Fraction, Fraction], Any], eps_at: Callable[[Fraction], Any]
) -> tuple[Any, Any]:
    """Branch and bound over the orders [a0, ORDER_HI] (:func:`epsilon_ball`): the intervals between 33 orders
    equally spaced in log alpha (rounded to 1/64), the one of smallest lower bound bisected until every lower
    bound is within ``BALL_RTOL`` of the best value at an order or ``BALL_MAX_INTERVALS`` intervals. Returns (the
    smallest interval lower bound, that value)."""
    import heapq
    import itertools

    grid = sorted(
        {
            a0,
            *(Fraction(round(64 * float(a0) * (ORDER_HI / float(a0)) ** (i / 32))) / 64 for i in range(1, 32)),
            Fraction(ORDER_HI),
        }
    )
    heap: list[tuple[float, int, Fraction, Fraction, Any]] = []
    ub = None
    for lo, hi in itertools.pairwise(grid):
        lb = lower_on(lo, hi)
        heapq.heappush(heap, (float(lb.mid()), len(heap), lo, hi, lb))
        e = eps_at(lo)
        ub = e.upper() if ub is None else ub.min(e.upper())
    assert ub is not None
    count = len(heap)
    while heap and count < BALL_MAX_INTERVALS:
        _, _, lo, hi, lb = heap[0]
        if bool(lb >= ub - abs(ub) * BALL_RTOL):
            break
        heapq.heappop(heap)
        mid = (lo + hi) / 2
        ub = ub.min(eps_at(mid).upper())
        for x, y in ((lo, mid), (mid, hi)):
            lb2 = lower_on(x, y)
            heapq.heappush(heap, (float(lb2.mid()), count, x, y, lb2))
            count += 1
    return min((item[4] for item in heap), key=lambda v: float(v.mid())), ub


def epsilon_ball(
    thm: Theorem,
    params: Mapping[str, Any],
    delta: Any,
    *,
    order_bound: str | None = None,
    tail: Callable[[Any, Mapping[str, Any]], Any] | None = None,
) -> Any:
    """A ball ``[lower, upper]`` containing ``inf_{alpha > 1} eps(alpha)``, ``eps`` the improved conversion (Balle
    et al. 2020, Thm 21) of ``thm``'s RDP (its arb kernel) at ``params`` (exact values of every parameter but
    ``alpha``) and ``delta`` (exact rational).

    ``upper`` is a certified value at an order (any order's epsilon is an upper bound of the infimum); ``lower``
    is certified over every order: closed forms below ``ORDER_LO`` and above ``ORDER_HI``, branch and bound on
    order intervals in between, refined until the bracket is within ``BALL_RTOL`` relative or
    ``BALL_MAX_INTERVALS`` intervals (docs/derivations/epsdelta_order_bounds.md).

    Args:
        order_bound: how R is bounded below on an order interval from its left end (:data:`ORDER_BOUNDS`):
            ``"nondecreasing"`` (R nondecreasing in alpha) or ``"cumulant"`` (``(alpha - 1) R`` nondecreasing).
            Default: ``"nondecreasing"`` when the theorem declares it (``monotone={"alpha": ...}``).
        tail: ``tail(order, arb_params)``, a lower bound of R at every order >= ``order`` (``ORDER_HI``), evaluated
            on the arb parameters at the ball precision. Default (nondecreasing R only): R at ``ORDER_HI``.
    """
    import flint

    declared = (m := thm.monotone.get("alpha")) is not None and Monotone(m).up
    bound = order_bound if order_bound is not None else ("nondecreasing" if declared else None)
    if bound not in ORDER_BOUNDS:
        raise DPTheoryError(
            f"{thm.key}: order_bound must be one of {', '.join(ORDER_BOUNDS)} (the theorem declares no monotonicity "
            f"in alpha); got {order_bound!r}"
        )
    if tail is None and bound != "nondecreasing":
        raise DPTheoryError(f"{thm.key}: give tail (a lower bound of R above order {ORDER_HI}) with {bound!r}")
    with flint.ctx.workprec(BALL_PREC):
        arb = flint.arb
        base = {k: _arb_q(v) for k, v in params.items() if k in thm.params and k != "alpha"}
        log_inv_delta = -_arb_q(delta).log()
        R_on = _ball_rdp(thm, base, bound)

        def eps_at(x: Fraction) -> Any:
            a = arb(x.numerator) / x.denominator
            return R_on(x, x) + (1 - 1 / a).log() + (log_inv_delta - a.log()) / (a - 1)

        def lower_on(lo: Fraction, hi: Fraction) -> Any:
            r = R_on(lo, hi)
            return _improved_lower(
                thm.key,
                arb(r.lower()).max(arb(0)),
                arb(lo.numerator) / lo.denominator,
                arb(hi.numerator) / hi.denominator,
                log_inv_delta,
            ).lower()

        # alpha in (1, ORDER_LO]: R >= 0, so eps >= log h - log(1+h) + (log(1/delta) - log(1+h))/h, h = ORDER_LO - 1
        a0 = Fraction(*ORDER_LO)
        h = arb(a0.numerator - a0.denominator) / a0.denominator
        c1 = log_inv_delta - (1 + h).log()
        if not bool(h <= c1):
            raise DPTheoryError(f"{thm.key}: delta too large for the closed-form bound below order {a0}")
        lb_low = (h.log() - (1 + h).log() + c1 / h).lower()
        # alpha >= ORDER_HI: log(1 - 1/alpha) >= its value at ORDER_HI, -log(alpha)/(alpha-1) increases to 0
        top = arb(ORDER_HI)
        r_hi = (tail(top, base) if tail is not None else R_on(Fraction(ORDER_HI), Fraction(ORDER_HI))).max(arb(0))
        lb_high = (arb(r_hi.lower()) + (1 - 1 / top).log() - top.log() / (top - 1)).lower()
        lb_mid, ub = _branch_and_bound(a0, lower_on, eps_at)
        lower = arb(lb_mid).min(arb(lb_low)).min(arb(lb_high))
        return arb(lower.lower()).union(arb(ub.upper()))
