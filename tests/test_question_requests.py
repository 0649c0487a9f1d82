"""Issue 22: what a question asks besides its topic (exclusions, benchmarks, clarifications, follow-ups, one
author as one person, typos against the store's vocabulary), read from the wording's roles."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re

import pytest

from bot.core import Core
from bot.ingest.save import store_papers
from bot.models import Paper
from bot.questions.authors import AuthorIndex, same_person
from bot.questions.filters import Filters
from bot.questions.rag import Turn, ask, parse_question, people_lines, subject_of
from bot.questions.request import beyond, kind_reading, papers_asked_for, read_request
from bot.questions.retrieval import descriptive_compounds, exact_names, ranked
from bot.questions.spelling import is_english_word
from bot.questions.topics import QuestionTopic, loose_alternatives, split_units, topic_alternatives, topic_key
from bot.text.introduces import introduced_kinds, introduces_benchmark
from bot.views.render import paper_text

FRIDAY = dt.date(2025, 5, 30)
COMOE, PREMOE = "2505.17553", "2505.17639"


def test_exclusions_are_filters_not_topic_words() -> None:
    assert read_request("machine unlearning papers that are not about LLMs").excluded == ("LLMs",)
    both = read_request("hallucination papers, but not the vision-language / multimodal ones")
    assert both.excluded == ("vision-language / multimodal",) and "multimodal" not in both.text
    assert read_request("multi-agent RL papers — skip anything built on LLM agents").excluded == ("LLM agents",)
    filters = parse_question("quantization work other than LLM quantization", FRIDAY)
    # excluding "LLM quantization" from quantization papers excludes the LLM ones, not every quantization paper
    assert filters.topic == "quantization"
    assert filters.excluded == ("LLM",)
    assert beyond("quantization", "LLM quantization") == "LLM"
    # holding the topic's head, it is a kind of the topic too: "LLM unlearning" among unlearning papers is the LLM ones
    assert beyond("machine unlearning", "LLM unlearning") == "LLM"
    assert parse_question("machine unlearning other than LLM unlearning", FRIDAY).excluded == ("LLM",)
    # an exclusion sharing only a word with the topic names something beside it, not a kind of it: it stays whole
    assert beyond("graph neural networks", "graph transformers") == "graph transformers"
    assert beyond("causal discovery or causal inference", "causal inference in economics") == "in economics"
    # the topic's head inside another word of the exclusion is no kind of the topic: the exclusion stays whole
    assert beyond("LLM agents", "multi-agent systems") == "multi-agent systems"
    assert parse_question("LLM agents, not multi-agent systems", FRIDAY).excluded == ("multi-agent systems",)
    # a named term is one thing: "language models" excluded from diffusion models is no exclusion of "language"
    assert beyond("diffusion models", "language models") == "language models"
    assert parse_question("diffusion models, not language models", FRIDAY).excluded == ("language models",)
    assert beyond("graph models", "LLM models") == "LLM"  # a named term beside the shared head still is what is left
    # two kinds of an everyday head contrasted ("world models, not reward models"): the head names nothing alone,
    # so the exclusion is the other kind whole, not every paper saying "reward"; a head naming a field alone
    # ("unlearning", above) still makes the exclusion a kind of the topic
    assert beyond("world models", "reward models") == "reward models"
    assert parse_question("papers on world models, not reward models", FRIDAY).excluded == ("reward models",)
    assert beyond("neural networks", "spiking networks") == "spiking networks"


def test_exclusions_in_the_other_ways_researchers_type_them() -> None:
    # a negated verb, "minus", "besides", an imperative after punctuation, "no"/"nothing" opening a clause
    assert read_request("sparse attention work that doesn't use LLMs").excluded == ("LLMs",)
    assert read_request("knowledge graphs that aren't about biomedicine").excluded == ("biomedicine",)
    assert read_request("point cloud papers minus autonomous driving").excluded == ("autonomous driving",)
    assert read_request("any tabular papers besides gradient boosting?").excluded == ("gradient boosting",)
    assert read_request("robot learning papers, exclude sim-to-real").excluded == ("sim-to-real",)
    assert read_request("audio models but filter out music").excluded == ("music",)
    assert read_request("bandits, no contextual stuff").excluded == ("contextual",)
    assert read_request("causal discovery papers, but nothing on time series").excluded == ("time series",)
    # "without" after the papers asked for excludes; after a topic word it is part of the topic
    assert read_request("graph papers without transformers").excluded == ("transformers",)
    assert read_request("learning without labels").excluded == ()
    assert read_request("planning papers outside of robotics").excluded == ("robotics",)
    assert read_request("tabular learning, but leave the LLM ones aside").excluded == ("LLM",)
    assert read_request("agents acting outside the lab").excluded == ()
    # "no" or "dropping" inside a phrase is a topic word
    assert read_request("no-regret learning in games").excluded == ()
    assert read_request("token dropping for efficient ViTs").excluded == ()
    # a new sentence opening with "no" excludes as a clause after a comma does; "though" leads the exclusion
    assert read_request("what's new in protein design? no structure prediction papers").excluded == (
        "structure prediction",
    )
    assert parse_question("what's new in protein design? no structure prediction papers", FRIDAY).topic == (
        "protein design"
    )
    assert read_request("causal inference, though not causal discovery").text == "causal inference"
    # a sentence going on after a comma or colon opened with an interjection, not an exclusion
    assert read_request("Thanks. No worries, anything on RL?").excluded == ()
    assert read_request("I'm new to this. No idea where to start: anything on causal inference?").excluded == ()


def test_a_relation_word_is_a_whole_word_not_the_start_of_the_topic() -> None:
    # "in", "for", "on" and "with" introduce the excluded topic only as words of their own
    assert read_request("diffusion papers except inference ones").excluded == ("inference",)
    assert read_request("RL papers other than online ones").excluded == ("online",)
    assert read_request("time series papers, not the forecasting ones").excluded == ("forecasting",)


def test_new_benchmark_for_x_is_a_contribution_type_plus_topic() -> None:
    filters = parse_question("which papers introduce new benchmarks for LLM agents?", FRIDAY)
    assert filters.contribution == "benchmark" and filters.topic == "LLM agents"
    assert parse_question("papers on SWE-bench", FRIDAY).contribution == ""  # a name, not a request
    assert introduces_benchmark("GitGoodBench: A Novel Benchmark", "")
    assert introduces_benchmark("Agents at work", "We introduce a new large-scale dataset of repositories.")
    assert not introduces_benchmark("A faster optimizer", "We evaluate on standard benchmarks.")
    # the abstract's own statement, however it is punctuated; not the benchmarks a method is evaluated on
    assert introduces_benchmark("Agents at work", "To fill this gap, we introduce Foo, a benchmark of 500 tasks.")
    assert introduces_benchmark("Agents at work", "In this paper, we introduce: 1) Foo, an audio QA benchmark.")
    assert not introduces_benchmark("A faster optimizer", "We show our proposed method across several benchmarks.")
    assert not introduces_benchmark("A faster optimizer", "Models retrained (e.g., on larger curated datasets) drift.")
    # what a benchmark evaluates is any model; the topic is the task it evaluates them on
    coding = parse_question("new benchmarks for evaluating LLMs on coding / software engineering tasks?", FRIDAY)
    assert coding.contribution == "benchmark" and coding.topic == "coding / software engineering tasks"
    assert parse_question("a benchmark for testing robots in the wild", FRIDAY).topic == "robots in the wild"
    safety = parse_question("a benchmark for testing the safety of LLMs", FRIDAY)
    assert safety.topic == "safety of LLMs"


async def test_a_contribution_type_without_a_topic_lists_the_papers_introducing_one(
    core: Core, demo_papers: list[Paper]
) -> None:
    """ "new datasets this week?" became the topic "datasets" (papers using the word): it asks for the papers that
    introduce a benchmark or data set, whatever about, those whose main contribution one is first."""
    for question in ("new datasets this week?", "any new benchmarks?", "which papers introduce a benchmark?"):
        filters = parse_question(question, FRIDAY)
        assert (filters.contribution, filters.topic) == ("benchmark", ""), question
    papers = [dataclasses.replace(p, announced=FRIDAY) for p in demo_papers[:200]]
    await store_papers(core, papers)
    answer = await ask(core, "new datasets this week?", today=FRIDAY)
    introducing = {p.id for p in papers if introduces_benchmark(p.title, p.abstract)}
    listed = [p.id for p in (*answer.citations, *answer.more)]
    assert len(introducing) > 15 and sorted(listed) == sorted(introducing)
    assert all(introduced_kinds(p.title, p.abstract, main=True) for p in answer.citations)
    assert f"{len(introducing)} papers introducing a benchmark or data set" in answer.text
    assert "those whose main contribution it is first, each group in the store's order" in answer.text
    assert "/more" in answer.text


async def test_a_contribution_listing_lists_every_one_with_the_exact_count(
    core: Core, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "new datasets this week?" lists the window's papers introducing one as a day's listing lists its papers: all
    of them, counted exactly (the offer was cut at 100 and the answer said "at least 115"), and a window holding
    more papers than a listing loads is told so, as a day's is."""
    from bot.questions import listing

    puzzles = [
        Paper(
            id=f"2505.{30000 + n:05d}",
            title=f"GridBench-{n}: A Benchmark for Grid Puzzles",
            abstract=f"We introduce GridBench-{n}, a new benchmark of 500 grid puzzles for evaluating planning.",
            authors=("A. Author",),
            categories=("cs.LG",),
            announced=FRIDAY,
        )
        for n in range(130)
    ]
    await store_papers(core, puzzles)
    answer = await ask(core, "new datasets this week?", today=FRIDAY)
    assert sorted(p.id for p in (*answer.citations, *answer.more)) == sorted(p.id for p in puzzles)
    assert "130 papers introducing a benchmark or data set" in answer.text and "at least" not in answer.text
    monkeypatch.setattr(listing, "MAX_LISTED", 100)
    bounded = await ask(core, "new datasets this week?", today=FRIDAY)
    assert not bounded.citations and "more than the 100 I list at once" in bounded.text


def test_a_contribution_named_with_what_it_is_for_or_how_it_came_out_is_still_one() -> None:
    # "evaluation benchmarks", "eval sets", "test suites": the contribution and what it is for, not topic words
    for question in (
        "evaluation benchmarks for graph learning",
        "any eval sets for graph learning?",
        "new test sets for graph learning",
        "which test suites came out for graph learning?",  # how they came out is no topic either
        "datasets that were released for graph learning",
    ):
        filters = parse_question(question, FRIDAY)
        assert (filters.contribution, filters.topic) == ("benchmark", "graph learning"), question
    assert parse_question("evaluation of graph learning", FRIDAY).contribution == ""
    assert parse_question("what did Thursday bring for graph learning?", FRIDAY).topic == "graph learning"


