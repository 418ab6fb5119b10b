"""``dptheory yeshokri22 train|audit``: trained models of Ye & Shokri 2022 (Algorithms 1 and 2).

Found by :mod:`dptheory.cli`, which passes this paper's sub-parser collection to ``add_subcommands``.
Every handler takes the parsed ``args`` and returns an exit code. Results are printed as tables for people;
``--json`` prints the JSON instead (``--json PATH`` writes it to a file), ``--csv PATH`` writes the table and
``--plot PATH`` a figure; all files of one command are written together or not at all. tqdm progress bars go
to stderr (``--progress`` / ``--no-progress``; default: when stderr is a terminal). See
``docs/trained_models.md``.

The paper's parameters are written ``name=value`` in its notation (``n=50 sigma_mul=1 S_g=2``, as for
``dptheory eval``; the old ``--n 50`` is refused with the new spelling); the other settings are options.
Defaults are the paper's Figure setting where it applies (eta = 0.02; for the quadratic model also
lambda = 1, S_g = 4, sigma = 2, n = 50, b = 2), shared by ``train`` and ``audit``::

    dptheory yeshokri22 train n=500 K=20 b=50 --model logistic --dataset digits --runs 1000
    dptheory yeshokri22 train n=50 b=2 K=10 --model quadratic --scheme shuffle --runs 10000
    dptheory yeshokri22 audit exact K=1,5,20,100 --plot t.png
    dptheory yeshokri22 audit empirical K=1,5,20 --model logistic --runs 10000 --plot audit.png
    dptheory yeshokri22 audit assumptions n=500 K=5

Ye & Shokri's composition baseline (:class:`dptheory.privacy.baselines.Baseline`, used by ``dptheory compare
yeshokri22.thm4_2 ... --delta D``) is registered with the theorems (``yeshokri22.composition``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from dptheory.cli.output import fmt, output_files, print_written, table, write_csv, written
from dptheory.cli.params import PaperParam, add_cluster_options, add_paper_params, exact, int_list, integer, real
from dptheory.core.errors import DPTheoryError

__all__ = ["add_subcommands", "cmd_audit_assumptions", "cmd_audit_empirical", "cmd_audit_exact", "cmd_train"]

#: Ye & Shokri's Figure setting (Figures 1 and 2): the defaults shared by train and audit
FIG_ETA = 0.02


# ----------------------------------------------------------------------------- output
def _progress(args: argparse.Namespace) -> bool:
    p = getattr(args, "progress", None)
    return sys.stderr.isatty() if p is None else bool(p)


def _default(o: Any) -> Any:
    import mpmath
    import numpy as np

    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, (np.floating, np.integer)):
        return o.item()
    if isinstance(o, mpmath.mpf):
        return mpmath.nstr(o, 17)
    if hasattr(o, "to_dict"):
        return o.to_dict()
    return str(o)


def _write(args: argparse.Namespace, payload: Any, rows: Sequence[Mapping[str, Any]] | None, *,
           plot: Any = None, arrays: Mapping[str, Any] | None = None) -> bool:
    """Write every file of the command together (plot, ``--json PATH``, ``--csv``, arrays); returns True when
    the JSON went to stdout (``--json`` without a path)."""
    text = json.dumps(payload, indent=1, default=_default)
    to_stdout = getattr(args, "json", None) == "-"
    files = bool(plot) or (args.json not in (None, "-")) or bool(getattr(args, "csv", None) and rows) or bool(arrays)
    if files:
        with output_files() as group:
            if plot is not None:
                plot(str(group.path(args.plot)))
            if args.json not in (None, "-"):
                with group.open(args.json) as fh:
                    fh.write(text + "\n")
            if getattr(args, "csv", None) and rows:
                write_csv(group, args.csv, rows)
            for path, arr in (arrays or {}).items():
                import numpy as np

                with group.open(path, "wb") as fh:
                    np.save(fh, arr)
    if to_stdout:
        print(text)
    if files:
        csv = getattr(args, "csv", None) if rows else None
        json_file = args.json if args.json not in (None, "-") else None
        plot_file = getattr(args, "plot", None) if plot is not None else None
        print_written(written(csv=csv, rows=len(rows or []), files=[plot_file, json_file, *(arrays or {})]),
                      json_on_stdout=to_stdout)
    return to_stdout


def _common(s: argparse.ArgumentParser, *, plot: bool = False) -> None:
    s.add_argument("--seed", type=integer(0, 2**63 - 1), default=0, help="seed of numpy.random.default_rng (all "
                   "randomness)")
    s.add_argument("--json", nargs="?", const="-", metavar="PATH",
                   help="print the result as JSON instead of a table; with PATH, write the JSON there")
    s.add_argument("--csv", metavar="PATH", help="also write the table as CSV")
    if plot:
        s.add_argument("--plot", metavar="PATH", help="also write a plot (.png, .pdf, .svg)")
    s.add_argument("--progress", dest="progress", action="store_true", default=None,
                   help="progress bars on stderr (default: when stderr is a terminal)")
    s.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bars")


def _check_paths(args: argparse.Namespace) -> None:
    """Output paths are checked before any training starts (one-line errors, exit 2)."""
    from dptheory.cli.params import UsageError, out_file, plot_path

    checks = [("--csv", getattr(args, "csv", None), out_file()),
              ("--plot", getattr(args, "plot", None), plot_path),
              ("--save-iterates", getattr(args, "save_iterates", None), out_file())]
    if getattr(args, "json", None) not in (None, "-"):
        checks.append(("--json", args.json, out_file()))
    for opt, val, check in checks:
        if val is None:
            continue
        try:
            check(val)
        except argparse.ArgumentTypeError as exc:
            raise UsageError(f"argument {opt}: {exc}") from None


# ----------------------------------------------------------------------------- train
def cmd_train(args: argparse.Namespace) -> int:
    import numpy as np

    from dptheory.train import (
        QuadraticLoss,
        accuracy,
        load_dataset,
        quadratic_neighbours,
        train_dp_sgd,
        train_noisy_gd,
    )

    _check_paths(args)
    rng = np.random.default_rng(args.seed)
    prog = _progress(args)
    rows: list[dict[str, Any]] = []
    if args.model == "logistic":
        data = load_dataset(args.dataset, n=args.n, rng=rng)
        dim = (data.X.shape[1] + 1) * data.n_classes
        res = train_dp_sgd(data, eta=args.eta, lam=args.lam, sigma_mul=args.sigma_mul, S_g=args.S_g, L=args.L,
                           b=args.b, K=args.K, runs=args.runs, rng=rng, scheme=args.scheme, workers=args.threads,
                           progress=prog, extra_per_run=_train_output_bytes(args, dim, {"accuracy": 0.5}))
        acc = accuracy(res.theta, data, args.L)
        summary = {**{k: v for k, v in res.summary().items() if k not in ("theta_mean", "theta_std")},
                   "accuracy_mean": float(acc.mean()), "accuracy_min": float(acc.min()),
                   "accuracy_max": float(acc.max()), "dim": int(res.theta.shape[1])}
        if args.csv:  # one row per run only when they are written
            rows = [{"run": i, "accuracy": float(a)} for i, a in enumerate(acc)]
    else:
        if args.n is None:
            raise DPTheoryError("the quadratic model needs n (write n=50)")
        D, _ = quadratic_neighbours(args.n, args.dim, args.diameter, t=args.t)
        loss: Any = QuadraticLoss(lam=args.lam, dim=args.dim)
        sample = {f"theta_{j}": 0.5 for j in range(args.dim)}
        res = train_noisy_gd(loss, D.X, eta=args.eta, sigma=args.sigma, b=args.b, K=args.K, scheme=args.scheme,
                             runs=args.runs, rng=rng, workers=args.threads, progress=prog,
                             extra_per_run=_train_output_bytes(args, args.dim, sample))
        summary = {**res.summary(), "model": "quadratic", "S_g": args.lam * args.diameter}
        if args.csv:
            rows = [{"run": i, **{f"theta_{j}": float(v) for j, v in enumerate(th)}} for i, th in enumerate(res.theta)]
    arrays = {}
    if args.save_iterates:
        arrays[args.save_iterates] = res.theta
        summary["iterates_file"] = args.save_iterates
    summary["seed"] = args.seed
    if not _write(args, summary, rows, arrays=arrays):
        print(f"trained {summary.get('runs')} models ({args.model}, {summary.get('scheme', args.scheme)}), "
              f"seed {args.seed}:")
        table([{"quantity": k, "value": _cell(v)} for k, v in summary.items() if not isinstance(v, (list, dict))],
              ["quantity", "value"], indent="  ")
        for k, v in summary.items():
            if isinstance(v, list) and v and len(v) <= 8:
                print(f"  {k}: {', '.join(fmt(float(x), 6) for x in v)}")
    return 0


def _train_output_bytes(args: argparse.Namespace, dim: int, sample: dict[str, Any]) -> dict[str, int]:
    """Bytes per run that ``train`` allocates from the trained models (for the trainer's memory check): the
    summary's deviations from the mean ``(runs, dim)``, the accuracy ``(runs,)`` and, with ``--csv``, one row
    per run (the size of a row like ``sample``)."""
    from dptheory.core.memory import row_bytes

    out = {"summary": 8 * dim, "accuracy": 8 if args.model == "logistic" else 0}
    if args.csv:
        out["CSV rows"] = row_bytes({"run": args.runs, **sample})
    return out


def _cell(v: Any) -> Any:
    if isinstance(v, float):
        return fmt(v, 6)
    return v


# ----------------------------------------------------------------------------- audit exact
def cmd_audit_exact(args: argparse.Namespace) -> int:
    from dptheory.papers.yeshokri22 import quadratic as Q

    _check_paths(args)
    base = {"alpha": args.alpha, "eta": args.eta, "lam": args.lam, "S_g": args.S_g, "sigma": args.sigma, "n": args.n,
            "b": args.b, "K": args.K[0]}
    schemes = tuple(s.strip() for s in args.schemes.split(","))
    bad = [s for s in schemes if s not in ("fixed", "shuffle", "without_replacement")]
    if bad or not all(schemes):
        from dptheory.cli.params import UsageError

        raise UsageError(f"argument --schemes: expected a comma-separated subset of fixed, shuffle, "
                         f"without_replacement; got {args.schemes!r}")
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
    plot = (lambda path: Q.plot_tightness(rows, path)) if args.plot else None
    payload = {"setting": {k: str(v) for k, v in base.items() if k != "K"}, "K": args.K, "rows": rows,
               "violations": violations, "unit": "nats", "plot": args.plot}
    if not _write(args, payload, rows, plot=plot):
        setting = ", ".join(f"{k}={v}" for k, v in payload["setting"].items())
        print(f"upper bounds against the exact Renyi divergence of the trained quadratic model at {setting} [nats]:")
        table([{**r, "holds": "yes" if r["holds"] else "NO (violation)"} for r in rows],
              ["K", "scheme", "j0", "key", "bound", "exact", "ratio", "holds"],
              headers={"ratio": "bound/exact", "holds": "bound >= exact"}, indent="  ", digits=6)
        print(f"  {len(violations)} violation(s)" + (" (a finding: exit 3)" if violations else ""))
    return 3 if violations else 0


# ----------------------------------------------------------------------------- audit empirical
def cmd_audit_empirical(args: argparse.Namespace) -> int:
    import math

    import numpy as np

    from dptheory.audit import empirical as E
    from dptheory.cli.params import cluster_options
    from dptheory.papers.yeshokri22 import audits as A

    _check_paths(args)
    workers, scheduler = cluster_options(args)
    tasks = E.TaskOptions(workers=workers, scheduler=scheduler, threads=args.threads, progress=_progress(args))
    results = []
    rows = []
    for K in args.K:
        rng = np.random.default_rng([args.seed, K])
        if args.model == "logistic":
            from dptheory.train import load_dataset

            data = load_dataset(args.dataset, n=args.n or 500, rng=np.random.default_rng(args.seed))
            r = A.audit_logistic(data, _algorithm2_setting(args, K), runs=args.runs, rng=rng, delta=args.delta,
                                 gamma=args.gamma, tasks=tasks)
        else:
            from dptheory.papers.yeshokri22.quadratic import QuadraticSetting

            st = QuadraticSetting(alpha=2, eta=args.eta, lam=args.lam, S_g=args.S_g, sigma=args.sigma,
                                  n=args.n or 10, b=args.b, K=K)
            r = A.audit_quadratic(st, args.scheme, runs=args.runs, rng=rng, delta=args.delta, gamma=args.gamma,
                                  j0=args.j0, diameter=float(args.S_g) / float(args.lam), tasks=tasks)
        low = r["audit"].epsilon_lower
        gaps = E.summarize_gap(low, r["upper"])
        for g in gaps:
            rows.append({"K": K, **g, "exact_epsilon": r.get("exact_epsilon", "")})
        results.append({"K": K, "audit": r["audit"].to_dict(), "exact_epsilon": r.get("exact_epsilon"),
                        "upper": dict(r["upper"]), "gaps": gaps, "seconds": r["seconds"], "setting": r["setting"]})
    inconsistent = [g for res in results for g in res["gaps"] if not g["consistent"]]

    def plot(path: str) -> None:
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
        save(fig, path)

    payload = {"model": args.model, "delta": args.delta, "confidence": 1 - args.gamma, "results": results,
               "inconsistent": inconsistent, "unit": "nats", "plot": args.plot}
    if not _write(args, payload, rows, plot=plot if args.plot else None):
        print(f"{args.model}: audit lower bound on epsilon at delta = {args.delta:g} (confidence {1 - args.gamma:g}) "
              "against every valid upper bound [nats]:")
        for res in results:
            ex = f", exact epsilon(delta) {fmt(res['exact_epsilon'], 6)}" if res["exact_epsilon"] is not None else ""
            print(f"  K = {res['K']}: audit lower bound {fmt(res['audit']['epsilon_lower'], 6)}{ex} "
                  f"({res['seconds']:.1f} s)")
        table(rows, [c for c in rows[0] if c not in ("exact_epsilon",)] if rows else None, indent="    ", digits=6)
        finding = " (a finding: exit 3)" if inconsistent else ""
        print(f"  {len(inconsistent)} upper bound(s) below the audit{finding}")
    return 3 if inconsistent else 0


# ----------------------------------------------------------------------------- audit assumptions
def _algorithm2_setting(args: argparse.Namespace, K: int) -> Any:
    """Algorithm 2's parameters (:class:`~dptheory.train.logistic.Algorithm2Setting`) from the command line,
    at ``K`` epochs."""
    from dataclasses import fields

    from dptheory.train.logistic import Algorithm2Setting

    names = [f.name for f in fields(Algorithm2Setting)]
    return Algorithm2Setting(**{x: K if x == "K" else getattr(args, x) for x in names})


def cmd_audit_assumptions(args: argparse.Namespace) -> int:
    import numpy as np

    from dptheory.papers.yeshokri22.assumptions import measure_assumptions
    from dptheory.train import load_dataset

    _check_paths(args)
    rng = np.random.default_rng(args.seed)
    data = load_dataset(args.dataset, n=args.n, rng=rng)
    canary = None
    if args.canary:
        from dptheory.papers.yeshokri22.audits import pick_canary

        canary = (pick_canary(data.X, args.L)[0], 0)
    rep = measure_assumptions(data, _algorithm2_setting(args, args.K), rng=rng, runs=args.runs, points=args.points,
                              canary=canary, coupled_runs=args.coupled_runs)
    d = rep.to_dict()
    rows = [{k: v for k, v in m.items() if k != "counterexample"} for m in d["measurements"]]
    if not _write(args, d, rows):
        print("assumptions of Cor 5.3 (Props 5.1, 5.2) measured along trajectories of Algorithm 2:")
        flat = [{k: (v if not isinstance(v, (list, dict)) else json.dumps(v, default=_default)) for k, v in r.items()}
                for r in rows]
        table(flat, indent="  ", digits=6)
        for k, v in d.items():
            if k != "measurements" and not isinstance(v, (list, dict)):
                print(f"  {k}: {v}")
    return 0


# ----------------------------------------------------------------------------- parsers
#: the domains of the commands' parameters and options: a positive real, a count, a list of epochs
_POSITIVE = real(0, None, lo_open=True)
_COUNT = integer(1, 10**9)
_EPOCHS = int_list(1, 10**6, "epochs")
#: the step size at the paper's Figure setting, the default of every command that trains (train, audit empirical,
#: audit assumptions)
_FIG_STEP = PaperParam("eta", _POSITIVE, FIG_ETA, "step size (the paper's Figure setting)")


def _records(default: int | None, note: str = "") -> PaperParam:
    """n, the number of records (``note``: how the command's models read it)."""
    return PaperParam("n", _COUNT, default, "records" + note)


def _batch(default: int) -> PaperParam:
    """b, the mini-batch size."""
    return PaperParam("b", _COUNT, default, "mini-batch size")


def _epochs(default: int | list[int]) -> PaperParam:
    """K, the epochs: one count (``K=20``) or, with a list default, the comma-separated counts a command runs one
    after the other (``K=1,5,20``)."""
    if isinstance(default, list):
        return PaperParam("K", _EPOCHS, default, "comma-separated epochs")
    return PaperParam("K", _COUNT, default, "epochs")


def _algorithm_params(n: PaperParam, *, lam: float, sigma_mul: float, S_g: float, b: int, K: int | list[int],
                      logistic: str = "", quadratic: tuple[float, str] | None = None,
                      S_g_help: str = "sensitivity S_g") -> list[PaperParam]:
    """The parameters of Algorithm 2 (logistic regression) and, with ``quadratic``, of Algorithm 1 (the quadratic
    loss), in the paper's notation and this order: n, eta, lam, sigma (Algorithm 1 only), sigma_mul, S_g, L, b, K.
    A command gives what differs: ``n``, the defaults, ``logistic`` the note after Algorithm 2's own parameters
    (sigma_mul, L), ``quadratic`` sigma's default and note (the command also trains the quadratic model: then lam is
    its strong convexity too), ``S_g_help`` what the sensitivity is to the command."""
    lam_help = "L2 regularisation / strong convexity lambda" if quadratic is not None else "L2 regularisation lambda"
    params = [n, _FIG_STEP, PaperParam("lam", _POSITIVE, lam, lam_help)]
    if quadratic is not None:
        sigma, note = quadratic
        params.append(PaperParam("sigma", _POSITIVE, sigma, "noise scale" + note))
    return [*params,
            PaperParam("sigma_mul", _POSITIVE, sigma_mul, "noise multiplier" + logistic),
            PaperParam("S_g", _POSITIVE, S_g, S_g_help),
            PaperParam("L", _POSITIVE, 1.0, "feature clipping norm" + logistic),
            _batch(b), _epochs(K)]


def _train_params() -> list[PaperParam]:
    """``train``'s parameters (Algorithms 1 and 2), in the paper's notation."""
    return _algorithm_params(_records(None, " (logistic: a random subset, default all; quadratic: required)"),
                             lam=0.05, sigma_mul=1.0, S_g=2.0, b=50, K=20, logistic=" (Algorithm 2)",
                             quadratic=(1.0, " of Algorithm 1 (quadratic)"),
                             S_g_help="sensitivity (Algorithm 2 clips to S_g/2)")


def _exact_params() -> list[PaperParam]:
    """``audit exact``'s parameters: the Figure setting of the quadratic model, exact."""
    return [
        PaperParam("alpha", exact(1, None), "10", "Renyi order (> 1; exact)"),
        PaperParam("eta", exact(0, None), str(FIG_ETA), "step size (exact)"),
        PaperParam("lam", exact(0, None), "1", "strong convexity lambda (= beta for the quadratic loss; exact)"),
        PaperParam("S_g", exact(0, None), "4", "sensitivity S_g (exact)"),
        PaperParam("sigma", exact(0, None), "2", "noise scale of Algorithm 1 (exact)"),
        _records(50),
        _batch(2),
        _epochs([1, 2, 5, 10, 20, 50, 100]),
    ]


def _empirical_params() -> list[PaperParam]:
    """``audit empirical``'s parameters (logistic: Algorithm 2; quadratic: Algorithm 1)."""
    return [*_algorithm_params(_records(None, " (default: 500 logistic, 10 quadratic)"), lam=0.05, sigma_mul=0.5,
                               S_g=2.0, b=50, K=[20], logistic=" (logistic)", quadratic=(0.1, " (quadratic)")),
            PaperParam("j0", integer(0, 10**9), 0, "fixed order: batch of the differing record")]


def _assumption_params() -> list[PaperParam]:
    """``audit assumptions``'s parameters (Algorithm 2)."""
    return _algorithm_params(_records(500), lam=0.01, sigma_mul=1.0, S_g=1.0, b=10, K=2)


#: the parameters (name=value) of every command of this paper, for the help and the tests
PARAMS = {"train": _train_params, "audit exact": _exact_params, "audit empirical": _empirical_params,
          "audit assumptions": _assumption_params}
DATASETS = ("digits", "breast-cancer", "synthetic")


def add_subcommands(sub: argparse._SubParsersAction) -> None:
    """Add ``train`` and ``audit`` (with ``exact``, ``empirical``, ``assumptions``) to ``dptheory yeshokri22``."""
    prob = real(0, 1, lo_open=True, hi_open=True)
    count = _COUNT

    s = sub.add_parser("train", help="train many models with Algorithm 1 (quadratic) or 2 (logistic regression)",
                       description="Train many independent models at once (vectorised over runs) and summarise the "
                       "last iterates (logistic: test accuracy; quadratic: the iterates).")
    add_paper_params(s, _train_params())
    s.add_argument("--model", choices=("logistic", "quadratic"), default="logistic",
                   help="logistic regression (Algorithm 2) or the quadratic loss (Algorithm 1)")
    s.add_argument("--dataset", choices=DATASETS, default="digits",
                   help="dataset of the logistic model (bundled with scikit-learn; nothing is downloaded)")
    s.add_argument("--scheme", choices=("shuffle", "without_replacement", "fixed"), default="shuffle",
                   help="batch scheme")
    s.add_argument("--runs", type=count, default=100, help="independent models trained")
    s.add_argument("--dim", type=count, default=1, help="parameter dimension (quadratic)")
    s.add_argument("--diameter", type=_POSITIVE, default=1.0,
                   help="data domain diameter (quadratic; S_g = lam * it)")
    s.add_argument("--t", type=real(0, 1), default=0.0, help="position of the other records on the segment, in [0, 1] "
                   "(quadratic)")
    s.add_argument("--threads", type=integer(1, 256), default=1, help="threads over chunks of runs (one process; the "
                   "same numbers for any count)")
    s.add_argument("--save-iterates", dest="save_iterates", metavar="PATH.npy", help="also save the last iterates")
    _common(s)
    s.set_defaults(func=cmd_train)

    a = sub.add_parser("audit", help="exact divergences, empirical lower bounds, measured assumptions")
    asub = a.add_subparsers(dest="audit_command", required=True, metavar="AUDIT", parser_class=type(a))

    e = asub.add_parser("exact", help="bounds vs the exact Renyi divergence of the trained quadratic model",
                        description="Every valid upper bound of the paper against the exact Renyi divergence of "
                        "Algorithm 1 on the quadratic loss, per K and batch scheme (defaults: the Figure setting).")
    add_paper_params(e, _exact_params())
    e.add_argument("--schemes", default="fixed,shuffle,without_replacement",
                   help="comma-separated batch schemes (fixed, shuffle, without_replacement)")
    e.add_argument("--dps", type=integer(15, 200), default=20, help="digits of the exact divergences, 15 to 200")
    _common(e, plot=True)
    e.set_defaults(func=cmd_audit_exact)

    m = asub.add_parser("empirical", help="black-box audit: epsilon lower bound vs converted upper bounds",
                        description="Train models on two neighbouring datasets, bound epsilon from below with "
                        "Clopper-Pearson confidence, and compare with every valid upper bound converted to "
                        "(epsilon, delta).")
    add_paper_params(m, _empirical_params())
    m.add_argument("--model", choices=("logistic", "quadratic"), default="logistic", help="model")
    m.add_argument("--dataset", choices=DATASETS, default="digits", help="dataset of the logistic model")
    m.add_argument("--scheme", choices=("fixed", "shuffle", "without_replacement"), default="shuffle",
                   help="batch scheme (quadratic)")
    m.add_argument("--runs", type=integer(4, 10**9), default=10_000, help="models in total (half on D, half on D')")
    m.add_argument("--delta", type=prob, default=1e-5, help="delta of the (epsilon, delta) compared")
    m.add_argument("--gamma", type=prob, default=0.05, help="the lower bound fails with probability <= gamma")
    m.add_argument("--threads", type=integer(1, 256), default=2,
                   help="in process: threads training the models (the numbers do not depend on it)")
    add_cluster_options(m, "trainings")
    _common(m, plot=True)
    m.set_defaults(func=cmd_audit_empirical)

    s2 = asub.add_parser("assumptions", help="measure Props 5.1/5.2 along trajectories of Algorithm 2",
                         description="Measure the assumptions of Cor 5.3 (sensitivity, Jacobian spectrum, "
                         "contraction) along trajectories of Algorithm 2 on a bundled dataset.")
    add_paper_params(s2, _assumption_params())
    s2.add_argument("--dataset", choices=DATASETS, default="digits", help="dataset")
    s2.add_argument("--runs", type=count, default=2, help="trajectories")
    s2.add_argument("--points", type=count, default=16, help="points measured per trajectory")
    s2.add_argument("--coupled-runs", dest="coupled_runs", type=count, default=8, help="coupled pairs (contraction)")
    s2.add_argument("--canary", action="store_true", help="include a canary among the sensitivity candidates")
    _common(s2)
    s2.set_defaults(func=cmd_audit_assumptions)


GROUP_HELP = "Ye & Shokri 2022: train the algorithms, audit the bounds against trained models"
