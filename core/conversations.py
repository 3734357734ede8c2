"""Durable conversations: one SQLite file in the store folder holds every conversation, its turns
(each turn's whole trace record, so a reload re-renders its inspector) and the what-if replays run
on them.

Several browser tabs are several sessions in one process, and several processes may share a store:
every call opens its own connection, the file is in WAL mode, and each write is one short
transaction (BEGIN IMMEDIATE, so two writers queue instead of failing on a lock upgrade)."""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.config import Settings
from core.errors import ContextLensError
from core.trace import now_iso

FILE_NAME = "conversations.sqlite3"
TITLE_CHARS = 60

_SCHEMA = """
CREATE TABLE IF NOT EXISTS conversations (
    id TEXT PRIMARY KEY, title TEXT NOT NULL, created TEXT NOT NULL, updated TEXT NOT NULL,
    touched INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS turns (
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    n INTEGER NOT NULL, trace_id TEXT NOT NULL, record TEXT NOT NULL,
    PRIMARY KEY (conversation_id, n)
);
CREATE TABLE IF NOT EXISTS replays (
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    trace_id TEXT NOT NULL, n INTEGER NOT NULL, record TEXT NOT NULL,
    PRIMARY KEY (conversation_id, trace_id, n)
);
CREATE INDEX IF NOT EXISTS turns_by_trace ON turns(trace_id);
"""
# Each creation and each new turn takes the next activity number, inside its write transaction: the
# timestamps have whole seconds, so two events in one second would otherwise list in either order.
_NEXT_TOUCH = "(SELECT COALESCE(MAX(touched), 0) + 1 FROM conversations)"


class ConversationError(ContextLensError):
    """The conversations file cannot be read or written (the message names the file)."""


@dataclass(frozen=True)
class Conversation:
    id: str
    title: str
    created: str
    updated: str
    turns: int

    @property
    def last_asked(self) -> str:
        """When its last question was asked, as shown: "2026-11-25 09:05" (UTC)."""
        return self.updated[:16].replace("T", " ")


def conversations_path(settings: Settings) -> Path:
    """The conversations file: beside the index, in the store folder (git-ignored with it)."""
    return settings.store_path / FILE_NAME


def title_of(question: str) -> str:
    """A conversation's default title: its first question, on one line, bounded."""
    text = " ".join(question.split()) or "New conversation"
    return text if len(text) <= TITLE_CHARS else text[: TITLE_CHARS - 1].rstrip() + "…"


def list_labels(convs: Sequence[Conversation]) -> dict[str, str]:
    """Each conversation's label in a list: its title and turns, and, when another listed one has
    the same title, the time of its last question (UTC), so two are told apart."""
    counts = Counter(c.title for c in convs)
    out = {}
    for c in convs:
        label = f"{c.title} ({c.turns} turn{'' if c.turns == 1 else 's'}"
        out[c.id] = label + (f" · {c.last_asked})" if counts[c.title] > 1 else ")")
    return out


def _add_touched(db: sqlite3.Connection) -> None:
    """Add the activity counter to an older file (another process opening it at the same moment
    may have added it first)."""
    try:
        db.execute("ALTER TABLE conversations ADD COLUMN touched INTEGER NOT NULL DEFAULT 0")
    except sqlite3.OperationalError as e:
        if "duplicate column" not in str(e):
            raise


