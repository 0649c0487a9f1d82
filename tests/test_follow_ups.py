"""Issue 22: follow-up questions read as the previous request plus a new constraint.

"those", "them", "the ones", "which of those" and a question picking with its noun left out ("any on video?",
"which use RL?") narrow the previous answer's whole match list by a constraint read as any question is read; a time
phrase alone moves the whole previous request (topic, narrowing, contribution, exclusions) to that day; a day with
nothing stored is named. Conversations over the bundled day's real papers, on topics of their own (diffusion and
video, reinforcement learning and reasoning, speech, agents and benchmarks).
"""

from __future__ import annotations

import dataclasses
import datetime as dt

import numpy as np
import pytest

from bot.core import Core
from bot.embeddings.embedder import LocalEmbedder, paper_vectors
from bot.ingest.limits import clean_paper
from bot.models import Paper
from bot.questions import rag
from bot.questions.filters import Filters
from bot.questions.rag import NOTHING_TO_NARROW, Answer, Turn, ask, parse_question
from bot.questions.request import NOT_METHODS, read_request, verb_of
from bot.questions.retrieval import Retrieved, select
from bot.text.extractive import extractive_tldr
from bot.text.introduces import introduces_benchmark

MONDAY, THURSDAY, FRIDAY = dt.date(2025, 5, 26), dt.date(2025, 5, 29), dt.date(2025, 5, 30)
TUESDAY = dt.date(2025, 5, 27)
VIDEO_DIFFUSION = "2505.17561"  # "... Bayesian Active Noise Selection via Attention in Video Diffusion"
_TOPICAL = ("diffusion", "video", "speech", "reinforcement", " rl", "agent", "theor")


@pytest.fixture(scope="module")
def conversation_papers(demo_papers: list[Paper], embedder: LocalEmbedder) -> tuple[list[Paper], np.ndarray]:
    """The bundled day's papers on the conversations' topics plus 40 others, spread over Monday, Thursday and
    Friday of one week (nothing on Tuesday), and their vectors."""
    topical = [p for p in demo_papers if any(w in f" {p.title.lower()}" for w in _TOPICAL)]
    others = [p for p in demo_papers if p not in topical][:40]
    days = (MONDAY, THURSDAY, FRIDAY)
    papers = [dataclasses.replace(clean_paper(p), announced=days[n % 3]) for n, p in enumerate([*topical, *others])]
    return papers, paper_vectors(embedder.embed, papers)


@pytest.fixture
async def stored(core: Core, conversation_papers: tuple[list[Paper], np.ndarray]) -> dict[str, Paper]:
    """The conversation papers stored as ingest stores them; by id."""
    papers, vectors = conversation_papers
    await core.repo.upsert_papers(papers)
    tldrs = {p.id: extractive_tldr(p) for p in papers}
    await core.repo.set_tldrs(tldrs, "extractive")
    await core.vectors.upsert(papers, vectors, [tldrs[p.id] for p in papers])
    return {p.id: p for p in papers}


def _bounds_paper(paper_id: str, day: dt.date = FRIDAY) -> Paper:
    """A theory paper on variational inference: an upper bound proved and a matching lower bound."""
    return Paper(
        paper_id,
        "Sample Complexity of Variational Inference",
        ("A. Author",),
        "We prove an upper bound on the sample complexity of variational inference for exponential families and a "
        "matching lower bound.",
        ("stat.ML",),
        day,
    )


async def _store(core: Core, embedder: LocalEmbedder, made: list[Paper]) -> None:
    """Store `made` with their extractive TL;DRs and vectors, as an ingest would."""
    tldrs = {p.id: extractive_tldr(p) for p in made}
    await core.repo.upsert_papers(made)
    await core.repo.set_tldrs(tldrs, "extractive")
    await core.vectors.upsert(made, paper_vectors(embedder.embed, made), [tldrs[p.id] for p in made])


async def _answered(core: Core, conversation_id: str, topic: str, listed: list[str]) -> None:
    """An earlier answer in `conversation_id` on `topic` over the stored week, listing `listed` in that order."""
    turn = Turn(topic, ("2025-05-26", "2025-05-30"), [], [], listed, [])
    await core.repo.save_conversation_state(conversation_id, turn.to_json(), "", max_age=dt.timedelta(hours=1))


def _listed(answer: Answer) -> list[Paper]:
    return [*answer.citations, *answer.more]


# ---------------------------------------------------------------- reading a follow-up


PREVIOUS = Turn("diffusion models", ("2025-05-26", "2025-05-30"), [], [], ["a", "b"], ["c"])


@pytest.mark.parametrize(
    ("question", "constraint"),
    [
        ("which of those are theoretical?", "theoretical"),
        ("only the theoretical ones", "theoretical"),
        ("which of them use RL?", "use RL"),  # an active verb is what the papers do
        ("and the ones using reinforcement learning?", "reinforcement learning"),
        ("any of these about video?", "video"),
        ("any on video?", "video"),
        ("which use RL", "use RL"),
        ("which of those are video ones?", "video"),
        ("what about video?", "video"),
        ("only those about protein design", "protein design"),
        ("filter to those about audio", "audio"),
        ("do any of them use transformers?", "use transformers"),
        # a relation word ("in", "for", "on") is a word of its own, never the start of the constraint's first word
        ("which of those involve LoRA adapters?", "involve LoRA adapters"),
        ("which of them are forecasting ones", "forecasting"),
        ("which of those are online methods?", "online methods"),
    ],
)
def test_a_follow_up_narrows_the_previous_request_by_its_constraint(question: str, constraint: str) -> None:
    filters = parse_question(question, FRIDAY, PREVIOUS)
    assert filters.topic == "diffusion models"  # the previous topic is kept
    assert filters.constraints == (constraint,)
    assert set(filters.restrict_to) == {"a", "b", "c"}  # the previous answer's whole list, not its first page


@pytest.mark.parametrize(
    ("question", "topic", "excluded"),
    [
        (
            "I need papers on time series forecasting with transformers, but not LLM-based ones",
            "time series forecasting with transformers",
            ("LLM-based",),
        ),
        ("papers on RL, except the ones about robotics", "RL", ("robotics",)),
        ("papers on RL other than those about robotics", "RL", ("robotics",)),
        ("the papers on RL, except the ones about robotics", "RL", ("robotics",)),  # "the" with a topic of its own
    ],
)
def test_a_pronoun_standing_for_the_questions_own_papers_asks_anew(
    question: str, topic: str, excluded: tuple[str, ...]
) -> None:
    """ "I need papers on X, but not LLM-based ones" after an answer on chess models narrowed that answer to X: "ones"
    stands for the papers the question itself names, so it is a new question with its exclusion."""
    filters = parse_question(question, FRIDAY, PREVIOUS)
    assert (filters.topic, filters.excluded, filters.constraints, filters.restrict_to) == (topic, excluded, (), ())


@pytest.mark.parametrize(
    "question", ["anything on continual learning?", "which of those are about continual learning?"]
)
def test_after_an_answer_that_listed_nothing_a_follow_up_asks_anew_over_its_window(question: str) -> None:
    """ "anything on continual learning?" after "which papers study grokking?" (none stored) narrowed the empty answer
    and opened with "None of the 0 papers about study grokking is about continual learning": nothing was listed to
    pick among, so it is a new question over the same window."""
    nothing = Turn("grokking", ("2025-05-26", "2025-05-29"), [], [], [], [])
    filters = parse_question(question, FRIDAY, nothing)
    assert (filters.topic, filters.constraints, filters.restrict_to) == ("continual learning", (), ())
    assert filters.window is not None and (filters.window.start, filters.window.end) == (MONDAY, THURSDAY)
    assert parse_question("and from Friday?", FRIDAY, nothing).topic == "grokking"


def test_a_pronoun_for_an_answer_that_listed_nothing_is_said_to_be_asked_anew() -> None:
    """ "which of those are theoretical?" after an answer listing no paper silently answered every theory paper
    stored: the answer now says there were none to pick from and that the question is asked on its own; a new topic
    without a pronoun ("anything on continual learning?") needs no such word."""
    nothing = Turn("grokking", ("2025-05-26", "2025-05-29"), [], [], [], [])
    assert parse_question("which of those are theoretical?", FRIDAY, nothing).note == NOTHING_TO_NARROW
    assert parse_question("anything on continual learning?", FRIDAY, nothing).note == ""
    assert parse_question("which of those are theoretical?", FRIDAY, PREVIOUS).note == ""


async def test_the_answer_says_there_was_nothing_to_narrow(core: Core, embedder: LocalEmbedder) -> None:
    await _store(core, embedder, [_bounds_paper("2505.00001")])
    await core.repo.save_conversation_state(
        "c", Turn("grokking", ("2025-05-26", "2025-05-30"), [], [], [], []).to_json(), "", max_age=dt.timedelta(hours=1)
    )
    answer = await ask(core, "which of those are about variational inference?", today=FRIDAY, conversation_id="c")
    assert answer.text.startswith(NOTHING_TO_NARROW)
    assert [p.id for p in answer.citations] == ["2505.00001"]


