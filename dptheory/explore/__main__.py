"""``python -m dptheory.explore [KEY ...] [name=value ...] [--port N] [--no-browser]``: the same as
``dptheory explore`` (:mod:`dptheory.cli.explore`), with the command line's one-line errors and exit status."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    from dptheory.cli import main as cli_main

    return cli_main(["explore", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
