"""``dptheory shi26 ...``: Shi et al.'s Figure 1, the sensitivity sweep, the regime report, the feasibility
search and the privacy accountings. Found by :mod:`dptheory.cli`, which passes this
paper's sub-parser collection to :func:`add_subcommands`.

Every command prints tables or text for people, or ``--json``. The files of ``fig1`` (PNG, CSV, JSON) and of
``sweep`` (CSV, PNG) are written together or not at all: the run writes into a hidden staging folder inside
``--out`` and the files are renamed into place only when all of them are complete.
"""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from dptheory.cli.output import output_files, table
from dptheory.cli.params import add_cluster_options, add_json, cluster_options, integer, real


def _point(items: list[str]) -> dict[str, str]:
    from dptheory.cli.params import parse_params

    return parse_params(items)


def _config(args: argparse.Namespace) -> Any:
    from dptheory.papers.shi26 import experiments as E

    base = E.PAPER if args.scale == "paper" else E.REDUCED
    over: dict[str, Any] = {}
    for name in ("steps", "n_test", "seed", "q", "kappa", "sigma_0", "eval_every"):
        v = getattr(args, name, None)
        if v is not None:
            over[name] = v
    return replace(base, **over)


def _staged(out: Path, run: Any) -> tuple[Any, dict[str, str]]:
    """Run ``run(staging_folder)`` and move every file it wrote into ``out`` together (all or none)."""
    from dptheory.core.io import temporary_folder

    out.mkdir(parents=True, exist_ok=True)
    with temporary_folder(".staging.", out) as tmp:
        res = run(Path(tmp))
        moved = {}
        with output_files() as group:
            for f in sorted(Path(tmp).iterdir()):
                target = out / f.name
                os.replace(f, group.path(target))
                moved[f.name] = str(target)
    return res, moved


def cmd_fig1(args: argparse.Namespace) -> int:
    from dptheory.papers.shi26 import experiments as E

    cfg = _config(args)
    sps = args.sigma_p
    workers, scheduler = cluster_options(args)
    E.check_memory(cfg, pairs=len(sps or cfg.sigma_ps), workers=workers, scheduler=scheduler)  # before --out exists
    res, _moved = _staged(Path(args.out), lambda tmp: E.run_fig1(cfg, tmp, progress=args.progress, sigma_ps=sps,
                                                                 workers=workers, scheduler=scheduler))
    files = {k: str(Path(args.out) / Path(v).name) for k, v in res.files.items()}
    if args.json:
        print(json.dumps({"files": files, "seconds": res.seconds, "summary": res.summary}, indent=1, default=str))
        return 0
    print(f"wrote {files['png']}, {files['csv']}, {files['json']} ({res.seconds:.0f} s)")
    for r in res.summary["runs"]:
        g, d = r["GD"], r["DP-GD"]
        line = (f"  sigma_p = {r['sigma_p']:g}: test accuracy GD {g['test_accuracy']:.3f}, "
                f"DP-GD {d['test_accuracy']:.3f};"
                f" training loss GD {g['train_loss']:.3f}, DP-GD {d['train_loss']:.3f}")
        if "privacy" in r:
            p = r["privacy"]
            line += (f"; (eps, {p['delta']:g})-DP: Lemma 39 {p['lemma39']:.4g}, restricted-domain exact "
                     f"(replace-one) {p['restricted_replace']:.4g}, realised (data-dependent, not a guarantee) "
                     f"{p['realised_replace']:.4g}")
        print(line)
    return 0


def cmd_sweep(args: argparse.Namespace) -> int:
    from pathlib import Path

    from dptheory.cli.params import UsageError
    from dptheory.papers.shi26 import experiments as E

    cfg = _config(args)
    grid = None
    if bool(args.param) != bool(args.values):
        raise UsageError("shi26 sweep: give --param and --values together (e.g. --param q --values 2,3,4)")
    if args.param:
        grid = {args.param: tuple(args.values)}
    seeds = tuple(range(args.seeds))
    workers, scheduler = cluster_options(args)
    rows = E.sweep(cfg, grid, sigma_p=args.sigma_p_value, seeds=seeds, progress=args.progress, workers=workers,
                   scheduler=scheduler)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with output_files() as group:
        E.write_sweep(rows, group.path(out / f"{cfg.name}_sweep.csv"))
        E.plot_sweep(rows, str(group.path(out / f"{cfg.name}_sweep.png")))
    if args.json:
        from dataclasses import asdict

        print(json.dumps([asdict(r) for r in rows], indent=1))
        return 0
    print(f"wrote {out / f'{cfg.name}_sweep.csv'} and .png")
    for r in rows:
        print(f"  {r.param}={r.value:g} seed {r.seed} t={r.step}: GD {r.gd_accuracy:.3f}, DP-GD {r.dp_accuracy:.3f}, "
              f"gap {r.gap:+.3f}")
    return 0


