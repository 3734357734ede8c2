"""The first screen of an empty conversation: what is indexed, four example questions to click
(core/onboarding.py chooses them), and what answers the questions."""

from __future__ import annotations

import json

import streamlit as st

from core.config import PROJECT_ROOT, Settings
from core.onboarding import Overview, example_questions, overview, read_lines
from ui import state
from ui.components import md_escape

KIND_ICON = {
    "factual": ":material/fact_check:",
    "procedural": ":material/format_list_numbered:",
    "comparison": ":material/compare_arrows:",
    "off-topic": ":material/block:",
}
KIND_HELP = {
    "factual": "a fact stated in one document",
    "procedural": "steps, answered as a numbered list",
    "comparison": "two things side by side",
    "off-topic": "not in the documents: ContextLens should refuse (“I don't know.”)",
}
OFFLINE_LINE = (
    "Answers come from the **offline extractive answerer**: it quotes the best-matching sentences, "
    "steps and table rows of the retrieved documents, each with its source, and says “I don't know.” "
    "when they do not cover the question. No model is called and nothing leaves this machine. To "
    "have an LLM write the answers, choose **OpenAI-compatible** under *Answer backend* in the "
    "sidebar, or set `CONTEXTLENS_LLM_BASE_URL` (and `CONTEXTLENS_LLM_API_KEY`) before `make run`."
)


@st.cache_resource(show_spinner=False, max_entries=8)
def _overview(store_key: str, documents: int, chunks: int, _settings: Settings) -> Overview:
    """The index overview, read again only when the document or chunk count changes."""
    return overview(state.index(_settings))


def index_overview(s: Settings) -> Overview:
    stats = state.index(s).stats()
    key = json.dumps([str(s.store_path), s.chroma_host, s.chroma_port, s.collection])
    return _overview(key, stats["documents"], stats["chunks"], s)


def render(s: Settings) -> None:
    """The onboarding empty state (nothing is shown for an empty index: the page says how to fill it)."""
    ov = index_overview(s)
    if ov.documents == 0:
        return
    with st.container(border=True, key="welcome"):
        st.markdown("#### What is indexed")
        cats = ", ".join(f"{md_escape(c)} ({n})" for c, n in ov.categories[:8]) or "none recorded"
        st.markdown(
            f"**{ov.documents} documents** in **{ov.chunks} chunks** · categories: {cats}",
            help="Open the Documents page to read or remove them.",
        )
        titles = ov.sample_titles(6)
        more = f" and {ov.documents - len(titles)} more" if ov.documents > len(titles) else ""
        st.caption("For example: " + "; ".join(md_escape(t) for t in titles) + more)
        st.markdown("#### Try a question")
        examples = example_questions(ov, s.examples_path, read_lines(PROJECT_ROOT / "data" / "offtopic.txt"))
        cols = st.columns(2)
        for n, ex in enumerate(examples):
            cols[n % 2].button(
                ex.question,
                key=f"example-{n}",
                icon=KIND_ICON.get(ex.kind),
                help=f"{ex.kind}: {KIND_HELP.get(ex.kind, '')}",
                on_click=state.ask_example,
                args=(ex.question,),
                width="stretch",
            )
        st.caption(OFFLINE_LINE if not s.uses_llm else f"Answers are written by `{md_escape(s.llm_model)}` "
                   "(OpenAI-compatible backend); if it fails, the extractive answer is shown, labelled.")  # fmt: skip
