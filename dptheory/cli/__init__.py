"""The ``dptheory`` command line.

``main(argv) -> int`` so tests call it in-process. Generic commands (:mod:`dptheory.cli.commands`,
:mod:`dptheory.cli.compare`): list, show, eval, sweep, crossover, convert, compare, check, figure, report,
explore. Every paper package with a ``cli`` module contributes its commands under its own name,
``dptheory <paper> <command>`` (``dptheory yeshokri22 train``, ``dptheory shi26 fig1``, ``dptheory maxinfo
bounds``): the package's ``add_subcommands(group)`` receives the paper's sub-parser collection.

**Start-up.** Building the parser imports no sympy, numpy or scipy (the paper ``cli`` modules and the
command modules import them inside their handlers), and a command imports only the paper it needs (the
registry's index, ``dptheory/papers/index.json``): ``dptheory --help``, ``--version`` and ``list`` are
fast. A command line that names a command builds only that command's parser (:func:`build_parser`).
``bench/bench_startup.py`` measures it.

**Errors and exit status.** Every failure is one line on stderr naming what was wrong and what is
accepted; a traceback only with the global ``--debug`` (given anywhere on the line).

* 0: success;
* 1: a bad value (a parameter outside its domain, a file that cannot be read or written), a violated
  condition of a theorem, or a computation that failed;
* 2: a malformed command line (unknown command or option, an option value of the wrong kind or outside its
  accepted range, ``name=value`` given twice or without ``=``);
* 3: a finding: ``check`` got a verdict that differs from the one on record, an audit found a bound
  violated by a trained model;
* 130: interrupted (Ctrl-C); the message says which output files were kept (outputs are written whole or
  not at all: :func:`dptheory.cli.output.output_files`);
* 129, 143: terminated by SIGHUP or SIGTERM (128 + the signal's number: a closed terminal, a timeout, a cancelled
  job), cleaned up as for Ctrl-C: no temporary file or folder is left and the previous outputs are intact.

**Outputs.** Before a command runs, its output options are checked together
(:func:`dptheory.cli.output.check_outputs`): two of them naming one file are refused, and ``-`` means standard
output for the text outputs (``--csv -``), while the command's other messages then go to stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import os
import signal
import sys
import warnings
from collections.abc import Iterator, Sequence
from typing import Any, NoReturn

from dptheory import __version__
from dptheory.cli.params import UsageError, apply_paper_params
from dptheory.core.errors import ConditionViolated, DPTheoryError

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_FINDING, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
#: signals that end a command the way Ctrl-C does (exit status 128 + the signal's number)
TERMINATING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class Terminated(KeyboardInterrupt):
    """Raised in the main thread on SIGTERM or SIGHUP, so that every ``finally`` and ``with`` block cleans up as it
    does for Ctrl-C (temporary ``.part`` files deleted, temporary folders removed, worker processes stopped)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _terminate(signum: int, frame: Any) -> None:
    from dptheory.core.io import INTERRUPTS

    # a second signal must not interrupt the clean-up of the first
    for s in TERMINATING_SIGNALS:
        signal.signal(s, signal.SIG_IGN)
    exc = Terminated(signum)
    # recorded in case Python drops it (raised inside a weakref callback or a __del__): then no file is put in place
    # and the command still ends as terminated (seen once: a SIGTERM landing in importlib's module-lock callback)
    INTERRUPTS.append(exc)
    raise exc


