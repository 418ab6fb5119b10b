"""Exact divergences of the quadratic model, empirical lower bounds, measured assumptions.

Every exact value is checked against an independent computation: exact rational arithmetic, a
different quadrature (mpmath's tanh-sinh on the whole line), closed-form identities for integer
orders, brute-force enumeration of partitions, and the simulator (statistical tests).

Statistical tests: each rejects at P_TEST = 1e-6 (Kolmogorov-Smirnov against an exact CDF, or as
stated), so this file fails by chance with probability below 2e-5 (union bound over < 20 tests).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy import stats

from dptheory.audit import empirical as E
from dptheory.core.errors import DPTheoryError, InvalidParameter
from dptheory.papers.yeshokri22 import quadratic as Q
from dptheory.papers.yeshokri22.assumptions import clipped_jacobian, finite_difference_jacobian
from dptheory.train import ClippedLogisticLoss, QuadraticLoss, add_bias, quadratic_neighbours, train_noisy_gd

P_TEST = 1e-6


def _st(**kw) -> Q.QuadraticSetting:
    base = dict(alpha=10, eta="0.02", lam=1, S_g=4, sigma=2, n=50, b=2, K=5)
    return Q.QuadraticSetting(**{**base, **kw})


# ----------------------------------------------------------------------------- closed forms, exact arithmetic
def _exact_fixed(alpha: Fraction, eta: Fraction, lam: Fraction, S_g: Fraction, sigma2: Fraction, n: int, b: int,
                 K: int, j0: int) -> Fraction:
    """Independent: run the mean-gap recursion m <- a m + u [record used] and the variance recursion exactly."""
    a = 1 - eta * lam
    N = n // b
    u = eta * S_g / b
    m = Fraction(0)
    v = Fraction(0)
    for _k in range(K):
        for j in range(N):
            m = a * m + (u if j == j0 else 0)
            v = a * a * v + 2 * eta * sigma2
    return alpha * m * m / (2 * v)


@pytest.mark.parametrize(("n", "b", "K", "j0", "eta"), [(50, 2, 5, 0, "0.02"), (50, 2, 5, 24, "0.02"),
                                                        (7, 3, 3, 1, "0.3"), (10, 10, 4, 0, "0.9"),
                                                        (9, 2, 2, 3, "1.5")])
def test_fixed_order_closed_form_matches_exact_rational_recursion(n: int, b: int, K: int, j0: int, eta: str) -> None:
    st = _st(n=n, b=b, K=K, eta=eta, alpha="7/2")
    got = Q.fixed_order_divergence(st, j0, dps=40).value
    want = _exact_fixed(Fraction(7, 2), Fraction(eta), Fraction(1), Fraction(4), Fraction(4), n, b, K, j0)
    with mpmath.workdps(50):
        assert abs(got - mpmath.mpf(want.numerator) / want.denominator) <= mpmath.mpf(10) ** -38 * got


def test_thm33_is_exact_for_the_quadratic_at_one_epoch_first_batch() -> None:
    """Observed tightness: at K = 1, j0 = 0 the quadratic's divergence equals eps_0^N = Thm 3.3 (both closed forms)."""
    import dptheory

    st = _st(K=1)
    ex = Q.fixed_order_divergence(st, 0, dps=40).value
    bound = dptheory.get("yeshokri22.thm3_3").value({**st.theorem_params(), "j0": 0}, dps=40)
    assert abs(ex - bound) <= mpmath.mpf(10) ** -38 * bound


# ----------------------------------------------------------------------------- the 1-D mixture quadrature
def test_mixture_quadrature_single_gaussians_is_the_closed_form() -> None:
    for alpha, gap in [("1.5", "0.1"), (10, "0.7"), (300, "0.05")]:
        with mpmath.workdps(45):
            al, g = mpmath.mpf(alpha), mpmath.mpf(gap)
            want = al * g**2 / 2
        r = Q.mixture_renyi_1d(al, [1], [g], [1], [0], dps=30)
        assert abs(r.value - want) <= mpmath.mpf(10) ** -29 * want
        assert r.error <= mpmath.mpf(10) ** -29 * want


