"""Ye & Shokri 2022, Figures 1 and 2, reproduced from the encoded theorems.

Setting of both figures (captions): alpha in {10, 15}, lambda = 1, beta = 4, S_g = 4, n = 50,
eta = 0.02, sigma^2 = 4 (sigma = 2), b = 2. The epoch range is not stated; we plot K = 1..200.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from dptheory.core.io import AtomicGroup, atomic_write
from dptheory.core.registry import REGISTRY, Figure
from dptheory.evaluate.sweep import sweep
from dptheory.papers.yeshokri22.theorems import FIGURE_SETTING
from dptheory.report.plotting import new_figure, save

K_RANGE = list(range(1, 201))
ALPHAS = [10, 15]
FIG2_ALPHAS = [10, 15, 20]  # the sentence of claim C7 names alpha = 20 too (where it fails)
COLORS = {10: "tab:blue", 15: "tab:red", 20: "tab:green"}
N_BATCHES = FIGURE_SETTING["n"] // FIGURE_SETTING["b"]  # mini-batches per epoch, floor(n/b) = 25
CSV_DIGITS = 12  # significant digits of a CSV column unless it declares fewer


def _curve(key: str, alpha: int, extra: dict[str, Any] | None = None) -> np.ndarray:
    thm = REGISTRY.get(key)
    fixed = {k: v for k, v in {**FIGURE_SETTING, "alpha": alpha, **(extra or {})}.items() if k in thm.params}
    return sweep(thm, {"K": K_RANGE}, fixed).values


def _write_csv(path: str | Path, columns: dict[str, np.ndarray], digits: Mapping[str, int]) -> None:
    """One row per epoch K; each column at its ``digits`` significant digits (:data:`CSV_DIGITS` if not given)."""
    shown = {c: digits.get(c, CSV_DIGITS) for c in columns}
    with atomic_write(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["K", *columns])
        for i, k in enumerate(K_RANGE):
            w.writerow([k, *(f"{columns[c][i]:.{shown[c]}g}" for c in columns)])


def _save(fig: Any, out: str, csv_path: str | None, cols: dict[str, np.ndarray],
          digits: Mapping[str, int] | None = None) -> None:
    """Write the figure and, with ``csv_path``, its CSV (:func:`_write_csv`): both appear or neither."""
    with AtomicGroup() as group:
        save(fig, group.path(out))
        if csv_path:
            _write_csv(group.path(csv_path), cols, digits or {})


def _legend_below(ax: Any, ncol: int = 2) -> None:
    """The legend under the axes, so it covers no curve (Fig. 1(a): it hid the Balle et al. curves)."""
    ax.legend(fontsize=6, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=ncol, frameon=False)


def _finish(fig, out: str, csv_path: str | None, cols: dict[str, np.ndarray], panels) -> None:
    """Shared axes styling (log RDP against epochs), then the figure and its CSV."""
    for ax, title in panels:
        ax.set_yscale("log")
        ax.set_xlabel("epochs K")
        ax.set_ylabel(r"RDP $\varepsilon$ (nats)")
        ax.set_title(title, fontsize=9)
        ax.grid(True, alpha=0.3)
        _legend_below(ax)
    _save(fig, out, csv_path, cols)


def figure1(out: str, *, csv_path: str | None = None) -> list[str]:
    """Figure 1: fixed-order noisy mini-batch GD, first (a) and last (b) mini-batch."""
    fig, (ax1, ax2) = new_figure(2)
    cols: dict[str, np.ndarray] = {}
    for a in ALPHAS:
        c = COLORS[a]
        for ax, j0, balle, tag in (
            (ax1, 0, "yeshokri22.balle_first", "first"),
            (ax2, N_BATCHES - 1, "yeshokri22.balle_last", "last"),
        ):
            ours = _curve("yeshokri22.thm3_3", a, {"j0": j0})
            naive = _curve("yeshokri22.thm2_1", a)
            bal = _curve(balle, a)
            ax.plot(K_RANGE, ours, color=c, lw=2.2, label=rf"Thm 3.3, $\alpha$={a}")
            ax.plot(K_RANGE, naive, color=c, lw=0.8, label=rf"Thm 2.1 (naive), $\alpha$={a}")
            ax.plot(K_RANGE, bal, color=c, lw=1.2, ls="--", label=rf"Balle et al. + composition, $\alpha$={a}")
            cols[f"thm3_3_{tag}_a{a}"] = ours
            cols[f"thm2_1_a{a}"] = naive
            cols[f"{balle.split('.')[-1]}_a{a}"] = bal
    _finish(fig, out, csv_path, cols, ((ax1, "(a) data points in the first mini-batch"),
                                       (ax2, "(b) data points in the last mini-batch")))
    return [
        f"{len(K_RANGE)} epochs, alpha in {ALPHAS}; crossovers: dptheory crossover yeshokri22.thm3_3 "
        "yeshokri22.balle_first --over K ..."
    ]


def figure2(out: str, *, csv_path: str | None = None) -> list[str]:
    """Figure 2: (a) shuffle and partition, (b) sampling without replacement, against composition."""
    fig, (ax1, ax2) = new_figure(2)
    cols: dict[str, np.ndarray] = {}
    for a in FIG2_ALPHAS:
        c = COLORS[a]
        s42 = _curve("yeshokri22.thm4_2", a)
        last = _curve("yeshokri22.thm3_3", a, {"j0": N_BATCHES - 1})
        comp = _curve("yeshokri22.composition", a)
        s43 = _curve("yeshokri22.thm4_3", a)
        ax1.plot(K_RANGE, s42, color=c, lw=2.2, label=rf"Thm 4.2 (shuffle & partition), $\alpha$={a}")
        ax1.plot(K_RANGE, last, color=c, lw=0.8, ls="--", label=rf"Thm 3.3 last batch, $\alpha$={a}")
        ax1.plot(K_RANGE, comp, color=c, lw=0.8, label=rf"composition (exact SGM), $\alpha$={a}")
        ax2.plot(K_RANGE, s43, color=c, lw=2.2, label=rf"Thm 4.3 (without replacement), $\alpha$={a}")
        ax2.plot(K_RANGE, comp, color=c, lw=0.8, label=rf"composition (exact SGM), $\alpha$={a}")
        cols.update({f"thm4_2_a{a}": s42, f"thm3_3_last_a{a}": last, f"composition_a{a}": comp, f"thm4_3_a{a}": s43})
    _finish(fig, out, csv_path, cols, ((ax1, "(a) shuffle and partition"), (ax2, "(b) (re)sample without replacement")))
    return [
        f"{len(K_RANGE)} epochs, alpha in {FIG2_ALPHAS}; composition is the exact Poisson-subsampled Gaussian RDP "
        "(q = b/n, z = sqrt(2 eta sigma^2)/(eta S_g/b), T = K n/b)"
    ]


EPSDELTA_DELTA = 1e-5  # the paper states no delta for its figures (they are in RDP); ours, as in the claims


def figure_epsdelta(out: str, *, csv_path: str | None = None) -> list[str]:
    """Thm 4.2 and Thm 4.3 in (epsilon, delta = 1e-5), the order optimised per K, against composition.

    Baselines: RDP composition of the paper's Poisson baseline with the best conversion, its tight PLD
    composition (dp-accounting; the bracket [lower, upper] drawn as a band) and, for Thm 4.3, WBK19's
    without-replacement RDP composition (``rdp.sampled_wor_gaussian``). Crossovers (first epoch from which
    the bound is certainly below the baseline) are marked: ``yeshokri22.epsdelta.crossover_epochs``.
    """
    from dptheory.papers.yeshokri22.claims_epsdelta import PLD_DIGITS
    from dptheory.papers.yeshokri22.epsdelta import crossovers, epsilon_delta_curve

    base = {k: v for k, v in FIGURE_SETTING.items()}
    d = EPSDELTA_DELTA
    c42 = epsilon_delta_curve("yeshokri22.thm4_2", base, K_RANGE, d)
    c43 = epsilon_delta_curve("yeshokri22.thm4_3", base, K_RANGE, d, wor=True)
    x = np.array(K_RANGE)

    def col(curve: Any, name: str) -> np.ndarray:
        return np.array([getattr(p, name) for p in curve.points])

    def band(curve: Any) -> tuple[np.ndarray, np.ndarray]:
        # each curve's own bracket: it is refined where it has to decide that curve's bound
        return (np.array([p.pld.epsilon_lower for p in curve.points]),
                np.array([p.pld.epsilon_upper for p in curve.points]))

    rdp, wor = col(c43, "rdp"), col(c43, "wor")
    h42, h43 = col(c42, "hidden"), col(c43, "hidden")
    (lo42, up42), (lo43, up43) = band(c42), band(c43)
    fig, (ax1, ax2) = new_figure(2)
    info = []
    styles = {"rdp": ("tab:orange", "o"), "pld": ("tab:green", "s"), "wor": ("tab:purple", "^")}
    for ax, curve, h, (pld_lo, pld_up), label in (
        (ax1, c42, h42, (lo42, up42), "Thm 4.2 (shuffle & partition)"),
        (ax2, c43, h43, (lo43, up43), "Thm 4.3 (without replacement)"),
    ):
        ax.plot(x, h, color="black", lw=2.2, label=f"{label}, order optimised")
        ax.plot(x, rdp, color="tab:orange", lw=1.2, label="RDP composition (Poisson), best conversion")
        ax.fill_between(x, pld_lo, pld_up, color="tab:green", alpha=0.35, lw=0)
        ax.plot(x, pld_up, color="tab:green", lw=0.8, label="PLD composition (Poisson): bracket [lower, upper]")
        if curve is c43:
            ax.plot(x, wor, color="tab:purple", lw=1.2, ls="--",
                    label="RDP composition without replacement (WBK19), best conversion")
        for b, cr in crossovers(curve).items():
            color, mk = styles[b]
            info.append(f"{curve.key}: {cr.describe()}")
            if cr.undecided:
                idx = [K_RANGE.index(k) for k in cr.undecided]
                ax.plot([K_RANGE[i] for i in idx], h[idx], marker=mk, mfc="none", color=color, ms=8, ls="none",
                        label=f"inside the {b.upper()} bracket at K = {', '.join(map(str, cr.undecided))}")
            if cr.first_win is None:
                continue
            i = K_RANGE.index(cr.first_win)
            ax.axvline(cr.first_win, color=color, lw=0.8, ls=":")
            ax.plot([cr.first_win], [h[i]], marker=mk, color=color, ms=6, ls="none",
                    label=f"below {b.upper()} from K = {cr.first_win}")
        ax.set_yscale("log")
        ax.set_xlabel("epochs K")
        ax.set_ylabel(rf"$\varepsilon$ at $\delta$ = {d:g} (nats)")
        ax.grid(True, alpha=0.3)
        _legend_below(ax, ncol=1)
    ax1.set_title("(a) shuffle and partition", fontsize=9)
    ax2.set_title("(b) (re)sample without replacement", fontsize=9)
    pld = {"pld_lower_thm4_2": lo42, "pld_upper_thm4_2": up42, "pld_lower_thm4_3": lo43, "pld_upper_thm4_3": up43}
    cols = {"thm4_2": h42, "thm4_3": h43, "rdp_composition": rdp, **pld, "wor_composition": wor}
    # the PLD bracket ends at the claims' reproducible digits: dp-accounting's float64 FFT moves the later ones
    # between machines
    _save(fig, out, csv_path, cols, digits=dict.fromkeys(pld, PLD_DIGITS))
    return [
        f"{len(K_RANGE)} epochs, delta = {d:g} (ours: the paper states none), Figure 2 setting (q = 0.04, z = 10, "
        "25 steps per epoch); every RDP quantity converted with its order optimised per K (improved conversion); "
        "PLD: dp-accounting bracket, refined where it cannot decide",
        *info,
    ]


REGISTRY.add_figure(Figure("yeshokri22-fig1", "Figure 1: fixed-order noisy mini-batch GD (Thm 3.3 vs Thm 2.1 and "
                           "Balle et al. + composition)", figure1, paper="yeshokri22"))
REGISTRY.add_figure(Figure("yeshokri22-fig2", "Figure 2: shuffle and partition (Thm 4.2) and sampling without "
                           "replacement (Thm 4.3) against composition", figure2, paper="yeshokri22"))
REGISTRY.add_figure(Figure("yeshokri22-fig-epsdelta", "Thm 4.2 and Thm 4.3 in (epsilon, delta = 1e-5) against RDP "
                           "and PLD composition (and without-replacement composition), per epoch, crossovers "
                           "marked", figure_epsdelta, paper="yeshokri22"))
