"""Regenerate tests/data/sampled_wor_known_values.csv (run from the repository root; about a minute).

Independent values for ``rdp.sampled_wor_gaussian`` (Wang, Balle, Kasiviswanathan 2019, "Subsampled
Renyi Differential Privacy and Analytical Moments Accountant", arXiv 1808.00087, Theorem 9 and
Corollary 10; Gaussian mechanism, replace-one neighbours). This script does NOT import dptheory.

Row kinds (column ``kind``):

* ``thm9``: a direct transcription of Theorem 9 (and Corollary 10 at fractional orders) in mpmath
  at 80 digits, exact rational ``gamma``, exact integer binomials (``math.comb``), the bracket written
  as printed (``1 + gamma^2 C(alpha,2) min{4(e^{eps(2)}-1), 2 e^{eps(2)}} + sum_j 2 gamma^j C(alpha,j)
  e^{(j-1) eps(j)}``, with the ``1 +`` kept apart and ``log1p`` so that no digit is lost), times ``T``.
  Stored to 50 significant digits.
* ``dp_accounting``: dp-accounting's ``RdpAccountant`` with ``SampledWithoutReplacementDpEvent``
  (``REPLACE_ONE``), float64. Column ``relation`` compares it with the ``thm9`` transcription at the
  same point: ``equal`` (within 1e-12 relative), ``below`` (dp-accounting's termwise minimum with
  WBK19 Theorem 27, used for alpha <= 256, is active) or ``above``; ``rel_diff`` is
  (dp-accounting - thm9) / thm9.
* ``brute_force``: the exact Renyi divergence, for a tiny dataset, of the Gaussian mechanism on a
  1-d sum query over a uniformly random size-``m`` subset of ``n`` records: both outputs are
  mixtures of ``C(n, m)`` Gaussians (all subsets enumerated), and ``D_alpha(P || Q) =
  log(int p^alpha q^(1-alpha)) / (alpha - 1)`` is integrated with ``mpmath.quad`` at 45 digits
  (log-domain integrand, breakpoints at every mean and the tilted centres). Records lie in [0, 1],
  so the replace-one sensitivity of the sum is 1 and ``z`` is the noise std. ``note`` gives the two
  datasets (the first record is the replaced one) and the direction. Stored to 30 digits (the
  quadrature error estimate is below 1e-35 relative on every row; checked here).
* ``gaussian``: the plain Gaussian ``T alpha / (2 z^2)`` (Mironov 2017, Prop. 7), the exact RDP at
  ``gamma = 1``, beside the ``thm9`` row at ``q = 1`` (limit check).
* ``poisson_offset``: not this key: Poisson sampling under *replace-one* with a common offset ``g0`` in every
  record's contribution, ``D_10((1-q) N(0) + q N(g0+1) || (1-q) N(0) + q N(g0))`` at ``q = 1/25``, ``z = 10``
  (Ye & Shokri's Figure 2 setting), by the same quadrature at 30 digits (stored to 20). At ``g0 = 0`` it is
  MTZ19's value; as ``g0`` grows it tends to ``log(1 - q + q e^{alpha (alpha-1)/(2 z^2)})/(alpha - 1)``.
"""

from __future__ import annotations

import csv
import itertools
import math
from collections import Counter
from fractions import Fraction
from importlib.metadata import version
from pathlib import Path

import dp_accounting
import mpmath

OUT = Path(__file__).with_name("sampled_wor_known_values.csv")
FIELDS = ["kind", "alpha", "q", "n", "m", "z", "T", "value", "relation", "rel_diff", "source", "method", "dps", "note"]


