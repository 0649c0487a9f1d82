"""The Slack fake refuses what Slack refuses, driven by the real slack_sdk clients over HTTP and a websocket."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import aiohttp
import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.socket_mode.aiohttp import SocketModeClient
from slack_sdk.socket_mode.request import SocketModeRequest
from slack_sdk.socket_mode.response import SocketModeResponse
from slack_sdk.web.async_client import AsyncWebClient

from tests.fakes.slack_server import SlackFake


@pytest.fixture
def fake() -> Iterator[SlackFake]:
    with SlackFake() as fake:
        fake.add_user("U0ADA", "ada")
        fake.add_channel("C0PAPERS", "papers", members=["U0ADA"])
        fake.add_channel("C0QUIET", "quiet", members=["U0ADA"], bot_in=False)
        yield fake


@pytest.fixture
async def client(fake: SlackFake) -> AsyncIterator[AsyncWebClient]:
    yield AsyncWebClient(token=fake.bot_token, base_url=fake.api_url)


def section(text: str) -> dict[str, object]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


async def refusal(call: object) -> SlackApiError:
    with pytest.raises(SlackApiError) as raised:
        await call  # type: ignore[misc]
    return raised.value


async def test_a_message_within_the_limits_is_posted_and_read_as_slack_reads_it(
    fake: SlackFake, client: AsyncWebClient
) -> None:
    button = {"type": "button", "text": {"type": "plain_text", "text": "👍"}, "action_id": "ps:up:1", "value": "x"}
    blocks = [section("a"), {"type": "actions", "elements": [button]}] + [section("b")] * 48
    sent = await client.chat_postMessage(channel="C0PAPERS", text="fallback <!here>", blocks=blocks)
    assert sent["ok"] and sent["channel"] == "C0PAPERS"
    [message] = fake.posted("C0PAPERS")
    assert len(message.blocks) == 50 and message.buttons[0]["action_id"] == "ps:up:1"
    assert message.pings == ["!here"], "an unescaped <!here> in the fallback text pings the channel"
    escaped = await client.chat_postMessage(channel="C0PAPERS", text="&lt;!channel&gt; &lt;@U0ADA&gt;")
    assert escaped["ok"] and fake.posted("C0PAPERS")[-1].pings == []
    bare = {"type": "section", "text": {"type": "mrkdwn", "text": "hello @channel"}}
    await client.chat_postMessage(channel="C0PAPERS", text="t", blocks=[bare])
    assert fake.posted("C0PAPERS")[-1].pings == ["!channel"], "Slack parses a bare @channel unless verbatim"
    verbatim = {"type": "section", "text": {"type": "mrkdwn", "text": "hello @channel", "verbatim": True}}
    await client.chat_postMessage(channel="C0PAPERS", text="t", blocks=[verbatim])
    assert fake.posted("C0PAPERS")[-1].pings == []


@pytest.mark.parametrize(
    ("blocks", "pointer"),
    [
        ([section("x")] * 51, "/blocks"),
        ([section("x" * 3001)], "/blocks/0/text/text"),
        ([{"type": "banner", "text": "x"}], "/blocks/0"),
        ([{"type": "actions", "elements": [{"type": "button", "text": {"type": "plain_text", "text": "b"},
                                            "action_id": "a" * 256}]}], "/blocks/0/elements/0/action_id"),
        ([{"type": "actions", "elements": [{"type": "button", "text": {"type": "plain_text", "text": "b"},
                                            "value": "v" * 2001}]}], "/blocks/0/elements/0/value"),
        ([{"type": "header", "text": {"type": "mrkdwn", "text": "h"}}], "/blocks/0/text"),
    ],
)  # fmt: skip
async def test_invalid_blocks_are_refused_with_a_pointer(
    fake: SlackFake, client: AsyncWebClient, blocks: list[dict[str, object]], pointer: str
) -> None:
    error = await refusal(client.chat_postMessage(channel="C0PAPERS", text="t", blocks=blocks))
    assert error.response["error"] == "invalid_blocks"
    assert any(f"[json-pointer:{pointer}]" in e for e in error.response["errors"])
    assert fake.posted("C0PAPERS") == []


async def test_other_refusals(fake: SlackFake, client: AsyncWebClient) -> None:
    async def error_of(**kwargs: object) -> str:
        return str((await refusal(client.chat_postMessage(**kwargs))).response["error"])  # type: ignore[arg-type]

    assert await error_of(channel="C0PAPERS", text="x" * 40_001) == "msg_too_long"
    assert await error_of(channel="C0PAPERS", text="t", blocks=[section("y" * 2900)] * 5) == "msg_blocks_too_long"
    with pytest.warns(UserWarning, match="text"):  # slack_sdk warns before it sends a message without text
        assert await error_of(channel="C0PAPERS", text="") == "no_text"
    assert await error_of(channel="C0QUIET", text="hi") == "not_in_channel"
    assert await error_of(channel="C0NOWHERE", text="hi") == "channel_not_found"
    fake.archive("C0PAPERS")
    assert await error_of(channel="C0PAPERS", text="hi") == "is_archived"
    wrong = AsyncWebClient(token="xoxb-wrong", base_url=fake.api_url)
    assert (await refusal(wrong.auth_test())).response["error"] == "invalid_auth"
    app_token = AsyncWebClient(token=fake.app_token, base_url=fake.api_url)
    assert (await refusal(app_token.auth_test())).response["error"] == "not_allowed_token_type"
    async with aiohttp.ClientSession() as session:
        headers = {"Authorization": f"Bearer {fake.bot_token}", "Content-Type": "application/json"}
        async with session.post(fake.api_url + "chat.postMessage", data=b"{not json", headers=headers) as answer:
            assert (await answer.json())["error"] == "invalid_json"
        async with session.post(fake.api_url + "chat.nothing", headers=headers) as answer:
            assert answer.status == 404 and (await answer.json())["error"] == "unknown_method"
    fake.deactivate("U0ADA")
    assert (await refusal(client.conversations_open(users="U0ADA"))).response["error"] == "user_disabled"


async def test_conversations_info_tells_whose_dm_a_channel_is(fake: SlackFake, client: AsyncWebClient) -> None:
    """An im's `user` is its member, also once they are deactivated (`is_user_deleted`); a channel has no `user`."""
    dm = fake.im_of("U0ADA")
    fake.deactivate("U0ADA")
    found = (await client.conversations_info(channel=dm))["channel"]
    assert found["is_im"] and found["user"] == "U0ADA" and found["is_user_deleted"]
    assert "user" not in (await client.conversations_info(channel="C0PAPERS"))["channel"]
    assert (await refusal(client.conversations_info(channel="D0NOWHERE"))).response["error"] == "channel_not_found"


