"""The eval's outputs: the console table, DIR/report.json and DIR/report.md."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from apps.eval.curve import curve_table
from apps.eval.metrics import GROUNDING_BINS, KEYTERM_MIN_RECALL

HEADER = (
    "Setup                 Acc    FalseRef  Refusal@Unans  Refusal@OOS  Recall@k  p50_ms  p90_ms  mean_tokens"
    "  saved/refusal"
)
_WIDTHS = (22, 7, 10, 15, 13, 10, 8, 8, 13)
_COLS = (
    "acc_answerable",
    "false_refusal",
    "refusal_unanswerable",
    "refusal_oos",
    "recall_at_k",
    "p50_ms",
    "p90_ms",
    "mean_prompt_tokens",
    "tokens_saved_per_refusal",
)


_TOKENS = ("mean_prompt_tokens", "tokens_saved_per_refusal", "mean_prompt_tokens_sent")


def _fmt(value: Any, ms: bool = False, tokens: bool = False) -> str:
    if value is None:
        return "—"
    if ms:
        return f"{value:.1f}"
    if tokens:
        return f"{value:.0f}"
    if isinstance(value, float) and value <= 1.0:
        return f"{value:.3f}"
    return f"{value:.0f}" if isinstance(value, float) else str(value)


def table_row(label: str, m: dict[str, Any]) -> str:
    """One line of the console table, aligned under HEADER."""
    cells = [label[:21]] + [_fmt(m.get(c), ms=c.endswith("_ms"), tokens=c in _TOKENS) for c in _COLS]
    last = cells.pop()
    return "".join(c.ljust(w) for c, w in zip(cells, _WIDTHS, strict=True)) + last


def table(datasets: dict[str, Any], name: str) -> str:
    """The console table of one dataset: a baseline and an engineered row per retrieval mode."""
    d = datasets[name]
    lines = [f"{name}  (n={_n_line(d)})", HEADER]
    for mode, setups in d["modes"].items():
        for setup in ("baseline", "engineered"):
            lines.append(table_row(f"{mode} {setup}", setups[setup]))
    by_type = type_table(d)
    if by_type:
        lines += [
            "",
            "Accuracy per question type (lenient: a gold phrase; strict: all phrases, none forbidden)",
            *by_type,
        ]
    return "\n".join(lines)


def type_table(d: dict[str, Any]) -> list[str]:
    """Lenient and strict accuracy per question type, baseline vs engineered (typed sets only)."""
    rows: list[str] = []
    for mode, setups in d["modes"].items():
        base, eng = setups["baseline"].get("by_type"), setups["engineered"].get("by_type")
        if not base or not eng:
            continue
        rows.append(f"{mode}: type           n    lenient base/eng   strict base/eng")
        for t, e in eng.items():
            b = base.get(t, {})
            rows.append(
                f"  {t:<16}{e['n']:>4}    {_fmt(b.get('acc'))} / {_fmt(e['acc'])}        "
                f"{_fmt(b.get('strict'))} / {_fmt(e['strict'])}"
            )
    return rows


def _n_line(d: dict[str, Any]) -> str:
    c = d["counts"]
    return f"{c['answerable']} answerable, {c['unanswerable']} unanswerable, {c['oos']} out-of-scope"


def _md_table(d: dict[str, Any]) -> list[str]:
    head = ["Setup", "Acc", "FalseRef", "Refusal@Unans", "Refusal@OOS", "Recall@k", "p50_ms", "p90_ms",
            "mean_tokens", "saved/refusal", "tokens sent", "grounding", "Recall@5"]  # fmt: skip
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for mode, setups in d["modes"].items():
        for setup in ("baseline", "engineered"):
            m = setups[setup]
            cells = [f"{mode} {setup}"]
            cells += [_fmt(m.get(c), ms=c.endswith("_ms"), tokens=c in _TOKENS) for c in _COLS]
            cells += [_fmt(m.get("mean_prompt_tokens_sent"), tokens=True), _fmt(m.get("grounding_mean")),
                      _fmt(m.get("recall_at_5"))]  # fmt: skip
            out.append("| " + " | ".join(cells) + " |")
    return out


HEADLINE = (  # (report metric, column title) of the baseline-vs-engineered table, in order
    ("acc_answerable", "accuracy"),
    ("false_refusal", "false refusals"),
    ("refusal_unanswerable", "refused unanswerable"),
    ("refusal_oos", "refused off-topic"),
    ("recall_at_k", "recall@k"),
    ("grounding_mean", "grounding"),
    ("mean_prompt_tokens", "mean prompt tokens"),
    ("p50_ms", "p50 ms"),
    ("p90_ms", "p90 ms"),
)


def headline_rows(report: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Per dataset, its baseline and engineered rows (per retrieval mode) with the headline
    metrics: what the Evaluation page shows first. Values are as measured (None: not measured)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for name, d in (report.get("datasets") or {}).items():
        rows = []
        for mode, setups in (d.get("modes") or {}).items():
            for setup in ("baseline", "engineered"):
                m = setups.get(setup) or {}
                rows.append({"setup": f"{mode} {setup}", **{title: m.get(key) for key, title in HEADLINE}})
        out[name] = rows
    return out


def counts_line(d: dict[str, Any]) -> str:
    """ "n answerable, n unanswerable, n out-of-scope" of a dataset's entry in report.json."""
    try:
        return _n_line(d)
    except (KeyError, TypeError):
        return ""


