"""ContextLens web app: `streamlit run ui/app.py` (the UI renders; core/ and ingest/ decide)."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `streamlit run ui/app.py` puts only ui/ on the path
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402  (after the path fix above)

from core.errors import ContextLensError  # noqa: E402
from ui.components import one_line  # noqa: E402

log = logging.getLogger("ui.app")
VIEWS = Path(__file__).resolve().parent / "views"


def main() -> None:
    """Pages plus the one place where errors become a one-line st.error (never a traceback)."""
    st.set_page_config(page_title="ContextLens", page_icon=":material/manage_search:", layout="wide")
    nav = st.navigation(
        [
            st.Page(VIEWS / "chat.py", title="Chat", icon=":material/chat:", default=True),
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
