"""Output files of the command line under hostile use (issue 18, item 5).

* messages name the path the user gave and what is wrong with it (a file where a folder should be, a folder
  that does not exist or is not writable), never dptheory's temporary ``.part`` file
  (:func:`dptheory.core.io.output_problem`);
* two outputs of one command naming the same file (also as ``./f.png`` or through a symbolic link) are refused
  before any work (:func:`dptheory.cli.output.check_outputs`);
* ``-`` is standard output for text outputs and refused for images and binary files;
* writing through a symbolic link writes its target, and the link stays;
* SIGTERM and SIGHUP clean up like Ctrl-C: no ``.part`` file, no ``dptheory-report-*`` folder, old outputs intact,
  exit status 128 + the signal's number (:class:`dptheory.cli.Terminated`);
* a report folder with non-Latin characters builds a PDF (:func:`dptheory.report.build.unicode_fallbacks`);
* ``MPLBACKEND`` naming no backend does not break a figure (:func:`dptheory.report.plotting.matplotlib_for_files`).

Every test works in ``tmp_path`` (the current folder is changed to it), so nothing is written into the repository.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dptheory.cli import main
from dptheory.core.errors import DPTheoryError
from dptheory.core.io import AtomicGroup, atomic_write

SWEEP = ["sweep", "rdp.gaussian", "alpha=2..4", "z=1", "T=1"]
PARAMS = ('[report]\npaper = "yeshokri22"\nclaims = false\n\n[[sets]]\nname = "s"\n'
          'params = { alpha = 10, eta = "0.02", lam = 1, beta = 4, S_g = 4, sigma = 2, n = 50, b = 2, K = 3 }\n')


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


def _parts(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if ".part" in p.name)


def _run(argv: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dptheory", *argv], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env})


# ----------------------------------------------------------------------------- paths in messages
def test_a_file_in_place_of_the_folder_is_named_not_the_temporary_file(tmp_path, capsys):
    (tmp_path / "afile.txt").write_text("keep")
    assert main([*SWEEP, "--csv", "afile.txt/x.csv"]) in (1, 2)
    err = capsys.readouterr().err
    assert "cannot write afile.txt/x.csv: afile.txt is a file, not a folder" in err
    assert ".part" not in err and err.count("\n") == 1
    with pytest.raises(DPTheoryError, match=r"afile.txt is a file, not a folder") as info:
        with atomic_write(tmp_path / "afile.txt" / "y.csv") as fh:
            fh.write("x")
    assert ".part" not in str(info.value)
    assert (tmp_path / "afile.txt").read_text() == "keep" and _parts(tmp_path) == []


def test_a_missing_folder_is_named_as_given(tmp_path, capsys):
    assert main([*SWEEP, "--csv", "nodir/sub/x.csv"]) in (1, 2)
    err = capsys.readouterr().err
    assert "cannot write nodir/sub/x.csv: the folder nodir does not exist" in err and ".part" not in err
    with pytest.raises(DPTheoryError, match="the folder nodir does not exist"):
        AtomicGroup().path("nodir/sub/x.png")


def test_a_folder_that_cannot_be_written_is_named_not_the_temporary_file(tmp_path, monkeypatch, capsys):
    """The operating system's refusal (here simulated: the tests may run as root, who may write anywhere) is
    reworded to name the user's path; the temporary name in the OSError never reaches the message."""
    real_open = os.open
    ro = tmp_path / "ro"

    def refuse(path, *args, **kwargs):  # the creation of any file in ro (tempfile.mkstemp also calls os.open)
        if Path(path).resolve().parent == ro:
            raise PermissionError(13, "Permission denied", str(ro / ".x.csv.36o6nsfu.part"))
        return real_open(path, *args, **kwargs)

    ro.mkdir()
    monkeypatch.setattr(os, "open", refuse)
    with pytest.raises(DPTheoryError) as info:
        with atomic_write(tmp_path / "ro" / "x.csv") as fh:
            fh.write("x")
    assert str(info.value) == f"cannot write {tmp_path / 'ro' / 'x.csv'}: Permission denied"
    assert main([*SWEEP, "--csv", "ro/x.csv"]) == 1
    err = capsys.readouterr().err
    assert "cannot write ro/x.csv: Permission denied" in err and ".part" not in err


