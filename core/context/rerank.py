"""Evidence order by relevance: the candidates re-ranked by their best sentence for the question.

Fusion ranks whole chunks, and the budget's first entries decide what the context holds (at 700
tokens, two or three chunks whole). Each chunk's key is OVERLAP × the share of the question's
words (by stem) in its best sentence, each sentence read with the chunk's nearest heading (a list
item "Repeatability: ±0.03 mm" under "Key specifications") and, on a page whose title names a
product, with that title (the page's spec list meets the name its prose repeats), plus the chunk's
dense similarity, less RANK_PRIOR per place in the fused ranking. Measured with a one-off script over
`Pipeline.search` (the top 8 of each question whose answer they hold), the chunk holding the
answer is first / in the first two / in the first three: SQuAD (581 questions) 76.9 / 88.6 /
93.8% fused → 84.0 / 92.8 / 95.9%; the sample corpus's data/eval.jsonl (105) 76.2 / 89.5 / 98.1%
→ 79.0 / 96.2 / 98.1%. Adding the sentences' static-vector cosine (the answerer's whole relevance)
gave about the same (SQuAD 85.0 / 92.9 / 96.0%, eval.jsonl 79.0 / 94.3 / 98.1%) at about 4× the
cost (the vectors of every candidate's sentences). With the store's word counts (the prompt step
passes them), the share is of the words' rarity weights, so a sentence holding the question's rare
word ("located") outweighs one holding the words every passage of the article has ("Normans",
"France"): over all 1299 answerable SQuAD questions at 700 tokens the first entry holds the answer
for 1061 (1062 counted plainly) and the context for 1226 (1223); the answers gain more (README). A
heavier OVERLAP with the weights puts the answer first more often (1.0: 1090) but answered worse
(SQuAD 1092 → 1090 right, 4 fewer unanswerable questions refused) and lost on the product sets."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from core.context.dedupe import sentences_of
from core.context.focus import title_entities
from core.prepared import text_current
from core.scoring import SentenceScorer
from core.types import Candidate

OVERLAP = 0.5  # weight of the best sentence's word overlap beside the dense similarity
RANK_PRIOR = 0.04  # per place in the fused ranking

# what each Settings.evidence_order walks by, in words (the inspector shows it above the ledger)
ORDERS = {
    "relevance": "each chunk's best sentence's share of the question's words + its similarity, "
    "less a little per place in the retrieval ranking",
    "rank": "the retrieval ranking (dense and lexical fused)",
    "score": "the dense similarity",
}


def walk_order(evidence_order: str, packing: str, baseline: bool = False) -> str:
    """The order a question's candidates are actually walked in: the setting's for the whole-chunk
    walk; the retrieval order for the blind baseline and for unit packing (it ranks units itself,
    with its own prior on the fused rank)."""
    return "rank" if baseline or packing != "chunks" else evidence_order


def best_overlap(
    c: Candidate, question: str, scorer: SentenceScorer, weights: Mapping[str, float] | None = None
) -> float:
    """The share of the question's words in the candidate's best sentence (as injected), read
    with the chunk's nearest heading and the title of a page that names a product (weights: the
    question's words weighted by rarity, core/answer/refusal.py; None: counted plainly)."""
    sentences = sentences_of(c)
    p = c.chunk.prepared
    stems = p.stems if p is not None and text_current(p) else None
    if not sentences:
        return 0.0
    heading = str(c.chunk.metadata.get("heading_path", "")).split(" › ")[-1]
    if title_entities(c):  # a product's page: every chunk of it meets its name, not only the prose
        heading = f"{c.chunk.metadata['title']} {heading}"  # that repeats it ("Weight: 420 g" under "Specifications")
    return float(scorer.overlap(sentences, question, heading, stems, weights).max())


def by_relevance(
    candidates: Sequence[Candidate],
    question: str,
    scorer: SentenceScorer,
    weights: Mapping[str, float] | None = None,
) -> list[Candidate]:
    """The candidates by OVERLAP × best overlap + dense similarity - RANK_PRIOR × rank, highest
    first (ties keep rank order)."""
    keys = [
        OVERLAP * best_overlap(c, question, scorer, weights) + c.score - RANK_PRIOR * i
        for i, c in enumerate(candidates)
    ]
    order = sorted(range(len(candidates)), key=lambda i: -keys[i])
    return [candidates[i] for i in order]
