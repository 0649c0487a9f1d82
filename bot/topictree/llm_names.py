"""With an LLM: better headings and a one-line note per topic, in one request for the whole tree.

The offline tree is built first; the model sees each group as its draft heading and a few of its papers' titles (the
titles are outside text, inside the delimited data block) and answers with a heading and a note per group. A heading
or note that is missing, too long, or looks steered by a title keeps the offline heading and no note. The request is
sized before it is sent (`request_tokens`) and not sent when the daily budget would not cover it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from bot.errors import SourceUnavailable
from bot.llm.client import Budget, LLMClient, estimate_message_tokens
from bot.llm.guard import steered
from bot.llm.prompts import PromptTemplate, clean_untrusted, papers_block
from bot.llm.replies import as_key, load_json_object

from .naming import MAX_HEADING
from .tree import Topic, TopicTree

LLM_PURPOSE = "topics"
TITLES_PER_GROUP = 6  # the draft heading and six titles say what a group is about
TITLE_CHARS = 90
NOTE_CHARS = 160
TOKENS_PER_GROUP_REPLY = 45  # a heading and a 20-word note in JSON
TOPICS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "topics": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, "note": {"type": "string"}},
                "required": ["id", "name", "note"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["topics"],
    "additionalProperties": False,
}


def _groups(tree: TopicTree) -> list[tuple[Topic, str]]:
    """Every group of the tree, top-level topics and subtopics, each with its parent's heading ('' at the top)."""
    out: list[tuple[Topic, str]] = []
    for topic in tree.topics:
        out.append((topic, ""))
        out += [(sub, topic.name) for sub in topic.subtopics]
    return out


def topic_messages(template: PromptTemplate, tree: TopicTree) -> list[dict[str, str]]:
    """The request: one data line per group, 'N| draft heading [under: parent]: title; title; ...'."""
    rows = []
    for number, (group, parent) in enumerate(_groups(tree), 1):
        titles = "; ".join(clean_untrusted(p.title, TITLE_CHARS) for p in group.all_papers()[:TITLES_PER_GROUP])
        under = f" [under: {parent}]" if parent else ""
        rows.append((number, f"{group.name}{under}: {titles}"))
    return template.messages(papers=papers_block(rows))


def request_tokens(template: PromptTemplate, tree: TopicTree) -> tuple[int, int]:
    """The request's estimated prompt tokens and the completion tokens it allows."""
    messages = topic_messages(template, tree)
    return estimate_message_tokens(messages), TOKENS_PER_GROUP_REPLY * len(_groups(tree)) + 20


def _accepted(reply: dict[str, Any], instructions: str) -> dict[int, tuple[str, str]]:
    out: dict[int, tuple[str, str]] = {}
    for entry in reply.get("topics") or []:
        if not isinstance(entry, dict):
            continue
        key, name, note = as_key(entry.get("id")), entry.get("name"), entry.get("note") or ""
        if key is None or not isinstance(name, str) or not isinstance(note, str):
            continue
        name, note = clean_untrusted(name), clean_untrusted(note)
        if not name or len(name) > MAX_HEADING or len(note) > NOTE_CHARS * 2:
            continue
        if steered(f"{name} {note}", instructions):
            continue
        out.setdefault(key, (name, clean_untrusted(note, NOTE_CHARS)))
    return out


def _renamed(tree: TopicTree, names: dict[int, tuple[str, str]]) -> TopicTree:
    number = 0

    def named(topic: Topic) -> Topic:
        nonlocal number
        number += 1
        name, note = names.get(number, (topic.name, ""))
        return replace(topic, name=name, note=note)

    topics = []
    for topic in tree.topics:
        top = named(topic)
        topics.append(replace(top, subtopics=tuple(named(sub) for sub in topic.subtopics)))
    return replace(tree, topics=tuple(topics), named_by="llm")


async def llm_named_tree(
    client: LLMClient, template: PromptTemplate, tree: TopicTree, budget: Callable[[], Awaitable[Budget]]
) -> tuple[TopicTree, str]:
    """The tree with the model's headings and notes, and a footer note ('' if none); the offline tree unchanged when
    the budget does not cover the request or the model fails."""
    if not tree.topics:
        return tree, ""
    messages = topic_messages(template, tree)
    _, max_tokens = request_tokens(template, tree)
    current = await budget()
    if not current.allows(client.estimate_cost(messages, max_tokens)):
        return tree, "Daily LLM budget reached; topic headings are the papers' own words."
    try:
        result = await client.chat(messages, json_schema=TOPICS_SCHEMA, max_tokens=max_tokens, purpose=LLM_PURPOSE)
    except SourceUnavailable as exc:
        return tree, f"LLM topic headings failed ({exc}); headings are the papers' own words."
    reply = load_json_object(result.text) or {}
    names = _accepted(reply, messages[0]["content"])
    if not names:
        return tree, "The LLM gave no usable topic headings; headings are the papers' own words."
    return _renamed(tree, names), ""
