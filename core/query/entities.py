"""Named things a question asks about: model codes, product names, versions, error codes.

An entity token is a token that names one specific thing and has near-identical siblings: letters
and digits mixed ("ArmX2", "G5", "E-211", "NC-300", "SEV1"), a capitalised name and a number of
up to three digits written apart ("Stride 3", "Brio 50"; not a label such as "Step 3" or "Table
2", a month, a function or quantity word, nor a number with a unit or a decimal after it), a
CamelCase name ("NorthEye"), or a dotted version ("4.0.0"). Plain words and plain numbers are not
entities. Tokens are normalised (lower case, spaces, hyphens and underscores dropped) so "Arm X2",
"ArmX2" and "armx2" match, and "Stride 3" is "stride3", a sibling of "stride30"; a list going on
after such a name with the family left out names those models too ("Kestrel 5, 5 Plus and Pet":
"kestrel5plus", _listed). Names without a digit keep a space: a family's word and a variant word
("Kestrel Pro" is "kestrel pro", _variant_named), and, read only where it is set against a model
or stands in a lineup, another name of an asked model's family ("Lumo Kids" beside "Lumo 6" is
"lumo kids", family_named), so family() reads the family and matches() never meets the asked one.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable

from core.text import STOP_WORDS

# units a number carries ("12kg", "5 minutes"): such a number names no model
_UNIT_WORDS = (
    r"mm|cm|m|km|kg|g|w|kw|v|a|hz|khz|mhz|ghz|ms|s|h|mb|gb|tb|mp|x|px|k|min|am|pm"
    r"|seconds?|minutes?|hours?|days?|weeks?|months?|years?|metres?|meters?|inch(?:es)?|feet|foot|percent"
)
_UNITS = rf"{_UNIT_WORDS}|nm|wh|kwh|mah|l|ml|°|times"  # … after a name and its number written apart
# a name and its number written apart ("Stride 3", "Brio 50"): one token, checked by is_entity
# a range written after the number ("Android 14 or later", "Windows 11+") covers more than one
# release: no one model, so no sibling of the asked one
_RANGE = r"[ \u00a0]+(?:or|and)[ \u00a0]+(?:later|newer|above|higher|up|earlier|older|below|lower)\b|\+"
_NAMED = (
    rf"(?:[A-Z][a-z]+|[A-Z]{{2,}}|[a-z][A-Z][a-z]+)[ \u00a0]\d{{1,3}}(?:[A-Za-z](?![A-Za-z0-9]))?"
    rf"(?!\d|[.,:]\d|[-/][A-Za-z0-9]|[ \u00a0]?(?:%|(?:{_UNITS})\b)|{_RANGE})"
)
TOKEN = re.compile(rf"{_NAMED}|[A-Za-z0-9][A-Za-z0-9._\-]*[A-Za-z0-9]|[A-Za-z0-9]")
_HAS_DIGIT = re.compile(r"\d")
_HAS_ALPHA = re.compile(r"[A-Za-z]")
_CAMEL = re.compile(r"^[A-Z][a-z]+[A-Z][A-Za-z]*$")
_VERSION = re.compile(r"^v?\d+(\.\d+){1,3}$", re.I)
_ORDINAL = re.compile(r"^\d+(st|nd|rd|th|s)$", re.I)  # "1st", "1990s": not a model
_UNIT = re.compile(rf"^\d+(\.\d+)?[-_]?(?:{_UNIT_WORDS})$", re.I)
_ERA = re.compile(r"^(pre|post|mid|early|late|circa)[-_]?\d{2,4}s?$", re.I)  # "pre-1975": a time, not a model
_PLURAL = re.compile(r"([a-z]\d+)s$")  # "AK-47s" is the AK-47
# words a number follows that label a part, a place in a sequence or a time, or count ("Step 3",
# "Table 2", "May 12", "Over 40"): no model's name
_NOT_NAMES = STOP_WORDS | frozenset(
    (
        "his her our your my all each every both "
        "another other some any only just about around over under nearly almost approximately roughly "
        "exactly more less fewer most least top first last next up down after before since until between "
        "within above below per no not number step steps table figure fig section chapter page pages part "
        "appendix item items note notes phase stage level grade class category type group team round day days "
        "week weeks month months year years line lines row column rule article clause option options question "
        "example case scenario lesson unit module task exercise problem test check point tip method reason "
        "priority tier zone area room floor building gate platform track lane route highway channel volume "
        "vol issue episode season book act scene verse psalm amendment title division sector region district "
        "ward block lot batch slot port pin bay box terminal exit door version release build revision rev "
        "firmware software update patch edition paragraph schedule annex form list mode setting "
        "position size speed gear january february march april june july august september october "
        "november december monday tuesday wednesday thursday friday saturday sunday "
        # an order or a verb before a number ("Press 2", "Allow 3 days", "Serves 4") and a limit or count
        "press call dial allow add take give name buy get choose select pick enter type set use wait see read "
        "ask send pay save serves seats sleeps costs supports holds fits weighs takes needs requires includes "
        "maximum minimum max min circa approx limit total exceeding ages age kids adults children tickets "
        "guests people persons users"
    ).split()
)


def _norm(token: str) -> str:
    # "Stride 3S" is a model of its own; "Boeing 747s", like "AK-47s", a plural
    suffix = (" " in token or "\u00a0" in token) and token.rstrip(".")[-1:] != "s"
    token = token.lower().replace("-", "").replace("_", "").replace(" ", "").replace("\u00a0", "")
    return token.rstrip(".") if suffix else _PLURAL.sub(r"\1", token.rstrip("."))


def is_entity(token: str) -> bool:
    token = token.rstrip(".")
    if " " in token or "\u00a0" in token:  # a name and its number written apart (_NAMED)
        return token.split()[0].lower() not in _NOT_NAMES
    if _VERSION.match(token):
        return token.count(".") >= 2 or token[:1] in "vV"
    if _HAS_DIGIT.search(token) and _HAS_ALPHA.search(token):
        return not (_ORDINAL.match(token) or _UNIT.match(token) or _ERA.match(token))
    return bool(_CAMEL.match(token))


def entity_tokens(text: str) -> list[str]:
    """The text's entity tokens as written ("NC-300", "ArmX2", "4.2.0")."""
    return [t for t in TOKEN.findall(text) if is_entity(t)]


