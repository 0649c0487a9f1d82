"""A channel digest's thread in the core's driver: its header in the place, the rest in a thread under it, or in the
place where the platform refuses that thread (when making it, or on a post in it). Driven by the smallest front end
there can be (`tests.test_press.Wall`: a chat is a list of texts) with digest threads."""

from __future__ import annotations

import pytest

from bot.chat.digest_threads import TITLES_KEPT
from bot.chat.refusals import Failure
from bot.core import Core
from bot.models import Target
from tests.test_press import Wall

PLACE = Target("wall", "papers", "group")


class ThreadRefused(Exception):
    """The platform refusing a digest's thread."""


class ThreadlessWall(Wall):
    """A wall with digest threads that refuses every thread, when it is made (`refused` 'making') or on each post in
    it ('posting': a thread is a reply under the header); `asked` counts the tries."""

    digest_threads = True

    def __init__(self, core: Core, refused: str) -> None:
        super().__init__(core)
        self.refused, self.asked = refused, 0

    async def thread(self, chat: str, header: str, name: str) -> tuple[str, str]:
        if self.refused == "making":
            self.asked += 1
            raise ThreadRefused("no threads here")
        return chat, header

    async def post(self, chat: str, message: object, *, reply_to: str = "", plain: bool = False) -> str:
        if reply_to:
            self.asked += 1
            raise ThreadRefused("this thread is locked")
        return await super().post(chat, message, reply_to=reply_to, plain=plain)

    def failure(self, error: Exception) -> Failure | None:
        if isinstance(error, ThreadRefused):
            return Failure("refused" if self.refused == "making" else "unthreaded", str(error))
        return None


@pytest.mark.parametrize("refused", ["making", "posting"])
async def test_a_refused_thread_is_remembered_for_the_places_latest_digests_not_for_ever(
    core: Core, refused: str
) -> None:
    """Each digest asks for its thread once: once refused, its rest goes into the place at once, a later try of the
    same digest (a retry, a catch-up) too. The refusal is remembered for the place's latest `TITLES_KEPT` digests
    only: it used to be kept for every digest the bot ever sent, for as long as it ran."""
    wall = ThreadlessWall(core, refused)
    headers: list[str] = []
    for day in range(TITLES_KEPT + 1):
        headers.append(await wall.send(PLACE, f"header {day}", 0, [], f"{day}:0"))
        for position in (1, 2):
            await wall.send(PLACE, f"paper {day}.{position}", position, headers[-1:], f"{day}:{position}")
    assert wall.asked == TITLES_KEPT + 1
    sent = [[f"header {day}", f"paper {day}.1", f"paper {day}.2"] for day in range(TITLES_KEPT + 1)]
    assert wall.walls["papers"] == [message for digest in sent for message in digest]

    await wall.send(PLACE, "paper 1.3", 3, headers[1:2], "1:3")
    assert wall.asked == TITLES_KEPT + 1 and wall.walls["papers"][-1] == "paper 1.3"
    await wall.send(PLACE, "paper 0.3", 3, headers[:1], "0:3")  # forgotten: asked again, refused again
    assert wall.asked == TITLES_KEPT + 2 and wall.walls["papers"][-1] == "paper 0.3"
