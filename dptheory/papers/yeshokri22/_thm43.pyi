"""Interface of the optional C kernel ``_thm43.c`` (built by setup.py when a C compiler is available)."""

import numpy as np

def epochs(out: np.ndarray, N: int, q: float, c: float, one_minus_r: float, /) -> None:
    """Fill ``out[k]`` (a writable float64 buffer of length K) with log S after k+1 epochs of the
    Thm 4.3 recurrence (Ye & Shokri 2022, arXiv:2203.05363)."""
