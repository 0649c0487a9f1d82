"""Questions answered from the stored papers: question -> filters -> retrieve -> answer with citations.

Filters come from the question itself (time words, "by <author>", arXiv categories, and the topic that is left).
Retrieval is hybrid: dense similarity in Chroma and BM25 in SQLite, restricted to the window, then every
candidate is scored by one formula (dense similarity plus lexical evidence) and cut where relevance drops.
Only papers inside the window can be cited. The answer is extractive (the matching papers and their TL;DRs)
unless an LLM is configured, in which case `bot.questions.answer` writes a short answer citing [n].
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace

import numpy as np

from bot.core import Core
from bot.llm.usage import run_usage, usage_run
from bot.models import Paper, Profile
from bot.questions.answer import write_answer
from bot.questions.asked_authors import find_named_authors
from bot.questions.authors import same_person
from bot.questions.coverage import vector_gap_note
from bot.questions.llm_parse import parse_with_llm
from bot.questions.request import beyond, introduces_benchmark, read_request
from bot.questions.spelling import corrected
from bot.questions.timewords import MONTHS, WEEKDAYS, TimeWindow, find_time_window
from bot.questions.topics import (
    COVERED,
    FILLER,
    META,
    QuestionTopic,
    anchored,
    evidence,
    full_text_groups,
    is_term_spelling,
    spellings_of,
)
from bot.ranking.rank import rank_for_profile
from bot.text.tldr import shown_tldrs

MAX_QUESTION = 1000
NOTHING_ASKED = (
    "I found nothing to search for in that. Ask about a topic or an author, for example "
    "'MoE papers this week' or 'what did Lenka Zdeborová post since Monday?'."
)
MAX_CITATIONS = 15
MAX_MORE = 100  # further matching papers an answer offers with /more
POOL = 120  # candidates taken from the dense list
LEXICAL_POOL = 400  # and from the lexical one: every paper carrying the topic's words is a candidate (recall first)

# Relevance = cosine(question topic, paper) + lexical evidence. A topic phrase in the title is the strongest
# sign a paper is about it; in the abstract it is weaker (often a passing mention).
TITLE_BONUS = 0.15
ABSTRACT_BONUS = 0.06
PROFILE_WEIGHT = 0.10
NAME_IN_TITLE = 0.5  # a method or model name typed as written, found in the title
NAME_IN_ABSTRACT = 0.2
# A paper is cited when its relevance is within MARGIN of the best one and above FLOOR.
MARGIN = 0.16
FLOOR = 0.30
SPREAD = 0.2  # a paper an answer shows first is at most this far below the best one (the rest are offered)
ENOUGH_EVIDENCED = 3  # with this many papers carrying the topic's words, only very close others join them
CONTRIBUTION_NEAR = 0.35  # among papers introducing a benchmark, the similarity at which one is offered
NEAR = 0.45  # similarity at which a paper is offered with the rest even without the topic's words

_SEPARATORS = frozenset(",;/")
_CALENDAR_WORDS = frozenset(WEEKDAYS) | frozenset(MONTHS)
_FOLLOW_UP_REF = re.compile(
    r"\b(those|these|them|of the above|among them|that list|the ones|ones|which of|any of)\b|^\W*(?:and\s+)?only\b",
    re.IGNORECASE,
)
_CATEGORY = re.compile(
    r"\b(cs|stat|math|eess|econ|q-bio|q-fin|physics|astro-ph|cond-mat|nlin|hep-[a-z]{2}|nucl-[a-z]{2}|quant-ph|gr-qc)"
    r"\.([A-Za-z][A-Za-z\-]{1,12})\b",
    re.IGNORECASE,
)
_UPPER_SUFFIX = {"cs", "stat", "math", "eess", "econ", "q-bio", "q-fin"}
_BY_AUTHOR = re.compile(r"\b(?:by|from|authored by|written by)\s+((?:[A-Z][\w'\-\.]*\s*){1,4})")


@dataclass(frozen=True, slots=True)
class Filters:
    """What a question asks for, after parsing."""

    topic: str
    window: TimeWindow | None = None
    authors: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    restrict_to: tuple[str, ...] = ()  # a follow-up about "those" papers
    excluded: tuple[str, ...] = ()  # topics the papers must not be about ("not about LLMs")
    contribution: str = ""  # "benchmark": the papers must introduce a benchmark or data set
    narrows: bool = False  # a follow-up whose topic is a condition on the previous papers ("which of those are X")


@dataclass(frozen=True, slots=True)
class Retrieved:
    """A candidate paper with its relevance and the evidence behind it."""

    paper: Paper
    relevance: float
    dense: float
    in_title: bool
    in_abstract: bool
    embedded: bool = True  # False: found by its words while its vector is missing (the store missing or rebuilt)


@dataclass(frozen=True, slots=True)
class Answer:
    """The reply to a question: text citing [n], the cited papers in [n] order, and the window searched."""

    text: str
    citations: tuple[Paper, ...]
    window: tuple[dt.date, dt.date]
    filters: Filters
    usage: dict[str, float] = field(default_factory=dict)
    more: tuple[Paper, ...] = ()  # further matching papers the answer offers (/more), best first

    def to_dict(self) -> dict[str, object]:
        """The JSON shape printed by `paperscout ask --json`."""
        return {
            "answer": self.text,
            "citations": [{"id": p.id, "title": p.title, "url": p.url} for p in self.citations],
            "more": [{"id": p.id, "title": p.title, "url": p.url} for p in self.more],
            "window": [self.window[0].isoformat(), self.window[1].isoformat()],
        }


@dataclass
class Turn:
    """The state a follow-up question can refer to."""

    topic: str
    window: tuple[str, str] | None
    authors: list[str]
    categories: list[str]
    paper_ids: list[str]
    more_ids: list[str] = field(default_factory=list)  # matching papers not shown yet, for /more

    def to_json(self) -> str:
        """Serialise for the conversations table."""
        return json.dumps(asdict(self))

    @staticmethod
    def from_json(text: str) -> Turn:
        """Parse a stored turn."""
        data = json.loads(text)
        window = tuple(data["window"]) if data.get("window") else None
        return Turn(
            data["topic"],
            window,  # type: ignore[arg-type]
            data["authors"],
            data["categories"],
            data["paper_ids"],
            data.get("more_ids", []),
        )


# ---------------------------------------------------------------- parsing

_TERM = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-]*")


def query_terms(query: str) -> list[str]:
    """Content words of a query for full-text matching (stopwords dropped, order kept, no duplicates)."""
    seen: dict[str, None] = {}
    for term in _TERM.findall(query[:MAX_QUESTION]):
        lowered = term.lower()
        if lowered not in FILLER and len(lowered) > 1:
            seen.setdefault(lowered, None)
    return list(seen)


def normalise_category(prefix: str, suffix: str) -> str:
    """'cs.lg' -> 'cs.LG', 'physics.comp-ph' stays lower case."""
    prefix = prefix.lower()
    return f"{prefix}.{suffix.upper() if prefix in _UPPER_SUFFIX else suffix.lower()}"


def expand_terms(topic: str) -> list[str]:
    """The topic's normalised phrases with each named term in its other spellings (for the query's vector)."""
    return [p for a in topic_alternatives(topic) for p in spellings_of(a.text)] or spellings_of(topic)


def strip_phrases(question: str, phrases: Sequence[str]) -> str:
    """Remove each phrase once (case-insensitive) from the question."""
    for phrase in phrases:
        if phrase:
            question = re.sub(re.escape(phrase), " ", question, count=1, flags=re.IGNORECASE)
    return question


def topic_of(text: str) -> str:
    """The topic left in a question: meta words dropped anywhere, filler words trimmed from both ends.

    Small words between content words stay ("mixture of experts", "learning to rank").
    """
    # list separators stay: "watermarking, unlearning or copyright" names three alternatives
    words = [w for w in re.findall(r"[\w][\w\-\.+']*|[,;/]", text) if w.lower() not in META and not w.isdigit()]
    while words and (words[0].lower().strip("'") in FILLER or words[0] in _SEPARATORS):
        words.pop(0)
    while words and (words[-1].lower().strip("'") in FILLER or words[-1] in _SEPARATORS):
        words.pop()
    return re.sub(r" ([,;])", r"\1", " ".join(words)).strip(" .?!")


def has_words(question: str) -> bool:
    """True when the question holds at least one letter or digit (not only emoji or punctuation)."""
    return any(c.isalnum() for c in question)


def parse_question(
    question: str, today: dt.date, previous: Turn | None = None, *, authors: tuple[str, ...] | None = None
) -> Filters:
    """Split a question into time window, authors, categories, the topic, and a follow-up restriction.

    `authors`, when given, are the authors already found in the question (their names removed from it), so
    "by <Name>" is not looked for again and a question naming only authors is not a follow-up.
    """
    question = question.strip()[:MAX_QUESTION]
    window = find_time_window(question, today)
    removed: list[str] = [window.phrase] if window else []
    categories = tuple(dict.fromkeys(normalise_category(m.group(1), m.group(2)) for m in _CATEGORY.finditer(question)))
    removed += [m.group(0) for m in _CATEGORY.finditer(question)]
    # looked for after the time words are gone, so "from May 1 to May 5" or "from Monday" is not an author
    by = _BY_AUTHOR.search(strip_phrases(question, removed)) if authors is None else None
    authors = authors or ()
    if by and by.group(1).split()[0].lower().rstrip(".") not in _CALENDAR_WORDS:
        name = by.group(1).strip().rstrip(".")
        authors = (name,)
        removed.append(by.group(0))
    rest = strip_phrases(question, removed)
    if window:  # the time phrase was matched in lower case; drop leftover joiners such as "since"
        rest = re.sub(r"\b(since|from|in|on|during|between)\s*$", " ", rest.strip(" ?!."), flags=re.IGNORECASE)
    request = read_request(rest)
    topic = topic_of(request.text)
    contribution = request.contribution
    if contribution and not topic and previous is None:
        topic, contribution = topic_of(rest), ""  # "benchmarks?" alone: the topic is benchmarks
    restrict: tuple[str, ...] = ()
    narrows = False
    if previous is not None and has_words(question):
        refers_back = bool(_FOLLOW_UP_REF.search(question))
        # "and from last week?" has no topic of its own and continues the previous one
        continues = refers_back or (not topic and not authors and not categories and not contribution)
        if refers_back:
            restrict = tuple(dict.fromkeys([*previous.paper_ids, *previous.more_ids]))
            narrows = bool(topic)
        if continues and not topic:
            topic = previous.topic
        if continues and window is None and previous.window:
            start, end = (dt.date.fromisoformat(d) for d in previous.window)
            window = TimeWindow(start, end, "as before")
        if continues and not refers_back:
            authors = authors or tuple(previous.authors)
            categories = categories or tuple(previous.categories)
    return Filters(
        topic=topic,
        window=window,
        authors=authors,
        categories=categories,
        restrict_to=restrict,
        excluded=tuple(e for e in (beyond(topic, topic_of(x)) for x in request.excluded) if e),
        contribution=contribution,
        narrows=narrows,
    )


_NOT_NAMES = FILLER | META


async def understand(core: Core, question: str, today: dt.date, previous: Turn | None = None) -> Filters:
    """`parse_question` with the authors a question names found in the stored archive first (typos, initials,
    "X et al.", "X's", "by X and Y" included), so their names never become topic."""
    question = question.strip()[:MAX_QUESTION]
    window = find_time_window(question, today)
    start, end = (window.start, window.end) if window else (None, None)
    named = await find_named_authors(core, question, start, end, _NOT_NAMES)
    if not named.authors:
        return parse_question(question, today, previous)
    return parse_question(named.rest, today, previous, authors=named.authors)


# ---------------------------------------------------------------- retrieval


_ALTERNATIVE = re.compile(r"\s*(?:,|;|/|\bor\b)\s*", re.IGNORECASE)
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

    "or", commas and example markers ("like", "such as", "e.g.") separate alternatives; "and" does not (a paper
    on "pruning and quantization" should be about both). A topic without them is its own single alternative.
    """
    head, marker, examples = (topic, "", "")
    found = _EXAMPLES.search(topic)
    if found:
        head, marker, examples = topic[: found.start()], found.group(0), topic[found.end() :]
    parts = [Alternative(topic_of(p)) for p in coordinated(_ALTERNATIVE.split(head))]
    if marker and len(parts) == 1:
        parts = [Alternative(parts[0].text, exact=True)]
    context = parts[0].text if len(parts) == 1 else ""
    if marker:
        parts += [Alternative(topic_of(p), example_of=context) for p in coordinated(_ALTERNATIVE.split(examples))]
    unique = list(dict.fromkeys(p for p in parts if p.text))
    return unique if len(unique) > 1 else ([Alternative(topic)] if topic else [])


