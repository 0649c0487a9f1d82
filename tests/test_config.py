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


@pytest.mark.parametrize("key", ["discord_token", "PAPERSCOUT_LLM_API_KEY", "SLACK_APP_TOKEN"])
def test_a_secret_in_the_config_file_is_refused_naming_its_environment_variable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture, key: str
) -> None:
    """Secrets come only from the environment: a token in the TOML file was read (and the file may be committed)."""
    config = tmp_path / "paperscout.toml"
    config.write_text(f'digest_size = 5\n{key} = "s3cret-value-in-the-file"\n', encoding="utf-8")
    monkeypatch.setenv("PAPERSCOUT_CONFIG", str(config))
    variable = "PAPERSCOUT_" + key.upper().removeprefix("PAPERSCOUT_")
    with pytest.raises(ConfigError) as raised:
        load_settings()
    said = str(raised.value)
    assert "\n" not in said and said.startswith(f"{config} holds the secret {key}, ")
    assert said.endswith(f"set {variable} instead") and "environment" in said
    assert "s3cret" not in said and "s3cret" not in caplog.text


def test_without_a_secret_the_config_file_is_read_and_the_secret_comes_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    config = tmp_path / "paperscout.toml"
    config.write_text("digest_size = 5\n", encoding="utf-8")
    monkeypatch.setenv("PAPERSCOUT_CONFIG", str(config))
    monkeypatch.setenv("PAPERSCOUT_DISCORD_TOKEN", "from-the-environment")
    settings = load_settings()
    assert settings.digest_size == 5 and settings.discord_token is not None
    assert settings.discord_token.get_secret_value() == "from-the-environment"


def test_a_password_inside_a_url_in_the_config_file_is_refused_as_a_secret(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A proxy's user:password@ in the LLM endpoint (the README's way to authenticate to one) is a secret like a
    token: the file is refused naming the variable to set, and the password is never shown. It was read from the
    file, which may be committed."""
    config = tmp_path / "paperscout.toml"
    config.write_text('llm_base_url = "https://bob:hunter2-secret@proxy.example/v1"\n', encoding="utf-8")
    monkeypatch.setenv("PAPERSCOUT_CONFIG", str(config))
    with pytest.raises(ConfigError) as raised:
        load_settings()
    said = str(raised.value)
    assert said.startswith(f"{config} holds the secret llm_base_url, ") and "hunter2" not in said
    assert said.endswith("set PAPERSCOUT_LLM_BASE_URL instead")
    # a URL with a user alone, or a query of no credential, is no secret
    config.write_text('llm_base_url = "https://bob@proxy.example/v1?api-version=2024-06-01"\n', encoding="utf-8")
    assert load_settings().llm_base_url == "https://bob@proxy.example/v1?api-version=2024-06-01"
