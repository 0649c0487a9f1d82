"""Data files shipped inside the package: the demo's real arXiv day and the example profile."""

from __future__ import annotations

import datetime as dt
from importlib import resources
from pathlib import Path

DEMO_DAY = dt.date(2025, 5, 26)
DEMO_DAY_FILE = "arxiv-2025-05-26.jsonl"
EXAMPLE_PROFILE_FILE = "example_profile.toml"


def bundled_file(name: str) -> Path:
    """A data file shipped inside the package (the demo day and the example profile)."""
    return Path(str(resources.files("bot.ingest") / "data" / name))
