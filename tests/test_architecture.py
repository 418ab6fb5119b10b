"""The import structure: layers import only downward, no layer imports a paper, no import cycle.

Every ``import`` statement of the package is read from the source (including imports inside
functions, which run later but are dependencies all the same) and resolved to a module of the
package. Layers, lowest first (a module may import its own layer and the layers below it)::

    core < numerics < privacy < evaluate < train < audit < verify < testing < report, catalog < probe
        < cli, explore, docs_gen, errors, pytest_plugin

The independent checker of certificates (``dptheory.recheck``) imports no module of the package at all, and
outside it only the standard library, sympy and mpmath (:func:`test_the_independent_checker_shares_no_code`).

Papers (``dptheory.papers.<name>``) may import any layer and other papers; no layer imports a paper
(the catalog finds papers by discovery: it imports the ``dptheory.papers`` namespace package only). ``core`` is the
store: it neither imports nor names ``dptheory.papers`` or ``dptheory.privacy``; the composition root
``dptheory.catalog`` installs discovery into it, and the root package ``dptheory`` imports that composition root
(its one import above ``core``).
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "dptheory"
#: the composition root: the root package imports it to install discovery into the registry
COMPOSITION_ROOT = "dptheory.catalog"

LAYERS = {
    "core": 0,
    "numerics": 1,
    "privacy": 2,
    "evaluate": 3,  # the evaluation engines: sweeps, crossovers, scale-out (above core and privacy)
    "train": 4,
    "audit": 5,
    "verify": 6,
    "testing": 7,  # the tests' hypothesis strategies draw parameters as the search does (verify.space)
    "report": 8,
    "catalog": 8,
    "probe": 9,
    "explore": 10,
    "cli": 10,
    "docs_gen": 10,
    "errors": 10,  # dptheory.errors re-exports every exception class of every layer
    "__main__": 10,
    "pytest_plugin": 10,  # pytest --dptheory: runs contracts and claims, prints claims as the CLI does
    "recheck": 0,  # the independent checker: imports nothing of the package (test below)
}
#: what the independent checker may import: the trusted base (docs/certificates.md)
CHECKER_IMPORTS = {"sympy", "mpmath"}


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def resolve(node: ast.ImportFrom, mod: str, is_pkg: bool) -> str:
    if not node.level:
        return node.module or ""
    base = mod.split(".") if is_pkg else mod.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(path: Path) -> set[str]:
    """Every dptheory module a file imports (``from pkg import mod`` counts as ``pkg.mod`` when it is one)."""
    mod = module_name(path)
    is_pkg = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("dptheory"))
        elif isinstance(node, ast.ImportFrom):
            target = resolve(node, mod, is_pkg)
            if not target.startswith("dptheory"):
                continue
            for a in node.names:
                sub = f"{target}.{a.name}"
                out.add(sub if sub in MODULES else target)
    return out


FILES = sorted(ROOT.rglob("*.py"))
MODULES = {module_name(p) for p in FILES}


@functools.cache
def graph() -> dict[str, set[str]]:
    """Every module's dptheory imports (parsed on first use, not at collection: about 3 s per collecting process)."""
    return {module_name(p): imports_of(p) for p in FILES}


def layer_of(mod: str) -> tuple[str, int | None]:
    """('paper', None) for paper modules, (layer, rank) for the rest; the root package counts as core."""
    parts = mod.split(".")
    if len(parts) == 1:
        return "core", 0
    if parts[1] == "papers":
        return ("paper", None) if len(parts) > 2 else ("papers-namespace", 0)
    return parts[1], LAYERS[parts[1]]


def test_every_module_has_a_layer():
    unknown = sorted({m.split(".")[1] for m in MODULES if "." in m} - set(LAYERS) - {"papers"})
    assert not unknown, f"modules outside every layer: {unknown} (add them to LAYERS, in the docstring too)"


@pytest.mark.parametrize("mod", sorted(m for m in MODULES if layer_of(m)[0] != "paper"))
def test_layers_import_only_downward_and_never_a_paper(mod):
    name, rank = layer_of(mod)
    for dep in sorted(graph()[mod]):
        if mod == "dptheory" and dep == COMPOSITION_ROOT:
            continue  # importing the package wires the store (core) to the catalog
        dep_layer, dep_rank = layer_of(dep)
        assert dep_layer != "paper", f"{mod} ({name}) imports the paper module {dep}; layers never import papers"
        assert dep_rank is not None and rank is not None
        assert dep_rank <= rank, f"{mod} ({name}, rank {rank}) imports {dep} ({dep_layer}, rank {dep_rank}): upward"


