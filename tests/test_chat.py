"""The chat controller driven as a front end drives it: a member's and an admin's whole journey, with the core
closed and opened again in the middle of each flow (every piece of conversation state lives in SQLite)."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from bot.chat import (
    AnswerReply,
    Attachment,
    ChatController,
    DigestReply,
    FileReply,
    Incoming,
    Place,
    Reply,
    Speaker,
    TextReply,
)
from bot.chat import setup as channel_setup
from bot.chat.commands import COMMANDS
from bot.chat.members import reads_as_question
from bot.config import Settings
from bot.core import Core, open_core
from bot.digests.delivery import DeliveryError
from bot.embeddings.embedder import LocalEmbedder
from bot.ingest.bundled import EXAMPLE_PROFILE_FILE, bundled_file
from bot.members.settings import profile_owner
from tests.conftest import StoreDay

ADA = Speaker("telegram:100", "Ada")
DM = Place("telegram", "100", is_dm=True)
CHANNEL = Place("discord", "555", is_dm=False, title="#papers")
MEMBER = Speaker("discord:7", "Bob")
ADMIN = Speaker("discord:8", "Cleo", is_admin=True)


class Session:
    """A controller over a core that the test can restart, as a process restart would."""

    def __init__(self, settings: Settings, embedder: LocalEmbedder) -> None:
        self.settings, self.embedder = settings, embedder

    @asynccontextmanager
    async def open(self) -> AsyncIterator[ChatController]:
        async with open_core(self.settings, self.embedder) as core:
            yield ChatController(core)


async def say(ctl: ChatController, speaker: Speaker, place: Place, line: str, **extra: object) -> list[Reply]:
    """Send a typed line (a '/command' or text)."""
    return await ctl.handle(Incoming.from_text(speaker, place, line, **extra))


async def press(ctl: ChatController, speaker: Speaker, place: Place, value: str) -> list[Reply]:
    """Press a button."""
    return await ctl.handle(Incoming(speaker, place, button=value))


def text_of(replies: list[Reply]) -> str:
    return "\n".join(r.text for r in replies if isinstance(r, TextReply | AnswerReply))


def only_text(replies: list[Reply]) -> TextReply:
    (reply,) = replies
    assert isinstance(reply, TextReply), reply
    return reply


def the_digest(replies: list[Reply]) -> DigestReply:
    return next(r for r in replies if isinstance(r, DigestReply))


@pytest.mark.slow
async def test_a_member_journey_through_the_controller_survives_restarts(
    settings: Settings, embedder: LocalEmbedder, store_day: StoreDay
) -> None:
    session = Session(settings, embedder)
    async with session.open() as ctl:
        papers = await store_day(ctl.core)
        # any first DM from someone without a profile starts onboarding
        reply = only_text(await say(ctl, ADA, DM, "hi"))
        assert "set up your personal paper feed" in reply.text
        reply = only_text(await say(ctl, ADA, DM, ""))
        assert "I didn't get an answer" in reply.text and "read about" in reply.text
        reply = only_text(await say(ctl, ADA, DM, "skip"))
        assert "can't be skipped" in reply.text
        await say(ctl, ADA, DM, "graph neural networks; theory of deep learning optimisation")
        await say(ctl, ADA, DM, "medical imaging")
        # an emoji is not a name to watch; an unknown name is asked about, with buttons
        reply = only_text(await say(ctl, ADA, DM, "Judea Pearl; 🙂; Nobody Atall"))
        assert "🙂" not in reply.text and "'Nobody Atall'" in reply.text
        assert [c.value for c in reply.choices] == ["ps:c:authors:1", "ps:c:authors:2"]
        # a number that is not one of the offered choices keeps the pending name and says what would work
        reply = only_text(await say(ctl, ADA, DM, "7"))
        assert "1 or 2" in reply.text and "'Nobody Atall'" in reply.text

    async with session.open() as ctl:  # restarted in the middle of onboarding
        reply = only_text(await press(ctl, ADA, DM, "ps:c:authors:1"))  # "watch 'Nobody Atall' anyway"
        assert "I'll watch for 'Nobody Atall'" in reply.text and "categories" in reply.text
        await say(ctl, ADA, DM, "cs.LG")
        # ratings by button value; a stale button from an earlier question is refused politely
        stale = only_text(await press(ctl, ADA, DM, "ps:c:authors:2"))
        assert "earlier question" in stale.text
        for _ in range(5):
            reply = only_text(await press(ctl, ADA, DM, "ps:c:rate:1"))
            if "rate" not in reply.choices[0].value if reply.choices else True:
                break
        assert "personal digest" in reply.text.lower() or "off, daily or weekly" in reply.text
        reply = only_text(await say(ctl, ADA, DM, "off"))
        assert "All set!" in reply.text and "Ratings:" in reply.text

        first = the_digest(await say(ctl, ADA, DM, "/digest")).digest
        assert first.items and all(item.relevance is None and item.novelty is None for item in first.items)
        # its standing among all the day's candidates: the papers rated in onboarding rank too, and are left out
        assert first.items[0].standing.startswith("#") and " of 27 papers on 2025-05-26" in first.items[0].standing
        down = first.items[0]
        assert [a.value for a in down.actions] == [f"ps:up:{down.id}", f"ps:down:{down.id}", f"ps:more:{down.id}"]
        reply = only_text(await press(ctl, ADA, DM, f"ps:down:{down.id}"))
        assert f"Noted: less like “{down.title[:40]}" in reply.text and reply.ephemeral
        assert [c.value for c in reply.choices] == [f"ps:undo:{down.id}"]
        second = the_digest(await say(ctl, ADA, DM, "/digest")).digest
        assert down.id not in [item.id for item in second.items]

        more = the_digest(await press(ctl, ADA, DM, f"ps:more:{second.items[0].id}")).digest
        assert more.items and second.items[0].id not in [i.id for i in more.items]
        assert len({i.id for i in more.items} & {p.id for p in papers}) == len(more.items)
        reply = only_text(await say(ctl, ADA, DM, "/up 2"))  # numbers refer to the last list shown
        assert more.items[1].title in reply.text

        (answer,) = await say(ctl, ADA, DM, "/ask papers about toxicity today")
        assert isinstance(answer, AnswerReply) and answer.citations and answer.context_id == ADA.user_key
        (follow,) = await say(ctl, ADA, DM, "which of those are about health?")
        assert isinstance(follow, AnswerReply)
        assert {c.id for c in follow.citations} <= {c.id for c in answer.citations}
        # no words: asked for words instead of silently repeating the last answer; a paste is refused unechoed
        assert "I need words" in only_text(await say(ctl, ADA, DM, "🤔🤔")).text
        pasted = "why " + "lorem ipsum " * 340
        refused = only_text(await say(ctl, ADA, DM, pasted)).text
        assert "limited to 2,000" in refused and "lorem" not in refused
        why = only_text(await say(ctl, ADA, DM, "/why 1"))
        assert "ada (personal)" in why.text.lower() and "/10" not in why.text

    async with session.open() as ctl:  # restarted: numbering and profile are still there
        exported = next(r for r in await say(ctl, ADA, DM, "/export") if isinstance(r, FileReply))
        data = json.loads(exported.data)
        assert data["profile"]["topics"] and any(f["rating"] == "down" for f in data["feedback"])
        reply = only_text(await say(ctl, ADA, DM, "/forget"))
        assert "Type yes" in reply.text and len(reply.choices) == 2

    async with session.open() as ctl:  # the pending confirmation survived the restart
        reply = only_text(await say(ctl, ADA, DM, "yes"))
        assert "Nothing about you is stored any more" in reply.text
        assert await ctl.core.repo.get_user(ADA.user_key) is None
        assert await ctl.core.repo.get_profile(profile_owner(ADA.user_key)) is None
        assert await ctl.core.repo.chat_states_of(ADA.user_key) == []


async def test_an_admin_sets_up_a_channel_step_by_step_and_with_a_toml_file(
    settings: Settings, embedder: LocalEmbedder, store_day: StoreDay
) -> None:
    session = Session(settings, embedder)
    async with session.open() as ctl:
        await store_day(ctl.core)
        refused = only_text(await say(ctl, MEMBER, CHANNEL, "/setup"))
        assert "admins" in refused.text and refused.ephemeral
        assert await ctl.core.repo.target_at("discord", "555") is None
        reply, hint = await say(ctl, ADMIN, CHANNEL, "/setup")  # step by step: the platform's hint, for the admin
        assert "#papers" in reply.text and "categories" in reply.text
        assert hint.ephemeral and "replying" in hint.text
        reply = only_text(await say(ctl, ADMIN, CHANNEL, "cs.LG, cs.ML"))  # a typo: named, with a suggestion
        assert "cs.ML" in reply.text and "stat.ML" in reply.text
        reply = only_text(await say(ctl, ADMIN, CHANNEL, "cs.LG, cs.AI"))
        assert "Daily or weekly?" in reply.text and [c.label for c in reply.choices] == ["daily", "weekly Monday"]
        # someone else chatting in the channel is not taken as an answer
        assert await say(ctl, MEMBER, CHANNEL, "nice bot") == []
        reply = only_text(await say(ctl, ADMIN, CHANNEL, "weekly on Fridays"))
        assert "what time" in reply.text
        reply = only_text(await say(ctl, ADMIN, CHANNEL, "8am"))
        assert "time zone" in reply.text

    async with session.open() as ctl:  # restarted half-way through /setup
        reply = only_text(await say(ctl, ADMIN, CHANNEL, "Berlin"))
        assert "interests" in reply.text or "read about" in reply.text
        await say(ctl, ADMIN, CHANNEL, "graph neural networks; optimisation theory")
        reply = only_text(await say(ctl, ADMIN, CHANNEL, "10"))
        assert "All set!" in reply.text
        target, profile = await ctl.core.repo.target_at("discord", "555") or (None, None)
        assert target is not None and profile is not None
        assert (target.categories, target.post_time, target.timezone, target.digest_size) == (
            ("cs.LG", "cs.AI"),
            "08:00",
            "Europe/Berlin",
            10,
        )
        assert (target.schedule, target.weekly_day) == ("weekly", 4)
        assert [t.want for t in profile.topics] == ["graph neural networks", "optimisation theory"]
        settings_text = only_text(await say(ctl, MEMBER, CHANNEL, "/settings")).text
        assert "every Friday at 08:00 (Europe/Berlin)" in settings_text and "active" in settings_text
        assert "grouped by topic" in settings_text
        assert "Paused" in only_text(await say(ctl, ADMIN, CHANNEL, "/pause")).text
        assert all(t.chat_id != "555" for t, _ in await ctl.core.repo.targets())
        assert "paused" in only_text(await say(ctl, ADMIN, CHANNEL, "/settings")).text
        assert "Resumed" in only_text(await say(ctl, ADMIN, CHANNEL, "/resume")).text

        # a form-style /setup (Discord options) with an attached TOML profile saves at once
        toml = Attachment("lab.toml", bundled_file(EXAMPLE_PROFILE_FILE).read_bytes())
        other = Place("discord", "556", is_dm=False, title="#lab")
        options = {"categories": "cs.LG", "time": "07:30", "timezone": "UTC", "size": "5"}
        reply = only_text(await ctl.handle(Incoming(ADMIN, other, command="setup", options=options, attachment=toml)))
        assert "All set!" in reply.text
        found = await ctl.core.repo.target_at("discord", "556")
        assert found is not None and found[1].boost and found[0].digest_size == 5
        bad = Attachment("bad.toml", b"name = [unclosed")
        reply = only_text(await ctl.handle(Incoming(ADMIN, other, command="setup", attachment=bad)))
        assert "not valid TOML" in reply.text and "Nothing was changed" in reply.text
        preview = await say(ctl, ADMIN, other, "/digest preview")
        assert the_digest(preview).digest.items and len(the_digest(preview).digest.items) <= 5


async def test_digest_now_without_a_poster_says_where_it_can_be_posted(
    settings: Settings, embedder: LocalEmbedder, store_day: StoreDay
) -> None:
    async with Session(settings, embedder).open() as ctl:
        await store_day(ctl.core)
        assert "/setup makes one" in only_text(await say(ctl, ADMIN, CHANNEL, "/digest now")).text
        options = {"categories": "cs.LG", "time": "09:00", "timezone": "UTC", "size": "3", "profile": "graphs"}
        assert "All set!" in text_of(await ctl.handle(Incoming(ADMIN, CHANNEL, command="setup", options=options)))
        assert "admins" in only_text(await say(ctl, MEMBER, CHANNEL, "/digest now")).text
        reply = only_text(await say(ctl, ADMIN, CHANNEL, "/digest now"))
        assert "needs the running bot" in reply.text and reply.ephemeral
        assert "now, preview, pause or resume" in only_text(await say(ctl, ADMIN, CHANNEL, "/digest weekly")).text


async def test_digest_now_in_the_console_says_the_running_bot_posts_it(
    settings: Settings, embedder: LocalEmbedder, store_day: StoreDay
) -> None:
    from bot.frontends.console import CONSOLE_PLACE

    me = Speaker("console:ada", "ada", is_admin=True)
    async with Session(settings, embedder).open() as ctl:
        await store_day(ctl.core)
        options = {"categories": "cs.LG", "time": "09:00", "timezone": "UTC", "size": "3", "profile": "graphs"}
        assert "All set!" in text_of(await ctl.handle(Incoming(me, CONSOLE_PLACE, command="setup", options=options)))
        shown = the_digest(await say(ctl, me, CONSOLE_PLACE, "/digest preview")).digest.items
        assert shown
        # the preview's footer offers /why N: N is of the preview, explained by the terminal's digest (ada has no
        # profile of her own); before, "/why 1" asked "Which paper?"
        why = only_text(await say(ctl, me, CONSOLE_PLACE, "/why 1")).text
        assert shown[0].title in why and "For profile" in why
        # the terminal is the console's one channel: "now" is about its digest, as preview is, not a personal one
        assert "needs the running bot" in only_text(await say(ctl, me, CONSOLE_PLACE, "/digest now")).text


def test_the_help_line_of_paper_says_what_its_card_shows() -> None:
    """/help said "one paper's card: title, authors, TL;DR, link"; the card also shows the abstract, day, categories
    and the arXiv comment (the README's table says so)."""
    line = COMMANDS["paper"].help
    assert all(part in line for part in ("TL;DR", "abstract", "day", "categories", "comment")) and len(line) <= 100


def test_every_commands_named_fields_come_from_the_table() -> None:
    """What a platform with forms makes of each command: required fields first (Discord refuses a form that puts an
    optional one before a required one), unique names, an `action` choice of the words an argument begins with,
    and /setup's form: the channel it is for, the setup's own options and a profile file."""
    for name, command in COMMANDS.items():
        fields = command.fields
        required = [field.required for field in fields]
        assert required == sorted(required, reverse=True), name
        assert len({field.name for field in fields}) == len(fields), name
        if command.actions:
            assert fields[0].name == "action" and fields[0].choices == command.actions, name
    setup_form = COMMANDS["setup"].fields
    assert [f.name for f in setup_form] == ["channel", *channel_setup.OPTIONS, "profile_file"]
    assert {f.name: f.hint for f in setup_form if f.name in channel_setup.OPTIONS} == channel_setup.OPTIONS
    assert {f.name: f.kind for f in setup_form if f.kind != "text"} == {
        "channel": "channel",
        "size": "number",
        "profile_file": "file",
    }
    assert [f.name for f in COMMANDS["ask"].fields] == ["question"] and COMMANDS["help"].fields == ()


async def test_the_busy_sign_goes_out_before_a_quick_answer_is_given() -> None:
    """A sign still on its way when the answer is ready was cancelled in flight (a Telegram DM showed no "typing…"
    under load); the first one is now sent before the work starts."""
    import asyncio
    from types import SimpleNamespace

    from bot.chat.driver import ChatDriver

    shown: list[str] = []

    async def slow_sign(chat: str) -> None:
        await asyncio.sleep(0.05)  # a round trip to the platform
        shown.append(chat)

    driver = SimpleNamespace(show_busy=slow_sign, busy_every=4.5)
    async with ChatDriver.busy(driver, "chat-1"):  # type: ignore[arg-type]
        seen_inside = list(shown)
    assert seen_inside == ["chat-1"] and shown == ["chat-1"]


async def test_a_turn_cancelled_while_its_first_busy_sign_is_sent_stops_showing_busy() -> None:
    """The turn waits for the first sign before its work; cancelled then (the bot stopping, the member's turn given
    up), the sign's loop is cancelled too, not left sending "typing…" every few seconds for ever."""
    import asyncio
    from types import SimpleNamespace

    from bot.chat.driver import ChatDriver

    sending, stopped = asyncio.Event(), asyncio.Event()

    async def hanging_sign(chat: str) -> None:
        sending.set()
        try:
            await asyncio.Event().wait()  # the platform does not answer
        finally:
            stopped.set()

    async def turn() -> None:
        driver = SimpleNamespace(show_busy=hanging_sign, busy_every=3600)
        async with ChatDriver.busy(driver, "chat-1"):  # type: ignore[arg-type]
            raise AssertionError("the work starts after the first sign")

    running = asyncio.create_task(turn())
    await sending.wait()
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    assert stopped.is_set()


async def test_a_start_that_fails_says_why_even_when_undoing_it_fails_too() -> None:
    """The platform unreachable at start is one line naming it; an undo that then fails as well (closing a client
    whose connection never opened) must not replace that line with its own error."""
    from bot.errors import SourceUnavailable
    from bot.frontend import starting

    async def undo() -> None:
        raise RuntimeError("This Application is not running!")

    with pytest.raises(SourceUnavailable, match=r"^cannot reach Example at https://chat\.example: "):
        async with starting("Example", "https://chat.example", (OSError,), undo):
            raise ConnectionRefusedError("connection refused")


async def test_what_a_reply_answers_is_looked_up_once_per_message(
    core: Core, store_day: StoreDay, context_lookups: list[str]
) -> None:
    """A reply to one of the bot's answers (a Discord or Telegram reply) is read from the store once: not once to
    route it and again to continue its question."""
    ctl = ChatController(core)
    await store_day(core)
    (answer,) = await ctl.handle(Incoming(MEMBER, CHANNEL, command="ask", args="sparse attention papers?"))
    assert isinstance(answer, AnswerReply)
    await ctl.remember_message(CHANNEL, "777", answer)
    context_lookups.clear()
    said = Incoming(MEMBER, CHANNEL, text="which of those are about vision?", reply_to="777")
    (follow_up,) = await ctl.handle(said)
    assert isinstance(follow_up, AnswerReply) and follow_up.context_id == answer.context_id
    assert context_lookups == ["777"]


def refused_thread() -> BaseException:
    """Our own error raised where the system refused a thread (CPython's bare RuntimeError under it)."""
    from bot.errors import StateError

    try:
        try:
            raise RuntimeError("can't start new thread")
        except RuntimeError as exc:
            raise StateError("the database could not be opened") from exc
    except StateError as exc:
        return exc


async def test_a_refused_thread_is_told_to_a_member_as_a_reference_and_explained_only_in_the_log(
    core: Core, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The remedy (ulimit, the threads setting) is the operator's: a member reads the usual line with a reference,
    the log has that reference beside the explanation."""
    from types import SimpleNamespace

    from bot.chat.driver import ChatDriver
    from bot.errors import SourceUnavailable

    ctl = ChatController(core)

    async def refused(msg: Incoming) -> list[Reply]:
        raise refused_thread()

    monkeypatch.setattr(ctl, "handle", refused)
    driver = SimpleNamespace(title="Example")
    told = [ChatDriver.problem(driver, refused_thread(), "button")]  # type: ignore[arg-type]
    [reply] = await ctl.answer(Incoming(MEMBER, CHANNEL, command="ask", args="sparse attention?"))
    told.append(reply.text)  # type: ignore[union-attr]
    for line in told:
        assert "went wrong on my side (ref " in line and "ulimit" not in line and "refused" not in line, line
        ref = line.split("ref ", 1)[1][:6]
        [logged] = [r.getMessage() for r in caplog.records if ref in r.getMessage()]
        assert "the system refused to start a thread" in logged and "ulimit -u" in logged, logged
    # our other errors still speak for themselves
    down = SourceUnavailable("arXiv cannot be reached")
    assert ChatDriver.problem(driver, down, "button") == "arXiv cannot be reached"  # type: ignore[arg-type]


def test_a_refusal_is_read_from_the_platforms_code_table_then_its_http_status() -> None:
    """`refusal`: a front end supplies only what its own error codes mean; the status says the rest (a 429 waits what
    the platform asked, or a minute), and the words of a code replace the raw detail only when the table has some."""
    from bot.chat.refusals import RETRY_WAIT_SECONDS, Kind, refusal
    from bot.digests.poster import permission_line

    codes: dict[object, tuple[Kind, str]] = {
        7: ("gone", "the member does not accept DMs"),
        13: ("denied", "I can't post in {where}"),
        "bad_blocks": ("markup", ""),
    }
    read = {
        (status, code): (found.kind, found.detail, found.retry_after)
        for status, code in [(403, 7), (403, 13), (200, "bad_blocks"), (429, 0), (404, 0), (401, 0), (400, 0),
                             (503, 0), (200, "odd")]
        for found in [refusal(status, code, "raw", codes, 2.5 if code == 0 and status == 429 else None)]
    }  # fmt: skip
    assert read == {
        (403, 7): ("gone", "the member does not accept DMs", None),
        (403, 13): ("denied", "I can't post in {where}", None),
        (200, "bad_blocks"): ("markup", "raw", None),
        (429, 0): ("retry", "raw", 2.5),
        (404, 0): ("gone", "raw", None),
        (401, 0): ("transient", "raw", None),  # the bot's own token, no chat's doing
        (400, 0): ("refused", "raw", None),
        (503, 0): ("transient", "raw", None),
        (200, "odd"): ("transient", "raw", None),
    }
    assert refusal(429, 0, "raw", codes).retry_after == RETRY_WAIT_SECONDS
    # a platform whose codes say what is wrong with a chat: a bare status is no chat's (a 429 still waits)
    said_by_codes = [refusal(s, "odd", "raw", codes, status_says=False).kind for s in (404, 403, 400, 503, 429)]
    assert said_by_codes == ["transient", "transient", "transient", "transient", "retry"]
    assert refusal(404, 7, "raw", codes, status_says=False).kind == "gone"
    assert permission_line("I can't post in #papers", ["Send Messages", "Embed Links"], "channel settings") == (
        "I can't post in #papers: give paperscout Send Messages, Embed Links there (channel settings)"
    )
    assert permission_line("I can't see #papers", []) == "I can't see #papers: check paperscout's permissions there"


def test_a_retry_after_header_is_read_in_either_form_and_an_unreadable_one_never_raises() -> None:
    """The Retry-After header as a platform (or a proxy before it) sends it: seconds or an HTTP date; one that cannot
    be read, or names no sane wait, is a rate limit without a wait (a minute). `float()` of it raised out of the
    front end's `failure` for a date, and a negative or infinite wait was handed to the retry as asked."""
    import email.utils

    from bot.chat.refusals import RETRY_WAIT_SECONDS, refusal

    assert refusal(429, 0, "raw", {}, "7").retry_after == 7.0
    in_a_day = email.utils.format_datetime(dt.datetime.now(dt.UTC) + dt.timedelta(days=1), usegmt=True)
    wait = refusal(429, 0, "raw", {}, in_a_day).retry_after
    assert wait is not None and 80_000 < wait <= 86_400
    for unreadable in ("soon", "inf", "nan", "-5", " "):
        assert refusal(429, 0, "raw", {}, unreadable).retry_after == RETRY_WAIT_SECONDS, unreadable
    found = refusal(503, 0, "raw", {}, "Wed, 21 Oct 2015 07:28:00 GMT")  # not a rate limit: no wait of its own
    assert (found.kind, found.retry_after) == ("transient", None)


def test_a_retry_after_of_zero_is_a_prompt_retry_not_a_minute() -> None:
    """A 429 whose wait is zero (the header "0", a date already past, a platform's retry_after 0) asks for a retry
    now: it was read as no wait at all and waited a minute; the delivery still pauses a moment before it."""
    from bot.chat.refusals import refusal
    from bot.digests.delivery import MIN_RETRY_SECONDS, DeliveryError, retry_wait

    for zero in ("0", " 0 ", "0.0", "Wed, 21 Oct 2015 07:28:00 GMT", 0, 0.0):
        wait = refusal(429, 0, "raw", {}, zero).retry_after
        assert wait == 0.0, zero
        assert retry_wait(DeliveryError("429", retry_after=wait), 1) == MIN_RETRY_SECONDS <= 1.0, zero
    assert retry_wait(DeliveryError("429", retry_after=MIN_RETRY_SECONDS / 2), 1) == MIN_RETRY_SECONDS
    assert retry_wait(DeliveryError("429", retry_after=2.0), 1) == 2.0  # a positive wait is waited as asked


async def test_an_interaction_withdraws_a_public_acknowledgement_before_a_private_first_page() -> None:
    """The core's `Interaction` rules, the same for any platform whose first page takes the acknowledgement's
    visibility: a public acknowledgement still waiting is withdrawn before a private page (also after a public page
    failed), never after a page went out; nothing said withdraws it; an acknowledged interaction is not acknowledged
    again."""
    from bot.chat.answering import Interaction

    class Recorded(Interaction):
        def __init__(self, answered: bool = False, refuse: int = 0, stuck: bool = False) -> None:
            self.answered, self.refuse, self.stuck, self.log = answered, refuse, stuck, []

        async def acknowledge(self, private: bool) -> bool:
            if self.answered:
                return False
            self.log.append(f"ack {'private' if private else 'public'}")
            return True

        async def send(self, message: object, private: bool) -> str:
            if self.refuse:
                self.refuse -= 1
                raise RuntimeError("refused")
            self.log.append(f"{message} {'private' if private else 'public'}")
            return str(len(self.log))

        async def withdraw(self) -> bool:
            self.log.append("withdraw")
            return not self.stuck

    async def answer(interaction: Recorded, *pages: tuple[str, bool]) -> list[str]:
        await interaction.defer(pages[0][1] if pages else False)
        for page, private in pages:
            try:
                await interaction(page, private)
            except (RuntimeError, DeliveryError):
                continue
        await interaction.finish()
        return interaction.log

    assert await answer(Recorded(), ("a", False), ("b", True)) == ["ack public", "a public", "b private"]
    assert await answer(Recorded(), ("note", True)) == ["ack private", "note private"]
    failed_then_told = await answer(Recorded(refuse=1), ("page", False), ("note", True))
    assert failed_then_told == ["ack public", "withdraw", "note private"]
    assert await answer(Recorded()) == ["ack public", "withdraw"]
    assert await answer(Recorded(answered=True), ("note", True)) == ["note private"]
    # a public acknowledgement that could not be withdrawn is never the way a private page goes: it would show it
    assert await answer(Recorded(refuse=1, stuck=True), ("page", False), ("note", True)) == [
        "ack public",
        "withdraw",
        "withdraw",
    ]


async def test_setup_where_the_bot_cannot_post_names_the_permissions_and_where_they_are_given(core: Core) -> None:
    """/setup in a place the bot lacks permissions in says so in the line a refused post gets (the poster's
    `permission_problem`): the place by name, the permissions to give and where the platform's settings have them;
    a place it can post in gets no such line."""
    from bot.digests.poster import PlatformPoster
    from bot.models import Target
    from bot.views.model import DigestView

    class Locked(PlatformPoster):
        platform, permissions_at = "discord", "channel settings > Permissions"

        def render_digest(self, target: Target, view: DigestView) -> list[object]:
            return []

        async def send(self, target: Target, message: object, position: int, sent: object, nonce: str) -> str:
            raise AssertionError("/setup posts nothing")

        def missing_permissions(self, chat: str) -> list[str]:
            return ["Send Messages", "Embed Links"] if chat == CHANNEL.chat_id else []

        def place_name(self, chat: str) -> str:
            return "#papers"

    ctl = ChatController(core, Locked())
    said = text_of(await say(ctl, ADMIN, CHANNEL, "/setup"))
    assert (
        "I can't post in #papers yet: give paperscout Send Messages, Embed Links there (channel settings > Permissions)"
        in said
    ), said
    elsewhere = Place("discord", "556", is_dm=False, title="#other")
    assert "give paperscout" not in text_of(await say(ctl, ADMIN, elsewhere, "/setup"))


def test_a_permission_problem_in_a_place_the_platform_cannot_name_reads_as_a_sentence() -> None:
    """Without the place's name (not in the client's cache), the line still reads: 'that channel', not 'in there'."""
    from bot.digests.poster import PlatformPoster
    from bot.models import Target
    from bot.views.model import DigestView

    class Unnamed(PlatformPoster):
        platform = "discord"

        def render_digest(self, target: Target, view: DigestView) -> list[object]:
            return []

        async def send(self, target: Target, message: object, position: int, sent: object, nonce: str) -> str:
            return ""

    assert Unnamed().permission_problem("42", "I can't see {where}") == (
        "I can't see that channel: check paperscout's permissions there"
    )


async def test_an_onboarding_answer_starting_with_a_slash_is_an_answer_unless_it_is_a_command(core: Core) -> None:
    """Interests such as "/r/MachineLearning style news" or "/ML theory" are answers, as the line a front end hands
    in (`typed`) reads them; a command of the flow is one ("/skip"), and a bare unknown one is told it is unknown."""
    from bot.chat import typed

    ctl = ChatController(core)

    async def line(text: str) -> TextReply:
        return only_text(await ctl.handle(typed(ADA, DM, text)))

    assert "set up your personal paper feed" in (await line("hi")).text
    interests = await line("/r/MachineLearning style news; /ML theory")
    assert "I don't know" not in interests.text and "2 topics" in interests.text
    assert "I don't know /frobnicate" in (await line("/frobnicate")).text
    assert "authors" in (await line("/skip")).text.lower()  # the avoid question skipped: the authors one next
    profile_text = json.dumps(await ctl.core.repo.chat_state(ADA.user_key, "onboarding"))
    assert "/r/MachineLearning style news" in profile_text and "/ML theory" in profile_text


def test_a_typed_line_is_a_command_only_when_it_reads_as_one_and_names_ours_or_says_nothing_more() -> None:
    """`typed`: the platforms' command syntax (a slash, 1-32 letters, digits or underscores, an optional @botname,
    then a space or the end) and then ours or a bare word; a slash before anything else is text, as "/s is sarcasm"
    is: a word that is no command of ours with more said after it."""
    from bot.chat import typed

    def read(line: str) -> tuple[str, str]:
        said = typed(ADA, DM, line)
        return said.command, said.args

    assert read("/ask papers on MoE") == ("ask", "papers on MoE")
    assert read("/Help@paperscout_bot") == ("help", "")
    assert read("/cancel") == ("cancel", "")  # a flow's own word
    assert read("/frobnicate") == ("frobnicate", "")  # told it is unknown, as before
    # a word that is no command of ours followed only by what commands take (a number, an arXiv id) is a command
    # mistyped, told it is unknown: "/undo 1" (for "/reactions undo 1") had been asked as a question about "undo"
    assert read("/undo 1") == ("undo", "1")
    assert read("/show 2505.22913 3") == ("show", "2505.22913 3")
    for text in (
        "/r/MachineLearning has a thread on MoE",
        "/s is sarcasm",
        "/ask? papers",
        "/",
        "/ papers",
        "/" + "a" * 33,
    ):
        said = typed(ADA, DM, text)
        assert (said.command, said.text) == ("", text), text


def test_a_command_ends_at_any_space_a_line_break_too() -> None:
    """A command read as one (`typed`: a space or the end after it, a line break included) is that command with the
    rest its arguments: "/ask" then the question on the next line was the unknown command "ask\nwhat"."""
    from bot.chat import typed

    said = typed(ADA, DM, "/ask\nwhat is LoRA?")
    assert (said.command, said.args) == ("ask", "what is LoRA?")
    tabbed = typed(ADA, DM, "/help@paperscout_bot\tdigests")
    assert (tabbed.command, tabbed.args) == ("help", "digests")


async def test_the_question_pause_counts_from_the_answer_so_a_slow_answer_does_not_refuse_a_quick_follow_up(
    core: Core, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.chat import questions

    clock = [1000.0]
    monkeypatch.setattr(questions.time, "monotonic", lambda: clock[0])
    ctl = ChatController(core)
    during: list[list[Reply]] = []

    async def slow_answer(turn: questions.Turn, question: str) -> TextReply:
        clock[0] += 5.6  # a slow answer
        if not during:  # a second question while this one is being worked out
            during.append(await questions.ask(turn))
        return TextReply("answered " + question)

    monkeypatch.setattr(questions, "answer", slow_answer)
    core.settings.ask_cooldown_seconds = 2
    [first] = await say(ctl, ADA, DM, "/ask what is new on diffusion?")
    assert first.text == "answered what is new on diffusion?"
    assert only_text(during[0]).text == "One question at a time: your last question is still being answered."
    clock[0] += 1  # too soon after the answer
    assert only_text(await say(ctl, ADA, DM, "/ask and on transformers?")).text.endswith("ask again in 1 s.")
    clock[0] += 2  # a follow-up typed three seconds after the answer came
    [second] = await say(ctl, ADA, DM, "/ask and on transformers?")
    assert second.text == "answered and on transformers?"


async def test_a_question_typed_where_onboarding_asks_for_interests_is_answered_not_taken_as_one(
    core: Core, store_day: StoreDay
) -> None:
    """The console greets a new user with onboarding; "what's new on diffusion?" as their first line was saved as
    their interest (and the next question as what to avoid)."""
    await store_day(core)
    ctl = ChatController(core)
    (greeting,) = await ctl.greet(ADA, DM)
    assert "What do you want to read about?" in greeting.text
    *answered, again = await say(ctl, ADA, DM, "what's new on toxicity?")
    assert any(isinstance(r, AnswerReply) and r.citations for r in answered), answered
    assert "not taken as one of your interests" in again.text and "What do you want to read about?" in again.text
    assert await onboarding_step(core) == "interests"
    assert "Noted your interest." in text_of(await say(ctl, ADA, DM, "toxicity detection in language models"))
    *answered, again = await say(ctl, ADA, DM, "and which of those are about health?")
    assert "not taken as something to avoid" in again.text and await onboarding_step(core) == "avoid"
    state = json.dumps(await core.repo.chat_state(ADA.user_key, "onboarding"))
    assert "what's new" not in state and "health?" not in state


async def test_a_list_of_interests_whose_last_item_ends_with_a_question_mark_is_a_list(
    core: Core, store_day: StoreDay
) -> None:
    """A line "graph neural networks; video diffusion; what about RLHF?" was answered as one question about all
    three (its topic "graph neural networks; video diffusion; what about RLHF") and none was kept as an interest."""
    await store_day(core)
    ctl = ChatController(core)
    await ctl.greet(ADA, DM)
    replies = await say(ctl, ADA, DM, "graph neural networks; video diffusion; what about RLHF?")
    assert not any(isinstance(r, AnswerReply) for r in replies)
    assert "Noted 3 topics." in text_of(replies) and await onboarding_step(core) == "avoid"


async def test_a_question_after_a_line_of_prose_is_no_list_of_interests(core: Core, store_day: StoreDay) -> None:
    """ "Hi, I'm new here." then "Any papers on diffusion models this week?" on the next line was kept as two
    interests ("Noted 2 topics."), the greeting one of them, since b031f60 read any message of several lines as the
    list asked for: lines ending as sentences are prose, and the question they lead to is answered."""
    await store_day(core)
    ctl = ChatController(core)
    await ctl.greet(ADA, DM)
    replies = await say(ctl, ADA, DM, "Hi, I'm new here.\nAny papers on diffusion models this week?")
    assert any(isinstance(r, AnswerReply) for r in replies), text_of(replies)
    assert "not taken as one of your interests" in text_of(replies) and await onboarding_step(core) == "interests"


@pytest.mark.parametrize(
    "line", ["what's new on diffusion", "whats new on diffusion", "are there papers on RLHF", "which papers study X"]
)
def test_a_question_without_its_mark_reads_as_one(line: str) -> None:
    """ "what's new on diffusion" typed at onboarding became the member's interest: a question's word order (a word
    of asking before an auxiliary, an auxiliary before its subject) asks without the question mark."""
    assert reads_as_question(line)


@pytest.mark.parametrize(
    "line", ["how transformers generalize", "what makes models robust", "speculative decoding; KV cache compression"]
)
def test_an_interest_opening_with_a_word_of_asking_stays_an_interest(line: str) -> None:
    assert not reads_as_question(line)


async def test_a_question_without_its_mark_at_onboarding_is_answered(core: Core, store_day: StoreDay) -> None:
    await store_day(core)
    ctl = ChatController(core)
    await ctl.greet(ADA, DM)
    *answered, again = await say(ctl, ADA, DM, "what's new on toxicity")
    assert any(isinstance(r, AnswerReply) and r.citations for r in answered), answered
    assert "not taken as one of your interests" in again.text and await onboarding_step(core) == "interests"


async def test_a_question_refused_at_onboarding_is_not_said_to_be_answered(
    core: Core, store_day: StoreDay, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In the console, a second question typed at onboarding within the pause got "One question at a time: ask again
    in 2 s." and then "That was a question, so I answered it above"."""
    from bot.chat import questions

    await store_day(core)
    core.settings.ask_cooldown_seconds = 2
    monkeypatch.setattr(questions.time, "monotonic", lambda: 1000.0)
    ctl = ChatController(core)
    await ctl.greet(ADA, DM)
    *_, first = await say(ctl, ADA, DM, "what's new on toxicity?")
    assert "so I answered it above" in first.text
    *refused, again = await say(ctl, ADA, DM, "which papers are about alignment?")
    assert not any(isinstance(r, AnswerReply) for r in refused)
    assert "it was not answered (see above)" in again.text and "answered it above" not in again.text


async def onboarding_step(core: Core) -> str:
    from bot.members import onboarding

    return await onboarding.current_step(core, ADA.user_key)


@pytest.mark.parametrize("line", ["how does in-context learning work", "how does in-context learning work?"])
async def test_an_interest_worded_as_a_question_about_its_topic_is_taken_as_an_interest(
    core: Core, store_day: StoreDay, line: str
) -> None:
    """ "how does in-context learning work" typed where onboarding asks for interests was answered from the papers
    and the question asked again (a word of asking before an auxiliary read as a question): a question about a topic,
    unmarked, is how some members state an interest; only a request for papers is answered there."""
    await store_day(core)
    ctl = ChatController(core)
    await ctl.greet(ADA, DM)
    replies = await say(ctl, ADA, DM, line)
    assert not any(isinstance(r, AnswerReply) for r in replies), text_of(replies)
    assert "Noted your interest." in text_of(replies) and await onboarding_step(core) == "avoid"


@pytest.mark.parametrize("line", ["how do I set up my profile", "how can I change my interests?", "what can you do"])
async def test_a_question_about_the_bot_at_onboarding_is_answered_with_help(
    core: Core, store_day: StoreDay, line: str
) -> None:
    """ "how do I set up my profile" at the interests step was answered from the stored papers: a question about
    using the bot gets the bot's own help, and the step is asked again."""
    await store_day(core)
    ctl = ChatController(core)
    await ctl.greet(ADA, DM)
    replies = await say(ctl, ADA, DM, line)
    assert not any(isinstance(r, AnswerReply) for r in replies), text_of(replies)
    said = text_of(replies)
    assert "/skip" in said and "What do you want to read about?" in said
    assert "not taken as one of your interests" in said and await onboarding_step(core) == "interests"


@pytest.mark.parametrize("line", ["how do I set up my profile", "what can you do?", "how does this work"])
async def test_a_first_dm_about_the_bot_gets_help_not_papers(core: Core, store_day: StoreDay, line: str) -> None:
    """A first DM "how do I set up my profile" (someone without a profile) was answered from the stored papers."""
    await store_day(core)
    ctl = ChatController(core)
    replies = await say(ctl, ADA, DM, line)
    assert not any(isinstance(r, AnswerReply) for r in replies), text_of(replies)
    assert "/start" in text_of(replies)


@pytest.mark.parametrize(
    "line",
    ["how do I set up my profile", "what can you do", "how does this work", "how can I change my interests?", "help"],
)
def test_a_question_about_using_the_bot_reads_as_one(line: str) -> None:
    from bot.chat.commands import about_the_bot

    assert about_the_bot(line)


@pytest.mark.parametrize(
    "line",
    [
        "how does in-context learning work",
        "how do I train a diffusion model?",
        "what's new on diffusion",
        "can you find papers on RLHF?",
        "speculative decoding; KV cache compression",
        "how transformers generalize",
    ],
)
def test_a_question_about_a_topic_is_not_about_the_bot(line: str) -> None:
    from bot.chat.commands import about_the_bot

    assert not about_the_bot(line)


def test_asking_for_what_is_new_for_oneself_is_not_about_the_bot() -> None:
    from bot.chat.commands import about_the_bot

    assert not about_the_bot("what's new for me?")


async def _member_with_a_profile(core: Core) -> None:
    from bot.members.onboarding import Draft, build_profile

    profile = build_profile(Draft(interests=["graph neural networks"]), "Ada (personal)")
    await core.repo.ensure_user(ADA.user_key, "Ada")
    await core.repo.save_profile(profile_owner(ADA.user_key), profile)


async def test_digest_runs_while_an_edit_is_open_and_says_how_to_finish_it(core: Core, store_day: StoreDay) -> None:
    """/digest while an /edit was open answered "Let's finish your profile first (or /cancel it)." and nothing more:
    the saved profile's digest is shown, then the edit's question again with how to finish or cancel it."""
    await store_day(core)
    await _member_with_a_profile(core)
    ctl = ChatController(core)
    await say(ctl, ADA, DM, "/edit interests")
    replies = await say(ctl, ADA, DM, "/digest")
    assert any(isinstance(r, DigestReply) and r.digest.items for r in replies), text_of(replies)
    said = text_of(replies)
    assert "/cancel" in said and "saved profile" in said and await onboarding_step(core) == "interests"
    assert "Noted your interest." in text_of(await say(ctl, ADA, DM, "video diffusion"))


async def test_digest_during_onboarding_says_how_to_finish_or_cancel(core: Core, store_day: StoreDay) -> None:
    await store_day(core)
    ctl = ChatController(core)
    await ctl.greet(ADA, DM)
    said = text_of(await say(ctl, ADA, DM, "/digest"))
    assert "/cancel" in said and "What do you want to read about?" in said, said
    assert await onboarding_step(core) == "interests"


@pytest.mark.parametrize(
    ("line", "asks"),
    [
        ("how does in-context learning work?", False),
        ("why do transformers generalize?", False),
        ("how does in-context learning work", False),
        ("what's new on toxicity?", True),
        ("who is working on federated learning?", True),
        ("which papers study overthinking?", True),
        ("Any papers on diffusion models this week?", True),
        ("are there papers on RLHF", True),
    ],
)
def test_at_onboarding_a_question_about_a_topic_is_an_interest_and_one_for_papers_is_answered(
    line: str, asks: bool
) -> None:
    """Where onboarding asks "What do you want to read about?", a reply is an interest unless it asks the bot for
    something: "how does in-context learning work?" states what the member wants to read about, with or without its
    mark; "what's new on X?", "who is working on X?" ask the bot for papers or people and are answered."""
    from bot.chat.members import asks_for_papers

    assert asks_for_papers(line) is asks


@pytest.mark.parametrize(
    ("line", "stored"),
    [
        ("what is RLHF?", ["RLHF"]),
        ("how does in-context learning work", ["in-context learning"]),
        ("How do diffusion models generalize?", ["diffusion models generalize"]),
        ("graph neural networks\nwhat are state space models?", ["graph neural networks", "state space models"]),
        ("how transformers generalize", ["how transformers generalize"]),  # a statement's order: kept as typed
    ],
)
async def test_an_interest_worded_as_a_question_is_stored_as_its_topic(
    core: Core, store_day: StoreDay, line: str, stored: list[str]
) -> None:
    """ "what is RLHF?" taken as an interest was stored as "what is RLHF?", shown so in the profile and read with its
    question words ("how does in-context learning work" needed a paper's "does"): the question's topic is stored."""
    from bot.members import onboarding

    await store_day(core)
    ctl = ChatController(core)
    await ctl.greet(ADA, DM)
    replies = await say(ctl, ADA, DM, line)
    assert not any(isinstance(r, AnswerReply) for r in replies), text_of(replies)
    state = await onboarding.load(core, ADA.user_key)
    assert state is not None and state.draft.interests == stored


async def test_something_to_avoid_worded_as_a_question_is_stored_as_its_topic(core: Core, store_day: StoreDay) -> None:
    from bot.members import onboarding

    await store_day(core)
    ctl = ChatController(core)
    await ctl.greet(ADA, DM)
    await say(ctl, ADA, DM, "graph neural networks")
    await say(ctl, ADA, DM, "what is blockchain?")
    state = await onboarding.load(core, ADA.user_key)
    assert state is not None and state.draft.avoid == ["blockchain"]


@pytest.mark.parametrize(
    "line",
    [
        "what are the surveys on RLHF?",
        "what is the theory behind in-context learning?",
        "what is going on in protein design this week?",
        "what has been written by Yann LeCun?",
    ],
)
def test_at_onboarding_a_question_asking_for_a_kind_window_or_author_is_answered(line: str) -> None:
    """ "what are the surveys on RLHF?" at the interests step was taken as an interest (a question about its topic
    since 8055bad, its words asking for papers looked up in a list of document nouns): a question whose reading asks
    for a kind of paper, theory, a time window or an author asks for papers, as before 8055bad."""
    from bot.chat.members import asks_for_papers

    assert asks_for_papers(line)
