"""One writer per archive: a lock on the state directory held by every command that writes papers or vectors.

The embedded Chroma store does not survive two processes writing it at once, so `paperscout run`, `ingest`, `demo`,
`db --repair` and `db --refresh-vectors` take an exclusive `flock` on ``PAPERSCOUT_HOME/writer.lock`` and write who
holds it (pid, command, since when) into the file. A second writer is told that in one line (or waits, with
`wait=True`); readers (ask, search, digest) take it only for a moment, to store the vectors a ranking embedded
(`vector_writes_if_free`: after embedding them, without waiting), and store none while another process holds it.
A process that writes vectors without a command's hold (the console's first load, `eval`) takes it for each write
and waits out such a moment (`vector_writes(past_readers=True)`): the reader's store ends in a moment, and failing
half-way through would leave the rest for a later run.
The kernel drops the lock when its holder dies, so a crash never leaves the archive locked.

Within one process the lock is shared: a block that needs it while the process holds it joins that hold, and the
lock is given back when its last user ends (not when the one that took it does), so no write runs unlocked.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import fcntl
import json
import os
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from bot.errors import StateError

if TYPE_CHECKING:  # only for type hints: `paperscout --help` need not load pydantic
    from bot.config import Settings

LOCK_FILE = "writer.lock"
WAIT_POLL_SECONDS = 0.5
HOLDER_RECORD_WAIT_SECONDS = 2.0
READER_WAIT_SECONDS = 300.0  # the longest a write waits for a reader storing its ranking's vectors (a day: seconds)
VECTOR_WRITER = "storing vectors"  # the holder named while a reader stores the vectors its ranking embedded


@dataclass(slots=True)
class _Hold:
    """The writer lock this process holds on one home: the open file that holds it and how many blocks use it."""

    handle: TextIO
    users: int = 1


_holds: dict[Path, _Hold] = {}  # by lock file: a second flock of this process's own would fail, so blocks join


def _holder_record(path: Path) -> dict[str, object]:
    """The record the lock's holder writes just after taking it (pid, command, since), waiting a moment for it: a
    holder that has only just taken the lock has not written it yet. Empty when none can be read."""
    deadline = time.monotonic() + HOLDER_RECORD_WAIT_SECONDS
    while True:
        try:
            data = json.loads(path.read_text(encoding="utf-8") or "{}")
        except (OSError, ValueError):
            data = {}
        if not isinstance(data, dict):
            data = {}
        if "pid" in data or time.monotonic() >= deadline:
            return data
        time.sleep(0.02)


def _described(record: dict[str, object]) -> str:
    """A holder's record as the refusal names it."""
    if not record:
        return "another process"
    return f"pid {record.get('pid', '?')} ({record.get('command', '?')}, since {record.get('since', '?')})"


def _holder(path: Path) -> str:
    """Who holds the lock (`_holder_record`), as the refusal names it."""
    return _described(_holder_record(path))


def _lock_path(settings: Settings) -> Path:
    return (settings.home / LOCK_FILE).absolute()


def _take(path: Path, command: str) -> bool:
    """Take the lock at `path` for this process without waiting, writing who holds it; False when it is taken
    (by another process, or by this one under another command: a command never joins)."""
    handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held open until the last user gives the lock back
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        return False
    try:
        since = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        handle.seek(0)
        handle.truncate()
        handle.write(json.dumps({"pid": os.getpid(), "command": command, "since": since}))
        handle.flush()
    except BaseException:
        handle.close()
        raise
    _holds[path] = _Hold(handle)
    return True


def _join_or_take(path: Path, command: str) -> bool:
    """One more user of the lock at `path`: joining this process's hold, or taking it without waiting."""
    hold = _holds.get(path)
    if hold is not None:
        hold.users += 1
        return True
    return _take(path, command)


def _give_back(path: Path) -> None:
    """One user of the lock at `path` is done; the last one releases it (closing the file releases the flock)."""
    hold = _holds[path]
    hold.users -= 1
    if hold.users == 0:
        del _holds[path]
        hold.handle.close()


def _refusal(settings: Settings, holder: str) -> StateError:
    return StateError(
        f"the archive in {settings.home} is being written by {holder}; run this again when it is done, or add --wait"
    )


@contextlib.contextmanager
def hold_archive(settings: Settings, command: str, *, wait: bool = False) -> Iterator[None]:
    """Hold the archive's writer lock for the block; StateError naming the holder when it is taken (unless `wait`).

    Blocks with `time.sleep` while it names the holder or waits: a command takes it before its work starts, when
    nothing else runs on its event loop."""
    settings.home.mkdir(parents=True, exist_ok=True)
    path = _lock_path(settings)
    while not _take(path, command):
        if not wait:
            raise _refusal(settings, _holder(path))
        time.sleep(WAIT_POLL_SECONDS)
    try:
        yield
    finally:
        _give_back(path)


def holds_archive(settings: Settings) -> bool:
    """Whether this process holds the archive's writer lock now (`paperscout run`, `ingest`, `hold_archive`)."""
    return _lock_path(settings) in _holds


@contextlib.asynccontextmanager
async def vector_writes(settings: Settings, *, past_readers: bool = False) -> AsyncIterator[None]:
    """Let the block write the archive's vectors: under the writer lock this process holds, or takes now for the block
    without waiting; StateError naming the holder when another process holds it (that process is the writer). With
    `past_readers`, a reader storing what its ranking embedded (`VECTOR_WRITER`) is waited for instead (up to
    `READER_WAIT_SECONDS`). The holder is read off the event loop: its record may take a moment to be written."""
    path, deadline = _lock_path(settings), time.monotonic() + READER_WAIT_SECONDS
    while True:
        async with vector_writes_if_free(settings) as free:
            if free:
                yield
                return
        record = await asyncio.to_thread(_holder_record, path)
        if not past_readers or record.get("command") != VECTOR_WRITER or time.monotonic() >= deadline:
            raise _refusal(settings, _described(record))
        await asyncio.sleep(WAIT_POLL_SECONDS)


@contextlib.asynccontextmanager
async def vector_writes_if_free(settings: Settings) -> AsyncIterator[bool]:
    """Whether the block may write the archive's vectors (`vector_writes`), never waiting and never naming a holder:
    True under the lock this process holds or has just taken, False while another process holds it."""
    settings.home.mkdir(parents=True, exist_ok=True)
    path = _lock_path(settings)
    if not _join_or_take(path, VECTOR_WRITER):
        yield False
        return
    try:
        yield True
    finally:
        _give_back(path)
