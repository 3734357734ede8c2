"""Writing an extractive answer from chosen units: prose or bullets, numbered steps, and one
bullet per compared entity. Each claim ends with its (source); the output is Markdown."""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Mapping, Sequence

from core.answer import difference
from core.answer.citations import cite
from core.answer.evidence import Scored, fact_key
from core.context.dedupe import jaccard, word_set
from core.context.units import Unit
from core.query.entities import entities, family, matches, without_entities, written, written_in
from core.query.parts import distinct_words
from core.scoring import acronyms_of, spelled_out
from core.stems import STEMMER
from core.text import ATTRIBUTE_OF, content_words, words

# the words of a comparison question that name no attribute
_COMPARING = frozenset(
    "compare compared comparison comparing difference differences differ differs versus vs between "
    "better worse which one two both against contrast similar similarities same than more less "
    "prefer choose should pick".split()
)
STEP_WORDS_LIMIT = 400
# a how-to is answered by the prose of another section than the best list when that prose's best
# sentence outscores the list's best item by this factor and its section holds more asked words
PROSE_OVER_LIST = 0.9
_STEPS_HEADING = re.compile(
    r"\b(steps?|procedure|instructions?|how to|process)\b", re.I
)  # an answer's steps stop here, with a pointer to the rest


POINTER = re.compile(r"^…\s\((?:the .+?) (?:is|are) in (\S.*)\)$")  # pointer(): group 1 is the label


def pointer(what: str, label: str) -> str:
    """A line saying where the rest of an answer is ("… (the remaining steps are in a.md)"): it
    frames the answer, it claims nothing (grounding skips it; POINTER reads it back)."""
    return f"… ({what} in {label})"


_LETTER = re.compile(r"^\(?[a-zA-Z]\)\s")  # a lettered item: "a) …", "(b) …"

# a question that asks for a reason, and a heading that gives one ("Why we charge a restocking fee")
_REASON = re.compile(r"\b(why|rationale|reasons?|motivation)\b", re.I)
REASON_BONUS = 0.1


def asks_reason(question: str) -> bool:
    return bool(_REASON.search(question))


def reason_bonus(unit: Unit) -> float:
    """What a unit gains for a question that asks why: it stands under a heading that gives reasons."""
    return REASON_BONUS if unit.path and _REASON.search(unit.path[-1]) else 0.0


ACTION_BONUS = 0.1


def does(text: str, action: str) -> bool:
    """The text names the action a how-to asks for, by the index's stem ("Cancelling" and "You
    can cancel" for "cancel"; core/query/classify.asked_action)."""
    wanted = STEMMER.stem_set([action])
    return bool(action) and bool(wanted) and wanted <= STEMMER.stem_set(words(text))


def action_bonus(x: Scored, action: str, wanted: frozenset[str] = frozenset()) -> float:
    """What a unit gains for a how-to question when it names the asked action: "You can cancel at
    …" says how to cancel, "Borrowed books are removed when your access ends" what follows. A step
    names it through its list's heading ("Replacing the filter"); a field ("Replacement filter:
    CB-F9") names a thing, not how to do it; nor does a unit whose heading names the asked model's
    family and not the asked model ("Setting up the Kestrel Mini" for the Kestrel 50: a model
    named without a digit is no entity, so no conflict keeps its steps out)."""
    heading = x.unit.path[-1] if x.unit.path else ""
    if is_field(x.unit) or _of_another(heading, wanted):
        return 0.0
    return ACTION_BONUS if does(f"{heading if x.unit.kind == 'item' else ''} {x.text}", action) else 0.0


def _of_another(heading: str, wanted: frozenset[str]) -> bool:
    """The heading names an asked model's family ("Kestrel") but not the asked model."""
    families = {family(w) for w in wanted} - {""}
    return bool(families & set(words(heading))) and not matches(wanted, entities(heading))


def step_bonus(unit: Unit) -> float:
    """What a list item gains as a step of a procedure: numbered, under a heading that names steps."""
    heading = unit.path[-1] if unit.path else ""
    return (0.15 if unit.ordinal is not None else 0.0) + (0.1 if _STEPS_HEADING.search(heading) else 0.0)


def _labels(picked: Sequence[Scored]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(x.label for x in picked))


