"""A member's own profile and data: /start (onboarding), /edit, /profile, /export and /forget with its
confirmation. The onboarding conversation itself is `bot.members.onboarding`; this module turns its replies into
chat replies."""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import replace as dc_replace
from typing import TYPE_CHECKING

from bot.chat.flows import Flow
from bot.chat.messages import AnswerReply, Choice, FileReply, Place, Reply, TextReply, choice_button
from bot.chat.onboarding_replies import onboarding_reply
from bot.chat.turns import Turn, text_reply
from bot.members import onboarding
from bot.members.onboarding.hygiene import has_words
from bot.members.privacy import export_user, forget_user

if TYPE_CHECKING:
    from bot.core import Core

CONFIRM_KIND = "confirm"
CONFIRM_MINUTES = 10  # a /forget confirmation older than this is not acted on


async def start(turn: Turn) -> list[Reply]:
    """/start: onboarding from the first question (an unfinished one is resumed)."""
    return [onboarding_reply(await onboarding.start(turn.core, turn.user, turn.msg.speaker.display_name))]


async def edit(turn: Turn) -> list[Reply]:
    """/edit FIELD: change one answer of the profile."""
    return [onboarding_reply(await onboarding.begin_edit(turn.core, turn.user, turn.args))]


async def profile(turn: Turn) -> list[Reply]:
    """/profile: what the member's profile says."""
    shown = await onboarding.show_profile(turn.core, turn.user)
    return text_reply(shown or "You have no profile yet; /start makes one.", ephemeral=True)


async def export(turn: Turn) -> list[Reply]:
    """/export: everything stored about the speaker, as a JSON file."""
    data = await export_user(turn.core, turn.user)
    body = json.dumps(data, ensure_ascii=False, indent=2).encode("utf-8")
    return [FileReply("paperscout-export.json", body, "application/json", "Everything paperscout stores about you.")]


async def forget(turn: Turn) -> list[Reply]:
    """/forget: asks first (a stored confirmation); /forget yes deletes at once."""
    if turn.args.lower() == "yes":
        return await forget_now(turn.core, turn.user)
    pending = {"action": "forget", "at": dt.datetime.now(dt.UTC).isoformat(), "place": turn.place.key}
    await turn.core.repo.save_chat_state(turn.user, CONFIRM_KIND, json.dumps(pending))
    return text_reply(
        "This deletes your profile, your ratings (and what was learned from them), your digest settings, any "
        "unfinished setup and your last questions. Type yes to confirm, anything else keeps it all.",
        choices=(
            Choice("Yes, delete it all", choice_button("forget", 1)),
            Choice("No, keep it", choice_button("forget", 2)),
        ),
    )


async def confirm_forget(turn: Turn) -> list[Reply]:
    """The answer to a pending /forget confirmation: yes (while fresh) deletes, anything else keeps."""
    stored = await turn.core.repo.chat_state(turn.user, CONFIRM_KIND)
    await turn.core.repo.save_chat_state(turn.user, CONFIRM_KIND, "")
    pending = json.loads(stored) if stored else {}
    at = dt.datetime.fromisoformat(pending.get("at", "2000-01-01T00:00:00+00:00"))
    fresh = dt.datetime.now(dt.UTC) - at <= dt.timedelta(minutes=CONFIRM_MINUTES)
    # '1' is the number of the "Yes" choice, which is how a terminal presses it
    said_yes = turn.args.strip().lower() in {"yes", "y", "1", "/forget yes"}
    if pending.get("action") == "forget" and fresh and said_yes:
        return await forget_now(turn.core, turn.user)
    if pending and not fresh:
        return text_reply("That confirmation expired; send /forget again if you still want it.")
    return text_reply("Kept everything.")


async def forget_now(core: Core, user: str) -> list[Reply]:
    """Delete everything stored about `user` and say what went."""
    counts = await forget_user(core, user)
    return text_reply(
        f"Deleted your profile ({counts.get('profiles', 0)}), ratings ({counts.get('feedback', 0)}) and settings "
        f"({counts.get('users', 0)}). Nothing about you is stored any more; /start begins anew."
    )


# the onboarding steps answered with phrases of the member's own, each with what its answer would have been taken as
PHRASE_STEPS = {"interests": "one of your interests", "avoid": "something to avoid"}


# A question typed without its mark, by the word order only a question has: a word of asking before an auxiliary
# ("what's new on diffusion", "what are the latest MoE papers", "how do transformers generalize") or before the papers
# asked for ("which papers study X"), or an auxiliary before its subject ("is there anything on X", "are there
# papers on X", "do you have X"). An interest opening with a word of asking keeps the order of a statement ("how
# transformers generalize", "what makes models robust", "why deep nets generalize") and stays an interest
_WHETHER = (
    r"(?:is|are)\s+there\b|(?:do|does|did|can|could|would|will|have|has)\s+(?:you|anyone|anybody|someone|there)\b"
)
_INVERTED = re.compile(
    r"^\W*(?:whats\b|(?:what|which|who|how|where|when|why)(?:['\u2019](?:s|re)\b|\s+(?:is|are|was|were|do|does|did|can|"
    r"could|should|would|will|has|have)\b)|(?:which|what)\s+(?:(?:new|recent|latest)\s+)?(?:papers?|preprints?|"
    rf"works?|articles?)\b|{_WHETHER})",
    re.IGNORECASE,
)