def test_mixture_quadrature_matches_tanh_sinh_on_the_whole_line() -> None:
    """Independent method: mpmath.quad (tanh-sinh, infinite interval) at 45 digits; agreement to 1e-28 relative."""
    with mpmath.workdps(50):
        wp = [mpmath.mpf(1) / 3, mpmath.mpf(1) / 2, mpmath.mpf(1) / 6]
        mp_ = [mpmath.mpf("0.3"), mpmath.mpf("-0.2"), mpmath.mpf("1.1")]
        wq = [mpmath.mpf(1) / 4, mpmath.mpf(3) / 4]
        mq = [mpmath.mpf("0"), mpmath.mpf("0.5")]
    for alpha in (mpmath.mpf("2.5"), mpmath.mpf(17)):
        got = Q.mixture_renyi_1d(alpha, wp, mp_, wq, mq, dps=30)
        with mpmath.workdps(45):
            def pdf(x, w, m):
                return mpmath.fsum(wi * mpmath.npdf(x, mi, 1) for wi, mi in zip(w, m, strict=True))
            f = lambda x, al=alpha: pdf(x, wp, mp_) ** al * pdf(x, wq, mq) ** (1 - al)
            centre = float(alpha) * 1.1
            ref = mpmath.log(mpmath.quad(f, [-mpmath.inf, -5, 0, centre, mpmath.inf])) / (alpha - 1)
        assert abs(got.value - ref) <= mpmath.mpf(10) ** -28 * ref


@pytest.mark.parametrize("alpha", [2, 3])
def test_shuffle_integer_order_identity(alpha: int) -> None:
    """t = 0 (D' Gaussian): int p^alpha q^(1-alpha) = E exp(kappa sum_{i<k} W_i W_k), kappa = u^2/s^2 (derivation)."""
    st = _st(alpha=alpha, n=14, b=2, K=3)
    got = Q.shuffle_divergence(st, ts=(0,), dps=30).value
    with mpmath.workdps(50):
        s2 = Q.noise_variance(st)
        kap = st.u() ** 2 / s2
        Ws = Q.fixed_order_weights(st)
        N = len(Ws)
        tot = mpmath.fsum(mpmath.exp(kap * sum(Ws[i] * Ws[k] for i, k in itertools.combinations(idx, 2)))
                          for idx in itertools.product(range(N), repeat=alpha)) / N**alpha
        want = mpmath.log(tot) / (alpha - 1)
    assert abs(got - want) <= mpmath.mpf(10) ** -28 * want


def test_float64_quadrature_agrees_with_mpmath() -> None:
    st = _st(n=40, b=2, K=3, alpha=6)
    ex = Q.shuffle_divergence(st, ts=(0, 1), dps=25)
    with mpmath.workdps(30):
        g = float(st.u() / mpmath.sqrt(Q.noise_variance(st)))
        w, W = Q._shuffle_components(st)
    w = np.array([float(x) for x in w])
    W = np.array([float(x) for x in W])
    v0, e0 = Q.mixture_renyi_1d_np(6.0, w, g * W, np.array([1.0]), np.array([0.0]))
    v1, e1 = Q.mixture_renyi_1d_np(6.0, np.array([1.0]), np.array([0.0]), w, -g * W)
    assert math.isclose(v0, float(ex.by_t["0"]), rel_tol=1e-10) and e0 < 1e-10 * v0
    assert math.isclose(v1, float(ex.by_t["1"]), rel_tol=1e-10) and e1 < 1e-10 * v1


def test_mixture_input_validation() -> None:
    with pytest.raises(InvalidParameter, match="sum to 1"):
        Q.mixture_renyi_1d(2, [0.5], [0], [1], [0])
    with pytest.raises(InvalidParameter, match="exceed 1"):
        Q.mixture_renyi_1d(1, [1], [0], [1], [0])
    with pytest.raises(InvalidParameter, match="eta\\*lam < 2"):
        _st(eta=3)


