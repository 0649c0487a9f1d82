"""One standing per paper per day (issue 23): the digest, /why and the site give the same '#n of N' for a paper, for a
channel (its categories, papers it already sent) and for a member (their feedback, papers they rated)."""

from __future__ import annotations

import re
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from bot.chat.messages import Place
from bot.chat.setup import SetupDraft, channel_profile
from bot.core import Core
from bot.digests.build import build_digest
from bot.members.onboarding import Draft, build_profile
from bot.members.personal import personal_digest
from bot.models import Paper
from bot.ranking import learn, rank
from bot.ranking.rank import paper_features
from bot.store.profile_format import profile_from_mapping
from bot.text.safetext import fit_items
from bot.views.cards import explain_paper
from bot.views.model import digest_view
from tests.conftest import StoreDay
from tests.test_users import DAY, KEY, make_user


def _standing(text: str) -> str:
    found = re.search(r"#\d+ of \d+ papers", text)
    assert found, text
    return found.group(0)


async def test_a_channel_digest_and_why_give_one_standing(core: Core, store_day: StoreDay) -> None:
    papers = await store_day(core)
    profile = replace(await make_user(core), categories=("cs.LG",))
    in_categories = [p for p in papers if "cs.LG" in p.categories]
    assert 0 < len(in_categories) < len(papers)  # the profile's categories leave some of the day out
    first = await build_digest(core, profile, DAY, size=3, use_llm=False)
    # papers already sent are left out of the next digest; the standing of the rest does not move up
    later = await build_digest(core, profile, DAY, size=3, exclude={i.paper.id for i in first.items}, use_llm=False)
    for digest in (first, later):
        for item in digest_view(digest).items:
            why = await explain_paper(core, item.id, profile)
            assert _standing(why) == _standing(item.standing) and f"of {len(in_categories)} papers" in item.standing
    assert _standing(digest_view(later).items[0].standing) == f"#4 of {len(in_categories)} papers"


async def test_a_members_digest_and_why_give_one_standing_with_feedback(core: Core, store_day: StoreDay) -> None:
    await store_day(core)
    profile = await make_user(core)
    before = await personal_digest(core, KEY, DAY, channel_targets=[], size=6)
    await learn.record_reactions(core, KEY, {before.items[0].paper.id: 1, before.items[-1].paper.id: -1})
    digest = await personal_digest(core, KEY, DAY, channel_targets=[], size=6)
    for item in digest_view(digest).items:
        why = await explain_paper(core, item.id, profile, user_key=KEY)
        assert _standing(why) == _standing(item.standing)


def test_like_papers_you_upvoted_names_only_a_really_close_other_paper() -> None:
    rng = np.random.default_rng(0)
    day = rng.normal(size=(200, 32)).astype(np.float32)
    day /= np.linalg.norm(day, axis=1, keepdims=True)
    close = learn.close_similarity(day)
    assert 0.0 < close < 1.0
    near = day[0] + 0.2 * day[1]
    near /= np.linalg.norm(near)
    entry = SimpleNamespace(
        reactions=(learn.Reaction("self", 1), learn.Reaction("near", 1), learn.Reaction("far", 1)),
        vectors={"self": day[0], "near": near, "far": day[2]},
    )
    titles = {"self": "KVzip", "near": "A close paper", "far": "Semi-Clairvoyant Scheduling"}
    reason = learn._feedback_reason(entry, titles, day[0], up=True, paper_id="self", close=close)
    assert reason == "like papers you upvoted: A close paper"  # never the paper itself
    # only loosely similar reactions: no paper is named
    far_only = SimpleNamespace(reactions=(learn.Reaction("far", 1),), vectors={"far": day[2]})
    assert learn._feedback_reason(far_only, titles, day[0], up=True, paper_id="x", close=close) == (
        "ranked higher by your feedback"
    )


def test_a_long_title_named_as_a_reason_is_shortened_at_a_word() -> None:
    rng = np.random.default_rng(1)
    day = rng.normal(size=(50, 16)).astype(np.float32)
    day /= np.linalg.norm(day, axis=1, keepdims=True)
    title = "Zero-to-Hero: Zero-Shot Initialization Empowering Reference-Based Video Appearance Editing"
    entry = SimpleNamespace(reactions=(learn.Reaction("near", 1),), vectors={"near": day[0]})
    reason = learn._feedback_reason(entry, {"near": title}, day[0], up=True, paper_id="x", close=0.5)
    named = reason.removeprefix("like papers you upvoted: ")
    # was "... Video Appea..." (cut inside a word)
    assert named == "Zero-to-Hero: Zero-Shot Initialization Empowering Reference-Based Video…"
    assert len(named) <= 80


