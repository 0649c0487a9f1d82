"""Delivery: the `Poster` protocol every front end implements, exactly-once posting of a digest, and the policy
for places that are gone (`retire`).

The posting ledger makes a digest for (target, day) go out once: it is claimed before sending and marked
sent after, so a crash in between posts it on restart rather than skipping it, and a finished post is
never repeated.

A poster splits a digest into its messages (`digest_messages`, then `send_digest_message` for each), which gives
message-level exactly-once: the digest is frozen in the ledger when claimed, each message is recorded with its
platform id the moment the platform accepts it, and a restart after a crash sends only the messages that had not
gone out. `deliver` does it all for one digest; a fan-out calls `prepare` (claim, build, freeze, render) for every
due digest first and `send_prepared` after, so a crash part-way through has only sends left to redo.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import json
import logging
import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from bot.digests.build import build_channel_digest
from bot.errors import PaperscoutError
from bot.models import Digest, DigestSection, Paper, Profile, ScoredPaper, Target

if TYPE_CHECKING:
    from bot.core import Core

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 4
MAX_BACKOFF_SECONDS = 300.0
FIRST_BACKOFF_SECONDS = 2.0
MIN_RETRY_SECONDS = 0.5  # a platform's "retry after 0" still gets a moment, so a refused burst does not hammer it


class DeliveryError(PaperscoutError):
    """A platform refused or failed a post; `retry_after` is set when the platform said when to retry."""

    def __init__(self, message: str, *, retry_after: float | None = None, permanent: bool = False) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.permanent = permanent


@runtime_checkable
class Poster(Protocol):
    """A front end's digest poster: it sends a digest one message at a time, so delivery can record and resume each
    message. Front ends subclass `bot.digests.poster.PlatformPoster`, which implements this."""

    platform: str

    def digest_messages(self, target: Target, digest: Digest) -> Sequence[object]:
        """The digest rendered as the platform's messages, in order (the same digest gives the same messages)."""
        ...

    async def send_digest_message(
        self, target: Target, message: object, position: int, sent: Sequence[str], nonce: str
    ) -> str:
        """Send message `position`; returns the platform's id for it, or raises `DeliveryError`.

        `sent` holds the ids of the messages before it, in order (a platform may thread the rest under the first);
        `nonce` is the same for this message across restarts, for platforms that can refuse a second copy.
        """
        ...

    def missing_permissions(self, chat: str) -> list[str]:
        """What the bot lacks to post a digest in `chat`, as the platform's settings name it (none where it cannot
        tell)."""
        ...

    def permission_problem(self, chat: str, reason: str) -> str:
        """The admin's line for a permission the bot lacks in `chat` (`bot.digests.poster.permission_line`)."""
        ...


@dataclass(frozen=True, slots=True)
class DeliveryResult:
    """What happened to one target's digest."""

    target: Target
    day: dt.date
    status: str  # sent | already-sent | failed | skipped
    detail: str = ""
    permanent: bool = False  # failed for good (the bot was removed, the user blocked it): do not retry


def retry_wait(error: DeliveryError, attempt: int, rng: random.Random | None = None) -> float:
    """How long to wait before retry `attempt` (1-based): the platform's retry_after when it gave one (never
    less; zero is a short pause), else an exponential back-off with jitter, so many targets failing at once do not
    retry in step."""
    if error.retry_after is not None:
        return min(max(error.retry_after, MIN_RETRY_SECONDS), MAX_BACKOFF_SECONDS)
    ceiling = min(FIRST_BACKOFF_SECONDS * 2 ** (attempt - 1), MAX_BACKOFF_SECONDS)
    return (rng or random).uniform(ceiling / 2, ceiling)


@dataclass(frozen=True, slots=True)
class PreparedDigest:
    """A digest claimed in the ledger, frozen there and rendered as the platform's messages: all that is left is to
    send them."""

    target: Target
    day: dt.date
    digest: Digest
    messages: Sequence[object]


