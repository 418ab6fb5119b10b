"""The user's cache folder and the files dptheory keeps there: the statement cache's entries
(:mod:`dptheory.core.snapshot`), the notes a command leaves for its next run (how long each claim took), the entry
points of the installed distributions (:func:`dptheory.catalog.paper_packages`).

A light module (the standard library only): a command that reads the cache before it needs mpmath or sympy (the
command line's paper groups, ``dptheory list``) imports nothing heavier.

**Where.** ``$DPTHEORY_CACHE_DIR`` (an absolute path), else ``$XDG_CACHE_HOME/dptheory`` (absolute), else
``~/.cache/dptheory``; never the working folder. ``DPTHEORY_NO_CACHE=1`` turns the cache off. A folder that does not
belong to the user, or that others can write, is not used. Files are written whole (a temporary file renamed into
place) or not at all; a cache that cannot be written costs speed, never a result. An entry holds the material it
was written for and a SHA-256 of its record: one written for other material, torn, corrupt or not JSON is ignored.
Entries are data (JSON), never code.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dptheory.core.errors import DPTheoryWarning

__all__ = ["CACHE_ENV", "FORMAT", "NOTES", "NO_CACHE_ENV", "StatementCache", "cache_dir", "read_note", "write_note"]

#: the layout of a statement record (:func:`dptheory.core.snapshot.record_of`); a change retires every entry
FORMAT = 1
CACHE_ENV = "DPTHEORY_CACHE_DIR"
NO_CACHE_ENV = "DPTHEORY_NO_CACHE"
#: the sub-folder of the notes a command leaves for its next run (:func:`read_note`, the entry points)
NOTES = "notes"


def _warn(message: str) -> None:
    warnings.warn(DPTheoryWarning(message), stacklevel=3)


def cache_dir() -> Path | None:
    """The statement cache's folder (see the module docstring), or None when the cache is off."""
    if os.environ.get(NO_CACHE_ENV, "").strip() not in ("", "0"):
        return None
    given = os.environ.get(CACHE_ENV, "").strip()
    if given:
        if os.path.isabs(given):
            return Path(given)
        _warn(f"{CACHE_ENV}={given!r} is not an absolute path; it is ignored (accepted: an absolute folder path)")
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "dptheory"
    home = Path.home()
    return home / ".cache" / "dptheory" if home.is_absolute() else None


def _digest(data: Any) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


class StatementCache:
    """The entries of the statement cache in one folder (``root``; default :func:`cache_dir`)."""

    def __init__(self, root: Path | None = None, sub: str = f"statements-v{FORMAT}") -> None:
        self.root = cache_dir() if root is None else root
        self.sub = sub

    def _folder(self, create: bool) -> Path | None:
        if self.root is None:
            return None
        folder = self.root / self.sub
        try:
            if create:
                folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            st = folder.stat()
        except OSError:
            return None
        if not _private(st):
            _warn(f"{folder}, in dptheory's cache, is not a folder of yours alone (owner or permissions); it is not "
                  "used (accepted: a folder owned by you, writable by you only)")
            return None
        return folder

    def path(self, mat: Mapping[str, Any], name: str | None = None) -> Path | None:
        """The file of the entry for ``mat``: named by a hash of it, or ``name`` (one entry kept under a fixed name,
        replaced when its material changes)."""
        folder = self._folder(create=False)
        return None if folder is None else folder / f"{_digest(mat) if name is None else name}.json"

    def load(self, mat: Mapping[str, Any], name: str | None = None) -> dict[str, Any] | None:
        """The record stored for this material, or None (absent, unreadable, corrupt, or written for other
        material)."""
        path = self.path(mat, name)
        if path is None:
            return None
        try:
            with open(path, "rb") as fh:
                entry = json.loads(fh.read())
        except (OSError, ValueError):
            return None
        if not isinstance(entry, dict) or entry.get("material") != dict(mat) or not isinstance(entry.get("record"),
                                                                                              dict):
            return None
        record: dict[str, Any] = entry["record"]
        if entry.get("sha256") != _digest(record) or record.get("key") != mat.get("key"):
            return None
        return record

    def store(self, mat: Mapping[str, Any], record: Mapping[str, Any], name: str | None = None) -> Path | None:
        """Write an entry whole (a temporary file in the same folder, renamed into place), or nothing; under
        ``name`` if given (see :meth:`path`)."""
        return self.write(f"{_digest(mat) if name is None else name}.json",
                          json.dumps({"material": dict(mat), "record": record, "sha256": _digest(record)}).encode())

    def write(self, name: str, data: bytes) -> Path | None:
        """Write the file ``name`` of the folder whole (a temporary file renamed into place), or nothing."""
        folder = self._folder(create=True)
        if folder is None:
            return None
        path = folder / name
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)
        except OSError:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            return None
        return path


def read_note(name: str) -> Any:
    """The JSON data a command noted for its next run in the cache folder (``notes/NAME.json``: plain data, such as
    how long each claim took, never code), or None."""
    store = StatementCache(sub=NOTES)
    folder = store._folder(create=False)
    if folder is None:
        return None
    try:
        return json.loads((folder / f"{name}.json").read_bytes())
    except (OSError, ValueError):
        return None


def write_note(name: str, data: Any) -> None:
    """Note JSON data for the next run (:func:`read_note`); written whole or not at all, silently skipped when the
    cache is off or cannot be written."""
    StatementCache(sub=NOTES).write(f"{name}.json", json.dumps(data, sort_keys=True).encode())


def _private(st: os.stat_result) -> bool:
    """A folder of the current user's, not writable by the group or others (always true where there are no
    owners: Windows)."""
    getuid = getattr(os, "getuid", None)
    if getuid is None:
        return True
    return bool(st.st_uid == getuid() and not (st.st_mode & 0o022))
