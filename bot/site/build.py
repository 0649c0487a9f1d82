"""`paperscout site build OUT/`: render every page of the web archive and write the folder.

The output depends only on the store: no build time or random value is written, files are written in a fixed
order and only when their content changed, so two builds of the same archive are byte for byte the same (and a
sync to a static host copies only what changed). The folder holds a manifest of the files it wrote; a rebuild
removes the files of the previous build that are gone, and a folder that is neither empty nor a paperscout site is
refused rather than written into. Every file is written to a temporary name and renamed over its place, so a
symbolic link planted in the folder is replaced, never written through; a linked folder inside it is refused.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from bot.core import Core
from bot.errors import InputError
from bot.models import Profile
from bot.site.collect import Archive, collect_archives
from bot.site.pages import (
    archive_index,
    day_file,
    day_page,
    month_file,
    month_page,
    months_of,
    search_index_js,
    search_page,
    site_index,
    week_file,
    week_page,
)
from bot.text.wording import count_of

MANIFEST = ".paperscout-site"
STATIC_FILES = ("style.css", "search.js")


@dataclass(frozen=True, slots=True)
class SiteReport:
    """What a build wrote: archives, day pages, all files and their total size, and how many files changed."""

    archives: int
    day_pages: int
    files: int
    bytes: int
    changed: int
    previews: int

    def line(self) -> str:
        """One line for the terminal."""
        kind = f" ({count_of(self.previews, 'preview')})" if self.previews else ""
        return (
            f"site: {count_of(self.archives, 'archive')}{kind}, {count_of(self.day_pages, 'day page')},"
            f" {count_of(self.files, 'file')}, {self.bytes / 1024:.0f} KiB; {count_of(self.changed, 'file')} written"
        )


def static_text(name: str) -> str:
    """A file shipped in bot/site/static (the style sheet and the search script)."""
    return (resources.files("bot.site") / "static" / name).read_text(encoding="utf-8")


def render_site(archives: list[Archive]) -> dict[str, str]:
    """Every file of the site: relative path -> content."""
    files = {"index.html": site_index(archives), "search.html": search_page()}
    files["search-index.js"] = search_index_js(archives)
    files.update({name: static_text(name) for name in STATIC_FILES})
    for archive in archives:
        files[f"{archive.slug}/index.html"] = archive_index(archive)
        for month in months_of(archive):
            files[f"{archive.slug}/{month_file(month)}"] = month_page(archive, month)
        for i, entry in enumerate(archive.days):
            files[f"{archive.slug}/{day_file(entry.day)}"] = day_page(archive, i)
        for i, week in enumerate(archive.weeks):
            files[f"{archive.slug}/{week_file(week.start)}"] = week_page(archive, i)
    return files


def _previous_manifest(out: Path) -> list[str]:
    """The files the last build wrote into `out`; refuses a folder with other content."""
    if not out.exists():
        return []
    if not out.is_dir():
        raise InputError(f"{out} is a file; give a folder for the site")
    manifest = out / MANIFEST
    if manifest.is_file():
        return [line for line in manifest.read_text(encoding="utf-8").splitlines() if line]
    if any(out.iterdir()):
        raise InputError(f"{out} is not empty and holds no paperscout site; give an empty or new folder")
    return []


def _real_folder(root: Path, folder: Path) -> None:
    """Create `folder` (inside `root`) and its parents, refusing a symbolic link on the way."""
    for part in reversed([folder, *folder.parents]):
        if part == root or not part.is_relative_to(root):
            continue
        if part.is_symlink():
            raise InputError(f"{part} is a symbolic link; the site is written only into real folders")
        part.mkdir(exist_ok=True)


def _replace_file(path: Path, data: bytes) -> None:
    """Write `data` to a new file renamed over `path`: a link at `path` is replaced, not followed."""
    fd, temp = tempfile.mkstemp(prefix=".paperscout-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.chmod(temp, 0o644)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def write_site(out: Path, files: dict[str, str]) -> tuple[int, int]:
    """Write `files` under `out` (only those that changed) and drop the previous build's leftovers.

    Returns (files written, total bytes).
    """
    old = _previous_manifest(out)
    out.mkdir(parents=True, exist_ok=True)
    root = out.resolve()
    changed = total = 0
    for rel in sorted(files):
        data = files[rel].encode("utf-8")
        total += len(data)
        path = root / rel
        _real_folder(root, path.parent)
        if not path.is_symlink() and path.is_file() and path.read_bytes() == data:
            continue
        _replace_file(path, data)
        changed += 1
    for rel in sorted(set(old) - set(files)):
        path = (out / rel).resolve()
        if path.is_relative_to(root) and path.is_file():  # a hand-edited manifest cannot delete outside the site
            path.unlink()
            if path.parent != root and not any(path.parent.iterdir()):
                path.parent.rmdir()
    _replace_file(root / MANIFEST, "".join(f"{rel}\n" for rel in sorted(files)).encode("utf-8"))
    return changed, total


async def build_site(
    core: Core, out: Path, default_profile: Profile, extra_profile: Profile | None = None
) -> SiteReport:
    """Build the static web archive of the store into `out` (see `bot.site.collect` for what it shows)."""
    archives = await collect_archives(core, default_profile, extra_profile)
    files = render_site(archives)
    changed, total = write_site(out, files)
    return SiteReport(
        archives=len(archives),
        day_pages=sum(len(a.days) for a in archives),
        files=len(files),
        bytes=total,
        changed=changed,
        previews=sum(a.preview for a in archives),
    )
