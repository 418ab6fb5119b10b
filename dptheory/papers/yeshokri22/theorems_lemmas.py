"""The lemmas of Ye & Shokri 2022 (arXiv 2203.05363) and Thm D.5 at every batch position, as registered theorems.

* Lemma 3.2 (Eq. 2; proof in Sec. D.2, Eq. 68 and Eq. 70): one step of Algorithm 1, two cases: the differing
  record off the mini-batch (``lemma3_2_out``: amplification by post-processing, the order moves from alpha' to
  alpha) and in it (``lemma3_2_in``: composition with one Gaussian step).
* Lemma D.1 (Eq. 17; Vempala and Wibisono 2019, Lemma 5): the lower bound on I_alpha/E_alpha under a log-Sobolev
  inequality.
* Lemma D.2 (Eq. 71): the log-Sobolev constants of the iterates for a convex smooth loss (the strongly convex
  case, Lemma D.3, is in :mod:`dptheory.papers.yeshokri22.theorems`).
* Thm D.5 (Eq. 111): Balle et al. 2019 (Thm 5) translated to Algorithm 1, one epoch, record in batch j0 (the
  Figure 1 baselines ``balle_first``/``balle_last`` are its j0 = 0 value composed over the epochs).

Registered by :mod:`dptheory.papers.yeshokri22.claims` (its last lines import this module: it imports
:mod:`dptheory.papers.yeshokri22.theorems`, which therefore cannot import it back). Reading decisions:
``docs/yeshokri22.md``; the lemmas' parameters (``c_lsi``, ``L_f``, ``eps_prev``, ``R_alpha``, ``dR_alpha``) are rows
of the paper's notation table (``paper.toml``); the paper's ``L`` of Lemma 3.2 is ``L_f`` here (``L`` is the
feature clipping norm of Sec. 5).
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from dptheory.core.conditions import Condition
from dptheory.core.registry import REGISTRY
from dptheory.core.theorem import Theorem
from dptheory.core.units import Direction, Monotone, Unit
from dptheory.papers.yeshokri22.theorems import (
    BALLE_FACTOR,
    C_ALPHA,
    C_ETA_BALLE,
    C_ETA_CONVEX,
    C_J,
    C_J0,
    C_LAM_BETA,
    C_N1,
    C_N2,
    NOTATION,
    PAPER,
    THETA0_POINT_MASS,
    G_sym,
    N_sym,
    al,
    eta,
    j0,
    j_,
    k_,
    lsi_sequence,
    sigma,
)

c_lsi, L_f, eps_prev, R_a, dR_a = NOTATION.symbols("c_lsi", "L_f", "eps_prev", "R_alpha", "dR_alpha")

#: 1 + c 2 eta sigma^2/L^2: the factor by which Lemma 3.2 divides the order (minus 1) and the divergence per order
LEMMA3_2_SHRINK = 1 + c_lsi * 2 * eta * sigma**2 / L_f**2
#: alpha' = (alpha - 1)/(1 + c 2 eta sigma^2/L^2) + 1, the order at which Lemma 3.2 reads the previous divergence
LEMMA3_2_ORDER = (al - 1) / LEMMA3_2_SHRINK + 1

_NEXT = "Renyi divergence R_alpha between the next iterates theta_k^{j+1}, theta'_k^{j+1}"
_ONE_STEP = ("one step of Algorithm 1 on a fixed mini-batch B_k^j", "differing record i0")


def _add(name: str, title: str, item: str, eq: int, params: tuple[str, ...], **fields: Any) -> Theorem:
    """Register ``yeshokri22.<name>`` (an upper bound unless ``direction`` says otherwise), cited as ``item``."""
    fields.setdefault("direction", Direction.UPPER)
    return REGISTRY.add(
        Theorem(
            key=f"yeshokri22.{name}",
            title=title,
            citation=PAPER.item(item, eq=eq),
            notation=NOTATION,
            params=params,
            **fields,
        )
    )


# ----------------------------------------------------------------------------- Lemma 3.2
LEMMA3_2_OUT = _add(
    "lemma3_2_out",
    "One noisy step, differing record off the mini-batch: amplification by post-processing",
    "Lemma 3.2",
    2,
    ("alpha", "eta", "sigma", "c_lsi", "L_f", "eps_prev"),
    conditions=(C_ALPHA,),
    assumptions=(
        _ONE_STEP[0],
        f"{_ONE_STEP[1]} not in B_k^j",
        "the laws of theta_k^j and theta'_k^j satisfy LSI with constant c",
        "the map f(theta) = theta - eta (1/b) sum_{i in B} grad l(theta; x_i) is L-Lipschitz",
        "eps_prev = R_{alpha'}(theta_k^j || theta'_k^j), alpha' = (alpha - 1)/(1 + c 2 eta sigma^2/L^2) + 1",
    ),
    bound=al / LEMMA3_2_ORDER * eps_prev / LEMMA3_2_SHRINK,
    quantity=_NEXT + " (record off the batch)",
    monotone={"eps_prev": Monotone.INCREASING, "c_lsi": Monotone.DECREASING},
    reading="Eq. 2, first case, multiplied by alpha: R_alpha(next) <= (alpha/alpha') eps_prev/(1 + c 2 eta sigma^2/"
    "L^2); the paper's L (Lipschitz constant of f) is L_f here.",
    notes="Tight for Gaussian laws: theta ~ N(m, s^2 I) vs N(m', s^2 I) (c = 1/s^2) through f(theta) = L theta "
    "gives exactly the bound (known values).",
)

LEMMA3_2_IN = _add(
    "lemma3_2_in",
    "One noisy step, differing record in the mini-batch: composition with one Gaussian step",
    "Lemma 3.2",
    2,
    ("alpha", "eta", "S_g", "sigma", "b", "eps_prev"),
    conditions=(C_ALPHA,),
    assumptions=(
        _ONE_STEP[0],
        f"{_ONE_STEP[1]} in B_k^j",
        "gradient l2-sensitivity S_g (the batch average moves by at most S_g/b)",
        "eps_prev = R_alpha(theta_k^j || theta'_k^j), at the same order",
    ),
    bound=eps_prev + G_sym,
    quantity=_NEXT + " (record in the batch)",
    monotone={"eps_prev": Monotone.INCREASING, "S_g": Monotone.INCREASING},
    reading="Eq. 2, second case, multiplied by alpha (Eq. 69-70): R_alpha(next) <= eps_prev + alpha eta S_g^2/"
    "(4 sigma^2 b^2).",
)

# ----------------------------------------------------------------------------- Lemma D.1
LEMMAD_1 = _add(
    "lemmaD_1",
    "Renyi information under a log-Sobolev inequality (Vempala and Wibisono 2019, Lemma 5)",
    "Lemma D.1",
    17,
    ("alpha", "c_lsi", "R_alpha", "dR_alpha"),
    conditions=(Condition(al >= 1, "the Renyi order is at least 1 (Lemma D.1)"),),
    assumptions=(
        "nu satisfies LSI with constant c and has a smooth density; mu has a smooth density",
        "R_alpha = R_alpha(mu || nu), dR_alpha = its derivative in alpha",
    ),
    bound=2 * c_lsi / al**2 * R_a + 2 * c_lsi / al**2 * al * (al - 1) * dR_a,
    direction=Direction.LOWER,
    unit=Unit.DIMENSIONLESS,
    quantity="I_alpha(mu || nu)/E_alpha(mu || nu) (Renyi information over the alpha-th moment of the likelihood "
    "ratio; units 1/theta^2)",
    monotone={"R_alpha": Monotone.INCREASING, "dR_alpha": Monotone.NONDECREASING, "c_lsi": Monotone.NONDECREASING},
    notes="Equality for Gaussian location pairs N(m, s^2 I), N(m', s^2 I) with c = 1/s^2 (known values: quadrature "
    "of I_alpha and E_alpha).",
)

# ----------------------------------------------------------------------------- Lemma D.2
LEMMAD_2 = _add(
    "lemmaD_2",
    "LSI constant of the iterates of Algorithm 1 (convex smooth loss)",
    "Lemma D.2",
    71,
    ("eta", "beta", "sigma", "n", "b", "k", "j"),
    conditions=(C_ETA_CONVEX, C_N1, C_J),
    assumptions=("loss convex and beta-smooth (f is 1-Lipschitz)", THETA0_POINT_MASS),
    **lsi_sequence(k_ * N_sym + j_),
    reading="n/b read as N = floor(n/b) (footnote 3).",
)

# ----------------------------------------------------------------------------- Thm D.5 (Balle et al. 2019, Thm 5)
#: Eq. 111 for j0 <= N - 2 is the Figure 1 baseline's one-epoch factor (record in the first batch) with N replaced by
#: N - j0: the formula is written once, as BALLE_FACTOR in theorems.py
THMD_5_BOUND = sp.Piecewise((G_sym, sp.Eq(j0, N_sym - 1)), (BALLE_FACTOR.xreplace({N_sym: N_sym - j0}), True))

THMD_5 = _add(
    "thmD_5",
    "Balle et al. 2019 (Thm 5) translated to Algorithm 1: one epoch, record in batch j0",
    "Theorem D.5",
    111,
    ("alpha", "eta", "lam", "beta", "S_g", "sigma", "n", "b", "j0"),
    conditions=(C_ALPHA, C_ETA_BALLE, C_LAM_BETA, C_N2, C_J0),
    assumptions=(
        "loss L-Lipschitz, beta-smooth, lambda-strongly convex (L replaced by eta S_g / 2, Sec. D.6)",
        "one pass over a fixed partition B^0..B^{N-1}; differing record in B^{j0}",
    ),
    bound=THMD_5_BOUND,
    np_flagged=True,  # 1 - 2 eta beta lam/(beta + lam) cancels near the step-size limit (as the Figure 1 baselines)
    quantity="RDP epsilon at order alpha after one epoch, record in batch j0",
    monotone={"j0": Monotone.NONDECREASING},
    reading="Eq. 111 with L -> eta S_g/2 (Sec. D.6), so alpha 2 (L/b)^2/(2 eta sigma^2) = G; n/b read as N = "
    "floor(n/b) (footnote 3), the exponent (n/b - j0)/2 as (N - j0)/2.",
)