def cmd_regime(args: argparse.Namespace) -> int:
    from dptheory.papers.shi26 import theorems as S

    point = _point(args.params)
    conds = S.condition1(args.reading) if args.condition == "1" else S.condition2(args.reading)
    rows = S.regime_report(conds, point)
    if args.json:
        print(json.dumps([r.to_dict() for r in rows], indent=1))
        return 0
    print(f"Condition {args.condition} ({args.reading} reading) at {', '.join(f'{k}={v}' for k, v in point.items())}:")
    table([{"status": f"[{r.status}]", "id": r.ident, "lhs": r.lhs, "rhs": r.rhs, "log_slack": f"{r.log_slack:+.3f}",
            "violated by": "" if r.status == "holds" else f"a factor {r.factor:.3g}"} for r in rows],
          ["status", "id", "lhs", "rhs", "log_slack", "violated by"], headers={"status": "", "lhs": "left side",
                                                                               "rhs": "right side",
                                                                               "log_slack": "log-slack (nats)"},
          right=["lhs", "rhs", "log_slack"], indent="  ")
    return 0


def cmd_feasibility(args: argparse.Namespace) -> int:
    from dptheory.papers.shi26 import feasibility as F
    from dptheory.papers.shi26 import theorems as S

    levels = {
        "condition2": (S.condition2(args.reading), {}),
        "condition2+thm2": (S.condition2(args.reading) + S.theorem2_horizon(), {"c_T1": 1.0}),
        "condition2+thm3": (S.condition2(args.reading) + S.theorem3_choices(), {"c_T1": 1.0, "c_T2": 1.0}),
        "condition1": (S.condition1(args.reading), {"q": args.q}),
    }
    out = []
    for lv in args.level:
        conds, fixed = levels[lv]
        res = F.search(conds, level=lv, C=args.C, fixed=fixed, starts=args.starts, seed=args.seed)
        out.append(res.to_dict())
        if not args.json:
            print(f"{lv} at C = {args.C:g}: best min log-slack {res.min_slack:+.4f} nats -> "
                  f"{'FEASIBLE (exactly re-checked witness)' if res.feasible else 'no feasible point found'}")
            print(f"  binding: {', '.join(res.binding)}")
            if res.witness:
                print("  witness: " + ", ".join(f"{k}={v}" for k, v in res.witness.items()))
            else:
                print("  closest point: " + ", ".join(f"{k}={v:.4g}" for k, v in res.point.items()))
    if args.json:
        print(json.dumps(out, indent=1))
    return 0


def cmd_privacy(args: argparse.Namespace) -> int:
    import mpmath

    from dptheory.core.errors import DPTheoryError
    from dptheory.core.registry import REGISTRY
    from dptheory.papers.shi26 import privacy as sp26
    from dptheory.papers.shi26 import theorems as shi_2026  # noqa: F401
    from dptheory.privacy.gaussian_dp import gdp_epsilon_mp

    p = _point(args.params)
    need = ("T", "mu_norm", "sigma_p", "d", "sigma_b", "n", "m")
    missing = [k for k in need if k not in p]
    if missing:
        raise DPTheoryError(f"shi26 privacy: missing {', '.join(missing)} (give name=value; it takes "
                            f"{', '.join(need)})")
    extra = [k for k in p if k not in need]
    if extra:
        raise DPTheoryError(f"shi26 privacy: unexpected {', '.join(extra)}; it takes {', '.join(need)}")
    base = {k: p[k] for k in need}
    e39 = REGISTRY.get("shi26.lemma39").evaluate({**base, "delta": args.delta}, dps=30)
    with mpmath.workdps(30):
        f = {k: sp26_mpf(e39.params[k]) for k in base}
        args_ = (f["mu_norm"], f["sigma_p"], f["d"], f["n"], f["m"])
        res = {}
        for nb in ("replace", "zero-out"):
            mu2 = f["T"] * sp26.sup_sensitivity_sq(*args_, neighbour=nb) / f["sigma_b"] ** 2
            res[nb] = gdp_epsilon_mp(mpmath.sqrt(mu2), mpmath.mpf(str(args.delta)))
    if args.json:
        print(json.dumps({"params": {k: str(v) for k, v in base.items()}, "delta": args.delta,
                          "lemma39": e39.decimal(12), "restricted_replace": mpmath.nstr(res["replace"], 12),
                          "restricted_zero_out": mpmath.nstr(res["zero-out"], 12), "unit": "nats"}, indent=1))
        return 0
    print(f"Lemma 39 (as printed, optimal order): epsilon = {e39.decimal(12)} nats at delta = {args.delta:g}")
    dom = "exact worst case on ||xi||^2 <= 1.5 sigma_p^2 d"
    print(f"  {dom}, replace-one: epsilon = {mpmath.nstr(res['replace'], 12)}")
    print(f"  {dom}, zero-out:    epsilon = {mpmath.nstr(res['zero-out'], 12)}")
    print("  over all of R^d (no clipping): no finite epsilon (unbounded sensitivity)")
    return 0


