"""`python -m core ask|replay …`: kept for the documented command line; it re-executes the
`contextlens` command (apps/cli.py) so that the library itself never imports the apps."""

import os
import sys

if __name__ == "__main__":
    os.execv(sys.executable, [sys.executable, "-m", "apps.cli", *sys.argv[1:]])
