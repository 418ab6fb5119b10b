"""The command line, in-process (``main(argv) -> exit code``)."""

from __future__ import annotations

import csv
import json

import mpmath
import pytest

import dptheory
from dptheory.cli import main

FIG = ["eta=0.02", "lam=1", "beta=4", "S_g=4", "sigma=2", "n=50", "b=2"]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_list_and_show(capsys):
    code, out, _ = run(capsys, "list")
    assert code == 0 and "yeshokri22.thm4_2" in out and "[upper]" in out
    code, out, _ = run(capsys, "list", "--claims", "--json")
    rows = json.loads(out)
    assert code == 0 and any(r["key"] == "yeshokri22.C7" for r in rows)
    code, out, _ = run(capsys, "show", "yeshokri22.thm4_3")
    assert code == 0 and "Theorem 4.3" in out and "finite iff" in out
    code, out, _ = run(capsys, "show", "yeshokri22.thm4_2", "--latex")
    assert code == 0 and r"\varepsilon_{0}" in out
    code, out, _ = run(capsys, "show", "yeshokri22.C7")
    assert code == 0 and "finding" in out and "alpha=20" in out


def test_eval_json_structure(capsys):
    code, out, _ = run(capsys, "eval", "yeshokri22.thm4_2", "alpha=10", "K=50", *FIG, "--dps", "30", "--json")
    assert code == 0
    d = json.loads(out)
    assert set(d) >= {"key", "params", "value", "unit", "direction", "dps", "conditions"}
    assert d["key"] == "yeshokri22.thm4_2" and d["unit"] == "nats" and d["direction"] == "upper" and d["dps"] == 30
    assert d["params"]["eta"] == "0.02"
    digits = d["value"].replace("0.", "", 1).lstrip("0")
    assert len(digits) == 30  # the requested number of significant digits
    ref = (
        dptheory.get("yeshokri22.thm4_2")
        .evaluate(alpha=10, K=50, eta="0.02", lam=1, beta=4, S_g=4, sigma=2, n=50, b=2, dps=40)
        .value
    )
    with mpmath.workdps(40):
        assert abs(mpmath.mpf(d["value"]) - ref) <= ref * mpmath.mpf(10) ** -29
    for c in d["conditions"]:
        assert set(c) >= {"text", "status", "lhs", "rhs"}


def test_eval_violation_exits_nonzero_and_no_check_lists_it(capsys):
    code, out, err = run(
        capsys,
        "eval",
        "yeshokri22.thm4_2",
        "alpha=10",
        "K=5",
        "eta=0.5",
        "lam=1",
        "beta=4",
        "S_g=4",
        "sigma=2",
        "n=50",
        "b=2",
    )
    assert code == 1 and out == ""
    assert "eta < 2/(beta + lam)" in err and "eta = 0.5" in err and "Theorem 4.2" in err
    code, out, err = run(
        capsys,
        "eval",
        "yeshokri22.thm4_2",
        "alpha=10",
        "K=5",
        "eta=0.5",
        "lam=1",
        "beta=4",
        "S_g=4",
        "sigma=2",
        "n=50",
        "b=2",
        "--no-check",
        "--json",
    )
    assert code == 0
    d = json.loads(out)
    assert any(c["status"] == "violated" and c["text"] == "eta < 2/(beta + lam)" for c in d["conditions"])
    assert "violated" in err


@pytest.mark.parametrize(
    "arg, needle",
    [
        ("alpha=abc", "not a number"),
        ("alpha=nan", "NaN"),
        ("K=2.5", "integer"),
        ("alpha=1", "alpha > 1"),
        ("sigma=0", "sigma > 0"),
    ],
)
def test_eval_bad_inputs(capsys, arg, needle):
    args = {"alpha": "10", "K": "5", **dict(a.split("=") for a in FIG)}
    k, v = arg.split("=")
    args[k] = v
    code, _out, err = run(capsys, "eval", "yeshokri22.thm4_2", *[f"{a}={b}" for a, b in args.items()])
    assert code == 1 and needle in err


