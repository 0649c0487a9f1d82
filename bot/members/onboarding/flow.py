"""The onboarding engine: moves a person through `steps.FLOW`, handles the flow's commands, stores the state.

Adapters never call this directly: the chat controller (`bot.chat`) hands it what a person typed or the value of
the button they pressed, and renders the `Reply`. The state is stored in the chat_state table after every turn,
so a conversation resumes where it stopped, even after a restart. Commands at any step: /cancel, /skip, /back,
/edit FIELD, /status, /help. Every bad answer gets a reply saying what would work, and the conversation stays at
the same step.
"""

from __future__ import annotations

import difflib
from dataclasses import replace as dc_replace

from bot.core import Core
from bot.members.onboarding.drafts import build_profile, draft_from_saved, profile_name, summary
from bot.members.onboarding.hygiene import MAX_INPUT, clean_input, one_line
from bot.members.onboarding.state import STATE_KIND, OnboardingState, Reply
from bot.members.onboarding.steps import (
    _FIELD_ALIASES,
    FIELDS,
    FLOW,
    STEP_BY_NAME,
    Answered,
    Outcome,
    _join,
    reply_to,
    retry,
)
from bot.members.settings import check_user_key, profile_owner
from bot.ranking import learn
from bot.text.safetext import command_in

_HELP = (
    "Commands: /skip skips an optional question, /back goes to the previous one, /edit FIELD changes one answer "
    "(interests, avoid, authors, categories, ratings, digest), /status shows your answers so far, "
    "/cancel stops (nothing new is saved), /help shows this."
)
HELP = _HELP  # the flow's commands, as /help shows them


# Commands the conversation answers itself while it waits for an answer (the chat controller hands them over).
FLOW_COMMANDS = frozenset({"cancel", "help", "status", "skip", "back", "edit", "start", "interests", "profile"})


# --- moving between steps: everything derived from the one table ---


def field_steps(field_name: str) -> tuple[str, ...]:
    """The steps `/edit field_name` goes through, in order."""
    return tuple(step.name for step in FLOW if step.field == field_name)


def following(conv: OnboardingState, step: str) -> str:
    """The step after `step` that applies to the draft ('' when the profile is complete)."""
    index = [s.name for s in FLOW].index(step)
    return next((s.name for s in FLOW[index + 1 :] if s.applies(conv.draft)), "")


def previous(conv: OnboardingState, step: str) -> str:
    """The step before `step` that applies to the draft ('' at the first)."""
    index = [s.name for s in FLOW].index(step)
    return next((s.name for s in reversed(FLOW[:index]) if s.applies(conv.draft)), "")


async def _settle(core: Core, conv: OnboardingState, outcome: Outcome) -> Reply:
    """A step's outcome as the reply to show: a finished step moves the conversation on."""
    if isinstance(outcome, Answered):
        return await _next(core, conv, outcome.step, outcome.note)
    return outcome


async def _ask(core: Core, conv: OnboardingState, step: str, prefix: str = "") -> Reply:
    """Move to `step` and ask its question (with `prefix` before it)."""
    conv.step = step
    conv.pending = []
    return await _settle(core, conv, await STEP_BY_NAME[step].ask(core, conv, prefix))


async def _next(core: Core, conv: OnboardingState, step: str, prefix: str = "") -> Reply:
    """Continue after `step` was answered: the next question, the end of an /edit detour, or saving."""
    after = following(conv, step)
    end_of_field = not after or STEP_BY_NAME[after].field != STEP_BY_NAME[step].field
    if end_of_field and conv.mode == "edit":
        return await _finish(core, conv, prefix)
    if end_of_field and conv.return_to:
        back, conv.return_to, conv.editing = conv.return_to, "", ""
        return await _ask(core, conv, back, _join(prefix, "Back to where we were."))
    if not after:
        return await _finish(core, conv, prefix)
    return await _ask(core, conv, after, prefix)


