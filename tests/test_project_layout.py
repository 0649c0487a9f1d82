"""The project's required top-level layout, and Discord's cogs where discord.py projects keep them."""

from __future__ import annotations

import importlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_required_top_level_parts_exist() -> None:
    """pyproject.toml, bot/, cogs/, prompts/, tests/ and deploy/ are the layout the project promises."""
    assert (ROOT / "pyproject.toml").is_file()
    for part in ("bot", "cogs", "prompts", "tests", "deploy"):
        assert (ROOT / part).is_dir(), part


def test_discord_loads_every_cog_of_the_cogs_package() -> None:
    """Each module of `cogs/` is a discord.py extension the Discord client loads, and it loads nothing else."""
    from bot.frontends.discord.app import COGS

    modules = sorted(f"cogs.{path.stem}" for path in (ROOT / "cogs").glob("*.py") if path.stem != "__init__")
    assert sorted(COGS) == modules and modules
    for name in modules:
        assert callable(importlib.import_module(name).setup)
