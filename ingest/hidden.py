"""HTML text a reader never sees: dropped at parse time, and counted for the ledger.

A page can hide text from its human reader and still hand it to a text extractor: `display:none`,
`visibility:hidden`, the `hidden` attribute, zero or 1-pixel fonts, zero opacity, off-screen
positioning, clipping, or text in the page's background colour. Such text is how indirect prompt
injections ride along on ordinary pages, so it is removed before the page becomes blocks; inline
`style` attributes and simple `<style>` rules (type, class and id selectors, matched with the
parser's own CSS selector engine) are both read.
"""

from __future__ import annotations

import re
from typing import Any

_RULE = re.compile(r"([^{}]{1,300})\{([^{}]{0,2000})\}")
_NUMBER = re.compile(r"^\s*(-?\d*\.?\d+)\s*([a-z%]*)")
_WHITE = re.compile(
    r"^\s*(?:#fff(?:fff)?|white|rgba?\(\s*255\s*,\s*255\s*,\s*255\s*(?:,\s*[\d.]+\s*)?\))\s*$", re.I
)
_OFFSCREEN = ("left", "top", "right", "text-indent", "margin-left", "margin-top")


def declarations(style: str) -> dict[str, str]:
    """A CSS declaration list ("a: b; c: d") as a dict of lower-case properties."""
    out: dict[str, str] = {}
    for part in style.split(";"):
        name, sep, value = part.partition(":")
        if sep:
            out[name.strip().lower()] = value.strip().lower().replace("!important", "").strip()
    return out


def _size(value: str) -> float | None:
    """A CSS length in CSS pixels (em/rem taken as 16 px), or None when it is not a plain length."""
    m = _NUMBER.match(value)
    if not m:
        return None
    number, unit = float(m.group(1)), m.group(2)
    return number * {"": 1.0, "px": 1.0, "pt": 4 / 3, "em": 16.0, "rem": 16.0, "%": 0.16}.get(unit, 1.0)


def hiding(d: dict[str, str]) -> str | None:
    """How these declarations hide an element's text from a reader, or None."""
    if d.get("display") == "none" or d.get("visibility") in ("hidden", "collapse"):
        return "display:none / visibility:hidden"
    if (size := _size(d.get("font-size", "1em"))) is not None and size <= 1.5:
        return "a font too small to read"
    if (op := _size(d.get("opacity", "1"))) is not None and op <= 0.05:
        return "zero opacity"
    if any((v := _size(d.get(p, "0"))) is not None and v <= -500 for p in _OFFSCREEN):
        return "off-screen position"
    if re.match(r"rect\(\s*0|inset\(\s*(?:50|100)%", d.get("clip", "") + d.get("clip-path", "")):
        return "clipping"
    if d.get("transform", "").replace(" ", "").startswith("scale(0"):
        return "zero scale"
    return _same_colour(d)


def _same_colour(d: dict[str, str]) -> str | None:
    colour = d.get("color", "")
    background = d.get("background-color", d.get("background", ""))
    if colour in ("transparent",) or (colour and background and colour == background):
        return "text in its background colour"
    if _WHITE.match(colour) and (not background or _WHITE.match(background)):
        return "white text on the page's white background"
    return None


def drop_hidden(soup: Any) -> list[str]:
    """Remove every element hidden from a reader; returns why each was hidden (one per element)."""
    marked: list[tuple[Any, str]] = []
    for el in soup.find_all(True):
        if el.has_attr("hidden") or (el.name == "input" and str(el.get("type", "")).lower() == "hidden"):
            marked.append((el, "the hidden attribute"))
        elif el.has_attr("style") and (why := hiding(declarations(str(el["style"])))):
            marked.append((el, why))
    for sheet in soup.find_all("style"):
        marked += _styled(soup, sheet.get_text())
    reasons: list[str] = []
    for el, why in marked:
        if el.decomposed:  # inside an element already removed
            continue
        if el.get_text(strip=True):
            reasons.append(why)
        el.decompose()
    return reasons


def hidden_note(reasons: list[str]) -> str:
    """The ledger's note on a page whose hidden text was dropped."""
    n = len(reasons)
    return f"{n} passage{'s' if n != 1 else ''} hidden from readers dropped at parse time ({', '.join(sorted(set(reasons)))})"


def _styled(soup: Any, css: str) -> list[tuple[Any, str]]:
    """Elements a <style> sheet hides (simple selectors; a selector the engine rejects is skipped)."""
    found: list[tuple[Any, str]] = []
    for m in _RULE.finditer(css):
        why = hiding(declarations(m.group(2)))
        if not why:
            continue
        for selector in m.group(1).split(","):
            try:
                found += [(el, why) for el in soup.select(selector.strip())]
            except Exception:  # noqa: BLE001 - soupsieve raises its own errors for unsupported selectors
                continue
    return found
