"""The onboarding state machine: every step, bad input at every step, commands, resuming, editing one field."""

from __future__ import annotations

import numpy as np
import pytest

from bot.config import Settings
from bot.core import Core, open_core
from bot.embeddings.embedder import LocalEmbedder
from bot.ingest.taxonomy import UnknownCategory, check_category, validate_category
from bot.members import onboarding
from bot.members.onboarding import OnboardingState, Reply, handle, papers_to_rate, pick_diverse
from bot.members.settings import SettingError, parse_post_time, parse_timezone, parse_weekday, profile_owner
from bot.models import Paper, Profile, Topic
from bot.questions.authors import AuthorIndex, same_person, split_names
from bot.store.profile_format import profile_to_mapping
from tests.conftest import StoreDay

KEY = "console:ada"

# One answer per step that moves the conversation on, in order.
GOOD = {
    "interests": "graph neural networks\ntheory of deep learning optimisation",
    "avoid": "medical imaging; federated learning",
    "authors": "Judea Pearl; J. Han",
    "categories": "cs.lg, stat.ml",
    "rate": "up",
    "digest": "weekly",
    "weekday": "fri",
    "time": "7:30pm",
    "timezone": "europe/berlin",
}


async def drive_to(core: Core, step: str) -> Reply:
    """Start onboarding and answer well until `step` is asked."""
    reply = await onboarding.start(core, KEY, "Ada")
    while reply.step != step:
        assert reply.step, f"conversation ended before {step}: {reply.text}"
        answer = GOOD[reply.step]
        if reply.step == "authors":
            reply = await handle(core, KEY, answer)
            while reply.step == "authors":  # "J. Han" is ambiguous: pick the first candidate
                reply = await handle(core, KEY, "1")
            continue
        reply = await handle(core, KEY, answer)
    return reply


async def stored_state(core: Core) -> OnboardingState | None:
    return await onboarding.load(core, KEY)


# --- the pieces: taxonomy, author names, settings ---


def test_categories_are_validated_against_the_taxonomy_with_suggestions() -> None:
    assert validate_category("cs.lg") == "cs.LG"
    assert validate_category(" STAT.ML ") == "stat.ML"
    assert validate_category("hep-th") == "hep-th"
    assert validate_category("computer vision") == "cs.CV"
    with pytest.raises(UnknownCategory) as info:
        validate_category("cs.ML")
    assert {"cs.LG", "stat.ML"} <= set(info.value.suggestions)
    assert "cs.LG" in check_category("cs.LGG").suggestions
    assert not check_category("cs").ok and "cs.AI" in check_category("cs").suggestions
    assert not check_category("🙂").ok and not check_category("x" * 5000).ok


def test_author_names_match_loosely() -> None:
    index = AuthorIndex(["Yann LeCun", "Bernhard Schölkopf", "Yoshua Bengio", "Samy Bengio", "Geoffrey E. Hinton"])
    assert index.match("yann lecun").name == "Yann LeCun"
    assert index.match("Y. LeCun").name == "Yann LeCun"
    assert index.match("LeCun, Yann").name == "Yann LeCun"
    assert index.match("Bernhard Scholkopf").name == "Bernhard Schölkopf"
    assert index.match("Geoffrey Hinton").name == "Geoffrey E. Hinton"
    ambiguous = index.match("Bengio")
    assert ambiguous.kind == "ambiguous" and set(ambiguous.candidates) == {"Yoshua Bengio", "Samy Bengio"}
    # an umlaut typed as German writes it without the dots is the stored name, not a typo to confirm
    assert index.match("Schoelkopf").kind == "exact" and index.match("Schoelkopf").name == "Bernhard Schölkopf"
    assert index.match("B. Schoelkopf").name == "Bernhard Schölkopf"
    assert same_person("Schoelkopf", "Bernhard Schölkopf") and not same_person("Schoelkopf", "Bernhard Scholz")
    assert index.match("Yan LeCunn").kind == "close"
    assert index.match("Nobody Atall").kind == "none"
    assert index.match("🙂").kind == "none"
    assert split_names("Yann LeCun, Geoffrey Hinton\nLeCun, Yann; - Bengio") == [
        "Yann LeCun",
        "Geoffrey Hinton",
        "LeCun, Yann",
        "Bengio",
    ]


