"""One-line interests that select (issue 23): an interest matched as a whole, an avoid that removes what it names."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from bot.models import Paper, Profile, Topic
from bot.ranking import expansion, interest_units, one_line, rank
from bot.ranking.contribution import paper_kinds
from bot.ranking.contribution_words import avoid_kinds
from bot.ranking.expansion import expansion_scores
from bot.ranking.interest_units import interest_query
from tests.test_rank import fake_embed, paper


def member(interests: list[str], avoid: list[str] = ()) -> Profile:
    """A profile as onboarding stores one: each interest its own topic, named by itself; the avoids once."""
    topics = tuple(Topic(name=text[:40], want=text) for text in interests)
    return Profile(name="member (personal)", topics=topics, avoid=tuple(avoid))


def ranked_ids(papers: list[Paper], profile: Profile, weights: rank.RankWeights = rank.DEFAULT_WEIGHTS) -> list[str]:
    model = rank.compile_profile(profile, fake_embed)
    vecs = fake_embed([p.text for p in papers])
    return [r.paper.id for r in rank.rank_for_profile(papers, vecs, model, len(papers), weights=weights)]


def test_an_interest_reads_as_a_head_and_its_details() -> None:
    query = interest_query("LLM reasoning (chain-of-thought, math)")
    assert [[u.key for u in a] for a in query.alternatives] == [["large language model", "reasoning"]]
    assert [u.key for u in query.details] == ["chain of thought", "math"]
    query = interest_query("deep RL algorithms: actor-critic, policy gradients")
    assert [[u.key for u in a] for a in query.alternatives] == [["deep", "reinforcement learning", "algorithm"]]
    assert [u.key for u in query.details] == ["actor", "critic", "policy", "gradient"]
    query = interest_query("activation steering / representation engineering")
    assert [[u.key for u in a] for a in query.alternatives] == [
        ["activation", "steering"],
        ["representation", "engineering"],
    ]


def test_a_coordinated_interest_reads_as_each_thing_it_names() -> None:
    def readings(text: str) -> list[list[str]]:
        return [[u.key for u in a] for a in interest_query(text).alternatives]

    # what a preposition attaches goes with every conjunct; a lone word shares its neighbour's head or modifier
    assert readings("jailbreak attacks and defenses for LLMs") == [
        ["jailbreak", "attack", "large language model"],
        ["jailbreak", "defens", "large language model"],
    ]
    assert readings("diffusion models for image and video generation") == [
        ["diffusion", "model", "image", "generation"],
        ["diffusion", "model", "video", "generation"],
    ]
    assert readings("LLM pruning / compression") == [
        ["large language model", "pruning"],
        ["large language model", "compression"],
    ]
    # a named term or a hyphenated compound is a whole conjunct: text-to-speech is not "text-to-speech conversion"
    assert readings("text-to-speech and voice conversion") == [["text to speech"], ["voice", "conversion"]]
    # ... and lends none of its pieces, nor does a conjunct typed as one word: misinformation is not "fact
    # misinformation", econometrics not "econometrics LLMs"
    assert readings("fact-checking and misinformation") == [["fact", "checking"], ["misinformation"]]
    assert readings("econometrics / LLMs") == [["econometric"], ["large language model"]]
    assert readings("speculative decoding and LLM serving") == [
        ["speculative decoding"],
        ["large language model", "serving"],
    ]
    # a coordinated interest is no single phrase: its conjuncts are matched, not all its words
    assert one_line.topic_phrase("jailbreak attacks and defenses for LLMs") is None
    assert one_line.topic_phrase("sparse mixture-of-experts") is not None


def test_the_shorthand_researchers_type_is_read_as_written_out() -> None:
    def read(text: str) -> tuple[list[list[str]], list[str]]:
        query = interest_query(text)
        return [[u.key for u in a] for a in query.alternatives], [u.key for u in query.details]

    # "w/" is "with", not a choice between "w" and what follows; "w/o ..." names what a paper need not hold
    assert read("time series forecasting w/ LLMs") == read("time series forecasting with LLMs")
    assert read("diffusion models w/guidance") == read("diffusion models with guidance")
    assert read("vision-language models w/o fine-tuning") == read("vision-language models")
    # a plain "without" is part of a topic's name, not shorthand to drop
    assert read("learning without labels")[0] == [["learning", "without", "label"]]
    assert read("segmentation without annotations")[0] != read("segmentation")[0]
    # "vs" and "+" coordinate as "and" does: a paper about either side is about the interest
    assert read("RLHF vs DPO")[0] == [
        ["reinforcement learning from human feedback"],
        ["direct preference optimization"],
    ]
    assert read("RL vs. supervised fine-tuning")[0] == [["reinforcement learning"], ["supervised fine tuning"]]
    assert read("quantization + pruning of LLMs") == read("quantization and pruning of LLMs")
    assert read("C++ code generation")[0] == [["code", "generation"]]  # a "+" inside a word is no conjunction
    # "&" between things is "and"; inside an abbreviation ("Q&A", "R&D") it is part of the name
    assert read("RL & planning") == read("RL and planning")
    assert read("Q&A systems")[0] == [["qa", "system"]]
    assert read("Q&A and summarization")[0] == [["qa"], ["summarization"]]
    # so is "/" between two letters ("A/B testing"); before, "A/B" named nothing and "testing" took the head
    # "experimentation" of the other alternative: "testing experimentation"
    assert read("A/B testing / adaptive experimentation")[0] == [["ab", "testing"], ["adaptive", "experimentation"]]
    # "esp.", "incl.", "e.g." introduce details, as brackets do
    assert read("LLM agents, esp. tool use") == ([["large language model", "agent"]], ["tool", "use"])
    assert read("speech recognition esp. low-resource") == ([["speech", "recognition"]], ["low", "resource"])
    assert read("graph neural networks incl. transformers") == read("graph neural networks (transformers)")
    assert read("federated learning, e.g., privacy") == read("federated learning (privacy)")
    assert read("LLM reasoning w/o RL, especially math") == ([["large language model", "reasoning"]], ["math"])


def test_nested_or_unclosed_brackets_a_dash_and_aka_mark_details() -> None:
    def read(text: str) -> tuple[list[list[str]], list[str]]:
        query = interest_query(text)
        return [[u.key for u in a] for a in query.alternatives], [u.key for u in query.details]

    # a bracket inside the brackets, or one never closed, still holds details, not a second thing wanted
    assert read("LLM reasoning (CoT (chain-of-thought), math)") == read("LLM reasoning (chain-of-thought, math)")
    assert read("LLM reasoning (chain-of-thought, math") == read("LLM reasoning (chain-of-thought, math)")
    # a dash between spaces is a colon; "aka" restates
    assert read("graph ML — GNNs, graph transformers") == read("graph ML: GNNs, graph transformers")
    assert read("robot learning - planning") == ([["robot", "learning"]], ["planning"])
    assert read("RAG aka retrieval-augmented generation") == ([["retrieval augmented generation"]], [])
    # an acronym coordinated with others is a whole thing, not a word borrowing its neighbour's
    assert read("NeRF/3DGS/SLAM")[0] == [["neural radiance field"], ["gaussian splatting"], ["slam"]]
    assert read("RL and IL for robots")[0] == [["reinforcement learning", "robot"], ["il", "robot"]]
    # a lone word borrows a modifier only from a conjunct that has one: before, "RL and planning" read
    # [RL] | [RL, planning], the second only narrowing the first, so a planning paper without RL held nothing
    assert read("RL and planning")[0] == [["reinforcement learning"], ["planning"]]
    assert read("LLMs, agents and planning")[0] == [["large language model"], ["agent"], ["planning"]]
    assert read("image and video generation")[0] == [["image", "generation"], ["video", "generation"]]


def test_a_shorthand_interest_is_no_single_phrase() -> None:
    assert one_line.topic_phrase("RLHF vs DPO") is None  # two things, each matched on its own
    assert one_line.topic_phrase("retrieval + generation") is None
    phrase = one_line.topic_phrase("diffusion models w/ guidance")
    assert phrase is not None and [u.key for u in phrase.units] == ["diffusion", "model", "guidance"]


def test_a_coordination_inside_a_name_is_that_name() -> None:
    # before: [vision, language model] | [language model], so every language-model paper held the interest whole
    (reading,) = interest_query("vision and language models").alternatives
    assert [u.key for u in reading] == ["vision language model"]


VISION_LANGUAGE = [paper(f"vl{i}", f"A vision-language model {i}", "It reads images and text.") for i in range(3)]
VISION_LANGUAGE += [
    paper("lm", "Language models that reason", "A language model for math."),
    paper("image", "Image generation with diffusion", "We generate images."),
    paper("video", "Video generation with diffusion", "We generate videos, unlike image and video editors."),
]
VISION_LANGUAGE += [paper(f"sl{i}", f"Speech-language models {i}", "They hear speech.") for i in range(3)]
VISION_LANGUAGE += [paper(str(i), f"Paper {i}", "Nothing related.") for i in range(6)]


def test_the_corpus_tells_one_concept_from_two_interests() -> None:
    features = rank.paper_features(VISION_LANGUAGE)
    # the papers write "vision-language": one concept, so a paper about language alone is not about it
    title, text = one_line.coverage(features, interest_query("vision and language"), 0.5)
    assert title[:3].tolist() == [1.0, 1.0, 1.0]
    assert text[3] == 0.0  # before: [vision] | [language], the language-model paper held the interest whole
    assert not one_line.written_as_compound(features, *interest_query("image and video generation").compounds[0])
    # they never write "image-video": image generation and video generation are two interests
    title, _ = one_line.coverage(features, interest_query("image and video generation"), 0.5)
    assert title[4] > 0.99 and title[5] > 0.99
    # a conjunct led by a named term: "speech and language models" are speech-language models where papers say so
    title, text = one_line.coverage(features, interest_query("speech and language models"), 0.5)
    assert (title[6:9] > 0.99).all()
    assert text[3] < 0.5  # before: [speech, language model] | [language model]


def test_a_paper_about_one_conjunct_is_about_the_interest() -> None:
    papers = [
        paper("defense", "Jailbreak defenses for LLMs", "A filter for LLMs stops jailbreak prompts."),
        paper("attack", "Adversarial attacks on vision models", "We attack image classifiers with defenses."),
    ]
    papers += [paper(str(i), f"Paper {i}", "Nothing related.") for i in range(8)]
    title, _ = one_line.coverage(
        rank.paper_features(papers), interest_query("jailbreak attacks and defenses for LLMs"), 0.5
    )
    assert title[0] == 1.0  # before, the defense paper lacked "attacks" and held a part of the interest
    assert title[1] < 0.5
    assert ranked_ids(papers, member(["jailbreak attacks and defenses for LLMs"]))[0] == "defense"


def test_the_words_typed_side_by_side_are_the_pairs_of_a_head() -> None:
    keys = lambda text: [(a.key, b.key) for a, b in interest_query(text).together]  # noqa: E731
    assert keys("domain adaptation / domain generalization (UDA, source-free)") == [
        ("domain", "adaptation"),
        ("domain", "generalization"),
    ]
    assert keys("reward models (incl. process reward models, verifiers)") == [("reward", "model")]
    assert keys("robot learning from demonstrations") == [("robot", "learning")]  # "from" stands between
    assert keys("learning-based control") == []  # a generic first word says little of what follows it
    assert keys("LLM reasoning") == []  # a named term is whole already


def test_a_compound_interest_held_only_apart_counts_less_than_said() -> None:
    papers = [
        paper("said", "Process reward models for math", "A reward model scores each step."),
        paper("apart", "Policy gradients with shaped rewards", "The reward is sparse, so a world model plans ahead."),
        paper("design", "Generative models for design", "A generative model for protein design."),
    ]
    papers += [paper(str(i), f"Paper {i}", "Nothing related.") for i in range(8)]
    features = rank.paper_features(papers)
    _, text = one_line.coverage(features, interest_query("reward models"), 0.5)
    assert text[0] == 1.0
    assert text[1] == pytest.approx(one_line.APART)  # before: 1.0, the words anywhere held the interest whole
    _, text = one_line.coverage(features, interest_query("reward models"), 0.5, apart=1.0)
    assert text[1] == 1.0
    # words between the two are no compound, as a name's words may be ("mixture of [low-rank] experts")
    gap = [paper("gap", "Sparse rewards for large models", "We study a reward for large models.")]
    _, text = one_line.coverage(rank.paper_features(gap + papers), interest_query("reward models"), 0.5)
    assert text[0] == pytest.approx(one_line.APART)
    # no paper writes "generative design": the pair tells nothing apart and the words count as before
    _, text = one_line.coverage(features, interest_query("generative design"), 0.5)
    assert text[2] == 1.0


def test_a_pair_the_member_joined_with_a_hyphen_held_apart_counts_less_on_any_day() -> None:
    # no paper of the day writes "memory-efficient": before, the pair counted as said and a paper holding "memory"
    # and "efficient" far apart (memory-augmented agents, data-efficient) held the interest whole
    papers = [
        paper("apart", "Memory-augmented agents for LLM training", "A data-efficient method."),
        paper("both", "Efficient memory for LLM training", "We cut the memory of training."),
    ]
    papers += [paper(str(i), f"Paper {i}", "Nothing related.") for i in range(8)]
    features = rank.paper_features(papers)
    query = interest_query("memory-efficient LLM training")
    assert [(a.key, b.key) for a, b in query.hyphenated] == [("memory", "efficient")]
    _, text = one_line.coverage(features, query, 0.5)
    assert text[0] == pytest.approx(one_line.APART) and text[1] == pytest.approx(one_line.APART)
    # typed as two words, a pair no paper of the day writes side by side still tells nothing apart
    _, text = one_line.coverage(features, interest_query("memory efficient LLM training"), 0.5)
    assert text[0] == 1.0
    assert interest_query("sim-to-real transfer").hyphenated == ()  # "real transfer" was not hyphenated


def test_a_pair_typed_apart_is_found_where_a_paper_writes_it_as_one_word() -> None:
    papers = [
        paper("joined", "Multitask learning at scale", "One network learns many tasks at once."),
        paper("apart", "Multi-agent path finding", "Each agent's task is learned."),
    ]
    papers += [paper(str(i), f"Paper {i}", "Nothing related.") for i in range(8)]
    features = rank.paper_features(papers)
    _, text = one_line.coverage(features, interest_query("multi task learning"), 0.5)
    assert text[0] == 1.0  # before: "multitask" held neither "multi" nor "task"
    assert text[1] < text[0]


def test_a_conjunct_half_the_day_holds_joins_the_others() -> None:
    papers = [paper(f"lm{i}", f"Language models that plan {i}", "A language model plans.") for i in range(5)]
    papers += [paper("both", "Negation in language models", "Do language models read linguistic negation?")]
    papers += [paper("ling", "A linguistic study of dialects", "We survey linguistic variation.")]
    papers += [paper(str(i), f"Paper {i}", "Nothing related.") for i in range(5)]
    features = rank.paper_features(papers)
    query = interest_query("LMs and linguistics: semantics, negation")
    assert [[u.key for u in r] for r in query.alternatives] == [["language model"], ["linguistic"]]
    _, text = one_line.coverage(features, query, 0.5)
    assert text[5] == 1.0
    assert text[0] < 0.5  # before: "LMs" alone, held by half the day, held the interest whole
    _, text = one_line.coverage(features, query, 0.5, broad=False)
    assert text[0] == 1.0


def test_only_a_typed_line_is_an_interest_a_described_topic_is_matched_by_meaning() -> None:
    assert one_line.is_one_line(Topic(name="KV cache compression", want="KV cache compression"))
    long = "KV cache compression and efficient attention kernels for inference"
    assert one_line.is_one_line(Topic(name=long[:40], want=long))
    assert not one_line.is_one_line(Topic(name="Model compression", want="sparsity, pruning, quantization, KV cache"))


QUANT = [
    # shares many words with the interest, but is about quantum learning, not quantization
    paper(
        "quantum",
        "Information-computation gaps in quantum learning",
        "Quantum learning of weights and activations of LLMs.",
    ),
    paper("rounding", "Adaptive rounding for quantized LLMs", "We quantize models after training."),
    paper("other", "Graph transformers", "Message passing."),
]


def test_quantization_is_not_quantum_and_a_compound_needs_its_parts() -> None:
    profile = member(["quantization of LLMs (weights and activations, low-bit)"])
    assert ranked_ids(QUANT, profile)[0] == "rounding"
    # by similarity alone (the bag-of-words embedding here) the quantum paper comes first: the test can fail
    flat = dataclasses.replace(rank.DEFAULT_WEIGHTS, interest_title=0.0, interest_text=0.0)
    assert ranked_ids(QUANT, profile, flat)[0] == "quantum"
    features = rank.paper_features(QUANT)
    title, text = one_line.coverage(features, interest_query("mixture-of-experts routing"), 0.5)
    assert title.max() == 0.0 and text.max() == 0.0
    routing = [paper("moe", "Routing in mixture-of-experts", "x"), paper("car", "Vehicle routing", "y")]
    routing += [paper(str(i), f"Paper {i}", "z") for i in range(8)]
    title, _ = one_line.coverage(rank.paper_features(routing), interest_query("mixture-of-experts routing"), 0.5)
    assert title[0] == 1.0 and title[1] < 0.5  # "routing" alone is a part, not the interest


def test_avoid_phrases_read_as_contribution_kinds_and_a_topic() -> None:
    assert avoid_kinds("benchmark, dataset or evaluation-only papers")[0] == {"benchmark", "dataset"}
    assert avoid_kinds("surveys and position papers")[0] == {"survey", "position"}
    assert avoid_kinds("medical imaging")[0] == frozenset()
    assert paper_kinds("GeoGramBench: geometric reasoning", "We study programs.") == {"benchmark"}
    assert paper_kinds("Agents for chemistry: a survey", "We review agents.") == {"survey"}
    assert paper_kinds("Position: adopt constraints", "We argue for constraints.") == {"position"}
    stated = "Reasoning is hard. We introduce MME-Reasoning, a comprehensive benchmark of logic puzzles."
    assert paper_kinds("MME-Reasoning", stated) == {"benchmark"}
    method = "We propose a new optimizer and evaluate it on three benchmarks and a dataset of images."
    assert paper_kinds("A faster optimizer", method) == frozenset()
    # benchmarks and data sets are read as questions read them: a kind noun modifying another noun is no contribution
    assert paper_kinds("Video Dataset Condensation with Progressive Refinement", "We condense videos.") == frozenset()
    assert paper_kinds("DataRater: Meta-Learned Dataset Curation", "We propose DataRater.") == frozenset()
    # only the main contribution makes a paper a benchmark or dataset paper to an avoid; an evaluation title part too
    router = "We propose a router that picks a mode per question. We also build a dataset of 5k labelled questions."
    assert paper_kinds("Self-routing reasoners", router) == frozenset()
    assert paper_kinds("Beyond chemistry QA: Evaluating LLM chemical reasoning", "We study LLMs.") == {"benchmark"}


def test_a_survey_of_counted_respondents_is_a_questionnaire_study_not_a_review() -> None:
    experts = "Our survey of 53 specialists ranks 105 research areas."
    assert paper_kinds("Expert Survey: AI security priorities", experts) == set()
    stated = "We conduct a survey with over 1,300 participants. Our survey revealed an ambiguous picture."
    assert paper_kinds("Labeling AI-generated images", stated) == set()
    # a review of a field names its topic; a systematic review counts its studies and stays a review
    assert paper_kinds("LLM agents: a survey", "This survey of LLM agents covers 120 papers.") == {"survey"}
    assert paper_kinds("Generative AI and creativity: a review", "A review of 120 studies.") == {"survey"}
    # a review counting the papers or years it covers is no questionnaire (it had lost its "survey")
    assert paper_kinds("Efficient LLM inference: a survey", "We present a survey of over 200 papers.") == {"survey"}
    assert paper_kinds("A survey of graph transformers", "This survey of 150 recent works sorts them.") == {"survey"}
    assert paper_kinds("Agents: a survey", "A survey of 30 years of research on agents.") == {"survey"}
    assert paper_kinds("RAG: a survey", "Our survey of 1,300 papers maps the field.") == {"survey"}
    assert paper_kinds("Expert Survey: RAG", "Our survey of 1,300 practitioners shows gaps.") == set()


SURVEYED = [
    paper("survey", "LLM reasoning: a survey", "In this survey we review LLM reasoning with chain of thought."),
    paper("method", "Better chains of thought", "We propose a method for LLM reasoning."),
    paper("other", "Graph transformers", "Message passing on graphs."),
]


def test_an_avoid_naming_a_kind_removes_the_papers_of_that_kind() -> None:
    profile = member(["LLM reasoning"], ["surveys and position papers"])
    assert ranked_ids(SURVEYED, profile)[-1] == "survey"
    assert ranked_ids(SURVEYED, member(["LLM reasoning"]))[0] == "survey"  # without the avoid it leads


IMAGES = [
    paper(
        "medical", "Diffusion models for medical image and video generation", "Diffusion models for image generation."
    ),
    paper("natural", "Faster sampling for image generation", "We sample diffusion models for images."),
    paper("other", "Graph transformers", "Message passing on graphs."),
]


def test_an_avoided_topic_removes_what_the_interests_do_not_share() -> None:
    interests = ["diffusion models for image and video generation"]
    model = rank.compile_profile(member(interests, ["medical imaging"]), fake_embed)
    (avoid,) = model.avoids
    assert [[u.key for u in a] for a in avoid.topic.alternatives] == [["medical"]]  # "imaging" is wanted
    features = rank.paper_features(IMAGES)
    terms = rank._terms(fake_embed([p.text for p in IMAGES]), features, [model], rank.DEFAULT_WEIGHTS)
    assert terms.avoided[0, 0] > 0.2 and terms.avoided[0, 1] == 0.0
    assert ranked_ids(IMAGES, member(interests, ["medical imaging"]))[0] == "natural"
    assert ranked_ids(IMAGES, member(interests))[0] == "medical"  # without the avoid it leads
    np.testing.assert_array_equal(terms.interest[0] > 0, [True, True, False])


GRAPHS = [
    paper("kept", "Graph neural networks under heterophily", "We study graph neural networks on heterophilic graphs."),
    paper("named", "Knowledge graph completion with graph neural networks", "Graph neural networks complete KGs."),
    *(paper(str(i), f"Paper {i}", "Something else entirely.") for i in range(6)),
]


def test_an_avoid_pushes_down_a_paper_holding_an_interest_whole_only_by_what_it_names() -> None:
    model = rank.compile_profile(member(["graph neural networks"], ["knowledge graphs"]), fake_embed)
    vecs = fake_embed([p.text for p in GRAPHS])
    vecs[:2] = fake_embed(["knowledge graphs"])  # both papers as near the avoid phrase in meaning as can be
    terms = rank._terms(vecs, rank.paper_features(GRAPHS), [model], rank.DEFAULT_WEIGHTS)
    assert terms.interest[0, 0] >= rank.DEFAULT_WEIGHTS.interest_text and terms.avoided[0, 0] == 0.0
    assert terms.avoid_excess[0, 0] == 0.0  # holds the interest whole, no word the avoid names: not by meaning
    assert terms.avoided[0, 1] > 0.0 and terms.avoid_excess[0, 1] > 0.0  # "knowledge" is named: the avoid holds
    kept = rank.named_interest_kept(terms.interest, terms.avoided, rank.DEFAULT_WEIGHTS)
    np.testing.assert_array_equal(kept[0], [True, False, *([False] * 6)])


THEORY = [
    paper("proofs", "A theory of in-context learning", "We prove bounds on in-context learning in transformers."),
    paper("tested", "A theory of in-context learning, tested", "We prove bounds; experiments on transformers agree."),
    paper("other", "Graph transformers", "Message passing on graphs."),
]


def test_a_w_o_clause_of_an_avoid_spares_the_papers_holding_it_instead_of_being_dropped() -> None:
    """Dropped as from an interest, "theory papers w/o experiments" would avoid every theory paper: the clause is a
    condition of what is avoided."""
    profile = member(["in-context learning in transformers"], ["theory papers w/o experiments"])
    model = rank.compile_profile(profile, fake_embed)
    (avoid,) = model.avoids
    assert [[u.key for u in a] for a in avoid.topic.alternatives] == [["theory"]]
    terms = rank._terms(
        fake_embed([p.text for p in THEORY]), rank.paper_features(THEORY), [model], rank.DEFAULT_WEIGHTS
    )
    assert terms.avoided[0, 0] > 0.2 and terms.avoided[0, 1] == 0.0 and terms.avoided[0, 2] == 0.0
    assert ranked_ids(THEORY, profile)[0] == "tested"
    # an interest still reads "w/o ..." as what a paper need not hold
    assert interest_query("theory papers w/o experiments") == interest_query("theory papers")


SALIENCY = [
    paper("saliency", "Saliency maps for vision transformers", "We explain vision transformers with saliency maps."),
    paper("circuits", "Circuits in vision transformers", "We interpret vision transformers by their circuits."),
    paper("other", "Graph transformers", "Message passing on graphs."),
]


def test_the_examples_an_avoid_lists_are_avoided_whole() -> None:
    interests = ["interpretability of vision transformers"]
    profile = member(interests, ["post-hoc explanations (SHAP, saliency maps)"])
    model = rank.compile_profile(profile, fake_embed)
    terms = rank._terms(
        fake_embed([p.text for p in SALIENCY]), rank.paper_features(SALIENCY), [model], rank.DEFAULT_WEIGHTS
    )
    # a paper about saliency maps is what the member avoids, not a quarter of it (the examples counted as details)
    assert terms.avoided[0, 0] >= rank.DEFAULT_WEIGHTS.avoid_title
    assert terms.avoided[0, 1] == 0.0
    assert ranked_ids(SALIENCY, profile)[0] == "circuits"


def test_question_words_are_no_part_of_an_interest() -> None:
    (reading,) = interest_query("probing what transformers represent internally").alternatives
    assert [u.key for u in reading] == ["probing", "transformer", "represent", "internally"]


EXPANDED = [
    paper("a", "Graph transformers", "Graph transformers pass messages between nodes with attention layers."),
    paper("b", "Scaling graph transformers", "Graph transformers pass messages between nodes with attention heads."),
    paper("e", "Deep graph transformers", "Graph transformers pass messages between many nodes with attention layers."),
    paper("c", "Message passing with attention", "Layers pass messages between nodes with attention layers."),
    paper("d", "Exam timetables", "A graph colouring algorithm for scheduling exams in universities."),
]
EXPANDED += [paper(str(i), f"Paper {i}", f"Unrelated words number {i} about cooking and travel.") for i in range(8)]


def test_the_best_papers_stand_in_for_a_one_line_interest() -> None:
    profile = member(["graph transformers"])
    weights = rank.DEFAULT_WEIGHTS
    # without the expansion the paper sharing the word "graph" comes before the one about the same thing in other words
    unexpanded = ranked_ids(EXPANDED, profile, dataclasses.replace(weights, expansion=0.0))
    assert unexpanded.index("d") < unexpanded.index("c")
    expanded = ranked_ids(EXPANDED, profile, weights)
    assert expanded.index("c") < expanded.index("d")
    # a described topic (a profile file's) is not expanded
    described = Profile(name="file", topics=(Topic(name="Graphs", want="graph transformers, message passing"),))
    model = rank.compile_profile(described, fake_embed)
    assert not model.reads_lines


def test_expansion_takes_only_papers_holding_a_whole_interest() -> None:
    scores = np.array([[0.9, 0.5, 0.4, 0.3, 0.1]], dtype=np.float32)
    vecs = np.eye(5, dtype=np.float32)
    held = np.array([[False, True, True, True, False]])
    direction = expansion_scores(scores, vecs, 10, held)[0]
    assert direction[0] < 0 < direction[1]  # the best-scored paper holds no whole interest: it is no evidence
    assert not expansion_scores(scores, vecs, 10, held & np.array([[False, True, True, False, False]])).any()


# papers holding the interest's words in a text about something else: the words name a wider field than the line
DRIFTING = EXPANDED + [
    paper(
        f"g{i}",
        f"Recipes {i}",
        f"Graph transformers appear once in this long text about cooking pasta, baking bread, travel, hotels and {i}.",
    )
    for i in range(4)
]


def test_expansion_takes_only_papers_found_both_by_words_and_by_meaning() -> None:
    # before, the recipes holding "graph transformers" were feedback too, and pulled the interest toward cooking:
    # the timetable paper sharing the word "graph" came before the one about the same thing in other words
    ranked = ranked_ids(DRIFTING, member(["graph transformers"]))
    assert ranked.index("c") < ranked.index("d")
    scores = np.array([[0.9, 0.5, 0.4, 0.3, 0.1]], dtype=np.float32)
    held = np.array([[False, True, True, True, False]])
    near = expansion.nearest_share(np.array([[0.9, 0.8, 0.7, 0.1, 0.0]]), 0.6)
    assert near.tolist() == [[True, True, True, False, False]]
    assert not expansion.expansion_scores(scores, np.eye(5, dtype=np.float32), 10, held, near).any()


def test_the_rare_part_of_a_compound_alone_is_not_most_of_the_interest() -> None:
    papers = [
        paper("whole", "Dataset distillation by trajectory matching", "We distill a dataset into a few images."),
        paper("teacher", "Knowledge distillation for small students", "A teacher guides a student."),
        paper("data", "A dataset of street scenes", "We release a dataset."),
    ]
    papers += [paper(str(i), f"A dataset of kind {i}", "We collect a new dataset.") for i in range(8)]
    features = rank.paper_features(papers)
    query = interest_query("dataset distillation")
    # counted by rarity alone, "distillation" is most of the interest ("dataset" is in nearly every paper)
    title, _ = one_line.coverage(features, query, 0.5, parts=0.0)
    assert title[1] > 0.6
    title, text = one_line.coverage(features, query, 0.5, parts=rank.DEFAULT_WEIGHTS.compound_parts)
    assert title[0] > 0.999 and text[0] > 0.999  # the whole compound is full evidence
    assert title[1] <= 0.5 and text[1] <= 0.5  # a part is less than half of it
    assert title[2] < title[1]  # and the common part less still
    ranked = ranked_ids(papers, member(["dataset distillation"]))
    assert ranked[0] == "whole"


def test_a_part_of_a_compound_counts_whole_in_papers_close_in_meaning() -> None:
    papers = [
        paper("whole", "Dataset distillation by trajectory matching", "We distill a dataset into a few images."),
        paper("teacher", "Knowledge distillation for small students", "A teacher guides a student."),
    ]
    papers += [paper(str(i), f"A dataset of kind {i}", "We collect a new dataset.") for i in range(8)]
    features = rank.paper_features(papers)
    query = interest_query("dataset distillation")
    near = np.zeros(len(papers), dtype=bool)
    near[1] = True  # the embedding puts the teacher paper near the interest: its one word is the interest
    _, apart = one_line.coverage(features, query, 0.5, parts=1.0)
    _, meant = one_line.coverage(features, query, 0.5, parts=1.0, meant=near)
    _, rare = one_line.coverage(features, query, 0.5, parts=0.0)
    assert apart[1] < meant[1] == rare[1]
    assert meant[2] == apart[2] < rare[2]  # a paper far in meaning still needs the parts
    profile = rank.compile_profile(member(["dataset distillation"]), fake_embed)
    (cover,) = one_line.interest_coverage(features, [profile], rank.DEFAULT_WEIGHTS, near[None, :])
    assert cover[0][1][1] == meant[1]


def sentence_matrices(papers: list[Paper]) -> list[np.ndarray]:
    from bot.ingest.vectors import paper_sentences

    return [fake_embed(paper_sentences(p)) for p in papers]


STATED = [  # "a" says the interest in one sentence among others; "b" has its words spread over every sentence
    paper(
        "a",
        "Notes on laboratory practice",
        "Sample storage matters in every laboratory. We review freezer logistics and labelling. "
        "Protein folding dynamics are simulated with coarse models. Staff training closes the review.",
    ),
    paper(
        "b",
        "Protein studies across laboratory practice",
        "Protein samples need storage in every laboratory freezer. Folding tables hold the labelling kits. "
        "Dynamics of staff training are reviewed. Models of logistics close the review.",
    ),
]


def test_the_sentence_that_states_an_interest_lifts_its_paper_and_only_for_one_line_interests() -> None:
    papers = STATED
    vecs = fake_embed([p.text for p in papers])
    model = rank.compile_profile(member(["protein folding dynamics"]), fake_embed)
    sentences = sentence_matrices(papers)
    plain = {r.paper.id: r.score for r in rank.rank_for_profile(papers, vecs, model, 2)}
    lifted = {r.paper.id: r.score for r in rank.rank_for_profile(papers, vecs, model, 2, sentence_vecs=sentences)}
    assert lifted["a"] - plain["a"] > lifted["b"] - plain["b"] + 0.1
    term = rank.sentence_term(vecs, sentences, model)[0]
    assert term[0] > term[1] + 0.2  # "a" holds a sentence of the interest's words
    # a described topic (a channel's profile) is scored exactly as without sentences
    described = rank.compile_profile(
        Profile(name="file", topics=(Topic(name="Proteins", want="protein folding, molecular dynamics"),)), fake_embed
    )
    assert not described.reads_lines
    without = [r.score for r in rank.rank_for_profile(papers, vecs, described, 2)]
    assert [r.score for r in rank.rank_for_profile(papers, vecs, described, 2, sentence_vecs=sentences)] == without


def test_a_paper_without_sentence_vectors_is_read_as_one_sentence_its_whole_vector() -> None:
    vecs = fake_embed([p.text for p in STATED])
    model = rank.compile_profile(member(["protein folding dynamics", "freezer logistics"]), fake_embed)
    sentences = sentence_matrices(STATED)
    term = rank.sentence_term(vecs, [None, sentences[1]], model)[0]
    stand_in = rank.sentence_term(vecs, [vecs[0][None, :], sentences[1]], model)[0]
    assert np.isfinite(term).all()
    assert np.array_equal(term, stand_in)  # the same sentences, the same centre


def test_a_sentence_sharing_only_what_every_sentence_of_the_day_says_does_not_make_a_paper_close(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # every paper of the day speaks of language models; "generic" says nothing else the interest names, "specific"
    # says quantization in a sentence of its own. Raw cosines put "generic" first (two of the interest's words);
    # once what all sentences share is taken out, the sentence about quantization is the close one.
    papers = [
        paper("generic", "Language models at scale", "Language models are evaluated on tasks. Results are reported."),
        paper("specific", "Compact weights", "Quantization compresses weights. Accuracy is kept on tasks."),
    ]
    papers += [
        paper(f"filler{i}", f"Language models study {i}", f"Language models answer questions of kind {i}.")
        for i in range(8)
    ]
    vecs = fake_embed([p.text for p in papers])
    monkeypatch.setattr(rank, "SETTING_MEANING", 0.0)  # the line's vector as typed, its setting included
    model = rank.compile_profile(member(["quantization of language models"]), fake_embed)
    raw = rank.best_sentence_similarity_of(model.want_vecs, sentence_matrices(papers))[:2, 0]
    assert raw[0] > raw[1]
    term = rank.sentence_term(vecs, sentence_matrices(papers), model)[0]
    assert term[1] > term[0]


def test_one_sentence_stating_what_the_member_avoids_puts_a_paper_further_below_its_twin() -> None:
    # twins but for one sentence, which in "avoided" says just what the profile avoids, closer to it than any of the
    # paper's sentences is to the interest; in "plain" it says nothing of the kind. "middle" says less of the interest:
    # the whole-paper avoid term leaves "avoided" above it, the avoided sentence puts it below (and says so)
    body = "Protein folding is measured in cells. Samples are kept cold."
    papers = [
        paper("avoided", "Cell measurements", f"{body} We also cover freezer logistics."),
        paper("plain", "Cell measurements", f"{body} We also cover staff meetings."),
        paper("middle", "Cell measurements", "Protein samples are kept cold. We also cover staff meetings."),
    ]
    papers += [paper(f"other{i}", f"Unrelated study {i}", f"Weather of region {i} is forecast.") for i in range(6)]
    vecs = fake_embed([p.text for p in papers])
    model = rank.compile_profile(member(["protein folding dynamics"], ["freezer logistics"]), fake_embed)
    sentences = sentence_matrices(papers)
    term = rank.sentence_avoid_term(vecs, sentences, model)[0]
    assert term[0] > 0.05 and term[1] == 0.0
    without = dataclasses.replace(rank.DEFAULT_WEIGHTS, sentence_avoid=0.0)
    before = {
        r.paper.id: r.score
        for r in rank.rank_for_profile(papers, vecs, model, 3, weights=without, sentence_vecs=sentences)
    }
    after = rank.rank_for_profile(papers, vecs, model, 3, sentence_vecs=sentences)
    scores = {r.paper.id: r.score for r in after}
    assert scores["plain"] == pytest.approx(before["plain"])
    assert scores["avoided"] == pytest.approx(before["avoided"] - float(term[0]))
    assert sorted(before, key=before.__getitem__, reverse=True) == ["plain", "avoided", "middle"]
    assert [r.paper.id for r in after] == ["plain", "middle", "avoided"]
    assert any(reason.startswith("near avoided 'freezer logistics'") for reason in after[2].reasons)


def test_a_pair_typed_apart_is_found_written_as_one_word_after_plural_folding() -> None:
    papers = [paper("joined", "Timeseries forecasting with foundation models", "We forecast timeseries.")]
    papers += [paper("apart", "A series of forecasting methods over time", "Time and a series.")]
    papers += [paper(str(i), f"Paper {i}", "Nothing related.") for i in range(8)]
    features = rank.paper_features(papers)
    _, text = one_line.coverage(features, interest_query("time series forecasting"), 0.5)
    assert text[0] == 1.0  # "timeseries" folds to "timesery", the pair's keys joined ("time" + "sery")
    assert text[1] < text[0]


def test_the_setting_a_preposition_gives_an_interest_is_no_topic_of_its_own() -> None:
    assert [u.key for u in interest_query("quantization of LLMs (low-bit)").scope] == ["large language model"]
    assert [u.key for u in interest_query("bias in LLM-based systems").scope] == ["large language model"]
    assert not interest_query("memory for LLM agents").scope  # LLM agents are the thing, not a setting
    assert not interest_query("security of LLM agents").scope
    assert interest_units.without_setting("memory for LLM agents") == "memory for LLM agents"
    assert [u.key for u in interest_query("self-correction / self-reflection in LLMs / VLMs").scope] == [
        "large language model",
        "vision language model",
    ]
    assert not interest_query("LLM reasoning").scope  # the topic itself
    assert not interest_query("safety benchmarks for LLMs and multimodal models").scope  # not every conjunct broad
    assert not interest_query("deep learning for weather forecasting").scope
    papers = [paper("both", "Low-bit quantization of large language models", "We quantize LLM weights.")]
    papers += [paper("other", "Quantization of vision transformers", "We quantize ViT weights to 4 bits.")]
    papers += [paper("llm", "Reasoning in large language models", "LLMs reason step by step.")]
    papers += [paper(str(i), f"Paper {i}", "Nothing related.") for i in range(8)]
    features = rank.paper_features(papers)
    query = interest_query("quantization of LLMs")
    _, text = one_line.coverage(features, query, 0.5)
    _, as_typed = one_line.coverage(features, query, 0.5, setting=False)  # as an avoid phrase reads it
    assert text[0] == as_typed[0] == 1.0
    assert text[1] == pytest.approx(as_typed[1])  # the setting's rarity left the topic this share
    assert 0.0 < text[1] < 1.0
    assert text[2] == 0.0 < as_typed[2]  # before: an LLM paper on anything held the setting's share


def test_an_interest_is_embedded_leaning_on_what_it_is_about_not_on_its_setting() -> None:
    assert interest_units.without_setting("quantization of LLMs (low-bit)") == "quantization (low-bit)"
    assert interest_units.without_setting("RL fine-tuning of LLMs for reasoning") == "RL fine-tuning for reasoning"
    assert interest_units.without_setting("self-correction / self-reflection in LLMs / VLMs") == (
        "self-correction / self-reflection"
    )
    assert interest_units.without_setting("LLM reasoning") == "LLM reasoning"  # the LLM is the topic
    papers = [
        paper("generic", "Language models at scale", "Large language models answer questions."),
        paper("specific", "Compact weights", "Quantization compresses weights to four bits."),
    ]
    line = rank.compile_profile(member(["quantization"]), fake_embed).want_vecs[0]
    typed = rank.compile_profile(member(["quantization of LLMs"]), fake_embed).want_vecs[0]
    vecs = fake_embed([p.text for p in papers])
    cos = vecs @ typed
    assert cos[1] > cos[0]  # before: the line's vector leaned on "LLMs", the generic paper as close as the specific
    assert float(typed @ line) > 0.5


def test_a_described_topic_is_embedded_as_written() -> None:
    topic = Topic(name="Model compression", want="sparsity, pruning, quantization, KV cache")
    assert not one_line.is_one_line(topic)

    def embed(texts: list[str]) -> np.ndarray:  # an empty text has a direction too, as with a real model
        return np.asarray(fake_embed(texts)) + np.float32(0.1)

    vec = rank.compile_profile(Profile(name="m", topics=(topic,)), embed).want_vecs[0]
    written = embed([topic.want])[0]
    assert np.allclose(vec, written / np.linalg.norm(written), atol=1e-6)  # not mixed with an empty text's vector


def test_the_two_preposition_splits_are_built_from_one_list_and_agree():
    """A head split at its prepositions (`_read`) and split for its setting (`setting_units`) is split at the same
    words: both patterns are built from `PREPOSITIONS`, and only the scope ones are captured."""
    assert set(interest_units.SCOPE_PREPOSITIONS) <= set(interest_units.PREPOSITIONS)
    others = ("at", "by", "from", "and", "into", "onto", "inform")
    for word in (*interest_units.PREPOSITIONS, *others):
        for typed in (word, word.upper()):
            head = f"attacks {typed} LLM agents"
            plain = interest_units._PREPOSITION.split(head)
            scoped = interest_units._SCOPE_PREPOSITION.split(head)
            if word in interest_units.PREPOSITIONS:
                assert plain == ["attacks", "LLM agents"]
                captured = typed if word in interest_units.SCOPE_PREPOSITIONS else None
                assert scoped == ["attacks", captured, "LLM agents"]
            else:
                assert plain == scoped == [head]
