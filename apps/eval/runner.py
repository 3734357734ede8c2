"""Runs every question of every dataset through the baseline and the engineered setup.

One engineered pass serves the reported numbers and the threshold sweep: the pipeline runs with
the refusal rule opened (τ = 0, min context tokens = 0), and the rule is then applied to each
trace's top_score, context_tokens and evidence_overlap with core.answer.refusal.decide — the function the pipeline itself
calls — at the configured thresholds (the reported "engineered" setup) and at every grid point
(the sweep). With the extractive answerer (backend=None, as here) nothing else in the pipeline
reads those two settings, so the configured-threshold outcome equals a direct run
(tests/test_eval.py checks this). The extractive answerer's own
threshold (answer_min_similarity) changes which sentences it picks, so for the sweep the injected
units are scored once with core.answer.extractive.evidence_for and the answerer's selection step is
replayed at each grid value (`pick`, checked against the pipeline's answer on every question).
With CONTEXTLENS_MISSING_CONTEXT=related a refusal shows the related answer (written by
core.answer.related on the injected evidence, as the pipeline does) and counts as a refusal; a
refusal by the rule in refuse mode records the built prompt's tokens as saved.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from apps.eval.datasets import Dataset, Question, slug
from apps.eval.metrics import Record, is_correct, is_strictly_correct, keyterm_recall, strip_citations
from core.answer import refusal
from core.answer.evidence import Evidence
from core.answer.extractive import answer_from_scored, evidence_for
from core.answer.refusal import WordCounts
from core.answer.related import related_answer
from core.config import Settings
from core.pipeline import Answer, Pipeline
from core.resources import Models, Resources
from core.types import INCLUDED_FATES, Fate

log = logging.getLogger(__name__)

INCLUDED = {f.value for f in INCLUDED_FATES}


@dataclass(frozen=True)
class SweepRow:
    """What the threshold sweep needs of one engineered question (per answerer threshold)."""

    dataset: str
    mode: str
    kind: str
    top_score: float | None
    context_tokens: int
    # answer_min_similarity → (answerer refused, answer correct)
    by_ams: dict[float, tuple[bool, bool]]
    overlap: float | None = 0.0  # the refusal rule's query-word overlap (None: not recorded)
    unheld: bool = False  # a name the question writes is held by no injected passage (the rule's)


@dataclass
class DatasetRun:
    """The outcome of one dataset: records per (mode, setup), sweep rows, ingest summary."""

    name: str
    collection: str
    counts: dict[str, int]
    ingest: dict[str, Any]
    records: dict[tuple[str, str], list[Record]] = field(default_factory=dict)
    sweep: list[SweepRow] = field(default_factory=list)
    seconds: float = 0.0
    ingest_seconds: float = 0.0  # wall time of the sync, model loading included
    answerer_mismatches: int = 0  # questions where `pick` disagreed with the pipeline (should be 0)


def dataset_settings(base: Settings, out: Path, name: str, **overrides: Any) -> Settings:
    """The settings one dataset is ingested and asked with: its own collection under out/store."""
    update: dict[str, Any] = {
        "store_path": Path(out) / "store",
        "collection": slug(f"eval-{name}", 60),
        "trace_enabled": False,
    }
    update.update({k: v for k, v in overrides.items() if v is not None})
    # validate like any other settings (model_copy alone would skip validation)
    return Settings.model_validate({**base.model_dump(), **update})


def ingest_dataset(settings: Settings, ds: Dataset, resources: Resources) -> dict[str, Any]:
    """Sync the dataset's corpus folder into its collection with the real ingest code."""
    from ingest.sync import ingest_paths

    report = ingest_paths(settings, [ds.corpus], resources=resources).as_dict()
    if report["errors"]:
        log.warning("%s: %d files failed to ingest: %s", ds.name, len(report["errors"]), report["errors"][:3])
    report.pop("added_sources", None)
    return report


# the best thing that happened to any chunk of the gold document, best first
_FATE_ORDER = tuple(f.value for f in Fate)  # best first


def _gold_flags(
    q: Question, trace: dict[str, Any]
) -> tuple[bool | None, bool | None, str | None, int | None]:
    """(gold document retrieved, gold document injected, its best chunk fate or "not_retrieved",
    the rank of its first chunk in the ledger — the retrieval order)."""
    if q.kind != "answerable" or not q.doc:
        return None, None, None, None
    gold = [
        (n, c.get("fate")) for n, c in enumerate(trace.get("chunks") or [], 1) if c.get("source") == q.doc
    ]
    if not gold:
        return False, False, "not_retrieved", None
    fates = [f for _, f in gold]
    return True, any(f in INCLUDED for f in fates), _best_fate(fates), gold[0][0]


def _best_fate(fates: list[Any]) -> Any:
    return min(fates, key=lambda f: _FATE_ORDER.index(f) if f in _FATE_ORDER else len(_FATE_ORDER))