def test_a_contribution_asked_with_a_verb_of_making_and_modifiers_leaves_only_the_topic() -> None:
    # the request's verb ("introduce", "release") and "new" before the topic's modifiers are no topic words
    for question, topic in (
        ("which papers introduce new chemistry datasets?", "chemistry"),
        ("did anyone release new sea ice benchmarks this week?", "sea ice"),
        ("papers presenting a tide gauge dataset", "tide gauge"),
        # what a benchmark does, as a participle right after it
        ("is there a benchmark probing sarcasm detection in LLMs?", "sarcasm detection in LLMs"),
        ("a dataset testing chart reading of VLMs", "chart reading of VLMs"),
        # a gym or an arena is a benchmark, as the paper's reader counts them
        ("any new gyms for chess engines?", "chess engines"),
        ("arenas for negotiation agents", "negotiation agents"),
    ):
        filters = parse_question(question, FRIDAY)
        assert (filters.contribution, filters.topic) == ("benchmark", topic), question
    # a contribution contrasted with another ("not new models") excludes no topic: the papers make the one asked for
    contrast = parse_question("new tide datasets, not new models", FRIDAY)
    assert contrast.contribution == "benchmark" and contrast.excluded == ()
    assert parse_question("tide datasets, not about rivers", FRIDAY).excluded == ("rivers",)


def test_a_contribution_word_naming_a_topic_is_the_topic() -> None:
    # "dataset" that modifies another noun names a field ("dataset distillation"), not a data set asked for
    distillation = parse_question("new papers on dataset distillation or dataset condensation?", FRIDAY)
    assert distillation.contribution == "" and "dataset distillation" in distillation.topic
    assert parse_question("papers on benchmark contamination", FRIDAY).contribution == ""
    assert parse_question("test suite generation with LLMs", FRIDAY).contribution == ""
    # the contribution is still read where it heads its phrase, also as a compound of such words
    robotics = parse_question("new benchmark datasets for robotics", FRIDAY)
    assert robotics.contribution == "benchmark" and robotics.topic == "robotics"
    suites = parse_question("papers introducing a benchmark suite for web agents", FRIDAY)
    assert suites.contribution == "benchmark" and suites.topic == "web agents"


def test_clarifications_are_alternatives_of_the_same_need() -> None:
    text = read_request("papers on overthinking in reasoning models, i.e. making chain-of-thought shorter").text
    assert [a.text for a in topic_alternatives(parse_question(text, FRIDAY).topic)][1:] == [
        "making chain-of-thought shorter"
    ]
    assert "(" not in read_request("protein design (binders, peptides)").text
    assert parse_question(read_request("<b>MoE</b> papers").text, FRIDAY).topic == "MoE"


def test_shorthand_is_read_as_the_words_it_stands_for() -> None:
    # "esp.", "incl.", "aka", "particularly", "notably" clarify as "i.e." does; "say," and "think" only introduce
    assert parse_question("speech models, esp. voice cloning", FRIDAY).topic == "speech models like voice cloning"
    assert parse_question("model merging incl. task arithmetic", FRIDAY).topic == "model merging like task arithmetic"
    assert parse_question("neural fields aka NeRFs", FRIDAY).topic == "neural fields like NeRFs"
    assert parse_question("bandits, particularly dueling bandits", FRIDAY).topic == "bandits like dueling bandits"
    assert parse_question("point clouds (say, LiDAR)", FRIDAY).topic == "point clouds like LiDAR"
    assert parse_question("agents — think web navigation", FRIDAY).topic == "agents like web navigation"
    # "w/", "w/o", "vs", a spaced "+" or "&" are with, without, or, and; inside a name they stay
    assert parse_question("planning w/ world models", FRIDAY).topic == "planning with world models"
    assert parse_question("segmentation w/o labels", FRIDAY).topic == "segmentation without labels"
    assert parse_question("GANs vs diffusion", FRIDAY).topic == "GANs or diffusion"
    # "+" puts the two together ("tactile sensing + language models" needs both): "with"
    assert parse_question("retrieval + reranking", FRIDAY).topic == "retrieval with reranking"
    assert parse_question("sonar imaging + transformers", FRIDAY).topic == "sonar imaging with transformers"
    assert parse_question("sonar imaging & transformers", FRIDAY).topic == "sonar imaging and transformers"
    assert parse_question("C++ code generation", FRIDAY).topic == "C++ code generation"


def test_an_abbreviation_written_with_a_slash_or_an_ampersand_is_one_word_of_the_topic() -> None:
    # before: "A/B testing" read its "A" as an article and "/" as a separator: "B testing", "I/O" as "O"
    assert parse_question("A/B testing / adaptive experimentation", FRIDAY).topic == (
        "AB testing / adaptive experimentation"
    )
    assert parse_question("any papers on I/O scheduling?", FRIDAY).topic == "IO scheduling"
    assert parse_question("papers on Q&A over tables", FRIDAY).topic == "QA over tables"
    # a slash between words, and "w/o", read as before
    assert parse_question("CPU/GPU scheduling papers", FRIDAY).topic == "CPU / GPU scheduling"
    assert parse_question("segmentation w/o labels", FRIDAY).topic == "segmentation without labels"


def test_an_and_asked_together_needs_both_as_with_does() -> None:
    # "A and B" names either ("theorem proving and autoformalization"); asked together it is one topic needing both
    def alternatives(question: str) -> list[str]:
        return [a.text for a in topic_alternatives(parse_question(question, FRIDAY).topic)]

    assert alternatives("speculative decoding and quantization together") == ["speculative decoding with quantization"]
    assert alternatives("papers on both graph transformers and molecule generation") == [
        "graph transformers with molecule generation"
    ]
    assert alternatives("combining knowledge graphs and LLMs for question answering") == [
        "knowledge graphs with LLMs for question answering"
    ]
    assert alternatives("the intersection of causal inference and reinforcement learning") == [
        "causal inference with reinforcement learning"
    ]
    assert alternatives("vision transformers and token pruning at the same time") == [
        "vision transformers with token pruning"
    ]
    assert alternatives("world models together with planning") == ["world models with planning"]
    # a plain "and" still names either, and "for both A and B" says where something applies
    assert alternatives("theorem proving and autoformalization") == ["theorem proving", "autoformalization"]
    assert parse_question("test-time scaling for both language and vision models", FRIDAY).topic == (
        "test-time scaling for both language and vision models"
    )


def test_each_clarification_is_a_list_of_its_own() -> None:
    # the examples of one clarification share words only among themselves: no "joint sonar with C"
    topic = parse_question("underwater perception (joint sonar + camera: depth maps, fish counting)", FRIDAY).topic
    assert topic == "underwater perception like joint sonar with camera; depth maps, fish counting"
    assert [a.text for a in topic_alternatives(topic)] == [
        "underwater perception",
        "joint sonar with camera",
        "depth maps",
        "fish counting",
    ]


def test_a_negation_of_nothing_a_paper_is_about_is_no_exclusion() -> None:
    # a relative clause inside a description ("objects that are not there") excludes nothing and stays
    request = read_request("captioning models that describe objects that are not there")
    assert request.excluded == () and "not there" in request.text
    assert parse_question("diffusion papers, but not those", FRIDAY).topic == "diffusion"


def test_a_lone_word_coordinated_with_the_last_word_before_it_shares_the_rest() -> None:
    # "shorter or cheaper": the chain of thought made cheaper, not any paper saying "cheaper" (issue 22's example)
    text = read_request("overthinking in reasoning models, i.e. making chain-of-thought shorter or cheaper?").text
    assert [a.text for a in topic_alternatives(parse_question(text, FRIDAY).topic)][1:] == [
        "making chain-of-thought shorter",
        "making chain-of-thought cheaper",
    ]
    assert [a.text for a in topic_alternatives("transformer encoders or decoders")] == [
        "transformer encoders",
        "transformer decoders",
    ]
    # a noun alternative stays whole
    assert [a.text for a in topic_alternatives("graph neural networks or transformers")][1:] == ["transformers"]


def test_two_acts_on_one_short_object_each_act_on_it() -> None:
    # "detecting" alone was an alternative of its own: any paper on detecting anything (misspelt words, vandalism)
    assert [a.text for a in topic_alternatives("detecting or tracing AI-generated content")] == [
        "detecting AI-generated content",
        "tracing AI-generated content",
    ]
    # a longer object, or one with a preposition, may say more than the first act needs: the lone act stays
    assert topic_alternatives("compressing or shortening the chain of thought without loss")[0].text == "compressing"
    # an example is read beside its class already ("pruning" of the KV cache): it stays as typed
    examples = [a.text for a in topic_alternatives("KV cache compression like evicting or pruning cached tokens")]
    assert examples[1] == "evicting"


def test_every_example_and_every_clarification_in_parentheses_is_an_alternative() -> None:
    question = "What's new on PDE solvers (neural operators like DeepONet/FNO, or physics-informed nets i.e. PINNs)?"
    texts = [a.text for a in topic_alternatives(parse_question(read_request(question).text, FRIDAY).topic)]
    assert texts[1:] == ["neural operators", "DeepONet", "FNO", "physics-informed nets", "PINNs"]


def test_a_parenthesis_inside_a_phrase_glosses_the_word_before_it() -> None:
    # "phone-app (mobile) agents": mobile agents, not any paper saying "mobile" (a lung-sound study on mobile phones)
    question = "agents that operate user interfaces, e.g. GUI agents / phone-app (mobile) agents?"
    texts = [a.text for a in topic_alternatives(parse_question(read_request(question).text, FRIDAY).topic)]
    assert texts[-2:] == ["phone-app agents", "mobile agents"]
    assert [a.text for a in topic_alternatives(read_request("protein design (binders, peptides)").text)][1:] == [
        "binders",
        "peptides",
    ]


def test_a_later_sentence_requesting_something_is_no_clarification() -> None:
    question = "What did Friday bring on LoRA / parameter-efficient fine-tuning? Short summary please."
    assert parse_question(question, FRIDAY).topic == "LoRA / parameter-efficient fine-tuning"
    assert parse_question("what does the literature say about model merging?", FRIDAY).topic == "model merging"