# a model's variant written after its code ("Vela C3 Plus", "K7 Pro Max", "C3+", "K7 PRO"): another
# model than the bare code, so "c3plus" is a sibling of "c3". Not in lower case ("the K7 max
# speed"), across a line break, in a compound ("Mini-USB"), nor "Max" opening a label ("K7 Max
# speed: 72 km/h"); a "+" only after a code, not a version ("4.2.0+": or later) nor before one
_VARIANT_WORD = r"(?:Plus|PLUS|Pro|PRO|Max|MAX|Mini|MINI|Lite|LITE|Ultra|ULTRA|SE|XL)"
_VARIANT = re.compile(rf"\+(?![\w+])|((?:[ \u00a0]{_VARIANT_WORD}\b(?!-))+)")
_LABEL = re.compile(r"[ \u00a0](?:Max|MAX)[ \u00a0]+[a-z][\w-]*(?:[ \u00a0]+[a-z][\w-]*)?:")


def _variant(text: str, end: int) -> str:
    """The variant written right after the code ending at end ("plus", "promax"; "" for none)."""
    m = _VARIANT.match(text, end)
    if m is None or _LABEL.match(text, end):
        return ""
    return re.sub(r"\W", "", m.group(1) or "plus").lower()


def _normal(text: str, m: re.Match[str]) -> str:
    """The entity token m of text normalised, with the variant written after it ("c3plus")."""
    token = m.group()
    return _norm(token) + ("" if _VERSION.match(token) else _variant(text, m.end()))


def spans(text: str) -> list[tuple[int, int, str]]:
    """Each entity of the text: where it starts, where it ends with its variant, and normalised
    (with the models a list names after it, the family left out: _listed)."""
    out = []
    for m in TOKEN.finditer(text):
        if is_entity(m.group()):
            norm = _normal(text, m)
            variant = _VARIANT.match(text, m.end()) if norm != _norm(m.group()) else None
            end = variant.end() if variant else m.end()
            out.append((m.start(), end, norm))
            out.extend(_listed(text, m.group(), end))
            if (word := _family_before(text, m)) is not None:
                out.append((m.start() - len(word) - 1, end, f"{word.lower()} {norm}"))
    out.extend(_variant_named(text))
    return sorted(out)


