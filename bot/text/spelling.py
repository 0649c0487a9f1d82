"""Typos in typed topic words (a question's topic, a member's interest) corrected against the words of stored titles.

"difusion language modles" -> "diffusion language model": a word no stored title or abstract contains as written
(the full-text index's stemming is not trusted: "reinforcment" is no "reinforcement"), and that is no English word
either ("print" stays "print" where no paper prints), is replaced by the closest title word starting with the same
letter (symspellpy's look-up over the store's own title words, its English word list for the check) or, for a
question, by a word only abstracts write one edit away (symspellpy's look-up over the stored abstracts' words); a
word typed with a capital (not a sentence's first) is never replaced by a word the papers write as a name
("Mixtral" is no typo of "Mistral": names one letter apart name two models); an abbreviation papers never use
before the next word is written out as they do ("spec decoding" -> "speculative decoding"); two words that papers
write as one ("auto encoders") are joined, and one word that papers write as two ("timeseries") is split, each only
when the papers write the other form more often. No other word the archive knows is changed, so names of new
methods stay as typed.
Who calls it says which words are never abbreviations (`bot.questions.spelling` its filler words and named terms,
`bot.ranking.interest_spelling` the ranker's) and which are never corrected at all.
"""

from __future__ import annotations

import asyncio
import bisect
import functools
import re
import threading
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping
from itertools import pairwise
from typing import TYPE_CHECKING

from symspellpy import SymSpell, Verbosity
from symspellpy.editdistance import DistanceAlgorithm, EditDistance

from bot.text.names import name_tokens
from bot.text.terms import (
    WORD,
    english_count,
    english_words,
    is_english_word,
    phrase_key,
    plain_lower,
    text_tokens,
    title_words,
)

if TYPE_CHECKING:
    from bot.core import Core

MIN_LENGTH = 4  # shorter words are acronyms or too ambiguous to correct
LONG_WORD = 6  # words this long may be two edits from their correction, shorter ones one
_WORD = re.compile(r"[^\W\d_][\w\-']*")


def _look_up(entries: Iterable[tuple[str, int]], edits: int) -> SymSpell:
    """symspellpy's look-up of these words (each with how many papers use it), up to `edits` edits from a typed one."""
    speller = SymSpell(max_dictionary_edit_distance=edits, prefix_length=7)
    for word, count in entries:
        speller.create_dictionary_entry(word, count)
    return speller


def _in_order(words: list[str], rank: Mapping[str, int]) -> set[str]:
    """The most of `words` whose ranks rise in the order given (a longest increasing subsequence): the words a
    changed vocabulary keeps in their places, the others having moved."""
    ranks = [rank[w] for w in words]
    if all(a < b for a, b in pairwise(ranks)):
        return set(words)
    tails: list[int] = []  # the smallest last rank of a rising run of each length
    ends: list[int] = []  # where that run ends
    before = [-1] * len(ranks)
    for i, r in enumerate(ranks):
        k = bisect.bisect_left(tails, r)
        before[i] = ends[k - 1] if k else -1
        if k == len(tails):
            tails.append(r)
            ends.append(i)
        else:
            tails[k], ends[k] = r, i
    kept, i = set(), ends[-1] if ends else -1
    while i >= 0:
        kept.add(words[i])
        i = before[i]
    return kept


class KeptLookUp:
    """symspellpy's look-up of a vocabulary (words in an order, each with a count), brought up to date with a
    changed vocabulary by what changed (words added, dropped, recounted or moved in the order) instead of built
    again: after an ingest the new titles' words are a few hundred of tens of thousands. The result is the look-up a
    build over the new vocabulary gives, every deletes list holding its words in the vocabulary's order (the order
    symspellpy breaks ties of distance and count in), so the corrections are the same."""

    def __init__(self, entries: Mapping[str, int]) -> None:
        self.entries = dict(entries)
        self.speller = _look_up(self.entries.items(), 2)

    def update(self, entries: Mapping[str, int]) -> None:
        """Make it the look-up of `entries` (in their order)."""
        new = dict(entries)
        rank = {w: k for k, w in enumerate(new)}
        kept = _in_order([w for w in self.entries if w in rank], rank)
        speller, words = self.speller, self.speller.words
        for word in self.entries:
            if word not in kept:  # dropped, or moved in the order: put back in its place below
                speller.delete_dictionary_entry(word)
                for delete in speller._edits_prefix(word):
                    if not speller.deletes[delete]:
                        del speller.deletes[delete]
        for word in kept:
            words[word] = new[word]
        last = max((rank[w] for w in kept), default=-1)
        for word in (w for w in new if w not in kept):
            speller.create_dictionary_entry(word, new[word])  # at the end of each of its deletes' lists
            if rank[word] > last:
                last = rank[word]
                continue
            for delete in speller._edits_prefix(word):
                listed = speller.deletes[delete]
                listed.pop()
                bisect.insort(listed, word, key=rank.__getitem__)
        self.entries = new


