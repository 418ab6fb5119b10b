"""Python examples in the docs run as written (docs/interactive.md)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
BLOCKS = [(p.name, i, code) for p in sorted(DOCS.glob("*.md"))
          for i, code in enumerate(re.findall(r"```python\n(.*?)```", p.read_text(), flags=re.S))
          if p.name == "interactive.md"]


def test_interactive_page_has_examples():
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("name, i, code", BLOCKS, ids=[f"{n}[{i}]" for n, i, _ in BLOCKS])
def test_doc_block_runs(name, i, code):
    ns: dict = {}
    for j in range(i):  # blocks of a page share state, like notebook cells
        exec(compile(next(c for n, k, c in BLOCKS if n == name and k == j), f"{name}[{j}]", "exec"), ns)
    exec(compile(code, f"{name}[{i}]", "exec"), ns)
