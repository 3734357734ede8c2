"""Documents page script (run by st.navigation in ui/app.py)."""

from ui.documents import page

page()
