"""Plot helpers shared by the CLI and the figure reproductions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def new_figure(ncols: int = 1, width: float = 5.0, height: float = 3.8) -> tuple[Any, Any]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, ncols, figsize=(width * ncols, height), squeeze=False)
    return fig, axes[0]


def save(fig: Any, path: str) -> None:
    """Save without timestamps or version metadata, so the same inputs give the same bytes."""
    import matplotlib.pyplot as plt

    meta: dict[str, Any] = {"Software": None}
    if path.lower().endswith(".pdf"):
        meta = {"Creator": None, "Producer": None, "CreationDate": None}
    elif path.lower().endswith(".svg"):
        meta = {"Date": None}
    fig.savefig(path, dpi=150, bbox_inches="tight", metadata=meta)
    plt.close(fig)


def plot_sweep(results: Sequence[Any], names: Sequence[str], path: str, *, logy: bool = True) -> None:
    """One line per theorem (and per value of a second swept parameter) against the first swept parameter."""
    fig, (ax,) = new_figure()
    x_name = names[0]
    for r in results:
        if x_name not in r.names:
            continue
        xi = r.names.index(x_name)
        x = r.axes[xi]
        others = [i for i in range(len(r.names)) if i != xi]
        vals = np.moveaxis(r.values, xi, 0).reshape(len(x), -1)
        import itertools

        combos = list(itertools.product(*(r.axes[i] for i in others)))
        for j, combo in enumerate(combos):
            lab = r.key.split(".")[-1] + "".join(f", {r.names[i]}={v:g}" for i, v in zip(others, combo, strict=True))
            ax.plot(x, vals[:, j], label=lab)
    ax.set_xlabel(x_name)
    ax.set_ylabel(f"bound ({results[0].unit})")
    if logy:
        ax.set_yscale("log")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    save(fig, path)