@pytest.mark.parametrize(
    "question",
    [
        "which of those papers are about vision?",
        "any papers like those on video?",
        "any among these papers?",
        # "the papers" alone is the answer's: its head pronoun points back as before
        "of the papers you listed, which ones are about vision?",
        "from the papers above, which ones are about vision?",
        "among your papers, only the ones about vision",
    ],
)
def test_a_pronoun_pointing_at_the_previous_papers_still_narrows(question: str) -> None:
    filters = parse_question(question, FRIDAY, PREVIOUS)
    assert filters.topic == "diffusion models" and set(filters.restrict_to) == {"a", "b", "c"}


@pytest.mark.parametrize(
    ("question", "constraint"),
    [
        ("narrow it down to the theoretical ones", "theoretical"),  # a verb of narrowing and what it keeps
        ("can you restrict the list to video?", "video"),
        ("and for protein design?", "protein design"),  # the same topic for something else: the previous papers
        ("but in robotics?", "robotics"),
        ("the theoretical ones only", "theoretical"),  # "only" after the pronoun says nothing of the papers
        ("any others about protein design?", "protein design"),  # "others" as "ones"
    ],
)
def test_a_request_to_narrow_or_to_apply_the_topic_elsewhere_narrows(question: str, constraint: str) -> None:
    filters = parse_question(question, FRIDAY, PREVIOUS)
    assert filters.topic == "diffusion models" and filters.constraints == (constraint,)
    assert set(filters.restrict_to) == {"a", "b", "c"}
    if question.startswith(("narrow", "can you")):  # as explicit as a pronoun: never answered as a new topic
        assert not filters.loose


@pytest.mark.parametrize("question", ["restrict to Thursday", "filter to Thursday's", "narrow down to Thursday"])
def test_a_verb_of_narrowing_without_its_object_narrows_to_a_day(question: str) -> None:
    # "restrict to Thursday" had been a new question about "restrict"
    filters = parse_question(question, FRIDAY, PREVIOUS)
    assert filters.topic == "diffusion models"
    assert filters.window is not None and filters.window.start == filters.window.end == THURSDAY


@pytest.mark.parametrize("question", ["restrict to today", "limit it to today's papers", "narrow it down to today"])
def test_narrowing_to_today_is_today_alone_not_every_day_up_to_today(question: str) -> None:
    # "to today" had been read as "up to today" (no window) and "limit"/"restrict" as a new question's topic
    filters = parse_question(question, FRIDAY, PREVIOUS)
    assert filters.topic == "diffusion models"
    assert filters.window is not None and filters.window.start == filters.window.end == FRIDAY


def test_something_similar_on_another_day_is_the_previous_request_on_that_day() -> None:
    filters = parse_question("anything similar from Thursday?", FRIDAY, PREVIOUS)
    assert filters.topic == "diffusion models" and not filters.restrict_to
    assert filters.window is not None and filters.window.start == filters.window.end == THURSDAY
    # a new topic opening with "and" stays a new topic
    assert parse_question("and protein design?", FRIDAY, PREVIOUS).topic == "protein design"


def test_the_verb_a_selecting_subject_does_is_told_apart() -> None:
    for question in (
        "which of those use RL?",
        "which use RL",
        "any that apply RL?",
        "do any of them use transformers?",
    ):
        assert verb_of(question) in {"use", "apply"}, question
    for question in ("which of those are theoretical?", "any on video?", "any video diffusion?", "what about video?"):
        assert verb_of(question) == "", question
    # a noun right after the subject is no verb (it was, and the answer named the constraint "or flow-matching")
    assert verb_of("any of them diffusion or flow-matching based?") == ""
    assert verb_of("which of them mention LoRA?") == "mention" and verb_of("which of those rely on RL?") == "rely"


def test_a_new_question_with_a_subject_of_its_own_is_no_follow_up() -> None:
    for question in ("any speech papers?", "speech this week?", "speech?"):
        filters = parse_question(question, FRIDAY, PREVIOUS)
        assert filters.topic == "speech" and not filters.restrict_to and not filters.constraints, question


def test_a_time_phrase_alone_moves_the_whole_previous_request() -> None:
    narrowed = Turn(
        "agents", None, [], [], ["a"], [], constraints=["video"], contribution="benchmark", excluded=["LLM"]
    )
    moved = parse_question("and from Thursday?", FRIDAY, narrowed)
    assert moved.window is not None and moved.window.start == moved.window.end == THURSDAY
    assert moved.topic == "agents" and moved.constraints == ("video",)
    assert moved.contribution == "benchmark" and moved.excluded == ("LLM",)
    assert not moved.restrict_to  # the request again on that day, not the previous papers
    for question in ("same for Thursday", "what about Thursday?", "the same but on Thursday please"):
        again = parse_question(question, FRIDAY, narrowed)
        assert again.constraints == ("video",) and not again.restrict_to, question
    only = parse_question("only the ones from Thursday?", FRIDAY, narrowed)
    assert only.restrict_to == ("a",) and only.topic == "agents" and not only.constraints


def test_instead_replaces_what_it_names_and_keeps_the_rest() -> None:
    asked = Turn(
        "agents",
        ("2025-05-26", "2025-05-26"),
        ["Kai Chen"],
        ["cs.CL"],
        ["a"],
        ["b"],
        constraints=["video"],
        contribution="benchmark",
        excluded=["LLM"],
    )
    # another topic: the previous request (its day, authors, categories, contribution) about it, not a narrowing of
    # the papers listed, and without the old topic's narrowings and exclusions; "instead of X" names what goes
    for question in ("what about speech instead?", "speech instead of agents?", "and speech papers instead?"):
        other = parse_question(question, FRIDAY, asked)
        assert other.topic == "speech" and not other.restrict_to and not other.constraints, question
        assert other.window is not None and other.window.start == other.window.end == MONDAY, question
        assert other.authors == ("Kai Chen",) and other.categories == ("cs.CL",), question
        assert other.contribution == "benchmark" and not other.excluded, question
    # another day: the whole previous request on that day, as "and from Thursday?"
    moved = parse_question("what about Thursday instead?", FRIDAY, asked)
    assert moved.topic == "agents" and moved.constraints == ("video",) and not moved.restrict_to
    assert moved.window is not None and moved.window.start == moved.window.end == THURSDAY
    # with a pronoun it still picks among the papers listed, by what replaces
    picked = parse_question("which of those are about audio instead of video?", FRIDAY, asked)
    assert picked.restrict_to == ("a", "b") and picked.constraints == ("audio",)


@pytest.mark.parametrize(
    "question",
    [
        "no, I meant speech",
        "I meant speech papers",
        "no I mean speech",
        "meant speech?",
        "sorry, speech not agents",
        "sorry, I meant speech, not agents",
        "oh I meant to ask about speech",
    ],
)
def test_a_correction_asks_the_previous_request_about_what_was_meant(question: str) -> None:
    """ "I meant X" (the speaker's own "mean" opening it) and "X, not Y" naming what was asked before correct the
    request: X replaces its topic and the rest is kept, as "instead" does; "no, I meant speech" was the topic
    "meant speech" over every day, and "sorry, speech not agents" the topic "sorry, speech"."""
    asked = Turn("agents", ("2025-05-26", "2025-05-26"), [], ["cs.CL"], ["a"], ["b"], contribution="benchmark")
    corrected = parse_question(question, FRIDAY, asked)
    assert corrected.topic == "speech" and not corrected.excluded and not corrected.restrict_to, question
    assert corrected.window is not None and corrected.window.start == corrected.window.end == MONDAY, question
    assert corrected.contribution == "benchmark" and corrected.categories == ("cs.CL",), question
    # an exclusion of something else still excludes, and "I mean," is a filler, not a correction
    kept = parse_question("and speech, not agents with tools?", FRIDAY, Turn("speech", None, [], [], ["a"], []))
    assert kept.excluded == ("agents with tools",)
    assert parse_question("I mean, any on video?", FRIDAY, PREVIOUS).restrict_to


@pytest.mark.parametrize(
    ("question", "topic", "excluded"),
    [
        ("agents, not LLM agents?", "agents", ("LLM",)),
        ("multi-agent systems, not LLM agents", "multi-agent systems", ("LLM agents",)),
    ],
)
def test_an_exclusion_of_a_kind_of_the_new_topic_is_no_correction(
    question: str, topic: str, excluded: tuple[str, ...]
) -> None:
    """An exclusion naming what was asked before corrects the request only when it shares no word with the new topic:
    "agents, not LLM agents" after LLM agents asks for the other agents; the exclusion was dropped (every agent)."""
    asked = Turn("LLM agents", ("2025-05-26", "2025-05-26"), [], [], ["a"], ["b"])
    filters = parse_question(question, FRIDAY, asked)
    assert filters.topic == topic and filters.excluded == excluded, question


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("mean-field games?", "mean-field games"),
        ("mean field theory papers?", "mean field theory"),
        ("and mean teacher models?", "mean teacher models"),
    ],
)
def test_mean_as_a_topic_word_is_no_correction(question: str, topic: str) -> None:
    """The present "mean" corrects only after its speaker ("I mean speech"): bare, it is a word of the topic ("mean
    field", "mean teacher"); "mean-field games?" after an answer was the topic "-field games" over the previous day."""
    asked = Turn("agents", ("2025-05-26", "2025-05-26"), [], ["cs.CL"], ["a"], ["b"])
    filters = parse_question(question, FRIDAY, asked)
    assert filters.topic == topic, question