# ------------------------------------------------------------------------------------------------ Theorem 9
def thm9_cgf(k: int, gamma: Fraction, z: mpmath.mpf) -> mpmath.mpf:
    """log of Theorem 9's bracket at integer order k (Gaussian: eps(j) = j/(2 z^2), eps(inf) = inf)."""
    if k == 1:
        return mpmath.mpf(0)
    g = mpmath.mpf(gamma.numerator) / gamma.denominator
    eps2 = 1 / z**2
    s = g**2 * math.comb(k, 2) * min(4 * (mpmath.exp(eps2) - 1), 2 * mpmath.exp(eps2))
    for j in range(3, k + 1):
        eps_j = mpmath.mpf(j) / (2 * z**2)
        s += g**j * math.comb(k, j) * mpmath.exp((j - 1) * eps_j) * 2  # min{2, (e^eps(inf) - 1)^j} = 2
    return mpmath.log1p(s)


def thm9_rdp(alpha: Fraction, gamma: Fraction, z: mpmath.mpf, T: int) -> mpmath.mpf:
    """Theorem 9 at integer alpha; Corollary 10 (CGF interpolation) at fractional alpha; times T."""
    if gamma == 0:
        return mpmath.mpf(0)
    f = math.floor(alpha)
    t = mpmath.mpf(alpha.numerator) / alpha.denominator - f
    a = mpmath.mpf(alpha.numerator) / alpha.denominator
    if t == 0:
        return T * thm9_cgf(f, gamma, z) / (a - 1)
    return T * ((1 - t) * thm9_cgf(f, gamma, z) + t * thm9_cgf(f + 1, gamma, z)) / (a - 1)


# ------------------------------------------------------------------------------------------------ brute force
def _log_mixture(x: mpmath.mpf, comps: list[tuple[mpmath.mpf, mpmath.mpf]], z: mpmath.mpf) -> mpmath.mpf:
    """log of the mixture sum_k w_k N(mu_k, z^2) at x, ``comps = [(log w_k, mu_k)]`` (log-sum-exp)."""
    expo = [lw - ((x - mu) ** 2) / (2 * z * z) for lw, mu in comps]
    top = max(expo)
    return top + mpmath.log(mpmath.fsum(mpmath.exp(e - top) for e in expo)) - mpmath.log(z) \
        - mpmath.log(2 * mpmath.pi) / 2


def renyi_mixtures(alpha: int, mp_: list[Fraction], mq: list[Fraction], z: mpmath.mpf) -> tuple[mpmath.mpf,
                                                                                                mpmath.mpf]:
    """(D_alpha(P || Q), relative quadrature error estimate) for the equal-weight mixtures of N(mu, z^2) over
    the lists of means ``mp_`` and ``mq`` (repeated means merged into one component with its count)."""

    def comps(means: list[Fraction]) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        return [(mpmath.log(mpmath.mpf(c) / len(means)), mpmath.mpf(mu.numerator) / mu.denominator)
                for mu, c in sorted(Counter(means).items())]

    cp, cq = comps(mp_), comps(mq)

    def f(x: mpmath.mpf) -> mpmath.mpf:
        return mpmath.exp(alpha * _log_mixture(x, cp, z) + (1 - alpha) * _log_mixture(x, cq, z))

    zf = float(z)
    means = sorted({float(m) for m in mp_ + mq})
    pts = set()
    for mu in means:
        pts.update({mu - 6 * zf, mu, mu + 6 * zf})
    for a in (min(mp_), max(mp_)):  # centres of the tilted extreme pairs N(a)^alpha N(b)^(1-alpha)
        for b in (min(mq), max(mq)):
            c = float(alpha * a - (alpha - 1) * b)
            pts.update({c - 6 * zf, c, c + 6 * zf})
    points = [mpmath.ninf] + [mpmath.mpf(v) for v in sorted(pts)] + [mpmath.inf]
    val, err = mpmath.quad(f, points, error=True)
    return mpmath.log(val) / (alpha - 1), err / val


def subset_sums(data: list[Fraction], m: int) -> list[Fraction]:
    return [sum(c, Fraction(0)) for c in itertools.combinations(data, m)]


