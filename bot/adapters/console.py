"""The console channel: digests printed to a terminal, and an interactive chat for onboarding and feedback."""

from __future__ import annotations

import asyncio
import getpass
import json
import re
import sys
from typing import TextIO

from bot import learn, onboarding
from bot.core import Core
from bot.errors import InputError
from bot.models import Digest, InvalidPaperId, ScoredPaper, Target, split_arxiv_id
from bot.onboarding import Reply, strip_controls
from bot.rag import ask
from bot.render import answer_text, authors_line, digest_markdown
from bot.users import export_user, forget_user, personal_digest, profile_owner


class ConsolePoster:
    """A `Poster` that writes Markdown to a stream; the offline stand-in for a chat platform."""

    platform = "console"

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stdout
        self.sent = 0

    async def post_digest(self, target: Target, digest: Digest) -> list[str]:
        """Print the digest as Markdown."""
        return await self.send_text(target, digest_markdown(digest))

    async def send_text(self, target: Target, text: str) -> list[str]:
        """Print `text` with a separator line naming the target."""
        self.sent += 1
        self.stream.write(f"--- to {target.key} ---\n{text.rstrip()}\n")
        self.stream.flush()
        return [f"console-{self.sent}"]


# --- the interactive console: onboarding, personal digests and feedback on the terminal ---

_LOGIN = re.compile(r"[^A-Za-z0-9._-]+")

CONSOLE_HELP = """Commands:
  /ask QUESTION      a question about the stored papers, answered with citations ("what MoE papers this week?");
                     any line that is not a command is a question too, and follow-ups keep the context
  /digest [weekly]   your personal digest of the latest stored day (or the last 7 days), papers numbered
  /up N, /down N     thumbs up or down for paper N of the last digest (or an arXiv id); it teaches your profile
  /profile           what your profile says
  /edit FIELD        change one answer: interests, avoid, authors, categories, ratings, digest
  /start             go through the whole profile again
  /export            everything stored about you, as JSON
  /forget            delete everything stored about you
  /help, /quit"""


def terminal_safe(text: str) -> str:
    """Text with terminal escape sequences and control characters removed (newlines and tabs kept)."""
    return strip_controls(text)


def console_user_key(name: str | None = None) -> str:
    """The user key of the person at this terminal: console:<login name> (or the name given)."""
    if name is None:
        try:
            name = getpass.getuser()
        except (KeyError, OSError):  # no passwd entry in some containers
            name = ""
    login = _LOGIN.sub("", name)[:40]
    return f"console:{login or 'local'}"


