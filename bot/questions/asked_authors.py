"""Authors named in a question, in the forms people type, matched against stored authors.

"papers by Grifiths", "what did Thomas Griffiths post", "Schütze's new papers", "anything from Edward Choi",
"by Lei Bai and Fenghua Ling", "Levine et al.": capitalised name runs are looked up in the same typo- and
initial-tolerant `AuthorIndex` onboarding uses. A run counts as a name only when the index knows it and the
question says it is about authorship (a cue such as "by", "et al.", "'s", "post", "publish") or it is all the
question asks about, so topic words written with a capital ("Bayesian optimization") stay topic. A search asks for
more (`as_stored`): without a cue, a name only as it is stored, initials aside.
"""

from __future__ import annotations

import calendar
import datetime as dt
import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass

from bot.core import Core
from bot.questions.authors import AuthorIndex, author_index, same_person

# One word of a name: "Griffiths", "Kai-Wei", "LeCun", "Zdeborová", "O'Neil", or an initial "E." / "E".
_NAME_PIECE = r"[A-Z\u00C0-\u00DE][a-z\u00DF-\u024F']*(?:[A-Z][a-z\u00DF-\u024F']+)*"
_NAME_WORD = re.compile(rf"^(?:{_NAME_PIECE}(?:-{_NAME_PIECE})*\.?|[A-Z]\.?(?:-[A-Z]\.?)*)$")  # "K.-W." too
_TOKEN = re.compile(r"[^\W\d_][\w'\u2019\-\.]*|&|,")
_PARTICLES = frozenset({"van", "von", "der", "den", "de", "da", "del", "di", "la", "le", "du", "dos", "ter", "bin"})
_JOINERS = frozenset({"and", "&", ","})
_STRONG_BEFORE = frozenset({"by", "from"})
AUTHORSHIP = re.compile(
    r"\b(?:by|from|et\s+al|post\w*|put\s+out|publish\w*|wrote|writ\w*|authored|co-?authored|release\w*|"
    r"papers?\s+of|work\s+of|group|been\s+up\s+to)\b|['\u2019]s\b",
    re.IGNORECASE,
)
# a person's work asked for right after their name, as its subject ("what did Chelsea Finn work on?", "what has X
# been working on?"): authorship only there ("papers that work on Mamba" asks for a topic)
_WORKED_ON = re.compile(r"^\s*(?:(?:has|have|had|is|are|was|were|been)\s+)*work(?:s|ed|ing)?\s+on\b", re.IGNORECASE)
# the people a possessive or a name before it stands for ("Levine's lab", "the Hutter group"): no topic
_PEOPLE_AFTER = re.compile(
    r"\s*(?:(?:and|&)\s+(?:his|her|their)?\s*)?"
    r"(?:group|lab|laboratory|team|students|people|folks|colleagues|collaborators|co-?authors|co\b\.?)(?:\b|(?<=\.))"
    # the author's role said after the name: "with X as an author", "where X is a coauthor"
    r"|\s*(?:as|is|was)\s+(?:an?\s+|the\s+)?(?:(?:first|last|senior|co-?)\s*)?author\b"
    # ... or asked of the author list: "is X among the authors", "X one of the co-authors"
    r"|\s*(?:(?:is|was)\s+)?(?:among|one\s+of)\s+(?:the\s+)?(?:co-?)?authors\b",
    re.IGNORECASE,
)
_JOINED = re.compile(r"\s*(?:,\s*)?(?:\b(?:and|or)\b|&|,)\s*", re.IGNORECASE)  # between names of one list
_ET_AL = re.compile(r"^\s*et\.?\s+al\b\.?", re.IGNORECASE)
_POSSESSIVE = re.compile(r"['\u2019]s$")
# ("papers by X": the cue alone is cut, so what the question asks for stays in it and says whether it asks anew)
_CUE_BEFORE = re.compile(
    r"(?:\b(?:papers?\s+)?(?P<cue>(?:by|from|authored by|written by)\s+)|(?:\band\b|&|,)\s*)$", re.I
)
# a preposition relating the words after it to the papers' topic ("papers on X", "work about X"): X is their topic
_TOPIC_BEFORE = re.compile(r"\b(?:on|about|regarding|concerning|in|for|with|of|into|like)\s*$", re.IGNORECASE)
# full names only: "Sun", "Wed" or "Jan" may well be part of a name
_CALENDAR = frozenset(n.lower() for n in [*calendar.day_name, *calendar.month_name] if n)


