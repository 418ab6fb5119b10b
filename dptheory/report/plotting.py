"""Plot helpers shared by the CLI and the figure reproductions."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from dptheory.core.errors import DPTheoryError


def new_figure(ncols: int = 1, width: float = 5.0, height: float = 3.8) -> tuple[Any, Any]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, ncols, figsize=(width * ncols, height), squeeze=False)
    return fig, axes[0]


def save(fig: Any, path: str | os.PathLike[str]) -> None:
    """Save without timestamps or version metadata, so the same inputs give the same bytes.

    The file is written whole or not at all (:func:`dptheory.core.io.atomic_write`); the format comes
    from the extension (png, pdf, svg, ...). The figure is closed in every case.
    """
    import matplotlib.pyplot as plt

    from dptheory.core.io import atomic_write

    name = os.fspath(path)
    ext = Path(name).suffix.lower().lstrip(".")
    if ext == "part":  # a temporary name of dptheory.core.io for a target without extension
        ext = ""
    meta: dict[str, Any] = {"Software": None}
    if ext == "pdf":
        meta = {"Creator": None, "Producer": None, "CreationDate": None}
    elif ext == "svg":
        meta = {"Date": None}
    try:
        supported = fig.canvas.get_supported_filetypes()
        if ext and ext not in supported:
            raise DPTheoryError(
                f"cannot write the figure {name}: unknown format {ext!r}; use one of {', '.join(sorted(supported))}"
            )
        with atomic_write(name, "wb") as fh:
            fig.savefig(fh, format=ext or "png", dpi=150, bbox_inches="tight", metadata=meta)
    finally:
        plt.close(fig)


def plot_sweep(results: Sequence[Any], names: Sequence[str], path: str, *, logy: bool = True) -> None:
    """One line per theorem (and per value of a second swept parameter) against the first swept parameter.

    Points in the log domain of a sweep (values beyond float64) cannot be drawn on a float axis; when
    there are any, every curve is drawn as log10 of the bound on a linear axis instead, so no point
    is shown at a float64 underflow (0) or overflow.
    """
    import itertools

    fig, (ax,) = new_figure()
    x_name = names[0]
    beyond = any(
        r.beyond_float64(idx)
        for r in results
        for idx in itertools.product(*(range(len(a)) for a in r.axes))
        if hasattr(r, "beyond_float64")
    )
    for r in results:
        if x_name not in r.names:
            continue
        xi = r.names.index(x_name)
        x = r.axes[xi]
        others = [i for i in range(len(r.names)) if i != xi]
        ys = r.log_values / math.log(10.0) if beyond else r.values
        vals = np.moveaxis(ys, xi, 0).reshape(len(x), -1)
        combos = list(itertools.product(*(r.axes[i] for i in others)))
        for j, combo in enumerate(combos):
            lab = r.key.split(".")[-1] + "".join(f", {r.names[i]}={v:g}" for i, v in zip(others, combo, strict=True))
            ax.plot(x, vals[:, j], label=lab)
    ax.set_xlabel(x_name)
    if beyond:
        ax.set_ylabel(f"log10 of the bound ({results[0].unit})")
    else:
        ax.set_ylabel(f"bound ({results[0].unit})")
        if logy:
            ax.set_yscale("log")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    save(fig, path)
