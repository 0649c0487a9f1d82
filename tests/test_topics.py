"""Topics as units (issue 14): named terms in every spelling, compounds about the whole, inflections, abbreviations."""

from __future__ import annotations

import dataclasses

import pytest

from bot.core import Core
from bot.models import Paper
from bot.questions.retrieval import topic_evidence
from bot.questions.spelling import corrected
from bot.questions.topics import COVERED, _optional, inflection_base, split_units, topic_key
from bot.text.terms import same_word


@pytest.fixture
async def archive(core: Core, demo_papers: list[Paper]) -> Core:
    """The bundled day in the database only: topic evidence and spelling read titles and word counts, no vectors."""
    await core.repo.upsert_papers(demo_papers)
    return core


def test_inflections_match_and_lookalikes_do_not() -> None:
    for word, token in [
        ("model", "modeling"),
        ("model", "modelling"),
        ("quantization", "quantized"),
        ("quantization", "quantisation"),
        ("tokenization", "tokenizer"),
        ("distillation", "distilling"),
        ("pruning", "pruned"),
    ]:
        assert same_word(word, token), (word, token)
    for word, token in [
        ("continual", "continuous"),
        ("optimization", "optimal"),
        ("quantization", "quantification"),
        ("differential", "different"),
        ("moe", "moes"),  # acronyms match as written (plurals are folded before)
    ]:
        assert not same_word(word, token), (word, token)
    # a class named before examples ("optimizers like SGD") matches in any inflection, never by derivation
    assert same_word("modeling", "model", exact=True) and not same_word("optimization", "optimize", exact=True)


def test_named_terms_are_units_in_any_spelling() -> None:
    parts = split_units(topic_key("SSMs for KV cache compression"))
    assert [(p.term.name if p.term else " ".join(p.tokens)) for p in parts] == [
        "state space model",
        "key value cache",
        "compression",
    ]
    assert [p.term.name for p in split_units(topic_key("Mixture-of-Experts")) if p.term] == ["mixture of expert"]


async def test_a_named_term_matches_its_acronym_synonyms_and_method_names(archive: Core) -> None:
    ssm = await topic_evidence(archive, "state space models")
    assert ssm.coverage("Graph Mamba for Efficient Whole Slide Image Understanding") == 1.0
    assert ssm.coverage("SAMamba: Adaptive State Space Modeling for Small Targets") == 1.0
    assert ssm.coverage("Efficient SSMs at Scale") == 1.0
    assert ssm.coverage("Spaces of Models") < COVERED
    moe = await topic_evidence(archive, "MoE")
    assert moe.coverage("MoRE: A Mixture of Low-Rank Experts for Adaptive Multi-Task Learning") == 1.0
    assert moe.coverage("CoMoE: Contrastive Representation") == 1.0  # the acronym ending a method's name
    assert moe.coverage("Shoe sizes in fashion") < COVERED
    gnn = await topic_evidence(archive, "GNNs")
    assert gnn.coverage("HyperIMTS: Hypergraph Neural Network for Irregular Multivariate Time Series") == 1.0


async def test_a_compound_is_not_any_one_of_its_words(archive: Core) -> None:
    scaling = await topic_evidence(archive, "test-time scaling")
    assert scaling.coverage("TrimR: Verifier-based Thinking Compression for Efficient Test-Time Scaling") == 1.0
    assert scaling.coverage("AutoMiSeg: Segmentation via Test-Time Adaptation of Foundation Models") < COVERED
    bayes = await topic_evidence(archive, "Bayesian optimization")
    assert bayes.coverage("Bayesian Optimization from Human Feedback") == 1.0
    assert bayes.coverage("Optimizing Data Augmentation through Bayesian Model Selection") < COVERED
    world = await topic_evidence(archive, "world models")  # "model" may go next to a rare word, not "world"
    assert world.coverage("Control of Renewable Energy Communities using AI and Real-World Data") < COVERED
    assert world.coverage("Learning World Models for Planning") == 1.0
    continual = await topic_evidence(archive, "continual learning")
    assert continual.coverage("A Lifelong Learning Framework for Motion Planning") == 1.0
    assert continual.coverage("Pretraining Language Models to Ponder in Continuous Space") < COVERED


async def test_abbreviations_are_written_out_and_split_words_joined(archive: Core) -> None:
    assert await corrected(archive, "spec decoding") == "speculative decoding"
    assert await corrected(archive, "code gen with LLMs") == "code generation with LLMs"  # not "general"
    assert await corrected(archive, "sparse auto-encoders") == "sparse autoencoders"
    assert await corrected(archive, "physics-infromed networks") == "physics-informed networks"
    assert await corrected(archive, "multi-agent systems") == "multi-agent systems"  # papers write it apart
    # the index stems "contextability" to "context": no paper writes the joined word, so the two words stay apart
    assert await corrected(archive, "long-context ability of LLMs") == "long-context ability of LLMs"


