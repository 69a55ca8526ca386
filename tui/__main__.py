"""``python -m tui`` runs the same command line as the ``turnscope`` script."""

from tui.cli import main

raise SystemExit(main())