def write_json(path: Path, report: dict[str, Any]) -> None:
    """report.json (UTF-8, indented)."""
    path.write_text(json.dumps(report, indent=1, ensure_ascii=False, default=str), encoding="utf-8")


def write_markdown(path: Path, report: dict[str, Any], plots: Sequence[str]) -> None:
    """report.md: command, settings, a table per dataset and mode, the calibration and its plot."""
    s = report["settings"]
    lines = [
        "# ContextLens evaluation",
        "",
        f"Command: `{report['command']}`  ",
        *(
            [f"Calibrated again from the saved runs in {', '.join(report['sources'])} (times are theirs).  "]
            if report.get("sources")
            else []
        ),  # fmt: skip
        (
            f"Wall time: {report['seconds']:.0f} s (ingest {report['timing']['ingest_seconds']:.0f} s, "
            f"questions {report['timing']['ask_seconds']:.0f} s); {report['timing']['asks']} pipeline calls; "
            f"load average at the end {report['timing'].get('loadavg', '?')}."
        ),
        "",
        (
            f"Settings: k={s['top_k']}, knowledge budget={s['knowledge_budget']}, τ={s['refusal_tau']}, "
            f"word-overlap minimum={s.get('refusal_min_overlap', '—')}, min context tokens={s['min_context_tokens']}, answerer min similarity="
            f"{s['answer_min_similarity']}, evidence order={s.get('evidence_order', '?')}, retrieval modes="
            f"{', '.join(report['modes'])}, answerer: extractive "
            "(the same for both setups)."
        ),
        "",
        (
            "**baseline** = the top-k chunks concatenated blindly (no budget, dedupe or refusal); "
            "**engineered** = the full pipeline (dedupe, budget, ranked summaries, refusal rule, answerer "
            "threshold). Acc = a gold answer appears in the answer (answerable questions; a refusal is wrong); "
            "FalseRef = answerable questions refused; Refusal@Unans / @OOS = the answer is exactly the refusal "
            "sentence; Recall@k = the gold document is among the k retrieved chunks' sources; p50/p90_ms = "
            "retrieval + budgeting per question (the query embedding is computed once before both setups and "
            "excluded from both); mean_tokens = the prompt the pipeline assembles (trace prompt_tokens), "
            "tokens sent = the same with refused questions counted as 0 (no model call); saved/refusal = "
            "the mean, over refused questions, of the prompt tokens a refusal did not send (trace "
            "tokens_saved: the built prompt's total for a refusal by the rule in refuse mode; 0 for the "
            "answerer's refusals and in related mode, where an LLM would be sent the prompt); grounding = mean "
            "grounding score of answered questions."
        ),
        "",
        (
            "Matching: citations are removed from the answer first. Phrase gold (SQuAD, JSONL): any gold "
            "phrase appears, case-insensitive, not inside a longer word. STICI (free-text reference answers): "
            "key terms = the reference's content words not already in the question (lower-cased, plural -s "
            f"dropped); correct when ≥ {KEYTERM_MIN_RECALL:.0%} of them appear in the answer."
        ),
        "",
    ]
    for name, d in report["datasets"].items():
        ing = d.get("ingest", {})
        lines += [
            f"## {name}",
            "",
            (
                f"{_n_line(d)}; collection `{d['collection']}`; ingest: {ing.get('files', '?')} files, "
                f"{ing.get('chunks_added', 0) + ing.get('chunks_unchanged', 0)} chunks, "
                f"{ing.get('embedded', 0)} embedded this run in {ing.get('seconds', 0):.1f} s."
            ),
            "",
            *_md_table(d),
            "",
            *(["```", *type_table(d), "```", ""] if type_table(d) else []),
        ]
        for mode, setups in d["modes"].items():
            e = setups["engineered"]
            b = setups["baseline"]
            line = (
                f"- {mode}: engineered refusals by reason {e.get('refusal_reasons') or {}}; a retrieved "
                f"chunk contains a gold answer for {_fmt(b.get('answer_at_k'))} of answerable; the gold "
                f"answer is in the injected text for {_fmt(b.get('answer_injected'))} (baseline) vs "
                f"{_fmt(e.get('answer_injected'))} (engineered); gold document injected "
                f"{_fmt(b.get('gold_included'))} vs {_fmt(e.get('gold_included'))}; grounding histogram "
                f"(engineered) {e.get('grounding_hist')}"
            )
            if "keyterm_recall_mean" in e:
                line += (
                    f"; mean key-term recall baseline {_fmt(b.get('keyterm_recall_mean'))}, "
                    f"engineered {_fmt(e.get('keyterm_recall_mean'))}"
                )
            extra = [
                line,
                (
                    f"  - answerable outcomes: baseline {b.get('answerable_breakdown')}; engineered "
                    f"{e.get('answerable_breakdown')}"
                ),
            ]
            lines += extra
        lines.append("")
    cal = report.get("calibration")
    if cal and cal.get("recommended"):
        lines += _calibration_md(cal, plots)
    if report.get("curve"):
        lines += [
            "## Evidence kept vs tokens",
            "",
            "Answerable questions; gold in context = the knowledge block as built holds a gold answer; "
            "accuracy with the configured refusal rule. blind = the top-k unbudgeted; chunks = whole "
            "chunks walked in evidence order; units = unit packing.",
            "",
            *curve_table(report["curve"]),
            "",
            "![evidence kept vs tokens](curve.png)",
            "",
        ]
    lines += [
        f"Grounding histogram bins: {list(GROUNDING_BINS)} (last bin = exactly 1).",
        "",
    ]
    path.write_text("\n".join(lines), encoding="utf-8")


