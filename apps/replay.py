"""What-if replay: re-run a traced question with other settings and compare the two runs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.config import Settings
from core.pipeline import Pipeline
from core.resources import Resources
from core.types import Turn

# the settings a replay may change (names as in Settings)
REPLAYABLE = (
    "top_k", "knowledge_budget", "refusal_tau", "refusal_min_overlap", "min_context_tokens", "separator",
    "overflow_extract_tokens", "packing", "pack_candidates", "quarantine",
    "retrieval_mode", "templates_path", "min_score", "missing_context", "evidence_order",
)  # fmt: skip
# what a trace written before a setting existed ran with (version 3 and earlier: strict refusals)
LEGACY = {"missing_context": "refuse", "quarantine": "warn", "evidence_order": "rank"}


@dataclass(frozen=True)
class Comparison:
    before: dict[str, Any]
    after: dict[str, Any]

    def rows(self) -> list[tuple[str, Any, Any]]:
        """Side-by-side headline numbers."""
        keys = (
            "answer", "refused", "refusal_reason", "missing_context", "related", "tokens_saved",
            "query_type", "context_tokens", "prompt_tokens",
            "num_chunks_included", "num_deduped", "num_condensed", "num_summarized", "top_score",
        )  # fmt: skip
        return [(k, self.before.get(k), self.after.get(k)) for k in keys]

    def fates(self) -> list[tuple[str, str, str | None, str | None]]:
        """(chunk id, source, fate before, fate after) for every chunk in either ledger."""
        b = {c["chunk_id"]: c for c in self.before.get("chunks", [])}
        a = {c["chunk_id"]: c for c in self.after.get("chunks", [])}
        out = []
        for cid in list(dict.fromkeys([*b, *a])):
            src = (b.get(cid) or a.get(cid) or {}).get("source", "")
            out.append((cid, src, b.get(cid, {}).get("fate"), a.get(cid, {}).get("fate")))
        return out


def replay_settings(base: Settings, trace: dict[str, Any], changes: dict[str, Any]) -> Settings:
    """The settings of the traced run (what it recorded) with the requested changes applied."""
    snapshot = {**LEGACY, **(trace.get("settings") or {})}
    recorded = {k: v for k, v in snapshot.items() if k in REPLAYABLE}
    unknown = set(changes) - set(REPLAYABLE)
    if unknown:
        raise ValueError(f"cannot replay with {', '.join(sorted(unknown))}")
    return base.updated(**{**recorded, **changes})


def replay(
    base: Settings,
    resources: Resources,
    trace: dict[str, Any],
    changes: dict[str, Any],
    blind: bool = False,
    record: bool = True,
) -> Comparison:
    """Run the traced question again under changed settings (or blind top-k) and compare."""
    settings = replay_settings(base, trace, changes)
    history = [Turn(t["question"], t["answer"], t.get("query", "")) for t in trace.get("history", [])]
    after = Pipeline(settings, resources).ask(trace["question"], history, baseline=blind, record=record).trace
    after["replay_of"] = trace.get("id")
    return Comparison(before=trace, after=after)
