"""Exact Renyi divergence of Algorithm 1 on the quadratic loss (last iterate, neighbouring datasets).

Ye & Shokri 2022 (arXiv 2203.05363) bound the Renyi divergence between the laws of the last iterate
of Algorithm 1 on neighbouring datasets. For the quadratic loss ``l(theta; x) = (lam/2)||theta - x||^2``
(lam-strongly convex and lam-smooth, so ``beta = lam``; total-gradient sensitivity ``S_g = lam * Delta``
on a data domain of diameter ``Delta``) the algorithm is affine and the divergence can be computed:

* given the batch sequence the last iterate is ``N(mu, s^2 I)`` with
  ``s^2 = 2 eta sigma^2 (1 - a^(2T)) / (1 - a^2)``, ``a = 1 - eta lam``, ``T = K N``;
* the means on D and D' differ by ``u W (x - x')/Delta`` with ``u = eta S_g / b`` and
  ``W = sum over the uses t of the differing record of a^(T-1-t)``;
* fixed order (record in batch j0): ``W = a^(N-1-j0) (1 - a^(KN)) / (1 - a^N)`` and
  ``D_alpha = alpha u^2 W^2 / (2 s^2)`` (closed form);
* shuffle and partition, with every other record equal to ``z = x' + t (x - x')``: along the line
  through x and x' the last iterate is the mixture ``sum_j pi_j N(u (1-t) W_j, s^2)`` on D and
  ``sum_j pi_j N(-u t W_j, s^2)`` on D' (``pi_j = b/n`` per batch, and ``1 - N b/n`` for "not used",
  ``W = 0``), orthogonal coordinates identical; the divergence is a one-dimensional integral,
  computed here by Gauss-Legendre panels at a stated precision with an error estimate;
* sampling without replacement: the record is in each batch independently with probability b/n,
  ``W = sum_t B_t a^(T-1-t)``; exact enumeration of the 2^T patterns for small T, and for larger T
  a rigorous bracket for integer orders (round ``W`` down / up on a grid along the recursion
  ``W <- a W + B``; the divergence is nondecreasing in each atom for integer alpha, see the
  derivation).

Derivations: ``docs/derivations/quadratic_exact_divergence.md``. Both directions (D||D' and D'||D)
are computed; D'||D at ``t`` equals D||D' at ``1 - t`` (reflection), so the max over directions is
the max over the ``t`` values evaluated (default ``t in {0, 1}``; the datasets are from
:func:`dptheory.train.data.quadratic_neighbours`). All divergences are in nats.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal, TypeAlias

import mpmath
import numpy as np

from dptheory.audit.mixture import MixtureLaw, mixture_renyi_1d, mixture_renyi_1d_np
from dptheory.core.errors import DPTheoryError, InvalidParameter
from dptheory.core.notation import format_rational, parse_value, rational_to_mpf
from dptheory.core.units import BatchScheme, Direction, Unit

__all__ = [
    "COMPARED",
    "FULL_BATCH",
    "BoundCheck",
    "ExactDivergence",
    "QuadraticScheme",
    "QuadraticSetting",
    "compare_bounds",
    "conditioned_divergence",
    "fixed_order_divergence",
    "fixed_order_weights",
    "last_iterate_law",
    "noise_variance",
    "parse_scheme",
    "plot_tightness",
    "shuffle_divergence",
    "theorem_point",
    "tightness_table",
    "without_replacement_bracket",
    "without_replacement_divergence",
    "without_replacement_enumerated",
]

KEY = "audit.quadratic"
CITE = "Ye & Shokri 2022, Algorithm 1 (quadratic loss; docs/derivations/quadratic_exact_divergence.md)"

#: full-batch GD (b = n: one batch holding every record, where the three batch schemes coincide)
FULL_BATCH: Final = "full_batch"
#: the settings with an exact divergence on the quadratic loss: a batch scheme of Algorithm 1, or full batch
QuadraticScheme: TypeAlias = BatchScheme | Literal["full_batch"]


def parse_scheme(value: BatchScheme | str, accepted: Sequence[QuadraticScheme] | None = None) -> QuadraticScheme:
    """``value`` as a :class:`~dptheory.core.units.BatchScheme` (any of its spellings) or ``"full_batch"``.

    Raises:
        InvalidParameter: an unknown name, or one outside ``accepted`` (default: all four).
    """
    allowed: Sequence[QuadraticScheme] = (*BatchScheme, FULL_BATCH) if accepted is None else accepted
    parsed: QuadraticScheme | None = None
    if value == FULL_BATCH:
        parsed = FULL_BATCH
    else:
        try:
            parsed = BatchScheme.parse(value, key=KEY, citation=CITE)
        except InvalidParameter:
            parsed = None
    if parsed is None or parsed not in allowed:
        raise InvalidParameter(key=KEY, name="scheme", value=value,
                               reason=f"use one of {', '.join(sorted(str(a) for a in allowed))}", citation=CITE)
    return parsed


# ----------------------------------------------------------------------------- setting
@dataclass(frozen=True)
class QuadraticSetting:
    """Algorithm 1 on the quadratic loss, in the paper's notation (exact rationals).

    ``beta = lam`` (the quadratic is lam-smooth), ``S_g = lam * ||x - x'||`` for the worst pair.
    ``N = floor(n/b)`` iterations per epoch, ``T = K N`` steps.
    """

    alpha: Any
    eta: Any
    lam: Any
    S_g: Any
    sigma: Any
    n: int
    b: int
    K: int

    def __post_init__(self) -> None:
        for name in ("alpha", "eta", "lam", "S_g", "sigma"):
            v = parse_value(getattr(self, name), key=KEY, name=name, citation=CITE)
            if v <= 0:
                raise InvalidParameter(key=KEY, name=name, value=getattr(self, name), reason="must be > 0",
                                       citation=CITE)
            object.__setattr__(self, name, v)
        if self.alpha <= 1:
            raise InvalidParameter(key=KEY, name="alpha", value=format_rational(self.alpha),
                                   reason="the Renyi order must exceed 1", citation=CITE)
        for name in ("n", "b", "K"):
            v = parse_value(getattr(self, name), key=KEY, name=name, citation=CITE)
            if v != int(v) or v < 1:
                raise InvalidParameter(key=KEY, name=name, value=getattr(self, name),
                                       reason="must be a whole number >= 1",
                                       citation=CITE)
            object.__setattr__(self, name, int(v))
        if self.b > self.n:
            raise InvalidParameter(key=KEY, name="b", value=self.b, reason=f"a mini-batch needs b <= n = {self.n}",
                                   citation=CITE)
        x = self.eta * self.lam
        if not 0 < x < 2:
            raise InvalidParameter(key=KEY, name="eta", value=format_rational(self.eta),
                                   reason=f"the exact formulas need 0 < eta*lam < 2 (|1 - eta lam| < 1); got eta*lam = "
                                   f"{format_rational(x)}", citation=CITE)

    @property
    def N(self) -> int:
        return self.n // self.b

    @property
    def T(self) -> int:
        return self.K * self.N

    def mp(self, name: str) -> mpmath.mpf:
        """A parameter as an mpf at the current precision."""
        return rational_to_mpf(getattr(self, name))

    def a(self) -> mpmath.mpf:
        return 1 - self.mp("eta") * self.mp("lam")

    def u(self) -> mpmath.mpf:
        """Mean shift per use of the record: ``eta lam ||x - x'|| / b = eta S_g / b``."""
        return self.mp("eta") * self.mp("S_g") / self.b

    def theorem_params(self, *, beta: Any = None) -> dict[str, Any]:
        """Parameters for the Ye & Shokri theorems (``beta = lam`` unless given)."""
        return {"alpha": self.alpha, "eta": self.eta, "lam": self.lam, "beta": self.lam if beta is None else beta,
                "S_g": self.S_g, "sigma": self.sigma, "n": self.n, "b": self.b, "K": self.K}

    def describe(self) -> dict[str, str]:
        return {k: format_rational(v) if not isinstance(v, int) else str(v)
                for k, v in (("alpha", self.alpha), ("eta", self.eta), ("lam", self.lam), ("S_g", self.S_g),
                             ("sigma", self.sigma), ("n", self.n), ("b", self.b), ("K", self.K))}

    def with_alpha(self, alpha: Any) -> QuadraticSetting:
        return QuadraticSetting(alpha=alpha, eta=self.eta, lam=self.lam, S_g=self.S_g, sigma=self.sigma, n=self.n,
                                b=self.b, K=self.K)


