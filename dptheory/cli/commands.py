"""The generic commands of ``dptheory``: list, show, eval, sweep, convert, check, figure, report.

(``compare`` and ``crossover`` are in :mod:`dptheory.cli.compare`.) Every handler takes the parsed ``args``
and returns an exit code; heavy libraries (sympy, numpy, mpmath, the papers) are imported inside the
handlers, so building the parser stays fast. Output is a table or text for people by default and JSON with
``--json``; files go through :func:`dptheory.cli.output.output_files` (written whole, all or none).
"""

from __future__ import annotations

import argparse
import fnmatch
import sys
from collections.abc import Sequence
from typing import Any

from dptheory.cli.output import (
    check_outputs,
    out_in_folder,
    output_files,
    print_json,
    print_written,
    progress_bar,
    table,
    write_csv,
    written,
)
from dptheory.cli.params import (
    MAX_GRID_POINTS,
    PLOT_SUFFIXES,
    UsageError,
    check_grid_size,
    cluster_options,
    grid_values,
    parse_params,
)
from dptheory.core.errors import DPTheoryError, UnexpectedParameter
from dptheory.core.words import plural

__all__ = ["MAX_GRID_POINTS", "cmd_check", "cmd_convert", "cmd_eval", "cmd_figure", "cmd_list", "cmd_report",
           "cmd_show", "cmd_sweep", "theorem"]

COMPARE_HINT = ("to put several theorems side by side at one parameter set, use "
                "`dptheory compare KEY KEY ... name=value`")


def theorem(key: str) -> Any:
    """The theorem registered under ``key``, for evaluation (read from the statement cache when it can be:
    :meth:`~dptheory.core.registry.Registry.numeric`); a claim or an unknown key is a one-line error."""
    from dptheory.core.registry import REGISTRY

    obj = REGISTRY.numeric(key)
    if getattr(obj, "KIND", "") != "theorem":
        raise DPTheoryError(
            f"{key} is a claim, not a theorem (use `dptheory show {key}` or `dptheory check --claim {key}`)"
        )
    return obj


def _is_glob(text: str) -> bool:
    return any(ch in text for ch in "*?[")


# ----------------------------------------------------------------------------- list / show
def cmd_list(args: argparse.Namespace) -> int:
    from dptheory.core.registry import REGISTRY

    kinds = {"theorem", "claim", "figure"} if args.all else (
        {k for k, on in (("claim", args.claims), ("figure", args.figures)) if on} or {"theorem"})
    rows = [r for r in REGISTRY.catalog() if r["kind"] in kinds] if kinds - {"figure"} else []
    if "figure" in kinds:
        rows += _figure_rows()
    prefix = args.prefix.strip()
    if prefix:
        everything = rows
        rows = [r for r in rows if (fnmatch.fnmatchcase(r["key"], prefix) if _is_glob(prefix)
                                    else r["key"].startswith(prefix))]
        if not rows:
            papers = sorted({r["key"].split(".")[0].split("-")[0] for r in everything})
            raise DPTheoryError(f"no {' or '.join(sorted(kinds))} key starts with {prefix!r}; prefixes: "
                                f"{', '.join(papers)}")
    for r in rows:
        if r["kind"] == "claim" and not r.get("verdict"):
            from dptheory.docs_gen import verdict_on_record

            r["verdict"], r["how"] = verdict_on_record(REGISTRY.get(r["key"]))
    if args.json:
        print_json([{k: v for k, v in r.items() if k not in ("module", "params")} for r in rows])
        return 0
    if kinds == {"theorem"}:
        table(rows, ["key", "direction", "title"])
    elif kinds == {"claim"}:
        table(rows, ["key", "verdict", "title"], headers={"verdict": "verdict on record"})
    elif kinds == {"figure"}:
        table(rows, ["key", "title"], headers={"key": "figure"})
    else:
        for r in rows:
            r["what"] = r["direction"] or r.get("verdict", "")
        table(rows, ["key", "kind", "what", "title"], headers={"what": "direction / verdict on record"})
    return 0


def _figure_rows() -> list[dict[str, Any]]:
    from dptheory.catalog import paper_packages
    from dptheory.core.registry import REGISTRY

    rows = [{"key": f["name"], "kind": "figure", "title": f["title"], "direction": "", "source": f.get("paper", "")}
            for f in REGISTRY.index().get("figures", [])]
    indexed = {v["package"] for v in REGISTRY.index().get("papers", {}).values()}
    if not rows or any(p not in indexed for p in paper_packages()):
        known = {r["key"] for r in rows}
        rows += [{"key": f.name, "kind": "figure", "title": f.title, "direction": "", "source": f.paper}
                 for f in REGISTRY.figures() if f.name not in known]
    return sorted(rows, key=lambda r: r["key"])