def reads_as_question(text: str) -> bool:
    """A line that asks something, as a DM from someone without a profile is read (`ChatController`): it ends with a
    question mark, or its words are in a question's order (`_INVERTED`: "what's new on diffusion"); a question, not
    a phrase to set up a profile with. Where onboarding asks for phrases, `asks_for_papers` reads it."""
    return text.strip().endswith("?") or bool(_INVERTED.match(text))


# What a question asks the bot for when it asks for papers rather than about its topic: papers, or what is new;
# or it asks the bot whether there are any (an auxiliary before "there" or the one who would have them). Who,
# which, where and when ask for papers or people (`asks_for_papers`)
_PAPERS_ASKED = re.compile(
    r"\b(?:papers?|preprints?|articles?|publications?|works|new|newest|recent|latest|anything)\b", re.IGNORECASE
)
_WHETHER_ANY = re.compile(rf"^\W*(?:{_WHETHER})", re.IGNORECASE)


def asks_for_papers(text: str) -> bool:
    """Whether a reply to a step asking for phrases (interests, what to avoid) is a question to answer rather than
    the phrase asked for. A question about a topic ("how does in-context learning work", "why do transformers
    generalize?": how, why or what before an auxiliary, asking for no papers, news or people) states what the member
    wants to read about, with or without its mark, and is taken as one. Any other line ending with "?" is answered
    ("what's new on toxicity?", "who is working on X?", "and which of those are about health?"), and so is one in a
    question's word order (`reads_as_question`: "what's new on diffusion", "are there papers on RLHF")."""
    about_topic = asks_about_its_topic(text)
    if text.strip().endswith("?"):
        return not about_topic
    return bool(_INVERTED.match(text)) and not about_topic


def asks_about_its_topic(text: str) -> bool:
    """Whether a line is a question about a topic rather than a request ("how does in-context learning work",
    "what is RLHF?": how, why or what before an auxiliary, asking for no papers, news or people, and read as a
    question (`parse_question`) for no kind of paper, theory, contribution, time window or author: "what are the
    surveys on RLHF?", "what is going on in protein design this week?" ask for papers)."""
    if not (
        _INVERTED.match(text)
        and re.match(r"^\W*(?:how|why|what)\b", text, re.IGNORECASE)
        and not (_PAPERS_ASKED.search(text) or _WHETHER_ANY.match(text))
    ):
        return False
    from bot.questions.rag import parse_question

    read = parse_question(text, dt.date.today())
    return not (read.constraints or read.contribution or read.window or read.authors or read.people)


def as_phrases(text: str, today: dt.date) -> str:
    """A reply to a phrase step with each item worded as a question about its topic (`asks_about_its_topic`) as
    that topic, read as a question's topic is ("what is RLHF?" -> "RLHF", "how does in-context learning work" ->
    "in-context learning"), so the profile holds no question words; `text` itself when no item is such a question."""
    from bot.questions.rag import parse_question

    items = onboarding.split_items(text, len(text))
    topics = [parse_question(item, today).topic if asks_about_its_topic(item) else item for item in items]
    if topics == items or not all(has_words(t) for t in topics):
        return text
    return "\n".join(topics)


def lists_items(text: str) -> bool:
    """Whether a reply is the list of items a phrase step asks for, whatever its last item ends in: several items
    (one a line or ';' between them: "graph neural networks; video diffusion; what about RLHF?"), none but the last
    ending as a sentence does. A message whose first lines end as sentences ("Hi, I'm new here.\nAny papers on X?")
    is prose asking its last line."""
    items = onboarding.split_items(text, len(text))
    return len(items) > 1 and not any(item.rstrip().endswith((".", "!", "?")) for item in items[:-1])


async def asked_instead(turn: Turn, step: str) -> list[Reply]:
    """A question typed at an onboarding step asking for phrases ("what's new on diffusion?" where interests are
    asked for): answered from the stored papers, then the step asked again, saying the question was not taken as an
    answer to it and how to go on."""
    from bot.chat.questions import ask

    answered = await ask(turn)
    # a question refused (asked too soon after the last, or empty of words) was not answered: said so, not "above"
    refused = not any(isinstance(r, AnswerReply) for r in answered)
    done = "it was not answered (see above)" if refused else "so I answered it above"
    told = f"That was a question, {done}; it is not taken as {PHRASE_STEPS[step]}."
    again = await onboarding.ask_again(turn.core, turn.user, f"{told} To go on setting up (or /cancel):")
    return [*answered, onboarding_reply(again) if again is not None else TextReply(told)]