def test_no_import_cycle():
    """Depth-first search for a cycle in the module graph (function-level imports included)."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for d in sorted(graph().get(m, ())):
            if d not in graph() or d == m:
                continue
            if state.get(d) == 1:
                return [*stack[stack.index(d) :], d]
            if d not in state:
                found = visit(d)
                if found:
                    return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph()):
        if m not in state:
            cycle = visit(m)
            assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_test_oracles_stay_out_of_the_runtime_package():
    """The quadrature oracles (``dptheory.testing.oracles``) are for tests, checks and bench: no module of the
    package imports them, so no library code path can reach them."""
    users = sorted(m for m, deps in graph().items() if "dptheory.testing.oracles" in deps)
    assert "dptheory.testing.oracles" in MODULES and not users, users


def test_the_walk_sees_imports_inside_functions():
    """The checker is not vacuous: the CLI's command module imports the sweep engine inside a function."""
    assert "dptheory.evaluate.sweep" in graph()["dptheory.cli.commands"]
    assert "dptheory.papers" in graph()[COMPOSITION_ROOT]


#: what core (the store) must not import or name: the papers, the privacy layer, the papers' index (discovery and
#: the index are the catalog's)
_NOT_IN_CORE = ("dptheory.papers", "dptheory.privacy", "dptheory/papers", "dptheory/privacy", "index.json")


