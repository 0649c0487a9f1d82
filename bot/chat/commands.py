"""The one command table: every command's handler, where it works, whether it needs an admin, and its help line.

Front ends read it for their platform's command lists; the controller routes through it; /help is written from it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.chat import admin, digests, members, papers, questions, reactions
from bot.chat import setup as channel_setup
from bot.chat.messages import BUTTON_PREFIX, PAPER_ACTIONS, Incoming, Reply
from bot.chat.turns import Handler, Turn, text_reply
from bot.frontend import FrontEnd, front_end
from bot.members import onboarding
from bot.models import MAX_DIGEST_SIZE

ONBOARDING = onboarding.STATE_KIND


@dataclass(frozen=True, slots=True)
class Argument:
    """A command's argument as a platform with named fields asks for it: its name, what it says, whether it is
    required, what it holds (`kind`: text, a whole number, a channel, a file), the bounds of its text's length (of
    its value, for a number; `longest` 0: none), the words it is one of, and what completes it as it is typed
    (`completion`: a kind of `bot.chat.completion.Completer`)."""

    name: str
    hint: str
    required: bool = True
    longest: int = 0
    kind: str = "text"
    shortest: int = 1
    choices: tuple[str, ...] = ()
    completion: str = ""


PAPER_HINT = "arXiv id or number in your last list (type digits or title words)"
ARGUMENTS = {  # by the usage that shows them
    "N|ID": Argument("paper", PAPER_HINT, completion="papers"),
    "[N|ID]": Argument(
        "paper", "empty: the rest of my last answer; else " + PAPER_HINT, required=False, completion="papers"
    ),
    "QUESTION": Argument(
        "question", "e.g. what MoE papers this week? (reply to the answer for a follow-up)", longest=2000
    ),
    "WORDS": Argument("words", "e.g. sparse attention", longest=300),
    "FIELD": Argument("field", "interests, avoid, authors, categories, ratings or digest", longest=40),
    "[undo N|reset]": Argument(
        "which", "for undo: its number in the list (1 is the latest) or an arXiv id", required=False, longest=100
    ),
    "[off|daily|weekly] [TIME] [ZONE]": Argument(
        "schedule",
        "e.g. daily 08:30 Europe/Berlin, weekly Monday 9am, off (empty: show it)",
        required=False,
        longest=200,
    ),
}
# /setup's form: the channel it is for, the setup's options (`bot.chat.setup.OPTIONS`) and a TOML profile file
SETUP_FORM = (
    Argument("channel", "The channel that gets the digest (default: this one)", required=False, kind="channel"),
    Argument("categories", channel_setup.OPTIONS["categories"], required=False, completion="categories"),
    Argument("schedule", channel_setup.OPTIONS["schedule"], required=False),
    Argument("time", channel_setup.OPTIONS["time"], required=False),
    Argument("timezone", channel_setup.OPTIONS["timezone"], required=False, completion="timezones"),
    Argument("profile", channel_setup.OPTIONS["profile"], required=False, longest=2000, shortest=0),
    Argument("size", channel_setup.OPTIONS["size"], required=False, kind="number", longest=MAX_DIGEST_SIZE),
    Argument("profile_file", "A TOML channel profile", required=False, kind="file"),
)


@dataclass(frozen=True, slots=True)
class Command:
    """One command: its handler, where it works, whether it needs an admin, and its help line."""

    handler: Handler
    usage: str
    help: str
    where: str = "any"  # any | dm | channel
    admin: bool = False
    opens: str = ""  # the kind of flow it starts (which ends any other open at the place)
    actions: tuple[str, ...] = ()  # the words its argument begins with, for a platform that offers them as choices
    form: tuple[Argument, ...] = ()  # its named fields where the platform gives it a form, when not `fields`' own
    # it acts on the member who runs it (their profile, reactions, digest, data): the place speaking as itself is
    # nobody's, so it is told so in one line and no stand-in member's data is ever made, read or changed
    personal: bool = False

    def usage_on(self, here: FrontEnd) -> str:
        """Its usage as /help shows it on `here`: where the platform gives it a `form`, the form's fields typed in
        words (a channel field is picked from a list, a file attached), and, for a command that opens a flow, that
        leaving them empty goes step by step; else the line."""
        if not (here.forms and self.form):
            return self.usage
        typed = ", ".join(field.name for field in self.form if field.kind in ("text", "number"))
        return f"[fields: {typed}{'; empty: step by step' if self.opens else ''}]"

    @property
    def argument(self) -> Argument | None:
        """Its argument as a named field (`ARGUMENTS`, by its usage); None when it takes none or only `actions`."""
        return ARGUMENTS.get(self.usage)

    @property
    def fields(self) -> tuple[Argument, ...]:
        """Its arguments as a form's named fields: its `form`, else a choice of its `actions` and its `argument`."""
        if self.form:
            return self.form
        action = (Argument("action", self.usage, required=False, choices=self.actions),) if self.actions else ()
        return action + ((self.argument,) if self.argument is not None else ())


