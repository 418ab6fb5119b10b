"""Tight (epsilon, delta) of composed Poisson-subsampled Gaussian mechanisms from a privacy-loss-distribution
(PLD) accountant, the RDP route to the same quantity, and the hidden-state bounds against both.

The mechanism is the composition baseline of Ye & Shokri 2022 ("Differentially Private Learning Needs
Hidden State (Or Much Faster Convergence)", arXiv 2203.05363, Sec. 5.2 and E.1): ``steps`` rounds of
the Gaussian mechanism with noise multiplier ``z`` applied to a Poisson sample with probability ``q``
(Abadi et al. 2016; Mironov, Talwar & Zhang 2019, arXiv 1908.10530, MTZ19). Three quantities:

* :func:`pld_epsilon` / :func:`pld_delta`: the tight privacy profile from dp-accounting's PLD
  (Koskela et al. 2020; Doroshenko, Ghazi, Kamath, Kumar & Manurangsi 2022, "Connect the Dots:
  Tighter Discrete Approximations of Privacy Loss Distributions", arXiv 2207.04380), with an error
  bracket ``[lower, upper]``. The single-step PLD comes from
  ``dp_accounting.pld.privacy_loss_distribution.from_gaussian_mechanism`` (the optimistic one, privacy buckets,
  from :func:`dptheory.privacy.pld_fast.gaussian_privacy_buckets`: the library's construction with its loop over
  the grid losses as array operations, bit for bit the same PLD). Two more steps are ours, both the
  library's rule computed differently (:mod:`dptheory.privacy.pld_fast`, compared with the library and with a
  long-double reference in ``tests/test_pld_fast.py``): the ``steps``-fold composition
  (:func:`dptheory.privacy.pld_fast.self_compose`: the library's ``self_compose``, the same truncation window and
  mass at infinity, with a real FFT whose coefficients that matter, and their power, are taken in long double,
  so that its round-off is about a thousandth of the library's), and the read-off of epsilon at delta
  (:func:`dptheory.privacy.pld_fast.epsilon_for_delta`: the library's loop as array scans, the same sums in the
  same order). What the library's ``PLDAccountant.compose(PoissonSampledDpEvent(q, GaussianDpEvent(z)), steps)``
  gives agrees with the upper end up to the library's FFT round-off (``tests/test_pld.py``).
* :func:`rdp_epsilon_best`: the RDP route, MTZ19's RDP (``dptheory.privacy.sgm``) times ``steps``,
  converted with the improved conversion (Balle et al. 2020, Thm 21 = Canonne, Kamath & Steinke
  2020, Prop. 12; never above Mironov 2017, Prop. 3) optimised over the order
  (``dptheory.privacy.conversion.optimize_order``).
* ``epsilon_delta_curve`` (in the Ye & Shokri paper package, ``epsdelta``): per epoch K, a
  registered hidden-state RDP bound converted by
  :func:`dptheory.privacy.conversion.convert` (already "the order optimised per theorem") against
  both baselines at the Ye & Shokri parameters.

**The bracket.** dp-accounting offers two discretisations of the PLD on a grid of spacing ``h``:

* *upper* (``pessimistic_estimate=True``, connect-the-dots): the hockey-stick divergence of the
  discretised PLD is at least the true one, so its epsilon is an upper bound on the true epsilon;
  truncated tail mass is put at +infinity (pessimistic too). Measured against the closed form at
  q = 1 (Gaussian DP, Balle & Wang 2018, Thm 8) its error is below 5e-6 relative at ``h = 1e-4``
  for up to 1e5 steps. When epsilon is only a few grid steps it is coarse (q = 0.001, z = 10, 100
  steps: 9 % high at 1e-4, 1e-3 at 1e-5). Finer grids do not always help: with tens of millions of
  grid points round-off dominates (+5.8e-4 relative at ``h = 1e-6``, 5000 steps, 24M points; not the
  composition's, which is the same with our long-double one: docs/privacy_baselines_pld.md). So the upper
  grid starts at 1e-4 and is refined tenfold only while the bracket shows the upper end is the loose one
  (:func:`pld_epsilon`), within the point cap.
* *lower* (``pessimistic_estimate=False``, privacy buckets rounding every loss *down*): its epsilon
  is a lower bound, but the rounding bias adds up over the composition: the lower end sits about
  ``steps * h_lo / 2`` below the true epsilon (first order in ``h_lo``; measured exactly so at q = 1).
  So the lower end gets its own, finer grid ``h_lo = 2 rel_width epsilon_upper / steps``, which
  makes the bracket's relative width about ``rel_width``; ``h_lo`` is never finer than what keeps
  the composed PLD below ``MAX_LOWER_POINTS`` grid points (memory), and the result reports the width
  reached. At Ye & Shokri's Figure 2 setting (q = 0.04, z = 10, 25 steps per epoch) a target of 1e-3
  gives 1.1e-3 up to 50 epochs and 2.7e-3 at 200 (point cap), in seconds per point
  (docs/privacy_baselines_pld.md).

"Rigorous as the library allows": both ends are one-sided by construction of the discretisations;
floating-point round-off of the FFT is not enclosed (see above for its measured size at the grids
used). The point value reported (``PLDResult.epsilon``) is the upper end.

**Neighbouring relations** (dp-accounting's semantics; ``z`` = noise std / l2 bound ``C`` on one
record's contribution):

* ``"add_or_remove"`` (default): one record added or removed; the worst case of the pairs
  ``((1-q) N(0, z^2) + q N(1, z^2), N(0, z^2))`` in both orders. This is MTZ19's relation, the one of
  ``rdp.subsampled_gaussian`` and :func:`rdp_epsilon_best`, and the one under which Ye & Shokri's
  composition baseline is stated (they plug ``z = std / (eta S_g / b)``, the replace-one update
  sensitivity, into MTZ19's add/remove RDP).
* ``"replace_one"``: one record replaced by another; the pair ``(1-q) N(0) + q N(-1)`` versus
  ``(1-q) N(0) + q N(1)``, i.e. the contribution moves by up to ``2C``. Ye & Shokri's ``S_g`` is a
  replace-one sensitivity obtained by clipping at ``S_g / 2`` (their Prop. 5.2), so ``C = S_g/2`` and
  the replace-one PLD of their update is the one at noise multiplier ``2 z``, where ``z`` is their
  baseline's multiplier (``baseline_mechanism`` in the Ye & Shokri paper package). At the Figure 2
  setting it is 0.5-3 % below the
  add/remove value at ``z`` (docs/privacy_baselines_pld.md).

``q = 0`` gives epsilon 0 and delta 0 (no record is ever used; dp-accounting's accountant treats
the event as a no-op too).
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import mpmath
import numpy as np
from numpy.typing import NDArray

from dptheory.core.errors import InvalidParameter, NumericalFailure
from dptheory.core.units import ConversionMethod
from dptheory.core.validate import number_text
from dptheory.privacy.pld_fast import epsilon_for_delta, gaussian_privacy_buckets, self_compose

if TYPE_CHECKING:
    from dptheory.privacy.conversion import DPConversion

__all__ = [
    "DEFAULT_NEIGHBOURING",
    "DEFAULT_REL_WIDTH",
    "DEFAULT_VALUE_DISCRETIZATION_INTERVAL",
    "MAX_LOWER_POINTS",
    "NEIGHBOURING_RELATIONS",
    "PLDDeltaResult",
    "PLDResult",
    "check_delta",
    "check_neighbouring",
    "check_rel_width",
    "clear_caches",
    "pld_delta",
    "pld_epsilon",
    "rdp_epsilon_best",
    "theorem_epsilon",
]

Neighbouring = Literal["add_or_remove", "replace_one"]
NEIGHBOURING_RELATIONS: tuple[str, ...] = ("add_or_remove", "replace_one")
DEFAULT_NEIGHBOURING: Neighbouring = "add_or_remove"
DEFAULT_VALUE_DISCRETIZATION_INTERVAL = 1e-4
DEFAULT_REL_WIDTH = 1e-2
# the lower end's grid is never so fine that its composed PLD exceeds this many points (2 float64
# arrays of this length plus the complex FFT buffer: about 200 MB)
MAX_LOWER_POINTS = 2**22
_KEY = "pld"


# ----------------------------------------------------------------------------------------------
# validation (one-line errors)
# ----------------------------------------------------------------------------------------------


def _real(name: str, value: Any, accepted: str) -> float:
    if isinstance(value, (bool, str, bytes)):
        raise InvalidParameter(key=_KEY, name=name, value=value, reason=f"must be a real number {accepted}")
    try:
        v = float(value)
    except (TypeError, ValueError, OverflowError):
        raise InvalidParameter(key=_KEY, name=name, value=value, reason=f"must be a real number {accepted}") from None
    if math.isnan(v):
        raise InvalidParameter(key=_KEY, name=name, value=value, reason=f"is NaN; it must be a real number {accepted}")
    return v


def _check_q(q: Any) -> float:
    v = _real("q", q, "in [0, 1] (Poisson sampling probability)")
    if not 0.0 <= v <= 1.0:
        raise InvalidParameter(key=_KEY, name="q", value=q, reason="must be in [0, 1] (Poisson sampling probability)")
    return v


def _check_z(z: Any) -> float:
    v = _real("z", z, "> 0 (noise multiplier)")
    if not (v > 0 and math.isfinite(v)):
        raise InvalidParameter(key=_KEY, name="z", value=z, reason="must be finite and > 0 (noise multiplier)")
    return v


def _check_steps(steps: Any) -> int:
    if isinstance(steps, bool) or not isinstance(steps, numbers.Integral) or int(steps) < 1:
        raise InvalidParameter(
            key=_KEY, name="steps", value=steps, reason="must be a positive integer (number of composed steps)"
        )
    return int(steps)


def check_delta(delta: Any) -> float:
    """``delta`` as a float in (0, 1); else :class:`InvalidParameter` (one line, naming it)."""
    v = _real("delta", delta, "in (0, 1)")
    if not 0.0 < v < 1.0:
        raise InvalidParameter(key=_KEY, name="delta", value=delta, reason="must be in (0, 1)")
    return v


def _check_epsilon(epsilon: Any) -> float:
    v = _real("epsilon", epsilon, ">= 0")
    if not (v >= 0 and math.isfinite(v)):
        raise InvalidParameter(key=_KEY, name="epsilon", value=epsilon, reason="must be finite and >= 0")
    return v


def check_neighbouring(neighbouring: Any) -> str:
    """One of :data:`NEIGHBOURING_RELATIONS`; else :class:`InvalidParameter` naming the accepted ones."""
    if neighbouring not in NEIGHBOURING_RELATIONS:
        raise InvalidParameter(
            key=_KEY,
            name="neighbouring",
            value=neighbouring,
            reason=f"must be one of {', '.join(repr(n) for n in NEIGHBOURING_RELATIONS)}",
        )
    return str(neighbouring)


def _check_interval(name: str, h: Any) -> float:
    v = _real(name, h, "in (0, 1) (PLD grid spacing in nats)")
    if not 0.0 < v < 1.0:
        raise InvalidParameter(key=_KEY, name=name, value=h, reason="must be in (0, 1) (PLD grid spacing in nats)")
    return v


def check_rel_width(rel_width: Any, name: str = "rel_width") -> float:
    """A target relative width of a PLD bracket, in (0, 1) (``name`` is the argument named in the error)."""
    accepted = "in (0, 1) (target relative width of the bracket)"
    v = _real(name, rel_width, accepted)
    if not 0.0 < v < 1.0:
        raise InvalidParameter(key=_KEY, name=name, value=rel_width, reason=f"must be {accepted}")
    return v


def _check_grid(h_up: Any, h_lo: Any, rel_width: Any) -> tuple[float | None, float | None, float]:
    """The validated grid options of :func:`pld_epsilon` / :func:`pld_delta` (None: automatic grid)."""
    up = None if h_up is None else _check_interval("value_discretization_interval", h_up)
    lo = None if h_lo is None else _check_interval("lower_value_discretization_interval", h_lo)
    return up, lo, check_rel_width(rel_width)


# ----------------------------------------------------------------------------------------------
# PLD (dp-accounting)
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PLDResult:
    """Epsilon at ``delta`` of ``steps`` compositions of the Poisson-subsampled Gaussian, with its bracket.

    Attributes:
        epsilon_lower: dp-accounting's optimistic estimate (privacy buckets, grid ``lower_interval``):
            a lower bound on the true epsilon.
        epsilon_upper: its pessimistic estimate (connect-the-dots, grid ``upper_interval``): an upper
            bound, and the value reported (:attr:`epsilon`).
        lower_interval, upper_interval: the two grid spacings (nats).
        lower_points: grid points of the composed optimistic PLD (0 when not computed: q = 0).
    """

    q: float
    z: float
    steps: int
    delta: float
    neighbouring: str
    epsilon_lower: float
    epsilon_upper: float
    upper_interval: float
    lower_interval: float
    lower_points: int

    @property
    def epsilon(self) -> float:
        """The reported (safe) value: the upper end of the bracket."""
        return self.epsilon_upper

    @property
    def width(self) -> float:
        return self.epsilon_upper - self.epsilon_lower

    @property
    def rel_width(self) -> float:
        return 0.0 if self.epsilon_upper == 0 else self.width / self.epsilon_upper

    def compare(self, value: float) -> str:
        """``"below"`` if ``value`` < the true epsilon for sure (below the lower end), ``"above"`` if
        ``value`` >= it for sure (at or above the upper end), else ``"undecided"``."""
        if value < self.epsilon_lower:
            return "below"
        if value >= self.epsilon_upper:
            return "above"
        return "undecided"

    def to_dict(self) -> dict[str, Any]:
        return {
            "q": self.q,
            "z": self.z,
            "steps": self.steps,
            "delta": self.delta,
            "neighbouring": self.neighbouring,
            "epsilon": self.epsilon_upper,
            "epsilon_lower": self.epsilon_lower,
            "epsilon_upper": self.epsilon_upper,
            "rel_width": self.rel_width,
            "upper_interval": self.upper_interval,
            "lower_interval": self.lower_interval,
            "lower_points": self.lower_points,
            "accountant": "dp-accounting PLD (upper: pessimistic connect-the-dots; lower: optimistic privacy buckets)",
            "unit": "nats",
        }

    def describe(self) -> str:
        return (
            f"PLD: ({self.epsilon_upper:.10g}, {self.delta:g})-DP for {self.steps} steps of the Poisson-subsampled "
            f"Gaussian (q = {self.q:g}, z = {self.z:g}, {self.neighbouring}); true epsilon in "
            f"[{self.epsilon_lower:.10g}, {self.epsilon_upper:.10g}] (relative width {self.rel_width:.2g}; grids "
            f"{self.lower_interval:.3g} / {self.upper_interval:.3g})"
        )


@dataclass(frozen=True)
class PLDDeltaResult:
    """Delta at ``epsilon`` of the same composition: ``delta_lower`` (optimistic) <= true <= ``delta_upper``."""

    q: float
    z: float
    steps: int
    epsilon: float
    neighbouring: str
    delta_lower: float
    delta_upper: float
    upper_interval: float
    lower_interval: float

    @property
    def delta(self) -> float:
        """The reported (safe) value: the upper end."""
        return self.delta_upper

    def to_dict(self) -> dict[str, Any]:
        return {
            "q": self.q,
            "z": self.z,
            "steps": self.steps,
            "epsilon": self.epsilon,
            "neighbouring": self.neighbouring,
            "delta": self.delta_upper,
            "delta_lower": self.delta_lower,
            "delta_upper": self.delta_upper,
            "upper_interval": self.upper_interval,
            "lower_interval": self.lower_interval,
        }


@functools.lru_cache(maxsize=3)
def _composed(q: float, z: float, steps: int, neighbouring: str, h: float, pessimistic: bool) -> Any:
    """dp-accounting PLD of ``steps`` compositions (self_compose: one FFT power); cached (the last three:
    each can hold 2 x MAX_LOWER_POINTS floats), it is reused by epsilon and delta queries at the same
    mechanism and by the bracket refinement."""
    single = _single(q, z, neighbouring, h, pessimistic)
    return single if steps == 1 else self_compose(single, steps)


@functools.lru_cache(maxsize=8)
def _single(q: float, z: float, neighbouring: str, h: float, pessimistic: bool) -> Any:
    """dp-accounting PLD of one step, cached: the composed PLDs of a sweep over the number of steps (a claim over
    the epochs K of one training setting) share it (its construction is a third of a whole epsilon); composing
    leaves it unchanged (``self_compose`` returns a new distribution)."""
    from dp_accounting import NeighboringRelation
    from dp_accounting.pld import privacy_loss_distribution as pld

    if not pessimistic:
        # privacy buckets (the optimistic estimate): the library's construction with its per-loss Python loop as
        # array operations, bitwise the same PLD (dptheory.privacy.pld_fast.gaussian_privacy_buckets)
        return gaussian_privacy_buckets(z, q, h, False, replace_one=neighbouring != "add_or_remove")
    relation = (
        NeighboringRelation.ADD_OR_REMOVE_ONE if neighbouring == "add_or_remove" else NeighboringRelation.REPLACE_ONE
    )
    return pld.from_gaussian_mechanism(
        standard_deviation=z,
        sensitivity=1.0,
        pessimistic_estimate=pessimistic,
        value_discretization_interval=h,
        sampling_prob=q,
        # connect-the-dots is dp-accounting's default and only pessimistic; the optimistic estimate is
        # privacy buckets (asking for connect-the-dots there falls back with a warning)
        use_connect_dots=pessimistic,
        neighboring_relation=relation,
    )


def clear_caches() -> None:
    """Drop every cached PLD and result (memory: a composed PLD can hold 2 x MAX_LOWER_POINTS floats)."""
    for f in (_composed, _single, _pld_epsilon_cached, _pld_delta_cached, _rdp_epsilon_cached, _one_step_rdp):
        f.cache_clear()


def _points(composed: Any) -> int:
    """Grid points of a composed PLD (dp-accounting 0.6.0 keeps its PMFs in private attributes)."""
    sizes = [getattr(getattr(composed, name, None), "size", 0) for name in ("_pmf_remove", "_pmf_add")]
    return int(max(sizes))


def _check_args(
    q: Any,
    z: Any,
    steps: Any,
    check_target: Callable[[Any], float],
    target: Any,
    neighbouring: Any,
    h_up: Any,
    h_lo: Any,
    rel_width: Any,
) -> tuple[float, float, int, float, str, float | None, float | None, float]:
    """The checked arguments of :func:`pld_epsilon` / :func:`pld_delta`, in their cache's order, checked in this
    order: q, z, steps, ``target`` (delta or epsilon, by ``check_target``), neighbouring, the grids."""
    qf, zf, t, x = _check_q(q), _check_z(z), _check_steps(steps), check_target(target)
    rel = check_neighbouring(neighbouring)
    return (qf, zf, t, x, rel, *_check_grid(h_up, h_lo, rel_width))


def _no_sampling_grids(h_up: float | None, h_lo: float | None) -> tuple[float, float]:
    """The grids reported when q = 0 (nothing composes): the given ones, the upper default otherwise."""
    h0 = DEFAULT_VALUE_DISCRETIZATION_INTERVAL if h_up is None else h_up
    return h0, h0 if h_lo is None else h_lo


def _finite_or_raise(value: float, what: str, q: float, z: float, steps: int, target: str) -> float:
    if not math.isfinite(value):
        raise NumericalFailure(
            f"pld: dp-accounting returned {value} for {what} (q = {q}, z = {z}, steps = {steps}, {target}); "
            "the target is below the probability mass the PLD truncates (about 1e-15): use a larger delta"
        )
    return float(value)


def _check_bracket(what: str, lower: float, upper: float, q: float, z: float, steps: int, target: str) -> None:
    """A bracket's two ends in order (the optimistic ``what`` at most the pessimistic one), else
    :class:`NumericalFailure`: the FFT round-off went beyond the bracket."""
    if lower > upper:
        raise NumericalFailure(
            f"pld: the optimistic {what} {number_text(lower)} exceeds the pessimistic {number_text(upper)} "
            f"(q = {q}, z = {z}, steps = {steps}, {target}): round-off beyond the bracket; use a coarser grid"
        )


def _lower_interval(h_up: float, scale: float, steps: int, rel_width: float, upper_points: int) -> float:
    """Grid of the optimistic estimate: bias ~ steps h / 2 = rel_width * scale, capped by MAX_LOWER_POINTS; rounded
    down to a power of 2^(1/4) (a finer grid: the bias only shrinks), so that the points of a sweep over the number
    of steps share a few grids and the one-step distribution of each is built once (:func:`_single` is cached)."""
    if scale <= 0:
        return h_up
    h = 2.0 * rel_width * scale / steps
    h = 2.0 ** (math.floor(4.0 * math.log2(h)) / 4.0)
    h_min = max(upper_points, 1) * h_up / MAX_LOWER_POINTS
    return min(h_up, max(h, h_min))


def _finer(h: float) -> float:
    """The next upper (pessimistic) grid of the automatic refinement of :func:`pld_epsilon` and :func:`pld_delta`:
    tenfold finer, as its short decimal (``1e-05``, not ``1.0000000000000002e-05``), so the grids are 1e-4, 1e-5,
    ..."""
    return float(f"{h / 10.0:.6g}")


def _best_upper(
    q: float, z: float, steps: int, rel: str, h_up: float | None, rw: float, query: Any
) -> tuple[float, float, int]:
    """The pessimistic estimate ``query(pld)`` on the given grid, or (``h_up`` None) the smallest over
    the grids 1e-4, 1e-5, ...: refined tenfold while that lowers it by more than ``rw / 4`` relative and
    the next grid stays below ``MAX_LOWER_POINTS`` points. Every grid gives an upper bound, so the
    smallest is one. Returns (value, grid, points of that grid's composed PLD)."""
    h = DEFAULT_VALUE_DISCRETIZATION_INTERVAL if h_up is None else h_up
    composed = _composed(q, z, steps, rel, h, True)
    best, best_h, best_pts = query(composed), h, _points(composed)
    if h_up is not None:
        return best, best_h, best_pts
    pts = best_pts
    while 10 * pts <= MAX_LOWER_POINTS:
        h = _finer(h)
        composed = _composed(q, z, steps, rel, h, True)
        value, pts = query(composed), _points(composed)
        gain = best - value
        if value < best:
            best, best_h, best_pts = value, h, pts
        if not gain > (rw / 4.0) * best:
            break
    return best, best_h, best_pts


def pld_epsilon(
    q: Any,
    z: Any,
    steps: Any,
    delta: Any,
    *,
    value_discretization_interval: Any = None,
    lower_value_discretization_interval: Any = None,
    rel_width: Any = DEFAULT_REL_WIDTH,
    neighbouring: str = DEFAULT_NEIGHBOURING,
) -> PLDResult:
    """Epsilon at ``delta`` of ``steps`` compositions of the Poisson-subsampled Gaussian, bracketed.

    Abadi et al. 2016 / MTZ19 (arXiv 1908.10530) mechanism; tight accounting by dp-accounting's PLD
    (module docstring: what each end of the bracket is, and how tight).

    Args:
        q: Poisson sampling probability in [0, 1]; 0 gives epsilon 0.
        z: noise multiplier (noise std / l2 bound on one record's contribution), > 0.
        steps: number of compositions, a positive integer.
        delta: target delta in (0, 1).
        value_discretization_interval: grid of the upper (pessimistic) estimate. Default (None): 1e-4,
            refined tenfold while the bracket is wider than the lower end's bias (``steps * h_lo / 2``)
            explains by more than ``rel_width / 2`` relative, the finer grid lowers the upper end, and the
            grid stays below ``MAX_LOWER_POINTS`` points.
        lower_value_discretization_interval: grid of the lower (optimistic) estimate. Default (None):
            ``2 rel_width epsilon_upper / steps``, capped by ``MAX_LOWER_POINTS`` and by the upper grid.
        rel_width: target relative width of the bracket for the automatic grids.
        neighbouring: ``"add_or_remove"`` (default; MTZ19) or ``"replace_one"``.

    Returns:
        A :class:`PLDResult`; ``.epsilon`` is the upper end. Results are cached on the exact inputs.

    Raises:
        InvalidParameter: an argument outside its domain (one line, naming it).
        NumericalFailure: dp-accounting returned a non-finite epsilon (delta below its truncated mass), or
            the optimistic epsilon came out above the pessimistic one (round-off).
    """
    grids = (value_discretization_interval, lower_value_discretization_interval, rel_width)
    return _pld_epsilon_cached(*_check_args(q, z, steps, check_delta, delta, neighbouring, *grids))


@functools.lru_cache(maxsize=4096)
def _pld_epsilon_cached(
    q: float, z: float, steps: int, delta: float, rel: str, h_up: float | None, h_lo: float | None, rw: float
) -> PLDResult:
    if q == 0.0:
        return PLDResult(q, z, steps, delta, rel, 0.0, 0.0, *_no_sampling_grids(h_up, h_lo), 0)
    target = f"delta = {delta:g}"

    def eps_of(composed: Any, which: str) -> float:
        eps = epsilon_for_delta(composed, delta)  # dp-accounting's get_epsilon_for_delta without its Python loop
        return _finite_or_raise(eps, f"the {which} epsilon", q, z, steps, target)

    auto_lo = h_lo is None
    h = DEFAULT_VALUE_DISCRETIZATION_INTERVAL if h_up is None else h_up
    upper_pld = _composed(q, z, steps, rel, h, True)
    eps_up, h_used, pts = eps_of(upper_pld, "upper"), h, _points(upper_pld)
    h_lo = _lower_interval(h_used, eps_up, steps, rw, pts) if h_lo is None else h_lo
    lower_pld = _composed(q, z, steps, rel, h_lo, False)
    eps_lo = eps_of(lower_pld, "lower")
    # automatic upper grid: refine it while the bracket is wider than the lower end's own bias
    # (about steps * h_lo / 2) explains by more than rel_width / 2, i.e. while the upper end is the loose one
    while (
        h_up is None and (eps_up - eps_lo) - steps * h_lo / 2.0 > (rw / 2.0) * eps_up and 10 * pts <= MAX_LOWER_POINTS
    ):
        h = _finer(h)
        finer = _composed(q, z, steps, rel, h, True)
        value, pts = eps_of(finer, "upper"), _points(finer)
        if not value < eps_up:
            break
        eps_up, h_used = value, h
        if auto_lo and h_lo > h_used:
            h_lo = h_used
            lower_pld = _composed(q, z, steps, rel, h_lo, False)
            eps_lo = eps_of(lower_pld, "lower")
    _check_bracket("epsilon", eps_lo, eps_up, q, z, steps, target)
    return PLDResult(q, z, steps, delta, rel, eps_lo, eps_up, h_used, h_lo, _points(lower_pld))


def pld_delta(
    q: Any,
    z: Any,
    steps: Any,
    epsilon: Any,
    *,
    value_discretization_interval: Any = None,
    lower_value_discretization_interval: Any = None,
    rel_width: Any = DEFAULT_REL_WIDTH,
    neighbouring: str = DEFAULT_NEIGHBOURING,
) -> PLDDeltaResult:
    """Delta at ``epsilon`` of ``steps`` compositions of the Poisson-subsampled Gaussian (inverse of
    :func:`pld_epsilon`), bracketed the same way: the pessimistic delta is an upper bound (automatic grid
    as in :func:`pld_epsilon`, refined while the delta drops by more than ``rel_width / 4`` relative); the
    optimistic delta is at most the true delta at ``epsilon`` and at least the true delta at
    ``epsilon + steps * h_lo``; its automatic grid is ``2 rel_width epsilon / steps`` (the upper grid
    when epsilon = 0), capped as in :func:`pld_epsilon`.
    """
    grids = (value_discretization_interval, lower_value_discretization_interval, rel_width)
    return _pld_delta_cached(*_check_args(q, z, steps, _check_epsilon, epsilon, neighbouring, *grids))


@functools.lru_cache(maxsize=4096)
def _pld_delta_cached(
    q: float, z: float, steps: int, eps: float, rel: str, h_up: float | None, h_lo: float | None, rw: float
) -> PLDDeltaResult:
    if q == 0.0:
        return PLDDeltaResult(q, z, steps, eps, rel, 0.0, 0.0, *_no_sampling_grids(h_up, h_lo))

    def delta_of(composed: Any) -> float:
        return float(composed.get_delta_for_epsilon(eps))

    d_up, h_used, pts = _best_upper(q, z, steps, rel, h_up, rw, delta_of)
    if h_lo is None:
        h_lo = _lower_interval(h_used, eps, steps, rw, pts)
    d_lo = float(_composed(q, z, steps, rel, h_lo, False).get_delta_for_epsilon(eps))
    if not (0.0 <= d_lo <= 1.0 and 0.0 <= d_up <= 1.0 + 1e-12):
        raise NumericalFailure(
            f"pld: dp-accounting returned deltas {number_text(d_lo)}, {number_text(d_up)} that are not probabilities "
            f"(q = {q}, z = {z}, steps = {steps}, epsilon = {eps})"
        )
    _check_bracket("delta", d_lo, d_up, q, z, steps, f"epsilon = {eps}")
    return PLDDeltaResult(q, z, steps, eps, rel, d_lo, d_up, h_used, h_lo)


# ----------------------------------------------------------------------------------------------
# RDP route (our MTZ19 kernel + our conversion)
# ----------------------------------------------------------------------------------------------


class _OneStepRDP:
    """float64 one-step RDP of the SGM at (q, z), memoised per order: ``sgm.rdp_np(alpha, q, z, 1)``.

    The T-step RDP is T times it (Mironov 2017, Prop. 1), so a sweep over ``steps`` reuses the order
    scan of :func:`~dptheory.privacy.conversion.optimize_order` (same grid every call)."""

    def __init__(self, q: float, z: float) -> None:
        self.q, self.z = q, z
        self.memo: dict[float, float] = {}

    def __call__(self, alpha: NDArray[np.float64]) -> NDArray[np.float64]:
        from dptheory.privacy import sgm

        a = np.asarray(alpha, dtype=np.float64)
        flat = a.ravel()
        missing = sorted({float(x) for x in flat if float(x) not in self.memo})
        if missing:
            vals = sgm.rdp_np(np.array(missing), self.q, self.z, 1)
            self.memo.update(zip(missing, (float(v) for v in np.atleast_1d(vals)), strict=True))
        return np.array([self.memo[float(x)] for x in flat]).reshape(a.shape)


@functools.lru_cache(maxsize=64)
def _one_step_rdp(q: float, z: float) -> _OneStepRDP:
    return _OneStepRDP(q, z)


def rdp_epsilon_best(
    q: Any,
    z: Any,
    steps: Any,
    delta: Any,
    *,
    method: ConversionMethod | str = ConversionMethod.IMPROVED,
    alpha_min: Any = None,
    alpha_max: Any = None,
    dps: int = 30,
) -> DPConversion:
    """RDP-based epsilon at ``delta`` of ``steps`` compositions of the Poisson-subsampled Gaussian.

    MTZ19 (arXiv 1908.10530, Sec. 3.3) RDP, add/remove neighbours (``dptheory.privacy.sgm``), times
    ``steps``; converted by ``method`` ("improved": Balle et al. 2020 Thm 21, never above "classic":
    Mironov 2017 Prop. 3) with the order optimised continuously over ``[alpha_min, alpha_max]``
    (default ``[1 + 1e-4, 1e4]``; when the optimum sits at the top of the default range the search is
    repeated up to ``1e6``). The final value is evaluated with the mp kernel at ``dps`` digits; any
    order gives a valid bound, so the result is an upper bound on the true epsilon however well the
    search went. ``q = 0`` gives 0 (the RDP is 0 at every order; the infimum over orders is 0).
    Results are cached on the exact inputs.
    """
    qf, zf, t, d = _check_q(q), _check_z(z), _check_steps(steps), check_delta(delta)
    m = ConversionMethod.parse(method, key=_KEY)
    if isinstance(dps, bool) or not isinstance(dps, numbers.Integral) or dps < 15:
        raise InvalidParameter(key=_KEY, name="dps", value=dps, reason="must be an integer >= 15 (decimal digits)")
    amin = None if alpha_min is None else _real("alpha_min", alpha_min, "> 1")
    amax = None if alpha_max is None else _real("alpha_max", alpha_max, "> alpha_min")
    return _rdp_epsilon_cached(qf, zf, t, d, m, amin, amax, int(dps))


@functools.lru_cache(maxsize=4096)
def _rdp_epsilon_cached(
    qf: float,
    zf: float,
    t: int,
    d: float,
    method: ConversionMethod,
    alpha_min: float | None,
    alpha_max: float | None,
    dps: int,
) -> DPConversion:
    from dptheory.privacy import sgm
    from dptheory.privacy.conversion import DPConversion, optimize_order

    with mpmath.workdps(dps):
        d_mp = mpmath.mpf(d)
        if qf == 0.0:
            return DPConversion(
                epsilon=mpmath.mpf(0),
                delta=d_mp,
                order=mpmath.inf,
                at_edge=False,
                method=method,
                rdp_at_order=mpmath.mpf(0),
                orders_searched="q = 0: the RDP is 0 at every order, so the infimum over orders is 0",
            )
    one = _one_step_rdp(qf, zf)

    def rdp_mp(a: Any) -> mpmath.mpf:
        return sgm.rdp_mp(a, qf, zf, t)

    def rdp_np(a: NDArray[np.float64]) -> NDArray[np.float64]:
        return t * one(a)

    def run(amin: Any, amax: Any) -> DPConversion:
        try:
            return optimize_order(
                rdp_mp,
                delta=d_mp,
                method=method,
                alpha_min=amin,
                alpha_max=amax,
                rdp_np=rdp_np,
                dps=dps,
                nondecreasing=True,  # a Renyi divergence is nondecreasing in its order (van Erven & Harremoes 2014)
            )
        except ValueError as exc:
            raise InvalidParameter(key=_KEY, name="alpha_min/alpha_max", value=(amin, amax), reason=str(exc)) from None

    res = run(alpha_min, alpha_max)
    if alpha_min is None and alpha_max is None and res.at_edge and float(res.order) > 10:
        wider = run(None, 1e6)
        if wider.epsilon <= res.epsilon:
            res = wider
    return res


# ----------------------------------------------------------------------------------------------
# hidden-state bounds against both baselines (Ye & Shokri 2022)
# ----------------------------------------------------------------------------------------------


def theorem_epsilon(
    thm_key: str,
    params: Mapping[str, Any],
    delta: Any,
    *,
    method: ConversionMethod | str = ConversionMethod.IMPROVED,
    dps: int = 50,
) -> DPConversion:
    """(epsilon, delta) of a registered RDP theorem with the order optimised per theorem.

    This is :func:`dptheory.privacy.conversion.convert` (continuous order search over
    ``[1 + 1e-4, 1e4]``, final value at ``dps`` digits, refusal of non-guarantees); the function only
    looks the theorem up. Returns its :class:`~dptheory.privacy.conversion.DPConversion`.
    """
    from dptheory.core.registry import REGISTRY
    from dptheory.privacy.conversion import convert

    return convert(REGISTRY.get(thm_key), params, delta=delta, method=method, dps=dps)
