"""The refusal rule: weak evidence → the exact refusal sentence, no LLM call, and the reason.

Evidence is weak when nothing survived budgeting, when the context is thinner than the minimum,
or when the best chunk is semantically far from the question (top score under τ) *and* the
evidence shares few of the question's words (overlap under the minimum). The second condition is
there because the small bundled embedder scores some in-domain questions low although the
evidence names exactly what they ask about, while off-topic questions are low on both.

The overlap is read twice, and the smaller reading counts: the share of the question's words one
passage holds, and the same share with each word weighted by its rarity in the store (BM25's idf):
a word most passages hold ("speed", "number", "film" in a store about them) says little about
whether the question is about the documents, so an off-topic question that meets only such a word
("Which element has atomic number 26?" against "a dynamic number of UI elements") is not let
through by it, while a question that meets its rare words still is.

Nor does the overlap let a question through when no injected passage (with its title and
headings) holds a name the question writes, by stem (a capitalised word not opening a sentence,
as the user wrote it, not a follow-up's added terms): "Who directed the film Spirited Away?" meets
"film" in a passage about another film (an abbreviation in capitals is held when a passage writes
it out: "PO", "the Presiding Officer"). On ../shared/eval this refused 7 more of SQuAD's
unanswerable questions ("In what colony was the town of Delft?") and one more off-topic question,
and no answerable one; on the five review corpora of product documents it changed no answer.

The Decision carries every check with its values, so the inspector shows the rule as decided and
never re-derives it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass

from core.query.entities import entity_tokens
from core.query.unknown_names import written_names
from core.scoring import acronyms_of, spelled_out
from core.stems import STEMMER
from core.text import content_words


@dataclass(frozen=True)
class Check:
    """One condition of the rule as evaluated: its name, whether it passed, and why in words."""

    name: str
    passed: bool
    detail: str


@dataclass(frozen=True)
class Decision:
    refused: bool
    reason: str = ""
    checks: tuple[Check, ...] = ()

    def as_dict(self) -> dict[str, object]:
        return {"refused": self.refused, "reason": self.reason, "checks": [asdict(c) for c in self.checks]}


NOT_APPLIED = Decision(False, "", (Check("rule", True, "blind top-k run (no refusal rule)"),))


def evidence_overlap(question: str, texts: Iterable[str]) -> float:
    """The largest share of the question's content words that appear in one evidence text."""
    return overlaps(question, texts)[0]


def overlaps(
    question: str, texts: Iterable[str], weights: Mapping[str, float] | None = None
) -> tuple[float, float]:
    """The largest share of the question's content words one evidence text holds, counted plainly
    and weighted (weights: per content word, e.g. rarity_weights; a word without one weighs as
    much as the heaviest; None: the weighted share is the plain one)."""
    q = content_words(question)
    if not q:
        return 0.0, 0.0
    held = [q & content_words(t) for t in texts]
    plain = max((len(h) / len(q) for h in held), default=0.0)
    if weights is None:
        return plain, plain
    top = max((weights.get(w, 0.0) for w in q), default=0.0)
    w = {x: weights.get(x, top) for x in q}
    total = sum(w.values())
    if total <= 0:
        return plain, plain
    return plain, max((sum(w[x] for x in h) / total for h in held), default=0.0)


def unheld_names(question: str, texts: Iterable[str]) -> list[str]:
    """The names the question writes (its capitalised words, core/query/unknown_names.py) that no
    evidence text holds, by the lexical index's stems ("Normans" is held by "Norman"): "Switzerland"
    of "What is the currency of Switzerland?" when the evidence is a passage about a currency
    elsewhere. texts: each passage with its title and headings, as the prompt shows them."""
    names = list(dict.fromkeys(written_names(question)))
    if not names:
        return []
    texts = list(texts)
    held = STEMMER.stem_set(set().union(*(content_words(t) for t in texts)))
    return [
        n
        for n in names
        if not STEMMER.stem_set(content_words(n)) <= held
        and not any(spelled_out(acronyms_of(n), t) for t in texts)
    ]  # an abbreviation a passage writes out is held ("PO": "the Presiding Officer")


WordCounts = tuple[int, Mapping[str, int]]  # the store's passage count, and how many hold each word


