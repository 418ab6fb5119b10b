"""`dptheory explore` in a real browser: the served page, driven by headless Chromium (Playwright).

The server runs in a subprocess (``dptheory.explore.serve`` on a free port, as the CLI runs it); the
browser is the system Chromium (``/usr/bin/chromium``; never a downloaded build). Expected numbers are
computed here through the Python API, as ``dptheory eval KEY ... --dps 12`` computes them.

Locally the test is skipped with the reason when Chromium, Playwright or Panel is missing; with ``CI``
set it fails instead (``.ci/run`` installs Chromium).
"""

from __future__ import annotations

import os
import selectors
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import mpmath
import pytest

import dptheory

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
FIG2 = {"alpha": 10, "eta": "0.02", "lam": 1, "beta": 4, "S_g": 4, "sigma": 2, "n": 50, "b": 2, "K": 50}
KEYS = ("yeshokri22.thm4_2", "yeshokri22.thm4_3", "yeshokri22.composition")


def _missing() -> str | None:
    if not Path(CHROMIUM).exists():
        return f"{CHROMIUM} is not installed (Debian: apt-get install -y chromium)"
    for mod in ("playwright", "panel", "bokeh"):
        try:
            __import__(mod)
        except ImportError:
            return f"{mod} is not installed (pip install 'dptheory[explore]' playwright)"
    return None


def _require() -> None:
    why = _missing()
    if why is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"CI must run the browser test: {why}")
    pytest.skip(why)


def expected(key: str, **changes: object) -> str:
    """What `dptheory eval KEY ... --dps 12 [--no-check]` prints for the value, via the Python API."""
    thm = dptheory.get(key)
    params = {k: v for k, v in {**FIG2, **changes}.items() if k in thm.params}
    return mpmath.nstr(thm.evaluate(params, dps=12, check=False).value, 12, strip_zeros=False)


def _start_server() -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    code = "from dptheory.explore import serve; serve([], port=0, show=False)"
    return subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def _wait_for_url(proc: subprocess.Popen[str], timeout: float = 90) -> str:
    """The URL the server prints (`dptheory explore: serving http://127.0.0.1:PORT/`)."""
    assert proc.stdout is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    seen: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if sel.select(timeout=0.5):
            line = proc.stdout.readline()
            seen.append(line)
            if "serving http://" in line:
                return line.split("serving ", 1)[1].split()[0]
    raise AssertionError("the explorer server did not start:\n" + "".join(seen))


@pytest.fixture(scope="module")
def page():
    _require()
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=20_000)  # a loaded 2-core machine: waits end as soon as the text is there
    proc = _start_server()  # the server imports while the browser starts
    profile = tempfile.mkdtemp(prefix="dptheory-chromium-")
    try:
        with sync_playwright() as pw:
            ctx = pw.chromium.launch_persistent_context(profile, executable_path=CHROMIUM, headless=True,
                                                        args=ARGS, viewport={"width": 1400, "height": 1000})
            try:
                pg = ctx.new_page()
                pg.set_default_timeout(20_000)
                pg.goto(_wait_for_url(proc))
                yield pg
            finally:
                ctx.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _screenshot(pg, path: str) -> None:
    """The page as loaded, as a small palette PNG (256 colours)."""
    from PIL import Image

    pg.wait_for_timeout(1500)  # let the canvas paint
    raw = Path(path).with_suffix(".raw.png")
    pg.screenshot(path=str(raw), full_page=True)
    Image.open(raw).convert("RGB").quantize(colors=256).save(path, optimize=True)
    raw.unlink()


def value_of(pg, key: str):
    return pg.locator(f'.dpt-value[data-key="{key}"]')


def card_of(pg, key: str):
    return pg.locator(f'.dpt-card[data-key="{key}"]')


@pytest.mark.heavy
def test_explorer_in_chromium(page):
    """One browser session, in order (the steps build on each other; one test so that pytest-xdist
    cannot split them across workers): load, move K, move alpha, violate a condition, bad input."""
    from playwright.sync_api import expect

    # the page loads with the Figure 2 values, each exactly what `dptheory eval ... --dps 12` prints
    for key in KEYS:
        expect(value_of(page, key)).to_have_text(expected(key))
        expect(card_of(page, key)).to_contain_text("all conditions hold")
    # the crossover and the (eps, delta) panel arrive after the readouts
    expect(page.locator(".dpt-crossover").first).to_contain_text("for K ≥ 8")
    expect(page.locator('.dpt-eps[data-key="yeshokri22.thm4_2"]')).not_to_be_empty()
    if os.environ.get("DPTHEORY_EXPLORER_SCREENSHOT"):  # docs/img/explorer.png is made this way
        _screenshot(page, os.environ["DPTHEORY_EXPLORER_SCREENSHOT"])

    # moving the K slider (keyboard: one step of an integer slider is K + 1)
    handle = page.locator(".dpt-slider-K .noUi-handle")
    handle.focus()
    handle.press("ArrowRight")
    expect(page.locator(".dpt-field-K input")).to_have_value("51")
    for key in KEYS:
        expect(value_of(page, key)).to_have_text(expected(key, K=51))

    # moving the alpha slider (log scale: the next two-digit value after 10 is 11)
    handle = page.locator(".dpt-slider-alpha .noUi-handle")
    handle.focus()
    handle.press("ArrowRight")
    expect(page.locator(".dpt-field-alpha input")).to_have_value("11")
    for key in KEYS:
        expect(value_of(page, key)).to_have_text(expected(key, K=51, alpha=11))

    # a violated condition is shown, with its text and both sides; the value is marked as no guarantee
    field = page.locator(".dpt-field-eta input")
    field.fill("0.5")
    field.press("Enter")
    card = card_of(page, "yeshokri22.thm4_2")
    expect(card).to_contain_text("CONDITION VIOLATED")
    expect(card).to_contain_text("eta < 2/(beta + lam)")
    expect(card).to_contain_text("lhs = 0.5, rhs = 0.4")
    expect(card).to_contain_text("not a guarantee")
    expect(value_of(page, "yeshokri22.thm4_2")).to_have_text(expected("yeshokri22.thm4_2", K=51, alpha=11, eta="0.5"))
    expect(card_of(page, "yeshokri22.composition")).to_contain_text("all conditions hold")  # no step-size condition
    expect(page.locator('.dpt-strip-wrap[data-name="eta"]')).to_contain_text("eta < 2/(beta + lam) fails")

    # bad input in a field: a one-line error, nothing changes
    field = page.locator(".dpt-field-K input")
    field.fill("2.5")
    field.press("Enter")
    expect(page.locator(".dpt-error").first).to_contain_text("K = '2.5' is invalid: must be a whole number")
    expect(value_of(page, "yeshokri22.thm4_2")).to_have_text(expected("yeshokri22.thm4_2", K=51, alpha=11, eta="0.5"))
