"""Grounding: supported sentences pass, a planted unsupported sentence or a wrong citation is flagged."""

from __future__ import annotations

from core.answer.grounding import check
from core.scoring import SentenceScorer
from core.types import Fate, LedgerEntry


def entry(source: str, text: str) -> LedgerEntry:
    return LedgerEntry(f"id-{source}", source, 0.8, Fate.KEPT, 50, injected_text=text, injected_tokens=50)


EVIDENCE = [
    entry("products/arm-x3.md", "The ArmX3 has a rated payload of 12 kg. Its reach is 1,300 mm."),
    entry("policies/warranty-policy.md", "All arms are covered by a limited warranty of 24 months."),
]


def test_supported_and_cited_answer_scores_one(resources) -> None:  # noqa: ANN001
    scorer = SentenceScorer(resources.embedder)
    g = check("The ArmX3 has a rated payload of 12 kg (products/arm-x3.md).", EVIDENCE, scorer)
    assert g is not None and g.score == 1.0
    assert g.sentences[0].supported and g.sentences[0].citation_ok
    # bullets with bold keys pass the same checks, and each is shown as read: no "- ", no "**"
    bullets = "- **ArmX3**: rated payload 12 kg (products/arm-x3.md).\n- **ArmX3**: reach 1,300 mm (products/arm-x3.md)."
    g = check(bullets, EVIDENCE, scorer)
    assert g is not None and g.score == 1.0
    assert [x.sentence for x in g.sentences] == [
        "ArmX3: rated payload 12 kg (products/arm-x3.md).",
        "ArmX3: reach 1,300 mm (products/arm-x3.md).",
    ]


def test_planted_unsupported_sentence_is_flagged(resources) -> None:  # noqa: ANN001
    answer = (
        "The ArmX3 has a rated payload of 12 kg (products/arm-x3.md). "
        "The company cafeteria serves sushi every Friday (products/arm-x3.md)."
    )
    g = check(answer, EVIDENCE, SentenceScorer(resources.embedder))
    assert g is not None
    assert [s.supported for s in g.sentences] == [True, False]
    assert g.score == 0.5


def test_wrong_or_missing_citation_is_flagged(resources) -> None:  # noqa: ANN001
    scorer = SentenceScorer(resources.embedder)
    g = check("All arms are covered by a limited warranty of 24 months (support/faq.md).", EVIDENCE, scorer)
    assert g is not None and g.sentences[0].supported and not g.sentences[0].citation_ok
    g = check("All arms are covered by a limited warranty of 24 months.", EVIDENCE, scorer)
    assert g is not None and not g.sentences[0].citation_ok


def test_citation_split_off_by_the_sentence_splitter_is_reattached(resources) -> None:  # noqa: ANN001
    g = check(
        "Its reach is 1,300 mm. (products/arm-x3.md) It is big.", EVIDENCE, SentenceScorer(resources.embedder)
    )
    assert g is not None and g.sentences[0].citations == ("products/arm-x3.md",)


PUMPS = [
    LedgerEntry(
        "id-z20", "catalog/z20.md", 0.8, Fate.KEPT, 60,
        injected_text="# Zephyr Z20 Pump\n\n## Specifications\n\n- Flow rate: 90 litres per minute\n- Weight: 14 kg",
        injected_tokens=60, title="Zephyr Z20 Pump", heading_path="Zephyr Z20 Pump",
    ),
    LedgerEntry(
        "id-z10", "catalog/z10.md", 0.7, Fate.KEPT, 60,
        injected_text="# Zephyr Z10 Pump\n\n## Specifications\n\n- Flow rate: 40 litres per minute\n- Weight: 9 kg",
        injected_tokens=60, title="Zephyr Z10 Pump", heading_path="Zephyr Z10 Pump",
    ),
]  # fmt: skip


def test_an_answer_about_another_model_is_flagged(resources) -> None:  # noqa: ANN001
    """Copy-support alone vouches for a sentence copied from the sibling model's spec list."""
    scorer = SentenceScorer(resources.embedder)
    question = "What is the flow rate of the Z10 pump?"
    wrong = check("Flow rate: 90 litres per minute (catalog/z20.md).", PUMPS, scorer, question)
    assert wrong is not None
    [s] = wrong.sentences
    assert s.supported and s.citation_ok  # copied and cited: the old check passed it
    assert s.about == ("z20", "zephyr z20") and not s.ok and "z10" in s.problem and wrong.score == 0.0
    right = check("Flow rate: 40 litres per minute (catalog/z10.md).", PUMPS, scorer, question)
    assert right is not None and right.sentences[0].ok and right.score == 1.0


def test_a_number_missing_from_the_evidence_is_flagged(resources) -> None:  # noqa: ANN001
    scorer = SentenceScorer(resources.embedder)
    g = check("The Z10 pump weighs 11 kg (catalog/z10.md).", PUMPS, scorer, "How heavy is the Z10 pump?")
    assert g is not None and not g.sentences[0].numbers_ok and not g.sentences[0].ok


def test_a_pointer_to_the_rest_of_an_injected_source_is_framing(resources) -> None:  # noqa: ANN001
    """A pointer ("… (the full procedure is in a.md)") says where the rest is; it is not checked
    as a claim, unless it points at a source that was not injected."""
    scorer = SentenceScorer(resources.embedder)
    steps = "1. The ArmX3 has a rated payload of 12 kg (products/arm-x3.md).\n\n"
    g = check(steps + "… (the full procedure is in products/arm-x3.md)", EVIDENCE, scorer)
    assert g is not None and g.score == 1.0 and len(g.sentences) == 1
    g = check(steps + "… (the remaining steps are in support/faq.md)", EVIDENCE, scorer)
    assert g is not None and g.score == 0.5 and not g.sentences[1].ok
