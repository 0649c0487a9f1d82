"""When a text is about a question's topic: the units of each alternative weighed by rarity, and their evidence.

A topic ("sparse mixture-of-experts", "KV cache compression", "diffusion language models") is split into units by
the questions' reading of `bot.text.terms` (named terms from `bot.text.terms.QUESTIONS`, the ranker's named terms plus
the
synonyms questions add, and the remaining content words). A text is about the topic when every unit it needs
appears close together (a compound is about the whole thing, not any one of its words); `bot.text.terms.Unit.where`
finds a unit with inflections, words inside a name, a joined prefix and acronyms ending a method's name.
Some parts may stand for the whole:

- a rare named term with at most one other unit that is typical of it ("sparse MoE" -> MoE papers: many MoE papers say
  "sparse"; not "federated LoRA", which few LoRA papers are);
- a sub-phrase the archive seldom uses outside the whole phrase (measured, not listed: "unlearning" for "machine
  unlearning", "speculative" for "speculative decoding"; not "Bayesian" for "Bayesian optimization");
- a verb acting on the topic ("shrinking the KV cache", "shrink the KV cache": a word with a determiner after it)
  may be left out: papers put it their own way;
- a word also matches the base the Snowball (Porter2) English stemmer gives its inflection ("coding" ~ "code");
- "X for Y" is about X when most papers on X name Y ("neural operators for PDEs");
- words almost every paper uses ("model", "learning") may be left out, and so may a common unit that only says
  where a rarer one lives ("LLM hallucinations", "knowledge distillation"; see `_optional`).
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace

import snowballstemmer

from bot.core import Core
from bot.text.terms import (
    INDEX_STEMMER,
    INFLECTIONS,
    NAMED_TERMS,
    QUESTION_SYNONYMS,
    QUESTIONS,
    Part,
    TermTable,
    Text,
    Unit,
    agent_noun,
    common_prefix,
    is_english_word,
    joined_abbreviations,
    merged,
    same_word,
    text_tokens,
)
from bot.text.terms import split_units as _split

SPAN_SLACK = 2  # extra words a compound's units may be spread over ("scaling test-time compute")
TERM_SHARE = 0.05  # a named term in fewer papers than this share is specific enough to stand for a topic
VERY_GENERIC = 0.4  # a word in more papers than this share ("model", "learning") may be left out of a compound
GENERIC_SHARE = 0.1  # a unit this common ("LLM", "knowledge") may only say where a rarer one lives
BROAD_SHARE = 0.2  # a unit this common ("LLMs": a third of the archive) is no topic beside a rarer one it is joined to
SPECIFIC_SHARE = 0.01  # a unit this rare ("jailbreaking", "unlearning") is the topic wherever it lives
SPECIFIC_WEIGHT = math.log(1 / SPECIFIC_SHARE)  # the rarity weight (`_idf`) of a unit that rare
MIN_WORD = 4  # letters of a word standing for its phrase on a first page; a shorter one is an abbreviation ("AV")
PART_RATIO = 2.0  # a sub-phrase used at most this many times as often as the whole phrase stands for it
LOCATING_UNITS = 3  # only in a topic this short may common units just say where a rare last one lives
SPREAD_UNITS = 4  # a compound with this many needed units may have them anywhere in a text
# A modifier this share of a rare named term's papers use is typical of it ("sparse" MoE). Measured on the four shared
# days (docs/BENCHMARKS.md, issue 22 follow-ups): modifiers a question means as the term itself ("low-rank" LoRA,
# "memory" KV cache, "sparse" MoE) are used by 0.30-1.00 of the term's papers, modifiers that pick a kind of it
# ("federated" or "experts" LoRA, "private" federated learning, "long-context" KV cache) by 0.06-0.17: any share in
# that gap decides the same; a quarter lies inside it.
TYPICAL_SHARE = 0.25
# "X for Y" is about X when most papers on X name Y: then a paper on X is more likely than not about Y too.
IMPLIED_SHARE = 0.5
TYPICAL_SAMPLE = 5  # a named term in fewer papers than this is too rare to tell what is typical of it
PARTIAL = 0.4  # what part of a compound's units count for (always below COVERED)
COVERED = 0.5  # coverage at which a text is about the topic
ABOUT_MENTIONS = 2  # an abstract naming a topic this often is about it
SHARED = 0.6  # a unit this share of a previous answer's papers hold does not narrow it down
MIN_NARROWED = 4  # fewer previous papers than this are too few to tell what they share

# Words that never belong to a topic, wherever they stand.
META = frozenset(
    """papers paper preprint preprints article articles works arxiv please anything something everything what's
    whats there's theres who's whos tell show list give find""".split()
)
FILLER = frozenset(
    """what which who whose where when how why is are was were any some there here do does did can could would should
    papers paper work works research article articles preprint preprints show me tell list give find get about on
    regarding related to new recent latest published appeared came out arxiv and or the a an of in for with from
    please i we you it this that those these them among also else other more again only just week today
    yesterday month year since day days last past anything something everything interesting good notable cool
    important worth reading read hi hey publish published released submitted out wrote write written did like such as
    e.g eg etc especially mainly mostly post posts posted posting put putting stuff things thing hey hello anyone
    someone somebody has have had been lately recently together novel ones summarize summarise summary summaries
    overview looking searching interested want need wondering curious newly i'm im same but announced uploaded recap
    rundown roundup highlights similar earlier ok okay thanks all every each""".split()
)


@dataclass(frozen=True, slots=True)
class TopicEvidence:
    """How to recognise one topic in a text: its units, and the parts that alone stand for the whole."""

    units: tuple[Unit, ...]
    standalone: tuple[Unit, ...] = ()
    exact: bool = False  # words match as written (plurals aside), without inflections
    anchor: Unit | None = None  # an example of a class counts only beside the class's rarest unit (`anchored`)
    joined: tuple[tuple[int, ...], ...] = ()  # units typed as one hyphenated word ("multi-agent"): `hyphen_groups`
    # the reading an answer SHOWS papers by, when it differs: each side of "X for Y" / "X with Y" needed (`_evidence`)
    shown: TopicEvidence | None = None
    # the whole phrase as typed, a common unit that only says where a rarer one lives needed too ("dataset
    # distillation", not any distillation): a paper an answer shows first names it so, when any does (`_evidence`)
    placed: TopicEvidence | None = None
    # a first page's reading of the one side of an "X for Y" no paper puts so (`evidence`): at least one of the other
    # side's specific units somewhere too ("deep RL" papers naming "resource" or "scheduling" for "deep RL for cloud
    # resource scheduling")
    some: tuple[Unit, ...] = ()
    # a search page's `placed` where it differs from an answer's (`paged`): a named term standing for its phrase with
    # another needed unit stands on a search's page, whose query is often the term and its usual head ("dialog
    # systems", "spatio-temporal forecasting"), while an answer's first page names the phrase (`_evidence`)
    searched: TopicEvidence | None = None
    paged: bool = False  # a search's page reads `searched` instead of `placed`

    @property
    def showing(self) -> TopicEvidence:
        """The reading a paper an answer shows first must meet (`shown`, else this one)."""
        return self.shown if self.shown is not None else self

    def shows(self, title: str, abstract: str, sides: bool = False, search: bool = False) -> bool:
        """Whether a paper an answer shows first meets this reading: title and abstract hold every part of it (with
        `sides`, when an alternative of the question has sides: of its `showing` reading, as typed, not only the act's
        words) and, for a phrase whose common unit only locates a rarer one, its title or abstract names the whole
        phrase (`placed`; with `search`, as a search's page reads it: `searched`)."""
        text = f"{title}\n{abstract}"
        if not (self.showing.holds_every_part(text, related=False) if sides else self.holds_every_part(text)):
            return False
        placed = self._placed(search)
        return placed is None or max(placed.coverage(title, abstract), placed.coverage(abstract)) >= COVERED

    def _placed(self, search: bool) -> TopicEvidence | None:
        return self.searched if search and self.paged else self.placed

    @property
    def first_page_differs(self) -> bool:
        """Whether an answer's first page reads this topic otherwise than its listing does."""
        return self.shown is not None or self.placed is not None

    @property
    def search_page_differs(self) -> bool:
        """Whether a search's first page reads this topic otherwise than its listing does."""
        return self.shown is not None or self._placed(True) is not None

    @property
    def span(self) -> int:
        """How many tokens the needed units may be spread over."""
        return sum(len(u.forms[0]) for u in self.units if not u.optional) + SPAN_SLACK

    def _whole(self, text: Text) -> bool:
        if any(u.where(text, self.exact) for u in self.standalone):
            return True
        needed = [u.where(text, self.exact) for u in self.units if not u.optional]
        if not needed or not all(needed):
            return False
        if len(needed) >= SPREAD_UNITS:
            # a compound of many parts is seldom written in one phrase: all its parts, anywhere; but the pieces of
            # one hyphenated word side by side ("multi-agent", not "multi-layered ... agent")
            return all(self._side_by_side(text, group) for group in self.joined)
        if not all(self._side_by_side(text, group) for group in self.joined):
            return False  # a hyphenated word is one word however short the topic ("text-to-image")
        for choice in itertools.product(*(spots[:8] for spots in needed)):
            if max(e for _, e in choice) - min(s for s, _ in choice) + 1 <= self.span:
                return True
        return False

    def _side_by_side(self, text: Text, group: tuple[int, ...]) -> bool:
        """Whether the units at `group` follow each other in `text` (at most one word between: "multi-agent" as
        "multi agent" or "multi-agent"); true when one of them may be missing."""
        units = [self.units[i] for i in group]
        if any(u.optional for u in units):
            return True
        ends = {last for _, last in units[0].where(text, self.exact)}
        for unit in units[1:]:
            ends = {last for first, last in unit.where(text, self.exact) if any(0 < first - e <= 2 for e in ends)}
            if not ends:
                return False
        return True

    def coverage(self, text: str, context: str = "") -> float:
        """1.0 when `text` is about the whole topic; otherwise a share below COVERED of the units it holds.

        With `context` (the abstract, for a title): a title holding the topic's rarest unit is about the topic
        when the context holds the whole of it ("Jailbreaking" in the title, "jailbreak attacks" in the abstract).
        """
        tokens = Text.of(text)
        if self.anchor is not None and not self.anchor.where(Text.of(f"{text}\n{context}")):
            return 0.0
        if self._whole(tokens):
            return 1.0
        total = sum(u.weight for u in self.units)
        if not total:
            return 0.0
        present = [bool(u.where(tokens, self.exact)) for u in self.units]
        share = sum(u.weight for u, hit in zip(self.units, present, strict=True) if hit) / total
        if len(self.units) == 1:
            return share
        if context:
            rarest = max(range(len(self.units)), key=lambda i: self.units[i].weight)
            if present[rarest] and self._whole(Text.of(context)):
                return 1.0
        return PARTIAL * share

    def holds_every_part(self, text: str, related: bool = True) -> bool:
        """Whether `text` holds every needed unit somewhere, however far apart ("agents ... for software
        engineering" over an abstract), or a part that stands for the whole; with `related`, an agent noun also as
        the act's words (a paper on "optimizers" may say only "optimization": offered after those naming them,
        `select`)."""
        tokens = Text.of(text)
        if self.anchor is not None and not self.anchor.where(tokens):
            return False
        if self.some and not any(u.where(tokens, self.exact, related=related) for u in self.some):
            return False
        if any(u.where(tokens, self.exact, related=related) for u in self.standalone):
            return True
        needed = [u for u in self.units if not u.optional]
        return bool(needed) and all(u.where(tokens, self.exact, related=related) for u in needed)

    def holds_rarest(self, text: str) -> bool:
        """Whether `text` holds the rarer part of a reading of two needed parts when that part is specific (a named
        term, or a word SPECIFIC_SHARE of the archive or fewer use: "Koopman" of "Koopman operator methods"), or a
        part that stands for the whole; true for any other reading. Of two parts the rare one is the concept and the
        other its setting; in a longer compound the rarest word is as often a modifier ("from scratch")."""
        tokens = Text.of(text)
        if any(u.where(tokens, self.exact) for u in self.standalone):
            return True
        needed = [u for u in self.units if not u.optional]
        if len(needed) != 2:
            return True
        rarest = max(needed, key=lambda u: u.weight)
        return not (rarest.named or rarest.weight >= SPECIFIC_WEIGHT) or bool(rarest.where(tokens, self.exact))

    def mentions(self, text: str) -> int:
        """How many times `text` names the whole topic (0 when it is not about all of it)."""
        tokens = Text.of(text)
        if self.anchor is not None and not self.anchor.where(tokens):
            return 0
        alone = [_separate(u.where(tokens, self.exact)) for u in self.standalone]
        whole = 0
        if self._whole(tokens):
            needed = [_separate(u.where(tokens, self.exact)) for u in self.units if not u.optional]
            whole = min(needed, default=0)
        return max([whole, *alone])


def _separate(spots: Sequence[tuple[int, int]]) -> int:
    """How many of `spots` do not overlap ("large language models" is one mention, not also "language models")."""
    count, end = 0, -1
    for first, last in sorted(spots):
        if first > end:
            count += 1
            end = last
        else:
            end = max(end, last)
    return count


@dataclass(frozen=True, slots=True)
class QuestionTopic:
    """A question's topic as alternatives, any of which a paper may be about."""

    alternatives: tuple[TopicEvidence, ...]

    def coverage(self, text: str, context: str = "") -> float:
        """How much of the best-covered alternative `text` contains (see `TopicEvidence.coverage`)."""
        return max((a.coverage(text, context) for a in self.alternatives), default=0.0)

    def holds_every_part(self, text: str, related: bool = True) -> bool:
        """Whether `text` holds every part of one alternative somewhere (`TopicEvidence.holds_every_part`)."""
        return any(a.holds_every_part(text, related) for a in self.alternatives)

    def holds_rarest(self, text: str) -> bool:
        """Whether `text` holds the specific rarer part of one alternative of two parts, or any alternative is of
        another shape (`TopicEvidence.holds_rarest`)."""
        return any(a.holds_rarest(text) for a in self.alternatives)

    @property
    def showing(self) -> QuestionTopic:
        """The topic as an answer's first page reads it: each alternative's `TopicEvidence.showing`."""
        return QuestionTopic(tuple(a.showing for a in self.alternatives))

    @property
    def first_page_differs(self) -> bool:
        """Whether an answer's first page reads one of the alternatives otherwise than its listing does."""
        return any(a.first_page_differs for a in self.alternatives)

    @property
    def search_page_differs(self) -> bool:
        """Whether a search's first page reads one of the alternatives otherwise than its listing does."""
        return any(a.search_page_differs for a in self.alternatives)

    def shows(self, title: str, abstract: str, search: bool = False) -> bool:
        """Whether a paper meets one alternative as an answer's first page reads it (`TopicEvidence.shows`; with
        `search`, as a search's page does)."""
        sides = any(a.shown is not None for a in self.alternatives)
        return any(a.shows(title, abstract, sides, search) for a in self.alternatives)

    def is_about(self, title: str, abstract: str) -> bool:
        """Whether a paper is about the topic as a whole: its title names it, or its abstract more than once (a single
        mention is often context: "inspired by its success in LLMs, we quantize diffusion models")."""
        if self.coverage(title, abstract) >= COVERED:
            return True
        return max((a.mentions(abstract) for a in self.alternatives), default=0) >= ABOUT_MENTIONS

    def discriminating(self, texts: Sequence[str], asked: Sequence[str] = ()) -> QuestionTopic:
        """The topic as a condition on `texts` (a previous answer's papers, found for the topics `asked`): a unit most
        of them hold, or one the request they were found for already names, says what they share, not what the
        condition picks ("which of those MoE papers are about routing between experts", "routing or gating between
        experts" after "mixture of experts"), so it becomes optional wherever another unit is left to tell them
        apart."""
        tokens = [Text.of(t) for t in texts] if len(texts) >= MIN_NARROWED else []
        before = [Text.of(a) for a in asked if a]
        if not tokens and not before:
            return self

        def shared(unit: Unit) -> bool:
            held = bool(tokens) and sum(1 for t in tokens if unit.where(t)) >= SHARED * len(tokens)
            return held or any(unit.where(b) for b in before)

        narrowed = []
        for alternative in self.alternatives:
            common = [shared(u) for u in alternative.units]
            if all(common):
                narrowed.append(alternative)
                continue
            units = tuple(replace(u, optional=u.optional or c) for u, c in zip(alternative.units, common, strict=True))
            kept = tuple(u for u in alternative.standalone if not shared(u))
            narrowed.append(
                replace(alternative, units=units, standalone=kept, shown=None, placed=None, searched=None, paged=False)
            )
        return QuestionTopic(tuple(narrowed))


# English prepositions (a closed class) relate a topic's words and are never one of its units: "gating between
# experts" needs "gating" and "experts", not "between" (in a fifth of all papers) beside them
PREPOSITIONS = frozenset(
    """between across among amongst via through throughout within without into onto upon under over toward towards
    against beyond inside outside at by per versus vs than along around behind beneath""".split()
)


# Personal and possessive pronouns (a closed class of English) refer to something named elsewhere: never a topic word
# ("reflect on their mistakes" is about mistakes). "own" after a possessive only stresses it ("their own outputs").
PRONOUNS = frozenset(
    "it its itself they them their theirs themselves he him his she her hers our ours your yours".split()
)
_OWN = re.compile(r"\b(their|its|his|her|our|your|my)\s+own\b", re.IGNORECASE)


def _filler(word: str) -> bool:
    return word in FILLER or word in PREPOSITIONS or word in PRONOUNS or len(word) < 2


# The named terms a question is read with: the fixed table, and the acronyms the archive defines for this question
# (`corpus_terms`, set by `bot.questions.retrieval.ranked` for the question it ranks).
_TERMS: ContextVar[TermTable] = ContextVar("question_terms", default=QUESTIONS)


@contextmanager
def corpus_terms(rows: Sequence[tuple[str, ...]]) -> Iterator[None]:
    """Read questions inside the block with `rows` (expansion, acronym: `bot.questions.acronyms`) as named terms too."""
    if not rows:
        yield
        return
    token = _TERMS.set(TermTable(merged([*NAMED_TERMS, *QUESTION_SYNONYMS, *rows])))
    try:
        yield
    finally:
        _TERMS.reset(token)


def split_units(key: str) -> list[Part]:
    """A normalised topic (see `topic_key`) split into named terms (longest spelling first) and content words; a
    filler word naming an activity before a content word is the topic's own ("reading comprehension", `_gerund`)."""
    tokens = key.split()
    kept = {t for t, after in itertools.pairwise(tokens) if _filler(t) and _gerund(t) and not _filler(after)}
    return _split(key, _TERMS.get(), lambda w: _filler(w) and w not in kept)


# participles that are prepositions ("papers regarding X"): a closed class of English, never a topic's activity
_PARTICIPIAL_PREPOSITIONS = frozenset("regarding concerning including excluding following considering".split())


def _gerund(word: str) -> bool:
    """Whether `word` is an "-ing" noun naming an activity ("reading", "posting"), not an adjective ("interesting":
    English writes its adverb, "interestingly"), a participle used as a preposition or a pronoun ("anything")."""
    word = word.lower()
    return (
        word.endswith("ing")
        and len(word) > 5
        and not word.endswith("thing")
        and word not in _PARTICIPIAL_PREPOSITIONS
        and not is_english_word(f"{word}ly")
    )


def is_term_spelling(word: str) -> bool:
    """True when `word` alone is a spelling of a named term ("SSM", "RAG")."""
    return _TERMS.get().spells(text_tokens(word))


def topic_key(topic: str) -> str:
    """`phrase_key` with plural acronyms made singular ("LMs" -> "lm", "SSMs" -> "ssm", as "models" -> "model")."""
    return _TERMS.get().key(topic)


def _words(tokens: Sequence[str]) -> str:
    return " ".join(tokens)


def _idf(total: int, frequency: int) -> float:
    return math.log((total + 1) / (frequency + 1)) + 0.1


def share_weight(share: float) -> float:
    """The rarity weight (`_idf`, in a large archive) of a unit used by this share of the stored papers."""
    return math.log(1 / share) + 0.1


GENERIC_WEIGHT = share_weight(GENERIC_SHARE)  # a unit rarer than GENERIC_SHARE weighs more than this


# A word right before a determiner is a verb acting on the determined object ("shrinking the KV cache", "compress a
# model's activations"): a topic's nouns are not followed by one (determiners are a closed class of English).
_ACTION = re.compile(
    r"^([^\W\d_][\w\-]*)\s+(?:the|a|an|their|its|this|these|those|our|your|each|every|all|any)\s+\S", re.IGNORECASE
)
_STEMMER = snowballstemmer.stemmer("english")
_FOR = re.compile(r"^(\S.*?\S)\s+for\s+(\S.*)$", re.IGNORECASE)


async def evidence(
    core: Core, text: str, exact: bool = False, *, verb_first: bool = False, sole: bool = False
) -> TopicEvidence:
    """The units of one topic alternative, weighted by rarity in the archive, and the parts standing for it.

    `verb_first`: the text starts with the verb the papers do ("involve LoRA adapters", from "which of those involve
    LoRA adapters?"); papers name what they do in their own words, so the verb may be missing, as an action may.

    "X for Y" is about X alone when the archive's papers on X mostly name Y too ("neural operators for PDEs": a
    neural operator solves PDEs whether its abstract says so or not). When it is the question's `sole` topic (no
    other alternative and no exclusion) and no paper names both (`_attested`), it is about one of them: Y when papers
    name Y and fewer than name X ("ML for sports": the sports papers), else the head, what the papers are
    ("optimizers for training neural nets": no paper writes "neural nets"), unless the head is a method nearly every
    kind of paper names (`_unspecific`: "ML for telescope data" is the field, found by meaning when no paper names
    it); an alternative no paper matches is left to the others. Otherwise Y is part of the topic ("memory for LLM
    agents", "agents for software engineering").
    """
    found = _FOR.match(text.strip())
    if found and await _implies(core, *found.groups()):
        return await _evidence(core, found.group(1), exact, verb_first)
    if found and sole and not await _attested(core, *found.groups()):
        # no paper names both: of the two, the one that narrows the archive more, when papers name it ("ML for
        # sports": the two papers on sports, not the hundreds on machine learning); else the head, unless it names no
        # topic of its own ("ML for telescope data")
        head, domain = found.groups()
        by_domain = await _narrower(core, domain, head) or await _unspecific(core, head)
        side, other = (domain, head) if by_domain else (head, domain)
        reading = await _evidence(core, side, exact, verb_first)
        if by_domain:
            reading = await _without_lone_fillers(core, reading)
        return await _beside(core, reading, other)
    return await _evidence(core, text, exact, verb_first)


async def _beside(core: Core, side: TopicEvidence, other: str) -> TopicEvidence:
    """`side`, the side of an "X for Y" no paper puts so that the question is read as, with a first page that prefers
    the papers naming some of the `other` side too: those holding one of its units rarer than GENERIC_SHARE ("deep RL
    for cloud resource scheduling": the deep RL papers naming "resource" or "scheduling" are shown, the others offered
    first after them; when none does, the first page is as before). The listing is the side's: nothing is dropped."""
    specific = tuple(u for u in (await _evidence(core, other, False)).units if u.weight >= GENERIC_WEIGHT)
    if not specific or not side.units:
        return side
    return replace(
        side, shown=replace(side.showing, some=specific, shown=None, placed=None, searched=None, paged=False)
    )


async def _narrower(core: Core, domain: str, head: str) -> bool:
    """Whether some stored paper names `domain` (any spelling) and fewer do than name `head`; a domain no paper writes
    as typed is named by the papers holding each of its units ("ML for cancer diagnosis": papers write "diagnosis
    of cancer", "cancer ... diagnosis"), so its rarity, not the phrasing, decides it."""
    domains, heads = spellings_of(domain), spellings_of(head)
    if not domains or not heads:
        return False
    named = await core.repo.co_frequency([domains]) or await core.repo.co_frequency(_unit_spellings(domain))
    return 0 < named < await core.repo.co_frequency([heads])


async def _without_lone_fillers(core: Core, reading: TopicEvidence) -> TopicEvidence:
    """`reading` without the units it may lack ("data" of "telescope data") when no stored paper names its needed
    ones: the topic is found by meaning alone, and a paper naming only such a word ("Data-Driven Antenna
    Miniaturization") holds none of it."""
    needed = [u for u in reading.units if not u.optional]
    if not needed or len(needed) == len(reading.units):
        return reading
    if await core.repo.co_frequency([[_words(f) for f in u.forms] for u in needed]) > 0:
        return reading
    return replace(reading, units=tuple(needed), joined=())


async def _unspecific(core: Core, head: str) -> bool:
    """Whether at least TERM_SHARE of the stored papers name `head` (any spelling): a method nearly every kind of paper
    uses ("ML", "deep learning", "LLMs"), too common to stand for a topic as a named term does. "ML for telescope
    data", which no paper names, is read as the field the method is for (by meaning when no paper names the field
    either), not as the hundreds of papers naming machine learning."""
    heads = spellings_of(head)
    if not heads:
        return False
    named = await core.repo.co_frequency([heads])
    parts = split_units(topic_key(head))
    if len(parts) == 1 and parts[0].term is None and len(parts[0].tokens) == 1:
        # one plain word, counted as written: the index's stem puts "optimizers" with "optimization" and "optimal"
        named = await _written_frequency(core, parts[0].tokens[0], named)
    return named >= TERM_SHARE * await core.repo.count_papers()


async def _attested(core: Core, head: str, domain: str) -> bool:
    """Whether any stored paper holds every unit of `head` and of `domain` (any spelling of each): when none does
    ("optimizers for training neural nets": papers write "networks"), the compound is no way papers put it and its
    head, what the papers are, is the topic; the purpose is left to the ranking by meaning."""
    units = [*_unit_spellings(head), *_unit_spellings(domain)]
    if not units:
        return True
    return await core.repo.co_frequency(units) > 0


def _unit_spellings(text: str) -> list[list[str]]:
    """Each unit of `text` as the full-text index is searched for it: its spellings (a named term's every one)."""
    return [
        [_words(s) for s in (part.term.spellings if part.term else (part.tokens,))]
        for part in split_units(topic_key(text))
    ]


async def _implies(core: Core, head: str, domain: str) -> bool:
    """Whether most stored papers using the phrase `head` also use `domain` (any spelling of either)."""
    heads, domains = spellings_of(head), spellings_of(domain)
    if not heads or not domains:
        return False
    head_papers = await core.repo.co_frequency([heads])
    if head_papers < TYPICAL_SAMPLE:
        return False
    return await core.repo.co_frequency([heads, domains]) >= IMPLIED_SHARE * head_papers


async def _evidence(core: Core, text: str, exact: bool, verb_first: bool = False) -> TopicEvidence:
    key = topic_key(text)
    parts = split_units(key)
    if not parts:
        return TopicEvidence((), (), exact)
    hyphenated = _hyphenated(text)
    if hyphenated:  # the archive's words: a hyphenated word it never writes ("Lean-based") is read as its pieces
        used = await core.repo.document_frequencies([_words(w) for w in hyphenated])
        hyphenated = [w for w in hyphenated if used.get(_words(w), 0)]
    total = max(await core.repo.count_papers(), 1)
    asked: list[str] = []
    for part in parts:
        spellings = part.term.spellings if part.term else (part.tokens,)
        asked.append(_words(spellings[0]))
    runs = [(i, j) for i in range(len(parts)) for j in range(i + 1, len(parts) + 1) if (i, j) != (0, len(parts))]
    typed = [_words(t for p in parts[i:j] for t in p.tokens) for i, j in runs]
    whole = key
    frequencies = await core.repo.document_frequencies(list(dict.fromkeys([*asked, *typed, whole])))
    bases = await _base_forms(core, parts)
    units: list[Unit] = []
    shares: list[float] = []  # the share of stored papers using each unit
    for part in parts:
        # a named term in any of its spellings, as a text is matched ("AI" or "artificial intelligence": the archive
        # writes the acronym ten times as often); whole spellings: "CoMoE" is no "MoE"
        frequency = (
            await core.repo.co_frequency([[_words(s) for s in part.term.spellings]])
            if part.term
            else frequencies.get(_words(part.tokens), 0)
        )
        if part.term is None and len(part.tokens) == 1 and frequency >= VERY_GENERIC * total:
            # a word looking as common as "model" may be left out (`_optional`): counted as it is matched
            frequency = await _written_frequency(core, part.tokens[0], frequency)
        unit = Unit.of(part, _idf(total, frequency))
        if part.term is None and len(part.tokens) == 1 and part.tokens[0] in bases:
            unit = replace(unit, forms=(*unit.forms, (bases[part.tokens[0]],)))
        units.append(unit)
        shares.append(frequency / total)
    phrase = _last_phrase(text, len(parts))
    joined = hyphen_groups(parts, hyphenated)
    phrases = phrase_groups(key, parts)
    readings = []
    # as papers are listed by, then as they are shown by (when it differs)
    # and, for a phrase without sides, as typed: a common unit only locating a rarer one needed too (`placed`)
    for side, locating in dict.fromkeys([(0, True), (phrase, True), *([(0, False)] if not phrase else [])]):
        optional = [_optional(shares, [u.named for u in units], i, side, locating) for i in range(len(units))]
        action = _ACTION.match(text.strip())  # "shrinking the KV cache": papers say "compressing", "evicting" it
        if action and not parts[0].term and parts[0].tokens == tuple(text_tokens(action.group(1))):
            optional[0] = True
        for group in phrases:
            # a part of a compound typed as a phrase is about its head, the phrase's last word: a common head after a
            # rare modifier does not only say where the modifier lives ("distributionally robust optimization" with
            # RL is no paper naming "Out-of-Distribution" and RL); a word almost every paper uses still may be missing
            head = group[-1]
            if optional[head] and (units[head].named or shares[head] < VERY_GENERIC):
                optional[head] = False
        if all(optional):
            optional = [False] * len(units)
        for group in joined:
            # a hyphenated word the archive writes, standing for the whole topic, is one thing: "energy-based
            # models" are not the papers naming "energy" (power grids, buildings) because "based" and "model" are
            # words every paper uses; its pieces are needed together, side by side (`TopicEvidence._side_by_side`).
            # Beside other needed words ("diffusion-based policies for offline RL") the piece alone is the topic's
            if any(not optional[i] for i in group) and all(optional[i] for i in range(len(units)) if i not in group):
                for i in group:
                    optional[i] = False
        read = [replace(u, optional=o) for u, o in zip(units, optional, strict=True)]
        read, standalone = await _standing(core, read, shares, side)
        standalone += _runs(parts, read, frequencies, key, total)
        if verb_first and not parts[0].term and len(parts[0].tokens) == 1 and len(read) > 1:
            # the verb the papers do is not needed, and it alone: the rest is read as with the verb ("combining A with
            # B" needs A and B; read as optional first, it made "B" alone stand for the compound, `_standing`)
            read[0] = replace(read[0], optional=True)
        readings.append((read, standalone))
    (listed, alone), *others = readings
    shown = placed = searched = None
    paged = False
    if phrase and others and others[0] != readings[0]:
        shown = TopicEvidence(tuple(others[0][0]), tuple(others[0][1]), exact, joined=joined)
    if not phrase and others and others[0] != readings[0]:
        placed = TopicEvidence(tuple(others[0][0]), tuple(others[0][1]), exact, joined=joined)
    # the standing units that are words (the runs of letters too short to be one, below, are left standing); a named
    # term standing for a phrase with another needed unit too ("knowledge graph" of "knowledge graph construction",
    # `_standing`: many KG papers write "construction" somewhere, few are about it)
    several = sum(not u.optional for u in listed) > 1
    worded = [u for u in alone if (several or not u.named) and all(len(t) >= MIN_WORD for t in u.forms[0])]
    if not phrase and placed is None and worded and not all(u.optional for u in listed):
        # a word the archive seldom writes outside the phrase stands for it in the listing ("credit" of "credit
        # assignment"), but a paper shown first names the phrase, when any does: "Credit Default Prediction" is
        # offered after them, not shown for "credit assignment". A run of letters too short to be a word ("AV" of
        # "AV QA", "SWE" of "SWE-bench") is an abbreviation papers write alone for the whole: it still stands
        placed = TopicEvidence(tuple(listed), tuple(u for u in alone if u not in worded), exact, joined=joined)
        # a search's page lets the named term stand ("dialog" of "dialog systems": the query is the term and its head)
        plain = [u for u in worded if not u.named]
        if len(plain) < len(worded):
            paged = True
            kept = tuple(u for u in alone if u not in plain)
            searched = TopicEvidence(tuple(listed), kept, exact, joined=joined) if plain else None
    return TopicEvidence(
        tuple(listed), tuple(alone), exact, joined=joined, shown=shown, placed=placed, searched=searched, paged=paged
    )


MIN_WRITTEN = 3  # letters of a word's index stem the written words sharing it are looked up by


async def _written_frequency(core: Core, word: str, stemmed: int) -> int:
    """How many stored papers write `word` as a text is matched by it (`same_word`), at most the `stemmed` count of
    the full-text index, which counts every word its Porter stem puts with it: "generative" there is "gener", with
    "general" and "generalization" (half of all papers), so the typed word looked as common as "general". Of the
    words papers write with its stem, those it matches as written are counted; a word whose stem-mates it all
    matches ("model", "learning") keeps the index's count."""
    if not word.isalpha():
        return stemmed
    stem = INDEX_STEMMER.stemWord(word)
    prefix = word[: min(common_prefix(word, stem), len(stem) - 1)]
    if len(prefix) < MIN_WRITTEN:
        return stemmed
    mates = [w for w, _, _ in await core.repo.written_words(prefix) if INDEX_STEMMER.stemWord(w) == stem]
    matched = [w for w in mates if same_word(word, w)]
    if not matched or len(matched) == len(mates):
        return stemmed
    return min(stemmed, await core.repo.papers_writing(matched))


async def _standing(core: Core, units: list[Unit], shares: Sequence[float], side: int) -> tuple[list[Unit], list[Unit]]:
    """The units with the plain words a rare named term makes optional, and the named terms standing for the whole
    (see `_evidence`); from `side` on (the phrase after the last "for" or "with", 0: the whole text) a term stands
    and a modifier goes only within its own side of it: "continual learning with adapters" needs the adapters."""
    units = list(units)

    def apart(n: int, k: int) -> bool:
        return bool(side) and (n >= side) != (k >= side)

    standalone: list[Unit] = []
    needed = [n for n, u in enumerate(units) if not u.optional]
    for n, u in enumerate(units):
        # a rare named term with at most one other unit is the topic ("sparse MoE", "KV cache compression") when
        # that unit is typical of it; an unusual one picks a kind of it ("federated LoRA", "shortening CoT")
        if u.named and not u.optional and shares[n] < TERM_SHARE and len(needed) <= 2:
            others = [k for k in needed if k != n]
            if not others or (not apart(n, others[0]) and await _typical(core, units[others[0]], u)):
                standalone.append(u)
    if len(needed) > 2:
        # in a longer compound, a plain word typical of a rare named term in it may be left out as in a two-unit one
        # ("sparse" of MoE in "sparse mixture-of-experts routing": an MoE paper on routing need not say "sparse")
        for n, u in enumerate(units):
            if u.named and not u.optional and shares[n] < TERM_SHARE:
                for k, v in enumerate(units):
                    if k != n and not v.named and not v.optional and not apart(n, k) and await _typical(core, v, u):
                        units[k] = replace(v, optional=True)
    return units, standalone


def _runs(
    parts: Sequence[Part], units: Sequence[Unit], frequencies: dict[str, int], whole: str, total: int
) -> list[Unit]:
    """The sub-phrases the archive seldom uses outside the whole phrase `whole`, each standing for it."""
    runs = [(i, j) for i in range(len(parts)) for j in range(i + 1, len(parts) + 1) if (i, j) != (0, len(parts))]
    whole_frequency = frequencies.get(whole, 0)  # a phrase no paper uses has no part that stands for it
    found = []
    for i, j in runs:
        run = parts[i:j]
        phrase = _words(t for p in run for t in p.tokens)
        if all(units[k].optional for k in range(i, j)) or any(p.term for p in run):
            continue
        if f" {phrase} " not in f" {whole} ":
            continue  # not a stretch of the phrase as typed: "model tabular" is no part of "models for tabular data"
        if frequencies.get(phrase, 0) <= PART_RATIO * whole_frequency and frequencies.get(phrase, 0) > 0:
            found.append(Unit(phrase, (tuple(phrase.split()),), (), _idf(total, frequencies.get(phrase, 0))))
    return found


# "X for Y", "X with Y": the phrase after the preposition is one side of the compound, what is before it the other
# (not "X of Y" nor "X to Y", mostly one name: "mixture of experts", "learning to rank")
_SIDES = re.compile(r"^.*\b(?:for|with|in|on|over|via|using|within|across|through|under)\s+(?=\S)", re.IGNORECASE)


def _last_phrase(text: str, count: int) -> int:
    """Where the phrase after the text's last relating preposition starts among its `count` units (0 without one):
    "adapter methods for continual learning" -> 2."""
    found = _SIDES.match(text.strip())
    if found is None:
        return 0
    return max(count - len(split_units(topic_key(text.strip()[found.end() :]))), 0)


_HYPHENATED = re.compile(r"[^\W\d_][^\W_]*(?:-[^\W\d_][^\W_]*)+")


def _hyphenated(text: str) -> list[tuple[str, ...]]:
    """The hyphenated words typed in `text`, each as its tokens ("multi-agent" -> ("multi", "agent"))."""
    return [words for words in (tuple(text_tokens(w)) for w in _HYPHENATED.findall(text)) if len(words) > 1]


MIN_JOINED = 2  # papers writing a hyphenated word's pieces as one word for that spelling to be read too
# and their share of the papers writing it apart: a spelling papers commonly use ("pretraining": 65 papers beside 92
# writing "pre-training" on the shared days, 0.7), not a rare variant ("multiagent": 2 beside 52; "finetuning": 16
# beside 183). Read as one named term, the word is one unit where it was two, which changes how a compound is read
# (fewer units, needed closer together): worth it only where papers writing it joined are a real share of the topic's.
# A quarter, as TYPICAL_SHARE: "a share of a term's papers that is typical of it".
JOINED_SHARE = 0.25


async def joined_spellings(core: Core, topic: str) -> list[tuple[str, str]]:
    """The hyphenated words of `topic` that stored papers also commonly write as one word ("pre-training" and
    "pretraining", "multi-modal" and "multimodal": `JOINED_SHARE`), each a row of two spellings (`corpus_terms`): a
    hyphen splits a word into tokens that the joined word does not hold, so a paper writing it joined held no "pre"
    and was about no "LLM pre-training", nor did any paper attest "data mixtures for LLM pre-training" (`_attested`).
    A piece that is a named term ("LLM-based") is read as the term, not joined."""
    words = [w for w in _hyphenated(topic) if not any(is_term_spelling(t) for t in w)]
    if not words:
        return []
    used = await core.repo.document_frequencies([s for w in words for s in ("".join(w), _words(w))])
    return [
        (_words(w), "".join(w))
        for w in words
        if used.get("".join(w), 0) >= max(MIN_JOINED, JOINED_SHARE * used.get(_words(w), 0))
    ]


def _plain_words(topic: str) -> list[str]:
    """The ordinary words of `topic` as `text_tokens` reads them, each once: letters only, typed in lower case or with
    a capital first letter (a capital inside, "TimePoint", is a name's, read as typed), neither filler nor a named
    term's spelling."""
    typed = [w for w in re.findall(r"[^\W\d_]+(?:-[^\W\d_]+)*", topic) if "-" not in w and w[1:] == w[1:].lower()]
    words = [t for w in typed for t in text_tokens(w)]
    return [w for w in dict.fromkeys(words) if w.isalpha() and not _filler(w) and not is_term_spelling(w)]


async def split_spellings(core: Core, topic: str) -> list[tuple[str, str]]:
    """The words of `topic` typed as one word that stored papers also commonly write as two, hyphenated or apart
    ("pretraining" and "pre-training", "neurosymbolic" and "neuro-symbolic"), each a row of two spellings as
    `joined_spellings` makes them, read under the same rule the other way round: papers writing it apart are at least
    MIN_JOINED and JOINED_SHARE of those writing it joined (counted as `joined_spellings` counts them, in the full-text
    index). Each piece has MIN_STEM_LETTERS letters or more; the first split so written is read."""
    rows: list[tuple[str, str]] = []
    for word in _plain_words(topic):
        if len(word) < 2 * MIN_STEM_LETTERS:
            continue
        splits = [f"{word[:n]} {word[n:]}" for n in range(MIN_STEM_LETTERS, len(word) - MIN_STEM_LETTERS + 1)]
        used = await core.repo.document_frequencies([word, *splits])
        apart = next((a for a in splits if used.get(a, 0) >= max(MIN_JOINED, JOINED_SHARE * used.get(word, 0))), None)
        if apart is not None:
            rows.append((apart, word))
    return rows


# The endings by which British and American English spell one noun two ways ("dialog" / "dialogue", "center" /
# "centre", "defense" / "defence", "program" / "programme", "behavior" / "behaviour"), either way round; a pair
# `same_word` reads as one already ("behaviour", "-ise" / "-ize", "-elling" / "-eling") is left as it is read.
_SPELLING_ENDINGS = (("og", "ogue"), ("or", "our"), ("er", "re"), ("ense", "ence"), ("am", "amme"))
MIN_STEM_LETTERS = 3  # letters of a word before the ending that varies ("dial" of "dialog")


async def variant_spellings(core: Core, topic: str) -> list[tuple[str, str]]:
    """The words of `topic` that stored papers also write the other way, British or American (`_SPELLING_ENDINGS`:
    "dialog systems" where abstracts mostly write "dialogue"), each a row of the word as typed and as they write it
    (`corpus_terms`), read when at least MIN_JOINED papers write that spelling (as written, not stemmed: "gener" is
    no word though the stemmed index holds it). A word neither way round in the archive reads as typed."""
    variants: list[tuple[str, str]] = []
    for word in _plain_words(topic):
        for typed, other in (*_SPELLING_ENDINGS, *((b, a) for a, b in _SPELLING_ENDINGS)):
            stem = word[: -len(typed)]
            if word.endswith(typed) and len(stem) >= MIN_STEM_LETTERS and not same_word(word, stem + other):
                variants.append((word, stem + other))
    return [(w, v) for w, v in variants if await core.repo.papers_writing([v, f"{v}s"]) >= MIN_JOINED]


def lettered_words(topic: str) -> list[tuple[str]]:
    """The hyphenated words of `topic` with a piece of one letter ("k-means", "X-ray", "top-k", "Best-of-N",
    "t-SNE"), each a row of one spelling (`corpus_terms`): the letter is too short to be a unit of its own and was
    dropped, leaving "means", "ray", "top" or "best" to stand for the whole word; read as one named term, the word
    is matched as typed, its pieces side by side."""
    words = [w for w in _hyphenated(topic) if any(len(t) == 1 and t.isalpha() for t in w)]
    return [(_words(w),) for w in dict.fromkeys(words)]


def hyphen_groups(parts: Sequence[Part], words: Sequence[tuple[str, ...]]) -> tuple[tuple[int, ...], ...]:
    """The positions of `parts` that are the plain words of one hyphenated word of `words` (`_hyphenated`): "multi
    agent" of "multi-agent LLM systems" is (0, 1). A named term inside one ("LLM-based") is no such piece."""
    groups: list[tuple[int, ...]] = []
    # its words that are units: the small words inside it are none ("text-to-image" is "text", "image")
    words = [w for w in (tuple(t for t in word if split_units(t)) for word in words) if len(w) > 1]
    for start in range(len(parts)):
        for word in words:
            run = parts[start : start + len(word)]
            if (
                len(run) == len(word)
                and all(p.term is None and len(p.tokens) == 1 for p in run)
                and tuple(p.tokens[0] for p in run) == word
            ):
                groups.append(tuple(range(start, start + len(word))))
                break
    return tuple(groups)


def phrase_groups(key: str, parts: Sequence[Part]) -> tuple[tuple[int, ...], ...]:
    """The positions of `parts` typed as one phrase in `key` (`topic_key`), each run of two or more parts with no
    other word between them, when there are several such phrases or single parts: "combining distributionally robust
    optimization with reinforcement learning" -> ((0, 1, 2, 3),), its two sides split by "with". A topic typed as one
    phrase has none (its parts are matched as a whole compound is)."""
    tokens = key.split()
    runs: list[list[int]] = []
    at = 0
    for n, part in enumerate(parts):
        width = len(part.tokens)
        start = next((i for i in range(at, len(tokens)) if tuple(tokens[i : i + width]) == part.tokens), None)
        if start is None:
            return ()
        if runs and start == at and n:
            runs[-1].append(n)
        else:
            runs.append([n])
        at = start + width
    if len(runs) < 2:
        return ()
    return tuple(tuple(run) for run in runs if len(run) > 1)


async def _typical(core: Core, modifier: Unit, term: Unit) -> bool:
    """Whether papers using `term` (any spelling) often use `modifier` too (measured in the archive): leaving it
    out then loses little ("sparse" of MoE papers), while a modifier few of them use is what the question asks for."""
    spellings = [_words(f) for f in term.forms]
    term_papers = await core.repo.co_frequency([spellings])
    if term_papers < TYPICAL_SAMPLE:
        return True  # too few papers to tell
    both = await core.repo.co_frequency([spellings, [_words(f) for f in modifier.forms]])
    return both >= TYPICAL_SHARE * term_papers


def inflection_base(word: str) -> str:
    """The base an inflected word is made from, by the Snowball (Porter2) English stemmer, when the two differ only by
    inflectional endings ("coding" -> "code", "aging" -> "age", "studies" -> "studi"); else "" (a derivation such as
    "generalization" -> "general" is another word, and so is a word the stemmer leaves alone)."""
    stem = _STEMMER.stemWord(word)
    n = common_prefix(word, stem)
    if stem == word or word[n:] not in INFLECTIONS or stem[n:] not in INFLECTIONS:
        return ""
    return stem


async def _base_forms(core: Core, parts: Sequence[Part]) -> dict[str, str]:
    """Each one-word part's inflection base (`inflection_base`) where papers use it: "coding" then matches "code" as
    the full-text index already counts them (`same_word` needs four shared letters, and "cod" has three); an agent
    noun's verb only where few papers use it (`GENERIC_SHARE`)."""
    bases = {p.tokens[0]: inflection_base(p.tokens[0]) for p in parts if p.term is None and len(p.tokens) == 1}
    bases = {word: base for word, base in bases.items() if base}
    if not bases:
        return {}
    counts = await core.repo.document_frequencies(list(bases.values()))
    total = max(await core.repo.count_papers(), 1)
    # an agent noun stands for its verb's words only where papers use those words seldom, as a field's name
    # ("recommender": "recommend..." in 2% of papers, the recommendation papers); a verb every tenth paper uses
    # ("adapt...": 18%) is used in passing by papers on anything, none of them about adapters
    return {
        word: base
        for word, base in bases.items()
        if counts.get(base, 0) and not (agent_noun(word, base) and counts[base] >= GENERIC_SHARE * total)
    }


def anchored(example: TopicEvidence, head: TopicEvidence) -> TopicEvidence:
    """An example given for a class ("shrinking the KV cache, i.e. pruning or sharing") in the class's context: a
    common example word counts only in a text that also holds the class's rarest unit ("pruning" of the KV cache,
    not of any network). A specific example (a named term, a rare word: "overthinking", "SGD") stands alone."""
    needed = [u for u in example.units if not u.optional]
    head_needed = [u for u in head.units if not u.optional]
    if not needed or not head_needed:
        return example
    anchor = max(head_needed, key=lambda u: u.weight)
    if any(u.key == anchor.key for u in example.units):
        return example
    if any(u.named or u.weight >= SPECIFIC_WEIGHT for u in needed):
        return example
    shown = replace(example.shown, anchor=anchor) if example.shown is not None else None
    return replace(example, anchor=anchor, shown=shown)


def _optional(shares: Sequence[float], terms: Sequence[bool], i: int, side: int = 0, locating: bool = True) -> bool:
    """Whether unit `i` of a compound may be missing from a text about it, by how common each unit is.

    Almost every paper says "model" or "learning": such a word may be missing next to a named term or a rare word
    ("MoE models", "protein modelling", "federated learning"), not next to a common one ("world models",
    "diffusion models"); a named term is never filler. A common unit before a rare last one only says where the
    topic lives ("knowledge distillation", "LLM hallucinations"), and so does a common one after a specific one
    ("jailbreaking LLMs"); not when both are common enough to make the compound ("Bayesian optimization",
    "diffusion language models", "neural operators"). With `side` (where the last phrase of "X for Y" starts, as an
    answer's first page reads it), only inside a side: "LLMs for time series" are LLMs. Without `locating` (the
    phrase as an answer's first page names it, `TopicEvidence.placed`), no common unit is only a locating one, nor
    is a very common word typed beside a rarer one ("video generation" shows papers naming video generation).
    """
    share = shares[i]
    others = [j for j in range(len(shares)) if j != i]
    if share >= VERY_GENERIC and not terms[i]:
        return locating and any(terms[j] or shares[j] < TERM_SHARE for j in others)
    if share < GENERIC_SHARE or not others or not locating:
        return False
    last = shares[-1]
    if side <= i < len(shares) - 1 and last < TERM_SHARE and len(shares) <= LOCATING_UNITS:
        return True
    return any(other < SPECIFIC_SHARE for j, other in enumerate(shares) if j < i and (j >= side or i < side))


def spellings_of(topic: str) -> list[str]:
    """The topic's normalised phrase plus the same phrase with each named term in its other spellings."""
    key = topic_key(topic)
    phrases = [key] if key else []
    for part in split_units(key):
        if part.term is None:
            continue
        typed = _words(part.tokens)
        for spelling in part.term.spellings[:2]:
            if _words(spelling).replace(" ", "") == typed.replace(" ", ""):
                continue  # the same letters joined ("pretraining", `joined_spellings`): nothing new to the vector
            phrases.append(f" {key} ".replace(f" {typed} ", f" {_words(spelling)} ").strip())
    return list(dict.fromkeys(p for p in phrases if p))


def full_text_groups(topic: str) -> list[list[str]]:
    """Full-text alternatives for one topic: its content words together, or with a named term spelled any way."""
    key = topic_key(topic)
    parts = split_units(key)
    words = [t for p in parts for t in p.tokens]
    groups = [words] if words else []
    for n, part in enumerate(parts):
        if part.term is None:
            continue
        others = [t for m, p in enumerate(parts) if m != n for t in p.tokens]
        for spelling in part.term.spellings:
            groups.append([*others, _words(spelling)])
    return groups


# ---------------------------------------------------------------- the topic a question is left with

_SEPARATORS = frozenset(",;/")


def topic_of(text: str) -> str:
    """The topic left in a question: meta words dropped anywhere, filler words trimmed from both ends.

    Small words between content words stay ("mixture of experts", "learning to rank").
    """
    # list separators stay: "watermarking, unlearning or copyright" names three alternatives; an abbreviation
    # written with "&" or "/" is one word ("Q&A", "A/B testing": no article "A", no alternative "B testing")
    text = joined_abbreviations(text)
    words = [w for w in re.findall(r"[\w][\w\-\.+']*|[,;/]", text) if w.lower() not in META and not w.isdigit()]
    dropped = ""
    while words and (
        words[0].lower().strip("'") in FILLER
        or words[0] in _SEPARATORS
        or _asking_adverb(words)
        or _intensifier(dropped, words)
    ):
        if len(words) > 1 and _gerund(words[0]) and not _filler(words[1].lower()) and words[1] not in _SEPARATORS:
            break  # an activity naming what follows ("papers on reading comprehension"), not the request's words
        dropped = words.pop(0).lower()
    while words and (words[-1].lower().strip("'") in FILLER or words[-1] in _SEPARATORS):
        words.pop()
    return re.sub(r" ([,;])", r"\1", " ".join(words)).strip(" .?!")


# The quantifier the words "single" and "last" only stress in an idiom ("every single", "every last"; after "any", "all"
# or "each", "single" is the topic's own modifier: "any single image super-resolution papers"); the degree adverbs
# that only stress the request's own adjective ("very recent", "so many"): closed classes of English
_QUANTIFIERS = frozenset({"every"})
_STRESSING_QUANTIFIER = frozenset("single last".split())
_DEGREE = frozenset("very so too quite super".split())


def _intensifier(dropped: str, words: Sequence[str]) -> bool:
    """Whether the first of `words` only stresses the request's words around it: a quantifier's ("every single RL
    paper", `dropped` the word before) or, as a degree adverb, the filler word after it ("very recent papers")."""
    first = words[0].lower()
    if dropped in _QUANTIFIERS and first in _STRESSING_QUANTIFIER:
        return True
    return first in _DEGREE and len(words) > 1 and words[1].lower() in FILLER


def _asking_adverb(words: Sequence[str]) -> bool:
    """Whether the first of `words` is an adverb of manner ("-ly" after an English word) before a filler word: it
    says how the request is made ("briefly summarize", "quickly list"), not what it is about."""
    first = words[0].lower()
    if len(words) < 2 or not first.endswith("ly") or words[1].lower().strip("'") not in FILLER:
        return False
    return any(is_english_word(base) for base in (first[:-2], first[:-3] + "y", first[:-2] + "e"))


def expand_terms(topic: str) -> list[str]:
    """The topic's normalised phrases with each named term in its other spellings (for the query's vector)."""
    return [p for a in topic_alternatives(topic) for p in spellings_of(a.text)] or spellings_of(topic)


_EXAMPLES = re.compile(r"\s*(?:\blike\b|\bsuch as\b|\bincluding\b|\be\.?g\.?)\s*", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Alternative:
    """One of the topics a question accepts; `exact` when it is a class named before examples ("optimizers like
    ...", where "optimization" papers are not meant), so its words match only as written (plurals aside)."""

    text: str
    exact: bool = False
    example_of: str = ""  # the class this alternative is an example of ("optimizers" for "SGD")


def topic_alternatives(topic: str) -> list[Alternative]:
    """The topics a question accepts any of: "optimizers like SGD or Adam" -> optimizers (exact), SGD, Adam.

    "or", commas and example markers ("like", "such as", "e.g.") separate alternatives, and so does an "and" that
    joins two things (`conjuncts`: "theorem proving and autoformalization"); "and" after a lone word does not
    ("pruning and quantization": both). A topic without them is its own single alternative.
    """
    head, marker, examples = (topic, "", "")
    found = _EXAMPLES.search(topic)
    if found:
        head, marker, examples = topic[: found.start()], found.group(0), topic[found.end() :]
    parts = [Alternative(topic_of(p)) for p in restricted(head)]
    if marker and len(parts) == 1:
        parts = [Alternative(parts[0].text, exact=True)]
    context = parts[0].text if len(parts) == 1 else ""
    if marker:  # examples of examples ("X like neural operators like DeepONet") are further examples of X
        examples = _EXAMPLES.sub(", ", examples)
        # an example opening with a preposition says how or where the need is met ("..., with LLMs or over knowledge
        # graphs"), no thing of its own: read alone it would be any paper on LLMs
        pieces = coordinated(*_pieces(examples))
        kept = [p for p in pieces if not _OPENS_WITH_PREPOSITION.match(p)]
        parts += [Alternative(topic_of(p), example_of=context) for p in kept]
        heads = [p.text for p in parts if p.text]
        if len(heads) == 1 and pieces and not kept:
            return [Alternative(heads[0])]  # every example says how: the head is the topic, read as asked for
    unique = list(dict.fromkeys(p for p in parts if p.text))
    return unique if len(unique) > 1 else ([Alternative(topic)] if topic else [])


# the prepositions relating a topic's phrases (a closed class: "over", "via", "through" as "of" and "for" do)
_RELATING = r"(?:of|for|in|on|to|with|from|about|between|inside|across|over|via|through|under|within|into)"
_OPENS_WITH_PREPOSITION = re.compile(rf"^\W*(?:{_RELATING}|by|at|using)\s", re.IGNORECASE)
_LAST_PREPOSITION = re.compile(rf"^(.*\b{_RELATING}\s+)\S", re.IGNORECASE)
_PREPOSITION = re.compile(rf"\b{_RELATING}\b", re.IGNORECASE)
# the phrase after a conjunct's head that the conjuncts before it share ("... methods for continual learning"); not
# "of", which mostly joins one compound ("chain of thought", "mixture of experts")
_TRAILING_PHRASE = re.compile(
    r"\s(?:for|in|on|with|from|about|between|inside|across|over|via|through|under|within|into)\s.*$", re.IGNORECASE
)
COORDINATED_WORDS = 3  # an alternative this short after "X of A or B" is another A: "X of B"


def coordinated(pieces: Sequence[str], joins: Sequence[str] = (), *, acts: bool = False) -> list[str]:
    """Alternatives split at "or", "and", a slash or a comma (`joins`: the separator after each piece but the last,
    "," for a comma), read as the ellipsis English writes:

    - a short one following a phrase ending "X of A" is "X of B": "federated fine-tuning of LLMs or other foundation
      models" -> "... of LLMs", "... of other foundation models" (a piece with a preposition of its own, or a long
      one, stands alone);
    - a lone named term joined by "or", "and" or "/" to a longer conjunct starting with another shares that
      conjunct's head: "LLM or VLM safety" -> "LLM safety", "VLM safety"; so does a suspended hyphen ("diffusion- or
      flow-based policies" -> "diffusion-based policies", ...). A plain word may stand for the whole other conjunct
      ("coding / software engineering tasks", "medical / clinical AI") and stays as it is, so does a plural ("GNNs
      or graph transformers"), and the items of a comma list are whole unless they are all lone words; with `acts`
      (a question's topic, not its examples, which count beside their class already), a lone present participle
      before another and its short object acts on that object too: "detecting or tracing AI-generated content" ->
      "detecting AI-generated content", ..., not "detecting" anything;
    - a lone word joined so to the last conjunct shares its trailing phrase: "LoRA or adapter methods for continual
      learning" -> "LoRA for continual learning", ..."""
    joins = list(joins) or ["or"] * (len(pieces) - 1)
    lone = [len(_content_words(p)) == 1 for p in pieces]
    shared = list(pieces)
    for n in range(len(pieces) - 2, -1, -1):  # from the right: "image, video or audio generation"
        if joins[n] not in _LISTED or all(lone[: n + 1]):
            shared[n] = _with_shared_head(pieces[n], shared[n + 1], acts)
    out = list(shared)
    prefix = ""
    for n, piece in enumerate(shared):
        if n and joins[n - 1] == ";":
            prefix = ""  # a semicolon ends a list: "X of A; B" says nothing of X
        words = piece.split()
        if n and prefix and words and len(words) <= COORDINATED_WORDS and not _PREPOSITION.search(piece):
            out[n] = prefix + piece.strip()
            continue
        found = _LAST_PREPOSITION.match(piece.strip())
        prefix = found.group(1) if found else ""
    for n in range(1, len(pieces)):
        out[n] = _parallel(out[n - 1], out[n], joins[n - 1])
    trailing = _TRAILING_PHRASE.search(pieces[-1]) if pieces else None
    for n in range(len(pieces) - 2, -1, -1):
        if joins[n] in _LISTED or not trailing or _PREPOSITION.search(out[n]) or not _content_words(out[n]):
            break
        out[n] = out[n].rstrip() + trailing.group(0)
    return out


_WORD = re.compile(r"[\w][\w\-\.+']*")
_COMPARED = re.compile(r"(?:er|ers|est)$", re.IGNORECASE)


def _parallel(before: str, piece: str, join: str) -> str:
    """A lone word coordinated with the last word of the phrase before it, both with the ending of a comparison or
    an agent ("making chain-of-thought shorter or cheaper", "transformer encoders or decoders"), replaces that word:
    English leaves out the words they share ("making chain-of-thought cheaper"); else `piece` unchanged."""
    words, lone = before.split(), _content_words(piece)
    if join in _LISTED or len(lone) != 1 or len(_content_words(before)) < 2 or not words:
        return piece
    last, word = words[-1].lower(), lone[0].lower()
    if not (_COMPARED.search(last) and _COMPARED.search(word)) or _PREPOSITION.search(piece):
        return piece
    return " ".join([*words[:-1], piece.strip()])


def _content_words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text) if w.lower().strip("-") not in FILLER and w.lower() not in META]


