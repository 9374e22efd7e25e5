"""The ``meeplab`` console command (importing :mod:`meeplab` first makes the engines importable)."""
import sys

import meeplab  # noqa: F401  (puts the lab's packages on sys.path)
from sim.cli import main

if __name__ == "__main__":
    sys.exit(main())
