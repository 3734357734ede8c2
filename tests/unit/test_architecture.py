"""The house rules the code is held to: core imports neither the apps nor the UI, no import
cycles, short functions in core, and no sys.path edits anywhere."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.stores import ROOT

PACKAGES = ("core", "ingest", "apps", "ui", "bench")


def _modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for f in (ROOT / pkg).rglob("*.py"):
            name = ".".join(f.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
            out[name] = f
    return out


def _imports(f: Path, known: dict[str, Path]) -> set[str]:
    """Every module f imports, at any depth of the file (inside functions too)."""
    deps: set[str] = set()
    for n in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
        if isinstance(n, ast.ImportFrom) and n.module and n.level == 0:
            for a in n.names:
                sub = f"{n.module}.{a.name}"
                deps.add(sub if sub in known else n.module)
        elif isinstance(n, ast.Import):
            deps.update(a.name for a in n.names)
    return deps


def test_core_imports_neither_ingest_nor_ui_nor_apps() -> None:
    known = _modules()
    bad = {
        name: sorted(
            d for d in _imports(f, known) if d.split(".")[0] in ("ingest", "ui", "apps", "bench", "streamlit")
        )
        for name, f in known.items()
        if name.split(".")[0] == "core"
    }
    assert {k: v for k, v in bad.items() if v} == {}


def test_no_import_cycle() -> None:
    known = _modules()
    graph = {name: {d for d in _imports(f, known) if d in known and d != name} for name, f in known.items()}
    done: set[str] = set()

    def visit(node: str, path: list[str]) -> None:
        if node in path:
            raise AssertionError("import cycle: " + " → ".join([*path[path.index(node) :], node]))
        if node in done:
            return
        for dep in sorted(graph[node]):
            visit(dep, [*path, node])
        done.add(node)

    for name in sorted(graph):
        visit(name, [])


def test_core_functions_are_short() -> None:
    long = []
    for f in (ROOT / "core").rglob("*.py"):
        for n in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.end_lineno - n.lineno + 1 > 60:
                long.append(f"{f.relative_to(ROOT)}:{n.lineno} {n.name}")
    assert long == []


def test_no_sys_path_edits() -> None:
    edits = [
        str(f.relative_to(ROOT))
        for pkg in (*PACKAGES, "tests")
        for f in (ROOT / pkg).rglob("*.py")
        if "sys.path." + "insert" in f.read_text(encoding="utf-8")
        or "sys.path." + "append" in f.read_text(encoding="utf-8")
    ]
    assert edits == []