def test_a_cue_is_a_reason_only_when_it_holds() -> None:
    kernel = Paper(
        id="2505.22758",
        title="FlashFormer: Whole-Model Kernels for Efficient Low-Batch Inference",
        authors=("A. Author",),
        abstract="This paper describes FlashFormer, a proof-of-concept kernel for accelerating inference on GPUs.",
        categories=("cs.LG",),
        announced=DAY,
    )
    theory = replace(kernel, id="2505.22759", abstract="We give a proof of convergence for the kernel.")
    features = paper_features([kernel, theory])
    proof = rank._CUES.index("proof")
    assert list(features.cue_hits[proof]) == [False, True]


def test_proves_effective_is_no_theory_cue() -> None:
    """ "theory cues: prove" on a paper whose method "proves effective": a verb of outcome, not a proof."""
    outcome = Paper(
        id="2505.22760",
        title="Curriculum Distillation for Small Language Models",
        authors=("A. Author",),
        abstract="The curriculum proves effective on three benchmarks. Mixing real data proved crucial. We release it.",
        categories=("cs.LG",),
        announced=DAY,
    )
    proof = replace(outcome, id="2505.22761", abstract="We prove that the curriculum converges and proved a bound.")
    features = paper_features([outcome, proof])
    for cue in ("prove", "proved"):
        assert list(features.cue_hits[rank._CUES.index(cue)]) == [False, True], cue


def test_topic_names_and_reasons_are_never_cut_mid_word() -> None:
    interest = "quantization of LLMs (weights and activations, low-bit)"
    assert build_profile(Draft(interests=[interest]), "x").topics[0].name == "quantization of LLMs…"
    loaded = profile_from_mapping({"name": "p", "topics": [{"want": "speculative decoding for large language models"}]})
    assert loaded.topics[0].name == "speculative decoding for large language…"
    # a channel's one-line interests given to /setup are named so too (was "quantization of LLMs (weights and activa")
    draft = SetupDraft(categories=["cs.LG"], interests=[interest])
    assert channel_profile(draft, Place("discord", "1", is_dm=False)).topics[0].name == "quantization of LLMs…"
    reasons = ["closest to topic 'speculative decoding' (similarity 0.61)", "phrase 'speculative decoding' in title"]
    assert fit_items(reasons, 80) == "closest to topic 'speculative decoding' (similarity 0.61); …"
    assert fit_items(reasons, 200) == "; ".join(reasons)


async def test_why_ranks_a_day_once_for_a_profile_and_again_when_the_members_reactions_change(
    core: Core, store_day: StoreDay, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/why on a Monday paper ranked its whole day on every call (2-5 s at load); the day's ranking is kept for what
    it depends on (the profile, the stored papers, the member's reactions)."""
    from bot.digests import standing

    papers = await store_day(core)
    profile = await make_user(core)
    rankings: list[int] = []
    ranked_candidates = standing.ranked_candidates

    async def counted(*args: object, **kwargs: object) -> list[object]:
        rankings.append(1)
        return await ranked_candidates(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(standing, "ranked_candidates", counted)
    first = await explain_paper(core, papers[0].id, profile, user_key=KEY)
    assert await explain_paper(core, papers[0].id, profile, user_key=KEY) == first
    await explain_paper(core, papers[1].id, profile, user_key=KEY)
    assert len(rankings) == 1
    await learn.record_reactions(core, KEY, {papers[2].id: 1, papers[3].id: 1, papers[4].id: -1})
    await explain_paper(core, papers[0].id, profile, user_key=KEY)
    assert len(rankings) == 2
    other = replace(profile, name="Other")
    await explain_paper(core, papers[0].id, other, user_key=KEY)
    assert len(rankings) == 3


async def test_forget_drops_the_days_rankings_kept_for_the_member(core: Core, store_day: StoreDay) -> None:
    """/forget deleted a member's rows but `/why`'s kept rankings (their profile and reactions) stayed in memory for
    up to ten minutes; they go with the rest, and another member's stay."""
    from bot.members.privacy import forget_user

    papers = await store_day(core)
    profile = await make_user(core)
    await explain_paper(core, papers[0].id, profile, user_key=KEY)
    other = replace(profile, name="Other")
    await explain_paper(core, papers[0].id, other, user_key="other:1")
    assert len(core.day_standings) == 2
    await forget_user(core, KEY)
    assert [key[1] for key in core.day_standings] == ["other:1"]
