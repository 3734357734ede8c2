"""Near-duplicate rules: Jaccard, stored-embedding cosine, same-document sentence repeats."""

from __future__ import annotations

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


def test_a_copy_reworded_only_in_function_words_and_inflections_is_a_duplicate() -> None:
    """Chunks are compared by their content words' stems: a copy that says the same with other
    function words and word forms adds nothing (its plain word sets differ by more than a tenth)."""
    reworded = (
        "This ArmX2 collaborative arm lifted the rated payload of 12 kg; it reached 900 mm, repeated "
        "positions within 0.03 mm, drew 350 W from a controller cabinet, weighed 21 kg, mounted on a "
        "floor, a wall or a ceiling bracket, and it shipped with its teach pendant, the safety relay, "
        "a calibration certificate and a cable."
    )
    assert jaccard(word_set(SPEC), word_set(reworded)) < 0.9
    d = Deduper(cosine_min=1.1)
    d.keep(c("k", SPEC, "one.md"))
    assert d.duplicate_of(c("x", reworded, "two.md")) == "k"


def test_the_same_template_for_another_model_is_not_a_duplicate() -> None:
    other = SPEC.replace("ArmX2", "ArmX3").replace("12 kg", "15 kg").replace("900 mm", "1300 mm")
    d = Deduper(cosine_min=1.1)
    d.keep(c("k", SPEC, "armx2.md"))
    assert d.duplicate_of(c("x", other, "armx3.md")) is None


def test_a_text_of_function_words_only_is_never_a_word_duplicate() -> None:
    d = Deduper(cosine_min=1.1)
    d.keep(c("k", "It is what it is.", "one.md"))
    assert d.duplicate_of(c("x", "It was what it was.", "two.md")) is None
