"""`paperscout doctor` over real HTTP on 127.0.0.1: the fakes of OpenAI, Discord, Telegram and arXiv, a real
Chroma server, and state directories that cannot be written. One line per check; exit 0 only when all is well."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.cli import main
from bot.config import Settings
from bot.core import open_core
from bot.embeddings.embedder import LocalEmbedder
from bot.models import Paper
from bot.ops.heartbeat import HEARTBEAT_FILE, STALE_SECONDS, beat
from bot.store.migrations import LATEST_VERSION
from bot.store.vectors import chroma_client
from tests.chroma_run import free_port
from tests.conftest import StoreDay
from tests.fakes.arxiv_server import FakeArxiv
from tests.fakes.discord_server import DiscordFake
from tests.fakes.openai_server import TEST_API_KEY, FakeOpenAI
from tests.fakes.slack_server import SlackFake
from tests.fakes.telegram_server import TEST_TOKEN, FakeTelegram, Fault


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    """No PAPERSCOUT_* variable, and a user home under tmp_path (the default state directory lives there)."""
    for name in list(os.environ):
        if name.startswith("PAPERSCOUT_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    return monkeypatch


@pytest.fixture
def online(env: pytest.MonkeyPatch, fake_arxiv: FakeArxiv) -> pytest.MonkeyPatch:
    """`env` with arXiv's RSS and API on the fake: checks that are not --offline never leave 127.0.0.1."""
    point_at(env, **fake_arxiv.settings_overrides())
    return env


