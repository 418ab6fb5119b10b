"""LaTeX bound reports generated from the registry's objects.

Every formula comes from a theorem's sympy statement (through :class:`~.printer.DPLatexPrinter`),
every number from an evaluation with its precision and direction, every verdict from the claim
checker. Output is deterministic: the same inputs give the same bytes (no dates, sorted keys, fixed
number formatting, figures saved without metadata, claim searches seeded). Only the LaTeX
packages of Debian's ``texlive-latex-base`` are used, so a minimal TeX compiles it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import mpmath

from dptheory.core.claims import Claim
from dptheory.core.conditions import Status
from dptheory.core.errors import DPTheoryError
from dptheory.core.latex import escape, param_tex
from dptheory.core.registry import REGISTRY
from dptheory.core.theorem import Theorem
from dptheory.core.words import plural
from dptheory.report.config import ReportConfig, check_param_names

_GREEK = {
    "alpha": r"\alpha", "beta": r"\beta", "gamma": r"\gamma", "delta": r"\delta", "epsilon": r"\varepsilon",
    "eps": r"\varepsilon", "zeta": r"\zeta", "eta": r"\eta", "theta": r"\theta", "kappa": r"\kappa",
    "lambda": r"\lambda", "mu": r"\mu", "xi": r"\xi", "rho": r"\rho", "sigma": r"\sigma", "tau": r"\tau",
    "phi": r"\phi", "psi": r"\psi", "omega": r"\omega", "Gamma": r"\Gamma", "Delta": r"\Delta",
    "Theta": r"\Theta", "Lambda": r"\Lambda", "Sigma": r"\Sigma", "Phi": r"\Phi", "Psi": r"\Psi",
    "Omega": r"\Omega", "infinity": r"\infty",
}
_TEXT_MATH = re.compile(
    r"(?<![\w\\])(?P<g>" + "|".join(sorted(_GREEK, key=len, reverse=True)) + r")"
    r"(?:_(?P<sub>[A-Za-z0-9]+))?(?:\^(?P<sup>[A-Za-z0-9]+))?(?!\w)"
    r"|(?P<arrow>->)|(?P<ge>>=)|(?P<le><=)|(?<=\d)(?P<range>-)(?=\d)|\^(?P<power>[A-Za-z0-9]+)(?:_(?P<psub>[A-Za-z0-9]+))?(?!\w)"
)


class ReportCompileError(DPTheoryError):
    """pdflatex failed; the message shows the relevant lines of the LaTeX log and the source."""


@dataclass
class ReportResult:
    tex: Path
    pdf: Path | None
    figures: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _versions() -> list[tuple[str, str]]:
    import numpy
    import scipy
    import sympy

    from dptheory import __version__
    from dptheory.report.plotting import matplotlib_for_files

    matplotlib = matplotlib_for_files()
    return [
        ("dptheory", __version__),
        ("sympy", sympy.__version__),
        ("mpmath", mpmath.__version__),
        ("numpy", numpy.__version__),
        ("scipy", scipy.__version__),
        ("matplotlib", matplotlib.__version__),
    ]


def _num(x: mpmath.mpf, digits: int) -> str:
    if mpmath.isinf(x):
        return r"$+\infty$" if x > 0 else r"$-\infty$"
    s = mpmath.nstr(x, digits, strip_zeros=False, min_fixed=-4, max_fixed=8)
    if "e" in s:
        mant, exp = s.split("e")
        return rf"${mant}\times 10^{{{int(exp)}}}$"
    return f"${s}$"


def text_tex(text: str) -> str:
    """Plain text of a title or a quantity as LaTeX: Greek names (``epsilon`` -> $\\varepsilon$, ``sigma_p`` ->
    $\\sigma_{p}$), ``->``, ``>=``, ``<=`` as symbols, powers (``m^2``) as superscripts, number ranges (``1-2``) with
    an en dash; the rest escaped."""
    out, pos = [], 0
    for m in _TEXT_MATH.finditer(text):
        out.append(escape(text[pos : m.start()]))
        pos = m.end()
        if m.group("g"):
            sub = f"_{{{m.group('sub')}}}" if m.group("sub") else ""
            sub += f"^{{{m.group('sup')}}}" if m.group("sup") else ""
            out.append(f"${_GREEK[m.group('g')]}{sub}$")
        elif m.group("range"):
            out.append("--")
        elif m.group("power"):
            power = _GREEK.get(m.group("power"), m.group("power"))
            psub = f"_{{{m.group('psub')}}}" if m.group("psub") else ""
            out.append(f"$^{{{power}}}{psub}$")
        else:
            out.append({"arrow": r"$\to$", "ge": r"$\ge$", "le": r"$\le$"}[m.lastgroup or ""])
    out.append(escape(text[pos:]))
    return "".join(out)


def _display(tex: str) -> str:
    """A displayed formula; ``\\dptfit`` (see the preamble) scales it down only if it is wider than the text."""
    return "\\[\n\\dptfit{" + tex + "}\n\\]\n"


def _params_for(thm: Theorem, params: dict[str, Any]) -> dict[str, Any] | None:
    if not all(p in params for p in thm.params):
        return None
    return {p: params[p] for p in thm.params}


def _status_cell(thm: Theorem, params: dict[str, Any] | None) -> list[str]:
    if params is None:
        return ["n/a"] * len(thm.all_conditions)
    try:
        res = thm.check(params)
    except DPTheoryError as exc:
        return [escape(str(exc)[:40])] * len(thm.all_conditions)
    out = []
    for r in res:
        mark = {Status.HOLDS: "holds", Status.VIOLATED: r"\textbf{violated}", Status.UNDECIDED: "undecided"}[r.status]
        out.append(mark)
    return out


def _conditions_table(thm: Theorem, cfg: ReportConfig) -> str:
    """Conditions with their status at each parameter set, or "no conditions" (never an empty table)."""
    names = thm.symbol_names()
    conds = [(i, c) for i, c in enumerate(thm.all_conditions) if c.kind != "domain"]
    if not conds:
        return r"\noindent\textbf{Conditions:} no conditions beyond the parameters' domains." + "\n"
    sets = cfg.sets
    if not sets:
        return (r"\noindent\textbf{Conditions:} " + "; ".join(f"${c.render_latex(names)}$" for _, c in conds)
                + ".\n")
    lines = [r"\noindent\textbf{Conditions} and their status at the parameter sets:",
             "\\begin{longtable}{l" + "c" * len(sets) + "}", "\\hline",
             "condition" + "".join(f" & {i + 1}" for i in range(len(sets))) + r" \\", "\\hline"]
    statuses = [_status_cell(thm, _params_for(thm, s.params)) for s in sets]
    for i, c in conds:
        lines.append(f"${c.render_latex(names)}$" + "".join(f" & {st[i]}" for st in statuses) + r" \\")
    lines += ["\\hline", "\\end{longtable}"]
    return "\n".join(lines)


def _theorem_section(thm: Theorem, cfg: ReportConfig) -> str:
    names = thm.symbol_names()
    lines = [
        rf"\subsection{{\texttt{{{escape(thm.key)}}}: {text_tex(thm.title)}}}",
        rf"\noindent\textbf{{Source.}} {escape(thm.citation.short())}.",
    ]
    if thm.citation.note:
        lines.append(rf" {escape(thm.citation.note)}.")
    lines.append("")
    lines.append(rf"\noindent\textbf{{Bounds}} {text_tex(thm.quantity)} ({thm.direction} bound, {thm.unit}).")
    if thm.bound is not None:
        rel = {"upper": r"\le", "lower": r"\ge", "exact": "=", "asymptotic": r"\approx"}[thm.direction.value]
        lhs = r"\varepsilon" if "RDP" in thm.quantity else r"\mathrm{value}"
        lines.append(_display(f"{lhs} {rel} {thm.latex()}"))
    else:
        lines.append("\\begin{align*}")
        from dptheory.core.latex import latex

        lines.append(" \\\\\n".join("&" + latex(s, names) for s in thm.statement))
        lines.append("\\end{align*}")
    if thm.definitions:
        lines.append(r"\noindent where")
        for d in thm.definitions_latex():
            lines.append(_display(d))
    if thm.assumptions:
        lines.append(
            r"\noindent\textbf{Assumptions} (not checkable at a point): "
            + "; ".join(text_tex(a) for a in thm.assumptions)
            + "."
        )
        lines.append("")
    lines.append(_conditions_table(thm, cfg))
    if thm.limits:
        for lim in thm.limits.values():
            cond = ""
            if lim.exists_when is not None:
                cond = f", finite iff ${lim.exists_when.render_latex(names)}$"
            if lim.expr is not None:
                from dptheory.core.latex import latex

                lines.append(rf"\noindent\textbf{{Limit}} as ${lim.param} \to \infty${cond}:")
                lines.append(_display(latex(lim.expr, names)))
    if thm.reading:
        lines.append(rf"\noindent\textbf{{Reading decisions.}} {escape(thm.reading)}")
        lines.append("")
    if thm.notes:
        lines.append(rf"\noindent\textbf{{Notes.}} {escape(thm.notes)}")
        lines.append("")
    return "\n".join(lines) + "\n"


def quantity_tex(thm: Theorem) -> str:
    """What a theorem's number is (its quantity, and its unit unless dimensionless)."""
    unit = "" if str(thm.unit) == "dimensionless" else f" [{thm.unit}]"
    return text_tex(thm.quantity) + unit