class TitleVocabulary:
    """Title words by first letter, with how many titles use each."""

    def __init__(self, counts: Mapping[str, int], written: Mapping[str, int]) -> None:
        """`counts`: the titles writing each word plural-folded (`text_tokens`); `written`: each word as written."""
        self.counts: Counter[str] = Counter(counts)
        self.by_letter: dict[str, list[str]] = defaultdict(list)
        for word in self.counts:
            if len(word) >= MIN_LENGTH - 1:
                self.by_letter[word[0]].append(word)
        # the words as titles write them, not plural-folded ("robotics", "series"): a typo of a plural or of a word
        # the folding shortens ("robtics", "sereis") is a letter or two from its written form, more from "robotic" or
        # "sery" (read only by `closest(..., written=True)`)
        self.written: Counter[str] = Counter(written)
        # the look-ups, one per first letter and reading (as written or folded), each built when a word starting
        # with that letter first needs correcting: a correction keeps the typed word's first letter, and one
        # letter's words cost a twentieth of all of them to index (all of them took ten seconds at 50,000 words)
        self._spellers: dict[tuple[bool, str], KeptLookUp] = {}
        self._entries: dict[bool, dict[str, dict[str, int]]] = {}
        # look-ups of an earlier vocabulary, brought up to date with this one when first needed (`take_look_ups`)
        self._earlier: dict[tuple[bool, str], KeptLookUp] = {}
        # each look-up is built in a worker thread (`corrected`), once when two questions ask for it at once
        self._building = threading.Lock()

    @classmethod
    def of_titles(cls, titles: Iterable[str]) -> TitleVocabulary:
        """The vocabulary of these titles, in this order (the store keeps their counts: `PapersRepo.title_words`)."""
        counts: Counter[str] = Counter()
        written: Counter[str] = Counter()
        for title in titles:  # a title's new words in alphabetical order, as the store gives them
            folded_words, written_words = title_words(title)
            counts.update(sorted(folded_words))
            written.update(sorted(written_words))
        return cls(counts, written)

    def take_look_ups(self, earlier: TitleVocabulary) -> None:
        """Take the look-ups `earlier` (the vocabulary before an ingest) has built, to bring them up to date with
        this one when first needed rather than build them again. `earlier` builds its own if asked again (a question
        read before the ingest); when it is building one now, it keeps them all."""
        if not earlier._building.acquire(blocking=False):
            return
        try:
            self._earlier.update(earlier._earlier)
            self._earlier.update(earlier._spellers)
            earlier._earlier, earlier._spellers = {}, {}
        finally:
            earlier._building.release()

    def _letter_entries(self, written: bool, letter: str) -> dict[str, int]:
        """The words a look-up of `letter` holds, in the vocabulary's order, with their counts."""
        by_letter = self._entries.get(written)
        if by_letter is None:
            both = self.counts + self.written if written else self.counts
            by_letter = defaultdict(dict)
            for word, count in both.items():
                if len(word) >= MIN_LENGTH - 1:
                    by_letter[word[0]][word] = count
            self._entries[written] = by_letter
        return by_letter.get(letter, {})

    def look_up(self, letter: str, *, written: bool = False) -> SymSpell:
        """The symspellpy look-up of the title words starting with `letter` (as written and folded together when
        `written`), built when a first word needs it: its deletes dictionary costs more than reading the titles,
        and most questions hold no unknown word. After an ingest the earlier vocabulary's is brought up to date
        instead (`take_look_ups`)."""
        with self._building:
            look_up = self._spellers.get((written, letter))
            if look_up is None:
                entries = self._letter_entries(written, letter)
                look_up = self._earlier.pop((written, letter), None)
                if look_up is None:
                    look_up = KeptLookUp(entries)
                else:
                    look_up.update(entries)
                self._spellers[(written, letter)] = look_up
            return look_up.speller

    @staticmethod
    def key(word: str, *, written: bool = False) -> str:
        """`word` as `closest` compares it: plural-folded, or as typed (lower case) when `written`."""
        key = "".join(text_tokens(word))
        return "".join(WORD.findall(plain_lower(word))) or key if written else key

    def closest(self, word: str, *, written: bool = False) -> str | None:
        """The known title word closest to `word` and starting with its letter (fewest edits, a swap of two letters
        being one, then the word more titles use), or None; `written`: among the title words as written too, the
        typed word compared as typed ("robtics" -> "robotics", "sereis" -> "series"). None too when a title word
        starting with another letter is closer (a slip of the first letter, or another word)."""
        key = self.key(word, written=written)
        if not key:
            return None
        most = 2 if len(key) >= LONG_WORD else 1
        found = self.look_up(key[0], written=written).lookup(
            key, Verbosity.CLOSEST, max_edit_distance=most, transfer_casing=False
        )
        others = [s for s in found if s.term != key]
        if not others or len(others) < len(found):
            return None  # `key` itself is a title word: no other is closer
        best = min(others, key=lambda s: (s.distance, -s.count))
        if best.distance > 1 and self._one_edit_elsewhere(key, written):
            return None
        return best.term

    def _one_edit_elsewhere(self, key: str, written: bool) -> bool:
        """Whether a title word starting with another letter than `key` is one edit from it: its first letter
        changed, dropped, added before it, or swapped with the second."""
        self._letter_entries(written, key[:1])
        letters = self._entries[written]  # every first letter a title word has
        variants = [key[1:], f"{key[1:2]}{key[:1]}{key[2:]}"]
        variants += [f"{c}{tail}" for c in letters for tail in (key[1:], key)]
        return any(v[:1] != key[:1] and v in letters.get(v[:1], ()) for v in variants)


