"""Certified Monte-Carlo lower bounds on approximate max-information, on toys with exact information density.

Any event O gives ``D^beta_inf(P||Q) >= ln((P(O) - beta)/Q(O))`` whenever ``P(O) > beta`` (P the joint
law of (S, A(S)), Q the product of its marginals). With the information density ``i = ln dP/dQ``
the level sets ``O_tau = {i > tau}`` are optimal (Neyman-Pearson), and one joint sample estimates
both ``P[i > tau] = E_P 1{i > tau}`` and ``Q[i > tau] = E_P[e^-i 1{i > tau}]`` (importance weights
bounded by ``e^-tau``). Derivation: ``docs/derivations/maxinfo_route.md``, section 4.

Certified procedure (:func:`certified_lower_bound`): a pilot sample chooses tau; a fresh sample of
size N gives a Clopper-Pearson lower confidence bound on ``P[i > tau]`` (level alpha/2) and an upper
confidence bound on ``Q[i > tau]`` (level alpha/2): Hoeffding (``method="hoeffding"``, the default)
or the Chernoff-Hoeffding kl bound for [0, e^-tau]-valued variables (``method="kl"``, Hoeffding 1963
Thm 1, tighter). The reported ``ln((P_lcb - beta)/Q_ucb)`` is a lower bound on ``I^beta_inf`` with
probability at least ``1 - alpha`` over the Monte-Carlo sampling (union bound). Nothing else is
claimed: plug-in estimates are reported as estimates.

Toys (exact information density, cheap):

* :class:`GaussianToy` (``docs/derivations/maxinfo_route.md``, section 4.2): scalar clipped gradients
  ``x_i`` uniform on ``{-zeta, +zeta}``, theta-independent, fixed batches of size m reused every epoch,
  E epochs, noise sigma on each batch sum. It satisfies (A1)-(A5) of ``docs/derivations/maxinfo_dpsgd.md``,
  so Theorem A, Theorem B (case ii) and Lampert & Zakerinia's Theorem 1 (with its unknown constant) all
  apply to it.
* :class:`LaplaceCountToy`: ``x_i`` ~ Bernoulli(1/2), output ``sum_i x_i + Lap(1/eps)``, a pure
  eps-DP algorithm (replace-one sensitivity 1) on product inputs, where Dwork et al.'s Thm 19/20 apply.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.special import gammaln, logsumexp

from dptheory.core.errors import DPTheoryError, InvalidParameter
from dptheory.core.validate import check_generator
from dptheory.numerics import kl as K
from dptheory.numerics.binomial import clopper_pearson_lower, clopper_pearson_upper
from dptheory.papers.maxinfo import kernels as mx

__all__ = [
    "CertifiedLowerBound", "DirectLowerBound", "GaussianToy", "LaplaceCountToy", "ToyAudit", "audit_toy",
    "certified_lower_bound", "direct_lower_bound", "memory_estimate",
    "plugin_d_beta",
]

KEY = "audit.maxinfo"

#: bytes of working memory one block of a mixture density (an (elements, m + 1) or (rows, n + 1) array) may take;
#: every output element is reduced from its own column or row, so the numbers do not depend on the block size
WORK_BYTES = 64 * 2**20
#: elements of a sorted sample handled at once by the threshold searches (elementwise work and a running sum
#: carried as ``np.cumsum`` adds: the same numbers as on whole arrays)
LEVEL_CHUNK = 1 << 18
#: samples drawn per chunk by the toys (part of the seed layout: changing it changes the draws)
SAMPLE_CHUNK = 20_000


# ----------------------------------------------------------------------------- confidence bounds
def _q_upper(weights_mean: float, tau: float, N: int, alpha: float, method: str) -> float:
    """Upper confidence bound (level 1 - alpha) on the mean of [0, e^-tau]-valued i.i.d. weights."""
    scale = math.exp(-tau)
    if method == "hoeffding":
        return weights_mean + scale * math.sqrt(math.log(1.0 / alpha) / (2.0 * N))
    if method == "kl":
        q = min(1.0, max(0.0, weights_mean / scale))
        return scale * K.kl_inv_upper(q, math.log(1.0 / alpha) / N)
    raise DPTheoryError(f"{KEY}: unknown method {method!r}; use 'hoeffding' or 'kl'")


# ----------------------------------------------------------------------------- toys
@functools.lru_cache(maxsize=8)
def _binomial_half_cdf(m: int) -> np.ndarray:
    """The binomial(m, 1/2) CDF, each value ``sum_{j<=k} C(m, j) / 2^m`` computed in integers and rounded once
    to float64 (correctly rounded integer division: no overflow for m >= 1024). ``C(m, k+1) = C(m, k) (m-k)/(k+1)``
    exactly, so the cost is O(m^2) bit operations; cached, since every chunk of samples reads it."""
    out = np.empty(m + 1)
    c, cum, den = 1, 0, 1 << m
    for k in range(m + 1):
        cum += c
        out[k] = cum / den
        c = c * (m - k) // (k + 1)
    out.setflags(write=False)
    return out


def _lse_linear(x: np.ndarray, coef: np.ndarray, base: np.ndarray, chunk: int = 16_384) -> np.ndarray:
    """ln sum_k exp(base_k + coef_k x) elementwise (a log-sum-exp over K terms, cache-blocked, stable)."""
    xf = np.ascontiguousarray(x, dtype=np.float64).reshape(-1)
    out = np.empty_like(xf)
    K_ = len(coef)
    # a block of at most WORK_BYTES, and at least 2 wide: numpy sums a (K, w >= 2) block over axis 0 row after row
    # (the same numbers for every w), a (K, 1) block pairwise; a block that would leave one element takes it too
    step = max(2, min(chunk, WORK_BYTES // (8 * max(1, K_))))
    c = np.asarray(coef, dtype=np.float64)[:, None]
    b0 = np.asarray(base, dtype=np.float64)[:, None]
    width = step + (step < chunk)
    buf = np.empty((K_, width))
    mx = np.empty(width)
    acc = np.empty(width)
    a = 0
    while a < len(xf):
        b = min(len(xf), a + step)
        if step < chunk and len(xf) - b == 1:
            b += 1
        n = b - a
        bb = buf[:, :n]
        np.multiply(c, xf[a:b], out=bb)
        bb += b0
        np.max(bb, axis=0, out=mx[:n])
        bb -= mx[:n]
        np.exp(bb, out=bb)
        np.sum(bb, axis=0, out=acc[:n])
        np.log(acc[:n], out=acc[:n])
        out[a:b] = mx[:n] + acc[:n]
        a = b
    return out.reshape(np.shape(x))


@dataclass(frozen=True)
class GaussianToy:
    """The Gaussian toy: n = T m examples +-zeta, T fixed batches of size m, E epochs, noise sigma.

    Per batch the sufficient statistic is ``ubar_b = s_b + (sigma/sqrt(E)) Z_b`` with ``s_b`` the batch
    sum, and ``i(S;Y) = sum_b [ln N(ubar_b; s_b, sigma^2/E) - ln sum_k C(m,k) 2^-m N(ubar_b; zeta(2k-m), sigma^2/E)]``.
    """

    n: int
    m: int
    E: int
    sigma: float
    zeta: float = 1.0

    def __post_init__(self) -> None:
        for name in ("n", "m", "E"):
            v = getattr(self, name)
            if int(v) != v or v < 1:
                raise InvalidParameter(key=KEY, name=name, value=v, reason="must be a whole number >= 1",
                                       citation="docs/derivations/maxinfo_route.md, section 4.2")
        if self.n % self.m:
            raise InvalidParameter(key=KEY, name="m", value=self.m, reason=f"the toy uses n = T m; m must divide "
                                   f"n = {self.n}", citation="docs/derivations/maxinfo_route.md, section 4.2")
        if not (self.sigma > 0 and self.zeta > 0):
            raise InvalidParameter(key=KEY, name="sigma", value=self.sigma, reason="sigma and zeta must be positive",
                                   citation="docs/derivations/maxinfo_route.md, section 4.2")

    @property
    def T(self) -> int:
        return self.n // self.m

    @property
    def r(self) -> float:
        return self.zeta**2 / self.sigma**2

    def _log_w(self) -> np.ndarray:
        k = np.arange(self.m + 1)
        return gammaln(self.m + 1) - gammaln(k + 1) - gammaln(self.m - k + 1) - self.m * math.log(2.0)

    def _cdf(self) -> np.ndarray:
        return _binomial_half_cdf(self.m)

    def sample(self, rng: np.random.Generator, N: int) -> tuple[np.ndarray, np.ndarray]:
        """N joint draws: batch sums s (N, T) and noise Z (N, T).

        ``s = zeta (2B - m)`` with ``B ~ Bin(m, 1/2)`` (the sum of m independent +-zeta examples), drawn by
        inverting the exact binomial CDF (probabilities rounded once to float64).
        """
        u = rng.random((N, self.T))
        B = np.minimum(np.searchsorted(self._cdf(), u, side="right"), self.m)
        s = self.zeta * (2.0 * B - self.m)
        z = rng.standard_normal((N, self.T))
        return s, z

    def density(self, s: np.ndarray, ubar: np.ndarray) -> np.ndarray:
        """i(S; Y) summed over batches, for batch sums s and statistics ubar (same shape (N, T))."""
        v = self.sigma**2 / self.E
        mus = self.zeta * (2.0 * np.arange(self.m + 1) - self.m)
        # ln sum_k w_k N(u; mu_k, v) - ln N(u; s, v) = lse_k(ln w_k + (u mu_k - mu_k^2/2)/v) - (u s - s^2/2)/v
        log_mix = _lse_linear(ubar, mus / v, self._log_w() - mus**2 / (2 * v))
        return np.sum((ubar * s - s**2 / 2) / v - log_mix, axis=-1)

    def joint(self, rng: np.random.Generator, N: int, chunk: int = SAMPLE_CHUNK, *,
              lemma_g: bool = True) -> dict[str, np.ndarray]:
        """N joint samples of the information density i and (``lemma_g``) of Lemma G's upper bound Lambda.

        Lambda draws nothing: without it the samples of i are the same and take half the memory."""
        out_i = np.empty(N)
        out_l = np.empty(N) if lemma_g else None
        for a in range(0, N, chunk):
            b = min(N, a + chunk)
            s, z = self.sample(rng, b - a)
            ubar = s + self.sigma / math.sqrt(self.E) * z
            out_i[a:b] = self.density(s, ubar)
            if out_l is not None:
                out_l[a:b] = self.lemma_g(s, z)
        return {"i": out_i} if out_l is None else {"i": out_i, "Lambda": out_l}

    def lemma_g(self, s: np.ndarray, z: np.ndarray) -> np.ndarray:
        """Lemma G's Lambda: sum_b [sqrt(E) Z_b s_b/sigma + E (s_b^2 + m zeta^2)/(2 sigma^2)].

        (Here C_t = s_b and v_i = zeta^2, since the examples are centred.)
        """
        E, sig = self.E, self.sigma
        return np.sum(math.sqrt(E) * z * s / sig + E * (s**2 + self.m * self.zeta**2) / (2 * sig**2), axis=-1)

    def product(self, rng: np.random.Generator, N: int, chunk: int = SAMPLE_CHUNK) -> np.ndarray:
        """N draws of i(S'; Y) with S' independent of (S, Y) (direct sampling of the product law)."""
        out = np.empty(N)
        for a in range(0, N, chunk):
            b = min(N, a + chunk)
            s, z = self.sample(rng, b - a)
            ubar = s + self.sigma / math.sqrt(self.E) * z
            s2, _ = self.sample(rng, b - a)
            out[a:b] = self.density(s2, ubar)
        return out

    def log_mgf_lambda(self, lam: float) -> float:
        """Exact ln E exp(lam Lambda) (Gaussian z integrated, then the binomial batch sums): T [lam E m r/2 +
        ln sum_k w_k exp(E (lam^2 + lam) s_k^2/(2 sigma^2))]."""
        sk = self.zeta * (2.0 * np.arange(self.m + 1) - self.m)
        inner = logsumexp(self._log_w() + self.E * (lam**2 + lam) * sk**2 / (2 * self.sigma**2))
        return self.T * (lam * self.E * self.m * self.r / 2 + float(inner))

    def bounds(self, beta: float) -> dict[str, float]:
        """Proven upper bounds that apply to this toy (nats)."""
        return {
            "maxinfo.thmA_derived": float(mx.thm_a_np(self.n, self.m, self.E, self.r, beta)),
            "maxinfo.thmB_derived": float(mx.thm_b_np(self.n, self.m, self.E, self.r, beta)),
        }


@dataclass(frozen=True)
class LaplaceCountToy:
    """x_i ~ Bernoulli(1/2), i = 1..n; output y = sum x_i + Lap(1/eps): pure eps-DP under replace-one."""

    n: int
    eps: float

    def _log_w(self) -> np.ndarray:
        k = np.arange(self.n + 1)
        return gammaln(self.n + 1) - gammaln(k + 1) - gammaln(self.n - k + 1) - self.n * math.log(2.0)

    def density(self, s: np.ndarray, y: np.ndarray) -> np.ndarray:
        """i(S; Y) for counts s and outputs y; the (outputs, n + 1) mixture in blocks of at most WORK_BYTES."""
        ks = np.arange(self.n + 1)
        lw = self._log_w()
        yv = np.asarray(y, dtype=np.float64)
        flat = yv.reshape(-1)
        log_mix = np.empty(flat.shape)
        rows = max(1, WORK_BYTES // (8 * (self.n + 1)))
        for a in range(0, len(flat), rows):
            b = min(len(flat), a + rows)
            log_mix[a:b] = logsumexp(lw - self.eps * np.abs(flat[a:b, None] - ks), axis=-1)
        return -self.eps * np.abs(yv - s) - log_mix.reshape(yv.shape)

    def joint(self, rng: np.random.Generator, N: int, chunk: int = SAMPLE_CHUNK, *,
              lemma_g: bool = True) -> dict[str, np.ndarray]:
        """N joint samples of the information density i (``lemma_g`` is accepted for the toys' common interface:
        this toy has no Lemma G bound)."""
        out = np.empty(N)
        for a in range(0, N, chunk):
            b = min(N, a + chunk)
            s = rng.binomial(self.n, 0.5, size=b - a).astype(np.float64)
            y = s + rng.laplace(0.0, 1.0 / self.eps, size=b - a)
            out[a:b] = self.density(s, y)
        return {"i": out}

    def product(self, rng: np.random.Generator, N: int, chunk: int = SAMPLE_CHUNK) -> np.ndarray:
        out = np.empty(N)
        for a in range(0, N, chunk):
            b = min(N, a + chunk)
            s = rng.binomial(self.n, 0.5, size=b - a).astype(np.float64)
            y = s + rng.laplace(0.0, 1.0 / self.eps, size=b - a)
            s2 = rng.binomial(self.n, 0.5, size=b - a).astype(np.float64)
            out[a:b] = self.density(s2, y)
        return out

    def bounds(self, beta: float) -> dict[str, float]:
        return {
            "dwork15.thm19": float(mx.dwork_pure(self.eps, self.n)),
            "dwork15.thm20": float(mx.dwork_product(self.eps, self.n, beta)),
        }


# ----------------------------------------------------------------------------- memory
def memory_estimate(toy: GaussianToy | LaplaceCountToy, *, N: int, N_pilot: int, chunk: int = SAMPLE_CHUNK) -> Any:
    """Bytes :func:`audit_toy` allocates at its peak, from the shapes (nothing is allocated).

    Per sample (of the larger of N and N_pilot): the sample of i (float64) and one array as large beside it (the
    importance weights, the sorted copy of the threshold search, the copy ``np.quantile`` partitions, or the
    product sample of ``direct``); 16 bytes. Fixed: one chunk of draws (Gaussian toy: about nine float64 arrays
    of (rows, T) at once; Laplace toy: the counts and outputs), a block of the mixture density (at most
    :data:`WORK_BYTES` per array, or one row or column when that alone is larger; Laplace toy: seven such arrays at
    once), the binomial CDF (m + 1 floats), the Lemma G check (at most 100,000 joint samples with Lambda) and the
    temporaries of one chunk of the threshold search (six float64 arrays of :data:`LEVEL_CHUNK`).
    """
    from dptheory.core.memory import MemoryEstimate, array_bytes

    units = max(int(N), int(N_pilot))
    rows = min(int(chunk), units)
    search = {"threshold search": 6 * array_bytes((min(LEVEL_CHUNK, units),))}  # the temporaries of one chunk
    if isinstance(toy, GaussianToy):
        cells = rows * toy.T
        width = min(16_384, cells, max(2, WORK_BYTES // (8 * (toy.m + 1))) + 1)  # the columns of _lse_linear's block
        fixed = {"chunk of draws": 9 * array_bytes((cells,)), "mixture block": array_bytes((toy.m + 3, width)),
                 "binomial CDF": array_bytes((toy.m + 1,)), "Lemma G check": 16 * min(int(N), 100_000)}
        size = "a smaller toy (n=..., m=...)"
    else:
        block = min(rows, max(1, WORK_BYTES // (8 * (toy.n + 1))))  # the rows of density's block
        fixed = {"chunk of draws": 6 * array_bytes((rows,)), "mixture block": 7 * array_bytes((block, toy.n + 1))}
        size = "a smaller toy (n=...)"
    return MemoryEstimate(what=KEY, units=units, unit="samples", per_unit={"samples of i": 8, "working copy": 8},
                          fixed={**fixed, **search}, advice=f"give fewer samples (--N, --N-pilot) or {size}")


# ----------------------------------------------------------------------------- lower bounds
def _best_level(srt: np.ndarray, score: Any, chunk: int | None = None) -> tuple[float, int, bool]:
    """``(max_j v_j, argmax_j v_j, any v_j finite)`` with ``v = score(P, Q, srt)``, ``P_j = (j+1)/N`` and
    ``Q_j = sum_{l<=j} e^(-srt_l) / N``, in chunks of :data:`LEVEL_CHUNK`.

    The same numbers as on whole arrays: every step is elementwise, the running sum is carried into the next
    chunk's first term (``np.cumsum`` adds sequentially) and ties or nan keep ``np.argmax``'s first index."""
    N = len(srt)
    step = LEVEL_CHUNK if chunk is None else chunk
    best, where, finite, carry, nan = -math.inf, 0, False, 0.0, False
    for a in range(0, N, step):
        b = min(N, a + step)
        Q = np.exp(-srt[a:b])
        Q[0] += carry
        np.cumsum(Q, out=Q)
        carry = float(Q[-1])
        Q /= N
        val = score(np.arange(a + 1, b + 1) / N, Q, srt[a:b])
        j = int(np.argmax(val))
        v = float(val[j])
        finite = finite or bool(np.isfinite(val).any())
        if not nan and (a == 0 or v > best or math.isnan(v)):
            best, where, nan = v, a + j, math.isnan(v)
    return best, where, finite


def _sorted_desc(i: np.ndarray) -> np.ndarray:
    srt = np.sort(np.asarray(i, dtype=np.float64))
    return srt[::-1]


def plugin_d_beta(i: np.ndarray, beta: float) -> tuple[float, float]:
    """Plug-in estimate (not a bound) of sup_tau ln((P[i > tau] - beta)/Q[i > tau]) and the tau attaining it.

    ``P`` is the fraction with ``i >= srt[j]``; the search runs in chunks (:func:`_best_level`)."""
    srt = _sorted_desc(i)
    N = len(srt)
    if N == 0 or not 1.0 > beta:  # P > beta somewhere: P reaches N / N = 1
        return -math.inf, math.inf

    def score(P: np.ndarray, Q: np.ndarray, _s: np.ndarray) -> np.ndarray:
        return np.where(P > beta, np.log(np.maximum(P - beta, 1e-300)) - np.log(Q), -np.inf)

    val, j, _ = _best_level(srt, score)
    tau = float(np.nextafter(srt[j], -np.inf))  # strict event {i > tau} contains srt[j]
    return val, tau


@dataclass(frozen=True)
class CertifiedLowerBound:
    """A lower bound on I^beta_inf valid with probability >= confidence over the Monte-Carlo draws.

    Attributes:
        value: the certified lower bound (nats), or None when no certificate (P_lcb <= beta).
        certified: whether a certificate was obtained.
        direction: always "lower".
        confidence: 1 - alpha.
        tau: threshold of the event {i > tau} (chosen on the pilot sample).
        p_lcb, q_ucb: the confidence bounds used.
        p_hat, q_hat: point estimates on the fresh sample.
        N, N_pilot: sample sizes; method: the Q bound ("hoeffding" or "kl").
        plugin: plug-in estimate of D^beta on the fresh sample (an estimate, not a bound).
        mi_estimate: mean of i (mutual information estimate, nats).
        quantile_1_minus_beta: (1-beta) quantile of i, the Lemma 18 sandwich estimate.
    """

    value: float | None
    certified: bool
    confidence: float
    beta: float
    tau: float
    p_lcb: float
    q_ucb: float
    p_hat: float
    q_hat: float
    N: int
    N_pilot: int
    method: str
    plugin: float
    mi_estimate: float
    quantile_1_minus_beta: float
    direction: str = "lower"
    unit: str = "nats"

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def certified_lower_bound(
    toy: GaussianToy | LaplaceCountToy,
    beta: float,
    *,
    rng: np.random.Generator,
    N: int = 200_000,
    N_pilot: int = 50_000,
    alpha: float = 0.01,
    method: str = "hoeffding",
) -> CertifiedLowerBound:
    """Certified lower bound on I^beta_inf for a toy with exact information density (see module docstring)."""
    rng = check_generator(rng, key=KEY)
    if not (0 < beta < 1):
        raise InvalidParameter(key=KEY, name="beta", value=beta, reason="beta must lie in (0, 1)", citation="")
    if not (0 < alpha < 1):
        raise InvalidParameter(key=KEY, name="alpha", value=alpha, reason="alpha must lie in (0, 1)", citation="")
    if N < 10 or N_pilot < 10:
        raise InvalidParameter(key=KEY, name="N", value=N, reason="need at least 10 samples", citation="")
    memory_estimate(toy, N=N, N_pilot=N_pilot).check()
    pilot = toy.joint(rng, N_pilot, lemma_g=False)["i"]
    tau = _choose_tau(pilot, beta, N, alpha, method)
    del pilot
    fresh = toy.joint(rng, N, lemma_g=False)["i"]
    return _certify(fresh, tau, beta, N_pilot, alpha, method)


def _choose_tau(pilot: np.ndarray, beta: float, N: int, alpha: float, method: str) -> float:
    """Maximise the certified objective (widths for the fresh sample size N) on the pilot sample."""
    srt = _sorted_desc(pilot)
    width = math.sqrt(math.log(2.0 / alpha) / (2.0 * N))  # Hoeffding half-width at the fresh sample size N

    def score(P: np.ndarray, Q: np.ndarray, s: np.ndarray) -> np.ndarray:
        num = P - beta - width
        return np.where(num > 0, np.log(np.maximum(num, 1e-300)) - np.log(Q + np.exp(-s) * width), -np.inf)

    _, j, finite = _best_level(srt, score)
    if not finite:
        return float(np.quantile(pilot, 1.0 - 2.0 * beta))
    return float(np.nextafter(srt[j], -np.inf))


def _certify(i: np.ndarray, tau: float, beta: float, N_pilot: int, alpha: float, method: str) -> CertifiedLowerBound:
    N = len(i)
    k = 0
    w = np.empty(N)  # importance weights e^-i 1{i > tau}, built chunk by chunk (elementwise: the same numbers)
    for a in range(0, N, LEVEL_CHUNK):
        part = i[a:a + LEVEL_CHUNK]
        hit = part > tau
        k += int(hit.sum())
        w[a:a + LEVEL_CHUNK] = np.where(hit, np.exp(-np.where(hit, part, 0.0)), 0.0)
    q_hat = float(w.mean())
    del w
    p_lcb = clopper_pearson_lower(k, N, alpha / 2)
    q_ucb = _q_upper(q_hat, tau, N, alpha / 2, method)
    certified = p_lcb > beta and q_ucb > 0
    value = math.log((p_lcb - beta) / q_ucb) if certified else None
    plug, _ = plugin_d_beta(i, beta)
    return CertifiedLowerBound(
        value=value, certified=certified, confidence=1.0 - alpha, beta=beta, tau=tau, p_lcb=p_lcb, q_ucb=q_ucb,
        p_hat=k / N, q_hat=q_hat, N=N, N_pilot=N_pilot, method=method, plugin=plug, mi_estimate=float(i.mean()),
        quantile_1_minus_beta=float(np.quantile(i, 1.0 - beta)),
    )


@dataclass(frozen=True)
class DirectLowerBound:
    """Lower bound from direct product sampling (Clopper-Pearson on both probabilities), valid w.p. >= confidence."""

    value: float | None
    certified: bool
    confidence: float
    tau: float
    p_lcb: float
    q_ucb: float
    N: int
    direction: str = "lower"
    unit: str = "nats"


def direct_lower_bound(toy: GaussianToy | LaplaceCountToy, beta: float, *, rng: np.random.Generator,
                       N: int = 200_000, N_pilot: int = 50_000, alpha: float = 0.01) -> DirectLowerBound:
    """Like :func:`certified_lower_bound` but Q(O) from independent product pairs (saturates near ln(N/ln(2/alpha)))."""
    rng = check_generator(rng, key=KEY)
    memory_estimate(toy, N=N, N_pilot=N_pilot).check()
    pilot = toy.joint(rng, N_pilot, lemma_g=False)["i"]
    # tau: maximise ln((P - beta)/max(Q, ln(2/alpha)/N)) on the pilot (the saturation level of the CP bound)
    srt = _sorted_desc(pilot)
    del pilot
    floor = math.log(2.0 / alpha) / N

    def score(P: np.ndarray, Q: np.ndarray, _s: np.ndarray) -> np.ndarray:
        return np.where(P - beta > 0, np.log(np.maximum(P - beta, 1e-300)) - np.log(np.maximum(Q, floor)), -np.inf)

    _, j, _ = _best_level(srt, score)
    tau = float(np.nextafter(srt[j], -np.inf))
    del srt
    joint = toy.joint(rng, N, lemma_g=False)["i"]
    prod = toy.product(rng, N)
    p_lcb = clopper_pearson_lower(int((joint > tau).sum()), N, alpha / 2)
    q_ucb = clopper_pearson_upper(int((prod > tau).sum()), N, alpha / 2)
    ok = p_lcb > beta
    return DirectLowerBound(value=math.log((p_lcb - beta) / q_ucb) if ok else None, certified=ok,
                            confidence=1.0 - alpha, tau=tau, p_lcb=p_lcb, q_ucb=q_ucb, N=N)


# ----------------------------------------------------------------------------- the audit
@dataclass(frozen=True)
class ToyAudit:
    """Certified lower bound vs every applicable upper bound on one toy configuration.

    Attributes:
        config: the toy's parameters and beta.
        lower: the certified lower bound (importance weights).
        direct: the lower bound from direct product sampling (or None if not computed).
        upper: applicable proven upper bounds (nats), by theorem key.
        ratios: upper / certified lower bound (tightness; >= 1 when both hold).
        consistent: every upper bound >= the certified lower bound.
        lz26_constant_lower: smallest hidden constant C of lz26.thm1 compatible with the lower bound
            (C >= LB / (E n zeta^2/sigma^2 ln(E/beta)); Gaussian toy only).
        lemma_g_violations: number of joint samples with i > Lambda (must be 0; Gaussian toy only).
        seconds: wall time.
    """

    config: dict[str, Any]
    lower: CertifiedLowerBound
    direct: DirectLowerBound | None
    upper: dict[str, float]
    ratios: dict[str, float]
    consistent: bool
    lz26_constant_lower: float | None
    lemma_g_violations: int | None
    seconds: float
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "config": self.config, "lower": self.lower.to_dict(),
            "direct": None if self.direct is None else self.direct.__dict__,
            "upper": self.upper, "ratios": self.ratios, "consistent": self.consistent,
            "lz26_constant_lower": self.lz26_constant_lower, "lemma_g_violations": self.lemma_g_violations,
            "seconds": self.seconds, "notes": self.notes,
        }


def audit_toy(toy: GaussianToy | LaplaceCountToy, beta: float, *, rng: np.random.Generator, N: int = 200_000,
              N_pilot: int = 50_000, alpha: float = 0.01, method: str = "hoeffding",
              direct: bool = False) -> ToyAudit:
    """Certified lower bound on I^beta_inf and the applicable upper bounds, with tightness ratios."""
    import time

    t0 = time.perf_counter()
    rng = check_generator(rng, key=KEY)
    lower = certified_lower_bound(toy, beta, rng=rng, N=N, N_pilot=N_pilot, alpha=alpha, method=method)
    dlb = direct_lower_bound(toy, beta, rng=rng, N=N, N_pilot=N_pilot, alpha=alpha) if direct else None
    upper = toy.bounds(beta)
    lb = lower.value
    ratios = {k: (v / lb if lb and lb > 0 else math.inf) for k, v in upper.items()}
    consistent = lb is None or all(v >= lb for v in upper.values())
    lzc = None
    viol = None
    cfg: dict[str, Any] = {"beta": beta, "alpha": alpha, "N": N, "method": method}
    if isinstance(toy, GaussianToy):
        cfg.update(toy="gaussian", n=toy.n, m=toy.m, E=toy.E, sigma=toy.sigma, zeta=toy.zeta)
        if lb is not None and lb > 0:
            lzc = lb / (toy.E * toy.n * toy.r * math.log(toy.E / beta))
        check = toy.joint(rng, min(N, 100_000))
        viol = int(np.sum(check["i"] - check["Lambda"] > 1e-9 * (1.0 + np.abs(check["Lambda"]))))
    else:
        cfg.update(toy="laplace-count", n=toy.n, eps=toy.eps)
    return ToyAudit(config=cfg, lower=lower, direct=dlb, upper=upper, ratios=ratios, consistent=consistent,
                    lz26_constant_lower=lzc, lemma_g_violations=viol, seconds=time.perf_counter() - t0)
