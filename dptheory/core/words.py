"""Small pieces of English that several layers print (the command line, the verdict sentences, the reports)."""

from __future__ import annotations

__all__ = ["plural"]


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 point``, ``2 points``; ``many`` for an irregular plural (``plural(3, "box", "boxes")``)."""
    if many is None:
        many = word + ("es" if word.endswith(("s", "x", "sh", "ch")) else "s")
    return f"{n} {word if n == 1 else many}"
