"""The whole pipeline on the sample corpus: answers with citations, refusals, budgets, traces,
and the OpenAI-compatible backend against a real local HTTP server (stream, faults, fallback)."""

from __future__ import annotations

import json

import pytest

from core.trace import read_traces
from tests.support.fake_openai import closed_port, fake_openai_server
from tests.support.stores import make_pipeline

IN_SCOPE = "What is the rated payload of the ArmX3?"
OFF_TOPIC = "What is the CEO's email address?"


@pytest.fixture(scope="module")
def offline(sample_store):  # noqa: ANN001, ANN201
    return make_pipeline(sample_store, backend=None)


def test_in_scope_answer_has_citations_and_fits_budget(offline) -> None:  # noqa: ANN001
    a = offline.ask(IN_SCOPE, record=False)
    t = a.trace
    assert not a.refused
    assert a.citations and all(c["injected"] for c in a.citations)
    assert any(c["source"] == "products/arm-x3.md" for c in t["chunks"] if c["fate"] != "below_min_score")
    assert t["context_tokens"] <= t["knowledge_budget"]
    assert t["prompt_tokens"] <= t["prompt_limit"]
    assert sum(t["sections"].values()) + 3 == t["prompt_tokens"]
    assert t["sections"]["knowledge"] > t["context_tokens"] >= 80
    assert t["message_sections"][0] == "system" and t["message_sections"][-1] == "user"
    assert t["messages"][-1]["content"].endswith(IN_SCOPE)
    knowledge = t["messages"][t["message_sections"].index("knowledge")]["content"]
    assert knowledge.startswith("[Retrieved Knowledge]") and "Relevance Score:" in knowledge
    for field in ("retrieval_ms", "budgeting_ms", "total_tokens", "answer_tokens", "top_score",
                  "num_chunks_included", "num_deduped", "num_summarized", "refused"):  # fmt: skip
        assert field in t


def test_off_topic_is_refused_with_exact_sentence_and_reason(offline) -> None:  # noqa: ANN001
    a = offline.ask(OFF_TOPIC, record=False)
    assert a.refused and a.text == "I don't know."
    assert "τ" in a.refusal_reason or "score" in a.refusal_reason
    assert a.trace["llm_called"] is False


def test_word_overlap_lets_a_low_score_through_and_is_traced(sample_store) -> None:  # noqa: ANN001
    # τ 0.99 puts every score under τ: only the evidence's word overlap decides
    strict = make_pipeline(sample_store.updated(refusal_tau=0.99, refusal_min_overlap=1.0), backend=None)
    lenient = make_pipeline(sample_store.updated(refusal_tau=0.99, refusal_min_overlap=0.3), backend=None)
    q = "What is the rated payload of the ArmX3 on zebras?"  # "zebras" is in no document
    a = lenient.ask(q, record=False)
    # rated, payload, armx3 of rated/payload/armx3/zebras; weighted by rarity the absent "zebras"
    # weighs the most, so the rule reads less than three quarters, still over 0.3
    assert a.trace["evidence_overlap_plain"] == 0.75 and not a.refused
    overlap = a.trace["evidence_overlap"]
    assert 0.3 < overlap < 0.75
    assert a.trace["refusal_rule"] == {"tau": 0.99, "min_overlap": 0.3, "min_context_tokens": 0}
    b = strict.ask(q, record=False)
    assert b.refused and f"overlap {overlap:.2f} < 1.00" in b.refusal_reason
    # a question none of whose words the documents hold stays refused (the CEO's email address is
    # no such question: "email" is in the privacy policy, one of its three words)
    off = lenient.ask("Who painted The Night Watch?", record=False)
    assert off.refused and off.trace["evidence_overlap"] < 0.3