def _point(p: dict[str, Any] | None) -> str:
    if not p:
        return "—"
    return (
        f"τ={p['tau']}, overlap={p.get('min_overlap', '—')}, min ctx={p['min_context_tokens']}, "
        f"answerer={p['answer_min_similarity']}"
    )


def _calibration_md(cal: dict[str, Any], plots: Sequence[str]) -> list[str]:
    r, c = cal["recommended"], cal["current"]
    bal = (cal.get("best") or {}).get("balanced")
    lines = [
        "## Threshold calibration",
        "",
        f"Mode: {cal['mode']}. Grid: τ {cal['grid']['tau']}, word-overlap minimum "
        f"{cal['grid'].get('min_overlap', '—')}, min context tokens "
        f"{cal['grid']['min_context_tokens']}, answerer min similarity {cal['grid']['answer_min_similarity']}. "
        "Accuracy = on answerable questions; refusal = on unanswerable + out-of-scope questions together. "
        "In-sample: the thresholds are chosen on the same questions they are scored on.",
        "",
        f"Objective ({cal['objective_name']}): {cal['objective']}.",
        "",
        f"**Recommended: τ = {r['tau']}, refusal_min_overlap = {r.get('min_overlap', '—')}, "
        f"min_context_tokens = {r['min_context_tokens']}, "
        f"answer_min_similarity = {r['answer_min_similarity']}** — mean accuracy {_fmt(r['acc_mean'])}, "
        f"mean refusal {_fmt(r['refusal_mean'])} (current settings: {_fmt(c['acc_mean'])} / "
        f"{_fmt(c['refusal_mean'])}).",
        "",
        "| Dataset | best accuracy on the grid | current: acc / refusal | recommended: acc / refusal "
        "(unanswerable, OOS) | best balanced accuracy: acc / refusal |",
        "|---|---|---|---|---|",
    ]
    for name, rr in r["datasets"].items():
        rc = c["datasets"][name]
        rb = bal["datasets"][name] if bal else None
        lines.append(
            f"| {name} | {_fmt(cal['best_accuracy'].get(name))} | {_fmt(rc['acc_answerable'])} / "
            f"{_fmt(rc['refusal_negative'])} | {_fmt(rr['acc_answerable'])} / {_fmt(rr['refusal_negative'])} "
            f"({_fmt(rr.get('refusal_unanswerable'))}, {_fmt(rr.get('refusal_oos'))}) | "
            + (f"{_fmt(rb['acc_answerable'])} / {_fmt(rb['refusal_negative'])}" if rb else "—")
            + " |"
        )
    lines += ["", f"Best balanced accuracy ({_fmt(bal['balanced']) if bal else '—'}) at {_point(bal)}.", ""]
    for mode, rec in (cal.get("by_mode") or {}).items():
        lines.append(
            f"- {mode} (answerer threshold not swept): recommended {_point(rec)} — accuracy "
            f"{_fmt(rec['acc_mean'])}, refusal {_fmt(rec['refusal_mean'])}"
        )
    lines.append("")
    for p in plots:
        lines += [f"![accuracy vs refusal]({p})", ""]
    return lines
