"""``python -m hookconf.harness`` is the ``hookconf`` command."""

import sys

from hookconf.harness.cli import main

sys.exit(main())
