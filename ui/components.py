"""Small rendering helpers shared by the UI modules (markdown escaping, chips, one-line errors)."""

from __future__ import annotations

import re

from core.shield.links import ADDRESS, plain_links

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>#|~$])")


def md_escape(text: str) -> str:
    """Text shown literally inside st.markdown (no markup, links, math or HTML); URLs and e-mail
    addresses go in code spans, which the renderer never auto-links (escaping does not stop it)."""
    out, last = [], 0
    for m in ADDRESS.finditer(text):
        out.append(_MD_SPECIAL.sub(r"\\\1", text[last : m.start()]))
        out.append("`" + m.group(0).replace("`", "") + "`")
        last = m.end()
    out.append(_MD_SPECIAL.sub(r"\\\1", text[last:]))
    return "".join(out)


def answer_md(text: str) -> str:
    """An answer as markdown: its own emphasis/lists render, but `$` never starts math and no
    image, link or URL is live (core.shield.links: shown as text naming its domain)."""
    return plain_links(text).replace("$", "\\$")


def chip(text: str, color: str = "blue", icon: str = ":material/description:") -> str:
    """A markdown badge (chip); brackets would end the directive, so they become parentheses."""
    safe = md_escape(text.replace("[", "(").replace("]", ")"))
    return f":{color}-badge[{icon} {safe}]"


def short(chunk_id: str | None, n: int = 10) -> str:
    return (chunk_id or "")[:n]


def one_line(error: BaseException, secrets: tuple[str, ...] = ()) -> str:
    """The first line of an error message, bounded, with any secret value blanked out."""
    text = str(error).strip() or type(error).__name__
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), type(error).__name__)
    for secret in secrets:
        if secret:
            first = first.replace(secret, "***")
    return first if len(first) <= 300 else first[:297] + "…"


def highlight(text: str, color: str) -> str:
    """Text with a coloured background (brackets would end the directive)."""
    return f":{color}-background[{md_escape(text.replace('[', '(').replace(']', ')'))}]"
