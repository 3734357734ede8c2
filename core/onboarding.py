"""What a new user sees first: what is indexed, and example questions to click.

The sample corpus's four questions are kept in data/examples.json (used when every source it lists
is indexed). Any other corpus gets four questions drawn from its own document titles and headings
by general rules: a procedure heading ("How to …", "… procedure", "Installing …") gives the
procedural question, a descriptive heading the factual one, two documents of one category the
comparison, and a general-knowledge question no title or heading shares a word with the off-topic
one, which should be refused."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from core.index import Index
from core.text import content_words

KINDS = ("factual", "procedural", "comparison", "off-topic")
OFF_TOPIC_DEFAULT = "Who painted The Night Watch?"
_MD_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*$", re.MULTILINE)
_NUMBERING = re.compile(r"^\s*(?:\d+(?:\.\d+)*[.)]?|[A-Z][.)])\s+")
_HOW_TO = re.compile(r"^how (?:to|do i|do you|can i)\s+(.+?)\??$", re.IGNORECASE)
_PROCEDURE = re.compile(
    r"\b(procedure|steps?|step-by-step|setting up|set up|setup|installing|installation|install|"
    r"upgrad\w*|mounting|changing|configuring|replacing|calibrat\w*|checklist)\b",
    re.IGNORECASE,
)
_FACTUAL = re.compile(
    r"\b(specifications?|specs|overview|summary|key facts|features|requirements|limits|"
    r"limitations|cover\w*|pricing|prices?|what we collect|roles|responsibilities)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class IndexedDoc:
    source: str
    category: str
    title: str
    headings: tuple[str, ...]  # each chunk's last heading, in document order, without repeats


@dataclass(frozen=True)
class Overview:
    documents: int
    chunks: int
    categories: tuple[tuple[str, int], ...]  # (category, documents), most documents first
    docs: tuple[IndexedDoc, ...]

    @property
    def titles(self) -> tuple[str, ...]:
        return tuple(d.title for d in self.docs)

    def sample_titles(self, n: int) -> tuple[str, ...]:
        """Up to n titles, one per category first (the largest categories first), then the rest."""
        firsts = [next(d.title for d in self.docs if d.category == c) for c, _ in self.categories]
        return tuple(dict.fromkeys([*firsts, *self.titles]))[:n]


@dataclass(frozen=True)
class Example:
    kind: str  # one of KINDS
    question: str


def overview(index: Index) -> Overview:
    """Documents, chunks, categories and each document's title and headings, from the index (the
    headings of each chunk's path and those inside its text, in the canonical `#` markup)."""
    meta = index.vectors.metadata()
    texts = {v.chunk.id: v.chunk.text for v in index.vectors.get(list(meta), with_embeddings=False)}
    docs = []
    for rec in index.all_files():
        ids = sorted(
            (c for c in rec.chunk_ids if c in meta), key=lambda c: int(meta[c].get("chunk_index") or 0)
        )
        first = meta[ids[0]] if ids else {}
        title = clean_title(str(first.get("title") or "")) or Path(rec.source).stem.replace("-", " ")
        found = [
            _last_heading(h)
            for c in ids
            for h in (str(meta[c].get("heading_path") or ""), *_MD_HEADING.findall(texts.get(c, "")))
        ]
        headings = dict.fromkeys(h for h in found if h and h.lower() != title.lower())
        docs.append(IndexedDoc(rec.source, str(first.get("category") or ""), title, tuple(headings)))
    cats = Counter(d.category for d in docs if d.category)
    return Overview(len(docs), len(meta), tuple(cats.most_common()), tuple(docs))


def clean_title(title: str) -> str:
    """A document title for display: a site-name part (" | Site", " - Site") dropped, keeping the
    longest part, and an all-capitals title in title case."""
    parts = [p.strip() for p in re.split(r"\s+[|–-]\s+", title.strip()) if p.strip()]
    text = max(parts, key=len) if parts else ""
    if text.isupper():
        text = " ".join(w if any(ch.isdigit() for ch in w) else w.capitalize() for w in text.lower().split())
    return text


