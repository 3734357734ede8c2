"""The trace record: one per question, built from the typed step results, appended as a JSON line.

`TraceRecord` is the contract the UI, replay, the eval and the benches read. Its field names are
those of every trace file written so far (version 1), so old JSONL exports still import; version 2
adds `decision` (the refusal rule's checks as decided) and the ledger's title and heading path;
version 3 the unit packing: a `condensed` fate, `units_kept` / `units_total` / `dropped_units` per
ledger row and `num_condensed`; version 4 the missing-context mode: `missing_context` (refuse |
related), `related` (the answer is the related-sources answer, still refused) and `tokens_saved`
(the prompt tokens a strict refusal did not send: the built prompt's total when the refusal rule
refused in `refuse` mode, else 0). Records without them read as refuse mode, nothing saved.
Version 5: `evidence_overlap` is the smaller of the plain and the rarity-weighted overlap (the
value the refusal rule reads) and `evidence_overlap_plain` the plain one; before, they were one.
Version 6: `evidence_unheld`, the names the question writes that no injected passage holds (the
refusal rule lets no such question through by its overlap); records without it have none."""

from __future__ import annotations

import datetime as dt
import fcntl
import json
import logging
import uuid
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, NotRequired, TypedDict

log = logging.getLogger(__name__)

TRACE_VERSION = 6


class LedgerRow(TypedDict):
    chunk_id: str
    source: str
    category: str
    page: int | None
    score: float
    tokens: int
    fate: str
    duplicate_of: str | None
    injected_tokens: int
    injected_text: str
    dense_rank: int | None
    lexical_rank: int | None
    suspicious: bool
    flags: NotRequired[list[str]]  # since the shield (issue 18): why it was quarantined
    title: str  # since version 2
    heading_path: str  # since version 2
    heading_levels: str  # since version 2
    units_kept: NotRequired[int | None]  # since version 3 (unit packing)
    units_total: NotRequired[int | None]  # since version 3
    dropped_units: NotRequired[list[str]]  # since version 3
    notes: NotRequired[str]  # since the shield: what parsing dropped from its document


class Citation(TypedDict):
    label: str
    source: str
    chunk_id: str | None
    injected: bool


class TraceRecord(TypedDict, total=False):
    id: str
    version: int
    ts: str
    question: str
    rewritten_query: str
    rewrite_method: str
    history: list[dict[str, str]]
    history_turns: int
    history_turns_included: int
    memory_snippets: list[str]
    setup: str  # "engineered" | "baseline"
    query_type: str
    classifier: str
    retrieval_mode: str
    retrieval_ms: float
    budgeting_ms: float
    answer_ms: float
    total_ms: float
    top_score: float | None
    evidence_overlap: float
    evidence_overlap_plain: NotRequired[float]  # since version 5
    evidence_unheld: NotRequired[list[str]]  # since version 6
    knowledge_budget: int | None
    prompt_limit: int
    context_tokens: int
    prompt_tokens: int
    answer_tokens: int
    total_tokens: int
    sections: dict[str, int]
    num_candidates: int
    num_chunks_included: int
    num_deduped: int
    num_condensed: int  # since version 3
    num_summarized: int
    num_truncated: int
    num_suspicious: int
    refused: bool
    refusal_reason: str
    refusal_rule: dict[str, float | int]
    decision: dict[str, Any]
    missing_context: str  # since version 4: "refuse" | "related"
    related: bool  # since version 4: the related-sources answer (refused stays True)
    tokens_saved: int  # since version 4: prompt tokens a strict refusal did not send
    backend: str
    llm_called: bool
    fallback: bool
    backend_error: str
    answer: str
    citations: list[Citation]
    grounding: dict[str, Any] | None
    chunks: list[LedgerRow]
    messages: list[dict[str, str]]
    message_sections: list[str]
    settings: dict[str, Any]
    replay_of: str | None


def new_record_id() -> str:
    return uuid.uuid4().hex[:12]


def now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def append_trace(path: Path, record: Mapping[str, Any]) -> None:
    """Append one record as a JSON line (an exclusive file lock keeps concurrent lines whole); a
    trace that cannot be written is logged, not raised."""
    line = json.dumps(record, ensure_ascii=False, default=str)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                f.write(line + "\n")
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)
    except OSError as e:
        log.warning("could not write trace to %s: %s", path, e.strerror or e)


def read_traces(path: Path) -> list[TraceRecord]:
    """All well-formed records of a traces file (malformed lines are skipped and counted)."""
    return list(iter_traces(path.read_text(encoding="utf-8", errors="replace").splitlines()))


def iter_traces(lines: Iterable[str]) -> Iterator[TraceRecord]:
    bad = 0
    for line in lines:
        line = line.strip()
        if not line:
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            bad += 1
            continue
        if isinstance(rec, dict) and "question" in rec:
            yield rec  # type: ignore[misc]
        else:
            bad += 1
    if bad:
        log.warning("skipped %d malformed trace lines", bad)


def find_trace(path: Path, trace_id: str) -> TraceRecord | None:
    """The record with this id (or id prefix), newest first."""
    for rec in reversed(read_traces(path)):
        if str(rec.get("id", "")).startswith(trace_id):
            return rec
    return None


def to_jsonl(records: Iterable[Mapping[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in records)


def answered_by(record: Mapping[str, Any]) -> str:
    """Who wrote the answer, in words: the backend that answered, "extractive (fallback from X:
    reason)" when the LLM failed, "refusal rule" when the rule refused the question before any
    answerer ran, or the answerer that found no answer itself."""
    backend = str(record.get("backend") or "?")
    if record.get("fallback"):
        reason = str(record.get("backend_error") or "unknown error")
        return f"extractive (fallback from {backend}: {reason})"
    ruled = (record.get("decision") or {}).get("refused", True)  # older traces: the rule's refusal
    if record.get("refused") and not record.get("llm_called") and ruled:
        return "refusal rule (no answerer called)"
    if record.get("refused"):
        return f"{backend} (it found no answer in the evidence)"
    return backend
