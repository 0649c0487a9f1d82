"""The one way paperscout talks to an LLM: any OpenAI-compatible chat endpoint (OpenAI, Ollama, vLLM, llama.cpp).

`LLMClient.chat` sends messages, optionally asks for JSON that follows a schema, counts tokens and cost,
reports usage to a `UsageSink` and turns every failure into a `SourceUnavailable` whose message is one line
and never contains the API key. Retries of 429 (honouring ``retry-after``), 5xx, timeouts and dropped
connections are left to the openai client, configured with ``llm_max_retries``; a 429 ``insufficient_quota``
(no credit left) is not retried and switches the LLM off until the next UTC day. The completion limit is sent as
``max_tokens`` (what local servers understand) or ``max_completion_tokens`` (what OpenAI wants, and all that its
reasoning models accept), switching once for good when the endpoint rejects the one it got. A refusal is flagged.

`Budget` decides whether another call fits under the daily cap; where the spend is stored is not its concern.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from bot.config import Settings
from bot.errors import ConfigError, SourceUnavailable
from bot.ops.logs import public_url

if TYPE_CHECKING:  # imported where a client is built or its errors read: 0.5 s a start-up without an LLM saves
    import openai

log = logging.getLogger(__name__)

OPENAI_BASE_URL = "https://api.openai.com/v1"
# Local servers (Ollama, llama.cpp, vLLM without --api-key) ignore the key, but the openai client insists on one.
PLACEHOLDER_API_KEY = "not-needed"
CHARS_PER_TOKEN = 4
# OpenAI's chat format wraps each message in start/role/end tokens and primes the reply with three more; local
# chat templates add about as much. Leaving them out made the budget pre-check ~20% low on our short prompts.
TOKENS_PER_MESSAGE = 4
TOKENS_PER_REPLY = 3
_TOKEN_LIMIT_PARAMS = ("max_tokens", "max_completion_tokens")
_MAX_SERVER_MESSAGE = 200
_SCHEMA_NAME_BAD_CHARS = re.compile(r"[^A-Za-z0-9_-]+")

Messages = Sequence[Mapping[str, Any]]


class LLMQuotaExhausted(SourceUnavailable):
    """The account behind the endpoint has no quota left (429 ``insufficient_quota``): no LLM calls until tomorrow."""

    def __init__(self, message: str, *, until: dt.date) -> None:
        super().__init__(message)
        self.until = until  # the first UTC day on which calls are tried again


class LLMRequestRejected(SourceUnavailable):
    """The endpoint refused the request itself (bad key, unknown model, prompt too long): retrying will not help.

    A `SourceUnavailable`, so callers that only fall back to the local ranker need not tell the two apart.
    """

    def __init__(self, message: str, *, status_code: int, code: str | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.code = code


@dataclass(frozen=True)
class ChatResult:
    """One chat completion: the text and what it cost."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    model: str
    finish_reason: str | None
    usage_estimated: bool = False
    structured: bool = False  # True when the server enforced the requested JSON schema
    refusal: str | None = None  # the model declined (OpenAI's ``message.refusal``); `text` is then empty

    @property
    def refused(self) -> bool:
        """True when the model refused to answer, so the empty text is not an answer."""
        return self.refusal is not None

    @property
    def truncated(self) -> bool:
        """True when the model stopped at the token limit, so the text (or JSON) is probably cut short."""
        return self.finish_reason == "length"

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens


class UsageSink(Protocol):
    """Where the spend of each successful call is recorded (the database, in the running bot)."""

    async def record(
        self, purpose: str, model: str, prompt_tokens: int, completion_tokens: int, cost_usd: float
    ) -> None:
        """Store one call's usage."""
        ...


@dataclass(frozen=True)
class Budget:
    """Today's LLM spend against the daily cap. Pure: the caller supplies what was spent so far."""

    spent_usd: float
    cap_usd: float

    @classmethod
    def from_settings(cls, settings: Settings, spent_usd: float) -> Budget:
        """A budget with the configured daily cap."""
        return cls(spent_usd=spent_usd, cap_usd=settings.llm_daily_budget_usd)

    @property
    def remaining_usd(self) -> float:
        """Dollars left today (never negative)."""
        return max(0.0, self.cap_usd - self.spent_usd)

    def allows(self, estimated_cost_usd: float) -> bool:
        """True when a call estimated to cost `estimated_cost_usd` keeps today's spend within the cap."""
        # Tolerance so that summing many float costs never refuses a call that exactly fits.
        return self.spent_usd + max(0.0, estimated_cost_usd) <= self.cap_usd + 1e-9


def count_tokens_estimate(text: str) -> int:
    """Estimate the tokens in `text` as one per 4 characters, rounded up (0 for empty text)."""
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        # Multi-part content: only the text parts count.
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, Mapping))
    return ""