def test_request_wording_is_not_topic() -> None:
    assert parse_question("summarize the quantization papers from Tuesday", FRIDAY).topic == "quantization"
    window = parse_question("summarize the quantization papers from Tuesday", FRIDAY).window
    assert window is not None and window.start == window.end == dt.date(2025, 5, 27)
    assert parse_question("I'm looking for speech datasets", FRIDAY).topic == "speech"


def test_how_a_day_s_papers_are_asked_for_is_not_topic() -> None:
    # the answer's form ("a recap", "highlights") and how papers came out ("announced") say nothing of their topic
    recap = parse_question("a recap of May 28 on causal inference", FRIDAY)
    assert recap.topic == "causal inference" and recap.window is not None and recap.window.start == dt.date(2025, 5, 28)
    assert parse_question("Thursday's highlights in speech synthesis", FRIDAY).topic == "speech synthesis"
    assert parse_question("what was announced on 2025-05-29 about world models?", FRIDAY).topic == "world models"
    assert parse_question("I'm after work on neural ODEs", FRIDAY).topic == "neural ODEs"
    # a phrasal verb of summing up or briefing is the answer's form too
    assert parse_question("could you sum up the spiking network papers from Monday?", FRIDAY).topic == "spiking network"
    assert parse_question("brief me on today's causal inference work", FRIDAY).topic == "causal inference"
    assert parse_question("tl;dr of Monday's world model papers", FRIDAY).topic == "world model"
    assert parse_question("world models from earlier this week", FRIDAY).topic == "world models"


def test_the_form_of_the_answer_asked_for_is_not_topic() -> None:
    # the noun a request's verb gives the asker ("a rundown of", "a quick summary of") is what the answer is, not
    # what the papers are about
    assert parse_question("give me a rundown of Monday's fairness papers", FRIDAY).topic == "fairness"
    quick = parse_question("give me a quick summary of today's papers on GUI or web agents", FRIDAY)
    assert quick.topic == "GUI or web agents"
    assert parse_question("could you show me a list of diffusion papers?", FRIDAY).topic == "diffusion"
    assert parse_question("give me the MoE papers from today", FRIDAY).topic == "MoE"
    # the form's noun alone, the request understood, and a closing clause asking only for the form
    assert parse_question("quick summary of the federated learning papers from Monday please", FRIDAY).topic == (
        "federated learning"
    )
    # a summary of something the papers are about is their topic, not the answer's form
    assert parse_question("abstractive summary of meeting transcripts", FRIDAY).topic == (
        "abstractive summary of meeting transcripts"
    )
    assert parse_question("Vision transformer papers from Thursday, summarized please", FRIDAY).topic == (
        "Vision transformer"
    )
    assert parse_question("video generation papers from Friday - briefly", FRIDAY).topic == "video generation"
    assert parse_question("self-summary models", FRIDAY).topic == "self-summary models"  # a hyphen inside a word


def test_the_end_of_an_open_list_is_no_item_of_it() -> None:
    question = "black-box optimisation -- Bayesian optimization, GP surrogates, acquisition functions and so on?"
    alternatives = [a.text for a in topic_alternatives(parse_question(question, FRIDAY).topic)]
    assert alternatives == ["black-box optimisation", "Bayesian optimization", "GP surrogates", "acquisition functions"]
    assert parse_question("pruning, quantization, etc.", FRIDAY).topic == "pruning, quantization"
    assert parse_question("LLM agents and the like", FRIDAY).topic == "LLM agents"


def test_a_non_word_coordinated_by_or_is_part_of_the_topic_not_an_exclusion() -> None:
    filters = parse_question("new datasets for low-resource or non-English languages", FRIDAY)
    assert filters.topic == "low-resource or non-English languages" and not filters.excluded
    assert parse_question("RL papers, non-LLM", FRIDAY).excluded == ("LLM",)


def test_how_the_papers_came_out_is_not_topic() -> None:
    thursday = parse_question("what robotics / robot learning papers were announced on Thursday?", FRIDAY)
    assert thursday.topic == "robotics / robot learning"
    assert parse_question("summarize yesterday's federated learning papers", FRIDAY).topic == "federated learning"
    assert parse_question("research based on transformers", FRIDAY).topic == "transformers"
    # an active verb is what the papers do: topic
    assert parse_question("papers that use RL to improve reasoning", FRIDAY).topic == "use RL to improve reasoning"


def test_a_sentence_after_the_question_clarifies_it() -> None:
    text = read_request("any RLHF papers? reward models, preference alignment of LLMs etc").text
    assert [a.text for a in topic_alternatives(parse_question(text, FRIDAY).topic)] == [
        "RLHF",
        "reward models",
        "preference alignment of LLMs",
    ]


def test_a_sentence_asking_something_else_is_no_clarification() -> None:
    assert parse_question("Is there anything on KV caches? What do they propose?", FRIDAY).topic == "KV caches"
    assert parse_question("MoE papers? Show me the newest.", FRIDAY).topic == "MoE"
    assert parse_question("Hi! Any papers on MoE?", FRIDAY).topic == "MoE"


def test_follow_up_phrases_refer_to_the_previous_answer() -> None:
    previous = Turn("MoE", ("2025-05-26", "2025-05-30"), [], [], [COMOE], [PREMOE])
    ones = parse_question("and only the ones from this week?", FRIDAY, previous)
    assert ones.topic == "MoE" and set(ones.restrict_to) == {COMOE, PREMOE} and not ones.narrows
    routing = parse_question("and the ones about routing?", FRIDAY, previous)
    assert routing.topic == "MoE" and routing.constraints == ("routing",)
    assert set(routing.restrict_to) == {COMOE, PREMOE}
    assert Turn.from_json(previous.to_json()) == previous
    assert Turn.from_json('{"topic": "x", "window": null, "authors": [], "categories": [], "paper_ids": []}')


def test_a_follow_up_naming_another_window_asks_anew_over_it() -> None:
    # after Monday's robotics papers, "anything on speech from Thursday?" cannot pick among Monday's papers: it is a
    # new question over Thursday (it used to narrow Monday's papers to Thursday: none, and said so first)
    monday = Turn("robotics", ("2025-05-26", "2025-05-26"), [], [], [COMOE], [PREMOE])
    speech = parse_question("anything on speech from Thursday?", FRIDAY, monday)
    assert speech.topic == "speech" and not speech.restrict_to
    assert (speech.window.start, speech.window.end) == (dt.date(2025, 5, 29), dt.date(2025, 5, 29))
    # a window inside the previous one still picks among its papers
    week = Turn("robotics", ("2025-05-26", "2025-05-30"), [], [], [COMOE], [PREMOE])
    picked = parse_question("anything on grasping from Thursday?", FRIDAY, week)
    assert picked.topic == "robotics" and set(picked.restrict_to) == {COMOE, PREMOE}
    assert (picked.window.start, picked.window.end) == (dt.date(2025, 5, 29), dt.date(2025, 5, 29))
    # a list of days is the days it names, not the span between them, on either side
    wednesday = Turn("robotics", ("2025-05-28", "2025-05-28"), [], [], [COMOE], [PREMOE])
    around = parse_question("anything on speech from Tuesday and Thursday?", FRIDAY, wednesday)
    assert around.topic == "speech" and not around.restrict_to
    ends = Turn("robotics", ("2025-05-26", "2025-05-30"), [], [], [COMOE], [PREMOE], days=["2025-05-26", "2025-05-30"])
    between = parse_question("anything on speech from Thursday?", FRIDAY, ends)
    assert between.topic == "speech" and not between.restrict_to
    on_one = parse_question("anything on grasping from Friday?", FRIDAY, ends)
    assert on_one.topic == "robotics" and set(on_one.restrict_to) == {COMOE, PREMOE}


def test_one_author_is_one_person() -> None:
    assert same_person("Lei Bai", "Lei Bai") and not same_person("Lei Bai", "Bai Lei")
    assert same_person("K.-W. Chang", "Kai-Wei Chang") and not same_person("K.-W. Chang", "Kevin Chang")
    assert same_person("Hinrich Schutze", "Hinrich Schütze") and same_person("Éric Moulines", "Eric Moulines")
    assert not same_person("Wen Sun", "Wenjie Sun")
    assert AuthorIndex(["Kai-Wei Chang", "Kevin Chang"]).match("K.-W. Chang").name == "Kai-Wei Chang"


def test_exact_names_are_names_and_vocabulary_terms_are_not() -> None:
    assert [p.pattern for p in exact_names("what is R2R?")] and exact_names("YAQA")[0].search("with YAQA we")
    assert exact_names("LLM agents") == [] and exact_names("MoE") == []
    assert not exact_names("YAQA")[0].search("yaqa")


async def test_a_descriptive_hyphenated_word_is_no_method_name(core: Core, demo_papers: list[Paper]) -> None:
    """ "Training-Free", "AI-generated" are made of words the archive uses on their own everywhere: they describe
    papers, they name no method (TrimR's title "Verifier-based Training-Free Thinking Compression" was put first for
    any "Training-Free" question). A name has a rare piece, a digit or an inner capital, or leads a title."""
    named = next(p for p in demo_papers if p.title.startswith("Model-Free Graph Data Selection"))
    led = dataclasses.replace(named, title="Model-Free: Graph Data Selection under Distribution Shift")
    trimr = next(p for p in demo_papers if "Training-Free" in p.title)
    others = [p for p in demo_papers[:200] if p.id not in (named.id, trimr.id)]
    await store_papers(core, [dataclasses.replace(p, announced=FRIDAY) for p in [led, trimr, *others]])
    for topic, words in [("AI-generated text detection", {"AI-generated"}), ("Training-Free compression", None)]:
        descriptive = await descriptive_compounds(core, topic)
        assert descriptive == (words or {topic.split()[0]}) and exact_names(topic, descriptive) == []
    for name in ("SWE-bench", "Trinity-RFT", "Qwen2-VL", "DeepSeek-R1", "Model-Free"):  # the last one leads a title
        assert await descriptive_compounds(core, f"{name} papers") == frozenset(), name
    results, _ = await ranked(core, Filters(topic="Training-Free compression"))
    assert trimr.id in {r.paper.id for r in results} and all(r.named == 0 for r in results)