def is_rdp(thm: Theorem) -> bool:
    """An RDP epsilon as a function of the order alpha that is a guarantee: convertible to (epsilon, delta)."""
    return "alpha" in thm.params and thm.quantity.startswith("RDP epsilon") and thm.direction.is_guarantee


def _full_batch_at_minibatch(thm: Theorem, cfg: ReportConfig, params: dict[str, Any]) -> bool:
    """A theorem stated for full batch (b = n; report.toml ``full_batch``) at a set whose batch size b < n."""
    if thm.key not in cfg.full_batch or "b" not in params or "n" not in params:
        return False
    from dptheory.core.notation import parse_value

    return bool(parse_value(params["b"], key="set", name="b") < parse_value(params["n"], key="set", name="n"))


@dataclass
class _Cell:
    value: str  # the formatted bound, "n/a" or "undefined"
    eps: str  # the (epsilon, delta) epsilon, or "n/a"
    violated: bool = False
    full_batch: bool = False


def _cell(thm: Theorem, cfg: ReportConfig, params: dict[str, Any], digits: int) -> _Cell:
    """A theorem's value at a set and, for an RDP theorem, the (epsilon, delta)-DP epsilon at the report's delta
    (:func:`dptheory.privacy.conversion.convert`, improved conversion of Balle et al. 2020, Thm 21, which is never
    above the classic one, optimised over the order alpha)."""
    p = _params_for(thm, params)
    if p is None:
        return _Cell("n/a", "n/a")
    fb = _full_batch_at_minibatch(thm, cfg, params)
    try:
        v = thm.evaluate(p, dps=cfg.dps, check=False)
    except DPTheoryError:
        return _Cell("undefined", "n/a", full_batch=fb)
    eps = "n/a"
    if is_rdp(thm):
        from dptheory.privacy.conversion import convert

        try:
            conv = convert(thm, {k: x for k, x in p.items() if k != "alpha"}, delta=cfg.delta, method="improved",
                           dps=cfg.dps)
            eps = _num(conv.epsilon, digits)
        except DPTheoryError:
            eps = "undefined"
    return _Cell(_num(v.value, digits), eps, violated=bool(v.violated), full_batch=fb)


