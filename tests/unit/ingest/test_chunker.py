"""Chunking with the real tiktoken counter and the real embedder's word-piece counts."""

from __future__ import annotations

import random

import pytest

from core.config import Settings
from core.resources import Models as Resources
from core.text import split_sentences
from ingest.chunker import Chunker
from tests.support.stores import index_for as get_index


def _chunker(res: Resources, size: int, overlap: int) -> Chunker:
    e = res.embedder
    return Chunker(res.counter, size, overlap, e.max_tokens, e.count_tokens)


def _sentences(n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    nouns = ["arm", "rover", "gripper", "controller", "pendant", "camera", "battery", "brake"]
    verbs = ["moves", "stops", "charges", "reports", "detects", "holds", "releases", "measures"]
    return [
        f"Sentence {i}: the {rng.choice(nouns)} {rng.choice(verbs)} the "
        f"{rng.choice(nouns)} after {rng.randint(2, 900)} cycles."
        for i in range(n)
    ]


def _check_limits(res: Resources, chunks: list, size: int) -> None:
    pieces = res.embedder.count_tokens([c.text for c in chunks])
    for c, wp in zip(chunks, pieces, strict=True):
        assert c.tokens == res.counter.count(c.text)
        assert 0 < c.tokens <= size, c.text[:80]
        assert wp <= res.embedder.max_tokens, c.text[:80]


def test_chunks_respect_size_and_keep_every_sentence(resources: Resources) -> None:
    sents = _sentences(120)
    text = "\n\n".join(" ".join(sents[i : i + 4]) for i in range(0, len(sents), 4))
    chunks = _chunker(resources, 64, 16).chunk(text)
    assert len(chunks) > 5
    _check_limits(resources, chunks, 64)
    joined = "\n".join(c.text for c in chunks)
    assert all(s in joined for s in sents)  # nothing lost
    # chunks are in document order
    firsts = [next(i for i, s in enumerate(sents) if s in c.text) for c in chunks]
    assert firsts == sorted(firsts)


def test_consecutive_chunks_overlap(resources: Resources) -> None:
    text = " ".join(_sentences(80, seed=1))  # one long paragraph: only sentence boundaries
    chunks = _chunker(resources, 64, 24).chunk(text)
    assert len(chunks) > 4
    for a, b in zip(chunks, chunks[1:], strict=False):
        first_of_b = split_sentences(b.text)[0]
        assert first_of_b in a.text, "the next chunk starts with the previous chunk's tail"
        assert a.text.endswith(first_of_b) or first_of_b in split_sentences(a.text)
        shared = sum(1 for s in split_sentences(b.text) if s in split_sentences(a.text))
        assert resources.counter.count(" ".join(split_sentences(b.text)[:shared])) <= 24


def test_no_overlap_when_zero(resources: Resources) -> None:
    text = " ".join(_sentences(60, seed=2))
    chunks = _chunker(resources, 64, 0).chunk(text)
    seen: set[str] = set()
    for c in chunks:
        sents = set(split_sentences(c.text))
        assert not sents & seen
        seen |= sents


def test_paragraph_boundaries_preferred(resources: Resources) -> None:
    # paragraphs of ~40% of a chunk: a paragraph-blind splitter would cut most of them in two
    rng = random.Random(3)
    paras = []
    for p in range(12):
        sents = _sentences(40, seed=p)
        rng.shuffle(sents)
        paras.append(" ".join(sents[:4]))
    size = 128
    sizes = [resources.counter.count(p) for p in paras]
    assert all(0.3 * size < s < 0.5 * size for s in sizes), sizes
    chunks = _chunker(resources, size, 16).chunk("\n\n".join(paras))
    assert len(chunks) >= 4
    for p in paras:
        assert any(p in c.text for c in chunks), "every paragraph lies whole in some chunk"
    for c in chunks:
        # a chunk ends at the end of a paragraph (the next chunk starts a new one, after overlap)
        assert any(c.text.endswith(p) for p in paras), c.text[-80:]


def test_word_piece_limit_binds_when_cl100k_is_cheap(resources: Resources) -> None:
    # dashes and dotted runs cost one cl100k token but one word-piece per character
    line = "Note ---------------- see step 1.2.3.4 ........ done."
    text = " ".join(f"{line} Row {i}." for i in range(60))
    chunker = _chunker(resources, 256, 32)
    chunks = chunker.chunk(text)
    _check_limits(resources, chunks, 256)
    pieces = resources.embedder.count_tokens([c.text for c in chunks])
    assert max(pieces) > max(c.tokens for c in chunks) * 1.5  # word-pieces were the binding limit
    assert all(f"Row {i}." in "".join(c.text for c in chunks) for i in range(60))


def test_giant_unbroken_string_is_split(resources: Resources) -> None:
    rng = random.Random(4)
    blob = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(30000))
    chunks = _chunker(resources, 256, 32).chunk(blob)
    assert len(chunks) > 10
    _check_limits(resources, chunks, 256)
    assert "".join(c.text for c in chunks) == blob  # split, not dropped or duplicated


def test_giant_punctuation_run_is_split(resources: Resources) -> None:
    blob = "-=" * 3000  # few cl100k tokens, thousands of word-pieces
    chunks = _chunker(resources, 256, 32).chunk(blob)
    assert len(chunks) > 1
    _check_limits(resources, chunks, 256)
    assert "".join(c.text for c in chunks) == blob