# a model's code written after a capitalised word ("Nib X3" beside the "Nib 30", "Kestrel K7"): also
# a model of that word's family, "nib x3", whose family() is "nib" (the code alone, "x3", is of the
# "x" family and no sibling of the Nib 30's); matches() still meets it by "x3" or "X3". Only a
# model's short code (one letter, a number): a part's ("Kestrel BP-20 battery", "Kestrel F-10") is
# a thing of the brand, no sibling of its models; nor a code a part's noun follows ("Kestrel F10
# filter")
_FAMILY_BEFORE = re.compile(r"(?<![\w-])([A-Z][a-z]+|[A-Z]{2,})[ \u00a0]$")
_CODE = re.compile(r"[A-Za-z]\d{1,3}[A-Za-z]?$")
_PART_AFTER = re.compile(
    r"[ \u00a0]+(?:batter(?:y|ies)|filters?|blades?|cassettes?|rolls?|adapters?|modules?|kits?|packs?|bags?|cables?"
    r"|chargers?|cases?|docks?|stations?|brush(?:es)?|pads?|covers?|mounts?|stands?|lenses|lens|parts?|spares?)\b",
    re.I,
)


def _family_before(text: str, m: re.Match[str]) -> str | None:
    """The capitalised word right before the model code m, when it may be its family's name."""
    if not _CODE.match(m.group()) or _PART_AFTER.match(text, m.end()):
        return None
    before = _FAMILY_BEFORE.search(text, max(0, m.start() - 40), m.start())
    word = before.group(1) if before else ""
    return word if word and word.lower() not in _NOT_BEFORE_A_CODE else None


# a capitalised word and variant words after it, no number, variant word or other capitalised word
# after them ("Kestrel Mini", "DX Mini Plus"; not "Kestrel 5 Plus", whose code is an entity with its
# variant, nor "Kestrel Mini 2", nor "Max Planck")
_VARIANT_NAME = re.compile(
    rf"(?<![\w-])([A-Z][A-Za-z]+)((?:[ \u00a0]{_VARIANT_WORD})+)\b"
    rf"(?![\w-]|[ \u00a0]+(?:\d|[A-Z]|{_VARIANT_WORD}\b))"
)


def _variant_named(text: str) -> list[tuple[int, int, str]]:
    """The models named by a family's word and a variant word, without a digit ("the Kestrel Pro",
    "a DX Mini"), normalised with a space after the family ("kestrel pro", as family_named), so
    family() reads the family and the Kestrel Pro is a sibling of the Kestrel 50. Only a variant word
    names a model so ("Kestrel Care" may be a plan); not after a framing word, an order or a size
    ("Which Pro", "Tap Max", "Large XL"), a code that is an entity itself ("ArmX Pro" is "armxpro")
    or a variant ("K7 PRO Max"); not a label ("Kestrel Max speed: …") nor a mode, plan or feature
    ("Eco Plus mode", "Kestrel Plus membership")."""
    return [
        (m.start(), m.end(), f"{m.group(1).lower()} {''.join(m.group(2).lower().split())}")
        for m in _VARIANT_NAME.finditer(text)
        if m.group(1).lower() not in _NOT_FAMILIES
        and not is_entity(m.group(1))
        and not _VARIANT_ONLY.fullmatch(m.group(1))
        and not _LABEL.match(text, m.end(1))
        and not _NOT_A_MODEL.match(text, m.end())
    ]


# words before a variant word that make it no model's name: framing words, orders a guide gives,
# greetings, sizes
_NOT_FAMILIES = _NOT_NAMES | frozenset(
    "try tap click upgrade unlock enable disable activate turn switch using getting contact dear hi "
    "hello thanks large small medium extra".split()
)
# framing words and words that label a code ("Model X3", "Table A2", "Report P-2626")
_NOT_BEFORE_A_CODE = _NOT_FAMILIES | frozenset(
    "model models series new code part sku ref report document".split()
)
_VARIANT_ONLY = re.compile(_VARIANT_WORD)
# what a variant word names when one of these follows: a mode, a plan, a feature, its users
_NOT_A_MODEL = re.compile(
    r"[ \u00a0]+(?:modes?|settings?|plans?|memberships?|subscriptions?|tiers?|programs?|programmes?"
    r"|levels?|users?|members?|features?|accounts?|customers?|subscribers?)\b",
    re.I,
)