def _delta_tex(delta: str) -> str:
    """The report's delta in math mode, as given (``1e-5`` -> ``10^{-5}``, ``2.5e-6`` -> ``2.5 \\times 10^{-6}``)."""
    m = re.fullmatch(r"\s*([0-9.]+)[eE]([-+]?\d+)\s*", delta)
    if m is None:
        return escape(delta)
    mant, exp = m.group(1), int(m.group(2))
    return (f"{mant} \\times " if mant not in ("1", "1.0") else "") + f"10^{{{exp}}}"


def _marks(c: _Cell) -> str:
    return (r"$^{\dagger}$" if c.violated else "") + (r"$^{\ddagger}$" if c.full_batch else "")


def _footnotes(cells: list[_Cell]) -> list[str]:
    """Footnotes for the marks that occur (none for a mark that marks nothing)."""
    out = []
    if any(c.violated for c in cells):
        out.append(r"\noindent$^{\dagger}$ a condition of the theorem is violated at this set: the number is not a "
                   "guarantee.")
        out.append("")
    if any(c.full_batch for c in cells):
        out.append(r"\noindent$^{\ddagger}$ the theorem is stated for full-batch gradient descent ($b = n$); the set "
                   "has $b < n$, so the number is the full-batch bound on $n$ records, not a guarantee for the set's "
                   "mini-batch training.")
        out.append("")
    return out


def _values_section(thms: list[Theorem], cfg: ReportConfig) -> str:
    lines = [
        r"\section{Bound values}",
        f"Each value is evaluated with mpmath at {cfg.dps} significant digits and shown to {cfg.digits}; "
        "n/a: the set does not give every parameter of the theorem. The last column is the $\\varepsilon$ of "
        f"$(\\varepsilon, \\delta)$-DP at $\\delta = {_delta_tex(cfg.delta)}$ for RDP bounds (the improved "
        "conversion of Balle et al. 2020, Thm 21, optimised over the order $\\alpha$, so it does "
        "not use the set's $\\alpha$); n/a for the other quantities.",
        "",
        "{\\small",
        r"\begin{longtable}{lp{6.4cm}crr}",
        r"\hline",
        r"theorem & quantity & set & value & $(\varepsilon, \delta)$: $\varepsilon$ \\",
        r"\hline",
        r"\endhead",
    ]
    cells: list[_Cell] = []
    for thm in thms:
        label = thm.key if cfg.include else thm.key.split(".", 1)[1]
        row = [_cell(thm, cfg, s.params, cfg.digits) for s in cfg.sets]
        cells += row
        mark = r"$^{\ddagger}$" if any(c.full_batch for c in row) else ""
        for i, c in enumerate(row):
            first = rf"\texttt{{{escape(label)}}}{mark} & {quantity_tex(thm)}" if i == 0 else " & "
            eps = c.eps + (_marks(c) if c.eps.startswith("$") else "")  # the epsilon inherits the value's marks
            lines.append(f"{first} & {i + 1} & {c.value}{_marks(c)} & {eps}" + r" \\")
        lines.append(r"\hline")
    lines += [r"\end{longtable}", "}", ""]
    lines += _footnotes(cells)
    return "\n".join(lines) + "\n"