async def _finish(core: Core, conv: OnboardingState, prefix: str) -> Reply:
    user_key = conv.user_key
    draft = conv.draft
    if not draft.interests and not draft.authors:
        return await _ask(core, conv, "interests", _join(prefix, "I need at least one interest to rank papers by."))
    profile = build_profile(draft, profile_name(conv.display_name, user_key))
    await core.repo.ensure_user(user_key, conv.display_name)
    await core.repo.save_profile(profile_owner(user_key), profile)
    await core.repo.save_user_settings(
        user_key,
        digest_mode=draft.digest_mode,
        post_time=draft.post_time,
        timezone=draft.timezone,
        weekly_day=draft.weekly_day,
    )
    await learn.record_reactions(core, user_key, draft.ratings)
    conv.choices = []
    head = f"Saved your new {conv.editing}." if conv.mode == "edit" else "All set! Your profile is saved."
    shown = summary(draft, await _stored_ratings(core, user_key))
    text = "\n".join([*([prefix, ""] if prefix else []), head, "", shown, "", "Change one thing with /edit FIELD."])
    return Reply(text=text, step="", done=True, saved=True)


# --- the flow's commands ---


def which_field(typed: str) -> str:
    """'/edit autors' -> did you mean authors?; '/edit' alone lists the fields."""
    fields = ", ".join(FIELDS)
    close = difflib.get_close_matches(typed, [*FIELDS, *_FIELD_ALIASES], n=1, cutoff=0.6) if typed else []
    if close:
        meant = _FIELD_ALIASES.get(close[0], close[0])
        return f"There is no field '{typed[:30]}'; did you mean /edit {meant}? The fields: {fields}."
    return f"Which field? /edit one of: {fields}."


async def _edit(core: Core, conv: OnboardingState, argument: str) -> Reply:
    name = argument.strip().lower()
    name = _FIELD_ALIASES.get(name, name)
    if name not in FIELDS:
        return retry(conv, which_field(name), keep_choices=True)
    if conv.mode == "onboarding" and FIELDS[name] != conv.step:
        conv.return_to = conv.return_to or conv.step
    conv.editing = name
    if name == "ratings":
        conv.rate_ids, conv.rate_index = [], 0
    return await _ask(core, conv, field_steps(name)[0], f"Let's change your {name}.")


async def _back(core: Core, conv: OnboardingState) -> Reply:
    before = previous(conv, conv.step)
    first_of_field = conv.mode == "edit" and conv.step == field_steps(conv.editing)[0]
    if not before or first_of_field:
        return retry(conv, "This is the first question; /cancel stops instead.", keep_choices=True)
    if before == "rate" and conv.rate_ids:
        conv.rate_index = max(0, len(conv.rate_ids) - 1)
        return await _settle(core, conv, await STEP_BY_NAME["rate"].ask(core, conv, "Back to the last paper."))
    return await _ask(core, conv, before, "Going back.")


async def _again(core: Core, conv: OnboardingState, prefix: str) -> Reply:
    """Ask the current question again (a pending author or category question included), after `prefix`."""
    step = STEP_BY_NAME[conv.step]
    if conv.pending and step.pending_question is not None:
        text, choices = step.pending_question(conv.pending[0])
        return reply_to(conv, prefix, text, choices)
    if conv.step == "rate":  # keeps its place among the papers to rate
        return await _settle(core, conv, await step.ask(core, conv, prefix))
    offered = list(conv.choices)  # what the last reply offered ("Did you mean Europe/Paris?")
    reply = await _ask(core, conv, step.name, prefix)
    if offered and not reply.choices and not reply.done and reply.step == step.name:
        # a question with no choices of its own, asked again (/help, /status, a resumed conversation): the
        # suggestions made for the answer typed to it stay, so "1" still picks the first
        conv.choices = offered
        return dc_replace(reply, text=f"{reply.text}\nOr pick one of these:", choices=conv.choice_tuple())
    return reply


