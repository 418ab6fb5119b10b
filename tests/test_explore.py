"""The explorer's model layer (no browser): values, conditions, curves, crossovers, (eps, delta), strips.

Independent values: the 60-digit known values of tests/data/yeshokri22_known_values.csv (sympy
statement, own provenance), the Poisson-subsampled Gaussian RDP at an integer order written out here
(binomial expansion, Mironov, Talwar & Zhang 2019, arXiv 1908.10530, Sec. 3.3), the improved RDP ->
(eps, delta) conversion written out here (Balle et al. 2020, arXiv 1905.09982, Thm 21), and hand-derived
condition boundaries. The CLI (`dptheory eval`, `dptheory convert`) is run in-process for the digits.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
from pathlib import Path

import mpmath
import numpy as np
import pytest

import dptheory
from dptheory.cli import main
from dptheory.core.errors import DPTheoryError, InvalidParameter
from dptheory.explore.model import DEFAULT_KEYS, Explorer, build_controls

ROOT = Path(__file__).resolve().parents[1]
FIG2 = {"alpha": "10", "eta": "0.02", "lam": "1", "beta": "4", "S_g": "4", "sigma": "2", "n": "50", "b": "2",
        "K": "50"}


def known(key: str, params: dict) -> mpmath.mpf:
    with open(ROOT / "tests" / "data" / "yeshokri22_known_values.csv") as fh:
        for row in csv.DictReader(fh):
            if row["key"] == key and not row["term"] and {k: str(v) for k, v in json.loads(row["params"]).items()} \
                    == {k: str(v) for k, v in params.items()}:
                return mpmath.mpf(row["value"])
    raise LookupError(key)


def composition_int_order(alpha: int, K: int, n: int = 50, b: int = 2, eta="0.02", S_g=4, sigma=2) -> mpmath.mpf:
    """RDP of K epochs of the Poisson-subsampled Gaussian at an integer order (binomial expansion).

    q = b/n, noise multiplier z = sqrt(2 eta sigma^2) / (eta S_g / b), T = K n / b steps.
    """
    with mpmath.workdps(40):
        q = mpmath.mpf(b) / n
        eta_ = mpmath.mpf(eta)
        z = mpmath.sqrt(2 * eta_ * sigma**2) / (eta_ * S_g / b)
        a_sum = mpmath.fsum(mpmath.binomial(alpha, k) * (1 - q) ** (alpha - k) * q**k
                            * mpmath.exp((k * k - k) / (2 * z * z)) for k in range(alpha + 1))
        return K * (n // b) * mpmath.log(a_sum) / (alpha - 1)


def eval_cli(capsys, key: str, values: dict, *extra: str) -> str:
    thm = dptheory.get(key)
    argv = ["eval", key, *[f"{k}={v}" for k, v in values.items() if k in thm.params], "--dps", "12", *extra]
    assert main(argv) == 0
    first = capsys.readouterr().out.splitlines()[0]
    return first.split(" = ", 1)[1].split()[0]


# ----------------------------------------------------------------------------- controls and defaults
def test_default_is_figure2_comparison_with_one_control_per_parameter():
    e = Explorer()
    assert e.keys == DEFAULT_KEYS
    assert e.values == FIG2
    names = [c.name for c in e.controls]
    assert names == ["alpha", "eta", "lam", "beta", "S_g", "sigma", "n", "b", "K"]  # shared ones once
    assert e.control["alpha"].keys == DEFAULT_KEYS
    assert e.control["lam"].keys == ("yeshokri22.thm4_2", "yeshokri22.thm4_3")  # not taken by composition
    assert e.axis == "K" and (e.axis_lo, e.axis_hi) == ("1", "200")  # Figure 2's epoch range


def test_control_ranges_scales_and_options():
    c = Explorer().control
    # notation table: eta in [1e-4, 1] log; alpha in [1, 1e3] log; K integer, Thm 4.3 narrows it to [1, 120]
    assert (c["eta"].lo, c["eta"].hi, c["eta"].log, c["eta"].integer) == (1e-4, 1.0, True, False)
    assert (c["K"].lo, c["K"].hi, c["K"].integer, c["K"].log) == (1, 120, True, False)
    assert c["K"].options() == [str(i) for i in range(1, 121)]  # integers step by 1
    eta = c["eta"].options()
    assert eta[:3] == ["0.0001", "0.00011", "0.00012"] and eta[-1] == "1" and "0.02" in eta
    assert len(eta) == 4 * 90 + 1  # two significant digits, 90 per decade, log spaced
    ratios = np.diff(np.log10([float(x) for x in eta]))
    assert ratios.max() < 0.05 and ratios.min() > 0.004
    alpha = c["alpha"].options()
    assert alpha[:2] == ["1", "1.1"] and "10" in alpha and "11" in alpha and alpha[-1] == "1000"


def test_controls_of_theorems_without_shared_ranges():
    thms = [dptheory.get("yeshokri22.thm4_2")]
    (k,) = [c for c in build_controls(thms) if c.name == "K"]
    assert (k.lo, k.hi) == (1, 10_000)  # the notation table's range when no theorem narrows it


def test_set_validates_exactly():
    e = Explorer()
    assert e.set("eta", 0.05) == "0.05" and e.set("eta", "1/3") == "1/3"
    with pytest.raises(InvalidParameter, match=r"K = '2\.5' is invalid: must be a whole number"):
        e.set("K", "2.5")
    with pytest.raises(InvalidParameter, match="not a number"):
        e.set("alpha", "ten")
    with pytest.raises(DPTheoryError, match="no selected theorem takes 'j0'"):
        e.set("j0", 1)
    with pytest.raises(DPTheoryError, match="unknown key"):
        Explorer(["yeshokri22.nope"])
    with pytest.raises(DPTheoryError, match="is a claim, not a theorem"):
        Explorer(["yeshokri22.C7"])
    with pytest.raises(InvalidParameter, match="delta"):
        e.set_delta("2")
    with pytest.raises(DPTheoryError, match="plot range of K is empty"):
        e.set_axis("K", 50, 10)


# ----------------------------------------------------------------------------- readouts
def test_readout_is_eval_dps12_and_the_known_value(capsys):
    e = Explorer()
    fig = {k: int(v) if k not in ("eta",) else v for k, v in FIG2.items()}
    for r in e.readouts():
        assert r.valid and r.error is None
        assert r.value == eval_cli(capsys, r.key, FIG2)
        if r.key == "yeshokri22.composition":
            ref = composition_int_order(10, 50)
        else:
            ref = known(r.key, {k: v for k, v in fig.items() if k in dptheory.get(r.key).params})
        assert r.value == mpmath.nstr(ref, 12, strip_zeros=False)
    assert [c.text for c in e.readout("yeshokri22.thm4_2").conditions] == [
        "alpha > 1", "eta < 2/(beta + lam)", "lam <= beta", "n/b >= 2"]


def test_readout_keeps_trailing_zeros_like_eval(capsys):
    # at Figure 2 the approximate composition is exactly 1/10 (known value): eval prints 12 digits, zeros kept
    e = Explorer(["yeshokri22.composition_approx"])
    r = e.readout("yeshokri22.composition_approx")
    assert known(r.key, {k: int(v) if k != "eta" else v for k, v in FIG2.items()
                         if k in dptheory.get(r.key).params}) == mpmath.mpf("0.1")
    assert r.value == "0.100000000000" == eval_cli(capsys, r.key, FIG2)


def test_readout_after_moving_K_and_alpha(capsys):
    e = Explorer()
    e.set("K", 51)
    e.set("alpha", 11)
    for r in e.readouts():
        assert r.value == eval_cli(capsys, r.key, e.values)
    assert e.readout("yeshokri22.composition").value == mpmath.nstr(composition_int_order(11, 51), 12,
                                                                     strip_zeros=False)


def test_violated_condition_is_listed_not_raised(capsys):
    e = Explorer()
    e.set("eta", "0.5")  # eta < 2/(lam + beta) = 2/5 fails
    r = e.readout("yeshokri22.thm4_2")
    assert not r.valid and r.error is None
    (v,) = r.violated
    assert (v.text, v.lhs, v.rhs) == ("eta < 2/(beta + lam)", "0.5", "0.4")
    assert r.value == eval_cli(capsys, r.key, e.values, "--no-check")
    assert e.readout("yeshokri22.composition").valid  # no step-size condition there
    assert "--dps 12" in e.command(r.key) and "eta=0.5" in e.command(r.key)


def test_undefined_point_is_an_error_text():
    e = Explorer()
    e.set("b", 0)  # the mini-batch size must be at least 1: the formula is undefined
    r = e.readout("yeshokri22.thm4_2")
    assert r.value is None and not r.valid
    assert "b" in r.error and "at least 1" in r.error


# ----------------------------------------------------------------------------- curves and crossovers
def test_curves_agree_with_the_readouts_at_the_current_point():
    e = Explorer()
    cv = e.curves()
    i = int(np.flatnonzero(cv.x == 50)[0])
    for r in e.readouts():
        assert abs(cv.y[r.key][i] / float(r.value) - 1) < 1e-10  # float64 curve vs 12-digit value
    assert cv.invalid_spans() == []
    comp = [float(composition_int_order(10, k)) for k in (1, 2, 200)]
    got = cv.y["yeshokri22.composition"][[0, 1, 199]]
    assert np.allclose(got, comp, rtol=1e-10, atol=0)


def test_curves_mark_invalid_stretches():
    e = Explorer()
    e.set("eta", "0.5")
    cv = e.curves()
    assert np.isnan(cv.y["yeshokri22.thm4_2"]).all() and np.isfinite(cv.y["yeshokri22.composition"]).all()
    assert cv.invalid_spans() == [(1.0, 200.0, ("yeshokri22.thm4_2", "yeshokri22.thm4_3"))]
    # alpha > 1 fails only at alpha = 1 on the grid (the composition's float64 kernel refuses alpha = 1)
    e = Explorer(["yeshokri22.composition"])
    e.set_axis("alpha", 1, 2)
    cv = e.curves()
    assert list(cv.x) == [1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9, 2.0]
    assert cv.invalid_spans() == [(1.0, 1.0, ("yeshokri22.composition",))]
    assert np.isnan(cv.y["yeshokri22.composition"][0]) and np.isfinite(cv.y["yeshokri22.composition"][1:]).all()
    comp = dptheory.get("yeshokri22.composition")
    fixed = {k: v for k, v in FIG2.items() if k in comp.params and k != "alpha"}
    assert abs(cv.y["yeshokri22.composition"][-1] / float(composition_int_order(2, 50)) - 1) < 1e-10
    assert abs(cv.y["yeshokri22.composition"][5] / float(comp.evaluate({**fixed, "alpha": "1.5"}, dps=20).value)
               - 1) < 1e-10


def test_crossovers_match_brute_force():
    e = Explorer()
    e.set_axis("K", 1, 60)
    res = dict(e.crossovers())
    assert set(res) == {"yeshokri22.thm4_2", "yeshokri22.thm4_3"}
    # brute force: thm4_2 at every K at 30 digits against the binomial composition
    t42 = dptheory.get("yeshokri22.thm4_2")
    p42 = {k: v for k, v in FIG2.items() if k != "K"}
    below = [t42.evaluate({**p42, "K": k}, dps=30).value < composition_int_order(10, k) for k in range(1, 61)]
    last_not_below = max(k for k, b in zip(range(1, 61), below, strict=True) if not b)
    assert res["yeshokri22.thm4_2"].value == last_not_below + 1 == 8
    t43 = dptheory.get("yeshokri22.thm4_3")
    assert t43.evaluate({**p42, "K": 34}, dps=30).value < composition_int_order(10, 34)
    assert t43.evaluate({**p42, "K": 33}, dps=30).value >= composition_int_order(10, 33)
    assert res["yeshokri22.thm4_3"].value == 34
    e.baseline = None
    assert e.crossovers() == []


# ----------------------------------------------------------------------------- (eps, delta)
def test_epsilon_delta_is_convert_and_the_improved_formula(capsys):
    e = Explorer()
    rows = {r.key: r for r in e.epsilon_delta()}
    for key in DEFAULT_KEYS:
        r = rows[key]
        assert r.error is None and not r.at_edge
        thm = dptheory.get(key)
        argv = ["convert", key, *[f"{k}={v}" for k, v in FIG2.items() if k in thm.params and k != "alpha"],
                "--delta", "1e-5", "--dps", "12"]
        assert main(argv) == 0
        out = capsys.readouterr().out
        assert f"({r.epsilon}, 1e-05)-DP" in out
        # Balle et al. 2020, Thm 21, written out here at the reported order
        with mpmath.workdps(30):
            a = mpmath.mpf(r.order)
            params = {k: v for k, v in FIG2.items() if k in thm.params and k != "alpha"}

            def eps_at(order, params=params, thm=thm):
                rdp = thm.evaluate({**params, "alpha": order}, dps=30).value
                return rdp + mpmath.log((order - 1) / order) - (mpmath.log(mpmath.mpf("1e-5")) + mpmath.log(order)) \
                    / (order - 1)

            assert abs(eps_at(a) / mpmath.mpf(r.epsilon) - 1) < 1e-7  # the order is printed to 8 digits
            for other in (2, 5, 20, 60):  # the optimised order is no worse than these
                assert mpmath.mpf(r.epsilon) <= eps_at(mpmath.mpf(other)) * (1 + 1e-12)


def test_epsilon_delta_reports_violations_and_non_rdp():
    e = Explorer()
    e.set("eta", "0.5")
    rows = {r.key: r for r in e.epsilon_delta()}
    assert rows["yeshokri22.thm4_2"].epsilon is None
    assert rows["yeshokri22.thm4_2"].error.startswith("condition violated at every order: eta < 2/(beta + lam)")
    assert rows["yeshokri22.composition"].epsilon is not None
    e2 = Explorer(["yeshokri22.prop5_1_lipschitz"])
    (r,) = e2.epsilon_delta()
    assert r.error == "no Renyi order alpha: not an RDP bound"


# ----------------------------------------------------------------------------- validity strips
def test_validity_strip_boundaries_are_exact():
    e = Explorer()
    # eta < 2/(lam + beta) = 0.4: 0.39 is the last valid two-digit value, 0.4 the first invalid
    (ok, bad) = e.validity("eta")
    assert ok.valid and ok.hi == "0.39"
    assert (bad.lo, bad.hi) == ("0.4", "1")
    assert set(bad.failing) == {("yeshokri22.thm4_2", "eta < 2/(beta + lam)"),
                                ("yeshokri22.thm4_3", "eta < 2/(beta + lam)")}
    # n = 50: floor(n/b) >= 2 holds up to b = 25 (Thm 4.2), b <= n and floor(n/b) >= 1 up to b = 50
    segs = e.validity("b")
    assert [(s.lo, s.hi) for s in segs] == [("1", "25"), ("26", "50"), ("51", "1000")]
    assert segs[1].failing == (("yeshokri22.thm4_2", "n/b >= 2"),)
    assert {k for k, _ in segs[2].failing} == set(DEFAULT_KEYS)
    # lam <= beta = 4
    lam = e.validity("lam")
    assert [(s.lo, s.hi, s.valid) for s in lam] == [("0.001", "4", True), ("4.1", "10", False)]
    assert [s.valid for s in e.validity("K")] == [True]


def test_validity_follows_the_other_parameters():
    e = Explorer()
    e.set("beta", 9)  # 2/(lam + beta) = 0.2
    (ok, bad) = e.validity("eta")
    assert ok.hi == "0.19" and bad.lo == "0.2"


# ----------------------------------------------------------------------------- memo, snapshot
def test_results_are_recomputed_when_the_state_changes():
    e = Explorer()
    eps1 = e.epsilon_delta()
    e.set("alpha", 20)  # the conversion optimises alpha itself: same result, from the memo
    assert e.epsilon_delta() is eps1
    e.set("K", 60)
    assert e.epsilon_delta()[2].epsilon != eps1[2].epsilon  # composition grows with K
    snap = e.snapshot()
    e.set("K", 61)
    assert snap.values["K"] == "60" and e.values["K"] == "61"


# ----------------------------------------------------------------------------- page and CLI glue
def test_page_renders_the_model_without_a_browser():
    pytest.importorskip("panel")
    from dptheory.explore.app import ExplorerView

    # two theorems keep it quick (the composition's (eps, delta) needs mpmath at fractional orders)
    view = ExplorerView(Explorer(["yeshokri22.thm4_2", "yeshokri22.thm4_3"]))
    html = view.cards["yeshokri22.thm4_2"].object
    assert ">0.0154590461621</span>" in html and "all conditions hold" in html
    assert "<b>thm4_2</b> &lt; thm4_3 for every K in [1, 200]" in view.cross.object
    assert '<span class="dpt-eps" data-key="yeshokri22.thm4_2">0.317828549923</span>' in view.eps.object
    view._apply(view.model.control["eta"], "0.5", from_slider=False)
    html = view.cards["yeshokri22.thm4_2"].object
    assert "CONDITION VIOLATED" in html and "eta &lt; 2/(beta + lam)" in html and "not a guarantee" in html
    assert view.sliders["eta"].value == "0.5" and view.fields["eta"].value == "0.5"
    assert "eta in [0.4, 1]: eta &lt; 2/(beta + lam) fails (thm4_2, thm4_3)" in view.strips["eta"].object
    assert '<b>thm4_2</b> vs thm4_3: <span class="dpt-error">not available' in view.cross.object
    assert "condition violated at every order: eta &lt; 2/(beta + lam)" in view.eps.object
    view._apply(view.model.control["K"], "2.5", from_slider=False)
    assert "must be a whole number" in view.messages.object and view.model.values["K"] == "50"
    view._apply(view.model.control["K"], "130", from_slider=False)  # beyond the slider (1..120): it grows
    assert view.sliders["K"].end == 130 and view.sliders["K"].value == 130 and view.messages.object == ""


def test_add_parser_wires_the_subcommand(monkeypatch):
    from dptheory.cli import explore as command

    calls = []
    monkeypatch.setattr("dptheory.explore.app.serve", lambda keys, **kw: calls.append((keys, kw)))
    p = argparse.ArgumentParser()
    command.add_parser(p.add_subparsers(dest="command"))
    args = p.parse_args(["explore", "yeshokri22.thm4_2", "eta=0.05", "--port", "8123", "--no-browser"])
    assert args.func(args) == 0
    assert calls == [(["yeshokri22.thm4_2"], {"port": 8123, "show": False, "address": "127.0.0.1",
                                              "values": {"eta": "0.05"}})]
    for bad in (["explore", "yeshokri22.nope"], ["explore", "yeshokri22.thm4_2", "K=2.5"]):
        args = p.parse_args(bad)
        with pytest.raises(DPTheoryError):
            args.func(args)
    assert len(calls) == 1  # nothing served on bad input


def test_explore_a_paper_file(monkeypatch, tmp_path):
    """``dptheory --paper FILE explore KEY``: the file's theorem gets its controls and readout, with nothing
    installed; its keys are gone once the command returns."""
    from dptheory.core.registry import REGISTRY

    spec = tmp_path / "my26.toml"
    assert main(["new", "my26", "--dir", str(tmp_path / "pkg")]) == 0
    spec.write_text((tmp_path / "pkg" / "my26" / "paper.toml").read_text())
    seen = []

    def serve(keys, **kw):
        model = Explorer(keys)
        for name, value in {**kw["values"], "z": "2"}.items():
            model.set(name, value)
        seen.append((sorted(model.control), model.readout("my26.thm1").value, kw["values"]))

    monkeypatch.setattr("dptheory.explore.app.serve", serve)
    assert main(["--paper", str(spec), "explore", "my26.thm1", "T=3", "alpha=10", "--no-browser"]) == 0
    assert seen == [(["T", "alpha", "z"], "3.75000000000", {"T": "3", "alpha": "10"})]  # 3 * 10 / (2 * 2^2)
    assert "my26.thm1" not in REGISTRY


def test_import_dptheory_does_not_import_panel():
    code = ("import sys, dptheory, dptheory.explore, dptheory.explore.model; "
            "print(any(m.split('.')[0] in ('panel', 'bokeh') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "False"


def test_explorer_defaults_are_the_papers_declaration(monkeypatch):
    """The keys, the baseline and the K range come from the paper's [explorer] (report.toml), not the layer."""
    import re

    from dptheory.explore import model
    from dptheory.report.config import ExplorerDefaults, defaults

    d = defaults("yeshokri22").explorer
    assert d is not None and d.keys == DEFAULT_KEYS and d.baseline == "yeshokri22.composition"
    assert d.ranges == {"K": ("1", "200")}
    other = ExplorerDefaults(keys=DEFAULT_KEYS, baseline="yeshokri22.thm4_3", ranges={"K": ("2", "50")})
    monkeypatch.setattr(model, "_declared", lambda: [other])
    e = Explorer()
    assert e.baseline == "yeshokri22.thm4_3" and (e.axis, e.axis_lo, e.axis_hi) == ("K", "2", "50")
    layer = [ROOT / "dptheory" / "report" / "config.py", *sorted((ROOT / "dptheory" / "explore").glob("*.py"))]
    for path in layer:
        assert not re.search(r"\byeshokri22\.\w", path.read_text()), f"{path} names a paper key"
