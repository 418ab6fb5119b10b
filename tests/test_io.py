"""Files are written whole or not at all (:mod:`dptheory.core.io`)."""

from __future__ import annotations

import pytest

from dptheory.core.errors import DPTheoryError
from dptheory.core.io import AtomicGroup, atomic_write


def test_atomic_write_replaces_only_on_success(tmp_path):
    f = tmp_path / "a.csv"
    f.write_text("old")
    with pytest.raises(RuntimeError), atomic_write(f) as fh:
        fh.write("new, half")
        raise RuntimeError("boom")
    assert f.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["a.csv"]
    with atomic_write(f) as fh:
        fh.write("new")
    assert f.read_text() == "new" and sorted(p.name for p in tmp_path.iterdir()) == ["a.csv"]


def test_group_is_all_or_nothing(tmp_path):
    with pytest.raises(RuntimeError), AtomicGroup() as g:
        with g.open(tmp_path / "x.csv") as fh:
            fh.write("x")
        g.path(tmp_path / "y.png").write_bytes(b"png")
        raise RuntimeError("the plot failed")
    assert list(tmp_path.iterdir()) == []
    with AtomicGroup() as g:
        with g.open(tmp_path / "x.csv") as fh:
            fh.write("x")
        p = g.path(tmp_path / "y.png")
        assert p.suffix == ".png" and p.parent == tmp_path  # writers that infer the format still work
        p.write_bytes(b"png")
    assert sorted(q.name for q in tmp_path.iterdir()) == ["x.csv", "y.png"]


def test_folders_and_missing_parents_are_clear_errors(tmp_path):
    with pytest.raises(DPTheoryError, match="is a folder"), atomic_write(tmp_path):
        pass
    with pytest.raises(DPTheoryError, match="does not exist"), atomic_write(tmp_path / "no" / "f.txt"):
        pass
