"""Labelled question sets for the eval: SQuAD v2 JSON, the STICI CSVs, the project's JSONL, and
the off-topic list. Each loader returns a Dataset: a folder of documents to ingest with the real
ingest code, and the questions, each with its kind, gold answers and gold document."""

from __future__ import annotations

import csv
import json
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from core.errors import ContextLensError

Kind = Literal["answerable", "unanswerable", "oos"]
Match = Literal["phrase", "keyterms"]

STICI_FILES = {
    "single": "single_passage_{split}_questions.csv",
    "multi": "multi_passage_{split}_questions.csv",
    "none": "no_answer_{split}_questions.csv",
}


class DatasetError(ContextLensError):
    """An eval input file is missing or not in the expected format."""


@dataclass(frozen=True)
class Question:
    """One labelled question.

    kind: answerable (gold holds answer phrases or a reference answer), unanswerable (about the
    corpus but not answered by it) or oos (out of scope: should be refused).
    match: how gold is scored — "phrase" (any gold phrase appears) or "keyterms" (STICI: enough of
    the reference answer's key terms appear; see metrics.keyterm_recall).
    """

    id: str
    q: str
    kind: Kind
    gold: tuple[str, ...] = ()
    doc: str | None = None
    match: Match = "phrase"
    group: str = ""  # sub-set of the dataset (STICI single/multi/none, "offtopic", …)
    all: tuple[str, ...] = ()  # phrases a strictly correct answer must all contain
    forbid: tuple[str, ...] = ()  # phrases it must not contain (e.g. the confusable model's value)
    qtype: str = ""  # the question's labelled type (factual | procedural | comparison | analytical)


@dataclass
class Dataset:
    """A corpus folder to ingest and its questions."""

    name: str
    corpus: Path
    questions: list[Question] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        out = {"answerable": 0, "unanswerable": 0, "oos": 0}
        for q in self.questions:
            out[q.kind] += 1
        return out


def slug(text: str, limit: int = 48) -> str:
    """A file/collection-safe name: letters, digits, '.', '_' and '-' (alphanumeric at both ends)."""
    s = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-._")[:limit].strip("-._")
    return s or "x"


def _write_if_changed(path: Path, text: str) -> None:
    """Write text unless the file already holds it (keeps re-runs incremental and cheap)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return
    path.write_text(text, encoding="utf-8")


def _prune(root: Path, keep: set[Path]) -> None:
    """Remove files a previous run wrote that this input no longer has."""
    for f in root.rglob("*.txt"):
        if f not in keep:
            f.unlink()


def load_squad(path: Path, work_dir: Path, name: str | None = None) -> Dataset:
    """SQuAD v2 JSON → one .txt document per paragraph (<article>/p<NNN>.txt under work_dir/name);
    is_impossible questions are unanswerable, gold = every answer text."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        articles = data["data"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise DatasetError(f"{path}: not a readable SQuAD v2 JSON file ({e})") from e
    name = name or slug(f"squad-{Path(path).stem}")
    root = work_dir / name
    ds = Dataset(name, root)
    written: set[Path] = set()
    for a, article in enumerate(articles):
        title = slug(str(article.get("title") or f"article{a:03d}"))
        for p, para in enumerate(article.get("paragraphs", [])):
            source = f"{title}/p{p:03d}.txt"
            f = root / source
            _write_if_changed(f, str(para["context"]).strip() + "\n")
            written.add(f)
            for qa in para.get("qas", []):
                impossible = bool(qa.get("is_impossible", False))
                golds = tuple(dict.fromkeys(str(x["text"]).strip() for x in qa.get("answers", [])))
                golds = tuple(g for g in golds if g)
                if not impossible and not golds:
                    continue  # an answerable question without an answer cannot be scored
                ds.questions.append(
                    Question(
                        id=str(qa.get("id") or f"{source}#{len(ds.questions)}"),
                        q=str(qa["question"]).strip(),
                        kind="unanswerable" if impossible else "answerable",
                        gold=() if impossible else golds,
                        doc=source,
                        group="impossible" if impossible else "answerable",
                    )
                )
    _prune(root, written)
    if not ds.questions:
        raise DatasetError(f"{path}: no questions found")
    return ds


def _read_csv(path: Path) -> list[dict[str, str]]:
    csv.field_size_limit(1 << 30)  # STICI documents are up to 212k characters in one field
    try:
        with path.open(encoding="utf-8", newline="") as fh:
            return list(csv.DictReader(fh))
    except OSError as e:
        raise DatasetError(f"cannot read {path}: {e.strerror or e}") from e


def stici_source(index: str, url: str) -> str:
    """The file name a STICI document is ingested under: <index>-<last url path part>.txt."""
    path = re.split(r"[?#]", url.split("://", 1)[-1])[0]
    parts = [p for p in path.split("/") if p]
    hint = slug(parts[-1] if parts else "", 40)
    return f"{int(index):02d}-{hint}.txt"


