"""LaTeX reports: escaping, determinism, staleness of the committed reports, compilation to PDF."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from dptheory.cli import main
from dptheory.core.errors import DPTheoryError
from dptheory.core.latex import escape
from dptheory.report import ReportCompileError, build, compile_tex, defaults
from dptheory.report.config import ReportConfig, from_dict, load, papers_with_defaults

ROOT = Path(__file__).resolve().parents[1]
HAVE_TEX = shutil.which("pdflatex") is not None
NEED_TEX = pytest.mark.skipif(not HAVE_TEX and not os.environ.get("CI"),
                              reason="pdflatex not installed (CI installs texlive-latex-base and runs this)")

SMALL = {
    "report": {"paper": "yeshokri22", "title": "T&st_#1 50% {x} ~y^z --paper ''q''", "claims": False, "digits": 8},
    "sets": [{"name": "a_b & c", "params": {"alpha": 10, "eta": "0.02", "lam": 1, "beta": 4, "S_g": 4, "sigma": 2,
                                            "n": 50, "b": 2, "K": 5, "j0": 0}},
             {"name": "violated", "params": {"alpha": 10, "eta": "0.5", "lam": 1, "beta": 4, "S_g": 4, "sigma": 2,
                                             "n": 50, "b": 2, "K": 5, "j0": 0}}],
    "crossovers": [{"lower": "yeshokri22.thm4_2", "upper": "yeshokri22.composition", "over": "K", "from": 1,
                    "to": 100, "params": {"alpha": 10, "eta": "0.02", "lam": 1, "beta": 4, "S_g": 4, "sigma": 2,
                                          "n": 50, "b": 2}}],
}


def test_escape():
    assert escape("a_b & 50% #1 $x$ {y} ~ ^ \\") == (r"a\_b \& 50\% \#1 \$x\$ \{y\} \textasciitilde{} "
                                                   r"\textasciicircum{} \textbackslash{}")
    assert escape("--x ''") == "-{}-x '{}'"


def test_config_validation(tmp_path):
    with pytest.raises(DPTheoryError, match="paper"):
        from_dict({"report": {}}, source="x.toml")
    with pytest.raises(DPTheoryError, match="unknown key"):
        from_dict({"report": {"paper": "p", "colour": 1}}, source="x.toml")
    with pytest.raises(DPTheoryError, match="crossovers"):
        from_dict({"report": {"paper": "p"}, "crossovers": [{"lower": "a"}]}, source="x.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[report\n")
    with pytest.raises(DPTheoryError, match="not valid TOML"):
        load(bad)
    cfg = load(ROOT / "reports" / "example_params.toml")
    assert cfg.paper == "yeshokri22" and len(cfg.sets) == 2 and cfg.crossovers[0].stop == 2000
    assert "yeshokri22" in papers_with_defaults()


def test_small_report_is_deterministic_and_escaped(tmp_path):
    cfg = from_dict(SMALL, source="small")
    a = build(cfg, tmp_path / "a", compile_pdf=False)
    b = build(cfg, tmp_path / "b", compile_pdf=False)
    ta, tb = a.tex.read_text(), b.tex.read_text()
    assert ta == tb
    assert r"T\&st\_\#1 50\% \{x\} \textasciitilde{}y\textasciicircum{}z -{}-paper '{}'q'{}'" in ta
    assert r"\section{Bound values}" in ta and r"\section{Crossovers}" in ta
    assert r"\textbf{violated}" in ta and r"$^{\dagger}$" in ta  # set 2 violates eta < 2/(beta+lam)
    assert r"\varepsilon_{0}" in ta  # statements typeset in the paper's notation


@NEED_TEX
def test_small_report_compiles(tmp_path):
    cfg = from_dict(SMALL, source="small")
    res = build(cfg, tmp_path, compile_pdf=True)
    meta = json.loads((tmp_path / "report.json").read_text())
    assert res.pdf is not None and res.pdf.stat().st_size > 10_000
    assert meta["pages"] >= 5
    assert [s[0] for s in meta["sections"]] == ["Parameter sets", "Theorems", "Bound values", "Crossovers"]


@NEED_TEX
def test_compile_error_shows_the_log_and_source(tmp_path):
    tex = tmp_path / "broken.tex"
    tex.write_text("\\documentclass{article}\n\\begin{document}\nfine line\n\\undefinedmacro{x}\n\\end{document}\n")
    with pytest.raises(ReportCompileError) as ei:
        compile_tex(tex)
    msg = str(ei.value)
    assert "Undefined control sequence" in msg and "\\undefinedmacro" in msg and "4:" in msg


PAPERS = papers_with_defaults()


@pytest.mark.parametrize("paper", PAPERS)
def test_committed_report_is_current(paper, tmp_path):
    """Regenerate the committed example report; report.tex and the figures' data must be identical."""
    committed = ROOT / "reports" / paper
    assert (committed / "report.tex").exists(), f"no committed report for {paper}: run dptheory report"
    res = build(defaults(paper), tmp_path, compile_pdf=False)
    assert res.tex.read_text() == (committed / "report.tex").read_text(), (
        f"reports/{paper}/report.tex is stale: run `dptheory report --paper {paper} --out reports/{paper}`")
    for csv in sorted(tmp_path.glob("*.csv")):
        assert csv.read_bytes() == (committed / csv.name).read_bytes(), f"reports/{paper}/{csv.name} is stale"


@NEED_TEX
def test_committed_report_compiles_to_the_expected_pages(tmp_path):
    """Compile the committed yeshokri22 report and compare pages and section placement with report.json."""
    committed = ROOT / "reports" / "yeshokri22"
    for f in committed.iterdir():
        if f.suffix in (".tex", ".pdf") and f.name != "report.pdf":
            shutil.copy(f, tmp_path / f.name)
    compile_tex(tmp_path / "report.tex")
    from dptheory.report.build import aux_sections, pdf_pages

    expected = json.loads((committed / "report.json").read_text())
    assert pdf_pages(tmp_path / "report.tex") == expected["pages"]
    assert aux_sections(tmp_path / "report.tex") == expected["sections"]


def test_cli_report(tmp_path, capsys):
    params = tmp_path / "p.toml"
    params.write_text('[report]\npaper = "yeshokri22"\nclaims = false\n\n[[sets]]\nname = "s"\n'
                      'params = { alpha = 10, eta = "0.02", lam = 1, beta = 4, S_g = 4, sigma = 2, n = 50, b = 2, '
                      'K = 3 }\n')
    assert main(["report", "--params", str(params), "--out", str(tmp_path / "r"), "--no-pdf", "--no-progress"]) == 0
    assert (tmp_path / "r" / "report.tex").exists()
    assert main(["report", "--out", str(tmp_path / "x")]) == 1
    assert "give --paper" in capsys.readouterr().err


def test_report_config_defaults_are_the_papers_settings():
    cfg = defaults("yeshokri22")
    assert isinstance(cfg, ReportConfig) and cfg.sets and cfg.figures
    fig = cfg.sets[0].params
    assert (fig["eta"], fig["sigma"], fig["n"], fig["b"]) == ("0.02", 2, 50, 2)
