"""Typos in a question's topic words corrected against the words of stored titles.

"difusion language modles" -> "diffusion language model": a word no stored title or abstract contains is
replaced by the closest title word starting with the same letter; an abbreviation papers never use before the next
word is written out as they do ("spec decoding" -> "speculative decoding"); two words that papers write as one
("auto encoders") are joined. Words the archive knows are never changed, so names of new methods stay as typed.
"""

from __future__ import annotations

import asyncio
import difflib
import re
from collections import Counter, defaultdict

from bot.core import Core
from bot.rank import phrase_key, text_tokens
from bot.topics import is_term_spelling

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
    """`topic` with words unknown to the archive replaced by their closest title word (unchanged if none), an
    abbreviated word written out where the archive only uses the full one ("spec decoding"), and two words
    the archive writes as one joined ("auto-encoders")."""
    words = [m for m in _PIECE.finditer(topic) if len(m.group(0)) >= MIN_LENGTH]
    if not words and " " not in topic.strip() and "-" not in topic:
        return topic
    vocabulary = await title_vocabulary(core)
    out = await _written_out(core, topic, vocabulary)
    words = [m for m in _PIECE.finditer(out) if len(m.group(0)) >= MIN_LENGTH]
    frequencies = await core.repo.document_frequencies([m.group(0).lower() for m in words])
    unknown = [m for m in words if not frequencies.get(m.group(0).lower())]
    for match in reversed(unknown):
        better = vocabulary.closest(match.group(0))
        if better:
            out = out[: match.start()] + better + out[match.end() :]
    return await _joined(core, out)


_PIECE = re.compile(r"[^\W\d_][\w']*")  # hyphenated words are corrected piece by piece
_PAIR = re.compile(r"\b(?=([A-Za-z]{3,})([- ])([A-Za-z]{3,})\b)")  # overlapping: "sparse auto-encoders"
SHORT = (3, 6)  # an abbreviation's length in letters ("spec", "diff")
MIN_PHRASE = 2  # papers that must use the written-out phrase


async def _written_out(core: Core, topic: str, vocabulary: TitleVocabulary) -> str:
    """Write out an abbreviated first word of a pair that no stored paper uses as typed: "spec decoding" ->
    "speculative decoding" when papers say that (the title word it starts, followed by the same word)."""
    out = topic
    for match in reversed(list(_PAIR.finditer(topic))):
        short, second = match.group(1), match.group(3)
        if not SHORT[0] <= len(short) <= SHORT[1] or is_term_spelling(short) or is_term_spelling(second):
            continue
        typed = f"{short} {second}".lower()
        longer = [w for w in vocabulary.by_letter.get(short[0].lower(), []) if w.startswith(short.lower())]
        longer = sorted((w for w in longer if len(w) >= len(short) + 3), key=lambda w: -vocabulary.counts[w])[:20]
        if not longer:
            continue
        counts = await core.repo.document_frequencies([typed, *(f"{w} {second.lower()}" for w in longer)])
        if counts.get(typed, 0):
            continue
        # the full-text index stems ("differential", "differentiable"): among equals the shortest word
        best = max(longer, key=lambda w: (counts.get(f"{w} {second.lower()}", 0), -len(w)))
        if counts.get(f"{best} {second.lower()}", 0) >= MIN_PHRASE:
            out = out[: match.start(1)] + best + out[match.end(1) :]  # pairs are visited from the end
    return out


async def _joined(core: Core, topic: str) -> str:
    """Join two adjacent words (or a hyphenated pair) that papers write as one word more often: "auto-encoders"."""
    pairs = list(_PAIR.finditer(topic))
    if not pairs:
        return topic
    asked = [
        (m, "".join(text_tokens(m.group(1) + m.group(3))), phrase_key(f"{m.group(1)} {m.group(3)}")) for m in pairs
    ]
    counts = await core.repo.document_frequencies([w for _, whole, split in asked for w in (whole, split)])
    out, changed_from = topic, len(topic)
    for match, whole, split in reversed(asked):
        if match.end(3) > changed_from:
            continue  # overlaps a pair already joined
        if counts.get(whole, 0) >= MIN_PHRASE and counts.get(whole, 0) > counts.get(split, 0):
            out = out[: match.start(1)] + match.group(1) + match.group(3).lower() + out[match.end(3) :]
            changed_from = match.start(1)
    return out