# the models a list goes on with after a name and its number, the family left out ("Kestrel 5,
# 5 Plus and Pet", "Brio 5, 50 or 5 Pro"): each number (with a variant after it) is a model of that
# family, and so is a variant word alone ("…, Pro and 50"); another capitalised word ("Pet") is
# passed over. A number ends at a comma, a coordinator, a closing mark or the end ("Kestrel 5, 3
# modes are available" and "Kestrel 5 and 2 AA batteries" are no lists), a word has no number
# after it ("Kestrel 50 and Pro 2"); the list holds "and", "or" or "&", or two items; and it is read
# whole: one going on with a number that is no item ("Kestrel 5, 30 and 2.5 L") or whose last
# number has a unit after it ("… 30 and 40 minutes") names no model
_ITEM = (
    rf"(?:\d{{1,3}}(?:[ \u00a0]{_VARIANT_WORD}\b)*"
    r"(?=[ \u00a0]*(?:[,;:.)\]|!?](?!\d)|$)|[ \u00a0]+(?:and|or|&)[ \u00a0])"
    r"|[A-Z][A-Za-z]+(?![\w-]|[ \u00a0]+\d))"
)
_SEP = r"(?:[ \u00a0]*,[ \u00a0]*(?:(?:and|or)[ \u00a0]+)?|[ \u00a0]+(?:and|or|&)[ \u00a0]+)"
_LIST_UNITS = rf"%|(?:{_UNITS}|lbs?|oz|ft|in|db|rpm|psi|mph|pa|pcs)\b"
_LISTED = re.compile(rf"(?:{_SEP}{_ITEM})++(?![ \u00a0]*(?i:{_LIST_UNITS})|{_SEP}\d)")
_LIST_ITEM = re.compile(rf"{_SEP}({_ITEM})")
_COORDINATED = re.compile(r"\b(?:and|or)\b|&")


def _listed(text: str, token: str, end: int) -> list[tuple[int, int, str]]:
    """The models a list names right after the entity token ending at end (_ITEM, _LISTED)."""
    if " " not in token and "\u00a0" not in token:  # only after a name and its number written apart
        return []
    m = _LISTED.match(text, end)
    if m is None:
        return []
    items = list(_LIST_ITEM.finditer(text, m.start(), m.end()))
    if len(items) < 2 and not _COORDINATED.search(m.group()):
        return []  # "On the Kestrel 5, 3." names no Kestrel 3
    name = token.split()[0]
    out = []
    for item in items:
        written = item.group(1)
        if written[0].isdigit():
            out.append((item.start(1), item.end(1), _norm(name) + re.sub(r"\W", "", written).lower()))
        elif _VARIANT_ONLY.fullmatch(written):
            out.append((item.start(1), item.end(1), f"{name.lower()} {written.lower()}"))
    return out


def written(text: str) -> list[tuple[str, str]]:
    """Each entity of the text as written, with its variant ("Stride 3 Plus"), and normalised."""
    return [(text[a:b], norm) for a, b, norm in spans(text)]


def entities(text: str) -> set[str]:
    """The normalised entity tokens of a text ("Vela C3 Plus" → "c3plus"; "Kestrel 5, 5 Plus and
    Pet" → "kestrel5", "kestrel5plus", spans)."""
    return {norm for _, _, norm in spans(text)}


# the words before a model a heading compares its own against ("Differences from the Nib 3", "What
# is different from the Kestrel 5", "Compared with the K5"; not "K7 vs K5", about both): that model
# is no subject
_REFERENCE = re.compile(
    r"\b(?:differ\w*|compared|comparison|unlike|than|instead of)[ \u00a0]+"
    r"(?:(?:from|with|to|against)[ \u00a0]+)?(?:(?:the|a|an|our)[ \u00a0]+)?$",
    re.I,
)