def units(picked: Sequence[Scored]) -> tuple[str, tuple[str, ...]]:
    """Sentences as prose; list items and rows (or a mix) as bullets, an item under its list's
    lead-in with the other picked items of that list ("The warranty does not cover:" over "a) wear
    parts such as brake pads"): without it an item can read as saying the opposite."""
    if all(x.unit.kind == "sentence" for x in picked):
        return " ".join(cite(x.text, x.label) for x in picked), _labels(picked)
    lines: list[str] = []
    done: set[int] = set()
    # a sentence shown as a picked item's lead-in is not shown again on its own
    leads = {(x.source, x.lead) for x in picked if x.unit.kind == "item" and x.lead}
    for n, x in enumerate(picked):
        if n in done or (x.unit.kind == "sentence" and (x.source, x.text) in leads):
            continue
        if x.unit.kind != "item" or not x.lead:
            lines.append(f"- {cite(x.text, x.label)}")
            continue
        same = [m for m, y in enumerate(picked) if m >= n and _same_list(x, y)]
        done.update(same)
        lines.append(f"- {cite(x.lead, x.label)}")
        lines += [f"  - {cite(picked[m].text, picked[m].label)}" for m in same]
        more = x.listed - len(same)  # the list says more than the items quoted
        if more > 0:
            what = (
                "the other item of this list is" if more == 1 else f"the other {more} items of this list are"
            )
            lines.append("  - " + pointer(what, x.label))
    return "\n".join(lines), _labels(picked)


def _same_list(x: Scored, y: Scored) -> bool:
    """y is an item of x's list: same source, same entry, same list block."""
    return y.unit.kind == "item" and (y.source, y.order // 100000, y.unit.block) == (
        x.source,
        x.order // 100000,
        x.unit.block,
    )


LIST_MOST = 6  # a list quoted under its lead-in shows this many items, or one fewer and how many more


def is_lead(x: Scored) -> bool:
    """x is a list's lead-in (only the factual answer's scoring admits one: evidence._leads)."""
    return x.unit.kind == "sentence" and x.unit.text.endswith(":")


def listed(lead: Scored, items: Sequence[Scored], rest: Sequence[Scored]) -> tuple[str, tuple[str, ...]]:
    """A list's lead-in with its items under it, marked as in the source ("a) …" keeps its letter,
    a numbered item its number), a long list cut with how many more; then the further units."""
    # a long list is cut to its items most relevant to the question, in its order
    best = sorted(items, key=lambda x: -x.score)[: LIST_MOST - 1] if len(items) > LIST_MOST else items
    shown = [x for x in items if x in best]
    lines = [cite(lead.text, lead.label)]
    for x in shown:
        ordinal = x.unit.ordinal
        mark = f"{ordinal}." if ordinal is not None else "-"
        lines.append(f"{mark} {cite(x.text, x.label)}")
    if len(shown) < len(items):
        lines.append(pointer(f"the other {len(items) - len(shown)} items are", lead.label))
    text = "\n".join(lines)
    if rest:
        text += "\n\n" + units(rest)[0]
    return text, _labels([lead, *shown, *rest])


_ListKey = tuple[str, tuple[str, ...], bool]  # a list: its source, its heading path, numbered or not


def procedure(
    usable: Sequence[Scored], question: str, action: str = ""
) -> tuple[str, tuple[str, ...]] | None:
    """The steps of the list that best matches the question, numbered and in document order;
    None when the evidence holds no list of two or more items (a bulleted list of fields is none).
    action: the verb the how-to asks for (core/query/classify.asked_action); a list headed as that
    task's steps ("How to start a return") is the procedure."""
    lists: dict[_ListKey, list[Scored]] = {}
    for x in usable:
        if x.unit.kind == "item":
            lists.setdefault((x.source, x.unit.path, x.unit.ordinal is not None), []).append(x)
    candidates = [
        items for items in lists.values() if len({_key(x) for x in items}) >= 2 and not _fields(items)
    ]
    if not candidates:
        return None
    best_unit = max(x.score for x in usable)

    def strength(items: list[Scored]) -> float:
        """Relevance of the list's best items, raised for ordered steps under a heading that
        names steps, lowered for a list of questions (an FAQ is not a procedure)."""
        top = sorted((x.score for x in items), reverse=True)[:3]
        asks = sum("?" in x.text for x in items) / len(items)
        return sum(top) / len(top) + step_bonus(items[0].unit) - 0.2 * asks

    asked = {w[:5] for w in content_words(question)}
    candidates = [
        items for items in candidates if _covered(asked, items[0].unit.path, [x.text for x in items])
    ]
    if not candidates:
        return None
    items = max(candidates, key=strength)
    heading = items[0].unit.path[-1] if items[0].unit.path else ""
    if _STEPS_HEADING.search(heading) and does(heading, action):
        return _steps(items), (items[0].label,)  # headed as the asked task's ("How to start a return")
    if max(x.score for x in items) < 0.6 * best_unit:
        return None  # the lists here are not what the question is about
    if _prose_closer(usable, items, lists, asked):
        return None  # prose elsewhere is clearly closer and says more of what is asked
    return _steps(items), (items[0].label,)