def doctor(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    """Run `paperscout doctor ARGS` in this process; its exit code and printed lines."""
    code = main(["doctor", *args])
    return code, capsys.readouterr().out.splitlines()


def fails(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("FAIL")]


def line_of(lines: list[str], check: str) -> str:
    return next(line for line in lines if line[6:].startswith(f"{check}:"))


def point_at(env: pytest.MonkeyPatch, **settings: object) -> None:
    for name, value in settings.items():
        env.setenv(f"PAPERSCOUT_{name.upper()}", str(value))


# --- a fresh install ---


def test_a_fresh_install_without_configuration_lists_what_is_optional_and_exits_0(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, lines = doctor(capsys, "--offline")
    assert code == 0, lines
    assert fails(lines) == []
    home = tmp_path / "user" / ".local" / "share" / "paperscout"
    assert (
        line_of(lines, "state directory")
        == f"OK    state directory: {home} does not exist yet; the first run creates it"
    )
    assert line_of(lines, "database").startswith(f"OK    database: none yet; the first run creates {home}")
    assert "sha256 53aa51172d14... verified" in line_of(lines, "embedding model")
    for optional in ("LLM", "Discord", "Telegram"):
        assert line_of(lines, optional).startswith(f"--    {optional}: not configured (optional)")
    assert line_of(lines, "arXiv") == "skip  arXiv: RSS feed and API not asked (--offline)"
    assert lines[-1].startswith("doctor: all is well")
    assert not home.exists()  # doctor only reads: nothing created


def test_everything_configured_and_answering_is_all_ok_and_no_secret_is_printed(
    env: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    fake_openai: FakeOpenAI,
    fake_telegram: FakeTelegram,
    fake_arxiv: FakeArxiv,
) -> None:
    with DiscordFake() as discord, SlackFake() as slack:
        point_at(
            env,
            slack_bot_token=slack.bot_token,
            slack_app_token=slack.app_token,
            slack_api_url=slack.api_url,
            home=tmp_path / "home",
            llm_base_url=fake_openai.base_url,
            llm_api_key=TEST_API_KEY,
            discord_token=discord.token,
            discord_api_url=discord.api_base,
            telegram_token=TEST_TOKEN,
            telegram_base_url=fake_telegram.url,
            **fake_arxiv.settings_overrides(),
        )
        code, lines = doctor(capsys)
        assert [r.endpoint for r in discord.requests] == ["login"]
    assert code == 0, lines
    assert all(line.startswith("OK") for line in lines[:-1]), lines
    assert "token accepted: bot paperscout" in line_of(lines, "Discord")
    assert "token accepted: @" in line_of(lines, "Telegram")
    assert line_of(lines, "Slack") == "OK    Slack: token accepted: paperscout in Fake Lab"
    assert line_of(lines, "LLM").startswith(f"OK    LLM: {fake_openai.base_url} answered with model")
    assert "OK    arXiv RSS" in "\n".join(lines) and "OK    arXiv API" in "\n".join(lines)
    [chat] = fake_openai.chat_requests()
    assert chat.body is not None and chat.body["max_tokens"] == 1  # one token, not a real request's worth
    printed = "\n".join(lines)
    for secret in (TEST_API_KEY, TEST_TOKEN, discord.token, TEST_TOKEN.split(":")[1], slack.bot_token, slack.app_token):
        assert secret not in printed


def test_what_a_service_answers_is_printed_without_escape_sequences(
    online: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with FakeTelegram(bot_username="evil\x1b]0;owned\x07\x1b[2Jbot\nFAIL  forged line") as telegram:
        point_at(online, home=tmp_path / "home", telegram_token=TEST_TOKEN, telegram_base_url=telegram.url)
        code, lines = doctor(capsys)
    assert code == 0, lines
    assert line_of(lines, "Telegram").startswith("OK    Telegram: token accepted: @evilbot FAIL  forged line (id ")
    assert not [line for line in lines if "\x1b" in line or "\x07" in line]


def test_a_reader_that_stops_early_gets_no_error_line(env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # `paperscout doctor | head -3`: the pipe closes while doctor still prints; that is no error to report
    point_at(env, home=tmp_path / "home")
    read_end, write_end = os.pipe()
    os.close(read_end)  # closed before doctor prints its first line (it needs a moment to start)
    try:
        done = subprocess.run(
            [str(Path(sys.executable).with_name("paperscout")), "doctor", "--offline"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (141, "")


# --- one problem, one line, exit 1 ---


def test_a_wrong_chroma_url_is_named_in_one_line(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    port = free_port()  # nothing listens there
    point_at(env, home=tmp_path / "home", chroma_url=f"http://127.0.0.1:{port}")
    code, lines = doctor(capsys, "--offline")
    assert code == 1
    assert fails(lines) == [
        f"FAIL  vector store: Chroma server http://127.0.0.1:{port}: cannot be reached (all connection attempts"
        " failed); fix: start it (docker compose up -d chroma) or correct PAPERSCOUT_CHROMA_URL"
    ]


def test_a_chroma_url_that_is_no_chroma_server_is_named(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    point_at(env, home=tmp_path / "home", chroma_url=fake_openai.url)
    code, lines = doctor(capsys, "--offline")
    assert code == 1
    [failure] = fails(lines)
    assert "answered HTTP 401 to /api/v2/heartbeat: not a Chroma server" in failure


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("localhost:8000", "is 'localhost:8000', not an http:// or https:// URL"),
        ("http://127.0.0.1:99999", "is 'http://127.0.0.1:99999': its port is not a number from 1 to 65535"),
        ("http://:8000", "is 'http://:8000': it names no host"),
        ("http://user:pw@chroma:8000/api/v2", "has a path (/api/v2), which the Chroma client ignores"),
    ],
)
def test_a_malformed_chroma_url_is_named_before_anything_is_asked(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, url: str, problem: str
) -> None:
    point_at(env, home=tmp_path / "home", chroma_url=url)
    code, lines = doctor(capsys, "--offline")
    assert code == 1
    [failure] = fails(lines)
    assert failure.startswith(f"FAIL  vector store: PAPERSCOUT_CHROMA_URL {problem}")
    assert failure.endswith("fix: correct PAPERSCOUT_CHROMA_URL (compose sets http://chroma:8000)")
    assert "pw" not in failure


def test_malformed_service_urls_are_named_by_their_setting(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    point_at(
        env,
        home=tmp_path / "home",
        llm_base_url="localhost:11434/v1",
        telegram_token=TEST_TOKEN,
        telegram_base_url="api.telegram.org",
        discord_token="a.discord.token",
        discord_api_url="https://discord.com:0x1/api",
        arxiv_rss_url="rss.arxiv.org/rss/",
        arxiv_api_url="ftp://export.arxiv.org/api/query",
        arxiv_delay_seconds=0,
    )
    code, lines = doctor(capsys)  # not --offline: still nothing is asked, the URLs are wrong before any request
    assert code == 1
    assert [line.split(";")[0] for line in fails(lines)] == [
        "FAIL  LLM: PAPERSCOUT_LLM_BASE_URL is 'localhost:11434/v1', not an http:// or https:// URL",
        "FAIL  Discord: PAPERSCOUT_DISCORD_API_URL is 'https://discord.com:0x1/api': its port is not a number from 1"
        " to 65535",
        "FAIL  Telegram: PAPERSCOUT_TELEGRAM_BASE_URL is 'api.telegram.org', not an http:// or https:// URL",
        "FAIL  arXiv RSS: PAPERSCOUT_ARXIV_RSS_URL is 'rss.arxiv.org/rss/cs.LG', not an http:// or https:// URL",
        "FAIL  arXiv API: PAPERSCOUT_ARXIV_API_URL is 'ftp://export.arxiv.org/api/query', not an http:// or https://"
        " URL",
    ]


@pytest.mark.parametrize("token", ["abc\u00e9def123", "Bot abcdef123456", "abc\x7fdef123"])
def test_a_token_no_platform_issues_is_named_without_a_request(
    online: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, token: str
) -> None:
    with DiscordFake() as discord:
        point_at(online, home=tmp_path / "home", discord_token=token, discord_api_url=discord.api_base)
        for args in ((), ("--offline",)):  # a local check: --offline makes it too
            code, lines = doctor(capsys, *args)
            assert code == 1
            assert fails(lines) == [
                "FAIL  Discord: PAPERSCOUT_DISCORD_TOKEN holds spaces or characters no token has (copied with"
                " surrounding text?); fix: copy the bot token again from the Developer Portal (your application >"
                " Bot > Reset Token)"
            ]
        assert discord.requests == []


@pytest.mark.parametrize("token", ['"123456789:AAEtokentokentoken"', "'123456789:AAEtokentokentoken'"])
def test_a_token_in_quotes_an_env_file_kept_is_named_without_a_request(
    online: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, token: str
) -> None:
    """`docker run --env-file` keeps the quotes of TOKEN="...": the platform refuses the token, offline said skip."""
    point_at(online, home=tmp_path / "home", telegram_token=token, telegram_base_url="http://127.0.0.1:9")
    code, lines = doctor(capsys, "--offline")
    assert code == 1
    assert fails(lines) == [
        "FAIL  Telegram: PAPERSCOUT_TELEGRAM_TOKEN is in quotes, which are read as part of the token (docker run"
        " --env-file keeps them); fix: write PAPERSCOUT_TELEGRAM_TOKEN=TOKEN without quotes"
    ]
    assert "AAEtoken" not in "\n".join(lines)


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ({"telegram_token": "@paperscout_lab_bot"}, "PAPERSCOUT_TELEGRAM_TOKEN does not look like a bot token"),
        (
            {"telegram_webhook_url": "http://bot.example.org/telegram"},
            "PAPERSCOUT_TELEGRAM_WEBHOOK_URL is 'http://bot.example.org/telegram': Telegram posts only to an https://",
        ),
        ({"telegram_webhook_url": "bot.example.org/telegram"}, "Telegram posts only to an https:// URL"),
        ({"telegram_webhook_url": "https://bot.example.org/telegram"}, ""),
    ],
)
def test_a_telegram_token_or_webhook_url_telegram_would_refuse_is_named_offline(
    online: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    setting: dict[str, str],
    expected: str,
) -> None:
    """--offline said "skip" for both; `paperscout run` then failed at Telegram's getMe or setWebhook."""
    point_at(online, home=tmp_path / "home", telegram_token="123456789:AAEtokentokentoken")
    point_at(online, **setting)
    code, lines = doctor(capsys, "--offline")
    line = line_of(lines, "Telegram")
    if expected:
        assert line.startswith("FAIL  Telegram: ") and expected in line and code == 1, line
    else:
        assert line.startswith("skip  Telegram: token not checked") and code == 0, line


def _immutable(path: Path) -> bool:
    """Make `path` unwritable even for root (chattr +i); False when the file system or privileges do not allow it."""
    if os.geteuid() != 0:
        path.chmod(0o555)
        return True
    done = subprocess.run(["chattr", "+i", str(path)], capture_output=True, check=False)
    if done.returncode != 0:
        return False
    try:
        (path / "probe").touch()
    except PermissionError:
        return True
    (path / "probe").unlink()
    return False


@pytest.mark.parametrize("kind", ["read-only directory", "a file", "under a file", "a dangling link"])
def test_an_unwritable_home_is_named_in_one_line(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, kind: str
) -> None:
    if kind == "read-only directory":
        home = tmp_path / "home"
        home.mkdir()
        if not _immutable(home):
            pytest.skip("running as root where chattr +i is not permitted: no way to make a directory unwritable")
        expected = f"{home} is not writable ("
    elif kind == "a file":
        home = tmp_path / "home"
        home.write_text("not a directory")
        expected = f"{home} is a file, not a directory"
    elif kind == "a dangling link":  # doctor said OK ("does not exist yet"); the first run cannot create it
        home = tmp_path / "home"
        home.symlink_to(tmp_path / "gone")
        expected = f"{home} is a link to {tmp_path / 'gone'}, which does not exist"
    else:
        (tmp_path / "file").write_text("")
        home = tmp_path / "file" / "home"
        expected = f"{home} cannot be created: {tmp_path / 'file'} is a file"
    point_at(env, home=home)
    try:
        code, lines = doctor(capsys, "--offline")
    finally:
        if kind == "read-only directory" and os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(home)], check=True)
    assert code == 1
    [failure] = [line for line in fails(lines) if line.startswith("FAIL  state directory")]
    assert expected in failure
    if "file" in kind:  # chown/chmod cannot make a file a folder (it said so)
        assert failure.endswith("fix: move the file away, or set PAPERSCOUT_HOME to a writable directory")
    else:
        assert "fix: make" in failure and "writable" in failure


def test_a_bad_telegram_token_is_refused_like_telegram_does(
    online: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_telegram: FakeTelegram
) -> None:
    wrong = "987654321:AAWrongTokenWrongTokenWrongToken00"
    point_at(online, home=tmp_path / "home", telegram_token=wrong, telegram_base_url=fake_telegram.url)
    code, lines = doctor(capsys)
    assert code == 1
    assert fails(lines) == [
        "FAIL  Telegram: Telegram refused PAPERSCOUT_TELEGRAM_TOKEN (HTTP 401 Unauthorized); fix: copy the token"
        " again from @BotFather (/mybots > your bot > API Token)"
    ]
    assert [c.status for c in fake_telegram.requests] == [401]
    assert wrong not in "\n".join(lines) and "AAWrongToken" not in "\n".join(lines)


def test_a_platform_busy_or_down_is_a_warning_that_it_cannot_tell(
    online: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_telegram: FakeTelegram
) -> None:
    """Telegram answering getMe with a 503 neither accepts nor refuses the token: doctor warns that it cannot tell
    (WARN, exit 0, counted on the last line) instead of failing a token that may be right."""
    point_at(online, home=tmp_path / "home", telegram_token=TEST_TOKEN, telegram_base_url=fake_telegram.url)
    fake_telegram.enqueue(Fault.server_error(503, "Service Unavailable").on("getMe"))
    code, lines = doctor(capsys)
    assert line_of(lines, "Telegram") == (
        f"WARN  Telegram: {fake_telegram.url} answered HTTP 503 (busy or down): cannot tell whether the token works;"
        " fix: run paperscout doctor again later"
    )
    assert lines[-1].startswith("doctor: nothing failed; 1 warning worth a look (the WARN lines)"), lines
    assert code == 0, lines


def test_a_bad_discord_token_is_refused_like_discord_does(
    online: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with DiscordFake() as discord:
        point_at(online, home=tmp_path / "home", discord_token="not-the-token", discord_api_url=discord.api_base)
        code, lines = doctor(capsys, "--offline")
        assert discord.requests == []  # --offline asks nobody
        assert line_of(lines, "Discord").startswith("skip  Discord: token not checked")
        code, lines = doctor(capsys)
        assert discord.invalid_requests == 1
    assert code == 1
    assert fails(lines) == [
        "FAIL  Discord: Discord refused PAPERSCOUT_DISCORD_TOKEN (HTTP 401 Unauthorized); fix: copy the bot token"
        " again from the Developer Portal (your application > Bot > Reset Token)"
    ]


def test_a_bad_llm_key_is_named_without_echoing_it(
    online: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    point_at(online, home=tmp_path / "home", llm_base_url=fake_openai.base_url, llm_api_key="sk-wrong-key-123456")
    code, lines = doctor(capsys, "--offline")
    assert code == 0 and fake_openai.requests == []
    code, lines = doctor(capsys)
    assert code == 1
    [failure] = fails(lines)
    assert failure == (
        f"FAIL  LLM: LLM endpoint {fake_openai.base_url} refused the API key (HTTP 401); fix: check"
        " PAPERSCOUT_LLM_API_KEY"
    )
    assert "sk-wrong-key" not in "\n".join(lines)  # the fake echoes the key in its error body, as some servers do


def test_a_user_in_the_llm_url_and_an_api_key_are_a_setting_to_correct_even_offline(
    online: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    url = fake_openai.base_url.replace("http://", "http://bob:hunter22pass@")
    point_at(online, home=tmp_path / "home", llm_base_url=url, llm_api_key=TEST_API_KEY)
    for args in (["--offline"], []):
        code, lines = doctor(capsys, *args)
        assert code == 1
        [failure] = fails(lines)
        assert failure.startswith("FAIL  LLM: PAPERSCOUT_LLM_BASE_URL carries a user name and password"), failure
        assert "is the server up" not in failure and "fix: remove PAPERSCOUT_LLM_API_KEY" in failure, failure
        assert "hunter22pass" not in "\n".join(lines) and TEST_API_KEY not in "\n".join(lines)
    assert fake_openai.requests == []


def test_an_unreachable_arxiv_is_named_per_endpoint(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_arxiv: FakeArxiv
) -> None:
    port = free_port()
    point_at(
        env,
        home=tmp_path / "home",
        arxiv_rss_url=f"http://127.0.0.1:{port}/rss/",
        arxiv_api_url=fake_arxiv.api_url,
        arxiv_delay_seconds=0,
    )
    code, lines = doctor(capsys)
    assert code == 1
    assert fails(lines) == [
        f"FAIL  arXiv RSS: http://127.0.0.1:{port}/rss/cs.LG cannot be reached (all connection attempts failed);"
        " fix: check the network and PAPERSCOUT_ARXIV_RSS_URL"
    ]
    assert line_of(lines, "arXiv API").startswith("OK")


def test_a_misspelt_setting_is_named_with_the_setting_meant(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    point_at(env, home=tmp_path / "home", telegram_tokn="123:abc")
    code, lines = doctor(capsys, "--offline")
    assert code == 1
    assert fails(lines) == [
        "FAIL  configuration: unknown setting PAPERSCOUT_TELEGRAM_TOKN (did you mean PAPERSCOUT_TELEGRAM_TOKEN?):"
        " ignored by paperscout; fix: rename or remove it (deploy/.env.example lists every setting)"
    ]


def test_an_invalid_setting_stops_the_checks_with_one_line(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    point_at(env, categories="cs.ML")
    code, lines = doctor(capsys, "--offline")
    assert code == 1
    assert len(lines) == 1 and lines[0].startswith(
        "FAIL  configuration: invalid setting categories (PAPERSCOUT_CATEGORIES):"
    )


# --- the archive: schema and vectors ---


async def _stored(settings: Settings, embedder: LocalEmbedder, store_day: StoreDay) -> list[Paper]:
    async with open_core(settings, embedder) as core:
        return await store_day(core)


def test_a_consistent_archive_passes_and_a_lost_vector_is_named(
    env: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    embedder: LocalEmbedder,
    store_day: StoreDay,
) -> None:
    settings = Settings(home=tmp_path / "home")
    papers = asyncio.run(_stored(settings, embedder, store_day))
    point_at(env, home=settings.home)
    code, lines = doctor(capsys, "--offline")
    assert code == 0, lines
    assert line_of(lines, "database") == (
        f"OK    database: {settings.db_path}: schema version {LATEST_VERSION} (current), {len(papers)} papers"
    )
    assert f"has one vector per paper ({len(papers)})" in line_of(lines, "vector store")

    chroma_client(settings).get_collection(settings.chroma_collection).delete(ids=[papers[0].id])
    code, lines = doctor(capsys, "--offline")
    assert code == 1
    assert fails(lines) == [
        f"FAIL  vector store: embedded store {settings.chroma_path}: collection 'papers' does not match the database:"
        f" no vector for 1 paper (e.g. {papers[0].id}); fix: run paperscout db --repair (with the bot"
        " stopped): it embeds the missing papers again"
    ]


def test_a_stored_time_zone_or_time_that_is_invalid_fails_doctor(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    settings = Settings(home=tmp_path / "home")

    async def store() -> None:
        from bot.models import Target
        from bot.store.connection import open_database
        from bot.store.repos import Repository
        from tests.run_harness import PROFILE

        conn = await open_database(settings.db_path)
        try:
            target = Target("discord", "42", "lab", post_time="25:99", timezone="Mars/Olympus_Mons")
            await Repository(conn).save_profile("discord:42", PROFILE)
            await Repository(conn).save_target(target, "discord:42")
        finally:
            await conn.close()

    asyncio.run(store())
    point_at(env, home=settings.home)
    code, lines = doctor(capsys, "--offline")
    assert code == 1
    assert line_of(lines, "digest schedules") == (
        "FAIL  digest schedules: discord:42: time zone 'Mars/Olympus_Mons' is unknown, so UTC is used;"
        " discord:42: post time '25:99' is not a time like 09:00, so 09:00 is used;"
        " fix: set the digest's time again (/setup, or /digest for a personal digest)"
    )


def test_a_database_from_a_newer_paperscout_is_named(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    with contextlib.closing(sqlite3.connect(home / "paperscout.sqlite3")) as conn:
        conn.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
    point_at(env, home=home)
    code, lines = doctor(capsys, "--offline")
    assert code == 1
    assert fails(lines) == [
        f"FAIL  database: {home / 'paperscout.sqlite3'} is at schema version {LATEST_VERSION + 1}, newer than this"
        f" paperscout ({LATEST_VERSION}); fix: upgrade paperscout to the version that wrote it"
    ]


def test_a_chroma_server_is_checked_against_the_database(
    env: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    chroma_server: str,
    embedder: LocalEmbedder,
    store_day: StoreDay,
) -> None:
    settings = Settings(home=tmp_path / "home", chroma_url=chroma_server)
    point_at(env, home=settings.home, chroma_url=chroma_server, chroma_collection="empty")
    code, lines = doctor(capsys, "--offline")  # nothing stored yet: an absent collection is fine
    assert code == 0 and "collection 'empty' is created by the first ingest" in line_of(lines, "vector store")

    papers = asyncio.run(_stored(settings, embedder, store_day))
    code, lines = doctor(capsys, "--offline")  # papers stored, but this collection is not theirs
    assert code == 1
    assert fails(lines) == [
        f"FAIL  vector store: Chroma server {chroma_server} has no collection 'empty' but the database holds"
        f" {len(papers)} papers; fix: check PAPERSCOUT_CHROMA_URL and PAPERSCOUT_CHROMA_COLLECTION; if right, run"
        " paperscout db --refresh-vectors"
    ]
    env.delenv("PAPERSCOUT_CHROMA_COLLECTION")
    code, lines = doctor(capsys, "--offline")
    assert code == 0, lines
    assert line_of(lines, "vector store") == (
        f"OK    vector store: Chroma server {chroma_server}: collection 'papers' has one vector per paper"
        f" ({len(papers)})"
    )


# --- --running: the container healthcheck ---


def test_running_checks_the_heartbeat_of_paperscout_run(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    point_at(env, home=home)
    code, lines = doctor(capsys, "--running")
    assert code == 1 and len(lines) == 1 and lines[0].startswith(f"FAIL  paperscout run: no heartbeat in {home}")

    beat(home)
    code, lines = doctor(capsys, "--running")
    assert code == 0 and lines[0].startswith(f"OK    paperscout run: pid {os.getpid()} alive")

    beat(home, dt.datetime.now(dt.UTC) - dt.timedelta(seconds=STALE_SECONDS + 60))
    code, lines = doctor(capsys, "--running")
    assert code == 1 and "its event loop is stuck" in lines[0]

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    (home / HEARTBEAT_FILE).write_text(
        f'{{"pid": {int(gone.stdout)}, "at": "{dt.datetime.now(dt.UTC).isoformat()}"}}', encoding="utf-8"
    )
    code, lines = doctor(capsys, "--running")
    assert code == 1 and f"(pid {int(gone.stdout)}) is gone" in lines[0]


@pytest.mark.parametrize(
    "content",
    ['{"pid": 0, "at": "2026-01-01T00:00:00+00:00"}', '{"pid": -1, "at": "NOW"}', '{"pid": 1, "at": "NAIVE"}', "{"],
)
def test_a_heartbeat_file_paperscout_run_did_not_write_is_no_heartbeat(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    now = dt.datetime.now(dt.UTC)
    content = content.replace("NOW", now.isoformat()).replace("NAIVE", now.replace(tzinfo=None).isoformat())
    (home / HEARTBEAT_FILE).write_text(content, encoding="utf-8")
    point_at(env, home=home)
    code, lines = doctor(capsys, "--running")
    assert code == 1 and lines == [
        f"FAIL  paperscout run: no heartbeat in {home}: paperscout run is not running with this state directory;"
        " fix: start it (paperscout run), or point PAPERSCOUT_HOME at its state directory"
    ]


async def test_paperscout_run_beats_on_start(tmp_path: Path, embedder: LocalEmbedder) -> None:
    from bot.ops.runner import run_until_stopped

    nowhere = "http://127.0.0.1:9"  # the start-up look at arXiv fails at once, offline
    settings = Settings(
        home=tmp_path / "home", arxiv_rss_url=f"{nowhere}/rss/", arxiv_api_url=f"{nowhere}/api", arxiv_delay_seconds=0
    )
    stop = asyncio.Event()
    async with open_core(settings, embedder) as core:
        running = asyncio.create_task(run_until_stopped(core, settings, stop))
        deadline = time.monotonic() + 20
        while not (settings.home / HEARTBEAT_FILE).exists():
            assert time.monotonic() < deadline, "no heartbeat within 20 s of start"
            await asyncio.sleep(0.05)
        stop.set()
        assert await running == 0
    text = (settings.home / HEARTBEAT_FILE).read_text(encoding="utf-8")
    assert f'"pid": {os.getpid()}' in text


def test_a_secret_in_the_config_file_fails_doctor_naming_the_variable_and_not_the_value(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = tmp_path / "paperscout.toml"
    config.write_text('telegram_token = "123456:file-secret"\n', encoding="utf-8")
    point_at(env, home=tmp_path / "home", config=config)
    code, lines = doctor(capsys, "--offline")
    assert code == 1
    assert lines == [
        f"FAIL  configuration: {config} holds the secret telegram_token, which paperscout reads only from the"
        " environment: delete it from the file and set PAPERSCOUT_TELEGRAM_TOKEN instead; fix: set"
        " PAPERSCOUT_TELEGRAM_TOKEN in the environment (the .env file, chmod 600, or the service's EnvironmentFile)"
    ]
    assert "file-secret" not in capsys.readouterr().err
