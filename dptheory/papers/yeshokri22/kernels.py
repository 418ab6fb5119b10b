"""Numerical kernels for Ye & Shokri 2022 (arXiv 2203.05363), written for stability.

Notation (the paper's): ``G(alpha) = alpha eta S_g^2 / (4 sigma^2 b^2)``
is the RDP of one Gaussian update (defined once, :func:`gaussian_step_rdp_expr`; the kernels here take it as an
argument or call its compiled form); ``r = (1 - eta lam)^2``; ``N = floor(n/b)``; ``h = floor(N/2) = floor(n/(2b))``;

    eps0(j) = G r^(j-1) / sum_{s<j} r^s = G (1 - r) r^(j-1) / (1 - r^j),   j = 1..N   (Eq. 99)

Every ``1 - r^m`` is computed as ``-expm1(m log r)`` with ``log r = 2 log1p(-eta lam)`` and
``1 - r = eta lam (2 - eta lam)``: the printed forms lose all digits when ``eta lam`` is small.

mp kernels take a dict of Python ints / mpf at the caller's precision; np kernels take a dict of
broadcast float64 arrays. Neither ever sets global precision.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from typing import Any, Protocol, TypeAlias

import mpmath
import numpy as np

from dptheory.core.compile import one_minus_product_np
from dptheory.core.errors import NumericalFailure

# ----------------------------------------------------------------------------- shared pieces (mp)


#: the arguments of G, in order
G_ARGS = ("alpha", "eta", "S_g", "sigma", "b")


def gaussian_step_rdp_expr(alpha: Any, eta: Any, S_g: Any, sigma: Any, b: Any) -> Any:
    """G(alpha) = alpha eta S_g^2 / (4 sigma^2 b^2): RDP of one noisy update (Lemma 3.2, Eq. 70), the one
    definition: ``theorems.G_sym`` is it at the notation's symbols, and the kernels use it compiled
    (:func:`gaussian_step_rdp`)."""
    return alpha * eta * S_g**2 / (4 * sigma**2 * b**2)


@functools.cache
def gaussian_step_rdp() -> Any:
    """:func:`gaussian_step_rdp_expr` compiled (mp, float64, arb) over :data:`G_ARGS`, all read as reals."""
    import sympy as sp

    from dptheory.core.compile import compile_expr

    syms = {x: sp.Symbol(x, positive=True) for x in G_ARGS}
    return compile_expr(gaussian_step_rdp_expr(*syms.values()), syms)


def gaussian_step_rdp_mp(alpha: Any, eta: Any, S_g: Any, sigma: Any, b: Any) -> mpmath.mpf:
    """G(alpha) at the caller's precision (the compiled :func:`gaussian_step_rdp_expr`)."""
    return gaussian_step_rdp().mp({"alpha": alpha, "eta": eta, "S_g": S_g, "sigma": sigma, "b": b})


def log_r_mp(eta: Any, lam: Any) -> mpmath.mpf:
    """log r = 2 log(1 - eta lam)."""
    return 2 * mpmath.log1p(-eta * lam)


def one_minus_r_pow_mp(m: Any, log_r: Any) -> mpmath.mpf:
    """1 - r^m, accurately for r near 1."""
    return -mpmath.expm1(m * log_r)


def eps0_mp(j: int, G: Any, eta: Any, lam: Any) -> mpmath.mpf:
    """eps0^j(alpha) = G r^(j-1) (1 - r) / (1 - r^j) for j >= 1 (Thm 3.3, Eq. 99)."""
    if j < 1:
        raise NumericalFailure(f"eps0^j is defined for j >= 1 only (got j = {j}); Thm 3.3 needs n/b >= 2")
    x = eta * lam
    lr = log_r_mp(eta, lam)
    return G * x * (2 - x) * mpmath.exp((j - 1) * lr) / one_minus_r_pow_mp(j, lr)


# ----------------------------------------------------------------------------- shared pieces (np)


#: the float64 kernels are elementwise: a Python float is a 0-d array to them
FloatOrArray: TypeAlias = float | np.ndarray