def _crossover_section(cfg: ReportConfig) -> str:
    from dptheory.evaluate.crossover import crossover

    if not cfg.crossovers:
        return ""
    lines = [
        r"\section{Crossovers}",
        "The value of the moving parameter from which the first bound stays below the second up to the end of "
        "the range (screened in float64 at every integer, confirmed on both sides at "
        f"{cfg.dps} digits).",
        "",
        r"\begin{longtable}{p{6.2cm}lrrr}",
        r"\hline",
        r"comparison & over & range & crossover & order changes \\",
        r"\hline",
    ]
    for c in cfg.crossovers:
        a, b = REGISTRY.get(c.lower), REGISTRY.get(c.upper)
        res = crossover(a, b, c.over, c.start, c.stop, c.params, dps=cfg.dps)
        if res.value is None:
            val = "none"
        elif res.always_below:
            val = "always"
        else:
            val = f"{res.value}"
        label = text_tex(c.label) if c.label else rf"\texttt{{{escape(c.lower)}}} $<$ \texttt{{{escape(c.upper)}}}"
        lines.append(
            f"{label} & ${escape(c.over)}$ & {escape(str(c.start))}--{escape(str(c.stop))} & {val} & "
            f"{res.changes}" + r" \\"
        )
    lines += [r"\hline", r"\end{longtable}", ""]
    return "\n".join(lines) + "\n"


def _check_claims(claims: list[Claim], cfg: ReportConfig, progress: Callable[[str], None] | None) -> list[Any]:
    from dptheory.verify.checking import check_claim

    out = []
    for c in claims:
        if progress is not None:
            progress(c.key)
        out.append(check_claim(c, examples=cfg.claim_examples, seed=cfg.seed, dps=max(cfg.dps, 50)))
    return out


def verdict_word(res: Any) -> str:
    """The verdict's word, whichever enum the checker uses (``.value`` of a StrEnum, else ``str``)."""
    v = res.verdict
    return str(getattr(v, "value", v))


def _summary_section(thms: list[Theorem], claims: list[Claim], results: list[Any], cfg: ReportConfig) -> str:
    """Page 1: the claims' tally, the key numbers (the headline theorems at every parameter set), then the claims'
    verdicts (claim, verdict, one-line statement; with many claims the table runs onto the next pages, after the
    numbers); a page break follows."""
    lines = [r"\section*{Summary}"]
    if results:
        counts: dict[str, int] = {}
        for r in results:
            counts[verdict_word(r)] = counts.get(verdict_word(r), 0) + 1
        tally = ", ".join(f"{n} {w}" for w, n in sorted(counts.items()))
        lines += [f"{len(results)} claims checked ({tally}); details in Section~\\ref{{sec:claims}}.", ""]
    lines += _key_numbers(thms, cfg)
    if results:
        lines += [
            r"{\footnotesize",
            r"\begin{longtable}{@{}llp{12.2cm}@{}}",
            r"\hline",
            r"claim & verdict & statement \\",
            r"\hline",
        ]
        for c, r in zip(claims, results, strict=True):
            word = verdict_word(r)
            shown = rf"\textbf{{{escape(word)}}}" if word == "falsified" else escape(word)
            label = c.key if cfg.include else c.key.split(".", 1)[1]  # keys of several papers: keep the prefix
            lines.append(rf"\texttt{{{escape(label)}}} & {shown} & {text_tex(c.title)} \\")
        lines += [r"\hline", r"\end{longtable}", "}", ""]
    lines += [r"\clearpage", ""]
    return "\n".join(lines) + "\n"


def _key_numbers(thms: list[Theorem], cfg: ReportConfig) -> list[str]:
    """The summary's key numbers: the headline theorems at every parameter set, with their footnotes."""
    by_key = {t.key: t for t in thms}
    heads = [by_key[k] for k in cfg.headline if k in by_key]
    if not (heads and cfg.sets):
        return []
    digits = min(cfg.digits, 6)
    lines = [
        r"\noindent\textbf{Key numbers} at the parameter sets (Section~\ref{sec:sets}; " + f"{digits} digits):",
        "",
        r"{\footnotesize",
        r"\begin{longtable}{@{}lp{5.6cm}" + "r" * len(cfg.sets) + "@{}}",
        r"\hline",
        "theorem & quantity" + "".join(f" & set {i + 1}" for i in range(len(cfg.sets))) + r" \\",
        r"\hline",
    ]
    cells: list[_Cell] = []
    for t in heads:
        label = t.key if cfg.include else t.key.split(".", 1)[1]
        row = rf"\texttt{{{escape(label)}}} & {quantity_tex(t)}"
        for st in cfg.sets:
            cell = _cell(t, cfg, st.params, digits)
            cells.append(cell)
            row += f" & {cell.value}{_marks(cell)}"
        lines.append(row + r" \\")
    lines += [r"\hline", r"\end{longtable}", "}", ""]
    lines += _footnotes(cells)
    lines.append(r"{\footnotesize\noindent Sets: " + "; ".join(
        f"{i + 1}: {text_tex(st.name)}" for i, st in enumerate(cfg.sets)) + ".}")
    lines.append("")
    return lines


