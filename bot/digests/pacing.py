"""Pacing of sends per chat, for every front end whose platform limits how fast a bot may write.

A platform's own client library rarely spaces messages to one chat, and an overall limit kept as a leaky bucket
lets a burst through that the platform answers with 429 during a digest's fan-out. `ChatPacer.turn(chat)` waits
until a chat may get its next message: `interval` seconds after the previous one, for group chats (as the front
end's `is_group` tells) no more than `group_per_minute` in any 60 seconds, and overall sends evenly spaced at
`overall_per_second` per `OVERALL_WINDOW_SECONDS`. Waiting for its own spacing holds only that chat: other chats go
on.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Hashable
from contextlib import asynccontextmanager

GROUP_WINDOW_SECONDS = 60.0
OVERALL_WINDOW_SECONDS = 1.05  # a little over a second, for the same jitter reason as the per-chat interval


class ChatPacer:
    """Per-chat spacing of messages (see the module docstring)."""

    def __init__(
        self,
        interval: float = 1.05,
        group_per_minute: int = 20,
        overall_per_second: int = 30,
        clock: Callable[[], float] = time.monotonic,
        is_group: Callable[[Hashable], bool] = lambda chat: False,
    ) -> None:
        """`interval` a little over 1 s, so network jitter never makes two sends arrive closer than a second."""
        self.interval = interval
        self.group_per_minute = group_per_minute
        self.overall_per_second = overall_per_second
        self._clock = clock
        self._is_group = is_group
        self._locks: dict[Hashable, asyncio.Lock] = {}
        self._sent: dict[Hashable, deque[float]] = {}
        self._overall_lock = asyncio.Lock()
        self._last_start = float("-inf")

    @asynccontextmanager
    async def turn(self, chat_id: Hashable) -> AsyncIterator[None]:
        """Hold the chat's turn: wait until it may get a message, send inside the block, and the send is counted."""
        lock = self._locks.setdefault(chat_id, asyncio.Lock())
        async with lock:
            await asyncio.sleep(self.wait_seconds(chat_id))
            await self._overall_slot()
            try:
                yield
            finally:
                self._note(chat_id)

    async def _overall_slot(self) -> None:
        """Wait for the next overall slot: sends start evenly spaced, `OVERALL_WINDOW_SECONDS / overall_per_second`
        apart, never in bursts (a burst's arrivals spread by network jitter into the next second and get 429)."""
        if self.overall_per_second <= 0:
            return
        spacing = OVERALL_WINDOW_SECONDS / self.overall_per_second
        async with self._overall_lock:
            wait = self._last_start + spacing - self._clock()
            if wait > 0:
                await asyncio.sleep(wait)
            self._last_start = self._clock()

    def wait_seconds(self, chat_id: Hashable) -> float:
        """How long the next message to `chat_id` must wait from now."""
        sent = self._sent.get(chat_id)
        if not sent:
            return 0.0
        now = self._clock()
        wait = sent[-1] + self.interval - now
        if self.group_per_minute > 0 and self._is_group(chat_id):
            while sent and sent[0] <= now - GROUP_WINDOW_SECONDS:
                sent.popleft()
            if len(sent) >= self.group_per_minute:
                wait = max(wait, sent[-self.group_per_minute] + GROUP_WINDOW_SECONDS - now)
        return max(0.0, wait)

    def _note(self, chat_id: Hashable) -> None:
        sent = self._sent.setdefault(chat_id, deque())
        sent.append(self._clock())
        keep = max(self.group_per_minute, 1)
        while len(sent) > keep:
            sent.popleft()
