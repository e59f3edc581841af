"""``python -m rmsc``: the command line (see :mod:`rmsc.cli`)."""

import sys

from .cli import main

sys.exit(main())
