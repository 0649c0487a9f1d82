"""The static web archive (`paperscout site build`, bot/site): pages per channel and day, previous/next, monthly
overviews, the index and search data, escaping of hostile text, links that resolve, and deterministic output."""

from __future__ import annotations

import asyncio
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import numpy as np
import pytest

from bot.cli import main
from bot.config import Settings
from bot.core import Core, open_core
from bot.embeddings.embedder import LocalEmbedder
from bot.errors import InputError
from bot.ingest.bundled import EXAMPLE_PROFILE_FILE, bundled_file
from bot.models import Paper, Profile, Target, Topic
from bot.ranking.profiles import load_profile
from bot.site.build import MANIFEST, SiteReport, build_site
from bot.site.collect import PREVIEW_NOTE, REBUILT_NOTE, slugify, unique_slugs
from bot.site.html import link
from tests.conftest import StoreDay
from tests.site_store import DAYS, HOSTILE_AUTHOR, PRIVATE_TITLE, SiteStore, fill_site_store

EXAMPLE = load_profile(bundled_file(EXAMPLE_PROFILE_FILE))


class Page(HTMLParser):
    """Every tag with its attributes, the ids, and the text of one HTML page."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.ids: set[str] = set()
        self.text: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {k: v or "" for k, v in attrs}
        self.tags.append((tag, found))
        if "id" in found:
            self.ids.add(found["id"])

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def links(self) -> list[str]:
        return [a[k] for _, a in self.tags for k in ("href", "src", "action") if k in a]

    def rel(self, rel: str) -> list[str]:
        return [a["href"] for t, a in self.tags if t == "a" and a.get("rel") == rel]


def read_pages(out: Path) -> dict[str, Page]:
    return {p.relative_to(out).as_posix(): Page(p.read_text(encoding="utf-8")) for p in sorted(out.rglob("*.html"))}


@pytest.fixture
async def site(core: Core, demo_papers: list[Paper], tmp_path: Path) -> tuple[Path, SiteStore, SiteReport]:
    store = await fill_site_store(core, demo_papers)
    out = tmp_path / "site"
    report = await build_site(core, out, EXAMPLE)
    return out, store, report


def test_slugs_are_plain_unique_folder_names() -> None:
    assert slugify("ML foundations: <b>LLMs</b> & MoE") == "ml-foundations-b-llms-b-moe"
    assert slugify("Ünïcödé ✓") == "unicode"
    assert slugify("✓✓") == "archive"
    assert unique_slugs(["A b", "a-b", "Search", "a b"]) == ["a-b", "a-b-2", "search-2", "a-b-3"]


async def test_a_page_per_channel_per_day_and_nothing_private(site: tuple[Path, SiteStore, SiteReport]) -> None:
    out, store, report = site
    assert (report.archives, report.day_pages, report.previews) == (2, 4, 0)
    days = sorted(p.name for p in (out / "ml-foundations").glob("2025-*-*.html"))
    assert days == [f"{d.isoformat()}.html" for d in DAYS]
    assert sorted(p.name for p in (out / "robotics-i-digest-i").glob("2025-*-*.html")) == ["2025-05-30.html"]
    everything = "\n".join(p.read_text(encoding="utf-8") for p in out.rglob("*") if p.is_file())
    assert PRIVATE_TITLE not in everything and "Member" not in everything  # a member's DM digest stays private
    assert "-1001" not in everything  # chat ids stay out of public pages

    day = (out / "ml-foundations" / "2025-05-30.html").read_text(encoding="utf-8")
    page = Page(day)
    text = " ".join(page.text)
    assert "ML foundations: arXiv digest for 2025-05-30" in text
    assert "Scanned 11 papers, picked 6." in text and re.search(r"Posted \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", text)
    for n, paper in enumerate(store.papers[DAYS[1]][:6], 1):
        assert f"p-{paper.id}" in page.ids
        assert ("a", {"href": paper.url}) in page.tags
        assert f"TL;DR of {paper.title[:40]}" in text or n == 1  # the hostile title is cleaned in its TL;DR too
    assert "closest to topic 'Learning theory' (similarity 0.59)" in text  # why it matched
    assert "#2 of 11 papers on 2025-05-30" in text and "LLM relevance 8/10, novelty 7/10" in text
    assert "Author watch:" in text

    plain = " ".join(Page((out / "robotics-i-digest-i" / "2025-05-30.html").read_text(encoding="utf-8")).text)
    assert REBUILT_NOTE in plain and plain.count("TL;DR") == 3


async def test_previous_and_next_day_and_month_links(site: tuple[Path, SiteStore, SiteReport]) -> None:
    out, _, _ = site
    pages = read_pages(out)
    first, middle, last = (pages[f"ml-foundations/{d.isoformat()}.html"] for d in DAYS)
    assert first.rel("prev") == [] and first.rel("next") == ["2025-05-30.html"] * 2  # pager above and below
    assert middle.rel("prev") == ["2025-05-29.html"] * 2 and middle.rel("next") == ["2025-06-02.html"] * 2
    assert last.rel("prev") == ["2025-05-30.html"] * 2 and last.rel("next") == []
    assert "2025-06.html" in last.links() and "2025-05.html" in first.links()
    may, june = pages["ml-foundations/2025-05.html"], pages["ml-foundations/2025-06.html"]
    assert may.rel("next") == ["2025-06.html"] and june.rel("prev") == ["2025-05.html"]
    assert may.rel("prev") == [] and june.rel("next") == []


async def test_the_month_overview_counts_papers_per_day_and_top_topics(
    site: tuple[Path, SiteStore, SiteReport],
) -> None:
    out, _, _ = site
    html = (out / "ml-foundations" / "2025-05.html").read_text(encoding="utf-8")
    text = " ".join(" ".join(Page(html).text).split())
    assert "2 digests, 12 papers picked." in text
    rows = re.findall(r'<tr><td><a href="(2025-05-\d\d\.html)">[^<]+</a></td><td class="n">(\d+)</td>', html)
    assert rows == [("2025-05-29.html", "6"), ("2025-05-30.html", "6")]
    # papers 1, 3, 5 of each day matched learning theory, 2, 4, 6 compression: 6 each, ties in name order
    assert "Top topics Learning theory 6 Model compression and efficiency 6" in text
    assert "Top categories" in text


async def test_the_index_and_the_search_data(site: tuple[Path, SiteStore, SiteReport]) -> None:
    out, store, _ = site
    index = Page((out / "index.html").read_text(encoding="utf-8"))
    assert {"ml-foundations/index.html", "robotics-i-digest-i/index.html", "ml-foundations/2025-06-02.html"} <= set(
        index.links()
    )
    assert "Robotics <i>digest</i>" in " ".join(index.text)  # shown as text, not markup
    assert not any(tag == "i" for tag, _ in index.tags)
    script = (out / "search-index.js").read_text(encoding="utf-8")
    assert script.startswith("window.PAPERSCOUT_SEARCH = ") and script.endswith(";\n")
    entries = json.loads(script.removeprefix("window.PAPERSCOUT_SEARCH = ").removesuffix(";\n"))
    assert len(entries) == 6 * 3 + 3
    known = [e for e in entries if e["t"] == store.known_title]
    assert len(known) == 1 and known[0]["u"].startswith("ml-foundations/2025-06-02.html#p-")
    search = Page((out / "search.html").read_text(encoding="utf-8"))
    assert [a["src"] for t, a in search.tags if t == "script"] == ["search-index.js", "search.js"]
    assert any(t == "noscript" for t, _ in search.tags)


async def test_hostile_titles_are_text_everywhere(site: tuple[Path, SiteStore, SiteReport]) -> None:
    out, _, _ = site
    for rel, page in read_pages(out).items():
        # the only scripts are the site's own files, on the search page; no inline script, no event handler
        scripts = [a.get("src") for t, a in page.tags if t == "script"]
        assert scripts == (["search-index.js", "search.js"] if rel == "search.html" else []), rel
        assert not [k for _, a in page.tags for k in a if k.startswith("on")], rel
        assert not [t for t, _ in page.tags if t in ("img", "b", "i", "iframe")], rel
    html = (out / "ml-foundations" / "2025-05-30.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt; @everyone evil &lt;img src=x onerror=alert(1)&gt;" in html
    assert "&amp; &quot;quoted&quot;" in html
    assert "Eve &quot;&lt;b&gt;bold&lt;/b&gt;&quot; Mallory" in html
    text = " ".join(Page(html).text)
    assert "<script>window.__pwned = 1</script> @everyone evil" in text  # what a reader sees, bidi override gone
    assert HOSTILE_AUTHOR in text
    for path in out.rglob("*"):
        if path.is_file():
            content = path.read_text(encoding="utf-8")
            assert "\u202e" not in content and "\\u202e" not in content and "\u202c" not in content, path


@pytest.mark.parametrize(
    "href",
    [
        "javascript:alert(1)",
        "JavaScript:alert(1)",
        " javascript:alert(1)",
        "java\tscript:alert(1)",
        "java\u200bscript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "vbscript:msgbox(1)",
        "//evil.example/x",
    ],
)
def test_a_link_is_never_a_script_or_another_scheme(href: str) -> None:
    shown = link(href, 'a "title"')
    assert shown == "a &quot;title&quot;" and "href" not in shown


def test_links_within_the_site_and_to_arxiv_stay_links() -> None:
    assert link("https://arxiv.org/abs/2505.17639", "arXiv") == '<a href="https://arxiv.org/abs/2505.17639">arXiv</a>'
    assert link("../index.html", "up", rel="prev") == '<a href="../index.html" rel="prev">up</a>'
    assert link('2025-05-30.html#p-x"y', "day") == '<a href="2025-05-30.html#p-x&quot;y">day</a>'


def test_the_report_line_counts_in_words() -> None:
    one = SiteReport(archives=1, day_pages=1, files=8, bytes=33 * 1024, changed=1, previews=1)
    assert one.line() == "site: 1 archive (1 preview), 1 day page, 8 files, 33 KiB; 1 file written"
    two = SiteReport(archives=2, day_pages=4, files=12, bytes=2048, changed=0, previews=0)
    assert two.line() == "site: 2 archives, 4 day pages, 12 files, 2 KiB; 0 files written"


async def test_every_internal_link_resolves(site: tuple[Path, SiteStore, SiteReport]) -> None:
    out, _, _ = site
    pages = read_pages(out)
    checked = 0
    for rel, page in pages.items():
        for href in page.links():
            parts = urlsplit(href)
            if parts.scheme == "data":
                continue
            if parts.scheme or parts.netloc:
                assert href.startswith("https://arxiv.org/abs/"), (rel, href)  # the only way out: arXiv
                continue
            assert not href.startswith("/"), (rel, href)  # relative, so any host or a disk works
            target = (out / rel).parent / unquote(parts.path) if parts.path else out / rel
            target = target.resolve()
            assert target.is_file() and target.is_relative_to(out.resolve()), (rel, href)
            if parts.fragment:
                assert parts.fragment in pages[target.relative_to(out.resolve()).as_posix()].ids, (rel, href)
            checked += 1
    assert checked > 60
    # the search results' links too
    script = (out / "search-index.js").read_text(encoding="utf-8")
    for entry in json.loads(script.removeprefix("window.PAPERSCOUT_SEARCH = ").removesuffix(";\n")):
        path, _, fragment = entry["u"].partition("#")
        assert fragment in pages[path].ids, entry["u"]
    # every day, month and archive page is reachable from the index
    seen, todo = set(), ["index.html"]
    while todo:
        rel = todo.pop()
        if rel in seen or rel not in pages:
            continue
        seen.add(rel)
        for href in pages[rel].links():
            parts = urlsplit(href)
            if not parts.scheme and parts.path.endswith(".html"):
                todo.append(((out / rel).parent / parts.path).resolve().relative_to(out.resolve()).as_posix())
    assert seen == set(pages)


async def test_builds_are_deterministic_and_a_rebuild_replaces_the_old_one(
    core: Core, site: tuple[Path, SiteStore, SiteReport], tmp_path: Path
) -> None:
    out, _, first = site
    again = await build_site(core, tmp_path / "again", EXAMPLE)
    files = sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(tmp_path / "again") for p in (tmp_path / "again").rglob("*") if p.is_file())
    for rel in files:
        assert (out / rel).read_bytes() == (tmp_path / "again" / rel).read_bytes(), rel
    assert (first.files, first.bytes) == (again.files, again.bytes) and first.changed == first.files
    same = await build_site(core, out, EXAMPLE)
    assert same.changed == 0
    # a target deleted since the last build: its pages go, nothing else is touched
    (out / "robotics-i-digest-i" / "notes.txt").write_text("mine", encoding="utf-8")
    await core.repo.conn.execute("DELETE FROM targets WHERE platform='discord'")
    await core.repo.conn.commit()
    await build_site(core, out, EXAMPLE)
    assert not (out / "robotics-i-digest-i" / "index.html").exists()
    assert (out / "robotics-i-digest-i" / "notes.txt").read_text(encoding="utf-8") == "mine"
    assert "robotics-i-digest-i/index.html" not in (out / MANIFEST).read_text(encoding="utf-8")


async def test_a_link_planted_in_the_site_is_replaced_not_written_through(
    core: Core, site: tuple[Path, SiteStore, SiteReport], tmp_path: Path
) -> None:
    out, _, _ = site
    outside = tmp_path / "outside.txt"
    outside.write_text("keep", encoding="utf-8")
    (out / "index.html").unlink()
    (out / "index.html").symlink_to(outside)
    (out / MANIFEST).unlink()
    (out / MANIFEST).symlink_to(outside)
    # the manifest link is read as the previous manifest ("keep": no such file) and then replaced too
    await build_site(core, out, EXAMPLE)
    assert outside.read_text(encoding="utf-8") == "keep"
    assert not (out / "index.html").is_symlink() and "<html" in (out / "index.html").read_text(encoding="utf-8")
    assert not (out / MANIFEST).is_symlink()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    slug = next(p for p in out.iterdir() if p.is_dir() and (p / "index.html").exists())
    for page in slug.iterdir():
        page.unlink()
    slug.rmdir()
    slug.symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(InputError, match="symbolic link"):
        await build_site(core, out, EXAMPLE)
    assert not any(elsewhere.iterdir())


async def test_a_folder_that_is_not_a_site_is_refused(core: Core, tmp_path: Path) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "thesis.tex").write_text("x", encoding="utf-8")
    with pytest.raises(InputError, match="not empty and holds no paperscout site"):
        await build_site(core, tmp_path / "mine", EXAMPLE)
    (tmp_path / "file").write_text("x", encoding="utf-8")
    with pytest.raises(InputError, match="is a file"):
        await build_site(core, tmp_path / "file", EXAMPLE)


async def test_an_empty_store_gives_a_front_page_that_says_what_to_do(core: Core, tmp_path: Path) -> None:
    report = await build_site(core, tmp_path / "site", EXAMPLE)
    assert (report.archives, report.day_pages) == (0, 0)
    assert "paperscout ingest" in (tmp_path / "site" / "index.html").read_text(encoding="utf-8")


async def test_nothing_posted_yet_previews_the_stored_days(core: Core, store_day: StoreDay, tmp_path: Path) -> None:
    papers = await store_day(core)
    report = await build_site(core, tmp_path / "demo", EXAMPLE)
    assert (report.archives, report.day_pages, report.previews) == (1, 1, 1)
    slug = slugify(EXAMPLE.name)
    day = (tmp_path / "demo" / slug / f"{papers[0].announced.isoformat()}.html").read_text(encoding="utf-8")
    text = " ".join(Page(day).text)
    assert PREVIEW_NOTE in text and "Why it matched" in text and f"Scanned {len(papers)} papers" in text
    assert "Posted" not in text

    # a channel set up but not posted to yet: its own profile and size; `--profile` adds another preview
    channel = Profile(name="Channel profile", topics=(Topic("Sparsity", "sparse mixture of experts"),))
    await core.repo.save_profile("telegram:-5", channel)
    await core.repo.save_target(Target("telegram", "-5", channel.name, digest_size=4), "telegram:-5")
    extra = Profile(name="Extra", topics=(Topic("RL", "reinforcement learning"),))
    report = await build_site(core, tmp_path / "channel", EXAMPLE, extra)
    assert (report.archives, report.previews) == (2, 2)
    assert sorted(p.name for p in (tmp_path / "channel").iterdir() if p.is_dir()) == ["channel-profile", "extra"]
    html = next((tmp_path / "channel" / "channel-profile").glob("2025-*-*.html")).read_text(encoding="utf-8")
    assert html.count('class="paper"') == 4


def test_the_command_builds_the_site(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    demo_papers: list[Paper],
    embedder: LocalEmbedder,
) -> None:
    monkeypatch.setenv("PAPERSCOUT_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("PAPERSCOUT_CONFIG", raising=False)
    assert main(["site", "build", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "site: 0 archives, 0 day pages" in out and "--demo" in out
    assert (tmp_path / "out" / "index.html").is_file()
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "x").write_text("x", encoding="utf-8")
    assert main(["site", "build", str(tmp_path / "other")]) == 1
    assert "holds no paperscout site" in capsys.readouterr().err

    assert main(["site", "build", str(tmp_path / "demo-site"), "--demo"]) == 0  # before any demo
    assert "run `paperscout demo` first" in capsys.readouterr().out

    async def fill_demo() -> None:  # the state `paperscout demo` keeps apart, under home/demo
        async with open_core(Settings(home=tmp_path / "home" / "demo"), embedder) as demo:
            await fill_site_store(demo, demo_papers)

    asyncio.run(fill_demo())
    assert main(["site", "build", str(tmp_path / "demo-site"), "--demo"]) == 0
    assert "site: 2 archives, 4 day pages" in capsys.readouterr().out
    assert (tmp_path / "demo-site" / "ml-foundations" / "2025-06-02.html").is_file()


async def test_a_week_page_shows_the_weeks_posted_papers_as_a_topic_tree(
    core: Core, demo_papers: list[Paper], tmp_path: Path
) -> None:
    store = await fill_site_store(core, demo_papers)
    papers = [p for day in DAYS for p in store.papers[day]]
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(3, 384))  # three themes, so the tree has something to find
    vectors = np.asarray([centres[n % 3] + 0.2 * rng.normal(size=384) for n in range(len(papers))], dtype=np.float32)
    await core.vectors.upsert(papers, vectors)
    out = tmp_path / "site"
    await build_site(core, out, EXAMPLE)
    weeks = sorted(p.name for p in (out / "ml-foundations").glob("week-*.html"))
    assert weeks == ["week-2025-05-26.html", "week-2025-06-02.html"]
    page = Page((out / "ml-foundations" / "week-2025-05-26.html").read_text(encoding="utf-8"))
    text = " ".join(page.text)
    assert "ML foundations: the week of 2025-05-26 – 2025-06-01" in text
    assert any(tag == "h2" and attrs.get("class") == "topic" for tag, attrs in page.tags)
    days = [Page((out / "ml-foundations" / f"{d.isoformat()}.html").read_text(encoding="utf-8")) for d in DAYS[:2]]
    posted = {i for day in days for i in day.ids if i.startswith("p-")}
    shown = [i for i in page.ids if i.startswith("p-")]
    assert posted and sorted(shown) == sorted(posted), "every paper posted that week"
    assert text.count("TL;DR") >= len(posted) - 1
    index = (out / "ml-foundations" / "index.html").read_text(encoding="utf-8")
    assert 'href="week-2025-05-26.html"' in index