def findings_map_table(claims: list[Claim], results: list[Any], cfg: ReportConfig) -> list[str]:
    """The map of the report's findings (:mod:`dptheory.core.findings`), one row per falsified claim: where it
    fails (with the check's decisions of the edge points), where it holds (its companions' regions) and the
    companions' verdicts (this report's, else the verdict on record). No rows: no lines."""
    from dptheory.core.findings import holding_part

    verdicts = {r.claim: verdict_word(r) for r in results}
    rows = []
    for c, res in zip(claims, results, strict=True):
        rec = res.map
        if verdict_word(res) != "falsified" or not rec or "fails_on" not in rec:
            continue
        label = c.key if cfg.include else c.key.split(".", 1)[1]
        edges = [e[role].get("decision") for e in rec["edges"] for role in ("fails", "holds") if role in e]
        sure = "certified" if edges and all(d and d.get("certified") for d in edges) else "not all certified"
        fails = ("everywhere: " if rec["everywhere"] else "") + rec["fails_on"] + f" (edge points {sure})"
        comps = rec["companions"]
        holds = holding_part(rec) if rec["everywhere"] or not comps else "; ".join(
            f"{x['key'] if cfg.include else x['key'].split('.', 1)[1]}: {x['description']}" for x in comps)
        verdict = "; ".join(verdicts.get(x["key"], x["verdict"]) for x in comps) or "--"
        rows.append(rf"\texttt{{{escape(label)}}} & {text_tex(fails)} & {text_tex(holds)} & {escape(verdict)} \\")
    if not rows:
        return []
    return [
        r"\noindent\textbf{Where the findings fail and where they hold.} A finding's failing part is the region a "
        "search found it failing on, with a point just inside and one just outside, decided on arb balls by this "
        "check; its holding part is a companion claim (ours: the same sides and relation on a narrower region) "
        "with its own verdict.",
        "",
        r"{\footnotesize",
        r"\begin{longtable}{@{}lp{5.2cm}p{6.2cm}l@{}}",
        r"\hline",
        r"finding & failing part & holding part & verdict \\",
        r"\hline",
        *rows,
        r"\hline",
        r"\end{longtable}",
        "}",
        "",
    ]


def _claims_section(claims: list[Claim], results: list[Any], cfg: ReportConfig) -> str:
    lines = [
        r"\section{Claims}\label{sec:claims}",
        f"Each claim is decided by \\texttt{{dptheory check}} (seed {cfg.seed}, {cfg.claim_examples} examples "
        "per search) with one of five verdicts: \\emph{proved} (symbolically), \\emph{certified} (rigorous arb "
        "ball arithmetic over the stated region, by branch and bound), \\emph{exhaustive} (every point of a "
        "stated finite set, with rigorous error bounds), \\emph{not falsified} (a search found no "
        "counterexample: not a proof) or \\emph{falsified} (a counterexample, certified with arb where both "
        "sides have ball evaluators). A falsified claim is a finding. Claims that are ours (derived results, "
        "our notes) are labelled ``Our claim''.",
        "",
    ]
    lines += findings_map_table(claims, results, cfg)
    for c, res in zip(claims, results, strict=True):
        lines.append(rf"\subsection*{{\texttt{{{escape(c.key)}}}: {text_tex(c.title)}}}")
        lines.append(rf"\noindent\textbf{{{c.source_label}}} ({escape(c.citation.short())}): ``{escape(c.statement)}''")
        lines.append("")
        lines.append(rf"\noindent\textbf{{Reading.}} {escape(c.reading)}")
        lines.append("")
        unit = "box" if "arb balls" in res.method else "point"
        shown = res.examples_tried and "points" not in res.method
        tried = f", {plural(res.examples_tried, unit)} examined" if shown else ""
        lines.append(rf"\noindent\textbf{{Verdict: {escape(verdict_word(res))}}} ({escape(res.method)}{tried}).")
        lines.append("")
        lines += [escape(x) for x in res.sentences() if not x.startswith("Falsified:")] + [""]
        if res.counterexample:
            ce = res.counterexample
            note = _notation_of(c)
            pts = ", ".join(f"{param_tex(k, note)} $=$ {escape(v)}" for k, v in ce["params"].items())
            lines.append(
                rf"\noindent Counterexample: {pts}. There {escape(ce['lhs']['label'])} $=$ "
                rf"{escape(ce['lhs']['value'])} and {escape(ce['rhs']['label'])} $=$ "
                rf"{escape(ce['rhs']['value'])}, so ``{escape(ce['relation'])}'' fails."
            )
            lines.append("")
        if c.finding_text:
            lines.append(rf"\noindent\textbf{{Finding.}} {escape(c.finding_text)}")
            lines.append("")
    return "\n".join(lines) + "\n"


