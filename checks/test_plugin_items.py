"""The shipped papers through the pytest plugin's own obligations (``pytest --dptheory PREFIX``,
dptheory/pytest_plugin.py): one source of truth for the contract of every theorem and the verdict on record of
every claim, plus what the shipped suite asks beyond a researcher's run.

* ``::contract``: :func:`dptheory.verify.contract.check_contract` at its seeded valid points, as the plugin runs it
  (checks/test_contracts.py adds the hypothesis-driven contracts, which are stronger);
* ``::verdict``: :func:`dptheory.verify.checking.check_claim` must reach the verdict on record, at the search size
  of the loaded hypothesis profile (``claim_examples()``; CI derandomises); here also: the result names its region,
  a not-falsified verdict comes from a search or an evaluation, a certified or exhaustive one examined boxes and
  left none undecided, and a falsified one comes from its pinned counterexamples with the evidence (the pins are
  also re-verified at 50 digits in checks/test_claims.py). A claim that the search falsifies is a new finding: pin
  the counterexample printed in the failure.

The known-value items are not repeated here: tests/test_known_values.py checks the same rows (the
``known_values.csv`` next to each registering module) with the same function
(:func:`dptheory.core.known_values.disagreement`).
"""

from __future__ import annotations

import pytest

from dptheory.core.registry import REGISTRY
from dptheory.pytest_plugin import Obligation, objects_of, obligations
from dptheory.testing.profiles import claim_examples
from dptheory.verify.checking import Verdict

#: the key prefixes of the objects dptheory ships (a paper found through DPTHEORY_PATH is the researcher's run)
SHIPPED = sorted({o.key.split(".")[0] for o in REGISTRY if (REGISTRY.origin(o.key) or "").startswith("dptheory.")})
OBLIGATIONS = [
    ob
    for prefix in SHIPPED
    for ob in obligations(*objects_of(prefix), examples=claim_examples())
    if ob.what != "known value"
]


def test_every_shipped_theorem_and_claim_has_its_obligation():
    have = {(ob.obj.key, ob.what) for ob in OBLIGATIONS}
    shipped = [o for o in REGISTRY if o.key.split(".")[0] in SHIPPED]
    assert {"yeshokri22", "rdp", "lz26", "shi26"} <= set(SHIPPED)
    assert {(o.key, "contract" if o.KIND == "theorem" else "verdict") for o in shipped} == have


@pytest.mark.parametrize("ob", [ob for ob in OBLIGATIONS if ob.what == "contract"], ids=lambda ob: ob.name)
def test_contract(ob: Obligation) -> None:
    ob.run()


@pytest.mark.parametrize("ob", [ob for ob in OBLIGATIONS if ob.what == "verdict"], ids=lambda ob: ob.name)
def test_verdict_on_record(ob: Obligation) -> None:
    claim = ob.obj
    res = ob.run()
    assert res.verdict is claim.verdict and res.region, (claim.key, res.verdict, res.method, res.notes)
    if res.verdict is Verdict.NOT_FALSIFIED:
        assert (res.examples_tried > 0 and "search" in res.method) or "evaluated" in res.method, claim.key
    if res.verdict in (Verdict.CERTIFIED, Verdict.EXHAUSTIVE):
        assert res.examples_tried > 0 and not res.undecided, claim.key
    if claim.counterexamples:
        assert res.verdict is Verdict.FALSIFIED and res.method.startswith("pinned counterexample"), res.method
        ce = res.counterexample
        assert ce is not None and ce["params"] and ce["evidence"] and claim.finding
        assert ce["certified"] == ce["evidence"].startswith("certified"), ce
    else:
        assert res.verdict is not Verdict.FALSIFIED, f"{claim.key}: a new finding, pin {res.counterexample}"
