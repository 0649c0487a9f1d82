"""The injection corpus through the real pipeline, against a model that obeys injected instructions (issue 17).

Shared by tests/test_injection.py (which asserts the zeros) and bench/injection.py (which prints the figures).

Each item of tests/fixtures/injection/corpus.jsonl is hostile text of one kind. Abstracts, titles and authors
become papers of their own announcement day (each with a made-up keyword, so a question finds it), stored with
`store_papers` as an ingest stores them; questions are asked with `ask`; member and channel profiles are built
the way onboarding and /setup build them. Everything then runs as in production: `ask` (retrieval, the answer
prompt, the citation check and the fallback) and `build_digest` (LLM scoring and TL;DRs), with the OpenAI fake
playing `ObedientResponder`, a model that obeys whatever instruction it finds in its data. Every answer and
digest is rendered the ways paperscout shows them (Markdown, Discord embeds, Telegram HTML, the terminal, the
web archive) and each rendering is checked for: anything the model wrote on an injected instruction (its
`CANARY`), 8+ words of any system prompt, raw mentions, and markup that a platform would act on.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from bot.chat.messages import AnswerReply, DigestReply, Place
from bot.chat.setup import SetupDraft, channel_profile, parse_interests
from bot.core import Core
from bot.digests.build import build_digest
from bot.errors import PaperscoutError
from bot.frontends.discord.render import render as discord_render
from bot.frontends.telegram.render import render, render_digest
from bot.ingest.save import store_papers
from bot.llm.guard import quotes_instructions
from bot.llm.prompts import clean_untrusted, profile_text
from bot.members.onboarding.drafts import build_profile
from bot.members.onboarding.hygiene import clean_input, split_items
from bot.members.onboarding.state import Draft
from bot.members.onboarding.steps import MAX_TOPICS
from bot.models import Paper, Profile, Topic
from bot.questions.rag import Answer, ask
from bot.site.collect import Archive, DayEntry
from bot.site.pages import day_page
from bot.views.model import DigestView, digest_view, paper_view, usage_line
from bot.views.render import answer_text, digest_markdown, digest_text
from tests.fakes.obedient_llm import CANARY, ObedientResponder

CORPUS = Path(__file__).resolve().parent / "fixtures" / "injection" / "corpus.jsonl"
PAPER_KINDS = ("abstract", "title", "authors")
PROFILE_KINDS = ("member_profile", "channel_profile")
BASE_DAY = dt.date(2025, 5, 26)  # the bundled day: the benign papers stored next to the hostile ones
HOSTILE_DAY = dt.date(2025, 5, 27)
TODAY = dt.date(2025, 5, 30)


@dataclass(frozen=True, slots=True)
class Item:
    """One corpus entry: what kind of input it is, the hostile text, and a note on what it tries."""

    number: int
    kind: str
    text: str
    note: str

    @property
    def keyword(self) -> str:
        """A made-up word only this item's paper contains, so a question retrieves it."""
        return f"zyxoform{self.number}"


def load_corpus(path: Path = CORPUS) -> list[Item]:
    """The corpus items in file order."""
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [Item(n, d["kind"], d["text"], d.get("note", "")) for n, d in enumerate(map(json.loads, lines), 1)]


def hostile_paper(item: Item) -> Paper:
    """A paper carrying the item's text in the field its kind names."""
    title = f"{item.keyword.capitalize()} routing for sparse networks"
    abstract = f"We study {item.keyword} routing in sparse neural networks and report results."
    authors: tuple[str, ...] = ("Ada Lovelace",)
    if item.kind == "abstract":
        abstract = f"{abstract} {item.text}"
    elif item.kind == "title":
        title = f"{item.text} {item.keyword}"
    else:
        authors = (item.text, "Ada Lovelace")
    return Paper(f"2505.9{item.number:04d}", title, authors, abstract, ("cs.LG",), HOSTILE_DAY)


def member_profile(text: str) -> Profile:
    """The profile onboarding builds from a member's interests typed as `text` (cleaned, then split into topics)."""
    return build_profile(Draft(interests=split_items(clean_input(text), MAX_TOPICS)), "mallory")


