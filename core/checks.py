"""Checks of single settings as a form edits them: each returns the problem in words (naming the
field, never echoing a secret) or None, so a form can show the error next to the field and keep
using the last good value."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

from core.config import Settings
from core.errors import ContextLensError
from core.prompt.templates import load_templates


def templates_problem(path: Path) -> str | None:
    """Why this templates file cannot be used (unreadable, not JSON, missing a template), or None."""
    if not str(path).strip():
        return "Enter the path of a templates JSON file."
    try:
        load_templates(path)
    except ContextLensError as e:
        return str(e)
    return None


def base_url_problem(url: str | None) -> str | None:
    """An OpenAI-compatible base URL must be http(s) with a host (empty: no server)."""
    if not url:
        return None
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        return (
            "The base URL must start with http:// or https:// and name a host, e.g. http://localhost:11434/v1"
        )
    return None


def setting_problem(base: Settings, name: str, value: object) -> str | None:
    """What Settings' own validation says of this one value (bounds, types, choices), or None."""
    try:
        base.updated(**{name: value})
    except ContextLensError as e:
        return str(e).removeprefix("Invalid settings: ")
    return None
