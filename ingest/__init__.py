"""Ingest: load files, chunk by tokens, embed in batches, sync into Chroma and the lexical index."""
