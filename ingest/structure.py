"""Every format written as one canonical light markup, which core/context/units.py reads back.

Blocks are separated by a blank line: a heading "#"×level + " " + text; a paragraph on one line;
a list as consecutive lines "- item" or "N. item" (N the item's real ordinal; a nested list's items
follow their parent, flattened); a table as consecutive rows "| a | b |", the header row first, no
separator row. Inline markup (emphasis, links, code) is reduced to its text. Markdown is read with
markdown-it-py, HTML with BeautifulSoup; plain text by its layout (setext and capitalised headings,
numbered and bulleted lines)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

_SPACE = re.compile(r"\s+")


def _clean(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def _cell(text: str) -> str:
    return _clean(text).replace("|", "/")


def join_blocks(blocks: list[str]) -> str:
    return "\n\n".join(b for b in blocks if b.strip())


# -- Markdown ---------------------------------------------------------------------------------


def markdown_text(source: str) -> tuple[str, str]:
    """(canonical text, first H1) of a Markdown document."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable("table").parse(source)
    blocks: list[str] = []
    h1 = ""
    lists: list[list[int]] = []  # per open list: [next ordinal or -1 for bullets]
    items: list[str] = []  # the lines of the list being written
    row: list[str] | None = None
    rows: list[str] = []
    item_open: list[int] = []  # index in items of each open item's line
    for n, tok in enumerate(tokens):
        kind = tok.type
        if kind == "heading_open":
            text = _inline(tokens[n + 1])
            blocks.append("#" * int(tok.tag[1]) + " " + text)
            h1 = h1 or (text if tok.tag == "h1" else "")
        elif kind in ("bullet_list_open", "ordered_list_open"):
            start = int(tok.attrs.get("start", 1) or 1) if kind == "ordered_list_open" else -1
            lists.append([start])
        elif kind in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
            if not lists:
                blocks.append("\n".join(items))
                items = []
        elif kind == "list_item_open":
            marker = "-" if lists[-1][0] < 0 else f"{lists[-1][0]}."
            if lists[-1][0] >= 0:
                lists[-1][0] += 1
            items.append(marker)
            item_open.append(len(items) - 1)
        elif kind == "list_item_close":
            item_open.pop()
        elif kind == "inline" and tokens[n - 1].type == "paragraph_open" and item_open:
            i = item_open[-1]
            items[i] = f"{items[i]} {_inline(tok)}"
        elif kind == "inline" and tokens[n - 1].type == "paragraph_open":
            blocks.append(_inline(tok))
        elif kind == "tr_open":
            row = []
        elif kind == "inline" and row is not None and tokens[n - 1].type in ("th_open", "td_open"):
            row.append(_cell(_inline(tok)))
        elif kind == "tr_close" and row is not None:
            rows.append("| " + " | ".join(row) + " |")
            row = None
        elif kind == "table_close":
            blocks.append("\n".join(rows))
            rows = []
        elif kind in ("fence", "code_block"):
            blocks.append(tok.content.strip())
    return join_blocks(blocks), h1


def _inline(tok: Any) -> str:
    """The plain text of an inline token: emphasis and link markup dropped, images as their alt."""
    parts: list[str] = []
    for child in tok.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            parts.append(child.content)
    return _clean("".join(parts))


# -- HTML --------------------------------------------------------------------------------------

_DROP = ("script", "style", "noscript", "template", "head", "nav", "svg", "iframe", "button", "form")
_HEADINGS = {f"h{i}": i for i in range(1, 7)}
_PARAGRAPHS = {"p", "pre", "blockquote", "figcaption", "address", "summary", "caption"}
_MAX_DEPTH = 200  # deeper than this, a subtree is read as one paragraph (no recursion limit)


def html_text(soup: Any) -> tuple[str, str]:
    """(canonical text, first H1) of a parsed HTML document (BeautifulSoup)."""
    for tag in soup(list(_DROP)):
        tag.decompose()
    root = soup.body or soup
    blocks = list(_html_blocks(root, 0))
    h1 = next((b[2:] for b in blocks if b.startswith("# ")), "")
    return join_blocks(blocks), h1