def test_a_folder_without_write_permission_is_refused_before_writing(tmp_path, monkeypatch, capsys):
    ro = tmp_path / "ro"
    ro.mkdir()
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if Path(p).resolve() == ro
                        else real_access(p, mode, **kw))
    with pytest.raises(DPTheoryError, match=r"the folder .*ro is not writable \(permission denied\)"):
        with atomic_write(ro / "x.csv") as fh:
            fh.write("x")
    assert main([*SWEEP, "--csv", "ro/x.csv"]) == 2
    assert "the folder ro is not writable" in capsys.readouterr().err
    assert list(ro.iterdir()) == []


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root may write into a read-only folder")
def test_a_read_only_folder_for_real(tmp_path, capsys):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        assert main([*SWEEP, "--csv", "ro/x.csv"]) == 2
        err = capsys.readouterr().err
        assert "the folder ro is not writable" in err and ".part" not in err
    finally:
        ro.chmod(0o755)


# ----------------------------------------------------------------------------- two outputs, one file
@pytest.mark.parametrize("csv_name, plot_name", [("same.png", "same.png"), ("./same.png", "same.png"),
                                                 ("real.png", "link.png"), ("sub/../same.png", "same.png")])
def test_two_outputs_naming_one_file_are_refused_before_any_work(tmp_path, monkeypatch, capsys, csv_name,
                                                                 plot_name):
    import dptheory.evaluate.sweep

    def no_work(*args, **kwargs):
        raise AssertionError("the sweep ran although its outputs collide")

    monkeypatch.setattr(dptheory.evaluate.sweep, "sweep", no_work)
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.png").symlink_to("real.png")
    assert main([*SWEEP, "--csv", csv_name, "--plot", plot_name]) == 2
    err = capsys.readouterr().err
    assert f"--csv {csv_name} and --plot {plot_name} name the same file" in err
    assert not (tmp_path / "same.png").exists() and not (tmp_path / "real.png").exists()


def test_a_hard_link_is_the_same_file(tmp_path, capsys):
    (tmp_path / "a.png").write_text("old")
    os.link(tmp_path / "a.png", tmp_path / "b.png")
    assert main([*SWEEP, "--csv", "a.png", "--plot", "b.png"]) == 2
    assert "name the same file" in capsys.readouterr().err
    assert (tmp_path / "a.png").read_text() == "old"


def test_figure_out_and_csv_naming_one_file_are_refused(tmp_path, capsys):
    assert main(["figure", "yeshokri22-fig1", "--out", "f.png", "--csv", "f.png"]) == 2
    assert "name the same file" in capsys.readouterr().err
    # --out FOLDER names FOLDER/<figure>.png
    assert main(["figure", "yeshokri22-fig1", "--out", ".", "--csv", "yeshokri22-fig1.png"]) == 2
    assert "--out yeshokri22-fig1.png name the same file" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_paper_command_outputs_naming_one_file_are_refused(tmp_path, capsys):
    argv = ["yeshokri22", "train", "--model", "quadratic", "n=10", "K=2", "--runs", "3"]
    assert main([*argv, "--csv", "o.csv", "--json", "o.csv"]) == 2
    assert "name the same file" in capsys.readouterr().err
    assert main([*argv, "--csv", "o.npy", "--save-iterates", "./o.npy"]) == 2
    assert "name the same file" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_one_group_refuses_the_same_file_twice(tmp_path):
    (tmp_path / "l.csv").symlink_to("t.csv")
    with pytest.raises(DPTheoryError, match="two outputs name the same file"):
        with AtomicGroup() as group:
            group.path(tmp_path / "t.csv")
            group.path(tmp_path / "l.csv")
    assert _parts(tmp_path) == [] and not (tmp_path / "t.csv").exists()


