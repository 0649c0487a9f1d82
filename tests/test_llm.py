"""LLMClient through the real openai client against the OpenAI-compatible fake over HTTP on 127.0.0.1."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

import openai
import pytest

from bot.config import Settings
from bot.errors import ConfigError, SourceUnavailable
from bot.llm import (
    PLACEHOLDER_API_KEY,
    Budget,
    LLMClient,
    LLMRequestRejected,
    count_tokens_estimate,
    estimate_message_tokens,
)
from tests.fakes.openai_server import TEST_API_KEY, FakeOpenAI, Fault

MESSAGES = [
    {"role": "system", "content": "You score arXiv papers for a reader."},
    {"role": "user", "content": "Paper: Sparse attention for long contexts. Score it from 0 to 10."},
]
SCHEMA = {
    "type": "object",
    "properties": {"score": {"type": "integer"}},
    "required": ["score"],
    "additionalProperties": False,
}


def make_settings(fake: FakeOpenAI, tmp_path: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "home": tmp_path,
        "llm_base_url": fake.base_url,
        "llm_api_key": TEST_API_KEY,
        "llm_model": "test-model",
        "llm_timeout_seconds": 5.0,
        "llm_max_retries": 2,
        "llm_price_prompt_per_mtok": 2.0,
        "llm_price_completion_per_mtok": 8.0,
    }
    values.update(overrides)
    return Settings(**values)


def score_responder(request: dict[str, Any]) -> str:
    prompt = request["messages"][-1]["content"]
    return json.dumps({"score": 9 if "attention" in prompt else 1})


class ListSink:
    def __init__(self) -> None:
        self.records: list[tuple[str, str, int, int, float]] = []

    async def record(
        self, purpose: str, model: str, prompt_tokens: int, completion_tokens: int, cost_usd: float
    ) -> None:
        self.records.append((purpose, model, prompt_tokens, completion_tokens, cost_usd))


async def test_good_answer_has_usage_and_cost(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.responder = score_responder
    async with LLMClient(make_settings(fake_openai, tmp_path)) as client:
        result = await client.chat(MESSAGES, max_tokens=50, purpose="score")

    assert json.loads(result.text) == {"score": 9}
    assert result.prompt_tokens == estimate_message_tokens(MESSAGES)
    assert result.completion_tokens == count_tokens_estimate(result.text)
    expected_cost = (result.prompt_tokens * 2.0 + result.completion_tokens * 8.0) / 1e6
    assert result.cost_usd == pytest.approx(expected_cost)
    assert result.model == "test-model"
    assert result.finish_reason == "stop" and not result.truncated
    assert not result.usage_estimated and not result.structured

    (request,) = fake_openai.chat_requests()
    assert request.path == "/v1/chat/completions"
    assert request.body is not None
    assert request.body["model"] == "test-model"
    assert request.body["messages"] == MESSAGES
    assert request.body["max_tokens"] == 50
    assert "response_format" not in request.body
    assert request.authorized and "authorization" not in request.headers


async def test_rate_limit_waits_for_retry_after_then_succeeds(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    # Longer than the client's own first backoff (at most 0.5 s), so honouring the header is visible.
    fake_openai.enqueue(Fault.rate_limit(retry_after=0.8))
    async with LLMClient(make_settings(fake_openai, tmp_path)) as client:
        result = await client.chat(MESSAGES, purpose="score")

    assert result.text
    first, second = fake_openai.chat_requests()
    assert 0.75 <= second.at - first.at < 1.6
    assert second.headers["x-stainless-retry-count"] == "1"


async def test_server_error_then_success(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.enqueue(Fault.server_error(500))
    async with LLMClient(make_settings(fake_openai, tmp_path)) as client:
        result = await client.chat(MESSAGES, purpose="score")

    assert result.finish_reason == "stop"
    assert len(fake_openai.chat_requests()) == 2


async def test_persistent_503_raises_source_unavailable(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.always(Fault.unavailable(retry_after=0.05))
    async with LLMClient(make_settings(fake_openai, tmp_path, llm_max_retries=2)) as client:
        with pytest.raises(SourceUnavailable) as info:
            await client.chat(MESSAGES, purpose="score")

    assert not isinstance(info.value, LLMRequestRejected)
    message = str(info.value)
    assert "503" in message and "after 2 retries" in message and "\n" not in message
    assert len(fake_openai.chat_requests()) == 3


async def test_persistent_429_raises_source_unavailable(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.always(Fault.rate_limit(retry_after=0.05))
    async with LLMClient(make_settings(fake_openai, tmp_path, llm_max_retries=1)) as client:
        with pytest.raises(SourceUnavailable, match="429"):
            await client.chat(MESSAGES, purpose="score")
    assert len(fake_openai.chat_requests()) == 2


async def test_timeout_raises_source_unavailable(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.enqueue(Fault.delay(5), Fault.delay(5))
    settings = make_settings(fake_openai, tmp_path, llm_timeout_seconds=0.5, llm_max_retries=1)
    started = time.monotonic()
    async with LLMClient(settings) as client:
        with pytest.raises(SourceUnavailable, match="timed out"):
            await client.chat(MESSAGES, purpose="score")

    assert time.monotonic() - started < 3.5
    assert len(fake_openai.chat_requests()) == 2


async def test_unreachable_endpoint_raises_source_unavailable(tmp_path: Path) -> None:
    with FakeOpenAI() as fake:
        settings = make_settings(fake, tmp_path, llm_max_retries=0)
    async with LLMClient(settings) as client:  # the port is closed now
        with pytest.raises(SourceUnavailable, match="could not be reached"):
            await client.chat(MESSAGES, purpose="score")


async def test_dropped_connection_is_retried(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.enqueue(Fault.disconnect())
    async with LLMClient(make_settings(fake_openai, tmp_path)) as client:
        result = await client.chat(MESSAGES, purpose="score")
    assert result.text and len(fake_openai.chat_requests()) == 2


async def test_malformed_body_raises_source_unavailable(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.enqueue(Fault.malformed())
    async with LLMClient(make_settings(fake_openai, tmp_path)) as client:
        with pytest.raises(SourceUnavailable, match="unreadable response"):
            await client.chat(MESSAGES, purpose="score")


async def test_json_schema_is_requested_when_supported(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.responder = score_responder
    async with LLMClient(make_settings(fake_openai, tmp_path)) as client:
        result = await client.chat(MESSAGES, json_schema=SCHEMA, purpose="score batch")

    assert result.structured and client.json_schema_supported is True
    (request,) = fake_openai.chat_requests()
    assert request.body is not None
    assert request.body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "score_batch", "schema": SCHEMA, "strict": True},
    }


async def test_rejected_json_schema_falls_back_and_is_remembered(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="bot.llm")
    with FakeOpenAI(score_responder, api_key=TEST_API_KEY, supports_json_schema=False) as fake:
        async with LLMClient(make_settings(fake, tmp_path)) as client:
            first = await client.chat(MESSAGES, json_schema=SCHEMA, purpose="score")
            second = await client.chat(MESSAGES, json_schema=SCHEMA, purpose="score")

        bodies = [r.body or {} for r in fake.chat_requests()]

    assert json.loads(first.text) == {"score": 9} and json.loads(second.text) == {"score": 9}
    assert not first.structured and not second.structured
    assert client.json_schema_supported is False
    # Schema, then plain for the fallback, then plain straight away.
    assert ["response_format" in b for b in bodies] == [True, False, False]
    assert any("JSON-schema" in r.getMessage() for r in caplog.records)


async def test_one_shot_json_schema_rejection_fault(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.enqueue(Fault.reject_json_schema())
    async with LLMClient(make_settings(fake_openai, tmp_path)) as client:
        result = await client.chat(MESSAGES, json_schema=SCHEMA, purpose="score")
    assert not result.structured and client.json_schema_supported is False
    assert len(fake_openai.chat_requests()) == 2


async def test_other_bad_request_does_not_disable_json_schema(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.enqueue(Fault.status_code(400), Fault.status_code(400))
    async with LLMClient(make_settings(fake_openai, tmp_path)) as client:
        with pytest.raises(LLMRequestRejected) as info:
            await client.chat(MESSAGES, json_schema=SCHEMA, purpose="score")
        assert info.value.status_code == 400
        assert client.json_schema_supported is None

        result = await client.chat(MESSAGES, json_schema=SCHEMA, purpose="score")
    assert result.structured and client.json_schema_supported is True


async def test_missing_usage_is_estimated(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.enqueue(Fault.no_usage())
    async with LLMClient(make_settings(fake_openai, tmp_path)) as client:
        estimated = await client.chat(MESSAGES, purpose="summary")
        reported = await client.chat(MESSAGES, purpose="summary")

    assert estimated.usage_estimated and not reported.usage_estimated
    # Same counting rule on both sides, so the estimate equals what the server reports.
    assert estimated.prompt_tokens == reported.prompt_tokens
    assert estimated.completion_tokens == reported.completion_tokens
    assert estimated.cost_usd == pytest.approx(reported.cost_usd) and estimated.cost_usd > 0


async def test_length_finish_reason_is_surfaced(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.responder = lambda _request: "word " * 200
    async with LLMClient(make_settings(fake_openai, tmp_path)) as client:
        capped = await client.chat(MESSAGES, max_tokens=10, purpose="summary")
        fake_openai.enqueue(Fault.truncated())
        cut = await client.chat(MESSAGES, purpose="summary")

    assert capped.finish_reason == "length" and capped.truncated
    assert capped.completion_tokens == 10 and len(capped.text) == 40
    assert cut.truncated and len(cut.text) == 500


async def test_sink_receives_usage(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    sink = ListSink()
    async with LLMClient(make_settings(fake_openai, tmp_path), sink=sink) as client:
        result = await client.chat(MESSAGES, purpose="score")
        fake_openai.always(Fault.server_error(500, retry_after=0.01))
        with pytest.raises(SourceUnavailable):
            await client.chat(MESSAGES, purpose="score")

    # Only the successful call is recorded.
    assert sink.records == [
        ("score", "test-model", result.prompt_tokens, result.completion_tokens, pytest.approx(result.cost_usd))
    ]


async def test_failing_sink_does_not_lose_the_answer(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    class BrokenSink:
        async def record(self, *args: object) -> None:
            raise RuntimeError("database is locked")

    async with LLMClient(make_settings(fake_openai, tmp_path), sink=BrokenSink()) as client:  # type: ignore[arg-type]
        result = await client.chat(MESSAGES, purpose="score")
    assert result.text


async def test_api_key_never_in_errors_or_logs(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    secret = "sk-live-DO-NOT-LEAK-4f9a8b7c6d5e"

    def leaky_responder(request: dict[str, Any]) -> str:
        raise RuntimeError(f"upstream said {secret} is bad")  # a 500 whose message echoes the key

    errors: list[SourceUnavailable] = []
    # The fake expects another key and echoes the presented one in its 401 message.
    with FakeOpenAI(leaky_responder, api_key=TEST_API_KEY) as fake:
        async with LLMClient(make_settings(fake, tmp_path, llm_api_key=secret)) as client:
            with pytest.raises(LLMRequestRejected) as rejected:
                await client.chat(MESSAGES, purpose="score")
            errors.append(rejected.value)
        assert rejected.value.status_code == 401

        fake.api_key = secret
        async with LLMClient(make_settings(fake, tmp_path, llm_api_key=secret, llm_max_retries=1)) as client:
            with pytest.raises(SourceUnavailable) as failed:
                await client.chat(MESSAGES, purpose="score")
            errors.append(failed.value)
        assert "***" in str(failed.value)

        assert all(not r.has_authorization or "authorization" not in r.headers for r in fake.requests)

    for error in errors:
        assert secret not in str(error) and secret not in repr(error)
        assert error.__cause__ is None and error.__suppress_context__
    logged = [f"{r.getMessage()} {r.exc_text or ''}" for r in caplog.records]
    assert logged and not [line for line in logged if secret in line]


async def test_placeholder_key_when_only_base_url_is_set(tmp_path: Path) -> None:
    with FakeOpenAI(api_key=PLACEHOLDER_API_KEY) as fake:
        async with LLMClient(make_settings(fake, tmp_path, llm_api_key=None)) as client:
            await client.chat(MESSAGES, purpose="score")
        (request,) = fake.chat_requests()
    assert request.has_authorization and request.authorized


def test_client_needs_an_endpoint(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        LLMClient(Settings(home=tmp_path, llm_base_url=None, llm_api_key=None))


def test_estimates_and_cost(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    assert [count_tokens_estimate(t) for t in ("", "a", "abcd", "abcde")] == [0, 1, 1, 2]
    parts = [{"role": "user", "content": [{"type": "text", "text": "abcdefgh"}]}]
    assert estimate_message_tokens(parts) == 2
    client = LLMClient(make_settings(fake_openai, tmp_path))
    assert client.cost_usd(1_000_000, 1_000_000) == pytest.approx(10.0)
    prompt = estimate_message_tokens(MESSAGES)
    assert client.estimate_cost(MESSAGES, max_tokens=100) == pytest.approx((prompt * 2.0 + 100 * 8.0) / 1e6)


def test_budget(tmp_path: Path) -> None:
    budget = Budget(spent_usd=0.75, cap_usd=1.0)
    assert budget.allows(0.25) and not budget.allows(0.2500001)
    assert budget.remaining_usd == pytest.approx(0.25)
    assert Budget(spent_usd=1.5, cap_usd=1.0).remaining_usd == 0.0
    assert Budget(spent_usd=0.0, cap_usd=0.0).allows(0.0)  # a free local model fits a zero budget
    assert Budget.from_settings(Settings(home=tmp_path, llm_daily_budget_usd=2.0), 0.5).remaining_usd == 1.5
    assert Budget(spent_usd=0.1 + 0.2, cap_usd=0.3).allows(0.0)


async def test_fake_serves_embeddings_and_models(fake_openai: FakeOpenAI) -> None:
    async with openai.AsyncOpenAI(api_key=TEST_API_KEY, base_url=fake_openai.base_url, max_retries=0) as raw:
        floats = await raw.embeddings.create(model="emb", input=["sparse attention", "attention sparse"])
        packed = await raw.embeddings.create(model="emb", input="sparse attention", encoding_format="base64")
        models = [m.id async for m in raw.models.list()]

    first, second = (d.embedding for d in floats.data)
    assert len(first) == 16 and first == pytest.approx(second)
    assert sum(v * v for v in first) == pytest.approx(1.0)
    assert floats.usage.prompt_tokens == 2 * count_tokens_estimate("sparse attention")
    assert isinstance(packed.data[0].embedding, str)  # base64 float32, decoded by the caller
    assert models == ["fake-model"]