def _setting(setting: QuadraticSetting | Mapping[str, Any]) -> QuadraticSetting:
    if isinstance(setting, QuadraticSetting):
        return setting
    keys = ("alpha", "eta", "lam", "S_g", "sigma", "n", "b", "K")
    extra = sorted(set(setting) - set(keys) - {"beta", "j0"})
    missing = [k for k in keys if k not in setting]
    if extra or missing:
        raise DPTheoryError(f"{KEY}: a quadratic setting takes {', '.join(keys)}; missing {missing}, "
                            f"unexpected {extra}")
    return QuadraticSetting(**{k: setting[k] for k in keys})


@dataclass(frozen=True)
class ExactDivergence:
    """A Renyi divergence of order alpha between the last iterates on neighbouring datasets (nats).

    Attributes:
        value: the divergence (the max over the directions computed), nats.
        error: absolute error estimate of ``value`` (quadrature / rounding), nats; 0 for closed forms
            evaluated at ``dps`` digits (then the error is below 10^-dps relative).
        direction: EXACT, or LOWER when ``value`` is the low end of a rigorous bracket.
        upper: for a bracket, its high end (the true value lies in ``[value, upper]``), else None.
        scheme: ``fixed`` | ``shuffle`` | ``without_replacement`` | ``full_batch``.
        method: how it was computed.
        by_t: the divergence D_t(D||D') for each position t of the other records (t and 1-t are
            the two directions of one pair).
        conditioned: (shuffle) the divergence when the batch position is revealed,
            ``(1/(alpha-1)) log sum_j pi_j exp((alpha-1) alpha u^2 W_j^2/(2 s^2))``; an upper bound on
            the divergence of *every* neighbouring pair with ``||x - x'|| <= S_g/lam``.
        setting: the parameters.
    """

    value: mpmath.mpf
    error: mpmath.mpf
    scheme: QuadraticScheme
    method: str
    setting: Mapping[str, str]
    dps: int
    direction: Direction = Direction.EXACT
    upper: mpmath.mpf | None = None
    by_t: Mapping[str, mpmath.mpf] = field(default_factory=dict)
    conditioned: mpmath.mpf | None = None
    unit: Unit = Unit.NATS
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __float__(self) -> float:
        return float(self.value)

    def to_dict(self) -> dict[str, Any]:
        d = min(self.dps, 20)
        return {"value": mpmath.nstr(self.value, d), "error": mpmath.nstr(self.error, 3), "unit": str(self.unit),
                "direction": str(self.direction), "upper": None if self.upper is None else mpmath.nstr(self.upper, d),
                "scheme": str(self.scheme), "method": self.method, "setting": dict(self.setting),
                "by_t": {k: mpmath.nstr(v, d) for k, v in self.by_t.items()},
                "conditioned": None if self.conditioned is None else mpmath.nstr(self.conditioned, d),
                **{k: v for k, v in self.extra.items()}}


