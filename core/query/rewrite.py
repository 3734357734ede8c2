"""Query rewriting: a follow-up question becomes a standalone retrieval query (LLM or offline)."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

from core.errors import BackendError
from core.query.attribute import asks_attribute, names
from core.text import TERM, key_terms, words
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


# what a follow-up that only names another thing says besides the name ("And the ArmX2 too?")
_ELLIPSIS_WORDS = frozenset("and but also so then or what how about for the a an too".split())
# what a question about the thing itself says besides its name ("Tell me about the ArmX2.")
_ABOUT_WORDS = frozenset(
    "tell me more about describe explain what is are the a an overview of give show please".split()
)
_IT = re.compile(r"\b([Ii]ts?)\b(?!['\u2019])")  # not "it's" (it is), not "IT"
# an "it" that stands for no thing: "Is it possible to …", "How long does it take?"
_IMPERSONAL = re.compile(
    r"\b[Ii]t\s+(?:\w+\s+)?(?:possible|ok|okay|safe|worth|necessary|true|required|allowed|recommended|"
    r"normal|better|take|takes|took|matter|depend|depends)\b"
)


def resolve_offline(question: str, turns: Sequence[Turn]) -> str:
    """The follow-up as a standalone question in the user's own words, when the previous question
    named exactly one thing: "its" after a question asking a value of that thing or about it
    ("What is its weight?" after "What is the IP rating of the Gripper G5?" → "What is the Gripper
    G5's weight?"), a bare "it" only after a question about the thing itself ("How much does it
    weigh?" after "Tell me about the ArmX2."; after "What is the warranty on the ArmX2?" "it" may be
    the warranty), and a follow-up saying nothing but another name asks the previous question of it
    ("And the ArmX2?" after "What is the payload of the ArmX3?"). "" when it cannot be resolved so
    (the previous key terms are added instead)."""
    if not turns or not is_follow_up(question):
        return ""
    prev = turns[-1].query or turns[-1].question
    before = names(prev)
    if len(set(before)) != 1 or "(" in prev:  # "(": a query with key terms added, not a question
        return ""
    now = names(question)
    if now:
        rest = set(words(question)) - set(words(now[0])) - _ELLIPSIS_WORDS
        return prev.replace(before[0], now[0]) if len(now) == 1 and not rest else ""
    found = list(_IT.finditer(question))
    itself = not (set(words(prev)) - set(words(before[0])) - _ABOUT_WORDS)
    possessive = len(found) == 1 and found[0].group().lower() == "its"
    if (
        len(found) != 1
        or _IMPERSONAL.search(question)
        or not (itself or (possessive and asks_attribute(prev)))
    ):
        return ""
    it = found[0]
    name = ("The " if it.group()[0] == "I" else "the ") + before[0] + ("'s" if possessive else "")
    return question[: it.start()] + name + question[it.end() :]


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
