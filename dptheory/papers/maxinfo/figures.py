"""Max-information figures (Lampert & Zakerinia 2026; our Theorems A and B; the reference toys).

* ``lz26-maxinfo-vs-n``: the DP-SGD max-information bounds against the dataset size n (m = 10,
  E = 1, zeta = 1, sigma = 100, beta = 0.05): Theorem A and Theorem B (derived here; upper bounds)
  and, dashed, the asymptotic forms (L&Z Theorem 1 and the (eps, delta)-DP route via Rogers et al.)
  with their hidden constants set to 1 (shapes, not guarantees).
* ``maxinfo-toy-audit``: for the three reference toy configurations (``docs/derivations/maxinfo_route.md``,
  section 4.5), the certified Monte-Carlo lower
  bound on I^beta_inf (99% confidence, N = 2e5, seed 0) against Theorems A and B.
"""

from __future__ import annotations

import csv

import numpy as np

from dptheory.core.errors import DPTheoryError
from dptheory.core.io import AtomicGroup
from dptheory.core.registry import REGISTRY, Figure
from dptheory.report.plotting import new_figure, save

NS = [int(x) for x in np.unique(np.geomspace(20, 1e6, 30).astype(int))]
BASE = {"m": 10, "E": 1, "zeta": 1, "sigma": 100, "beta": "0.05"}
TOYS = [(200, 10, 1, 4.0, 0.05), (200, 10, 4, 4.0, 0.05), (100, 5, 2, 2.0, 0.1)]


def _curve(key: str, extra: dict) -> np.ndarray:
    """Values at every n; NaN (not plotted, empty in the CSV) where the statement does not apply."""
    t = REGISTRY.get(key)
    p = {k: v for k, v in {**BASE, **extra}.items() if k in t.params}
    out = []
    for n in NS:
        try:
            out.append(float(t.evaluate({**p, "n": n}, dps=20).value))
        except DPTheoryError:
            out.append(float("nan"))
    return np.array(out)


def maxinfo_vs_n(out: str, *, csv_path: str | None = None) -> list[str]:
    fig, (ax,) = new_figure()
    cols = {
        "maxinfo.thmA_derived": _curve("maxinfo.thmA_derived", {}),
        "maxinfo.thmB_derived": _curve("maxinfo.thmB_derived", {}),
        "lz26.thm1 (C=1)": _curve("lz26.thm1", {"C": 1}),
        "maxinfo.dp_route_rogers_asymptotic (C=1)": _curve("maxinfo.dp_route_rogers_asymptotic", {"C": 1, "C_beta": 1}),
    }
    for label, ys in cols.items():
        ax.plot(NS, ys, "--" if "C=1" in label else "-", label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("n (records)")
    ax.set_ylabel("max-information bound (nats)")
    ax.set_title("DP-SGD-stream, m = 10, E = 1, zeta = 1, sigma = 100, beta = 0.05", fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=6)
    with AtomicGroup() as group:  # the figure and its CSV appear together or not at all
        save(fig, group.path(out))
        if csv_path:
            with group.open(csv_path, "w", newline="") as fh:
                w = csv.writer(fh)
                w.writerow(["n", *cols])
                for i, n in enumerate(NS):
                    w.writerow([n, *("" if np.isnan(cols[c][i]) else f"{cols[c][i]:.12g}" for c in cols)])
    return [
        "solid: upper bounds derived here (docs/derivations/maxinfo_dpsgd.md); dashed: asymptotic forms "
        "with hidden constants set to 1 (shapes only; the (eps, delta) route is drawn where Rogers et al.'s "
        "conditions eps <= 1/2, delta < eps hold)"
    ]


def toy_audit(out: str, *, csv_path: str | None = None) -> list[str]:
    from dptheory.papers.maxinfo.audit import GaussianToy, certified_lower_bound

    rows = []
    for n, m, E, sigma, beta in TOYS:
        toy = GaussianToy(n, m, E, sigma)
        lb = certified_lower_bound(toy, beta, rng=np.random.default_rng(0), N=200_000, N_pilot=50_000, alpha=0.01)
        up = toy.bounds(beta)
        rows.append(
            {
                "toy": f"n={n} m={m} E={E} sigma={sigma:g} beta={beta:g}",
                "certified_lower": lb.value,
                **{k: v for k, v in sorted(up.items())},
            }
        )
    fig, (ax,) = new_figure(width=6.5)
    keys = [k for k in rows[0] if k not in ("toy",)]
    x = np.arange(len(rows))
    w = 0.8 / len(keys)
    for j, k in enumerate(keys):
        ax.bar(x + j * w, [r[k] for r in rows], w, label=k)
    ax.set_xticks(x + 0.4 - w / 2, [r["toy"] for r in rows], fontsize=6)
    ax.set_yscale("log")
    ax.set_ylabel("nats")
    ax.set_title("certified lower bound on I^beta_inf (99%) vs upper bounds", fontsize=9)
    ax.legend(fontsize=6)
    with AtomicGroup() as group:  # the figure and its CSV appear together or not at all
        save(fig, group.path(out))
        if csv_path:
            with group.open(csv_path, "w", newline="") as fh:
                wtr = csv.DictWriter(fh, fieldnames=list(rows[0]))
                wtr.writeheader()
                for r in rows:
                    wtr.writerow({k: (f"{v:.10g}" if isinstance(v, float) else v) for k, v in r.items()})
    return ["every upper bound must exceed the certified lower bound (checked in checks/test_maxinfo_audit.py)"]


REGISTRY.add_figure(Figure("lz26-maxinfo-vs-n", "Max-information bounds of DP-SGD against n (Theorems A/B, the "
                           "(eps, delta) route, Lampert & Zakerinia's shape)", maxinfo_vs_n, paper="lz26"))
REGISTRY.add_figure(Figure("maxinfo-toy-audit", "Certified Monte-Carlo lower bounds on max-information against the "
                           "upper bounds, on the reference toys", toy_audit, paper="maxinfo"))