async def test_rate_limit_is_a_429_with_retry_after(fake: SlackFake, client: AsyncWebClient) -> None:
    fake.rate_per_channel_seconds = 30.0
    assert (await client.chat_postMessage(channel="C0PAPERS", text="one"))["ok"]
    error = await refusal(client.chat_postMessage(channel="C0PAPERS", text="two"))
    assert error.response.status_code == 429 and error.response["error"] == "ratelimited"
    assert 25 <= int(error.response.headers["Retry-After"]) <= 30
    fake.add_channel("C0OTHER", "other")
    assert (await client.chat_postMessage(channel="C0OTHER", text="another channel is not held up"))["ok"]
    assert [m.text for m in fake.posted("C0PAPERS")] == ["one"]


async def test_scripted_server_error_and_malformed_body(fake: SlackFake, client: AsyncWebClient) -> None:
    from tests.fakes.slack_server import Fault

    fake.enqueue(Fault.server_error(503, method="chat.postMessage"), Fault.malformed(method="chat.postMessage"))
    assert (await refusal(client.chat_postMessage(channel="C0PAPERS", text="x"))).response.status_code == 503
    with pytest.raises(SlackApiError):
        await client.chat_postMessage(channel="C0PAPERS", text="x")
    assert (await client.chat_postMessage(channel="C0PAPERS", text="x"))["ok"]


async def test_socket_mode_hello_envelopes_acks_and_response_url(fake: SlackFake, client: AsyncWebClient) -> None:
    socket = SocketModeClient(app_token=fake.app_token, web_client=client, ping_interval=5)
    seen: list[SocketModeRequest] = []

    async def listener(sm: SocketModeClient, request: SocketModeRequest) -> None:
        seen.append(request)
        await sm.send_socket_mode_response(SocketModeResponse(envelope_id=request.envelope_id))

    socket.socket_mode_request_listeners.append(listener)  # type: ignore[arg-type]
    await socket.connect()
    try:
        envelope_id = fake.slash_command("U0ADA", "C0PAPERS", "/paperscout", "help")
        envelope = await fake.wait_for_ack(envelope_id)
        assert envelope.acked_in_time and seen[0].type == "slash_commands"
        url = seen[0].payload["response_url"]
        async with aiohttp.ClientSession() as session:
            for n in range(6):
                async with session.post(url, json={"text": f"reply {n}"}) as answer:
                    assert answer.status == (200 if n < 5 else 404)
        assert [m.text for m in fake.posted("C0PAPERS", user="U0ADA")] == [f"reply {n}" for n in range(5)]
        fake.request_refresh()
        await fake.wait_until(lambda: fake.connections == 2, what="a new connection after the refresh")
        await asyncio.sleep(0)
    finally:
        await socket.close()
