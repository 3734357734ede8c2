"""The Evaluation page: renders whatever the eval harness (`python -m apps.eval`) left behind."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from core.config import PROJECT_ROOT
from core.errors import ContextLensError
from ui.components import md_escape

EVAL_DIR_ENV = "CONTEXTLENS_EVAL_DIR"  # named in the empty-page hint; read via Settings.eval_dir
# the browser cannot load report.md's relative image links; the PNGs are shown below the report
_LOCAL_IMAGE = re.compile(r"!\[[^\]]*\]\((?!https?://)[^)]*\)")


def eval_dir() -> Path:
    """The report folder: the eval_dir setting (CONTEXTLENS_EVAL_DIR), eval_out/ by default."""
    from ui.state import base_settings

    try:
        return base_settings().eval_dir.expanduser()
    except ContextLensError:
        return PROJECT_ROOT / "eval_out"


def page() -> None:
    """Render the latest evaluation report."""
    st.title("Evaluation", anchor=False)
    folder = eval_dir()
    report_json = folder / "report.json"
    report_md = folder / "report.md"
    plots = sorted(folder.glob("*.png")) if folder.is_dir() else []
    if not (report_json.is_file() or report_md.is_file() or plots):
        st.info(
            f"No evaluation report in `{md_escape(str(folder))}` yet. Run `python -m apps.eval` "
            f"(or set {EVAL_DIR_ENV} to a report folder) and reload.",
            icon=":material/insights:",
        )
        return
    newest = max(p.stat().st_mtime for p in [report_json, report_md, *plots] if p.is_file())
    st.caption(
        f"From `{md_escape(str(folder))}` · updated {dt.datetime.fromtimestamp(newest):%Y-%m-%d %H:%M}"
    )
    if report_json.is_file():
        show_json(report_json)
    if report_md.is_file():
        with st.container(border=True):
            st.markdown(_LOCAL_IMAGE.sub("", report_md.read_text(encoding="utf-8", errors="replace")))
    for png in plots:
        st.image(str(png), caption=png.name)


def show_json(path: Path) -> None:
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        st.error(f"Cannot read {path.name}: {getattr(e, 'msg', None) or e}")
        return
    if isinstance(data, dict):
        headline = {k: v for k, v in data.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
        if headline:
            cols = st.columns(min(4, len(headline)))
            for n, (k, v) in enumerate(list(headline.items())[:8]):
                cols[n % len(cols)].metric(k.replace("_", " "), f"{v:.3g}" if isinstance(v, float) else v)
        for k, v in data.items():
            if isinstance(v, list) and v and all(isinstance(r, dict) for r in v):
                st.markdown(f"**{md_escape(k.replace('_', ' '))}**")
                st.dataframe(pd.DataFrame(v).astype(str), hide_index=True, width="stretch")
    with st.expander("report.json", icon=":material/data_object:"):
        st.json(data, expanded=2)
