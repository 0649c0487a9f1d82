"""The archive's pages as HTML strings: a day's digest, a month's overview, an archive's and the site's index,
the search page and its index. Paths are relative (`root` leads back to the top), so the folder can be served by
any static host or opened from disk."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from bot.site.collect import Archive, DayEntry
from bot.site.html import SITE_NAME, esc, link, page
from bot.text.safetext import clean_text
from bot.text.wording import count_of
from bot.views.model import PaperView, usage_line
from bot.views.render import authors_line, judgement_line

TOP_TOPICS = 5
SEARCH_SCRIPTS = ("search-index.js", "search.js")
_TOPIC = re.compile(r"^closest to topic '(?P<topic>.+)' \(similarity")


def day_file(day: dt.date) -> str:
    """'2025-05-26.html'."""
    return f"{day.isoformat()}.html"


def month_key(day: dt.date) -> str:
    """'2025-05'."""
    return f"{day.year:04d}-{day.month:02d}"


def month_file(month: str) -> str:
    """'2025-05.html'."""
    return f"{month}.html"


def month_name(month: str) -> str:
    """'May 2025'."""
    return dt.date.fromisoformat(month + "-01").strftime("%B %Y")


def paper_anchor(paper_id: str) -> str:
    """The id of a paper's section on a day page ('p-2505.17639')."""
    return "p-" + paper_id


def paper_topics(item: PaperView) -> list[str]:
    """The profile topic a paper matched, from the ranker's reasons ('closest to topic 'X' ...'; a boost keyword
    that matched closer is not a topic)."""
    return [m.group("topic") for reason in item.reasons if (m := _TOPIC.match(reason))]


def months_of(archive: Archive) -> dict[str, list[DayEntry]]:
    """The archive's days grouped by month, oldest first."""
    grouped: dict[str, list[DayEntry]] = {}
    for entry in archive.days:
        grouped.setdefault(month_key(entry.day), []).append(entry)
    return grouped


def _paper_html(item: PaperView) -> str:
    parts = [
        f'<article class="paper" id="{esc(paper_anchor(item.id))}">',
        f'<h2><span class="num">{item.number}.</span> {link(item.url, item.title)}</h2>',
        f'<p class="meta">{link(item.url, "arXiv:" + item.id)} · {esc(authors_line(item.authors))}'
        + (f' · <span class="cats">{esc(", ".join(item.categories[:4]))}</span>' if item.categories else "")
        + "</p>",
    ]
    if item.tldr:
        parts.append(f'<p class="tldr"><strong>TL;DR</strong> {esc(item.tldr)}</p>')
    judged = judgement_line(item)
    if judged:
        parts.append(f'<p class="standing">{esc(judged)}</p>')
    if item.author_hits:
        parts.append(f'<p class="watch"><strong>Author watch:</strong> {esc(", ".join(item.author_hits))}</p>')
    if item.comment:
        parts.append(f'<p class="comment"><strong>Comment:</strong> {esc(item.comment)}</p>')
    if item.reasons:
        reasons = "".join(f"<li>{esc(r)}</li>" for r in item.reasons)
        parts.append(f'<div class="why"><strong>Why it matched</strong><ul>{reasons}</ul></div>')
    parts.append("</article>")
    return "\n".join(parts)


def _pager(prev: tuple[str, str] | None, up: tuple[str, str], nxt: tuple[str, str] | None, label: str) -> str:
    """Previous / up / next links; a missing side is shown greyed, not as a link."""
    left = link(prev[0], f"← {prev[1]}", rel="prev") if prev else '<span class="none">← none</span>'
    right = link(nxt[0], f"{nxt[1]} →", rel="next") if nxt else '<span class="none">none →</span>'
    return f'<nav class="pager" aria-label="{esc(label)}">{left}{link(up[0], up[1])}{right}</nav>'


