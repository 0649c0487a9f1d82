"""/setup written on one line (issue 24): option words are read only where options are expected, so a channel profile
may say "schedule:", "time:" or "size:" as ordinary words, and an interest that starts with "name" is not a TOML
profile."""

from __future__ import annotations

from bot.chat import ChatController, Incoming, Place, Speaker
from bot.chat.commands import help_text
from bot.chat.setup import inline_options
from bot.core import Core
from tests.test_chat import ADMIN, CHANNEL, only_text, say

PROFILE_WITH_OPTION_WORDS = (
    "optimizers; learning-rate schedule: cosine decay and warm restarts; inference time: latency budgets; "
    "batch size: scaling laws"
)


def test_the_profile_option_takes_the_rest_of_the_line_option_words_and_all() -> None:
    line = f"categories=cs.LG schedule=weekly friday time=08:00 tz=UTC size=10 profile={PROFILE_WITH_OPTION_WORDS}"
    assert inline_options(line) == {
        "categories": "cs.LG",
        "schedule": "weekly friday",
        "time": "08:00",
        "timezone": "UTC",
        "size": "10",
        "profile": PROFILE_WITH_OPTION_WORDS,
    }
    # the same with "name: value" and the profile first: nothing after it is read as an option
    assert inline_options("profile: scheduling for LLM serving; schedule: cosine size: 7") == {
        "profile": "scheduling for LLM serving; schedule: cosine size: 7"
    }


def test_words_after_setup_are_options_only_when_they_start_with_one() -> None:
    assert inline_options("graph neural networks; learning-rate schedule: cosine") == {}
    assert inline_options("the schedule: weekly") == {}
    assert inline_options("  Time: 07:30  TZ=Europe/Berlin") == {"time": "07:30", "timezone": "Europe/Berlin"}
    # an option word inside another word is not an option ("timeseries=", "resize:")
    assert inline_options("categories=cs.LG resize: 3") == {"categories": "cs.LG resize: 3"}


async def test_a_one_line_setup_keeps_a_profile_that_mentions_option_words(core: Core) -> None:
    ctl = ChatController(core)
    line = f"/setup categories=cs.LG time=08:00 tz=UTC size=5 profile={PROFILE_WITH_OPTION_WORDS}"
    assert "All set!" in only_text(await ctl.handle(Incoming(ADMIN, CHANNEL, text=line))).text
    found = await core.repo.target_at(CHANNEL.platform, CHANNEL.chat_id)
    assert found is not None
    target, profile = found
    assert (target.schedule, target.post_time, target.digest_size) == ("daily", "08:00", 5)
    assert [t.want for t in profile.topics] == [
        "optimizers",
        "learning-rate schedule: cosine decay and warm restarts",
        "inference time: latency budgets",
        "batch size: scaling laws",
    ]


async def test_an_interest_starting_with_name_is_an_interest_not_a_toml_profile(core: Core) -> None:
    ctl = ChatController(core)
    await say(ctl, ADMIN, CHANNEL, "/setup")
    for answer in ("cs.CL", "daily", "09:00", "UTC"):
        await ctl.handle(Incoming(ADMIN, CHANNEL, text=answer, reply_to="900"))
    reply = only_text(
        await ctl.handle(Incoming(ADMIN, CHANNEL, text="named entity recognition; name disambiguation", reply_to="9"))
    )
    assert "papers per digest" in reply.text, reply.text
    await ctl.handle(Incoming(ADMIN, CHANNEL, text="10", reply_to="901"))
    found = await core.repo.target_at(CHANNEL.platform, CHANNEL.chat_id)
    assert found is not None
    assert [t.want for t in found[1].topics] == ["named entity recognition", "name disambiguation"]


async def test_setup_help_says_how_options_are_written_on_one_line(core: Core) -> None:
    """Where commands are only typed (a Telegram group), /help shows /setup's one-line form."""
    group, admin = Place("telegram", "-100", is_dm=False, title="papers"), Speaker("telegram:8", "Cleo", is_admin=True)
    text = help_text(Incoming(admin, group, command="help"))
    [line] = [line for line in text.splitlines() if "setup" in line]
    assert "profile=" in line and "last" in line


async def test_setup_help_describes_the_form_where_the_platform_gives_one(core: Core) -> None:
    """Where /setup is a form (Discord's slash command with its fields), /help names the fields, not `key=value`."""
    assert CHANNEL.platform == "discord"
    text = help_text(Incoming(ADMIN, CHANNEL, command="help"))
    [line] = [line for line in text.splitlines() if "setup" in line]
    assert "=" not in line and "fields: categories, schedule, time, timezone, profile, size" in line, line


async def test_a_channel_set_up_with_a_category_that_is_not_collected_is_told_so(core: Core) -> None:
    """Only PAPERSCOUT_CATEGORIES are fetched: a channel on another category gets only papers cross-listed into it,
    which /setup and /settings say, as a member's onboarding does."""
    ctl = ChatController(core)
    rest = "time=08:00 tz=UTC size=5 profile=video models"
    outside = next(c for c in ("cs.CV", "q-bio.NC") if c not in core.settings.categories)
    inside = core.settings.categories[0]
    reply = only_text(
        await ctl.handle(Incoming(ADMIN, CHANNEL, text=f"/setup categories={inside},{outside} {rest}"))
    ).text
    note = f"so {outside} will show papers cross-listed there until the operator adds them (PAPERSCOUT_CATEGORIES)"
    assert "All set!" in reply and note in reply
    assert note in only_text(await ctl.handle(Incoming(ADMIN, CHANNEL, text="/settings"))).text
    line = f"/setup categories={inside} {rest}"
    reply = only_text(await ctl.handle(Incoming(ADMIN, CHANNEL, text=line))).text
    assert "Saved." in reply and "Note:" not in reply