def log_r_np(eta: FloatOrArray, lam: FloatOrArray) -> np.ndarray:
    """log r = 2 log(1 - eta lam), accurate for eta lam near 0 (log1p) and near 1 (exact 1 - eta lam)."""
    x = eta * lam
    with np.errstate(divide="ignore", invalid="ignore"):
        return 2.0 * np.where(x < 0.5, np.log1p(-x), np.log(one_minus_product_np(eta, lam)))


def one_minus_r_np(eta: FloatOrArray, lam: FloatOrArray) -> np.ndarray:
    """1 - r = eta lam (2 - eta lam) = 1 - (1 - eta lam)^2."""
    x = eta * lam
    omx = one_minus_product_np(eta, lam)
    # x (2 - x) is accurate for small x; (1 - omx)(1 + omx) near x = 1 (where 1 - x is the small part)
    return np.where(x < 0.5, x * (2.0 - x), (1.0 - omx) * (1.0 + omx))


def gaussian_step_rdp_np(
    alpha: FloatOrArray, eta: FloatOrArray, S_g: FloatOrArray, sigma: FloatOrArray, b: FloatOrArray
) -> np.ndarray:
    """G(alpha) in float64, broadcast (the compiled :func:`gaussian_step_rdp_expr`)."""
    return gaussian_step_rdp().np({"alpha": alpha, "eta": eta, "S_g": S_g, "sigma": sigma, "b": b})


def eps0_np(j: FloatOrArray, G: FloatOrArray, eta: FloatOrArray, lam: FloatOrArray) -> np.ndarray:
    lr = log_r_np(eta, lam)
    return G * one_minus_r_np(eta, lam) * np.exp((j - 1.0) * lr) / (-np.expm1(j * lr))


# ----------------------------------------------------------------------------- Thm 4.3 recurrence


def _shortcuts_hold(one_minus_r: Any, c: Any) -> Any:
    """Where the Thm 4.3 shortcuts are proved (``docs/derivations/thm4_3_recurrence.md``): ``1 - r > 0`` (so
    ``0 < f' < 1``) and ``c >= 0`` (so ``L* >= 0`` and the iterates rise to it; the a > 1 one has ``c > 0`` anyway).
    Outside (``eta lam >= 2`` or ``alpha < 1``, only with the theorem's conditions unchecked) every kernel iterates
    every step. Elementwise on arrays; a bool on numbers and on arb balls (certainly)."""
    return (one_minus_r > 0) & (c >= 0)


