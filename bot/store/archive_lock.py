"""One writer per archive: a lock on the state directory held by every command that writes papers or vectors.

The embedded Chroma store does not survive two processes writing it at once, so `paperscout run`, `ingest`, `demo`,
`db --repair` and `db --refresh-vectors` take an exclusive `flock` on ``PAPERSCOUT_HOME/writer.lock`` and write who
holds it (pid, command, since when) into the file. A second writer is told that in one line (or waits, with
`wait=True`); readers (ask, search, digest) never take it. The kernel drops the lock when its holder dies, so a
crash never leaves the archive locked.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from bot.errors import StateError

if TYPE_CHECKING:  # only for type hints: `paperscout --help` need not load pydantic
    from bot.config import Settings

LOCK_FILE = "writer.lock"
WAIT_POLL_SECONDS = 0.5
HOLDER_RECORD_WAIT_SECONDS = 2.0


def _holder(path: Path) -> str:
    """Who holds the lock, from the record it writes just after taking it (waiting a moment for that record: a
    holder that has only just taken the lock has not written it yet)."""
    deadline = time.monotonic() + HOLDER_RECORD_WAIT_SECONDS
    while True:
        try:
            data = json.loads(path.read_text(encoding="utf-8") or "{}")
        except (OSError, ValueError):
            data = {}
        if "pid" in data or time.monotonic() >= deadline:
            break
        time.sleep(0.02)
    if not data:
        return "another process"
    return f"pid {data.get('pid', '?')} ({data.get('command', '?')}, since {data.get('since', '?')})"


@contextlib.contextmanager
def hold_archive(settings: Settings, command: str, *, wait: bool = False) -> Iterator[None]:
    """Hold the archive's writer lock for the block; StateError naming the holder when it is taken (unless `wait`)."""
    settings.home.mkdir(parents=True, exist_ok=True)
    path = settings.home / LOCK_FILE
    handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held open for the whole block
    try:
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if not wait:
                    raise StateError(
                        f"the archive in {settings.home} is being written by {_holder(path)}; "
                        "run this again when it is done, or add --wait"
                    ) from None
                time.sleep(WAIT_POLL_SECONDS)
        since = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        handle.seek(0)
        handle.truncate()
        handle.write(json.dumps({"pid": os.getpid(), "command": command, "since": since}))
        handle.flush()
        yield
    finally:
        handle.close()  # closing the file releases the lock
