"""Whether a question asks for an attribute of the thing it names, read from its wording.

"What is the payload of the ArmX2?", "How much does the Gripper G5 weigh?", "Does the ArmX3 have
a battery?" ask for the named thing's own value: a passage that stands under another named thing
(a document or section headed "Rover M1") and never names the asked one states that other thing's
value, not the asked one's. "Which gripper fits the ArmX3?" or "What camera can I add to my
ArmX2?" ask for another thing related to the named one, whose own passages are the answer; those
wordings are not read as asking for an attribute. Plain English wording only, no corpus's names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from core.query.entities import TOKEN, is_entity, written_at

_MARK = "\u00a7"  # stands for each entity token of the question

# a name: the entity with up to two capitalised words around it ("Gripper G5", "NorthEye Vision Kit")
_NAME = rf"(?:[A-Z][\w-]*\s+){{0,2}}{_MARK}(?:\s+[A-Z][\w-]*){{0,2}}"
# a determiner and one lower-case word before the name ("the old Gripper P3", "my new ArmX2")
_DET = r"(?:(?i:the|an?|my|our|your|this|that|each|one)\s+)?(?:[a-z][\w-]*\s+)?"
_HOW = (
    r"(?i:much|many|heavy|fast|long|far|big|large|small|tall|wide|high|accurate|precise|loud|old|often"
    r"|quick|quickly|soon)"
)
# "How noisy …", "How well …": any word but an auxiliary or a pronoun ("How do I …", "How can we …")
# (nor an adverb of manner: "How exactly / easily / else does the K7 pair …" asks how to)
_HOW_ANY = (
    rf"(?:{_HOW}|(?!(?i:do|does|did|is|are|was|were|can|could|should|would|will|to|i|we|you|else)\b)"
    r"(?![a-z]+ly\b)[a-z]+)"
)
# "What is …", "What's …", "How long is …", "How noisy is …"
_WHAT_IS = (
    rf"^\W*(?:(?i:what|which)(?:'s|\s+(?i:is|are|was|were))|(?i:how)\s+{_HOW_ANY}\s+(?i:is|are|was|were))\s+"
)
_THEN = r"(?:\s+[a-z][\w-]*)?\s+"  # a name and a word after it ("the NC-200 controller have")
# "the best gripper for …", "the replacement for …": another thing, chosen for the named one
_ANOTHER = (
    r"(?!(?i:best|right|recommended|ideal|suitable|compatible|correct|proper|matching|replacement|successor"
    r"|predecessor|alternative|accessory|accessories|upgrade)\b)"
)
_OWN = (
    # "What is the battery runtime of the ArmX2?", "What's the lead time on a G5?", "How long is
    # the cable supplied with the ArmX3?"
    rf"{_WHAT_IS}(?i:the|an?|its|their)\s+{_ANOTHER}(?:[\w-]+\s+){{0,4}}?(?i:of|for|on|with)\s+{_DET}{_NAME}",
    # "What is the ArmX2 payload?" (a word after the name: not "What is the ArmX2?")
    rf"{_WHAT_IS}{_DET}{_NAME}\s+[a-z][\w-]*",
    # "What is the ArmX2's reach?", "How long is the Rover M1's runtime?" (not "Why does the ArmX3's
    # brake stick?")
    rf"{_WHAT_IS}{_DET}{_NAME}(?:'s|\u2019s)\s+\w",
    # "How much does the Gripper G5 weigh?", "How many programs can the ArmX2 store?", "How noisy
    # is the D3?"
    rf"^\W*(?i:how)\s+{_HOW_ANY}\b[^?]*?\b(?i:is|are|does|do|did|can|will|was)\s+{_DET}{_NAME}",
    # "How long does the battery in a G5 last?", "How often is the filter on the ArmX2 replaced?"
    rf"^\W*(?i:how)\s+{_HOW}\b[^?]*?\b(?i:in|on|inside)\s+{_DET}{_NAME}",
    # "Does the ArmX3 have a battery?", "Is the G5 waterproof?", "Can the ArmX2 lift 8 kg?"
    rf"^\W*(?i:does|do|did|is|are|was|can|will|has)\s+{_DET}{_NAME}{_THEN}"
    r"(?:(?i:have|has|weigh|offer|include|come|need|require|lift|carry|reach|run|last|draw|cost)\b|[\w-]+\s*\?)",
    # "What payload does the ArmX2 have?", "What IP rating does the G5 have?", "What processor does
    # the G5 use?", "What colours is the ArmX2 available in?", "What temperatures can the G5 run in?"
    rf"^\W*(?i:what|which)\s+[\w-]+(?:\s+[\w-]+)?\s+(?i:does|do|did|is|are|can|will)\s+{_DET}{_NAME}{_THEN}"
    r"(?i:have|has|weigh|offer|reach|draw|consume|cost|need|require|use|come|operate|run|hold|available"
    r"|offered|sold)\b(?!\s+(?i:with|to|into|onto)\b)",
    # "What colours can I get the ArmX2 in?", "Which sizes can I order the G5 in?"
    rf"^\W*(?i:what|which)\s+[\w-]+(?:\s+[\w-]+)?\s+(?i:can|could|do|should)\s+(?i:i|we|you)\s+"
    rf"(?i:get|buy|order|choose|pick|have)\s+{_DET}{_NAME}",
    # "What does the ArmX3 weigh?", "What does the NorthEye Vision Kit cost?"
    rf"^\W*(?i:what)\s+(?i:does|do|did)\s+{_DET}{_NAME}\s+(?i:weigh|cost|draw|consume|measure)\b",
)
_ASKS_OWN = re.compile("|".join(f"(?:{p})" for p in _OWN))


_WORD = re.compile(r"\S+")
# a question's first word is capitalised anyway: one of these opens it, no name does
_OPENERS = frozenset(
    "what which who whom whose when where why how is are was were do does did can could will would should "
    "has have compare tell list show give explain describe please and but also so then or".split()
)
_EDGE = re.compile(r"^[^\w\u00a7]+|(?:['\u2019]s)?[^\w\u00a7]*$")  # quotes, punctuation, a possessive


def asks_attribute(question: str, named: Iterable[str] = ()) -> bool:
    """The question asks for a value of the thing it names (not for another thing related to it).
    named: the names it writes that hold no entity token ("Vela Mini", "Nib Go": read as models by
    the evidence, core/answer/evidence.py), read as names too, in any case."""
    end = len(question)
    for a, b, _ in sorted(written_at(question, named), reverse=True):
        if b <= end:  # the spans do not overlap
            question, end = question[:a] + _MARK + question[b:], a
    marked = _marked(question)
    return _MARK in marked and bool(_ASKS_OWN.search(marked))


def names(question: str) -> list[str]:
    """The names the question writes: each run of entity tokens and capitalised words holding an
    entity ("Rover M1", "NorthEye Vision Kit", "DockStation D2"), as written."""
    tokens: list[str] = []
    marked = _marked(question, tokens)
    runs: list[list[str]] = [[]]
    for i, m in enumerate(_WORD.finditer(marked)):
        raw = m.group()
        word = _EDGE.sub("", raw)
        if not word or not (_MARK in word or (word[0].isupper() and (i or word.lower() not in _OPENERS))):
            runs.append([])
            continue
        runs[-1].append(word)
        if raw != word:  # "ArmX3's", "G5,", "M1?": the name ends here
            runs.append([])
    out, taken = [], iter(tokens)
    for run in runs:
        text = " ".join(run)
        if _MARK in text:
            out.append(re.sub(_MARK, lambda _: next(taken), text))
    return out


def _marked(question: str, tokens: list[str] | None = None) -> str:
    """The question with each entity token as _MARK (tokens: where to collect them, in order)."""

    def mark(m: re.Match[str]) -> str:
        if not is_entity(m.group()):
            return m.group()
        if tokens is not None:
            tokens.append(m.group())
        return _MARK

    return TOKEN.sub(mark, question)
