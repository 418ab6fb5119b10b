"""Certificates (dptheory.verify.certificates) and the independent checker (dptheory.recheck).

* a certificate round-trips (JSON, and every srepr expression parses back to the same sympy object);
* `recheck` re-verifies certificates of real claims: yeshokri22.C8 on the Figure setting box (certified by branch
  and bound), yeshokri22.C3a (exhaustive), yeshokri22.C9c (falsified at a pinned point);
* a corrupted certificate is refused: a box removed (coverage gap), a margin end moved across 0, a side's
  expression changed, a counterexample moved to where the claim holds, a point of a finite set removed;
* a certifier that decides on the midpoint of a ball instead of the whole ball (monkeypatched into verify)
  writes certificates that the checker refuses;
* ties (issue 21, item 6): a claim is never falsified from a point where its margin ball contains 0 (an exact
  tie is decided exactly; a tie below every working precision stays undecided).

Toy answers are decided by the elementary algebra stated in each test, not by our code.
"""

from __future__ import annotations

import copy
import dataclasses
import json

import pytest
import sympy as sp

from dptheory.core.citation import Paper
from dptheory.core.claims import Box, Claim, Region, Relation, Verdict, formula
from dptheory.core.registry import REGISTRY
from dptheory.recheck import Refused, check_certificate, parse, recheck
from dptheory.verify.certificates import write_certificates
from dptheory.verify.checking import check_claim

x = sp.Symbol("x", positive=True)
u, v = sp.symbols("u v", nonnegative=True)
_P = Paper(key="toy", authors="dptheory", year=2026, title="toy claims for certificates")


def _claim(key: str, lhs: sp.Expr, rhs: sp.Expr, rel: Relation, region: Region, verdict: Verdict) -> Claim:
    return Claim(key=f"toy.{key}", title=key, citation=_P.item("tests"), statement=key, reading=key,
                 lhs=formula("lhs", lhs), rhs=formula("rhs", rhs), relation=rel, region=region, verdict=verdict)


def _cert(c: Claim) -> dict:
    res = check_claim(c, certificate=True, examples=5)
    assert res.certificate is not None, res.verdict
    return json.loads(json.dumps(res.certificate, sort_keys=True))  # as read back from its file


def _verdict(cert: dict) -> str:
    try:
        check_certificate(cert)
    except Refused as exc:
        return f"REFUSED: {exc}"
    return "re-verified"


#: u^2 + v^2 + 1/10 > u v on [0, 1]^2 (u^2 - u v + v^2 >= 0): certified by branch and bound
GAP = _claim("gap", u * v, u**2 + v**2 + sp.Rational(1, 10), Relation.LT,
             Region(certify=Box(intervals={"u": (0, 1), "v": (0, 1)}, max_boxes=2000)), Verdict.CERTIFIED)
#: u v < 3/4 on [0, 1]^2 fails only where u, v >= 3/4
CORNER = _claim("corner", u * v, sp.Rational(3, 4), Relation.LT,
                Region(certify=Box(intervals={"u": (0, 1), "v": (0, 1)}, max_boxes=5000)), Verdict.FALSIFIED)
#: x^2 >= x - 1/4 at x in {1/4, 1/2, 3, 7}: (x - 1/2)^2 >= 0, a tie at x = 1/2
SQUARE = _claim("square", x - sp.Rational(1, 4), x**2, Relation.LE,
                Region(choices={"x": ["1/4", "1/2", "3", "7"]}), Verdict.EXHAUSTIVE)


@pytest.fixture(scope="module")
def gap() -> dict:
    return _cert(GAP)


def test_a_certificate_round_trips(gap, tmp_path):
    (path,) = write_certificates(tmp_path, [gap])
    assert json.loads(path.read_text()) == gap and path.name == "toy.gap.json"
    for side, expr in (("lhs", GAP.lhs.expression()), ("rhs", GAP.rhs.expression())):
        assert parse(gap[side]) == expr
    assert gap["boxes"] and all(b["decision"] == "holds" for b in gap["boxes"])
    assert set(gap["versions"]) == {"dptheory", "python", "sympy", "mpmath", "python-flint"}
    assert _verdict(gap) == "re-verified"


