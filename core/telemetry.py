"""Traces: one JSON record per question, appended to a JSONL file (a setting; can be off)."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


def _lock_for(path: Path) -> threading.Lock:
    with _locks_guard:
        return _locks.setdefault(str(path), threading.Lock())


def append_trace(path: Path, record: Mapping[str, Any]) -> None:
    """Append one record as a JSON line; a trace that cannot be written is logged, not raised."""
    line = json.dumps(record, ensure_ascii=False, default=str)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with _lock_for(path), path.open("a", encoding="utf-8") as f:
            f.write(line + "\n")
    except OSError as e:
        log.warning("could not write trace to %s: %s", path, e.strerror or e)


def read_traces(path: Path) -> list[dict[str, Any]]:
    """All well-formed records of a traces file (malformed lines are skipped and counted)."""
    return list(iter_traces(path.read_text(encoding="utf-8", errors="replace").splitlines()))


def iter_traces(lines: Iterator[str] | list[str]) -> Iterator[dict[str, Any]]:
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
            yield rec
        else:
            bad += 1
    if bad:
        log.warning("skipped %d malformed trace lines", bad)


def find_trace(path: Path, trace_id: str) -> dict[str, Any] | None:
    """The record with this id (or id prefix), newest first."""
    for rec in reversed(read_traces(path)):
        if str(rec.get("id", "")).startswith(trace_id):
            return rec
    return None


def to_jsonl(records: list[Mapping[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in records)