@pytest.mark.parametrize(
    ("question", "excluded"),
    [
        ("excluding the image ones", "image"),
        ("and excluding image ones?", "image"),
        ("but not the ones about images", "images"),
        ("except the LLM ones please", "LLM"),
    ],
)
def test_a_follow_up_opening_with_an_exclusion_of_the_papers_excludes(question: str, excluded: str) -> None:
    # it was a narrowing to the papers naming "excluding the image"
    filters = parse_question(question, FRIDAY, PREVIOUS)
    assert filters.topic == "diffusion models" and filters.excluded == (excluded,) and not filters.constraints
    assert set(filters.restrict_to) == {"a", "b", "c"}
    # a first question opening so excludes nothing, and "non-convex ones" picks the non-convex ones
    assert not parse_question("non-convex ones?", FRIDAY, PREVIOUS).excluded
    assert not parse_question("excluding the image ones", FRIDAY).excluded


def test_an_interjection_opening_a_follow_up_is_no_topic() -> None:
    # "ok and from Thursday?" was a new question about "ok"
    moved = parse_question("ok and from Thursday?", FRIDAY, PREVIOUS)
    assert moved.topic == "diffusion models" and not moved.restrict_to
    assert moved.window is not None and moved.window.start == THURSDAY
    assert parse_question("ok, what about video generation instead?", FRIDAY, PREVIOUS).topic == "video generation"


@pytest.mark.parametrize(
    "question",
    [
        "not really, what about speech?",
        "hmm, what about speech?",
        "no, what about speech?",
        "well what about speech?",
        "actually... what about speech?",
        "hmm any on speech?",
        "yeah thanks! what about speech?",
    ],
)
def test_a_reaction_opening_a_follow_up_is_dropped(question: str) -> None:
    # "not really, what about speech?" was a new question about "not really, what about speech"
    filters = parse_question(question, FRIDAY, PREVIOUS)
    assert filters.topic == "diffusion models" and filters.constraints == ("speech",), question
    assert set(filters.restrict_to) == {"a", "b", "c"}


def test_a_reaction_word_is_kept_where_it_is_no_opening() -> None:
    assert parse_question("no-regret learning papers?", FRIDAY, PREVIOUS).topic == "no-regret learning"
    assert parse_question("well-posed inverse problems?", FRIDAY, PREVIOUS).topic == "well-posed inverse problems"
    assert parse_question("not the image ones", FRIDAY, PREVIOUS).excluded == ("image",)
    assert parse_question("not really, what about speech?", FRIDAY).topic != "speech"  # a first question stays


@pytest.mark.parametrize("question", ["anything on diffusion models?", "which of those are about diffusion models?"])
def test_the_question_asked_again_narrows_nothing(question: str) -> None:
    """ "anything on KV cache eviction this week?" asked twice answered "2 papers about KV cache eviction and about KV
    cache eviction": the previous topic (or narrowing) named again narrows nothing."""
    filters = parse_question(question, FRIDAY, PREVIOUS)
    assert (filters.topic, filters.constraints) == ("diffusion models", ())
    narrowed = dataclasses.replace(PREVIOUS, constraints=["video"])
    assert parse_question("and which are about video?", FRIDAY, narrowed).constraints == ()


@pytest.mark.parametrize("question", ["which are about diffusion?", "which of those are about models?"])
def test_a_part_of_the_topic_narrows_nothing(question: str) -> None:
    """ "which are about KV cache?" after KV cache eviction answered "about KV cache eviction and about KV cache":
    every paper found for a topic is about each of its parts, so a part narrows nothing."""
    assert parse_question(question, FRIDAY, PREVIOUS).constraints == ()


def test_one_of_the_topics_alternatives_still_narrows() -> None:
    """After "RAG or agents", "agents" picks one of the two alternatives: it narrows."""
    either = dataclasses.replace(PREVIOUS, topic="RAG or agents")
    assert parse_question("which of those are about agents?", FRIDAY, either).constraints == ("agents",)


def test_a_new_topic_after_a_narrowing_to_a_day_is_asked_over_the_requests_window() -> None:
    """ "what about speech?" after "RL papers" and "only the ones from Thursday" answered "51 papers about speech
    announced on 2025-05-29": a new topic is asked over the conversation's request's window (the week), not over the
    day a narrowing kept."""
    thursday = parse_question("only the ones from Thursday", FRIDAY, PREVIOUS)
    assert thursday.window is not None and (thursday.window.start, thursday.window.end) == (THURSDAY, THURSDAY)
    assert thursday.asked_window is not None
    assert (thursday.asked_window.start, thursday.asked_window.end) == (MONDAY, FRIDAY)
    narrowed = dataclasses.replace(
        PREVIOUS, window=("2025-05-29", "2025-05-29"), asked_window=["2025-05-26", "2025-05-30"]
    )
    narrowed = Turn.from_json(narrowed.to_json())  # kept with the conversation
    loose = parse_question("what about speech?", FRIDAY, narrowed)  # a narrowing first; anew over the week
    assert loose.window is not None and (loose.window.start, loose.window.end) == (THURSDAY, THURSDAY)
    assert loose.asked_window is not None and (loose.asked_window.start, loose.asked_window.end) == (MONDAY, FRIDAY)
    anew = parse_question("and diffusion papers?", FRIDAY, narrowed)
    assert anew.window is not None and (anew.window.start, anew.window.end) == (MONDAY, FRIDAY)
    assert parse_question("and diffusion papers on Thursday?", FRIDAY, narrowed).window.start == THURSDAY


@pytest.mark.parametrize(
    ("question", "constraint"),
    [
        ("same field, but only theory papers", "theory"),
        ("the same topic but theoretical", "theoretical"),
        ("same area, only the ones on video", "video"),
    ],
)
def test_the_same_field_with_more_said_narrows_the_previous_request(question: str, constraint: str) -> None:
    """ "same field, but only theory papers" was a new question about "theory": "the same field" names the previous
    request, and what the question adds narrows it."""
    filters = parse_question(question, FRIDAY, PREVIOUS)
    assert (filters.topic, filters.constraints) == ("diffusion models", (constraint,)), question
    assert set(filters.restrict_to) == {"a", "b", "c"}


@pytest.mark.parametrize(
    "question",
    [
        "same question for Thursday",
        "the same question but for Thursday?",
        "same search for Thursday?",
        "and the same topic on Thursday",  # "topic" had become the topic
        "same subject, but Thursday?",
    ],
)
def test_the_same_question_for_another_day_asks_the_previous_request_again(question: str) -> None:
    # "question" was read as the topic
    moved = parse_question(question, FRIDAY, PREVIOUS)
    assert moved.topic == "diffusion models" and not moved.restrict_to, question
    assert moved.window is not None and moved.window.start == moved.window.end == THURSDAY, question
    assert parse_question("visual question answering on Thursday?", FRIDAY, PREVIOUS).topic == (
        "visual question answering"
    )


@pytest.mark.parametrize(
    "question",
    [
        "any by Kai Chen?",
        "and by Kai Chen?",
        "what about by Kai Chen?",
        "anything by Kai Chen?",
        "anything from Kai Chen?",
        "any from Kai Chen?",
        "something by Kai Chen?",
    ],
)
def test_a_follow_up_naming_only_an_author_narrows_the_previous_request(question: str) -> None:
    # it was a new question for everything by Kai Chen, on any day ("anything by" too: "anything" was not read as
    # "any" with its noun left out)
    filters = parse_question(question, FRIDAY, PREVIOUS)
    assert filters.topic == "diffusion models" and filters.authors == ("Kai Chen",), question
    assert filters.window is not None and (filters.window.start, filters.window.end) == (MONDAY, FRIDAY), question
    asked_anew = parse_question("papers by Kai Chen?", FRIDAY, PREVIOUS)
    assert not asked_anew.topic and asked_anew.window is None


def test_a_later_sentence_that_selects_is_a_refinement_not_a_side_request() -> None:
    assert read_request("diffusion papers? any on video?").refinements == ("video",)
    assert read_request("reinforcement learning papers. Which of them are about reasoning?").refinements == (
        "reasoning",
    )
    # a sentence asking about the papers' content is still no refinement, and adds nothing to the topic
    asking = read_request("Is there anything on KV caches? What do they propose?")
    assert asking.refinements == () and "propose" not in asking.text
    filters = parse_question("diffusion papers? any on video?", FRIDAY)
    assert filters.topic == "diffusion" and filters.constraints == ("video",)


def test_a_turn_keeps_the_whole_request() -> None:
    turn = Turn("agents", None, [], [], ["a"], [], constraints=["video"], contribution="benchmark", excluded=["LLM"])
    assert Turn.from_json(turn.to_json()) == turn


# ---------------------------------------------------------------- conversations over real papers


async def test_any_on_video_narrows_the_diffusion_answer(core: Core, stored: dict[str, Paper]) -> None:
    first = await ask(core, "diffusion model papers this week?", today=FRIDAY, conversation_id="v")
    before = {p.id for p in _listed(first)}
    answer = await ask(core, "any on video?", today=FRIDAY, conversation_id="v")
    shown = {p.id for p in answer.citations}
    assert VIDEO_DIFFUSION in shown and shown <= before
    assert all("video" in f"{p.title} {p.abstract}".lower() for p in answer.citations)