def test_the_overlap_lets_no_question_through_whose_name_no_injected_passage_holds(sample_store) -> None:  # noqa: ANN001
    # τ 0.99 puts every score under τ: the overlap decides, and a name of the question must be held
    lenient = make_pipeline(sample_store.updated(refusal_tau=0.99, refusal_min_overlap=0.3), backend=None)
    a = lenient.ask("What is the rated payload of the ArmX3 in Zanzibar?", record=False)
    assert a.trace["evidence_overlap"] > 0.3 and a.trace["evidence_unheld"] == ["Zanzibar"]
    assert a.refused and a.refusal_reason.endswith("no injected passage holds “Zanzibar”")
    b = lenient.ask("What is the rated payload of the ArmX3?", record=False)
    assert not b.refused and b.trace["evidence_unheld"] == []


def test_a_question_meeting_only_a_word_most_documents_hold_is_refused(offline) -> None:  # noqa: ANN001
    # "arms" is in half the sample store's chunks, "octopus" in none: counted plainly, half of the
    # question's words are in the evidence (over the 0.34 minimum); weighted by rarity, far less
    a = offline.ask("How many arms does an octopus have?", record=False)
    t = a.trace
    assert t["top_score"] < offline.settings.refusal_tau and t["evidence_overlap_plain"] == 0.5
    assert a.refused and a.text == "I don't know." and t["evidence_overlap"] < 0.2
    similarity = next(c for c in t["decision"]["checks"] if c["name"] == "similarity")
    assert "counted plainly" in similarity["detail"] and not similarity["passed"]
    # a question meeting the store's rarer words is still let through on its overlap
    b = offline.ask("What is the rated payload of the ArmX3?", record=False)
    assert not b.refused and b.trace["evidence_overlap"] == 1.0
    # a model the store names weighs as much as the rarest word: "waterproof" is in no document,
    # "G5" in many, and the question is about the documents all the same
    c = offline.ask("Is the G5 waterproof?", record=False)
    assert c.trace["top_score"] < offline.settings.refusal_tau and not c.refused
    assert c.trace["evidence_overlap"] == c.trace["evidence_overlap_plain"] == 0.5


def test_a_value_the_asked_products_evidence_never_states_is_refused(offline) -> None:  # noqa: ANN001
    # the Rover M1's battery is in the context, under the rover's sheet; nothing about the ArmX2
    # mentions a capacity (the rarest of the question's attribute words in the store)
    a = offline.ask("What's the battery capacity of the ArmX2?", record=False)
    assert a.refused and "“capacity”" in a.refusal_reason and "ArmX2" in a.refusal_reason
    assert "1.9 kWh" not in a.text
    # the rover's own weight stands under its sheet's unnamed SPECIFICATIONS heading: still its answer
    b = offline.ask("How much does the Rover M1 weigh?", record=False)
    assert not b.refused and "118 kg" in b.text.split("\n")[0]


def test_every_candidate_has_a_fate(offline) -> None:  # noqa: ANN001
    t = offline.ask("Compare the ArmX2 and the ArmX3", record=False).trace
    assert t["query_type"] == "comparison"
    assert len(t["chunks"]) == t["num_candidates"] > 0
    assert {c["fate"] for c in t["chunks"]} <= {
        "kept", "summarised", "truncated", "condensed", "duplicate", "over_budget", "below_min_score"
    }  # fmt: skip


def test_unit_packing_through_the_pipeline(sample_store) -> None:  # noqa: ANN001
    """PACKING=units: wider candidates, units of many chunks in one budget, the ledger says which."""
    s = sample_store.updated(packing="units", pack_candidates=16)
    a = make_pipeline(s, backend=None).ask("How do I calibrate an ArmX3 arm?", record=False)
    t = a.trace
    assert t["num_candidates"] == 16 and t["context_tokens"] <= s.knowledge_budget
    condensed = [c for c in t["chunks"] if c["fate"] == "condensed"]
    assert condensed and t["num_condensed"] == len(condensed)
    assert all(0 < c["units_kept"] < c["units_total"] and c["dropped_units"] for c in condensed)
    steps = [ln[:3].strip() for ln in a.text.splitlines() if ln[:1].isdigit()]
    assert steps[:10] == [f"{i}." for i in range(1, 11)]  # the whole procedure, in order


