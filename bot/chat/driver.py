"""The base of a chat front end (`ChatDriver`): what every platform does with the controller's replies, written once
over a few primitives each platform implements. Owns sending with the core's policy, replies, and the routes of what is
heard, every command and every press; a digest's messages and its thread are its base's (`bot.chat.digest_threads`),
what a platform's refusal means is `bot.chat.refusals`', and a front end's start (`starting`) is `bot.frontend`'s.

A front end subclasses `ChatDriver` and writes:
- `style` and `message(page)`: its styling of the core's layout and one packed page as its message;
- `post(chat, message, reply_to=, plain=)`: send one message (or a `FileReply`) and return its id, raising what its
  library raises;
- `failure(error)`: what a raised error means in the core's terms (a `bot.chat.refusals.Failure`), None when it is
  not a refusal; an HTTP refusal is read by `bot.chat.refusals.refusal` from its status and the platform's table of
  its own error codes.
Optionally `show_busy(chat)` (a "typing…" sign), `fetch_admin(chat, user)` (whether the platform says the user
administers the chat), `dm_user(chat)` (whose DM a chat is, where a DM's id is not its user's), `thread` (where a
digest's thread is), and `missing_permissions`/`place_name`/`permissions_at` (what an admin is told to give).

The driver then does the rest the same way on every platform: the controller's replies as packed pages sent in order,
the first quoting the message answered, an answer's messages (and, threaded, every thread the bot starts or posts into)
remembered so a reply to them follows up (`reply`, `remember`), a message said in a place answered there, "typing…"
while the bot is addressed, a file attached to it (`bot.chat.messages.Upload`) read only when its stated size fits a
profile (`hear`); a file, personal data, only ever to the asker's DM (`send_file`); every slash or typed command through
one route, `command(incoming, answering)`: the platform gives who ran it, where, the command and its fields, and its
answer to it as an `Interaction` (`bot.chat.answering`: acknowledged, then its pages, then finished; `Posts` where the
platform has none of its own), so a command that works only in a DM, run elsewhere, is answered in the member's DM on
every platform, a reply only the member should see is theirs alone where the platform can show one, and a failure is one
line; every button press through one route, `press(incoming, answering)`: the platform gives who pressed, where and the
value, and its answer to the press as an `Interaction` (its own, or `Posts` built from a way to show a page to the
presser alone, or a toast where it has none); a refusal mapped to the core's delivery policy (`deliver`): a wait the
platform asked for is a `DeliveryError` with `retry_after`, markup the platform cannot read is logged as our bug and the
page sent once as plain text, a chat that moved is followed (`bot.digests.poster.moved`), a gone chat is retired
(`bot.digests.delivery.retire`) and never retried, a permission the bot is denied is a permanent failure in the admin's
words (`permission_problem`), a refusal met inside a thread concerns the thread, not the place (`unthreaded`; for a
thread that is a channel of its own, also gone or denied there): the message is sent in the place itself, whose own
answer then decides for the place (a digest's later messages then go there at once,
`bot.chat.digest_threads.DigestThreads.unthreaded`); any failure while answering a member is told to them in one line,
our own errors' words or a short reference id under which it is logged (`reporting`), never a traceback (a page the
platform will not deliver is logged instead: telling of it there would fail the same way). It is also the platform's
digest poster (an admin's "digest now" included; `bot.chat.digest_threads.DigestThreads`, with `digest_threads` a
channel digest's later messages in a thread under its header) and the started front end `paperscout run` holds
(`bot.frontend.Running`): a front end's `start` returns its driver, whose `stop` it writes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from abc import abstractmethod
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from bot.chat.answering import Interaction, Posts, Privately, is_personal, notice
from bot.chat.digest_threads import DigestThreads
from bot.chat.messages import FileReply, Incoming, Place, Reply, Speaker, TextReply, Upload, layout
from bot.chat.setup import read_profile_file
from bot.chat.turns import member_line
from bot.digests.delivery import DeliveryError, retire
from bot.digests.poster import moved
from bot.errors import PaperscoutError
from bot.frontend import Expiring, front_end
from bot.models import PERSONAL_CHAT_PREFIX, Target
from bot.views.layout import clip, pages

if TYPE_CHECKING:
    from bot.chat.controller import ChatController
    from bot.core import Core

log = logging.getLogger(__name__)

ADMIN_CACHE_SECONDS = 60.0
SENT_TO_DM = "Sent you a direct message."
FILE_IN_DM = "I sent it to you in a direct message."


class ChatDriver(DigestThreads):
    """One platform's front end over the controller (see the module docstring); subclasses set `platform`, `title`,
    `style` and implement the primitives."""

    busy_every = 4.5  # seconds between two `show_busy` signs
    notice_limit = 200
    sends_files = True  # False: a file is shown as `render` shows it (a note), like any other reply
    threaded = False  # True: every page of a reply goes into the thread `reply_to`, which is remembered as well
    open_a_dm = "Open a direct message with me to see this."
    sent_to_dm = SENT_TO_DM
    dm_refused = "I can't send you a direct message: open one with me, then run {command} again."
    file_only_in_dm = "I only send that in a direct message: open one with me and ask there."

    def __init__(self, core: Core, controller: ChatController) -> None:
        super().__init__()
        self.core, self.controller = core, controller
        self.controller.poster = self.controller.poster or self  # an admin's "digest now" posts through it
        self._admins: Expiring[tuple[str, str], bool] = Expiring(ADMIN_CACHE_SECONDS)

    @abstractmethod
    async def post(self, chat: str, message: object, *, reply_to: str = "", plain: bool = False) -> str:
        """Send one message (or a `FileReply`) to `chat` (quoting `reply_to`; as plain text when `plain`); its id."""

    @property
    def poster(self) -> ChatDriver:
        """The started front end's digest poster: the driver itself."""
        return self

    async def stop(self) -> None:
        """Stop receiving and close the platform's connections (`bot.frontend.Running`); nothing by default."""

    async def show_busy(self, chat: str) -> None:
        """Show that an answer is being prepared in `chat` (for a few seconds); nothing by default."""

    async def fetch_admin(self, chat: str, user: str) -> bool:
        """Whether the platform says `user` administers `chat` (may raise what the library raises)."""
        return False

    async def dm_chat(self, user: str) -> str:
        """The chat of `user`'s DM with the bot, opened if need be (by default a DM's chat id is its user's)."""
        return user

    async def dm_user(self, chat: str) -> str:
        """The id of the user whose DM `chat` is (a 'dm:<user>' chat, or by default a DM's chat id is its user's);
        '' when it is nobody's DM (may raise what the library raises: then it is unknown, and logged)."""
        return chat.removeprefix(PERSONAL_CHAT_PREFIX)

    # --- rendering ---

    def render(self, reply: Reply) -> list[object]:
        """Any reply of the controller as the platform's messages."""
        return pages(layout(reply), self.style, self.message)

    # --- sending with the core's policy ---

    async def deliver(
        self, chat: str, message: object, reply_to: str = "", *, plain: bool = False, under: str = "", header: str = ""
    ) -> str:
        """Send one message with a refusal mapped to the core's policy (module docstring); its id or `DeliveryError`. A
        personal digest's chat ('dm:<user id>') is the member's DM (`dm_chat`, opened if need be): a refusal there
        retires that member's digest. `chat` a thread that is a channel of its own under the place `under` (a
        digest's, started from message `header`): that thread gone, locked or denied to the bot is the thread's
        refusal, never the place's end nor the admin's to fix (the place's own answer says that)."""
        try:
            personal = chat.startswith(PERSONAL_CHAT_PREFIX)
            to = await self.dm_chat(chat.removeprefix(PERSONAL_CHAT_PREFIX)) if personal else chat
            return await self.post(to, message, reply_to=reply_to, plain=plain)
        except DeliveryError:
            raise
        except Exception as error:
            found = self.failure(error)
            if found is None:
                raise
        if found.kind == "markup" and not plain:
            log.error("%s refused our markup for %s (an escaping bug): %s", self.title, chat, found.detail)
            return await self.deliver(chat, message, reply_to, plain=True, under=under, header=header)
        if found.kind == "moved" and found.new_chat != chat:
            await moved(self.core, self.platform, chat, found.new_chat)
            return await self.deliver(found.new_chat, message, plain=plain)  # the quoted message stayed behind
        # a refusal met inside a thread concerns the thread, not the place it is in: the place still takes the message
        # (or says for itself that it does not), and a digest's rest goes there at once. A thread that is a channel of
        # its own is what the request went to, so all it says of a chat is the thread's (gone, denied, closed); a
        # thread that is a reply in the place has the place's refusals, and names its own (`unthreaded`)
        place, thread = (under, header or chat) if under else (chat, reply_to)
        if thread and (found.kind == "unthreaded" or (under and found.kind in ("gone", "denied"))):
            return await self.unthreaded(place, thread, found.detail, message, plain=plain, digest=bool(header))
        if found.kind == "denied":  # the admin's to fix: said in their words, the chat kept
            raise DeliveryError(self.permission_problem(chat, found.detail), permanent=True)
        if found.kind == "gone":
            await self.gone(chat, found.detail)
        permanent = found.kind in ("gone", "refused", "markup", "moved", "unthreaded")
        raise DeliveryError(f"{self.title} {chat}: {found.detail}", retry_after=found.retry_after, permanent=permanent)

    async def gone(self, chat: str, reason: str) -> None:
        """The bot can no longer write to `chat`: the channel's digest there, or the member's whose DM it is,
        retires."""
        log.warning("%s chat %s is gone for the bot (%s)", self.title, chat, reason)
        found = await self.core.repo.target_at(self.platform, chat)
        if found is not None:
            target = found[0]
        else:  # a member's DM: their personal digest is keyed by their user id, not by the DM's chat id
            try:
                user = await self.dm_user(chat)
            except Exception as error:  # refused or unreachable: unknown, as below
                log.warning("%s could not say whose DM %s is: %s: %s", self.title, chat, type(error).__name__, error)
                user = ""
            if not user:  # retiring a guessed key would leave the member's digest on and turn off nobody's
                log.warning("%s chat %s is gone but whose DM it is is unknown: no digest retired", self.title, chat)
                return
            target = Target(self.platform, f"{PERSONAL_CHAT_PREFIX}{user}", "")
        await retire(self.core, target, reason or "the bot cannot write there")

    # --- replies ---

    async def reply(
        self,
        place: Place,
        replies: Sequence[Reply],
        reply_to: str = "",
        asker: str = "",
        *,
        privately: Privately | None = None,
        answering: Interaction | None = None,
        only_presser: bool = False,
    ) -> bool:
        """Send the controller's replies in order: the first page quoting `reply_to` (every page into that thread
        when `threaded`), a file to `asker`'s DM. With `privately` (a way to show a message to the one person who
        asked, False when it cannot any more), an ephemeral reply (every reply, when `only_presser`) outside a DM
        goes that way, and so does a page the place refused. With `answering` (the platform's own answer to the
        command or press itself, an `Interaction`: acknowledged first if it is not yet, with the first page's
        visibility), every page goes that way instead, an ephemeral one outside a DM for the member alone; what it
        raises is raised (its pages answer its `quote`). False when a send failed (logged; the rest is not sent)."""
        reply_to = reply_to or (answering.quote if answering is not None else "")
        try:
            for reply in replies:
                if isinstance(reply, FileReply) and self.sends_files:
                    await self.send_file(place, reply, reply_to, asker)
                    continue
                personal = only_presser or isinstance(reply, FileReply) or getattr(reply, "ephemeral", False)
                alone = privately is not None and personal and not place.is_dm
                for message in self.render(reply):
                    if answering is not None:
                        await answering.defer(personal and not place.is_dm)  # none once acknowledged
                        await self.remember(
                            place, reply, await answering(message, personal and not place.is_dm), reply_to
                        )
                        continue
                    if not alone:
                        try:
                            ref = await self.deliver(place.chat_id, message, reply_to)
                        except DeliveryError as error:
                            if privately is None:
                                raise
                            log.warning("reply to %s:%s not delivered: %s", self.platform, place.chat_id, error)
                        else:
                            await self.remember(place, reply, ref, reply_to)
                            reply_to = reply_to if self.threaded else ""
                            continue
                    if privately is None or not await privately(message):
                        return False
        except DeliveryError as error:
            log.warning("reply to %s:%s not delivered: %s", self.platform, place.chat_id, error)
            return False
        return True

    async def send_file(self, place: Place, reply: FileReply, reply_to: str, asker: str) -> None:
        """A file is personal data: sent in a DM, or from a shared place to the asker's DM with a note in the place
        (a place speaking as itself has no one to send it to)."""
        if place.is_dm:
            await self.deliver(place.chat_id, reply)
            return
        if not asker:
            return
        try:
            await self.deliver(asker, reply)
            note = FILE_IN_DM
        except DeliveryError:
            note = self.file_only_in_dm
        for message in self.render(TextReply(note)):
            await self.remember(place, reply, await self.deliver(place.chat_id, message, reply_to), reply_to)
            reply_to = reply_to if self.threaded else ""

    async def remember(self, place: Place, reply: Reply, sent: str, reply_to: str) -> None:
        """Note a posted page `sent` (quoting `reply_to`) so a reply to it follows up: an answer's continues its
        question (`ChatController.remember_message`); on a threaded platform every thread the bot starts (`sent`
        may root one) or posts into (`reply_to`) is noted whatever the reply, so a reply there is spoken to it."""
        for known in {sent, reply_to if self.threaded else ""} - {""}:
            await self.controller.remember_message(place, known, reply, thread=self.threaded)

    async def hear(self, incoming: Incoming, quote: str = "", *, upload: Upload | None = None) -> None:
        """A message said in a place to the controller and its replies back there (`reply`: the first quoting
        `quote`), showing "typing…" only while the bot is addressed: chatter the controller passes over must not
        show it. A file attached to it (`upload`) is read first. A failure is told to the speaker (`reporting`), or
        only logged when the bot was not addressed (a big file passing by in a group gets no refusal). A typed
        command goes the way every command goes (`command`), answered in the place."""
        if incoming.command:
            await self.command(incoming, Posts(self, incoming.place, quote=quote), upload=upload)
            return
        async with self.reporting(incoming.place, "message", quote, quiet=not incoming.addressed):
            if upload is not None:
                incoming = replace(incoming, attachment=await read_profile_file(upload))
            async with self.busy(incoming.place.chat_id) if incoming.addressed else contextlib.nullcontext():
                replies = await self.controller.answer(incoming)
            await self.reply(incoming.place, replies, quote)

    async def command(
        self, incoming: Incoming, answering: Interaction, *, private: bool = False, upload: Upload | None = None
    ) -> list[Reply]:
        """A slash or typed command (`incoming`: who, where, the command and its fields) to the controller and its
        answer back through the platform's answer to it (`answering`, see `reply`): the one way every front end takes
        a command. Acknowledged first (for the member alone when `private`, outside a DM), then a file given with it
        (`upload`) read: that may take longer than the platform waits for an acknowledgement; "typing…" while it is
        answered. A command that works only in a DM, run in a shared place by a member, is answered in the member's DM
        instead (their id on the platform: their user key's, 'platform:id'), and the place is told where it went, or
        how to let the bot write to them (`dm_refused`). Run by the place speaking as itself (`Incoming.by_place`: an
        admin writing as the group, a channel's post), a member's own command (such a one among them) is the
        controller's to answer in one line (`FrontEnd.written_as_place`), acting for nobody; a file an answer holds
        has nobody to go to either, and the place is told so in that line. Who may run it (an admin's command) and
        where are the controller's; a failure is told in one line (`reporting`)."""
        replies: list[Reply] = []
        place, speaker, by_place = incoming.place, incoming.speaker, incoming.by_place
        async with self.reporting(place, incoming.command or "command", answering=answering):
            await answering.defer(private and not place.is_dm)
            if upload is not None:
                incoming = replace(incoming, attachment=await read_profile_file(upload))
            async with self.busy(place.chat_id):
                if not (place.is_dm or by_place) and self.controller.only_in_dm(incoming.command):
                    replies = await self.answer_in_dm(incoming)
                else:
                    replies = await self.controller.answer(incoming)
            if by_place and any(isinstance(r, FileReply) for r in replies):
                told = front_end(self.platform).written_as_place
                run = front_end(self.platform).command(incoming.command.lower())
                kept = [r for r in replies if not isinstance(r, FileReply)]
                replies = [*kept, TextReply(told.format(command=run), ephemeral=True)]
            asker = "" if by_place else speaker.user_key.partition(":")[2]
            await self.reply(place, replies, asker=asker, answering=answering, only_presser=private)
        await answering.finish()
        return replies

    async def answer_in_dm(self, incoming: Incoming) -> list[Reply]:
        """A command that works only in a DM, run in a shared place: answered in the member's DM (not as an admin
        there); what the place is told (that it went there, or how to let the bot write to them)."""
        speaker = incoming.speaker
        dm = Place(self.platform, await self.dm_chat(speaker.user_key.partition(":")[2]), is_dm=True)
        answer = await self.controller.answer(replace(incoming, speaker=replace(speaker, is_admin=False), place=dm))
        run = front_end(self.platform).command(incoming.command.lower())
        told = self.sent_to_dm if await self.reply(dm, answer) else self.dm_refused.format(command=run)
        return [TextReply(told, ephemeral=True)]

    async def press(self, incoming: Incoming, answering: Interaction) -> None:
        """A pressed button (`incoming`: who pressed, where, the button's value) to the controller and its answer back
        through the platform's answer to the press (`answering`): the one way every front end takes a press.
        Where the platform can show a page to the presser alone (`answering.private_pages`), a press outside a DM is
        acknowledged for them alone and every page of its answer is theirs alone. Elsewhere the press is answered
        with a `toast` only the presser sees: a short answer (`notice`) is that toast; a paper button's answer
        pressed in a shared place concerns only the presser and goes to their DM (the toast says whether it got
        there); any other answer goes to the place. What the controller does not know (a stale, foreign or
        oversized value) is answered in its one line or not at all; a failure is told in one line (`problem`)."""
        place, alone = incoming.place, answering.private_pages and not incoming.place.is_dm
        try:
            await answering.defer(alone)
            replies = await self.controller.answer(incoming)
            short = None if answering.private_pages else notice(replies, self.notice_limit)
            if short is not None or not (replies or answering.private_pages):
                await answering.toast(short or "")
            elif answering.private_pages or place.is_dm or not is_personal(incoming.button):
                await answering.toast("")
                await self.reply(place, replies, answering=answering, only_presser=alone)
            else:
                dm = Place(self.platform, await self.dm_chat(incoming.speaker.user_key.partition(":")[2]), is_dm=True)
                await answering.toast(SENT_TO_DM if await self.reply(dm, replies) else self.open_a_dm)
        except Exception as error:
            line = self.problem(error, "button")
            if answering.private_pages:
                await self.tell(place, line, answering=answering)
            else:
                await answering.toast(clip(line, self.notice_limit))
        await answering.finish()

    # --- failures told to the member ---

    def problem(self, error: BaseException, what: str) -> str:
        """What a member is told of a failure: our own errors' line; anything else (a refused thread too: its remedy
        is the operator's) is logged with a short reference that the line names (`bot.chat.turns.member_line`)."""
        return member_line(error, f"{self.title} {what}")

    async def tell(
        self,
        place: Place,
        text: str,
        quote: str = "",
        *,
        privately: Privately | None = None,
        answering: Interaction | None = None,
    ) -> None:
        """One line for the member alone where the platform can (`privately` or `answering`, see `reply`), else in
        `place` quoting `quote`; never raises (what cannot be said is logged)."""
        try:
            await self.reply(place, [TextReply(text, ephemeral=True)], quote, privately=privately, answering=answering)
        except Exception as failed:
            log.warning("%s: could not tell %s: %s (%s)", self.title, place.chat_id, text[:80], failed)

    @contextlib.asynccontextmanager
    async def reporting(
        self,
        place: Place,
        what: str,
        quote: str = "",
        *,
        privately: Privately | None = None,
        answering: Interaction | None = None,
        quiet: bool = False,
    ) -> AsyncIterator[None]:
        """Any failure in the block told to the member (`problem`, `tell`) instead of raised; only logged when `quiet`
        (nobody spoke to the bot: chatter it passed by gets nothing, not even an apology)."""
        try:
            yield
        except Exception as error:
            if quiet and isinstance(error, PaperscoutError):
                log.warning("%s %s in %s: %s", self.title, what, place.chat_id, error)
            elif quiet:  # one record with the traceback; no member's line (nobody reads it) nor a reference
                log.error("%s %s in %s failed", self.title, what, place.chat_id, exc_info=error)
            else:
                await self.tell(place, self.problem(error, what), quote, privately=privately, answering=answering)

    # --- who and where ---

    def as_place(self, chat: object, is_dm: bool, title: str = "") -> Place:
        """A chat of this platform as the controller's `Place`."""
        return Place(self.platform, str(chat), is_dm=is_dm, title=title)

    def as_speaker(self, user: object, name: str, is_admin: bool = False) -> Speaker:
        """A user of this platform as the controller's `Speaker` (user key 'platform:id')."""
        return Speaker(f"{self.platform}:{user}", name, is_admin=is_admin)

    # --- asking the platform ---

    async def is_admin(self, chat: str, user: str) -> bool:
        """Whether the platform says `user` administers `chat` (`fetch_admin`, kept for a minute; False on failure)."""
        cached = self._admins.get((chat, user))
        if cached is not None:
            return cached
        try:
            admin = await self.fetch_admin(chat, user)
        except Exception as error:
            if self.failure(error) is None:
                raise
            log.warning("%s: whether %s administers %s is unknown: %s", self.title, user, chat, error)
            return False
        return self._admins.put((chat, user), admin)

    @contextlib.asynccontextmanager
    async def busy(self, chat: str) -> AsyncIterator[None]:
        """Show `show_busy` in `chat` until the block is done. The first sign is sent before the block starts (for
        at most `busy_every` seconds): a quick answer would otherwise cancel it in flight, and a sign arriving after
        the answer would show "typing…" under it."""
        first = asyncio.Event()

        async def keep_showing() -> None:
            while True:
                with contextlib.suppress(Exception):
                    await self.show_busy(chat)
                first.set()
                await asyncio.sleep(self.busy_every)

        task = asyncio.create_task(keep_showing())
        try:
            with contextlib.suppress(TimeoutError):  # cancelled while waiting, the signs stop too (below)
                await asyncio.wait_for(first.wait(), self.busy_every)
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