def test_unknown_key_suggests(capsys):
    code, _, err = run(capsys, "eval", "yeshokri22.thm4_9", "alpha=2")
    assert code == 1 and "did you mean" in err


def test_sweep_csv_plot_compare(capsys, tmp_path):
    out_csv, out_png = tmp_path / "s.csv", tmp_path / "s.png"
    code, _, _ = run(
        capsys,
        "sweep",
        "yeshokri22.thm4_2",
        "K=1..20",
        "alpha=10,15",
        *FIG,
        "--compare",
        "yeshokri22.composition",
        "--csv",
        str(out_csv),
        "--plot",
        str(out_png),
    )
    assert code == 0
    rows = list(csv.DictReader(out_csv.open()))
    assert len(rows) == 40 and {"K", "alpha", "yeshokri22.thm4_2", "yeshokri22.composition"} <= set(rows[0])
    r = next(x for x in rows if float(x["K"]) == 7 and float(x["alpha"]) == 15)
    ref = (
        dptheory.get("yeshokri22.thm4_2")
        .evaluate(alpha=15, K=7, eta="0.02", lam=1, beta=4, S_g=4, sigma=2, n=50, b=2, dps=30)
        .value
    )
    assert abs(float(r["yeshokri22.thm4_2"]) - float(ref)) <= 1e-12 * float(ref)
    assert out_png.stat().st_size > 1000


def test_sweep_invalid_point_fails_or_skips(capsys):
    code, _, err = run(
        capsys,
        "sweep",
        "yeshokri22.thm4_2",
        "eta=0.1..0.5:5",
        "alpha=10",
        "K=3",
        "lam=1",
        "beta=4",
        "S_g=4",
        "sigma=2",
        "n=50",
        "b=2",
    )
    assert code == 1 and "eta < 2/(beta + lam)" in err
    code, out, err = run(
        capsys,
        "sweep",
        "yeshokri22.thm4_2",
        "eta=0.1..0.5:5",
        "alpha=10",
        "K=3",
        "lam=1",
        "beta=4",
        "S_g=4",
        "sigma=2",
        "n=50",
        "b=2",
        "--skip-invalid",
        "--json",
    )
    assert code == 0 and "skipped" in err
    vals = [r["yeshokri22.thm4_2"] for r in json.loads(out)["rows"]]
    assert sum(v is not None for v in vals) == 3  # eta = 0.1, 0.2, 0.3 are below the limit 0.4
    assert "NaN" not in out


def test_crossover(capsys):
    code, out, _ = run(
        capsys,
        "crossover",
        "yeshokri22.thm3_3",
        "yeshokri22.balle_first",
        "--over",
        "K",
        "--to",
        "200",
        "alpha=10",
        "j0=0",
        *FIG,
        "--json",
    )
    assert code == 0
    d = json.loads(out)
    assert d["value"] == 7 and d["changes"] == 2 and not d["always_below"]


def test_check_json(capsys):
    code, out, _ = run(capsys, "check", "--claim", "yeshokri22.C9b", "yeshokri22.C10", "--json", "--no-progress")
    assert code == 0
    d = json.loads(out)
    assert [x["claim"] for x in d] == ["yeshokri22.C9b", "yeshokri22.C10"]
    assert d[0]["verdict"] == "falsified" and d[0]["counterexample"]["params"]
    assert {"lhs", "rhs"} <= set(d[0]["counterexample"])
    assert d[1]["verdict"] == "verified" and d[1]["counterexample"] is None
    assert all(isinstance(x["examples_tried"], int) for x in d)


def test_figure(capsys, tmp_path):
    out = tmp_path / "f1.png"
    code, _, _ = run(capsys, "figure", "yeshokri22-fig1", "--out", str(out), "--csv", str(tmp_path / "f1.csv"))
    assert code == 0 and out.stat().st_size > 10_000
    rows = list(csv.DictReader((tmp_path / "f1.csv").open()))
    assert len(rows) == 200
