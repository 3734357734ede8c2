"""HTML text hidden from a reader is dropped at parse time and counted in the document's notes."""

from __future__ import annotations

import pytest

from ingest.hidden import declarations, hiding
from ingest.loaders import load_bytes

PAGE = """<html><head><style>.sr {position:absolute; left:-9999px} .x, #gone {display: none !important}</style>
</head><body><h1>Hotel FAQ</h1><p>Check-in is at 3 pm.</p>
<p style="color:#FFFFFF">White text A.</p>
<p style="color:white; background-color:#222">Visible on a dark band.</p>
<span style="font-size:1px">Tiny text B.</span><div class="sr">Off-screen C.</div><p id="gone">Id-hidden D.</p>
<p hidden>Attribute E.</p><p style="opacity:0">Transparent F.</p><p class="x">Class-hidden G.</p>
<p style="font-size: 0.9em">Small print stays.</p><p>Breakfast is served 7 to 10.</p></body></html>"""


def test_hidden_text_is_dropped_and_noted() -> None:
    doc = load_bytes("faq.html", PAGE.encode())
    text = doc.sections[0].text
    for kept in (
        "Check-in is at 3 pm.",
        "Visible on a dark band.",
        "Small print stays.",
        "Breakfast is served",
    ):
        assert kept in text
    for gone in "ABCDEFG":
        assert f" {gone}." not in text, gone
    assert len(doc.notes) == 1 and doc.notes[0].startswith(
        "7 passages hidden from readers dropped at parse time"
    )


def test_a_page_without_hidden_text_has_no_note() -> None:
    doc = load_bytes("plain.html", b"<html><body><p style='color:#333'>Open daily.</p></body></html>")
    assert doc.notes == () and "Open daily." in doc.sections[0].text


@pytest.mark.parametrize(
    ("style", "hidden"),
    [
        ("display:none", True),
        ("visibility: hidden", True),
        ("font-size:0", True),
        ("font-size: 1pt", True),
        ("font-size: 0.05em", True),
        ("opacity: 0.0", True),
        ("text-indent:-10000px", True),
        ("clip: rect(0 0 0 0)", True),
        ("color: rgb(255, 255, 255)", True),
        ("color:#abc; background:#abc", True),
        ("color: #fff; background: #000", False),
        ("font-size: 12px", False),
        ("opacity: 0.8", False),
        ("margin-left: -20px", False),
    ],
)
def test_hiding_declarations(style: str, hidden: bool) -> None:
    assert (hiding(declarations(style)) is not None) is hidden
