"""Query types (factual | comparison | procedural | analytical): offline rules, or an LLM in JSON
mode with the rules as fallback."""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass

from core.errors import BackendError
from core.prompt.templates import QUERY_TYPES
from core.stems import STEMMER
from core.text import QUERY_NOISE

log = logging.getLogger(__name__)

# a question that asks how to do something in so many words (not only through an action verb)
_HOW_TO = re.compile(
    r"\b(how (do|can|should|would|to|must) (i|we|you|one)\b|how to\b|steps?\b|procedure"
    r"|walk me through|guide|instructions?|process for|what do i do|what should i do"
    r"|in what order|checklist)",
    re.I,
)


def asks_how_to(question: str) -> bool:
    """The question asks for steps in so many words ("How do I …", "the procedure for …"), not
    only through an action verb ("What replacement filter does the K7 take?")."""
    return bool(_HOW_TO.search(question))


# the verb a how-to asks to do: "How do I cancel …", "how to return …", "the steps to pair …"
_ACTION = re.compile(
    r"\bhow (?:do|can|should|would|could|must) (?:i|we|you|one) (?:go about |best )?([a-z]+(?: [a-z]+)?)"
    r"|\bhow to ([a-z]+(?: [a-z]+)?)|\b(?:steps?|procedure|instructions?) (?:to|for) ([a-z]+(?: [a-z]+)?)",
    re.I,
)
# verbs that name no task of their own ("How do I get …", "How do I make sure …"), by stem
_GENERIC_VERBS = STEMMER.stem_set(
    "get make do use go have be find know see tell put take keep let set check try work start".split()
)


def asked_action(question: str) -> str:
    """The verb a how-to question asks how to do, lower case ("How do I cancel my plan?" →
    "cancel", "How can I quickly reset …" → "reset"); "" when it asks none, a generic one ("How do
    I get …", "… instructions for using"), or what follows is no verb ("the steps for the K7 …",
    "How do I not lose …")."""
    m = _ACTION.search(question)
    found = next((g for g in m.groups() if g), "").lower().split() if m else []
    if found and found[0].endswith("ly") and len(found) > 1:  # an adverb before the verb
        found = found[1:]
    verb = found[0] if found else ""
    if len(verb) < 3 or verb in QUERY_NOISE or verb == "not" or STEMMER.stem_set([verb]) <= _GENERIC_VERBS:
        return ""
    return verb


# Ordered: the first rule that matches wins. Patterns look at the question's wording only.
_RULES: list[tuple[str, re.Pattern[str]]] = [
    # a question opening with "why" asks for reasons, also about a difference ("Why does A track
    # paths more accurately than B?" wants the reasons, not the two values side by side)
    ("analytical", re.compile(r"^\W*why\b", re.I)),
    (
        "comparison",
        re.compile(
            r"\b(compare[sd]?|comparison|comparing|difference|differences|differ|differs|distinguish(es)?|versus|vs\.?"
            r"|contrast|better|worse|faster|slower|cheaper|heavier|lighter|stronger|larger|smaller"
            r"|more .{1,30} than|less .{1,30} than|how (much|many) (more|fewer|less|longer|shorter|wider"
            r"|narrower|taller|higher|lower|bigger|deeper|thicker|thinner|quieter|louder|further|farther"
            r"|older|newer)\b[^?]*\bthan"
            r"|prefer|choose between|which (one|is|should)"
            r"|similarities|similar to|same as|outperform|advantages? of .+ over|different (from|than)"
            r"|changed between .+ and|(pick|choose|buy) (the |a |an )?[\w-]+ or"
            # a comparative after "which" with a choice: "Which has the longer warranty, A or B?"
            r"|which\b[^?]{0,40}\b(longer|shorter|higher|lower|bigger|greater|wider|newer|older|quieter"
            r"|louder|safer|easier|harder|more|less|fewer)\b[^?]*\bor)\b",
            re.I,
        ),
    ),
    ("procedural", _HOW_TO),
    (
        # an action verb alone makes a how-to only when the question does not ask for a thing
        # ("Which target is needed to calibrate …?" asks for a name, not steps)
        "procedural",
        re.compile(
            r"^(?!\s*(which|who|whom|whose|when|where|how (many|much|long|often|far|fast|old|big))\b)"
            r"(?!\s*what(?:['’]s\b| (is|are|was|were|does|did)\b)).*"
            # the verb itself, not its noun ("the replacement interval", "installation kit")
            r"\b(set ?up\b|(?:install|replac|configur|calibrat|submit)(?!ment|ation|ion)\w*"
            r"|file (a|an)\b|apply for\b|request (a|an)\b)",
            re.I,
        ),
    ),
    (
        "analytical",
        re.compile(
            r"\b(why|how does|how do (?!i\b|we\b|you\b)|how did|how is .+ (designed|structured)"
            r"|explain|implications?|trade-?offs?|impact|affect|effects? of|consequences?|reasons?"
            r"|rationale|evaluate|assess|analy[sz]e|what would happen|what happens if|pros and cons"
            r"|benefits?|drawbacks?|downsides?|what limits|risks?|significance|lessons?|purpose of|role of|what caused"
            r"|root cause|justify|motivat)",
            re.I,
        ),
    ),
]


@dataclass(frozen=True)
class Classification:
    query_type: str
    method: str  # "rules" | "llm" | "rules (llm failed: …)"


def classify_offline(question: str) -> str:
    """The query type by wording rules; factual when nothing else matches."""
    for qtype, pattern in _RULES:
        if pattern.search(question):
            return qtype
    return "factual"


_LLM_PROMPT = (
    "Classify the user's question into exactly one type: factual (a specific fact), comparison "
    "(two or more things against each other), procedural (how to do something, steps), analytical "
    '(why/how something works, reasons, trade-offs). Reply with JSON: {"type": "<one type>"}.'
)


def classify(question: str, backend: object | None = None) -> Classification:
    """LLM classification when a backend is given (JSON mode), the offline rules otherwise or on error."""
    if backend is None:
        return Classification(classify_offline(question), "rules")
    try:
        raw = backend.complete(  # type: ignore[attr-defined]
            [{"role": "system", "content": _LLM_PROMPT}, {"role": "user", "content": question}],
            json_mode=True,
            max_tokens=20,
        )
        value = json.loads(raw).get("type", "")
        if value not in QUERY_TYPES:
            raise ValueError(f"unknown type {value!r}")
        return Classification(value, "llm")
    except (BackendError, ValueError, AttributeError, TypeError) as e:
        log.info("LLM classification failed, using rules: %s", e)
        return Classification(classify_offline(question), f"rules (llm failed: {type(e).__name__})")
