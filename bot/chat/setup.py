"""The admin's `/setup` of a channel's digest: categories, daily or weekly (the week's picks as a topic tree, on a
weekday), post time and time zone, the channel's interest profile (free text or a TOML file) and the digest size.

A front end with forms (Discord slash-command options) may hand every answer at once in `options`; the
conversation then asks only for what is missing. Step by step, each question shows the current value and /skip
keeps it, so running /setup again changes one thing. The half-done setup is stored per (admin, channel) in the
chat_state table, so it survives a restart; nothing is saved to the channel until the last answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from dataclasses import replace as dc_replace
from typing import TYPE_CHECKING

from bot.chat.messages import Attachment, Choice, Place, TextReply, Upload, choice_button
from bot.errors import InputError
from bot.ingest.taxonomy import check_category
from bot.members.settings import WEEKDAYS, SettingError, parse_post_time, parse_timezone, parse_weekday
from bot.models import DIGEST_SIZE, MAX_DIGEST_SIZE, Profile, Target, Topic
from bot.ranking.interest_spelling import corrected_items, read_as
from bot.ranking.profiles import profile_from_toml
from bot.store.profile_format import profile_from_mapping, profile_to_mapping, topic_name
from bot.text.safetext import clean_text

if TYPE_CHECKING:
    from bot.core import Core

KIND = "setup"
VERSION = 1
MAX_PROFILE_BYTES = 64_000  # an uploaded TOML profile; the bundled example is 2 KB
MAX_INTERESTS = 20
MAX_INTEREST_CHARS = 300
# what /setup takes at once, each with what it holds, for a platform that shows them as a form's fields
OPTIONS = {
    "categories": "arXiv categories, e.g. cs.LG, cs.CL",
    "schedule": "daily, or weekly with a day (the week's best grouped by topic), e.g. weekly Friday",
    "time": "Post time, e.g. 09:00",
    "timezone": "Time zone, e.g. Europe/Berlin",
    "profile": "What the channel reads about, in words (or attach a TOML profile)",
    "size": "Papers per digest",
}
OPTION_NAMES = tuple(OPTIONS)
OPTION_ALIASES = {"tz": "timezone"}
# `/setup categories=cs.LG,cs.AI time=08:30 tz=Europe/Berlin size=10 profile=...` typed on one line: the options a
# slash command has as fields, for every front end that only has text. Options are read only where they are expected:
# the line must start with one, each next one starts after a space, and `profile` takes the rest of the line, so a
# profile may say "learning-rate schedule: cosine" or "inference time:" as ordinary words.
ONE_LINE_USAGE = "[categories=… schedule=… time=… tz=… size=…] [profile=… (last: takes the rest of the line)]"
_OPTION_WORDS = "|".join(OPTION_NAMES + tuple(OPTION_ALIASES))
_OPTION_START = re.compile(rf"(?:^|(?<=\s))({_OPTION_WORDS})\s*[=:]", re.IGNORECASE)


@dataclass
class SetupDraft:
    """The answers so far; a channel that was set up before starts from what is stored."""

    step: str = "categories"
    categories: list[str] = field(default_factory=list)
    schedule: str = "daily"  # daily | weekly
    weekly_day: int = 0  # 0 = Monday
    post_time: str = "09:00"
    timezone: str = "UTC"
    interests: list[str] = field(default_factory=list)
    profile: dict[str, object] | None = None  # a whole profile (from a TOML file), replacing `interests`
    size: int = DIGEST_SIZE
    title: str = ""
    existing: bool = False
    choices: list[str] = field(default_factory=list)  # values of the last question's buttons
    version: int = VERSION

    def to_json(self) -> str:
        """The draft as JSON for the chat_state table."""
        return json.dumps(asdict(self), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> SetupDraft:
        """A stored draft; ValueError when it is not one of this version."""
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("version") != VERSION:
            raise ValueError("not a setup draft of this version")
        draft = cls(**data)
        if draft.step not in STEP_NAMES:
            raise ValueError(f"unknown setup step {draft.step!r}")
        return draft


# --- reading answers (each raises InputError with what would work) ---


def inline_options(args: str) -> dict[str, str]:
    """The ``name=value`` (or ``name: value``) answers written after /setup, by option name; {} when the text does not
    start with an option name (free text is not searched for option words). `profile` comes last and takes the rest
    of the line; an option given twice keeps its last value."""
    text = args.strip()
    starts = list(_OPTION_START.finditer(text))
    if not starts or starts[0].start() != 0:
        return {}
    options: dict[str, str] = {}
    for here, after in zip(starts, [*starts[1:], None], strict=True):
        name = here.group(1).lower()
        name = OPTION_ALIASES.get(name, name)
        if name == "profile":
            options[name] = text[here.end() :].strip()
            break
        options[name] = text[here.end() : after.start() if after else len(text)].strip()
    return options


def parse_categories(text: str) -> list[str]:
    """arXiv category codes from 'cs.LG, cs.AI' (canonical); InputError naming the first unknown one."""
    codes: list[str] = []
    for part in text.replace(";", ",").replace(",", " ").split():
        check = check_category(part)
        if check.code is None:
            hint = f"; did you mean {', '.join(check.suggestions)}?" if check.suggestions else ""
            raise InputError(f"'{check.text}' is {check.reason}{hint}")
        if check.code not in codes:
            codes.append(check.code)
    if not codes:
        raise InputError("name at least one arXiv category, e.g. cs.LG")
    return codes


def parse_interests(text: str) -> list[str]:
    """Interests one per line or separated by ';' (the channel profile in words), cleaned like any typed text."""
    items = [" ".join(item.split()) for item in clean_text(text).replace(";", "\n").splitlines()]
    items = [item for item in items if any(ch.isalnum() for ch in item)]
    if not items:
        raise InputError("describe the channel's interests in words, one topic per line or separated by ';'")
    if len(items) > MAX_INTERESTS:
        raise InputError(f"that is {len(items)} topics; a channel profile takes at most {MAX_INTERESTS}")
    long = next((item for item in items if len(item) > MAX_INTEREST_CHARS), None)
    if long is not None:
        raise InputError(f"a topic is limited to {MAX_INTEREST_CHARS} characters: '{long[:40]}…'")
    return list(dict.fromkeys(items))


def parse_schedule(text: str, weekly_day: int = 0) -> tuple[str, int]:
    """'daily', 'weekly', 'weekly Friday' or just 'Fri' -> (schedule, weekday, 0 = Monday); a bare 'weekly' keeps
    `weekly_day`. Raises `SettingError` (a weekday it cannot read) or `InputError`."""
    words = clean_text(text).lower().replace(",", " ").split()
    words = [w for w in words if w not in ("every", "on", "once", "a", "each")]
    if words in (["daily"], ["day"], ["days"]):
        return "daily", weekly_day
    said_weekly = bool(words) and words[0] in ("weekly", "week")
    if said_weekly:
        words = words[1:]
    if not words:
        if said_weekly:
            return "weekly", weekly_day
        # only filler words ('every', 'on', 'once'): nothing says weekly, so nothing is guessed
        raise InputError("answer daily, or weekly with a day of the week (e.g. weekly Friday)")
    if len(words) == 1:
        return "weekly", parse_weekday(words[0].removesuffix("s") if words[0].endswith("days") else words[0])
    raise InputError("answer daily, or weekly with a day of the week (e.g. weekly Friday)")


def parse_size(text: str) -> int:
    """A digest size from 1 to `MAX_DIGEST_SIZE`."""
    cleaned = text.strip()
    if not cleaned.isascii() or not cleaned.isdigit() or not 1 <= int(cleaned) <= MAX_DIGEST_SIZE:
        raise InputError(f"the digest size is a number from 1 to {MAX_DIGEST_SIZE}")
    return int(cleaned)


def check_profile_size(name: str, size: int) -> None:
    """Refuse a profile file of `size` bytes when it is over the bound (`InputError`, naming it)."""
    if size > MAX_PROFILE_BYTES:
        raise InputError(f"{name[:60]} is over {MAX_PROFILE_BYTES // 1000} KB; a profile is a few KB")


async def read_profile_file(upload: Upload) -> Attachment:
    """A member's attached file, downloaded only when the size the platform states (if any) fits a profile, and
    checked again once read (`check_profile_size`)."""
    check_profile_size(upload.name, upload.size or 0)
    data = await upload.download()
    check_profile_size(upload.name, len(data))
    return Attachment(upload.name, data)


def parse_profile_file(attachment: Attachment) -> dict[str, object]:
    """An uploaded TOML profile, validated, as a mapping to store in the draft."""
    check_profile_size(attachment.name, len(attachment.data))
    try:
        text = attachment.data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{attachment.name[:60]} is not UTF-8 text; send the TOML profile file") from None
    profile = profile_from_toml(text, attachment.name[:60] or "the attached file")
    return profile_to_mapping(profile)


# --- the steps ---


@dataclass(frozen=True, slots=True)
class SetupStep:
    """One question of /setup: its prompt (from the draft), how an answer is applied, and the option name."""

    name: str
    prompt: Callable[[Core, SetupDraft], str]
    apply: Callable[[SetupDraft, str], None]


def _apply_categories(draft: SetupDraft, text: str) -> None:
    draft.categories = parse_categories(text)


def _apply_schedule(draft: SetupDraft, text: str) -> None:
    draft.schedule, draft.weekly_day = parse_schedule(text, draft.weekly_day)


def _apply_time(draft: SetupDraft, text: str) -> None:
    draft.post_time = parse_post_time(text)


def _apply_timezone(draft: SetupDraft, text: str) -> None:
    draft.timezone = parse_timezone(text)


def _apply_profile(draft: SetupDraft, text: str) -> None:
    stripped = text.strip()
    if _TOML_PROFILE.search(stripped):
        draft.profile = profile_to_mapping(profile_from_toml(stripped, "the pasted profile"))
        draft.interests = []
        return
    draft.interests = parse_interests(text)
    draft.profile = None


_TOML_PROFILE = re.compile(r"^\s*(?:\[|name\s*=)", re.MULTILINE)  # a table header or `name =` on a line of its own


def _apply_size(draft: SetupDraft, text: str) -> None:
    draft.size = parse_size(text)


def _schedule_now(schedule: str, weekly_day: int) -> str:
    return f"weekly on {WEEKDAYS[weekly_day % 7]}" if schedule == "weekly" else "daily"


def _profile_now(draft: SetupDraft) -> str:
    if draft.profile is not None:
        topics = draft.profile.get("topics") or []
        return f"the TOML profile '{draft.profile.get('name', 'profile')}' ({len(topics)} topics)"  # type: ignore[arg-type]
    return "; ".join(draft.interests)


STEPS: tuple[SetupStep, ...] = (
    SetupStep(
        "categories",
        lambda core, d: (
            "Which arXiv categories should this channel's digest cover? (e.g. cs.LG, cs.CL, stat.ML)"
            f"\nNow: {', '.join(d.categories or core.settings.categories)}"
        ),
        _apply_categories,
    ),
    SetupStep(
        "schedule",
        lambda core, d: (
            "Daily or weekly? Daily posts each announcement day's best papers; weekly posts the week's best, grouped "
            "by topic, on the day you name (e.g. weekly Friday)."
            f"\nNow: {_schedule_now(d.schedule, d.weekly_day)}"
        ),
        _apply_schedule,
    ),
    SetupStep(
        "time",
        lambda core, d: f"At what time should it be posted? (e.g. 09:00 or 7pm)\nNow: {d.post_time}",
        _apply_time,
    ),
    SetupStep(
        "timezone",
        lambda core, d: f"In which time zone? (e.g. Europe/Berlin, America/New_York, UTC)\nNow: {d.timezone}",
        _apply_timezone,
    ),
    SetupStep(
        "profile",
        lambda core, d: (
            "What should the channel read about? Send its interests in words, one topic per line or "
            "separated by ';', or attach a TOML profile file."
            + (f"\nNow: {_profile_now(d)}" if d.interests or d.profile else "")
        ),
        _apply_profile,
    ),
    SetupStep(
        "size", lambda core, d: f"How many papers per digest? (1 to {MAX_DIGEST_SIZE})\nNow: {d.size}", _apply_size
    ),
)
STEP_NAMES = tuple(step.name for step in STEPS)
_BY_NAME = {step.name: step for step in STEPS}
_OPTION_STEP = {
    "categories": "categories",
    "schedule": "schedule",
    "time": "time",
    "timezone": "timezone",
    "profile": "profile",
    "size": "size",
}


def _has_answer(draft: SetupDraft, step: str) -> bool:
    return step != "profile" or bool(draft.interests or draft.profile)


# --- state ---


async def load(core: Core, user_key: str, place: Place) -> SetupDraft | None:
    """The admin's unfinished /setup of `place`, if any (an unreadable one is dropped)."""
    stored = await core.repo.chat_state(user_key, KIND, place.key)
    if not stored:
        return None
    try:
        return SetupDraft.from_json(stored)
    except (ValueError, TypeError):
        await core.repo.save_chat_state(user_key, KIND, "", place.key)
        return None


