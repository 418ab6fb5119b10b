"""Certificates of verdicts: what was decided, as data that an independent checker re-verifies.

A ``certified``, ``exhaustive`` or ``falsified`` verdict rests on the statement compiler and the branch and
bound. Its certificate (one JSON document per claim, ``dptheory check --certificates DIR``) states what was
decided in terms that need neither: the claim's two sides as sympy expressions (``sympy.srepr``; the paper's
shorthands written out, one symbol per name), the relation, the region (its ranges, finite choices, free
parameters, the box's change of variables and the conditions), and

* for branch and bound: every leaf box with its decision, ``"holds"`` with the decided enclosure of the
  margin on it (outward-rounded decimals), or ``"outside"`` (a condition certainly fails there; a part that
  narrowing by ``p <= g(others)`` cut off is open at the end where it meets the kept range);
* for an exhaustive set: every point with the decided enclosure of its margin, and the points outside the
  region;
* for a falsified verdict: the counterexample as exact rationals;
* where the margin decided is the reduced one (:func:`dptheory.verify.margin.margin_of` splits off factors
  that sympy proves positive), the reduced expression and those factors, so that the checker verifies
  ``margin = (product of the factors) * reduced`` itself.

The checker is :mod:`dptheory.recheck` (the trusted base; ``docs/certificates.md``). This module only writes:
the events come from :func:`dptheory.verify.certify.certify_region` and the exhaustive evaluation of
:mod:`dptheory.verify.checking` as they decide.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import sympy as sp

from dptheory.core.claims import Claim, Verdict
from dptheory.core.notation import parse_value
from dptheory.verify.margin import margin_of, symbolic_sides
from dptheory.verify.points import claim_conditions
from dptheory.verify.verdicts import ClaimResult

__all__ = ["FORMAT", "VERSION", "certificate_of", "file_name", "write_certificates"]

#: the ``format`` field of every certificate, and the version of its layout
FORMAT = "dptheory-certificate"
VERSION = 1


def certificate_of(claim: Claim, res: ClaimResult, events: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The certificate of ``res`` (None unless it is certified, exhaustive or falsified), from the decisions
    recorded while it was reached (``events``; see :func:`dptheory.verify.checking.check_claim`'s ``certificate``)."""
    if res.verdict not in (Verdict.CERTIFIED, Verdict.EXHAUSTIVE, Verdict.FALSIFIED):
        return None
    cert: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "claim": claim.key,
        "title": claim.title,
        "verdict": res.verdict.value,
        "method": res.method,
        "region_text": res.region,
        "relation": claim.relation.value,
        "factor": None if claim.factor is None else str(Fraction(str(claim.factor))),
        "versions": _versions(),
    }
    cert.update(_sides(claim))
    box = claim.region.certify
    cert["substitute"] = {k: sp.srepr(sp.sympify(e)) for k, e in (box.substitute.items() if box else ())}
    cert["free"] = sorted(box.free) if box is not None else []
    cert["conditions"] = [sp.srepr(c.relation) for c in claim_conditions(claim, domain=True)]
    m = margin_of(claim)
    if m.kind == "symbolic" and m.expr is not None:
        cert["margin"] = {"kind": "reduced", "reduced": sp.srepr(m.expr), "factors": [sp.srepr(f) for f in m.factors]}
    else:
        cert["margin"] = {"kind": "sides"}
    if res.verdict is Verdict.FALSIFIED:
        ce = res.counterexample or {}
        cert["counterexample"] = {
            "point": dict(ce.get("params", {})),
            "certified_by_us": bool(ce.get("certified")),
            "evidence": ce.get("evidence", ""),
        }
        return cert
    roots = next((e for e in events if e["kind"] == "roots"), None)
    if roots is not None:
        cert["region"] = _region_of_roots(roots)
        cert["boxes"] = [_leaf(e) for e in events if e["kind"] in ("holds", "outside") and "box" in e]
    else:
        pts = [e for e in events if "point" in e]
        cert["region"] = _region_of_points(claim)
        cert["points"] = [_point(e) for e in pts]
    return cert