async def test_a_word_papers_write_as_two_is_split_as_they_write_it(archive: Core) -> None:
    """The mirror of joining: a run-together word no English word, that papers write as two words more often than as
    one, reads as those two, hyphenated when papers hyphenate them; what papers write as one, English words and
    names stay as typed."""
    assert await corrected(archive, "timeseries forecasting") == "time series forecasting"
    assert await corrected(archive, "zeroshot classification") == "zero-shot classification"
    assert await corrected(archive, "multiagent reinforcement learning") == "multi-agent reinforcement learning"
    for typed in ("sparse autoencoders", "database queries", "RetNet for language", "softmax attention"):
        assert await corrected(archive, typed) == typed


def _written(base: Paper, n: int, title: str, abstract: str) -> Paper:
    return dataclasses.replace(base, id=f"2599.{n:05d}", title=title, abstract=abstract)


async def test_a_named_term_stands_for_its_topic_only_beside_a_word_typical_of_it(archive: Core) -> None:
    base = (await archive.repo.get_papers(["2505.17553"]))[0]
    moe = [
        _written(base, n, f"Routing study {n}", f"{'A sparse' if n < 4 else 'An'} MoE layer routes.") for n in range(8)
    ]
    lora = [_written(base, 10 + n, f"Adapter study {n}", "We fine-tune LoRA adapters on text.") for n in range(8)]
    await archive.repo.upsert_papers([*moe, *lora])
    # many MoE papers say "sparse": a sparse MoE question is about MoE papers
    assert (await topic_evidence(archive, "sparse MoE")).coverage("An MoE layer for vision") == 1.0
    # few LoRA papers are federated: "federated LoRA" asks for that kind of LoRA
    federated = await topic_evidence(archive, "federated LoRA")
    assert federated.coverage("LoRA adapters for vision") < COVERED
    assert federated.coverage("Federated LoRA for clients") == 1.0
    # a verb acting on the topic ("shrinking the ...") is how the need is put; papers word it their own way
    caches = [_written(base, 30 + n, f"Cache study {n}", "The KV cache grows with context.") for n in range(6)]
    await archive.repo.upsert_papers(caches)
    shrinking = await topic_evidence(archive, "shrinking the KV cache")
    assert shrinking.coverage("Evicting KV Cache Entries for Long Contexts") == 1.0
    # read by its role (a determiner follows it), not by its ending: "shrink the ..." and "compress its ..." too
    for question in ("shrink the KV cache", "compress their KV cache"):
        assert (await topic_evidence(archive, question)).coverage("Evicting KV Cache Entries") == 1.0
    # a topic's own nouns are needed: "KV cache eviction" is not any KV cache paper
    assert (await topic_evidence(archive, "KV cache eviction")).coverage("KV Cache Quantization") < COVERED


async def test_an_answer_shows_papers_holding_each_side_of_x_for_y(archive: Core) -> None:
    """A common unit before "for" may only say where the topic lives as papers are listed ("LLMs for time series"
    lists time-series papers), but the papers an answer shows first hold both sides; "with" alike."""
    series = await topic_evidence(archive, "LLMs for time series")
    alone = "Forecasting Multivariate Time Series\nWe forecast time series with a transformer."
    assert series.holds_every_part(alone)  # listed
    assert not series.showing.holds_every_part(alone, related=False)  # not shown first
    assert series.showing.holds_every_part("Time Series Meet LLMs\nAn LLM reads time series.", related=False)
    adapters = await topic_evidence(archive, "continual learning with adapters")
    alone = "Continual Learning for Robots\nModels learn new tasks without forgetting."
    assert not adapters.showing.holds_every_part(alone, related=False)
    assert adapters.showing.holds_every_part("Adapters for Continual Learning\nWe train adapters.", related=False)


