"""A progress bar on stderr for long work (embedding a day of papers), shown only on a terminal."""

from __future__ import annotations

import sys
from typing import Any


class Progress:
    """A tqdm bar on stderr that appears only for work long enough to need one, and only on a TTY."""

    def __init__(self, label: str, enabled: bool = True) -> None:
        self.label = label
        self.enabled = enabled and sys.stderr.isatty()
        self._bar: Any = None

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self._bar is None:
            from tqdm import tqdm

            self._bar = tqdm(total=total, desc=self.label, unit="paper", file=sys.stderr, leave=False)
        self._bar.n = done
        self._bar.refresh()
        if done >= total:
            self._bar.close()
            self._bar = None