def cmd_show(args: argparse.Namespace) -> int:
    from dptheory.core import describe
    from dptheory.core.registry import REGISTRY

    obj = REGISTRY.get(args.key)
    where = defined_in(REGISTRY.origin(obj.key))
    if getattr(obj, "KIND", "") == "theorem":
        if args.json:
            print_json({**_theorem_dict(obj), "defined_in": where})
        elif args.latex:
            print(describe.latex_block(obj))
        else:
            print(describe.explain(obj, full=args.full))
            print(f"  defined in: {where}")
        return 0
    if args.json:
        from dptheory.core.findings import map_record

        print_json({"key": obj.key, "kind": "claim", "title": obj.title, "source": obj.citation.short(),
                    "statement": obj.statement, "reading": obj.reading, "checks": obj.describe(),
                    "region": obj.region.description, "finding": obj.finding_text,
                    "counterexamples": [{k: str(v) for k, v in pt.items()} for pt in obj.counterexamples],
                    "map": map_record(obj), "defined_in": where})
        return 0
    print(describe.claim_text(obj))
    print(f"  defined in: {where}")
    return 0


def defined_in(module: str) -> str:
    """The file of ``module`` as a person finds it: relative to the folder holding the ``dptheory`` package
    (``dptheory/papers/yeshokri22/theorems.py``), the absolute path for a plugin outside it, the path given for a
    paper file (``--paper FILE``); ``unknown`` if the module is not loaded."""
    import sys
    from pathlib import Path

    if module.startswith("file:"):  # a paper file read with --paper
        return module[len("file:"):]
    path = getattr(sys.modules.get(module), "__file__", None)
    if not path:
        return "unknown"
    root = Path(__file__).resolve().parents[2]
    p = Path(path).resolve()
    return p.relative_to(root).as_posix() if p.is_relative_to(root) else str(p)


def _theorem_dict(t: Any) -> dict[str, Any]:
    from dptheory.core import describe

    names = t.symbol_names()
    return {
        "key": t.key, "kind": "theorem", "title": t.title, "source": t.citation.short(),
        "direction": str(t.direction), "quantity": t.quantity, "unit": str(t.unit),
        "params": [{"name": p.name, "meaning": p.meaning, "domain": p.domain.value, "latex": p.latex}
                   for p in t.param_objects],
        "bound": describe.one_line(t.bound, names) if t.bound is not None else None,
        "statement": [describe.one_line(s, names) for s in t.statement],
        "definitions": [describe.one_line(d, names) for d in t.definitions],
        "latex": t.latex(), "definitions_latex": t.definitions_latex(),
        "conditions": [{"text": c.render(), "gloss": c.gloss, "kind": c.kind} for c in t.all_conditions],
        "assumptions": list(t.assumptions), "terms": {k: v.description for k, v in t.terms.items()},
    }


# ----------------------------------------------------------------------------- eval
def cmd_eval(args: argparse.Namespace) -> int:
    thm = theorem(args.key)
    if args.term is not None and args.term not in thm.terms:
        raise DPTheoryError(f"{thm.key} has no term {args.term!r}; its terms: {', '.join(thm.terms) or 'none'}")
    params = parse_params(args.params)
    try:
        value = thm.evaluate(params, dps=args.dps, check=not args.no_check, term=args.term,
                             certify=getattr(args, "certify", False))
    except UnexpectedParameter as exc:
        raise DPTheoryError(f"{exc}; {COMPARE_HINT}") from None
    shown = value.value
    unit = str(value.unit)
    if args.unit == "bits" and value.unit.value == "nats":
        from dptheory.core.units import Unit

        shown = value.in_unit(Unit.BITS)
        unit = "bits"
    text = _decimal(shown, args.dps)
    if args.json:
        d = value.to_dict() if not _huge(value.value) else _value_dict(value, text)
        if unit != str(value.unit):
            d["value"] = text
            d["unit"] = unit
        print_json(d)
    else:
        print(
            f"{args.key}{':' + args.term if args.term else ''} = {text} "
            f"{unit} ({value.direction} bound; {value.quantity}; {args.dps} digits)"
        )
        if getattr(args, "certify", False) and value.enclosure is not None:
            print(f"  certified: the exact value lies in [{value.enclosure.lo_str}, {value.enclosure.hi_str}] "
                  f"(arb balls at {value.enclosure.prec} bits, rounded outward)")
        rows = [{"status": f"[{c.status.value}]", "condition": c.text, "lhs": c.lhs, "rhs": c.rhs}
                for c in value.conditions if c.condition.kind != "domain"]
        if rows:
            table(rows, ["status", "condition", "lhs", "rhs"], headers={"status": "", "lhs": "left side",
                                                                         "rhs": "right side"}, indent="  ")
    for c in value.violated:
        print(
            f"dptheory: warning: {args.key} condition violated (evaluated anyway with --no-check): "
            f"{c.text} ({c.condition.gloss}); lhs = {c.lhs}, rhs = {c.rhs}",
            file=sys.stderr,
        )
    return 0


