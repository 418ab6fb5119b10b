"""Hypothesis profiles for the test suites, derived from hypothesis' built-ins.

Select with ``HYPOTHESIS_PROFILE=dptheory-dev|dptheory-ci|dptheory-thorough``. By default the
built-in ``ci`` profile is extended when ``CI`` is set (derandomised, no database), never replaced by
an unconditional ``load_profile`` that would drop the built-in CI settings (hypothesis >= 6.116 loads
its ``ci`` profile automatically when ``CI`` is set; an unconditional ``load_profile`` would silently
turn off derandomised CI runs).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_COMMON = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
}
_CLAIM_EXAMPLES = {"dptheory-dev": 120, "dptheory-ci": 150, "dptheory-thorough": 2000}


def load() -> str:
    """Register the profiles and load the selected one; returns its name."""
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