def _last_heading(path: str) -> str:
    last = path.split("›")[-1].strip()
    return clean_title(_NUMBERING.sub("", last))


# the sample corpus's questions ---------------------------------------------------------------------


def curated_examples(path: Path, sources: Iterable[str]) -> list[Example] | None:
    """The examples file's questions when every source it names is indexed; None otherwise (no
    file, a file for another corpus, or a malformed file)."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        needed = [str(s) for s in raw["sources"]]
        questions = [Example(str(q["kind"]), str(q["question"])) for q in raw["questions"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    indexed = set(sources)
    return questions if questions and all(s in indexed for s in needed) else None


# any other corpus ---------------------------------------------------------------------------------


def derived_examples(ov: Overview, off_topic: Sequence[str] = ()) -> list[Example]:
    """Up to four questions drawn from the titles and headings (see the module docstring)."""
    out: list[Example] = []
    used: set[str] = set()
    procedural = _first(ov.docs, lambda h: bool(_HOW_TO.match(h) or _PROCEDURE.search(h)))
    if procedural:
        used.add(procedural[0].source)
        out.append(Example("procedural", _procedural_question(*procedural)))
    factual = _first([d for d in ov.docs if d.source not in used], lambda h: bool(_FACTUAL.search(h)))
    factual = factual or _first([d for d in ov.docs if d.source not in used], lambda h: "?" not in h)
    if factual:
        doc, heading = factual
        out.append(Example("factual", f"What does {doc.title} say about {heading[0].lower() + heading[1:]}?"))
    elif ov.docs:
        out.append(Example("factual", f"What is {ov.docs[0].title} about?"))
    pair = _comparable(ov)
    if pair:
        out.append(Example("comparison", f"Compare {pair[0].title} and {pair[1].title}"))
    if ov.docs:
        out.append(Example("off-topic", _off_topic(ov, off_topic)))
    order = {k: n for n, k in enumerate(KINDS)}
    return sorted(out, key=lambda e: order[e.kind])


def _first(docs: Sequence[IndexedDoc], wanted: object) -> tuple[IndexedDoc, str] | None:
    for doc in docs:
        for heading in doc.headings:
            if wanted(heading):  # type: ignore[operator]
                return doc, heading
    return None


def _procedural_question(doc: IndexedDoc, heading: str) -> str:
    how = _HOW_TO.match(heading)
    if how:
        return f"How do I {how.group(1)}?"
    return f"What are the steps of “{heading}” in {doc.title}?"


def _comparable(ov: Overview) -> tuple[IndexedDoc, IndexedDoc] | None:
    """Two documents of the category with the most documents (any two when none has two)."""
    for category, n in ov.categories:
        if n >= 2:
            docs = [d for d in ov.docs if d.category == category]
            return docs[0], docs[1]
    return (ov.docs[0], ov.docs[1]) if len(ov.docs) >= 2 else None


def _off_topic(ov: Overview, candidates: Sequence[str]) -> str:
    """The first general-knowledge question sharing no content word with a title or heading."""
    vocabulary = {w for d in ov.docs for text in (d.title, *d.headings) for w in content_words(text.lower())}
    for question in [*candidates, OFF_TOPIC_DEFAULT]:
        if not vocabulary & content_words(question.lower()):
            return question
    return OFF_TOPIC_DEFAULT


def example_questions(ov: Overview, examples_path: Path, off_topic: Sequence[str] = ()) -> list[Example]:
    """The sample corpus's curated questions, or questions drawn from this corpus's headings."""
    curated = curated_examples(examples_path, (d.source for d in ov.docs))
    return curated if curated is not None else derived_examples(ov, off_topic)


def read_lines(path: Path) -> list[str]:
    """Non-blank lines of a text file ([] when it cannot be read)."""
    try:
        return [ln.strip() for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]
    except OSError:
        return []
