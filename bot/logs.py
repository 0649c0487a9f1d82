"""Logging that never shows a secret: configured tokens and keys, and credentials inside URLs, are masked in every
line, whoever wrote it (our code, httpx logging a Telegram URL that carries the bot token, a library's error)."""

from __future__ import annotations

import logging
import re
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only for type hints: `paperscout --help` need not load pydantic
    from bot.config import Settings


MASK = "***"
HANDLER_NAME = "paperscout"
# credentials inside URLs: user:password@host, /bot<token>/ paths, ?key= / token= / api_key= query values
_URL_SECRETS = (
    re.compile(r"(?<=://)[^/\s:@]+:[^/\s@]+(?=@)"),
    re.compile(r"(?<=/bot)\d+:[A-Za-z0-9_-]+"),
)
_QUERY_SECRET = re.compile(r"(?i)([?&](?:key|token|api_key|apikey|access_token)=)[^&\s]+")


class RedactSecrets(logging.Filter):
    """Replaces the given secret values and URL credentials in each record's final message."""

    def __init__(self, secrets: list[str]) -> None:
        super().__init__()
        self.secrets = sorted({s for s in secrets if len(s) >= 6}, key=len, reverse=True)

    def redact(self, text: str) -> str:
        """`text` with every secret masked."""
        for secret in self.secrets:
            text = text.replace(secret, MASK)
        for pattern in _URL_SECRETS:
            text = pattern.sub(MASK, text)
        return _QUERY_SECRET.sub(rf"\g<1>{MASK}", text)

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = self.redact(message)
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        if cleaned != message:
            record.msg, record.args = cleaned, ()
        return True


def configure_logging(verbose: bool, settings: Settings | None = None) -> None:
    """Log to stderr (INFO with -v, else WARNING), with secrets masked in every line."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    secrets = []
    if settings is not None:
        for value in (settings.telegram_token, settings.discord_token, settings.llm_api_key):
            if value is not None:
                secrets.append(value.get_secret_value())
    handler.addFilter(RedactSecrets(secrets))
    handler.set_name(HANDLER_NAME)
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == HANDLER_NAME]:  # ours from an earlier call only
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(logging.INFO if verbose else logging.WARNING)
