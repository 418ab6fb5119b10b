"""Plot helpers shared by the CLI and the figure reproductions."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from dptheory.core.errors import DPTheoryError


def matplotlib_for_files() -> Any:
    """``matplotlib`` with the Agg backend: every figure of dptheory is written to a file, so Agg is always right,
    whatever the ``MPLBACKEND`` environment variable names (an unknown name there makes ``import matplotlib`` itself
    fail, so it is hidden during the first import; the variable is left as it was)."""
    import sys

    if "matplotlib" not in sys.modules:
        saved = os.environ.pop("MPLBACKEND", None)
        try:
            import matplotlib
        finally:
            if saved is not None:
                os.environ["MPLBACKEND"] = saved
    import matplotlib

    matplotlib.use("Agg")
    return matplotlib


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend (:func:`matplotlib_for_files`)."""
    matplotlib_for_files()
    import matplotlib.pyplot as plt

    return plt


def new_figure(ncols: int = 1, width: float = 5.0, height: float = 3.8) -> tuple[Any, Any]:
    plt = pyplot()
    fig, axes = plt.subplots(1, ncols, figsize=(width * ncols, height), squeeze=False)
    return fig, axes[0]


def save(fig: Any, path: str | os.PathLike[str]) -> None:
    """Save without timestamps or version metadata, so the same inputs give the same bytes.

    The file is written whole or not at all (:func:`dptheory.core.io.atomic_write`); the format comes
    from the extension (png, pdf, svg, ...). The figure is closed in every case.
    """
    from dptheory.core.io import atomic_write

    plt = pyplot()
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


_LINESTYLES: tuple[Any, ...] = ("-", "--", ":", "-.", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 3)), (0, (8, 3)))


def sweep_figure(
    results: Sequence[Any], names: Sequence[str], *, logy: bool = True, fixed: Mapping[str, Any] | None = None
) -> Any:
    """The figure of :func:`plot_sweep` (not saved): one colour per theorem, one line style per value of the
    other swept parameters, the theorem keys as title, the fixed parameters (default: the results' ``fixed``) in
    small text under it, and the legend
    outside the axes (right of them), so it never covers a curve.

    Points in the log domain of a sweep (values beyond float64) cannot be drawn on a float axis; when
    there are any, every curve is drawn as log10 of the bound on a linear axis instead, so no point
    is shown at a float64 underflow (0) or overflow.
    """
    import itertools
    import textwrap

    matplotlib = matplotlib_for_files()
    fig, (ax,) = new_figure()
    x_name = names[0]
    beyond = any(
        r.beyond_float64(idx)
        for r in results
        for idx in itertools.product(*(range(len(a)) for a in r.axes))
        if hasattr(r, "beyond_float64")
    )
    colours = matplotlib.colormaps["tab10"].colors
    for k, r in enumerate(results):
        if x_name not in r.names:
            continue
        xi = r.names.index(x_name)
        x = r.axes[xi]
        others = [i for i in range(len(r.names)) if i != xi]
        ys = r.log_values / math.log(10.0) if beyond else r.values
        vals = np.moveaxis(ys, xi, 0).reshape(len(x), -1)
        combos = list(itertools.product(*(r.axes[i] for i in others)))
        for j, combo in enumerate(combos):
            lab = r.key + "".join(f", {r.names[i]}={v:g}" for i, v in zip(others, combo, strict=True))
            ax.plot(x, vals[:, j], label=lab, color=colours[k % len(colours)],
                    linestyle=_LINESTYLES[j % len(_LINESTYLES)])
    ax.set_xlabel(x_name)
    if beyond:
        ax.set_ylabel(f"log10 of the bound ({results[0].unit})")
    else:
        ax.set_ylabel(f"bound ({results[0].unit})")
        if logy:
            ax.set_yscale("log")
    ax.grid(True, alpha=0.3)
    fig.suptitle(textwrap.fill(" vs ".join(r.key for r in results), 70), fontsize=10)
    if fixed is None:  # the parameters every result held fixed (each theorem's own, merged in order)
        fixed = {k: v for r in results for k, v in getattr(r, "fixed", {}).items()}
    if fixed:
        note = ", ".join(f"{k} = {v}" for k, v in fixed.items())
        ax.set_title(textwrap.fill("fixed: " + note, 90), fontsize=7)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    return fig


def plot_sweep(
    results: Sequence[Any],
    names: Sequence[str],
    path: str,
    *,
    logy: bool = True,
    fixed: Mapping[str, Any] | None = None,
) -> None:
    """Save :func:`sweep_figure` (format from the extension; written whole or not at all)."""
    save(sweep_figure(results, names, logy=logy, fixed=fixed), path)