def _html_blocks(node: Any, depth: int) -> Iterator[str]:
    from bs4 import NavigableString, Tag

    loose: list[str] = []
    for child in node.children:
        if isinstance(child, NavigableString):
            if type(child).__name__ in ("Comment", "Doctype", "Declaration", "ProcessingInstruction"):
                continue
            loose.append(str(child))
            continue
        if not isinstance(child, Tag):
            continue
        name = child.name or ""
        if name in ("br",):
            loose.append(" ")
            continue
        if name in (
            "span",
            "a",
            "b",
            "strong",
            "em",
            "i",
            "code",
            "small",
            "sup",
            "sub",
            "abbr",
            "mark",
            "u",
            "time",
            "label",
            "img",
        ):
            loose.append(child.get_text(" ") if name != "img" else str(child.get("alt") or ""))
            continue
        if _clean("".join(loose)):
            yield _clean("".join(loose))
        loose = []
        yield from _html_block(child, name, depth)
    if _clean("".join(loose)):
        yield _clean("".join(loose))


def _html_block(el: Any, name: str, depth: int) -> Iterator[str]:
    if name in _HEADINGS:
        text = _clean(el.get_text(" "))
        if text:
            yield "#" * _HEADINGS[name] + " " + text
    elif name in ("ul", "ol"):
        lines = _html_list(el, depth)
        if lines:
            yield "\n".join(lines)
    elif name == "table":
        rows = _html_table(el)
        if rows:
            yield "\n".join(rows)
    elif name == "dl":
        pairs = _html_definitions(el)
        if pairs:
            yield "\n".join(pairs)
    elif name in _PARAGRAPHS or depth >= _MAX_DEPTH:
        text = _clean(el.get_text(" "))
        if text:
            yield text
    else:  # div, section, article, main, header, footer, li outside a list, …
        yield from _html_blocks(el, depth + 1)


def _html_list(el: Any, depth: int) -> list[str]:
    ordered = el.name == "ol"
    try:
        n = int(el.get("start", 1)) if ordered else 0
    except (TypeError, ValueError):
        n = 1
    lines: list[str] = []
    for li in el.find_all("li", recursive=False):
        nested = li.find_all(["ul", "ol"], recursive=False)
        for sub in nested:
            sub.extract()
        text = _clean(li.get_text(" "))
        if text:
            lines.append(f"{n}. {text}" if ordered else f"- {text}")
        if ordered:
            n += 1
        for sub in nested:
            if depth < _MAX_DEPTH:
                lines.extend(_html_list(sub, depth + 1))
    return lines


def _html_table(el: Any) -> list[str]:
    """One line per row, the first row as the header; a repeated header row is skipped. A table
    of fields (every row a <th> key and one <td> value, no header row: a spec sheet) is a list of
    "- key: value" items, or its first field would be read as every row's column name."""
    trs = [list(tr.find_all(["th", "td"], recursive=False)) for tr in el.find_all("tr")]
    trs = [cells for cells in trs if any(_cell(c.get_text(" ")) for c in cells)]
    if trs and all(len(c) == 2 and [x.name for x in c] == ["th", "td"] for c in trs):
        return [f"- {_cell(k.get_text(' ')).rstrip(':')}: {_cell(v.get_text(' '))}" for k, v in trs]
    rows: list[str] = []
    for cells in trs:
        line = "| " + " | ".join(_cell(c.get_text(" ")) for c in cells) + " |"
        if not line.strip("| ") or (rows and line == rows[0]):
            continue
        rows.append(line)
    return rows


def _html_definitions(el: Any) -> list[str]:
    out: list[str] = []
    term = ""
    for child in el.find_all(["dt", "dd"]):
        text = _clean(child.get_text(" "))
        if child.name == "dt":
            term = text
        elif text:
            out.append(f"- {term}: {text}" if term else f"- {text}")
    return out


