"""The ``meeplab`` console command."""

import sys

from meeplab.sim.cli import main

if __name__ == "__main__":
    sys.exit(main())
