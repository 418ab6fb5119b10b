"""Shi et al., Figure 1, re-plotted from the committed paper-scale run.

The paper-scale reproduction (d = 2000, m = 100, n = 1000, six runs) takes most of an hour; its
per-step data are committed in ``reports/shi26/paper_fig1.csv`` (seed 0; produced by
``dptheory shi26 fig1 --scale paper``; choices and provenance in ``reports/shi26/paper_fig1.json``
and ``docs/shi26.md``). This figure re-plots those data, so reports regenerate in seconds.
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

from dptheory.core.errors import DPTheoryError
from dptheory.core.io import AtomicGroup
from dptheory.core.registry import REGISTRY, Figure
from dptheory.report.plotting import pyplot, save

DATA = Path(__file__).resolve().parents[3] / "reports" / "shi26" / "paper_fig1.csv"


def figure1(out: str, *, csv_path: str | None = None) -> list[str]:
    if not DATA.exists():
        raise DPTheoryError(f"{DATA} not found: run `dptheory shi26 fig1 --scale paper --out reports/shi26` first")
    with DATA.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    sigmas = sorted({r["sigma_p"] for r in rows}, key=float)
    plt = pyplot()

    fig, axes = plt.subplots(len(sigmas), 3, figsize=(11, 2.6 * len(sigmas)), squeeze=False)
    for i, sp_ in enumerate(sigmas):
        for method, style in (("GD", "-"), ("DP-GD", "--")):
            sel = [r for r in rows if r["sigma_p"] == sp_ and r["method"] == method]
            steps = [int(r["step"]) for r in sel]
            for j, col in enumerate(("train_loss", "test_loss", "test_accuracy")):
                axes[i][j].plot(steps, [float(r[col]) for r in sel], style, label=method)
                axes[i][j].set_title(f"sigma_p = {sp_}: {col.replace('_', ' ')}", fontsize=8)
                axes[i][j].grid(True, alpha=0.3)
        axes[i][0].legend(fontsize=7)
    for ax in axes[-1]:
        ax.set_xlabel("iteration")
    with AtomicGroup() as group:  # the figure and its CSV appear together or not at all
        save(fig, group.path(out))
        if csv_path:
            shutil.copyfile(DATA, group.path(csv_path))
    return [
        "paper scale, seed 0 (q = 3, kappa = 0.05, sigma_0 = 0.001, 3000 iterations, 2000 test points; "
        "see docs/shi26.md for these choices and whether the paper's numbers reproduce)"
    ]


REGISTRY.add_figure(Figure("shi26-fig1", "Figure 1: GD and DP-GD on the two-layer CNN (training loss, test "
                           "accuracy and loss; reduced scale by default)", figure1, paper="shi26"))
