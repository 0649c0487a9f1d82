"""What a front end hands the chat controller, and the structured replies it gets back.

A front end (console, Discord client, Telegram handlers) translates a platform event into an `Incoming`: who spoke
(`Speaker`), where (`Place`) and what (text, a command with arguments, a button value, a reply to one of the
bot's messages, an attached file). The controller answers with a list of replies, each one of:

- `TextReply`: text, optionally with paper cards (`PaperView`) and `Choice` buttons;
- `DigestReply`: a digest (`DigestView`) whose papers each carry their actions (thumbs up/down, more like this, why);
- `AnswerReply`: an answer to a question with its cited papers;
- `FileReply`: a file to send (an export).

Every string in a reply that came from outside (titles, abstracts, names, questions, LLM text) has been through
the core's cleaning of untrusted text, but it is still plain text: each front end escapes it for its own markup.

Buttons carry a compact value of at most 64 bytes (Telegram's callback_data limit; Discord allows 100), so a
button on a month-old message works after a restart without any server-side state:

- ``ps:up:2505.17639``, ``ps:down:…``, ``ps:more:…``, ``ps:why:…`` act on one paper, ``ps:undo:…`` takes the
  presser's reaction to it back;
- ``ps:c:STEP:N`` picks choice N of the question asked at STEP (a stale button is recognised and answered politely).

A front end passes a pressed button back as ``Incoming(button=value)``; `is_paperscout_button` tells it which
presses are ours.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from bot.views.layout import Block, answer_blocks, choice_block, digest_blocks, text_block, text_reply_blocks
from bot.views.model import (
    BUTTON_PREFIX,
    PAPER_ACTIONS,
    Action,
    Choice,
    DigestView,
    PaperView,
    is_paperscout_button,
    paper_button,
)

__all__ = [
    "PAPER_ACTIONS",
    "Action",
    "AnswerReply",
    "Attachment",
    "Choice",
    "DigestReply",
    "DigestView",
    "FileReply",
    "Incoming",
    "PaperView",
    "Place",
    "Reply",
    "Speaker",
    "TextReply",
    "Upload",
    "is_paperscout_button",
    "layout",
    "paper_button",
]


def is_question_choice(value: str) -> bool:
    """True when a button value picks a choice of a question (`choice_button`), which typing its number does too."""
    return value.startswith(f"{BUTTON_PREFIX}c:")


def choice_button(step: str, number: int) -> str:
    """The button value of choice `number` (1-based) of the question asked at `step`."""
    return f"{BUTTON_PREFIX}c:{step}:{number}"


# --- in ---


@dataclass(frozen=True, slots=True)
class Place:
    """Where something was said: a DM, or a channel/group (with its platform's chat id)."""

    platform: str  # console | discord | telegram
    chat_id: str
    is_dm: bool = True
    title: str = ""  # the channel or group name, for messages like "set up #papers"

    @property
    def key(self) -> str:
        """'platform:chat_id', the key a channel's target and profile are stored under."""
        return f"{self.platform}:{self.chat_id}"


@dataclass(frozen=True, slots=True)
class Speaker:
    """Who spoke: their user key (platform:id), name, and whether they administer the place they spoke in.

    Front ends decide `is_admin` from the platform (Discord Manage Server at run time, Telegram getChatMember);
    the console's user administers the console. A place speaking as itself, with no member behind it, is a speaker
    keyed by the place ('platform:chat id', `Incoming.by_place`).
    """

    user_key: str
    display_name: str = ""
    is_admin: bool = False


@dataclass(frozen=True, slots=True)
class Attachment:
    """A file sent with a message (a TOML profile for /setup), already downloaded and size-checked."""

    name: str
    data: bytes


@dataclass(frozen=True, slots=True)
class Upload:
    """A file a member attached, not downloaded yet: its name, the size the platform states (None when it does not),
    and how to download it. The driver makes it the message's `Attachment` only when that size fits a profile
    (`bot.chat.setup.read_profile_file`)."""

    name: str
    size: int | None
    download: Callable[[], Awaitable[bytes]]


@dataclass(frozen=True, slots=True)
class Replied:
    """What the message a member replied to (`Incoming.reply_to`) is: one of the bot's answers (or, on a threaded
    platform, a thread the bot started or posted in), with the question context a reply to it continues ('' for a
    thread without an answer); `ours` False when it is not the bot's."""

    ours: bool
    context: str = ""


@dataclass(frozen=True, slots=True)
class Incoming:
    """One thing a person did: typed `text`, ran `command` with `args`, pressed `button`, or replied to a message.

    Front ends with real commands (Discord slash commands, Telegram /commands) set `command` (no slash,
    lowercase) and `args`; front ends that only have text may pass the whole line as `text` and let
    `Incoming.from_text` split it. `options` carries named arguments a front end already parsed (Discord's
    `/setup categories:... time:...`). `reply_to` is the platform id of the bot message being replied to;
    `replied` is what that message is, looked up once (`ChatController.replied`) by the front end that needed it
    first or else by the controller; `mentioned` says the bot was @mentioned (the mention itself already taken out
    of `text`).
    """

    speaker: Speaker
    place: Place
    text: str = ""
    command: str = ""
    args: str = ""
    options: dict[str, str] = field(default_factory=dict)
    button: str = ""
    reply_to: str = ""
    replied: Replied | None = None  # None: not looked up yet
    attachment: Attachment | None = None
    mentioned: bool = False  # the message names the bot (an @mention): in a channel, it is spoken to

    @property
    def by_place(self) -> bool:
        """Whether no member spoke: the place itself did (a channel's own post, an admin writing as the group), which
        a front end hands in as a speaker keyed by the place. Nobody can be written to, and no member's data is
        theirs to read or change."""
        return not self.place.is_dm and self.speaker.user_key == self.place.key

    @property
    def addressed(self) -> bool:
        """Whether the bot was spoken to: a DM, a command, a button, a reply to one of its messages or a mention."""
        return self.place.is_dm or bool(self.command or self.button or self.reply_to or self.mentioned)

    @classmethod
    def from_text(cls, speaker: Speaker, place: Place, line: str, **extra: object) -> Incoming:
        """A typed line: '/cmd args' (a Telegram '@botname' suffix dropped) becomes a command, anything else text."""
        stripped = line.strip()
        if stripped.startswith("/") and len(stripped) > 1:
            word, args = [*re.split(r"\s", stripped[1:], maxsplit=1), ""][:2]  # at any space: "/ask\nwhat is X"
            command = word.split("@", 1)[0].lower()
            return cls(speaker, place, text=stripped, command=command, args=args.strip(), **extra)  # type: ignore[arg-type]
        return cls(speaker, place, text=line, **extra)  # type: ignore[arg-type]


# --- out ---


@dataclass(frozen=True, slots=True)
class TextReply:
    """Plain text, then paper cards, then `after` (a line that ends the list, such as what is left of it), then
    choice buttons; `ephemeral` asks for a reply only the speaker sees."""

    text: str
    cards: tuple[PaperView, ...] = ()
    choices: tuple[Choice, ...] = ()
    ephemeral: bool = False
    after: str = ""


@dataclass(frozen=True, slots=True)
class DigestReply:
    """A digest to show, with per-paper actions."""

    digest: DigestView


@dataclass(frozen=True, slots=True)
class AnswerReply:
    """An answer to a question: text citing [n], and the cited papers in [n] order.

    `context_id` names the question context a reply to this message continues; front ends that support replies
    pass it back through `ChatController.remember_message` with the platform message id they got.
    """

    text: str
    citations: tuple[PaperView, ...]
    window: tuple[dt.date, dt.date]
    context_id: str = ""
    usage_line: str = ""
    choices: tuple[Choice, ...] = ()  # the "Next" button when the answer offers more papers


@dataclass(frozen=True, slots=True)
class FileReply:
    """A file for the speaker (an export): name, bytes, MIME type and a caption."""

    name: str
    data: bytes
    mime: str
    caption: str = ""


Reply = TextReply | DigestReply | AnswerReply | FileReply


def answer_notes(reply: AnswerReply) -> list[str]:
    """What an answer says under its sources on every platform: the days its papers come from, and that a reply to
    it follows it up (when it has a conversation to continue)."""
    start, end = reply.window
    follow = "Reply to this message to ask a follow-up." if reply.context_id else ""
    return [f"Papers from {start.isoformat()} to {end.isoformat()}", follow]


def layout(reply: Reply) -> list[Block]:
    """A reply as the core's chat layout (`bot.views.layout`), which a front end styles and packs into messages:
    a digest, an answer with its sources, text with paper cards and choices, or a file's caption."""
    if isinstance(reply, DigestReply):
        return digest_blocks(reply.digest)
    if isinstance(reply, AnswerReply):
        notes = answer_notes(reply)
        return [
            *answer_blocks(reply.text, reply.citations, usage=reply.usage_line, notes=notes),
            *choice_block(reply.choices),
        ]
    if isinstance(reply, FileReply):
        return text_block(reply.caption)
    return text_reply_blocks(reply.text, reply.cards, reply.choices, after=reply.after)
