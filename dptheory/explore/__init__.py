"""``dptheory explore``: the theorems in a browser page (Panel), with a pure-Python model underneath.

The ``explore`` subcommand is :mod:`dptheory.cli.explore`. ``import dptheory.explore`` is light: panel and
bokeh are imported by :func:`build_app` and :func:`serve` only (install them with ``pip install 'dptheory[explore]'``).
"""

from __future__ import annotations

from typing import Any


def build_app(keys: list[str] | tuple[str, ...] = (), values: dict[str, Any] | None = None) -> Any:
    """The explorer page for ``keys`` (default: Ye & Shokri's Figure 2 comparison) as a Panel object."""
    from dptheory.explore.app import build_app as _build

    return _build(keys, values)


def serve(
    keys: list[str] | tuple[str, ...] = (),
    *,
    port: int = 0,
    show: bool = False,
    address: str = "127.0.0.1",
    values: dict[str, Any] | None = None,
) -> None:
    """Serve the explorer on ``address:port`` (0: a free port), print its URL, block until interrupted."""
    from dptheory.explore.app import serve as _serve

    _serve(keys, port=port, show=show, address=address, values=values)


__all__ = ["DEFAULT_KEYS", "Explorer", "build_app", "serve"]


def __getattr__(name: str) -> Any:
    """``DEFAULT_KEYS`` and ``Explorer`` load the model (and the registry) only when used."""
    if name in ("DEFAULT_KEYS", "Explorer"):
        from dptheory.explore import model

        return getattr(model, name)
    raise AttributeError(f"module 'dptheory.explore' has no attribute {name!r}")
