"""The one cleaning of untrusted text for display, and the Markdown and terminal escapes applied on top of it.

Everything paperscout shows came from outside: titles, abstracts, authors, comments, questions, profile text, LLM
output. `clean_text` makes such text inert for any output: no C0/C1 control characters or DEL (U+009B is a
terminal CSI on its own), no ANSI/terminal escape sequences, no bidi overrides or isolates (which reorder what a
reader sees), no zero-width characters (which hide words from filters and split mentions invisibly), no lone
surrogates (which cannot be encoded); newlines and tabs stay and the result is NFC. The escapes here neutralise
what Markdown and terminals would act on; each front end escapes for its own markup on top of `clean_text`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

# One bound for a question typed by a person, shared by every place a question enters (chat, CLI, RAG).
MAX_QUESTION = 1000

# a bot command as the platforms spell one (Telegram's rule): a slash and 1-32 letters, digits or underscores at the
# start, '@botname' after it in a group, then a space or the end
_COMMAND_LINE = re.compile(r"/([A-Za-z0-9_]{1,32})(?:@[A-Za-z0-9_]+)?(?=\s|$)")


def command_in(line: str, ours: frozenset[str] | set[str]) -> str:
    """The command a typed line names, lower case: one of `ours`, or another word with nothing said after it but
    what commands take, numbers and arXiv ids ("/frobnicate", "/undo 1": to be told it is unknown); "" for any other
    line, text even when it starts with a slash ("/r/MachineLearning news", "/s is sarcasm", "/ML theory"). The one
    reading of a typed line for the chat and for a conversation's answers."""
    stripped = line.strip()
    found = _COMMAND_LINE.match(stripped)
    if found is None:
        return ""
    word = found.group(1).lower()
    return word if word in ours or _ARGUMENTS_ONLY.fullmatch(stripped[found.end() :].strip()) else ""


# what a command's arguments alone are: numbers of a list, arXiv ids (a question says more)
_ARGUMENTS_ONLY = re.compile(r"(?:(?:\d+(?:\.\d+)?(?:v\d+)?)(?:[\s,]+|$))*")


_ESCAPE_SEQUENCE = re.compile(
    r"\x1b\][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"  # OSC (window titles, hyperlinks) up to BEL or ST
    r"|\x1b[P^_X][^\x1b\x9c]*(?:\x1b\\|\x9c)?"  # DCS, PM, APC, SOS strings
    r"|\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, screen clears
    r"|\x9b[0-?]*[ -/]*[@-~]"  # the same with the one-byte C1 CSI
    r"|\x1b[ -/]*[0-~]"  # two-character escapes (charset switches, resets)
)

_BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
_ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff"
_REMOVED = dict.fromkeys(
    [
        *(c for c in range(32) if c not in (9, 10)),
        *range(127, 160),
        *(ord(c) for c in _BIDI + _ZERO_WIDTH),
        *range(0xD800, 0xE000),  # lone surrogates (from JSON "\ud800") cannot be encoded anywhere
    ]
)


def strip_controls(text: str) -> str:
    """`text` without escape sequences, control, bidi, zero-width or surrogate characters (newlines, tabs kept)."""
    return _ESCAPE_SEQUENCE.sub("", text).translate(_REMOVED)


def clean_text(text: str, limit: int | None = None) -> str:
    """`text` NFC-normalised and stripped of everything `strip_controls` removes, cut to `limit` characters."""
    text = strip_controls(unicodedata.normalize("NFC", strip_controls(text)))
    if limit is not None and len(text) > limit:
        text = text[: max(0, limit - 1)].rstrip() + "…"
    return text


def short_phrase(text: str, limit: int) -> str:
    """`text` on one line, at most `limit` characters, shortened at a word boundary with an ellipsis (never
    mid-word, never leaving a bracket open or a comma dangling): what names made from a phrase use."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    words = text[: max(1, limit - 1) + 1].split(" ")
    cut = " ".join(words[:-1]) if len(words) > 1 else words[0][: max(1, limit - 1)]
    while cut and cut.count("(") > cut.count(")"):
        cut = cut[: cut.rfind("(")].rstrip()
    return (cut.rstrip(" ,;:-–—") or text[: max(1, limit - 1)]) + "…"


def fit_items(items: Sequence[str], limit: int, separator: str = "; ") -> str:
    """Whole items joined by `separator` as far as they fit in `limit` characters ('…' when some are left out);
    an item is never cut."""
    out = ""
    for n, item in enumerate(items):
        joined = item if not out else out + separator + item
        more = n + 1 < len(items)
        if len(joined) + (len(separator) + 1 if more else 0) > limit:
            return (out + separator + "…") if out else short_phrase(item, limit)
        out = joined
    return out


# typographic quotes and apostrophes as the ASCII ones a keyboard types: a phone or a word processor writes "who’s"
# where a keyboard writes "who's", and the two read alike
_QUOTES = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
    }
)


def straight_quotes(text: str) -> str:
    """`text` with typographic quotes and apostrophes ("who’s", “RAG”) written as the ASCII ones ("who's", "RAG")."""
    return text.translate(_QUOTES)


def clean_input(text: str) -> str:
    """What a person typed, cleaned as `clean_text` and trimmed."""
    return clean_text(text).strip()


def terminal_safe(text: str) -> str:
    """Text that a terminal shows as written: no escape sequences, controls, bidi or zero-width characters."""
    return strip_controls(text)


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~])")
# "@" followed by U+2024 ONE DOT LEADER looks like "@." and is no mention anywhere; it is visible, so it
# cannot be used to hide text the way a zero-width joiner can.
_MASS_MENTION = re.compile(r"@(everyone|here)\b", re.IGNORECASE)
_BROKEN_AT = "@\u2024"


def _break_mass_mentions(text: str) -> str:
    return _MASS_MENTION.sub(lambda m: _BROKEN_AT + m.group(1), text)


def escape_markdown(text: str) -> str:
    """Clean text with every character generic Markdown treats as markup backslash-escaped, mass mentions broken."""
    return _MD_SPECIAL.sub(r"\\\1", _break_mass_mentions(clean_text(text)))
