"""Files are written whole or not at all.

Every output of dptheory goes through :func:`atomic_write` (one file) or :class:`AtomicGroup` (several
files that belong together: all of them appear, or none): the content is written to a temporary file
in the target folder and renamed into place (``os.replace`` is atomic on POSIX within a file system),
so an interrupted or failed command never leaves a half-written or stale-but-replaced file.

Usage::

    with atomic_write("out.csv") as fh:           # text; mode="wb" for bytes
        fh.write(...)

    with AtomicGroup() as group:                   # several files: all or none
        plot_to(group.path("fig.png"))             # a temporary path; renamed on success
        with group.open("fig.csv") as fh:
            fh.write(...)
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from dptheory.core.errors import DPTheoryError


def _target(path: str | os.PathLike[str]) -> Path:
    p = Path(path)
    if p.is_dir():
        raise DPTheoryError(f"{p} is a folder; give a file name (e.g. {p / 'out.png'})")
    if not p.parent.exists():
        raise DPTheoryError(f"cannot write {p}: the folder {p.parent} does not exist")
    return p


def _tmp_name(p: Path) -> Path:
    fd, name = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".part", dir=p.parent)
    try:
        # mkstemp creates the file private (0600); the output gets the mode a plain open() would give it
        # (the existing file's, else 0666 less the umask)
        os.fchmod(fd, _mode_for(p))
    finally:
        os.close(fd)
    return Path(name)


def _mode_for(p: Path) -> int:
    try:
        return p.stat().st_mode & 0o7777
    except FileNotFoundError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike[str], mode: str = "w", **kwargs: Any) -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path``; on a clean exit rename it to ``path``, else delete it."""
    if mode not in ("w", "wb"):
        raise ValueError("atomic_write writes whole files: mode must be 'w' or 'wb'")
    p = _target(path)
    tmp = _tmp_name(p)
    try:
        with open(tmp, mode, **kwargs) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, p)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise


class AtomicGroup:
    """Several output files that appear together or not at all (use as a context manager)."""

    def __init__(self) -> None:
        self._pending: list[tuple[Path, Path]] = []

    def path(self, target: str | os.PathLike[str]) -> Path:
        """A temporary path beside ``target`` for a writer that wants a file name (e.g. matplotlib)."""
        p = _target(target)
        tmp = _tmp_name(p)
        # keep the extension last so that writers which infer the format from it still work
        tmp_ext = tmp.with_name(tmp.name[: -len(".part")] + ".part" + p.suffix)
        tmp.rename(tmp_ext)
        self._pending.append((tmp_ext, p))
        return tmp_ext

    @contextlib.contextmanager
    def open(self, target: str | os.PathLike[str], mode: str = "w", **kwargs: Any) -> Iterator[IO[Any]]:
        if mode not in ("w", "wb"):
            raise ValueError("AtomicGroup.open writes whole files: mode must be 'w' or 'wb'")
        tmp = self.path(target)
        with open(tmp, mode, **kwargs) as fh:
            yield fh

    def commit(self) -> list[Path]:
        """Rename every temporary file into place (in order); returns the final paths."""
        done = []
        for tmp, final in self._pending:
            os.replace(tmp, final)
            done.append(final)
        self._pending = []
        return done

    def discard(self) -> None:
        for tmp, _final in self._pending:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
        self._pending = []

    def __enter__(self) -> AtomicGroup:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.discard()