def build(
    cfg: ReportConfig,
    out: str | Path,
    *,
    compile_pdf: bool | None = None,
    progress: Callable[[str], None] | None = None,
) -> ReportResult:
    """Write ``out/report.tex`` (and figures, and ``report.pdf`` when pdflatex is available).

    Files are written whole or not at all, and together: everything is produced in a temporary
    folder first (pdflatex runs there, so its ``.aux``/``.log``/``.out`` files never reach ``out``),
    then moved into ``out`` as one :class:`~dptheory.core.io.AtomicGroup`. A failure at any step
    leaves ``out`` as it was, and removes ``out`` (and any parent folders) if this call created it.
    """
    from dptheory.core.io import temporary_folder
    from dptheory.core.latex import escape as esc

    out = Path(out)
    if out.exists() and not out.is_dir():
        raise DPTheoryError(f"cannot write the report to {out}: it exists and is not a folder")
    members = [x for prefix in (cfg.paper, *cfg.include) for x in REGISTRY.family(prefix)]
    thms = sorted([t for t in members if isinstance(t, Theorem)], key=lambda t: t.key)
    claims = sorted([c for c in members if isinstance(c, Claim)], key=lambda c: (c.key.split(".")[0], _claim_sort(c)))
    if not thms and not claims:
        raise DPTheoryError(f"no theorems or claims registered under {cfg.paper!r}")
    known = {t.key for t in thms}
    for name, keys in (("headline", cfg.headline), ("full_batch", cfg.full_batch)):
        bad = [k for k in keys if k not in known]
        if bad:
            raise DPTheoryError(f"{cfg.source}: [report] {name} names {', '.join(bad)}, not a theorem of this report; "
                                f"accepted: {', '.join(sorted(known))}")
    check_param_names(cfg)  # a ReportConfig built in Python gets the same check as a parameter file
    result = ReportResult(tex=out / "report.tex", pdf=None)
    with temporary_folder("dptheory-report-") as tmp:
        stage = Path(tmp) / "stage"
        stage.mkdir()
        staged: list[str] = []  # file names in stage, in the order they are committed
        results = _check_claims(claims, cfg, progress) if cfg.claims and claims else []
        parts = [_preamble(cfg)]
        parts.append(_summary_section(thms, claims if results else [], results, cfg))
        parts.append(_provenance(cfg, report_command(cfg, out)))
        parts.append(_sets_section(cfg))
        parts.append(r"\section{Theorems}" + "\n")
        for thm in thms:
            if progress is not None:
                progress(thm.key)
            parts.append(_theorem_section(thm, cfg))
        if cfg.sets:
            parts.append(_values_section(thms, cfg))
        parts.append(_crossover_section(cfg))
        if results:
            parts.append(_claims_section(claims, results, cfg))
        if cfg.figures:
            parts.append(r"\section{Figures}" + "\n")
            for name in cfg.figures:
                fn = REGISTRY.figure(name).make
                notes = fn(str(stage / f"{name}.pdf"), csv_path=str(stage / f"{name}.csv"))
                staged += [n for n in (f"{name}.pdf", f"{name}.csv") if (stage / n).exists()]
                result.figures.append(out / f"{name}.pdf")
                parts.append(
                    "\\begin{figure}[h]\n\\centering\n"
                    f"\\includegraphics[width=\\linewidth]{{{name}.pdf}}\n"
                    f"\\caption{{{esc(name)}: reproduced from the encoded theorems. {esc(' '.join(notes))}}}\n"
                    "\\end{figure}\n"
                )
        parts.append("\\end{document}\n")
        (stage / "report.tex").write_text(unicode_fallbacks("\n".join(p for p in parts if p)), encoding="utf-8")
        staged.insert(0, "report.tex")
        if compile_pdf is None:
            compile_pdf = shutil.which("pdflatex") is not None
        if compile_pdf:
            texdir = Path(tmp) / "tex"  # pdflatex's auxiliary files stay here
            texdir.mkdir()
            for n in staged:
                shutil.copyfile(stage / n, texdir / n)
            pdf = compile_tex(texdir / "report.tex")
            shutil.copyfile(pdf, stage / "report.pdf")
            meta = {"pages": pdf_pages(texdir / "report.tex"), "sections": aux_sections(texdir / "report.tex")}
            (stage / "report.json").write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")
            staged += ["report.pdf", "report.json"]
            result.pdf = out / "report.pdf"
        else:
            why = "--no-pdf" if shutil.which("pdflatex") else "pdflatex is not installed"
            result.notes.append(f"{why}: wrote report.tex only")
            if (out / "report.pdf").exists():
                result.notes.append(f"{out / 'report.pdf'} is from an earlier run (not rebuilt)")
        _commit(stage, staged, out)
    return result


