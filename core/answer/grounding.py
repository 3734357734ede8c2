"""Grounding check: is each answer sentence supported by the injected context, and does its
citation name a chunk that was actually injected?"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from core.answer.citations import cited_labels
from core.context.knowledge import citation_label
from core.scoring import SentenceScorer
from core.text import split_sentences
from core.types import LedgerEntry

_CITE_TAIL = re.compile(r"\s*\(([^()]+)\)\s*$")


@dataclass(frozen=True)
class SentenceCheck:
    sentence: str
    support: float  # cosine to the best-matching injected sentence
    best_match: str
    citations: tuple[str, ...]
    supported: bool
    citation_ok: bool  # cites at least one injected chunk and nothing that was not injected

    def as_dict(self) -> dict[str, object]:
        d = asdict(self)
        d["citations"] = list(self.citations)
        return d


@dataclass(frozen=True)
class Grounding:
    sentences: tuple[SentenceCheck, ...]
    score: float  # share of answer sentences that are supported and correctly cited

    def as_dict(self) -> dict[str, object]:
        return {"score": round(self.score, 4), "sentences": [s.as_dict() for s in self.sentences]}


_LEADING_CITE = re.compile(r"^\(([^()]+)\)\s*")


def _answer_sentences(answer: str) -> list[str]:
    """Answer sentences, with a citation the splitter put at the start of the next sentence
    ("… 12 kg. (a.md) Next …") moved back to the sentence it belongs to."""
    out: list[str] = []
    for s in split_sentences(answer):
        m = _LEADING_CITE.match(s)
        if m and out:
            out[-1] = f"{out[-1]} ({m.group(1)})"
            s = s[m.end() :]
        if len(s.split()) >= 2:
            out.append(s)
    return out


def check(
    answer: str,
    entries: Sequence[LedgerEntry],
    scorer: SentenceScorer,
    min_support: float = 0.6,
    shortlist: int = 4,
) -> Grounding | None:
    """Per-sentence support and citation validity; None for a refusal or an empty answer."""
    injected = [e for e in entries if e.included]
    labels = {citation_label(e.source, e.page) for e in injected} | {e.source for e in injected}
    evidence = [s for e in injected for s in split_sentences(e.injected_text)]
    sentences = _answer_sentences(answer)
    if not sentences:
        return None
    checks: list[SentenceCheck] = []
    bare = [_CITE_TAIL.sub("", s) or s for s in sentences]
    for s, text in zip(sentences, bare, strict=True):
        cites = tuple(cited_labels(s))
        support, match = _best_support(text, evidence, scorer, shortlist)
        ok = bool(cites) and all(c in labels for c in cites)
        checks.append(SentenceCheck(s, round(support, 4), match, cites, support >= min_support, ok))
    good = sum(1 for c in checks if c.supported and c.citation_ok)
    return Grounding(tuple(checks), good / len(checks))


def _best_support(
    sentence: str, evidence: list[str], scorer: SentenceScorer, shortlist: int
) -> tuple[float, str]:
    """Full-embedding cosine of the best-matching evidence sentence.

    The cheap relevance score shortlists a few evidence sentences first, so a check embeds a
    handful of sentences instead of the whole context (cached vectors are reused)."""
    if not evidence:
        return 0.0, ""
    quick = scorer.relevance(evidence, sentence)
    top = [evidence[int(i)] for i in quick.argsort()[::-1][:shortlist]]
    sims = scorer.vectors(top) @ scorer.vectors([sentence])[0]
    j = int(sims.argmax())
    return float(sims[j]), top[j]
