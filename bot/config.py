"""The one Settings object. Built once at start-up (`load_settings`) and passed to whatever needs it.

Every field can be set from the environment with the `PAPERSCOUT_` prefix (``PAPERSCOUT_HOME=/srv/ps``),
or, but for secrets, from a TOML file named by ``PAPERSCOUT_CONFIG``. The environment wins over the file.
Secrets are `SecretStr`: read only from the environment (a file naming one, or holding a URL with a password, is
refused: `SecretInConfigFile`), they print as ``**********`` and are only unwrapped where they are used.
"""

from __future__ import annotations

import difflib
import os
import re
import typing
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from platformdirs import user_data_dir
from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from bot.errors import ConfigError
from bot.ingest.taxonomy import validate_category
from bot.models import DIGEST_SIZE, MAX_DIGEST_SIZE


class SecretInConfigFile(ConfigError):
    """The PAPERSCOUT_CONFIG file names a secret (a token, a key): secrets are read only from the environment."""

    def __init__(self, config_file: Path, keys: list[str]) -> None:
        self.variables = list(dict.fromkeys(f"PAPERSCOUT_{key.upper().removeprefix('PAPERSCOUT_')}" for key in keys))
        several = len(keys) > 1
        super().__init__(
            f"{config_file} holds the secret{'s' if several else ''} {', '.join(keys)}, which paperscout reads only"
            f" from the environment: delete {'them' if several else 'it'} from the file and set"
            f" {' and '.join(self.variables)} instead"
        )


def is_secret(annotation: object) -> bool:
    """Whether a field's type is (or holds) a `SecretStr`."""
    return annotation is SecretStr or any(is_secret(arg) for arg in typing.get_args(annotation))


def _default_home() -> Path:
    return Path(user_data_dir("paperscout", appauthor=False))


def _default_prompts_dir() -> Path:
    # A source checkout (or editable install) has prompts/ next to bot/; an installed package does not, so the
    # working directory's prompts/ is next (the Docker image runs from /app, which holds them).
    beside = Path(__file__).resolve().parents[1] / "prompts"
    here = Path.cwd() / "prompts"
    return beside if beside.is_dir() or not here.is_dir() else here


