"""``python -m harness`` is the ``hookconf`` command."""

import sys

from harness.cli import main

sys.exit(main())