async def test_a_question_reads_its_descriptive_words_once(
    core: Core, demo_papers: list[Paper], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An answer and a search each read the topic's hyphenated words in the archive once (a few reads of the store
    per word), for the ranking and the cut alike: both read them apart, so every question read them twice."""
    from bot.questions import retrieval

    await store_papers(core, [dataclasses.replace(p, announced=FRIDAY) for p in demo_papers[:120]])
    read: list[str] = []
    measured = retrieval._ordinary_modifier

    async def counted(core: Core, word: str) -> bool:
        read.append(word)
        return await measured(core, word)

    monkeypatch.setattr(retrieval, "_ordinary_modifier", counted)
    for find in (retrieval.retrieve, retrieval.retrieve_all):
        read.clear()
        await find(core, Filters(topic="Training-Free compression"))
        assert read == ["Training-Free"], find.__name__


async def test_a_question_reads_its_exclusions_once(
    core: Core, demo_papers: list[Paper], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ranking reads a question's exclusions as topics once, for dropping the papers about them and for marking
    those naming them in passing alike (it read them for each)."""
    from bot.questions import retrieval

    await store_papers(core, [dataclasses.replace(p, announced=FRIDAY) for p in demo_papers[:120]])
    read: list[tuple[str, ...]] = []
    measured = retrieval.excluded_readings

    async def counted(core: Core, filters: Filters) -> tuple[list[QuestionTopic], bool]:
        read.append(filters.excluded)
        return await measured(core, filters)

    monkeypatch.setattr(retrieval, "excluded_readings", counted)
    await retrieval.ranked(core, Filters(topic="language models", excluded=("vision-language models",)))
    assert read == [("vision-language models",)]


def test_real_words_are_never_typos() -> None:
    assert is_english_word("print") and not is_english_word("experst")


async def test_the_answer_offers_the_rest_and_says_how_many_matched(core: Core, demo_papers: list[Paper]) -> None:
    await store_papers(core, [dataclasses.replace(p, announced=FRIDAY) for p in demo_papers[:120]])
    answer = await ask(core, "papers on language models", today=FRIDAY, conversation_id="c")
    listed = len(answer.citations) + len(answer.more)
    meaning = len(answer.by_meaning)  # counted apart: "75 papers about ..., and 1 more close in meaning"
    assert answer.more and f"{listed - meaning} papers" in answer.text and "/more" in answer.text
    assert not meaning or f"and {meaning} more close in meaning" in answer.text
    assert len(answer.citations) <= 15


async def test_one_author_never_joins_two_people(core: Core, demo_papers: list[Paper]) -> None:
    papers = [dataclasses.replace(p, announced=FRIDAY) for p in demo_papers[:200]]
    first, last = papers[0].authors[0].split()[0], papers[1].authors[-1].split()[-1]
    mixed = dataclasses.replace(papers[2], authors=(f"{first} Zzz", f"Yyy {last}"))
    await store_papers(core, [*papers[:2], mixed])
    answer = await ask(core, f"papers by {first} {last}", today=FRIDAY)
    assert mixed.id not in {p.id for p in answer.citations}


async def test_a_multi_day_answer_gives_each_paper_its_day(core: Core, demo_papers: list[Paper]) -> None:
    moe = [p for p in demo_papers if p.id in (COMOE, PREMOE)]
    await store_papers(core, [dataclasses.replace(moe[0], announced=dt.date(2025, 5, 28)), moe[1]])
    answer = await ask(core, "MoE papers this week", today=FRIDAY)
    assert "(2025-05-28)" in answer.text


async def test_more_in_chat_lists_the_rest_of_the_last_answer_with_days(core: Core, demo_papers: list[Paper]) -> None:
    from bot.chat import ChatController, Incoming, Place, Speaker, TextReply

    await store_papers(core, demo_papers[:120])
    ctl, bob, channel = ChatController(core), Speaker("discord:7", "Bob"), Place("discord", "555", is_dm=False)
    (answer,) = await ctl.handle(Incoming.from_text(bob, channel, "/ask papers on language models"))
    offered = re.search(r"(\d+) more papers match", answer.text)
    assert offered is not None
    (rest,) = await ctl.handle(Incoming.from_text(bob, channel, "/more"))
    assert isinstance(rest, TextReply) and rest.cards
    assert len(rest.cards) == min(10, int(offered.group(1)))
    # each card names its day once, in its byline (a second "announced D" line repeated it)
    assert all(paper_text(card).count(card.announced.isoformat()) == 1 for card in rest.cards)
    shown = {v.id for v in answer.citations}
    assert not shown & {card.id for card in rest.cards}


def test_up_to_now_is_no_topic() -> None:
    # "so far", "to date", "until now" say the papers up to today (the window every question has): no topic words
    for question in ("image editing papers so far?", "image editing work to date", "image editing papers until now"):
        filters = parse_question(question, FRIDAY)
        assert filters.topic == "image editing", question
    assert parse_question("any RL exploration papers so far this week?", FRIDAY).topic == "RL exploration"
    assert parse_question("keeping LLM knowledge up to date", FRIDAY).topic == "keeping LLM knowledge up to date"
    # a hyphen joins the word to the next: a compound of the topic ("now-casting", "far-field"), no time phrase
    assert "now-casting" in parse_question("deep learning approaches to now-casting of rainfall", FRIDAY).topic


def test_a_relative_clause_restricts_each_alternative_of_its_head() -> None:
    # was "LLMs on their mistakes", "agents that self-correct on their mistakes", "reflect on their mistakes"
    # what the clause's verb does to something of the subject's own is a reflexive act, named by the act
    assert [a.text for a in topic_alternatives("LLMs or agents that self-correct / reflect on their mistakes")] == [
        "LLMs self-correct",
        "LLMs reflect",
        "agents self-correct",
        "agents reflect",
    ]
    # two verbs of the clause before one short object both act on it
    texts = [a.text for a in topic_alternatives("models which check or correct the answers")]
    assert texts == ["models check the answers", "models correct the answers"]
    # two participles joined right after a plural noun are a reduced relative clause, sharing what follows them
    assert [a.text for a in topic_alternatives("LLMs correcting or reflecting on given outputs")] == [
        "LLMs correcting on given outputs",
        "LLMs reflecting on given outputs",
    ]
    assert [a.text for a in topic_alternatives("LLMs reasoning or planning over long horizons")] == [
        "LLMs reasoning over long horizons",
        "LLMs planning over long horizons",
    ]
    # after a noun that is no plural, the first participle ends a compound: no clause, "or" as before
    assert [a.text for a in topic_alternatives("LLM prompting or fine-tuning for code repair")] == [
        "LLM prompting for code repair",
        "fine-tuning for code repair",
    ]
    assert [a.text for a in topic_alternatives("machine learning or reasoning over knowledge graphs")] == [
        "machine learning over knowledge graphs",
        "reasoning over knowledge graphs",
    ]
    # a lone verb before one with a short object holding a preposition acts on it too
    assert [a.text for a in topic_alternatives("models that detect or localize objects in images")] == [
        "models detect objects in images",
        "models localize objects in images",
    ]
    # a "that" after a verb opens what is said, no clause
    assert [a.text for a in topic_alternatives("papers showing that scaling helps")] == [
        "papers showing that scaling helps"
    ]


def test_the_pieces_of_a_topic_with_a_relative_clause_as_typed_are_kept_beside_its_reading_by_role() -> None:
    # the reading by role decides what comes first; the pieces as typed and the clause's acts alone are listed after
    topic = "LLM agents that use tools or browse the web"
    assert [a.text for a in topic_alternatives(topic)] == ["LLM agents use tools", "LLM agents browse the web"]
    assert [a.text for a in loose_alternatives(topic)] == ["LLM agents that use tools", "browse the web", "use tools"]
    # the act without the thing of the subject's own that the reading by role leaves out
    assert "correct their reasoning" in [
        a.text for a in loose_alternatives("vision-language models that check or correct their own reasoning")
    ]
    assert loose_alternatives("diffusion models for protein design") == []  # no clause: one reading


def test_a_pronoun_is_no_topic_word() -> None:
    assert [p.tokens for p in split_units(topic_key("reflect on their mistakes"))] == [("reflect",), ("mistake",)]


def test_the_askers_own_clause_is_no_topic() -> None:
    """A leading clause naming the asker ("I'd like", "my team wants", "help me find") up to the preposition taking
    the topic is the request, read by role: its other words are verbs, filler or function words. A named term, a
    kind of contribution or a content word there, or a filler word right after the preposition, leaves it as it is."""
    for question, topic in [
        ("I'd like papers on robot manipulation", "robot manipulation"),
        ("my team wants work on blockchain", "blockchain"),
        ("help me find papers on reproducibility of ML research", "reproducibility of ML"),
        ("i am interested in secure inference", "secure inference"),
        ("I'm trying to find research on multi-label learning", "multi-label learning"),
        ("our lab works on credit assignment in RL, what's new?", "credit assignment in RL"),
        ("I remember a paper on decentralized learning, can you find it?", "decentralized learning"),
    ]:
        assert parse_question(question, FRIDAY).topic == topic, question
    assert parse_question("I want LLMs for code", FRIDAY).topic == "LLMs for code"  # a named term: no clause
    benchmark = parse_question("I want benchmarks for LLM agents", FRIDAY)
    assert (benchmark.topic, benchmark.contribution) == ("LLM agents", "benchmark")
    assert parse_question("we study graph neural networks for molecules", FRIDAY).topic.endswith(
        "graph neural networks for molecules"
    )
    assert "reading assessment" in parse_question("I'm writing a survey on reading assessment", FRIDAY).topic
    # a verb with its object, or right before "with" or "for", is the topic's act, not the asker's doing
    for question, topic in [
        ("I want to cluster points in high dimensions", "cluster points in high dimensions"),
        ("I want to rank documents for search", "rank documents for search"),
        ("I want to forecast with transformers", "forecast with transformers"),
        ("my model fails on long documents", "my model fails on long documents"),
    ]:
        assert parse_question(question, FRIDAY).topic == topic, question
    # a rarer verb form is a topic's word: "pruning" is what is asked about, not the asker's doing
    assert parse_question("work where we need pruning for LLMs", FRIDAY).topic == "pruning for LLMs"


def test_the_question_an_askers_clause_of_knowing_embeds_is_the_request() -> None:
    """ "I'd love to know if any X", "I wonder whether ...": the asker's clause of knowing or wondering ends at the
    "if" or "whether" opening the question it embeds; it had been kept whole as the topic's first words."""
    for question, topic in [
        ("I'd love to know if there are any papers on neural radiance fields", "neural radiance fields"),
        ("I wonder whether anything came out on dueling bandits", "dueling bandits"),
        ("I'd like to know if any work covers protein folding", "covers protein folding"),
    ]:
        assert parse_question(question, FRIDAY).topic == topic, question
    assert parse_question("if diffusion models memorize", FRIDAY).topic == "if diffusion models memorize"  # no asker


