"""Grounding check, per answer sentence: is it supported by the injected context, does its citation
name a chunk that was injected, is it about the entity the question names (not a sibling model),
and do its numbers appear in the evidence that supports it? For extractive and LLM answers alike."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from core.answer import difference, superlative
from core.answer.citations import cited_labels, strip_citations
from core.answer.compose import POINTER, title_of
from core.answer.evidence import Scored, score_units
from core.context.knowledge import citation_label
from core.query.entities import conflicts, entities, question_entities
from core.scoring import SentenceScorer
from core.text import split_sentences, strip_markup
from core.types import LedgerEntry


@dataclass(frozen=True)
class SentenceCheck:
    sentence: str  # the answer's sentence as read (its citation kept; list marker and markup removed)
    support: float  # cosine to the best-matching injected sentence
    best_match: str
    citations: tuple[str, ...]
    supported: bool
    citation_ok: bool  # cites at least one injected chunk and nothing that was not injected
    about: tuple[str, ...] = ()  # the other entities it is about, when not the one asked
    numbers_ok: bool = True  # every number in it appears in its best-matching evidence
    problem: str = ""  # why it is flagged, in words ("" when it passes every check)

    @property
    def ok(self) -> bool:
        return not self.problem

    def as_dict(self) -> dict[str, object]:
        d = asdict(self)
        d["citations"] = list(self.citations)
        d["about"] = list(self.about)
        d["ok"] = self.ok
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
    question: str = "",
    min_support: float = 0.6,
    shortlist: int = 4,
) -> Grounding | None:
    """Per-sentence checks; None for a refusal or an empty answer."""
    injected = [e for e in entries if e.included]
    labels = {citation_label(e.source, e.page) for e in injected} | {e.source for e in injected}
    scored = score_units(question, injected, scorer) if injected else None
    evidence = list(scored.units) if scored else []
    titles = {_plain(title_of(h)) for x in evidence for h in x.unit.path}
    sentences = [s for s in _answer_sentences(answer) if not _is_framing(s, titles, labels)]
    if not sentences:
        return None
    wanted = question_entities(question)
    # what a sentence can be supported by: each unit as the answer quotes it, and each list's lead-in
    leads = list(dict.fromkeys(x.lead for x in evidence if x.lead and not x.conflict))
    texts = [x.unit.text if x.unit.kind == "item" else x.text for x in evidence] + leads
    own = bool(scored and scored.own)  # it asks for an attribute of what it names
    # as a reader reads them (no list marker, no **bold**), without their citations
    read = [strip_citations(t) or t for t in (strip_markup(_MARKER.sub("", s)) for s in sentences)]
    checks = [
        _check(s, evidence, texts, labels, wanted, own, scorer, min_support, shortlist, read, question)
        for s in sentences
    ]
    good = sum(1 for c in checks if c.ok)
    return Grounding(tuple(checks), good / len(checks))


def _check(
    s: str, evidence: list[Scored], texts: list[str], labels: set[str], wanted: set[str], own: bool,
    scorer: SentenceScorer, min_support: float, shortlist: int, answer: Sequence[str] = (), question: str = "",
) -> SentenceCheck:  # fmt: skip
    shown = strip_markup(_MARKER.sub("", s))  # as a reader reads it: no list marker, no **bold**
    text = strip_citations(shown) or shown
    cites = tuple(cited_labels(s))
    cited_ok = bool(cites) and all(c in labels for c in cites)
    uncited = "" if cited_ok else "missing citation" if not cites else "cites a chunk that was not injected"
    leads = texts[len(evidence) :]
    pool = " ".join([*(x.text for x in evidence if not x.conflict), *leads])
    # a difference the answer computed: its inputs in the evidence and, with their names, in the
    # answer's other (checked) sentences, and its arithmetic
    computed, what = difference.verify(text, pool, answer, question), "difference"
    if computed is None:  # or which one holds the extreme value of a quoted row
        computed, what = superlative.verify(s, answer), "extreme"
    if computed is not None:
        return SentenceCheck(
            shown, float(computed), "computed from the compared values", cites, computed, cited_ok, (),
            computed, uncited if computed else f"a computed {what} that the evidence does not give",
        )  # fmt: skip
    support, best = _best_support(text, texts, scorer, shortlist)
    unit = evidence[best] if best is not None and best < len(evidence) else None  # a lead-in: no unit
    match = texts[best] if best is not None else ""
    # a table's column, or part of a row, as a superlative quotes it: no one unit reads like it
    if support < min_support and superlative.quotes_table(text, [x.unit for x in evidence if not x.conflict]):
        support, unit, match = 1.0, None, "quoted from a table, cell by cell"
    about = sorted(
        conflicts(
            wanted, set(unit.scope) if unit else set(), entities(text), unit.around if unit else (), own=own
        )
    )
    numbers_ok = all(n in pool.replace(",", "") for n in _NUMBER.findall(text.replace(",", "")))
    problem = ""
    if support < min_support:
        problem = "unsupported by the injected context"
    elif about:
        problem = f"about {', '.join(about)}; the question asks about {', '.join(sorted(wanted))}"
    elif not numbers_ok:
        problem = "a number in it is not in the evidence that supports it"
    else:
        problem = uncited
    return SentenceCheck(
        shown, round(support, 4), match, cites, support >= min_support, cited_ok,
        tuple(about), numbers_ok, problem,
    )  # fmt: skip


def _plain(text: str) -> str:
    return " ".join(text.lower().split())


def _is_framing(sentence: str, titles: set[str], labels: set[str]) -> bool:
    """An answer's title line ("Return window (a.md):", "From a.md:"): a heading of the evidence or
    the source it names, ending with a colon; or its pointer to an injected source for the rest
    ("… (the full procedure is in a.md)"). It frames the claims and is not one itself."""
    m = POINTER.match(_MARKER.sub("", sentence.strip()))  # also as a list's last line ("- … (the other …)")
    if m:
        return m.group(1) in labels
    text = strip_citations(sentence).strip()
    if not text.endswith(":"):
        return False
    text = _plain(text[:-1])
    return text in titles or (text.startswith("from ") and bool(cited_labels(f"({text[5:]})")))


_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w])")
_MARKER = re.compile(r"^\s*(?:[-*•]|\d{1,3}[.)])\s+")


def _best_support(
    sentence: str, evidence: list[str], scorer: SentenceScorer, shortlist: int
) -> tuple[float, int | None]:
    """Full-embedding cosine of the best-matching evidence unit, and its index.

    The cheap relevance score shortlists a few evidence units first, so a check embeds a handful
    of texts instead of the whole context (cached vectors are reused)."""
    if not evidence:
        return 0.0, None
    quick = scorer.relevance(evidence, sentence, typed=False)
    top = [int(i) for i in quick.argsort()[::-1][:shortlist]]
    sims = scorer.vectors([evidence[i] for i in top]) @ scorer.vectors([sentence])[0]
    j = int(sims.argmax())
    return float(sims[j]), top[j]