@dataclass(frozen=True, slots=True)
class NamedAuthors:
    """The stored authors a question names (all of them wanted) and the question with their names taken out."""

    authors: tuple[str, ...]
    rest: str
    any_of: bool = False  # the names are alternatives ("by X or Y"): papers by any of them


@dataclass
class _Run:
    words: list[str]
    start: int
    end: int
    strong: bool = False  # "by X", "from X", "X et al.", "X's"


MAX_NAME_WORDS = 6  # a longer run of capitalised words is a title or a list, not one person's name
MAX_NAMES_LOOKED_UP = 6  # name candidates of one question looked up in the author index


def _runs(text: str, not_names: frozenset[str]) -> list[_Run]:
    """Maximal runs of name-like words, each with its character span (possessive and "et al." included)."""
    runs: list[_Run] = []
    current: _Run | None = None
    previous = ""
    for match in _TOKEN.finditer(text):
        word = match.group(0)
        bare = _POSSESSIVE.sub("", word.rstrip(".,")) if word not in "&," else word
        lowered = bare.lower()
        is_name = bool(_NAME_WORD.match(bare)) and lowered not in not_names and lowered not in _CALENDAR
        if is_name or (current is not None and lowered in _PARTICLES):
            if current is None:
                current = _Run([], match.start(), match.end(), strong=previous in _STRONG_BEFORE)
            current.words.append(bare.rstrip("."))
            current.end = match.end()
            if _POSSESSIVE.search(word.rstrip(".,")):
                current.strong = True
                runs.append(current)
                current = None
        elif current is not None:
            runs.append(current)
            current = None
        previous = lowered
    if current is not None:
        runs.append(current)
    for before, run in zip([None, *runs], runs, strict=False):
        if before is not None and before.strong and _JOINED.fullmatch(text[before.end : run.start]):
            run.strong = True  # "by Zdeborova or Krzakala": the cue before the first name is every listed name's
        tail = _ET_AL.match(text[run.end :])
        if tail:
            run.end += tail.end()
            run.strong = True
        elif _PEOPLE_AFTER.match(text, run.end):  # "the Hutter group" as "Hutter's group"
            run.strong = True
    return runs


async def _in_window(core: Core, names: list[str], start: dt.date | None, end: dt.date | None) -> list[str]:
    """The names with at least one stored paper inside the window."""
    kept = []
    for name in names:
        tokens = [t for t in re.findall(r"[\w\-']+", name) if len(t) > 1]
        if tokens and await core.repo.papers_by_author(tokens, start, end, 1):
            kept.append(name)
    return kept


async def _resolve(
    core: Core, index: AuthorIndex, run: _Run, start: dt.date | None, end: dt.date | None, lenient: bool, cue: bool
) -> tuple[str | None, str]:
    """The stored author a run names, or None, and how the index matched it (`AuthorMatch.kind`). `lenient` allows
    typo matches and surname-only look-ups; a single word only near a stored surname is read as a misspelt name only
    with a word of authorship (`cue`): alone it is far more often a topic ("Mamba", "Qwen" are no "Lamba", "Wen")."""
    typed = " ".join(run.words)
    match = index.match(typed)
    if match.kind == "exact":
        return match.name, match.kind
    if not lenient or (match.kind == "close" and len(run.words) == 1 and not (cue or run.strong)):
        return None, match.kind
    if match.kind in ("ambiguous", "close"):
        present = await _in_window(core, list(match.candidates), start, end)
        if len(present) == 1 or (present and match.kind == "close"):
            return present[0], match.kind
        if match.kind == "ambiguous" and len(present) > 1:
            return typed, match.kind  # several people of that name wrote in the window: any of them
    return None, match.kind


