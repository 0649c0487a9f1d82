"""Person names folded for comparison, shared by author matching at onboarding and author hits in ranking."""

from __future__ import annotations

import re
import unicodedata

_WORD = re.compile(r"[^\W\d_]+")


def fold(text: str) -> str:
    """Lowercase without diacritics or apostrophes: 'Schölkopf' -> 'scholkopf', "O'Neil" -> 'oneil'."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return plain.lower().replace("'", "").replace("\u2019", "").replace("ß", "ss")


def name_tokens(name: str) -> list[str]:
    """The folded words of a name in 'first ... last' order ("LeCun, Yann" -> ['yann', 'lecun'])."""
    text = fold(name)
    if text.count(",") == 1:
        last, first = text.split(",")
        text = f"{first} {last}"
    return _WORD.findall(text)
