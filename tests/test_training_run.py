"""A training run described once, read by every theorem that applies (``dptheory compare --run``).

The worked example is a new user's question: "I train DP-SGD with q = 0.01 (n = 10,000, b = 100), noise
multiplier 1.1, 10,000 steps, clip norm 1, step size 0.05, on a 0.01-strongly convex, 1-smooth loss: what epsilon
at delta = 1e-5, and what does Ye & Shokri's Thm 4.2 give?". Independent computations:

* Thm 4.2 (Ye & Shokri 2022, arXiv 2203.05363, Eq. 5) re-typed here with explicit loops in mpmath, at the
  Algorithm 1 noise scale worked out by hand from the run (sigma = sqrt(eta/2) z C / b, S_g = 2 C; Sec. F.1 and
  Prop 5.2): the RDP at alpha = 8 must agree to 1e-25 relative (the row is computed at 30 digits, and the run's
  sigma is passed rounded to 60 digits);
* its (epsilon, delta) conversion minimised here by a scan and golden-section search over alpha of the same
  conversion formula (Balle et al. 2020, "Hypothesis testing interpretations and Renyi differential privacy",
  arXiv 1905.09982, Thm 21) on the re-typed RDP: agreement to 1e-8 relative;
* the Poisson RDP composition against dp-accounting's RDP accountant at the integer order 8 (exact binomial sum
  there; float64, 1e-10 relative);
* the PLD bracket against prv-accountant's bracket (Gopi, Lee & Wutschitz 2021; it shares no code with
  dp-accounting): the two must overlap.
"""

from __future__ import annotations

import json
import math
import textwrap
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest

import dptheory  # noqa: F401  (registers the papers)
from dptheory.cli import main
from dptheory.core.registry import REGISTRY
from dptheory.core.run import RunError, RunMap, complete, parse_run, read, run_maps_from_tables
from dptheory.evaluate.run_compare import compare_run

EXAMPLE = "n=10000,b=100,z=1.1,steps=10000,C=1,eta=0.05,lam=0.01,beta=1"
DELTA = "1e-5"


def _cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def poisson_rows():
    """The example's rows that the independent checks need, at 30 digits (the whole table: test_the_example_table)."""
    keys = ["yeshokri22.thm4_2", "rdp.subsampled_gaussian"]
    return {r["label"]: r for r in compare_run(parse_run(EXAMPLE), delta=DELTA, alpha="8", dps=30, keys=keys)}


@pytest.fixture(scope="module")
def shuffle_rows():
    return {r["label"]: r for r in compare_run(parse_run(EXAMPLE + ",batches=shuffle"), alpha="8", dps=30,
                                                keys=["yeshokri22.thm4_2", "yeshokri22.cor5_3"])}


# ------------------------------------------------------------------------------------ independent values
def _thm42_rdp(alpha, eta, lam, S_g, sigma, n, b, K):
    """Thm 4.2 (Eq. 5) re-typed: first term + second term, with eps0 of Thm 3.3 written as explicit sums."""
    N, h = n // b, n // (2 * b)
    r = 1 - eta * lam
    partial = [mpmath.mpf(0)]  # partial[j] = sum_{s < j} r^(2s), accumulated once
    for s in range(N):
        partial.append(partial[-1] + r ** (2 * s))

    def eps0(j):
        return S_g**2 * alpha * eta * r ** (2 * j - 2) / (4 * b**2 * sigma**2 * partial[j])

    first = (1 - r ** ((2 * K - 2) * (N - h))) / (1 - r ** (2 * N - 2 * h)) * eps0(h)
    second = mpmath.log(mpmath.fsum(mpmath.exp((alpha - 1) * eps0(N - j0)) for j0 in range(N)) / N) / (alpha - 1)
    return first + second


def _example_thm42(alpha):
    eta, C, z, b = mpmath.mpf("0.05"), 1, mpmath.mpf("1.1"), 100
    sigma = mpmath.sqrt(eta / 2) * z * C / b  # the run's noise in Algorithm 1's notation, by hand
    return _thm42_rdp(alpha, eta, mpmath.mpf("0.01"), 2 * C, sigma, 10000, b, 100)


