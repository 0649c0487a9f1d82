"""LLMClient through the real openai client against the OpenAI-compatible fake over HTTP on 127.0.0.1."""

from __future__ import annotations

import itertools
import json
import logging
import time
from pathlib import Path
from typing import Any

import openai
import pytest

from bot.config import Settings
from bot.errors import ConfigError, SourceUnavailable
from bot.llm.client import (
    OPENAI_BASE_URL,
    PLACEHOLDER_API_KEY,
    Budget,
    LLMClient,
    LLMQuotaExhausted,
    LLMRequestRejected,
    count_tokens_estimate,
    estimate_message_tokens,
)
from tests.fakes.openai_server import TEST_API_KEY, FakeOpenAI, Fault, tokenizer_shaped_count

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
    # The server's own count, not our estimate.
    assert result.prompt_tokens == tokenizer_shaped_count(MESSAGES) != estimate_message_tokens(MESSAGES)
    assert result.completion_tokens == 7
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
    caplog.set_level(logging.WARNING, logger="bot.llm.client")
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
    # Our estimate when the server says nothing, its own count when it does.
    assert estimated.prompt_tokens == estimate_message_tokens(MESSAGES)
    assert estimated.completion_tokens == count_tokens_estimate(estimated.text)
    assert reported.prompt_tokens == tokenizer_shaped_count(MESSAGES)
    assert estimated.cost_usd > 0 and reported.cost_usd > 0


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
    assert estimate_message_tokens(parts) == 2 + 4 + 3  # text, the message's framing, the reply's priming
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


# --- the endpoint as it really answers ---


async def test_reasoning_models_get_max_completion_tokens(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    async with LLMClient(make_settings(fake_openai, tmp_path, llm_model="gpt-5")) as client:
        assert client.token_limit_param == "max_tokens"  # what local servers understand
        first = await client.chat(MESSAGES, max_tokens=50, purpose="score")
        second = await client.chat(MESSAGES, max_tokens=50, purpose="score")
    assert first.text and second.text
    sent = [r.body for r in fake_openai.chat_requests()]
    # One rejected try, then max_completion_tokens for good.
    assert ["max_tokens" in b for b in sent] == [True, False, False]
    assert [b.get("max_completion_tokens") for b in sent] == [None, 50, 50]
    assert client.token_limit_param == "max_completion_tokens"


def test_openai_itself_gets_max_completion_tokens_from_the_start(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path, llm_base_url=None, llm_api_key=TEST_API_KEY, llm_model="gpt-5")
    assert LLMClient(settings).endpoint == OPENAI_BASE_URL
    assert LLMClient(settings).token_limit_param == "max_completion_tokens"


async def test_insufficient_quota_stops_the_llm_for_the_day(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.always(Fault.quota_exhausted())
    async with LLMClient(make_settings(fake_openai, tmp_path, llm_max_retries=2)) as client:
        with pytest.raises(LLMQuotaExhausted) as first:
            await client.chat(MESSAGES, purpose="score")
        with pytest.raises(LLMQuotaExhausted) as again:
            await client.chat(MESSAGES, purpose="score")
    message = str(first.value)
    assert "no quota left" in message and "insufficient_quota" in message and "rate-limit" not in message
    assert "until" in message and first.value.until == again.value.until
    assert isinstance(first.value, SourceUnavailable)  # callers that fall back to the local ranker still do
    # Not retried, and the second call never left the process.
    assert len(fake_openai.chat_requests()) == 1


async def test_rate_limit_is_still_retried(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.enqueue(Fault.rate_limit(0.3, in_ms=True), Fault.rate_limit(0.1))
    async with LLMClient(make_settings(fake_openai, tmp_path, llm_max_retries=2)) as client:
        result = await client.chat(MESSAGES, purpose="score")
    assert result.text
    times = [r.at for r in fake_openai.chat_requests()]
    assert len(times) == 3 and times[1] - times[0] >= 0.28 and times[2] - times[1] >= 0.09


async def test_refusal_is_flagged(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.enqueue(Fault.refusal("I can't help with that."))
    async with LLMClient(make_settings(fake_openai, tmp_path)) as client:
        refused = await client.chat(MESSAGES, purpose="answer")
        answered = await client.chat(MESSAGES, purpose="answer")
    assert refused.refused and refused.refusal == "I can't help with that." and refused.text == ""
    assert not answered.refused and answered.refusal is None


async def test_unknown_model_is_rejected_with_the_servers_reason(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.models = {"gpt-4o-mini"}
    async with LLMClient(make_settings(fake_openai, tmp_path, llm_model="gpt-4o-mni")) as client:
        with pytest.raises(LLMRequestRejected, match="`gpt-4o-mni` does not exist") as caught:
            await client.chat(MESSAGES, purpose="score")
    assert caught.value.status_code == 404 and caught.value.code == "model_not_found"
    assert len(fake_openai.chat_requests()) == 1


async def test_context_length_exceeded_is_a_rejection(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.context_window = 60
    async with LLMClient(make_settings(fake_openai, tmp_path)) as client:
        with pytest.raises(LLMRequestRejected, match="maximum context length is 60 tokens") as caught:
            await client.chat(MESSAGES, max_tokens=50, purpose="score")
    assert caught.value.status_code == 400 and caught.value.code == "context_length_exceeded"


async def test_dated_model_name_is_what_is_recorded(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    sink = ListSink()
    async with LLMClient(make_settings(fake_openai, tmp_path, llm_model="gpt-4o-mini"), sink=sink) as client:
        result = await client.chat(MESSAGES, purpose="score")
    assert result.model == "gpt-4o-mini-2024-07-18"
    assert fake_openai.chat_requests()[0].body["model"] == "gpt-4o-mini"
    assert sink.records[0][1] == "gpt-4o-mini-2024-07-18"


def _real_abstracts(count: int) -> list[str]:
    path = next(iter(sorted(Path("/work/shared/data/arxiv").glob("*.jsonl"))))
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["abstract"] for line in itertools.islice(lines, count)]


@pytest.mark.parametrize("turns", [1, 3, 6])
def test_prompt_estimate_is_not_below_what_the_server_counts(turns: int) -> None:
    # The shapes the bot sends: a system prompt, then paper text and short questions and answers.
    abstracts = _real_abstracts(turns)
    messages: list[dict[str, str]] = [{"role": "system", "content": "You score arXiv papers for a reader."}]
    for abstract in abstracts:
        messages += [
            {"role": "user", "content": f"Paper: {abstract[:300]}"},
            {"role": "assistant", "content": '{"score": 7}'},
        ]
    messages.append({"role": "user", "content": "Why?"})
    reported = tokenizer_shaped_count(messages)
    estimate = estimate_message_tokens(messages)
    # Within 10% below or 25% above what the endpoint will bill: the pre-check neither overspends nor starves.
    assert 0.9 * reported <= estimate <= 1.25 * reported, (estimate, reported)
