"""The docs run and do not drift: Python examples run as written (docs/interactive.md), and every file
path and dotted name that the prose names exists.

Where references are looked for: README.md, ``docs/**/*.md`` (the whole text, code blocks included), and
the docstrings and ``#`` comments of ``dptheory/**/*.py`` (string literals of code are not prose and are
not read).

What counts as a reference, and when it exists:

* a **repository path**: a token that starts with ``dptheory/``, ``docs/``, ``tests/``, ``bench/``,
  ``reports/`` or ``checks/`` and is not the tail of a longer path (``~/.cache/dptheory/x`` and
  ``/path/mypaper/theorems.py`` are examples, not references). It is resolved against the repository root;
  a trailing ``.`` or ``/`` is punctuation. ``*`` and ``<name>`` are wildcards and ``{a,b}`` alternatives:
  every alternative must match at least one file;
* a **package-relative path**: a token ``folder/.../name.py`` that does not start with one of those roots
  (``numerics/sgm.py``). It is resolved against ``dptheory/``, the package being the only place a module
  of ours lives;
* a **Markdown link** ``[text](target)`` in a ``.md`` file whose target is not a URL or an anchor: resolved
  against the folder of that file;
* a **package-relative dotted name** in backticks, ``x.y[.attr...]`` (the whole backticked text, and not a
  file name such as ``report.toml``): in a module of ours whose folder holds a module ``x``, it is resolved
  against that folder's package (``kernels.thm_b_arb`` in ``papers/maxinfo/theorems.py``); otherwise, when
  ``x`` is a subpackage of ``dptheory`` or one of the folders of its former layout (``FORMER``), against
  ``dptheory`` (``numerics.binomial``, ``theorems.shi_2026_claims``). A registry key
  (``rdp.gaussian``, listed in ``dptheory/papers/index.json``) and any other ``x`` (``yeshokri22.C5``,
  ``np.log``) are not module references;
* a **dotted name** ``dptheory.x.y[.attr...]``: its longest prefix that is a module of the package (a file
  ``x/y.py`` or ``x/y/__init__.py`` under ``dptheory/``) must be followed only by names defined there. The
  names of a module are read from its source (top-level ``def``, ``class``, assignment, import, and the
  entries of ``__all__``, which is how the lazy PEP 562 exports are named), without importing it, so no
  optional package is needed; a name imported from another module of ours is followed into that module, and
  the names of a class are those of its body.

The exceptions are in ``OWN``, each with its reason: the tutorial's own examples (a paper package the
reader writes) and two cgroup file names that read like dotted names.
"""

from __future__ import annotations

import ast
import glob
import io
import json
import re
import tokenize
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
PKG = REPO / "dptheory"
BLOCKS = [
    (p.name, i, code)
    for p in sorted(DOCS.glob("*.md"))
    for i, code in enumerate(re.findall(r"```python\n(.*?)```", p.read_text(), flags=re.S))
    if p.name == "interactive.md"
]


def test_interactive_page_has_examples():
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("name, i, code", BLOCKS, ids=[f"{n}[{i}]" for n, i, _ in BLOCKS])
def test_doc_block_runs(name, i, code):
    ns: dict = {}
    for j in range(i):  # blocks of a page share state, like notebook cells
        exec(compile(next(c for n, k, c in BLOCKS if n == name and k == j), f"{name}[{j}]", "exec"), ns)
    exec(compile(code, f"{name}[{i}]", "exec"), ns)


# ----------------------------------------------------------------------------- references
ROOTS = ("dptheory", "docs", "tests", "bench", "reports", "checks")
_PART = r"(?:[\w.*-]|<\w+>|\{[\w.,-]+\})"
REPO_PATH = re.compile(rf"(?<![\w./~$-])(?:{'|'.join(ROOTS)})/{_PART}*(?:/{_PART}*)*")
RELATIVE_PY = re.compile(r"(?<![\w./~$-])(?!(?:" + "|".join(ROOTS) + r")/)[A-Za-z_]\w*(?:/[\w-]+)*/\w+\.py\b")
LINK = re.compile(r"\]\(([^)\s]+)\)")
DOTTED = re.compile(r"(?<![\w.])dptheory(?:\.[A-Za-z_]\w*)+")
RELATIVE_DOTTED = re.compile(r"(?<=`)[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?=`)")
#: folders of the package's former layout (before ``dptheory/papers/``): a reference into them is stale
FORMER = ("theorems", "experiments", "figures")
FILE_SUFFIXES = ("py", "md", "toml", "json", "csv", "pdf", "png", "tex", "txt", "cfg", "ini")
KEYS = frozenset(item["key"] for item in json.loads((PKG / "papers" / "index.json").read_text())["items"])
SUBPACKAGES = tuple(sorted(p.parent.name for p in PKG.glob("*/__init__.py")))