def _default_choices(draft: SetupDraft) -> list[str]:
    """Buttons a question offers before any answer (the schedule's two kinds)."""
    if draft.step == "schedule":
        return ["daily", f"weekly {WEEKDAYS[draft.weekly_day % 7]}"]
    return []


async def _store(core: Core, user_key: str, place: Place, draft: SetupDraft | None) -> None:
    if draft is not None and not draft.choices:
        draft.choices = _default_choices(draft)
    await core.repo.save_chat_state(user_key, KIND, draft.to_json() if draft else "", place.key)


async def _draft_from_stored(core: Core, place: Place) -> SetupDraft:
    found = await core.repo.target_at(place.platform, place.chat_id)
    if found is None:
        return SetupDraft(categories=list(core.settings.categories), size=core.settings.digest_size, title=place.title)
    target, profile = found
    draft = SetupDraft(
        categories=list(target.categories),
        schedule=target.schedule,
        weekly_day=target.weekly_day,
        post_time=target.post_time,
        timezone=target.timezone,
        size=target.digest_size,
        title=place.title,
        existing=True,
    )
    if all(not t.avoid for t in profile.topics) and not (profile.boost or profile.penalize or profile.applications):
        draft.interests = [t.want for t in profile.topics]
    else:
        draft.profile = profile_to_mapping(profile)
    return draft


