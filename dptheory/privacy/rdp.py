"""RDP of the Gaussian and the Poisson-subsampled Gaussian mechanisms, composed over T steps.

Declarations only; kernels (mpmath, float64, arb) in :mod:`dptheory.privacy.sgm`.

* ``rdp.gaussian``: T alpha / (2 z^2) (Mironov 2017, Prop. 7, sensitivity 1, noise multiplier z).
* ``rdp.subsampled_gaussian``: T log(A_alpha)/(alpha - 1) with
  A_alpha = E_{x~N(0,z^2)}[((1-q) + q exp((2x-1)/(2z^2)))^alpha] (Mironov, Talwar, Zhang 2019,
  arXiv 1908.10530, Sec. 3.3). Integer orders: the exact binomial sum. Fractional orders: the
  signed two-sided series of Sec. 3.3, validated against direct quadrature of the integral.

Neighbouring relations (the sensitivity behind ``z`` must be measured under the same one):

* ``rdp.gaussian``: any relation. ``D_alpha(N(0, z^2) || N(1, z^2))`` is the RDP of a query with l2
  sensitivity 1 under whichever relation the sensitivity is taken for (add/remove-one or replace-one).
* ``rdp.subsampled_gaussian``: **add/remove-one** (MTZ19 compare ``D`` and ``D`` plus one record, Poisson
  sampling); ``z`` = noise std / l2 norm of one record's contribution. It is not a replace-one
  guarantee with ``z`` taken from a replace-one sensitivity: under Poisson sampling the batch size is
  random, so a data-independent offset in every record's contribution (e.g. the ``lambda theta`` of a
  strongly convex per-example loss) makes the replace-one RDP approach
  ``log(1 - q + q e^{alpha (alpha-1)/(2 z^2)})/(alpha - 1)``, of order ``q`` rather than ``q^2``
  (docs/privacy_baselines.md).
* ``rdp.sampled_wor_gaussian`` (:mod:`.rdp_wor`): **replace-one**, fixed-size batches drawn without
  replacement (Wang, Balle, Kasiviswanathan 2019).
"""

from __future__ import annotations

import sympy as sp

from dptheory.core import paperfile
from dptheory.core.conditions import Condition
from dptheory.core.registry import REGISTRY
from dptheory.core.theorem import Theorem
from dptheory.core.units import Direction, Monotone
from dptheory.privacy import sgm

_PAPERFILE = paperfile.load(__name__, "rdp.toml")
MIRONOV17 = _PAPERFILE.paper("mironov17")
MTZ19 = _PAPERFILE.paper("mtz19")

NOTATION = _PAPERFILE.notation("rdp")
alpha, q, z, T = NOTATION.symbols("alpha", "q", "z", "T")
x = sp.Symbol("x", real=True)

C_ALPHA = Condition(alpha > 1, "the Renyi order must exceed 1")
C_Q = Condition(q <= 1, "a sampling probability is at most 1")


GAUSSIAN = REGISTRY.add(
    Theorem(
        key="rdp.gaussian",
        title="RDP of the Gaussian mechanism composed over T steps",
        citation=MIRONOV17.item("Proposition 7"),
        notation=NOTATION,
        params=("alpha", "z", "T"),
        conditions=(C_ALPHA,),
        bound=T * alpha / (2 * z**2),
        direction=Direction.EXACT,
        quantity="Renyi divergence of order alpha between N(0, z^2) and N(1, z^2), times T",
        monotone={"T": Monotone.INCREASING, "alpha": Monotone.INCREASING},
        notes="Neighbouring relation: any; z is the noise std divided by the l2 sensitivity under the relation used "
        "(add/remove-one or replace-one).",
    )
)

SUBSAMPLED_GAUSSIAN = REGISTRY.add(
    Theorem(
        key="rdp.subsampled_gaussian",
        title="RDP of the Poisson-subsampled Gaussian mechanism composed over T steps",
        citation=MTZ19.item("Section 3.3"),
        notation=NOTATION,
        params=("alpha", "q", "z", "T"),
        conditions=(C_ALPHA, C_Q),
        statement=(
            sp.Eq(
                sp.Symbol("A_alpha"),
                sp.Integral(
                    sp.exp(-(x**2) / (2 * z**2))
                    / (z * sp.sqrt(2 * sp.pi))
                    * ((1 - q) + q * sp.exp((2 * x - 1) / (2 * z**2))) ** alpha,
                    (x, -sp.oo, sp.oo),
                ),
            ),
            sp.Eq(sp.Symbol("varepsilon"), T * sp.log(sp.Symbol("A_alpha")) / (alpha - 1)),
        ),
        direction=Direction.EXACT,
        quantity="RDP epsilon at order alpha of T compositions (add/remove-one neighbours, sensitivity 1)",
        mp=sgm.theorem_mp,
        np=sgm.theorem_np,
        arb=sgm.theorem_arb,
        slow_fractional=("alpha",),
        kernel_reason=(
            "A_alpha is an integral: the exact binomial sum at integer orders, the signed two-sided "
            "series with a bounded tail at fractional orders (MTZ19 Sec. 3.3); the arb kernel "
            "(privacy/sgm/arb.py) certifies every order (fractional: CVZ tail bound, "
            "docs/derivations/sgm_fractional_tail.md)"
        ),
        monotone={"T": Monotone.INCREASING, "alpha": Monotone.NONDECREASING},
        reading="integer orders: exact binomial sum; fractional orders: the signed series of MTZ19 Sec. 3.3 "
        "(dp-accounting 0.6.0 sums absolute values there and is too high; see docs/peers.md).",
        notes="Neighbouring relation: add/remove-one (MTZ19, Poisson sampling); z = noise std / l2 norm of one "
        "record's contribution. Not a replace-one guarantee when z comes from a replace-one sensitivity; for "
        "replace-one neighbours and fixed-size batches without replacement use rdp.sampled_wor_gaussian (see "
        "docs/privacy_baselines.md).",
    )
)
