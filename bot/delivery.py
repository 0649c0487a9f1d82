"""Delivery: the `Poster` protocol every chat adapter implements, and exactly-once posting of a digest.

The posting ledger makes a digest for (target, day) go out once: it is claimed before sending and marked
sent after, so a crash in between posts it on restart rather than skipping it, and a finished post is
never repeated.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from bot.core import Core
from bot.digest import build_digest
from bot.errors import PaperscoutError
from bot.models import Digest, Profile, Target

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 4
MAX_BACKOFF_SECONDS = 300.0


class DeliveryError(PaperscoutError):
    """A platform refused or failed a post; `retry_after` is set when the platform said when to retry."""

    def __init__(self, message: str, *, retry_after: float | None = None, permanent: bool = False) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.permanent = permanent


class Poster(Protocol):
    """Sends rendered digests and replies to one platform."""

    platform: str

    async def post_digest(self, target: Target, digest: Digest) -> list[str]:
        """Post `digest` to `target`; returns the platform's message references."""
        ...

    async def send_text(self, target: Target, text: str) -> list[str]:
        """Post plain text (split to the platform's limits) to `target`."""
        ...


@dataclass(frozen=True, slots=True)
class DeliveryResult:
    """What happened to one target's digest."""

    target: Target
    day: dt.date
    status: str  # sent | already-sent | failed
    detail: str = ""


async def send_with_retries(poster: Poster, target: Target, digest: Digest) -> list[str]:
    """Post with bounded retries, waiting what the platform asks (or an exponential back-off)."""
    delay = 2.0
    for attempt in range(1, MAX_ATTEMPTS + 1):
        try:
            return await poster.post_digest(target, digest)
        except DeliveryError as exc:
            if exc.permanent or attempt == MAX_ATTEMPTS:
                raise
            wait = min(exc.retry_after if exc.retry_after is not None else delay, MAX_BACKOFF_SECONDS)
            log.warning("posting to %s failed (%s); retry %d in %.1fs", target.key, exc, attempt, wait)
            await asyncio.sleep(wait)
            delay *= 2
    raise AssertionError("unreachable")


async def deliver(
    core: Core, poster: Poster, target: Target, day: dt.date, build: Callable[[], Awaitable[Digest]]
) -> DeliveryResult:
    """Build (with `build`) and post the digest of `day` for `target` unless the ledger says it went out already."""
    if target.id is None:
        raise ValueError("a target must be saved before posting to it")
    if not await core.repo.claim_post(target.id, day):
        return DeliveryResult(target, day, "already-sent")
    digest = await build()
    try:
        refs = await send_with_retries(poster, target, digest)
    except DeliveryError as exc:
        log.error("digest for %s on %s not delivered: %s", target.key, day, exc)
        return DeliveryResult(target, day, "failed", str(exc))
    await core.repo.mark_sent(target.id, day, [i.paper.id for i in digest.items], detail=",".join(refs)[:500])
    return DeliveryResult(target, day, "sent", f"{digest.picked} papers")


async def deliver_digest(core: Core, poster: Poster, target: Target, profile: Profile, day: dt.date) -> DeliveryResult:
    """Build and post the channel digest of `day` for `target` once (see `deliver`)."""
    return await deliver(
        core,
        poster,
        target,
        day,
        lambda: build_digest(
            core, profile, day, size=target.digest_size, categories=target.categories, target=target.key
        ),
    )