def test_whether_or_not_opens_the_embedded_question_and_excludes_nothing() -> None:
    """ "I'd like to know whether or not there are GNN papers": the "not" of "whether or not" had been read as an
    exclusion, leaving no topic and GNN papers excluded."""
    filters = parse_question("I'd like to know whether or not there are papers on graph neural networks", FRIDAY)
    assert (filters.topic, filters.excluded) == ("graph neural networks", ())
    assert parse_question("I wonder whether or not", FRIDAY).excluded == ()


def test_a_contracted_relative_exclusion_and_clarifications_after_a_comma() -> None:
    """ "X that's not about Y" excludes Y as "X that is not about Y" does; ", meaning", ", that is" and "I mean"
    introduce a clarification as "i.e." does ("word meaning" stays a topic)."""
    contracted = parse_question("anything on optimization that's not about LLM training", FRIDAY)
    assert (contracted.topic, contracted.excluded) == ("optimization", ("LLM training",))
    for question in (
        "graph foundation models, meaning pretrained models that transfer across graphs",
        "graph foundation models, that is pretrained models that transfer across graphs",
        "graph foundation models, I mean pretrained models that transfer across graphs",
    ):
        alternatives = [a.text for a in topic_alternatives(parse_question(question, FRIDAY).topic)]
        assert alternatives[0] == "graph foundation models", question
    assert parse_question("word meaning representations", FRIDAY).topic == "word meaning representations"


def test_how_long_or_how_briefly_the_answer_should_be_is_not_topic() -> None:
    # a remark on the answer's length ends a clause, wherever it stands; an adverb of manner before the request's own
    # words says how it is asked
    assert parse_question("In a few sentences, what came out Thursday on speech?", FRIDAY).topic == "speech"
    assert parse_question("summarize Thursday's papers on protein design in two sentences", FRIDAY).topic == (
        "protein design"
    )
    assert parse_question("what came out on Thursday about X-ray imaging, in brief", FRIDAY).topic == "X-ray imaging"
    assert parse_question("diffusion papers from Thursday - in a nutshell please", FRIDAY).topic == "diffusion"
    assert parse_question("Thursday: what's new in graph learning? keep it short", FRIDAY).topic == "graph learning"
    assert parse_question("briefly summarize Thursday's papers on RLHF", FRIDAY).topic == "RLHF"
    # a topic holding such words keeps them
    assert parse_question("weakly supervised segmentation", FRIDAY).topic == "weakly supervised segmentation"
    assert parse_question("family of models for robotics", FRIDAY).topic == "family of models for robotics"


def test_what_is_going_on_in_a_field_asks_about_the_field() -> None:
    assert parse_question("what's happening in robotics today", FRIDAY).topic == "robotics"
    assert parse_question("what's going on in RL this week", FRIDAY).topic == "RL"
    # a verb with an object of its own is the topic's
    assert parse_question("what is causing hallucination in LLMs", FRIDAY).topic == "causing hallucination in LLMs"
    # the past, "what" its subject and no object: "what happened in X"
    assert parse_question("what happened in diffusion models on Thursday?", FRIDAY).topic == "diffusion models"
    assert parse_question("what changed in RLHF this week", FRIDAY).topic == "RLHF"
    assert parse_question("what caused hallucination in LLMs", FRIDAY).topic == "caused hallucination in LLMs"
    # a noun ending in "eed" is no past verb: "speed", "seed" keep their place in the topic
    topic = parse_question("what speed on GPU do new kernels reach?", FRIDAY).topic
    assert topic.startswith("speed on GPU")


def test_an_adjective_after_anything_names_no_topic_of_a_later_clause() -> None:
    # "My research is on climate modelling. Anything relevant this week?" had been read as "relevant": an adjective
    # after "anything" says what the papers should be like, and the clause names no topic of its own
    question = "My research is on climate modelling. Anything relevant this week?"
    assert parse_question(question, FRIDAY).topic == "climate modelling"
    assert parse_question("I work on protein design. Anything exciting today?", FRIDAY).topic == "protein design"
    # nor does the asker's own verb in a later question ("I'm new to RL; where do I start?" had been read as "start")
    assert parse_question("I'm new to RL; where do I start?", FRIDAY).topic.startswith("RL")
    # a noun after it is the later clause's topic
    assert parse_question("I work on robot learning. Anything on RL today?", FRIDAY).topic == "RL"


def test_the_asker_s_context_before_the_request_is_no_topic() -> None:
    # what the asker does says why they ask; the later clause naming a topic says what
    question = "I'm building a service robot that has to find its way, so I'm after anything on robot navigation"
    assert parse_question(question, FRIDAY).topic == "robot navigation"
    question = "My group does video-language research. I'd like to catch up on video understanding, i.e. video QA"
    assert parse_question(question, FRIDAY).topic == "video understanding like video QA"
    question = "we're studying how to spend compute at inference time - what's new on test-time scaling (best-of-N)?"
    assert parse_question(question, FRIDAY).topic == "test-time scaling like best-of-N"
    question = "Our lab works on affective computing and I'd like to catch up on papers about emotion recognition"
    assert parse_question(question, FRIDAY).topic == "emotion recognition"
    # a request whose subject is left out takes the asker back
    question = "I work in oncology imaging and want to keep up with ML for cancer. What appeared this week?"
    assert parse_question(question, FRIDAY).topic == "ML for cancer"
    # who the asker is, before what they are interested in
    question = "I'm a theorist interested in what transformers can represent. Anything this week?"
    assert parse_question(question, FRIDAY).topic == "transformers can represent"
    # a later clause naming nothing leaves the context as the request; a clarification's own stops stay inside it
    assert parse_question("our lab works on tactile sensing. Anything new?", FRIDAY).topic == "tactile sensing"
    question = "I'd like papers on model merging (e.g. task arithmetic. TIES)"
    assert parse_question(question, FRIDAY).topic.startswith("model merging")


def test_a_sentence_ending_in_a_parenthesis_ends_the_asker_s_context() -> None:
    # "... (loss balancing, slow convergence). Anything ..." had been one clause: the context was read as the topic
    question = (
        "I run a small group and we keep fighting PINN training (loss balancing, slow convergence). Anything "
        "this week on physics-informed neural networks, i.e. new PINN variants?"
    )
    assert parse_question(question, FRIDAY).topic == "physics-informed neural networks like new PINN variants"


def test_the_asker_s_context_in_other_ways_researchers_write_it() -> None:
    # "As a PhD student in X, I'd love to see papers on Y": who the asker is, then the request after a comma
    question = "As a PhD student in speech processing, I'd love to see papers on speech enhancement / denoising"
    assert parse_question(question, FRIDAY).topic == "speech enhancement / denoising"
    # "..., so anything on X would help": a request after "so", and a closing remark on how welcome it is
    question = "We're a small robotics startup and our arm keeps dropping things, so anything on grasping would help."
    assert parse_question(question, FRIDAY).topic == "grasping"
    # "... and want recent papers on X" (no "to"), after a parenthesis the context holds
    question = "I teach a course on fairness (bias in hiring, lending, etc.) and want recent papers on causal fairness"
    assert parse_question(question, FRIDAY).topic == "causal fairness"
    # what for or as whom they ask, before the asker: why, not what
    question = "For a reading group next week I need papers on mechanistic interpretability (circuits, probing)."
    assert parse_question(question, FRIDAY).topic == "mechanistic interpretability like circuits, probing"
    assert parse_question("As a reviewer I want papers on diffusion distillation", FRIDAY).topic == (
        "diffusion distillation"
    )
    # a field before the asker, with no article, is the topic's ("memory" alone had been the topic)
    assert "LLM agents" in parse_question("For LLM agents, I need papers on memory", FRIDAY).topic
    assert "diffusion models" in parse_question("As for diffusion models, I'd like papers on sampling", FRIDAY).topic
    # a greeting first, then the asker's context; "want to know what's new on X"
    question = "Hi! I do climate science and want to know what's new on ML emulators for climate models."
    assert parse_question(question, FRIDAY).topic == "ML emulators for climate models"
    # a later clause naming nothing but the asker still leaves the context as the request (it had been "I'd like new")
    assert parse_question("My research is on climate modelling. I'd like anything new.", FRIDAY).topic == (
        "climate modelling"
    )


def test_a_kind_of_contribution_inside_a_clarification_is_one_example_not_the_request() -> None:
    # "(classification, regression, benchmarks)" had made every paper shown one making a benchmark
    question = "deep learning for tabular data (classification, regression, benchmarks)"
    filters = parse_question(question, FRIDAY)
    assert filters.contribution == ""
    assert "benchmarks" in filters.topic
    assert parse_question("tabular data, i.e. new datasets or benchmarks", FRIDAY).contribution == ""
    # named before the clarification it is the request
    assert parse_question("benchmarks (datasets or suites) for code agents", FRIDAY).contribution == "benchmark"
    assert parse_question("which papers introduce new benchmarks for LLM agents?", FRIDAY).contribution == "benchmark"


def test_how_a_paper_is_named_or_what_it_mentions_is_no_topic_word() -> None:
    # "called" had stayed in the topic ("called PEAR"), "mentioning" too
    assert parse_question("is there a paper called PEAR?", FRIDAY).topic == "PEAR"
    assert parse_question("the paper named RocqStar", FRIDAY).topic == "RocqStar"
    assert parse_question("I'm looking for a paper titled Value-Guided Search", FRIDAY).topic == "Value-Guided Search"
    assert parse_question("papers mentioning GRPO this week", FRIDAY).topic == "GRPO"
    assert parse_question("papers that mention GRPO", FRIDAY).topic == "GRPO"
    # a topic holding such a word keeps it
    assert parse_question("named entity recognition", FRIDAY).topic == "named entity recognition"


def test_the_asker_s_clause_before_a_kind_of_contribution_is_no_topic() -> None:
    """The asker's clause ends where the kind of contribution they ask for begins ("I'd like new benchmarks for X"):
    the papers make one, about X; the asker's words are no topic."""
    for question in (
        "I'd like new benchmarks for LLM agents",
        "I'd like benchmarks for LLM agents",
        "my team wants new benchmarks for LLM agents",
        "I would love new benchmarks for LLM agents",
    ):
        filters = parse_question(question, FRIDAY)
        assert (filters.topic, filters.contribution) == ("LLM agents", "benchmark"), question
    # a content word before the kind noun is the topic's ("I'd like robotics benchmarks": robotics is asked about)
    assert "robotics" in parse_question("I'd like robotics benchmarks", FRIDAY).topic