def test_digest_settings_parse_what_people_type() -> None:
    assert [parse_post_time(t) for t in ("9", "09:30", "21.15", "7pm", "12am", "7:05 a.m.")] == [
        "09:00",
        "09:30",
        "21:15",
        "19:00",
        "00:00",
        "07:05",
    ]
    for bad in ("25:00", "13pm", "noonish", "9:75", ""):
        with pytest.raises(SettingError):
            parse_post_time(bad)
    assert parse_timezone("europe/berlin") == "Europe/Berlin"
    assert parse_timezone("Tokyo") == "Asia/Tokyo"
    assert parse_timezone("new york") == "America/New_York"
    assert parse_timezone("UTC+2") == "Etc/GMT-2"
    with pytest.raises(SettingError) as info:
        parse_timezone("Europe/Berlinn")
    assert "Europe/Berlin" in info.value.suggestions
    with pytest.raises(SettingError):
        parse_timezone("Mars/Olympus_Mons")
    assert parse_weekday("fri") == 4
    with pytest.raises(SettingError):
        parse_weekday("t")  # Tuesday or Thursday


# --- the whole conversation ---


async def test_a_new_user_is_walked_through_every_step_and_everything_is_saved(core: Core, store_day: StoreDay) -> None:
    await store_day(core)
    reply = await onboarding.start(core, KEY, "Ada")
    assert reply.step == "interests" and "/cancel" in reply.text
    reply = await handle(core, KEY, GOOD["interests"])
    assert reply.step == "avoid" and "2 topics" in reply.text
    reply = await handle(core, KEY, GOOD["avoid"])
    assert reply.step == "authors"
    reply = await handle(core, KEY, "Judea Pearl; Mateo Mahaut; Han")
    assert reply.step == "authors" and "Several authors match 'Han'" in reply.text
    assert {c.value for c in reply.choices} >= {"Dongsu Han", "Jiequn Han", "anyway", "skip"}
    reply = await handle(core, KEY, "Jiequn Han")
    assert reply.step == "categories" and "Judea Pearl; Matéo Mahaut; Jiequn Han" in reply.text
    reply = await handle(core, KEY, GOOD["categories"])
    assert reply.step == "rate" and len(reply.cards) == 1 and "Paper 1 of 5" in reply.text
    for answer in ("up", "👎", "skip", "down", "2"):  # "2" is the second button: down
        assert reply.step == "rate"
        reply = await handle(core, KEY, answer)
    assert reply.step == "digest" and "4 of 5 papers rated" in reply.text
    reply = await handle(core, KEY, "3")  # the third button: weekly
    assert reply.step == "weekday"
    reply = await handle(core, KEY, GOOD["weekday"])
    assert reply.step == "time"
    reply = await handle(core, KEY, GOOD["time"])
    assert reply.step == "timezone"
    reply = await handle(core, KEY, GOOD["timezone"])
    assert reply.done and reply.saved and "All set" in reply.text

    profile = await core.repo.get_profile(profile_owner(KEY))
    assert profile is not None and profile.name == "Ada (personal)"
    assert [t.want for t in profile.topics] == ["graph neural networks", "theory of deep learning optimisation"]
    # the avoid answer is stored once for the whole profile, not copied into every topic or into keywords
    assert profile.avoid == ("medical imaging", "federated learning")
    assert all(t.avoid == "" for t in profile.topics) and profile.penalize == ()
    exported = profile_to_mapping(profile)
    assert exported["avoid"] == ["medical imaging", "federated learning"]
    assert all("avoid" not in topic for topic in exported["topics"]) and exported["keywords"]["penalize"] == []
    assert profile.authors == ("Judea Pearl", "Matéo Mahaut", "Jiequn Han")
    assert profile.categories == ("cs.LG", "stat.ML")
    user = await core.repo.get_user(KEY)
    assert user is not None and (user.digest_mode, user.weekly_day, user.post_time, user.timezone) == (
        "weekly",
        4,
        "19:30",
        "Europe/Berlin",
    )
    assert await stored_state(core) is None
    ratings = sorted(f.value for f in await core.repo.user_feedback_rows(KEY))
    assert ratings == [-1, -1, -1, 1]


