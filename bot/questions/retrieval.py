"""Retrieval for questions and search: the candidate papers of a question's filters, ranked and cut.

Candidates are the window's papers nearest the question (dense, Chroma or the window index) and those holding its
words (BM25 in SQLite). They are ordered by reciprocal rank fusion of four rankings: dense similarity, BM25, the
topic's words in title and abstract (`bot.questions.topics`), and similarity to the question moved toward the first
pass's best papers carrying the topic in their title (pseudo-relevance feedback); papers naming a name typed in the
question ("YAQA", "R2R") come first. `select` cuts on a similarity scale (cosine plus the topic's evidence): the
papers an answer shows first and the other matching ones it offers (recall first: a paper carrying the topic is
offered, never dropped; one only close in meaning, as a whole or by its best sentence, is offered after those
carrying the topic's words).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

import numpy as np

from bot.core import Core
from bot.models import Paper, Profile
from bot.questions.acronyms import defined_acronyms, title_spelled_out
from bot.questions.authors import same_person
from bot.questions.expansion import (
    FEEDBACK_DOCS,
    Bags,
    bm25f,
    expanded_query,
    expansion_complete,
    index_terms,
    relevance_model,
    term_likelihoods,
)
from bot.questions.filters import Filters
from bot.questions.request import names_contribution
from bot.questions.timewords import TimeWindow
from bot.questions.topics import (
    ABOUT_MENTIONS,
    BROAD_SHARE,
    COVERED,
    FILLER,
    GENERIC_WEIGHT,
    Alternative,
    QuestionTopic,
    TopicEvidence,
    anchored,
    corpus_terms,
    evidence,
    expand_terms,
    full_text_groups,
    is_term_spelling,
    joined_spellings,
    lettered_words,
    loose_alternatives,
    share_weight,
    split_spellings,
    topic_alternatives,
    topic_of,
    variant_spellings,
)
from bot.ranking.contribution import contribution_sentence, paper_kinds
from bot.ranking.contribution_words import avoid_kinds
from bot.text.introduces import introduced_kinds, introduces_benchmark, stating_sentences
from bot.text.terms import same_word, text_tokens

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
# the same for the paper's best sentence (title or one abstract sentence, `bot.store.sentences`): a paper stating the
# topic in other words in one sentence, which the whole-paper vector dilutes. It admits about the share of the 400
# nearest papers that NEAR admits by whole-paper similarity (2.3% against 2.9% on the development searches; 0.5 would
# admit 4.3%); docs/BENCHMARKS.md, "A paper's best sentence"
SENTENCE_NEAR = 0.55
# papers shown for their meaning alone (none carries the topic's words): their best sentences at most this far below
# the closest one's; half of MARGIN, as for relevance when enough papers carry the words
SENTENCE_MARGIN = MARGIN / 2
MEANING_RANKS = 10  # a paper without the topic's words is offered when the fusion ranks it this high among them
MEANING_PAGE = 3  # an answer's first page shown for meaning alone (no paper carries the topic's words) holds this many
# a search's list after its first page: the papers the fused ranking puts this high come first (`_fused_first`);
# chosen by leave-one-set-out over the eight older open search sets (docs/BENCHMARKS.md, "Search misses ... s18")
FUSED_DEPTH = 12
NARROWED_CLOSE = 3  # "which of those are X": the closest few of the papers not naming X, offered (or shown: select)


RRF_K = 60  # reciprocal rank fusion's constant (Cormack, Clarke and Buettcher 2009): flattens the top ranks
FEEDBACK_PAPERS = 3  # pseudo-relevance feedback: the first-pass papers carrying the topic in their title it reads
FEEDBACK_WEIGHT = 0.75  # Rocchio's beta: how far the question's vector moves toward their centroid
FEEDBACK_FUSION_WEIGHT = 1.0  # the expanded question's similarity, one more ranking in the fusion
EXPANSION_FUSION_WEIGHT = 1.0  # the topic expanded by feedback words (RM3), one more ranking in the fusion
PROFILE_FUSION_WEIGHT = 0.25  # the member's profile orders papers of equal evidence; it never outweighs the topic


def reciprocal_rank_fusion(lists: Sequence[np.ndarray], weights: Sequence[float]) -> np.ndarray:
    """Each item's fused score: the sum over the rankings of weight / (RRF_K + its rank there), rank 1 the highest
    score, tied scores sharing the mean of the ranks they hold together (fractional ranking: the 25 papers naming only
    "video" in their title, tied in the coverage of "egocentric video", share its places 3 to 27 rather than each
    taking the third, which put them all before a first-person video paper second by meaning); an item a
    ranking does not hold (NaN) gets nothing from it."""
    fused = np.zeros(len(lists[0]) if lists else 0)
    for scores, weight in zip(lists, weights, strict=True):
        held = ~np.isnan(scores)
        descending = -np.sort(scores[held])[::-1]
        first = 1 + np.searchsorted(descending, -scores[held], side="left")
        last = np.searchsorted(descending, -scores[held], side="right")
        fused[held] += weight / (RRF_K + (first + last) / 2)
    return fused


@dataclass(frozen=True, slots=True)
class Retrieved:
    """A candidate paper with its relevance and the evidence behind it."""

    paper: Paper
    relevance: float
    dense: float
    in_title: bool
    in_abstract: bool
    embedded: bool = True  # False: found by its words while its vector is missing (the store missing or rebuilt)
    named: int = 0  # a name typed in the question ("YAQA", "Trinity-RFT") is in its title (2) or its abstract (1)
    every_part: bool = True  # title and abstract hold every part of the topic somewhere (see `select`)
    sentence: float = float("nan")  # cosine of its best sentence with the question (NaN: no sentence vectors)
    about: bool = False  # a narrowing's paper is about the constraint: its title names it, or its abstract twice
    # a benchmark question's paper says its benchmark is about the topic: the sentence making it names the topic, or
    # the abstract names it twice (`select`)
    states: bool = True
    grazes: bool = False  # names an exclusion of the question without being about it (`excluded_readings`, `select`)
    # title and abstract hold every part of the topic as an answer's first page reads it (`QuestionTopic.showing`:
    # each side of "X for Y", an example beside its class)
    shows: bool = True
    # ... as a search's first page reads it (`QuestionTopic.shows` with `search`: a named term standing for its phrase
    # stands there, "dialog" of "dialog systems")
    paged: bool = True
    # its title carries the topic's words or its abstract names the topic more than once (`select`: a paper naming it
    # once in its abstract, in passing as often as not, is offered first when others are more firmly about it)
    firm: bool = True
    # carries a piece of the topic as typed that its reading by role does not (`loose_alternatives`: "browse the web"
    # of "LLM agents that use tools or browse the web"): listed after the others, never shown first for it
    loose: bool = False
    # its title or abstract holds the specific rarer part of a topic of two parts ("Koopman" of "Koopman operator
    # methods", `QuestionTopic.holds_rarest`): an answer's page chosen by meaning takes those first (`select`)
    rarest: bool = True


async def topic_evidence(core: Core, topic: str, *, verb_first: bool = False, asked: bool = False) -> QuestionTopic:
    """Each alternative's units weighted by rarity in the archive (see `bot.questions.topics`); `verb_first`: the
    topic starts with the verb the papers do ("involve LoRA adapters"), which they may name otherwise; `asked`: the
    topic is what the question asks for (not an exclusion), so a lone "X for Y" no paper puts so is read as X."""
    alternatives = topic_alternatives(topic)
    sole = asked and len(alternatives) == 1
    found = [
        await evidence(core, a.text, a.exact, verb_first=verb_first and n == 0, sole=sole)
        for n, a in enumerate(alternatives)
    ]
    if alternatives and alternatives[0].exact:  # "X like A, B": A and B are read as examples of X
        pairs = zip(alternatives[1:], found[1:], strict=True)
        found = [found[0], *(anchored(e, found[0]) if a.example_of else e for a, e in pairs)]
    if asked and len(found) > 1:
        found = _located(topic, alternatives, found)
    return QuestionTopic(tuple(found))


BROAD_WEIGHT = share_weight(BROAD_SHARE)


def _located(topic: str, alternatives: Sequence[Alternative], found: list[TopicEvidence]) -> list[TopicEvidence]:
    """The alternatives less those an "and" joins to a rarer one whose every needed unit a fifth of the archive or
    more writes: "LLMs and peer review" asks for the two together, and "LLMs" read alone, any of a third of all
    papers, filled a first page with LLM papers on anything. Such a conjunct says where the other lives (the papers
    on peer review with LLMs write "peer review"); a named example of a class stays (`anchored` reads it)."""

    def broad(e: TopicEvidence) -> bool:
        needed = [u for u in e.units if not u.optional] or list(e.units)
        return bool(needed) and all(u.weight < BROAD_WEIGHT for u in needed)

    def joined(text: str) -> bool:
        said = re.escape(text.strip())
        return bool(
            re.search(rf"(?<![\w-]){said}\s*(?:\band\b|&)\s*\S", topic, re.IGNORECASE)
            or re.search(rf"\S\s*(?:\band\b|&)\s*{said}(?![\w-])", topic, re.IGNORECASE)
        )

    if all(broad(e) for e in found):
        return found
    kept = [e for a, e in zip(alternatives, found, strict=True) if a.example_of or not (broad(e) and joined(a.text))]
    return kept or found


def lexical_groups(topic: str) -> list[list[str]]:
    """Full-text alternatives for a topic: each alternative's content words, with named terms spelled any way."""
    return [g for a in topic_alternatives(topic) for g in full_text_groups(a.text)]