# ------------------------------------------------------------------------------------------------ dp-accounting
def dpa_rdp(orders: list[float], n: int, m: int, z: float, T: int) -> list[float]:
    acc = dp_accounting.rdp.RdpAccountant(
        orders=orders, neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE
    )
    ev = dp_accounting.SampledWithoutReplacementDpEvent(
        source_dataset_size=n, sample_size=m, event=dp_accounting.GaussianDpEvent(z)
    )
    acc.compose(ev, T)
    return [float(v) for v in acc._rdp]  # the per-order RDP, as the accountant stores it


def fmt(x: mpmath.mpf, digits: int) -> str:
    return mpmath.nstr(x, digits, min_fixed=-5, max_fixed=8)


THM9_SOURCE = "WBK19 (arXiv 1808.00087) Thm 9 / Cor 10 as printed, eps(j) = j/(2z^2), eps(inf) = inf"
THM9_METHOD = "mpmath 80 digits, exact Fraction gamma, math.comb binomials, log1p of the bracket minus 1"


def thm9_and_dpa_rows(base: dict[str, str], v: mpmath.mpf, d: float) -> list[dict[str, str]]:
    """The ``thm9`` row (transcription ``v``) and the ``dp_accounting`` row (``d``) at one point ``base``, the
    latter with its ``relation`` to the former (``equal`` within 1e-12 relative, else ``below``/``above``)."""
    rel = (mpmath.mpf(d) - v) / v
    relation = "equal" if abs(rel) <= 1e-12 else ("below" if rel < 0 else "above")
    return [
        {**base, "kind": "thm9", "value": fmt(v, 50), "source": THM9_SOURCE, "method": THM9_METHOD, "dps": "50"},
        {**base, "kind": "dp_accounting", "value": repr(d), "relation": relation, "rel_diff": mpmath.nstr(rel, 3),
         "source": f"dp-accounting {version('dp-accounting')}",
         "method": "RdpAccountant(REPLACE_ONE) + SampledWithoutReplacementDpEvent, float64", "dps": "15"},
    ]


