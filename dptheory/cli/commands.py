"""The generic commands of ``dptheory``: list, show, eval, sweep, crossover, convert, check, figure, report."""

from __future__ import annotations

import argparse
import csv
import sys
from collections.abc import Sequence
from typing import Any

import mpmath

from dptheory.cli.output import fmt, print_json, progress_bar
from dptheory.cli.params import parse_params
from dptheory.core.claims import Claim
from dptheory.core.errors import DPTheoryError
from dptheory.core.registry import REGISTRY
from dptheory.core.theorem import Theorem


def _theorem(key: str) -> Theorem:
    obj = REGISTRY.get(key)
    if not isinstance(obj, Theorem):
        raise DPTheoryError(
            f"{key} is a claim, not a theorem (use `dptheory show {key}` or `dptheory check --claim {key}`)"
        )
    return obj




# ----------------------------------------------------------------------------- list / show
def cmd_list(args: argparse.Namespace) -> int:
    rows = []
    for obj in REGISTRY:
        if isinstance(obj, Theorem) and not args.claims:
            rows.append(
                {
                    "key": obj.key,
                    "kind": "theorem",
                    "direction": str(obj.direction),
                    "title": obj.title,
                    "source": obj.citation.short(),
                }
            )
        elif isinstance(obj, Claim) and (args.claims or args.all):
            rows.append(
                {"key": obj.key, "kind": "claim", "direction": "", "title": obj.title, "source": obj.citation.short()}
            )
    if args.json:
        print_json(rows)
        return 0
    width = max(len(r["key"]) for r in rows) if rows else 10
    for r in rows:
        d = f"[{r['direction']}]" if r["direction"] else "[claim]"
        print(f"{r['key']:<{width}}  {d:<13} {r['title']}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    obj = REGISTRY.get(args.key)
    if isinstance(obj, Theorem):
        if args.latex:
            print(obj.latex())
            for c in obj.conditions_latex():
                print("% condition: " + c)
            return 0
        print(obj.explain())
        return 0
    c: Claim = obj
    lines = [
        f"{c.key}: {c.title}",
        f"  source: {c.citation.short()}",
        f'  paper: "{c.statement}"',
        f"  reading: {c.reading}",
        f"  checks: {c.describe()}",
        f"  region: {c.region.description or 'all valid points'}",
    ]
    if c.counterexamples:
        lines.append("  pinned counterexamples:")
        for pt in c.counterexamples:
            lines.append("    " + ", ".join(f"{k}={v}" for k, v in pt.items()))
    if c.finding:
        lines.append("  finding: " + c.finding)
    print("\n".join(lines))
    return 0


# ----------------------------------------------------------------------------- eval
def cmd_eval(args: argparse.Namespace) -> int:
    thm = _theorem(args.key)
    params = parse_params(args.params)
    value = thm.evaluate(params, dps=args.dps, check=not args.no_check, term=args.term)
    shown = value.value
    unit = str(value.unit)
    if args.unit == "bits" and value.unit.value == "nats":
        from dptheory.core.units import Unit

        shown = value.in_unit(Unit.BITS)
        unit = "bits"
    if args.json:
        d = value.to_dict()
        if unit != str(value.unit):
            d["value"] = mpmath.nstr(shown, args.dps, strip_zeros=False)
            d["unit"] = unit
        print_json(d)
    else:
        print(
            f"{args.key}{':' + args.term if args.term else ''} = {mpmath.nstr(shown, args.dps, strip_zeros=False)} "
            f"{unit} ({value.direction} bound; {value.quantity}; {args.dps} digits)"
        )
        for c in value.conditions:
            if c.condition.kind == "domain":
                continue
            print(f"  [{c.status.value:>9}] {c.text:<32} lhs = {c.lhs}, rhs = {c.rhs}")
    if value.violated:
        for c in value.violated:
            print(
                f"dptheory: warning: {args.key} condition violated (evaluated anyway with --no-check): "
                f"{c.text} ({c.condition.gloss}); lhs = {c.lhs}, rhs = {c.rhs}",
                file=sys.stderr,
            )
    return 0


# ----------------------------------------------------------------------------- sweep
def _split_grid(thms: list[Theorem], items: Sequence[str]) -> tuple[dict[str, list[Any]], dict[str, str]]:
    from dptheory.core.sweep import parse_values

    grid: dict[str, list[Any]] = {}
    fixed: dict[str, str] = {}
    for k, v in parse_params(items).items():
        owner = next((t for t in thms if k in t.params), None)
        if owner is None:
            raise DPTheoryError(f"parameter {k!r} is not taken by {', '.join(t.key for t in thms)}")
        integer = owner.notation[k].domain.is_integer
        vals = parse_values(k, v, integer=integer)
        if len(vals) == 1 and ".." not in v and "," not in v:
            fixed[k] = v
        else:
            grid[k] = vals
    return grid, fixed


def cmd_sweep(args: argparse.Namespace) -> int:
    from dptheory.core.sweep import sweep

    compare = [k for k in args.compare if "=" not in k]
    params = list(args.params) + [k for k in args.compare if "=" in k]
    thms = [_theorem(args.key)] + [_theorem(k) for k in compare]
    grid, fixed = _split_grid(thms, params)
    results = []
    for t in thms:
        g = {k: v for k, v in grid.items() if k in t.params}
        f = {k: v for k, v in fixed.items() if k in t.params}
        results.append(sweep(t, g, f, skip_invalid=args.skip_invalid))
    names = list(grid)
    rows = _sweep_rows(results, names)
    if args.csv:
        with open(args.csv, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    if args.plot:
        from dptheory.report.plotting import plot_sweep

        plot_sweep(results, names, args.plot, logy=not args.linear)
    if args.json:
        print_json({"fixed": fixed, "rows": rows})
    elif not args.csv or args.print:
        keys = list(rows[0])
        print("  ".join(f"{k:>14}" for k in keys))
        for r in rows:
            print("  ".join(f"{fmt(r[k]):>14}" for k in keys))
    for r in results:
        for note in r.notes:
            print(f"dptheory: {r.key}: {note}", file=sys.stderr)
    return 0




def _sweep_rows(results: list[Any], names: list[str]) -> list[dict[str, Any]]:
    import itertools

    import numpy as np

    base = results[0]
    rows = []
    axes = [
        np.array([float(x) for x in (base.axes[base.names.index(n)] if n in base.names else [np.nan])]) for n in names
    ]
    for idx in itertools.product(*(range(len(a)) for a in axes)):
        row: dict[str, Any] = {n: axes[i][idx[i]] for i, n in enumerate(names)}
        for r in results:
            sub = tuple(idx[names.index(n)] for n in r.names)
            v = float(r.values[sub] if r.names else r.values)
            ok = bool(r.valid[sub] if r.names else r.valid)
            row[r.key] = v if ok else None  # a skipped (invalid) point: null in JSON, empty in CSV
        rows.append(row)
    return rows


# ----------------------------------------------------------------------------- crossover
def cmd_crossover(args: argparse.Namespace) -> int:
    from dptheory.core.sweep import crossover

    a, b = _theorem(args.key1), _theorem(args.key2)
    params = parse_params(args.params)
    res = crossover(a, b, args.over, args.start, args.stop, params, dps=args.dps)
    if args.json:
        print_json(res.to_dict())
        return 0
    if res.value is None:
        print(f"{a.key} is not below {b.key} at the end of {args.over} in [{args.start}, {args.stop}]; no crossover")
        return 0
    if res.always_below:
        print(f"{a.key} < {b.key} for every {args.over} in [{args.start}, {args.stop}]")
    else:
        print(
            f"{a.key} stays below {b.key} for {args.over} >= {res.value} (up to {args.stop}); "
            f"confirmed at {res.confirmed_dps} digits"
        )
        if res.before:
            print(f"  at {args.over} = {res.before[args.over]}: {res.before[a.key]} >= {res.before[b.key]}")
    if res.at_value:
        print(f"  at {args.over} = {res.at_value[args.over]}: {res.at_value[a.key]} < {res.at_value[b.key]}")
    if res.changes > 1:
        print(f"  note: the order changes {res.changes} times along the range")
    return 0


# ----------------------------------------------------------------------------- convert
def cmd_convert(args: argparse.Namespace) -> int:
    from dptheory.privacy.conversion import convert

    thm = _theorem(args.key)
    params = parse_params(args.params)
    orders = [o.strip() for o in args.orders.split(",")] if args.orders else None
    methods = ["improved", "classic"] if args.method == "both" else [args.method]
    out = []
    for m in methods:
        res = convert(
            thm,
            params,
            delta=args.delta,
            method=m,
            orders=orders,
            alpha_min=args.alpha_min,
            alpha_max=args.alpha_max,
            dps=args.dps,
        )
        out.append(res)
    if args.json:
        print_json([r.to_dict() for r in out])
        return 0
    for r in out:
        print(r.describe())
    return 0


# ----------------------------------------------------------------------------- check
def cmd_check(args: argparse.Namespace) -> int:
    from dptheory.verify.checking import Verdict, check_claim

    claims = [REGISTRY.get(k) for k in args.claim] if args.claim else REGISTRY.claims()
    for c in claims:
        if not isinstance(c, Claim):
            raise DPTheoryError(f"{c.key} is not a claim")
    results = []
    surprises = []
    outer = progress_bar(len(claims), "claims", args.progress)
    for c in claims:
        res = check_claim(c, examples=args.examples, seed=args.seed, dps=args.dps, use_pinned=not args.fresh)
        results.append(res)
        expected = Verdict.FALSIFIED if c.counterexamples else Verdict.VERIFIED
        # with --fresh a search may miss a pinned finding (it is random); only a new finding surprises
        if res.verdict is not expected and not (args.fresh and expected is Verdict.FALSIFIED):
            surprises.append((c.key, expected, res.verdict))
        if outer is not None:
            outer.update(1)
            outer.set_postfix_str(f"{c.key.split('.')[-1]}: {res.verdict}")
    if outer is not None:
        outer.close()
    if args.json:
        print_json([r.to_dict() for r in results])
    else:
        width = max(len(r.claim) for r in results) if results else 10
        for r, c in zip(results, claims, strict=True):
            print(
                f"{r.claim:<{width}}  {r.verdict.value:<10} {r.method} "
                f"[{r.examples_tried} points, {r.duration_s:.1f} s]"
            )
            print(f"{'':<{width}}  {c.title}")
            if r.counterexample:
                ce = r.counterexample
                pts = ", ".join(f"{k}={v}" for k, v in ce["params"].items())
                print(f"{'':<{width}}  counterexample: {pts}")
                print(
                    f"{'':<{width}}    {ce['lhs']['label']} = {ce['lhs']['value']}  {ce['relation']}  "
                    f"{ce['rhs']['label']} = {ce['rhs']['value']}  does not hold"
                )
            for note in r.notes:
                print(f"{'':<{width}}  note: {note}")
        n_f = sum(r.verdict is Verdict.FALSIFIED for r in results)
        n_v = sum(r.verdict is Verdict.VERIFIED for r in results)
        n_u = len(results) - n_f - n_v
        print(f"\n{len(results)} claims: {n_v} verified, {n_f} falsified (findings), {n_u} undecided")
    for key, exp, got in surprises:
        print(
            f"dptheory: {key}: expected {exp.value} from the registry, got {got.value}"
            f"{' (new finding: pin the counterexample)' if got is Verdict.FALSIFIED else ''}",
            file=sys.stderr,
        )
    return 3 if surprises else 0


# ----------------------------------------------------------------------------- figure
def cmd_figure(args: argparse.Namespace) -> int:
    info = REGISTRY.figure(args.name).make(args.out, csv_path=args.csv)
    print(f"wrote {args.out}" + (f" and {args.csv}" if args.csv else ""))
    for line in info:
        print("  " + line)
    return 0


# ----------------------------------------------------------------------------- report
def cmd_report(args: argparse.Namespace) -> int:
    import dataclasses

    from dptheory.report import build, defaults, load
    from dptheory.report.config import papers_with_defaults

    if args.params:
        cfg = load(args.params)
        if args.paper and args.paper != cfg.paper:
            cfg = dataclasses.replace(cfg, paper=args.paper)
    elif args.paper:
        cfg = defaults(args.paper)
    else:
        raise DPTheoryError(f"give --paper (one of {', '.join(papers_with_defaults())}) or --params FILE.toml")
    if args.claims is not None:
        cfg = dataclasses.replace(cfg, claims=args.claims)
    if args.claim_examples is not None:
        cfg = dataclasses.replace(cfg, claim_examples=args.claim_examples)
    bar = progress_bar(0, "report", args.progress)

    def tick(key: str) -> None:
        if bar is not None:
            bar.update(1)
            bar.set_postfix_str(key)

    res = build(cfg, args.out, compile_pdf=False if args.no_pdf else None, progress=tick)
    if bar is not None:
        bar.close()
    print(f"wrote {res.tex}" + (f" and {res.pdf}" if res.pdf else ""))
    for f in res.figures:
        print(f"  figure {f}")
    for note in res.notes:
        print(f"  note: {note}")
    return 0
