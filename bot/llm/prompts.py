"""Prompt templates: Markdown files in `prompts/` with ``{placeholders}``, checked once at start-up.

A template has a system part and a user part, introduced by the lines ``<!-- system -->`` and ``<!-- user -->``;
other HTML comments are notes for whoever edits the file and never reach the model. Each template must use exactly
its required placeholders (`REQUIRED`), so a typo fails at start-up with a `ConfigError` instead of producing a
prompt with a hole in it.

Untrusted text (titles, abstracts) only enters a prompt through `papers_block`: whitespace is collapsed so a paper
cannot start a line of its own, and anything resembling the block's delimiters is removed, so the text stays inside
``<papers> ... </papers>``, which the templates tell the model to treat as data.
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bot.errors import ConfigError
from bot.models import Profile
from bot.text.safetext import clean_text

SYSTEM_MARK = "<!-- system -->"
USER_MARK = "<!-- user -->"
DATA_TAG = "papers"

# name -> placeholders the template must contain, each exactly once across its two parts.
REQUIRED: dict[str, frozenset[str]] = {
    "score": frozenset({"profile", "papers"}),
    "tldr": frozenset({"papers"}),
    "answer": frozenset({"question", "papers"}),
    "question": frozenset({"question", "today"}),
    "topics": frozenset({"papers"}),
}
# Placeholders that carry untrusted data and therefore must sit in the user message.
# A member's or channel's profile is typed by people too: it is data like an abstract, never an instruction.
DATA_PLACEHOLDERS = frozenset({"papers", "question", "profile"})

_COMMENT = re.compile(r"<!--(?!\s*(?:system|user)\s*-->).*?-->", re.DOTALL)
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# Opening or closing tags of the data blocks (<papers>, <question>), with any spacing or attributes, in any case.
_DELIMITER = re.compile(rf"<\s*/?\s*(?:{DATA_TAG}?|question|profile)\b[^>]*>", re.IGNORECASE)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


@dataclass(frozen=True, slots=True)
class PromptTemplate:
    """One checked template: its system and user parts and the placeholders they use."""

    name: str
    system: str
    user: str
    placeholders: frozenset[str]

    def messages(self, **values: str) -> list[dict[str, str]]:
        """The chat messages with every placeholder filled in (values are inserted verbatim, never re-parsed)."""
        missing = self.placeholders - values.keys()
        if missing:
            raise KeyError(f"prompt {self.name!r} needs {', '.join(sorted(missing))}")
        return [
            {"role": "system", "content": self.system.format(**values).strip()},
            {"role": "user", "content": self.user.format(**values).strip()},
        ]


@dataclass(frozen=True, slots=True)
class Prompts:
    """Every template paperscout uses, loaded and checked."""

    score: PromptTemplate
    tldr: PromptTemplate
    answer: PromptTemplate
    question: PromptTemplate
    topics: PromptTemplate


def _fields(text: str, where: str) -> list[str]:
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as exc:  # a lone { or }
        raise ConfigError(f"{where}: {exc} (write literal braces as {{{{ and }}}})") from None
    names = []
    for _, name, spec, conversion in parsed:
        if name is None:
            continue
        if not _IDENTIFIER.match(name) or spec or conversion:
            raise ConfigError(f"{where}: placeholder {{{name}}} must be a plain name like {{papers}}")
        names.append(name)
    return names


def parse_template(name: str, text: str, where: str = "") -> PromptTemplate:
    """Split and check one template's text; raises `ConfigError` naming the problem."""
    where = where or f"prompt {name!r}"
    body = _COMMENT.sub("", text)
    if body.count(SYSTEM_MARK) != 1 or body.count(USER_MARK) != 1 or body.find(SYSTEM_MARK) > body.find(USER_MARK):
        raise ConfigError(f"{where}: needs one '{SYSTEM_MARK}' line followed by one '{USER_MARK}' line")
    before, rest = body.split(SYSTEM_MARK)
    if before.strip():
        raise ConfigError(f"{where}: text before '{SYSTEM_MARK}' would be lost; move it into a part or a comment")
    system, user = rest.split(USER_MARK)
    system_fields, user_fields = _fields(system, where), _fields(user, where)
    used = system_fields + user_fields
    required = REQUIRED.get(name, frozenset())
    unknown = sorted(set(used) - required)
    if unknown:
        raise ConfigError(
            f"{where}: unknown placeholder {{{unknown[0]}}} (allowed: {', '.join(sorted(required)) or 'none'})"
        )
    for field in sorted(required):
        if used.count(field) != 1:
            raise ConfigError(f"{where}: placeholder {{{field}}} must appear exactly once (found {used.count(field)})")
    for field in sorted(DATA_PLACEHOLDERS & required):
        if field not in user_fields:
            raise ConfigError(f"{where}: {{{field}}} carries untrusted text and must be in the user part")
    return PromptTemplate(name=name, system=system, user=user, placeholders=required)


def load_prompts(directory: Path) -> Prompts:
    """Load and check every template from `directory` (``score.md``, ``tldr.md``, ``answer.md``, ``question.md``,
    ``topics.md``)."""
    templates = {}
    for name in REQUIRED:
        path = directory / f"{name}.md"
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"prompt template {path} cannot be read: {exc.strerror or exc}") from None
        templates[name] = parse_template(name, text, str(path))
    return Prompts(**templates)


def clean_untrusted(text: str, limit: int | None = None) -> str:
    """`text` on one line, without control characters or data-block delimiters, cut at a word to `limit` chars."""
    text = _DELIMITER.sub(" ", clean_text(_CONTROL.sub(" ", text)))
    text = " ".join(text.split())
    if limit is not None and len(text) > limit:
        cut = text[: max(0, limit - 1)]
        cut = cut[: cut.rfind(" ")] if " " in cut else cut
        text = cut.rstrip(",;:") + "…"
    return text


def papers_block(rows: Sequence[tuple[int, str]]) -> str:
    """The data block: one ``N| text`` line per row between ``<papers>`` tags, each text cleaned."""
    lines = [f"{key}| {clean_untrusted(text)}" for key, text in rows]
    return "\n".join([f"<{DATA_TAG}>", *lines, f"</{DATA_TAG}>"])


def profile_text(profile: Profile) -> str:
    """A compact rendering of a profile for prompts: one line per topic, then the keyword lists.

    Watched authors are left out on purpose: the local ranker lifts their papers, and the model should judge
    the work, not the names.
    """
    lines = []
    for topic in profile.topics:
        line = f"- {clean_untrusted(topic.name)}: {clean_untrusted(topic.want)}"
        if topic.avoid.strip():
            line += f" (not: {clean_untrusted(topic.avoid)})"
        lines.append(line)
    for label, words in (
        ("Boost", profile.boost),
        ("Penalize", profile.penalize),
        ("Off-topic applications", profile.applications),
    ):
        if words:
            lines.append(f"{label}: {', '.join(clean_untrusted(w) for w in words)}")
    return "\n".join(lines)