def load_stici(directory: Path, work_dir: Path, split: str = "train_validate") -> Dataset:
    """STICI documents.csv + {single,multi}_passage / no_answer question CSVs of one split."""
    directory = Path(directory)
    docs = _read_csv(directory / "documents.csv")
    name = slug(f"stici-{split}")
    root = work_dir / name
    ds = Dataset(name, root)
    sources: dict[str, str] = {}
    written: set[Path] = set()
    for row in docs:
        try:
            idx, url, text = row["index"], row.get("source_url", ""), row["text"]
        except KeyError as e:
            raise DatasetError(f"{directory / 'documents.csv'}: missing column {e}") from e
        src = stici_source(idx, url)
        sources[str(int(idx))] = src
        f = root / src
        _write_if_changed(f, text.strip() + "\n")
        written.add(f)
    _prune(root, written)
    found = False
    for group, pattern in STICI_FILES.items():
        path = directory / pattern.format(split=split)
        if not path.exists():
            continue
        found = True
        for n, row in enumerate(_read_csv(path)):
            doc = sources.get(str(int(row["document_index"])))
            question = (row.get("question") or "").strip()
            if not question:
                continue
            answer = (row.get("answer") or "").strip()
            answerable = group != "none"
            ds.questions.append(
                Question(
                    id=f"{split}-{group}-{n:03d}",
                    q=question,
                    kind="answerable" if answerable else "unanswerable",
                    gold=(answer,) if answerable and answer else (),
                    doc=doc,
                    match="keyterms",
                    group=group,
                )
            )
    if not found:
        raise DatasetError(f"{directory}: no question CSVs for split {split!r}")
    return ds


def _phrases(value: object, path: Path, n: int) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise DatasetError(f"{path}:{n}: 'all' and 'forbid' must be lists of phrases")
    return tuple(value)


QTYPES = ("factual", "procedural", "comparison", "analytical")


def _qtype(value: object, path: Path, n: int) -> str:
    if value is None:
        return ""
    if value not in QTYPES:
        raise DatasetError(f"{path}:{n}: 'type' must be one of {', '.join(QTYPES)}")
    return str(value)


def load_jsonl(path: Path, corpus: Path, name: str | None = None) -> Dataset:
    """The project's format, one object a line: {"q", "gold": [phrases] | "OOS", "doc"} and
    optionally "all" / "forbid" (phrases for the strict metric) and "type"; doc is relative to the
    corpus folder (which is ingested as is)."""
    ds = Dataset(name or slug(Path(path).stem), Path(corpus))
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise DatasetError(f"cannot read {path}: {e.strerror or e}") from e
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            obj = json.loads(line)
            q = str(obj["q"]).strip()
            gold = obj.get("gold")
        except (ValueError, KeyError, TypeError) as e:
            raise DatasetError(f'{path}:{n}: expected {{"q", "gold", "doc"}} ({e})') from e
        oos = isinstance(gold, str) and gold.strip().upper() == "OOS"
        if not oos:
            golds = [gold] if isinstance(gold, str) else list(gold or [])
            gold_t = tuple(str(g) for g in golds if str(g).strip())
            if not gold_t:
                raise DatasetError(f'{path}:{n}: gold must be a list of answer phrases or "OOS"')
        ds.questions.append(
            Question(
                id=f"{ds.name}-{n:04d}",
                q=q,
                kind="oos" if oos else "answerable",
                gold=() if oos else gold_t,
                doc=obj.get("doc") or None,
                group="oos" if oos else "answerable",
                all=_phrases(obj.get("all"), path, n),
                forbid=_phrases(obj.get("forbid"), path, n),
                qtype=_qtype(obj.get("type"), path, n),
            )
        )
    if not ds.questions:
        raise DatasetError(f"{path}: no questions found")
    return ds


def load_offtopic(path: Path) -> list[Question]:
    """General-knowledge questions unrelated to any corpus: one a line ('#' comments)."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise DatasetError(f"cannot read the off-topic questions {path}: {e.strerror or e}") from e
    qs = [x.strip() for x in lines if x.strip() and not x.lstrip().startswith("#")]
    return [Question(f"offtopic-{n:03d}", q, "oos", group="offtopic") for n, q in enumerate(qs)]


def sample(questions: Sequence[Question], limit: int | None, seed: int, name: str) -> list[Question]:
    """At most `limit` questions, chosen by a RNG seeded with (seed, dataset name), in input order."""
    if limit is None or limit >= len(questions):
        return list(questions)
    rng = random.Random(f"{seed}:{name}")
    keep = sorted(rng.sample(range(len(questions)), max(0, limit)))
    return [questions[i] for i in keep]


def unique_names(datasets: Iterable[Dataset]) -> list[Dataset]:
    """Datasets with distinct names (a repeated name gets -2, -3, …)."""
    seen: dict[str, int] = {}
    out = []
    for ds in datasets:
        n = seen.get(ds.name, 0) + 1
        seen[ds.name] = n
        if n > 1:
            ds.name = f"{ds.name}-{n}"
        out.append(ds)
    return out