_LAST_PREPOSITION = re.compile(r"^(.*\b(?:of|for|in|on|to|with|from|about|between|inside|across)\s+)\S", re.IGNORECASE)
_PREPOSITION = re.compile(r"\b(?:of|for|in|on|to|with|from|about|between|inside|across)\b", re.IGNORECASE)
COORDINATED_WORDS = 3  # an alternative this short after "X of A or B" is another A: "X of B"


def coordinated(pieces: Sequence[str]) -> list[str]:
    """Alternatives split at "or" or a slash, each short one that follows a phrase ending "X of A" read as "X of B":
    "federated fine-tuning of LLMs or other foundation models" -> "... of LLMs", "... of other foundation models";
    "reasoning in multimodal / vision-language models" -> "reasoning in multimodal", "reasoning in vision-language
    models". A piece with a preposition of its own, or a long one, stands alone."""
    out = list(pieces)
    prefix = ""
    for n, piece in enumerate(pieces):
        words = piece.split()
        if n and prefix and words and len(words) <= COORDINATED_WORDS and not _PREPOSITION.search(piece):
            out[n] = prefix + piece.strip()
            continue
        found = _LAST_PREPOSITION.match(piece.strip())
        prefix = found.group(1) if found else ""
    return out


async def topic_evidence(core: Core, topic: str) -> QuestionTopic:
    """Each alternative's units weighted by rarity in the archive (see `bot.questions.topics`)."""
    alternatives = topic_alternatives(topic)
    found = [await evidence(core, a.text, a.exact) for a in alternatives]
    if alternatives and alternatives[0].exact:  # "X like A, B": A and B are read as examples of X
        pairs = zip(alternatives[1:], found[1:], strict=True)
        found = [found[0], *(anchored(e, found[0]) if a.example_of else e for a, e in pairs)]
    return QuestionTopic(tuple(found))


