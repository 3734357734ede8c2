"""Prompt-injection hygiene for retrieved text (OWASP LLM01, indirect): flag and neutralise.

Retrieved text is data. It is fenced with a per-question nonce it cannot know, block/role
markers inside it are defused, and instruction-like passages are flagged for the ledger and
kept out of extractive answers. Both checks read the text as a model would: invisible characters
(zero-width spaces, joiners, bidi controls) dropped and full-width forms folded to ASCII, so
"I\u200bgnore" or "［Retrieved Knowledge］" cannot slip past. The attack corpus and its figures
are in tests/test_injection.py.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Sequence

# Retrieved text is attacker-controlled: every repetition is bounded or linear (no nested
# quantifiers), so a crafted document cannot make matching slow (tests/test_injection.py).
_PATTERNS = [
    # "ignore/disregard … instructions", also in French, German and Spanish (ignorez, ignoriere,
    # ignora, oubliez, vergiss, olvida …)
    (
        r"\b(ignor\w*|disregard\w*|forget|override|oubli\w*|vergiss\w*|olvid\w*|missacht\w*)\b"
        r"[^.!?\n]{0,40}\b(instructions?|prompts?|rules|directions|guidelines|context|instru[cç]\w*"
        r"|anweisung\w*|consignes?|r[eè]gles|regeln|reglas|vorgaben)\b"
    ),
    r"\b(previous|prior|above|earlier|original)\s{1,5}(instructions?|prompts?|rules)\b",
    r"\bsystem\s{1,5}prompt\b",
    r"\byou\s{1,5}are\s{1,5}now\b",
    r"\b(developer|god|jailbreak|dan)\s{1,5}mode\b",
    r"\b(act|behave|respond)\s{1,5}as\s{1,5}(if|an?|the)\b",
    r"\bnew\s{1,5}instructions?\b",
    (
        r"\bnote\s{1,5}to\s{1,5}(ai|llm|language\s{1,5}model|the\s{1,5}model|assistants?|chatbots?"
        r"|ai\s{1,5}assistants?)\b"
    ),
    (
        r"\b(reveal|print|show|output|leak|send|tell|disclose|repeat|give|dump)\b[^.!?\n]{0,40}"
        r"\b(api[\s_-]?keys?|secret|password|credentials?|tokens?|system\s{1,5}prompt)\b"
    ),
    r"\b(hidden|secret)\s{1,5}(rules|instructions|prompt)\b",
    r"\b(rules|instructions|prompt|guidelines)\s{1,5}you\s{1,5}(were|have\s{1,5}been)\s{1,5}given\b",
    r"\b(do\s{1,5}not|don't|never)\s{1,5}(tell|mention|cite|reveal|say|refuse|admit)\b",
    r"\b(always|must)\s{1,5}(answer|respond|reply|say)\b",
    r"\banswer\s{1,5}(every|all|any)\s{1,5}questions?\b",
    (
        r"\b(answer|respond|reply)\b[^.!?\n]{0,30}\bfrom\s{1,5}(your\s{1,5})?(general|own|prior)"
        r"\s{1,5}knowledge\b"
    ),
    (
        r"\b(refusals?|refusal\s{1,5}rule|guardrails?|safety\s{1,5}rules?)\b[^.!?\n]{0,20}"
        r"\b(disabled|off|lifted|removed)\b"
    ),
    # conditional orders about what to tell whoever asks ("when a customer asks …, tell them …")
    (
        r"\b(when|if|whenever)\b[^.!?\n]{0,40}\b(asks?|asked|asking)\b[^.!?\n]{0,60}"
        r"\b(tell|answer|respond|reply)\s{1,5}(them|him|her|the\s{1,5}user|the\s{1,5}customer)\b"
    ),
    r"\bwhatever\s{1,5}the\s{1,5}(user|customer|question)\b",
    # exfiltration: remote markdown images, URLs with template slots, shipping the chat elsewhere
    r"!\[[^\]\n]{0,200}\]\(\s{0,5}https?://",
    r"https?://[^\s{}]{0,300}\{[^}\s]{0,40}\}",
    (
        r"\b(send|post|upload|forward|transmit|exfiltrate)\b[^.!?\n]{0,40}"
        r"\b(conversation|chat|history|messages)\b"
    ),
    # structure a passage must not forge: the knowledge header, role and fence markers, citations
    r"\[\s{0,5}retrieved\s{1,5}knowledge\s{0,5}\]",
    r"\[\s{0,5}/?\s{0,5}(system|assistant|user|inst)\s{0,5}\]",
    r"<<\s{0,5}/?\s{0,5}sys\s{0,5}>>",
    (
        r"<\|?\s{0,5}/?\s{0,5}(im_start|im_end|system|assistant|user|endoftext|eot_id|start_header_id)"
        r"\s{0,5}\|?>"
    ),
    r"(^|\n|[.!?]\s)[#>*\s-]{0,12}(system|assistant|developer)\**[ \t]*:",
    r"(^|\n)[ \t]{0,12}relevance\s{1,5}score\s{0,5}:",
    r"</?\s{0,5}doc-[0-9a-f]*",
    r"\(\s{0,5}[\w./-]{1,200}\.(md|markdown|txt|pdf|html?)(\s{1,5}p\.\s?\d+)?\s{0,5}\)",
]
_INSTRUCTION = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.IGNORECASE)

# markers that would let text pose as structure: defused by breaking them with a word joiner
_MARKERS = re.compile(
    r"\[\s{0,5}retrieved\s{1,5}knowledge\s{0,5}\]|</?\s{0,5}doc-|"
    r"<\|?\s{0,5}/?\s{0,5}(?:im_start|im_end|endoftext)\s{0,5}\|?>|"
    r"<\|[a-z_]{2,30}\|>|\[\s{0,5}/?\s{0,5}inst\s{0,5}\]|<<\s{0,5}/?\s{0,5}sys\s{0,5}>>|"
    r"(?m:^[#>*\- \t]{0,12}(?:source|category|relevance score|system|assistant|user|developer)"
    r"\**[ \t]*:)",
    re.IGNORECASE,
)

# invisible characters that can split a marker or an instruction without changing how it reads
_INVISIBLE = frozenset(
    "\u00ad\u180e\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff"
) | frozenset(chr(c) for c in [*range(0x202A, 0x202F), *range(0x2066, 0x206A)])
# full-width forms read like ASCII to a model ("［Retrieved Knowledge］", "<｜im_start｜>")
_FULLWIDTH = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}


# any character _folded would drop or fold (the rest of a text reads as it is)
_SPECIAL = re.compile("[" + "".join(map(re.escape, sorted(_INVISIBLE))) + "\uff01-\uff5e\u3000]")


def _folded(text: str) -> tuple[str, Sequence[int]]:
    """The text as a model reads it (invisible characters dropped, full-width folded to ASCII),
    and for each of its characters the index of the original character."""
    if text.isascii() or _SPECIAL.search(text) is None:  # the common case: nothing to fold
        return text, range(len(text))
    keep = [i for i, ch in enumerate(text) if ch not in _INVISIBLE]
    return "".join(text[i] for i in keep).translate(_FULLWIDTH), keep


@functools.lru_cache(maxsize=8192)
def is_instruction_like(text: str) -> bool:
    """True when text reads like instructions to the model rather than content (cached: every
    question's ledger checks its candidates again)."""
    return bool(_INSTRUCTION.search(_folded(text)[0]))


def defuse(text: str) -> str:
    """Text with block/role markers made inert (visible to a reader, not a parser or model)."""
    folded, where = _folded(text)
    spans = [
        (where[m.start()], where[m.end() - 1] + 1) for m in _MARKERS.finditer(folded) if m.end() > m.start()
    ]
    if not spans:
        return text
    out: list[str] = []
    last = 0
    for start, end in spans:
        piece = "".join(ch for ch in text[start:end] if ch not in _INVISIBLE)
        out.append(text[last:start])
        out.append("\u2060".join(piece))
        last = end
    out.append(text[last:])
    return "".join(out)


def nonce(question: str, ids: Sequence[str]) -> str:
    """A fence tag derived from the question and the chunk ids: stable for replays, unguessable
    by whoever wrote a document."""
    h = hashlib.sha256(("\x00".join([question, *ids])).encode("utf-8")).hexdigest()
    return h[:6]
