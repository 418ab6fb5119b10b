"""Regenerate tests/data/known_values/*.csv: independent known values for every registered theorem.

Run from the repository root (about a minute)::

    PYTHONPATH=/path/to/autodp python tests/data/known_values/make_known_values.py [family ...]

Families: ``yeshokri22``, ``rdp``, ``pacbayes``, ``maxinfo``, ``shi26`` (default: all). autodp 0.2.3.1 is not a
dependency of dptheory; install it anywhere (``pip install --no-deps --target DIR autodp==0.2.3.1``) and put it on
``PYTHONPATH``; without it the autodp rows are skipped with a message (and the old rows are kept).

**This script does not import dptheory** (it refuses to run if dptheory is imported, and
tests/test_known_values.py checks that it has no such import). Every value is computed from the papers'
printed text, re-typed here, by one of these methods (column ``method``):

* ``transcription``: the printed formula re-typed from the paper (item in ``source``) and evaluated with
  mpmath at 60 digits, written differently from dptheory's sympy statement where the paper allows (sums
  expanded, products instead of closed forms); stored to 50 significant digits.
* ``second-derivation``: a different route to the same number: the recursion in a proof instead of the
  closed form, a composition of other printed theorems, a translation of another paper's theorem, an
  infimum found by root-finding instead of the printed closed form, ...
* ``brute-force``: a direct enumeration or iteration of the definition (plain recurrences, explicit sums,
  bisection on the definition of the kl divergence, quadrature of an integral).
* ``peer``: another library (dp-accounting 0.6.0, autodp 0.2.3.1), float64: ``rel_tol`` says how close it
  must be.

Columns: ``key, term, params, value, rel_tol, method, source``; ``params`` is JSON with exact decimal strings
or integers (what ``Theorem.evaluate`` receives); ``value`` is a decimal string or ``inf``; ``rel_tol`` is
the relative tolerance the test applies (stated per row: 1e-40 for 60-digit computations, looser for
float64 peers and numerical minimisations).
"""

from __future__ import annotations

import csv
import json
import math
import sys
from collections.abc import Callable
from fractions import Fraction
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import mpmath

HERE = Path(__file__).parent
DPS = 60
DIGITS = 50
mp = mpmath.mp
mp.dps = DPS

Row = dict[str, str]
ROWS: dict[str, list[Row]] = {}


def F(x: Any) -> mpmath.mpf:
    """An exact decimal string, int or Fraction as an mpf at the working precision."""
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    fr = Fraction(str(x))
    return mpmath.mpf(fr.numerator) / fr.denominator


def fmt(v: Any, digits: int = DIGITS) -> str:
    if isinstance(v, float):
        return repr(v)
    v = mpmath.mpf(v)
    if mpmath.isinf(v):
        return "inf"
    return mpmath.nstr(v, digits, min_fixed=-5, max_fixed=5)


def add(family: str, key: str, params: dict, value: Any, method: str, source: str, *, term: str = "",
        rel_tol: str = "1e-40", digits: int = DIGITS) -> None:
    assert method in ("transcription", "second-derivation", "brute-force", "peer"), method
    ROWS.setdefault(family, []).append({
        "key": key, "term": term, "params": json.dumps(params), "value": fmt(value, digits), "rel_tol": rel_tol,
        "method": method, "source": source,
    })


# ============================================================================ Ye & Shokri 2022
YS = "Ye & Shokri 2022 (arXiv 2203.05363)"
FIG = {"alpha": 10, "eta": "0.02", "lam": 1, "beta": 4, "S_g": 4, "sigma": 2, "n": 50, "b": 2}
OTHER = {"alpha": "2.5", "eta": "0.1", "lam": "0.5", "beta": 2, "S_g": 1, "sigma": "0.7", "n": 11, "b": 2}
SMALL = {"alpha": 3, "eta": "0.1", "lam": "0.5", "beta": 2, "S_g": 1, "sigma": "0.7", "n": 12, "b": 3}


def _ys(p: dict) -> dict:
    out = {k: (int(v) if k in ("n", "b", "K", "j0", "k", "j") else F(v)) for k, v in p.items()}
    return out


def ys_G(a: dict) -> mpmath.mpf:
    """Notation: G(alpha) = alpha eta S_g^2/(4 sigma^2 b^2), one Gaussian update's RDP (Sec. 3)."""
    return a["alpha"] * a["eta"] * a["S_g"] ** 2 / (4 * a["sigma"] ** 2 * a["b"] ** 2)


def ys_eps0(j: int, G: mpmath.mpf, eta_lam: mpmath.mpf) -> mpmath.mpf:
    """eps0^j by the product of Eq. 98 (eps0^1 = G; each further step multiplies by r S_{j-1}/S_j with
    S_j = sum_{s<j} r^s), not the closed form of Eq. 99."""
    r = (1 - eta_lam) ** 2
    out = G
    for jj in range(1, j):
        out *= r * mpmath.fsum(r**s for s in range(jj)) / mpmath.fsum(r**s for s in range(jj + 1))
    return out


def ys_first_term(a: dict, G: mpmath.mpf) -> mpmath.mpf:
    """First term of Eq. 3/5 as the sum the proof's recursion (Eq. 101-108) accumulates:
    sum_{i=0}^{K-2} eps0^h r^(i (N - h)), h = floor(n/(2b)), N = floor(n/b)."""
    N, h, K = a["n"] // a["b"], a["n"] // (2 * a["b"]), a["K"]
    r = (1 - a["eta"] * a["lam"]) ** 2
    e0h = ys_eps0(h, G, a["eta"] * a["lam"])
    return mpmath.fsum(e0h * r ** (i * (N - h)) for i in range(K - 1))


def ys_lme(a: dict, G: mpmath.mpf) -> mpmath.mpf:
    """Second term of Eq. 5: (1/(alpha-1)) log((1/N) sum_{j0=0}^{N-1} exp((alpha-1) eps0^{N-j0})), summed
    term by term (no log-sum-exp shift)."""
    N = a["n"] // a["b"]
    s = mpmath.fsum(mpmath.exp((a["alpha"] - 1) * ys_eps0(N - j0, G, a["eta"] * a["lam"])) for j0 in range(N))
    return mpmath.log(s / N) / (a["alpha"] - 1)


