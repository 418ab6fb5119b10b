"""Figures reproduced from the encoded theorems (matplotlib, Agg backend, deterministic output)."""

from __future__ import annotations

from collections.abc import Callable

from .yeshokri22 import figure1, figure2

FIGURES: dict[str, Callable[..., list[str]]] = {
    "yeshokri22-fig1": figure1,
    "yeshokri22-fig2": figure2,
}