@contextlib.contextmanager
def _terminate_like_interrupt() -> Iterator[None]:
    """SIGTERM and SIGHUP raise :class:`Terminated` while a command runs (a signal the caller ignores, as under
    ``nohup``, stays ignored); the previous handlers are restored afterwards. Only in the main thread."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    from dptheory.core.io import INTERRUPTS, raise_dropped_interrupt

    old = {s: signal.getsignal(s) for s in TERMINATING_SIGNALS}
    INTERRUPTS.clear()
    for s, h in old.items():
        if h is not signal.SIG_IGN:
            signal.signal(s, _terminate)
    try:
        yield
        raise_dropped_interrupt()  # the command finished, but a signal's interrupt was dropped on the way
    finally:
        for s, h in old.items():
            signal.signal(s, h if h is not None else signal.SIG_DFL)
        INTERRUPTS.clear()
#: Python's int <-> str limit while a command runs (inputs are capped at 4000 digits; see ``main``)
INT_STR_DIGITS = 100_000


class Formatter(argparse.RawDescriptionHelpFormatter):
    """Keeps descriptions as written and appends ``(default: X)`` to every option that has a default."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        d = action.default
        if ("%(default)" not in text and action.option_strings and d not in (None, False, True, argparse.SUPPRESS)
                and not isinstance(action, argparse._VersionAction)):
            shown = ",".join(map(str, d)) if isinstance(d, (list, tuple)) else "%(default)s"
            text += f" (default: {shown})"
        return text


class Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors (exit status 2, no usage dump) and the help formatter above."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message} (see `{self.prog} --help`)")


class _FigureParser(Parser):
    """The ``figure`` sub-parser: its help lists every registered figure (from the index: no paper is loaded)."""

    def format_help(self) -> str:
        from dptheory.core.registry import REGISTRY

        rows = REGISTRY.index().get("figures", [])
        if not rows:
            rows = [{"name": f.name, "title": f.title} for f in REGISTRY.figures()]
        self.epilog = "\n".join(["figures:"] + [f"  {f['name']:<22} {f['title']}" for f in rows])
        return super().format_help()


def add_paper_groups(sub: Any, only: str | None = None, *, others: bool = True) -> None:
    """``dptheory <paper> ...`` for every discovered paper package that has a ``cli`` module.

    ``only``: the command line names no paper, or the paper ``only``: the other papers' ``cli`` modules are not
    imported (their group is a name and a one-line help, enough to list them and to refuse a wrong command);
    ``None`` loads every paper's subcommands (``dptheory --help``, the tests). ``others=False``: not even that for
    the other papers (:func:`build_parser` skips every command but the one named)."""
    from dptheory.catalog import paper_module, paper_packages

    def doc(pkg: str, paper: str) -> str:
        return (importlib.import_module(pkg).__doc__ or paper).strip().splitlines()[0]

    for pkg in paper_packages():
        paper = pkg.rsplit(".", 1)[-1]
        if only is not None and paper != only:
            if others and importlib.util.find_spec(f"{pkg}.cli") is not None:  # found, not imported: without one, none
                sub.add_parser(paper, help=doc(pkg, paper))
            continue
        mod = paper_module(pkg, "cli")  # a plugin's broken cli.py is a warning naming it, not an internal error
        if mod is None:
            continue
        group_help = mod.GROUP_HELP if hasattr(mod, "GROUP_HELP") else doc(pkg, paper)
        top = sub.add_parser(paper, help=group_help, description=mod.__doc__)
        group = top.add_subparsers(dest=f"{paper}_command", required=True, metavar="COMMAND", parser_class=Parser)
        mod.add_subcommands(group)


def _command_of(argv: Sequence[str] | None) -> str | None:
    """The command an argument list asks for (its first word that is not an option), or None: ask for all (no
    arguments, only options such as ``--help``, or no list at all)."""
    if argv is None:
        return None
    return next((a for a in argv if not a.startswith("-")), None)


# ----------------------------------------------------------------------------- parser
class _Skipped:
    """Stands in for the sub-parser of a command the command line does not name (see :func:`build_parser`): every
    call on it (``add_argument``, ``set_defaults``, ``add_subparsers``, ...) does nothing and returns it."""

    def _ignore(self, *args: Any, **kwargs: Any) -> _Skipped:
        return self

    def __getattr__(self, name: str) -> Any:
        return self._ignore

    def __setattr__(self, name: str, value: Any) -> None:  # e.g. ``s.__class__ = _FigureParser``
        pass