def lexical_groups(topic: str) -> list[list[str]]:
    """Full-text alternatives for a topic: each alternative's content words, with named terms spelled any way."""
    return [g for a in topic_alternatives(topic) for g in full_text_groups(a.text)]


async def _candidates(core: Core, filters: Filters, query_vector: np.ndarray | None) -> list[Paper]:
    start = filters.window.start if filters.window else None
    end = filters.window.end if filters.window else None
    if filters.restrict_to:
        papers = await core.repo.get_papers(list(filters.restrict_to))
    elif filters.authors:
        papers = []
        for n, author in enumerate(filters.authors):  # "by X and Y": the papers they wrote together
            tokens = [t for t in re.findall(r"[\w\-']+", author) if len(t) > 1]
            theirs = await core.repo.papers_by_author(tokens, start, end)
            theirs = [p for p in theirs if any(same_person(author, name) for name in p.authors)]
            ids = {p.id for p in theirs}
            papers = theirs if n == 0 else [p for p in papers if p.id in ids]
    elif filters.contribution and start and end:
        # "new benchmarks for X": every paper of the window that introduces one is a candidate, ranked by the topic
        papers = [p for p in await core.repo.papers_between(start, end) if introduces_benchmark(p.title, p.abstract)]
    else:
        assert query_vector is not None, "a topic search needs the topic's vector"
        dense, lexical = await asyncio.gather(
            core.vectors.search_window(query_vector, POOL, start, end, filters.categories),
            core.repo.lexical_search(lexical_groups(filters.topic), start, end, LEXICAL_POOL),
        )
        ids = list(dict.fromkeys([i for i, _ in dense] + [i for i, _ in lexical]))
        papers = await core.repo.get_papers(ids)
    if filters.window:
        papers = [p for p in papers if filters.window.contains(p.announced)]
    if filters.categories:
        wanted = set(filters.categories)
        papers = [p for p in papers if wanted.intersection(p.categories)]
    return papers


