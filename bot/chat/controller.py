"""The chat controller: routes every turn of a conversation, for every front end; the handlers live in modules by
concept (`questions`, `papers`, `digests`, `members`, `admin`), the command table in `commands`.

`ChatController.handle(Incoming) -> list[Reply]` is the whole interface (`answer` wraps it for front ends: a bare
/start in a DM greets, a failure is an apology, never an exception): the console, the Discord client and the Telegram
and Slack handlers translate platform events into `Incoming` and render the replies. Every piece of conversation
state lives in SQLite (onboarding, a half-done /setup, a pending /forget, the numbering of a member's last list of
papers), and so a restart in the middle of any flow continues where it was.

Routing, in order: a pressed button; a command (a member's own, `Command.personal`, run by the place speaking as
itself, `Incoming.by_place`, is told in one line that nobody can be acted for); then plain text goes to whatever
flow is waiting for the speaker (`bot.chat.flows`: a /forget confirmation, onboarding, a /setup of this place; one
read tells which), and otherwise
in a DM it is a question (or, for someone without a profile, the start of onboarding), while in a channel a reply
to one of our answers is a follow-up question (even with a flow open there), and a message that mentions the bot,
or replies in a thread of ours that holds no answer (a setup question, a help line), is a question; other channel
chatter is not ours.
"""

from __future__ import annotations

import logging
import time
from dataclasses import replace as dc_replace
from typing import TYPE_CHECKING

from bot.chat.admin import ChannelSetup
from bot.chat.commands import ALIASES, COMMANDS, FLOW_WORDS, about_the_bot, command_label, find, help_text
from bot.chat.flows import Flows
from bot.chat.members import ForgetConfirmation, OnboardingFlow, reads_as_question
from bot.chat.messages import (
    BUTTON_PREFIX,
    PAPER_ACTIONS,
    AnswerReply,
    Incoming,
    Place,
    Replied,
    Reply,
    Speaker,
    TextReply,
    is_paperscout_button,
)
from bot.chat.onboarding_replies import onboarding_reply
from bot.chat.papers import PAPER_BUTTONS
from bot.chat.questions import ask
from bot.chat.reactions import ResetConfirmation
from bot.chat.turns import (
    Turn,
    has_words,
    log_turn,
    logged_turn,
    member_line,
    member_profile,
    text_reply,
    told_as_is,
)
from bot.errors import InputError
from bot.frontend import front_end, wording
from bot.members import onboarding
from bot.text.safetext import command_in

if TYPE_CHECKING:  # the digest poster is only needed for /digest now
    from bot.core import Core
    from bot.digests.delivery import Poster

log = logging.getLogger(__name__)

FLOWS = Flows(
    ForgetConfirmation(), ResetConfirmation(), OnboardingFlow(), ChannelSetup()
)  # which flow takes a turn, in this order
FLOW_COMMANDS = FLOW_WORDS | frozenset(name for flow in FLOWS.flows for name in flow.commands)
COMMAND_WORDS = frozenset(COMMANDS) | frozenset(ALIASES) | FLOW_COMMANDS  # what a reply may name as a command


def typed(speaker: Speaker, place: Place, line: str, **extra: object) -> Incoming:
    """A line typed in a conversation (`extra`: `Incoming`'s other fields): a command when it reads as one and names
    one of ours, or names none and says nothing more (told it is unknown, `command_in`); anything else is text, a
    question in a DM: "/r/MachineLearning has a thread on MoE" is no command, and "/s is sarcasm" goes on past a word
    that is none of ours. A command the member invoked as one (a platform's slash command) is
    `Incoming.from_text`'s alone."""
    if command_in(line, COMMAND_WORDS):
        return Incoming.from_text(speaker, place, line, **extra)
    return Incoming(speaker, place, text=line, **extra)  # type: ignore[arg-type]


def in_words_of(place: Place, replies: list[Reply]) -> list[Reply]:
    """The replies with every command named as members run it on `place`'s platform (our own words only: the text
    of an answer is the model's)."""
    said = [wording(place.platform, r.text, COMMAND_WORDS) if isinstance(r, TextReply) else "" for r in replies]
    return [dc_replace(r, text=text) if isinstance(r, TextReply) else r for r, text in zip(replies, said, strict=True)]


