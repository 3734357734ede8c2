"""ContextLens core: retrieval, context engineering and answering (no UI imports)."""
