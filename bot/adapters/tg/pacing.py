"""Our own pacing of sends per chat, on top of PTB's `AIORateLimiter`.

The limiter keeps the bot under 30 messages/s overall and 20/minute per group, but does not space messages to one
private chat; Telegram asks for at most about one message per second in any chat. `ChatPacer.turn(chat_id)`
waits until a chat may get its next message: `interval` seconds after the previous one, and for groups and
channels (negative chat ids) no more than `group_per_minute` in any 60 seconds. Waiting holds only that chat:
other chats go on.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

GROUP_WINDOW_SECONDS = 60.0


class ChatPacer:
    """Per-chat spacing of messages (see the module docstring)."""

    def __init__(
        self, interval: float = 1.05, group_per_minute: int = 20, clock: Callable[[], float] = time.monotonic
    ) -> None:
        """`interval` a little over 1 s, so network jitter never makes two sends arrive closer than a second."""
        self.interval = interval
        self.group_per_minute = group_per_minute
        self._clock = clock
        self._locks: dict[int, asyncio.Lock] = {}
        self._sent: dict[int, deque[float]] = {}

    @asynccontextmanager
    async def turn(self, chat_id: int) -> AsyncIterator[None]:
        """Hold the chat's turn: wait until it may get a message, send inside the block, and the send is counted."""
        lock = self._locks.setdefault(chat_id, asyncio.Lock())
        async with lock:
            await asyncio.sleep(self.wait_seconds(chat_id))
            try:
                yield
            finally:
                self._note(chat_id)

    def wait_seconds(self, chat_id: int) -> float:
        """How long the next message to `chat_id` must wait from now."""
        sent = self._sent.get(chat_id)
        if not sent:
            return 0.0
        now = self._clock()
        wait = sent[-1] + self.interval - now
        if chat_id < 0 and self.group_per_minute > 0:
            while sent and sent[0] <= now - GROUP_WINDOW_SECONDS:
                sent.popleft()
            if len(sent) >= self.group_per_minute:
                wait = max(wait, sent[-self.group_per_minute] + GROUP_WINDOW_SECONDS - now)
        return max(0.0, wait)

    def _note(self, chat_id: int) -> None:
        sent = self._sent.setdefault(chat_id, deque())
        sent.append(self._clock())
        keep = max(self.group_per_minute, 1)
        while len(sent) > keep:
            sent.popleft()