# ----------------------------------------------------------------------------- closed forms
def noise_variance(setting: QuadraticSetting) -> mpmath.mpf:
    """``s^2 = 2 eta sigma^2 sum_{t<T} a^(2t) = 2 eta sigma^2 (1 - a^(2T))/(1 - a^2)`` (current precision)."""
    a = setting.a()
    T = setting.T
    eta, sigma = setting.mp("eta"), setting.mp("sigma")
    # 1 - a^2 = eta lam (2 - eta lam), exact without cancellation
    x = setting.mp("eta") * setting.mp("lam")
    geo = -mpmath.expm1(2 * T * mpmath.log(abs(a))) / (x * (2 - x)) if a != 0 else mpmath.mpf(1)
    return 2 * eta * sigma**2 * geo


def fixed_order_weights(setting: QuadraticSetting) -> list[mpmath.mpf]:
    """``W_j = a^(N-1-j) (1 - a^(KN)) / (1 - a^N)`` for batch positions j = 0..N-1 (current precision)."""
    a = setting.a()
    N, K = setting.N, setting.K
    if a == 0:
        return [mpmath.mpf(1) if j == N - 1 else mpmath.mpf(0) for j in range(N)]
    ratio = (1 - a ** (K * N)) / (1 - a**N)
    return [a ** (N - 1 - j) * ratio for j in range(N)]


def fixed_order_divergence(setting: QuadraticSetting | Mapping[str, Any], j0: int, *, dps: int = 30) -> ExactDivergence:
    """Exact divergence for a fixed batch order, differing record in batch ``j0`` (Thm 3.3 / D.4 setting).

    ``D_alpha = G W_j0^2 (1 - a^2)/(1 - a^(2KN))`` with ``G = alpha eta S_g^2/(4 sigma^2 b^2)``
    (the same in both directions). With ``b = n`` (N = 1, j0 = 0) this is full-batch GD (Thm D.6/D.7).
    """
    st = _setting(setting)
    j0 = int(j0)
    if not 0 <= j0 < st.N:
        raise InvalidParameter(key=KEY, name="j0", value=j0,
                               reason=f"must index a batch: 0 <= j0 <= N - 1 = {st.N - 1}",
                               citation=CITE)
    with mpmath.workdps(dps + 10):
        W = fixed_order_weights(st)[j0]
        s2 = noise_variance(st)
        val = st.mp("alpha") * (st.u() * W) ** 2 / (2 * s2)
    with mpmath.workdps(dps):
        val = +val
    return ExactDivergence(value=val, error=mpmath.mpf(0), scheme=BatchScheme.FIXED_ORDER if st.N > 1 else FULL_BATCH,
                           method="closed form", setting={**st.describe(), "j0": str(j0)}, dps=dps,
                           by_t={"any": val}, extra={"j0": j0})


