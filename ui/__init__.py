"""ContextLens Streamlit UI: renders what core/ and ingest/ compute (no retrieval or budgeting here)."""