_DISTANCE = EditDistance(DistanceAlgorithm.DAMERAU_OSA)


def edits(a: str, b: str) -> int:
    """Edit distance counting insertions, deletions, substitutions and swaps of adjacent letters."""
    return _DISTANCE.compare(a, b, max(len(a), len(b)))


@functools.cache
def _english_by_start() -> dict[tuple[str, int], list[str]]:
    """The English list's words by first letter and length."""
    out: dict[tuple[str, int], list[str]] = defaultdict(list)
    for word in english_words():
        out[(word[0], len(word))].append(word)
    return out


def english_one_edit(word: str) -> bool:
    """Whether the English word list holds a word one edit from `word` (its first letter kept): "dueling", which
    the list does not hold, is one edit from "duelling", which it does."""
    by_start = _english_by_start()
    return any(
        _DISTANCE.compare(word, other, 1) == 1
        for length in (len(word) - 1, len(word), len(word) + 1)
        for other in by_start.get((word[:1], length), ())
    )


async def title_vocabulary(core: Core) -> TitleVocabulary:
    """The vocabulary of stored titles (their words' counts, which the store keeps), kept on the Core and read anew
    after any write of a paper (`PapersRepo.papers_generation`); once for concurrent questions (the second waits for
    the first's)."""
    async with core.vocabulary_building:
        generation = await core.repo.papers_generation()
        vocabulary = core.title_vocabulary.get(generation)
        if vocabulary is None:
            counts, written = await core.repo.title_words()
            vocabulary = TitleVocabulary(counts, written)
            for earlier in core.title_vocabulary.values():
                vocabulary.take_look_ups(earlier)
            core.title_vocabulary.clear()
            core.title_vocabulary[generation] = vocabulary
    return vocabulary


def _nothing(word: str) -> bool:
    return False


def starts_sentence(text: str, word: str) -> bool:
    """Whether `word` is typed in `text` as the first word of a sentence (after nothing but marks such as quotes,
    or after a full stop, question or exclamation mark), where its capital says nothing of it."""
    return re.search(rf"(?:^|[.!?]\s)[\W_]*{re.escape(word)}(?!\w)", text) is not None


