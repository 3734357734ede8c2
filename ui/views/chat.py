"""Chat page script (run by st.navigation in ui/app.py)."""

from ui.chat import page

page()
