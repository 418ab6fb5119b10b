"""``dptheory maxinfo bounds`` and ``dptheory maxinfo audit`` (max-information of DP-SGD).

Found by :mod:`dptheory.cli`, which passes this paper's sub-parser collection to ``add_subcommands``;
``dptheory pacbayes bound`` lives in :mod:`dptheory.papers.pacbayes.cli` and reuses the helpers here.
Every command prints a table or text for people, or ``--json``; values are in nats unless ``--unit bits``;
ASYMPTOTIC bounds are labelled and never used where a guarantee is needed (``pacbayes --maxinfo-from lz26``
is refused). ``--plot`` files are written whole (:func:`dptheory.cli.output.output_files`). ``maxinfo audit``
exits 3 when an upper bound is below a certified lower bound (a finding). numpy and the paper's modules are
imported inside the handlers, so building the command line stays fast.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from typing import Any

from dptheory.cli.output import output_files, print_written, table, written
from dptheory.cli.params import PaperParam, add_json, add_paper_params, integer, plot_path, real
from dptheory.core.errors import DPTheoryError, RegimeNotSupported

__all__ = ["add_audit_maxinfo", "add_subcommands", "cmd_audit_maxinfo", "cmd_maxinfo"]

LN2 = math.log(2.0)


def _floats(spec: str) -> list[float]:
    """``5``, ``2,5,10`` or ``lo..hi[:points]`` (log-spaced when hi/lo > 10); every value finite and > 0."""
    import numpy as np

    from dptheory.cli.params import UsageError, exact_number

    spec = spec.strip()
    accepted = "a positive number, a comma-separated list of them, or lo..hi[:points] with 0 < lo < hi, 2 <= points"
    try:
        if ".." in spec:
            body, _, pts = spec.partition(":")
            lo_s, hi_s = body.split("..", 1)
            lo, hi = float(exact_number(lo_s)), float(exact_number(hi_s))
            if not pts.strip().isdigit() and pts:
                raise ValueError(f"points {pts!r} is not an integer")
            k = int(pts or 20)
            if not (0 < lo < hi) or not math.isfinite(hi) or not 2 <= k <= 10_000:
                raise ValueError("the ends or the number of points are out of range")
            xs = np.geomspace(lo, hi, k) if hi / lo > 10 else np.linspace(lo, hi, k)
            return [float(x) for x in xs]
        items = [x.strip() for x in spec.split(",")]
        if any(not x for x in items):
            raise ValueError("an empty item")
        vals = [float(exact_number(x)) for x in items]
        if any(not (v > 0 and math.isfinite(v)) for v in vals):
            raise ValueError("every value must be finite and > 0")
        return vals
    except (ValueError, OverflowError) as exc:
        raise UsageError(f"expected {accepted}; got {spec!r} ({exc})") from None


def _spec(text: str) -> str:
    """argparse type: a value specification :func:`_floats` accepts (checked before any work)."""
    from dptheory.cli.params import UsageError

    try:
        _floats(text)
    except UsageError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


_spec.__name__ = "values"


def _theorem_values(n: int, m: int, E: int, zeta: float, sigma: float, beta: float, C: float, C_beta: float,
                    which: Sequence[str], theta_independent: bool) -> tuple[list[dict[str, Any]], list[str]]:
    from dptheory.papers.lz26 import theorems as L
    from dptheory.papers.maxinfo import theorems as M

    rows: list[dict[str, Any]] = []
    notes: list[str] = []
    ours = {"n": n, "m": m, "E": E, "zeta": repr(zeta), "sigma": repr(sigma), "beta": repr(beta)}
    for name in which:
        if name == "thmA":
            rows.append(_row(M.THM_A, ours))
        elif name == "thmB":
            if E >= 2 and not theta_independent:
                notes.append("maxinfo.thmB_derived skipped: for E >= 2 it needs theta-independent clipped gradients "
                             "(pass --theta-independent if that holds); otherwise only Theorem A is established")
                continue
            rows.append(_row(M.THM_B, ours))
        elif name == "lz26":
            rows.append(_row(L.THM1, {"n": n, "E": E, "zeta": repr(zeta), "sigma": repr(sigma), "beta": repr(beta),
                                      "C": repr(C)}))
        elif name == "route":
            try:
                rows.append(_row(M.ROUTE, {"n": n, "E": E, "zeta": repr(zeta), "sigma": repr(sigma),
                                           "beta": repr(beta), "C": repr(C), "C_beta": repr(C_beta)}))
            except RegimeNotSupported as exc:
                notes.append(str(exc))
        else:
            raise DPTheoryError(f"unknown bound {name!r}; use thmA, thmB, lz26, route")
    return rows, notes


def _row(thm: Any, params: dict[str, Any]) -> dict[str, Any]:
    v = thm.evaluate(params, dps=20)
    return {"key": thm.key, "value_nats": float(v.value), "direction": str(v.direction), "title": thm.title}


# ----------------------------------------------------------------------------- maxinfo
def cmd_maxinfo(args: argparse.Namespace) -> int:
    which = ["thmA", "thmB", "lz26", "route"] if args.bound == "all" else args.bound.split(",")
    rows, notes = _theorem_values(args.n, args.m, args.E, args.zeta, args.sigma, args.beta, args.C, args.C_beta,
                                  which, args.theta_independent)
    scale = 1.0 / LN2 if args.unit == "bits" else 1.0
    for r in rows:
        r["value"] = r["value_nats"] * scale
        r["unit"] = args.unit
        r["per_example"] = r["value"] / args.n
    plot_info = None
    if args.plot:
        with output_files() as group:
            plot_info = _plot_maxinfo(args, which, scale, str(group.path(args.plot)))
    if args.json:
        print(json.dumps({"params": {k: getattr(args, k) for k in ("n", "m", "E", "zeta", "sigma", "beta", "C",
                                                                    "C_beta")},
                          "unit": args.unit, "bounds": rows, "notes": notes, "plot": plot_info}, indent=1))
        print_written(written(files=[args.plot]), json_on_stdout=True)
        return 0
    print(f"I^beta_inf(S; DP-SGD-stream(S)) at n={args.n}, m={args.m}, E={args.E}, zeta={args.zeta}, "
          f"sigma={args.sigma}, beta={args.beta} [{args.unit}]")
    shown = [{**r, "note": f"ASYMPTOTIC, C={args.C:g}: not a guarantee" if r["direction"] == "asymptotic" else ""}
             for r in rows]
    table(shown, ["key", "value", "direction", "per_example", "note"],
          headers={"value": f"bound ({args.unit})", "per_example": "per example"}, indent="  ", digits=6)
    for note in notes:
        print(f"  note: {note}")
    if plot_info:
        print(f"  wrote {plot_info['path']}")
    return 0


def _plot_maxinfo(args: argparse.Namespace, which: Sequence[str], scale: float, path: str) -> dict[str, Any]:
    import numpy as np

    from dptheory.report.plotting import new_figure, save

    xs = _floats(args.range) if args.range else {
        "n": [float(x) for x in np.unique(np.geomspace(max(args.m, 10), 1e6, 25).astype(int))],
        "E": [float(x) for x in range(1, 21)],
        "sigma": [float(x) for x in np.geomspace(max(args.zeta, 0.1), 1000 * args.zeta, 25)],
    }[args.vs]
    fig, (ax,) = new_figure()
    series: dict[str, list[tuple[float, float]]] = {}
    for x in xs:
        kw = {"n": args.n, "m": args.m, "E": args.E, "sigma": args.sigma}
        kw[args.vs] = round(x) if args.vs in ("n", "E") else x
        if kw["m"] > kw["n"]:
            continue
        rows, _ = _theorem_values(kw["n"], kw["m"], kw["E"], args.zeta, kw["sigma"], args.beta, args.C, args.C_beta,
                                  which, args.theta_independent)
        for r in rows:
            series.setdefault(r["key"], []).append((x, r["value_nats"] * scale))
    for key, pts in series.items():
        p = np.array(pts)
        style = "--" if ("lz26" in key or "route" in key) else "-"
        label = key + (f" (asymptotic, C={args.C:g})" if style == "--" else "")
        ax.plot(p[:, 0], p[:, 1], style, label=label)
    ax.set_xscale("log" if args.vs != "E" else "linear")
    ax.set_yscale("log")
    ax.set_xlabel(args.vs)
    ax.set_ylabel(f"max-information bound ({args.unit})")
    ax.set_title(f"DP-SGD max-information vs {args.vs} (beta={args.beta:g})", fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    save(fig, path)
    curves = {k: [[float(c) for c in t] for t in v] for k, v in series.items()}
    return {"path": args.plot, "vs": args.vs, "series": curves}






# ----------------------------------------------------------------------------- audit maxinfo
def cmd_audit_maxinfo(args: argparse.Namespace) -> int:
    import numpy as np

    from dptheory.papers.maxinfo.audit import GaussianToy, LaplaceCountToy, audit_toy

    rng = np.random.default_rng(args.seed)
    audits = []
    if args.toy == "gaussian":
        for s in _floats(args.sigma):
            toy = GaussianToy(args.n, args.m, args.E, s, args.zeta)
            audits.append(audit_toy(toy, args.beta, rng=rng, N=args.N, N_pilot=args.N_pilot, alpha=args.alpha,
                                    method=args.method, direct=args.direct))
    else:
        for e in _floats(args.eps):
            audits.append(audit_toy(LaplaceCountToy(args.n, e), args.beta, rng=rng, N=args.N, N_pilot=args.N_pilot,
                                    alpha=args.alpha, method=args.method, direct=args.direct))
    if args.plot:
        with output_files() as group:
            _plot_audit(audits, args, str(group.path(args.plot)))
    if args.json:
        print(json.dumps({"audits": [a.to_dict() for a in audits], "plot": args.plot}, indent=1, default=str))
        print_written(written(files=[args.plot]), json_on_stdout=True)
        return 0 if all(a.consistent for a in audits) else 3
    for a in audits:
        lb = a.lower
        cfg = ", ".join(f"{k}={v}" for k, v in a.config.items() if k not in ("alpha", "N", "method"))
        print(f"{cfg}")
        val = f"{lb.value:.4f}" if lb.value is not None else "no certificate (P_lcb <= beta)"
        print(f"  certified lower bound on I^beta_inf: {val} nats (confidence {lb.confidence:g}, N = {lb.N}, "
              f"{lb.method}); plug-in {lb.plugin:.4f}, MI estimate {lb.mi_estimate:.4f}")
        if a.direct is not None:
            dv = f"{a.direct.value:.4f}" if a.direct.value is not None else "none"
            print(f"  direct product sampling lower bound: {dv} nats")
        for k, v in a.upper.items():
            print(f"  {k:<28} {v:.6g} nats  (upper / lower = {a.ratios[k]:.3g})")
        if a.lz26_constant_lower is not None:
            print(f"  lz26.thm1's hidden constant must be >= {a.lz26_constant_lower:.4g} on this toy")
        if a.lemma_g_violations is not None:
            print(f"  Lemma G (i <= Lambda) violations: {a.lemma_g_violations}")
        print(f"  consistent (every upper bound >= certified lower bound): {a.consistent}  [{a.seconds:.2f} s]")
    print_written(written(files=[args.plot]))
    return 0 if all(a.consistent for a in audits) else 3


def _plot_audit(audits: list[Any], args: argparse.Namespace, path: str) -> None:
    import numpy as np

    from dptheory.report.plotting import new_figure, save

    fig, (ax,) = new_figure()
    xs = [a.config.get("sigma", a.config.get("eps")) for a in audits]
    xlabel = "sigma" if args.toy == "gaussian" else "eps"
    lbs = [a.lower.value if a.lower.value is not None else np.nan for a in audits]
    ax.plot(xs, lbs, "ko-", label=f"certified lower bound ({audits[0].lower.confidence:g})")
    ax.plot(xs, [a.lower.plugin for a in audits], "k:", label="plug-in estimate")
    for key in audits[0].upper:
        ax.plot(xs, [a.upper[key] for a in audits], "-", label=key)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("I^beta_inf (nats)")
    ax.set_title(f"{args.toy} toy, beta={args.beta:g}", fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    save(fig, path)


# ----------------------------------------------------------------------------- parsers
def _bounds_params() -> list[PaperParam]:
    """``bounds``'s parameters, in the notation of Theorems A and B (and Lampert & Zakerinia's Theorem 1)."""
    pos, count = real(0, None, lo_open=True), integer(1, 10**9)
    return [
        PaperParam("n", count, None, "number of examples", required=True),
        PaperParam("m", count, None, "batch size", required=True),
        PaperParam("E", count, 1, "epochs"),
        PaperParam("zeta", pos, 1.0, "clipping norm"),
        PaperParam("sigma", pos, None, "noise std on the sum of clipped gradients", required=True),
        PaperParam("beta", real(0, 1, lo_open=True, hi_open=True), 0.05, "max-information slack, in (0, 1)"),
        PaperParam("C", pos, 1.0, "hidden constant for the asymptotic bounds"),
        PaperParam("C_beta", pos, 1.0, "Rogers et al.'s constant in beta"),
    ]


def _audit_params() -> list[PaperParam]:
    """``audit``'s parameters: the toy mechanism's, in the notation of the bounds it is compared with."""
    count = integer(1, 10**9)
    return [
        PaperParam("n", count, 200, "examples"),
        PaperParam("m", count, 10, "batch size"),
        PaperParam("E", count, 1, "epochs"),
        PaperParam("sigma", _spec, "4", "noise std (a comma list or lo..hi:k sweeps it)"),
        PaperParam("zeta", real(0, None, lo_open=True), 1.0, "clipping norm"),
        PaperParam("eps", _spec, "0.5", "Laplace toy: privacy parameter(s), a comma list or lo..hi:k"),
        PaperParam("beta", real(0, 1, lo_open=True, hi_open=True), 0.05, "max-information slack"),
    ]


#: the parameters (name=value) of every command of this paper, for the help and the tests
PARAMS = {"bounds": _bounds_params, "audit": _audit_params}


def add_subcommands(sub: Any) -> None:
    """Add ``bounds`` and ``audit`` to ``dptheory maxinfo``."""
    s = sub.add_parser("bounds", help="max-information bounds for DP-SGD (nats; bits with --unit bits)",
                       description="Upper bounds on the beta-approximate max-information of DP-SGD-stream: our "
                       "Theorems A and B, Lampert & Zakerinia's Theorem 1 and the (eps, delta)-DP route (both "
                       "asymptotic: labelled, never a guarantee).")
    add_paper_params(s, _bounds_params())
    s.add_argument("--bound", default="all", help="all, or a comma list of thmA, thmB, lz26, route")
    s.add_argument("--theta-independent", action="store_true",
                   help="the clipped gradient does not depend on theta (Theorem B then holds for every E)")
    s.add_argument("--unit", choices=["nats", "bits"], default="nats", help="unit of the values")
    add_json(s, "a table")
    s.add_argument("--plot", type=plot_path, help="write a plot of the bounds against --vs")
    s.add_argument("--vs", choices=["n", "E", "sigma"], default="n", help="variable of the plot")
    s.add_argument("--range", type=_spec, help="values of the --vs variable: lo..hi[:points] or a comma list "
                   "(default: a range around the given value)")
    s.set_defaults(func=cmd_maxinfo)
    add_audit_maxinfo(sub)


def add_audit_maxinfo(sub: Any) -> None:
    """Add ``audit`` to ``dptheory maxinfo``."""
    s = sub.add_parser("audit", help="certified Monte-Carlo lower bound on I^beta_inf vs upper bounds",
                       description="A certified lower bound on the max-information of a toy mechanism with exact "
                       "information density, against the upper bounds (exit 3 if one is below it: a finding).")
    add_paper_params(s, _audit_params())
    s.add_argument("--toy", choices=["gaussian", "laplace"], default="gaussian", help="toy mechanism")
    s.add_argument("--N", type=integer(100, 10**9), default=200_000, help="fresh joint samples")
    s.add_argument("--N-pilot", dest="N_pilot", type=integer(100, 10**9), default=50_000, help="pilot samples")
    s.add_argument("--alpha", type=real(0, 1, lo_open=True, hi_open=True), default=0.01,
                   help="the lower bound holds with probability >= 1 - alpha")
    s.add_argument("--method", choices=["hoeffding", "kl"], default="hoeffding", help="confidence bound")
    s.add_argument("--direct", action="store_true", help="also the direct product-sampling lower bound")
    s.add_argument("--seed", type=integer(0, 2**63 - 1), default=0, help="seed of numpy.random.default_rng")
    add_json(s)
    s.add_argument("--plot", type=plot_path, help="write a plot of the lower bound and the upper bounds "
                   "(against sigma or eps)")
    s.set_defaults(func=cmd_audit_maxinfo)


GROUP_HELP = "max-information of DP-SGD: bounds and certified lower bounds on toys"
