"""Assembling the messages in the fixed injection order, with per-section token counts.

system → procedure → knowledge → memory → history → user. Every section's tokens are known
before the call, and the whole prompt stays within the model window minus the reply reserve.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from core.tokens import TiktokenCounter

SECTIONS = ("system", "procedure", "knowledge", "memory", "history", "user")
# chat formats add a few tokens per message (role and separators); counted so totals are honest
MESSAGE_OVERHEAD = 4
REPLY_PRIMING = 3


@dataclass(frozen=True)
class Message:
    role: str
    content: str
    section: str

    def as_dict(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True)
class Prompt:
    """The exact messages to send and what each section costs."""

    messages: tuple[Message, ...]
    sections: dict[str, int]

    @property
    def total_tokens(self) -> int:
        return sum(self.sections.values()) + REPLY_PRIMING

    def carrying(self, host: str, tokens: int) -> Prompt:
        """The same messages with `tokens` of the host section's count moved to "knowledge": the
        block rides inside the host message (a template placed {context} there)."""
        sections = {**self.sections, host: self.sections[host] - tokens}
        sections["knowledge"] += tokens
        return Prompt(self.messages, sections)

    def as_openai(self) -> list[dict[str, str]]:
        return [m.as_dict() for m in self.messages]


def message_tokens(counter: TiktokenCounter, content: str, known: Mapping[str, int] | None = None) -> int:
    """A message's tokens (known: texts already counted, with their counts)."""
    counted = known.get(content) if known else None
    return (counter.count(content) if counted is None else counted) + MESSAGE_OVERHEAD


def assemble(
    counter: TiktokenCounter,
    system: str,
    procedure: str,
    knowledge: str,
    memory: str,
    history: Sequence[tuple[str, str]],
    user: str,
    known: Mapping[str, int] | None = None,
) -> Prompt:
    """Messages in injection order; empty sections are omitted (and cost 0). known: texts the
    caller has counted already (the fixed sections, the knowledge block), with their counts."""
    messages: list[Message] = [Message("system", system, "system")]
    if procedure:
        messages.append(Message("system", procedure, "procedure"))
    if knowledge:
        messages.append(Message("system", knowledge, "knowledge"))
    if memory:
        messages.append(Message("system", memory, "memory"))
    for role, content in history:
        messages.append(Message(role, content, "history"))
    messages.append(Message("user", user, "user"))
    sections = dict.fromkeys(SECTIONS, 0)
    for m in messages:
        sections[m.section] += message_tokens(counter, m.content, known)
    return Prompt(tuple(messages), sections)
