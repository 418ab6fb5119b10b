"""Step-size and domain conditions at their boundaries, written from the papers' words.

Each row of ``BOUNDARIES`` transcribes one condition from the paper's sentence, independently of our
sympy relational: the parameter it bounds, the boundary as a function of the other parameters (exact
rational arithmetic), whether the paper's inequality is strict, and on which side the valid region lies.
For each row, starting from a valid point:

* exactly at the boundary: refused (ConditionViolated) if the paper's inequality is strict, accepted if not;
* 1e-30 inside the boundary (continuous parameters; relative to the boundary's size): accepted;
* 1e-30 outside (continuous) or one step outside (integers): refused.

This catches a condition's ``<`` mutated into ``<=`` (the boundary point is then accepted), a constant of
a condition changed (the inside or outside point flips), and a condition dropped (the outside point is
accepted). Where our threshold is a choice of ours and not the paper's (Dwork et al. Cor 22's "larger than a
fixed constant"), the row says so.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction as Fr
from typing import Any

import pytest

import dptheory  # noqa: F401  (registers the papers)
from dptheory.core.errors import ConditionViolated
from dptheory.core.registry import REGISTRY

TINY = Fr(1, 10**30)

YS = "Ye & Shokri 2022 (arXiv 2203.05363)"
FIG = {"alpha": 10, "eta": "0.02", "lam": 1, "beta": 4, "S_g": 4, "sigma": 2, "n": 50, "b": 2}
PAC = {"emp_risk": "0.05", "KL": 20, "n": 5000, "delta": "0.05"}


def q(p: dict[str, Any], name: str) -> Fr:
    return Fr(str(p[name]))


@dataclass(frozen=True)
class B:
    key: str
    base: dict[str, Any]
    param: str
    boundary: Callable[[dict[str, Any]], Fr]
    strict: bool
    valid_side: int  # -1: valid below the boundary (x < b or x <= b), +1: valid above
    sentence: str
    integer: bool = False


def _ys(extra: dict[str, Any] | None = None) -> dict[str, Any]:
    return {**FIG, **(extra or {})}


BOUNDARIES: list[B] = [
    # ------------------------------------------------------------------ Ye & Shokri 2022
    *[
        B(f"yeshokri22.{k}", _ys(x), "eta", lambda p: 2 / (q(p, "lam") + q(p, "beta")), True, -1,
          f"{YS}, {item}: step size eta < 2/(lambda + beta)")
        for k, x, item in [
            ("thm2_1", {"K": 3}, "Theorem 2.1"),
            ("thm3_3", {"K": 3, "j0": 4}, "Theorem 3.3"),
            ("thm4_2", {"K": 3}, "Theorem 4.2"),
            ("thm4_3", {"K": 2}, "Theorem 4.3"),
        ]
    ],
    B("yeshokri22.lemmaD_3", {k: v for k, v in _ys({"k": 2, "j": 3}).items() if k not in ("alpha", "S_g")}, "eta",
      lambda p: 2 / (q(p, "lam") + q(p, "beta")), True, -1, f"{YS}, Lemma D.3: eta < 2/(lambda + beta)"),
    *[
        B(f"yeshokri22.{k}", _ys({"K": 3}), "eta", lambda p: 2 / (q(p, "beta") + q(p, "lam")), False, -1,
          f"{YS}, Theorem D.5 (Balle et al. 2019) as used in Sec. D.6: eta <= 2/(beta + lambda)")
        for k in ("balle_first", "balle_last")
    ],
    B("yeshokri22.thmD_4", {k: v for k, v in _ys({"K": 3, "j0": 4}).items() if k != "lam"}, "eta",
      lambda p: 2 / q(p, "beta"), True, -1, f"{YS}, Theorem D.4 (convex, beta-smooth): eta < 2/beta"),
    *[
        B(f"yeshokri22.{k}", {**_ys({"K": 5}), "n": 50}, "eta", lambda p: 1 / q(p, "beta"), True, -1,
          f"{YS}, {item}: eta < 1/beta")
        for k, item in [("thmD_6", "Theorem D.6 (b = n)"), ("thmD_7", "Theorem D.7 (Chourasia et al. 2021, Cor. 1)")]
    ],
    B("yeshokri22.cor5_3", {"alpha": 8, "eta": "0.05", "lam": "0.01", "L": 1, "sigma_mul": "1.1", "n": 600, "b": 16,
                            "K": 3}, "eta",
      lambda p: 2 / ((q(p, "L") ** 2 + 1) / 2 + 2 * q(p, "lam")), True, -1,
      f"{YS}, Corollary 5.3: eta < 2/((L^2 + 1)/2 + 2 lambda) (Prop 5.1's smoothness plus the regulariser)"),
    *[
        B(f"yeshokri22.{k}", _ys(x), "alpha", lambda p: Fr(1), True, +1, f"{YS}, Sec. 2: Renyi order alpha > 1")
        for k, x in [("thm2_1", {"K": 3}), ("thm3_3", {"K": 3, "j0": 4}), ("thm4_2", {"K": 3}), ("thm4_3", {"K": 2}),
                     ("thmD_6", {"K": 5}), ("composition", {"K": 1})]
    ],
    # N = floor(n/b) >= 2 (Thm 3.3, 4.2): with b = 2, n = 4 is the boundary (N = 2), n = 3 gives N = 1.
    *[
        B(f"yeshokri22.{k}", _ys(x), "n", lambda p: 2 * q(p, "b"), False, +1,
          f"{YS}, {item}: N = n/b >= 2 iterations per epoch", integer=True)
        for k, x, item in [("thm3_3", {"K": 3, "j0": 0}, "Theorem 3.3"), ("thm4_2", {"K": 3}, "Theorem 4.2"),
                           ("balle_first", {"K": 3}, "Sec. D.6 (Balle et al. baseline, N - 1 in a denominator)")]
    ],
    # j0 in {0, ..., N - 1}: j0 = N - 1 is the last batch; j0 = N does not exist.
    B("yeshokri22.thm3_3", _ys({"K": 3, "j0": 0}), "j0", lambda p: Fr(int(q(p, "n") // q(p, "b")) - 1), False, -1,
      f"{YS}, Theorem 3.3: the record is in batch j0 in {{0, ..., N - 1}}", integer=True),
    B("yeshokri22.thmD_4", {k: v for k, v in _ys({"K": 3, "j0": 0}).items() if k != "lam"}, "j0",
      lambda p: Fr(int(q(p, "n") // q(p, "b")) - 1), False, -1,
      f"{YS}, Theorem D.4: batch index j0 in {{0, ..., N - 1}}", integer=True),
    # Lemma D.2, Thm D.5 at every batch position, Lemmas 3.2 and D.1 (registered in round 21)
    B("yeshokri22.lemmaD_2", {"eta": "0.1", "beta": 4, "sigma": 2, "n": 50, "b": 2, "k": 2, "j": 3}, "eta",
      lambda p: 2 / q(p, "beta"), True, -1, f"{YS}, Lemma D.2 (convex, beta-smooth): eta < 2/beta"),
    B("yeshokri22.thmD_5", _ys({"j0": 4}), "eta", lambda p: 2 / (q(p, "beta") + q(p, "lam")), False, -1,
      f"{YS}, Theorem D.5 (Balle et al. 2019): eta <= 2/(beta + lambda)"),
    B("yeshokri22.thmD_5", _ys({"j0": 0}), "j0", lambda p: Fr(int(q(p, "n") // q(p, "b")) - 1), False, -1,
      f"{YS}, Theorem D.5: data points in the mini-batch j0 in {{0, ..., n/b - 1}}", integer=True),
    B("yeshokri22.thmD_5", _ys({"j0": 0}), "n", lambda p: 2 * q(p, "b"), False, +1,
      f"{YS}, Theorem D.5 (N - j0 - 1 in a denominator for j0 < N - 1): n/b >= 2", integer=True),
    B("yeshokri22.lemma3_2_out", {"alpha": 6, "eta": "0.25", "sigma": 1, "c_lsi": 2, "L_f": "0.5", "eps_prev": 2},
      "alpha", lambda p: Fr(1), True, +1, f"{YS}, Lemma 3.2: Renyi order alpha > 1"),
    B("yeshokri22.lemmaD_1", {"alpha": 3, "c_lsi": 1, "R_alpha": "1.5", "dR_alpha": "0.5"}, "alpha",
      lambda p: Fr(1), False, +1, f"{YS}, Lemma D.1: alpha >= 1"),
    # ------------------------------------------------------------------ RDP (Mironov 2017; MTZ 2019; WBK 2019)
    B("rdp.gaussian", {"alpha": 2, "z": 1, "T": 3}, "alpha", lambda p: Fr(1), True, +1,
      "Mironov 2017 (arXiv 1702.07476) Def. 3: Renyi divergence of order alpha > 1"),
    B("rdp.subsampled_gaussian", {"alpha": 2, "q": "0.04", "z": 1, "T": 3}, "q", lambda p: Fr(1), False, -1,
      "Mironov, Talwar, Zhang 2019 (arXiv 1908.10530): sampling probability q in [0, 1]"),
    B("rdp.sampled_wor_gaussian", {"alpha": 2, "q": "0.04", "z": 1, "T": 1}, "q", lambda p: Fr(1), False, -1,
      "Wang, Balle, Kasiviswanathan 2019 (arXiv 1808.00087): sampling ratio q = b/n in [0, 1]"),
    # ------------------------------------------------------------------ PAC-Bayes
    B("pacbayes.kl_inv_upper", {"q": "0.3", "c": "0.2"}, "q", lambda p: Fr(1), False, -1,
      "binary kl: the empirical risk q is a probability, q in [0, 1]"),
    *[
        B(k, dict(PAC), "delta", lambda p: Fr(1), True, -1, f"{src}: confidence delta in (0, 1)")
        for k, src in [("maurer04.kl", "Maurer 2004 (arXiv cs/0411099) Thm 5"), ("mcallester99", "McAllester 1999"),
                       ("pacbayes.pinsker_derived", "Maurer 2004 + Pinsker")]
    ],
    B("maurer04.kl", dict(PAC), "emp_risk", lambda p: Fr(1), False, -1,
      "Maurer 2004: the empirical risk of a loss in [0, 1] lies in [0, 1]"),
    B("pacbayes.g2_maxinfo_prior_derived", {**PAC, "beta": "0.01", "k": 30}, "beta", lambda p: q(p, "delta"), True, -1,
      "Dwork et al. 2015 (arXiv 1506.02629) Thm 13 transfer with delta' = (delta - beta) e^{-k}: beta < delta"),
    B("dr18.dp_prior", {"emp_risk": "0.05", "KL": 20, "m": 5000, "delta": "0.05", "eps": "0.1"}, "delta",
      lambda p: Fr(1), True, -1, "Dziugaite & Roy 2018 (arXiv 1712.09376) Thm 4.2: delta in (0, 1)"),
    # ------------------------------------------------------------------ Dwork et al. 2015, Rogers et al. 2016
    B("dwork15.thm20", {"eps": "0.5", "n": 100, "beta": "0.05"}, "beta", lambda p: Fr(1), True, -1,
      "Dwork et al. 2015 (arXiv 1506.02629) Thm 20: beta-approximate max-information, beta in (0, 1)"),
    B("dwork15.thm13", {"k": 2, "beta": "0.1", "p_prod": "0.01"}, "p_prod", lambda p: Fr(1), False, -1,
      "Dwork et al. 2015 Thm 13: P[(S, A(S')) in O] is a probability, <= 1"),
    B("rogers16.approx_dp_maxinfo", {"eps": "0.5", "delta": "0.001", "n": 100, "C": 1, "C_beta": 1}, "eps",
      lambda p: Fr(1, 2), False, -1, "Rogers, Roth, Smith, Thakkar 2016 (arXiv 1604.03924): eps in (0, 1/2]"),
    B("rogers16.approx_dp_maxinfo", {"eps": "0.5", "delta": "0.001", "n": 100, "C": 1, "C_beta": 1}, "delta",
      lambda p: q(p, "eps"), True, -1, "Rogers, Roth, Smith, Thakkar 2016: delta in (0, eps)"),
    # ------------------------------------------------------------------ our max-information results (docs/)
    B("maxinfo.thmA_derived", {"n": 200, "m": 10, "E": 1, "zeta": 1, "sigma": 4, "beta": "0.05"}, "m",
      lambda p: q(p, "n"), False, -1, "Lampert & Zakerinia (arXiv 2605.26222) Alg. 1: batch size m <= n",
      integer=True),
    B("maxinfo.thmA_derived", {"n": 200, "m": 10, "E": 1, "zeta": 1, "sigma": 4, "beta": "0.05"}, "beta",
      lambda p: Fr(1), True, -1, "approximate max-information: beta in (0, 1)"),
    B("maxinfo.lemmaM_derived", {"mu": "0.01", "zeta": 1, "m": 5, "v_sum": 3}, "mu",
      lambda p: 1 / (4 * q(p, "zeta") ** 2 * (q(p, "m") - 1)), True, -1,
      "Lemma M (docs/derivations): 4 mu zeta^2 (m - 1) < 1"),
    B("maxinfo.lemmaM_derived", {"mu": "0.01", "zeta": 1, "m": 5, "v_sum": 3}, "v_sum",
      lambda p: q(p, "m") * q(p, "zeta") ** 2, False, -1,
      "Lemma M: the variances of m terms bounded by zeta each sum to at most m zeta^2"),
    B("lz26.gaussian_calibration", {"Delta": 1, "sigma": 2, "delta": "0.625"}, "delta", lambda p: Fr(1), True, -1,
      "Lampert & Zakerinia Sec. 2 (Dwork & Roth Thm A.1): delta in (0, 1)"),
    # ------------------------------------------------------------------ Shi et al. 2026
    B("shi26.lemma39_at_order", {"lam": 2, "T": 1000, "mu_norm": 1, "sigma_p": "0.5", "d": 2000, "sigma_b": "0.01",
                                 "n": 1000, "m": 100, "delta": "0.00001"}, "lam", lambda p: Fr(1), True, +1,
      "Shi et al. 2026, Lemma 39: for any lambda > 1 (a Renyi order)"),
    B("shi26.lemma39", {"T": 1000, "mu_norm": 1, "sigma_p": "0.5", "d": 2000, "sigma_b": "0.01", "n": 1000, "m": 100,
                        "delta": "0.00001"}, "delta", lambda p: Fr(1), True, -1,
      "Shi et al. 2026, Lemma 39: delta in (0, 1)"),
    B("shi26.lemma39_rdp", {"alpha": 2, "T": 1000, "mu_norm": 1, "sigma_p": "0.5", "d": 2000, "sigma_b": "0.01",
                            "n": 1000, "m": 100}, "alpha", lambda p: Fr(1), True, +1,
      "Shi et al. 2026, Lemma 39: RDP order > 1"),
    B("shi26.T1_gd", {"sigma_p": 1, "sigma_0": "0.01", "kappa": 1, "q": 3, "m": 10, "n": 20, "d": 1000, "eta": "0.1",
                      "c_T1": 1}, "q", lambda p: Fr(2), True, +1,
      "Shi et al. 2026, Sec. 3: Huberized ReLU of order q > 2"),
]


def _refused(key: str, point: dict[str, Any]) -> str | None:
    """The violated condition's text, or None when the theorem accepts the point."""
    try:
        REGISTRY.get(key).check(point, raise_on_violation=True)
    except ConditionViolated as exc:
        return str(exc)
    return None


