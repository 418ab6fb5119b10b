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
from dptheory.report.config import ReportConfig

LONG_FORMULA = 160  # characters of LaTeX above which a display is scaled to the text width


class ReportCompileError(DPTheoryError):
    """pdflatex failed; the message shows the relevant lines of the LaTeX log and the source."""


@dataclass
class ReportResult:
    tex: Path
    pdf: Path | None
    figures: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _versions() -> list[tuple[str, str]]:
    import matplotlib
    import numpy
    import scipy
    import sympy

    from dptheory import __version__

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


def _display(tex: str) -> str:
    body = rf"\displaystyle {tex}"
    if len(tex) > LONG_FORMULA:
        return "\\[\n\\resizebox{\\linewidth}{!}{$" + body + "$}\n\\]\n"
    return "\\[\n" + tex + "\n\\]\n"


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


def _theorem_section(thm: Theorem, cfg: ReportConfig) -> str:
    names = thm.symbol_names()
    lines = [
        rf"\subsection{{\texttt{{{escape(thm.key)}}}: {escape(thm.title)}}}",
        rf"\noindent\textbf{{Source.}} {escape(thm.citation.short())}.",
    ]
    if thm.citation.note:
        lines.append(rf" {escape(thm.citation.note)}.")
    lines.append("")
    lines.append(rf"\noindent\textbf{{Bounds}} {escape(thm.quantity)} ({thm.direction} bound, {thm.unit}).")
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
            + "; ".join(escape(a) for a in thm.assumptions)
            + "."
        )
        lines.append("")
    # conditions table: one status column per parameter set
    sets = cfg.sets
    cols = "l" + "c" * len(sets)
    lines.append(r"\noindent\textbf{Conditions} and their status at the parameter sets:")
    lines.append("\\begin{longtable}{" + cols + "}")
    lines.append("\\hline")
    lines.append("condition" + "".join(f" & {i + 1}" for i in range(len(sets))) + r" \\")
    lines.append("\\hline")
    statuses = [_status_cell(thm, _params_for(thm, s.params)) for s in sets]
    for i, c in enumerate(thm.all_conditions):
        if c.kind == "domain":
            continue
        row = f"${c.render_latex(names)}$"
        for st in statuses:
            row += f" & {st[i]}"
        lines.append(row + r" \\")
    lines.append("\\hline")
    lines.append("\\end{longtable}")
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


def _values_section(thms: list[Theorem], cfg: ReportConfig) -> str:
    lines = [
        r"\section{Bound values}",
        f"Each value is evaluated with mpmath at {cfg.dps} significant digits and shown to {cfg.digits}; "
        "n/a: the set does not give every parameter of the theorem; a violated condition is marked.",
        "",
        "\\begin{longtable}{l" + "r" * len(cfg.sets) + "}",
        "\\hline",
        "theorem" + "".join(f" & {i + 1}" for i in range(len(cfg.sets))) + r" \\",
        "\\hline",
    ]
    for thm in thms:
        label = thm.key if cfg.include else thm.key.split(".", 1)[1]
        row = rf"\texttt{{{escape(label)}}}"
        for s in cfg.sets:
            p = _params_for(thm, s.params)
            if p is None:
                row += " & n/a"
                continue
            try:
                v = thm.evaluate(p, dps=cfg.dps, check=False)
            except DPTheoryError:
                row += " & undefined"
                continue
            cell = _num(v.value, cfg.digits)
            if v.violated:
                cell += r"$^{\dagger}$"
            row += f" & {cell}"
        lines.append(row + r" \\")
    lines += [
        "\\hline",
        "\\end{longtable}",
        r"\noindent$^{\dagger}$ a condition of the theorem is violated at this set: the number is not a "
        "guarantee.",
        "",
    ]
    return "\n".join(lines) + "\n"


def _crossover_section(cfg: ReportConfig) -> str:
    from dptheory.core.sweep import crossover

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
        label = escape(c.label) if c.label else rf"\texttt{{{escape(c.lower)}}} $<$ \texttt{{{escape(c.upper)}}}"
        lines.append(
            f"{label} & ${escape(c.over)}$ & {escape(str(c.start))}--{escape(str(c.stop))} & {val} & "
            f"{res.changes}" + r" \\"
        )
    lines += [r"\hline", r"\end{longtable}", ""]
    return "\n".join(lines) + "\n"


