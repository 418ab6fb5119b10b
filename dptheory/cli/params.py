"""The one parameter parser of the command line: ``name=value`` items and the validated option types.

Every option value is parsed by a type below *before* any work starts, so a bad value is a one-line usage
error (exit status 2) naming the option, the value and what is accepted. ``name=value`` items stay strings
(they are parsed exactly, as rationals, by the theorem that takes them), but a number too large to handle
(more than :data:`MAX_DIGITS` digits or a decimal exponent beyond +-:data:`MAX_EXPONENT`) is refused at once
instead of stalling on Python's int-to-str limit (the limits are :mod:`dptheory.core.validate`'s, shared with the
Python API). This module is light: no sympy, numpy or scipy.
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, TypeVar

from dptheory.core.errors import DPTheoryError, InvalidParameter
from dptheory.core.validate import (  # noqa: F401  (MAX_DIGITS, MAX_EXPONENT: re-exported, the core's limits)
    MAX_DIGITS,
    MAX_EXPONENT,
    NUMBER_FORMS,
    check_size,
    exact_number,
    text_size_problem,
)


class UsageError(DPTheoryError):
    """A malformed command line (exit status 2)."""


#: the largest grid a sweep, crossover or compare evaluates (points in total)
MAX_GRID_POINTS = 1_000_000

def check_magnitude(name: str, value: str) -> None:
    """Refuse at once a ``name=value`` whose numbers are too large to handle (exit status 1).

    Only the size is checked here (the same check as the Python API's, :mod:`dptheory.core.validate`); whether
    the value is a valid number for the theorem is decided by the theorem
    (``dptheory.core.notation.parse_value``)."""
    for tok in re.split(r"\.\.|[,:]", value):
        tok = tok.strip()
        if tok:
            check_size(text_size_problem(tok), key="command line", name=name, value=tok)


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
        if not v.strip():
            raise UsageError(f"parameter {k!r} has no value ({it!r}); write {k}=VALUE")
        check_magnitude(k, v.strip())
        out[k] = v.strip()
    return out


# ----------------------------------------------------------------------------- argparse types
_V = TypeVar("_V")


def _type(name: str, fn: Callable[[str], _V]) -> Callable[[str], _V]:
    fn.__name__ = name  # argparse names the type in its messages
    return fn


def integer(lo: int | None = None, hi: int | None = None, what: str = "") -> Callable[[str], int]:
    """An integer in [lo, hi] (either end optional)."""
    rng = (f"from {lo} to {hi}" if lo is not None and hi is not None
           else f">= {lo}" if lo is not None else f"<= {hi}" if hi is not None else "")
    accepted = f"an integer {rng}".strip() + (f" ({what})" if what else "")

    def parse(text: str) -> int:
        s = text.strip()
        if not re.fullmatch(r"[+-]?\d{1,18}", s):
            raise argparse.ArgumentTypeError(f"expected {accepted}, got {text!r}")
        v = int(s)
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            raise argparse.ArgumentTypeError(f"expected {accepted}, got {v}")
        return v

    return _type("integer", parse)


def digits(lo: int, hi: int = 1000) -> Callable[[str], int]:
    """``--dps``: significant decimal digits in [lo, hi]."""
    return integer(lo, hi, "significant digits")


def add_dps(parser: argparse.ArgumentParser, lo: int, default: int, what: str, hi: int = 1000) -> None:
    """``--dps`` of a command: digits in [lo, hi] (:func:`digits`), the help naming that range."""
    parser.add_argument("--dps", type=digits(lo, hi), default=default, help=f"{what}, {lo} to {hi}")


def add_json(parser: argparse.ArgumentParser, instead_of: str = "text") -> None:
    """``--json`` of a command that prints ``instead_of`` (text, a table) for people by default."""
    parser.add_argument("--json", action="store_true", help=f"print JSON instead of {instead_of}")


def real(lo: float | None = None, hi: float | None = None, *, lo_open: bool = False, hi_open: bool = False,
         what: str = "") -> Callable[[str], float]:
    """A finite float in the stated interval (for options of the training and audit commands)."""
    left = "" if lo is None else (f"> {lo:g}" if lo_open else f">= {lo:g}")
    right = "" if hi is None else (f"< {hi:g}" if hi_open else f"<= {hi:g}")
    rng = " and ".join(x for x in (left, right) if x)
    accepted = "a finite number" + (f" {rng}" if rng else "") + (f" ({what})" if what else "")

    def parse(text: str) -> float:
        try:
            q = exact_number(text)
            v = float(q)
        except (ValueError, OverflowError, ZeroDivisionError):
            raise argparse.ArgumentTypeError(f"expected {accepted}, got {text!r}") from None
        if not math.isfinite(v) or (v == 0 and q != 0):
            raise argparse.ArgumentTypeError(f"expected {accepted} representable in float64, got {text!r}")
        bad = ((lo is not None and (v <= lo if lo_open else v < lo))
               or (hi is not None and (v >= hi if hi_open else v > hi)))
        if bad:
            raise argparse.ArgumentTypeError(f"expected {accepted}, got {text!r}")
        return v

    return _type("number", parse)


def exact(lo: Fraction | int | str | None = None, hi: Fraction | int | str | None = None, *, lo_open: bool = True,
          hi_open: bool = True, what: str = "") -> Callable[[str], str]:
    """An exact decimal or fraction in the stated interval (ends given as numbers or decimal strings), returned as
    the string given (parsed exactly later, so ``1e-400`` stays 1e-400 and ``0.1`` stays 1/10)."""
    lo_v = exact_number(lo) if isinstance(lo, str) else lo
    hi_v = exact_number(hi) if isinstance(hi, str) else hi
    left = "" if lo is None else (f"> {lo}" if lo_open else f">= {lo}")
    right = "" if hi is None else (f"< {hi}" if hi_open else f"<= {hi}")
    rng = " and ".join(x for x in (left, right) if x)
    accepted = f"a number {rng}".strip() + f" ({NUMBER_FORMS})" + (f"; {what}" if what else "")

    def parse(text: str) -> str:
        try:
            v = exact_number(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(f"expected {accepted}; got {text!r}: {exc}") from None
        bad = ((lo_v is not None and (v <= lo_v if lo_open else v < lo_v))
               or (hi_v is not None and (v >= hi_v if hi_open else v > hi_v)))
        if bad:
            raise argparse.ArgumentTypeError(f"expected {accepted}; got {text}")
        return text.strip()

    return _type("number", parse)


#: ``--delta``: exact, in (0, 1)
delta_type = exact(0, 1, what="the delta of (epsilon, delta)-DP")
#: a Renyi order bound (``--alpha-min``/``--alpha-max``): exact, in (1, 1e100] (the order search runs in float64)
order_type = exact(1, "1e100", hi_open=False, what="a Renyi order")


def order_list(text: str) -> list[str]:
    """``--orders``: a comma-separated list of Renyi orders, each a number > 1 (exact)."""
    accepted = "a comma-separated list of Renyi orders, each a number > 1 (e.g. 1.5,2,10,32)"
    if ".." in text:
        raise argparse.ArgumentTypeError(f"expected {accepted}; ranges are not accepted here, got {text!r}")
    items = [x.strip() for x in text.split(",")]
    if not text.strip() or any(not x for x in items):
        raise argparse.ArgumentTypeError(f"expected {accepted}; got {text!r} (an empty item)")
    if len(items) > 10_000:
        raise argparse.ArgumentTypeError(f"expected {accepted} of at most 10000 orders; got {len(items)}")
    for x in items:
        try:
            v = exact_number(x)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(f"expected {accepted}; {x!r}: {exc}") from None
        if v <= 1:
            raise argparse.ArgumentTypeError(f"expected {accepted}; got the order {x}")
    return items


order_list.__name__ = "orders"


def int_list(lo: int = 1, hi: int | None = None, what: str = "") -> Callable[[str], list[int]]:
    """A comma-separated list of integers in [lo, hi] (``--K 1,5,20``)."""
    rng = f">= {lo}" if hi is None else f"from {lo} to {hi}"
    accepted = f"a comma-separated list of integers {rng}" + (f" ({what})" if what else "")

    def parse(text: str) -> list[int]:
        items = [x.strip() for x in text.split(",")]
        if not text.strip() or any(not x for x in items):
            raise argparse.ArgumentTypeError(f"expected {accepted}; got {text!r} (an empty item)")
        out = []
        for x in items:
            if not re.fullmatch(r"[+-]?\d{1,18}", x):
                raise argparse.ArgumentTypeError(f"expected {accepted}; got {x!r}")
            v = int(x)
            if v < lo or (hi is not None and v > hi):
                raise argparse.ArgumentTypeError(f"expected {accepted}; got {v}")
            out.append(v)
        return out

    return _type("integers", parse)


def float_list(lo: float | None = None, *, lo_open: bool = True, what: str = "") -> Callable[[str], list[float]]:
    """A comma-separated list of finite numbers (each > lo)."""
    one = real(lo, None, lo_open=lo_open, what=what)

    def parse(text: str) -> list[float]:
        items = [x.strip() for x in text.split(",")]
        if not text.strip() or any(not x for x in items):
            raise argparse.ArgumentTypeError(
                f"expected a comma-separated list of numbers; got {text!r} (an empty item)")
        return [one(x) for x in items]

    return _type("numbers", parse)


#: file formats matplotlib writes (the suffix decides the format)
PLOT_SUFFIXES = (".png", ".pdf", ".svg", ".eps", ".ps", ".jpg", ".jpeg", ".tif", ".tiff", ".webp", ".pgf")


def plot_path(text: str) -> str:
    """``--plot``: a file name ending in an image suffix, in a folder that exists."""
    p = Path(text)
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a file name ending in .png, .pdf or .svg; got ''")
    if p.suffix.lower() not in PLOT_SUFFIXES:
        raise argparse.ArgumentTypeError(
            f"expected a file name ending in {', '.join(PLOT_SUFFIXES[:3])} (or {', '.join(PLOT_SUFFIXES[3:])}); "
            f"got {text!r}")
    _writable(p)
    return text


plot_path.__name__ = "plot file"


def out_file(suffixes: tuple[str, ...] = ()) -> Callable[[str], str]:
    """An output file in a folder that exists (and, with ``suffixes``, one of those suffixes)."""

    def parse(text: str) -> str:
        p = Path(text)
        if not text.strip():
            raise argparse.ArgumentTypeError("expected a file name; got ''")
        if suffixes and p.suffix.lower() not in suffixes:
            raise argparse.ArgumentTypeError(f"expected a file name ending in {' or '.join(suffixes)}; got {text!r}")
        _writable(p)
        return text

    return _type("file", parse)


def _writable(p: Path) -> None:
    from dptheory.core.io import output_problem  # the one check of an output path (also used when writing)

    problem = output_problem(p)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)


def existing_file(text: str) -> str:
    """An input file that exists."""
    p = Path(text)
    if not p.is_file():
        raise argparse.ArgumentTypeError(f"{text!r} is not a file that exists")
    return text


existing_file.__name__ = "file"


# ----------------------------------------------------------------------------- grids (sweep, compare)
_RANGE = re.compile(r"^\s*(.+?)\s*\.\.\s*([^:]+?)\s*(?::\s*(\S+))?\s*$")
GRID_FORMS = "a value, a list a,b,c, a range lo..hi (integers: step 1; reals: 50 points), lo..hi:STEP for integer " \
             "parameters or lo..hi:POINTS for real ones"


def grid_values(name: str, spec: str, *, integer: bool) -> list[object]:
    """Validate a sweep specification and return its values (exact strings/ints, as ``evaluate.sweep.parse_values``
    returns them). Errors are one line naming the parameter, the specification and what is accepted."""
    from dptheory.evaluate.sweep import parse_values

    def bad(reason: str) -> InvalidParameter:
        return InvalidParameter(key="grid", name=name, value=spec, reason=f"{reason}; accepted: {GRID_FORMS}")

    s = spec.strip()
    if "," in s:
        items = [x.strip() for x in s.split(",")]
        if any(not x for x in items):
            raise bad("an empty item in the list")
        if any(".." in x for x in items):
            raise bad("a list cannot contain ranges")
        if len(items) > MAX_GRID_POINTS:
            raise bad(f"more than {MAX_GRID_POINTS} values")
        for x in items:
            _number_or_bad(x, bad)
        return parse_values(name, s, integer=integer)
    m = _RANGE.match(s)
    if not m:
        _number_or_bad(s, bad)
        return [s]
    lo = _number_or_bad(m.group(1), bad)
    hi = _number_or_bad(m.group(2), bad)
    step = m.group(3)
    if hi < lo:
        raise bad(f"the range is empty (the end {m.group(2)} is below the start {m.group(1)})")
    if integer:
        if lo.denominator != 1 or hi.denominator != 1:
            raise bad(f"{name} is an integer parameter: the ends of its range must be integers")
        st = 1
        if step is not None:
            if not re.fullmatch(r"\d{1,18}", step) or int(step) < 1:
                raise bad(f"the step of an integer range must be a positive integer, got {step!r}")
            st = int(step)
        count = (int(hi) - int(lo)) // st + 1
    else:
        count = 50
        if step is not None:
            if not re.fullmatch(r"\d{1,18}", step) or int(step) < 2:
                raise bad(f"the number of points of a real range must be an integer >= 2, got {step!r}")
            count = int(step)
        if lo == hi:
            raise bad("a real range needs two different ends (give a single value instead)")
    if count > MAX_GRID_POINTS:
        raise bad(f"{count} points; at most {MAX_GRID_POINTS} are evaluated")
    return parse_values(name, s, integer=integer)


def _number_or_bad(text: str, bad: Callable[[str], InvalidParameter]) -> Fraction:
    try:
        return exact_number(text)
    except ValueError as exc:
        raise bad(f"{text.strip()!r}: {exc}") from None


def check_grid_size(sizes: dict[str, int]) -> None:
    """The whole grid (product of the axes) stays below :data:`MAX_GRID_POINTS`."""
    total = 1
    for n in sizes.values():
        total *= max(n, 1)
    if total > MAX_GRID_POINTS:
        dims = " x ".join(f"{n} ({k})" for k, n in sizes.items())
        raise InvalidParameter(key="grid", name=", ".join(sizes), value=dims,
                               reason=f"{total} points in all; at most {MAX_GRID_POINTS} are evaluated")


# ----------------------------------------------------------------------------- Dask scale-out options
_ADDRESS = re.compile(r"^(?:(?:tcp|tls|ws|wss|ucx|inproc)://)?[\w.\-\[\]:]+:\d{1,5}$|^(?:tcp|tls|ws|wss|ucx)://[\w.\-]+$")


def scheduler_address(text: str) -> str:
    """``--scheduler``: a Dask scheduler address ``[protocol://]host:port`` (checked for form only)."""
    s = text.strip()
    if not _ADDRESS.match(s):
        raise argparse.ArgumentTypeError(f"expected a Dask scheduler address such as tcp://127.0.0.1:8786, "
                                         f"got {text!r}")
    return s


def add_cluster_options(parser: argparse.ArgumentParser, what: str = "tasks", default: str = "in process") -> None:
    """``--workers N`` (a local Dask cluster) and ``--scheduler ADDRESS`` (an existing one); ``default`` says what
    happens without either (in process, unless the command says otherwise).

    The results do not depend on either (see :mod:`dptheory.evaluate.parallel`); read them back with
    :func:`cluster_options`.
    """
    parser.add_argument("--workers", type=integer(1, 1024, "Dask worker processes"), default=None, metavar="N",
                        help=f"run the {what} on a local Dask cluster of N worker processes (default: {default}; "
                        "1: in process; the numbers are the same)")
    parser.add_argument("--scheduler", type=scheduler_address, default=None, metavar="ADDRESS",
                        help=f"run the {what} on the existing Dask cluster at ADDRESS (tcp://host:8786)")


def cluster_options(args: argparse.Namespace) -> tuple[int | None, str | None]:
    """``(workers, scheduler)`` from :func:`add_cluster_options`; a usage error when both are given."""
    workers, scheduler = getattr(args, "workers", None), getattr(args, "scheduler", None)
    if workers is not None and scheduler is not None:
        raise UsageError("give --workers (a local Dask cluster) or --scheduler (an existing one), not both")
    return workers, scheduler


# ----------------------------------------------------------------------------- a paper command's parameters
@dataclass(frozen=True)
class PaperParam:
    """One parameter of a paper subcommand, written ``name=value`` with the paper's notation name (``n=50``,
    ``sigma_mul=1``, ``KL=5``), like ``dptheory eval``'s; ``parse`` is one of the types above (applied to the
    value as to an option's)."""

    name: str
    parse: Callable[[str], Any]
    default: Any = None
    help: str = ""
    required: bool = False


class _OldSpelling(argparse.Action):
    """``--n 50`` (the spelling before ``n=50``): a one-line usage error showing the new spelling."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        value = values if isinstance(values, str) and values else "VALUE"
        raise UsageError(f"{parser.prog}: {option_string} is a parameter of the paper, written name=value: "
                         f"use {self.dest}={value}")


class _ParamsAction(argparse.Action):
    """The ``name=value`` items, parsed onto the namespace as argparse reads them (so ``parser.parse_args`` gives
    ``args.n`` directly); ``dptheory.cli`` completes them (items after options, required ones) with
    :func:`apply_paper_params`."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        setattr(namespace, self.dest, list(values or []))
        apply_paper_params(namespace, complete=False)


def old_spellings(name: str) -> list[str]:
    """The option spellings a parameter had before ``name=value`` (``S_g``: ``--S-g``, ``--S_g``, ``--s-g``)."""
    forms = [name, name.replace("_", "-"), name.lower(), name.lower().replace("_", "-")]
    return [f"--{f}" for f in dict.fromkeys(forms)]


def add_paper_params(parser: argparse.ArgumentParser, params: Sequence[PaperParam]) -> None:
    """Give a paper subcommand its ``name=value`` parameters (read by :func:`apply_paper_params` before the
    handler runs: the handler finds ``args.n``, ``args.sigma_mul``... as it would an option's value). The old
    ``--n 50`` spelling is refused with the new one; the parameters are listed in the command's help."""
    names = [p.name for p in params]
    parser.add_argument("params", nargs="*", metavar="name=value", action=_ParamsAction,
                        help=f"parameters of the paper: {', '.join(names)}")
    for p in params:
        parser.add_argument(*old_spellings(p.name), dest=p.name, nargs="?", action=_OldSpelling,
                            help=argparse.SUPPRESS)
    parser.set_defaults(**{p.name: p.default for p in params}, paper_params=(parser.prog, tuple(params)))
    width = max(len(n) for n in names) + 2
    rows = [f"  {p.name + '=':<{width}} {p.help}" + (" (required)" if p.required else
                                                      f" (default: {_shown_default(p.default)})" if p.default
                                                      is not None else "") for p in params]
    parser.epilog = "\n".join(["parameters (name=value, the paper's notation):", *rows]
                              + ([parser.epilog] if parser.epilog else []))


def _shown_default(d: Any) -> str:
    return ",".join(map(str, d)) if isinstance(d, (list, tuple)) else str(d)


def apply_paper_params(args: argparse.Namespace, *, complete: bool = True) -> None:
    """Parse the ``name=value`` items of a paper subcommand (:func:`add_paper_params`) onto ``args``: an unknown
    name, a bad value or (when ``complete``: every item has been read) a missing required parameter is a one-line
    usage error naming what is accepted."""
    spec = getattr(args, "paper_params", None)
    if spec is None:
        return
    prog, params = spec
    by_name = {p.name: p for p in params}
    given = parse_params(args.params)
    for name, text in given.items():
        p = by_name.get(name)
        if p is None:
            raise UsageError(f"{prog}: unknown parameter {name!r}; its parameters: {', '.join(by_name)} "
                             f"(see `{prog} --help`)")
        try:
            setattr(args, name, p.parse(text))
        except argparse.ArgumentTypeError as exc:
            raise UsageError(f"{prog}: parameter {name}: {exc}") from None
    missing = [p.name for p in params if p.required and p.name not in given]
    if missing and complete:
        raise UsageError(f"{prog}: missing parameter(s) {', '.join(missing)}; write "
                         + " ".join(f"{m}=VALUE" for m in missing))
