"""Query rewriting: a follow-up question becomes a standalone retrieval query (LLM or offline)."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

from core.errors import BackendError
from core.query.attribute import names
from core.text import TERM, content_words, key_terms
from core.types import Turn

log = logging.getLogger(__name__)

_FOLLOW_UP = re.compile(
    r"^\s*(and|but|also|so|then|what about|how about|and what about)\b|"
    r"\b(it|its|it's|they|them|their|theirs|this|that|these|those|he|she|him|his|her|one|ones|"
    r"former|latter|same|other|second|first|third|last|previous|above)\b",
    re.I,
)


def is_follow_up(question: str) -> bool:
    """A question that leans on earlier turns (pronouns, "what about …", very short)."""
    return bool(_FOLLOW_UP.search(question)) or len(question.split()) <= 3


# what a follow-up that only names another thing says besides the name ("And the ArmX2?")
_ELLIPSIS_WORDS = frozenset("and but also so then what how about for the a an".split())
_IT = re.compile(r"\b(its|it)\b", re.I)


def resolve_offline(question: str, turns: Sequence[Turn]) -> str:
    """The follow-up as a standalone question in the user's own words, when the previous question
    named exactly one thing (and did not ask which thing): "What is its battery capacity?" after
    "Tell me about the ArmX2." → "What is the ArmX2's battery capacity?"; "And the ArmX2?" after
    "What is the payload of the ArmX3?" → "What is the payload of the ArmX2?". "" when the question
    cannot be resolved so (another pronoun, several names, a question naming things of its own)."""
    if not turns or not is_follow_up(question):
        return ""
    prev = turns[-1].query or turns[-1].question
    before = names(prev)
    if len(before) != 1 or prev.lstrip().lower().startswith("which") or "(" in prev:
        return ""
    now = names(question)
    if not now:
        pronoun = _IT.search(question)
        if not pronoun:
            return ""
        name = f"the {before[0]}" + ("'s" if pronoun.group().lower() == "its" else "")
        return question[: pronoun.start()] + name + question[pronoun.end() :]
    rest = content_words(question) - content_words(" ".join(now)) - _ELLIPSIS_WORDS
    return prev.replace(before[0], now[0], 1) if len(now) == 1 and not rest else ""


def rewrite_offline(question: str, turns: Sequence[Turn]) -> str:
    """Standalone query: the follow-up plus the previous turn's key terms not already in it."""
    if not turns or not is_follow_up(question):
        return question
    prev = turns[-1].query or turns[-1].question
    have = {w.lower() for w in TERM.findall(question)}
    extra = [w for w in key_terms(prev) if w.lower() not in have]
    return f"{question} ({' '.join(extra)})" if extra else question


_REWRITE_PROMPT = (
    "Rewrite the user's last question as a standalone search query, resolving pronouns and "
    "references from the conversation. Reply with the query only."
)


def rewrite(question: str, turns: Sequence[Turn], backend: object | None = None) -> tuple[str, str]:
    """(standalone query, method): the LLM when configured and the question is a follow-up; else
    the follow-up resolved to a question of its own ("resolved"), or with the previous question's
    key terms added ("offline")."""
    if not turns or not is_follow_up(question):
        return question, "none"
    if backend is not None:
        convo = "\n".join(f"User: {t.question}\nAssistant: {t.answer}" for t in turns[-3:])
        try:
            out = backend.complete(  # type: ignore[attr-defined]
                [
                    {"role": "system", "content": _REWRITE_PROMPT},
                    {"role": "user", "content": f"{convo}\nUser: {question}"},
                ],
                max_tokens=60,
            ).strip()
            if out:
                return out.splitlines()[0][:500], "llm"
        except BackendError as e:
            log.info("LLM rewrite failed, using offline rewrite: %s", e)
    resolved = resolve_offline(question, turns)
    return (resolved, "resolved") if resolved else (rewrite_offline(question, turns), "offline")
