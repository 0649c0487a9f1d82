"""An OpenAI-compatible server on 127.0.0.1 for tests and benchmarks: real HTTP, scripted answers and faults.

In a test::

    with FakeOpenAI(responder=lambda req: '{"score": 7}') as fake:
        settings = Settings(llm_base_url=fake.base_url, ...)
        fake.enqueue(Fault.rate_limit(retry_after=0.2), Fault.server_error())
        ...
        assert fake.chat_requests()[0].body["model"] == "..."

From a shell (serves until Ctrl-C)::

    python -m tests.fakes.openai_server --port 8099 --reply "hello"
    python -m tests.fakes.openai_server --port 8099 --scorer   # answers paperscout's score/TL;DR prompts

Endpoints: ``POST /v1/chat/completions`` (also ``/chat/completions``), ``POST /v1/embeddings``,
``GET /v1/models``. Bodies and error bodies are shaped like OpenAI's (see tests/fixtures/openai/README.md for
where each shape was seen). Like the real service:

- prompt tokens are counted by `tokenizer_shaped_count` (word pieces plus OpenAI's chat framing), not by our
  estimate, so reported usage differs from what the client guessed;
- an alias answers with its dated snapshot name (``gpt-4o-mini`` -> ``gpt-4o-mini-2024-07-18``);
- ``models``, when given, lists the only models that exist: others get 404 ``model_not_found``;
- reasoning models (o1/o3/o4/gpt-5...) reject ``max_tokens`` with 400 ``unsupported_parameter``;
- ``context_window``, when given, rejects a longer prompt plus completion limit with 400 ``context_length_exceeded``.

Faults are one-shot and consumed in order, one per POST request; `always` sets one that never runs out.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import math
import re
import socket
import struct
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from typing import Any, Literal

from bot.llm.client import CHARS_PER_TOKEN, count_tokens_estimate, estimate_message_tokens
from tests.fakes.loopback import LoopbackFake

# The key tests configure on both sides; long and distinctive so a leak is easy to spot.
TEST_API_KEY = "sk-fake-paperscout-0123456789abcdef"

Responder = Callable[[dict[str, Any]], str]
FaultKind = Literal[
    "status", "delay", "malformed", "truncate", "no_usage", "reject_json_schema", "disconnect", "quota", "refusal"
]

_ERROR_TYPES = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    404: ("invalid_request_error", "unknown_url"),
    429: ("requests", "rate_limit_exceeded"),
}
_WORD = re.compile(r"\w+")
# Word pieces roughly as a BPE tokenizer cuts English and LaTeX: letters in pieces of up to 6, digits in threes,
# every other non-space character alone.
_PIECE = re.compile(r"[A-Za-z]{1,6}|\d{1,3}|[^\sA-Za-z\d]")
DATED_MODELS = {"gpt-4o-mini": "gpt-4o-mini-2024-07-18", "gpt-4o": "gpt-4o-2024-08-06", "gpt-5": "gpt-5-2025-08-07"}
_REASONING_MODEL = re.compile(r"^(o\d|gpt-5)")


@dataclass(frozen=True)
class Fault:
    """One scripted misbehaviour of the fake. Build with the class methods."""

    kind: FaultKind
    status: int = 500
    retry_after: float | None = None
    seconds: float = 0.0

    in_ms: bool = False
    text: str = ""

    @classmethod
    def rate_limit(cls, retry_after: float = 0.2, *, in_ms: bool = False) -> Fault:
        """HTTP 429 with ``retry-after`` in seconds (or ``retry-after-ms``, as OpenAI also sends)."""
        return cls("status", status=429, retry_after=retry_after, in_ms=in_ms)

    @classmethod
    def quota_exhausted(cls) -> Fault:
        """HTTP 429 ``insufficient_quota``: the account has no credit left (OpenAI's exact error body)."""
        return cls("quota", status=429)

    @classmethod
    def refusal(cls, text: str = "I'm sorry, I can't help with that.") -> Fault:
        """HTTP 200 whose message has ``content: null`` and ``refusal`` set, as OpenAI's safety refusals."""
        return cls("refusal", text=text)

    @classmethod
    def server_error(cls, status: int = 500, retry_after: float | None = None) -> Fault:
        """HTTP 5xx (500 by default), optionally with ``retry-after`` to keep retries fast in tests."""
        return cls("status", status=status, retry_after=retry_after)

    @classmethod
    def unavailable(cls, retry_after: float | None = None) -> Fault:
        """HTTP 503."""
        return cls("status", status=503, retry_after=retry_after)

    @classmethod
    def status_code(cls, status: int) -> Fault:
        """Any HTTP error status with an OpenAI-shaped error body."""
        return cls("status", status=status)

    @classmethod
    def delay(cls, seconds: float) -> Fault:
        """Answer normally, but only after `seconds` (longer than the client timeout to provoke one)."""
        return cls("delay", seconds=seconds)

    @classmethod
    def malformed(cls) -> Fault:
        """HTTP 200 with ``application/json`` and a body that is not JSON."""
        return cls("malformed")

    @classmethod
    def truncated(cls) -> Fault:
        """Half the content, with ``finish_reason: "length"``."""
        return cls("truncate")

    @classmethod
    def no_usage(cls) -> Fault:
        """A completion without the ``usage`` object (as some local servers send)."""
        return cls("no_usage")

    @classmethod
    def reject_json_schema(cls) -> Fault:
        """HTTP 400 if the request asks for ``response_format`` json_schema; no effect otherwise."""
        return cls("reject_json_schema")

    @classmethod
    def disconnect(cls) -> Fault:
        """Close the connection without answering."""
        return cls("disconnect")


@dataclass(frozen=True)
class RecordedRequest:
    """A request as the fake saw it. The Authorization value is never kept, only whether it matched."""

    method: str
    path: str
    body: dict[str, Any] | None
    headers: dict[str, str]
    has_authorization: bool
    authorized: bool
    at: float = field(repr=False)  # time.monotonic() on arrival


def default_responder(request: dict[str, Any]) -> str:
    """A deterministic reply naming the start of the last user message."""
    users = [m for m in request.get("messages", []) if m.get("role") == "user"]
    last = users[-1].get("content", "") if users else ""
    if not isinstance(last, str):
        last = json.dumps(last)
    return f"fake reply to: {last[:60]}"


def fake_embedding(text: str, dimensions: int) -> list[float]:
    """A deterministic unit vector from hashed words, so texts sharing words are close."""
    vec = [0.0] * dimensions
    for word in _WORD.findall(text.lower()):
        digest = hashlib.sha256(word.encode()).digest()
        index = int.from_bytes(digest[:4], "little") % dimensions
        vec[index] += 1.0 if digest[4] & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vec))
    if norm == 0.0:
        vec[0], norm = 1.0, 1.0
    return [v / norm for v in vec]