#: the tutorial's own paper package (docs/adding_a_paper.md: the reader writes it, so it is not in the tree)
OWN = {
    "toy26/__init__.py": "docs/adding_a_paper.md: the file the reader creates",
    "toy26/theorems.py": "docs/adding_a_paper.md: the file the reader creates",
    "toy26/claims.py": "docs/adding_a_paper.md: the file the reader creates",
    "toy26/figures.py": "docs/adding_a_paper.md: the file the reader creates",
    "toy26/known_values.py": "docs/adding_a_paper.md: the file the reader creates",
    "dptheory/papers/toy26/": "docs/adding_a_paper.md: where the reader may put the toy paper in the tree",
    "dptheory.papers.toy26.theorems": "docs/adding_a_paper.md: the import of the toy paper placed in the tree",
    "memory.max": "dptheory/core/memory.py: the cgroup v2 file of the memory limit, not a module",
    "memory.limit_in_bytes": "dptheory/core/memory.py: the cgroup v1 file of the memory limit, not a module",
}


@cache  # the files do not change during a run; several scans read the same module
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _docstring_owners(body: list[ast.stmt]) -> Iterator[ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef]:
    """Every class and function defined in ``body``, at any depth (inside ``if``, ``try``, ``with``, other
    definitions): only statements can define them, so only statement lists are walked (``ast.walk`` also visits every
    expression node, several times the work)."""
    for node in body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(node, field, None)
            statements = (ast.stmt, ast.excepthandler, ast.match_case)
            if isinstance(block, list) and block and isinstance(block[0], statements):
                yield from _docstring_owners(block)  # type: ignore[arg-type]


def _sources() -> Iterator[tuple[str, int, str]]:
    """(file, line, text) of every piece of prose that may name a path or a module."""
    for path in [REPO / "README.md", *sorted(DOCS.rglob("*.md"))]:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            yield str(path.relative_to(REPO)), n, line
    for path in sorted(PKG.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        rel = str(path.relative_to(REPO))
        tree = _tree(path)
        for node in (tree, *_docstring_owners(tree.body)):
            body = node.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                for k, line in enumerate(body[0].value.value.splitlines()):
                    yield rel, body[0].lineno + k, line
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                yield rel, tok.start[0], tok.string


def _alternatives(pattern: str) -> list[str]:
    m = re.search(r"\{([^}]*)\}", pattern)
    if not m:
        return [re.sub(r"<\w+>", "*", pattern)]
    return [
        alt for part in m.group(1).split(",") for alt in _alternatives(pattern[: m.start()] + part + pattern[m.end() :])
    ]


def _path_exists(base: Path, ref: str) -> bool:
    for alt in _alternatives(ref):
        if not glob.glob(str(base / alt)):
            return False
    return True


def _module_file(dotted: str) -> Path | None:
    rel = Path(*dotted.split("."))
    for cand in (REPO / rel.with_suffix(".py"), REPO / rel / "__init__.py"):
        if cand.is_file():
            return cand
    return None


def _names(body: list[ast.stmt]) -> dict[str, ast.AST]:
    """The names a module or class body defines (inside ``if``/``try`` too), each with its defining node."""
    out: dict[str, ast.AST] = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for leaf in ast.walk(t):
                    if isinstance(leaf, ast.Name):
                        out[leaf.id] = node
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
            ):
                for elt in getattr(node.value, "elts", []):
                    if isinstance(elt, ast.Constant) and isinstance(elt.value, str):
                        out.setdefault(elt.value, node)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                out[(alias.asname or alias.name).split(".")[0]] = node
        elif isinstance(node, (ast.If, ast.Try)):
            for block in (
                node.body,
                node.orelse,
                *(h.body for h in getattr(node, "handlers", [])),
                getattr(node, "finalbody", []),
            ):
                for name, sub in _names(block).items():
                    out.setdefault(name, sub)
    return out


