"""The chat controller: every decision a conversation makes, once, for every front end.

`ChatController.handle(Incoming) -> list[Reply]` is the whole interface: the console, the Discord cogs and the
Telegram handlers translate platform events into `Incoming` and render the replies. The controller routes
commands through one table (`COMMANDS`), keeps every piece of conversation state in SQLite (onboarding, a
half-done /setup, a pending /forget, the numbering of a member's last list of papers), and so a restart in the
middle of any flow continues where it was.

Routing, in order: a pressed button; a command; then plain text goes to whatever flow is waiting for the speaker
(a /forget confirmation, onboarding, a /setup of this place), and otherwise in a DM it is a question (or, for
someone without a profile, the start of onboarding), while in a channel only a reply to one of our answers is
taken up (as a follow-up); other channel chatter is not ours to answer.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.chat import setup
from bot.chat.messages import (
    BUTTON_PREFIX,
    PAPER_ACTIONS,
    AnswerReply,
    Choice,
    DigestReply,
    FileReply,
    Incoming,
    Place,
    Reply,
    Speaker,
    TextReply,
    choice_button,
)
from bot.core import Core
from bot.days import stored_days_note, stored_today
from bot.errors import InputError
from bot.members import onboarding
from bot.members.users import (
    WEEKDAYS,
    SettingError,
    describe_settings,
    export_user,
    forget_user,
    parse_post_time,
    parse_timezone,
    parse_weekday,
    personal_digest,
    profile_owner,
)
from bot.models import InvalidPaperId, Paper, Profile, Target, split_arxiv_id
from bot.ops.logs import elapsed_ms, log_event
from bot.ranking import learn
from bot.views.cards import explain_paper, stored_paper
from bot.views.model import DigestView, PaperView, digest_view, paper_view, usage_line

if TYPE_CHECKING:  # the digest poster is only needed for /digest now
    from bot.digests.delivery import Poster

log = logging.getLogger(__name__)

MAX_QUESTION_CHARS = 2000  # a question longer than this is a paste, not a question
MAX_LIST = 10  # papers in a search or "more like this" list
CONFIRM_KIND = "confirm"
NUMBERING_KIND = "numbering"
CONFIRM_MINUTES = 10  # a /forget confirmation older than this is not acted on


@dataclass(frozen=True, slots=True)
class Turn:
    """One incoming event with its parsed parts, handed to a command handler."""

    msg: Incoming
    args: str

    @property
    def user(self) -> str:
        """The speaker's user key."""
        return self.msg.speaker.user_key

    @property
    def place(self) -> Place:
        """Where it was said."""
        return self.msg.place


Handler = Callable[["ChatController", Turn], Awaitable[list[Reply]]]


@dataclass(frozen=True, slots=True)
class Command:
    """One command: its handler, where it works, whether it needs an admin, and its help line."""

    handler: Handler
    usage: str
    help: str
    where: str = "any"  # any | dm | channel
    admin: bool = False


def _text(text: str, *, ephemeral: bool = False, choices: tuple[Choice, ...] = ()) -> list[Reply]:
    return [TextReply(text, choices=choices, ephemeral=ephemeral)]


