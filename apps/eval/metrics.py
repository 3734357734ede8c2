"""Scoring one answer against its labels, and the per-setup metrics of a run.

Answer matching (the same for both setups):
- citations "(source)" are removed from the answer first, so a file or article name in a citation
  never counts as an answer;
- "phrase" gold (SQuAD, JSONL): correct when any gold phrase appears in the answer,
  case-insensitive, whitespace-normalised, not inside a longer word;
- "keyterms" gold (STICI, a free-text reference answer): the key terms are the reference's
  content words (no function words) that are not already in the question, compared after
  lower-casing and dropping a plural -s; correct when at least KEYTERM_MIN_RECALL of them appear
  in the answer. If the question repeats every content word, all the reference's content words
  are the key terms.
An answer equal to the refusal sentence is a refusal, never correct; so is any answer the
pipeline flagged refused (in `related` missing-context mode a refusal is the related-sources
answer, which may quote the gold phrase as related evidence: it still counts as a refusal).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from core.answer.citations import cited_labels
from core.text import content_words

KEYTERM_MIN_RECALL = 0.5
GROUNDING_BINS = (0.0, 0.25, 0.5, 0.75, 1.0)

_SPACE = re.compile(r"\s+")


def _norm(text: str) -> str:
    return _SPACE.sub(" ", text).strip().lower()


def strip_citations(answer: str) -> str:
    """The answer without its "(source)" citations."""
    for label in cited_labels(answer):
        answer = answer.replace(f"({label})", " ")
    return answer


def phrase_in(phrase: str, text: str) -> bool:
    """phrase occurs in text, case-insensitively, not as part of a longer word."""
    p = _norm(phrase)
    if not p:
        return False
    return re.search(rf"(?<!\w){re.escape(p)}(?!\w)", _norm(text)) is not None


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def key_terms(reference: str, question: str) -> set[str]:
    """Content words of the reference answer that the question does not already contain."""
    ref = {_stem(w) for w in content_words(reference)}
    asked = {_stem(w) for w in content_words(question)}
    return (ref - asked) or ref


def keyterm_recall(answer: str, reference: str, question: str) -> float:
    """Share of the reference's key terms present in the answer (0..1)."""
    terms = key_terms(reference, question)
    if not terms:
        return 0.0
    have = {_stem(w) for w in content_words(answer)}
    return len(terms & have) / len(terms)


def is_refusal(answer: str, refusal_sentence: str) -> bool:
    """The answer is exactly the refusal sentence (surrounding whitespace ignored)."""
    return answer.strip() == refusal_sentence.strip()


def is_correct(answer: str, gold: Sequence[str], match: str, question: str, refusal_sentence: str) -> bool:
    """Whether an answer to an answerable question contains its gold (see the module doc)."""
    if not gold or is_refusal(answer, refusal_sentence):
        return False
    text = strip_citations(answer)
    if match == "keyterms":
        return max(keyterm_recall(text, g, question) for g in gold) >= KEYTERM_MIN_RECALL
    return any(phrase_in(g, text) for g in gold)


def is_strictly_correct(
    answer: str, gold: Sequence[str], all_of: Sequence[str], forbid: Sequence[str], refusal_sentence: str
) -> bool:
    """Strict: every "all" phrase (or, without any, a gold phrase) is in the answer and no
    "forbid" phrase is; citations are stripped first. An answer that dumps the other model's
    value beside the right one is wrong."""
    if is_refusal(answer, refusal_sentence):
        return False
    text = strip_citations(answer)
    required = all(phrase_in(p, text) for p in all_of) if all_of else any(phrase_in(g, text) for g in gold)
    return required and not any(phrase_in(p, text) for p in forbid)


@dataclass
class Record:
    """One question's outcome under one setup and retrieval mode (everything the metrics need)."""

    qid: str
    kind: str
    group: str
    setup: str
    mode: str
    answer: str
    refused: bool
    refusal_reason: str
    correct: bool
    gold_retrieved: bool | None  # gold document among the retrieved chunks' sources (None: no gold doc)
    gold_included: bool | None  # … and among the chunks actually injected
    latency_ms: float  # retrieval + budgeting
    prompt_tokens: int
    context_tokens: int
    top_score: float | None
    grounding: float | None
    keyterm_recall: float | None = None
    gold_fate: str | None = None  # best budget fate of the gold document's chunks ("not_retrieved")
    answer_retrieved: bool | None = None  # a retrieved chunk's text contains a gold answer
    answer_injected: bool | None = None  # … and the injected text still contains it
    answer_fate: str | None = None  # "injected", else the answer-bearing chunk's best fate
    gold_rank: int | None = None  # rank of the gold document's first chunk among the retrieved
    strict: bool | None = None  # strict correctness (questions with all/forbid/type labels)
    qtype: str = ""  # the question's labelled type
    tokens_saved: int = 0  # prompt tokens a strict refusal did not send (trace tokens_saved)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _rate(flags: Iterable[bool]) -> float | None:
    values = list(flags)
    return round(sum(values) / len(values), 4) if values else None


def _mean(values: Sequence[float], digits: int) -> float | None:
    return round(float(np.mean(values)), digits) if len(values) else None


def _pct(values: Sequence[float], q: float) -> float | None:
    return round(float(np.percentile(values, q)), 2) if values else None


