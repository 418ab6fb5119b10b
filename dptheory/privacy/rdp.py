"""RDP of the Gaussian and the Poisson-subsampled Gaussian mechanisms, composed over T steps.

Declared as data in ``rdp.toml`` (``[[theorem]]`` tables, parsed without running code by
:mod:`dptheory.core.paperfile`); kernels (mpmath, float64, arb) in :mod:`dptheory.privacy.sgm`.

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

from dptheory.core import paperfile
from dptheory.core.registry import REGISTRY

_PAPERFILE = paperfile.load(__name__, "rdp.toml")
MIRONOV17 = _PAPERFILE.paper("mironov17")
MTZ19 = _PAPERFILE.paper("mtz19")
NOTATION = _PAPERFILE.notation("rdp")

_THEOREMS = {t.key: REGISTRY.add(t) for t in _PAPERFILE.theorems()}
for _run_map in _PAPERFILE.run_maps:  # how each reads a training run (dptheory compare --run)
    REGISTRY.add_run_map(_run_map)
GAUSSIAN = _THEOREMS["rdp.gaussian"]
SUBSAMPLED_GAUSSIAN = _THEOREMS["rdp.subsampled_gaussian"]
