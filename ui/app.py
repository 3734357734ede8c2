"""ContextLens web app: `streamlit run ui/app.py` (the UI renders; core/ and ingest/ decide)."""

from __future__ import annotations

import logging
from pathlib import Path

import streamlit as st

from core.errors import ContextLensError
from ui.components import one_line

log = logging.getLogger("ui.app")
VIEWS = Path(__file__).resolve().parent / "views"
NARROW_PX = 1024  # below this width the sidebar starts collapsed (Streamlit's own "auto" stops at 768)
# Collapse the sidebar once per browser tab on a narrow window; Streamlit remembers the user's own
# toggling from then on. A collapsed sidebar still opens from its ">" button.
NARROW_SCREEN = f"""<script>
(() => {{
  if (window.innerWidth >= {NARROW_PX} || sessionStorage.getItem("cl-narrow-sidebar")) return;
  const collapse = (tries) => {{
    const bar = document.querySelector('[data-testid="stSidebar"]');
    const button = document.querySelector('[data-testid="stSidebarCollapseButton"] button');
    if (bar && (bar.dataset.collapsed === "true" || button)) {{
      if (bar.dataset.collapsed !== "true") button.click();
      sessionStorage.setItem("cl-narrow-sidebar", "1");
      return;
    }}
    if (tries > 0) setTimeout(() => collapse(tries - 1), 200);
  }};
  collapse(50);
}})();
</script>"""


def main() -> None:
    """Pages plus the one place where errors become a one-line st.error (never a traceback)."""
    st.set_page_config(page_title="ContextLens", page_icon=":material/manage_search:", layout="wide")
    st.html(NARROW_SCREEN, unsafe_allow_javascript=True)
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
