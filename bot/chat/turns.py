"""One turn of a conversation as a command handler sees it, and the pieces every handler shares.

A handler is `async (Turn) -> list[Reply]`: it parses the turn's argument, calls the core and shapes the reply. The
pieces here are the ones several handlers need: the stored day 'today' means, the speaker's profile, the
numbering of the last list shown (for '/up 3') and the one log line of a turn.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.chat.messages import Choice, Incoming, PaperView, Place, Reply, TextReply
from bot.days import stored_today
from bot.errors import InputError, PaperscoutError, thread_refused
from bot.members.settings import profile_owner
from bot.models import InvalidPaperId, Paper, Profile, split_arxiv_id
from bot.ops.logs import elapsed_ms, log_event
from bot.store.lookup import stored_paper

if TYPE_CHECKING:  # the digest poster is only needed for /digest now
    from bot.core import Core
    from bot.digests.delivery import Poster

log = logging.getLogger("bot.chat.controller")  # one logger name for every chat turn, as before the split

NUMBERING_KIND = "numbering"
FAILED = "Something went wrong on my side (ref {ref}); it is logged. Try again in a moment."


@dataclass(frozen=True, slots=True)
class Turn:
    """One incoming event with its parsed argument, the core it runs against and the front end's digest poster."""

    core: Core
    msg: Incoming
    args: str
    poster: Poster | None = None

    @property
    def user(self) -> str:
        """The speaker's user key."""
        return self.msg.speaker.user_key

    @property
    def place(self) -> Place:
        """Where it was said."""
        return self.msg.place


Handler = Callable[[Turn], Awaitable[list[Reply]]]


def text_reply(text: str, *, ephemeral: bool = False, choices: tuple[Choice, ...] = ()) -> list[Reply]:
    """A reply of one text message."""
    return [TextReply(text, choices=choices, ephemeral=ephemeral)]


def has_words(text: str) -> bool:
    """True when `text` has at least one letter or digit."""
    return any(ch.isalnum() for ch in text)


async def today(core: Core) -> dt.date:
    """The stored announcement day 'today' means; InputError when nothing is stored yet."""
    day = await stored_today(core)
    if day is None:
        raise InputError("No papers are stored yet; an admin runs `paperscout ingest` (or waits for the schedule).")
    return day


async def member_profile(core: Core, user: str) -> Profile | None:
    """The speaker's personal profile, if they made one."""
    return await core.repo.get_profile(profile_owner(user))


async def save_numbering(core: Core, user: str, views: list[PaperView] | tuple[PaperView, ...]) -> None:
    """Remember which paper each number of the last list shown to `user` was, for '/up 3'."""
    ids = [v.id for v in views]
    await core.repo.save_chat_state(user, NUMBERING_KIND, json.dumps(ids) if ids else "")


async def numbered_ids(core: Core, user: str) -> list[str]:
    """The paper ids of the last list shown to `user`, in the order of their numbers."""
    stored = await core.repo.chat_state(user, NUMBERING_KIND)
    return json.loads(stored) if stored else []


async def paper_from_arg(core: Core, user: str, arg: str) -> Paper:
    """The paper '3' (of the speaker's last list) or an arXiv id in any common form names."""
    arg = arg.strip()
    if not arg:
        raise InputError("Which paper? Give its number in your last list or its arXiv id, e.g. 2505.17639.")
    if arg.isascii() and arg.isdigit():
        ids = await numbered_ids(core, user)
        if not 1 <= int(arg) <= len(ids):
            shown = ("1" if len(ids) == 1 else f"1 to {len(ids)}") if ids else "a number after /digest or /search"
            raise InputError(f"Which paper? Use {shown}, or an arXiv id, e.g. 2505.17639.")
        found = await core.repo.get_papers([ids[int(arg) - 1]])
        if not found:
            raise InputError("That paper is no longer stored.")
        return found[0]
    try:
        split_arxiv_id(arg)
    except InvalidPaperId:
        raise InputError(f"Not a paper number or arXiv id: {arg[:40]!r} (e.g. 3, or 2505.17639).") from None
    return await stored_paper(core.repo, arg)


def failure_line(error: BaseException, what: str) -> str:
    """The one line a member reads for a failure nobody foresaw: a short reference, logged with `what` failed and the
    traceback (for a thread the system refused, what the operator can do instead), so the operator finds one from
    the other."""
    ref = secrets.token_hex(3)
    refused = thread_refused(error)
    if refused is None:
        log.error("%s failed (ref %s)", what, ref, exc_info=error)
    else:  # the machine is out of threads: the limit and the remedy help, a traceback would not
        log.error("%s failed (ref %s): %s", what, ref, refused)
    return FAILED.format(ref=ref)


def told_as_is(error: BaseException) -> bool:
    """Whether a member reads `error`'s own words: our errors say what failed in words meant for people (a source
    down, a state to repair), except a refused thread, whose limits and settings are the operator's business."""
    return isinstance(error, PaperscoutError) and thread_refused(error) is None


def member_line(error: BaseException, what: str) -> str:
    """What a member is told of a failure: our own error's line (`told_as_is`), else `failure_line`'s reference."""
    return str(error) if told_as_is(error) else failure_line(error, what)


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


@dataclass
class Outcome:
    """How a logged turn ended: 'ok' unless it raised ('error') or its block says otherwise ('refused')."""

    value: str = "ok"


@contextlib.contextmanager
def logged_turn(command: str, place: Place) -> Iterator[Outcome]:
    """The block as one turn of `command` in `place`: logged when it ends (`log_turn`) with its `Outcome`."""
    started, outcome = time.monotonic(), Outcome()
    try:
        yield outcome
    except BaseException:
        outcome.value = "error"
        raise
    finally:
        log_turn(command, place, outcome.value, started)
