"""One package per paper: its statements, claims, kernels, figures, experiments and CLI subcommands.

Each package is found by :func:`dptheory.catalog.paper_packages` (no list to maintain) and
registers its objects from the modules ``theorems``, ``claims`` and ``figures``. A package's
``__init__`` stays light (no sympy, no numerics) so that the command line can list and describe
papers without loading them; ``cli.py`` (optional) contributes subcommands through
``add_subcommands(subparsers)``; ``report.toml`` (optional) holds the paper's report defaults.
Papers import the generic layers (``core``, ``privacy``, ``numerics``, ``train``, ``audit``,
``report``); no layer imports a paper. How to add one: ``docs/adding_a_paper.md``.

Papers outside the tree (a folder named by ``DPTHEORY_PATH``, an entry point ``dptheory.papers``) follow the same
layout; from a ``DPTHEORY_PATH`` folder only its paper packages (an ``__init__.py`` and at least one of
``theorems``, ``claims``, ``figures``) are imported, never in place of an installed module, and one that fails to
import is a warning naming its file and line (:mod:`dptheory.catalog`, "What DPTHEORY_PATH loads").
"""