async def test_a_follow_up_naming_nothing_does_not_send_the_previous_answer_again(
    core: Core, stored: dict[str, Paper]
) -> None:
    """'thanks!' or 'ok' after an answer names no topic, author, category, exclusion nor day: it was read as the
    previous request again and the whole answer (its papers, their TL;DRs) was sent a second time."""
    first = await ask(core, "diffusion model papers this week?", today=FRIDAY, conversation_id="t")
    assert first.citations
    for said in ("thanks!", "ok"):
        again = await ask(core, said, today=FRIDAY, conversation_id="t")
        assert not again.citations and not again.more, said
    moved = await ask(core, "diffusion model papers this week?", today=FRIDAY, conversation_id="t2")
    assert (await ask(core, "and from Thursday?", today=FRIDAY, conversation_id="t2")).citations and moved.citations


async def test_a_refinement_in_the_same_message_is_applied(core: Core, stored: dict[str, Paper]) -> None:
    answer = await ask(core, "diffusion papers? any on video?", today=FRIDAY)
    assert VIDEO_DIFFUSION in {p.id for p in answer.citations}
    for paper in answer.citations:
        text = f"{paper.title} {paper.abstract}".lower()
        assert "diffusion" in text and "video" in text


async def test_a_day_move_after_a_narrowing_keeps_both(core: Core, stored: dict[str, Paper]) -> None:
    await ask(core, "reinforcement learning papers", today=FRIDAY, conversation_id="r")
    narrowed = await ask(core, "which of them are about reasoning?", today=FRIDAY, conversation_id="r")
    assert narrowed.citations
    moved = await ask(core, "and from Thursday?", today=FRIDAY, conversation_id="r")
    assert moved.window == (THURSDAY, THURSDAY) and moved.citations
    for paper in _listed(moved):
        text = f"{paper.title} {paper.abstract}".lower()
        assert paper.announced == THURSDAY
        both = "reason" in text and ("reinforcement" in text or " rl" in text)
        # the papers shown are about both; one only close in meaning to either is offered after them, and said so
        assert both or (paper in moved.more and paper.id in moved.by_meaning)
    assert all("reason" in f"{p.title} {p.abstract}".lower() for p in moved.citations)


async def test_a_contribution_follow_up_is_kept_on_a_day_move(core: Core, stored: dict[str, Paper]) -> None:
    await ask(core, "papers on LLM agents", today=FRIDAY, conversation_id="b")
    benchmarks = await ask(core, "which of these introduce a benchmark?", today=FRIDAY, conversation_id="b")
    assert benchmarks.citations and all(introduces_benchmark(p.title, p.abstract) for p in benchmarks.citations)
    moved = await ask(core, "and from Monday?", today=FRIDAY, conversation_id="b")
    assert moved.window == (MONDAY, MONDAY)
    assert moved.citations
    _benchmarks_first(moved)  # papers on the topic that only name an evaluation are offered after them, said so


async def test_a_day_with_nothing_stored_is_named(core: Core, stored: dict[str, Paper]) -> None:
    await ask(core, "speech papers from Thursday", today=FRIDAY, conversation_id="s")
    answer = await ask(core, "and Tuesday?", today=FRIDAY, conversation_id="s")
    assert not answer.citations and answer.window == (TUESDAY, TUESDAY)
    assert "Tuesday" in answer.text and "2025-05-27" in answer.text and "stored" in answer.text


async def test_a_list_of_days_asks_about_each_of_them(core: Core, stored: dict[str, Paper]) -> None:
    first = await ask(core, "speech papers from Friday", today=FRIDAY, conversation_id="l")
    assert first.citations
    answer = await ask(core, "and Monday and Thursday?", today=FRIDAY, conversation_id="l")
    assert answer.filters.topic == "speech" and answer.filters.window is not None
    assert answer.filters.window.days == (MONDAY, THURSDAY)
    days = {p.announced for p in _listed(answer)}
    assert days == {MONDAY, THURSDAY}  # both days, and nothing of Tuesday or Wednesday's range
    assert "Monday 2025-05-26 and Thursday 2025-05-29" in answer.text
    # a day of the list with nothing stored is named, the others answered
    partly = await ask(core, "and Monday and Tuesday?", today=FRIDAY, conversation_id="l")
    assert "No papers are stored for Tuesday 2025-05-27." in partly.text
    assert partly.citations and {p.announced for p in _listed(partly)} == {MONDAY}


async def test_a_new_topic_asked_as_a_continuation_keeps_the_day(core: Core, stored: dict[str, Paper]) -> None:
    await ask(core, "speech papers from Thursday", today=FRIDAY, conversation_id="c")
    for question in ("and diffusion?", "how about diffusion papers?"):
        answer = await ask(core, question, today=FRIDAY, conversation_id="c")
        assert answer.filters.topic.startswith("diffusion") and not answer.filters.restrict_to, question
        assert answer.window == (THURSDAY, THURSDAY) and answer.citations, question
        assert all(p.announced == THURSDAY for p in _listed(answer)), question
        await ask(core, "speech papers from Thursday", today=FRIDAY, conversation_id="c")
    # a question of its own, without a word continuing the last one, is asked anew over every stored day
    fresh = await ask(core, "diffusion papers?", today=FRIDAY, conversation_id="c")
    assert fresh.window[0] < THURSDAY


async def test_a_refinement_nothing_previous_carries_becomes_a_new_topic(core: Core, stored: dict[str, Paper]) -> None:
    await ask(core, "speech papers this week", today=FRIDAY, conversation_id="n")
    answer = await ask(core, "what about diffusion?", today=FRIDAY, conversation_id="n")
    assert answer.citations and "diffusion" in answer.citations[0].title.lower()
    assert "None of the" in answer.text


async def test_a_refinement_answered_as_a_new_topic_keeps_the_contribution_asked(
    core: Core, stored: dict[str, Paper]
) -> None:
    # "which papers introduce a benchmark for agents?" then "what about speech?": none of the agent benchmarks is
    # about speech, so benchmarks for speech, not every speech paper
    await ask(
        core, "which papers introduce a new benchmark for LLM agents this week?", today=FRIDAY, conversation_id="c"
    )
    answer = await ask(core, "what about speech?", today=FRIDAY, conversation_id="c")
    assert answer.filters.topic == "speech" and answer.filters.contribution == "benchmark"
    _benchmarks_first(answer)


def _benchmarks_first(answer: Answer) -> None:
    """The answer shows only papers introducing a benchmark, and lists any other (naming an evaluation) after all of
    them, saying so."""
    assert all(introduces_benchmark(p.title, p.abstract) for p in answer.citations)
    makes = [introduces_benchmark(p.title, p.abstract) for p in _listed(answer)]
    assert makes == sorted(makes, reverse=True)
    assert all(makes) or "without making one their stated contribution" in answer.text


async def test_an_author_named_in_a_follow_up_filters_the_previous_papers(core: Core, stored: dict[str, Paper]) -> None:
    await ask(core, "diffusion model papers this week?", today=FRIDAY, conversation_id="a")
    answer = await ask(core, "only those by Kwanyoung Kim", today=FRIDAY, conversation_id="a")
    assert [p.id for p in answer.citations] == [VIDEO_DIFFUSION]


async def test_an_author_alone_after_an_answer_keeps_its_topic_and_days(core: Core, stored: dict[str, Paper]) -> None:
    await ask(core, "diffusion model papers this week?", today=FRIDAY, conversation_id="kim")
    answer = await ask(core, "any by Kwanyoung Kim?", today=FRIDAY, conversation_id="kim")
    assert answer.filters.topic == "diffusion model" and answer.filters.authors
    assert answer.filters.window is not None and answer.filters.window.end == FRIDAY
    assert [p.id for p in answer.citations] == [VIDEO_DIFFUSION]


async def test_papers_from_an_author_after_an_answer_are_asked_anew(core: Core, stored: dict[str, Paper]) -> None:
    """ "any papers from Tri Dao?" after "papers today that are not about LLMs" lost "papers" with the name's cue, so
    it read as "any by Tri Dao?" and answered "No stored papers and not about LLMs by Tri Dao" for that day alone:
    a question naming its papers asks anew, as "papers by X?" does."""
    await ask(core, "diffusion model papers on Friday?", today=FRIDAY, conversation_id="kp")
    answer = await ask(core, "any papers from Kwanyoung Kim?", today=FRIDAY, conversation_id="kp")
    assert answer.filters.topic == "" and answer.filters.authors
    assert answer.filters.window is not None and answer.filters.window.start < FRIDAY
    assert [p.id for p in answer.citations] == [VIDEO_DIFFUSION]


async def test_a_narrowing_no_previous_paper_names_says_so(core: Core, stored: dict[str, Paper]) -> None:
    await ask(core, "diffusion model papers this week?", today=FRIDAY, conversation_id="h")
    answer = await ask(core, "which of those are about ice hockey?", today=FRIDAY, conversation_id="h")
    assert "names ice hockey; the closest in meaning" in answer.text


async def test_each_narrowing_is_named_in_the_answer(core: Core, stored: dict[str, Paper]) -> None:
    await ask(core, "diffusion model papers this week?", today=FRIDAY, conversation_id="u")
    await ask(core, "any on video?", today=FRIDAY, conversation_id="u")
    answer = await ask(core, "which of those use RL?", today=FRIDAY, conversation_id="u")
    assert answer.filters.constraints == ("use RL",)
    said = "\n".join(answer.text.splitlines()[:2])  # what the answer says before the papers listed
    assert "use RL" not in said and "about video and about RL" in said  # the verb the papers do is no topic
    assert answer.filters.verb_led == ("use RL",)


