"""The one cleaning of untrusted text and the escapes on top of it (the core's, and each front end's), against a
hostile corpus."""

from __future__ import annotations

import re
import unicodedata

import pytest

from bot.frontends.console import terminal_safe as console_terminal_safe
from bot.frontends.discord.render import escape_discord
from bot.frontends.telegram.render import HTML, WORD_JOINER
from bot.ingest.limits import clean_text as ingest_clean
from bot.members.onboarding import clean_input as onboarding_clean_input
from bot.text.safetext import (
    clean_input,
    clean_text,
    escape_markdown,
    strip_controls,
    terminal_safe,
)
from bot.views.render import escape_markdown as render_escape_markdown

BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff"

HOSTILE = [
    "\x1b[2J\x1b[31mred\x1b[0m screen clear",
    "\x1b]0;pwned title\x07window title",
    "\x1b]8;;https://evil.example\x1b\\hyperlink\x1b]8;;\x1b\\",
    "\x9b31mC1 CSI colour",
    "DEL\x7f and NUL\x00 and BEL\x07 and backspace\x08",
    "bidi \u202eevil\u202c and \u2066isolate\u2069 \u200emark\u200f \u061carabic",
    "zero\u200bwidth\u200c\u200d\u2060\ufeffhidden",
    "@everyone look @here now",
    "@\u200beveryone split by zero width",
    "<@123456789> <@!42> <@&987> <#555> </ask:1234> <:pepe:111> <a:dance:222> <t:1700000000:R>",
    "[click me](javascript:alert(1)) and [x](https://evil.example)",
    "# heading\n> quote\n- list\n-# subtext",
    "**bold** __under__ ~~strike~~ ||spoiler|| `code` ```block```",
    '<script>alert("x")</script> & <b>bold</b>',
    "lone surrogate \ud800 here",
    "e\u0301 decomposed",
    "tab\tand\nnewline kept",
]

INVISIBLE_OR_CONTROL = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200b-\u200f\u2060\ufeff\u061c\ud800-\udfff]"
)


@pytest.mark.parametrize("text", HOSTILE)
def test_clean_text_leaves_no_control_bidi_zero_width_or_surrogate(text: str) -> None:
    cleaned = clean_text(text)
    assert not INVISIBLE_OR_CONTROL.search(cleaned), repr(cleaned)
    assert unicodedata.is_normalized("NFC", cleaned)
    cleaned.encode("utf-8")  # never raises


def test_escape_sequences_are_removed_whole_not_left_as_text() -> None:
    assert clean_text("\x1b[2J\x1b[31mred\x1b[0m") == "red"
    assert clean_text("\x1b]0;pwned title\x07after") == "after"
    assert clean_text("\x9b31mC1") == "C1"
    assert clean_text("\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\") == "link"


def test_newlines_and_tabs_stay_and_nfc_applies() -> None:
    assert clean_text("a\tb\nc") == "a\tb\nc"
    assert clean_text("e\u0301") == "\u00e9"
    assert clean_input("  \x00 hello \u202e ") == "hello"


def test_limit_cuts_with_an_ellipsis() -> None:
    assert clean_text("abcdefghij", limit=5) == "abcd…"
    assert clean_text("short", limit=5) == "short"


def test_bidi_and_zero_width_characters_are_removed() -> None:
    assert clean_text(f"a{BIDI}b{ZERO_WIDTH}c") == "abc"
    # a zero width space cannot hide a mass mention from the escapes
    assert "@everyone" not in escape_markdown("@\u200beveryone")


@pytest.mark.parametrize("text", HOSTILE)
def test_markdown_escape_leaves_no_mass_mention_link_or_html(text: str) -> None:
    out = escape_markdown(text)
    assert not re.search(r"@(everyone|here)", out)
    assert not re.search(r"(?<!\\)\[", out)
    assert not re.search(r"(?<!\\)<", out)
    assert not INVISIBLE_OR_CONTROL.search(out)


DISCORD_ACTIVE = [
    re.compile(r"(?<!\\)@(everyone|here)"),
    re.compile(r"(?<!\\)<[@#:/at]"),  # user, role, channel mentions, slash commands, emoji, timestamps
    re.compile(r"(?<!\\)\[[^\]]*(?<!\\)\]\("),  # masked link
    re.compile(r"(?<!\\)(\*\*|__|~~|\|\||`)"),
    re.compile(r"^\s*[#>-]", re.MULTILINE),
]


@pytest.mark.parametrize("text", HOSTILE)
def test_discord_escape_neutralises_mentions_links_and_markup(text: str) -> None:
    out = escape_discord(text)
    for pattern in DISCORD_ACTIVE:
        assert not pattern.search(out), (pattern.pattern, out)
    assert not INVISIBLE_OR_CONTROL.search(out)


def test_discord_escape_of_plain_text_is_unchanged() -> None:
    assert escape_discord("Graph neural networks, 3.5 percent better") == "Graph neural networks, 3.5 percent better"


@pytest.mark.parametrize("text", HOSTILE)
def test_telegram_html_uses_only_the_four_named_entities(text: str) -> None:
    out = HTML.escape(text)  # the escape every Telegram message's outside text goes through
    assert "<" not in out and ">" not in out and '"' not in out
    assert set(re.findall(r"&[^;\s]*;", out)) <= {"&lt;", "&gt;", "&amp;", "&quot;"}
    assert not INVISIBLE_OR_CONTROL.search(out.replace("@" + WORD_JOINER, "@")), "only the joiner defusing a mention"


def test_telegram_markup_cleans_and_still_defuses_mentions() -> None:
    html_text = HTML.escape("@alice \u202eevil\x1b[31m")
    assert "@\u2060alice" in html_text  # the word joiner put in on purpose survives the cleaning
    assert "\u202e" not in html_text and "\x1b" not in html_text


@pytest.mark.parametrize("text", HOSTILE)
def test_terminal_safe_leaves_nothing_a_terminal_acts_on(text: str) -> None:
    out = terminal_safe(text)
    assert "\x1b" not in out and "\x9b" not in out and "\x7f" not in out
    assert not INVISIBLE_OR_CONTROL.search(out)


def test_one_cleaning_path_everywhere() -> None:
    """The older names are the safetext functions, so no second cleaning can drift."""
    assert console_terminal_safe is terminal_safe
    assert render_escape_markdown is escape_markdown
    assert onboarding_clean_input is clean_input
    assert ingest_clean("\x9b31m t\u202eitle \u200b", 100) == "title"
    assert strip_controls("a\x7fb") == "ab"
