"""The fake Bot API server against the real python-telegram-bot 22 stack (Application, Updater, AIORateLimiter)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from aiohttp import web
from telegram import (
    Bot,
    BotCommand,
    ChatMemberAdministrator,
    ChatMemberMember,
    ChatMemberOwner,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    ReplyParameters,
    Update,
)
from telegram.constants import ChatAction, ParseMode
from telegram.error import BadRequest, Conflict, Forbidden, InvalidToken, RetryAfter
from telegram.ext import (
    AIORateLimiter,
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from tests.fakes.telegram_html import EntityParseError, parse_html
from tests.fakes.telegram_server import FakeTelegram, Fault, RatePolicy

ALICE, BOB = 1001, 1002
GROUP, CHANNEL = -1001234567890, -1009876543210


@pytest.fixture
def fake(fake_telegram: FakeTelegram) -> FakeTelegram:
    fake_telegram.add_user(ALICE, "Alice", username="alice")
    fake_telegram.add_user(BOB, "Bob")
    fake_telegram.add_group(GROUP, "Reading group", creator=ALICE, members=[BOB])
    fake_telegram.add_channel(CHANNEL, "Papers daily", username="papers_daily", admins=[ALICE])
    return fake_telegram


def build(fake: FakeTelegram, *, token: str | None = None, max_retries: int = 0) -> Application:
    return (
        ApplicationBuilder()
        .token(token or fake.token)
        .base_url(fake.base_url)
        .base_file_url(fake.base_file_url)
        .rate_limiter(AIORateLimiter(max_retries=max_retries))
        .build()
    )


@asynccontextmanager
async def running(app: Application) -> AsyncIterator[Application]:
    """Started inside the test's loop the way paperscout run starts it: never run_polling."""
    await app.initialize()
    await app.start()
    assert app.updater is not None
    await app.updater.start_polling(timeout=5, poll_interval=0.0)
    try:
        yield app
    finally:
        await app.updater.stop()
        await app.stop()
        await app.shutdown()


def seconds(value: object) -> float:
    """RetryAfter.retry_after is an int or a timedelta depending on PTB's PTB_TIMEDELTA setting."""
    return value.total_seconds() if hasattr(value, "total_seconds") else float(value)  # type: ignore[arg-type]


# --- HTML parse mode ---


def test_html_entities_use_utf16_offsets_and_decode_named_and_numeric_entities() -> None:
    text, entities = parse_html('🎉 <b>bold &amp; <i>both</i></b> <a href="https://arxiv.org/abs/1">x&lt;y</a> &#33;')
    assert text == "🎉 bold & both x<y !"
    assert entities == [
        {"type": "bold", "offset": 3, "length": 11},
        {"type": "italic", "offset": 10, "length": 4},
        {"type": "text_link", "url": "https://arxiv.org/abs/1", "offset": 15, "length": 3},
    ]


def test_html_pre_with_code_language_is_one_entity_and_whitespace_is_trimmed() -> None:
    text, entities = parse_html('  <pre><code class="language-python">x = 1</code></pre>\n')
    assert text == "x = 1"
    assert entities == [{"type": "pre", "language": "python", "offset": 0, "length": 5}]