class FakeOpenAI(LoopbackFake[Fault, RecordedRequest]):
    """An OpenAI-compatible HTTP server in a background thread on an ephemeral 127.0.0.1 port."""

    thread_name = "fake-openai"

    def __init__(
        self,
        responder: Responder | None = None,
        *,
        model: str = "fake-model",
        models: set[str] | None = None,
        context_window: int | None = None,
        usage_counting: Literal["tokenizer", "estimate"] = "tokenizer",
        api_key: str | None = None,
        basic_auth: tuple[str, str] | None = None,
        supports_json_schema: bool = True,
        embedding_dimensions: int = 16,
        latency_seconds: float = 0.0,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        """Configure the fake; `api_key`, when set, is required as ``Authorization: Bearer <key>``, and
        `basic_auth` (user, password), when set, as ``Authorization: Basic ...`` (a proxy in front of the server)."""
        super().__init__(host, port)
        self.responder: Responder = responder or default_responder
        self.model = model
        self.models = models
        self.context_window = context_window
        # "estimate" reports our own estimate as usage (benchmarks comparing runs made before the honest counts)
        self.usage_counting = usage_counting
        self.api_key = api_key
        self.basic_auth = basic_auth
        self.supports_json_schema = supports_json_schema
        self.embedding_dimensions = embedding_dimensions
        self.latency_seconds = latency_seconds

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        return _Handler

    @property
    def base_url(self) -> str:
        """What an OpenAI client takes as ``base_url``: the root plus ``/v1``."""
        return f"{self.url}/v1"

    def chat_requests(self) -> list[RecordedRequest]:
        """Only the chat completion requests."""
        return [r for r in self.requests if r.path.split("?", 1)[0].endswith("/chat/completions")]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the openai client's connection pool expects
    server_version = "paperscout-fake-openai/1"
    timeout = 30  # idle keep-alive connections end eventually

    @property
    def fake(self) -> FakeOpenAI:
        return self.server.fake  # type: ignore[attr-defined]

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet test output

    # --- plumbing ---

    def _send_json(self, status: int, payload: object, headers: dict[str, str] | None = None) -> None:
        self._send_raw(status, json.dumps(payload).encode(), headers)

    def _send_raw(self, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("x-request-id", f"req_{uuid.uuid4().hex[:16]}")
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (e.g. its timeout fired)

    def _send_error(
        self,
        status: int,
        message: str,
        *,
        param: str | None = None,
        code: str | None = None,
        kind: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        default_kind, default_code = _ERROR_TYPES.get(status, ("server_error", None))
        error = {"message": message, "type": kind or default_kind, "param": param, "code": code or default_code}
        self._send_json(status, {"error": error}, headers)

    def _read_body(self) -> tuple[dict[str, Any] | None, bool]:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not raw:
            return None, True
        try:
            body = json.loads(raw)
        except ValueError:
            return None, False
        return (body, True) if isinstance(body, dict) else (None, False)

    def _record_and_authorize(self, method: str, body: dict[str, Any] | None) -> bool:
        presented = self.headers.get("Authorization")
        expected = self.fake.api_key
        authorized = expected is None or presented == f"Bearer {expected}"
        if self.fake.basic_auth is not None:
            pair = ":".join(self.fake.basic_auth).encode()
            authorized = presented == f"Basic {base64.b64encode(pair).decode()}"
        headers = {k.lower(): v for k, v in self.headers.items() if k.lower() != "authorization"}
        self.fake._record(
            RecordedRequest(
                method=method,
                path=self.path,
                body=body,
                headers=headers,
                has_authorization=presented is not None,
                authorized=authorized,
                at=time.monotonic(),
            )
        )
        if not authorized:
            given = (presented or "").removeprefix("Bearer ")
            # Echoes the whole key on purpose: the worst a server might do, so redaction gets tested.
            self._send_error(401, f"Incorrect API key provided: {given}. You can find your API key at example.")
        return authorized

    # --- routes ---

    def do_GET(self) -> None:
        if not self._record_and_authorize("GET", None):
            return
        path = self.path.split("?", 1)[0].rstrip("/")
        if path in ("/v1/models", "/models"):
            created = int(time.time())
            model = {"id": self.fake.model, "object": "model", "created": created, "owned_by": "paperscout-fake"}
            self._send_json(200, {"object": "list", "data": [model]})
        else:
            self._send_error(404, f"Invalid URL (GET {self.path})")

    def do_POST(self) -> None:
        body, ok = self._read_body()
        if not self._record_and_authorize("POST", body):
            return
        path = self.path.split("?", 1)[0].rstrip("/")
        if path not in ("/v1/chat/completions", "/chat/completions", "/v1/embeddings", "/embeddings"):
            self._send_error(404, f"Invalid URL (POST {self.path})")
            return
        if not ok or body is None:
            self._send_error(400, "We could not parse the JSON body of your request.")
            return

        fault = self.fake._next_fault()
        if fault is not None and self._apply_early_fault(fault, body):
            return
        if self.fake.latency_seconds:
            self.fake._sleep(self.fake.latency_seconds)
        if path.endswith("/embeddings"):
            self._embeddings(body)
        else:
            self._chat(body, fault)

    def _apply_early_fault(self, fault: Fault, body: dict[str, Any]) -> bool:
        """Handle faults that replace the answer; True when the response has been sent."""
        if fault.kind == "quota":
            self._send_error(
                429,
                "You exceeded your current quota, please check your plan and billing details. For more "
                "information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
                code="insufficient_quota",
                kind="insufficient_quota",
            )
            return True
        if fault.kind == "status":
            headers = None
            if fault.retry_after is not None and fault.in_ms:
                headers = {"retry-after-ms": f"{fault.retry_after * 1000:.0f}"}
            elif fault.retry_after is not None:
                headers = {"retry-after": f"{fault.retry_after:g}"}
            try:
                reason = HTTPStatus(fault.status).phrase
            except ValueError:
                reason = "Error"
            self._send_error(fault.status, f"Fake {fault.status}: {reason}", headers=headers)
            return True
        if fault.kind == "delay":
            self.fake._sleep(fault.seconds)
            return False
        if fault.kind == "malformed":
            self._send_raw(200, b'{"id": "chatcmpl-broken", "object": "chat.completion", "choices": [{"ind')
            return True
        if fault.kind == "disconnect":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return True
        if fault.kind == "reject_json_schema" and _wants_json_schema(body):
            self._reject_json_schema()
            return True
        return False

    def _reject_json_schema(self) -> None:
        self._send_error(
            400,
            "response_format of type 'json_schema' is not supported by this server.",
            param="response_format",
            code="unsupported_parameter",
        )

    def _chat(self, body: dict[str, Any], fault: Fault | None) -> None:
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            self._send_error(400, "'messages' is a required property and must be a non-empty array.", param="messages")
            return
        if _wants_json_schema(body) and not self.fake.supports_json_schema:
            self._reject_json_schema()
            return
        model = str(body.get("model") or self.fake.model)
        if self.fake.models is not None and model not in self.fake.models:
            self._send_error(
                404,
                f"The model `{model}` does not exist or you do not have access to it.",
                code="model_not_found",
            )
            return
        if "max_tokens" in body and _REASONING_MODEL.match(model):
            self._send_error(
                400,
                "Unsupported parameter: 'max_tokens' is not supported with this model. "
                "Use 'max_completion_tokens' instead.",
                param="max_tokens",
                code="unsupported_parameter",
            )
            return
        if self.fake.usage_counting == "estimate":
            prompt_tokens = estimate_message_tokens(messages)
        else:
            prompt_tokens = tokenizer_shaped_count(messages)
        limit = body.get("max_completion_tokens") or body.get("max_tokens")
        window = self.fake.context_window
        if window is not None and prompt_tokens + (limit if isinstance(limit, int) else 0) > window:
            asked = f"{prompt_tokens} in the messages" + (
                f", {limit} in the completion" if isinstance(limit, int) else ""
            )
            self._send_error(
                400,
                f"This model's maximum context length is {window} tokens. However, you requested "
                f"{prompt_tokens + (limit if isinstance(limit, int) else 0)} tokens ({asked}). "
                "Please reduce the length of the messages or completion.",
                param="messages",
                code="context_length_exceeded",
            )
            return
        try:
            content = self.fake.responder(body)
        except Exception as exc:  # a broken responder is a test bug; make it visible as a 500
            self._send_error(500, f"responder failed: {type(exc).__name__}: {exc}")
            return

        finish_reason = "stop"
        if isinstance(limit, int) and limit > 0 and count_tokens_estimate(content) > limit:
            content = content[: limit * CHARS_PER_TOKEN]
            finish_reason = "length"
        if fault is not None and fault.kind == "truncate":
            content = content[: max(1, len(content) // 2)]
            finish_reason = "length"

        payload: dict[str, Any] = {
            "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": DATED_MODELS.get(model, model),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content, "refusal": None},
                    "logprobs": None,
                    "finish_reason": finish_reason,
                }
            ],
            "system_fingerprint": "fp_fake",
        }
        if fault is not None and fault.kind == "refusal":
            payload["choices"][0]["message"].update(content=None, refusal=fault.text)
            content = fault.text
        if fault is None or fault.kind != "no_usage":
            completion_tokens = (
                count_tokens_estimate(content)
                if self.fake.usage_counting == "estimate"
                else len(_PIECE.findall(content))
            )
            if finish_reason == "length" and isinstance(limit, int) and limit > 0:
                completion_tokens = limit  # a server stopped by the limit has spent all of it
            payload["usage"] = {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            }
        self._send_json(200, payload)

    def _embeddings(self, body: dict[str, Any]) -> None:
        raw = body.get("input")
        if isinstance(raw, str) or (isinstance(raw, list) and raw and all(isinstance(t, int) for t in raw)):
            raw = [raw]
        if not isinstance(raw, list) or not raw:
            self._send_error(400, "'input' must be a string or a non-empty array.", param="input")
            return
        texts = [item if isinstance(item, str) else " ".join(map(str, item)) for item in raw]
        dimensions = body.get("dimensions") or self.fake.embedding_dimensions
        as_base64 = body.get("encoding_format") == "base64"
        data = []
        for index, text in enumerate(texts):
            vector = fake_embedding(text, int(dimensions))
            encoded: Any = base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode() if as_base64 else vector
            data.append({"object": "embedding", "index": index, "embedding": encoded})
        tokens = sum(count_tokens_estimate(t) for t in texts)
        model = body.get("model") or self.fake.model
        usage = {"prompt_tokens": tokens, "total_tokens": tokens}
        self._send_json(200, {"object": "list", "data": data, "model": model, "usage": usage})


def tokenizer_shaped_count(messages: list[Any]) -> int:
    """Prompt tokens as a real chat endpoint reports them: word pieces of each text, 3 framing tokens and the
    role per message, 3 priming the reply (OpenAI's documented chat format)."""
    total = 3
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else ""
        if isinstance(content, list):
            content = "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        total += 3 + len(_PIECE.findall(str(message.get("role", "")))) + len(_PIECE.findall(str(content or "")))
    return total


def _wants_json_schema(body: dict[str, Any]) -> bool:
    response_format = body.get("response_format")
    return isinstance(response_format, dict) and response_format.get("type") == "json_schema"


def main(argv: list[str] | None = None) -> None:
    """Serve the fake from the command line until interrupted."""
    parser = argparse.ArgumentParser(description="OpenAI-compatible fake server for paperscout tests and benchmarks")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--model", default="fake-model")
    parser.add_argument("--api-key", default=None, help="require this bearer key")
    parser.add_argument("--reply", default=None, help="fixed assistant reply (default: echo the last user message)")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds added to every POST")
    parser.add_argument(
        "--scorer", action="store_true", help="answer paperscout's score and TL;DR prompts plausibly (valid JSON)"
    )
    parser.add_argument(
        "--garbage-every", type=int, default=0, metavar="N", help="with --scorer: every Nth answer is junk"
    )
    args = parser.parse_args(argv)
    responder = (lambda _req: args.reply) if args.reply is not None else None
    if args.scorer:
        from tests.fakes.paperscout_llm import PaperscoutResponder

        responder = PaperscoutResponder(garbage_every=args.garbage_every)
    fake = FakeOpenAI(
        responder,
        model=args.model,
        api_key=args.api_key,
        latency_seconds=args.latency,
        host=args.host,
        port=args.port,
    )
    with fake:
        print(f"fake OpenAI server at {fake.base_url} (Ctrl-C to stop)", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