# ----------------------------------------------------------------------------- "-" is standard output
def test_csv_dash_is_standard_output(tmp_path, capsys):
    assert main([*SWEEP, "--csv", "-"]) == 0
    out = capsys.readouterr().out
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0]) == ["alpha", "rdp.gaussian"] and len(rows) == 50
    assert all(float(r["rdp.gaussian"]) == pytest.approx(float(r["alpha"]) / 2) for r in rows)  # alpha / (2 z^2)
    assert not (tmp_path / "-").exists() and list(tmp_path.iterdir()) == []


def test_figure_csv_dash_sends_only_the_data_to_standard_output(tmp_path, capsys):
    assert main(["figure", "yeshokri22-fig1", "--out", "f.png", "--csv", "-"]) == 0
    cap = capsys.readouterr()
    assert cap.out.startswith("K,") and "wrote" not in cap.out
    assert "wrote f.png and the CSV to standard output" in cap.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.png"]


def test_paper_command_csv_dash(tmp_path, capsys):
    argv = ["yeshokri22", "train", "--model", "quadratic", "n=10", "b=2", "K=2", "--runs", "3"]
    assert main([*argv, "--csv", "-"]) == 0
    cap = capsys.readouterr()
    assert cap.out.splitlines()[0] == "run,theta_0" and len(cap.out.splitlines()) == 4
    assert "trained 3 models" in cap.err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv, what", [
    ([*SWEEP, "--plot", "-"], "--plot"),
    (["figure", "yeshokri22-fig1", "--out", "-"], "--out cannot be '-' (standard output)"),
    (["report", "--paper", "yeshokri22", "--out", "-"], "--out cannot be '-' (standard output)"),
    (["yeshokri22", "train", "--model", "quadratic", "n=10", "--save-iterates", "-"],
     "--save-iterates cannot be '-' (standard output): it writes a binary file"),
    ([*SWEEP, "--csv", "-", "--json"], "--csv - and --json would both write to standard output"),
    ([*SWEEP, "--csv", "-", "--print"], "--csv - and --print would both write to standard output"),
    (["yeshokri22", "train", "--model", "quadratic", "n=10", "--json", "--csv", "-"],
     "would both write to standard output"),
])
def test_dash_is_refused_where_it_cannot_be_standard_output(tmp_path, capsys, argv, what):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert what in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


# ----------------------------------------------------------------------------- symbolic links
def test_writing_through_a_symbolic_link_writes_its_target(tmp_path, capsys):
    (tmp_path / "data").mkdir()
    target = tmp_path / "data" / "real.csv"
    target.write_text("old\n")
    (tmp_path / "link.csv").symlink_to(target)
    assert main([*SWEEP, "--csv", "link.csv"]) == 0
    assert (tmp_path / "link.csv").is_symlink() and os.readlink(tmp_path / "link.csv") == str(target)
    assert target.read_text().startswith("alpha,rdp.gaussian")
    with atomic_write(tmp_path / "link.csv") as fh:
        fh.write("new\n")
    assert (tmp_path / "link.csv").is_symlink() and target.read_text() == "new\n"
    assert _parts(tmp_path) == []


def test_a_dangling_link_creates_its_target(tmp_path):
    (tmp_path / "l.png").symlink_to("made.png")
    with AtomicGroup() as group:
        group.path(tmp_path / "l.png").write_bytes(b"png")
    assert (tmp_path / "l.png").is_symlink() and (tmp_path / "made.png").read_bytes() == b"png"


# ----------------------------------------------------------------------------- SIGTERM / SIGHUP
def _default_disposition(signum: int):
    """For Popen's preexec_fn: the command starts with the signal's default disposition, whatever the test runner
    inherited (under ``nohup`` SIGHUP is ignored, and the command rightly keeps ignoring it)."""
    return lambda: signal.signal(signum, signal.SIG_DFL)


