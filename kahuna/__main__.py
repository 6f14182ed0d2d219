"""``python -m kahuna`` is the ``kahuna`` command."""

import sys

from kahuna.cli import main

sys.exit(main())