def thm43_log_S_mp(T: int, q: Any, c: Any, r: Any, *, tol_digits: int | None = None) -> tuple[mpmath.mpf, str]:
    """log S after T steps of the Thm 4.3 recurrence, in the log domain, at the caller's precision.

    The recurrence S <- q e^c S + (1-q) S^r (Eq. 149, c = (alpha-1) G, q = b/n, r = (1-eta lam)^2)
    is iterated on L = log S as  L <- L + log1p(q expm1(c) + (1-q) expm1(-(1-r) L)).

    Exact shortcut (proved in ``docs/derivations/thm4_3_recurrence.md``): with a = q e^c,
      * if a < 1 the iterates increase monotonically to the fixed point
        L* = (log1p(-q) - log1p(-a)) / (1 - r), and L_t <= L_T <= L* for every T >= t; once
        L* - L_t <= 10^-(dps-3) L* (a few units in the last place), or the rounded iterate has
        stopped moving, we return L* (an upper bound, within rounding of the exact iterate);
      * if a > 1, L_t + M log a <= L_{t+M} <= L_t + M log(a + (1-q) e^{-(1-r) L_t}); once the
        relative width of that bracket is below the tolerance we return its upper end;
      * if a = 1 exactly, no shortcut: all T steps are iterated.

    Both shortcuts need ``1 - r > 0`` (so that ``0 < f' < 1``); with ``1 - r <= 0`` (``eta lam >= 2``, reached only with
    the theorem's conditions unchecked) every step is iterated (the iterates then grow without bound).

    Returns:
        (log S_T, how) where ``how`` is ``"iterated"``, ``"fixed point"`` or ``"linear regime"``.
    """
    dps = mpmath.mp.dps if tol_digits is None else tol_digits
    # a few units in the last place: the rounded iteration cannot get closer to L* than its own
    # rounding allows, so a tighter tolerance would never trigger; a stalled iterate also stops it
    tol = mpmath.mpf(10) ** (-(dps - 3))
    one_minus_r = 1 - r
    qe = q * mpmath.expm1(c)
    one_minus_q = 1 - q
    log_a = mpmath.log(q) + c
    proved = _shortcuts_hold(one_minus_r, c)
    a_lt_1 = log_a < 0 and proved
    a_gt_1 = log_a > 0 and proved
    if a_lt_1:
        # L* = log((1-q)/(1-a))/(1-r) = log1p(q expm1(c)/(1-a))/(1-r): no cancellation when a ~ q
        L_star = mpmath.log1p(qe / -mpmath.expm1(log_a)) / one_minus_r
        # contraction: L* - L_T <= rho^T L* with rho = 1 - (1-r)(1-a) (thm4_3_recurrence.md)
        log_rho = mpmath.log1p(one_minus_r * mpmath.expm1(log_a))
        if T * log_rho <= mpmath.log(tol):
            return L_star, "fixed point"
    _thm43_step_guard(T, "mp")
    L = mpmath.mpf(0)
    check_every = 64
    log_1mq = mpmath.log1p(-q) if q < 1 else mpmath.ninf
    prev = mpmath.mpf(-1)
    for t in range(T):
        if log_a <= 0:
            L = L + mpmath.log1p(qe + one_minus_q * mpmath.expm1(-one_minus_r * L))
        else:
            L = L + log_a + mpmath.log1p(mpmath.exp(log_1mq - one_minus_r * L - log_a))
        if (t + 1) % check_every == 0 and t + 1 < T:
            if a_lt_1 and (L_star - L <= tol * L_star or L == prev):
                return L_star, "fixed point"
            prev = L
            if a_gt_1:
                M = T - (t + 1)
                lo = L + M * log_a
                hi = L + M * (log_a + mpmath.log1p(one_minus_q * mpmath.exp(-one_minus_r * L - log_a)))
                if hi - lo <= tol * lo:
                    return hi, "linear regime"
    return L, "iterated"


#: largest number of Thm 4.3 steps a kernel iterates when no exact shortcut applies from the start
#: (mp: ~10 us a step, arb: ~2 x 20 us a step, float64: ~0.1 us compiled, ~0.5 us in Python)
THM43_MAX_STEPS = {"mp": 2 * 10**6, "arb": 5 * 10**5, "np": 2 * 10**8}


def _thm43_step_guard(T: int, backend: str) -> None:
    """Refuse a recurrence too long to iterate (one-line :class:`NumericalFailure` naming the limit).

    Only reached when the contraction shortcut (L_T within the tolerance of L* already at t = 0) does
    not apply; the in-loop shortcuts may still stop earlier, but cannot be relied on beforehand.
    """
    limit = THM43_MAX_STEPS[backend]
    if T > limit:
        raise NumericalFailure(
            f"Thm 4.3 recurrence: K floor(n/b) = {T} steps exceed the {backend} kernel's limit of {limit} steps "
            "and no exact shortcut applies (the iterates are not yet within the tolerance of the fixed point)"
        )


