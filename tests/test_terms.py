"""Topic phrases as units (issue 14): named terms in any form, compounds about the whole thing, one-line interests."""

from __future__ import annotations

import asyncio
import dataclasses
from importlib.machinery import ModuleSpec
from pathlib import Path

import numpy as np
import pytest

from bot.config import Settings
from bot.core import Core, open_core
from bot.embeddings.embedder import LocalEmbedder, paper_vectors
from bot.errors import ConfigError
from bot.ingest.limits import clean_paper
from bot.members import onboarding
from bot.members.settings import profile_owner
from bot.models import Paper, Profile, Topic
from bot.questions.topics import split_units, topic_key
from bot.ranking import rank
from bot.ranking.for_profile import profile_model
from bot.ranking.interest_units import interest_core, named_terms_text, phrase_units
from bot.text import terms
from bot.text.terms import (
    Text,
    Unit,
    UnitIndex,
    agent_noun,
    common_prefix,
    english_count,
    is_english_word,
    joined_to,
    same_word,
    taken_as,
    text_tokens,
)
from tests.conftest import StoreDay
from tests.test_rank import fake_embed, paper


def one_line(text: str) -> Profile:
    return Profile(name=f"one line: {text}", topics=(Topic(name=text, want=text),))


def test_a_phrase_breaks_into_named_terms_and_content_words() -> None:
    units = phrase_units("sparse mixture-of-experts")
    assert [(u.key, u.named) for u in units] == [("sparse", False), ("mixture of expert", True)]
    assert {("moe",), ("mixture", "of", "expert")} <= set(units[1].forms) and units[1].weight > units[0].weight
    (ssm,) = phrase_units("state space models")  # a compound named term is one unit, not three words
    assert {("ssm",), ("mamba",), ("state", "space")} <= set(ssm.forms)
    assert [u.key for u in phrase_units("GPs")] == ["gaussian process"]  # plural acronym
    assert [u.key for u in phrase_units("LLM hallucination")] == ["large language model", "hallucination"]
    # a broad term (LLMs are everywhere) weighs like a word; a specific one more
    assert phrase_units("LLM hallucination")[0].weight == 1.0
    # "in" starts a named term here, so it is not taken for a framing word
    assert [u.key for u in phrase_units("in-context learning")] == ["in context learning"]


def question_term(topic: str) -> str:
    (part,) = split_units(topic_key(topic))
    assert part.term is not None
    return part.term.name


def test_members_and_questions_read_named_terms_alike_but_for_language_models() -> None:
    assert [u.key for u in phrase_units("lifelong learning")] == ["continual learning"]  # a synonym, for both
    assert question_term("lifelong learning") == "continual learning"
    # a question about language models asks about LLMs; a member's interest in them is not one in every LLM paper
    assert question_term("language models") == "large language model"
    assert [u.key for u in phrase_units("language models")] == ["language model"]
    # an LLM paper is still a paper about language models, and an RLHF paper one about reinforcement learning
    (lm,) = phrase_units("language models")
    assert {("llm",), ("large", "language", "model")} <= set(lm.forms) and "LLM" in lm.acronyms
    rl = split_units(topic_key("RL"))[0].term
    assert rl is not None and ("rlhf",) in rl.spellings


def test_framing_words_are_dropped_and_acronyms_spelled_out_for_the_embedding() -> None:
    assert interest_core("I'm into sparse MoE papers") == "sparse MoE"
    assert interest_core("I would like papers on in-context learning") == "in-context learning"
    assert interest_core("new work on RAG in general") == "RAG"
    assert interest_core("papers") == "papers"  # nothing else left: kept as written
    assert named_terms_text("sparse MoE") == "sparse MoE (mixture of experts)"
    assert named_terms_text("state space models") == "state space models"


