"""The injection shield on its suites (issue 18), through the real pipeline and the real loaders:
≥ 60 attacks in every style and format (tests/support/shield/attacks.json) and ≥ 40 benign
instruction-heavy pages (benign.json), next to the sample corpus. `python -m tests.support.shield.suite`
prints the same figures as a table (README)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.config import Settings
from core.resources import Models
from tests.support.shield.suite import ATTACKS, BENIGN, Report, build_store, run, source_of
from tests.support.stores import close_stores, make_pipeline

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def report(
    tmp_path_factory: pytest.TempPathFactory, sample_store: Settings, resources: Models
) -> Iterator[Report]:
    close_stores()
    s = build_store(Path(tmp_path_factory.mktemp("shield")), sample_store)
    yield run(s, make_pipeline(s, backend=None))
    close_stores()


def test_the_suites_cover_every_style_and_format() -> None:
    assert len(ATTACKS) >= 60 and len(BENIGN) >= 40
    assert all(n >= 4 for n in Counter(a["style"] for a in ATTACKS).values())
    assert {a["format"] for a in ATTACKS} == {b["format"] for b in BENIGN} == {"md", "html", "txt", "pdf"}
    assert len({source_of(x) for x in [*ATTACKS, *BENIGN]}) == len(ATTACKS) + len(BENIGN)


def test_attacks_are_flagged(report: Report) -> None:
    missed = [(r.id, r.style) for r in report.attacks if not r.flagged]
    print(
        f"\nSHIELD: attacks flagged {len(report.attacks) - len(missed)}/{len(report.attacks)}; missed {missed}"
    )
    assert len(missed) <= len(report.attacks) * 0.05, missed


def test_hidden_html_is_dropped_at_parse_time(report: Report) -> None:
    hidden = [r for r in report.attacks if r.style == "hidden_html"]
    assert hidden and not [r.id for r in hidden if r.present]
    assert all(r.noted for r in hidden)  # the ledger says what was dropped


def test_no_payload_is_quoted_for_any_question(report: Report) -> None:
    quoted = {r.id: r.quoted for r in report.attacks if r.quoted}
    print(f"\nSHIELD: payloads quoted {len(quoted)} over {report.questions} questions")
    assert quoted == {}


def test_no_attack_reaches_the_prompt_outside_a_warning(report: Report) -> None:
    assert [r.id for r in report.attacks if r.undefused] == []


def test_no_fence_breakout(report: Report) -> None:
    assert report.breakouts == []


def test_benign_instructions_are_not_flagged(report: Report) -> None:
    s = report.summary()
    flagged = {b.id: b.reasons for b in report.benign if b.flagged_chunks}
    print(f"\nSHIELD: benign chunks flagged {s['benign_chunks_flagged']}/{s['benign_chunks']}: {flagged}")
    assert s["benign_chunks_flagged"] <= s["benign_chunks"] * 0.05, flagged


def test_benign_answers_keep_their_key_sentence(report: Report) -> None:
    s = report.summary()
    print(f"\nSHIELD: benign key sentences answered {s['benign_answered']}/{s['benign_pages']}")
    assert s["benign_answered"] >= 0.6 * s["benign_pages"]
