"""Typos in a question's topic words corrected against the words of stored titles (`bot.text.spelling`), with the
questions' filler words and named terms never read as abbreviations, and name-shaped words and the words of stored
authors' names kept as typed."""

from __future__ import annotations

import re
from collections import Counter

from bot.core import Core
from bot.questions.authors import author_words
from bot.questions.topics import FILLER, is_term_spelling
from bot.text import spelling
from bot.text.spelling import edits
from bot.text.terms import is_english_word

__all__ = ["corrected", "edits", "is_english_word"]


def _not_abbreviation(word: str) -> bool:
    return word.lower() in FILLER or is_term_spelling(word)


async def corrected(core: Core, topic: str) -> str:
    """`topic` corrected as `bot.text.spelling.corrected` does, for a question; a name-shaped word ("RetNet") is kept
    as typed, as in interests (`bot.text.spelling.name_shaped`), and so is a stored author's name ("Bengio" is no
    "benign" where Bengio wrote a stored paper: `bot.questions.authors.AuthorIndex.words`)."""
    out = await spelling.corrected(
        core, topic, _not_abbreviation, spelling.name_shaped, names=lambda: author_words(core), written=True
    )
    return await as_named(core, out)


_SMALL = re.compile(r"(?<![\w\-])[a-z][a-z\-]*[a-z](?![\w\-])")  # a word typed in small letters only
NAME_SAMPLE = 20  # papers holding a word read to see how they write it


async def as_named(core: Core, topic: str) -> str:
    """`topic` with each word typed in small letters that no English word, filler word or named term is, and that
    the stored papers holding it write in one way only, as a name is written (a capital inside, all capitals, a
    digit: `bot.text.spelling.name_shaped` or an acronym), written as they do: "yaqa" -> "YAQA", "mermaidflow" ->
    "MermaidFlow". A name typed in small letters is still that name: read so, the question's name rules find the
    paper naming it (one naming "YAQA" only in its abstract was below one merely close to the letters in meaning)."""
    found = [
        m
        for m in _SMALL.finditer(topic)
        if len(m.group(0)) >= 3
        and m.group(0) not in FILLER
        and not is_term_spelling(m.group(0))
        and not any(is_english_word(p) for p in m.group(0).split("-"))
    ]
    out = topic
    for match in reversed(found):
        word = match.group(0)
        ids = [i for i, _ in await core.repo.lexical_search([[word.replace("-", " ")]], None, None, NAME_SAMPLE)]
        written = re.compile(rf"(?<![\w\-]){re.escape(word)}(?=s?(?![\w\-]))", re.IGNORECASE)
        forms = Counter(
            w.group(0) for p in await core.repo.get_papers(ids) for w in written.finditer(f"{p.title} {p.abstract}")
        )
        if len(forms) == 1:
            form = next(iter(forms))
            if form.isupper() or spelling.name_shaped(form):
                out = out[: match.start()] + form + out[match.end() :]
    return out