async def test_an_answer_shows_papers_naming_the_whole_phrase_when_a_common_unit_only_locates(archive: Core) -> None:
    """A common unit before a rare last one only says where the topic lives as papers are listed ("LLM
    hallucinations" lists any hallucination paper), but the papers an answer shows first name the phrase as typed
    ("dataset distillation" is not any distillation)."""
    topic = await topic_evidence(archive, "LLM hallucinations")
    (reading,) = topic.alternatives
    assert reading.placed is not None and topic.first_page_differs
    title, abstract = "Hallucination in Vision Models", "We measure hallucination of image captioners."
    assert topic.holds_every_part(f"{title}\n{abstract}")  # listed
    assert not topic.shows(title, abstract)  # not shown first
    assert topic.shows("Why LLMs Hallucinate", "Large language model hallucinations come from pretraining data.")
    # far apart in the abstract is not the phrase
    apart = "We test captioners for hallucination. " + "x " * 12 + "LLMs too."
    assert not topic.shows("Hallucination Benchmarks", apart)
    # a topic of rare words only has no other first-page reading
    assert not (await topic_evidence(archive, "speculative decoding")).first_page_differs


def test_a_first_page_needs_a_very_common_word_typed_beside_a_rare_one() -> None:
    """ "video generation": papers are listed by "video" alone (almost every paper generates something), but the
    phrase a first page names needs "generation" too ("Video Editing for Dubbing" is listed, not shown first)."""
    shares, terms = [0.03, 0.45], [False, False]
    assert _optional(shares, terms, 1)  # listed
    assert not _optional(shares, terms, 1, locating=False)  # shown first
    assert not _optional(shares, terms, 0, locating=False)


async def test_x_for_y_is_about_x_when_papers_on_x_name_y(archive: Core) -> None:
    base = (await archive.repo.get_papers(["2505.17553"]))[0]
    operators = [_written(base, 20 + n, f"Operator study {n}", "A neural operator solves the PDE.") for n in range(6)]
    await archive.repo.upsert_papers(operators)
    pdes = await topic_evidence(archive, "neural operators for PDEs")
    assert pdes.coverage("Fourier Neural Operators for Weather") == 1.0
    assert pdes.coverage("Finite volumes for hyperbolic PDEs") < COVERED
    agents = await topic_evidence(archive, "LLM agents for software engineering")  # few agent papers are about it
    assert agents.coverage("LLM agents for web navigation") < COVERED


async def test_a_paper_is_about_a_topic_it_names_in_its_title_or_more_than_once(archive: Core) -> None:
    llms = await topic_evidence(archive, "LLMs")
    passing = "Inspired by FP quantization in large language models, we quantize diffusion models."
    assert not llms.is_about("4-Bit Quantization for Diffusion Models", passing)  # context, not its subject
    assert llms.is_about("Quantizing LLMs", "We quantize weights.")
    assert llms.is_about("Low-bit weights", "We quantize LLMs. Our LLM keeps its accuracy at 4 bits.")


async def test_a_gerund_matches_the_word_it_drops_an_e_from(archive: Core) -> None:
    coding = await topic_evidence(archive, "coding")
    assert coding.coverage("A Code Benchmark for Scientific Computing") == 1.0
    assert coding.coverage("Coding Agents at Work") == 1.0
    assert coding.coverage("Codebook Learning") < COVERED
    # any inflection the stemmer undoes, not only a gerund's "e": "aging" ~ "age", never a derivation
    assert (await topic_evidence(archive, "aging")).coverage("Age Estimation from Speech") == 1.0
    assert inflection_base("generalization") == "" and inflection_base("studies") == "studi"