def rarity_weights(n: int, counts: Mapping[str, int]) -> dict[str, float]:
    """Each word's weight by how few of the n passages hold it: BM25's idf in Lucene's form,
    log(1 + (n − df + 0.5) / (df + 0.5)), which is never negative (at n = 1000 a word in every
    passage weighs 0.0005, one in ten passages 4.5, one in none 7.6)."""
    return {w: math.log(1 + (n - df + 0.5) / (df + 0.5)) for w, df in counts.items()}


def rarity(query: str, counts: WordCounts | None) -> dict[str, float] | None:
    """The query's content words weighted by how few of the store's passages hold them; the words
    of a model name, version or code the store holds ("G5", "NC-300") weigh as much as the rarest
    word, however many passages name it: a question naming one of the store's models is about the
    documents ("Is the G5 waterproof?" when no passage says "waterproof")."""
    if counts is None:
        return None
    n, df = counts
    weights = rarity_weights(n, df)
    named = {w for token in entity_tokens(query) for w in content_words(token) if df.get(w)}
    top = max(weights.values(), default=0.0)
    return weights | dict.fromkeys(named & weights.keys(), top)


def _similarity_check(
    top_score: float | None,
    tau: float,
    overlap: float,
    min_overlap: float,
    plain: float | None = None,
    unheld: Sequence[str] = (),
) -> Check:
    score_ok = top_score is not None and top_score >= tau
    overlap_ok = overlap >= min_overlap
    shown = "none" if top_score is None else f"{top_score:.3f}"
    how = f" (by rarity; {plain:.2f} counted plainly)" if plain is not None and plain != overlap else ""
    detail = (
        f"top score {shown} {'≥' if score_ok else '<'} τ {tau:.2f} · query-word overlap "
        f"{overlap:.2f}{how} {'≥' if overlap_ok else '<'} {min_overlap:.2f}"
    )
    if overlap_ok and not score_ok:
        detail += (
            f" (the overlap would let it through, but no injected passage holds {_quoted(unheld)})"
            if unheld
            else " (the overlap lets it through)"
        )
    return Check("similarity", score_ok or (overlap_ok and not unheld), detail)


def _quoted(names: Sequence[str]) -> str:
    return " or ".join(f"“{n}”" for n in names)


def decide(
    top_score: float | None,
    context_tokens: int,
    tau: float,
    min_tokens: int,
    overlap: float = 0.0,
    min_overlap: float = 1.0,
    min_score: float = 0.0,
    plain_overlap: float | None = None,
    unheld: Sequence[str] = (),
) -> Decision:
    """Refuse when nothing survived, the context is too thin, or the best score is under τ while
    the word overlap is under min_overlap (min_overlap 1.0: only a full match is let through) or
    the evidence does not hold a name the question writes (unheld, unheld_names): the overlap
    lets a question through because the evidence holds what it asks about, and a question whose
    name it does not hold is about something else ("What is the currency of Switzerland?" meeting
    only "currency"). min_score: the budget's score floor, named in the reason when no candidate
    reached it; plain_overlap: the overlap counted plainly, shown beside the one the rule reads
    when that is the smaller, rarity-weighted reading."""
    # nothing reached the budget's score floor: the question is far from every passage
    far = (
        f"best score {top_score:.3f} < minimum {min_score:.2f}"
        if top_score is not None and top_score < min_score
        else ""
    )
    evidence = Check(
        "evidence",
        top_score is not None and context_tokens > 0,
        f"{context_tokens} context tokens injected"
        if context_tokens
        else f"no evidence injected (0 context tokens{'; ' + far if far else ''})",
    )
    similarity = _similarity_check(top_score, tau, overlap, min_overlap, plain_overlap, unheld)
    thin = Check(
        "min_context",
        context_tokens >= min_tokens,
        f"context tokens {context_tokens} {'≥' if context_tokens >= min_tokens else '<'} min {min_tokens}"
        if min_tokens
        else "no minimum context set",
    )
    checks = (evidence, similarity, thin)
    if not evidence.passed:
        if far:
            return Decision(True, f"no passage is close to the question: {far}", checks)
        return Decision(True, "no evidence survived retrieval and budgeting", checks)
    if not similarity.passed:
        reason = f"top score {top_score:.3f} < τ {tau:.2f} and " + (
            f"query-word overlap {overlap:.2f} < {min_overlap:.2f}"
            if overlap < min_overlap
            else f"no injected passage holds {_quoted(unheld)}"
        )
        return Decision(True, reason, checks)
    if not thin.passed:
        return Decision(True, f"context {context_tokens} tokens < minimum {min_tokens}", checks)
    return Decision(False, "", checks)