async def find_named_authors(
    core: Core,
    text: str,
    start: dt.date | None,
    end: dt.date | None,
    not_names: frozenset[str],
    *,
    as_stored: bool = False,
) -> NamedAuthors:
    """The authors `text` names (time words already removed) and the text without their names and cues.

    `not_names` are lower-case words that never start a name (question and filler words such as "What").
    `as_stored` (a search, whose one word is far more often a topic than a misspelt surname): without a word of
    authorship, only names typed as they are stored, initials aside.
    """
    runs = _runs(text, not_names)
    # a stored author's whole name is that author in any wording and case; the runs inside it are no other names
    whole = [] if as_stored else _whole_names(text, await author_index(core))
    runs = [r for r in runs if not any(r.start < w.end and w.start < r.end for w, _ in whole)]
    cue = bool(AUTHORSHIP.search(text))
    if not runs and whole:
        return _without_names(text, whole)
    if not runs:
        if as_stored or not (cue or len(_LOWER_WORD.findall(text)) <= MAX_NAME_WORDS):
            return NamedAuthors((), text)
        typed = _typed_in_lower_case(text, await author_index(core), not_names, cue)
        return _without_names(text, typed) if typed else NamedAuthors((), text)
    index = await author_index(core)
    leftover = text
    for run in [*runs, *(w for w, _ in whole)]:
        leftover = leftover.replace(text[run.start : run.end], " ", 1)
    # the names are all the question is about ("Zdeborová this week"): no other content word is left
    alone = not [w for w in re.findall(r"[^\W\d_]+", leftover) if w.lower() not in not_names]
    found: list[tuple[_Run, str]] = list(whole)
    looked_up = 0
    asked_by = cue
    for run in runs:
        cue = asked_by or bool(_WORKED_ON.match(text[run.end :]))
        several = len(run.words) > 1
        if not (cue or alone or several) or len(run.words) > MAX_NAME_WORDS:
            continue
        looked_up += 1
        if looked_up > MAX_NAMES_LOOKED_UP:  # a question names a few people, not a page of them (each look-up is
            break  # a fuzzy match over every stored author: a 1,000-character list of surnames took 20 s)
        lenient = run.strong or (several and (cue or alone)) or alone
        name, kind = await _resolve(core, index, run, start, end, lenient, cue)
        # a proper noun (a capital mid-sentence, or "X's", "by X") asked about by authorship that no stored author
        # nor paper's text holds is a person the store does not know ("what did Bengio post?"): no topic
        proper = run.strong or bool(re.search(r"\w", text[: run.start]) and not _TOPIC_BEFORE.search(text[: run.start]))
        if name is None and kind == "none" and not as_stored and cue and proper and await _unused(core, run.words):
            name = " ".join(run.words)
        if name is not None and as_stored and not cue and not same_person(" ".join(run.words), name):
            # "Lichao Sunn" finds Lichao Sun in a question; a search reads all it was given as its words
            return NamedAuthors((), text)
        if name is not None and name not in [n for _, n in found]:
            found.append((run, name))
    if not found:
        return NamedAuthors((), text)
    return _without_names(text, sorted(found, key=lambda pair: pair[0].start))


async def _unused(core: Core, words: list[str]) -> bool:
    """Whether no stored title or abstract uses any of `words`: a name no stored author is near then names a person
    the store does not know, no topic written with a capital ("Mamba", "Bayesian"); read as a word, it would become
    a topic or a typo of one ("Bengio" -> "benign")."""
    frequencies = await core.repo.document_frequencies([w.lower() for w in words])
    return not any(frequencies.get(w.lower(), 0) for w in words)


