"""One rate limiter for every arXiv request the process makes.

arXiv's terms of use ask for at most one request every three seconds across its APIs, so the RSS fetcher
(async, httpx) and the `arxiv` package (synchronous, run in worker threads) share one `Throttle`.
Each caller reserves the next free slot under a thread lock and then sleeps until its slot, so the
limiter works from any event loop and any thread, and waiters are served in arrival order.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import email.utils
import math
import threading
import time
from collections.abc import Callable


class Throttle:
    """Spaces requests at least `interval` seconds apart, process-wide and thread-safe."""

    def __init__(self, interval: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        """Create a limiter allowing one request per `interval` seconds (0 disables spacing)."""
        if interval < 0:
            raise ValueError("throttle interval must be >= 0")
        self.interval = interval
        self._clock = clock
        self._lock = threading.Lock()
        self._next_free = float("-inf")  # clock time at which the next request may start

    def _reserve(self) -> float:
        with self._lock:
            now = self._clock()
            start = max(now, self._next_free)
            self._next_free = start + self.interval
            return start - now

    async def wait(self) -> None:
        """Wait (without blocking the event loop) until this caller may send its request."""
        delay = self._reserve()
        if delay > 0:
            await asyncio.sleep(delay)

    def wait_blocking(self) -> None:
        """Like `wait`, for synchronous code running in a worker thread."""
        delay = self._reserve()
        if delay > 0:
            time.sleep(delay)

    def back_off(self, seconds: float) -> None:
        """Hold every caller back for `seconds` from now, e.g. after arXiv answered 429/503 with Retry-After."""
        if seconds <= 0:
            return
        with self._lock:
            self._next_free = max(self._next_free, self._clock() + seconds)


_shared: Throttle | None = None
_shared_lock = threading.Lock()


def shared_throttle(interval: float) -> Throttle:
    """The process-wide arXiv throttle, its interval set to `interval` (Settings.arxiv_delay_seconds)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = Throttle(interval)
        else:
            # There is one Settings per process; updating keeps tests that vary the delay honest.
            _shared.interval = interval
        return _shared


def backoff_seconds(base: float, attempt: int) -> float:
    """The pause before retry number `attempt` (1, 2, ...) after a 429/5xx that named no Retry-After: doubling."""
    return base * 2 ** (attempt - 1)


def retry_after_seconds(value: str | None, *, now: dt.datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or an HTTP date: 0 for a date already past); None when
    absent or unreadable (a negative number of seconds too)."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        return seconds if math.isfinite(seconds) and seconds >= 0 else None  # delta-seconds are never negative
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    current = now or dt.datetime.now(dt.UTC)
    return max(0.0, (when - current).total_seconds())