# …and in running text, a model another is measured against ("5 mm/s faster than the Nib 3",
# "twice the battery capacity of the Nib 3", "unlike the K5")
_MEASURED_AGAINST = re.compile(
    r"(?:\b(?:than|unlike|compared[ \u00a0]+(?:with|to)|relative[ \u00a0]+to|differ\w*[ \u00a0]+from"
    r"|different[ \u00a0]+from)|\b(?:twice|half|double|triple|\d+(?:\.\d+)?[ \u00a0]+times)\b[^.;:]{0,40}?\bof)"
    r"[ \u00a0]+(?:(?:on|in|for|with|at)[ \u00a0]+)?(?:(?:the|a|an|our)[ \u00a0]+)?$",
    re.I,
)


def subject_entities(text: str) -> set[str]:
    """The entities a text speaks of: its entities but those it measures another against
    ("Print speed: 25 mm/s, 5 mm/s faster than the Nib 3" speaks of none: the Nib 3 is the
    yardstick, the page's model the subject)."""
    return {norm for a, _, norm in spans(text) if not _MEASURED_AGAINST.search(text, max(0, a - 60), a)}


def heading_entities(heading: str, also: Iterable[str] = ()) -> set[str]:
    """The entities a heading stands for: its entities but the ones it names as what another is
    compared against ("Differences from the Nib 3" on the Nib 3 Plus's page is about the Nib 3
    Plus: no entity of its own, so the page's title gives the scope); also: names without a digit
    to read too (written_at)."""
    found = [*spans(heading), *written_at(heading, also)]
    return {norm for a, _, norm in found if not _REFERENCE.search(heading, 0, a)}


@functools.lru_cache(maxsize=1024)  # a question's, read by several steps; a sentence's, by several scorings
def without_entities(text: str) -> str:
    """The text with its entity tokens blanked, with the variant written after one ("the NC-300
    brake" → "the   brake", "the Stride 3 Plus" → "the  "), so their pieces ("nc", "300", "plus")
    are not read as words or numbers."""
    parts: list[str] = []
    at = 0
    for a, b, _ in spans(text):
        if a >= at:  # a variant's word read as a token of its own is already blanked
            parts += [text[at:a], " "]
            at = b
    return "".join(parts) + text[at:]


def question_entities(question: str) -> set[str]:
    """The question's entities, plus a name split by a space joined up ("Arm X2" → "armx2"), and a
    name without a digit of the family of one it names (family_named: "the Lumo 6 Plus or the Lumo
    Kids" → "lumo kids")."""
    found: set[str] = set()
    before = ""
    for m in TOKEN.finditer(question):
        if is_entity(m.group()):
            own = _normal(question, m)
            found.add(own)
            if before[:1].isupper() and before.isalpha():
                found.add(_norm(before) + own)
                if _family_before(question, m) is not None:  # as documents write it (spans)
                    found.add(f"{before.lower()} {own}")
        before = m.group()
    # a list leaving the family out ("the Kestrel 5 and 50"), and a name without a digit ("the
    # Kestrel Pro"): beside a model named with a digit, only of that model's family ("How do I enable
    # Turbo Max on the Kestrel 50?" names no Turbo Max)
    families = {family(f) for f in found}
    found |= {n for _, _, n in spans(question) if " " not in n or not families or family(n) in families}
    for m in _NAME_WITHOUT_DIGIT.finditer(question) if found else ():
        if not (_CONTRAST_BEFORE.search(question, 0, m.start()) or _CONTRAST_AFTER.match(question, m.end())):
            continue  # a name set against another ("… or the Lumo Kids"), not any capitalised phrase
        # the name may follow a capitalised word ("Does Lumo Unlimited …")
        found |= _family_suffix(m.group(), found)
    return found


def _family_suffix(run: str, known: Iterable[str]) -> set[str]:
    """The name a capitalised run ends with from a known family's word on (family_named of its
    longest such suffix: "Does Lumo Kids" → "lumo kids")."""
    words = run.split()
    return next((f for i in range(len(words) - 1) if (f := family_named(" ".join(words[i:]), known))), set())


# a model written in lower case: a word, its number and any variant words ("the nib 30", "my
# kestrel 5 plus")
_SMALL_NAME = re.compile(
    r"(?<![\w-])[a-z]{2,}[ \u00a0]\d{1,3}[a-z]?(?![\w-]|[.,]\d)(?:[ \u00a0](?:plus|pro|max|mini|lite|ultra|se|xl)\b)*"
)