def thm43_log_S_arb(T: int, q: Any, c: Any, one_minus_r: Any) -> Any:
    """Certified enclosure of log S_T of the Thm 4.3 recurrence (Eq. 148-150), on python-flint balls.

    ``q``, ``c``, ``one_minus_r`` are balls (exact rationals rounded at the working precision; pass
    ``1 - r = eta lam (2 - eta lam)``, not ``1 - (1 - eta lam)^2``, which cancels). The step
    ``f(L) = L + log(q e^c + (1-q) e^{-(1-r) L})`` has ``r < f' < 1`` (docs/derivations/thm4_3_recurrence.md)
    when ``0 <= 1 - r`` (the theorem's conditions), so one exact midpoint and a radius are carried: if ``L_t`` is
    within ``rho`` of the exact ``m``, then ``f(L_t)`` is within ``rho`` of ``f(m)`` (``0 < f' < 1``), and ``f(m)``
    is the ball ``F = step(m)``: ``m <- mid(F)``, ``rho <- upper(rho + rad(F))``. The width grows only by the
    rounding of each step, not by the naive ball blow-up, at one ball evaluation of ``f`` per step. (With
    ``1 - r < 0``, reached only with the conditions unchecked, ``f' > 1`` and two exact iterates
    ``lo <- lower(f(lo))``, ``hi <- upper(f(hi))`` are carried instead, without the shortcuts: ``f`` is still
    increasing.) Rigorous shortcuts (``0 <= 1 - r``), with ``a = q e^c`` and ``M = T - t`` remaining steps:

    * ``a < 1``: ``L* - rho^M (L* - L_t) <= L_T <= L*`` with ``rho = 1 - (1-r)(1-a)`` (``f' <= rho``
      on ``[0, L*]``); returned once that bracket is within the working precision (possibly at t = 0);
    * ``a > 1``: ``L_t + M log a <= L_T <= L_t + M log(a + (1-q) e^{-(1-r) L_t})``;
    * otherwise every step is iterated, up to ``THM43_MAX_STEPS["arb"]`` (then :class:`NumericalFailure`).
    """
    import flint

    arb = flint.arb
    prec = flint.ctx.prec
    tol = arb(2) ** (-(prec - 12))
    if q == 1:  # n = b: S <- e^c S exactly
        return T * c
    one_minus_q = 1 - q
    log_a = q.log() + c
    log_1mq = (-q).log1p()
    small_form = bool(log_a.upper() <= 0)
    qe = q * c.expm1() if small_form else None

    def step(L: Any) -> Any:
        if small_form:
            return L + (qe + one_minus_q * (-one_minus_r * L).expm1()).log1p()
        return L + log_a + (log_1mq - one_minus_r * L - log_a).exp().log1p()

    def tight(lo: Any, hi: Any) -> bool:
        return bool(hi - lo <= tol * lo.abs_lower()) if lo > 0 else bool(hi - lo <= tol)

    if not bool(one_minus_r >= 0):
        # 1 - r < 0 (eta lam > 2, only with the conditions unchecked): f' > 1, so a radius would grow by f' each
        # step and the shortcuts' bounds do not hold; f is still increasing, so two exact iterates enclose L_t
        _thm43_step_guard(T, "arb")

        def grow(L: Any) -> Any:
            """f(L) once L is large: r L + log(1-q) + log1p(a e^{-(r-1) L}/(1-q)), whose exponent stays bounded
            (``step`` would take e^{(r-1) L}); for small L ``step`` rounds less (no cancellation of r L)."""
            if bool(L < 16):
                return step(L)
            return L - one_minus_r * L + log_1mq + (log_a - log_1mq + one_minus_r * L).exp().log1p()

        lo = hi = arb(0)
        for _ in range(T):
            lo, hi = grow(lo).lower(), grow(hi).upper()
        return lo.union(hi)
    # with c < 0 (alpha < 1, conditions unchecked) the radius scheme still holds (0 < f' < 1), the shortcuts do not
    proved = _shortcuts_hold(one_minus_r, c)
    a_lt_1, a_gt_1 = proved and bool(log_a < 0), proved and bool(log_a > 0)
    if a_lt_1:
        one_minus_a = -log_a.expm1()
        L_star = (q * c.expm1() / one_minus_a).log1p() / one_minus_r
        log_rho_hi = (-(one_minus_r * one_minus_a)).log1p().upper()
        Ls_hi = L_star.upper()

        def bracket(lo: Any, hi: Any, M: int) -> tuple[Any, Any]:
            gap = (arb(M) * log_rho_hi).exp().upper() * (Ls_hi - lo)
            return (L_star - gap).lower(), Ls_hi
    elif a_gt_1:
        la_lo = log_a.lower()

        def bracket(lo: Any, hi: Any, M: int) -> tuple[Any, Any]:
            inc_hi = (log_a + (log_1mq - one_minus_r * lo - log_a).exp().log1p()).upper()
            return (lo + arb(M) * la_lo).lower(), (hi + arb(M) * inc_hi).upper()

    if a_lt_1 or a_gt_1:
        b_lo, b_hi = bracket(arb(0), arb(0), T)
        if tight(b_lo, b_hi):
            return b_lo.union(b_hi)
    _thm43_step_guard(T, "arb")
    m, rho = arb(0), arb(0)  # L_t is in [m - rho, m + rho]; m and rho exact
    for t in range(T):
        F = step(m)
        m, rho = F.mid(), (rho + F.rad()).upper()
        if (t + 1) % 64 == 0 and t + 1 < T and (a_lt_1 or a_gt_1):
            b_lo, b_hi = bracket((m - rho).lower(), (m + rho).upper(), T - t - 1)
            if tight(b_lo, b_hi):
                return b_lo.union(b_hi)
    return (m - rho).lower().union((m + rho).upper())


