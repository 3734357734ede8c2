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

from core.query.entities import is_entity

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._\-]*[A-Za-z0-9]|[A-Za-z0-9]")
_MARK = "\u00a7"  # stands for each entity token of the question

# a name: the entity with up to two capitalised words around it ("Gripper G5", "NorthEye Vision Kit")
_NAME = rf"(?:[A-Z][\w-]*\s+){{0,2}}{_MARK}(?:\s+[A-Z][\w-]*){{0,2}}"
# a determiner and one lower-case word before the name ("the old Gripper P3", "my new ArmX2")
_DET = r"(?:(?i:the|an?|my|our|your|this|that|each|one)\s+)?(?:[a-z][\w-]*\s+)?"
_HOW = (
    r"(?i:much|many|heavy|fast|long|far|big|large|small|tall|wide|high|accurate|precise|loud|old|often"
    r"|quick|quickly|soon)"
)
# "What is …", "What's …", "How long is …"
_WHAT_IS = (
    rf"^\W*(?:(?i:what|which)(?:'s|\s+(?i:is|are|was|were))|(?i:how)\s+{_HOW}\s+(?i:is|are|was|were))\s+"
)
_THEN = r"(?:\s+[a-z][\w-]*)?\s+"  # a name and a word after it ("the NC-200 controller have")
_OWN = (
    # "What is the battery runtime of the ArmX2?", "What's the lead time on a G5?", "How long is
    # the cable supplied with the ArmX3?"
    rf"{_WHAT_IS}(?i:the|an?|its|their)\s+(?:[\w-]+\s+){{0,4}}?(?i:of|for|on|with)\s+{_DET}{_NAME}",
    # "What is the ArmX2 payload?" (a word after the name: not "What is the ArmX2?")
    rf"{_WHAT_IS}{_DET}{_NAME}\s+[a-z][\w-]*",
    # "What is the ArmX2's reach?", "How long is the Rover M1's runtime?"
    rf"{_NAME}(?:'s|\u2019s)\s+\w",
    # "How much does the Gripper G5 weigh?", "How many programs can the ArmX2 store?"
    rf"^\W*(?i:how)\s+{_HOW}\b[^?]*?\b(?i:is|are|does|do|did|can|will|was)\s+{_DET}{_NAME}",
    # "Does the ArmX3 have a battery?", "Is the G5 waterproof?", "Can the ArmX2 lift 8 kg?"
    rf"^\W*(?i:does|do|did|is|are|was|can|will|has)\s+{_DET}{_NAME}{_THEN}"
    r"(?:(?i:have|has|weigh|offer|include|come|need|require|lift|carry|reach|run|last|draw|cost)\b|[\w-]+\s*\?)",
    # "What payload does the ArmX2 have?", "What IP rating does the G5 have?"
    rf"^\W*(?i:what|which)\s+[\w-]+(?:\s+[\w-]+)?\s+(?i:does|do|did|is|are)\s+{_DET}{_NAME}{_THEN}"
    r"(?i:have|has|weigh|offer|reach|draw|consume|cost|need|require)\b",
)
_ASKS_OWN = re.compile("|".join(f"(?:{p})" for p in _OWN))


def asks_attribute(question: str) -> bool:
    """The question asks for a value of the thing it names (not for another thing related to it)."""
    marked = _TOKEN.sub(lambda m: _MARK if is_entity(m.group()) else m.group(), question)
    return _MARK in marked and bool(_ASKS_OWN.search(marked))