def name_shaped(word: str) -> bool:
    """A capital after the first letter or a digit ("SimCLR", "GPTQ", "DreamerV3", "RetNet"): how method and model
    names are written, and typos of plain words are not. Such a word is kept as typed: a name the archive does not
    hold yet is no misspelling of the title word nearest to it."""
    return any(c.isupper() or c.isdigit() for c in word[1:])


async def corrected(
    core: Core,
    topic: str,
    not_abbreviation: Callable[[str], bool],
    never_corrected: Callable[[str], bool] = _nothing,
    names: Callable[[], Awaitable[Collection[str]]] | None = None,
    *,
    written: bool = False,
    starts_sentence: Callable[[str], bool] = _nothing,
    real_word_slips: bool | None = None,
) -> str:
    """`topic` with words unknown to the archive replaced by their closest title word (unchanged if none), an
    abbreviated word written out where the archive only uses the full one ("spec decoding"), two words
    the archive writes as one joined ("auto-encoders"), and one word it writes as two split ("timeseries"). A word
    `not_abbreviation` holds is never written out, one `never_corrected` holds never replaced, and neither is a word
    of a stored name (`names`: the folded words of every stored author's name, read only when a word is unknown):
    "Singla" is a person, not a typo of "single", though no title or abstract holds it. A word typed with a capital
    is not replaced by a word the papers write as a name (`_written_as_name`): "Mixtral" stays "Mixtral"; unless it
    is a slip of typing that name (`_slip`: "Gausian" is "Gaussian") or the first word of a sentence where it was
    typed (`starts_sentence`), whose capital says nothing ("Gausian processes this week?"). `written`: words are
    compared as written, so a correction keeps the typed inflection ("netwroks" -> "networks"); with it, an English
    word no paper writes is read as a slip of a far commoner one ("wether forecasting") unless `real_word_slips` is
    False."""
    words = [m for m in _PIECE.finditer(topic) if len(m.group(0)) >= MIN_LENGTH]
    if not words and " " not in topic.strip() and "-" not in topic:
        return topic
    vocabulary = await title_vocabulary(core)
    out = await _written_out(core, await _joined(core, topic), vocabulary, not_abbreviation)
    out = await _split(core, out, vocabulary, never_corrected)
    words = [m for m in _PIECE.finditer(out) if len(m.group(0)) >= MIN_LENGTH and not never_corrected(m.group(0))]
    frequencies = await core.repo.document_frequencies([m.group(0).lower() for m in words])
    unknown = []
    slips: set[int] = set()  # where real English words read as slips of commoner ones start
    for match in words:
        word = match.group(0).lower()
        if frequencies.get(word) and "".join(text_tokens(word)) in vocabulary.counts:
            continue  # stored papers use it and a title spells it so: known, with no need to read the English list
        if is_english_word(word):
            slipping = written if real_word_slips is None else real_word_slips
            if not (slipping and not frequencies.get(word) and await _real_word_slip(word, vocabulary)):
                continue
            slips.add(match.start())
        # the full-text index stems ("reinforcment" and "reinforcement" are one word to it): a word it knows that no
        # title uses is checked as written
        if not frequencies.get(word) or not await _written_as(core, word):
            unknown.append(match)
    if unknown and names is not None:
        known = await names()
        unknown = [m for m in unknown if " ".join(name_tokens(m.group(0))) not in known]
    if unknown:  # the look-ups' dictionaries are built once, off the event loop, and only when a word needs them
        letters = {vocabulary.key(m.group(0), written=written)[:1] for m in unknown} - {""}
        await asyncio.to_thread(lambda: [vocabulary.look_up(letter, written=written) for letter in letters])
    for match in reversed(unknown):
        better = vocabulary.closest(match.group(0), written=written)
        if written and (not better or edits(match.group(0).lower(), better) > 1):
            # a title word two edits away, or none: a word the papers use one edit away comes first
            better = await _in_abstracts(core, match.group(0)) or better
        typed = match.group(0).lower()
        if better and edits(vocabulary.key(typed, written=written), better) > 1 and english_one_edit(typed):
            # a word one edit from an English word is a spelling of it (an American one the list lacks, "dueling" of
            # "duelling") or a slip of it, which no paper writes: a title word two edits away ("during") is another
            # word, and the word is kept as typed
            continue
        typed_as_name = match.group(0)[:1].isupper() and not starts_sentence(match.group(0))
        if (
            better
            and typed_as_name
            and not _slip(match.group(0).lower(), better)
            and await _written_as_name(core, better)
        ):
            continue  # "Mixtral" is no "Mistral", "Bloomz" no "BLOOM": a name one letter from another is another name
        if better and match.start() in slips and not await _written_beside(core, out, match, better):
            continue  # "wafer defect detection" is no "water defect detection": no paper writes "water defect"
        if better:
            out = out[: match.start()] + better + out[match.end() :]
    return await _joined(core, out)


