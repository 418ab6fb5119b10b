"""Hostile parameter values through the Python API and the command line (issue 18, item 5).

* one validation path: :func:`dptheory.core.notation.parse_value` (the API) and
  :func:`dptheory.cli.params.exact_number` (the CLI) apply the same size limits (:mod:`dptheory.core.validate`),
  so ``K='1e999999999'`` or ``sigma='1e-999999999'`` is refused at once by both, never a stall on a
  billion-digit rational (it ran past 120 s through the API);
* ``decimal.Decimal`` is accepted exactly (the same value as the decimal string and the Fraction), also in
  certified evaluation; NaN and infinite Decimals are refused like NaN floats;
* a kernel's range (the subsampled Gaussian series serves orders up to 1e8) is said in the user's terms: the
  parameter, the value as written and the accepted range, never an ``mpf('...')`` repr from inside a kernel;
* the CLI and the API refuse the same inputs with the same reason;
* the exception classes are importable from :mod:`dptheory.errors`, and the README lists exactly those.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest

import dptheory
from dptheory.cli import main
from dptheory.core.errors import ConditionViolated, DPTheoryError, InvalidParameter

ROOT = Path(__file__).resolve().parent.parent
THM42 = {"alpha": 10, "eta": "0.02", "lam": 1, "beta": 4, "S_g": 4, "sigma": 2, "n": 50, "b": 2, "K": 50}
SGM = {"alpha": 10, "q": "0.01", "z": 1, "T": 1}


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    _, err = capsys.readouterr()
    return code, err


def _items(point: dict[str, object]) -> list[str]:
    return [f"{k}={v}" for k, v in point.items()]


# ----------------------------------------------------------------------------- no stall on huge numbers
_HUGE_CASES = {
    "K string": "t.evaluate({**P, 'K': '1e999999999'})",
    "sigma string": "t.evaluate({**P, 'sigma': '1e-999999999'})",
    "K Decimal": "t.evaluate({**P, 'K': Decimal('1e999999999')})",
    "sigma Decimal": "t.evaluate({**P, 'sigma': Decimal('1e-999999999')})",
    "sigma mpf": "t.evaluate({**P, 'sigma': mpmath.mpf('1e-999999999')})",
    "K huge int": "t.evaluate({**P, 'K': 10**(10**6)})",
    "sigma huge Fraction": "t.evaluate({**P, 'sigma': Fraction(1, 10**(10**6))})",
    "K value()": "t.value({**P, 'K': '1e999999999'})",
    "K check()": "t.check({**P, 'K': '1e999999999'})",
    "K certify": "t.evaluate({**P, 'K': '1e999999999'}, certify=True)",
}


@pytest.fixture(scope="module")
def huge_runs() -> dict[str, tuple[str, str]]:
    """Every case of ``_HUGE_CASES`` in one fresh interpreter (on the old code the API built a 10^(10^9) rational and
    ran past 120 s): case -> (first line: REFUSED and the seconds it took, or ACCEPTED; the error's message). Each
    case announces itself before it runs, so a case that stalls is named by the timeout."""
    lines = [
        "import time, mpmath, dptheory", "from decimal import Decimal", "from fractions import Fraction",
        "from dptheory.core.errors import InvalidParameter",
        f"P = {THM42!r}", "t = dptheory.get('yeshokri22.thm4_2')",
    ]
    for case, call in _HUGE_CASES.items():
        lines += [
            f"print('CASE', {case!r}, flush=True)", "t0 = time.monotonic()",
            f"try:\n    {call}\nexcept InvalidParameter as exc:\n"
            "    print('REFUSED', round(time.monotonic() - t0, 2)); print(str(exc).replace(chr(10), ' | '))\n"
            "else:\n    print('ACCEPTED'); print('')",
        ]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    try:
        proc = subprocess.run([sys.executable, "-c", "\n".join(lines)], capture_output=True, text=True,
                              timeout=30 + 5 * len(_HUGE_CASES), env=env, cwd=ROOT)
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        started = [ln for ln in out.splitlines() if ln.startswith("CASE ")]
        pytest.fail(f"still running after {exc.timeout} s at {started[-1] if started else 'start-up'}")
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout.splitlines()
    runs = {}
    for i, line in enumerate(out):
        if line.startswith("CASE "):
            runs[line[5:].strip("'")] = (out[i + 1], out[i + 2])
    return runs


@pytest.mark.parametrize("case", list(_HUGE_CASES))
def test_huge_values_are_refused_at_once(case: str, huge_runs: dict[str, tuple[str, str]]) -> None:
    """Each call is an InvalidParameter naming the parameter and the accepted range, within seconds (the cases run
    in one subprocess, :func:`huge_runs`)."""
    first, message = huge_runs[case]
    assert first.startswith("REFUSED"), (case, first)
    assert float(first.split()[1]) < 2.0, first
    name = case.split()[0]
    assert f"parameter {name} = " in message
    assert "1e-1000 and 1e1000" in message  # the accepted range
    assert " | " not in message and len(message) < 400  # one line


@pytest.mark.parametrize("name, value", [("K", "1e999999999"), ("sigma", "1e-999999999"), ("K", "1" + "0" * 5000)])
def test_huge_values_same_refusal_on_the_command_line(capsys: pytest.CaptureFixture[str], name: str,
                                                      value: str) -> None:
    """The CLI refuses what the API refuses, with the same reason (one size check for both)."""
    with pytest.raises(InvalidParameter) as api:
        dptheory.get("yeshokri22.thm4_2").evaluate({**THM42, name: value})
    code, err = _cli(capsys, "eval", "yeshokri22.thm4_2", *_items({**THM42, name: value}))
    assert code == 1 and len(err.splitlines()) == 1
    assert api.value.reason in err


def test_limits_are_one_definition() -> None:
    """The CLI's limits are the core's (not a second copy that can drift)."""
    from dptheory.cli import params
    from dptheory.core import validate

    assert params.MAX_DIGITS is validate.MAX_DIGITS and params.MAX_EXPONENT is validate.MAX_EXPONENT
    assert validate.SIZE_RANGE.endswith(f"between 1e-{validate.MAX_EXPONENT} and 1e{validate.MAX_EXPONENT}")
    for text in ("1e1000", "1e-1001", "1e999999999", "0e999999999", "1" * 4001, "1/" + "1" * 4001):
        with pytest.raises(ValueError):
            params.exact_number(text)
        with pytest.raises(InvalidParameter):
            dptheory.core.parse_value(text, key="t", name="x")
    for text in ("9.99e999", "1e-1000", "0", "0e5", "1/3"):
        assert Fraction(str(dptheory.core.parse_value(text, key="t", name="x"))) == params.exact_number(text)


# ----------------------------------------------------------------------------- Decimal
@pytest.mark.parametrize("digits", ["0.02", "0.1", "1.25e-2", "0.333333333333333333333333333333"])
def test_decimal_is_exact(digits: str) -> None:
    """Decimal('0.02') is 1/50 exactly: the same rational, and the same value, as the string and the Fraction
    (the old code refused it: "unsupported type Decimal")."""
    q = dptheory.core.parse_value(Decimal(digits), key="t", name="eta")
    assert q == dptheory.core.parse_value(digits, key="t", name="eta") == Fraction(digits)
    t = dptheory.get("yeshokri22.thm4_2")
    a = t.evaluate({**THM42, "eta": Decimal(digits), "sigma": Decimal("2.0")})
    b = t.evaluate({**THM42, "eta": digits, "sigma": "2"})
    c = t.evaluate({**THM42, "eta": Fraction(digits), "sigma": Fraction(2)})
    assert a.value == b.value == c.value and a.params == b.params == c.params
    assert t.value({**THM42, "eta": Decimal(digits)}) == t.value({**THM42, "eta": digits})


def test_decimal_in_certified_evaluation() -> None:
    t = dptheory.get("rdp.subsampled_gaussian")
    a = t.evaluate(alpha=Decimal("2.5"), q=Decimal("0.01"), z=Decimal("1.5"), T=10, certify=True)
    b = t.evaluate(alpha="2.5", q="0.01", z="1.5", T=10, certify=True)
    assert a.certified and a.value == b.value
    assert (a.enclosure.lo_str, a.enclosure.hi_str) == (b.enclosure.lo_str, b.enclosure.hi_str)


@pytest.mark.parametrize("value, reason", [(Decimal("NaN"), "NaN"), (Decimal("sNaN"), "NaN"),
                                           (Decimal("Infinity"), "infinity"), (Decimal("-Infinity"), "infinity")])
def test_decimal_nan_inf_refused(value: Decimal, reason: str) -> None:
    with pytest.raises(InvalidParameter, match=reason) as exc:
        dptheory.get("yeshokri22.thm4_2").evaluate({**THM42, "sigma": value})
    assert exc.value.name == "sigma"


# ----------------------------------------------------------------------------- kernel ranges, user's terms
def test_kernel_range_in_the_users_terms_api() -> None:
    """alpha=1e100 for the subsampled Gaussian: the parameter, the value as written and the accepted range (the
    old message was ``rdp_mp: order alpha=mpf('9.99...e+99') exceeds 100000000``)."""
    t = dptheory.get("rdp.subsampled_gaussian")
    for written, shown in (("1e100", "'1e100'"), (1e100, "1e+100"), (Decimal("1e100"), "Decimal('1E+100')")):
        with pytest.raises(InvalidParameter) as exc:
            t.evaluate({**SGM, "alpha": written})
        msg = str(exc.value)
        assert msg.startswith("rdp.subsampled_gaussian (") and "mpf(" not in msg
        assert f"parameter alpha = {shown} is invalid" in msg
        assert "1 < alpha <= 1e8" in msg
        assert isinstance(exc.value, DPTheoryError) and exc.value.key == "rdp.subsampled_gaussian"


@pytest.mark.parametrize("key, point", [
    ("rdp.subsampled_gaussian", SGM),
    ("rdp.sampled_wor_gaussian", SGM),
    ("yeshokri22.composition", {"alpha": 10, "eta": "0.02", "S_g": 4, "sigma": 2, "n": 50, "b": 2, "K": 5}),
])
def test_kernel_range_in_the_users_terms_cli(capsys: pytest.CaptureFixture[str], key: str,
                                             point: dict[str, object]) -> None:
    code, err = _cli(capsys, "eval", key, *_items({**point, "alpha": "1e100"}))
    assert code == 1 and len(err.splitlines()) == 1, err
    assert "mpf(" not in err and f"{key} (" in err
    assert "parameter alpha = '1e100' is invalid" in err and re.search(r"1 < alpha <= 1e[78]", err), err


def test_kernel_messages_show_numbers_not_reprs() -> None:
    """Errors of the numerics modules print numbers as decimals, not ``mpf('...')`` / ``np.float64(...)``."""
    from dptheory.privacy import conversion, sgm
    from dptheory.privacy import wor as sampled_wor

    calls = [
        lambda: sgm.rdp_mp(mpmath.mpf(1e100), mpmath.mpf("0.01"), mpmath.mpf(1), mpmath.mpf(1)),
        lambda: sgm.rdp_mp(mpmath.mpf(2), mpmath.mpf(2), mpmath.mpf(1), mpmath.mpf(1)),
        lambda: sgm.rdp_mp(mpmath.mpf(2), mpmath.mpf("0.5"), mpmath.mpf(-1), mpmath.mpf(1)),
        lambda: sampled_wor.rdp_mp(mpmath.mpf(1e100), mpmath.mpf("0.01"), mpmath.mpf(1), mpmath.mpf(1)),
        lambda: conversion.eps_classic_mp(mpmath.mpf(-1), mpmath.mpf(2), mpmath.mpf("0.5")),
        lambda: conversion.eps_classic_mp(mpmath.mpf(1), mpmath.mpf(2), mpmath.mpf(2)),
        lambda: conversion.eps_classic_np([1.0], [0.5], [0.1]),
        lambda: sgm.rdp_np([1e100], [0.01], [1.0], [1.0]),
    ]
    for call in calls:
        with pytest.raises((ValueError, ArithmeticError)) as exc:
            call()
        msg = str(exc.value)
        assert "mpf(" not in msg and "np.float64(" not in msg and "np.int64(" not in msg, msg


# ----------------------------------------------------------------------------- the CLI and the API agree
_THEOREMS = {
    "yeshokri22.thm4_2": THM42,
    "rdp.subsampled_gaussian": SGM,
    "rdp.gaussian": {"alpha": 2, "z": 1, "T": 1},
}
_HOSTILE = ["1e999999999", "1e-999999999", "-0", "nan", "inf", "-inf", "1" + "0" * 5000, "1e1000", "1e-1001"]


@pytest.mark.parametrize("key", list(_THEOREMS))
@pytest.mark.parametrize("value", _HOSTILE, ids=lambda v: v if len(v) < 20 else f"{len(v)}-digit integer")
def test_cli_and_api_refuse_the_same(capsys: pytest.CaptureFixture[str], key: str, value: str) -> None:
    """Every parameter of a few theorems, set to a hostile value: the API raises one of the package's own
    errors and the CLI exits 1 with one line that gives the same reason."""
    thm = dptheory.get(key)
    point = _THEOREMS[key]
    for name in thm.params:
        bad = {**point, name: value}
        if value == "-0":  # -0 is the number 0: refused exactly where 0 is, else the same value as 0
            try:
                zero = thm.evaluate({**point, name: "0"})
            except (InvalidParameter, ConditionViolated):
                pass
            else:
                assert thm.evaluate(bad).value == zero.value
                code, err = _cli(capsys, "eval", key, *_items(bad))
                assert code == 0, err
                continue
        try:
            thm.evaluate(bad)
        except (InvalidParameter, ConditionViolated) as exc:
            api = exc
        else:
            pytest.fail(f"{key} {name}={value[:30]}: accepted by the API")
        code, err = _cli(capsys, "eval", key, *_items(bad))
        assert code == 1 and len(err.splitlines()) == 1 and err.startswith("dptheory: "), err
        if isinstance(api, InvalidParameter):
            assert api.reason in err, (api.reason, err)
        else:
            assert api.condition in err, (api.condition, err)
        if value.startswith("1" + "0" * 100):  # a huge integer as a Python int: the same refusal
            with pytest.raises(InvalidParameter) as exc_int:
                thm.evaluate({**point, name: 10 ** (len(value) - 1)})
            assert exc_int.value.reason == api.reason


# ----------------------------------------------------------------------------- the exception hierarchy
def _exception_classes() -> set[str]:
    """Public classes of the package that derive (by name, transitively) from DPTheoryError or DPTheoryWarning,
    found in the source (no module has to be imported)."""
    bases: dict[str, set[str]] = {}
    for path in (ROOT / "dptheory").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                names = {b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "") for b in node.bases}
                bases.setdefault(node.name, set()).update(names)
    found = {"DPTheoryError", "DPTheoryWarning"}
    while True:
        more = {c for c, bs in bases.items() if bs & found} - found
        if not more:
            return found
        found |= more


def test_every_exception_importable_from_dptheory_errors() -> None:
    import dptheory.errors as errors

    classes = _exception_classes()
    assert set(errors.__all__) == classes
    for name in classes:
        cls = getattr(errors, name)
        assert cls.__name__ == name
        assert issubclass(cls, (errors.DPTheoryError, errors.DPTheoryWarning))


def test_readme_lists_exactly_the_exception_classes() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- errors:begin -->(.*?)<!-- errors:end -->", text, re.S)
    assert m, "README.md has no <!-- errors:begin --> ... <!-- errors:end --> section"
    listed = re.findall(r"^\|\s*`([A-Za-z]+)`", m.group(1), re.M)
    assert len(listed) == len(set(listed)), "a class is listed twice"
    assert set(listed) == _exception_classes()