def _covered(asked: set[str], path: Sequence[str], texts: Sequence[str], names: bool = True) -> int:
    """How many of the question's words (asked: by their first five letters) a heading path and texts
    hold; names False: not counting the names it asks about (a procedure rarely repeats them)."""
    words = content_words(" ".join([*path, *texts]))
    return len(asked & {w[:5] for w in words if names or not entities(w)})


def _prose_closer(
    usable: Sequence[Scored], items: Sequence[Scored], lists: Mapping[_ListKey, list[Scored]], asked: set[str]
) -> bool:
    """The best unit, prose or the one item of its list the question can use ("Kestrel 5, 5 Plus and
    Pet: press and hold …", the other models' items being another model's), stands in another
    section than the list, clearly above it, and its section says more of what is asked (of two
    sibling sections, the headings they share left out: "Priming and Flow Calibration" over both
    "Flow calibration › DX Mini" and "First start-up priming")."""
    best = max(usable, key=lambda x: x.score)
    section = (best.source, best.unit.path)
    lone = (
        best.unit.kind == "item"
        and len(lists[(best.source, best.unit.path, best.unit.ordinal is not None)]) < 2
    )
    if (
        not (best.unit.kind == "sentence" or lone)
        or section == (items[0].source, items[0].unit.path)
        or max(x.score for x in items) >= PROSE_OVER_LIST * best.score
    ):
        return False
    own, other = best.unit.path, items[0].unit.path
    shared = 0
    if best.source == items[0].source:
        while shared < min(len(own), len(other)) and own[shared] == other[shared]:
            shared += 1
        shared = 0 if shared == len(own) else shared  # the list's own introduction: its headings count
    prose = [x.text for x in usable if (x.source, x.unit.path) == section]
    steps = [x.text for x in items]
    return _covered(asked, own[shared:], prose, names=False) > _covered(
        asked, other[shared:], steps, names=False
    )


_STEP_KEY = re.compile(
    r"^\s*(?:(?:step|stage|phase)\s*\d+|first|second|third|then|next|finally|last)\b", re.I
)


def is_field(unit: Unit) -> bool:
    """A table row or a bulleted "Key: value" item ("- Weight: 6.4 kg"): a fact, not a step ("- Step
    1: Unplug …", "- First: …") nor an FAQ's "Can I send only the controller?: Yes, …"."""
    if unit.kind == "row":
        return True
    key = fact_key(unit) if unit.kind == "item" and unit.ordinal is None else ""
    return bool(key) and "?" not in key and len(key.split()) <= 6 and not _STEP_KEY.match(key)


def _fields(items: Sequence[Scored]) -> bool:
    """A bulleted list of fields (a spec sheet, its items "Key: value"; of five or more, one may
    state a value without a key, "Wi-Fi 6, dual-band") states facts, not steps ("- Empty the bin:
    lift the lid", "- Clean the brush: rinse it", "- Let it dry." are steps)."""
    fields = sum(is_field(x.unit) for x in items)
    return fields == len(items) or (len(items) >= 5 and fields >= len(items) - 1)


PASSAGE_WORDS = 110  # an explanation's passage stops growing past this many words


