"""Every loader on a small real file of its type, decoding, and the files that must be refused."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from core.errors import IngestError
from ingest.loaders import decode_text, load_bytes
from tests.support.pdfs import make_pdf


def _pdf(pages: list[list[str]], title: str = "", drawing_only: bool = False) -> bytes:
    return make_pdf(pages, title, drawing_only)


def _load(path: Path) -> object:
    return load_bytes(path.name, path.read_bytes())


# -- one loader per type, on a real file ---------------------------------------------------------


def test_txt(tmp_path: Path) -> None:
    f = tmp_path / "notes.txt"
    f.write_bytes(b"First paragraph line one.\r\nStill first.   \r\n\r\nSecond paragraph.\r\n")
    doc = _load(f)
    assert len(doc.sections) == 1 and doc.sections[0].page is None
    assert doc.sections[0].text == "First paragraph line one.\nStill first.\n\nSecond paragraph."
    assert doc.category is None


def test_txt_numbered_bulleted_and_lettered_lines_are_list_items(tmp_path: Path) -> None:
    f = tmp_path / "policy.txt"
    f.write_text(
        "RETURN WINDOW\n\nA product may be returned within 30 days, provided that:\n\n"
        "  a) it is unused;\n  b) it is in its original\n     packaging;\n  (c) it has a return authorisation.\n\n"
        "Steps:\n1. Ask for a return authorisation.\n2. Ship it.\n- Keep the receipt.\n",
        encoding="utf-8",
    )
    lines = _load(f).sections[0].text.split("\n")
    assert lines[0] == "## RETURN WINDOW"
    # each item on a line of its own, its letter kept, a continuation line joined to its item
    assert "- a) it is unused;" in lines and "- b) it is in its original packaging;" in lines
    assert "- (c) it has a return authorisation." in lines
    assert "1. Ask for a return authorisation." in lines and "- Keep the receipt." in lines
    assert "A product may be returned within 30 days, provided that:" in lines


def test_txt_title_block_underlined_as_a_whole_keeps_the_product_in_every_heading_path(
    tmp_path: Path,
) -> None:
    # a data sheet's title and subtitle underlined together: the subtitle (vendor, sheet number)
    # is not a heading above the sections, or their heading paths would lose the product's name
    f = tmp_path / "sheet.txt"
    f.write_text(
        "KESTREL K2 DRONE\nAcme Devices -- Data Sheet DS-K2, rev. 3\n=========================\n\n"
        "OVERVIEW\n\nThe Kestrel K2 is a small drone.\n\nTECHNICAL DATA\n\nWeight ........ 0.9 kg\n",
        encoding="utf-8",
    )
    doc = _load(f)
    assert doc.title == "KESTREL K2 DRONE"
    assert doc.sections[0].text.split("\n\n")[:4] == [
        "# KESTREL K2 DRONE",
        "Acme Devices -- Data Sheet DS-K2, rev. 3",
        "## OVERVIEW",
        "The Kestrel K2 is a small drone.",
    ]
    assert "## TECHNICAL DATA\n\n- Weight: 0.9 kg" in doc.sections[0].text
    # a lone underlined line is still a heading
    f.write_text("Kestrel K2\n==========\n\nBody.\n", encoding="utf-8")
    assert _load(f).sections[0].text == "# Kestrel K2\n\nBody."
    # a capitalised heading with an underlined heading under it, later in a document: two headings
    f.write_text(
        "Intro.\n\nSAFETY INFORMATION\nBefore you begin\n----------------\nText.\n", encoding="utf-8"
    )
    assert _load(f).sections[0].text == "Intro.\n\n## SAFETY INFORMATION\n\n## Before you begin\n\nText."


def test_markdown_front_matter(tmp_path: Path) -> None:
    f = tmp_path / "guide.md"
    f.write_text(
        "---\ntitle: Gripper Guide\ncategory: accessories\nowner: Ops\n---\n\n"
        "# Gripper\n\nThe G5 closes in 0.35 s.\n",
        encoding="utf-8",
    )
    doc = _load(f)
    assert doc.title == "Gripper Guide"
    assert doc.category == "accessories"
    assert doc.extra == {"owner": "Ops"}
    text = doc.sections[0].text
    assert text.startswith("# Gripper") and "0.35 s" in text
    assert "category:" not in text and "---" not in text


def test_markdown_without_front_matter_keeps_rules(tmp_path: Path) -> None:
    f = tmp_path / "plain.md"
    f.write_text("# Title\n\nBody text.\n\n---\n\nAfter a rule.\n", encoding="utf-8")
    doc = _load(f)
    assert doc.category is None and doc.title == "Title"  # the first H1 when there is no front matter
    assert "Body text." in doc.sections[0].text and "After a rule." in doc.sections[0].text


def test_html_strips_script_style_and_keeps_blocks(tmp_path: Path) -> None:
    f = tmp_path / "page.html"
    f.write_text(
        """<!doctype html><html><head><title>Rover Page</title>
        <meta name="category" content="products">
        <style>body { color: red; } .secret { display: none }</style>
        <script>var tracking = "SCRIPT_TEXT";</script></head>
        <body><nav><a href="/">Home NAV_TEXT</a></nav>
        <h1>Rover  M1</h1><p>The rover carries
        300 kg.</p><p>It charges in 55 minutes.<br>On the D2 dock.</p>
        <ul><li>LiDAR</li><li>Depth camera</li></ul>
        <table><tr><td>Payload</td><td>300 kg</td></tr></table>
        <script>document.write("MORE_SCRIPT")</script><noscript>NOSCRIPT_TEXT</noscript>
        </body></html>""",
        encoding="utf-8",
    )
    doc = _load(f)
    text = doc.sections[0].text
    assert doc.title == "Rover Page"
    assert doc.category == "products"
    for junk in ("SCRIPT_TEXT", "MORE_SCRIPT", "color: red", "NOSCRIPT_TEXT", "NAV_TEXT"):
        assert junk not in text
    paras = text.split("\n\n")
    assert "# Rover M1" in paras  # a heading, whitespace inside it collapsed
    assert "The rover carries 300 kg." in paras  # one paragraph, not split by the source newline
    assert "- LiDAR\n- Depth camera" in paras  # one list, an item per line
    assert "It charges in 55 minutes." in text and "On the D2 dock." in text
    assert "| Payload | 300 kg |" in paras  # a table row with its cells apart


def test_a_table_of_fields_is_a_list_of_fields_and_a_table_with_a_header_stays_a_table(
    tmp_path: Path,
) -> None:
    """A spec table whose every row is a <th> key and a <td> value has no header row: read as one,
    its first field ("Model number | CL-9") would be every row's column name."""
    f = tmp_path / "spec.html"
    f.write_text(
        "<h2>Specifications</h2><table><tr><th>Model number</th><td>CL-9</td></tr>"
        "<tr><th>Noise level</th><td>24 dB to 52 dB</td></tr><tr><th> </th><td></td></tr></table>"
        "<h2>Compared</h2><table><tr><th>Model</th><th>Weight</th></tr>"
        "<tr><th>K5</th><td>0.9 kg</td></tr></table>",
        encoding="utf-8",
    )
    paras = _load(f).sections[0].text.split("\n\n")
    assert "- Model number: CL-9\n- Noise level: 24 dB to 52 dB" in paras
    assert "| Model | Weight |\n| K5 | 0.9 kg |" in paras