@cache
def _module_names(dotted: str) -> dict[str, ast.AST]:
    path = _module_file(dotted)
    assert path is not None
    return _names(_tree(path).body)


def _bases(module: str, cls: ast.ClassDef) -> list[str]:
    """The dotted names of a class's bases defined in the package (a class of the module or imported from one)."""
    names = _module_names(module)
    out = []
    for base in cls.bases:
        if not isinstance(base, ast.Name):
            continue
        node = names.get(base.id)
        if isinstance(node, ast.ClassDef):
            out.append(f"{module}.{base.id}")
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("dptheory"):
            out.append(f"{node.module}.{base.id}")
    return out


def _attribute_exists(module: str, attrs: list[str]) -> bool:
    names = _module_names(module)
    cls: ast.ClassDef | None = None
    for i, attr in enumerate(attrs):
        node = names.get(attr)
        if node is None and cls is not None:  # inherited from a base class of the package
            return any(_dotted_exists(".".join([base, *attrs[i:]])) for base in _bases(module, cls))
        if node is None:
            return _module_file(f"{module}.{attr}") is not None and _attribute_exists(
                f"{module}.{attr}", attrs[i + 1 :]
            )
        rest = attrs[i + 1 :]
        if not rest:
            return True
        if isinstance(node, ast.ClassDef):
            names, cls = _names(node.body), node
            continue
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("dptheory"):
            return _dotted_exists(".".join([node.module or "", attr, *rest]))
        return True  # an attribute of a value or of another package: not followed
    return True


def _dotted_exists(dotted: str) -> bool:
    parts = dotted.split(".")
    for k in range(len(parts), 0, -1):
        module = ".".join(parts[:k])
        if _module_file(module) is not None:
            return _attribute_exists(module, parts[k:])
    return False


#: the conventional aliases of the libraries the package uses, foreign wherever they appear
CONVENTIONAL = frozenset({"mp", "np", "sp", "math", "flint", "mpmath", "numpy", "sympy", "scipy"})


@cache  # per file (references() asks once per dotted name it meets there; the files do not change during a run)
def _foreign_names(where: str) -> frozenset[str]:
    """Names a source file binds by importing from outside the package (``mp`` of ``from mpmath import mp``)."""
    if not where.endswith(".py"):
        return frozenset()
    names = set(CONVENTIONAL)
    for node in ast.walk(_tree(REPO / where)):
        if isinstance(node, ast.Import):
            names |= {a.asname or a.name.split(".")[0] for a in node.names if not a.name.startswith("dptheory")}
        elif isinstance(node, ast.ImportFrom) and not (node.module or "").startswith("dptheory") and node.level == 0:
            names |= {a.asname or a.name for a in node.names}
    return frozenset(names)


def _absolute(where: str, ref: str) -> list[str]:
    """The ``dptheory.`` names a package-relative dotted name may stand for (empty: not a module reference):
    a sibling module of the file, or a subpackage of ``dptheory``; a name the file imports from another
    library (``mp.dps``) is no module reference."""
    first = ref.split(".")[0]
    if ref.rsplit(".", 1)[-1] in FILE_SUFFIXES or ref.startswith("dptheory.") or ref in KEYS:
        return []
    if first in _foreign_names(where):
        return []
    out = []
    folder = (REPO / where).parent
    if where.endswith(".py") and ((folder / f"{first}.py").is_file() or (folder / first / "__init__.py").is_file()):
        out.append(".".join([*folder.relative_to(REPO).parts, ref]))
    if first in SUBPACKAGES or first in FORMER:
        out.append(f"dptheory.{ref}")
    return out


@cache  # two tests read the same scan of the same files (each scan parses every module of the package)
def references() -> tuple[tuple[str, int, str, bool], ...]:
    """Every reference of the docs: ``(file, line, reference, whether it exists)``."""
    out = []
    for where, line, text in _sources():
        base = REPO / where
        refs: list[tuple[str, bool]] = []
        for m in REPO_PATH.finditer(text):
            ref = m.group(0).rstrip(".,")
            refs.append((ref, _path_exists(REPO, ref.rstrip("/"))))
        for m in RELATIVE_PY.finditer(text):
            refs.append((m.group(0), _path_exists(PKG, m.group(0))))
        if where.endswith(".md"):
            for m in LINK.finditer(text):
                target = m.group(1).split("#")[0]
                if target and not re.match(r"[a-z]+:", target):
                    refs.append((target, _path_exists(base.parent, target)))
        for m in DOTTED.finditer(text):
            refs.append((m.group(0), _dotted_exists(m.group(0))))
        for m in RELATIVE_DOTTED.finditer(text):
            candidates = _absolute(where, m.group(0))
            if candidates:
                refs.append((m.group(0), any(_dotted_exists(c) for c in candidates)))
        out += [(where, line, ref, ok) for ref, ok in refs]
    return tuple(out)