def ys_thm43(a: dict) -> mpmath.mpf:
    """Thm 4.3 by the plain recurrence on S (not log S), K N steps, at the working precision."""
    q = mpmath.mpf(a["b"]) / a["n"]
    G = ys_G(a)
    r = (1 - a["eta"] * a["lam"]) ** 2
    S = mpmath.mpf(1)
    for _ in range(a["K"] * (a["n"] // a["b"])):
        S = q * mpmath.exp((a["alpha"] - 1) * G) * S + (1 - q) * S**r
    return mpmath.log(S) / (a["alpha"] - 1)


def sgm_log_a_quad(alpha: mpmath.mpf, q: mpmath.mpf, z: mpmath.mpf) -> mpmath.mpf:
    """log A_alpha of the Poisson-subsampled Gaussian (Mironov, Talwar, Zhang 2019, Sec. 3.3):
    A_alpha = E_{x ~ N(0, z^2)} (1 - q + q exp((2x - 1)/(2 z^2)))^alpha, by mpmath.quad with breakpoints."""

    def f(x: mpmath.mpf) -> mpmath.mpf:
        return mpmath.exp(-x * x / (2 * z * z) + alpha * mpmath.log1p(q * mpmath.expm1((2 * x - 1) / (2 * z * z))))

    c = alpha  # the q-term's tilted Gaussian peaks at x = alpha; the rest of the mass sits near 0
    pts = sorted({-mpmath.inf, -30 * z, -8 * z, mpmath.mpf(0), mpmath.mpf("0.5"), c, c + 8 * z, c + 30 * z,
                  mpmath.inf})
    val, err = mpmath.quad(f, pts, error=True, maxdegree=10)
    assert err < abs(val) * mpmath.mpf(10) ** (-(DPS - 15)), (alpha, q, z, val, err)
    return mpmath.log(val / (z * mpmath.sqrt(2 * mpmath.pi)))


def dpacc_poisson_gaussian_rdp(alpha: float, q: float, z: float, steps: int) -> float:
    import dp_accounting

    acc = dp_accounting.rdp.RdpAccountant(orders=[alpha])
    ev = dp_accounting.GaussianDpEvent(z) if q == 1.0 else dp_accounting.PoissonSampledDpEvent(
        q, dp_accounting.GaussianDpEvent(z))
    acc.compose(ev, steps)
    return float(acc._rdp[0])


def have_autodp() -> bool:
    try:
        import autodp  # noqa: F401
    except ImportError:
        print("autodp not importable: its rows are skipped", file=sys.stderr)
        return False
    return True


def gen_yeshokri22() -> None:
    fam = "yeshokri22"

    def only(key_params: tuple, p: dict) -> dict:
        return {k: v for k, v in p.items() if k in key_params}

    TH21 = ("alpha", "eta", "lam", "beta", "S_g", "sigma", "b", "K")
    for base, K in [(FIG, 1), (FIG, 200), (OTHER, 7)]:
        p = only(TH21, {**base, "K": K})
        a = _ys(p)
        v = a["alpha"] * a["S_g"] ** 2 / (a["lam"] * a["sigma"] ** 2 * a["b"] ** 2) * (
            1 - mpmath.exp(-a["lam"] * a["eta"] * a["K"] / 2))
        add(fam, "yeshokri22.thm2_1", p, v, "transcription", f"{YS}, Theorem 2.1 as printed (K = epochs)")

    for base, K, j0 in [(FIG, 1, 0), (FIG, 7, 3), (FIG, 50, 24), (OTHER, 4, 1), (OTHER, 9, 4), (SMALL, 3, 3)]:
        p = {**base, "K": K, "j0": j0}
        a = _ys(p)
        G = ys_G(a)
        t1 = ys_first_term(a, G)
        t2 = ys_eps0(a["n"] // a["b"] - a["j0"], G, a["eta"] * a["lam"])
        src = f"{YS}, Theorem 3.3: first term as the sum built by the proof's recursion (Eq. 101-108), eps0 by Eq. 98"
        add(fam, "yeshokri22.thm3_3", p, t1 + t2, "second-derivation", src)
        if K > 1:
            add(fam, "yeshokri22.thm3_3", p, t1, "second-derivation", src, term="term1")
        add(fam, "yeshokri22.thm3_3", p, t2, "second-derivation", src, term="term2")

    for base, K in [(FIG, 1), (FIG, 30), (FIG, 200), (OTHER, 1), (OTHER, 50), (SMALL, 5)]:
        p = {**base, "K": K}
        a = _ys(p)
        G = ys_G(a)
        t1, t2 = ys_first_term(a, G), ys_lme(a, G)
        src = (f"{YS}, Theorem 4.2: first term summed as in Eq. 101-108, second term (log-mean-exp) summed term by "
               "term, eps0 by Eq. 98")
        add(fam, "yeshokri22.thm4_2", p, t1 + t2, "second-derivation", src)
        add(fam, "yeshokri22.thm4_2", p, t1, "second-derivation", src, term="term1")
        add(fam, "yeshokri22.thm4_2", p, t2, "second-derivation", src, term="term2")

    for base, K in [(FIG, 1), (FIG, 50), ({**FIG, "alpha": 15}, 20), ({**FIG, "alpha": 20}, 50), (SMALL, 4),
                    (OTHER, 3)]:
        p = {**base, "K": K}
        a = _ys(p)
        add(fam, "yeshokri22.thm4_3", p, ys_thm43(a), "brute-force",
            f"{YS}, Theorem 4.3 (Eq. 6; Eq. 148-150): the plain recurrence on S (not log S) at 60 digits")

    THD4 = ("alpha", "eta", "beta", "S_g", "sigma", "n", "b", "K", "j0")
    for p in [only(THD4, {**FIG, "K": 3, "j0": 5}), only(THD4, {**SMALL, "K": 2, "j0": 3}),
              only(THD4, {**FIG, "b": 1, "K": 1, "j0": 7})]:
        a = _ys(p)
        G = ys_G(a)
        v = G * (mpmath.mpf(a["b"]) / a["n"]) * (a["K"] - 1) + G / (a["n"] // a["b"] - a["j0"])
        add(fam, "yeshokri22.thmD_4", p, v, "transcription",
            f"{YS}, Theorem D.4 (Eq. 80) as printed, G (b/n)(K-1) + G/(n/b - j0), at points with b | n")
        if a["K"] == 1 and a["b"] == 1:
            # Feldman et al. 2018, Thm 23: 2 alpha L^2/(sigma_F^2 (n - t + 1)), t = j0 + 1, L = S_g/2,
            # eta sigma_F = sqrt(2 eta sigma^2) (Sec. D.4's translation)
            L = a["S_g"] / 2
            sF = mpmath.sqrt(2 * a["eta"] * a["sigma"] ** 2) / a["eta"]
            v2 = 2 * a["alpha"] * L**2 / (sF**2 * (a["n"] - (a["j0"] + 1) + 1))
            add(fam, "yeshokri22.thmD_4", p, v2, "second-derivation",
                "Feldman, Mironov, Talwar, Thakurta 2018 (arXiv 1808.06651) Thm 23 translated as in Sec. D.4 of "
                f"{YS} (K = 1, b = 1: the paper says D.4 coincides with it)")

    TH_B = ("alpha", "eta", "lam", "beta", "S_g", "sigma", "n", "b", "K")
    for base, K in [(FIG, 1), (FIG, 10), (OTHER, 10), (SMALL, 3)]:
        p = only(TH_B, {**base, "K": K})
        a = _ys(p)
        N = a["n"] // a["b"]
        L = a["eta"] * a["S_g"] / 2  # L -> eta S_g/2 ...
        Lb = L / a["b"]  # ... -> L/b (averaging over the batch)
        s2 = 2 * a["eta"] * a["sigma"] ** 2  # sigma^2 -> 2 eta sigma^2
        contraction = 1 - 2 * a["eta"] * a["beta"] * a["lam"] / (a["beta"] + a["lam"])
        first_one_epoch = a["alpha"] * 2 * Lb**2 / ((N - 0 - 1) * s2) * contraction ** (mpmath.mpf(N - 0) / 2)
        last_one_epoch = a["alpha"] * 2 * Lb**2 / s2
        src = (f"{YS}, Sec. D.6: Balle et al. 2019 Thm 5 as translated in Eq. 111 (L -> L/b, n -> n/b, "
               "sigma^2 -> 2 eta sigma^2, L -> eta S_g/2), composed over K epochs as the paper does")
        add(fam, "yeshokri22.balle_first", p, first_one_epoch * a["K"], "second-derivation", src)
        add(fam, "yeshokri22.balle_last", p, first_one_epoch * (a["K"] - 1) + last_one_epoch, "second-derivation",
            src)

    THD6 = ("alpha", "eta", "lam", "beta", "S_g", "sigma", "n", "K")
    for p in [{"alpha": 10, "eta": "0.2", "lam": "0.7", "beta": 3, "S_g": 2, "sigma": "1.5", "n": 30, "K": 25},
              {"alpha": 2, "eta": "0.5", "lam": 1, "beta": "1.5", "S_g": 1, "sigma": 1, "n": 1, "K": 3}]:
        a = _ys(p)
        s = mpmath.fsum((1 - a["eta"] * a["lam"] / 2) ** k for k in range(1, a["K"] + 1))
        add(fam, "yeshokri22.thmD_6", p,
            a["alpha"] * a["eta"] * a["S_g"] ** 2 / (2 * a["sigma"] ** 2 * a["n"] ** 2) * s, "brute-force",
            f"{YS}, Theorem D.6 (Eq. 112): the sum over k = 1..K added term by term")
        add(fam, "yeshokri22.thmD_7", p,
            a["alpha"] * a["S_g"] ** 2 / (a["lam"] * a["sigma"] ** 2 * a["n"] ** 2)
            * (1 - mpmath.exp(-a["lam"] * a["eta"] * a["K"] / 2)), "transcription",
            f"{YS}, Theorem D.7 (Eq. 127; Chourasia et al. 2021 Cor. 1) as printed")
        assert only(THD6, p) == p

    for p in [{"alpha": 8, "eta": "0.05", "lam": "0.01", "L": 1, "sigma_mul": "1.1", "n": 600, "b": 16, "K": 30},
              {"alpha": 2, "eta": "0.1", "lam": "0.5", "L": 2, "sigma_mul": 3, "n": 12, "b": 3, "K": 4}]:
        # Cor 5.3 = Thm 4.2 with sigma = sqrt(eta/2) sigma_mul S_g/(2b) (Sec. F.1); any S_g > 0 gives the same
        a = _ys({k: v for k, v in p.items() if k not in ("L", "sigma_mul")})
        S_g = mpmath.mpf(3)
        a.update(S_g=S_g, sigma=mpmath.sqrt(a["eta"] / 2) * F(p["sigma_mul"]) * S_g / (2 * a["b"]))
        G = ys_G(a)
        add(fam, "yeshokri22.cor5_3", p, ys_first_term(a, G) + ys_lme(a, G), "second-derivation",
            f"{YS}, Corollary 5.3 via Sec. F.1: Theorem 4.2 with sigma = sqrt(eta/2) (1/b) sigma_mul S_g/2 "
            "(S_g = 3, which cancels)")

    TC = ("alpha", "eta", "S_g", "sigma", "n", "b", "K")
    for base, K in [(FIG, 1), (FIG, 50), ({**FIG, "alpha": 20}, 50), ({**OTHER, "n": 10}, 3), (OTHER, 3)]:
        p = only(TC, {**base, "K": K})
        a = _ys(p)
        q = mpmath.mpf(a["b"]) / a["n"]
        z = a["b"] * mpmath.sqrt(2) * a["sigma"] / (a["S_g"] * mpmath.sqrt(a["eta"]))  # sqrt(2 eta s^2)/(eta S_g/b)
        steps = a["K"] * (a["n"] // a["b"])
        src = (f"{YS}, Sec. 5.2/E.1 composition baseline: K floor(n/b) Poisson-subsampled Gaussian steps, q = b/n, "
               "z = sqrt(2 eta sigma^2)/(eta S_g/b)")
        v = steps * sgm_log_a_quad(a["alpha"], q, z) / (a["alpha"] - 1)
        add(fam, "yeshokri22.composition", p, v, "brute-force", src + "; A_alpha by mpmath.quad at 60 digits",
            rel_tol="1e-30")
        if a["alpha"] == int(a["alpha"]):  # dp-accounting is not exact at fractional orders (see gen_rdp)
            add(fam, "yeshokri22.composition", p,
                dpacc_poisson_gaussian_rdp(float(a["alpha"]), float(q), float(z), steps), "peer",
                src + f"; dp-accounting {version('dp-accounting')} RdpAccountant (PoissonSampledDpEvent), float64",
                rel_tol="1e-9")
        add(fam, "yeshokri22.composition_approx", p, q * ys_G(a) * a["K"], "transcription",
            f"{YS}, Figure 2 caption: (b/n) alpha eta S_g^2/(4 sigma^2 b^2) K")

    TLD3 = ("eta", "lam", "beta", "sigma", "n", "b", "k", "j")
    for p in [only(TLD3, {**FIG, "k": 3, "j": 5}), only(TLD3, {**OTHER, "k": 0, "j": 1}),
              only(TLD3, {**OTHER, "k": 2, "j": 0})]:
        a = _ys(p)
        r = (1 - a["eta"] * a["lam"]) ** 2
        steps = a["k"] * (a["n"] // a["b"]) + a["j"]
        s = mpmath.fsum(r**s for s in range(steps))
        add(fam, "yeshokri22.lemmaD_3", p, 1 / (2 * a["eta"] * a["sigma"] ** 2 * s), "brute-force",
            f"{YS}, Lemma D.3 (Eq. 76): 1/(2 eta sigma^2 sum_(s=0)^(kN+j-1) r^s), the sum added term by term")


# ============================================================================ RDP (Mironov 2017; MTZ 2019; WBK 2019)
def gen_rdp() -> None:
    fam = "rdp"
    for alpha, z, T in [("2", "1", 3), ("1.5", "0.7", 1), ("32", "4", 1000)]:
        p = {"alpha": alpha, "z": z, "T": T}
        add(fam, "rdp.gaussian", p, dpacc_poisson_gaussian_rdp(float(alpha), 1.0, float(z), T), "peer",
            f"dp-accounting {version('dp-accounting')} RdpAccountant(GaussianDpEvent) composed T times, float64",
            rel_tol="1e-13")
    for alpha, q, z, T in [("2", "0.04", "1", 2500), ("2.5", "0.04", "1", 2500), ("10", "0.04", "10", 1250),
                           ("1.5", "0.01", "0.8", 7), ("32", "0.25", "3", 3)]:
        p = {"alpha": alpha, "q": q, "z": z, "T": T}
        v = T * sgm_log_a_quad(F(alpha), F(q), F(z)) / (F(alpha) - 1)
        add(fam, "rdp.subsampled_gaussian", p, v, "brute-force",
            "Mironov, Talwar, Zhang 2019 (arXiv 1908.10530) Sec. 3.3: A_alpha as the Gaussian integral, mpmath.quad at "
            "60 digits", rel_tol="1e-30")
        if Fraction(alpha).denominator != 1:
            # dp-accounting 0.6.0 at a fractional order is NOT the exact RDP: at (alpha, q, z) = (1.5, 0.01, 0.8)
            # it gives 2.9566e-4 per step against the exact 2.7331e-4 (the quadrature above; B_alpha, the other
            # direction, is 2.4456e-4), at (2.5, 0.04, 1) 3.6241e-3 against 3.5971e-3; at integer orders it agrees
            # to 1e-15. It is a valid upper bound there, not a known value: no peer row.
            continue
        add(fam, "rdp.subsampled_gaussian", p, dpacc_poisson_gaussian_rdp(float(alpha), float(q), float(z), T), "peer",
            f"dp-accounting {version('dp-accounting')} RdpAccountant(PoissonSampledDpEvent(GaussianDpEvent)), float64",
            rel_tol="1e-9")
    if have_autodp():
        from autodp import rdp_acct, rdp_bank

        av = version("autodp")
        for alpha, z, T in [("2", "1", 3), ("32", "4", 1000)]:
            add(fam, "rdp.gaussian", {"alpha": alpha, "z": z, "T": T},
                T * rdp_bank.RDP_gaussian({"sigma": float(z)}, float(alpha)), "peer",
                f"autodp {av} rdp_bank.RDP_gaussian times T, float64", rel_tol="1e-13")
        for alpha, q, z, T in [(2, "0.04", "1", 2500), (10, "0.04", "10", 1250), (7, "0.25", "3", 3)]:
            acct = rdp_acct.anaRDPacct()
            acct.compose_poisson_subsampled_mechanisms(
                lambda x, z=z: rdp_bank.RDP_gaussian({"sigma": float(z)}, x), float(q), coeff=T)
            add(fam, "rdp.subsampled_gaussian", {"alpha": alpha, "q": q, "z": z, "T": T},
                float(acct.get_rdp([alpha])[0]), "peer",
                f"autodp {av} anaRDPacct.compose_poisson_subsampled_mechanisms (integer order: exact formula), float64",
                rel_tol="1e-9")
        for alpha, q, z, T in [(2, "0.04", "1", 1), (3, "0.04", "2", 5), (10, "0.04", "10", 1250),
                               (5, "0.25", "0.8", 3), (32, "0.01", "3", 7)]:
            acct = rdp_acct.anaRDPacct()
            acct.compose_subsampled_mechanism(
                lambda x, z=z: rdp_bank.RDP_gaussian({"sigma": float(z)}, x), float(q), coeff=T)
            add(fam, "rdp.sampled_wor_gaussian", {"alpha": alpha, "q": q, "z": z, "T": T},
                float(acct.get_rdp([alpha])[0]), "peer",
                f"autodp {av} anaRDPacct.compose_subsampled_mechanism (Wang, Balle, Kasiviswanathan 2019 Thm 9, "
                "by its first author's library; integer order), float64", rel_tol="1e-12")
    # WBK19 Theorem 9 at an integer order, re-typed (eps(j) = j/(2 z^2) for the Gaussian)
    for alpha, q, z, T in [(3, "0.04", "2", 5), (5, "0.25", "0.8", 3)]:
        g, zz = F(q), F(z)

        def eps(j: int, zz: mpmath.mpf = zz) -> mpmath.mpf:
            return j / (2 * zz**2)

        bracket = 1 + g**2 * math.comb(alpha, 2) * min(4 * (mpmath.exp(eps(2)) - 1), 2 * mpmath.exp(eps(2)))
        bracket += mpmath.fsum(2 * g**j * math.comb(alpha, j) * mpmath.exp((j - 1) * eps(j))
                               for j in range(3, alpha + 1))
        add(fam, "rdp.sampled_wor_gaussian", {"alpha": alpha, "q": q, "z": z, "T": T},
            T * mpmath.log(bracket) / (alpha - 1), "transcription",
            "Wang, Balle, Kasiviswanathan 2019 (arXiv 1808.00087) Theorem 9 as printed, Gaussian eps(j) = j/(2z^2)")


# ============================================================================ PAC-Bayes
def kl(q: mpmath.mpf, p: mpmath.mpf) -> mpmath.mpf:
    """Binary kl(q || p) from its definition (0 log 0 = 0)."""
    out = mpmath.mpf(0)
    if q > 0:
        out += q * mpmath.log(q / p)
    if q < 1:
        out += (1 - q) * mpmath.log((1 - q) / (1 - p))
    return out


def kl_inv(q: mpmath.mpf, c: mpmath.mpf, upper: bool = True) -> mpmath.mpf:
    """sup (upper) or inf (lower) of {p : kl(q||p) <= c}, by 400 bisection steps on the definition."""
    if (upper and q == 1) or (not upper and q == 0):
        return q
    lo, hi = (q, mpmath.mpf(1)) if upper else (mpmath.mpf(0), q)
    for _ in range(400):
        mid = (lo + hi) / 2
        inside = kl(q, mid) <= c
        if upper:
            lo, hi = (mid, hi) if inside else (lo, mid)
        else:
            lo, hi = (lo, mid) if inside else (mid, hi)
    return (lo + hi) / 2


def xi(n: int) -> mpmath.mpf:
    """Maurer 2004: xi(n) = sum_k C(n,k) (k/n)^k (1-k/n)^(n-k): exact in rational arithmetic for n <= 300, else
    term by term in mpmath from log-gamma at the working precision plus 20 digits."""
    if n <= 300:
        s = Fraction(0)
        for k in range(n + 1):
            s += math.comb(n, k) * Fraction(k, n) ** k * Fraction(n - k, n) ** (n - k)
        return F(s)
    with mpmath.workdps(DPS + 20):
        lg = mpmath.loggamma

        def term(k: int) -> mpmath.mpf:
            t = lg(n + 1) - lg(k + 1) - lg(n - k + 1)
            if k:
                t += k * mpmath.log(mpmath.mpf(k) / n)
            if n - k:
                t += (n - k) * mpmath.log(mpmath.mpf(n - k) / n)
            return mpmath.exp(t)

        val = mpmath.fsum(term(k) for k in range(n + 1))
    return +val


def gen_pacbayes() -> None:
    fam = "pacbayes"
    DEF = "kl inverse by bisection on the definition of the binary kl (400 steps at 60 digits)"
    for q, c in [("0", "0.1"), ("0.1", "0.05"), ("0.3", "0.2"), ("0.5", "1"), ("1", "0.5"), ("0.02", "0.001")]:
        add(fam, "pacbayes.kl_inv_upper", {"q": q, "c": c}, kl_inv(F(q), F(c)), "brute-force", DEF)
    for q, c in [("0.1", "0.05"), ("0.3", "0.2"), ("1", "0.5"), ("0", "2")]:
        add(fam, "pacbayes.kl_inv_lower", {"q": q, "c": c}, kl_inv(F(q), F(c), upper=False), "brute-force", DEF)

    M04 = "Maurer 2004 (arXiv cs/0411099): kl(emp||R) <= (KL + ln(xi(n)/delta))/n, xi(n) summed exactly"
    for e, KL, n, d in [("0.03", 50, 10000, "0.05"), ("0.1", 5, 1000, "0.01"), ("0", 0, 2, "0.5"),
                        ("0.5", 1, 37, "0.1")]:
        p = {"emp_risk": e, "KL": KL, "n": n, "delta": d}
        c = (F(KL) + mpmath.log(xi(n) / F(d))) / n
        add(fam, "maurer04.kl", p, kl_inv(F(e), c), "brute-force", M04 + "; " + DEF)
        add(fam, "maurer04.kl", p, c, "transcription", M04, term="rhs")
        c2 = (F(KL) + mpmath.log(2 * mpmath.sqrt(n) / F(d))) / n
        add(fam, "maurer04.kl_2sqrtn", p, kl_inv(F(e), c2), "brute-force",
            "Maurer 2004 with xi(n) <= 2 sqrt(n); " + DEF)
        add(fam, "maurer04.kl_2sqrtn", p, c2, "transcription", "Maurer 2004 with xi(n) <= 2 sqrt(n)", term="rhs")
        add(fam, "pacbayes.pinsker_derived", p, F(e) + mpmath.sqrt(c2 / 2), "transcription",
            "Pinsker kl(q||p) >= 2 (p - q)^2 applied to Maurer's 2 sqrt(n) budget: emp + sqrt(c/2)")
        add(fam, "mcallester99", p,
            F(e) + mpmath.sqrt((F(KL) + mpmath.log(1 / F(d)) + mpmath.log(n) + 2) / (2 * n - 1)), "transcription",
            "McAllester 1999 Thm 1 (as recalled in docs/derivations/pacbayes_maxinfo.md)")

    DRS = "Dziugaite & Roy 2018 (arXiv 1802.09583), the eps-DP prior bound (m examples)"
    for e, KL, m, d, eps in [("0", 0, 100, "0.000000001", "0.5"), ("0", 0, 5, "0.000000001", 2),
                             ("0.1", 3, 1000, "0.05", "0.1"), ("0.2", 10, 50000, "0.01", "0.05")]:
        p = {"emp_risk": e, "KL": KL, "m": m, "delta": d, "eps": eps}
        c = (F(KL) + mpmath.log(2 * mpmath.sqrt(m)) + 2 * max(F(eps) ** 2 * m, mpmath.log(3 / F(d)))) / m
        add(fam, "dr18.dp_prior", p, kl_inv(F(e), c), "brute-force", DRS + "; " + DEF)
        add(fam, "dr18.dp_prior", p, c, "transcription", DRS, term="rhs")
        # the max-information variant: Dwork Thm 20 at beta = delta/2 (k = eps^2 m/2 + eps sqrt(m ln(4/delta)/2))
        # plugged into G2 at confidence delta: (KL + k + ln(1/(delta - delta/2)) + ln xi(m))/m
        k = F(eps) ** 2 * m / 2 + F(eps) * mpmath.sqrt(m * mpmath.log(2 / (F(d) / 2)) / 2)
        cv = (F(KL) + k + mpmath.log(1 / (F(d) - F(d) / 2)) + mpmath.log(xi(m))) / m
        src = ("second derivation of the DR18 max-information variant: Dwork et al. 2015 Thm 20 at beta = delta/2, "
               "then (G2) of docs/derivations/pacbayes_maxinfo.md at confidence delta")
        add(fam, "pacbayes.dr18_maxinfo_variant_derived", p, kl_inv(F(e), cv), "second-derivation", src + "; " + DEF)
        add(fam, "pacbayes.dr18_maxinfo_variant_derived", p, cv, "second-derivation", src, term="rhs")

    G_SRC = "docs/derivations/pacbayes_maxinfo.md, (G{}) as written there"
    for e, KL, n, d, beta, k in [("0.05", 20, 5000, "0.05", "0.01", 30), ("0", 0, 1, "0.5", "0.25", 1),
                                 ("0.3", 2, 64, "0.1", "0.0001", "7.5")]:
        p2 = {"emp_risk": e, "KL": KL, "n": n, "delta": d, "beta": beta, "k": k}
        c2 = (F(KL) + F(k) + mpmath.log(1 / (F(d) - F(beta))) + mpmath.log(xi(n))) / n
        add(fam, "pacbayes.g2_maxinfo_prior_derived", p2, kl_inv(F(e), c2), "brute-force",
            G_SRC.format(2) + "; " + DEF)
        add(fam, "pacbayes.g2_maxinfo_prior_derived", p2, c2, "transcription", G_SRC.format(2), term="rhs")
        p3 = {kk: v for kk, v in p2.items() if kk != "KL"}
        c3 = (F(k) + mpmath.log(1 / (F(d) - F(beta))) + mpmath.log(xi(n))) / n
        add(fam, "pacbayes.g3_single_model_derived", p3, kl_inv(F(e), c3), "brute-force",
            G_SRC.format(3) + "; " + DEF)
        add(fam, "pacbayes.g3_single_model_derived", p3, c3, "transcription", G_SRC.format(3), term="rhs")
        add(fam, "pacbayes.g1_hoeffding_maxinfo_derived", p3,
            F(e) + mpmath.sqrt((F(k) + mpmath.log(2 / (F(d) - F(beta)))) / (2 * n)), "transcription",
            G_SRC.format(1) + " (Hoeffding + the transfer theorem)")

    LZ = "Lampert & Zakerinia 2026 (arXiv 2605.26222), Theorem 1's O(.) with hidden constant C"
    for e, KL, n, E, zeta, sigma, d, beta, C in [("0.05", 10, 5000, 2, 1, 100, "0.05", "0.01", 1),
                                                  ("0", 0, 1, 1, "0.5", 2, "0.5", "0.25", "0.1")]:
        kk = F(C) * E * n * F(zeta) ** 2 / F(sigma) ** 2 * mpmath.log(E / F(beta))
        p2 = {"emp_risk": e, "KL": KL, "n": n, "E": E, "zeta": zeta, "sigma": sigma, "delta": d, "beta": beta, "C": C}
        c2 = (F(KL) + kk + mpmath.log(1 / (F(d) - F(beta))) + mpmath.log(xi(n))) / n
        src = LZ + " as k, inserted in (G{}) of docs/derivations/pacbayes_maxinfo.md"
        add(fam, "lz26.thm2_pacbayes_asymptotic", p2, kl_inv(F(e), c2), "second-derivation",
            src.format(2) + "; " + DEF)
        add(fam, "lz26.thm2_pacbayes_asymptotic", p2, c2, "second-derivation", src.format(2), term="rhs")
        p3 = {x: v for x, v in p2.items() if x != "KL"}
        c3 = (kk + mpmath.log(1 / (F(d) - F(beta))) + mpmath.log(xi(n))) / n
        add(fam, "lz26.single_model_asymptotic", p3, kl_inv(F(e), c3), "second-derivation",
            src.format(3) + "; " + DEF)


# ============================================================================ max-information
DW = "Dwork et al. 2015 (arXiv 1506.02629v2)"


def dw_thm20(eps: mpmath.mpf, n: int, beta: mpmath.mpf) -> mpmath.mpf:
    """Thm 20 in nats: eps^2 n/2 + eps sqrt(n ln(2/beta)/2)."""
    return eps**2 * n / 2 + eps * mpmath.sqrt(n * mpmath.log(2 / beta) / 2)


def dw_thm13(k: mpmath.mpf, beta: mpmath.mpf, p_prod: mpmath.mpf) -> mpmath.mpf:
    return mpmath.exp(k) * p_prod + beta


def mcdiarmid(tau: mpmath.mpf, c: mpmath.mpf, n: int) -> mpmath.mpf:
    return mpmath.exp(-2 * tau**2 / (c**2 * n))


def gdp_delta(eps: mpmath.mpf, mu: mpmath.mpf) -> mpmath.mpf:
    """Balle & Wang 2018 (arXiv 1805.06530) Thm 8: delta(eps) of a mu-GDP mechanism."""
    Phi = mpmath.ncdf
    return Phi(-eps / mu + mu / 2) - mpmath.exp(eps) * Phi(-eps / mu - mu / 2)


def gen_maxinfo() -> None:
    fam = "maxinfo"
    for e, n in [("0.5", 100), ("0.01", 7)]:
        add(fam, "dwork15.thm19", {"eps": e, "n": n}, F(e) * n, "transcription",
            f"{DW} Thm 19 (log2(e) eps n bits = eps n nats)")
    for e, n, b in [("0.5", 100, "0.05"), ("0.01", 1000, "0.000001")]:
        add(fam, "dwork15.thm20", {"eps": e, "n": n, "beta": b}, dw_thm20(F(e), n, F(b)), "transcription",
            f"{DW} Thm 20 in nats")
    for k, b, pp in [("2", "0.1", "0.01"), ("0", "0.5", "1")]:
        add(fam, "dwork15.thm13", {"k": k, "beta": b, "p_prod": pp}, dw_thm13(F(k), F(b), F(pp)), "transcription",
            f"{DW} Thm 13 in nats (2^k bits = e^k nats)")
    for tau, c, n, b in [("1", "1", 2, "0.1"), ("30", "0.5", 1000, "0.001")]:
        x = F(tau) ** 2 / (F(c) ** 2 * n)
        add(fam, "dwork15.cor21", {"tau": tau, "c": c, "n": n, "beta": b},
            dw_thm13(x, F(b), mcdiarmid(F(tau), F(c), n)), "second-derivation",
            f"{DW} Cor 21 re-derived: Thm 13 at k = tau^2/(c^2 n) nats applied to McDiarmid's exp(-2 tau^2/(c^2 n))")
    for k, b, tau, c, n in [("0.5", "0.1", "1", "1", 2), ("3", "0.01", "20", "1", 100)]:
        add(fam, "dwork15.cor21_route", {"k": k, "beta": b, "tau": tau, "c": c, "n": n},
            dw_thm13(F(k), F(b), mcdiarmid(F(tau), F(c), n)), "second-derivation",
            f"{DW} Thm 13 applied to McDiarmid's inequality (the proof of Cor 21)")
    for tau, c, n in [("3", "1", 1), ("79", "1", 790), ("100", "0.2", 1000)]:
        x = F(tau) ** 2 / (F(c) ** 2 * n)
        add(fam, "dwork15.cor22", {"tau": tau, "c": c, "n": n}, mpmath.exp(-3 * x / 4), "transcription",
            f"{DW} Cor 22: exp(-3 tau^2/(4 c^2 n))")
    for tau, c, n in [("3", "1", 1), ("1", "1", 2), ("100", "0.2", 1000)]:
        x = F(tau) ** 2 / (F(c) ** 2 * n)
        eps = F(tau) / (F(c) * n)  # the algorithm is tau/(cn)-DP
        beta = 2 * mpmath.exp(-x)
        add(fam, "dwork15.cor22_route", {"tau": tau, "c": c, "n": n},
            dw_thm13(dw_thm20(eps, n, beta), beta, mcdiarmid(F(tau), F(c), n)), "second-derivation",
            f"{DW} Cor 22's proof composed from the printed theorems: Thm 20 at eps = tau/(cn), beta = "
            "2 exp(-tau^2/(c^2 n)), then Thm 13 on McDiarmid")
    R16 = "Rogers, Roth, Smith, Thakkar 2016 (arXiv 1604.03924), asymptotic form with hidden constants C, C_beta"
    for e, d, n, C, Cb in [("0.5", "0.001", 100, 1, 1), ("0.1", "0.00001", 10000, "2.5", "0.5")]:
        p = {"eps": e, "delta": d, "n": n, "C": C, "C_beta": Cb}
        add(fam, "rogers16.approx_dp_maxinfo", p, F(C) * (F(e) ** 2 * n + n * mpmath.sqrt(F(d) / F(e))),
            "transcription", R16)
        add(fam, "rogers16.approx_dp_maxinfo", p,
            mpmath.exp(-F(e) ** 2 * n) + F(Cb) * n * mpmath.sqrt(F(d) / F(e)), "transcription", R16, term="beta")

    OURS = "docs/derivations/maxinfo_dpsgd.md, {} as written there"
    for mu, zeta, m, v in [("0.01", "1", 5, "3"), ("0.1", "0.5", 1, "0.25"), ("0.001", "2", 50, "100")]:
        p = {"mu": mu, "zeta": zeta, "m": m, "v_sum": v}
        mubar = F(mu) / (1 - 4 * F(mu) * F(zeta) ** 2 * (m - 1))
        add(fam, "maxinfo.lemmaM_derived", p, F(v) * mpmath.expm1(8 * F(zeta) ** 2 * mubar) / (8 * F(zeta) ** 2),
            "transcription", OURS.format("Lemma M"))
        add(fam, "maxinfo.lemmaM_derived", p, m * mpmath.expm1(8 * F(zeta) ** 2 * mubar) / 8, "transcription",
            OURS.format("Lemma M (relaxed, v_k <= zeta^2)"), term="relaxed")
    PTS = [(200, 10, 1, "1", "4", "0.05"), (200, 10, 4, "1", "4", "0.05"), (100, 5, 2, "1", "2", "0.1"),
           (1, 1, 1, "1", "1000", "0.000000001"), (10, 1, 1, "1", "0.1", "0.05"), (100, 1, 1, "1", "1000", "0.000001"),
           (1003, 7, 3, "0.5", "30", "0.01")]
    for n, m, E, zeta, sigma, beta in PTS:
        p = {"n": n, "m": m, "E": E, "zeta": zeta, "sigma": sigma, "beta": beta}
        r = F(zeta) ** 2 / F(sigma) ** 2
        T = n // m
        A = 2 * E * T * m**2 * r
        add(fam, "maxinfo.thmA_derived", p, A + 2 * mpmath.sqrt(A * mpmath.log(1 / F(beta))), "transcription",
            OURS.format("Theorem A") + " (T = floor(n/m))")
        add(fam, "maxinfo.thmB_derived", p, thm_b_by_root(n, m, E, r, F(beta)), "second-derivation",
            OURS.format("Theorem B") + ": inf over lambda of K_B by a root of dK_B/dlambda (mpmath.findroot, "
            "bracketed) at 60 digits", rel_tol="1e-30")

    # the (eps, delta)-DP route through Rogers et al. (docs/derivations/maxinfo_route.md, section 3)
    for n, E, zeta, sigma, beta, C, Cb in [(10_000, 1, "1", "100", "0.01", 1, 1),
                                           (100, 1, "1", "1000", "0.000001", 1, 1),
                                           (200, 1, "1", "1000", "0.000001", 1, 1),
                                           (100_000, 2, "1", "300", "0.000001", 2, "0.5")]:
        p = {"n": n, "E": E, "zeta": zeta, "sigma": sigma, "beta": beta, "C": C, "C_beta": Cb}
        mu = 2 * F(zeta) * mpmath.sqrt(E) / F(sigma)

        def slack(e: mpmath.mpf, n: int = n, mu: mpmath.mpf = mu, Cb: str = Cb, beta: str = beta) -> mpmath.mpf:
            return mpmath.exp(-e**2 * n) + F(Cb) * n * mpmath.sqrt(gdp_delta(e, mu) / e) - F(beta)

        lo, hi = mpmath.mpf("1e-6"), mpmath.mpf("0.5")
        assert slack(lo) > 0 > slack(hi)
        for _ in range(300):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if slack(mid) > 0 else (lo, mid)
        e = (lo + hi) / 2
        d = gdp_delta(e, mu)
        # peer check of the GDP delta (dp-accounting's analytic Gaussian privacy loss, float64)
        from dp_accounting.pld import privacy_loss_mechanism as plm

        peer = plm.GaussianPrivacyLoss(standard_deviation=1.0, sensitivity=float(mu)).get_delta_for_epsilon(float(e))
        assert abs(peer - float(d)) <= 1e-9 * float(d), (peer, d)
        add(fam, "maxinfo.dp_route_rogers_asymptotic", p, F(C) * (e**2 * n + n * mpmath.sqrt(d / e)),
            "second-derivation",
            "docs/derivations/maxinfo_route.md section 3 re-done: mu = 2 zeta sqrt(E)/sigma, Balle & Wang's delta(eps) "
            "(checked against dp-accounting's GaussianPrivacyLoss), eps by bisection on the slack equation",
            rel_tol="1e-30")

    add(fam, "lz26.thm1", {"n": 1000, "E": 3, "zeta": "0.5", "sigma": 10, "beta": "0.01", "C": 2},
        F(2) * 3 * 1000 * F("0.25") / 100 * mpmath.log(3 / F("0.01")), "transcription",
        "Lampert & Zakerinia 2026, Theorem 1, Eq. (1): C E n zeta^2/sigma^2 ln(E/beta)")
    for D, s, d in [("1", "2", "0.625"), ("0.3", "5", "0.00001")]:
        add(fam, "lz26.gaussian_calibration", {"Delta": D, "sigma": s, "delta": d},
            F(D) / F(s) * mpmath.sqrt(2 * mpmath.log(F("1.25") / F(d))), "transcription",
            "Lampert & Zakerinia 2026 Sec. 2 (Dwork & Roth 2014 Thm A.1): eps = (Delta/sigma) sqrt(2 ln(1.25/delta))")


def thm_b_by_root(n: int, m: int, E: int, r: mpmath.mpf, beta: mpmath.mpf) -> mpmath.mpf:
    """inf_{lambda > 0, 4 a (m-1) < 1} K_B(lambda), with n_u = m floor(n/m): K_B is convex in lambda on its
    domain (docs); the minimiser is the root of K_B'(lambda), bracketed between a point where K_B' < 0 and one
    where K_B' > 0 and polished by mpmath.findroot (anderson, then secant)."""
    nu = m * (n // m)
    L = mpmath.log(1 / beta)

    def KB(lam: mpmath.mpf) -> mpmath.mpf:
        a = E * r * (lam**2 + lam) / 2
        abar = a / (1 - 4 * a * (m - 1))
        return L / lam + nu * E * r / 2 + nu * mpmath.expm1(8 * abar) / (8 * lam)

    def dKB(lam: mpmath.mpf) -> mpmath.mpf:
        return mpmath.diff(KB, lam)

    # lambda_max: 4 a (m-1) = 1
    if m > 1:
        lmax = (-1 + mpmath.sqrt(1 + 4 * 2 / (4 * E * r * (m - 1)))) / 2
    else:
        lmax = mpmath.inf
    lo = mpmath.mpf("1e-30")
    hi = lmax * (1 - mpmath.mpf(10) ** -20) if lmax != mpmath.inf else mpmath.mpf(1)
    while lmax == mpmath.inf and dKB(hi) < 0:
        hi *= 2
    assert dKB(lo) < 0 < dKB(hi), (n, m, E, r, beta)
    for _ in range(200):  # bisection to ~1e-60 relative, then findroot polishes
        mid = mpmath.sqrt(lo * hi) if hi / lo > 4 else (lo + hi) / 2
        lo, hi = (mid, hi) if dKB(mid) < 0 else (lo, mid)
    lam = mpmath.findroot(dKB, ((lo + hi) / 2), tol=mpmath.mpf(10) ** -(DPS - 5))
    v = KB(lam)
    # a grid in ln(lambda) finds nothing lower (a brute-force guard on the root)
    for t in mpmath.linspace(-8, 8, 401):
        lg = lam * mpmath.exp(t)
        if lg < lmax:
            assert KB(lg) >= v * (1 - mpmath.mpf(10) ** -45)
    return v


# ============================================================================ Shi et al. 2026
SHI = "Shi, Wang, Zhang, Cao 2026 (DP-GD on two-layer CNNs)"


def gen_shi26() -> None:
    fam = "shi26"
    P = {"T": 1000, "mu_norm": 1, "sigma_p": "0.5", "d": 2000, "sigma_b": "0.01", "n": 1000, "m": 100}
    P2 = {"T": 7, "mu_norm": "2.5", "sigma_p": "0.1", "d": 50, "sigma_b": "0.3", "n": 20, "m": 3}
    for base in (P, P2):
        a = {k: F(v) for k, v in base.items()}
        R2 = F("1.5") * a["sigma_p"] ** 2 * a["d"]  # ||xi||^2 <= 1.5 sigma_p^2 d (the proof's event)
        nm = a["n"] * a["m"]
        # one step is a Gaussian mechanism on the 2m filters, each with noise N(0, sigma_b^2 I): RDP alpha D^2/(2 s^2)
        # with D^2 = 2m * (per-filter sensitivity)^2 (Mironov 2017, Prop. 7), composed over T steps
        lemma_D2 = 2 * a["m"] * (a["mu_norm"] + mpmath.sqrt(R2)) ** 2 / nm**2  # as the proof bounds it ...
        lemma_D2_relaxed = 2 * a["m"] * (2 * a["mu_norm"] ** 2 + 2 * R2) / nm**2  # ... then (x+y)^2 <= 2x^2 + 2y^2
        zero_D2 = 2 * a["m"] * (a["mu_norm"] ** 2 + R2) / nm**2  # one record removed, mu orthogonal to xi
        repl_D2 = 2 * a["m"] * (a["mu_norm"] ** 2 + 4 * R2) / nm**2  # signal parts differ <= ||mu||, noise <= 2R
        for alpha in ("2", "7.5"):
            p = {"alpha": alpha, **base}
            al = F(alpha)
            src = (f"{SHI}, Lemma 39's proof re-done: 2m filters with independent N(0, sigma_b^2 I) noise, Gaussian "
                   "RDP alpha Delta^2/(2 sigma_b^2) per step (Mironov 2017 Prop. 7), T steps; ")
            add(fam, "shi26.lemma39_rdp", p, a["T"] * al * lemma_D2_relaxed / (2 * a["sigma_b"] ** 2),
                "second-derivation", src + "Delta^2 = 2m (2||mu||^2 + 2 R^2)/(nm)^2, R^2 = 1.5 sigma_p^2 d")
            add(fam, "shi26.gaussian_rdp_zero_out", p, a["T"] * al * zero_D2 / (2 * a["sigma_b"] ** 2),
                "second-derivation", src + "zero-out Delta^2 = 2m (||mu||^2 + R^2)/(nm)^2 (docs/derivations/"
                "shi26_lemma39.md 3(a))")
            add(fam, "shi26.gaussian_rdp_replace", p, a["T"] * al * repl_D2 / (2 * a["sigma_b"] ** 2),
                "second-derivation", src + "replace-one Delta^2 = 2m (||mu||^2 + 4 R^2)/(nm)^2 (docs/derivations/"
                "shi26_lemma39.md 3(a))")
            z = float(a["sigma_b"] / mpmath.sqrt(lemma_D2_relaxed))
            add(fam, "shi26.lemma39_rdp", p, dpacc_poisson_gaussian_rdp(float(al), 1.0, z, int(base["T"])), "peer",
                f"dp-accounting {version('dp-accounting')} GaussianDpEvent(sigma_b/Delta) composed T times, with "
                "Lemma 39's Delta^2 = 2m (2||mu||^2 + 3 sigma_p^2 d)/(nm)^2", rel_tol="1e-12")
            assert lemma_D2 <= lemma_D2_relaxed
        for d_ in ("0.00001", "0.5"):
            p = {**base, "delta": d_}
            A = a["T"] * (2 * a["mu_norm"] ** 2 + 3 * a["sigma_p"] ** 2 * a["d"]) / (a["sigma_b"] ** 2 * nm * a["n"])
            Lg = mpmath.log(2 / F(d_))

            def g(lam: mpmath.mpf, A: mpmath.mpf = A, Lg: mpmath.mpf = Lg) -> mpmath.mpf:
                return lam * A + Lg / (lam - 1)

            lam = mpmath.findroot(lambda x: mpmath.diff(g, x), 1 + mpmath.sqrt(Lg / A) * mpmath.mpf("1.3"))
            add(fam, "shi26.lemma39", p, g(lam), "second-derivation",
                f"{SHI}, Lemma 39 as printed, minimised over the order lambda > 1 numerically (findroot on g'), not "
                "by the closed form", rel_tol="1e-40")
            for lam_ in ("1.5", "40"):
                add(fam, "shi26.lemma39_at_order", {"lam": lam_, **p}, g(F(lam_)), "transcription",
                    f"{SHI}, Lemma 39 as printed: T lam (2||mu||^2 + 3 sigma_p^2 d)/(sigma_b^2 n^2 m) + log(2/delta)/"
                    "(lam - 1)")
    for C4, m, mu, sp_, d, n, dl in [(1000, 100, 1, "0.5", 2000, 1000, "0.00001"), (1, 2, 3, "1", 1, 4, "0.5")]:
        M = max(F(mu) ** 2, F(sp_) ** 2 * d)
        add(fam, "shi26.thm3_privacy", {"C4": C4, "m": m, "mu_norm": mu, "sigma_p": sp_, "d": d, "n": n, "delta": dl},
            F(C4) * m**3 * M**2 / (n**2 * F(mu) ** 4) * mpmath.log(2 / F(dl)), "transcription",
            f"{SHI}, Theorem 3: C4 m^3 max^2{{||mu||^2, sigma_p^2 d}}/(n^2 ||mu||^4) log(2/delta)")
    G = {"sigma_p": "0.5", "sigma_0": "0.001", "kappa": "0.05", "q": 3, "m": 100, "n": 1000, "d": 2000, "eta": "0.1",
         "c_T1": 1}
    a = {k: F(v) for k, v in G.items()}
    T1 = a["c_T1"] * a["kappa"] ** (a["q"] - 1) * a["m"] * a["n"] / (
        a["eta"] * a["sigma_0"] ** (a["q"] - 2) * (a["sigma_p"] * mpmath.sqrt(a["d"])) ** a["q"])
    add(fam, "shi26.T1_gd", G, T1, "transcription",
        f"{SHI}, Theorem 1 / Stage 1: T1 = kappa^(q-1) m n/(eta sigma_0^(q-2) (sigma_p sqrt d)^q) (sqrt reading, F4)")
    T2 = T1 + 36 * a["n"] * a["m"] ** 2 / (a["eta"] * a["sigma_p"] ** 2 * a["d"])
    add(fam, "shi26.T2_gd", G, T2, "transcription", f"{SHI}, Theorem 1: T2 = T1 + 36 n m^2/(eta sigma_p^2 d)")
    Gs = {"mu_norm": 1, **G, "eps": "0.01", "c_Ts": 2}
    Ts = T1 + 2 * a["m"] ** 3 * a["n"] / (a["eta"] * F("0.01") * 1)
    add(fam, "shi26.Tstar_gd", Gs, Ts, "transcription", f"{SHI}, Theorem 1: T* = T1 + c m^3 n/(eta eps ||mu||^2)")
    Dp = {"mu_norm": 1, "sigma_p": "0.5", "sigma_b": "0.01", "kappa": "0.05", "d": 2000, "eta": "0.1", "c_T1": 1}
    b = {k: F(v) for k, v in Dp.items()}
    T1d = b["kappa"] ** 2 / (b["eta"] ** 2 * b["sigma_b"] ** 2 * min(b["mu_norm"] ** 2, b["sigma_p"] ** 2 * b["d"]))
    add(fam, "shi26.T1_dp", Dp, T1d, "transcription",
        f"{SHI}, Theorem 2: T1 = kappa^2/(eta^2 sigma_b^2 min{{||mu||^2, sigma_p^2 d}})")
    Dps = {**Dp, "m": 100, "n": 1000, "eps": "0.1", "c_Ts": 3}
    add(fam, "shi26.Tstar_dp", Dps,
        T1d + 3 * 100**2 * 1000 / (b["eta"] * F("0.1") * max(b["mu_norm"] ** 2, b["sigma_p"] ** 2 * b["d"])),
        "transcription", f"{SHI}, Theorem 2: T* = T1 + c n m^2/(eta eps max{{||mu||^2, sigma_p^2 d}})")
    add(fam, "shi26.T2_dp", {"mu_norm": 2, "m": 100, "eta": "0.1", "c_T2": 3}, F(3) * 100 / (F("0.1") * 4),
        "transcription", f"{SHI}, Theorem 3: T2 = c m/(eta ||mu||^2)")


# ============================================================================ constant bounds and Prop 5.1
SHI_W1 = {"C": 1, "T": 3, "d": "22093898494317162397696", "delta": "0.99", "eta": "3.15655e-10", "kappa": "0.609054",
          "m": 2, "mu_norm": "0.453437", "n": 1, "q": 3, "sigma_0": "0.000151995", "sigma_p": "1e-08"}
SHI_W2 = {"C": 1, "T": 3, "c_T1": 1, "d": "397743308376983033872384", "delta": "0.5", "eta": "7.2636e-06",
          "kappa": "2.38144e-06", "m": 274, "mu_norm": 1000, "n": 238, "sigma_0": "2.02677e-19", "sigma_b": "0.0011628",
          "sigma_p": "1e-08"}
SHI_W3 = {"C": 1, "T": 100, "c_T1": 1, "c_T2": 1, "d": "783137182737267291062272", "delta": "0.5", "eta": "3.01876e-05",
          "kappa": "1.46783e-06", "m": 302, "mu_norm": 1000, "n": 88, "sigma_0": "2.29738e-35",
          "sigma_b": "1.53761e-05", "sigma_p": "1e-08"}


def gen_constants() -> None:
    """Bounds that are printed constants (Shi et al. Theorems 1-3) and Ye & Shokri's Prop 5.1.

    The Shi et al. points satisfy Condition 1 (GD) or Condition 2 (DP-GD) with C = 1 (points found by a
    feasibility search and typed in here; the test fails if the theorem refuses them); the value is the
    constant printed in the theorem. Prop 5.1 by hand: the multi-class logistic loss on x~ = (x, 1),
    ||x|| <= L, has gradient (p - e_y) (x) x~ with ||p - e_y|| <= sqrt(2) (sup at p -> e_y', y' != y), so
    Lipschitz constant sqrt(2) sqrt(L^2 + 1); Hessian (diag p - p p^T) (x) x~ x~^T whose first factor has
    largest eigenvalue <= 1/2 (sup at p = (1/2, 1/2, 0, ...)), so smoothness (L^2 + 1)/2.
    """
    fam = "constants"
    add(fam, "shi26.thm1_test_loss", SHI_W1, F("0.1"), "transcription",
        f"{SHI}, Theorem 1: test loss L_D >= 0.1 for all t <= T* (constant printed in the theorem)")
    add(fam, "shi26.thm1_test_error", {**SHI_W1, "C3": "1e19"}, F("0.11"), "transcription",
        f"{SHI}, Theorem 1: test error R_D >= 0.11 for T2 <= t <= T* (constant printed in the theorem)")
    add(fam, "shi26.thm2_train_loss", {**SHI_W2, "eps": "0.1"}, F("0.1"), "transcription",
        f"{SHI}, Theorem 2: L_S(W^(T*)) <= eps (here eps = 0.1) with probability >= 1 - 6 delta")
    add(fam, "shi26.thm3_test_error", SHI_W3, F("0.01"), "transcription",
        f"{SHI}, Theorem 3: R_D(W^(T2)) <= 0.01 (constant printed in the theorem)")
    for L in (1, 3, "0.5"):
        lf = F(L)
        add(fam, "yeshokri22.prop5_1_lipschitz", {"L": L}, mpmath.sqrt(2) * mpmath.sqrt(lf**2 + 1), "second-derivation",
            f"{YS}, Prop 5.1 re-derived by hand: ||(p - e_y) (x) (x, 1)|| <= sqrt(2) sqrt(L^2 + 1)")
        add(fam, "yeshokri22.prop5_1_smoothness", {"L": L}, (lf**2 + 1) / 2, "second-derivation",
            f"{YS}, Prop 5.1 re-derived by hand: lambda_max(diag p - p p^T) <= 1/2 times ||(x, 1)||^2 <= L^2 + 1")


# ============================================================================ main
FAMILIES: dict[str, Callable[[], None]] = {
    "yeshokri22": gen_yeshokri22, "rdp": gen_rdp, "pacbayes": gen_pacbayes, "maxinfo": gen_maxinfo,
    "shi26": gen_shi26, "constants": gen_constants,
}


def main(argv: list[str]) -> None:
    names = argv or list(FAMILIES)
    for name in names:
        FAMILIES[name]()
        assert "dptheory" not in sys.modules, "the generator must not import dptheory"
        path = HERE / f"{name}.csv"
        rows = ROWS.get(name, [])
        old = []
        if path.exists() and name == "rdp":
            try:
                version("autodp")
            except PackageNotFoundError:
                old = [r for r in csv.DictReader(open(path)) if "autodp" in r["source"]]
        tmp = path.with_suffix(".csv.tmp")
        with open(tmp, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=["key", "term", "params", "value", "rel_tol", "method", "source"])
            w.writeheader()
            w.writerows(rows + old)
        tmp.replace(path)
        print(f"{path}: {len(rows) + len(old)} rows", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