def _plural(word: str) -> bool:
    return len(word) > 3 and word.endswith("s") and not word.lower().endswith(("ss", "is", "us"))


def _with_shared_head(piece: str, following: str, acts: bool = False) -> str:
    """`piece` with the head of the conjunct after it when `piece` ends in a lone singular modifier of the sort of
    that conjunct's first word (see `coordinated`); else `piece` unchanged."""
    found = _LAST_PREPOSITION.match(piece.strip())
    last = piece.strip()[len(found.group(1)) :] if found else piece
    lone = _content_words(last)
    if len(lone) != 1 or _plural(lone[0].rstrip("-")) or len(_content_words(following)) < 2:
        return piece
    first = _WORD.search(following)
    assert first is not None  # it holds content words
    tail = following[first.end() :].rstrip()
    if piece.rstrip().endswith("-"):  # "diffusion-" of "diffusion- or flow-based": the suffix is shared too
        suffix = first.group(0).partition("-")[2]
        return f"{piece.rstrip()}{suffix}{tail}" if suffix else piece
    kind = is_term_spelling(lone[0]) and is_term_spelling(first.group(0))
    if not (kind or (acts and _acts_on(lone[0], first.group(0), tail))):
        # "coding / software engineering tasks", "medical / clinical AI", "LoRA / parameter-efficient fine-tuning":
        # a plain word may stand for the whole other conjunct as well as for its first word; only two named terms
        # side by side, or two acts on one short object, are surely two of one kind
        return piece
    return f"{piece.rstrip()}{tail}"


