"""CLI: `python -m apps.eval [--squad FILE] [--stici DIR] [--jsonl FILE] [options]` (see --help)."""

from __future__ import annotations

import argparse
import logging
import sys

from core.config import Settings
from core.errors import ContextLensError


def main(argv: list[str] | None = None, base: Settings | None = None) -> int:
    """Parse arguments, run the evaluation, print the tables; errors → one line and exit 2."""
    from apps.eval.cli import build_parser, run

    parser: argparse.ArgumentParser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s"
    )
    try:
        run(args, argv if argv is not None else sys.argv[1:], base)
    except ContextLensError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