class Settings(BaseSettings):
    """Everything paperscout can be configured with; field descriptions double as documentation."""

    # An empty variable is an unset one: `PAPERSCOUT_HOME=` uncommented from deploy/.env.example keeps the default
    # (not the working directory), and an empty token disables its platform instead of failing its login.
    model_config = SettingsConfigDict(
        env_prefix="PAPERSCOUT_", extra="forbid", validate_default=True, env_ignore_empty=True
    )

    # --- state ---
    home: Path = Field(default_factory=_default_home, description="State directory: SQLite file and Chroma data.")
    chroma_url: str | None = Field(
        default=None, description="URL of a Chroma server (http://host:8000); unset = embedded store under home."
    )
    chroma_collection: str = Field(default="papers", description="Chroma collection holding paper vectors.")
    sentence_vectors: bool = Field(
        default=True,
        description="Embed each paper's title and abstract sentences apart at ingest and keep them (SQLite, ~7 KB a"
        " paper): one-line interests are matched by the sentence that states them, and questions and searches offer"
        " a paper one of whose sentences states their topic in other words. Off: about half the embedding time, and"
        " both read the whole-paper vector alone.",
    )

    # --- arXiv ---
    categories: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: ["cs.LG", "cs.AI"], description="arXiv categories ingested every announcement day."
    )
    arxiv_rss_url: str = Field(default="https://rss.arxiv.org/rss/", description="Base URL of arXiv's RSS feeds.")
    arxiv_api_url: str = Field(
        default="https://export.arxiv.org/api/query", description="arXiv API endpoint for backfill and by-id lookups."
    )
    arxiv_delay_seconds: float = Field(
        default=3.0, ge=0.0, description="Pause between arXiv requests; arXiv asks for at least 3 s."
    )
    http_timeout_seconds: float = Field(default=30.0, gt=0, description="Timeout for one HTTP request.")

    # --- embeddings ---
    embed_batch_size: int = Field(default=32, ge=1, le=1024, description="Texts embedded per model call.")
    embed_threads: int = Field(default=0, ge=0, description="Torch CPU threads for the local model; 0 = all cores.")

    # --- digest ---
    digest_size: int = Field(
        default=DIGEST_SIZE, ge=1, le=MAX_DIGEST_SIZE, description="Papers per digest unless a target says otherwise."
    )
    rerank_profiles: bool = Field(
        default=True,
        description="Put the 100 best papers of a member's one-line interests in the order of the learned re-ranker"
        " (bot/ranking/rerank.py, weights fitted on the open labelled profiles), in the digest, /why and the site"
        " alike. Off: the cold-start score's own order.",
    )
    followup_minutes: int = Field(
        default=120,
        ge=0,
        description="How long a question's filters and citations stay available to follow-ups; 0 = no follow-ups.",
    )

    # --- LLM (optional; without a key paperscout ranks and summarises locally) ---
    llm_base_url: str | None = Field(
        default=None,
        description="OpenAI-compatible endpoint, e.g. http://localhost:11434/v1. A query (?api-version=...) is sent"
        " with every request; user:password@ is sent as Basic auth to a proxy (then set no API key; a URL with a"
        " password is a secret, read only from the environment).",
    )
    llm_api_key: SecretStr | None = Field(default=None, description="API key for the LLM endpoint.")
    llm_model: str = Field(default="gpt-4o-mini", description="Model name sent to the endpoint.")
    llm_timeout_seconds: float = Field(default=60.0, gt=0, description="Timeout for one LLM request.")
    llm_max_retries: int = Field(default=3, ge=0, le=10, description="Retries on 429/5xx/timeouts per request.")
    llm_price_prompt_per_mtok: float = Field(default=0.15, ge=0, description="USD per million prompt tokens.")
    llm_price_completion_per_mtok: float = Field(default=0.60, ge=0, description="USD per million completion tokens.")
    llm_daily_budget_usd: float = Field(default=1.0, ge=0, description="Daily LLM spend cap; past it, local ranking.")
    llm_shortlist_size: int = Field(
        default=180,
        ge=1,
        le=2000,
        description="Papers the local ranker hands to the LLM for scoring; 180 keeps >= 90% of the reference picks"
        " on every shared day (bench/llm_tokens.py).",
    )
    llm_score_batch_size: int = Field(
        default=90,
        ge=1,
        le=200,
        description="Papers scored per LLM request (~36 prompt + 30 reply tokens each, plus ~600 for instructions"
        " and profile); a request too long for a small local model's context is split automatically.",
    )
    llm_tldrs: bool = Field(
        default=True, description="Write one-line TL;DRs with the LLM for papers that make a digest (else extractive)."
    )
    llm_parse_questions: bool = Field(
        default=False,
        description="Parse each question into filters with the LLM too (one short call; the rules take over on any"
        " failure or doubtful reply). Off: the rules alone, which meet the question benchmarks.",
    )
    prompts_dir: Path = Field(
        default_factory=_default_prompts_dir,
        description="Folder with the prompt templates (score.md, tldr.md, answer.md, question.md), checked at"
        " start-up when an LLM is set;"
        " default: the prompts/ folder of the source tree, else ./prompts.",
    )

    # --- chat platforms ---
    ask_cooldown_seconds: float = Field(
        default=2.0,
        ge=0,
        description="Least time between an answer and its member's next question in one place, on every front end"
        " (0: none); a question sooner, or while their previous one is being answered, is told when to ask again.",
    )
    discord_token: SecretStr | None = Field(default=None, description="Discord bot token.")
    discord_api_url: str = Field(
        default="https://discord.com/api/v10",
        description="Discord REST API base (a local fake in tests); discord.py's Route.BASE.",
    )
    discord_gateway_url: str = Field(
        default="wss://gateway.discord.gg/",
        description="Discord gateway websocket (a local fake in tests); discord.py's DiscordWebSocket.DEFAULT_GATEWAY.",
    )
    telegram_token: SecretStr | None = Field(default=None, description="Telegram bot token from @BotFather.")
    telegram_base_url: str = Field(
        default="https://api.telegram.org",
        description="Telegram Bot API server root (a self-hosted telegram-bot-api server, or a local fake in tests);"
        " the bot path /bot<token>/ and the file path /file/bot<token>/ are appended.",
    )
    telegram_chat_interval_seconds: float = Field(
        default=1.05, ge=0, description="Least time between two messages to one Telegram chat (Telegram: about 1 s)."
    )
    telegram_group_per_minute: int = Field(
        default=20, ge=1, description="Most messages to one Telegram group or channel in any minute (Telegram: 20)."
    )
    telegram_overall_per_second: int = Field(
        default=30, ge=1, description="Most messages the Telegram bot sends in any second, to all chats (Telegram: 30)."
    )
    telegram_max_retries: int = Field(
        default=3, ge=0, le=10, description="Retries after Telegram's 429 flood control, waiting its retry_after."
    )
    telegram_webhook_url: str | None = Field(
        default=None,
        description="Public HTTPS URL Telegram posts updates to (webhook mode, e.g. behind a reverse proxy);"
        " unset: long polling.",
    )
    telegram_webhook_listen: str = Field(
        default="127.0.0.1", description="Address the webhook server listens on (the proxy forwards to it)."
    )
    telegram_webhook_port: int = Field(default=8443, ge=1, le=65535, description="Port of the webhook server.")
    telegram_poll_timeout_seconds: int = Field(
        default=30, ge=0, le=50, description="Long-polling timeout of getUpdates (seconds held open by Telegram)."
    )
    slack_bot_token: SecretStr | None = Field(
        default=None,
        description="Slack bot token (xoxb-...) of your Slack app; with the app token, runs the Slack bot.",
    )
    slack_app_token: SecretStr | None = Field(
        default=None,
        description="Slack app-level token (xapp-..., scope connections:write) for Socket Mode: no public URL needed.",
    )
    slack_api_url: str = Field(
        default="https://slack.com/api/", description="Slack Web API base (a local fake in tests)."
    )
    slack_channel_interval_seconds: float = Field(
        default=1.05, ge=0, description="Least time between two messages to one Slack channel (Slack: about 1 s)."
    )

    # --- paperscout run ---
    catchup_hours: float = Field(
        default=6.0,
        ge=0,
        le=48,
        description="A digest whose post time passed while paperscout was down goes out on start if it is at most"
        " this many hours late; older ones are skipped and logged.",
    )

    # --- logs ---
    log_level: str | None = Field(
        default=None,
        description="Logging level: DEBUG, INFO, WARNING or ERROR. Unset: INFO for paperscout run (one line per job"
        " run and per chat command), WARNING for other commands (INFO with -v).",
    )
    log_format: Literal["text", "json"] = Field(
        default="text",
        description="Log line format on stderr: text, or json (one JSON object per line with time, level, logger,"
        " message and fields such as event, command, job, target, duration_ms, outcome). Secrets are masked in both.",
    )

    @field_validator("home", "prompts_dir", mode="after")
    @classmethod
    def _expand_home(cls, value: Path) -> Path:
        return value.expanduser()

    @field_validator("log_level", mode="before")
    @classmethod
    def _known_level(cls, value: Any) -> Any:
        if isinstance(value, str):
            if not value.strip():
                return None
            value = value.strip().upper()
            if value not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
                raise ValueError(f"{value!r} is not a logging level; use DEBUG, INFO, WARNING or ERROR")
        return value

    @field_validator("log_format", mode="before")
    @classmethod
    def _lower_format(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("categories", mode="before")
    @classmethod
    def _split_categories(cls, value: Any) -> Any:
        if isinstance(value, str):  # "cs.LG,cs.AI", also as arXiv's feed URLs join them (+), ';' or a JSON list
            return [c for c in re.split(r"[\s,;+\[\]\"']+", value) if c]
        return value

    @field_validator("categories", mode="after")
    @classmethod
    def _known_categories(cls, value: list[str]) -> list[str]:
        # arXiv answers an unknown category with an empty feed, which would look like a quiet day
        codes = [validate_category(c) for c in value]
        if not codes:
            raise ValueError("at least one arXiv category is needed")
        return list(dict.fromkeys(codes))

    @property
    def db_path(self) -> Path:
        """The SQLite database file."""
        return self.home / "paperscout.sqlite3"

    @property
    def chroma_path(self) -> Path:
        """The embedded Chroma directory (unused when `chroma_url` is set)."""
        return self.home / "chroma"

    @property
    def llm_enabled(self) -> bool:
        """An LLM is used only when an endpoint or key is configured."""
        return bool(self.llm_base_url or self.llm_api_key)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        config_file = os.environ.get("PAPERSCOUT_CONFIG")
        if config_file:
            sources.append(_ConfigFile(settings_cls, toml_file=Path(config_file)))
        return tuple(sources)


class _ConfigFile(TomlConfigSettingsSource):
    """The TOML file named by PAPERSCOUT_CONFIG: any setting but a secret (a token, a key, or a URL holding a
    password: a proxy's user:password@)."""

    def _read_file(self, file_path: Any) -> dict[str, Any]:
        data = super()._read_file(file_path)
        secrets = {name for name, field in Settings.model_fields.items() if is_secret(field.annotation)}
        # a key as a field's name, or the variable's copied from the environment file: a secret either way
        named = [
            str(key)
            for key, value in data.items()
            if str(key).lower().removeprefix("paperscout_") in secrets or _holds_password(value)
        ]
        if named:
            data.clear()  # no value of the file is kept, nor shown in the error
            raise SecretInConfigFile(Path(file_path), named)
        return data


def _holds_password(value: object) -> bool:
    """Whether a setting's value is a URL with a password in it (``https://user:password@host``)."""
    if not isinstance(value, str) or "@" not in value:
        return False
    try:
        return urlsplit(value.strip()).password is not None
    except ValueError:  # not a URL urllib can read: nothing of it is sent as credentials either
        return False


def load_settings(**overrides: Any) -> Settings:
    """Build Settings from the environment (and PAPERSCOUT_CONFIG), raising `ConfigError` with one clear line."""
    config_file = os.environ.get("PAPERSCOUT_CONFIG")
    if config_file and not Path(config_file).is_file():
        raise ConfigError(f"PAPERSCOUT_CONFIG points to a missing file: {config_file}")
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = first.get("loc", ())
        where = ".".join(str(p) for p in loc) or "settings"
        if first.get("type") == "extra_forbidden":  # only a TOML file can name a field that does not exist
            key = str(loc[0]).lower().removeprefix("paperscout_") if loc else ""  # the variable's name, copied
            close = difflib.get_close_matches(key, list(Settings.model_fields), n=1) if key else []
            guess = f" (did you mean {close[0]}?)" if close else ""
            raise ConfigError(f"unknown setting {where} in {config_file}{guess}") from None
        if loc and loc[0] in Settings.model_fields:  # name the variable too: that is what the user wrote
            where += f" ({Settings.model_config.get('env_prefix', '')}{str(loc[0]).upper()})"
        message = str(first.get("msg", "")).removeprefix("Value error, ")  # pydantic's prefix for our ValueErrors
        given = first.get("input")
        field = Settings.model_fields.get(str(loc[0])) if loc else None
        secret = field is not None and is_secret(field.annotation)
        if isinstance(given, str) and given and not secret and given.lower() not in message.lower():  # what was written
            message += f" (it is {given[:60]!r})"
        raise ConfigError(f"invalid setting {where}: {message}") from None
    except ValueError as exc:  # TOML decode errors surface as ValueError
        raise ConfigError(f"cannot read settings: {exc}") from None
