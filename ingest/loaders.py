"""File loaders for .txt .md .pdf .html: bytes in, clean text sections out (or a clear IngestError)."""

from __future__ import annotations

import io
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

from core.errors import IngestError
from ingest.hidden import drop_hidden, hidden_note
from ingest.structure import html_text, markdown_text, pdf_pages, plain_text

log = logging.getLogger(__name__)

SUPPORTED = (".txt", ".md", ".markdown", ".pdf", ".html", ".htm")


@dataclass(frozen=True)
class Section:
    """A run of text from one place in a document (a PDF page, or the whole text)."""

    text: str
    page: int | None = None


@dataclass(frozen=True)
class Document:
    """A loaded document: its text sections and what its header said about it."""

    sections: tuple[Section, ...]
    title: str = ""
    category: str | None = None
    extra: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()  # what parsing left out and why (shown in the ledger)


def load_bytes(name: str, data: bytes, max_pdf_pages: int = 2000) -> Document:
    """Parse a file's bytes by its extension; raise IngestError with a one-line reason."""
    ext = Path(name).suffix.lower()
    if ext not in SUPPORTED:
        raise IngestError(f"unsupported file type {ext or '(none)'}; supported: {', '.join(SUPPORTED)}")
    if not data.strip():
        raise IngestError("the file is empty")
    if ext == ".pdf":
        doc = _load_pdf(data, max_pdf_pages)
    elif ext in (".html", ".htm"):
        doc = _load_html(decode_text(data))
    elif ext in (".md", ".markdown"):
        doc = _load_markdown(decode_text(data))
    else:
        body, heading = plain_text(_normalise(decode_text(data)))
        doc = Document(sections=(Section(body),), title=heading)
    if not any(s.text.strip() for s in doc.sections):
        raise IngestError("no text found in the file")
    return doc


