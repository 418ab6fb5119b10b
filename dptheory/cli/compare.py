"""``dptheory compare`` (several theorems at one parameter set) and ``dptheory crossover`` (RDP or (eps, delta)).

**compare.** Each theorem takes the parameters it needs from one ``name=value`` set (the ones it does not
take are listed, not an error). With ``alpha=A`` every theorem is evaluated at that order (RDP); with
``--delta D`` every RDP guarantee is converted to (epsilon, delta)-DP with its order optimised per theorem
(:func:`dptheory.privacy.conversion.convert`). When the parameters define a composition baseline that a
paper registered (:class:`dptheory.privacy.baselines.Baseline`: parameters -> ``(q, z, steps)`` of a Poisson-
subsampled Gaussian mechanism), two more rows are shown: the tight composition from dp-accounting's
privacy-loss distribution (:func:`dptheory.privacy.pld.pld_epsilon`, a ``[lower, upper]`` bracket that
contains the true epsilon) and the RDP-based composition (:func:`dptheory.privacy.pld.rdp_epsilon_best`).
One parameter may be a list or a range (one row per value; ``--plot`` draws curves).

**crossover.** The smallest value of ``--over`` from which KEY1 stays below KEY2 up to ``--to``: in RDP at the
given ``alpha``, or with ``--delta`` in (epsilon, delta)-DP with the order optimised per theorem and point. The
engine is :func:`dptheory.evaluate.crossover.crossover`; this module parses the arguments and prints.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Mapping, Sequence
from typing import Any

from dptheory.cli.commands import (
    check_delta_range,
    conversion_preflight,
    delta_json,
    split_grid,
    theorem,
)
from dptheory.cli.output import output_files, print_json, table, write_csv
from dptheory.cli.params import MAX_GRID_POINTS, UsageError, parse_params
from dptheory.core.errors import ConditionViolated, DPTheoryError
from dptheory.core.validate import exact_number

__all__ = ["cmd_compare", "cmd_crossover"]

MAX_COMPARE_VALUES = 1000


# ----------------------------------------------------------------------------- compare
def cmd_compare(args: argparse.Namespace) -> int:
    if args.run is not None:
        return _compare_run(args)
    keys = [x for x in args.items if "=" not in x]
    items = [x for x in args.items if "=" in x]
    if not keys:
        raise UsageError("compare: give at least one theorem key before the name=value parameters")
    dup = sorted({k for k in keys if keys.count(k) > 1})
    if dup:
        raise UsageError(f"compare: {', '.join(dup)} given twice; give each key once")
    thms = [theorem(k) for k in keys]
    raw = parse_params(items)
    if args.delta is not None:
        check_delta_range(args.delta)
    if args.delta is None and "alpha" not in raw:
        raise UsageError(
            "compare: give alpha=A (RDP at that order) and/or --delta D ((epsilon, delta)-DP, the order "
            "optimised per theorem)"
        )
    from dptheory.core.registry import REGISTRY

    papers = {k.split(".")[0] for k in keys}
    baselines = (
        [b for b in REGISTRY.baselines() if b.paper in papers and set(b.needs) <= set(raw)]
        if (args.delta is not None and args.baseline)
        else []
    )
    grid, fixed = split_grid(thms, [f"{k}={v}" for k, v in raw.items() if _taken(k, thms, baselines)], allow_axes=1)
    unused = [k for k in raw if not _taken(k, thms, baselines)]
    axis = next(iter(grid), None)
    values: list[Any] = grid[axis] if axis else [None]
    if len(values) > MAX_COMPARE_VALUES:
        raise DPTheoryError(
            f"compare: {axis} has {len(values)} values; at most {MAX_COMPARE_VALUES} are compared "
            "(each needs an order optimisation)"
        )
    rows: list[dict[str, Any]] = []
    for x in values:
        point = dict(fixed)
        if axis:
            point[axis] = str(x)
        for t in thms:
            rows.append(_theorem_row(t, point, args, axis))
        for b in baselines:
            rows.extend(_baseline_rows(b, point, args, axis))
    notes = []
    for t in thms:
        ignored = [k for k in raw if k not in t.params]
        if ignored:
            notes.append(f"not used by {t.key}: {', '.join(ignored)}")
    if unused:
        notes.append(f"used by none of them: {', '.join(unused)}")
    if not any(r["value"] is not None or r["epsilon"] is not None for r in rows):
        reasons = "; ".join(f"{r['label']}: {r['note']}" for r in rows if r["note"])
        raise DPTheoryError(f"compare: no theorem could be evaluated at these parameters ({reasons})")
    header = _compare_header(fixed, args, axis)
    if args.csv or args.plot:
        with output_files() as group:
            if args.csv:
                write_csv(group, args.csv, rows)
            if args.plot:
                _plot_compare(rows, axis, args, str(group.path(args.plot)), header)
    if args.json:
        print_json(
            {
                "params": fixed,
                "axis": axis,
                "alpha": raw.get("alpha"),
                "delta": None if args.delta is None else delta_json(args.delta),
                "method": args.method,
                "rows": rows,
                "notes": notes,
            }
        )
        return 0
    _print_compare(rows, raw, args, axis, header, notes, bool(baselines))
    return 0


def _compare_run(args: argparse.Namespace) -> int:
    """``compare --run``: every theorem that reads the run (:func:`dptheory.evaluate.run_compare.compare_run`)."""
    from dptheory.core.run import parse_run
    from dptheory.evaluate.run_compare import compare_run

    keys = [x for x in args.items if "=" not in x]
    items = [x for x in args.items if "=" in x and not x.startswith("alpha=")]
    alphas = [x.partition("=")[2] for x in args.items if x.startswith("alpha=")]
    if len(alphas) > 1:
        raise UsageError("compare --run: give alpha=A once")
    alpha = alphas[0] if alphas else None
    if alpha is not None:
        try:
            if exact_number(alpha) <= 1:
                raise ValueError("it must exceed 1")
        except ValueError as exc:
            raise UsageError(f"compare --run: alpha={alpha}: {exc}; accepted: a Renyi order above 1") from None
    if args.delta is not None:
        check_delta_range(args.delta)
    run = parse_run(args.run, items)
    import sys

    from dptheory.cli.output import progress_bar

    bar = progress_bar(0, "compare --run", sys.stderr.isatty() and not args.json)

    def step(label: str) -> None:
        if bar is not None:
            bar.set_postfix_str(label)
            bar.update()

    try:
        rows = compare_run(run, delta=args.delta, alpha=alpha, method=args.method, dps=args.dps, keys=keys,
                           pld=args.baseline, progress=step)
    finally:
        if bar is not None:
            bar.close()
    if args.csv:
        with output_files() as group:
            write_csv(group, args.csv, [{k: (", ".join(v) if isinstance(v, list) else v) for k, v in r.items()
                                         if k != "params"} for r in rows])
    if args.json:
        from dptheory.core.run import complete

        print_json({"run": {"values": {k: str(v) for k, v in complete(run).items()}, "given": sorted(run.values),
                            "facts": dict(run.facts)},
                    "alpha": alpha, "delta": None if args.delta is None else delta_json(args.delta),
                    "method": args.method, "rows": rows})
        return 0
    print(f"run: {run.describe()}")
    mode = []
    if alpha is not None:
        mode.append(f"RDP at alpha = {alpha}")
    if args.delta is not None:
        mode.append(f"(epsilon, delta) at delta = {_delta_text(args.delta)}, {args.method} conversion, order "
                    "optimised per theorem")
    print("; ".join(mode) + " [nats]")
    shown = []
    for r in rows:
        s = dict(r)
        if s["epsilon_lower"] is not None:
            s["epsilon"] = f"[{s['epsilon_lower']:.6g}, {s['epsilon_upper']:.6g}]"
        else:
            s["epsilon"] = _short(s["epsilon"], min(args.dps, 10))
        s["value"] = _short(s["value"], min(args.dps, 10))
        s["order"] = _short(s["order"], 6)
        shown.append(s)
    cols = ["label", "neighbouring"] + (["value"] if alpha is not None else []) + (
        ["epsilon", "order"] if args.delta is not None else []) + ["status"]
    heads = {"label": "bound", "value": f"RDP at alpha={alpha}", "epsilon": "epsilon", "order": "order"}
    table(shown, cols, headers=heads, right=["value", "epsilon", "order"], indent="  ")
    for r in rows:
        if r["status"] == "not met":
            print(f"  {r['label']}: not a guarantee for this run: it assumes " + "; ".join(r["unmet"]))
    for r in rows:
        if r["status"] == "skipped":
            print(f"  {r['label']}: skipped: {r['reason']}")
    notes: dict[str, list[str]] = {}
    for r in rows:
        if r["note"] and r["status"] != "skipped" and r["kind"] == "theorem":
            notes.setdefault(r["note"], []).append(r["label"])
    for note, labels in notes.items():
        print(f"  {', '.join(labels)}: {note}")
    if any(r["kind"] == "composition" for r in rows):
        print("  PLD: dp-accounting's privacy-loss distribution of the run's T Poisson-subsampled Gaussian steps; the "
              "true epsilon lies in the bracket")
    return 0


def _print_compare(
    rows: list[dict[str, Any]],
    raw: Mapping[str, str],
    args: argparse.Namespace,
    axis: str | None,
    header: str,
    notes: list[str],
    baselines: bool,
) -> None:
    """The text table of ``dptheory compare``."""
    print(header)
    shown = []
    for r in rows:
        s = dict(r)
        if s["epsilon_lower"] is not None:
            s["epsilon"] = f"[{s['epsilon_lower']:.10g}, {s['epsilon_upper']:.10g}]"
        s["value"] = _short(s["value"])
        s["epsilon"] = _short(s["epsilon"]) if s["epsilon_lower"] is None else s["epsilon"]
        s["order"] = _short(s["order"], 8)
        shown.append(s)
    cols = ([axis] if axis else []) + ["label", "direction"]
    heads = {
        "label": "bound",
        "value": f"RDP at alpha={raw['alpha']}" if "alpha" in raw else "value",
        "epsilon": f"epsilon at delta={_delta_text(args.delta)}" if args.delta else "epsilon",
        "order": "order alpha",
        "note": "note",
    }
    if "alpha" in raw:
        cols.append("value")
    if args.delta is not None:
        cols += ["epsilon", "order"]
    if any(r["note"] for r in rows):
        cols.append("note")
    table(shown, cols, headers=heads, right=["value", "epsilon", "order"], indent="  ")
    for n in notes:
        print(f"  note: {n}")
    if baselines:
        print(
            "  PLD: dp-accounting's privacy-loss distribution; the true epsilon of the composed mechanism lies in "
            "the bracket. RDP route: the same mechanism's RDP, converted with the order optimised."
        )


def _taken(name: str, thms: Sequence[Any], baselines: Sequence[Any]) -> bool:
    return any(name in t.params for t in thms) or any(name in b.needs for b in baselines)


def _delta_text(delta: str | None) -> str:
    d = delta_json(delta) if delta is not None else ""
    return repr(d) if isinstance(d, float) else str(d)


def _compare_header(fixed: Mapping[str, str], args: argparse.Namespace, axis: str | None) -> str:
    at = ", ".join(f"{k}={v}" for k, v in fixed.items())
    mode = []
    if args.delta is not None:
        mode.append(
            f"(epsilon, delta) at delta = {_delta_text(args.delta)}, {args.method} conversion, order optimised "
            "per theorem"
        )
    return f"compare at {at}" + (f", {axis} varying" if axis else "") + (f"; {mode[0]}" if mode else "") + " [nats]"


def _short(text: Any, digits: int = 12) -> Any:
    if text is None or not isinstance(text, str):
        return text
    try:
        import mpmath

        with mpmath.workdps(digits + 5):
            v = mpmath.mpf(text)
        return mpmath.nstr(v, digits)
    except (ValueError, TypeError):
        return text


def _row(axis: str | None, x: Any, label: str, key: str, kind: str, direction: str) -> dict[str, Any]:
    row: dict[str, Any] = {}
    if axis:
        row[axis] = x
    row.update(
        {
            "label": label,
            "key": key,
            "kind": kind,
            "direction": direction,
            "value": None,
            "epsilon": None,
            "epsilon_lower": None,
            "epsilon_upper": None,
            "order": None,
            "valid": True,
            "note": "",
        }
    )
    return row


def _theorem_row(t: Any, point: Mapping[str, str], args: argparse.Namespace, axis: str | None) -> dict[str, Any]:
    import mpmath

    from dptheory.core.errors import MissingParameter

    row = _row(axis, point.get(axis) if axis else None, t.key, t.key, "theorem", str(t.direction))
    pt = {k: v for k, v in point.items() if k in t.params}
    need = [p for p in t.params if p not in pt and not (p == "alpha" and args.delta is not None)]
    if need:
        raise MissingParameter(key=t.key, missing=need, expected=list(t.params))
    try:
        if "alpha" in pt or "alpha" not in t.params:
            v = t.evaluate(pt, dps=args.dps)
            row["value"] = mpmath.nstr(v.value, args.dps)
        if args.delta is not None and "alpha" in t.params:
            if not t.direction.is_guarantee:
                row["note"] = f"{t.direction}: not a guarantee, no (epsilon, delta)"
            else:
                from dptheory.privacy.conversion import convert

                base = {k: v for k, v in pt.items() if k != "alpha"}
                conversion_preflight(t, base)
                res = convert(t, base, delta=args.delta, method=args.method, dps=args.dps)
                if not mpmath.isfinite(res.epsilon):
                    row["note"] = "no order satisfies every condition"
                else:
                    row["epsilon"] = mpmath.nstr(res.epsilon, args.dps)
                    row["order"] = mpmath.nstr(res.order, 12)
                    if res.at_edge:
                        row["note"] = "optimal order at the edge of [1.0001, 10000]"
        elif args.delta is not None and "alpha" not in t.params:
            row["note"] = "not an RDP bound: no conversion"
    except ConditionViolated as exc:
        row["valid"] = False
        row["value"] = row["epsilon"] = None
        row["note"] = f"not valid here: {exc.condition} ({exc.gloss})"
    return row


def _baseline_rows(
    b: Any, point: Mapping[str, str], args: argparse.Namespace, axis: str | None
) -> list[dict[str, Any]]:
    import mpmath

    from dptheory.privacy.pld import pld_epsilon, rdp_epsilon_best

    x = point.get(axis) if axis else None
    pld = _row(axis, x, f"{b.title} (PLD, tight)", b.name, "baseline", "bracket")
    rdp = _row(axis, x, f"{b.title} (RDP route)", b.name, "baseline", "upper")
    try:
        q, z, steps = b.mechanism({k: point[k] for k in b.needs})
        if not (0 < q <= 1 and 0 < z < math.inf and steps >= 1):
            raise DPTheoryError(f"q = {q}, z = {z}, {steps} steps is not a subsampled Gaussian mechanism")
    except (DPTheoryError, ArithmeticError) as exc:
        pld["note"] = rdp["note"] = f"not defined here: {exc}"
        pld["valid"] = rdp["valid"] = False
        return [pld, rdp]
    d = float(exact_number(args.delta))
    for row, fn in ((pld, "pld"), (rdp, "rdp")):
        try:
            if fn == "pld":
                r = pld_epsilon(q, z, steps, d)
                row["epsilon_lower"], row["epsilon_upper"] = r.epsilon_lower, r.epsilon_upper
                row["epsilon"] = repr(r.epsilon_upper)
                row["note"] = f"q={q:.6g}, z={z:.6g}, {steps} steps"
            else:
                c = rdp_epsilon_best(q, z, steps, d, method=args.method, dps=max(args.dps, 15))
                row["epsilon"] = mpmath.nstr(c.epsilon, args.dps)
                row["order"] = mpmath.nstr(c.order, 12)
        except DPTheoryError as exc:
            row["valid"] = False
            row["note"] = f"not computed: {exc}"
    return [pld, rdp]


def _plot_compare(
    rows: list[dict[str, Any]], axis: str | None, args: argparse.Namespace, path: str, title: str
) -> None:
    from dptheory.report.plotting import new_figure, save

    col = "epsilon" if args.delta is not None else "value"
    fig, (ax,) = new_figure(width=7.0)
    labels = list(dict.fromkeys(r["label"] for r in rows))
    if axis:
        for lab in labels:
            pts = [r for r in rows if r["label"] == lab]
            xs = [float(exact_number(str(r[axis]))) for r in pts]
            if pts[0]["epsilon_lower"] is not None:
                ok = [(x, r) for x, r in zip(xs, pts, strict=True) if r["epsilon_lower"] is not None]
                ax.fill_between(
                    [x for x, _ in ok],
                    [r["epsilon_lower"] for _, r in ok],
                    [r["epsilon_upper"] for _, r in ok],
                    alpha=0.3,
                    label=lab,
                )
                continue
            ys = [float(r[col]) if r[col] is not None else math.nan for r in pts]
            ax.plot(xs, ys, "o-" if len(xs) < 30 else "-", label=lab)
        ax.set_xlabel(axis)
        ax.set_yscale("log")
    else:
        for i, lab in enumerate(labels):
            r = next(r for r in rows if r["label"] == lab)
            if r["epsilon_lower"] is not None:
                ax.plot([r["epsilon_lower"], r["epsilon_upper"]], [i, i], "k-", lw=4)
            elif r[col] is not None:
                ax.plot([float(r[col])], [i], "o")
        ax.set_yticks(range(len(labels)))
        ax.set_yticklabels(labels, fontsize=7)
        ax.set_xscale("log")
    ax.set_ylabel("" if not axis else ("epsilon (nats)" if col == "epsilon" else "RDP (nats)"))
    ax.set_title(title, fontsize=7)
    ax.grid(True, alpha=0.3)
    if axis:
        ax.legend(fontsize=6)
    save(fig, path)


# ----------------------------------------------------------------------------- crossover
def cmd_crossover(args: argparse.Namespace) -> int:
    from dptheory.evaluate.crossover import crossover

    a, b = theorem(args.key1), theorem(args.key2)
    params = parse_params(args.params)
    over = args.over
    if over not in a.params and over not in b.params:
        taken = sorted(set(a.params) | set(b.params))
        raise DPTheoryError(
            f"crossover: --over {over!r} is not a parameter of {a.key} or {b.key}; they take {', '.join(taken)}"
        )
    if over in params:
        raise UsageError(f"crossover: {over} is moved by --over; do not give {over}={params[over]}")
    integer = (a if over in a.params else b).notation[over].domain.is_integer
    _range_ends(over, args.start, args.stop, integer)
    unknown = [k for k in params if k not in a.params and k not in b.params]
    if unknown:
        raise DPTheoryError(
            f"crossover: {', '.join(unknown)} is taken by neither {a.key} nor {b.key}; they take "
            f"{', '.join(sorted(set(a.params) | set(b.params)))}"
        )
    if args.delta is not None:
        if "alpha" in params:
            raise UsageError("crossover --delta optimises the order per theorem and point: do not give alpha")
        if over == "alpha":
            raise UsageError("crossover --delta optimises the order: --over alpha is not meaningful")
        check_delta_range(args.delta)
        eps = crossover(
            a,
            b,
            over,
            args.start,
            args.stop,
            params,
            dps=args.dps,
            delta=args.delta,
            method=args.method,
            preflight=conversion_preflight,
        )
        return _print_eps_crossover({**eps.to_dict(), "delta": delta_json(args.delta)}, args)
    res = crossover(a, b, over, args.start, args.stop, params, dps=args.dps)
    if args.json:
        print_json(res.to_dict())
        return 0
    if res.value is None:
        print(f"{a.key} is not below {b.key} at the end of {over} in [{args.start}, {args.stop}]; no crossover")
        return 0
    if res.always_below:
        print(f"{a.key} < {b.key} for every {over} in [{args.start}, {args.stop}]")
    else:
        print(
            f"{a.key} stays below {b.key} for {over} >= {res.value} (up to {args.stop}); "
            f"confirmed at {res.confirmed_dps} digits"
        )
        if res.before:
            print(f"  at {over} = {res.before[over]}: {res.before[a.key]} >= {res.before[b.key]}")
    if res.at_value:
        print(f"  at {over} = {res.at_value[over]}: {res.at_value[a.key]} < {res.at_value[b.key]}")
    if res.changes > 1:
        print(f"  note: the order changes {res.changes} times along the range")
    return 0


def _range_ends(over: str, start: str, stop: str, integer: bool) -> None:
    try:
        lo, hi = exact_number(start), exact_number(stop)
    except ValueError as exc:
        raise UsageError(f"crossover: --from {start!r} / --to {stop!r}: {exc}") from None
    if not lo < hi:
        raise UsageError(f"crossover: --from ({start}) must be below --to ({stop})")
    if integer:
        if lo.denominator != 1 or hi.denominator != 1:
            raise UsageError(f"crossover: {over} is an integer parameter; --from and --to must be integers")
        if hi - lo + 1 > MAX_GRID_POINTS:
            raise UsageError(
                f"crossover: {over} from {start} to {stop} is {int(hi - lo + 1)} integers; every one is "
                f"evaluated, at most {MAX_GRID_POINTS}"
            )


def _print_eps_crossover(res: dict[str, Any], args: argparse.Namespace) -> int:
    if args.json:
        print_json(res)
        return 0
    a, b, over = res["lower"], res["upper"], res["param"]
    dl = _delta_text(args.delta)
    if res["value"] is None:
        at = res["at_value"]
        print(
            f"{a} is not below {b} in (epsilon, delta = {dl})-DP at the end of {over} in [{args.start}, "
            f"{args.stop}] ({at[a]} >= {at[b]}); no crossover"
        )
        return 0
    if res["always_below"]:
        print(
            f"{a} < {b} in (epsilon, delta = {dl})-DP for every {over} in [{args.start}, {args.stop}] (screened; "
            f"confirmed at {over} = {args.start} at {res['confirmed_dps']} digits)"
        )
    else:
        print(
            f"{a} stays below {b} in (epsilon, delta = {dl})-DP for {over} >= {res['value']} (up to {args.stop}); "
            f"orders optimised per theorem and point, confirmed at {res['confirmed_dps']} digits"
        )
        if res.get("before"):
            bf = res["before"]
            print(f"  at {over} = {bf[over]}: epsilon {bf[a]} >= {bf[b]}")
    at = res["at_value"]
    print(f"  at {over} = {at[over]}: epsilon {at[a]} < {at[b]}")
    print(f"  screen: {res['screen']}")
    if res["changes"] > 1:
        print(f"  note: the order changes {res['changes']} times along the range (screen)")
    return 0
