"""Simulators of Algorithm 1 and 2 (Ye & Shokri 2022): exact identities, scheme properties, validation.

Statistical tests state their failure probability; each is at most 1e-6 (two-sided where relevant),
so this file fails by chance with probability below 1e-5 (union bound over < 10 such tests).
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest
from scipy import stats

from dptheory.core.errors import DPTheoryError, InvalidParameter
from dptheory.papers.yeshokri22.theorems import sigma_from_sigma_mul
from dptheory.train import (
    BatchScheme,
    Canary,
    ClippedLogisticLoss,
    FunctionLoss,
    MissingOptionalDependency,
    QuadraticLoss,
    Replacement,
    add_bias,
    clip_features,
    load_dataset,
    logistic_noise_std,
    quadratic_neighbours,
    synthetic_classification,
    train_dp_sgd,
    train_noisy_gd,
)

P_TEST = 1e-6  # failure probability of each statistical test below


def _quad(n: int = 12, d: int = 3, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, d))


# ----------------------------------------------------------------------------- Algorithm 1
@pytest.mark.parametrize("scheme", ["fixed", "shuffle", "without_replacement"])
def test_coupled_runs_quadratic_difference_is_exact(scheme: str) -> None:
    """Same generator state, different theta0: batches and noise cancel, theta_T - theta'_T = a^T (theta0 - theta0')."""
    X = _quad()
    loss = QuadraticLoss(lam=0.7, dim=3)
    kw = dict(eta=0.3, sigma=1.3, b=4, K=3, scheme=scheme, runs=5)
    th0 = np.random.default_rng(1).standard_normal((5, 3))
    r1 = train_noisy_gd(loss, X, rng=np.random.default_rng(7), theta0=th0, **kw)
    r2 = train_noisy_gd(loss, X, rng=np.random.default_rng(7), theta0=np.zeros(3), **kw)
    a = 1 - 0.3 * 0.7
    T = 3 * (12 // 4)
    np.testing.assert_allclose(r1.theta - r2.theta, a**T * th0, rtol=1e-12, atol=1e-14)


def test_function_loss_matches_quadratic_exactly() -> None:
    """A per-example gradient given as a function reproduces the built-in quadratic bit for bit (same draws)."""
    X = _quad()
    lam = 0.5
    f = FunctionLoss(grad=lambda th, Xb, yb: lam * (th[:, None, :] - Xb), dim=3)
    kw = dict(eta=0.2, sigma=1.0, b=3, K=2, scheme="shuffle", runs=7)
    r1 = train_noisy_gd(f, X, rng=np.random.default_rng(3), **kw)
    r2 = train_noisy_gd(QuadraticLoss(lam=lam, dim=3), X, rng=np.random.default_rng(3), **kw)
    np.testing.assert_allclose(r1.theta, r2.theta, rtol=1e-13, atol=1e-13)


def test_mean_of_last_iterate_fixed_order() -> None:
    """Fixed order: the sample mean of theta_T is N(mu, s^2/R) with mu, s^2 from the affine recursion.

    Independent computation of mu: the noise-free recursion run step by step; two-sided z-test per
    coordinate at P_TEST/3 each (Bonferroni), so the test fails by chance with probability <= 1e-6.
    """
    X = _quad(n=10, d=3)
    lam, eta, sigma, b, K, R = 0.8, 0.25, 0.9, 2, 4, 20_000
    res = train_noisy_gd(QuadraticLoss(lam=lam, dim=3), X, eta=eta, sigma=sigma, b=b, K=K, scheme="fixed", runs=R,
                         rng=np.random.default_rng(11))
    mu = np.zeros(3)
    for _k in range(K):
        for j in range(10 // b):
            mu = mu - eta * lam * (mu - X[j * b:(j + 1) * b].mean(axis=0))
    a = 1 - eta * lam
    T = K * (10 // b)
    s2 = 2 * eta * sigma**2 * sum(a ** (2 * t) for t in range(T))
    z = (res.theta.mean(axis=0) - mu) / math.sqrt(s2 / R)
    crit = stats.norm.isf(P_TEST / 3 / 2)
    assert np.all(np.abs(z) < crit), z
    # variance: S^2 / s^2 ~ chi2(R-1) per coordinate, two-sided at P_TEST/3
    v = res.theta.var(axis=0, ddof=1) * (R - 1) / s2
    lo, hi = stats.chi2.ppf(P_TEST / 6, R - 1), stats.chi2.isf(P_TEST / 6, R - 1)
    assert np.all((v > lo) & (v < hi)), v


def test_shuffle_partition_is_one_partition_reused_every_epoch() -> None:
    res = train_noisy_gd(QuadraticLoss(lam=1.0, dim=1), _quad(n=11, d=1), eta=0.1, sigma=1, b=3, K=3, scheme="shuffle",
                         runs=50, rng=np.random.default_rng(0), record_batches=True)
    B = res.batches
    assert B is not None and B.shape == (50, 9, 3)
    epoch0 = B[:, :3].reshape(50, -1)
    assert all(len(set(row)) == 9 for row in epoch0)  # disjoint batches: a partition of 9 of the 11 records
    np.testing.assert_array_equal(B[:, :3], B[:, 3:6])
    np.testing.assert_array_equal(B[:, :3], B[:, 6:9])


def test_shuffle_position_is_uniform_and_some_records_are_dropped() -> None:
    """n = 7, b = 2: the tracked record is in batch j w.p. 2/7 (j = 0, 1, 2) and unused w.p. 1/7.

    Chi-square goodness of fit, rejected at P_TEST.
    """
    R = 40_000
    res = train_noisy_gd(QuadraticLoss(lam=1.0, dim=1), _quad(n=7, d=1), eta=0.1, sigma=1, b=2, K=1, scheme="shuffle",
                         runs=R, rng=np.random.default_rng(5), track=3)
    pos = res.batch_position()
    counts = np.array([(pos == j).sum() for j in (0, 1, 2, -1)])
    expected = R * np.array([2, 2, 2, 1]) / 7
    assert stats.chisquare(counts, expected).pvalue > P_TEST


def test_without_replacement_batches() -> None:
    """Every batch has b distinct indices; inclusion of a record is Binomial(R T, b/n) (two-sided at P_TEST)."""
    R, n, b, K = 2000, 9, 3, 2
    res = train_noisy_gd(QuadraticLoss(lam=1.0, dim=1), _quad(n=n, d=1), eta=0.1, sigma=1, b=b, K=K,
                         scheme="without_replacement", runs=R, rng=np.random.default_rng(2), record_batches=True,
                         track=4)
    B = res.batches
    assert B is not None
    s = np.sort(B, axis=2)
    assert np.all(s[..., 1:] != s[..., :-1])
    assert res.inclusion is not None
    k = int(res.inclusion.sum())
    trials = R * res.steps
    assert stats.binomtest(k, trials, b / n).pvalue > P_TEST
    np.testing.assert_array_equal(res.inclusion, (B == 4).any(axis=2))


def test_fixed_order_uses_the_given_order() -> None:
    order = np.array([3, 1, 0, 2, 5, 4])
    res = train_noisy_gd(QuadraticLoss(lam=1.0, dim=1), _quad(n=6, d=1), eta=0.1, sigma=1, b=2, K=2, scheme="fixed",
                         runs=3, rng=np.random.default_rng(0), order=order, record_batches=True)
    assert res.batches is not None
    np.testing.assert_array_equal(res.batches[0, :3].ravel(), order)
    np.testing.assert_array_equal(res.batches[2, 3:].ravel(), order)


def test_replacement_changes_only_the_selected_runs() -> None:
    """Replace record 0 by x' in half of the runs; with coupled draws the difference is (eta lam/b) W (x - x')."""
    D, _ = quadratic_neighbours(6, 2, 3.0)
    lam, eta, b, K = 1.0, 0.2, 2, 2
    R = 4
    runs = np.array([True, False, True, False])
    rep = Replacement(index=0, x=np.zeros(2), runs=runs)
    kw = dict(eta=eta, sigma=1.0, b=b, K=K, scheme="fixed", runs=R)
    r_rep = train_noisy_gd(QuadraticLoss(lam=lam, dim=2), D.X, rng=np.random.default_rng(9), replacement=rep, **kw)
    r_base = train_noisy_gd(QuadraticLoss(lam=lam, dim=2), D.X, rng=np.random.default_rng(9), **kw)
    a = 1 - eta * lam
    N = 3
    W = a ** (N - 1) * (1 - a ** (K * N)) / (1 - a**N)  # record 0 sits in batch j0 = 0
    diff = r_base.theta - r_rep.theta
    np.testing.assert_allclose(diff[~runs], 0.0, atol=1e-14)
    np.testing.assert_allclose(diff[runs, 0], eta * lam / b * W * 3.0, rtol=1e-12)
    np.testing.assert_allclose(diff[runs, 1], 0.0, atol=1e-14)


def test_chunks_and_workers_do_not_change_results() -> None:
    X = _quad()
    kw = dict(eta=0.2, sigma=1.0, b=3, K=2, scheme="without_replacement", runs=10, chunk_size=3)
    r1 = train_noisy_gd(QuadraticLoss(lam=0.5, dim=3), X, rng=np.random.default_rng(4), workers=1, **kw)
    r2 = train_noisy_gd(QuadraticLoss(lam=0.5, dim=3), X, rng=np.random.default_rng(4), workers=2, **kw)
    np.testing.assert_array_equal(r1.theta, r2.theta)


def test_trajectory_recording() -> None:
    res = train_noisy_gd(QuadraticLoss(lam=0.5, dim=2), _quad(n=6, d=2), eta=0.2, sigma=1.0, b=2, K=3, scheme="fixed",
                         runs=2, rng=np.random.default_rng(0), record="epoch")
    assert res.trajectory is not None and res.trajectory.shape == (2, 4, 2)
    np.testing.assert_array_equal(res.trajectory[:, -1], res.theta)
    np.testing.assert_array_equal(res.trajectory[:, 0], 0.0)


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"eta": -0.1}, "eta"),
        ({"b": 13}, "b <= n"),
        ({"K": 0}, "K"),
        ({"scheme": "poisson"}, "unknown batch scheme"),
        ({"runs": 2.5}, "whole number"),
        ({"record": "all"}, "record"),
    ],
)
def test_bad_input_names_the_condition(kw: dict, match: str) -> None:
    base = dict(eta=0.1, sigma=1.0, b=2, K=1, scheme="fixed", runs=2, rng=np.random.default_rng(0))
    with pytest.raises(InvalidParameter, match=match):
        train_noisy_gd(QuadraticLoss(lam=1.0, dim=3), _quad(), **{**base, **kw})


def test_rng_must_be_a_generator() -> None:
    with pytest.raises(DPTheoryError, match=r"numpy\.random\.Generator"):
        train_noisy_gd(QuadraticLoss(lam=1.0, dim=3), _quad(), eta=0.1, sigma=1, b=2, K=1, scheme="fixed", runs=2,
                       rng=np.random.RandomState(0))  # type: ignore[arg-type]


def test_divergence_is_an_error_not_nan() -> None:
    with pytest.raises(DPTheoryError, match="diverged"):
        train_noisy_gd(QuadraticLoss(lam=1.0, dim=3), _quad(), eta=1e200, sigma=1e-200, b=2, K=50, scheme="fixed",
                       runs=2, rng=np.random.default_rng(0))


def test_scheme_aliases() -> None:
    assert BatchScheme.parse("shuffle-and-partition") is BatchScheme.SHUFFLE_PARTITION
    assert BatchScheme.parse("wor") is BatchScheme.WITHOUT_REPLACEMENT


# ----------------------------------------------------------------------------- Algorithm 2
def _logistic_setup(seed: int = 0, c: int = 4, d: int = 5, b: int = 6) -> tuple:
    rng = np.random.default_rng(seed)
    ds = synthetic_classification(30, d, c, rng)
    loss = ClippedLogisticLoss(n_features=d, n_classes=c, lam=0.1, clip=0.4)
    Xb = add_bias(clip_features(ds.X[:b], 1.5))
    return loss, Xb, ds.y[:b], rng.standard_normal(loss.dim)


def test_logistic_gradient_matches_finite_differences_of_the_loss() -> None:
    """Without clipping the mean gradient is the derivative of the mean loss (central differences, rel 1e-7)."""
    loss, Xb, yb, th = _logistic_setup()
    nc = ClippedLogisticLoss(n_features=loss.n_features, n_classes=loss.n_classes, lam=loss.lam, clip=None)
    g = nc.mean_grad(th[None], Xb[None], yb[None])[0]
    h = 1e-6
    E = np.eye(th.size) * h
    f = lambda T: nc.loss(T, np.broadcast_to(Xb, (len(T), *Xb.shape)), np.broadcast_to(yb, (len(T), len(yb)))).mean(1)
    fd = (f(th[None] + E) - f(th[None] - E)) / (2 * h)
    np.testing.assert_allclose(g, fd, rtol=1e-7, atol=1e-9)


def test_per_example_clipping() -> None:
    """Clipped per-example gradients have norm min(||grad||, S_g/2) and keep their direction; the mean agrees."""
    loss0, Xb, yb, th = _logistic_setup()
    U = loss0.per_example_grads(th[None], Xb[None], yb[None], clipped=False)[0]
    nu = np.linalg.norm(U, axis=1)
    clip = float(np.median(nu))
    loss = ClippedLogisticLoss(n_features=loss0.n_features, n_classes=loss0.n_classes, lam=loss0.lam, clip=clip)
    G = loss.per_example_grads(th[None], Xb[None], yb[None], clipped=True)[0]
    np.testing.assert_allclose(np.linalg.norm(G, axis=1), np.minimum(nu, clip), rtol=1e-12)
    np.testing.assert_allclose(G * nu[:, None], U * np.linalg.norm(G, axis=1)[:, None], rtol=1e-10, atol=1e-14)
    assert (nu > clip).any() and (nu < clip).any()  # both regimes exercised
    mean = loss.mean_grad(th[None], Xb[None], yb[None])[0]
    np.testing.assert_allclose(mean, G.mean(axis=0) + loss.lam * th, rtol=1e-12, atol=1e-14)


def test_algorithm2_noise_is_algorithm1_with_sigma_from_sigma_mul() -> None:
    """eta sigma_mul (S_g/2)/b == sqrt(2 eta sigma^2) with sigma = sqrt(eta/2) sigma_mul S_g/(2b) (Sec. F.1)."""
    for eta, sm, sg, b in [(0.5, 1.0, 2.0, 50), (0.01, 3.0, 0.1, 7)]:
        sigma = float(sigma_from_sigma_mul(sm, eta, sg, b))
        assert math.isclose(logistic_noise_std(eta, sm, sg, b), math.sqrt(2 * eta * sigma**2), rel_tol=1e-14)


def test_dp_sgd_canary_and_coupling() -> None:
    """The canary only affects the D' runs; identical seeds give identical models on D."""
    ds = synthetic_classification(40, 4, 3, np.random.default_rng(0))
    kw = dict(eta=0.3, lam=0.1, sigma_mul=1.0, S_g=1.0, L=1.0, b=5, K=2, runs=6)
    mask = np.array([True, False] * 3)
    can = Canary(index=0, x=np.array([5.0, 0, 0, 0]), y=2)
    r1 = train_dp_sgd(ds, rng=np.random.default_rng(1), canary=can, canary_runs=mask, **kw)
    r2 = train_dp_sgd(ds, rng=np.random.default_rng(1), **kw)
    np.testing.assert_array_equal(r1.theta[~mask], r2.theta[~mask])
    assert np.all(np.abs(r1.theta[mask] - r2.theta[mask]).max(axis=1) > 0)
    assert r1.extra["sigma_mul"] == 1.0


