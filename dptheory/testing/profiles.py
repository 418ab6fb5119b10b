"""Hypothesis profiles for the test suites, derived from hypothesis' built-ins, and where hypothesis keeps files.

Select with ``HYPOTHESIS_PROFILE=dptheory-dev|dptheory-ci|dptheory-thorough``. By default the
built-in ``ci`` profile is extended when ``CI`` is set (derandomised, no database), never replaced by
an unconditional ``load_profile`` that would drop the built-in CI settings (hypothesis >= 6.116 loads
its ``ci`` profile automatically when ``CI`` is set; an unconditional ``load_profile`` would silently
turn off derandomised CI runs).

Storage. Hypothesis writes a ``.hypothesis/`` folder into the *current working directory*: its
example database (when the settings do not say ``database=None``) and, since hypothesis 6.13x, a
cache of the constants it collects from the source of local modules (``.hypothesis/constants``,
written even with ``database=None``). :func:`use_private_storage` points all of it at a cache folder
instead (``$HYPOTHESIS_STORAGE_DIRECTORY`` if set, else ``$XDG_CACHE_HOME/dptheory/hypothesis`` or
``~/.cache/dptheory/hypothesis``, else a folder in the system temporary directory), so neither
``dptheory check`` nor the test suite leaves files in the user's working directory or the repository.
It is called by :func:`load` (the test suite) and when :mod:`dptheory.testing.strategies` is imported
(the claim checker's property searches).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, settings

_COMMON = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
}
_CLAIM_EXAMPLES = {"dptheory-dev": 120, "dptheory-ci": 150, "dptheory-thorough": 2000}
STORAGE_ENV = "HYPOTHESIS_STORAGE_DIRECTORY"  # hypothesis' own variable; honoured when set


def storage_dir() -> Path:
    """The folder hypothesis should use for dptheory (see the module docstring); created if missing."""
    candidates: list[Path] = []
    env = os.environ.get(STORAGE_ENV)
    if env:
        candidates.append(Path(env))
    else:
        cache = os.environ.get("XDG_CACHE_HOME")
        try:
            base = Path(cache) if cache else Path.home() / ".cache"
            candidates.append(base / "dptheory" / "hypothesis")
        except RuntimeError:  # no home directory
            pass
    uid = os.getuid() if hasattr(os, "getuid") else 0
    candidates.append(Path(tempfile.gettempdir()) / f"dptheory-hypothesis-{uid}")
    for d in candidates:
        try:
            d.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(d, os.W_OK):
            return d
    return Path(tempfile.mkdtemp(prefix="dptheory-hypothesis-"))


def use_private_storage() -> Path:
    """Send hypothesis' files (example database, constants cache) to :func:`storage_dir`; returns it.

    Idempotent. Only the location changes: whether an example database is used is still up to the
    settings (the claim checker says ``database=None``; the ``dptheory-dev`` profile keeps one).
    """
    from hypothesis import configuration

    d = storage_dir()
    configuration.set_hypothesis_home_dir(d)
    return d


def load() -> str:
    """Register the profiles and load the selected one; returns its name."""
    use_private_storage()  # before any profile resolves its default database location
    settings.register_profile("dptheory-dev", settings.get_profile("default"), max_examples=40, **_COMMON)
    settings.register_profile("dptheory-ci", settings.get_profile("ci"), max_examples=40, **_COMMON)
    settings.register_profile("dptheory-thorough", settings.get_profile("default"), max_examples=1000, **_COMMON)
    name = os.environ.get("HYPOTHESIS_PROFILE") or ("dptheory-ci" if os.environ.get("CI") else "dptheory-dev")
    settings.load_profile(name)
    return name


def claim_examples() -> int:
    """Examples per property-based claim search under the loaded profile."""
    name = os.environ.get("HYPOTHESIS_PROFILE") or ("dptheory-ci" if os.environ.get("CI") else "dptheory-dev")
    return _CLAIM_EXAMPLES.get(name, 120)
