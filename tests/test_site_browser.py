"""The web archive in a real browser: headless Chromium (Debian's package, installed when missing) loads every page
of a built site served on 127.0.0.1 with no console error or failed load, follows every internal link, finds a
paper with the in-page search, reads a day with JavaScript off, and shows a day page at phone and desktop width
(screenshots decoded and checked not to be blank, and no sideways scrolling on the phone)."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote, urldefrag

import numpy as np
import pytest

from bot.core import Core
from bot.ingest.bundled import EXAMPLE_PROFILE_FILE, bundled_file
from bot.models import Paper
from bot.ranking.profiles import load_profile
from bot.site.build import build_site
from tests.cdp import chromium_page, find_chromium
from tests.png import decode_png
from tests.site_store import DAYS, HOSTILE_SHOWN, fill_site_store


@pytest.fixture(scope="module")
def chromium() -> str:
    binary, why = find_chromium()
    if binary is None:
        pytest.skip(why)
    return binary


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def serve() -> Iterator[functools.partial[str]]:
    servers: list[ThreadingHTTPServer] = []

    def start(folder: Path) -> str:
        server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(folder)))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/"

    yield functools.partial(start)
    for server in servers:
        server.shutdown()
        server.server_close()


def assert_not_blank(png: bytes, width: int, where: Path) -> None:
    where.write_bytes(png)
    pixels = decode_png(png)
    assert pixels.shape[1] == width and pixels.shape[0] > 300, pixels.shape
    grey = pixels[..., :3].astype(np.float64).mean(axis=2)
    assert grey.std() > 10, f"{where} looks blank (pixel std {grey.std():.1f})"
    assert len(np.unique(grey.astype(np.uint8))) > 20, f"{where} has too few shades to hold text"


async def test_the_archive_in_headless_chromium(
    chromium: str, core: Core, demo_papers: list[Paper], tmp_path: Path, serve: functools.partial[str]
) -> None:
    store = await fill_site_store(core, demo_papers)
    out = tmp_path / "site"
    await build_site(core, out, load_profile(bundled_file(EXAMPLE_PROFILE_FILE)))
    base = serve(out)
    pages = {p.relative_to(out).as_posix() for p in out.rglob("*.html")}

    async with chromium_page(chromium, tmp_path / "chromium-profile") as browser:
        # every page, reached by following links from the front page: loads clean, links and anchors resolve
        seen: set[str] = set()
        anchors: list[tuple[str, str, str]] = []  # (page with the link, page linked to, fragment)
        todo = [base + "index.html"]
        while todo:
            url = todo.pop()
            if url in seen:
                continue
            seen.add(url)
            await browser.goto(url)
            assert await browser.eval("document.readyState") == "complete"
            assert await browser.eval("typeof window.__pwned") == "undefined", url  # the hostile title stayed text
            for href in await browser.eval("[...document.querySelectorAll('a[href]')].map(a => a.href)"):
                if not href.startswith(base):
                    assert href.startswith("https://arxiv.org/abs/"), (url, href)
                    continue
                page, fragment = urldefrag(href)
                todo.append(page)
                if fragment:
                    anchors.append((url, page, fragment))
        assert {u.removeprefix(base) for u in seen} == pages - {"search.html"}  # the form leads there, below
        assert browser.errors == []
        for source, page, fragment in anchors:
            await browser.goto(page)
            assert await browser.eval(f"document.getElementById({fragment!r}) !== null"), (source, page, fragment)

        # the in-page search finds a paper by words of its title and links to it
        words = " ".join(store.known_title.split()[:4])
        await browser.goto(base + "search.html?q=" + quote(words))
        titles = await browser.eval("[...document.querySelectorAll('#results li a')].map(a => a.textContent)")
        assert store.known_title in titles
        assert "match" in await browser.eval("document.getElementById('search-status').textContent")
        link = await browser.eval(
            f"[...document.querySelectorAll('#results li a')].find(a => a.textContent === {store.known_title!r}).href"
        )
        await browser.goto(link)
        assert await browser.eval("document.getElementById(location.hash.slice(1)) !== null")
        # typing in the box searches as you type; the hostile title is found and shown as text
        await browser.goto(base + "search.html")
        shown = await browser.eval(
            "(() => { const q = document.getElementById('q'); q.value = 'pwned everyone';"
            " q.dispatchEvent(new Event('input')); return [...document.querySelectorAll('#results li a')]"
            ".map(a => a.textContent); })()"
        )
        assert shown == [HOSTILE_SHOWN, HOSTILE_SHOWN]  # in both channels' archives, as text, bidi override gone
        assert await browser.eval("typeof window.__pwned") == "undefined"
        assert await browser.eval("document.querySelectorAll('#results img').length") == 0
        assert browser.errors == []

        # opened from disk: styles apply and the search works (a script, not a fetch of JSON, carries the index)
        await browser.goto(f"{(out / 'search.html').as_uri()}?q={quote(words)}")
        assert store.known_title in await browser.eval(
            "[...document.querySelectorAll('#results li a')].map(a => a.textContent)"
        )
        await browser.goto((out / "ml-foundations" / f"{DAYS[0].isoformat()}.html").as_uri())
        assert await browser.eval("getComputedStyle(document.querySelector('article.paper')).borderTopStyle") == "solid"
        assert browser.errors == []

        # reading needs no JavaScript
        day = f"{base}ml-foundations/{DAYS[1].isoformat()}.html"
        await browser.send("Emulation.setScriptExecutionDisabled", value=True)
        await browser.goto(day)
        assert await browser.count("article.paper") == 6
        assert await browser.count("a[rel=prev]") == 2 and await browser.count("a[rel=next]") == 2
        await browser.send("Emulation.setScriptExecutionDisabled", value=False)

        # a day page on a phone and on a desktop
        for width, height, mobile in ((390, 844, True), (1280, 800, False)):
            await browser.viewport(width, height, mobile=mobile)
            await browser.goto(day)
            assert await browser.eval("document.documentElement.scrollWidth") <= width, "scrolls sideways"
            assert await browser.eval("window.innerWidth") == width
            assert_not_blank(await browser.screenshot(), width, tmp_path / f"day-{width}.png")
        assert browser.errors == []