def passage(usable: Sequence[Scored]) -> list[Scored]:
    """An explanation: the section (source and heading path) whose best two units are the most
    relevant, as a run of its consecutive units around its best one (Scored.place: a list's
    lead-in may stand between), in document order, up to PASSAGE_WORDS words — a "why" is
    answered by the reasoning around the best sentence, not by the best sentences of several
    places."""
    sections: dict[tuple[str, tuple[str, ...]], list[Scored]] = {}
    for x in usable:
        if x.unit.kind != "row":
            sections.setdefault((x.source, x.unit.path), []).append(x)
    if not sections:
        return []

    def strength(xs: list[Scored]) -> float:
        top = sorted((x.score for x in xs), reverse=True)
        return top[0] + 0.5 * (top[1] if len(top) > 1 else 0.0)

    units = sorted(max(sections.values(), key=strength), key=lambda x: x.place)
    at = max(range(len(units)), key=lambda i: units[i].score)
    lo = hi = at
    words = len(units[at].text.split())

    def next_to(a: Scored, b: Scored) -> bool:  # b follows a (a list's lead-in may stand between)
        return b.place - a.place == 1 or (b.place - a.place == 2 and bool(b.lead))

    while True:
        grown = False
        for j in (hi + 1, lo - 1):  # the sentence after first: reasons follow what they explain
            if 0 <= j < len(units) and (
                next_to(units[hi], units[j]) if j > hi else next_to(units[j], units[lo])
            ):
                more = len(units[j].text.split())
                if words + more <= PASSAGE_WORDS:
                    lo, hi = min(lo, j), max(hi, j)
                    words += more
                    grown = True
        if not grown:
            return units[lo : hi + 1]


def trimmed(run: list[Scored], share: float) -> list[Scored]:
    """The run without the units at either end that score under share × its best (the section's
    "Contact support if …" before "To export the log, open …")."""
    floor = share * max(x.score for x in run)
    if floor <= 0:  # no positive best to measure the ends against
        return run
    lo, hi = 0, len(run)
    while lo < hi and run[lo].score < floor:
        lo += 1
    while hi > lo and run[hi - 1].score < floor:
        hi -= 1
    return run[lo:hi]


def passages(usable: Sequence[Scored], parts: int) -> list[Scored]:
    """For a question of several parts, each part's passage (scored for that part), in the
    question's order, a unit another part's passage already holds not repeated."""
    by_order = {x.order: x for x in usable}
    out: dict[int, Scored] = {}
    for i in range(parts):
        for x in passage([dataclasses.replace(x, score=x.parts[i]) for x in usable]):
            out.setdefault(x.order, by_order[x.order])
    return list(out.values())


def _key(x: Scored) -> int | str:
    return x.unit.ordinal if x.unit.ordinal is not None else x.text


_SECTION_NUMBER = re.compile(r"^\s*\d{1,3}[.)]\s+(?=\S)")  # "2. Return window", not "2.4 GHz radio"


def title_of(heading: str) -> str:
    """A heading as an answer's title line: without its section number (a line opening with "2."
    would render as a numbered list) and its trailing colon; "RETURN WINDOW" → "Return window"."""
    title = _SECTION_NUMBER.sub("", heading).rstrip(":").strip()
    if title.isupper():
        title = title.capitalize()
    return title


def _steps(items: list[Scored]) -> str:
    """The steps as a Markdown numbered list under a line naming the section and source; a gap
    in the numbering is shown as "…" between the lists."""
    ordered = sorted({_key(x): x for x in items}.values(), key=lambda x: (x.unit.ordinal or 0, x.order))
    first = ordered[0]
    heading = title_of(first.unit.path[-1]) if first.unit.path else ""
    blocks: list[list[str]] = [[f"{heading} ({first.label}):" if heading else f"From {first.label}:"]]
    # one list's lead-in holds its conditions ("… within 30 days …, provided that:")
    if first.lead and all(x.lead == first.lead for x in ordered):
        blocks.append([cite(first.lead, first.label)])
    blocks.append([])
    words = 0
    expected = first.unit.ordinal
    for n, x in enumerate(ordered, 1):
        ordinal = x.unit.ordinal
        if ordinal is not None and expected is not None and ordinal > expected:
            blocks += [["…"], []]  # steps the injected evidence does not hold
        step = x.unit.text  # as written: the title line already names the heading an item is qualified by
        words += len(step.split())
        if words > STEP_WORDS_LIMIT:
            blocks.append([pointer("the remaining steps are", first.label)])
            break
        number = ordinal if ordinal is not None else n
        mark = "-" if ordinal is None and _LETTER.match(step) else f"{number}."
        blocks[-1].append(f"{mark} {cite(step, x.label)}")  # "a) …" keeps its letter, not "1. a) …"
        expected = ordinal + 1 if ordinal is not None else None
    else:
        if ordered[-1].condensed:  # its chunk was cut to fit: the list may go on
            blocks.append([pointer("the full procedure is", first.label)])
    return "\n\n".join("\n".join(b) for b in blocks if b)


