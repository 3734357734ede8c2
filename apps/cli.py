"""The `contextlens` command: `ask "QUESTION" [--json]`, `replay TRACE_ID [...]`, and `ingest …` /
`eval …` handed to their own CLIs (`python -m ingest`, `python -m apps.eval`).

`python -m core ask|replay` runs this module too (core/__main__.py re-executes it, so the library
never imports the apps)."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from typing import Any

from core.config import MISSING_CONTEXT_MODES, PACKINGS, RETRIEVAL_MODES, SEPARATORS, load_settings
from core.errors import ContextLensError


def _print_summary(t: dict[str, Any]) -> None:
    print(t["answer"])
    if t["citations"]:
        print("Citations: " + ", ".join(c["label"] for c in t["citations"]))
    flag = f"REFUSED ({t['refusal_reason']})" if t["refused"] else "answered"
    if t.get("related"):
        flag += " — related sources shown"
    if t.get("tokens_saved"):
        flag += f" — {t['tokens_saved']} prompt tokens not sent"
    if t.get("fallback"):
        flag += f" — extractive fallback: {t['backend_error']}"
    print(
        f"[{t['query_type']}] {flag} · top score {t['top_score']} · context "
        f"{t['context_tokens']}/{t['knowledge_budget']} tokens · {t['num_chunks_included']} chunks "
        f"({t['num_deduped']} deduped, {t['num_summarized']} summarised) · retrieval "
        f"{t['retrieval_ms']:.1f} ms, budgeting {t['budgeting_ms']:.1f} ms · trace {t['id']}"
    )


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "ingest":
        from ingest.__main__ import main as ingest_main

        return ingest_main(argv[1:])
    if argv and argv[0] == "eval":
        from apps.eval.__main__ import main as eval_main

        return eval_main(argv[1:])
    return _query_main(argv)


def _query_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="contextlens", description="Ask ContextLens.")
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("ingest", help="index files and folders (see contextlens ingest --help)")
    sub.add_parser("eval", help="baseline vs engineered on labelled sets (see contextlens eval --help)")
    ask = sub.add_parser("ask", help="answer one question from the index")
    ask.add_argument("question")
    ask.add_argument("--json", action="store_true", help="print the full trace record last")
    ask.add_argument("--store", help="store directory (CONTEXTLENS_STORE_PATH)")
    ask.add_argument("--collection")
    ask.add_argument("--k", type=int, dest="top_k")
    ask.add_argument("--budget", type=int, dest="knowledge_budget")
    ask.add_argument("--packing", choices=PACKINGS, help="pack evidence units or whole chunks")
    ask.add_argument("--baseline", action="store_true", help="blind top-k (no budget/dedupe/refusal)")
    ask.add_argument("--missing-context", choices=MISSING_CONTEXT_MODES, dest="missing_context",
                     help="a refused question: the exact refusal sentence, or the related sources")  # fmt: skip
    rp = sub.add_parser("replay", help="re-run a traced question with other settings")
    rp.add_argument("trace_id")
    rp.add_argument("--traces", help="traces file (CONTEXTLENS_TRACE_PATH)")
    rp.add_argument("--store")
    rp.add_argument("--collection")
    rp.add_argument("--k", type=int, dest="top_k")
    rp.add_argument("--budget", type=int, dest="knowledge_budget")
    rp.add_argument("--tau", type=float, dest="refusal_tau")
    rp.add_argument("--min-overlap", type=float, dest="refusal_min_overlap")
    rp.add_argument("--min-context-tokens", type=int, dest="min_context_tokens")
    rp.add_argument("--separator", choices=SEPARATORS)
    rp.add_argument("--packing", choices=PACKINGS)
    rp.add_argument("--missing-context", choices=MISSING_CONTEXT_MODES, dest="missing_context")
    rp.add_argument("--mode", choices=RETRIEVAL_MODES, dest="retrieval_mode")
    rp.add_argument("--templates", dest="templates_path")
    rp.add_argument("--blind", action="store_true", help="blind top-k instead of the pipeline")
    rp.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)

    overrides: dict[str, Any] = {}
    if args.store:
        overrides["store_path"] = args.store
    if args.collection:
        overrides["collection"] = args.collection
    if args.cmd == "replay" and args.traces:
        overrides["trace_path"] = args.traces
    try:
        settings = load_settings(**overrides)
        if args.cmd == "ask":
            return _ask(args, settings)
        return _replay(args, settings)
    except ContextLensError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2 if e.__class__.__name__ == "SettingsError" else 1


def _ask(args: argparse.Namespace, settings: Any) -> int:
    from core.pipeline import Pipeline
    from core.resources import Resources

    names = ("top_k", "knowledge_budget", "packing", "missing_context")
    changes = {k: getattr(args, k) for k in names if getattr(args, k)}
    if changes:
        settings = settings.updated(**changes)
    answer = Pipeline(settings, Resources.open(settings)).ask(args.question, baseline=args.baseline)
    _print_summary(answer.trace)
    if args.json:
        print(json.dumps(answer.trace, ensure_ascii=False, default=str))
    return 0


def _replay(args: argparse.Namespace, settings: Any) -> int:
    from apps.replay import REPLAYABLE, replay
    from core.resources import Resources
    from core.trace import find_trace

    if not settings.trace_path.exists():
        print(f"error: no traces file at {settings.trace_path}", file=sys.stderr)
        return 2
    trace = find_trace(settings.trace_path, args.trace_id)
    if trace is None:
        print(f"error: no trace with id {args.trace_id!r} in {settings.trace_path}", file=sys.stderr)
        return 2
    changes = {k: getattr(args, k) for k in REPLAYABLE if getattr(args, k, None) is not None}
    cmp = replay(settings, Resources.open(settings), trace, changes, blind=args.blind)
    width = max(len(k) for k, _, _ in cmp.rows())
    print(f"{'':{width}}  {'before':<40}  after")
    for key, before, after in cmp.rows():
        b, a = str(before)[:40], str(after)
        print(f"{key:{width}}  {b:<40}  {a[:80]}")
    print("\nLedger (chunk · before → after):")
    for cid, src, fb, fa in cmp.fates():
        print(f"  {src} [{cid[:8]}]  {fb or '—'} → {fa or '—'}")
    if args.json:
        print(json.dumps({"before": cmp.before, "after": cmp.after}, ensure_ascii=False, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
