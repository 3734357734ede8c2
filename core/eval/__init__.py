"""Legacy entry point only: the evaluation harness is apps/eval (see __main__.py)."""