@pytest.mark.parametrize("step", onboarding.STEPS)
async def test_bad_input_at_every_step_gets_a_helpful_reply_and_the_step_continues(
    core: Core, store_day: StoreDay, step: str
) -> None:
    await store_day(core)
    asked = await drive_to(core, step)
    before = await stored_state(core)
    assert before is not None and before.step == step
    for bad in ("", "   ", "x" * 5000, "🤖🔥🎉", "\x1b[31m\x07\x00"):
        reply = await handle(core, KEY, bad)
        assert reply.step == step and not reply.done, (step, bad[:10], reply.text)
        assert len(reply.text) < 1500 and reply.text.strip()
        if len(bad) == 5000:
            assert "5,000 characters" in reply.text and "2,000" in reply.text
        if not bad.strip() or bad.startswith("\x1b"):
            assert "didn't get an answer" in reply.text
    # unknown commands are explained too, and the question's buttons still work afterwards
    reply = await handle(core, KEY, "/frobnicate")
    assert reply.step == step and "/skip" in reply.text
    if asked.choices:
        assert [c.value for c in reply.choices] == [c.value for c in asked.choices]
    after = await stored_state(core)
    assert after is not None and after.draft == before.draft
    # and the conversation still moves on with a good answer
    reply = await handle(core, KEY, GOOD[step] if step != "authors" else "Judea Pearl")
    assert reply.step != step or step == "rate"


async def test_an_unknown_author_can_be_watched_anyway_or_corrected(core: Core, store_day: StoreDay) -> None:
    await store_day(core)
    await drive_to(core, "authors")
    reply = await handle(core, KEY, "Nobody Atall; Judea Perl")
    assert reply.step == "authors" and "no author called 'Nobody Atall'" in reply.text
    reply = await handle(core, KEY, "anyway")
    assert "watch for 'Nobody Atall'" in reply.text and "Did you mean" in reply.text
    assert reply.choices[0].value == "Judea Pearl"  # "Judea Perl" is a typo
    reply = await handle(core, KEY, "1")
    assert reply.step == "categories"
    state = await stored_state(core)
    assert state is not None and state.draft.authors == ["Nobody Atall", "Judea Pearl"]


async def test_an_unknown_category_gets_suggestions_and_the_known_ones_are_kept(
    core: Core, store_day: StoreDay
) -> None:
    await store_day(core)
    await drive_to(core, "categories")
    reply = await handle(core, KEY, "cs.CL, cs.ML, quantum stuff")
    assert reply.step == "categories" and "'cs.ML' is not an arXiv category" in reply.text
    assert "So far: cs.CL" in reply.text
    assert {"cs.LG", "stat.ML"} <= {c.value for c in reply.choices}
    reply = await handle(core, KEY, "stat.ML")
    assert "'quantum stuff'" in reply.text
    reply = await handle(core, KEY, "skip")
    assert reply.step == "rate"
    state = await stored_state(core)
    assert state is not None and state.draft.categories == ["cs.CL", "stat.ML"]


async def test_a_time_zones_suggestions_stay_when_the_question_is_asked_again(core: Core, store_day: StoreDay) -> None:
    """After "Did you mean one of these? 1) Europe/Paris ...", /help (or the console started again, which resumes)
    asked the time zone again without them, and "1" was "not a time zone I know"."""
    await store_day(core)
    await drive_to(core, "timezone")
    reply = await handle(core, KEY, "Europe/Pari")
    assert reply.step == "timezone" and reply.choices[0].value == "Europe/Paris"
    for again in (await handle(core, KEY, "/help"), await onboarding.resume(core, KEY)):
        assert again is not None and again.step == "timezone" and "In which time zone?" in again.text
        assert [c.value for c in again.choices] == [c.value for c in reply.choices]
    reply = await handle(core, KEY, "1")
    assert reply.done and reply.saved
    assert (await core.repo.get_user(KEY)).timezone == "Europe/Paris"