def _acts_on(word: str, verb: str, obj: str) -> bool:
    """Two present participles before one short object ("detecting or tracing AI-generated content"): two acts on
    it, each meant with it ("detecting AI-generated content"), not the first act on anything. A longer object, or one
    with a preposition of its own, may say more than the first act needs ("compressing / shortening the chain of
    thought without losing accuracy"), so the lone word stays as typed."""
    words = obj.split()
    return (
        all(w.lower().endswith("ing") and len(w) > 5 for w in (word, verb))
        and 0 < len(words) <= COORDINATED_WORDS - 1
        and not _PREPOSITION.search(obj)
        and not any(w.lower() in ("the", "a", "an") for w in words)
    )


# A relative clause restricts the noun before it ("agents that self-correct", "models which reason"); so do two
# participles joined as one kind right after it ("LLMs correcting or reflecting on ..."), a reduced relative clause.
# Not a "that" after a verb ("showing that ...", "claimed that ..."): that one opens what is said.
_RELATIVE = re.compile(
    r"^(?P<head>.*?[\w)])\s+(?:(?:that|which|who|whom)\s+(?P<clause>\S.*)|(?P<acts>[a-z][\w\-]{2,}ing\s*(?:\bor\b|/)\s*"
    r"[a-z][\w\-]{2,}ing\b.*))$",
    re.IGNORECASE,
)
_VERB_FORM = re.compile(r"(?:ing|ed)$", re.IGNORECASE)
# What a clause's verb does to something of its subject's own ("reflect on their mistakes", "check its reasoning") is
# a reflexive act, which papers name by the act ("self-reflection", "reflective"), seldom by the thing acted on.
_POSSESSED = re.compile(r"(?:\s+\w+)?\s+\b(?:their|its|his|her|our|your|my)\b.*$", re.IGNORECASE)


