"""The console channel: digests and replies printed to a terminal (or any text stream)."""

from __future__ import annotations

import sys
from typing import TextIO

from bot.models import Digest, Target
from bot.render import digest_markdown


class ConsolePoster:
    """A `Poster` that writes Markdown to a stream; the offline stand-in for a chat platform."""

    platform = "console"

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stdout
        self.sent = 0

    async def post_digest(self, target: Target, digest: Digest) -> list[str]:
        """Print the digest as Markdown."""
        return await self.send_text(target, digest_markdown(digest))

    async def send_text(self, target: Target, text: str) -> list[str]:
        """Print `text` with a separator line naming the target."""
        self.sent += 1
        self.stream.write(f"--- to {target.key} ---\n{text.rstrip()}\n")
        self.stream.flush()
        return [f"console-{self.sent}"]
