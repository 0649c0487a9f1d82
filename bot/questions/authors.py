"""Matching the author names a person types against the authors of stored papers.

People type names loosely: without accents ("Schoelkopf", "Scholkopf"), with initials ("Y. LeCun"), surname only
("Bengio"), with a typo ("Yan LeCunn"), or "Surname, First". `AuthorIndex.match` finds the stored spelling, a short
list to choose from when several people fit, or close spellings when nothing fits exactly.
"""

from __future__ import annotations

import asyncio
import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass

from bot.core import Core
from bot.text.names import name_tokens, transliterated_tokens

MAX_NAME = 120  # longer than any real name
MAX_NAMES = 20  # per message
MAX_CHOICES = 8

_PARTS = re.compile(r"[\n;]+")


def split_names(text: str) -> list[str]:
    """Names from one message: one per line or separated by ';' (or by ',' when each part has a space)."""
    names: list[str] = []
    for part in _PARTS.split(text):
        pieces = [p.strip() for p in part.split(",")]
        # "LeCun, Yann" is one name; "Yann LeCun, Geoffrey Hinton" is two.
        if len(pieces) > 1 and all(" " in p for p in pieces if p):
            names += pieces
        else:
            names.append(part.strip())
    cleaned = []
    for name in names:
        name = re.sub(r"^\s*(?:[-*•]|\d+[.)])\s*", "", name).strip(" .,")
        if name and name not in cleaned:
            cleaned.append(name)
    return cleaned


@dataclass(frozen=True, slots=True)
class AuthorMatch:
    """What a typed name matched: `kind` is exact, ambiguous (choose from `candidates`), close (typo?) or none."""

    query: str
    kind: str
    name: str = ""
    candidates: tuple[str, ...] = ()