def _improved_epsilon(rdp, delta):
    """min over alpha of rdp(alpha) + log((alpha-1)/alpha) - (log delta + log alpha)/(alpha-1): a scan, then
    golden-section search around the best scanned order."""

    def f(a):
        return rdp(a) + mpmath.log((a - 1) / a) - (mpmath.log(delta) + mpmath.log(a)) / (a - 1)

    grid = [1 + mpmath.mpf(10) ** (k / mpmath.mpf(40)) / 100 for k in range(0, 161)]  # 1.01 .. 101
    i = min(range(len(grid)), key=lambda k: f(grid[k]))
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    g = (mpmath.sqrt(5) - 1) / 2
    for _ in range(80):
        a, c = hi - g * (hi - lo), lo + g * (hi - lo)
        if f(a) < f(c):
            hi = c
        else:
            lo = a
    return f((lo + hi) / 2)


def test_the_example_thm42_agrees_with_a_retyped_eq5(poisson_rows):
    with mpmath.workdps(40):
        ref = _example_thm42(mpmath.mpf(8))
        got = mpmath.mpf(poisson_rows["yeshokri22.thm4_2"]["value"])
        assert abs(got - ref) / ref < mpmath.mpf("1e-25")


def test_the_example_thm42_epsilon_is_the_optimised_conversion(poisson_rows):
    with mpmath.workdps(30):
        ref = _improved_epsilon(_example_thm42, mpmath.mpf(DELTA))
        got = mpmath.mpf(poisson_rows["yeshokri22.thm4_2"]["epsilon"])
    assert abs(got - ref) / ref < 1e-8


def test_the_example_composition_against_dp_accounting(poisson_rows):
    from dp_accounting import dp_event, rdp

    acc = rdp.RdpAccountant(orders=[8.0])
    acc.compose(dp_event.PoissonSampledDpEvent(0.01, dp_event.GaussianDpEvent(1.1)), 10000)
    peer = acc._rdp[0]  # the accountant's RDP at order 8 (its public API returns only epsilon)
    row = poisson_rows["rdp.subsampled_gaussian"]
    assert abs(float(row["value"]) - peer) / peer < 1e-10
    assert row["status"] == "applies" and row["neighbouring"] == "add/remove"
    assert float(row["epsilon"]) == pytest.approx(5.6318, abs=5e-5)  # the new user's number


def test_the_example_table(capsys, poisson_rows):
    """The whole comparison as a new user runs it: the PLD bracket against prv-accountant, what applies."""
    from dptheory.testing.peers import prv_epsilon_bracket

    code, out, err = _cli(capsys, "compare", "--run", EXAMPLE, "--delta", DELTA, "--json")
    assert code == 0, err
    rows = {r["label"]: r for r in json.loads(out)["rows"]}
    pld = rows["PLD composition (add/remove, tight)"]
    lo, _est, up = prv_epsilon_bracket(0.01, 1.1, 10000, 1e-5, eps_error=0.05)
    assert max(lo, pld["epsilon_lower"]) <= min(up, pld["epsilon_upper"])
    assert pld["epsilon_upper"] <= float(rows["rdp.subsampled_gaussian"]["epsilon"])  # tight <= the RDP route
    assert pld["status"] == "applies"
    thm42 = rows["yeshokri22.thm4_2"]
    assert thm42["status"] == "not met"
    assert any("batches = shuffle" in u and "the run has batches = poisson" in u for u in thm42["unmet"])
    assert any(m.startswith("loss = strongly-convex") for m in thm42["met"])
    assert rows["rdp.gaussian"]["status"] == "skipped"
    assert rows["yeshokri22.cor5_3"]["reason"].startswith("needs L (bound on the feature norm")
    code, text, _ = _cli(capsys, "compare", "--run", EXAMPLE, "--delta", DELTA, "rdp.subsampled_gaussian",
                         "yeshokri22.thm4_2")
    assert "yeshokri22.thm4_2: not a guarantee for this run: it assumes batches = shuffle" in text
    assert "S_g = 2C (Prop 5.2: clipping to S_g/2), sigma = sqrt(eta/2) z S_g/(2b) (Sec. F.1)" in text
    # docs/training_runs.md quotes the whole table and reads numbers off it
    code, text, _ = _cli(capsys, "compare", "--run", EXAMPLE, "--delta", DELTA)
    doc = (Path(__file__).parents[1] / "docs" / "training_runs.md").read_text()
    assert code == 0 and f"```text\n{text}```" in doc
    rep = rows["PLD composition (replace-one, tight)"]
    assert f"Thm 4.2's {float(thm42['epsilon']):.2f}" in doc
    assert f"[{rep['epsilon_lower']:.2f}, {rep['epsilon_upper']:.2f}], not against {pld['epsilon_upper']:.2f}" in doc


