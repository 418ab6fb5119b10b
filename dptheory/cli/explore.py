"""The ``explore`` subcommand of the command line (the model and the page are :mod:`dptheory.explore`)::

    from dptheory.cli.explore import add_parser
    add_parser(subparsers)          # adds `dptheory explore [KEY ...] [name=value ...] [--port N] [--no-browser]`

``args.func(args)`` serves the page and returns 0 when the server is stopped (Ctrl-C). Errors in keys or
values are :class:`dptheory.core.errors.DPTheoryError` raised before the server starts, so the CLI's
usual one-line error applies.
"""

from __future__ import annotations

import argparse
from typing import Any


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``explore`` to ``subparsers`` (the object ``ArgumentParser.add_subparsers`` returns)."""
    s: argparse.ArgumentParser = subparsers.add_parser(
        "explore",
        help="explore bounds in the browser: sliders, live plots, crossovers, conditions, (eps, delta)",
        description="Serve a local web page (Panel) to explore theorems: one control per parameter, "
        "values at 12 digits with their conditions, curves against a parameter, crossovers and "
        "(eps, delta). Without KEY: the comparison a paper declares ([explorer] in its report.toml: Ye & Shokri's "
        "Theorems 4.2, 4.3 and the composition baseline) at their Figure 2 setting. Needs "
        "`pip install 'dptheory[explore]'`.",
    )
    s.add_argument("items", nargs="*", metavar="KEY|name=value",
                   help="theorem keys, and optionally starting values (`dptheory list` shows the keys)")
    s.add_argument("--port", type=int, default=0, help="port to listen on (default: a free port)")
    s.add_argument("--address", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    s.add_argument("--no-browser", dest="show", action="store_false", help="do not open a browser")
    s.set_defaults(func=cmd_explore, params=[])
    return s


def cmd_explore(args: argparse.Namespace) -> int:
    from dptheory.cli.params import parse_params
    from dptheory.core.errors import DPTheoryError
    from dptheory.explore.model import Explorer

    items = list(args.items) + list(getattr(args, "params", []) or [])
    keys = [x for x in items if "=" not in x]
    values = parse_params([x for x in items if "=" in x])
    if not 0 <= args.port <= 65535:
        raise DPTheoryError(f"explore: --port must be between 0 and 65535 (0: a free port); got {args.port}")
    Explorer(keys, values)  # validate keys and values before importing panel or binding a port
    from dptheory.core.extras import require

    for module in ("panel", "bokeh"):
        require(module, feature="dptheory explore")
    from dptheory.explore.app import serve

    serve(keys, port=args.port, show=args.show, address=args.address, values=values)
    return 0