def test_empty_and_tiny_text(resources: Resources) -> None:
    ch = _chunker(resources, 64, 16)
    assert ch.chunk("") == []
    assert ch.chunk("   \n\n  ") == []
    [only] = ch.chunk("One short sentence.")
    assert only.text == "One short sentence." and only.tokens == 4


def test_sample_corpus_chunks_fit_the_embedder(sample_store: Settings, resources: Resources) -> None:
    """No chunk of the sample corpus is silently truncated by the embedder."""
    got = get_index(sample_store).vectors.collection.get(include=["documents", "metadatas"])
    docs, metas = got["documents"], got["metadatas"]
    assert len(docs) > 20
    pieces = resources.embedder.count_tokens(docs)
    over = [
        (m["source"], m["chunk_index"], wp)
        for m, wp in zip(metas, pieces, strict=True)
        if wp > resources.embedder.max_tokens
    ]
    assert not over
    for doc, meta in zip(docs, metas, strict=True):
        tokens = resources.counter.count(doc)
        assert tokens == meta["tokens"]
        assert tokens <= sample_store.chunk_size


@pytest.mark.parametrize("size,overlap", [(32, 0), (100, 40), (256, 32)])
def test_sample_corpus_chunking_sizes(resources: Resources, size: int, overlap: int) -> None:
    from pathlib import Path

    from ingest.loaders import load_bytes

    corpus = Path(__file__).resolve().parents[3] / "data" / "corpus"
    ch = _chunker(resources, size, overlap)
    for f in sorted(corpus.rglob("*.md"))[:4]:
        doc = load_bytes(f.name, f.read_bytes())
        chunks = ch.chunk(doc.sections[0].text)
        _check_limits(resources, chunks, size)


_LINES = [
    "# Heading one",
    "## Specs",
    "- a list item with a few words",
    "1. a numbered step that tells you what to do next.",
    "| Payload | 5 kg | 12 kg |",
    "SPECIFICATIONS",
    "Payload capacity ............ 300 kg",
    "The arm stops within 180 milliseconds and holds its position.",
    "Calibrate every 2,000 operating hours or every 6 months, whichever comes first.",
    "Příliš žluťoučký kůň úpěl ďábelské ódy.",
    "----------------",
    "E-104, E-211, E-330, E-412 and E-508 are the common error codes.",
]


@pytest.mark.parametrize("size,overlap", [(24, 8), (64, 16), (256, 32)])
def test_structured_text_never_exceeds_limits(resources: Resources, size: int, overlap: int) -> None:
    """Headings, list items and table rows are joined with line breaks; the count still holds."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    ch = _chunker(resources, size, overlap)
    paragraph = st.lists(st.sampled_from(_LINES), min_size=1, max_size=12).map("\n".join)
    document = st.lists(paragraph, min_size=1, max_size=15).map("\n\n".join)

    @settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
    @given(document)
    def check(text: str) -> None:
        chunks = ch.chunk(text)
        assert chunks
        _check_limits(resources, chunks, size)

    check()


def test_a_lead_in_goes_with_the_list_it_introduces(resources: Resources) -> None:
    """A paragraph ending with a colon starts the next chunk with its list rather than ending this
    one without it, when the two fit a chunk together."""
    prose = " ".join(_sentences(6, seed=3))
    lead = "Customers may return any standard product within 30 days of delivery, provided that:"
    items = "\n".join(f"- condition {n}: the {w} is met before shipping" for n, w in enumerate("abcd", 1))
    chunks = _chunker(resources, 120, 0).chunk(f"{prose}\n\n{lead}\n\n{items}\n\nAfter the list comes prose.")
    holding = [c.text for c in chunks if lead in c.text]
    assert len(holding) == 1 and "- condition 1:" in holding[0], [c.text for c in chunks]
    _check_limits(resources, chunks, 120)


def test_a_table_going_on_in_the_next_chunk_is_marked_on_the_chunk_before(resources: Resources) -> None:
    """A table longer than a chunk goes on in the next under its header row again; the chunk it
    goes on from says so (table_goes_on), the last part and every other chunk do not."""
    header = "| Model | Price | Weight | Noise |\n|---|---|---|---|"
    rows = "\n".join(f"| Brio {i} | ${100 + i} | {1 + i / 10:.1f} kg | {70 - i} dB |" for i in range(24))
    text = f"# Brio grinders\n\nAll models.\n\n{header}\n{rows}\n\n## Buying advice\n\nThe Brio 3 suits most kitchens."
    chunks = _chunker(resources, 120, 16).chunk(text)
    parts = [c for c in chunks if "| Model | Price |" in c.text]
    assert len(parts) >= 3, [c.text[:60] for c in chunks]
    assert [c.table_goes_on for c in parts] == [True] * (len(parts) - 1) + [False]
    assert not any(c.table_goes_on for c in chunks if c not in parts)
    assert all(c.text.startswith("| Model | Price |") for c in parts[1:])
    # a table that fits one chunk does not go on
    assert not any(
        c.table_goes_on
        for c in _chunker(resources, 256, 16).chunk(f"{header}\n| Brio 1 | $1 | 1 kg | 1 dB |")
    )