async def test_the_verb_of_a_narrowing_need_not_be_in_the_papers(core: Core, stored: dict[str, Paper]) -> None:
    await ask(core, "diffusion model papers this week?", today=FRIDAY, conversation_id="i")
    answer = await ask(core, "which of them involve video?", today=FRIDAY, conversation_id="i")
    assert answer.filters.verb_led == ("involve video",)
    assert VIDEO_DIFFUSION in {p.id for p in answer.citations} and "None of the" not in answer.text
    assert all("video" in f"{p.title} {p.abstract}".lower() for p in answer.citations)


async def test_a_day_of_the_previous_answer_keeps_what_it_only_offered_offered(
    core: Core, stored: dict[str, Paper]
) -> None:
    # "only the ones from Thursday?": the previous answer showed one Thursday paper for its words and offered another
    # only for its meaning; that one was shown beside it
    words, meaning = sorted(p.id for p in stored.values() if p.announced == THURSDAY)[:2]
    turn = Turn("diffusion models", ("2025-05-26", "2025-05-30"), [], [], [words], [meaning], meaning_ids=[meaning])
    await core.repo.save_conversation_state("t", turn.to_json(), "", max_age=dt.timedelta(hours=1))
    answer = await ask(core, "only the ones from Thursday?", today=FRIDAY, conversation_id="t")
    assert [p.id for p in answer.citations] == [words] and [p.id for p in answer.more] == [meaning]


async def test_a_narrowing_keeps_papers_listed_for_their_meaning_after_the_others(
    core: Core, stored: dict[str, Paper]
) -> None:
    # the previous answer listed one video paper for its words and, first, one only for its meaning
    video = sorted(p.id for p in stored.values() if "video" in p.title.lower())
    words, meaning = video[0], video[1]
    turn = Turn("diffusion models", ("2025-05-26", "2025-05-30"), [], [], [meaning, words], [], meaning_ids=[meaning])
    await core.repo.save_conversation_state("m", turn.to_json(), "", max_age=dt.timedelta(hours=1))
    answer = await ask(core, "which of those are about video?", today=FRIDAY, conversation_id="m")
    assert [p.id for p in answer.citations] == [words]
    assert [p.id for p in answer.more] == [meaning] and answer.by_meaning == {meaning}
    assert "1 more paper is close in meaning" in answer.text
    # and the next turn still knows which one that was
    stored_turn = Turn.from_json(await core.repo.conversation_state("m", max_age=dt.timedelta(hours=1)) or "")
    assert stored_turn.meaning_ids == [meaning]


async def test_a_narrowing_shows_the_papers_about_it_and_offers_those_naming_it_once(
    core: Core, stored: dict[str, Paper]
) -> None:
    # "which of those are about speech?": SALMONN-omni has speech in its title; RAVEN (question answering over audio
    # and video) says "speech" once in its abstract, as context: offered first, not shown
    raven, salmonn = "2505.17114", "2505.17060"
    turn = Turn("audio models", ("2025-05-26", "2025-05-30"), [], [], [raven, salmonn], [])
    await core.repo.save_conversation_state("s", turn.to_json(), "", max_age=dt.timedelta(hours=1))
    answer = await ask(core, "which of those are about speech?", today=FRIDAY, conversation_id="s")
    assert [p.id for p in answer.citations] == [salmonn]
    assert [p.id for p in answer.more] == [raven]


async def test_a_narrowing_shows_the_papers_about_the_previous_topic_and_it_first(
    core: Core, stored: dict[str, Paper]
) -> None:
    # "which of those are about video?" after a diffusion answer that also listed a video-understanding paper (never
    # about diffusion) before the video diffusion one: both are about video; the one about diffusion too is shown,
    # the other offered first, not dropped
    agentic = "2505.18079"  # "Deep Video Discovery: Agentic Search with Tool Use for Long-form Video Understanding"
    turn = Turn("diffusion models", ("2025-05-26", "2025-05-30"), [], [], [agentic, VIDEO_DIFFUSION], [])
    await core.repo.save_conversation_state("v", turn.to_json(), "", max_age=dt.timedelta(hours=1))
    answer = await ask(core, "which of those are about video?", today=FRIDAY, conversation_id="v")
    assert [p.id for p in answer.citations] == [VIDEO_DIFFUSION]
    assert [p.id for p in answer.more] == [agentic]


async def test_a_day_narrowing_shows_the_papers_about_the_previous_topic_first(
    core: Core, stored: dict[str, Paper]
) -> None:
    # "only the ones from Monday?" after a diffusion answer that listed, on Monday, a paper about diffusion and one
    # naming it nowhere: the diffusion paper is shown, the other offered
    monday = [p for p in stored.values() if p.announced == MONDAY]
    diffusion = next(p.id for p in monday if "diffusion" in p.title.lower())
    other = next(p.id for p in monday if "diffusion" not in f"{p.title} {p.abstract}".lower())
    turn = Turn("diffusion models", ("2025-05-26", "2025-05-30"), [], [], [other, diffusion], [])
    await core.repo.save_conversation_state("d", turn.to_json(), "", max_age=dt.timedelta(hours=1))
    answer = await ask(core, "only the ones from Monday?", today=FRIDAY, conversation_id="d")
    assert [p.id for p in answer.citations] == [diffusion]
    assert [p.id for p in answer.more] == [other]


def test_a_narrowing_that_no_paper_is_about_shows_those_naming_it(stored: dict[str, Paper]) -> None:
    first, second = list(stored.values())[:2]
    step = Filters(topic="speech", restrict_to=(first.id, second.id), narrows=True)
    once = [Retrieved(first, 0.6, 0.6, False, True), Retrieved(second, 0.5, 0.5, False, False, every_part=False)]
    shown, offered = select(once, step)
    assert shown == once[:1] and offered == once[1:]


def test_a_narrowing_no_paper_names_in_one_phrase_shows_those_naming_each_part_first(stored: dict[str, Paper]) -> None:
    first, second, third = list(stored.values())[:3]
    step = Filters(topic="gaits from reinforcement learning", restrict_to=(first.id, second.id, third.id), narrows=True)
    closest = [  # none names the constraint in one phrase; only the second names each of its parts somewhere
        Retrieved(first, 0.6, 0.6, False, False, every_part=False),
        Retrieved(second, 0.5, 0.5, False, False, every_part=True),
        Retrieved(third, 0.4, 0.4, False, False, every_part=False),
    ]
    shown, offered = select(closest, step)
    assert [r.paper.id for r in shown] == [second.id, first.id, third.id] and not offered
    nothing = [dataclasses.replace(r, every_part=False) for r in closest]
    assert [r.paper.id for r in select(nothing, step)[0]] == [first.id, second.id, third.id]  # the closest few


def test_a_narrowing_offers_the_closest_papers_that_do_not_name_it(stored: dict[str, Paper]) -> None:
    # "which of those are about vision-language or other multimodal models?": one names it, the next in the fused
    # order is an audio-language paper that says it otherwise; shown the one, offered the closest few, not dropped
    papers = list(stored.values())[:6]
    step = Filters(topic="multimodal models", restrict_to=tuple(p.id for p in papers), narrows=True)
    named, *others = [Retrieved(papers[0], 0.6, 0.6, True, True)] + [
        Retrieved(p, 0.5 - n / 10, 0.5 - n / 10, False, False, every_part=False) for n, p in enumerate(papers[1:])
    ]
    shown, offered = select([named, *others], step)
    assert shown == [named] and offered == others[:3]


def test_the_day_before_is_relative_to_the_day_asked_about() -> None:
    thursday = Turn("speech", ("2025-05-29", "2025-05-29"), [], [], ["a"], [])
    before = parse_question("and the day before?", FRIDAY, thursday)
    assert before.window is not None and before.window.start == before.window.end == dt.date(2025, 5, 28)
    assert before.topic == "speech" and not before.restrict_to
    monday = Turn("speech", ("2025-05-26", "2025-05-26"), [], [], ["a"], [])
    previous_day = parse_question("what about the previous day?", FRIDAY, monday)
    assert previous_day.window is not None and previous_day.window.start == dt.date(2025, 5, 23)  # Friday
    after = parse_question("the next day?", FRIDAY, monday)
    assert after.window is not None and after.window.start == TUESDAY and after.topic == "speech"
    assert not before.window.assumed and not after.window.assumed  # one day before: no doubt which is meant


def test_the_day_before_is_a_time_phrase_whatever_came_before() -> None:
    week = Turn("speech", ("2025-05-26", "2025-05-30"), [], [], ["a"], [])
    unstored = Turn("speech", None, [], [], ["a"], [])
    for previous, day in ((week, dt.date(2025, 5, 23)), (unstored, THURSDAY), (None, THURSDAY)):
        filters = parse_question("and the day before?", FRIDAY, previous)
        assert filters.window is not None and filters.window.start == filters.window.end == day, previous
        assert "before" not in filters.topic and filters.topic == (previous.topic if previous else ""), previous
        assert day.isoformat() in filters.window.assumed, previous  # which day is meant is said
    later = parse_question("the next day?", FRIDAY, week)
    assert later.window is not None and later.topic == "speech" and "after today" in later.window.assumed


