"""The one parameter parser of the command line: ``name=value`` items (values stay strings, parsed exactly later)."""

from __future__ import annotations

from collections.abc import Sequence

from dptheory.core.errors import DPTheoryError


class UsageError(DPTheoryError):
    """A malformed command line (exit status 2)."""


def parse_params(items: Sequence[str]) -> dict[str, str]:
    """``["alpha=10", "K=1..50"]`` -> ``{"alpha": "10", "K": "1..50"}``; a repeated name is an error."""
    out: dict[str, str] = {}
    for it in items:
        if "=" not in it:
            raise UsageError(f"expected name=value, got {it!r}")
        k, v = it.split("=", 1)
        k = k.strip()
        if not k:
            raise UsageError(f"expected name=value, got {it!r} (the name is empty)")
        if k in out:
            raise UsageError(f"parameter {k!r} is given twice ({k}={out[k]} and {k}={v.strip()}); give it once")
        out[k] = v.strip()
    return out
