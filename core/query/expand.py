"""The lexical search's query: the question, plus the word a spec sheet uses for what it asks.

"How much heavier is the E7 than the E5?" asks for a weight, which the documents write as "Weight:
11.2 kg": no passage says "heavier", so BM25 finds the E7's page by its name alone and not the row
that answers. The question's own words are kept and the attribute's word is added for a
comparative ("heavier" → "weight", "cheaper" or "more expensive" → "price", "bigger" → "size") or an
adjective a spec sheet writes as a noun ("heavy", "tall", "wide", "deep"), from core.text.ATTRIBUTE_OF.
Other words of that map are left alone: "longer" may ask for a duration or a length, "newer" for a
date or a version; "fast", "fly" and "cost" are often the documents' own words (a "fast charger",
"Fly app", "component cost"), and an added "price" then finds every price the store lists; but a
question asking only what a model it names costs ("How much does the Aria 7 cost?") adds "price":
with the name it finds that model's price row (a comparison table's "Price (USD)"), which neither
search found through "cost" (not "How much does CarePlus for the ArmX2 cost?", which names two
things, nor "What does a spare K7 battery cost?": the thing priced is another). The dense search
reads the question as written.
"""

from __future__ import annotations

import re

from core.query.attribute import names
from core.query.entities import entity_tokens, without_entities
from core.text import ATTRIBUTE_OF, content_words

# a hyphenated word is one word: "heavy-duty", "company-wide", "wide-angle" ask for no weight or width
_WORDS = re.compile(r"\w+(?:-\w+)*")
_EXPANDED = frozenset(
    "lighter heavier faster slower quicker cheaper pricier costlier expensive bigger larger smaller "
    "heavy weigh weighs tall wide deep".split()
)


_EXPANDED_NAMED = frozenset("cost costs".split())  # …when they are all it asks of a model it names


def lexical_query(question: str) -> str:
    """The question with the attribute words its words ask for appended (itself when none)."""
    expanded = _EXPANDED
    named = content_words(" ".join(names(question)))  # "Gripper" of "the Gripper G5" is its name
    if (
        len(entity_tokens(question)) == 1
        and content_words(without_entities(question)) - named <= _EXPANDED_NAMED
    ):
        expanded = _EXPANDED | _EXPANDED_NAMED  # "How much does the Aria 7 cost?", not "… its battery cost?"
    asked = dict.fromkeys(
        ATTRIBUTE_OF[w] for w in _WORDS.findall(question.lower()) if w in expanded and w in ATTRIBUTE_OF
    )
    return f"{question} {' '.join(asked)}" if asked else question
