"""Peer accountants used as independent references by the tests and the benchmarks.

prv-accountant (Gopi, Lee & Wutschitz 2021, "Numerical Composition of Differential Privacy",
arXiv 2106.02848) brackets the epsilon of the Poisson-subsampled Gaussian mechanism composed over many
steps; it shares no code with dp-accounting's PLD (which ``dptheory.privacy.pld`` wraps), so the
two brackets overlapping is an independent check. Imported only where used (a test/bench dependency).
"""

from __future__ import annotations

import warnings


def prv_epsilon_bracket(q: float, z: float, steps: int, delta: float, eps_error: float) -> tuple[float, float, float]:
    """prv-accountant's (lower, estimate, upper) epsilon at ``delta`` for ``steps`` compositions of the
    Poisson-subsampled Gaussian mechanism (sampling rate ``q``, noise multiplier ``z``); ``eps_error`` is
    the accountant's target epsilon error (``delta_error`` is ``delta / 1000``)."""
    from prv_accountant import PRVAccountant
    from prv_accountant.privacy_random_variables import PoissonSubsampledGaussianMechanism

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        acc = PRVAccountant(
            prvs=[PoissonSubsampledGaussianMechanism(sampling_probability=q, noise_multiplier=z)],
            eps_error=eps_error,
            delta_error=delta / 1000,
            max_self_compositions=[steps],
        )
        lo, est, up = acc.compute_epsilon(delta=delta, num_self_compositions=[steps])
    return float(lo), float(est), float(up)