def decode_text(data: bytes) -> str:
    """Decode text bytes: BOMs, then UTF-8, then charset detection; refuse binary data."""
    for bom, enc in (
        (b"\xef\xbb\xbf", "utf-8-sig"),
        (b"\xff\xfe", "utf-16"),
        (b"\xfe\xff", "utf-16"),
    ):
        if data.startswith(bom):
            try:
                return data.decode(enc)
            except UnicodeDecodeError as e:
                raise IngestError(f"the file claims {enc} but does not decode: {e.reason}") from e
    if b"\x00" in data[:8192]:
        raise IngestError("the file looks binary (NUL bytes), not text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    matches = from_bytes(data[: 1 << 20])
    best = matches.best()
    if best is None or best.encoding is None:
        raise IngestError("the file is not readable text in any known encoding")
    # single-byte code pages often tie (French latin-1 text scores the same as cp1250/cp1257);
    # on a tie prefer cp1252, the common Western legacy encoding (a superset of latin-1's letters)
    for m in matches:
        if m.encoding == "cp1252" and m.chaos <= best.chaos and m.coherence >= best.coherence:
            best = m
            break
    text = data.decode(best.encoding, errors="replace")
    if _control_ratio(text) > 0.05:
        raise IngestError("the file looks binary, not text")
    return text


def _control_ratio(text: str) -> float:
    sample = text[:20000]
    if not sample:
        return 0.0
    bad = sum(1 for ch in sample if (ord(ch) < 32 and ch not in "\t\n\r\f") or ch == "\ufffd")
    return bad / len(sample)


def _normalise(text: str) -> str:
    """Unify newlines and drop trailing spaces; paragraphs stay separated by blank lines."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    lines = [ln.rstrip() for ln in text.split("\n")]
    return "\n".join(lines).strip()


def _load_markdown(text: str) -> Document:
    text = _normalise(text)
    meta: dict[str, str] = {}
    if text.startswith("---\n"):
        end = text.find("\n---", 4)
        if end != -1:
            import yaml

            try:
                parsed = yaml.safe_load(text[4:end])
            except yaml.YAMLError:
                parsed = None
            if isinstance(parsed, dict):
                meta = {str(k): str(v) for k, v in parsed.items() if v is not None}
                text = text[end + 4 :].lstrip("\n")
    body, h1 = markdown_text(text)
    return Document(
        sections=(Section(body),),
        title=meta.get("title", "") or h1,
        category=meta.get("category"),
        extra={k: v for k, v in meta.items() if k not in ("title", "category")},
    )


MAX_HTML_DEPTH = 512  # deeper markup is hostile or generated: the parser's cost grows past linear
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)[^<>]*?(/?)>")
_VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())
# elements whose end tag may be left out: an unclosed <p> or <li> is not a level deeper
_IMPLIED_END = frozenset(
    "p li dt dd td th tr thead tbody tfoot option optgroup rp rt colgroup caption".split()
)


def html_depth(markup: str) -> int:
    """How deeply the markup's elements nest, in one linear scan (void, self-closed and
    end-tag-optional elements such as <p>, <li>, <td> do not count)."""
    depth = deepest = 0
    for m in _TAG.finditer(markup):
        closing, name, self_closed = m.group(1), m.group(2).lower(), m.group(3)
        if name in _VOID or name in _IMPLIED_END or self_closed:
            continue
        depth = max(0, depth - 1) if closing else depth + 1
        deepest = max(deepest, depth)
    return deepest


def _load_html(markup: str) -> Document:
    from bs4 import BeautifulSoup

    depth = html_depth(markup)
    if depth > MAX_HTML_DEPTH:
        raise IngestError(f"the HTML nests {depth:,} elements deep, over the limit of {MAX_HTML_DEPTH}")
    soup = BeautifulSoup(markup, "html.parser")
    title = soup.title.get_text(" ", strip=True) if soup.title else ""
    # read <meta name="category"> before <head> is dropped
    meta_cat = soup.find("meta", attrs={"name": "category"})
    category = str(meta_cat.get("content")) if meta_cat and meta_cat.get("content") else None
    hidden = drop_hidden(soup)
    body, h1 = html_text(soup)
    notes = (hidden_note(hidden),) if hidden else ()
    return Document(sections=(Section(body),), title=title or h1, category=category, notes=notes)


def _load_pdf(data: bytes, max_pages: int) -> Document:
    from pypdf import PdfReader
    from pypdf.errors import LimitReachedError, PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted and not reader.decrypt(""):
            raise IngestError("the PDF is encrypted")
        pages = reader.pages
        if len(pages) > max_pages:
            raise IngestError(f"the PDF has {len(pages)} pages, over the limit of {max_pages}")
        texts, first = pdf_pages([_page_text(page) for page in pages])
        sections = [Section(t, page=n) for n, t in enumerate(texts, start=1) if t.strip()]
        title = str(reader.metadata.title) if reader.metadata and reader.metadata.title else first
    except IngestError:
        raise
    except LimitReachedError as e:
        raise IngestError("a stream of the PDF inflates past the size limit (a decompression bomb?)") from e
    except (PdfReadError, ValueError, KeyError, TypeError, AttributeError, IndexError, OSError) as e:
        raise IngestError(f"the PDF is damaged or unreadable ({type(e).__name__})") from e
    if not sections:
        raise IngestError("the PDF has no text layer (scanned images need OCR, which is not supported)")
    return Document(sections=tuple(sections), title=title)


def _page_text(page: object) -> str:
    """A page's text in pypdf's layout mode (columns and table rows keep their alignment), or
    its plain text where layout extraction fails."""
    from pypdf.errors import LimitReachedError

    try:
        text = page.extract_text(extraction_mode="layout")  # type: ignore[attr-defined]
    except LimitReachedError:
        raise  # a decompression bomb: the plain mode would inflate the same stream
    except Exception:  # pypdf's layout mode raises on some malformed content streams
        text = page.extract_text()  # type: ignore[attr-defined]
    # keep each line's indentation (the first line's too): layout carries structure here
    lines = [ln.rstrip() for ln in (text or "").replace("\r\n", "\n").replace("\x00", "").split("\n")]
    return "\n".join(lines).strip("\n")
