"""Logging that never shows a secret: configured tokens and keys, and credentials inside URLs, are masked in every
line, whoever wrote it (our code, httpx logging a Telegram URL that carries the bot token, a library's error).

Lines are text by default, or one JSON object per line with ``PAPERSCOUT_LOG_FORMAT=json`` (time, level, logger,
message, and the structured fields of `log_event`). Every job run, CLI command and chat command writes one line
with `log_event`: what ran (``event``: job, command or chat, and its name), where, how long and how it ended.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import re
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit

if TYPE_CHECKING:  # only for type hints: `paperscout --help` need not load pydantic
    from bot.config import Settings


MASK = "***"
HANDLER_NAME = "paperscout"
FIELDS = "paperscout_fields"  # the LogRecord attribute holding `log_event`'s structured fields
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# APScheduler writes two lines per job run ("Running job", "executed successfully"): our one line replaces them
_CHATTY_AT_INFO = ("apscheduler.executors",)
# a line per SQLite call from their worker thread, at DEBUG: noise at any level, and a debug run drowns in it
_NOISE_AT_DEBUG = ("aiosqlite",)
# credentials inside URLs: user:password@host, /bot<token>/ paths, ?key= / token= / api_key= query values
_URL_SECRETS = (
    re.compile(r"(?<=://)[^/\s:@]+:[^/\s@]+(?=@)"),
    re.compile(r"(?<=/bot)\d+:[A-Za-z0-9_-]+"),
)
_QUERY_SECRET = re.compile(r"(?i)([?&](?:key|token|api_key|apikey|access_token)=)[^&\s]+")
# query parameters of the LLM endpoint known to carry no secret; every other value there (?code=, ?sig=, ...) is masked
HARMLESS_QUERY_KEYS = frozenset({"api-version", "api_version", "version", "format"})
# an Authorization header echoed back in an error body (Basic carries URL credentials base64-encoded); only in
# header context, so prose such as "basic approaches" is left alone
_AUTH_SECRET = re.compile(r"""(?i)(authorization['"]?\s*[:=]\s*['"]?(?:basic|bearer|bot)\s+)[^\s'",}]+""")


class RedactSecrets(logging.Filter):
    """Replaces the given secret values and URL credentials in each record's final message."""

    def __init__(self, secrets: list[str], query_hosts: Sequence[str] = ()) -> None:
        super().__init__()
        self.secrets = sorted({s for s in secrets if len(s) >= 6}, key=len, reverse=True)
        # URLs to these hosts (host or host:port) have every query value masked but the harmless ones
        hosts = "|".join(re.escape(h) for h in sorted(set(query_hosts)) if h)
        self.query_urls = (
            re.compile(rf"(?i)(\bhttps?://(?:[^/\s@]*@)?(?:{hosts})(?![\w.:-])[^\s?#\"'<>]*\?)([^\s#\"'<>]*)")
            if hosts
            else None
        )

    def redact(self, text: str) -> str:
        """`text` with every secret masked."""
        for secret in self.secrets:
            text = text.replace(secret, MASK)
        for pattern in _URL_SECRETS:
            text = pattern.sub(MASK, text)
        text = _AUTH_SECRET.sub(rf"\g<1>{MASK}", text)
        if self.query_urls is not None:
            text = self.query_urls.sub(lambda m: m.group(1) + _masked_query(m.group(2)), text)
        return _QUERY_SECRET.sub(rf"\g<1>{MASK}", text)

    def filter(self, record: logging.LogRecord) -> bool:
        """Mask the record's message, traceback, stack and structured fields in place; never drops a record."""
        message = record.getMessage()
        cleaned = self.redact(message)
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self.redact(record.stack_info)
        if cleaned != message:
            record.msg, record.args = cleaned, ()
        fields = getattr(record, FIELDS, None)
        if fields:
            setattr(record, FIELDS, {k: self.redact(v) if isinstance(v, str) else v for k, v in fields.items()})
        return True


def _masked_query(query: str) -> str:
    """`query` (``a=1&b=2``) with every value masked but those of `HARMLESS_QUERY_KEYS`."""
    pairs = []
    for pair in query.split("&"):
        key, equals, value = pair.partition("=")
        harmless = key.lower() in HARMLESS_QUERY_KEYS or not value
        pairs.append(pair if harmless else f"{key}{equals}{MASK}" if equals else MASK)
    return "&".join(pairs)


def query_secrets(url: str) -> tuple[str, list[str]]:
    """The host (host:port) of `url` and the values of its query that are not known to be harmless."""
    parts = urlsplit(url.strip())
    host = parts.netloc.rpartition("@")[2]
    values = [v for k, v in parse_qsl(parts.query, keep_blank_values=True) if k.lower() not in HARMLESS_QUERY_KEYS]
    return host, [v for v in values if v]


