"""``python -m meeplab.cli ARGS``: the same as the ``meeplab`` console command."""

import sys

from meeplab.cli import main

if __name__ == "__main__":
    sys.exit(main())