_NAME = re.compile(r"(?<![\w-])(?=[\w-]*(?:[A-Z][\w-]*[A-Z]|[A-Za-z][\w-]*\d|\d[\w-]*[A-Za-z]))[A-Za-z0-9][\w-]*")


def exact_names(topic: str) -> list[re.Pattern[str]]:
    """Patterns for the names in a topic typed as a method or model is named ("YAQA", "R2R", "DeepONet",
    "SWE-bench", "Trinity-RFT"), matched case-sensitively as whole words; a named term of the topic vocabulary
    ("LLM", "MoE") is a topic, not a name."""
    found = []
    for match in _NAME.finditer(topic):
        name = match.group(0).strip("-")
        if len(name) < 3 or is_term_spelling(name) or name.isdigit():
            continue
        found.append(re.compile(rf"(?<![\w-]){re.escape(name)}(?:s|es)?(?![\w])"))
    return found


def _searches_window_index(filters: Filters) -> bool:
    """Whether the candidates come from the in-memory window index (a topic search with a window or categories)."""
    return not filters.restrict_to and not filters.authors and bool(filters.window or filters.categories)


async def _open_vectors(core: Core, filters: Filters) -> None:
    """Open what the candidate search reads: the window's part of the window index for a windowed topic search
    (all of it for categories alone), else the collection."""
    if _searches_window_index(filters):
        window = filters.window
        await core.vectors.window_index(window.start if window else None, window.end if window else None)
    else:
        await core.vectors.collection()


