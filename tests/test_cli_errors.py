"""The one error path of the command line and its file outputs (issue 12, items 1 and 3).

Every failure is one line on stderr with exit status 1 (bad value, violated condition), 2 (malformed command
line) or 130 (interrupted); a traceback only with ``--debug``. Files a command writes appear together or
not at all: a failure (or Ctrl-C) after some of them were produced leaves none of them, and an existing file
of the same name is left as it was.
"""

from __future__ import annotations

import pytest

from dptheory.cli import main

FIG = ["eta=0.02", "lam=1", "beta=4", "S_g=4", "sigma=2", "n=50", "b=2"]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> bool:
    return len(err.splitlines()) == 1 and err.startswith("dptheory: ") and "Traceback" not in err


# ----------------------------------------------------------------------------- exit status
@pytest.mark.parametrize("argv, code, needle", [
    # issue 12's measured tracebacks and silent answers, each now one line
    (["sweep", "yeshokri22.thm4_2", "K=1..10:0", "alpha=10", *FIG], 1, "step of an integer range"),
    (["sweep", "yeshokri22.thm4_2", "K=1..10:-1", "alpha=10", *FIG], 1, "step of an integer range"),
    (["sweep", "yeshokri22.thm4_2", "K=1..10:2.5", "alpha=10", *FIG], 1, "step of an integer range"),
    (["sweep", "yeshokri22.thm4_2", "K=1..1e12", "alpha=10", *FIG], 1, "at most 1000000"),
    (["sweep", "yeshokri22.thm4_2", "K=1..3", "alpha=10,,15", *FIG], 1, "empty item"),
    (["sweep", "yeshokri22.thm4_2", "K=1..3", "alpha=15..10", *FIG], 1, "range is empty"),
    (["crossover", "yeshokri22.thm4_3", "yeshokri22.composition", "--over", "Q", "alpha=20", *FIG], 1,
     "not a parameter"),
    (["crossover", "yeshokri22.thm4_3", "yeshokri22.composition", "--over", "K", "--from", "500", "--to", "10",
      "alpha=20", *FIG], 2, "must be below --to"),
    (["crossover", "yeshokri22.thm4_3", "yeshokri22.composition", "--over", "K", "--to", "1e12", "alpha=20", *FIG],
     2, "at most 1000000"),
    (["convert", "yeshokri22.thm4_2", "K=50", *FIG, "--delta", "1e-5", "--orders", "2,,3"], 2, "empty item"),
    (["convert", "yeshokri22.thm4_2", "K=50", *FIG, "--delta", "1e-5", "--orders", "2,x"], 2, "not a number"),
    (["convert", "yeshokri22.thm4_2", "K=50", *FIG, "--delta", "1e-5", "--orders", "1,2"], 2, "> 1"),
    (["convert", "yeshokri22.thm4_2", "K=50", *FIG, "--delta", "1e-5", "--orders", "nan"], 2, "NaN"),
    (["convert", "yeshokri22.thm4_2", "K=50", *FIG, "--delta", "1e-5", "--orders", "2..10"], 2, "ranges"),
    (["convert", "yeshokri22.thm4_2", "K=50", *FIG, "--delta", "1e-5", "--alpha-min", "50", "--alpha-max", "10"], 2,
     "below --alpha-max"),
    (["convert", "yeshokri22.thm4_2", "K=50", *FIG, "--delta", "1e-400"], 1, "below 1e-300"),
    (["convert", "yeshokri22.thm4_2", "K=50", *FIG, "--delta", "0"], 2, "> 0 and < 1"),
    (["check", "--claim", "yeshokri22.C7", "--examples", "0"], 2, "--examples"),
    (["check", "--claim", "yeshokri22.C7", "--dps", "5"], 2, "from 50 to 1000"),
    (["check", "--claim", "nope.*"], 1, "no claim matches"),
    (["eval", "yeshokri22.thm4_2", "alpha=10", "K=5", *FIG, "--term", "nope"], 1, "no term"),
    (["eval", "yeshokri22.thm4_2", "alpha=10", "K=5", *FIG, "--dps", "-5"], 2, "from 1 to 1000"),
    (["eval", "yeshokri22.thm4_2", "alpha=10", "K=5", *FIG, "--dps", "0"], 2, "from 1 to 1000"),
    (["eval", "yeshokri22.thm4_2", "alpha=10", "K=1" + "0" * 5000, *FIG], 1, "at most 4000 digits"),
    (["eval", "yeshokri22.thm4_2", "alpha=10", "K=5", "K=6", *FIG], 2, "given twice"),
    (["eval", "yeshokri22.thm4_2", "alpha=10", "K=", *FIG], 2, "no value"),
    (["eval", "yeshokri22.thm4_2", "alpha=10", "K=5", "oops", *FIG], 2, "expected name=value"),
    (["eval", "yeshokri22.C7"], 1, "is a claim"),
    (["nosuchcommand"], 2, "invalid choice"),
    (["eval"], 2, "required"),
    (["figure", "yeshokri22-fig1", "--out", "x.txt"], 2, "--out"),
    (["yeshokri22", "train", "eta=nan"], 2, "parameter eta"),
    (["yeshokri22", "audit", "exact", "K=1,,2"], 2, "parameter K"),
    (["yeshokri22", "audit", "exact", "--schemes", "fixed,nope"], 2, "--schemes"),
    (["maxinfo", "audit", "sigma=0..1"], 2, "parameter sigma"),
    (["pacbayes", "bound", "emp_risk=1.5", "n=10"], 2, "parameter emp_risk"),
    (["pacbayes", "bound", "--emp-risk", "0.1", "n=10"], 2, "use emp_risk=0.1"),
    (["pacbayes", "bound", "n=10", "--kl", "5"], 2, "use KL=5"),
    (["yeshokri22", "audit", "exact", "--K", "1,5"], 2, "use K=1,5"),
    (["yeshokri22", "train", "--S-g", "3"], 2, "use S_g=3"),
    (["maxinfo", "bounds", "n=10", "m=2"], 2, "missing parameter(s) sigma"),
    (["maxinfo", "bounds", "n=10", "m=2", "sigma=1", "eta=2"], 2, "unknown parameter 'eta'"),
    (["shi26", "privacy", "T=10"], 1, "missing"),
    (["compare", "yeshokri22.thm4_2", "alpha=10", "K=5", "eta=0.02", "lam=1", "beta=4", "S_g=0", "sigma=2", "n=50",
      "b=2", "--delta", "1e-5"], 1, "S_g > 0"),
    (["compare", "alpha=10"], 2, "at least one theorem key"),
    (["compare", "rdp.gaussian", "z=1", "T=1"], 2, "give alpha=A"),
    (["shi26", "sweep", "--param", "q"], 2, "--values"),
])
def test_one_line_error_and_exit_status(capsys, argv, code, needle):
    got, out, err = run(capsys, *argv)
    assert got == code, err
    assert out == "" and one_line(err) and needle in err, err


