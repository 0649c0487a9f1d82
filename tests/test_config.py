"""Settings from the environment: categories are checked against arXiv's taxonomy before anything runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import load_settings
from bot.errors import ConfigError


def test_categories_from_the_environment_become_canonical_codes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERSCOUT_CATEGORIES", "cs.lg, stat.ml cs.LG")
    assert load_settings().categories == ["cs.LG", "stat.ML"]


@pytest.mark.parametrize("value", ["cs.LG;cs.AI", "cs.LG+cs.AI", '["cs.LG", "cs.AI"]', "'cs.LG', 'cs.AI'"])
def test_categories_written_as_arxiv_urls_or_a_list_are_read_as_two(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    """They were "'cs.LG;cs.AI': not an arXiv category": an admin copying arXiv's cs.LG+cs.AI, or a JSON list."""
    monkeypatch.setenv("PAPERSCOUT_CATEGORIES", value)
    assert load_settings().categories == ["cs.LG", "cs.AI"]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (
            "cs.ML",
            r"^invalid setting categories \(PAPERSCOUT_CATEGORIES\): 'cs\.ML': not an arXiv category;"
            r" did you mean stat\.ML",
        ),
        (" , ", "at least one arXiv category is needed"),
    ],
)
def test_an_unknown_category_stops_start_up_with_suggestions(
    monkeypatch: pytest.MonkeyPatch, value: str, message: str
) -> None:
    monkeypatch.setenv("PAPERSCOUT_CATEGORIES", value)
    with pytest.raises(ConfigError, match=message):
        load_settings()


def test_a_misspelt_key_in_the_config_file_is_named_with_the_setting_meant(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    config = tmp_path / "paperscout.toml"
    config.write_text('chroma_ur = "http://localhost:8000"\n', encoding="utf-8")
    monkeypatch.setenv("PAPERSCOUT_CONFIG", str(config))
    with pytest.raises(ConfigError) as raised:
        load_settings()
    assert str(raised.value) == f"unknown setting chroma_ur in {config} (did you mean chroma_url?)"


def test_an_environment_variable_name_in_the_config_file_is_told_its_field_name(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The file takes field names; PAPERSCOUT_DIGEST_SIZE copied from deploy/.env.example was named with no hint."""
    config = tmp_path / "paperscout.toml"
    config.write_text("PAPERSCOUT_DIGEST_SIZE = 5\n", encoding="utf-8")
    monkeypatch.setenv("PAPERSCOUT_CONFIG", str(config))
    with pytest.raises(ConfigError) as raised:
        load_settings()
    assert str(raised.value) == f"unknown setting PAPERSCOUT_DIGEST_SIZE in {config} (did you mean digest_size?)"


@pytest.mark.parametrize(
    ("variable", "value", "said"),
    [
        ("PAPERSCOUT_CATCHUP_HOURS", "6h", "valid number, unable to parse string as a number (it is '6h')"),
        ("PAPERSCOUT_DIGEST_SIZE", "500", "less than or equal to 50 (it is '500')"),
    ],
)
def test_an_invalid_value_is_quoted_back_so_the_typo_shows(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, said: str
) -> None:
    """ "Input should be a valid number" named the setting but not what was written (an env file with several)."""
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigError) as raised:
        load_settings()
    assert str(raised.value).endswith(said)
