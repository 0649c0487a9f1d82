"""Credentials inside URLs never reach a log line, whoever writes it: with -v, httpx logs every request the openai
client sends, URL included (issue 17 found user:password@ and ?key= of PAPERSCOUT_LLM_BASE_URL there)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main
from tests.fakes.openai_server import TEST_API_KEY, FakeOpenAI, RecordedRequest
from tests.test_cli import home, small_day  # noqa: F401 - the fixture is used by name

QUESTION = ("recurrent neural network music", "--as-of", "2025-05-26")


@pytest.fixture
def stored(home: Path, tmp_path: Path) -> Path:  # noqa: F811
    """A home with three papers of the bundled day stored."""
    assert main(["ingest", "--jsonl", str(small_day(tmp_path, 3))]) == 0
    return home


def ask_through(
    fake: FakeOpenAI, url: str, key: str | None, monkeypatch: pytest.MonkeyPatch, *flags: str
) -> tuple[int, list[RecordedRequest]]:
    """`paperscout ask` with the LLM at `url` (and `key`): its exit code and the chat requests the fake saw."""
    monkeypatch.setenv("PAPERSCOUT_LLM_BASE_URL", url)
    if key:
        monkeypatch.setenv("PAPERSCOUT_LLM_API_KEY", key)
    return main([*flags, "ask", *QUESTION]), fake.chat_requests()


def test_llm_base_url_credentials_are_masked_in_httpx_log_lines_with_v(
    stored: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # a proxy with Basic authentication in front of a server that wants a key in the query
    with FakeOpenAI(responder=lambda request: "It is [1].", basic_auth=("bob", "hunter22pass")) as fake:
        url = fake.base_url.replace("http://", "http://bob:hunter22pass@") + "?key=sk-querysecret99"
        capsys.readouterr()
        code, sent = ask_through(fake, url, None, monkeypatch, "-v")
    out, err = capsys.readouterr()
    assert code == 0
    assert sent and all(r.authorized for r in sent), sent  # the URL's user and password went as Basic auth
    assert all(r.path == "/v1/chat/completions?key=sk-querysecret99" for r in sent), [r.path for r in sent]
    requests = [line for line in err.splitlines() if "HTTP Request: POST" in line]
    assert requests, err  # httpx did log the request, URL and all
    assert all("http://***@127.0.0.1:" in line and "key=***" in line for line in requests), requests
    for secret in ("hunter22pass", "sk-querysecret99"):
        assert secret not in err and secret not in out


def test_every_query_value_of_the_llm_base_url_but_harmless_ones_is_masked(
    stored: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    query = "?code=c0de&sig=sig-n4ture&password=pw&api-version=2024-06-01"
    with FakeOpenAI(responder=lambda request: "It is [1].") as fake:
        capsys.readouterr()
        code, sent = ask_through(fake, fake.base_url + query, None, monkeypatch, "-v")
    out, err = capsys.readouterr()
    assert code == 0 and sent
    requests = [line for line in err.splitlines() if "HTTP Request: POST" in line]
    assert requests, err
    masked = "?code=***&sig=***&password=***&api-version=2024-06-01"
    assert all(masked in line for line in requests), requests
    for secret in ("c0de", "sig-n4ture", "=pw"):
        assert secret not in err and secret not in out


def test_a_query_in_the_llm_base_url_reaches_every_request_after_the_path(
    stored: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Azure-style endpoints want ?api-version=...; the openai client appends paths to its base URL as text."""
    with FakeOpenAI(responder=lambda request: "It is [1].", api_key=TEST_API_KEY) as fake:
        code, sent = ask_through(fake, fake.base_url + "/?api-version=2024-06-01", TEST_API_KEY, monkeypatch)
    assert code == 0 and sent and all(r.authorized for r in sent)
    assert {r.path for r in sent} == {"/v1/chat/completions?api-version=2024-06-01"}


def test_a_user_in_the_llm_base_url_and_an_api_key_are_refused_in_one_line(
    stored: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeOpenAI() as fake:
        capsys.readouterr()
        url = fake.base_url.replace("http://", "http://bob:hunter22pass@")
        code, sent = ask_through(fake, url, TEST_API_KEY, monkeypatch)
    out, err = capsys.readouterr()
    assert code == 1 and not sent
    [line] = err.splitlines()
    assert "PAPERSCOUT_LLM_BASE_URL carries a user name and password and PAPERSCOUT_LLM_API_KEY is set" in line
    assert "hunter22pass" not in err + out and TEST_API_KEY not in err + out