def _answer_fate(q: Question, trace: dict[str, Any], bearing: set[str]) -> tuple[bool | None, str | None]:
    """(a gold answer is in the injected text, what happened to the answer-bearing chunks).

    bearing = ids of the retrieved chunks whose full text contains a gold answer (found in the
    baseline's trace, where every retrieved chunk is injected whole). The fate is "injected", the
    best fate of a bearing chunk otherwise (e.g. "summarised" = its summary lost the answer,
    "over_budget"), or "not_retrieved" when no retrieved chunk contains the answer."""
    if q.kind != "answerable" or not q.gold:
        return None, None
    if _gold_chunk_ids(q, trace):
        return True, "injected"
    fates = [c.get("fate") for c in trace.get("chunks") or [] if c.get("chunk_id") in bearing]
    if not fates:
        return False, "not_retrieved"
    return False, _best_fate(fates)


def contains_gold(text: str, q: Question) -> bool:
    """The text holds one of the question's gold answers (the same rule as for answers)."""
    return bool(text) and is_correct(text, q.gold, q.match, q.q, "\x00")


def _gold_chunk_ids(q: Question, trace: dict[str, Any]) -> set[str]:
    """Ids of the trace's injected chunks whose injected text holds a gold answer."""
    if q.kind != "answerable" or not q.gold:
        return set()
    return {
        c["chunk_id"]
        for c in trace.get("chunks") or []
        if c.get("fate") in INCLUDED and contains_gold(c.get("injected_text") or "", q)
    }


def _record(
    q: Question,
    a: Answer,
    setup: str,
    mode: str,
    refusal_sentence: str,
    decision: refusal.Decision | None = None,
    bearing: set[str] | None = None,
    refused_text: str | None = None,
) -> Record:
    """One question's outcome; `decision` is the rule applied afterwards (engineered setup), and
    refused_text what a refusal shows (the refusal sentence, or in related mode the related answer).
    A refusal is never correct, whatever its text; a strict refusal saves the prompt's tokens."""
    t = a.trace
    text, refused, reason = a.text, a.refused, a.refusal_reason
    grounding = (t.get("grounding") or {}).get("score")
    saved = int(t.get("tokens_saved") or 0)
    if decision is not None and decision.refused:
        text, refused, reason, grounding = refused_text or refusal_sentence, True, decision.reason, None
        saved = int(t["prompt_tokens"]) if refused_text is None else 0
    answerable = q.kind == "answerable" and not refused
    correct = answerable and is_correct(text, q.gold, q.match, q.q, refusal_sentence)
    strict = None
    if q.kind == "answerable" and (q.all or q.forbid or q.qtype):
        strict = answerable and is_strictly_correct(text, q.gold, q.all, q.forbid, refusal_sentence)
    kt = None
    if q.kind == "answerable" and q.match == "keyterms" and q.gold:
        kt = 0.0 if refused else round(max(keyterm_recall(strip_citations(text), g, q.q) for g in q.gold), 4)
    retrieved, included, gold_fate, gold_rank = _gold_flags(q, t)
    answer_injected, answer_fate = _answer_fate(q, t, bearing or set())
    if decision is not None and decision.refused:
        # a refusal sends nothing
        included = False if included is not None else None
        answer_injected = False if answer_injected is not None else None
    return Record(
        qid=q.id,
        kind=q.kind,
        group=q.group,
        setup=setup,
        mode=mode,
        answer=text,
        refused=refused,
        refusal_reason=reason,
        correct=correct,
        gold_retrieved=retrieved,
        gold_included=included,
        gold_fate=gold_fate,
        answer_retrieved=(bool(bearing) if q.kind == "answerable" and q.gold else None),
        answer_injected=answer_injected,
        answer_fate=answer_fate,
        latency_ms=round(float(t["retrieval_ms"]) + float(t["budgeting_ms"]), 3),
        prompt_tokens=int(t["prompt_tokens"]),
        context_tokens=int(t["context_tokens"]),
        top_score=t.get("top_score"),
        grounding=grounding,
        keyterm_recall=kt,
        gold_rank=gold_rank,
        strict=strict,
        qtype=q.qtype or ("" if strict is None else "untyped"),
        tokens_saved=saved,
    )


def _related_text(
    q: Question, a: Answer, decision: refusal.Decision, res: Resources, s: Settings
) -> str | None:
    """What a refusal shows in related mode (the pipeline's own related answer on the injected
    evidence); None in refuse mode (the refusal sentence)."""
    if s.missing_context != "related":
        return None
    included = a.context.included if a.context is not None else []
    return related_answer(
        q.q, included, res.scorer, a.trace["query_type"], s.answer_min_similarity, decision.reason
    ).text


