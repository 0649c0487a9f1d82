"""A platform's refusal in the core's terms: what a failed send means for the delivery policy.

Owns `Failure` (one refusal: its `Kind`, its words, the wait asked for, where a moved chat went) and `refusal`, which
reads a refused HTTP request from its status, the wait the platform asked for and the platform's own table of error
codes. A front end's `ChatDriver.failure` returns a `Failure`; the driver (`bot.chat.driver`) acts on it: retry after
the wait, retire a gone chat, tell the admin a denied permission, resend refused markup as plain text, follow a moved
chat, send a refused thread's message in the place itself. Imports only the leaf module `bot.ingest.throttle` (a
Retry-After header read as arXiv's is).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from bot.ingest.throttle import retry_after_seconds

Kind = Literal["retry", "gone", "denied", "markup", "moved", "unthreaded", "refused", "transient"]
RETRY_WAIT_SECONDS = 60.0  # a rate limit that names no wait


@dataclass(frozen=True)
class Failure:
    """A platform's refusal in the core's terms: wait `retry_after` and retry; the chat is `gone` (retired, never
    retried); the bot is `denied` a permission there (permanent; the admin reads which to give); our `markup` was
    refused (sent once more as plain text); the chat `moved` to `new_chat`; a reply in a thread was refused (the
    place takes none, or the thread is locked or gone: `unthreaded`, sent in the place itself); the message was
    `refused` (permanent); or a `transient` failure (retried with back-off)."""

    kind: Kind
    detail: str
    retry_after: float | None = None
    new_chat: str = ""


def refusal(
    status: int,
    code: object,
    detail: str,
    codes: Mapping[object, tuple[Kind, str]],
    retry_after: float | str | None = None,
    *,
    status_says: bool = True,
) -> Failure:
    """A refused request in the core's terms from its HTTP status and the platform's own error code: what the
    platform's table `codes` says the code means (its kind, and words for it that replace `detail` unless ''), else
    by the status: 429 a wait (`retry_after` in seconds, or the Retry-After header as sent: seconds or an HTTP date;
    zero is a retry at once; else, or when it cannot be read, a minute), 403/404 gone, another 4xx refused, anything
    else (a server error, 401: the bot's own token refused, which is no chat's doing, or an error code the table does
    not know) transient. A platform that says what is wrong with a chat only in its codes (`status_says` False) has
    any other status read as transient: a 404 for a method it no longer has, or a proxy's 403, is no chat's, and
    retiring every digest it meets would be wrong."""
    if code in codes:
        kind, words = codes[code]
        detail = words or detail
    elif status == 429:
        kind = "retry"
    elif not status_says or status == 401:  # retiring every chat the bot meets for its own token would be wrong
        kind = "transient"
    else:
        kind = "gone" if status in (403, 404) else "refused" if 400 <= status < 500 else "transient"
    wait = retry_after_seconds(retry_after) if isinstance(retry_after, str) else retry_after
    if kind != "retry":
        return Failure(kind, detail)
    # a wait of zero is a retry now, not a wait left unnamed (the delivery keeps a small floor of its own)
    return Failure(kind, detail, float(wait) if wait is not None and wait >= 0 else RETRY_WAIT_SECONDS)
