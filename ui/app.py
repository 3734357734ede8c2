"""ContextLens web app: `streamlit run ui/app.py` (the UI renders; core/ and ingest/ decide)."""

from __future__ import annotations

import logging
from pathlib import Path

import streamlit as st

from core.errors import ContextLensError
from ui.components import one_line

log = logging.getLogger("ui.app")
VIEWS = Path(__file__).resolve().parent / "views"


def main() -> None:
    """Pages plus the one place where errors become a one-line st.error (never a traceback)."""
    st.set_page_config(page_title="ContextLens", page_icon=":material/manage_search:", layout="wide")
    nav = st.navigation(
        [
            st.Page(VIEWS / "chat.py", title="Chat", icon=":material/chat:", default=True),
            st.Page(VIEWS / "documents.py", title="Documents", icon=":material/folder_open:"),
            st.Page(VIEWS / "evaluation.py", title="Evaluation", icon=":material/insights:"),
        ]
    )
    try:
        nav.run()
    except ContextLensError as e:
        st.error(one_line(e), icon=":material/error:")
    except Exception as e:
        log.exception("unexpected error in the app")
        st.error(f"Unexpected error ({type(e).__name__}): {one_line(e)}", icon=":material/error:")


main()