def estimate_message_tokens(messages: Messages) -> int:
    """Estimate the prompt tokens of chat `messages`: each message's text, its framing, and the reply's priming."""
    if not messages:
        return 0
    text = sum(count_tokens_estimate(_content_text(m.get("content"))) for m in messages)
    return text + TOKENS_PER_MESSAGE * len(messages) + TOKENS_PER_REPLY


def _schema_name(purpose: str) -> str:
    name = _SCHEMA_NAME_BAD_CHARS.sub("_", purpose).strip("_")[:64]
    return name or "response"


@dataclass(frozen=True, slots=True)
class Endpoint:
    """`PAPERSCOUT_LLM_BASE_URL` split the way the openai client takes it.

    The client appends paths such as ``/chat/completions`` to its base URL as text, so a query left in the URL
    would end up before the path (``/v1?api-version=1chat/completions``): the query goes into every request as
    parameters instead. A ``user:password@`` stays in the URL: httpx sends it as Basic authentication, for a proxy
    in front of a server without API keys.
    """

    url: str
    query: dict[str, str]
    has_user_info: bool


def split_endpoint(base_url: str) -> Endpoint:
    """The endpoint without its query and fragment, the query as parameters, and whether it names a user."""
    parts = urlsplit(base_url.strip())
    return Endpoint(
        url=urlunsplit((parts.scheme, parts.netloc, parts.path, "", "")),
        query=dict(parse_qsl(parts.query, keep_blank_values=True)),
        has_user_info="@" in parts.netloc,
    )


def credentials_problem(settings: Settings) -> str:
    """Why the endpoint's credentials cannot be sent ("" when they can): a user in the URL and an API key both."""
    key = settings.llm_api_key.get_secret_value() if settings.llm_api_key is not None else ""
    if key and settings.llm_base_url and split_endpoint(settings.llm_base_url).has_user_info:
        return (
            "PAPERSCOUT_LLM_BASE_URL carries a user name and password and PAPERSCOUT_LLM_API_KEY is set too: "
            "both would go in the one Authorization header; keep the URL's for a proxy with Basic "
            "authentication, the key for an API"
        )
    return ""