# -- plain text --------------------------------------------------------------------------------

_NUMBERED = re.compile(r"^\s*(\d{1,3})[.)]\s+(\S.*)$")
_BULLET = re.compile(r"^\s*[-*•]\s+(\S.*)$")
_LETTERED = re.compile(r"^\s*(\(?[a-zA-Z]\))\s+(\S.*)$")  # "a) …", "(b) …": an item that keeps its letter
_SETEXT = re.compile(r"^\s*(=+|-+)\s*$")
_LEADER = re.compile(r"^\s*(\S.*?)\s*\.{3,}\s*(\S.*)$")  # "Top speed ....... 1.8 m/s"
# "  Display:        2.4-inch LCD": a field whose value is aligned in a column (two spaces or more)
_ALIGNED = re.compile(r"^\s*([A-Za-z][^:]{0,48}?):[ \t]{2,}(\S.*)$")
_FIELD = re.compile(r"^\s*([A-Za-z][\w ()/,.-]{0,40}?):\s+(\S.*)$")  # "Cord length: 0.75 m" among fields


# "  DX-20 Pro  10,000 h  kit DK-20P": a row of cells aligned in columns (two spaces or more between)
_CELLS = re.compile(r"\s{2,}")
_CAPTION = re.compile(r"^(?:\S+ ){0,7}\S*[\w)]$")  # "Replacement intervals": a short line, no stop
_CELL_START = re.compile(r"^[\w(\u20ac$\u00a3]")  # a word, a number, "(" or a currency sign
_CODE_INDENT = re.compile(r"^(?: {4}|\t)")
_SHORT_CELL = re.compile(r"^(?:\S+ ){0,5}\S+$")  # up to six words


def _row_cells(line: str) -> list[str]:
    """The cells of a line aligned in columns, or none: a list item ("*   Fast charging", "1)  Open
    the lid"), code (indented four spaces or a tab, or a cell opening with a sign: "x   = 1"), a
    cell of prose or one ending a sentence."""
    if _BULLET.match(line) or _NUMBERED.match(line) or _LETTERED.match(line) or _CODE_INDENT.match(line):
        return []
    cells = _CELLS.split(line.strip())
    if (
        len(cells) < 2
        or cells[0][-1] in ".,;:"
        or any(len(c) > 40 or not _SHORT_CELL.match(c) or not _CELL_START.match(c) for c in cells)
    ):
        return []
    return cells


def _aligned_table(lines: list[str], i: int) -> tuple[list[str], int]:
    """The rows of a table aligned in columns from line i (two lines or more with as many cells),
    and how many lines they take: a first row without a digit above rows with one as its header
    ("| Model | Interval |"), else each row as an item, its first cell the key ("- DX-20: 8,000 h;
    kit DK-20"); ([], 0) when no such table starts there."""
    rows = [first] if (first := _row_cells(lines[i])) else []
    while (
        rows and i + len(rows) < len(lines) and len(cells := _row_cells(lines[i + len(rows)])) == len(first)
    ):
        rows.append(cells)
    digits = [any(ch.isdigit() for ch in "".join(r)) for r in rows]
    if len(rows) < 2 or not any(digits):  # no figure: two-spaced prose or a signature, not a table
        return [], 0
    if not digits[0] and any(digits[1:]):
        return ["| " + " | ".join(_cell(c) for c in r) + " |" for r in rows], len(rows)
    return [f"- {_cell(r[0])}: {'; '.join(_cell(c) for c in r[1:])}" for r in rows], len(rows)


def _caps_heading(line: str) -> bool:
    letters = [ch for ch in line if ch.isalpha()]
    return (
        len(letters) >= 4
        and all(ch.isupper() for ch in letters)
        and len(line) <= 80
        and line[-1:] not in ".,;"
    )


