"""``dptheory yeshokri22 train|audit``: trained models of Ye & Shokri 2022 (Algorithms 1 and 2).

Found by :mod:`dptheory.cli`, which passes this paper's sub-parser collection to ``add_subcommands``.
Every handler takes the parsed ``args`` and returns an exit code; results go to stdout as JSON
(default) or to files given with
``--json``/``--csv``; plots with ``--plot``; tqdm progress bars go to stderr (``--progress`` /
``--no-progress``; default: when stderr is a terminal). See ``docs/trained_models.md``.

    dptheory yeshokri22 train --model logistic --dataset digits --n 500 --runs 1000 --K 20 --b 50
    dptheory yeshokri22 train --model quadratic --scheme shuffle --n 50 --b 2 --K 10 --runs 10000
    dptheory yeshokri22 audit exact --alpha 10 --eta 0.02 --lam 1 --S-g 4 --sigma 2 --n 50 --b 2 --K 1,5,20,100 \\
        --plot t.png
    dptheory yeshokri22 audit empirical --model logistic --runs 10000 --K 1,5,20 --plot audit.png
    dptheory yeshokri22 audit assumptions --n 500 --K 5
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from dptheory.core.errors import DPTheoryError

__all__ = ["add_subcommands", "cmd_audit_assumptions", "cmd_audit_empirical", "cmd_audit_exact", "cmd_train"]


def _ints(text: str) -> list[int]:
    try:
        return [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None


def _progress(args: argparse.Namespace) -> bool:
    p = getattr(args, "progress", None)
    return sys.stderr.isatty() if p is None else bool(p)


def _emit(args: argparse.Namespace, payload: Any, rows: Sequence[dict[str, Any]] | None = None) -> None:
    text = json.dumps(payload, indent=1, default=_default)
    if getattr(args, "json", None):
        with open(args.json, "w") as fh:
            fh.write(text + "\n")
    else:
        print(text)
    if getattr(args, "csv", None) and rows:
        fields: list[str] = []
        for r in rows:
            fields += [k for k in r if k not in fields]
        with open(args.csv, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=fields)
            w.writeheader()
            w.writerows(rows)


def _default(o: Any) -> Any:
    import mpmath

    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, (np.floating, np.integer)):
        return o.item()
    if isinstance(o, mpmath.mpf):
        return mpmath.nstr(o, 17)
    if hasattr(o, "to_dict"):
        return o.to_dict()
    return str(o)


def _common(s: argparse.ArgumentParser) -> None:
    s.add_argument("--seed", type=int, default=0, help="seed of numpy.random.default_rng (all randomness)")
    s.add_argument("--json", metavar="PATH", help="write the JSON result here instead of stdout")
    s.add_argument("--csv", metavar="PATH", help="also write the table as CSV")
    s.add_argument("--progress", dest="progress", action="store_true", default=None, help="progress bars on stderr")
    s.add_argument("--no-progress", dest="progress", action="store_false")


# ----------------------------------------------------------------------------- train
def cmd_train(args: argparse.Namespace) -> int:
    from dptheory.train import (
        QuadraticLoss,
        accuracy,
        load_dataset,
        quadratic_neighbours,
        train_dp_sgd,
        train_noisy_gd,
    )

    rng = np.random.default_rng(args.seed)
    prog = _progress(args)
    if args.model == "logistic":
        data = load_dataset(args.dataset, n=args.n, rng=rng)
        res = train_dp_sgd(data, eta=args.eta, lam=args.lam, sigma_mul=args.sigma_mul, S_g=args.S_g, L=args.L,
                           b=args.b, K=args.K, runs=args.runs, rng=rng, scheme=args.scheme, workers=args.workers,
                           progress=prog)
        acc = accuracy(res.theta, data, args.L)
        summary = {**{k: v for k, v in res.summary().items() if k not in ("theta_mean", "theta_std")},
                   "accuracy_mean": float(acc.mean()), "accuracy_min": float(acc.min()),
                   "accuracy_max": float(acc.max()), "dim": int(res.theta.shape[1])}
        rows = [{"run": i, "accuracy": float(a)} for i, a in enumerate(acc)]
    else:
        if args.n is None:
            raise DPTheoryError("the quadratic model needs --n")
        D, _ = quadratic_neighbours(args.n, args.dim, args.diameter, t=args.t)
        res = train_noisy_gd(QuadraticLoss(lam=args.lam, dim=args.dim), D.X, eta=args.eta, sigma=args.sigma, b=args.b,
                             K=args.K, scheme=args.scheme, runs=args.runs, rng=rng, workers=args.workers, progress=prog)
        summary = {**res.summary(), "model": "quadratic", "S_g": args.lam * args.diameter}
        rows = [{"run": i, **{f"theta_{j}": float(v) for j, v in enumerate(th)}} for i, th in enumerate(res.theta)]
    if args.save_iterates:
        np.save(args.save_iterates, res.theta)
        summary["iterates_file"] = args.save_iterates
    summary["seed"] = args.seed
    _emit(args, summary, rows)
    return 0


# ----------------------------------------------------------------------------- audit exact
def cmd_audit_exact(args: argparse.Namespace) -> int:
    from dptheory.papers.yeshokri22 import quadratic as Q

    base = {"alpha": args.alpha, "eta": args.eta, "lam": args.lam, "S_g": args.S_g, "sigma": args.sigma, "n": args.n,
            "b": args.b, "K": args.K[0]}
    schemes = tuple(s.strip() for s in args.schemes.split(","))
    bar = None
    if _progress(args):
        from tqdm import tqdm

        bar = tqdm(total=len(args.K), desc="exact divergences", file=sys.stderr, leave=False)
    try:
        rows = Q.tightness_table(base, args.K, schemes=schemes, dps=args.dps, progress=bar)
    finally:
        if bar is not None:
            bar.close()
    violations = [r for r in rows if not r["holds"]]
    if args.plot:
        Q.plot_tightness(rows, args.plot)
    _emit(args, {"setting": {k: str(v) for k, v in base.items() if k != "K"}, "K": args.K, "rows": rows,
                 "violations": violations, "unit": "nats", "plot": args.plot}, rows)
    return 3 if violations else 0


# ----------------------------------------------------------------------------- audit empirical
def cmd_audit_empirical(args: argparse.Namespace) -> int:
    from dptheory.audit import empirical as E
    from dptheory.papers.yeshokri22 import audits as A

    results = []
    rows = []
    for K in args.K:
        rng = np.random.default_rng([args.seed, K])
        if args.model == "logistic":
            from dptheory.train import load_dataset

            data = load_dataset(args.dataset, n=args.n or 500, rng=np.random.default_rng(args.seed))
            r = A.audit_logistic(data, eta=args.eta, lam=args.lam, sigma_mul=args.sigma_mul, S_g=args.S_g, L=args.L,
                                 b=args.b, K=K, runs=args.runs, rng=rng, delta=args.delta, gamma=args.gamma,
                                 workers=args.workers, progress=_progress(args))
        else:
            from dptheory.papers.yeshokri22.quadratic import QuadraticSetting

            st = QuadraticSetting(alpha=2, eta=args.eta, lam=args.lam, S_g=args.S_g, sigma=args.sigma,
                                  n=args.n or 10, b=args.b, K=K)
            r = A.audit_quadratic(st, args.scheme, runs=args.runs, rng=rng, delta=args.delta, gamma=args.gamma,
                                  j0=args.j0, diameter=float(args.S_g) / float(args.lam), workers=args.workers,
                                  progress=_progress(args))
        low = r["audit"].epsilon_lower
        gaps = E.summarize_gap(low, r["upper"])
        for g in gaps:
            rows.append({"K": K, **g, "exact_epsilon": r.get("exact_epsilon", "")})
        results.append({"K": K, "audit": r["audit"].to_dict(), "exact_epsilon": r.get("exact_epsilon"),
                        "upper": dict(r["upper"]), "gaps": gaps, "seconds": r["seconds"], "setting": r["setting"]})
    inconsistent = [g for res in results for g in res["gaps"] if not g["consistent"]]
    if args.plot:
        from dptheory.report.plotting import new_figure, save

        fig, (ax,) = new_figure(width=6.0)
        Ks = [res["K"] for res in results]
        ax.plot(Ks, [res["audit"]["epsilon_lower"] for res in results], "o-", label="audit lower bound")
        if args.model == "quadratic":
            ax.plot(Ks, [res["exact_epsilon"] for res in results], "k^-", label="exact epsilon(delta)")
        for key in sorted({k for res in results for k in res["upper"]}):
            ax.plot(Ks, [res["upper"].get(key, math.nan) for res in results], "s--", label=key.split(".")[-1])
        ax.set_xlabel("epochs K")
        ax.set_ylabel(f"epsilon at delta = {args.delta:g} (nats)")
        ax.set_title(f"{args.model}: audit (confidence {1 - args.gamma:g}) vs upper bounds")
        ax.legend(fontsize=7)
        save(fig, args.plot)
    _emit(args, {"model": args.model, "delta": args.delta, "confidence": 1 - args.gamma, "results": results,
                 "inconsistent": inconsistent, "unit": "nats", "plot": args.plot}, rows)
    return 3 if inconsistent else 0


# ----------------------------------------------------------------------------- audit assumptions
def cmd_audit_assumptions(args: argparse.Namespace) -> int:
    from dptheory.papers.yeshokri22.assumptions import measure_assumptions
    from dptheory.train import load_dataset

    rng = np.random.default_rng(args.seed)
    data = load_dataset(args.dataset, n=args.n, rng=rng)
    canary = None
    if args.canary:
        from dptheory.papers.yeshokri22.audits import pick_canary

        canary = (pick_canary(data.X, args.L)[0], 0)
    rep = measure_assumptions(data, eta=args.eta, lam=args.lam, sigma_mul=args.sigma_mul, S_g=args.S_g, L=args.L,
                              b=args.b, K=args.K, rng=rng, runs=args.runs, points=args.points, canary=canary,
                              coupled_runs=args.coupled_runs)
    d = rep.to_dict()
    _emit(args, d, [{k: v for k, v in m.items() if k != "counterexample"} for m in d["measurements"]])
    return 0


# ----------------------------------------------------------------------------- parsers
def add_subcommands(sub: argparse._SubParsersAction) -> None:
    """Add ``train`` and ``audit`` (with ``exact``, ``empirical``, ``assumptions``) to ``dptheory yeshokri22``."""
    s = sub.add_parser("train", help="train many models with Algorithm 1 (quadratic) or 2 (logistic regression)")
    s.add_argument("--model", choices=("logistic", "quadratic"), default="logistic")
    s.add_argument("--dataset", default="digits", help="digits | breast-cancer | synthetic (logistic model)")
    s.add_argument("--n", type=int, default=None, help="records (a random subset of the dataset)")
    s.add_argument("--scheme", default="shuffle", help="shuffle | without_replacement | fixed")
    s.add_argument("--eta", type=float, default=0.5)
    s.add_argument("--lam", type=float, default=0.05)
    s.add_argument("--sigma", type=float, default=1.0, help="noise scale of Algorithm 1 (quadratic)")
    s.add_argument("--sigma-mul", dest="sigma_mul", type=float, default=1.0, help="noise multiplier (Algorithm 2)")
    s.add_argument("--S-g", dest="S_g", type=float, default=2.0, help="sensitivity (Algorithm 2 clips to S_g/2)")
    s.add_argument("--L", type=float, default=1.0, help="feature clipping norm (Algorithm 2)")
    s.add_argument("--b", type=int, default=50)
    s.add_argument("--K", type=int, default=20)
    s.add_argument("--runs", type=int, default=100)
    s.add_argument("--dim", type=int, default=1, help="parameter dimension (quadratic)")
    s.add_argument("--diameter", type=float, default=1.0, help="data domain diameter (quadratic; S_g = lam * it)")
    s.add_argument("--t", type=float, default=0.0, help="position of the other records on the segment (quadratic)")
    s.add_argument("--workers", type=int, default=1)
    s.add_argument("--save-iterates", dest="save_iterates", metavar="PATH.npy", help="save the last iterates")
    _common(s)
    s.set_defaults(func=cmd_train)

    a = sub.add_parser("audit", help="exact divergences, empirical lower bounds, measured assumptions")
    asub = a.add_subparsers(dest="audit_command", required=True)

    e = asub.add_parser("exact", help="bounds vs the exact Renyi divergence of the trained quadratic model")
    e.add_argument("--alpha", default="10")
    e.add_argument("--eta", default="0.02")
    e.add_argument("--lam", default="1")
    e.add_argument("--S-g", dest="S_g", default="4")
    e.add_argument("--sigma", default="2")
    e.add_argument("--n", type=int, default=50)
    e.add_argument("--b", type=int, default=2)
    e.add_argument("--K", type=_ints, default=[1, 2, 5, 10, 20, 50, 100], help="comma-separated epochs")
    e.add_argument("--schemes", default="fixed,shuffle,without_replacement")
    e.add_argument("--dps", type=int, default=20)
    e.add_argument("--plot", metavar="PATH", help="tightness (bound / exact) against K")
    _common(e)
    e.set_defaults(func=cmd_audit_exact)

    m = asub.add_parser("empirical", help="black-box audit: epsilon lower bound vs converted upper bounds")
    m.add_argument("--model", choices=("logistic", "quadratic"), default="logistic")
    m.add_argument("--dataset", default="digits")
    m.add_argument("--scheme", default="shuffle", help="quadratic: fixed | shuffle | without_replacement")
    m.add_argument("--n", type=int, default=None)
    m.add_argument("--eta", type=float, default=0.5)
    m.add_argument("--lam", type=float, default=0.05)
    m.add_argument("--sigma", type=float, default=0.1, help="quadratic noise scale")
    m.add_argument("--sigma-mul", dest="sigma_mul", type=float, default=0.5)
    m.add_argument("--S-g", dest="S_g", type=float, default=2.0)
    m.add_argument("--L", type=float, default=1.0)
    m.add_argument("--b", type=int, default=50)
    m.add_argument("--K", type=_ints, default=[20])
    m.add_argument("--j0", type=int, default=0, help="fixed order: batch of the differing record")
    m.add_argument("--runs", type=int, default=10_000, help="models in total (half on D, half on D')")
    m.add_argument("--delta", type=float, default=1e-5)
    m.add_argument("--gamma", type=float, default=0.05, help="the lower bound fails with probability <= gamma")
    m.add_argument("--workers", type=int, default=2)
    m.add_argument("--plot", metavar="PATH", help="audit lower bound vs upper bounds against epochs")
    _common(m)
    m.set_defaults(func=cmd_audit_empirical)

    s2 = asub.add_parser("assumptions", help="measure Props 5.1/5.2 along trajectories of Algorithm 2")
    s2.add_argument("--dataset", default="digits")
    s2.add_argument("--n", type=int, default=500)
    s2.add_argument("--eta", type=float, default=0.5)
    s2.add_argument("--lam", type=float, default=0.01)
    s2.add_argument("--sigma-mul", dest="sigma_mul", type=float, default=1.0)
    s2.add_argument("--S-g", dest="S_g", type=float, default=1.0)
    s2.add_argument("--L", type=float, default=1.0)
    s2.add_argument("--b", type=int, default=10)
    s2.add_argument("--K", type=int, default=2)
    s2.add_argument("--runs", type=int, default=2)
    s2.add_argument("--points", type=int, default=16)
    s2.add_argument("--coupled-runs", dest="coupled_runs", type=int, default=8)
    s2.add_argument("--canary", action="store_true", help="include a canary among the sensitivity candidates")
    _common(s2)
    s2.set_defaults(func=cmd_audit_assumptions)


GROUP_HELP = "Ye & Shokri 2022: train the algorithms, audit the bounds against trained models"