# ------------------------------------------------------------------------------------ what applies
def test_thm42_applies_to_a_shuffled_run_and_cor53_needs_the_feature_bound(shuffle_rows):
    assert shuffle_rows["yeshokri22.thm4_2"]["status"] == "applies"
    cor = shuffle_rows["yeshokri22.cor5_3"]
    assert cor["status"] == "skipped" and cor["reason"].startswith("needs L (bound on the feature norm")


def test_cor53_reads_the_same_noise_as_thm42():
    """Cor 5.3 is Thm 4.2 at beta = (L^2+1)/2 + lam with sigma_mul = z: at a logistic run they agree."""
    run = parse_run(EXAMPLE.replace("beta=1", "beta=1.01") + ",L=1,batches=shuffle,loss=logistic")
    rows = {r["label"]: r for r in compare_run(run, alpha="8", dps=30,
                                               keys=["yeshokri22.thm4_2", "yeshokri22.cor5_3"])}
    assert rows["yeshokri22.cor5_3"]["status"] == rows["yeshokri22.thm4_2"]["status"] == "applies"
    a, b = (mpmath.mpf(rows[k]["value"]) for k in ("yeshokri22.cor5_3", "yeshokri22.thm4_2"))
    assert abs(a - b) / b < mpmath.mpf("1e-25")


def test_full_batch_run_skips_minibatch_theorems_and_pld_is_the_gaussian():
    rows = {r["label"]: r for r in compare_run(parse_run("n=1000,batches=full,z=2,T=50"), delta=DELTA,
                                               keys=["yeshokri22.thm4_2", "rdp.gaussian"])}
    assert rows["yeshokri22.thm4_2"]["status"] == "skipped"
    assert "mini-batches" in rows["yeshokri22.thm4_2"]["reason"]
    assert rows["rdp.gaussian"]["status"] == "applies"
    from dptheory.privacy.gaussian_dp import gdp_eps_for_delta

    exact = gdp_eps_for_delta(1e-5, math.sqrt(50) / 2)  # 50 Gaussian steps: mu-GDP, Balle & Wang 2018 Thm 8
    pld = rows["PLD composition (add/remove, tight)"]
    assert pld["epsilon_lower"] <= exact <= pld["epsilon_upper"]


# ------------------------------------------------------------------------------------ the run's rules
def test_derived_quantities():
    assert complete(parse_run("n=1050,b=100,T=40,batches=shuffle")) == {
        "n": 1050, "b": 100, "q": Fraction(2, 21), "T": 40, "K": 4}  # floor(1050/100) = 10 steps per epoch
    assert complete(parse_run("q=0.01,epochs=3")) == {"q": Fraction(1, 100), "T": 300, "K": 3}
    assert complete(parse_run("n=500,batches=full,K=7")) == {"n": 500, "b": 500, "q": 1, "T": 7, "K": 7}
    assert complete(parse_run("n=1000,q=0.1")) == {"n": 1000, "b": 100, "q": Fraction(1, 10)}


