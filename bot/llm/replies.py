"""Reading LLM replies: strict JSON first, then tolerant extraction of whatever complete entries survive.

Models wrap JSON in code fences, add a sentence before it, stop half-way (token limit) or answer in lines
instead of JSON. The helpers here recover every complete entry they can find, so one bad line never costs
the rest of a batch; callers check which keys are still missing and ask again for those only.
"""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"^\s*```[a-zA-Z]*\s*|\s*```\s*$")
# {"id": 3, "text": "..."} with either key order; the text may contain escaped quotes.
_ID_TEXT = re.compile(
    r'\{\s*"id"\s*:\s*"?(\d+)"?\s*,\s*"(?:text|tldr|comment)"\s*:\s*"((?:[^"\\]|\\.)*)"\s*\}'
    r'|\{\s*"(?:text|tldr|comment)"\s*:\s*"((?:[^"\\]|\\.)*)"\s*,\s*"id"\s*:\s*"?(\d+)"?\s*\}'
)


def load_json_object(text: str) -> dict[str, Any] | None:
    """The reply as a JSON object (code fences and text around the outermost braces tolerated), else None."""
    stripped = _FENCE.sub("", text.strip())
    candidates = [stripped]
    start, end = stripped.find("{"), stripped.rfind("}")
    if 0 <= start < end:
        candidates.append(stripped[start : end + 1])
    for candidate in candidates:
        try:
            data = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(data, dict):
            return data
    return None


def json_string(raw: str) -> str:
    """Decode the body of a JSON string literal found by a regex (escapes resolved); raw text if it is broken."""
    try:
        value = json.loads(f'"{raw}"')
    except ValueError:
        return raw
    return value if isinstance(value, str) else raw


def as_key(value: Any) -> int | None:
    """A paper number from a reply (3 or "3"), or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def as_grade(value: Any) -> float | None:
    """A 1-10 grade from a reply (7, 7.5 or "7"), or None when it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if isinstance(value, int | float) and 1 <= value <= 10:
        return float(value)
    return None


def id_text_pairs(text: str) -> dict[int, str]:
    """Every complete ``{"id": N, "text": "..."}`` object anywhere in `text` (first one per id wins)."""
    found: dict[int, str] = {}
    for match in _ID_TEXT.finditer(text):
        key = match.group(1) or match.group(4)
        body = match.group(2) if match.group(1) else match.group(3)
        found.setdefault(int(key), json_string(body))
    return found