def test_txt_fields_aligned_in_a_column_are_list_items(tmp_path: Path) -> None:
    f = tmp_path / "guide.txt"
    f.write_text(
        "K7 THERMOSTAT\n\nThe K7 is simple: it has a screen.\n\n"
        "  Display:        2.4-inch backlit LCD\n  Compatible:     single-stage heat,\n"
        "                  heat pumps\n  Price:          USD 129\n  Battery life: 2 years\n\n"
        "Note: one space is prose.\n",
        encoding="utf-8",
    )
    lines = _load(f).sections[0].text.split("\n")
    assert "- Display: 2.4-inch backlit LCD" in lines
    assert "- Compatible: single-stage heat, heat pumps" in lines  # its continuation line joined
    assert "- Price: USD 129" in lines
    assert "- Battery life: 2 years" in lines  # the longest key, one space after its colon
    assert "The K7 is simple: it has a screen." in lines and "Note: one space is prose." in lines


def test_pdf_pages_and_title(tmp_path: Path) -> None:
    f = tmp_path / "manual.pdf"
    f.write_bytes(
        _pdf(
            [
                ["Otters live in rivers and eat fish.", "They are playful animals."],
                [],  # a blank page is skipped, page numbers stay true
                ["Beavers build dams from branches."],
            ],
            title="Animal Manual",
        )
    )
    doc = _load(f)
    assert doc.title == "Animal Manual"
    pages = {s.page: s.text for s in doc.sections}
    assert sorted(pages) == [1, 3]
    assert "Otters live in rivers" in pages[1] and "playful" in pages[1]
    assert "Beavers build dams" in pages[3]


