"""A training run described once, and each theorem's reading of it (``dptheory compare --run``).

A researcher trains DP-SGD (or noisy gradient descent) and wants every bound that applies to *that* run. The run
is described once, in the names of this module (:data:`RUN_PARAMS`, :data:`RUN_FACTS`): ``n`` records, a batch size
``b`` or a sampling probability ``q``, a noise multiplier ``z`` (noise standard deviation on the sum of clipped
per-example gradients, divided by the clip norm ``C``), ``T`` steps or ``K`` epochs, a step size ``eta``, the loss
constants ``lam`` (strong convexity), ``beta`` (smoothness) and ``L`` (feature norm bound) when known; and the facts
no number states: how batches are drawn (``batches``), what the loss is (``loss``) and what is released
(``release``).

:func:`complete` derives the quantities the run implies, each by one rule written here once:

* ``q = b/n`` (Abadi et al. 2016, "Deep Learning with Differential Privacy", arXiv 1607.00133, Sec. 3.1: a lot of
  expected size ``L`` is drawn with probability ``q = L/N``), and ``b = q n`` the other way round;
* full-batch gradient descent (``batches = "full"``) has ``b = n`` and ``q = 1``;
* steps per epoch: ``floor(n/b)`` for shuffle-and-partition batches (Ye & Shokri 2022, "Differentially Private
  Learning Needs Hidden State (Or Much Faster Convergence)", arXiv 2203.05363, Algorithm 1: ``N = floor(n/b)``
  batches per epoch), ``1/q`` in expectation for sampled batches (Poisson or without replacement), 1 for full
  batches; so ``T = K * steps per epoch`` and ``K = T / steps per epoch``.

A theorem reads the run through a :class:`RunMap` that its paper registers (``REGISTRY.add_run_map``; a paper
file's ``[[run]]`` tables, :func:`run_maps_from_tables`): each of its parameters as a formula in the run's names
(the paper's conversions, cited there), the facts it assumes (``requires``), and the neighbouring relation of its
guarantee. :func:`read` applies it: a formula naming a quantity the run does not give makes the theorem *skipped*
with that reason; an assumption the run does not satisfy is reported as *not met* (the value is still computed, and
marked: it is not a guarantee for this run).
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import sympy as sp

from dptheory.core.errors import DPTheoryError

__all__ = [
    "RUN_FACTS",
    "RUN_PARAMS",
    "Reading",
    "RunError",
    "RunMap",
    "RunParam",
    "TrainingRun",
    "complete",
    "parse_run",
    "read",
    "run_maps_from_tables",
    "run_symbol",
]

#: digits of a derived value that is not rational (``sigma = sqrt(eta/2) z C/b``) when it is passed to a theorem
DERIVED_DIGITS = 60


class RunError(DPTheoryError, ValueError):
    """A training-run description that cannot be read: an unknown name, a value outside its domain, two values
    that contradict each other (``q`` given with ``b`` and ``n`` and not equal to ``b/n``), a bad file or a bad
    ``[[run]]`` table. The message is one line naming what was wrong and what is accepted."""


@dataclass(frozen=True)
class RunParam:
    """A number of a training run: its name in formulas, the names a user may give it, its meaning and domain."""

    name: str
    aliases: tuple[str, ...]
    meaning: str
    domain: str  # "positive integer", "positive", "probability"


#: the numbers a run may state, in the order the run is printed
RUN_PARAMS: dict[str, RunParam] = {
    p.name: p
    for p in (
        RunParam("n", ("records", "dataset_size"), "number of records", "positive integer"),
        RunParam("b", ("batch_size",), "batch size (expected size for sampled batches)", "positive integer"),
        RunParam("q", ("sampling_rate",), "sampling probability per step", "probability"),
        RunParam("z", ("noise_multiplier",), "noise multiplier: noise std on the summed clipped gradients / C",
                 "positive"),
        RunParam("T", ("steps",), "number of steps (gradient updates)", "positive integer"),
        RunParam("K", ("epochs",), "number of epochs", "positive integer"),
        RunParam("C", ("clip", "clip_norm"), "per-example gradient clip norm", "positive"),
        RunParam("eta", ("lr", "learning_rate", "step_size"), "step size", "positive"),
        RunParam("lam", ("lambda", "strong_convexity"), "strong convexity constant of the (regularised) loss",
                 "positive"),
        RunParam("beta", ("smoothness",), "smoothness constant of the loss", "positive"),
        RunParam("L", ("feature_norm",), "bound on the feature norm ||x|| (features clipped to it)", "positive"),
    )
}

#: the facts of a run that no number states: name -> {value: meaning}; the first value is the default
RUN_FACTS: dict[str, dict[str, str]] = {
    "batches": {
        "poisson": "each record joins each step's batch independently with probability q (Poisson sampling)",
        "shuffle": "shuffle and partition: one random partition into floor(n/b) batches of b, reused every epoch",
        "wor": "each step draws b distinct records uniformly without replacement, independently of other steps",
        "full": "full batch: every step uses all n records (noisy gradient descent)",
    },
    "loss": {
        "unknown": "nothing assumed about the loss",
        "convex": "convex and beta-smooth",
        "strongly-convex": "lam-strongly convex and beta-smooth",
        "logistic": "regularised logistic regression (lam ||theta||^2/2) with features clipped to ||x|| <= L",
    },
    "release": {
        "last": "only the last iterate is released (hidden intermediate state)",
        "all": "every iterate is released",
    },
}

#: what each loss fact implies (a logistic regression with its regulariser is strongly convex and smooth)
_LOSS_IMPLIES = {"logistic": {"logistic", "strongly-convex", "convex"}, "strongly-convex": {"strongly-convex",
                 "convex"}, "convex": {"convex"}, "unknown": {"unknown"}}

_ALIASES = {alias: p.name for p in RUN_PARAMS.values() for alias in (p.name, *p.aliases)}


def run_symbol(name: str) -> sp.Symbol:
    """The sympy symbol of run quantity ``name`` (positive; integer where the quantity is), for a paper's
    :class:`RunMap` formulas."""
    p = RUN_PARAMS[name]
    return sp.Symbol(name, positive=True, integer=p.domain == "positive integer" or None)


def _accepted_names() -> str:
    return ", ".join(f"{p.name} ({'/'.join(p.aliases)})" for p in RUN_PARAMS.values())


@dataclass(frozen=True)
class TrainingRun:
    """One run: ``values`` (run name -> exact number, as given) and ``facts`` (fact -> value); ``given`` says
    which facts were stated (the others are defaults). Build one with :func:`parse_run`."""

    values: Mapping[str, Fraction]
    facts: Mapping[str, str]
    given: frozenset[str] = frozenset()
    source: str = "the run"

    def describe(self) -> str:
        """One line: the numbers (given and derived), then the facts."""
        done = complete(self)
        nums = ", ".join(f"{k} = {_text(v)}" + ("" if k in self.values else " (derived)") for k, v in done.items())
        facts = ", ".join(f"{k}: {v}" + ("" if k in self.given else " (from lam)" if (k, v) == ("loss",
                          "strongly-convex") else " (default)") for k, v in self.facts.items())
        return f"{nums}; {facts}"


def _text(v: Fraction) -> str:
    if v.denominator == 1:
        return str(v.numerator)
    f = float(v)
    return f"{f:.12g}" if Fraction(f"{f:.12g}") == v else f"{f:.12g}..."


def parse_run(spec: str | Mapping[str, Any] | None, items: Sequence[str] = (), *, source: str | None = None
              ) -> TrainingRun:
    """A :class:`TrainingRun` from ``spec`` (a TOML file's path; ``name=value,name=value`` text; a mapping) with
    ``items`` (``name=value`` strings) added or overriding. Names are those of :data:`RUN_PARAMS` (or their
    aliases) and :data:`RUN_FACTS`.

    Raises:
        RunError: a file that cannot be read or is not TOML, an unknown name, a value outside its domain, values
            that contradict each other.
    """
    raw: dict[str, Any] = {}
    where = source or "the run"
    if isinstance(spec, Mapping):
        raw.update(spec)
    elif isinstance(spec, str) and spec.strip():
        path = Path(spec)
        if "=" not in spec and (path.suffix == ".toml" or path.exists()):
            where = source or spec
            try:
                data = tomllib.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError) as exc:
                reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
                raise RunError(f"cannot read run file {spec}: {reason}") from None
            except tomllib.TOMLDecodeError as exc:
                raise RunError(f"run file {spec}: not valid TOML: {exc}") from None
            body = data.get("run", data)
            if not isinstance(body, dict):
                raise RunError(f"run file {spec}: [run] must be a table of name = value")
            raw.update(body)
        else:
            raw.update(_pairs(spec.split(","), where))
    elif spec is not None and not isinstance(spec, str):
        raise RunError(f"a run is a TOML file, 'name=value,...' text or a mapping; got {type(spec).__name__}")
    raw.update(_pairs(items, where))
    return _build(raw, where)


def _pairs(items: Sequence[str], where: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        item = item.strip()
        if not item:
            continue
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise RunError(f"{where}: {item!r} is not name=value")
        out[name.strip()] = value.strip()
    return out


def _build(raw: Mapping[str, Any], where: str) -> TrainingRun:
    from dptheory.core.validate import exact_number

    values: dict[str, Fraction] = {}
    facts = {name: next(iter(choices)) for name, choices in RUN_FACTS.items()}
    given: set[str] = set()
    for name, value in raw.items():
        if name in RUN_FACTS:
            text = str(value).strip().lower().replace("_", "-")
            if text not in RUN_FACTS[name]:
                raise RunError(f"{where}: {name} = {value!r} is not known; accepted: {', '.join(RUN_FACTS[name])}")
            facts[name] = text
            given.add(name)
            continue
        if name not in _ALIASES:
            raise RunError(f"{where}: unknown name {name!r}; accepted: {_accepted_names()}, and the facts "
                           f"{', '.join(RUN_FACTS)}")
        canon = _ALIASES[name]
        if canon in values:
            raise RunError(f"{where}: {canon} is given twice (as {name!r} too)")
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise RunError(f"{where}: {name} = {value!r} is not a number")
        try:
            number = exact_number(str(value)) if not isinstance(value, float) else Fraction(repr(value))
        except (ValueError, ArithmeticError) as exc:
            raise RunError(f"{where}: {name} = {value!r}: {exc}") from None
        _check_domain(where, RUN_PARAMS[canon], number, value)
        values[canon] = number
    if "lam" in values and "loss" not in given:
        facts["loss"] = "strongly-convex"  # a strong convexity constant says so
    run = TrainingRun(values, facts, frozenset(given), where)
    complete(run)  # contradictions are refused now
    return run


def _check_domain(where: str, p: RunParam, number: Fraction, shown: Any) -> None:
    from dptheory.core.notation import Domain

    ok = 0 < number <= 1 if p.domain == "probability" else Domain(p.domain).admits(number)
    if not ok:
        accepted = "a number in (0, 1]" if p.domain == "probability" else f"a {p.domain} number"
        raise RunError(f"{where}: {p.name} ({p.meaning}) = {shown}; accepted: {accepted}")


def complete(run: TrainingRun) -> dict[str, Fraction]:
    """The run's numbers with the ones they imply (module docstring: the rules and their sources), in the order of
    :data:`RUN_PARAMS`.

    Raises:
        RunError: given numbers that contradict a rule (``q`` and ``b/n``; ``T`` and ``K`` times the steps per
            epoch; ``b > n``).
    """
    v = dict(run.values)
    where = run.source
    full = run.facts["batches"] == "full"
    if full:
        if "n" in v and "b" in v and v["b"] != v["n"]:
            raise RunError(f"{where}: batches = full uses all records, but b = {_text(v['b'])} and n = "
                           f"{_text(v['n'])}")
        if "q" in v and v["q"] != 1:
            raise RunError(f"{where}: batches = full has q = 1, not {_text(v['q'])}")
        v.setdefault("q", Fraction(1))
        if "n" in v:
            v.setdefault("b", v["n"])
    if "n" in v and "b" in v:
        if v["b"] > v["n"]:
            raise RunError(f"{where}: the batch size b = {_text(v['b'])} exceeds n = {_text(v['n'])}")
        if "q" in v and v["q"] != v["b"] / v["n"]:
            raise RunError(f"{where}: q = {_text(v['q'])} but b/n = {_text(v['b'] / v['n'])}; give two of n, b, q")
        v.setdefault("q", v["b"] / v["n"])
    elif "n" in v and "q" in v:
        b = v["q"] * v["n"]
        if b.denominator == 1:
            v["b"] = b
    per_epoch = _steps_per_epoch(run.facts["batches"], v)
    if per_epoch is not None:
        if "T" in v and "K" in v and v["T"] != v["K"] * per_epoch:
            raise RunError(f"{where}: T = {_text(v['T'])} steps but K = {_text(v['K'])} epochs of "
                           f"{_text(per_epoch)} steps make {_text(v['K'] * per_epoch)}; give one of T, K")
        if "K" in v and "T" not in v and (v["K"] * per_epoch).denominator == 1:
            v["T"] = v["K"] * per_epoch
        if "T" in v and "K" not in v and (v["T"] / per_epoch).denominator == 1:
            v["K"] = v["T"] / per_epoch
    return {name: v[name] for name in RUN_PARAMS if name in v}


def _steps_per_epoch(batches: str, v: Mapping[str, Fraction]) -> Fraction | None:
    """Steps per epoch (module docstring), or None when the run does not say enough to know it."""
    if batches == "full":
        return Fraction(1)
    if batches == "shuffle":
        return Fraction(math.floor(v["n"] / v["b"])) if "n" in v and "b" in v else None
    return 1 / v["q"] if "q" in v else None


@dataclass(frozen=True)
class RunMap:
    """How theorem ``key`` reads a training run.

    Attributes:
        key: the theorem's registry key.
        params: each parameter of the theorem but ``alpha``, as a sympy expression in run symbols
            (:func:`run_symbol`) or as formula text in run names.
        requires: fact -> the values of it the theorem assumes (``{"batches": ("shuffle",)}``); a loss fact is met
            by a stronger one (``logistic`` meets ``strongly-convex`` meets ``convex``).
        neighbouring: the neighbouring relation of the theorem's guarantee (``add/remove`` or ``replace-one``).
        note: the conversions used and their source (printed with the theorem's row).
    """

    key: str
    params: Mapping[str, Any]
    requires: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    neighbouring: str = "add/remove"
    note: str = ""
    _parsed: dict[str, sp.Expr] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for fact, accepted in self.requires.items():
            if fact not in RUN_FACTS or not set(accepted) <= set(RUN_FACTS[fact]):
                raise RunError(f"run map of {self.key}: requires {fact} = {list(accepted)}; accepted facts: "
                               + "; ".join(f"{k}: {', '.join(v)}" for k, v in RUN_FACTS.items()))
        if self.neighbouring not in NEIGHBOURING:
            raise RunError(f"run map of {self.key}: neighbouring {self.neighbouring!r}; accepted: "
                           f"{', '.join(NEIGHBOURING)}")

    def expr(self, name: str) -> sp.Expr:
        """Parameter ``name`` as a sympy expression in run symbols (parsed once per map and name)."""
        if name not in self._parsed:
            self._parsed[name] = self._parse(self.params[name])
        return self._parsed[name]

    @staticmethod
    def _parse(value: Any) -> sp.Expr:
        if isinstance(value, str):
            from dptheory.core.expressions import parse_text

            return sp.sympify(parse_text(value, {n: run_symbol(n) for n in RUN_PARAMS}))
        return sp.sympify(value)


NEIGHBOURING = ("add/remove", "replace-one")


@dataclass(frozen=True)
class Reading:
    """What a :class:`RunMap` makes of a run: ``params`` (exact, for ``Theorem.evaluate``; None when skipped),
    ``skipped`` (why it cannot be read: a quantity the run does not give), ``unmet`` (assumptions the run does not
    satisfy, each a sentence) and ``met`` (assumptions it satisfies)."""

    params: dict[str, sp.Rational] | None
    skipped: str = ""
    unmet: tuple[str, ...] = ()
    met: tuple[str, ...] = ()


def read(run: TrainingRun, rmap: RunMap) -> Reading:
    """Apply ``rmap`` to ``run`` (module docstring)."""
    values = complete(run)
    met: list[str] = []
    unmet: list[str] = []
    accepted_batches = rmap.requires.get("batches", tuple(RUN_FACTS["batches"]))
    full = run.facts["batches"] == "full"
    if (full and "full" not in accepted_batches) or (not full and accepted_batches == ("full",)):
        need = "mini-batches" if full else "full-batch gradient descent (b = n)"
        return Reading(None, f"is about {need}; the run has batches = {run.facts['batches']}")
    for fact, accepted in rmap.requires.items():
        have = run.facts[fact]
        ok = bool(_LOSS_IMPLIES[have] & set(accepted)) if fact == "loss" else have in accepted
        need = " or ".join(accepted)
        (met if ok else unmet).append(f"{fact} = {need} ({RUN_FACTS[fact][accepted[0]]})"
                                      + ("" if ok else f"; the run has {fact} = {have}"))
    params: dict[str, sp.Rational] = {}
    for name in rmap.params:
        expr = rmap.expr(name)
        missing = sorted(s.name for s in expr.free_symbols if s.name not in values)
        if missing:
            said = "; ".join(f"{m} ({RUN_PARAMS[m].meaning})" if m in RUN_PARAMS else m for m in missing)
            return Reading(None, f"needs {said}: give {', '.join(f'{m}=...' for m in missing)}", tuple(unmet),
                           tuple(met))
        value = expr.xreplace({run_symbol(k): sp.Rational(v.numerator, v.denominator) for k, v in values.items()})
        if not value.is_Rational:
            if not value.is_real:
                return Reading(None, f"{name} = {value} is not a real number at this run", tuple(unmet), tuple(met))
            value = sp.Rational(str(sp.N(value, DERIVED_DIGITS)))
        params[name] = value
    return Reading(params, "", tuple(unmet), tuple(met))


def run_maps_from_tables(source: str, tables: Sequence[Any]) -> list[RunMap]:
    """The ``[[run]]`` tables of a paper file as :class:`RunMap` objects: ``theorem`` (a key), ``params`` (theorem
    parameter -> formula text in run names), ``requires`` (fact -> value or list of values), ``neighbouring``,
    ``note``. Formulas are parsed by :mod:`dptheory.core.expressions` (data, never code).

    Raises:
        RunError: a table with an unknown field, a bad type, a formula outside the run's names.
    """
    from dptheory.core.expressions import ExpressionError

    fields = {"theorem", "params", "requires", "neighbouring", "note"}
    out = []
    for i, table in enumerate(tables):
        where = f"{source}: [[run]] {i + 1}"
        if not isinstance(table, dict):
            raise RunError(f"{where}: not a table")
        extra = sorted(set(table) - fields)
        if extra:
            raise RunError(f"{where}: unknown field {extra[0]!r}; accepted: {', '.join(sorted(fields))}")
        key = table.get("theorem")
        if not isinstance(key, str) or not isinstance(table.get("params"), dict):
            raise RunError(f"{where}: needs theorem = \"KEY\" and params = {{ name = \"formula in run names\" }}")
        where = f"{source}: [[run]] {key}"
        requires = {}
        for fact, accepted in table.get("requires", {}).items():
            requires[fact] = (accepted,) if isinstance(accepted, str) else tuple(accepted)
        try:
            rmap = RunMap(key, dict(table["params"]), requires, str(table.get("neighbouring", "add/remove")),
                          str(table.get("note", "")))
            for name in rmap.params:
                rmap.expr(name)
        except (ExpressionError, RunError) as exc:
            raise RunError(f"{where}: {exc}".replace(f"run map of {key}: ", "")) from None
        out.append(rmap)
    return out