@pytest.mark.parametrize(
    ("html", "message"),
    [
        ("<script>alert(1)</script>", 'Unsupported start tag "script" at byte offset 0'),
        ("a <br> b", 'Unsupported start tag "br" at byte offset 2'),
        ("<b>open", 'Can\'t find end tag corresponding to start tag "b"'),
        ("<b><i>x</b></i>", 'Unmatched end tag at byte offset 7, expected "</i>", found "</b>"'),
        ("x</b>", "Unexpected end tag at byte offset 1"),
        ("1 < 2", 'Unsupported start tag "" at byte offset 2'),
        ("R&D", "Character '&' at byte offset 1 does not start an HTML entity"),
        ("&nbsp;", 'Unsupported HTML entity "&nbsp;"'),
        ("<a>link</a>", 'Tag "a" must have a href attribute'),
        ('<span class="x">s</span>', 'Tag "span" must have class "tg-spoiler"'),
        ("<b", "Unclosed start tag at byte offset 0"),
    ],
)
def test_html_telegram_rejects(html: str, message: str) -> None:
    with pytest.raises(EntityParseError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_html(html)


def test_html_allowed_tags_all_parse() -> None:
    html = (
        "<b>b</b><strong>s</strong><i>i</i><em>e</em><u>u</u><ins>n</ins><s>s</s><strike>k</strike><del>d</del>"
        '<tg-spoiler>p</tg-spoiler><span class="tg-spoiler">q</span><code>c</code><pre>r</pre>'
        '<blockquote>q</blockquote><blockquote expandable>x</blockquote><tg-emoji emoji-id="5368324170671202286">'
        "👍</tg-emoji><a href='tg://user?id=1'>m</a>"
    )
    text, entities = parse_html(html)
    assert text == "bsieunskdpqcrqx👍m"
    kinds = [e["type"] for e in entities]
    assert kinds.count("bold") == 2 and kinds.count("strikethrough") == 3 and "expandable_blockquote" in kinds


# --- the real PTB stack over HTTP ---


async def test_polling_application_answers_a_command_in_html(fake: FakeTelegram) -> None:
    app = build(fake)

    async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_message is not None
        await update.effective_message.reply_html(
            f"Hello <b>{update.effective_user.first_name}</b> &amp; welcome @alice"
        )

    app.add_handler(CommandHandler("start", start))
    async with running(app):
        assert app.bot.username == "paperscout_test_bot"
        fake.inject_message(ALICE, ALICE, "/start")
        [sent] = await fake.wait_for_sent(ALICE)
    assert sent.text == "Hello Alice & welcome @alice"
    assert sent.entity_texts("bold") == ["Alice"]
    assert sent.html == "Hello <b>Alice</b> &amp; welcome @alice"
    assert [e["type"] for e in sent.entities] == ["bold", "mention"], "Telegram finds @alice by itself"
    assert fake.pending_updates() == 0, "stopping the updater confirms what it fetched"
    assert [c.method for c in fake.calls()][:2] == ["getMe", "deleteWebhook"]


async def test_long_poll_returns_as_soon_as_an_update_arrives_and_a_newer_poll_ends_the_older(
    fake: FakeTelegram,
) -> None:
    app = build(fake)
    await app.initialize()
    try:
        waiting = asyncio.create_task(app.bot.get_updates(timeout=10))
        await asyncio.sleep(0.2)
        started = time.monotonic()
        fake.inject_message(ALICE, ALICE, "hi")
        [update] = await asyncio.wait_for(waiting, 3)
        assert time.monotonic() - started < 1.0
        assert update.message.text == "hi" and update.message.chat.type == "private"

        # A second process polling with the same token: the newer getUpdates ends the older one with 409.
        other = Bot(fake.token, base_url=fake.base_url)
        async with other:
            older = asyncio.create_task(other.get_updates(offset=update.update_id + 1, timeout=10))
            await asyncio.sleep(0.2)
            assert await app.bot.get_updates(offset=update.update_id + 1, timeout=0) == ()
            with pytest.raises(Conflict, match="terminated by other getUpdates request"):
                await asyncio.wait_for(older, 3)
    finally:
        await app.shutdown()


async def test_group_privacy_mode_delivers_commands_and_replies_but_not_chatter(fake: FakeTelegram) -> None:
    app = build(fake)
    seen: list[str] = []

    async def note(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        seen.append(update.effective_message.text)

    app.add_handler(MessageHandler(filters.ALL, note))
    async with running(app):
        fake.inject_message(GROUP, BOB, "just chatting")
        fake.inject_message(GROUP, BOB, "/paper@other_bot 2505.17639")
        fake.inject_message(GROUP, BOB, "/paper@paperscout_test_bot 2505.17639")
        fake.inject_message(GROUP, BOB, "/search sparse attention")
        await fake.wait_until(lambda: len(seen) == 2, what="two commands")
    assert seen == ["/paper@paperscout_test_bot 2505.17639", "/search sparse attention"]


async def test_sends_are_validated_like_telegram(fake: FakeTelegram) -> None:
    app = build(fake)
    await app.initialize()
    bot = app.bot
    try:
        with pytest.raises(BadRequest, match=r"(?i)can't parse entities: unsupported start tag .script."):
            await bot.send_message(GROUP, "<b>Title</b> <script>", parse_mode=ParseMode.HTML)
        with pytest.raises(BadRequest, match=r"(?i)message is too long"):
            await bot.send_message(GROUP, "x" * 4097)
        await bot.send_message(GROUP, "&amp;" * 4096, parse_mode=ParseMode.HTML)  # 4,096 after parsing
        with pytest.raises(BadRequest, match=r"(?i)message is too long"):
            await bot.send_message(GROUP, "🎉" * 2049)  # 4,098 UTF-16 units
        with pytest.raises(BadRequest, match=r"(?i)message text is empty"):
            await bot.send_message(GROUP, "<b> </b>", parse_mode=ParseMode.HTML)
        with pytest.raises(BadRequest, match=r"(?i)chat not found"):
            await bot.send_message(-100555, "hello")
        too_long = InlineKeyboardMarkup([[InlineKeyboardButton("👍", callback_data="u" * 65)]])
        with pytest.raises(BadRequest, match=r"(?i)button_data_invalid"):
            await bot.send_message(GROUP, "paper", reply_markup=too_long)
        fits = InlineKeyboardMarkup([[InlineKeyboardButton("👍", callback_data="é" * 32)]])  # 64 bytes
        await bot.send_message(GROUP, "paper", reply_markup=fits)
        with pytest.raises(BadRequest, match=r"(?i)message to be replied not found"):
            await bot.send_message(GROUP, "re", reply_parameters=ReplyParameters(message_id=999))
    finally:
        await app.shutdown()
    failed = [c for c in fake.calls("sendMessage") if c.status == 400]
    assert len(failed) == 7 and all(c.description.startswith("Bad Request: ") for c in failed)
    assert [m.text[:5] for m in fake.sent(GROUP)] == ["&&&&&", "paper"]


async def test_forbidden_for_blocked_kicked_deactivated_and_never_started(fake: FakeTelegram) -> None:
    fake.add_user(1003, "Carol")
    fake.inject_message(BOB, BOB, "/start")
    fake.block(BOB)
    fake.kick(GROUP)
    fake.deactivate(ALICE)
    app = build(fake)
    await app.initialize()
    try:
        for chat, message in [
            (BOB, "bot was blocked by the user"),
            (GROUP, "bot was kicked from the supergroup chat"),
            (ALICE, "user is deactivated"),
            (1003, "bot can't initiate conversation with a user"),
        ]:
            with pytest.raises(Forbidden, match=message):
                await app.bot.send_message(chat, "digest")
        with pytest.raises(Forbidden):
            await app.bot.send_chat_action(BOB, ChatAction.TYPING)
        fake.inject_message(BOB, BOB, "/start")  # writing again unblocks
        await app.bot.send_message(BOB, "welcome back")
        updates = await app.bot.get_updates(timeout=0)
    finally:
        await app.shutdown()
    statuses = [
        (u.my_chat_member.chat.id, u.my_chat_member.new_chat_member.status) for u in updates if u.my_chat_member
    ]
    assert (BOB, "kicked") in statuses and (GROUP, "kicked") in statuses and (BOB, "member") in statuses


async def test_scripted_429_reaches_ptb_as_retry_after_and_the_rate_limiter_retries(fake: FakeTelegram) -> None:
    fake.inject_message(ALICE, ALICE, "/start")
    fake.enqueue(Fault.rate_limit(retry_after=1).on("sendMessage"))
    app = build(fake)
    await app.initialize()
    try:
        with pytest.raises(RetryAfter) as caught:
            await app.bot.send_message(ALICE, "one")
        assert seconds(caught.value.retry_after) == 1
    finally:
        await app.shutdown()

    fake.enqueue(Fault.rate_limit(retry_after=1).on("sendmessage"))
    patient = build(fake, max_retries=2)
    await patient.initialize()
    try:
        started = time.monotonic()
        await patient.bot.send_message(ALICE, "two")
        assert time.monotonic() - started >= 1.0
    finally:
        await patient.shutdown()
    assert [(c.status, c.fault) for c in fake.calls("sendMessage")] == [(429, "error"), (429, "error"), (200, None)]
    assert [m.text for m in fake.sent(ALICE)] == ["two"]


async def test_rate_policy_answers_429_per_chat_and_overall(fake: FakeTelegram) -> None:
    fake.inject_message(ALICE, ALICE, "/start")
    fake.inject_message(BOB, BOB, "/start")
    fake.set_rate_policy(RatePolicy(overall_per_second=3, per_chat_per_second=2, per_group_per_minute=None))
    app = build(fake)
    await app.initialize()
    try:
        await app.bot.send_message(ALICE, "1")
        await app.bot.send_message(ALICE, "2")
        with pytest.raises(RetryAfter):
            await app.bot.send_message(ALICE, "3")
        await app.bot.send_message(BOB, "1")
        with pytest.raises(RetryAfter) as caught:
            await app.bot.send_message(BOB, "2")
        assert seconds(caught.value.retry_after) == 1
        await asyncio.sleep(1.05)
        await app.bot.send_message(BOB, "2")
    finally:
        await app.shutdown()


def test_rate_policy_group_minute_window() -> None:
    with FakeTelegram(rate_policy=RatePolicy.telegram()) as fake:
        fake.add_user(ALICE, "Alice")
        fake.add_group(GROUP, "g", admins=[ALICE])
        meter = fake._rates
        assert meter is not None
        now = 1000.0
        for i in range(20):
            assert meter.retry_after(GROUP, True, now + i * 1.5) is None
            meter.note(GROUP, True, now + i * 1.5)
        assert meter.retry_after(GROUP, True, now + 30.0) == 30  # the first send leaves the minute at 1060
        assert meter.retry_after(GROUP, True, now + 60.0) is None


async def test_buttons_callbacks_edits_and_chat_actions(fake: FakeTelegram) -> None:
    app = build(fake)

    async def digest(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        await context.bot.send_chat_action(update.effective_chat.id, ChatAction.TYPING)
        keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("👍", callback_data="ps:up:2505.17639")]])
        await update.effective_message.reply_text("Paper", reply_markup=keyboard)

    async def pressed(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        await query.answer("Noted")
        # Editing the text without a markup would drop the keyboard (as Telegram does): keep it, then remove it.
        text = f"Paper ({query.data} by {query.from_user.first_name})"
        await query.edit_message_text(text, reply_markup=query.message.reply_markup)
        await query.edit_message_reply_markup(None)

    app.add_handler(CommandHandler("mydigest", digest))
    app.add_handler(CallbackQueryHandler(pressed))
    async with running(app):
        fake.inject_message(ALICE, ALICE, "/mydigest")
        [sent] = await fake.wait_for_sent(ALICE)
        assert sent.callback_data == ["ps:up:2505.17639"]
        query_id = fake.press_button(ALICE, sent.message_id, ALICE, "ps:up:2505.17639")
        await fake.wait_until(lambda: fake.sent(ALICE)[0].edits == 2, what="two edits")
    [edited] = fake.sent(ALICE)
    assert edited.text == "Paper (ps:up:2505.17639 by Alice)" and edited.reply_markup is None
    assert fake.callback_answered(query_id)
    assert fake.callback_answers == [{"callback_query_id": query_id, "text": "Noted", "show_alert": False}]
    assert fake.chat_actions(ALICE) == ["typing"]
    with pytest.raises(ValueError, match="no button"):
        fake.press_button(ALICE, sent.message_id, ALICE, "ps:down:1")


async def test_edit_errors(fake: FakeTelegram) -> None:
    fake.inject_message(ALICE, ALICE, "/start")
    app = build(fake)
    await app.initialize()
    try:
        message = await app.bot.send_message(ALICE, "same")
        with pytest.raises(BadRequest, match=r"(?i)message is not modified"):
            await app.bot.edit_message_text("same", ALICE, message.message_id)
        with pytest.raises(BadRequest, match=r"(?i)message to edit not found"):
            await app.bot.edit_message_text("new", ALICE, 999)
        with pytest.raises(BadRequest, match=r"(?i)message can't be edited"):
            await app.bot.edit_message_text("new", ALICE, 1)  # Alice's own /start
        with pytest.raises(BadRequest, match=r"(?i)query is too old"):
            await app.bot.answer_callback_query("12345")
    finally:
        await app.shutdown()


async def test_documents_upload_multipart_and_download_with_get_file(fake: FakeTelegram) -> None:
    profile = b'name = "Foundations"\ninterests = ["sparse attention"]\n'
    app = build(fake)
    received: list[bytes] = []

    async def on_document(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        file = await update.effective_message.document.get_file()
        received.append(bytes(await file.download_as_bytearray()))
        await update.effective_message.reply_document(
            b'{"papers": []}', filename="export.json", caption="Your <b>export</b>", parse_mode=ParseMode.HTML
        )

    app.add_handler(MessageHandler(filters.Document.ALL, on_document))
    async with running(app):
        fake.inject_document(GROUP, ALICE, "profile.toml", profile, mime_type="text/plain", caption="/setup")
        [sent] = await fake.wait_for_sent(GROUP)
    assert received == [profile]
    assert sent.document is not None and sent.document.file_name == "export.json"
    assert sent.document.content == b'{"papers": []}'
    assert sent.text == "Your export" and sent.entity_texts("bold") == ["export"]
    upload = fake.calls("sendDocument")[0]
    assert upload.params["document"] == ("export.json", 14)


async def test_members_admins_commands_and_channels(fake: FakeTelegram) -> None:
    app = build(fake)
    await app.initialize()
    bot = app.bot
    try:
        assert isinstance(await bot.get_chat_member(GROUP, ALICE), ChatMemberOwner)
        assert isinstance(await bot.get_chat_member(GROUP, BOB), ChatMemberMember)
        assert (await bot.get_chat_member(CHANNEL, BOB)).status == "left"
        admins = await bot.get_chat_administrators(CHANNEL)
        assert {a.user.id for a in admins} == {ALICE, bot.id}
        assert all(isinstance(a, ChatMemberAdministrator) for a in admins if a.user.id != ALICE)
        fake.set_member_status(GROUP, BOB, "administrator")
        assert isinstance(await bot.get_chat_member(GROUP, BOB), ChatMemberAdministrator)

        await bot.set_my_commands([BotCommand("ask", "Ask about stored papers"), BotCommand("setup", "Set up")])
        assert [c["command"] for c in fake.commands()] == ["ask", "setup"]
        assert [c.command for c in await bot.get_my_commands()] == ["ask", "setup"]
        with pytest.raises(BadRequest, match=r"(?i)bot_command_invalid"):
            await bot.set_my_commands([BotCommand("Bad-Name", "x")])

        post = await bot.send_message("@papers_daily", "Digest")
        assert post.chat.id == CHANNEL and post.sender_chat.id == CHANNEL
        fake.add_channel(-100777, "Not admin", bot_admin=False)
        with pytest.raises(BadRequest, match=r"(?i)need administrator rights"):
            await bot.send_message(-100777, "Digest")
        fake.inject_channel_post(CHANNEL, "/setup cs.LG")
        [update] = await bot.get_updates(timeout=0)
        assert update.channel_post.text == "/setup cs.LG" and update.channel_post.entities[0].type == "bot_command"
    finally:
        await app.shutdown()


async def test_wrong_token_is_refused_and_faults_map_to_ptb_errors(fake: FakeTelegram) -> None:
    with pytest.raises(InvalidToken):
        await build(fake, token="42:wrong").initialize()
    app = build(fake)
    await app.initialize()
    try:
        fake.enqueue(Fault.forbidden("bot was kicked from the group chat").on("sendMessage"))
        with pytest.raises(Forbidden, match="kicked"):
            await app.bot.send_message(GROUP, "x")
        fake.enqueue(Fault.bad_gateway())
        with pytest.raises(Exception, match="Bad Gateway"):
            await app.bot.send_message(GROUP, "x")
    finally:
        await app.shutdown()


async def test_webhook_set_posts_updates_and_getupdates_conflicts(fake: FakeTelegram, unused_tcp_port: int) -> None:
    received: list[tuple[str, dict]] = []

    async def hook(request: web.Request) -> web.Response:
        received.append((request.headers.get("X-Telegram-Bot-Api-Secret-Token", ""), await request.json()))
        return web.Response(status=500 if len(received) == 1 else 200)  # the first delivery fails and is retried

    server = web.Application()
    server.router.add_post("/hook", hook)
    runner = web.AppRunner(server)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", unused_tcp_port).start()
    app = build(fake)
    await app.initialize()
    try:
        with pytest.raises(BadRequest, match=r"(?i)https url must be provided"):
            await app.bot.set_webhook("http://example.org/hook")
        await app.bot.set_webhook(f"http://127.0.0.1:{unused_tcp_port}/hook", secret_token="s3cret")
        with pytest.raises(Conflict, match="webhook is active"):
            await app.bot.get_updates()
        fake.inject_message(ALICE, ALICE, "hello")
        # the hook records the second delivery before it answers 200, and only that answer confirms the update
        await fake.wait_until(lambda: len(received) == 2 and fake.pending_updates() == 0, what="a retried delivery")
        assert [secret for secret, _ in received] == ["s3cret", "s3cret"]
        assert received[1][1]["message"]["text"] == "hello"
        assert "500" in (await app.bot.get_webhook_info()).last_error_message
        await app.bot.delete_webhook()
        fake.inject_message(ALICE, ALICE, "polling again")
        [update] = await app.bot.get_updates(timeout=0)
        assert update.message.text == "polling again"
    finally:
        await app.shutdown()
        await runner.cleanup()