def main() -> None:
    rows: list[dict[str, str]] = []
    mpmath.mp.dps = 80

    # (b) transcription: (n, m) so that gamma = m/n is exact and dp-accounting can take the same point
    cases = [  # (n, m, z, T)
        (50, 2, "10", 1),      # Ye & Shokri Figure 2: q = b/n = 2/50, z = sqrt(2/eta) sigma b / S_g = 10
        (50, 2, "10", 25),     # one epoch of Figure 2 (N = n/b = 25 steps)
        (50, 2, "1", 2500),
        (100, 1, "0.5", 1),
        (2, 1, "3", 1),
        (10, 1, "2", 10),
        (100000, 1, "0.3", 1),
        (100000, 1, "50", 1),
        (1000, 999, "0.3", 1),
        (7, 7, "1", 1),        # gamma = 1
        (7, 7, "2", 100),      # gamma = 1
    ]
    orders = [Fraction(5, 4), Fraction(3, 2), Fraction(2), Fraction(5, 2), Fraction(41, 4), Fraction(3),
              Fraction(10), Fraction(15), Fraction(20), Fraction(32), Fraction(64), Fraction(513, 2), Fraction(257),
              Fraction(300)]
    for n, m, zs, T in cases:
        gamma = Fraction(m, n)
        z = mpmath.mpf(zs)
        dpa = dpa_rdp([float(a) for a in orders], n, m, float(zs), T)
        for a, d in zip(orders, dpa, strict=True):
            v = thm9_rdp(a, gamma, z, T)
            base = {"alpha": str(a), "q": str(gamma), "n": str(n), "m": str(m), "z": zs, "T": str(T)}
            rows.extend(thm9_and_dpa_rows(base, v, d))
            if gamma == 1:
                g = T * (mpmath.mpf(a.numerator) / a.denominator) / (2 * z * z)
                rows.append({**base, "kind": "gaussian", "value": fmt(g, 50),
                             "source": "Mironov 2017 (arXiv 1702.07476) Prop. 7",
                             "method": "closed form T alpha/(2 z^2)", "dps": "50"})

    # large integer orders: dp-accounting has no Theorem 27 term above 256 (pure Theorem 9, gammaln binomials)
    for big in (1000, 4000):
        for n, m, zs in ((50, 2, "10"), (50, 2, "1")):
            gamma, z = Fraction(m, n), mpmath.mpf(zs)
            v = thm9_rdp(Fraction(big), gamma, z, 1)
            d = dpa_rdp([float(big)], n, m, float(zs), 1)[0]
            base = {"alpha": str(big), "q": str(gamma), "n": str(n), "m": str(m), "z": zs, "T": "1"}
            rows.extend(thm9_and_dpa_rows(base, v, d))

    # (c) brute force on tiny datasets (records in [0, 1]; the first record is replaced)
    mpmath.mp.dps = 45
    f = Fraction
    datasets = {  # name: (X, X')
        "canonical": ([f(1), f(0), f(0), f(0), f(0), f(0)], [f(0)] * 6),
        "mid": ([f(1)] + [f(1, 2)] * 5, [f(0)] + [f(1, 2)] * 5),
        "mixed": ([f(1), f(0), f(1), f(1, 3), f(0), f(1)], [f(0), f(0), f(1), f(1, 3), f(0), f(1)]),
    }
    for (name, (x, xp)), (n, m), zs, alpha in itertools.product(
        datasets.items(), ((4, 1), (5, 2), (6, 3), (4, 4)), ("1", "2"), (2, 3, 10)
    ):
        z = mpmath.mpf(zs)
        px, pxp = subset_sums(x[:n], m), subset_sums(xp[:n], m)
        for direction, (a_, b_) in (("P||Q", (px, pxp)), ("Q||P", (pxp, px))):
            val, rel_err = renyi_mixtures(alpha, a_, b_, z)
            assert rel_err < mpmath.mpf(10) ** -35, (name, n, m, zs, alpha, rel_err)
            rows.append({"kind": "brute_force", "alpha": str(alpha), "q": str(Fraction(m, n)), "n": str(n),
                         "m": str(m), "z": zs, "T": "1", "value": fmt(val, 30),
                         "source": "exact Renyi divergence of the two subset-sum Gaussian mixtures",
                         "method": f"all C({n},{m}) subsets; mpmath.quad at 45 digits, rel. error estimate "
                                   f"{mpmath.nstr(rel_err, 2)}",
                         "dps": "30",
                         "note": f"{name}: P from X={[str(v) for v in x[:n]]}, Q from X'={[str(v) for v in xp[:n]]}, "
                                 f"D({direction})"})
    # Poisson sampling under replace-one, common offset g0 in every record's contribution (docs/privacy_baselines.md):
    # P = (1-q) N(0, z^2) + q N(g0 + 1, z^2) against Q = (1-q) N(0, z^2) + q N(g0, z^2), q = 1/25, z = 10, alpha = 10
    mpmath.mp.dps = 30
    for g0 in (0, 20, 100, 1000):
        val, rel_err = renyi_mixtures(10, [Fraction(0)] * 24 + [Fraction(g0 + 1)], [Fraction(0)] * 24 + [Fraction(g0)],
                                      mpmath.mpf(10))
        assert rel_err < mpmath.mpf(10) ** -22, (g0, rel_err)
        rows.append({"kind": "poisson_offset", "alpha": "10", "q": "1/25", "z": "10", "T": "1", "value": fmt(val, 20),
                     "source": "exact Renyi divergence of the Poisson-sampled replace-one pair with offset g0",
                     "method": f"mpmath.quad at 30 digits, rel. error estimate {mpmath.nstr(rel_err, 2)}",
                     "dps": "20", "note": f"offset g0 = {g0} (in sensitivities)"})
    with OUT.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS)
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in FIELDS})
    print(f"wrote {len(rows)} rows to {OUT}")


if __name__ == "__main__":
    main()