def conditioned_divergence(setting: QuadraticSetting | Mapping[str, Any], *, dps: int = 30) -> mpmath.mpf:
    """Shuffle and partition with the batch position revealed (an upper bound over all pairs), nats."""
    st = _setting(setting)
    with mpmath.workdps(dps + 10):
        al = st.mp("alpha")
        s2 = noise_variance(st)
        u = st.u()
        Ws = fixed_order_weights(st)
        pi = mpmath.mpf(st.b) / st.n
        terms = [pi * mpmath.exp((al - 1) * al * (u * W) ** 2 / (2 * s2)) for W in Ws]
        unused = 1 - st.N * pi
        if unused > 0:
            terms.append(unused)
        val = mpmath.log(mpmath.fsum(terms)) / (al - 1)
    with mpmath.workdps(dps):
        return +val


def last_iterate_law(
    setting: QuadraticSetting | Mapping[str, Any],
    scheme: BatchScheme | str,
    *,
    diameter: float,
    t: float = 0.0,
    dataset: str = "D",
    theta0: float = 0.0,
    j0: int | None = None,
    max_steps: int = 16,
) -> MixtureLaw:
    """The exact law of ``<theta_K^0, e>`` for the datasets of :func:`~dptheory.train.data.quadratic_neighbours`.

    Records on the segment from ``x' = 0`` to ``x = diameter e``; the others at ``z = t x``; D has the
    record at x, D' at x'. ``theta0``: the initial point's coordinate along ``e``. The other
    coordinates are ``N(a^T theta0_perp, s^2)``. Float64 (for statistical tests against the simulator).
    """
    st = _setting(setting)
    sch = parse_scheme(scheme, tuple(BatchScheme))
    if dataset not in ("D", "D'"):
        raise InvalidParameter(key=KEY, name="dataset", value=dataset, reason="use 'D' or \"D'\"", citation=CITE)
    with mpmath.workdps(30):
        a = st.a()
        T = st.T
        s = float(mpmath.sqrt(noise_variance(st)))
        eta_lam = st.mp("eta") * st.mp("lam")
        z = t * diameter
        xi = diameter if dataset == "D" else 0.0
        center = float(a**T) * theta0 + float(1 - a**T) * z
        step = float(eta_lam / st.b) * (xi - z)
        if sch is BatchScheme.FIXED_ORDER:
            if j0 is None:
                raise DPTheoryError(f"{KEY}: the fixed-order law needs j0")
            Ws = np.array([float(fixed_order_weights(st)[int(j0)])])
            ws = np.array([1.0])
        elif sch is BatchScheme.SHUFFLE_PARTITION:
            Ws = np.array([float(w) for w in fixed_order_weights(st)] + [0.0])
            ws = np.array([st.b / st.n] * st.N + [1.0 - st.N * st.b / st.n])
        else:  # BatchScheme.WITHOUT_REPLACEMENT
            if T > max_steps:
                raise DPTheoryError(f"{KEY}: exact enumeration of 2^{T} inclusion patterns refused (T > {max_steps})")
            Ws, ws = _wor_atoms(float(a), T, st.b / st.n)
    keep = ws > 0
    return MixtureLaw(weights=ws[keep], means=center + step * Ws[keep], s=s)


def _wor_atoms(a: float, T: int, q: float) -> tuple[np.ndarray, np.ndarray]:
    """All 2^T values of W = sum_t B_t a^(T-1-t) and their probabilities (float64)."""
    pw = a ** np.arange(T - 1, -1, -1, dtype=np.float64)
    bits = (np.arange(2**T)[:, None] >> np.arange(T)[None, :]) & 1
    W = bits @ pw
    k = bits.sum(axis=1)
    w = q**k * (1 - q) ** (T - k)
    return W, w