def test_report_toml_with_wrong_types(capsys, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[report]\npaper = "yeshokri22"\ntitle = "x"\ndigits = "many"\n')
    code, _, err = run(capsys, "report", "--params", str(bad), "--out", str(tmp_path / "r"), "--no-pdf")
    assert code == 1 and one_line(err) and "many" in err
    bad.write_text('[report]\npaper = "yeshokri22"\ntitle = "x"\n[[sets]]\nname = "s"\nparams = { alpha = "nan" }\n')
    code, _, err = run(capsys, "report", "--params", str(bad), "--out", str(tmp_path / "r"), "--no-pdf")
    assert code == 1 and one_line(err) and "alpha" in err
    assert not (tmp_path / "r").exists()


def test_unexpected_exception_is_one_line_and_debug_shows_the_traceback(capsys, monkeypatch):
    from dptheory.cli import commands

    def boom(args):
        raise ZeroDivisionError("x")

    monkeypatch.setattr(commands, "cmd_list", boom)
    code, _, err = run(capsys, "list")
    assert code == 1 and one_line(err) and "internal error" in err and "--debug" in err
    with pytest.raises(ZeroDivisionError):
        main(["--debug", "list"])
    with pytest.raises(ZeroDivisionError):
        main(["list", "--debug"])  # anywhere on the line


def test_help_and_version_exit_0(capsys):
    from dptheory import __version__

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"dptheory {__version__}"
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "compare" in out and "Exit status" in out
    assert main(["convert", "--help"]) == 0
    assert "(default: improved)" in capsys.readouterr().out


def test_every_option_of_every_command_has_help(capsys):
    """Issue 13.4: help text for every option of every command (and defaults shown)."""
    import argparse

    from dptheory.cli import build_parser

    missing = []

    def walk(p: argparse.ArgumentParser, path: str) -> None:
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                for name, sp in a.choices.items():
                    walk(sp, f"{path} {name}")
            elif a.option_strings and a.help is None:
                missing.append(f"{path} {a.option_strings[0]}")
            elif not a.option_strings and a.help is None and a.dest not in ("command",):
                missing.append(f"{path} {a.dest}")

    walk(build_parser(), "dptheory")
    assert not missing, missing


def test_train_and_audit_share_the_figure_step_size():
    from dptheory.cli import build_parser

    p = build_parser()
    etas = {cmd: p.parse_args(["yeshokri22", *cmd.split()]).eta for cmd in
            ("train", "audit exact", "audit empirical", "audit assumptions")}
    assert {float(v) for v in etas.values()} == {0.02}, etas


# ----------------------------------------------------------------------------- files: all or none
def _fail_plot(monkeypatch):
    """plot_sweep writes its file, then fails (the worst moment: one output complete, the other not)."""
    from dptheory.report import plotting

    def plot_sweep(results, names, path, *, logy=True):
        with open(path, "w") as fh:
            fh.write("partial")
        raise OSError("disk full (simulated)")

    monkeypatch.setattr(plotting, "plot_sweep", plot_sweep)


def test_sweep_failing_plot_leaves_no_csv_and_keeps_the_old_one(capsys, tmp_path, monkeypatch):
    _fail_plot(monkeypatch)
    old = tmp_path / "s.csv"
    old.write_text("old content\n")
    code, _, err = run(capsys, "sweep", "yeshokri22.thm4_2", "K=1..5", "alpha=10", *FIG, "--csv", str(old),
                       "--plot", str(tmp_path / "s.png"))
    assert code == 1 and one_line(err) and "disk full" in err
    assert old.read_text() == "old content\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.csv"]  # no PNG, no temporary file


