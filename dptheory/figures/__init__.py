"""Figures reproduced from the encoded theorems (matplotlib, Agg backend, deterministic output)."""

from __future__ import annotations

from collections.abc import Callable

from . import maxinfo, shi26
from .yeshokri22 import figure1, figure2

FIGURES: dict[str, Callable[..., list[str]]] = {
    "yeshokri22-fig1": figure1,
    "yeshokri22-fig2": figure2,
    "shi26-fig1": shi26.figure1,
    "lz26-maxinfo-vs-n": maxinfo.maxinfo_vs_n,
    "maxinfo-toy-audit": maxinfo.toy_audit,
}