def plain_text(text: str) -> tuple[str, str]:
    """(canonical text, first heading) of plain text: setext and capitalised headings, numbered,
    bulleted and lettered ("a)", "(b)") lines and fields ("Weight ..... 2 kg", "Weight:    2 kg")
    as list items (continuation lines joined); prose as it is."""
    lines = text.split("\n")
    blocks: list[str] = []
    para: list[str] = []
    items: list[str] = []
    first = ""
    caps_at = -2  # the line a capitalised heading was read from
    fields = False  # the items so far are fields ("Key ..... value", "Key:    value")

    def flush() -> None:
        nonlocal para, items, fields
        if para:
            blocks.append("\n".join(para))
        if items:
            blocks.append("\n".join(items))
        para, items, fields = [], [], False

    i = 0
    while i < len(lines):
        line = lines[i].rstrip()
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        stripped = line.strip()
        if (
            stripped
            and _SETEXT.match(nxt)
            and not _NUMBERED.match(line)
            and not _BULLET.match(line)
            and not _LETTERED.match(line)
            and not para
        ):
            flush()
            level = 1 if nxt.strip().startswith("=") else 2
            if caps_at == i - 1 and len(blocks) == 1 and level == 1:
                # the document's title block underlined as a whole ("PRODUCT NAME" / "Vendor -- data
                # sheet, rev. 2" / "====="): its first line is the title, the lines under it its subtitle
                blocks[-1] = "#" * level + blocks[-1].lstrip("#")
                blocks.append(stripped)
            else:
                blocks.append("#" * level + " " + stripped)
                first = first or stripped
            i += 2
            continue
        if not stripped:
            flush()
        elif (
            _caps_heading(stripped)
            and not para
            and not items
            and (not nxt.strip() or not _caps_heading(nxt.strip()))
        ):
            flush()
            blocks.append("## " + stripped)
            first = first or stripped
            caps_at = i
        elif m := _LEADER.match(line) or _ALIGNED.match(line):
            if para:
                blocks.append("\n".join(para))
                para = []
            fields = fields or not items
            items.append(f"- {m.group(1).strip()}: {m.group(2).strip()}")
        elif not items and (table := _aligned_table(lines, i))[1]:
            if len(para) == 1 and table[0][0].startswith("-") and _CAPTION.match(para[0].strip()):
                para[0] = para[0].rstrip() + ":"  # its caption right above: the list's lead-in
            flush()
            blocks.append("\n".join(table[0]))
            i += table[1]
            continue
        elif m := _NUMBERED.match(line):
            if para:
                blocks.append("\n".join(para))
                para = []
            items.append(f"{int(m.group(1))}. {m.group(2).strip()}")
        elif m := _BULLET.match(line):
            if para:
                blocks.append("\n".join(para))
                para = []
            items.append(f"- {m.group(1).strip()}")
        elif m := _LETTERED.match(line):
            if para:
                blocks.append("\n".join(para))
                para = []
            items.append(f"- {m.group(1)} {m.group(2).strip()}")
        elif items and fields and (m := _FIELD.match(line)):
            items.append(f"- {m.group(1).strip()}: {m.group(2).strip()}")  # the longest key's one space
        elif items and line[:1].isspace():
            items[-1] += " " + stripped  # an item's continuation line
        else:
            if items:
                blocks.append("\n".join(items))
                items, fields = [], False
            para.append(line)
        i += 1
    flush()
    return join_blocks(blocks), first


def merge_item_blocks(text: str) -> str:
    """Consecutive one-line list-item blocks become one list (PDF layout puts blank lines between)."""
    out: list[str] = []
    for block in text.split("\n\n"):
        is_item = "\n" not in block and bool(_NUMBERED.match(block) or _BULLET.match(block))
        if is_item and out and all(_NUMBERED.match(x) or _BULLET.match(x) for x in out[-1].split("\n")):
            out[-1] += "\n" + _as_item(block)
        else:
            out.append(_as_item(block) if is_item else block)
    return "\n\n".join(out)


