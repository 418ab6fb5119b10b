"""Every bound that reads a training run, evaluated at it (``dptheory compare --run``).

:func:`compare_run` takes one :class:`~dptheory.core.run.TrainingRun` and, for every registered
:class:`~dptheory.core.run.RunMap` (the shipped papers' and a paper file's), reads the run in the theorem's notation
(:func:`dptheory.core.run.read`), evaluates the theorem's RDP at the order ``alpha`` and/or converts it to
(epsilon, delta)-DP at ``delta`` with the order optimised (:func:`dptheory.privacy.conversion.convert`). Beside them
it gives the tight composition of the run's mechanism, ``T`` steps of the Poisson-subsampled Gaussian at the run's
``q`` and ``z``, from dp-accounting's privacy-loss distribution (:func:`dptheory.privacy.pld.pld_epsilon`, a
bracket that contains the true epsilon) under both neighbouring relations: the RDP route of the same mechanism is
the ``rdp.subsampled_gaussian`` row.

Each row has a status: ``applies`` (every assumption the theorem states about the run is met), ``not met`` (the
value is computed, but an assumption is not met, so it is not a guarantee for this run: the row says which) or
``skipped`` (the run does not give what the theorem needs, or the point violates one of its conditions: the reason).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from dptheory.core.errors import ConditionViolated, DPTheoryError
from dptheory.core.registry import REGISTRY
from dptheory.core.run import RUN_FACTS, TrainingRun, complete, read

__all__ = ["STATUSES", "compare_run"]

#: the statuses of a row, in the order rows are listed
STATUSES = ("applies", "not met", "skipped")

#: the PLD rows: label, neighbouring relation of dptheory.privacy.pld
_PLD = (("add/remove", "add_or_remove"), ("replace-one", "replace_one"))


def compare_run(
    run: TrainingRun,
    *,
    delta: str | None = None,
    alpha: str | None = None,
    method: str = "improved",
    dps: int = 15,
    keys: Sequence[str] = (),
    progress: Callable[[str], None] | None = None,
    pld: bool = True,
) -> list[dict[str, Any]]:
    """One row per run map (or per key of ``keys``), then the PLD composition rows; sorted by status, then as
    registered. ``delta`` and ``alpha`` are exact number text; at least one is needed. ``progress(label)`` is called
    as each row is started (the PLD brackets take seconds each); ``pld=False`` leaves the PLD rows out.

    Raises:
        DPTheoryError: neither ``delta`` nor ``alpha``; a key of ``keys`` that reads no run (naming those that do).
    """
    if delta is None and alpha is None:
        raise DPTheoryError("compare --run: give --delta D ((epsilon, delta)-DP) and/or alpha=A (RDP at that order)")
    maps = REGISTRY.run_maps()
    if keys:
        known = {m.key: m for m in maps}
        unknown = [k for k in keys if k not in known]
        if unknown:
            raise DPTheoryError(f"compare --run: {', '.join(unknown)} does not read a training run; the theorems "
                                f"that do: {', '.join(known)}")
        maps = [known[k] for k in keys]
    tell = progress or (lambda label: None)
    rows = []
    for m in maps:
        tell(m.key)
        rows.append(_theorem_row(run, m, delta, alpha, method, dps))
    if delta is not None and pld:
        rows.extend(_pld_rows(run, delta, tell))
    return sorted(rows, key=lambda r: STATUSES.index(r["status"]))


def _row(label: str, key: str, kind: str, neighbouring: str) -> dict[str, Any]:
    return {"label": label, "key": key, "kind": kind, "neighbouring": neighbouring, "status": "applies",
            "value": None, "epsilon": None, "epsilon_lower": None, "epsilon_upper": None, "order": None,
            "params": {}, "met": [], "unmet": [], "reason": "", "note": ""}


def _theorem_row(run: TrainingRun, rmap: Any, delta: str | None, alpha: str | None, method: str, dps: int
                 ) -> dict[str, Any]:
    import mpmath

    thm = REGISTRY.get(rmap.key)
    row = _row(rmap.key, rmap.key, "theorem", rmap.neighbouring)
    row["note"] = rmap.note
    reading = read(run, rmap)
    row["met"], row["unmet"] = list(reading.met), list(reading.unmet)
    if reading.params is None:
        row["status"], row["reason"] = "skipped", reading.skipped
        return row
    row["params"] = {k: _short(v) for k, v in reading.params.items()}
    if reading.unmet:
        row["status"] = "not met"
    try:
        if alpha is not None:
            row["value"] = mpmath.nstr(thm.evaluate({**reading.params, "alpha": alpha}, dps=dps).value, dps)
        if delta is not None:
            from dptheory.privacy.conversion import convert

            res = convert(thm, reading.params, delta=delta, method=method, dps=dps)
            if mpmath.isfinite(res.epsilon):
                row["epsilon"], row["order"] = mpmath.nstr(res.epsilon, dps), mpmath.nstr(res.order, 8)
            else:
                row["status"], row["reason"] = "skipped", "no order satisfies every condition"
    except ConditionViolated as exc:
        row["status"], row["reason"] = "skipped", f"not valid at this run: {exc.condition} ({exc.gloss})"
        row["value"] = row["epsilon"] = row["order"] = None
    return row


def _pld_rows(run: TrainingRun, delta: str, tell: Callable[[str], None]) -> list[dict[str, Any]]:
    from dptheory.core.validate import exact_number
    from dptheory.privacy.pld import pld_epsilon

    values = complete(run)
    out = []
    for label, relation in _PLD:
        row = _row(f"PLD composition ({label}, tight)", "pld", "composition", label)
        tell(row["label"])
        row["note"] = "dp-accounting's privacy-loss distribution: the true epsilon lies in the bracket"
        missing = [k for k in ("q", "z", "T") if k not in values]
        if missing:
            row["status"], row["reason"] = "skipped", f"needs {', '.join(missing)} of the run"
            out.append(row)
            continue
        if run.facts["batches"] not in ("poisson", "full"):
            row["status"] = "not met"
            row["unmet"] = [f"batches = poisson ({RUN_FACTS['batches']['poisson']}); the run has batches = "
                            f"{run.facts['batches']}"]
        else:
            row["met"] = [f"batches = {run.facts['batches']}"]
        q, z, steps = float(values["q"]), float(values["z"]), int(values["T"])
        row["params"] = {"q": repr(q), "z": repr(z), "T": str(steps)}
        try:
            r = pld_epsilon(q, z, steps, float(exact_number(delta)), neighbouring=relation)
        except DPTheoryError as exc:
            row["status"], row["reason"] = "skipped", f"not computed: {exc}"
        else:
            row["epsilon_lower"], row["epsilon_upper"] = r.epsilon_lower, r.epsilon_upper
            row["epsilon"] = repr(r.epsilon_upper)
        out.append(row)
    return out


def _short(value: Any) -> str:
    """A parameter as the row shows it: exact when short, else 15 significant digits."""
    text = str(value)
    if len(text) <= 24:
        return text
    import sympy as sp

    return str(sp.N(value, 15))
