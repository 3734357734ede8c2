"""Typed errors raised by core and ingest; the UI and CLIs turn them into one-line messages."""


class ContextLensError(Exception):
    """Base class: str(error) is a message fit for a user."""


class SettingsError(ContextLensError):
    """A setting is missing or invalid."""


class StoreUnavailable(ContextLensError):
    """The vector store (embedded or a Chroma server) cannot be reached."""


class IngestError(ContextLensError):
    """A file could not be loaded or indexed."""


class BackendError(ContextLensError):
    """The LLM backend failed (connection, status, timeout or malformed reply)."""