class ConversationStore:
    """Conversations, their turns and replays in one SQLite file (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with self._connect() as db:
                db.execute("PRAGMA journal_mode=WAL")
                db.executescript(_SCHEMA)
                columns = {row[1] for row in db.execute("PRAGMA table_info(conversations)")}
                if "touched" not in columns:  # a file written before the activity counter
                    _add_touched(db)
        except (OSError, sqlite3.Error) as e:
            raise ConversationError(f"Cannot open the conversations file {path}: {e}") from None

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=10, isolation_level=None)
        try:
            db.execute("PRAGMA foreign_keys=ON")
            db.execute("PRAGMA busy_timeout=10000")
            yield db
        finally:
            db.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One short write transaction."""
        try:
            with self._connect() as db:
                db.execute("BEGIN IMMEDIATE")
                try:
                    yield db
                except BaseException:
                    db.execute("ROLLBACK")
                    raise
                db.execute("COMMIT")
        except sqlite3.Error as e:
            raise ConversationError(f"Cannot write the conversations file {self.path}: {e}") from None

    def _read(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        try:
            with self._connect() as db:
                return db.execute(sql, args).fetchall()
        except sqlite3.Error as e:
            raise ConversationError(f"Cannot read the conversations file {self.path}: {e}") from None

    # conversations --------------------------------------------------------------------------------

    def create(self, title: str = "New conversation") -> Conversation:
        cid, now = uuid.uuid4().hex[:12], now_iso()
        with self._write() as db:
            db.execute(
                "INSERT INTO conversations (id, title, created, updated, touched) VALUES (?, ?, ?, ?, "
                f"{_NEXT_TOUCH})",
                (cid, title_of(title), now, now),
            )
        return Conversation(cid, title_of(title), now, now, 0)

    def get(self, conversation_id: str) -> Conversation | None:
        rows = self._read(
            "SELECT c.id, c.title, c.created, c.updated, "
            "(SELECT COUNT(*) FROM turns t WHERE t.conversation_id = c.id) "
            "FROM conversations c WHERE c.id = ?",
            (conversation_id,),
        )
        return Conversation(*rows[0]) if rows else None

    def recent(self, limit: int = 100) -> list[Conversation]:
        """Conversations, the most recently updated first."""
        rows = self._read(
            "SELECT c.id, c.title, c.created, c.updated, "
            "(SELECT COUNT(*) FROM turns t WHERE t.conversation_id = c.id) "
            "FROM conversations c ORDER BY c.touched DESC, c.updated DESC, c.created DESC LIMIT ?",
            (limit,),
        )
        return [Conversation(*r) for r in rows]

    def rename(self, conversation_id: str, title: str) -> None:
        if not title.strip():
            raise ConversationError("A conversation needs a title.")
        with self._write() as db:
            db.execute("UPDATE conversations SET title = ? WHERE id = ?", (title_of(title), conversation_id))

    def delete(self, conversation_id: str) -> None:
        """The conversation, its turns and its replays (the traces file keeps its lines)."""
        with self._write() as db:
            db.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))

    # turns and replays ----------------------------------------------------------------------------

    def add_turn(self, conversation_id: str, record: Mapping[str, Any]) -> int:
        """Append a turn (its whole trace record); returns its number, from 0."""
        data = json.dumps(record, ensure_ascii=False, default=str)
        with self._write() as db:
            if not db.execute("SELECT 1 FROM conversations WHERE id = ?", (conversation_id,)).fetchone():
                raise ConversationError(f"No conversation {conversation_id} (it was deleted).")
            (n,) = db.execute(
                "SELECT COALESCE(MAX(n) + 1, 0) FROM turns WHERE conversation_id = ?", (conversation_id,)
            ).fetchone()
            db.execute(
                "INSERT INTO turns VALUES (?, ?, ?, ?)", (conversation_id, n, str(record.get("id", "")), data)
            )
            db.execute(
                f"UPDATE conversations SET updated = ?, touched = {_NEXT_TOUCH} WHERE id = ?",
                (now_iso(), conversation_id),
            )
        return int(n)

    def turns(self, conversation_id: str) -> list[dict[str, Any]]:
        """The turns' trace records, in order."""
        rows = self._read("SELECT record FROM turns WHERE conversation_id = ? ORDER BY n", (conversation_id,))
        return [json.loads(r[0]) for r in rows]

    def add_replay(self, conversation_id: str, trace_id: str, record: Mapping[str, Any]) -> None:
        data = json.dumps(record, ensure_ascii=False, default=str)
        with self._write() as db:
            (n,) = db.execute(
                "SELECT COALESCE(MAX(n) + 1, 0) FROM replays WHERE conversation_id = ? AND trace_id = ?",
                (conversation_id, trace_id),
            ).fetchone()
            db.execute("INSERT INTO replays VALUES (?, ?, ?, ?)", (conversation_id, trace_id, n, data))

    def replays(self, conversation_id: str) -> dict[str, list[dict[str, Any]]]:
        """Turn trace id → its replays' records, oldest first."""
        out: dict[str, list[dict[str, Any]]] = {}
        for trace_id, record in self._read(
            "SELECT trace_id, record FROM replays WHERE conversation_id = ? ORDER BY trace_id, n",
            (conversation_id,),
        ):
            out.setdefault(trace_id, []).append(json.loads(record))
        return out

    def find_turn(self, trace_id: str) -> tuple[str, int] | None:
        """(conversation id, turn number) of the turn a trace id belongs to."""
        rows = self._read("SELECT conversation_id, n FROM turns WHERE trace_id = ?", (trace_id,))
        return (rows[0][0], int(rows[0][1])) if rows else None