def _without_names(text: str, found: list[tuple[_Run, str]]) -> NamedAuthors:
    """The authors found and `text` without their names, the cue before each ("by", "from", "and") and the people
    noun after it ("'s group"); alternatives when an "or" joins two of the names."""
    ordered = sorted((run.start, run.end) for run, _ in found)
    any_of = any(
        re.fullmatch(r"\s*,?\s*(?:either\s+)?\bor\b\s*", text[end:start], re.IGNORECASE)
        for (_, end), (start, _) in itertools.pairwise(ordered)
    )
    rest = text
    for run, _ in sorted(found, key=lambda pair: -pair[0].start):
        before = _CUE_BEFORE.search(rest[: run.start])
        cut_from = (before.start("cue") if before.group("cue") else before.start()) if before else run.start
        after = _PEOPLE_AFTER.match(rest, run.end)
        rest = rest[:cut_from] + " " + rest[after.end() if after else run.end :]
    return NamedAuthors(tuple(name for _, name in found), rest, any_of)


_LOWER_WORD = re.compile(r"[^\W\d_][\w'\u2019\-]*")


def _typed_in_lower_case(text: str, index: AuthorIndex, not_names: frozenset[str], cue: bool) -> list[tuple[_Run, str]]:
    """Full names typed in lower case ("papers by lenka zdeborova", "frank hutter"): a run of two to MAX_NAME_WORDS
    words that is a stored author's whole name (accents, a middle initial and case aside), read only with a word of
    authorship or as all the question asks about. Never a surname alone nor a close spelling: lower-case words are
    far more often topic words than names."""
    words = [m for m in _LOWER_WORD.finditer(text) if m.group(0).lower() not in not_names]
    words = [m for m in words if m.group(0).lower() not in _CALENDAR]
    found: list[tuple[_Run, str]] = []
    for word in words:  # "zdeborova et al.": a surname alone, as "et al." says it is one
        tail = _ET_AL.match(text[word.end() :])
        match = index.match(word.group(0)) if tail else None
        if match is not None and match.kind == "exact":
            found.append((_Run([word.group(0)], word.start(), word.end() + tail.end(), strong=True), match.name))
    if found:
        return found

    def exact_name(typed: str) -> str | None:
        match = index.match(typed)
        if match.kind != "exact" or not same_person(typed, match.name):
            return None
        if not cue and len(typed.split()) < len(words):
            return None  # without a word of authorship the name is all that is asked
        return match.name

    return _longest_runs(text, words, exact_name, strong=False)


def _longest_runs(
    text: str, words: list[re.Match[str]], name_of: Callable[[str], str | None], *, strong: bool
) -> list[tuple[_Run, str]]:
    """The runs of two to MAX_NAME_WORDS of `words` that `name_of` names, longest first from each word on, left to
    right, never overlapping and each person once: one run of words (an initial's period aside) with nothing else
    between them."""
    found: list[tuple[_Run, str]] = []
    taken = -1
    for i, first in enumerate(words):
        if first.start() <= taken:
            continue
        for size in range(min(MAX_NAME_WORDS, len(words) - i), 1, -1):
            span = words[i : i + size]
            typed = text[first.start() : span[-1].end()]
            if re.search(r"[^\w\s'\u2019.\-]", typed) or len(typed.split()) != size:
                continue
            name = name_of(typed)
            if name is not None and name not in [n for _, n in found]:
                found.append((_Run(typed.split(), first.start(), span[-1].end(), strong=strong), name))
                taken = span[-1].end()
                break
    return found


def _whole_names(text: str, index: AuthorIndex) -> list[tuple[_Run, str]]:
    """The runs of `text`'s words, in any case, that are a stored author's whole name (`AuthorIndex.whole_name`),
    longest first from each word on, left to right: "did thomas griffiths have a paper", "did Chad A. Purnell post"
    (an initial or a word such as "To" inside a name is part of it). The store's own names decide, no word of
    authorship: whatever asks for their papers ("did X have", "is there something from X") is the rest's wording."""

    def whole_name(typed: str) -> str | None:
        name = index.whole_name(_POSSESSIVE.sub("", typed))  # "X's" is X's, the possessive cut with the name
        return name if name is not None and written_as_a_name(name) else None

    return _longest_runs(text, list(_LOWER_WORD.finditer(text)), whole_name, strong=True)


_STORED_WORD = re.compile(r"[^\W\d_][\w'\u2019\-]*")
MAX_PARTICLE_LETTERS = 3  # "van", "de", "von", "bin", "al": a name's lower-case particles are short


