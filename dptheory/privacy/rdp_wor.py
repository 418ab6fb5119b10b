"""RDP of the Gaussian mechanism on batches drawn without replacement (replace-one neighbours), composed over T steps.

Declarations only; kernels (mpmath, float64, arb) in :mod:`dptheory.privacy.wor`.

* ``rdp.sampled_wor_gaussian``: Wang, Balle, Kasiviswanathan 2019 (WBK19), "Subsampled Renyi
  Differential Privacy and Analytical Moments Accountant", AISTATS 2019, arXiv 1808.00087, Theorem 9
  (integer orders) with Corollary 10 (fractional orders), for the Gaussian mechanism
  (``eps(j) = j/(2 z^2)``, ``eps(inf) = inf``), composed linearly over ``T`` steps.

Neighbouring relation: **replace-one** (datasets of the same size ``n`` that differ in one record);
WBK19's subsampling draws ``m`` distinct records uniformly without replacement. ``z`` is the noise
standard deviation divided by the l2 sensitivity of the batch query under replace-one.

Parameter choice: ``q`` is the ratio ``gamma = m/n`` (WBK19's notation), not the pair ``(m, n)``.
Theorem 9 depends on ``m`` and ``n`` only through ``gamma``, every rational ``q`` in ``(0, 1]`` is
``m/n`` for some integers, and the same ``(alpha, q, z, T)`` signature as ``rdp.subsampled_gaussian``
lets the two be compared point by point. Values are exact rationals, so ``q = "2/50"`` is exactly
``b/n`` of Ye & Shokri's Thm 4.3 scheme (mini-batches of ``b`` distinct records every iteration).
"""

from __future__ import annotations

import sympy as sp

from dptheory.core import paperfile
from dptheory.core.conditions import Condition
from dptheory.core.registry import REGISTRY
from dptheory.core.theorem import Theorem
from dptheory.core.units import Direction, Monotone
from dptheory.privacy import wor

_PAPERFILE = paperfile.load(__name__, "rdp_wor.toml")
WBK19 = _PAPERFILE.paper("wbk19")

NOTATION = _PAPERFILE.notation("rdp_wor")
alpha, q, z, T = NOTATION.symbols("alpha", "q", "z", "T")
_k = sp.Symbol("k", integer=True, positive=True)
_j = sp.Symbol("j", integer=True, positive=True)
_B = sp.Function("B")

C_ALPHA = Condition(alpha > 1, "the Renyi order must exceed 1")
C_Q = Condition(q <= 1, "a sampling fraction m/n is at most 1")

# WBK19 Theorem 9 with eps(j) = j/(2 z^2) and eps(inf) = inf (so min{2, (e^eps(inf) - 1)^j} = 2), at an
# integer order k; B(1) = 1 (empty sum, C(1, 2) = 0).
_THM9 = sp.Eq(
    _B(_k),
    1
    + q**2 * sp.binomial(_k, 2) * sp.Min(4 * (sp.exp(1 / z**2) - 1), 2 * sp.exp(1 / z**2))
    + sp.Sum(2 * q**_j * sp.binomial(_k, _j) * sp.exp(_j * (_j - 1) / (2 * z**2)), (_j, 3, _k)),
)
# Corollary 10: the CGF bound log B is interpolated linearly between floor(alpha) and ceiling(alpha);
# at an integer alpha this is T log B(alpha) / (alpha - 1).
_COR10 = sp.Le(
    sp.Symbol("varepsilon"),
    T
    * (
        (1 - (alpha - sp.floor(alpha))) * sp.log(_B(sp.floor(alpha)))
        + (alpha - sp.floor(alpha)) * sp.log(_B(sp.ceiling(alpha)))
    )
    / (alpha - 1),
)


SAMPLED_WOR_GAUSSIAN = REGISTRY.add(
    Theorem(
        key="rdp.sampled_wor_gaussian",
        title="RDP of the Gaussian mechanism on batches sampled without replacement, composed over T steps",
        citation=WBK19.item(
            "Theorem 9 and Corollary 10",
            note="general upper bound with eps(j) = j/(2 z^2), eps(inf) = inf; replace-one neighbours",
        ),
        notation=NOTATION,
        params=("alpha", "q", "z", "T"),
        conditions=(C_ALPHA, C_Q),
        assumptions=(
            "neighbouring datasets: same size n, one record replaced (replace-one); n is public",
            "each step draws m = q n distinct records uniformly without replacement, independently of other steps",
            "z = noise std / l2 sensitivity of the batch query under replace-one",
        ),
        statement=(_THM9, _COR10),
        direction=Direction.UPPER,
        quantity="RDP epsilon at order alpha of T steps (replace-one neighbours, fixed-size batches without "
        "replacement, sampling fraction q = m/n)",
        mp=wor.theorem_mp,
        np=wor.theorem_np,
        arb=wor.theorem_arb,
        kernel_reason=(
            "Thm 9 is a sum over j = 2..alpha of terms that overflow float64, summed in the log domain "
            "(log-sum-exp over runs of kept terms); Cor 10 interpolates at fractional orders; the arb "
            "kernel (privacy/wor/arb.py) sums the same finite series on balls"
        ),
        monotone={"T": Monotone.INCREASING, "q": Monotone.INCREASING, "z": Monotone.DECREASING},
        reading="Theorem 9 read with the Gaussian's eps(inf) = inf, so every min{2, (e^eps(inf) - 1)^j} is 2 and the "
        "j = 2 term is min{4(e^eps(2) - 1), 2 e^eps(2)}; fractional orders by Corollary 10 (linear interpolation of "
        "log B between floor(alpha) and floor(alpha) + 1, with log B(1) = 0). q = 1 keeps Theorem 9's value, which "
        "is above the plain Gaussian alpha/(2 z^2) (dp-accounting returns the latter at q = 1).",
        notes="Neighbouring relation: replace-one. q is the ratio gamma = m/n (the bound depends on m, n only "
        "through it). Not monotone in alpha in general (e.g. q = 0.04, z = 10: alpha = 300 gives less than "
        "alpha = 257). dp-accounting's SampledWithoutReplacementDpEvent takes the termwise minimum with WBK19's "
        "Theorem 27 for alpha <= 256, so it is lower there; see docs/privacy_baselines.md.",
    )
)
for _run_map in _PAPERFILE.run_maps:  # how it reads a training run (dptheory compare --run)
    REGISTRY.add_run_map(_run_map)