async def test_an_agent_noun_is_no_inflection_of_its_verb_and_a_derivation_drops_a_final_e(
    archive: Core, demo_papers: list[Paper]
) -> None:
    # "adapter" names a module: a paper that merely adapts a model is not about adapters (`same_word` reads so too)
    # when its verb is one papers on anything use ("adapt..." in every tenth paper or more)
    papers = await archive.repo.count_papers()
    adapting = [dataclasses.replace(p, id=f"9999.{i:05d}", abstract="We adapt it.") for i, p in enumerate(demo_papers)]
    await archive.repo.upsert_papers(adapting[: papers // 5])
    adapters = await topic_evidence(archive, "adapters")
    assert adapters.coverage("LoRA Adapters for Vision Models") == 1.0
    assert adapters.coverage("We adapt a model to new domains") < COVERED
    # a verb few papers use is the field's name: "recommender" papers say "recommendation" too
    assert (await topic_evidence(archive, "recommender")).coverage("Sequential Recommendation with LLMs") == 1.0
    # "finance" and "financial" are one word as "industry" and "industrial" are
    finance = await topic_evidence(archive, "finance")
    assert finance.coverage("LLMs for Financial Question Answering") == 1.0


def test_a_preposition_is_no_unit_of_a_topic() -> None:
    for topic in ("gating between experts", "alignment across languages", "retrieval via graphs"):
        words = [t for p in split_units(topic_key(topic)) for t in p.tokens]
        assert not {"between", "across", "via"} & set(words) and len(words) == 2, topic


async def test_a_condition_on_papers_found_for_a_request_needs_only_what_the_request_did_not_name(
    archive: Core,
) -> None:
    gating = await topic_evidence(archive, "gating between experts")
    abstract = "Traditional gating mechanisms that route inputs to the best experts may hinder scalability."
    assert gating.coverage(abstract) < COVERED  # "gating" and "experts" are far apart
    # among papers found for "mixture of experts", "experts" says what they share: "gating" picks among them
    among = gating.discriminating([], ["mixture of experts"])
    assert among.coverage(abstract) == 1.0
    assert among.coverage("Expert pruning for MoE inference") < COVERED


async def test_a_compound_s_hyphenated_word_is_matched_side_by_side(archive: Core) -> None:
    # a compound of many parts may have them anywhere, but a hyphenated word the archive writes stays one word
    swarm = await topic_evidence(archive, "multi-agent swarms for crop mapping")
    together = "Multi-Agent Swarms Map Crop Fields: we map crops with a swarm of multi-agent teams for mapping."
    apart = "Swarm Crop Mapping: we map crops with a swarm; a multi-layered planner steers each agent in mapping."
    assert swarm.coverage(together) == 1.0
    assert swarm.coverage(apart) < COVERED  # "multi-layered ... agent" is no multi-agent
    assert swarm.holds_every_part(apart)  # still holds every part somewhere: offered, not shown
    # one the archive never writes is read as its pieces ("Zorbo-based": papers say "Zorbo ... based on")
    coined = await topic_evidence(archive, "Zorbo-based provers for crop mapping")
    assert coined.coverage("Zorbo provers for crop mapping, based on search, map each crop.") == 1.0


async def test_a_typo_is_corrected_to_the_word_as_titles_write_it(archive: Core) -> None:
    """A typo of a word whose folded form is shorter ("series" folds to "sery", "networks" to "network") is matched
    against the title words as written: "sereis" is one swap from "series", two edits from "sery"."""
    assert await corrected(archive, "time sereis forecasting") == "time series forecasting"
    assert await corrected(archive, "graph nueral netwroks") == "graph neural networks"


async def test_a_typo_of_a_word_no_title_writes_is_corrected_to_the_abstracts_word(archive: Core) -> None:
    """A typo one edit from a word the papers write only in abstracts is that word, before a title word two edits
    away: "complexty" is "complexity" (no title of the day writes it), not the title word "complex"."""
    assert await corrected(archive, "computational complexty") == "computational complexity"


def test_an_and_or_a_letter_inside_a_hyphenated_word_belongs_to_it() -> None:
    from bot.questions.topics import lettered_words, topic_alternatives

    # "vision-and-language navigation" is one topic, not "vision" or "language navigation"
    assert [a.text for a in topic_alternatives("vision-and-language navigation")] == ["vision-and-language navigation"]
    assert [a.text for a in topic_alternatives("plug-and-play priors")] == ["plug-and-play priors"]
    assert [a.text for a in topic_alternatives("GNNs or graph transformers")] == ["GNNs", "graph transformers"]
    # a piece of one letter keeps its word whole: "Best-of-N" is no "best", "k-means" no "means"
    assert lettered_words("Best-of-N sampling") == [("best of n",)]
    assert lettered_words("k-means or X-ray imaging") == [("k mean",), ("x ray",)]
    assert lettered_words("multi-agent systems") == []


def test_an_activity_naming_what_follows_is_the_topic_s_own() -> None:
    from bot.questions.topics import topic_of

    # "reading" is a word of asking ("worth reading") but names the activity in "reading comprehension"
    assert topic_of("papers on reading comprehension") == "reading comprehension"
    assert [p.tokens for p in split_units(topic_key("machine reading comprehension"))] == [
        ("machine",),
        ("reading",),
        ("comprehension",),
    ]
    # an adjective ("interestingly" is English), a participle used as a preposition, a word of asking before "for"
    assert topic_of("papers on interesting phenomena") == "phenomena"
    assert topic_of("papers regarding diffusion") == "diffusion"
    assert topic_of("looking for work on RL") == "RL"


def test_an_example_opening_with_a_preposition_is_no_alternative() -> None:
    from bot.questions.topics import topic_alternatives

    # "..., with LLMs or over knowledge graphs" says how the need is met: read alone, any LLM paper would do
    topic = "hypothesis generation like ranking hypotheses, with LLMs or over knowledge graphs"
    assert [a.text for a in topic_alternatives(topic)] == ["hypothesis generation", "ranking hypotheses"]
    # with every example so dropped the head is the topic, not the whole text: "LLM agents, e.g. with tool use" had
    # been one alternative needing every word of its example (a search for it found one paper, "LLM agents" ten)
    assert [a.text for a in topic_alternatives("LLM agents, e.g. with tool use")] == ["LLM agents"]
    assert [a.text for a in topic_alternatives("3D generation like in robotics")] == ["3D generation"]


async def test_a_hyphenated_word_standing_for_the_whole_topic_needs_its_pieces_together(
    core: Core, demo_papers: list[Paper]
) -> None:
    # "energy-based models" was read as "energy" (every paper says "based" and "model"): papers on power grids and
    # buildings were shown first. The hyphenated word the archive writes is the topic, side by side
    written = (
        ("Understanding Adversarial Training with Energy-Based Models", "We study energy-based models."),
        ("Control of Renewable Energy Communities", "We model energy use of buildings based on real data."),
    )
    papers = [
        dataclasses.replace(paper, title=title, abstract=abstract)
        for paper, (title, abstract) in zip(demo_papers, written, strict=False)
    ]
    await core.repo.upsert_papers([*papers, *demo_papers[2:]])
    energy = await topic_evidence(core, "energy-based models")
    assert energy.coverage(papers[0].title, papers[0].abstract) == 1.0
    assert energy.coverage(papers[1].title, papers[1].abstract) < COVERED
    # beside other needed words the piece alone is the topic's: "diffusion policies" are diffusion-based ones
    policies = await topic_evidence(core, "diffusion-based policies for offline RL")
    assert policies.coverage("Diffusion Policies for Offline RL", "We train diffusion policies with offline RL.") == 1.0


async def test_a_word_s_share_counts_the_words_it_matches_not_its_index_stem_s(
    core: Core, demo_papers: list[Paper]
) -> None:
    # SQLite's Porter stemmer writes "generative" and "general" alike ("gener"): counted by the index, "generative"
    # looked as common as "general" and became optional in "generative models for tabular data", whose answer then
    # showed any tabular paper. Its share counts the papers writing the words it matches as written
    common = [
        dataclasses.replace(p, abstract=f"{p.abstract} In general, the approach generalizes.")
        for p in demo_papers[: len(demo_papers) * 3 // 5]
    ]
    tabular = [
        dataclasses.replace(
            demo_papers[-1], title="Generative Models for Tabular Data", abstract="We synthesize rows."
        ),
        dataclasses.replace(demo_papers[-2], title="Tabular Classification with Trees", abstract="A tabular model."),
        dataclasses.replace(demo_papers[-3], title="Decision Trees", abstract="Trees model tabular data well."),
    ]
    await core.repo.upsert_papers([*common, *demo_papers[len(common) : -3], *tabular])
    topic = await topic_evidence(core, "generative models for tabular data")
    generative = next(u for u in topic.alternatives[0].units if u.key == "generative")
    assert not generative.optional
    assert topic.coverage(tabular[1].title, tabular[1].abstract) < COVERED
    # words of the topic that are no stretch of it as typed ("model tabular", across "for") stand for nothing
    assert topic.coverage(tabular[2].title, tabular[2].abstract) < COVERED
    assert not [u.forms for u in topic.alternatives[0].standalone if ("model", "tabular") in u.forms]
    # a word whose index stem is only its own inflections counts as before ("general" itself stays common)
    general = await topic_evidence(core, "general models for tabular data")
    assert next(u for u in general.alternatives[0].units if u.key == "general").optional


async def test_a_hyphenated_word_of_a_short_topic_needs_its_pieces_side_by_side(
    core: Core, demo_papers: list[Paper]
) -> None:
    # "today's text-to-image papers" showed "Concepts in Text for Composed Image Retrieval": the two pieces within
    # the span a short compound's words may be spread over, but apart. A hyphenated word is one word however short
    # the topic
    written = (
        ("Fast Text-to-Image Diffusion", "We speed up text-to-image generation."),
        ("Learning from Concepts in Text for Composed Image Retrieval", "We retrieve images."),
    )
    papers = [
        dataclasses.replace(paper, title=title, abstract=abstract)
        for paper, (title, abstract) in zip(demo_papers, written, strict=False)
    ]
    await core.repo.upsert_papers([*papers, *demo_papers[2:]])
    topic = await topic_evidence(core, "text-to-image")
    assert topic.coverage(papers[0].title, papers[0].abstract) == 1.0
    assert topic.coverage(papers[1].title) < COVERED