async def deliver(
    core: Core, poster: Poster, target: Target, day: dt.date, build: Callable[[], Awaitable[Digest]]
) -> DeliveryResult:
    """Build (with `build`) and post the digest of `day` for `target` unless the ledger says it went out already."""
    if target.id is None:
        raise ValueError("a target must be saved before posting to it")
    # one delivery of a digest at a time in this process: the ledger lets a claim take over a "claimed" row (how a
    # restart resumes a digest a crash cut short), so the scheduled post and an admin's /digest now at the same
    # moment would both send; the second waits here and then finds it sent
    async with _delivery_lock(core, target, day):
        prepared = await _prepare_claimed(core, poster, target, day, build)
        if isinstance(prepared, DeliveryResult):
            return prepared
        return await _send_claimed(core, poster, prepared)


async def prepare(
    core: Core, poster: Poster, target: Target, day: dt.date, build: Callable[[], Awaitable[Digest]]
) -> PreparedDigest | DeliveryResult:
    """Claim, build, freeze and render the digest of `day` for `target` without sending anything (a fan-out
    prepares every due digest first, so a crash in the middle of it has only sends left to redo); the
    `DeliveryResult` when there is nothing to send (it went out already)."""
    if target.id is None:
        raise ValueError("a target must be saved before posting to it")
    async with _delivery_lock(core, target, day):
        return await _prepare_claimed(core, poster, target, day, build)


async def send_prepared(core: Core, poster: Poster, prepared: PreparedDigest) -> DeliveryResult:
    """Send the messages of a prepared digest the ledger does not hold as sent (another delivery may have sent some
    or all of them since it was prepared), then mark it sent."""
    async with _delivery_lock(core, prepared.target, prepared.day):
        return await _send_claimed(core, poster, prepared)


def _delivery_lock(core: Core, target: Target, day: dt.date) -> asyncio.Lock:
    return core.user_locks(f"deliver|{target.id}|{day.isoformat()}")


async def _prepare_claimed(
    core: Core, poster: Poster, target: Target, day: dt.date, build: Callable[[], Awaitable[Digest]]
) -> PreparedDigest | DeliveryResult:
    assert target.id is not None
    if not await core.repo.claim_post(target.id, day):
        return DeliveryResult(target, day, "already-sent")
    frozen = await core.repo.frozen_digest(target.id, day)
    if not frozen:
        frozen = await core.repo.freeze_digest(target.id, day, digest_to_json(await build()))
    digest = digest_from_json(frozen)
    return PreparedDigest(target, day, digest, list(poster.digest_messages(target, digest)))


async def _send_claimed(core: Core, poster: Poster, prepared: PreparedDigest) -> DeliveryResult:
    target, day = prepared.target, prepared.day
    assert target.id is not None
    try:
        refs = await _send_by_message(core, poster, prepared)
    except DeliveryError as exc:
        log.error("digest for %s on %s not delivered: %s", target.key, day, exc)
        await core.repo.note_post_failure(target.id, day, str(exc))
        if exc.permanent:
            await retire(core, target, str(exc))
        return DeliveryResult(target, day, "failed", str(exc), permanent=exc.permanent)
    digest = prepared.digest
    await core.repo.mark_sent(target.id, day, [i.paper.id for i in digest.items], detail=",".join(refs)[:500])
    log.info("digest for %s on %s sent: %d papers in %d messages", target.key, day, digest.picked, len(refs))
    return DeliveryResult(target, day, "sent", f"{digest.picked} papers")