def test_interrupt_exits_130_and_says_what_was_kept(capsys, tmp_path, monkeypatch):
    from dptheory.report import plotting

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(plotting, "plot_sweep", interrupted)
    code, _, err = run(capsys, "sweep", "yeshokri22.thm4_2", "K=1..5", "alpha=10", *FIG, "--csv",
                         str(tmp_path / "s.csv"), "--plot", str(tmp_path / "s.png"))
    assert code == 130 and one_line(err) and "interrupted" in err and "no output file was written" in err
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(KeyboardInterrupt):
        main(["--debug", "sweep", "yeshokri22.thm4_2", "K=1..5", "alpha=10", *FIG, "--plot", str(tmp_path / "s.png")])


def test_figure_with_a_bad_csv_writes_nothing(capsys, tmp_path):
    code, _, err = run(capsys, "figure", "yeshokri22-fig1", "--out", str(tmp_path / "f.png"), "--csv",
                       str(tmp_path / "missing" / "f.csv"))
    assert code == 2 and one_line(err) and "does not exist" in err
    assert list(tmp_path.iterdir()) == []


def test_figure_failing_after_the_png_leaves_nothing(capsys, tmp_path, monkeypatch):
    from dptheory.core.registry import REGISTRY, Figure

    def make(out, *, csv_path=None):
        with open(out, "w") as fh:
            fh.write("png")
        raise OSError("cannot write the CSV (simulated)")

    fig = REGISTRY.figure("yeshokri22-fig1")
    monkeypatch.setitem(REGISTRY._figures, fig.name, Figure(fig.name, fig.title, make, fig.paper))
    code, _, err = run(capsys, "figure", "yeshokri22-fig1", "--out", str(tmp_path / "f.png"), "--csv",
                       str(tmp_path / "f.csv"))
    assert code == 1 and one_line(err)
    assert list(tmp_path.iterdir()) == []


def test_train_bad_csv_leaves_no_json_or_iterates(capsys, tmp_path):
    code, _, err = run(capsys, "yeshokri22", "train", "--model", "quadratic", "n=10", "b=2", "K=1",
                       "--runs", "3", "--json", str(tmp_path / "r.json"), "--save-iterates", str(tmp_path / "t.npy"),
                       "--csv", str(tmp_path / "nope" / "r.csv"), "--no-progress")
    assert code == 2 and one_line(err) and "--csv" in err
    assert list(tmp_path.iterdir()) == []


def test_train_writes_json_csv_and_iterates_together(capsys, tmp_path):
    import json

    import numpy as np

    code, out, _ = run(capsys, "yeshokri22", "train", "--model", "quadratic", "n=10", "b=2", "K=1",
                       "--runs", "3", "--json", str(tmp_path / "r.json"), "--save-iterates", str(tmp_path / "t.npy"),
                       "--csv", str(tmp_path / "r.csv"), "--no-progress")
    assert code == 0 and "trained 3 models" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.csv", "r.json", "t.npy"]
    res = json.loads((tmp_path / "r.json").read_text())
    theta = np.load(tmp_path / "t.npy")
    assert res["iterates_file"] == str(tmp_path / "t.npy") and theta.shape == (3, 1)
    assert res["theta_mean"] == pytest.approx(theta.mean(axis=0).tolist(), rel=1e-15)
