"""Checks on what an LLM wrote before anyone sees it.

Abstracts, questions and profiles reach the model as data, and the prompts say so; a model may still obey an
instruction hidden there. What it then writes shows it: it repeats its instructions (it was asked to print its
prompt), or it carries mentions, HTML or links that no answer, comment or TL;DR asked for in plain sentences needs.
Such text is not used: answers fall back to the extractive answer, comments are dropped, TL;DRs stay extractive.
The platform escapes would make the mentions and markup inert anyway; this keeps the attacker's words out too.
"""

from __future__ import annotations

import re

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


def quotes_instructions(reply: str, instructions: str, run: int = QUOTE_WORDS) -> bool:
    """True when `reply` repeats `run` or more consecutive words of `instructions` (case and punctuation aside)."""
    said = _WORD.findall(instructions.lower())
    shingles = {tuple(said[i : i + run]) for i in range(len(said) - run + 1)}
    words = _WORD.findall(reply.lower())
    return any(tuple(words[i : i + run]) in shingles for i in range(len(words) - run + 1))


def carries_markup(reply: str) -> bool:
    """True when `reply` holds a mass or user/role mention, an HTML tag, a Markdown link or a script URL."""
    return _STEERED.search(reply) is not None


def steered(reply: str, instructions: str) -> str:
    """Why `reply` looks written on an injected instruction ('' when it does not)."""
    if quotes_instructions(reply, instructions):
        return "quoted its instructions"
    if carries_markup(reply):
        return "carried mentions or markup"
    return ""