def restricted(text: str) -> list[str]:
    """The alternatives of a topic read by role: a noun phrase restricted by a relative clause ("LLMs or agents that
    self-correct / reflect on their mistakes") is each alternative of the head with each of the clause's verb
    phrases ("agents self-correct", "LLMs reflect": what a verb does to the subject's own is left out); an "or" or
    slash joins items of one kind, nouns in the head, verb phrases in the clause; without a clause, `coordinated`
    over the whole."""
    clause = _clause(text)
    if clause is None:
        return coordinated(*_pieces(text), acts=True)
    heads, acts = clause
    acts = [_POSSESSED.sub("", a) for a in acts]
    return [f"{h.strip()} {a.strip()}" for h in heads for a in acts if _content_words(a)] or heads


def _clause(text: str) -> tuple[list[str], list[str]] | None:
    """The alternatives of the head a relative clause restricts and the clause's verb phrases, as typed (see
    `restricted`); None when `text` holds no such clause."""
    found = _RELATIVE.match(_OWN.sub(r"\1", text.strip()))
    head = found.group("head") if found else ""
    words = _WORD.findall(head)
    if not found or not _content_words(head) or words[-1].lower() in FILLER or _VERB_FORM.search(words[-1]):
        return None
    if found.group("acts") and not _plural(words[-1]):
        return None  # a plural noun's only: "machine learning or reasoning" is a compound, no clause
    clause = found.group("clause") or found.group("acts")
    return coordinated(*_pieces(head), acts=True), _verb_phrases(*_pieces(clause), shared=bool(found.group("acts")))