def loose_groups(loose: Sequence[Alternative]) -> list[list[str]]:
    """Full-text alternatives for the topic's pieces as typed beside its reading by role (`loose_alternatives`)."""
    return [g for a in loose for g in full_text_groups(a.text)]


async def _candidates(
    core: Core, filters: Filters, query_vector: np.ndarray | None, loose: Sequence[Alternative]
) -> tuple[list[Paper], list[str] | None]:
    """The candidate papers of `filters` and, when the topic's full-text search ran, its ids best first (BM25);
    `loose`: the topic's `loose_alternatives`."""
    start = filters.window.start if filters.window else None
    end = filters.window.end if filters.window else None
    lexical_ids: list[str] | None = None
    if filters.restrict_to:
        papers = await core.repo.get_papers(list(filters.restrict_to))
    elif filters.authors:
        papers = []
        for n, author in enumerate(filters.authors):  # "by X and Y": the papers they wrote together
            tokens = [t for t in re.findall(r"[\w\-']+", author) if len(t) > 1]
            theirs = await core.repo.papers_by_author(tokens, start, end)
            theirs = [p for p in theirs if any(same_person(author, name) for name in p.authors)]
            ids = {p.id for p in theirs}
            if filters.any_author:  # "by X or Y": each one's papers
                papers += [p for p in theirs if p.id not in {q.id for q in papers}]
            else:
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
        lexical_ids = [i for i, _ in lexical]
        # the papers carrying a piece of the topic as typed are candidates too (listed after the others, `select`);
        # they stay out of the BM25 ranking, which reads the topic by role
        groups = loose_groups(loose)
        typed = [i for i, _ in await core.repo.lexical_search(groups, start, end, LEXICAL_POOL)] if groups else []
        ids = list(dict.fromkeys([i for i, _ in dense] + lexical_ids + typed))
        papers = await core.repo.get_papers(ids)
    if filters.window:
        papers = [p for p in papers if filters.window.contains(p.announced)]
    if filters.categories:
        wanted = set(filters.categories)
        papers = [p for p in papers if wanted.intersection(p.categories)]
    return papers, lexical_ids


_NAME = re.compile(r"(?<![\w-])(?=[\w-]*(?:[A-Z][\w-]*[A-Z]|[A-Za-z][\w-]*\d|\d[\w-]*[A-Za-z]))[A-Za-z0-9][\w-]*")


def exact_names(topic: str, descriptive: Collection[str] = ()) -> list[re.Pattern[str]]:
    """Patterns for the names in a topic typed as a method or model is named ("YAQA", "R2R", "DeepONet",
    "SWE-bench", "Trinity-RFT"), matched case-sensitively (the first letter aside) as whole words; a named term of the
    topic vocabulary ("LLM", "MoE") is a topic, not a name, and so is a word of `descriptive` (the hyphenated words
    the archive uses as ordinary modifiers, `descriptive_compounds`: "AI-generated", "Model-Free")."""
    found = []
    for match in _NAME.finditer(topic):
        name = match.group(0).strip("-")
        if len(name) < 3 or is_term_spelling(name) or name.isdigit() or _term_compound(name) or name in descriptive:
            continue
        # as written, but a title may capitalise its first letter ("text-to-SQL" in "... in Text-to-SQL")
        first = f"[{name[0].lower()}{name[0].upper()}]" if name[0].isalpha() else re.escape(name[0])
        found.append(re.compile(rf"(?<![\w-]){first}{re.escape(name[1:])}(?:s|es)?(?![\w])"))
    return found


def _term_compound(word: str) -> bool:
    """A hyphenated word made of a named term and ordinary lowercase words ("LLM-based", "GRPO-style", "RL-tuned")
    describes papers by the term, it names no one method ("SWE-bench", "Trinity-RFT" do)."""
    pieces = [p for p in word.split("-") if p]
    return (
        len(pieces) > 1
        and any(is_term_spelling(p) for p in pieces)
        and all(is_term_spelling(p) or p.islower() for p in pieces)
    )


# A piece of a hyphenated word used on its own by at least this share of the archive's papers (and MIN_COMMON of
# them) is one of its ordinary words: "AI" (11% of the shared days' papers), "generated", "model", "free" (4.5%),
# "based"; a name's own pieces are rare ("SWE" 0.25%, "Kolmogorov", "VRAG", "RFT", "SQL" 0.3%).
COMMON_PIECE = 0.01
MIN_COMMON = 3
TITLE_SAMPLE = 50  # papers using a hyphenated word read to see whether a title is led by it


async def descriptive_compounds(core: Core, topic: str) -> frozenset[str]:
    """The hyphenated words of `topic` that `exact_names` could read as names and the archive uses as ordinary
    modifiers: "AI-generated", "Model-Free", "Training-Free" describe papers by what they are, they name no
    method. Measured, not listed: every piece is a word the archive's papers use on their own commonly
    (`COMMON_PIECE`), none is written as only a name is (a digit, or a capital inside a word: "Qwen2", "DeepSeek"),
    and no stored title is led by the word before a colon, as a method's title names it ("Self-Refine: ...").
    Read once per question, whatever table of named terms reads it (`exact_names` passes over a named term's
    compounds, "LLM-based", before it looks here)."""
    found = set()
    for match in _NAME.finditer(topic):
        word = match.group(0).strip("-")
        if "-" in word and await _ordinary_modifier(core, word):
            found.add(word)
    return frozenset(found)


async def _ordinary_modifier(core: Core, word: str) -> bool:
    """Whether the hyphenated `word` is an ordinary modifier of the archive (see `descriptive_compounds`)."""
    pieces = [p for p in word.split("-") if p and p.lower() not in FILLER]
    if len(pieces) < 2 or any(_written_as_name(p) for p in pieces):
        return False
    phrase = " ".join(word.lower().split("-"))
    counts = await core.repo.document_frequencies([phrase, *(p.lower() for p in pieces)])
    common = max(MIN_COMMON, COMMON_PIECE * await core.repo.count_papers())
    if any(counts.get(p.lower(), 0) - counts.get(phrase, 0) < common for p in pieces):
        return False
    ids = [i for i, _ in await core.repo.lexical_search([[phrase]], None, None, TITLE_SAMPLE)]
    leads = re.compile(rf"{re.escape(word)}s?\s*:", re.IGNORECASE)
    return not any(leads.match(p.title) for p in await core.repo.get_papers(ids))


def _written_as_name(piece: str) -> bool:
    """A digit or a capital inside a word that also has small letters ("Qwen2", "DeepSeek"): only names are written
    so (an acronym, "AI", is not)."""
    inner = piece[1:]
    return any(c.isdigit() for c in piece) or (inner != inner.upper() and inner != inner.lower())


