"""The ``dptheory`` command line.

``main(argv) -> int`` so tests call it in-process. Generic commands (:mod:`dptheory.cli.commands`):
list, show, eval, sweep, crossover, convert, check, figure, report. Every paper package with a
``cli`` module contributes its commands under its own name, ``dptheory <paper> <command>``
(``dptheory yeshokri22 train``, ``dptheory shi26 fig1``, ``dptheory maxinfo bounds``): the package's
``add_subcommands(group)`` receives the paper's sub-parser collection.

Errors print one clear line on stderr (theorem, condition, values, citation) and exit 1; usage
errors exit 2; ``check`` exits 3 when a verdict differs from what the registry records (a new finding
to pin, or a pinned counterexample that no longer falsifies); audits exit 3 when a measured
assumption or an upper bound is violated by a trained model (a finding).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from collections.abc import Sequence
from typing import Any

from dptheory import __version__
from dptheory.cli.commands import (
    cmd_check,
    cmd_convert,
    cmd_crossover,
    cmd_eval,
    cmd_figure,
    cmd_list,
    cmd_report,
    cmd_show,
    cmd_sweep,
)
from dptheory.cli.params import UsageError
from dptheory.core.errors import ConditionViolated, DPTheoryError


class _FigureParser(argparse.ArgumentParser):
    """The ``figure`` sub-parser: its help lists every registered figure (papers are loaded only for this help)."""

    def format_help(self) -> str:
        from dptheory.core.registry import REGISTRY

        lines = ["figures:"] + [f"  {f.name:<22} {f.title}" for f in REGISTRY.figures()]
        self.epilog = "\n".join(lines)
        self.formatter_class = argparse.RawDescriptionHelpFormatter
        return super().format_help()


def add_paper_groups(sub: Any) -> None:
    """``dptheory <paper> ...`` for every discovered paper package that has a ``cli`` module."""
    from dptheory.core.registry import paper_packages

    for pkg in paper_packages():
        name = f"{pkg}.cli"
        if importlib.util.find_spec(name) is None:
            continue
        mod = importlib.import_module(name)
        paper = pkg.rsplit(".", 1)[-1]
        doc = (importlib.import_module(pkg).__doc__ or paper).strip().splitlines()[0]
        top = sub.add_parser(paper, help=getattr(mod, "GROUP_HELP", doc), description=mod.__doc__,
                             formatter_class=argparse.RawDescriptionHelpFormatter)
        group = top.add_subparsers(dest=f"{paper}_command", required=True, metavar="COMMAND")
        mod.add_subcommands(group)
# ----------------------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="dptheory",
        description="Symbolic and numeric verifier of differential-privacy "
        "theory: evaluate bounds, check conditions and claimed orderings.",
    )
    p.add_argument("--version", action="version", version=f"dptheory {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("list", help="list encoded theorems (and claims)")
    s.add_argument("--claims", action="store_true", help="list claims instead of theorems")
    s.add_argument("--all", action="store_true", help="list theorems and claims")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_list)

    s = sub.add_parser("show", help="statement, conditions and citation of a theorem or claim")
    s.add_argument("key")
    s.add_argument("--latex", action="store_true", help="print the bound and conditions in LaTeX")
    s.set_defaults(func=cmd_show)

    s = sub.add_parser("eval", help="evaluate a bound at a point (mpmath, default 50 digits)")
    s.add_argument("key")
    s.add_argument("params", nargs="*", metavar="name=value")
    s.add_argument("--dps", type=int, default=50, help="significant digits (default 50)")
    s.add_argument("--json", action="store_true")
    s.add_argument("--no-check", action="store_true", help="evaluate even if a condition is violated (listed)")
    s.add_argument("--term", help="evaluate one named term of the bound")
    s.add_argument("--unit", choices=["nats", "bits"], default="nats")
    s.set_defaults(func=cmd_eval)

    s = sub.add_parser("sweep", help="evaluate on a grid (float64; mpmath where float64 overflows)")
    s.add_argument("key")
    s.add_argument("params", nargs="*", metavar="name=spec", help="K=1..200, alpha=10,15, eta=0.01..0.1:20, n=50")
    s.add_argument("--compare", nargs="*", default=[], metavar="KEY", help="other theorems on the same grid")
    s.add_argument("--csv", help="write the table to a CSV file")
    s.add_argument("--plot", help="write a plot (PNG/PDF)")
    s.add_argument("--linear", action="store_true", help="linear y axis in the plot")
    s.add_argument("--json", action="store_true")
    s.add_argument("--print", action="store_true", help="print the table even with --csv")
    s.add_argument("--skip-invalid", action="store_true", help="skip points violating a condition instead of failing")
    s.set_defaults(func=cmd_sweep)

    s = sub.add_parser("crossover", help="the value after which KEY1 stays below KEY2")
    s.add_argument("key1")
    s.add_argument("key2")
    s.add_argument("params", nargs="*", metavar="name=value")
    s.add_argument("--over", required=True, help="parameter to move (e.g. K)")
    s.add_argument("--from", dest="start", default="1")
    s.add_argument("--to", dest="stop", default="1000")
    s.add_argument("--dps", type=int, default=50)
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_crossover)

    s = sub.add_parser("convert", help="RDP bound -> (epsilon, delta), optimised over the order alpha")
    s.add_argument("key")
    s.add_argument("params", nargs="*", metavar="name=value", help="every parameter except alpha")
    s.add_argument("--delta", type=float, required=True)
    s.add_argument("--method", choices=["improved", "classic", "both"], default="improved")
    s.add_argument("--orders", help="comma-separated orders instead of a continuous search")
    s.add_argument("--alpha-min", default=None)
    s.add_argument("--alpha-max", default=None)
    s.add_argument("--dps", type=int, default=50)
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_convert)

    s = sub.add_parser("check", help="check the papers' claims (symbolic, exhaustive or property-based)")
    s.add_argument("--claim", nargs="*", default=[], metavar="KEY")
    s.add_argument("--examples", type=int, default=100, help="examples per property search (default 100)")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--dps", type=int, default=50, help="digits for re-verification (at least 50)")
    s.add_argument("--json", action="store_true")
    s.add_argument("--fresh", action="store_true", help="ignore pinned counterexamples and search anew")
    s.add_argument("--no-progress", dest="progress", action="store_false")
    s.set_defaults(func=cmd_check, progress=None)

    add_paper_groups(sub)

    from dptheory.explore.command import add_parser as add_explore

    add_explore(sub)

    s = sub.add_parser("report", help="LaTeX report of a paper's theorems, values, crossovers, claims, figures")
    s.add_argument("--paper", help="registry prefix, e.g. yeshokri22 (its own settings are the default)")
    s.add_argument("--params", help="TOML file of named parameter sets (schema: reports/README.md)")
    s.add_argument("--claims", dest="claims", action="store_true", default=None, help="check and report the claims")
    s.add_argument("--no-claims", dest="claims", action="store_false")
    s.add_argument("--claim-examples", type=int, default=None)
    s.add_argument("--out", required=True, help="output directory (report.tex, figures, report.pdf)")
    s.add_argument("--no-pdf", action="store_true", help="do not run pdflatex even if it is installed")
    s.add_argument("--no-progress", dest="progress", action="store_false")
    s.set_defaults(func=cmd_report, progress=None)

    s = sub.add_parser("figure", help="reproduce a paper figure from the encoded theorems")
    s.__class__ = _FigureParser  # lists the registered figures in its help, discovering papers only then
    s.add_argument("name", help="figure name (listed below)")
    s.add_argument("--out", required=True)
    s.add_argument("--csv", help="also write the plotted values")
    s.set_defaults(func=cmd_figure)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:
        # name=value parameters may come after options (argparse cannot intermix them with subcommands)
        if hasattr(args, "params") and all("=" in x and not x.startswith("-") for x in extra):
            args.params = list(args.params) + list(extra)
        else:
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if getattr(args, "progress", False) is None:
        args.progress = sys.stderr.isatty()
    try:
        return int(args.func(args))
    except UsageError as exc:
        print(f"dptheory: usage error: {exc}", file=sys.stderr)
        return 2
    except ConditionViolated as exc:
        print(f"dptheory: condition violated: {exc}", file=sys.stderr)
        return 1
    except DPTheoryError as exc:
        print(f"dptheory: error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"dptheory: error: {exc}", file=sys.stderr)
        return 1