class _OneCommand:
    """The top-level sub-parser collection as the command adders see it when the command line names ``name``:
    ``add_parser`` builds that command's parser and returns a :class:`_Skipped` for every other one."""

    def __init__(self, sub: Any, name: str) -> None:
        self.sub, self.name, self.found = sub, name, False

    def add_parser(self, name: str, **kwargs: Any) -> Any:
        if name != self.name and self.name not in kwargs.get("aliases", ()):
            return _Skipped()
        self.found = True
        return self.sub.add_parser(name, **kwargs)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The whole command line: the generic commands, every paper's group, ``explore``. Given the arguments that
    name a command, only that command's parser is built (with its options, help and errors as in the whole
    parser): the others are about 60 parsers and 100 options, most of a command's parsing time (5 ms of 6 for eval). A
    line that names no command, or a word that is none (``dptheory evl``), gets the whole parser, whose help and
    errors list every command."""
    command = _command_of(argv)
    if command is not None:
        p, sub = _top_parser()
        one = _OneCommand(sub, command)
        _add_commands(one, command, others=False)
        if one.found:
            return p
    p, sub = _top_parser()
    _add_commands(sub, command)
    return p


def _top_parser() -> tuple[argparse.ArgumentParser, Any]:
    """``dptheory`` with its global options, and its (empty) collection of commands."""
    p = Parser(
        prog="dptheory",
        description="Symbolic and numeric verifier of differential-privacy theory: evaluate bounds, check "
        "conditions and claimed orderings.\n\nExit status: 0 success; 1 bad value, violated condition or failed "
        "computation; 2 malformed command line;\n3 a finding (check, audits); 130 interrupted (129, 143: SIGHUP, "
        "SIGTERM). Add --debug anywhere for a traceback.",
    )
    p.add_argument("--version", action="version", version=f"dptheory {__version__}")
    p.add_argument("--debug", action="store_true", help="show the Python traceback of an error")
    p.add_argument("--paper", metavar="FILE", action="append",
                   help="also load the theorems and claims of this paper file (TOML; docs/adding_a_paper.md), for "
                   "any command, anywhere on the line (repeatable): `dptheory eval --paper my.toml my26.thm1 ...`; "
                   "`check --paper FILE` checks the file's claims")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)
    return p, sub


def _add_commands(sub: Any, command: str | None, *, others: bool = True) -> None:
    """Every command, in the order ``dptheory --help`` lists them; a paper's subcommands only for the paper
    ``command`` names, or for every paper when ``command`` is None; the other papers by name unless ``others`` is
    False (see :func:`add_paper_groups`)."""
    _add_inspect(sub)
    _add_evaluate(sub)
    _add_check(sub)
    add_paper_groups(sub, only=command, others=others)

    from dptheory.cli.explore import add_parser as add_explore

    add_explore(sub)

    _add_report(sub)


def _add_inspect(sub: Any) -> None:
    """``list`` and ``show``."""
    from dptheory.cli import commands as C
    from dptheory.cli.params import add_json

    s = sub.add_parser("list", help="list encoded theorems, claims (with their verdict on record) and figures",
                       description="List theorems (default), claims (--claims) or everything (--all), optionally "
                       "only the keys starting with PREFIX (e.g. `dptheory list yeshokri22`).")
    s.add_argument("prefix", nargs="?", default="", metavar="PREFIX",
                   help="only keys starting with it (e.g. yeshokri22), or matching a glob ('yeshokri22.C5*')")
    s.add_argument("--claims", action="store_true", help="list claims, with their verdict on record")
    s.add_argument("--figures", action="store_true", help="list the figures `dptheory figure` reproduces")
    s.add_argument("--all", action="store_true", help="list theorems, claims and figures")
    add_json(s, "a table")
    s.set_defaults(func=C.cmd_list)

    s = sub.add_parser("show", help="statement, conditions and citation of a theorem or claim",
                       description="Statement (formulas in the paper's notation), parameters, conditions, limits "
                       "and citation of a theorem; the statement, reading, region and finding of a claim.")
    s.add_argument("key", help="a theorem or claim key (see `dptheory list`)")
    s.add_argument("--latex", action="store_true", help="print the bound, its definitions and conditions in LaTeX")
    s.add_argument("--json", action="store_true", help="print the description as JSON")
    s.add_argument("--full", action="store_true",
                   help="print every formula whole (by default a formula line longer than 200 characters is cut)")
    s.set_defaults(func=C.cmd_show)


def _add_evaluate(sub: Any) -> None:
    """``eval``, ``sweep``, ``crossover``, ``convert``, ``compare``."""
    from dptheory.cli import commands as C
    from dptheory.cli import compare as X
    from dptheory.cli.params import (
        add_cluster_options,
        add_dps,
        add_json,
        delta_type,
        order_list,
        order_type,
        out_file,
        plot_path,
    )

    s = sub.add_parser("eval", help="evaluate a bound at a point (mpmath, 50 digits by default)",
                       description="Evaluate a theorem's bound at one point with mpmath; every condition is "
                       "checked exactly first (a violated one exits 1 unless --no-check).")
    s.add_argument("key", help="a theorem key (see `dptheory list`)")
    s.add_argument("params", nargs="*", metavar="name=value", help="every parameter of the theorem, e.g. alpha=10")
    add_dps(s, 1, 50, "significant digits of the value")
    add_json(s)
    s.add_argument("--no-check", action="store_true", help="evaluate even if a condition is violated (listed)")
    s.add_argument("--term", help="evaluate one named term of the bound (see `dptheory show KEY`)")
    s.add_argument("--unit", choices=["nats", "bits"], default="nats", help="unit of the value")
    s.add_argument("--certify", action="store_true",
                   help="also print a certified enclosure [lo, hi] (arb balls, rounded outward); exit 1 where the "
                   "theorem has no rigorous evaluator")
    s.set_defaults(func=C.cmd_eval)

    s = sub.add_parser("sweep", help="evaluate on a grid (float64; mpmath where float64 overflows)",
                       description="Evaluate one or several theorems on a grid: each name=spec is a value, a "
                       "list a,b,c, or a range lo..hi (integers step 1, reals 50 points), lo..hi:STEP (integer "
                       f"parameters) or lo..hi:POINTS (real ones; log-spaced when lo > 0 and hi/lo > 10); at most "
                       f"{C.MAX_GRID_POINTS} points in all. --csv and --plot are written together or not at all.")
    s.add_argument("key", help="a theorem key")
    s.add_argument("params", nargs="*", metavar="name=spec", help="K=1..200, alpha=10,15, eta=0.01..0.1:20, n=50")
    s.add_argument("--compare", nargs="*", default=[], metavar="KEY", help="other theorems on the same grid")
    s.add_argument("--csv", type=out_file(), help="write the table to this CSV file")
    s.add_argument("--plot", type=plot_path, help="write a plot (.png, .pdf, .svg)")
    s.add_argument("--linear", action="store_true", help="linear y axis in the plot (default: log)")
    add_json(s, "a table")
    s.add_argument("--print", action="store_true", help="print the table even with --csv")
    s.add_argument("--skip-invalid", action="store_true", help="skip points violating a condition instead of failing")
    add_cluster_options(s, "points beyond float64 (mpmath)")
    s.set_defaults(func=C.cmd_sweep)

    s = sub.add_parser("crossover", help="the value after which KEY1 stays below KEY2 (RDP, or (eps, delta))",
                       description="The smallest value of --over from which KEY1 stays below KEY2 up to --to. "
                       "RDP at the given order alpha by default; with --delta, both are converted to (epsilon, "
                       "delta)-DP with the order optimised per theorem and per point (then do not give alpha).")
    s.add_argument("key1", help="the theorem expected to end below")
    s.add_argument("key2", help="the theorem it is compared with")
    s.add_argument("params", nargs="*", metavar="name=value", help="every other parameter of both theorems")
    s.add_argument("--over", required=True, help="the parameter to move (e.g. K)")
    s.add_argument("--from", dest="start", default="1", help="start of the range")
    s.add_argument("--to", dest="stop", default="1000", help="end of the range")
    add_dps(s, 5, 50, "digits of the confirmation")
    s.add_argument("--delta", type=delta_type, help="compare in (epsilon, delta)-DP at this delta, 0 < delta < 1")
    s.add_argument("--method", choices=["improved", "classic"], default="improved",
                   help="RDP -> (epsilon, delta) conversion with --delta")
    add_json(s)
    s.set_defaults(func=X.cmd_crossover)

    s = sub.add_parser("convert", help="RDP bound -> (epsilon, delta), optimised over the order alpha",
                       description="Convert an RDP bound into (epsilon, delta)-DP, optimising the Renyi order over "
                       "a continuous range (default [1.0001, 10000]) or a list of orders (--orders). Methods: "
                       "improved (Balle et al. 2020, Thm 21) or classic (Mironov 2017, Prop. 3).")
    s.add_argument("key", help="an RDP theorem key (it has a parameter alpha)")
    s.add_argument("params", nargs="*", metavar="name=value", help="every parameter except alpha")
    s.add_argument("--delta", type=delta_type, required=True, help="delta, 0 < delta < 1 (exact: 1e-400 is kept)")
    s.add_argument("--method", choices=["improved", "classic", "both"], default="improved", help="conversion")
    s.add_argument("--orders", type=order_list, help="comma-separated orders > 1 instead of a continuous search")
    s.add_argument("--alpha-min", type=order_type, default=None, help="smallest order searched (> 1; default 1.0001)")
    s.add_argument("--alpha-max", type=order_type, default=None, help="largest order searched (default 10000)")
    add_dps(s, 5, 50, "digits of the final evaluation")
    add_json(s)
    s.set_defaults(func=C.cmd_convert)

    s = sub.add_parser("compare", help="several theorems side by side at one parameter set (RDP and (eps, delta))",
                       description="Evaluate several theorems at one parameter set: each takes the parameters it "
                       "needs (the unused ones are listed). With alpha=A: RDP at that order. With --delta D: "
                       "(epsilon, delta)-DP with the order optimised per theorem, and, when the parameters define a "
                       "paper's composition baseline, the tight PLD epsilon (a [lower, upper] bracket, "
                       "dp-accounting) beside the RDP-based composition. One parameter may be a list or range "
                       "(e.g. K=10,20,50): one row per value, and --plot draws the curves. With --run FILE_OR_PARAMS: "
                       "every theorem that reads a training run, at that run (docs/training_runs.md).")
    s.add_argument("items", nargs="*", metavar="KEY|name=value", help="theorem keys, then name=value parameters")
    s.add_argument("--run", metavar="FILE_OR_PARAMS",
                   help="a training run: a TOML file, or name=value,name=value (n, b or q, z, T or K, C, eta, lam, "
                   "beta, L; batches, loss, release); name=value items add to it; every theorem that applies is "
                   "listed (docs/training_runs.md)")
    s.add_argument("--delta", type=delta_type, help="compare in (epsilon, delta)-DP at this delta")
    s.add_argument("--method", choices=["improved", "classic"], default="improved", help="RDP -> (eps, delta)")
    s.add_argument("--no-baseline", dest="baseline", action="store_false",
                   help="do not compute the PLD and RDP composition baselines")
    add_dps(s, 5, 30, "digits of the values")
    s.add_argument("--csv", type=out_file(), help="also write the table as CSV")
    s.add_argument("--plot", type=plot_path, help="also write a plot (.png, .pdf, .svg)")
    add_json(s, "a table")
    s.set_defaults(func=X.cmd_compare)


def _add_check(sub: Any) -> None:
    """``check``."""
    from dptheory.cli import commands as C
    from dptheory.cli.params import add_cluster_options, add_dps, add_json, integer

    s = sub.add_parser("check", help="check the papers' claims (symbolic, exhaustive or property-based)",
                       description="Decide claims (all of them by default). --claim takes keys or glob patterns "
                       "('yeshokri22.C5*'). Exit 3 when a verdict differs from the one on record.")
    s.add_argument("--claim", nargs="*", default=[], metavar="KEY", help="claim keys or glob patterns")
    s.add_argument("--examples", type=integer(1, 10**7), default=100, help="examples per property search, >= 1")
    s.add_argument("--seed", type=integer(0, 2**63 - 1), default=0, help="seed of the searches")
    add_dps(s, 50, 50, "digits for re-verification")
    add_json(s)
    s.add_argument("--fresh", action="store_true", help="ignore pinned counterexamples and search anew")
    s.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")
    add_cluster_options(s, "claims (one task per claim)",
                        default="several claims run on a pool of one process per CPU, without Dask")
    s.add_argument("--certificates", metavar="DIR",
                   help="also write one certificate per certified, exhaustive or falsified verdict to DIR/KEY.json "
                   "(created if needed), for `dptheory recheck DIR` (docs/certificates.md)")
    s.set_defaults(func=C.cmd_check, progress=None)

    s = sub.add_parser("recheck", help="re-verify certificates with the independent checker (docs/certificates.md)",
                       description="Re-verify every DIR/*.json certificate written by `check --certificates DIR` "
                       "with the independent checker (dptheory/recheck.py: sympy, mpmath intervals, exact "
                       "rationals; none of the compiler or the branch and bound). Each is re-verified, not "
                       "independently checkable (with the reason) or REFUSED (with the reason). Exit 4 when a "
                       "certificate is refused.")
    s.add_argument("folder", metavar="DIR", help="the folder of certificates")
    add_json(s, "a table")
    s.set_defaults(func=C.cmd_recheck)


def _add_report(sub: Any) -> None:
    """``report``, ``new`` and ``figure``."""
    from dptheory.cli import commands as C
    from dptheory.cli.params import existing_file, integer, out_file

    s = sub.add_parser("report", help="LaTeX report of a paper's theorems, values, crossovers, claims, figures")
    s.add_argument("--paper", help="registry prefix, e.g. yeshokri22 (its own settings are the default)")
    s.add_argument("--params", type=existing_file, help="TOML file of named parameter sets (schema: reports/README.md)")
    s.add_argument("--claims", dest="claims", action="store_true", default=None, help="check and report the claims")
    s.add_argument("--no-claims", dest="claims", action="store_false", help="leave the claims out")
    s.add_argument("--claim-examples", type=integer(1, 10**7), default=None,
                   help="examples per property search (default: the report's setting)")
    s.add_argument("--out", required=True, help="output directory (report.tex, figures, report.pdf)")
    s.add_argument("--no-pdf", action="store_true", help="do not run pdflatex even if it is installed")
    s.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")
    s.add_argument("--json", action="store_true", help="print what was written as JSON")
    s.set_defaults(func=C.cmd_report, progress=None)

    from dptheory.cli.new import cmd_new

    s = sub.add_parser("new", help="scaffold an installable paper package of your own (pip install -e DIR)",
                       description="Write DIR (default ./KEY): pyproject.toml (entry point, pytest --dptheory KEY), "
                       "KEY/paper.toml (the example paper with your key: edit it), KEY/theorems.py, KEY/claims.py, "
                       "tests/test_KEY.py. Written whole or not at all; DIR must not exist or be empty.")
    s.add_argument("key", help="the paper's key, a lowercase identifier (it names the package), e.g. fmtt18")
    s.add_argument("--dir", help="the folder to create (default: ./KEY)")
    s.set_defaults(func=cmd_new)

    s = sub.add_parser("figure", help="reproduce a paper figure from the encoded theorems",
                       description="Reproduce a paper figure; --out and --csv are written together or not at all.")
    s.__class__ = _FigureParser  # lists the registered figures in its help (from the index)
    s.add_argument("name", help="figure name (listed below)")
    s.add_argument("--out", required=True, help="image file (.png, .pdf, .svg), or an existing folder (NAME.png in it)")
    s.add_argument("--csv", type=out_file(), help="also write the plotted values")
    s.add_argument("--json", action="store_true", help="print what was written as JSON")
    s.set_defaults(func=C.cmd_figure)


def _split_debug(argv: Sequence[str]) -> tuple[list[str], bool]:
    args = list(argv)
    if "--" in args:
        head, tail = args[: args.index("--")], args[args.index("--"):]
    else:
        head, tail = args, []
    debug = "--debug" in head
    return [a for a in head if a != "--debug"] + tail, debug


def _is_paper_file(value: str) -> bool:
    """A ``--paper`` value names a paper file (a ``.toml`` path, or an existing file); otherwise a paper key."""
    return value.lower().endswith(".toml") or os.path.isfile(value)


def _split_paper(argv: list[str]) -> tuple[list[str], list[str]]:
    """The arguments without the global ``--paper FILE`` / ``--paper=FILE`` (before ``--``), and the files."""
    out: list[str] = []
    files: list[str] = []
    it = iter(range(len(argv)))
    for i in it:
        a = argv[i]
        if a == "--":
            out += argv[i:]
            break
        if a == "--paper" or a.startswith("--paper="):
            value = a.partition("=")[2] if "=" in a else (argv[i + 1] if i + 1 < len(argv) else "")
            if not value or value.startswith("-"):
                raise UsageError("dptheory: --paper needs a FILE: a paper file (.toml) of papers, notation, "
                                 "theorems and claims (see docs/adding_a_paper.md), or for `report` a paper key")
            if not _is_paper_file(value):  # `report --paper yeshokri22`: the report's own option, a registry prefix
                out.append(a)
                continue
            if "=" not in a:
                next(it, None)
            files.append(value)
            continue
        out.append(a)
    return out, files


def main(argv: Sequence[str] | None = None) -> int:
    from dptheory.cli.output import kept_files, reset_kept

    args_list, debug = _split_debug(sys.argv[1:] if argv is None else argv)
    reset_kept()
    # inputs have at most MAX_DIGITS digits (dptheory.cli.params), but exact values derived from them (a square in
    # a condition, a product in a message) may exceed Python's default int <-> str limit of 4300 digits; numbers of
    # a few 10^4 digits convert in milliseconds, so the limit is raised for the duration of the command
    old_limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0 if old_limit == 0 else max(old_limit, INT_STR_DIGITS))
    try:
        with _terminate_like_interrupt(), warnings.catch_warnings():
            from dptheory.catalog import cli_showwarning

            warnings.showwarning = cli_showwarning  # our warnings are one line: dptheory: warning: ...
            return _run(args_list)
    except SystemExit as exc:  # --help, --version
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else _fail(str(exc.code)))
    except KeyboardInterrupt as exc:
        if debug:
            raise
        return _interrupted(exc, kept_files())
    except UsageError as exc:
        if debug:
            raise
        print(f"dptheory: usage error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except ConditionViolated as exc:
        if debug:
            raise
        print(f"dptheory: condition violated: {_one_line(exc)}", file=sys.stderr)
        return EXIT_ERROR
    except DPTheoryError as exc:
        if debug:
            raise
        print(f"dptheory: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        # the reader went away (e.g. `| head`): stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_ERROR
    except OSError as exc:
        if debug:
            raise
        print(f"dptheory: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_ERROR
    except MemoryError:
        if debug:
            raise
        print("dptheory: error: out of memory (use a smaller grid or range)", file=sys.stderr)
        return EXIT_ERROR
    except Exception as exc:
        if debug:
            raise
        cause = _interrupt_behind(exc)
        if cause is not None:  # e.g. an extension module whose import was interrupted: ImportError from Terminated
            return _interrupted(cause, kept_files())
        if isinstance(exc, ModuleNotFoundError):
            # an optional extra (or a lazily imported dependency) is not installed: name it, not "internal error"
            from dptheory.core.extras import missing_message

            message = missing_message(exc)
            if message is not None:
                print(f"dptheory: error: {message}", file=sys.stderr)
                return EXIT_ERROR
        print(f"dptheory: internal error: {type(exc).__name__}: {_one_line(exc)} (this is a bug; rerun with "
              "--debug for the traceback and please report it)", file=sys.stderr)
        return EXIT_ERROR
    finally:
        sys.set_int_max_str_digits(old_limit)


def _interrupted(exc: KeyboardInterrupt, kept: list[str]) -> int:
    """The message and exit status of an interrupted (Ctrl-C: 130) or terminated (128 + signal) command."""
    note = f"; kept (complete): {', '.join(kept)}" if kept else "; no output file was written"
    if isinstance(exc, Terminated):
        print(f"dptheory: terminated by {signal.Signals(exc.signum).name}{note}", file=sys.stderr)
        return 128 + exc.signum
    print(f"dptheory: interrupted{note}", file=sys.stderr)
    return EXIT_INTERRUPTED


def _interrupt_behind(exc: BaseException) -> KeyboardInterrupt | None:
    """The interrupt an exception was raised from or during (its ``__cause__``/``__context__`` chain), if any."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        if isinstance(e, KeyboardInterrupt):
            return e
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    return None


