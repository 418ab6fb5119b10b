"""Start-up time of the command line (issue 13, item 1), against ``python -c "import numpy"`` in the same run.

Targets (on a quiet 2-core machine): ``dptheory --help`` under 0.5 s and ``eval`` of a closed-form theorem
(``yeshokri22.thm4_2``) under 1.5 s. Absolute times move with the machine's load, so the script also prints
each command's ratio to the time of importing numpy, measured in the same run, and CPU time (user + system
of the child), which the load disturbs less than wall time.

Each command runs ``REPEAT`` times in a fresh interpreter (``python -m dptheory ...``, with this checkout
first on ``sys.path``); the minimum and the median are printed. Run: ``python bench/bench_startup.py``.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPEAT = int(os.environ.get("REPEAT", "7"))
FIG = ["eta=0.02", "lam=1", "beta=4", "S_g=4", "sigma=2", "n=50", "b=2"]

COMMANDS: list[tuple[str, list[str], float | None]] = [
    ('python -c "import numpy"', ["-c", "import numpy"], None),
    ("dptheory --version", ["-m", "dptheory", "--version"], None),
    ("dptheory --help", ["-m", "dptheory", "--help"], 0.5),
    ("dptheory list", ["-m", "dptheory", "list"], None),
    ("dptheory list --claims", ["-m", "dptheory", "list", "--claims"], None),
    ("dptheory show yeshokri22.thm4_2", ["-m", "dptheory", "show", "yeshokri22.thm4_2"], None),
    ("dptheory eval yeshokri22.thm4_2 (closed form)",
     ["-m", "dptheory", "eval", "yeshokri22.thm4_2", "alpha=10", "K=50", *FIG], 1.5),
    ("dptheory eval rdp.gaussian (generic layer)",
     ["-m", "dptheory", "eval", "rdp.gaussian", "alpha=10", "z=2", "T=100"], 1.5),
]


def run_once(args: list[str]) -> tuple[float, float]:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, *args], env=env, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed ({proc.returncode}): {proc.stderr[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> int:
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average "
          f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}; {REPEAT} runs each (min / median)")
    results = {}
    for label, args, _target in COMMANDS:
        runs = [run_once(args) for _ in range(REPEAT)]
        walls = [w for w, _ in runs]
        cpus = [c for _, c in runs]
        results[label] = (min(walls), statistics.median(walls), min(cpus), statistics.median(cpus))
    base_wall, _, base_cpu, _ = results[COMMANDS[0][0]]
    print(f"{'command':<48} {'wall min':>9} {'median':>8} {'cpu min':>8} {'median':>8} {'x numpy':>8}  target")
    for label, _args, target in COMMANDS:
        wmin, wmed, cmin, cmed = results[label]
        tgt = "" if target is None else f"< {target} s: {'met' if wmin < target else 'NOT met'} (wall min)"
        print(f"{label:<48} {wmin:9.3f} {wmed:8.3f} {cmin:8.3f} {cmed:8.3f} {wmin / base_wall:8.2f}  {tgt}")
    print(f"(x numpy: wall min over the wall min of `import numpy`, {base_wall:.3f} s, cpu {base_cpu:.3f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
