"""Headless Chromium driven over the Chrome DevTools protocol, for the web archive's browser test.

Debian's `chromium` package is the browser; the protocol is spoken over one websocket with the `websockets`
package (already pinned), so no WebDriver or browser-automation package is needed. Screenshots are read back
with `tests.png.decode_png`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import subprocess
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
)


def find_chromium(install: bool = True) -> tuple[str | None, str]:
    """The Chromium binary, installing Debian's package first when it is missing and we may (root with apt-get);
    else None and why not."""
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found, ""
    if not install:
        return None, "chromium is not installed"
    if os.name != "posix" or os.geteuid() != 0 or not shutil.which("apt-get"):
        return None, "chromium is not installed and cannot be installed here (needs root and apt-get)"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    command = ["apt-get", "install", "-y", "--no-install-recommends", "chromium"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900, check=False)
    if done.returncode != 0:  # a fresh image has no package lists yet
        subprocess.run(["apt-get", "update"], env=env, capture_output=True, timeout=600, check=False)
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900, check=False)
    found = shutil.which("chromium")
    if found:
        return found, ""
    last = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
    return None, f"chromium is not installed and `apt-get install chromium` failed: {last[0]}"


class Browser:
    """One headless Chromium page: navigate, evaluate, screenshot, and every console error and failed load seen."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.errors: list[str] = []
        self._next_id = 0
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._loaded = asyncio.Event()
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for raw in self.ws:
            message = json.loads(raw)
            if "id" in message:
                future = self._pending.pop(message["id"], None)
                if future is not None and not future.done():
                    future.set_result(message)
                continue
            self._event(message.get("method", ""), message.get("params", {}))

    def _event(self, method: str, params: dict[str, Any]) -> None:
        if method == "Page.loadEventFired":
            self._loaded.set()
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            shown = (str(a.get("value", a.get("description"))) for a in params["args"])
            self.errors.append("console: " + " ".join(shown))
        elif method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            self.errors.append("exception: " + str(details.get("exception", {}).get("description", details["text"])))
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            self.errors.append(f"log: {params['entry']['text']} {params['entry'].get('url', '')}")
        elif method == "Network.responseReceived" and params["response"]["status"] >= 400:
            self.errors.append(f"http {params['response']['status']}: {params['response']['url']}")
        elif method == "Network.loadingFailed" and not params.get("canceled"):
            self.errors.append(f"load failed: {params.get('errorText')}")

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        """One protocol command; its result, or an AssertionError with the protocol's error."""
        self._next_id += 1
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[self._next_id] = future
        await self.ws.send(json.dumps({"id": self._next_id, "method": method, "params": params}))
        reply = await asyncio.wait_for(future, 60)
        assert "error" not in reply, (method, reply["error"])
        return reply["result"]

    async def goto(self, url: str) -> None:
        """Navigate and wait for the load event."""
        self._loaded.clear()
        result = await self.send("Page.navigate", url=url)
        assert not result.get("errorText"), (url, result["errorText"])
        await asyncio.wait_for(self._loaded.wait(), 60)

    async def eval(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (made JSON by the browser)."""
        result = await self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        assert "exceptionDetails" not in result, result["exceptionDetails"]
        return result["result"].get("value")

    async def count(self, selector: str) -> int:
        """How many elements match `selector`, read through the DOM domain (works with page scripts disabled)."""
        root = await self.send("DOM.getDocument", depth=0)
        found = await self.send("DOM.querySelectorAll", nodeId=root["root"]["nodeId"], selector=selector)
        return len(found["nodeIds"])

    async def viewport(self, width: int, height: int, *, mobile: bool) -> None:
        """Emulate a screen `width` CSS pixels wide (a phone when `mobile`)."""
        await self.send(
            "Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=mobile
        )

    async def screenshot(self) -> bytes:
        """A PNG of the viewport."""
        import base64

        return base64.b64decode((await self.send("Page.captureScreenshot", format="png"))["data"])


@contextlib.asynccontextmanager
async def chromium_page(binary: str, profile_dir: Path) -> AsyncIterator[Browser]:
    """Start headless Chromium with a fresh profile and yield its first page, with errors being collected."""
    process = await asyncio.create_subprocess_exec(
        binary,
        *CHROMIUM_FLAGS,
        f"--user-data-dir={profile_dir}",
        "about:blank",
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        port_file = profile_dir / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not (port_file.is_file() and port_file.read_text().strip()):
            assert process.returncode is None, f"chromium exited with {process.returncode}"
            assert time.monotonic() < deadline, "chromium did not open its DevTools port in 60 s"
            await asyncio.sleep(0.1)
        port = int(port_file.read_text().split()[0])
        async with httpx.AsyncClient(timeout=10) as http:
            targets = (await http.get(f"http://127.0.0.1:{port}/json/list")).json()
        pages = [t for t in targets if t["type"] == "page"]
        async with connect(pages[0]["webSocketDebuggerUrl"], max_size=None, open_timeout=30) as ws:
            browser = Browser(ws)
            for domain in ("Page", "Runtime", "Log", "Network", "DOM"):
                await browser.send(f"{domain}.enable")
            try:
                yield browser
            finally:
                browser._reader.cancel()
    finally:
        if process.returncode is None:
            process.terminate()
        try:
            await asyncio.wait_for(process.wait(), 10)
        except TimeoutError:
            process.kill()
            await process.wait()