async def _command(core: Core, conv: OnboardingState, text: str) -> Reply | None:
    """Run a /command; None means the conversation was cancelled."""
    word, *rest = text.split(maxsplit=1)  # any white space ends the command, as `command_in` reads it
    word = word.lower().split("@", 1)[0]  # Telegram appends @botname in groups
    argument = rest[0] if rest else ""
    if word == "/cancel":
        return None
    if word == "/help":
        return await _again(core, conv, _HELP)
    if word == "/status":
        head = "Your answers so far:" if conv.mode == "onboarding" else "Your profile (not saved until the end):"
        return await _again(core, conv, _join(head, summary(conv.draft)))
    if word == "/skip":
        return await _settle(core, conv, await STEP_BY_NAME[conv.step].skip(core, conv))
    if word == "/back":
        return await _back(core, conv)
    if word == "/edit":
        return await _edit(core, conv, argument)
    if word in ("/start", "/interests", "/profile"):
        return await _again(core, conv, "We're in the middle of setting up your profile; here is where we were.")
    return await _again(core, conv, f"I don't know {word[:30]} here. {_HELP}")


# --- one turn, and the state between turns ---


async def advance(core: Core, conv: OnboardingState, raw: str) -> tuple[OnboardingState | None, Reply]:
    """One turn: the new state (None once the conversation ended) and the reply.

    Only the end of the conversation writes anything (profile, settings, ratings); storing the state between
    turns is the caller's job (`handle` does it).
    """
    text = clean_input(raw)
    if conv.choices and text.isdigit() and 1 <= int(text) <= len(conv.choices):
        text = conv.choices[int(text) - 1][1]
    if len(text) > MAX_INPUT:
        reply = retry(
            conv,
            f"That message is {len(text):,} characters; answers here are limited to {MAX_INPUT:,}. "
            "A few lines are plenty.",
            keep_choices=True,
        )
    elif command_in(text, FLOW_COMMANDS):  # "/r/MachineLearning style news" and "/ML theory" are answers
        command_reply = await _command(core, conv, text)
        if command_reply is None:
            return None, _cancelled(conv)
        reply = command_reply
    elif not text:
        reply = retry(conv, "I didn't get an answer.", keep_choices=True)
    else:
        reply = await _settle(core, conv, await STEP_BY_NAME[conv.step].answer(core, conv, text))
    return (None if reply.done else conv), reply


def _cancelled(conv: OnboardingState) -> Reply:
    if conv.mode == "edit":
        text = f"Cancelled; your {conv.editing or 'profile'} is unchanged."
    else:
        text = "Cancelled. Nothing new was saved; anything saved before is unchanged. Send /start to begin again."
    return Reply(text=text, step="", done=True)


async def load(core: Core, user_key: str) -> OnboardingState | None:
    """The user's unfinished conversation, if any (an unreadable or foreign one is dropped)."""
    stored = await core.repo.chat_state(user_key, STATE_KIND)
    if not stored:
        return None
    try:
        conv = OnboardingState.from_json(stored)
    except (ValueError, TypeError, KeyError):
        conv = None
    if conv is None or conv.user_key != user_key or conv.step not in STEP_BY_NAME:
        await core.repo.save_chat_state(user_key, STATE_KIND, "")
        return None
    return conv


async def _store(core: Core, conv: OnboardingState | None, user_key: str) -> None:
    await core.repo.save_chat_state(user_key, STATE_KIND, conv.to_json() if conv else "")


async def current_step(core: Core, user_key: str) -> str:
    """The step the user's unfinished conversation waits at ('' when there is none)."""
    conv = await load(core, user_key)
    return conv.step if conv else ""


async def is_active(core: Core, user_key: str) -> bool:
    """True when the user is in the middle of onboarding or editing."""
    return await load(core, user_key) is not None


async def _start(core: Core, user_key: str, display_name: str) -> Reply:
    if await load(core, user_key) is not None:
        return await _resume(core, user_key) or Reply(text=_HELP)
    # no `users` row yet: someone who starts and cancels has not become a member
    name = one_line(clean_input(display_name), 80)
    profile = await core.repo.get_profile(profile_owner(user_key))
    user = await core.repo.get_user(user_key)
    conv = OnboardingState(
        user_key=user_key,
        display_name=name or (user.display_name if user else ""),
        draft=draft_from_saved(profile, user),
    )
    greeting = (
        "Let's go through your profile again; /skip keeps an answer as it is."
        if profile
        else "Hi! Let's set up your personal paper feed. It takes about two minutes; /cancel stops at any time, "
        "and you can leave and come back later to continue."
    )
    reply = await _ask(core, conv, "interests", greeting)
    await _store(core, conv, user_key)
    return reply


