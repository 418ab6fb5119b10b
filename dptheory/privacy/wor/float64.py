"""Without-replacement sampled Gaussian (WBK19, arXiv 1808.00087, Thm 9 / Cor 10): the float64 kernels
:func:`log_b_np`, :func:`rdp_np`, with the mpmath fallback (package docstring: :mod:`dptheory.privacy.wor`)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dptheory.privacy.sgm.float64 import log1p_streamed_sum, recompute_mp, refuse_nan
from dptheory.privacy.wor.mp import GUARD, cgf_mp
from dptheory.privacy.wor.terms import log_terms
from dptheory.privacy.wor.validate import validate_np

__all__ = ["FALLBACK_DPS", "FALLBACK_RTOL", "log_b_np", "rdp_np", "theorem_np"]

_ROW_CHUNK = 512
FALLBACK_RTOL = 1e-11  # float64 points with a larger estimated relative error are recomputed in mp
FALLBACK_DPS = 30  # precision of that recomputation
_EPS = float(np.finfo(np.float64).eps)


def _log_b_int_np(
    n: NDArray[np.float64], lg: NDArray[np.float64], lz: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """float64 ``K(n) = log B_n`` at integer orders ``n >= 2`` (any order of rows) and its estimated relative error."""
    order = np.argsort(n, kind="stable")
    out = np.empty_like(n)
    rel = np.empty_like(n)
    for r0 in range(0, n.size, _ROW_CHUNK):
        idx = order[r0 : r0 + _ROW_CHUNK]
        nn, gg, zz = n[idx, None], lg[idx, None], lz[idx, None]
        ncols = int(nn.max()) - 1  # j = 2 .. max n

        def block(lo: int, hi: int, nn=nn, gg=gg, zz=zz) -> tuple[NDArray, NDArray]:
            j = np.arange(2 + lo, 2 + hi, dtype=np.float64)[None, :]
            lt, sc = log_terms(nn, gg, zz, j)
            inside = j <= nn
            return np.where(inside, lt, -np.inf), np.where(inside, sc, 0.0)

        k, rel_k = log1p_streamed_sum(nn.shape[0], ncols, block)
        out[idx] = k
        rel[idx] = rel_k + 2.0 * _EPS
    return out, rel


def log_b_np(alpha: ArrayLike, q: ArrayLike, z: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """float64 ``K(alpha) = log B_alpha`` of WBK19 Thm 9 at integer orders, with an estimated relative error.

    No validation and no fallback (building block of :func:`rdp_np`; exposed for tests): ``alpha``
    integer-valued ``>= 1``, ``0 < q <= 1``, ``z > 0``. Order 1 gives 0.
    """
    arrays = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (alpha, q, z)))
    shape = arrays[0].shape
    n, qq, zz = (np.ascontiguousarray(x).ravel() for x in arrays)
    out = np.zeros(n.shape)
    rel = np.zeros(n.shape)
    work = np.nonzero(n >= 2)[0]
    if work.size:
        with np.errstate(all="ignore"):
            k, r = _log_b_int_np(n[work], np.log(qq[work]), np.log(zz[work]))
        out[work] = k
        rel[work] = r
    return out.reshape(shape), rel.reshape(shape)


def rdp_np(alpha: ArrayLike, q: ArrayLike, z: ArrayLike, T: ArrayLike) -> NDArray[np.float64]:
    """float64 RDP bound of WBK19 Thm 9 / Cor. 10 (Gaussian, WOR batches, replace-one), broadcast over inputs.

    Same quantity as :func:`rdp_mp`. The integer orders needed (``alpha`` or ``floor``/``floor + 1``)
    are deduplicated per ``(order, q, z)`` and summed by a streaming log-sum-exp. Points whose estimated
    relative error exceeds ``FALLBACK_RTOL``, or whose float64 value is not finite, are recomputed with
    :func:`rdp_mp` at ``FALLBACK_DPS`` digits; ``+inf`` only where the true value overflows float64.

    Raises:
        InvalidParameter: a parameter outside its domain (the message names it and its flat index).
    """
    arrays = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (alpha, q, z, T)))
    shape = arrays[0].shape
    a, qq, zz, tt = (np.ascontiguousarray(x).ravel() for x in arrays)
    validate_np(a, qq, zz, tt)
    out = np.zeros(a.shape)
    work = np.nonzero((qq > 0) & (tt > 0))[0]
    if work.size:
        aw, qw, zw, tw = a[work], qq[work], zz[work], tt[work]
        f = np.floor(aw)
        frac = aw - f
        # integer orders needed: f, and f + 1 where alpha is fractional (order 1 contributes K = 0)
        need = np.concatenate([np.stack([f, qw, zw], axis=1), np.stack([f + 1.0, qw, zw], axis=1)[frac > 0]])
        uniq, inverse = np.unique(need, axis=0, return_inverse=True)
        inverse = inverse.ravel()
        k_u, rel_u = log_b_np(uniq[:, 0], uniq[:, 1], uniq[:, 2])
        k_f, rel_f = k_u[inverse[: work.size]], rel_u[inverse[: work.size]]
        k_c = np.zeros(work.size)
        rel_c = np.zeros(work.size)
        k_c[frac > 0] = k_u[inverse[work.size :]]
        rel_c[frac > 0] = rel_u[inverse[work.size :]]
        with np.errstate(all="ignore"):
            cgf = (1.0 - frac) * k_f + frac * k_c
            vals = tw * (cgf / (aw - 1.0))
            rel = np.maximum(rel_f, rel_c) + 4.0 * _EPS
        bad = ~(rel <= FALLBACK_RTOL) | ~np.isfinite(vals)
        # rdp_mp's arithmetic at FALLBACK_DPS digits, with the bound on the CGF computed once per (alpha, q, z)
        recompute_mp(
            vals,
            bad,
            key_of=lambda k: (float(aw[k]), float(qw[k]), float(zw[k])),
            log_of=lambda key: cgf_mp(key[0], key[1], key[2], FALLBACK_DPS),
            alpha_of=lambda key: key[0],
            steps_of=lambda k: float(tw[k]),
            dps=FALLBACK_DPS,
            guard=GUARD,
        )
        out[work] = vals
    refuse_nan(out, "sampled_wor.rdp_np", a, qq, zz, tt)
    return out.reshape(shape)


def theorem_np(p: Mapping[str, NDArray[np.float64]]) -> NDArray[np.float64]:
    """The float64 kernel of ``rdp.sampled_wor_gaussian`` (WBK19 Thm 9, Cor 10): :func:`rdp_np` on its parameters."""
    return rdp_np(p["alpha"], p["q"], p["z"], p["T"])
