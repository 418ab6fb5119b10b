"""The Ye & Shokri (epsilon, delta) figure's CSV shows the PLD bracket at the digits every machine computes alike.

dp-accounting's float64 FFT convolution moves the 11th-12th significant digit of a PLD bracket end between
machines, so the claims cap PLD values at ``claims_epsdelta.PLD_DIGITS`` digits; the figure's CSV
(``reports/yeshokri22/yeshokri22-fig-epsdelta.csv``) prints its ``pld_*`` columns at the same cap and every other
column at the CSV's usual 12 digits.
"""

from __future__ import annotations

import csv
from pathlib import Path
from types import SimpleNamespace

import pytest

from dptheory.papers.yeshokri22 import epsdelta, figures
from dptheory.papers.yeshokri22.claims_epsdelta import PLD_DIGITS

ROOT = Path(__file__).resolve().parents[1]
COMMITTED = ROOT / "reports" / "yeshokri22" / "yeshokri22-fig-epsdelta.csv"
PLD_COLUMNS = ("pld_lower_thm4_2", "pld_upper_thm4_2", "pld_lower_thm4_3", "pld_upper_thm4_3")


def significant_digits(cell: str) -> int:
    """Significant digits of a number as ``%g`` prints it (``0.0593915504428`` has 12, ``1.5e-05`` has 2)."""
    mantissa = cell.lstrip("+-").lower().split("e")[0].replace(".", "")
    return len(mantissa.lstrip("0").rstrip("0")) if mantissa.strip("0") else 1


def test_significant_digits():
    assert [significant_digits(c) for c in ("0.0593915504428", "1.5e-05", "12", "0.5", "-3.25", "0")] == [
        12, 2, 2, 1, 3, 1,
    ]


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def _fake_curve(key: str, shift: float) -> SimpleNamespace:
    """A curve of K_RANGE points whose every value has more than 12 significant digits."""
    def point(k: int) -> SimpleNamespace:
        x = (k + shift) / 7
        return SimpleNamespace(hidden=x, rdp=2 * x, wor=3 * x,
                               pld=SimpleNamespace(epsilon_lower=x / 3, epsilon_upper=x / 3 + 1 / 9973))

    return SimpleNamespace(key=key, points=[point(k) for k in figures.K_RANGE])


def test_figure_csv_caps_the_pld_columns_at_pld_digits(tmp_path, monkeypatch):
    """figure_epsdelta's own CSV writing (on stand-in curves, so it takes a second): the PLD columns at
    PLD_DIGITS, the others at CSV_DIGITS."""
    monkeypatch.setattr(epsdelta, "epsilon_delta_curve",
                        lambda key, base, ks, delta, wor=False: _fake_curve(key, 0.5 if wor else 0.25))
    monkeypatch.setattr(epsdelta, "crossovers", lambda curve: {})
    figures.figure_epsdelta(str(tmp_path / "f.png"), csv_path=str(tmp_path / "f.csv"))
    rows = _rows(tmp_path / "f.csv")
    assert len(rows) == len(figures.K_RANGE)
    shown = {c: max(significant_digits(r[c]) for r in rows) for c in rows[0] if c != "K"}
    assert {c: shown[c] for c in PLD_COLUMNS} == dict.fromkeys(PLD_COLUMNS, PLD_DIGITS)
    assert {c: d for c, d in shown.items() if c not in PLD_COLUMNS} == {
        c: figures.CSV_DIGITS for c in ("thm4_2", "thm4_3", "rdp_composition", "wor_composition")
    }
    for r in rows:  # the printed value is the float rounded to nearest at PLD_DIGITS digits
        k = int(r["K"])
        lower = _fake_curve("", 0.25).points[k - 1].pld.epsilon_lower
        assert r["pld_lower_thm4_2"] == f"{lower:.{PLD_DIGITS}g}"


@pytest.mark.skipif(not COMMITTED.exists(), reason="no committed Ye & Shokri report")
def test_committed_figure_csv_pld_columns_have_at_most_pld_digits():
    rows = _rows(COMMITTED)
    assert rows and set(PLD_COLUMNS) <= set(rows[0])
    too_many = [(r["K"], c, r[c]) for r in rows for c in PLD_COLUMNS if significant_digits(r[c]) > PLD_DIGITS]
    assert not too_many, f"PLD cells beyond {PLD_DIGITS} significant digits: {too_many[:5]}"
    # the other columns keep the CSV's 12 digits (some value in each column needs all of them)
    for c in ("thm4_2", "thm4_3", "rdp_composition", "wor_composition"):
        assert max(significant_digits(r[c]) for r in rows) == figures.CSV_DIGITS, c
    assert all(float(r[f"pld_lower_{t}"]) <= float(r[f"pld_upper_{t}"]) for r in rows for t in ("thm4_2", "thm4_3"))
