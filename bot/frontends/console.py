"""The console front end: a terminal renderer of the chat controller, and a `Poster` that prints digests.

`ConsoleChat` reads lines, hands each to `bot.chat.ChatController` as the terminal user (who administers the
terminal, the console's one channel) and prints the structured replies as plain text. It decides nothing: which
command a line is, every flow and all their state live in the controller. Choice buttons are printed numbered;
typing the number is how a terminal presses them (the controller accepts a choice's number as its answer).
"""

from __future__ import annotations

import asyncio
import getpass
import logging
import re
import sys
from collections.abc import Sequence
from typing import TextIO

from bot.chat.controller import ChatController, typed
from bot.chat.messages import (
    AnswerReply,
    DigestReply,
    FileReply,
    Place,
    Reply,
    Speaker,
    is_question_choice,
)
from bot.config import Settings
from bot.core import Core
from bot.digests.poster import PlatformPoster
from bot.frontend import FrontEnd
from bot.models import Digest, Target
from bot.text.safetext import terminal_safe
from bot.views.model import DigestView, digest_view
from bot.views.render import answer_text, digest_text, paper_text

log = logging.getLogger(__name__)

CONSOLE_PLACE = Place(platform="console", chat_id="terminal", is_dm=True, title="the terminal")
QUIT_WORDS = frozenset({"/quit", "/exit"})

_LOGIN = re.compile(r"[^A-Za-z0-9._-]+")


def console_user_key(name: str | None = None) -> str:
    """The user key of the person at this terminal: console:<login name> (or the name given)."""
    if name is None:
        try:
            name = getpass.getuser()
        except (KeyError, OSError):  # no passwd entry in some containers
            name = ""
    login = _LOGIN.sub("", name)[:40]
    return f"console:{login or 'local'}"


def render_reply(reply: Reply) -> str:
    """One controller reply as terminal text."""
    if isinstance(reply, DigestReply):
        view = reply.digest
        text = digest_text(view)
        if any(item.actions for item in view.items):
            text += "/more N for papers like one, /why N for its reasons.\n"
        return text
    if isinstance(reply, AnswerReply):
        return answer_text(reply.text, reply.citations) + (f"\n{reply.usage_line}" if reply.usage_line else "")
    if isinstance(reply, FileReply):
        body = reply.data.decode("utf-8", errors="replace")
        return f"{reply.caption} ({reply.name})\n{body}"
    parts = [reply.text] if reply.text else []
    parts += [paper_text(card, indent="     ") for card in reply.cards]
    parts += [reply.after] if reply.after else []
    # typing a number answers a waiting question; other buttons (Undo) have their command in the text
    choices = [choice for choice in reply.choices if is_question_choice(choice.value)]
    if choices:
        labels = [f"{n}) {choice.label}" for n, choice in enumerate(choices, 1)]
        joined = "   ".join(labels)
        parts.append("  " + joined if len(joined) <= 100 else "\n".join("  " + label for label in labels))
    return "\n".join(parts)


class ConsolePoster(PlatformPoster):
    """Prints digests as plain text: the console channel of `paperscout run` without tokens."""

    platform = "console"

    def __init__(self, stream: TextIO | None = None) -> None:
        super().__init__()
        self.stream = stream or sys.stdout
        self.sent = 0

    def render_digest(self, target: Target, view: DigestView) -> list[str]:
        """The digest as one printed message (a terminal has no length limit)."""
        return [digest_text(view)]

    def digest_messages(self, target: Target, digest: Digest) -> list[object]:
        """One printed message, without buttons (a terminal has none)."""
        return list(self.render_digest(target, digest_view(digest, with_actions=False)))

    async def send(self, target: Target, message: object, position: int, sent: Sequence[str], nonce: str) -> str:
        """Print the message with a separator line naming the target; its id is its running number."""
        self.sent += 1
        self.stream.write(f"--- to {target.key} ---\n{terminal_safe(str(message)).rstrip()}\n")
        self.stream.flush()
        return f"console-{self.sent}"


class ConsoleChat:
    """The terminal session: read a line, hand it to the controller, print the replies; a TTY or a pipe."""

    def __init__(
        self,
        core: Core,
        user_key: str,
        *,
        display_name: str = "",
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
    ) -> None:
        self.core = core
        self.controller = ChatController(core)
        self.speaker = Speaker(user_key=user_key, display_name=display_name, is_admin=True)
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        self.interactive = self.stdin.isatty()

    def say(self, text: str) -> None:
        """Print `text`, cleaned of terminal control sequences (it may hold titles or other people's text)."""
        self.stdout.write(terminal_safe(text).rstrip() + "\n")
        self.stdout.flush()

    def show(self, replies: list[Reply]) -> None:
        """Print the controller's replies, a blank line between them."""
        for reply in replies:
            self.say(render_reply(reply) + "\n")

    async def read(self) -> str | None:
        """The next line typed (None at end of input)."""
        if self.interactive:
            self.stdout.write("> ")
            self.stdout.flush()
        line = await asyncio.to_thread(self.stdin.readline)
        if not line:
            return None
        line = line.rstrip("\r\n")
        if not self.interactive:
            self.say(f"> {line}")  # a piped session reads like a transcript
        return line

    async def run(self) -> int:
        """Greet, then the read-reply loop until /quit or end of input."""
        self.say(f"paperscout console: you are {self.speaker.user_key}. /help lists commands, /quit leaves.")
        if await self.core.repo.count_papers() == 0:
            await self.load_bundled_day()
        self.show(await self.controller.greet(self.speaker, CONSOLE_PLACE))
        while True:
            line = await self.read()
            if line is None:
                self.say("Bye. Anything unfinished is kept; run paperscout console again to continue.")
                return 0
            if line.strip().lower() in QUIT_WORDS:
                self.say("Bye.")
                return 0
            self.show(await self.controller.handle(typed(self.speaker, CONSOLE_PLACE, line)))

    async def load_bundled_day(self) -> None:
        """An empty store gets the bundled real arXiv day, so the console works offline from the first run."""
        from bot.ingest.bundled import DEMO_DAY_FILE, bundled_file
        from bot.ingest.jsonl import read_jsonl
        from bot.ingest.save import store_papers
        from bot.ops.progress import Progress

        papers = read_jsonl([bundled_file(DEMO_DAY_FILE)])
        self.say(
            f"No papers stored yet; loading the bundled arXiv day ({len(papers)} papers) to try things offline. "
            "Embedding them takes about half a minute, once."
        )
        report = await store_papers(self.core, papers, Progress("embedding"))
        self.say(report.line())


async def run_console(core: Core, *, user: str | None = None, stdin: TextIO | None = None) -> int:
    """`paperscout console`: chat with paperscout as `user` (default: the login name)."""
    key = console_user_key(user)
    chat = ConsoleChat(core, key, display_name=key.partition(":")[2], stdin=stdin)
    return await chat.run()


class ConsoleRunning:
    """The console as `paperscout run`'s fallback front end: it prints digests; there is nothing to stop."""

    def __init__(self) -> None:
        self.poster = ConsolePoster()

    async def stop(self) -> None:
        """Nothing to close."""


async def _start(core: Core, settings: Settings) -> ConsoleRunning:
    log.info("the console is the front end (set up a digest with /setup in paperscout console)")
    return ConsoleRunning()


FRONT_END = FrontEnd(platform="console", title="the console", start=_start, fallback=True)