async def helped_instead(turn: Turn, step: str) -> list[Reply]:
    """A question about using the bot typed at an onboarding step asking for phrases ("how do I set up my
    profile"): the onboarding's help and the step asked again, never papers, saying the line was not taken as an
    answer to it."""
    told = (
        f"That is a question about me, so it is not taken as {PHRASE_STEPS[step]}. You are setting up your "
        f"profile now: answer each question below in your own words. {onboarding.HELP}"
    )
    again = await onboarding.ask_again(turn.core, turn.user, told)
    return [onboarding_reply(again) if again is not None else TextReply(told)]


class OnboardingFlow(Flow):
    """Onboarding and /edit, in the member's DMs; its own commands are `onboarding.FLOW_COMMANDS`."""

    kind = onboarding.STATE_KIND
    commands = onboarding.FLOW_COMMANDS - {"cancel"}

    def takes(self, place: Place) -> bool:
        """Onboarding is a DM conversation (the console is one)."""
        return place.is_dm

    async def is_open(self, core: Core, user: str, place: Place) -> bool:
        """An unfinished onboarding or edit."""
        return await onboarding.is_active(core, user)

    async def answer(self, turn: Turn) -> list[Reply]:
        """The answer to the current onboarding question; where interests or what to avoid are asked for, a line
        (not a list of items, `lists_items`) asking how to use the bot gets help (`helped_instead`), a question
        asking for papers is answered (`asked_instead`), each with the step asked again."""
        from bot.chat.commands import about_the_bot

        step = await onboarding.current_step(turn.core, turn.user)
        if step in PHRASE_STEPS and not lists_items(turn.args):
            if about_the_bot(turn.args):
                return await helped_instead(turn, step)
            if asks_for_papers(turn.args):
                return await asked_instead(turn, step)
        said = as_phrases(turn.args, dt.date.today()) if step in PHRASE_STEPS else turn.args
        return [onboarding_reply(await onboarding.handle(turn.core, turn.user, said))]

    async def command(self, turn: Turn, name: str) -> list[Reply]:
        """/skip, /back, /status, /help, /edit and the rest, as onboarding reads them."""
        return await self.answer(dc_replace(turn, args=f"/{name} {turn.args}".strip()))

    async def cancel(self, turn: Turn) -> list[Reply]:
        """Onboarding's own cancel (it says what was kept)."""
        return await self.command(turn, "cancel")

    def owns_step(self, step: str) -> bool:
        """Onboarding's steps."""
        return step in onboarding.STEPS

    async def choose(self, turn: Turn, step: str, number: str) -> list[Reply]:
        """A choice of the current question; a stale one is named as such."""
        if await onboarding.current_step(turn.core, turn.user) != step:
            return text_reply("That button belongs to an earlier question; answer the latest one.", ephemeral=True)
        return await self.answer(dc_replace(turn, args=number))


class ForgetConfirmation(Flow):
    """The question /forget asks before deleting: yes deletes, anything else (or /skip, /cancel) keeps."""

    kind = CONFIRM_KIND
    commands = frozenset({"skip"})

    def takes(self, place: Place) -> bool:
        """Answered where it was asked (`is_open` checks the place)."""
        return True

    async def is_open(self, core: Core, user: str, place: Place) -> bool:
        """A pending confirmation asked at `place` (one stored before places were noted counts everywhere)."""
        stored = await core.repo.chat_state(user, CONFIRM_KIND)
        pending = json.loads(stored) if stored else None
        return isinstance(pending, dict) and pending.get("place", place.key) == place.key

    async def answer(self, turn: Turn) -> list[Reply]:
        """Yes or anything else."""
        return await confirm_forget(turn)

    async def command(self, turn: Turn, name: str) -> list[Reply]:
        """/skip keeps everything."""
        return await self.cancel(turn)

    async def cancel(self, turn: Turn) -> list[Reply]:
        """Keeps everything."""
        await turn.core.repo.save_chat_state(turn.user, CONFIRM_KIND, "")
        return text_reply("Kept everything.")

    def owns_step(self, step: str) -> bool:
        """The Yes/No buttons."""
        return step == "forget"

    async def choose(self, turn: Turn, step: str, number: str) -> list[Reply]:
        """Yes is choice 1; a button of a confirmation the presser has not pending here (another member's, or one
        answered already) changes nothing, and leaves one they have pending elsewhere as it is."""
        if not await self.is_open(turn.core, turn.user, turn.place):
            return text_reply("That confirmation is not pending for you here; nothing was deleted.", ephemeral=True)
        return await confirm_forget(dc_replace(turn, args="yes" if number == "1" else "no"))