async def _begin_edit(core: Core, user_key: str, field_name: str) -> Reply:
    if await load(core, user_key) is not None:
        return await _handle(core, user_key, f"/edit {field_name}")
    profile = await core.repo.get_profile(profile_owner(user_key))
    if profile is None:
        return Reply(text="You have no profile yet; send /start to make one.", done=True)
    name = _FIELD_ALIASES.get(field_name.strip().lower(), field_name.strip().lower())
    if name not in FIELDS:
        return Reply(text=which_field(name), done=True)
    user = await core.repo.get_user(user_key)
    conv = OnboardingState(
        user_key=user_key,
        mode="edit",
        editing=name,
        display_name=user.display_name if user else "",
        draft=draft_from_saved(profile, user),
    )
    reply = await _ask(core, conv, field_steps(name)[0], f"Editing your {name}; /cancel keeps it as it is.")
    await _store(core, None if reply.done else conv, user_key)
    return reply


async def _handle(core: Core, user_key: str, text: str) -> Reply:
    conv = await load(core, user_key)
    if conv is None:
        cleaned = clean_input(text)
        command = cleaned.split(" ", 1)[0].lower().split("@", 1)[0]
        if command == "/edit":
            return await _begin_edit(core, user_key, cleaned.partition(" ")[2])
        if command in ("/start", "/interests") or await core.repo.get_profile(profile_owner(user_key)) is None:
            return await _start(core, user_key, "")
        return Reply(
            text="Your profile is set up. /edit FIELD changes one answer; /start goes through all of it again.",
            done=True,
        )
    new_state, reply = await advance(core, conv, text)
    await _store(core, new_state, user_key)
    return reply


async def _resume(core: Core, user_key: str) -> Reply | None:
    conv = await load(core, user_key)
    if conv is None:
        return None
    reply = await _again(core, conv, "Welcome back! Let's continue where we stopped.")
    await _store(core, None if reply.done else conv, user_key)
    return reply


# One step at a time per user: every entry point reads the stored state, changes it and stores it again, and
# adapters may deliver two messages of one user at once.


async def start(core: Core, user_key: str, display_name: str = "") -> Reply:
    """Begin onboarding (pre-filled from a stored profile, if any), or resume an unfinished conversation."""
    check_user_key(user_key)
    async with core.user_locks(user_key):
        return await _start(core, user_key, display_name)


async def begin_edit(core: Core, user_key: str, field_name: str) -> Reply:
    """Change one field of a saved profile (or, during onboarding, jump to that field and come back)."""
    check_user_key(user_key)
    async with core.user_locks(user_key):
        return await _begin_edit(core, user_key, field_name)


async def handle(core: Core, user_key: str, text: str) -> Reply:
    """Feed one message (or button value) into the user's conversation and return what to show them.

    Without a conversation in progress, /edit FIELD starts editing that field; /start (or any message from someone
    without a profile) starts onboarding.
    """
    check_user_key(user_key)
    async with core.user_locks(user_key):
        return await _handle(core, user_key, text)


async def resume(core: Core, user_key: str) -> Reply | None:
    """Re-ask the question an unfinished conversation stopped at (None when there is none)."""
    check_user_key(user_key)
    async with core.user_locks(user_key):
        return await _resume(core, user_key)


async def ask_again(core: Core, user_key: str, prefix: str) -> Reply | None:
    """Ask the question an unfinished conversation waits at again, after `prefix` (None when there is none)."""
    check_user_key(user_key)
    async with core.user_locks(user_key):
        conv = await load(core, user_key)
        if conv is None:
            return None
        reply = await _again(core, conv, prefix)
        await _store(core, None if reply.done else conv, user_key)
        return reply


async def show_profile(core: Core, user_key: str) -> str:
    """The stored profile and digest settings as text ('' when the user has none)."""
    profile = await core.repo.get_profile(profile_owner(user_key))
    if profile is None:
        return ""
    user = await core.repo.get_user(user_key)
    return summary(draft_from_saved(profile, user), await _stored_ratings(core, user_key))


async def _stored_ratings(core: Core, user_key: str) -> dict[str, int]:
    return {f.paper_id: f.value for f in await core.repo.user_feedback_rows(user_key)}