def test_baseline_is_blind_top_k(offline) -> None:  # noqa: ANN001
    eng = offline.ask(IN_SCOPE, record=False).trace
    base = offline.ask(IN_SCOPE, baseline=True, record=False).trace
    assert base["setup"] == "baseline"
    assert all(c["fate"] == "kept" for c in base["chunks"])
    assert base["context_tokens"] > eng["context_tokens"]
    off = offline.ask(OFF_TOPIC, baseline=True, record=False)
    assert not off.refused


def test_traces_are_appended(sample_copy) -> None:  # noqa: ANN001
    p = make_pipeline(sample_copy, backend=None)
    p.ask(IN_SCOPE)
    p.ask(OFF_TOPIC)
    records = read_traces(sample_copy.trace_path)
    assert [r["question"] for r in records] == [IN_SCOPE, OFF_TOPIC]
    assert records[1]["refused"] is True
    json.dumps(records)  # serialisable


def test_trace_can_be_switched_off(sample_copy) -> None:  # noqa: ANN001
    s = sample_copy.model_copy(update={"trace_enabled": False})
    make_pipeline(s, backend=None).ask(IN_SCOPE)
    assert not s.trace_path.exists()


def _llm(settings, url):  # noqa: ANN001, ANN202
    s = settings.model_copy(update={"llm_base_url": url, "llm_timeout": 1.0, "llm_max_retries": 0})
    return make_pipeline(s)


def test_llm_backend_gets_messages_in_order_and_streams(sample_store) -> None:  # noqa: ANN001
    with fake_openai_server() as server:
        server.reply = "The ArmX3 payload is 12 kg (products/arm-x3.md)."
        p = _llm(sample_store, server.base_url)
        deltas: list[str] = []
        a = p.ask(IN_SCOPE, on_token=deltas.append, record=False)
        assert a.text == server.reply and "".join(deltas) == server.reply and len(deltas) > 1
        assert not a.fallback and a.trace["llm_called"]
        sent = server.chat_requests[-1]
        assert sent.body["stream"] is True and sent.body["temperature"] == 0
        assert sent.messages == a.trace["messages"]
        assert a.citations[0]["source"] == "products/arm-x3.md"


def test_refusal_makes_no_llm_call(sample_store) -> None:  # noqa: ANN001
    with fake_openai_server() as server:
        a = _llm(sample_store, server.base_url).ask(OFF_TOPIC, record=False)
        assert a.refused and not server.chat_requests


@pytest.mark.parametrize("behaviour", ["429", "500", "timeout", "malformed_json", "malformed_sse"])
def test_backend_faults_fall_back_to_extractive(sample_store, behaviour: str) -> None:  # noqa: ANN001
    with fake_openai_server() as server:
        server.behaviour = behaviour
        p = _llm(sample_store, server.base_url)
        stream = behaviour == "malformed_sse"
        a = p.ask(IN_SCOPE, on_token=(lambda _d: None) if stream else None, record=False)
        assert a.fallback and a.backend_error and "LLM server" in a.backend_error
        assert not a.refused and a.citations  # the extractive answer is shown instead


def test_unreachable_backend_falls_back(sample_store) -> None:  # noqa: ANN001
    a = _llm(sample_store, f"http://127.0.0.1:{closed_port()}/v1").ask(IN_SCOPE, record=False)
    assert a.fallback and "refused" in a.backend_error