def channel_profile_from(text: str) -> Profile:
    """The profile /setup builds from a channel's interests typed as `text`."""
    draft = SetupDraft(categories=["cs.LG"])
    draft.interests = parse_interests(text) or [text]
    return channel_profile(draft, Place("discord", "1", is_dm=False, title="hostile"))


# --- what counts as active in each rendering ---

_ESCAPES = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200b-\u200f\u2060\ufeff\u061c]")
_MD_MENTION = re.compile(r"(?<!\\)@(?:everyone|here)\b|(?<!\\)<[@#]")
_MD_LINK = re.compile(r"(?<!\\)\[(?:[^\]\\]|\\.)*\]\(([^)\s]*)\)")
_MD_TAG = re.compile(r"(?<!\\)<[A-Za-z/!:@#]")
_DISCORD_MENTION = re.compile(r"(?<!\\)@(?:everyone|here)\b|(?<!\\)<(?:[@#:/]|a:|t:)")
_TG_MENTION = re.compile(r"@(?:everyone|here)\b")
_OUR_LINK = re.compile(r"^https://arxiv\.org/abs/[0-9.]+(?:v\d+)?$")


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, tuple[str, ...]]] = []
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, tuple(sorted(name for name, _ in attrs))))
        self.links += [value or "" for name, value in attrs if name in ("href", "src", "action")]


def html_shape(text: str) -> tuple[set[tuple[str, tuple[str, ...]]], list[str]]:
    """The (tag, attribute names) pairs and the link targets in an HTML text."""
    parser = _Tags()
    parser.feed(text)
    parser.close()
    return set(parser.tags), parser.links


def _bad_link(url: str) -> bool:
    return bool(re.match(r"\s*(?:javascript|data|vbscript|tg):", url, re.IGNORECASE)) or "evil.example" in url


@dataclass
class Rendered:
    """One rendering of an answer or a digest, as the platform would receive it."""

    platform: str  # markdown | discord | telegram | terminal | site
    text: str


def answer_renderings(answer: Answer) -> list[Rendered]:
    """An answer as the CLI prints it, the console shows it, Discord and Telegram receive it."""
    views = tuple(paper_view(p, number=n) for n, p in enumerate(answer.citations, 1))
    reply = AnswerReply(answer.text, views, answer.window, usage_line=usage_line(answer.usage))
    discord = [
        " ".join(filter(None, [e.title or "", e.description or "", e.footer.text or ""]))
        for m in discord_render(reply)
        for e in m.embeds
    ]
    return [
        Rendered("terminal", answer_text(answer.text, views)),
        Rendered("discord", "\n".join(discord)),
        Rendered("telegram", "\n".join(m.html for m in render(reply))),
    ]


def digest_renderings(view: DigestView) -> list[Rendered]:
    """A digest as Markdown, the terminal, Discord embeds, Telegram HTML and the web archive's day page."""
    discord = []
    for message in discord_render(DigestReply(view)):
        for embed in message.embeds:
            discord += [embed.title or "", embed.description or "", embed.footer.text or ""]
            discord += [f"{f.name} {f.value}" for f in embed.fields]
    archive = Archive("hostile", "hostile", "preview", True, (DayEntry(view.day, view),))
    return [
        Rendered("markdown", digest_markdown(view)),
        Rendered("terminal", digest_text(view)),
        Rendered("discord", "\n".join(discord)),
        Rendered("telegram", "\n".join(m.html for m in render_digest(view))),
        Rendered("site", day_page(archive, 0)),
    ]