#: beyond 2^(+-HUGE_BITS) a value is printed from its logarithm (mpmath's decimal conversion of a number whose
#: exponent has thousands of digits takes minutes)
HUGE_BITS = 100_000


def _huge(x: Any) -> bool:
    import mpmath

    return bool(mpmath.isfinite(x) and x != 0 and abs(int(x.man_exp[1])) > HUGE_BITS)


def _decimal(x: Any, dps: int) -> str:
    """An mpf with ``dps`` significant digits (the same digits as ``BoundValue.decimal``); never NaN."""
    import mpmath

    if mpmath.isnan(x):
        raise DPTheoryError("the value is undefined (NaN); this is a bug, please report it")
    if mpmath.isinf(x):
        return "+infinity" if x > 0 else "-infinity"
    if _huge(x):
        # x = m 10^e with e = floor(log10 |x|): log10 at enough digits to hold e and dps digits of its fraction
        with mpmath.workdps(dps + len(str(abs(int(x.man_exp[1])))) + 10):
            lg = mpmath.log10(abs(x))
            e = int(mpmath.floor(lg))
            m = mpmath.power(10, lg - e)
        sign = "-" if x < 0 else ""
        return f"{sign}{mpmath.nstr(m, dps, strip_zeros=False)}e{e:+d}"
    return mpmath.nstr(x, dps, strip_zeros=False, min_fixed=-5, max_fixed=25) if dps > 1 else mpmath.nstr(x, 1)


def _value_dict(value: Any, text: str) -> dict[str, Any]:
    """``BoundValue.to_dict()`` with the value given as text (for values :func:`_huge` cannot print directly)."""
    from dptheory.core.notation import format_rational

    return {"key": value.key, "params": {k: format_rational(v) for k, v in value.params.items()}, "value": text,
            "unit": str(value.unit), "direction": str(value.direction), "quantity": value.quantity,
            "dps": value.dps, "conditions": [c.to_dict() for c in value.conditions]}


# ----------------------------------------------------------------------------- sweep
def split_grid(thms: list[Any], items: Sequence[str], *, allow_axes: int | None = None
               ) -> tuple[dict[str, list[Any]], dict[str, str]]:
    """``name=spec`` items -> (grid axes, fixed values), validated (see :func:`dptheory.cli.params.grid_values`)."""
    grid: dict[str, list[Any]] = {}
    fixed: dict[str, str] = {}
    for k, v in parse_params(items).items():
        owner = next((t for t in thms if k in t.params), None)
        if owner is None:
            taken = sorted({p for t in thms for p in t.params})
            raise DPTheoryError(f"parameter {k!r} is not taken by {', '.join(t.key for t in thms)}; they take "
                                f"{', '.join(taken)}")
        integer = owner.notation[k].domain.is_integer
        vals = grid_values(k, v, integer=integer)
        if len(vals) == 1 and ".." not in v and "," not in v:
            fixed[k] = v
        else:
            grid[k] = vals
    if allow_axes is not None and len(grid) > allow_axes:
        raise UsageError(f"at most {allow_axes} parameter(s) may be a list or range here; got {', '.join(grid)}")
    check_grid_size({k: len(v) for k, v in grid.items()})
    return grid, fixed


def cmd_sweep(args: argparse.Namespace) -> int:
    from dptheory.evaluate.sweep import sweep

    compare = [k for k in args.compare if "=" not in k]
    params = list(args.params) + [k for k in args.compare if "=" in k]
    thms = [theorem(args.key)] + [theorem(k) for k in compare]
    grid, fixed = split_grid(thms, params)
    workers, scheduler = cluster_options(args)
    results = []
    for t in thms:
        g = {k: v for k, v in grid.items() if k in t.params}
        f = {k: v for k, v in fixed.items() if k in t.params}
        results.append(sweep(t, g, f, skip_invalid=args.skip_invalid, workers=workers, scheduler=scheduler))
    names = list(grid)
    rows = _sweep_rows(results, names)
    if args.csv or args.plot:
        with output_files() as group:
            if args.csv:
                write_csv(group, args.csv, rows)
            if args.plot:
                from dptheory.report.plotting import plot_sweep

                plot_sweep(results, names, str(group.path(args.plot)), logy=not args.linear)
    if args.json:
        print_json({"fixed": fixed, "rows": rows})
    elif not args.csv or args.print:
        table(rows, right=list(rows[0]), digits=8)
    print_written(written(csv=args.csv, rows=len(rows), files=[args.plot]), json_on_stdout=args.json)
    for r in results:
        for note in r.notes:
            print(f"dptheory: {r.key}: {note}", file=sys.stderr)
    return 0