def works_here(command: Command, msg: Incoming) -> bool:
    """True when `command` is one this speaker may run where `msg` was sent (as /help lists them)."""
    if command.admin and not msg.speaker.is_admin:
        return False
    if command.personal and msg.by_place:
        return False
    if command.where == "dm" and not msg.place.is_dm:
        return False
    # the console has no channels: the terminal is its one channel, set up like any other
    return not (command.where == "channel" and msg.place.is_dm and msg.place.platform != "console")


def menu(in_dm: bool) -> list[tuple[str, str]]:
    """(name, help line) of every command that works in a DM (`in_dm`) or in a channel: a platform's command menu."""
    return [(name, c.help) for name, c in COMMANDS.items() if c.where in ("any", "dm" if in_dm else "channel")]


def help_text(msg: Incoming) -> str:
    """The commands that work where `msg` was sent, for this speaker."""
    here = front_end(msg.place.platform)
    lines = ["What I can do:"]
    for name, command in COMMANDS.items():
        run = here.command(name)
        if run and works_here(command, msg):
            usage = command.usage_on(here)
            lines.append(f"  {run}{(' ' + usage) if usage else ''}: {command.help}")
    if msg.place.is_dm:
        lines.append("Any message that is not a command is a question about the stored papers.")
    else:
        lines.append("Reply to one of my answers to ask a follow-up.")
    return "\n".join(lines)


async def _help(turn: Turn) -> list[Reply]:
    return text_reply(help_text(turn.msg), ephemeral=True)


def find(name: str) -> Command | None:
    """The command `name` (lowercase, no slash) or one of its aliases names."""
    return COMMANDS.get(name) or COMMANDS.get(ALIASES.get(name, ""))


def command_label(msg: Incoming) -> str:
    """What kind of turn `msg` is, for the log: ``/ask``, ``button:up`` or ``text``; never the words typed (a
    question or a profile is the member's, and an unknown command is logged as ``/unknown``)."""
    if msg.button:
        kind = msg.button[len(BUTTON_PREFIX) :].partition(":")[0] if msg.button.startswith(BUTTON_PREFIX) else ""
        return f"button:{kind if kind in (*PAPER_ACTIONS, 'c') else 'other'}"
    if msg.command:
        name = msg.command.lower().lstrip("/")
        known = name in COMMANDS or name in ALIASES or name in onboarding.FLOW_COMMANDS or name in FLOW_WORDS
        return f"/{name if known else 'unknown'}"
    return "text"