def _question(core: Core, draft: SetupDraft, prefix: str = "") -> TextReply:
    step = _BY_NAME[draft.step]
    keep = "\n(/skip keeps it, /cancel stops without saving.)" if _has_answer(draft, draft.step) else ""
    text = step.prompt(core, draft) + keep
    choices = tuple(Choice(value, choice_button(f"setup-{draft.step}", n)) for n, value in enumerate(draft.choices, 1))
    return TextReply("\n\n".join(p for p in (prefix, text) if p), choices=choices)


async def begin(
    core: Core, user_key: str, place: Place, options: dict[str, str], attachment: Attachment | None
) -> TextReply:
    """Start (or restart) /setup of `place`, applying any answers given at once; saves when nothing is missing."""
    draft = await _draft_from_stored(core, place)
    given: list[str] = []
    for name, value in options.items():
        step = name if name in OPTION_NAMES else None
        if step is None or not value.strip():
            continue
        try:
            _BY_NAME[step].apply(draft, value)
        except InputError as exc:
            return TextReply(f"/setup {name}: {exc}. Nothing was changed.", ephemeral=True)
        given.append(step)
    if attachment is not None:
        try:
            draft.profile, draft.interests = parse_profile_file(attachment), []
        except InputError as exc:
            return TextReply(f"/setup: {exc}. Nothing was changed.", ephemeral=True)
        given.append("profile")
    read = await _corrected_interests(core, draft) if "profile" in given else ""
    # a form or one line that leaves the schedule out means daily (or what the channel had): only a step-by-step
    # /setup asks for it
    missing = [
        s for s in STEP_NAMES if s not in given and s != "schedule" and not (draft.existing and _has_answer(draft, s))
    ]
    if given and not missing:
        return _told(read, await _finish(core, user_key, place, draft))
    # step by step from the first unanswered question, or through every one when re-running /setup bare
    todo = [s for s in STEP_NAMES if s not in given]
    draft.step = todo[0] if given else STEP_NAMES[0]
    await _store(core, user_key, place, draft)
    where = f" for {place.title}" if place.title else ""
    head = (
        f"Let's change the digest settings{where}; /skip keeps an answer."
        if draft.existing
        else f"Let's set up the arXiv digest{where}. /cancel stops at any time."
    )
    return _question(core, draft, "\n\n".join(p for p in (read, head) if p))