@pytest.mark.heavy
def test_real_claims_are_re_verified(tmp_path, capsys):
    from dptheory.cli import main

    # yeshokri22.C8 on the Figure setting box it was certified on before its proof on the whole region (a claim of
    # this test: real theorems, a branch and bound over 3 parameters)
    c8 = dataclasses.replace(
        REGISTRY.get("yeshokri22.C8"), key="yeshokri22.C8_box", symbolic=None, verdict=Verdict.CERTIFIED,
        region=Region(fixed={"lam": 1, "beta": 4, "S_g": 4, "n": 50, "sigma": 2},
                      certify=Box(intervals={"alpha": (2, 32), "eta": ("0.01", "0.04")}, integers={"K": (1, 200)},
                                  max_boxes=6000)))
    keys = ["yeshokri22.C8_box", "yeshokri22.C3a", "yeshokri22.C9c"]
    certs = [check_claim(c8, certificate=True, examples=5).certificate] + [
        check_claim(REGISTRY.get(k), certificate=True, examples=5).certificate for k in keys[1:]]
    assert [c["verdict"] for c in certs] == ["certified", "exhaustive", "falsified"]
    write_certificates(tmp_path, certs)
    rows = recheck(tmp_path)
    assert [(r["claim"], r["result"]) for r in rows] == [(k, "re-verified") for k in sorted(keys)], rows
    assert main(["recheck", str(tmp_path)]) == 0
    assert "3 re-verified" in capsys.readouterr().out