async def _window_holds_papers(core: Core, window: TimeWindow | None) -> bool:
    """Whether any paper is stored inside `window` (anywhere, without one)."""
    latest = await core.repo.latest_day(until=window.end if window else None)
    return latest is not None and (window is None or latest >= window.start)


async def ranked(
    core: Core, filters: Filters, *, profile: Profile | None = None
) -> tuple[list[Retrieved], QuestionTopic | None]:
    """Every candidate that answers `filters` (exclusions, a contribution type and a window applied), most relevant
    first, with the topic's evidence the ranking used."""
    if not filters.topic and not filters.authors and not filters.restrict_to:
        return [], None
    if not filters.restrict_to and not await _window_holds_papers(core, filters.window):
        return [], None  # before the topic's vector: nothing to find needs no embedding model (seconds to load)
    query_vector = None  # an author alone: their papers newest first (or by profile); a name's vector says nothing
    if filters.topic:
        query_text = " ".join(expand_terms(filters.topic)) or filters.topic
        # cold, the model (torch) and the vector store (Chroma) each take a second or more to load: both at once
        embedded, _ = await asyncio.gather(
            asyncio.to_thread(core.embedder.embed, [query_text]), _open_vectors(core, filters)
        )
        query_vector = embedded[0]
    papers = await _candidates(core, filters, query_vector)
    papers = await _without_excluded(core, filters, papers)
    if filters.contribution:
        papers = [p for p in papers if introduces_benchmark(p.title, p.abstract)]
    # With a window the vectors come from the index the dense search read, one snapshot: asked again after another
    # process wrote, Chroma's metadata is ahead of the vectors this process loaded and it fails with "Error finding id"
    ids = [p.id for p in papers]
    if _searches_window_index(filters):
        found = await core.vectors.window_vectors(ids)
    else:
        found = await core.vectors.found_vectors(ids)
    # a paper found by its words may not be embedded yet (asked while an ingest runs): it waits for its vector. When
    # not one candidate has a vector, the store is missing or being rebuilt: the words alone rank them (a zero
    # vector leaves the topic evidence), and the answer says so (vector_gap_note)
    if found:
        papers = [p for p in papers if p.id in found]
    if not papers:
        return [], None
    dimensions = query_vector.shape[0] if query_vector is not None else 1
    vectors = np.stack([found.get(p.id, np.zeros(dimensions, dtype=np.float32)) for p in papers])
    dense = vectors @ query_vector if query_vector is not None else np.zeros(len(papers), dtype=np.float32)
    topic_words = await topic_evidence(core, filters.topic) if filters.topic else None
    if topic_words is not None and filters.narrows:
        topic_words = topic_words.discriminating([f"{p.title}\n{p.abstract}" for p in papers])
    relevance = dense.astype(np.float64).copy()
    evidence = []
    names = exact_names(filters.topic)
    for i, paper in enumerate(papers):
        title = topic_words.coverage(paper.title, paper.abstract) if topic_words else 0.0
        abstract = topic_words.coverage(paper.abstract) if topic_words else 0.0
        relevance[i] += TITLE_BONUS * title + ABSTRACT_BONUS * abstract
        named_in_title = any(n.search(paper.title) for n in names)
        named_in_abstract = named_in_title or any(n.search(paper.abstract) for n in names)
        # a name typed as the paper writes it ("YAQA", "R2R", "DeepONet") is the strongest sign there is
        relevance[i] += NAME_IN_TITLE * named_in_title + NAME_IN_ABSTRACT * named_in_abstract
        evidence.append((title >= COVERED or named_in_title, abstract >= COVERED or named_in_abstract))
    if profile is not None:
        from bot.digests.build import profile_model

        ranking = rank_for_profile(papers, vectors, await profile_model(core, profile), len(papers))
        by_id = {r.paper.id: r.score for r in ranking}
        profile_scores = np.asarray([by_id[p.id] for p in papers])
        spread = np.ptp(profile_scores) or 1.0
        relevance += PROFILE_WEIGHT * (profile_scores - profile_scores.min()) / spread
    order = np.argsort(-relevance, kind="stable")
    results = [
        Retrieved(papers[i], float(relevance[i]), float(dense[i]), *evidence[i], embedded=papers[i].id in found)
        for i in order
    ]
    return results, topic_words