def loose_alternatives(topic: str) -> list[Alternative]:
    """The pieces of a topic with a relative clause as typed, beside its reading by role (`topic_alternatives`):
    each piece the separators leave ("LLMs or agents that self-correct / reflect on their mistakes" -> "reflect on
    their mistakes", ...) and each of the clause's verb phrases without its head ("self-correct"). The reading by role
    says what an answer shows first; a paper carrying only one of these pieces still carries the question's words,
    so it is listed after the others (recall first: precision comes from the order, not from dropping it). Empty
    when no clause restricts the topic's head."""
    head = topic
    found = _EXAMPLES.search(topic)
    if found:
        head = topic[: found.start()]
    clause = _clause(head)
    if clause is None:
        return []
    by_role = {a.text for a in topic_alternatives(topic)}
    pieces = [Alternative(topic_of(p)) for p in [*coordinated(*_pieces(head), acts=True), *clause[1]]]
    return list(dict.fromkeys(p for p in pieces if p.text and p.text not in by_role and _content_words(p.text)))


def _verb_phrases(pieces: Sequence[str], joins: Sequence[str], *, shared: bool = False) -> list[str]:
    """A relative clause's alternatives: each piece is a verb phrase, and a lone verb before one with a short object
    acts on that object too ("check or correct their reasoning" -> "check their reasoning", "detect or localize
    objects in images" -> "detect objects in images"); a verb's prepositional phrase is its own ("self-correct /
    reflect on mistakes": "self-correct" alone), except between two participles right after their noun (`shared`),
    which share what follows the second ("LLMs reasoning or planning over long horizons")."""
    out = list(pieces)
    for n in range(len(pieces) - 2, -1, -1):
        if joins[n] in _LISTED or len(_content_words(pieces[n])) != 1:
            continue
        first = _WORD.search(out[n + 1])
        obj = out[n + 1][first.end() :].strip() if first else ""
        short = len(_content_words(obj)) <= COORDINATED_WORDS - 1 and not _PREPOSITION.match(obj)
        if obj and (shared or short):
            out[n] = f"{pieces[n].strip()} {obj}"
    return out


