"""`python -m core.eval …`: kept for the documented command line; it re-executes `python -m
apps.eval` (the harness lives outside the library, which never imports it)."""

import os
import sys

if __name__ == "__main__":
    os.execv(sys.executable, [sys.executable, "-m", "apps.eval", *sys.argv[1:]])
