"""The ``meeplab`` console command."""

import sys

from meeplab.cli.common import cli, main

__all__ = ["cli", "main"]

if __name__ == "__main__":
    sys.exit(main())