class AuthorIndex:
    """Stored author names indexed for forgiving look-ups."""

    def __init__(self, names: Iterable[str]) -> None:
        self.by_full: dict[str, str] = {}  # "yann lecun" -> "Yann LeCun"
        self.by_compact: dict[str, str] = {}  # "yannlecun" -> "Yann LeCun"
        self.by_last: dict[str, list[str]] = {}  # "lecun" -> ["Yann LeCun", ...]
        self.by_first: dict[str, list[str]] = {}  # "buskens" -> ["Buskens Vincent"]: a name stored surname-first
        self.words: set[str] = set()  # every folded word of a stored name: "yann", "lecun"
        for name in names:
            tokens = name_tokens(name)
            if not tokens:
                continue
            self.words.update(tokens)
            full = " ".join(tokens)
            if full in self.by_full:  # the same person spelt with other accents or case
                continue
            self.by_full[full] = name
            self.by_compact.setdefault("".join(tokens), name)
            self.by_last.setdefault(tokens[-1], []).append(name)
            self.by_first.setdefault(tokens[0], []).append(name)
            written = transliterated_tokens(name)  # "Schuetze" is how Schütze is typed without the dots
            if written:
                self.by_full.setdefault(" ".join(written), name)
                self.by_compact.setdefault("".join(written), name)
                if written[-1] != tokens[-1]:
                    self.by_last.setdefault(written[-1], []).append(name)
        self._keys = list(self.by_full)

    def __len__(self) -> int:
        return len(self.by_full)

    def _first_last(self, first: str, last: str, initial_only: bool) -> list[str]:
        found = []
        for name in self.by_last.get(last, []):
            tokens = name_tokens(name)
            if len(tokens) < 2:
                continue
            if (initial_only and tokens[0].startswith(first)) or tokens[0] == first:
                found.append(name)
        return found

    def match(self, query: str) -> AuthorMatch:
        """Find `query` among the stored authors."""
        query = query.strip()[:MAX_NAME]
        tokens = name_tokens(query)
        if not tokens:
            return AuthorMatch(query, "none")
        full = " ".join(tokens)
        if full in self.by_full:
            return AuthorMatch(query, "exact", self.by_full[full])
        if "".join(tokens) in self.by_compact:
            return AuthorMatch(query, "exact", self.by_compact["".join(tokens)])
        found: list[str] = []
        if len(tokens) == 1:
            found = list(self.by_last.get(tokens[0], []))
        else:
            initials = [t for t in tokens if len(t) == 1]
            words = [t for t in tokens if len(t) > 1]
            if initials and words:
                # "Y. LeCun", "LeCun Y", "Y. A. LeCun": the first initial and the surname
                found = self._first_last(initials[0], words[-1], initial_only=True)
                # every initial counts: "K.-W. Chang" is Kai-Wei Chang, not Kevin Chang
                found = [n for n in found if same_person(query, n)] or found
            elif words:
                # "Geoffrey Hinton" also finds "Geoffrey E. Hinton"
                found = self._first_last(words[0], words[-1], initial_only=False)
        if not found and len(tokens) > 1:
            # a surname of several words ("van der Maaten"), or one written apart ("Le Cun" for "LeCun")
            found = [n for n in self.by_last.get(tokens[-1], []) if " ".join(name_tokens(n)).endswith(" " + full)]
            found = found or list(self.by_last.get("".join(tokens), []))
        found = found or self._surname_first(tokens)
        unique = list(dict.fromkeys(found))
        if len(unique) == 1:
            return AuthorMatch(query, "exact", unique[0])
        if unique:
            return AuthorMatch(query, "ambiguous", candidates=tuple(sorted(unique)[:MAX_CHOICES]))
        return AuthorMatch(query, *self._close(tokens))

    def whole_name(self, typed: str) -> str | None:
        """The one stored author whose whole name `typed` is: every word of the stored name or, for a given name, its
        initial (a middle name may be left out, "Thomas Griffiths" for Thomas L. Griffiths), accents and case aside,
        or the name stored surname-first; at least two words of two letters. None for a surname alone, a close
        spelling or several people: no fuzzy look-up, so it is cheap enough to try on every run of a question's
        words."""
        tokens = name_tokens(typed)
        if sum(len(t) > 1 for t in tokens) < 2 or len(tokens[-1]) < 2:
            return None
        full = " ".join(tokens)
        if full in self.by_full:
            return self.by_full[full]
        found = [n for n in self.by_last.get(tokens[-1], []) if same_person(typed, n)]
        unique = list(dict.fromkeys(found or self._surname_first(tokens)))
        return unique[0] if len(unique) == 1 else None

    def _surname_first(self, tokens: list[str]) -> list[str]:
        """The stored names that are the typed name written surname-first ("Buskens Vincent" for "Vincent Buskens"
        or "V. Buskens", as arXiv metadata sometimes lists a name), read only when nothing matches in the typed
        order: the whole name, word for word (a given name typed in full or as its initial), so a given name that is
        another person's surname ("Théo Vincent") or a longer name sharing two words ("Wang Chi Cheung" for "Chi
        Wang") is never it."""
        if len(tokens) < 2 or len(tokens[-1]) < 2:
            return []
        given = tokens[:-1]
        found = []
        for name in self.by_first.get(tokens[-1], []):
            stored = name_tokens(name)
            if len(stored) == len(tokens) and all(
                word == typed or (len(typed) == 1 and word.startswith(typed))
                for word, typed in zip(stored[1:], given, strict=True)
            ):
                found.append(name)
        return found

    def _close(self, tokens: list[str]) -> tuple[str, str, tuple[str, ...]]:
        # typos and transliterations ("Schoelkopf"): similar full names, or similar surnames for a surname alone
        close = [self.by_full[c] for c in difflib.get_close_matches(" ".join(tokens), self._keys, n=4, cutoff=0.8)]
        if len(tokens) == 1:
            for last in difflib.get_close_matches(tokens[0], list(self.by_last), n=3, cutoff=0.8):
                close += self.by_last[last]
        unique = tuple(dict.fromkeys(close))[:MAX_CHOICES]
        return ("close", "", unique) if unique else ("none", "", ())


async def author_index(core: Core) -> AuthorIndex:
    """The index of every stored author, kept on the Core and rebuilt (in a worker thread: it reads every name
    of the archive) only after a write of a paper (`PapersRepo.papers_generation`: a replacement may change its
    authors)."""
    generation = await core.repo.papers_generation()
    index = core.author_index.get(generation)
    if index is None:
        names = await core.repo.all_authors()
        index = await asyncio.to_thread(AuthorIndex, names)
        core.author_index.clear()  # only the current archive's index is worth keeping
        core.author_index[generation] = index
    return index


async def author_words(core: Core) -> set[str]:
    """The folded words of every stored author's name ("lecun", "yann"), from the author index."""
    return (await author_index(core)).words


def same_person(typed: str, stored: str) -> bool:
    """Whether one stored author is the person `typed` names: the same surname and, in order, each given name the
    same or its initial ("K.-W. Chang" ~ "Kai-Wei Chang", "Schutze" ~ "Hinrich Schütze"); never the surname of one
    author joined to the given name of another, as a match over the whole author list would allow; an umlaut may be
    typed as German writes it without the dots ("Schuetze")."""
    want, have = name_tokens(typed), name_tokens(stored)
    written = transliterated_tokens(stored)
    if want and written and want[-1] == written[-1]:  # "Schuetze" for Schütze
        have = written
    if not want or not have or want[-1] != have[-1]:
        return False
    given = iter(have[:-1])
    for token in want[:-1]:
        if not any(name == token or (len(token) == 1 and name.startswith(token)) for name in given):
            return False
    return True