def thm43_log_S_np_epochs(
    K_max: np.ndarray, N: np.ndarray, q: np.ndarray, c: np.ndarray, r: np.ndarray, one_minus_r: np.ndarray
) -> list[np.ndarray]:
    """float64 Thm 4.3 for many parameter combinations at once, recording log S at every epoch.

    Args are 1-d arrays over combinations. Returns, per combination, the array of log S_k^0 for
    k = 1..K_max. Same shortcuts as :func:`thm43_log_S_mp` with a relative tolerance of 1e-15,
    applied per combination (a converged combination is frozen at L*). With the compiled loop every combination
    runs in it (about 0.1 us a step against some 20 us for a step of the array loop below, whatever the number of
    combinations up to hundreds); without it, a few combinations run in the Python loop and more in the array loop.
    """
    C = K_max.shape[0]
    if C <= 4 or _thm43_c is not None:
        return [
            _thm43_scalar_epochs(int(K_max[i]), int(N[i]), float(q[i]), float(c[i]), float(one_minus_r[i]))
            for i in range(C)
        ]
    T_max = (K_max * N).astype(np.int64)
    L = np.zeros(C)
    with np.errstate(over="ignore"):
        qe = q * np.expm1(c)
    one_minus_q = 1.0 - q
    log_a = np.log(q) + c
    with np.errstate(divide="ignore", invalid="ignore"):  # q = 1: -inf; q > 1 (n < b, no step): nan, never read
        log_1mq = np.log1p(-q)
    proved = _shortcuts_hold(one_minus_r, c)
    expanding = one_minus_r < 0  # only with the conditions unchecked
    any_expanding = bool(expanding.any())
    a_lt_1 = (log_a < 0) & proved
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        L_star = np.where(a_lt_1, np.log1p(qe / -np.expm1(np.minimum(log_a, -1e-300))) / one_minus_r, np.inf)
    out = [np.zeros(int(k)) for k in K_max]  # N = 0 (n < b, conditions unchecked): no step, log S = 0
    frozen = np.zeros(C, dtype=bool)
    L_prev = np.full(C, -1.0)
    N_int = N.astype(np.int64)
    t = 0
    total = int(T_max.max()) if C else 0
    tol = 4e-16
    while t < total:
        active = ~frozen & (t < T_max)
        if not active.any():
            break
        La = L[active]
        with np.errstate(over="ignore", invalid="ignore"):
            small = La + np.log1p(qe[active] + one_minus_q[active] * np.expm1(-one_minus_r[active] * La))
            big = La + log_a[active] + np.log1p(np.exp(log_1mq[active] - one_minus_r[active] * La - log_a[active]))
            step = np.where(log_a[active] <= 0, small, big)
            if any_expanding:  # 1 - r < 0: once (r-1) L >= 700, log(a + (1-q) e^{(r-1) L}) as a log-sum-exp
                z = -one_minus_r[active] * La
                grow = La + np.logaddexp(log_a[active], log_1mq[active] + z)
                step = np.where(expanding[active] & (z >= 700.0), grow, step)
        L[active] = step
        t += 1
        ends = active & (t % np.maximum(N_int, 1) == 0)
        if ends.any():
            for i in np.flatnonzero(ends):
                out[i][t // N_int[i] - 1] = L[i]
        if t % 64 == 0:
            with np.errstate(invalid="ignore"):  # L = inf (1 - r < 0, beyond float64): inf - inf, not a_lt_1 there
                conv = active & a_lt_1 & ((L_star - L <= tol * L_star) | (L == L_prev))
            L_prev = L.copy()
            for i in np.flatnonzero(conv):
                k_done = t // N_int[i]
                out[i][k_done:] = L_star[i]
                frozen[i] = True
            lin = active & ~frozen & (log_a > 0) & proved
            if lin.any():
                # per-step excess over log a, which only shrinks as L grows (see the mp kernel); read only where
                # lin (a combination with 1 - r < 0 may overflow here)
                with np.errstate(over="ignore"):
                    excess = np.log1p(one_minus_q * np.exp(-one_minus_r * L - log_a))
                for i in np.flatnonzero(lin & (excess <= tol * log_a)):
                    k_done = t // N_int[i]
                    ks = np.arange(k_done + 1, int(K_max[i]) + 1, dtype=np.float64)
                    M = ks * N_int[i] - t
                    out[i][k_done:] = L[i] + M * (log_a[i] + excess[i])
                    frozen[i] = True
    return out


class _Thm43Extension(Protocol):
    """What this module uses of the C extension (its interface is declared in ``_thm43.pyi``)."""

    def epochs(self, out: np.ndarray, N: int, q: float, c: float, one_minus_r: float, /) -> None: ...


_thm43_c: _Thm43Extension | None
try:  # optional compiled loop (setup.py); the pure-Python loop below is the reference
    from dptheory.papers.yeshokri22 import _thm43 as _thm43_c
except ImportError:  # pragma: no cover - depends on the build
    _thm43_c = None


def _thm43_scalar_epochs(
    K_max: int, N: int, q: float, c: float, one_minus_r: float, *, compiled: bool = True
) -> np.ndarray:
    """One combination in float64: the C loop when built, else plain Python arithmetic."""
    if N == 0:  # n < b (only with the conditions unchecked): no step, S = 1 at every epoch
        return np.zeros(K_max)
    proved = _shortcuts_hold(one_minus_r, c)
    if compiled and _thm43_c is not None and proved:  # the C loop takes the shortcuts unconditionally
        out = np.empty(K_max)
        _thm43_c.epochs(out, int(N), float(q), float(c), float(one_minus_r))
        return out

    out = np.empty(K_max)
    log_a = math.log(q) + c
    qe = q * math.expm1(c) if log_a <= 0 else math.inf
    one_minus_q = 1.0 - q
    a_lt_1 = log_a < 0 and proved
    L_star = math.log1p(qe / -math.expm1(log_a)) / one_minus_r if a_lt_1 else math.inf
    tol = 4e-16
    L = 0.0
    log1p, expm1, exp = math.log1p, math.expm1, math.exp
    log_1mq = math.log1p(-q) if q < 1 else -math.inf
    for k in range(K_max):
        if one_minus_r < 0:  # the iterates grow without bound (only with the conditions unchecked)
            for _ in range(N):
                z = -one_minus_r * L
                if z < 700.0:  # the forms below cannot overflow yet; accurate while the increment is small
                    if log_a <= 0:
                        L = L + log1p(qe + one_minus_q * expm1(z))
                    else:
                        L = L + log_a + log1p(exp(log_1mq + z - log_a))
                else:  # log(a + (1-q) e^z) as a log-sum-exp: nothing overflows
                    x, y = log_a, log_1mq + z
                    L = L + max(x, y) + log1p(exp(-abs(x - y)))
        elif log_a <= 0:  # q e^c <= 1: expm1(c) <= 1/q cannot overflow; this form is accurate near 0
            for _ in range(N):
                L = L + log1p(qe + one_minus_q * expm1(-one_minus_r * L))
        else:  # log a + log1p((1-q) e^{-(1-r) L} / a): no overflow for huge c, no cancellation
            for _ in range(N):
                L = L + log_a + log1p(exp(log_1mq - one_minus_r * L - log_a))
        stalled = k > 0 and out[k - 1] == L
        out[k] = L
        if a_lt_1 and (L_star - L <= tol * L_star or stalled):
            out[k + 1 :] = L_star
            break
        if log_a > 0 and proved:
            excess = log1p(one_minus_q * exp(-one_minus_r * L - log_a))
            if excess <= tol * log_a:
                ks = np.arange(1, K_max - k, dtype=np.float64)
                out[k + 1 :] = L + ks * N * (log_a + excess)
                break
    return out


def thm43_np(p: Mapping[str, np.ndarray]) -> np.ndarray:
    """float64 Thm 4.3 (Eq. 148-150) at broadcast points: points that differ only in K are grouped and each
    group's recurrence is run once, to its largest K."""
    names = ("alpha", "eta", "lam", "S_g", "sigma", "n", "b")
    shape = np.broadcast_shapes(*(np.shape(p[x]) for x in (*names, "K")))
    flat = {x: np.broadcast_to(p[x], shape).ravel() for x in (*names, "K")}
    keys = np.stack([flat[x] for x in names], axis=1) if flat["K"].size else np.zeros((0, len(names)))
    uniq, inv = np.unique(keys, axis=0, return_inverse=True)
    inv = inv.ravel()
    K = flat["K"].astype(np.int64)
    K_max = np.zeros(len(uniq), dtype=np.int64)
    np.maximum.at(K_max, inv, K)
    U = {x: uniq[:, i] for i, x in enumerate(names)}
    N = np.floor(U["n"] / U["b"])
    q = U["b"] / U["n"]
    c = (U["alpha"] - 1.0) * gaussian_step_rdp_np(U["alpha"], U["eta"], U["S_g"], U["sigma"], U["b"])
    one_minus_r = one_minus_r_np(U["eta"], U["lam"])
    # groups too long to iterate: the exact value is within float64 rounding of L* when
    # rho^(K N) <= 1e-17 (rho = 1 - (1-r)(1-a), see thm43_log_S_arb); otherwise refuse
    long = K_max * N > THM43_MAX_STEPS["np"]
    out = np.empty(K.shape)
    if long.any():
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            log_a = np.log(q) + c
            L_star = np.log1p(q * np.expm1(c) / -np.expm1(np.minimum(log_a, -1e-300))) / one_minus_r
            log_rho = np.log1p(one_minus_r * np.expm1(np.minimum(log_a, 0.0)))
        proved = _shortcuts_hold(one_minus_r, c)
        for i in np.flatnonzero(np.isin(inv, np.flatnonzero(long))):
            g = inv[i]
            if not (log_a[g] < 0 and proved[g] and K[i] * N[g] * log_rho[g] <= math.log(1e-17)):
                _thm43_step_guard(int(K[i] * N[g]), "np")
            out[i] = L_star[g]
    short = ~long
    idx = np.flatnonzero(short[inv])
    if idx.size:
        sub = np.flatnonzero(short)
        logS = thm43_log_S_np_epochs(K_max[sub], N[sub], q[sub], c[sub], 1.0 - one_minus_r[sub], one_minus_r[sub])
        pos = {int(g): j for j, g in enumerate(sub)}
        out[idx] = [logS[pos[int(inv[i])]][K[i] - 1] for i in idx]
    out = out / (flat["alpha"] - 1.0)
    return out.reshape(shape)


def thm43_limit_mp(q: Any, c: Any, r: Any) -> mpmath.mpf:
    """lim_{K->oo} log S_K^0 = log((1 - q)/(1 - q e^c)) / (1 - r) if q e^c < 1 and r < 1, else +inf.

    Computed as log1p(q expm1(c) / (1 - q e^c)) / (1 - r), which keeps full relative precision when
    c is tiny (then q e^c and q agree to many digits).
    """
    log_a = mpmath.log(q) + c
    if log_a >= 0 or r >= 1:  # r >= 1 (eta lam >= 2, conditions unchecked): the iterates grow without bound
        return mpmath.inf
    return mpmath.log1p(q * mpmath.expm1(c) / -mpmath.expm1(log_a)) / (1 - r)