def _signal_when(proc: subprocess.Popen[str], ready, signum: int, what: str) -> tuple[int, str]:
    t0 = time.monotonic()
    while not ready():
        assert proc.poll() is None, f"the command ended before {what} appeared: {proc.communicate()}"
        assert time.monotonic() - t0 < 90, f"{what} did not appear within 90 s"
        time.sleep(0.01)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=90)
    return proc.returncode, err


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_during_figure_leaves_no_part_file(tmp_path, signum):
    (tmp_path / "f.png").write_text("old png")
    (tmp_path / "f.csv").write_text("old csv")
    for _attempt in range(3):
        proc = subprocess.Popen([sys.executable, "-m", "dptheory", "figure", "yeshokri22-fig1", "--out", "f.png",
                                 "--csv", "f.csv"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=_default_disposition(signum))
        rc, err = _signal_when(proc, lambda: bool(_parts(tmp_path)), signum, "a .part file")
        if rc != 0:
            break
        # the figure was written (and renamed into place) before the signal reached it (a loaded machine): the
        # clean-up was not exercised; put the old files back and try again
        (tmp_path / "f.png").write_text("old png")
        (tmp_path / "f.csv").write_text("old csv")
    assert rc == 128 + signum, err
    assert f"terminated by {signal.Signals(signum).name}; no output file was written" in err
    assert _parts(tmp_path) == []
    assert (tmp_path / "f.png").read_text() == "old png" and (tmp_path / "f.csv").read_text() == "old csv"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_during_report_leaves_no_temporary_folder(tmp_path, signum):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    (tmp_path / "p.toml").write_text(PARAMS)
    # with the claims checked the report runs for many seconds after creating its temporary folder
    proc = subprocess.Popen([sys.executable, "-m", "dptheory", "report", "--params", "p.toml", "--claims",
                             "--out", "rep", "--no-pdf", "--no-progress"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "TMPDIR": str(tmp)},
                            preexec_fn=_default_disposition(signum))
    rc, err = _signal_when(proc, lambda: any(p.name.startswith("dptheory-report-") for p in tmp.iterdir()), signum,
                           "the report's temporary folder")
    assert rc == 128 + signum, err
    assert list(tmp.iterdir()) == []
    assert not (tmp_path / "rep").exists()


def test_an_interrupt_behind_another_error_is_an_interrupt(monkeypatch, capsys):
    """A signal that lands in the import of an extension module comes back as ``ImportError("initialization
    failed")`` raised from it (pybind11 modules do this): still a termination, not an internal error."""
    from dptheory.cli import Terminated, commands

    def interrupted_import(args):
        try:
            raise Terminated(signal.SIGTERM)
        except KeyboardInterrupt as exc:
            raise ImportError("initialization failed") from exc

    monkeypatch.setattr(commands, "cmd_list", interrupted_import)
    assert main(["list"]) == 128 + signal.SIGTERM
    assert capsys.readouterr().err == "dptheory: terminated by SIGTERM; no output file was written\n"


def _drop_a_sigterm() -> None:
    """SIGTERM's handler runs inside a weakref callback, where Python prints "Exception ignored" and goes on."""
    import weakref

    from dptheory.cli import _terminate

    class Target:
        pass

    dropped: list[BaseException | None] = []
    hook, sys.unraisablehook = sys.unraisablehook, lambda u: dropped.append(u.exc_value)
    try:
        target = Target()
        ref = weakref.ref(target, lambda _r: _terminate(signal.SIGTERM, None))
        del target
    finally:
        sys.unraisablehook = hook
    assert ref() is None and len(dropped) == 1 and type(dropped[0]).__name__ == "Terminated"  # Python went on


def test_an_interrupt_python_drops_still_stops_every_output(tmp_path):
    """A signal whose interrupt Python swallows (seen once: in importlib's module-lock callback, the command then ran
    to its end and wrote its report) leaves no file in place and ends the command as terminated."""
    from dptheory.cli import Terminated, _terminate_like_interrupt
    from dptheory.cli.new import scaffold
    from dptheory.core.io import INTERRUPTS, AtomicGroup, atomic_write

    for write in ("atomic_write", "group", "scaffold"):
        with pytest.raises(Terminated), _terminate_like_interrupt():
            _drop_a_sigterm()
            if write == "atomic_write":
                with atomic_write(tmp_path / "one.txt") as fh:
                    fh.write("x")
            elif write == "group":
                with AtomicGroup() as group, group.open(tmp_path / "two.txt") as fh:
                    fh.write("x")
            else:  # `dptheory new`: a folder built aside and renamed into place
                scaffold("my26", tmp_path / "my26")
        assert list(tmp_path.iterdir()) == [] and INTERRUPTS == []
    with pytest.raises(Terminated), _terminate_like_interrupt():  # a command that writes nothing ends terminated too
        _drop_a_sigterm()
    assert signal.getsignal(signal.SIGTERM) is not signal.SIG_IGN  # the handlers were restored


def test_signal_handlers_are_restored_after_a_command(capsys):
    before = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}
    assert main(["list"]) == 0
    assert {s: signal.getsignal(s) for s in before} == before