def small_names(question: str, known: Callable[[], set[str]]) -> set[str]:
    """The models a question writes in lower case ("how heavy is the nib 30?"), which the name rule
    (capitalised, _NAMED) does not read: a word, its number and variant words that, joined, are an
    entity the documents name (known(): the entities of the evidence; "print 50" names none)."""
    found = {_norm(m.group()) for m in _SMALL_NAME.finditer(question)}
    return found & known() if found else set()


def recased(question: str, texts: Iterable[str]) -> str:
    """The question with each model it writes in lower case written as the texts write it ("how
    heavy is the nib 30?" → "… the Nib 30?"), when one of them names it; else as it is."""
    small = {m.group(): _norm(m.group()) for m in _SMALL_NAME.finditer(question)}
    if not small or question_entities(question):
        return question
    forms: dict[str, str] = {}
    for text in texts:
        for a, b, norm in spans(text):
            forms.setdefault(norm, text[a:b])
    for written_small, norm in small.items():
        if norm in forms:
            question = re.sub(rf"(?<![\w-]){re.escape(written_small)}(?![\w-])", forms[norm], question)
    return question


# a capitalised name of two to four words, not followed by a number ("Aria Buds Pro 2" is a model
# with a number), set against another thing ("the Lumo 6 Plus or the Lumo Kids", "Lumo Kids vs …")
_NAME_WITHOUT_DIGIT = re.compile(r"(?<![\w-])[A-Z][a-z]+(?: [A-Z][A-Za-z]+){1,3}(?![\w-]|\s+[\dA-Z])")
_CONTRAST_BEFORE = re.compile(r"\b(?:or|than|vs\.?|versus|and|with)\s+(?:the\s+|a\s+)?$", re.I)
_CONTRAST_AFTER = re.compile(
    r"\s*,?\s+(?:(?:\w+er|more \w+|less \w+)\s+than|or|than|vs\.?|versus|and|with)\b", re.I
)


def family_named(name: str, wanted: Iterable[str]) -> set[str]:
    """A model's name without a digit, of the family of an asked one (its first word is that family,
    the rest capitalised: "Lumo Kids", "Aria Buds Pro" when the Lumo 6 or the Aria 7 is asked),
    normalised with a space after the family ("lumo kids") so family() reads it as one of that family
    and matches() never takes it for the asked one; none for anything else (a table row "Lumo 6",
    "Monthly", "Lumo accessories")."""
    words = [
        w for w in (re.sub(r"'s$|[^A-Za-z0-9]", "", w) for w in name.split()) if w
    ]  # "Kids.", "Buds-Pro"
    if (
        not 2 <= len(words) <= 4
        or any(ch.isdigit() for ch in name)
        or not all(w[:1].isupper() for w in words)
    ):
        return set()
    first = words[0].lower()
    if len(first) < 2 or first not in {family(w) for w in wanted}:
        return set()
    return {first + " " + "".join(w.lower() for w in words[1:])}


def question_family_names(question: str, known: Callable[[], set[str]]) -> set[str]:
    """The names without a digit the question writes (a capitalised run of two to four words, a
    suffix of it from a family's word on) that family_named reads as of a family of known() names
    ("the Vela Cargo" → "vela cargo" when the documents name the Vela 3); known is read only when
    the question writes such a run."""
    runs = [m.group() for m in _NAME_WITHOUT_DIGIT.finditer(question)]
    return set().union(*(_family_suffix(run, known()) for run in runs)) if runs else set()


@functools.lru_cache(maxsize=256)
def _written(name: str) -> re.Pattern[str]:
    first, rest = name.split(" ", 1)
    letters = r"[ \u00a0-]?".join(map(re.escape, rest))  # "budspro": "Buds Pro", "Buds-Pro"
    # not the start of a longer name ("Vela Cargo Plus", "Kestrel Pro Max", "Aria Buds Pro 2")
    longer = r"(?![ \u00a0]+(?-i:[A-Z0-9]))"
    return re.compile(rf"(?<![\w-]){re.escape(first)}[ \u00a0-]+{letters}(?![\w-]){longer}", re.I)


