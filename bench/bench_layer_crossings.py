"""Benchmark: how often a claim check crosses between the package's rooms (top-level subpackages).

Traces ``dptheory check --claim KEY`` (default ``pacbayes.C2``, a certified claim: 2279 boxes of branch
and bound; the measurement quoted in docs/architecture.md was made on ``yeshokri22.C4`` when it was certified by
127 boxes, before it was proved) with ``sys.setprofile`` and counts

* calls: every call of a Python function defined in ``dptheory`` (from anywhere);
* layer crossings: calls from a function of one room of ``dptheory/`` (core, numerics, privacy, verify,
  papers, cli, ...: the second part of the module name; ``dptheory/__init__`` counts as core) to a
  function of another room;
* upward crossings: crossings whose caller's room ranks below the callee's in the import layers of
  ``tests/test_architecture.py`` (its ``LAYERS``; papers above every layer): a lower room calling back
  into a higher one (a method of a
  core data class doing verification work for verify, a core evaluator calling a paper's kernel).

It prints the three counts and the most frequent crossing pairs (caller room -> callee room, with the
callee function). The registry is loaded before the trace starts (importing the papers is not part of a
check). No assertion. Run: ``PYTHONPATH=. python bench/bench_layer_crossings.py [KEY]``.
"""

from __future__ import annotations

import contextlib
import io
import sys
from collections import Counter
from types import FrameType
from typing import Any


def _layers() -> dict[str, int]:
    """The import layers as ``tests/test_architecture.py`` states them (its ``LAYERS``: one table), with the
    papers above every layer."""
    import ast
    from pathlib import Path

    tree = ast.parse((Path(__file__).resolve().parents[1] / "tests" / "test_architecture.py").read_text())
    table = next(
        n.value for n in tree.body if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "LAYERS"
    )
    ranks: dict[str, int] = ast.literal_eval(table)
    return {**ranks, "papers": max(ranks.values()) + 1}


RANK = _layers()


def room(module: str | None) -> str | None:
    """The room of a module name (None outside the package)."""
    if not module or not (module == "dptheory" or module.startswith("dptheory.")):
        return None
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "core"


def trace(key: str) -> tuple[int, int, int, Counter[tuple[str, str, str]]]:
    from dptheory.cli import main
    from dptheory.core.registry import REGISTRY

    REGISTRY.get(key)  # load the papers before tracing
    calls = crossings = upward = 0
    pairs: Counter[tuple[str, str, str]] = Counter()

    def prof(frame: FrameType, event: str, _arg: Any) -> None:
        nonlocal calls, crossings, upward
        if event != "call":
            return
        callee = room(frame.f_globals.get("__name__"))
        if callee is None:
            return
        calls += 1
        back = frame.f_back
        caller = room(back.f_globals.get("__name__")) if back is not None else None
        if caller is None or caller == callee:
            return
        crossings += 1
        if RANK.get(caller, RANK["papers"]) < RANK.get(callee, RANK["papers"]):
            upward += 1
        pairs[(caller, callee, frame.f_code.co_qualname)] += 1

    out = io.StringIO()
    sys.setprofile(prof)
    try:
        with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
            main(["check", "--claim", key, "--no-progress", "--json"])
    finally:
        sys.setprofile(None)
    return calls, crossings, upward, pairs


def main(argv: list[str]) -> None:
    key = argv[0] if argv else "pacbayes.C2"
    calls, crossings, upward, pairs = trace(key)
    print(f"dptheory check --claim {key}")
    print(f"calls:             {calls:>9,}")
    print(f"layer crossings:   {crossings:>9,}")
    print(f"upward crossings:  {upward:>9,}")
    print("most frequent crossings (caller room -> callee room: callee):")
    for (a, b, fn), n in pairs.most_common(15):
        print(f"  {n:>7,}  {a} -> {b}: {fn}")


if __name__ == "__main__":
    main(sys.argv[1:])
