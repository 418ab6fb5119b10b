"""Independent known values of the generic RDP family (``rdp.*``: Mironov 2017; Mironov, Talwar, Zhang 2019;
Wang, Balle, Kasiviswanathan 2019), registered by ``dptheory.privacy``.

Imports nothing of dptheory (tests/test_known_values.py checks it): the helpers the generators share
(``dptheory/testing/known_values_gen.py``: exact inputs, formatting, the writer, routes several papers use) are loaded
by their path. Run from anywhere:

    python dptheory/privacy/known_values.py

to rewrite ``known_values.csv`` next to this file (the tests never regenerate it).
"""

from __future__ import annotations

import importlib
import importlib.util
import math
import sys
from fractions import Fraction
from importlib.metadata import version
from pathlib import Path
from typing import Any

import mpmath


def _common() -> Any:
    """The generators' shared helpers, by path (as ``dptheory.testing.known_values_gen`` it would import dptheory)."""
    spec = importlib.util.spec_from_file_location(
        "known_values_gen", Path(__file__).resolve().parents[1] / "testing" / "known_values_gen.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


kv = _common()
F, add, dpacc_poisson_gaussian_rdp, sgm_log_a_quad = kv.F, kv.add, kv.dpacc_poisson_gaussian_rdp, kv.sgm_log_a_quad
Row = dict[str, str]
HERE = Path(__file__).resolve().parent


def have_autodp() -> bool:
    """Whether the peer autodp is importable (put on ``PYTHONPATH`` by hand: it is no dependency of dptheory, not
    even a dev one; it is imported through importlib so that mypy, which has no autodp, checks this file, and
    deptry is told of it in pyproject.toml)."""
    try:
        importlib.import_module("autodp")
    except ImportError:
        print("autodp not importable: its rows are skipped", file=sys.stderr)
        return False
    return True


def generate() -> list[Row]:
    fam: list[Row] = []
    alpha: Any  # a decimal string for the 60-digit rows, an int for the integer orders of autodp and WBK19
    for alpha, z, T in [("2", "1", 3), ("1.5", "0.7", 1), ("32", "4", 1000)]:
        p = {"alpha": alpha, "z": z, "T": T}
        add(
            fam,
            "rdp.gaussian",
            p,
            dpacc_poisson_gaussian_rdp(float(alpha), 1.0, float(z), T),
            "peer",
            f"dp-accounting {version('dp-accounting')} RdpAccountant(GaussianDpEvent) composed T times, float64",
            rel_tol="1e-13",
        )
    for alpha, q, z, T in [
        ("2", "0.04", "1", 2500),
        ("2.5", "0.04", "1", 2500),
        ("10", "0.04", "10", 1250),
        ("1.5", "0.01", "0.8", 7),
        ("32", "0.25", "3", 3),
    ]:
        p = {"alpha": alpha, "q": q, "z": z, "T": T}
        v = T * sgm_log_a_quad(F(alpha), F(q), F(z)) / (F(alpha) - 1)
        add(
            fam,
            "rdp.subsampled_gaussian",
            p,
            v,
            "brute-force",
            "Mironov, Talwar, Zhang 2019 (arXiv 1908.10530) Sec. 3.3: A_alpha as the Gaussian integral, mpmath.quad at "
            "60 digits",
            rel_tol="1e-30",
        )
        if Fraction(alpha).denominator != 1:
            # dp-accounting 0.6.0 at a fractional order is NOT the exact RDP: at (alpha, q, z) = (1.5, 0.01, 0.8)
            # it gives 2.9566e-4 per step against the exact 2.7331e-4 (the quadrature above; B_alpha, the other
            # direction, is 2.4456e-4), at (2.5, 0.04, 1) 3.6241e-3 against 3.5971e-3; at integer orders it agrees
            # to 1e-15. It is a valid upper bound there, not a known value: no peer row.
            continue
        add(
            fam,
            "rdp.subsampled_gaussian",
            p,
            dpacc_poisson_gaussian_rdp(float(alpha), float(q), float(z), T),
            "peer",
            f"dp-accounting {version('dp-accounting')} RdpAccountant(PoissonSampledDpEvent(GaussianDpEvent)), float64",
            rel_tol="1e-9",
        )
    if not have_autodp():  # the rows already written by autodp stay, in their place
        fam += [r for r in kv.read_rows(HERE / "known_values.csv") if r["source"].startswith("autodp ")]
    else:
        rdp_acct, rdp_bank = (importlib.import_module(f"autodp.{m}") for m in ("rdp_acct", "rdp_bank"))

        av = version("autodp")
        for alpha, z, T in [("2", "1", 3), ("32", "4", 1000)]:
            add(
                fam,
                "rdp.gaussian",
                {"alpha": alpha, "z": z, "T": T},
                T * rdp_bank.RDP_gaussian({"sigma": float(z)}, float(alpha)),
                "peer",
                f"autodp {av} rdp_bank.RDP_gaussian times T, float64",
                rel_tol="1e-13",
            )
        for alpha, q, z, T in [(2, "0.04", "1", 2500), (10, "0.04", "10", 1250), (7, "0.25", "3", 3)]:
            acct = rdp_acct.anaRDPacct()
            acct.compose_poisson_subsampled_mechanisms(
                lambda x, z=z: rdp_bank.RDP_gaussian({"sigma": float(z)}, x), float(q), coeff=T
            )
            add(
                fam,
                "rdp.subsampled_gaussian",
                {"alpha": alpha, "q": q, "z": z, "T": T},
                float(acct.get_rdp([alpha])[0]),
                "peer",
                f"autodp {av} anaRDPacct.compose_poisson_subsampled_mechanisms (integer order: exact formula), float64",
                rel_tol="1e-9",
            )
        for alpha, q, z, T in [
            (2, "0.04", "1", 1),
            (3, "0.04", "2", 5),
            (10, "0.04", "10", 1250),
            (5, "0.25", "0.8", 3),
            (32, "0.01", "3", 7),
        ]:
            acct = rdp_acct.anaRDPacct()
            acct.compose_subsampled_mechanism(
                lambda x, z=z: rdp_bank.RDP_gaussian({"sigma": float(z)}, x), float(q), coeff=T
            )
            add(
                fam,
                "rdp.sampled_wor_gaussian",
                {"alpha": alpha, "q": q, "z": z, "T": T},
                float(acct.get_rdp([alpha])[0]),
                "peer",
                f"autodp {av} anaRDPacct.compose_subsampled_mechanism (Wang, Balle, Kasiviswanathan 2019 Thm 9, "
                "by its first author's library; integer order), float64",
                rel_tol="1e-12",
            )
    # WBK19 Theorem 9 at an integer order, re-typed (eps(j) = j/(2 z^2) for the Gaussian)
    for alpha, q, z, T in [(3, "0.04", "2", 5), (5, "0.25", "0.8", 3)]:
        g, zz = F(q), F(z)

        def eps(j: int, zz: mpmath.mpf = zz) -> mpmath.mpf:
            return j / (2 * zz**2)

        bracket = 1 + g**2 * math.comb(alpha, 2) * min(4 * (mpmath.exp(eps(2)) - 1), 2 * mpmath.exp(eps(2)))
        bracket += mpmath.fsum(
            2 * g**j * math.comb(alpha, j) * mpmath.exp((j - 1) * eps(j)) for j in range(3, alpha + 1)
        )
        add(
            fam,
            "rdp.sampled_wor_gaussian",
            {"alpha": alpha, "q": q, "z": z, "T": T},
            T * mpmath.log(bracket) / (alpha - 1),
            "transcription",
            "Wang, Balle, Kasiviswanathan 2019 (arXiv 1808.00087) Theorem 9 as printed, Gaussian eps(j) = j/(2z^2)",
        )
    return fam


if __name__ == "__main__":
    kv.main(generate, __file__)
