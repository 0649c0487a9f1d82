"""A write-ahead note of every digest message the moment a platform accepts it.

Recording a sent message in SQLite waits its turn behind everything else the process asks of the database, and a
crash in that wait would send the message again after a restart. So delivery first appends one line to this
journal (an `O_APPEND` write: no lock, no queue, and it survives the process being killed, because it is in the
kernel's page cache as soon as `write` returns), then records the message in the ledger. On the next delivery the
journal's lines count as sent too; once the ledger has them the journal is emptied.
"""

from __future__ import annotations

import datetime as dt
import os
import threading
from pathlib import Path

JOURNAL_FILE = "sent-messages.journal"


class SentJournal:
    """Lines of 'target_id day seq message_id', appended as messages go out."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._fd: int | None = None

    def _open(self) -> int:
        if self._fd is None:
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        return self._fd

    def note(self, target_id: int, day: dt.date, seq: int, message_id: str) -> None:
        """Append that message `seq` of (target, day) went out as `message_id` (one write call)."""
        line = f"{target_id} {day.isoformat()} {seq} {message_id.replace(' ', '_')}\n".encode()
        with self._lock:
            os.write(self._open(), line)

    def entries(self) -> list[tuple[int, dt.date, int, str]]:
        """Every complete line: (target id, day, position, message id)."""
        try:
            text = self.path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return []
        found = []
        for line in text.splitlines():
            parts = line.split(" ")
            if len(parts) == 4 and parts[0].isdigit() and parts[2].isdigit():
                try:
                    found.append((int(parts[0]), dt.date.fromisoformat(parts[1]), int(parts[2]), parts[3]))
                except ValueError:  # a line torn by a crash
                    continue
        return found

    def sent(self, target_id: int, day: dt.date) -> dict[int, str]:
        """The messages of (target, day) noted as sent: position -> message id."""
        return {seq: mid for tid, d, seq, mid in self.entries() if tid == target_id and d == day}

    def clear(self) -> None:
        """Empty the journal (everything in it is in the ledger)."""
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
            self.path.unlink(missing_ok=True)

    def close(self) -> None:
        """Close the file."""
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
