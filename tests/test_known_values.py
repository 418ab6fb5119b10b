"""Every registered theorem against values computed independently of its statement and kernels.

The values live with the theorems: the ``known_values.csv`` next to the module that registered them (columns ``key,
term, params, value, rel_tol, method, source``: a paper's folder, ``dptheory/privacy/`` for the generic ``rdp.*``
family), written by the ``known_values.py`` next to it (found from the registry, in-tree or through
``DPTHEORY_PATH``: tests/paper_obligations.py, the folders ``pytest --dptheory PREFIX`` reads), so adding a paper
touches no central file. The generators share ``dptheory/testing/known_values_gen.py``, which they load by its path.
No generator imports dptheory: each
value is the paper's printed formula re-typed and evaluated with mpmath at 60 digits (``transcription``), a
different route to the same number (``second-derivation``: the proof's recursion instead of the closed form,
a composition of other printed theorems, a root instead of a closed-form infimum), a direct enumeration or
quadrature of the definition (``brute-force``) or a peer library in float64 (``peer``: dp-accounting,
autodp). The tests never regenerate these files.

* coverage: every registered theorem has at least one row, so a new theorem without an independent value
  fails here;
* agreement: ``Theorem.evaluate`` at the row's point agrees with the row within the row's stated relative
  tolerance (``rel_tol``: 1e-40 for 60-digit computations, 1e-30 where the independent route is itself a
  numerical minimisation or quadrature, 1e-12/1e-13 for float64 peers); infinities must be infinities;
* a hand-picked point is valid by construction: if the theorem refuses it (ConditionViolated) the test
  FAILS, naming the condition, instead of skipping it;
* provenance: every row names its method and its source, and no generator (nor their shared helpers) imports
  dptheory.
"""

from __future__ import annotations

import ast
import json
from collections import Counter
from pathlib import Path

import mpmath
import pytest
from paper_obligations import known_value_files

import dptheory  # (registers the papers)
from dptheory.core.known_values import disagreement, read_csv, row_problems
from dptheory.core.registry import REGISTRY

#: the generators' shared helpers (loaded by path by each generator)
COMMON = Path(dptheory.__file__).parent / "testing" / "known_values_gen.py"


def read_rows(path: Path, label: str) -> list[dict[str, str]]:
    """The rows of one known-values CSV, each with ``where`` (``label:line``); the columns are checked."""
    try:
        return read_csv(path, label)
    except ValueError as exc:
        pytest.fail(str(exc))


def _rows() -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for path in known_value_files():
        out += read_rows(path, f"{path.parent.name}/{path.name}")
    return out


ROWS = _rows()
#: every generator of known values: each folder's known_values.py (next to its CSV) and their shared helpers
GENERATORS = [*(p.with_suffix(".py") for p in known_value_files()), COMMON]


def test_every_generator_in_the_tree_is_checked():
    """The import check below sees every known_values.py of the package (none without its CSV, none missed); the
    one in ``dptheory/core/`` is the rules module, dptheory.core.known_values, not a generator."""
    root = Path(dptheory.__file__).parent
    tree = sorted(p for p in root.rglob("known_values.py") if p.parent != root / "core")
    assert tree and set(tree) <= set(GENERATORS), sorted(set(tree) - set(GENERATORS))


def _row_id(row: dict[str, str]) -> str:
    return f"{row['where']}-{row['key']}{':' + row['term'] if row['term'] else ''}-{row['method']}"


def _is_slow(row: dict[str, str]) -> bool:
    """Terms with xi(n) (Maurer's constant) at n or m >= 5000 take 7 to more than 40 s at 46 digits (measured on
    2 loaded cores); they run with --run-slow. Every theorem keeps at least one fast row (checked below)."""
    p = json.loads(row["params"])
    return row["term"] == "rhs" and max(int(p.get("n", 0)), int(p.get("m", 0))) >= 5000


def test_every_registered_theorem_has_an_independent_value():
    have = Counter(r["key"] for r in ROWS)
    keys = sorted(t.key for t in REGISTRY.theorems())
    missing = [k for k in keys if have[k] == 0]
    assert not missing, (f"theorems without an independent known value (the known_values.csv next to the module that "
                         f"registers them): {missing}")
    unknown = sorted(set(have) - set(keys))
    assert not unknown, f"known-value rows for keys that are not registered: {unknown}"


def test_every_theorem_has_a_fast_row():
    fast = Counter(r["key"] for r in ROWS if not _is_slow(r))
    keys = sorted(t.key for t in REGISTRY.theorems())
    assert [k for k in keys if fast[k] == 0] == []


def test_rows_state_method_source_and_a_tight_tolerance():
    problems = [p for row in ROWS for p in row_problems(row)]
    assert not problems, "\n".join(problems)


def test_the_row_rules_refuse_each_kind_of_bad_row():
    """The data rules themselves (dptheory.core.known_values.row_problems), one slip at a time."""
    good = next(r for r in ROWS if r["method"] == "transcription")
    assert row_problems(good) == []
    slips = {"method": "guess", "source": "typed", "rel_tol": "1e-3", "params": '{"alpha": 2.5}', "value": "two"}
    for field, value in slips.items():
        assert len(row_problems({**good, field: value})) == 1, field
    assert row_problems({**good, "method": "peer", "rel_tol": "1e-12"})[0].endswith("in the source")


@pytest.mark.parametrize("generator", GENERATORS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_generator_does_not_import_dptheory(generator: Path) -> None:
    assert generator.is_file(), f"{generator.with_suffix('.csv')} has no generator {generator.name} next to it"
    tree = ast.parse(generator.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        elif isinstance(node, ast.Call) and getattr(node.func, "id", "") == "__import__":
            names = [getattr(a, "value", "") for a in node.args[:1]]
        else:
            continue
        assert not any(str(n).split(".")[0] == "dptheory" for n in names), (
            f"{generator.name} line {node.lineno} imports dptheory: the known values must not come from "
            "the code under test"
        )


def _check_row(row: dict[str, str]) -> None:
    failure = disagreement(row, REGISTRY.get(row["key"]))
    assert failure is None, failure


@pytest.mark.parametrize(
    "row",
    [pytest.param(r, id=_row_id(r), marks=[pytest.mark.slow] if _is_slow(r) else []) for r in ROWS],
)
def test_known_value(row):
    _check_row(row)


def test_a_refused_valid_point_fails_instead_of_skipping():
    """The agreement check itself: a row whose point violates a condition is a failure, not a skip."""
    row = next(r for r in ROWS if r["key"] == "yeshokri22.thmD_6")
    bad = {**row, "params": json.dumps({**json.loads(row["params"]), "eta": "1000"})}
    with pytest.raises(AssertionError, match="is refused"):
        _check_row(bad)
    wrong = {**row, "value": str(mpmath.mpf(row["value"]) * (1 + 1e-12))}
    with pytest.raises(AssertionError, match="relative error"):
        _check_row(wrong)

