"""Concurrency (issue 7): 16 questions at once (threads, as Streamlit sessions are) while an ingest
of new files runs in another thread → zero errors, and every answer is consistent with the index
as it was before or after the ingest.

Consistency is checked two ways: every chunk an answer saw (ledger ids, citation ids) exists in the
before- or after-index with exactly the text it was shown with; and for questions the new files do
not touch, the concurrent answer is the answer the same question gets on the index before (or after)
the ingest, asked alone.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from core.config import Settings
from core.pipeline import Answer
from core.resources import Models as Resources
from ingest.sync import ingest_paths
from tests.support.stores import ROOT, docs_by_id, make_pipeline, resources_for
from tests.support.stores import index_for as get_index

pytestmark = pytest.mark.slow

N_QUESTIONS = 16
NEW_DOCS = {
    "heron-kiln.md": (
        "# Heron kiln\n\nThe Heron kiln fires stoneware at 1280 degrees Celsius in a twelve hour "
        "cycle. Its chamber holds forty shelves of pottery and is lined with ceramic fibre. The kiln "
        "controller ramps the temperature by 150 degrees per hour until it reaches the peak."
    ),
    "osprey-winch.txt": (
        "The Osprey winch lifts 300 kg with its two-speed gearbox. The drum holds 45 metres of "
        "steel cable rated for 1.2 tonnes. A load brake holds the cable when the motor stops, and "
        "the remote pendant has an emergency stop button."
    ),
    "plover-valve.html": (
        "<html><body><h1>Plover valve</h1><p>The Plover relief valve opens at 3 bar and closes "
        "again at 2.6 bar. It is made of bronze and is serviced every two years by replacing the "
        "spring and the seat seal.</p></body></html>"
    ),
    "kestrel-pump.md": (
        "# Kestrel pump\n\nThe Kestrel pump moves 12 litres per minute against a head of 30 "
        "metres. It runs on 24 V DC, draws 8 A at full load, and must never run dry for more than "
        "thirty seconds or the impeller seal fails."
    ),
}
NEW_QUESTIONS = [
    "At what temperature does the Heron kiln fire stoneware?",
    "How much can the Osprey winch lift?",
    "At what pressure does the Plover valve open?",
    "How many litres per minute does the Kestrel pump move?",
]


def _questions() -> list[str]:
    rows = [json.loads(line) for line in (ROOT / "data" / "eval.jsonl").read_text().splitlines() if line]
    old = [r["q"] for r in rows if r["gold"] != "OOS"][: N_QUESTIONS - len(NEW_QUESTIONS)]
    return old + NEW_QUESTIONS


def test_16_questions_while_ingesting(sample_copy: Settings, tmp_path: Path, resources: Resources) -> None:
    s = sample_copy.model_copy(update={"trace_path": tmp_path / "traces.jsonl"})
    folder = tmp_path / "new-docs"
    folder.mkdir()
    for name, text in NEW_DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    questions = _questions()
    assert len(questions) == N_QUESTIONS

    pipe = make_pipeline(s, backend=None)  # one shared pipeline, as the UI's cached resource
    before_docs = docs_by_id(s)
    alone_before = {q: pipe.ask(q, record=False).text for q in questions}

    barrier = threading.Barrier(N_QUESTIONS + 1)
    answers: dict[int, Answer] = {}
    errors: list[str] = []
    report: dict[str, Any] = {}
    windows: dict[str, tuple[float, float]] = {}

    def ask(i: int, q: str) -> None:
        try:
            barrier.wait(timeout=120)
            t0 = time.perf_counter()
            answers[i] = pipe.ask(q)
            windows[f"q{i}"] = (t0, time.perf_counter())
        except Exception as e:  # noqa: BLE001 - every error is what this test counts
            errors.append(f"question {i}: {type(e).__name__}: {e}")

    def ingest() -> None:
        try:
            barrier.wait(timeout=120)
            t0 = time.perf_counter()
            report.update(ingest_paths(s, [folder], resources=resources_for(s)).as_dict())
            windows["ingest"] = (t0, time.perf_counter())
        except Exception as e:  # noqa: BLE001
            errors.append(f"ingest: {type(e).__name__}: {e}")

    threads = [threading.Thread(target=ask, args=(i, q)) for i, q in enumerate(questions)]
    threads.append(threading.Thread(target=ingest))
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=900)
    assert not any(t.is_alive() for t in threads), "a thread hung"

    print(f"\nCONCURRENCY: {N_QUESTIONS} questions + 1 ingest → {len(errors)} errors")
    assert errors == []
    assert report["errors"] == [] and sorted(report["added_sources"]) == sorted(NEW_DOCS)
    assert len(answers) == N_QUESTIONS

    after_docs = docs_by_id(s)
    index = get_index(s)
    assert set(after_docs) == index.lexical.ids() and set(before_docs) <= set(after_docs)
    new_ids = set(after_docs) - set(before_docs)
    assert new_ids and all(
        any(name in str(m["source"]) for name in NEW_DOCS)
        for m in index.vectors.collection.get(ids=sorted(new_ids), include=["metadatas"])["metadatas"]
    )
    alone_after = {q: pipe.ask(q, record=False).text for q in questions}

    overlapped = 0
    ing0, ing1 = windows["ingest"]
    for i, q in enumerate(questions):
        a = answers[i]
        t0, t1 = windows[f"q{i}"]
        overlapped += t0 < ing1 and t1 > ing0
        # every chunk the answer saw exists before or after, with the text it was shown
        for e in a.trace["chunks"]:
            cid = e["chunk_id"]
            assert cid in before_docs or cid in after_docs, f"{q!r}: unknown chunk {cid}"
            if e["fate"] == "kept":
                assert e["injected_text"] == after_docs.get(cid, before_docs.get(cid))
        for c in a.citations:
            assert c["chunk_id"] is None or c["chunk_id"] in after_docs, c
        # a question about the new files may also see a moment when only some of them are in (each
        # file is committed atomically): the chunk checks above cover it; the others must get the
        # answer they get alone, before or after
        if q not in NEW_QUESTIONS:
            assert a.text in (alone_before[q], alone_after[q]), (q, a.text, alone_before[q])
    # the new documents are answerable once the ingest is done
    for q in NEW_QUESTIONS:
        assert not pipe.ask(q, record=False).refused, q
    print(f"CONCURRENCY: {overlapped}/{N_QUESTIONS} questions overlapped the ingest in time")
    assert overlapped >= 1, "no question ran while the ingest did: the test proved nothing"
    traces = (tmp_path / "traces.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(traces) == N_QUESTIONS and all(json.loads(line)["id"] for line in traces)
