"""What-if replay: the same question under a smaller budget gives a different ledger."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from apps.replay import replay
from core.trace import find_trace
from tests.support.stores import make_pipeline, resources_for

ROOT = Path(__file__).resolve().parents[2]


def test_replay_with_smaller_budget_changes_ledger(sample_copy) -> None:  # noqa: ANN001
    a = make_pipeline(sample_copy, backend=None).ask("Compare the ArmX2 and the ArmX3")
    trace = find_trace(sample_copy.trace_path, a.trace["id"])
    assert trace is not None
    cmp = replay(sample_copy, resources_for(sample_copy), trace, {"knowledge_budget": 200})
    assert cmp.after["knowledge_budget"] == 200 and cmp.after["context_tokens"] <= 200
    assert cmp.before["num_chunks_included"] > cmp.after["num_chunks_included"]
    assert any(before != after for _, _, before, after in cmp.fates())
    blind = replay(sample_copy, resources_for(sample_copy), trace, {}, blind=True)
    assert blind.after["setup"] == "baseline"


def test_replay_rejects_unknown_setting(sample_copy) -> None:  # noqa: ANN001
    a = make_pipeline(sample_copy, backend=None).ask("What is the reach of the ArmX2?")
    with pytest.raises(ValueError):
        replay(sample_copy, resources_for(sample_copy), a.trace, {"llm_api_key": "x"})


@pytest.mark.slow
def test_cli_ask_and_replay(sample_copy, tmp_path: Path) -> None:  # noqa: ANN001
    env = {
        "PATH": "/usr/bin:/bin",
        "CONTEXTLENS_STORE_PATH": str(sample_copy.store_path),
        "CONTEXTLENS_TRACE_PATH": str(sample_copy.trace_path),
        "HOME": str(tmp_path),
    }
    run = lambda *args: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "core", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    off = run("ask", "What is the CEO's email address?", "--json")
    assert off.returncode == 0, off.stderr
    rec = json.loads(off.stdout.strip().splitlines()[-1])
    assert rec["refused"] is True and rec["answer"] == "I don't know."
    on = run("ask", "What is the rated payload of the ArmX3?", "--json")
    rec = json.loads(on.stdout.strip().splitlines()[-1])
    assert not rec["refused"] and rec["citations"]
    assert rec["context_tokens"] <= rec["knowledge_budget"]
    for key in ("query_type", "sections", "chunks", "refusal_reason", "retrieval_ms", "budgeting_ms"):
        assert key in rec
    rp = run("replay", rec["id"], "--budget", "150", "--json")
    assert rp.returncode == 0, rp.stderr
    both = json.loads(rp.stdout.strip().splitlines()[-1])
    assert both["after"]["context_tokens"] <= 150
    bad = run("replay", "nope-no-such-id")
    assert bad.returncode == 2 and "no trace" in bad.stderr


def test_a_replay_keeps_the_traced_evidence_order() -> None:
    """A trace replays with the evidence order it ran with (a trace from before the setting: the
    fused rank), so a comparison shows only the change asked for; the order itself can be changed."""
    from apps.replay import replay_settings
    from core.config import Settings

    base = Settings()
    assert base.evidence_order == "relevance"
    assert replay_settings(base, {"settings": {"evidence_order": "rank"}}, {}).evidence_order == "rank"
    assert replay_settings(base, {"settings": {}}, {}).evidence_order == "rank"
    assert replay_settings(base, {}, {"evidence_order": "relevance"}).evidence_order == "relevance"
