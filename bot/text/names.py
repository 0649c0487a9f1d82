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


_UMLAUTS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue"})


def transliterated_tokens(name: str) -> list[str] | None:
    """The name's words with its umlauts written as German writes them without the dots ('Schütze' -> 'schuetze',
    as people type it on an English keyboard), or None when it has no umlaut."""
    composed = unicodedata.normalize("NFC", name)
    written = composed.translate(_UMLAUTS)
    return name_tokens(written) if written != composed else None


def name_tokens(name: str) -> list[str]:
    """The folded words of a name in 'first ... last' order ("LeCun, Yann" -> ['yann', 'lecun'])."""
    text = fold(name)
    if text.count(",") == 1:
        last, first = text.split(",")
        text = f"{first} {last}"
    return _WORD.findall(text)
