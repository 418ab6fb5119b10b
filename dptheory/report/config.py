"""Report configuration: named parameter sets, crossovers, figures (TOML, schema in reports/README.md).

Example (``dptheory/papers/yeshokri22/report.toml`` is the full one)::

    [report]
    paper = "yeshokri22"                 # registry prefix of the theorems and claims to report
    title = "Ye & Shokri 2022 at the figures' setting"
    digits = 12                          # significant digits shown in tables
    dps = 50                             # mpmath precision of every value
    claims = true                        # check and report the paper's claims
    claim_examples = 60                  # property-search examples per claim
    seed = 0                             # seed of the claim searches
    figures = ["yeshokri22-fig1", "yeshokri22-fig2"]
    include = []                         # further registry prefixes reported together (e.g. "maxinfo")
    explore = "Figure 2, alpha = 10, K = 50"  # the set `dptheory explore` starts from (default: the first)

    [[sets]]                             # one column of the value tables per set
    name = "Figure 2, alpha = 10, K = 50"
    params = { alpha = 10, eta = "0.02", lam = 1, beta = 4, S_g = 4, sigma = 2, n = 50, b = 2, K = 50, j0 = 0 }

    [[crossovers]]                       # the value of `over` after which `lower` stays below `upper`
    lower = "yeshokri22.thm4_3"
    upper = "yeshokri22.composition"
    over = "K"
    from = 1
    to = 500
    params = { alpha = 10, eta = "0.02", lam = 1, beta = 4, S_g = 4, sigma = 2, n = 50, b = 2 }
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dptheory.core.errors import DPTheoryError


@dataclass(frozen=True)
class ParamSet:
    name: str
    params: dict[str, Any]


@dataclass(frozen=True)
class CrossoverSpec:
    lower: str
    upper: str
    over: str
    start: Any
    stop: Any
    params: dict[str, Any]
    label: str = ""


@dataclass(frozen=True)
class ReportConfig:
    paper: str
    title: str
    digits: int = 12
    dps: int = 50
    claims: bool = True
    claim_examples: int = 60
    seed: int = 0
    figures: tuple[str, ...] = ()
    include: tuple[str, ...] = ()
    sets: tuple[ParamSet, ...] = ()
    crossovers: tuple[CrossoverSpec, ...] = ()
    explore: str = ""
    source: str = "built-in defaults"
    extra: dict[str, Any] = field(default_factory=dict)


_REPORT_KEYS = {"paper", "title", "digits", "dps", "claims", "claim_examples", "seed", "figures", "include",
                "explore"}


def from_dict(data: dict[str, Any], *, source: str) -> ReportConfig:
    """Validate a parsed TOML document; errors name the offending key."""
    unknown = set(data) - {"report", "sets", "crossovers"}
    if unknown:
        raise DPTheoryError(
            f"{source}: unknown top-level table(s) {sorted(unknown)}; expected report, sets, crossovers"
        )
    rep = dict(data.get("report", {}))
    bad = set(rep) - _REPORT_KEYS
    if bad:
        raise DPTheoryError(f"{source}: unknown key(s) {sorted(bad)} in [report]; allowed: {sorted(_REPORT_KEYS)}")
    if "paper" not in rep:
        raise DPTheoryError(f'{source}: [report] needs paper = "<registry prefix>" (e.g. "yeshokri22")')
    sets = []
    for i, s in enumerate(data.get("sets", [])):
        if "name" not in s or "params" not in s:
            raise DPTheoryError(f"{source}: [[sets]] number {i + 1} needs name and params")
        sets.append(ParamSet(str(s["name"]), dict(s["params"])))
    xs = []
    for i, c in enumerate(data.get("crossovers", [])):
        missing = {"lower", "upper", "over", "params"} - set(c)
        if missing:
            raise DPTheoryError(f"{source}: [[crossovers]] number {i + 1} misses {sorted(missing)}")
        xs.append(
            CrossoverSpec(
                c["lower"],
                c["upper"],
                c["over"],
                c.get("from", 1),
                c.get("to", 1000),
                dict(c["params"]),
                str(c.get("label", "")),
            )
        )
    return ReportConfig(
        paper=str(rep["paper"]),
        title=str(rep.get("title", rep["paper"])),
        digits=int(rep.get("digits", 12)),
        dps=int(rep.get("dps", 50)),
        claims=bool(rep.get("claims", True)),
        claim_examples=int(rep.get("claim_examples", 60)),
        seed=int(rep.get("seed", 0)),
        figures=tuple(rep.get("figures", ())),
        include=tuple(rep.get("include", ())),
        sets=tuple(sets),
        crossovers=tuple(xs),
        explore=str(rep.get("explore", "")),
        source=source,
    )


def load(path: str | Path) -> ReportConfig:
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise DPTheoryError(f"{p}: not valid TOML: {exc}") from None
    return from_dict(data, source=p.name)


def _default_files() -> dict[str, Path]:
    """``report.toml`` of every discovered paper package, by package name (its registry prefix)."""
    import importlib.util

    from dptheory.core.registry import paper_packages

    out: dict[str, Path] = {}
    for pkg in paper_packages():
        spec = importlib.util.find_spec(pkg)
        if spec is None or not spec.submodule_search_locations:
            continue
        path = Path(next(iter(spec.submodule_search_locations))) / "report.toml"
        if path.exists():
            out[pkg.rsplit(".", 1)[-1]] = path
    return out


def defaults(paper: str) -> ReportConfig:
    """The paper's own settings (``report.toml`` in its package), or a minimal configuration."""
    path = _default_files().get(paper)
    if path is not None:
        return dataclasses.replace(load(path), source=f"{paper}.toml")
    return ReportConfig(paper=paper, title=paper, source="no defaults for this paper")


def papers_with_defaults() -> list[str]:
    return sorted(_default_files())
