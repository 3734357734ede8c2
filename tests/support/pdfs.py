"""Real PDFs for tests, made with reportlab: one page per list of lines, or shapes only."""

from __future__ import annotations

import io


def make_pdf(pages: list[list[str]], title: str = "", drawing_only: bool = False) -> bytes:
    """A PDF with a text layer (one page per list of lines); drawing_only draws shapes instead,
    like a scan without OCR."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4)
    if title:
        c.setTitle(title)
    for lines in pages:
        if drawing_only:
            c.rect(72, 300, 200, 300, fill=1)
            c.circle(300, 400, 50)
            c.line(0, 0, 500, 500)
        y = 800
        for line in lines:
            c.drawString(72, y, line)
            y -= 14
        c.showPage()
    c.save()
    return buf.getvalue()
