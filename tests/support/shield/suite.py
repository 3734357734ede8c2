"""The injection-shield suites, run through the real pipeline: attacks.json (indirect injections
planted in ordinary company pages, by style, in md / html / txt / pdf) and benign.json (ordinary
instruction-heavy documentation), written by a red-teamer without the detector's code.

Each page is written in its format, ingested with the real loaders next to the sample corpus, and
every suite question plus the sample eval questions are asked of the offline extractive pipeline.
Per attack: present (its text survived parsing; hidden HTML should not), flagged (every stored
chunk holding its text is quarantined), quoted (its payload or text appears in any answer to any
question), undefused (it reached the knowledge block outside a warning); per benign page: flagged
chunks, and whether its own question's answer quotes its key sentence. Fence breakouts are checked
on every answer.

    python -m tests.support.shield.suite [--out report.json]     # prints the per-style table
    python -m tests.support.shield.suite --holdout                # the held-out suites
    python -m tests.support.shield.suite --holdout PREFIX         # any other PREFIX_*.json pair
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
import textwrap
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from core.config import Settings
from core.context.knowledge import WARNING
from core.pipeline import Answer, Pipeline
from core.shield.normalize import reading
from core.shield.quarantine import chunk_flags
from core.types import Chunk
from ingest.sync import ingest_paths
from tests.support.pdfs import make_pdf
from tests.support.stores import ROOT, SAMPLE, index_for, make_pipeline, make_settings, resources_for

HERE = Path(__file__).parent
ATTACKS: list[dict[str, Any]] = json.loads((HERE / "attacks.json").read_text(encoding="utf-8"))
BENIGN: list[dict[str, Any]] = json.loads((HERE / "benign.json").read_text(encoding="utf-8"))
EXT = {"md": ".md", "html": ".html", "txt": ".txt", "pdf": ".pdf"}


def plain(text: str) -> str:
    """How a reader sees text, for matching: read as a model reads it, lower-cased, spaces collapsed."""
    return " ".join(reading(text).text.lower().split())


_CITATION = re.compile(r"\s*\([^()\n]{1,200}\.(?:md|txt|pdf|html?)(?:\s+p\.\s?\d+)?\)")


def words(text: str) -> str:
    """Text as a run of its words (citations, markup and punctuation dropped), for "is quoted" checks."""
    return " ".join(re.findall(r"\w+", plain(_CITATION.sub("", text))))


def source_of(item: dict[str, Any]) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", item["title"].lower()).strip("-")[:40] or item["id"]
    return f"pages/{item['id']}-{slug}{EXT[item['format']]}"


def _pdf(body: str, title: str) -> bytes:
    lines = [w for para in body.splitlines() for w in (textwrap.wrap(para, 90) or [""])]
    return make_pdf([lines[i : i + 50] for i in range(0, len(lines), 50)], title=title)


def write_pages(root: Path, items: Iterable[dict[str, Any]]) -> None:
    for item in items:
        path = root / source_of(item)
        path.parent.mkdir(parents=True, exist_ok=True)
        if item["format"] == "pdf":
            path.write_bytes(_pdf(item["body"], item["title"]))
        else:
            path.write_text(item["body"], encoding="utf-8")


@dataclass
class AttackResult:
    id: str
    style: str
    format: str
    present: bool = False  # its text survived parsing (hidden HTML and raw tags in Markdown do not)
    flagged: bool = False  # every chunk holding it is quarantined, or it was dropped at parse time
    noted: bool = False  # its page's chunks carry a parse note (hidden HTML dropped)
    quoted: list[str] = field(default_factory=list)  # questions whose answer repeats it
    undefused: bool = False  # reached the knowledge block outside a warning


@dataclass
class BenignResult:
    id: str
    format: str
    chunks: int = 0
    flagged_chunks: int = 0
    reasons: list[str] = field(default_factory=list)
    answered: bool = False  # its own question's answer quotes its key sentence


@dataclass
class Report:
    attacks: list[AttackResult]
    benign: list[BenignResult]
    questions: int = 0
    breakouts: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        n, b = len(self.attacks), len(self.benign)
        chunks = sum(r.chunks for r in self.benign)
        return {
            "attacks": n,
            "flagged": sum(r.flagged for r in self.attacks),
            "dropped": sum(not r.present for r in self.attacks),
            "quoted": sum(bool(r.quoted) for r in self.attacks),
            "undefused": sum(r.undefused for r in self.attacks),
            "breakouts": len(self.breakouts),
            "benign_pages": b,
            "benign_chunks": chunks,
            "benign_chunks_flagged": sum(r.flagged_chunks for r in self.benign),
            "benign_answered": sum(r.answered for r in self.benign),
            "questions": self.questions,
        }

    def table(self) -> str:
        """The per-style table the README shows."""
        rows = [
            "| style | attacks | flagged | of which dropped at parse time | quoted by the answer | reached the prompt undefused |",
            "|---|---|---|---|---|---|",
        ]
        for style in sorted({r.style for r in self.attacks}):
            rs = [r for r in self.attacks if r.style == style]
            rows.append(
                f"| {style} | {len(rs)} | {sum(r.flagged for r in rs)} | {sum(not r.present for r in rs)} | "
                f"{sum(bool(r.quoted) for r in rs)} | {sum(r.undefused for r in rs)} |"
            )
        s = self.summary()
        rows.append(
            f"| **all** | {s['attacks']} | {s['flagged']} | {s['dropped']} | {s['quoted']} | {s['undefused']} |"
        )
        return "\n".join(rows)


def stored_chunks(s: Settings) -> dict[str, list[Chunk]]:
    """The stored chunks of each source, with their metadata."""
    got = index_for(s).vectors.collection.get(include=["documents", "metadatas"])
    out: dict[str, list[Chunk]] = {}
    for cid, doc, meta in zip(got["ids"], got["documents"], got["metadatas"], strict=True):
        out.setdefault(str(meta["source"]), []).append(Chunk(cid, doc, str(meta["source"]), meta))
    return out


WINDOW = 6  # words: a chunk holds an attack when it holds any run of this many of its words


def _runs(text: str) -> set[str]:
    w = words(text).split()
    return {" ".join(w[i : i + WINDOW]) for i in range(max(1, len(w) - WINDOW + 1))}


def _chunks_with(chunks: list[Chunk], needles: list[str]) -> list[Chunk]:
    """The chunks holding any part of the attack (an attack can straddle a chunk boundary)."""
    runs = set().union(*(_runs(x) for x in needles))
    return [c for c in chunks if any(r in words(c.text) for r in runs)]


def said(phrase: str, answer: str) -> bool:
    """The phrase appears in the answer: word runs for sentences (citations between words do not
    hide them), the literal text for short markers ("rules>>", a phone number)."""
    if len(words(phrase).split()) >= 3:
        return words(phrase) in words(answer)
    return plain(phrase) in plain(answer)


def knowledge_entries(answer: Answer) -> list[str]:
    """The fenced entries of the knowledge message as injected."""
    t = answer.trace
    text = "".join(
        m["content"] for m, s in zip(t["messages"], t["message_sections"], strict=True) if s == "knowledge"
    )
    m = re.search(r"<doc-([0-9a-f]{6}) n=1>", text)
    if not m:
        return []
    tag = m.group(1)
    return re.findall(rf"<doc-{tag} n=\d+>\n(.*?)\n</doc-{tag}>", text, re.DOTALL)


def _fence_ok(answer: Answer) -> bool:
    """One real fence pair per injected entry and no other fence tag anywhere in the block."""
    included = [
        e for e in answer.trace["chunks"] if e["fate"] in ("kept", "summarised", "truncated", "condensed")
    ]
    entries = knowledge_entries(answer)
    t = answer.trace
    text = "".join(
        m["content"] for m, s in zip(t["messages"], t["message_sections"], strict=True) if s == "knowledge"
    )
    fences = len(re.findall(r"</?\s*doc-", text))
    return (not included and not text) or (bool(entries) and fences == 2 * len(entries))


def build_store(tmp: Path, sample_store: Settings | None = None) -> Settings:
    """A store with the sample corpus and both suites (copied from sample_store when given)."""
    pages = tmp / "pages-root"
    write_pages(pages, [*ATTACKS, *BENIGN])
    s = make_settings(tmp, store_path=tmp / "store")
    if sample_store is not None:
        shutil.copytree(sample_store.store_path, tmp / "store")
    else:
        ingest_paths(s, [SAMPLE], resources=resources_for(s))
    report = ingest_paths(s, [pages], resources=resources_for(s))
    if report.errors:
        raise RuntimeError(f"suite pages failed to ingest: {report.errors}")
    return s


def run(s: Settings, pipe: Pipeline | None = None) -> Report:
    pipe = pipe or make_pipeline(s, backend=None)
    stored = stored_chunks(s)
    attacks = [_attack_static(a, stored.get(source_of(a), [])) for a in ATTACKS]
    benign = [_benign_static(b, stored.get(source_of(b), [])) for b in BENIGN]
    report = Report(attacks, benign)
    sample_questions = [
        json.loads(x)["q"] for x in (ROOT / "data" / "eval.jsonl").read_text().splitlines() if x.strip()
    ]
    questions = [a["question"] for a in ATTACKS] + [b["question"] for b in BENIGN] + sample_questions
    for q in questions:
        answer = pipe.ask(q, record=False)
        report.questions += 1
        if not _fence_ok(answer):
            report.breakouts.append(q)
        _score_answer(report, q, answer)
    return report


def _attack_static(a: dict[str, Any], chunks: list[Chunk]) -> AttackResult:
    r = AttackResult(a["id"], a["style"], a["format"])
    holding = _chunks_with(chunks, a["attack"])
    r.present = bool(holding)
    r.flagged = all(chunk_flags(c) for c in holding)  # vacuously true when parsing dropped it
    r.noted = any(c.metadata.get("notes") for c in chunks)
    return r


def _benign_static(b: dict[str, Any], chunks: list[Chunk]) -> BenignResult:
    flagged = [c for c in chunks if chunk_flags(c)]
    reasons = sorted({why for c in flagged for why in chunk_flags(c)})
    return BenignResult(b["id"], b["format"], len(chunks), len(flagged), reasons)


def _score_answer(report: Report, question: str, answer: Answer) -> None:
    entries = knowledge_entries(answer)
    for a, r in zip(ATTACKS, report.attacks, strict=True):
        if any(said(p, answer.text) for p in a["payload"] + a["attack"]):
            r.quoted.append(question)
        if question == a["question"]:
            runs = set().union(*(_runs(x) for x in a["attack"]))
            r.undefused = r.undefused or any(
                WARNING not in e and any(k in words(e) for k in runs) for e in entries
            )
    for b, r in zip(BENIGN, report.benign, strict=True):
        if question == b["question"]:
            r.answered = any(said(k, answer.text) for k in b["key"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="write the full report as JSON here")
    parser.add_argument(
        "--holdout",
        nargs="?",
        const="holdout",
        metavar="PREFIX",
        help="run a held-out pair PREFIX_attacks.json / PREFIX_benign.json instead (default prefix "
        "'holdout': a second red-teamer's suites, measured once before any tuning on them)",
    )
    args = parser.parse_args(argv)
    if args.holdout:
        global ATTACKS, BENIGN
        ATTACKS = json.loads((HERE / f"{args.holdout}_attacks.json").read_text(encoding="utf-8"))
        BENIGN = json.loads((HERE / f"{args.holdout}_benign.json").read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        report = run(build_store(Path(tmp)))
    print(report.table())
    s = report.summary()
    print(
        f"\nbenign: {s['benign_chunks_flagged']}/{s['benign_chunks']} chunks flagged on {s['benign_pages']} pages; "
        f"key sentence answered {s['benign_answered']}/{s['benign_pages']}; "
        f"{s['questions']} questions, {s['breakouts']} fence breakouts"
    )
    for r in report.attacks:
        if not r.flagged or r.quoted or r.undefused:
            print(
                f"  attack {r.id} ({r.style}, {r.format}): flagged={r.flagged} quoted={r.quoted} undefused={r.undefused}"
            )
    for b in report.benign:
        if b.flagged_chunks:
            print(f"  benign {b.id} ({b.format}) flagged: {b.reasons}")
    counts = Counter(r.style for r in report.attacks)
    print(json.dumps({**s, "styles": dict(counts)}))
    if args.out:
        args.out.write_text(
            json.dumps(
                {
                    "summary": s,
                    "attacks": [asdict(r) for r in report.attacks],
                    "benign": [asdict(r) for r in report.benign],
                },
                indent=1,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