def test_run_file_and_items(tmp_path):
    f = tmp_path / "run.toml"
    f.write_text('[run]\nn = 10000\nbatch_size = 100\nnoise_multiplier = "1.1"\nsteps = 10000\nbatches = "shuffle"\n')
    run = parse_run(str(f), ["lr=0.05"])
    assert run.values["eta"] == Fraction(1, 20) and run.facts["batches"] == "shuffle"
    assert run.values["z"] == Fraction(11, 10)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("n=100,bogus=1", "unknown name 'bogus'; accepted: n (records/dataset_size)"),
        ("n=100,b=200", "the batch size b = 200 exceeds n = 100"),
        ("n=100,b=10,q=0.5", "q = 0.5 but b/n = 0.1; give two of n, b, q"),
        ("n=100,b=10,T=50,K=3,batches=shuffle", "T = 50 steps but K = 3 epochs of 10 steps make 30"),
        ("z=-1", "z (noise multiplier: noise std on the summed clipped gradients / C) = -1; accepted: a positive"),
        ("n=2.5", "accepted: a positive integer number"),
        ("q=2", "accepted: a number in (0, 1]"),
        ("batches=random", "batches = 'random' is not known; accepted: poisson, shuffle, wor, full"),
        ("n=abc", "n = 'abc': not a number"),
        ("n", "'n' is not name=value"),
        ("z=1,noise_multiplier=2", "z is given twice"),
    ],
)
def test_bad_runs_are_one_line(spec, message):
    with pytest.raises(RunError) as exc:
        parse_run(spec)
    assert message in str(exc.value) and "\n" not in str(exc.value)


def test_a_stronger_loss_meets_a_weaker_assumption():
    rmap = RunMap("x.t", {"a": "eta"}, {"loss": ("convex",)})
    assert not read(parse_run("eta=1,loss=logistic"), rmap).unmet
    assert read(parse_run("eta=1"), rmap).unmet == (
        "loss = convex (convex and beta-smooth); the run has loss = unknown",)


# ------------------------------------------------------------------------------------ a researcher's [[run]]
SPEC = textwrap.dedent('''
    [paper.my26]
    authors = "A. Researcher"
    year = 2026
    title = "A bound of my own"

    [notation.my26]
    [[notation.my26.param]]
    name = "alpha"
    latex = '\\alpha'
    meaning = "Renyi order"
    domain = "positive"
    range = [1.5, 100.0]
    log = true
    [[notation.my26.param]]
    name = "s"
    latex = "s"
    meaning = "noise multiplier"
    domain = "positive"
    range = [0.5, 10.0]
    log = true
    [[notation.my26.param]]
    name = "m"
    latex = "m"
    meaning = "steps"
    domain = "positive integer"
    range = [1, 1000]
    log = true

    [[theorem]]
    key = "my26.thm1"
    title = "m Gaussian steps"
    citation = { paper = "my26", item = "Theorem 1" }
    notation = "my26"
    params = ["alpha", "s", "m"]
    conditions = [{ when = "alpha > 1", reason = "the order exceeds 1" }]
    bound = "m*alpha/(2*s**2)"
    direction = "upper"
    quantity = "RDP epsilon at order alpha"

    [[run]]
    theorem = "my26.thm1"
    params = { s = "z", m = "T" }
    requires = { batches = "full" }
    note = "T full-batch Gaussian steps"
''')


def test_a_paper_files_theorem_joins_the_comparison(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "spec.toml").write_text(SPEC)
    code, out, err = _cli(capsys, "--paper", "spec.toml", "compare", "my26.thm1", "rdp.gaussian", "alpha=4", "--run",
                          "n=1000,batches=full,z=2,T=50", "--delta", DELTA, "--json")
    assert code == 0, err
    rows = {row["label"]: row for row in json.loads(out)["rows"]}
    mine, shipped = rows["my26.thm1"], rows["rdp.gaussian"]
    assert mine["status"] == "applies" and mine["value"] == "25.0" == shipped["value"]  # 50*4/(2*4)
    assert mine["epsilon"] == shipped["epsilon"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["spec.toml"]  # nothing left behind


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"theorem": "my26.thm1", "params": {"s": "z"}, "colour": 1}, "unknown field 'colour'"),
        ({"theorem": "my26.thm1", "params": {"s": "__import__('os')"}}, "[[run]] my26.thm1:"),
        ({"theorem": "my26.thm1", "params": {"s": "w"}}, "the name 'w' is not declared"),
        ({"theorem": "my26.thm1", "params": {"s": "z"}, "requires": {"batches": "random"}},
         "requires batches = ['random']; accepted facts: batches: poisson"),
        ({"theorem": "my26.thm1", "params": {"s": "z"}, "neighbouring": "swap"}, "neighbouring 'swap'; accepted"),
        ({"params": {"s": "z"}}, 'needs theorem = "KEY"'),
    ],
)
def test_bad_run_tables(table, message):
    with pytest.raises(RunError) as exc:
        run_maps_from_tables("spec.toml", [table])
    assert message in str(exc.value) and str(exc.value).startswith("spec.toml: [[run]]")