async def _written_beside(core: Core, text: str, match: re.Match[str], better: str) -> bool:
    """Whether stored papers write `better` next to a word `text` has next to `match` ("weather forecasting" for
    "wether forecasting"), the context a real word read as a slip needs: its prior alone reads any rare word one
    edit from a far commoner one as a slip of it. The words after it are read corrected already."""
    before = re.search(r"([^\W\d_]+)[\W_]*$", text[: match.start()])
    after = re.match(r"[\W_]*([^\W\d_]+)", text[match.end() :])
    phrases = [f"{before.group(1)} {better}"] if before else []
    phrases += [f"{better} {after.group(1)}"] if after else []
    counts = await core.repo.document_frequencies(phrases) if phrases else {}
    return any(counts.values())


# how much more common in English a title word one edit from a rare English word no stored paper writes must be for
# the typed word to be read as its slip ("wether" 0.4M, "weather" 103M): a real word typed by mistake, as a noisy
# channel reads it (the prior of the intended word against that of the typed one); "calving" (0.3M) is no slip of
# "carving" (2M)
REAL_WORD_RATIO = 100


async def _real_word_slip(word: str, vocabulary: TitleVocabulary) -> bool:
    """Whether `word`, an English word no stored paper writes, is a slip of a title word one edit away that English
    uses REAL_WORD_RATIO times as often ("wether forcasting" -> "weather forecasting")."""
    letter = vocabulary.key(word, written=True)[:1]
    if letter:
        await asyncio.to_thread(lambda: vocabulary.look_up(letter, written=True))
    better = vocabulary.closest(word, written=True)
    return bool(better) and edits(word, better) == 1 and english_count(better) >= REAL_WORD_RATIO * english_count(word)


def _slip(typed: str, word: str) -> bool:
    """Whether `typed` is `word` with a slip of typing: a letter dropped, two neighbours swapped or a letter doubled
    ("Gausian", "Wasserstien", "Fourrier"). A name made from another changes or adds a letter ("Mixtral" of
    "Mistral", "Bloomz" of "Bloom"), and no slip makes it."""
    if len(typed) == len(word) - 1:
        return any(word[:i] + word[i + 1 :] == typed for i in range(len(word)))
    if len(typed) == len(word) + 1:
        return any(typed[i] == typed[i - 1] and typed[:i] + typed[i + 1 :] == word for i in range(1, len(typed)))
    swapped = (word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(len(word) - 1))
    return len(typed) == len(word) and typed in swapped


NAME_SHARE = 0.9  # of a word's uses inside a sentence, the share with a capital that makes it a name


async def _written_as_name(core: Core, word: str) -> bool:
    """Whether the stored papers (the first few the full-text index finds) write `word` as a name: with a capital
    inside a sentence ("we compare with Mistral", "BLOOM-7B") in NAME_SHARE of its uses there or more. Abstracts
    are read, not titles, whose every word has a capital."""
    ids = [i for i, _ in await core.repo.lexical_search([[word]], None, None, SAMPLE)]
    pattern = re.compile(rf"\b{re.escape(word)}\b", re.IGNORECASE)
    capital = small = 0
    for paper in await core.repo.get_papers(ids):
        for found in pattern.finditer(paper.abstract):
            before = paper.abstract[: found.start()].rstrip()
            if not before or before[-1] in ".!?:":
                continue  # a sentence's first word has a capital whatever it is
            capital += found.group(0)[0].isupper()
            small += found.group(0)[0].islower()
    return capital > 0 and capital >= NAME_SHARE * (capital + small)