def comparison(
    usable: Sequence[Scored], question: str, wanted: frozenset[str]
) -> tuple[str, tuple[str, ...]] | None:
    """One bullet per named entity with its values for the asked attributes (from a table whose
    columns are the entities, or from each entity's own units); None with fewer than two. A
    question listing several attributes ("in arm weight and typical power draw") gets each one's
    values from wherever they are best stated: the weight from a table, the power draw from each
    model's own specification list."""
    wanted = compared(wanted)
    names = _name_words(usable, wanted)
    words = {w for w in content_words(question) if w not in _COMPARING and not entities(w)} - set(wanted)
    attrs = {ATTRIBUTE_OF.get(w, w) for w in words - names} or {ATTRIBUTE_OF.get(w, w) for w in words}
    groups = [g for g in (g - names for g in attribute_groups(question)) if g]
    values = _listed(usable, wanted, groups) or _best_values(usable, wanted, attrs)
    if values is None:
        return None
    asked = question.lower().replace("-", "")
    lines, labels = [], []
    # in the order the question names them ("the ArmX2 or the ArmX3": the ArmX2 first)
    ordered = sorted(values.items(), key=lambda kv: _first_mention(asked, kv[0]))
    for name, pairs in ordered:
        # each run of values from one source ends with its citation
        runs = [
            (label, [v for v, _ in group]) for label, group in itertools.groupby(pairs, key=lambda p: p[1])
        ]
        lines.append(f"- **{name}**: " + " ".join(cite(_joined(texts), label) for label, texts in runs))
        labels.extend(lab for _, lab in pairs)
    # "How much more suction …?": two single values' difference, computed (core/answer/difference.py)
    lines.extend(x for x in (difference.bullet(question, ordered),) if x)
    return "\n".join(lines), tuple(dict.fromkeys(labels))


def _joined(values: Sequence[str]) -> str:
    """Values in one line: "Weight 33 kg; Reach 1,300 mm", a sentence's own full stop kept
    ("… in 2022. Gripper weight: 1.1 kg")."""
    out = values[0] if values else ""
    for v in values[1:]:
        out += (" " if out.endswith((".", "!", "?")) else "; ") + v
    return out


def _best_values(
    usable: Sequence[Scored], wanted: frozenset[str], attrs: set[str], strict: bool = False, least: int = 2
) -> Values | None:
    """The entities' values for these attributes from the more relevant of a table, entity rows
    and each entity's sections (strict: only units naming one of the attributes, one per entity);
    None unless `least` entities have one."""
    tried = (
        _from_table(usable, wanted, attrs, strict),
        _from_rows(usable, wanted, attrs, strict),
        _from_sections(usable, wanted, attrs, strict),
    )
    found = [v for v in tried if v and len(v[0]) >= least]
    if not found:
        return None
    if not strict:
        return max(found, key=lambda v: v[1])[0]
    # the most entities, then the values naming most of the attribute ("Charging time: 55
    # minutes" before a table's "Flight time" for "charging time"), then relevance; an entity
    # whose value names less of it than another's does is left out ("Flight time" is no
    # charging time)
    best = max(found, key=lambda v: (len(v[0]), _naming(v[0], attrs), v[1]))[0]
    top = max(_naming({n: p}, attrs) for n, p in best.items())
    return {n: p for n, p in best.items() if _naming({n: p}, attrs) >= top}


def _naming(values: Values, attrs: set[str]) -> float:
    """How much of the attributes the entities' values name, on average over the entities."""
    return sum(max(_attr_match(text, attrs) for text, _ in pairs) for pairs in values.values()) / len(values)


_LIST_JOINT = re.compile(r"\s*(?:,|;|&|/|\band\b|\bor\b)\s*", re.IGNORECASE)


def attribute_groups(question: str) -> list[set[str]]:
    """The attributes a comparison lists, one set of words per item ("compare in arm weight and
    typical power draw" → {arm, weight}, {typical, power, draw}): the question without its model
    names, split at "and", "or" and commas; an item with no word but comparing words and the models
    ("How do the ArmX2 and …") names none."""
    out = []
    for item in _LIST_JOINT.split(without_entities(question)):
        words = {w for w in content_words(item) if w not in _COMPARING}
        if words:
            out.append({ATTRIBUTE_OF.get(w, w) for w in words})
    return out


