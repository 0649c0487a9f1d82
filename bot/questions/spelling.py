"""Typos in a question's topic words corrected against the words of stored titles (`bot.text.spelling`), with the
questions' filler words and named terms never read as abbreviations, and name-shaped words and the words of stored
authors' names kept as typed."""

from __future__ import annotations

from bot.core import Core
from bot.questions.authors import author_words
from bot.questions.topics import FILLER, is_term_spelling
from bot.text import spelling
from bot.text.spelling import edits
from bot.text.terms import is_english_word

__all__ = ["corrected", "edits", "is_english_word"]


def _not_abbreviation(word: str) -> bool:
    return word.lower() in FILLER or is_term_spelling(word)


async def corrected(core: Core, topic: str, asked: str = "") -> str:
    """`topic` corrected as `bot.text.spelling.corrected` does, for a question; a name-shaped word ("RetNet") is kept
    as typed, as in interests (`bot.text.spelling.name_shaped`), and so is a stored author's name ("Bengio" is no
    "benign" where Bengio wrote a stored paper: `bot.questions.authors.AuthorIndex.words`). `asked`: the question
    the topic was read from, where a word starting a sentence has a capital whatever it is (a search query has
    none: its capitals are the searcher's)."""
    return await spelling.corrected(
        core,
        topic,
        _not_abbreviation,
        spelling.name_shaped,
        names=lambda: author_words(core),
        written=True,
        starts_sentence=lambda word: spelling.starts_sentence(asked, word),
    )