def sp26_mpf(x: Any) -> Any:
    """An exact parameter value (a sympy Rational) as an mpf at the current precision."""
    from dptheory.core.notation import rational_to_mpf

    return rational_to_mpf(x)


def _sigma_ps(text: str) -> list[float]:
    from dptheory.cli.params import float_list

    return float_list(0)(text)


_sigma_ps.__name__ = "numbers"


def add_subcommands(sub: Any) -> None:
    """Add fig1, sweep, regime, feasibility and privacy to ``dptheory shi26``."""
    g = sub

    pos = real(0, None, lo_open=True)
    count = integer(1, 10**9)

    def scale_args(s: argparse.ArgumentParser) -> None:
        s.add_argument("--scale", choices=["paper", "reduced"], default="reduced",
                       help="paper: d=2000, m=100, n=1000 (slow); reduced: d=500, m=25, n=250")
        s.add_argument("--steps", type=count, help="iterations (default: the scale's)")
        s.add_argument("--n-test", dest="n_test", type=count, help="test examples (default: the scale's)")
        s.add_argument("--seed", type=integer(0, 2**63 - 1), help="seed (default: the scale's)")
        s.add_argument("--q", type=real(2, None, lo_open=True),
                       help="activation exponent q, > 2 (default: the scale's)")
        s.add_argument("--kappa", type=pos, help="Huber threshold kappa (default: the scale's)")
        s.add_argument("--sigma-0", dest="sigma_0", type=pos, help="initialisation std (default: the scale's)")
        s.add_argument("--eval-every", dest="eval_every", type=count, help="evaluate every this many steps")
        s.add_argument("--out", default="reports/shi26", help="output folder")
        s.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bars")
        add_json(s)

    s = g.add_parser("fig1", help="reproduce Figure 1 (PNG, CSV, JSON with (eps, delta) of every DP-GD run)")
    scale_args(s)
    s.add_argument("--sigma-p", dest="sigma_p", type=_sigma_ps, help="comma-separated subset of 0.1,0.3,0.5")
    add_cluster_options(s, "training pairs")
    s.set_defaults(func=cmd_fig1)

    s = g.add_parser("sweep", help="sensitivity of the GD-vs-DP-GD gap to q, kappa, sigma_0 and the horizon")
    scale_args(s)
    s.add_argument("--param", choices=["q", "kappa", "sigma_0"], help="the parameter to vary (with --values)")
    s.add_argument("--values", type=_sigma_ps, help="comma-separated values for --param")
    s.add_argument("--sigma-p-value", type=pos, default=0.5, help="sigma_p of the runs")
    s.add_argument("--seeds", type=integer(1, 1000), default=1, help="seeds per value")
    add_cluster_options(s, "training pairs")
    s.set_defaults(func=cmd_sweep)

    s = g.add_parser("regime", help="every inequality of Condition 1 or 2 at a point: both sides, slack")
    s.add_argument("params", nargs="*", metavar="name=value", help="the point (see docs/shi26.md)")
    s.add_argument("--condition", choices=["1", "2"], default="2", help="Condition 1 or 2")
    s.add_argument("--reading", choices=["sqrt", "literal"], default="sqrt", help="reading of the conditions")
    add_json(s, "a table")
    s.set_defaults(func=cmd_regime)

    s = g.add_parser("feasibility", help="search for a point where all of a condition set holds")
    s.add_argument("--level", nargs="*", default=["condition2", "condition2+thm2", "condition2+thm3", "condition1"],
                   choices=["condition2", "condition2+thm2", "condition2+thm3", "condition1"],
                   help="condition sets to search")
    s.add_argument("--C", type=pos, default=1.0, help="the hidden constant of the conditions")
    s.add_argument("--q", type=real(2, None, lo_open=True), default=3.0, help="q for Condition 1 (> 2)")
    s.add_argument("--reading", choices=["sqrt", "literal"], default="sqrt", help="reading of the conditions")
    s.add_argument("--starts", type=integer(1, 10_000), default=24, help="optimiser starts")
    s.add_argument("--seed", type=integer(0, 2**63 - 1), default=0, help="seed of the starts")
    add_json(s)
    s.set_defaults(func=cmd_feasibility)

    s = g.add_parser("privacy", help="Lemma 39 vs exact worst-case accounting at a point")
    s.add_argument("params", nargs="*", metavar="name=value", help="T mu_norm sigma_p d sigma_b n m")
    s.add_argument("--delta", type=real(0, 1, lo_open=True, hi_open=True), default=1e-5, help="delta, in (0, 1)")
    add_json(s)
    s.set_defaults(func=cmd_privacy)


GROUP_HELP = "Shi et al.: two-layer CNN, GD vs DP-GD (Figure 1, regime, feasibility, privacy)"