def test_pdf_reflow_joins_wrapped_lines(tmp_path: Path) -> None:
    lines = [
        "1. Scope",
        "The arm must be calibrated every 2,000 operating hours or every six months, whichever",
        "comes first, using the CT-40 target and the Calibrate app in Motion Suite.",
        "- first item of a list",
        "- second item of a list",
    ]
    doc = load_bytes("x.pdf", _pdf([lines]))
    paras = doc.sections[0].text.split("\n\n")
    assert any("whichever comes first, using the CT-40" in p for p in paras)  # wrap undone
    lines = doc.sections[0].text.split("\n")
    assert "- first item of a list" in lines and "- second item of a list" in lines  # list items, a line each


# -- decoding -------------------------------------------------------------------------------------

FRENCH = (
    "Le café de la gare est très agréable. Nous y mangeons une crème brûlée après le déjeuner. "
    "L'été, la façade est décorée de fleurs."
)


def test_latin1_text_is_decoded(tmp_path: Path) -> None:
    f = tmp_path / "fr.txt"
    f.write_bytes(FRENCH.encode("latin-1"))
    assert _load(f).sections[0].text == FRENCH


def test_short_latin1_text_is_decoded() -> None:
    text = "Café crème à la française, naïve façade."
    assert decode_text(text.encode("latin-1")) == text


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-8-sig"])
def test_bom_text_is_decoded(tmp_path: Path, encoding: str) -> None:
    text = "Grüße aus Brno — ±0.03 mm, 東京"
    data = text.encode(encoding)
    if encoding == "utf-16-be":
        data = b"\xfe\xff" + data
    f = tmp_path / "bom.txt"
    f.write_bytes(data)
    assert _load(f).sections[0].text == text


def test_utf16_bom_html(tmp_path: Path) -> None:
    f = tmp_path / "w.html"
    f.write_bytes("<html><body><p>Grüße aus Brno</p></body></html>".encode("utf-16"))
    assert _load(f).sections[0].text == "Grüße aus Brno"


# -- refusals -------------------------------------------------------------------------------------


def test_binary_garbage_txt_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "garbage.txt"
    f.write_bytes(os.urandom(4096) + b"\x00\x01\x02")
    with pytest.raises(IngestError, match="binary"):
        _load(f)


def test_binary_garbage_without_nul_is_refused(tmp_path: Path) -> None:
    import random

    rng = random.Random(7)
    f = tmp_path / "garbage.txt"
    f.write_bytes(bytes(rng.choice(range(1, 256)) for _ in range(6000)))
    with pytest.raises(IngestError):
        _load(f)


@pytest.mark.parametrize("name,data", [("empty.txt", b""), ("blank.md", b" \n\n\t \n"), ("e.pdf", b"")])
def test_empty_file_is_refused(tmp_path: Path, name: str, data: bytes) -> None:
    f = tmp_path / name
    f.write_bytes(data)
    with pytest.raises(IngestError, match="empty"):
        _load(f)


def test_html_without_text_is_refused() -> None:
    with pytest.raises(IngestError, match="no text"):
        load_bytes("x.html", b"<html><head><script>x=1</script></head><body> </body></html>")


def test_front_matter_only_markdown_is_refused() -> None:
    with pytest.raises(IngestError, match="no text"):
        load_bytes("x.md", b"---\ntitle: Nothing\n---\n")


@pytest.mark.parametrize("name", ["data.docx", "image.png", "noext", "archive.tar.gz"])
def test_unsupported_extension_is_refused(name: str) -> None:
    with pytest.raises(IngestError, match="unsupported file type"):
        load_bytes(name, b"some text")