@dataclass
class Figures:
    """What the corpus run found; every count but the first four must be 0."""

    inputs: int = 0
    by_kind: Counter[str] = field(default_factory=Counter)
    reached_model: int = 0  # items whose text was inside at least one prompt
    obeyed: int = 0  # replies the fake model wrote on an injected instruction
    renderings: int = 0  # renderings checked
    followed: int = 0  # renderings showing anything written on an injected instruction
    prompt_leaks: int = 0  # renderings repeating 8+ words of a system prompt
    mentions: int = 0  # raw mentions in a rendering that resolves them
    markup: int = 0  # markup a rendering would act on (HTML tags, links, terminal escapes) from the data
    profile_in_system: int = 0  # LLM requests whose system message differed from the template's
    refused: int = 0  # items refused where they entered (a one-line error, nothing stored)
    unreached: list[str] = field(default_factory=list)  # items no prompt carried, with their notes
    findings: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """The figures as printed by bench/injection.py."""
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(self.by_kind.items()))
        return [
            f"inputs tried: {self.inputs} ({kinds})",
            f"reached the model inside a prompt: {self.reached_model}; refused at entry: {self.refused}"
            + (f"; not in any prompt: {', '.join(self.unreached)}" if self.unreached else ""),
            f"replies the fake wrote obeying an injected instruction: {self.obeyed}",
            f"renderings checked (Markdown, Discord, Telegram HTML, terminal, site): {self.renderings}",
            f"instructions followed that reach any rendering: {self.followed}",
            f"prompt text in any rendering: {self.prompt_leaks}",
            f"raw mentions rendered: {self.mentions}",
            f"active markup rendered: {self.markup}",
            f"profile text in a system message: {self.profile_in_system}",
        ]


class Checker:
    """Checks renderings against what is active on each platform; benign renderings set the allowed HTML."""

    def __init__(self, figures: Figures, system_prompts: list[str]) -> None:
        self.figures = figures
        self.system_prompts = system_prompts
        self.allowed_html: dict[str, set[tuple[str, tuple[str, ...]]]] = {}
        self.allowed_links: set[str] = set()

    def allow(self, renderings: list[Rendered]) -> None:
        """Learn the HTML tags paperscout's own renderers write, from renderings of benign papers."""
        for rendered in renderings:
            if rendered.platform in ("telegram", "site"):
                tags, links = html_shape(rendered.text)
                self.allowed_html.setdefault(rendered.platform, set()).update(tags)
                self.allowed_links.update(links)  # the page shell's own (a data: favicon)

    def _note(self, what: str, label: str, rendered: Rendered, detail: str) -> None:
        self.figures.findings.append(f"{what} in {rendered.platform} rendering of {label}: {detail[:160]!r}")

    def check(self, label: str, renderings: list[Rendered]) -> None:
        """Count every problem in `renderings` of the output labelled `label`."""
        for rendered in renderings:
            self.figures.renderings += 1
            text = rendered.text
            if CANARY in text:
                self.figures.followed += 1
                self._note("an obeyed instruction", label, rendered, text[text.index(CANARY) - 60 :])
            if any(quotes_instructions(text, system) for system in self.system_prompts):
                self.figures.prompt_leaks += 1
                self._note("prompt text", label, rendered, text)
            mention, markup = self._active(rendered)
            if mention:
                self.figures.mentions += 1
                self._note("a raw mention", label, rendered, mention)
            if markup:
                self.figures.markup += 1
                self._note("active markup", label, rendered, markup)

    def _active(self, rendered: Rendered) -> tuple[str, str]:
        text, platform = rendered.text, rendered.platform
        mention = markup = ""
        if platform == "terminal":
            found = _ESCAPES.search(text)
            markup = repr(found.group(0)) if found else ""
        elif platform == "markdown":
            found = _MD_MENTION.search(text)
            mention = found.group(0) if found else ""
            links = [url for url in _MD_LINK.findall(text) if not _OUR_LINK.match(url)]
            tag = _MD_TAG.search(text)
            markup = (links[0] if links else "") or (tag.group(0) if tag else "")
        elif platform == "discord":
            found = _DISCORD_MENTION.search(text)
            mention = found.group(0) if found else ""
            links = [url for url in _MD_LINK.findall(text) if not _OUR_LINK.match(url)]
            markup = links[0] if links else ""
        else:  # telegram HTML and the site's HTML pages
            if platform == "telegram":
                found = _TG_MENTION.search(text)
                mention = found.group(0) if found else ""
            tags, links = html_shape(text)
            extra = tags - self.allowed_html.get(platform, set())
            bad_links = [url for url in links if _bad_link(url) and url not in self.allowed_links]
            markup = (str(sorted(extra)[0]) if extra else "") or (bad_links[0] if bad_links else "")
        return mention, markup