def names_only(topic: str, descriptive: Collection[str] = ()) -> bool:
    """True when a topic is made of names typed as a method or model is named ("YAQA", "what is R2R"), nothing
    else ("R2R token routing" is not); `descriptive` as for `exact_names`."""
    names = exact_names(topic, descriptive)
    rest = topic
    for name in names:
        rest = name.sub(" ", rest)
    return bool(names) and not topic_of(rest)


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


async def window_holds_papers(core: Core, window: TimeWindow | None) -> bool:
    """Whether any paper is stored inside `window` (anywhere, without one; on one of its days, for a list of days)."""
    if window is not None and window.days:
        return any([await window_holds_papers(core, TimeWindow(day, day, "")) for day in window.days])
    latest = await core.repo.latest_day(until=window.end if window else None)
    return latest is not None and (window is None or latest >= window.start)


async def ranked(
    core: Core, filters: Filters, *, profile: Profile | None = None, descriptive: Collection[str] | None = None
) -> tuple[list[Retrieved], QuestionTopic | None]:
    """Every candidate that answers `filters`, most relevant first (see `_ranked`), the question read with the
    acronyms the archive defines for its topic ("TTA" as "test-time adaptation", `bot.questions.acronyms`).
    `descriptive`: the topic's `descriptive_compounds` when the caller has read them (else read here)."""
    rows = await defined_acronyms(core, filters.topic) if filters.topic else []
    rows += await joined_spellings(core, filters.topic) if filters.topic else []
    rows += lettered_words(filters.topic) if filters.topic else []
    rows += await variant_spellings(core, filters.topic) if filters.topic else []
    rows += await split_spellings(core, filters.topic) if filters.topic else []
    with corpus_terms(rows):
        return await _ranked(core, filters, profile=profile, descriptive=descriptive)


async def _ranked(
    core: Core, filters: Filters, *, profile: Profile | None = None, descriptive: Collection[str] | None = None
) -> tuple[list[Retrieved], QuestionTopic | None]:
    """Every candidate that answers `filters` (exclusions, a contribution type and a window applied), most relevant
    first, with the topic's evidence the ranking used.

    A topic's candidates are ordered by reciprocal rank fusion of their dense similarity, their BM25 rank, the
    topic's words in their title and abstract and the similarity to the question expanded by pseudo-relevance
    feedback (toward the best papers of a first pass that carry the topic in their title); papers naming a name
    typed in the question ("YAQA", "R2R") come first."""
    if not (filters.topic or filters.authors or filters.restrict_to or filters.contribution):
        return [], None
    if not filters.restrict_to and not await window_holds_papers(core, filters.window):
        return [], None  # before the topic's vector: nothing to find needs no embedding model (seconds to load)
    query_vector = None  # an author alone: their papers newest first (or by profile); a name's vector says nothing
    if filters.topic:
        query_text = " ".join(expand_terms(filters.topic)) or filters.topic
        # cold, the model (torch) and the vector store (Chroma) each take a second or more to load: both at once
        embedded, _ = await asyncio.gather(
            asyncio.to_thread(core.query_embedder.embed, [query_text]), _open_vectors(core, filters)
        )
        query_vector = embedded[0]
    # the topic's pieces as typed beside its reading by role: candidates of their own, and marked `loose`
    loose = loose_alternatives(filters.topic) if filters.topic and not filters.restrict_to else []
    papers, lexical_ids = await _candidates(core, filters, query_vector, loose)
    if filters.topic and lexical_ids is None:  # candidates found otherwise: their BM25 order still counts
        start, end = (filters.window.start, filters.window.end) if filters.window else (None, None)
        lexical_ids = [
            i for i, _ in await core.repo.lexical_search(lexical_groups(filters.topic), start, end, LEXICAL_POOL)
        ]
    readings = await excluded_readings(core, filters)  # read once: for dropping and for marking alike
    papers = await _admitted(core, filters, papers, readings)
    grazed = grazing(readings[0], papers) if filters.excluded else set()
    # without a topic or a profile no vector orders the papers (an author's come newest first, the previous answer's
    # in its order): none is read, which spares a cold command opening the vector store (a second of CPU for Chroma)
    vectors_rank = query_vector is not None or profile is not None
    papers, found = await _with_vectors(core, filters, papers) if vectors_rank else (papers, None)
    if not papers:
        return [], None
    verb_first = filters.topic in filters.verb_led
    topic_words = (
        await topic_evidence(core, filters.topic, verb_first=verb_first, asked=True) if filters.topic else None
    )
    if topic_words is not None and filters.narrows:
        topic_words = topic_words.discriminating([f"{p.title}\n{p.abstract}" for p in papers], filters.narrowed_by)
    if descriptive is None:
        descriptive = await descriptive_compounds(core, filters.topic)
    names = exact_names(filters.topic, descriptive)
    scored = _Scored.of(
        papers,
        found or {},
        query_vector,
        topic_words,
        names,
        narrows=bool(filters.restrict_to),
        contribution=bool(filters.contribution),
    )
    if filters.topic and not filters.restrict_to:
        scored.loose = await _loose(core, loose, papers)
    if query_vector is not None and filters.excluded:
        grazed |= await _nearer_excluded(core, filters, scored, query_vector)
    if query_vector is not None and core.settings.sentence_vectors:
        best = await core.sentences.best_sentence_similarity(query_vector[None, :], [p.id for p in papers])
        scored.sentence = best[:, 0].astype(np.float64)
    if profile is not None:
        # imported here: a question without a member's profile (every CLI `ask`) needs none of the ranker
        from bot.ranking.for_profile import profile_model, sentence_matrices
        from bot.ranking.rank import rank_for_profile
        from bot.ranking.rerank import default_model

        # scored as the member's digest scores them, the sentence term of one-line interests included
        model = await profile_model(core, profile)
        sentences = await sentence_matrices(core, papers, model)
        rerank = default_model() if core.settings.rerank_profiles else None  # the digest's order and standing
        ranking = rank_for_profile(papers, scored.vectors, model, len(papers), sentence_vecs=sentences, rerank=rerank)
        by_id = {r.paper.id: r.score for r in ranking}
        scored.profile = np.asarray([by_id[p.id] for p in papers], dtype=np.float64)
    if not filters.topic or query_vector is None:
        order = np.argsort(-scored.relevance(), kind="stable")
        return scored.retrieved(order, found, grazed), topic_words
    order = fused_order(scored, lexical_ids or [], query_vector)
    if not scored.holds_words(lexical_ids or []):
        # no candidate holds a word of the topic as read (a field no paper names, read by meaning: "ML for telescope
        # data"): the first pass is the ranking by meaning alone, and feedback from its best papers' words would vote
        # a second time for their vocabulary ("benchmark" of two astronomy benchmarks) over papers as close; as for
        # the vector feedback, a guess is no feedback
        return scored.retrieved(order, found, grazed), topic_words
    # pseudo-relevance feedback on words (RM3): the first pass's best papers' words, one more ranking
    scored.expansion = await expansion_scores(core, scored.papers, order[:FEEDBACK_DOCS], query_text)
    order = fused_order(scored, lexical_ids or [], query_vector)
    return scored.retrieved(order, found, grazed), topic_words


async def _nearer_excluded(core: Core, filters: Filters, scored: _Scored, query_vector: np.ndarray) -> set[str]:
    """The ids of the candidates closer in meaning to an exclusion naming a topic than to the topic asked for ("MRI
    papers other than brain imaging": a connectome paper writing "diffusion MRI" and "brain" but never "brain
    imaging"): about none by their words, so kept, but not surely outside it. An exclusion naming only a kind of
    contribution ("skip the benchmark papers") has no meaning of its own to be near."""
    topics = [e for e in filters.excluded if not excluded_kinds(e)]
    if not topics:
        return set()
    excluded = await asyncio.to_thread(core.query_embedder.embed, topics)
    nearest = (scored.vectors @ np.asarray(excluded).T).max(axis=1)
    return {p.id for p, near, dense in zip(scored.papers, nearest, scored.dense, strict=True) if near > dense}