def _fail(message: str) -> int:
    print(f"dptheory: error: {_one_line(message)}", file=sys.stderr)
    return EXIT_ERROR


def _one_line(exc: object) -> str:
    return " ".join(str(exc).split())


def _run(argv: list[str]) -> int:
    argv, paper_files = _split_paper(argv)
    parser = build_parser(argv)
    args, extra = parser.parse_known_args(argv)
    if extra:
        # name=value parameters may come after options (argparse cannot intermix them with subcommands)
        dest = "params" if hasattr(args, "params") else "items" if hasattr(args, "items") else None
        if dest and all("=" in x and not x.startswith("-") for x in extra):
            setattr(args, dest, list(getattr(args, dest)) + list(extra))
        else:
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
    apply_paper_params(args)  # a paper subcommand's name=value parameters (n=50) onto args.n
    args.paper_keys = []
    if paper_files:
        from dptheory.catalog import load_paper_file
        from dptheory.core.registry import REGISTRY

        try:  # theorems and claims of a paper file outside any package (--paper FILE), for this command only
            for file in paper_files:
                args.paper_keys += load_paper_file(file).keys
            if hasattr(args, "paper") and not args.paper and args.paper_keys:  # `report --paper FILE`: its paper
                args.paper, args.paper_file = args.paper_keys[0].split(".")[0], paper_files[0]
            return _dispatch(args)
        finally:
            REGISTRY.withdraw(args.paper_keys)
    return _dispatch(args)


def _dispatch(args: argparse.Namespace) -> int:
    """Run the parsed command (outputs checked together, data to stdout where asked)."""
    if getattr(args, "progress", False) is None:
        args.progress = sys.stderr.isatty()
    from dptheory.cli.output import check_outputs, data_stdout, to_stdout

    check_outputs(args)
    # figures are drawn on Agg whatever MPLBACKEND says: dptheory.report.plotting.matplotlib_for_files, the one
    # import of matplotlib
    with data_stdout(to_stdout(args)):
        return int(args.func(args))
