"""Evidence order by relevance: a chunk's best sentence (under its heading) + its similarity,
less a small prior per fused place, decides which chunks the budget walks first."""

from __future__ import annotations

import pytest

from core.answer.refusal import rarity_weights
from core.context.rerank import RANK_PRIOR, best_overlap, by_relevance
from core.scoring import SentenceScorer
from core.types import Candidate, Chunk


def cand(cid: str, text: str, score: float, path: str = "") -> Candidate:
    return Candidate(Chunk(cid, text, f"{cid}.md", {"category": "t", "heading_path": path}), score)


@pytest.fixture(scope="module")
def scorer(resources):  # noqa: ANN001, ANN201
    return SentenceScorer(resources.embedder)


QUESTION = "In what year did the Normans conquer England?"


def test_the_chunk_holding_the_answer_sentence_goes_first(scorer: SentenceScorer) -> None:
    general = cand(
        "a", "The Normans were a people of northern France. Their language was Norman French.", 0.62
    )
    weather = cand("b", "England has a mild climate. Rain falls in every season.", 0.55)
    answer = cand("c", "Harold was crowned king. In 1066 the Normans conquered England at Hastings.", 0.58)
    ranked = by_relevance([general, weather, answer], QUESTION, scorer)
    assert [c.chunk.id for c in ranked][0] == "c"
    assert [c.chunk.id for c in ranked][-1] == "b"


def test_a_list_item_is_read_under_its_heading(scorer: SentenceScorer) -> None:
    item = cand("spec", "- Repeatability: ±0.03 mm\n- Reach: 850 mm", 0.5, "Arm K2 › Key specifications")
    bare = cand("spec", "- Repeatability: ±0.03 mm\n- Reach: 850 mm", 0.5, "")
    question = "What are the key specifications of the arm?"
    assert best_overlap(item, question, scorer) > best_overlap(bare, question, scorer)


def test_a_chunk_of_a_products_page_is_read_with_the_pages_name(scorer: SentenceScorer) -> None:
    def page(cid: str, text: str, path: str) -> Candidate:
        meta = {"category": "t", "heading_path": path, "title": "Harbor H2 Charging Dock"}
        return Candidate(Chunk(cid, text, "docks/h2.md", meta), 0.5)

    specs = page("specs", "- Dock weight: 7.4 kg\n- Input power: 150 W", "Specifications")
    prose = page(
        "prose", "The Harbor H2 dock stands on a roof. The Harbor H2 reports to the fleet server.", "Overview"
    )
    question = "What is the weight of the Harbor H2 dock?"
    # the spec item meets "weight" and, through the page's title, the name the prose repeats
    assert best_overlap(specs, question, scorer) > best_overlap(prose, question, scorer)
    assert by_relevance([prose, specs], question, scorer)[0].chunk.id == "specs"


def test_the_fused_rank_breaks_near_ties(scorer: SentenceScorer) -> None:
    """A chunk ranked one place lower needs more than RANK_PRIOR to pass the one above it."""
    text = "The warranty covers defects in materials for 24 months."
    first, near, clear = (
        cand("1", text, 0.5),
        cand("2", text, 0.5 + RANK_PRIOR / 2),
        cand("3", text, 0.5 + 3 * RANK_PRIOR),
    )
    question = "How long is the warranty?"
    assert [c.chunk.id for c in by_relevance([first, near], question, scorer)] == ["1", "2"]
    assert [c.chunk.id for c in by_relevance([first, clear], question, scorer)] == ["3", "1"]


def test_the_budget_walks_in_relevance_order_by_default(resources, scorer: SentenceScorer) -> None:  # noqa: ANN001
    """With the shipped settings the first entry of the context is the chunk holding the answer,
    though fusion ranked it third; `evidence_order="rank"` keeps the fused order."""
    from core.config import Settings
    from core.context.fit import fit_evidence

    general = cand(
        "a", "The Normans were a people of northern France. Their language was Norman French.", 0.62
    )
    weather = cand("b", "England has a mild climate. Rain falls in every season.", 0.6)
    answer = cand("c", "Harold was crowned king. In 1066 the Normans conquered England at Hastings.", 0.58)
    s = Settings()
    assert s.evidence_order == "relevance"
    got = fit_evidence([general, weather, answer], QUESTION, QUESTION, s, 700, resources.counter, scorer)
    assert [e.chunk_id for e in got.ledger][0] == "c"
    ranked = s.model_copy(update={"evidence_order": "rank"})
    got = fit_evidence([general, weather, answer], QUESTION, QUESTION, ranked, 700, resources.counter, scorer)
    assert [e.chunk_id for e in got.ledger] == ["a", "b", "c"]


