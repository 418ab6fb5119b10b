"""Renyi divergence of one-dimensional Gaussian mixtures with a common variance (generic auditing kernels).

``mixture_renyi_1d`` evaluates ``D_alpha(P || Q)`` for ``P = sum_i w_i N(m_i, s^2)`` and
``Q = sum_j v_j N(l_j, s^2)`` by Gauss-Legendre panels at a stated precision with an error estimate
(mpmath); ``mixture_renyi_1d_np`` is the float64 counterpart. :class:`MixtureLaw` is such a law
(used for the exact epsilon(delta) of audits). The derivation of the panel rule and its error
estimate: ``docs/derivations/quadratic_exact_divergence.md`` (where the mixtures come from the last
iterate of noisy GD on a quadratic loss).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import mpmath
import numpy as np
from scipy.special import logsumexp

from dptheory.core.errors import InvalidParameter, NumericalFailure

KEY = "audit.mixture"
CITE = "Renyi divergence of 1-D Gaussian mixtures (docs/derivations/quadratic_exact_divergence.md)"


# ----------------------------------------------------------------------------- laws for the simulator checks
@dataclass(frozen=True)
class MixtureLaw:
    """One-dimensional law of the last iterate along ``e = (x - x')/||x - x'||``: sum_i w_i N(m_i, s^2).

    The full law is this along ``e`` times ``N(center_perp, s^2 I)`` on the orthogonal complement.
    """

    weights: np.ndarray
    means: np.ndarray
    s: float

    def cdf(self, x: np.ndarray) -> np.ndarray:
        from scipy.special import ndtr

        x = np.asarray(x, dtype=np.float64)
        return (self.weights[None, :] * ndtr((x[..., None] - self.means[None, :]) / self.s)).sum(axis=-1)

    def mean(self) -> float:
        return float(self.weights @ self.means)

    def var(self) -> float:
        m = self.mean()
        return float(self.weights @ (self.means - m) ** 2 + self.s**2)


# ----------------------------------------------------------------------------- 1-D mixture quadrature (mpmath)
@lru_cache(maxsize=64)
def _gl_nodes(n: int, dps: int) -> tuple[tuple[mpmath.mpf, ...], tuple[mpmath.mpf, ...]]:
    """Gauss-Legendre nodes and weights on [-1, 1] at ``dps`` digits (Newton on the Legendre recurrence)."""
    with mpmath.workdps(dps + 10):
        xs: list[mpmath.mpf] = []
        ws: list[mpmath.mpf] = []
        tol = mpmath.mpf(10) ** (-(dps + 8))
        for i in range(1, n + 1):
            x = mpmath.cos(mpmath.pi * (i - mpmath.mpf(1) / 4) / (n + mpmath.mpf(1) / 2))
            for _ in range(100):
                p0, p1 = mpmath.mpf(1), x
                for k in range(2, n + 1):
                    p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
                dp = n * (x * p1 - p0) / (x * x - 1)
                dx = p1 / dp
                x -= dx
                if abs(dx) < tol:
                    break
            else:  # pragma: no cover - Newton from Chebyshev-like starts converges
                raise NumericalFailure(f"{KEY}: Gauss-Legendre node {i} of {n} did not converge")
            p0, p1 = mpmath.mpf(1), x
            for k in range(2, n + 1):
                p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
            dp = n * (x * p1 - p0) / (x * x - 1)
            xs.append(x)
            ws.append(2 / ((1 - x * x) * dp * dp))
    return tuple(xs), tuple(ws)


@dataclass(frozen=True)
class MixtureDivergence:
    """``D_alpha(P || Q)`` for 1-D Gaussian mixtures with a common variance, nats, with its error estimate."""

    value: mpmath.mpf
    error: mpmath.mpf
    evaluations: int
    panels: int
    log_integral: mpmath.mpf


def _validate_mixture(name: str, weights: Sequence[Any], means: Sequence[Any]) -> None:
    if len(weights) != len(means) or len(weights) == 0:
        raise InvalidParameter(key=KEY, name=name, value=f"{len(weights)} weights, {len(means)} means",
                               reason="a mixture needs as many weights as means (at least one)", citation=CITE)
    for w in weights:
        if not (w >= 0):
            raise InvalidParameter(key=KEY, name=name, value=str(w), reason="mixture weights must be >= 0",
                                   citation=CITE)
    tot = float(sum(float(w) for w in weights))
    if abs(tot - 1.0) > 1e-12:
        raise InvalidParameter(key=KEY, name=name, value=tot, reason="mixture weights must sum to 1", citation=CITE)


def _panels_np(alpha: float, lw_p: np.ndarray, m_p: np.ndarray, lw_q: np.ndarray, m_q: np.ndarray, tail_nats: float
               ) -> tuple[np.ndarray, float]:
    """float64 analysis: panel edges over the region holding all but e^-tail_nats of the integral.

    ``phi(x) = alpha log p + (1-alpha) log q`` (unit variance). Every stationary point of phi lies in
    ``[alpha min m_p - (alpha-1) max m_q, alpha max m_p - (alpha-1) min m_q]`` and outside it phi
    decreases at least like a unit Gaussian, so scanning that interval widened by the tail width
    finds the whole relevant region. Panel width adapts to the curvature of phi.
    """
    A = alpha * m_p.min() - (alpha - 1) * m_q.max()
    B = alpha * m_p.max() - (alpha - 1) * m_q.min()
    c = math.sqrt(2 * tail_nats) + 2
    npts = int(min(40_000, max(2_001, 20 * (B - A + 2 * c))))
    x = np.linspace(A - c, B + c, npts)
    phi = _phi_np(alpha, x, lw_p, m_p, lw_q, m_q)
    keep = phi >= phi.max() - tail_nats
    lo, hi = x[keep].min(), x[keep].max()
    lo = max(A - c, lo - 2 * (x[1] - x[0]))
    hi = min(B + c, hi + 2 * (x[1] - x[0]))
    dx = x[1] - x[0]
    curv = np.abs(np.diff(phi, 2)) / dx**2
    sel = keep[1:-1]
    kmax = float(curv[sel].max()) if sel.any() else 1.0
    width = min(3.0, 3.0 / math.sqrt(max(1.0, kmax)))
    P = max(1, math.ceil((hi - lo) / width))
    return np.linspace(lo, hi, P + 1), float(phi.max())


def _phi_np(alpha: float, x: np.ndarray, lw_p: np.ndarray, m_p: np.ndarray, lw_q: np.ndarray, m_q: np.ndarray
            ) -> np.ndarray:
    def lse(lw: np.ndarray, m: np.ndarray) -> np.ndarray:
        # log sum_j w_j e^{-(x - m_j)^2/2}, shifted by each row's largest term: the sum is then in [1, len(m)], so
        # it loses no digits. The same as scipy.special.logsumexp but for its last rounding (at most 1.4e-14 on
        # values of 100, measured), and 2-4x faster on these (points x components) blocks: the mixtures of a
        # without-replacement run have thousands of components, and scipy's checks and its exact treatment of the
        # largest term were most of an audit's time. Blocks of 2^18 values (2 MB) stay in the cache.
        out = np.empty_like(x)
        step = max(1, 262_144 // max(1, len(m)))
        for i in range(0, len(x), step):
            xx = x[i:i + step, None]
            a = lw[None, :] - 0.5 * (xx - m[None, :]) ** 2
            top = a.max(axis=1)
            a -= top[:, None]
            np.exp(a, out=a)
            out[i:i + step] = top + np.log(a.sum(axis=1))
        return out

    return alpha * lse(lw_p, m_p) + (1 - alpha) * lse(lw_q, m_q) - 0.5 * math.log(2 * math.pi)


def mixture_renyi_1d(
    alpha: Any,
    p_weights: Sequence[Any],
    p_means: Sequence[Any],
    q_weights: Sequence[Any],
    q_means: Sequence[Any],
    *,
    dps: int = 30,
    n_nodes: int | None = None,
    check_nodes: int | None = None,
) -> MixtureDivergence:
    """``D_alpha(P || Q) = log(int p^alpha q^(1-alpha))/(alpha - 1)`` for unit-variance 1-D Gaussian mixtures.

    Means are in units of the common standard deviation. Gauss-Legendre with ``n_nodes`` points
    (default ``13 + dps/2``, i.e. 28 at 30 digits; ``check_nodes`` default ``n_nodes - 4``) on
    panels chosen from a float64 scan of the log-integrand (width <= 3 and <= 3/sqrt(curvature));
    the error estimate is the difference to a ``check_nodes``-point rule on the same panels (a
    conservative estimate of the ``n_nodes`` rule's error) plus the neglected tails (< e^-tail
    relative). Panels are halved until the estimate is below ``10^-dps`` relative to the result.

    Raises:
        NumericalFailure: if the requested precision is not reached.
    """
    al = mpmath.mpf(alpha) if not isinstance(alpha, mpmath.mpf) else alpha
    if not al > 1:
        raise InvalidParameter(key=KEY, name="alpha", value=str(alpha), reason="the Renyi order must exceed 1",
                               citation=CITE)
    _validate_mixture("p", p_weights, p_means)
    _validate_mixture("q", q_weights, q_means)
    af = float(al)
    wp = np.array([float(w) for w in p_weights])
    wq = np.array([float(w) for w in q_weights])
    mpf_ = np.array([float(m) for m in p_means])
    mqf = np.array([float(m) for m in q_means])
    with np.errstate(divide="ignore"):
        lwp, lwq = np.log(wp), np.log(wq)
    kp, kq = wp > 0, wq > 0
    n_nodes = n_nodes or 13 + dps // 2
    check_nodes = check_nodes or n_nodes - 4
    tail = (dps + 8) * math.log(10)
    edges, phimax = _panels_np(af, lwp[kp], mpf_[kp], lwq[kq], mqf[kq], tail)
    # extra digits: R = log(I)/(alpha-1) loses digits when log I is small (relative to I ~ 1)
    est_log_i = float(logsumexp(_phi_np(af, np.linspace(edges[0], edges[-1], 4001), lwp[kp], mpf_[kp], lwq[kq],
                                        mqf[kq])) + math.log((edges[-1] - edges[0]) / 4000))
    extra = min(40, max(0, math.ceil(-math.log10(abs(est_log_i)))) if est_log_i != 0 else 40)
    if extra:
        # the neglected tails must also be small relative to log I, not only to I
        tail = (dps + 8 + extra) * math.log(10)
        edges, phimax = _panels_np(af, lwp[kp], mpf_[kp], lwq[kq], mqf[kq], tail)
    wdps = dps + 10 + extra
    evaluations = 0
    with mpmath.workdps(wdps):
        P = [(mpmath.log(mpmath.mpf(w)), mpmath.mpf(m)) for w, m in zip(p_weights, p_means, strict=True) if w > 0]
        Q = [(mpmath.log(mpmath.mpf(w)), mpmath.mpf(m)) for w, m in zip(q_weights, q_means, strict=True) if w > 0]
        # exponent of component i at x: log w_i + x m_i - m_i^2/2 (the common -x^2/2 is factored out)
        Pc = [(lw - m * m / 2, m) for lw, m in P]
        Qc = [(lw - m * m / 2, m) for lw, m in Q]
        half_log_2pi = mpmath.log(2 * mpmath.pi) / 2
        shift = mpmath.mpf(phimax)
        eps_w = mpmath.mpf(10) ** (-wdps)

        def panel_sums(edges_: np.ndarray) -> tuple[mpmath.mpf, mpmath.mpf, int]:
            xs_a, ws_a = _gl_nodes(n_nodes, wdps)
            xs_b, ws_b = _gl_nodes(check_nodes, wdps)
            tot_a: list[mpmath.mpf] = []
            tot_b: list[mpmath.mpf] = []
            cnt = 0
            for lo_, hi_ in itertools.pairwise(edges_):
                lo_m, hi_m = mpmath.mpf(lo_), mpmath.mpf(hi_)
                c, h = (lo_m + hi_m) / 2, (hi_m - lo_m) / 2
                dxs = [h * x for x in xs_a] + [h * x for x in xs_b]
                lp = _log_sums(Pc, c, dxs, h, eps_w)
                lq = _log_sums(Qc, c, dxs, h, eps_w)
                vals = [mpmath.exp(-(c + dx) ** 2 / 2 + al * a_ + (1 - al) * b_ - half_log_2pi - shift)
                        for dx, a_, b_ in zip(dxs, lp, lq, strict=True)]
                na = len(xs_a)
                tot_a.append(h * mpmath.fsum(w * v for w, v in zip(ws_a, vals[:na], strict=True)))
                tot_b.append(h * mpmath.fsum(w * v for w, v in zip(ws_b, vals[na:], strict=True)))
                cnt += n_nodes + check_nodes
            return mpmath.fsum(tot_a), mpmath.fsum(tot_b), cnt

        target = mpmath.mpf(10) ** (-dps)
        for _attempt in range(4):
            Ia, Ib, cnt = panel_sums(edges)
            evaluations += cnt
            # neglected tails: below e^-tail of the peak, times a Gaussian-tail width on each side
            tail_err = 2 * mpmath.exp(-tail) * mpmath.sqrt(mpmath.pi / 2)
            err_I = abs(Ia - Ib) + tail_err
            log_i = mpmath.log(Ia) + shift
            val = log_i / (al - 1)
            err = (err_I / Ia) / (al - 1)
            if val == 0 or err <= target * abs(val):
                break
            edges = np.linspace(edges[0], edges[-1], 2 * (len(edges) - 1) + 1)
        else:
            raise NumericalFailure(f"{KEY}: the mixture quadrature did not reach {dps} digits (estimated relative "
                                   f"error {mpmath.nstr(err / abs(val), 3)} at order alpha = {alpha})")
    with mpmath.workdps(dps):
        return MixtureDivergence(value=+val, error=+err, evaluations=evaluations, panels=len(edges) - 1,
                                 log_integral=+log_i)


def _log_sums(comps: list[tuple[mpmath.mpf, mpmath.mpf]], x0: mpmath.mpf, dxs: list[mpmath.mpf], h: mpmath.mpf,
              eps_w: mpmath.mpf) -> list[mpmath.mpf]:
    """log sum_i exp(c_i + x m_i) at x = x0 + dx for every dx, by a Taylor series in dx around x0.

    sum_i exp(c_i + x0 m_i) exp(dx m_i) = sum_k dx^k/k! M_k with M_k = sum_i exp(c_i + x0 m_i) m_i^k;
    truncated where the remainder (h max|m|)^(k+1)/(k+1)! exp(h max|m|) falls below ``eps_w`` (10^-wdps at
    the working precision wdps).
    When h max|m| > 1 the terms could cancel by more than a factor e^2, so the exponentials are
    summed directly instead.
    """
    if len(comps) == 1:
        c, m = comps[0]
        return [c + (x0 + dx) * m for dx in dxs]
    mmax = max(abs(m) for _c, m in comps)
    r = float(h * mmax)
    if r > 1:
        # the series would cancel (terms up to e^r, value down to e^-r): sum the exponentials directly
        return [mpmath.log(mpmath.fsum(mpmath.exp(c + (x0 + dx) * m) for c, m in comps)) for dx in dxs]
    E = [mpmath.exp(c + x0 * m) for c, m in comps]
    total = mpmath.fsum(E)
    kmax, term = 0, 1.0
    while term * math.exp(r) > float(eps_w) * 1e-3 and kmax < 2000:
        kmax += 1
        term *= r / kmax
    moments: list[mpmath.mpf] = []
    pw = E
    fact = mpmath.mpf(1)
    for k in range(kmax + 1):
        if k:
            fact *= k
            pw = [p * m for p, (_c, m) in zip(pw, comps, strict=True)]
        moments.append(mpmath.fsum(pw) / fact)
    out = []
    for dx in dxs:
        acc = moments[-1]
        for mk in reversed(moments[:-1]):
            acc = acc * dx + mk
        if not acc > total * eps_w:
            raise NumericalFailure(f"{KEY}: the Taylor evaluation of a mixture density lost its digits")
        out.append(mpmath.log(acc))
    return out


def mixture_renyi_1d_np(
    alpha: float,
    p_weights: np.ndarray,
    p_means: np.ndarray,
    q_weights: np.ndarray,
    q_means: np.ndarray,
    *,
    n_nodes: int = 24,
    check_nodes: int = 16,
) -> tuple[float, float]:
    """float64 version of :func:`mixture_renyi_1d` for mixtures with many components.

    Returns ``(value, error_estimate)`` in nats. The error estimate adds the rule difference and
    float64 rounding of ``log I`` (``1e-15`` absolute on log I).
    """
    if not alpha > 1:
        raise InvalidParameter(key=KEY, name="alpha", value=alpha, reason="the Renyi order must exceed 1",
                               citation=CITE)
    wp, wq = np.asarray(p_weights, float), np.asarray(q_weights, float)
    mp_, mq = np.asarray(p_means, float), np.asarray(q_means, float)
    kp, kq = wp > 0, wq > 0
    lwp, lwq = np.log(wp[kp]), np.log(wq[kq])
    mp_, mq = mp_[kp], mq[kq]
    edges, _ = _panels_np(alpha, lwp, mp_, lwq, mq, 40.0)

    def integral(n: int) -> float:
        x, w = np.polynomial.legendre.leggauss(n)
        c = (edges[:-1] + edges[1:]) / 2
        h = (edges[1:] - edges[:-1]) / 2
        X = (c[:, None] + h[:, None] * x[None, :]).ravel()
        Wt = (h[:, None] * w[None, :]).ravel()
        phi = _phi_np(alpha, X, lwp, mp_, lwq, mq)
        return float(logsumexp(phi, b=Wt))

    la, lb = integral(n_nodes), integral(check_nodes)
    err = (abs(math.expm1(la - lb)) + 2e-15 + 2 * math.exp(-40.0)) / (alpha - 1)
    return la / (alpha - 1), err
