"""The ``dptheory`` command line.

``main(argv) -> int`` so tests call it in-process. Sub-commands: list, show, eval, sweep, crossover,
convert, check, report, figure (here); train and audit (``cli_train``, trained models of Ye & Shokri;
``audit maxinfo`` from ``cli_maxinfo``); maxinfo and pacbayes (``cli_maxinfo``); shi26 (``cli_shi26``).
Errors print one clear line on stderr (theorem, condition, values, citation) and exit 1; usage
errors exit 2; ``check`` exits 3 when a verdict differs from what the registry records (a new finding
to pin, or a pinned counterexample that no longer falsifies); ``audit`` exits 3 when a measured
assumption or an upper bound is violated by a trained model (a finding).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Sequence
from typing import Any

import mpmath

from . import __version__
from .core.claims import Claim
from .core.errors import ConditionViolated, DPTheoryError
from .core.registry import REGISTRY
from .core.theorem import Theorem


def _kv(items: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for it in items:
        if "=" not in it:
            raise SystemExit(f"dptheory: expected name=value, got {it!r}")
        k, v = it.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def _theorem(key: str) -> Theorem:
    obj = REGISTRY.get(key)
    if not isinstance(obj, Theorem):
        raise DPTheoryError(
            f"{key} is a claim, not a theorem (use `dptheory show {key}` or `dptheory check --claim {key}`)"
        )
    return obj


def _progress(total: int, desc: str, enabled: bool) -> Any:
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is a core dependency
        return None
    return tqdm(total=total, desc=desc, file=sys.stderr, leave=False)


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
        print(json.dumps(rows, indent=1))
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
    params = _kv(args.params)
    value = thm.evaluate(params, dps=args.dps, check=not args.no_check, term=args.term)
    shown = value.value
    unit = str(value.unit)
    if args.unit == "bits" and value.unit.value == "nats":
        from .core.units import Unit

        shown = value.in_unit(Unit.BITS)
        unit = "bits"
    if args.json:
        d = value.to_dict()
        if unit != str(value.unit):
            d["value"] = mpmath.nstr(shown, args.dps, strip_zeros=False)
            d["unit"] = unit
        print(json.dumps(d, indent=1))
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
    from .sweep import parse_values

    grid: dict[str, list[Any]] = {}
    fixed: dict[str, str] = {}
    for k, v in _kv(items).items():
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
    from .sweep import sweep

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
        from .figures.plotting import plot_sweep

        plot_sweep(results, names, args.plot, logy=not args.linear)
    if args.json:
        print(json.dumps({"fixed": fixed, "rows": rows}, indent=1))
    elif not args.csv or args.print:
        keys = list(rows[0])
        print("  ".join(f"{k:>14}" for k in keys))
        for r in rows:
            print("  ".join(f"{_fmt(r[k]):>14}" for k in keys))
    for r in results:
        for note in r.notes:
            print(f"dptheory: {r.key}: {note}", file=sys.stderr)
    return 0


def _fmt(x: Any) -> str:
    if isinstance(x, float):
        return f"{x:.8g}"
    return str(x)


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
    from .sweep import crossover

    a, b = _theorem(args.key1), _theorem(args.key2)
    params = _kv(args.params)
    res = crossover(a, b, args.over, args.start, args.stop, params, dps=args.dps)
    if args.json:
        print(json.dumps(res.to_dict(), indent=1))
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
    from .privacy.conversion import convert

    thm = _theorem(args.key)
    params = _kv(args.params)
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
        print(json.dumps([r.to_dict() for r in out], indent=1))
        return 0
    for r in out:
        print(r.describe())
    return 0


# ----------------------------------------------------------------------------- check
def cmd_check(args: argparse.Namespace) -> int:
    from .core.checking import Verdict, check_claim

    claims = [REGISTRY.get(k) for k in args.claim] if args.claim else REGISTRY.claims()
    for c in claims:
        if not isinstance(c, Claim):
            raise DPTheoryError(f"{c.key} is not a claim")
    results = []
    surprises = []
    outer = _progress(len(claims), "claims", args.progress)
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
        print(json.dumps([r.to_dict() for r in results], indent=1))
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
    from .figures import FIGURES

    try:
        fn = FIGURES[args.name]
    except KeyError:
        raise DPTheoryError(f"unknown figure {args.name!r}; known: {', '.join(sorted(FIGURES))}") from None
    info = fn(args.out, csv_path=args.csv)
    print(f"wrote {args.out}" + (f" and {args.csv}" if args.csv else ""))
    for line in info:
        print("  " + line)
    return 0


# ----------------------------------------------------------------------------- report
def cmd_report(args: argparse.Namespace) -> int:
    import dataclasses

    from .report import build, defaults, load
    from .report.config import papers_with_defaults

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
    bar = _progress(0, "report", args.progress)

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

    # sub-command groups defined next to the code they drive
    from . import cli_maxinfo, cli_shi26, cli_train

    audit_sub = cli_train.add_subcommands(sub)
    cli_maxinfo.add_audit_maxinfo(audit_sub)
    cli_maxinfo.add_subcommands(sub)
    cli_shi26.add_subcommands(sub)

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
    s.add_argument("name", help="yeshokri22-fig1 | yeshokri22-fig2")
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
    except ConditionViolated as exc:
        print(f"dptheory: condition violated: {exc}", file=sys.stderr)
        return 1
    except DPTheoryError as exc:
        print(f"dptheory: error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"dptheory: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