def day_page(archive: Archive, index: int) -> str:
    """One day's digest as it was posted: header, papers with links, TL;DRs and why they matched, prev/next day."""
    entry = archive.days[index]
    view = entry.view
    prev = archive.days[index - 1] if index > 0 else None
    nxt = archive.days[index + 1] if index + 1 < len(archive.days) else None
    month = month_key(entry.day)
    pager = _pager(
        (day_file(prev.day), prev.day.isoformat()) if prev else None,
        (month_file(month), month_name(month)),
        (day_file(nxt.day), nxt.day.isoformat()) if nxt else None,
        "Days",
    )
    facts = [esc(view.summary)]
    if entry.sent_at:
        facts.append(f"Posted {esc(entry.sent_at.replace('T', ' ').removesuffix('Z'))} UTC.")
    cost = usage_line(view.usage)
    if cost:
        facts.append(esc(cost))
    notes = "".join(f"<p>{esc(note)}</p>" for note in view.notes)
    papers = "\n".join(_paper_html(item) for item in view.items) or "<p>No papers matched this profile this day.</p>"
    body = f"""<h1>{esc(view.title)}</h1>
<p class="lede">{" ".join(facts)}</p>
{f'<p class="preview">{esc(archive.where)}</p>' if archive.preview else ""}
{pager}
<section class="papers" aria-label="Papers">
{papers}
</section>
{f'<aside class="notes">{notes}</aside>' if notes else ""}
{pager}"""
    return page(
        title=f"{view.title} · {SITE_NAME}",
        body=body,
        root="../",
        crumbs=[("index.html", archive.title), (month_file(month), month_name(month))],
    )


def _counts(items: Sequence[str], limit: int) -> list[tuple[str, int]]:
    """The most frequent strings, ties broken alphabetically (so the page is the same every build)."""
    return sorted(Counter(items).items(), key=lambda kv: (-kv[1], kv[0]))[:limit]


def _count_list(title: str, counts: list[tuple[str, int]]) -> str:
    if not counts:
        return ""
    rows = "".join(f'<li>{esc(name)} <span class="count">{n}</span></li>' for name, n in counts)
    return f'<h2>{esc(title)}</h2>\n<ol class="top">{rows}</ol>'


def month_page(archive: Archive, month: str) -> str:
    """A month's overview: papers per day (with a bar), each day's top topic, and the month's top topics."""
    months = months_of(archive)
    keys = list(months)
    at = keys.index(month)
    entries = months[month]
    most = max((e.view.picked for e in entries), default=0) or 1
    rows = []
    for e in entries:
        topics = _counts([t for item in e.view.items for t in paper_topics(item)], 1)
        rows.append(
            f"<tr><td>{link(day_file(e.day), e.day.strftime('%a %d'))}</td>"
            f'<td class="n">{e.view.picked}</td><td class="n">{e.view.scanned}</td>'
            f'<td class="bar"><span style="width:{round(100 * e.view.picked / most)}%"></span></td>'
            f"<td>{esc(topics[0][0]) if topics else ''}</td></tr>"
        )
    items = [item for e in entries for item in e.view.items]
    picked = len(items)
    topics = _count_list("Top topics", _counts([t for i in items for t in paper_topics(i)], TOP_TOPICS))
    cats = _count_list("Top categories", _counts([i.categories[0] for i in items if i.categories], TOP_TOPICS))
    pager = _pager(
        (month_file(keys[at - 1]), month_name(keys[at - 1])) if at > 0 else None,
        ("index.html", "All months"),
        (month_file(keys[at + 1]), month_name(keys[at + 1])) if at + 1 < len(keys) else None,
        "Months",
    )
    body = f"""<h1>{esc(archive.title)}: {esc(month_name(month))}</h1>
<p class="lede">{len(entries)} digest{"s" if len(entries) != 1 else ""}, {picked} papers picked.</p>
{pager}
<div class="table-wrap"><table class="month">
<caption>Papers per day</caption>
<thead><tr><th scope="col">Day</th><th scope="col">Picked</th><th scope="col">Scanned</th>
<th scope="col"><span class="visually-hidden">Share</span></th><th scope="col">Top topic</th></tr></thead>
<tbody>
{chr(10).join(rows)}
</tbody>
</table></div>
{topics}
{cats}"""
    return page(
        title=f"{archive.title}: {month_name(month)} · {SITE_NAME}",
        body=body,
        root="../",
        crumbs=[("index.html", archive.title)],
    )


def week_file(start: dt.date) -> str:
    """The page of the week starting on Monday `start`."""
    return f"week-{start.isoformat()}.html"


def week_page(archive: Archive, index: int) -> str:
    """One week's posted papers as a topic tree: topic and subtopic headings, the papers under them."""
    entry = archive.weeks[index]
    view = entry.view
    groups = view.topic_groups()
    parts = []
    for group in groups:
        tag = "h2" if group.level == 1 else "h3"
        parts.append(f'<{tag} class="topic">{esc(group.heading)}</{tag}>')
        if group.note:
            parts.append(f'<p class="note">{esc(group.note)}</p>')
        parts += [_paper_html(item).replace("<h2>", "<h4>").replace("</h2>", "</h4>") for item in group.items]
    if not groups:
        parts = [_paper_html(item) for item in view.items]
    body = f"""<h1>{esc(view.title)}</h1>
<p class="lede">{esc(view.summary)}</p>
<section class="papers topics" aria-label="Papers by topic">
{chr(10).join(parts) or "<p>No papers were posted this week.</p>"}
</section>"""
    return page(title=f"{view.title} · {SITE_NAME}", body=body, root="../", crumbs=[("index.html", archive.title)])