async def test_cancel_discards_the_draft_and_keeps_what_was_saved(core: Core, store_day: StoreDay) -> None:
    await store_day(core)
    await drive_to(core, "authors")
    reply = await handle(core, KEY, "/cancel")
    assert reply.done and not reply.saved and "Nothing new was saved" in reply.text
    assert await stored_state(core) is None
    assert await core.repo.get_profile(profile_owner(KEY)) is None

    reply = await drive_to(core, "digest")
    reply = await handle(core, KEY, "off")
    assert reply.saved
    saved = await core.repo.get_profile(profile_owner(KEY))
    # going through it again, pre-filled, then cancelling half-way leaves the saved profile alone
    reply = await onboarding.start(core, KEY)
    assert "Now: graph neural networks" in reply.text
    reply = await handle(core, KEY, "protein folding")
    reply = await handle(core, KEY, "/cancel")
    assert reply.done and await core.repo.get_profile(profile_owner(KEY)) == saved


async def test_the_conversation_resumes_after_a_restart(settings: Settings, embedder: LocalEmbedder) -> None:
    async with open_core(settings, embedder) as first:
        await onboarding.start(first, KEY)
        await handle(first, KEY, GOOD["interests"])
        await handle(first, KEY, "/skip")
        reply = await handle(first, KEY, "Somebody Unknown")  # no papers stored: every name is unknown
        assert reply.step == "authors" and "Somebody Unknown" in reply.text
    async with open_core(settings, embedder) as second:
        assert await onboarding.is_active(second, KEY)
        reply = await onboarding.resume(second, KEY)
        assert reply is not None and "Welcome back" in reply.text and "Somebody Unknown" in reply.text
        reply = await handle(second, KEY, "1")  # watch anyway
        assert reply.step == "categories"
        reply = await handle(second, KEY, "/skip")
        assert "no stored papers to rate" in reply.text and reply.step == "digest"
        reply = await handle(second, KEY, "daily")
        reply = await handle(second, KEY, "/skip")  # keep 09:00
        reply = await handle(second, KEY, "UTC")
        assert reply.saved
        profile = await second.repo.get_profile(profile_owner(KEY))
        assert profile is not None and profile.authors == ("Somebody Unknown",) and not profile.categories


def test_the_state_round_trips_through_json() -> None:
    conv = OnboardingState(user_key=KEY, step="authors", display_name="Ada")
    conv.draft.interests = ["sparse attention", "émergent behaviour 🤖"]
    conv.draft.ratings = {"2505.17032": 1, "2505.17101": -1}
    conv.pending = [{"query": "Han", "kind": "ambiguous", "candidates": ["Dongsu Han", "Jiequn Han"]}]
    conv.choices = [["Dongsu Han", "Dongsu Han"], ["skip this name", "skip"]]
    again = OnboardingState.from_json(conv.to_json())
    assert again == conv
    for broken in ("{}", "[1]", '{"version": 1, "mode": "nowhere", "draft": {}}', "not json"):
        with pytest.raises((ValueError, TypeError, KeyError)):
            OnboardingState.from_json(broken)


async def test_an_unreadable_stored_state_starts_over_politely(core: Core) -> None:
    await core.repo.ensure_user(KEY)
    await core.repo.save_chat_state(KEY, "onboarding", '{"version": 99}')
    assert not await onboarding.is_active(core, KEY)
    # a state at a step this version does not have (an older release's) is dropped the same way
    gone = OnboardingState(user_key=KEY, step="nowhere").to_json()
    await core.repo.save_chat_state(KEY, "onboarding", gone)
    assert not await onboarding.is_active(core, KEY)
    reply = await handle(core, KEY, "hello")
    assert reply.step == "interests"