# ----------------------------------------------------------------------------- brute force over partitions
def _brute_force_shuffle(xs: list[Fraction], xs2: list[Fraction], b: int, K: int, alpha: mpmath.mpf,
                         eta: Fraction, lam: Fraction, sigma2: Fraction) -> mpmath.mpf:
    """Mixture over *all* orderings of the records (each ordering is a partition into N = n//b batches).

    Means by the exact affine recursion on each batch sequence (no W formula), divergence by
    mpmath.quad on the whole line.
    """
    n = len(xs)
    N = n // b
    a = 1 - eta * lam
    means_p, means_q = [], []
    var = Fraction(0)
    for _ in range(K * N):
        var = a * a * var + 2 * eta * sigma2
    for perm in itertools.permutations(range(n)):
        for target, data in ((means_p, xs), (means_q, xs2)):
            m = Fraction(0)
            for _k in range(K):
                for j in range(N):
                    batch = perm[j * b:(j + 1) * b]
                    m = a * m + eta * lam * sum(data[i] for i in batch) / b
            target.append(m)
    from collections import Counter

    with mpmath.workdps(35):
        s = mpmath.sqrt(mpmath.mpf(var.numerator) / var.denominator)
        # equal means (exact rationals) are merged: the mixture is unchanged
        P = [(mpmath.mpf(c) / len(means_p), mpmath.mpf(m.numerator) / m.denominator / s)
             for m, c in Counter(means_p).items()]
        Qm = [(mpmath.mpf(c) / len(means_q), mpmath.mpf(m.numerator) / m.denominator / s)
              for m, c in Counter(means_q).items()]
        f = lambda x: mpmath.fsum(w * mpmath.npdf(x, m, 1) for w, m in P) ** alpha * mpmath.fsum(
            w * mpmath.npdf(x, m, 1) for w, m in Qm) ** (1 - alpha)
        c = float(sum(w * m for w, m in P))
        return mpmath.log(mpmath.quad(f, [-mpmath.inf, c - 3, c, c + 3, mpmath.inf])) / (alpha - 1)


@pytest.mark.parametrize(("n", "b", "K", "t"), [(4, 2, 2, 0), (4, 2, 1, 1), (5, 2, 2, 0), (3, 1, 2, "1/2")])
def test_shuffle_reduction_matches_brute_force_over_partitions(n: int, b: int, K: int, t) -> None:
    """With every other record at z = t x, the 1-D mixture over the record's batch equals the brute force."""
    eta, lam, S_g, sigma = Fraction(3, 10), Fraction(1), Fraction(3), Fraction(1, 2)
    diam = S_g / lam
    tt = Fraction(t)
    xs = [tt * diam] * n
    xs[0] = diam
    xs2 = list(xs)
    xs2[0] = Fraction(0)
    alpha = mpmath.mpf(5)
    bf = _brute_force_shuffle(xs, xs2, b, K, alpha, eta, lam, sigma**2)
    st = Q.QuadraticSetting(alpha=5, eta=eta, lam=lam, S_g=S_g, sigma=sigma, n=n, b=b, K=K)
    got = Q.shuffle_divergence(st, ts=(t,), dps=25).by_t[str(t)]
    assert abs(got - bf) <= mpmath.mpf(10) ** -20 * bf


def test_other_records_positions_matter_when_they_differ() -> None:
    """Finding about the reduction: with *different* other records the mixture divergence changes.

    (For identical other records the 1-D reduction is exact -- previous test.) Here the other records
    are spread over the segment; the divergence differs from the identical-records value and stays
    below the revealed-position value (an upper bound over all pairs).
    """
    eta, lam, S_g, sigma = Fraction(3, 10), Fraction(1), Fraction(3), Fraction(1, 2)
    xs = [Fraction(3), Fraction(0), Fraction(3), Fraction(1)]
    xs2 = [Fraction(0), Fraction(0), Fraction(3), Fraction(1)]
    bf = _brute_force_shuffle(xs, xs2, 2, 2, mpmath.mpf(5), eta, lam, sigma**2)
    st = Q.QuadraticSetting(alpha=5, eta=eta, lam=lam, S_g=S_g, sigma=sigma, n=4, b=2, K=2)
    same = Q.shuffle_divergence(st, ts=(0, 1), dps=25)
    assert abs(bf - same.by_t["0"]) > mpmath.mpf(10) ** -6 * bf and abs(bf - same.by_t["1"]) > mpmath.mpf(10) ** -6 * bf
    assert bf <= same.conditioned