# ----------------------------------------------------------------------------- shuffle and partition
def _shuffle_components(st: QuadraticSetting) -> tuple[list[mpmath.mpf], list[mpmath.mpf]]:
    Ws = fixed_order_weights(st)
    pi = mpmath.mpf(st.b) / st.n
    weights = [pi] * st.N
    unused = 1 - st.N * pi
    if unused > 0:
        Ws = [*Ws, mpmath.mpf(0)]
        weights.append(unused)
    return weights, Ws


def shuffle_divergence(
    setting: QuadraticSetting | Mapping[str, Any], *, ts: Sequence[Any] = (0, 1), dps: int = 30
) -> ExactDivergence:
    """Exact divergence under shuffle and partition (Thm 4.2 setting), max over the pairs ``t in ts``.

    For each ``t`` the pair has every other record at ``z = x' + t (x - x')``; ``t`` and ``1 - t``
    are the two directions of one pair. Value = max over ``ts``; ``by_t`` keeps each.
    """
    st = _setting(setting)
    by_t: dict[str, mpmath.mpf] = {}
    errs: dict[str, mpmath.mpf] = {}
    evals = 0
    with mpmath.workdps(dps + 10):
        s = mpmath.sqrt(noise_variance(st))
        g = st.u() / s
        weights, Ws = _shuffle_components(st)
        al = st.mp("alpha")
        for t in ts:
            tt = rational_to_mpf(parse_value(t, key=KEY, name="t", citation=CITE))
            if not 0 <= tt <= 1:
                raise InvalidParameter(key=KEY, name="t", value=t, reason="0 <= t <= 1 (records on the segment)",
                                       citation=CITE)
            mp_ = [g * (1 - tt) * W for W in Ws]
            mq = [-g * tt * W for W in Ws]
            if tt == 0:
                res = mixture_renyi_1d(al, weights, mp_, [1], [0], dps=dps)
            elif tt == 1:
                res = mixture_renyi_1d(al, [1], [0], weights, mq, dps=dps)
            else:
                res = mixture_renyi_1d(al, weights, mp_, weights, mq, dps=dps)
            by_t[str(t)] = res.value
            errs[str(t)] = res.error
            evals += res.evaluations
        cond = conditioned_divergence(st, dps=dps)
    best = max(by_t, key=lambda k: by_t[k])
    with mpmath.workdps(dps):
        return ExactDivergence(value=+by_t[best], error=+errs[best], scheme=BatchScheme.SHUFFLE_PARTITION,
                               method="Gauss-Legendre quadrature",
                               setting=st.describe(), dps=dps, by_t=by_t, conditioned=cond,
                               extra={"argmax_t": best, "evaluations": evals})


# ----------------------------------------------------------------------------- sampling without replacement
def without_replacement_enumerated(
    setting: QuadraticSetting | Mapping[str, Any], *, ts: Sequence[float] = (0.0, 1.0), max_steps: int = 16,
    dps: int = 30,
) -> ExactDivergence:
    """Exact divergence under sampling without replacement by enumerating the 2^T inclusion patterns.

    Inclusion of the record in each of the T = K N batches is independent with probability b/n.
    mpmath quadrature when there are at most 64 distinct atoms, float64 quadrature otherwise
    (``dps`` then reports 13 and ``error`` the float64 estimate).
    """
    st = _setting(setting)
    T = st.T
    if T > max_steps:
        raise DPTheoryError(f"{KEY}: enumerating 2^{T} inclusion patterns refused (T = K*floor(n/b) = {T} > "
                            f"max_steps = {max_steps}); use without_replacement_bracket")
    use_mp = 2**T <= 64
    with mpmath.workdps(dps + 10):
        a = st.a()
        q = mpmath.mpf(st.b) / st.n
        if use_mp:
            Ws, ws = [], []
            for mask in range(2**T):
                k = bin(mask).count("1")
                Ws.append(mpmath.fsum(a ** (T - 1 - t) for t in range(T) if (mask >> t) & 1))
                ws.append(q**k * (1 - q) ** (T - k))
        else:
            Wf_, wf_ = _wor_atoms(float(a), T, st.b / st.n)
            Ws, ws = list(Wf_), list(wf_)
        s = mpmath.sqrt(noise_variance(st))
        g = st.u() / s
        al = st.mp("alpha")
    by_t: dict[str, mpmath.mpf] = {}
    errs: dict[str, mpmath.mpf] = {}
    for t in ts:
        tt = float(t)
        if use_mp:
            with mpmath.workdps(dps + 10):
                mp_ = [g * (1 - mpmath.mpf(t)) * W for W in Ws]
                mq = [-g * mpmath.mpf(t) * W for W in Ws]
                res = mixture_renyi_1d(al, ws, mp_, ws, mq, dps=dps) if 0 < tt < 1 else (
                    mixture_renyi_1d(al, ws, mp_, [1], [0], dps=dps) if tt == 0 else
                    mixture_renyi_1d(al, [1], [0], ws, mq, dps=dps))
            by_t[str(t)], errs[str(t)] = res.value, res.error
        else:
            Wf = np.array([float(W) for W in Ws])
            wf = np.array([float(w) for w in ws])
            gf = float(g)
            v, e = mixture_renyi_1d_np(float(al), wf, gf * (1 - tt) * Wf, wf, -gf * tt * Wf)
            by_t[str(t)], errs[str(t)] = mpmath.mpf(v), mpmath.mpf(e)
    best = max(by_t, key=lambda k: by_t[k])
    return ExactDivergence(value=by_t[best], error=errs[best], scheme=BatchScheme.WITHOUT_REPLACEMENT,
                           method="enumeration of inclusion patterns + " + ("mpmath" if use_mp else "float64")
                           + " quadrature", setting=st.describe(), dps=dps if use_mp else 13, by_t=by_t,
                           extra={"argmax_t": best, "atoms": len(Ws)})


