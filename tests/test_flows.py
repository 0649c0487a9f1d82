"""The one step engine under every multi-step conversation (onboarding, /setup, the /forget confirmation):
/cancel and /skip wherever a question waits, typed as a command or as text, and one open flow per member and place."""

from __future__ import annotations

from bot.chat import AnswerReply, ChatController, Incoming, Place, Speaker
from bot.core import Core
from bot.members import onboarding
from tests.conftest import StoreDay
from tests.test_chat import ADMIN, CHANNEL, MEMBER, only_text, say

DISCORD_DM = Place("discord", "dm-7", is_dm=True)


async def test_a_step_by_step_setup_is_cancelled_by_a_typed_reply(core: Core) -> None:
    ctl = ChatController(core)
    assert "categories" in (await say(ctl, ADMIN, CHANNEL, "/setup"))[0].text  # then Discord's hint to reply
    # a reply in a Discord channel reaches the controller as text, not as a command
    cancelled = only_text(await ctl.handle(Incoming(ADMIN, CHANNEL, text="/cancel", reply_to="900")))
    assert "Setup cancelled" in cancelled.text and "arXiv category" not in cancelled.text
    assert await core.repo.chat_states_of(ADMIN.user_key) == []
    assert await core.repo.target_at("discord", "555") is None


async def test_skip_and_back_typed_as_text_reach_the_setup(core: Core) -> None:
    ctl = ChatController(core)
    await say(ctl, ADMIN, CHANNEL, "/setup")
    await ctl.handle(Incoming(ADMIN, CHANNEL, text="cs.LG", reply_to="901"))
    assert "what time" in only_text(await ctl.handle(Incoming(ADMIN, CHANNEL, text="/skip", reply_to="902"))).text
    assert "Going back" in only_text(await ctl.handle(Incoming(ADMIN, CHANNEL, text="/back", reply_to="903"))).text


async def test_an_open_setup_leaves_replies_to_answers_to_the_question(core: Core, store_day: StoreDay) -> None:
    ctl = ChatController(core)
    await store_day(core)
    await say(ctl, ADMIN, CHANNEL, "/setup")
    answered = await ctl.handle(Incoming(ADMIN, CHANNEL, command="ask", args="sparse attention papers?"))
    (answer,) = answered
    assert isinstance(answer, AnswerReply)
    await ctl.remember_message(CHANNEL, "777", answer)
    follow_up = await ctl.handle(Incoming(ADMIN, CHANNEL, text="which of those are about vision?", reply_to="777"))
    assert isinstance(follow_up[0], AnswerReply), follow_up
    # the setup still waits at its first question, untouched by the follow-up
    reply = only_text(await ctl.handle(Incoming(ADMIN, CHANNEL, text="cs.LG", reply_to="905")))
    assert "daily or weekly" in reply.text.lower()


async def test_skip_and_cancel_with_nothing_open_say_so(core: Core) -> None:
    ctl = ChatController(core)
    assert "Nothing to skip" in only_text(await say(ctl, ADMIN, CHANNEL, "/skip")).text
    assert "Nothing to cancel" in only_text(await say(ctl, ADMIN, CHANNEL, "/cancel")).text


async def test_an_onboarding_in_dms_does_not_take_the_members_words_in_a_channel(core: Core) -> None:
    ctl = ChatController(core)
    bob = Speaker(MEMBER.user_key, "Bob")
    assert "interests" in only_text(await say(ctl, bob, DISCORD_DM, "/start")).text.lower()
    # a Discord mention in a channel arrives as text; onboarding is a DM conversation and waits there
    assert await ctl.handle(Incoming(bob, CHANNEL, text="protein folding")) == []
    assert await onboarding.current_step(core, bob.user_key) == "interests"


async def test_a_new_flow_ends_the_one_open_at_the_same_place(core: Core) -> None:
    ctl = ChatController(core)
    console = Place("console", "terminal", is_dm=True, title="the terminal")
    me = Speaker("console:ada", "ada", is_admin=True)
    await say(ctl, me, console, "/start")
    assert await onboarding.is_active(core, me.user_key)
    assert "categories" in only_text(await say(ctl, me, console, "/setup")).text
    assert not await onboarding.is_active(core, me.user_key)
    # so the next answer goes to the setup, the one flow open here
    assert "daily or weekly" in only_text(await say(ctl, me, console, "cs.LG")).text.lower()
