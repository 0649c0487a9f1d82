"""Answering one command or button press: the platform's answer to it (`Interaction`: acknowledged, then its pages,
then finished; `Posts` where the platform has none of its own) and who may see what of it.

An `Interaction` keeps a page only the member may see from showing to everyone: a public acknowledgement still waiting
for its first page is withdrawn before such a page, and withdrawn when nothing was said (`finish`). `Posts` builds
one from plain posts in the place, a way to show a page to the member alone (`Privately`) and a toast. Who sees an
answer: a short ephemeral one fits a toast (`notice`); a paper button's concerns only the presser (`is_personal`).
`bot.chat.driver.ChatDriver` answers every command and press through these (`command`, `press`, `reply`).
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from bot.chat.messages import Place, Reply, TextReply
from bot.digests.delivery import DeliveryError
from bot.views.layout import clip
from bot.views.model import BUTTON_PREFIX, LIST_MARK, PAPER_ACTIONS

if TYPE_CHECKING:
    from bot.chat.driver import ChatDriver

log = logging.getLogger(__name__)

Privately = Callable[[object], Awaitable[bool]]


class Interaction(ABC):
    """The platform's own answer to one command or button press (its acknowledgement, then its pages): what
    `ChatDriver.command` and `press` answer through (`answering` in `ChatDriver.reply`). The driver acknowledges
    first (`defer`, with the first page's visibility). Where the first page after an acknowledgement takes the
    acknowledgement's visibility, a page only the member may see would show to everyone after a public one: so an
    acknowledgement everyone sees, still waiting for its first page, is withdrawn before such a page (also after a
    page that failed: the note telling of it is still only the member's), and while it cannot be withdrawn such a
    page is not sent (a `DeliveryError`); when nothing was said, it is withdrawn (`finish`). A platform writes
    `acknowledge`, `send` and `withdraw` (or builds `Posts` from its primitives). A platform that cannot show a page
    to one member in a shared place (`private_pages` False) answers a press with a `toast` instead."""

    sent, waiting = 0, False  # pages sent; an acknowledgement everyone sees waits for its first page
    quote = ""  # the message (on a threaded platform, the thread) its pages answer in the place
    private_pages = True  # `send(private=True)` shows a page to the member alone where the place is shared

    @abstractmethod
    async def acknowledge(self, private: bool) -> bool:
        """Acknowledge the command or press now (for the member alone when `private`); False when it already was."""

    @abstractmethod
    async def send(self, message: object, private: bool) -> str:
        """Send one page after the acknowledgement (for the member alone when `private`); its id."""

    @abstractmethod
    async def withdraw(self) -> bool:
        """Remove the acknowledgement; whether it is gone (never raises)."""

    async def defer(self, private: bool) -> None:
        """Acknowledge now, unless it already is."""
        if await self.acknowledge(private):
            self.waiting = not private

    async def __call__(self, message: object, private: bool) -> str:
        """Send one page (see the class docstring); its id."""
        if private and self.waiting:
            if not await self.withdraw():
                raise DeliveryError("a page only the member may see was not sent: the public acknowledgement stayed")
            self.waiting = False
        sent = await self.send(message, private)
        self.sent, self.waiting = self.sent + 1, False
        return sent

    async def finish(self) -> None:
        """After the last page: the acknowledgement withdrawn when nothing was said."""
        if not self.sent:
            await self.withdraw()

    async def toast(self, text: str) -> None:
        """Answer a press with a short line only the presser sees ('' for none), where pages cannot be private
        (`private_pages` False); never raises. Nothing by default."""
        return None


class Posts(Interaction):
    """An `Interaction` over plain posts, for a platform whose commands and presses have no answer of their own (it
    acknowledges them in its handler): a page is posted in the place (`ChatDriver.deliver`), a page only the member
    should see goes through `privately` where the platform has such a page (also one the place refused), and where it
    has none a press is answered with `toast` (a short line only the presser sees). The first page in the place
    quotes `quote` (every page goes into that thread on a threaded platform)."""

    def __init__(
        self,
        driver: ChatDriver,
        place: Place,
        *,
        privately: Privately | None = None,
        toast: Callable[[str], Awaitable[None]] | None = None,
        quote: str = "",
    ) -> None:
        self.driver, self.place, self.privately, self._toast, self.quote = driver, place, privately, toast, quote
        self.private_pages = privately is not None

    async def acknowledge(self, private: bool) -> bool:
        """Acknowledged by the platform's handler already."""
        return False

    async def send(self, message: object, private: bool) -> str:
        """One page in the place, or through `privately` (when `private`, or the place refused it); its id ('' for a
        private page)."""
        if not (private and self.privately is not None):
            try:
                sent = await self.driver.deliver(self.place.chat_id, message, self.quote)
                self.quote = self.quote if self.driver.threaded else ""
                return sent
            except DeliveryError as error:
                if self.privately is None:
                    raise
                log.warning("reply to %s not delivered: %s", self.place.key, error)
        if not await self.privately(message):
            raise DeliveryError(f"{self.place.key}: the member's private answer was cut short", permanent=True)
        return ""

    async def withdraw(self) -> bool:
        """Nothing to withdraw: gone."""
        return True

    async def toast(self, text: str) -> None:
        """The platform's `toast`, if it has one."""
        if self._toast is not None:
            await self._toast(text)


def notice(replies: Sequence[Reply], limit: int) -> str | None:
    """The text of an answer that fits a short notice to one person (one ephemeral text without cards or choices),
    cut to `limit`; None for any other answer."""
    if len(replies) == 1 and isinstance(replies[0], TextReply):
        reply = replies[0]
        if reply.ephemeral and not reply.cards and not reply.choices and not reply.after:
            return clip(reply.text, limit)
    return None


def is_personal(button: str) -> bool:
    """A paper button (a thumb, more like this, why): its answer concerns only the presser. A list's 'Next' button
    (/more naming a list's page, or without a paper) is not: it continues the list where the list is, as /more typed
    there does."""
    action, _, paper = button[len(BUTTON_PREFIX) :].partition(":")
    return action in PAPER_ACTIONS and bool(paper) and not paper.startswith(LIST_MARK)
