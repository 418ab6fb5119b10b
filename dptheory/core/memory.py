"""Memory a workload will allocate, estimated from its shapes before anything is allocated, against what is free.

A trainer, an audit or a sweep sizes its arrays from the user's numbers (``--runs``, a grid's points): with
``--runs 100000000`` the arrays of ``dptheory yeshokri22 train`` need about a terabyte. Instead of starting
and failing late (or swapping for hours), the entry point describes its allocations as a
:class:`MemoryEstimate` (bytes per unit of work, such as one run, plus bytes independent of it) and calls
:meth:`MemoryEstimate.check`, which raises :class:`~dptheory.core.errors.InsufficientMemory` with the
estimate, the memory available and the largest count that fits.

Available memory (:func:`available_bytes`) is the kernel's ``MemAvailable`` (``/proc/meminfo``: free memory
plus what can be reclaimed without swapping; Linux >= 3.14), else ``os.sysconf('SC_AVPHYS_PAGES')`` (free
pages), bounded by a cgroup (v2 ``memory.max`` or v1 ``memory.limit_in_bytes``) limit minus its usage;
``None`` when none of these is readable, and then nothing is refused. No dependency: psutil computes the same
figure from the same files.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dptheory.core.errors import InsufficientMemory

__all__ = ["MemoryEstimate", "array_bytes", "available_bytes", "human_bytes", "row_bytes"]


def array_bytes(shape: Sequence[int], itemsize: int = 8) -> int:
    """Bytes of the data of a numpy array of ``shape`` and ``itemsize`` (exact Python integers: no overflow)."""
    return math.prod(int(s) for s in shape) * int(itemsize)


def row_bytes(row: Mapping[str, Any]) -> int:
    """Bytes of a dict of scalars, its keys and values included (``sys.getsizeof`` of each; an upper estimate
    when keys are shared between rows)."""
    return sys.getsizeof(row) + sum(sys.getsizeof(k) + sys.getsizeof(v) for k, v in row.items())


def _meminfo_available(path: str = "/proc/meminfo") -> int | None:
    try:
        with open(path, encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _sysconf_available() -> int | None:
    try:
        pages, size = os.sysconf("SC_AVPHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None
    return pages * size if pages > 0 and size > 0 else None


def _read_int(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None  # "max" (no limit) or unreadable: None


def _cgroup_available(root: Path = Path("/sys/fs/cgroup")) -> int | None:
    """The limit minus the usage of this process's memory cgroup (v2, else v1), or None without a limit."""
    for limit, usage in (("memory.max", "memory.current"), ("memory/memory.limit_in_bytes",
                                                             "memory/memory.usage_in_bytes")):
        lim, use = _read_int(root / limit), _read_int(root / usage)
        if lim is not None and use is not None and lim < 2**60:  # v1 reports "no limit" as a huge number
            return max(0, lim - use)
    return None


def available_bytes() -> int | None:
    """Memory this process can still allocate without swapping, in bytes (see the module docstring), or None."""
    free = _meminfo_available()
    if free is None:
        free = _sysconf_available()
    limit = _cgroup_available()
    known = [x for x in (free, limit) if x is not None]
    return min(known) if known else None


def human_bytes(n: float) -> str:
    """``1234567`` -> ``"1.23 MB"`` (decimal units, three significant digits)."""
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{int(n)} bytes"


@dataclass(frozen=True)
class MemoryEstimate:
    """Bytes a workload allocates: ``units * sum(per_unit) + sum(fixed)``.

    Attributes:
        what: who allocates, for messages (``"train.noisy_gd"``).
        units: the count the user chose (runs, grid points).
        unit: its name in messages (``"runs"``), the option that sets it being in ``advice``.
        per_unit: bytes per unit, by array (``{"theta": 5200}``).
        fixed: bytes independent of ``units`` (working arrays of one chunk), by array.
        advice: what to change, appended to the message (default: give fewer units).
    """

    what: str
    units: int
    unit: str
    per_unit: dict[str, int] = field(default_factory=dict)
    fixed: dict[str, int] = field(default_factory=dict)
    advice: str = ""

    @property
    def total(self) -> int:
        return self.units * sum(self.per_unit.values()) + sum(self.fixed.values())

    def parts(self) -> dict[str, int]:
        """Every array's bytes (per-unit arrays times ``units``), largest first."""
        out = {k: self.units * v for k, v in self.per_unit.items()}
        for k, v in self.fixed.items():
            out[k] = out.get(k, 0) + v
        return dict(sorted(out.items(), key=lambda kv: -kv[1]))

    def fitting_units(self, available: int) -> int:
        """The largest count of units whose estimate fits in ``available`` bytes (0 if none)."""
        per = sum(self.per_unit.values())
        room = available - sum(self.fixed.values())
        if room <= 0:
            return 0
        return self.units if per == 0 else room // per

    def with_per_unit(self, extra: Mapping[str, int] | None) -> MemoryEstimate:
        """This estimate plus a caller's own per-unit allocations (e.g. output rows built from the result)."""
        if not extra:
            return self
        merged = dict(self.per_unit)
        for k, v in extra.items():
            merged[k] = merged.get(k, 0) + int(v)
        return MemoryEstimate(self.what, self.units, self.unit, merged, dict(self.fixed), self.advice)

    def check(self, available: int | None = None) -> None:
        """Raise :class:`InsufficientMemory` when the estimate exceeds ``available`` (default
        :func:`available_bytes`; nothing is refused when that is unknown)."""
        avail = available_bytes() if available is None else available
        need = self.total
        if avail is None or need <= avail:
            return
        top = ", ".join(f"{k} {human_bytes(v)}" for k, v in list(self.parts().items())[:3] if v > 0)
        fit = self.fitting_units(avail)
        how = self.advice or f"give fewer {self.unit}"
        fits = f"at most about {fit:,} {self.unit} fit" if fit > 0 else f"not even one of the {self.unit} fits"
        raise InsufficientMemory(
            f"{self.what}: {self.units:,} {self.unit} need about {human_bytes(need)} of memory ({top}), more than "
            f"the {human_bytes(avail)} available; {how} ({fits})")
