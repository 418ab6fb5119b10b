"""``python -m dptheory``: the same as the ``dptheory`` command."""

from dptheory.cli import main

raise SystemExit(main())