class ConsoleChat:
    """A terminal chat driving the onboarding state machine and personal digests; works on a TTY or a pipe."""

    def __init__(
        self,
        core: Core,
        user_key: str,
        *,
        display_name: str = "",
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
        size: int = 10,
    ) -> None:
        self.core = core
        self.user_key = user_key
        self.display_name = display_name
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        self.size = size
        self.last_digest: list[ScoredPaper] = []
        self.confirm_forget = False
        self.interactive = self.stdin.isatty()

    def say(self, text: str) -> None:
        """Print `text` (cleaned of terminal control sequences: it may contain titles or user input)."""
        self.stdout.write(terminal_safe(text).rstrip() + "\n")
        self.stdout.flush()

    def show(self, reply: Reply) -> None:
        """Render an onboarding reply: text, paper cards, numbered choices."""
        parts = [reply.text]
        for card in reply.cards:
            paper = card.paper
            lines = [
                f"  [{paper.id}] {paper.title}",
                f"  {authors_line(paper.authors, 4)} · {', '.join(paper.categories[:4])}",
            ]
            if card.tldr:
                lines.append(f"  TL;DR {card.tldr}")
            lines.append(f"  {paper.url}")
            parts.append("\n".join(lines))
        if reply.choices:
            labels = [f"{i}) {c.label}" for i, c in enumerate(reply.choices, 1)]
            joined = "   ".join(labels)
            parts.append("  " + joined if len(joined) <= 100 else "\n".join("  " + label for label in labels))
        self.say("\n".join(parts))

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

    async def greet(self) -> None:
        """Say hello, then resume an unfinished onboarding or start one for a new user."""
        self.say(f"paperscout console: you are {self.user_key}. /help lists commands, /quit leaves.")
        if await self.core.repo.count_papers() == 0:
            await self.load_bundled_day()
        resumed = await onboarding.resume(self.core, self.user_key)
        if resumed is not None:
            self.show(resumed)
        elif await self.core.repo.get_profile(profile_owner(self.user_key)) is None:
            self.show(await onboarding.start(self.core, self.user_key, self.display_name))
        else:
            self.say("Welcome back! /digest shows your personal digest.")

    async def load_bundled_day(self) -> None:
        """An empty store gets the bundled real arXiv day, so the console works offline from the first run."""
        from bot.cli import bundled_file
        from bot.ingest.jsonl import read_jsonl
        from bot.ingest.store import store_papers

        papers = read_jsonl([bundled_file("arxiv-2025-05-26.jsonl")])
        self.say(f"No papers stored yet; loading the bundled arXiv day ({len(papers)} papers) to try things offline.")
        report = await store_papers(self.core, papers)
        self.say(report.line())

    async def run(self) -> int:
        """The read-reply loop; ends at /quit or end of input."""
        await self.greet()
        while True:
            line = await self.read()
            if line is None:
                self.say("Bye. Anything unfinished is kept; run paperscout console again to continue.")
                return 0
            try:
                if not await self.on_line(line):
                    self.say("Bye.")
                    return 0
            except InputError as exc:
                self.say(str(exc))

    async def on_line(self, line: str) -> bool:
        """Handle one line; False means quit."""
        text = line.strip()
        word, _, argument = text.partition(" ")
        command = word.lower()
        if self.confirm_forget:
            self.confirm_forget = False
            if text.lower() in {"yes", "y", "/forget yes"}:
                await self.forget()
            else:
                self.say("Kept everything.")
            return True
        if command in {"/quit", "/exit"}:
            return False
        if command == "/forget":
            if argument.strip().lower() == "yes":
                await self.forget()
            else:
                self.confirm_forget = True
                self.say(
                    "This deletes your profile, your ratings (and what was learned from them), your digest settings, "
                    "any unfinished setup and your last question. Type yes to confirm."
                )
            return True
        if command == "/export":
            self.say(json.dumps(await export_user(self.core, self.user_key), ensure_ascii=False, indent=2))
            return True
        if command == "/ask":  # also in the middle of onboarding: it does not touch the conversation
            await self.ask(argument)
            return True
        if await onboarding.is_active(self.core, self.user_key):
            if command in {"/digest", "/up", "/down"}:
                self.say("Let's finish your profile first (or /cancel it).")
                return True
            reply = await onboarding.handle(self.core, self.user_key, line)
            self.show(reply)
            if reply.saved:
                self.say("Try /digest to see your personal digest.")
            return True
        if not text:
            return True
        if command == "/help":
            self.say(CONSOLE_HELP)
        elif command == "/start":
            self.show(await onboarding.start(self.core, self.user_key, self.display_name))
        elif command == "/edit":
            self.show(await onboarding.begin_edit(self.core, self.user_key, argument))
        elif command == "/profile":
            shown = await onboarding.show_profile(self.core, self.user_key)
            self.say(shown or "You have no profile yet; /start makes one.")
        elif command == "/digest":
            await self.digest(weekly=argument.strip().lower() == "weekly")
        elif command in {"/up", "/down"}:
            await self.react(argument, 1 if command == "/up" else -1)
        elif not text.startswith("/"):
            await self.ask(text)
        else:
            self.say("I didn't understand that. " + CONSOLE_HELP)
        return True

    async def digest(self, weekly: bool) -> None:
        """Show the personal digest of the latest stored day, numbered for /up and /down."""
        if await self.core.repo.get_profile(profile_owner(self.user_key)) is None:
            self.say("You have no profile yet; /start makes one.")
            return
        day = await self.core.repo.latest_day()
        if day is None:
            self.say("No papers are stored yet; run paperscout ingest first.")
            return
        digest = await personal_digest(self.core, self.user_key, day, weekly=weekly, size=self.size)
        self.last_digest = list(digest.items)
        self.say(digest_markdown(digest))
        if digest.items:
            self.say("Rate with /up N or /down N; your next digest learns from it.")

    async def react(self, argument: str, value: int) -> None:
        """Record a thumbs up or down for paper N of the last digest (or an arXiv id)."""
        arg = argument.strip()
        paper_id = ""
        if arg.isdigit() and 1 <= int(arg) <= len(self.last_digest):
            paper_id = self.last_digest[int(arg) - 1].paper.id
        elif arg and not arg.isdigit():
            try:
                paper_id = split_arxiv_id(arg)[0]
            except InvalidPaperId:
                paper_id = ""
        papers = await self.core.repo.get_papers([paper_id]) if paper_id else []
        if not papers:
            shown = f"1 to {len(self.last_digest)}" if self.last_digest else "a number after /digest"
            self.say(f"Which paper? Use {shown}, or a stored arXiv id, e.g. /down 3.")
            return
        await learn.record_reaction(self.core, self.user_key, papers[0].id, value)
        thumb = "👍" if value > 0 else "👎"
        self.say(f"{thumb} noted for {papers[0].title}. /digest again to see the effect.")

    async def ask(self, question: str) -> None:
        """Answer a question from the stored papers; "this week" means the week of the latest stored day."""
        if not question.strip():
            self.say("Ask something after /ask, e.g. /ask what MoE papers this week?")
            return
        latest = await self.core.repo.latest_day()
        answer = await ask(self.core, question, today=latest, conversation_id=self.user_key, asker=self.user_key)
        self.say(answer_text(answer))

    async def forget(self) -> None:
        """Delete everything stored about this user."""
        counts = await forget_user(self.core, self.user_key)
        self.last_digest = []
        self.say(
            f"Deleted your profile ({counts.get('profiles', 0)}), ratings ({counts.get('feedback', 0)}) and settings "
            f"({counts.get('users', 0)}). Nothing about {self.user_key} is stored any more; /start begins anew."
        )


async def run_console(core: Core, *, user: str | None = None, size: int = 10, stdin: TextIO | None = None) -> int:
    """`paperscout console`: chat with paperscout as `user` (default: the login name)."""
    key = console_user_key(user)
    chat = ConsoleChat(core, key, display_name=key.partition(":")[2], stdin=stdin, size=size)
    return await chat.run()
