"""Prompt templates, loaded from an editable JSON file (data/templates.json by default).

The system, knowledge and user templates take the same placeholders: `{question}`, `{context}`
(the knowledge block) and `{refusal}` (the refusal sentence, or in `related` mode the
related-sources sentence); the memory template takes `{snippets}` and `{question}`, the optional
`related` instruction `{question}` and `{refusal}`. The evidence goes where `{context}` stands:
in its own knowledge message (the default, "knowledge": "{context}"), or, with "knowledge": "",
inside the system or the user message — exactly one template places it. `{{` and `}}` are literal
braces. Anything else is a SettingsError naming the template and the placeholder, raised when the
file is loaded, so a broken template never reaches a question.
"""

from __future__ import annotations

import json
import string
from dataclasses import dataclass, field
from pathlib import Path

from core.errors import SettingsError

QUERY_TYPES = ("factual", "comparison", "procedural", "analytical")
SHARED = ("question", "context", "refusal")  # the system, knowledge and user templates alike
PLACEHOLDERS: dict[str, tuple[str, ...]] = {
    "system": SHARED,
    "knowledge": SHARED,
    "user": SHARED,
    "memory": ("snippets", "question"),
    "related": ("question", "refusal"),
}
HOSTS = ("knowledge", "system", "user")  # the templates that may place the evidence
# appended to the system message in `related` mode, where {refusal} is the related-sources sentence
RELATED_INSTRUCTION = (
    "- When you reply with that sentence, follow it with the most relevant partial information the "
    "passages do contain, each point with its citation; if nothing in them is related, say so."
)


@dataclass(frozen=True)
class Templates:
    """The system prompt, per-type procedures and the section wrappers; context_in names the
    template whose {context} receives the knowledge block."""

    system: str
    types: dict[str, str] = field(default_factory=dict)
    knowledge: str = "{context}"
    memory: str = "{snippets}"
    user: str = "{question}"
    related: str = RELATED_INSTRUCTION
    context_in: str = "knowledge"

    def system_prompt(
        self, refusal: str, question: str = "", context: str = "", related: bool = False
    ) -> str:
        """The system message; related mode appends the related instruction."""
        here = self._here("system", context)
        text = _fill(self.system, refusal=refusal, question=question, context=here)
        return f"{text}\n{_fill(self.related, question=question, refusal=refusal)}" if related else text

    def procedure(self, query_type: str) -> str:
        return self.types.get(query_type, "")

    def knowledge_message(self, context: str, question: str, refusal: str = "") -> str:
        """The separate knowledge message ("" when another template places the evidence)."""
        if self.context_in != "knowledge":
            return ""
        return _fill(self.knowledge, context=context, question=question, refusal=refusal)

    def memory_message(self, snippets: str, question: str = "") -> str:
        return _fill(self.memory, snippets=snippets, question=question)

    def user_message(self, question: str, context: str = "", refusal: str = "") -> str:
        return _fill(self.user, question=question, context=self._here("user", context), refusal=refusal)

    def _here(self, name: str, context: str) -> str:
        return context if self.context_in == name else ""


def _fill(template: str, **values: str) -> str:
    """Each {placeholder} replaced by its value (checked at load: every name is known); a value's
    own braces stay literal, since the result is never formatted again."""
    out = []
    for literal, name, _spec, _conv in string.Formatter().parse(template):
        out.append(literal)
        if name is not None:
            out.append(values.get(name, ""))
    return "".join(out)


def placeholders(path: Path, name: str, template: str) -> list[str]:
    """The placeholders of one template in order; an unknown or malformed one is a SettingsError."""
    where = f"Templates file {path}: the '{name}' template"
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as e:
        raise SettingsError(
            f"{where} has a stray brace ({e}); write {{{{ and }}}} for literal braces"
        ) from None
    allowed = PLACEHOLDERS[name]
    found = []
    for _literal, field_name, spec, conv in parsed:
        if field_name is None:
            continue
        shown = "{" + field_name + "}"
        if field_name not in allowed:
            known = ", ".join("{" + a + "}" for a in allowed)
            raise SettingsError(
                f"{where} has an unknown placeholder {shown} (allowed: {known}; "
                "{{ and }} for literal braces)"
            )
        if spec or conv:
            raise SettingsError(f"{where}: the placeholder {shown} takes no format spec or conversion")
        found.append(field_name)
    return found


def _context_host(path: Path, texts: dict[str, str]) -> str:
    """The one template that places the evidence ({context}), checked."""
    where = f"Templates file {path}"
    hosts = []
    for name in HOSTS:
        count = placeholders(path, name, texts[name]).count("context")
        if count > 1:
            raise SettingsError(
                f"{where}: the '{name}' template has {{context}} {count} times; it may appear once"
            )
        if count:
            hosts.append(name)
    if texts["knowledge"] and "knowledge" not in hosts:
        raise SettingsError(
            f"{where}: the 'knowledge' template must contain {{context}} (or be \"\" when the 'system' "
            "or 'user' template places the evidence)"
        )
    if not hosts:
        raise SettingsError(
            f"{where}: no template has {{context}}; put it in the 'knowledge', 'system' or 'user' template"
        )
    if len(hosts) > 1:
        raise SettingsError(
            f"{where}: {{context}} is in both the '{hosts[0]}' and '{hosts[1]}' templates; the evidence "
            'goes in one place ("knowledge": "" to place it in the system or user message)'
        )
    return hosts[0]


def _read(path: Path) -> dict[str, object]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise SettingsError(f"Cannot read templates file {path}: {e.strerror or e}") from e
    except json.JSONDecodeError as e:
        raise SettingsError(f"Templates file {path} is not valid JSON (line {e.lineno}): {e.msg}") from e
    if not isinstance(raw, dict) or not isinstance(raw.get("system"), str):
        raise SettingsError(f"Templates file {path} needs a string 'system' entry")
    return raw


def load_templates(path: Path) -> Templates:
    """Read and validate a templates file; a broken file is a one-line SettingsError."""
    raw = _read(path)
    types = raw.get("types", {})
    if not isinstance(types, dict) or not all(isinstance(v, str) for v in types.values()):
        raise SettingsError(f"Templates file {path}: 'types' must map query types to strings")
    defaults = {
        "knowledge": "{context}", "memory": "{snippets}", "user": "{question}", "related": RELATED_INSTRUCTION
    }  # fmt: skip
    texts = {"system": str(raw["system"])}
    for name, default in defaults.items():
        value = raw.get(name, default)
        if value is None:
            value = ""
        if not isinstance(value, str):
            raise SettingsError(f"Templates file {path}: the '{name}' template must be a string")
        texts[name] = value
    placeholders(path, "related", texts["related"])
    if "snippets" not in placeholders(path, "memory", texts["memory"]):
        raise SettingsError(f"Templates file {path}: the 'memory' template must contain {{snippets}}")
    if "question" not in placeholders(path, "user", texts["user"]):
        raise SettingsError(f"Templates file {path}: the 'user' template must contain {{question}}")
    host = _context_host(path, texts)
    return Templates(
        system=texts["system"],
        types={str(k): v for k, v in types.items()},
        knowledge=texts["knowledge"],
        memory=texts["memory"],
        user=texts["user"],
        related=texts["related"],
        context_in=host,
    )