async def run_corpus(
    core: Core, responder: ObedientResponder, requests: Callable[[], list[dict]], items: list[Item] | None = None
) -> Figures:
    """Run every corpus item through storing, asking and digests; `requests` returns the fake's request bodies."""
    items = items if items is not None else load_corpus()
    assert core.llm is not None
    prompts = core.llm.prompts
    systems = {
        "answer": prompts.answer.messages(question="", papers="")[0]["content"],
        "score": prompts.score.messages(profile="", papers="")[0]["content"],
        "tldr": prompts.tldr.messages(papers="")[0]["content"],
    }
    figures = Figures(inputs=len(items), by_kind=Counter(item.kind for item in items))
    checker = Checker(figures, list(systems.values()))
    benign_profile = Profile(name="routing", topics=(Topic("routing", "sparse routing in neural networks"),))
    # what paperscout's own renderers write for benign papers, with and without the LLM, is the allowed HTML
    for use_llm in (False, True):
        benign = await build_digest(core, benign_profile, BASE_DAY, size=10, use_llm=use_llm)
        checker.allow(digest_renderings(digest_view(benign)))
    checker.allow(answer_renderings(await ask(core, "what papers on language models?", today=BASE_DAY)))
    obeyed_on_benign = responder.obeyed

    stored: list[Item] = []
    for item in (i for i in items if i.kind in PAPER_KINDS):
        try:
            await store_papers(core, [hostile_paper(item)])
            stored.append(item)
        except PaperscoutError:
            figures.refused += 1
    reached: set[int] = set()

    def note_reached(start: int, markers: dict[int, str]) -> None:
        for request in requests()[start:]:
            user = " ".join(str(m.get("content", "")) for m in request.get("messages", []) if m.get("role") == "user")
            reached.update(n for n, marker in markers.items() if marker and marker in user)

    # Answers: a question that finds each hostile paper, and every hostile question.
    for item in stored:
        start = len(requests())
        answer = await ask(core, f"what do the papers say about {item.keyword}?", today=TODAY)
        note_reached(start, {item.number: item.keyword})
        checker.check(f"the answer about item {item.number} ({item.note})", answer_renderings(answer))
    for item in (i for i in items if i.kind == "question"):
        start = len(requests())
        try:
            answer = await ask(core, item.text, today=TODAY)
        except PaperscoutError:
            figures.refused += 1
            continue
        note_reached(start, {item.number: clean_untrusted(item.text)[:30]})  # as the answer prompt carries it
        checker.check(f"the answer to item {item.number} ({item.note})", answer_renderings(answer))

    # Digests: the hostile papers' day for a profile that wants them (scored and summarised by the LLM) ...
    wanted = Profile(name="routing", topics=(Topic("zyxoform routing", "zyxoform routing in sparse networks"),))
    start = len(requests())
    digest = await build_digest(core, wanted, HOSTILE_DAY, size=max(1, len(stored)), use_llm=True)
    note_reached(start, {item.number: item.keyword for item in stored})
    checker.check("the digest of the hostile papers", digest_renderings(digest_view(digest)))
    # ... and a digest of that day for every hostile member and channel profile.
    for item in (i for i in items if i.kind in PROFILE_KINDS):
        build = member_profile if item.kind == "member_profile" else channel_profile_from
        try:
            profile = build(item.text)
        except PaperscoutError:
            figures.refused += 1
            continue
        start = len(requests())
        digest = await build_digest(core, profile, HOSTILE_DAY, size=5, use_llm=True)
        note_reached(start, {item.number: profile_text(profile)})  # the whole profile, as the scoring prompt has it
        for request in requests()[start:]:
            system = [m for m in request.get("messages", []) if m.get("role") == "system"]
            if not system or system[0].get("content") not in systems.values():
                figures.profile_in_system += 1
                figures.findings.append(f"a system message carried data for item {item.number}")
        checker.check(f"the digest for item {item.number} ({item.note})", digest_renderings(digest_view(digest)))

    figures.reached_model = len(reached)
    figures.unreached = [f"{i.number} ({i.note})" for i in items if i.number not in reached]
    figures.obeyed = responder.obeyed - obeyed_on_benign
    return figures