def _code_strings(tree: ast.AST) -> list[tuple[int, str]]:
    """The string constants of a module that are not docstrings (documentation may cite any module)."""
    docs: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docs.add(id(body[0].value))
    return [
        (n.lineno, n.value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
    ]


def test_core_neither_imports_nor_names_papers_or_privacy() -> None:
    """core is the model: discovery and the index (which name the papers and the privacy layer's provider) live in
    the composition root ``dptheory.catalog``, installed into the registry as its finder."""
    bad: list[str] = []
    for path in sorted((ROOT / "core").rglob("*.py")):
        mod = module_name(path)
        bad += [f"{mod} imports {d}" for d in sorted(graph()[mod]) if d.startswith(_NOT_IN_CORE[:2])]
        for line, text in _code_strings(ast.parse(path.read_text())):
            if any(x in text for x in _NOT_IN_CORE):
                bad.append(f"{mod}:{line} names {text!r}")
    assert not bad, "core must not import or name papers/privacy:\n" + "\n".join(bad)


def test_hand_kernel_table_is_current() -> None:
    """docs/compiler.md lists exactly the theorems that declare a hand-written kernel (issue 10: the count of
    hand kernels before and after, each remaining one with its reason)."""
    import re

    from dptheory.core.registry import REGISTRY

    text = (ROOT.parent / "docs" / "compiler.md").read_text()
    section = text.split("## Hand-written kernels: before and after", 1)[1]
    rows = dict(re.findall(r"^\| `([A-Za-z0-9_.]+)` \| ([a-z,]+) \|", section, flags=re.M))
    declared = {
        t.key: ",".join(k for k in ("mp", "np", "arb") if getattr(t, k, None) is not None)
        for t in REGISTRY.theorems()
        if any(getattr(t, k, None) is not None for k in ("mp", "np", "arb"))
    }
    assert set(rows) == set(declared), (sorted(set(rows) - set(declared)), sorted(set(declared) - set(rows)))
    wrong = {k: (rows[k], v) for k, v in declared.items() if rows[k] != v}
    assert not wrong, f"declared kernels column differs (table, registry): {wrong}"
    for t in REGISTRY.theorems():
        if t.key in declared:
            assert t.kernel_reason, t.key


def paper_keys() -> set[str]:
    """Every registered key a paper owns: a theorem or claim key, or a figure name, whose registering module
    (``REGISTRY.origin``) is a paper package. Keys a layer declares itself (the generic ``rdp.*`` family of
    ``dptheory.privacy.theorems``) are not paper keys."""
    import dptheory  # noqa: F401  (registers the papers)
    from dptheory.core.registry import REGISTRY

    keys = {o.key for o in [*REGISTRY.theorems(), *REGISTRY.claims()]
            if REGISTRY.origin(o.key).startswith("dptheory.papers.")}
    keys |= {f.name for f in REGISTRY.figures() if REGISTRY.origin(f"figure:{f.name}").startswith("dptheory.papers.")}
    return keys


def key_literals(path: Path, keys: set[str]) -> set[str]:
    """The paper keys that a string literal of ``path`` contains as a whole word (not inside a longer key or
    name: ``yeshokri22.C5`` is not found in ``yeshokri22.C5a``). Every str constant counts (f-string parts, help
    texts, messages) except docstrings, which document and are not read by the program."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    import re

    pat = re.compile(r"(?<![\w.])(" + "|".join(re.escape(k) for k in sorted(keys, key=len, reverse=True)) + r")(?!\w)")
    return {m[1] for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
            for m in pat.finditer(node.value)}


def test_no_layer_names_a_paper_key_in_a_string() -> None:
    """No module of ``dptheory/`` outside ``dptheory/papers/`` holds a paper's key (theorem, claim or figure) in
    a string literal: a layer that names a key depends on that paper without importing it, which the import
    checks above cannot see. (Tests, checks, docs and the papers themselves name keys freely.)"""
    keys = paper_keys()
    assert {"yeshokri22.thm4_2", "yeshokri22.C5a", "yeshokri22-fig1"} <= keys and "rdp.subsampled_gaussian" not in keys
    found = {(str(p.relative_to(ROOT.parent)), k) for p in sorted(ROOT.rglob("*.py"))
             if p.relative_to(ROOT).parts[0] != "papers" for k in key_literals(p, keys)}
    assert found == set(), f"layers naming paper keys: {sorted(found)}"


def test_the_key_scan_sees_literals_and_skips_docstrings(tmp_path: Path) -> None:
    """The scan finds a key in a plain literal and an f-string, not in a docstring nor inside a longer key."""
    f = tmp_path / "m.py"
    f.write_text('"""yeshokri22.thm4_2 in a docstring"""\nA = "yeshokri22.thm4_3"\nB = f"{A} yeshokri22.C5"\n'
                 'C = "yeshokri22.thm4_2x"\n', encoding="utf-8")
    assert key_literals(f, {"yeshokri22.thm4_2", "yeshokri22.thm4_3", "yeshokri22.C5"}) == {
        "yeshokri22.thm4_3", "yeshokri22.C5"}


def _private_imports(mod: str, text: str) -> list[str]:
    """``from dptheory.x import _name`` in module ``mod`` (source ``text``) where ``_name`` belongs to another
    module; a private module of the importer's own package (``from dptheory.papers.yeshokri22 import _thm43``
    inside that package) is fine."""
    own_package = mod.rsplit(".", 1)[0]
    out = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dptheory"):
            for a in node.names:
                if a.name.startswith("_") and not a.name.startswith("__") and node.module != own_package:
                    out.append(f"{mod}:{node.lineno} imports {node.module}.{a.name}")
    return out


def test_no_module_imports_another_modules_private_names() -> None:
    """Modules talk through public names only (a private name imported elsewhere marks a boundary drawn in
    the wrong place)."""
    bad = [hit for path in sorted(ROOT.rglob("*.py")) for hit in _private_imports(module_name(path), path.read_text())]
    assert not bad, "private names imported across modules:\n" + "\n".join(bad)


def test_the_private_import_scan_sees_them() -> None:
    """The scan flags a private name of another module, also inside a function, and lets a package import its
    own private module."""
    assert _private_imports("dptheory.verify.points", "def f():\n    from dptheory.core.compile import _x\n")
    assert _private_imports("dptheory.verify.points", "from dptheory.verify.sides import _y\n")
    assert not _private_imports("dptheory.papers.yeshokri22.kernels", "from dptheory.papers.yeshokri22 import _thm43\n")
    assert not _private_imports("dptheory.verify.points", "from dptheory.core.compile import decimal_bound\n")


def test_the_independent_checker_shares_no_code():
    """dptheory/recheck.py re-verifies certificates without the compiler, the branch and bound or the evaluator:
    it imports no dptheory module, and outside the standard library only sympy and mpmath (read from the source,
    imports inside functions included)."""
    import sys

    path = ROOT / "recheck.py"
    assert not graph()["dptheory.recheck"], f"the checker imports {sorted(graph()['dptheory.recheck'])}"
    tops = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            tops |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert not node.level, "the checker uses a relative import"
            tops.add((node.module or "").split(".")[0])
    others = tops - set(sys.stdlib_module_names) - {"__future__"}
    assert others <= CHECKER_IMPORTS, f"the checker imports {sorted(others - CHECKER_IMPORTS)}"