def _listed(usable: Sequence[Scored], wanted: frozenset[str], groups: list[set[str]]) -> Values | None:
    """Each listed attribute's values (_best_values, strict), merged per entity in the order the
    question lists them; an attribute the evidence states for one entity only is shown for that
    one. None for a question listing fewer than two, or when no attribute has two entities' values
    (the whole question's best values answer then)."""
    if len(groups) < 2:
        return None
    per_group = [_best_values(usable, wanted, attrs, strict=True, least=1) or {} for attrs in groups]
    if all(len(values) < 2 for values in per_group):
        return None
    merged: Values = {}
    names: dict[str, str] = {}  # an entity's key → the name its first value came under
    for values in per_group:
        for name, pairs in values.items():
            key = min(entities(name), default=name.lower())
            have = merged.setdefault(names.setdefault(key, name), [])
            have.extend(p for p in pairs if p not in have)
    return merged


def _name_words(usable: Sequence[Scored], wanted: frozenset[str]) -> set[str]:
    """The words of the compared things' names: those of each document title that names one of
    them ("Gripper G5", "NorthEye Vision Kit"), which a question repeats around the model code
    ("the Gripper G5 and the NorthEye Vision Kit") and which are no attribute asked about."""
    out: set[str] = set()
    for title in {x.unit.path[0] for x in usable if x.unit.path}:
        if matches(wanted, entities(title) | written_in(title, wanted)):
            out |= content_words(title)
    return out


def _first_mention(asked: str, name: str) -> int:
    """Where the (lower-cased, unhyphenated) question first names an entity, as a whole word ("K5"
    is not found in "K50"); after every named one when it does not."""
    found = re.search(rf"(?<!\w){re.escape(name.lower().replace('-', ''))}(?!\w)", asked)
    return found.start() if found else len(asked)


def compared(wanted: frozenset[str]) -> frozenset[str]:
    """The entities being compared: siblings (one family, several models: "ArmX2", "ArmX3") when
    the question names any; another named thing ("CarePlus for ArmX2 vs ArmX3") only qualifies."""
    # one thing named twice ("Gripper G5" gives "gripperg5" and "g5") is one entity, not two
    distinct: list[str] = []
    for w in sorted(wanted, key=lambda w: (len(w), w)):
        if not any(matches({w}, {d}) for d in distinct):
            distinct.append(w)
    wanted = frozenset(distinct)
    families: dict[str, set[str]] = {}
    for w in wanted:
        families.setdefault(family(w), set()).add(w)
    siblings = {w for group in families.values() if len(group) >= 2 for w in group}
    return frozenset(siblings) if siblings else wanted


def _attr_match(text: str, attrs: set[str]) -> float:
    """The share of the attributes a text names (by 5-letter stem; a key of two to five words also
    by its initials, so "IP rating" is met by "Ingress protection")."""
    if not attrs:
        return 0.0
    words = {w[:5] for w in content_words(text)}
    key = re.findall(r"[A-Za-z]+", text)
    if 2 <= len(key) <= 5:
        words.add("".join(w[0] for w in key).lower())
    return len({a[:5] for a in attrs} & words) / len(attrs)


def _closest(rows: list[Scored], attrs: set[str], columns: Sequence[int]) -> list[Scored]:
    """The rows whose label names most of the attributes and, of those, adds the fewest words not
    asked ("Weight", not "Max system weight", for "How much heavier …?"), in their order; all the
    rows when one of those states no number in a compared column ("Battery: Li-ion" for "bigger")."""

    def key(r: Scored) -> tuple[float, int]:
        label = r.unit.cells[0]
        return -_attr_match(label, attrs), len({w[:5] for w in content_words(label)} - {a[:5] for a in attrs})

    best = min(map(key, rows), default=None)
    closest = [r for r in rows if key(r) == best]
    numbers = all(
        i < len(r.unit.cells) and re.search(r"\d", r.unit.cells[i]) for r in closest for i in columns
    )
    return closest if numbers else rows


Values = dict[str, list[tuple[str, str]]]  # entity name → (value, citation) pairs


