"""Typos in one-line interests corrected against the store's words (issue 23), as a question's are."""

from __future__ import annotations

import pytest

from bot.core import Core
from bot.members import onboarding
from bot.ranking.interest_spelling import Correction, corrected_interest, corrected_items, corrections, read_as
from tests.test_interests import member, ranked_ids
from tests.test_rank import paper

KEY = "console:ada"

PAPERS = [
    paper("gnn", "Graph neural networks for molecules", "Message passing predicts molecule properties."),
    paper("spec", "Speculative decoding with draft models", "Speculative decoding speeds up inference of models."),
    paper("prot", "Protein folding with diffusion", "A diffusion model folds proteins from sequence."),
    paper("ssm", "SSMs for long sequences", "State space models (SSMs) read long sequences in linear time."),
    paper("kv", "KV cache eviction for long contexts", "Evicting cache entries keeps long-context inference cheap."),
    paper("cv", "Learning to segment images", "A segmentation network for street images."),
    paper("rl", "Reinforcement learning for robot navigation", "A reinforcement learning policy steers mobile robots."),
    paper("imp", "Imputation of missing values in sensor records", "We study imputation when readings are missing."),
]


@pytest.fixture
async def store(core: Core) -> Core:
    """A small store: the corrector reads its titles and word counts, no vectors."""
    await core.repo.upsert_papers(PAPERS)
    return core


async def test_a_misspelt_interest_reads_as_the_words_the_papers_use(store: Core) -> None:
    assert await corrected_interest(store, "reinforcment learnig") == "reinforcement learning"
    assert await corrected_interest(store, "imputaton of missing values") == "imputation of missing values"
    assert await corrected_interest(store, "graph nueral networks") == "graph neural networks"


async def test_a_correction_keeps_the_typed_plural(store: Core) -> None:
    """An interest typed "graph neural netwroks" was stored as "graph neural network": the corrector compared
    plural-folded words; a question's corrector compares them as written."""
    assert await corrected_interest(store, "graph neural netwroks") == "graph neural networks"
    assert await corrected_interest(store, "speculative decoding with draft modles") == (
        "speculative decoding with draft models"
    )


async def test_a_corrected_interest_ranks_the_papers_its_right_spelling_ranks(store: Core) -> None:
    for typed, right in [("reinforcment learnig", "reinforcement learning"), ("imputaton", "imputation")]:
        read = await corrected_interest(store, typed)
        assert ranked_ids(PAPERS, member([read])) == ranked_ids(PAPERS, member([right]))
    assert ranked_ids(PAPERS, member(["imputaton"]))[0] != "imp"  # as typed, the word matches nothing


async def test_known_words_named_terms_and_shorthand_stay_as_typed(store: Core) -> None:
    for text in [
        "speculative decoding",  # the archive's own words
        "ssms vs transformers",  # a named term's spelling, and shorthand
        "kv cache eviction w/ long contexts, esp. agents",
        "robot navigation incl. drones",
        "protein folding",
    ]:
        assert await corrected_interest(store, text) == text


def test_corrections_are_told_word_for_word() -> None:
    made = corrections("reinforcment learnig for robots", "reinforcement learning for robots")
    assert made == [Correction("reinforcment learnig", "reinforcement learning")]
    assert corrections("graph learning", "graph learning") == []
    assert read_as(made) == (
        "I read 'reinforcment learnig' as 'reinforcement learning' "
        '(the words the stored papers use; put a word in "quotes" to keep it as typed).'
    )
    assert read_as([]) == ""


async def test_a_run_together_interest_is_read_as_the_papers_write_it(store: Core) -> None:
    await store.repo.upsert_papers(
        [
            paper("ts1", "Time series forecasting with transformers", "We forecast time series."),
            paper("ts2", "Irregular time series imputation", "Sensors give irregular time series."),
        ]
    )
    read = await corrected_interest(store, "timeseries forecasting")
    assert read == "time series forecasting"
    assert corrections("timeseries forecasting", read) == [Correction("timeseries", "time series")]


async def test_items_are_corrected_and_repeats_a_correction_makes_dropped(store: Core) -> None:
    items, made = await corrected_items(store, ["imputaton", "imputation", "graph nueral networks"])
    assert items == ["imputation", "graph neural networks"]
    assert made == [Correction("imputaton", "imputation"), Correction("nueral", "neural")]


