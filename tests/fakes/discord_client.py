"""Run the real discord.py client against `DiscordFake`: point its two documented-by-source class attributes at the
fake, log in, connect, and wait for READY; close on the way out."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator

import discord
import discord.gateway
import discord.http
import yarl

from tests.fakes.discord_server import DiscordFake


@contextlib.contextmanager
def pointed_at(fake: DiscordFake) -> Iterator[None]:
    """Make discord.py's REST base and gateway the fake's for the duration, then restore them."""
    old_base = discord.http.Route.BASE
    old_gateway = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    discord.http.Route.BASE = fake.api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(fake.gateway_url)
    try:
        yield
    finally:
        discord.http.Route.BASE = old_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = old_gateway


@contextlib.asynccontextmanager
async def running(client: discord.Client, fake: DiscordFake, ready_within: float = 10.0) -> AsyncIterator[None]:
    """Log `client` in to the fake, connect its gateway and wait until it is ready; close it afterwards.

    A failure of the connection task (e.g. a refused IDENTIFY) is raised here instead of a ready timeout.
    """
    with pointed_at(fake):
        await client.login(fake.token)
        task = asyncio.create_task(client.connect(reconnect=False), name="discord-connect")
        ready = asyncio.create_task(client.wait_until_ready())
        try:
            done, _ = await asyncio.wait({task, ready}, timeout=ready_within, return_when=asyncio.FIRST_COMPLETED)
            if task in done:
                task.result()
                raise RuntimeError("the client's connection ended before READY")
            if ready not in done:
                raise TimeoutError(f"the client was not ready within {ready_within} s")
            yield
        finally:
            ready.cancel()
            await client.close()
            with contextlib.suppress(asyncio.CancelledError, discord.ConnectionClosed):
                await asyncio.wait_for(task, 10)
