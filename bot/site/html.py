"""The HTML of the web archive: one escaping rule for every untrusted string, and the page shell.

Everything a page shows came from outside (titles, authors, TL;DRs, reasons, profile names): it is cleaned with
`bot.text.safetext.clean_text` (no controls, bidi overrides or zero-width characters) and then HTML-escaped, quotes
included, so it is text wherever it lands, in an element or an attribute. Markup is only ever written here and in
`bot.site.pages`, never taken from data.
"""

from __future__ import annotations

import html
import re

from bot.text.safetext import clean_text

SITE_NAME = "paperscout archive"


def esc(text: object) -> str:
    """Untrusted text as inert HTML: cleaned, then `& < > " '` escaped (safe in elements and quoted attributes)."""
    return html.escape(clean_text(str(text)), quote=True)


def safe_href(href: str) -> bool:
    """Whether `href` may be a link: a relative path within the site, or an http(s) URL (never javascript:, data:
    or any other scheme, however it is disguised with case, spaces or control characters)."""
    bare = re.sub(r"[\x00-\x20\x7f]", "", clean_text(href)).lower()  # browsers drop these before the scheme
    scheme = re.match(r"^([a-z][a-z0-9+.-]*):", bare)
    if scheme:
        return scheme.group(1) in ("http", "https")
    return not bare.startswith("//")  # a scheme-relative URL leaves the site


def link(href: str, text: str, *, rel: str = "") -> str:
    """An anchor; `href` and `text` are escaped here. An `href` that is no safe link gives the text alone."""
    if not safe_href(href):
        return esc(text)
    rel_attr = f' rel="{esc(rel)}"' if rel else ""
    return f'<a href="{esc(href)}"{rel_attr}>{esc(text)}</a>'


def page(
    *,
    title: str,
    body: str,
    root: str,
    crumbs: list[tuple[str, str]] | None = None,
    scripts: tuple[str, ...] = (),
) -> str:
    """A whole page: `body` is markup built by the caller; `root` is the relative way up to the site's top ('../').

    `crumbs` are (href, label) pairs leading to this page; the header's search form works without JavaScript as a
    link to the search page (which needs JavaScript to show results, and says so).
    """
    trail = "".join(f"<li>{link(href, label)}</li>" for href, label in crumbs or [])
    script_tags = "".join(f'\n<script src="{esc(root + src)}" defer></script>' for src in scripts)
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="paperscout">
<title>{esc(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="{esc(root)}style.css">{script_tags}
</head>
<body>
<header class="site">
<nav aria-label="Breadcrumbs"><ol class="crumbs"><li>{link(root + "index.html", SITE_NAME)}</li>{trail}</ol></nav>
<form class="search" role="search" action="{esc(root)}search.html" method="get">
<label for="q" class="visually-hidden">Search the archive</label>
<input id="q" name="q" type="search" placeholder="Search titles, authors, TL;DRs">
<button type="submit">Search</button>
</form>
</header>
<main>
{body}
</main>
<footer class="site">Built by paperscout from its archive. Papers link to arXiv.</footer>
</body>
</html>
"""
