"""dptheory.core.paperfile: claims as data (``[[claim]]`` tables), the claims the papers declare there, and the
loader's refusals (one line naming the file, the claim and the field, and what is accepted)."""

from __future__ import annotations

import pytest
import sympy as sp

from dptheory.core import paperfile
from dptheory.core.claims import Box, Claim, Finding, Region, Relation, TheoremSide, Verdict
from dptheory.core.errors import DPTheoryError
from dptheory.core.registry import REGISTRY
from dptheory.papers.pacbayes import theorems as P  # noqa: F401  (registers the theorems the toy claims compare)
from dptheory.verify.sides import side_at_pin

PACKAGE = "dptheory.papers.pacbayes"  # where the names the toy claims give resolve

GOOD = """
[paper.toy26]
authors = "A. Toy"
year = 2026
title = "Toy"

[[claim]]
key = "toy26.C1"
title = "McAllester above Pinsker"
citation = { paper = "toy26", item = "Section 2", note = "recalled" }
statement = "the statement"
reading = "the reading"
lhs = { theorem = "mcallester99", label = "McAllester" }
rhs = { theorem = "pacbayes.pinsker_derived" }
relation = ">"
verdict = "certified"
tags = ["ours"]
[claim.region]
description = "a box"
fixed = { emp_risk = "0.1" }
ranges = { n = [1, 100, true] }
[claim.region.certify]
intervals = { delta = ["0.001", "0.1"] }
integers = { n = [100, 200] }
log = ["delta"]
free = { KL = 1 }
max_boxes = 10

[[claim]]
key = "toy26.C2"
title = "A finding"
citation = { paper = "toy26", item = "Section 3", eq = 4 }
statement = "s"
reading = "r"
lhs = { theorem = "maurer04.kl_2sqrtn", label = "kl bound", set = { KL = 0 } }
rhs = { constant = 2, label = "two" }
relation = "<="
symbolic = "claims._pinsker_proof"
counterexamples = [{ emp_risk = 0, n = 10, delta = "0.5" }, { emp_risk = "0.5", n = 3, delta = "0.25" }]
[claim.region]
choices = { n = [10, 3] }
[claim.finding]
text = "at n = {n}, delta = {delta:frac}: {lhs:.3f} vs {rhs}; n = {n2}"
pins = [{ n = "n", delta = "delta", lhs = "lhs", rhs = "rhs" }, { n2 = "n" }]
"""


def parse(text: str) -> paperfile.PaperFile:
    return paperfile.parse(text, source="toy26/paper.toml", package=PACKAGE)


def claims(text: str) -> list[Claim]:
    return parse(text).claims(side_at_pin=side_at_pin)


def test_a_claim_table_builds_the_claim_the_python_declaration_would() -> None:
    from dptheory.papers.pacbayes import claims as C

    c1, c2 = claims(GOOD)
    pf = parse(GOOD)
    assert c1 == Claim(
        key="toy26.C1", title="McAllester above Pinsker", citation=pf.paper("toy26").item("Section 2", note="recalled"),
        statement="the statement", reading="the reading",
        lhs=TheoremSide("McAllester", theorem="mcallester99"),
        rhs=TheoremSide("pacbayes.pinsker_derived", theorem="pacbayes.pinsker_derived"),
        relation=Relation.GT, verdict=Verdict.CERTIFIED, tags=("ours",),
        region=Region(fixed={"emp_risk": "0.1"}, ranges={"n": (1, 100, True)}, description="a box",
                      certify=Box(intervals={"delta": ("0.001", "0.1")}, integers={"n": (100, 200)}, log=("delta",),
                                  free={"KL": 1}, max_boxes=10)),
    )
    assert c2.citation.equation == "4" and c2.verdict is Verdict.FALSIFIED  # pinned: falsified on record
    assert isinstance(c2.lhs, TheoremSide) and c2.lhs.set == {"KL": sp.Integer(0)}
    assert c2.rhs.expression() == 2 and c2.rhs.label == "two"
    assert c2.symbolic is C._pinsker_proof
    assert c2.region.choices == {"n": [10, 3]}
    assert c2.counterexamples == ({"emp_risk": 0, "n": 10, "delta": "0.5"},
                                  {"emp_risk": "0.5", "n": 3, "delta": "0.25"})
    assert isinstance(c2.finding, Finding)
    assert c2.finding_text == f"at n = 10, delta = 1/2: {float(side_at_pin(c2, 'lhs')):.3f} vs 2.0; n = 3"


