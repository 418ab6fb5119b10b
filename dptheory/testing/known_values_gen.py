"""Shared helpers of the known-value generators: exact inputs, 60-digit formatting, the CSV writer, and the
independent routes several papers need (the subsampled-Gaussian quadrature, dp-accounting's RDP, the binary kl).

Each folder that registers theorems keeps its own generator next to its rows: ``known_values.py`` in
``dptheory/papers/<paper>/`` writes that folder's ``known_values.csv``, ``dptheory/privacy/known_values.py`` the
generic ``rdp.*`` family's. A generator loads this module **by its path** (its ``_common()``), never as
``dptheory.testing.known_values_gen``: importing that name would import dptheory, the code under test. This module
and every generator import nothing of dptheory (:func:`write` refuses to write if dptheory was imported;
tests/test_known_values.py checks the imports). Run a generator from anywhere (about 15 s for all of them)::

    python dptheory/papers/yeshokri22/known_values.py
    python dptheory/testing/known_values_gen.py          # every generator of the tree, one after the other

autodp 0.2.3.1 is not a dependency of dptheory; install it anywhere (``pip install --no-deps --target DIR
autodp==0.2.3.1``) and put it on ``PYTHONPATH``; without it the autodp rows of ``dptheory/privacy/known_values.csv``
are kept as they are.

Every value is computed from the papers' printed text, re-typed in the generator, by one of these methods (column
``method``):

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
import subprocess
import sys
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import mpmath

DPS = 60
DIGITS = 50
mp = mpmath.mp
mp.dps = DPS

Row = dict[str, str]
COLUMNS = ["key", "term", "params", "value", "rel_tol", "method", "source"]


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


def add(
    rows: list[Row],
    key: str,
    params: dict,
    value: Any,
    method: str,
    source: str,
    *,
    term: str = "",
    rel_tol: str = "1e-40",
    digits: int = DIGITS,
) -> None:
    """Append one row to ``rows`` (the value formatted to ``digits`` significant digits)."""
    assert method in ("transcription", "second-derivation", "brute-force", "peer"), method
    rows.append(
        {
            "key": key,
            "term": term,
            "params": json.dumps(params),
            "value": fmt(value, digits),
            "rel_tol": rel_tol,
            "method": method,
            "source": source,
        }
    )


def sgm_log_a_quad(alpha: mpmath.mpf, q: mpmath.mpf, z: mpmath.mpf) -> mpmath.mpf:
    """log A_alpha of the Poisson-subsampled Gaussian (Mironov, Talwar, Zhang 2019, Sec. 3.3):
    A_alpha = E_{x ~ N(0, z^2)} (1 - q + q exp((2x - 1)/(2 z^2)))^alpha, by mpmath.quad with breakpoints."""

    def f(x: mpmath.mpf) -> mpmath.mpf:
        return mpmath.exp(-x * x / (2 * z * z) + alpha * mpmath.log1p(q * mpmath.expm1((2 * x - 1) / (2 * z * z))))

    c = alpha  # the q-term's tilted Gaussian peaks at x = alpha; the rest of the mass sits near 0
    pts = sorted({-mpmath.inf, -30 * z, -8 * z, mpmath.mpf(0), mpmath.mpf("0.5"), c, c + 8 * z, c + 30 * z, mpmath.inf})
    val, err = mpmath.quad(f, pts, error=True, maxdegree=10)
    assert err < abs(val) * mpmath.mpf(10) ** (-(DPS - 15)), (alpha, q, z, val, err)
    return mpmath.log(val / (z * mpmath.sqrt(2 * mpmath.pi)))


def dpacc_poisson_gaussian_rdp(alpha: float, q: float, z: float, steps: int) -> float:
    import dp_accounting

    acc = dp_accounting.rdp.RdpAccountant(orders=[alpha])
    ev = (
        dp_accounting.GaussianDpEvent(z)
        if q == 1.0
        else dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(z))
    )
    acc.compose(ev, steps)
    return float(acc._rdp[0])


def kl(q: mpmath.mpf, p: mpmath.mpf) -> mpmath.mpf:
    """Binary kl(q || p) from its definition (0 log 0 = 0)."""
    out = mpmath.mpf(0)
    if q > 0:
        out += q * mpmath.log(q / p)
    if q < 1:
        out += (1 - q) * mpmath.log((1 - q) / (1 - p))
    return out


#: the source of a value computed by :func:`kl_inv`
KL_INV_SOURCE = "kl inverse by bisection on the definition of the binary kl (400 steps at 60 digits)"


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


def read_rows(path: Path) -> list[Row]:
    """The rows of an existing known-values CSV (empty if there is none)."""
    if not path.exists():
        return []
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def write(rows: list[Row], path: Path) -> None:
    """Write ``rows`` to ``path`` (a ``known_values.csv``), atomically, with ``\n`` line ends."""
    assert "dptheory" not in sys.modules, "the generator must not import dptheory"
    tmp = path.with_suffix(".csv.tmp")
    with open(tmp, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    tmp.replace(path)
    print(f"{path}: {len(rows)} rows", file=sys.stderr)


def main(generate: Callable[[], list[Row]], generator_file: str) -> None:
    """A generator's ``__main__``: its rows into the ``known_values.csv`` next to it."""
    write(generate(), Path(generator_file).with_name("known_values.csv"))


def generators(root: Path) -> list[Path]:
    """Every known-value generator under the package folder ``root`` (``dptheory/``)."""
    return sorted([*root.glob("papers/*/known_values.py"), *root.glob("privacy/known_values.py")])


if __name__ == "__main__":
    for gen in generators(Path(__file__).resolve().parents[1]):
        subprocess.run([sys.executable, str(gen)], check=True)
