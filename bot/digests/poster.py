"""The base of every front end's digest poster: what posting a digest means is written once, here.

A front end subclasses `PlatformPoster` and writes two things: `render_digest` (a digest's view as its platform's
messages, in order) and `send` (one message to one target, raising `DeliveryError` with what the platform said).
Everything else is the core's, the same on every platform:

- fan-out and exactly-once: the scheduler delivers each due target through the posting ledger
  (`bot.digests.delivery.deliver`), which records every message as the platform accepts it and resumes after a
  crash with the messages that had not gone out;
- retry: a `DeliveryError` with `retry_after` waits what the platform asked, any other transient one backs off
  with jitter, a `permanent` one is not retried (`bot.digests.delivery`);
- gone, blocked, moved: a permanent failure retires the target (`bot.digests.delivery.retire`: a member's personal
  digest is turned off, a channel's turns inactive); a chat that moved follows its new id through `moved`;
- pacing: with a `ChatPacer`, sends to one chat are spaced and all sends kept under the platform's overall rate
  (`bot.digests.pacing`); a platform whose client library paces by itself passes none;
- permissions: what the bot lacks to post in a place is told to its admin in one line, the same for a refused post
  and for /setup (`permission_problem`: the place's name, the permissions to give, where the settings have them).
"""

from __future__ import annotations

import contextlib
import logging
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING

from bot.views.model import DigestView, digest_view

if TYPE_CHECKING:
    from bot.core import Core
    from bot.digests.pacing import ChatPacer
    from bot.models import Digest, Target

log = logging.getLogger(__name__)


def permission_line(reason: str, missing: Sequence[str], settings: str = "") -> str:
    """What an admin reads when the bot lacks a permission: `reason`, then the permissions to give (`missing`, as the
    platform's settings name them) and where they are given (`settings`)."""
    fix = f"give paperscout {', '.join(missing)} there" if missing else "check paperscout's permissions there"
    return f"{reason}: {fix}" + (f" ({settings})" if settings else "")


class PlatformPoster(ABC):
    """A `bot.digests.delivery.Poster` for one platform (see the module docstring); subclasses set `platform`."""

    platform: str
    permissions_at = ""  # where an admin gives the bot a permission in a place, as the platform's settings say

    def __init__(self, pacer: ChatPacer | None = None) -> None:
        self.pacer = pacer

    @abstractmethod
    def render_digest(self, target: Target, view: DigestView) -> Sequence[object]:
        """The digest as the platform's messages, in sending order; the same view gives the same messages."""

    @abstractmethod
    async def send(self, target: Target, message: object, position: int, sent: Sequence[str], nonce: str) -> str:
        """Send one message of a digest; the platform's id for it, or `DeliveryError`.

        `sent` holds the ids of the messages before it (a platform may thread the rest under the first); `nonce` is
        the same for this message across restarts, for platforms that refuse a second copy.
        """

    def missing_permissions(self, chat: str) -> list[str]:
        """What the bot lacks to post a digest in `chat`, as the platform's settings name it (nothing by default)."""
        return []

    def place_name(self, chat: str) -> str:
        """How an admin knows `chat` ('#papers'), '' when the platform cannot say at once."""
        return ""

    def permission_problem(self, chat: str, reason: str) -> str:
        """What an admin reads when the bot lacks a permission in `chat` (`permission_line`): `reason` (its '{where}'
        the place's name, `place_name`, or 'that channel'), the permissions to give (`missing_permissions`), where
        (`permissions_at`)."""
        where = reason.replace("{where}", self.place_name(chat) or "that channel")
        return permission_line(where, self.missing_permissions(chat), self.permissions_at)

    def digest_messages(self, target: Target, digest: Digest) -> list[object]:
        """The digest's messages (`render_digest` of its view)."""
        return list(self.render_digest(target, digest_view(digest)))

    async def send_digest_message(
        self, target: Target, message: object, position: int, sent: Sequence[str], nonce: str
    ) -> str:
        """Send one message in the chat's turn (when the platform is paced)."""
        pacing = self.pacer.turn(target.key) if self.pacer is not None else contextlib.nullcontext()
        async with pacing:
            return await self.send(target, message, position, sent, nonce)


async def moved(core: Core, platform: str, old_chat_id: str, new_chat_id: str) -> None:
    """A chat now lives under a new id (a Telegram group became a supergroup): its digest, profile and half-done
    /setup follow it; when the new id has a digest of its own, the old one turns inactive."""
    outcome = await core.repo.move_chat(platform, old_chat_id, new_chat_id)
    if outcome == "moved":
        log.warning("digest of %s:%s moved to %s", platform, old_chat_id, new_chat_id)
    elif outcome == "kept":
        log.warning(
            "%s:%s became %s, which has its own digest; the old one is inactive", platform, old_chat_id, new_chat_id
        )