_FALLBACK_MACROS = r"""% characters LaTeX cannot set (non-Latin scripts in a folder name, a title, a set name)
% are shown as their code point instead of stopping pdflatex; the characters it can set are left alone
\newcommand{\dptuchar}[1]{\texttt{[U+#1]}}
\makeatletter
\newcommand{\dptfallback}[2]{\@ifundefined{u8:\detokenize{#1}}{\DeclareUnicodeCharacter{#2}{\dptuchar{#2}}}{}}
\makeatother
"""


def unicode_fallbacks(tex: str) -> str:
    """``tex`` with a fallback for every non-ASCII character it contains, declared before ``\\begin{document}``:
    pdflatex (utf8 input, T1 fonts) stops with "Unicode character ... not set up for use with LaTeX" on a
    character it has no glyph for (CJK, Cyrillic, Greek text; some Latin letters such as U+0126), and user text
    reaches the report (the ``--out`` folder in the regeneration command, the title, set names, file names). Each
    such character becomes ``[U+XXXX]`` in the PDF (the ``.tex`` keeps it as written); characters LaTeX defines
    keep their own glyph (the test is made by LaTeX: ``\\DeclareUnicodeCharacter`` only where ``utf8.def``
    has no definition). A document of ASCII only is returned unchanged."""
    chars = sorted({ch for ch in tex if ord(ch) > 0x7F})
    marker = "\\begin{document}"
    if not chars or marker not in tex:
        return tex
    decl = _FALLBACK_MACROS + "".join(f"\\dptfallback{{{ch}}}{{{ord(ch):04X}}}\n" for ch in chars)
    head, tail = tex.split(marker, 1)
    return head + decl + marker + tail


def _commit(stage: Path, names: list[str], out: Path) -> None:
    """Move the staged files into ``out`` together (AtomicGroup); undo the folders created if it fails."""
    from dptheory.core.io import AtomicGroup

    created: list[Path] = []
    p = out
    while not p.exists():
        created.append(p)
        p = p.parent
    try:
        out.mkdir(parents=True, exist_ok=True)
        with AtomicGroup() as group:
            for n in names:
                shutil.copyfile(stage / n, group.path(out / n))
    except BaseException:
        for d in created:  # deepest first
            try:
                d.rmdir()
            except OSError:
                break
        raise


def pdf_pages(tex: Path) -> int:
    """Page count from pdflatex's log ("Output written on report.pdf (N pages, ...)")."""
    m = re.search(r"Output written on .*?\((\d+) pages?", tex.with_suffix(".log").read_text(errors="replace"))
    if not m:
        raise ReportCompileError(f"no page count in {tex.with_suffix('.log')}")
    return int(m.group(1))


def aux_sections(tex: Path) -> list[list[Any]]:
    """[title, page] of every numbered section, from the .aux file written by pdflatex."""
    out = []
    for line in tex.with_suffix(".aux").read_text(errors="replace").splitlines():
        m = re.match(
            r"\\@writefile\{toc\}\{\\contentsline \{section\}\{\\numberline \{\d+\}(.*)\}\{(\d+)\}\{section", line
        )
        if m:
            out.append([m.group(1), int(m.group(2))])
    return out


def _notation_of(c: Claim) -> Any:
    refs = [r for side in c.sides() for r in side.theorem_refs()]
    thm = refs[0].thm() if refs else None
    return thm.notation if thm is not None else c.notation


def _family_notation(cfg: ReportConfig) -> Any:
    thms = [t for prefix in (cfg.paper, *cfg.include) for t in REGISTRY.family(prefix) if isinstance(t, Theorem)]
    return thms[0].notation if thms else None


def _claim_sort(c: Claim) -> tuple[int, str]:
    tail = c.key.split(".")[-1]
    digits = "".join(ch for ch in tail if ch.isdigit())
    return (int(digits) if digits else 0, tail)


