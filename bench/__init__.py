"""Benchmarks (issue 6): each prints human lines and, with --json, one JSON object last."""
