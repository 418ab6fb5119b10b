"""Files are written whole or not at all.

Every output of dptheory goes through :func:`atomic_write` (one file) or :class:`AtomicGroup` (several
files that belong together: all of them appear, or none): the content is written to a temporary file
in the target folder and renamed into place (``os.replace`` is atomic on POSIX within a file system),
so an interrupted or failed command never leaves a half-written or stale-but-replaced file.

* A target that is a symbolic link is written through: its target file is replaced (atomically, the
  temporary file is made beside it) and the link stays a link, as a plain ``open(path, "w")`` would do.
* An output that cannot be written is an :class:`~dptheory.core.errors.OutputPathError` naming the path
  as given and what is wrong (its folder does not exist, is a file, or is not writable), never the name of
  the temporary file (:func:`check_target` is the one check; the command line's option types use it too).
* Two outputs of one group that are the same file (also through a symbolic link, ``./f.png`` and ``f.png``
  or a hard link) are refused (:func:`same_file`).

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
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from dptheory.core.errors import OutputPathError

__all__ = ["INTERRUPTS", "AtomicGroup", "atomic_write", "check_target", "new_temporary_file", "output_problem",
           "raise_dropped_interrupt", "same_file", "temporary_folder"]


#: an interrupt that a signal handler raised where Python cannot let an exception propagate (a weakref callback, a
#: ``__del__``: Python prints "Exception ignored" and goes on). The command line's handler records every interrupt it
#: raises here (``dptheory.cli``); while one is recorded no file is put in place (:func:`raise_dropped_interrupt`),
#: and the command ends as interrupted.
INTERRUPTS: list[BaseException] = []


def raise_dropped_interrupt() -> None:
    """Raise the recorded interrupt, if any (before a file or a group of files is renamed into place)."""
    if INTERRUPTS:
        raise INTERRUPTS[0]


def output_problem(path: str | os.PathLike[str]) -> str | None:
    """Why ``path`` cannot be written as an output file (a sentence naming the path as given), or None.

    A symbolic link is followed (the file written is the link's target; the message then names both)."""
    given = Path(path)
    shown = os.fspath(path)
    if given.is_dir():
        return f"{shown} is a folder; give a file name (e.g. {given / ('out' + (given.suffix or '.png'))})"
    base = given
    via = ""
    if given.is_symlink():
        base = Path(os.path.realpath(given))
        via = f" (a symbolic link to {base})"
    folder = base.parent
    if not folder.is_dir():
        # the nearest existing ancestor: a file in the way, or else the first missing folder below it
        missing, p = folder, folder
        while not p.exists() and p != p.parent:
            missing, p = p, p.parent
        if p.exists() and not p.is_dir():
            return f"cannot write {shown}{via}: {p} is a file, not a folder"
        return f"cannot write {shown}{via}: the folder {missing} does not exist"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"cannot write {shown}{via}: the folder {folder} is not writable (permission denied)"
    return None


def check_target(path: str | os.PathLike[str]) -> Path:
    """The file to write for output ``path`` (a symbolic link resolved to its target), or
    :class:`OutputPathError` (see :func:`output_problem`)."""
    problem = output_problem(path)
    if problem is not None:
        raise OutputPathError(problem)
    return Path(os.path.realpath(path))


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """True when output paths ``a`` and ``b`` name one file: the same path once symbolic links, ``.`` and ``..``
    are resolved, or (both existing) one inode (hard links)."""
    ra, rb = os.path.realpath(a), os.path.realpath(b)
    if ra == rb:
        return True
    try:
        return os.path.samefile(ra, rb)
    except OSError:
        return False


def _failed(shown: str, exc: OSError) -> OutputPathError:
    """An ``OSError`` of our own file operations, reworded to name the user's path (not the temporary file)."""
    return OutputPathError(f"cannot write {shown}: {exc.strerror or type(exc).__name__}")


def new_temporary_file(folder: str | os.PathLike[str], prefix: str, suffix: str, *, mode: int = 0o600,
                       record: Callable[[Path], None], forget: Callable[[], object], shown: str = "") -> Path:
    """Create a new empty file ``folder/prefix<random>suffix`` (``O_EXCL``: never an existing one) with
    permissions ``mode``, and return its path.

    Its name is given to ``record`` *before* the file exists (``forget`` undoes the last ``record`` when the name
    is taken), so that an interrupt (Ctrl-C, or SIGTERM/SIGHUP, which the command line turns into one) at any
    moment leaves nothing the caller's clean-up does not know about: deleting a recorded name that was never
    created is harmless. Errors name ``shown`` (the user's path), not the temporary file."""
    for _ in range(100):
        tmp = Path(folder) / f"{prefix}{os.urandom(5).hex()}{suffix}"
        record(tmp)
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
        except FileExistsError:
            forget()
            continue
        except OSError as exc:
            forget()
            raise _failed(shown or os.fspath(tmp), exc) from None
        try:
            os.fchmod(fd, mode)
        finally:
            os.close(fd)
        return tmp
    raise OutputPathError(f"cannot write {shown}: no free temporary file name in {folder}")


@contextlib.contextmanager
def temporary_folder(prefix: str, folder: str | os.PathLike[str] | None = None) -> Iterator[Path]:
    """A new private folder (mode 0700) ``folder/prefix<random>`` (default folder: the system's temporary one),
    removed with everything in it on leaving, also when an interrupt (Ctrl-C, SIGTERM, SIGHUP) arrives at any
    moment. As :func:`new_temporary_file` does, the name is recorded for removal *before* the ``mkdir``, so an
    interrupt just after it (which ``tempfile.TemporaryDirectory`` does not survive: its folder exists before its
    finaliser does) still removes the folder; a name that turns out to be taken is forgotten at once (only a
    40-bit name collision that meets an interrupt in that one statement could remove another's folder)."""
    base = Path(folder) if folder is not None else Path(tempfile.gettempdir())
    made: Path | None = None
    try:
        for _ in range(100):
            made = base / f"{prefix}{os.urandom(5).hex()}"
            try:
                os.mkdir(made, 0o700)
            except FileExistsError:
                made = None
                continue
            break
        if made is None:
            raise OutputPathError(f"cannot create a temporary folder in {base}: no free name")
        yield made
    finally:
        if made is not None:
            shutil.rmtree(made, ignore_errors=True)


def _tmp_name(p: Path, shown: str, record: Callable[[Path], None], forget: Callable[[], object]) -> Path:
    """A new empty temporary file beside ``p``, ``.NAME.<random>.part`` + the extension of ``p`` (kept last, for
    writers that infer the format from it), with the mode a plain ``open()`` would give ``p``."""
    return new_temporary_file(p.parent, f".{p.name}.", ".part" + p.suffix, mode=_mode_for(p), record=record,
                              forget=forget, shown=shown)


def _mode_for(p: Path) -> int:
    try:
        return p.stat().st_mode & 0o7777
    except FileNotFoundError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike[str], mode: str = "w", **kwargs: Any) -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path`` (beside its target if it is a symbolic link); on a clean exit
    rename it to that file, else delete it."""
    if mode not in ("w", "wb"):
        raise ValueError("atomic_write writes whole files: mode must be 'w' or 'wb'")
    shown = os.fspath(path)
    p = check_target(path)
    made: list[Path] = []
    try:
        tmp = _tmp_name(p, shown, made.append, made.pop)
        try:
            fh = open(tmp, mode, **kwargs)  # closed by the with below
        except OSError as exc:
            raise _failed(shown, exc) from None
        with fh:
            yield fh
            try:
                fh.flush()
                os.fsync(fh.fileno())
            except OSError as exc:
                raise _failed(shown, exc) from None
        raise_dropped_interrupt()
        try:
            os.replace(tmp, p)
        except OSError as exc:
            raise _failed(shown, exc) from None
    except BaseException:
        for t in made:
            with contextlib.suppress(FileNotFoundError):
                t.unlink()
        raise


class AtomicGroup:
    """Several output files that appear together or not at all (use as a context manager)."""

    def __init__(self) -> None:
        self._pending: list[tuple[Path, Path, str]] = []  # (temporary file, file written, path as given)

    def path(self, target: str | os.PathLike[str]) -> Path:
        """A temporary path beside ``target`` for a writer that wants a file name (e.g. matplotlib)."""
        shown = os.fspath(target)
        p = check_target(target)
        for _tmp, final, other in self._pending:
            if same_file(final, p):
                raise OutputPathError(f"two outputs name the same file: {other} and {shown}; give different files")
        return _tmp_name(p, shown, lambda t: self._pending.append((t, p, shown)), self._pending.pop)

    @contextlib.contextmanager
    def open(self, target: str | os.PathLike[str], mode: str = "w", **kwargs: Any) -> Iterator[IO[Any]]:
        if mode not in ("w", "wb"):
            raise ValueError("AtomicGroup.open writes whole files: mode must be 'w' or 'wb'")
        tmp = self.path(target)
        with open(tmp, mode, **kwargs) as fh:
            yield fh

    def commit(self) -> list[Path]:
        """Rename every temporary file into place (in order); returns the paths as given. If a rename fails, the
        temporary files not yet renamed are deleted."""
        done = []
        try:
            raise_dropped_interrupt()
            while self._pending:
                tmp, final, shown = self._pending[0]
                try:
                    os.replace(tmp, final)
                except OSError as exc:
                    raise _failed(shown, exc) from None
                self._pending.pop(0)
                done.append(Path(shown))
        except BaseException:
            self.discard()
            raise
        return done

    def discard(self) -> None:
        for tmp, _final, _shown in self._pending:
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
