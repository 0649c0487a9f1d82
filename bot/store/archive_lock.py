"""One writer per archive: a lock on the state directory held by every command that writes papers or vectors.

The embedded Chroma store does not survive two processes writing it at once, so `paperscout run`, `ingest`, `demo`,
`db --repair` and `db --refresh-vectors` take an exclusive `flock` on ``PAPERSCOUT_HOME/writer.lock`` and write who
holds it (pid, command, since when) into the file. A second writer is told that in one line (or waits, with
`wait=True`); readers (ask, search, digest) take it only for a moment, to store the vectors a ranking found missing
(`vector_writes`), and store none while another process holds it. The kernel drops the lock when its holder dies,
so a crash never leaves the archive locked.
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
VECTOR_WRITER = "storing vectors"  # the holder named while a reader stores the vectors its ranking embedded

_held: set[Path] = set()  # the homes whose writer lock this process holds (a second flock of its own would fail)


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


def _lock_path(settings: Settings) -> Path:
    return (settings.home / LOCK_FILE).absolute()


@contextlib.contextmanager
def hold_archive(settings: Settings, command: str, *, wait: bool = False) -> Iterator[None]:
    """Hold the archive's writer lock for the block; StateError naming the holder when it is taken (unless `wait`)."""
    settings.home.mkdir(parents=True, exist_ok=True)
    path = _lock_path(settings)
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
        _held.add(path)
        try:
            yield
        finally:
            _held.discard(path)
    finally:
        handle.close()  # closing the file releases the lock


def holds_archive(settings: Settings) -> bool:
    """Whether this process holds the archive's writer lock now (`paperscout run`, `ingest`, `hold_archive`)."""
    return _lock_path(settings) in _held


@contextlib.contextmanager
def vector_writes(settings: Settings) -> Iterator[None]:
    """Let the block write the archive's vectors: under the writer lock this process holds, or takes now for the block
    without waiting; StateError naming the holder when another process holds it (that process is the writer)."""
    if holds_archive(settings):
        yield
        return
    with hold_archive(settings, VECTOR_WRITER):
        yield
