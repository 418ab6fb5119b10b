"""Report configuration: named parameter sets, crossovers, figures (TOML, schema in reports/README.md).

Example (a paper package's own ``report.toml`` is its full one; every key string a report uses is the
paper's, declared there, none in this module)::

    [report]
    paper = "mypaper"                    # registry prefix of the theorems and claims to report
    title = "My paper at the figures' setting"
    digits = 12                          # significant digits shown in tables
    dps = 50                             # mpmath precision of every value
    claims = true                        # check and report the paper's claims
    claim_examples = 60                  # property-search examples per claim
    seed = 0                             # seed of the claim searches
    figures = ["mypaper-fig1"]
    include = []                         # further registry prefixes reported together (e.g. "maxinfo")
    explore = "Figure 2, alpha = 10"     # the set `dptheory explore` starts from (default: the first)
    delta = "1e-5"                       # delta of the (epsilon, delta) column (RDP theorems; default 1e-5)
    headline = ["mypaper.thm1"]          # theorems whose values are the summary's key numbers
    full_batch = ["mypaper.thm2"]        # theorems stated for full batch b = n (flagged at sets with b < n)

    [[sets]]                             # one column of the value tables per set
    name = "Figure 2, alpha = 10"
    params = { alpha = 10, eta = "0.02", n = 50, b = 2, K = 50 }

    [[crossovers]]                       # the value of `over` after which `lower` stays below `upper`
    lower = "mypaper.thm1"
    upper = "mypaper.baseline"
    over = "K"
    from = 1
    to = 500
    params = { alpha = 10, eta = "0.02", n = 50, b = 2 }

    [explorer]                           # where `dptheory explore` starts when no theorem is named
    keys = ["mypaper.thm1", "mypaper.baseline"]
    baseline = "mypaper.baseline"        # the curve the others are compared with
    ranges = { K = [1, 200] }            # declared plot ranges (e.g. the epochs of the paper's figures)
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Callable
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
class ExplorerDefaults:
    """``[explorer]`` of a paper's ``report.toml``: where ``dptheory explore`` starts when no theorem is named
    (``keys``), the curve the others are compared with (``baseline``) and declared plot ranges (``ranges``:
    parameter -> (lo, hi), e.g. the epochs of the paper's figures)."""

    keys: tuple[str, ...] = ()
    baseline: str = ""
    ranges: dict[str, tuple[str, str]] = field(default_factory=dict)


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
    delta: str = "1e-5"
    headline: tuple[str, ...] = ()
    full_batch: tuple[str, ...] = ()
    source: str = "built-in defaults"
    command: str = ""  # the command line that regenerates this report (set by the CLI; not a TOML key)
    extra: dict[str, Any] = field(default_factory=dict)
    explorer: ExplorerDefaults | None = None


_SET_KEYS = {"name", "params"}
_CROSSOVER_KEYS = {"lower", "upper", "over", "from", "to", "params", "label"}
_TOML_TYPE = {str: "a string", int: "an integer", bool: "true or false", list: "a list", dict: "a table"}


def _type_name(v: Any) -> str:
    if isinstance(v, bool):
        return "a boolean"
    return {str: "a string", int: "an integer", float: "a float", list: "a list", dict: "a table"}.get(
        type(v), type(v).__name__)


def _need(source: str, where: str, key: str, value: Any, kind: type) -> Any:
    """``value`` if it is of TOML type ``kind`` (a bool is not an integer), else a one-line error."""
    ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
    if not ok:
        raise DPTheoryError(f"{source}: {where} {key} must be {_TOML_TYPE[kind]}, got {_type_name(value)} ({value!r})")
    return value


def _int_in(source: str, key: str, value: Any, lo: int, hi: int) -> int:
    v = _need(source, "[report]", key, value, int)
    if not lo <= v <= hi:
        raise DPTheoryError(f"{source}: [report] {key} must be between {lo} and {hi}, got {v}")
    return int(v)


def _strings(source: str, key: str, value: Any) -> tuple[str, ...]:
    _need(source, "[report]", key, value, list)
    for v in value:
        if not isinstance(v, str):
            raise DPTheoryError(f"{source}: [report] {key} must be a list of strings, got {_type_name(v)} ({v!r})")
    return tuple(value)


def _delta(source: str, value: Any) -> str:
    """The report's delta (a number in (0, 1), kept as the text given so it is printed as written)."""
    from dptheory.core.notation import parse_value

    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise DPTheoryError(f"{source}: [report] delta must be a number in (0, 1) such as \"1e-5\", "
                            f"got {_type_name(value)} ({value!r})")
    d = parse_value(value, key=f"{source}: [report]", name="delta")
    if not 0 < d < 1:
        raise DPTheoryError(f"{source}: [report] delta must be in (0, 1), got {value!r}")
    return str(value)


#: the ``[report]`` keys after ``paper``, in the order they are checked, each with its check ``(source, key,
#: value, the fields checked so far) -> field value``. A key the table leaves out keeps its :class:`ReportConfig`
#: default (``title``: the paper), so every default is written once, there.
_REPORT_CHECKS: dict[str, Callable[[str, str, Any, dict[str, Any]], Any]] = {
    "title": lambda s, k, v, f: _need(s, "[report]", k, v, str),
    "dps": lambda s, k, v, f: _int_in(s, k, v, 15, 1000),
    "digits": lambda s, k, v, f: _int_in(s, k, v, 1, f.get("dps", ReportConfig.dps)),
    "claims": lambda s, k, v, f: _need(s, "[report]", k, v, bool),
    "claim_examples": lambda s, k, v, f: _int_in(s, k, v, 1, 10**7),
    "seed": lambda s, k, v, f: _int_in(s, k, v, 0, 2**63 - 1),
    "figures": lambda s, k, v, f: _strings(s, k, v),
    "include": lambda s, k, v, f: _strings(s, k, v),
    "explore": lambda s, k, v, f: _need(s, "[report]", k, v, str),
    "delta": lambda s, k, v, f: _delta(s, v),
    "headline": lambda s, k, v, f: _strings(s, k, v),
    "full_batch": lambda s, k, v, f: _strings(s, k, v),
}
_REPORT_KEYS = {"paper", *_REPORT_CHECKS}


def _report_fields(source: str, rep: dict[str, Any]) -> dict[str, Any]:
    """The :class:`ReportConfig` fields that ``[report]`` gives, checked (one-line errors, in the table's order)."""
    if "paper" not in rep:
        raise DPTheoryError(f'{source}: [report] needs paper = "<registry prefix>" (e.g. "mypaper")')
    paper = _need(source, "[report]", "paper", rep["paper"], str)
    fields: dict[str, Any] = {"paper": paper, "title": paper}
    for key, check in _REPORT_CHECKS.items():
        if key in rep:
            fields[key] = check(source, key, rep[key], fields)
    return fields


def _params(source: str, where: str, value: Any) -> dict[str, Any]:
    """A params table whose every value is a number dptheory accepts (checked exactly, as it will be read)."""
    from dptheory.core.notation import parse_value

    _need(source, where, "params", value, dict)
    for name, v in value.items():
        if isinstance(v, (list, dict)):
            raise DPTheoryError(f"{source}: {where} parameter {name} must be a number or a string such as \"0.02\" or "
                                f"\"1/3\", got {_type_name(v)}")
        parse_value(v, key=f"{source}: {where}", name=name)  # InvalidParameter names the set and the parameter
    return dict(value)


def _tables(source: str, data: dict[str, Any], key: str) -> list[dict[str, Any]]:
    items = data.get(key, [])
    if not isinstance(items, list) or not all(isinstance(t, dict) for t in items):
        raise DPTheoryError(f"{source}: {key} must be an array of tables ([[{key}]] entries), got {_type_name(items)}")
    return items


def from_dict(data: dict[str, Any], *, source: str) -> ReportConfig:
    """Validate a parsed TOML document; errors name the offending table, key and value (one line each)."""
    unknown = set(data) - {"report", "sets", "crossovers", "explorer"}
    if unknown:
        raise DPTheoryError(
            f"{source}: unknown top-level table(s) {sorted(unknown)}; expected report, sets, crossovers, explorer"
        )
    rep = data.get("report", {})
    if not isinstance(rep, dict):
        raise DPTheoryError(f"{source}: report must be a table ([report]), got {_type_name(rep)}")
    rep = dict(rep)
    bad = set(rep) - _REPORT_KEYS
    if bad:
        raise DPTheoryError(f"{source}: unknown key(s) {sorted(bad)} in [report]; allowed: {sorted(_REPORT_KEYS)}")
    fields = _report_fields(source, rep)
    sets = []
    names: set[str] = set()
    for i, s in enumerate(_tables(source, data, "sets")):
        if "name" not in s or "params" not in s:
            raise DPTheoryError(f"{source}: [[sets]] number {i + 1} needs name and params")
        extra = set(s) - _SET_KEYS
        if extra:
            raise DPTheoryError(
                f"{source}: [[sets]] number {i + 1}: unknown key(s) {sorted(extra)}; allowed: name, params")
        name = _need(source, f"[[sets]] number {i + 1}", "name", s["name"], str)
        if name in names:
            raise DPTheoryError(f"{source}: two [[sets]] are named {name!r}; set names must differ")
        names.add(name)
        sets.append(ParamSet(name, _params(source, f"set {name!r}", s["params"])))
    from dptheory.core.notation import parse_value

    xs = []
    for i, c in enumerate(_tables(source, data, "crossovers")):
        where = f"[[crossovers]] number {i + 1}"
        missing = {"lower", "upper", "over", "params"} - set(c)
        if missing:
            raise DPTheoryError(f"{source}: {where} misses {sorted(missing)}")
        extra = set(c) - _CROSSOVER_KEYS
        if extra:
            raise DPTheoryError(
                f"{source}: {where}: unknown key(s) {sorted(extra)}; allowed: {sorted(_CROSSOVER_KEYS)}")
        lower, upper, over = (_need(source, where, k, c[k], str) for k in ("lower", "upper", "over"))
        bounds = []
        for k, default in (("from", 1), ("to", 1000)):
            v = c.get(k, default)
            if isinstance(v, (list, dict)):
                raise DPTheoryError(f"{source}: {where} {k} must be a number, got {_type_name(v)}")
            parse_value(v, key=f"{source}: {where}", name=k)
            bounds.append(v)
        label = _need(source, where, "label", c.get("label", ""), str)
        xs.append(CrossoverSpec(lower, upper, over, bounds[0], bounds[1], _params(source, where, c["params"]), label))
    cfg = ReportConfig(
        **fields,
        sets=tuple(sets),
        crossovers=tuple(xs),
        source=source,
        explorer=_explorer(source, data["explorer"]) if "explorer" in data else None,
    )
    check_param_names(cfg)
    return cfg


def _unknown_names(source: str, where: str, given: dict[str, Any], accepted: set[str], takers: str) -> None:
    """A one-line error for the first name of ``given`` that is not in ``accepted`` (with the closest name)."""
    import difflib

    for name in given:
        if name not in accepted:
            close = difflib.get_close_matches(name, sorted(accepted), n=1, cutoff=0.5)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise DPTheoryError(f"{source}: {where}: unknown parameter {name!r}{hint}; the theorems of {takers} take "
                                f"{', '.join(sorted(accepted, key=str.lower))}")


def check_param_names(cfg: ReportConfig) -> None:
    """Every parameter of a ``[[sets]]`` entry is taken by a theorem of the report, and every parameter of a
    ``[[crossovers]]`` entry by one of its two theorems.

    A theorem is evaluated at a set only when the set gives all its parameters, so a misspelt name (``sigam``)
    would silently turn every cell of the theorems needing it into "n/a": it is an error naming the set, the
    name, the closest accepted name (:func:`difflib.get_close_matches`) and the accepted names. A report whose
    prefixes register no theorem is left to :func:`dptheory.report.build` (which says so).
    """
    from dptheory.core.registry import REGISTRY

    prefixes = (cfg.paper, *cfg.include)
    thms = [t for p in prefixes for t in REGISTRY.family(p) if getattr(t, "KIND", "") == "theorem"]
    if cfg.sets and thms:
        accepted = {name for t in thms for name in t.params}
        takers = " and ".join(prefixes)
        for i, s in enumerate(cfg.sets):
            _unknown_names(cfg.source, f"[[sets]] number {i + 1} ({s.name!r})", s.params, accepted, takers)
    for i, c in enumerate(cfg.crossovers):
        pair = [REGISTRY.get(c.lower), REGISTRY.get(c.upper)]
        for key, t in zip((c.lower, c.upper), pair, strict=True):
            if getattr(t, "KIND", "") != "theorem":
                raise DPTheoryError(f"{cfg.source}: [[crossovers]] number {i + 1}: {key} is not a theorem")
        accepted = {name for t in pair for name in t.params}
        _unknown_names(cfg.source, f"[[crossovers]] number {i + 1} ({c.lower} vs {c.upper})", c.params, accepted,
                       f"{c.lower} and {c.upper}")


def load(path: str | Path) -> ReportConfig:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DPTheoryError(f"cannot read the report configuration {p}: {exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise DPTheoryError(f"{p}: not valid TOML: {exc}") from None
    return from_dict(data, source=p.name)


def _default_files() -> dict[str, Path]:
    """``report.toml`` of every discovered paper package, by package name (its registry prefix)."""
    import importlib.util

    from dptheory.catalog import paper_packages

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


_EXPLORER_KEYS = {"keys", "baseline", "ranges"}


def _explorer(source: str, table: Any) -> ExplorerDefaults:
    """Validate ``[explorer]`` (one-line errors naming the key and what is accepted)."""
    if not isinstance(table, dict):
        raise DPTheoryError(f"{source}: explorer must be a table ([explorer]), got {_type_name(table)}")
    bad = set(table) - _EXPLORER_KEYS
    if bad:
        raise DPTheoryError(f"{source}: unknown key(s) {sorted(bad)} in [explorer]; allowed: {sorted(_EXPLORER_KEYS)}")
    keys = _need(source, "[explorer]", "keys", table.get("keys", []), list)
    if not all(isinstance(k, str) for k in keys):
        raise DPTheoryError(f"{source}: [explorer] keys must be a list of theorem keys (text), got {keys!r}")
    baseline = _need(source, "[explorer]", "baseline", table.get("baseline", ""), str)
    ranges: dict[str, tuple[str, str]] = {}
    for name, pair in _need(source, "[explorer]", "ranges", table.get("ranges", {}), dict).items():
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, (int, str)) for x in pair)):
            raise DPTheoryError(f"{source}: [explorer] ranges.{name} must be [lo, hi] (numbers), got {pair!r}")
        ranges[name] = (str(pair[0]), str(pair[1]))
    return ExplorerDefaults(keys=tuple(keys), baseline=baseline, ranges=ranges)


def explorer_defaults() -> list[ExplorerDefaults]:
    """The ``[explorer]`` declarations of every paper's ``report.toml`` (papers in name order)."""
    out = []
    for paper in papers_with_defaults():
        cfg = defaults(paper)
        if cfg.explorer is not None:
            out.append(cfg.explorer)
    return out