def _ident(b: B) -> str:
    return f"{b.key}-{b.param}-{'strict' if b.strict else 'closed'}"


def _fr(x: Fr) -> str:
    return f"{x.numerator}/{x.denominator}"


@pytest.mark.parametrize("b", BOUNDARIES, ids=[_ident(b) for b in BOUNDARIES])
def test_condition_boundary(b: B) -> None:
    params = REGISTRY.get(b.key).params
    base = {k: v for k, v in b.base.items() if k in params}  # the shared setting, restricted to this theorem
    assert _refused(b.key, base) is None, f"{b.key}: the base point {base} must be valid: {_refused(b.key, base)}"
    x0 = b.boundary(base)
    at: int | str
    inside: int | str
    outside: int | str
    if b.integer:
        assert x0.denominator == 1
        at, inside, outside = int(x0), int(x0) + b.valid_side, int(x0) - b.valid_side
    else:
        step = TINY * max(abs(x0), Fr(1))
        at, inside, outside = _fr(x0), _fr(x0 + b.valid_side * step), _fr(x0 - b.valid_side * step)
    why = _refused(b.key, {**base, b.param: at})
    if b.strict:
        assert why is not None, f"{b.sentence}: {b.param} exactly at the boundary {x0} must be refused (strict)"
    else:
        assert why is None, f"{b.sentence}: {b.param} exactly at the boundary {x0} must be accepted: {why}"
    why = _refused(b.key, {**base, b.param: inside})
    assert why is None, f"{b.sentence}: {b.param} just inside the boundary must be accepted: {why}"
    assert _refused(b.key, {**base, b.param: outside}) is not None, (
        f"{b.sentence}: {b.param} = {outside}, just outside the boundary, must be refused"
    )