class LLMClient:
    """Chat completions against the configured OpenAI-compatible endpoint, with accounting and clean errors."""

    def __init__(self, settings: Settings, *, sink: UsageSink | None = None) -> None:
        """Build the client from `settings`; `sink`, when given, receives the usage of every successful call."""
        if not settings.llm_enabled:
            raise ConfigError("no LLM configured: set PAPERSCOUT_LLM_BASE_URL or PAPERSCOUT_LLM_API_KEY")
        self._settings = settings
        self._sink = sink
        key = settings.llm_api_key.get_secret_value() if settings.llm_api_key is not None else ""
        self._api_key = key or PLACEHOLDER_API_KEY
        base_url = settings.llm_base_url or OPENAI_BASE_URL
        endpoint = split_endpoint(base_url)
        if problem := credentials_problem(settings):
            raise ConfigError(problem)
        self.endpoint = public_url(base_url)
        self.model = settings.llm_model
        # None until a call with a schema tells us; False is remembered for the client's lifetime.
        self.json_schema_supported: bool | None = None
        # OpenAI itself wants max_completion_tokens (its reasoning models reject max_tokens); other servers may
        # know only max_tokens. A rejection of either switches to the other for the client's lifetime.
        self.token_limit_param = "max_completion_tokens" if self.endpoint == OPENAI_BASE_URL else "max_tokens"
        self.quota_note: str | None = None  # set while the account is out of quota
        self._quota_until: dt.date | None = None
        import openai

        self._client = openai.AsyncOpenAI(
            api_key=self._api_key,
            base_url=endpoint.url,
            default_query=endpoint.query or None,
            timeout=settings.llm_timeout_seconds,
            max_retries=settings.llm_max_retries,
            http_client=openai.DefaultAsyncHttpxClient(event_hooks={"response": [_no_retry_without_quota]}),
        )

    async def __aenter__(self) -> LLMClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the HTTP connections."""
        await self._client.close()

    def cost_usd(self, prompt_tokens: int, completion_tokens: int) -> float:
        """Dollars for this many tokens at the configured prices."""
        s = self._settings
        return (prompt_tokens * s.llm_price_prompt_per_mtok + completion_tokens * s.llm_price_completion_per_mtok) / 1e6

    def estimate_cost(self, messages: Messages, max_tokens: int | None = None) -> float:
        """Upper-bound cost of sending `messages`, assuming the reply uses `max_tokens` (or as many as the prompt)."""
        prompt = estimate_message_tokens(messages)
        completion = max_tokens if max_tokens is not None else prompt
        return self.cost_usd(prompt, completion)

    async def chat(
        self,
        messages: Messages,
        *,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        purpose: str,
    ) -> ChatResult:
        """Send `messages` and return the reply with its token counts and cost.

        With `json_schema` (a JSON Schema, or a full ``{"name", "schema", "strict"}`` object) the server is asked
        for structured output; a server that rejects that is asked again in plain text, and is not asked for a
        schema again by this client. Callers should parse the text tolerantly either way and check
        `ChatResult.truncated`. Raises `SourceUnavailable` (or its `LLMRequestRejected`) on any failure.
        """
        self._check_quota()
        import openai

        started = time.monotonic()
        schema_format = None
        if json_schema is not None and self.json_schema_supported is not False:
            schema_format = self._response_format(json_schema, purpose)
        want_schema = schema_format is not None
        try:
            if schema_format is not None:
                try:
                    completion = await self._create(messages, max_tokens, schema_format)
                except (openai.BadRequestError, openai.UnprocessableEntityError) as exc:
                    completion = await self._create(messages, max_tokens, None)
                    # The plain request worked, so it was the response_format the server could not take.
                    self.json_schema_supported = False
                    want_schema = False
                    log.warning(
                        "LLM endpoint %s rejected JSON-schema output (HTTP %s: %s); using plain text from now on",
                        self.endpoint,
                        exc.status_code,
                        self._server_message(exc),
                    )
                else:
                    self.json_schema_supported = True
            else:
                completion = await self._create(messages, max_tokens, None)
        except openai.OpenAIError as exc:
            raise self._translate(exc) from None
        except ValueError as exc:  # a body that is not JSON reaches us as a JSONDecodeError
            raise SourceUnavailable(
                f"LLM endpoint {self.endpoint} returned an unreadable response ({type(exc).__name__})"
            ) from None

        result = self._result(completion, messages, structured=want_schema)
        log.debug(
            "llm %s: model=%s prompt=%d completion=%d%s cost=$%.6f finish=%s in %.2fs",
            purpose,
            result.model,
            result.prompt_tokens,
            result.completion_tokens,
            " (estimated)" if result.usage_estimated else "",
            result.cost_usd,
            result.finish_reason,
            time.monotonic() - started,
        )
        if self._sink is not None:
            try:
                await self._sink.record(
                    purpose, result.model, result.prompt_tokens, result.completion_tokens, result.cost_usd
                )
            except Exception as exc:
                # The answer is already paid for; losing it over a bookkeeping failure would waste the spend.
                log.warning("could not record LLM usage for %s: %s", purpose, self._redact(str(exc)))
        return result

    @staticmethod
    def _response_format(json_schema: dict[str, Any], purpose: str) -> dict[str, Any]:
        if isinstance(json_schema.get("schema"), dict) and "name" in json_schema:
            spec = dict(json_schema)
        else:
            spec = {"name": _schema_name(purpose), "schema": json_schema, "strict": True}
        return {"type": "json_schema", "json_schema": spec}

    async def _create(self, messages: Messages, max_tokens: int | None, response_format: dict[str, Any] | None) -> Any:
        import openai

        kwargs: dict[str, Any] = {"model": self.model, "messages": [dict(m) for m in messages]}
        if response_format is not None:
            kwargs["response_format"] = response_format
        if max_tokens is None:
            return await self._client.chat.completions.create(**kwargs)
        try:
            return await self._client.chat.completions.create(**kwargs, **{self.token_limit_param: max_tokens})
        except openai.BadRequestError as exc:
            if not self._rejects_token_limit_param(exc):
                raise
            rejected = self.token_limit_param
            self.token_limit_param = next(p for p in _TOKEN_LIMIT_PARAMS if p != rejected)
            log.info(
                "LLM endpoint %s rejects %s; sending %s from now on", self.endpoint, rejected, self.token_limit_param
            )
            return await self._client.chat.completions.create(**kwargs, **{self.token_limit_param: max_tokens})

    def _rejects_token_limit_param(self, exc: openai.BadRequestError) -> bool:
        """True for a 400 naming the completion-limit parameter we sent as unsupported (OpenAI's or a local wording)."""
        param = getattr(exc, "param", None)
        if param == self.token_limit_param:
            return True
        message = self._server_message(exc)
        return (
            self.token_limit_param in message
            and re.search(r"unsupported|not supported|unrecognized|unknown", message, re.I) is not None
        )

    def _check_quota(self) -> None:
        """Refuse at once, without a request, while the account is out of quota today."""
        if self._quota_until is None:
            return
        if dt.datetime.now(dt.UTC).date() >= self._quota_until:
            self._quota_until, self.quota_note = None, None
            return
        raise LLMQuotaExhausted(self.quota_note or "LLM quota exhausted", until=self._quota_until)

    def _result(self, completion: Any, messages: Messages, *, structured: bool) -> ChatResult:
        try:
            choice = completion.choices[0]
            text = choice.message.content or ""
            finish_reason = choice.finish_reason
            refusal = getattr(choice.message, "refusal", None)
        except (AttributeError, IndexError, TypeError):
            raise SourceUnavailable(f"LLM endpoint {self.endpoint} returned a completion without choices") from None
        usage = getattr(completion, "usage", None)
        prompt_tokens = getattr(usage, "prompt_tokens", None)
        completion_tokens = getattr(usage, "completion_tokens", None)
        estimated = not isinstance(prompt_tokens, int) or not isinstance(completion_tokens, int)
        if estimated:
            prompt_tokens = estimate_message_tokens(messages)
            completion_tokens = count_tokens_estimate(text)
        assert isinstance(prompt_tokens, int) and isinstance(completion_tokens, int)
        return ChatResult(
            text=text,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            cost_usd=self.cost_usd(prompt_tokens, completion_tokens),
            model=getattr(completion, "model", None) or self.model,
            finish_reason=finish_reason,
            usage_estimated=estimated,
            structured=structured,
            refusal=" ".join(str(refusal).split())[:_MAX_SERVER_MESSAGE] if refusal else None,
        )

    def _redact(self, text: str) -> str:
        if self._api_key and self._api_key != PLACEHOLDER_API_KEY:
            text = text.replace(self._api_key, "***")
        return text

    def _server_message(self, exc: openai.APIError) -> str:
        body = exc.body
        if isinstance(body, dict):
            inner = body.get("error", body)
            raw = inner.get("message") if isinstance(inner, dict) else None
            message = str(raw) if raw else json.dumps(body)[:_MAX_SERVER_MESSAGE]
        elif body is not None:
            message = str(body)
        else:
            message = ""
        message = " ".join(self._redact(message).split())
        if len(message) > _MAX_SERVER_MESSAGE:
            message = message[: _MAX_SERVER_MESSAGE - 1] + "…"
        return message or "no details"

    def _translate(self, exc: openai.OpenAIError) -> SourceUnavailable:
        """One line for the person running paperscout; deliberately drops the openai exception (and its body)."""
        import openai

        where = f"LLM endpoint {self.endpoint}"
        retries = self._settings.llm_max_retries
        after = f" after {retries} retr{'y' if retries == 1 else 'ies'}" if retries else ""
        if isinstance(exc, openai.APITimeoutError):
            return SourceUnavailable(f"{where} timed out ({self._settings.llm_timeout_seconds:g} s){after}")
        if isinstance(exc, openai.APIConnectionError):
            return SourceUnavailable(f"{where} could not be reached{after}")
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            if status in (401, 403):
                # Some servers echo (part of) the key they were given; say nothing of what they sent.
                return LLMRequestRejected(
                    f"{where} refused the API key (HTTP {status})", status_code=status, code=exc.code
                )
            detail = self._server_message(exc)
            if status == 429 and _is_out_of_quota(exc):
                self._quota_until = dt.datetime.now(dt.UTC).date() + dt.timedelta(days=1)
                self.quota_note = (
                    f"{where} says the account has no quota left (insufficient_quota): {detail}. "
                    f"LLM features are off until {self._quota_until} 00:00 UTC; add credit or raise the limit."
                )
                return LLMQuotaExhausted(self.quota_note, until=self._quota_until)
            if status == 429:
                return SourceUnavailable(f"{where} kept rate-limiting (HTTP 429){after}: {detail}")
            if status >= 500 or status in (408, 409):
                return SourceUnavailable(f"{where} failed (HTTP {status}){after}: {detail}")
            return LLMRequestRejected(
                f"{where} rejected the request (HTTP {status}): {detail}", status_code=status, code=exc.code
            )
        if isinstance(exc, openai.APIError):
            return SourceUnavailable(f"{where} returned an unexpected response ({type(exc).__name__})")
        return SourceUnavailable(f"{where} failed ({type(exc).__name__})")


def _is_out_of_quota(exc: openai.APIStatusError) -> bool:
    body = exc.body
    inner = body.get("error", body) if isinstance(body, dict) else None
    if not isinstance(inner, dict):
        return False
    return "insufficient_quota" in (inner.get("code"), inner.get("type"))


async def _no_retry_without_quota(response: Any) -> None:
    """Tell the openai client not to retry a 429 ``insufficient_quota``: waiting does not bring credit back."""
    if response.status_code != 429:
        return
    await response.aread()
    try:
        body = response.json()
    except ValueError:
        return
    inner = body.get("error") if isinstance(body, dict) else None
    if isinstance(inner, dict) and "insufficient_quota" in (inner.get("code"), inner.get("type")):
        response.headers["x-should-retry"] = "false"