COMMANDS: dict[str, Command] = {
    "help": Command(_help, "", "what I can do here"),
    "start": Command(
        members.start,
        "",
        "set up your personal profile (or go through it again)",
        "dm",
        opens=ONBOARDING,
        personal=True,
    ),
    "digest": Command(
        digests.digest,
        "[weekly] (in a channel, its admins: now|preview|pause|resume)",
        "your personal digest of the latest day, numbered for /up and /down",
        actions=("now", "preview", "pause", "resume", "weekly"),
    ),
    "up": Command(
        papers.up,
        "N|ID",
        "thumbs up for paper N of your last list (or an arXiv id); teaches your profile",
        personal=True,
    ),
    "down": Command(
        papers.down,
        "N|ID",
        "thumbs down for paper N of your last list (or an arXiv id); fewer like it",
        personal=True,
    ),
    "more": Command(papers.more, "[N|ID]", "the rest of my last answer's papers; with N, stored papers like that one"),
    "ask": Command(questions.ask, "QUESTION", "a question answered from stored papers, with citations"),
    "search": Command(questions.search, "WORDS", "stored papers matching words"),
    "paper": Command(papers.paper, "N|ID", "one paper's card: TL;DR, abstract, day, categories, arXiv comment, link"),
    "why": Command(papers.why, "N|ID", "why a paper ranks where it does for your profile", personal=True),
    "reactions": Command(
        reactions.reactions_command,
        "[undo N|reset]",
        "your 👍/👎, the latest first; take one back or delete them all",
        actions=("list", "undo", "reset"),
        personal=True,
    ),
    "profile": Command(members.profile, "", "what your profile says", personal=True),
    "edit": Command(
        members.edit,
        "FIELD",
        "change one answer: interests, avoid, authors, categories, ratings, digest",
        "dm",
        opens=ONBOARDING,
        personal=True,
    ),
    "mydigest": Command(
        digests.mydigest, "[off|daily|weekly] [TIME] [ZONE]", "your personal digest's schedule", personal=True
    ),
    "export": Command(members.export, "", "everything stored about you, as a JSON file", personal=True),
    "forget": Command(
        members.forget,
        "",
        "delete everything stored about you (asks first)",
        opens=members.CONFIRM_KIND,
        personal=True,
    ),
    "setup": Command(
        admin.setup,
        channel_setup.ONE_LINE_USAGE,
        "set up this channel's digest, daily or weekly (step by step, or on one line)",
        "channel",
        admin=True,
        opens=channel_setup.KIND,
        form=SETUP_FORM,
    ),
    "settings": Command(admin.settings, "", "this channel's digest settings", where="channel"),
    "pause": Command(admin.pause, "", "pause this channel's digest", where="channel", admin=True),
    "resume": Command(admin.resume, "", "resume this channel's digest", where="channel", admin=True),
}
FLOW_WORDS = frozenset({"cancel", "skip", "back"})  # what every open flow takes
ALIASES = {"interests": "start", "similar": "more", "like": "more", "q": "ask", "find": "search", "me": "profile"}


# What a question about using the bot is made of besides the bot's own things: words of asking, auxiliaries, the
# speaker and the bot ("I", "you", "this"), and the everyday verbs of using something ("how do I set up ...", "how
# does this work"). A line of these alone, with a person or one of the bot's things in it, asks about the bot
_ASKING = re.compile(
    r"^\W*(?:what|which|who|how|where|when|why|is|are|am|do|does|did|can|could|should|would|will|may|help)\b",
    re.IGNORECASE,
)
_PEOPLE = frozenset("i me my we us our you your yours this it here".split())
_FRAME = _PEOPLE | frozenset(
    "what which who how where when why whats hows is are am was be do does did can could should would will may must "
    "a an the to of for in on with up about at from by all any some there s m re ll ve d and or not "
    "use using set setting get getting change changing see start begin stop work works working make give send add "
    "remove update show edit mean means go going pick choose write type enter answer say tell know please".split()
)
_WORD = re.compile(r"[a-z]+")


def _bot_things() -> frozenset[str]:
    """The bot's own nouns: its commands and their aliases, the onboarding's fields and steps, and the bot itself."""
    names = {*COMMANDS, *ALIASES, *FLOW_WORDS, *onboarding.FLOW_COMMANDS, *onboarding.FIELDS, *onboarding.STEPS}
    return frozenset(names | {"bot", "paperscout", "profile", "command", "settings", "setting", "setup", "account"})


def about_the_bot(text: str) -> bool:
    """Whether a line asks how to use the bot ("how do I set up my profile", "what can you do", "how does this
    work", "help"): it asks (a question mark, or a word of asking or an auxiliary first), and every word of it is a
    word of asking, a person, an everyday verb of using something or one of the bot's own things (its commands,
    fields and steps), at least one of them a person or a thing of the bot's. A question naming anything else
    ("how does in-context learning work", "can you find papers on RLHF?") is about that, not about the bot."""
    if not (text.strip().endswith("?") or _ASKING.match(text)):
        return False
    things = _bot_things()

    def of_the_bot(word: str) -> bool:
        return word in things or (word.endswith("s") and word[:-1] in things)

    words = _WORD.findall(text.lower())
    if not words or not all(w in _FRAME or of_the_bot(w) for w in words):
        return False
    return any(w in _PEOPLE or of_the_bot(w) for w in words)
