"""A running `paperscout run` proves it is alive by rewriting ``PAPERSCOUT_HOME/heartbeat`` on its event loop.

A process can be up while its event loop is stuck; a container or service manager asking "is it alive?" wants
to know the loop still turns. The scheduler rewrites the file every `HEARTBEAT_SECONDS` (pid and time);
`paperscout doctor --running` reads it: a file older than `STALE_SECONDS`, or one whose process is gone, is a
bot that is not running.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from dataclasses import dataclass
from pathlib import Path

HEARTBEAT_FILE = "heartbeat"
HEARTBEAT_SECONDS = 30
STALE_SECONDS = 4 * HEARTBEAT_SECONDS  # a few missed beats: a busy machine delays a beat, it does not skip three


def beat(home: Path, now: dt.datetime | None = None) -> None:
    """Write this process's heartbeat (pid and UTC time), replacing the file at once."""
    moment = (now or dt.datetime.now(dt.UTC)).astimezone(dt.UTC)
    path = home / HEARTBEAT_FILE
    partial = path.with_suffix(".tmp")
    partial.write_text(json.dumps({"pid": os.getpid(), "at": moment.isoformat()}), encoding="utf-8")
    partial.replace(path)


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """The last heartbeat found in a state directory."""

    pid: int
    at: dt.datetime

    def age_seconds(self, now: dt.datetime | None = None) -> float:
        """Seconds since the beat."""
        return ((now or dt.datetime.now(dt.UTC)) - self.at).total_seconds()


def last_beat(home: Path) -> Heartbeat | None:
    """The heartbeat in `home`, or None when there is none (never started, or unreadable: not one that `beat`
    wrote, such as a pid of 0 or below, which `os.kill` reads as a process group, or a time without its zone)."""
    try:
        data = json.loads((home / HEARTBEAT_FILE).read_text(encoding="utf-8"))
        found = Heartbeat(pid=int(data["pid"]), at=dt.datetime.fromisoformat(data["at"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return found if found.pid > 0 and found.at.tzinfo is not None else None


def process_exists(pid: int) -> bool:
    """Whether a process with `pid` exists (on this machine, or in this container)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by another user
        return True
    return True
