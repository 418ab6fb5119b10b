"""Every number quoted in a finding, recomputed from its pin.

The findings are the ``finding=`` strings of the claims and the findings sections of README.md and docs/
(yeshokri22.md, privacy_baselines.md, max_information.md, shi26.md, derivations/). Each test below quotes the
sentence, evaluates the theorems at the pinned point (or scans the stated range: float64 scans, with the
deciding points re-evaluated at 30 digits), and checks the quoted digits: a quoted number must round to the
printed digits (``_printed``), a stated crossover must be the first K where the sign changes. A pin moved
(K = 50 into K = 80), a constant of a statement changed, or a finding's text edited without recomputing
fails here.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
import pytest

import dptheory  # noqa: F401  (registers the papers)
from dptheory.core.claims import Finding
from dptheory.core.registry import REGISTRY
from dptheory.verify.sides import side_at_pin, side_mp

FIG = {"lam": 1, "beta": 4, "S_g": 4, "n": 50, "eta": "0.02", "sigma": 2, "b": 2}  # Ye & Shokri Figures 1-2
DPS = 30


def claim(key: str) -> Any:
    found = [c for c in REGISTRY.claims() if c.key == key]
    assert found, f"{key} is not registered (a finding's claim was re-keyed: update this test)"
    return found[0]


def pin(key: str, **match: Any) -> dict[str, Any]:
    """The claim's pinned counterexample whose entries include ``match`` (fails if the pin moved)."""
    for ce in claim(key).counterexamples:
        if all(str(ce.get(k)) == str(v) for k, v in match.items()):
            return dict(ce)
    raise AssertionError(f"{key}: no pinned counterexample with {match}; pins: {claim(key).counterexamples}")


def ev(key: str, point: dict[str, Any], term: str | None = None, check: bool = True) -> mpmath.mpf:
    t = REGISTRY.get(key)
    p = {k: v for k, v in point.items() if k in t.params}
    return t.evaluate(p, dps=DPS, term=term, check=check).value


def side(q: Any, point: dict[str, Any]) -> mpmath.mpf:
    """A claim side (Quantity) at a point, at DPS digits."""
    import sympy as sp

    exact = {k: sp.Rational(str(v)) for k, v in point.items()}
    with mpmath.workdps(DPS):
        return mpmath.mpf(side_mp(q, exact, DPS))


def np_scan(key: str, point: dict[str, Any], K: np.ndarray) -> np.ndarray:
    t = REGISTRY.get(key)
    arrays = {k: np.full(K.shape, float(mpmath.mpf(str(v)))) for k, v in point.items() if k in t.params and k != "K"}
    arrays["K"] = K.astype(float)
    return np.asarray(t.evaluate_np(arrays), dtype=float)


def _printed(value: Any, text: str) -> bool:
    """``value`` rounds to the decimal ``text`` at the digits printed."""
    digits = len(text.split(".")[1]) if "." in text else 0
    return f"{float(value):.{digits}f}" == text


def _in_finding(key: str, *numbers: str) -> None:
    """The quoted numbers still appear in the claim's finding (so the test follows the text)."""
    text = claim(key).finding_text
    for n in numbers:
        assert re.search(r"(?<![\d.])" + re.escape(n) + r"(?![\d])", text), f"{key}: finding no longer quotes {n}"


# ----------------------------------------------------------------------------- Ye & Shokri 2022
def test_C1b_ratio_84_at_K1_44_at_K2_933_at_K200_never_near_n_over_b() -> None:
    """C1b: 'Thm 2.1 / Thm 3.3(first batch) is 84.3 at K = 1, 44.2 at K = 2 (its minimum), and 933 at K = 200,
    for alpha = 10 and 15 alike ... never within a factor 1.7 of n/b on K = 1..200'; README '44 to 933 times'."""
    _in_finding("yeshokri22.C1b", "84.3", "44.2", "933", "1.7")
    p = pin("yeshokri22.C1b", K=1)
    assert p["alpha"] == 10 and all(str(p[k]) == str(v) for k, v in FIG.items())
    for alpha in (10, 15):
        pt = {**FIG, "alpha": alpha, "j0": 0}
        K = np.arange(1, 201)
        ratio = np_scan("yeshokri22.thm2_1", pt, K) / np_scan("yeshokri22.thm3_3", pt, K)
        assert int(np.argmin(ratio)) + 1 == 2
        for k, want in ((1, "84.3"), (2, "44.2"), (200, "933")):
            r = ev("yeshokri22.thm2_1", {**pt, "K": k}) / ev("yeshokri22.thm3_3", {**pt, "K": k})
            assert _printed(r, want), f"alpha = {alpha}, K = {k}: ratio {mpmath.nstr(r, 6)}, finding says {want}"
        assert ratio.min() / 25 > 1.7