def test_unit_packing_keeps_the_retrieval_order(resources, scorer: SentenceScorer) -> None:  # noqa: ANN001
    """Unit packing ranks units itself, with its own prior on the fused rank: the evidence order
    does not re-rank its candidates first."""
    from core.config import Settings
    from core.context.fit import fit_evidence

    general = cand(
        "a", "The Normans were a people of northern France. Their language was Norman French.", 0.62
    )
    weather = cand("b", "England has a mild climate. Rain falls in every season.", 0.6)
    answer = cand("c", "Harold was crowned king. In 1066 the Normans conquered England at Hastings.", 0.58)
    units = Settings().model_copy(update={"packing": "units"})
    ranked = units.model_copy(update={"evidence_order": "rank"})
    got, want = (
        fit_evidence([general, weather, answer], QUESTION, QUESTION, s, 120, resources.counter, scorer)
        for s in (units, ranked)
    )
    assert got.text == want.text and got.ledger == want.ledger


def test_a_sentence_holding_the_questions_rare_word_outweighs_one_holding_its_common_words(
    scorer: SentenceScorer,
) -> None:
    """Weighted by rarity, "located" (in 2 of 1000 passages) counts for more than "Normans",
    "France" and "part", which most passages of an article about the Normans hold."""
    question = "What part of France were the Normans located in?"
    common = cand("a", "In France, the Normans were known as part of the Frankish world.", 0.6)
    rare = cand("b", "The Normans were located in the north.", 0.55)
    weights = rarity_weights(1000, {"part": 300, "france": 700, "normans": 800, "located": 2})
    assert best_overlap(common, question, scorer) > best_overlap(rare, question, scorer)
    assert best_overlap(rare, question, scorer, weights) > best_overlap(common, question, scorer, weights)
    assert by_relevance([common, rare], question, scorer)[0].chunk.id == "a"
    assert by_relevance([common, rare], question, scorer, weights)[0].chunk.id == "b"


def test_overlap_is_the_weighted_share_of_the_questions_stems_met(scorer: SentenceScorer) -> None:
    """overlap() against its definition, on sentences read with a heading: the weight of the
    question's stems found in the sentence or the heading over the weight of all of them."""
    from core.scoring import stem_weights
    from core.stems import STEMMER
    from core.text import content_words

    question = "Which committees scrutinise the government in the Scottish Parliament?"
    sentences = [
        "Committees of the Scottish Parliament scrutinise the government.",
        "The committee met.",
        "Parliament sits in Edinburgh.",
        "Nothing here.",
    ]
    heading = "Scottish government"
    rarity = {"committees": 4.0, "scrutinise": 3.0, "government": 0.5, "scottish": 0.2, "parliament": 0.1}
    q = STEMMER.stem_set(content_words(question))
    extra = STEMMER.stem_set(content_words(heading))
    for weights in (None, rarity):
        w = stem_weights(question, weights) if weights else dict.fromkeys(q, 1.0)
        expected = [
            sum(w[s] for s in q & (STEMMER.stem_set(content_words(x)) | extra)) / sum(w[s] for s in q)
            for x in sentences
        ]
        assert scorer.overlap(sentences, question, heading, weights=weights) == pytest.approx(
            expected, abs=1e-6
        )
    # a word asking for an attribute is met by the attribute's word
    assert scorer.overlap(["Weight: 21 kg."], "How heavy is the ArmX2?")[0] == pytest.approx(0.5)


def test_the_askers_pronouns_weigh_nothing(scorer: SentenceScorer) -> None:
    """A store of "your …" pages rarely holds "my", so by rarity a question's "my" weighed as much
    as its rarest word and lifted any passage that says "My Library"; it is no word a passage must
    hold."""
    question = "How do I send a book to my reader by email?"
    menu = cand("a", "New books appear in My Library after a sync.", 0.6)
    email = cand("b", "Send a book by email to your reader's address.", 0.55)
    weights = rarity_weights(1000, {"send": 40, "book": 300, "my": 1, "reader": 400, "email": 30})
    assert best_overlap(menu, question, scorer, weights) < 0.5 * best_overlap(
        email, question, scorer, weights
    )
    assert by_relevance([menu, email], question, scorer, weights)[0].chunk.id == "b"