# ----------------------------------------------------------------------------- without replacement
def test_bracket_contains_the_enumeration() -> None:
    st = _st(alpha=4, eta="0.1", sigma=1, n=8, b=2, K=2)
    ex = Q.without_replacement_enumerated(st, ts=(0,))
    br = Q.without_replacement_bracket(st, grid=2048)
    assert br.value <= ex.value <= br.upper
    assert br.upper - br.value < mpmath.mpf("0.05") * ex.value


def test_without_replacement_alpha2_identity() -> None:
    """alpha = 2, t = 0: int p^2/q = E exp(kappa W W'), a double sum over the 2^T patterns (no quadrature)."""
    st = _st(alpha=2, eta="0.1", sigma=1, n=6, b=2, K=2)
    got = Q.without_replacement_enumerated(st, ts=(0,), dps=25).value
    with mpmath.workdps(40):
        a, T, q = st.a(), st.T, mpmath.mpf(st.b) / st.n
        kap = st.u() ** 2 / Q.noise_variance(st)
        atoms = []
        for mask in range(2**T):
            k = bin(mask).count("1")
            atoms.append((mpmath.fsum(a ** (T - 1 - t) for t in range(T) if mask >> t & 1), q**k * (1 - q) ** (T - k)))
        want = mpmath.log(mpmath.fsum(p1 * p2 * mpmath.exp(kap * w1 * w2) for w1, p1 in atoms for w2, p2 in atoms))
    assert abs(got - want) <= mpmath.mpf(10) ** -23 * want


def test_bracket_needs_integer_alpha() -> None:
    with pytest.raises(DPTheoryError, match="integer order"):
        Q.without_replacement_bracket(_st(alpha="2.5", K=30))


# ----------------------------------------------------------------------------- simulator vs exact laws
def _project(res, d: int) -> tuple[np.ndarray, np.ndarray]:
    return res.theta[:, 0], res.theta[:, 1:]


@pytest.mark.parametrize("scheme", ["fixed", "shuffle", "without_replacement"])
@pytest.mark.parametrize("which", ["D", "D'"])
def test_simulator_matches_exact_last_iterate_law(scheme: str, which: str) -> None:
    """KS tests at P_TEST: the coordinate along x - x' against the exact mixture CDF, one orthogonal
    coordinate against N(0, s^2), and (shuffle, without replacement) the residuals standardised by
    each run's own batch pattern against N(0, 1)."""
    n, b, K, d = 7, 2, 2, 2
    lam, eta, sigma, diam, t = 1.0, 0.35, 0.6, 2.0, 0.25
    st = Q.QuadraticSetting(alpha=2, eta=eta, lam=lam, S_g=lam * diam, sigma=sigma, n=n, b=b, K=K)
    D, D2 = quadratic_neighbours(n, d, diam, t=t, index=3)
    data = D if which == "D" else D2
    order = np.array([0, 1, 2, 3, 4, 5, 6])  # fixed order: record 3 in batch j0 = 1
    R = 20_000
    res = train_noisy_gd(QuadraticLoss(lam=lam, dim=d), data.X, eta=eta, sigma=sigma, b=b, K=K, scheme=scheme, runs=R,
                         rng=np.random.default_rng(hash((scheme, which)) % 2**32), track=3,
                         order=order if scheme == "fixed" else None)
    law = Q.last_iterate_law(st, scheme, diameter=diam, t=t, dataset=which, j0=1)
    x, rest = _project(res, d)
    assert stats.kstest(x, law.cdf).pvalue > P_TEST
    assert stats.kstest(rest[:, 0] / law.s, "norm").pvalue > P_TEST
    if scheme != "fixed":
        a = 1 - eta * lam
        T = res.steps
        W = res.inclusion @ (a ** np.arange(T - 1, -1, -1))
        xi = diam if which == "D" else 0.0
        mean = (1 - a**T) * t * diam + eta * lam / b * (xi - t * diam) * W
        assert stats.kstest((x - mean) / law.s, "norm").pvalue > P_TEST


# ----------------------------------------------------------------------------- empirical audits
@pytest.mark.parametrize(("k", "n", "level"), [(0, 100, 0.025), (7, 50, 0.01), (49, 50, 1e-6)])
def test_clopper_pearson_defining_property(k: int, n: int, level: float) -> None:
    """The upper limit p_u solves P(Binomial(n, p_u) <= k) = level (independent: the binomial CDF)."""
    pu = E.clopper_pearson_upper(k, n, level)
    assert math.isclose(stats.binom.cdf(k, n, pu), level, rel_tol=1e-8)


