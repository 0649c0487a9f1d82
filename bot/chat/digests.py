"""Digests in a conversation: /digest (a member's own in a DM; in a channel, its admins' now, preview, pause and
resume) and /mydigest (a member's digest schedule)."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from bot.chat import admin
from bot.chat.messages import DigestReply, Reply, TextReply
from bot.chat.onboarding_replies import onboarding_reply
from bot.chat.turns import Turn, member_profile, save_numbering, text_reply, today
from bot.digests.due import week_ending
from bot.members import onboarding
from bot.members.personal import personal_digest
from bot.members.settings import (
    WEEKDAYS,
    SettingError,
    describe_settings,
    parse_post_time,
    parse_timezone,
    parse_weekday,
)
from bot.views.model import digest_view

if TYPE_CHECKING:
    from bot.models import Profile, Target


async def digest(turn: Turn) -> list[Reply]:
    """/digest [weekly]: the member's own digest in a DM; the channel's admin words elsewhere."""
    core, word = turn.core, turn.args.lower()
    if not turn.place.is_dm or word in ("now", "preview", "pause", "resume"):  # the console's channel is a DM
        return await _channel_digest(turn, word)
    if word not in ("", "daily", "weekly", "today"):
        return text_reply("Use /digest or /digest weekly.", ephemeral=True)
    editing = await onboarding.is_active(core, turn.user)
    if await member_profile(core, turn.user) is None:
        if editing:  # setting up a first profile: nothing to rank by yet, so how to finish it (or stop)
            told = (
                "Your profile is not saved yet, so there is no digest to show: answer the question below to finish "
                "setting it up (then /digest works), or /cancel to stop."
            )
            return await _flow_again(turn, told)
        return text_reply("You have no profile yet; /start makes one (about two minutes).")
    day = await today(core)
    built = await personal_digest(core, turn.user, day, weekly=word == "weekly")
    view = digest_view(built)
    await save_numbering(core, turn.user, view.items)
    replies: list[Reply] = [DigestReply(view)]
    if view.items:
        replies.append(TextReply("Rate papers with /up N or /down N: your next digest learns from it (/reactions)."))
    if editing:  # an /edit (or a new onboarding) left open: the digest is the saved profile's, and the edit waits
        told = (
            "This digest is from your saved profile; the changes you are making are not saved yet. Answer the "
            "question below to finish, or /cancel to keep your profile as it is."
        )
        replies += await _flow_again(turn, told)
    return replies


async def _flow_again(turn: Turn, told: str) -> list[Reply]:
    """The open onboarding or edit's question asked again after `told`."""
    again = await onboarding.ask_again(turn.core, turn.user, told)
    return [onboarding_reply(again) if again is not None else TextReply(told)]


async def _channel_digest(turn: Turn, word: str) -> list[Reply]:
    if not turn.msg.speaker.is_admin:
        return text_reply(
            "/digest in a channel is for its admins; in a DM with me, /digest is your own.", ephemeral=True
        )
    if word == "pause":
        return await admin.pause(turn)
    if word == "resume":
        return await admin.resume(turn)
    core = turn.core
    found = await core.repo.target_at(turn.place.platform, turn.place.chat_id)
    if found is None:
        return text_reply(admin.NO_DIGEST, ephemeral=True)
    if word == "now":
        return await _post_now(turn, *found)
    if word not in ("", "preview"):
        return text_reply("In a channel: /digest now, preview, pause or resume.", ephemeral=True)
    from bot.digests.build import build_channel_digest

    target, profile = found
    built = await build_channel_digest(core, target, profile, await _digest_day(turn, target))
    view = digest_view(built)
    await save_numbering(core, turn.user, view.items)  # its footer offers /why N and /more N: N is of this list
    return [
        TextReply("Preview (not posted, and it does not count as today's post):", ephemeral=True),
        DigestReply(view),
    ]


async def _digest_day(turn: Turn, target: Target) -> dt.date:
    """The day a channel's digest now is filed under in the ledger, as the scheduler files it: the latest stored
    announcement day, or for a weekly channel the latest of its weekday on or before that (its week's end), so the
    week is not posted again under another date."""
    day = await today(turn.core)
    return week_ending(day, target.weekly_day) if target.schedule == "weekly" else day


async def _post_now(turn: Turn, target: Target, profile: Profile) -> list[Reply]:
    """Post the channel's digest of today through the ledger, so the scheduled post knows it went out."""
    if turn.poster is None:
        return text_reply(
            "Posting needs the running bot (paperscout run); /digest preview shows it here.", ephemeral=True
        )
    from bot.digests.delivery import deliver_digest

    day = await _digest_day(turn, target)
    result = await deliver_digest(turn.core, turn.poster, target, profile, day)
    notes = {
        "sent": f"Posted the digest of {day.isoformat()} ({result.detail}).",
        "already-sent": f"The digest of {day.isoformat()} was already posted here.",
        "failed": f"The digest could not be posted: {result.detail[:300]}",
    }
    return text_reply(notes.get(result.status, result.status), ephemeral=True)


async def mydigest(turn: Turn) -> list[Reply]:
    """/mydigest [off|daily|weekly] [TIME] [ZONE]: show or change the member's digest schedule."""
    core, user = turn.core, turn.user
    if await member_profile(core, user) is None:
        return text_reply("You have no profile yet; /start makes one, then /mydigest daily turns your digest on.")
    stored = await core.repo.get_user(user)
    if not turn.args:
        return text_reply(
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
        return text_reply(f"{exc}.{hint}", ephemeral=True)
    await core.repo.save_user_settings(user, digest_mode=mode, post_time=post_time, timezone=zone, weekly_day=weekday)
    return text_reply("Saved. " + describe_settings(await core.repo.get_user(user)))
