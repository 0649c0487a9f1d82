"""Typos in a question's topic words corrected against the words of stored titles.

"difusion language modles" -> "diffusion language model": a word no stored title or abstract contains is
replaced by the closest title word starting with the same letter; two words that stored titles write as one
("auto encoders") are joined. Words the archive knows are never changed, so names of new methods stay as typed.
"""

from __future__ import annotations

import asyncio
import difflib
import re
from collections import Counter, defaultdict

from bot.core import Core
from bot.rank import text_tokens

MIN_LENGTH = 4  # shorter words are acronyms or too ambiguous to correct
CUTOFF = 0.75  # difflib similarity of a typo to its correction ("experst" ~ "expert")
_WORD = re.compile(r"[^\W\d_][\w\-']*")


class TitleVocabulary:
    """Title words by first letter, with how many titles use each."""

    def __init__(self, titles: list[str]) -> None:
        self.counts: Counter[str] = Counter()
        for title in titles:
            self.counts.update(set(text_tokens(title)))
        self.by_letter: dict[str, list[str]] = defaultdict(list)
        for word in self.counts:
            if len(word) >= MIN_LENGTH - 1:
                self.by_letter[word[0]].append(word)

    def closest(self, word: str) -> str | None:
        """The known title word closest to `word` (most used first among equally close ones), or None."""
        key = "".join(text_tokens(word))
        found = difflib.get_close_matches(key, self.by_letter.get(key[:1], []), n=6, cutoff=CUTOFF)
        if not found:
            return None
        # fewest edits first (a swap of two letters is one edit), then the word more titles use
        return min(found, key=lambda w: (edits(key, w), -self.counts[w]))


def edits(a: str, b: str) -> int:
    """Edit distance counting insertions, deletions, substitutions and swaps of adjacent letters."""
    rows = [list(range(len(b) + 1))]
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            row[j] = min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], rows[-2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]


async def title_vocabulary(core: Core) -> TitleVocabulary:
    """The vocabulary of stored titles, kept on the Core and rebuilt when the number of stored papers changes."""
    count = await core.repo.count_papers()
    vocabulary = core.title_vocabulary.get(count)
    if vocabulary is None:
        titles = await core.repo.all_titles()
        vocabulary = await asyncio.to_thread(TitleVocabulary, titles)
        core.title_vocabulary.clear()
        core.title_vocabulary[count] = vocabulary
    return vocabulary


async def corrected(core: Core, topic: str) -> str:
    """`topic` with words unknown to the archive replaced by their closest title word (unchanged if none)."""
    words = [m for m in _WORD.finditer(topic) if len(m.group(0)) >= MIN_LENGTH]
    if not words:
        return topic
    frequencies = await core.repo.document_frequencies([m.group(0).lower() for m in words])
    unknown = [m for m in words if not frequencies.get(m.group(0).lower())]
    vocabulary = await title_vocabulary(core) if unknown or "-" in topic or " " in topic else None
    if vocabulary is None:
        return topic
    out = topic
    for match in reversed(unknown):
        if "-" in match.group(0):
            continue  # compounds such as "auto-encoders" are handled below
        better = vocabulary.closest(match.group(0))
        if better:
            out = out[: match.start()] + better + out[match.end() :]
    return _joined(out, vocabulary)


def _joined(topic: str, vocabulary: TitleVocabulary) -> str:
    """Join two adjacent words (or a hyphenated pair) that titles write as one word: "auto-encoders"."""

    def join(match: re.Match[str]) -> str:
        whole = "".join(text_tokens(match.group(1) + match.group(2)))
        first = "".join(text_tokens(match.group(1)))
        if vocabulary.counts[whole] >= 2 and vocabulary.counts[whole] > vocabulary.counts[first]:
            return match.group(1) + match.group(2).lower()
        return match.group(0)

    return re.sub(r"\b([A-Za-z]{3,})[- ]([A-Za-z]{3,})\b", join, topic)