def test_a_word_in_parentheses_inside_a_phrase_is_read_in_place() -> None:
    """A parenthesis opening the question, or holding one or two words the phrase goes on after ("(new) benchmarks
    for X", "(large) language models"), marks a word as optional, not a clarification of what came before."""
    filters = parse_question("(new) benchmarks for LLM agents", FRIDAY)
    assert (filters.topic, filters.contribution) == ("LLM agents", "benchmark")
    assert (
        parse_question("papers on (large) language models for code", FRIDAY).topic == "large language models for code"
    )
    # a clarification after its head stays one ("LLMs (GPT, Llama) for code", "egocentric (first-person) vision")
    assert "like" in parse_question("LLMs (GPT, Llama) for code", FRIDAY).topic
    assert "like" in parse_question("egocentric (first-person) vision with VLMs", FRIDAY).topic


def test_a_welcome_remark_is_no_question_s_own_verb() -> None:
    """ "... would help" closing a request ("anything on grasping would help") is a remark on how welcome the answer
    is; in a question of its own ("Which methods would help?") it is what is asked."""
    assert parse_question("anything on grasping would help", FRIDAY).topic == "grasping"
    assert "help" in parse_question("Which methods would help?", FRIDAY).topic
    assert "help" in parse_question("what would help with long-context training?", FRIDAY).topic


def test_a_closing_remark_on_how_many_papers_will_do_is_not_topic() -> None:
    """ "just a few highlights is fine", "Short list please.", "a handful is enough": a closing sentence on how many
    papers the asker wants, read by its role (a quantity, then a word saying it suffices or "please"), is no topic."""
    for question in (
        "what's new on chest X-rays this week? just a few highlights is fine",
        "I'd like to catch up on chest X-rays this week. Short list please.",
        "anything on chest X-rays this week? a handful is enough",
        "chest X-rays papers this week - top 5 would do",
    ):
        assert parse_question(question, FRIDAY).topic == "chest X-rays", question
    # a topic opening with such a word keeps it
    assert parse_question("few-shot learning is enough?", FRIDAY).topic.startswith("few-shot learning")
    assert parse_question("top-k routing is good", FRIDAY).topic.startswith("top-k routing")


def test_a_request_naming_how_many_papers_on_a_topic_keeps_the_topic() -> None:
    """ "5 diffusion papers please": a quantity, then the topic, then "please" is the request itself, not a closing
    remark on how many will do (it had read as one and left no topic at all)."""
    assert parse_question("5 diffusion papers please", FRIDAY).topic == "diffusion"
    assert "GAN" in parse_question("A couple of GAN papers please", FRIDAY).topic
    assert "RL" in parse_question("hi! ten RL papers please", FRIDAY).topic
    # a remark whose words name no topic is still dropped
    assert parse_question("anything on GANs? just a few papers is fine", FRIDAY).topic == "GANs"


def test_a_sentence_ends_after_an_acronym() -> None:
    # "I'm an agronomist starting to use ML. anything on X?": the asker's context is a sentence of its own
    question = "hi! I'm an agronomist starting to use ML. anything this week on machine learning for agriculture?"
    assert parse_question(question, FRIDAY).topic == "machine learning for agriculture"


def test_the_asker_s_context_as_kinds16_s_writers_put_it() -> None:
    """Ways researchers write their context that the reading missed: "i.e." after a dash is no "I"; "and trying to
    keep up with X" leaves out its subject, the asker; "- what's out this week?" after the request names nothing; "a
    theory person curious about the geometry of X" (an article after the preposition is no word of the topic); a
    clause opening with an "-ing" verb whose subject is left out ("Working on a project about X -"); "has anything
    come out on X"."""
    question = "My group builds voice assistants and I'd like to catch up on speech synthesis — i.e. text-to-speech"
    assert parse_question(question, FRIDAY).topic == "speech synthesis like text-to-speech"
    question = "I'm a radiologist dabbling in AI and trying to keep up with work on chest X-rays — what's new?"
    assert parse_question(question, FRIDAY).topic == "chest X-rays"
    question = "I'm a theory person curious about the geometry of neural net training. anything this week?"
    assert parse_question(question, FRIDAY).topic == "geometry of neural net training"
    question = "Working on a project about digital twins — has anything come out on digital twins this week?"
    assert parse_question(question, FRIDAY).topic == "digital twins"
    assert parse_question("anything came out on RL?", FRIDAY).topic == "RL"


def test_a_topic_opening_with_an_ing_word_is_not_the_asker_s_context() -> None:
    """ "Reasoning models - anything on RL training?": a noun phrase opening with an "-ing" word is the topic, not the
    asker's doing (it had been dropped as "Working on a project about X -" is); the asker's verb takes a small word
    after it ("Working on", "Building a", "Reading up on")."""
    assert "reasoning models" in read_request("Reasoning models - anything on RL training?").text.lower()
    assert "sampling methods" in read_request("Sampling methods - what's new on MCMC?").text.lower()
    for question in ("Building a RAG system - anything on rerankers?", "Reading up on RLHF - anything on rerankers?"):
        assert read_request(question).text == "anything on rerankers?", question


def test_how_many_papers_are_asked_for_is_no_topic_word() -> None:
    """ "A couple of GAN papers please" kept "couple of" in its topic, "several papers on X" kept "several": a
    quantity before the papers asked for says how many, not what about. "few" needs its article ("few shot learning"
    is a topic) and a number word the papers right after it ("one step diffusion" is one too)."""
    assert parse_question("A couple of GAN papers please", FRIDAY).topic == "GAN"
    assert parse_question("several papers on GANs", FRIDAY).topic == "GANs"
    assert parse_question("a few recent papers on GANs", FRIDAY).topic == "GANs"
    assert parse_question("three papers about GANs", FRIDAY).topic == "GANs"
    # "top" before a number written as a word, as before one in digits ("top 5 papers on X")
    assert parse_question("top ten papers on GANs", FRIDAY).topic == "GANs"
    assert parse_question("the top five GAN papers", FRIDAY).topic == "GAN"
    assert parse_question("top 5 accuracy on ImageNet", FRIDAY).topic == "top accuracy on ImageNet"
    assert parse_question("few shot learning papers", FRIDAY).topic == "few shot learning"
    assert parse_question("one step diffusion", FRIDAY).topic == "one step diffusion"


def test_how_many_asks_for_a_count_and_is_no_topic_word() -> None:
    """ "how many papers on RLHF came out on Friday?" was read as the topic "many on RLHF", which no paper carries:
    the papers naming RLHF were only offered as close in meaning. "how many" / "how much" asks for a count, which
    the answer's first line gives; a hyphen makes it a word of the topic ("many-shot")."""
    question = "how many papers on reinforcement learning from human feedback came out on Friday?"
    assert parse_question(question, FRIDAY).topic == "reinforcement learning from human feedback"
    assert parse_question("how many RLHF papers were there on Friday?", FRIDAY).topic == "RLHF"
    assert parse_question("How much work on graph neural networks this week?", FRIDAY).topic == "graph neural networks"
    assert parse_question("how many-shot jailbreaking papers?", FRIDAY).topic == "many-shot jailbreaking"


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("explain the main ideas of this week's speculative decoding papers", "speculative decoding"),
        ("describe the speculative decoding papers", "speculative decoding"),
        ("explain the main idea of KVzip", "KVzip"),
        ("please explain the key findings in RLHF papers", "RLHF"),
        ("learning the kernel", "learning the kernel"),  # no imperative: a topic
        # what the answer gives of the papers, after a word of asking too ("key findings of KVzip" had been the topic)
        ("summarize the key findings of KVzip", "KVzip"),
        ("tell me the gist of KVzip", "KVzip"),
        ("what are the main ideas of KVzip?", "KVzip"),
        ("what's the key contribution of the RLHF papers?", "RLHF"),
    ],
)
def test_an_imperative_saying_what_the_answer_does_is_no_topic_word(question: str, topic: str) -> None:
    """ "explain the main ideas of this week's speculative decoding papers" answered "No paper about explain the main
    ideas of speculative decoding carries its words" (nine do): the verb addressed to the bot, and what the answer
    gives of the papers, are no topic."""
    assert parse_question(question, FRIDAY).topic == topic


def test_a_later_sentence_with_please_may_still_exclude_or_name_a_topic() -> None:
    """A later sentence with a word of request was dropped whole: "Papers on LLM agents. No surveys please." lost its
    exclusion, "Anything on GANs? A few on diffusion please" lost "diffusion". A sentence asking only for a form
    ("Short summary please.") is still no topic."""
    filters = parse_question("Papers on LLM agents. No surveys please.", FRIDAY)
    assert filters.topic == "LLM agents" and filters.excluded == ("surveys",)
    assert "diffusion" in parse_question("Anything on GANs? A few on diffusion please", FRIDAY).topic
    assert parse_question("Papers on LLM agents. Short summary please.", FRIDAY).topic == "LLM agents"


def test_a_topic_a_later_sentence_adds_with_please_is_one_more_asked_for() -> None:
    """ "Anything on GANs? A few on diffusion please" read "GANs like diffusion" (diffusion an example of GANs: 9
    papers), and "Papers on GANs. A few on diffusion please." the one topic "GANs. diffusion please" (both words in
    every paper: none carried them): the later sentence asks for papers on diffusion too."""
    assert parse_question("Anything on GANs? A few on diffusion please", FRIDAY).topic == "GANs or diffusion"
    assert parse_question("Papers on GANs. A few on diffusion please.", FRIDAY).topic == "GANs or diffusion"
    filters = parse_question("Papers on LLM agents. No surveys please. A few on robots please", FRIDAY)
    assert filters.topic == "LLM agents or robots" and filters.excluded == ("surveys",)
    # an exclusion of the first sentence stays one; the added topic is not excluded with it
    filters = parse_question("Papers on GANs, not surveys. A few on diffusion please", FRIDAY)
    assert filters.topic == "GANs or diffusion" and filters.excluded == ("surveys",)


def test_a_question_after_a_dash_picks_among_the_topic_s_papers() -> None:
    """ "Training diffusion models - anything new on distillation?" read "anything new on distillation" as a
    clarification of the topic (an example of it), and "GANs - any surveys?" as "GANs like any surveys": a question of
    its own after a dash or colon picks among the papers on the topic before it, as after a question mark."""
    filters = parse_question("Training diffusion models - anything new on distillation?", FRIDAY)
    assert filters.topic == "Training diffusion models" and filters.constraints == ("distillation",)
    filters = parse_question("GANs - any surveys?", FRIDAY)
    assert filters.topic == "GANs" and filters.constraints == ("surveys",)
    assert parse_question("diffusion models: anything on distillation?", FRIDAY).constraints == ("distillation",)
    # a clarification after a dash is still one
    clarified = parse_question("speech synthesis — i.e. text-to-speech", FRIDAY)
    assert clarified.topic == "speech synthesis like text-to-speech"