def test_every_hypothesis_on_these_keys_is_reached() -> None:
    """The table is not empty for any family that has step-size or domain conditions."""
    fams = {b.key.split(".")[0] for b in BOUNDARIES}
    assert {"yeshokri22", "rdp", "pacbayes", "maurer04", "dwork15", "rogers16", "maxinfo", "shi26", "lz26"} <= fams


def test_dwork_cor22_threshold_is_closed_at_our_constant() -> None:
    """Dwork et al. Cor 22 only says 'when tau^2/(c^2 n) is larger than a fixed constant'; we state 7.9 (>=).
    tau^2/(c^2 n) = 7.9 exactly at c = 1, n = 10, tau^2 = 79: tau is irrational, so use n instead:
    tau = 79, c = 1, n = 790 gives 79^2/790 = 7.9."""
    base = {"tau": 79, "c": 1, "n": 790}
    assert _refused("dwork15.cor22", base) is None
    assert _refused("dwork15.cor22", {**base, "n": 791}) is not None
    assert _refused("dwork15.cor22", {**base, "c": _fr(1 + TINY)}) is not None
    assert _refused("dwork15.cor22", {**base, "c": _fr(1 - TINY)}) is None


def test_gaussian_calibration_strictness_around_an_irrational_boundary() -> None:
    """L&Z Sec. 2 (Dwork & Roth Thm A.1): for eps in (0, 1), sigma >= (Delta/eps) sqrt(2 ln(1.25/delta)),
    i.e. eps = Delta sqrt(2 ln(1.25/delta))/sigma < 1: sigma^2 > 2 Delta^2 ln(1.25/delta). The boundary is
    irrational; sigma 1e-30 (relative) above it is accepted, 1e-30 below refused."""
    import mpmath

    with mpmath.workdps(80):
        s0 = mpmath.sqrt(2 * mpmath.log(mpmath.mpf(5) / 4 / mpmath.mpf("0.001")))
        up = mpmath.nstr(s0 * (1 + mpmath.mpf(10) ** -30), 60)
        down = mpmath.nstr(s0 * (1 - mpmath.mpf(10) ** -30), 60)
    assert _refused("lz26.gaussian_calibration", {"Delta": 1, "sigma": up, "delta": "0.001"}) is None
    assert _refused("lz26.gaussian_calibration", {"Delta": 1, "sigma": down, "delta": "0.001"}) is not None