def test_a_run_table_for_another_files_theorem_is_refused(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "spec.toml").write_text(SPEC.replace('theorem = "my26.thm1"\nparams = { s',
                                                     'theorem = "rdp.gaussian"\nparams = { s'))
    code, _, err = _cli(capsys, "--paper", "spec.toml", "compare", "--run", "z=2,T=5,batches=full", "--delta", DELTA)
    assert code == 1
    assert "my26.thm1" not in REGISTRY  # all of the file or none of it
    line = next(i for i, text in enumerate((tmp_path / "spec.toml").read_text().splitlines(), start=1)
                if text == 'theorem = "rdp.gaussian"')
    assert err.strip() == (f"dptheory: error: spec.toml:{line}: [[run]] number 1: field 'theorem' is 'rdp.gaussian', "
                           "not a [[theorem]] of this file; accepted: my26.thm1")


def test_cli_errors_are_one_line(capsys):
    for args, text in [(["--run", "n=10,bogus=1", "--delta", DELTA], "unknown name 'bogus'"),
                       (["--run", "n=10,z=1,T=1"], "give --delta D"),
                       (["--run", "missing.toml", "--delta", DELTA], "cannot read run file missing.toml"),
                       (["--run", "z=1,T=1,q=0.1", "alpha=1", "--delta", DELTA], "a Renyi order above 1"),
                       (["--run", "z=1,T=1,q=0.1", "rdp.nope", "--delta", DELTA], "rdp.nope does not read")]:
        code, _, err = _cli(capsys, "compare", *args)
        assert code in (1, 2) and err.count("\n") == 1 and text in err, (args, err)


def test_every_shipped_run_map_reads_a_registered_theorem():
    for rmap in REGISTRY.run_maps():
        thm = REGISTRY.get(rmap.key)
        assert set(rmap.params) == set(thm.params) - {"alpha"}, rmap.key


def test_hidden_state_theorems_need_the_last_iterate_only():
    rmap = REGISTRY.run_maps()
    thm42 = next(m for m in rmap if m.key == "yeshokri22.thm4_2")
    assert read(parse_run(EXAMPLE + ",batches=shuffle"), thm42).unmet == ()
    (unmet,) = read(parse_run(EXAMPLE + ",batches=shuffle,release=all"), thm42).unmet
    assert unmet.startswith("release = last (only the last iterate is released") and unmet.endswith("release = all")


def test_a_known_value_for_no_theorem_of_the_file_is_refused(capsys, tmp_path, monkeypatch):
    """A [[known_value]] whose theorem key is mistyped would never be checked: refused at load (new-user run)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "spec.toml").write_text(SPEC + textwrap.dedent('''
        [[known_value]]
        theorem = "my26.thm2"
        params = { alpha = "2", s = "1", m = 1 }
        value = "1"
        rel_tol = 1e-40
        method = "transcription"
        source = "re-typed and evaluated by hand"
    '''))
    code, _, err = _cli(capsys, "--paper", "spec.toml", "show", "my26.thm1")
    assert code == 1 and "my26.thm1" not in REGISTRY
    line = next(i for i, text in enumerate((tmp_path / "spec.toml").read_text().splitlines(), start=1)
                if text == 'theorem = "my26.thm2"')
    assert err.strip() == (f"dptheory: error: spec.toml:{line}: [[known_value]] number 1 (my26.thm2): field 'theorem' "
                           "is 'my26.thm2', not a [[theorem]] of this file; accepted: my26.thm1")