async def test_the_day_before_follows_an_answer_without_time_words(core: Core, stored: dict[str, Paper]) -> None:
    await ask(core, "reinforcement learning papers", today=FRIDAY, conversation_id="d")
    thursday = await ask(core, "and from Thursday?", today=FRIDAY, conversation_id="d")
    assert thursday.window == (THURSDAY, THURSDAY)
    await ask(core, "reinforcement learning papers", today=THURSDAY, conversation_id="e")
    answer = await ask(core, "and the day before?", today=THURSDAY, conversation_id="e")
    assert answer.filters.topic == "reinforcement learning" and "No stored papers about before" not in answer.text
    # the window the first answer used (everything stored up to Thursday): the day before it is said, not guessed
    assert answer.window[0] == answer.window[1] and "reading 'the day before'" in answer.text


async def test_authors_nationality_or_country_is_said_to_be_unknown_not_read_as_topic(
    core: Core, stored: dict[str, Paper]
) -> None:
    first = await ask(core, "speech papers from Friday", today=FRIDAY, conversation_id="n")
    assert first.citations
    for question in (
        "only those by Chinese authors?",
        "papers by Chinese authors",
        "any by american researchers this week?",
        "by Chinese and European groups?",
    ):
        answer = await ask(core, question, today=FRIDAY, conversation_id="n")
        assert not answer.citations and not answer.more, question
        assert "cannot tell" in answer.text and "nationality" in answer.text, question
        topic = answer.filters.topic.lower()
        assert not {"chinese", "american", "germany", "authors", "researchers"} & set(topic.split()), question
    # the conversation is kept: the next follow-up still narrows the speech papers
    after = await ask(core, "and from Monday?", today=FRIDAY, conversation_id="n")
    assert after.filters.topic == "speech"


async def test_a_topic_asked_of_authors_by_nationality_is_answered_whoever_wrote_the_papers(
    core: Core, stored: dict[str, Paper]
) -> None:
    plain = await ask(core, "speech papers from Friday", today=FRIDAY)
    for question in (
        "speech papers from Friday by Chinese authors",
        "speech papers from Friday by authors from Germany",
    ):
        answer = await ask(core, question, today=FRIDAY)
        assert answer.citations == plain.citations and answer.filters.topic == "speech", question
        assert "cannot tell" in answer.text and "whoever wrote them" in answer.text, question


async def test_a_stored_author_named_before_a_group_word_is_still_an_author(
    core: Core, stored: dict[str, Paper]
) -> None:
    paper = next(iter(stored.values()))
    surname = paper.authors[0].split()[-1]
    answer = await ask(core, f"papers by {surname} group", today=FRIDAY)
    assert "cannot tell" not in answer.text