async def test_edit_changes_one_field_and_keeps_the_rest(core: Core, store_day: StoreDay) -> None:
    await store_day(core)
    await drive_to(core, "digest")
    assert (await handle(core, KEY, "off")).saved
    before = await core.repo.get_profile(profile_owner(KEY))
    ratings = await core.repo.user_feedback_rows(KEY)
    assert before is not None

    reply = await handle(core, KEY, "/edit categories")
    assert reply.step == "categories" and "Now: cs.LG, stat.ML" in reply.text
    reply = await handle(core, KEY, "cs.CL")
    assert reply.saved and "Saved your new categories" in reply.text
    after = await core.repo.get_profile(profile_owner(KEY))
    assert after is not None and after.categories == ("cs.CL",)
    assert (after.topics, after.authors, after.avoid) == (before.topics, before.authors, before.avoid)
    assert "Ratings: " in reply.text  # an edit's summary still counts the ratings given before
    assert await core.repo.user_feedback_rows(KEY) == ratings

    reply = await onboarding.begin_edit(core, KEY, "schedule")  # an alias of digest
    assert reply.step == "digest"
    for answer in ("daily", "06:45", "Asia/Tokyo"):
        reply = await handle(core, KEY, answer)
    assert reply.saved
    user = await core.repo.get_user(KEY)
    assert user is not None and (user.digest_mode, user.post_time, user.timezone) == ("daily", "06:45", "Asia/Tokyo")

    reply = await onboarding.begin_edit(core, KEY, "avoid")
    reply = await handle(core, KEY, "/cancel")
    assert reply.done and "unchanged" in reply.text
    assert (await onboarding.begin_edit(core, KEY, "colour")).done  # not a field: explained, nothing started


async def test_a_command_and_its_argument_may_be_parted_by_any_space(core: Core, store_day: StoreDay) -> None:
    # the line reads as a command past any white space ("/edit" then a new line), so it runs as one, argument and all
    await store_day(core)
    await drive_to(core, "categories")
    reply = await handle(core, KEY, "/edit\ninterests")
    assert reply.step == "interests" and "don't know" not in reply.text


async def test_edit_and_back_during_onboarding_return_to_where_we_were(core: Core, store_day: StoreDay) -> None:
    await store_day(core)
    await drive_to(core, "categories")
    reply = await handle(core, KEY, "/edit interests")
    assert reply.step == "interests"
    reply = await handle(core, KEY, "causal inference")
    assert reply.step == "categories" and "Back to where we were" in reply.text
    reply = await handle(core, KEY, "/back")
    assert reply.step == "authors"
    reply = await handle(core, KEY, "/back")
    assert reply.step == "avoid" and "medical imaging" in reply.text
    reply = await handle(core, KEY, "/status")
    assert "Interests: causal inference" in reply.text and reply.step == "avoid"
    reply = await handle(core, KEY, "/help")
    assert "/cancel" in reply.text and reply.step == "avoid"
    reply = await handle(core, KEY, "/skip")
    assert reply.step == "authors" and "Kept your avoid" in reply.text


def test_maximal_marginal_relevance_spreads_the_picks() -> None:
    rng = np.random.default_rng(0)
    centre_a, centre_b = rng.normal(size=16), rng.normal(size=16)
    vectors = np.vstack([centre_a + 0.01 * rng.normal(size=(6, 16)), centre_b + 0.01 * rng.normal(size=(6, 16))])
    relevance = np.array([1.0, 0.99, 0.98, 0.97, 0.96, 0.95, 0.5, 0.49, 0.48, 0.47, 0.46, 0.45])
    picked = pick_diverse(relevance, vectors, 2)
    assert picked[0] == 0 and picked[1] >= 6  # the second pick comes from the other cluster
    assert len(set(pick_diverse(relevance, vectors, 5))) == 5
    assert sorted(pick_diverse(relevance[:3], vectors[:3], 5)) == [0, 1, 2]