def dangling() -> list[str]:
    """Every reference of the docs that names nothing and is not an exception of ``OWN``, as ``file:line: ref``."""
    return [f"{where}:{line}: {ref}" for where, line, ref, ok in references() if not ok and ref not in OWN]


@pytest.mark.heavy
def test_every_reference_in_the_docs_exists():
    missing = dangling()
    assert not missing, f"{len(missing)} references name nothing:\n" + "\n".join(missing)


def test_the_exceptions_are_needed_and_the_scan_is_not_empty():
    """Each exception of ``OWN`` is still met in the docs and still names nothing in the tree (an exception
    that is no longer needed is removed), and the scan reads references of every kind."""
    refs = references()
    missing = {ref for _, _, ref, ok in refs if not ok}
    assert set(OWN) <= missing, f"exceptions no longer needed: {sorted(set(OWN) - missing)}"
    found = [ref for _, _, ref, ok in refs if ok]
    assert sum(ref.startswith("dptheory.") for ref in found) >= 100
    assert sum(ref.startswith(("docs/", "tests/", "dptheory/")) for ref in found) >= 100
    assert any(RELATIVE_PY.fullmatch(ref) for ref in found) and any(_absolute("docs/verdicts.md", ref) for ref in found)


def test_the_reference_rules_catch_what_they_should():
    """The rules of the module docstring, on made-up text (so that a rule that matches nothing fails here)."""
    assert [m.group(0) for m in REPO_PATH.finditer("see `dptheory/core/nothere.py`, ~/.cache/dptheory/x")] == [
        "dptheory/core/nothere.py"
    ]
    assert [m.group(0) for m in RELATIVE_PY.finditer("(`numerics/sgm.py`, dptheory/core/io.py, /a/b.py)")] == [
        "numerics/sgm.py"
    ]
    assert _path_exists(REPO, "docs/derivations/*.md") and not _path_exists(REPO, "docs/nothere/*.md")
    assert _path_exists(REPO, "tests/test_{docs,readme}.py") and not _path_exists(REPO, "tests/test_{docs,xx}.py")
    assert _dotted_exists("dptheory.core.registry.Registry.get")  # a method of a class
    assert _dotted_exists("dptheory.get")  # a lazy export, named in __all__
    assert _dotted_exists("dptheory.core.errors")
    assert not _dotted_exists("dptheory.core.registry.Registry.nothere")
    assert not _dotted_exists("dptheory.core.nothere")
    assert not _dotted_exists("dptheory.core.registry.nothere")
    assert _absolute("dptheory/papers/maxinfo/theorems.py", "kernels.thm_b_arb") == [
        "dptheory.papers.maxinfo.kernels.thm_b_arb"
    ]
    assert _absolute("docs/verdicts.md", "numerics.binomial") == ["dptheory.numerics.binomial"]
    assert _absolute("docs/verdicts.md", "theorems.shi_2026_claims") == ["dptheory.theorems.shi_2026_claims"]
    assert _absolute("dptheory/privacy/rdp.py", "rdp.gaussian") == []  # a key, beside the module rdp.py
    assert _absolute("docs/verdicts.md", "yeshokri22.C5") == [] and _absolute("docs/verdicts.md", "report.toml") == []
    # a name the file imports from another library is not a sibling module (privacy/sgm/mp.py: ``mp.dps``)
    assert _absolute("dptheory/privacy/sgm/mp.py", "mp.dps") == []
    # a sibling module that shadows a subpackage (papers/shi26/privacy.py: ``privacy.gaussian_dp``): either
    assert "dptheory.privacy.gaussian_dp" in _absolute("dptheory/papers/shi26/privacy.py", "privacy.gaussian_dp")
    assert [m.group(0) for m in RELATIVE_DOTTED.finditer("``audit.maxinfo`` and `np.log` but not a.b")] == [
        "audit.maxinfo",
        "np.log",
    ]