def test_units_match_whole_terms_in_any_form() -> None:
    titles = [
        "Linear Mixture Distributionally Robust Markov Decision Processes",  # 0: "mixture" alone is no MoE
        "CoMoE: Contrastive Representation for Mixture-of-Experts",  # 1
        "MoRE: A Mixture of Low-Rank Experts for Multi-Task Learning",  # 2: a word or two inside the name
        "GraphRAG for legal norms",  # 3: acronym ending a longer name
        "RiverMamba: flood forecasting",  # 4: a named member of the family
        "Forecasting traffic",  # 5
        "STORAGE systems at scale",  # 6: "RAG" inside a capitalised word is not RAG
    ]
    abstracts = ["", "", "", "", "", "We forecast traffic with time series models.", ""]
    index = UnitIndex(titles, [f"{t}. {a}" for t, a in zip(titles, abstracts, strict=True)])
    moe = phrase_units("mixture of experts")[0]
    assert list(np.flatnonzero(index.hits(moe)[0])) == [1, 2]
    rag = phrase_units("RAG")[0]
    assert list(np.flatnonzero(index.hits(rag)[0])) == [3]
    ssm = phrase_units("state space models")[0]
    assert list(np.flatnonzero(index.hits(ssm)[0])) == [4]
    title, text = index.hits(phrase_units("time series forecasting")[2])  # "forecasting" in any inflection
    assert list(np.flatnonzero(title)) == [4, 5] and list(np.flatnonzero(text)) == [4, 5]
    series_title, series_text = index.hits(phrase_units("time series")[1])
    assert not series_title.any() and list(np.flatnonzero(series_text)) == [5]


def test_a_singular_ending_in_s_is_found_in_its_plural_and_is_no_other_word() -> None:
    # before: "bias" was read "bia", which neither "biases" (read "bias") nor "biased" matched, and "news" was read
    # "new", a framing word dropped from "news recommendation" and a word of every other abstract
    titles = ["Gender biases in hiring models", "A new recommender", "Personalised news feeds", "Biased estimators"]
    index = UnitIndex(titles, titles)
    assert list(np.flatnonzero(index.hits(phrase_units("gender bias")[1])[1])) == [0, 3]
    assert interest_core("news recommendation") == "news recommendation"
    assert list(np.flatnonzero(index.hits(phrase_units("news recommendation")[0])[1])) == [2]


def test_an_abbreviation_written_with_an_ampersand_is_one_word() -> None:
    # before: "Q&A" was two one-letter words, neither a unit, so an interest in Q&A named nothing
    assert text_tokens("Q&A and R&D, RL & planning, vision&language") == [
        *("qa", "and", "rd", "rl", "planning", "vision", "language"),
    ]
    index = UnitIndex(["Open-domain Q&A over tables", "QA over tables", "A question of tables"], ["", "", ""])
    assert list(np.flatnonzero(index.hits(phrase_units("Q&A")[0])[0])) == [0, 1]


def test_an_abbreviation_written_with_a_slash_between_letters_is_one_word() -> None:
    # before: "A/B" was two one-letter words, so "A/B testing" was read as "testing" and held by test-time papers
    assert text_tokens("A/B testing, I/O, CPU/GPU, w/o labels, w/ RL") == [
        *("ab", "testing", "io", "cpu", "gpu", "w", "o", "label", "w", "rl"),
    ]
    index = UnitIndex(["Online A/B testing at scale", "Test-time testing of agents"], ["", ""])
    units = phrase_units("A/B testing")
    assert [list(np.flatnonzero(index.hits(u)[0])) for u in units] == [[0], [0, 1]]


def test_a_word_matches_its_inflections_and_an_agent_noun_only_itself() -> None:
    assert same_word("sparse", "sparsely") and same_word("overthinking", "overthink")
    assert same_word("routing", "router")  # the act's word may name the thing that does it
    # an agent noun names a thing: "optimizer" is no "optimization" (every optimization paper) nor "optimized"
    assert not same_word("optimizer", "optimization") and not same_word("optimizer", "optimized")
    assert not same_word("transformer", "transformation") and not same_word("generator", "generation")
    # a class named before examples ("optimizers like SGD") matches as written, inflections included
    assert same_word("overthinking", "overthink", exact=True) and not same_word("quantization", "quantized", exact=True)


def test_an_agent_noun_is_told_from_its_base_by_the_letters_past_those_they_share() -> None:
    # one reading for words (`same_word`) and a question's inflection bases (`topics._base_forms`)
    assert common_prefix("adapter", "adapt") == 5 and common_prefix("model", "model") == 5
    assert agent_noun("adapter", "adapt") and agent_noun("recommender", "recommend")
    assert agent_noun("optimizer", "optimization") and not agent_noun("optimization", "optimizer")
    assert not agent_noun("routers", "routers") and not agent_noun("coding", "code")