def test_a_removed_box_is_a_coverage_gap(gap):
    bad = copy.deepcopy(gap)
    bad["boxes"].pop(len(bad["boxes"]) // 2)
    assert _verdict(bad).startswith("REFUSED: the boxes do not cover the region")


def test_a_margin_end_moved_across_zero_is_refused(gap):
    bad = copy.deepcopy(gap)
    bad["boxes"][0]["margin"][0] = "-1e-30"
    assert "does not decide the box" in _verdict(bad)
    bad = copy.deepcopy(gap)
    bad["boxes"][0]["margin"] = ["5", "6"]  # decided, but not the margin there: the checker's enclosure disagrees
    assert "are disjoint" in _verdict(bad)


def test_a_changed_side_is_refused(gap):
    bad = copy.deepcopy(gap)
    bad["rhs"] = sp.srepr(u**2 + v**2 - sp.Rational(1, 10))  # the margin is no longer the reduced one
    assert _verdict(bad).startswith("REFUSED: margin != factors * reduced")


def test_a_counterexample_moved_to_where_the_claim_holds_is_refused():
    cert = _cert(CORNER)
    assert cert["verdict"] == "falsified" and _verdict(cert) == "re-verified"
    cert["counterexample"]["point"] = {"u": "1/2", "v": "1/2"}
    assert "not shown to fail" in _verdict(cert)
    cert["counterexample"]["point"] = {"u": "-1", "v": "-1"}  # fails, but u, v are nonnegative
    assert "contradicts its assumption nonnegative" in _verdict(cert)


def test_a_finite_set_needs_every_point():
    cert = _cert(SQUARE)
    assert cert["verdict"] == "exhaustive" and len(cert["points"]) == 4 and _verdict(cert) == "re-verified"
    bad = copy.deepcopy(cert)
    bad["points"].pop(0)
    assert "is not in the certificate" in _verdict(bad)


def test_parsing_is_data():
    for text in ("__import__('os').system('true')", "Symbol('x').evalf()", "Add(*[1])", "lambda: 1"):
        with pytest.raises(Refused):
            parse(text)


# ------------------------------------------------------------------------------ a certifier that slips
def _midpoint_signs(m, ev):
    """The slip: the sign of the box's margin taken at the ball's midpoint."""
    mid = (ev.lo + ev.hi) / 2
    return bool(mid > 0), bool(mid < 0)


def test_a_box_decided_on_its_midpoint_is_refused(monkeypatch):
    from dptheory.verify import certify

    monkeypatch.setattr(certify, "_signs", _midpoint_signs)
    cert = _cert(CORNER)  # the root box's margin 3/4 - x y is in [-1/4, 3/4]: midpoint 1/4 > 0
    assert cert["verdict"] == "certified"
    assert "does not decide the box" in _verdict(cert)


def _midpoint_ball(d, strict):
    return bool(d.mid() > 0) if strict else bool(d.mid() >= 0), bool(d.mid() <= 0) if strict else bool(d.mid() < 0)


#: log(3 x) <= log 3 + log x: an exact tie at every x that no working precision separates
LOGTIE = _claim("logtie", sp.log(3 * x), sp.log(3) + sp.log(x), Relation.LE,
                Region(choices={"x": [str(k) for k in range(2, 40)]}), Verdict.NOT_FALSIFIED)


def test_a_point_decided_on_its_midpoint_is_refused(monkeypatch):
    from dptheory.verify import points

    monkeypatch.setattr(points, "decide_ball", _midpoint_ball)
    res = check_claim(LOGTIE, certificate=True, examples=5)
    assert res.verdict is Verdict.FALSIFIED  # the slip: some x has a margin ball around 0 with a negative midpoint
    assert "contains 0" in _verdict(json.loads(json.dumps(res.certificate)))


# ------------------------------------------------------------------------------ ties (issue 21, item 6)
def test_an_exact_tie_fails_a_strict_relation_and_holds_a_loose_one():
    one = Region(fixed={"x": 1})
    strict = _cert(_claim("tie_lt", x, x, Relation.LT, one, Verdict.FALSIFIED))
    assert strict["verdict"] == "falsified" and _verdict(strict) == "re-verified"  # 1 < 1 is false, exactly
    loose = _cert(_claim("tie_le", x, x, Relation.LE, one, Verdict.EXHAUSTIVE))
    assert loose["verdict"] == "exhaustive" and _verdict(loose) == "re-verified"
    strict["relation"] = "<="  # the tie as a counterexample of the loose relation
    assert "not shown to fail" in _verdict(strict)


def test_a_tie_below_working_precision_is_never_a_counterexample():
    """Every margin ball of LOGTIE contains 0: no point may falsify it (nor make it exhaustive)."""
    assert check_claim(LOGTIE, examples=5).verdict is Verdict.NOT_FALSIFIED
    pinned = _claim("logtie_pin", sp.log(3 * x), sp.log(3) + sp.log(x), Relation.LE,
                    Region(choices={"x": ["7"]}), Verdict.NOT_FALSIFIED)
    assert check_claim(pinned, examples=5).verdict is Verdict.NOT_FALSIFIED


def test_a_margin_below_working_precision_is_decided_by_raising_it():
    """exp(x) < exp(x) + 10^-60 at x = 1/3: the margin 10^-60 is far below 64 bits; it is certified (and
    re-verified) only once the precision separates it, and the mirror claim is falsified."""
    third = Region(fixed={"x": "1/3"})
    tiny = sp.Rational(1, 10**60)
    holds = _cert(_claim("below", sp.exp(x), sp.exp(x) + tiny, Relation.LT, third, Verdict.EXHAUSTIVE))
    assert holds["verdict"] == "exhaustive" and _verdict(holds) == "re-verified"
    fails = _cert(_claim("below_f", sp.exp(x) + tiny, sp.exp(x), Relation.LT, third, Verdict.FALSIFIED))
    assert fails["verdict"] == "falsified" and _verdict(fails) == "re-verified"


def test_recheck_exit_status(tmp_path, gap, capsys):
    from dptheory.cli import main

    bad = copy.deepcopy(gap)
    bad["boxes"].pop()
    write_certificates(tmp_path, [bad])
    assert main(["recheck", str(tmp_path)]) == 4
    assert "REFUSED" in capsys.readouterr().out
    assert main(["recheck", str(tmp_path / "none")]) == 1


def test_a_certificate_folder_holds_this_runs_certificates(gap, tmp_path, capsys):
    """`check --certificates DIR` replaces an earlier run's certificates (recheck must not re-verify a stale one,
    e.g. of a claim proved since) and refuses a folder holding anything else."""
    from dptheory.cli import main

    stale = {**gap, "claim": "toy.stale"}
    write_certificates(tmp_path, [stale])
    (tmp_path / "notes.txt").write_text("mine")
    assert main(["check", "--claim", "yeshokri22.C9c", "--certificates", str(tmp_path)]) == 1
    assert "holds notes.txt, which is not a certificate" in capsys.readouterr().err
    (tmp_path / "notes.txt").unlink()
    (tmp_path / "data.json").write_text('{"a": 1}')  # a JSON file that is not a certificate: kept
    assert main(["check", "--claim", "yeshokri22.C9c", "--certificates", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.json", "yeshokri22.C9c.json"]
