"""The topic tree's data: topics with subtopics or papers, one line per paper."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class PaperText:
    """A paper to group: an id (any string), its title and abstract (or any text), and what to show for it."""

    id: str
    title: str
    abstract: str
    line: str = ""  # the one line shown under the title (a TL;DR); empty: the abstract's key sentence
    url: str = ""


@dataclass(frozen=True, slots=True)
class TopicPaper:
    """One paper in the tree: its id (any string), title, the one line that says what it does, and a link if any."""

    id: str
    title: str
    line: str = ""
    url: str = ""


@dataclass(frozen=True, slots=True)
class Topic:
    """A named group. A top-level topic holds either subtopics or, when it was not split, papers directly."""

    name: str
    papers: tuple[TopicPaper, ...] = ()
    subtopics: tuple[Topic, ...] = ()
    note: str = ""

    def all_papers(self) -> list[TopicPaper]:
        """The topic's papers, its subtopics' in order included."""
        return [*self.papers, *(p for sub in self.subtopics for p in sub.papers)]

    def as_json(self) -> dict[str, Any]:
        """A JSON-ready form: name, note, and subtopics or papers."""
        out: dict[str, Any] = {"name": self.name}
        if self.note:
            out["note"] = self.note
        if self.subtopics:
            out["subtopics"] = [sub.as_json() for sub in self.subtopics]
        if self.papers:
            out["papers"] = [_paper_json(p) for p in self.papers]
        return out


def _paper_json(paper: TopicPaper) -> dict[str, str]:
    out = {"id": paper.id, "title": paper.title, "line": paper.line}
    if paper.url:
        out["url"] = paper.url
    return out


@dataclass(frozen=True, slots=True)
class TopicTree:
    """Papers as a two-level tree of named topics, the largest topic first."""

    topics: tuple[Topic, ...] = ()
    named_by: str = "words"  # words | llm: who wrote the headings
    stats: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def paper_count(self) -> int:
        """How many papers the tree holds."""
        return sum(len(t.all_papers()) for t in self.topics)

    def labels(self) -> dict[str, int]:
        """Each paper id's top-level topic, by position: what agreement with human topics is measured on."""
        return {p.id: i for i, topic in enumerate(self.topics) for p in topic.all_papers()}

    def as_json(self) -> dict[str, Any]:
        """A JSON-ready form of the whole tree."""
        return {"papers": self.paper_count, "named_by": self.named_by, "topics": [t.as_json() for t in self.topics]}
