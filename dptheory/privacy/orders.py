"""The Rényi order alpha as every RDP statement takes it: a finite real number > 1 (Mironov 2017, "Rényi
Differential Privacy", Def. 3: the Rényi divergence of order alpha > 1; the orders 1 and infinity are limits,
never accepted here). One check, used by the conversions (:mod:`dptheory.privacy.conversion`) and the
Poisson-subsampled Gaussian's kernels (:mod:`dptheory.privacy.sgm.validate`)."""

from __future__ import annotations

from typing import Any

import mpmath

from dptheory.core.validate import number_text, to_mpf

__all__ = ["renyi_order"]


def renyi_order(value: Any, where: str, *, what: str = "order alpha", name: str | None = "alpha") -> mpmath.mpf:
    """``value`` as an mpmath number (:func:`dptheory.core.validate.to_mpf`, at the caller's precision) when it is a
    Rényi order, a finite real number > 1.

    Args:
        value: the order as given (int, float, mpf, numeric string).
        where: the function that was called, first in the message.
        what: the argument, as the message names it (``"order alpha"``; ``"every order"`` for a list).
        name: shown before the value (``got alpha=0.5``); ``None`` shows the value alone (``got 0.5``).

    Raises:
        ValueError: ``"{where}: {what} must be a real number > 1, got ..."`` when ``value`` is not a number
            (a bool included), ``"{where}: {what} must be finite and > 1, got ..."`` when it is NaN, infinite or
            <= 1.
    """
    got = number_text(value) if name is None else f"{name}={number_text(value)}"
    try:
        a = to_mpf(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: {what} must be a real number > 1, got {got}") from exc
    if not mpmath.isfinite(a) or not a > 1:
        raise ValueError(f"{where}: {what} must be finite and > 1, got {got}")
    return a