async def _loose(core: Core, loose: Sequence[Alternative], papers: Sequence[Paper]) -> np.ndarray:
    """Which papers hold every part of one of the topic's pieces as typed (`loose`, its `loose_alternatives`)
    somewhere in their title and abstract: they carry the question's words even where its reading by role finds
    nothing."""
    if not loose:
        return np.zeros(len(papers), dtype=bool)
    typed = QuestionTopic(tuple([await evidence(core, a.text, a.exact) for a in loose]))
    return np.asarray([typed.holds_every_part(f"{p.title}\n{p.abstract}") for p in papers], dtype=bool)


async def expansion_scores(core: Core, papers: list[Paper], feedback: Sequence[int], topic: str) -> np.ndarray | None:
    """Each paper's BM25F score for `topic` expanded by the words of the papers `feedback` (RM3,
    `bot.questions.expansion`); None without a topic word or a feedback paper."""
    topic_terms = index_terms(topic)
    if not topic_terms or not len(feedback):
        return None
    bags = Bags.of(papers)
    likely = term_likelihoods(bags, [int(i) for i in feedback])
    # document frequencies of the most likely terms first, until the model's terms are known (a few lookups)
    df, total = await core.repo.term_document_frequencies(topic_terms)
    for start in range(0, len(likely), _LOOKUPS):
        if expansion_complete(likely, df, total):
            break
        counts, total = await core.repo.term_document_frequencies([t for t, _ in likely[start : start + _LOOKUPS]])
        df.update({t: counts.get(t, 0) for t, _ in likely[start : start + _LOOKUPS]})
    return bm25f(bags, expanded_query(topic_terms, relevance_model(likely, df, total)), df, total)


_LOOKUPS = 60  # terms whose document frequencies one read asks for


def fused_order(scored: _Scored, lexical_ids: Sequence[str], query_vector: np.ndarray) -> np.ndarray:
    """The candidates' order: papers naming a name typed in the question first, then by reciprocal rank fusion of
    the dense, BM25 (`lexical_ids`, best first), topic-coverage and word-feedback rankings, with the question's vector
    moved by pseudo-relevance feedback as one more ranking."""
    bm25 = {paper_id: len(lexical_ids) - n for n, paper_id in enumerate(lexical_ids)}
    fused = scored.fused(bm25)
    expanded = scored.feedback_query(query_vector, fused)
    if expanded is not None:
        fused = scored.fused(bm25, expanded)
    return np.lexsort((-fused, -scored.name_tier))  # exact names first, then the fused ranks


async def _admitted(
    core: Core, filters: Filters, papers: list[Paper], readings: tuple[list[QuestionTopic], frozenset[str]]
) -> list[Paper]:
    """The papers about none of the exclusions (as `excluded_readings` read them) and, when the question asks for
    one, of the contribution type."""
    papers = await without_excluded(core, filters, papers, readings)
    if filters.contribution:
        papers = [p for p in papers if introduces_benchmark(p.title, p.abstract)]
    return papers


async def _with_vectors(core: Core, filters: Filters, papers: list[Paper]) -> tuple[list[Paper], dict[str, np.ndarray]]:
    """The papers that can be ranked and their stored vectors by id."""
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
    return papers, found


@dataclass(slots=True)
class _Scored:
    """The candidates' evidence, one row per paper: what the fusion ranks and the cut-off reads."""

    papers: list[Paper]
    vectors: np.ndarray
    dense: np.ndarray  # cosine similarity to the question
    title: np.ndarray  # the topic's coverage of the title (with the abstract as context) and of the abstract
    abstract: np.ndarray
    name_tier: np.ndarray  # 2: a name typed in the question is in the title, 1: in the abstract, 0: neither
    every_part: np.ndarray  # title and abstract hold every part of the topic, however far apart
    about: np.ndarray  # about the topic as a whole (`QuestionTopic.is_about`); read for narrowings only
    states: np.ndarray  # a benchmark question's: the paper states its contribution about the topic (`Retrieved`)
    shows: np.ndarray  # title and abstract hold every part of the topic as a first page reads it (`Retrieved`)
    paged: np.ndarray  # ... as a search's first page reads it (`Retrieved.paged`)
    often: np.ndarray  # the abstract names the topic at least ABOUT_MENTIONS times
    rarest: np.ndarray  # title and abstract hold the rarest needed unit of one alternative (`Retrieved.rarest`)
    profile: np.ndarray | None = None
    sentence: np.ndarray | None = None  # cosine of each paper's best sentence (title included); NaN: none stored
    expansion: np.ndarray | None = None  # BM25F for the topic expanded by feedback (`expansion_scores`); NaN: none
    loose: np.ndarray | None = None  # holds a piece of the topic as typed (`Retrieved.loose`)

    @staticmethod
    def of(
        papers: list[Paper],
        found: dict[str, np.ndarray],
        query_vector: np.ndarray | None,
        topic_words: QuestionTopic | None,
        names: list[re.Pattern[str]],
        narrows: bool = False,
        contribution: bool = False,
    ) -> _Scored:
        """Score `papers` against the question (`narrows`: whether each is about the topic as a whole, too)."""
        dimensions = query_vector.shape[0] if query_vector is not None else 1
        vectors = np.stack([found.get(p.id, np.zeros(dimensions, dtype=np.float32)) for p in papers])
        dense = vectors @ query_vector if query_vector is not None else np.zeros(len(papers), dtype=np.float32)
        title = np.zeros(len(papers))
        abstract = np.zeros(len(papers))
        name_tier = np.zeros(len(papers))
        every_part = np.ones(len(papers), dtype=bool)
        about = np.zeros(len(papers), dtype=bool)
        states = np.ones(len(papers), dtype=bool)
        shows = np.ones(len(papers), dtype=bool)
        paged = np.ones(len(papers), dtype=bool)
        often = np.zeros(len(papers), dtype=bool)
        rarest = np.ones(len(papers), dtype=bool)
        showing = topic_words if topic_words is not None and topic_words.first_page_differs else None
        searching = topic_words if topic_words is not None and topic_words.search_page_differs else None
        for i, paper in enumerate(papers):
            if topic_words is not None:
                title[i] = topic_words.coverage(paper.title, paper.abstract)
                abstract[i] = topic_words.coverage(paper.abstract)
                every_part[i] = topic_words.holds_every_part(f"{paper.title}\n{paper.abstract}")
                about[i] = narrows and topic_words.is_about(paper.title, paper.abstract)
                states[i] = not contribution or states_about(topic_words, paper)
                named = max((a.mentions(paper.abstract) for a in topic_words.alternatives), default=0)
                often[i] = named >= ABOUT_MENTIONS
                rarest[i] = every_part[i] or topic_words.holds_rarest(f"{paper.title}\n{paper.abstract}")
            if showing is not None:
                # as typed: a paper shown for "adapters" names adapters, not only "adapting" something
                shows[i] = showing.shows(paper.title, paper.abstract)
            if searching is not None:
                paged[i] = searching.shows(paper.title, paper.abstract, search=True)
            # a name typed as the paper writes it ("YAQA", "R2R", "DeepONet") is the strongest sign there is
            if any(n.search(paper.title) for n in names):
                name_tier[i] = 2
            elif any(n.search(paper.abstract) for n in names):
                name_tier[i] = 1
        return _Scored(
            list(papers),
            vectors,
            dense.astype(np.float64),
            title,
            abstract,
            name_tier,
            every_part,
            about,
            states,
            shows,
            paged,
            often,
            rarest,
        )

    def relevance(self) -> np.ndarray:
        """Similarity plus the topic's evidence: the scale the cut-off (`select`) measures distances on."""
        relevance = self.dense + TITLE_BONUS * self.title + ABSTRACT_BONUS * self.abstract
        relevance += NAME_IN_TITLE * (self.name_tier == 2) + NAME_IN_ABSTRACT * (self.name_tier >= 1)
        if self.profile is not None:
            spread = np.ptp(self.profile) or 1.0
            relevance += PROFILE_WEIGHT * (self.profile - self.profile.min()) / spread
        return relevance

    def fused(self, bm25: dict[str, int], expanded: np.ndarray | None = None) -> np.ndarray:
        """Reciprocal rank fusion of the dense, BM25, topic-coverage (and word feedback, vector feedback and profile)
        rankings."""
        coverage = self.title + self.abstract / 2  # title first, the abstract breaks ties
        lists = [
            (self.dense, 1.0),
            (np.asarray([bm25.get(p.id, np.nan) for p in self.papers], dtype=np.float64), 1.0),
            (np.where(coverage > 0, coverage, np.nan), 1.0),
        ]
        if self.expansion is not None:
            lists.append((self.expansion, EXPANSION_FUSION_WEIGHT))
        if expanded is not None:
            lists.append(((self.vectors @ expanded).astype(np.float64), FEEDBACK_FUSION_WEIGHT))
        if self.profile is not None:
            lists.append((self.profile, PROFILE_FUSION_WEIGHT))
        return reciprocal_rank_fusion([s for s, _ in lists], [w for _, w in lists])

    def holds_words(self, lexical_ids: Collection[str]) -> bool:
        """Whether any candidate holds a word of the topic as read: a full-text (BM25) match among `lexical_ids`, some
        coverage of title or abstract, or a name typed in the question."""
        if np.any(self.title > 0) or np.any(self.abstract > 0) or np.any(self.name_tier > 0):
            return True
        matched = set(lexical_ids)
        return any(p.id in matched for p in self.papers)

    def feedback_query(self, query_vector: np.ndarray, fused: np.ndarray) -> np.ndarray | None:
        """The question's vector moved toward the best papers of the first pass that carry the topic in their title
        (Rocchio pseudo-relevance feedback), or None when none does: a guess is no feedback."""
        order = np.lexsort((-fused, -self.name_tier))
        carrying = [i for i in order if self.title[i] >= COVERED or self.name_tier[i] == 2][:FEEDBACK_PAPERS]
        if not carrying:
            return None
        centroid = self.vectors[carrying].mean(axis=0)
        expanded = query_vector + FEEDBACK_WEIGHT * centroid
        norm = float(np.linalg.norm(expanded))
        return expanded / norm if norm else None

    def retrieved(
        self, order: np.ndarray, found: dict[str, np.ndarray] | None, grazed: Collection[str] = ()
    ) -> list[Retrieved]:
        """The rows in `order` as `Retrieved` (`found`: the stored vectors read, None when none was needed;
        `grazed`: the ids of those naming an exclusion without being about it)."""
        relevance = self.relevance()
        return [
            Retrieved(
                self.papers[i],
                float(relevance[i]),
                float(self.dense[i]),
                bool(self.title[i] >= COVERED or self.name_tier[i] == 2),
                bool(self.abstract[i] >= COVERED or self.name_tier[i] >= 1),
                embedded=found is None or self.papers[i].id in found,
                named=int(self.name_tier[i]),
                every_part=bool(self.every_part[i]),
                sentence=float(self.sentence[i]) if self.sentence is not None else float("nan"),
                about=bool(self.about[i]),
                states=bool(self.states[i]),
                grazes=self.papers[i].id in grazed,
                shows=bool(self.shows[i]),
                paged=bool(self.paged[i]),
                firm=bool(self.title[i] >= COVERED or self.name_tier[i] == 2 or self.often[i]),
                loose=bool(self.loose[i]) if self.loose is not None else False,
                rarest=bool(self.rarest[i]),
            )
            for i in order
        ]