# ----------------------------------------------------------------------------- reports, matplotlib
@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
def test_report_folder_with_non_latin_characters(tmp_path):
    (tmp_path / "p.toml").write_text(PARAMS)
    assert main(["report", "--params", "p.toml", "--out", "报告", "--no-progress"]) == 0
    assert (tmp_path / "报告" / "report.pdf").stat().st_size > 0
    tex = (tmp_path / "报告" / "report.tex").read_text(encoding="utf-8")
    assert "-{}-out '报告'" in tex  # the .tex keeps the name as written (in the regeneration command)
    assert r"\dptfallback{报}{62A5}" in tex


def test_unicode_fallbacks_leave_ascii_alone():
    from dptheory.report.build import unicode_fallbacks

    doc = "\\documentclass{article}\n\\begin{document}\nx\n\\end{document}\n"
    assert unicode_fallbacks(doc) == doc
    out = unicode_fallbacks(doc.replace("x", "é 报"))
    head = out.split("\\begin{document}")[0]
    assert "\\dptfallback{é}{00E9}" in head and "\\dptfallback{报}{62A5}" in head


def test_an_unknown_mplbackend_does_not_break_a_figure(tmp_path):
    r = _run(["figure", "yeshokri22-fig1", "--out", "f.png"], MPLBACKEND="nosuchbackend")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "f.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code = ("from dptheory.report.plotting import new_figure, save\n"
            "fig, (ax,) = new_figure(); ax.plot([1, 2]); save(fig, 'g.png')\n"
            "import os; assert os.environ['MPLBACKEND'] == 'nosuchbackend'\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "MPLBACKEND": "nosuchbackend"})
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_environment_is_left_as_it_was(monkeypatch, capsys):
    monkeypatch.setenv("MPLBACKEND", "nosuchbackend")
    assert main(["list"]) == 0
    assert os.environ["MPLBACKEND"] == "nosuchbackend"


def test_a_temporary_folder_is_removed_whenever_the_interrupt_arrives(tmp_path, monkeypatch):
    """core.io.temporary_folder records the folder for removal before its ``mkdir``: a signal that arrives just
    after the ``mkdir`` (here: sent by it; its handler runs before the next statement) still removes the folder.
    (Recording it after the ``mkdir``, as tempfile.TemporaryDirectory does, leaves it behind.) Holding the signal
    back with a thread's signal mask is not enough: a process-directed signal goes to another thread (pytest-xdist
    has some), whose handler flag interrupts the main thread all the same."""
    import os

    from dptheory.core import io

    class Stop(Exception):
        pass

    def handler(signum, frame):
        raise Stop

    real_mkdir = os.mkdir

    def mkdir_then_signal(path, mode=0o777):
        real_mkdir(path, mode)
        os.kill(os.getpid(), signal.SIGHUP)

    old = signal.signal(signal.SIGHUP, handler)
    try:
        monkeypatch.setattr(io.os, "mkdir", mkdir_then_signal)
        with pytest.raises(Stop):
            with io.temporary_folder("t-", tmp_path):
                pass
    finally:
        signal.signal(signal.SIGHUP, old)
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    with io.temporary_folder("t-", tmp_path) as made:
        (made / "f").write_text("x")
        assert made.parent == tmp_path and made.name.startswith("t-") and oct(made.stat().st_mode)[-3:] == "700"
    assert list(tmp_path.iterdir()) == []
