"""Retrieval on the real sample corpus: the right document comes back, scores are honest."""

from __future__ import annotations

import numpy as np
import pytest

from core.config import Settings
from core.query.expand import lexical_query
from core.resources import Models as Resources
from core.retrieval.fusion import rrf
from core.retrieval.retriever import Retriever
from tests.support.stores import index_for as get_index
from tests.support.stores import make_pipeline

# (question, the document that answers it, a fact the retrieved chunk must contain)
QUESTIONS = [
    (
        "What restocking fee is deducted when a product is returned?",
        "policies/returns-and-refunds.txt",
        "15%",
    ),
    (
        "Why did the joint 3 brake on the ArmX3 not release after a protective stop?",
        "engineering/postmortem-joint3-brake.md",
        "same 1 ms control cycle",
    ),
    (
        "What is the hotel limit per night in high-cost cities like London?",
        "policies/travel-and-expenses.md",
        "$300",
    ),
    (
        "For how many working days per year may employees work from another country?",
        "policies/remote-work-policy.txt",
        "20 working days",
    ),
    (
        "Where is telemetry data from European Union customers stored?",
        "policies/data-privacy.html",
        "Frankfurt",
    ),
    (
        "Which performance level and category are the arm safety functions rated?",
        "engineering/safety-certification.pdf",
        "PLd",
    ),
    (
        "How quickly must a SEV1 security incident be acknowledged?",
        "policies/security-incident-response.pdf",
        "15 minutes",
    ),
    (
        "Which algorithm does the Tern planner use for time parameterization?",
        "engineering/motion-planning-architecture.md",
        "TOPP-RA",
    ),
    (
        "How do I re-home the arm after an encoder mismatch error E-211?",
        "support/troubleshooting-armx2.md",
        "Re-home",
    ),
    (
        "How many robots can a single FleetView server manage?",
        "products/rover-m1.txt",
        "up to 40 robots",
    ),
]


@pytest.fixture(scope="module")
def retriever(sample_store: Settings, resources: Resources) -> Retriever:
    return Retriever(get_index(sample_store), resources.embedder)


@pytest.mark.parametrize("mode", ["dense", "hybrid"])
@pytest.mark.parametrize("question,source,fact", QUESTIONS, ids=[q[1] for q in QUESTIONS])
def test_right_document_in_top3(
    retriever: Retriever, mode: str, question: str, source: str, fact: str
) -> None:
    top = retriever.search(question, 3, mode=mode)
    assert len(top) == 3
    sources = [c.chunk.source for c in top]
    assert source in sources, sources
    assert any(c.chunk.source == source and fact in c.chunk.text for c in top), sources


def test_lexical_mode_finds_exact_codes(retriever: Retriever) -> None:
    top = retriever.search("E-508", 3, mode="lexical")
    assert top and all("E-508" in c.chunk.text for c in top)
    assert all(c.lexical_rank is not None and c.dense_rank is None for c in top)


def test_a_comparative_finds_the_attribute_the_documents_name() -> None:
    assert (
        lexical_query("Which is heavier, the K5 or the K7?") == "Which is heavier, the K5 or the K7? weight"
    )
    assert lexical_query("How much more expensive and bigger is it?").endswith("price size")
    # words the documents use themselves, or that ask for one of two things, are left as written
    for question in (
        "Which CH-6A fast charger fits?",
        "How much does it cost?",
        "Which lasts longer?",
        "Is the heavy-duty gripper covered by the company-wide policy?",
    ):
        assert lexical_query(question) == question
    # …but with a model named, "cost" asks for its price (a comparison table's "Price (USD)")
    assert lexical_query("How much does the K7 cost?") == "How much does the K7 cost? price"
    assert lexical_query("How much does the Gripper G5 cost?").endswith("cost? price")  # a name's word
    for priced in ("How much does CarePlus for the K7 cost?", "What does a spare K7 battery cost?"):
        assert lexical_query(priced) == priced  # the cost of another thing than the model


def test_the_lexical_search_finds_the_weight_row_for_how_heavy(retriever: Retriever) -> None:
    """No passage says "heavy" or "heavier": the ArmX3's weight rows are found by "weight"."""
    top = retriever.search("How heavy is the ArmX3?", 3, mode="lexical")
    assert any("ArmX3" in c.chunk.text and "weight" in c.chunk.text.lower() for c in top), [
        c.chunk.source for c in top
    ]
    top = retriever.search("Which is heavier, the ArmX2 or the ArmX3?", 3, mode="lexical")
    assert "weight" in top[0].chunk.text.lower()


def test_scores_are_cosine_similarities(retriever: Retriever, resources: Resources) -> None:
    question = QUESTIONS[0][0]
    found = retriever.search(question, 6, mode="dense")
    assert [c.dense_rank for c in found] == list(range(1, 7))
    scores = [c.score for c in found]
    assert scores == sorted(scores, reverse=True)
    assert all(0.0 <= s <= 1.0 for s in scores)

    q = resources.embedder.embed([question])[0]
    assert abs(float(np.linalg.norm(q)) - 1.0) < 1e-4
    top = found[0]
    # against the vector stored in Chroma ...
    [stored_row] = retriever.index.vectors.get([top.chunk.id])
    stored = stored_row.embedding
    assert top.score == pytest.approx(float(np.dot(q, np.asarray(stored))), abs=1e-4)
    # ... against a fresh embedding of what ingest embedded (the contextual header, then the text) ...
    meta = top.chunk.metadata
    parts = [top.chunk.source.split("/")[0], str(meta["title"]), *str(meta["heading_path"]).split(" › ")]
    header = " › ".join(p for n, p in enumerate(parts) if p and (n == 0 or p.lower() != parts[n - 1].lower()))
    fresh = resources.embedder.embed([f"{header}\n{top.chunk.text}"])[0]
    assert top.score == pytest.approx(float(np.dot(q, fresh)), abs=1e-3)
    # ... and against Chroma's own cosine distance
    [raw] = retriever.index.vectors.query(q, 1, with_embeddings=False)
    assert raw.chunk.id == top.chunk.id and raw.embedding is None
    assert top.score == pytest.approx(1.0 - raw.distance, abs=1e-6)