class WrittenWords:
    """symspellpy's look-up of the words stored papers write (lower case, split at anything but a letter) that no
    title writes: the words only abstracts use ("robotics" where no title says it), by first letter, each letter's
    words read from the store (`PapersRepo.written_words`) and its look-up built the first time a typo starting with
    it needs them."""

    def __init__(self, read: Callable[[str], Awaitable[list[tuple[str, int, bool]]]]) -> None:
        self._read = read
        self._spellers: dict[str, SymSpell] = {}
        # concurrent first look-ups of a letter (two typo questions at once) read and build its look-up once
        self._building = asyncio.Lock()

    async def speller(self, letter: str) -> SymSpell:
        """The look-up of the words starting with `letter` (one letter's words cost a twentieth of all of them)."""
        async with self._building:
            speller = self._spellers.get(letter)
            if speller is None:
                # a typo read here has LONG_WORD letters or more, and a title word one edit away is found by the
                # title words' look-up before this one is asked
                entries = [
                    (w, n) for w, n, in_title in await self._read(letter) if len(w) >= LONG_WORD - 1 and not in_title
                ]
                speller = await asyncio.to_thread(_look_up, entries, 1)  # its deletes dictionary, off the event loop
                self._spellers[letter] = speller
        return speller

    async def one_edit(self, word: str) -> list[str]:
        """The words only abstracts write one edit from `word` (a letter dropped, added or changed, or two
        neighbours swapped), its first letter kept, the word more papers write first."""
        if not word:
            return []
        speller = await self.speller(word[0])
        found = speller.lookup(word, Verbosity.ALL, max_edit_distance=1, transfer_casing=False)
        return [s.term for s in sorted(found, key=lambda s: (-s.count, s.term)) if s.term != word]


async def written_words(core: Core) -> WrittenWords:
    """The words of stored titles and abstracts, kept on the Core and made anew after any write of a paper
    (`PapersRepo.papers_generation`; each letter's words are read again when first needed); read only when a typo
    needs them."""
    generation = await core.repo.papers_generation()
    words = core.written_words.get(generation)
    if words is None:  # nothing is read here, so no other look-up can come in between
        words = WrittenWords(core.repo.written_words)
        core.written_words.clear()
        core.written_words[generation] = words
    return words


async def _in_abstracts(core: Core, typed: str) -> str | None:
    """The word one edit from `typed` that most stored papers write, in an abstract if no title ("robtics" ->
    "robotics", "hypernetwrks" -> "hypernetworks"); None when there is none."""
    word = typed.lower()
    if len(word) < LONG_WORD or not word.isalpha():
        return None
    found = await (await written_words(core)).one_edit(word)
    return found[0] if found else None


_PIECE = re.compile(r"[^\W\d_][\w']*")  # hyphenated words are corrected piece by piece
_PAIR = re.compile(r"\b(?=([A-Za-z]{3,})([- ])([A-Za-z]{3,})\b)")  # overlapping: "sparse auto-encoders"
SHORT = (3, 6)  # an abbreviation's length in letters ("spec", "diff")
MIN_PHRASE = 2  # papers that must use the written-out phrase
CANDIDATES = 5  # written-out forms checked word for word
SAMPLE = 50  # papers read to check one


async def _written_out(
    core: Core, topic: str, vocabulary: TitleVocabulary, not_abbreviation: Callable[[str], bool]
) -> str:
    """Write out an abbreviated word of a pair that no stored paper uses as typed, as papers write the pair: "spec
    decoding" -> "speculative decoding", "code gen" -> "code generation" (a title word the abbreviation starts)."""
    out, changed_from = topic, len(topic)
    for match in reversed(list(_PAIR.finditer(topic))):
        first, second = match.group(1), match.group(3)
        if match.end(3) > changed_from or any(not_abbreviation(w) for w in (first, second)):
            continue
        typed = f"{first} {second}".lower()
        options = [(1, w, f"{w} {second.lower()}") for w in _longer(first, vocabulary)]
        options += [(3, w, f"{first.lower()} {w}") for w in _longer(second, vocabulary)]
        if not options:
            continue
        counts = await core.repo.document_frequencies([typed, *(phrase for _, _, phrase in options)])
        if counts.get(typed, 0):
            continue
        likely = sorted((o for o in options if counts.get(o[2], 0) >= MIN_PHRASE), key=lambda o: -counts[o[2]])
        # the full-text index stems ("general" and "generation" are one word to it): count the phrase as written
        written = {o: await _written_as(core, o[2]) for o in likely[:CANDIDATES]}
        best = max(written, key=lambda o: written[o], default=None)
        if best is not None and written[best] >= MIN_PHRASE:
            group, word = best[0], best[1]
            out = out[: match.start(group)] + word + out[match.end(group) :]  # pairs are visited from the end
            changed_from = match.start(1)
    return out


