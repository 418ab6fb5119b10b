"""The one output layer of the command line: tables for people, JSON for programs, files written whole.

* :func:`table` prints rows as plain aligned text (no dependency; the default of every command);
  :func:`print_json` is what ``--json`` prints (the same data, for programs).
* :func:`output_files` is the one way a command writes files: an :class:`dptheory.core.io.AtomicGroup`
  (every file appears, or none), with the paths kept recorded so that an interrupted command can say
  which it kept (:func:`kept_files`); the path ``-`` is standard output (text outputs).
* :func:`check_outputs` runs before every command: two outputs naming one file, ``-`` for an image, or two
  things sent to standard output are refused before any work.
* :func:`falsification` is the one sentence that says why a claim fails at a counterexample ("Thm 4.3 =
  0.359 is not below composition (exact) = 0.202 at alpha=20, ..."); ``dptheory check`` prints it.
* :func:`progress_bar`: tqdm on stderr, only when stderr is a terminal (or ``--progress``).

Light: no sympy, numpy or scipy at import.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from dptheory.core.words import plural

_KEPT: list[str] = []


def print_json(obj: Any) -> None:
    print(json.dumps(obj, indent=1, default=_json_default))


def _json_default(o: Any) -> Any:
    if hasattr(o, "to_dict"):
        return o.to_dict()
    if hasattr(o, "tolist"):  # numpy arrays and scalars
        return o.tolist()
    return str(o)


def progress_bar(total: int, desc: str, enabled: bool) -> Any:
    """A tqdm bar on stderr, or None when progress is off (not a terminal, or --no-progress)."""
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, file=sys.stderr, leave=False)


def fmt(x: Any, digits: int = 8) -> str:
    """A number for a table: ``digits`` significant digits; ``None`` (a skipped point) as ``-``."""
    if x is None:
        return "-"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, float):
        if x != x:  # never show NaN as a number
            return "undefined"
        if x in (float("inf"), float("-inf")):
            return "+infinity" if x > 0 else "-infinity"
        return f"{x:.{digits}g}"
    return str(x)


def table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str] | None = None, *,
          headers: Mapping[str, str] | None = None, right: Sequence[str] = (), indent: str = "",
          digits: int = 8, file: Any = None) -> None:
    """Print ``rows`` as an aligned text table (numbers right-aligned; the last column is not padded)."""
    out = file or sys.stdout
    if not rows:
        print(indent + "(nothing to show)", file=out)
        return
    cols = list(columns or rows[0].keys())
    heads = {c: (headers or {}).get(c, c) for c in cols}
    cells = [[fmt(r.get(c), digits) for c in cols] for r in rows]
    numeric = {c for i, c in enumerate(cols)
               if c in right or all(isinstance(r.get(c), (int, float)) and not isinstance(r.get(c), bool)
                                    for r in rows if r.get(c) is not None)}
    widths = [max(len(heads[c]), *(len(row[i]) for row in cells)) for i, c in enumerate(cols)]

    def line(values: Sequence[str]) -> str:
        parts = []
        for i, (c, v) in enumerate(zip(cols, values, strict=True)):
            last = i == len(cols) - 1
            if c in numeric:
                parts.append(v.rjust(widths[i]))
            else:
                parts.append(v if last else v.ljust(widths[i]))
        return (indent + "  ".join(parts)).rstrip()

    print(line([heads[c] for c in cols]), file=out)
    for row in cells:
        print(line(row), file=out)


# ----------------------------------------------------------------------------- files
#: ``-`` as an output path: standard output (text outputs only)
STDOUT = "-"

#: output options of the commands (``args`` attribute -> option, what it writes): checked together by
#: :func:`check_outputs` before a command runs. ``text`` outputs accept ``-`` (standard output).
OUTPUT_OPTIONS: dict[str, tuple[str, str]] = {
    "csv": ("--csv", "text"),
    "json": ("--json", "text"),
    "plot": ("--plot", "image"),
    "out": ("--out", "image or folder"),
    "save_iterates": ("--save-iterates", "binary"),
}

_DATA_STDOUT: list[Any] = []  # the real standard output while the command's own messages go to stderr


def check_outputs(args: Any, extra: Sequence[tuple[str, str]] = ()) -> None:
    """Before any work: the output paths of one command (``args``' :data:`OUTPUT_OPTIONS`, plus ``extra``
    ``(option, path)`` pairs) name different files (compared after resolving symbolic links, ``.`` and ``..``,
    and hard links), ``-`` is given only to a text output, and at most one thing goes to standard output (a
    ``-`` output, ``--json`` printed, ``--print``). Raises :class:`~dptheory.cli.params.UsageError`."""
    from dptheory.cli.params import UsageError
    from dptheory.core.io import same_file

    paths: list[tuple[str, str]] = []
    stdout: list[str] = []
    for dest, (opt, kind) in OUTPUT_OPTIONS.items():
        value = getattr(args, dest, None)
        if value is True and dest == "json":
            stdout.append("--json")
        if not isinstance(value, str):
            continue
        if value == STDOUT:
            if kind != "text":
                raise UsageError(f"{opt} cannot be '-' (standard output): it writes {_written(kind)}; only text "
                                 "outputs (--csv, --json PATH) accept '-'")
            stdout.append(f"{opt} -")
        else:
            paths.append((opt, value))
    if getattr(args, "print", False) is True:
        stdout.append("--print")
    paths += [(o, v) for o, v in extra if v != STDOUT]
    if len(stdout) > 1:
        raise UsageError(f"{' and '.join(stdout)} would {'both' if len(stdout) == 2 else 'all'} write to standard "
                         "output; send all but one to files")
    for i, (opt_a, a) in enumerate(paths):
        for opt_b, b in paths[i + 1:]:
            if (opt_a, a) != (opt_b, b) and same_file(a, b):
                raise UsageError(f"{opt_a} {a} and {opt_b} {b} name the same file: one would overwrite the "
                                 "other; give different files")


def _written(kind: str) -> str:
    return {"image": "an image (PNG, PDF, SVG)", "binary": "a binary file",
            "image or folder": "an image file or a folder"}.get(kind, kind)


def to_stdout(args: Any) -> bool:
    """True when one of the command's outputs is ``-`` (its messages then go to stderr: see :func:`data_stdout`)."""
    return any(getattr(args, dest, None) == STDOUT for dest in OUTPUT_OPTIONS if dest != "json")


