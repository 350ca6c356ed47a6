"""``python -m linclass`` runs the ``linclass`` command."""

from .cli import main

raise SystemExit(main())
