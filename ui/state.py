"""Per-session state (the conversation's traces, replays, uploads) and per-process resources.

Session state holds only trace dicts and small bookkeeping: never Settings objects, never the key.
The conversation itself is durable: its turns and replays are written to the store folder's
conversations file (core/conversations.py) as they happen, the URL carries its id (`?c=`), and a
session whose URL names a conversation loads it from there (a reload, a second tab, a shared link).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import streamlit as st

from core.config import Settings, load_settings
from core.conversations import ConversationStore, conversations_path, title_of
from core.index import Index
from core.pipeline import Pipeline
from core.resources import Models, Resources
from core.types import Turn

TRACES = "cl_traces"  # this session's trace records, one per answered question, in order
REPLAYS = "cl_replays"  # trace id -> list of replay trace records (newest last)
UPLOADED = "cl_uploaded_ids"  # file ids of the upload box already processed
UPLOAD_REPORT = "cl_upload_report"  # the last upload's report (SyncReport.as_dict())
LOADED = "cl_loaded"  # {"file_id", "name", "records"} of an opened traces file
CONVERSATION = "cl_conversation"  # the id of the conversation this session shows (None: a new one)
PENDING = "cl_pending_question"  # an example question clicked, asked on the next run
NOTICE = "cl_conversation_notice"  # a one-time line about the conversation (not found, deleted…)
QUERY_PARAM = "c"  # ?c=<conversation id>


def init() -> None:
    """Create the session's containers on its first run."""
    st.session_state.setdefault(TRACES, [])
    st.session_state.setdefault(REPLAYS, {})
    st.session_state.setdefault(UPLOADED, [])
    st.session_state.setdefault(UPLOAD_REPORT, None)
    st.session_state.setdefault(LOADED, None)
    st.session_state.setdefault(CONVERSATION, None)


def traces() -> list[dict[str, Any]]:
    return st.session_state[TRACES]


def replays(trace_id: str) -> list[dict[str, Any]]:
    return st.session_state[REPLAYS].setdefault(trace_id, [])


def history() -> list[Turn]:
    """The conversation so far, as the pipeline's memory expects it."""
    return [Turn(t["question"], t["answer"], t.get("rewritten_query", "")) for t in traces()]


def session_records() -> list[dict[str, Any]]:
    """Everything this session traced: the answers, then the what-if replays."""
    out = list(traces())
    for runs in st.session_state[REPLAYS].values():
        out.extend(runs)
    return out


def clear_conversation() -> None:
    st.session_state[TRACES] = []
    st.session_state[REPLAYS] = {}


# durable conversations ---------------------------------------------------------------------------


@st.cache_resource(show_spinner=False, max_entries=8)
def _conversation_store(path: str) -> ConversationStore:
    return ConversationStore(Path(path))


def conversations(s: Settings) -> ConversationStore:
    """The store folder's conversations file (one object per process; connections per call)."""
    return _conversation_store(str(conversations_path(s)))


def current_conversation() -> str | None:
    return st.session_state.get(CONVERSATION)


def sync_conversation(s: Settings) -> None:
    """Show the conversation the URL names: load it when the session does not hold it yet (a
    reload, a link, the sidebar's list); an unknown id leaves an empty, new conversation. A URL
    naming none keeps the session's (New conversation clears it explicitly)."""
    wanted = st.query_params.get(QUERY_PARAM) or None
    if wanted == current_conversation():
        return
    if wanted is None:  # back from another page (its link drops the query): keep the conversation
        st.query_params[QUERY_PARAM] = current_conversation()
        return
    store = conversations(s)
    if store.get(wanted) is None:
        start_new_conversation()
        st.session_state[NOTICE] = "That conversation no longer exists; this is a new one."
        return
    st.session_state[CONVERSATION] = wanted
    st.session_state[TRACES] = store.turns(wanted)
    st.session_state[REPLAYS] = store.replays(wanted)


