"""The README's generated parts stay true: the settings table matches `Settings`, the diagram names real modules."""

from __future__ import annotations

import re

from bot.config import Settings
from bot.config_docs import README, TABLE_END, TABLE_START, readme_with_table, render_settings_table


def test_the_settings_table_in_the_readme_is_up_to_date() -> None:
    readme = README.read_text(encoding="utf-8")
    assert readme.count(TABLE_START) == 1 and readme.count(TABLE_END) == 1
    assert readme_with_table(readme) == readme, "stale: run `python -m bot.config_docs --readme` and commit README.md"


def test_the_table_has_one_row_per_setting_with_secrets_marked() -> None:
    rows = render_settings_table().splitlines()[2:]
    assert [row.split("`")[1] for row in rows] == [f"PAPERSCOUT_{name.upper()}" for name in Settings.model_fields]
    secret = {row.split("`")[1] for row in rows if "**Secret**" in row}
    assert secret == {
        "PAPERSCOUT_LLM_API_KEY",
        "PAPERSCOUT_DISCORD_TOKEN",
        "PAPERSCOUT_TELEGRAM_TOKEN",
        "PAPERSCOUT_SLACK_BOT_TOKEN",
        "PAPERSCOUT_SLACK_APP_TOKEN",
    }
    # text that Markdown would swallow is escaped: /bot<token>/ stays visible
    assert "/bot&lt;token&gt;/" in render_settings_table()


def test_a_changed_description_makes_the_readme_stale() -> None:
    readme = README.read_text(encoding="utf-8")
    start, end = readme.index(TABLE_START), readme.index(TABLE_END)
    edited = readme[:start] + readme[start:end].replace("State directory", "Where state lives") + readme[end:]
    assert edited != readme and readme_with_table(edited) == readme


def test_the_architecture_diagram_names_modules_that_exist() -> None:
    readme = README.read_text(encoding="utf-8")
    diagram = re.search(r"```mermaid\n(.*?)```", readme, re.S)
    assert diagram is not None, "How it works has a mermaid diagram"
    paths = set(re.findall(r"\b((?:bot|cogs)/[\w/]*\w)", diagram.group(1)))
    assert {"bot/ingest", "bot/questions/rag", "bot/chat"} <= paths
    root = README.parent
    missing = [p for p in paths if not (root / p).exists() and not (root / f"{p}.py").exists()]
    assert not missing, missing