async def _without_excluded(core: Core, filters: Filters, papers: list[Paper]) -> list[Paper]:
    """The papers about none of the question's exclusions (by title, or by their abstract as a whole)."""
    if not filters.excluded:
        return papers
    excluded = [await topic_evidence(core, topic) for topic in filters.excluded]
    return [
        p
        for p in papers
        if not any(e.coverage(p.title, p.abstract) >= COVERED or e.coverage(p.abstract) >= COVERED for e in excluded)
    ]


def select(results: list[Retrieved], filters: Filters, spread: float = 0.0) -> tuple[list[Retrieved], list[Retrieved]]:
    """The papers an answer shows first (about the topic by title, by abstract when close enough, or close to the
    best) and the other papers that still carry the topic in title or abstract (offered, never dropped)."""
    if not results:
        return [], []
    if filters.authors and not filters.topic:
        return results, []
    if filters.restrict_to and not filters.narrows:
        return results, []  # "only the ones from Thursday": the previous papers inside the new window
    best = results[0].relevance
    if filters.restrict_to:
        # "which of those is about X": the papers that name X, or failing that the closest few
        named = [r for r in results if r.in_title or r.in_abstract]
        return (named or results[:3]), []
    # the first page: papers carrying the topic's words and not far below the best (the others are offered)
    evidenced = [r for r in results if r.in_title or (r.in_abstract and r.dense >= FLOOR)]
    if spread:
        evidenced = [r for r in evidenced if r.relevance >= best - spread]
    # papers that carry the topic's words come first; a paper only similar in meaning joins them when few do
    close = best - (MARGIN if len(evidenced) < ENOUGH_EVIDENCED else MARGIN / 2)
    shown = [r for r in results if r in evidenced or r.relevance >= max(FLOOR, close)]
    taken = {r.paper.id for r in shown}
    near = CONTRIBUTION_NEAR if filters.contribution else NEAR
    carrying = [r for r in results if r.paper.id not in taken and (r.in_title or r.in_abstract or r.dense >= near)]
    return shown, carrying