def _wor_grid_distribution(a: float, T: int, q: float, grid: int, up: bool) -> tuple[np.ndarray, np.ndarray]:
    """Law of W rounded down (up) to a grid at every step of W <- a W + B; pathwise below (above) W."""
    w_max = (1 - a**T) / (1 - a) if a != 1 else float(T)
    h = w_max / grid
    prob: np.ndarray = np.zeros(grid + 1)
    prob[0] = 1.0
    idx = np.arange(grid + 1)
    # float rounding may only move a value further in the safe direction (down for W_lo, up for W_hi)
    def rnd(v: np.ndarray) -> np.ndarray:
        return np.ceil(v + 1e-9) if up else np.floor(v - 1e-9)

    for _ in range(T):
        base = a * idx
        i0 = np.clip(rnd(base).astype(np.int64), 0, grid)
        i1 = np.clip(rnd(base + 1.0 / h).astype(np.int64), 0, grid)
        new = np.bincount(i0, weights=(1 - q) * prob, minlength=grid + 1)
        new += np.bincount(i1, weights=q * prob, minlength=grid + 1)
        prob = new
    return idx * h, prob


def without_replacement_bracket(
    setting: QuadraticSetting | Mapping[str, Any], *, grid: int = 4096
) -> ExactDivergence:
    """Rigorous bracket ``[lower, upper]`` of the divergence under sampling without replacement, integer alpha.

    Pair ``t = 0`` (others at x'; D' is then a single Gaussian). For integer alpha,
    ``int p^alpha q^(1-alpha) = E exp((u^2/s^2) sum_{i<k} W_i W_k)`` over iid copies W_i of W (see the
    derivation), nondecreasing in each W_i >= 0; rounding the recursion ``W <- a W + B`` down (up)
    onto a grid gives W_lo <= W <= W_hi pathwise, so the divergences of W_lo and W_hi bracket the
    true one. Each end is a float64 quadrature (its error estimate widens the bracket).
    """
    st = _setting(setting)
    al = st.alpha
    if al != int(al):
        raise DPTheoryError(f"{KEY}: the without-replacement bracket needs an integer order alpha (got "
                            f"{format_rational(al)}); use without_replacement_enumerated for small T")
    with mpmath.workdps(30):
        a = float(st.a())
        g = float(st.u() / mpmath.sqrt(noise_variance(st)))
    q = st.b / st.n
    ends = []
    errs = []
    for up in (False, True):
        W, p = _wor_grid_distribution(a, st.T, q, grid, up)
        keep = p > 0
        v, e = mixture_renyi_1d_np(float(al), p[keep] / p[keep].sum(), g * W[keep], np.array([1.0]), np.array([0.0]))
        ends.append(v)
        errs.append(e)
    lo = max(0.0, ends[0] - errs[0])
    hi = ends[1] + errs[1]
    return ExactDivergence(value=mpmath.mpf(lo), error=mpmath.mpf(hi - lo), scheme=BatchScheme.WITHOUT_REPLACEMENT,
                           method=f"grid bracket ({grid} cells) + float64 quadrature", setting=st.describe(), dps=13,
                           direction=Direction.LOWER, upper=mpmath.mpf(hi), by_t={"0": mpmath.mpf(lo)},
                           extra={"grid": grid, "lower": lo, "upper": hi})