async def answer(core: Core, user_key: str, place: Place, text: str, attachment: Attachment | None) -> TextReply:
    """Apply one answer (or /skip, /back) to the stored draft and ask the next question, or save."""
    draft = await load(core, user_key, place)
    if draft is None:
        return TextReply("There is no /setup in progress here; send /setup to start one.")
    command, read = text.strip().lower(), ""
    try:
        if attachment is not None and draft.step == "profile":
            draft.profile, draft.interests = parse_profile_file(attachment), []
        elif command == "/skip":
            if not _has_answer(draft, draft.step):
                raise InputError("this channel needs interests to rank papers by, so this one can't be skipped")
        elif command == "/back":
            index = STEP_NAMES.index(draft.step)
            draft.step = STEP_NAMES[max(0, index - 1)]
            draft.choices = []
            await _store(core, user_key, place, draft)
            return _question(core, draft, "Going back.")
        elif not text.strip():
            raise InputError("I didn't get an answer")
        else:
            value = text.strip()
            if value.isdigit() and draft.choices and 1 <= int(value) <= len(draft.choices):
                value = draft.choices[int(value) - 1]
            _BY_NAME[draft.step].apply(draft, value)
            read = await _corrected_interests(core, draft) if draft.step == "profile" else ""
    except SettingError as exc:
        draft.choices = list(exc.suggestions)
        await _store(core, user_key, place, draft)
        hint = " Did you mean one of these?" if exc.suggestions else ""
        return _question(core, draft, f"{exc}.{hint}")
    except InputError as exc:
        return _question(core, draft, f"{exc}.")
    draft.choices = []
    index = STEP_NAMES.index(draft.step)
    if index + 1 < len(STEP_NAMES):
        draft.step = STEP_NAMES[index + 1]
        await _store(core, user_key, place, draft)
        return _question(core, draft, read)
    return _told(read, await _finish(core, user_key, place, draft))


