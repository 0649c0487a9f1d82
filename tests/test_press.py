"""The front-end contract for a button press: one route in the core's driver (`ChatDriver.press`), which a front end
calls with who pressed, where, the button's value and its answer to the press (an `Interaction`). Driven here by the
smallest front end there can be (a chat is a list of texts), once for a platform that can show a page to the presser
alone in a shared place and once for one that answers a press with a toast."""

from __future__ import annotations

from collections import defaultdict

from bot.chat import ChatController, Incoming, Place, Speaker
from bot.chat.answering import Interaction, Posts
from bot.chat.driver import SENT_TO_DM, ChatDriver
from bot.chat.refusals import Failure
from bot.core import Core
from bot.views.layout import Page, Style
from bot.views.model import MAX_BUTTON_BYTES
from tests.conftest import StoreDay

PRESSER = Speaker("wall:7", "Bob")
CHANNEL = Place("wall", "papers", is_dm=False, title="#papers")
DM = Place("wall", "7", is_dm=True)
STALE = "That button is from an older version of paperscout"


class Wall(ChatDriver):
    """A whole front end: a message is its page's plain text, a chat the texts posted to it (`walls`)."""

    platform, title, style = "wall", "Wall", Style()

    def __init__(self, core: Core, broken: str = "") -> None:
        super().__init__(core, ChatController(core))
        self.walls: defaultdict[str, list[str]] = defaultdict(list)
        self.broken = broken  # a chat whose posts fail as a library's bug would

    def message(self, page: Page) -> str:
        return self.style.page(page)

    async def post(self, chat: str, message: object, *, reply_to: str = "", plain: bool = False) -> str:
        if chat == self.broken:
            raise RuntimeError("the library broke")
        self.walls[chat].append(str(message))
        return f"{chat}-{len(self.walls[chat])}"

    def failure(self, error: Exception) -> Failure | None:
        return None


class Ephemeral(Interaction):
    """A platform's own answer to a press that can be only the presser's (a Discord interaction's kind)."""

    def __init__(self) -> None:
        self.acknowledged: list[bool] = []
        self.pages: list[tuple[str, bool]] = []
        self.withdrawn = False

    async def acknowledge(self, private: bool) -> bool:
        self.acknowledged.append(private)
        return len(self.acknowledged) == 1

    async def send(self, message: object, private: bool) -> str:
        self.pages.append((str(message), private))
        return f"page-{len(self.pages)}"

    async def withdraw(self) -> bool:
        self.withdrawn = True
        return True


async def feedback(core: Core) -> list[tuple[str, int]]:
    return [(row.paper_id, row.value) for row in await core.repo.user_feedback_rows(PRESSER.user_key)]


async def test_a_press_where_a_page_can_be_the_pressers_alone(core: Core, store_day: StoreDay) -> None:
    """Through the platform's own answer or through `Posts` with a private page: a press in a shared place is
    acknowledged for the presser alone and its whole answer is theirs (nothing in the place), feedback recorded once;
    a stale, oversized or foreign value gets one line or nothing; in a DM the answer is everyone's there."""
    papers = await store_day(core)
    wall = Wall(core)
    up = f"ps:up:{papers[0].id}"

    own = Ephemeral()
    await wall.press(Incoming(PRESSER, CHANNEL, button=up), own)
    assert own.acknowledged[0] is True and [p for _, p in own.pages] == [True]
    assert own.pages[0][0].startswith("Noted: more like") and not own.withdrawn
    assert await feedback(core) == [(papers[0].id, 1)] and not wall.walls

    private: list[object] = []

    async def privately(message: object) -> bool:
        private.append(message)
        return True

    oversized = "ps:up:" + "1" * MAX_BUTTON_BYTES
    for value in (f"ps:down:{papers[1].id}", "ps:zz:1", oversized):
        await wall.press(Incoming(PRESSER, CHANNEL, button=value), Posts(wall, CHANNEL, privately=privately))
    assert [str(m).startswith("Noted: less like") for m in private] == [True, False, False]
    assert [str(m).startswith(STALE) and "\n" not in str(m) for m in private[1:]] == [True, True]
    assert await feedback(core) == [(papers[0].id, 1), (papers[1].id, -1)] and not wall.walls

    foreign = Ephemeral()
    await wall.press(Incoming(PRESSER, CHANNEL, button="xx:1"), foreign)
    assert foreign.pages == [] and foreign.withdrawn  # acknowledged, then nothing said

    in_dm = Ephemeral()
    await wall.press(Incoming(PRESSER, DM, button=f"ps:more:{papers[2].id}"), in_dm)
    assert in_dm.acknowledged[0] is False and in_dm.pages and not any(p for _, p in in_dm.pages)


async def test_a_press_where_the_platform_answers_with_a_toast(core: Core, store_day: StoreDay) -> None:
    """`Posts` with only a toast: each press toasted exactly once; a paper button's answer pressed in a shared place
    goes to the presser's DM (the toast says so), a short answer is the toast itself, a foreign value an empty toast,
    a failure one line; in a DM the answer goes to the DM."""
    papers = await store_day(core)
    wall = Wall(core)
    toasts: list[list[str]] = []

    async def press(place: Place, value: str) -> list[str]:
        said: list[str] = []

        async def toast(text: str) -> None:
            said.append(text)

        await wall.press(Incoming(PRESSER, place, button=value), Posts(wall, place, toast=toast))
        toasts.append(said)
        return said

    assert await press(CHANNEL, f"ps:up:{papers[0].id}") == [SENT_TO_DM]
    assert wall.walls["7"][0].startswith("Noted: more like") and not wall.walls["papers"]
    assert await feedback(core) == [(papers[0].id, 1)]
    [stale] = await press(CHANNEL, "ps:zz:1")
    assert stale.startswith(STALE) and len(stale) <= wall.notice_limit
    assert await press(CHANNEL, "xx:1") == [""]
    before = len(wall.walls["7"])
    assert await press(DM, f"ps:more:{papers[1].id}") == [""] and len(wall.walls["7"]) > before
    assert not wall.walls["papers"]

    wall.broken = "7"  # the DM's post fails with an error no platform table knows: one line, no traceback
    [line] = await press(CHANNEL, f"ps:more:{papers[2].id}")
    assert line and "\n" not in line and "Traceback" not in line and len(line) <= wall.notice_limit
    assert all(len(said) == 1 for said in toasts)
