"""Evaluation harness: baseline vs engineered on labelled question sets, and threshold calibration.

`python -m apps.eval --squad FILE --stici DIR --jsonl FILE --out DIR` (options in apps/eval/cli.py);
from Python: `apps.eval.cli.evaluate(EvalConfig(...), settings)` returns the report dict.
"""