def without_replacement_divergence(
    setting: QuadraticSetting | Mapping[str, Any], *, max_steps: int = 12, grid: int = 4096, dps: int = 30
) -> ExactDivergence:
    """Enumeration when ``T <= max_steps``, else the integer-alpha bracket (its lower end as ``value``)."""
    st = _setting(setting)
    if st.T <= max_steps:
        return without_replacement_enumerated(st, max_steps=max_steps, dps=dps)
    return without_replacement_bracket(st, grid=grid)


# ----------------------------------------------------------------------------- bounds vs the exact divergence
#: The bounds held against the exact divergence for each batch scheme on the quadratic loss: Ye & Shokri's upper
#: bounds for that scheme, and the composition baseline (MTZ19's RDP of the Poisson-subsampled Gaussian). The paper
#: states the baseline for Poisson sampling and compares the other schemes against it; for them it is a reference,
#: not a bound anyone claims (under shuffling with b not dividing n it falls below the exact divergence:
#: docs/trained_models.md, "Findings so far"). With b = n (full batch) it is the composed Gaussian mechanism, a bound.
COMPARED: dict[QuadraticScheme, tuple[str, ...]] = {
    BatchScheme.FIXED_ORDER: ("yeshokri22.thm3_3", "yeshokri22.thmD_4", "yeshokri22.balle_first",
                              "yeshokri22.balle_last"),
    BatchScheme.SHUFFLE_PARTITION: ("yeshokri22.thm4_2", "yeshokri22.thm2_1", "yeshokri22.composition"),
    BatchScheme.WITHOUT_REPLACEMENT: ("yeshokri22.thm4_3", "yeshokri22.composition"),
    FULL_BATCH: ("yeshokri22.thmD_6", "yeshokri22.thmD_7", "yeshokri22.thmD_4", "yeshokri22.thm4_3",
                   "yeshokri22.composition"),
}


@dataclass(frozen=True)
class BoundCheck:
    """One upper bound held against the exact divergence of the trained quadratic model (nats).

    ``holds``: ``bound >= exact - tol`` with ``tol`` = the exact value's error estimate plus
    ``10^-(dps-2)`` relative; ``ratio`` = bound / exact (tightness; 1 means tight).
    """

    key: str
    scheme: QuadraticScheme
    bound: mpmath.mpf
    exact: mpmath.mpf
    exact_error: mpmath.mpf
    ratio: mpmath.mpf
    holds: bool
    setting: Mapping[str, str]

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "scheme": str(self.scheme), "bound": mpmath.nstr(self.bound, 15),
                "exact": mpmath.nstr(self.exact, 15), "exact_error": mpmath.nstr(self.exact_error, 3),
                "ratio": mpmath.nstr(self.ratio, 10), "holds": self.holds, **dict(self.setting)}


def theorem_point(key: str, setting: QuadraticSetting, j0: int | None = None) -> dict[str, Any] | None:
    """The theorem's parameters for this setting (beta = lam), or None when a condition fails there."""
    from dptheory.core.conditions import Status
    from dptheory.core.registry import REGISTRY

    thm = REGISTRY.get(key)
    full: dict[str, Any] = {**setting.theorem_params()}
    if key == "yeshokri22.balle_first":
        if j0 not in (None, 0):
            return None
    elif key == "yeshokri22.balle_last":
        if j0 is not None and j0 != setting.N - 1:
            return None
    elif "j0" in thm.params:
        full["j0"] = 0 if j0 is None else j0
    pt = {p: full[p] for p in thm.params}
    try:
        res = thm.check(pt)
    except DPTheoryError:
        return None
    if any(r.status is not Status.HOLDS for r in res):
        return None
    return pt