def test_a_word_joined_in_front_is_a_compound_and_no_english_word_of_its_own() -> None:
    assert (
        joined_to("graph", "hypergraph") and joined_to("training", "pretraining") and joined_to("modal", "multimodal")
    )
    # a topic word is not found inside an unrelated longer word
    assert not joined_to("sport", "transport") and not joined_to("vision", "supervision")
    assert not joined_to("motion", "promotion") and not joined_to("coding", "encoding")
    # the list is searched as it is stored, whole words only ("transpor" is no word of it)
    assert is_english_word("transport") and not is_english_word("transpor") and not is_english_word("hypergraph")


def test_a_word_of_the_english_list_has_its_count_as_written_there() -> None:
    # the first line, a common word, a rare one and the last line (it has no newline: its count was once read
    # without its last digit); a word missing from the list, part of a word and a line's two fields count nothing;
    # alike whether the list's text is searched (a command's first words) or its dict is read (after)
    path = terms.english_list_path()
    assert path is not None
    last = path.read_text(encoding="utf-8").rstrip().rsplit("\n", 1)[1].split()
    assert last == ["hi", "300000"]
    counts = {"the": 23135851162, "video": 365410017, "videoed": 22045, "parsonage": 235824, "hi": 300000}
    counts |= dict.fromkeys(["hypergraph", "transpor", "the 23135851162", ""], 0)
    for read in (terms._searched_count, lambda w: int(terms._english_counts().get(w, 0)), english_count):
        assert {word: read(word) for word in counts} == counts