async def retire(core: Core, target: Target, reason: str) -> None:
    """The policy for a place the bot can no longer post to (blocked, kicked, a closed DM, a deleted channel), the
    same on every platform: a member's personal digest is turned off (`/mydigest daily` turns it on again), a
    channel's digest turns inactive (an admin's `/setup` there clears it). Never retried every minute; retiring a
    retired place again (the reply path and the digest tick both meet a gone chat) changes and logs nothing."""
    member = target.member
    if member:
        user = await core.repo.get_user(member)
        if user is not None and user.digest_mode != "off":
            await core.repo.save_user_settings(
                member, digest_mode="off", post_time=user.post_time, timezone=user.timezone, weekly_day=user.weekly_day
            )
            log.warning("personal digest of %s turned off: the bot cannot write to them (%s)", member, reason[:200])
        return
    if target.id is not None and await core.repo.set_target_inactive(target.id, reason):
        log.warning("digest of %s inactive (not retried until set up again): %s", target.key, reason[:200])


async def _send_by_message(core: Core, poster: Poster, prepared: PreparedDigest) -> list[str]:
    """Send the digest's messages not recorded as sent yet, recording each as it goes out."""
    target, day, messages = prepared.target, prepared.day, prepared.messages
    assert target.id is not None
    journal = core.sent_journal
    sent = {**(journal.sent(target.id, day) if journal else {}), **await core.repo.sent_messages(target.id, day)}
    for seq, message in enumerate(messages):
        if seq in sent:
            continue
        for attempt in range(1, MAX_ATTEMPTS + 1):
            try:
                before = [sent[i] for i in range(seq) if i in sent]
                sent[seq] = await poster.send_digest_message(target, message, seq, before, f"{target.id}:{day}:{seq}")
                if journal is not None:  # at once, before waiting for the database (see bot.digests.sent_journal)
                    journal.note(target.id, day, seq, sent[seq])
                break
            except DeliveryError as exc:
                if exc.permanent or attempt == MAX_ATTEMPTS:
                    raise
                wait = retry_wait(exc, attempt)
                log.warning("message %d to %s failed (%s); retry %d in %.1fs", seq, target.key, exc, attempt, wait)
                await asyncio.sleep(wait)
        await core.repo.record_message(target.id, day, seq, sent[seq])
    for seq, message_id in sent.items():  # lines only the journal had (a crash before the ledger got them)
        await core.repo.record_message(target.id, day, seq, message_id)
    return [sent[i] for i in sorted(sent)]


def digest_to_json(digest: Digest) -> str:
    """A digest as JSON, to freeze it in the ledger."""
    return json.dumps(dataclasses.asdict(digest), default=_json_default, ensure_ascii=False)


def digest_from_json(text: str) -> Digest:
    """The digest frozen by `digest_to_json`."""
    data = json.loads(text)
    items = []
    for raw in data.pop("items"):
        paper = raw.pop("paper")
        paper = Paper(
            **{
                **paper,
                "authors": tuple(paper["authors"]),
                "categories": tuple(paper["categories"]),
                "announced": dt.date.fromisoformat(paper["announced"]),
            }
        )
        items.append(
            ScoredPaper(
                paper=paper, **{**raw, "reasons": tuple(raw["reasons"]), "author_hits": tuple(raw["author_hits"])}
            )
        )
    return Digest(
        **{
            **data,
            "day": dt.date.fromisoformat(data["day"]),
            "start": dt.date.fromisoformat(data["start"]) if data.get("start") else None,
            "items": tuple(items),
            "notes": tuple(data["notes"]),
            "sections": tuple(DigestSection(**s) for s in data.get("sections") or ()),
        }
    )


def _json_default(value: object) -> object:
    if isinstance(value, dt.date):
        return value.isoformat()
    raise TypeError(f"cannot store {type(value).__name__} in a frozen digest")


async def deliver_digest(core: Core, poster: Poster, target: Target, profile: Profile, day: dt.date) -> DeliveryResult:
    """Build and post the channel digest of `day` for `target` once (see `deliver`): the day's, or the week's topic
    tree for a weekly channel."""
    return await deliver(core, poster, target, day, lambda: build_channel_digest(core, target, profile, day))