def _sides(claim: Claim) -> dict[str, Any]:
    """The two sides as srepr (None, with the reason, where a side has no sympy expression)."""
    from dptheory.core.compile import CompileError, expand_shorthands

    out: dict[str, Any] = {"lhs_label": claim.lhs.label, "rhs_label": claim.rhs.label}
    both = symbolic_sides(claim)
    for name, q, i in (("lhs", claim.lhs, 0), ("rhs", claim.rhs, 1)):
        e = both[i] if both is not None else q.expression()
        if e is None:
            out[name] = None
            out[f"{name}_why"] = q.ball_reason() or "a kernel, a series or custom code"
            continue
        try:
            e = expand_shorthands(e)
        except CompileError:
            pass
        out[name] = sp.srepr(e)
    return out


def _region_of_roots(ev: Mapping[str, Any]) -> dict[str, Any]:
    """The region as the branch and bound's root boxes give it: per parameter a range, or finite choices."""
    boxes = ev["boxes"]
    ints = set(ev.get("integers", ()))
    params: dict[str, Any] = {}
    for name in boxes[0]:
        ranges = list(dict.fromkeys(tuple(b[name]) for b in boxes))
        if len(ranges) == 1:
            params[name] = {"range": list(ranges[0]), "integer": name in ints}
        else:
            params[name] = {"choices": [r[0] for r in ranges], "integer": name in ints}
    return {"params": params}


def _region_of_points(claim: Claim) -> dict[str, Any]:
    """The finite region: fixed values and choices, exact."""
    reg = claim.region
    params: dict[str, Any] = {}
    for name in claim.params:
        if name in reg.fixed:
            params[name] = {"range": [_exact(claim, name, reg.fixed[name])] * 2, "integer": False}
        elif name in reg.choices:
            params[name] = {"choices": [_exact(claim, name, v) for v in reg.choices[name]], "integer": False}
    return {"params": params}


def _exact(claim: Claim, name: str, v: Any) -> str:
    r = parse_value(v, key=claim.key, name=name)
    return str(Fraction(int(r.p), int(r.q)))


def _ends(margin: tuple[Any, Any]) -> list[str]:
    """A margin enclosure's ends as decimals rounded outward (24 significant digits)."""
    from dptheory.verify.points import ball_text

    lo, hi = margin
    return [ball_text(lo, 22)[0], ball_text(hi, 22)[1]]


def _leaf(e: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"box": {k: list(v) for k, v in e["box"].items()}, "decision": e["kind"]}
    if e["kind"] == "holds":
        out["margin"] = _ends(e["margin"])
        out["prec"] = e["prec"]
    if "open" in e:
        out["open"] = dict(e["open"])
    return out


def _point(e: Mapping[str, Any]) -> dict[str, Any]:
    pt = {k: str(Fraction(str(parse_value(v, key="point", name=k)))) for k, v in e["point"].items()}
    out: dict[str, Any] = {"point": pt, "decision": e["kind"]}
    if e["kind"] == "holds":
        out["margin"] = _ends(e["margin"])
        out["prec"] = e["prec"]
    return out


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    import dptheory

    out = {"dptheory": dptheory.__version__, "python": sys.version.split()[0]}
    for dist in ("sympy", "mpmath", "python-flint"):
        try:
            out[dist] = version(dist)
        except PackageNotFoundError:  # pragma: no cover - the three are dependencies
            out[dist] = "not installed"
    return out


def file_name(key: str) -> str:
    """The certificate file of a claim key."""
    return f"{key}.json"


def write_certificates(folder: str | os.PathLike[str], certificates: Iterable[dict[str, Any]], *,
                       replace: bool = False) -> list[Path]:
    """Write each certificate to ``folder/KEY.json`` (the folder is created), each file whole or not at all:
    deterministic JSON (sorted keys, two-space indents, exact strings). With ``replace``, the certificates of an
    earlier run left in the folder are removed afterwards (a ``.json`` file with a claim, a verdict and versions),
    so that the folder holds this run's and ``recheck`` never re-verifies a stale one. Returns the paths written."""
    from dptheory.core.io import atomic_write

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for cert in certificates:
        path = out / file_name(cert["claim"])
        with atomic_write(path) as fh:
            json.dump(cert, fh, sort_keys=True, indent=2)
            fh.write("\n")
        written.append(path)
    if replace:
        for old in sorted(set(out.glob("*.json")) - set(written)):
            try:
                data = json.loads(old.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(data, dict) and {"claim", "verdict", "versions"} <= set(data):
                old.unlink()
    return written