def states_about(topic: QuestionTopic, paper: Paper) -> bool:
    """Whether a paper making a benchmark or data set says it is about `topic`: the sentence making it names the topic
    ("we introduce X, a benchmark of math word problems"), or the abstract names it twice; a benchmark of something
    else naming the topic once ("... spanning math, code and science") is not (the title is read apart, `select`)."""
    if any(topic.coverage(sentence) >= COVERED for sentence in stating_sentences(paper.abstract)):
        return True
    return max((a.mentions(paper.abstract) for a in topic.alternatives), default=0) >= ABOUT_MENTIONS


async def excluded_readings(core: Core, filters: Filters) -> tuple[list[QuestionTopic], frozenset[str]]:
    """The question's exclusions read as topics, and the kinds of contribution one names and nothing else
    ("excluding benchmarks": `MADE`; "skip surveys and evaluations": the kinds `paper_kinds` reads; its other
    alternatives are read as topics)."""
    excluded: list[QuestionTopic] = []
    kinds: set[str] = set()
    for topic in filters.excluded:
        alternatives = [a.text for a in topic_alternatives(topic)]
        named = {a: excluded_kinds(a) for a in alternatives}
        kinds.update(*named.values())
        if not any(named.values()):
            read = [await topic_evidence(core, topic)]
        else:  # "excluding benchmarks and pure evaluation studies": the contribution, and the other alternatives
            read = [await topic_evidence(core, a) for a in alternatives if not named[a]]
        # "excluding speech and audio" leaves out the papers on either: two lone words joined by "and", which a topic
        # asked for reads as one thing needing both, are two things excluded
        read += [await topic_evidence(core, w) for a in alternatives if not named[a] for w in _lone_conjuncts(a)]
        excluded += [_whole(e) for e in read]
    if excluded and filters.topic:
        asked = await topic_evidence(core, filters.topic)
        excluded = [_beside_topic(e, asked, filters.topic) for e in excluded]
    return excluded, frozenset(kinds)


def _beside_topic(excluded: QuestionTopic, topic: QuestionTopic, typed: str) -> QuestionTopic:
    """`excluded` as a kind of the asked topic when its head, its last word, is the head of the topic's own head as
    spelled out ("MRI other than brain imaging": MRI is magnetic resonance imaging, so every candidate is imaging and
    "brain" alone tells the excluded papers, as `beyond` reads "machine unlearning other than LLM unlearning"): that
    head made optional. Only a head the `typed` topic does not hold (a typed head shared is `beyond`'s: "world models,
    not reward models" stays whole)."""
    words = text_tokens(typed)
    heads = {
        form[-1]
        for a in topic.alternatives
        if a.units
        for form in a.units[-1].forms
        if len(form) > 1 and not any(same_word(form[-1], w) for w in words)
    }
    alternatives = []
    for alternative in excluded.alternatives:
        units = alternative.units
        last = units[-1] if units else None
        if (
            last is not None
            and len(units) > 1
            and len(last.forms[0]) == 1
            and any(_same_thing(last.forms[0][0], h) for h in heads)
            and not any(last is alternative.units[i] for group in alternative.joined for i in group)
        ):
            alternative = replace(alternative, units=(*units[:-1], replace(last, optional=True)))
        alternatives.append(alternative)
    return QuestionTopic(tuple(alternatives))


def _same_thing(word: str, head: str) -> bool:
    """Whether `word` names the thing `head` does, in any inflection but not as an activity ("models" for "model",
    not "modeling": an "-ing" form of a noun's verb names doing it, no kind of the thing)."""
    return same_word(word, head) and word.endswith("ing") == head.endswith("ing")


def _lone_conjuncts(text: str) -> list[str]:
    """The lone words an "and" joins in `text` ("speech and audio" -> "speech", "audio"); empty for anything else."""
    pieces = [p.strip() for p in re.split(r"\s+and\s+|\s*&\s*", text, flags=re.IGNORECASE)]
    if len(pieces) < 2 or any(len([w for w in p.split() if w.lower() not in FILLER]) != 1 for p in pieces):
        return []
    return pieces


def _whole(topic: QuestionTopic) -> QuestionTopic:
    """An exclusion as a whole: every unit needed. A question's topic may leave out a very common word ("video
    generation" is about video where "generation" is everywhere: recall first), and a part the archive seldom uses
    apart may stand for it, but an exclusion read so leaves out every video paper: what is excluded is what was
    named, whole."""
    return QuestionTopic(
        tuple(
            replace(a, units=tuple(replace(u, optional=False) for u in a.units), standalone=())
            for a in topic.alternatives
        )
    )


