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
    with FakeOpenAI(responder=lambda request: "It is [1].", api_key=TEST_API_KEY) as fake:
        url = fake.base_url.replace("http://", "http://bob:hunter22pass@") + "?key=sk-querysecret99"
        monkeypatch.setenv("PAPERSCOUT_LLM_BASE_URL", url)
        monkeypatch.setenv("PAPERSCOUT_LLM_API_KEY", TEST_API_KEY)
        capsys.readouterr()
        assert main(["-v", "ask", "recurrent neural network music", "--as-of", "2025-05-26"]) == 0
    out, err = capsys.readouterr()
    requests = [line for line in err.splitlines() if "HTTP Request: POST" in line]
    assert requests, err  # httpx did log the request, URL and all
    assert all("http://***@127.0.0.1:" in line and "key=***" in line for line in requests), requests
    for secret in ("hunter22pass", "sk-querysecret99", TEST_API_KEY):
        assert secret not in err and secret not in out