async def retrieve(
    core: Core, filters: Filters, *, profile: Profile | None = None, limit: int = MAX_CITATIONS, cut: bool = True
) -> list[Retrieved]:
    """The papers that answer `filters`, most relevant first, cut where relevance drops off (unless not `cut`): the
    ones an answer shows first, then the ones it offers (a search's list holds both, up to `limit`)."""
    results, _ = await ranked(core, filters, profile=profile)
    if not cut:
        return results[:limit]
    shown, carrying = select(results, filters)
    return [*shown, *(r for r in carrying if r.in_title or r.in_abstract)][:limit]


async def retrieve_all(
    core: Core, filters: Filters, *, profile: Profile | None = None, limit: int = MAX_CITATIONS
) -> tuple[list[Retrieved], list[Retrieved]]:
    """The papers to show (at most `limit`) and the rest of the matching ones to offer (at most MAX_MORE)."""
    results, _ = await ranked(core, filters, profile=profile)
    shown, carrying = select(results, filters, SPREAD)
    return shown[:limit], [*shown[limit:], *carrying][:MAX_MORE]


# ---------------------------------------------------------------- answering


def describe_window(window: tuple[dt.date, dt.date]) -> str:
    """'on 2025-05-28' or 'from 2025-05-26 to 2025-05-30'."""
    start, end = window
    return f"on {start}" if start == end else f"from {start} to {end}"


def subject_of(filters: Filters) -> str:
    """How the answer names what was asked: 'about MoE', 'by Lenka Zdeborová', 'about MoE by ...'."""
    parts = ["introducing a benchmark or data set"] if filters.contribution else []
    if filters.topic:
        parts.append(f"about {filters.topic}")
    if filters.excluded:
        parts.append("and not about " + " or ".join(filters.excluded))
    if filters.authors:
        parts.append("by " + ", ".join(filters.authors))
    if filters.categories:
        parts.append("in " + ", ".join(filters.categories))
    return " ".join(parts) or "matching that"


def more_offer(count: int) -> str:
    """The line offering the matching papers an answer did not show."""
    noun = "paper matches" if count == 1 else "papers match"
    return f"{count} more {noun} (the topic is in their title or abstract): /more lists them."


def extractive_answer(
    filters: Filters,
    papers: Sequence[Paper],
    tldrs: dict[str, str],
    window: tuple[dt.date, dt.date],
    *,
    more: int = 0,
) -> str:
    """An answer without an LLM: the matching papers, numbered for citation, each with its TL;DR (and its day when
    the window holds several), then how many more match."""
    subject = subject_of(filters)
    if not papers:
        hint = "Try a wider window (for example 'this month' or 'in 2025') or other words."
        return f"No stored papers {subject} announced {describe_window(window)}. {hint}"
    total = len(papers) + more
    noun = "paper" if total == 1 else "papers"
    shown = f", the best {len(papers)} first" if more else ""
    lines = [f"{total} {noun} {subject} announced {describe_window(window)}{shown}:"]
    several_days = window[0] != window[1]
    for n, paper in enumerate(papers, 1):
        tldr = tldrs.get(paper.id, "")
        day = f" ({paper.announced.isoformat()})" if several_days else ""
        lines.append(f"[{n}] {paper.title}{day}" + (f" — {tldr}" if tldr else ""))
    if more:
        lines.append(more_offer(more))
    return "\n".join(lines)


async def effective_window(core: Core, filters: Filters, today: dt.date) -> tuple[dt.date, dt.date]:
    """The window searched: the question's, or everything stored up to today."""
    if filters.window:
        return filters.window.start, filters.window.end
    return (await core.repo.earliest_day() or today), today