def public_url(url: str) -> str:
    """`url` as it may be printed: scheme, host, port and path; no credentials, query or fragment.

    Text that is no http(s) URL is shown as written, minus anything that could be credentials or a query."""
    parts = urlsplit(url.strip())
    if parts.scheme in ("http", "https") and parts.netloc:
        host = parts.netloc.rpartition("@")[2]
        return f"{parts.scheme}://{host}{parts.path}".rstrip("/")
    return re.split(r"[?#]", url.strip().rpartition("@")[2], maxsplit=1)[0]


def log_event(logger: logging.Logger, message: str, *, level: int = logging.INFO, **fields: Any) -> None:
    """Log one line with structured fields (JSON keys, or ``key=value`` after the text message)."""
    logger.log(level, "%s", message, extra={FIELDS: fields})


def elapsed_ms(started: float) -> int:
    """Milliseconds since `started` (a `time.monotonic()` reading)."""
    return round((time.monotonic() - started) * 1000)


def _text_value(value: Any) -> str:
    """A field's value as written after ``key=``: quoted (JSON string) when empty or when it holds a space, quote,
    equals sign or a line break or other control, so one record stays one parseable line."""
    text = str(value)
    plain = text and text.isprintable() and not any(c in text for c in ' "=')
    return text if plain else json.dumps(text, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    """The classic line, with `log_event` fields appended as ``key=value``."""

    def __init__(self) -> None:
        super().__init__(TEXT_FORMAT)

    def formatMessage(self, record: logging.LogRecord) -> str:
        """The text line, then the record's fields."""
        line = super().formatMessage(record)
        fields = getattr(record, FIELDS, None)
        if fields:
            line += " " + " ".join(f"{k}={_text_value(v)}" for k, v in fields.items())
        return line


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time (UTC, ISO 8601), level, logger, message, the fields, and any traceback."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as one line of JSON (newlines inside values are escaped, so a traceback stays one line)."""
        entry: dict[str, Any] = {
            "time": dt.datetime.fromtimestamp(record.created, dt.UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in (getattr(record, FIELDS, None) or {}).items():
            entry.setdefault(key, value)
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            entry["exception"] = record.exc_text
        if record.stack_info:
            entry["stack"] = record.stack_info
        return json.dumps(entry, ensure_ascii=False, default=str)


def log_format(settings: Settings | None = None) -> str:
    """``json`` or ``text``: from the settings, or (when they could not be loaded) the environment, so even a
    configuration error comes out in the format the log collector expects."""
    if settings is not None:
        return settings.log_format
    return "json" if os.environ.get("PAPERSCOUT_LOG_FORMAT", "").strip().lower() == "json" else "text"


def json_logging() -> bool:
    """Whether the configured stderr handler writes JSON lines."""
    return any(h.get_name() == HANDLER_NAME and isinstance(h.formatter, JsonFormatter) for h in logging.root.handlers)


def redact(text: str) -> str:
    """`text` with the configured secrets (`configure_logging`) and any URL credentials masked, for lines written
    outside logging (the CLI's error line)."""
    for handler in logging.root.handlers:
        if handler.get_name() == HANDLER_NAME:
            for flt in handler.filters:
                if isinstance(flt, RedactSecrets):
                    return flt.redact(text)
    return RedactSecrets([]).redact(text)


class StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever `sys.stderr` is when a record is emitted, not the stream of the moment it was made
    (a replaced stderr, such as a test's capture, may be closed by the time a library thread logs)."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property  # type: ignore[override]
    def stream(self) -> object:
        return sys.stderr

    @stream.setter
    def stream(self, value: object) -> None:  # logging.StreamHandler assigns it; the property always wins
        pass


def configure_logging(verbose: bool, settings: Settings | None = None, *, service: bool = False) -> None:
    """Log to stderr with secrets masked in every line, as text or JSON (`PAPERSCOUT_LOG_FORMAT`).

    The level is `PAPERSCOUT_LOG_LEVEL` when set; otherwise INFO with -v or for a long-running `service`
    (`paperscout run`), else WARNING, so a one-off command prints only its result.
    """
    handler = StderrHandler()
    handler.setFormatter(JsonFormatter() if log_format(settings) == "json" else TextFormatter())
    secrets, query_hosts = [], []
    if settings is not None:
        for value in (settings.telegram_token, settings.discord_token, settings.llm_api_key):
            if value is not None:
                secrets.append(value.get_secret_value())
        if settings.llm_base_url:
            host, values = query_secrets(settings.llm_base_url)
            query_hosts.append(host)
            secrets += values
    handler.addFilter(RedactSecrets(secrets, query_hosts))
    handler.set_name(HANDLER_NAME)
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == HANDLER_NAME]:  # ours from an earlier call only
        root.removeHandler(old)
    root.addHandler(handler)
    configured = settings.log_level if settings is not None else None
    level = (
        logging.getLevelName(configured) if configured else (logging.INFO if verbose or service else logging.WARNING)
    )
    root.setLevel(level)
    for name in _CHATTY_AT_INFO:
        logging.getLogger(name).setLevel(logging.WARNING if level >= logging.INFO else logging.NOTSET)
    for name in _NOISE_AT_DEBUG:
        logging.getLogger(name).setLevel(max(level, logging.INFO))