def pick(
    scored: Evidence, refusal_sentence: str, min_score: float, counts: WordCounts | None = None
) -> tuple[str, bool]:
    """The extractive answerer's selection step at one threshold: (text, refused), with the
    units scored once (core.answer.extractive.answer_from_scored, the answerer's own last step;
    counts: the store's word counts for the question, as the prompt step reads them)."""
    d = answer_from_scored(scored, refusal_sentence, min_score, counts=counts)
    return d.text, d.refused


def _answerer_grid(
    pipe: Pipeline, q: Question, a: Answer, grid: Sequence[float], configured: float
) -> tuple[dict[float, tuple[bool, bool]], bool]:
    """(refused, correct) of the extractive answerer at each answer_min_similarity, and whether
    the replayed selection matches the pipeline's answer at the configured value."""
    s = pipe.settings
    out: dict[float, tuple[bool, bool]] = {}
    if len(grid) == 1 and abs(grid[0] - configured) < 1e-9:
        answered = q.kind == "answerable" and not a.refused
        ok = answered and is_correct(a.text, q.gold, q.match, q.q, s.refusal_sentence)
        return {round(configured, 4): (a.refused, ok)}, True
    included = a.context.included if a.context is not None else []
    counts = pipe.builder.word_counts(a.trace["rewritten_query"])
    scored = evidence_for(q.q, included, pipe.resources.scorer, a.trace["query_type"], counts)
    same = True
    for ams in grid:
        text, refused = pick(scored, s.refusal_sentence, ams, counts)
        if abs(ams - configured) < 1e-9:
            # a refusal matches whatever its text (related mode writes the related answer)
            same = refused == a.refused and (refused or text == a.text)
            text, refused = a.text, a.refused  # the pipeline's own answer is the truth here
        answered = q.kind == "answerable" and not refused
        ok = answered and is_correct(text, q.gold, q.match, q.q, s.refusal_sentence)
        out[round(ams, 4)] = (refused, ok)
    return out, same


def run_dataset(
    ds: Dataset,
    settings: Settings,
    modes: Sequence[str],
    *,
    sweep_modes: Sequence[str] = (),
    ams_grid: Sequence[float] = (),
    tick: Callable[[], None] | None = None,
    on_ingested: Callable[[], None] | None = None,
    models: Models | None = None,
) -> DatasetRun:
    """Ingest the dataset, then ask every question under both setups in every retrieval mode."""
    t0 = time.perf_counter()
    res = Resources.open(settings, models)
    ingest = ingest_dataset(settings, ds, res)
    run = DatasetRun(ds.name, settings.collection, ds.counts(), ingest)
    run.ingest_seconds = time.perf_counter() - t0
    if on_ingested:
        on_ingested()
    for mode in modes:
        configured = settings.model_copy(update={"retrieval_mode": mode})
        # the rule is applied afterwards (see the module doc); everything else is as configured
        opened = configured.model_copy(update={"refusal_tau": 0.0, "min_context_tokens": 0})
        pipe = Pipeline(opened, res, backend=None)
        base_recs: list[Record] = []
        eng_recs: list[Record] = []
        # every mode gets the τ × min-tokens sweep; the answerer's threshold is swept (answers
        # re-extracted) only in sweep_modes, since that costs extra answerer calls per question
        grid = sorted({*(ams_grid if mode in sweep_modes else ()), configured.answer_min_similarity})
        for q in ds.questions:
            # embed once, outside both timings: neither setup gets the other's cache for free
            res.retriever.embed_query(q.q)
            b = pipe.ask(q.q, baseline=True, record=False)
            e = pipe.ask(q.q, record=False)
            decision = refusal.decide(
                e.trace["top_score"], e.trace["context_tokens"],
                configured.refusal_tau, configured.min_context_tokens,
                e.trace["evidence_overlap"], configured.refusal_min_overlap, configured.min_score,
                e.trace.get("evidence_overlap_plain"), e.trace.get("evidence_unheld", ()),
            )  # fmt: skip
            bearing = _gold_chunk_ids(q, b.trace)  # both setups retrieve the same chunks for a question
            base_recs.append(_record(q, b, "baseline", mode, configured.refusal_sentence, None, bearing))
            shown = _related_text(q, e, decision, res, configured) if decision.refused else None
            rec = _record(q, e, "engineered", mode, configured.refusal_sentence, decision, bearing, shown)
            eng_recs.append(rec)
            by_ams, same = _answerer_grid(pipe, q, e, grid, configured.answer_min_similarity)
            run.sweep.append(
                SweepRow(
                    ds.name,
                    mode,
                    q.kind,
                    e.trace["top_score"],
                    int(e.trace["context_tokens"]),
                    by_ams,
                    float(e.trace["evidence_overlap"]),
                    bool(e.trace.get("evidence_unheld")),
                )
            )
            run.answerer_mismatches += 0 if same else 1
            if tick:
                tick()
        run.records[(mode, "baseline")] = base_recs
        run.records[(mode, "engineered")] = eng_recs
    run.seconds = time.perf_counter() - t0
    return run