_LISTED = (",", ";")  # the separators of a list (a semicolon between lists, `bot.questions.request.as_examples`)
# an "or" / "and" inside a hyphenated word joins nothing ("vision-and-language navigation", "plug-and-play")
_SEPARATOR = re.compile(r"\s*(,|;|/|(?<![\w-])or(?![\w-]))\s*", re.IGNORECASE)
_AND = re.compile(r"\s*(?:(?<![\w-])and(?![\w-])|&)\s*", re.IGNORECASE)
# a conjunct that refers back to the other ("... and how to reduce it") is part of it, no thing of its own
_REFERS_BACK = frozenset("it its itself them they their this these those how why what which whether".split())


def _pieces(text: str) -> tuple[list[str], list[str]]:
    """`text` split at its list separators and "or", then each piece at the "and"s joining things (`conjuncts`);
    and the separator after each piece ("," for a comma, ";" for a semicolon, else "or")."""
    split = _SEPARATOR.split(text)
    pieces: list[str] = []
    joins: list[str] = []
    for n in range(0, len(split), 2):
        parts = conjuncts(split[n])
        pieces += parts
        joins += ["or"] * (len(parts) - 1)
        if n + 1 < len(split):
            joins.append(split[n + 1] if split[n + 1] in _LISTED else "or")
    return pieces, joins