async def test_a_narrowing_shows_first_the_papers_the_previous_answer_showed(
    core: Core, demo_papers: list[Paper], monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "only the ones from Wednesday" re-ranked the previous list within the day and showed papers that answer had
    only offered (its tail: a passing mention, a neighbouring topic) beside the ones it showed; the papers it chose
    for its first page come first now, the others offered right after them (nothing dropped)."""
    shown_before, offered_before = demo_papers[0], demo_papers[1]

    async def retrieve_all(core: Core, filters: Filters, **_: object) -> tuple[list[Retrieved], list[Retrieved]]:
        tail = Retrieved(offered_before, 0.9, 0.9, True, True, about=True)
        return [tail, Retrieved(shown_before, 0.8, 0.8, True, True, about=True)], []

    monkeypatch.setattr(rag, "retrieve_all", retrieve_all)
    previous = Turn("diffusion", None, [], [], [shown_before.id], [offered_before.id])
    filters = parse_question("only the ones from Monday", FRIDAY, previous)
    assert filters.previous_shown == (shown_before.id,)
    _, found, offered, _ = await rag.narrowed(core, filters)
    assert [r.paper.id for r in found] == [shown_before.id]
    assert [r.paper.id for r in offered] == [offered_before.id]
    # a previous answer that showed none of them leaves the order as it is
    _, found, _, _ = await rag.narrowed(core, dataclasses.replace(filters, previous_shown=("elsewhere",)))
    assert [r.paper.id for r in found] == [offered_before.id, shown_before.id]


async def test_a_narrowing_does_not_put_first_a_paper_naming_the_previous_topic_far_from_it_in_meaning(
    core: Core, demo_papers: list[Paper], monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "emotion recognition papers" then "only the speech ones": a speech generator naming emotion recognition twice
    in its abstract, far from the topic in meaning (under FLOOR), was shown alone, as about the topic and carrying its
    words, before the papers on emotion in speech the first answer listed for their meaning. Under FLOOR its words
    vouch for nothing: it is neither about the topic nor put before them (nothing dropped)."""
    shown_before, passing, close = demo_papers[:3]

    async def retrieve_all(core: Core, filters: Filters, **_: object) -> tuple[list[Retrieved], list[Retrieved]]:
        if filters.narrows:  # "speech": both name it in their title
            return [Retrieved(passing, 0.6, 0.5, True, True), Retrieved(close, 0.55, 0.45, True, True)], []
        return [
            Retrieved(shown_before, 0.8, 0.6, True, True, about=True),
            Retrieved(close, 0.5, 0.5, False, False),
            Retrieved(passing, 0.17, 0.12, False, True, about=True),
        ], []

    monkeypatch.setattr(rag, "retrieve_all", retrieve_all)
    previous = Turn(
        "emotion recognition", None, [], [], [shown_before.id], [close.id, passing.id], meaning_ids=[close.id]
    )
    filters = parse_question("only the speech ones", FRIDAY, previous)
    _, found, _, _ = await rag.narrowed(core, filters)
    assert close.id in [r.paper.id for r in found]


@pytest.mark.parametrize(
    "question",
    [
        "which of those actually propose a method?",
        "only the ones proposing new approaches",
        "any that introduce a method?",
    ],
)
def test_a_follow_up_asking_for_method_papers_excludes_the_other_kinds(question: str) -> None:
    """ "which of those propose a method?" narrowed the papers to those naming "actually propose a method", which
    none did, and showed the three closest in meaning; it asks for papers making a method: no survey, position paper
    or evaluation study among the previous ones."""
    previous = Turn("LLM personalization", None, [], [], ["a"], ["b"])
    filters = parse_question(question, FRIDAY, previous)
    assert filters.restrict_to == ("a", "b") and filters.constraints == ()
    assert filters.excluded == (NOT_METHODS,) and filters.topic == "LLM personalization"
    assert parse_question("which of those propose a method for tides?", FRIDAY, previous).constraints


async def test_a_narrowing_to_theoretical_papers_reads_what_theory_papers_write(
    core: Core, stored: dict[str, Paper], embedder: LocalEmbedder
) -> None:
    """ "which of those are theoretical?" looked for the word "theoretical": a paper proving a convergence bound
    that never writes it was missed, and the closest in meaning to the word were shown instead. It asks for a kind of
    paper: those writing what theory papers write (a proof, a theorem, a bound), as the ranker's theory cues read it."""
    proof = Paper(
        "2505.90001",
        "Linear Convergence of Coordinate Ascent Variational Inference",
        ("A. Author",),
        "We prove that coordinate ascent variational inference converges linearly for log-concave posteriors and "
        "derive an upper bound on the number of iterations it needs, with a matching lower bound.",
        ("stat.ML",),
        FRIDAY,
    )
    applied = Paper(
        "2505.90002",
        "Variational Inference for Hospital Readmission Prediction",
        ("B. Author",),
        "We apply variational inference to predict hospital readmissions from electronic health records and evaluate "
        "it on records of 40,000 patients, where it is faster than sampling and as accurate.",
        ("cs.LG",),
        FRIDAY,
    )
    await _store(core, embedder, [proof, applied])
    await _answered(core, "th", "variational inference", [applied.id, proof.id])
    answer = await ask(core, "which of those are theoretical?", today=FRIDAY, conversation_id="th")
    assert [p.id for p in answer.citations] == [proof.id]
    assert "theoretical" in answer.text.splitlines()[0]  # the answer names what was asked, not the words read


@pytest.mark.parametrize(
    ("method_abstract", "question"),
    [
        # "theoretical guarantees" named once, as any method claims them: not what theory papers write twice
        (
            "We use amortized variational inference to enhance noisy speech, with theoretical guarantees of faster "
            "convergence; the guarantees hold at any noise level, and we evaluate it on three speech corpora.",
            "any of them theoretical?",
        ),
        # "proves effective", "proved useful" say what turned out, not what was proved
        (
            "We use amortized variational inference to enhance noisy speech. A theoretical motivation is given; the "
            "encoder proves effective on three speech corpora and the decoder proved useful for low-resource "
            "languages.",
            "which of those are theoretical?",
        ),
    ],
    ids=["guarantees-named-once", "proves-effective"],
)
async def test_a_narrowing_to_theoretical_papers_shows_those_writing_theory_more_than_once(
    core: Core, stored: dict[str, Paper], embedder: LocalEmbedder, method_abstract: str, question: str
) -> None:
    """A method paper naming theory in passing was shown beside a paper proving bounds. Theory papers write a proof,
    a theorem, a bound more than once (the guarantees any method claims and a verb of outcome not counted): they are
    shown, the method paper offered first."""
    proof = _bounds_paper("2505.90003")
    method = Paper(
        "2505.90004",
        "Amortized Variational Inference for Speech Enhancement",
        ("B. Author",),
        method_abstract,
        ("eess.AS",),
        FRIDAY,
    )
    await _store(core, embedder, [proof, method])
    await _answered(core, "tm", "variational inference", [method.id, proof.id])
    answer = await ask(core, question, today=FRIDAY, conversation_id="tm")
    assert [p.id for p in answer.citations] == [proof.id]
    assert [p.id for p in answer.more] == [method.id]


async def test_a_request_narrowed_in_the_same_message_shows_the_papers_firmly_about_its_topic(
    core: Core, stored: dict[str, Paper], embedder: LocalEmbedder
) -> None:
    """ "the theory of variational inference?" is the papers on variational inference narrowed to theoretical ones: a
    theory paper on diffusion naming variational inference once, in passing, was shown beside the one about it. As a
    follow-up's narrowing does, those firmly about the topic (title, or twice in the abstract) are shown, the others
    offered first."""
    about = _bounds_paper("2505.90005")
    passing = Paper(
        "2505.90006",
        "Provable Sampling Guarantees for Score-Based Diffusion Models",
        ("B. Author",),
        "We prove that score-based diffusion models sample accurately under weak assumptions and give an upper bound "
        "on their error; unlike variational inference, no likelihood is needed.",
        ("stat.ML",),
        FRIDAY,
    )
    await _store(core, embedder, [about, passing])
    answer = await ask(core, "papers on the theory of variational inference?", today=FRIDAY)
    assert answer.filters.topic == "variational inference" and answer.filters.constraints == ("theory",)
    assert [p.id for p in answer.citations] == [about.id]
    assert passing.id in {p.id for p in answer.more}


async def test_a_narrowing_to_theoretical_papers_shows_those_about_theory_first(
    core: Core, stored: dict[str, Paper], embedder: LocalEmbedder
) -> None:
    """Of the papers writing theory at least twice, those about it as any narrowing reads it (a theorem or proof in
    the title, or one cue written twice) are shown when any is: an image codec saying "a theoretical analysis" and
    "we prove" once each in passing was shown beside a convergence proof."""
    proof = Paper(
        "2505.90007",
        "Provable Convergence of Black-Box Variational Inference",
        ("A. Author",),
        "We prove that black-box variational inference converges and prove an upper bound on its rate.",
        ("stat.ML",),
        FRIDAY,
    )
    codec = Paper(
        "2505.90008",
        "Variational Inference for Learned Image Compression",
        ("B. Author",),
        "We build an image codec on variational inference, give a theoretical analysis of its rate, and prove it "
        "never expands an image; it beats JPEG on two image sets.",
        ("eess.IV",),
        FRIDAY,
    )
    await _store(core, embedder, [proof, codec])
    await _answered(core, "ta", "variational inference", [codec.id, proof.id])
    answer = await ask(core, "and the theoretical ones?", today=FRIDAY, conversation_id="ta")
    assert [p.id for p in answer.citations] == [proof.id]
    assert [p.id for p in answer.more] == [codec.id]


async def test_a_day_holding_none_of_the_papers_shown_says_so_and_keeps_the_narrowing(
    core: Core, stored: dict[str, Paper], embedder: LocalEmbedder
) -> None:
    """ "only the ones from Friday" after "the theory of variational inference?", whose first page held no Friday
    paper, showed every Friday paper that answer had only offered (an applied one among them): the answer says that
    none of the papers shown is from that day, and reads the same request over the day's papers (theory first)."""
    shown = _bounds_paper("2505.90011", THURSDAY)
    applied = Paper(
        "2505.90012",
        "Variational Inference for Hospital Readmission Prediction",
        ("B. Author",),
        "We apply variational inference to predict hospital readmissions from electronic health records and evaluate "
        "it on records of 40,000 patients, where it is faster than sampling and as accurate.",
        ("cs.LG",),
        FRIDAY,
    )
    theory = Paper(
        "2505.90013",
        "The Amortization Gap of Variational Inference",
        ("C. Author",),
        "We give a theoretical analysis of amortized variational inference and prove a bound on its amortization gap.",
        ("stat.ML",),
        FRIDAY,
    )
    await _store(core, embedder, [shown, applied, theory])
    turn = Turn("variational inference", ("2025-05-26", "2025-05-30"), [], [], [shown.id], [applied.id, theory.id])
    turn.constraints = ["theory"]
    await core.repo.save_conversation_state("td", turn.to_json(), "", max_age=dt.timedelta(hours=1))
    answer = await ask(core, "only the ones from Friday", today=FRIDAY, conversation_id="td")
    assert [p.id for p in answer.citations] == [theory.id]
    assert [p.id for p in answer.more] == [applied.id]
    assert "The paper shown before is not from Friday 2025-05-30" in answer.text
    # a day holding a paper it showed is narrowed as before, with nothing said
    turn.paper_ids, turn.more_ids = [theory.id], [shown.id, applied.id]
    await core.repo.save_conversation_state("te", turn.to_json(), "", max_age=dt.timedelta(hours=1))
    answer = await ask(core, "only the ones from Friday", today=FRIDAY, conversation_id="te")
    assert "shown before" not in answer.text and answer.citations[0].id == theory.id


@pytest.mark.parametrize(
    ("question", "constraints", "excluded", "verb_led"),
    [
        # the topic named again narrows nothing ("about variational inference and about variational inference")
        ("and the ones from Friday about variational inference?", (), (), ()),
        # a method asked for is a kind of contribution, no topic ("about propose a method")
        ("which of those from Friday propose a method?", (), (NOT_METHODS,), ()),
        # the verb the papers do is named without it, and papers may name it in their own words
        ("which of those from Friday use RL?", ("use RL",), (), ("use RL",)),
    ],
)
def test_the_ones_from_a_day_the_previous_window_did_not_cover_read_their_narrowing_as_any_narrowing(
    question: str, constraints: tuple[str, ...], excluded: tuple[str, ...], verb_led: tuple[str, ...]
) -> None:
    """ "which of those from Friday ..." after Monday's answer asks the request anew over Friday (6df57cf), but its
    narrowing skipped what every narrowing's constraint goes through: the topic named again, a method, a verb."""
    monday = Turn("variational inference", ("2025-05-26", "2025-05-26"), [], [], ["a"], [])
    filters = parse_question(question, FRIDAY, monday)
    assert (filters.topic, filters.restrict_to) == ("variational inference", ())
    assert (filters.constraints, filters.excluded, filters.verb_led) == (constraints, excluded, verb_led)


async def test_the_ones_from_a_day_the_previous_window_did_not_cover_are_that_days_papers_on_the_topic(
    core: Core, stored: dict[str, Paper], embedder: LocalEmbedder
) -> None:
    """ "and the ones from Friday?" after "Monday papers on variational inference" narrowed Monday's list to Friday
    and said that no paper on the topic is stored for Friday, though two were: "the ones" are the same request's
    papers of the day asked for, the previous narrowings kept."""
    monday = _bounds_paper("2505.90021", MONDAY)
    friday = _bounds_paper("2505.90022", FRIDAY)
    await _store(core, embedder, [monday, friday])
    turn = Turn("variational inference", ("2025-05-26", "2025-05-26"), [], [], [monday.id], [])
    await core.repo.save_conversation_state("tf", turn.to_json(), "", max_age=dt.timedelta(hours=1))
    answer = await ask(core, "and the ones from Friday?", today=FRIDAY, conversation_id="tf")
    assert friday.id in [p.id for p in answer.citations]
    assert "No stored papers" not in answer.text
    narrowed = parse_question("and the ones from Friday about proofs?", FRIDAY, dataclasses.replace(turn))
    assert (narrowed.topic, narrowed.constraints, narrowed.restrict_to) == ("variational inference", ("proofs",), ())


async def test_a_narrowing_of_one_paper_says_so_in_the_singular(
    core: Core, stored: dict[str, Paper], embedder: LocalEmbedder
) -> None:
    """ "None of the 1 papers about KV cache eviction is about ...": one paper is named as one."""
    only = _bounds_paper("2505.90031", FRIDAY)
    await _store(core, embedder, [only])
    turn = Turn("variational inference", ("2025-05-26", "2025-05-30"), [], [], [only.id], [])
    await core.repo.save_conversation_state("tg", turn.to_json(), "", max_age=dt.timedelta(hours=1))
    answer = await ask(core, "what about speech recognition?", today=FRIDAY, conversation_id="tg")
    assert "The paper about variational inference is not about speech recognition." in answer.text
    assert "None of the 1 papers" not in answer.text


async def test_theory_papers_asked_first_are_a_kind_of_paper_not_the_word(
    core: Core, stored: dict[str, Paper], embedder: LocalEmbedder
) -> None:
    """ "any theory papers?" with no earlier answer read the topic "theory" as a word: a paper naming a music theory
    in passing was shown, and a convergence proof that never writes "theory" was missed. Asked first, it asks for
    theoretical papers in general, read as a narrowing to them is (what theory papers write, more than once)."""
    proof = Paper(
        "2505.90009",
        "Linear Convergence of Mirror Descent for Saddle Problems",
        ("A. Author",),
        "We prove that mirror descent converges linearly on strongly monotone saddle problems and derive an upper "
        "bound on its iterations, with a matching lower bound.",
        ("math.OC",),
        FRIDAY,
    )
    passing = Paper(
        "2505.90010",
        "Chord Progressions from a Conditioned Transformer",
        ("B. Author",),
        "We generate chord progressions with a transformer conditioned on rules of music theory and evaluate them "
        "with forty listeners.",
        ("cs.SD",),
        FRIDAY,
    )
    await _store(core, embedder, [proof, passing])
    answer = await ask(core, "any theory papers?", today=FRIDAY)
    assert proof.id in [p.id for p in answer.citations]
    assert passing.id not in [p.id for p in answer.citations]
    assert "theory" in answer.text.splitlines()[0]  # the answer names what was asked, not the words read


async def test_a_narrowing_of_theory_papers_asked_first_reads_them_as_a_kind_of_paper(
    core: Core, stored: dict[str, Paper], embedder: LocalEmbedder
) -> None:
    """ "only the ones from Friday" after "any theory papers?" read the topic "theory" as a word again over the
    previous list: a paper naming a music theory in passing was shown before a proof that never writes "theory". A
    narrowing reads it as the first answer did, what theory papers write."""
    shown = Paper(
        "2505.90014",
        "Sample Complexity of Variational Inference",
        ("A. Author",),
        "We prove an upper bound on the sample complexity of variational inference and a matching lower bound.",
        ("stat.ML",),
        THURSDAY,
    )
    proof = Paper(
        "2505.90015",
        "Linear Convergence of Mirror Descent for Saddle Problems",
        ("B. Author",),
        "We prove that mirror descent converges linearly on strongly monotone saddle problems and derive an upper "
        "bound on its iterations, with a matching lower bound.",
        ("math.OC",),
        FRIDAY,
    )
    passing = Paper(
        "2505.90016",
        "Chord Progressions from a Conditioned Transformer",
        ("C. Author",),
        "We generate chord progressions with a transformer conditioned on rules of music theory and evaluate them "
        "with forty listeners.",
        ("cs.SD",),
        FRIDAY,
    )
    await _store(core, embedder, [shown, proof, passing])
    turn = Turn("theory", ("2025-05-26", "2025-05-30"), [], [], [shown.id], [passing.id, proof.id])
    await core.repo.save_conversation_state("tk", turn.to_json(), "", max_age=dt.timedelta(hours=1))
    answer = await ask(core, "only the ones from Friday", today=FRIDAY, conversation_id="tk")
    assert [p.id for p in answer.citations] == [proof.id]
    assert [p.id for p in answer.more] == [passing.id]


async def test_a_narrowing_of_a_verb_led_topic_names_it_as_the_answer_did(core: Core, embedder: LocalEmbedder) -> None:
    """ "which papers align language models?" answers "papers that align language models"; a narrowing none of them
    meets had said "None of the 2 papers about that align language models is about speech"."""
    papers = [_bounds_paper("2505.00001"), _bounds_paper("2505.00002")]
    await _store(core, embedder, papers)
    topic = "study variational inference"
    turn = Turn(topic, ("2025-05-26", "2025-05-30"), [], [], [p.id for p in papers], [], verb_led=[topic])
    await core.repo.save_conversation_state("c", turn.to_json(), "", max_age=dt.timedelta(hours=1))
    answer = await ask(core, "which of those are about speech recognition?", today=FRIDAY, conversation_id="c")
    assert "papers that study variational inference" in answer.text
    assert "about that" not in answer.text, answer.text


def _survey_and_method() -> tuple[Paper, Paper]:
    """A survey of LLM agents and a method paper on them that only writes "review" in passing."""
    survey = Paper(
        "2505.00011",
        "LLM Agents: A Survey",
        ("A. Author",),
        "This survey reviews LLM agents and their planning, memory and tool use.",
        ("cs.AI",),
        FRIDAY,
    )
    method = Paper(
        "2505.00012",
        "Careful LLM Agents That Check Their Plans",
        ("B. Author",),
        "We propose LLM agents with a review step that checks each plan before acting.",
        ("cs.AI",),
        FRIDAY,
    )
    return survey, method


async def test_a_kind_of_paper_asked_for_counts_only_papers_of_that_kind(core: Core, embedder: LocalEmbedder) -> None:
    """ "is there a survey on agents?" said "12 papers about agents and about surveys" for two surveys: the papers
    that only write a word of the kind ("a review step") are offered as close in meaning, not counted as surveys."""
    survey, method = _survey_and_method()
    await _store(core, embedder, [survey, method])
    answer = await ask(core, "is there a survey on LLM agents?", today=FRIDAY)
    assert [p.id for p in answer.citations] == [survey.id], answer.text
    assert answer.text.startswith("1 paper about LLM agents (surveys only)"), answer.text


async def test_a_kind_of_paper_none_is_of_says_so_and_answers_the_topic(core: Core, embedder: LocalEmbedder) -> None:
    """ "is there a survey on LLM agents?" where no stored paper on them is a survey answered "No stored papers about
    LLM agents (surveys only) ... Try a wider window" (on the shared days: "is there a survey on diffusion models?",
    where 105 papers are about them): the answer says that none is a survey and lists the papers on the topic."""
    method = Paper(
        "2505.00012",
        "Careful LLM Agents That Check Their Plans",
        ("B. Author",),
        "We propose LLM agents that check each plan before acting.",
        ("cs.AI",),
        FRIDAY,
    )
    await _store(core, embedder, [method])
    answer = await ask(core, "is there a survey on LLM agents?", today=FRIDAY)
    assert [p.id for p in answer.citations] == [method.id], answer.text
    assert answer.text.startswith("The paper about LLM agents is not a survey."), answer.text
    assert "Try a wider window" not in answer.text


async def test_who_is_working_on_this_names_the_authors_of_the_previous_papers(
    core: Core, embedder: LocalEmbedder
) -> None:
    """ "KV cache papers" then "who is working on this?" answered "I found nothing to search for in that": a people
    question naming nothing asks who wrote the previous request's papers."""
    papers = [
        Paper(
            f"2505.0002{n}",
            f"KV Cache Eviction Method {n}",
            (f"Ann Lead{n}", "Bo Senior"),
            "We evict the KV cache.",
            ("cs.LG",),
            FRIDAY,
        )
        for n in range(2)
    ]
    await _store(core, embedder, papers)
    await ask(core, "KV cache papers", today=FRIDAY, conversation_id="c")
    answer = await ask(core, "who is working on this?", today=FRIDAY, conversation_id="c")
    assert {p.id for p in answer.citations} == {p.id for p in papers}, answer.text
    assert "- Bo Senior [1][2]" in answer.text, answer.text
    # "these" points back as "this" does ("who is working on these?" narrowed the papers by the word "working")
    await ask(core, "KV cache papers", today=FRIDAY, conversation_id="d")
    answer = await ask(core, "who is working on these?", today=FRIDAY, conversation_id="d")
    assert {p.id for p in answer.citations} == {p.id for p in papers}, answer.text
    assert "about working" not in answer.text and "- Bo Senior [1][2]" in answer.text, answer.text


async def test_a_narrowing_after_a_kind_counts_the_papers_it_read_without_naming_the_kind(
    core: Core, embedder: LocalEmbedder
) -> None:
    """ "is there a survey on agents?" (3 surveys and 12 papers close in meaning) then "what about robotics?" said
    "None of the 15 papers about agents (surveys only) is about robotics": 15 counts every paper listed."""
    survey, method = _survey_and_method()
    await _store(core, embedder, [survey, method])
    first = await ask(core, "is there a survey on LLM agents?", today=FRIDAY, conversation_id="c")
    assert len({p.id for p in (*first.citations, *first.more)}) == 2, first.text
    answer = await ask(core, "what about robotics?", today=FRIDAY, conversation_id="c")
    assert answer.text.startswith("None of the 2 papers about LLM agents is about robotics."), answer.text


def _robotics_survey_and_method() -> tuple[Paper, Paper]:
    """A survey of robot learning and a method paper on robots."""
    survey = Paper(
        "2505.00013",
        "Robot Learning: A Survey",
        ("C. Author",),
        "This survey reviews robot learning for manipulation and locomotion.",
        ("cs.RO",),
        FRIDAY,
    )
    method = Paper(
        "2505.00014",
        "Legged Robots That Learn to Climb Stairs",
        ("D. Author",),
        "We propose a controller that lets legged robots climb stairs.",
        ("cs.RO",),
        FRIDAY,
    )
    return survey, method


@pytest.mark.parametrize("follow", ["what about robotics?", "and robots?"])
async def test_a_follow_up_changing_only_the_topic_keeps_the_kind_of_paper(
    core: Core, embedder: LocalEmbedder, follow: str
) -> None:
    """ "is there a survey on agents?" then "what about robotics?" listed robotics papers of every kind: a follow-up
    naming only a new topic, answered anew (none of the surveys was about it) or as a continuation ("and X?"), keeps
    the kind of paper asked before."""
    papers = [*_survey_and_method(), *_robotics_survey_and_method()]
    await _store(core, embedder, papers)
    await ask(core, "is there a survey on LLM agents?", today=FRIDAY, conversation_id="k")
    answer = await ask(core, follow, today=FRIDAY, conversation_id="k")
    assert [p.id for p in answer.citations] == ["2505.00013"], answer.text
    assert "(surveys only)" in answer.text, answer.text
    # a kind of its own replaces it
    await ask(core, "is there a survey on LLM agents?", today=FRIDAY, conversation_id="m")
    answer = await ask(core, "what about theory papers on robots?", today=FRIDAY, conversation_id="m")
    assert "surveys only" not in answer.text, answer.text
