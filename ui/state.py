"""Per-session state (the conversation's traces, replays, uploads) and per-process resources.

Session state holds only trace dicts and small bookkeeping: never Settings objects, never the key.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import streamlit as st

from core.config import Settings, load_settings
from core.index import Index
from core.pipeline import Pipeline
from core.resources import Models, Resources
from core.types import Turn

TRACES = "cl_traces"  # this session's trace records, one per answered question, in order
REPLAYS = "cl_replays"  # trace id -> list of replay trace records (newest last)
UPLOADED = "cl_uploaded_ids"  # file ids of the upload box already processed
UPLOAD_REPORT = "cl_upload_report"  # the last upload's report (SyncReport.as_dict())
LOADED = "cl_loaded"  # {"file_id", "name", "records"} of an opened traces file


def init() -> None:
    """Create the session's containers on its first run."""
    st.session_state.setdefault(TRACES, [])
    st.session_state.setdefault(REPLAYS, {})
    st.session_state.setdefault(UPLOADED, [])
    st.session_state.setdefault(UPLOAD_REPORT, None)
    st.session_state.setdefault(LOADED, None)


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


@st.cache_resource(show_spinner=False, max_entries=8)
def _resources(key: str, models_key: str, _settings: Settings) -> Resources:
    return Resources.open(_settings, _models(models_key, _settings))


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
