"""The one signal that an embedding in progress in this process should end at its next batch.

A command that is stopping (SIGTERM, bot.cli) sets it: an ingest's chunk takes minutes on a busy machine, and
finishing it would keep the process alive that long after it was asked to stop. The chunk is dropped unstored
and the next ingest embeds it. Kept apart from the embedders so that setting it imports nothing heavy.
"""

from __future__ import annotations

import threading

STOP_EMBEDDING = threading.Event()
