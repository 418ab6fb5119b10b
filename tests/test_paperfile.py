"""dptheory.core.paperfile: the TOML file of a paper's citations and notation, and the loader's refusals."""

from __future__ import annotations

import pytest

from dptheory.core import paperfile
from dptheory.core.citation import Paper
from dptheory.core.errors import DPTheoryError
from dptheory.core.notation import Domain

GOOD = """
[paper.toy26]
authors = "A. Toy"
year = 2026
title = "Toy"
arxiv_version = 2

[notation.toy26]
[[notation.toy26.param]]
name = "alpha"
latex = '\\alpha'
meaning = "Renyi order"
domain = "positive"
range = [1.0, 1e3]
log = true
[[notation.toy26.param]]
name = "T"
latex = "T"
meaning = "steps"
domain = "positive integer"
range = [1, 100_000]
log = false
unit = "steps"
"""


def parse(text: str) -> paperfile.PaperFile:
    return paperfile.parse(text, source="toy26/paper.toml")


def test_a_good_file_builds_the_same_objects_as_the_python_declarations() -> None:
    pf = parse(GOOD)
    assert pf.paper("toy26") == Paper(key="toy26", authors="A. Toy", year=2026, title="Toy", arxiv_version=2)
    table = pf.notation("toy26")
    assert table.paper_key == "toy26"
    assert list(table.params) == ["alpha", "T"]
    alpha, t = table["alpha"], table["T"]
    assert (alpha.latex, alpha.domain, alpha.unit) == ("\\alpha", Domain.POSITIVE, "")
    assert alpha.sample == (1.0, 1000.0, True)
    assert [type(v) for v in alpha.sample[:2]] == [float, float]
    assert t.sample == (1, 100_000, False) and [type(v) for v in t.sample[:2]] == [int, int]
    assert t.unit == "steps" and t.symbol.is_integer and t.symbol.is_positive


def test_the_package_files_load_once_and_match_their_modules() -> None:
    from dptheory.papers.lz26 import claims, theorems
    from dptheory.privacy import rdp

    assert paperfile.load("dptheory.privacy.rdp", "rdp.toml") is paperfile.load("dptheory.privacy.x", "rdp.toml")
    assert rdp.NOTATION.paper_key == "rdp" and rdp.MTZ19.key == "mtz19"
    assert theorems.NOTATION is paperfile.load(claims.__name__, "paper.toml").notation("lz26")


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('title = "Toy"\n', 'title = "Toy"\nvolume = 3\n', "[paper.toy26]: unknown field 'volume'; accepted: authors"),
        ('year = 2026\n', "", "[paper.toy26]: missing field 'year' (an integer)"),
        ('year = 2026\n', 'year = "2026"\n', "[paper.toy26]: field 'year' is '2026'; accepted: an integer"),
        ('domain = "positive"\n', 'domain = "POSITIVE"\n',
         "number 1 (alpha): field 'domain' is 'POSITIVE'; accepted: one of 'real', 'positive'"),
        ("range = [1.0, 1e3]", "range = [1e3, 1.0]",
         "number 1 (alpha): field 'range' is [1000.0, 1.0]; accepted: lo <= hi"),
        ("range = [1.0, 1e3]", 'range = [1.0, "x"]', "field 'range' is [1.0, 'x']; accepted: an array [lo, hi]"),
        ("range = [1.0, 1e3]", "range = [1.0]", "field 'range' is [1.0]; accepted: an array [lo, hi]"),
        ("log = true", 'log = "yes"', "number 1: field 'log' is 'yes'; accepted: true or false"),
        ('name = "T"', 'name = "alpha"', "number 2 (alpha): field 'name' repeats 'alpha'"),
        ('meaning = "steps"', "", "number 2: missing field 'meaning'"),
        ("[paper.toy26]", "[papers.toy26]", "the file: unknown field 'papers'; accepted: paper, notation"),
        ("year = 2026", "year = true", "field 'year' is True; accepted: an integer"),
        ("[[notation.toy26.param]]\nname = \"T\"", "[notation.toy26.extra]\nname = \"T\"",
         "[notation.toy26]: unknown field 'extra'"),
    ],
)
def test_a_bad_file_is_refused_in_one_line_naming_file_table_and_field(old: str, new: str, message: str) -> None:
    text = GOOD.replace('latex = "T"', "latex = 'T'")
    assert old in text
    with pytest.raises(DPTheoryError) as err:
        parse(text.replace(old, new, 1))
    text_of, edited = str(err.value), text.replace(old, new, 1)
    assert "\n" not in text_of and message in text_of, text_of
    # the line named is the one edited, or the table's header for a missing field (mutation: no line, or always
    # the header, fails)
    head, _, _ = text_of.partition(": ")
    assert head.startswith("toy26/paper.toml:"), text_of
    named = edited.splitlines()[int(head.removeprefix("toy26/paper.toml:")) - 1]
    if "missing field" in text_of:
        assert named.startswith("["), (text_of, named)
    else:
        assert any(part.strip() in named for part in new.splitlines() if part.strip()), (text_of, named)


def test_not_toml_and_an_undeclared_key_are_refused() -> None:
    with pytest.raises(DPTheoryError, match=r"^toy26/paper.toml:2: not valid TOML"):
        parse("# a comment\n[paper.toy26\nyear = 1")
    with pytest.raises(DPTheoryError, match=r"no \[paper.other\]; the file declares toy26"):
        parse(GOOD).paper("other")
    with pytest.raises(DPTheoryError, match=r"no \[notation.other\]; the file declares toy26"):
        parse(GOOD).notation("other")
    with pytest.raises(DPTheoryError, match=r"^cannot read dptheory/privacy/none.toml"):
        paperfile.load("dptheory.privacy.rdp", "none.toml")