def grounding_histogram(scores: Sequence[float]) -> dict[str, int]:
    """Counts of grounding scores in [0, .25), [.25, .5), [.5, .75), [.75, 1), and exactly 1."""
    labels = ["0-0.25", "0.25-0.5", "0.5-0.75", "0.75-1", "1"]
    out = dict.fromkeys(labels, 0)
    for s in scores:
        if s >= 1.0:
            out["1"] += 1
        else:
            i = min(int(np.searchsorted(GROUNDING_BINS, s, side="right")) - 1, 3)
            out[labels[max(i, 0)]] += 1
    return out


def summarize(records: Sequence[Record]) -> dict[str, Any]:
    """The metrics of one setup on one dataset and mode."""
    ans = [r for r in records if r.kind == "answerable"]
    unans = [r for r in records if r.kind == "unanswerable"]
    oos = [r for r in records if r.kind == "oos"]
    offtopic = [r for r in oos if r.group == "offtopic"]
    lat = [r.latency_ms for r in records]
    with_doc = [r for r in ans if r.gold_retrieved is not None]
    answered = [r for r in records if not r.refused]
    ground = [r.grounding for r in answered if r.grounding is not None]
    kt = [r.keyterm_recall for r in ans if r.keyterm_recall is not None]
    out: dict[str, Any] = {
        "n": len(records),
        "n_answerable": len(ans),
        "n_unanswerable": len(unans),
        "n_oos": len(oos),
        "acc_answerable": _rate(r.correct for r in ans),
        "false_refusal": _rate(r.refused for r in ans),
        "refusal_unanswerable": _rate(r.refused for r in unans),
        "refusal_oos": _rate(r.refused for r in oos),
        "refusal_offtopic": _rate(r.refused for r in offtopic),
        "refusal_unanswerable_oos": _rate(r.refused for r in unans + oos),
        "recall_at_k": _rate(bool(r.gold_retrieved) for r in with_doc),
        "recall_at_5": _rate(r.gold_rank is not None and r.gold_rank <= 5 for r in with_doc),
        "gold_included": _rate(bool(r.gold_included) for r in with_doc),
        "answer_at_k": _rate(bool(r.answer_retrieved) for r in ans if r.answer_retrieved is not None),
        "answer_injected": _rate(bool(r.answer_injected) for r in ans if r.answer_injected is not None),
        "p50_ms": _pct(lat, 50),
        "p90_ms": _pct(lat, 90),
        "mean_prompt_tokens": _mean([r.prompt_tokens for r in records], 1),
        "mean_context_tokens": _mean([r.context_tokens for r in records], 1),
        # refused questions send no prompt (no LLM call): what an LLM would actually be sent
        "mean_prompt_tokens_sent": _mean([0 if r.refused else r.prompt_tokens for r in records], 1),
        # per refused question (the rule's or the answerer's), the prompt tokens it did not send:
        # the built prompt for a strict refusal by the rule, 0 for the answerer's or a related one
        "tokens_saved_per_refusal": _mean([r.tokens_saved for r in records if r.refused], 1),
        "tokens_saved_total": sum(r.tokens_saved for r in records),
        "n_refused": sum(r.refused for r in records),
        "grounding_mean": _mean(ground, 4),
        "grounding_hist": grounding_histogram(ground),
        "n_answered": len(answered),
    }
    if kt:
        out["keyterm_recall_mean"] = _mean(kt, 4)
    typed = [r for r in ans if r.strict is not None]
    if typed:
        out["by_type"] = {
            t: {
                "n": len(rs),
                "acc": _rate(r.correct for r in rs),
                "strict": _rate(bool(r.strict) for r in rs),
            }
            for t, rs in [(t, [r for r in typed if r.qtype == t]) for t in sorted({r.qtype for r in typed})]
            + [("all", typed)]
        }
    if unans or oos:
        acc = out["acc_answerable"] or 0.0
        ref = out["refusal_unanswerable_oos"] or 0.0
        out["balanced"] = round((acc + ref) / 2, 4) if ans else None
    out["answerable_breakdown"] = breakdown(ans)
    reasons: dict[str, int] = {}
    for r in records:
        if r.refused:
            key = _reason_kind(r.refusal_reason)
            reasons[key] = reasons.get(key, 0) + 1
    out["refusal_reasons"] = reasons
    return out


def breakdown(answerable: Sequence[Record]) -> dict[str, int]:
    """Where answerable questions ended: correct, refused (by which rule), or wrong — and then
    whether a gold answer was injected (the answerer picked other sentences), was in a retrieved
    chunk that the budget dropped or cut (its fate), or was in no retrieved chunk."""
    out: dict[str, int] = {}

    def add(key: str) -> None:
        out[key] = out.get(key, 0) + 1

    for r in answerable:
        if r.correct:
            add("correct")
        elif r.refused:
            add("refused: " + _reason_kind(r.refusal_reason))
        elif r.answer_fate is not None:
            add(f"wrong, answer {r.answer_fate.replace('_', ' ')}")
        elif r.gold_fate is None:
            add("wrong (no gold document)")
        elif r.gold_included:
            add("wrong, gold document injected")
        else:
            add(f"wrong, gold document {r.gold_fate}")
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def _reason_kind(reason: str) -> str:
    """A refusal reason without its numbers ("top score 0.21 < τ 0.30" → "top score < τ")."""
    r = reason.lower()
    if r.startswith("top score"):
        return "top score < tau"
    if r.startswith("context"):
        return "context < min tokens"
    if r.startswith("best sentence"):
        return "answerer: best sentence < min similarity"
    if "no usable sentence" in r:
        return "answerer: no usable sentence"
    if "no evidence" in r:
        return "no evidence"
    return reason or "unknown"