class ChatController:
    """The conversation core every front end drives (see the module docstring)."""

    def __init__(self, core: Core, poster: Poster | None = None) -> None:
        """`poster` is the front end's digest poster, for an admin's "/digest now"; without one (the console) a
        channel's digest can only be previewed."""
        self.core = core
        self.poster = poster

    # --- the entry points ---

    async def handle(self, msg: Incoming) -> list[Reply]:
        """Everything the speaker should see in answer to `msg`, in order (possibly nothing); one log line each."""
        started, outcome = time.monotonic(), "error"
        replies: list[Reply] = []
        try:
            async with self.core.user_locks("chat|" + msg.speaker.user_key):
                replies = await self._route(msg)
            outcome = "ok"
            return in_words_of(msg.place, replies)
        except InputError as exc:
            outcome = "refused"
            return in_words_of(msg.place, text_reply(str(exc), ephemeral=True))
        finally:
            label = command_label(msg)
            if replies or outcome != "ok" or label != "text":  # channel chatter that is not for us is not a turn
                log_turn(label, msg.place, outcome, started)

    async def answer(self, msg: Incoming) -> list[Reply]:
        """What a front end sends back for `msg`; never raises. A bare /start in a DM greets (resuming an unfinished
        onboarding); a failure is logged and answered to someone who addressed the bot (a DM, a command, a button, a
        reply to us, a mention) with our own error's line or else an apology naming the logged failure's reference
        (`member_line`), while a channel's chatter gets nothing."""
        try:
            if msg.command == "start" and msg.place.is_dm and not msg.args:
                return await self.greet(msg.speaker, msg.place)
            return await self.handle(msg)
        except Exception as exc:
            what = f"answering {msg.command or 'a message'} in {msg.place.key}"
            if told_as_is(exc):  # a source down, a state to repair: logged as a warning, told in its own words
                log.warning("%s failed: %s", what, exc)
            line = member_line(exc, what)
            return [TextReply(line, ephemeral=True)] if msg.addressed else []

    async def greet(self, speaker: Speaker, place: Place) -> list[Reply]:
        """What someone opening a conversation sees (the console's start, Telegram's /start in a DM): an unfinished
        onboarding resumed, a new one for someone without a profile, else a welcome back."""
        with logged_turn("/start", place):
            return in_words_of(place, await self._greet(speaker, place))

    async def _greet(self, speaker: Speaker, place: Place) -> list[Reply]:
        async with self.core.user_locks("chat|" + speaker.user_key):
            resumed = await onboarding.resume(self.core, speaker.user_key)
            if resumed is not None:
                return [onboarding_reply(resumed)]
            if place.is_dm and await member_profile(self.core, speaker.user_key) is None:
                return [onboarding_reply(await onboarding.start(self.core, speaker.user_key, speaker.display_name))]
            return text_reply("Welcome back! /digest shows your personal digest, /help lists everything.")

    async def replied(self, place: Place, message_id: str) -> Replied:
        """What a reply to `message_id` in `place` answers: one of the bot's answers (or, on a threaded platform, a
        thread the bot started or posted in), whose question a reply continues ('' for a thread without an answer),
        or not the bot's. Looked up once per message:
        a front end that needs it before the controller passes it on `Incoming.replied`."""
        context = await self.core.repo.bot_message_context(place.key, message_id) if message_id else None
        return Replied(context is not None, context or "")

    def only_in_dm(self, command: str) -> bool:
        """Whether `command` (a name or an alias; '' for none) works only in a direct message."""
        found = find(command.lower().lstrip("/")) if command else None
        return found is not None and found.where == "dm"

    async def remember_message(self, place: Place, message_id: str, reply: Reply, *, thread: bool = False) -> None:
        """Note the platform id of a sent answer, so a reply to it continues its question context; with `thread` (a
        thread the bot started or posted into, on a threaded platform) whatever `reply` is, so a reply there is
        spoken to the bot even where it posted only a setup question or a failure line."""
        if not message_id:
            return
        if isinstance(reply, AnswerReply) and reply.context_id:
            await self.core.repo.remember_bot_message(place.key, str(message_id), reply.context_id)
        elif thread:
            await self.core.repo.remember_bot_message(place.key, str(message_id), "")

    # --- routing ---

    def _turn(self, msg: Incoming, args: str) -> Turn:
        return Turn(self.core, msg, args, self.poster)

    async def _route(self, msg: Incoming) -> list[Reply]:
        if msg.button:
            return await self._button(msg)
        if msg.reply_to and msg.replied is None:
            msg = dc_replace(msg, replied=await self.replied(msg.place, msg.reply_to))
        if not msg.command and msg.text.lstrip().startswith("/"):
            # a command typed where the platform hands over text (a reply in a Discord channel): still a command
            msg = typed(
                msg.speaker,
                msg.place,
                msg.text,
                reply_to=msg.reply_to,
                replied=msg.replied,
                attachment=msg.attachment,
                options=msg.options,
                mentioned=msg.mentioned,
            )
        if msg.command:
            return await self._command(msg)
        place, text = msg.place, msg.text
        turn = self._turn(msg, text)
        replied = msg.replied or Replied(ours=False)
        if not place.is_dm and replied.context:
            # a reply to one of our answers continues its question, whatever flow the speaker has open here
            return await ask(turn)
        answered = await FLOWS.answer(turn)
        if answered is not None:
            return answered
        if (msg.mentioned or replied.ours) and not place.is_dm:
            # spoken to in a channel (a mention, a reply in a thread of ours): a question, or how to ask one
            if not has_words(text):
                return text_reply("Ask me about the stored papers: mention me with a question, or use /ask.")
            return await ask(turn)
        if not text.strip() and msg.attachment is None:
            return []
        if place.is_dm:
            user = msg.speaker.user_key
            if about_the_bot(text):  # "how do I set up my profile", "what can you do": the bot's help, not papers
                return text_reply(help_text(msg))
            if not reads_as_question(text) and await member_profile(self.core, user) is None:
                await FLOWS.begin(self.core, user, place, onboarding.STATE_KIND)
                return [onboarding_reply(await onboarding.start(self.core, user, msg.speaker.display_name))]
            return await ask(turn)
        return []

    async def _command(self, msg: Incoming) -> list[Reply]:
        name = msg.command.lower().lstrip("/")
        turn = self._turn(msg, msg.args.strip())
        if name in FLOW_COMMANDS:
            # an open flow takes its own commands first (/cancel, /skip, /back; onboarding's /status, /help, ...)
            replies = await FLOWS.command(turn, name)
            if replies is not None:
                return replies
        command = find(name)
        if command is None:
            return text_reply(f"I don't know /{name[:30]}. /help lists what I can do.", ephemeral=True)
        if command.personal and msg.by_place:
            # a member's own command with no member behind it: nobody's data to make, show or change (a stand-in
            # keyed by the place would be shared by everyone who speaks as it), and nobody to write to
            told = front_end(msg.place.platform).written_as_place.format(command=f"/{name}")
            return text_reply(told, ephemeral=True)
        if command.where == "dm" and not msg.place.is_dm:
            return text_reply(
                f"/{name} works in a direct message with me; open a DM and send it there.", ephemeral=True
            )
        if command.where == "channel" and msg.place.is_dm and msg.place.platform != "console":
            # the console has no channels: the terminal is its one channel, set up like any other
            return text_reply(
                f"/{name} is for the channel or group that gets the digest; run it there.", ephemeral=True
            )
        if command.admin and not msg.speaker.is_admin:
            who = front_end(msg.place.platform).admin_words
            return text_reply(f"/{name} is for {who}.", ephemeral=True)
        if command.opens:
            await FLOWS.begin(self.core, turn.user, turn.place, command.opens)
        return await command.handler(turn)

    async def _button(self, msg: Incoming) -> list[Reply]:
        value = msg.button
        if not value.startswith(BUTTON_PREFIX):
            return []
        # a value of ours past the size we make (a platform whose values may be longer) is no button we know
        kind, _, rest = value[len(BUTTON_PREFIX) :].partition(":") if is_paperscout_button(value) else ("", "", "")
        if kind in PAPER_ACTIONS:
            return await PAPER_BUTTONS[kind](self._turn(msg, rest))
        if kind == "c":
            step, _, number = rest.rpartition(":")
            chosen = await FLOWS.choose(self._turn(msg, ""), step, number)
            if chosen is not None:
                return chosen
        return text_reply(
            "That button is from an older version of paperscout; send the command instead.", ephemeral=True
        )