@pytest.mark.parametrize("side,balle,j0", [("C3c", "balle_first", "0"), ("C3d", "balle_last", "last")])
def test_C3_thm33_vs_balle_above_for_K2_to_6_below_from_K7(side: str, balle: str, j0: str) -> None:
    """C3c/C3d: 'below Balle et al. at K = 1 [last batch: equal, both are G], above it for K = 2..6 and below
    it for every K >= 7 (alpha = 10 and 15)'; pin at K = 2."""
    _in_finding(f"yeshokri22.{side}", "2..6", "7")
    p = pin(f"yeshokri22.{side}", K=2)
    assert p["alpha"] == 10
    for alpha in (10, 15):
        pt = {**FIG, "alpha": alpha, "j0": 0 if j0 == "0" else 50 // 2 - 1}
        K = np.arange(1, 201)
        diff = np_scan("yeshokri22.thm3_3", pt, K) - np_scan(f"yeshokri22.{balle}", pt, K)
        assert (diff[1:6] > 0).all() and (diff[6:] < 0).all(), (alpha, diff[:8])
        for k in (1, 2, 6, 7):  # the deciding points at 30 digits
            a, b = ev("yeshokri22.thm3_3", {**pt, "K": k}), ev(f"yeshokri22.{balle}", {**pt, "K": k})
            if k == 1:
                assert a < b if j0 == "0" else abs(a - b) <= abs(b) * mpmath.mpf(10) ** (1 - DPS)
            else:
                assert (a > b) == (k <= 6)


def test_C7_crossovers_K34_K48_K89_and_values_at_K50() -> None:
    """C7 / README / docs: 'Thm 4.3 drops below exact composition from K = 34 and K = 48 [alpha 10, 15] ...
    alpha = 20: Thm 4.3 converges to 0.3594 there and composition only passes it at K = 89 (at K = 50: 0.3594
    vs 0.2024)'."""
    _in_finding("yeshokri22.C7", "34", "48", "0.3594", "89", "0.2024")
    p = pin("yeshokri22.C7", alpha=20)
    assert p["K"] == 50 and all(str(p[k]) == str(v) for k, v in FIG.items())
    K = np.arange(1, 121)
    for alpha, cross in ((10, 34), (15, 48), (20, 89)):
        pt = {**FIG, "alpha": alpha}
        below = np_scan("yeshokri22.thm4_3", pt, K) < np_scan("yeshokri22.composition", pt, K)
        first = int(np.argmax(below)) + 1
        assert below[first - 1:].all() and first == cross, f"alpha = {alpha}: first K below composition {first}"
        for k, want in ((cross - 1, False), (cross, True)):
            a, b = ev("yeshokri22.thm4_3", {**pt, "K": k}), ev("yeshokri22.composition", {**pt, "K": k})
            assert (a < b) == want, (alpha, k)
    a, b = ev("yeshokri22.thm4_3", p), ev("yeshokri22.composition", p)
    assert _printed(a, "0.3594") and _printed(b, "0.2024"), (a, b)


def test_C2c_divergence_threshold_alpha_26() -> None:
    """C2c: 'converges iff (b/n) exp((alpha-1) G) < 1 ... At the paper's own Figure 2 setting this already
    fails for alpha >= 26: alpha(alpha-1) 0.005 >= log 25'."""
    _in_finding("yeshokri22.C2c", "26", "0.005")
    p = pin("yeshokri22.C2c", alpha=26)
    assert all(str(p[k]) == str(v) for k, v in FIG.items())
    with mpmath.workdps(DPS):
        for alpha in (25, 26):
            G = ev("yeshokri22.composition_approx", {**FIG, "alpha": alpha, "K": 1}) * 50 / 2  # (b/n) G K, K = 1
            assert abs(G - mpmath.mpf("0.005") * alpha) < mpmath.mpf(10) ** (2 - DPS)
            assert (mpmath.mpf(2) / 50 * mpmath.exp((alpha - 1) * G) >= 1) == (alpha == 26)
        # and the recurrence itself: at alpha = 26 the bound keeps growing, at 25 it settles
        K = np.array([100, 200, 400])
        grow26 = np.diff(np_scan("yeshokri22.thm4_3", {**FIG, "alpha": 26}, K))
        grow25 = np.diff(np_scan("yeshokri22.thm4_3", {**FIG, "alpha": 25}, K))
        assert (grow26 > 1e-3).all() and (grow25 < 1e-6).all(), (grow26, grow25)  # linear growth vs settling


def test_C5g_b_not_dividing_n_values_at_K1004() -> None:
    """C5g: 'n = 25, b = 7: Thm 4.2 = 0.1258 > composition = 0.1205 at K = 1004 >= 1000 + 25/7'."""
    _in_finding("yeshokri22.C5g", "0.1258", "0.1205", "1004")
    p = pin("yeshokri22.C5g", K=1004)
    assert (p["n"], p["b"]) == (25, 7)
    assert 1 / (mpmath.mpf(p["lam"]) * mpmath.mpf(p["eta"])) + mpmath.mpf(25) / 7 <= 1004
    a, b = ev("yeshokri22.thm4_2", p), ev("yeshokri22.composition", p)
    assert _printed(a, "0.1258") and _printed(b, "0.1205"), (a, b)


def _G(p: dict[str, Any]) -> mpmath.mpf:
    return ev("yeshokri22.composition_approx", {**p, "K": 1}) * mpmath.mpf(p["n"]) / mpmath.mpf(p["b"])


def test_C5cd_first_term_is_G_composition_about_two_thirds_G() -> None:
    """C5c/C5d: 'with N = 3 and lambda eta = 0.91 the first term at K = 2 is eps0^1 = G, while two epochs of
    composition give about (2/3) G'."""
    for key in ("yeshokri22.C5c", "yeshokri22.C5d"):
        _in_finding(key, "0.91", "(2/3) G")
        p = pin(key, K=2)
        assert p["n"] // p["b"] == 3 and Fraction(str(p["lam"])) * Fraction(str(p["eta"])) == Fraction("0.91")
        G = _G(p)
        t1 = ev("yeshokri22.thm4_2", p, term="term1")
        assert abs(t1 / G - 1) < mpmath.mpf(10) ** (3 - DPS)  # eps0^1 = G exactly
        assert _printed(ev("yeshokri22.composition", p) / G, "0.67")


def test_C6_without_replacement_about_1_9_G_vs_shuffle_2_5_G() -> None:
    """C6: 'with N = n/b = 2 and eta lambda = 0.1 ... the without-replacement bound (about 1.9 G) is below the
    shuffle bound (about 2.5 G)'."""
    _in_finding("yeshokri22.C6", "2.37 G", "2.5 G")
    p = pin("yeshokri22.C6", K=3)
    assert p["n"] // p["b"] == 2 and _printed(Fraction(str(p["lam"])) * Fraction(str(p["eta"])), "0.1")
    G = _G(p)
    a, b = ev("yeshokri22.thm4_3", p), ev("yeshokri22.thm4_2", p)
    assert a < b and _printed(b / G, "2.5")


def test_C6_quoted_2_37_G() -> None:
    """C6: 'the without-replacement bound (about 2.37 G)' at its pin (N = 2, eta lambda = 0.1009, K = 3); the
    finding said 1.9 G until the known-values work recomputed it (1.731 G is the value at K = 2)."""
    _in_finding("yeshokri22.C6", "2.37 G")
    p = pin("yeshokri22.C6", K=3)
    assert _printed(ev("yeshokri22.thm4_3", p) / _G(p), "2.37")


def test_C9c_eps0N_about_G_over_2_vs_0_4_G() -> None:
    """C9c: 'n = 5, b = 2: eps0^2 ~ G/2 > 0.4 G'."""
    _in_finding("yeshokri22.C9c", "n = 5, b = 2", "0.4 G")
    p = pin("yeshokri22.C9c", n=5, b=2)
    c = claim("yeshokri22.C9c")
    with mpmath.workdps(DPS):
        lhs, rhs = side(c.lhs, p), side(c.rhs, p)  # eps0^N and (b/n) G
        G = _G(p)
        assert abs(rhs / G - mpmath.mpf("0.4")) < mpmath.mpf(10) ** (2 - DPS)
        assert _printed(lhs / G, "0.5") and lhs > rhs


def test_C9b_increment_at_K1_exceeds_eps0N() -> None:
    """C9b: 'at K = 1 [the increment] is eps0^h, which exceeds eps0^N' (pin: Figure setting, alpha = 10, K = 1)."""
    p = pin("yeshokri22.C9b", K=1, alpha=10)
    c = claim("yeshokri22.C9b")
    with mpmath.workdps(DPS):
        t1 = [ev("yeshokri22.thm4_2", {**p, "K": k}, term="term1") for k in (1, 2)]
        inc = t1[1] - t1[0]
        assert abs(side(c.lhs, p) - inc) <= abs(inc) * mpmath.mpf(10) ** (3 - DPS)
        assert inc > side(c.rhs, p)  # eps0^N


# ----------------------------------------------------------------------------- max-information, PAC-Bayes, Shi
def test_dwork_C21_as_extracted_1_1_vs_0_707() -> None:
    """dwork15.C21_as_extracted: 'at tau = c = 1, n = 2, beta = 0.1 the route gives e^1 e^-1 + 0.1 = 1.1 >
    exp(-1/2) + 0.1 = 0.707'."""
    _in_finding("dwork15.C21_as_extracted", "1.1", "0.707")
    p = pin("dwork15.C21_as_extracted", n=2)
    route = ev("dwork15.cor21_route", {**p, "k": 1})  # k = tau^2/c^2 as extracted
    assert _printed(route, "1.1") and _printed(ev("dwork15.cor21", p), "0.707")


def test_dwork_cor22_constant_x_star_7_8019246811() -> None:
    """docs/max_information.md / maxinfo_route.md: 'larger than a fixed constant' is x* = 7.8019246811...: the
    route (Thm 20 + Thm 13 + McDiarmid) equals exp(-3x/4) at x = tau^2/(c^2 n) = x*."""

    def gap(tau: mpmath.mpf) -> mpmath.mpf:
        pt = {"tau": tau, "c": 1, "n": 1}
        return mpmath.log(ev("dwork15.cor22_route", pt)) + 3 * tau**2 / 4

    with mpmath.workdps(DPS):
        lo, hi = mpmath.sqrt(mpmath.mpf("7.80")), mpmath.sqrt(mpmath.mpf("7.81"))
        assert gap(lo) > 0 > gap(hi)
        for _ in range(40):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if gap(mid) > 0 else (lo, mid)
        assert mpmath.nstr(lo**2, 11) == "7.8019246811"


def test_maxinfo_C1_theorem_B_above_A_at_the_pins() -> None:
    """maxinfo.C1: '(n = 1, beta = 1e-9: B = 0.0259 > A = 0.0127 nats) or when E m zeta^2/sigma^2 is large
    (n = 10, sigma = 0.1: B > A)'."""
    for match in ({"n": 1}, {"n": 10}):
        p = pin("maxinfo.C1", **match)
        assert ev("maxinfo.thmB_derived", p) > ev("maxinfo.thmA_derived", p)


def test_maxinfo_C1_quoted_digits() -> None:
    """maxinfo.C1: 'n = 1, beta = 1e-9: B = 0.02642 > A = 0.01288 nats' (the finding quoted 0.0259 / 0.0127 until
    the known-values work recomputed them from the pin)."""
    _in_finding("maxinfo.C1", "0.02642", "0.01288")
    p = pin("maxinfo.C1", n=1)
    assert _printed(ev("maxinfo.thmB_derived", p), "0.02642") and _printed(ev("maxinfo.thmA_derived", p), "0.01288")


def test_pacbayes_C1_0_53122_vs_0_52996_and_9_508_vs_9_028() -> None:
    """pacbayes.C1: 'm = 100, eps = 1/2, delta = 1e-9: 0.53122 (variant) vs 0.52996 (DR18); m = 5, eps = 2:
    9.508 vs 9.028'."""
    _in_finding("pacbayes.C1", "0.53122", "0.52996", "9.508", "9.028")
    for m, want_v, want_d in ((100, "0.53122", "0.52996"), (5, "9.508", "9.028")):
        p = pin("pacbayes.C1", m=m)
        v = ev("pacbayes.dr18_maxinfo_variant_derived", p, term="rhs")
        d = ev("dr18.dp_prior", p, term="rhs")
        assert _printed(v, want_v) and _printed(d, want_d), (m, v, d)


def test_shi26_lemma39_replace_one_ratio_1_998() -> None:
    """shi26.F_lemma39_sensitivity: 'ratio -> 2; 1.998 at the paper's sigma_p = 0.5'."""
    _in_finding("shi26.F_lemma39_sensitivity", "1.998")
    p = pin("shi26.F_lemma39_sensitivity", sigma_p="0.5")
    with mpmath.workdps(DPS):  # the closed form of the ratio: (||mu||^2 + 6 s^2 d)/(2||mu||^2 + 3 s^2 d)
        r = ev("shi26.gaussian_rdp_replace", p) / ev("shi26.lemma39_rdp", p)
        assert _printed(r, "1.998")
        s2d = mpmath.mpf("0.25") * 2000
        assert abs(r - (1 + 6 * s2d) / (2 + 3 * s2d)) < mpmath.mpf(10) ** (2 - DPS)


def test_route_superlinear_flat_in_n_about_14_nats() -> None:
    """maxinfo.route_superlinear (formerly lz26.C2): '(n = 100, sigma = 1000 zeta, beta = 1e-6: route(200) <
    2 route(100)) ... The route stays far above Theorem B there (about 14 C nats vs 0.05 nats)'."""
    p = pin("maxinfo.route_superlinear", n=100)
    r100 = ev("maxinfo.dp_route_rogers_asymptotic", p)
    r200 = ev("maxinfo.dp_route_rogers_asymptotic", {**p, "n": 200})
    assert r200 < 2 * r100 and _printed(r100, "14")


# ----------------------------------------------------------------------------- findings are rendered from their pins
@pytest.mark.parametrize("key", sorted(c.key for c in REGISTRY.claims() if c.finding))
def test_every_finding_renders_without_an_unresolved_field(key: str) -> None:
    """A finding's text, as shown, has every ``{field}`` of its template filled (a typo in a field name, a
    value function that misses one, or a literal brace left unescaped fails here)."""
    text = claim(key).finding_text
    assert text and not re.search(r"\{[A-Za-z_]\w*(:[^{}]*)?\}", text), f"{key}: unresolved field in {text!r}"


def _moved(key: str, **changes: Any) -> Any:
    """A copy of the registered claim with its first pin changed (the registry is not touched)."""
    import dataclasses

    c = claim(key)
    return dataclasses.replace(c, counterexamples=({**c.counterexamples[0], **changes}, *c.counterexamples[1:]))


def test_moving_a_pin_changes_the_finding_text() -> None:
    """C5b's text quotes lambda eta, the epoch threshold 1/(lambda eta) + n/b and both sides at the pin: moving
    the pin's lambda (32/5 -> 16/5) moves each of them (they were typed by hand before: 192/365 and 3.90, while the
    pin gives 96/365 and 5.80)."""
    c = claim("yeshokri22.C5b")
    assert "lambda eta = 96/365" in c.finding_text and "n/b = 5.80," in c.finding_text
    moved = _moved("yeshokri22.C5b", lam="16/5")
    assert "lambda eta = 48/365" in moved.finding_text and "n/b = 9.60," in moved.finding_text
    lhs = side_at_pin(moved, "lhs")
    assert f"Thm 4.2 = {float(lhs):.2f} exceeds" in moved.finding_text and "2565.10" not in moved.finding_text
    # a pin's entry quoted as it is (C5g: n, b and K)
    g = _moved("yeshokri22.C5g", K=1005)
    assert "at K = 1005 >= 1000 + 25/7" in g.finding_text and "at K = 1004" in claim("yeshokri22.C5g").finding_text


def test_finding_fields_format_rationals_and_decimals_as_the_texts_do() -> None:
    """``frac`` prints p/q, float specs round, ``g`` prints an unpadded exponent (1e-9, as the texts write it)."""
    f = Finding("{a:frac} {b:.2f} {c:g} {d:g} {e}", lambda _c: {"a": "32/5", "b": "2.345", "c": "1e-9", "d": "0.005",
                                                                    "e": 7})
    assert f.render(claim("yeshokri22.C5b")) == "32/5 2.35 1e-9 0.005 7"