def _claims_section(claims: list[Claim], cfg: ReportConfig, progress: Callable[[str], None] | None) -> str:
    from dptheory.verify.checking import check_claim

    lines = [
        r"\section{Claims}",
        f"Each claim is decided by \\texttt{{dptheory check}} (seed {cfg.seed}, {cfg.claim_examples} examples "
        "per search) with one of five verdicts: \\emph{proved} (symbolically), \\emph{certified} (rigorous arb "
        "ball arithmetic over the stated region, by branch and bound), \\emph{exhaustive} (every point of a "
        "stated finite set, with rigorous error bounds), \\emph{not falsified} (a search found no "
        "counterexample: not a proof) or \\emph{falsified} (a counterexample, certified with arb where both "
        "sides have ball evaluators). A falsified claim is a finding. Claims that are ours (derived results, "
        "our notes) are labelled ``Our claim''.",
        "",
    ]
    for c in claims:
        if progress is not None:
            progress(c.key)
        res = check_claim(c, examples=cfg.claim_examples, seed=cfg.seed, dps=max(cfg.dps, 50))
        lines.append(rf"\subsection*{{\texttt{{{escape(c.key)}}}: {escape(c.title)}}}")
        lines.append(rf"\noindent\textbf{{{c.source_label}}} ({escape(c.citation.short())}): ``{escape(c.statement)}''")
        lines.append("")
        lines.append(rf"\noindent\textbf{{Reading.}} {escape(c.reading)}")
        lines.append("")
        tried = f", {res.examples_tried} points" if res.examples_tried and "points" not in res.method else ""
        lines.append(rf"\noindent\textbf{{Verdict: {res.verdict.value}}} ({escape(res.method)}{tried}).")
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
        if c.finding:
            lines.append(rf"\noindent\textbf{{Finding.}} {escape(c.finding)}")
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
    import tempfile

    from dptheory.core.latex import escape as esc

    out = Path(out)
    if out.exists() and not out.is_dir():
        raise DPTheoryError(f"cannot write the report to {out}: it exists and is not a folder")
    members = [x for prefix in (cfg.paper, *cfg.include) for x in REGISTRY.family(prefix)]
    thms = sorted([t for t in members if isinstance(t, Theorem)], key=lambda t: t.key)
    claims = sorted([c for c in members if isinstance(c, Claim)], key=lambda c: (c.key.split(".")[0], _claim_sort(c)))
    if not thms and not claims:
        raise DPTheoryError(f"no theorems or claims registered under {cfg.paper!r}")
    result = ReportResult(tex=out / "report.tex", pdf=None)
    with tempfile.TemporaryDirectory(prefix="dptheory-report-") as tmp:
        stage = Path(tmp) / "stage"
        stage.mkdir()
        staged: list[str] = []  # file names in stage, in the order they are committed
        parts = [_preamble(cfg)]
        parts.append(_provenance(cfg))
        parts.append(_sets_section(cfg))
        parts.append(r"\section{Theorems}" + "\n")
        for thm in thms:
            if progress is not None:
                progress(thm.key)
            parts.append(_theorem_section(thm, cfg))
        if cfg.sets:
            parts.append(_values_section(thms, cfg))
        parts.append(_crossover_section(cfg))
        if cfg.claims and claims:
            parts.append(_claims_section(claims, cfg, progress))
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
        (stage / "report.tex").write_text("\n".join(p for p in parts if p))
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
            result.notes.append("pdflatex not found (or --no-pdf): wrote report.tex only")
            if (out / "report.pdf").exists():
                result.notes.append(f"{out / 'report.pdf'} is from an earlier run (not rebuilt)")
        _commit(stage, staged, out)
    return result


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
    return refs[0].thm().notation if refs else c.notation


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
            rf"\title{{{escape(cfg.title)}}}",
            r"\author{generated by dptheory}",
            r"\date{}",
            r"\begin{document}",
            r"\maketitle",
            "",
        ]
    )


def _provenance(cfg: ReportConfig) -> str:
    rows = " \\\\\n".join(f"{escape(k)} & {escape(v)}" for k, v in _versions())
    return (
        r"\section*{Provenance}" + "\n"
        f"Configuration: {escape(cfg.source)}; registry prefixes "
        f"\\texttt{{{escape(', '.join((cfg.paper, *cfg.include)))}}}; values at "
        f"{cfg.dps} digits; claim searches with seed {cfg.seed} and {cfg.claim_examples} examples. Units are nats "
        "unless stated. Regenerate with \\texttt{dptheory report --paper " + escape(cfg.paper) + "}.\n\n"
        "\\begin{tabular}{ll}\n\\hline\n" + rows + " \\\\\n\\hline\n\\end{tabular}\n"
    )


def _sets_section(cfg: ReportConfig) -> str:
    if not cfg.sets:
        return ""
    lines = [r"\section{Parameter sets}", r"\begin{longtable}{rp{14cm}}", r"\hline", r"set & parameters \\", r"\hline"]
    note = _family_notation(cfg)
    for i, s in enumerate(cfg.sets):
        params = ", ".join(f"{param_tex(k, note)} $=$ {escape(str(v))}" for k, v in s.params.items())
        lines.append(f"{i + 1} & \\textbf{{{escape(s.name)}}}: {params}" + r" \\")
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
    out = [f"pdflatex failed on {tex}"]
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