def test_pdf_without_text_layer_is_refused() -> None:
    with pytest.raises(IngestError, match="no text layer"):
        load_bytes("scan.pdf", _pdf([[], []], drawing_only=True))


@pytest.mark.parametrize("cut", [0.5, 0.9])
def test_truncated_pdf_is_refused(cut: float) -> None:
    data = _pdf([["Some real text on a page."], ["More text on page two."]])
    with pytest.raises(IngestError, match="damaged or unreadable"):
        load_bytes("broken.pdf", data[: int(len(data) * cut)])


def test_not_a_pdf_is_refused() -> None:
    with pytest.raises(IngestError):
        load_bytes("fake.pdf", b"this is plain text pretending to be a PDF")


def test_pdf_page_limit() -> None:
    data = _pdf([["one"], ["two"], ["three"]])
    with pytest.raises(IngestError, match="over the limit"):
        load_bytes("big.pdf", data, max_pdf_pages=2)


def test_html_nesting_is_measured_without_optional_end_tags() -> None:
    from ingest.loaders import MAX_HTML_DEPTH, html_depth

    legacy = (
        "<html><body>"
        + "<p>A paragraph never closed" * 2000
        + "<ul>"
        + "<li>item" * 900
        + "</ul></body></html>"
    )
    assert html_depth(legacy) == 3  # html, body, ul: unclosed <p> and <li> nest nothing
    assert "A paragraph never closed" in load_bytes("legacy.html", legacy.encode()).sections[0].text
    assert html_depth("<div>" * 600 + "x" + "</div>" * 600) == 600 > MAX_HTML_DEPTH
    assert html_depth("<a" * 50_000) == 0  # tags that never end count nothing (and the scan stays linear)
    with pytest.raises(IngestError, match="nests 600 elements deep"):
        load_bytes("deep.html", ("<div>" * 600 + "x" + "</div>" * 600).encode())


def test_txt_rows_aligned_in_columns_are_a_table_or_items(tmp_path: Path) -> None:
    """Found on a pump corpus: "Replacement intervals" over "  DX-20 Pro  10,000 h  kit DK-20P" lines
    was one sentence of every model's interval, so the DX-20 Pro's was never its own."""
    f = tmp_path / "service.txt"
    f.write_text(
        "SERVICE\n\nReplacement intervals\n  DX-20      8,000 h   kit DK-20\n  DX-20 Pro  10,000 h  kit DK-20P\n\n"
        "Model      Interval\nDX-20      8,000 h\nDX-25      6,000 h\n\n"
        "One sentence.  Two spaces after it.\nAnother line.  Of prose here.\n",
        encoding="utf-8",
    )
    text = _load(f).sections[0].text
    # no header row (the first row holds a digit): each row an item keyed by its first cell
    # (its caption right above them their lead-in)
    assert "Replacement intervals:\n\n- DX-20: 8,000 h; kit DK-20\n- DX-20 Pro: 10,000 h; kit DK-20P" in text
    # a first row without a digit over rows with one: the table's header
    assert "| Model | Interval |\n| DX-20 | 8,000 h |\n| DX-25 | 6,000 h |" in text
    # sentences with two spaces between them are prose, not cells
    assert "One sentence.  Two spaces after it." in text


@pytest.mark.parametrize(
    "text,kept",
    [
        (
            "Features\n*   Fast charging\n*   Long battery life 2x\n",
            "- Fast charging\n- Long battery life 2x",
        ),
        ("Steps\n1)  Open the lid\n2)  Remove the filter\n", "1. Open the lid\n2. Remove the filter"),
        ("Run:\n    pip install foo  # step 1\n    foo --init   # step 2\n", "    pip install foo  # step 1"),
        ("Set:\nx   = 1\nyy  = 2\n", "x   = 1\nyy  = 2"),
        (
            "The quick brown fox  jumps over\nthe lazy dog and  then runs away\n",
            "The quick brown fox  jumps over",
        ),
        ("Regards,\nJohn  Smith\nCEO  Acme\n", "John  Smith\nCEO  Acme"),
    ],
)
def test_txt_lists_code_and_prose_with_wide_spaces_are_no_table(tmp_path: Path, text: str, kept: str) -> None:
    f = tmp_path / "notes.txt"
    f.write_text(text, encoding="utf-8")
    assert kept in _load(f).sections[0].text
