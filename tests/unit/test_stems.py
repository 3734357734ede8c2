"""Stems: the lexical index's porter terms, and the sentence scorer matching words by them."""

from __future__ import annotations

import numpy as np
import pytest

from core.scoring import SentenceScorer
from core.stems import STEMMER, Stemmer
from core.text import content_words


def test_stems_are_the_index_terms() -> None:
    s = Stemmer()
    got = s.terms(["invented", "Invention", "engines", "E-412", "..."])
    assert got["invented"] == got["Invention"] == ("invent",)
    assert got["engines"] == ("engin",)
    assert got["E-412"] == ("e", "412") and got["..."] == ()
    assert s.stem_set(["invented", "inventions", "engine"]) == {"invent", "engin"}
    assert STEMMER.terms(["running"]) == {"running": ("run",)}


def test_relevance_matches_question_words_by_stem(resources) -> None:  # noqa: ANN001
    """The word-overlap half counts "invented" in "inventions" and "engines" in "engine"."""
    scorer = SentenceScorer(resources.embedder)
    emb = resources.embedder
    question, sentence = "Who invented the engines?", "Her inventions included an engine."
    [got] = scorer.relevance([sentence], question)
    qv, sv = emb.static_rows(emb.word_pieces([question, sentence]))
    cos = float(np.dot(sv, qv))
    assert got == pytest.approx(0.5 * cos + 0.5 * 1.0, abs=1e-5)
    [none] = scorer.relevance(["The weather was mild."], question)
    assert none < got


def test_a_word_asking_for_an_attribute_is_met_by_the_attribute(resources) -> None:  # noqa: ANN001
    """A word asking for an attribute: "cost" is met by a row's "price", "heavy" by "weight"."""
    scorer = SentenceScorer(resources.embedder)
    rows = ["| List price | $38,900 |", "| Reach | 1,300 mm |", "The cost and the price rose."]
    assert scorer.overlap(rows, "How much does the arm cost?").tolist() == pytest.approx([0.5, 0.0, 0.5])
    assert scorer.overlap(["Weight: 21 kg"], "How heavy is it?").tolist() == [1.0]
    assert scorer.overlap(["Weight: 21 kg"], "What is the weight?").tolist() == [1.0]  # no alternative
    # and by the attribute's verb of its root ("weighs"), not by another word asking for it ("lighter")
    texts = ["Height: 10 cm; the robot weighs 4.6 kg", "The Pro is lighter."]
    assert scorer.overlap(texts, "How heavy is it?").tolist() == [1.0, 0.0]


def test_an_acronym_in_the_question_is_met_by_its_spelled_out_form(resources) -> None:  # noqa: ANN001
    """ "EU" is met by "European Union", "CEO" by "Chief Executive Officer"; not by lower-case words
    that happen to share the initials, and not when the question writes the word in lower case."""
    scorer = SentenceScorer(resources.embedder)
    texts = [
        "Data from customers in the European Union is stored in Frankfurt.",
        "Each user may ask for a copy.",
        "Helena Marsh is the Chief Executive Officer.",
    ]
    assert scorer.overlap(texts, "EU data?").tolist() == pytest.approx([1.0, 0.0, 0.0])
    assert scorer.overlap(texts, "eu data?").tolist() == pytest.approx([0.5, 0.0, 0.0])  # no acronym asked
    assert scorer.overlap(texts, "Who is the CEO?").tolist() == pytest.approx([0.0, 0.0, 1.0])


def test_an_acronym_is_met_by_a_code_that_starts_with_it(resources) -> None:  # noqa: ANN001
    """ "IP rating" asks for "IP54": a code written with the acronym's letters meets it; the same
    letters inside a word ("SHIPPING") or in lower case do not."""
    scorer = SentenceScorer(resources.embedder)
    texts = ["Ingress protection: IP54", "Shipping weight: 4 kg", "SHIPPING: 4 kg", "ip54 sealing kit"]
    assert scorer.overlap(texts, "IP rating?").tolist() == pytest.approx([0.5, 0.0, 0.0, 0.0])


def test_what_is_left_of_a_contraction_is_no_word_to_meet(resources) -> None:  # noqa: ANN001
    """ "What's" and "G5's" split at the apostrophe into "s", which every possessive would meet."""
    assert content_words("What's the G5's rating? Isn't it sealed, and don't they say?") == {
        "g5", "rating", "sealed", "say",
    }  # fmt: skip
    scorer = SentenceScorer(resources.embedder)
    texts = ["The gripper's closing time is 0.35 s.", "Ingress protection rating: IP54"]
    assert scorer.overlap(texts, "What's the rating of the gripper?").tolist() == pytest.approx([0.5, 0.5])


def test_content_words_fold_latin_accents_only() -> None:
    # as the lexical index's tokenizer reads them (remove_diacritics): "Yesun" asked, "Yesün" written
    assert content_words("When Yesün Temür died in Zürich") == {"yesun", "temur", "died", "zurich"}
    assert content_words("Yesun Temur") <= content_words("Yesün Temür")
    # other scripts keep their marks (a kana's dakuten tells two words apart); only accents go
    assert content_words("がぎ かき m² café") == {"がぎ", "かき", "m²", "cafe"}
