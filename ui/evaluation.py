"""The Evaluation page: renders whatever the eval harness (`python -m apps.eval`) left behind —
the baseline-vs-engineered table per dataset and the plots first, the calibration grid and the full
report folded below."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from apps.eval.report import counts_line, headline_rows
from core.config import PROJECT_ROOT
from core.errors import ContextLensError
from ui.components import md_escape

EVAL_DIR_ENV = "CONTEXTLENS_EVAL_DIR"  # named in the empty-page hint; read via Settings.eval_dir
# the browser cannot load report.md's relative image links; the PNGs are shown by st.image
_LOCAL_IMAGE = re.compile(r"!\[[^\]]*\]\((?!https?://)[^)]*\)")


def eval_dir() -> Path:
    """The report folder: the eval_dir setting (CONTEXTLENS_EVAL_DIR), eval_out/ by default."""
    from ui.state import base_settings

    try:
        return base_settings().eval_dir.expanduser()
    except ContextLensError:
        return PROJECT_ROOT / "eval_out"


def shown_path(folder: Path) -> str:
    """The folder as a command line names it: relative to the project when inside it."""
    try:
        return str(folder.resolve().relative_to(PROJECT_ROOT))
    except ValueError:
        return str(folder)


def eval_command(folder: Path) -> str:
    """The exact command that writes a report into this folder (run in the project folder)."""
    return f".venv/bin/python -m apps.eval --jsonl data/eval.jsonl --out {shown_path(folder)}"


def page() -> None:
    """Render the latest evaluation report."""
    st.title("Evaluation", anchor=False)
    folder = eval_dir()
    report_json = folder / "report.json"
    report_md = folder / "report.md"
    plots = sorted(folder.glob("*.png")) if folder.is_dir() else []
    if not (report_json.is_file() or report_md.is_file() or plots):
        empty_state(folder)
        return
    newest = max(p.stat().st_mtime for p in [report_json, report_md, *plots] if p.is_file())
    st.caption(
        f"From `{shown_path(folder).replace('`', '')}` · updated {dt.datetime.fromtimestamp(newest):%Y-%m-%d %H:%M}"
    )
    data = read_json(report_json) if report_json.is_file() else None
    if isinstance(data, dict):
        headline(data)
    for png in plots:
        st.image(str(png), caption=png.name)
    if isinstance(data, dict):
        calibration(data)
    if report_md.is_file():
        with st.expander("Full report (report.md)", icon=":material/description:"):
            st.markdown(_LOCAL_IMAGE.sub("", report_md.read_text(encoding="utf-8", errors="replace")))
    if data is not None:
        with st.expander("report.json", icon=":material/data_object:"):
            st.json(data, expanded=1)


def empty_state(folder: Path) -> None:
    st.info(
        f"No evaluation report in `{shown_path(folder).replace('`', '')}` yet. In the project folder, run "
        f"the command below (a few minutes on the sample set), then open this page again — or set "
        f"`{EVAL_DIR_ENV}` to a folder that holds a report.",
        icon=":material/insights:",
    )
    st.code(eval_command(folder), language="bash")


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        st.error(f"Cannot read {path.name}: {getattr(e, 'msg', None) or e}")
        return None


def headline(data: dict[str, Any]) -> None:
    """Baseline vs engineered per dataset (a report without datasets: its top-level numbers)."""
    tables = headline_rows(data)
    if not tables:
        numbers = {k: v for k, v in data.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
        cols = st.columns(min(4, len(numbers))) if numbers else []
        for n, (k, v) in enumerate(list(numbers.items())[:8]):
            cols[n % len(cols)].metric(k.replace("_", " "), f"{v:.3g}" if isinstance(v, float) else v)
        return
    st.subheader("Baseline vs engineered", anchor=False)
    st.caption(
        "Baseline: the top-k chunks concatenated blindly (no budget, dedupe or refusal). Engineered: the "
        "full pipeline. Same answerer, same questions."
    )
    for name, rows in tables.items():
        n = counts_line(data["datasets"][name])
        st.markdown(f"**{md_escape(name)}**" + (f" · {md_escape(n)}" if n else ""))
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", column_config=_FORMATS)


_FORMATS = {
    **{
        c: st.column_config.NumberColumn(format="%.3f")
        for c in (
            "accuracy",
            "false refusals",
            "refused unanswerable",
            "refused off-topic",
            "recall@k",
            "grounding",
        )
    },
    "mean prompt tokens": st.column_config.NumberColumn(format="%d"),
    "p50 ms": st.column_config.NumberColumn(format="%.1f"),
    "p90 ms": st.column_config.NumberColumn(format="%.1f"),
}


def calibration(data: dict[str, Any]) -> None:
    """The recommendation in one line, the τ-sweep grid folded (strings: cells may be dicts)."""
    rec = data.get("recommended")
    if isinstance(rec, dict):
        keys = ("tau", "min_overlap", "min_context_tokens", "answer_min_similarity")
        st.caption(
            "Calibration recommends "
            + ", ".join(f"{k.replace('_', ' ')} {rec[k]}" for k in keys if k in rec)
            + f" (objective: {md_escape(str(rec.get('objective', '?')))})"
        )
    grid = data.get("tau_sweep")
    if isinstance(grid, list) and grid and all(isinstance(r, dict) for r in grid):
        with st.expander(f"Calibration grid ({len(grid)} points)", icon=":material/grid_on:"):
            st.dataframe(pd.DataFrame(grid).astype(str), hide_index=True, width="stretch")
    for key, value in data.items():  # other row lists a report may hold (the evidence curve, …)
        if (
            key != "tau_sweep"
            and isinstance(value, list)
            and value
            and all(isinstance(r, dict) for r in value)
        ):
            with st.expander(key.replace("_", " "), icon=":material/table:"):
                st.dataframe(pd.DataFrame(value).astype(str), hide_index=True, width="stretch")