def _from_table(
    usable: Sequence[Scored], wanted: frozenset[str], attrs: set[str], strict: bool = False
) -> tuple[Values, float] | None:
    """Values from the rows of the best table whose header names at least two of the entities,
    and the mean relevance of those rows (strict: only rows naming an attribute)."""
    tables: dict[tuple[str, int, tuple[str, ...]], list[Scored]] = {}
    for x in usable:
        if x.unit.kind == "row" and x.unit.header:
            tables.setdefault((x.source, x.order // 100000, x.unit.header), []).append(x)
    best: tuple[Values, float] | None = None
    best_key = (-1.0, 0.0)
    for (_, _, header), rows in tables.items():
        # a column headed by a model, or by an asked one named without a digit ("Vela Cargo")
        heads = {i: entities(h) | written_in(h, wanted) for i, h in enumerate(header) if i}
        cols = {i: header[i] for i, found in heads.items() if found}
        named = {i: h for i, h in cols.items() if not wanted or matches(wanted, heads[i])}
        if len(named) < 2:
            continue
        ranked = sorted(rows, key=lambda r: (-_attr_match(r.unit.cells[0], attrs), -r.score))
        chosen = _closest([r for r in ranked if _attr_match(r.unit.cells[0], attrs) > 0], attrs, list(named))
        if not chosen:
            if strict:
                continue
            chosen = ranked[: 3 if attrs else 6]
        chosen.sort(key=lambda r: r.order)
        out = {
            h: [
                (f"{r.unit.cells[0]} {r.unit.cells[i]}", r.label)
                for r in chosen
                if i < len(r.unit.cells) and r.unit.cells[i]
            ]
            for i, h in named.items()
        }
        relevance = sum(r.score for r in chosen) / len(chosen)
        # the table whose row names most of the asked attribute, then the more relevant: a
        # certification table's "Default max. transient contact force" row over a specification
        # table whose "Max TCP speed" shares one word with the question
        key = (max(_attr_match(r.unit.cells[0], attrs) for r in chosen), relevance)
        if best is None or key > best_key:
            best, best_key = (out, relevance), key
    return best


def _from_rows(
    usable: Sequence[Scored], wanted: frozenset[str], attrs: set[str], strict: bool = False
) -> tuple[Values, float] | None:
    """Values from table rows whose subject cell names one asked entity each ("SEV1 | 15 minutes",
    "E-104 | Joint overcurrent"): the entity's best row, narrowed to the columns naming an asked
    attribute when any does; and their mean relevance (strict: only rows with such a column)."""
    if len(wanted) < 2:
        return None
    best: dict[str, Scored] = {}
    for x in usable:
        if x.unit.kind != "row" or not x.unit.cells:
            continue
        about = [w for w in sorted(wanted) if matches({w}, entities(x.unit.cells[0]))]
        if len(about) == 1 and (about[0] not in best or x.score > best[about[0]].score):
            best[about[0]] = x
    if len(best) < 2:
        return None
    out: Values = {}
    for x in best.values():
        columns = [i for i, h in enumerate(x.unit.header) if i and _attr_match(h, attrs) > 0]
        if strict and not columns:
            continue
        text = x.unit.row_text(columns) if columns else x.unit.row_text()
        out[x.unit.cells[0]] = [(text.split(" — ", 1)[-1], x.label)]
    return out, sum(x.score for x in best.values()) / len(best)


def _from_sections(
    usable: Sequence[Scored], wanted: frozenset[str], attrs: set[str], strict: bool = False
) -> tuple[Values, float] | None:
    """Values from units about each named entity (under its heading, or naming it): those that
    name an asked attribute, else the entity's most relevant unit; and their mean relevance
    (strict: the one "Key: value" item whose key names most of the attributes, and no entity
    without one; prose that merely mentions an attribute word, "See the warranty policy for
    details", states no value of it)."""
    if len(wanted) < 2:
        return None
    found: dict[str, list[Scored]] = {}
    for x in sorted(usable, key=lambda x: x.order):
        if x.unit.kind == "row" and sum(bool(entities(h) | written_in(h, wanted)) for h in x.unit.header) > 1:
            continue  # a row of a table whose columns are models: _from_table reads those (a
            # model's own specification table, one column named by it, is that model's)
        about = [w for w in sorted(wanted) if matches({w}, set(x.scope) | entities(x.text))]
        if len(about) == 1:  # a unit naming several of them compares nothing by itself
            found.setdefault(about[0], []).append(x)
    out: Values = {}
    chosen_all: list[Scored] = []
    for w, xs in found.items():
        naming = [x for x in xs if _attr_match(x.text, attrs) > 0]
        if strict:
            naming = [x for x in xs if _attr_match(fact_key(x.unit), attrs) > 0]
            if not naming:
                continue
            naming = [max(naming, key=lambda x: (_attr_match(fact_key(x.unit), attrs), x.score))]
        chosen = naming[:3] or [max(xs, key=lambda x: x.score)]
        out[_display(w, chosen[0])] = [(_own_row(x), x.label) for x in chosen]
        chosen_all.extend(chosen)
    if not chosen_all:
        return None
    return out, sum(x.score for x in chosen_all) / len(chosen_all)


def _own_row(x: Scored) -> str:
    """A unit as its entity's bullet shows it: a row of the entity's own table (its one value column
    named by it) as "Battery backup 20 hours", not again under the name the bullet leads with."""
    u = x.unit
    if u.kind == "row" and len(u.cells) == 2 and len(u.header) == 2 and entities(u.header[1]):
        return f"{u.cells[0].strip()} {u.cells[1].strip()}"
    return x.text


def _display(token: str, x: Scored) -> str:
    """How the evidence writes the entity (its heading's spelling, else its own text's), for the
    bullet's name."""
    if " " in token:  # a name without a digit, "lumo kids" (core/query/entities.family_named)
        first, rest = token.split(" ", 1)
        spaced = r"\s*".join(map(re.escape, rest))  # "budspro" as "Buds Pro"
        name = re.compile(rf"\b{re.escape(first)}\s+{spaced}\b", re.I)
        found = (name.search(line) for line in (*reversed(x.unit.path), x.text))
        return next((m.group() for m in found if m), token)
    for line in (*reversed(x.unit.path), x.text):
        for as_written, norm in written(line):  # "Stride 3 Plus", a name and number apart
            if " " in as_written.strip() and matches({token}, {norm}):
                return as_written.strip()
        for word in line.split():
            word = word.strip(".,;:()'\"")
            if len(word) > 1 and (
                word.lower().replace("-", "").endswith(token) or token.endswith(word.lower().replace("-", ""))
            ):
                return word
    return token


PARALLEL = 0.1  # the second side's unit gains this for standing in the first side's section …
ALIKE = 0.3  # … and this share of its word overlap with the first side's (facts written in parallel)


def sides(usable: Sequence[Scored], parts: Sequence[str]) -> tuple[str, tuple[str, ...]] | None:
    """A comparison of two things the question names in words ("security logs" compared to
    "incident tickets"): for each side, the best unit for it among those more about it than about
    the other side (more of the words only it has, in the unit or its heading); the second side's
    unit preferably in the first one's section and worded like it, as parallel facts are written.
    None unless both sides have one."""
    if len(parts) != 2:
        return None
    own = [{w[:5] for w in distinct_words(a, b)} for a, b in (parts, parts[::-1])]
    acronyms = acronyms_of(" ".join(parts))  # "EU" of one side is met by "European Union"
    picked: list[Scored] = []
    for i in (0, 1):
        fits = [x for x in usable if x not in picked and _about(x, own[i], own[1 - i] - own[i], acronyms)]
        if not fits:
            return None
        picked.append(max(fits, key=lambda x, i=i: _side_value(x, i, picked)))
    lines = [f"- {cite(x.text, x.label)}" for x in picked]
    return "\n".join(lines), _labels(picked)


def _about(x: Scored, mine: set[str], theirs: set[str], acronyms: frozenset[str] = frozenset()) -> bool:
    text = " ".join((*x.unit.path[-1:], x.text))
    words = {w[:5] for w in content_words(text)} | spelled_out(acronyms, text)
    return len(words & mine) > len(words & theirs)


def _side_value(x: Scored, side: int, picked: Sequence[Scored]) -> float:
    if not picked:
        return x.parts[side]
    first = picked[0]
    near = (x.source, x.unit.path) == (first.source, first.unit.path)
    alike = jaccard(word_set(x.text), word_set(first.text))  # "A … is a stop category 2"
    return x.parts[side] + (PARALLEL if near else 0.0) + ALIKE * alike
