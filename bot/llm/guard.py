"""Checks on what an LLM wrote before anyone sees it.

Abstracts, questions and profiles reach the model as data, and the prompts say so; a model may still obey an
instruction hidden there. What it then writes shows it: it repeats its instructions (it was asked to print its
prompt), or it carries mentions, HTML or links that no answer, comment or TL;DR asked for in plain sentences needs.
Such text is not used: answers fall back to the extractive answer, comments are dropped, TL;DRs stay extractive.
The platform escapes would make the mentions and markup inert anyway; this keeps the attacker's words out too.
A web address is a link on every platform whatever the escaping (clients link bare addresses themselves), so the
only addresses allowed are arXiv's pages of the papers an answer cites; comments and TL;DRs may hold none.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urlsplit

QUOTE_WORDS = 8  # this many consecutive words of the instructions in a reply are a quotation, not chance
_WORD = re.compile(r"[a-z0-9]+")
_STEERED = re.compile(
    r"@(?:everyone|here)\b"  # mass mentions
    r"|<(?:[@#:!/]|a:|t:)[^<>\n]{0,100}>"  # user/role/channel mentions, slash commands, emoji, timestamps, closing tags
    r"|<[a-z][\w-]*(?:\s[^<>\n]{0,200})?/?>"  # HTML tags: <script>, <b>, <a href=...>, <img .../>
    r"|\[[^\]\n]{0,300}\]\(\s*[^)\s]+\s*\)"  # Markdown links, masked links
    r"|\b(?:javascript|data|vbscript):",
    re.IGNORECASE,
)

# Anything a chat client would turn into a link: a scheme, "www.", or host.tld (with or without a path).
_ADDRESS = re.compile(
    r"\b[a-z][a-z0-9+.\-]{1,20}://[^\s<>\"'()\[\]]*"
    r"|\bwww\.[^\s<>\"'()\[\]]+"
    r"|\b(?:[a-z0-9](?:[a-z0-9\-]{0,62}[a-z0-9])?\.)+(?-i:[a-z]{2,24})\b(?:[/:?#][^\s<>\"'()\[\]]*)?",
    re.IGNORECASE,
)
_ARXIV_HOSTS = ("arxiv.org", "www.arxiv.org", "export.arxiv.org")


def foreign_links(reply: str, paper_ids: Iterable[str] = ()) -> list[str]:
    """The web addresses in `reply` that are not arXiv's page (abs/pdf/html) of one of `paper_ids`."""
    ids = {i.lower() for i in paper_ids}
    foreign = []
    for match in _ADDRESS.finditer(reply):
        address = match.group(0).rstrip(".,;:!?")
        if "://" not in address:
            address = "https://" + address
        try:
            parts = urlsplit(address)
            host = (parts.hostname or "").lower()
        except ValueError:
            host, parts = "", None
        if parts is None or parts.scheme.lower() not in ("http", "https") or host not in _ARXIV_HOSTS:
            foreign.append(match.group(0))
            continue
        kind, _, rest = parts.path.strip("/").partition("/")
        paper = re.sub(r"v\d+$", "", rest.removesuffix(".pdf")).lower()
        if kind not in ("abs", "pdf", "html") or paper not in ids or parts.query or parts.fragment:
            foreign.append(match.group(0))
    return foreign


def quotes_instructions(reply: str, instructions: str, run: int = QUOTE_WORDS) -> bool:
    """True when `reply` repeats `run` or more consecutive words of `instructions` (case and punctuation aside)."""
    said = _WORD.findall(instructions.lower())
    shingles = {tuple(said[i : i + run]) for i in range(len(said) - run + 1)}
    words = _WORD.findall(reply.lower())
    return any(tuple(words[i : i + run]) in shingles for i in range(len(words) - run + 1))


def carries_markup(reply: str) -> bool:
    """True when `reply` holds a mass or user/role mention, an HTML tag, a Markdown link or a script URL."""
    return _STEERED.search(reply) is not None


def steered(reply: str, instructions: str, cited: Iterable[str] = ()) -> str:
    """Why `reply` looks written on an injected instruction ('' when it does not); links may go only to the arXiv
    pages of the `cited` paper ids."""
    if quotes_instructions(reply, instructions):
        return "quoted its instructions"
    if carries_markup(reply):
        return "carried mentions or markup"
    if foreign_links(reply, cited):
        return "linked to a page that is not a cited paper"
    return ""
