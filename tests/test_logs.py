"""Logs: one line per CLI command, chat command and job run; one JSON object per line with PAPERSCOUT_LOG_FORMAT=json;
and never a secret, even when every configured service echoes back the credentials it was sent."""

from __future__ import annotations

import json
import logging
import os
import threading
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from bot.chat.controller import ChatController
from bot.chat.messages import Incoming, Place, Speaker
from bot.chat.turns import logged_turn
from bot.cli import main
from bot.config import Settings
from bot.core import Core
from bot.ingest.bundled import bundled_file
from bot.ops.logs import configure_logging, log_event
from bot.ops.runner import Runner
from bot.ops.scheduler import DigestJobs
from tests.conftest import StoreDay
from tests.fakes.loopback import QuietServer

JSON_KEYS = {"time", "level", "logger", "message"}


def json_lines(err: str) -> list[dict[str, Any]]:
    """Every non-empty stderr line parsed as JSON (fails on the first line that is not one JSON object)."""
    entries = []
    for line in err.splitlines():
        if line.strip():
            entry = json.loads(line)
            assert isinstance(entry, dict) and entry.keys() >= JSON_KEYS, line
            entries.append(entry)
    return entries


def events(entries: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    """The one-per-run lines of one kind: command, chat or job."""
    return [e for e in entries if e.get("event") == kind]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh PAPERSCOUT_HOME, JSON logs at INFO, arXiv pointed at a closed local port."""
    for name in list(os.environ):
        if name.startswith("PAPERSCOUT_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("PAPERSCOUT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PAPERSCOUT_ARXIV_RSS_URL", "http://127.0.0.1:9/rss/")
    monkeypatch.setenv("PAPERSCOUT_ARXIV_API_URL", "http://127.0.0.1:9/api/query")
    monkeypatch.setenv("PAPERSCOUT_ARXIV_DELAY_SECONDS", "0")
    monkeypatch.setenv("PAPERSCOUT_LOG_FORMAT", "json")
    monkeypatch.setenv("PAPERSCOUT_LOG_LEVEL", "INFO")
    return tmp_path / "home"


def small_day(tmp_path: Path, count: int = 8) -> Path:
    """The first `count` papers of the bundled day as a JSONL file."""
    path = tmp_path / "small.jsonl"
    lines = bundled_file("arxiv-2025-05-26.jsonl").read_text(encoding="utf-8").splitlines()[:count]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_each_cli_command_writes_one_json_line(home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = [
        (["ingest", "--jsonl", str(small_day(tmp_path))], 0),
        (["search", "speech", "recognition", "--json"], 0),
        (["db"], 0),
        (["digest", "--profile", str(tmp_path / "missing.toml")], 1),
    ]
    entries = []
    for argv, code in runs:
        assert main(argv) == code
        entries += json_lines(capsys.readouterr().err)  # every line of stderr is one JSON object
    commands = events(entries, "command")
    assert [(e["command"], e["outcome"], e["exit_code"]) for e in commands] == [
        ("ingest", "ok", 0),
        ("search", "ok", 0),
        ("db", "ok", 0),
        ("digest", "error", 1),
    ]
    assert all(isinstance(e["duration_ms"], int) and e["duration_ms"] >= 0 for e in commands)
    assert all(e["level"] == "INFO" and e["logger"] == "paperscout" for e in commands)
    # the failing command's one error line came as a JSON record too, not as loose text
    errors = [e for e in entries if e["level"] == "ERROR"]
    assert len(errors) == 1 and errors[0]["message"].startswith("paperscout: error: ")
    assert "missing.toml" in errors[0]["message"]


def test_text_logs_carry_the_same_fields(home: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    monkeypatch.setenv("PAPERSCOUT_LOG_FORMAT", "text")
    assert main(["db"]) == 0
    lines = [line for line in capsys.readouterr().err.splitlines() if "event=command" in line]
    assert len(lines) == 1
    assert " INFO paperscout: command finished event=command command=db outcome=ok exit_code=0 duration_ms=" in lines[0]


def test_a_text_field_with_a_line_break_stays_on_one_line(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    configure_logging(False, Settings(log_format="text", log_level="INFO"))
    log_event(logging.getLogger("paperscout.test"), "job finished", job="x", detail="one\ntwo\tend")
    [line] = capsys.readouterr().err.splitlines()
    assert line.endswith('job finished job=x detail="one\\ntwo\\tend"')


def test_without_a_level_one_off_commands_stay_quiet(home: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    monkeypatch.delenv("PAPERSCOUT_LOG_LEVEL")
    assert main(["db"]) == 0
    assert capsys.readouterr().err == ""  # a command's result is its output; -v or PAPERSCOUT_LOG_LEVEL add logs
    assert main(["-v", "db"]) == 0
    assert len(events(json_lines(capsys.readouterr().err), "command")) == 1


def test_a_debug_level_leaves_out_the_per_call_sqlite_chatter(home: Path) -> None:
    configure_logging(False, Settings(home=home, log_level="DEBUG"))
    assert logging.getLogger("bot").isEnabledFor(logging.DEBUG)
    assert not logging.getLogger("aiosqlite").isEnabledFor(logging.DEBUG)  # a line per SQLite call otherwise
    assert logging.getLogger("aiosqlite").isEnabledFor(logging.WARNING)


def test_a_bad_log_setting_is_one_error_line(home: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    monkeypatch.setenv("PAPERSCOUT_LOG_LEVEL", "LOUD")
    assert main(["db"]) == 1
    (entry,) = [e for e in json_lines(capsys.readouterr().err) if e["level"] == "ERROR"]
    assert "log_level" in entry["message"] and "not a logging level" in entry["message"]


async def test_each_chat_command_writes_one_line(
    core: Core, store_day: StoreDay, capsys: pytest.CaptureFixture[str]
) -> None:
    await store_day(core)
    configure_logging(False, core.settings.model_copy(update={"log_format": "json", "log_level": "INFO"}))
    controller = ChatController(core)
    dm = Place("telegram", "4242", is_dm=True)
    group = Place("telegram", "-100777", is_dm=False, title="papers")
    member = Speaker("telegram:4242", "Ada")
    turns = [
        Incoming.from_text(member, dm, "/help"),
        Incoming.from_text(member, dm, "/search speech recognition"),
        Incoming.from_text(member, group, "/frobnicate secret plans"),
        Incoming(member, group, button="ps:up:2505.17063"),
        Incoming.from_text(member, group, "/setup"),  # not an admin: refused, still one line
        Incoming.from_text(member, group, "lunch at noon?"),  # channel chatter, not for us: no line
    ]
    for turn in turns:
        await controller.handle(turn)
    await controller.greet(member, dm)
    chat = events(json_lines(capsys.readouterr().err), "chat")
    assert [(e["command"], e["target"], e["outcome"]) for e in chat] == [
        ("/help", "telegram:dm", "ok"),
        ("/search", "telegram:dm", "ok"),
        ("/unknown", "telegram:-100777", "ok"),
        ("button:up", "telegram:-100777", "ok"),
        ("/setup", "telegram:-100777", "ok"),
        ("/start", "telegram:dm", "ok"),
    ]
    assert all(isinstance(e["duration_ms"], int) for e in chat)
    logged = json.dumps(chat)
    # what members typed, and who they are, stays out of the log
    assert "4242" not in logged and "speech" not in logged and "frobnicate" not in logged


def test_a_turn_a_front_end_answers_itself_is_one_line_with_its_outcome(
    core: Core, capsys: pytest.CaptureFixture[str]
) -> None:
    configure_logging(False, core.settings.model_copy(update={"log_format": "json", "log_level": "INFO"}))
    group = Place("discord", "777", is_dm=False, title="#papers")
    with logged_turn("/sync", group):
        pass
    with logged_turn("/sync", group) as outcome:
        outcome.value = "refused"
    with pytest.raises(RuntimeError), logged_turn("/sync", Place("discord", "42", is_dm=True)):
        raise RuntimeError("the sync failed")
    chat = events(json_lines(capsys.readouterr().err), "chat")
    assert [(e["command"], e["target"], e["outcome"]) for e in chat] == [
        ("/sync", "discord:777", "ok"),
        ("/sync", "discord:777", "refused"),
        ("/sync", "discord:dm", "error"),
    ]


async def test_each_job_run_writes_one_line(
    core: Core, settings: Settings, store_day: StoreDay, capsys: pytest.CaptureFixture[str]
) -> None:
    configure_logging(False, settings.model_copy(update={"log_format": "json"}), service=True)
    jobs = DigestJobs(core, {})
    await jobs.tick()
    await jobs.tick()
    runner = Runner(core, {})
    await runner.catch_up_feed()  # arXiv is a closed port here: the catch-up and the feed check both fail
    entries = json_lines(capsys.readouterr().err)
    job_lines = events(entries, "job")
    assert [(e["job"], e["outcome"], e["level"]) for e in job_lines] == [
        ("catch-up", "nothing", "INFO"),
        ("ingest", "failed", "WARNING"),
    ]  # the minute's digest checks that found nothing due log at DEBUG only
    assert "start-up check of the feed" in job_lines[1]["detail"]
    configure_logging(False, settings.model_copy(update={"log_format": "json", "log_level": "DEBUG"}), service=True)
    await jobs.tick()
    [quiet] = events(json_lines(capsys.readouterr().err), "job")
    assert (quiet["job"], quiet["outcome"], quiet["level"], quiet["detail"]) == (
        "digests",
        "nothing",
        "DEBUG",
        "0 sent, 0 failed",
    )
    # back to WARNING before the fixtures close the store: their DEBUG lines (aiosqlite's worker thread) would come
    # after pytest stopped capturing and land in its output
    configure_logging(False)
    assert all(isinstance(e["duration_ms"], int) for e in job_lines)
    # the schedule's own run/finish chatter is left out: one line per run is ours
    assert not [e for e in entries if e["logger"].startswith("apscheduler")]


# --- secrets: every service echoes back what it was sent ---

TELEGRAM_TOKEN = "7654321:AAH-echoedTelegramToken_abcdefghij"
DISCORD_TOKEN = "MTIz.echoedDiscordToken.abcdefghijklmnop"
LLM_KEY = "sk-echoed-llm-key-0123456789"
URL_PASSWORD = "echoed-url-password"
QUERY_KEY = "echoed-query-key"
SECRETS = (TELEGRAM_TOKEN, DISCORD_TOKEN, LLM_KEY, URL_PASSWORD, QUERY_KEY, "7654321:AAH")


class EchoServer:
    """An HTTP server on 127.0.0.1 that refuses every request and puts the request back in its error: the URL,
    the query and every header (Authorization included), as careless services do. LLM calls get OpenAI's 401."""

    def __init__(self) -> None:
        echo = self

        class Handler(BaseHTTPRequestHandler):
            def _echo(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                told = f"{self.command} {self.path} " + " ".join(f"{k}: {v}" for k, v in self.headers.items())
                echo.seen.append(told)
                if "/chat/completions" in self.path:
                    status = 401
                    body = {"error": {"message": f"Incorrect API key provided: {told}", "code": "invalid_api_key"}}
                else:  # Telegram's and Discord's error shapes both carry a description/message
                    status = 400
                    body = {"ok": False, "error_code": 400, "description": f"Bad Request: {told}", "message": told}
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = _echo

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.seen: list[str] = []
        self.server = QuietServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> EchoServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.parametrize("log_format", ["json", "text"])
@pytest.mark.slow
def test_no_secret_in_any_line_when_services_echo_them(
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    log_format: str,
) -> None:
    with EchoServer() as echo:
        port = echo.url.rsplit(":", 1)[1]
        credentialed = f"http://scout:{URL_PASSWORD}@127.0.0.1:{port}"
        monkeypatch.setenv("PAPERSCOUT_LOG_FORMAT", log_format)
        monkeypatch.setenv("PAPERSCOUT_LOG_LEVEL", "DEBUG")  # the HTTP libraries' own lines too
        monkeypatch.setenv("PAPERSCOUT_TELEGRAM_TOKEN", TELEGRAM_TOKEN)
        monkeypatch.setenv("PAPERSCOUT_TELEGRAM_BASE_URL", echo.url)
        monkeypatch.setenv("PAPERSCOUT_DISCORD_TOKEN", DISCORD_TOKEN)
        monkeypatch.setenv("PAPERSCOUT_DISCORD_API_URL", f"{echo.url}/api/v10")
        monkeypatch.setenv("PAPERSCOUT_LLM_API_KEY", LLM_KEY)
        monkeypatch.setenv("PAPERSCOUT_LLM_BASE_URL", f"{echo.url}/v1")
        monkeypatch.setenv("PAPERSCOUT_LLM_MAX_RETRIES", "0")
        monkeypatch.setenv("PAPERSCOUT_ARXIV_API_URL", f"{credentialed}/api/query?key={QUERY_KEY}")
        monkeypatch.setenv("PAPERSCOUT_ARXIV_RSS_URL", f"{credentialed}/rss/")

        outputs = []
        for argv, code in [
            (["ingest", "--jsonl", str(small_day(tmp_path))], 0),
            (["ask", "speech recognition", "--as-of", "2025-05-26"], 0),  # the LLM refuses: extractive answer
            (["digest", "--date", "2025-05-26", "--size", "3"], 0),  # the LLM refuses: local ranking
            (["ingest", "--ids", "2505.17063"], 1),  # arXiv's API echoes the credentialed URL
            (["ingest"], 1),  # so does the RSS feed
            (["run"], 1),  # Telegram's getMe echoes the token in its path
            (["doctor"], 1),  # every check asks its service, which echoes what it was sent
        ]:
            assert main(argv) == code, capsys.readouterr().err[-2000:]
            outputs.append(capsys.readouterr())
        monkeypatch.delenv("PAPERSCOUT_TELEGRAM_TOKEN")
        assert main(["run"]) == 1  # Discord's login echoes the bot token from its Authorization header
        outputs.append(capsys.readouterr())

    # the services did see (and echo) every secret, so the test can fail
    told = " ".join(echo.seen)
    for secret in (TELEGRAM_TOKEN, DISCORD_TOKEN, LLM_KEY, QUERY_KEY):
        assert secret in told, secret
    assert "Authorization: Basic" in told  # the URL's user:password, as httpx sends it
    err = "".join(o.err for o in outputs)
    for secret in SECRETS:
        assert secret not in err and secret not in "".join(o.out for o in outputs), secret
    assert "c2NvdXQ6" not in err  # nor the base64 of scout:password that the Authorization header carried
    if log_format == "json":
        entries = [e for o in outputs for e in json_lines(o.err)]
        assert len(events(entries, "command")) == 8
        assert any(e["logger"].startswith("httpx") for e in entries)  # the HTTP library's lines were there
    else:
        assert err.count("event=command") == 8
    assert "***" in err  # the echoed secrets were masked, not merely absent


async def test_a_job_the_system_refuses_a_thread_logs_one_clear_line_without_a_traceback(
    core: Core, caplog: pytest.LogCaptureFixture
) -> None:
    async def needs_a_thread() -> None:
        raise RuntimeError("can't start new thread")

    with caplog.at_level(logging.ERROR, logger="bot.ops.runner"):
        await Runner(core, {})._guarded(needs_a_thread, "ingest")()  # one failed run does not stop the schedule
    [record] = [r for r in caplog.records if r.name == "bot.ops.runner"]
    assert record.getMessage().startswith("ingest job failed: the system refused to start a thread")
    assert "ulimit -u" in record.getMessage() and record.exc_info is None