async def test_the_papers_to_rate_are_more_diverse_than_the_top_five(core: Core, store_day: StoreDay) -> None:
    papers: list[Paper] = await store_day(core)
    draft = onboarding.Draft(interests=["graph neural networks", "theory of deep learning optimisation"])
    profile = onboarding.build_profile(draft, "test")
    picked = await papers_to_rate(core, profile, exclude=set())
    assert len(picked) == 5 and len({p.id for p in picked}) == 5
    from bot.ranking.for_profile import rank_papers

    top5 = [s.paper for s in await rank_papers(core, papers, profile, 5)]

    async def mean_similarity(chosen: list[Paper]) -> float:
        vecs = await core.vectors.vectors([p.id for p in chosen])
        vecs = vecs / np.linalg.norm(vecs, axis=1, keepdims=True)
        sims = vecs @ vecs.T
        return float(sims[np.triu_indices(len(chosen), 1)].mean())

    assert await mean_similarity(picked) < await mean_similarity(top5) - 0.02
    assert picked[0].id == top5[0].id  # still anchored on the best match
    # already-rated papers are not asked about again
    again = await papers_to_rate(core, profile, exclude={p.id for p in picked})
    assert not {p.id for p in again} & {p.id for p in picked}


async def test_a_message_from_someone_with_a_profile_does_not_restart_onboarding(core: Core) -> None:
    reply = await handle(core, KEY, "hello")
    assert reply.step == "interests"
    await handle(core, KEY, "sparse attention")
    for answer in ("/skip", "/skip", "/skip", "off"):
        reply = await handle(core, KEY, answer)
    assert reply.saved
    reply = await handle(core, KEY, "hello again")
    assert reply.done and "/edit FIELD" in reply.text and not await onboarding.is_active(core, KEY)
    reply = await handle(core, KEY, "/start")
    assert reply.step == "interests" and "Now: sparse attention" in reply.text


async def test_two_messages_at_once_are_taken_one_after_the_other(core: Core, store_day: StoreDay) -> None:
    # an adapter may hand over a user's next message before the previous one is answered
    import asyncio

    await store_day(core)
    await onboarding.start(core, KEY, "Ada")
    first, second = await asyncio.gather(handle(core, KEY, GOOD["interests"]), handle(core, KEY, GOOD["avoid"]))
    assert (first.step, second.step) == ("avoid", "authors")
    state = await stored_state(core)
    assert state is not None and state.step == "authors"
    assert state.draft.interests and "graph neural networks" in state.draft.interests[0]
    assert state.draft.avoid == ["medical imaging", "federated learning"]
    assert len(core.user_locks) == 0  # nobody holds a lock any more, so none is kept


async def test_a_profile_saved_before_profile_level_avoid_is_read_back_without_duplicates(core: Core) -> None:
    legacy = Profile(
        name="Ada (personal)",
        topics=(
            Topic("a", "graph neural networks", "medical imaging; benchmarks"),
            Topic("b", "optimisation", "medical imaging; benchmarks"),
        ),
        penalize=("medical imaging", "benchmarks"),
    )
    draft = onboarding.draft_from_saved(legacy, None)
    assert draft.avoid == ["medical imaging", "benchmarks"] and draft.penalize == []
    rebuilt = onboarding.build_profile(draft, legacy.name)
    assert rebuilt.avoid == ("medical imaging", "benchmarks") and rebuilt.penalize == ()


def test_edit_names_a_field_it_does_not_know_with_a_suggestion() -> None:
    assert "did you mean /edit authors?" in onboarding.which_field("autors")
    listed = onboarding.which_field("")
    assert listed.startswith("Which field?") and "interests" in listed and "digest" in listed


def test_archives_list_every_category_and_loose_names_get_suggestions() -> None:
    check = check_category("q-bio")
    assert len(check.suggestions) == 10 and check.reason.count("q-bio.") == 10
    assert "is a whole archive" not in check.reason  # the question says "'q-bio' is ..." itself
    assert check_category("quant-bio").suggestions[0].startswith("q-bio.")