# an excluded kind of contribution read as "which papers introduce a benchmark" reads it (main contribution only)
MADE = "made"
# the words beside a kind of contribution that name no topic ("pure evaluation studies", "survey papers")
_KIND_ONLY = frozenset("pure purely mere study studies".split())


def excluded_kinds(text: str) -> frozenset[str]:
    """The kinds of contribution an excluded phrase names and nothing else: "benchmarks" or "datasets" (`MADE`), and
    "surveys", "reviews", "position papers", "evaluations" or "evaluation studies" as `paper_kinds` reads a paper's
    ("survey", "position", "benchmark"); nothing for a phrase naming a topic ("survey sampling", "LLM evaluation")."""
    if names_contribution(text):
        return frozenset({MADE})
    kinds, rest = avoid_kinds(text)
    return kinds if kinds and all(t in _KIND_ONLY or t in FILLER for t in rest) else frozenset()


def _excluded_by(excluded: QuestionTopic, paper: Paper) -> bool:
    """Whether a paper is about an exclusion: its title names it, its abstract twice (`QuestionTopic.is_about`), or
    the sentence saying what the paper contributes names it ("We propose X, an alignment method for LLMs", "This paper
    proposes a framework ... for stock price prediction"): a paper on
    RLHF that names LLMs once, where it says what it makes, is about them; one naming them once elsewhere ("inspired
    by LLMs") is not. A title's acronym the abstract defines is read as written and as its words too ("Attack Detection
    in IoV Networks", "Internet of Vehicles (IoV)" in the abstract, is about vehicle networks)."""
    spelled = title_spelled_out(paper.title, paper.abstract)
    if any(excluded.is_about(title, paper.abstract) for title in dict.fromkeys([paper.title, spelled])):
        return True
    sentence = contribution_sentence(paper.abstract, work=True)
    return bool(sentence) and excluded.coverage(sentence) >= COVERED


def grazing(excluded: Sequence[QuestionTopic], papers: Sequence[Paper]) -> set[str]:
    """The ids of `papers` whose title or abstract names the whole of an exclusion somewhere ("Large Vision-Language
    Models" once, for "not about vision-language models"): about none (they were kept), but not surely outside it.
    An exclusion whose every needed word is used by a tenth of the archive or more ("LLMs") is named in passing by
    papers on anything ("inspired by LLMs"): naming it says nothing."""
    specific = [
        a
        for e in excluded
        for a in e.alternatives
        if max((u.weight for u in a.units if not u.optional), default=0.0) >= GENERIC_WEIGHT
    ]
    return {p.id for p in papers if any(a.coverage(f"{p.title}\n{p.abstract}") >= COVERED for a in specific)}


async def without_excluded(
    core: Core,
    filters: Filters,
    papers: list[Paper],
    readings: tuple[list[QuestionTopic], frozenset[str]] | None = None,
) -> list[Paper]:
    """The papers about none of the question's exclusions (`QuestionTopic.is_about`: by title, or named more than
    once in the abstract); an exclusion naming only a kind of contribution ("excluding benchmarks") drops the papers
    whose main contribution is one, as "which papers introduce a benchmark" reads them. `readings`: the exclusions
    as `excluded_readings` read them, when the caller has them."""
    if not filters.excluded:
        return papers
    excluded, kinds = readings if readings is not None else await excluded_readings(core, filters)
    return [
        p
        for p in papers
        if not any(_excluded_by(e, p) for e in excluded)
        and not (MADE in kinds and introduced_kinds(p.title, p.abstract, main=True))
        and not (kinds - {MADE} and kinds & paper_kinds(p.title, p.abstract))
    ]


def select(
    results: list[Retrieved],
    filters: Filters,
    spread: float = 0.0,
    *,
    stating: bool = False,
    descriptive: Collection[str] = (),
) -> tuple[list[Retrieved], list[Retrieved]]:
    """The papers an answer shows first (about the topic by title or by abstract when close enough, or, when none
    is, close to the best; with `stating`, an answer's first page: of those only the ones a sentence of which is close
    too, `_stating`, and the ones holding each side of the topic, `Retrieved.shows`, when any does) and the other
    papers that carry the topic in title or abstract, hold each of its parts somewhere, or are close in meaning
    (offered, never dropped; those carrying the topic's words first). `descriptive`: the topic's hyphenated words
    that name no method (`descriptive_compounds`)."""
    shown, carrying, _ = _grazing_offered(
        *_selected(results, filters, spread, stating=stating, descriptive=descriptive)
    )
    return shown, carrying


def _grazing_offered(
    shown: list[Retrieved], carrying: list[Retrieved], moved: int
) -> tuple[list[Retrieved], list[Retrieved], int]:
    """A first page's papers naming an exclusion of the question without being about it ("Large Vision-Language
    Models" once, for "LLM hallucination, not the vision-language ones") offered first among the rest, when others
    remain to show (nothing dropped)."""
    clean = [r for r in shown if not r.grazes]
    if not clean or len(clean) == len(shown):
        return shown, carrying, moved
    return clean, [*(r for r in shown if r.grazes), *carrying], moved


