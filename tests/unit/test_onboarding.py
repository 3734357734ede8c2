"""The first screen's facts and example questions: the sample corpus's from data/examples.json, any
other corpus's drawn from its own titles and headings."""

from __future__ import annotations

import json
from pathlib import Path

from core.config import Settings
from core.onboarding import (
    KINDS,
    OFF_TOPIC_DEFAULT,
    IndexedDoc,
    Overview,
    clean_title,
    curated_examples,
    derived_examples,
    example_questions,
    overview,
)
from tests.support.stores import ROOT, index_for

EXAMPLES = ROOT / "data" / "examples.json"


def _ov(*docs: IndexedDoc) -> Overview:
    cats: dict[str, int] = {}
    for d in docs:
        cats[d.category] = cats.get(d.category, 0) + 1
    return Overview(len(docs), 10 * len(docs), tuple(sorted(cats.items(), key=lambda c: -c[1])), docs)


GARDEN = _ov(
    IndexedDoc("roses.md", "plants", "Growing Roses", ("Soil requirements", "How to prune a rose bush")),
    IndexedDoc("tulips.md", "plants", "Growing Tulips", ("Planting bulbs", "Why tulips close at night?")),
    IndexedDoc("tools/shears.md", "tools", "Pruning Shears", ("Specifications", "Sharpening procedure")),
)


def test_sample_corpus_gets_its_four_curated_questions(sample_store: Settings) -> None:
    ov = overview(index_for(sample_store))
    assert ov.documents == 22 and ov.chunks == index_for(sample_store).count()
    assert dict(ov.categories)["products"] == 4
    assert "Northwind ArmX2 Collaborative Robot Arm" in ov.titles
    assert "Returns And Refunds Policy" in ov.titles  # capitals and the site-name part cleaned
    examples = example_questions(ov, EXAMPLES)
    raw = json.loads(EXAMPLES.read_text())
    assert [(e.kind, e.question) for e in examples] == [(q["kind"], q["question"]) for q in raw["questions"]]
    assert sorted(e.kind for e in examples) == sorted(KINDS)


def test_other_corpus_gets_questions_from_its_headings() -> None:
    examples = {e.kind: e.question for e in example_questions(GARDEN, EXAMPLES)}
    assert set(examples) == set(KINDS)
    assert examples["procedural"] == "How do I prune a rose bush?"
    assert examples["factual"] == "What does Pruning Shears say about specifications?"
    assert examples["comparison"] == "Compare Growing Roses and Growing Tulips"
    assert examples["off-topic"] == OFF_TOPIC_DEFAULT


def test_procedure_headings_without_how_to_and_off_topic_that_avoids_the_corpus() -> None:
    ov = _ov(
        IndexedDoc("a.md", "art", "Dutch Painting", ("Installing a gallery hanging rail", "Overview")),
        IndexedDoc("b.md", "art", "Rembrandt's Night Watch", ("Restoration",)),
    )
    examples = {
        e.kind: e.question
        for e in derived_examples(ov, ["Who painted The Night Watch?", "How tall is Everest?"])
    }
    assert (
        examples["procedural"]
        == "What are the steps of “Installing a gallery hanging rail” in Dutch Painting?"
    )
    assert examples["factual"] == "What does Rembrandt's Night Watch say about restoration?"
    assert examples["off-topic"] == "How tall is Everest?"  # shares no word with a title or heading


def test_examples_file_for_another_corpus_or_broken_is_not_used(tmp_path: Path) -> None:
    other = tmp_path / "examples.json"
    other.write_text(
        json.dumps({"sources": ["products/arm-x2.md"], "questions": [{"kind": "factual", "question": "Q?"}]})
    )
    assert curated_examples(other, ["roses.md"]) is None
    assert [e.question for e in curated_examples(other, ["products/arm-x2.md", "x.md"])] == ["Q?"]
    other.write_text("{not json")
    assert curated_examples(other, ["products/arm-x2.md"]) is None
    assert curated_examples(tmp_path / "missing.json", []) is None
    assert derived_examples(_ov()) == []


def test_clean_title() -> None:
    assert clean_title("NORTHWIND ROVER M1 - AUTONOMOUS MOBILE ROBOT") == "Autonomous Mobile Robot"
    assert clean_title("NorthEye Vision Kit | Northwind Robotics") == "NorthEye Vision Kit"
    assert clean_title("ARM CALIBRATION GUIDE") == "Arm Calibration Guide"