def _preamble(cfg: ReportConfig) -> str:
    return "\n".join(
        [
            r"\documentclass[10pt]{article}",
            r"\usepackage[T1]{fontenc}",
            r"\usepackage{lmodern}",
            r"\usepackage{amsmath,amssymb}",
            r"\usepackage{graphicx}",
            r"\usepackage{longtable,array}",
            r"\usepackage[margin=2cm]{geometry}",
            r"\usepackage[hidelinks]{hyperref}",
            r"\setlength{\parindent}{0pt}",
            # a displayed formula at its natural size, scaled down to the text width only if it is wider
            r"\newsavebox{\dptbox}",
            r"\newcommand{\dptfit}[1]{\sbox{\dptbox}{$\displaystyle #1$}\ifdim\wd\dptbox>\linewidth"
            r"\typeout{dptheory: formula scaled to the text width}\resizebox{\linewidth}{!}{\usebox{\dptbox}}"
            r"\else\usebox{\dptbox}\fi}",
            rf"\title{{{escape(cfg.title)}}}",
            r"\author{generated by dptheory}",
            r"\date{}",
            r"\begin{document}",
            r"\maketitle",
            "",
        ]
    )


def report_command(cfg: ReportConfig, out: Path) -> str:
    """The command line that regenerates this report: ``cfg.command`` (set by ``dptheory report``), else the
    command for the paper's own settings or the parameter file, writing to ``out`` (relative to the current folder
    when inside it)."""
    import shlex

    if cfg.command:
        return cfg.command
    try:
        shown = out.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        shown = out
    if cfg.source in (f"{cfg.paper}.toml", "no defaults for this paper"):  # config.defaults(paper)
        how = f"--paper {shlex.quote(cfg.paper)}"
    else:
        how = f"--params {shlex.quote(cfg.source)}"
    return f"dptheory report {how} --out {shlex.quote(str(shown))}"


def _provenance(cfg: ReportConfig, command: str) -> str:
    rows = " \\\\\n".join(f"{escape(k)} & {escape(v)}" for k, v in _versions())
    return (
        r"\section*{Provenance}" + "\n"
        f"Configuration: {escape(cfg.source)}; registry prefixes "
        f"\\texttt{{{escape(', '.join((cfg.paper, *cfg.include)))}}}; values at "
        f"{cfg.dps} digits; claim searches with seed {cfg.seed} and {cfg.claim_examples} examples. Units are nats "
        "unless stated. Regenerate this report with\n\n"
        "\\begin{center}\\texttt{" + escape(command) + "}\\end{center}\n\n"
        "\\begin{tabular}{ll}\n\\hline\n" + rows + " \\\\\n\\hline\n\\end{tabular}\n"
    )


def _sets_section(cfg: ReportConfig) -> str:
    if not cfg.sets:
        return ""
    lines = [r"\section{Parameter sets}\label{sec:sets}", r"\begin{longtable}{rp{14cm}}", r"\hline",
             r"set & parameters \\", r"\hline"]
    note = _family_notation(cfg)
    for i, s in enumerate(cfg.sets):
        params = ", ".join(f"{param_tex(k, note)} $=$ {escape(str(v))}" for k, v in s.params.items())
        lines.append(f"{i + 1} & \\textbf{{{text_tex(s.name)}}}: {params}" + r" \\")
    lines += [r"\hline", r"\end{longtable}", ""]
    return "\n".join(lines) + "\n"


def compile_tex(tex: Path) -> Path:
    """Run pdflatex twice (reproducible dates); on failure raise with the log's relevant lines."""
    exe = shutil.which("pdflatex")
    if exe is None:
        raise ReportCompileError("pdflatex is not installed (Debian: apt-get install texlive-latex-base)")
    env = {**os.environ, "SOURCE_DATE_EPOCH": "0", "FORCE_SOURCE_DATE": "1"}
    for _ in range(2):
        proc = subprocess.run(
            [exe, "-interaction=nonstopmode", "-halt-on-error", tex.name],
            cwd=tex.parent,
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
        )
        if proc.returncode != 0:
            raise ReportCompileError(_log_excerpt(tex))
    return tex.with_suffix(".pdf")


def _log_excerpt(tex: Path) -> str:
    log = tex.with_suffix(".log")
    text = log.read_text(errors="replace") if log.exists() else ""
    lines = text.splitlines()
    out = [f"pdflatex failed on the report's {tex.name} (compiled in a temporary folder; nothing was written)"]
    src = tex.read_text().splitlines()
    for i, line in enumerate(lines):
        if line.startswith("!"):
            out.extend(lines[i : i + 6])
            m = next((re.match(r"l\.(\d+)", x) for x in lines[i : i + 12] if re.match(r"l\.(\d+)", x)), None)
            if m:
                n = int(m.group(1))
                out.append(f"source lines {max(1, n - 2)}-{n + 1} of {tex.name}:")
                out.extend(f"  {k}: {src[k - 1]}" for k in range(max(1, n - 2), min(len(src), n + 1) + 1))
            break
    if len(out) == 1:
        out.extend(lines[-20:])
    return "\n".join(out)
