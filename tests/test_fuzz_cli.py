"""Fuzzing the command line (issue 12, item 5): hostile command lines never end in a traceback.

Hypothesis draws command lines over every registry key's parameters (edge values, huge and tiny magnitudes,
integers written as floats and as strings, NaN and infinities, text, repeated, missing and unknown names),
over the option values of every generic and paper command, and over forced failures of multi-file outputs.
Each run is held to the command line's contract (``dptheory/cli/__init__.py``):

* no traceback and no "internal error" (an uncaught exception is a bug);
* exit status 0, 1 or 2; every failure is exactly one line on stderr, starting with ``dptheory:``;
* a successful run prints no NaN (``nan``, ``NaN``) and its ``--json`` is strict JSON (no NaN/Infinity);
* a run that fails leaves no file behind (and no temporary file), whatever stage failed.

The default run is small (about 30 s; the ``dptheory-ci`` profile derandomises it in CI); the ``slow`` tests
run the same properties with many more examples (``pytest --run-slow``, or the ``dptheory-thorough``
profile). A run that takes longer than ``EXAMPLE_SECONDS`` fails with its command line (a stall is a bug too).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import signal
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dptheory.catalog import INDEX_PATH
from dptheory.cli import main
from dptheory.core.registry import REGISTRY

INDEX = json.loads(INDEX_PATH.read_text())
THEOREMS = {r["key"]: r["params"] for r in INDEX["items"] if r["kind"] == "theorem"}
RDP_KEYS = sorted(k for k, ps in THEOREMS.items() if "alpha" in ps)
EXAMPLE_SECONDS = 60

PROFILE = os.environ.get("HYPOTHESIS_PROFILE") or ("dptheory-ci" if os.environ.get("CI") else "dptheory-dev")
THOROUGH = PROFILE == "dptheory-thorough"
# examples per property: small by default (~30 s for the file), many under the thorough profile / --run-slow
N_EVAL, N_SWEEP, N_CONVERT, N_COMPARE, N_OPTIONS, N_FILES = (
    (400, 100, 60, 100, 400, 60) if THOROUGH else (250, 60, 10, 40, 200, 10))
SLOW_EXAMPLES = 1000  # the thorough (slow) run of a property, unless it says otherwise


class Stall(BaseException):
    """Raised by the alarm: the command ran longer than EXAMPLE_SECONDS (main does not catch it)."""


def _alarm(signum, frame):
    raise Stall


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(EXAMPLE_SECONDS)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    except Stall:
        raise AssertionError(f"stalled (> {EXAMPLE_SECONDS} s): dptheory {' '.join(argv)[:500]}") from None
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    return code, out.getvalue(), err.getvalue()


NAN = re.compile(r"\bnan\b", re.IGNORECASE)


def _strict(const: str) -> None:
    raise ValueError(f"non-standard JSON constant {const}")


def check_contract(argv: list[str], code: int, out: str, err: str) -> None:
    line = "dptheory " + " ".join(argv)[:400]
    assert "Traceback" not in err, f"{line}\n{err}"
    assert "internal error" not in err, f"{line}\n{err}"
    assert code in (0, 1, 2), f"{line}: exit {code}\n{err}"
    if code:
        lines = err.splitlines()
        assert lines and lines[-1].startswith("dptheory: "), f"{line}\n{err}"
        assert len([x for x in lines if not x.startswith("dptheory: warning:")]) == 1, f"{line}\n{err}"
    else:
        assert not NAN.search(out), f"{line}: NaN in the output\n{out[:2000]}"
        if "--json" in argv and out.strip():
            json.loads(out, parse_constant=_strict)


# ----------------------------------------------------------------------------- values
EDGE = ["0", "-0", "1", "-1", "2", "3", "0.5", "1e-5", "0.02", "10", "50", "1e-400", "1e400", "1e3999", "1e-3999",
        "1e4001", "1" + "0" * 5000, "0." + "0" * 4100 + "1", "nan", "NaN", "-nan", "inf", "-inf", "Infinity", "oo",
        "abc",
        "1/3", "1/0", "-1/2", "0x10", "1_000", "1e", ".", "+3", "3.0", "3e0", "30e-1", "1.", ".5", "1e+2", "١٢",
        "10,20", "1..3", "1..", "..3", "1..3:0", " 7 "]


def numbers() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(EDGE),
        st.integers(-10**6, 10**7).map(str),
        st.integers(-10**6, 10**7).map(lambda x: f"{x}.0"),
        st.integers(1, 10**4).map(lambda x: f"{x}e0"),
        st.floats(allow_nan=True, allow_infinity=True).map(repr),
        st.floats(min_value=1e-6, max_value=1e3).map(lambda x: f"{x:.6g}"),
        st.integers(-5000, 5000).map(lambda e: f"1e{e}"),
        st.text(alphabet="0123456789.eE+-/", min_size=1, max_size=8),
    )


def _sample(lo: float, hi: float, log: bool) -> st.SearchStrategy[str]:
    import math

    if log and lo > 0:
        return st.floats(math.log(lo), math.log(hi)).map(lambda x: f"{math.exp(x):.6g}")
    return st.floats(lo, hi).map(lambda x: f"{x:.6g}")


@st.composite
def point(draw, key: str, *, keep_alpha: bool = True) -> list[str]:
    """name=value items for ``key``: a plausible point (the notation's sampling ranges), then mutated."""
    thm = REGISTRY.get(key)
    items: list[tuple[str, str]] = []
    for p in thm.params:
        if p == "alpha" and not keep_alpha:
            continue
        par = thm.notation[p]
        lo, hi, log = thm.sample.get(p, par.sample)
        if par.domain.is_integer:
            v = draw(st.integers(int(max(lo, 0)), int(min(hi, 200))).map(str))
        else:
            v = draw(_sample(float(lo), float(min(hi, 1e6)), bool(log)))
        if draw(st.integers(0, 5)) == 0:
            v = draw(numbers())
        items.append((p, v))
    mode = draw(st.integers(0, 9))
    if mode == 0 and items:  # a missing name
        items.pop(draw(st.integers(0, len(items) - 1)))
    elif mode == 1 and items:  # a repeated name
        items.append((items[0][0], draw(numbers())))
    elif mode == 2:  # an unknown name
        items.append((draw(st.sampled_from(["foo", "Alpha", "k", "eps", "delta", "q"])), draw(numbers())))
    elif mode == 3 and items:  # an integer written as a float / in exponent form
        i = draw(st.integers(0, len(items) - 1))
        items[i] = (items[i][0], items[i][1] + ".0" if items[i][1].isdigit() else items[i][1] + "e0")
    out = [f"{k}={v}" for k, v in items]
    return draw(st.permutations(out)) if out else out


# ----------------------------------------------------------------------------- properties
def _eval_case(data: st.DataObject) -> None:
    key = data.draw(st.sampled_from(sorted(THEOREMS)), label="key")
    argv = ["eval", key, *data.draw(point(key), label="params")]
    argv += data.draw(st.lists(st.sampled_from(
        [["--json"], ["--no-check"], ["--unit", "bits"], ["--dps", "1"], ["--dps", "15"], ["--dps", "0"],
         ["--dps", "-3"], ["--dps", "x"], ["--dps", "1001"], ["--term", "term1"], ["--term", "nope"]]),
        max_size=3).map(lambda xs: [a for x in xs for a in x]), label="options")
    code, out, err = run(argv)
    check_contract(argv, code, out, err)


def _sweep_case(data: st.DataObject) -> None:
    key = data.draw(st.sampled_from(sorted(THEOREMS)), label="key")
    # one axis at a time (a grid of 50 x 50 x ... points is legitimate but not what this property is about)
    items = [it if not any(m in it for m in ("..", ",")) else it.split("=", 1)[0] + "=2"
             for it in data.draw(point(key), label="params")]
    if items:
        i = data.draw(st.integers(0, len(items) - 1))
        name, value = items[i].split("=", 1)
        spec = data.draw(st.sampled_from([f"{value}..{value}", "1..5", "1..5:2", "1..5:0", "1..5:-1", "1..5:2.5",
                                          "0.1..0.3:3", "5..1", "1,2,,3", "1,2,3", "1..1e12", "nan..2", "2..3:1",
                                          "1e-3..1e3:4"]))
        items[i] = f"{name}={spec}"
    argv = ["sweep", key, *items, *data.draw(st.sampled_from([[], ["--json"], ["--skip-invalid"],
                                                               ["--skip-invalid", "--json"]]))]
    code, out, err = run(argv)
    check_contract(argv, code, out, err)


def _convert_case(data: st.DataObject) -> None:
    key = data.draw(st.sampled_from(RDP_KEYS), label="key")
    argv = ["convert", key, *data.draw(point(key, keep_alpha=False), label="params")]
    argv += ["--delta", data.draw(st.sampled_from(["1e-5", "0.5", "1e-400", "0", "1", "nan", "1/3", "x"]))]
    argv += data.draw(st.sampled_from([[], ["--orders", "2,4,8"], ["--orders", "1,2"], ["--orders", "2,,3"],
                                       ["--alpha-min", "2", "--alpha-max", "30"], ["--alpha-min", "30",
                                                                                   "--alpha-max", "2"],
                                       ["--method", "both"], ["--dps", "5"], ["--json"]]))
    code, out, err = run(argv)
    check_contract(argv, code, out, err)


def _compare_case(data: st.DataObject, *, delta: bool = False) -> None:
    keys = data.draw(st.lists(st.sampled_from(sorted(THEOREMS)), min_size=1, max_size=3, unique=True), label="keys")
    items: dict[str, str] = {}
    for k in keys:
        for it in data.draw(point(k), label=f"params of {k}"):
            items.setdefault(it.split("=", 1)[0], it)
    argv = ["compare", *keys, *items.values()]
    if delta and data.draw(st.booleans()):
        argv += ["--delta", data.draw(st.sampled_from(["1e-5", "0.1", "1e-400"]))]
    argv += data.draw(st.sampled_from([[], ["--json"], ["--dps", "15"], ["--no-baseline"]]))
    code, out, err = run(argv)
    check_contract(argv, code, out, err)


OPTION_CASES = [
    (["eval", "rdp.gaussian", "alpha=2", "z=1", "T=1"], ["--dps"]),
    (["check", "--claim", "yeshokri22.C10", "--no-progress"], ["--examples", "--seed", "--dps"]),
    (["crossover", "yeshokri22.thm4_2", "yeshokri22.composition", "alpha=10", "eta=0.02", "lam=1", "beta=4", "S_g=4",
      "sigma=2", "n=50", "b=2", "--over", "K"], ["--from", "--to", "--dps", "--delta"]),
    (["convert", "rdp.gaussian", "z=1", "T=1", "--delta", "1e-5"], ["--orders", "--alpha-min", "--alpha-max"]),
    (["compare", "rdp.gaussian", "alpha=2", "z=1", "T=1"], ["--dps", "--delta"]),
    (["list"], []),
    (["yeshokri22", "train", "--help"], ["eta=", "lam=", "b=", "K=", "--runs", "n=", "--t", "--threads",
                                         "--seed", "--scheme", "--dataset"]),
    (["yeshokri22", "audit", "exact", "--help"], ["alpha=", "eta=", "K=", "--dps", "n=", "b=", "--schemes"]),
    (["yeshokri22", "audit", "empirical", "--help"], ["--delta", "--gamma", "--runs", "K=", "j0="]),
    (["maxinfo", "bounds", "n=10", "m=2", "sigma=1", "--help"], ["beta=", "E=", "C=", "--range"]),
    (["maxinfo", "audit", "--help"], ["sigma=", "eps=", "--N", "--alpha", "beta="]),
    (["pacbayes", "bound", "n=10", "emp_risk=0.1", "--help"], ["delta=", "KL=", "k=", "beta=", "eps="]),
    (["shi26", "fig1", "--help"], ["--steps", "--q", "--kappa", "--sigma-p", "--seed"]),
    (["shi26", "feasibility", "--help"], ["--C", "--q", "--starts"]),
]


def _option_value(opt: str, value: str) -> list[str]:
    """``--dps 7`` for an option, ``n=7`` for a paper parameter (``n=``: written name=value)."""
    return [opt + value] if opt.endswith("=") else [opt, value]


def _options_case(data: st.DataObject) -> None:
    base, opts = data.draw(st.sampled_from(OPTION_CASES), label="command")
    argv = list(base)
    if "--help" in argv:  # option values are converted before --help exits: a cheap way to fuzz the types
        argv.remove("--help")
        extra = [] if not opts else _option_value(data.draw(st.sampled_from(opts)), data.draw(numbers()))
        argv = argv + extra + ["--help"]
    elif opts:
        argv += _option_value(data.draw(st.sampled_from(opts)), data.draw(numbers()))
    if argv[0] == "crossover" and "--to" not in argv:
        argv += ["--to", "20"]
    code, out, err = run(argv)
    check_contract(argv, code, out, err)


def _files_case(data: st.DataObject) -> None:
    """sweep --csv --plot / figure --out --csv: a failure at any stage leaves no file (and old files intact)."""
    from unittest import mock

    from dptheory.report import plotting

    stage = data.draw(st.sampled_from(["none", "plot-before", "plot-after", "interrupt", "bad-csv-folder"]))
    old = data.draw(st.booleans())
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        if old:
            (d / "s.csv").write_text("old\n")
        csv_path = str(d / ("missing/s.csv" if stage == "bad-csv-folder" else "s.csv"))
        argv = ["sweep", "yeshokri22.thm4_2", "K=1..4", "alpha=10", "eta=0.02", "lam=1", "beta=4", "S_g=4", "sigma=2",
                "n=50", "b=2", "--csv", csv_path, "--plot", str(d / "s.png")]
        real = plotting.plot_sweep

        def failing(results, names, path, *, logy=True):
            if stage == "plot-after":
                real(results, names, path, logy=logy)
                raise OSError("simulated failure after the plot")
            if stage == "plot-before":
                raise OSError("simulated failure before the plot")
            if stage == "interrupt":
                raise KeyboardInterrupt
            return real(results, names, path, logy=logy)

        with mock.patch.object(plotting, "plot_sweep", failing):
            code, out, err = run(argv)
        names = sorted(p.name for p in d.iterdir())
        if stage == "interrupt":
            assert code == 130 and len(err.splitlines()) == 1 and "interrupted" in err
        else:
            check_contract(argv, code, out, err)
        if code == 0:
            assert names == ["s.csv", "s.png"], names
        else:
            assert names == (["s.csv"] if old else []), (stage, names)
            if old:
                assert (d / "s.csv").read_text() == "old\n"


def _sweep_or_convert_case(data: st.DataObject) -> None:
    if data.draw(st.booleans()):
        _sweep_case(data)
    else:
        _convert_case(data)


def _compare_delta_case(data: st.DataObject) -> None:
    _compare_case(data, delta=True)


def _fuzz(case: Callable[[st.DataObject], None], max_examples: int) -> None:
    """Run the property ``case`` (one ``st.data()`` a command line) on ``max_examples`` examples, with no deadline
    (``EXAMPLE_SECONDS`` bounds a run) and no health check (the strategies are data-driven on purpose)."""

    @settings(max_examples=max_examples, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.data())
    def run(data: st.DataObject) -> None:
        case(data)

    run()


# the default run (small; derandomised under the CI profile) ...
@pytest.mark.parametrize(
    ("case", "max_examples"),
    [
        pytest.param(_eval_case, N_EVAL, id="eval"),
        pytest.param(_sweep_case, N_SWEEP, id="sweep"),
        pytest.param(_convert_case, N_CONVERT, id="convert"),
        pytest.param(_options_case, N_OPTIONS, id="options"),
        pytest.param(_files_case, N_FILES, id="files_all_or_none"),
        pytest.param(_compare_case, N_COMPARE, id="compare"),
    ],
)
def test_fuzz(case: Callable[[st.DataObject], None], max_examples: int) -> None:
    _fuzz(case, max_examples)


# ... and the thorough one (pytest --run-slow)
@pytest.mark.slow
@pytest.mark.parametrize(
    ("case", "max_examples"),
    [
        pytest.param(_eval_case, SLOW_EXAMPLES, id="eval"),
        pytest.param(_sweep_or_convert_case, 300, id="sweep_and_convert"),
        pytest.param(_compare_delta_case, 300, id="compare"),
        pytest.param(_options_case, SLOW_EXAMPLES, id="options"),
        pytest.param(_files_case, 100, id="files"),
    ],
)
def test_fuzz_thorough(case: Callable[[st.DataObject], None], max_examples: int) -> None:
    _fuzz(case, max_examples)
