"""CLI: `python -m ingest PATH... [--store DIR] [--collection NAME] [--reset] [--json]`;
`python -m ingest --list [--json]` lists what is indexed, `--remove SOURCE...` removes documents.

Exit codes: 0 when the run indexed something or everything was already up to date, 1 when
nothing could be indexed and there were errors (or the store failed), 2 on bad usage.
"""

from __future__ import annotations

import argparse
import json
import logging
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from core.errors import ContextLensError, IngestError, SettingsError

log = logging.getLogger("ingest")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m ingest",
        description="Index .txt .md .pdf .html files and folders into the ContextLens store.",
    )
    p.add_argument("paths", nargs="*", metavar="PATH", help="files or folders to ingest")
    p.add_argument("--list", action="store_true", help="list the indexed documents")
    p.add_argument("--remove", nargs="+", metavar="SOURCE", help="remove these documents from the index")
    p.add_argument("--store", metavar="DIR", help="store directory (CONTEXTLENS_STORE_PATH)")
    p.add_argument("--collection", metavar="NAME", help="collection name (CONTEXTLENS_COLLECTION)")
    p.add_argument("--chroma-host", metavar="HOST", help="use a Chroma server at this host")
    p.add_argument("--chroma-port", metavar="N", type=int, help="port of the Chroma server")
    p.add_argument("--reset", action="store_true", help="empty the collection before ingesting")
    p.add_argument("--json", action="store_true", help="print the summary as JSON on the last stdout line")
    return p


def _overrides(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if args.store:
        out["store_path"] = Path(args.store)
    if args.collection:
        out["collection"] = args.collection
    if args.chroma_host:
        out["chroma_host"] = args.chroma_host
    if args.chroma_port is not None:
        out["chroma_port"] = args.chroma_port
    return out


class _Bar:
    """A tqdm bar on stderr, fed by the Ingestor's (done, total, current) progress callback."""

    def __init__(self) -> None:
        self._bar: Any = None

    def __call__(self, done: int, total: int, current: str) -> None:
        if self._bar is None:
            from tqdm import tqdm

            self._bar = tqdm(total=total, unit="file", file=sys.stderr, leave=False)
        self._bar.n = done
        self._bar.set_postfix_str(current[-40:], refresh=False)
        self._bar.refresh()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


def _summary(r: dict[str, Any]) -> str:
    text = (
        f"{r['files']} files: {r['chunks_added']} chunks added, {r['chunks_unchanged']} unchanged, "
        f"{r['chunks_removed']} removed; {r['embedded']} embedded in {r['seconds']:.1f}s"
    )
    if r["errors"]:
        text += f"; {len(r['errors'])} error(s)"
    return text


def _exists(path: Path) -> bool:
    try:
        return path.expanduser().exists()
    except (OSError, ValueError):  # e.g. a name longer than the file system allows
        return False


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ingest CLI and return its exit code."""
    parser = _parser()
    args = parser.parse_args(argv)  # exits 2 on bad usage
    if (args.list or args.remove) and (args.paths or (args.list and args.remove)):
        parser.error("--list and --remove take no paths and not each other")
    if not (args.paths or args.list or args.remove):
        parser.error("give files or folders to ingest (or --list / --remove SOURCE...)")
    logging.basicConfig(
        level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s"
    )
    try:
        from transformers.utils import logging as hf_logging

        # counting word-pieces of long texts is deliberate; its "sequence too long" notice is noise
        hf_logging.set_verbosity_error()
    except ImportError:
        pass
    # a damaged PDF is reported once as a skipped file; pypdf's own repair chatter adds nothing
    logging.getLogger("pypdf").setLevel(logging.ERROR)

    from core.config import load_settings

    try:
        settings = load_settings(**_overrides(args))
    except SettingsError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2

    if args.list or args.remove:
        return _manage(settings, args)
    paths = [Path(p) for p in args.paths]
    if not any(_exists(p) for p in paths):
        missing = ", ".join(str(p) for p in paths)
        print(f"error: no such file or directory: {missing}", file=sys.stderr)
        return 2

    from ingest.sync import ingest_paths

    bar = _Bar() if sys.stderr.isatty() else None
    try:
        report = ingest_paths(settings, paths, progress=bar, reset=args.reset)
    except SettingsError as e:  # e.g. an embedding model or encoding that cannot be loaded
        print(f"error: {e}", file=sys.stderr)
        return 2
    except ContextLensError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except (OSError, sqlite3.Error) as e:  # e.g. --store names a file, or a read-only disk
        print(f"error: cannot use the store at {settings.store_path}: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted; the next run resumes where this one stopped", file=sys.stderr)
        return 130
    finally:
        if bar is not None:
            bar.close()

    result = report.as_dict()
    print(_summary(result))
    for err in result["errors"]:
        print(f"  skipped {err['file']}: {err['message']}", file=sys.stderr)
    if args.json:
        print(json.dumps(result))
    # errors only fail the run when nothing at all was indexed, kept or removed
    synced = report.files_changed + report.files_unchanged + report.files_removed
    return 0 if synced or not report.errors else 1


def _manage(settings: Any, args: argparse.Namespace) -> int:
    """--list / --remove: a table (or the JSON last line); an unknown source exits 2."""
    from core.resources import Models, Resources
    from ingest.documents import list_documents, remove_documents

    try:
        index = Resources.open(settings, Models(settings)).index  # the embedder loads lazily: never here
        if args.remove:
            removed, chunks = remove_documents(index, settings, args.remove)
            print(f"removed {len(removed)} document(s), {chunks} chunks")
            if args.json:
                print(json.dumps({"removed": removed, "chunks_removed": chunks}))
            return 0
        docs = list_documents(index, settings)
    except IngestError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except (ContextLensError, OSError, sqlite3.Error) as e:
        print(f"error: cannot use the store at {settings.store_path}: {e}", file=sys.stderr)
        return 1
    for d in docs:
        print(
            f"{d.source}  [{d.category or '-'}]  {d.chunks} chunks, {d.tokens} tokens, {d.origin}, {d.indexed_at or '?'}"
        )
    print(f"{len(docs)} document(s), {sum(d.chunks for d in docs)} chunks")
    if args.json:
        print(json.dumps({"documents": [d.as_dict() for d in docs]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
