"""``dptheory pacbayes bound``: PAC-Bayes risk certificates.

Maurer, McAllester, Dziugaite & Roy, and priors of bounded max-information.

Found by :mod:`dptheory.cli`, which passes this paper's sub-parser collection to ``add_subcommands``.
Prints a table for people or ``--json``; asymptotic max-information bounds are refused where a guarantee is
needed (``--maxinfo-from lz26``). The theorems are imported inside the handler (fast start).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from dptheory.cli.output import table
from dptheory.cli.params import PaperParam, add_json, add_paper_params, integer, real
from dptheory.core.errors import DPTheoryError, RegimeNotSupported

__all__ = ["add_subcommands", "cmd_pacbayes"]


# ----------------------------------------------------------------------------- pacbayes
def cmd_pacbayes(args: argparse.Namespace) -> int:
    from dptheory.papers.lz26 import theorems as lampert_zakerinia_2026  # noqa: F401  (registers lz26.* for --maxinfo-from lz26)
    from dptheory.papers.maxinfo import theorems as M
    from dptheory.papers.pacbayes import theorems as P

    base = {"emp_risk": args.emp_risk, "KL": args.KL, "n": args.n, "delta": args.delta}
    rows: list[dict[str, Any]] = []
    notes: list[str] = []
    k = args.k
    k_source = "given (k)" if k is not None else None
    if args.maxinfo_from:
        key = {"thmA": "maxinfo.thmA_derived", "thmB": "maxinfo.thmB_derived", "lz26": "lz26.thm1",
               "route": "maxinfo.dp_route_rogers_asymptotic"}[args.maxinfo_from]
        if args.maxinfo_from == "thmB" and args.E >= 2 and not args.theta_independent:
            raise RegimeNotSupported("maxinfo.thmB_derived needs E = 1 or theta-independent clipped gradients "
                                     "(--theta-independent); use --maxinfo-from thmA")
        beta = args.beta if args.beta is not None else args.delta / 2
        params = {"n": args.n, "m": args.m, "E": args.E, "zeta": repr(args.zeta), "sigma": repr(args.sigma),
                  "beta": repr(beta)}
        from dptheory.core.registry import REGISTRY

        thm = REGISTRY.get(key)
        params = {p: v for p, v in {**params, "C": 1}.items() if p in thm.params}
        k = float(M.maxinfo_guarantee(key, params).value)  # refuses ASYMPTOTIC keys
        k_source = f"{key} at beta = {beta:g}"
        args.beta = beta
    which = args.bound.split(",") if args.bound != "all" else ["maurer", "maurer-2sqrt", "pinsker", "mcallester"]
    if args.bound == "all" and k is not None:
        # a data-dependent prior/model: the fixed-prior bounds do not apply
        which = ["g2", "g3"]
        notes.append("the prior/model depends on the data: only the max-information bounds (G2, G3) apply")
    if args.bound == "all" and args.eps is not None:
        which += ["dr18", "dr18-maxinfo"]
    for name in which:
        if name in ("maurer", "maurer-2sqrt", "pinsker", "mcallester"):
            thm = {"maurer": P.MAURER, "maurer-2sqrt": P.MAURER_2SQRT, "pinsker": P.PINSKER,
                   "mcallester": P.MCALLESTER}[name]
            rows.append(_risk_row(thm, base))
        elif name in ("g2", "g3"):
            if k is None or args.beta is None:
                raise DPTheoryError(f"--bound {name} needs a max-information bound: k and beta, or --maxinfo-from")
            p = {**base, "beta": args.beta, "k": repr(k)}
            if name == "g3":
                p.pop("KL")
            rows.append(_risk_row(P.G2 if name == "g2" else P.G3, p))
        elif name in ("dr18", "dr18-maxinfo"):
            if args.eps is None:
                raise DPTheoryError(f"--bound {name} needs eps (the pure DP parameter of the prior)")
            p = {"emp_risk": args.emp_risk, "KL": args.KL, "m": args.n, "delta": args.delta, "eps": args.eps}
            rows.append(_risk_row(P.DR18_THM if name == "dr18" else P.DR18_MI, p))
        else:
            raise DPTheoryError(f"unknown bound {name!r}; use maurer, maurer-2sqrt, pinsker, mcallester, g2, g3, dr18, "
                                "dr18-maxinfo")
    out = {"params": {"emp_risk": args.emp_risk, "KL": args.KL, "n": args.n, "delta": args.delta, "beta": args.beta,
                      "k": k, "k_source": k_source, "eps": args.eps},
           "bounds": rows, "notes": notes}
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    print(f"risk bounds (probability >= 1 - {args.delta}) at empirical risk {args.emp_risk}, KL = {args.KL} nats, "
          f"n = {args.n}" + (f", max-information k = {k:.6g} nats ({k_source})" if k is not None else ""))
    shown = [{**r, "note": "vacuous (>= 1)" if r["value"] >= 1 else ""} for r in rows]
    table(shown, ["key", "value", "direction", "kl_budget", "note"],
          headers={"value": "risk <=", "kl_budget": "kl budget (nats)"}, indent="  ", digits=6)
    for note in notes:
        print(f"  note: {note}")
    return 0


def _risk_row(thm: Any, params: dict[str, Any]) -> dict[str, Any]:
    v = thm.evaluate(params, dps=20)
    budget = float(thm.evaluate(params, dps=20, term="rhs").value) if "rhs" in thm.terms else None
    return {"key": thm.key, "value": float(v.value), "direction": str(v.direction), "kl_budget": budget,
            "title": thm.title}


def _bound_params() -> list[PaperParam]:
    """``bound``'s parameters, in the notation of the PAC-Bayes theorems (Maurer's n is Dziugaite & Roy's m; the
    DP-SGD prior's m, E, zeta, sigma are Theorem A's)."""
    pos, unit, count = real(0, None, lo_open=True), real(0, 1, lo_open=True, hi_open=True), integer(1, 10**12)
    return [
        PaperParam("emp_risk", real(0, 1), None, "empirical risk in [0, 1]", required=True),
        PaperParam("n", count, None, "number of i.i.d. examples", required=True),
        PaperParam("delta", unit, 0.05, "failure probability, in (0, 1)"),
        PaperParam("KL", real(0, None), 0.0, "KL(Q||P) in nats, >= 0"),
        PaperParam("k", real(0, None), None, "max-information bound k (nats) of the prior/model, with beta"),
        PaperParam("beta", unit, None, "max-information slack (default delta/2 with --maxinfo-from)"),
        PaperParam("m", count, 1, "DP-SGD batch size (--maxinfo-from)"),
        PaperParam("E", count, 1, "DP-SGD epochs (--maxinfo-from)"),
        PaperParam("zeta", pos, 1.0, "DP-SGD clipping norm (--maxinfo-from)"),
        PaperParam("sigma", pos, 1.0, "DP-SGD noise std (--maxinfo-from)"),
        PaperParam("eps", pos, None, "pure DP parameter of the prior (DR18 bounds)"),
    ]


#: the parameters (name=value) of every command of this paper, for the help and the tests
PARAMS = {"bound": _bound_params}


def add_subcommands(sub: Any) -> None:
    """Add ``bound`` to ``dptheory pacbayes``."""
    s = sub.add_parser("bound", help="PAC-Bayes risk bounds (Maurer, McAllester, DR18, max-information priors)",
                       description="Risk certificates: Maurer's PAC-Bayes-kl bound (exact xi(n) and 2 sqrt(n)), its "
                       "Pinsker relaxation, McAllester's bound; with a data-dependent prior of bounded max-information "
                       "(k and beta, or --maxinfo-from) our G2/G3; with an eps-DP prior (eps) Dziugaite & Roy's "
                       "bound and its max-information variant.")
    add_paper_params(s, _bound_params())
    s.add_argument("--bound", default="all",
                   help="all, or a comma list of maurer, maurer-2sqrt, pinsker, mcallester, g2, g3, dr18, dr18-maxinfo")
    s.add_argument("--maxinfo-from", choices=["thmA", "thmB", "lz26", "route"],
                   help="compute k for a DP-SGD prior/model (asymptotic choices are refused)")
    s.add_argument("--theta-independent", action="store_true",
                   help="the clipped gradient does not depend on theta (Theorem B then holds for every E)")
    add_json(s, "a table")
    s.set_defaults(func=cmd_pacbayes)


GROUP_HELP = "PAC-Bayes risk certificates (kl inversion, DP and max-information priors)"