def test_a_question_naming_a_model_looks_past_pages_about_its_siblings(tmp_path) -> None:  # noqa: ANN001
    from ingest.sync import ingest_paths
    from tests.support.stores import make_settings, resources_for

    folder = tmp_path / "docs"
    folder.mkdir()
    for n in range(12):  # pages about a sibling that share the question's words
        (folder / f"brio-5-note-{n}.md").write_text(
            f"# Brio 5 grinder, service note {n}\n\nWhat is the burr size of the Brio 5 grinder? The Brio 5 "
            f"grinder has a burr size of 40 mm; note {n} covers its burr size and burr wear.\n"
        )
    (folder / "brio-50.md").write_text(
        "# Brio 50 grinder\n\n## Specifications\n\n- Burrs: 64 mm steel\n- Weight: 3.4 kg\n"
    )
    s = make_settings(tmp_path / "state", top_k=4)
    ingest_paths(s, [folder], resources=resources_for(s))
    pipe = make_pipeline(s, backend=None)
    question = "What is the burr size of the Brio 50?"
    ranked = [c.chunk.source for c in pipe.resources.retriever.search(question, 8)]
    assert "brio-50.md" not in ranked[:4], ranked  # the siblings' pages fill the blind top 4
    assert "brio-50.md" in {c.chunk.source for c in pipe.search(question)}
    answer = pipe.ask(question, record=False)
    assert "64 mm" in answer.text and "40 mm" not in answer.text, answer.text
    # the siblings' pages stay on the ledger (walked after the asked model's), not cut from it
    assert len(answer.context.ledger) == 5 and answer.context.ledger[0].source == "brio-50.md"
    # a model no page stands under keeps the plain top k, and its siblings' evidence refuses it
    assert len(pipe.search("What is the burr size of the Brio 7?")) == 4
    assert pipe.ask("What is the burr size of the Brio 7?", record=False).refused


def test_a_table_split_between_chunks_is_read_whole_for_a_superlative(tmp_path) -> None:  # noqa: ANN001
    """A comparison table too long for one chunk goes on in the next under its header row again;
    ingest marks the chunk it goes on from. "Which grinder is the quietest?" brings both parts and
    reads them as one table: the quietest stands in the second part."""
    from ingest.sync import ingest_paths
    from tests.support.stores import chunks_by_source, index_for, make_settings, resources_for

    folder = tmp_path / "docs"
    folder.mkdir()
    names = ["Brio 1", "Brio 2", "Brio 3", "Brio 3 Plus", "Brio 5", "Brio 50", "Brio 60", "Brio 70"]
    header = "| Model | Price | Burrs | Hopper | Grind settings | Motor | Weight | Height | Noise |"
    rows = [
        f"| {n} | ${149 + 50 * i} | {40 + 2 * i} mm steel | {250 + 25 * i} g | {30 + 5 * i} steps "
        f"| {150 + 10 * i} W | {2.1 + 0.2 * i:.1f} kg | {30 + i} cm | {72 - i} dB |"
        for i, n in enumerate(names)
    ]
    (folder / "compare.md").write_text(
        "# Compare the Brio grinders\n\nEvery Brio grinder at a glance. Noise is measured at 1 m.\n\n"
        + "\n".join([header, "|---|---|---|---|---|---|---|---|---|", *rows])
        + "\n\n## Which one should I buy?\n\nThe Brio 3 suits most kitchens.\n"
    )
    (folder / "brio-3.md").write_text("# Brio 3\n\nThe Brio 3 is quiet enough for an early morning coffee.\n")
    s = make_settings(tmp_path / "state", top_k=1)
    ingest_paths(s, [folder], resources=resources_for(s))
    parts = [t for t in chunks_by_source(s)["compare.md"] if header in t]
    assert len(parts) == 2, parts  # the table is split, the header row repeated
    goes_on = {
        str(m["chunk_index"]): m["table_goes_on"]
        for m in index_for(s).vectors.collection.get(include=["metadatas"])["metadatas"]
        if m["source"] == "compare.md"
    }
    assert sorted(goes_on.values()).count(True) == 1, goes_on
    pipe = make_pipeline(s, backend=None)
    question = "Which grinder is the quietest?"
    assert len(pipe.resources.retriever.search(question, 1)) == 1  # the top 1 holds one part
    found = [c for c in pipe.search(question) if c.chunk.source == "compare.md" and header in c.chunk.text]
    assert len(found) == 2
    answer = pipe.ask(question, record=False)
    assert "Brio 70 (65 dB)" in answer.text, answer.text
