"""Credentials inside URLs never reach a log line, whoever writes it: with -v, httpx logs every request the openai
client sends, URL included (issue 17 found user:password@ and ?key= of PAPERSCOUT_LLM_BASE_URL there)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main
from tests.fakes.openai_server import TEST_API_KEY, FakeOpenAI
from tests.test_cli import home, small_day  # noqa: F401 - the fixture is used by name


def test_llm_base_url_credentials_are_masked_in_httpx_log_lines_with_v(
    home: Path,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["ingest", "--jsonl", str(small_day(tmp_path, 3))]) == 0
    # a proxy with Basic authentication in front of a server that wants a key in the query
    with FakeOpenAI(responder=lambda request: "It is [1].", basic_auth=("bob", "hunter22pass")) as fake:
        url = fake.base_url.replace("http://", "http://bob:hunter22pass@") + "?key=sk-querysecret99"
        monkeypatch.setenv("PAPERSCOUT_LLM_BASE_URL", url)
        capsys.readouterr()
        assert main(["-v", "ask", "recurrent neural network music", "--as-of", "2025-05-26"]) == 0
        sent = fake.chat_requests()
    out, err = capsys.readouterr()
    assert sent and all(r.authorized for r in sent), sent  # the URL's user and password went as Basic auth
    assert all(r.path == "/v1/chat/completions?key=sk-querysecret99" for r in sent), [r.path for r in sent]
    requests = [line for line in err.splitlines() if "HTTP Request: POST" in line]
    assert requests, err  # httpx did log the request, URL and all
    assert all("http://***@127.0.0.1:" in line and "key=***" in line for line in requests), requests
    for secret in ("hunter22pass", "sk-querysecret99"):
        assert secret not in err and secret not in out


def test_a_query_in_the_llm_base_url_reaches_every_request_after_the_path(
    home: Path,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Azure-style endpoints want ?api-version=...; the openai client appends paths to its base URL as text."""
    assert main(["ingest", "--jsonl", str(small_day(tmp_path, 3))]) == 0
    with FakeOpenAI(responder=lambda request: "It is [1].", api_key=TEST_API_KEY) as fake:
        monkeypatch.setenv("PAPERSCOUT_LLM_BASE_URL", fake.base_url + "/?api-version=2024-06-01")
        monkeypatch.setenv("PAPERSCOUT_LLM_API_KEY", TEST_API_KEY)
        assert main(["ask", "recurrent neural network music", "--as-of", "2025-05-26"]) == 0
        sent = fake.chat_requests()
    assert sent and all(r.authorized for r in sent)
    assert {r.path for r in sent} == {"/v1/chat/completions?api-version=2024-06-01"}


def test_a_user_in_the_llm_base_url_and_an_api_key_are_refused_in_one_line(
    home: Path,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["ingest", "--jsonl", str(small_day(tmp_path, 3))]) == 0
    monkeypatch.setenv("PAPERSCOUT_LLM_BASE_URL", "http://bob:hunter22pass@127.0.0.1:9/v1")
    monkeypatch.setenv("PAPERSCOUT_LLM_API_KEY", TEST_API_KEY)
    capsys.readouterr()
    assert main(["ask", "recurrent neural network music", "--as-of", "2025-05-26"]) == 1
    out, err = capsys.readouterr()
    [line] = err.splitlines()
    assert "PAPERSCOUT_LLM_BASE_URL carries a user name and password and PAPERSCOUT_LLM_API_KEY is set" in line
    assert "hunter22pass" not in err + out and TEST_API_KEY not in err + out
