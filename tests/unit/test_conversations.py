"""The conversations file: turns keep their whole trace record, several sessions write at once."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from core.config import settings_in
from core.conversations import (
    Conversation,
    ConversationError,
    ConversationStore,
    _add_touched,
    conversations_path,
    list_labels,
    title_of,
)


def _trace(n: int, question: str = "q?") -> dict:
    return {"id": f"t{n:04d}", "question": question, "answer": f"a{n}", "sections": {"knowledge": n}}


def test_turns_and_replays_round_trip(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "c.sqlite3")
    conv = store.create("How much does the ArmX2 package cost?")
    assert store.add_turn(conv.id, _trace(1)) == 0
    assert store.add_turn(conv.id, _trace(2)) == 1
    store.add_replay(conv.id, "t0001", {"id": "r1", "replay_of": "t0001"})
    # a second object on the same file (another process, a restart) reads the same
    again = ConversationStore(tmp_path / "c.sqlite3")
    assert again.turns(conv.id) == [_trace(1), _trace(2)]
    assert again.replays(conv.id) == {"t0001": [{"id": "r1", "replay_of": "t0001"}]}
    assert again.get(conv.id).turns == 2
    assert again.find_turn("t0002") == (conv.id, 1)
    with sqlite3.connect(tmp_path / "c.sqlite3") as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_list_rename_delete(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "c.sqlite3")
    first, second = store.create("first"), store.create("second")
    store.add_turn(first.id, _trace(1))  # the most recently updated is listed first
    assert [c.id for c in store.recent()] == [first.id, second.id]
    store.rename(second.id, "  renamed  ")
    assert store.get(second.id).title == "renamed"
    with pytest.raises(ConversationError):
        store.rename(second.id, "   ")
    store.delete(first.id)
    assert store.get(first.id) is None and store.turns(first.id) == [] and store.find_turn("t0001") is None
    with pytest.raises(ConversationError, match="deleted"):
        store.add_turn(first.id, _trace(2))


def test_the_last_active_is_listed_first_within_one_second(tmp_path: Path, monkeypatch) -> None:
    """Timestamps have whole seconds: the order follows the events, not the clock."""
    monkeypatch.setattr("core.conversations.now_iso", lambda: "2026-11-27T05:00:00+00:00")
    store = ConversationStore(tmp_path / "c.sqlite3")
    first, second, third = store.create("first"), store.create("second"), store.create("third")
    assert [c.id for c in store.recent()] == [third.id, second.id, first.id]
    store.add_turn(first.id, _trace(1))
    store.add_turn(second.id, _trace(2))
    assert [c.id for c in store.recent()] == [second.id, first.id, third.id]


def test_a_file_written_before_the_activity_counter_opens_and_orders(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE conversations (id TEXT PRIMARY KEY, title TEXT NOT NULL, "
            "created TEXT NOT NULL, updated TEXT NOT NULL)"
        )
        db.execute(
            "INSERT INTO conversations VALUES ('old', 'old', '2026-11-01T00:00:00+00:00', "
            "'2026-11-01T00:00:00+00:00')"
        )
    store = ConversationStore(path)
    assert store.get("old").title == "old"
    new = store.create("new")
    assert [c.id for c in store.recent()] == [new.id, "old"]
    store.add_turn("old", _trace(1))
    assert [c.id for c in store.recent()] == ["old", new.id]


def test_two_processes_adding_the_counter_to_an_old_file_both_open_it(tmp_path: Path) -> None:
    """The column check and the ALTER are two statements: the second opener may find it added."""
    path = tmp_path / "c.sqlite3"
    ConversationStore(path)  # the file with the counter, as the first opener leaves it
    with sqlite3.connect(path) as db:
        _add_touched(db)  # the second opener read the old columns before the first added it
        assert [r[1] for r in db.execute("PRAGMA table_info(conversations)")].count("touched") == 1


def test_conversations_with_the_same_title_are_told_apart_by_time() -> None:
    a = Conversation("a", "How do I calibrate?", "2026-11-25T09:00:00Z", "2026-11-25T09:05:31Z", 2)
    b = Conversation("b", "How do I calibrate?", "2026-11-25T10:00:00Z", "2026-11-25T10:01:02Z", 1)
    c = Conversation("c", "Refunds", "2026-11-25T11:00:00Z", "2026-11-25T11:00:00Z", 3)
    assert list_labels([a, b, c]) == {
        "a": "How do I calibrate? (2 turns · 2026-11-25 09:05)",
        "b": "How do I calibrate? (1 turn · 2026-11-25 10:01)",
        "c": "Refunds (3 turns)",
    }


def test_concurrent_sessions_append_without_losing_turns(tmp_path: Path) -> None:
    """Tabs are sessions on threads of one process: every turn is kept, numbered once."""
    path = tmp_path / "c.sqlite3"
    store = ConversationStore(path)
    shared = store.create("shared")
    own = [store.create(f"tab {n}") for n in range(4)]
    errors: list[BaseException] = []

    def tab(n: int) -> None:
        try:
            mine = ConversationStore(path)
            for i in range(15):
                mine.add_turn(shared.id, _trace(n * 100 + i))
                mine.add_turn(own[n].id, _trace(n * 100 + i))
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=tab, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(store.turns(shared.id)) == 60
    assert sorted(t["id"] for t in store.turns(shared.id)) == sorted(
        f"t{n * 100 + i:04d}" for n in range(4) for i in range(15)
    )
    for n in range(4):
        assert [t["id"] for t in store.turns(own[n].id)] == [f"t{n * 100 + i:04d}" for i in range(15)]


def test_file_lives_in_the_store_folder_and_titles_are_one_line(tmp_path: Path) -> None:
    s = settings_in(tmp_path)
    assert conversations_path(s).parent == s.store_path
    assert title_of("  What\nis   this?  ") == "What is this?"
    assert title_of("x" * 200).endswith("…") and len(title_of("x" * 200)) == 60
    assert title_of("   ") == "New conversation"


def test_unwritable_folder_is_a_conversation_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(ConversationError, match="conversations file"):
        ConversationStore(blocker / "c.sqlite3")
