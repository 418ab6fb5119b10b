"""Optional dependencies: which extra of ``pyproject.toml`` provides which module, and the one error a user
sees when it is missing.

The package's own dependencies are always installed; the extras (``explore``, ``dask``, ``datasets``,
``notebook``) are not. A feature that needs one imports it through :func:`require`, and the command line
turns any other ``ModuleNotFoundError`` of an extra's module into the same sentence
(:func:`missing_message`), so a missing extra is one line naming what to install, never an internal error.
``tests/test_extras.py`` checks this table against ``pyproject.toml``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from dptheory.core.errors import MissingOptionalDependency

#: top-level module -> (extra that installs it, distribution name)
EXTRA_OF: dict[str, tuple[str, str]] = {
    "panel": ("explore", "panel"),
    "bokeh": ("explore", "bokeh"),
    "dask": ("dask", "dask"),
    "distributed": ("dask", "distributed"),
    "sklearn": ("datasets", "scikit-learn"),
    "threadpoolctl": ("datasets", "threadpoolctl"),
    "IPython": ("notebook", "ipython"),
    "ipywidgets": ("notebook", "ipywidgets"),
}

#: runtime dependencies that are imported lazily (a broken install is named, not an internal error)
CORE_LAZY: dict[str, str] = {
    "flint": "python-flint",
    "dp_accounting": "dp-accounting",
    "matplotlib": "matplotlib",
    "scipy": "scipy",
    "sympy": "sympy",
}


def install_hint(module: str) -> str | None:
    """The install command for a missing top-level ``module``, or None when it is not ours to name."""
    top = module.split(".")[0]
    if top in EXTRA_OF:
        extra, dist = EXTRA_OF[top]
        return f"pip install 'dptheory[{extra}]' (or `pip install {dist}`)"
    if top in CORE_LAZY:
        return f"pip install '{CORE_LAZY[top]}' (a dependency of dptheory: reinstall dptheory to get it)"
    return None


def missing_message(exc: ImportError, feature: str = "this command") -> str | None:
    """One sentence for a ``ModuleNotFoundError`` of a module an extra (or dptheory itself) provides."""
    name = getattr(exc, "name", None)
    if not name:
        return None
    hint = install_hint(name)
    if hint is None:
        return None
    return f"{feature} needs the module {name.split('.')[0]!r}, which is not installed: {hint}"


def require(module: str, *, feature: str) -> ModuleType:
    """Import ``module``, or raise :class:`MissingOptionalDependency` naming the extra to install."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        message = missing_message(exc, feature)
        if message is None:
            raise
        raise MissingOptionalDependency(message) from None