def _selected(
    results: list[Retrieved],
    filters: Filters,
    spread: float = 0.0,
    *,
    stating: bool = False,
    descriptive: Collection[str] = (),
) -> tuple[list[Retrieved], list[Retrieved], int]:
    """`select`, and how many papers its first page offers instead of showing them: papers carrying the topic that
    miss a side of it (`Retrieved.shows`), or papers close in meaning beyond MEANING_PAGE (0 when none)."""
    if not results:
        return [], [], 0
    if filters.authors and not filters.topic:
        return results, [], 0
    if filters.contribution and not filters.topic and not filters.restrict_to:
        # "new datasets this week?": every paper introducing one, those whose main contribution it is shown first
        main = [r for r in results if _makes_one(r)]
        return (main, [r for r in results if r not in main], 0) if main else (results, [], 0)
    if filters.restrict_to and not filters.narrows:
        return results, [], 0  # "only the ones from Thursday": the previous papers inside the new window
    best = max(r.relevance for r in results)
    naming = max(r.named for r in results)
    if not filters.restrict_to and naming and names_only(filters.topic, descriptive):
        # a question that is only a name ("YAQA", "Trinity-RFT") asks for that thing: the papers naming it where
        # they name the most (their title, else their abstract) first, the papers naming it elsewhere offered
        return [r for r in results if r.named == naming], [r for r in results if 0 < r.named < naming], 0
    if filters.restrict_to:
        return (*_narrowed(results), 0)
    # the first page: papers carrying the topic's words and not far below the best (the others are offered)
    # (a benchmark question's paper naming the topic in its abstract only: when it says its benchmark is about it)
    evidenced = [r for r in results if r.in_title or (r.in_abstract and r.dense >= FLOOR and r.states)]
    # of those, the ones holding each side of "X for Y" ("LLMs for time series": the LLMs too) are shown when any
    # is, the others offered first (the list read as before: a paper is never dropped for it); the first page's
    # spread is measured from the best of them
    held = [r for r in evidenced if r.shows or not stating]  # an answer's (a search ranks its page as before)
    demoted = {r.paper.id for r in evidenced if not r.shows} if held and stating else set()
    lenient = [r for r in evidenced if r.relevance >= best - spread] if spread else evidenced
    # none holding every side (no paper puts "active learning for materials discovery" so, nor names materials
    # beside active learning): an answer's first page is chosen as when no paper carries the topic, among the papers
    # close to all of it, not from one side's papers; they stay listed first, in the order of their evidence
    one_sided = stating and bool(evidenced) and not held
    evidenced = [] if one_sided else held or evidenced
    if spread:
        top = max(r.relevance for r in evidenced) if demoted else best
        evidenced = [r for r in evidenced if r.relevance >= top - spread]
    if stating:
        # papers firmly about the topic (title, or named twice in the abstract) are shown when any is; one naming it
        # once in its abstract is offered first after them
        firm = [r for r in evidenced if r.firm]
        if firm and len(firm) < len(evidenced):
            demoted = demoted | {r.paper.id for r in evidenced if not r.firm}
            evidenced = firm
        elif not firm and best >= FLOOR:
            # none is: a paper naming the topic once in its abstract (as often a passing mention) makes the page
            # only within MARGIN of the best paper; when none does, the page is chosen by meaning, as when no paper
            # carries the topic, and those naming it are offered first ("Enhanced DACER ..." naming "diffusion
            # policy" once, shown alone for "imitation learning with diffusion or flow policies" before the paper on
            # flow-matching policies learnt from demonstrations the ranking put first)
            near = [r for r in evidenced if r.relevance >= best - MARGIN]
            demoted = demoted | {r.paper.id for r in evidenced if r not in near}
            evidenced = near
    # papers that carry the topic's words make the first page; papers only similar in meaning make it when none
    # does, else they are offered with the rest (precision from ordering, nothing dropped)
    close = best - (MARGIN if len(evidenced) < ENOUGH_EVIDENCED else MARGIN / 2)
    similar = {r.paper.id for r in results if r.relevance >= max(FLOOR, close)}
    # a paper shown for its meaning alone still holds every part of the topic somewhere ("math" and "reasoning"),
    # unless none does: one close in a single part ("logical reasoning") is offered, not shown
    whole = {r.paper.id for r in results if r.every_part and r.paper.id in similar}
    whole = {r.paper.id for r in results if (r.shows or not stating) and r.paper.id in whole} or whole
    if not evidenced and not whole and not stating:
        # a search's page, when none of those close to the best holds every part ("exploration in deep RL": RL papers
        # that never say exploration): the papers that do, high in the fused order, are shown. An answer's page picks
        # its papers by their sentences instead (`_stating`); there this rule showed a web-extraction benchmark for
        # "hallucination / factuality in text LLMs" (docs/BENCHMARKS.md, "search11")
        whole = _whole_in_fused_order(results)
    pool = whole or similar
    if stating and not evidenced and not whole:
        # and when none holds every part, those holding the topic's rarest part when any does ("koopman operator
        # methods": the Koopman paper, not two neural-operator papers naming only "operator"; "LLMs that use touch /
        # tactile input": the visuo-tactile paper, not multimodal LLMs on images); the others are offered
        pool = {r.paper.id for r in results if r.rarest and r.paper.id in similar} or similar
    similar_shown = _stating(results, pool) if stating and not evidenced else pool
    shown = [r for r in results if r in evidenced or (r.paper.id in similar_shown and not evidenced)]
    beyond_page = 0
    if stating and not evidenced:
        beyond_page = max(0, len(shown) - MEANING_PAGE)
        shown = shown[:MEANING_PAGE]  # no word vouches for them: the closest few, the others offered
    taken = {r.paper.id for r in shown}
    wordless = _wordless_ranks(results)
    carrying = [
        r
        for r in results
        if r.paper.id not in taken
        and (
            r.in_title
            or r.in_abstract
            or r.every_part
            or r.paper.id in similar
            or bool(filters.authors)  # the papers of the author asked about, all of them (a handful)
            or _close_in_meaning(r, wordless.get(r.paper.id, 0), filters)
        )
    ]
    carrying = by_evidence(sorted(carrying, key=lambda r: r.paper.id not in demoted))
    if filters.contribution:
        # "which papers introduce a benchmark": papers whose main contribution is one come first; a method paper that
        # also releases its data is offered after them, and after the offered papers whose main contribution is one
        # and that hold each part of the topic, in words of their own ("SWE-bench Goes Live!" for "LLM agents")
        main = [r for r in shown if _makes_one(r)]
        if main:
            shown, carrying = main, [r for r in shown if r not in main] + carrying
        carrying = sorted(carrying, key=lambda r: not (r.every_part and _makes_one(r)))
    # then the papers carrying only a piece of the topic as typed (`Retrieved.loose`): listed, never dropped
    listed = taken | {r.paper.id for r in carrying}
    carrying += [r for r in results if r.loose and r.paper.id not in listed]
    return shown, carrying, len(lenient) - len(evidenced) if demoted else beyond_page


def _stating(results: Sequence[Retrieved], ids: set[str]) -> set[str]:
    """Of the papers `ids` an answer would show for their meaning alone, those whose best sentence is also close to
    the best one's (within SENTENCE_MARGIN): the whole-paper vector and the closest sentence agree. A paper near the
    topic as a whole but with no sentence stating it ("If Pigs Could Fly" for hallucination benchmarks) is offered;
    all of them are kept without sentence vectors."""
    close = [r for r in results if r.paper.id in ids and not np.isnan(r.sentence)]
    if not close:
        return ids
    best = max(r.sentence for r in close)
    return {r.paper.id for r in close if r.sentence >= best - SENTENCE_MARGIN}


def _makes_one(r: Retrieved) -> bool:
    """Whether the paper's main contribution is a benchmark or data set (its title, or its first sentence saying so)."""
    return bool(introduced_kinds(r.paper.title, r.paper.abstract, main=True))


def _narrowed(results: list[Retrieved]) -> tuple[list[Retrieved], list[Retrieved]]:
    """ "Which of those is about X": the papers about X shown (X in the title, or named more than once in the
    abstract: a single mention is often context, "inspired by the success of language models"), then those naming it
    once offered, and the NARROWED_CLOSE closest of the others that hold each part of X somewhere or come first in
    the fused ranking (a paper on "audio-language models" for "other multimodal models" names it in other words).
    When none is about X, those naming it are shown; when none names X, those naming each part of X somewhere (no
    abstract says "RL to get shorter reasoning" in one phrase) are shown first, then the closest few."""
    named = [r for r in results if r.in_title or r.in_abstract]
    if named:
        about = [r for r in named if r.about] or named
        others = [r for r in results if r not in named]
        mentioned = [r for r in named if r not in about]
        return about, [*mentioned, *sorted(others, key=lambda r: not r.every_part)[:NARROWED_CLOSE]]
    parts = [r for r in results if r.every_part]
    return [*parts, *(r for r in results[:NARROWED_CLOSE] if r not in parts)], []


def _whole_in_fused_order(results: Sequence[Retrieved]) -> set[str]:
    """The papers without the topic's words that hold every part of it somewhere and that the fused ranking puts among
    the first MEANING_RANKS of such papers, above FLOOR: when no paper carries the topic, the closest evidence of all
    of it, before papers close in meaning to one part."""
    wordless = _wordless_ranks(results)
    return {
        r.paper.id
        for r in results
        if r.every_part and wordless.get(r.paper.id, MEANING_RANKS) < MEANING_RANKS and r.relevance >= FLOOR
    }


def _wordless_ranks(results: Sequence[Retrieved]) -> dict[str, int]:
    """Each paper without the topic's words (title or abstract) by its rank among those papers in the fused order."""
    return {r.paper.id: n for n, r in enumerate(r for r in results if not (r.in_title or r.in_abstract))}


def _close_in_meaning(r: Retrieved, rank: int, filters: Filters) -> bool:
    """Whether a paper without the topic's words is offered: among the benchmark-introducing papers, by similarity or
    when its title and abstract hold every part of the topic somewhere (a "code benchmark" whose abstract speaks of
    generation elsewhere, for "code generation"); for any question (benchmark ones too) by similarity (NEAR), by
    its best sentence's similarity (SENTENCE_NEAR: one sentence states the topic in other words) or when the fused
    ranking (similarity, feedback
    and partial word evidence together) puts it among the first MEANING_RANKS of the papers without the topic's
    words (`rank`), above FLOOR. Counted among those papers, not among all: a topic many papers name ("LoRA") has as
    many written in other words as one few papers name. On the development searches, wordless papers in those ranks
    were on topic three times as often as the ones offered by similarity alone, which MiniLM gives as readily to a
    paper on one part of the topic ("diffusion models" for "diffusion language models")."""
    if filters.contribution and (r.dense >= CONTRIBUTION_NEAR or r.every_part):
        return True  # a benchmark holding every part of the topic somewhere is offered however phrased
    # and, as any question's, one close in meaning as a whole, by a sentence or in the fused order
    return r.dense >= NEAR or r.sentence >= SENTENCE_NEAR or (rank < MEANING_RANKS and r.relevance >= FLOOR)


