"""Answers to paperscout's own prompts (prompts/score.md, prompts/tldr.md) for the OpenAI fake.

`PaperscoutResponder` reads the numbered ``N| text`` lines of the ``<papers>`` block and answers the way a
compliant model would: valid JSON with a [N, relevance, novelty] triple per paper, a comment of about ten
words for papers with relevance 8 or more, and TL;DRs of about 20 words. Grades come from `grade`, which by
default measures word overlap with the profile, the ``<profile>`` block of the user message (deterministic,
plausible enough for a manual check); tests and benchmarks override it. Lengths are realistic on purpose:
the token benchmark counts them.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

_LINE = re.compile(r"^(\d+)\| (.*)$", re.MULTILINE)
_WORD = re.compile(r"[a-z][a-z0-9\-]{2,}")
_STOP = frozenset(
    "the and for with from that this are our its their into via using based new model models method methods "
    "learning paper approach results show data task tasks which these can not".split()
)
_NOVEL = ("theor", "prove", "provabl", "bound", "paradigm", "new class", "first", "principle", "law")


def request_kind(request: dict[str, Any]) -> str | None:
    """'score', 'tldr' or None, from the requested schema or the answer format the system prompt asks for."""
    fmt = request.get("response_format")
    if isinstance(fmt, dict):
        props = ((fmt.get("json_schema") or {}).get("schema") or {}).get("properties") or {}
        if "scores" in props:
            return "score"
        if "tldrs" in props:
            return "tldr"
    system = " ".join(str(m.get("content", "")) for m in request.get("messages", []) if m.get("role") == "system")
    if '"scores"' in system:
        return "score"
    if '"tldrs"' in system:
        return "tldr"
    return None


def request_papers(request: dict[str, Any]) -> list[tuple[int, str]]:
    """The numbered papers of the data block in the last user message."""
    users = [m for m in request.get("messages", []) if m.get("role") == "user"]
    text = str(users[-1].get("content", "")) if users else ""
    return [(int(m.group(1)), m.group(2)) for m in _LINE.finditer(text)]


def profile_topics(request: dict[str, Any]) -> list[tuple[str, set[str]]]:
    """(topic name, its words) for each ``- name: want`` line of the user message's ``<profile>`` block."""
    user = "\n".join(str(m.get("content", "")) for m in request.get("messages", []) if m.get("role") == "user")
    block = user.split("<profile>", 1)[1].split("</profile>", 1)[0] if "<profile>" in user else ""
    topics = []
    for line in block.splitlines():
        if line.startswith("- ") and ":" in line:
            name, want = line[2:].split(":", 1)
            want = want.split("(not:", 1)[0]
            topics.append((name.strip(), _words(want)))
    return topics


def _title_cased(segment: str) -> bool:
    words = [w for w in segment.split()[1:] if len(w) > 3]  # a sentence starts with a capital too
    return bool(words) and sum(w[0].isupper() for w in words) >= 0.7 * len(words)


def split_line(text: str) -> tuple[str, str]:
    """(title, rest) of a ``title: text`` line. Titles may contain ": " themselves (subtitles), so the title runs
    through every following segment that is still title-cased."""
    parts = text.split(": ")
    cut = 1
    while cut < len(parts) - 1 and _title_cased(parts[cut]):
        cut += 1
    return ": ".join(parts[:cut]), ": ".join(parts[cut:])


def _words(text: str) -> set[str]:
    return {w.rstrip("s") for w in _WORD.findall(text.lower()) if w not in _STOP}


def _hash_unit(text: str) -> float:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little") / 2**32


class PaperscoutResponder:
    """A `Responder` for FakeOpenAI that answers score and TL;DR prompts; anything else gets `fallback`."""

    def __init__(self, fallback: str = "I can only answer paperscout prompts.", *, garbage_every: int = 0) -> None:
        """`garbage_every` = N > 0 makes every Nth answer junk (prose, cut JSON or a wrong shape, in turn)."""
        self.fallback = fallback
        self.garbage_every = garbage_every
        self.answered = 0

    def __call__(self, request: dict[str, Any]) -> str:
        self.answered += 1
        if self.garbage_every and self.answered % self.garbage_every == 0:
            junk = ("Sure! These papers all look great to me.", '{"scores": [[1, 9', '{"papers": "all good"}')
            return junk[(self.answered // self.garbage_every) % len(junk)]
        kind = request_kind(request)
        papers = request_papers(request)
        if kind == "score":
            return self.score_reply(request, papers)
        if kind == "tldr":
            return self.tldr_reply(papers)
        return self.fallback

    def grade(self, request: dict[str, Any], text: str) -> tuple[int, int, str]:
        """Relevance, novelty and the best-matching topic's name for one paper line."""
        words = _words(text)
        best_name, best_overlap = "", 0
        for name, topic_words in profile_topics(request):
            overlap = len(words & topic_words)
            if overlap > best_overlap:
                best_name, best_overlap = name, overlap
        relevance = max(1, min(10, 3 + 2 * best_overlap + round(2 * _hash_unit(text))))
        lowered = text.lower()
        novelty = max(1, min(10, 4 + 2 * sum(cue in lowered for cue in _NOVEL) + round(2 * _hash_unit(text[::-1]))))
        return relevance, novelty, best_name

    def comment(self, topic: str, text: str) -> str:
        """About ten words naming the matching interest, as the rubric asks (at most 12)."""
        title = split_line(text)[0]
        return f"Matches {topic or 'your interests'}: " + " ".join(title.split()[:6])

    def score_reply(self, request: dict[str, Any], papers: list[tuple[int, str]]) -> str:
        """The JSON answer to a score prompt."""
        scores, comments = [], []
        for key, text in papers:
            relevance, novelty, topic = self.grade(request, text)
            scores.append([key, relevance, novelty])
            if relevance >= 8:
                comments.append({"id": key, "text": self.comment(topic, text)})
        return json.dumps({"scores": scores, "comments": comments})

    def tldr_reply(self, papers: list[tuple[int, str]]) -> str:
        """The JSON answer to a TL;DR prompt: about 20 words of the abstract per paper."""
        tldrs = []
        for key, text in papers:
            body = split_line(text)[1] or text
            tldrs.append({"id": key, "text": " ".join(body.split()[:20]).rstrip(".,;:") + "."})
        return json.dumps({"tldrs": tldrs})