@contextlib.contextmanager
def data_stdout(active: bool) -> Iterator[None]:
    """While ``active``: standard output carries only the ``-`` output's data; everything else the command
    prints (tables, "wrote ..." lines) goes to stderr."""
    if not active:
        yield
        return
    _DATA_STDOUT.append(sys.stdout)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        _DATA_STDOUT.pop()


class OutputGroup:
    """:class:`~dptheory.core.io.AtomicGroup` in which the path ``-`` is standard output: its text is staged in a
    temporary file and printed when the group commits (so it is all-or-none like the files)."""

    def __init__(self) -> None:
        from dptheory.core.io import AtomicGroup

        self._files = AtomicGroup()
        self._stdout: list[Path] = []

    def path(self, target: Any) -> Path:
        if str(target) != STDOUT:
            return self._files.path(target)
        import tempfile

        from dptheory.core.io import new_temporary_file

        return new_temporary_file(tempfile.gettempdir(), "dptheory-stdout-", ".part", record=self._stdout.append,
                                  forget=self._stdout.pop, shown="standard output")

    @contextlib.contextmanager
    def open(self, target: Any, mode: str = "w", **kwargs: Any) -> Iterator[Any]:
        if str(target) == STDOUT and mode != "w":
            from dptheory.core.errors import OutputPathError

            raise OutputPathError("a binary output cannot go to standard output ('-'); give a file name")
        if str(target) != STDOUT:
            with self._files.open(target, mode, **kwargs) as fh:
                yield fh
            return
        with open(self.path(target), mode, **kwargs) as fh:
            yield fh

    def commit(self) -> list[Path]:
        done = self._files.commit()
        out = _DATA_STDOUT[-1] if _DATA_STDOUT else sys.stdout
        try:
            for tmp in self._stdout:
                with open(tmp, newline="") as fh:
                    out.write(fh.read())
            out.flush()
        finally:
            self._drop_stdout()
        return done

    def discard(self) -> None:
        self._files.discard()
        self._drop_stdout()

    def _drop_stdout(self) -> None:
        for tmp in self._stdout:
            tmp.unlink(missing_ok=True)
        self._stdout = []


@contextlib.contextmanager
def output_files() -> Iterator[Any]:
    """Several output files of one command: all of them are written, or none (and the kept ones are
    recorded for the interrupt message). Yields an :class:`OutputGroup` (``-`` is standard output)."""
    group = OutputGroup()
    try:
        yield group
    except BaseException:
        group.discard()
        raise
    done = group.commit()
    _KEPT.extend(str(p) for p in done)