def _sweep_rows(results: list[Any], names: list[str]) -> list[dict[str, Any]]:
    """One row per grid point; a skipped (invalid) point is null in JSON and empty in CSV; a value beyond
    float64 is given as a decimal string from the log-domain value (never inf or NaN)."""
    import itertools
    import math

    import mpmath
    import numpy as np

    base = results[0]
    rows = []
    axes = [
        np.array([float(x) for x in (base.axes[base.names.index(n)] if n in base.names else [np.nan])]) for n in names
    ]
    for idx in itertools.product(*(range(len(a)) for a in axes)):
        row: dict[str, Any] = {n: axes[i][idx[i]].item() for i, n in enumerate(names)}
        for r in results:
            sub = tuple(idx[names.index(n)] for n in r.names)
            v = float(r.values[sub] if r.names else r.values)
            lv = float(r.log_values[sub] if r.names else r.log_values)
            ok = bool(r.valid[sub] if r.names else r.valid)
            if not ok:
                row[r.key] = None
            elif math.isfinite(v) and not (v == 0 and math.isfinite(lv)):
                row[r.key] = v
            else:  # beyond float64 (overflow, or an underflow carried in the log domain)
                if math.isfinite(lv):
                    with mpmath.workdps(20):
                        row[r.key] = mpmath.nstr(mpmath.exp(mpmath.mpf(lv)), 12)
                elif lv > 0:
                    row[r.key] = "+infinity"
                else:
                    raise DPTheoryError(f"{r.key}: the sweep value at {row} is undefined; this is a bug, please "
                                        "report it")
        rows.append(row)
    return rows


# ----------------------------------------------------------------------------- convert
def cmd_convert(args: argparse.Namespace) -> int:
    from dptheory.privacy.conversion import convert

    if args.orders and (args.alpha_min is not None or args.alpha_max is not None):
        raise UsageError("give either --orders or --alpha-min/--alpha-max, not both")
    _check_order_range(args.alpha_min, args.alpha_max)
    thm = theorem(args.key)
    params = parse_params(args.params)
    if "alpha" in params:
        raise UsageError("do not give alpha: the conversion optimises over it (use --orders to fix orders)")
    check_delta_range(args.delta)
    conversion_preflight(thm, params)
    methods = ["improved", "classic"] if args.method == "both" else [args.method]
    out = []
    for m in methods:
        try:
            res = convert(thm, params, delta=args.delta, method=m, orders=args.orders, alpha_min=args.alpha_min,
                          alpha_max=args.alpha_max, dps=args.dps)
        except UnexpectedParameter as exc:
            raise DPTheoryError(f"{exc}; {COMPARE_HINT}") from None
        check_conversion(thm, res, args)
        out.append(res)
    if args.json:
        print_json([conversion_dict(r, args.delta) for r in out])
        return 0
    for r in out:
        print(describe_conversion(r, args.delta))
    return 0


def _check_order_range(lo: str | None, hi: str | None) -> None:
    """--alpha-min below --alpha-max, each against the other's default ([1.0001, 10000])."""
    from fractions import Fraction

    from dptheory.cli.params import exact_number
    from dptheory.privacy.conversion import DEFAULT_ALPHA_MAX, DEFAULT_ALPHA_MIN

    if lo is None and hi is None:
        return
    a = exact_number(lo) if lo is not None else Fraction(str(DEFAULT_ALPHA_MIN))
    b = exact_number(hi) if hi is not None else Fraction(str(DEFAULT_ALPHA_MAX))
    if not a < b:
        shown_lo = lo if lo is not None else f"{DEFAULT_ALPHA_MIN:g} (default)"
        shown_hi = hi if hi is not None else f"{DEFAULT_ALPHA_MAX:g} (default)"
        raise UsageError(f"--alpha-min ({shown_lo}) must be below --alpha-max ({shown_hi})")


#: the order search works in float64: a delta below this cannot be represented there
MIN_DELTA = "1e-300"


def check_delta_range(delta: str) -> None:
    """delta >= 1e-300 (the float64 order search); a smaller delta is refused, never rounded to 0."""
    from dptheory.cli.params import exact_number

    if exact_number(delta) < exact_number(MIN_DELTA):
        raise DPTheoryError(f"delta = {delta} is below {MIN_DELTA}, the smallest delta the order search handles (it "
                            "scans orders in float64); accepted: 1e-300 <= delta < 1")


def conversion_preflight(thm: Any, params: dict[str, str]) -> None:
    """Before optimising the order: the parameters' names and values, and every condition that does not
    involve alpha (violated there, no order can help: exit 1 naming it, never an infinite epsilon)."""
    from dptheory.core.conditions import Status
    from dptheory.core.errors import ConditionViolated
    from dptheory.core.notation import format_rational

    if "alpha" not in thm.params:
        raise DPTheoryError(f"{thm.key} has no Renyi order alpha; it is not an RDP bound")
    exact = thm.parse({**params, "alpha": 2})
    for r in thm.check(exact):
        if r.status is Status.VIOLATED and "alpha" not in r.condition.names:
            names = [p for p in thm.params if p in r.condition.names]
            raise ConditionViolated(key=thm.key, condition=r.text, gloss=r.condition.gloss, lhs=r.lhs, rhs=r.rhs,
                                    values={n: format_rational(exact[n]) for n in names},
                                    citation=(r.condition.citation or thm.citation).short())