def test_epsilon_from_rates() -> None:
    assert math.isclose(E.epsilon_from_rates(0.01, 0.5, 1e-5), math.log((1 - 1e-5 - 0.5) / 0.01))
    assert E.epsilon_from_rates(0.5, 0.5, 0.0) == 0.0


def test_gaussian_exact_epsilon_two_ways() -> None:
    """Closed-form Gaussian profile vs numerical integration of max(0, p - e^eps q) (single components)."""
    p = Q.MixtureLaw(weights=np.array([1.0]), means=np.array([1.3]), s=1.0)
    q = Q.MixtureLaw(weights=np.array([1.0]), means=np.array([0.0]), s=1.0)
    eps = E.exact_epsilon(p, q, 1e-5)
    assert math.isclose(E.delta_of_epsilon(p, q, eps), 1e-5, rel_tol=1e-7)
    assert math.isclose(E.gaussian_delta(1.3, eps), 1e-5, rel_tol=1e-9)


def test_audit_lower_bound_is_below_the_exact_epsilon() -> None:
    """Gaussian scores with known exact epsilon(delta); gamma = 1e-6, so this fails by chance w.p. <= 1e-6.

    Power (seeded, so deterministic): 20000 models per side at mu = 3 give a bound above 3 nats (the
    exact epsilon, 16.7 nats, is out of reach of 2e4 models: with no error at all the evaluation
    half certifies at most log(1e4 / 14) ~ 6.6 nats at gamma = 1e-6).
    """
    rng = np.random.default_rng(0)
    mu, delta = 3.0, 1e-5
    s0, s1 = rng.standard_normal(20_000), mu + rng.standard_normal(20_000)
    res = E.run_audit(s0, s1, delta=delta, gamma=1e-6, rng=rng)
    p = Q.MixtureLaw(weights=np.array([1.0]), means=np.array([mu]), s=1.0)
    q = Q.MixtureLaw(weights=np.array([1.0]), means=np.array([0.0]), s=1.0)
    exact = E.exact_epsilon(p, q, delta)
    assert 3.0 < res.epsilon_lower <= exact
    assert res.fpr_upper >= res.fpr and res.fnr_upper >= res.fnr and res.side == ">"


def test_audit_input_validation() -> None:
    with pytest.raises(InvalidParameter, match="delta"):
        E.run_audit(np.zeros(10), np.ones(10), delta=1.0, rng=np.random.default_rng(0))
    with pytest.raises(InvalidParameter, match="NaN"):
        E.run_audit(np.array([np.nan] * 10), np.ones(10), delta=0.1, rng=np.random.default_rng(0))


# ----------------------------------------------------------------------------- assumptions
def test_clipped_jacobian_matches_finite_differences() -> None:
    rng = np.random.default_rng(0)
    loss = ClippedLogisticLoss(n_features=4, n_classes=3, lam=0.05, clip=0.3)
    Xb = add_bias(rng.standard_normal((6, 4)) * 0.5)
    yb = rng.integers(0, 3, 6)
    th = rng.standard_normal(loss.dim)
    J = clipped_jacobian(loss, th, Xb, yb)
    Jfd = finite_difference_jacobian(loss, th, Xb, yb)
    np.testing.assert_allclose(J, Jfd, atol=1e-7 * np.abs(J).max())


def test_prop51_hessian_bounds_hold_at_random_points() -> None:
    """Prop 5.1 (unclipped): eigenvalues of the regularized Hessian lie in [lam, (L^2+1)/2 + lam] for ||x|| <= L."""
    rng = np.random.default_rng(1)
    L, lam = 1.5, 0.01
    loss = ClippedLogisticLoss(n_features=3, n_classes=4, lam=lam, clip=None)
    for _ in range(200):
        x = rng.standard_normal((2, 3))
        x *= L * rng.uniform(0, 1, (2, 1)) / np.linalg.norm(x, axis=1, keepdims=True)
        th = rng.standard_normal(loss.dim) * rng.uniform(0, 5)
        ev = np.linalg.eigvalsh(clipped_jacobian(loss, th, add_bias(x), rng.integers(0, 4, 2), clipped=False))
        assert ev[0] >= lam * (1 - 1e-9) and ev[-1] <= ((L * L + 1) / 2 + lam) * (1 + 1e-9)


