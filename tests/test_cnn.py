"""The two-layer Huberized-ReLU CNN of Shi et al. (dptheory.papers.shi26.cnn), against independent computations.

Independent computations: the activation and the loss re-implemented in mpmath at 40 digits (the
gradient by mpmath's numerical differentiation of that implementation), single-record gradients for
the per-record norms, weights built from known decomposition coefficients, and chi-square laws for
the data and the injected noise. Tolerances are relative and stated at each assertion; statistical
checks state their failure probability.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import scipy.stats

from dptheory.core.errors import DPTheoryError, InvalidParameter
from dptheory.papers.shi26 import cnn as M


def _sigma_mp(z, q, k):
    z, q, k = mpmath.mpf(z), mpmath.mpf(q), mpmath.mpf(k)
    if z <= 0:
        return mpmath.mpf(0)
    if z <= k:
        return z**q / (q * k ** (q - 1))
    return z - (1 - 1 / q) * k


@pytest.mark.parametrize("q", [2.5, 3.0, 4.0, 7.3])
def test_huberized_relu_matches_definition_and_derivative(q):
    k = 0.3
    z = np.array([-1.0, -1e-9, 0.0, 1e-6, 0.1, 0.2999, 0.3, 0.3001, 1.0, 25.0])
    s = M.huberized_relu(z, q, k)
    ds = M.huberized_relu_grad(z, q, k)
    with mpmath.workdps(40):
        for zi, si, dsi in zip(z, s, ds, strict=True):
            ref = _sigma_mp(zi, q, k)
            assert abs(si - float(ref)) <= 1e-14 * max(1.0, abs(float(ref)))  # float64 rounding, relative 1e-14
            if abs(zi) > 1e-7 and abs(zi - k) > 1e-3:  # derivative away from the kinks
                dref = mpmath.diff(lambda x: _sigma_mp(x, q, k), zi)
                assert abs(dsi - float(dref)) <= 1e-12 * max(1.0, abs(float(dref)))
    # continuity of sigma and sigma' at kappa (the piecewise definition is C^1)
    assert abs(M.huberized_relu(k * (1 + 1e-12), q, k) - M.huberized_relu(k, q, k)) < 1e-12
    assert M.huberized_relu_grad(k, q, k) == 1.0


@pytest.mark.parametrize("bad", [2.0, 1.5, -3.0, float("nan")])
def test_order_q_must_exceed_two(bad):
    with pytest.raises(InvalidParameter) as ei:
        M.huberized_relu(np.ones(2), bad, 0.1)
    assert "q > 2" in str(ei.value) and ei.value.name == "q"
    with pytest.raises(InvalidParameter):
        M.CNNConfig(m=2, q=bad, kappa=0.1, sigma_0=0.01)


def test_bad_configs_name_the_parameter():
    with pytest.raises(InvalidParameter, match="kappa"):
        M.CNNConfig(m=2, q=3, kappa=0.0, sigma_0=0.01)
    with pytest.raises(InvalidParameter, match="m"):
        M.CNNConfig(m=0, q=3, kappa=0.1, sigma_0=0.01)
    with pytest.raises(InvalidParameter, match="sigma_p"):
        M.DataModel(d=10, mu_norm=1.0, sigma_p=-1.0)
    with pytest.raises(InvalidParameter, match="eta"):
        M.TrainConfig(eta=0.0, steps=3)
    with pytest.raises(DPTheoryError, match="Generator"):
        M.sample_data(M.DataModel(d=4, mu_norm=1, sigma_p=1), 3, np.random.RandomState(0))


def test_data_model_definition_1():
    rng = np.random.default_rng(11)
    dm = M.DataModel(d=300, mu_norm=2.0, sigma_p=0.7)
    data = M.sample_data(dm, 2000, rng)
    mu = data.mu
    rows = np.arange(data.n)
    # signal patch is y mu, the other is xi; xi is orthogonal to mu (exactly: mu = ||mu|| e_1)
    assert np.array_equal(data.X[rows, data.signal_patch], data.y[:, None] * mu[None, :])
    assert np.array_equal(data.X[rows, 1 - data.signal_patch], data.xi)
    assert np.all(data.xi @ mu == 0.0)
    assert set(np.unique(data.signal_patch)) == {0, 1} and set(np.unique(data.y)) == {-1.0, 1.0}
    # ||xi||^2/sigma_p^2 summed over n records ~ chi^2 with n (d-1) degrees of freedom: a two-sided
    # 99.9% acceptance interval (this check fails with probability 1e-3 for a correct sampler)
    stat = float((data.xi**2).sum() / dm.sigma_p**2)
    dof = data.n * (dm.d - 1)
    lo, hi = scipy.stats.chi2.ppf([0.0005, 0.9995], dof)
    assert lo <= stat <= hi
    # label balance: two-sided 99.9% binomial interval
    k = int((data.y > 0).sum())
    assert scipy.stats.binomtest(k, data.n, 0.5).pvalue > 1e-3


def _loss_mp(W, X, y, q, k, m):
    n = len(y)
    tot = mpmath.mpf(0)
    for i in range(n):
        f = mpmath.mpf(0)
        for c in range(2 * m):
            j = 1 if c < m else -1
            for p in range(2):
                z = mpmath.fsum(mpmath.mpf(W[a, c]) * mpmath.mpf(float(X[i, p, a])) for a in range(W.shape[0]))
                f += j * _sigma_mp(z, q, k) / m
        tot += mpmath.log1p(mpmath.exp(-mpmath.mpf(float(y[i])) * f))
    return tot / n


def _data_and_weights(seed: int, d: int, sigma_p: float, n: int, cfg):
    """``n`` records of Definition 1 (dimension ``d``, ||mu|| = 1, noise ``sigma_p``) and initial weights for
    ``cfg``, both drawn (in that order) from ``default_rng(seed)``."""
    rng = np.random.default_rng(seed)
    data = M.sample_data(M.DataModel(d=d, mu_norm=1.0, sigma_p=sigma_p), n, rng)
    return data, M.init_weights(d, cfg, rng)


def test_gradient_matches_high_precision_differences():
    """Analytic float64 gradient vs mpmath central differences of an mpmath loss (40 digits)."""
    cfg = M.CNNConfig(m=2, q=3.5, kappa=0.4, sigma_0=0.6)
    data, W = _data_and_weights(5, d=4, sigma_p=0.8, n=3, cfg=cfg)
    A = data.X_flat @ W
    assert np.min(np.abs(A)) > 1e-3 and np.min(np.abs(A - cfg.kappa)) > 1e-3  # away from the kinks
    lg = M.loss_and_grad(W, data, cfg)
    with mpmath.workdps(40):
        ref = _loss_mp(W, data.X, data.y, cfg.q, cfg.kappa, cfg.m)
        assert abs(lg.loss - float(ref)) <= 1e-14 * float(ref)
        for a in range(W.shape[0]):
            for c in range(W.shape[1]):
                def f(x, a=a, c=c):
                    W2 = W.astype(object).copy()
                    W2[a, c] = x
                    return _loss_mp(W2, data.X, data.y, cfg.q, cfg.kappa, cfg.m)

                g = mpmath.diff(f, mpmath.mpf(float(W[a, c])), h=mpmath.mpf("1e-15"))
                # relative to the gradient's largest entry: float64 accumulation, 1e-12
                assert abs(lg.grad[a, c] - float(g)) <= 1e-12 * np.max(np.abs(lg.grad))


@pytest.mark.parametrize("n, d, m", [(3, 4, 2), (50, 40, 5), (250, 500, 25)])
def test_forward_in_definition_1_layout_is_the_full_product(n: int, d: int, m: int) -> None:
    """In Definition 1's layout the forward pass takes a signal patch's row of ``X W`` as ``y_i ||mu|| W[0]`` and
    multiplies only the noise patches; against the plain ``X W`` of the same records (the layout hidden), the
    pre-activations, the outputs and the gradient agree to 1e-15 of their largest entry (one rounding apart at
    most; on the reduced and paper-scale shapes this machine's BLAS gives the same bits)."""
    import dataclasses

    cfg = M.CNNConfig(m=m, q=3, kappa=0.2, sigma_0=0.3)
    data, W = _data_and_weights(11, d=d, sigma_p=0.5, n=n, cfg=cfg)
    W = W * 100  # pre-activations on every piece of the activation
    assert data.layout is not None
    plain = dataclasses.replace(data)
    object.__setattr__(plain, "layout", None)  # the cached property, hidden: the plain product
    got, ref = M._Workspace(n, m), M._Workspace(n, m)
    f_got, f_ref = M._forward(W, data, cfg, got), M._forward(W, plain, cfg, ref)
    for a, b in ((got.A, ref.A), (f_got, f_ref), (M.loss_and_grad(W, data, cfg).grad,
                                                   M.loss_and_grad(W, plain, cfg).grad)):
        assert np.max(np.abs(a - b)) <= 1e-15 * np.max(np.abs(b))


def test_the_layout_is_found_only_where_it_holds_exactly() -> None:
    import dataclasses

    cfg = M.CNNConfig(m=2, q=3, kappa=0.2, sigma_0=0.3)
    data, _ = _data_and_weights(12, d=6, sigma_p=0.5, n=4, cfg=cfg)
    sig, noise = data.layout
    assert np.array_equal(data.X_flat[sig], data.y[:, None] * data.mu[None, :])
    assert np.array_equal(data.X_flat[noise], data.xi)
    X = data.X.copy()
    X[0, 1 - data.signal_patch[0], 3] = np.nextafter(X[0, 1 - data.signal_patch[0], 3], np.inf)  # not xi_0
    assert dataclasses.replace(data, X=X).layout is None
    mu = data.mu.copy()
    mu[2] = 1e-300  # a signal off the first axis
    assert dataclasses.replace(data, mu=mu).layout is None


def test_per_record_gradient_norms_match_single_record_gradients():
    cfg = M.CNNConfig(m=3, q=3, kappa=0.2, sigma_0=0.3)
    data, W = _data_and_weights(8, d=30, sigma_p=0.5, n=7, cfg=cfg)
    ws = M._Workspace(data.n, cfg.m)
    M.loss_and_grad(W, data, cfg, ws=ws)
    norms = M.per_record_grad_norms(data, ws.dS, M.patch_gram(data))
    for i in range(data.n):
        one = M.PatchData(X=data.X[i:i + 1], y=data.y[i:i + 1], xi=data.xi[i:i + 1],
                          signal_patch=data.signal_patch[i:i + 1], mu=data.mu)
        g = M.loss_and_grad(W, one, cfg).grad / data.n
        assert abs(norms[i] - np.linalg.norm(g)) <= 1e-12 * np.linalg.norm(g)  # relative 1e-12


def test_decomposition_reconstructs_constructed_weights():
    rng = np.random.default_rng(3)
    dm = M.DataModel(d=120, mu_norm=1.5, sigma_p=0.4)
    data = M.sample_data(dm, 40, rng)
    m = 5
    gamma = rng.normal(size=(2, m))
    rho = rng.normal(size=(2, m, data.n))
    j = np.concatenate([np.ones(m), -np.ones(m)])
    xi_n2 = (data.xi**2).sum(1)
    delta = (np.outer(data.mu, j * gamma.reshape(-1)) / dm.mu_norm**2
             + data.xi.T @ (rho.reshape(2 * m, data.n).T / xi_n2[:, None]))
    dec = M.Decomposer(data)(delta, m)
    assert np.max(np.abs(dec.gamma - gamma)) <= 1e-9 * np.max(np.abs(gamma))  # relative 1e-9 (Gram cond. number)
    assert np.max(np.abs(dec.rho - rho)) <= 1e-9 * np.max(np.abs(rho))
    assert dec.residual <= 1e-12
    # a direction outside the span is reported as residual, not absorbed
    extra = rng.normal(size=delta.shape)
    assert M.Decomposer(data)(extra, m).residual > 0.1


def _tiny(private: bool, steps: int = 60, seed: int = 0):
    rng = np.random.default_rng(seed)
    dm = M.DataModel(d=80, mu_norm=1.0, sigma_p=0.6)
    tr, te = M.sample_data(dm, 20, rng), M.sample_data(dm, 200, rng)
    cfg = M.CNNConfig(m=4, q=3, kappa=0.1, sigma_0=0.05)
    W0 = M.init_weights(80, cfg, rng)
    tc = M.TrainConfig(eta=0.5, steps=steps, sigma_b=0.05 if private else 0.0, eval_every=10)
    return tr, te, cfg, M.train_cnn(tr, te, cfg, tc, W0=W0, noise_rng=np.random.default_rng(seed + 1))


def test_gd_coefficients_follow_the_paper_sign_pattern():
    """GD (Lemma B.1's update rules): gamma >= 0, rho_{j,r,i} has the sign of j y_i; the fit is exact."""
    tr, _, _cfg, res = _tiny(False)
    dec = res.final_decomposition
    assert res.history.residual.max() <= 1e-10
    assert dec.gamma.min() >= -1e-12
    j = np.array([1.0, -1.0])[:, None, None]
    sign = j * tr.y[None, None, :]
    assert np.min(dec.rho * sign) >= -1e-12
    assert res.history.train_loss[-1] < res.history.train_loss[0]


def test_dp_gd_decomposition_with_accumulated_noise_is_exact():
    _, _, _, res = _tiny(True)
    assert res.history.residual.max() <= 1e-10
    assert res.noise_sum is not None and np.any(res.noise_sum != 0)


def test_injected_noise_has_the_stated_law():
    """noise_sum = -eta sum_t b_t with b_t ~ N(0, sigma_b^2 I): entries ~ N(0, T eta^2 sigma_b^2).

    chi-square on all d * 2m entries, two-sided 99.9% interval (fails with probability 1e-3 if correct)."""
    _, _, _, res = _tiny(True, steps=60)
    v = res.noise_sum.ravel() / math.sqrt(60 * 0.5**2 * 0.05**2)
    lo, hi = scipy.stats.chi2.ppf([0.0005, 0.9995], v.size)
    assert lo <= float(v @ v) <= hi


def test_runs_are_deterministic_given_the_seed():
    a = _tiny(True, steps=30, seed=4)[3].history
    b = _tiny(True, steps=30, seed=4)[3].history
    assert np.array_equal(a.train_loss, b.train_loss) and np.array_equal(a.test_error, b.test_error)
    c = _tiny(True, steps=30, seed=5)[3].history
    assert not np.array_equal(a.train_loss, c.train_loss)


def test_dp_gd_requires_a_generator():
    rng = np.random.default_rng(0)
    dm = M.DataModel(d=10, mu_norm=1.0, sigma_p=0.5)
    tr = M.sample_data(dm, 4, rng)
    cfg = M.CNNConfig(m=2, q=3, kappa=0.1, sigma_0=0.01)
    with pytest.raises(DPTheoryError, match="Generator"):
        M.train_cnn(tr, tr, cfg, M.TrainConfig(eta=0.1, steps=2, sigma_b=0.1), W0=M.init_weights(10, cfg, rng))
