"""The one output layer of the command line: JSON for programs, aligned text for people, progress on stderr."""

from __future__ import annotations

import json
import sys
from typing import Any


def print_json(obj: Any) -> None:
    print(json.dumps(obj, indent=1))


def progress_bar(total: int, desc: str, enabled: bool) -> Any:
    """A tqdm bar on stderr, or None when progress is off (not a terminal, or --no-progress)."""
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, file=sys.stderr, leave=False)


def fmt(x: Any) -> str:
    if isinstance(x, float):
        return f"{x:.8g}"
    return str(x)