def written_as_a_name(stored: str) -> bool:
    """Whether a stored author string is written as a person's name: every word capitalised but short particles
    ("Ludwig van Beethoven", "Ali bin Omar"). An author field holding a sentence ("Ignore previous instructions") or a
    name written wholly in lower case is left to the reading of capitalised words, since typed in any case its
    words would be found in ordinary questions."""
    words = _STORED_WORD.findall(stored)
    capitalised = [w for w in words if w[0].isupper()]
    return len(capitalised) >= 2 and all(w[0].isupper() or len(w) <= MAX_PARTICLE_LETTERS for w in words)


# Authors described by who they are rather than named ("by Chinese authors", "American researchers", "authors from
# Germany", "groups at Google"): the stored papers record names only, never nationality, country or affiliation.
_GROUP_NOUN = r"(?:authors?|researchers?|scientists?|teams?|groups?|labs?|institutions?|universities)"
_GROUP_AFTER = re.compile(rf"\s*\b{_GROUP_NOUN}\b", re.IGNORECASE)
_GROUP_PLACE = re.compile(
    rf"\b(?i:{_GROUP_NOUN}\s+(?:(?:based|located|working)\s+)?(?:from|at|affiliated\s+with|based\s+in))\s+"
    r"(?P<place>[A-Z][\w\-]*(?:\s+[A-Z][\w\-]*){0,2})"
)
_WORD_BEFORE = re.compile(r"([^\W\d_][\w\-]*|&|,)\s*$")
MAX_QUALIFIER_WORDS = 3
_LISTING = _JOINERS | {"or"}  # what joins the describing words ("Chinese or Korean authors")
# a lower-case word read as a people's adjective by its ending ("chinese", "american", "british", "israeli")
_DEMONYM_ENDING = re.compile(r"(?:ese|ian|ean|an|ish|i)$")


def _describes_people(word: str, index: AuthorIndex, not_names: frozenset[str]) -> bool:
    """Whether `word` reads as a nationality, country or affiliation word: capitalised (not an acronym) or with a
    people's ending, not a question word, and not the name of a stored author (so "Levine group" stays Levine's)."""
    lowered = word.lower()
    if lowered in not_names or lowered in _LISTING or lowered == "the" or len(word) < 3:
        return False
    if word.isupper() or not (word[0].isupper() or _DEMONYM_ENDING.search(lowered)):
        return False  # an acronym is a field ("NLP researchers"), not a people
    return index.match(word).kind not in ("exact", "ambiguous")  # a stored surname, of one person or several


async def find_author_group(core: Core, text: str, not_names: frozenset[str]) -> str:
    """The words of `text` that constrain the authors by nationality, country or affiliation ("by Chinese
    authors", "authors from Germany"), which stored papers cannot answer; "" when there are none."""
    candidates: list[tuple[int, int, list[str]]] = []
    for noun in _GROUP_AFTER.finditer(text):  # the describing words just before "authors"
        words: list[str] = []
        begin = noun.start()
        while len(words) < MAX_QUALIFIER_WORDS * 2 and (word := _WORD_BEFORE.search(text[:begin])):
            if word.group(1).lower() in ("by", "from", "the") or not (words or word.group(1) not in _JOINERS):
                break
            words.insert(0, word.group(1))
            begin = word.start()
        while words and words[0].lower() in _LISTING:
            begin += len(words.pop(0))
        candidates.append((begin, noun.end(), words))
    for place in _GROUP_PLACE.finditer(text):
        candidates.append((place.start(), place.end(), place.group("place").split()))
    if not candidates:
        return ""
    index = await author_index(core)
    for begin, end, words in candidates:
        named = [w for w in words if w.lower() not in _LISTING]
        while len(named) > MAX_QUALIFIER_WORDS or (named and not _describes_people(named[0], index, not_names)):
            named.pop(0)  # "only those Chinese authors": the describing words nearest the noun
        if named and all(_describes_people(w, index, not_names) for w in named):
            return text[begin:end].strip()
    return ""
