"""Prompt templates, loaded from an editable JSON file (data/templates.json by default)."""

from __future__ import annotations

import json
import string
from dataclasses import dataclass, field
from pathlib import Path

from core.errors import SettingsError

QUERY_TYPES = ("factual", "comparison", "procedural", "analytical")


@dataclass(frozen=True)
class Templates:
    """The system prompt, per-type procedures and the section wrappers."""

    system: str
    types: dict[str, str] = field(default_factory=dict)
    knowledge: str = "{context}"
    memory: str = "{snippets}"
    user: str = "{question}"

    def system_prompt(self, refusal: str) -> str:
        return _fill(self.system, refusal=refusal)

    def procedure(self, query_type: str) -> str:
        return self.types.get(query_type, "")

    def knowledge_message(self, context: str, question: str) -> str:
        return _fill(self.knowledge, context=context, question=question)

    def memory_message(self, snippets: str) -> str:
        return _fill(self.memory, snippets=snippets)

    def user_message(self, question: str, context: str = "") -> str:
        return _fill(self.user, question=question, context=context)


def _fill(template: str, **values: str) -> str:
    """Replace only the known {placeholders}; other braces in user-edited text stay literal."""
    out = []
    for literal, name, _spec, _conv in string.Formatter().parse(template):
        out.append(literal)
        if name is None:
            continue
        out.append(values[name] if name in values else "{" + name + "}")
    return "".join(out)


def load_templates(path: Path) -> Templates:
    """Read and validate a templates file; a broken file is a SettingsError with the reason."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise SettingsError(f"Cannot read templates file {path}: {e.strerror or e}") from e
    except json.JSONDecodeError as e:
        raise SettingsError(f"Templates file {path} is not valid JSON (line {e.lineno}): {e.msg}") from e
    if not isinstance(raw, dict) or not isinstance(raw.get("system"), str):
        raise SettingsError(f"Templates file {path} needs a string 'system' entry")
    types = raw.get("types", {})
    if not isinstance(types, dict) or not all(isinstance(v, str) for v in types.values()):
        raise SettingsError(f"Templates file {path}: 'types' must map query types to strings")
    user = raw.get("user", "{question}")
    if "{question}" not in user:
        raise SettingsError(f"Templates file {path}: the 'user' template must contain {{question}}")
    return Templates(
        system=raw["system"],
        types={str(k): v for k, v in types.items()},
        knowledge=str(raw.get("knowledge", "{context}")),
        memory=str(raw.get("memory", "{snippets}")),
        user=user,
    )