def test_an_address_before_a_colon_is_no_topic_to_pick_among() -> None:
    """ "Hey team: any new papers on diffusion?" read "team" as the topic and diffusion as a narrowing of it: what
    opens with a greeting or announces the question ("Question for you", "One more thing") speaks to the reader, and
    the question after it asks on its own."""
    assert parse_question("Hey team: any new papers on diffusion?", FRIDAY).topic == "diffusion"
    assert parse_question("Question for you: any papers on RL?", FRIDAY).topic == "RL"
    filters = parse_question("One more thing: anything on protein folding?", FRIDAY)
    assert filters.topic == "protein folding" and filters.constraints == ()
    assert parse_question("hi all - any papers on graph neural networks?", FRIDAY).topic == "graph neural networks"


def test_did_anything_come_out_about_a_topic_asks_about_the_topic() -> None:
    assert parse_question("did anything new come out about protein folding", FRIDAY).topic == "protein folding"
    assert parse_question("did anything come out on GANs this week?", FRIDAY).topic == "GANs"


def test_the_theory_of_a_topic_asks_for_theoretical_papers_about_it() -> None:
    """ "papers on the theory of transformers?" needed the words "theory" and "transformers" together: a paper
    proving what transformers can learn seldom writes "theory of transformers". It asks for the papers about
    transformers that are theoretical (a narrowing read through what theory papers write, `kind_reading`); a set
    phrase ("theory of mind") and a field named by its theory ("learning theory") stay topics."""
    filters = parse_question("papers on the theory of transformers?", FRIDAY)
    assert filters.topic == "transformers" and filters.constraints == ("theory",)
    filters = parse_question("theoretical results on diffusion models, not about guidance", FRIDAY)
    assert filters.topic == "diffusion models" and filters.constraints == ("theory",)
    assert filters.excluded == ("guidance",)
    assert parse_question("theory of mind in LLMs", FRIDAY).topic == "theory of mind in LLMs"
    assert parse_question("learning theory", FRIDAY).topic == "learning theory"


def test_a_thing_introduced_by_its_name_asks_for_the_name() -> None:
    """ "is there something called Aurora this week" read the topic "called Aurora" (only "a paper called X" was
    read): whatever the thing named ("something", "a method", "a model"), the verb naming it is no topic word."""
    assert parse_question("is there something called Aurora this week", FRIDAY).topic == "Aurora"
    assert parse_question("any method named GRPO-X?", FRIDAY).topic == "GRPO-X"
    assert parse_question("papers on a model known as Qwen3", FRIDAY).topic == "Qwen3"
    # a thing named after someone is not named so: the words stay the topic's
    assert parse_question("a divergence named after Bregman", FRIDAY).topic == "divergence named after Bregman"
    assert parse_question("is there a paper called PEAR?", FRIDAY).topic == "PEAR"


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("give me three papers on causal inference", 3),
        ("what are the top ten RAG papers?", 10),  # "the" before "top" selects the best ten: no count of named papers
        ("give me the top 3 papers on RLHF", 3),
        ("the two papers on RLHF you showed", None),  # a count of papers the question names
        ("a few papers on RLHF", None),
    ],
)
def test_the_number_of_papers_asked_for(question: str, asked: int | None) -> None:
    """ "what are the top ten RAG papers?" showed every paper found: "the" before "top ten" had been read as naming ten
    papers already known ("the two papers you showed")."""
    assert papers_asked_for(question) == asked


def test_a_colon_before_the_request_ends_the_asker_s_context() -> None:
    """ "I'm tuning a retrieval pipeline and unsure which reranker to use: papers on cross-encoder rerankers?": a colon
    before a clause that asks ("papers on X", "anything on X", "what's new on X") ends the asker's context as a dash
    does (the context had been read as the topic and the request as its examples); a colon before a list is no
    break ("secure computation for ML: MPC, homomorphic encryption")."""
    question = "I'm tuning a retrieval pipeline for our help desk and unsure which one to use: papers on rerankers?"
    assert parse_question(question, FRIDAY).topic == "rerankers"
    question = "We run a small weather desk and wonder if ML helps: what's new on precipitation nowcasting?"
    assert parse_question(question, FRIDAY).topic == "precipitation nowcasting"
    question = "Looking for secure computation for ML: MPC, homomorphic encryption, verifiable inference"
    assert "secure computation" in parse_question(question, FRIDAY).topic


def test_a_wish_whose_subject_and_left_out_is_the_asker_s_context_before_a_request() -> None:
    """ "I'm writing a compiler for our lab and want to speed it up: anything on learned cost models?": the clause
    after "and" whose subject, the asker, is left out is part of their context when the next clause asks for papers
    on a topic of its own ("I want to speed it up" had been read as the topic's first words); alone it is the request
    ("... and want to keep up with X"), and a later clause that names no topic of its own ("anything so far?") leaves
    it so."""
    question = "I'm writing a compiler for our lab and want to speed it up: anything on learned cost models?"
    assert parse_question(question, FRIDAY).topic == "learned cost models"
    question = "I'm on a small team and want to replace our tokenizer, so anything new on byte-level models?"
    assert parse_question(question, FRIDAY).topic == "byte-level models"
    question = "i work at a small fund and want to keep up with ML for finance. anything so far?"
    assert parse_question(question, FRIDAY).topic == "ML for finance"


def test_a_wish_left_without_its_subject_before_papers_on_a_topic_is_the_asker_s_context() -> None:
    """ "We build chatbots and need to cut costs: papers about speculative decoding?" read the topic "cut costs about
    speculative decoding": a request for "papers on X" was not seen as asking on a topic of its own (its pattern
    wanted a second "on"/"about" after the one "papers about" holds), as "anything on X" was."""
    question = "We build chatbots and need to cut costs: papers about speculative decoding?"
    assert parse_question(question, FRIDAY).topic == "speculative decoding"
    question = "I run evals for our team and want to trim them: papers on benchmark contamination?"
    assert parse_question(question, FRIDAY).topic == "benchmark contamination"


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("list all the RLHF papers", "RLHF"),
        ("show me all RLHF papers", "RLHF"),
        ("all the papers on RLHF this week", "RLHF"),
        ("list all of the diffusion papers", "diffusion"),
        ("show every paper on federated learning", "federated learning"),
        ("papers on all-to-all communication", "all-to-all communication"),
    ],
)
def test_a_quantifier_before_the_papers_is_no_topic_word(question: str, topic: str) -> None:
    """ "list all the RLHF papers" read the topic "all the RLHF": a quantifier (all, every, each) says how many of
    the papers are wanted, as "the" does, and is trimmed from the topic's ends like it."""
    assert parse_question(question, FRIDAY).topic == topic


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("which papers study overthinking?", "study overthinking"),
        ("which papers align language models?", "align language models"),
        ("any papers that reduce the KV cache size?", "reduce the KV cache size"),
        ("which papers segment medical images?", "segment medical images"),
    ],
)
def test_a_topic_led_by_the_verb_the_papers_do_keeps_it_for_the_order_only(question: str, topic: str) -> None:
    """ "which papers study grokking?" needed "study" of every paper; dropping the verb (668be91, reverted) lost the
    verbs that carry the topic ("align language models" -> "language models"). The verb stays in the topic and the
    topic is marked verb-led, so retrieval orders by it without needing it (`verb_first`), and the answer names the
    papers by it ("papers that align language models")."""
    filters = parse_question(question, FRIDAY)
    assert filters.topic == topic
    assert filters.verb_led == (topic,)
    assert subject_of(filters) == f"that {topic}"


@pytest.mark.parametrize(
    "question", ["which papers are about speech?", "papers on study design", "which papers introduce new benchmarks?"]
)
def test_no_verb_led_topic_without_a_verb_of_the_papers(question: str) -> None:
    """A word of asking ("are about"), a topic of its own or a contribution is no verb the papers do."""
    assert parse_question(question, FRIDAY).verb_led == ()


@pytest.mark.parametrize(
    ("question", "topic", "kind"),
    [
        ("is there a survey on agents?", "agents", "surveys"),
        ("any surveys on LLM agents?", "LLM agents", "surveys"),
        ("is there a review of diffusion models?", "diffusion models", "surveys"),
        ("survey papers about RLHF", "RLHF", "surveys"),
        ("papers on survey sampling", "survey sampling", None),
        ("code review papers", "code review", None),
    ],
)
def test_a_kind_of_paper_asked_for_narrows_the_topic(question: str, topic: str, kind: str | None) -> None:
    """ "is there a survey on agents?" read "survey" as a topic word, needed of every paper; it is the kind of paper
    asked for (a constraint read by `paper_kinds`), and the topic is what the survey covers. A kind word modifying a
    topic ("survey sampling") or after the noun it compounds with ("code review") asks for no kind."""
    filters = parse_question(question, FRIDAY)
    assert filters.topic == topic
    assert filters.constraints == ((kind,) if kind else ())
    if kind:
        assert kind_reading(kind) == "survey or review or overview or tutorial"
        assert subject_of(filters) == f"about {topic} (surveys only)"  # not "about X and about surveys"


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("who is working on federated learning?", "federated learning"),
        ("who works on KV cache compression?", "KV cache compression"),
        ("anyone working on protein design?", "protein design"),
        ("who's doing research on diffusion models?", "diffusion models"),
        ("which researchers study overthinking?", "study overthinking"),
        # an auxiliary before what they do ("which labs are working on X" read "are working on X": no paper says it)
        ("which labs are working on diffusion language models?", "diffusion language models"),
        ("which groups have been publishing on RLHF?", "RLHF"),
        # what the people made ("the authors of KVzip" read "of KVzip"; "the author of KVzip" took "author" as a verb)
        ("who are the authors of KVzip?", "KVzip"),
        ("who is the author of KVzip?", "KVzip"),
        ("who is the team behind TrimR?", "TrimR"),
    ],
)
def test_a_question_asking_who_asks_for_the_authors_of_the_topics_papers(question: str, topic: str) -> None:
    """ "who is working on federated learning?" listed papers needing the word "working": the people asked for do
    what the verb says, the topic is what follows its preposition, and the answer names the authors."""
    filters = parse_question(question, FRIDAY)
    assert (filters.topic, filters.people) == (topic, True)