def conjuncts(piece: str) -> list[str]:
    """The things an "and" joins, each its own alternative ("LLM theorem proving and autoformalization"): a question
    naming two things asks for papers on either. Kept whole: a lone word first ("pruning and quantization", "safety
    and alignment": one topic needing both, or one concept; "weather and climate forecasting": a shared head), a named
    term written across the "and" ("vision and language
    models" is the vision-language model), a conjunct referring back to the other ("... and how to reduce it"), and
    an "and" with no content on one side ("and the like")."""
    parts = _AND.split(piece)
    if len(parts) < 2:
        return [piece]
    words = [_content_words(p) for p in parts]
    if any(not w for w in words) or any(w.lower() in _REFERS_BACK for p in parts for w in _WORD.findall(p)):
        return [piece]
    table = _TERMS.get()
    for left, right in itertools.pairwise(parts):
        before = text_tokens(left)
        tokens = [*before, *text_tokens(right)]
        for start in range(len(before)):
            spelled = table.find(tokens, start)
            if spelled is not None and start + spelled[1] > len(before):
                return [piece]
    if len(words[0]) == 1:
        # a lone word before a plain phrase modifies its head as the phrase's own modifier does ("multilingual and
        # low-resource language NLP", "weather and climate forecasting"): either, and the lone word may stand for
        # the whole as a plain word does with "or" (papers say "multilingual", not "multilingual NLP"); two lone
        # words ("pruning and quantization") or a phrase with a preposition ("... of LLMs") stay one topic
        plain = len(parts) == 2 and len(words[1]) >= 2 and not _PREPOSITION.search(parts[1])
        return parts if plain else [piece]
    return parts
