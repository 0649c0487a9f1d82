"""A topic tree (`bot.topictree`) as plain text: headings, then one paper a line with its one-line note."""

from __future__ import annotations

from bot.topictree.tree import Topic, TopicPaper, TopicTree


def _paper_lines(paper: TopicPaper, indent: str) -> list[str]:
    where = f" <{paper.url}>" if paper.url else f" [{paper.id}]"
    lines = [f"{indent}- {paper.title}{where}"]
    if paper.line:
        lines.append(f"{indent}  {paper.line}")
    return lines


def _topic_lines(topic: Topic, depth: int) -> list[str]:
    indent = "  " * depth
    lines = [f"{indent}{topic.name} ({len(topic.all_papers())})"]
    if topic.note:
        lines.append(f"{indent}  {topic.note}")
    for sub in topic.subtopics:
        lines.extend(_topic_lines(sub, depth + 1))
    for paper in topic.papers:
        lines.extend(_paper_lines(paper, indent + "  "))
    return lines


def tree_text(tree: TopicTree) -> str:
    """The tree as indented plain text, a blank line between top-level topics."""
    if not tree.topics:
        return "No papers to group."
    blocks = ["\n".join(_topic_lines(topic, 0)) for topic in tree.topics]
    return f"{tree.paper_count} papers in {len(tree.topics)} topics\n\n" + "\n\n".join(blocks)