def archive_index(archive: Archive) -> str:
    """An archive's own index: its months, newest first, each with its days."""
    sections = []
    for month, entries in reversed(months_of(archive).items()):
        days = "".join(
            f"<li>{link(day_file(e.day), e.day.strftime('%a %Y-%m-%d'))} "
            f'<span class="count">{e.view.picked} papers</span></li>'
            for e in reversed(entries)
        )
        sections.append(f'<h2>{link(month_file(month), month_name(month))}</h2>\n<ul class="days">{days}</ul>')
    if archive.weeks:
        weeks = "".join(
            f"<li>{link(week_file(w.start), 'Week of ' + w.start.isoformat())} "
            f'<span class="count">{w.view.picked} papers by topic</span></li>'
            for w in reversed(archive.weeks)
        )
        sections.insert(0, f'<h2>Weeks by topic</h2>\n<ul class="days">{weeks}</ul>')
    body = f"""<h1>{esc(archive.title)}</h1>
<p class="lede">{esc(archive.where)} · {count_of(len(archive.days), "day")}</p>
{chr(10).join(sections)}"""
    return page(title=f"{archive.title} · {SITE_NAME}", body=body, root="../")


def site_index(archives: Sequence[Archive]) -> str:
    """The site's front page: every archive with its latest day and its months."""
    if not archives:
        body = (
            f"<h1>{esc(SITE_NAME)}</h1>\n<p>No papers are stored yet: run <code>paperscout ingest</code> (or"
            " <code>paperscout demo</code>), then build the site again.</p>"
        )
        return page(title=SITE_NAME, body=body, root="")
    sections = []
    for archive in archives:
        latest = archive.days[-1]
        months = "".join(
            f"<li>{link(f'{archive.slug}/{month_file(m)}', month_name(m))} "
            f'<span class="count">{count_of(len(entries), "day")}</span></li>'
            for m, entries in reversed(months_of(archive).items())
        )
        latest_link = link(f"{archive.slug}/{day_file(latest.day)}", latest.day.isoformat())
        sections.append(
            f'<section class="archive"><h2>{link(archive.slug + "/index.html", archive.title)}</h2>\n'
            f"<p>{esc(archive.where)}</p>\n<p>Latest: {latest_link} ({latest.view.picked} papers)"
            f' · {count_of(len(archive.days), "day")}</p>\n<ul class="months">{months}</ul></section>'
        )
    body = f"<h1>{esc(SITE_NAME)}</h1>\n" + "\n".join(sections)
    return page(title=SITE_NAME, body=body, root="")


def search_page() -> str:
    """The search page: results are drawn by search.js from search-index.js, in the browser (no server)."""
    body = """<h1>Search the archive</h1>
<p id="search-status" class="lede" aria-live="polite">Type words from a title, an author or a TL;DR above.</p>
<noscript><p>Searching needs JavaScript; every digest can still be read from the index and the monthly pages.</p>
</noscript>
<ol id="results" class="results"></ol>"""
    return page(title=f"Search · {SITE_NAME}", body=body, root="", scripts=SEARCH_SCRIPTS)


def search_entries(archives: Sequence[Archive]) -> list[dict[str, Any]]:
    """One entry per paper shown anywhere: title, authors, TL;DR, day, archive and its link from the site's top."""
    entries = []
    for archive in archives:
        for e in archive.days:
            for item in e.view.items:
                entries.append(
                    {
                        "t": clean_text(item.title),
                        "a": clean_text(authors_line(item.authors, 4)),
                        "x": clean_text(item.tldr, 300),
                        "d": e.day.isoformat(),
                        "s": clean_text(archive.title),
                        "u": f"{archive.slug}/{day_file(e.day)}#{paper_anchor(item.id)}",
                        "i": item.id,
                    }
                )
    return entries


def search_index_js(archives: Sequence[Archive]) -> str:
    """The search index as a script (a page opened from disk may not fetch a JSON file, but may load a script)."""
    data = json.dumps(search_entries(archives), ensure_ascii=True, sort_keys=True, separators=(",", ":"))
    return f"window.PAPERSCOUT_SEARCH = {data};\n"