# Finding (pinned counterexample): Prop 5.2 / Eq. 182 claims 0 <= grad g_0 <= beta I for the clipped
# gradient, from "M = I - u u^T is PSD and Hessian is PSD". The product of two PSD matrices is not
# PSD: its symmetric part can have eigenvalues below 0, so grad g has symmetric eigenvalues below lam
# and the mini-batch map theta -> theta - eta g is *not* (1 - eta lam)-Lipschitz.
PINNED_THETA = [-0.2, -1.0, -0.1, 0.8, 0.0, -0.2, 0.3, -1.8, -0.1]
PINNED = {"x": [0.6, 0.8], "y": 0, "c": 3, "lam": 0.001, "S_g": 0.2, "eta": 0.5, "L": 1.0}


def test_pinned_counterexample_clipped_map_is_not_a_contraction() -> None:
    p = PINNED
    loss = ClippedLogisticLoss(n_features=2, n_classes=p["c"], lam=p["lam"], clip=p["S_g"] / 2)
    th = np.array(PINNED_THETA)
    Xb = add_bias(np.array([p["x"]]))
    yb = np.array([p["y"]])
    eta, lam, L = p["eta"], p["lam"], p["L"]
    beta = (L * L + 1) / 2
    assert eta < 2 / (beta + 2 * lam)  # the step-size condition of Cor 5.3 holds
    J = clipped_jacobian(loss, th, Xb, yb)
    assert np.linalg.eigvalsh((J + J.T) / 2)[0] < lam * 0.1  # symmetric part far below lam
    _u, sv, vt = np.linalg.svd(np.eye(loss.dim) - eta * J)
    assert sv[0] > (1 - eta * lam) + 4e-4
    # the actual map (not its Jacobian): a coupled pair along the top singular vector
    pair = np.stack([th - 1e-5 * vt[0], th + 1e-5 * vt[0]])
    mapped = pair - eta * loss.mean_grad(pair, np.broadcast_to(Xb, (2, 1, 3)), np.broadcast_to(yb, (2, 1)))
    ratio = np.linalg.norm(mapped[1] - mapped[0]) / np.linalg.norm(pair[1] - pair[0])
    assert ratio > (1 - eta * lam) + 4e-4


# ----------------------------------------------------------------------------- CLI (own parser; wiring is in cli.py)
def _cli(argv: list[str]) -> int:
    from dptheory.cli import main

    return main(["yeshokri22", *argv])


def test_cli_audit_exact_table_plot(tmp_path, capsys) -> None:
    import json

    code = _cli(["audit", "exact", "K=1,3", "--schemes", "fixed,shuffle", "n=10", "--plot",
                 str(tmp_path / "t.png"), "--csv", str(tmp_path / "t.csv"), "--no-progress", "--json"])
    assert code == 0
    res = json.loads(capsys.readouterr().out)
    assert res["violations"] == [] and {r["K"] for r in res["rows"]} == {1, 3}
    assert (tmp_path / "t.png").stat().st_size > 1000
    assert "ratio" in (tmp_path / "t.csv").read_text().splitlines()[0]


def test_cli_audit_empirical_quadratic(tmp_path, capsys) -> None:
    """gamma = 1e-6: the consistency exit code (3) is reached by chance with probability <= 1e-6 per K."""
    import json

    code = _cli(["audit", "empirical", "--model", "quadratic", "--scheme", "fixed", "n=8", "b=2", "K=1,2",
                 "--runs", "2000", "sigma=0.1", "S_g=1", "lam=1", "eta=0.2", "j0=3",
                 "--gamma", "1e-6", "--plot", str(tmp_path / "a.png"), "--no-progress", "--workers", "1", "--json"])
    res = json.loads(capsys.readouterr().out)
    assert code == 0 and res["inconsistent"] == []
    for r in res["results"]:
        assert r["audit"]["epsilon_lower"] <= r["exact_epsilon"] <= min(r["upper"].values())