def compare_bounds(
    setting: QuadraticSetting | Mapping[str, Any], scheme: BatchScheme | str, *, j0: int | None = None,
    dps: int = 20, keys: Sequence[str] | None = None, grid: int = 4096,
) -> tuple[ExactDivergence, list[BoundCheck]]:
    """The exact divergence for ``scheme`` and every bound of ``COMPARED`` whose conditions hold, compared.

    ``scheme``: ``fixed`` (needs ``j0``), ``shuffle``, ``without_replacement``, ``full_batch`` (b = n).
    """
    from dptheory.core.registry import REGISTRY

    st = _setting(setting)
    sch = parse_scheme(scheme)
    if sch is BatchScheme.FIXED_ORDER:
        if j0 is None:
            raise DPTheoryError(f"{KEY}: the fixed-order comparison needs j0")
        ex = fixed_order_divergence(st, j0, dps=dps)
    elif sch == FULL_BATCH:
        if st.b != st.n:
            raise DPTheoryError(f"{KEY}: full-batch GD needs b = n (got b = {st.b}, n = {st.n})")
        ex = fixed_order_divergence(st, 0, dps=dps)
    elif sch is BatchScheme.SHUFFLE_PARTITION:
        ex = shuffle_divergence(st, dps=dps)
    else:  # BatchScheme.WITHOUT_REPLACEMENT
        ex = without_replacement_divergence(st, dps=dps, grid=grid)
    out: list[BoundCheck] = []
    with mpmath.workdps(dps + 10):
        tol = ex.error + abs(ex.value) * mpmath.mpf(10) ** (-(min(dps, ex.dps) - 2))
    for key in keys or COMPARED[sch]:
        pt = theorem_point(key, st, j0 if sch is BatchScheme.FIXED_ORDER else (0 if sch == FULL_BATCH else None))
        if pt is None:
            continue
        bound = REGISTRY.get(key).value(pt, dps=dps)
        with mpmath.workdps(dps + 10):
            ratio = bound / ex.value if ex.value > 0 else mpmath.inf
            holds = bool(bound >= ex.value - tol)
        out.append(BoundCheck(key=key, scheme=sch, bound=bound, exact=ex.value, exact_error=ex.error, ratio=ratio,
                              holds=holds, setting={**st.describe(), **({"j0": str(j0)} if j0 is not None else {})}))
    return ex, out


def tightness_table(
    base: QuadraticSetting | Mapping[str, Any], Ks: Sequence[int], *,
    schemes: Sequence[BatchScheme | str] = (BatchScheme.FIXED_ORDER, BatchScheme.SHUFFLE_PARTITION,
                                            BatchScheme.WITHOUT_REPLACEMENT),
    dps: int = 20, progress: Any = None,
) -> list[dict[str, Any]]:
    """Bound / exact for every bound of ``COMPARED``, scheme and K (fixed order: first and last batch).

    Rows: ``K, scheme, j0, key, bound, exact, exact_upper (brackets), ratio, holds``. Without
    replacement uses the integer-alpha bracket when K N > 12 (its lower end as ``exact``).
    """
    st0 = _setting(base)
    rows: list[dict[str, Any]] = []
    for K in Ks:
        st = QuadraticSetting(alpha=st0.alpha, eta=st0.eta, lam=st0.lam, S_g=st0.S_g, sigma=st0.sigma, n=st0.n, b=st0.b,
                              K=int(K))
        jobs: list[tuple[QuadraticScheme, int | None]] = []
        for sch in (parse_scheme(x) for x in schemes):
            if sch is BatchScheme.FIXED_ORDER:
                jobs += [(sch, 0), (sch, st.N - 1)]
            else:
                jobs.append((sch, None))
        for sch, j0 in jobs:
            ex, checks = compare_bounds(st, sch, j0=j0, dps=dps)
            for c in checks:
                rows.append({"K": int(K), "scheme": str(sch), "j0": "" if j0 is None else j0, "key": c.key,
                             "bound": float(c.bound), "exact": float(c.exact),
                             "exact_upper": float(ex.upper) if ex.upper is not None else float(c.exact),
                             "ratio": float(c.ratio), "holds": c.holds, "method": ex.method})
        if progress is not None:
            progress.update(1)
    return rows


def plot_tightness(rows: Sequence[Mapping[str, Any]], path: str, *, title: str = "") -> None:
    """Tightness (bound / exact divergence) against K, one line per (scheme, batch, bound)."""
    from dptheory.report.plotting import new_figure, save

    fig, (ax,) = new_figure(width=6.5, height=4.2)
    series: dict[str, list[tuple[int, float]]] = {}
    for r in rows:
        label = f"{r['key'].split('.')[-1]} ({r['scheme']}{'' if r['j0'] == '' else ', j0=' + str(r['j0'])})"
        series.setdefault(label, []).append((int(r["K"]), float(r["ratio"])))
    for label, pts in sorted(series.items()):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3, label=label)
    ax.axhline(1.0, color="k", lw=0.8, ls="--")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("epochs K")
    ax.set_ylabel("upper bound / exact Renyi divergence")
    ax.set_title(title or "tightness on the quadratic loss (1 = tight; < 1 would be a violation)")
    ax.legend(fontsize=6, ncol=2)
    save(fig, path)
