"""The budget loop: fates, summaries, truncation, and the never-exceeded property (hypothesis)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.context.budget import BudgetParams, build_context
from core.context.knowledge import KnowledgeFormat
from core.scoring import SentenceScorer
from core.types import Candidate, Chunk, Fate

WORDS = (
    "arm payload reach warranty gripper rover battery firmware calibration torque sensor joint brake "
    "motor camera vision safety policy refund expense travel remote code review pipeline release"
).split()


def cand(
    cid: str, text: str, score: float, source: str = "doc.md", emb: list[float] | None = None
) -> Candidate:
    return Candidate(Chunk(cid, text, source, {"category": "test"}), score, tuple(emb) if emb else None)


@pytest.fixture(scope="module")
def scorer(resources):  # noqa: ANN001, ANN201
    return SentenceScorer(resources.embedder)


def build(cands, budget, resources, scorer, question="What is the payload of the arm?", **kw):  # noqa: ANN001, ANN201
    params = BudgetParams(budget=budget, **kw)
    return build_context(cands, question, params, KnowledgeFormat("abc"), resources.counter, scorer)


def test_keeps_in_order_until_full_then_over_budget(resources, scorer) -> None:  # noqa: ANN001
    texts = [f"Fact number {i} says the arm {WORDS[i]} is fine. " * 6 for i in range(6)]
    cands = [cand(f"c{i}", t, 0.4 - i * 0.01) for i, t in enumerate(texts)]
    ctx = build(cands, 300, resources, scorer)
    fates = [e.fate for e in ctx.ledger]
    assert fates[0] == Fate.KEPT
    assert Fate.OVER_BUDGET in fates
    assert ctx.tokens <= 300
    first_overflow = next(i for i, f in enumerate(fates) if f != Fate.KEPT)
    assert all(f == Fate.OVER_BUDGET for f in fates[first_overflow + 1 :])
    assert resources.counter.count(ctx.text) == ctx.tokens


def test_high_score_overflow_is_summarised_with_question_sentences(resources, scorer) -> None:  # noqa: ANN001
    filler = "The cafeteria menu changes every Tuesday and Thursday. " * 8
    key = "The rated payload of the arm is 12 kg including the gripper."
    big = filler + key + " " + filler
    cands = [cand("a", "Short intro about the arm family and its uses.", 0.9), cand("b", big, 0.8)]
    ctx = build(cands, 120, resources, scorer, summary_min_score=0.5)
    entry = ctx.ledger[1]
    assert entry.fate == Fate.SUMMARISED
    assert "12 kg" in entry.injected_text
    assert ctx.tokens <= 120


def test_low_score_overflow_holding_the_asked_fact_is_summarised(resources, scorer) -> None:  # noqa: ANN001
    """A chunk under the summary score whose table row or "Key: value" item is keyed by the
    question's words is summarised by relevance (the row reaches the context, not the page's first
    lines); one whose row is keyed by other words, holds the words only in prose or in its table's
    first row (the column names), is truncated. A section whose title holds the question's words
    ("## Rated payload") is summarised too; one titled otherwise is truncated."""
    lead = "The cafeteria menu changes every Tuesday and Thursday. " * 8
    row = "| Rated payload | 12 kg | 5 kg |"
    table = f"{lead}\n\n| Property | A | B |\n| Reach | 1300 mm | 850 mm |\n{row}"
    item = f"{lead}\n\n- Reach: 1300 mm\n- Rated payload: 12 kg"
    other = table.replace("Rated payload", "Shipping weight")
    prose = f"{lead} The rated payload of the arm is 12 kg."
    header = f"{lead}\n\n| Rated payload | A | B |\n| Reach | 1300 mm | 850 mm |"  # it names the columns
    section = f"{lead}\n\n## Rated payload\n\nThe arm lifts 12 kg at full reach."
    elsewhere = section.replace("## Rated payload", "## Shipping")
    intro = cand("a", "Short intro about the arm family and its uses.", 0.9)
    cases = ((table, Fate.SUMMARISED), (item, Fate.SUMMARISED), (other, Fate.TRUNCATED), (prose, Fate.TRUNCATED),
             (header, Fate.TRUNCATED), (section, Fate.SUMMARISED), (elsewhere, Fate.TRUNCATED))  # fmt: skip
    for text, fate in cases:
        ctx = build([intro, cand("b", text, 0.3)], 130, resources, scorer, summary_min_score=0.5)
        assert ctx.ledger[1].fate == fate, text
        assert ("12 kg" in ctx.ledger[1].injected_text) == (fate == Fate.SUMMARISED)
        assert ctx.tokens <= 130


def test_a_field_on_the_asked_measure_of_the_asked_models_page_is_summarised(resources, scorer) -> None:  # noqa: ANN001
    """A low-scoring chunk of the asked model's page whose list states the measure the question asks
    for under another key ("Height: 10.3 cm; the robot weighs 4.6 kg" for "How heavy …") is
    summarised by relevance, so the value reaches the context; the same page of another model, or
    a question naming no model, keeps the truncation."""
    lead = "The cafeteria menu changes every Tuesday and Thursday. " * 8
    items = (
        "- Price: $1,199\n- Dustbin: 300 mL\n- Filter: H13 HEPA\n- Height: 10.3 cm; the robot weighs 4.6 kg"
    )
    intro = cand("a", "Short intro about the robot family and its uses.", 0.9)

    def fate(question: str, title: str) -> Fate:
        page = Candidate(Chunk("b", f"{lead}\n\n{items}", "p.md", {"category": "t", "title": title}), 0.3)
        ctx = build([intro, page], 130, resources, scorer, question, summary_min_score=0.5)
        assert ("4.6 kg" in ctx.ledger[1].injected_text) == (ctx.ledger[1].fate == Fate.SUMMARISED)
        return ctx.ledger[1].fate

    assert fate("How heavy is the Kestrel 50?", "Kestrel 50") == Fate.SUMMARISED
    assert fate("How heavy is the Kestrel 5?", "Kestrel 50") == Fate.TRUNCATED
    assert fate("How heavy is it?", "Kestrel 50") == Fate.TRUNCATED


def test_tail_cap_leaves_room_for_later_candidates(resources, scorer) -> None:  # noqa: ANN001
    filler = "The cafeteria menu changes every Tuesday and Thursday. " * 8
    big = filler + "The rated payload of the arm is 12 kg including the gripper. " + filler
    later = "Filler text first. The arm payload rating was confirmed at 12 kg by the audit."
    cands = [cand("a", "Short intro about the arm family and its uses.", 0.9), cand("b", big, 0.8),
             cand("c", later, 0.7), cand("d", big.replace("12 kg", "9 kg"), 0.6)]  # fmt: skip
    # without a cap the overflowing chunk's summary takes all the room: the rest is over budget
    ctx = build(cands, 200, resources, scorer, summary_min_score=0.5)
    assert [e.fate for e in ctx.ledger[2:]] == [Fate.OVER_BUDGET, Fate.OVER_BUDGET]
    # with a cap it gets at most that much and the walk goes on down the ranking
    ctx = build(cands, 195, resources, scorer, summary_min_score=0.5, tail_cap=50)
    b, c = ctx.ledger[1], ctx.ledger[2]
    assert b.fate == Fate.SUMMARISED and "12 kg" in b.injected_text
    assert c.included and "12 kg" in c.injected_text
    assert ctx.ledger[3].fate == Fate.OVER_BUDGET  # no sentence of it fits the little left; b takes it
    assert ctx.tokens <= 195 and resources.counter.count(ctx.text) == ctx.tokens


def test_capped_extract_grows_into_room_left_unused(resources, scorer) -> None:  # noqa: ANN001
    filler = "The cafeteria menu changes every Tuesday and Thursday. " * 8
    big = filler + "The rated payload of the arm is 12 kg including the gripper. " + filler
    cands = [cand("a", "Short intro about the arm family and its uses.", 0.9), cand("b", big, 0.8)]
    capped_only = build(cands, 200, resources, scorer, summary_min_score=0.5, tail_cap=None)
    ctx = build(cands, 200, resources, scorer, summary_min_score=0.5, tail_cap=50)
    b = ctx.ledger[1]
    # nothing after b wanted the room: its extract takes it, as without a cap, and stays in budget
    assert b.fate == Fate.SUMMARISED and "12 kg" in b.injected_text
    assert b.injected_tokens > 50 and b.injected_tokens == capped_only.ledger[1].injected_tokens
    assert ctx.tokens <= 200 and resources.counter.count(ctx.text) == ctx.tokens
    # a chunk that fits whole once the room is back is injected whole
    mid = "The arm weighs 12 kg. " * 12
    ctx = build([cands[0], cand("m", mid, 0.8)], 200, resources, scorer, summary_min_score=0.5, tail_cap=20)
    assert ctx.ledger[1].fate == Fate.KEPT and ctx.ledger[1].injected_text == mid


def test_low_score_overflow_is_truncated_at_sentence_boundary(resources, scorer) -> None:  # noqa: ANN001
    sentences = [f"Sentence {i} talks about {WORDS[i]} in detail." for i in range(20)]
    cands = [cand("a", " ".join(sentences), 0.35)]
    ctx = build(cands, 90, resources, scorer, summary_min_score=0.5)
    entry = ctx.ledger[0]
    assert entry.fate == Fate.TRUNCATED
    assert entry.injected_text.endswith(".")
    assert " ".join(sentences).startswith(entry.injected_text)


def test_an_extract_of_headings_alone_is_not_injected(resources, scorer) -> None:  # noqa: ANN001
    # room for a heading, not for the sentence under it: the entry would carry no evidence, so the
    # chunk is over budget and the room stays for a later candidate that fits whole
    intro = "Short intro about the arm family and its uses."
    sectioned = "## 8. WHY WE CHARGE A RESTOCKING FEE\n\n" + " ".join(
        f"Every returned robot is re-tested and re-calibrated for {w} before resale." for w in WORDS[:6]
    )
    later = "The arm payload is 12 kg."
    cands = [cand("a", intro, 0.9), cand("b", sectioned, 0.3), cand("c", later, 0.2)]
    room_went_on = False
    for budget in range(90, 140, 4):
        ctx = build(cands, budget, resources, scorer, summary_min_score=0.5, tail_cap=60)
        b, c = ctx.ledger[1], ctx.ledger[2]
        assert not b.included or "re-tested" in b.injected_text, (budget, b.injected_text)
        assert ctx.tokens <= budget and resources.counter.count(ctx.text) == ctx.tokens
        room_went_on |= b.fate == Fate.OVER_BUDGET and c.fate == Fate.KEPT
    assert room_went_on  # at some budget the heading alone would have fitted: the later chunk got it


def test_an_extract_of_a_tables_header_row_alone_is_not_injected(resources, scorer) -> None:  # noqa: ANN001
    # the header row names the very models asked about, so it is the most relevant line, but it
    # states nothing: it comes only with a row under it, and room for it alone goes to a later chunk
    intro = "Short intro about the arm family and its uses."
    rows = "\n".join(
        f"| {w.capitalize()} rating | {i} units | {i + 3} units |" for i, w in enumerate(WORDS[:8])
    )
    table = "## At a glance\n\n| Feature | ArmX2 | ArmX3 |\n|---|---|---|\n" + rows
    later = "The arm payload is 12 kg."
    cands = [cand("a", intro, 0.9), cand("b", table, 0.6), cand("c", later, 0.2)]
    question = "How do the ArmX2 and ArmX3 compare?"
    room_went_on = False
    for budget in range(90, 150, 4):
        ctx = build(cands, budget, resources, scorer, question=question, summary_min_score=0.5, tail_cap=60)
        b, c = ctx.ledger[1], ctx.ledger[2]
        assert not b.included or "units" in b.injected_text, (budget, b.injected_text)
        assert ctx.tokens <= budget and resources.counter.count(ctx.text) == ctx.tokens
        room_went_on |= b.fate == Fate.OVER_BUDGET and c.fate == Fate.KEPT
    assert room_went_on


def test_a_tables_first_row_that_states_a_value_is_evidence(resources, scorer) -> None:  # noqa: ANN001
    intro = "Short intro about the arm family and its uses."
    prose = " ".join(f"The arm was tested for {w} in the lab last spring." for w in WORDS[:8])
    table = "## ArmX2 payload\n\n| Rated payload | 12 kg |\n|---|---|\n| Mount | ISO 9409 |\n\n" + prose
    cands = [cand("a", intro, 0.9), cand("b", table, 0.6)]
    question = "What is the rated payload of the ArmX2?"
    kept = [
        build(cands, budget, resources, scorer, question=question, summary_min_score=0.5, tail_cap=60).ledger[
            1
        ]
        for budget in range(96, 140, 4)
    ]
    assert any(b.included and "12 kg" in b.injected_text for b in kept)


def test_below_min_score_and_duplicates_are_recorded(resources, scorer) -> None:  # noqa: ANN001
    text = "The ArmX2 lifts 5 kg and reaches 850 mm. It costs 18,900 dollars."
    v = np.ones(8, dtype=np.float32) / np.sqrt(8)
    cands = [
        cand("a", text, 0.7, emb=v.tolist()),
        cand("b", text + " ", 0.69, source="other.md", emb=v.tolist()),  # cosine 1.0
        cand("c", "Totally unrelated words here.", 0.05),
    ]
    ctx = build(cands, 500, resources, scorer, min_score=0.1)
    fates = {e.chunk_id: e for e in ctx.ledger}
    assert fates["a"].fate == Fate.KEPT
    assert fates["b"].fate == Fate.DUPLICATE and fates["b"].duplicate_of == "a"
    assert fates["c"].fate == Fate.BELOW_MIN_SCORE


def test_empty_candidates_give_empty_block(resources, scorer) -> None:  # noqa: ANN001
    ctx = build([], 700, resources, scorer)
    assert ctx.text == "" and ctx.tokens == 0 and ctx.ledger == ()


sentence = st.lists(st.sampled_from(WORDS), min_size=1, max_size=25).map(
    lambda ws: " ".join(ws).capitalize() + "."
)
chunk_text = st.lists(sentence, min_size=1, max_size=12).map(" ".join)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    texts=st.lists(chunk_text, min_size=0, max_size=12),
    scores=st.lists(st.floats(0, 1), min_size=12, max_size=12),
    budget=st.integers(16, 1500),
    summary_min=st.floats(0, 1),
    min_score=st.floats(0, 0.5),
    tail_cap=st.one_of(st.none(), st.integers(1, 400)),
)
def test_budget_is_never_exceeded(
    resources, scorer, texts, scores, budget, summary_min, min_score, tail_cap
) -> None:  # noqa: ANN001, E501
    cands = [cand(f"c{i}", t, scores[i], source=f"d{i % 3}.md") for i, t in enumerate(texts)]
    ctx = build(
        cands,
        budget,
        resources,
        scorer,
        summary_min_score=summary_min,
        min_score=min_score,
        tail_cap=tail_cap,
    )
    assert ctx.tokens <= budget
    assert resources.counter.count(ctx.text) == ctx.tokens
    assert [e.chunk_id for e in ctx.ledger] == [c.chunk.id for c in cands]  # one fate each
    for e in ctx.ledger:
        if e.included:
            assert e.injected_text and e.injected_text in ctx.text
        else:
            assert e.injected_text == ""


def test_params_from_settings(tmp_path) -> None:  # noqa: ANN001
    from core.config import Settings

    s = Settings(store_path=tmp_path, _env_file=None)
    p = BudgetParams.from_settings(s)
    assert (p.budget, p.min_score, p.tail_cap) == (s.knowledge_budget, s.min_score, s.overflow_extract_tokens)
    assert BudgetParams.from_settings(s.updated(overflow_extract_tokens=0), 300) == BudgetParams(
        300, s.min_score, s.summary_min_score, s.dedupe_jaccard, s.dedupe_cosine, tail_cap=None
    )


def test_every_run_of_up_to_three_digits_is_one_token(resources) -> None:  # noqa: ANN001
    """The premise a head line's count rests on (budget.line_tokens): digits are pre-tokens of
    their own, three at most, and each such piece is one cl100k token whatever its digits."""
    counter = resources.counter
    runs = [str(i) for i in range(10)] + [f"{i:02d}" for i in range(100)] + [f"{i:03d}" for i in range(1000)]
    assert [r for r in runs if counter.count(r) != 1] == []


@pytest.mark.parametrize("separator", ["rule", "numbered"])
def test_the_blocks_count_is_exact_for_any_entry_number_score_and_field(resources, scorer, separator) -> None:  # noqa: ANN001
    """Entries 1 to 120, scores from -2 to 12, fields with digits, non-ASCII digits and none: the
    block's summed count (every head line counted with its digits written 0) is tiktoken's."""
    import random

    rng = random.Random(11)
    sections = ["", "Specs › 2024 model", "Maße 12²3 und 4567", "Über ١٢٣ Seiten", "Part 10000001 › §3"]
    sources = ["a.md", "docs/v2.4.1/notes 2025.md", "ü/1²34.txt"]
    cands = [
        Candidate(
            Chunk(
                f"c{i}",
                f"Item {i} weighs {rng.randint(1, 99999)} g.",
                rng.choice(sources),
                {"category": rng.choice(["t", "cat 42", ""]), "heading_path": rng.choice(sections)}
                | ({"page": rng.randint(1, 2000)} if i % 3 == 0 else {}),
            ),
            round(rng.uniform(-2, 12), 4),
        )
        for i in range(120)
    ]
    params = BudgetParams(budget=10**6, min_score=-10, dedupe=False)
    for nonce in ("abc", "9f8e7d", "1a2b3c", "ffffff"):
        ctx = build_context(cands, "q", params, KnowledgeFormat(nonce, separator), resources.counter, scorer)
        assert len(ctx.included) == 120
        assert ctx.tokens == resources.counter.count(ctx.text)


def test_an_overflowing_wide_table_keeps_the_columns_the_question_names(resources, scorer) -> None:  # noqa: ANN001
    """A comparison table of many columns, summarised, keeps its first column and the asked ones,
    so every model's weight fits where two whole rows would not; the count stays exact."""
    header = "| Model | Screen | Storage | Battery life | Weight | Waterproof | Warm light | Price |"
    rows = [
        f"| Orla {n} | {6 + i} in | {8 * (i + 1)} GB | {6 + i} weeks | {158 + 12 * i} g | IPX{7 + i % 2} | Yes | ${99 + 30 * i}.99 |"
        for i, n in enumerate((4, 40, 400, 4000))
    ]
    lead = "The cafeteria menu changes every Tuesday and Thursday. " * 6
    table = f"{lead}\n\n{header}\n|---|---|---|---|---|---|---|---|\n" + "\n".join(rows)
    intro = cand("a", "Short intro about the reader family and its uses.", 0.9)
    for question, kept in (
        ("How heavy is the Orla 400?", "Weight"),
        ("How much lighter is the Orla 4?", "Weight"),
    ):
        ctx = build([intro, cand("b", table, 0.8)], 150, resources, scorer, question, summary_min_score=0.5)
        entry = ctx.ledger[1]
        assert entry.fate == Fate.SUMMARISED, question
        assert f"| Model | {kept} |" in entry.injected_text and "Warm light" not in entry.injected_text
        assert all(f"{158 + 12 * i} g" in entry.injected_text for i in range(4)), entry.injected_text
        assert resources.counter.count(ctx.text) == ctx.tokens <= 150
    # a question naming no column gets whole rows
    ctx = build([intro, cand("b", table, 0.8)], 150, resources, scorer, "Tell me about the Orla 400.",
                summary_min_score=0.5)  # fmt: skip
    assert "| Orla 400 | 8 in | 24 GB |" in ctx.ledger[1].injected_text