def test_dp_sgd_learns_something_on_separable_data() -> None:
    """Sanity of the model: low noise, separable clusters -> training accuracy far above chance (1/3)."""
    from dptheory.train import accuracy

    ds = synthetic_classification(300, 5, 3, np.random.default_rng(0), separation=4.0, noise=0.5)
    res = train_dp_sgd(ds, eta=0.5, lam=0.01, sigma_mul=0.05, S_g=4.0, L=10.0, b=10, K=10, runs=3,
                       rng=np.random.default_rng(2))
    assert accuracy(res.theta, ds, 10.0).min() > 0.8


# ----------------------------------------------------------------------------- data
def test_clip_features() -> None:
    X = np.array([[3.0, 4.0], [0.3, 0.4], [0.0, 0.0]])
    C = clip_features(X, 1.0)
    np.testing.assert_allclose(np.linalg.norm(C, axis=1), [1.0, 0.5, 0.0])
    np.testing.assert_allclose(C[0], [0.6, 0.8])


def test_bundled_datasets() -> None:
    pytest.importorskip("sklearn")
    ds = load_dataset("digits", n=100, rng=np.random.default_rng(0))
    assert ds.X.shape == (100, 64) and ds.n_classes == 10 and ds.X.max() <= 1.0 and ds.X.min() >= 0.0
    bc = load_dataset("breast-cancer")
    assert bc.X.shape == (569, 30) and set(np.unique(bc.y)) == {0, 1}


