"""A real Chroma server for tests: `chroma run` (the CLI of the pinned chromadb package) on 127.0.0.1.

Used through the `chroma_server` fixture in `tests/conftest.py`.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

START_SECONDS = 60  # a cold start on a loaded 2-core machine takes several seconds


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def chroma_binary() -> Path:
    """The `chroma` command installed next to this Python by the chromadb package."""
    return Path(sys.executable).with_name("chroma")


@contextmanager
def chroma_run(data: Path) -> Iterator[str]:
    """Start `chroma run` with its data under `data`, wait until its heartbeat answers, yield its URL; stop it after.

    Its output goes to ``data/chroma.log``, quoted when the server does not come up.
    """
    binary = chroma_binary()
    if not binary.exists():
        raise RuntimeError(f"the chroma command should come with the chromadb package, not found at {binary}")
    data.mkdir(parents=True, exist_ok=True)
    log = data / "chroma.log"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(binary), "run", "--path", str(data / "db"), "--host", "127.0.0.1", "--port", str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + START_SECONDS
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    tail = log.read_text(encoding="utf-8", errors="replace")[-2000:]
                    raise RuntimeError(f"chroma run did not answer on {url} (exit {process.poll()}):\n{tail}") from None
                time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
