"""Evaluation page script (run by st.navigation in ui/app.py)."""

from ui.evaluation import page

page()
