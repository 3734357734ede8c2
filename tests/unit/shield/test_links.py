"""Answers render no live link or image: each becomes text that names its domain."""

from __future__ import annotations

from core.shield.links import domain, plain_links


def test_images_links_and_addresses_become_inert_text() -> None:
    md = (
        "See ![status](https://evil.example/log?q={question}) and [the form](https://forms.example.com/x), "
        "or https://bare.example.com/y. Mail help@acme.example or <https://auto.example/z>.\n"
        "[1]: http://ref.example/r"
    )
    out = plain_links(md)
    assert "![" not in out and "](" not in out
    assert "status (image from evil.example, not shown)" in out
    assert "the form (link to forms.example.com)" in out
    for literal in ("`https://bare.example.com/y`", "`help@acme.example`", "`https://auto.example/z`"):
        assert literal in out  # a code span is never auto-linked
    assert "1: `http://ref.example/r`" in out


def test_text_without_links_is_unchanged() -> None:
    text = "1. Hold the button for 5 s.\n2. Release it when the light is **green** (about 3 s)."
    assert plain_links(text) == text


def test_domain() -> None:
    assert domain("https://Sub.Example.com:8443/p?q=1") == "sub.example.com"
    assert domain("www.example.org/x") == "www.example.org"
    assert domain("/relative/path") == ""