def _has_words(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


def command_label(msg: Incoming) -> str:
    """What kind of turn `msg` is, for the log: ``/ask``, ``button:up`` or ``text``; never the words typed (a
    question or a profile is the member's, and an unknown command is logged as ``/unknown``)."""
    if msg.button:
        kind = msg.button[len(BUTTON_PREFIX) :].partition(":")[0] if msg.button.startswith(BUTTON_PREFIX) else ""
        return f"button:{kind if kind in (*PAPER_ACTIONS, 'c') else 'other'}"
    if msg.command:
        name = msg.command.lower().lstrip("/")
        known = name in COMMANDS or name in ALIASES or name in onboarding.FLOW_COMMANDS or name in ("skip", "back")
        return f"/{name if known else 'unknown'}"
    return "text"


def log_turn(command: str, place: Place, outcome: str, started: float) -> None:
    """The one log line of a chat command (also for the few a front end answers itself, such as Discord's sync):
    `outcome` is ok, refused or error, `started` its `time.monotonic()` start."""
    # a DM's chat id is the member's own id: logs name the platform only, so /forget leaves no trace of who spoke
    target = f"{place.platform}:dm" if place.is_dm else place.key
    log_event(
        log,
        "chat command",
        event="chat",
        command=command,
        target=target,
        outcome=outcome,
        duration_ms=elapsed_ms(started),
    )


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
            return replies
        except InputError as exc:
            outcome = "refused"
            return _text(str(exc), ephemeral=True)
        finally:
            label = command_label(msg)
            if replies or outcome != "ok" or label != "text":  # channel chatter that is not for us is not a turn
                log_turn(label, msg.place, outcome, started)

    async def greet(self, speaker: Speaker, place: Place) -> list[Reply]:
        """What someone opening a conversation sees (the console's start, Telegram's /start in a DM): an unfinished
        onboarding resumed, a new one for someone without a profile, else a welcome back."""
        started, outcome = time.monotonic(), "error"
        try:
            replies = await self._greet(speaker, place)
            outcome = "ok"
            return replies
        finally:
            log_turn("/start", place, outcome, started)

    async def _greet(self, speaker: Speaker, place: Place) -> list[Reply]:
        async with self.core.user_locks("chat|" + speaker.user_key):
            resumed = await onboarding.resume(self.core, speaker.user_key)
            if resumed is not None:
                return [await self._onboarding_reply(resumed)]
            if place.is_dm and await self.member_profile(speaker.user_key) is None:
                started = await onboarding.start(self.core, speaker.user_key, speaker.display_name)
                return [await self._onboarding_reply(started)]
            return _text("Welcome back! /digest shows your personal digest, /help lists everything.")

    async def remember_message(self, place: Place, message_id: str, reply: Reply) -> None:
        """Note the platform id of a sent answer, so a reply to it continues its question context."""
        if isinstance(reply, AnswerReply) and reply.context_id and message_id:
            await self.core.repo.remember_bot_message(place.key, str(message_id), reply.context_id)

    # --- routing ---

    async def _route(self, msg: Incoming) -> list[Reply]:
        if msg.button:
            return await self._button(msg)
        if msg.command:
            return await self._command(msg)
        user, place = msg.speaker.user_key, msg.place
        text = msg.text
        if await self.core.repo.chat_state(user, CONFIRM_KIND):
            return await self._confirm(Turn(msg, text.strip()))
        if await onboarding.is_active(self.core, user):
            return [await self._onboarding_reply(await onboarding.handle(self.core, user, text))]
        if await setup.load(self.core, user, place) is not None:
            return [await setup.answer(self.core, user, place, text, msg.attachment)]
        if not text.strip() and msg.attachment is None:
            return []
        if place.is_dm:
            if await self.core.repo.get_profile(profile_owner(user)) is None and not text.strip().endswith("?"):
                reply = await onboarding.start(self.core, user, msg.speaker.display_name)
                return [await self._onboarding_reply(reply)]
            return await self._ask(Turn(msg, text))
        if msg.reply_to and await self.core.repo.bot_message_context(place.key, msg.reply_to):
            return await self._ask(Turn(msg, text))
        return []

    async def _command(self, msg: Incoming) -> list[Reply]:
        name = msg.command.lower().lstrip("/")
        user = msg.speaker.user_key
        # a flow waiting for an answer gets its own commands (/skip, /back, /cancel, /status, /help, /edit)
        if name in onboarding.FLOW_COMMANDS and await onboarding.is_active(self.core, user):
            reply = await onboarding.handle(self.core, user, f"/{name} {msg.args}".strip())
            return [await self._onboarding_reply(reply)]
        if name in ("skip", "back") and await setup.load(self.core, user, msg.place) is not None:
            return [await setup.answer(self.core, user, msg.place, f"/{name}", msg.attachment)]
        if name == "cancel":
            return await self._cancel(Turn(msg, msg.args))
        command = COMMANDS.get(name) or COMMANDS.get(ALIASES.get(name, ""))
        if command is None:
            return _text(f"I don't know /{name[:30]}. {self._help_line(msg)}", ephemeral=True)
        if command.where == "dm" and not msg.place.is_dm:
            return _text(f"/{name} works in a direct message with me; open a DM and send it there.", ephemeral=True)
        if command.where == "channel" and msg.place.is_dm and msg.place.platform != "console":
            # the console has no channels: the terminal is its one channel, set up like any other
            return _text(f"/{name} is for the channel or group that gets the digest; run it there.", ephemeral=True)
        if command.admin and not msg.speaker.is_admin:
            return _text(f"/{name} is for the admins of this place (on Discord: Manage Server).", ephemeral=True)
        return await command.handler(self, Turn(msg, msg.args.strip()))

    async def _button(self, msg: Incoming) -> list[Reply]:
        value = msg.button
        if not value.startswith(BUTTON_PREFIX):
            return []
        kind, _, rest = value[len(BUTTON_PREFIX) :].partition(":")
        if kind in PAPER_ACTIONS:
            turn = Turn(msg, rest)
            return await {"up": _up, "down": _down, "more": _more, "why": _why}[kind](self, turn)
        if kind == "c":
            step, _, number = rest.rpartition(":")
            return await self._choice(msg, step, number)
        return _text("That button is from an older version of paperscout; send the command instead.", ephemeral=True)

    async def _choice(self, msg: Incoming, step: str, number: str) -> list[Reply]:
        user, place = msg.speaker.user_key, msg.place
        if step.startswith("setup-"):
            draft = await setup.load(self.core, user, place)
            if draft is None or f"setup-{draft.step}" != step:
                return _text("That button belongs to an earlier question.", ephemeral=True)
            return [await setup.answer(self.core, user, place, number, None)]
        if step == "forget":
            return await self._confirm(Turn(msg, "yes" if number == "1" else "no"))
        current = await onboarding.current_step(self.core, user)
        if current != step:
            return _text("That button belongs to an earlier question; answer the latest one.", ephemeral=True)
        return [await self._onboarding_reply(await onboarding.handle(self.core, user, number))]

    def _help_line(self, msg: Incoming) -> str:
        return "/help lists what I can do."

    # --- flows that span turns ---

    async def _onboarding_reply(self, reply: onboarding.Reply) -> TextReply:
        choices = tuple(Choice(choice.label, choice_button(reply.step, n)) for n, choice in enumerate(reply.choices, 1))
        text = reply.text + ("\n\nTry /digest to see your personal digest." if reply.saved else "")
        return TextReply(text, cards=reply.cards, choices=choices)

    async def _cancel(self, turn: Turn) -> list[Reply]:
        user = turn.user
        if await self.core.repo.chat_state(user, CONFIRM_KIND):
            await self.core.repo.save_chat_state(user, CONFIRM_KIND, "")
            return _text("Kept everything.")
        if await onboarding.is_active(self.core, user):
            return [await self._onboarding_reply(await onboarding.handle(self.core, user, "/cancel"))]
        if await setup.cancel(self.core, user, turn.place):
            return _text("Setup cancelled; nothing was changed.")
        return _text("Nothing to cancel.", ephemeral=True)

    async def _confirm(self, turn: Turn) -> list[Reply]:
        stored = await self.core.repo.chat_state(turn.user, CONFIRM_KIND)
        await self.core.repo.save_chat_state(turn.user, CONFIRM_KIND, "")
        pending = json.loads(stored) if stored else {}
        at = dt.datetime.fromisoformat(pending.get("at", "2000-01-01T00:00:00+00:00"))
        fresh = dt.datetime.now(dt.UTC) - at <= dt.timedelta(minutes=CONFIRM_MINUTES)
        # '1' is the number of the "Yes" choice, which is how a terminal presses it
        said_yes = turn.args.strip().lower() in {"yes", "y", "1", "/forget yes"}
        if pending.get("action") == "forget" and fresh and said_yes:
            return await self._forget_now(turn.user)
        if pending and not fresh:
            return _text("That confirmation expired; send /forget again if you still want it.")
        return _text("Kept everything.")

    async def _forget_now(self, user: str) -> list[Reply]:
        counts = await forget_user(self.core, user)
        return _text(
            f"Deleted your profile ({counts.get('profiles', 0)}), ratings ({counts.get('feedback', 0)}) and settings "
            f"({counts.get('users', 0)}). Nothing about you is stored any more; /start begins anew."
        )

    # --- shared pieces ---

    async def today(self) -> dt.date:
        """The stored announcement day 'today' means; InputError when nothing is stored yet."""
        day = await stored_today(self.core)
        if day is None:
            raise InputError("No papers are stored yet; an admin runs `paperscout ingest` (or waits for the schedule).")
        return day

    async def member_profile(self, user: str) -> Profile | None:
        """The speaker's personal profile, if they made one."""
        return await self.core.repo.get_profile(profile_owner(user))

    async def save_numbering(self, user: str, views: list[PaperView] | tuple[PaperView, ...]) -> None:
        """Remember which paper each number of the last list shown to `user` was, for '/up 3'."""
        ids = [v.id for v in views]
        await self.core.repo.save_chat_state(user, NUMBERING_KIND, json.dumps(ids) if ids else "")

    async def paper_from_arg(self, user: str, arg: str) -> Paper:
        """The paper '3' (of the speaker's last list) or an arXiv id in any common form names."""
        arg = arg.strip()
        if not arg:
            raise InputError("Which paper? Give its number in your last list or its arXiv id, e.g. 2505.17639.")
        if arg.isascii() and arg.isdigit():
            stored = await self.core.repo.chat_state(user, NUMBERING_KIND)
            ids = json.loads(stored) if stored else []
            if not 1 <= int(arg) <= len(ids):
                shown = f"1 to {len(ids)}" if ids else "a number after /digest or /search"
                raise InputError(f"Which paper? Use {shown}, or an arXiv id, e.g. 2505.17639.")
            found = await self.core.repo.get_papers([ids[int(arg) - 1]])
            if not found:
                raise InputError("That paper is no longer stored.")
            return found[0]
        try:
            split_arxiv_id(arg)
        except InvalidPaperId:
            raise InputError(f"Not a paper number or arXiv id: {arg[:40]!r} (e.g. 3, or 2505.17639).") from None
        return await stored_paper(self.core, arg)

    async def _ask(self, turn: Turn) -> list[Reply]:
        question = turn.args.strip()
        if not question:
            return _text("Ask something after /ask, e.g. /ask what MoE papers this week?", ephemeral=True)
        if len(question) > MAX_QUESTION_CHARS:
            return _text(
                f"That question is {len(question):,} characters; questions are limited to {MAX_QUESTION_CHARS:,}.",
                ephemeral=True,
            )
        if not _has_words(question):
            return _text("I need words to search for, e.g. 'what MoE papers this week?'", ephemeral=True)
        return [await self.answer(turn, question)]

    async def answer(self, turn: Turn, question: str) -> AnswerReply:
        """Answer a question from stored papers in the speaker's context (a reply continues the replied answer's)."""
        from bot.questions.rag import ask

        place, user = turn.place, turn.user
        context = place.key + "|" + user if not place.is_dm else user
        if turn.msg.reply_to:
            context = await self.core.repo.bot_message_context(place.key, turn.msg.reply_to) or context
        profile = await self.member_profile(user)
        answer = await ask(
            self.core, question, today=await self.today(), conversation_id=context, profile=profile, asker=user
        )
        text = answer.text
        if not answer.citations:
            text += "\n" + await stored_days_note(self.core)
        views = tuple(paper_view(p, number=n) for n, p in enumerate(answer.citations, 1))
        await self.save_numbering(user, list(views))
        return AnswerReply(text, views, answer.window, context_id=context, usage_line=usage_line(answer.usage))

    def help_text(self, msg: Incoming) -> str:
        """The commands that work where `msg` was sent, for this speaker."""
        lines = ["What I can do:"]
        for name, command in COMMANDS.items():
            if command.admin and not msg.speaker.is_admin:
                continue
            if command.where == "dm" and not msg.place.is_dm:
                continue
            if command.where == "channel" and msg.place.is_dm and msg.place.platform != "console":
                continue
            lines.append(f"  /{name}{(' ' + command.usage) if command.usage else ''}: {command.help}")
        if msg.place.is_dm:
            lines.append("Any message that is not a command is a question about the stored papers.")
        else:
            lines.append("Reply to one of my answers to ask a follow-up.")
        return "\n".join(lines)


# --- command handlers (thin: parse the argument, call the core, shape the reply) ---


async def _help(ctl: ChatController, turn: Turn) -> list[Reply]:
    return _text(ctl.help_text(turn.msg), ephemeral=True)


async def _start(ctl: ChatController, turn: Turn) -> list[Reply]:
    reply = await onboarding.start(ctl.core, turn.user, turn.msg.speaker.display_name)
    return [await ctl._onboarding_reply(reply)]


async def _edit(ctl: ChatController, turn: Turn) -> list[Reply]:
    return [await ctl._onboarding_reply(await onboarding.begin_edit(ctl.core, turn.user, turn.args))]


async def _profile(ctl: ChatController, turn: Turn) -> list[Reply]:
    shown = await onboarding.show_profile(ctl.core, turn.user)
    return _text(shown or "You have no profile yet; /start makes one.", ephemeral=True)


async def _digest(ctl: ChatController, turn: Turn) -> list[Reply]:
    word = turn.args.lower()
    if not turn.place.is_dm or word in ("now", "preview", "pause", "resume"):  # the console's channel is a DM
        return await _channel_digest(ctl, turn, word)
    if word not in ("", "daily", "weekly", "today"):
        return _text("Use /digest or /digest weekly.", ephemeral=True)
    if await onboarding.is_active(ctl.core, turn.user):
        return _text("Let's finish your profile first (or /cancel it).")
    if await ctl.member_profile(turn.user) is None:
        return _text("You have no profile yet; /start makes one (about two minutes).")
    day = await ctl.today()
    digest = await personal_digest(ctl.core, turn.user, day, weekly=word == "weekly")
    view = digest_view(digest)
    await ctl.save_numbering(turn.user, view.items)
    replies: list[Reply] = [DigestReply(view)]
    if view.items:
        replies.append(TextReply("Rate with the buttons or /up N, /down N; your next digest learns from it."))
    return replies


async def _channel_digest(ctl: ChatController, turn: Turn, word: str) -> list[Reply]:
    if not turn.msg.speaker.is_admin:
        return _text("/digest in a channel is for its admins; in a DM with me, /digest is your own.", ephemeral=True)
    if word == "pause":
        return await _pause(ctl, turn)
    if word == "resume":
        return await _resume(ctl, turn)
    found = await ctl.core.repo.target_at(turn.place.platform, turn.place.chat_id)
    if found is None:
        return _text("This channel has no digest yet; /setup makes one.", ephemeral=True)
    if word == "now":
        return await _post_now(ctl, *found)
    if word not in ("", "preview"):
        return _text("In a channel: /digest now, preview, pause or resume.", ephemeral=True)
    from bot.digests.build import build_digest

    target, profile = found
    day = await ctl.today()
    digest = await build_digest(
        ctl.core, profile, day, size=target.digest_size, categories=target.categories, target=target.key
    )
    return [
        TextReply("Preview (not posted, and it does not count as today's post):", ephemeral=True),
        DigestReply(digest_view(digest)),
    ]


async def _post_now(ctl: ChatController, target: Target, profile: Profile) -> list[Reply]:
    """Post the channel's digest of today through the ledger, so the scheduled post knows it went out."""
    if ctl.poster is None:
        return _text("Posting needs the running bot (paperscout run); /digest preview shows it here.", ephemeral=True)
    from bot.digests.delivery import deliver_digest

    day = await ctl.today()
    result = await deliver_digest(ctl.core, ctl.poster, target, profile, day)
    notes = {
        "sent": f"Posted the digest of {day.isoformat()} ({result.detail}).",
        "already-sent": f"The digest of {day.isoformat()} was already posted here.",
        "failed": f"The digest could not be posted: {result.detail[:300]}",
    }
    return _text(notes.get(result.status, result.status), ephemeral=True)


async def _react(ctl: ChatController, turn: Turn, value: int) -> list[Reply]:
    paper = await ctl.paper_from_arg(turn.user, turn.args)
    await learn.record_reaction(ctl.core, turn.user, paper.id, value)
    thumb = "👍" if value > 0 else "👎"
    hint = "" if await ctl.member_profile(turn.user) else " (/start sets up a profile that learns from it.)"
    return _text(f"{thumb} noted for {paper.title}; your next digest learns from it.{hint}", ephemeral=True)


async def _up(ctl: ChatController, turn: Turn) -> list[Reply]:
    return await _react(ctl, turn, 1)


async def _down(ctl: ChatController, turn: Turn) -> list[Reply]:
    return await _react(ctl, turn, -1)


async def _more(ctl: ChatController, turn: Turn) -> list[Reply]:
    from bot.ranking.similar import similar_papers

    paper = await ctl.paper_from_arg(turn.user, turn.args)
    profile = await ctl.member_profile(turn.user)
    found = await similar_papers(
        ctl.core, paper, user_key=turn.user if profile else "", profile=profile, limit=MAX_LIST
    )
    if not found:
        return _text(f"I found nothing stored like {paper.title}.", ephemeral=True)
    tldrs = await ctl.core.repo.tldrs([s.paper.id for s in found])
    items = tuple(paper_view(s.paper, tldr=tldrs.get(s.paper.id, ""), number=n) for n, s in enumerate(found, 1))
    shaped = " (ordered with your profile)" if profile else ""
    view = DigestView(
        title=f"More like: {paper.title}",
        day=paper.announced,
        scanned=len(found),
        items=items,
        subtitle=f"The {len(items)} stored papers nearest to {paper.id}{shaped}.",
    )
    await ctl.save_numbering(turn.user, items)
    return [DigestReply(view)]


async def _why(ctl: ChatController, turn: Turn) -> list[Reply]:
    paper = await ctl.paper_from_arg(turn.user, turn.args)
    profile = await ctl.member_profile(turn.user)
    if profile is None and not turn.place.is_dm:
        found = await ctl.core.repo.target_at(turn.place.platform, turn.place.chat_id)
        profile = found[1] if found else None
    if profile is None:
        return _text("/why explains a paper's rank for your profile; /start makes one.", ephemeral=True)
    return _text(await explain_paper(ctl.core, paper.id, profile), ephemeral=True)


async def _ask_command(ctl: ChatController, turn: Turn) -> list[Reply]:
    return await ctl._ask(turn)


async def _search(ctl: ChatController, turn: Turn) -> list[Reply]:
    from bot.questions.search import search_papers

    words = turn.args.strip()
    if not _has_words(words) or len(words) > MAX_QUESTION_CHARS:
        return _text("Search for some words, e.g. /search sparse attention", ephemeral=True)
    hits = await search_papers(ctl.core, words, until=await ctl.today(), limit=MAX_LIST, cut=True)
    if not hits:
        return _text(f"No stored paper matches '{words[:80]}'. {await stored_days_note(ctl.core)}")
    tldrs = await ctl.core.repo.tldrs([h.paper.id for h in hits])
    cards = tuple(paper_view(h.paper, tldr=tldrs.get(h.paper.id, ""), number=n) for n, h in enumerate(hits, 1))
    await ctl.save_numbering(turn.user, cards)
    return [TextReply(f"{len(cards)} stored papers match '{words[:80]}':", cards=cards)]


async def _paper(ctl: ChatController, turn: Turn) -> list[Reply]:
    paper = await ctl.paper_from_arg(turn.user, turn.args)
    tldr = (await ctl.core.repo.tldrs([paper.id])).get(paper.id, "")
    card = paper_view(paper, tldr=tldr, number=1)
    await ctl.save_numbering(turn.user, [card])
    return [TextReply("", cards=(card,))]


async def _mydigest(ctl: ChatController, turn: Turn) -> list[Reply]:
    user = turn.user
    if await ctl.member_profile(user) is None:
        return _text("You have no profile yet; /start makes one, then /mydigest daily turns your digest on.")
    stored = await ctl.core.repo.get_user(user)
    if not turn.args:
        return _text(
            describe_settings(stored)
            + "\nChange it with /mydigest off, /mydigest daily 08:30 Europe/Berlin or /mydigest weekly Monday 9am."
        )
    mode = stored.digest_mode if stored else "off"
    post_time = stored.post_time if stored else "09:00"
    zone = stored.timezone if stored else "UTC"
    weekday = stored.weekly_day if stored else 0
    try:
        for word in turn.args.split():
            lowered = word.lower()
            if lowered in ("off", "daily", "weekly"):
                mode = lowered
            elif any(ch.isdigit() for ch in lowered):
                post_time = parse_post_time(word)
            elif lowered[:3] in {d.lower()[:3] for d in WEEKDAYS}:
                weekday = parse_weekday(word)
            else:
                zone = parse_timezone(word)
    except SettingError as exc:
        hint = f" Did you mean {', '.join(exc.suggestions)}?" if exc.suggestions else ""
        return _text(f"{exc}.{hint}", ephemeral=True)
    await ctl.core.repo.save_user_settings(
        user, digest_mode=mode, post_time=post_time, timezone=zone, weekly_day=weekday
    )
    return _text("Saved. " + describe_settings(await ctl.core.repo.get_user(user)))


async def _export(ctl: ChatController, turn: Turn) -> list[Reply]:
    data = await export_user(ctl.core, turn.user)
    body = json.dumps(data, ensure_ascii=False, indent=2).encode("utf-8")
    name = "paperscout-export.json"
    return [FileReply(name, body, "application/json", "Everything paperscout stores about you.")]


async def _forget(ctl: ChatController, turn: Turn) -> list[Reply]:
    if turn.args.lower() == "yes":
        return await ctl._forget_now(turn.user)
    pending = {"action": "forget", "at": dt.datetime.now(dt.UTC).isoformat()}
    await ctl.core.repo.save_chat_state(turn.user, CONFIRM_KIND, json.dumps(pending))
    return _text(
        "This deletes your profile, your ratings (and what was learned from them), your digest settings, any "
        "unfinished setup and your last questions. Type yes to confirm, anything else keeps it all.",
        choices=(
            Choice("Yes, delete it all", choice_button("forget", 1)),
            Choice("No, keep it", choice_button("forget", 2)),
        ),
    )


async def _setup(ctl: ChatController, turn: Turn) -> list[Reply]:
    return [await setup.begin(ctl.core, turn.user, turn.place, turn.msg.options, turn.msg.attachment)]


async def _settings(ctl: ChatController, turn: Turn) -> list[Reply]:
    described = await setup.describe_target(ctl.core, turn.place)
    return _text(described or "This channel has no digest yet; /setup makes one.")


async def _set_paused(ctl: ChatController, turn: Turn, paused: bool) -> list[Reply]:
    found = await ctl.core.repo.target_at(turn.place.platform, turn.place.chat_id)
    if found is None or found[0].id is None:
        return _text("This channel has no digest yet; /setup makes one.", ephemeral=True)
    target = found[0]
    if target.paused == paused:
        return _text("The digest is already " + ("paused." if paused else "running."), ephemeral=True)
    await ctl.core.repo.set_target_paused(target.id, paused)
    if paused:
        return _text("Paused: no digest is posted here until /resume.")
    return _text(f"Resumed: the next digest comes at {target.post_time} ({target.timezone}).")


async def _pause(ctl: ChatController, turn: Turn) -> list[Reply]:
    return await _set_paused(ctl, turn, True)


async def _resume(ctl: ChatController, turn: Turn) -> list[Reply]:
    return await _set_paused(ctl, turn, False)


COMMANDS: dict[str, Command] = {
    "help": Command(_help, "", "this list"),
    "start": Command(_start, "", "set up your personal profile (or go through it again)", where="dm"),
    "digest": Command(
        _digest,
        "[weekly] (in a channel, its admins: now|preview|pause|resume)",
        "your personal digest of the latest day, numbered for /up and /down",
    ),
    "up": Command(_up, "N|ID", "thumbs up for paper N of your last list (or an arXiv id); teaches your profile"),
    "down": Command(_down, "N|ID", "thumbs down, likewise"),
    "more": Command(_more, "N|ID", "stored papers like that one, ordered with your profile"),
    "ask": Command(_ask_command, "QUESTION", "a question answered from stored papers, with citations"),
    "search": Command(_search, "WORDS", "stored papers matching words"),
    "paper": Command(_paper, "N|ID", "one paper's card: title, authors, TL;DR, link"),
    "why": Command(_why, "N|ID", "why a paper ranks where it does for your profile"),
    "profile": Command(_profile, "", "what your profile says"),
    "edit": Command(_edit, "FIELD", "change one answer: interests, avoid, authors, categories, ratings, digest", "dm"),
    "mydigest": Command(_mydigest, "[off|daily|weekly] [TIME] [ZONE]", "your personal digest's schedule"),
    "export": Command(_export, "", "everything stored about you, as a JSON file"),
    "forget": Command(_forget, "", "delete everything stored about you (asks first)"),
    "setup": Command(_setup, "", "set up this channel's daily digest", where="channel", admin=True),
    "settings": Command(_settings, "", "this channel's digest settings", where="channel"),
    "pause": Command(_pause, "", "pause this channel's digest", where="channel", admin=True),
    "resume": Command(_resume, "", "resume it", where="channel", admin=True),
}
ALIASES = {"interests": "start", "similar": "more", "like": "more", "q": "ask", "find": "search", "me": "profile"}