def by_evidence(results: Sequence[Retrieved]) -> list[Retrieved]:
    """`results` with the papers carrying the topic's words (title or abstract) first and those only close in meaning
    after them, each part in its order: a paper matching by meaning alone ranks lower, it is never dropped."""
    return sorted(results, key=lambda r: not (r.in_title or r.in_abstract))


def lists_contributions(filters: Filters) -> bool:
    """Whether `filters` ask for every paper of a contribution type in their window and nothing else ("new datasets
    this week?"): no topic, author, constraint or previous papers rank or pick among them, so all of them are listed,
    as a day's papers are (the window bounded as a day listing's is: `bot.questions.listing.MAX_LISTED`)."""
    return bool(filters.contribution) and not (
        filters.topic or filters.authors or filters.restrict_to or filters.constraints
    )


def cut_at_most(offered: int) -> bool:
    """Whether a list offering `offered` further papers was cut at MAX_MORE: more papers may match than it lists."""
    return offered >= MAX_MORE


def as_told(words: int, meaning: int, cut: bool) -> tuple[str, str]:
    """How many listed papers carry the topic's words and how many are only close in meaning, as a reader is told.
    A list cut at MAX_MORE is cut at its end, so the last kind listed (those close in meaning, unless none is)
    reads 'at least N': answers, searches and their offers all say it this way."""
    if not cut:
        return str(words), str(meaning)
    return (str(words), f"at least {meaning}") if meaning else (f"at least {words}", str(meaning))


async def retrieve(
    core: Core, filters: Filters, *, profile: Profile | None = None, limit: int = MAX_CITATIONS, cut: bool = True
) -> tuple[list[Retrieved], list[Retrieved]]:
    """A search's matches, most relevant first: its first page (at most `limit`: the papers `select` shows, or when
    it shows none the papers carrying the topic's words) and the rest, offered after it (at most MAX_MORE: the first
    page's overflow, the other papers carrying the topic's words, then those only close in meaning; a list shorter
    than `limit` is filled up to it with the candidates next in the fused order, `_filling`). Without `cut`, the
    `limit` nearest whatever their relevance, no rest."""
    descriptive = await descriptive_compounds(core, filters.topic)  # for the ranking and the cut alike
    results, _ = await ranked(core, filters, profile=profile, descriptive=descriptive)
    if not cut:
        return results[:limit], []
    shown, carrying = select(results, filters, descriptive=descriptive)
    wording = [r for r in carrying if r.in_title or r.in_abstract]
    if wording and not any(r.in_title or r.in_abstract for r in shown):
        # a page `select` shows for meaning alone while papers name the query, all far from it in meaning (an acronym
        # the model embeds poorly: "MCTS" showed ten Monte Carlo papers before the two writing "MCTS" or "Monte Carlo
        # Tree Search"): the words come first, as everywhere else in the list; the papers close in meaning follow
        shown, carrying = [], [*wording, *shown, *(r for r in carrying if r not in wording)]
    # the page holds the papers naming the query as a search's first page reads it (`Retrieved.paged`: the whole
    # phrase where a common word only says where a rarer one lives, "knowledge distillation" not any "distilled
    # models"; each side of "X for Y"), when any does: the others open the rest, in their order (nothing dropped)
    whole = [r for r in shown if r.paged]
    if whole and len(whole) < len(shown):
        shown, carrying = whole, [*(r for r in shown if not r.paged), *carrying]
    # and those the fused ranking (every piece of evidence together) puts among its first `limit` candidates, when any
    # is: a paper naming the query that the fusion ranks after a page of others, most of them without its words, is
    # often a passing mention ("Topological Structure Learning ..." 37th for "graph generative models"); it opens the
    # rest, where the listed order already had it (shown in fused order: the far ones come last)
    fused_rank = {r.paper.id: n for n, r in enumerate(results)}
    near = [r for r in shown if fused_rank[r.paper.id] < limit]
    if near and len(near) < len(shown):
        shown, carrying = near, [*(r for r in shown if r not in near), *carrying]
    ordered = [*shown, *carrying]
    # the page: the papers `select` shows (the query in the title, or in an abstract close in meaning); a paper naming
    # it only in an abstract far from it (similarity under FLOOR, often a passing mention) opens the rest, as an
    # answer offers it, unless nothing else would make the page
    first = len(shown) or len(wording)
    page = min(first, limit)
    ordered = [*ordered[:page], *_fused_first(results, ordered, page, filters, limit, descriptive)]
    return ordered[:page], [*ordered[page:][:MAX_MORE], *_filling(results, ordered, filters, limit, descriptive)]


def _fused_first(
    results: Sequence[Retrieved],
    ordered: Sequence[Retrieved],
    page: int,
    filters: Filters,
    limit: int,
    descriptive: Collection[str],
) -> list[Retrieved]:
    """A search's list after its first page: the papers the fused ranking puts among its first FUSED_DEPTH
    candidates come first, in the order the list had them (those carrying the query's words before those close in
    meaning), joined, in a list of at least `limit` papers, by the ones of them nothing else listed (a shorter list is
    filled in the fused order, `_filling`); then the rest as listed. The list otherwise puts every
    paper naming the query before any written in other words, so a passing mention that the fusion of every ranking
    puts 30th came before a paper it puts 3rd ("Identifying Super Spreaders in Multilayer Networks" for "network
    science"). `ordered`: the list, its first `page` papers the page. Not for an author's papers, a name's or a
    previous list's (nothing else is asked for)."""
    rest = ordered[page:]
    if not ordered or filters.restrict_to or (filters.authors and not filters.topic):
        return list(rest)
    if any(r.named for r in results) and names_only(filters.topic, descriptive):
        return list(rest)
    fused_rank = {r.paper.id: n for n, r in enumerate(results)}
    listed = {r.paper.id for r in ordered}
    joined = [*rest, *(r for r in results[:FUSED_DEPTH] if r.paper.id not in listed and len(ordered) >= limit)]
    return sorted(joined, key=lambda r: fused_rank[r.paper.id] >= FUSED_DEPTH)


def _filling(
    results: Sequence[Retrieved],
    ordered: Sequence[Retrieved],
    filters: Filters,
    limit: int,
    descriptive: Collection[str],
) -> list[Retrieved]:
    """The candidates that fill a search's short list up to `limit` papers, next in the fused order after the ones
    listed: a list that stops at four papers when its topic's papers are written in other words ("geometric
    reasoning" for "geometry problem solving", dense similarity under FLOOR) would hide the one ranked fifth, while a
    page of ten shows what follows it. They come after everything listed, as papers close in meaning (the first page
    is unchanged). Not for an author's papers or a name's (all of them are listed, and nothing else is asked for),
    nor when nothing is listed (no evidence of the topic at all)."""
    if not ordered or len(ordered) >= limit or (filters.authors and not filters.topic):
        return []
    if any(r.named for r in ordered) and names_only(filters.topic, descriptive):
        return []
    listed = {r.paper.id for r in ordered}
    return [r for r in results if r.paper.id not in listed][: limit - len(ordered)]


async def retrieve_all(
    core: Core, filters: Filters, *, profile: Profile | None = None, limit: int = MAX_CITATIONS
) -> tuple[list[Retrieved], list[Retrieved]]:
    """The papers to show (at most `limit`) and the rest of the matching ones to offer (at most MAX_MORE, all of them
    for a listing of a contribution type, `lists_contributions`; those carrying the topic's words before those only
    close in meaning)."""
    descriptive = await descriptive_compounds(core, filters.topic)  # for the ranking and the cut alike
    results, _ = await ranked(core, filters, profile=profile, descriptive=descriptive)
    # an answer shows a few papers and offers the rest; a search's first page is another matter (`retrieve`)
    shown, carrying, moved = _grazing_offered(
        *_selected(results, filters, SPREAD, stating=True, descriptive=descriptive)
    )
    offered = [*shown[limit:], *carrying]
    if lists_contributions(filters):
        return shown[:limit], offered
    # papers a first page offers instead of showing them (a side of the topic missing, or beyond MEANING_PAGE) leave
    # the listing at least as long as before: the offer's cap grows by as many
    return shown[:limit], offered[: MAX_MORE + max(0, moved)]
