"""Evaluation harness: baseline vs engineered on labelled question sets, and threshold calibration.

`python -m core.eval --squad FILE --stici DIR --jsonl FILE --out DIR` (options in core/eval/cli.py);
from Python: `core.eval.cli.evaluate(EvalConfig(...), settings)` returns the report dict.
"""