async def _corrected_interests(core: Core, draft: SetupDraft) -> str:
    """The draft's interests in words, typed just now, corrected as a member's are (`corrected_items`: misspelt words
    read as the stored papers write them, quoted ones kept); the sentence saying how they were read, or ''."""
    if not draft.interests:
        return ""
    draft.interests, made = await corrected_items(core, draft.interests)
    return read_as(made)


def _told(read: str, reply: TextReply) -> TextReply:
    """`reply` after the sentence saying how the interests were read (when they were corrected)."""
    return dc_replace(reply, text=f"{read}\n\n{reply.text}") if read else reply


def channel_profile(draft: SetupDraft, place: Place) -> Profile:
    """The profile a finished draft describes (its categories are the channel's)."""
    if draft.profile is not None:
        profile = profile_from_mapping(draft.profile)
        return profile if profile.categories else dc_replace(profile, categories=tuple(draft.categories))
    name = f"{draft.title or place.key} digest"
    topics = tuple(Topic(name=topic_name(item), want=item) for item in draft.interests)
    return Profile(name=name, topics=topics, categories=tuple(draft.categories))


async def _finish(core: Core, user_key: str, place: Place, draft: SetupDraft) -> TextReply:
    if not draft.interests and draft.profile is None:
        draft.step = "profile"
        await _store(core, user_key, place, draft)
        return _question(core, draft, "One thing is missing: what the channel should read about.")
    profile = channel_profile(draft, place)
    await core.repo.save_profile(place.key, profile)
    target = Target(
        platform=place.platform,
        chat_id=place.chat_id,
        profile_name=profile.name,
        categories=tuple(draft.categories),
        post_time=draft.post_time,
        timezone=draft.timezone,
        digest_size=draft.size,
        schedule=draft.schedule,
        weekly_day=draft.weekly_day,
    )
    await core.repo.save_target(target, place.key)
    await _store(core, user_key, place, None)
    head = "Saved. " if draft.existing else "All set! "
    return TextReply(head + "This channel's digest:\n" + await describe_target(core, place))


async def cancel(core: Core, user_key: str, place: Place) -> bool:
    """Drop an unfinished /setup of `place`; True when there was one."""
    if await load(core, user_key, place) is None:
        return False
    await _store(core, user_key, place, None)
    return True


async def describe_target(core: Core, place: Place) -> str:
    """A channel's digest settings in a few lines ('' when it has none)."""
    found = await core.repo.target_at(place.platform, place.chat_id)
    if found is None:
        return ""
    target, profile = found
    topics = "; ".join(t.name for t in profile.topics) or "(none)"
    collected = core.settings.categories
    outside = [c for c in target.categories if c not in collected]
    lines = [
        f"Categories: {', '.join(target.categories)}",
        *(
            [
                f"Note: I collect {', '.join(collected)} only, so {', '.join(outside)} will show papers cross-listed "
                "there until the operator adds them (PAPERSCOUT_CATEGORIES)."
            ]
            if outside
            else []
        ),
        (
            f"Posted: every {WEEKDAYS[target.weekly_day % 7]} at {target.post_time} ({target.timezone}), the week's "
            f"{target.digest_size} best papers grouped by topic"
            if target.schedule == "weekly"
            else f"Posted: every announcement day at {target.post_time} ({target.timezone}), "
            f"{target.digest_size} papers"
        ),
        f"Profile: {profile.name}: {topics}",
    ]
    extras = [
        f"{len(v)} {k}" for k, v in (("boost keywords", profile.boost), ("watched authors", profile.authors)) if v
    ]
    if extras:
        lines.append("Also: " + ", ".join(extras))
    lines.append("Status: paused (/resume starts it again)" if target.paused else "Status: active (/pause stops it)")
    return "\n".join(lines)