async def next_page(core: Core, conversation_id: str, asker: str, count: int) -> tuple[list[Paper], int]:
    """The next `count` matching papers the conversation's last answer offered (/more) and how many are left after
    them; the turn then counts them as shown, so "which of those" still reads the whole list."""
    ttl = dt.timedelta(minutes=core.settings.followup_minutes)
    stored = await core.repo.conversation_state(conversation_id, max_age=ttl) if ttl else None
    if not stored:
        return [], 0
    turn = Turn.from_json(stored)
    page, rest = turn.more_ids[:count], turn.more_ids[count:]
    papers = {p.id: p for p in await core.repo.get_papers(page)}
    turn.paper_ids, turn.more_ids = [*turn.paper_ids, *page], rest
    await core.repo.save_conversation_state(conversation_id, turn.to_json(), asker, max_age=ttl)
    return [papers[i] for i in page if i in papers], len(rest)


async def ask(
    core: Core,
    question: str,
    *,
    today: dt.date | None = None,
    conversation_id: str | None = None,
    profile: Profile | None = None,
    asker: str = "",
) -> Answer:
    """Answer `question` from stored papers; with `conversation_id`, follow-ups can refer to the previous turn.

    `asker` is the user key of whoever asked: the turn is stored under it (so /forget finds it) and the LLM cost
    is recorded against it. A turn older than `settings.followup_minutes` is not followed up.
    """
    today = today or dt.date.today()
    ttl = dt.timedelta(minutes=core.settings.followup_minutes)
    if not ttl:
        conversation_id = None
    previous = None
    if conversation_id:
        stored = await core.repo.conversation_state(conversation_id, max_age=ttl)
        previous = Turn.from_json(stored) if stored else None
    filters = await understand(core, question, today, previous)
    if core.llm is not None and core.settings.llm_parse_questions and previous is None and has_words(question):
        parsed = await parse_with_llm(core, question, today)
        if parsed is not None:
            filters = Filters(parsed.topic, parsed.window, parsed.authors, parsed.categories)
    if filters.topic:
        filters = replace(filters, topic=await corrected(core, filters.topic))
    window = await effective_window(core, filters, today)
    if filters.window is None:
        filters = replace(filters, window=TimeWindow(window[0], window[1], ""))
    if not has_words(question):
        # emoji or punctuation only: say so, and keep the conversation's context for the next real question
        return Answer(text=NOTHING_ASKED, citations=(), window=window, filters=filters)
    found, offered = await retrieve_all(core, filters, profile=profile)
    # retrieval already filters by the window; this keeps "never cite outside it" true whatever changes upstream
    papers = [r.paper for r in found if window[0] <= r.paper.announced <= window[1]]
    more = tuple(r.paper for r in offered if window[0] <= r.paper.announced <= window[1])
    tldrs = await shown_tldrs(core, papers)
    text, cited, usage = extractive_answer(filters, papers, tldrs, window, more=len(more)), tuple(papers), {}
    # nothing found where papers are stored, or found by their words alone: the vector store may be what is wrong
    # (an empty window needs no look at it: opening Chroma costs a cold command a second)
    unembedded = not all(r.embedded for r in (*found, *offered))
    if unembedded or (not found and await _window_holds_papers(core, filters.window)):
        gap = await vector_gap_note(core)
        text = f"{gap}\n{text}" if gap else text
    if core.llm is not None and papers:
        with usage_run(target=f"ask:{asker or conversation_id or 'cli'}") as run:
            written, problem = await write_answer(core, question, papers, tldrs)
        usage = await run_usage(core.repo, run.run_id)
        if written is not None:
            text, cited = written.text, written.citations
        else:
            text += f"\n(No LLM answer: {problem}; these are the matching papers.)"
    if more and cited != tuple(papers):
        text += "\n" + more_offer(len(more))
    answer = Answer(text=text, citations=cited, window=window, filters=filters, usage=usage, more=more)
    if conversation_id:
        turn = Turn(
            topic=filters.topic,
            window=(window[0].isoformat(), window[1].isoformat()) if filters.window and filters.window.phrase else None,
            authors=list(filters.authors),
            categories=list(filters.categories),
            paper_ids=[p.id for p in cited],
            more_ids=[p.id for p in more],
        )
        await core.repo.save_conversation_state(conversation_id, turn.to_json(), asker, max_age=ttl)
    return answer