def write_csv(group: Any, path: str, rows: Sequence[Mapping[str, Any]]) -> None:
    """Rows as a CSV file in an output group (:func:`output_files`); the columns are every key of the rows,
    in order of first appearance."""
    import csv

    fields: list[str] = []
    for r in rows:
        fields += [k for k in r if k not in fields]
    with group.open(path, newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)


def kept_files() -> list[str]:
    """Files a command has written completely so far (for the message of an interrupted command)."""
    return list(_KEPT)


def reset_kept() -> None:
    _KEPT.clear()


def out_in_folder(path: str, default_name: str) -> str:
    """``--out DIR`` (an existing folder) means ``DIR/default_name``; any other path is kept as given."""
    p = Path(path)
    return str(p / default_name) if p.is_dir() else path


# ----------------------------------------------------------------------------- claims
_NOT = {
    "<": "is not below",
    "<=": "is above",
    ">": "is not above",
    ">=": "is below",
    "==": "is not equal to",
}


def _shown(value: str) -> str:
    v = str(value).strip()
    return {"+inf": "+infinity", "inf": "+infinity", "-inf": "-infinity"}.get(v, v)


def _distinct(a: str, b: str, start: int = 6) -> tuple[str, str]:
    """Both values rounded to the fewest significant digits (at least ``start``) that tell them apart."""
    try:
        import mpmath

        x, y = mpmath.mpf(a), mpmath.mpf(b)
    except (ValueError, TypeError):
        return a, b
    if mpmath.isinf(x) or mpmath.isinf(y):
        return _shown(a), _shown(b)
    full = max(len(a), len(b))
    for d in range(start, full + 1):
        sa, sb = mpmath.nstr(x, d), mpmath.nstr(y, d)
        if sa != sb or x == y:
            return sa, sb
    return a, b


def falsification(ce: Mapping[str, Any]) -> str:
    """Why a claim fails at a counterexample, as one sentence (from a counterexample record of
    :func:`dptheory.verify.checking.check_claim`): ``Thm 4.3 = 0.359 is not below composition
    (exact) = 0.202 at lam=1, ..., alpha=20, K=50``."""
    lhs, rhs = ce["lhs"], ce["rhs"]
    a, b = _distinct(str(lhs["value"]), str(rhs["value"]))
    rel = str(ce.get("relation", ""))
    verb = _NOT.get(rel, f"is not {rel} of" if rel.startswith("within") else f"does not satisfy {rel}")

    def side(label: str, value: str) -> str:
        return label if _shown(label) == _shown(value) else f"{label} = {value}"

    where = ", ".join(f"{k}={v}" for k, v in ce.get("params", {}).items())
    return f"{side(lhs['label'], a)} {verb} {side(rhs['label'], b)}" + (f" at {where}" if where else "")


def claim_result_lines(res: Any, title: str, width: int) -> list[str]:
    """The text of one checked claim (``dptheory check``): the key, the verdict and how it was reached, the
    claim's title, why it fails (a falsified claim), then the result as sentences (the region, the closest
    approach, undecided boxes) and notes. ``res`` is a :class:`dptheory.verify.verdicts.ClaimResult`."""
    unit = "box" if res.verdict.value == "certified" else "point"
    pad = " " * width
    lines = [f"{res.claim:<{width}}  {res.verdict.value:<13} {res.method} "
             f"[{plural(res.examples_tried, unit, 'boxes' if unit == 'box' else None)}, {res.duration_s:.1f} s]",
             f"{pad}  {'Our claim' if res.ours else 'Paper'}: {title}"]
    if res.counterexample:
        lines.append(f"{pad}  why: {falsification(res.counterexample)}")
    lines += [f"{pad}  {s}" for s in res.sentences() if not s.startswith("Falsified:")]
    lines += [f"{pad}  note: {n}" for n in res.notes]
    return lines


def written(*, csv: str | None = None, rows: int = 0, files: Sequence[str | None] = ()) -> str:
    """The one-line summary of what a command wrote (``wrote 40 rows to s.csv and s.png``); '' if nothing."""
    parts = [f"{plural(rows, 'row')} to {'standard output' if csv == STDOUT else csv}"] if csv else []
    parts += [str(f) for f in files if f]
    return "wrote " + " and ".join(parts) if parts else ""


def print_written(text: str, *, json_on_stdout: bool = False) -> None:
    """Print :func:`written`'s line: on stderr when standard output carries JSON (it stays parseable)."""
    if text:
        print(text, file=sys.stderr if json_on_stdout else sys.stdout)