def check_conversion(thm: Any, res: Any, args: argparse.Namespace) -> None:
    import mpmath

    if not mpmath.isfinite(res.epsilon):
        raise DPTheoryError(
            f"{thm.key}: no Renyi order in the searched range ({res.orders_searched}) satisfies every condition "
            "at these parameters, so there is no finite epsilon; `dptheory eval` at one order names the condition")


def conversion_dict(r: Any, delta: str) -> dict[str, Any]:
    """The JSON of a conversion; ``delta`` is a number when float64 holds it exactly as given (``1e-05``), else
    the exact decimal as text (``"1e-400"``, which float64 would turn into 0)."""
    d = r.to_dict()
    d["delta"] = delta_json(delta)
    return d


def delta_json(text: str) -> float | str:
    from dptheory.cli.params import exact_number

    v = exact_number(text)
    f = float(v)
    return f if f != 0 and exact_number(repr(f)) == v else text.strip()


def _plain(text: str) -> str:
    d = delta_json(text)
    return repr(d) if isinstance(d, float) else d


def describe_conversion(r: Any, delta: str) -> str:
    import mpmath

    edge = "  (optimum at the edge of the searched orders: widen --alpha-min/--alpha-max)" if r.at_edge else ""
    return (
        f"{r.key}: ({mpmath.nstr(r.epsilon, 12)}, {_plain(delta)})-DP [{r.method} conversion, "
        f"order alpha = {mpmath.nstr(r.order, 8)}, RDP there {mpmath.nstr(r.rdp_at_order, 12)} nats; "
        f"searched {r.orders_searched}]{edge}"
    )


# ----------------------------------------------------------------------------- check
def select_claims(patterns: Sequence[str]) -> list[Any]:
    """Claims named by keys or glob patterns (``yeshokri22.C5*``), in registry order, without duplicates."""
    from dptheory.core.registry import REGISTRY

    if not patterns:
        return list(REGISTRY.claims())
    claim_keys = [r["key"] for r in REGISTRY.catalog() if r["kind"] == "claim"]
    out: list[Any] = []
    for pat in patterns:
        if _is_glob(pat):
            keys = [k for k in claim_keys if fnmatch.fnmatchcase(k, pat)]
            if not keys:
                raise DPTheoryError(f"no claim matches {pat!r}; claims: {', '.join(_prefixes(claim_keys))} "
                                    "(e.g. 'yeshokri22.C5*'; see `dptheory list --claims`)")
            objs = [REGISTRY.get(k) for k in keys]
        else:
            obj = REGISTRY.get(pat)
            if getattr(obj, "KIND", "") != "claim":
                raise DPTheoryError(f"{pat} is a theorem, not a claim (claims: `dptheory list --claims`)")
            objs = [obj]
        out += [o for o in objs if o not in out]
    return out


def _prefixes(keys: Sequence[str]) -> list[str]:
    return sorted({k.split(".")[0] + ".*" for k in keys})


#: the note (:func:`dptheory.core.cache_store.read_note`) of how long each claim took, by kind of run: the next run
#: starts the longest claims first (only the time depends on it)
CHECK_NOTE = "check-durations"


