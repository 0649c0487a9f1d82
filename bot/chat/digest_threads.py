"""A digest posted as a chat platform's messages, with its thread: `DigestThreads`, the digest poster
(`bot.digests.poster.PlatformPoster`) that `bot.chat.driver.ChatDriver` is.

Owns a digest's messages (`render_digest`: the core's layout, styled, its title kept to name its thread), where each
goes (`send`: the place, a personal digest's 'dm:<id>' chat), and with `digest_threads` a channel digest as one
message in its place: its later messages go into a thread under the header (`continuation`; `thread`: a reply in the
header's thread by default, a platform whose threads are channels of their own says which), named after that digest
(`thread_name`), or follow in the place where the platform refuses that thread, when it is made or on a post in it
(`unthreaded`); a refusal is remembered for the rest of that digest (`refused_thread`). Sending one message with the
core's policy is the driver's `deliver`, which a thread's refusal met there hands back to `unthreaded`. Imports
nothing of the driver.
"""

from __future__ import annotations

import logging
from abc import abstractmethod
from collections import deque
from collections.abc import Sequence
from typing import TYPE_CHECKING

from bot.digests.delivery import DeliveryError
from bot.digests.poster import PlatformPoster
from bot.views.layout import Page, Style, clip, digest_blocks, pages

if TYPE_CHECKING:
    from bot.chat.refusals import Failure
    from bot.models import Target
    from bot.views.model import DigestView

log = logging.getLogger(__name__)

TITLES_KEPT = 8  # digests of one place rendered before their sends: catch-up days, an admin's "digest now"


class DigestThreads(PlatformPoster):
    """A platform's digest poster over the chat driver's sending (see the module docstring); a subclass sets `title`
    and `style` and implements `message`, `failure` and `deliver` (`bot.chat.driver.ChatDriver` does the last)."""

    title: str
    style: Style
    digest_threads = False  # True: a channel digest's later messages go into a thread under its header (`send`)
    thread_name, thread_name_limit = "More papers: {title}", 100

    def __init__(self) -> None:
        super().__init__()
        # a target's latest rendered digests (their messages' ids, their title), naming each digest's own thread: a
        # fan-out renders every due digest, several days of one place among them, before the first send
        self._digest_titles: dict[str, deque[tuple[frozenset[int], str]]] = {}
        # per place, the headers of its latest digests whose thread was refused: their rest goes there (`threadless`)
        self._threadless: dict[str, deque[str]] = {}

    @abstractmethod
    def message(self, page: Page) -> object:
        """One packed page as the platform's message."""

    @abstractmethod
    def failure(self, error: Exception) -> Failure | None:
        """What `error`, raised by the platform's library, means; None when it is not the platform refusing or
        failing."""

    @abstractmethod
    async def deliver(
        self, chat: str, message: object, reply_to: str = "", *, plain: bool = False, under: str = "", header: str = ""
    ) -> str:
        """Send one message to `chat` (quoting `reply_to`) with the core's policy; its id or `DeliveryError`. `under`:
        the place a thread that is a channel of its own is in; `header`: the digest's message that thread is under."""

    def render_digest(self, target: Target, view: DigestView) -> list[object]:
        """A digest as the platform's messages: header first, papers in order, notes last (its title kept to name the
        thread the rest goes into, `digest_threads`)."""
        messages = pages(digest_blocks(view), self.style, self.message)
        kept = self._digest_titles.setdefault(target.key, deque(maxlen=TITLES_KEPT))
        kept.appendleft((frozenset(id(m) for m in messages), view.title))
        return messages

    async def send(self, target: Target, message: object, position: int, sent: Sequence[str], nonce: str) -> str:
        """One message of a digest to the target's chat (a personal digest's 'dm:<id>': the member's DM, `deliver`);
        with `digest_threads`, a channel digest's messages after the header go into the thread under it."""
        header = sent[0] if sent else ""
        if self.digest_threads and position and header and not target.member and not self.threadless(target, header):
            return await self.continuation(target, header, message)
        return await self.deliver(target.chat_id, message, header=header)

    def digest_title(self, target: Target, message: object) -> str:
        """The title of the digest `message` was rendered for (`render_digest`), '' when it is not known any more.

        By the message's identity: the messages a delivery sends are the ones rendered, held until sent, so an id
        is never another live message's; the newest digest holding it is looked at first."""
        return next((title for ids, title in self._digest_titles.get(target.key, ()) if id(message) in ids), "")

    async def continuation(self, target: Target, header: str, message: object) -> str:
        """A channel digest's later `message` sent into the thread under its `header` (`thread`, named after the
        digest's title), or into the channel when the platform refuses to make that thread (`unthreaded`, as a
        refusal met in the thread later is); a wait or a transient failure is the delivery's to retry."""
        title = self.digest_title(target, message)
        name = clip(self.thread_name.format(title=title).rstrip(": "), self.thread_name_limit)  # 'More papers' bare
        try:
            chat, reply_to = await self.thread(target.chat_id, header, name)
        except Exception as error:
            found = self.failure(error)
            if found is None:
                raise
            if found.kind in ("retry", "transient"):
                detail = f"{self.title} {target.chat_id}: {found.detail}"
                raise DeliveryError(detail, retry_after=found.retry_after) from error
            return await self.unthreaded(target.chat_id, header, found.detail, message, digest=True)
        under = target.chat_id if chat != target.chat_id else ""  # a thread that is a channel of its own
        return await self.deliver(chat, message, reply_to, under=under, header=header)

    async def unthreaded(
        self, place: str, thread: str, detail: str, message: object, *, plain: bool = False, digest: bool = False
    ) -> str:
        """`message`, refused in `thread` or the thread itself refused (`detail`), sent in `place` itself, whose own
        answer then decides for the place; a digest's thread (`digest`: `thread` is its header) is remembered as
        refused (`refused_thread`), so the rest of that digest goes there at once."""
        log.warning("%s refused thread %s of %s (%s): sent in the place", self.title, thread, place, detail)
        if digest:
            self.refused_thread(place, thread)
        return await self.deliver(place, message, plain=plain)

    def threadless(self, target: Target, header: str) -> bool:
        """Whether the digest under message `header` in the target's place had its thread refused (`refused_thread`):
        its rest then goes into the place without asking again."""
        return header in self._threadless.get(target.chat_id, ())

    def refused_thread(self, place: str, header: str) -> None:
        """Remember that the thread of the digest under `header` in `place` was refused. Kept for the place's latest
        `TITLES_KEPT` digests, as their titles are: a refusal is needed for the rest of that digest's delivery, its
        retries included (a later tick resends its rest under the same header; a catch-up delivers several days of
        one place in turn), while the next digest asks again (a permission given since is then used). Bounded so:
        kept for every digest for as long as the bot ran, it grew without end."""
        refused = self._threadless.setdefault(place, deque(maxlen=TITLES_KEPT))
        if header not in refused:
            refused.appendleft(header)

    async def thread(self, chat: str, header: str, name: str) -> tuple[str, str]:
        """The thread under message `header` in `chat`, as (chat, reply_to) for `deliver` (named `name` where the
        platform names threads); by default a reply in the header's own thread (`threaded` platforms)."""
        return chat, header
