"""Answers shown without live links or images: what retrieved text (or a model quoting it) writes
as a Markdown image, link or bare URL is rendered as plain text naming its domain, so an answer
can neither load an outside image (a request that can carry the question away) nor offer a
clickable outside link. Applied by every view that renders an answer as Markdown."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

_IMAGE = re.compile(
    r"!\[([^\]\n]{0,300})\]\(\s{0,5}<?([^)\s>]{1,2000})>?(?:\s{1,5}\"[^\"\n]{0,200}\")?\s{0,5}\)"
)
_LINK = re.compile(
    r"\[([^\]\n]{0,300})\]\(\s{0,5}<?([^)\s>]{1,2000})>?(?:\s{1,5}\"[^\"\n]{0,200}\")?\s{0,5}\)"
)
_REFERENCE = re.compile(r"(?m)^[ \t]{0,3}\[([^\]\n]{1,300})\]:[ \t]{0,5}<?(\S{1,2000}?)>?(?:[ \t].*)?$")
_AUTOLINK = re.compile(r"<((?:https?|ftp|mailto):[^>\s]{1,2000})>", re.IGNORECASE)
_BARE = re.compile(
    r"(?<![\w`/])((?:https?://|ftp://|www\.)[^\s<>`]{1,2000}[^\s<>`.,;:!?)\]'\"])", re.IGNORECASE
)
_EMAIL = re.compile(r"(?<![\w`.])([\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,8})(?![\w`])")
# a bare address a Markdown renderer would auto-link (for views that show text literally)
ADDRESS = re.compile(f"{_BARE.pattern}|{_EMAIL.pattern}", re.IGNORECASE)


def domain(url: str) -> str:
    """The host a URL points at ("" for a relative one)."""
    target = url if "//" in url[:12] else f"//{url}" if url.lower().startswith("www.") else url
    try:
        return (urlsplit(target).hostname or "").lower()
    except ValueError:
        return ""


def _where(url: str) -> str:
    host = domain(url)
    return f"link to {host}" if host else "link"


def plain_links(markdown: str) -> str:
    """The markdown with every image, link, reference definition, autolink, bare URL and e-mail
    address turned into inert text: "alt (image from host, not shown)", "text (link to host)",
    and bare addresses in code spans (never auto-linked)."""
    text = _IMAGE.sub(
        lambda m: f"{m.group(1) or 'image'} (image from {domain(m.group(2)) or 'a link'}, not shown)",
        markdown,
    )
    text = _LINK.sub(lambda m: f"{m.group(1)} ({_where(m.group(2))})", text)
    text = _REFERENCE.sub(lambda m: f"{m.group(1)}: `{m.group(2)}`", text)
    text = _AUTOLINK.sub(lambda m: f"`{m.group(1)}`", text)
    text = _BARE.sub(lambda m: f"`{m.group(1)}`", text)
    return _EMAIL.sub(lambda m: f"`{m.group(1)}`", text)
