"""The evaluation harness: loaders, answer matching, metric math, the sweep, and the CLI end to end
on tiny synthetic inputs (real embedder, tokenizer, Chroma and ingest code)."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest

from apps.eval import datasets as dsets
from apps.eval.metrics import (
    Record,
    breakdown,
    grounding_histogram,
    is_correct,
    key_terms,
    keyterm_recall,
    phrase_in,
    strip_citations,
    summarize,
)
from apps.eval.runner import SweepRow, dataset_settings, ingest_dataset, pick
from apps.eval.sweep import frange, point, sweep
from core.answer import refusal
from core.answer.evidence import score_units
from core.answer.extractive import extractive_answer
from core.types import Fate, LedgerEntry
from tests.support.stores import close_stores as forget_indexes
from tests.support.stores import make_pipeline, make_settings, resources_for

REFUSAL = "I don't know."

PARAS = [
    (
        "The Zorblax widget was invented in 1987 by Mara Quill in the town of Fenwick. "
        "It weighs 12 kilograms and is painted teal."
    ),
    (
        "Fenwick is a small coastal town famous for its lighthouse. The lighthouse was built in 1850 "
        "and is 40 metres tall."
    ),
    "Widget exports from Fenwick reached 3 million units in 2001. Most widgets are shipped to Norway.",
]


def _squad(tmp: Path) -> Path:
    qas = [
        [
            {"id": "q1", "question": "Who invented the Zorblax widget?", "is_impossible": False,
             "answers": [{"text": "Mara Quill", "answer_start": 0}, {"text": "Quill", "answer_start": 5}]},
            {"id": "q2", "question": "Who painted the Zorblax widget teal?", "is_impossible": True,
             "answers": [], "plausible_answers": [{"text": "Mara Quill", "answer_start": 0}]},
        ],
        [{"id": "q3", "question": "How tall is the Fenwick lighthouse?", "is_impossible": False,
          "answers": [{"text": "40 metres", "answer_start": 0}]}],
        [{"id": "q4", "question": "Where are most widgets shipped?", "is_impossible": False,
          "answers": [{"text": "Norway", "answer_start": 0}]}],
    ]  # fmt: skip
    data = {
        "version": "v2.0",
        "data": [
            {
                "title": "Zorblax widget",
                "paragraphs": [{"context": c, "qas": q} for c, q in zip(PARAS, qas, strict=True)],
            }
        ],
    }
    path = tmp / "tiny-squad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _write_csv(path: Path, header: list[str], rows: list[list[object]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)


def _stici(tmp: Path, long_doc: bool = False) -> Path:
    d = tmp / "stici"
    d.mkdir(parents=True)
    filler = (
        " ".join(f"Filler sentence number {i} about nothing much." for i in range(4000)) if long_doc else ""
    )
    _write_csv(
        d / "documents.csv",
        ["index", "source_url", "text"],
        [
            [0, "https://example.org/wiki/Bullet_Kin?x=1", "Bullet Kin\nKeybullet kin drop a key upon death. "
             "Bandana bullet kin wield a machine pistol. " + filler],
            [1, "https://example.org/blog/giants", "The giants are twenty feet tall and grey-skinned."],
        ],
    )  # fmt: skip
    _write_csv(
        d / "single_passage_train_validate_questions.csv",
        ["document_index", "question", "answer"],
        [[0, "What do keybullet kin drop?", "Keybullet kin drop a key upon death."]],
    )
    _write_csv(
        d / "multi_passage_train_validate_questions.csv",
        ["document_index", "question", "answer"],
        [[1, "What do the giants look like?", "The giants are twenty feet tall and grey-skinned."]],
    )
    _write_csv(
        d / "no_answer_train_validate_questions.csv",
        ["document_index", "question"],
        [[0, "How much health does the Mutant Bullet Kin have?"]],
    )
    return d


def _jsonl(tmp: Path) -> tuple[Path, Path]:
    corpus = tmp / "corpus"
    (corpus / "products").mkdir(parents=True)
    (corpus / "products" / "gizmo.md").write_text(
        "# Gizmo G2\n\nThe Gizmo G2 costs $1,250 and has a rated payload of 3 kg.\n", encoding="utf-8"
    )
    (corpus / "hr.md").write_text(
        "# Holidays\n\nStaff get 28 days of paid holiday a year.\n", encoding="utf-8"
    )
    path = tmp / "tiny.jsonl"
    lines = [
        {"q": "How much does the Gizmo G2 cost?", "gold": ["$1,250", "1,250"], "doc": "products/gizmo.md"},
        {"q": "How many days of paid holiday do staff get?", "gold": ["28 days"], "doc": "hr.md"},
        {"q": "What is the CEO's email address?", "gold": "OOS", "doc": None},
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return path, corpus


# --- loaders ---------------------------------------------------------------------------------


def test_load_squad_writes_one_file_per_paragraph(tmp_path: Path) -> None:
    ds = dsets.load_squad(_squad(tmp_path), tmp_path / "work")
    assert ds.name == "squad-tiny-squad"
    files = sorted(p.relative_to(ds.corpus).as_posix() for p in ds.corpus.rglob("*.txt"))
    assert files == ["Zorblax-widget/p000.txt", "Zorblax-widget/p001.txt", "Zorblax-widget/p002.txt"]
    assert (ds.corpus / files[1]).read_text(encoding="utf-8").startswith("Fenwick is a small")
    by_id = {q.id: q for q in ds.questions}
    assert by_id["q1"].kind == "answerable" and by_id["q1"].gold == ("Mara Quill", "Quill")
    assert by_id["q1"].doc == "Zorblax-widget/p000.txt"
    assert by_id["q2"].kind == "unanswerable" and by_id["q2"].gold == ()
    assert ds.counts() == {"answerable": 3, "unanswerable": 1, "oos": 0}
    # a re-run leaves unchanged files alone (ingest stays incremental)
    os.utime(ds.corpus / files[0], ns=(1, 1))  # a rewrite would set a current mtime
    dsets.load_squad(_squad(tmp_path), tmp_path / "work")
    assert (ds.corpus / files[0]).stat().st_mtime_ns == 1


def test_load_stici_reads_long_fields_and_kinds(tmp_path: Path) -> None:
    ds = dsets.load_stici(_stici(tmp_path, long_doc=True), tmp_path / "work")
    assert ds.name == "stici-train_validate"
    names = sorted(p.name for p in ds.corpus.glob("*.txt"))
    assert names == ["00-Bullet_Kin.txt", "01-giants.txt"]
    assert len((ds.corpus / "00-Bullet_Kin.txt").read_text(encoding="utf-8")) > 131072  # csv's default cap
    kinds = {(q.group, q.kind) for q in ds.questions}
    assert kinds == {("single", "answerable"), ("multi", "answerable"), ("none", "unanswerable")}
    single = next(q for q in ds.questions if q.group == "single")
    assert single.doc == "00-Bullet_Kin.txt" and single.match == "keyterms"
    with pytest.raises(dsets.DatasetError):
        dsets.load_stici(_stici(tmp_path / "x", long_doc=False), tmp_path / "work", split="test")


def test_load_jsonl_and_offtopic(tmp_path: Path) -> None:
    path, corpus = _jsonl(tmp_path)
    ds = dsets.load_jsonl(path, corpus)
    assert [q.kind for q in ds.questions] == ["answerable", "answerable", "oos"]
    assert ds.questions[0].gold == ("$1,250", "1,250") and ds.questions[0].doc == "products/gizmo.md"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"q": "x", "gold": []}\n', encoding="utf-8")
    with pytest.raises(dsets.DatasetError, match="bad.jsonl:1"):
        dsets.load_jsonl(bad, corpus)
    off = tmp_path / "off.txt"
    off.write_text(
        "# comment\nWho painted The Night Watch?\n\nWhat is the capital of Mongolia?\n", encoding="utf-8"
    )
    qs = dsets.load_offtopic(off)
    assert [q.kind for q in qs] == ["oos", "oos"] and qs[0].group == "offtopic"


def test_shipped_offtopic_and_eval_set() -> None:
    root = Path(__file__).resolve().parents[2] / "data"
    assert len(dsets.load_offtopic(root / "offtopic.txt")) >= 20
    ds = dsets.load_jsonl(root / "eval.jsonl", root / "corpus")
    assert len(ds.questions) >= 30 and ds.counts()["oos"] >= 10
    for q in ds.questions:
        if q.doc:
            assert (root / "corpus" / q.doc).exists(), q.doc


def test_sampling_is_deterministic(tmp_path: Path) -> None:
    qs = [dsets.Question(f"q{i}", f"question {i}", "answerable", ("x",)) for i in range(50)]
    a = dsets.sample(qs, 10, 7, "set")
    assert a == dsets.sample(qs, 10, 7, "set")
    assert a != dsets.sample(qs, 10, 8, "set")
    assert a != dsets.sample(qs, 10, 7, "other")  # each dataset draws its own sample
    assert [q.id for q in a] == sorted((q.id for q in a), key=lambda x: int(x[1:]))  # input order
    assert dsets.sample(qs, None, 7, "set") == qs and dsets.sample(qs, 99, 7, "set") == qs


# --- answer matching and metric math ----------------------------------------------------------


def test_phrase_matching_rules() -> None:
    assert phrase_in("Mara  Quill", "It was invented by mara quill in 1987.")
    assert not phrase_in("10", "In 1987 it was built.")  # not inside a longer word
    assert phrase_in("$1,250", "It costs $1,250.")
    answer = "The lighthouse was built in 1850 (Fenwick/p001.txt). It is tall (Fenwick/p001.txt)."
    assert "Fenwick" not in strip_citations(answer)
    assert not is_correct(answer, ["Fenwick"], "phrase", "Where?", REFUSAL)  # a citation is no answer
    assert is_correct(answer, ["1850"], "phrase", "When?", REFUSAL)
    assert not is_correct(REFUSAL, ["I don't know"], "phrase", "q", REFUSAL)


def test_keyterm_matching() -> None:
    ref, q = "Keybullet kin drop a key upon death.", "What do keybullet kin drop?"
    assert key_terms(ref, q) == {"key", "upon", "death"}
    assert keyterm_recall("They drop keys when they die, upon death.", ref, q) == pytest.approx(1.0)
    assert is_correct("A key falls out upon death (Bullet_Kin.txt).", [ref], "keyterms", q, REFUSAL)
    assert not is_correct("Keybullet kin run away.", [ref], "keyterms", q, REFUSAL)
    # every content word already in the question: the reference's own words are the key terms
    assert key_terms("Perry", "Who is Perry?") == {"perry"}


def _rec(kind: str, setup: str = "engineered", **kw: object) -> Record:
    base: dict[str, object] = {
        "qid": "x", "kind": kind, "group": kind, "setup": setup, "mode": "hybrid", "answer": "a", "refused": False,
        "refusal_reason": "", "correct": False, "gold_retrieved": None, "gold_included": None, "latency_ms": 10.0,
        "prompt_tokens": 100, "context_tokens": 50, "top_score": 0.5, "grounding": 1.0,
    }  # fmt: skip
    base.update(kw)
    return Record(**base)  # type: ignore[arg-type]


def test_summarize_metric_math() -> None:
    recs = [
        _rec("answerable", correct=True, gold_retrieved=True, gold_included=True, latency_ms=10, prompt_tokens=100),
        _rec("answerable", correct=False, gold_retrieved=True, gold_included=False, latency_ms=20, prompt_tokens=200),
        _rec("answerable", refused=True, refusal_reason="top score 0.2 < τ 0.30", gold_retrieved=False,
             gold_included=False, latency_ms=30, prompt_tokens=300, grounding=None),
        _rec("answerable", correct=True, gold_retrieved=True, gold_included=True, latency_ms=40, prompt_tokens=400,
             grounding=0.5),
        _rec("unanswerable", refused=True, refusal_reason="best sentence score 0.1 < 0.30", grounding=None,
             latency_ms=50),
        _rec("unanswerable", latency_ms=60, grounding=0.0),
        _rec("oos", group="offtopic", refused=True, refusal_reason="context 3 tokens < minimum 80", grounding=None,
             latency_ms=70),
        _rec("oos", group="oos", latency_ms=80),
    ]  # fmt: skip
    m = summarize(recs)
    assert m["n"] == 8 and m["n_answerable"] == 4
    assert m["acc_answerable"] == 0.5
    assert m["false_refusal"] == 0.25
    assert m["refusal_unanswerable"] == 0.5
    assert m["refusal_oos"] == 0.5 and m["refusal_offtopic"] == 1.0
    assert m["refusal_unanswerable_oos"] == 0.5
    assert m["recall_at_k"] == 0.75 and m["gold_included"] == 0.5
    assert m["p50_ms"] == 45.0 and m["p90_ms"] == pytest.approx(73.0)
    assert m["mean_prompt_tokens"] == pytest.approx((100 + 200 + 300 + 400 + 4 * 100) / 8)
    assert m["mean_prompt_tokens_sent"] == pytest.approx((100 + 200 + 400 + 100 + 100) / 8)
    # grounding over answered questions only: 1, 1, 0.5, 0, 1
    assert m["grounding_mean"] == pytest.approx(0.7)
    assert m["grounding_hist"] == {"0-0.25": 1, "0.25-0.5": 0, "0.5-0.75": 1, "0.75-1": 0, "1": 3}
    assert m["balanced"] == pytest.approx(0.5)
    assert m["refusal_reasons"] == {
        "top score < tau": 1, "answerer: best sentence < min similarity": 1, "context < min tokens": 1,
    }  # fmt: skip
    outcomes = breakdown(
        [
            _rec("answerable", correct=True),
            _rec("answerable", refused=True, refusal_reason="top score 0.1 < τ 0.3"),
            _rec("answerable", answer_fate="over_budget", gold_fate="kept", gold_included=True),
            _rec("answerable", answer_fate="injected"),
            _rec("answerable", gold_fate="not_retrieved", gold_included=False),
        ]
    )
    assert outcomes == {
        "correct": 1,
        "refused: top score < tau": 1,
        "wrong, answer over budget": 1,
        "wrong, answer injected": 1,
        "wrong, gold document not_retrieved": 1,
    }
    assert grounding_histogram([0.24, 0.25, 0.99]) == {
        "0-0.25": 1,
        "0.25-0.5": 1,
        "0.5-0.75": 0,
        "0.75-1": 1,
        "1": 0,
    }


def test_sweep_math_and_recommendation() -> None:
    def row(kind: str, top: float | None, ctx: int, best_ok: bool, ans_ref_hi: bool = False) -> SweepRow:
        return SweepRow("d", "hybrid", kind, top, ctx, {0.3: (False, best_ok), 0.5: (ans_ref_hi, best_ok)})

    rows = [
        row("answerable", 0.8, 200, True),
        row("answerable", 0.6, 200, True),
        row("answerable", 0.35, 200, False),
        row("unanswerable", 0.4, 200, False),
        row("oos", 0.2, 200, False),
        row("oos", None, 0, False),
    ]
    from apps.eval.sweep import _arrays

    arr = _arrays(rows)
    p = point(arr, 0.0, 0, 0.3)  # only the no-evidence row refuses
    assert p["acc_answerable"] == pytest.approx(2 / 3) and p["refusal_negative"] == pytest.approx(1 / 3)
    p = point(arr, 0.5, 0, 0.3)  # τ 0.5: refuses 0.35, 0.4, 0.2 and None
    assert p["acc_answerable"] == pytest.approx(2 / 3) and p["refusal_negative"] == pytest.approx(1.0)
    assert p["false_refusal"] == pytest.approx(1 / 3) and p["balanced"] == pytest.approx(5 / 6)
    p = point(arr, 0.0, 300, 0.3)  # every context is under 300 tokens
    assert p["acc_answerable"] == 0.0 and p["refusal_negative"] == 1.0
    # the rule agrees with core.answer.refusal.decide, word-overlap rescue included
    # and the names the evidence does not hold
    overlapped = [SweepRow(r.dataset, r.mode, r.kind, r.top_score, r.context_tokens, r.by_ams, ov, un)
                  for r in rows for ov in (0.0, 0.4, 1.0) for un in (False, True)]  # fmt: skip
    for r in overlapped:
        for tau, m, mo in ((0.3, 80, 1.0), (0.5, 0, 0.34), (0.5, 0, 0.5), (0.0, 250, 1.0)):
            single = point(_arrays([r]), tau, m, 0.3, mo)
            refused = (single["refusal_negative"] or single["false_refusal"] or 0.0) == 1.0
            unheld = ("Zurich",) if r.unheld else ()
            decided = refusal.decide(r.top_score, r.context_tokens, tau, m, r.overlap, mo, unheld=unheld)
            assert refused == decided.refused, (r, tau, m, mo)
    # an overlap minimum of 0.34 lets the 0.35 answerable row (overlap 0.4) through at τ 0.5
    ov_rows = [SweepRow("d", "hybrid", "answerable", 0.35, 200, {0.3: (False, True)}, 0.4),
               SweepRow("d", "hybrid", "oos", 0.2, 200, {0.3: (False, False)}, 0.0)]  # fmt: skip
    p = point(_arrays(ov_rows), 0.5, 0, 0.3, 0.34)
    assert p["acc_answerable"] == 1.0 and p["refusal_oos"] == 1.0
    assert point(_arrays(ov_rows), 0.5, 0, 0.3, 0.5)["acc_answerable"] == 0.0
    res = sweep(
        rows,
        frange(0.0, 0.7, 0.1),
        [0, 100],
        {"tau": 0.3, "min_context_tokens": 80, "answer_min_similarity": 0.3},
    )
    # here refusing more costs no accuracy until τ 0.6: both objectives pick τ 0.5, the first grid
    # point with every unanswerable/OOS question refused and the best accuracy
    assert res["recommended"]["balanced"] == pytest.approx(5 / 6, abs=1e-4)
    assert res["recommended"]["tau"] == 0.5 and res["best"]["balanced"]["tau"] == 0.5
    assert res["current"]["tau"] == 0.3 and len(res["points"]) == 8 * 2 * 2

    # where refusing costs accuracy, the guarded objective keeps the answers, balanced does not
    weak = [
        row("answerable", 0.9, 200, True),
        row("answerable", 0.45, 200, True),
        row("unanswerable", 0.4, 200, False),
        row("unanswerable", 0.42, 200, False),
        row("unanswerable", 0.44, 200, False),
    ]
    cur = {"tau": 0.3, "min_context_tokens": 0, "answer_min_similarity": 0.3}
    guarded = sweep(weak, frange(0.0, 0.7, 0.1), [0], cur)
    assert guarded["recommended"]["tau"] == 0.0 and guarded["recommended"]["acc_mean"] == 1.0
    balanced = sweep(weak, frange(0.0, 0.7, 0.1), [0], cur, objective="balanced")
    assert balanced["recommended"]["tau"] == 0.5
    assert balanced["recommended"]["acc_mean"] == 0.5 and balanced["recommended"]["refusal_mean"] == 1.0
    assert guarded["best"]["balanced"] == balanced["recommended"]
    # a looser guard lets the refusal rule cost up to half the answers
    assert sweep(weak, frange(0.0, 0.7, 0.1), [0], cur, max_acc_loss=0.5)["recommended"]["tau"] == 0.5


def test_frange() -> None:
    assert frange(0.0, 0.7, 0.02)[-1] == 0.7 and len(frange(0.0, 0.7, 0.02)) == 36
    assert frange(0.2, 0.5, 0.05) == [0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5]


def test_pick_replays_the_extractive_answerer(resources) -> None:  # noqa: ANN001 - fixture
    from core.scoring import SentenceScorer

    scorer = SentenceScorer(resources.embedder)
    entries = [
        LedgerEntry(f"c{i}", f"doc{i}.txt", 0.5, Fate.KEPT, 40, injected_text=text)
        for i, text in enumerate(PARAS)
    ]
    for question in ("Who invented the Zorblax widget?", "How tall is the lighthouse?", "What is teal?",
                     "Unrelated words about volcanoes and penguins?"):  # fmt: skip
        scored = score_units(question, entries, scorer)
        for ams in (0.0, 0.2, 0.3, 0.45, 0.6):
            d = extractive_answer(question, entries, scorer, REFUSAL, ams)
            assert pick(scored, REFUSAL, ams) == (d.text, d.refused), (question, ams)


# --- against the real pipeline ------------------------------------------------------------------


@pytest.fixture()
def tiny_store(tmp_path: Path, resources):  # noqa: ANN001, ANN201 - fixtures
    path, corpus = _jsonl(tmp_path)
    ds = dsets.load_jsonl(path, corpus)
    s = dataset_settings(make_settings(tmp_path), tmp_path / "out", ds.name)
    report = ingest_dataset(s, ds, resources_for(s))
    assert report["embedded"] > 0 and not report["errors"]
    yield s, ds
    forget_indexes()


def test_post_hoc_refusal_equals_a_direct_run(tiny_store) -> None:  # noqa: ANN001 - fixture
    """The engineered setup is run with the rule opened and the rule applied afterwards: the same
    answers as running the pipeline with the thresholds set."""

    s, ds = tiny_store
    questions = [q.q for q in ds.questions] + ["Who painted The Night Watch?"]
    for tau, m in ((0.3, 80), (0.45, 0), (0.0, 40)):
        configured = s.model_copy(update={"refusal_tau": tau, "min_context_tokens": m})
        direct = make_pipeline(configured, backend=None)
        opened = make_pipeline(
            configured.model_copy(update={"refusal_tau": 0.0, "min_context_tokens": 0}), backend=None
        )
        for q in questions:
            a = direct.ask(q, record=False)
            b = opened.ask(q, record=False)
            d = refusal.decide(
                b.trace["top_score"], b.trace["context_tokens"], tau, m,
                b.trace["evidence_overlap"], configured.refusal_min_overlap,
                unheld=b.trace["evidence_unheld"],
            )  # fmt: skip
            text = configured.refusal_sentence if d.refused else b.text
            assert (text, d.refused or b.refused) == (a.text, a.refused), (q, tau, m)
            assert b.trace["prompt_tokens"] == a.trace["prompt_tokens"]


@pytest.mark.slow  # ~25 s: three tiny corpora ingested, two retrieval modes, both setups
def test_cli_end_to_end(tmp_path: Path, resources, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    from apps.eval.__main__ import main

    squad = _squad(tmp_path)
    stici = _stici(tmp_path)
    jsonl, corpus = _jsonl(tmp_path)
    off = tmp_path / "off.txt"
    off.write_text("Who painted The Night Watch?\nWhat is the capital of Mongolia?\n", encoding="utf-8")
    out = tmp_path / "out"
    argv = [
        "--squad", str(squad), "--stici", str(stici), "--jsonl", str(jsonl), "--corpus", str(corpus),
        "--offtopic", str(off), "--out", str(out), "--retrieval", "dense,hybrid", "--no-progress",
        "--tau-grid", "0:0.6:0.1", "--ctx-grid", "0,80", "--ams-grid", "0.2,0.3,0.4", "--overlap-grid", "0.34,1",
    ]  # fmt: skip
    base = make_settings(tmp_path)
    try:
        assert main(argv, base) == 0
    finally:
        forget_indexes()
    printed = capsys.readouterr().out
    assert printed.count("Setup                 Acc    FalseRef  Refusal@Unans") == 3
    assert "hybrid engineered" in printed and "Recommended (hybrid)" in printed
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert set(report["datasets"]) == {"squad-tiny-squad", "stici-train_validate", "tiny"}
    sq = report["datasets"]["squad-tiny-squad"]
    assert sq["counts"] == {"answerable": 3, "unanswerable": 1, "oos": 2}
    assert set(sq["modes"]) == {"dense", "hybrid"} and sq["baseline"]["n"] == 6
    assert sq["baseline"]["refusal_oos"] == 0.0  # the baseline never refuses
    assert sq["modes"]["hybrid"]["engineered"]["recall_at_k"] == 1.0
    assert sq["modes"]["hybrid"]["baseline"]["recall_at_5"] == 1.0
    assert sq["answerer_mismatches"] == 0
    # every gold answer is in a retrieved paragraph, and the baseline injects them all whole
    assert sq["modes"]["hybrid"]["baseline"]["answer_at_k"] == 1.0
    assert sq["modes"]["hybrid"]["baseline"]["answer_injected"] == 1.0
    rec = report["recommended"]
    assert set(rec) >= {
        "tau",
        "min_overlap",
        "min_context_tokens",
        "answer_min_similarity",
        "objective",
        "current",
    }
    assert rec["objective"] == "guarded" and rec["mode"] == "hybrid"
    n_ams = len({0.2, 0.3, 0.4, base.answer_min_similarity})  # the configured value is always swept
    assert len(report["tau_sweep"]) == 7 * 2 * n_ams * 2 and report["command"].startswith(
        "python -m apps.eval --squad"
    )
    assert (out / "calibration.png").stat().st_size > 1000
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "## squad-tiny-squad" in md and "Recommended: τ" in md and "calibration.png" in md
    lines = (out / "records.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == (6 + 5 + 5) * 2 * 2  # questions (+2 off-topic each) × modes × setups
    # calibrating again from the saved rows asks nothing and gives the same recommendation
    assert main(["--resweep", str(out), "--out", str(tmp_path / "cal"), "--tau-grid", "0:0.6:0.1",
                 "--ctx-grid", "0,80", "--overlap-grid", "0.34,1"], base) == 0  # fmt: skip
    cal = json.loads((tmp_path / "cal" / "report.json").read_text(encoding="utf-8"))
    assert cal["recommended"] == report["recommended"] and set(cal["datasets"]) == set(report["datasets"])
    assert (tmp_path / "cal" / "calibration.png").exists()
    # rows written before the word-overlap rule: the overlap minimum is not swept, not guessed
    rows_file = out / "sweep_rows.jsonl"
    legacy = [json.loads(line) for line in rows_file.read_text(encoding="utf-8").splitlines()]
    rows_file.write_text("".join(json.dumps({k: v for k, v in o.items() if k != "overlap"}) + "\n"
                                 for o in legacy), encoding="utf-8")  # fmt: skip
    assert main(["--resweep", str(out), "--out", str(tmp_path / "cal2")], base) == 0
    cal2 = json.loads((tmp_path / "cal2" / "report.json").read_text(encoding="utf-8"))
    assert {p["min_overlap"] for p in cal2["tau_sweep"]} == {1.0}
    # a re-run reuses the collections: nothing is embedded again
    assert main([*argv, "--no-sweep", "--retrieval", "dense"], base) == 0
    forget_indexes()
    again = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert all(d["ingest"]["embedded"] == 0 for d in again["datasets"].values())
    assert again["recommended"] is None


def test_cli_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from apps.eval.__main__ import main

    assert (
        main(
            ["--squad", str(tmp_path / "missing.json"), "--out", str(tmp_path / "o")], make_settings(tmp_path)
        )
        == 2
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and "missing.json" in err[0]
    assert main(["--retrieval", "sparse", "--out", str(tmp_path / "o")], make_settings(tmp_path)) == 2


def test_strict_rule_needs_every_phrase_and_no_forbidden_one() -> None:
    from apps.eval.metrics import is_strictly_correct

    ok = "- Rated payload: 5 kg (products/arm-x2.md).\n- Reach: 850 mm (products/arm-x2.md)."
    assert is_strictly_correct(ok, ("5 kg",), ("5 kg", "850 mm"), ("12 kg",), REFUSAL)
    assert not is_strictly_correct(
        "Rated payload: 5 kg (products/arm-x2.md).", ("5 kg",), ("5 kg", "850 mm"), (), REFUSAL
    )
    dump = "Payload | 5 kg | 12 kg (products/arm-x3.md)"
    assert is_correct(dump, ("5 kg",), "phrase", "payload?", REFUSAL)  # the lenient rule is fooled
    assert not is_strictly_correct(dump, ("5 kg",), ("5 kg",), ("12 kg",), REFUSAL)
    assert not is_strictly_correct(REFUSAL, ("5 kg",), (), (), REFUSAL)
    # a citation cannot satisfy a phrase
    assert not is_strictly_correct("See (products/arm-x2.md).", ("arm-x2",), ("arm-x2",), (), REFUSAL)


def test_jsonl_loads_strict_fields_and_rejects_bad_ones(tmp_path: Path) -> None:
    f = tmp_path / "q.jsonl"
    f.write_text(
        '{"q": "Payload of the X2?", "gold": ["5 kg"], "doc": "a.md", "all": ["5 kg"], "forbid": ["12 kg"], "type": "factual"}\n'
        '{"q": "Old style?", "gold": ["x"], "doc": "a.md"}\n',
        encoding="utf-8",
    )
    ds = dsets.load_jsonl(f, tmp_path)
    first, second = ds.questions
    assert (first.all, first.forbid, first.qtype) == (("5 kg",), ("12 kg",), "factual")
    assert (second.all, second.forbid, second.qtype) == ((), (), "")
    f.write_text('{"q": "Q?", "gold": ["x"], "type": "poetry"}\n', encoding="utf-8")
    with pytest.raises(dsets.DatasetError):
        dsets.load_jsonl(f, tmp_path)


def test_per_type_table_reports_strict_beside_lenient() -> None:
    from apps.eval import report as rep

    def typed(setup: str) -> list[Record]:
        return [
            _rec("answerable", setup, correct=True, strict=True, qtype="factual"),
            _rec("answerable", setup, correct=True, strict=setup == "engineered", qtype="factual"),
            _rec("answerable", setup, correct=False, strict=False, qtype="procedural"),
        ]

    eng = summarize(typed("engineered"))
    assert eng["by_type"]["factual"] == {"n": 2, "acc": 1.0, "strict": 1.0}
    assert eng["by_type"]["all"]["strict"] == pytest.approx(2 / 3, abs=1e-4)
    d = {"counts": {"answerable": 3, "unanswerable": 0, "oos": 0},
         "modes": {"hybrid": {"baseline": summarize(typed("baseline")), "engineered": eng}}}  # fmt: skip
    text = rep.table({"set": d}, "set")
    assert "strict" in text and "factual" in text and "0.500 / 1.000" in text
    assert "by_type" not in summarize([_rec("answerable", correct=True)])  # untyped sets: no table
