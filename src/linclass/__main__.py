"""``python -m linclass`` runs the ``linclass`` command."""

from linclass.cli import main

raise SystemExit(main())
