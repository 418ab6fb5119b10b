"""Build only the backend that is asked for (issue 18, item 2).

A :class:`dptheory.core.compile.Compiled` generates and executes each backend (mpmath, float64, arb) on first
use; only the arb backend imports python-flint. Checked in process (which kernels exist after which call; one
build per backend under concurrent first use) and in fresh interpreters: ``list``, ``show`` and ``sweep``
import no ``flint``, and with python-flint unimportable a plain ``eval`` still gives the same digits while
``eval --certify`` fails with one line naming python-flint (exit 1, ``dptheory.cli``: a computation that
failed).

sympy itself imports python-flint when it is installed (its "auto" ground types), so the import checks run
with ``SYMPY_GROUND_TYPES=python``: what is measured is what dptheory imports.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import mpmath
import numpy as np
import pytest
import sympy as sp

from dptheory.core.compile import BACKENDS, Compiled, CompileError, compile_expr
from dptheory.core.compile import compiled as C

ROOT = Path(__file__).resolve().parents[1]
x, y = sp.symbols("x y", positive=True)
THM42 = ["yeshokri22.thm4_2", "alpha=10", "eta=0.02", "lam=1", "beta=4", "S_g=4", "sigma=2", "n=50", "b=2", "K=50"]


def _fresh() -> Compiled:
    # a new expression each time: nothing cached between tests
    return compile_expr(sp.log(1 + x) * y**2 + sp.exp(-x), {"x": x, "y": y})


def test_each_backend_is_built_on_first_use_only():
    c = _fresh()
    assert c.built == frozenset()
    with mpmath.workdps(30):
        v = c.mp({"x": mpmath.mpf(1), "y": mpmath.mpf(2)})
    assert c.built == {"mp"}
    assert float(c.np({"x": np.array([1.0]), "y": np.array([2.0])})[0]) == pytest.approx(float(v), rel=1e-15)
    assert c.built == {"mp", "np"}
    # the source of a backend can be read without building its kernel
    assert "def kernel" in c.source["arb"] and c.built == {"mp", "np"}
    assert set(c.source) == set(BACKENDS) and len(c.source) == 3
    with pytest.raises(KeyError):
        c.source["fortran"]
    with pytest.raises(CompileError, match="unknown backend"):
        c.kernel("fortran")
    import flint

    with flint.ctx.workprec(64):
        ball = c.arb({"x": flint.arb(1), "y": flint.arb(2)})
    assert abs(float(ball.mid()) - float(v)) <= 1e-15 * float(v) and ball.is_finite()
    assert c.built == set(BACKENDS)


def test_an_unsupported_construct_is_named_at_compile_time_still():
    with pytest.raises(CompileError, match="f"):
        compile_expr(sp.Function("f")(x) + 1, {"x": x})


def test_concurrent_first_use_builds_once(monkeypatch: pytest.MonkeyPatch):
    calls: list[str] = []
    real = C.execute

    def counting(backend: str, src: str, **kw):
        calls.append(backend)
        return real(backend, src, **kw)

    monkeypatch.setattr(C, "execute", counting)
    c = _fresh()
    barrier = threading.Barrier(8)
    out: list[float] = []

    def work() -> None:
        barrier.wait()
        out.append(float(c.np({"x": 1.0, "y": 2.0})))

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls == ["np"] and len(set(out)) == 1 and len(out) == 8


def test_the_theorem_cache_keeps_one_compiled_object():
    import dptheory
    from dptheory.core.compile import compile_theorem

    t = dptheory.get("rdp.gaussian")
    assert compile_theorem(t) is compile_theorem(t) is t.compiled


def _run(code: str, tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    e = {k: v for k, v in os.environ.items() if k not in ("DPTHEORY_PATH", "PYTHONSTARTUP")}
    e.update(SYMPY_GROUND_TYPES="python", PYTHONPATH=str(ROOT), **env)
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=e, timeout=300
    )


_NO_FLINT = "import sys\nsys.modules['flint'] = None  # python-flint cannot be imported\n"


def _cli(argv: list[str], *, block_flint: bool = False, report_flint: bool = False) -> str:
    code = (_NO_FLINT if block_flint else "import sys\n") + "from dptheory.cli import main\n"
    code += f"rc = main({argv!r})\n"
    if report_flint:
        code += "print('FLINT-IMPORTED' if sys.modules.get('flint') is not None else 'NO-FLINT', file=sys.stderr)\n"
    return code + "sys.exit(rc)\n"


@pytest.mark.parametrize(
    "argv",
    [
        ["list"],
        ["show", "yeshokri22.thm4_2"],
        [
            "sweep",
            "yeshokri22.thm4_2",
            "K=1..20",
            "alpha=10,15",
            "eta=0.02",
            "lam=1",
            "beta=4",
            "S_g=4",
            "sigma=2",
            "n=50",
            "b=2",
            "--compare",
            "yeshokri22.thm4_3",
            "yeshokri22.composition",
            "--csv",
            "s.csv",
        ],
        ["sweep", "rdp.gaussian", "alpha=2..8", "z=1", "T=1", "--csv", "g.csv"],
    ],
    ids=["list", "show", "sweep-thm4_2", "sweep-gaussian"],
)
def test_commands_without_balls_import_no_flint(argv: list[str], tmp_path: Path):
    r = _run(_cli(argv, report_flint=True), tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stderr.strip().splitlines()[-1] == "NO-FLINT", r.stderr


def test_float64_and_mpmath_kernels_of_a_statement_import_no_flint(tmp_path: Path):
    code = (
        "import sys, mpmath, dptheory\n"
        "t = dptheory.get('yeshokri22.thm4_2')\n"
        "c = t.compiled\n"
        "p = dict(alpha=10, eta=0.02, lam=1, beta=4, S_g=4, sigma=2, n=50, b=2, K=50)\n"
        "print(float(c.np(p)))\n"
        "print(sorted(c.built), 'flint' in sys.modules)\n"
    )
    r = _run(code, tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "['np'] False", r.stdout


def _value_line(out: str) -> str:
    return out.strip().splitlines()[0]


@pytest.mark.parametrize(
    "argv",
    [["rdp.gaussian", "alpha=2", "z=1", "T=1"], THM42[:], [*THM42, "--dps", "30"]],
    ids=["gaussian", "thm4_2", "thm4_2-dps30"],
)
def test_plain_eval_works_without_python_flint_and_gives_the_same_digits(argv: list[str], tmp_path: Path):
    with_flint = _run(_cli(["eval", *argv]), tmp_path)
    without = _run(_cli(["eval", *argv], block_flint=True), tmp_path)
    assert with_flint.returncode == 0, with_flint.stderr
    assert without.returncode == 0, without.stderr
    assert _value_line(without.stdout) == _value_line(with_flint.stdout)
    assert "internal error" not in without.stderr


@pytest.mark.parametrize("argv", [["rdp.gaussian", "alpha=2", "z=1", "T=1"], THM42[:]], ids=["gaussian", "thm4_2"])
def test_eval_certify_without_python_flint_is_one_line_naming_it(argv: list[str], tmp_path: Path):
    r = _run(_cli(["eval", *argv, "--certify"], block_flint=True), tmp_path)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1, r.stderr  # dptheory.cli: 1 = a computation that failed
    assert len(lines) == 1 and lines[0].startswith("dptheory: "), r.stderr
    assert "python-flint" in lines[0] and "pip install" in lines[0], lines[0]
    assert "internal error" not in lines[0] and "Traceback" not in r.stderr