def written_in(text: str, names: Iterable[str]) -> set[str]:
    """The names without a digit (as family_named writes them: "vela cargo", "aria budspro") that
    the text writes, in any case ("the Vela Cargo's rack", "VELA CARGO — PRODUCT SHEET"), which
    entities() does not read: such a name is a model only where the question and the documents make
    it one (core/answer/evidence.py)."""
    return {n for _, _, n in written_at(text, names)}


def written_at(text: str, names: Iterable[str]) -> list[tuple[int, int, str]]:
    """Where the text writes each of the names without a digit (written_in), and which."""
    return [
        (m.start(), m.end(), n)
        for n in names
        if " " in n and not _HAS_DIGIT.search(n)
        for m in _written(n).finditer(text)
    ]


def family(token: str) -> str:
    """The letters before the first digit: "armx2" and "armx3" are one family, "g5" another."""
    m = re.match(r"[a-z]*", token)
    return m.group(0) if m else ""


def matches(wanted: Iterable[str], found: Iterable[str]) -> bool:
    """A wanted entity is among the found ones (or one ends with the other: "x2" in "armx2")."""
    found = set(found)
    for w in wanted:
        for f in found:
            if w == f or (
                len(w) >= 2 and len(f) >= 2 and (f.endswith(w) or w.endswith(f)) and _digits(w) == _digits(f)
            ):
                return True
    return False


def _digits(token: str) -> str:
    return "".join(ch for ch in token if ch.isdigit())


def one_per_model(names: Iterable[str]) -> list[str]:
    """The names, one per model: the longest of its spellings ("nib x3", not also "x3" or "nibx3"),
    a name another matches, its spaces aside, being that one."""
    out: list[str] = []
    for name in sorted(set(names), key=len, reverse=True):
        if not any(matches({name.replace(" ", "")}, {o.replace(" ", "")}) for o in out):
            out.append(name)
    return sorted(out)


def siblings(wanted: Iterable[str], found: Iterable[str]) -> set[str]:
    """The found entities that are another model of an asked one's family ("armx3" for "armx2")."""
    wanted = set(wanted)
    families = {family(w) for w in wanted}
    return {t for t in found if family(t) in families and not matches(wanted, {t})}


def conflicts(
    wanted: set[str],
    scope: set[str],
    text: set[str],
    around: Iterable[str] = (),
    own: bool = False,
    subjects: Iterable[str] = (),
) -> set[str]:
    """The other entities a piece of evidence is about, when it is not about a wanted one.

    scope: the entities of the heading (or row, column) the evidence stands under; text: those it
    names itself. Siblings count (same family, another model: "ArmX3" for "ArmX2", "E-104" for
    "E-211"): an entity of another family in the evidence's text ("IP66") is an attribute, not the
    subject. When the question asks for an attribute of what it names (own, core/query/attribute.py),
    a named thing of any family the evidence stands under counts too ("Rover M1" for the ArmX2's
    battery), and so does one it names that heads other evidence (subjects: "Batteries in the Rover
    M1 …"), unless around (the entities of every heading above it and of its document's title)
    names the asked one; a version ("4.2.0") is a release of something, no other thing. Under a
    heading naming the asked one and a sibling, a unit that names only the sibling is the
    sibling's. A unit naming one asked thing is still another model's when it stands under a sibling
    of another asked thing (its scope: "CarePlus for Harrier H7", a row's subject, for the Harrier
    H9's CarePlus) and its text names only that sibling of the family; a sibling it only mentions
    ("rated IP67" asked "IP68?", "the BP-520 battery", "firmware 4.1.3") is a value, not its subject."""
    if not wanted:
        return set()
    if matches(wanted, text):
        return {
            s
            for s in siblings(wanted, scope & text)
            if family(s) and not matches({w for w in wanted if family(w) == family(s)}, text)
        }
    if matches(wanted, scope):
        # under a heading shared with a sibling ("Tempo thermostats (T1, T2)"), a unit naming the
        # sibling and not the asked one is the sibling's ("Tempo T2 -- Settings > System > Reset")
        return siblings(wanted, text) if siblings(wanted, scope) else set()
    found = siblings(wanted, scope | text)
    if own and not matches(wanted, around):
        found |= {s for s in scope | (text & set(subjects)) if not _VERSION.match(s)}
    return found