def test_hybrid_scores_are_dense_similarities_too(retriever: Retriever, resources: Resources) -> None:
    """Chunks found only by the lexical side still carry their cosine similarity."""
    question = "restocking fee waived wrong model dead on arrival"
    q = resources.embedder.embed([question])[0]
    found = retriever.search(question, 8, mode="hybrid")
    assert found
    for c in found:
        assert c.embedding is not None
        expected = min(1.0, max(0.0, float(np.dot(q, np.asarray(c.embedding)))))
        assert c.score == pytest.approx(expected, abs=1e-4)
        assert c.dense_rank is not None or c.lexical_rank is not None
    assert len({c.chunk.id for c in found}) == len(found)


def test_hybrid_reads_only_the_records_fusion_keeps(
    retriever: Retriever, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fusion ranks ids; only the kept ids' records are read (not all 2k dense hits), and a kept
    id whose record is gone makes room for the next fused id."""
    question = "How do I clear error E-104 on the ArmX2?"
    expected = [c.chunk.id for c in retriever.search(question, 4, mode="hybrid")]
    index = retriever.index
    read: list[list[str]] = []
    real_get = index.get

    def counting_get(ids: list[str]) -> list:
        read.append(list(ids))
        return real_get(ids)

    monkeypatch.setattr(index, "get", counting_get)
    monkeypatch.setattr(
        index, "query", lambda *a, **kw: pytest.fail("hybrid read records of every dense hit")
    )
    assert [c.chunk.id for c in retriever.search(question, 4, mode="hybrid")] == expected
    assert read == [expected]

    gone = expected[1]
    read.clear()
    monkeypatch.setattr(index, "get", lambda ids: [v for v in counting_get(ids) if v.chunk.id != gone])
    again = [c.chunk.id for c in retriever.search(question, 4, mode="hybrid")]
    assert len(again) == 4 and gone not in again
    assert again[:3] == [cid for cid in expected if cid != gone]
    assert len(read) == 2 and read[1] == again[3:]


def test_candidates_carry_chunk_metadata(retriever: Retriever) -> None:
    [top] = retriever.search("Which performance level are the safety functions rated?", 1, "dense")
    meta = top.chunk.metadata
    assert top.chunk.source == meta["source"] == "engineering/safety-certification.pdf"
    assert meta["page"] in (1, 2, 3) and top.chunk.category == "engineering"
    assert top.chunk.tokens == meta["tokens"] > 0


def test_min_score_filter(sample_store: Settings) -> None:
    """Retrieval keeps every candidate; the budget records those under min_score as such."""
    question = QUESTIONS[1][0]
    unfiltered = make_pipeline(sample_store, backend=None).search(question)
    scores = [c.score for c in unfiltered]
    cut = round((max(scores) + min(scores)) / 2, 4)
    trace = make_pipeline(sample_store.updated(min_score=cut), backend=None).ask(question, record=False).trace
    below = {c["chunk_id"] for c in trace["chunks"] if c["fate"] == "below_min_score"}
    assert below == {c.chunk.id for c in unfiltered if round(c.score, 4) < cut}
    assert below and len(below) < len(unfiltered)


def test_search_returns_top_k(sample_store: Settings) -> None:
    s = sample_store.model_copy(update={"top_k": 4, "min_score": 0.0, "packing": "chunks"})
    assert len(make_pipeline(s, backend=None).search("warranty of the robot arms")) == 4
    # unit packing retrieves wider; the blind baseline still takes the top k
    units = make_pipeline(s.model_copy(update={"packing": "units", "pack_candidates": 12}), backend=None)
    assert len(units.search("warranty of the robot arms")) == 12
    assert len(units.search("warranty of the robot arms", baseline=True)) == 4


def test_rrf() -> None:
    fused = rrf([["a", "b", "c"], ["c", "a", "d"]], k=60)
    # a: 1/61 + 1/62, c: 1/63 + 1/61, b: 1/62, d: 1/63
    assert fused == ["a", "c", "b", "d"]
    assert rrf([["x"], ["y"]]) == ["x", "y"]  # a tie keeps first-seen order
    assert rrf([]) == [] and rrf([[], []]) == []
    # an id found by only one ranking is still fused in; agreement between rankings wins
    assert rrf([["p", "q"], ["r", "q"]], k=1) == ["q", "p", "r"]
    # k sets how much the top ranks dominate: 1st + 9th beats 5th + 4th with a small k,
    # and loses to it with the usual k=60, which rewards agreement over a single first place
    a = ["w", "x", "y", "z", "s", "t", "u", "v", "m"]
    b = ["n", "o", "p", "s", "q", "r", "g", "h", "w"]
    assert rrf([a, b], k=1).index("w") < rrf([a, b], k=1).index("s")
    assert rrf([a, b], k=60).index("s") < rrf([a, b], k=60).index("w")


def test_a_version_or_code_is_one_lexical_term() -> None:
    from core.index.lexical import fts_query

    assert fts_query("What date did firmware 4.1.3 come out?") == '"date" OR "firmware" OR "4.1.3" OR "come"'
    assert '"e-330"' in fts_query("How do I clear E-330?")
