"""The front-end contract: what a chat platform plugs into, how it starts (`starting`), and the registry the core finds
front ends in.

A front end is a package (or module) under `bot/frontends/` whose top level defines ``FRONT_END = FrontEnd(...)``
and imports nothing heavy: the platform's library is imported inside `start` and `check` only. Registering a new
front end is exactly that; `paperscout run` (`bot.ops.runner`), `paperscout doctor` (`bot.ops.doctor`) and the chat
wording discover it through `front_ends()`, so no core module names a platform.

What a front end gets from the core, so it stays thin:
- `bot.chat.ChatController` for every conversation (it hands in `Incoming`, renders the replies);
- `bot.chat.driver.ChatDriver`, the base of the front end itself: the replies as packed pages sent in order, a
  button's answer routed, a file only to a DM, a send failure mapped to the core's retry/gone/moved policy, any
  failure while answering told to the member in one line with a logged reference (`reporting`), and the digest
  poster (`bot.digests.poster.PlatformPoster`: fan-out over the ledger, pacing, retries); the front end writes a few
  primitives (send a message, what an error means in `bot.chat.refusals`' terms, style a page); a member's file is
  handed over as an `Upload` and read only within a profile's size bound (`bot.chat.setup.read_profile_file`);
- `starting` (here) around its `start`'s log-in: a platform unreachable at start is one line, and what was started
  is undone;
- `bot.chat.answering` for its answer to a command or a press: its own (`Interaction`: acknowledge, send a page, for
  the member alone or not, withdraw) or `Posts` (plain posts, a way to show a page to the member alone, a toast);
- `bot.views.layout` for the fields, order, chunking and packing of papers, answers and lists (it only styles);
- `FrontEnd.names` and `admin_words`: how its members invoke each command of `bot.chat.commands.COMMANDS` and
  who counts as an admin there, so every reply names the platform's own commands (`wording`).
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import pkgutil
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Hashable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from bot.errors import SourceUnavailable
from bot.ops.logs import public_url

if TYPE_CHECKING:
    from bot.config import Settings
    from bot.core import Core
    from bot.digests.delivery import Poster

log = logging.getLogger(__name__)

FRONT_ENDS_PACKAGE = "bot.frontends"
K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Running(Protocol):
    """A started front end: its digest poster and how to stop it."""

    @property
    def poster(self) -> Poster:
        """Posts digests to this platform."""
        ...

    async def stop(self) -> None:
        """Stop receiving updates and close connections."""
        ...


@dataclass(frozen=True)
class FrontEnd:
    """One chat platform as the core sees it.

    - `platform`: the key in user keys and targets ('platform:id'); `title`: its name for people;
    - `enabled(settings)`: whether `paperscout run` starts it (its token is set); a `fallback` front end starts when
      no other is enabled (the console prints digests);
    - `start(core, settings)`: log in and start receiving, inside the running loop; returns the `Running` handle;
    - `check(settings, offline)`: doctor's check of its configuration (a `bot.ops.doctor.Finding`), or None;
    - `names`: the platform's own way to run a core command where it differs ('start' -> '/interests',
      'pause' -> '/digest pause'); a command mapped to '' does not exist there and is left out of /help;
    - `prefix`: how its commands begin ('/' or Slack's '/paperscout '), for every command `names` does not name;
    - `admin_words`: who administers a place there, for refusals ("the server's admins (Manage Server)");
    - `setup_hint`: what an admin is told, for them alone, when /setup goes step by step in a shared place (how to
      answer there), '' for nothing;
    - `forms`: its commands show their options as a form's named fields, so /help describes a command's form
      (`Command.usage_on`: its `form`'s fields) instead of the line typed where there is none;
    - `written_as_place`: the one line a place speaking as itself (`bot.chat.messages.Incoming.by_place`) reads when
      it runs a command that is a member's own (`{command}`: that command), in the platform's words of how it happens.
    """

    platform: str
    title: str
    start: Callable[[Core, Settings], Awaitable[Running]] | None = None
    enabled: Callable[[Settings], bool] = lambda settings: False
    check: Callable[[Settings, bool], Awaitable[Any]] | None = None
    names: Mapping[str, str] = field(default_factory=dict)
    admin_words: str = "the admins of this place"
    setup_hint: str = ""
    fallback: bool = False
    prefix: str = "/"
    forms: bool = False
    written_as_place: str = (
        "I can't tell who wrote that, so I have no one to send a direct message to: run {command} again as yourself,"
        " or in a direct message with me."
    )

    def command(self, name: str) -> str:
        """How a member runs core command `name` here (`prefix` + name unless `names` says otherwise)."""
        return self.names.get(name, f"{self.prefix}{name}")


def unreachable(title: str, url: str, error: BaseException) -> SourceUnavailable:
    """A platform that cannot be reached at start, in one line (not a traceback of three chained errors)."""
    reason = (str(error) or type(error).__name__).splitlines()[0]
    return SourceUnavailable(f"cannot reach {title} at {public_url(url)}: {reason[:200]}")


@contextlib.asynccontextmanager
async def starting(
    title: str,
    url: str,
    network: tuple[type[BaseException], ...],
    undo: Callable[[], Awaitable[object]] | None = None,
) -> AsyncIterator[None]:
    """A front end starting (logging in, connecting): anything raised in the block first undoes what was started
    (`undo`), and a failure of the network (`network`: what the platform's library raises for one) is `unreachable`,
    in one line. An undo that fails too is logged, not raised: the start's own failure is what the operator reads."""
    try:
        yield
    except BaseException as error:
        if undo is not None:
            try:
                await undo()
            except Exception:
                log.warning("%s: undoing the failed start failed too", title, exc_info=True)
        if isinstance(error, network):
            raise unreachable(title, url, error) from None
        raise


PLAIN = FrontEnd(platform="", title="chat")  # the wording of a platform nobody registered (tests, the console)


@cache
def front_ends() -> tuple[FrontEnd, ...]:
    """Every registered front end (each module under `bot/frontends/` that defines `FRONT_END`), by platform."""
    package = importlib.import_module(FRONT_ENDS_PACKAGE)
    found: list[FrontEnd] = []
    for module in pkgutil.iter_modules(package.__path__):
        spec = getattr(importlib.import_module(f"{FRONT_ENDS_PACKAGE}.{module.name}"), "FRONT_END", None)
        if isinstance(spec, FrontEnd):
            found.append(spec)
    return tuple(sorted(found, key=lambda f: f.platform))


def front_end(platform: str) -> FrontEnd:
    """The registered front end of `platform` (`PLAIN` wording when there is none)."""
    return next((f for f in front_ends() if f.platform == platform), PLAIN)


_COMMAND = re.compile(r"(?<![\w/<])/([a-z]+)\b")


def wording(platform: str, text: str, commands: Collection[str] = ()) -> str:
    """`text` (the core's own words) with each '/command' (of `commands`, or named in the platform's `names`) as
    `platform`'s members run it."""
    spec = front_end(platform)
    if not spec.names and spec.prefix == "/":
        return text

    def name(match: re.Match[str]) -> str:
        word = match.group(1)
        return spec.command(word) if word in spec.names or word in commands else match.group(0)

    return _COMMAND.sub(name, text)


class Expiring(Generic[K, V]):
    """What a platform answered (is this member an admin here? their name?), kept for `seconds` so a busy chat asks
    once a minute, not once a message; past `size` entries the expired ones are dropped."""

    def __init__(self, seconds: float, size: int = 4096, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds, self.size, self.clock = seconds, size, clock
        self._entries: dict[K, tuple[float, V]] = {}

    def get(self, key: K) -> V | None:
        """The value kept for `key`, or None when there is none or it expired."""
        entry = self._entries.get(key)
        return entry[1] if entry is not None and entry[0] > self.clock() else None

    def put(self, key: K, value: V) -> V:
        """Keep `value` for `key`; returns it."""
        now = self.clock()
        if len(self._entries) >= self.size:
            self._entries = {k: entry for k, entry in self._entries.items() if entry[0] > now}
        self._entries[key] = (now + self.seconds, value)
        return value