def open_conversation(conversation_id: str) -> None:
    """Switch to a stored conversation (loaded by sync_conversation on the next run)."""
    st.query_params[QUERY_PARAM] = conversation_id


def start_new_conversation() -> None:
    """An empty conversation; it is stored when its first question is answered."""
    st.session_state[CONVERSATION] = None
    clear_conversation()
    if QUERY_PARAM in st.query_params:
        del st.query_params[QUERY_PARAM]


def record_turn(s: Settings, trace: dict[str, Any]) -> None:
    """Keep an answered turn: in the session at once, then in the conversations file (a new
    conversation is created on its first turn, titled by its question, and named in the URL)."""
    traces().append(trace)
    cid = current_conversation()
    store = conversations(s)
    if cid is None or store.get(cid) is None:
        cid = store.create(title_of(str(trace.get("question", "")))).id
        st.session_state[CONVERSATION] = cid
        st.query_params[QUERY_PARAM] = cid
    store.add_turn(cid, trace)


def record_replay(s: Settings, trace_id: str, after: dict[str, Any]) -> None:
    replays(trace_id).append(after)
    cid = current_conversation()
    if cid is not None and any(t.get("id") == trace_id for t in traces()):  # not a read-only file's turn
        conversations(s).add_replay(cid, trace_id, after)


def ask_example(question: str) -> None:
    """on_click of an example question: ask it on this run."""
    st.session_state[PENDING] = question


def take_pending() -> str | None:
    return st.session_state.pop(PENDING, None)


# per-process resources ---------------------------------------------------------------------------


@st.cache_resource(show_spinner=False)
def base_settings() -> Settings:
    """Settings from the environment/.env, read once per process (SettingsError propagates)."""
    return load_settings()


def settings_key(s: Settings) -> str:
    """A cache key for settings; the API key enters only as a truncated one-way digest."""
    data = s.model_dump(mode="json", exclude={"llm_api_key"})
    secret = s.llm_api_key.get_secret_value() if s.llm_api_key is not None else ""
    data["llm_api_key_digest"] = hashlib.sha256(secret.encode()).hexdigest()[:16] if secret else ""
    return json.dumps(data, sort_keys=True, default=str)


@st.cache_resource(show_spinner="Loading the embedder…", max_entries=4)
def _models(key: str, _settings: Settings) -> Models:
    models = Models(_settings)
    models.embedder.embed(["warm-up"])  # the first inference is slow; pay it on page load, not on Enter
    return models


@st.cache_resource(
    show_spinner="Opening the store (on a Chroma server, a fresh instance first builds its lexical index)…",
    max_entries=8,
)
def _resources(key: str, models_key: str, _settings: Settings) -> Resources:
    res = Resources.open(_settings, _models(models_key, _settings))
    res.index.start_following()  # server mode: catch up with Chroma now, then on a timer
    return res


def resources(s: Settings) -> Resources:
    """The process's one Resources object for this store: the models (loaded once per process and
    model) and the store's index, shared by every session so uploads are seen by the next question."""
    models_key = json.dumps([s.embedding_model, s.embedding_batch_size, s.embedding_backend, s.encoding])
    store_key = json.dumps([str(s.store_path), s.chroma_host, s.chroma_port, s.collection])
    return _resources(store_key + models_key, models_key, s)


def index(s: Settings) -> Index:
    return resources(s).index


@st.cache_resource(show_spinner="Preparing the pipeline…", max_entries=16)
def _pipeline(key: str, _settings: Settings) -> Pipeline:
    return Pipeline(_settings, resources(_settings))


def pipeline(s: Settings) -> Pipeline:
    """The pipeline for these settings (one per settings key per process)."""
    return _pipeline(settings_key(s), s)


def secrets_of(s: Settings) -> tuple[str, ...]:
    """Values that must never reach the page (used to blank them out of error messages)."""
    return (s.llm_api_key.get_secret_value(),) if s.llm_api_key is not None else ()