async def test_onboarding_stores_the_corrected_interest_and_says_how_it_read_it(store: Core) -> None:
    reply = await onboarding.start(store, KEY, "Ada")
    assert reply.step == "interests"
    reply = await onboarding.handle(store, KEY, "reinforcment learnig for robots\nspeculative decoding")
    assert reply.step == "avoid"
    assert "I read 'reinforcment learnig' as 'reinforcement learning'" in reply.text
    state = await onboarding.load(store, KEY)
    assert state is not None and state.draft.interests == ["reinforcement learning for robots", "speculative decoding"]
    reply = await onboarding.handle(store, KEY, "protien folding")
    assert "I read 'protien' as 'protein'" in reply.text
    state = await onboarding.load(store, KEY)
    assert state is not None and state.draft.avoid == ["protein folding"]


async def test_an_interest_typed_right_is_told_nothing(store: Core) -> None:
    await onboarding.start(store, KEY, "Ada")
    reply = await onboarding.handle(store, KEY, "graph neural networks")
    assert reply.step == "avoid" and "I read" not in reply.text


async def test_a_method_name_the_store_does_not_know_yet_is_kept_as_typed(store: Core) -> None:
    """A word written as a name is written (a capital inside it, or a digit: "RetNet", "GPTQ", "Phi3") is a method
    or model the archive may not hold yet, not a typo: it is never replaced by a near title word."""
    await store.repo.upsert_papers(
        [
            paper("reg", "Regret bounds for online learning", "We bound the regret of online learners."),
            paper("gpt", "Probing GPT models", "We probe GPT language models."),
            paper("phi", "Phir: a sampler", "Phir samples graphs."),
        ]
    )
    for text in ["RetNet", "GPTQ quantization", "Phi3 small models"]:
        assert await corrected_interest(store, text) == text
    assert await corrected_interest(store, "regert bounds") == "regret bounds"  # a typo of a plain word still is


async def test_a_word_in_quotes_is_kept_as_typed_so_a_correction_can_be_undone(store: Core) -> None:
    # sent again through /edit, an interest is corrected again: quotes are how a member keeps a word the store lacks
    assert await corrected_interest(store, "imputaton methods") == "imputation methods"
    for text in ['"imputaton" methods', "“imputaton” methods", "'imputaton' methods", 'graph "nueral" networks']:
        assert await corrected_interest(store, text) == text
    assert await corrected_interest(store, 'imputaton of "nueral" data') == 'imputation of "nueral" data'
    assert await corrected_interest(store, "Bayes' imputaton for robots' data") == "Bayes' imputation for robots' data"
    await onboarding.start(store, KEY, "Ada")
    reply = await onboarding.handle(store, KEY, '"imputaton" methods')
    assert reply.step == "avoid" and "I read" not in reply.text
    state = await onboarding.load(store, KEY)
    assert state is not None and state.draft.interests == ['"imputaton" methods']


async def test_a_channels_setup_corrects_its_interests_as_onboarding_does_and_says_so(store: Core) -> None:
    """The same corrector and the same sentence for a channel's interests, given at once or step by step."""
    from bot.chat import ChatController, Incoming
    from tests.test_chat import ADMIN, CHANNEL, only_text

    ctl = ChatController(store)
    line = "/setup categories=cs.LG time=08:00 tz=UTC size=5 profile=reinforcment learnig for robots; protein folding"
    reply = only_text(await ctl.handle(Incoming(ADMIN, CHANNEL, text=line))).text
    assert "All set!" in reply and "I read 'reinforcment learnig' as 'reinforcement learning'" in reply
    found = await store.repo.target_at(CHANNEL.platform, CHANNEL.chat_id)
    assert found is not None
    assert [t.want for t in found[1].topics] == ["reinforcement learning for robots", "protein folding"]

    await ctl.handle(Incoming(ADMIN, CHANNEL, text="/setup"))
    for answer in ("cs.CL", "daily", "09:00", "UTC"):
        await ctl.handle(Incoming(ADMIN, CHANNEL, text=answer, reply_to="900"))
    said = only_text(await ctl.handle(Incoming(ADMIN, CHANNEL, text="imputaton of missing values", reply_to="9")))
    assert "I read 'imputaton' as 'imputation'" in said.text and "papers per digest" in said.text
    await ctl.handle(Incoming(ADMIN, CHANNEL, text="10", reply_to="901"))
    found = await store.repo.target_at(CHANNEL.platform, CHANNEL.chat_id)
    assert found is not None and [t.want for t in found[1].topics] == ["imputation of missing values"]