def test_the_people_lines_name_an_order_only_of_what_they_hold() -> None:
    """ "Who wrote the 15 papers below (several papers first, then ...)" where no author wrote two of them."""
    a = Paper("1", "A", ("Ann Lead", "Bo Senior"), "x", ("cs.LG",), FRIDAY)
    b = Paper("2", "B", ("Cy First", "Di Last"), "x", ("cs.LG",), FRIDAY)
    assert people_lines([a, b]).splitlines()[0] == "Who wrote the 2 papers below (each one's first and last author):"


def test_papers_asked_for_are_no_people_question() -> None:
    for question in ("which papers study overthinking?", "federated learning papers?", "whose work on RL is best?"):
        assert not parse_question(question, FRIDAY).people, question


def test_the_people_lines_name_authors_of_several_papers_then_each_papers_first_and_last() -> None:
    """Grounded in the cited papers: each name with the numbers of its papers; one in the middle of one paper's
    author list is left out (counted)."""
    a = Paper("1", "A", ("Ann Lead", "Mid One", "Bo Senior"), "x", ("cs.LG",), FRIDAY)
    b = Paper("2", "B", ("Cy First", "Bo Senior"), "x", ("cs.LG",), FRIDAY)
    assert people_lines([a, b]).splitlines()[1:] == [
        "- Bo Senior [1][2]",
        "- Ann Lead [1]",
        "- Cy First [2]",
        "and 1 other author.",
    ]


@pytest.mark.parametrize(
    ("question", "named"),
    [
        ("papers in the same area as KVzip", "KVzip"),
        ("any papers similar to TrimR?", "TrimR"),
        ("work related to LoRA", "LoRA"),
        ("papers like those on video", ""),  # the previous papers, no thing named
        ("papers on KV cache compression", ""),
    ],
)
def test_papers_asked_for_by_their_likeness_to_one_thing_name_it(question: str, named: str) -> None:
    """ "papers in the same area as KVzip" read the topic "area as KVzip"."""
    filters = parse_question(question, FRIDAY)
    assert filters.likened_to == named
    if named:
        assert filters.topic == named


async def test_papers_like_a_stored_paper_are_those_in_its_area(core: Core, demo_papers: list[Paper]) -> None:
    """ "papers similar to TrimR" listed TrimR alone: a stored paper named by its title's lead is the example of an
    area, which the rest of its title describes; the papers of that area are answered, the example itself aside."""
    trimr = next(p for p in demo_papers if p.title.startswith("TrimR:"))
    papers = [dataclasses.replace(p, announced=FRIDAY) for p in dict.fromkeys([trimr, *demo_papers[:200]])]
    await store_papers(core, papers)
    answer = await ask(core, "any papers similar to TrimR?", today=FRIDAY)
    assert answer.text.startswith("Papers in the area of TrimR, as its title describes it: Verifier-based")
    assert answer.citations and trimr.id not in {p.id for p in (*answer.citations, *answer.more)}
    plain = await ask(core, "any papers similar to diffusion models?", today=FRIDAY)  # no paper of that name
    assert not plain.text.startswith("Papers in the area of")


async def test_papers_like_a_stored_paper_of_another_day_are_those_of_its_area_in_the_window(
    core: Core, demo_papers: list[Paper]
) -> None:
    """ "papers similar to TrimR from Friday?" where TrimR came out on Thursday read the topic "TrimR" (its paper was
    looked for in the window only): the paper named is found on any day, its area asked over the window."""
    trimr = next(p for p in demo_papers if p.title.startswith("TrimR:"))
    others = [dataclasses.replace(p, announced=FRIDAY) for p in demo_papers[:200] if p.id != trimr.id]
    await store_papers(core, [dataclasses.replace(trimr, announced=FRIDAY - dt.timedelta(days=1)), *others])
    answer = await ask(core, "any papers similar to TrimR from Friday?", today=FRIDAY)
    assert answer.text.startswith("Papers in the area of TrimR, as its title describes it: Verifier-based"), answer.text
    assert trimr.id not in {p.id for p in (*answer.citations, *answer.more)}


async def test_papers_like_a_previous_paper_named_by_its_place_are_those_in_its_area(
    core: Core, demo_papers: list[Paper]
) -> None:
    """ "papers in the same area as the first one" after an answer narrowed the answer by the word "first": a paper
    named by its place in the previous answer ("the first one", "[2]", "the last one") is that paper, and the papers of
    its area are answered, the example itself aside."""
    trimr = next(p for p in demo_papers if p.title.startswith("TrimR:"))
    papers = [dataclasses.replace(p, announced=FRIDAY) for p in dict.fromkeys([trimr, *demo_papers[:200]])]
    await store_papers(core, papers)
    first = await ask(core, "any papers on TrimR?", today=FRIDAY, conversation_id="p")
    assert first.citations[0].id == trimr.id, first.text
    for n, follow in enumerate(("papers in the same area as the first one", "papers similar to [1]?")):
        await ask(core, "any papers on TrimR?", today=FRIDAY, conversation_id=f"q{n}")
        answer = await ask(core, follow, today=FRIDAY, conversation_id=f"q{n}")
        assert answer.text.startswith("Papers in the area of TrimR, as its title describes it: Verifier-based"), (
            answer.text
        )
        assert answer.citations and trimr.id not in {p.id for p in (*answer.citations, *answer.more)}


@pytest.mark.parametrize(
    ("question", "topic", "people", "verb_led"),
    [
        ("I'm a PhD student in NLP. Who is working on federated learning?", "federated learning", True, False),
        ("I work on speech codecs: which papers study tokenization?", "study tokenization", False, True),
        ("Hi! which papers align language models?", "align language models", False, True),
    ],
)
def test_what_a_question_asks_for_is_read_after_the_asker_s_context(
    question: str, topic: str, people: bool, verb_led: bool
) -> None:
    """The asker's context or a greeting before the question hid what it asks for: "I'm a PhD student in NLP. Who is
    working on federated learning?" listed 1 paper needing "working" (the people asked for were read only at the
    question's start), and "Hi! which papers align language models?" needed "align" of every paper."""
    filters = parse_question(question, FRIDAY)
    assert (filters.topic, filters.people, bool(filters.verb_led)) == (topic, people, verb_led)


@pytest.mark.parametrize(
    ("question", "meaning", "opening"),
    [
        ("which papers study overthinking?", 0, "1 paper that studies overthinking announced"),
        ("which papers use diffusion for robotics?", 1, "No paper that uses diffusion for robotics announced"),
        ("which papers align language models?", 0, "1 paper that aligns language models announced"),
    ],
)
def test_a_verb_led_topic_of_one_paper_agrees_with_it(question: str, meaning: int, opening: str) -> None:
    """ "1 paper that study overthinking", "No paper that use diffusion for robotics ... carries its words": the verb
    the papers do named them in the plural whatever their number."""
    from bot.questions.rag import extractive_answer

    paper = Paper("1", "A", ("Ann Lead",), "x", ("cs.LG",), FRIDAY)
    text = extractive_answer(parse_question(question, FRIDAY), [paper], {}, (FRIDAY, FRIDAY), meaning=meaning)
    assert text.startswith(opening), text


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("Hey team, anything on KV cache?", "KV cache"),
        ("Hey team, who is working on KV cache?", "KV cache"),
        ("Quick question: who is working on diffusion?", "diffusion"),
        ("Question answering papers, anything new?", "Question answering"),
    ],
)
def test_an_address_to_the_reader_opening_a_question_is_no_part_of_its_topic(question: str, topic: str) -> None:
    """ "Hey team, anything on KV cache?" read the topic "team, on KV cache", and "Quick question: who is working on
    diffusion?" the topic "Quick question like who is working on diffusion" (the colon read as examples)."""
    assert parse_question(question, FRIDAY).topic == topic


@pytest.mark.parametrize(
    "question",
    [
        "who\u2019s working on KV cache?",
        "what\u2019s new on diffusion?",
        "any papers on \u201cmixture of experts\u201d?",
    ],
)
def test_a_typographic_quote_reads_as_the_straight_one(question: str) -> None:
    """ "who’s working on X" (a phone's apostrophe) read the topic "s working on X" where "who's working on X" read X:
    typographic quotes are read as the ASCII ones a keyboard types."""
    straight = question.replace("\u2019", "'").replace("\u201c", '"').replace("\u201d", '"')
    assert parse_question(question, FRIDAY) == parse_question(straight, FRIDAY)


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("give me every single RL paper", "RL"),
        ("every last paper on MoE", "MoE"),
        ("very recent papers on agents", "agents"),
        ("any single-cell papers?", "single-cell"),  # a topic's own word, not stressing a quantifier
        ("single image super-resolution papers", "single image super-resolution"),
    ],
)
def test_a_word_stressing_the_request_is_no_topic_word(question: str, topic: str) -> None:
    """ "give me every single RL paper" read the topic "single RL": a word stressing a quantifier ("every single") or
    the request's adjective ("very recent") is the asker's wording, not the topic."""
    assert parse_question(question, FRIDAY).topic == topic


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("any single image super resolution papers?", "single image super resolution"),
        ("are there any single agent RL papers?", "single agent RL"),
        ("all single cell papers this week", "single cell"),
        ("each single agent planner", "single agent planner"),
    ],
)
def test_single_after_a_quantifier_other_than_every_is_a_topic_word(question: str, topic: str) -> None:
    """ "any single image super resolution papers?" read the topic "image super resolution" and "all single cell
    papers" the topic "cell": only "every single" and "every last" are idioms stressing the quantifier; after "any",
    "all" or "each", "single" is the topic's own modifier (single-image, single-agent, single-cell)."""
    assert parse_question(question, FRIDAY).topic == topic


@pytest.mark.parametrize(
    ("title", "area"),
    [
        ("KVzip: Query-Agnostic KV Cache Compression", "Query-Agnostic KV Cache Compression"),
        (
            "Embodied AI with Foundation Models for Mobile Service Robots: A Systematic Review",
            "Embodied AI with Foundation Models for Mobile Service Robots",
        ),
        ("Creativity in LLM-based Multi-Agent Systems: A Survey", "Creativity in LLM-based Multi-Agent Systems"),
        ("Graph Neural Networks for Physics", "Graph Neural Networks for Physics"),
    ],
)
def test_the_area_of_a_paper_is_not_its_kind(title: str, area: str) -> None:
    """ "papers in the same area as the first one" after a survey titled "Embodied AI ...: A Systematic Review" asked
    for papers about "A Systematic Review" (four unrelated reviews): a part after the colon saying only what kind of
    paper it is names no area, the part before it does."""
    from bot.questions.rag import title_area

    assert title_area(title)[1] == area