def _as_item(line: str) -> str:
    m = _NUMBERED.match(line)
    if m:
        return f"{int(m.group(1))}. {m.group(2).strip()}"
    m = _BULLET.match(line)
    return f"- {m.group(1).strip()}" if m else line


# -- PDF (pypdf's layout-mode text) -------------------------------------------------------------

_PDF_ITEM = re.compile(r"^(\s*)([-*•]|\d{1,3}[.)])\s+(\S.*)$")
_COLUMNS = re.compile(r"\s{3,}")
_PAGE_FOOTER = re.compile(r"\bpage\s+\d+(\s+of\s+\d+)?\s*$", re.I)


def pdf_pages(pages: list[str]) -> tuple[list[str], str]:
    """(canonical text per page, the first page's title) from layout-mode page texts: running
    headers/footers dropped, column-aligned rows as table rows, bullets and numbered steps as list
    items (wrapped lines joined), short numbered lines as section headings."""
    running = _running_lines(pages)
    out: list[str] = []
    title = ""
    for n, page in enumerate(pages):
        lines = [ln.rstrip() for ln in page.split("\n")]
        lines = [ln for ln in lines if _norm_line(ln) not in running and not _PAGE_FOOTER.search(ln.strip())]
        blocks, first = _pdf_blocks(lines, first_page=n == 0)
        title = title or first
        out.append(merge_item_blocks(join_blocks(blocks)))
    return out, title


def _norm_line(line: str) -> str:
    return re.sub(r"\d+", "#", " ".join(line.split()))


def _running_lines(pages: list[str]) -> set[str]:
    """Lines (digits ignored) found on at least half the pages of a multi-page document."""
    if len(pages) < 2:
        return set()
    counts: dict[str, int] = {}
    for page in pages:
        for key in {_norm_line(ln) for ln in page.split("\n") if ln.strip()}:
            counts[key] = counts.get(key, 0) + 1
    return {k for k, c in counts.items() if c >= max(2, len(pages) / 2)}


def _pdf_blocks(lines: list[str], first_page: bool) -> tuple[list[str], str]:
    blocks: list[str] = []
    para: list[str] = []
    items: list[tuple[int, str]] = []  # (indent, line)
    rows: list[list[str]] = []
    title = ""

    def flush() -> None:
        nonlocal para, items, rows
        if para:
            blocks.append(" ".join(para))
        if items:
            blocks.append("\n".join(line for _, line in items))
        if len(rows) >= 2:
            blocks.append("\n".join("| " + " | ".join(_cell(c) for c in r) + " |" for r in rows))
        elif rows:
            blocks.append(" ".join(" ".join(r) for r in rows))
        para, items, rows = [], [], []

    for line in lines:
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        cells = _COLUMNS.split(stripped)
        if not stripped:
            flush()
            continue
        if (
            first_page
            and not blocks
            and not para
            and not title
            and indent >= 6
            and len(stripped.split()) <= 12
        ):
            title = stripped
            blocks.append("# " + stripped)
            continue
        if len(cells) >= 2 and (not rows or len(cells) == len(rows[0])) and not _PDF_ITEM.match(line):
            if not rows and (para or items):
                flush()
            rows.append(cells)
            continue
        if rows:
            flush()
        m = _PDF_ITEM.match(line)
        if m:
            marker, text = m.group(2), m.group(3)
            if marker[0].isdigit() and indent <= 1 and len(text.split()) <= 8 and text[-1:] not in ".:;,":
                flush()
                blocks.append(f"## {marker} {text}")
                continue
            if para:
                blocks.append(" ".join(para))
                para = []
            items.append((indent, f"{marker} {text}" if marker[0].isdigit() else f"- {text}"))
            continue
        if items and indent > items[-1][0]:
            items[-1] = (items[-1][0], items[-1][1] + " " + stripped)  # an item's wrapped line
            continue
        if items:
            blocks.append("\n".join(line for _, line in items))
            items = []
        para.append(stripped)
    flush()
    return blocks, title
