"""``python -m dptheory.explore [KEY ...] [name=value ...] [--port N] [--no-browser]``: the same as
``dptheory explore`` (see :mod:`dptheory.explore.command`)."""

from __future__ import annotations

import argparse
import sys

from dptheory.core.errors import DPTheoryError
from dptheory.explore.command import add_parser


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dptheory.explore")
    sub = parser.add_subparsers(dest="command")
    add_parser(sub)
    args = parser.parse_args(["explore", *(sys.argv[1:] if argv is None else argv)])
    try:
        return int(args.func(args))
    except (DPTheoryError, OSError) as exc:  # OSError: the port is taken, or the address is not ours
        print(f"dptheory: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