async def _written_as(core: Core, phrase: str) -> int:
    """How many stored papers (of the first few the full-text index finds) write `phrase` exactly."""
    ids = [i for i, _ in await core.repo.lexical_search([[phrase]], None, None, SAMPLE)]
    pattern = re.compile(r"\b" + r"[\s\-]+".join(map(re.escape, phrase.split())) + r"s?\b", re.IGNORECASE)
    return sum(1 for p in await core.repo.get_papers(ids) if pattern.search(f"{p.title} {p.abstract}"))


def _longer(short: str, vocabulary: TitleVocabulary) -> list[str]:
    """The title words an abbreviation may stand for (most used first), none when it is no abbreviation's length."""
    if not SHORT[0] <= len(short) <= SHORT[1]:
        return []
    words = [w for w in vocabulary.by_letter.get(short[0].lower(), []) if w.startswith(short.lower())]
    return sorted((w for w in words if len(w) >= len(short) + 3), key=lambda w: -vocabulary.counts[w])[:20]


MIN_HALF = 3  # letters of each word a run-together word is split into ("lowrank": "low rank")


async def _split(
    core: Core, topic: str, vocabulary: TitleVocabulary, never_corrected: Callable[[str], bool] = _nothing
) -> str:
    """Split a word no English word that papers write as two words more often, into those two: "timeseries" ->
    "time series", "zeroshot" -> "zero shot" (`_joined`'s mirror: each half a title word, the pair written by at
    least `MIN_PHRASE` papers). A word `never_corrected` holds (a name such as "RetNet") stays whole."""
    found: list[tuple[re.Match[str], list[str]]] = []
    for match in _PIECE.finditer(topic):
        word = match.group(0)
        if len(word) < 2 * MIN_HALF or not word.isalpha() or never_corrected(word) or is_english_word(word.lower()):
            continue
        lower = word.lower()
        halves = [(lower[:i], lower[i:]) for i in range(MIN_HALF, len(lower) - MIN_HALF + 1)]
        pairs = [f"{a} {b}" for a, b in halves if all("".join(text_tokens(h)) in vocabulary.counts for h in (a, b))]
        if pairs:
            found.append((match, pairs))
    if not found:
        return topic
    counts = await core.repo.document_frequencies(
        [w for match, pairs in found for w in (match.group(0).lower(), *pairs)]
    )
    out = topic
    for match, pairs in reversed(found):
        best = max(pairs, key=lambda p: counts.get(p, 0))
        if counts.get(best, 0) >= MIN_PHRASE and counts.get(best, 0) > counts.get(match.group(0).lower(), 0):
            out = out[: match.start()] + await _as_written(core, best) + out[match.end() :]
    return out


async def _as_written(core: Core, pair: str) -> str:
    """`pair` ("zero shot") hyphenated when the stored papers (the first few the full-text index finds) write it
    so more often than apart ("zero-shot"; "time series" stays apart): the reading a member is told."""
    ids = [i for i, _ in await core.repo.lexical_search([[pair]], None, None, SAMPLE)]
    first, second = map(re.escape, pair.split())
    texts = [f"{p.title} {p.abstract}" for p in await core.repo.get_papers(ids)]
    hyphenated = sum(len(re.findall(rf"\b{first}-{second}", t, re.IGNORECASE)) for t in texts)
    apart = sum(len(re.findall(rf"\b{first}\s+{second}", t, re.IGNORECASE)) for t in texts)
    return pair.replace(" ", "-") if hyphenated > apart else pair


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
            # the index stems ("contextability" is "context" to it): papers must write the joined word as such
            if await _written_as(core, whole) < MIN_PHRASE:
                continue
            out = out[: match.start(1)] + match.group(1) + match.group(3).lower() + out[match.end(3) :]
            changed_from = match.start(1)
    return out
