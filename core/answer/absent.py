"""Whether the evidence about the asked thing states the attribute asked for at all.

"What is the battery capacity of the ArmX2?" is answered from units that stand under the ArmX2 or
name it (core/answer/evidence.py drops the Rover M1's units). If those hold less than half the
rarity weight of the question's attribute words (by the store's own word counts), the value is not
in the evidence and any sentence quoted would answer something else: the extractive answer refuses
and says which word is missing ("capacity"). Only questions that ask for an attribute of what they
name (core/query/attribute.py) are read so; a yes/no question whose verb may paraphrase an
attribute ("Can the ArmX3 lift a 10 kg box?" for its payload, "Is the G5 waterproof?" for its IP
rating) is not, nor is a word no passage of the store holds. A word is met by its porter stem, by
one stem starting the other ("weigh", "weight"), as the end of a compound ("load" of "payload"), by
the attribute it asks for by another name ("heavy" by "weight", core/text.py), an acronym by a run
of capitalised words or a code ("IP" by "Ingress protection" or "IP54"), and a few attributes by
the unit that measures them ("capacity" by "3,850 mAh"). The thing named may be a model written
without a digit that the evidence reads as one ("the Vela Mini"). A condition's words ("… when it
goes onto a rug") weigh half, number words are none, and the verb of a "How far / long …" question
is met when a unit holds its other words and a value in the asked measure ("raise" by "lifts its
mop plate by 5 mm"): such words say when the value holds or say it another way, not what is asked.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.answer.evidence import Evidence, Scored, fact_key, initials
from core.answer.refusal import WordCounts, rarity_weights
from core.query.attribute import names
from core.query.measure import asked_measures, measure_heads, unit_pattern
from core.scoring import acronyms_of, spelled_out
from core.stems import STEMMER
from core.text import ATTRIBUTE_OF, CONDITION_OPENERS, content_words

# words that frame a question about an attribute rather than name one ("How long does it take",
# "the maximum …", "on its own", "the standard …"): never the word the evidence must hold
FRAMING = frozenset(
    "long far much many take takes taken mean means meant use used uses get gets need needs own "
    "quickly old new current currently today maximum minimum max min typical typically standard "
    "default rated total exact exactly approximately roughly around available come comes version "
    "model product unit units work works know tell give gives given actual nominal overall top under "
    "over per last lasts single support supports handle handles achieve achieves able capable full "
    "put puts out one my want wants compared compare comparison versus vs than difference differences "
    "fully completely entirely totally "
    "differ between more less "
    # and the nouns that stand for any value ("the warranty period", "the number of …")
    "period duration amount number value level figure reading readings measurement measurements spec specs "
    "specification details".split()
)
# a yes/no question whose verb names having a thing ("Does the ArmX3 have a battery?", "Does the T1
# support geofencing?", "… measure humidity?") is read; any other yes/no question's words may
# paraphrase the attribute
_YES_NO = re.compile(r"^\W*(?:is|are|was|were|does|do|did|can|could|will|would|has|have|should)\b", re.I)
_HAVING_VERBS = frozenset("offer offers provide provides measure measures".split())
_HAVING = re.compile(
    r"\b(?:have|has|include|includes|come with|comes with|ship with|ships with|support|supports|offer|offers"
    r"|provide|provides|measure|measures)\b",
    re.I,
)
# quantities ("the range … with two batteries"): a condition of the value, as a digit is
QUANTITIES = frozenset(
    "two three four five six seven eight nine ten eleven twelve twenty hundred thousand".split()
)
CONDITION_WORDS = frozenset(re.findall(r"[a-z]+", CONDITION_OPENERS[2:]))  # "before", "after": no attribute
# a clause saying when the value holds ("… when unfolded", "… if it goes onto a rug"; not "once a
# month", a frequency asked for, nor "once-yearly")
_CONDITION = re.compile(
    rf"\s(?:{CONDITION_OPENERS})(?<!once)\s[^?]*|\sonce\s(?!(?:a|an|per|every)\b)[^?]*", re.I
)
# the verb of the question ("How far does the K2 raise …", "How long is label history kept …"): a
# word right after an auxiliary and its subject, or a participle after "is" / "are"
_AFTER_SUBJECT = re.compile(
    r"\b(?:does|do|did|can|could|will|would|should)\s+(?:the\s+|an?\s+|my\s+|your\s+)?"
    r"(?:(?:[A-Z][\w-]*|[\w-]*\d[\w-]*)\s+)*([a-z]{3,})\b"
)
_PARTICIPLE = re.compile(
    r"\b(?:is|are|was|were)\b[^?]*?\b(\w{2,}(?<!e)ed|kept|held|made|done|sold|shown|built|sent|spent|left|paid"
    r"|worn|taken|given|written|chosen|stored)\b",
    re.I,
)
_HOW_ADJ = re.compile(r"^\W*how\s+(\w+)", re.I)  # "How far …", "How long …"
HELD = 0.5  # the share of the attribute words' rarity the evidence must hold
# an attribute a value's unit names without its word ("Battery: 3,850 mAh" states a capacity, "Camera:
# 12 MP" a resolution): only units that measure one thing (a "mm" could be a reach or a diameter)
_MEASURED_BY = {
    word: re.compile(unit_pattern(measure))
    for word, measure in {
        "capacity": "energy",
        "resolution": "resolution",
        "megapixels": "resolution",
        "noise": "sound",
        "loudness": "sound",
    }.items()
}


def missing_attribute(ev: Evidence, usable: Sequence[Scored], counts: WordCounts | None) -> str:
    """The question's rarest attribute word no usable unit holds, as the question writes it, when
    the words the usable units hold make up less than HELD of the attribute words' rarity ("" when
    they make up more, when the question does not ask for an attribute of what it names, or when the
    store's counts are unknown). counts: the store's passage count and how many passages hold each
    question word."""
    if not ev.own or not ev.wanted or not usable or not counts:
        return ""
    if _YES_NO.search(ev.question) and not _HAVING.search(ev.question):
        return ""
    n, df = counts
    # "NorthEye Vision Kit", "Vela Mini": no attribute words
    named = content_words(" ".join((*names(ev.question), *ev.wanted)))
    acronyms = acronyms_of(ev.question)  # "IP": the store writes "IP54", a word of its own
    # a word no passage of the store holds may name a stated value another way ("guarantee" for a
    # warranty, "big" for a size): only the store's own words can be missing from the evidence
    # …unless it asks for one measure and no usable unit states a value in it ("noisy": no dB);
    # such a word stated is left out, not counted held (it must not outweigh the words missing:
    # "fast" by 72 km/h for the "ascent" speed)
    asked = asked_measures(ev.question)
    measures = {
        w
        for w, (p, k) in asked.items()
        if k == 1 and not df.get(w, 0) and not any(p.search(x.text) for x in usable)
    }
    # the verb of "Does the T1 support geofencing?" frames its object ("What safety measures does
    # the ArmX3 have?" asks for "measures")
    verbs = _HAVING_VERBS if _YES_NO.search(ev.question) else frozenset()
    verbs |= measure_heads(ev.question).keys()  # nor "power" of "suction power": its suction is asked
    words = [
        w
        for w in content_words(ev.question)
        if w not in named | FRAMING | QUANTITIES | CONDITION_WORDS | verbs
        and (df.get(w, 0) > 0 or w in acronyms or w in measures)
        and not any(c.isdigit() for c in w)
    ]
    # a condition's words ("… when it goes onto a rug") say when the value holds: they weigh half,
    # and neither state a measure's value nor are the verb a unit says another way
    main = content_words(_CONDITION.sub("", ev.question))
    said = [w for w in words if w in main]
    words = [w for w in words if not _stated(w, asked, said, acronyms, usable)]
    said = [w for w in said if w in words]
    weight = rarity_weights(n, {w: df.get(w, 0) for w in words})
    weight = {w: x if w in main else x / 2 for w, x in weight.items()}
    held = _held(words, acronyms, usable) | _reworded(ev.question, asked, said, acronyms, usable)
    missing = [w for w in words if w not in held]
    if not missing or sum(weight[w] for w in missing) <= (1 - HELD) * sum(weight.values()):
        return ""
    rarest = max(missing, key=lambda w: (weight[w], w))
    written = re.search(rf"\b{re.escape(rarest)}\b", ev.question, re.I)
    return written.group() if written else rarest


def _stated(
    word: str,
    asked: dict[str, tuple[re.Pattern[str], int]],
    words: Sequence[str],
    acronyms: frozenset[str],
    usable: Sequence[Scored],
) -> bool:
    """A measure word is stated (and left out) when one usable unit holds the question's other
    attribute words and a value in the word's measure ("What portafilter size …": "Portafilter: 54
    mm"; "How often … swap the water filter": "Water filter › Replace it every 90 days"). Never
    alone: "What's the diameter of the D3?" is not answered by "7.2 cm tall"."""
    others = [w for w in words if w not in asked]
    if word not in asked or not others:
        return False
    return any(
        asked[word][0].search(x.text) and len(_held(others, acronyms, [x])) == len(others) for x in usable
    )


def _reworded(
    question: str,
    asked: dict[str, tuple[re.Pattern[str], int]],
    words: Sequence[str],
    acronyms: frozenset[str],
    usable: Sequence[Scored],
) -> set[str]:
    """The one word a unit rewords when the question asks "how far / long / much …", the word is
    the question's verb (not "cable" of "How long is the charging cable …") and the unit holds its
    other words and a value in that measure ("How far does the K2 raise its mop?": "It
    lifts its mop plate by 5 mm"; "How long is label history kept …": "Label history: 30 days"): the
    verb, said another way. Never the only word."""
    how = _HOW_ADJ.match(question)
    if not how or how.group(1).lower() not in asked or len(words) < 2:
        return set()
    verbs = {m.group(1).lower() for p in (_AFTER_SUBJECT, _PARTICIPLE) for m in p.finditer(question)}
    pattern = asked[how.group(1).lower()][0]
    for x in usable:
        if pattern.search(x.text):
            left = [w for w in words if w not in _held(words, acronyms, [x])]
            if len(left) == 1 and left[0] in verbs:
                return set(left)
    return set()


def _held(words: Sequence[str], acronyms: frozenset[str], usable: Sequence[Scored]) -> set[str]:
    """The words some usable unit (with its headings) holds: by porter stem, one stem starting the
    other ("weigh", "weight"; "charger", "charging"), the end of a compound ("load" of "payload"), the
    attribute the word asks for by another name, a unit that measures it, or an acronym's spelling."""
    texts = [" ".join((*x.unit.path, x.lead, x.text)) for x in usable]  # a list item with its lead-in
    plain = set().union(*(content_words(t) for t in texts))
    stems = STEMMER.stem_set(plain)
    held = set()
    for w in words:
        forms = STEMMER.stem_set({w, ATTRIBUTE_OF.get(w, w)})
        if (
            forms & stems
            or any(len(f) >= 5 and len(s) >= 5 and (s.startswith(f) or f.startswith(s)) for f in forms for s in stems)
            or (len(w) >= 4 and any(p.endswith(w) for p in plain))
            or (w in _MEASURED_BY and any(_MEASURED_BY[w].search(x.text) for x in usable))
            or (w in acronyms and any(spelled_out(frozenset({w}), t) or initials(fact_key(x.unit)) == w
                                      for x, t in zip(usable, texts, strict=True)))
        ):  # fmt: skip
            held.add(w)
    return held
