"""Stores as an older paperscout left them: the schema objects each migration after a version added, taken out
again, so a test can open such a store and watch it migrate."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bot.store.migrations import LATEST_VERSION

# what each migration added that a store before it lacks, dropped newest first
_ADDED: dict[int, tuple[str, ...]] = {
    13: (
        *(f"DROP TRIGGER papers_generation_{t}" for t in ("insert", "delete", "update")),
        "DROP TABLE papers_generation",
        "DROP TABLE title_words",
    ),
    12: (*(f"DROP TRIGGER papers_words_{t}" for t in ("insert", "delete", "update")), "DROP TABLE papers_words"),
    11: ("DROP TABLE paper_vectors",),
    10: ("DROP TABLE sentence_vectors",),
}


def undo_migrations(db_path: Path, version: int) -> None:
    """Turn the store at `db_path` into one at schema `version`: what the later migrations added is dropped."""
    assert max(_ADDED) == LATEST_VERSION, "a new migration: say in _ADDED what it adds"
    with sqlite3.connect(db_path) as raw:
        for step in range(LATEST_VERSION, version, -1):
            for statement in _ADDED[step]:
                raw.execute(statement)
        raw.execute(f"PRAGMA user_version = {version}")
