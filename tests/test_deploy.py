"""Deployment files: generated from Settings, valid for their tools, referring only to what exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot import config_docs
from bot.config import Settings

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
SETTINGS_ENV = {row.env for row in config_docs.setting_rows()}


def _example_assignments() -> dict[str, str]:
    text = (DEPLOY / ".env.example").read_text(encoding="utf-8")
    return dict(re.findall(r"^# (PAPERSCOUT_[A-Z0-9_]+)=(.*)$", text, flags=re.MULTILINE))


def test_env_example_is_generated_from_settings() -> None:
    committed = (DEPLOY / ".env.example").read_text(encoding="utf-8")
    assert committed == config_docs.render_env_example(), (
        "deploy/.env.example is stale: run `python -m bot.config_docs --write` and commit it"
    )


def test_env_example_lists_every_setting_once_and_nothing_else() -> None:
    text = (DEPLOY / ".env.example").read_text(encoding="utf-8")
    named = re.findall(r"^# (PAPERSCOUT_[A-Z0-9_]+)=", text, flags=re.MULTILINE)
    assert sorted(named) == sorted(SETTINGS_ENV)
    assert len(named) == len(set(named)) == len(Settings.model_fields)


def test_env_example_defaults_uncommented_load_as_the_defaults(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # Uncommenting any line as it stands must be valid and change nothing.
    for env in SETTINGS_ENV:
        monkeypatch.delenv(env, raising=False)
    monkeypatch.delenv("PAPERSCOUT_CONFIG", raising=False)
    defaults = Settings(home=tmp_path)
    for env, value in _example_assignments().items():
        if value:
            monkeypatch.setenv(env, value)
    from_example = Settings(home=tmp_path)
    assert from_example.model_dump() == defaults.model_dump()


def test_setting_rows_mark_secrets_and_keep_machine_defaults_in_words() -> None:
    rows = {row.env: row for row in config_docs.setting_rows()}
    secrets = {env for env, row in rows.items() if row.secret}
    assert secrets == {"PAPERSCOUT_LLM_API_KEY", "PAPERSCOUT_DISCORD_TOKEN", "PAPERSCOUT_TELEGRAM_TOKEN"}
    assert rows["PAPERSCOUT_CATEGORIES"].default == "cs.LG,cs.AI"
    assert rows["PAPERSCOUT_LLM_TLDRS"].default == "true"
    assert rows["PAPERSCOUT_CHROMA_URL"].default == ""
    assert "/" not in rows["PAPERSCOUT_HOME"].default.split("(")[0]  # words, not this machine's path