def test_missing_sklearn_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sklearn", None)
    monkeypatch.setitem(sys.modules, "sklearn.datasets", None)
    with pytest.raises(MissingOptionalDependency, match=r"pip install 'dptheory\[datasets\]'"):
        load_dataset("digits")


def test_quadratic_neighbours_domain() -> None:
    D, D2 = quadratic_neighbours(5, 3, 2.0, t=0.25, index=2)
    diff = D.X - D2.X
    assert np.count_nonzero(diff.any(axis=1)) == 1 and np.isclose(np.linalg.norm(diff[2]), 2.0)
    allx = np.concatenate([D.X, D2.X])
    dmax = max(np.linalg.norm(u - v) for u in allx for v in allx)
    assert dmax <= 2.0 + 1e-12
    with pytest.raises(InvalidParameter, match="segment"):
        quadratic_neighbours(5, 3, 2.0, t=1.5)


# ----------------------------------------------------------------------------- CLI (own parser; wiring is in cli.py)
def _cli(argv: list[str]) -> int:
    from dptheory.cli import main

    return main(["yeshokri22", *argv])


def test_cli_train_quadratic_json_and_csv(tmp_path, capsys) -> None:
    import json

    out, table = tmp_path / "r.json", tmp_path / "r.csv"
    code = _cli(["train", "--model", "quadratic", "n=10", "b=2", "K=3", "--runs", "7", "--dim", "2",
                 "lam=1", "eta=0.1", "--json", str(out), "--csv", str(table), "--no-progress"])
    assert code == 0
    res = json.loads(out.read_text())
    assert res["runs"] == 7 and res["steps"] == 15 and res["scheme"] == "shuffle" and res["S_g"] == 1.0
    assert len(table.read_text().strip().splitlines()) == 8


def test_cli_train_logistic(capsys) -> None:
    import json

    pytest.importorskip("sklearn")
    assert _cli(["train", "--model", "logistic", "n=60", "--runs", "4", "K=1", "b=10",
                 "--no-progress", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["dim"] == 650 and 0 <= res["accuracy_min"] <= res["accuracy_max"] <= 1


def test_cli_train_bad_input_is_a_clear_error(capsys) -> None:
    assert _cli(["train", "--model", "quadratic", "n=3", "b=5", "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "b <= n" in err and len(err.strip().splitlines()) == 1