def test_the_papers_claims_come_from_their_paper_files_registered_by_their_claims_modules() -> None:
    from dptheory.papers.maxinfo import claims as MC
    from dptheory.papers.pacbayes import claims as PC
    from dptheory.papers.yeshokri22 import claims as YC

    for package, keys in [("pacbayes", ["pacbayes.C1", "pacbayes.C2", "pacbayes.C3", "pacbayes.C4"]),
                          ("maxinfo", ["dwork15.C21", "dwork15.C21_as_extracted", "dwork15.C21_as_extracted_holds",
                                       "dwork15.C22", "maxinfo.C1", "maxinfo.C1_holds"]),
                          ("shi26", ["shi26.F_lemma39_sensitivity"]),
                          ("yeshokri22", [f"yeshokri22.{c}" for c in ("C1a", "C2a", "C2b", "C2c", "C3a", "C3b", "C3c",
                                                                       "C3d", "C4", "C6b", "C7", "C8", "C9a",
                                                                       # companions: where the findings hold
                                                                       "C3c_holds", "C3d_holds", "C7_holds",
                                                                       "C7_holds_alpha20", "C11a", "C11b")])]:
        pf = paperfile.load(f"dptheory.papers.{package}.claims", "paper.toml")
        assert [t["key"] for t in pf.claim_tables] == keys
        for key in keys:
            assert REGISTRY.get(key).key == key
            assert REGISTRY.origin(key) == f"dptheory.papers.{package}.claims"
    assert REGISTRY.get("pacbayes.C3").symbolic is PC._xi_le_2sqrt_proof
    assert REGISTRY.get("dwork15.C21").symbolic is MC._c21_symbolic
    assert REGISTRY.get("dwork15.C21").lhs.set == {"k": MC.K_CONCLUSION}
    assert REGISTRY.get("dwork15.C21_as_extracted").lhs.set == {"k": MC.K_EXTRACTED}
    assert REGISTRY.get("yeshokri22.C3a").factor == 10.0  # a "same order" claim
    assert REGISTRY.get("yeshokri22.C3b").lhs.set == {"j0": YC.J0_LAST}
    assert REGISTRY.get("yeshokri22.C3c").region.choices == {"alpha": [10, 15], "K": list(range(2, 201))}  # named
    # the findings render from the pins as the Python templates did
    assert "(n = 1, beta = 1e-9: B = " in REGISTRY.get("maxinfo.C1").finding_text
    assert "at the paper's sigma_p = 0.5)" in REGISTRY.get("shi26.F_lemma39_sensitivity").finding_text


def test_parsing_runs_no_code_names_resolve_only_when_the_claims_are_built() -> None:
    text = GOOD.replace('"claims._pinsker_proof"', '"nowhere.proof"')
    pf = paperfile.parse(text, source="toy26/paper.toml")  # no package, a module that does not exist: still data
    assert [t["key"] for t in pf.claim_tables] == ["toy26.C1", "toy26.C2"]
    with pytest.raises(DPTheoryError, match=r"\[\[claim\]\] toy26.C2: field 'symbolic' is 'nowhere.proof'"):
        pf.claims(side_at_pin=side_at_pin)
    with pytest.raises(DPTheoryError, match=r"toy26.C2: field 'finding' quotes the sides.*needs side_at_pin"):
        parse(GOOD).claims()


def _bad_parse(text: str) -> str:
    with pytest.raises(DPTheoryError) as err:
        claims(text)
    return str(err.value)


