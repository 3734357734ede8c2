"""Near-duplicate rules: Jaccard, stored-embedding cosine, same-document sentence repeats."""

from __future__ import annotations

import dataclasses

import pytest

from core.context.dedupe import Deduper, jaccard, word_set
from core.types import Candidate, Chunk
from tests.support.stores import make_pipeline


def c(cid: str, text: str, source: str = "a.md", emb: tuple[float, ...] | None = None) -> Candidate:
    return Candidate(Chunk(cid, text, source, {}), 0.5, emb)


def test_jaccard_math() -> None:
    assert jaccard(word_set("a b c"), word_set("a b c")) == 1.0
    assert jaccard(word_set("a b"), word_set("c d")) == 0.0


def test_near_duplicate_by_words_across_documents() -> None:
    base = " ".join(f"word{i}" for i in range(40))
    d = Deduper()
    d.keep(c("k", base, "one.md"))
    assert d.duplicate_of(c("x", base + " word41", "two.md")) == "k"  # 40/41 ≥ 0.9
    assert d.duplicate_of(c("y", " ".join(f"other{i}" for i in range(40)), "two.md")) is None


def test_near_duplicate_by_stored_embedding() -> None:
    d = Deduper(cosine_min=0.95)
    d.keep(c("k", "The arm lifts five kilograms.", emb=(1.0, 0.0)))
    assert d.duplicate_of(c("x", "Completely different wording here.", "b.md", emb=(0.99, 0.141))) == "k"
    assert d.duplicate_of(c("y", "Completely different wording here.", "b.md", emb=(0.0, 1.0))) is None


def test_same_document_repeat_without_new_sentences() -> None:
    d = Deduper()
    d.keep(c("k", "First fact. Second fact about torque. Third fact about reach.", "doc.md"))
    assert d.duplicate_of(c("x", "Second fact about torque. Third fact about reach.", "doc.md")) == "k"
    # a new sentence makes it worth keeping
    assert d.duplicate_of(c("y", "Third fact about reach. A brand new fact.", "doc.md")) is None
    # the rule is per document
    assert d.duplicate_of(c("z", "Second fact about torque.", "other.md")) is None


def test_sample_corpus_copied_warranty_paragraph_is_deduped(sample_store) -> None:  # noqa: ANN001

    p = make_pipeline(sample_store, backend=None)
    t = p.ask("How many months of warranty cover Northwind robot arms?", record=False).trace
    dups = [x for x in t["chunks"] if x["fate"] == "duplicate"]
    kept = {x["chunk_id"] for x in t["chunks"] if x["fate"] in ("kept", "summarised", "truncated")}
    for x in dups:
        assert x["duplicate_of"] in kept


def test_the_size_shortcut_keeps_a_pair_exactly_at_the_threshold() -> None:
    """14 of 25 words is a Jaccard of exactly 0.56: a duplicate at 0.56, as jaccard() computes it."""
    words = [f"w{i}" for i in range(25)]
    big = c("big", " ".join(words), "a.md")
    small = c("small", " ".join(words[:14]), "b.md")
    deduper = Deduper(jaccard_min=0.56, cosine_min=1.1)
    deduper.keep(big)
    assert deduper.duplicate_of(small) == big.chunk.id


SPEC = (
    "The ArmX2 collaborative arm lifts a rated payload of 12 kg, reaches 900 mm, repeats positions "
    "within 0.03 mm, draws 350 W from the controller cabinet, weighs 21 kg, mounts on floor, wall or "
    "ceiling brackets, and ships with the teach pendant, safety relay, calibration certificate and cable."
)


LINE = "The ArmX2 arm lifts 12 kg, reaches 900 mm and weighs 21 kg on the standard floor mount."


@pytest.mark.parametrize(
    ("one", "other"),
    [
        (SPEC, SPEC.replace("ArmX2", "ArmX3").replace("12 kg", "15 kg").replace("900 mm", "1300 mm")),
        # a word the stems would drop or merge: a one-letter model, a negation, a model's suffix
        (LINE.replace("ArmX2", "Model S"), LINE.replace("ArmX2", "Model T")),
        (LINE + " Remote work is allowed.", LINE + " Remote work isn't allowed."),
        (LINE.replace("ArmX2", "D3"), LINE.replace("ArmX2", "D3s")),
    ],
)
def test_a_copy_that_differs_in_a_name_a_number_or_a_negation_is_kept(one: str, other: str) -> None:
    """Chunks are compared by their words as written (lower-cased), not by their stems or
    content words only: two pages of one template about two models are both evidence."""
    d = Deduper(cosine_min=1.1)
    d.keep(c("k", one, "one.md"))
    assert d.duplicate_of(c("x", other, "two.md")) is None


def test_the_word_set_stored_at_ingest_is_the_one_compared(resources) -> None:  # noqa: ANN001
    from core.prepared import Preparer

    prepare = Preparer.of(resources.counter, resources.embedder)
    d = Deduper(cosine_min=1.1)
    kept = Chunk("k", SPEC, "one.md", {})
    d.keep(Candidate(dataclasses.replace(kept, prepared=prepare(SPEC)), 0.5))
    # a Prepared whose word set says the text is another: the stored set is what is read
    other = "A wholly different passage about the warranty terms and the spare parts list."
    forged = dataclasses.replace(Chunk("x", other, "two.md", {}), prepared=prepare(SPEC))
    assert d.duplicate_of(Candidate(forged, 0.5)) == "k"
    assert d.duplicate_of(Candidate(Chunk("y", other, "two.md", {}), 0.5)) is None


def test_texts_of_function_words_that_differ_are_not_duplicates() -> None:
    d = Deduper(cosine_min=1.1)
    d.keep(c("k", "It is what it is.", "one.md"))
    assert d.duplicate_of(c("x", "It was what it was.", "two.md")) is None
