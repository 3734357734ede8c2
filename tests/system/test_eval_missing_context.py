"""The eval under both missing-context modes: a related answer is a refusal (never correct, even
when its related units hold the gold phrase), and the tokens a strict refusal saves are reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from apps.eval import datasets as dsets
from apps.eval import report as rep
from apps.eval.metrics import summarize
from apps.eval.runner import dataset_settings, run_dataset
from core.answer.related import NOT_IN_SOURCES
from tests.support.stores import close_stores as forget_indexes
from tests.support.stores import make_pipeline, make_settings, shared_models
from tests.system.test_eval import _jsonl, _rec


def test_tokens_saved_per_refusal_is_the_mean_over_refused_questions() -> None:
    recs = [
        _rec("answerable", correct=True, prompt_tokens=900),
        _rec("oos", refused=True, prompt_tokens=800, tokens_saved=800),  # refused by the rule
        _rec("oos", refused=True, prompt_tokens=600, tokens_saved=600),
        _rec("answerable", refused=True, prompt_tokens=700, tokens_saved=0),  # the answerer refused
    ]
    m = summarize(recs)
    assert m["n_refused"] == 3 and m["tokens_saved_total"] == 1400
    assert m["tokens_saved_per_refusal"] == pytest.approx(1400 / 3, abs=0.05)
    assert rep.table_row("hybrid engineered", m).endswith(" 467")
    assert summarize([_rec("answerable", correct=True)])["tokens_saved_per_refusal"] is None
    assert rep.table_row("hybrid baseline", summarize([_rec("answerable")])).endswith("—")
    assert rep.HEADER.endswith("mean_tokens  saved/refusal")


@pytest.fixture()
def tiny(tmp_path: Path, resources):  # noqa: ANN001, ANN201
    path, corpus = _jsonl(tmp_path)
    ds = dsets.load_jsonl(path, corpus)
    yield tmp_path, ds
    forget_indexes()


def _run(tmp_path: Path, ds: dsets.Dataset, **overrides: object):  # noqa: ANN202
    s = dataset_settings(make_settings(tmp_path), tmp_path / "out", ds.name, **overrides)
    run = run_dataset(ds, s, ["hybrid"], models=shared_models())
    return s, {r.qid: r for r in run.records[("hybrid", "engineered")]}, run


def test_related_answers_count_as_refusals_and_save_nothing(tiny) -> None:  # noqa: ANN001
    tmp_path, ds = tiny
    # τ 0.99 with a full word match required: the rule refuses all but a question whose every
    # content word is in one chunk
    strict = {"refusal_tau": 0.99, "refusal_min_overlap": 1.0}
    s, refuse, _ = _run(tmp_path, ds, missing_context="refuse", **strict)
    _, related, run = _run(tmp_path, ds, missing_context="related", **strict)
    assert run.answerer_mismatches == 0
    gizmo = next(q.id for q in ds.questions if "Gizmo" in q.q)
    assert related[gizmo].refused and "1,250" in related[gizmo].answer  # the gold, shown as related
    assert not related[gizmo].correct and related[gizmo].strict in (None, False)
    assert related[gizmo].answer.startswith(NOT_IN_SOURCES)
    direct = make_pipeline(s.updated(trace_enabled=False), backend=None)
    assert sum(r.refused for r in refuse.values()) == 2
    for qid, r in refuse.items():
        assert r.refused == related[qid].refused and r.refusal_reason == related[qid].refusal_reason
        if not r.refused:
            continue
        assert not r.correct and not related[qid].correct
        assert r.answer == "I don't know." and related[qid].answer.startswith(NOT_IN_SOURCES)
        assert related[qid].tokens_saved == 0
        q = next(q for q in ds.questions if q.id == qid)
        t = direct.ask(q.q, record=False).trace  # the pipeline run directly with the thresholds set
        assert r.tokens_saved == t["tokens_saved"] == t["prompt_tokens"] == r.prompt_tokens > 0
    assert summarize(list(refuse.values()))["tokens_saved_per_refusal"] > 0
    assert summarize(list(related.values()))["tokens_saved_per_refusal"] == 0


def test_modes_agree_on_everything_but_the_refusal_text(tiny) -> None:  # noqa: ANN001
    tmp_path, ds = tiny
    _, refuse, _ = _run(tmp_path, ds, missing_context="refuse")
    _, related, _ = _run(tmp_path, ds, missing_context="related")
    for qid, r in refuse.items():
        x = related[qid]
        assert (r.refused, r.correct, r.strict, r.refusal_reason) == (x.refused, x.correct, x.strict, x.refusal_reason)
        if not r.refused:
            assert r.answer == x.answer and r.tokens_saved == x.tokens_saved == 0
    assert any(r.refused for r in refuse.values())  # the off-topic question