def _line(message: str, source: str = "toy26/paper.toml") -> int:
    """The line a one-line message names (``FILE:LINE: ...``)."""
    head, _, rest = message.partition(": ")
    assert head.startswith(source + ":") and rest, message
    return int(head.removeprefix(source + ":"))


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('relation = ">"', 'relation = ">"\ncolour = "red"',
         "[[claim]] toy26.C1: unknown field 'colour'; accepted: key, title"),
        ('relation = ">"', 'relation = "<<"',
         "[[claim]] toy26.C1: field 'relation' is '<<'; accepted: one of '<', '<=', '>', '>=', '=='"),
        ('verdict = "certified"', 'verdict = "verified"',
         "[[claim]] toy26.C1: field 'verdict' is 'verified'; accepted: one of 'proved', 'certified'"),
        ('verdict = "certified"', "", "[[claim]] toy26.C1: missing field 'verdict' (the verdict the check must "
         "reach: one of 'proved'"),
        ('title = "A finding"', "title = 3", "[[claim]] toy26.C2: field 'title' is 3; accepted: a string"),
        ('statement = "s"\n', "", "[[claim]] toy26.C2: missing field 'statement' (a string)"),
        ('key = "toy26.C2"', 'key = "toy26.C1"',
         "[[claim]] toy26.C1: field 'key' is 'toy26.C1'; accepted: a key no other [[claim]] of the file has"),
        ('paper = "toy26", item = "Section 2"', 'paper = "toy99", item = "Section 2"',
         "[[claim]] toy26.C1: field 'citation' is {'paper': 'toy99'"),
        ('item = "Section 3", eq = 4', 'item = "Section 3", page = 4',
         "[[claim]] toy26.C2: citation: unknown field 'page'; accepted: paper, item, eq, note"),
        ('theorem = "mcallester99"', 'theorem = "mcallester98"',
         "[[claim]] toy26.C1: field 'lhs' is {'theorem': 'mcallester98', 'label': 'McAllester'}; accepted: a "
         "registered theorem key, not 'mcallester98'"),
        ('theorem = "mcallester99"', 'theorem = "pacbayes.C4"',
         "accepted: a registered theorem key, not 'pacbayes.C4'"),
        ('label = "McAllester" }', 'label = "McAllester", term = "tail" }',
         "[[claim]] toy26.C1: field 'lhs' is {'theorem': 'mcallester99', 'label': 'McAllester', 'term': 'tail'}; "
         "accepted: a term of mcallester99: none"),
        ("set = { KL = 0 }", "set = { K = 0 }", "toy26.C2: field 'lhs' is {'theorem': 'maurer04.kl_2sqrtn', "
         "'label': 'kl bound', 'set': {'K': 0}}; accepted: set: parameters of maurer04.kl_2sqrtn: emp_risk, KL"),
        ("set = { KL = 0 }", "set = { KL = 0.5 }", "[[claim]] toy26.C2: lhs: field 'set' is {'KL': 0.5}; accepted: a "
         "table parameter = an integer, a formula in the theorem's parameters, or the dotted name module.name of a "
         "sympy expression"),
        ("set = { KL = 0 }", 'set = { KL = "n + tau" }',
         "[[claim]] toy26.C2: field 'lhs': set KL: the name 'tau' is not declared; accepted: the declared names"),
        ("set = { KL = 0 }", 'set = { KL = "claims._pinsker_proof" }',
         "[[claim]] toy26.C2: lhs: field 'set' is 'claims._pinsker_proof'; accepted: a sympy expression of the "
         "package"),
        ('rhs = { constant = 2, label = "two" }', 'rhs = { constant = 2, label = "two", theorem = "mcallester99" }',
         "[[claim]] toy26.C2: rhs: unknown field 'theorem'; accepted: constant, label"),
        ('rhs = { constant = 2, label = "two" }', 'rhs = { constant = "2", label = "two" }',
         "[[claim]] toy26.C2: rhs: field 'constant' is '2'; accepted: a number"),
        ('rhs = { theorem = "pacbayes.pinsker_derived" }', 'rhs = "pacbayes.pinsker_derived"',
         "[[claim]] toy26.C1: field 'rhs' is 'pacbayes.pinsker_derived'; accepted: a side: a table"),
        ("ranges = { n = [1, 100, true] }", "ranges = { n = [1, 100] }",
         "[[claim]] toy26.C1: region: field 'ranges' is {'n': [1, 100]}; accepted: a table parameter = "
         "[low, high, log]"),
        ("max_boxes = 10", "max_boxes = 10\nsubstitute = {}",
         "[[claim]] toy26.C1: region: certify: unknown field 'substitute'; accepted: intervals, integers"),
        ('log = ["delta"]', 'log = "delta"',
         "[[claim]] toy26.C1: region: certify: field 'log' is 'delta'; accepted: an array of parameter names"),
        ('symbolic = "claims._pinsker_proof"', 'symbolic = "_pinsker_proof"',
         "[[claim]] toy26.C2: field 'symbolic' is '_pinsker_proof'; accepted: the dotted name module.name of a "
         "function of the paper's package"),
        ('symbolic = "claims._pinsker_proof"', 'symbolic = "claims.prove_zero"',  # imported into claims, not ours
         "[[claim]] toy26.C2: field 'symbolic' is 'claims.prove_zero'; accepted: a function of the package "
         "(module.name in dptheory.papers.pacbayes); it is function from dptheory.core.symbolic"),
        ('symbolic = "claims._pinsker_proof"', 'symbolic = "claims.__builtins__"',
         "[[claim]] toy26.C2: field 'symbolic' is 'claims.__builtins__'; accepted: a function of the package"),
        ('symbolic = "claims._pinsker_proof"', 'symbolic = "claims.no_such_proof"',
         "field 'symbolic' is 'claims.no_such_proof'; accepted: a function of the package (module.name in "
         "dptheory.papers.pacbayes); module 'dptheory.papers.pacbayes.claims' has no attribute 'no_such_proof'"),
        ('symbolic = "claims._pinsker_proof"', 'symbolic = "os.system"',
         "field 'symbolic' is 'os.system'; accepted: a function of the package (module.name in "
         "dptheory.papers.pacbayes); No module named 'dptheory.papers.pacbayes.os'"),
        ('{ n2 = "n" }', '{ n2 = "sigma" }',
         "[[claim]] toy26.C2: finding: field 'pins' is {'n2': 'sigma'}; accepted: (pin 2) a new field = 'lhs', 'rhs' "
         "or one of emp_risk, n, delta"),
        ('{ n2 = "n" }', '{ n3 = "n" }',
         "[[claim]] toy26.C2: finding: field 'pins' is [{'n': 'n', 'delta': 'delta', 'lhs': 'lhs', 'rhs': 'rhs'}, "
         "{'n3': 'n'}]; accepted: exactly the template's fields: delta, lhs, n, n2, rhs"),
        ('pins = [{ n = "n"', 'values = "claims.x"\npins = [{ n = "n"',
         "[[claim]] toy26.C2: finding: give exactly one of the fields 'pins' and 'values'"),
        ('pins = [{ n = "n", delta = "delta", lhs = "lhs", rhs = "rhs" }, { n2 = "n" }]', 'values = "claims.x"',
         "[[claim]] toy26.C2: finding: field 'values' is 'claims.x'; accepted: a function of the package"),
        ('[claim.finding]\n', '[claim.finding]\ncolour = 1\n',
         "[[claim]] toy26.C2: finding: unknown field 'colour'; accepted: text, pins, values"),
        ('counterexamples = [{ emp_risk = 0,', 'counterexamples = [{ emp_risk = [0],',
         "[[claim]] toy26.C2: field 'counterexamples' is {'emp_risk': [0], 'n': 10, 'delta': '0.5'}; accepted: (pin 1) "
         "a table parameter = number or string"),
        ('relation = ">"', 'relation = ">"\nfactor = 0',
         "[[claim]] toy26.C1: field 'factor' is 0; accepted: a number > 0"),
        ('relation = ">"', 'relation = ">"\nfactor = "2"',
         "[[claim]] toy26.C1: field 'factor' is '2'; accepted: a number"),
        ("choices = { n = [10, 3] }", 'choices = { n = "n" }',
         "[[claim]] toy26.C2: region: field 'choices' is {'n': 'n'}; accepted: a table parameter = an array of values "
         "or the dotted name module.name of a list of values of the paper's package"),
        ("choices = { n = [10, 3] }", 'choices = { n = "claims.no_such_list" }',
         "[[claim]] toy26.C2: region: field 'choices' is 'claims.no_such_list'; accepted: a list of values of the "
         "package (module.name in dptheory.papers.pacbayes); module 'dptheory.papers.pacbayes.claims' has no "
         "attribute"),
        ("choices = { n = [10, 3] }", 'choices = { n = "claims._pinsker_proof" }',
         "[[claim]] toy26.C2: region: field 'choices' is 'claims._pinsker_proof'; accepted: a list of values of the "
         "package (module.name in dptheory.papers.pacbayes); it is function from dptheory.papers.pacbayes.claims"),
        ('tags = ["ours"]', "tags = [1]", "[[claim]] toy26.C1: field 'tags' is [1]; accepted: an array of strings"),
        ("[[claim]]\nkey = \"toy26.C1\"", "[[claim]]\nkey = 1",
         "[[claim]] number 1: field 'key' is 1; accepted: a string"),
    ],
)
def test_a_bad_claim_is_refused_in_one_line_naming_file_claim_and_field(old: str, new: str, message: str) -> None:
    assert old in GOOD, old
    text = GOOD.replace(old, new, 1)
    text_of = _bad_parse(text)
    assert "\n" not in text_of and message in text_of, text_of
    # the line named is the one edited (mutation: a locator that returns the table's header fails most cases)
    named = text.splitlines()[_line(text_of) - 1]
    if "missing field" in text_of or "give exactly one" in text_of:  # a problem of the table: its header
        assert named.startswith(("[", "key = ")), named  # the table's header, or its key line
    else:
        assert any(part.strip() in named for part in new.splitlines() if part.strip()), (text_of, named)


def test_a_counterexample_with_another_verdict_on_record_is_refused() -> None:
    text = GOOD.replace('relation = "<="', 'relation = "<="\nverdict = "proved"', 1)
    assert ("toy26/paper.toml:38: [[claim]] toy26.C2: field 'verdict' is 'proved'; accepted: 'falsified' (or none) "
            "when counterexamples are pinned") == _bad_parse(text)
    assert len(claims(text.replace('verdict = "proved"', 'verdict = "falsified"'))) == 2


def test_a_retired_key_is_refused_naming_the_file_and_the_claim() -> None:
    from dptheory.core.claims import RETIRED_CLAIMS, retire_claim

    retire_claim("toy26.C1", "a test")
    try:
        assert _bad_parse(GOOD) == ("toy26/paper.toml:8: [[claim]] toy26.C1: claim key toy26.C1 was retired (a test); "
                                    "use a new key")
    finally:
        del RETIRED_CLAIMS["toy26.C1"]
