"""``python -m meeplab.cli ARGS``: the same as the ``meeplab`` console command."""

import sys

from meeplab.cli import main

sys.exit(main())