def _durations(fresh: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """The note of durations (a dict whatever the note holds) and its part for this kind of run."""
    from dptheory.core.cache_store import read_note

    timings = read_note(CHECK_NOTE)
    timings = timings if isinstance(timings, dict) else {}
    seconds = timings.get("fresh" if fresh else "pinned")
    return timings, dict(seconds) if isinstance(seconds, dict) else {}


def _note_durations(results: Sequence[Any], fresh: bool) -> None:
    from dptheory.core.cache_store import write_note

    timings, seconds = _durations(fresh)
    seconds.update({r.claim: round(float(r.duration_s), 3) for r in results})
    write_note(CHECK_NOTE, {**timings, "fresh" if fresh else "pinned": seconds})


def _check_task(task: tuple[Any, ...]) -> list[Any]:
    """``check_claim`` of claims by key, in order, in one process (a task of ``dptheory check`` on the local pool
    or Dask): keys, examples, seed, dps, use_pinned and whether to build the certificates."""
    from dptheory.core.registry import REGISTRY
    from dptheory.verify.checking import check_claim

    keys, examples, seed, dps, use_pinned, certificate = task
    return [check_claim(REGISTRY.get(key), examples=examples, seed=seed, dps=dps, use_pinned=use_pinned,
                        certificate=certificate) for key in keys]


def _sharing_groups(claims: Sequence[Any]) -> list[list[int]]:
    """The claims (indices, in order) grouped so that claims sharing a custom side (one :class:`Custom` object,
    e.g. Thm 4.3 in (epsilon, delta) with its per-point caches) are checked in one process, one after the other:
    the second reads the first's cached values instead of recomputing them on another worker. Every other claim
    is a group of its own. Only the time changes: each claim's check is seeded by ``--seed`` alone."""
    from dptheory.core.claims import Custom

    def customs(side: Any) -> list[int]:
        own = [id(side)] if isinstance(side, Custom) else []
        return own + [i for part in side.sub_sides() for i in customs(part)]

    first: dict[int, int] = {}  # a custom side -> the group (its first claim's index) that holds it
    group_of = list(range(len(claims)))

    def root(i: int) -> int:
        while group_of[i] != i:
            i = group_of[i]
        return i

    for i, c in enumerate(claims):
        for side in (*customs(c.lhs), *customs(c.rhs)):
            j = first.setdefault(side, i)
            a, b = root(i), root(j)
            group_of[max(a, b)] = min(a, b)
    groups: dict[int, list[int]] = {}
    for i in range(len(claims)):
        groups.setdefault(root(i), []).append(i)
    return list(groups.values())


def _certificate_folder(folder: str | None) -> None:
    """Refuse a ``--certificates`` folder that cannot be one before any work (an existing file, no parent)."""
    from pathlib import Path

    if folder is None:
        return
    p = Path(folder)
    if p.exists() and not p.is_dir():
        raise DPTheoryError(f"--certificates {folder}: is a file; give a folder (it is created if needed)")
    if not p.exists() and not p.resolve().parent.is_dir():
        raise DPTheoryError(f"--certificates {folder}: its parent folder does not exist")
    other = next((e.name for e in sorted(p.iterdir()) if not (e.is_file() and e.suffix == ".json")), None) \
        if p.is_dir() else None
    if other is not None:
        raise DPTheoryError(f"--certificates {folder}: holds {other}, which is not a certificate; give a new or empty "
                            "folder, or one of certificates only (this run's replace them)")


#: what to do with a falsified claim whose verdict on record is another: pin the counterexample (docs/adding_a_paper.md)
PIN_HINT = (" (a new finding: pin the counterexample printed above, counterexamples = [{...}] with verdict = "
            "\"falsified\" in the claim's [[claim]] table, or Claim(counterexamples=...) in Python)")


def cmd_check(args: argparse.Namespace) -> int:
    from dptheory.cli.output import claim_result_lines
    from dptheory.evaluate.parallel import local_processes, run_tasks, uses_dask
    from dptheory.verify.checking import Verdict, check_claim

    paper_keys = getattr(args, "paper_keys", [])
    if paper_keys and not args.claim:  # `check --paper FILE`: the file's claims
        from dptheory.core.registry import REGISTRY

        claims = [c for c in (REGISTRY.get(k) for k in paper_keys) if getattr(c, "KIND", "") == "claim"]
        if not claims:
            raise DPTheoryError("the paper files given with --paper declare no [[claim]]; nothing to check")
    else:
        claims = select_claims(args.claim)
    workers, scheduler = cluster_options(args)
    certs = getattr(args, "certificates", None)
    _certificate_folder(certs)
    if paper_keys and uses_dask(workers, scheduler):
        raise DPTheoryError("--paper FILE is checked in this process (a worker does not read the file): drop "
                            "--workers/--scheduler")
    results = []
    surprises = []
    missed = []
    done: list[Any] | None = None
    # by default several claims run on a pool of this machine's CPUs (a paper file's in this process, where it was
    # read); --workers 1 keeps them in this process
    processes = local_processes(len(claims)) if workers is None and scheduler is None and not paper_keys else 1
    if uses_dask(workers, scheduler) or processes > 1:
        # one task per claim, or per group of claims sharing a custom side on the local pool; each claim seeded by
        # --seed alone: the verdicts do not depend on the workers or the grouping
        groups = _sharing_groups(claims) if processes > 1 else [[i] for i in range(len(claims))]
        tasks = [(tuple(claims[i].key for i in g), args.examples, args.seed, args.dps, not args.fresh,
                  certs is not None) for g in groups]
        costs = None
        if processes > 1:
            seconds = _durations(args.fresh)[1]
            costs = [sum(float(seconds.get(claims[i].key, 60.0)) for i in g) for g in groups]
        by_group = run_tasks(_check_task, tasks, workers=workers, scheduler=scheduler, progress=bool(args.progress),
                             desc="claim groups" if len(groups) < len(claims) else "claims", processes=processes,
                             costs=costs)
        done = [None] * len(claims)
        for g, rs in zip(groups, by_group, strict=True):
            for i, r in zip(g, rs, strict=True):
                done[i] = r
    outer = None if done is not None else progress_bar(len(claims), "claims", args.progress)
    for i, c in enumerate(claims):
        if done is not None:
            res = done[i]
        else:
            res = check_claim(c, examples=args.examples, seed=args.seed, dps=args.dps, use_pinned=not args.fresh,
                              certificate=certs is not None)
        results.append(res)
        # a verdict other than the one on record is a surprise; with --fresh, a search that merely does
        # not reach a pinned finding is a miss (reported), not a change
        why = res.disagreement(fresh=args.fresh)
        if why is not None:
            surprises.append((c.key, res))
        elif res.missed(fresh=args.fresh):
            missed.append(c.key)
        if outer is not None:
            outer.update(1)
            outer.set_postfix_str(f"{c.key.split('.')[-1]}: {res.verdict}")
    if outer is not None:
        outer.close()
    if certs is not None:
        from dptheory.verify.certificates import write_certificates

        written = write_certificates(certs, [r.certificate for r in results if r.certificate is not None],
                                     replace=True)
        print(f"{plural(len(written), 'certificate')} written to {certs} (`dptheory recheck {certs}` re-verifies "
              "them)", file=sys.stderr)
    _note_durations(results, args.fresh)
    if args.json:
        print_json([r.to_dict() for r in results])
    else:
        width = max(len(r.claim) for r in results) if results else 10
        for r, c in zip(results, claims, strict=True):
            for line in claim_result_lines(r, c.title, width):
                print(line)
        counts = {v: sum(r.verdict is v for r in results) for v in Verdict}
        print(f"\n{plural(len(results), 'claim')}: " + ", ".join(f"{n} {v.value}" for v, n in counts.items()))
        if missed:
            print(f"{len(missed)} pinned findings not reached by the fresh search: {', '.join(missed)}")
    for key, res in surprises:
        print(
            f"dptheory: {key}: {res.disagreement(fresh=args.fresh)}"
            f"{PIN_HINT if res.verdict is Verdict.FALSIFIED else ''}",
            file=sys.stderr,
        )
    return 3 if surprises else 0


#: exit status of `recheck` when a certificate is refused (README, "Errors, exit status and output files")
REFUSED_EXIT = 4


def cmd_recheck(args: argparse.Namespace) -> int:
    """``recheck DIR``: the independent checker (:mod:`dptheory.recheck`) on every certificate of DIR."""
    from pathlib import Path

    from dptheory.cli.output import table
    from dptheory.recheck import RESULTS, recheck

    folder = Path(args.folder)
    if not folder.is_dir():
        raise DPTheoryError(f"recheck {args.folder}: not a folder (give the folder of `check --certificates DIR`)")
    rows = recheck(folder)
    if not rows:
        raise DPTheoryError(f"recheck {args.folder}: no certificate (*.json) in it; write some with "
                            f"`dptheory check --certificates {args.folder}`")
    if args.json:
        print_json(rows)
    else:
        table(rows, ["file", "claim", "verdict", "result", "seconds", "reason"])
        counts = {r: sum(row["result"] == r for row in rows) for r in dict.fromkeys(x["result"] for x in rows)}
        print(f"\n{plural(len(rows), 'certificate')}: " + ", ".join(f"{n} {r}" for r, n in counts.items()))
    return REFUSED_EXIT if any(r["result"] == RESULTS[2] for r in rows) else 0


# ----------------------------------------------------------------------------- figure
def cmd_figure(args: argparse.Namespace) -> int:
    from pathlib import Path

    from dptheory.core.registry import REGISTRY

    fig = REGISTRY.figure(args.name)
    out = out_in_folder(args.out, f"{fig.name}.png")
    if Path(out).suffix.lower() not in PLOT_SUFFIXES:
        raise UsageError(f"figure: --out must be an existing folder or a file name ending in "
                         f"{', '.join(PLOT_SUFFIXES[:3])} (or {', '.join(PLOT_SUFFIXES[3:])}); got {args.out!r}")
    check_outputs(args, [("--out", out)])  # --out FOLDER: the file it names in the folder
    with output_files() as group:
        png = group.path(out)
        csv_tmp = str(group.path(args.csv)) if args.csv else None
        info = fig.make(str(png), csv_path=csv_tmp)
    if args.json:
        print_json({"figure": fig.name, "title": fig.title, "out": out, "csv": args.csv, "info": info})
        return 0
    print(f"wrote {out}" + (f" and {'the CSV to standard output' if args.csv == '-' else args.csv}" if args.csv
                            else ""))
    for line in info:
        print("  " + line)
    return 0


# ----------------------------------------------------------------------------- report
def cmd_report(args: argparse.Namespace) -> int:
    import dataclasses

    from dptheory.report import build, defaults, load
    from dptheory.report.config import papers_with_defaults

    if args.params:
        try:
            cfg = load(args.params)
        except (TypeError, ValueError, KeyError, AttributeError) as exc:
            raise DPTheoryError(f"{args.params}: {type(exc).__name__}: {exc} (schema: reports/README.md)") from None
        if args.paper and args.paper != cfg.paper:
            # the file's sets and title are the paper's: reporting them under another paper would mislabel them
            raise DPTheoryError(f"--paper {args.paper} disagrees with paper = {cfg.paper!r} in {args.params}; drop "
                                f"--paper (the file names its paper) or change the file's [report] paper")
    elif args.paper:
        cfg = defaults(args.paper)
    else:
        raise DPTheoryError(f"give --paper (one of {', '.join(papers_with_defaults())}) or --params FILE.toml")
    _validate_report(cfg, args.params or f"the {cfg.paper} defaults")
    if args.claims is not None:
        cfg = dataclasses.replace(cfg, claims=args.claims)
    if args.claim_examples is not None:
        cfg = dataclasses.replace(cfg, claim_examples=args.claim_examples)
    cfg = dataclasses.replace(cfg, command=_report_command(args))
    bar = progress_bar(0, "report", args.progress)

    def tick(key: str) -> None:
        if bar is not None:
            bar.update(1)
            bar.set_postfix_str(key)

    res = build(cfg, args.out, compile_pdf=False if args.no_pdf else None, progress=tick)
    if bar is not None:
        bar.close()
    if args.json:
        print_json({"tex": str(res.tex), "pdf": None if res.pdf is None else str(res.pdf),
                    "figures": [str(f) for f in res.figures], "notes": list(res.notes)})
        return 0
    print(f"wrote {res.tex}" + (f" and {res.pdf}" if res.pdf else ""))
    for f in res.figures:
        print(f"  figure {f}")
    for note in res.notes:
        print(f"  note: {note}")
    return 0


def _report_command(args: argparse.Namespace) -> str:
    """The command line that regenerates the report (printed in it): the options that change its content, paths
    as given."""
    import shlex

    words = ["dptheory", "report"]
    if args.paper:  # the paper file it was read from (report --paper FILE), or the registry prefix
        words += ["--paper", getattr(args, "paper_file", None) or args.paper]
    if args.params:
        words += ["--params", str(args.params)]
    if args.claims is not None:
        words.append("--claims" if args.claims else "--no-claims")
    if args.claim_examples is not None:
        words += ["--claim-examples", str(args.claim_examples)]
    words += ["--out", str(args.out)]
    return shlex.join(words)


def _validate_report(cfg: Any, source: str) -> None:
    """Types and values of a report configuration, before any work (one-line errors naming the field)."""
    from dptheory.cli.params import check_magnitude, exact_number

    def need(ok: bool, field: str, accepted: str, got: Any) -> None:
        if not ok:
            raise DPTheoryError(f"{source}: {field} must be {accepted}; got {got!r} (schema: reports/README.md)")

    def is_int(x: Any) -> bool:
        return isinstance(x, int) and not isinstance(x, bool)

    need(isinstance(cfg.paper, str) and bool(cfg.paper), "[report] paper", "a registry prefix (text)", cfg.paper)
    need(isinstance(cfg.title, str), "[report] title", "text", cfg.title)
    need(is_int(cfg.digits) and 1 <= cfg.digits <= 50, "[report] digits", "an integer from 1 to 50", cfg.digits)
    need(is_int(cfg.dps) and 15 <= cfg.dps <= 1000, "[report] dps", "an integer from 15 to 1000", cfg.dps)
    need(isinstance(cfg.claims, bool), "[report] claims", "true or false", cfg.claims)
    need(is_int(cfg.claim_examples) and cfg.claim_examples >= 1, "[report] claim_examples", "an integer >= 1",
         cfg.claim_examples)
    need(is_int(cfg.seed) and cfg.seed >= 0, "[report] seed", "an integer >= 0", cfg.seed)
    for name, seq in (("figures", cfg.figures), ("include", cfg.include)):
        need(all(isinstance(x, str) for x in seq), f"[report] {name}", "a list of names (text)", list(seq))
    sets = [(f"[[sets]] {s.name!r}", s.params) for s in cfg.sets]
    sets += [(f"[[crossovers]] {c.lower} vs {c.upper}", {**c.params, "from": c.start, "to": c.stop})
             for c in cfg.crossovers]
    for where, params in sets:
        need(isinstance(params, dict), f"{where} params", "a table of name = value", params)
        for k, v in params.items():
            ok = isinstance(v, (int, float, str)) and not isinstance(v, bool)
            if ok:
                try:
                    exact_number(repr(v) if isinstance(v, float) else str(v))
                    check_magnitude(k, str(v))
                except ValueError:
                    ok = False
            need(ok, f"{where} {k}", "a finite number (e.g. 10, 0.02 or \"1/3\")", v)