def test_a_command_looking_up_a_few_words_builds_no_dict_of_the_english_list() -> None:
    # a question looks up a dozen words: one search of the list's text each (~1 ms) costs less than the dict
    # (~0.05-0.2 s); a day's index looks up thousands (4.4 s searched for the bundled day's 7,555 words, 0.12 s with
    # the dict)
    english_count.cache_clear()
    terms._english_counts.cache_clear()
    words = [f"{w}{n}" for n in range(terms.SEARCHED_WORDS // 4) for w in ("graph", "model", "video", "vision")]
    assert sum(english_count(w) for w in words) >= 0 and terms._english_counts.cache_info().currsize == 0
    assert english_count("video") == 365410017 and terms._english_counts.cache_info().currsize == 1


def test_an_english_compound_of_a_prefix_and_the_word_far_rarer_than_the_word_is_joined() -> None:
    # a prefix or combining form joined to the word makes a narrower word of the same field, far rarer than it
    assert joined_to("medical", "biomedical") and joined_to("temporal", "spatiotemporal")
    assert joined_to("layer", "multilayer") and joined_to("channel", "multichannel")
    assert joined_to("space", "subspace") and joined_to("group", "subgroup")
    # a word of its own, about as common as the word it ends with, keeps refusing; so do letters that are no prefix
    assert not joined_to("vision", "supervision") and not joined_to("serving", "preserving")
    assert not joined_to("action", "interaction") and not joined_to("variance", "covariance")
    assert not joined_to("rating", "incorporating") and not joined_to("nation", "hallucination")
    # a prefix of size or degree grades the word or names another thing; "sub" grades an adjective
    assert not joined_to("phone", "microphone") and not joined_to("sound", "ultrasound")
    assert not joined_to("system", "ecosystem") and not joined_to("optimal", "suboptimal")
    assert joined_to("system", "subsystem") and joined_to("problem", "subproblem")
    assert english_count("medical") > 10 * english_count("biomedical") > 0 and english_count("hypergraph") == 0
    # prefixes of relation, time and self make words of their own, however rare (review)
    assert not joined_to("section", "intersection") and not joined_to("change", "interchange")
    assert not joined_to("mobile", "automobile") and not joined_to("former", "transformer")
    assert not joined_to("position", "preposition") and not joined_to("synthesis", "photosynthesis")


def test_a_derivation_is_one_word_across_spelling_changes_of_its_stem() -> None:
    # a final "e" or "y" giving way to "-ial", a vowel pair written as one vowel, "-able" / "-ability" of the verb
    assert same_word("finance", "financial") and same_word("industry", "industrial")
    assert same_word("explanation", "explain") and same_word("explanation", "explainability")
    assert same_word("explainable", "explanations") and same_word("interpretability", "interpretation")
    # not after other letters, nor across a stem of under six letters
    assert not same_word("different", "differential") and not same_word("exponent", "exponential")
    assert not same_word("optimal", "optimization") and not same_word("continual", "continuous")
    assert not same_word("adapter", "adaptation") and not same_word("possible", "pose")
    assert not same_word("explainer", "explanation") and same_word("explainer", "explanation", related=True)
    # an "-able" word meets its family, never the bare verb or noun it ends in, either way round (review)
    for able, bare in (("accountability", "account"), ("explainable", "explain"), ("actionable", "action")):
        assert not same_word(able, bare) and not same_word(bare, able)
    # an "-able" word meets the verb's derivations, not the verb or its inflections, whose sense it often leaves
    assert not same_word("reasoning", "reasonable") and not same_word("reason", "reasonably")
    assert not same_word("comparing", "comparable") and same_word("explainable", "explainability")
    # a verb's "-ate" is left out before "-able" ("differentiate" -> "differentiable"): the "i" left is no "-ial"
    assert not same_word("differential", "differentiable") and not same_word("differentiable", "differentially")
    assert same_word("differentiable", "differentiation") and same_word("differentiable", "differentiability")


def test_an_able_word_is_read_by_its_verb_only_when_the_verb_is_a_word_and_the_able_word_no_everyday_one() -> None:
    # the verb left by taking "-able" off must be an English word, as written or with its "e", "-ate" or single
    # consonant back ("integr" is none: "integrable" is no "integrity")
    assert not same_word("integrity", "integrable") and same_word("integration", "integrable")
    assert same_word("differentiation", "differentiable") and same_word("observation", "observability")
    # an "-able" word of everyday English has a sense of its own: "considerable" is no "consideration"
    assert not same_word("consideration", "considerable") and not same_word("consideration", "considerably")
    assert not same_word("comparison", "comparable") and not same_word("valuation", "valuable")
    assert same_word("generalization", "generalizable") and same_word("detection", "detectable")
    assert same_word("explanation", "explainable") and same_word("interpretability", "interpretable")


def test_an_able_or_ible_adjective_meets_its_own_noun_whatever_its_stem() -> None:
    # "reproducibility" found no paper writing "Reproducible Benchmarking" ("-ible" was read by no verb, and a stem
    # under MIN_STEM letters, "scal", by none either): an adjective and its noun are one word's forms
    assert same_word("reproducibility", "reproducible") and same_word("reproducible", "reproducibility")
    assert same_word("scalability", "scalable") and same_word("feasibility", "feasible")
    assert same_word("identifiability", "identifiably") and same_word("usability", "usable")
    # still not the verb an "-ible" word ends in, and not an everyday adjective, whose noun is another matter
    assert not same_word("reproducibility", "reproduce") and not same_word("reproducible", "reproduction")
    assert not same_word("availability", "available") and not same_word("stability", "stable")
    assert not same_word("variability", "variable") and not same_word("ability", "able")
    # nor an everyday adverb's: "probably" is common where "probable" is not, and names no probability
    assert not same_word("probability", "probably") and not same_word("probability", "probable")


def test_an_activity_is_not_found_in_its_verb_saying_what_something_is_taken_as() -> None:
    # "LLM serving": "serves as a testbed" says what a thing is used as, not that anything serves models; the verb
    # otherwise still counts ("we serve LLMs")
    texts = [
        "MisBench can serve as an effective benchmark for LLMs.",
        "We serve LLMs to many users at once.",
        "A scheduler for serving LLMs, served as a cloud service.",
    ]
    index = UnitIndex(texts, texts)
    serving = phrase_units("LLM serving")[1]
    assert serving.key == "serving"
    # also through the verb's base a question adds to the word ("serv", `topics._base_forms`)
    for unit in (serving, dataclasses.replace(serving, forms=(*serving.forms, ("serv",)))):
        found = [i for i, t in enumerate(texts) if unit.where(Text.of(t))]
        assert found == [1, 2] == list(np.flatnonzero(index.hits(unit)[1]))


def test_an_activitys_participle_saying_what_something_is_taken_as_is_no_mention_of_it() -> None:
    # "serving as a benchmark" after a verb "be", a conjunction or an adverb is the participle of "serve as"; the
    # "-ing" word after a modifier, a verb or a preposition names the activity ("LLM serving as a queue", "cast
    # serving as", "of serving as"), as it does before anything else
    texts = [
        "MisBench is released and serving as a benchmark for LLMs.",
        "It has been serving as a testbed.",
        "A corpus generally serving as a benchmark.",
        "We model LLM serving as a queue.",
        "We cast serving as a scheduling problem.",
        "A study of serving as a service.",
        "Serving as a bridge, our method helps.",
        "Efficient serving of LLMs.",
    ]
    index = UnitIndex(texts, texts)
    serving = phrase_units("LLM serving")[1]
    found = [i for i, t in enumerate(texts) if serving.where(Text.of(t))]
    assert found == [3, 4, 5, 7] == list(np.flatnonzero(index.hits(serving)[1]))
    tokens = text_tokens("it is serving as a benchmark and LLM serving as a queue")
    assert taken_as(tokens, 2) and not taken_as(tokens, 8) and not taken_as(tokens, 0)


def test_a_days_index_reads_an_agent_noun_as_its_act_too() -> None:
    # questions do not ("optimizer" is no "optimization"), one-line interests do: they ranked worse without it
    index = UnitIndex(["Adaptive optimization for deep nets"], ["Adaptive optimization for deep nets. We train."])
    title, text = index.hits(phrase_units("optimizer")[0])
    assert title.any() and text.any()


def test_a_days_index_and_one_text_find_a_unit_alike() -> None:
    """The ranker's index of a day and a question's reading of one text apply the same rules (`bot.text.terms`)."""
    titles = [
        "HyperIMTS: Hypergraph Neural Network for Irregular Multivariate Time Series",  # a word joined in front
        "SAMamba: Adaptive State Space Modeling for Small Targets",  # an inflection inside a name, and a name
        "Deep GPs for tabular data",  # a plural acronym
        "Unlearning in large models",  # a negation is no word joined in front of "learning"
        "Linear Mixture Distributionally Robust Markov Decision Processes",
        "MoRE: A Mixture of Low-Rank Experts",
        "Spaces of Models",
        "HDDLGym: Multi-Agent Problems in Transport and Logistics",  # an English word of its own is no joined word
        "Visual Transformers with Weak Supervision and Attention",  # no "vision", no "tension"
    ]
    index = UnitIndex(titles, titles)
    units = [
        u
        for phrase in ("GNNs", "state space models", "GPs", "learning", "MoE", "KV cache", "sport", "vision", "tension")
        for u in phrase_units(phrase)
    ]
    expected = {
        "graph neural network": [0],
        "state space model": [1],
        "gaussian process": [2],
        "learning": [],
        "mixture of expert": [5],
        "key value cache": [],
        "sport": [],
        "vision": [],
        "tension": [],
    }
    for unit in units:
        in_title = list(np.flatnonzero(index.hits(unit)[0]))
        assert in_title == [i for i, t in enumerate(titles) if unit.where(Text.of(t))], unit.key
        assert in_title == expected[unit.key], unit.key


ADVERSARIAL = [
    # many words in common with "sparse mixture-of-experts", but neither is about mixtures of experts
    paper("a", "Spectral mixture kernels", "Sparse spectral mixture kernels for Bayesian optimization."),
    paper("b", "Linear mixture MDPs", "Markov decision processes whose sparse transitions are a linear mixture."),
    paper("c", "PreMoe: lightening MoEs on constrained memory", "We prune the sparse routed modules of large models."),
    paper("d", "Contrastive routers for Mixture-of-Experts", "Layers route tokens; we make the routers contrastive."),
]


def test_a_phrase_is_said_to_be_in_a_paper_only_when_the_paper_writes_it() -> None:
    """MAGREF's /why said "phrase 'diffusion models for video generation' in the text": its abstract has every part
    ("video generation", "diffusion-based approaches") but never the phrase."""
    papers = [
        paper("a", "Any-reference video generation", "Video generation improved with diffusion-based models."),
        paper("b", "Efficient video diffusion", "We train Diffusion Models for video generation at scale."),
    ]
    model = rank.compile_profile(one_line("diffusion models for video generation"), fake_embed)
    ranked = rank.rank_for_profile(papers, fake_embed([p.text for p in papers]), model, 2, rank.paper_features(papers))
    reasons = {r.paper.id: r.reasons for r in ranked}
    assert "every part of 'diffusion models for video generation' in the text" in reasons["a"]
    assert "phrase 'diffusion models for video generation' in the text" in reasons["b"]


def test_a_one_line_interest_puts_papers_about_the_whole_phrase_first() -> None:
    vecs = fake_embed([p.text for p in ADVERSARIAL])
    model = rank.compile_profile(one_line("sparse mixture-of-experts"), fake_embed)
    features = rank.paper_features(ADVERSARIAL)
    ranked = rank.rank_for_profile(ADVERSARIAL, vecs, model, 4, features)
    assert {r.paper.id for r in ranked[:2]} == {"c", "d"}
    assert any("'sparse mixture-of-experts' in the" in reason for r in ranked[:2] for reason in r.reasons)
    # without the phrase and interest terms, word overlap alone puts the two other mixtures first: the test can fail
    flat = dataclasses.replace(
        rank.DEFAULT_WEIGHTS, phrase_title=0.0, phrase_text=0.0, interest_title=0.0, interest_text=0.0
    )
    ranked = rank.rank_for_profile(ADVERSARIAL, vecs, model, 4, features, flat)
    assert {r.paper.id for r in ranked[:2]} == {"a", "b"}


def test_only_a_topic_that_is_one_short_phrase_is_matched_as_a_phrase() -> None:
    papers = [paper("1", "KV cache eviction for long contexts", "We evict entries of the key-value cache.")]
    vecs = fake_embed([p.text for p in papers])
    alone = rank.compile_profile(one_line("KV cache"), fake_embed)
    listed = rank.compile_profile(one_line("KV cache, pruning, quantization"), fake_embed)
    described = rank.compile_profile(one_line("how transformers store facts in their weights and caches"), fake_embed)
    assert [p.text for p in alone.phrases] == ["KV cache"] and listed.phrases == () and described.phrases == ()
    features = rank.paper_features(papers)
    terms = rank._terms(vecs, features, [alone, listed], rank.DEFAULT_WEIGHTS)
    assert terms.phrase[0, 0] == pytest.approx(rank.DEFAULT_WEIGHTS.phrase_title + rank.DEFAULT_WEIGHTS.phrase_text)
    assert terms.phrase[1, 0] == 0.0


def test_profiles_with_any_number_of_phrases_score_together_as_alone() -> None:
    profiles = [
        one_line("sparse mixture-of-experts"),
        Profile(name="two", topics=(Topic("a", "KV cache"), Topic("b", "linear mixture MDPs"))),
        one_line("KV cache, pruning, quantization"),  # no phrase
        Profile(name="three", topics=(Topic("a", "MoE"), Topic("b", "Bayesian optimization"), Topic("c", "kernels"))),
    ]
    models = [rank.compile_profile(p, fake_embed) for p in profiles]
    assert [len(m.phrases) for m in models] == [1, 2, 0, 3]
    vecs, features = fake_embed([p.text for p in ADVERSARIAL]), rank.paper_features(ADVERSARIAL)
    together = rank.score_papers(vecs, features, models)
    alone = np.stack([rank.score_papers(vecs, features, [m])[0] for m in models])
    np.testing.assert_allclose(together, alone, rtol=1e-5, atol=1e-6)
    phrase = rank._terms(vecs, features, models, rank.DEFAULT_WEIGHTS).phrase
    assert phrase[1, 1] > 0 and phrase[2].max() == 0 and phrase[3, 2] > 0  # "linear mixture", none, MoE


@pytest.fixture(scope="module")
def moe_day(demo_papers: list[Paper], embedder: LocalEmbedder) -> tuple[list[Paper], np.ndarray]:
    """Real papers of the bundled day: two about MoE, the two other 'mixtures' of issue 14, and 40 more."""
    wanted = {"2505.17393", "2505.17553", "2505.17639", "2505.18044"}  # Spectral Mixture, CoMoE, PreMoe, Linear Mixture
    papers = [clean_paper(p) for p in demo_papers if p.id in wanted] + [clean_paper(p) for p in demo_papers[:40]]
    return papers, paper_vectors(embedder.embed, papers)


def test_a_member_interested_in_sparse_moe_gets_the_moe_papers_first(
    moe_day: tuple[list[Paper], np.ndarray], embedder: LocalEmbedder
) -> None:
    papers, vecs = moe_day
    model = rank.compile_profile(one_line("sparse mixture-of-experts"), embedder.embed)
    ranked = rank.rank_for_profile(papers, vecs, model, len(papers))
    top = [r.paper.title.split(":")[0] for r in ranked[:2]]
    assert sorted(top) == ["CoMoE", "PreMoe"]
    position = {r.paper.id: i for i, r in enumerate(ranked)}
    assert min(position["2505.17393"], position["2505.18044"]) > 1


async def test_onboarding_free_text_gives_the_topic_of_the_one_line_interest(
    core: Core, store_day: StoreDay, embedder: LocalEmbedder
) -> None:
    await store_day(core)
    key = "console:grace"
    answers = {"avoid": "/skip", "authors": "/skip", "categories": "/skip", "rate": "skip", "digest": "off"}
    reply = await onboarding.start(core, key, "Grace")
    reply = await onboarding.handle(core, key, "I'm into sparse MoE papers")
    while not reply.done:
        assert reply.step in answers, reply.text
        reply = await onboarding.handle(core, key, answers[reply.step])
    saved = await core.repo.get_profile(profile_owner(key))
    assert saved is not None
    member = await profile_model(core, saved)
    line = await profile_model(core, one_line("sparse MoE"))
    assert [[u.cache_key for u in p.units] for p in member.phrases] == [
        [u.cache_key for u in p.units] for p in line.phrases
    ]
    assert np.allclose(member.want_vecs[0], line.want_vecs[0], atol=1e-6)


def test_a_missing_english_word_list_is_a_clear_error_at_startup(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # word matching and spelling read symspellpy's bundled English list: without it every word would pass as a
    # compound and a typo; it is named, with the way to get it back, before anything is opened
    folder = tmp_path / "symspellpy"
    folder.mkdir()
    (folder / "__init__.py").write_text("")

    async def opened() -> None:
        async with open_core(Settings(home=tmp_path / "home", llm_base_url=None, llm_api_key=None)):
            pass

    for spec in (ModuleSpec("symspellpy", None, origin=str(folder / "__init__.py")), None):
        monkeypatch.setattr(terms.importlib.util, "find_spec", lambda name, spec=spec: spec)
        assert terms.english_list_path() is None
        with pytest.raises(ConfigError, match=r"frequency_dictionary_en_82_765\.txt.*symspellpy"):
            asyncio.run(opened())
        assert not (tmp_path / "home").exists()
    monkeypatch.undo()
    path = terms.english_list_path()
    assert path is not None and path.name == "frequency_dictionary_en_82_765.txt"


def _every_token_where(unit: Unit, text: Text, exact: bool = False) -> list[tuple[int, int]]:
    """`Unit.where` as it was written before its first test of a token's letters: `starts_as` on every token."""
    spots: list[tuple[int, int]] = []
    for form in unit.forms:
        starts = [
            i
            for i, t in enumerate(text.tokens)
            if terms.starts_as(form[0], t, exact) and not (unit.activity and taken_as(text.tokens, i))
        ]
        if starts:
            spots += terms.form_spans(terms._standing_for(form, exact), text.tokens, starts, unit.gap)
    pattern = terms.ending_pattern(unit.acronyms)
    if pattern is not None:
        spots += [(i, i) for i, raw in enumerate(text.raw) if terms._holds(pattern, unit.acronyms, raw)]
    return sorted(set(spots))


def test_a_units_places_are_those_every_token_tested_gives(demo_papers: list[Paper]) -> None:
    """`Unit.where` tests a token's first letters (or, joined, its end) before `starts_as`, which needs them: a
    question's readings scanned every token of every candidate with it (most of an exclusion question's time). The
    places are the same on the bundled day's 444 papers, inflected, joined ("hypergraph") and exact."""
    units = [
        u
        for phrase in ("graph neural networks", "LLM serving", "mixture of experts routing", "RAG", "quantization")
        for u in phrase_units(phrase)
    ]
    for stored in demo_papers:
        text = Text.of(f"{stored.title}\n{stored.abstract}")
        for unit in units:
            for exact in (False, True):
                assert unit.where(text, exact) == _every_token_where(unit, text, exact), (stored.id, unit.key)
