"""Prompt-injection hygiene for retrieved text (OWASP LLM01, indirect): flag and neutralise.

Retrieved text is data. It is fenced with a per-question nonce it cannot know, block/role
markers inside it are defused, and instruction-like passages are flagged for the ledger and
kept out of extractive answers.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

_PATTERNS = [
    r"\b(ignore|disregard|forget|override)\b[^.!?\n]{0,40}\b(instructions?|prompts?|rules|directions|guidelines|context)\b",
    r"\b(previous|prior|above|earlier|original)\s+(instructions?|prompts?|rules)\b",
    r"\bsystem\s+prompt\b",
    r"\byou\s+are\s+now\b",
    r"\b(act|behave|respond)\s+as\s+(if|an?|the)\b",
    r"\bnew\s+instructions?\b",
    r"\b(reveal|print|show|output|leak|send|tell|disclose|repeat|give)\b[^.!?\n]{0,40}"
    r"\b(api[\s_-]?keys?|secret|password|credentials?|tokens?|system\s+prompt)\b",
    r"\b(do\s+not|don't|never)\s+(tell|mention|cite|reveal)\b",
    r"\b(always|must)\s+(answer|respond|reply|say)\b",
    r"\banswer\s+(every|all|any)\s+questions?\b",
    r"\[\s*retrieved\s+knowledge\s*\]",
    r"\[\s*/?\s*(system|assistant|user|inst)\s*\]",
    r"<\|?\s*/?\s*(im_start|im_end|system|assistant|user|endoftext)\s*\|?>",
    r"(^|\n)\s*(#{1,3}\s*)?(system|assistant|developer)\s*:",
    r"(^|\n)\s*relevance\s+score\s*:",
    r"</?\s*doc-[0-9a-f]*",
]
_INSTRUCTION = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.IGNORECASE)

# markers that would let text pose as structure: defused by breaking them with a zero-width joiner
_MARKERS = re.compile(
    r"\[\s*retrieved\s+knowledge\s*\]|<\|?\s*/?\s*(?:im_start|im_end|endoftext)\s*\|?>|</?\s*doc-|"
    r"(?m:^\s*(?:source|category|relevance score|system|assistant|user|developer)\s*:)",
    re.IGNORECASE,
)


def is_instruction_like(text: str) -> bool:
    """True when text reads like instructions to the model rather than content."""
    return bool(_INSTRUCTION.search(text))


def defuse(text: str) -> str:
    """Text with block/role markers made inert (visible to a reader, not a parser or model)."""
    return _MARKERS.sub(lambda m: "\u2060".join(m.group(0)) if len(m.group(0)) < 40 else m.group(0), text)


def nonce(question: str, ids: Sequence[str]) -> str:
    """A fence tag derived from the question and the chunk ids: stable for replays, unguessable
    by whoever wrote a document."""
    h = hashlib.sha256(("\x00".join([question, *ids])).encode("utf-8")).hexdigest()
    return h[:10]
